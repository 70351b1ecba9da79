//! Where each lane is heading and which lane moved before a link drop (issue 10 items 4
//! and 5), from the window's bounded per-lane series ([`InterfaceWindow::series`], the
//! engine's buckets of the window's segment). The arithmetic is in [`super::trend`]; this
//! file turns buckets into its inputs and its results into lane keys and reasons.
//!
//! Bucket margin: the bucket's lane BER (corrected bits over the lane's bits on the wire,
//! the same denominator as the window BER) through the same [`q::margin_db`] with the
//! window's FEC limit and modulation. Buckets without errors give no point (trend.rs).
//! The fit runs over every bucket of the segment once they span `trend_window_s`.

use super::trend::{drop_culprit, humane_duration, margin_trend, DropCulprit, LaneInterval, MarginPoint, MarginTrend};
use super::verdict::{Reason, Severity, MARGIN_FALLING};
use super::{Context, LaneAnalysis, LinkAnalysis};
use crate::sample::engine::LaneSeries;
use serde::Serialize;

/// The trend keys of one lane (flattened into the lane's JSON). `time_to_*` are `null`
/// unless the lane is falling; all are `null` without enough data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LaneTrend {
    pub margin_slope_db_per_h: Option<f64>,
    pub margin_slope_ci_db_per_h: Option<[f64; 2]>,
    pub time_to_floor_s: Option<f64>,
    pub time_to_fec_limit_s: Option<f64>,
}

impl From<&MarginTrend> for LaneTrend {
    fn from(t: &MarginTrend) -> Self {
        LaneTrend {
            margin_slope_db_per_h: Some(t.slope_db_per_h),
            margin_slope_ci_db_per_h: Some(t.slope_ci_db_per_h),
            time_to_floor_s: t.time_to_floor_s,
            time_to_fec_limit_s: t.time_to_fec_limit_s,
        }
    }
}

/// Series usable for BER: the window has one, FEC counts, and the lane rate is known.
fn usable<'a>(cx: &'a Context) -> Option<(&'a LaneSeries, f64, u32)> {
    let rate = cx.rate.as_ref()?;
    let s = cx.w.series.as_deref().filter(|_| cx.ber_possible())?;
    Some((s, rate.lane_rate_gbps, rate.lanes))
}

/// Margin of lane `idx` (0-based) per bucket with errors, at the bucket's mid time.
fn margin_points(cx: &Context, idx: usize) -> Vec<MarginPoint> {
    let Some((series, gbps, lanes)) = usable(cx) else { return Vec::new() };
    series
        .buckets
        .iter()
        .filter_map(|b| {
            let margin_db = b.lane_ber(idx, gbps, lanes).and_then(|ber| cx.margin(ber))?;
            Some(MarginPoint { t_s: (b.t_start + b.t_end) / 2.0, margin_db })
        })
        .collect()
}

fn fmt_db_per_h(v: f64) -> String {
    if v.abs() >= 0.01 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Fills each lane's trend keys and adds `margin_falling` for each falling lane.
pub(super) fn judge(cx: &Context, link: &LinkAnalysis, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) {
    let floor = cx.cfg.margin_floor_db;
    let limit = link.fec.map_or("FEC".to_string(), |f| f.name().to_string());
    for la in lanes.iter_mut() {
        let points = margin_points(cx, usize::from(la.lane).saturating_sub(1));
        let Some(t) = margin_trend(&points, floor, cx.cfg.confidence, cx.cfg.trend_window_s) else { continue };
        la.trend = LaneTrend::from(&t);
        let (Some(to_floor), Some(to_limit)) = (t.time_to_floor_s, t.time_to_fec_limit_s) else { continue };
        let n = la.lane;
        let [lo, hi] = t.slope_ci_db_per_h;
        let floor_text = if to_floor > 0.0 {
            format!("reaches the {floor:.1} dB margin floor in {}", humane_duration(to_floor))
        } else {
            format!("is already under the {floor:.1} dB margin floor")
        };
        let msg = format!(
            "lane {n} loses {} dB/h ({:.0}% interval {:.3} to {:.3} dB/h over {}); at this rate it {floor_text} and crosses the {limit} limit in {}",
            fmt_db_per_h(-t.slope_db_per_h),
            cx.cfg.confidence * 100.0,
            -hi,
            -lo,
            humane_duration(t.span_s).trim_start_matches("about "),
            humane_duration(to_limit),
        );
        reasons.push(Reason::new(MARGIN_FALLING, Severity::Investigate, Some(n), msg));
    }
}

/// The lane behind each link drop in the window's series (at most the first 16 drops per
/// bucket are timed: series.rs).
pub(super) fn drop_culprits(cx: &Context) -> Vec<DropCulprit> {
    let Some((series, gbps, lanes)) = usable(cx) else { return Vec::new() };
    let width = series.buckets.iter().map(|b| b.lanes.len()).max().unwrap_or(0).min(usize::from(u8::MAX));
    let per_lane: Vec<(u8, Vec<LaneInterval>)> = (0..width)
        .filter_map(|idx| {
            let iv: Vec<LaneInterval> = series
                .buckets
                .iter()
                .filter_map(|b| {
                    let errors = b.lanes.get(idx)?.corrected_bits?;
                    Some(LaneInterval { t_start_s: b.t_start, t_end_s: b.t_end, errors, bits: b.lane_bits_on_wire(gbps, lanes) })
                })
                .collect();
            // width <= 255, so idx + 1 fits a u8.
            (!iv.is_empty()).then(|| (u8::try_from(idx + 1).unwrap_or(u8::MAX), iv))
        })
        .collect();
    series.buckets.iter().flat_map(|b| b.link_down_t.iter()).filter_map(|t| drop_culprit(&per_lane, *t, cx.cfg.drop_lookback_s)).collect()
}

fn fmt_lookback(s: f64) -> String {
    if s >= 60.0 && s % 60.0 == 0.0 {
        format!("{:.0} min", s / 60.0)
    } else {
        format!("{s:.0} s")
    }
}

/// For `link_flaps`: the lane when every traced drop names the same one, and the sentence
/// tail ("; lane 3's BER rose 40x in the 5 min before the drop at t=312 s").
pub(super) fn drop_lane(cx: &Context) -> (Option<u8>, String) {
    let culprits = drop_culprits(cx);
    let lane = culprits.first().map(|c| c.lane).filter(|l| culprits.iter().all(|c| c.lane == *l));
    let lookback = fmt_lookback(cx.cfg.drop_lookback_s);
    // A few drops are told; the rest would only repeat the pattern.
    let told: Vec<String> = culprits
        .iter()
        .take(3)
        .map(|c| format!("lane {}'s BER rose {:.0}x in the {lookback} before the drop at t={:.0} s", c.lane, c.rise, c.drop_t_s))
        .collect();
    let tail = if told.is_empty() { String::new() } else { format!("; {}", told.join("; ")) };
    (lane, tail)
}
