//! Packet traces in the classic pcap format (the libpcap file format, "pcap-savefile"): a
//! 24-byte file header, then per packet a 16-byte record header (time, captured length,
//! original length) and the bytes. Two link types are written:
//!
//! * `LINKTYPE_RAW` (101): the IPv4 packets a node sends and receives, on any device. The IP
//!   and TCP (or UDP) headers are built from what the simulator's packet carries: ECN bits,
//!   TTL, ports standing for the flow, 32-bit sequence and acknowledgement numbers (the
//!   simulator's byte offsets modulo 2^32), flags, the window, and the options it models:
//!   timestamps, SACK blocks and, on SYNs, MSS, SACK-permitted and window scale. Payload bytes
//!   are not stored: a record holds the headers and gives the packet's full length, as
//!   `tcpdump -s` does.
//! * `LINKTYPE_IEEE802_11_RADIOTAP` (127): every frame sent on an 802.11 medium (RTS, CTS,
//!   data, ACK), with a radiotap header giving the rate, as a monitor-mode sniffer in range of
//!   every station would see them. Data frames carry LLC/SNAP and the IP packet as above.
//!
//! Addresses: node `i` (in scenario order) is 10.0.0.0 + i + 1 and MAC 02:00:00:xx:xx:xx with
//! the same number; flow `f` runs from port 10000 + f at its source to port 20000 + f (its
//! ACKs the other way). Writing is buffered;
//! nothing here runs unless a scenario asks for a trace.

use crate::engine::Time;
use crate::packet::{flags, Proto, Wire};
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;

pub const LINKTYPE_RAW: u32 = 101;
pub const LINKTYPE_IEEE802_11_RADIOTAP: u32 = 127;

/// The window-scale shift announced on SYNs and applied to every advertised window (the
/// simulator's windows are byte counts of any size).
pub const WINDOW_SHIFT: u8 = 7;

/// What a trace needs to know of a flow that its packets do not say.
#[derive(Clone, Copy, Debug, Default)]
pub struct FlowWire {
    /// The node that opens the flow: packets from it go from the flow's first port.
    pub src: u32,
    pub timestamps: bool,
    pub sack: bool,
    pub mss: u16,
}

/// One pcap file, created when the first record is written or the trace is finished (so
/// building a scenario to validate it writes nothing).
pub struct PcapWriter {
    path: PathBuf,
    linktype: u32,
    out: Option<BufWriter<File>>,
    error: Option<String>,
}

impl PcapWriter {
    pub fn new(path: PathBuf, linktype: u32) -> PcapWriter {
        PcapWriter {
            path,
            linktype,
            out: None,
            error: None,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open(&mut self) -> std::io::Result<BufWriter<File>> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&self.path)?);
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&0xa1b2_c3d4u32.to_le_bytes()); // microsecond timestamps
        h.extend_from_slice(&2u16.to_le_bytes());
        h.extend_from_slice(&4u16.to_le_bytes());
        h.extend_from_slice(&0i32.to_le_bytes()); // GMT offset
        h.extend_from_slice(&0u32.to_le_bytes()); // accuracy
        h.extend_from_slice(&65535u32.to_le_bytes()); // snap length
        h.extend_from_slice(&self.linktype.to_le_bytes());
        out.write_all(&h)?;
        Ok(out)
    }

    fn out(&mut self) -> Option<&mut BufWriter<File>> {
        if self.out.is_none() && self.error.is_none() {
            match self.open() {
                Ok(o) => self.out = Some(o),
                Err(e) => self.error = Some(format!("{}: {e}", self.path.display())),
            }
        }
        self.out.as_mut()
    }

    /// Append one record: `bytes` captured of a packet `orig_len` long, at `now`.
    pub fn record(&mut self, now: Time, bytes: &[u8], orig_len: usize) {
        let us = now / 1_000;
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&((us / 1_000_000) as u32).to_le_bytes());
        h[4..8].copy_from_slice(&((us % 1_000_000) as u32).to_le_bytes());
        h[8..12].copy_from_slice(&(bytes.len() as u32).to_le_bytes());
        h[12..16].copy_from_slice(&(orig_len.max(bytes.len()) as u32).to_le_bytes());
        let Some(out) = self.out() else { return };
        if let Err(e) = out.write_all(&h).and_then(|_| out.write_all(bytes)) {
            self.error = Some(format!("{}: {e}", self.path.display()));
            self.out = None;
        }
    }

    /// Create the file if nothing was written, flush it; the first error, if any.
    pub fn finish(&mut self) -> Result<(), String> {
        if let Some(out) = self.out() {
            if let Err(e) = out.flush() {
                self.error = Some(format!("{}: {e}", self.path.display()));
            }
        }
        self.error.clone().map_or(Ok(()), Err)
    }
}

/// The traces of a run: the nodes whose packets are written (raw IP), and every file (those
/// of media too, which their 802.11 devices write), flushed at the end.
pub struct Capture {
    /// Writer of each node (by node index), if the node is traced.
    by_node: Vec<Option<Rc<RefCell<PcapWriter>>>>,
    flows: Vec<FlowWire>,
    files: Vec<(String, Rc<RefCell<PcapWriter>>)>,
    buf: Vec<u8>,
}

impl Capture {
    pub fn new(nodes: usize, flows: Vec<FlowWire>) -> Capture {
        Capture {
            by_node: vec![None; nodes],
            flows,
            files: Vec::new(),
            buf: Vec::with_capacity(128),
        }
    }

    /// Write the packets `node` sends and receives to `w` (a raw-IP file).
    pub fn trace_node(&mut self, node: usize, name: String, w: Rc<RefCell<PcapWriter>>) {
        self.by_node[node] = Some(w.clone());
        self.files.push((name, w));
    }

    /// A file written by someone else (a medium), to be flushed with the others.
    pub fn add_file(&mut self, name: String, w: Rc<RefCell<PcapWriter>>) {
        self.files.push((name, w));
    }

    pub fn flows(&self) -> &[FlowWire] {
        &self.flows
    }

    /// `node` sends or receives `w` at `now`.
    #[inline]
    pub fn packet(&mut self, node: usize, now: Time, w: &Wire) {
        if let Some(Some(file)) = self.by_node.get(node) {
            self.buf.clear();
            let f = self.flows.get(w.flow.idx()).copied().unwrap_or_default();
            let full = ip_packet(w, w.flow.0, f, &mut self.buf);
            file.borrow_mut().record(now, &self.buf, full);
        }
    }

    /// Flush every file; the first error with the file's name.
    pub fn finish(&mut self) -> Result<(), String> {
        for (name, w) in &self.files {
            w.borrow_mut()
                .finish()
                .map_err(|e| format!("trace of {name}: {e}"))?;
        }
        Ok(())
    }
}

pub fn ip_addr(node: u32) -> [u8; 4] {
    if node == u32::MAX {
        return [0xff; 4]; // limited broadcast
    }
    (0x0a00_0000u32 + node + 1).to_be_bytes()
}

pub fn mac_addr(node: u32) -> [u8; 6] {
    if node == u32::MAX {
        return [0xff; 6]; // broadcast
    }
    let n = (node + 1).to_be_bytes();
    [0x02, 0, 0, n[1], n[2], n[3]]
}

fn checksum(bytes: &[u8]) -> u16 {
    let mut sum = 0u32;
    for c in bytes.chunks(2) {
        let w = if c.len() == 2 {
            u16::from_be_bytes([c[0], c[1]])
        } else {
            u16::from_be_bytes([c[0], 0])
        };
        sum += w as u32;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The TCP options of a segment, padded to a multiple of four bytes.
fn tcp_options(w: &Wire, f: FlowWire, out: &mut Vec<u8>) {
    let t = &w.tcp;
    if t.has(flags::SYN) {
        out.extend_from_slice(&[2, 4]);
        out.extend_from_slice(&f.mss.to_be_bytes());
        out.extend_from_slice(&[1, 3, 3, WINDOW_SHIFT]);
        if f.sack {
            out.extend_from_slice(&[1, 1, 4, 2]);
        }
    }
    if f.timestamps {
        out.extend_from_slice(&[1, 1, 8, 10]);
        out.extend_from_slice(&((t.ts_val / 1_000_000) as u32).to_be_bytes());
        out.extend_from_slice(&((t.ts_ecr / 1_000_000) as u32).to_be_bytes());
    }
    let blocks = t.sack_blocks();
    if !blocks.is_empty() {
        out.extend_from_slice(&[1, 1, 5, 2 + 8 * blocks.len() as u8]);
        for b in blocks {
            out.extend_from_slice(&(b.start as u32).to_be_bytes());
            out.extend_from_slice(&(b.end as u32).to_be_bytes());
        }
    }
    while !out.len().is_multiple_of(4) {
        out.push(0);
    }
}

/// The IPv4 packet's headers (IP and TCP or UDP) into `out`; returns the packet's full length
/// (headers and payload).
pub fn ip_packet(w: &Wire, flow_index: u32, f: FlowWire, out: &mut Vec<u8>) -> usize {
    let start = out.len();
    out.extend_from_slice(&[0u8; 20]);
    let (mut sport, mut dport) = ((10_000 + flow_index) as u16, (20_000 + flow_index) as u16);
    if w.src.0 != f.src {
        (sport, dport) = (dport, sport);
    }
    let (proto, total) = match w.proto {
        Proto::Tcp => {
            let th = out.len();
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&(w.tcp.seq as u32).to_be_bytes());
            out.extend_from_slice(&(w.tcp.ack as u32).to_be_bytes());
            out.extend_from_slice(&[0, 0]); // data offset and flags, below
            let wnd = (w.tcp.wnd >> WINDOW_SHIFT).min(65_535) as u16;
            out.extend_from_slice(&wnd.to_be_bytes());
            out.extend_from_slice(&[0, 0, 0, 0]); // checksum (no payload to sum), urgent
            tcp_options(w, f, out);
            let hlen = out.len() - th;
            let t = &w.tcp;
            let mut fl = 0u8;
            for (ours, theirs) in [
                (flags::FIN, 0x01),
                (flags::SYN, 0x02),
                (flags::ACK, 0x10),
                (flags::ECE, 0x40),
                (flags::CWR, 0x80),
            ] {
                if t.has(ours) {
                    fl |= theirs;
                }
            }
            if t.len > 0 {
                fl |= 0x08; // PSH: each segment is handed to the application at once
            }
            out[th + 12] = ((hlen / 4) as u8) << 4;
            out[th + 13] = fl;
            (6u8, 20 + hlen + t.len as usize)
        }
        Proto::Udp => {
            let payload = (w.size as usize).saturating_sub(28);
            out.extend_from_slice(&sport.to_be_bytes());
            out.extend_from_slice(&dport.to_be_bytes());
            out.extend_from_slice(&((8 + payload) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            (17u8, 28 + payload)
        }
        Proto::Routing(port) => {
            // A routing protocol's message: UDP from and to its port, the message's length.
            let payload = (w.size as usize).saturating_sub(28);
            out.extend_from_slice(&port.port().to_be_bytes());
            out.extend_from_slice(&port.port().to_be_bytes());
            out.extend_from_slice(&((8 + payload) as u16).to_be_bytes());
            out.extend_from_slice(&[0, 0]);
            (17u8, 28 + payload)
        }
    };
    let ip = &mut out[start..start + 20];
    ip[0] = 0x45;
    ip[1] = w.ip.ecn.bits();
    ip[2..4].copy_from_slice(&(total.min(65_535) as u16).to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = w.ip.ttl;
    ip[9] = proto;
    ip[12..16].copy_from_slice(&ip_addr(w.src.0));
    ip[16..20].copy_from_slice(&ip_addr(w.dst.0));
    let sum = checksum(ip);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    total
}

/// An 802.11 frame as [`frame_80211`] writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    Rts,
    Cts,
    Data,
    Ack,
}

/// A radiotap header (flags and rate) and the 802.11 frame (no FCS) into `out`; `data` is
/// the IP packet of a data frame (its headers, and its full length). Returns the frame's
/// full length.
#[allow(clippy::too_many_arguments)]
pub fn frame_80211(
    kind: FrameKind,
    rate_bps: u64,
    from: u32,
    to: u32,
    nav: Time,
    seq: u32,
    retry: bool,
    data: Option<(&[u8], usize)>,
    out: &mut Vec<u8>,
) -> usize {
    // Radiotap: version 0, length 10, fields Flags (bit 1) and Rate (bit 2, 500 kb/s units).
    out.extend_from_slice(&[0, 0, 10, 0]);
    out.extend_from_slice(&0b110u32.to_le_bytes());
    out.push(0);
    out.push((rate_bps / 500_000).min(255) as u8);
    let head = out.len();
    let fc0: u8 = match kind {
        FrameKind::Rts => 0xb4,
        FrameKind::Cts => 0xc4,
        FrameKind::Ack => 0xd4,
        FrameKind::Data => 0x08,
    };
    let fc1: u8 = if retry { 0x08 } else { 0 };
    out.extend_from_slice(&[fc0, fc1]);
    let dur_us = nav.div_ceil(1_000).min(32_767) as u16;
    out.extend_from_slice(&dur_us.to_le_bytes());
    out.extend_from_slice(&mac_addr(to));
    match kind {
        FrameKind::Cts | FrameKind::Ack => {}
        FrameKind::Rts => out.extend_from_slice(&mac_addr(from)),
        FrameKind::Data => {
            out.extend_from_slice(&mac_addr(from));
            out.extend_from_slice(&[0x02, 0, 0, 0, 0, 0]); // BSSID of the ad hoc network
            out.extend_from_slice(&(((seq & 0x0fff) << 4) as u16).to_le_bytes());
            out.extend_from_slice(&[0xaa, 0xaa, 0x03, 0, 0, 0, 0x08, 0x00]); // LLC/SNAP, IPv4
        }
    }
    let mac = out.len() - head;
    match data {
        Some((bytes, full)) => {
            out.extend_from_slice(bytes);
            mac + full
        }
        None => mac,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{FlowId, NodeId};
    use crate::packet::{Ecn, IpHeader, SackBlock, TcpHeader};

    fn seg() -> Wire {
        let mut tcp = TcpHeader {
            seq: (1u64 << 32) + 1000,
            ack: 5,
            len: 1000,
            flags: flags::ACK,
            wnd: 128 * 100,
            ts_val: 3_000_000,
            ts_ecr: 1_000_000,
            ..Default::default()
        };
        tcp.sack[0] = SackBlock {
            start: 2000,
            end: 3000,
        };
        tcp.n_sack = 1;
        Wire {
            flow: FlowId(2),
            src: NodeId(0),
            dst: NodeId(3),
            size: 1040,
            proto: Proto::Tcp,
            ip: IpHeader {
                ecn: Ecn::ECT0,
                ttl: 64,
                ..Default::default()
            },
            tcp,
            udp_seq: 0,
        }
    }

    #[test]
    fn ip_and_tcp_headers_follow_rfc_791_and_793() {
        let f = FlowWire {
            src: 0,
            timestamps: true,
            sack: true,
            mss: 1000,
        };
        let mut out = Vec::new();
        let total = ip_packet(&seg(), 2, f, &mut out);
        // IP: version 4, 20 bytes, ECT(0), addresses 10.0.0.1 -> 10.0.0.4, valid checksum.
        assert_eq!(out[0], 0x45);
        assert_eq!(out[1], 0b10);
        assert_eq!(&out[12..20], &[10, 0, 0, 1, 10, 0, 0, 4]);
        assert_eq!(checksum(&out[..20]), 0);
        // TCP: ports, sequence number modulo 2^32, 20 + 12 (timestamps) + 12 (one SACK block).
        let t = &out[20..];
        assert_eq!(u16::from_be_bytes([t[0], t[1]]), 10_002);
        assert_eq!(u16::from_be_bytes([t[2], t[3]]), 20_002);
        assert_eq!(u32::from_be_bytes([t[4], t[5], t[6], t[7]]), 1000);
        assert_eq!(t[12] >> 4, 11);
        assert_eq!(t[13], 0x18); // ACK, PSH
        assert_eq!(u16::from_be_bytes([t[14], t[15]]), 100);
        assert_eq!(&t[20..24], &[1, 1, 8, 10]);
        assert_eq!(u32::from_be_bytes([t[24], t[25], t[26], t[27]]), 3);
        assert_eq!(&t[32..36], &[1, 1, 5, 10]);
        assert_eq!(u32::from_be_bytes([t[36], t[37], t[38], t[39]]), 2000);
        assert_eq!(out.len(), 20 + 44);
        assert_eq!(total, 20 + 44 + 1000);
        assert_eq!(u16::from_be_bytes([out[2], out[3]]) as usize, total);
    }

    #[test]
    fn a_syn_announces_mss_window_scale_and_sack() {
        let mut w = seg();
        w.tcp.flags = flags::SYN;
        w.tcp.len = 0;
        w.tcp.n_sack = 0;
        let f = FlowWire {
            src: 0,
            timestamps: false,
            sack: true,
            mss: 1460,
        };
        let mut out = Vec::new();
        ip_packet(&w, 0, f, &mut out);
        let o = &out[40..];
        assert_eq!(&o[..4], &[2, 4, 0x05, 0xb4]);
        assert_eq!(&o[4..8], &[1, 3, 3, WINDOW_SHIFT]);
        assert_eq!(&o[8..12], &[1, 1, 4, 2]);
        assert_eq!(out[33], 0x02);
    }

    #[test]
    fn control_frames_have_the_80211_layout() {
        let mut out = Vec::new();
        assert_eq!(
            frame_80211(FrameKind::Ack, 1_000_000, 1, 0, 0, 0, false, None, &mut out),
            10
        );
        assert_eq!(&out[..4], &[0, 0, 10, 0]);
        assert_eq!(out[9], 2); // 1 Mb/s in 500 kb/s units
        assert_eq!(&out[10..12], &[0xd4, 0]);
        assert_eq!(&out[14..20], &mac_addr(0));
        out.clear();
        let n = frame_80211(
            FrameKind::Data,
            2_000_000,
            0,
            1,
            1_500,
            7,
            true,
            Some((&[0x45; 20], 1040)),
            &mut out,
        );
        assert_eq!(n, 24 + 8 + 1040);
        assert_eq!(&out[10..14], &[0x08, 0x08, 2, 0]); // data, retry; 1.5 us rounds up to 2
        assert_eq!(&out[32..34], &[0x70, 0]); // sequence number 7
        assert_eq!(&out[34..42], &[0xaa, 0xaa, 3, 0, 0, 0, 8, 0]);
    }

    #[test]
    fn records_carry_microsecond_times_and_both_lengths() {
        let dir = std::env::temp_dir().join(format!("airtcp-pcap-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.pcap");
        let mut w = PcapWriter::new(path.clone(), LINKTYPE_RAW);
        w.record(1_500_002_000, &[1, 2, 3], 100);
        w.finish().unwrap();
        let b = std::fs::read(&path).unwrap();
        assert_eq!(&b[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
        assert_eq!(u32::from_le_bytes([b[20], b[21], b[22], b[23]]), 101);
        let r = &b[24..];
        assert_eq!(u32::from_le_bytes([r[0], r[1], r[2], r[3]]), 1);
        assert_eq!(u32::from_le_bytes([r[4], r[5], r[6], r[7]]), 500_002);
        assert_eq!(u32::from_le_bytes([r[8], r[9], r[10], r[11]]), 3);
        assert_eq!(u32::from_le_bytes([r[12], r[13], r[14], r[15]]), 100);
        assert_eq!(&r[16..], &[1, 2, 3]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
