//! BER, Q, margin, ranking, flags, verdicts and comparisons: pure functions over
//! [`InterfaceWindow`]s that the sampling layer builds from samples (live or replayed).

use crate::counters::{FecHistogramBin, LinkInfo, PortCounters};
use crate::module::ModuleReport;
use crate::source::DeviceIdentity;

/// Everything analysis needs about one interface over one window of samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InterfaceWindow {
    pub interface: String,
    pub identity: DeviceIdentity,
    pub link: LinkInfo,
    /// Latest decode: static pages plus the monitors of the last sample in the window.
    pub module: Option<ModuleReport>,
    /// Why `module` is `None` (unreadable, not supported, ...).
    pub module_error: Option<String>,
    /// Per-lane rx power in dBm averaged over the window's samples (index 0 = lane 1);
    /// `None` where no sample had it.
    pub rx_power_dbm_mean: Vec<Option<f64>>,
    /// Seconds between the first and last sample the deltas span (sample timestamps).
    pub duration_s: f64,
    pub samples: usize,
    /// Link up at the end of the window.
    pub link_up: Option<bool>,
    /// Extended link state at the end of the window (raw `ethtool_link_ext_state`).
    pub link_ext_state: Option<u8>,
    /// Counter increases over the window (each `Counted::value` is a delta), after
    /// resets and wraps were handled. `None` = the counter was never available.
    pub deltas: PortCounters,
    /// FEC histogram increases over the window.
    pub histogram_delta: Vec<FecHistogramBin>,
    /// Counter resets, module swaps, gaps, errors seen in the window: one sentence each.
    pub events: Vec<String>,
}
