//! The few IPv4 header facts the link models read, and the one field they may rewrite (ECN).

use airtcp_core::ids::{FlowId, NodeId};
use airtcp_core::packet::{Ecn, IpHeader, Proto, TcpHeader, Wire};

/// Parsed view of an IPv4 packet: what the models see, plus the destination for routing.
#[derive(Clone, Copy, Debug)]
pub struct Parsed {
    pub wire: Wire,
    pub src: u32,
    pub dst: u32,
}

/// Parse an IPv4 packet (None for anything else: IPv6 neighbour chatter, runts). TCP's
/// payload length and sequence number fill the `Wire` so that models which apply to data
/// only, or key on the sequence number (`hashed`), see what they see in simulation.
pub fn parse(buf: &[u8]) -> Option<Parsed> {
    if buf.len() < 20 || buf[0] >> 4 != 4 {
        return None;
    }
    let ihl = (buf[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([buf[2], buf[3]]) as usize;
    if ihl < 20 || total < ihl || total > buf.len() {
        return None;
    }
    let proto_num = buf[9];
    let src = u32::from_be_bytes([buf[12], buf[13], buf[14], buf[15]]);
    let dst = u32::from_be_bytes([buf[16], buf[17], buf[18], buf[19]]);
    let mut tcp = TcpHeader::default();
    let proto = if proto_num == 6 && total >= ihl + 20 {
        let t = &buf[ihl..total];
        let doff = (t[12] >> 4) as usize * 4;
        tcp.seq = u32::from_be_bytes([t[4], t[5], t[6], t[7]]) as u64;
        tcp.ack = u32::from_be_bytes([t[8], t[9], t[10], t[11]]) as u64;
        tcp.flags = core_flags(t[13]);
        tcp.len = (total - ihl).saturating_sub(doff) as u32;
        Proto::Tcp
    } else {
        Proto::Udp
    };
    let wire = Wire {
        flow: FlowId(0),
        src: NodeId(0),
        dst: NodeId(0),
        size: total as u32,
        proto,
        ip: IpHeader {
            ecn: Ecn(buf[1] & 0x03),
            ttl: buf[8],
            ..IpHeader::default()
        },
        tcp,
        udp_seq: 0,
    };
    Some(Parsed { wire, src, dst })
}

/// Real TCP flag bits (RFC 793, RFC 3168) in the core's layout (`packet::flags`).
fn core_flags(b: u8) -> u8 {
    use airtcp_core::packet::flags;
    let map = [
        (0x01, flags::FIN),
        (0x02, flags::SYN),
        (0x10, flags::ACK),
        (0x40, flags::ECE),
        (0x80, flags::CWR),
    ];
    map.iter()
        .filter(|(bit, _)| b & bit != 0)
        .fold(0, |acc, (_, f)| acc | f)
}

/// Where the TCP header starts in an IPv4 packet (None unless TCP with a whole header).
pub fn tcp_offset(buf: &[u8]) -> Option<usize> {
    let ihl = (buf[0] & 0x0f) as usize * 4;
    (buf.len() >= ihl + 20 && buf[9] == 6).then_some(ihl)
}

/// TCP ports (source, destination) of an IPv4 TCP packet.
pub fn ports(buf: &[u8]) -> Option<(u16, u16)> {
    let o = tcp_offset(buf)?;
    Some((
        u16::from_be_bytes([buf[o], buf[o + 1]]),
        u16::from_be_bytes([buf[o + 2], buf[o + 3]]),
    ))
}

/// Replace the 16-bit word at `at` with `new` and update the checksum at `sum`
/// incrementally (RFC 1624, eqn. 3: HC' = ~(~HC + ~m + m')).
pub fn replace16(buf: &mut [u8], at: usize, sum: usize, new: u16) {
    let old = u16::from_be_bytes([buf[at], buf[at + 1]]);
    let hc = u16::from_be_bytes([buf[sum], buf[sum + 1]]);
    let mut x = (!hc) as u32 + (!old) as u32 + new as u32;
    while x >> 16 != 0 {
        x = (x & 0xffff) + (x >> 16);
    }
    buf[at..at + 2].copy_from_slice(&new.to_be_bytes());
    buf[sum..sum + 2].copy_from_slice(&(!(x as u16)).to_be_bytes());
}

/// Set the TCP window field (checksum updated).
pub fn set_tcp_window(buf: &mut [u8], wnd: u16) {
    if let Some(o) = tcp_offset(buf) {
        replace16(buf, o + 14, o + 16, wnd);
    }
}

/// Clear the TCP ECE flag (checksum updated).
pub fn clear_ece(buf: &mut [u8]) {
    if let Some(o) = tcp_offset(buf) {
        let w = u16::from_be_bytes([buf[o + 12], buf[o + 13]]);
        replace16(buf, o + 12, o + 16, w & !0x0040);
    }
}

/// The TCP checksum of an IPv4 TCP packet as it stands (0 when it is correct).
pub fn tcp_checksum_residue(buf: &[u8]) -> u16 {
    let ihl = (buf[0] & 0x0f) as usize * 4;
    let total = u16::from_be_bytes([buf[2], buf[3]]) as usize;
    let mut pseudo = Vec::with_capacity(12 + total - ihl);
    pseudo.extend_from_slice(&buf[12..20]);
    pseudo.extend_from_slice(&[0, 6]);
    pseudo.extend_from_slice(&((total - ihl) as u16).to_be_bytes());
    pseudo.extend_from_slice(&buf[ihl..total]);
    checksum(&pseudo)
}

/// Write `ecn` into the header's ECN bits and fix the header checksum (RFC 1624 would do it
/// incrementally; a 20-60 byte header is cheap to sum again).
pub fn set_ecn(buf: &mut [u8], ecn: u8) {
    buf[1] = (buf[1] & !0x03) | (ecn & 0x03);
    let ihl = (buf[0] & 0x0f) as usize * 4;
    buf[10] = 0;
    buf[11] = 0;
    let c = checksum(&buf[..ihl]);
    buf[10..12].copy_from_slice(&c.to_be_bytes());
}

/// The Internet checksum (RFC 1071) of `data`.
pub fn checksum(data: &[u8]) -> u16 {
    let mut sum: u32 = 0;
    for ch in data.chunks(2) {
        let w = if ch.len() == 2 {
            u16::from_be_bytes([ch[0], ch[1]])
        } else {
            u16::from_be_bytes([ch[0], 0])
        };
        sum += w as u32;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A minimal IPv4 packet (tests and the benchmark): `proto` 6 gives a 20-byte TCP header.
pub fn build(src: u32, dst: u32, proto: u8, total: usize, ecn: u8) -> Vec<u8> {
    let mut b = vec![0u8; total.max(40)];
    b[0] = 0x45;
    b[1] = ecn & 3;
    let len = b.len() as u16;
    b[2..4].copy_from_slice(&len.to_be_bytes());
    b[8] = 64;
    b[9] = proto;
    b[12..16].copy_from_slice(&src.to_be_bytes());
    b[16..20].copy_from_slice(&dst.to_be_bytes());
    if proto == 6 {
        b[32] = 5 << 4;
    }
    let c = checksum(&b[..20]);
    b[10..12].copy_from_slice(&c.to_be_bytes());
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_tcp_payload_and_ecn() {
        let p = build(0x0a000001, 0x0a000002, 6, 1040, 2);
        let v = parse(&p).unwrap();
        assert_eq!(v.wire.size, 1040);
        assert_eq!(v.wire.tcp.len, 1000);
        assert!(v.wire.is_data());
        assert_eq!(v.wire.ip.ecn.0, 2);
        assert_eq!(v.dst, 0x0a000002);
        // A pure ACK carries no data.
        let a = parse(&build(1, 2, 6, 40, 0)).unwrap();
        assert!(!a.wire.is_data());
        assert!(parse(&[0x60; 40]).is_none());
    }

    #[test]
    fn incremental_checksum_matches_a_full_one() {
        let mut p = build(0x0a000001, 0x0a000002, 6, 60, 0);
        p[20 + 13] = 0x50; // ACK, ECE
        p[20 + 14] = 0x12; // window 0x1234
        p[20 + 15] = 0x34;
        let c = tcp_checksum_residue(&p); // with a zero checksum field: the checksum itself
        p[36..38].copy_from_slice(&c.to_be_bytes());
        assert_eq!(tcp_checksum_residue(&p), 0);
        set_tcp_window(&mut p, 0);
        assert_eq!(u16::from_be_bytes([p[34], p[35]]), 0);
        assert_eq!(tcp_checksum_residue(&p), 0);
        clear_ece(&mut p);
        assert_eq!(p[33], 0x10);
        assert_eq!(tcp_checksum_residue(&p), 0);
        let v = parse(&p).unwrap();
        assert_eq!(v.wire.tcp.flags, airtcp_core::packet::flags::ACK);
    }

    #[test]
    fn ecn_rewrite_keeps_checksum_valid() {
        let mut p = build(0x0a000001, 0x0a000002, 17, 100, 2);
        set_ecn(&mut p, 3);
        assert_eq!(p[1] & 3, 3);
        // A header with a correct checksum sums to zero.
        assert_eq!(checksum(&p[..20]), 0);
    }
}
