//! Captures of a link that flapped once and came back (`degraded_after_flap`), on the
//! generator in `captures.rs` (same module, same mlx5-style counters). Every expected figure
//! in tests/it/after_flap.rs follows from the constants here.
//!
//! The case (sonic-net/sonic-mgmt pull request 26555, "Pre-FEC BER Guard after link flap"):
//! a link returns to oper-up after a flap while its pre-FEC BER is about an order of
//! magnitude worse, some LPO/AOC optics sending a poor transient as their transmitter comes
//! back, to which the far-end receiver adapts. Here: 200GBASE-SR4 (4 x 53.125 Gb/s PAM4,
//! RS(544,514)), 30 min at 1 s, one link drop counted at t = 600 s, the link up at every
//! sample (the drop is shorter than the sampling interval). Every lane at 1,062.5 corrected
//! bits/s (BER 1,062.5 / 53.125e9 = 2e-8) ±5%; in the degraded capture lane 2 at 30x that
//! (BER 6e-7) from the drop on, still 100x under the RS(544,514) limit 2.4e-4.

use super::captures::*;

pub const FLAP_SPAN_S: u64 = 1800;
pub const FLAP_T_S: u64 = 600;
pub const FLAP_BASE_BITS_PER_S: f64 = 1_062.5;
pub const FLAP_LANE: usize = 2;
pub const FLAP_RISE: f64 = 30.0;

/// The port with lane `FLAP_LANE` at `rise` x the base rate after the drop.
pub fn after_flap_capture(rise: f64) -> String {
    let mut port = cx7_port("ens3np0", sr4_200g("MT2430FT0977", [-1.1, -1.15, -1.2, -1.1]), [FLAP_BASE_BITS_PER_S; 4]);
    let mut rng = Rng::new(43);
    let mut records = vec![header(), interface_record(0.0, &port)];
    let mut c = Counters::<4> { lanes: [2_000_000; 4], ..Default::default() };
    for t in 0..=FLAP_SPAN_S {
        if t > 0 {
            let mut added = 0;
            for (k, count) in c.lanes.iter_mut().enumerate() {
                // The interval ending at the drop's sample is the link's retraining: no rise yet.
                let rate = if k + 1 == FLAP_LANE && t > FLAP_T_S { FLAP_BASE_BITS_PER_S * rise } else { FLAP_BASE_BITS_PER_S };
                let bits = (rate * (1.0 + 0.05 * rng.sym())).round() as u64;
                *count += bits;
                added += bits;
            }
            c.corrected_blocks += (added as f64 / 1.25).round() as u64;
        }
        if t == FLAP_T_S {
            port.down_events += 1;
        }
        records.push(sample_record(t as f64, &port, &c, &mut rng));
    }
    to_jsonl(&records)
}

/// The captures bundled in `captures/` from this file.
pub fn bundled() -> Vec<(&'static str, String)> {
    vec![
        ("sr4-200g-worse-after-flap.jsonl", after_flap_capture(FLAP_RISE)),
        ("sr4-200g-unchanged-after-flap.jsonl", after_flap_capture(1.0)),
    ]
}
