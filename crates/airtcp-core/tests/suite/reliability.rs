//! Property test: a finite transfer delivers every byte exactly once and in order, whatever
//! the loss of data and ACKs and the link parameters.

use crate::common;
use common::Path;
use proptest::prelude::*;

const RATES: [&str; 4] = ["256kbps", "1Mbps", "10Mbps", "100Mbps"];
const DELAYS: [&str; 4] = ["0ms", "1ms", "15ms", "80ms"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]

    #[test]
    fn finite_transfer_delivers_every_byte_once_in_order(
        size in 1u64..300_000,
        access in 0usize..4,
        bottleneck in 0usize..4,
        d1 in 0usize..4,
        d2 in 0usize..4,
        queue in 2u64..60,
        per in 0.0f64..0.15,
        ack_loss in any::<bool>(),
        delayed in any::<bool>(),
        sack in any::<bool>(),
        handshake in any::<bool>(),
        mss in prop::sample::select(vec![100u32, 536, 1000, 1460]),
        seed in 0u64..1_000_000,
    ) {
        let p = Path {
            access_rate: RATES[access],
            access_delay: DELAYS[d1],
            bottleneck_rate: RATES[bottleneck],
            bottleneck_delay: DELAYS[d2],
            queue,
            per,
            applies_to: if ack_loss { "all" } else { "data" },
            duration: 5000.0,
            seed,
            app: format!("{{ kind = \"file\", size = {size} }}"),
            tcp: format!(
                "max_rto = \"8s\"\ndelayed_ack = {delayed}\nsack = {sack}\nsegment_size = {mss}\nhandshake = {handshake}\n"
            ),
            flows: 1,
            cc: "newreno",
        };
        let r = p.run();
        let f = &r.flows[0];
        prop_assert!(f.completion_time_s.is_some(), "transfer did not complete: {f:?}");
        prop_assert_eq!(f.delivered_bytes, size);
        prop_assert_eq!(f.order_violations, 0);
        // Every packet ended somewhere: nothing left in the network after completion but
        // possibly a trailing ACK.
        let k = &r.packets;
        prop_assert_eq!(k.sent, k.delivered + k.dropped + k.in_flight);
    }
}
