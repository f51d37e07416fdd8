//! The media path against the simulator: raw UDP packets put through `SimEngine` at the
//! times a simulated CBR source sends them meet the same 802.11, TDMA and ARQ models, so
//! they are delivered at the rate the simulated run delivers, with its retries and losses.
//! The clock is injected (packets enter at chosen times, `advance` is called in steps).

use crate::ip;
use crate::simnet::{plan, SimEngine};
use airtcp_core::engine::{Time, MS, SEC};
use airtcp_core::scenario::{parse_toml, FileAccess};

const A: u32 = 0x0a00_0001;
const B: u32 = 0x0a00_0002;

/// A scenario `body` (nodes, links, media) with one CBR flow A -> B of `rate` in
/// `size`-byte packets.
fn scenario(body: &str, rate: &str, size: u32, secs: u32) -> String {
    format!(
        "duration = \"{secs}s\"\nseed = 5\n{body}\n\
         [[flows]]\nname = \"u\"\nsrc = \"A\"\ndst = \"B\"\n\
         app = {{ kind = \"cbr\", rate = \"{rate}\", packet_size = {size} }}\n"
    )
}

/// What the simulator delivers, and what the emulator delivers of packets of the same size
/// read at the CBR's send times, advanced in 1 ms steps (the macs/links tables of both).
struct Both {
    sim_delivered: u64,
    emu_delivered: u64,
    sent: u64,
    sim: serde_json::Value,
    emu: serde_json::Value,
    /// Arrival times at B in the emulator.
    arrivals: Vec<Time>,
    /// Packets still in the emulated network at the end.
    in_flight: u64,
}

fn run_both(text: &str, rate_bps: u64, size: u32, secs: u32) -> Both {
    let sc = parse_toml(text).unwrap();
    let r = airtcp_core::run(&sc).unwrap();
    let sim = serde_json::to_value(&r).unwrap();
    let files = FileAccess::default();
    assert_eq!(plan(&sc, &files).unwrap().hosts, ["A", "B"]);
    let end = secs as Time * SEC;
    let mut e = SimEngine::new(&sc, &files, &[A, B], end).unwrap();
    let interval = (size as u64 * 8 * SEC).div_ceil(rate_bps);
    let pkt = ip::build(A, B, 17, size as usize, 0);
    let (mut t, mut step, mut sent) = (0, 0, 0);
    let mut arrivals = Vec::new();
    while step < end {
        step += MS;
        while t < step.min(end) {
            e.ingress(t, 0, &pkt).unwrap();
            sent += 1;
            t += interval;
        }
        e.advance(step - 1, |h, p, due| {
            assert_eq!((h, p.len()), (1, size as usize));
            arrivals.push(due);
        });
    }
    let emu_delivered = e.delivered;
    assert_eq!(e.unmatched, 0);
    let in_flight = e.in_flight();
    let emu = e.close(end);
    Both {
        sim_delivered: r.flows[0].received_packets,
        emu_delivered,
        sent,
        sim,
        emu,
        arrivals,
        in_flight,
    }
}

fn mac<'a>(v: &'a serde_json::Value, node: &str) -> &'a serde_json::Value {
    v["macs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["node"].as_str().unwrap().starts_with(node))
        .unwrap()
}

const WIFI_PAIR: &str = "[[nodes]]\nname = \"A\"\nposition = [0, 0]\n\
    [[nodes]]\nname = \"B\"\nposition = [DIST, 0]\n\
    [[media]]\nname = \"air\"\nkind = \"wifi\"\npreset = \"ns2\"\nRECEPTION\n";

#[test]
fn wifi_saturated_link_delivers_the_simulated_rate() {
    // ns-2's 802.11 at 2 Mbit/s with RTS/CTS for every frame, 200 m apart, offered 3 Mbit/s
    // of 1000-byte packets: the MAC's saturation throughput (about 1.2 Mbit/s) is what
    // leaves; the interface queue overflows with the rest.
    let body = WIFI_PAIR
        .replace("DIST", "200")
        .replace("RECEPTION", "reception = \"ns2\"");
    let b = run_both(&scenario(&body, "3Mbps", 1000, 3), 3_000_000, 1000, 3);
    // The same packets at the same times meet the same MAC and the same random streams:
    // the emulator's deliveries are the simulator's, up to packets in flight at the end.
    assert!(b.sim_delivered > 300, "{}", b.sim_delivered);
    assert!(
        b.emu_delivered.abs_diff(b.sim_delivered) <= 2,
        "emu {} sim {}",
        b.emu_delivered,
        b.sim_delivered
    );
    let rate = b.emu_delivered as f64 * 8000.0 / 3.0;
    assert!((1.0e6..1.5e6).contains(&rate), "{rate}");
    let (se, ee) = (mac(&b.sim, "A"), mac(&b.emu, "A"));
    assert!(ee["rts_frames"].as_u64().unwrap() >= b.emu_delivered);
    assert!(ee["drops_queue_overflow"].as_u64().unwrap() > b.sent / 3);
    for k in ["rts_frames", "data_frames", "drops_queue_overflow"] {
        let (s, e) = (se[k].as_u64().unwrap(), ee[k].as_u64().unwrap());
        assert!(s.abs_diff(e) <= 2, "{k}: sim {s} emu {e}");
    }
    assert_eq!(ee["backend"], "linux");
    // Arrivals are spaced by at least one exchange (RTS, CTS, data, ACK at 1-2 Mbit/s).
    assert!(b.arrivals.windows(2).all(|w| w[1] - w[0] > 4 * MS));
}

#[test]
fn wifi_sinr_reception_with_frame_errors_retries_and_gives_up() {
    // The sinr reception (802.11b curves, noise 10 dB below the signal: every frame
    // decodes) with a Bernoulli error model of 0.3 per data frame on top: data frames (no
    // RTS below 3000 bytes) fail at random, the MAC retries, and after 2 attempts gives up.
    let body = WIFI_PAIR.replace("DIST", "380").replace(
        "RECEPTION",
        "reception = \"sinr\"\nnoise_dbm = -86.0\nrange = 2000\ncs_range = 2000\n\
         rts_threshold = 3000\nshort_retry_limit = 2\n\
         error = { model = \"bernoulli\", per = 0.3 }",
    );
    let b = run_both(&scenario(&body, "200kbps", 500, 4), 200_000, 500, 4);
    let (se, ee) = (mac(&b.sim, "A"), mac(&b.emu, "A"));
    let retries = ee["retries"].as_u64().unwrap();
    let gave_up = ee["drops_retry_limit"].as_u64().unwrap();
    // 200 packets: a first attempt fails with p = 0.3 (a retry: 60, sd 6.5), both with
    // 0.09 (given up: 18, sd 4); 4 sd either side.
    assert!((34..=86).contains(&retries), "retries {retries}");
    assert!((2..=34).contains(&gave_up), "gave up {gave_up}");
    assert_eq!(ee["rts_frames"], 0);
    // Every packet is delivered or given up after its retries (none waits at the end of a
    // lightly loaded link).
    assert_eq!(b.emu_delivered + gave_up + b.in_flight, b.sent);
    for k in ["retries", "drops_retry_limit", "data_frames"] {
        let (s, e) = (se[k].as_u64().unwrap(), ee[k].as_u64().unwrap());
        assert!(s.abs_diff(e) <= 2, "{k}: sim {s} emu {e}");
    }
    assert!(b.emu_delivered.abs_diff(b.sim_delivered) <= 2);
}

#[test]
fn wifi_two_hop_chain_forwards_through_the_relay() {
    // A - R - B, 200 m apart with ns-2's ranges: A cannot reach B, R relays (and A and B
    // still sense each other: 400 m < 550 m).
    let body = "[[nodes]]\nname = \"A\"\nposition = [0, 0]\n\
        [[nodes]]\nname = \"R\"\nkind = \"router\"\nposition = [200, 0]\n\
        [[nodes]]\nname = \"B\"\nposition = [400, 0]\n\
        [[media]]\nname = \"air\"\nkind = \"wifi\"\npreset = \"ns2\"\n";
    let b = run_both(&scenario(body, "400kbps", 1000, 3), 400_000, 1000, 3);
    assert!(b.emu_delivered.abs_diff(b.sim_delivered) <= 2);
    assert!(
        b.emu_delivered + 3 >= b.sent,
        "{} of {}",
        b.emu_delivered,
        b.sent
    );
    let relay = mac(&b.emu, "R");
    assert!(relay["data_frames"].as_u64().unwrap() >= b.emu_delivered);
}

#[test]
fn tdma_link_sends_in_its_slots_at_its_share() {
    // Two stations on a TDMA frame of two 2 ms slots (one per direction of the flow's
    // path), 2 Mbit/s, a guard of 100 us at the end of each slot: the data direction sends
    // in half the frame less the guards, 2 x 0.5 x 0.95 = 0.95 Mbit/s, offered 3 Mbit/s.
    let body = "[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n\
        [[links]]\na = \"A\"\nb = \"B\"\nkind = \"wireless\"\nrate = \"2Mbps\"\n\
        delay = \"1us\"\nmedium = \"mesh\"\nqueue = { kind = \"droptail\", limit = 50 }\n\
        [[media]]\nname = \"mesh\"\nkind = \"tdma\"\nslot = \"2ms\"\nguard = \"100us\"\n";
    let b = run_both(&scenario(body, "3Mbps", 500, 2), 3_000_000, 500, 2);
    assert!(b.emu_delivered.abs_diff(b.sim_delivered) <= 2);
    let row = |v: &serde_json::Value| {
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == "A->B")
            .unwrap()
            .clone()
    };
    let (sl, el) = (row(&b.sim), row(&b.emu));
    let rate = b.emu_delivered as f64 * 4000.0 / 2.0;
    assert!((0.93e6..=0.95e6).contains(&rate), "{rate}");
    assert!(el["drops_queue_overflow"].as_u64().unwrap() > 0);
    let (s, e) = (
        sl["tx_packets"].as_u64().unwrap(),
        el["tx_packets"].as_u64().unwrap(),
    );
    assert!(s.abs_diff(e) <= 2, "sim {s} emu {e}");
    // Frames end only inside the data direction's slot (less its guard) of each 4 ms frame,
    // 1 us of propagation later.
    let phase: Vec<Time> = b.arrivals.iter().map(|t| t % (4 * MS)).collect();
    let (lo, hi) = (phase.iter().min().unwrap(), phase.iter().max().unwrap());
    assert!(hi - lo <= 1_900_000, "{lo} {hi}");
}

#[test]
fn arq_link_resends_corrupted_frames() {
    // PER 0.3 with 3 resends: a packet is lost only when all 4 tries fail (0.3^4 = 0.8 %),
    // and about 0.43 resends go out per packet.
    let body = "[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n\
        [[links]]\na = \"A\"\nb = \"B\"\nkind = \"wireless\"\nrate = \"10Mbps\"\n\
        delay = \"2ms\"\nerror = { model = \"bernoulli\", per = 0.3 }\n\
        arq = { retry_limit = 3 }\n";
    let b = run_both(&scenario(body, "2Mbps", 500, 4), 2_000_000, 500, 4);
    assert!(b.emu_delivered.abs_diff(b.sim_delivered) <= 2);
    let row = |v: &serde_json::Value| {
        v["links"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == "A->B")
            .unwrap()
            .clone()
    };
    let (sl, el) = (row(&b.sim), row(&b.emu));
    let (sr, er) = (
        sl["arq_retransmissions"].as_u64().unwrap(),
        el["arq_retransmissions"].as_u64().unwrap(),
    );
    assert!(sr.abs_diff(er) <= 2, "sim {sr} emu {er}");
    let resends = el["arq_retransmissions"].as_u64().unwrap() as f64 / b.sent as f64;
    assert!((0.36..0.50).contains(&resends), "{resends}");
    let lost = el["drops_channel_error"].as_u64().unwrap();
    assert!(lost < b.sent / 40, "{lost} of {}", b.sent);
    assert_eq!(b.emu_delivered + lost + b.in_flight, b.sent);
}

#[test]
fn aodv_finds_the_route_before_the_first_packet_crosses() {
    // The two-hop chain with AODV (RFC 3561): the first packet waits at A for a route
    // discovery (RREQ flooded, RREP back), the rest follow the route found; the simulator's
    // routing layer does it for the emulator's packets as for its own.
    let body = "routing = { protocol = \"aodv\" }\n\
        [[nodes]]\nname = \"A\"\nposition = [0, 0]\n\
        [[nodes]]\nname = \"R\"\nkind = \"router\"\nposition = [200, 0]\n\
        [[nodes]]\nname = \"B\"\nposition = [400, 0]\n\
        [[media]]\nname = \"air\"\nkind = \"wifi\"\npreset = \"ns2\"\n";
    let b = run_both(&scenario(body, "200kbps", 500, 3), 200_000, 500, 3);
    assert!(b.emu_delivered.abs_diff(b.sim_delivered) <= 2);
    assert!(
        b.emu_delivered + 3 >= b.sent,
        "{} of {}",
        b.emu_delivered,
        b.sent
    );
    // The first packet (sent at 0) waited for the discovery: it took longer than the fifth
    // (sent at 100 ms, one every 20 ms), which found the route.
    assert!(
        b.arrivals[0] > b.arrivals[5] - 100 * MS,
        "{:?}",
        &b.arrivals[..6]
    );
    let discoveries: u64 = b.emu["routing"].as_array().map_or(0, |a| {
        a.iter()
            .map(|r| r["discoveries"].as_u64().unwrap_or(0))
            .sum()
    });
    assert!(discoveries >= 1, "{}", b.emu);
}

#[test]
fn media_path_takes_media_arq_and_multi_link_hosts_and_refuses_agents() {
    use crate::on_media_path;
    let dumbbell = parse_toml(include_str!("../../../scenarios/dumbbell.toml")).unwrap();
    assert!(!on_media_path(&dumbbell));
    let chain = parse_toml(include_str!("../../../scenarios/chain4_wifi.toml")).unwrap();
    assert!(on_media_path(&chain));
    assert_eq!(
        plan(&chain, &FileAccess::default()).unwrap().hosts,
        ["n0", "n4"]
    );
    let pair = WIFI_PAIR.replace("DIST", "200").replace("RECEPTION", "");
    let agent = scenario(&pair, "1Mbps", 500, 1) + "[[agents]]\nkind = \"eln\"\nnode = \"B\"\n";
    let e = plan(&parse_toml(&agent).unwrap(), &FileAccess::default())
        .err()
        .unwrap();
    assert_eq!(e.path, "agents[0].kind");
    // Hosts with two links, no medium: the simulator routes for them.
    let two = "duration = \"1s\"\n[[nodes]]\nname = \"A\"\n[[nodes]]\nname = \"B\"\n\
        [[nodes]]\nname = \"R\"\nkind = \"router\"\n\
        [[links]]\na = \"A\"\nb = \"B\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [[links]]\na = \"A\"\nb = \"R\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [[links]]\na = \"R\"\nb = \"B\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
        [[flows]]\nsrc = \"A\"\ndst = \"B\"\napp = { kind = \"bulk\" }\n";
    assert!(on_media_path(&parse_toml(two).unwrap()));
}

#[test]
fn a_host_with_a_radio_and_a_wire_is_routed_by_its_node() {
    // A and B are 802.11 stations 200 m apart and also joined by wires through R: the
    // radio is one hop, the wires two, so A's node sends over the radio; the namespace's
    // one interface is the way into the node, which routes as for its own endpoints.
    let body = "[[nodes]]\nname = \"A\"\nposition = [0, 0]\n\
        [[nodes]]\nname = \"B\"\nposition = [200, 0]\n\
        [[nodes]]\nname = \"R\"\nkind = \"router\"\n\
        [[links]]\na = \"A\"\nb = \"R\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
        [[links]]\na = \"R\"\nb = \"B\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
        [[media]]\nname = \"air\"\nkind = \"wifi\"\npreset = \"ns2\"\nnodes = [\"A\", \"B\"]\n";
    let b = run_both(&scenario(body, "400kbps", 1000, 2), 400_000, 1000, 2);
    assert!(b.emu_delivered.abs_diff(b.sim_delivered) <= 2);
    assert!(
        b.emu_delivered + 3 >= b.sent,
        "{} of {}",
        b.emu_delivered,
        b.sent
    );
    assert!(mac(&b.emu, "A")["data_frames"].as_u64().unwrap() >= b.emu_delivered);
    let wired: u64 = b.emu["links"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["tx_packets"].as_u64().unwrap())
        .sum();
    assert_eq!(wired, 0);
}

#[test]
fn a_station_queue_ecn_mark_reaches_the_real_header() {
    // A station's interface queue marks ECT packets CE above 5 waiting (ecn_threshold);
    // offered twice what the MAC carries, the queue stays long: most delivered packets carry
    // CE in their real header, with a valid header checksum.
    let body = "[[nodes]]\nname = \"A\"\nposition = [0, 0]\n\
        [[nodes]]\nname = \"B\"\nposition = [200, 0]\n\
        [[media]]\nname = \"air\"\nkind = \"wifi\"\npreset = \"ns2\"\n\
        queue = { kind = \"ecn_threshold\", limit = 20, mark_threshold = 5 }\n";
    let sc = parse_toml(&scenario(body, "1Mbps", 1000, 2)).unwrap();
    let mut e = SimEngine::new(&sc, &FileAccess::default(), &[A, B], 2 * SEC).unwrap();
    let ect = ip::build(A, B, 6, 1000, 2);
    let mut out = Vec::new();
    for k in 0..500u64 {
        e.ingress(k * 4 * MS, 0, &ect).unwrap();
        e.advance(k * 4 * MS, |_, p, _| out.push(p.to_vec()));
    }
    e.advance(2 * SEC, |_, p, _| out.push(p.to_vec()));
    let ce = out.iter().filter(|p| p[1] & 3 == 3).count();
    assert!(
        out.len() > 200 && ce > out.len() / 2,
        "{ce} of {}",
        out.len()
    );
    // The first packets found an empty queue: sent as they were.
    assert_eq!(out[0][1] & 3, 2);
    assert!(out.iter().all(|p| ip::checksum(&p[..20]) == 0));
}
