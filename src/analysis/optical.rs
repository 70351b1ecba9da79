//! Optical margin from DOM: rx power over the module's own low threshold.

use crate::module::flag::Severity;
#[cfg(test)]
use crate::module::report::RxPowerType;
use crate::module::report::Thresholds;
use crate::module::units::mw_to_dbm;

/// One lane's optical margin with what it was taken over (tests' view; analysis keeps the
/// margin and its reference on the lane, from [`LowThreshold`]).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct OpticalMargin {
    /// rx dBm − threshold dBm.
    pub(crate) margin_db: f64,
    /// `low_warning`, or `low_alarm` when the module has no usable warning.
    pub(crate) reference: Severity,
    pub(crate) threshold_dbm: f64,
    /// What the module measures (average or OMA); its thresholds are in the same measure,
    /// so the margin compares like with like. Lane-to-lane comparisons are too.
    pub(crate) rx_power_type: Option<RxPowerType>,
}

/// The low rx power threshold a module's optical margins are taken over: one per module,
/// so a window's lanes convert it to dBm once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LowThreshold {
    /// `low_warning`, or `low_alarm` when the module has no usable warning.
    pub(crate) reference: Severity,
    pub(crate) threshold_dbm: f64,
}

impl LowThreshold {
    /// `None` without a positive low threshold (0 mW = "not set").
    pub(crate) fn of(thresholds: &Thresholds) -> Option<Self> {
        let set = thresholds.rx_power_mw?;
        let (reference, mw) = [(Severity::LowWarning, set.low_warning), (Severity::LowAlarm, set.low_alarm)]
            .into_iter()
            .find(|(_, mw)| mw.is_finite() && *mw > 0.0)?;
        Some(LowThreshold { reference, threshold_dbm: mw_to_dbm(mw) })
    }

    /// The margin of `rx_power_dbm` over this threshold; `None` without a finite rx power.
    pub(crate) fn margin_db(&self, rx_power_dbm: Option<f64>) -> Option<f64> {
        rx_power_dbm.filter(|v| v.is_finite()).map(|rx| rx - self.threshold_dbm)
    }
}

/// `None` without a finite rx power or a positive low threshold (0 mW = "not set").
#[cfg(test)]
pub(crate) fn optical_margin(
    rx_power_dbm: Option<f64>,
    thresholds: &Thresholds,
    rx_power_type: Option<RxPowerType>,
) -> Option<OpticalMargin> {
    let low = LowThreshold::of(thresholds)?;
    let margin_db = low.margin_db(rx_power_dbm)?;
    Some(OpticalMargin { margin_db, reference: low.reference, threshold_dbm: low.threshold_dbm, rx_power_type })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::threshold::ThresholdSet;

    fn th(low_warning: f64, low_alarm: f64) -> Thresholds {
        Thresholds { rx_power_mw: Some(ThresholdSet { high_alarm: 3.0, low_alarm, high_warning: 2.0, low_warning }), ..Default::default() }
    }

    #[test]
    fn margin_over_low_warning_then_alarm() {
        // low warning 0.1 mW = -10 dBm; rx -1.6 dBm -> 8.4 dB.
        let m = optical_margin(Some(-1.6), &th(0.1, 0.05), Some(RxPowerType::Average)).unwrap();
        assert!((m.margin_db - 8.4).abs() < 1e-9);
        assert_eq!(m.reference, Severity::LowWarning);
        // No warning set: alarm 0.05 mW = -13.0103 dBm -> 11.4103 dB.
        let m = optical_margin(Some(-1.6), &th(0.0, 0.05), None).unwrap();
        assert!((m.margin_db - 11.4103).abs() < 1e-4);
        assert_eq!(m.reference, Severity::LowAlarm);
        assert!(optical_margin(Some(-1.6), &th(0.0, 0.0), None).is_none());
        assert!(optical_margin(Some(f64::NEG_INFINITY), &th(0.1, 0.05), None).is_none());
        assert!(optical_margin(Some(-1.0), &Thresholds::default(), None).is_none());
    }
}
