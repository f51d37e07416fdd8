//! TCP Muzha's router side (seed paper 003): every node computes a Data Rate Adjustment Index
//! (DRAI, 1-5) for the interface a data segment leaves on, from what the node itself knows, and
//! lowers the segment's MRAI field (the IP header's `rate_index`) to it if smaller. The
//! receiver echoes the path minimum to the sender.
//!
//! The paper leaves the formula open ("a coarse grain multi-level quantization formula"). The
//! one here (docs/schemes/muzha.md gives the reasons and the alternatives):
//!
//! | DRAI | meaning | condition at the output interface |
//! |---|---|---|
//! | 1 | aggressive deceleration | average queue ≥ `queue_high` |
//! | 2 | moderate deceleration | average queue ≥ `queue_mid`, or a queue drop or MAC give-up on the interface in the last `window` |
//! | 3 | stabilizing | average queue ≥ `queue_low` |
//! | 5 | aggressive acceleration | average queue < `queue_low` and the medium busy less than `busy_low` of the last `window` |
//! | 4 | moderate acceleration | otherwise |
//!
//! The average queue is an EWMA (weight `weight`) of the interface queue length seen by each
//! departing data segment; the busy fraction is the share of the last complete `window` the
//! device sensed the medium busy (its own transmissions included).
//!
//! A drop is remembered for `drop_memory` (by default the window, 100 ms), or, with
//! `drop_memory_rtts` k > 0, for k times the largest smoothed round trip the node has timed:
//! for each flow it sends data for, one segment at a time from its departure to the first ACK
//! of the flow arriving at the node that covers it (Karn's rule: a resent segment passing
//! cancels the timing). On a chain this is the round trip from the node to the receiver and
//! back, the whole round trip at the source; before the first sample the fixed memory holds.

use super::{Hook, HookCtx, LinkLoss, Metric, Points, Verdict};
use crate::device::DeviceView;
use crate::engine::Time;
use crate::ids::{DevId, FlowId};
use crate::packet::{flags, Proto, Wire};

#[derive(Clone, Copy, Debug)]
pub struct DraiParams {
    pub queue_low: f64,
    pub queue_mid: f64,
    pub queue_high: f64,
    pub busy_low: f64,
    pub weight: f64,
    pub window: Time,
    pub drop_memory: Time,
    pub drop_memory_rtts: f64,
}

/// A flow's round trip as a node sees it.
#[derive(Clone, Copy, Debug)]
struct FlowRtt {
    flow: FlowId,
    /// The end (sequence number) of the segment being timed and when it left.
    timing: Option<(u64, Time)>,
    /// The highest sequence number sent so far (a segment below it is a resend).
    high: u64,
    srtt: Option<f64>,
}

#[derive(Clone, Copy, Debug, Default)]
struct DevState {
    dev: DevId,
    avg_queue: f64,
    /// Start of the current busy-measurement window and the device's busy time then.
    win_start: Time,
    busy_at_start: f64,
    /// Busy fraction of the last complete window (None before the first one).
    busy: Option<f64>,
    last_drop: Option<Time>,
}

pub struct Drai {
    pub p: DraiParams,
    devs: Vec<DevState>,
    /// Segments stamped, by the DRAI this node computed for them.
    pub by_level: [u64; 5],
    /// Segments whose MRAI this node lowered.
    pub lowered: u64,
    flows: Vec<FlowRtt>,
}

impl Drai {
    pub fn new(p: DraiParams) -> Self {
        Drai {
            p,
            devs: Vec::new(),
            by_level: [0; 5],
            lowered: 0,
            flows: Vec::new(),
        }
    }

    /// How long a drop decelerates: the fixed memory, or k smoothed round trips once one has
    /// been timed.
    pub fn drop_memory(&self) -> Time {
        let rtt = self
            .flows
            .iter()
            .filter_map(|f| f.srtt)
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
        match rtt {
            Some(r) if self.p.drop_memory_rtts > 0.0 => (self.p.drop_memory_rtts * r) as Time,
            _ => self.p.drop_memory,
        }
    }

    fn flow(&mut self, flow: FlowId) -> &mut FlowRtt {
        match self.flows.iter().position(|f| f.flow == flow) {
            Some(i) => &mut self.flows[i],
            None => {
                self.flows.push(FlowRtt {
                    flow,
                    timing: None,
                    high: 0,
                    srtt: None,
                });
                self.flows.last_mut().expect("pushed")
            }
        }
    }

    /// A data segment of `flow` covering [seq, end) leaves the node at `now`.
    fn data_sent(&mut self, flow: FlowId, seq: u64, end: u64, now: Time) {
        let f = self.flow(flow);
        if seq < f.high {
            // A resend: an ACK covering the timed segment may now answer either copy.
            if f.timing.is_some_and(|(e, _)| seq < e) {
                f.timing = None;
            }
            return;
        }
        f.high = end;
        if f.timing.is_none() {
            f.timing = Some((end, now));
        }
    }

    /// An ACK of `flow` acknowledging up to `ack` arrives at `now`.
    fn ack_seen(&mut self, flow: FlowId, ack: u64, now: Time) {
        let Some(i) = self.flows.iter().position(|f| f.flow == flow) else {
            return;
        };
        let f = &mut self.flows[i];
        if let Some((end, t)) = f.timing {
            if ack >= end {
                let sample = (now - t) as f64;
                f.srtt = Some(f.srtt.map_or(sample, |s| 0.875 * s + 0.125 * sample));
                f.timing = None;
            }
        }
    }

    fn state(&mut self, dev: DevId) -> &mut DevState {
        match self.devs.iter().position(|d| d.dev == dev) {
            Some(i) => &mut self.devs[i],
            None => {
                self.devs.push(DevState {
                    dev,
                    ..Default::default()
                });
                self.devs.last_mut().expect("pushed")
            }
        }
    }

    /// The index for a segment leaving on `out` at `now`.
    pub fn index(&mut self, now: Time, out: &DeviceView) -> u8 {
        let p = self.p;
        let s = self.state(out.dev);
        s.avg_queue = (1.0 - p.weight) * s.avg_queue + p.weight * out.queue_packets as f64;
        // Busy time so far, from the device's cumulative utilization.
        let busy_now = out.utilization * now as f64;
        if now >= s.win_start + p.window {
            let span = (now - s.win_start) as f64;
            s.busy = Some(((busy_now - s.busy_at_start) / span).clamp(0.0, 1.0));
            s.win_start = now;
            s.busy_at_start = busy_now;
        }
        let memory = self.drop_memory();
        let s = self.state(out.dev);
        let recent_drop = s.last_drop.is_some_and(|t| now < t + memory);
        let q = s.avg_queue;
        if q >= p.queue_high {
            1
        } else if q >= p.queue_mid || recent_drop {
            2
        } else if q >= p.queue_low {
            3
        } else if s.busy.is_some_and(|b| b < p.busy_low) {
            5
        } else {
            4
        }
    }
}

impl Hook for Drai {
    fn kind(&self) -> &'static str {
        "drai"
    }

    fn points(&self) -> Points {
        Points {
            post_routing: true,
            link_loss: true,
            // Arriving ACKs end the round trips the RTT-scaled drop memory times.
            pre_routing: self.p.drop_memory_rtts > 0.0,
            ..Default::default()
        }
    }

    fn pre_routing(&mut self, ctx: &mut HookCtx, pkt: &mut Wire) -> Verdict {
        if pkt.proto == Proto::Tcp && pkt.tcp.len == 0 && pkt.tcp.has(flags::ACK) {
            self.ack_seen(pkt.flow, pkt.tcp.ack, ctx.now);
        }
        Verdict::Accept
    }

    fn post_routing(&mut self, ctx: &mut HookCtx, pkt: &mut Wire, out: &DeviceView) -> Verdict {
        if pkt.proto != Proto::Tcp || pkt.tcp.len == 0 {
            return Verdict::Accept;
        }
        if self.p.drop_memory_rtts > 0.0 {
            let seq = pkt.tcp.seq;
            self.data_sent(pkt.flow, seq, seq + pkt.tcp.len as u64, ctx.now);
        }
        let d = self.index(ctx.now, out);
        self.by_level[d as usize - 1] += 1;
        let v = d as f32;
        if pkt.ip.rate_index.is_none_or(|r| v < r) {
            pkt.ip.rate_index = Some(v);
            self.lowered += 1;
        }
        Verdict::Accept
    }

    fn on_link_loss(&mut self, ctx: &mut HookCtx, loss: LinkLoss, _pkt: &Wire) {
        // What the router sees of its own interface: its queue overflowing or its MAC giving
        // up (contention, mostly; it cannot tell). A damaged frame it received says nothing
        // of its own output.
        if let LinkLoss::Queue(dev) | LinkLoss::GaveUp(dev) = loss {
            self.state(dev).last_drop = Some(ctx.now);
        }
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn metrics(&self, out: &mut Vec<(&'static str, Metric)>) {
        const NAMES: [&str; 5] = ["drai_1", "drai_2", "drai_3", "drai_4", "drai_5"];
        for (k, n) in NAMES.iter().enumerate() {
            out.push((n, Metric::Count(self.by_level[k])));
        }
        out.push(("lowered", Metric::Count(self.lowered)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::MS;
    use crate::ids::NodeId;

    fn params() -> DraiParams {
        DraiParams {
            queue_low: 1.0,
            queue_mid: 3.0,
            queue_high: 6.0,
            busy_low: 0.5,
            weight: 1.0,
            window: 100 * MS,
            drop_memory: 100 * MS,
            drop_memory_rtts: 0.0,
        }
    }

    /// A 1000-byte data segment of flow 0 from node 0 to node 2.
    fn data_segment() -> Wire {
        Wire {
            flow: crate::ids::FlowId(0),
            src: NodeId(0),
            dst: NodeId(2),
            size: 1040,
            proto: Proto::Tcp,
            ip: crate::packet::IpHeader::default(),
            tcp: crate::packet::TcpHeader {
                len: 1000,
                ..Default::default()
            },
            udp_seq: 0,
        }
    }

    fn view(queue: usize, utilization: f64) -> DeviceView {
        DeviceView {
            dev: DevId(0),
            next_hop: NodeId(1),
            rate_bps: 2_000_000,
            offered_bps: 2_000_000,
            queue_packets: queue,
            queue_bytes: 0,
            utilization,
            wireless: true,
        }
    }

    #[test]
    fn levels_follow_the_queue_thresholds() {
        let mut d = Drai::new(params());
        // Weight 1: the average is the current queue.
        assert_eq!(d.index(MS, &view(6, 0.9)), 1);
        assert_eq!(d.index(MS, &view(3, 0.9)), 2);
        assert_eq!(d.index(MS, &view(1, 0.9)), 3);
        // An empty queue before any busy measurement: moderate acceleration.
        assert_eq!(d.index(MS, &view(0, 0.9)), 4);
    }

    #[test]
    fn an_idle_medium_earns_aggressive_acceleration() {
        let mut d = Drai::new(params());
        d.index(0, &view(0, 0.0));
        // 30% busy over the first 100 ms window.
        assert_eq!(d.index(100 * MS, &view(0, 0.3)), 5);
        // 80% busy over the next window: (0.8·200 − 0.3·100) / 100 = 1.3, clamped to 1.
        assert_eq!(d.index(200 * MS, &view(0, 0.8)), 4);
    }

    #[test]
    fn queue_drops_and_give_ups_on_the_interface_count_damaged_frames_received_do_not() {
        let wire = data_segment();
        let mut actions = Vec::new();
        for (loss, counts) in [
            (LinkLoss::Queue(DevId(0)), true),
            (LinkLoss::GaveUp(DevId(0)), true),
            (LinkLoss::GaveUp(DevId(1)), false),
            (LinkLoss::Damaged { from: NodeId(2) }, false),
        ] {
            let mut d = Drai::new(params());
            let mut ctx = HookCtx::new(10 * MS, NodeId(0), &mut actions, &[]);
            d.on_link_loss(&mut ctx, loss, &wire);
            let want = if counts { 2 } else { 4 };
            assert_eq!(d.index(50 * MS, &view(0, 0.9)), want, "{loss:?}");
        }
    }

    #[test]
    fn a_drop_at_the_node_decelerates_for_one_window() {
        let mut d = Drai::new(params());
        d.state(DevId(0)).last_drop = Some(10 * MS);
        assert_eq!(d.index(50 * MS, &view(0, 0.9)), 2);
        assert_eq!(d.index(111 * MS, &view(0, 0.9)), 4);
    }

    #[test]
    fn the_drop_memory_is_its_own_parameter() {
        let mut d = Drai::new(DraiParams {
            drop_memory: 300 * MS,
            ..params()
        });
        d.state(DevId(0)).last_drop = Some(10 * MS);
        assert_eq!(
            d.index(250 * MS, &view(0, 0.9)),
            2,
            "past the window, inside the memory"
        );
        assert_eq!(d.index(311 * MS, &view(0, 0.9)), 4);
    }

    fn ack(ackno: u64) -> Wire {
        let mut w = data_segment();
        w.tcp.len = 0;
        w.tcp.ack = ackno;
        w.tcp.flags = flags::ACK;
        w
    }

    #[test]
    fn an_rtt_scaled_memory_times_round_trips_from_data_to_ack() {
        let mut d = Drai::new(DraiParams {
            drop_memory_rtts: 2.0,
            ..params()
        });
        assert!(d.points().pre_routing);
        let mut actions = vec![];
        let send = |d: &mut Drai, seq: u64, t: Time| {
            let mut w = data_segment();
            w.tcp.seq = seq;
            let mut a = vec![];
            let mut ctx = HookCtx::new(t, NodeId(0), &mut a, &[]);
            d.post_routing(&mut ctx, &mut w, &view(0, 0.9));
        };
        assert_eq!(
            d.drop_memory(),
            100 * MS,
            "the fixed memory before any round trip"
        );
        // Segment [0, 1000) leaves at 0, [1000, 2000) at 10 ms; the ACK of 1000 at 200 ms.
        send(&mut d, 0, 0);
        send(&mut d, 1000, 10 * MS);
        let mut ctx = HookCtx::new(200 * MS, NodeId(0), &mut actions, &[]);
        d.pre_routing(&mut ctx, &mut ack(1000));
        assert_eq!(d.drop_memory(), 400 * MS, "two round trips of 200 ms");
        // The next timed segment is resent before its ACK: Karn's rule drops the timing.
        send(&mut d, 2000, 210 * MS);
        send(&mut d, 2000, 900 * MS);
        let mut ctx = HookCtx::new(1000 * MS, NodeId(0), &mut actions, &[]);
        d.pre_routing(&mut ctx, &mut ack(3000));
        assert_eq!(d.drop_memory(), 400 * MS, "no sample from a resent segment");
        // A clean 100 ms sample: srtt = 7/8 * 200 + 1/8 * 100 = 187.5 ms.
        send(&mut d, 3000, 1000 * MS);
        let mut ctx = HookCtx::new(1100 * MS, NodeId(0), &mut actions, &[]);
        d.pre_routing(&mut ctx, &mut ack(4000));
        assert_eq!(d.drop_memory(), 375 * MS);
        // A drop 300 ms ago is still remembered.
        d.state(DevId(0)).last_drop = Some(800 * MS);
        assert_eq!(d.index(1100 * MS, &view(0, 0.9)), 2);
    }

    #[test]
    fn the_field_keeps_the_path_minimum() {
        let mut d = Drai::new(params());
        let mut w = data_segment();
        let mut actions = vec![];
        let mut ctx = HookCtx::new(MS, NodeId(0), &mut actions, &[]);
        d.post_routing(&mut ctx, &mut w, &view(3, 0.9));
        assert_eq!(w.ip.rate_index, Some(2.0));
        d.post_routing(&mut ctx, &mut w, &view(0, 0.9));
        assert_eq!(w.ip.rate_index, Some(2.0), "a higher index never raises it");
        assert_eq!(d.lowered, 1);
    }
}
