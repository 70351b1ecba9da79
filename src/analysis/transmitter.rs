//! `weak_transmitter`: this module's own laser on a lane is weak, so the far end receives
//! less light on it. A lane is weak when its tx power is `tx_low_delta_db` below its
//! siblings' median, under the module's own tx-power low warning, or when its bias is high
//! while its power is low (laser ageing: the drive current climbs to hold a power the laser
//! can no longer give — bias over its high warning, or `tx_bias_high_ratio` x its siblings'
//! median, with tx power under its siblings' median).

use super::stats::SiblingMedians;
use super::*;

/// What every lane of a window is judged against, worked out once per window: the
/// siblings' tx power and bias medians and the module's own warning levels.
struct Yardsticks {
    sib_tx_dbm: SiblingMedians,
    sib_bias_ma: SiblingMedians,
    /// The module's tx-power low warning in dBm (a positive mW level only).
    tx_low_warning_dbm: Option<f64>,
    /// The module's bias high warning (a positive level only).
    bias_high_warning_ma: Option<f64>,
}

impl Yardsticks {
    fn of(lanes: &[LaneAnalysis], thresholds: &crate::module::report::Thresholds) -> Self {
        Yardsticks {
            sib_tx_dbm: SiblingMedians::new(lanes.iter().map(|l| l.tx_power_dbm)),
            sib_bias_ma: SiblingMedians::new(lanes.iter().map(|l| l.tx_bias_ma)),
            tx_low_warning_dbm: thresholds.tx_power_mw.filter(|t| t.low_warning > 0.0).map(|t| 10.0 * t.low_warning.log10()),
            bias_high_warning_ma: thresholds.tx_bias_ma.map(|t| t.high_warning).filter(|w| *w > 0.0),
        }
    }
}

/// Why the lane's laser is weak, or `None`.
fn weakness(la: &LaneAnalysis, ys: &Yardsticks, cfg: &Config) -> Option<String> {
    let tx = la.tx_power_dbm?;
    let tx_delta = ys.sib_tx_dbm.without(la.tx_power_dbm).map(|m| tx - m).filter(|d| d.is_finite());
    if let Some(d) = tx_delta.filter(|d| *d <= -cfg.tx_low_delta_db) {
        return Some(format!("tx {tx:.2} dBm is {:.1} dB below its siblings' median", -d));
    }
    if let Some(warn_dbm) = ys.tx_low_warning_dbm.filter(|w| tx < *w) {
        return Some(format!("tx {tx:.2} dBm is under the module's tx low warning {warn_dbm:.2} dBm"));
    }
    let bias = la.tx_bias_ma?;
    // Ageing lowers the power: a lane at or over its siblings' is not asked about its bias.
    if !tx_delta.is_some_and(|d| d < 0.0) {
        return None;
    }
    let over_warning = ys.bias_high_warning_ma.is_some_and(|w| bias > w);
    let over_siblings = ys.sib_bias_ma.without(la.tx_bias_ma).is_some_and(|m| m > 0.0 && bias >= cfg.tx_bias_high_ratio * m);
    (over_warning || over_siblings).then(|| format!("bias {bias:.2} mA is high while tx {tx:.2} dBm is below its siblings (laser ageing)"))
}

/// Flags, reasons and advice for weak local transmitters (optical modules only).
pub(super) fn judge_transmitters(w: &InterfaceWindow, cfg: &Config, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) {
    let Some(m) = w.module.as_ref() else { return };
    let ys = Yardsticks::of(lanes, &m.thresholds);
    let found: Vec<(u8, String)> = lanes.iter().filter_map(|la| weakness(la, &ys, cfg).map(|why| (la.lane, why))).collect();
    // Asked only when a lane looks weak: most windows have none.
    if found.is_empty() || is_copper(w) {
        return;
    }
    for (n, why) in found {
        let advice = format!(
            "lane {n}: this module's lane {n} laser is weak ({why}): the far end receives less light on that lane: replace this module"
        );
        reasons.push(Reason::new(
            ReasonCode::WeakTransmitter,
            Severity::Investigate,
            Some(n),
            format!("lane {n}: this module's laser is weak: {why}"),
        ));
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
    use crate::module::report::{ThresholdSet, Thresholds};

    fn lanes(tx_dbm: [f64; 4], bias_ma: [f64; 4]) -> Vec<LaneAnalysis> {
        (0..4)
            .map(|i| LaneAnalysis { lane: i as u8 + 1, tx_power_dbm: Some(tx_dbm[i]), tx_bias_ma: Some(bias_ma[i]), ..Default::default() })
            .collect()
    }

    fn weak(ls: &[LaneAnalysis], t: &Thresholds) -> Vec<u8> {
        let ys = Yardsticks::of(ls, t);
        ls.iter().filter(|l| weakness(l, &ys, &Config::default()).is_some()).map(|l| l.lane).collect()
    }

    #[test]
    fn tx_below_siblings_under_warning_or_ageing() {
        let none = Thresholds::default();
        let bias = [7.5; 4];
        // Lane 4 1.4 dB under the siblings' median (-0.44): over tx_low_delta_db (1.0).
        assert_eq!(weak(&lanes([-0.41, -0.49, -0.44, -1.84], bias), &none), vec![4]);
        // 0.9 dB under: not by this rule.
        assert!(weak(&lanes([-0.41, -0.49, -0.44, -1.34], bias), &none).is_empty());
        // ...but under the module's own tx low warning, 0.1 mW = -10 dBm, it is.
        let warn = Thresholds {
            tx_power_mw: Some(ThresholdSet { high_alarm: 3.0, low_alarm: 0.05, high_warning: 2.0, low_warning: 0.1 }),
            ..none
        };
        assert_eq!(weak(&lanes([-0.4, -0.5, -0.45, -10.5], bias), &warn), vec![4]);
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
}
