//! SFF-8636 lower page flags (Tables 6-4 to 6-6) and monitors (Tables 6-7, 6-8): what a
//! sample re-reads, decoded through a plan resolved once from the static pages.

use super::*;
use crate::module::report::LaneReport;
use crate::module::HalfView;

/// Fields a sample re-reads (inside `FLAGS_AND_MONITORS`) and [`MonitorPlan::refresh`]
/// decodes again: flags (bytes 3-14, Table 6-4 to 6-6) and monitors (22-57, Table 6-7/6-8).
pub(crate) const MONITOR_FIELDS: [&[Field]; 1] = [&[
    LOS_FLAGS,
    FAULT_FLAGS,
    LOL_FLAGS,
    TEMPERATURE_FLAGS,
    VCC_FLAGS,
    RX_POWER_FLAGS,
    TX_BIAS_FLAGS,
    TX_POWER_FLAGS,
    TEMPERATURE,
    SUPPLY_VOLTAGE,
    RX_POWER,
    TX_BIAS,
    TX_POWER,
]];

/// Lane `i` (0-based) of a per-lane word table in the lower page.
fn lane_word(field: Field, lower: Option<HalfView>, i: usize) -> Option<[u8; 2]> {
    lower.and_then(|h| field.read_in(h))?.get(2 * i..2 * i + 2).map(units::word)
}

/// Rx power of lane `i` (0-3) in mW (bytes 34-41, SFF-8636 6.2.4); `None` for a copper cable.
fn rx_mw(lower: Option<HalfView>, optical: bool, i: usize) -> Option<f64> {
    lane_word(RX_POWER, lower, i).filter(|_| optical).map(units::power_mw)
}

/// Rx power of lanes 1-4 in mW (bytes 34-41, SFF-8636 6.2.4); `None` for a copper cable.
pub(crate) fn lane_rx_power_mw(img: &ModuleImage) -> Vec<Option<f64>> {
    let (lower, optical) = (img.half_view(A0, 0, 0, 0), is_optical(img));
    (0..usize::from(LANES)).map(|i| rx_mw(lower, optical, i)).collect()
}

/// What the decode of the flags and monitors reads of page 00h, resolved once: whether
/// the module is optical (byte 147) and which flags and monitors it advertises (bytes
/// 193-195, 220; the module doc says how an unread page 00h counts).
#[derive(Clone, Debug)]
pub(crate) struct MonitorPlan {
    optical: bool,
    /// Byte 220 bits 5/4 clear: an all-zero word means "not implemented".
    temperature_unadvertised: bool,
    vcc_unadvertised: bool,
    tx_power_implemented: bool,
    /// Bit k: `LANE_STATUS_FLAGS[k]` / `LANE_MONITOR_FLAGS[k]` / `MODULE_MONITOR_FLAGS[k]` implemented.
    status_flags: u8,
    lane_monitor_flags: u8,
    module_monitor_flags: u8,
}

fn implemented_mask<T>(img: &ModuleImage, table: &[T], requires: fn(&T) -> Option<Capability>) -> u8 {
    table.iter().enumerate().filter(|(_, f)| implemented(img, requires(f))).fold(0, |m, (k, _)| m | 1 << k)
}

/// The entries of `table` whose bit is set in `mask`.
fn selected<T>(table: &[T], mask: u8) -> impl Iterator<Item = &T> {
    table.iter().enumerate().filter(move |(k, _)| mask & (1 << k) != 0).map(|(_, f)| f)
}

impl MonitorPlan {
    pub(crate) fn new(img: &ModuleImage) -> Self {
        MonitorPlan {
            optical: is_optical(img),
            temperature_unadvertised: advertised(img, TEMPERATURE_IMPLEMENTED) == Some(false),
            vcc_unadvertised: advertised(img, VCC_IMPLEMENTED) == Some(false),
            tx_power_implemented: implemented(img, Some(TX_POWER_SUPPORTED)),
            status_flags: implemented_mask(img, LANE_STATUS_FLAGS, |f| f.requires),
            lane_monitor_flags: implemented_mask(img, LANE_MONITOR_FLAGS, |f| f.requires),
            module_monitor_flags: implemented_mask(img, MODULE_MONITOR_FLAGS, |f| f.requires),
        }
    }

    /// Decodes into `r` (whose lanes are lanes 1-4) the module monitors, lane monitors
    /// and flags of `img`, an image that resolves to this plan, overwriting what `r` held
    /// of them: what [`decode`] does, and all a sample's bytes in [`MONITOR_FIELDS`] feed.
    pub(crate) fn refresh(&self, img: &ModuleImage, r: &mut ModuleReport) {
        let lower = img.half_view(A0, 0, 0, 0);
        let read = |f: Field| lower.and_then(|h| f.read_in(h));
        // A module monitor is `None` when unadvertised and all zero (see the module doc).
        let module_monitor = |f: Field, unadvertised: bool, convert: fn([u8; 2]) -> f64| {
            read(f).map(units::word).filter(|raw| !(unadvertised && *raw == [0, 0])).map(convert)
        };
        r.module_temperature_c = module_monitor(TEMPERATURE, self.temperature_unadvertised, units::temperature_c);
        r.supply_voltage_v = module_monitor(SUPPLY_VOLTAGE, self.vcc_unadvertised, units::voltage_v);
        r.module_flags.clear();
        for f in selected(MODULE_MONITOR_FLAGS, self.module_monitor_flags) {
            if let Some(b) = read(f.field) {
                r.module_flags.extend(nibble_flags(b[0] >> 4, f.monitor));
            }
        }
        let tx_power = tx_power_reported(self.tx_power_implemented, read(TX_POWER));
        for (i, lane) in r.lanes.iter_mut().enumerate() {
            self.refresh_lane(lower, tx_power, i, lane);
        }
    }

    /// Lane `i` (0-3): monitors where the module is optical, then its flags.
    fn refresh_lane(&self, lower: Option<HalfView>, tx_power: bool, i: usize, lane: &mut LaneReport) {
        let optical = self.optical;
        // SFF-8636 has no data paths (a CMIS notion): written so a reused report holds none.
        lane.data_path_state = None;
        match rx_mw(lower, optical, i) {
            Some(mw) => lane.set_rx_power_mw(mw),
            None => (lane.rx_power_mw, lane.rx_power_dbm) = (None, None),
        }
        lane.tx_bias_ma = lane_word(TX_BIAS, lower, i).filter(|_| optical).map(units::bias_ma);
        match lane_word(TX_POWER, lower, i).filter(|_| optical && tx_power) {
            Some(w) => lane.set_tx_power_mw(units::power_mw(w)),
            None => (lane.tx_power_mw, lane.tx_power_dbm) = (None, None),
        }
        let read = |f: Field| lower.and_then(|h| f.read_in(h));
        lane.flags.clear();
        for f in selected(LANE_STATUS_FLAGS, self.status_flags) {
            if read(f.field).is_some_and(|b| (b[0] >> (f.shift + i)) & 1 != 0) {
                lane.flags.push(f.flag);
            }
        }
        for f in selected(LANE_MONITOR_FLAGS, self.lane_monitor_flags) {
            if let Some(&b) = read(f.field).and_then(|b| b.get(i / 2)) {
                let nibble = if i.is_multiple_of(2) { b >> 4 } else { b & 0x0f };
                lane.flags.extend(nibble_flags(nibble, f.monitor));
            }
        }
    }
}
