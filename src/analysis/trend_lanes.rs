//! Where each lane is heading and which lane moved before a link drop,
//! from the window's bounded per-lane series ([`InterfaceWindow::series`](super::InterfaceWindow::series), the
//! engine's buckets of the window's segment). The arithmetic is in [`super::trend`]; this
//! file turns buckets into its inputs and its results into lane keys and reasons.
//!
//! Bucket margin: the bucket's lane BER (corrected bits over the lane's bits on the wire,
//! the same denominator as the window BER) through the same `q::margin_db` with the
//! window's FEC limit and modulation. Buckets without errors give no point (trend.rs).
//! The fit runs over every bucket of the segment once they span `trend_window_s`.

use super::series::LaneSeries;
use super::series_margin::lane_margins;
use super::trend::{drop_culprit, humane_duration, margin_trend, DropCulprit, LaneInterval, MarginPoint, MarginTrend};
use super::verdict::{Reason, ReasonCode, Severity};
use super::{Context, LaneAnalysis, LinkAnalysis};
use serde::Serialize;

/// The trend keys of one lane (flattened into the lane's JSON). `time_to_*` are `null`
/// unless the lane is falling; all are `null` without enough data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct LaneTrend {
    pub(crate) margin_slope_db_per_h: Option<f64>,
    pub(crate) margin_slope_ci_db_per_h: Option<[f64; 2]>,
    pub(crate) time_to_floor_s: Option<f64>,
    pub(crate) time_to_fec_limit_s: Option<f64>,
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
    let Some(series) = cx.w.series.as_deref().filter(|_| cx.ber_possible()) else { return };
    // A lane's points are at bucket mid times: when all of them span less than the
    // trend needs, no lane has a trend (margin_trend would say so lane by lane).
    let (first, last) =
        series.buckets().iter().map(|b| b.mid_t_s()).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), t| (lo.min(t), hi.max(t)));
    if !(last - first >= cx.cfg.trend_window_s) {
        return;
    }
    // Buckets without errors only bound their margin from below: not trend points.
    let margins = lane_margins(series, link, cx.cfg.confidence);
    for la in lanes.iter_mut() {
        let points: Vec<MarginPoint> = margins.get(&la.lane).into_iter().flatten().filter(|m| !m.lower_bound).map(|m| m.point).collect();
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
        reasons.push(Reason::new(ReasonCode::MarginFalling, Severity::Investigate, Some(n), msg));
    }
}

/// The lane behind each link drop in the window's series (at most the first 16 drops per
/// bucket are timed: series.rs).
pub(super) fn drop_culprits(cx: &Context) -> Vec<DropCulprit> {
    let Some((series, gbps, lanes)) = usable(cx) else { return Vec::new() };
    let width = series.width().min(usize::from(u8::MAX));
    let per_lane: Vec<(u8, Vec<LaneInterval>)> = (0..width)
        .filter_map(|idx| {
            let iv: Vec<LaneInterval> = series
                .buckets()
                .iter()
                .enumerate()
                .filter_map(|(k, b)| {
                    let errors = series.corrected_bits(k, idx)?;
                    Some(LaneInterval { t_start_s: b.t_start, t_end_s: b.t_end, errors, bits: b.lane_bits_on_wire(gbps, lanes) })
                })
                .collect();
            // width <= 255, so idx + 1 fits a u8.
            (!iv.is_empty()).then(|| (u8::try_from(idx + 1).unwrap_or(u8::MAX), iv))
        })
        .collect();
    series.link_down_t().iter().filter_map(|t| drop_culprit(&per_lane, *t, cx.cfg.drop_lookback_s)).collect()
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

#[cfg(test)]
mod tests {
    use super::super::*;
    use super::LaneTrend;
    use crate::analysis::series::{Interval, LaneSeries};
    use crate::counters::{Counted, LaneCounts, Origin};

    /// 200GBASE-SR4 (4 x 53.125 Gb/s PAM4, RS(544,514)) over one hour of 60 s intervals;
    /// `bits(lane, t_end)` gives each lane's corrected bits per interval, `drops` the
    /// interval ends that counted a link drop.
    fn window(bits: &dyn Fn(usize, u32) -> u64, drops: &[u32]) -> InterfaceWindow {
        let mut s = LaneSeries::new(512);
        for i in 0..60u32 {
            let t_end = (i + 1) * 60;
            let lanes: Vec<u64> = (1..=4).map(|l| bits(l, t_end)).collect();
            s.push(&Interval {
                t_start: f64::from(i * 60),
                t_end: f64::from(t_end),
                corrected_bits_per_lane: Some(&lanes),
                link_down_events: u64::from(drops.contains(&t_end)),
                ..Default::default()
            });
        }
        let totals: Vec<u64> = (0..4).map(|i| (0..s.buckets().len()).filter_map(|k| s.corrected_bits(k, i)).sum()).collect();
        let c = |v| Some(Counted { value: v, origin: Origin::Netlink });
        InterfaceWindow {
            interface: "eth0".into(),
            link: LinkInfo {
                speed_mbps: Some(200_000),
                lanes: Some(4),
                link_mode: Some("200000baseSR4/Full".into()),
                fec_active: Some("RS".into()),
                ..Default::default()
            },
            duration_s: 3600.0,
            samples: 61,
            link_up: Some(true),
            module_error: Some("not read".into()),
            deltas: PortCounters {
                corrected_bits: c(totals.iter().sum()),
                corrected_bits_per_lane: Some(LaneCounts { values: totals, origin: Origin::Driver("rx_err_lane_N_phy") }),
                uncorrectable_blocks: c(0),
                link_down_events: c(drops.len() as u64),
                ..Default::default()
            },
            series: Some(std::sync::Arc::new(s)),
            ..Default::default()
        }
    }

    #[test]
    fn a_steady_lane_has_a_flat_trend_and_no_times() {
        // BER 1e-6 on every lane: 1e-6 x 53.125e9 x 60 = 3,187,500 bits per interval, the
        // same margin in every bucket: slope 0, interval [0, 0], not falling.
        let a = analyze(&[window(&|_, _| 3_187_500, &[])], &Config::default(), &[]).remove(0);
        for l in &a.lanes {
            assert_eq!(l.trend.margin_slope_db_per_h, Some(0.0), "lane {}", l.lane);
            // Rounding in the residuals leaves the interval a few 1e-16 wide.
            let [lo, hi] = l.trend.margin_slope_ci_db_per_h.unwrap();
            assert!(lo.abs() < 1e-9 && hi.abs() < 1e-9, "{lo} {hi}");
            assert_eq!((l.trend.time_to_floor_s, l.trend.time_to_fec_limit_s), (None, None));
        }
        assert!(a.reasons.iter().all(|r| r.code != ReasonCode::MarginFalling));
        // A minimum span past the hour: no trend at all.
        let cfg = Config { trend_window_s: 7200.0, ..Config::default() };
        let a = analyze(&[window(&|_, _| 3_187_500, &[])], &cfg, &[]).remove(0);
        assert!(a.lanes.iter().all(|l| l.trend == LaneTrend::default()));
    }

    #[test]
    fn drops_naming_different_lanes_name_no_lane() {
        // 1000 bits per minute everywhere; lane 2 at 50x in the 5 min before the drop at
        // 1800 s, lane 4 at 50x in the 5 min before the drop at 3000 s. Each drop: near
        // (5 x 50,000 + 1) / 5 intervals against (N x 1000 + 1) / N before = 49.99x.
        let bits = |lane: usize, t: u32| {
            let hot = (lane == 2 && (1560..=1800).contains(&t)) || (lane == 4 && (2760..=3000).contains(&t));
            if hot {
                50_000
            } else {
                1_000
            }
        };
        let a = analyze(&[window(&bits, &[1800, 3000])], &Config::default(), &[]).remove(0);
        let r = a.reasons.iter().find(|r| r.code == ReasonCode::LinkFlaps && r.message.contains("link-down events")).unwrap();
        assert_eq!(r.lane, None);
        assert!(r.message.contains("lane 2's BER rose 50x in the 5 min before the drop at t=1800 s"), "{}", r.message);
        assert!(r.message.contains("lane 4's BER rose 50x in the 5 min before the drop at t=3000 s"), "{}", r.message);
        // One drop only: the lane is named.
        let a = analyze(&[window(&bits, &[1800])], &Config::default(), &[]).remove(0);
        assert_eq!(a.reasons.iter().find(|r| r.code == ReasonCode::LinkFlaps).unwrap().lane, Some(2));
    }
}
