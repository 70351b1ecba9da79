//! `weak_transmitter`: this module's own laser on a lane is weak, so the far end receives
//! less light on it. A lane is weak when its tx power is `tx_low_delta_db` below its
//! siblings' median, under the module's own tx-power low warning, or when its bias is high
//! while its power is low (laser ageing: the drive current climbs to hold a power the laser
//! can no longer give — bias over its high warning, or `tx_bias_high_ratio` x its siblings'
//! median, with tx power under its siblings' median).

use super::stats::median;
use super::*;

/// Why the lane's laser is weak, or `None`.
fn weakness(la: &LaneAnalysis, lanes: &[LaneAnalysis], thresholds: &crate::module::report::Thresholds, cfg: &Config) -> Option<String> {
    let tx = la.tx_power_dbm?;
    let sib_tx: Vec<f64> = lanes.iter().filter(|l| l.lane != la.lane).filter_map(|l| l.tx_power_dbm).collect();
    let tx_delta = median(&sib_tx).map(|m| tx - m).filter(|d| d.is_finite());
    if let Some(d) = tx_delta.filter(|d| *d <= -cfg.tx_low_delta_db) {
        return Some(format!("tx {tx:.2} dBm is {:.1} dB below its siblings' median", -d));
    }
    if let Some(t) = thresholds.tx_power_mw.filter(|t| t.low_warning > 0.0) {
        let warn_dbm = 10.0 * t.low_warning.log10();
        if tx < warn_dbm {
            return Some(format!("tx {tx:.2} dBm is under the module's tx low warning {warn_dbm:.2} dBm"));
        }
    }
    let bias = la.tx_bias_ma?;
    let sib_bias: Vec<f64> = lanes.iter().filter(|l| l.lane != la.lane).filter_map(|l| l.tx_bias_ma).collect();
    let over_warning = thresholds.tx_bias_ma.is_some_and(|t| t.high_warning > 0.0 && bias > t.high_warning);
    let over_siblings = median(&sib_bias).is_some_and(|m| m > 0.0 && bias >= cfg.tx_bias_high_ratio * m);
    if (over_warning || over_siblings) && tx_delta.is_some_and(|d| d < 0.0) {
        return Some(format!("bias {bias:.2} mA is high while tx {tx:.2} dBm is below its siblings (laser ageing)"));
    }
    None
}

/// Flags, reasons and advice for weak local transmitters (optical modules only).
pub(super) fn judge_transmitters(w: &InterfaceWindow, cfg: &Config, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) {
    let Some(m) = w.module.as_ref().filter(|_| !is_copper(w)) else { return };
    let found: Vec<(u8, String)> =
        lanes.iter().filter_map(|la| weakness(la, lanes, &m.thresholds, cfg).map(|why| (la.lane, why))).collect();
    for (n, why) in found {
        let advice = format!(
            "lane {n}: this module's lane {n} laser is weak ({why}): the far end receives less light on that lane: replace this module"
        );
        reasons.push(Reason::new(
            WEAK_TRANSMITTER,
            Severity::Investigate,
            Some(n),
            format!("lane {n}: this module's laser is weak: {why}"),
        ));
        if let Some(la) = lanes.iter_mut().find(|l| l.lane == n) {
            la.flags.push(WEAK_TRANSMITTER);
            la.advice = Some(match la.advice.take() {
                Some(a) => format!("{a}; {advice}"),
                None => advice,
            });
        }
    }
}
