//! A link that came back worse after a flap (`degraded_after_flap`): after each link drop
//! in the window's per-lane series, each lane's pre-FEC BER after the drop against its BER
//! before it.
//!
//! Why: a link can return to oper-up after a flap with its pre-FEC BER about an order of
//! magnitude worse (~1e-10 to ~1e-8), every other check still passing: some LPO and AOC
//! optics send a poor transient when their transmitter comes back, and the far-end receiver
//! adapts to it (SONiC's transceiver system test plan, "Pre-FEC BER Guard after link flap",
//! sonic-net/sonic-mgmt pull request 26555, 2026). So a rise of `flap_ber_rise_ratio`
//! (default 10, that order of magnitude) is the threshold.
//!
//! Per drop, from the window's series buckets ([`super::series`]):
//! - the drop's bucket is left out (it holds the retraining and whatever the lane counted
//!   while down); "before" is every bucket since the previous drop's bucket (or the series'
//!   start), "after" every bucket up to the next drop's bucket (or the series' end);
//! - a lane's BER on each side is its corrected bits over its bits on the wire there (the
//!   denominator of every window BER: the driver's rx_bits split per lane, else lane rate x
//!   time); the rise is BER after / BER before, the before side's errors counted at least
//!   1 (a lane clean before gets a finite, conservative rise);
//! - the rise is significant when the one-sided conditional test rejects "no rise": given
//!   N = errors before + after, the errors after are Binomial(N, q) under equal rates, q =
//!   bits after / all bits; p = P(X >= errors after) (exact up to N = 10,000, else the normal
//!   approximation with continuity correction), compared with 1 − `confidence`;
//! - it holds when the later half of the after buckets (by count, rounded up) also rose by
//!   the ratio: a transient that settles is not a lane that came back worse. Fewer than
//!   two buckets after the drop: not judged yet.

use super::series::LaneSeries;
use super::verdict::{Reason, ReasonCode, Severity};
use super::{Context, LaneAnalysis};
use serde::Serialize;
use statrs::function::erf::erfc;
use std::ops::Range;

/// One lane on both sides of a drop.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct LaneAfterFlap {
    pub(crate) lane: u8,
    pub(crate) corrected_bits_before: u64,
    pub(crate) corrected_bits_after: u64,
    pub(crate) pre_fec_ber_before: f64,
    pub(crate) pre_fec_ber_after: f64,
    /// BER after / BER before, the errors before counted at least 1.
    pub(crate) rise: f64,
    /// The same over the later half of the after buckets.
    pub(crate) rise_late: f64,
    /// One-sided p-value of "no rise".
    pub(crate) p_value: f64,
    /// Rose by `flap_ber_rise_ratio` or more, significantly, and held.
    pub(crate) degraded: bool,
}

/// JSON `after_flap[]`: one link drop of the window and its lanes (keys are a contract).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FlapComparison {
    /// When the drop was counted (seconds since capture start: the sample that saw it).
    pub(crate) drop_t_s: f64,
    /// Seconds of sampled intervals compared before and after.
    pub(crate) before_s: f64,
    pub(crate) after_s: f64,
    pub(crate) lanes: Vec<LaneAfterFlap>,
}

/// Counts past which the exact binomial tail gives way to the normal approximation.
const EXACT_MAX: u64 = 10_000;

/// P(X >= k), X ~ Binomial(n, q).
fn binomial_upper_tail(k: u64, n: u64, q: f64) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n || q <= 0.0 {
        return 0.0;
    }
    if q >= 1.0 {
        return 1.0;
    }
    if n <= EXACT_MAX {
        // Term by term from k up, in log space (C(n, j) by ln-gamma).
        let ln = |j: u64| {
            let (j, n) = (j as f64, n as f64);
            statrs::function::gamma::ln_gamma(n + 1.0)
                - statrs::function::gamma::ln_gamma(j + 1.0)
                - statrs::function::gamma::ln_gamma(n - j + 1.0)
                + j * q.ln()
                + (n - j) * (-q).ln_1p()
        };
        return (k..=n).map(|j| ln(j).exp()).sum::<f64>().min(1.0);
    }
    let (n, k) = (n as f64, k as f64);
    let sd = (n * q * (1.0 - q)).sqrt();
    let z = (k - 0.5 - n * q) / sd;
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// Errors and bits of lane `idx` over the buckets `range` of `series`.
fn sums(series: &LaneSeries, range: Range<usize>, idx: usize, gbps: f64, lanes: u32) -> Option<(u64, f64)> {
    let mut any = false;
    let (mut e, mut b) = (0u64, 0.0f64);
    for k in range {
        if let Some(bits) = series.corrected_bits(k, idx) {
            any = true;
            e = e.saturating_add(bits);
            b += series.buckets()[k].lane_bits_on_wire(gbps, lanes);
        }
    }
    (any && b > 0.0).then_some((e, b))
}

/// Every drop in `series` compared, lane by lane.
pub(crate) fn compare(series: &LaneSeries, gbps: f64, lanes: u32, ratio: f64, confidence: f64) -> Vec<FlapComparison> {
    let buckets = series.buckets();
    let drops: Vec<usize> = (0..buckets.len()).filter(|&i| buckets[i].link_down_events > 0).collect();
    let width = series.width().min(usize::from(u8::MAX));
    let mut out = Vec::new();
    for (j, &d) in drops.iter().enumerate() {
        let from = if j == 0 { 0 } else { drops[j - 1] + 1 };
        let to = drops.get(j + 1).copied().unwrap_or(buckets.len());
        let (before, after) = (from..d, d + 1..to);
        if before.is_empty() || after.len() < 2 {
            continue;
        }
        let late = after.start + after.len() / 2..after.end;
        let drop_t_s = series.bucket_link_down_t(d).first().copied().unwrap_or(buckets[d].t_end);
        let lanes_cmp: Vec<LaneAfterFlap> = (0..width)
            .filter_map(|idx| {
                let (eb, bb) = sums(series, before.clone(), idx, gbps, lanes)?;
                let (ea, ba) = sums(series, after.clone(), idx, gbps, lanes)?;
                let (el, bl) = sums(series, late.clone(), idx, gbps, lanes)?;
                let floor = eb.max(1) as f64 / bb;
                let rise = ea as f64 / ba / floor;
                let rise_late = el as f64 / bl / floor;
                let p_value = binomial_upper_tail(ea, ea.saturating_add(eb), ba / (ba + bb));
                Some(LaneAfterFlap {
                    // width <= 255, so idx + 1 fits a u8.
                    lane: u8::try_from(idx + 1).unwrap_or(u8::MAX),
                    corrected_bits_before: eb,
                    corrected_bits_after: ea,
                    pre_fec_ber_before: eb as f64 / bb,
                    pre_fec_ber_after: ea as f64 / ba,
                    rise,
                    rise_late,
                    p_value,
                    degraded: rise >= ratio && rise_late >= ratio && p_value < 1.0 - confidence,
                })
            })
            .collect();
        if lanes_cmp.is_empty() {
            continue;
        }
        let secs = |r: Range<usize>| buckets[r].iter().map(|b| b.duration_s).sum::<f64>();
        out.push(FlapComparison { drop_t_s, before_s: secs(before), after_s: secs(after), lanes: lanes_cmp });
    }
    out
}

/// The window's drops compared, and `degraded_after_flap` (investigate) for each lane that
/// came back worse, naming the drop and both BERs.
pub(super) fn judge(cx: &Context, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) -> Vec<FlapComparison> {
    let (Some(rate), Some(series)) = (cx.rate.as_ref(), cx.w.series.as_deref()) else { return Vec::new() };
    if !cx.ber_possible() {
        return Vec::new();
    }
    let flaps = compare(series, rate.lane_rate_gbps, rate.lanes, cx.cfg.flap_ber_rise_ratio, cx.cfg.confidence);
    for f in &flaps {
        for l in f.lanes.iter().filter(|l| l.degraded) {
            let n = l.lane;
            let msg = format!(
                "lane {n}: pre-FEC BER {:.1e} since the link came back from the drop at t={} s, {:.0}x the {:.1e} before it (p {}), still {:.0}x in the later half of the {} after it",
                l.pre_fec_ber_after,
                f.drop_t_s,
                l.rise,
                l.pre_fec_ber_before,
                p_text(l.p_value),
                l.rise_late,
                super::trend::humane_duration(f.after_s).trim_start_matches("about "),
            );
            reasons.push(Reason::new(ReasonCode::DegradedAfterFlap, Severity::Investigate, Some(n), msg));
            if let Some(la) = lanes.iter_mut().find(|la| la.lane == n) {
                if !la.flags.contains(&ReasonCode::DegradedAfterFlap) {
                    la.flags.push(ReasonCode::DegradedAfterFlap);
                }
            }
        }
    }
    flaps
}

fn p_text(p: f64) -> String {
    if p < 1e-12 {
        "< 1e-12".into()
    } else {
        format!("{p:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::series::Interval;

    #[test]
    fn binomial_tail_exact_and_normal() {
        // X ~ Bin(4, 0.25): P(X >= 4) = 0.25^4 = 1/256; P(X >= 3) = 4 x 0.25^3 x 0.75 + 1/256 = 13/256.
        assert!((binomial_upper_tail(4, 4, 0.25) - 1.0 / 256.0).abs() < 1e-12);
        assert!((binomial_upper_tail(3, 4, 0.25) - 13.0 / 256.0).abs() < 1e-12);
        assert_eq!(binomial_upper_tail(0, 4, 0.25), 1.0);
        // Bin(1e6, 0.5): mean 5e5, sd 500; P(X >= 501,000.5 - 0.5 ...) at z = (501,000 - 0.5 - 500,000) / 500 = 1.999:
        // Q(1.999) = 0.02281.
        let p = binomial_upper_tail(501_000, 1_000_000, 0.5);
        assert!((p - 0.022_81).abs() < 2e-5, "{p}");
    }

    /// 4 lanes at 1 Gb/s, 60 one-second intervals per side of a drop counted at t = 60 s;
    /// lane 2 at `after` bits/s after it, every lane at 10 bits/s otherwise.
    fn series(after: u64) -> LaneSeries {
        let mut s = LaneSeries::new(512);
        for i in 0..121u32 {
            let bits: Vec<u64> = (1..=4).map(|l| if l == 2 && i > 60 { after } else { 10 }).collect();
            s.push(&Interval {
                t_start: f64::from(i),
                t_end: f64::from(i + 1),
                corrected_bits_per_lane: Some(&bits),
                link_down_events: u64::from(i == 60),
                ..Default::default()
            });
        }
        s
    }

    #[test]
    fn a_lane_thirty_times_worse_after_the_drop_is_degraded() {
        // Before: intervals 0..=59, 600 bits over 60 s x 1e9 = BER 1e-8 on each lane. The drop's
        // interval (60) is left out; after: 61..=120, lane 2 at 300 bits/s = BER 3e-7, 30x.
        let f = compare(&series(300), 1.0, 4, 10.0, 0.95);
        assert_eq!(f.len(), 1);
        assert_eq!((f[0].drop_t_s, f[0].before_s, f[0].after_s), (61.0, 60.0, 60.0));
        let l2 = &f[0].lanes[1];
        assert_eq!((l2.corrected_bits_before, l2.corrected_bits_after), (600, 18_000));
        assert!((l2.pre_fec_ber_before - 1e-8).abs() < 1e-20 && (l2.pre_fec_ber_after - 3e-7).abs() < 1e-18);
        assert!((l2.rise - 30.0).abs() < 1e-9 && (l2.rise_late - 30.0).abs() < 1e-9);
        assert!(l2.degraded && l2.p_value < 1e-12);
        assert!(f[0].lanes.iter().filter(|l| l.lane != 2).all(|l| !l.degraded && (l.rise - 1.0).abs() < 1e-9));
    }

    #[test]
    fn an_unchanged_lane_and_a_rise_under_the_ratio_are_not() {
        assert!(compare(&series(10), 1.0, 4, 10.0, 0.95)[0].lanes.iter().all(|l| !l.degraded));
        // 9x: significant, but under the ratio.
        let f = compare(&series(90), 1.0, 4, 10.0, 0.95);
        assert!((f[0].lanes[1].rise - 9.0).abs() < 1e-9 && !f[0].lanes[1].degraded);
    }
}
