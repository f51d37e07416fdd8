//! Loss recovery under heavy random loss with SACK: with RACK-TLP and F-RTO (the `linux`
//! profile) a flow repairs nearly every loss without waiting for the retransmission timer,
//! where the `ns3` profile (RFC 6675 and PRR only) still waits on it for lost
//! retransmissions and tail losses.

use crate::common;
use common::Path;

struct Share {
    timeouts: u64,
    events: u64,
    goodput: f64,
}

/// Timeouts among loss events (fast-recovery entries, timeouts and probe-repaired losses),
/// summed over three seeds of a 120 s bulk flow with `per` random loss on the last hop.
fn share(tcp: &str, per: f64) -> Share {
    let mut s = Share {
        timeouts: 0,
        events: 0,
        goodput: 0.0,
    };
    for seed in 1..=3 {
        let r = Path {
            per,
            seed,
            duration: 120.0,
            tcp: tcp.into(),
            ..Default::default()
        }
        .run();
        let f = &r.flows[0];
        s.timeouts += f.timeouts;
        s.events += f.timeouts + f.fast_retransmits + f.tlp_recoveries;
        s.goodput += f.goodput_bps / 3.0;
    }
    s
}

#[test]
fn timeouts_are_a_small_share_of_loss_events_with_rack_tlp() {
    for (per, bound) in [(0.05, 0.10), (0.10, 0.10), (0.20, 0.25)] {
        let linux = share("profile = \"linux\"", per);
        let plain = share(
            "profile = \"linux\"\nrack = false\ntlp = false\nfrto = false",
            per,
        );
        let ns3 = share("profile = \"ns3\"", per);
        let frac = |s: &Share| s.timeouts as f64 / s.events.max(1) as f64;
        println!(
            "PER {per}: linux {:.3} ({} of {}, {:.2} Mb/s), linux without RACK-TLP/F-RTO {:.3} \
             ({:.2} Mb/s), ns3 {:.3} ({:.2} Mb/s)",
            frac(&linux),
            linux.timeouts,
            linux.events,
            linux.goodput / 1e6,
            frac(&plain),
            plain.goodput / 1e6,
            frac(&ns3),
            ns3.goodput / 1e6,
        );
        assert!(
            linux.events > 100,
            "enough loss events to judge: {}",
            linux.events
        );
        assert!(frac(&linux) < bound, "PER {per}: share {:.3}", frac(&linux));
        assert!(
            frac(&linux) < frac(&plain),
            "PER {per}: RACK-TLP must cut the share"
        );
        assert!(
            frac(&linux) < frac(&ns3),
            "PER {per}: the ns3 profile waits on the timer more often"
        );
    }
}
