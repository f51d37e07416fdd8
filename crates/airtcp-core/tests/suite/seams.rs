//! The core's extension seams, exercised through the programmatic harness: router-written
//! header fields travel end to end, several hooks share a node and see every hook point,
//! hooks drop and take packets with conservation intact, a receive-window policy bounds the
//! sender, and a simulation can be stepped event by event.

use airtcp_core::device::{DeviceView, P2p};
use airtcp_core::engine::{Time, MS, SEC};
use airtcp_core::harness::Net;
use airtcp_core::hook::{ExplicitRate, Hook, HookCtx, LinkLoss, LocalEnd, Metric, Points, Verdict};
use airtcp_core::packet::{DropCause, IpHeader, TcpHeader, Wire};
use airtcp_core::stats::RunResult;
use airtcp_core::tcp::receiver::RwndPolicy;
use serde_json::json;

fn chain() -> Net {
    Net::new("3s")
        .host("a")
        .router("r1")
        .router("r2")
        .host("b")
        .link("a", "r1", "100Mbps", "1ms")
        .link("r1", "r2", "10Mbps", "5ms")
        .link("r2", "b", "2Mbps", "2ms")
        .bulk("f", "a", "b", "newreno")
}

/// Writes a rate index into data segments leaving its node (the minimum along the path).
struct IndexWriter(f32);

impl Hook for IndexWriter {
    fn kind(&self) -> &'static str {
        "test_index"
    }
    fn points(&self) -> Points {
        Points {
            post_routing: true,
            ..Default::default()
        }
    }
    fn post_routing(&mut self, _: &mut HookCtx, pkt: &mut Wire, _: &DeviceView) -> Verdict {
        if pkt.tcp.len > 0 && pkt.ip.rate_index.is_none_or(|r| self.0 < r) {
            pkt.ip.rate_index = Some(self.0);
        }
        Verdict::Accept
    }
    fn metrics(&self, _: &mut Vec<(&'static str, Metric)>) {}
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

#[test]
fn router_fields_are_written_echoed_and_reach_the_sender() {
    let net = chain()
        .hook(json!({"kind": "explicit_rate", "node": "r1", "share": 0.5}))
        .hook(json!({"kind": "explicit_rate", "node": "r2"}));
    let mut sim = net.build().unwrap();
    let (r1, r2) = (sim.node_named("r1").unwrap(), sim.node_named("r2").unwrap());
    sim.add_hook(r1, Box::new(IndexWriter(3.0)));
    sim.add_hook(r2, Box::new(IndexWriter(2.0)));
    sim.run_until(SEC);
    let f = sim.flow_named("f").unwrap();
    let info = sim.sender(f).last_ack;
    // r1 offers half of 10 Mb/s, r2 all of its 2 Mb/s: the path minimum is 2 Mb/s.
    assert_eq!(info.explicit_rate, Some(2e6));
    assert_eq!(info.rate_index, Some(2.0));
    let h = sim.nodes[r1.idx()].hooks[0];
    assert!(sim.hook::<ExplicitRate>(h).unwrap().written > 100);
}

#[test]
fn without_writers_nothing_is_echoed() {
    let mut sim = chain().build().unwrap();
    sim.run_until(SEC);
    let info = sim.sender(sim.flow_named("f").unwrap()).last_ack;
    assert_eq!((info.explicit_rate, info.rate_index), (None, None));
}

/// Counts what it sees at every point; drops every `drop_every`-th forwarded data segment.
#[derive(Default)]
struct Counter {
    seen: [u64; 5],
    local_ends: Vec<LocalEnd>,
    drop_every: u64,
    steal_acks: bool,
}

impl Hook for Counter {
    fn kind(&self) -> &'static str {
        "test_counter"
    }
    fn points(&self) -> Points {
        Points {
            pre_routing: true,
            local_in: true,
            forward: true,
            post_routing: true,
            local_out: true,
            link_loss: false,
        }
    }
    fn pre_routing(&mut self, _: &mut HookCtx, _: &mut Wire) -> Verdict {
        self.seen[0] += 1;
        Verdict::Accept
    }
    fn local_in(&mut self, _: &mut HookCtx, _: &mut Wire, end: LocalEnd) -> Verdict {
        self.seen[1] += 1;
        self.local_ends.push(end);
        Verdict::Accept
    }
    fn forward(&mut self, _: &mut HookCtx, pkt: &mut Wire, _: &DeviceView) -> Verdict {
        self.seen[2] += 1;
        if self.steal_acks && pkt.tcp.len == 0 && self.seen[2].is_multiple_of(50) {
            return Verdict::Stolen;
        }
        if self.drop_every > 0 && pkt.tcp.len > 0 && self.seen[2].is_multiple_of(self.drop_every) {
            return Verdict::Drop(DropCause::Aqm);
        }
        Verdict::Accept
    }
    fn post_routing(&mut self, _: &mut HookCtx, _: &mut Wire, _: &DeviceView) -> Verdict {
        self.seen[3] += 1;
        Verdict::Accept
    }
    fn local_out(&mut self, _: &mut HookCtx, _: &mut Wire, end: LocalEnd) -> Verdict {
        self.seen[4] += 1;
        self.local_ends.push(end);
        Verdict::Accept
    }
    fn metrics(&self, _: &mut Vec<(&'static str, Metric)>) {}
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

fn counter(sim: &airtcp_core::Sim, h: airtcp_core::ids::HookId) -> &Counter {
    sim.hook::<Counter>(h).unwrap()
}

#[test]
fn every_hook_point_runs_and_several_hooks_share_a_node() {
    let mut sim = chain()
        .hook(json!({"kind": "explicit_rate", "node": "r1"}))
        .build()
        .unwrap();
    let [a, r1, b] = ["a", "r1", "b"].map(|n| sim.node_named(n).unwrap());
    let at_r1 = sim.add_hook(r1, Box::<Counter>::default());
    let at_a = sim.add_hook(a, Box::<Counter>::default());
    let at_b = sim.add_hook(b, Box::<Counter>::default());
    sim.run();
    let r = RunResult::from_sim(&sim);
    // At the router every packet passes pre-routing, forward and post-routing once, and
    // leaves on one of its two devices.
    let c = counter(&sim, at_r1);
    let out: u64 = ["r1->a", "r1->r2"]
        .iter()
        .map(|d| {
            sim.device::<P2p>(sim.device_named(d).unwrap())
                .unwrap()
                .stats
                .tx_packets
        })
        .sum();
    assert!(c.seen[0] > 1000);
    assert_eq!(
        (c.seen[0], c.seen[2], c.seen[3]),
        (c.seen[0], c.seen[0], c.seen[0])
    );
    assert_eq!(c.seen[3], out);
    assert_eq!((c.seen[1], c.seen[4]), (0, 0));
    // The sender's host sees its own segments leave and ACKs come in, for the sender.
    let ca = counter(&sim, at_a);
    assert_eq!(ca.seen[4], r.flows[0].sent_packets);
    assert_eq!(ca.seen[1], ca.seen[0]);
    assert!(ca.local_ends.iter().all(|e| *e == LocalEnd::Sender));
    // The receiver's host: data in, ACKs out, for the receiver.
    let cb = counter(&sim, at_b);
    assert_eq!(cb.seen[1], r.flows[0].received_packets);
    assert!(cb.local_ends.iter().all(|e| *e == LocalEnd::Receiver));
    // The explicit-rate hook installed first still ran at the same node.
    assert_eq!(r.agents[0].kind, "explicit_rate");
    assert!(r.agents[0].count("written") > 0);
}

#[test]
fn hooks_drop_and_steal_with_conservation() {
    let mut sim = chain().build().unwrap();
    let r2 = sim.node_named("r2").unwrap();
    sim.add_hook(
        r2,
        Box::new(Counter {
            drop_every: 25,
            steal_acks: true,
            ..Default::default()
        }),
    );
    sim.run();
    let r = RunResult::from_sim(&sim);
    let f = &r.flows[0];
    assert!(f.lost_packets > 10, "dropped {}", f.lost_packets);
    assert_eq!(r.drops["aqm"], f.lost_packets);
    assert!(f.fast_retransmits > 0);
    // Stolen packets leave without a drop; every other packet is accounted for.
    let stolen = r.packets.sent - r.packets.delivered - r.packets.dropped - r.packets.in_flight;
    assert!(stolen > 0);
    assert_eq!(r.packets.in_flight, r.packets.live_in_arena);
}

/// Advertises a fixed window of four segments.
struct Four;

impl RwndPolicy for Four {
    fn on_segment(&mut self, _: Time, _: &IpHeader, _: &TcpHeader) {}
    fn window(&self, _: Time, buffer: u64) -> u64 {
        buffer.min(4000)
    }
}

#[test]
fn a_receive_window_policy_bounds_the_sender() {
    let mut sim = chain().build().unwrap();
    let f = sim.flow_named("f").unwrap();
    sim.tcp_mut(f).rx.set_window_policy(Box::new(Four));
    let mut max_flight = 0;
    while let Some(t) = sim.step() {
        max_flight = max_flight.max(sim.sender(f).in_flight());
        if t > 2 * SEC {
            break;
        }
    }
    assert_eq!(sim.sender(f).rwnd, 4000);
    assert!(max_flight <= 4000, "{max_flight}");
    // Without the policy the same path fills more than four segments.
    let mut free = chain().build().unwrap();
    free.run_until(2 * SEC);
    assert!(free.sender(f).st.cwnd > 8000);
}

#[test]
fn stepping_visits_events_in_time_order() {
    let mut sim = chain().build().unwrap();
    let mut last = 0;
    let mut n = 0;
    while let Some(t) = sim.step() {
        assert!(t >= last);
        last = t;
        n += 1;
        if t >= 100 * MS {
            break;
        }
    }
    assert_eq!(sim.counters.events, n);
    // run_until continues from where stepping left off.
    sim.run_until(200 * MS);
    assert!(sim.counters.events > n);
    assert_eq!(sim.now(), 200 * MS);
}

#[test]
fn harness_errors_name_the_field() {
    let e = chain()
        .hook(json!({"kind": "explicit_rate", "node": "r1", "share": 0.0}))
        .build()
        .err()
        .unwrap();
    assert_eq!(e.path, "agents[0].share");
    let e = chain()
        .bulk("g", "a", "nowhere", "newreno")
        .build()
        .err()
        .unwrap();
    assert_eq!(e.path, "flows[1].dst");
}

/// Logs what its node learns of lost packets, and when its node handed data segments to a
/// device (their earliest start). With `ahead`, it declares sends ahead of the queue, which
/// puts the node's links in their per-frame event mode.
#[derive(Default)]
struct LossLog {
    log: Vec<(Time, LinkLoss, u64)>,
    sent: Vec<(Time, u64, u32)>,
    ahead: bool,
}

impl Hook for LossLog {
    fn kind(&self) -> &'static str {
        "test_loss_log"
    }
    fn points(&self) -> Points {
        Points {
            post_routing: true,
            link_loss: true,
            ..Default::default()
        }
    }
    fn sends_ahead_of_queue(&self) -> bool {
        self.ahead
    }
    fn post_routing(&mut self, ctx: &mut HookCtx, pkt: &mut Wire, _: &DeviceView) -> Verdict {
        if pkt.tcp.len > 0 {
            self.sent.push((ctx.now, pkt.tcp.seq, pkt.size));
        }
        Verdict::Accept
    }
    fn on_link_loss(&mut self, ctx: &mut HookCtx, loss: LinkLoss, pkt: &Wire) {
        self.log.push((ctx.now, loss, pkt.tcp.seq));
    }
    fn metrics(&self, _: &mut Vec<(&'static str, Metric)>) {}
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The loss logs of r1, r2 and b on a path whose bottleneck queue overflows and whose last
/// link (no link acknowledgements, 2 ms) damages 1% of data frames, and the run's devices'
/// drop counts.
fn loss_logs(ahead: bool) -> (airtcp_core::Sim, [airtcp_core::ids::HookId; 3]) {
    let mut sim = Net::new("5s")
        .host("a")
        .router("r1")
        .router("r2")
        .host("b")
        .link("a", "r1", "100Mbps", "1ms")
        .link_with("r1", "r2", "10Mbps", "5ms", json!({"queue": {"limit": 3}}))
        .link_with(
            "r2",
            "b",
            "20Mbps",
            "2ms",
            json!({"kind": "wireless",
                   "error": {"model": "bernoulli", "per": 0.01, "applies_to": "data"}}),
        )
        .bulk("f", "a", "b", "newreno")
        .build()
        .unwrap();
    let nodes = ["r1", "r2", "b"].map(|n| sim.node_named(n).unwrap());
    let logs = nodes.map(|n| {
        sim.add_hook(
            n,
            Box::new(LossLog {
                ahead,
                ..Default::default()
            }),
        )
    });
    sim.run();
    (sim, logs)
}

#[test]
fn nodes_learn_of_losses_only_what_they_could_know() {
    let (sim, logs) = loss_logs(false);
    let r2 = sim.node_named("r2").unwrap();
    let stats = |d: &str| {
        sim.device::<P2p>(sim.device_named(d).unwrap())
            .unwrap()
            .stats
            .clone()
    };
    let hook = |k: usize| sim.hook::<LossLog>(logs[k]).unwrap();
    // r1 knows what its own queue dropped, and nothing else.
    let bottleneck = sim.device_named("r1->r2").unwrap();
    let overflow = stats("r1->r2").drops[DropCause::QueueOverflow.index()];
    assert!(overflow > 0);
    assert_eq!(hook(0).log.len() as u64, overflow);
    assert!(hook(0)
        .log
        .iter()
        .all(|e| e.1 == LinkLoss::Queue(bottleneck)));
    // r2 sends over the lossy link but hears no link ACKs: it learns nothing.
    let damaged = stats("r2->b").drops[DropCause::ChannelError.index()];
    assert!(damaged > 10);
    assert!(hook(1).log.is_empty(), "{:?}", hook(1).log);
    // b learns of each damaged frame, no earlier than the frame could have reached it: the
    // latest time r2 handed that segment to the link, plus its serialization at 20 Mb/s and
    // the 2 ms of propagation.
    assert_eq!(hook(2).log.len() as u64, damaged);
    for &(at, loss, seq) in &hook(2).log {
        assert_eq!(loss, LinkLoss::Damaged { from: r2 });
        let &(handed, _, size) = hook(1)
            .sent
            .iter()
            .rev()
            .find(|s| s.1 == seq && s.0 <= at)
            .expect("r2 sent the segment before b learned of its loss");
        let earliest = handed + size as Time * 8 * SEC / 20_000_000 + 2 * MS;
        assert!(at >= earliest, "seq {seq}: noted at {at}, sent at {handed}");
    }
}

#[test]
fn links_in_per_frame_event_mode_note_the_same_losses() {
    // A hook that sends ahead of the queue puts links in their per-frame event mode; what
    // each node learns, and when, is the same.
    let (a, la) = loss_logs(false);
    let (b, lb) = loss_logs(true);
    for k in 0..3 {
        let x = &a.hook::<LossLog>(la[k]).unwrap().log;
        let y = &b.hook::<LossLog>(lb[k]).unwrap().log;
        assert_eq!(x, y, "node {k}");
    }
}

#[test]
fn an_80211_sender_learns_only_that_it_gave_up() {
    // A 3-hop 802.11 chain with 10% data-frame errors and short retry limits: stations give
    // up often. Each node hears of its own give-ups (collisions or frame errors alike, and
    // those whose ACK alone was lost) and of nothing a receiver saw.
    let nodes: Vec<_> = (0..4)
        .map(|i| {
            json!({"name": format!("n{i}"), "kind": if i % 3 == 0 { "host" } else { "router" },
                   "position": [200.0 * i as f64, 0.0]})
        })
        .collect();
    let sc = json!({
        "name": "wifi", "duration": 20, "seed": 1, "tcp": {"profile": "ns2"},
        "nodes": nodes,
        "media": [{"name": "air", "kind": "wifi", "preset": "ns2",
                   "short_retry_limit": 2, "long_retry_limit": 1,
                   "error": {"model": "bernoulli", "per": 0.1, "applies_to": "data"}}],
        "flows": [{"src": "n0", "dst": "n3", "cc": "newreno", "app": {"kind": "bulk"}}],
    });
    let mut sim =
        airtcp_core::scenario::build(&airtcp_core::scenario::parse_json(&sc.to_string()).unwrap())
            .unwrap();
    let ids: Vec<_> = (0..4)
        .map(|i| sim.node_named(&format!("n{i}")).unwrap())
        .collect();
    let logs: Vec<_> = ids
        .iter()
        .map(|&n| sim.add_hook(n, Box::<LossLog>::default()))
        .collect();
    sim.run();
    let r = RunResult::from_sim(&sim);
    let mut gave_up_total = 0;
    for (i, h) in logs.iter().enumerate() {
        let log = &sim.hook::<LossLog>(*h).unwrap().log;
        let name = format!("n{i}@air");
        let dev = sim.device_named(&name).unwrap();
        let m = r.macs.iter().find(|m| m.node == name).unwrap();
        // Only the station's own give-ups (no queue drops happen here: the window stays
        // below the queue), each naming the station's own device.
        assert_eq!(m.count("drops_queue_overflow") + m.count("drops_aqm"), 0);
        assert!(log.iter().all(|e| e.1 == LinkLoss::GaveUp(dev)), "{log:?}");
        assert_eq!(
            log.len() as u64,
            m.count("drops_retry_limit") + m.count("gave_up_after_delivery")
        );
        gave_up_total += log.len();
    }
    assert!(gave_up_total > 20, "{gave_up_total}");
}
