//! Whether a module's diagnostics can be believed. Its monitors are its own ADC readings
//! and its thresholds its own EEPROM programming, and both fail in ways no link can:
//! - a supply reading no running module gives. The module answers on its management
//!   interface, so it has power: SFF-8472 Rev 12.4 (Table 9-11's Vcc), SFF-8636 Rev 2.11
//!   and CMIS 5.2 modules run from 3.3 V ± 5 %. A reading far outside that says the ADC or
//!   its calibration is broken, and every other reading of the same converter with it;
//! - a temperature outside anything a module survives (industrial parts are specified to
//!   -40 to 85 °C case), for the same reason;
//! - alarm levels with no room between them (low alarm at or over the high alarm; the specs'
//!   threshold tables, SFF-8472 Table 9-5, SFF-8636 Table 6-8 and CMIS 5.2 Table 8-62, lay
//!   out high alarm ≥ high warning ≥ low warning ≥ low alarm): every value crosses one, so
//!   the module's own flag bits and every comparison with those levels mean nothing;
//! - warnings outside the alarms or crossed: the alarms still stand, the warnings do not.
//!
//!
//! And a limit flag the module's own reading in the same read does not bear out: the reading
//! lies well inside the level the flag names (an alarm's reading not even past the warning
//! on its side; a warning's inside it by half the warning-to-alarm gap, more than any
//! hysteresis). SFF-8636 Rev 2.11 (6.2.3, the interrupt flags of bytes 3-21) and CMIS 5.2
//! (8.9, Table 8-81 "Latched ... Flag", clear on read) latch their flags until the host reads
//! them, so such a flag is an earlier event (insertion, a laser restart) or a wrong flag, not
//! the module's state now: it raises `dom_flag_unconfirmed` (investigate), not `dom_alarm`.
//!
//! What cannot be believed is not judged: no `dom_alarm` / `dom_warning` from those levels
//! or flags, no optical margin over a meaningless threshold. `dom_implausible` says why
//! instead, so a module whose converter reads garbage is not rejected for "alarms" that are
//! artefacts, and is not accepted on numbers that mean nothing either.

use crate::module::flag::{ModuleFlag, Monitor, Severity as Level};
use crate::module::report::{ModuleReport, Thresholds};
use crate::module::threshold::ThresholdSet;
use std::borrow::Cow;
use std::ops::RangeInclusive;

/// Supply readings a module that answers can give: 3.3 V ± 5 % is 3.135-3.465 V; a
/// sagging supply is a real alarm down to where the module stops answering, so only
/// readings far from any working supply are refused.
const SUPPLY_V: RangeInclusive<f64> = 2.5..=4.0;

/// Case temperatures a module can report and still run: beyond the industrial range
/// (-40 to 85 °C) by a wide margin on both sides.
const TEMPERATURE_C: RangeInclusive<f64> = -55.0..=125.0;

/// One thing about a module's diagnostics that cannot be so.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Finding {
    /// A reading no running module gives: every reading and limit flag is set aside.
    Reading { monitor: Monitor, value: f64 },
    /// The low alarm at or over the high alarm: the monitor's levels and flags are set aside.
    AlarmsInverted { monitor: Monitor, low_alarm: f64, high_alarm: f64 },
    /// A warning outside the alarms, or the low warning at or over the high one: the
    /// monitor's warnings are set aside, its alarms kept.
    WarningsDisordered { monitor: Monitor },
}

impl Finding {
    /// "supply 0.23 V (a module runs at 3.3 V ± 5 %)".
    pub(crate) fn describe(&self) -> String {
        match *self {
            Finding::Reading { monitor: Monitor::SupplyVoltage, value } => {
                format!("supply {value:.2} V (a module runs at 3.3 V ± 5 %)")
            }
            Finding::Reading { monitor, value } => format!("{} reads {value:.2} {}", what(monitor), unit(monitor)),
            Finding::AlarmsInverted { monitor, low_alarm, high_alarm } => format!(
                "{} low alarm {} is not under its high alarm {}",
                what(monitor),
                level_text(monitor, low_alarm),
                level_text(monitor, high_alarm)
            ),
            Finding::WarningsDisordered { monitor } => format!("{} warning levels lie outside its alarms", what(monitor)),
        }
    }

    /// Whether it sets the module's diagnostics aside (rather than only its warnings).
    pub(crate) fn is_serious(&self) -> bool {
        !matches!(self, Finding::WarningsDisordered { .. })
    }
}

fn what(m: Monitor) -> &'static str {
    match m {
        Monitor::Temperature => "temperature",
        Monitor::SupplyVoltage => "supply",
        Monitor::RxPower => "rx power",
        Monitor::TxPower => "tx power",
        Monitor::TxBias => "tx bias",
        other => other.as_str(),
    }
}

fn unit(m: Monitor) -> &'static str {
    match m {
        Monitor::Temperature => "C",
        Monitor::SupplyVoltage => "V",
        Monitor::RxPower | Monitor::TxPower => "mW",
        Monitor::TxBias => "mA",
        _ => "",
    }
}

fn level_text(m: Monitor, v: f64) -> String {
    match m {
        Monitor::RxPower | Monitor::TxPower => format!("{v:.4} mW"),
        _ => format!("{v:.2} {}", unit(m)),
    }
}

/// A limit flag the module raised that its own reading in the same read does not bear out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Unconfirmed {
    /// 1-based lane of a lane flag; `None` for a module flag (temperature, supply).
    pub(crate) lane: Option<u8>,
    pub(crate) flag: ModuleFlag,
    /// "tx bias reads 6.09 mA, inside its low warning 3.00 mA".
    pub(crate) text: String,
}

/// What of a module's diagnostics can be believed.
#[derive(Clone, Debug, Default)]
pub(crate) struct Trust<'a> {
    /// Empty for a module whose diagnostics hold together (nearly all).
    pub(crate) findings: Vec<Finding>,
    /// Limit flags the module's readings do not bear out (a latched earlier event or a
    /// wrong flag): not judged as crossings.
    pub(crate) unconfirmed: Vec<Unconfirmed>,
    /// The thresholds judged against: the module's own, less what cannot be so.
    pub(crate) thresholds: Cow<'a, Thresholds>,
}

/// A threshold set's four levels as the monitor uses them: `None` for a level the module
/// did not set (0 for power, bias and supply; a temperature set of four zeros) or a tool
/// did not print (NaN).
fn levels(monitor: Monitor, t: &ThresholdSet) -> [Option<f64>; 4] {
    let all = [t.low_alarm, t.low_warning, t.high_warning, t.high_alarm];
    let unset = monitor == Monitor::Temperature && all.iter().all(|v| *v == 0.0);
    all.map(|v| (v.is_finite() && !unset && (monitor == Monitor::Temperature || v > 0.0)).then_some(v))
}

/// The finding on one monitor's levels, if any.
fn order(monitor: Monitor, t: &ThresholdSet) -> Option<Finding> {
    let [la, lw, hw, ha] = levels(monitor, t);
    if let (Some(low_alarm), Some(high_alarm)) = (la, ha) {
        if low_alarm >= high_alarm {
            return Some(Finding::AlarmsInverted { monitor, low_alarm, high_alarm });
        }
    }
    // Every pair of set levels in the chain la ≤ lw < hw ≤ ha.
    let chain = [la, lw, hw, ha];
    let disordered = (0..4).any(|i| {
        (i + 1..4).any(|j| match (chain[i], chain[j]) {
            (Some(a), Some(b)) => a > b || (i == 1 && j == 2 && a == b),
            _ => false,
        })
    });
    disordered.then_some(Finding::WarningsDisordered { monitor })
}

impl<'a> Trust<'a> {
    /// What can be believed of `m`'s diagnostics.
    pub(crate) fn of(m: &'a ModuleReport) -> Self {
        let mut findings = Vec::new();
        if let Some(v) = m.supply_voltage_v.filter(|v| *v != 0.0 && !SUPPLY_V.contains(v)) {
            findings.push(Finding::Reading { monitor: Monitor::SupplyVoltage, value: v });
        }
        if let Some(v) = m.module_temperature_c.filter(|v| v.is_finite() && !TEMPERATURE_C.contains(v)) {
            findings.push(Finding::Reading { monitor: Monitor::Temperature, value: v });
        }
        let t = &m.thresholds;
        let sets = [
            (Monitor::Temperature, t.temperature_c.as_ref()),
            (Monitor::SupplyVoltage, t.supply_voltage_v.as_ref()),
            (Monitor::RxPower, t.rx_power_mw.as_ref()),
            (Monitor::TxPower, t.tx_power_mw.as_ref()),
            (Monitor::TxBias, t.tx_bias_ma.as_ref()),
        ];
        findings.extend(sets.iter().filter_map(|(monitor, set)| set.and_then(|s| order(*monitor, s))));
        if findings.is_empty() {
            let unconfirmed = unconfirmed_flags(m, t);
            return Trust { findings, unconfirmed, thresholds: Cow::Borrowed(t) };
        }
        let readings_bad = findings.iter().any(|f| matches!(f, Finding::Reading { .. }));
        let thresholds = if readings_bad {
            Thresholds::default()
        } else {
            let keep = |monitor: Monitor, set: Option<ThresholdSet>| {
                let set = set?;
                match findings.iter().find(|f| finding_monitor(f) == monitor) {
                    Some(Finding::AlarmsInverted { .. }) => None,
                    Some(Finding::WarningsDisordered { .. }) => Some(ThresholdSet { high_warning: f64::NAN, low_warning: f64::NAN, ..set }),
                    _ => Some(set),
                }
            };
            Thresholds {
                temperature_c: keep(Monitor::Temperature, t.temperature_c),
                supply_voltage_v: keep(Monitor::SupplyVoltage, t.supply_voltage_v),
                rx_power_mw: keep(Monitor::RxPower, t.rx_power_mw),
                tx_power_mw: keep(Monitor::TxPower, t.tx_power_mw),
                tx_bias_ma: keep(Monitor::TxBias, t.tx_bias_ma),
            }
        };
        let unconfirmed = if readings_bad { Vec::new() } else { unconfirmed_flags(m, &thresholds) };
        Trust { findings, unconfirmed, thresholds: Cow::Owned(thresholds) }
    }

    /// Whether the module's readings themselves are believed (no impossible supply or
    /// temperature).
    pub(crate) fn readings(&self) -> bool {
        !self.findings.iter().any(|f| matches!(f, Finding::Reading { .. }))
    }

    /// Whether a flag the module raised on `lane` (`None`: a module flag) is evidence: as
    /// [`Trust::believes`], and not contradicted by the module's own reading.
    pub(crate) fn believes_on(&self, lane: Option<u8>, flag: ModuleFlag) -> bool {
        self.believes(flag) && !self.unconfirmed.iter().any(|u| u.lane == lane && u.flag == flag)
    }

    /// Whether a flag the module raised is evidence: a status bit (LOS, LOL, faults)
    /// always is; a limit crossing only when its reading and its level are believed.
    pub(crate) fn believes(&self, flag: ModuleFlag) -> bool {
        let ModuleFlag::Limit(monitor, level) = flag else { return true };
        if !self.readings() {
            return false;
        }
        match self.findings.iter().find(|f| finding_monitor(f) == monitor) {
            Some(Finding::AlarmsInverted { .. }) => false,
            Some(Finding::WarningsDisordered { .. }) => matches!(level, Level::HighAlarm | Level::LowAlarm),
            _ => true,
        }
    }
}

/// Every limit flag of `m` whose reading lies well inside the level it names, judged
/// against the believed `thresholds`. A flag whose reading or needed levels are unknown is
/// left standing: nothing contradicts it.
fn unconfirmed_flags(m: &ModuleReport, thresholds: &Thresholds) -> Vec<Unconfirmed> {
    let mut out = Vec::new();
    let mut check = |lane: Option<u8>, flag: ModuleFlag, reading: Option<f64>| {
        let ModuleFlag::Limit(monitor, level) = flag else { return };
        let set = match monitor {
            Monitor::Temperature => thresholds.temperature_c,
            Monitor::SupplyVoltage => thresholds.supply_voltage_v,
            Monitor::RxPower => thresholds.rx_power_mw,
            Monitor::TxPower => thresholds.tx_power_mw,
            Monitor::TxBias => thresholds.tx_bias_ma,
            _ => None,
        };
        if let (Some(v), Some(set)) = (reading.filter(|v| v.is_finite()), set) {
            if let Some(text) = contradiction(monitor, level, v, &set) {
                out.push(Unconfirmed { lane, flag, text });
            }
        }
    };
    for &f in &m.module_flags {
        let reading = match f {
            ModuleFlag::Limit(Monitor::Temperature, _) => m.module_temperature_c,
            ModuleFlag::Limit(Monitor::SupplyVoltage, _) => m.supply_voltage_v.filter(|v| *v != 0.0),
            _ => None,
        };
        check(None, f, reading);
    }
    for l in &m.lanes {
        for &f in &l.flags {
            let reading = match f {
                ModuleFlag::Limit(Monitor::RxPower, _) => l.rx_power_mw,
                ModuleFlag::Limit(Monitor::TxPower, _) => l.tx_power_mw,
                ModuleFlag::Limit(Monitor::TxBias, _) => l.tx_bias_ma,
                _ => None,
            };
            check(Some(l.lane), f, reading);
        }
    }
    out
}

/// Why reading `v` does not bear out a `level` flag of `monitor`, if it does not. Power is
/// compared in dB (its levels are decades apart), the rest linearly.
fn contradiction(monitor: Monitor, level: Level, v: f64, set: &ThresholdSet) -> Option<String> {
    let [la, lw, hw, ha] = levels(monitor, set);
    let power = matches!(monitor, Monitor::RxPower | Monitor::TxPower);
    // Power at 0 mW is "no light": under any low level, it is never inside one.
    if power && v <= 0.0 {
        return None;
    }
    let scale = |x: f64| if power { 10.0 * x.log10() } else { x };
    let at = |x: Option<f64>| x.map(scale);
    let value = scale(v);
    let (inside, named, named_level) = match level {
        // An alarm not even past the warning on its side.
        Level::HighAlarm => (value < at(hw)?, "high warning", hw?),
        Level::LowAlarm => (value > at(lw)?, "low warning", lw?),
        // A warning inside it by half the gap to the alarm on its side.
        Level::HighWarning => {
            let (w, a) = (at(hw)?, at(ha)?);
            (value < w - (a - w) / 2.0, "high warning", hw?)
        }
        Level::LowWarning => {
            let (w, a) = (at(lw)?, at(la)?);
            (value > w + (w - a) / 2.0, "low warning", lw?)
        }
    };
    inside
        .then(|| format!("{} reads {}, inside its {named} {}", what(monitor), reading_text(monitor, v), reading_text(monitor, named_level)))
}

fn reading_text(m: Monitor, v: f64) -> String {
    match m {
        Monitor::RxPower | Monitor::TxPower => format!("{:.2} dBm", 10.0 * v.log10()),
        _ => format!("{v:.2} {}", unit(m)),
    }
}

fn finding_monitor(f: &Finding) -> Monitor {
    match *f {
        Finding::Reading { monitor, .. } | Finding::AlarmsInverted { monitor, .. } | Finding::WarningsDisordered { monitor } => monitor,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(low_alarm: f64, low_warning: f64, high_warning: f64, high_alarm: f64) -> Option<ThresholdSet> {
        Some(ThresholdSet { high_alarm, low_alarm, high_warning, low_warning })
    }

    fn report(supply_v: f64, t: Thresholds) -> ModuleReport {
        let mut m = ModuleReport::new(crate::module::Standard::Sff8636, Some(0x11));
        m.supply_voltage_v = Some(supply_v);
        m.module_temperature_c = Some(35.0);
        m.thresholds = t;
        m
    }

    /// Typical SR4 levels (SFF-8636 Table 6-8 layout): temperature -5/0/70/75 C, supply
    /// 2.97/3.135/3.465/3.63 V, rx 0.05/0.1/2.0/2.5 mW, bias 2/3/8.5/10 mA.
    fn sane() -> Thresholds {
        Thresholds {
            temperature_c: set(-5.0, 0.0, 70.0, 75.0),
            supply_voltage_v: set(2.97, 3.135, 3.465, 3.63),
            rx_power_mw: set(0.05, 0.1, 2.0, 2.5),
            tx_power_mw: set(0.0, 0.0, 0.0, 0.0),
            tx_bias_ma: set(0.0, 3.0, 8.5, 10.0),
        }
    }

    #[test]
    fn a_module_that_holds_together_is_believed_whole() {
        let m = report(3.29, sane());
        let trust = Trust::of(&m);
        assert!(trust.findings.is_empty());
        assert!(matches!(trust.thresholds, Cow::Borrowed(_)));
        assert!(trust.believes(ModuleFlag::Limit(Monitor::RxPower, Level::LowWarning)));
        // A sagging supply (3.0 V, under the 3.135 V of 3.3 V - 5 %) is a real alarm, not an artefact.
        assert!(Trust::of(&report(3.0, sane())).findings.is_empty());
        // 0 V is "not monitored" (copper cables report no supply).
        assert!(Trust::of(&report(0.0, sane())).findings.is_empty());
    }

    #[test]
    fn an_impossible_supply_sets_every_level_and_limit_flag_aside() {
        let m = report(0.2287, sane());
        let trust = Trust::of(&m);
        assert_eq!(trust.findings, vec![Finding::Reading { monitor: Monitor::SupplyVoltage, value: 0.2287 }]);
        assert_eq!(*trust.thresholds, Thresholds::default());
        assert!(!trust.believes(ModuleFlag::Limit(Monitor::TxBias, Level::HighAlarm)));
        // Status bits are not ADC readings.
        assert!(trust.believes(ModuleFlag::TxFault));
        assert_eq!(trust.findings[0].describe(), "supply 0.23 V (a module runs at 3.3 V ± 5 %)");
    }

    #[test]
    fn inverted_alarms_set_that_monitor_aside_and_disordered_warnings_only_the_warnings() {
        // Temperature high alarm 3.02 C under its low alarm 7.06 C; bias low warning 16.4 mA
        // over its high alarm 15.39 mA (both as a real FS SFP+ on bnxt_en printed them).
        let t = Thresholds { temperature_c: set(7.06, 0.25, 0.0, 3.02), tx_bias_ma: set(0.0, 16.448, 36.006, 15.39), ..sane() };
        let m = report(3.3, t);
        let trust = Trust::of(&m);
        assert_eq!(
            trust.findings,
            vec![
                Finding::AlarmsInverted { monitor: Monitor::Temperature, low_alarm: 7.06, high_alarm: 3.02 },
                Finding::WarningsDisordered { monitor: Monitor::TxBias },
            ]
        );
        assert_eq!(trust.thresholds.temperature_c, None);
        let bias = trust.thresholds.tx_bias_ma.unwrap();
        assert_eq!((bias.high_alarm, bias.low_alarm), (15.39, 0.0));
        assert!(bias.high_warning.is_nan() && bias.low_warning.is_nan());
        assert_eq!(trust.thresholds.rx_power_mw, sane().rx_power_mw);
        assert!(!trust.believes(ModuleFlag::Limit(Monitor::Temperature, Level::LowAlarm)));
        assert!(trust.believes(ModuleFlag::Limit(Monitor::TxBias, Level::HighAlarm)));
        assert!(!trust.believes(ModuleFlag::Limit(Monitor::TxBias, Level::LowWarning)));
        assert!(trust.findings[0].is_serious() && !trust.findings[1].is_serious());
        // Four equal power levels leave no room at all.
        let equal = Thresholds { tx_power_mw: set(0.8224, 0.8224, 0.8224, 0.8224), ..sane() };
        let m = report(3.3, equal);
        assert_eq!(
            Trust::of(&m).findings,
            vec![Finding::AlarmsInverted { monitor: Monitor::TxPower, low_alarm: 0.8224, high_alarm: 0.8224 }]
        );
    }

    #[test]
    fn unset_and_unprinted_levels_are_not_compared() {
        // A low alarm of 0 mA is "no low limit"; NaN warnings are ranges a tool did not print.
        let t = Thresholds { tx_bias_ma: set(0.0, f64::NAN, f64::NAN, 10.0), temperature_c: set(0.0, 0.0, 0.0, 0.0), ..sane() };
        assert!(Trust::of(&report(3.3, t)).findings.is_empty());
    }

    fn lane_with(flag: ModuleFlag, rx_mw: f64, bias_ma: f64) -> crate::module::report::LaneReport {
        crate::module::report::LaneReport {
            lane: 2,
            rx_power_mw: Some(rx_mw),
            tx_bias_ma: Some(bias_ma),
            flags: vec![flag],
            ..Default::default()
        }
    }

    #[test]
    fn a_limit_flag_its_reading_does_not_bear_out_is_set_aside_on_its_lane() {
        let bias_low = ModuleFlag::Limit(Monitor::TxBias, Level::LowAlarm);
        // Bias 6.09 mA, low warning 3 mA (sane()): not even past the warning.
        let mut m = report(3.3, sane());
        m.lanes = vec![lane_with(bias_low, 0.5, 6.09)];
        let trust = Trust::of(&m);
        assert_eq!(
            trust.unconfirmed,
            vec![Unconfirmed { lane: Some(2), flag: bias_low, text: "tx bias reads 6.09 mA, inside its low warning 3.00 mA".into() }]
        );
        assert!(!trust.believes_on(Some(2), bias_low) && trust.believes_on(Some(1), bias_low));
        // 2.5 mA: past the warning, short of the 0 mA (unset) alarm: the hysteresis band, believed.
        m.lanes = vec![lane_with(bias_low, 0.5, 2.5)];
        assert!(Trust::of(&m).unconfirmed.is_empty());
    }

    #[test]
    fn warnings_need_half_the_gap_to_the_alarm_and_power_is_compared_in_db() {
        // rx low warning 0.1 mW (-10 dBm), low alarm 0.05 mW (-13.01 dBm): half the gap is
        // 1.505 dB, so a low-warning flag is contradicted above -8.495 dBm (0.1414 mW).
        let rx_low_w = ModuleFlag::Limit(Monitor::RxPower, Level::LowWarning);
        let mut m = report(3.3, sane());
        m.lanes = vec![lane_with(rx_low_w, 0.15, 6.0)];
        assert_eq!(Trust::of(&m).unconfirmed[0].text, "rx power reads -8.24 dBm, inside its low warning -10.00 dBm");
        m.lanes = vec![lane_with(rx_low_w, 0.13, 6.0)];
        assert!(Trust::of(&m).unconfirmed.is_empty());
        // No light is under any low level: never "inside" one.
        m.lanes = vec![lane_with(ModuleFlag::Limit(Monitor::RxPower, Level::LowAlarm), 0.0, 6.0)];
        assert!(Trust::of(&m).unconfirmed.is_empty());
        // A level the module did not set leaves the flag standing (tx power levels are all 0 in sane()).
        m.lanes = vec![crate::module::report::LaneReport {
            lane: 1,
            tx_power_mw: Some(0.8),
            flags: vec![ModuleFlag::Limit(Monitor::TxPower, Level::HighAlarm)],
            ..Default::default()
        }];
        assert!(Trust::of(&m).unconfirmed.is_empty());
    }

    #[test]
    fn module_flags_are_checked_against_temperature_and_supply() {
        // Temperature 35 C with its high alarm flag set: under the 70 C high warning.
        let mut m = report(3.3, sane());
        m.module_flags = vec![ModuleFlag::Limit(Monitor::Temperature, Level::HighAlarm), ModuleFlag::TxFault];
        let trust = Trust::of(&m);
        assert_eq!(trust.unconfirmed.len(), 1);
        assert_eq!(trust.unconfirmed[0].text, "temperature reads 35.00 C, inside its high warning 70.00 C");
        assert!(trust.believes_on(None, ModuleFlag::TxFault));
        // 72 C is past the warning: the alarm flag is in its hysteresis band, believed.
        m.module_temperature_c = Some(72.0);
        assert!(Trust::of(&m).unconfirmed.is_empty());
    }
}
