//! `weak_transmitter`: this module's own laser on a lane is weak, so the far end receives
//! less light on it. A lane is weak when its tx power sits below its siblings' median by
//! more than their natural spread allows, or when its bias is high while its power is low
//! (laser ageing: the drive current climbs to hold a power the laser can no longer give —
//! bias over its high warning, or `tx_bias_high_ratio` x its siblings' median, with tx
//! power under its siblings' median).
//!
//! The natural spread: lasers of one module are not matched. IEEE 802.3 Clause 124 (Table
//! 124-6, 400GBASE-DR4, and 800GBASE-DR8 after it) allows each lane's average launch power
//! anywhere from -2.9 to 4.0 dBm, and a healthy DR8 spreads 1.5-2 dB across its eight
//! lasers. So the gap to the siblings' median must exceed both `tx_low_delta_db` and
//! z(n) robust standard deviations of the siblings (1.4826 x their median absolute
//! deviation), z(n) the one-sided normal quantile at a 1 % chance per module split over its
//! n lanes (Bonferroni): 2.81 for 4 lanes, 3.02 for 8. More lanes, a wider extreme by
//! chance. A lane under the module's own tx low warning or alarm is not judged here: it is
//! a `dom_warning` / `dom_alarm` (`dom_limits`), as the module's own flag is.
//!
//! A gap alone is investigated, never a swap: the advice asks for corroboration first.
//! Corroborated (a swap advised) when the bias is high (the ageing rule), the far end
//! receives less light on the lane than on its others (`--peer`: its rx power at least
//! `rx_low_delta_db` under its siblings' median), or the far end's receiver corrects at
//! least `outlier_ratio` times its siblings' median on that lane.

use super::stats::SiblingMedians;
use super::*;
use statrs::distribution::{ContinuousCDF, Normal};

/// Chance, per module, that a healthy module's spread alone puts one of its lanes past
/// the bar.
const FALSE_ALARM_PER_MODULE: f64 = 0.01;

/// 1.4826 x MAD estimates a normal standard deviation.
const MAD_TO_SIGMA: f64 = 1.4826;

/// What every lane of a window is judged against, worked out once per window: the
/// siblings' tx power and bias medians and the module's own warning levels.
struct Yardsticks {
    sib_tx_dbm: SiblingMedians,
    sib_bias_ma: SiblingMedians,
    /// Every lane's tx dBm, for the siblings' spread.
    tx_dbm: Vec<(u8, f64)>,
    /// The module's bias high warning (a positive level only).
    bias_high_warning_ma: Option<f64>,
}

impl Yardsticks {
    fn of(lanes: &[LaneAnalysis], thresholds: &crate::module::report::Thresholds) -> Self {
        Yardsticks {
            sib_tx_dbm: SiblingMedians::new(lanes.iter().map(|l| l.tx_power_dbm)),
            sib_bias_ma: SiblingMedians::new(lanes.iter().map(|l| l.tx_bias_ma)),
            tx_dbm: lanes.iter().filter_map(|l| l.tx_power_dbm.filter(|v| v.is_finite()).map(|v| (l.lane, v))).collect(),
            bias_high_warning_ma: thresholds.tx_bias_ma.map(|t| t.high_warning).filter(|w| *w > 0.0),
        }
    }

    /// The gap under the siblings' median that lane `lane` must exceed, and the siblings'
    /// robust standard deviation it rests on.
    fn bar_db(&self, lane: u8, cfg: &Config) -> (f64, f64) {
        let sib: Vec<f64> = self.tx_dbm.iter().filter(|(l, _)| *l != lane).map(|(_, v)| *v).collect();
        let spread = stats::median(&sib)
            .and_then(|m| stats::median(&sib.iter().map(|v| (v - m).abs()).collect::<Vec<_>>()))
            .map_or(0.0, |mad| MAD_TO_SIGMA * mad);
        (cfg.tx_low_delta_db.max(z_for_lanes(self.tx_dbm.len()) * spread), spread)
    }
}

/// The one-sided standard normal quantile at [`FALSE_ALARM_PER_MODULE`] / n.
fn z_for_lanes(n: usize) -> f64 {
    let p = FALSE_ALARM_PER_MODULE / n.max(1) as f64;
    // Mean 0, sd 1 is a valid normal: `new` cannot fail.
    Normal::new(0.0, 1.0).map_or(3.0, |d| d.inverse_cdf(1.0 - p))
}

/// What made the lane weak, and whether that alone is evidence for a swap.
struct Weakness {
    why: String,
    /// The bias rule (ageing) is its own corroboration.
    corroborated: Option<String>,
}

/// Why the lane's laser is weak, or `None`.
fn weakness(la: &LaneAnalysis, ys: &Yardsticks, cfg: &Config) -> Option<Weakness> {
    let tx = la.tx_power_dbm?;
    let median = ys.sib_tx_dbm.without(la.tx_power_dbm).filter(|m| m.is_finite());
    let tx_delta = median.map(|m| tx - m);
    if let (Some(d), Some(m)) = (tx_delta.filter(|d| *d <= -cfg.tx_low_delta_db), median) {
        let (bar, spread) = ys.bar_db(la.lane, cfg);
        if -d > bar {
            let why = format!(
                "tx {tx:.2} dBm is {:.1} dB below its siblings' median {m:.2} dBm, past the {bar:.1} dB their spread allows (robust sd {spread:.2} dB across {} lanes)",
                -d,
                ys.tx_dbm.len()
            );
            return Some(Weakness { why, corroborated: None });
        }
    }
    let bias = la.tx_bias_ma?;
    // Ageing lowers the power: a lane at or over its siblings' is not asked about its bias.
    if !tx_delta.is_some_and(|d| d < 0.0) {
        return None;
    }
    let over_warning = ys.bias_high_warning_ma.is_some_and(|w| bias > w);
    let over_siblings = ys.sib_bias_ma.without(la.tx_bias_ma).is_some_and(|m| m > 0.0 && bias >= cfg.tx_bias_high_ratio * m);
    (over_warning || over_siblings).then(|| Weakness {
        why: format!("bias {bias:.2} mA is high while tx {tx:.2} dBm is below its siblings"),
        corroborated: Some("laser ageing: the drive current climbs to hold the power".into()),
    })
}

/// What the far end says about lane `n`: less light than on its other lanes, or far more
/// corrected bits. `None` without a peer or without such evidence.
fn far_end_evidence(peer: Option<&InterfaceWindow>, n: u8, cfg: &Config) -> Option<String> {
    let p = peer?;
    let idx = usize::from(n).checked_sub(1)?;
    let rx: Vec<Option<f64>> = match &p.module {
        Some(m) if !m.lanes.is_empty() => {
            let max = m.lanes.iter().map(|l| usize::from(l.lane)).max().unwrap_or(0);
            (1..=max).map(|k| m.lanes.iter().find(|l| usize::from(l.lane) == k).and_then(|l| l.rx_power_dbm)).collect()
        }
        _ => p.rx_power_dbm_mean.clone(),
    };
    if let Some(v) = rx.get(idx).copied().flatten().filter(|v| v.is_finite()) {
        let sib: Vec<f64> = rx.iter().enumerate().filter(|(k, _)| *k != idx).filter_map(|(_, v)| *v).collect();
        if let Some(d) = stats::median(&sib).map(|m| v - m).filter(|d| *d <= -cfg.rx_low_delta_db) {
            return Some(format!("the far end receives {:.1} dB less light on lane {n} than on its others", -d));
        }
    }
    let bits = p.deltas.corrected_bits_per_lane.as_ref()?;
    let k = *bits.values.get(idx)?;
    let sib: Vec<f64> = bits.values.iter().enumerate().filter(|(j, _)| *j != idx).map(|(_, v)| *v as f64).collect();
    let m = stats::median(&sib)?;
    (k > 0 && k as f64 >= cfg.outlier_ratio * m.max(1.0))
        .then(|| format!("the far end corrects {k} bits on lane {n}, {:.0}x its other lanes' median", k as f64 / m.max(1.0)))
}

/// Flags, reasons and advice for weak local transmitters (optical modules only).
pub(super) fn judge_transmitters(cx: &Context, peer: Option<&InterfaceWindow>, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) {
    let (w, cfg) = (cx.w, &*cx.cfg);
    // Powers from a converter that reads impossible values are not compared (`dom_trust`).
    if w.module.is_none() || !cx.dom.readings() {
        return;
    }
    let ys = Yardsticks::of(lanes, &cx.dom.thresholds);
    let found: Vec<(u8, Weakness)> = lanes.iter().filter_map(|la| weakness(la, &ys, cfg).map(|why| (la.lane, why))).collect();
    // Asked only when a lane looks weak: most windows have none.
    if found.is_empty() || is_copper(w) {
        return;
    }
    for (n, weak) in found {
        let why = &weak.why;
        let corroborated = weak.corroborated.or_else(|| far_end_evidence(peer, n, cfg));
        let advice = match &corroborated {
            Some(c) => format!(
                "lane {n}: this module's lane {n} laser is weak ({why}; {c}): the far end receives less light on that lane: replace this module"
            ),
            None => format!(
                "lane {n}: this module's lane {n} laser transmits less than its siblings, within the module's own limits and with nothing else pointing at it yet: before any swap, compare the far end's rx power and errors on lane {n} (--peer) and watch this lane's bias over time"
            ),
        };
        let msg = match &corroborated {
            Some(c) => format!("lane {n}: this module's laser is weak: {why}; {c}"),
            None => format!("lane {n}: this module's laser may be weak: {why}; not corroborated (bias, far-end rx or errors)"),
        };
        reasons.push(Reason::new(ReasonCode::WeakTransmitter, Severity::Investigate, Some(n), msg));
        if let Some(la) = lanes.iter_mut().find(|l| l.lane == n) {
            la.flags.push(ReasonCode::WeakTransmitter);
            la.advice = Some(match la.advice.take() {
                Some(a) => format!("{a}; {advice}"),
                None => advice,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::report::Thresholds;
    use crate::module::threshold::ThresholdSet;

    fn lanes(tx_dbm: [f64; 4], bias_ma: [f64; 4]) -> Vec<LaneAnalysis> {
        (0..4)
            .map(|i| LaneAnalysis { lane: i as u8 + 1, tx_power_dbm: Some(tx_dbm[i]), tx_bias_ma: Some(bias_ma[i]), ..Default::default() })
            .collect()
    }

    fn weak(ls: &[LaneAnalysis], t: &Thresholds) -> Vec<u8> {
        let ys = Yardsticks::of(ls, t);
        ls.iter().filter(|l| weakness(l, &ys, &Config::default()).is_some()).map(|l| l.lane).collect()
    }

    fn lanes8(tx_dbm: [f64; 8]) -> Vec<LaneAnalysis> {
        (0..8)
            .map(|i| LaneAnalysis { lane: i as u8 + 1, tx_power_dbm: Some(tx_dbm[i]), tx_bias_ma: Some(7.5), ..Default::default() })
            .collect()
    }

    #[test]
    fn tx_below_siblings_or_ageing() {
        let none = Thresholds::default();
        let bias = [7.5; 4];
        // Lane 4 1.4 dB under the siblings' median (-0.44), whose robust sd is 1.4826 x
        // MAD(0.03, 0.05, 0) = 0.044 dB: the bar is max(1.0, 2.81 x 0.044) = 1.0 dB.
        assert_eq!(weak(&lanes([-0.41, -0.49, -0.44, -1.84], bias), &none), vec![4]);
        // 0.9 dB under: not by this rule.
        assert!(weak(&lanes([-0.41, -0.49, -0.44, -1.34], bias), &none).is_empty());
        // Under the module's own tx low warning is a dom_warning (dom_limits), not this.
        let warn = Thresholds {
            tx_power_mw: Some(ThresholdSet { high_alarm: 3.0, low_alarm: 0.05, high_warning: 2.0, low_warning: 0.1 }),
            ..none
        };
        assert!(weak(&lanes([-9.8, -10.3, -9.9, -10.5], bias), &warn).is_empty());
        // Ageing: bias 9.5 mA = 1.27 x the 7.5 median (>= 1.2) while tx is 0.3 dB under theirs.
        assert_eq!(weak(&lanes([-0.4, -0.5, -0.45, -0.75], [7.5, 7.5, 7.5, 9.5]), &none), vec![4]);
        // High bias with normal power, or 1.13 x bias with low power: a healthy laser.
        assert!(weak(&lanes([-0.4, -0.5, -0.45, -0.3], [7.5, 7.5, 7.5, 9.5]), &none).is_empty());
        assert!(weak(&lanes([-0.4, -0.5, -0.45, -0.75], [7.5, 7.5, 7.5, 8.5]), &none).is_empty());
        // Over the module's bias high warning (9 mA) with tx under the siblings: ageing too.
        let bias_warn =
            Thresholds { tx_bias_ma: Some(ThresholdSet { high_alarm: 10.0, low_alarm: 2.0, high_warning: 9.0, low_warning: 3.0 }), ..none };
        assert_eq!(weak(&lanes([-0.4, -0.5, -0.45, -0.6], [8.6, 8.7, 8.8, 9.2]), &bias_warn), vec![4]);
    }

    #[test]
    fn a_healthy_dr8_spread_is_not_a_weak_laser() {
        // An 800G-DR8 whose lanes spread 1.3-3.0 dBm (Clause 124 allows -2.9 to 4.0 dBm per
        // lane) with lane 6 at 0.7 dBm: its siblings' median is 2.1 dBm, 1.4 dB above it.
        // Their absolute deviations from 2.1: 0, 0.8, 0.9, 0.3, 0.3, 0.5, 0.6 -> MAD 0.5,
        // robust sd 0.741 dB; z(8) = 3.02 -> bar 2.24 dB > 1.4 dB: not weak.
        let tx = [2.1, 1.3, 3.0, 2.4, 1.8, 0.7, 2.6, 1.5];
        assert!((z_for_lanes(8) - 3.023).abs() < 1e-3 && (z_for_lanes(4) - 2.807).abs() < 1e-3);
        let ls = lanes8(tx);
        let ys = Yardsticks::of(&ls, &Thresholds::default());
        let (bar, sd) = ys.bar_db(6, &Config::default());
        assert!((sd - 0.7413).abs() < 1e-3 && (bar - 2.241).abs() < 1e-2, "{bar} {sd}");
        assert!(weak(&ls, &Thresholds::default()).is_empty());
        // The same module with lane 6 dark-ish at -1.5 dBm: 3.6 dB under, past the bar.
        let mut tx = tx;
        tx[5] = -1.5;
        assert_eq!(weak(&lanes8(tx), &Thresholds::default()), vec![6]);
    }
}
