//! Captures for margin trends and link drops traced to a lane,
//! built on the generator in `captures.rs` (same modules, same counters). Every expected
//! figure in tests/trend.rs follows from the constants here.
//!
//! Margin model (physics.md; PAM4, RS(544,514) limit 2.4e-4): a lane's margin m (dB) sets
//! its eye distance x = x_limit · 10^(m/10) with x_limit the x of the limit
//! (0.75·Q(x_limit) = 2.4e-4, x_limit = 3.41407), its BER = 0.75·Q(x), Q(x) = ½·erfc(x/√2),
//! and its corrected bits over an interval dt = round(BER x lane rate x dt).

use super::captures::*;
use statrs::function::erf::{erfc, erfc_inv};

/// RS(544,514) pre-FEC BER limit (IEEE 802.3 Clause 91/119 as physics.md gives it).
pub const RS544_LIMIT: f64 = 2.4e-4;

/// The degrading capture: 4 h sampled every 10 s (1441 samples).
pub const DEGRADE_SPAN_S: f64 = 4.0 * 3600.0;
pub const DEGRADE_STEP_S: f64 = 10.0;
/// Lane 2 starts at 1.6 dB and loses 0.1 dB/h: 1.2 dB at the end of the capture, 0.2 dB
/// above the 1.0 dB floor (2 h away) and 1.2 dB above the limit (12 h away).
pub const DEGRADING_LANE: usize = 2;
pub const DEGRADE_M0_DB: f64 = 1.6;
pub const DEGRADE_RATE_DB_PER_H: f64 = 0.1;
/// The other lanes hold a steady margin (dB).
pub const STEADY_MARGIN_DB: [f64; 4] = [2.5, 0.0, 2.4, 2.6];
/// Each interval's margin wobbles uniformly within ±this (dB), zero mean: the fit's
/// interval has something to measure, and steady lanes have no trend of their own.
pub const WOBBLE_DB: f64 = 0.05;

/// x with 0.75·Q(x) = ber (PAM4).
pub fn x_of_ber(ber: f64) -> f64 {
    std::f64::consts::SQRT_2 * erfc_inv(2.0 * ber / 0.75)
}

/// PAM4 BER of a lane at margin `m_db` over the RS(544,514) limit.
pub fn pam4_ber_at_margin(m_db: f64) -> f64 {
    let x = x_of_ber(RS544_LIMIT) * 10f64.powf(m_db / 10.0);
    0.75 * 0.5 * erfc(x / std::f64::consts::SQRT_2)
}

/// Margin of lane `lane` (1-based) at `t` seconds, before the wobble.
pub fn degrade_margin_db(lane: usize, t: f64) -> f64 {
    if lane == DEGRADING_LANE {
        DEGRADE_M0_DB - DEGRADE_RATE_DB_PER_H * t / 3600.0
    } else {
        STEADY_MARGIN_DB[lane - 1]
    }
}

pub fn degrading_capture() -> String {
    let port = dr4_400g_port();
    let mut rng = Rng::new(41);
    let mut records = vec![header(), port.interface_record(0.0)];
    let mut c = Counters::<4> { lanes: [5_000_000; 4], ..Default::default() };
    let n = (DEGRADE_SPAN_S / DEGRADE_STEP_S) as usize;
    for i in 0..=n {
        let t = i as f64 * DEGRADE_STEP_S;
        if i > 0 {
            let mut added = 0;
            for (k, count) in c.lanes.iter_mut().enumerate() {
                // The interval's margin at its mid time.
                let m = degrade_margin_db(k + 1, t - DEGRADE_STEP_S / 2.0) + WOBBLE_DB * rng.sym();
                let bits = (pam4_ber_at_margin(m) * LANE_GBPS_100G_PAM4 * 1e9 * DEGRADE_STEP_S).round() as u64;
                *count += bits;
                added += bits;
            }
            c.corrected_blocks += (added as f64 / 1.25).round() as u64;
        }
        records.push(port.sample_record(t, &c, &mut rng));
    }
    to_jsonl(&records)
}

/// The drop capture: 200GBASE-SR4 (4 x 53.125 Gb/s PAM4), 20 min at 1 s.
pub const DROP_SPAN_S: u64 = 1200;
/// The link drops once, counted at the sample at t = 900 s.
pub const DROP_T_S: u64 = 900;
/// Every lane at 1,062.5 corrected bits/s (BER 2e-8 at 53.125 Gb/s) ±5%; lane 3 at 40x
/// that (BER 8e-7) from t = 600 s, the 5 min before the drop, and after it.
pub const DROP_BASE_BITS_PER_S: f64 = 1_062.5;
pub const DROP_LANE: usize = 3;
pub const DROP_RISE: f64 = 40.0;
pub const DROP_RISE_FROM_S: u64 = 600;

pub fn drop_capture() -> String {
    let mut port = cx7_port("ens3np0", sr4_200g("MT2430FT0815", [-1.1, -1.2, -1.15, -1.2]), [DROP_BASE_BITS_PER_S; 4]);
    let mut rng = Rng::new(42);
    let mut records = vec![header(), interface_record(0.0, &port)];
    let mut c = Counters::<4> { lanes: [2_000_000; 4], ..Default::default() };
    for t in 0..=DROP_SPAN_S {
        if t > 0 {
            let mut added = 0;
            for (k, count) in c.lanes.iter_mut().enumerate() {
                let rate = if k + 1 == DROP_LANE && t > DROP_RISE_FROM_S { DROP_BASE_BITS_PER_S * DROP_RISE } else { DROP_BASE_BITS_PER_S };
                let bits = (rate * (1.0 + 0.05 * rng.sym())).round() as u64;
                *count += bits;
                added += bits;
            }
            c.corrected_blocks += (added as f64 / 1.25).round() as u64;
        }
        if t == DROP_T_S {
            port.down_events += 1;
        }
        records.push(sample_record(t as f64, &port, &c, &mut rng));
    }
    to_jsonl(&records)
}

/// The captures bundled in `captures/` from this file.
pub fn bundled() -> Vec<(&'static str, String)> {
    vec![("dr4-400g-lane2-degrading-4h.jsonl", degrading_capture()), ("sr4-200g-drop-after-lane3-rise.jsonl", drop_capture())]
}
