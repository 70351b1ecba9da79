//! A lane's monitors against the module's own alarm and warning thresholds, judged from
//! the values themselves, so the same fact earns the same verdict whatever the source: a
//! decoded EEPROM (whose flag bits say the same, when the module sets them), or a tool's
//! printout that carries values and thresholds but no flags (`mlxlink -m` prints the alarm
//! ranges only). The crossings are named like the module's own flags
//! (`rx_power_low_alarm`, ...; SFF-8472 Table 9-12, SFF-8636 Table 6-9, CMIS 5.2 Table
//! 8-81), so [`super::verdict::flag_code`] gives them `dom_alarm` / `dom_warning` exactly
//! as it gives a module-reported flag.

use super::LaneAnalysis;
use crate::module::flag::{self, ModuleFlag, Severity};
use crate::module::report::{LaneReport, ModuleReport, Thresholds};
use crate::module::state::{DataPathState, ModuleState};
use crate::module::threshold::ThresholdSet;
use crate::module::units::mw_to_dbm;

/// One monitor past one of the module's thresholds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Crossing {
    /// The module flag of the crossing, e.g. `tx_power_low_warning`.
    pub(crate) flag: ModuleFlag,
    /// "tx 0.70 dBm is 1.00 dB below the module's tx power low warning 1.70 dBm".
    pub(crate) text: String,
}

/// How a monitor is compared: power in dB against thresholds in mW, bias in mA.
#[derive(Clone, Copy)]
enum Unit {
    Dbm,
    Ma,
}

struct Monitor {
    name: &'static str,
    what: &'static str,
    /// The monitor its flags name.
    flag_monitor: flag::Monitor,
    unit: Unit,
}

const RX: Monitor = Monitor { name: "rx", what: "rx power", flag_monitor: flag::Monitor::RxPower, unit: Unit::Dbm };
const TX: Monitor = Monitor { name: "tx", what: "tx power", flag_monitor: flag::Monitor::TxPower, unit: Unit::Dbm };
const BIAS: Monitor = Monitor { name: "bias", what: "tx bias", flag_monitor: flag::Monitor::TxBias, unit: Unit::Ma };

/// "1.00 dB below" / "0.30 dB above": a distance as a reason says it, never a negative "over".
pub(crate) fn above_or_below(d: f64, unit: &str) -> String {
    if d < 0.0 {
        format!("{:.2} {unit} below", -d)
    } else {
        format!("{d:.2} {unit} above")
    }
}

impl Monitor {
    /// A threshold in the value's unit; `None` where the module did not set it (0 mW is
    /// "not set" for power; NaN is a threshold a tool did not print).
    fn level(&self, raw: f64) -> Option<f64> {
        match self.unit {
            Unit::Dbm => (raw.is_finite() && raw > 0.0).then(|| mw_to_dbm(raw)),
            Unit::Ma => (raw.is_finite() && raw > 0.0).then_some(raw),
        }
    }

    fn fmt(&self, v: f64) -> String {
        match self.unit {
            Unit::Dbm => format!("{v:.2} dBm"),
            Unit::Ma => format!("{v:.2} mA"),
        }
    }

    fn delta_unit(&self) -> &'static str {
        match self.unit {
            Unit::Dbm => "dB",
            Unit::Ma => "mA",
        }
    }

    /// The thresholds of `set` in the value's unit.
    fn levels(&self, set: &ThresholdSet) -> MonitorLevels {
        MonitorLevels {
            high_alarm: self.level(set.high_alarm),
            high_warning: self.level(set.high_warning),
            low_alarm: self.level(set.low_alarm),
            low_warning: self.level(set.low_warning),
        }
    }

    /// The worst crossing of `v` on each side: an alarm hides the warning on its side.
    fn crossings(&self, v: Option<f64>, levels: Option<&MonitorLevels>, out: &mut Vec<Crossing>) {
        let (Some(v), Some(t)) = (v.filter(|v| v.is_finite()), levels) else { return };
        let flag = |s| ModuleFlag::Limit(self.flag_monitor, s);
        let high = [(flag(Severity::HighAlarm), "high alarm", t.high_alarm), (flag(Severity::HighWarning), "high warning", t.high_warning)];
        let low = [(flag(Severity::LowAlarm), "low alarm", t.low_alarm), (flag(Severity::LowWarning), "low warning", t.low_warning)];
        let over = high.into_iter().find_map(|(f, name, level)| level.filter(|l| v > *l).map(|l| (f, name, l)));
        let under = low.into_iter().find_map(|(f, name, level)| level.filter(|l| v < *l).map(|l| (f, name, l)));
        for (flag, name, level) in over.into_iter().chain(under) {
            out.push(Crossing {
                flag,
                text: format!(
                    "{} {} is {} the module's {} {name} {}",
                    self.name,
                    self.fmt(v),
                    above_or_below(v - level, self.delta_unit()),
                    self.what,
                    self.fmt(level)
                ),
            });
        }
    }
}

/// One monitor's thresholds in the value's unit; `None` where not set.
#[derive(Clone, Copy, Debug, PartialEq)]
struct MonitorLevels {
    high_alarm: Option<f64>,
    high_warning: Option<f64>,
    low_alarm: Option<f64>,
    low_warning: Option<f64>,
}

/// A module's rx power, tx power and bias thresholds in the lanes' units (dBm, mA):
/// worked out once for all the lanes of a window.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Levels {
    rx: Option<MonitorLevels>,
    tx: Option<MonitorLevels>,
    bias: Option<MonitorLevels>,
}

impl Levels {
    pub(crate) fn of(t: &Thresholds) -> Self {
        Levels {
            rx: t.rx_power_mw.as_ref().map(|s| RX.levels(s)),
            tx: t.tx_power_mw.as_ref().map(|s| TX.levels(s)),
            bias: t.tx_bias_ma.as_ref().map(|s| BIAS.levels(s)),
        }
    }
}

/// Every threshold the lane's rx power, tx power and bias are past, alarms before
/// warnings on each side.
pub(crate) fn crossings(la: &LaneAnalysis, levels: &Levels) -> Vec<Crossing> {
    let mut out = Vec::new();
    RX.crossings(la.rx_power_dbm, levels.rx.as_ref(), &mut out);
    TX.crossings(la.tx_power_dbm, levels.tx.as_ref(), &mut out);
    BIAS.crossings(la.tx_bias_ma, levels.bias.as_ref(), &mut out);
    out
}

/// The smallest power reading above zero (SFF-8472 Rev 12.4 Table 9-11, SFF-8636 Rev 2.11
/// 6.2.5 and CMIS 5.2 Table 8-40 all count 0.1 µW): at or under it, no light.
const NO_LIGHT_MW: f64 = 0.0001;
/// Bias at or under which a laser draws nothing (a VCSEL lases from about 0.5 mA, a DFB
/// from several): an ADC's zero, not a laser running low.
const NO_BIAS_MA: f64 = 0.01;

/// The module's lanes that are dark, in the order of its lanes: a laser drawing no bias and
/// sending no light while its receiver gets none, with no transmitter fault flagged. Beside a
/// lit lane, that is a lane switched off (its transmitter disabled by the host, or a port
/// running fewer lanes than the module has: a QSFP+ at 10G, a 4-lane module in a 1-lane
/// mode), not a laser out of range: a failing laser still draws current or flags a fault
/// (SFF-8636 Rev 2.11 byte 4, CMIS 5.2 Table 8-77 TxFault), and a lane the link uses cannot
/// be dark at both ends while the link runs. With every lane dark the lanes are the port's
/// state, not a finding of their own only while the link is down (`link_down`): the port
/// keeps the module's transmitters off, and the link's reason says so. Dark lanes are not
/// judged against the module's thresholds. `used_lanes`, the link's lane count when known:
/// a dark lane within it on a link that is not down is one the link needs, and is judged.
pub(crate) fn dark_lanes(module: &ModuleReport, used_lanes: Option<u32>, link_down: bool) -> Vec<u8> {
    let dark = |l: &LaneReport| {
        l.tx_bias_ma.is_some_and(|b| b <= NO_BIAS_MA)
            && l.tx_power_mw.is_none_or(|p| p <= NO_LIGHT_MW)
            && l.rx_power_mw.is_none_or(|p| p <= NO_LIGHT_MW)
            && !l.flags.contains(&ModuleFlag::TxFault)
    };
    let lit = module.lanes.iter().any(|l| l.tx_bias_ma.is_some_and(|b| b > NO_BIAS_MA));
    if !lit && !link_down {
        return Vec::new();
    }
    // A dark lane beside lit ones on a link that is down may be the laser that took it down.
    let unused = |lane: u8| !lit || used_lanes.is_none_or(|u| u32::from(lane) > u);
    module.lanes.iter().filter(|l| dark(l) && unused(l.lane)).map(|l| l.lane).collect()
}

/// A CMIS module's state when it is short of ModuleReady and not faulted (ModuleLowPwr,
/// ModulePwrUp, ModulePwrDn): its transmitters are off by the module state machine (CMIS 5.2
/// 6.3.2), so no lane can carry traffic.
pub(crate) fn not_ready(module: &ModuleReport) -> Option<ModuleState> {
    module.module_state.filter(|s| !matches!(s, ModuleState::Ready | ModuleState::Fault))
}

/// The lanes a CMIS module has not turned on, with their state: every lane while the module is
/// [`not_ready`], else those whose data path state is read and is not DPActivated
/// (DPDeactivated, DPInit, DPTxTurnOff, ...: the host has not activated or has deactivated the
/// data path, CMIS 5.2 6.3.3). Their readings are that state, not a laser out of range, and are
/// not judged against the module's thresholds; a TxFault still is.
pub(crate) fn inactive_lanes(module: &ModuleReport) -> Vec<(u8, Inactive)> {
    let state = not_ready(module);
    module
        .lanes
        .iter()
        .filter(|l| !l.flags.contains(&ModuleFlag::TxFault))
        .filter_map(|l| match (state, l.data_path_state) {
            (Some(s), _) => Some((l.lane, Inactive::Module(s))),
            (None, Some(dp)) if dp != DataPathState::Activated => Some((l.lane, Inactive::DataPath(dp))),
            _ => None,
        })
        .collect()
}

/// The state that keeps a lane off: its module's (CMIS 5.2 Table 8-7) or its data path's
/// (CMIS 5.2 page 11h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Inactive {
    /// The module is short of ModuleReady ([`not_ready`]).
    Module(ModuleState),
    /// The lane's data path is not DPActivated.
    DataPath(DataPathState),
}

/// The lanes [`crate::analysis`] left unjudged, and why.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Unjudged {
    /// [`dark_lanes`].
    pub(crate) dark: Vec<u8>,
    /// [`inactive_lanes`].
    pub(crate) inactive: Vec<(u8, Inactive)>,
}

impl Unjudged {
    /// Whether lane `n` is left unjudged.
    pub(crate) fn contains(&self, n: u8) -> bool {
        self.dark.contains(&n) || self.inactive.iter().any(|(l, _)| *l == n)
    }

    /// One note per reason, for the window's notes.
    pub(crate) fn notes(&self, module_lanes: usize) -> Vec<String> {
        let mut notes: Vec<String> = dark_note(&self.dark, module_lanes).into_iter().collect();
        // One note per state, in the order of its first lane.
        let mut states: Vec<Inactive> = Vec::new();
        for (_, s) in &self.inactive {
            if !states.contains(s) {
                states.push(*s);
            }
        }
        for state in states {
            let lanes: Vec<u8> = self.inactive.iter().filter(|(_, s)| *s == state).map(|(l, _)| *l).collect();
            let (state, clause, off) = match state {
                Inactive::Module(s) => (s.to_string(), "Table 8-7, module state", "the module's transmitters are off"),
                Inactive::DataPath(s) => (s.to_string(), "page 11h, data path state", "not carrying a data path"),
            };
            notes.push(format!(
                "{} {} {state} (CMIS 5.2 {clause}): {off} by the module's state, so {} readings are not judged against its thresholds",
                if lanes.len() > 1 { "lanes" } else { "lane" },
                super::lane_index::lane_list(&lanes),
                if lanes.len() > 1 { "their" } else { "its" }
            ));
        }
        notes
    }
}

/// The note that says which lanes are dark and why they were not judged; `module_lanes`, how
/// many the module has (all of them dark is a port that is down).
fn dark_note(dark: &[u8], module_lanes: usize) -> Option<String> {
    let lanes = super::lane_index::lane_list(dark);
    match dark.len() {
        0 => None,
        n if n == module_lanes => Some(format!(
            "every lane dark ({lanes}: no bias, no light sent, none received) while the link is down: the module's transmitters are off with the port, so its low-light and low-bias readings and flags are the port's state, not judged as laser faults; the link's reason and advice say why the port is down"
        )),
        n => Some(format!(
            "lane{} {lanes} dark (no bias, no light sent, none received) beside a lit lane: switched off, not failing, and not judged against the module's thresholds; if the link should use {}, check the port's speed and lane mode (`ethtool IFACE`) and whether the host disabled the transmitter",
            if n > 1 { "s" } else { "" },
            if n > 1 { "them" } else { "it" }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(high_alarm: f64, low_alarm: f64, high_warning: f64, low_warning: f64) -> Option<ThresholdSet> {
        Some(ThresholdSet { high_alarm, low_alarm, high_warning, low_warning })
    }

    #[test]
    fn values_past_the_modules_own_levels() {
        // rx low alarm 0.0741 mW = -11.30 dBm; rx -12.30 dBm is 1.00 dB below it.
        let t = Thresholds { rx_power_mw: set(2.0, 10f64.powf(-1.13), 1.5, 0.1), ..Default::default() };
        let la = LaneAnalysis { lane: 3, rx_power_dbm: Some(-12.3), ..Default::default() };
        let c = crossings(&la, &Levels::of(&t));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].flag.as_str(), "rx_power_low_alarm");
        assert_eq!(c[0].text, "rx -12.30 dBm is 1.00 dB below the module's rx power low alarm -11.30 dBm");
        // Between the warning (-10 dBm) and the alarm: a warning.
        let la = LaneAnalysis { rx_power_dbm: Some(-10.5), ..la };
        assert_eq!(crossings(&la, &Levels::of(&t))[0].flag.as_str(), "rx_power_low_warning");
        // Inside: none; a printed range (warnings NaN) still judges the alarms.
        assert!(crossings(&LaneAnalysis { rx_power_dbm: Some(-2.0), ..la.clone() }, &Levels::of(&t)).is_empty());
        let printed = Thresholds { tx_power_mw: set(10f64.powf(0.5), 10f64.powf(-0.69), f64::NAN, f64::NAN), ..Default::default() };
        let tx = LaneAnalysis { tx_power_dbm: Some(-7.0), ..Default::default() };
        assert_eq!(crossings(&tx, &Levels::of(&printed))[0].flag.as_str(), "tx_power_low_alarm");
        // Bias over its high warning 9 mA (alarm 10).
        let b = Thresholds { tx_bias_ma: set(10.0, 2.0, 9.0, 3.0), ..Default::default() };
        let c = crossings(&LaneAnalysis { tx_bias_ma: Some(9.5), ..Default::default() }, &Levels::of(&b));
        assert_eq!(
            (c[0].flag.as_str(), c[0].text.as_str()),
            ("tx_bias_high_warning", "bias 9.50 mA is 0.50 mA above the module's tx bias high warning 9.00 mA")
        );
        // 0 mW thresholds are "not set".
        let unset = Thresholds { rx_power_mw: set(0.0, 0.0, 0.0, 0.0), ..Default::default() };
        assert!(crossings(&LaneAnalysis { rx_power_dbm: Some(-40.0), ..Default::default() }, &Levels::of(&unset)).is_empty());
    }

    #[test]
    fn distances_say_above_or_below() {
        assert_eq!(above_or_below(-1.0, "dB"), "1.00 dB below");
        assert_eq!(above_or_below(0.3, "dB"), "0.30 dB above");
    }

    #[test]
    fn inactive_lanes_are_noted_once_per_state_with_their_clause() {
        use DataPathState::{Deactivated, Init};
        // Lane 4 in TxFault is judged, so the module state covers three of four lanes: still
        // the module's state (CMIS 5.2 Table 8-7), not a data path's.
        let u = Unjudged { dark: Vec::new(), inactive: (1..=3).map(|l| (l, Inactive::Module(ModuleState::PwrUp))).collect() };
        assert_eq!(
            u.notes(4),
            ["lanes 1-3 ModulePwrUp (CMIS 5.2 Table 8-7, module state): the module's transmitters are off by the module's state, so their readings are not judged against its thresholds"]
        );
        let u = Unjudged {
            dark: Vec::new(),
            inactive: vec![(1, Inactive::DataPath(Init)), (2, Inactive::DataPath(Deactivated)), (3, Inactive::DataPath(Init))],
        };
        let notes = u.notes(8);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("lanes 1, 3 DPInit (CMIS 5.2 page 11h, data path state): not carrying a data path"), "{notes:?}");
        assert!(notes[1].starts_with("lane 2 DPDeactivated (CMIS 5.2 page 11h, data path state)"), "{notes:?}");
    }
}
