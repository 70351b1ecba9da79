//! Captures for the judgement window of `serve` (what a daemon says now, not since start),
//! built on the generators in `captures.rs` and `trend_captures.rs`. Every expected figure
//! in tests/it/serve_judge_window.rs follows from the constants here.

use super::captures::*;
use super::trend_captures::{pam4_ber_at_margin, DROP_BASE_BITS_PER_S};
use serde_json::Value;

/// The flap capture: 200GBASE-SR4, healthy (every lane at BER 2e-8: 1,062.5 corrected bits/s
/// at 53.125 Gb/s), sampled every 10 s for 31 min; one link-down event counted at t = 30 s.
pub const FLAP_STEP_S: u64 = 10;
pub const FLAP_SPAN_S: u64 = 31 * 60;
pub const FLAP_T_S: u64 = 30;

pub fn flap_capture() -> String {
    let mut port = cx7_port("ens3np0", sr4_200g("MT2430FT0815", [-1.1, -1.2, -1.15, -1.2]), [DROP_BASE_BITS_PER_S; 4]);
    let mut rng = Rng::new(43);
    let mut records = vec![header(), interface_record(0.0, &port)];
    let mut c = Counters::<4> { lanes: [2_000_000; 4], ..Default::default() };
    for t in (0..=FLAP_SPAN_S).step_by(FLAP_STEP_S as usize) {
        if t > 0 {
            c.advance(&[DROP_BASE_BITS_PER_S; 4], FLAP_STEP_S as f64, &mut rng);
        }
        if t == FLAP_T_S {
            port.down_events += 1;
        }
        records.push(sample_record(t as f64, &port, &c, &mut rng));
    }
    to_jsonl(&records)
}

/// The late-degrading capture: 400GBASE-DR4 (CMIS, per-lane corrected bits), 2 h at 10 s.
/// Lanes 1, 3, 4 hold 2.5, 2.4, 2.6 dB of margin throughout; lane 2 holds 2.4 dB until
/// [`LATE_FROM_S`] (the last 20 min), then falls linearly to [`LATE_END_MARGIN_DB`] at the
/// end, and its received light with it (by [`LATE_RX_DROP_DB`]).
pub const LATE_STEP_S: f64 = 10.0;
pub const LATE_SPAN_S: f64 = 2.0 * 3600.0;
pub const LATE_FROM_S: f64 = LATE_SPAN_S - 20.0 * 60.0;
pub const LATE_LANE: usize = 2;
pub const LATE_START_MARGIN_DB: f64 = 2.4;
pub const LATE_END_MARGIN_DB: f64 = 0.4;
pub const LATE_STEADY_DB: [f64; 4] = [2.5, LATE_START_MARGIN_DB, 2.4, 2.6];
pub const LATE_RX_DBM: f64 = -1.3;
pub const LATE_RX_DROP_DB: f64 = 1.0;

/// How far lane 2's fall has gone at `t` (0 before [`LATE_FROM_S`], 1 at the end).
pub fn late_progress(t: f64) -> f64 {
    ((t - LATE_FROM_S) / (LATE_SPAN_S - LATE_FROM_S)).clamp(0.0, 1.0)
}

/// Lane `lane`'s (1-based) margin at `t`.
pub fn late_margin_db(lane: usize, t: f64) -> f64 {
    if lane == LATE_LANE {
        LATE_START_MARGIN_DB - (LATE_START_MARGIN_DB - LATE_END_MARGIN_DB) * late_progress(t)
    } else {
        LATE_STEADY_DB[lane - 1]
    }
}

/// Corrected bits of lane `lane` over the interval ending at `t` (the margin at its mid time).
pub fn late_interval_bits(lane: usize, t: f64) -> u64 {
    let m = late_margin_db(lane, t - LATE_STEP_S / 2.0);
    (pam4_ber_at_margin(m) * LANE_GBPS_100G_PAM4 * 1e9 * LATE_STEP_S).round() as u64
}

pub fn late_capture() -> String {
    let mut port = dr4_400g_port();
    let mut rng = Rng::new(44);
    let mut records = vec![header(), port.interface_record(0.0)];
    let mut c = Counters::<4> { lanes: [5_000_000; 4], ..Default::default() };
    let n = (LATE_SPAN_S / LATE_STEP_S) as usize;
    for i in 0..=n {
        let t = i as f64 * LATE_STEP_S;
        if i > 0 {
            let mut added = 0;
            for (k, count) in c.lanes.iter_mut().enumerate() {
                let bits = late_interval_bits(k + 1, t);
                *count += bits;
                added += bits;
            }
            c.corrected_blocks += (added as f64 / 1.25).round() as u64;
        }
        port.module.rx_dbm[LATE_LANE - 1] = LATE_RX_DBM - LATE_RX_DROP_DB * late_progress(t);
        records.push(port.sample_record(t, &c, &mut rng));
    }
    to_jsonl(&records)
}

/// Rx power (dBm) of media lane `lane` (1-based) in a CMIS sample record's page 11h bytes:
/// CMIS 5.2 Table 8-82, Rx power lane N at bytes 186 + 2(N-1), U16 in 0.1 uW.
pub fn cmis_sample_rx_dbm(sample: &Value, lane: usize) -> Option<f64> {
    let pages = sample["module"]["pages"].as_array()?;
    let p11 = pages.iter().find(|p| p["page"] == 0x11)?;
    let offset = p11["offset"].as_u64()? as usize;
    let data = hex::decode(p11["data"].as_str()?).ok()?;
    let at = 186 + 2 * (lane - 1) - offset;
    let word = u16::from_be_bytes([*data.get(at)?, *data.get(at + 1)?]);
    Some(10.0 * (f64::from(word) * 1e-4).log10())
}
