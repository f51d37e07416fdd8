//! SACK recovery repairs several losses of one window in about one RTT; NewReno repairs one
//! hole per RTT.

use crate::common;
use common::Path;

fn run(cc: &'static str) -> airtcp_core::stats::FlowResult {
    let p = Path {
        cc,
        duration: 30.0,
        app: r#"{ kind = "file", size = 300000 }"#.into(),
        ..Default::default()
    };
    // Four data packets of one window lost on the last hop.
    let t = p.toml().replace(
        "error = { model = \"bernoulli\", per = 0, applies_to = \"data\" }",
        "error = { model = \"list\", packets = [40, 43, 46, 49], applies_to = \"data\" }",
    );
    assert!(t.contains("model = \"list\""));
    let r = airtcp_core::run_toml(&t).unwrap();
    r.flows[0].clone()
}

#[test]
fn sack_repairs_a_multi_loss_window_in_one_recovery_without_timeout() {
    let sack = run("sack");
    let newreno = run("newreno");
    assert_eq!(sack.lost_packets, 4);
    assert_eq!(newreno.lost_packets, 4);
    assert_eq!(sack.timeouts, 0, "{sack:?}");
    assert_eq!(sack.fast_retransmits, 1);
    assert_eq!(
        sack.retransmissions, 4,
        "exactly the lost segments are resent"
    );
    let rtt = sack.rtt_min_s.unwrap();
    let (ts, tn) = (
        sack.completion_time_s.unwrap(),
        newreno.completion_time_s.unwrap(),
    );
    println!(
        "completion: sack {ts:.3} s, newreno {tn:.3} s (timeouts {}), rtt {rtt:.3}",
        newreno.timeouts
    );
    // NewReno needs one RTT per hole (or a timeout): at least two RTTs more than SACK.
    assert!(tn - ts >= 2.0 * rtt, "sack {ts} vs newreno {tn}");
}
