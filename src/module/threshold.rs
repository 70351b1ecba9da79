//! A monitor's alarm and warning thresholds, as every standard lays them out (SFF-8472
//! Rev 12.4 Table 9-5, SFF-8636 Rev 2.11 Table 6-8, CMIS 5.2 Table 8-62 and VDM thresholds).

use serde::Serialize;

/// Alarm and warning limits of one monitor, in the monitor's SI unit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ThresholdSet {
    /// High alarm level.
    pub high_alarm: f64,
    /// Low alarm level.
    pub low_alarm: f64,
    /// High warning level.
    pub high_warning: f64,
    /// Low warning level.
    pub low_warning: f64,
}
