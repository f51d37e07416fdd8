//! Bianchi's model of 802.11 DCF saturation throughput (IEEE JSAC 18(3), 2000): n stations
//! that always have a frame, ideal channel. τ, the probability a station transmits in a slot,
//! and p, the probability its frame collides, solve
//!   τ = 2(1 − 2p) / ((1 − 2p)(W + 1) + pW(1 − (2p)^m))   (Bianchi eq. 7)
//!   p = 1 − (1 − τ)^(n−1)                                 (eq. 8)
//! and the throughput is S = Ps·Ptr·E[P] / ((1 − Ptr)σ + Ptr·Ps·Ts + Ptr(1 − Ps)Tc) (eq. 13)
//! with Ptr = 1 − (1 − τ)^n and Ps = nτ(1 − τ)^(n−1)/Ptr. W = CWmin + 1, m the number of
//! doublings to CWmax. Ts and Tc are the times the medium is held by a success and a
//! collision, which the caller gives as the simulated MAC spends them.

/// τ and p for `n` stations (bisection on p: the right side of eq. 8 grows with p, the
/// left falls).
pub fn tau_p(n: u32, w: f64, m: i32) -> (f64, f64) {
    let tau_of = |p: f64| {
        let q = 1.0 - 2.0 * p;
        2.0 * q / (q * (w + 1.0) + p * w * (1.0 - (2.0 * p).powi(m)))
    };
    if n <= 1 {
        return (tau_of(0.0), 0.0);
    }
    // At p = 1/2 the formula is 0/0; its limit is 2/(W + 1 + mW/2).
    let tau_of = |p: f64| {
        if (p - 0.5).abs() < 1e-9 {
            2.0 / (w + 1.0 + m as f64 * w / 2.0)
        } else {
            tau_of(p)
        }
    };
    let f = |p: f64| 1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1) - p;
    let (mut lo, mut hi) = (0.0, 1.0 - 1e-12);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let p = 0.5 * (lo + hi);
    (tau_of(p), p)
}

/// Saturation throughput in payload bits per second. Times in seconds, payload in bits.
pub fn throughput(n: u32, w: f64, m: i32, slot: f64, ts: f64, tc: f64, payload_bits: f64) -> f64 {
    let (tau, _) = tau_p(n, w, m);
    let ptr = 1.0 - (1.0 - tau).powi(n as i32);
    let ps = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / ptr;
    ps * ptr * payload_bits / ((1.0 - ptr) * slot + ptr * ps * ts + ptr * (1.0 - ps) * tc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_station_never_collides() {
        let (tau, p) = tau_p(1, 32.0, 3);
        assert_eq!(p, 0.0);
        // Mean backoff (W − 1)/2 slots, then a transmission: τ = 2/(W + 1).
        assert!((tau - 2.0 / 33.0).abs() < 1e-12);
    }

    #[test]
    fn fixed_point_holds_and_collisions_grow_with_n() {
        let mut last = 0.0;
        for n in [2, 5, 10, 20, 50] {
            let (tau, p) = tau_p(n, 32.0, 3);
            assert!((p - (1.0 - (1.0 - tau).powi(n as i32 - 1))).abs() < 1e-9);
            assert!(p > last);
            last = p;
        }
    }

    #[test]
    fn one_station_spends_mean_backoff_then_a_success() {
        // n = 1: every cycle is (W − 1)/2 idle slots on average and one success.
        let (ts, slot, w) = (9e-3, 50e-6, 32.0);
        let s = throughput(1, w, 3, slot, ts, 1.0, 8184.0);
        let expect = 8184.0 / ((w - 1.0) / 2.0 * slot + ts);
        assert!((s / expect - 1.0).abs() < 1e-12);
    }

    #[test]
    fn tau_is_continuous_through_p_one_half() {
        // Many stations push p past 1/2, where eq. 7 is 0/0.
        let (_, p) = tau_p(50, 32.0, 3);
        assert!(p > 0.5, "{p}");
        let q = 1e-6;
        let t = |p: f64| {
            let x = 1.0 - 2.0 * p;
            2.0 * x / (x * 33.0 + p * 32.0 * (1.0 - (2.0 * p).powi(3)))
        };
        assert!((t(0.5 - q) - 2.0 / (33.0 + 48.0)).abs() < 1e-6);
        assert!((t(0.5 + q) - 2.0 / (33.0 + 48.0)).abs() < 1e-6);
    }
}

/// The validation case: Bianchi's FHSS parameters (his Table II) on the simulated MAC.
pub mod fhss {
    use serde_json::{json, Value};

    /// Payload (the IP packet the MAC carries), bytes: 8184 bits.
    pub const PAYLOAD: u32 = 1023;
    const SLOT: f64 = 50e-6;
    const SIFS: f64 = 28e-6;
    const DIFS: f64 = 128e-6;
    const PHY: f64 = 128e-6;
    const RATE: f64 = 1e6;
    /// Radius of the circle the stations sit on around the sink, metres.
    const RADIUS: f64 = 10.0;

    fn frame(bytes: f64) -> f64 {
        PHY + bytes * 8.0 / RATE
    }

    /// Model throughput (payload bit/s) for `n` saturated stations. Ts is Bianchi's; Tc is the
    /// time the medium is lost to a collision as the simulated MAC (like 802.11, ns-2 and
    /// ns-3) spends it: the stations that sensed the collided frames wait EIFS, not DIFS.
    pub fn model(n: u32, rts: bool) -> f64 {
        let d = RADIUS / crate::medium::radio::C;
        let ack = frame(14.0);
        let eifs = SIFS + ack + DIFS;
        let data = frame((PAYLOAD + 34) as f64);
        let (ts, tc) = if rts {
            let (r, c) = (frame(20.0), frame(14.0));
            (
                r + SIFS + d + c + SIFS + d + data + SIFS + d + ack + DIFS + d,
                r + d + eifs,
            )
        } else {
            (data + SIFS + d + ack + DIFS + d, data + d + eifs)
        };
        super::throughput(n, 32.0, 3, SLOT, ts, tc, PAYLOAD as f64 * 8.0)
    }

    /// `n` stations on a circle around a sink, each with a UDP flow that keeps its queue full.
    pub fn scenario(n: u32, rts: bool, duration: f64, seed: u64) -> Value {
        let mut nodes = vec![json!({"name": "sink", "position": [0.0, 0.0]})];
        let mut flows = vec![];
        for i in 0..n {
            let a = 2.0 * std::f64::consts::PI * i as f64 / n as f64;
            nodes.push(json!({
                "name": format!("s{i}"),
                "position": [RADIUS * a.cos(), RADIUS * a.sin()],
            }));
            flows.push(json!({
                "src": format!("s{i}"), "dst": "sink",
                "app": {"kind": "cbr", "rate": RATE * 1.2, "packet_size": PAYLOAD},
            }));
        }
        json!({
            "name": format!("bianchi-{n}-{}", if rts { "rts" } else { "basic" }),
            "duration": duration,
            "seed": seed,
            "nodes": nodes,
            "flows": flows,
            "media": [{
                "name": "air", "kind": "wifi",
                "rate": RATE, "basic_rate": RATE,
                "slot": SLOT, "sifs": SIFS, "difs": DIFS, "plcp": PHY,
                "cw_min": 31, "cw_max": 255,
                "mac_overhead": 34,
                "rts_threshold": if rts { 0 } else { 100_000 },
                "short_retry_limit": 255, "long_retry_limit": 255,
                "queue": {"limit": 5},
            }],
        })
    }
}
