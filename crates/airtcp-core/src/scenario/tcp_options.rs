//! Resolving a flow's TCP options from the scenario into the endpoints' configuration.

use super::params_meta;
use super::schema::TcpOptions;
use crate::tcp::cc::RecoveryKind;
use crate::tcp::{Profile, RecoverGuard, SackBytes, TcpConfig};

/// A flow's TCP settings: the defaults with the keys set in `o` applied; errors name the
/// offending key.
pub fn tcp_config(o: &TcpOptions) -> Result<TcpConfig, (String, String)> {
    // Ranges and their messages come from the key table (`airtcp params tcp`).
    let range =
        |key: &str, v: f64| params_meta::check("tcp", "", key, v).map_err(|m| (key.to_string(), m));
    let mut c = match &o.profile {
        None => TcpConfig::default(),
        Some(name) => Profile::from_name(name)
            .ok_or_else(|| {
                (
                    "profile".to_string(),
                    crate::util::unknown_name("profile", name, &Profile::NAMES),
                )
            })?
            .config(),
    };
    if let Some(v) = o.segment_size {
        range("segment_size", v as f64)?;
        c.mss = v;
    }
    if let Some(v) = o.header_size {
        range("header_size", v as f64)?;
        c.header = v;
    }
    if let Some(v) = o.initial_cwnd {
        // A window of a million segments already exceeds any path the simulator is meant for;
        // more would only exhaust memory at the first send.
        range("initial_cwnd", v as f64)?;
        c.initial_cwnd = v;
    }
    if let Some(v) = o.initial_ssthresh {
        c.initial_ssthresh = v.bytes().max(2 * c.mss as u64);
    }
    if let Some(v) = o.rcv_window.filter(|v| v.bytes() > 1 << 40) {
        return Err((
            "rcv_window".into(),
            format!("must be at most 1 TiB, got {} bytes", v.bytes()),
        ));
    }
    if let Some(v) = o.rcv_window {
        if v.bytes() < c.mss as u64 {
            return Err((
                "rcv_window".into(),
                format!(
                    "must hold at least one segment ({} bytes), got {}",
                    c.mss, v.0
                ),
            ));
        }
        c.rcv_window = v.bytes();
    }
    if let Some(v) = o.min_rto {
        c.min_rto = v.ns();
    }
    if let Some(v) = o.initial_rto {
        // Below a nanosecond is zero to the simulator's clock.
        range("initial_rto", v.ns() as f64 / 1e9)?;
        c.initial_rto = v.ns();
    }
    if let Some(v) = o.syn_timeout {
        c.syn_timeout = v.ns();
    }
    if let Some(v) = o.max_rto {
        c.max_rto = v.ns();
    }
    if c.max_rto < c.min_rto || c.max_rto == 0 {
        return Err((
            "max_rto".into(),
            format!(
                "must be > 0 and >= min_rto ({} s), got {} s",
                crate::engine::secs(c.min_rto),
                crate::engine::secs(c.max_rto)
            ),
        ));
    }
    if let Some(v) = o.delayed_ack {
        c.delayed_ack = v;
    }
    if let Some(v) = o.delack_count {
        range("delack_count", v as f64)?;
        c.delack_count = v;
    }
    if let Some(v) = o.delack_timeout {
        c.delack_timeout = v.ns();
    }
    if let Some(v) = o.dda_delay {
        range("dda_delay", v.ns() as f64 / 1e9)?;
        c.dda_delay = Some(v.ns());
    }
    if let Some(name) = &o.recover_guard {
        c.recover_guard = RecoverGuard::from_name(name).ok_or_else(|| {
            (
                "recover_guard".to_string(),
                crate::util::unknown_name("recover_guard", name, &RecoverGuard::NAMES),
            )
        })?;
    }
    if let Some(name) = &o.ack_options {
        c.sack_bytes = SackBytes::from_name(name).ok_or_else(|| {
            (
                "ack_options".to_string(),
                crate::util::unknown_name("ack_options", name, &SackBytes::NAMES),
            )
        })?;
    }
    if let Some(name) = &o.recovery {
        const NAMES: [&str; 3] = ["scheme", "reno", "newreno"];
        c.recovery = match name.as_str() {
            "scheme" => None,
            "reno" => Some(RecoveryKind::Reno),
            "newreno" => Some(RecoveryKind::NewReno),
            _ => {
                return Err((
                    "recovery".into(),
                    crate::util::unknown_name("recovery", name, &NAMES),
                ))
            }
        };
    }
    if let Some(v) = o.clock_granularity {
        c.clock_granularity = v.ns();
    }
    if let Some(v) = o.ts_tick {
        c.ts_tick = v.ns();
    }
    // Two-way choices named by text: (name when false, name when true).
    for (key, name, names, flag) in [
        (
            "rto_formula",
            &o.rto_formula,
            ["rfc6298", "linux"],
            &mut c.rto_min_added,
        ),
        (
            "cut_basis",
            &o.cut_basis,
            ["flight", "pipe"],
            &mut c.cut_from_pipe,
        ),
        (
            "prr_variant",
            &o.prr_variant,
            ["rfc6937", "ns3"],
            &mut c.prr_ns3,
        ),
        (
            "acked_count",
            &o.acked_count,
            ["advance", "delivered"],
            &mut c.acked_delivered,
        ),
        (
            "window_growth",
            &o.window_growth,
            ["rfc5681", "linux"],
            &mut c.linux_growth,
        ),
        (
            "rto_on_new_ack",
            &o.rto_on_new_ack,
            ["keep_backoff", "estimate"],
            &mut c.rto_reset_on_new_ack,
        ),
        (
            "rtt_sampling",
            &o.rtt_sampling,
            ["rfc", "ns3"],
            &mut c.rtt_sample_ns3,
        ),
        ("pacing", &o.pacing, ["slots", "ns3"], &mut c.pacing_ns3),
        (
            "timeout_resend",
            &o.timeout_resend,
            ["all", "below_sack"],
            &mut c.timeout_resend_below_sack,
        ),
        (
            "disorder_acks",
            &o.disorder_acks,
            ["grow", "hold"],
            &mut c.disorder_hold,
        ),
        (
            "sack_list",
            &o.sack_list,
            ["ranges", "ns3"],
            &mut c.sack_list_ns3,
        ),
    ] {
        if let Some(name) = name {
            *flag = match names.iter().position(|n| n == name) {
                Some(i) => i == 1,
                None => {
                    return Err((key.into(), crate::util::unknown_name(key, name, &names)));
                }
            };
        }
    }
    // On/off switches taken as given.
    for (v, flag) in [
        (o.sack, &mut c.sack),
        (o.timestamps, &mut c.timestamps),
        (o.ecn, &mut c.ecn),
        (o.limited_transmit, &mut c.limited_transmit),
        (o.prr, &mut c.prr),
        (o.rack, &mut c.rack),
        (o.tlp, &mut c.tlp),
        (o.frto, &mut c.frto),
        (o.rescue_retransmit, &mut c.rescue_retransmit),
        (
            o.fast_retransmit_restarts_rto,
            &mut c.fast_retransmit_restarts_rto,
        ),
        (o.partial_ack_retransmit, &mut c.partial_ack_retransmit),
        (o.reno_sack, &mut c.reno_sack),
        (o.timeout_keeps_ssthresh, &mut c.timeout_keeps_ssthresh),
        (o.exit_ack_grows, &mut c.exit_ack_grows),
        (o.ack_first_segment, &mut c.ack_first_segment),
        (o.ts_echo_earliest, &mut c.ts_echo_earliest),
        (
            o.pipe_keeps_retransmissions,
            &mut c.pipe_keeps_retransmissions,
        ),
    ] {
        if let Some(v) = v {
            *flag = v;
        }
    }
    // RACK and TLP read the SACK scoreboard. Asked for without SACK: an error. Taken from a
    // profile whose SACK was turned off: off too, as in Linux, which runs neither without it.
    for (key, asked) in [("rack", o.rack), ("tlp", o.tlp)] {
        if asked == Some(true) && !c.sack {
            return Err((key.into(), "needs sack = true".into()));
        }
    }
    c.rack &= c.sack;
    c.tlp &= c.sack;
    if c.recover_guard == RecoverGuard::Timestamp && !c.timestamps {
        return Err((
            "recover_guard".into(),
            "\"timestamp\" needs timestamps = true".into(),
        ));
    }
    if let Some(v) = o.handshake {
        c.handshake = v;
    }
    if let Some(v) = o.syn_options {
        range("syn_options", v as f64)?;
        c.syn_options = v;
    }
    if let Some(v) = o.handshake_ack {
        c.handshake_ack = v;
    }
    if let Some(v) = o.dupack_threshold {
        range("dupack_threshold", v as f64)?;
        c.dupack_threshold = v;
    }
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{MS, SEC};
    use crate::scenario::units::Duration;

    #[test]
    fn a_profile_sets_the_stack_defaults_and_keys_still_override() {
        let ns3 = tcp_config(&TcpOptions {
            profile: Some("ns3".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!((ns3.mss, ns3.initial_cwnd, ns3.min_rto), (536, 10, SEC));
        assert!(ns3.sack && ns3.timestamps && ns3.delayed_ack && ns3.limited_transmit);
        let tuned = tcp_config(&TcpOptions {
            profile: Some("ns3".into()),
            segment_size: Some(1448),
            min_rto: Some(Duration(0.2)),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (tuned.mss, tuned.min_rto, tuned.initial_cwnd),
            (1448, 200 * MS, 10)
        );
        let linux = tcp_config(&TcpOptions {
            profile: Some("linux".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (linux.mss, linux.delack_timeout, linux.max_rto),
            (1448, 40 * MS, 120 * SEC)
        );
        // Linux's growth counts delivered segments; only the linux profile has it, and the
        // key turns it off again.
        assert!(linux.linux_growth && !ns3.linux_growth && !TcpConfig::default().linux_growth);
        let rfc = tcp_config(&TcpOptions {
            profile: Some("linux".into()),
            window_growth: Some("rfc5681".into()),
            ..Default::default()
        })
        .unwrap();
        assert!(!rfc.linux_growth);
        let ns2 = tcp_config(&TcpOptions {
            profile: Some("ns2".into()),
            ..Default::default()
        })
        .unwrap();
        assert_eq!((ns2.initial_rto, ns2.rcv_window), (3 * SEC, 20_000));
    }

    #[test]
    fn the_ns3_profile_takes_its_timer_rules_and_the_keys_undo_them() {
        let with = |o: TcpOptions| tcp_config(&o).unwrap();
        let ns3 = with(TcpOptions {
            profile: Some("ns3".into()),
            ..Default::default()
        });
        assert!(ns3.rto_reset_on_new_ack && ns3.rtt_sample_ns3 && ns3.reno_sack);
        let d = TcpConfig::default();
        assert!(!d.rto_reset_on_new_ack && !d.rtt_sample_ns3 && !d.reno_sack);
        let rfc = with(TcpOptions {
            profile: Some("ns3".into()),
            rto_on_new_ack: Some("keep_backoff".into()),
            rtt_sampling: Some("rfc".into()),
            ..Default::default()
        });
        assert!(!rfc.rto_reset_on_new_ack && !rfc.rtt_sample_ns3);
        let e = tcp_config(&TcpOptions {
            rtt_sampling: Some("karn".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.0, "rtt_sampling");
    }

    #[test]
    fn recovery_replaces_the_schemes_own_and_names_its_key() {
        let with = |r: &str| {
            tcp_config(&TcpOptions {
                recovery: Some(r.into()),
                ..Default::default()
            })
        };
        assert_eq!(with("reno").unwrap().recovery, Some(RecoveryKind::Reno));
        assert_eq!(
            with("newreno").unwrap().recovery,
            Some(RecoveryKind::NewReno)
        );
        assert_eq!(with("scheme").unwrap().recovery, None);
        assert_eq!(tcp_config(&TcpOptions::default()).unwrap().recovery, None);
        let e = with("renno").unwrap_err();
        assert_eq!(e.0, "recovery");
        assert!(e.1.contains("did you mean 'reno'"), "{}", e.1);
    }

    #[test]
    fn sack_blocks_add_the_option_bytes_each_stack_writes() {
        // ns-3 (TcpHeader::CalculateHeaderLength): 20 + the options' sizes (timestamp 10,
        // SACK 2 + 8 per block) padded to 4; `header` already holds the timestamp as 12.
        let ns3: Vec<u32> = (0..=3).map(|n| SackBytes::Ns3.bytes(n, true)).collect();
        assert_eq!(ns3, [0, 8, 16, 24]);
        let ns3_no_ts: Vec<u32> = (0..=3).map(|n| SackBytes::Ns3.bytes(n, false)).collect();
        assert_eq!(ns3_no_ts, [0, 12, 20, 28]);
        // Linux (tcp_options_write): NOP, NOP, kind, length, 8 bytes a block.
        let linux: Vec<u32> = (0..=3).map(|n| SackBytes::Linux.bytes(n, true)).collect();
        assert_eq!(linux, [0, 12, 20, 28]);
        assert_eq!(SackBytes::None.bytes(3, true), 0);
        // The profiles choose them; ns-2's agents send fixed-size ACKs.
        let of = |p: &str| {
            tcp_config(&TcpOptions {
                profile: Some(p.into()),
                ..Default::default()
            })
            .unwrap()
            .sack_bytes
        };
        let default = tcp_config(&TcpOptions::default()).unwrap().sack_bytes;
        assert_eq!(
            [default, of("ns2"), of("ns3"), of("linux")],
            [
                SackBytes::None,
                SackBytes::None,
                SackBytes::Ns3,
                SackBytes::Linux
            ]
        );
        let e = tcp_config(&TcpOptions {
            ack_options: Some("bsd".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.0, "ack_options");
    }

    #[test]
    fn recovery_features_follow_sack_and_errors_name_the_key() {
        let linux = |o: TcpOptions| {
            tcp_config(&TcpOptions {
                profile: Some("linux".into()),
                ..o
            })
        };
        let l = linux(TcpOptions::default()).unwrap();
        assert!(l.rack && l.tlp && l.frto && l.rto_min_added);
        assert_eq!(l.recover_guard, RecoverGuard::LessCareful);
        // The profile's RACK and TLP go with its SACK; F-RTO does not need SACK.
        let nosack = linux(TcpOptions {
            sack: Some(false),
            ..Default::default()
        })
        .unwrap();
        assert!(!nosack.rack && !nosack.tlp && nosack.frto);
        let e = tcp_config(&TcpOptions {
            rack: Some(true),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!((e.0.as_str(), e.1.as_str()), ("rack", "needs sack = true"));
        let e = tcp_config(&TcpOptions {
            recover_guard: Some("timestamp".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.0, "recover_guard");
        let e = tcp_config(&TcpOptions {
            recover_guard: Some("carefull".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert!(
            e.1.contains("carefull") && e.1.contains("'careful'"),
            "{}",
            e.1
        );
        let e = tcp_config(&TcpOptions {
            rto_formula: Some("bsd".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.0, "rto_formula");
    }

    #[test]
    fn unknown_profile_is_reported() {
        let e = tcp_config(&TcpOptions {
            profile: Some("ns-3".into()),
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.0, "profile");
        assert!(e.1.contains("did you mean 'ns3'"), "{}", e.1);
    }

    #[test]
    fn a_flow_inherits_the_scenario_profile_unless_it_names_its_own() {
        let scenario = TcpOptions {
            profile: Some("linux".into()),
            ..Default::default()
        };
        let flow = TcpOptions::default();
        assert_eq!(flow.or(&scenario).profile.as_deref(), Some("linux"));
        let own = TcpOptions {
            profile: Some("ns2".into()),
            ..Default::default()
        };
        assert_eq!(own.or(&scenario).profile.as_deref(), Some("ns2"));
    }
}
