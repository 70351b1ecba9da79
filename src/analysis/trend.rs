//! Where a lane is heading: the slope of its margin over time, when it will reach the
//! margin floor and the FEC limit, and which lane moved before a link
//! drop. Pure functions over short bounded series (the engine's per-lane
//! buckets), so they cost the same on a 10-minute capture and on a month of `serve`.
//!
//! Margin slope: ordinary least squares of margin (dB) on time over the buckets that
//! measured errors (a bucket without errors only bounds its margin from below, and would
//! pull a falling lane's line up). The interval is the two-sided Student-t interval of the
//! slope at the analysis confidence: se = sqrt(SSE / (n - 2) / Sxx). A lane is *falling*
//! when the whole interval is below zero; only then are times to the floor and to the
//! FEC limit (margin 0 dB) predicted, from the fitted margin at the last point.

use super::stats::line_fit;
use serde::Serialize;
use statrs::distribution::{ContinuousCDF, StudentsT};

/// Fewer points than this give no trend (the t interval needs n - 2 >= 1; a handful more
/// keeps one noisy bucket from deciding).
pub(crate) const MIN_TREND_POINTS: usize = 6;

/// One bucket's margin at its mid time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarginPoint {
    pub(crate) t_s: f64,
    pub(crate) margin_db: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct MarginTrend {
    pub(crate) slope_db_per_h: f64,
    /// Two-sided interval at the analysis confidence.
    pub(crate) slope_ci_db_per_h: [f64; 2],
    pub(crate) points: usize,
    pub(crate) span_s: f64,
    /// Fitted margin at the last point.
    pub(crate) margin_now_db: f64,
    /// True when the whole interval is below zero.
    pub(crate) falling: bool,
    /// Seconds from the last point until the fitted line reaches the floor (0 when it is
    /// already below); `None` unless falling.
    pub(crate) time_to_floor_s: Option<f64>,
    /// Seconds until margin 0 dB, the FEC limit; `None` unless falling.
    pub(crate) time_to_fec_limit_s: Option<f64>,
}

/// The margin trend of one lane, or `None` with too few points or too short a span.
pub(crate) fn margin_trend(points: &[MarginPoint], floor_db: f64, confidence: f64, min_span_s: f64) -> Option<MarginTrend> {
    let pts: Vec<(f64, f64)> =
        points.iter().filter(|p| p.t_s.is_finite() && p.margin_db.is_finite()).map(|p| (p.t_s, p.margin_db)).collect();
    let n = pts.len();
    if n < MIN_TREND_POINTS {
        return None;
    }
    let (t_first, t_last) = pts.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let span_s = t_last - t_first;
    if !(span_s >= min_span_s && span_s > 0.0) {
        return None;
    }
    let (slope_per_s, intercept) = match line_fit(&pts) {
        Some(f) => (f.slope, f.intercept),
        // Every margin equal: a flat line, known exactly.
        None => (0.0, pts[0].1),
    };
    let mean_t = pts.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mean_t).powi(2)).sum();
    let sse: f64 = pts.iter().map(|p| (p.1 - (intercept + slope_per_s * p.0)).powi(2)).sum();
    let se = (sse / (n - 2) as f64 / sxx).sqrt();
    let c = if confidence.is_finite() { confidence.clamp(0.5, 1.0 - 1e-9) } else { 0.95 };
    // n >= 6, so the degrees of freedom are positive and StudentsT::new cannot fail.
    let t_q = StudentsT::new(0.0, 1.0, (n - 2) as f64).map(|d| d.inverse_cdf(0.5 + c / 2.0)).unwrap_or(f64::NAN);
    let (lo, hi) = (slope_per_s - t_q * se, slope_per_s + t_q * se);
    let margin_now_db = intercept + slope_per_s * t_last;
    let falling = hi < 0.0;
    let until = |level: f64| falling.then(|| ((margin_now_db - level) / -slope_per_s).max(0.0));
    Some(MarginTrend {
        slope_db_per_h: slope_per_s * 3600.0,
        slope_ci_db_per_h: [lo * 3600.0, hi * 3600.0],
        points: n,
        span_s,
        margin_now_db,
        falling,
        time_to_floor_s: until(floor_db),
        time_to_fec_limit_s: until(0.0),
    })
}

/// "about 9 h", "about 40 min", "about 2.5 days": a prediction, so two figures at most.
pub(crate) fn humane_duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("about {:.0} s", seconds.max(0.0))
    } else if seconds < 90.0 * 60.0 {
        format!("about {:.0} min", seconds / 60.0)
    } else if seconds < 48.0 * 3600.0 {
        let h = seconds / 3600.0;
        // One decimal below 10 h, unless it is .0 ("about 9 h", "about 2.5 h").
        if h < 10.0 && (h * 10.0).round() % 10.0 != 0.0 {
            format!("about {h:.1} h")
        } else {
            format!("about {h:.0} h")
        }
    } else {
        format!("about {:.1} days", seconds / 86_400.0)
    }
}

/// Corrected bits of one lane over one interval, with the bits the lane carried then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LaneInterval {
    pub(crate) t_start_s: f64,
    pub(crate) t_end_s: f64,
    pub(crate) errors: u64,
    pub(crate) bits: f64,
}

/// The lane whose BER rose most in the `lookback_s` before a link drop.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct DropCulprit {
    pub(crate) lane: u8,
    pub(crate) drop_t_s: f64,
    /// BER in the lookback over the BER before it (errors + 1 over bits on each side, so
    /// a lane that was clean before still gets a finite, conservative ratio).
    pub(crate) rise: f64,
    /// The same figure for the lane that rose second most.
    pub(crate) runner_up_rise: Option<f64>,
}

/// A lane must rise at least this much, and this many times the runner-up, to be named.
pub(crate) const DROP_MIN_RISE: f64 = 10.0;
pub(crate) const DROP_STANDOUT: f64 = 3.0;

/// Which lane stands out before the drop at `drop_t_s`: per lane, the BER of the intervals
/// ending in `[drop_t - lookback, drop_t]` against the BER of the intervals that ended
/// before that. `None` when no lane rose by [`DROP_MIN_RISE`] and [`DROP_STANDOUT`] times
/// the next one, or when there is no earlier history to compare with.
pub(crate) fn drop_culprit(lanes: &[(u8, Vec<LaneInterval>)], drop_t_s: f64, lookback_s: f64) -> Option<DropCulprit> {
    let from = drop_t_s - lookback_s;
    let mut rises: Vec<(u8, f64)> = lanes
        .iter()
        .filter_map(|(lane, iv)| {
            let sum = |pick: &dyn Fn(&LaneInterval) -> bool| {
                iv.iter().filter(|i| pick(i)).fold((0u64, 0.0f64), |(e, b), i| (e.saturating_add(i.errors), b + i.bits))
            };
            let (e_near, b_near) = sum(&|i| i.t_end_s > from && i.t_end_s <= drop_t_s);
            let (e_before, b_before) = sum(&|i| i.t_end_s <= from);
            (b_near > 0.0 && b_before > 0.0)
                .then(|| ((e_near as f64 + 1.0) / b_near) / ((e_before as f64 + 1.0) / b_before))
                .map(|r| (*lane, r))
        })
        .collect();
    rises.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (lane, rise) = *rises.first()?;
    let runner_up_rise = rises.get(1).map(|r| r.1);
    let stands_out = rise >= DROP_MIN_RISE && runner_up_rise.is_none_or(|r| rise >= DROP_STANDOUT * r.max(1.0));
    stands_out.then_some(DropCulprit { lane, drop_t_s, rise, runner_up_rise })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(n: usize, dt: f64, m0: f64, slope_per_h: f64, wobble: f64) -> Vec<MarginPoint> {
        (0..n)
            .map(|i| {
                let t = i as f64 * dt;
                // Alternating +-wobble: zero mean, no trend of its own.
                let w = if i % 2 == 0 { wobble } else { -wobble };
                MarginPoint { t_s: t, margin_db: m0 + slope_per_h * t / 3600.0 + w }
            })
            .collect()
    }

    #[test]
    fn falling_lane_reaches_floor_and_limit() {
        // 2 dB losing 0.05 dB/h, a point every 10 min for 6 h (37 points), no noise:
        // at t = 6 h the margin is 2 - 0.3 = 1.7 dB; the 1 dB floor is 0.7 / 0.05 = 14 h
        // away and the limit (0 dB) 1.7 / 0.05 = 34 h away.
        let t = margin_trend(&line(37, 600.0, 2.0, -0.05, 0.0), 1.0, 0.95, 1800.0).unwrap();
        assert!((t.slope_db_per_h + 0.05).abs() < 1e-9);
        assert!(t.falling);
        assert!((t.margin_now_db - 1.7).abs() < 1e-9);
        assert!((t.time_to_floor_s.unwrap() - 14.0 * 3600.0).abs() < 1e-3);
        assert!((t.time_to_fec_limit_s.unwrap() - 34.0 * 3600.0).abs() < 1e-3);
    }

    #[test]
    fn slope_interval_matches_the_t_formula() {
        // Points (0,0),(1,1),(2,1),(3,3),(4,3),(5,4) with t in hours: means 2.5 and 2,
        // Sxx = 17.5, Sxy = 14 -> slope 0.8 dB/h, intercept 0; residuals 0, .2, -.6, .6,
        // -.2, 0 -> SSE 0.8; se = sqrt(0.8 / 4 / 17.5) = 0.106904; t(0.975, 4) = 2.776445
        // -> 0.8 -+ 0.296814 = [0.503186, 1.096814].
        let ys = [0.0, 1.0, 1.0, 3.0, 3.0, 4.0];
        let pts: Vec<MarginPoint> = ys.iter().enumerate().map(|(i, y)| MarginPoint { t_s: i as f64 * 3600.0, margin_db: *y }).collect();
        let t = margin_trend(&pts, 1.0, 0.95, 0.0).unwrap();
        assert!((t.slope_db_per_h - 0.8).abs() < 1e-9);
        assert!((t.slope_ci_db_per_h[0] - 0.503_186).abs() < 1e-4, "{:?}", t.slope_ci_db_per_h);
        assert!((t.slope_ci_db_per_h[1] - 1.096_814).abs() < 1e-4);
        assert!(!t.falling && t.time_to_floor_s.is_none() && t.time_to_fec_limit_s.is_none());
    }

    #[test]
    fn noise_without_trend_is_not_falling() {
        // Flat 1.5 dB with +-0.2 dB wobble: the interval straddles zero.
        let t = margin_trend(&line(40, 60.0, 1.5, 0.0, 0.2), 1.0, 0.95, 1800.0).unwrap();
        assert!(t.slope_ci_db_per_h[0] < 0.0 && t.slope_ci_db_per_h[1] > 0.0);
        assert!(!t.falling && t.time_to_fec_limit_s.is_none());
        // Exactly flat: slope 0, not falling.
        let t = margin_trend(&line(10, 600.0, 1.5, 0.0, 0.0), 1.0, 0.95, 0.0).unwrap();
        assert_eq!((t.slope_db_per_h, t.falling), (0.0, false));
    }

    #[test]
    fn already_below_the_floor_is_zero_seconds_away() {
        let t = margin_trend(&line(20, 600.0, 0.8, -0.1, 0.0), 1.0, 0.95, 0.0).unwrap();
        assert_eq!(t.time_to_floor_s, Some(0.0));
        assert!(t.time_to_fec_limit_s.unwrap() > 0.0);
    }

    #[test]
    fn too_little_data_gives_no_trend() {
        assert!(margin_trend(&line(5, 600.0, 2.0, -0.05, 0.0), 1.0, 0.95, 0.0).is_none());
        // 20 points over 19 min is shorter than a 30 min minimum.
        assert!(margin_trend(&line(20, 60.0, 2.0, -0.05, 0.0), 1.0, 0.95, 1800.0).is_none());
        let bad = vec![MarginPoint { t_s: f64::NAN, margin_db: 1.0 }; 10];
        assert!(margin_trend(&bad, 1.0, 0.95, 0.0).is_none());
    }

    #[test]
    fn durations_read_as_predictions() {
        assert_eq!(humane_duration(30.0), "about 30 s");
        assert_eq!(humane_duration(2400.0), "about 40 min");
        assert_eq!(humane_duration(9.0 * 3600.0), "about 9 h");
        assert_eq!(humane_duration(2.5 * 3600.0), "about 2.5 h");
        assert_eq!(humane_duration(30.0 * 3600.0), "about 30 h");
        assert_eq!(humane_duration(3.0 * 86_400.0), "about 3.0 days");
    }

    fn intervals(errors: &[u64]) -> Vec<LaneInterval> {
        // One interval a minute, 1e12 bits each.
        errors
            .iter()
            .enumerate()
            .map(|(i, e)| LaneInterval { t_start_s: i as f64 * 60.0, t_end_s: (i + 1) as f64 * 60.0, errors: *e, bits: 1e12 })
            .collect()
    }

    #[test]
    fn the_lane_that_rose_before_the_drop_is_named() {
        // 10 minutes; the drop at t = 600 s, lookback 300 s: intervals ending at
        // 360..600 are "near" (5), those ending at 60..300 "before" (5).
        // Lane 3: 100/min before, 4000/min near -> (20000+1)/(500+1) = 39.92x.
        // Lanes 1, 2: unchanged (100/min) -> 1.0x.
        let lanes = vec![
            (1, intervals(&[100; 10])),
            (2, intervals(&[100; 10])),
            (3, intervals(&[100, 100, 100, 100, 100, 4000, 4000, 4000, 4000, 4000])),
        ];
        let c = drop_culprit(&lanes, 600.0, 300.0).unwrap();
        assert_eq!(c.lane, 3);
        assert!((c.rise - 20001.0 / 501.0).abs() < 1e-9);
        assert!((c.runner_up_rise.unwrap() - 1.0).abs() < 1e-9);
        // Two lanes rising alike: nobody stands out.
        let both = vec![lanes[2].clone(), (4, lanes[2].1.clone())];
        assert!(drop_culprit(&both, 600.0, 300.0).is_none());
        // No history before the lookback: no comparison.
        assert!(drop_culprit(&lanes, 300.0, 300.0).is_none());
    }
}
