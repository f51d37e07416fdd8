//! Unit tests of BBR v1 (`bbr.rs`): its states, estimators and gains against the draft and
//! the ACM Queue paper.

use super::*;
use crate::engine::US;

const MSS: u64 = 1000;

fn state() -> CcState {
    CcState {
        cwnd: 10 * MSS,
        ssthresh: 1 << 30,
        mss: MSS,
    }
}

fn started() -> (Bbr, CcState) {
    let mut b = Bbr::new();
    let st = state();
    b.start(0, &st);
    (b, st)
}

/// A sample that starts a new round, with delivery rate `bw` (bytes/s).
fn round_sample(b: &Bbr, now: Time, bw: f64, inflight: u64) -> RateSample {
    let delivered = b.next_round_delivered + 10 * MSS;
    RateSample {
        acked: MSS,
        delivered,
        delivered_time: now,
        bw: Some(bw),
        prior_delivered: b.next_round_delivered,
        prior_inflight: inflight,
        inflight,
        rtt: Some(100 * MS),
        ..Default::default()
    }
}

/// A flow in PROBE_BW with bandwidth 1.25 MB/s (10 Mb/s) and min RTT 100 ms.
fn cruising(seed: u64) -> (Bbr, CcState) {
    let (mut b, mut st) = started();
    b.set_rng(Rng::new(seed));
    b.full_bw_reached = true;
    b.min_rtt = Some(100 * MS);
    b.bw.update(1, 1.25e6);
    b.round = 1;
    // One round already delivered, so a sample can also fall inside a round
    // (prior_delivered below this mark).
    b.next_round_delivered = 10 * MSS;
    b.reset_probe_bw(0);
    b.update_gains();
    b.set_pacing_rate(b.pacing_gain);
    st.cwnd = b.cwnd;
    (b, st)
}

#[test]
fn ns3_marks_a_sender_held_by_the_receive_window_application_limited() {
    // ns-3's CalculateAppLimited: nothing left to send (the receive window holds the
    // sender, its bulk application's send buffer full) and flight below cwnd.
    let held = |ns3: bool, cwnd: u64| {
        let (mut b, _) = started();
        b.ns3 = ns3;
        b.pacing_bps = 1e7;
        b.cwnd = cwnd;
        b.rwnd = 244 * MSS;
        b.rs.on_sent(0, 244 * MSS);
        b.check_app_limited(MS);
        b.rs.app_limited_until != 0
    };
    assert!(held(true, 400 * MSS));
    assert!(
        !held(false, 400 * MSS),
        "the paper's: a window-limited sender is not"
    );
    assert!(!held(true, 244 * MSS), "cwnd is the limit");
    let mut m = std::collections::BTreeMap::new();
    crate::tcp::cc::apply_ns3_defaults("bbr", &mut m);
    assert_eq!(m.get("ns3"), Some(&1.0));
}

#[test]
fn startup_and_drain_gains_are_2_over_ln2_and_its_inverse() {
    let (b, _) = started();
    assert_eq!(b.mode(), Mode::Startup);
    assert!((b.pacing_gain() - 2.885).abs() < 1e-3);
    assert!((b.pacing_gain() * std::f64::consts::LN_2 - 2.0).abs() < 1e-12);
    assert_eq!(b.cwnd_gain(), b.pacing_gain());
    assert!((DRAIN_GAIN * HIGH_GAIN - 1.0).abs() < 1e-12);
    // Before any sample the pacing rate is 2/ln2 x initial window per nominal 1 ms.
    let want = HIGH_GAIN * 10_000.0 * 8.0 / 1e-3 * 0.99;
    assert!((b.pacing_rate(&state()).unwrap() / want - 1.0).abs() < 1e-9);
}

#[test]
fn startup_ends_after_three_rounds_without_25_percent_growth() {
    let (mut b, mut st) = started();
    let mut t = 0;
    let mut feed = |b: &mut Bbr, bw: f64, app_limited: bool| {
        t += 100 * MS;
        let mut rs = round_sample(b, t, bw, 1000 * MSS);
        rs.app_limited = app_limited;
        b.step(t, &rs, &mut st);
    };
    for bw in [1e5, 2e5, 4e5, 8e5] {
        feed(&mut b, bw, false);
    }
    assert_eq!(b.full_bw, 8e5);
    // 9.9e5 < 1.25 x 8e5: a first round without enough growth.
    feed(&mut b, 9.9e5, false);
    assert_eq!(b.full_bw_count, 1);
    // 25% growth over the reference resets the count and the reference.
    feed(&mut b, 1.0e6, false);
    assert_eq!((b.full_bw, b.full_bw_count), (1.0e6, 0));
    // Application-limited rounds do not count.
    feed(&mut b, 1.1e6, true);
    assert_eq!(b.full_bw_count, 0);
    feed(&mut b, 1.1e6, false);
    feed(&mut b, 1.2e6, false);
    assert_eq!(b.full_bw_count, 2);
    assert_eq!(b.mode(), Mode::Startup);
    assert_eq!(b.pacing_gain(), HIGH_GAIN);
    feed(&mut b, 1.24e6, false);
    assert!(b.full_bw_reached());
    // inflight (1000 segments) is far above the BDP: DRAIN.
    assert_eq!(b.mode(), Mode::Drain);
    assert_eq!((b.pacing_gain(), b.cwnd_gain()), (DRAIN_GAIN, HIGH_GAIN));
}

#[test]
fn drain_ends_when_inflight_is_down_to_the_bdp() {
    let (mut b, mut st) = started();
    b.full_bw_reached = true;
    b.min_rtt = Some(100 * MS);
    b.bw.update(1, 1.25e6);
    b.round = 1;
    b.pacing_bps = 1.25e6 * 8.0;
    let mut rs = round_sample(&b, 100 * MS, 1.25e6, 300 * MSS);
    rs.bw = None;
    b.step(100 * MS, &rs, &mut st);
    assert_eq!(b.mode(), Mode::Drain);
    // BDP = 1.25 MB/s x 100 ms = 125 segments, plus three 2-segment send quanta: 131,
    // rounded up to 132 (Linux `bbr_inflight` at gain 1).
    let bdp = b.inflight(b.btl_bw(), 1.0);
    assert_eq!(bdp, 132 * MSS);
    assert_eq!(st.ssthresh, bdp, "DRAIN notes the BDP as ssthresh");
    rs.inflight = bdp + 1;
    b.step(110 * MS, &rs, &mut st);
    assert_eq!(b.mode(), Mode::Drain);
    rs.inflight = bdp;
    b.step(120 * MS, &rs, &mut st);
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert_ne!(
        b.cycle_index(),
        1,
        "PROBE_BW never starts in the 0.75 phase"
    );
}

#[test]
fn gain_cycle_runs_in_order_one_phase_per_min_rtt() {
    let (mut b, mut st) = cruising(7);
    let first = b.cycle_index();
    let mut visited = vec![(0, b.pacing_gain())];
    // Inflight stays above 1.25 BDP, so only time ends each phase.
    let mut t = 0;
    while visited.len() < 17 {
        t += 10 * MS;
        let mut rs = round_sample(&b, t, 1.25e6, 400 * MSS);
        rs.prior_delivered = 0;
        b.step(t, &rs, &mut st);
        if b.cycle_index() != (first + visited.len() - 1) % 8 {
            visited.push((t, b.pacing_gain()));
        }
    }
    for (k, &(at, gain)) in visited.iter().enumerate() {
        assert_eq!(gain, GAIN_CYCLE[(first + k) % 8], "phase {k}");
        // A phase ends with the first delivery more than min_rtt (100 ms) after it began.
        assert_eq!(at, k as Time * 110 * MS, "phase {k}");
    }
}

#[test]
fn probing_waits_for_inflight_and_draining_stops_at_the_bdp() {
    let (mut b, mut st) = cruising(0);
    b.cycle_idx = 0;
    b.update_gains();
    assert_eq!(b.pacing_gain(), 1.25);
    let probe_target = b.inflight(b.btl_bw(), 1.25);
    let mut rs = round_sample(&b, 150 * MS, 1.25e6, probe_target - MSS);
    rs.prior_delivered = 0;
    b.step(150 * MS, &rs, &mut st);
    assert_eq!(b.cycle_index(), 0, "1.25 x BDP not yet in flight");
    rs.losses = true;
    b.step(160 * MS, &rs, &mut st);
    assert_eq!(b.cycle_index(), 1, "a loss ends the probe");
    // The 0.75 phase ends early once inflight is back to the BDP.
    rs.losses = false;
    rs.prior_inflight = b.inflight(b.btl_bw(), 1.0);
    b.step(170 * MS, &rs, &mut st);
    assert_eq!(b.cycle_index(), 2);
}

#[test]
fn probe_bw_starts_at_random_in_any_phase_but_the_075_one() {
    let mut seen = [0u32; 8];
    for seed in 0..400 {
        let (b, _) = cruising(seed);
        seen[b.cycle_index()] += 1;
    }
    assert_eq!(seen[1], 0);
    assert!(
        seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 30),
        "{seen:?}"
    );
    // The same seed gives the same phase.
    assert_eq!(cruising(5).0.cycle_index(), cruising(5).0.cycle_index());
}

#[test]
fn ns3_probe_rtt_samples_are_not_application_limited() {
    // Linux marks what PROBE_RTT sends application-limited; ns-3's HandleProbeRTT sets
    // TcpBbr's own m_appLimited, which its rate sampler never reads.
    for ns3 in [false, true] {
        let (mut b, mut st) = cruising(3);
        b.ns3 = ns3;
        b.min_rtt_stamp = 0;
        let rs = round_sample(&b, 10 * SEC + 1, 1.25e6, 125 * MSS);
        b.step(10 * SEC + 1, &rs, &mut st);
        assert_eq!(b.mode(), Mode::ProbeRtt);
        assert_eq!(b.rs.app_limited_until != 0, !ns3, "ns3 = {ns3}");
    }
}

#[test]
fn probe_rtt_after_10_s_without_a_new_min_for_200_ms_and_a_round() {
    let (mut b, mut st) = cruising(3);
    b.cwnd = 256 * MSS;
    let mut t = 0;
    let mut step = |b: &mut Bbr, t: Time, inflight: u64, round: bool| {
        let mut rs = round_sample(b, t, 1.25e6, inflight);
        rs.rtt = Some(120 * MS);
        if !round {
            rs.prior_delivered = b.next_round_delivered - 1;
        }
        b.step(t, &rs, &mut st);
    };
    while t < 10 * SEC {
        t += 100 * MS;
        step(&mut b, t, 125 * MSS, false);
        assert_eq!(b.mode(), Mode::ProbeBw, "t = {t}");
    }
    assert_eq!(b.min_rtt(), Some(100 * MS));
    step(&mut b, 10 * SEC + 1, 125 * MSS, false);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    assert_eq!((b.pacing_gain(), b.cwnd_gain()), (1.0, 1.0));
    assert_eq!(b.cwnd(), 4 * MSS, "cwnd capped at 4 segments");
    assert_eq!(
        b.min_rtt(),
        Some(120 * MS),
        "the expired filter takes the new sample"
    );
    // The 200 ms start once inflight is down to 4 segments.
    step(&mut b, 10_050 * MS, 5 * MSS, true);
    assert_eq!(b.probe_rtt_done, None);
    let t0 = 10_100 * MS;
    step(&mut b, t0, 4 * MSS, false);
    assert_eq!(b.probe_rtt_done, Some(t0 + 200 * MS));
    // A round ends, but 200 ms have not passed.
    step(&mut b, t0 + 100 * MS, 4 * MSS, true);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    step(&mut b, t0 + 200 * MS, 4 * MSS, false);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    step(&mut b, t0 + 200 * MS + 1, 4 * MSS, false);
    assert_eq!(b.mode(), Mode::ProbeBw);
    assert!(b.cwnd() >= 256 * MSS, "cwnd restored: {}", b.cwnd());
    assert_eq!(b.min_rtt_stamp, t0 + 200 * MS + 1);
}

#[test]
fn probe_rtt_needs_a_round_after_the_200_ms() {
    let (mut b, mut st) = cruising(3);
    b.min_rtt_stamp = 0;
    let mut rs = round_sample(&b, 10 * SEC + 1, 1.25e6, 4 * MSS);
    rs.rtt = None;
    b.step(10 * SEC + 1, &rs, &mut st);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    // Long past 200 ms, but no round has ended since the hold began.
    rs.prior_delivered = b.next_round_delivered - 1;
    b.step(11 * SEC, &rs, &mut st);
    assert_eq!(b.mode(), Mode::ProbeRtt);
    rs.prior_delivered = b.next_round_delivered;
    b.step(11 * SEC + MS, &rs, &mut st);
    assert_eq!(b.mode(), Mode::ProbeBw);
}

#[test]
fn bandwidth_max_filter_forgets_after_10_rounds() {
    let mut f = MaxFilter::new(BW_WINDOW_ROUNDS);
    f.update(0, 10.0);
    for r in 1..10 {
        f.update(r, 5.0);
        assert_eq!(f.get(), 10.0, "round {r}");
    }
    f.update(10, 5.0);
    assert_eq!(f.get(), 5.0);
    f.update(11, 7.0);
    assert_eq!(f.get(), 7.0);
    f.update(12, 6.0);
    assert_eq!(f.get(), 7.0);
    f.update(21, 1.0);
    assert_eq!(
        f.get(),
        6.0,
        "7 from round 11 expired at round 21, 6 from round 12 not"
    );
}

#[test]
fn cwnd_converges_to_two_bdp_plus_allowance() {
    for (phase, extra) in [(3, 0), (0, 2)] {
        let (mut b, mut st) = cruising(1);
        b.cycle_idx = phase;
        b.update_gains();
        b.cwnd = 10 * MSS;
        for k in 0..400 {
            let mut rs = round_sample(&b, k * MS, 1.25e6, 100 * MSS);
            rs.prior_delivered = 0;
            rs.delivered_time = 0;
            b.step(k * MS, &rs, &mut st);
        }
        // 2 x 125-segment BDP + three 2-segment quanta (+2 in the probing phase).
        assert_eq!(b.cwnd(), (2 * 125 + 6 + extra) * MSS, "phase {phase}");
        assert_eq!(st.cwnd, b.cwnd());
    }
}

fn ack(now: Time, acked: u64, sacked: u64, in_flight: u64, rtt: Option<Time>) -> AckInfo {
    AckInfo {
        now,
        acked_bytes: acked,
        sacked_bytes: sacked,
        in_flight,
        rtt,
        min_rtt: Some(50 * MS),
        ..Default::default()
    }
}

#[test]
fn delivery_rate_is_data_delivered_over_the_longer_interval() {
    // One segment sent every 1 ms, each ACKed 50 ms later: 1 MB/s.
    let mut r = RateSampler::default();
    let mut last = None;
    for k in 0..200u64 {
        r.on_sent(k * MS, MSS);
        if k >= 50 {
            let a = ack(k * MS, MSS, 0, 50 * MSS, Some(50 * MS));
            last = r.on_ack(&a, MSS, false, a.min_rtt).bw;
        }
    }
    let bw = last.unwrap();
    assert!((bw / 1e6 - 1.0).abs() < 0.02, "{bw}");

    // ACK compression: the same data, ACKs bunched ten at a time. The send interval
    // bounds the sample near the 1 MB/s the data was sent at.
    let mut r = RateSampler::default();
    let mut worst: f64 = 0.0;
    for k in 0..400u64 {
        r.on_sent(k * MS, MSS);
        if k >= 60 && k % 10 == 0 {
            for j in (k - 19)..=(k - 10) {
                let a = ack(k * MS, MSS, 0, 50 * MSS, Some((k - j) * MS));
                if let Some(bw) = r.on_ack(&a, MSS, false, Some(10 * MS)).bw {
                    worst = worst.max(bw);
                }
            }
        }
    }
    assert!(worst > 0.0 && worst < 1.05e6, "{worst}");
}

#[test]
fn sacked_data_is_counted_once() {
    let mut r = RateSampler::default();
    for k in 0..10 {
        r.on_sent(k, MSS);
    }
    // Segment 0 lost; 1..9 SACKed one by one, then the repair ACKs all ten.
    for _ in 1..10 {
        r.on_ack(&ack(100, 0, MSS, 10 * MSS, None), MSS, false, None);
    }
    assert_eq!((r.delivered, r.pipe), (9 * MSS, MSS));
    let rs = r.on_ack(&ack(200, 10 * MSS, 0, 0, None), MSS, false, None);
    assert_eq!((rs.acked, r.delivered, r.pipe), (MSS, 10 * MSS, 0));
}

fn event(kind: CongestionKind, in_flight: u64) -> CongestionEvent {
    CongestionEvent {
        now: 0,
        kind,
        in_flight,
        flight_size: in_flight,
        min_rtt: None,
        true_cause: None,
    }
}

#[test]
fn loss_recovery_conserves_packets_then_restores_the_window() {
    let (mut b, mut st) = cruising(2);
    b.cwnd = 200 * MSS;
    st.cwnd = b.cwnd;
    b.rs.flight = 150 * MSS;
    b.snd_una = 50 * MSS;
    let r = b.on_congestion(&event(CongestionKind::DupAcks, 150 * MSS), &st);
    assert!(r.keep_window, "no cut on loss");
    assert_eq!(b.prior_cwnd, 200 * MSS);
    // First recovery ACK: cwnd = inflight + delivered (packet conservation).
    let mut a = ack(MS, 0, 3 * MSS, 150 * MSS, None);
    a.in_recovery = true;
    a.ack_seq = 50 * MSS;
    b.on_ack(&a, &mut st);
    assert_eq!(st.cwnd, (150 - 3 + 3) * MSS);
    // The repair reaches the recovery point: the window before the loss comes back, and
    // grows by what this ACK delivered (2 segments: the hole, and one beyond the 3 SACKed).
    let mut a = ack(2 * MS, 5 * MSS, 0, 145 * MSS, None);
    a.in_recovery = true;
    a.ack_seq = 200 * MSS;
    b.on_ack(&a, &mut st);
    assert_eq!(st.cwnd, 202 * MSS);
}

#[test]
fn timeout_drops_to_one_segment_and_restores_when_repaired() {
    let (mut b, mut st) = cruising(2);
    b.cwnd = 200 * MSS;
    b.snd_una = 0;
    let r = b.on_congestion(&event(CongestionKind::Timeout, 100 * MSS), &st);
    assert_eq!(r.cwnd, Some(MSS));
    st.cwnd = MSS;
    b.rs.on_sent(SEC, MSS);
    let mut a = ack(SEC + 100 * MS, MSS, 0, 99 * MSS, Some(100 * MS));
    a.ack_seq = MSS;
    b.on_ack(&a, &mut st);
    assert_eq!(
        st.cwnd,
        4 * MSS,
        "grows by what is delivered (floor 4 segments)"
    );
    let mut a = ack(SEC + 200 * MS, 2 * MSS, 0, 0, None);
    a.ack_seq = 100 * MSS;
    b.on_ack(&a, &mut st);
    // Everything outstanding at the timeout is repaired: the saved window, plus the
    // 2 segments delivered.
    assert_eq!(st.cwnd, 202 * MSS);
}

/// One segment sent every ms, each acknowledged 50 ms later, through `upto` ms; the
/// sampler in ns-3's mode when `ns3`.
fn steady(ns3: bool, upto: u64) -> (RateSampler, f64) {
    let mut r = RateSampler::default();
    r.ns3_restart = ns3;
    let mut last = 0.0;
    for k in 0..upto {
        r.on_sent(k * MS, MSS);
        if k >= 50 {
            let a = ack(k * MS, MSS, 0, 50 * MSS, Some(50 * MS));
            last = r.on_ack(&a, MSS, false, a.min_rtt).bw.unwrap();
        }
    }
    (r, last)
}

#[test]
fn ns3_keeps_its_sample_until_a_later_sent_packet_is_delivered() {
    let (mut r, bw0) = steady(true, 200);
    assert!((bw0 / 1e6 - 1.0).abs() < 0.03, "{bw0}");
    // Ten SACKs of packets sent before the one the last sample came from (their RTT says
    // 80 ms ago): ns-3 keeps that sample's prior count and interval, so each adds its
    // segment to the count over the same 50 ms.
    let mut prev = bw0;
    for _ in 0..10 {
        let a = ack(200 * MS, 0, MSS, 50 * MSS, Some(80 * MS));
        let bw = r.on_ack(&a, MSS, false, a.min_rtt).bw.unwrap();
        // A segment over the kept interval (the last sample's, 50-51 ms) each time.
        let step = bw - prev;
        assert!(
            step > MSS as f64 / 0.052 && step < MSS as f64 / 0.050,
            "{step}"
        );
        prev = bw;
    }
    // Linux's sampler takes each from its own packet's record: no such growth.
    let (mut r, bw0) = steady(false, 200);
    for _ in 0..10 {
        let a = ack(200 * MS, 0, MSS, 50 * MSS, Some(80 * MS));
        let bw = r.on_ack(&a, MSS, false, a.min_rtt).bw.unwrap();
        assert!(bw < bw0 * 1.2, "{bw} {bw0}");
    }
}

#[test]
fn ns3_starts_its_intervals_afresh_after_a_timeout() {
    for ns3 in [false, true] {
        let (mut r, _) = steady(ns3, 100);
        // Everything outstanding is given up at 1 s; the first resend goes out then and
        // is acknowledged 50 ms later.
        r.on_timeout();
        r.on_sent(1000 * MS, MSS);
        let a = ack(1050 * MS, MSS, 0, 50 * MSS, Some(50 * MS));
        let bw = r.on_ack(&a, MSS, true, a.min_rtt).bw.unwrap();
        if ns3 {
            // ns-3 has nothing in flight after the timeout: the resend starts a new
            // interval, one segment in 50 ms.
            assert!((bw - MSS as f64 / 0.050).abs() < 1.0, "{bw}");
        } else {
            // Linux's interval runs from the last delivery before the timeout.
            assert!(bw < MSS as f64 / 0.5, "{bw}");
        }
    }
}

fn ns3_bbr() -> Bbr {
    let ns3: std::collections::BTreeMap<String, f64> =
        [("ns3".to_string(), 1.0)].into_iter().collect();
    Bbr::with_params(&mut Params::new(&ns3)).unwrap()
}

/// ns-3's BBR with a window of `cwnd` segments, told of three duplicate ACKs with `flight`
/// segments outstanding above the head at segment 50.
fn ns3_entering_recovery(cwnd: u64, flight: u64) -> (Bbr, CcState) {
    let mut b = ns3_bbr();
    let mut st = state();
    b.start(0, &st);
    b.cwnd = cwnd * MSS;
    st.cwnd = b.cwnd;
    b.snd_una = 50 * MSS;
    b.on_congestion(&event(CongestionKind::DupAcks, flight * MSS), &st);
    (b, st)
}

#[test]
fn ns3_recovery_enters_at_the_flight() {
    let (mut b, mut st) = ns3_entering_recovery(200, 150);
    // CongestionStateSet(CA_RECOVERY): the flight before the head is marked lost (140
    // segments) plus what the ACK delivered (3 SACKed); ModulateCwndForRecovery then takes
    // off the bytes newly marked lost (the head), 142, and keeps at least the flight as
    // CongControl reads it, after the mark and EnterRecovery's retransmission (139 + 1),
    // plus what was delivered: 143.
    let mut a = ack(MS, 0, 3 * MSS, 150 * MSS, None);
    (a.in_recovery, a.ack_seq) = (true, 50 * MSS);
    (a.pipe, a.pipe_marked, a.lost_change) = (140 * MSS, 139 * MSS, MSS);
    a.head_resend_adds = MSS;
    b.on_ack(&a, &mut st);
    assert_eq!(st.cwnd, (139 + 1 + 3) * MSS);
    // A duplicate that marks two more lost and SACKs one: two off, the flight + 1 below.
    let mut a = ack(2 * MS, 0, MSS, 150 * MSS, None);
    (a.in_recovery, a.ack_seq) = (true, 50 * MSS);
    (a.pipe, a.pipe_marked, a.lost_change) = (120 * MSS, 120 * MSS, 2 * MSS);
    b.on_ack(&a, &mut st);
    assert_eq!(st.cwnd, (143 - 2) * MSS);
}

#[test]
fn three_sample_filter_follows_the_windowed_filter_of_ns3_and_linux() {
    // windowed-filter.h (ns-3) and win_minmax.c (Linux), window 10 rounds.
    let mut f = MaxFilter::three_sample(BW_WINDOW_ROUNDS, 0.0);
    let mut exact = MaxFilter::new(BW_WINDOW_ROUNDS);
    let mut both = |r: u64, v: f64| {
        f.update(r, v);
        exact.update(r, v);
        (f.get(), exact.get())
    };
    assert_eq!(both(1, 10.0), (10.0, 10.0));
    // A second best is taken once a quarter window (2 rounds) has passed without one,
    // and replaced by a larger one; 7 in round 8 is not kept, the third best being 9 from
    // round 5 and less than half a window (5 rounds) old.
    both(4, 6.0);
    both(5, 9.0);
    both(8, 7.0);
    // Round 12: the best (round 1) is over 10 rounds old; 9 from round 5 moves up.
    assert_eq!(both(12, 1.0), (9.0, 9.0));
    // Round 16: 9 expires too, and the estimate falls to the newest sample, below the
    // exact maximum of rounds 7-16 (7, from round 8).
    assert_eq!(both(16, 2.0), (2.0, 7.0));
    // The seed value (ns-3's zero value) is replaced by the first sample, lower or not.
    let mut seeded = MaxFilter::three_sample(BW_WINDOW_ROUNDS, 50.0);
    assert_eq!(seeded.get(), 50.0);
    seeded.update(0, 3.0);
    assert_eq!(seeded.get(), 3.0);
}

#[test]
fn ns3_inflight_counts_bytes_and_three_one_segment_quanta() {
    // TcpBbr::InFlight: gain × BDP in bytes + 3 × SetSendQuantum's one segment, 2 more in
    // the probing phase; no rounding to segments.
    let mut b = ns3_bbr();
    b.start(0, &state());
    b.min_rtt = Some(100 * MS);
    b.mode = Mode::ProbeBw;
    b.cycle_idx = 2;
    // 1.25 MB/s × 100.5 ms × 2 = 251,250 bytes.
    b.min_rtt = Some(100 * MS + 500 * US);
    assert_eq!(b.inflight(1.25e6, 2.0), 251_250 + 3 * MSS);
    b.cycle_idx = 0;
    assert_eq!(b.inflight(1.25e6, 2.0), 251_250 + 5 * MSS);
    // Linux's rule (the default): whole segments, rounded up to even, quanta by rate.
    let mut l = Bbr::new();
    l.start(0, &state());
    (l.min_rtt, l.mode, l.cycle_idx, l.pacing_bps) =
        (Some(100 * MS + 500 * US), Mode::ProbeBw, 2, 10e6);
    assert_eq!(l.inflight(1.25e6, 2.0), (252 + 3 * 2) * MSS);
}

#[test]
fn ns3_ack_aggregation_records_an_epoch_of_under_4096_bytes() {
    // UpdateAckAggregation: an epoch under a second expects nothing (its length is taken
    // in whole seconds), so the record is what the epoch acknowledged, and the epoch starts
    // anew when it would reach 4096 bytes; AckAggregationCwnd adds the larger record, at
    // most 100 ms at the estimate, once the pipe is full.
    let mut b = ns3_bbr();
    b.start(0, &state());
    b.cwnd = 100 * MSS;
    b.bw.update(1, 1.25e6);
    let rs = RateSample {
        acked: MSS,
        ..Default::default()
    };
    for k in 1..=6 {
        b.update_ack_aggregation(k * MS, &rs);
    }
    // 1000, 2000, 3000, 4000, then 4000 + 1000 >= 4096: a new epoch of 1000, 2000.
    assert_eq!(b.extra_acked[b.extra_acked_idx], 4 * MSS);
    assert_eq!(b.ack_epoch_acked, 2 * MSS);
    assert_eq!(b.ack_aggregation_cwnd(), 0, "not before the pipe is full");
    b.full_bw_reached = true;
    assert_eq!(b.ack_aggregation_cwnd(), 4 * MSS);
    // Capped at 100 ms of the estimate: 20 kB/s gives 2000 bytes.
    b.bw = MaxFilter::three_sample(BW_WINDOW_ROUNDS, 0.0);
    b.bw.update(1, 2e4);
    assert_eq!(b.ack_aggregation_cwnd(), 2 * MSS);
    // An epoch older than a second expects a second's worth at the estimate: the ACK
    // after a long pause starts a new epoch.
    b.update_ack_aggregation(3 * SEC, &rs);
    assert_eq!((b.ack_epoch_acked, b.ack_epoch_time), (MSS, 3 * SEC));
}

#[test]
fn ns3_paces_startup_at_2_89_from_the_whole_millisecond_min_rtt() {
    // InitPacingRate once the connection's min RTT is known: HighGain 2.89 × cwnd over
    // the min RTT in whole milliseconds (100.9 ms counts as 100), no margin.
    let mut b = ns3_bbr();
    let mut st = state();
    let mut a = ack(100 * MS, 0, 0, 10 * MSS, None);
    a.min_rtt = Some(100 * MS + 900 * US);
    b.on_ack(&a, &mut st);
    let rate = b.pacing_rate(&st).unwrap();
    assert!(
        (rate - 2.89 * 10.0 * MSS as f64 * 8.0 / 0.1).abs() < 1.0,
        "{rate}"
    );
    assert_eq!((b.pacing_gain(), b.cwnd_gain()), (2.89, 2.89));
    b.set_mode(Mode::Drain);
    b.update_gains();
    assert_eq!(b.pacing_gain(), 1.0 / 2.89);
}

#[test]
fn ns3_recovery_floor_leaves_out_a_head_already_counted_as_resent() {
    // A head resent in an earlier recovery keeps ns-3's m_retrans mark until a timeout, so
    // EnterRecovery's fast retransmission adds nothing to BytesInFlight: the first round's
    // floor is the flight plus what was delivered (7 + 1), not one segment more.
    let (mut b, mut st) = ns3_entering_recovery(20, 12);
    let mut a = ack(MS, 0, MSS, 12 * MSS, None);
    (a.in_recovery, a.ack_seq) = (true, 50 * MSS);
    (a.pipe, a.pipe_marked, a.lost_change, a.head_resend_adds) = (7 * MSS, 7 * MSS, MSS, 0);
    b.on_ack(&a, &mut st);
    // Entry at 7 + 1, less the segment newly marked lost (7), floor 7 + 0 + 1.
    assert_eq!(st.cwnd, 8 * MSS);
}

#[test]
fn ns3_initial_window_samples_are_application_limited() {
    // ns-3's BulkSend writes 512 bytes at a time; its first write finds less than a segment
    // unsent, so TcpSocketBase::Send has CalculateAppLimited mark the sampler (m_appLimited
    // = 1) and the initial window's samples are application-limited. A slower one does not
    // replace the filter's seed (cwnd over the min RTT, InitPacingRate).
    let mut b = ns3_bbr();
    let mut st = state();
    assert_eq!(b.rs.app_limited_until, 1);
    assert_eq!(Bbr::new().rs.app_limited_until, 0);
    let mut a = ack(100 * MS, 0, 0, 0, None);
    a.min_rtt = Some(100 * MS);
    b.on_ack(&a, &mut st);
    let seed = b.bw.get();
    assert!((seed - 10.0 * MSS as f64 / 0.1).abs() < 1e-6, "{seed}");
    for k in 0..10 {
        b.on_sent(100 * MS + k * US, MSS, &mut st);
    }
    // One segment acknowledged a round trip later: 10 kB/s, application-limited.
    let mut a = ack(200 * MS, MSS, 0, 9 * MSS, Some(100 * MS));
    (a.delivered_bytes, a.scoreboard, a.pipe_marked) = (MSS, true, 9 * MSS);
    a.newest_delivered_sent = Some(100 * MS);
    a.min_rtt = Some(100 * MS);
    b.on_ack(&a, &mut st);
    assert_eq!(b.bw.get(), seed);
    // The mark is gone once more than a byte is delivered.
    assert_eq!(b.rs.app_limited_until, 0);
}

#[test]
fn ns3_end_of_recovery_takes_the_ssthresh_from_before_drain_and_wraps_in_32_bits() {
    // ProcessAck sets cwnd to ssthresh (still the initial UINT32_MAX bytes in STARTUP)
    // before CongControl; CheckDrain then sets ssthresh to InFlight(1), and SetCwnd adds
    // what the ACK delivered to the 32-bit window, which wraps to a few bytes: cwnd ends at
    // the four-segment minimum.
    let mut b = ns3_bbr();
    let mut st = state();
    b.start(0, &st);
    b.min_rtt = Some(100 * MS);
    b.bw.update(1, 1.25e5);
    (b.full_bw_reached, b.mode) = (true, Mode::Startup);
    (b.prev_ca, b.ca) = (CaState::Recovery, CaState::Open);
    let rs = RateSample {
        acked: MSS,
        delivered: 100 * MSS,
        delivered_time: SEC,
        // Above InFlight(1): DRAIN goes on.
        inflight: 100 * MSS,
        ..Default::default()
    };
    b.step(SEC, &rs, &mut st);
    assert_eq!(b.mode, Mode::Drain);
    assert_eq!(st.ssthresh, b.inflight(1.25e5, 1.0));
    assert_eq!(st.cwnd, 4 * MSS);
    // Before the pipe is full the window stays at the initial ssthresh (no growth toward a
    // target it is already above).
    let mut b = ns3_bbr();
    let mut st = state();
    b.start(0, &st);
    (b.min_rtt, b.mode) = (Some(100 * MS), Mode::Startup);
    b.bw.update(1, 1.25e5);
    (b.prev_ca, b.ca) = (CaState::Recovery, CaState::Open);
    b.step(SEC, &rs, &mut st);
    assert_eq!(st.cwnd, u64::from(u32::MAX));
}

#[test]
fn ns3_gain_cycle_runs_on_each_acks_clock_and_ends_probing_on_a_lost_mark() {
    // IsNextCyclePhase: Simulator::Now() − m_cycleStamp > min RTT, and a probing phase ends
    // on an ACK whose rate sample has m_bytesLoss > 0. Linux times the phase by the
    // delivery time and asks the sample's losses.
    let rs = RateSample {
        delivered_time: 50 * MS,
        prior_inflight: MSS,
        ..Default::default()
    };
    for ns3 in [false, true] {
        let mut b = if ns3 { ns3_bbr() } else { Bbr::new() };
        b.start(0, &state());
        (b.full_bw_reached, b.min_rtt) = (true, Some(100 * MS));
        b.bw.update(1, 1.25e6);
        b.mode = Mode::ProbeBw;
        b.cycle_idx = GAIN_CYCLE.len() - 1;
        b.advance_cycle_phase(0);
        b.update_gains();
        assert_eq!(b.pacing_gain, 1.25);
        // 150 ms on: a lost mark changed, the last delivery 50 ms in.
        b.ack_lost_change = MSS;
        b.update_cycle_phase(150 * MS, &rs);
        assert_eq!(b.cycle_idx, usize::from(ns3), "ns3 = {ns3}");
    }
}

#[test]
fn ns3_sampler_reads_the_newest_delivered_segments_record_and_keeps_its_sample() {
    // Ten segments at 0-9 ms; the first is acknowledged at 50 ms, then one more is sent at
    // 51 ms. An ACK at 120 ms delivering that segment: ns-3's SkbDelivered reads its own
    // record (1000 bytes delivered when it was sent), where the RTT lookup (100 ms: sent at
    // 20 ms) finds the record of segment 9, with nothing delivered before it.
    let mut r = RateSampler::default();
    r.ns3_restart = true;
    for k in 0..10 {
        r.on_sent(k * MS, MSS);
    }
    let mut a = ack(50 * MS, MSS, 0, 9 * MSS, Some(50 * MS));
    (a.delivered_bytes, a.newest_delivered_sent) = (MSS, Some(0));
    r.on_ack(&a, MSS, false, Some(40 * MS));
    r.on_sent(51 * MS, MSS);
    let mut a = ack(120 * MS, 0, MSS, 10 * MSS, Some(100 * MS));
    a.newest_delivered_sent = Some(51 * MS);
    let rs = r.on_ack(&a, MSS, false, Some(40 * MS));
    assert_eq!(rs.prior_delivered, MSS);
    let bw = rs.bw.unwrap();
    // A duplicate ACK delivering nothing hands on the kept sample (GenerateSample on every
    // ACK); Linux's sampler takes none from it.
    let a = ack(121 * MS, 0, 0, 10 * MSS, None);
    assert_eq!(r.on_ack(&a, MSS, false, Some(40 * MS)).bw, Some(bw));
    let mut l = RateSampler::default();
    l.on_sent(0, MSS);
    assert_eq!(l.on_ack(&a, MSS, false, Some(40 * MS)).bw, None);
}

#[test]
fn cycle_start_fixes_the_first_probe_bw_phase() {
    for k in 0..GAIN_CYCLE.len() {
        let map: std::collections::BTreeMap<String, f64> = [("cycle_start".to_string(), k as f64)]
            .into_iter()
            .collect();
        let mut b = Bbr::with_params(&mut Params::new(&map)).unwrap();
        b.start(0, &state());
        b.reset_probe_bw(0);
        assert_eq!(b.cycle_idx, k);
    }
    for bad in [8.0, 0.5, -2.0] {
        let map: std::collections::BTreeMap<String, f64> =
            [("cycle_start".to_string(), bad)].into_iter().collect();
        assert!(Bbr::with_params(&mut Params::new(&map)).is_err(), "{bad}");
    }
}

#[test]
fn ns3_sample_takes_the_first_delivered_segment_of_the_most_delivered() {
    // Segments sent at 51 and 52 ms both carry 1000 bytes delivered (one ACK came between
    // 0 and 51 ms). ns-3's SkbDelivered moves its prior only on a strictly larger count, so
    // of the two the first it processes decides; the choice follows that order.
    let mut r = RateSampler::default();
    r.ns3_restart = true;
    r.on_sent(0, MSS);
    let mut a = ack(50 * MS, MSS, 0, 0, Some(50 * MS));
    (a.delivered_bytes, a.newest_delivered_sent) = (MSS, Some(0));
    r.on_ack(&a, MSS, false, Some(40 * MS));
    r.on_sent(51 * MS, MSS);
    r.on_sent(52 * MS, MSS);
    r.choose_delivered(&[51 * MS, 52 * MS]);
    assert_eq!(r.chosen, Some(51 * MS));
    r.choose_delivered(&[52 * MS, 51 * MS]);
    assert_eq!(r.chosen, Some(52 * MS));
    // A segment with fewer delivered listed first gives way to a later, larger one.
    r.choose_delivered(&[0, 52 * MS, 51 * MS]);
    assert_eq!(r.chosen, Some(52 * MS));
}

#[test]
fn ns3_recovery_entered_on_a_round_start_does_not_conserve() {
    // CongestionStateSet(CA_RECOVERY) sets m_packetConservation before CongControl, whose
    // UpdateRound clears it again when the same ACK starts a round (Linux instead starts a
    // round at the entry). Entry: flight 20 + a segment delivered, less the one newly
    // marked lost = 20. Conserving, the floor is the flight as CongControl reads it plus the
    // fast retransmission and what was delivered (25 + 1 + 1); not, it grows by the
    // delivered segment from the entry value.
    for (starts_round, want) in [(false, 27), (true, 21)] {
        let mut b = ns3_bbr();
        let mut st = state();
        b.start(0, &st);
        b.full_bw_reached = true;
        b.min_rtt = Some(100 * MS);
        b.bw.update(1, 1.25e6);
        b.next_round_delivered = 10 * MSS;
        b.cwnd = 40 * MSS;
        (b.ca, b.prev_ca) = (CaState::Recovery, CaState::Open);
        (b.ack_pipe, b.ack_pipe_marked) = (20 * MSS, 25 * MSS);
        (b.ack_lost_change, b.ack_head_resend_adds) = (MSS, MSS);
        let mut rs = round_sample(&b, MS, 1.25e6, 20 * MSS);
        if !starts_round {
            rs.prior_delivered = 5 * MSS;
        }
        b.step(MS, &rs, &mut st);
        assert_eq!(st.cwnd, want * MSS, "round start: {starts_round}");
        assert_eq!(b.packet_conservation, !starts_round);
    }
}

#[test]
fn ns3_sampler_counts_what_the_ack_ending_the_loss_state_delivered() {
    // The ACK that ends a timeout's loss state reports to the window rules only what lies
    // above the recovery point (here nothing); ns-3's rate sampler still counts the segment
    // it delivered (SkbDelivered from DiscardUpTo).
    for ns3 in [false, true] {
        let (mut r, _) = steady(ns3, 100);
        let before = r.delivered;
        let mut a = ack(100 * MS, 0, 0, 49 * MSS, Some(50 * MS));
        a.delivered_bytes = MSS;
        r.on_ack(&a, MSS, true, a.min_rtt);
        assert_eq!(r.delivered, before + u64::from(ns3) * MSS, "ns3 = {ns3}");
    }
}

#[test]
fn ns3_min_rtt_starts_from_the_handshake_and_follows_the_last_estimator_sample() {
    // CongestionStateSet(CA_OPEN) seeds m_minRtt with the handshake's SRTT (whole
    // milliseconds from the timestamp echo: 100 ms where data RTTs are 101 ms); UpdateRTprop
    // then reads m_lastRtt, which keeps the last sample between ACKs, so an ACK without one
    // still stamps an equal minimum anew.
    let mut b = ns3_bbr();
    let mut st = state();
    b.on_sent(0, MSS, &mut st);
    let mut a = ack(101 * MS, MSS, 0, 9 * MSS, Some(101 * MS + 500 * US));
    (a.min_rtt, a.estimator_rtt) = (Some(100 * MS), Some(101 * MS));
    b.on_ack(&a, &mut st);
    assert_eq!(b.min_rtt(), Some(100 * MS));
    assert_eq!(b.min_rtt_stamp, 0);
    // Later the estimator's samples equal the minimum: each ACK refreshes its stamp, the
    // ones without a sample of their own too.
    let mut a = ack(200 * MS, MSS, 0, 8 * MSS, None);
    a.estimator_rtt = Some(100 * MS);
    b.on_ack(&a, &mut st);
    assert_eq!(b.min_rtt_stamp, 200 * MS);
    let a = ack(300 * MS, 0, MSS, 8 * MSS, None);
    b.on_ack(&a, &mut st);
    assert_eq!((b.min_rtt(), b.min_rtt_stamp), (Some(100 * MS), 300 * MS));
    // Linux's BBR takes each ACK's own RTT sample.
    let (mut l, mut st) = started();
    let a = ack(101 * MS, MSS, 0, 9 * MSS, Some(101 * MS + 500 * US));
    l.on_ack(&a, &mut st);
    assert_eq!(l.min_rtt(), Some(101 * MS + 500 * US));
}

#[test]
fn ns3_rates_are_whole_bits_per_second() {
    // ns-3's DataRate holds an integer count of bits/s: the delivery rate is truncated,
    // then the pacing rate's product with the gain and again with the 1 % margin.
    let mut b = ns3_bbr();
    let st = state();
    b.start(0, &st);
    b.full_bw_reached = true;
    b.bw.update(1, 1_234_567.0 / 8.0);
    b.set_pacing_rate(1.25);
    let want = ((1.25f64 * 1_234_567.0).trunc() * 0.99).trunc();
    assert_eq!(b.pacing_rate(&st), Some(want));
    assert_eq!(want, 1_527_775.0);
    // A sample of 3 segments over 7 ms: 3,428,571.43 bits/s kept as 3,428,571.
    let mut r = RateSampler::default();
    r.ns3_restart = true;
    r.on_sent(0, MSS);
    r.on_sent(0, MSS);
    r.on_sent(0, MSS);
    let mut a = ack(7 * MS, 3 * MSS, 0, 0, Some(7 * MS));
    a.delivered_bytes = 3 * MSS;
    r.choose_delivered(&[0]);
    let bw = r.on_ack(&a, MSS, false, Some(MS)).bw.unwrap();
    assert_eq!(bw * 8.0, 3_428_571.0);
}

#[test]
fn ns3_whole_segment_writes_mark_nothing_application_limited() {
    // CalculateAppLimited runs after each write is added to the send buffer: a write of a
    // whole segment leaves at least a segment unsent, so with small_writes = 0 neither the
    // initial window nor a sender held by the receive window is marked.
    let params: std::collections::BTreeMap<String, f64> =
        [("ns3".to_string(), 1.0), ("small_writes".to_string(), 0.0)]
            .into_iter()
            .collect();
    let mut b = Bbr::with_params(&mut Params::new(&params)).unwrap();
    assert_eq!(b.rs.app_limited_until, 0);
    let st = state();
    b.start(0, &st);
    b.rwnd = 20 * MSS;
    b.cwnd = 40 * MSS;
    b.pacing_bps = 1e6;
    b.rs.on_sent(0, 20 * MSS);
    b.check_app_limited(MS);
    assert_eq!(b.rs.app_limited_until, 0);
    let mut small = ns3_bbr();
    small.start(0, &st);
    (small.rwnd, small.cwnd, small.pacing_bps) = (20 * MSS, 40 * MSS, 1e6);
    small.rs.on_sent(0, 20 * MSS);
    small.check_app_limited(MS);
    assert_ne!(small.rs.app_limited_until, 0);
}
