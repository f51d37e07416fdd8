//! An 802.11 medium's MAC/PHY constants and radio model: the preset's values, then the keys the
//! scenario sets. Sources of the presets are in docs/mac.md.

use super::build::{err, finite_in, R};
use super::schema::{
    AccessKind, FadingModel, MediumSpec, PropagationKind, RateManagerKind, ReceptionKind,
    WifiPreset,
};
use super::units::{Duration, Rate, Size};
use crate::device::wifi::{rate_set, MinstrelRates, RateControl, Reception, WifiParams};
use crate::engine::{tx_time, Time, SEC};
use crate::medium::radio::{self, Propagation, RadioModel};
use crate::phy::{thermal_noise_w, Fading, FadingKind, WifiMode};

/// What a preset sets. `None` for the ACK rate: the preset's rule from the data rate.
struct Preset {
    rate: f64,
    basic: f64,
    /// ACKs at the highest mandatory rate not above the data rate (ns-3's rule) instead of the
    /// basic rate.
    ack_rule: bool,
    prop: PropagationKind,
    freq: f64,
    tx_dbm: f64,
    /// Log-distance loss at the reference distance, dB (None: Friis at that distance).
    reference_loss_db: Option<f64>,
    rx_dbm: f64,
    cs_dbm: f64,
    /// Noise: a fixed power (dBm), or a noise figure (dB) over the channel's bandwidth.
    noise_dbm: Option<f64>,
    noise_figure_db: Option<f64>,
    reception: ReceptionKind,
    preamble_snr_db: f64,
    rx_sensitivity_dbm: Option<f64>,
    /// Energy-detection threshold for undetected preambles (None: every sensed signal).
    cca_ed_dbm: Option<f64>,
    slot_us: f64,
    plcp_us: f64,
    cw_min: u32,
    rts_threshold: u64,
    long_retry: u8,
    mac_overhead: u64,
    ofdm: bool,
    access: AccessKind,
}

fn preset(p: WifiPreset) -> Preset {
    let ns2 = Preset {
        rate: 2e6,
        basic: 1e6,
        ack_rule: false,
        prop: PropagationKind::TwoRayGround,
        freq: 914e6,
        tx_dbm: radio::w_to_dbm(0.281_838_15),
        reference_loss_db: None,
        rx_dbm: radio::w_to_dbm(3.652e-10),
        cs_dbm: radio::w_to_dbm(1.559e-11),
        noise_dbm: None,
        noise_figure_db: None,
        reception: ReceptionKind::Ns2,
        preamble_snr_db: 4.0,
        rx_sensitivity_dbm: None,
        cca_ed_dbm: None,
        slot_us: 20.0,
        plcp_us: 192.0,
        cw_min: 31,
        rts_threshold: 0,
        long_retry: 4,
        mac_overhead: 28,
        ofdm: false,
        access: AccessKind::Ns2,
    };
    // ns-3.44: YansWifiPhy (TxPowerStart/End 16.0206 dBm, RxNoiseFigure 7 dB, RxSensitivity
    // -101 dBm, CcaEdThreshold -62 dBm, ThresholdPreambleDetectionModel Threshold 4 dB and
    // MinimumRssi -82 dBm),
    // YansWifiChannelHelper::Default (LogDistancePropagationLossModel: exponent 3, 46.6777 dB
    // at 1 m), channel 1 (2412 MHz), WifiMac for 802.11b (slot 20 µs, SIFS 10 µs, long
    // preamble, CWmin 31), FrameRetryLimit 7, RtsCtsThreshold 4692480 (never), data frames with 8 bytes
    // of LLC/SNAP. benches/ns3/ns3_defaults.cc prints them from ns-3 itself.
    let ns3 = Preset {
        rate: 11e6,
        basic: 1e6,
        ack_rule: true,
        prop: PropagationKind::LogDistance,
        freq: 2.412e9,
        tx_dbm: 16.0206,
        reference_loss_db: Some(46.6777),
        rx_dbm: -82.0,
        cs_dbm: -82.0,
        noise_dbm: None,
        noise_figure_db: Some(7.0),
        reception: ReceptionKind::Sinr,
        preamble_snr_db: 4.0,
        rx_sensitivity_dbm: Some(-101.0),
        cca_ed_dbm: Some(-62.0),
        slot_us: 20.0,
        plcp_us: 192.0,
        cw_min: 31,
        rts_threshold: 1 << 20,
        long_retry: 7,
        mac_overhead: 36,
        ofdm: false,
        access: AccessKind::Ns3,
    };
    match p {
        WifiPreset::Ns2 => ns2,
        WifiPreset::Dot11b => Preset {
            rate: 11e6,
            prop: PropagationKind::LogDistance,
            freq: 2.412e9,
            tx_dbm: 20.0,
            rx_dbm: -82.0,
            cs_dbm: -90.0,
            noise_dbm: Some(-101.0),
            rts_threshold: 2347,
            // An 802.11b radio with a noise floor: the SINR model and its error-rate curves,
            // as the other 802.11b/g presets (no scenario or result depended on `summed`).
            reception: ReceptionKind::Sinr,
            ..ns2
        },
        WifiPreset::Ns3 => ns3,
        WifiPreset::Dot11g => Preset {
            rate: 54e6,
            basic: 6e6,
            slot_us: 9.0,
            plcp_us: 20.0,
            cw_min: 15,
            ofdm: true,
            ..ns3
        },
    }
}

/// ns-3's rate for a response: the highest mandatory rate not above the data rate (every DSSS
/// and CCK rate is mandatory in 802.11b; 6, 12 and 24 Mbit/s in OFDM).
fn mandatory_at_most(data: u64) -> u64 {
    match WifiMode::from_rate(data) {
        Some(WifiMode::Ofdm(r)) => {
            let best = [24u64, 12, 6].into_iter().find(|&m| m <= r as u64);
            best.unwrap_or(6) * 1_000_000
        }
        _ => data,
    }
}

/// The MAC/PHY constants and the radio model of an 802.11 medium.
pub(super) fn wifi_params(m: &MediumSpec, p: &str) -> R<(WifiParams, RadioModel)> {
    let ps = preset(m.preset.unwrap_or(WifiPreset::Ns2));
    let us = |x: f64| (x * 1e3) as Time;
    let frequency_hz = finite_in(
        m.frequency_hz.unwrap_or(ps.freq),
        1e6,
        1e12,
        format!("{p}.frequency_hz"),
    )?;
    let reference = finite_in(
        m.reference_distance.unwrap_or(1.0),
        1e-3,
        1e6,
        format!("{p}.reference_distance"),
    )?;
    let mut model = RadioModel {
        propagation: match m.propagation.unwrap_or(ps.prop) {
            PropagationKind::FreeSpace => Propagation::FreeSpace,
            PropagationKind::TwoRayGround => Propagation::TwoRayGround,
            PropagationKind::LogDistance => Propagation::LogDistance {
                exponent: finite_in(
                    m.path_loss_exponent.unwrap_or(3.0),
                    1.0,
                    10.0,
                    format!("{p}.path_loss_exponent"),
                )?,
                reference,
            },
        },
        tx_power_w: radio::dbm_to_w(finite_in(
            m.tx_power_dbm.unwrap_or(ps.tx_dbm),
            -100.0,
            100.0,
            format!("{p}.tx_power_dbm"),
        )?),
        frequency_hz,
        antenna_height: finite_in(
            m.antenna_height.unwrap_or(1.5),
            0.01,
            1e4,
            format!("{p}.antenna_height"),
        )?,
        gain_tx: 1.0,
        gain_rx: 1.0,
        system_loss: 1.0,
    };
    model.system_loss = match (m.system_loss, ps.reference_loss_db) {
        (Some(l), _) => finite_in(l, 1.0, 1e6, format!("{p}.system_loss"))?,
        // ns-3 fixes the loss at the reference distance; Friis there plus the system loss gives
        // the same figure at the preset's frequency.
        (None, Some(db)) if m.frequency_hz.is_none() && m.reference_distance.is_none() => {
            let friis_db = -radio::w_to_dbm(model.rx_power(reference) / model.tx_power_w) + 30.0;
            10f64.powf((db - friis_db) / 10.0).max(1.0)
        }
        _ => 1.0,
    };
    let threshold = |range: Option<f64>, dbm: Option<f64>, dflt: f64, rkey: &str, dkey: &str| match (
        range, dbm,
    ) {
        (Some(_), Some(_)) => err(
            format!("{p}.{rkey}"),
            format!("give either `{rkey}` or `{dkey}`, not both"),
        ),
        (Some(r), None) => {
            let r = finite_in(r, 0.01, 1e7, format!("{p}.{rkey}"))?;
            Ok(model.rx_power(r))
        }
        (None, Some(d)) => Ok(radio::dbm_to_w(finite_in(
            d,
            -200.0,
            100.0,
            format!("{p}.{dkey}"),
        )?)),
        (None, None) => Ok(radio::dbm_to_w(dflt)),
    };
    let rx_w = threshold(
        m.range,
        m.rx_threshold_dbm,
        ps.rx_dbm,
        "range",
        "rx_threshold_dbm",
    )?;
    let cs_w = threshold(
        m.cs_range,
        m.cs_threshold_dbm,
        ps.cs_dbm,
        "cs_range",
        "cs_threshold_dbm",
    )?;
    if cs_w > rx_w {
        return err(
            format!("{p}.cs_range"),
            format!(
                "carrier sense must reach at least as far as reception ({:.1} m), got {:.1} m",
                model.range_for(rx_w),
                model.range_for(cs_w)
            ),
        );
    }
    let dur = |d: Option<Duration>, dflt: Time, key: &str, min: Time| -> R<Time> {
        let v = d.map_or(dflt, |d| d.ns());
        if v < min || v > SEC {
            return err(
                format!("{p}.{key}"),
                format!(
                    "must be in [{} s, 1 s], got {} s",
                    min as f64 / 1e9,
                    v as f64 / 1e9
                ),
            );
        }
        Ok(v)
    };
    let slot = dur(m.slot, us(ps.slot_us), "slot", 1)?;
    let sifs = dur(m.sifs, us(10.0), "sifs", 1)?;
    let difs = dur(m.difs, sifs + 2 * slot, "difs", sifs)?;
    let plcp = dur(m.plcp, us(ps.plcp_us), "plcp", 0)?;
    let cw_min = m.cw_min.unwrap_or(ps.cw_min);
    let cw_max = m.cw_max.unwrap_or(1023);
    if let Err(m) = super::params_meta::check("media[]", "wifi", "cw_min", cw_min as f64) {
        return err(format!("{p}.cw_min"), m);
    }
    if cw_max < cw_min || cw_max > 65_535 {
        return err(
            format!("{p}.cw_max"),
            format!("must be in [cw_min = {cw_min}, 65535], got {cw_max}"),
        );
    }
    let limit = |v: Option<u8>, dflt: u8, key: &str| -> R<u8> {
        let v = v.unwrap_or(dflt);
        if let Err(m) = super::params_meta::check("media[]", "wifi", key, v as f64) {
            return err(format!("{p}.{key}"), m);
        }
        Ok(v)
    };
    let small = |v: Option<Size>, dflt: u64, key: &str| -> R<u32> {
        let v = v.map_or(dflt, |s| s.bytes());
        if v > 1 << 20 {
            return err(
                format!("{p}.{key}"),
                format!("must be at most 1 MiB, got {v} bytes"),
            );
        }
        Ok(v as u32)
    };
    let rate_of = |r: Option<Rate>, dflt: f64, key: &str| -> R<u64> {
        let v = r.map_or(dflt as u64, |r| r.bps());
        if tx_time(1, v) > SEC {
            return err(
                format!("{p}.{key}"),
                format!("{v} bps is too slow to simulate"),
            );
        }
        Ok(v)
    };
    let data_rate = rate_of(m.rate, ps.rate, "rate")?;
    let basic_rate = rate_of(m.basic_rate, ps.basic, "basic_rate")?;
    let ack_dflt = if ps.ack_rule {
        mandatory_at_most(data_rate)
    } else {
        basic_rate
    };
    let ack_rate = rate_of(m.ack_rate, ack_dflt as f64, "ack_rate")?;
    let reception = match m.reception.unwrap_or(ps.reception) {
        ReceptionKind::Summed => Reception::Summed,
        ReceptionKind::Ns2 => Reception::Ns2,
        ReceptionKind::Sinr => Reception::Sinr,
    };
    let ofdm = ps.ofdm;
    if reception == Reception::Sinr || ofdm {
        for (v, key) in [
            (data_rate, "rate"),
            (basic_rate, "basic_rate"),
            (ack_rate, "ack_rate"),
        ] {
            let mode = WifiMode::from_rate(v);
            let fits = mode.is_some_and(|md| !ofdm || md.is_ofdm());
            if !fits {
                let what = if ofdm {
                    "an OFDM rate (6, 9, 12, 18, 24, 36, 48 or 54 Mbps) on an OFDM preset"
                } else {
                    "an 802.11b/g rate (1, 2, 5.5, 11 Mbps or OFDM 6-54 Mbps) for the sinr reception"
                };
                return err(format!("{p}.{key}"), format!("must be {what}, got {v} bps"));
            }
        }
    }
    for (v, key) in [
        (m.noise_figure_db, "noise_figure_db"),
        (m.preamble_snr_db, "preamble_snr_db"),
        (m.rx_sensitivity_dbm, "rx_sensitivity_dbm"),
        (m.cca_ed_threshold_dbm, "cca_ed_threshold_dbm"),
    ] {
        if v.is_some() && reception != Reception::Sinr {
            return err(
                format!("{p}.{key}"),
                "applies to the sinr reception only (set `reception = \"sinr\"`)",
            );
        }
    }
    if m.noise_dbm.is_some() && m.noise_figure_db.is_some() {
        return err(
            format!("{p}.noise_figure_db"),
            "give either `noise_dbm` or `noise_figure_db`, not both",
        );
    }
    let noise_w = match (m.noise_dbm, m.noise_figure_db) {
        (Some(d), _) => radio::dbm_to_w(finite_in(d, -250.0, 100.0, format!("{p}.noise_dbm"))?),
        (None, Some(f)) => {
            let f = finite_in(f, 0.0, 100.0, format!("{p}.noise_figure_db"))?;
            thermal_noise_w(
                WifiMode::from_rate(data_rate).map_or(22e6, |md| md.bandwidth_hz()),
                f,
            )
        }
        (None, None) => match (ps.noise_dbm, ps.noise_figure_db) {
            (Some(d), _) => radio::dbm_to_w(d),
            (None, Some(f)) if reception == Reception::Sinr => thermal_noise_w(
                WifiMode::from_rate(data_rate).map_or(22e6, |md| md.bandwidth_hz()),
                f,
            ),
            _ => 0.0,
        },
    };
    if reception == Reception::Sinr && noise_w <= 0.0 {
        return err(
            format!("{p}.noise_figure_db"),
            "the sinr reception needs noise: set `noise_figure_db` or `noise_dbm`",
        );
    }
    let sens_w = match m.rx_sensitivity_dbm.or(ps.rx_sensitivity_dbm) {
        Some(d) if reception == Reception::Sinr => {
            let w = radio::dbm_to_w(finite_in(
                d,
                -250.0,
                100.0,
                format!("{p}.rx_sensitivity_dbm"),
            )?);
            if w > cs_w {
                return err(
                    format!("{p}.rx_sensitivity_dbm"),
                    "must be at most the carrier-sense threshold",
                );
            }
            w
        }
        _ => cs_w,
    };
    let cca_ed_w = match m.cca_ed_threshold_dbm.or(ps.cca_ed_dbm) {
        Some(d) if reception == Reception::Sinr => Some(radio::dbm_to_w(finite_in(
            d,
            -250.0,
            100.0,
            format!("{p}.cca_ed_threshold_dbm"),
        )?)),
        _ => None,
    };
    let (rate_control, rates) = rate_control(m, data_rate, ofdm, reception, p)?;
    let mut params = WifiParams {
        data_rate,
        basic_rate,
        ack_rate,
        slot,
        sifs,
        difs,
        plcp,
        cw_min,
        cw_max,
        rts_threshold: small(m.rts_threshold, ps.rts_threshold, "rts_threshold")?,
        short_retry_limit: limit(m.short_retry_limit, 7, "short_retry_limit")?,
        long_retry_limit: limit(m.long_retry_limit, ps.long_retry, "long_retry_limit")?,
        mac_overhead: small(m.mac_overhead, ps.mac_overhead, "mac_overhead")?,
        rts_bytes: 20,
        cts_bytes: 14,
        ack_bytes: 14,
        rx_threshold_w: rx_w,
        cs_threshold_w: cs_w,
        interference_floor_w: sens_w,
        capture_ratio: 10f64.powf(
            finite_in(
                m.capture_db.unwrap_or(10.0),
                -50.0,
                100.0,
                format!("{p}.capture_db"),
            )? / 10.0,
        ),
        noise_w,
        reception,
        preamble_snr: 10f64.powf(
            finite_in(
                m.preamble_snr_db.unwrap_or(ps.preamble_snr_db),
                -50.0,
                100.0,
                format!("{p}.preamble_snr_db"),
            )? / 10.0,
        ),
        cca_ed_w,
        ofdm,
        post_backoff: m.access.unwrap_or(ps.access) == AccessKind::Ns3,
        rate_control,
        rates,
    };
    if let RateControl::Minstrel(_) = params.rate_control {
        params.rate_control = RateControl::Minstrel(minstrel_rates(&params));
    }
    Ok((params, model))
}

/// The medium's rate manager and the rates it picks from (the standard's set up to `rate`).
fn rate_control(
    m: &MediumSpec,
    data_rate: u64,
    ofdm: bool,
    reception: Reception,
    p: &str,
) -> R<(RateControl, Vec<u64>)> {
    let Some(spec) = &m.rate_control else {
        return Ok((RateControl::Constant, vec![data_rate]));
    };
    let p = format!("{p}.rate_control");
    if spec.ber.is_some() && spec.manager != RateManagerKind::Ideal {
        return err(format!("{p}.ber"), "only the ideal manager takes `ber`");
    }
    if spec.manager == RateManagerKind::Constant {
        return Ok((RateControl::Constant, vec![data_rate]));
    }
    // Only the sinr reception makes a frame's fate depend on its rate.
    if reception != Reception::Sinr {
        return err(
            format!("{p}.manager"),
            "rate adaptation needs the sinr reception (set `reception = \"sinr\"`)",
        );
    }
    let rates = rate_set(
        ofdm || WifiMode::from_rate(data_rate).is_some_and(|md| md.is_ofdm()),
        data_rate,
    );
    if rates.last() != Some(&data_rate) {
        return err(
            format!("{p}.manager"),
            format!("the medium's rate ({data_rate} bps) is not a rate the manager can pick"),
        );
    }
    let rc = match spec.manager {
        RateManagerKind::Constant => unreachable!("handled above"),
        RateManagerKind::Arf => RateControl::arf(),
        RateManagerKind::Aarf => RateControl::aarf(),
        // Its per-rate times need the medium's timing: filled in by `minstrel_rates`.
        RateManagerKind::Minstrel => RateControl::Minstrel(MinstrelRates {
            attempt: Vec::new(),
            retries: Vec::new(),
        }),
        RateManagerKind::Ideal => {
            let ber = spec.ber.unwrap_or(1e-6);
            if !(ber > 0.0 && ber < 0.5) {
                return err(
                    format!("{p}.ber"),
                    format!("must be in (0, 0.5), got {ber}"),
                );
            }
            RateControl::ideal(&rates, ber)
        }
    };
    Ok((rc, rates))
}

/// Minstrel's per-rate constants: one attempt is a 1200-byte packet's data frame, SIFS and
/// the ACK it gets (ns-3's `MinstrelWifiManager` times a 1200-byte frame too).
fn minstrel_rates(p: &WifiParams) -> MinstrelRates {
    let attempt = p
        .rates
        .iter()
        .map(|&r| p.data_time_at(1200, r) + p.sifs + p.ack_time_for(r))
        .collect();
    MinstrelRates::new(attempt, p.slot, p.cw_min, p.cw_max)
}

/// The medium's fading, checked, with the carrier frequency the Doppler shift of a speed
/// needs.
pub(super) fn fading(m: &MediumSpec, freq_hz: f64, p: &str) -> R<Option<Fading>> {
    let Some(f) = &m.fading else { return Ok(None) };
    let p = format!("{p}.fading");
    let kind = match f.model {
        FadingModel::Rayleigh => FadingKind::Rayleigh,
        FadingModel::Rician => {
            let Some(k) = f.k_db else {
                return err(
                    format!("{p}.k_db"),
                    "a rician model needs its K factor (dB)",
                );
            };
            FadingKind::Rician(10f64.powf(finite_in(k, -50.0, 50.0, format!("{p}.k_db"))? / 10.0))
        }
        FadingModel::Nakagami => {
            let m = finite_in(f.m.unwrap_or(1.0), 0.5, 50.0, format!("{p}.m"))?;
            if ((2.0 * m).round() - 2.0 * m).abs() > 1e-9 {
                return err(
                    format!("{p}.m"),
                    format!("must be a multiple of 0.5, got {m}"),
                );
            }
            FadingKind::Nakagami(m)
        }
    };
    if f.k_db.is_some() && f.model != FadingModel::Rician {
        return err(format!("{p}.k_db"), "only the rician model takes `k_db`");
    }
    if f.m.is_some() && f.model != FadingModel::Nakagami {
        return err(format!("{p}.m"), "only the nakagami model takes `m`");
    }
    let given = [
        f.doppler_hz.is_some(),
        f.speed.is_some(),
        f.coherence_time.is_some(),
    ];
    if given.iter().filter(|&&g| g).count() > 1 {
        return err(
            format!("{p}.doppler_hz"),
            "give one of `doppler_hz`, `speed`, `coherence_time`",
        );
    }
    let doppler_hz = if let Some(d) = f.doppler_hz {
        finite_in(d, 0.0, 1e6, format!("{p}.doppler_hz"))?
    } else if let Some(v) = f.speed {
        finite_in(v, 0.0, 1e4, format!("{p}.speed"))? * freq_hz / radio::C
    } else if let Some(t) = f.coherence_time {
        if t.ns() == 0 {
            return err(format!("{p}.coherence_time"), "must be positive");
        }
        0.423 / (t.ns() as f64 * 1e-9)
    } else {
        0.0
    };
    Ok(Some(Fading { kind, doppler_hz }))
}

/// Each preset's values of the keys it sets, as text for the key listing (`airtcp params
/// media`): (preset name, [(key, value)]). The key table's rows whose default is "preset" are
/// exactly these keys (checked in `params_check`).
pub fn preset_values() -> Vec<(String, Vec<(&'static str, String)>)> {
    let presets = [
        WifiPreset::Ns2,
        WifiPreset::Dot11b,
        WifiPreset::Ns3,
        WifiPreset::Dot11g,
    ];
    let name = |v: serde_json::Value| v.as_str().unwrap_or("?").to_string();
    let mbps = |r: f64| format!("{}Mbps", r / 1e6);
    let dbm = |d: f64| format!("{}", (d * 100.0).round() / 100.0);
    let opt = |d: Option<f64>| d.map_or("none".to_string(), dbm);
    presets
        .into_iter()
        .map(|p| {
            let s = preset(p);
            let values = vec![
                ("rate", mbps(s.rate)),
                ("basic_rate", mbps(s.basic)),
                (
                    "ack_rate",
                    if s.ack_rule {
                        "mandatory <= rate".to_string()
                    } else {
                        "basic_rate".to_string()
                    },
                ),
                ("propagation", name(serde_json::json!(s.prop))),
                ("frequency_hz", format!("{:e}", s.freq)),
                ("tx_power_dbm", dbm(s.tx_dbm)),
                ("rx_threshold_dbm", dbm(s.rx_dbm)),
                ("cs_threshold_dbm", dbm(s.cs_dbm)),
                ("noise_dbm", opt(s.noise_dbm)),
                ("noise_figure_db", opt(s.noise_figure_db)),
                ("reception", name(serde_json::json!(s.reception))),
                ("rx_sensitivity_dbm", opt(s.rx_sensitivity_dbm)),
                ("cca_ed_threshold_dbm", opt(s.cca_ed_dbm)),
                ("slot", format!("{}us", s.slot_us)),
                ("plcp", format!("{}us", s.plcp_us)),
                ("cw_min", s.cw_min.to_string()),
                ("rts_threshold", s.rts_threshold.to_string()),
                ("long_retry_limit", s.long_retry.to_string()),
                ("mac_overhead", s.mac_overhead.to_string()),
                ("access", name(serde_json::json!(s.access))),
            ];
            (name(serde_json::to_value(p).expect("serializes")), values)
        })
        .collect()
}
