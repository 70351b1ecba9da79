//! Module monitors as a management tool printed them (`mlxlink -m`, decoded `ethtool -m` text or
//! `ethtool --json -m`): values already in SI units, with no EEPROM bytes behind them. Their
//! precision is what the tool printed (ethtool: 0.0001 mW, 0.001 mA, 0.01 degC, 0.0001 V). Kept in imported capture records
//! (`printed_module`, docs/capture-format.md) and turned into a [`ModuleReport`] so the
//! analysis reads them exactly as it reads a decoded EEPROM.

use super::flag::{self, ModuleFlag, Severity};
use super::report::{LaneReport, LowPowerControls, ModuleReport, RxPowerType, Standard, Thresholds};
use super::state::ModuleState;
use super::threshold::ThresholdSet;
use super::units::dbm_to_mw;
use super::vdm::{VdmLane, VdmReport, VdmSideValues};
use serde::{Deserialize, Deserializer, Serialize};

/// A `[low..high]` range as the tool printed it after a monitor's values, in the monitor's unit.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrintedRange {
    /// Lower end of the range, in the monitor's unit.
    pub low: f64,
    pub(crate) high: f64,
}

/// A module's monitors as a tool printed them (`printed_module` in capture records).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PrintedModule {
    /// Which tool printed it, e.g. `mlxlink`.
    pub tool: String,
    /// Form factor as printed (`QSFP-DD`, `OSFP`, `QSFP28`, ...).
    #[serde(default)]
    pub identifier: Option<String>,
    #[serde(default)]
    pub(crate) vendor_name: Option<String>,
    #[serde(default)]
    pub(crate) vendor_pn: Option<String>,
    #[serde(default)]
    pub(crate) vendor_sn: Option<String>,
    /// Cable type / compliance text as printed.
    #[serde(default)]
    pub(crate) media: Option<String>,
    #[serde(default)]
    pub(crate) temperature_c: Option<f64>,
    #[serde(default)]
    pub(crate) supply_voltage_v: Option<f64>,
    /// Per lane (index 0 = lane 1); `null` where the tool printed `N/A`.
    #[serde(default)]
    pub(crate) rx_power_dbm: Vec<Option<f64>>,
    #[serde(default)]
    pub(crate) tx_power_dbm: Vec<Option<f64>>,
    #[serde(default)]
    pub(crate) tx_bias_ma: Vec<Option<f64>>,
    /// The alarm ranges printed after the values (mlxlink prints the module's alarm
    /// thresholds this way; warning thresholds are not printed).
    #[serde(default)]
    pub(crate) rx_power_alarm_dbm: Option<PrintedRange>,
    #[serde(default)]
    pub(crate) tx_power_alarm_dbm: Option<PrintedRange>,
    #[serde(default)]
    pub(crate) tx_bias_alarm_ma: Option<PrintedRange>,
    #[serde(default)]
    pub(crate) temperature_alarm_c: Option<PrintedRange>,
    #[serde(default)]
    pub(crate) supply_voltage_alarm_v: Option<PrintedRange>,
    // What ethtool prints beyond mlxlink's set. Absent keys keep older captures' bytes.
    /// SFF-8024 Table 4-1 identifier code as printed (`Identifier : 0x11 (QSFP28)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) identifier_code: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) vendor_oui: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) vendor_rev: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) date_code: Option<String>,
    /// Management spec revision as printed (`Revision compliance`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) spec_revision: Option<String>,
    /// SFF-8024 Table 4-3 connector code and its name as printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) connector: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) connector_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) wavelength_nm: Option<f64>,
    /// Nominal signalling rate per lane, MBd, as printed (`BR, Nominal : 25750MBd`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) nominal_signaling_rate_mbd: Option<u32>,
    /// CMIS module state as printed (`ModuleReady`).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "module_state_as_written")]
    pub(crate) module_state: Option<ModuleState>,
    /// CMIS LowPwrRequestSW and LowPwrAllowRequestHW as printed (`On` / `Off`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) low_power_request_sw: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) low_power_allow_request_hw: Option<bool>,
    /// True when the receive power printed is OMA (`Receiver signal OMA`), false for average.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) rx_power_oma: Option<bool>,
    /// Per lane in mW (index 0 = lane 1): ethtool prints mW at the EEPROM's own 0.1 uW
    /// resolution, so these win over the dBm lists when both are given.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) rx_power_mw: Vec<Option<f64>>,
    /// Per lane in mW (index 0 = lane 1), as printed or converted from the printed dBm.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tx_power_mw: Vec<Option<f64>>,
    /// Alarm and warning thresholds as printed; when given they replace the alarm ranges.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) thresholds: Option<PrintedThresholds>,
    /// Module-level flags that were printed on, by their `ModuleReport` names
    /// (`temperature_high_alarm`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) module_flags: Vec<ModuleFlag>,
    /// Per lane (index 0 = lane 1): the lane flags printed on (`rx_los`, `tx_bias_high_alarm`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) lane_flags: Vec<Vec<ModuleFlag>>,
    /// A coherent module's performance monitoring over its last window, as SONiC's
    /// `show interfaces transceiver pm` prints it (min / avg / max and thresholds).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) performance: Vec<PrintedPm>,
}

/// A module state as a capture wrote it: the state's text (`ModuleReady`, `Reserved (7)`).
/// Captures written before the state was typed may hold a tool's own text for a reserved
/// code (ethtool's `reserved or unknown`): that names no state, and reads as none.
fn module_state_as_written<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ModuleState>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.as_deref().and_then(ModuleState::from_name))
}

/// A performance-monitoring parameter of a coherent (C-CMIS) module, named by its unit, in
/// the order and with the units sonic-utilities' `sfpshow` prints them (`ZR_PM_INFO_MAP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PmParameter {
    TxPowerDbm,
    RxTotalPowerDbm,
    RxSignalPowerDbm,
    /// Chromatic dispersion, short-link range.
    CdShortLinkPsPerNm,
    /// Polarization-dependent loss.
    PdlDb,
    OsnrDb,
    EsnrDb,
    /// Carrier frequency offset.
    CfoMhz,
    /// Differential group delay.
    DgdPs,
    /// Second-order polarization mode dispersion.
    SopmdPs2,
    /// State-of-polarization rate of change.
    SopRocKradPerS,
    PreFecBer,
    PostFecBer,
    /// Error vector magnitude.
    EvmPct,
}

/// One parameter's window as printed: `null` where `N/A` was printed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PrintedPm {
    pub(crate) parameter: PmParameter,
    pub(crate) min: Option<f64>,
    pub(crate) avg: Option<f64>,
    pub(crate) max: Option<f64>,
    pub(crate) high_alarm: Option<f64>,
    pub(crate) high_warning: Option<f64>,
    pub(crate) low_alarm: Option<f64>,
    pub(crate) low_warning: Option<f64>,
    /// The tool's threshold-crossing alerts (max over the high alarm, min under the low).
    pub(crate) crossed_high: Option<bool>,
    pub(crate) crossed_low: Option<bool>,
}

/// A monitor's four limits as printed, in its SI unit (power in mW).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct PrintedLimits {
    pub(crate) high_alarm: f64,
    pub(crate) low_alarm: f64,
    pub(crate) high_warning: f64,
    pub(crate) low_warning: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct PrintedThresholds {
    #[serde(default)]
    pub(crate) temperature_c: Option<PrintedLimits>,
    #[serde(default)]
    pub(crate) supply_voltage_v: Option<PrintedLimits>,
    #[serde(default)]
    pub(crate) rx_power_mw: Option<PrintedLimits>,
    #[serde(default)]
    pub(crate) tx_power_mw: Option<PrintedLimits>,
    #[serde(default)]
    pub(crate) tx_bias_ma: Option<PrintedLimits>,
}

/// The five digital diagnostic monitors every module standard has (SFF-8472 Rev 12.4
/// Table 9-11, SFF-8636 Rev 2.11 6.2.4, CMIS 5.2 8.2.5 and 8.9.3): the one vocabulary the
/// imports use for values, thresholds and flags, whichever tool printed them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Monitor {
    Temperature,
    Voltage,
    TxBias,
    TxPower,
    RxPower,
}

impl Monitor {
    pub(crate) const ALL: [Monitor; 5] = [Monitor::Temperature, Monitor::Voltage, Monitor::TxBias, Monitor::TxPower, Monitor::RxPower];

    /// The monitor its flags name (`module::report::LaneReport::flags`: `tx_bias_high_alarm`).
    pub(crate) fn flag_monitor(self) -> flag::Monitor {
        match self {
            Monitor::Temperature => flag::Monitor::Temperature,
            Monitor::Voltage => flag::Monitor::SupplyVoltage,
            Monitor::TxBias => flag::Monitor::TxBias,
            Monitor::TxPower => flag::Monitor::TxPower,
            Monitor::RxPower => flag::Monitor::RxPower,
        }
    }

    /// A lane's monitor (bias, powers), not the module's (temperature, supply voltage).
    pub(crate) fn is_lane(self) -> bool {
        !matches!(self, Monitor::Temperature | Monitor::Voltage)
    }

    /// Where this monitor's limits go in a threshold set.
    pub(crate) fn limits_mut(self, t: &mut PrintedThresholds) -> &mut Option<PrintedLimits> {
        match self {
            Monitor::Temperature => &mut t.temperature_c,
            Monitor::Voltage => &mut t.supply_voltage_v,
            Monitor::TxBias => &mut t.tx_bias_ma,
            Monitor::TxPower => &mut t.tx_power_mw,
            Monitor::RxPower => &mut t.rx_power_mw,
        }
    }
}

/// The four limits of each monitor as a tool printed them, collected line by line (indexed
/// by [`Monitor`], then high alarm, low alarm, high warning, low warning), in the monitor's
/// SI unit (power in mW).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct LimitsSeen([[Option<f64>; 4]; 5]);

impl LimitsSeen {
    pub(crate) fn set(&mut self, m: Monitor, severity: Severity, v: Option<f64>) {
        self.0[m as usize][severity as usize] = v;
    }

    /// A monitor's four limits, when all four were printed.
    pub(crate) fn limits(&self, m: Monitor) -> Option<PrintedLimits> {
        match self.0[m as usize] {
            [Some(high_alarm), Some(low_alarm), Some(high_warning), Some(low_warning)] => {
                Some(PrintedLimits { high_alarm, low_alarm, high_warning, low_warning })
            }
            _ => None,
        }
    }

    /// The monitors whose four limits were all printed; `None` when there is none.
    pub(crate) fn thresholds(&self) -> Option<PrintedThresholds> {
        let mut t = PrintedThresholds::default();
        for m in Monitor::ALL {
            *m.limits_mut(&mut t) = self.limits(m);
        }
        (t != PrintedThresholds::default()).then_some(t)
    }
}

fn full_set(l: Option<PrintedLimits>) -> Option<ThresholdSet> {
    l.map(|l| ThresholdSet { high_alarm: l.high_alarm, low_alarm: l.low_alarm, high_warning: l.high_warning, low_warning: l.low_warning })
}

/// SFF-8024 Table 4-1 codes of the form factors tools print by name.
const IDENTIFIERS: &[(&str, u8)] =
    &[("QSFP-DD", 0x18), ("OSFP", 0x19), ("QSFP112", 0x1e), ("QSFP28", 0x11), ("QSFP+", 0x0d), ("QSFP", 0x0c), ("SFP", 0x03)];

/// Alarm limits only: the warnings are not printed, so they are NaN ("not set"), which
/// `analysis::optical` skips in favour of the low alarm.
fn alarm_set(r: Option<PrintedRange>, conv: fn(f64) -> f64) -> Option<ThresholdSet> {
    r.map(|r| ThresholdSet { high_alarm: conv(r.high), low_alarm: conv(r.low), high_warning: f64::NAN, low_warning: f64::NAN })
}

impl PrintedModule {
    /// The SFF-8024 identifier of the printed form factor, when it names one.
    pub(crate) fn identifier_code(&self) -> Option<u8> {
        if self.identifier_code.is_some() {
            return self.identifier_code;
        }
        let id = self.identifier.as_deref()?.to_ascii_uppercase();
        IDENTIFIERS.iter().find(|(name, _)| id.contains(name)).map(|(_, code)| *code)
    }

    /// The monitors as a [`ModuleReport`], so analysis reads them as it reads a decoded EEPROM.
    pub fn to_report(&self) -> ModuleReport {
        let code = self.identifier_code();
        let standard = code.and_then(Standard::for_identifier);
        let mut m = ModuleReport::new(standard.unwrap_or(Standard::Cmis), code);
        // What was printed, nothing more: no form factor printed is no identifier and no
        // standard; one SFF-8024 has no code for is its printed name alone.
        if standard.is_none() {
            m.standard = None;
            m.identifier_name = m.identifier_name.or_else(|| self.identifier.clone());
            m.form_factor = None;
            let said = match &self.identifier {
                Some(name) => format!("form factor {name:?} is no SFF-8024 identifier optics knows"),
                None => "form factor not printed".to_string(),
            };
            m.warnings.push(format!("module {said} ({}): no management standard is assumed", self.tool));
        }
        let alarms = self.alarm_thresholds();
        // Say which limits the tool printed: all four, the alarms alone (mlxlink's ranges), or none.
        let limits = match (&self.thresholds, alarms == Thresholds::default()) {
            (Some(_), _) => "precision as printed",
            (None, false) => "alarm thresholds only, no warnings",
            (None, true) => "no thresholds printed",
        };
        m.warnings.push(format!("module values as printed by {} (no EEPROM bytes): {limits}", self.tool));
        m.vendor_name = self.vendor_name.clone();
        m.vendor_oui = self.vendor_oui.clone();
        m.vendor_rev = self.vendor_rev.clone();
        m.date_code = self.date_code.clone();
        m.spec_revision = self.spec_revision.clone();
        m.connector = self.connector;
        m.connector_name = self.connector_name.clone();
        m.wavelength_nm = self.wavelength_nm;
        m.nominal_signaling_rate_mbd = self.nominal_signaling_rate_mbd;
        m.module_state = self.module_state;
        m.low_power_controls = self
            .low_power_request_sw
            .zip(self.low_power_allow_request_hw)
            .map(|(request_sw, allow_request_hw)| LowPowerControls { request_sw, allow_request_hw });
        m.rx_power_type = self.rx_power_oma.map(|oma| if oma { RxPowerType::Oma } else { RxPowerType::Average });
        m.module_flags.clone_from(&self.module_flags);
        m.vendor_pn = self.vendor_pn.clone();
        m.vendor_sn = self.vendor_sn.clone();
        m.media_type = self.media.clone();
        m.module_temperature_c = self.temperature_c;
        m.supply_voltage_v = self.supply_voltage_v;
        let n = [&self.rx_power_dbm, &self.tx_power_dbm, &self.tx_bias_ma, &self.rx_power_mw, &self.tx_power_mw]
            .iter()
            .map(|v| v.len())
            .chain([self.lane_flags.len()])
            .max()
            .unwrap_or(0)
            .min(usize::from(u8::MAX));
        for i in 0..n {
            // i < 255, so the lane number fits a u8.
            let mut l = LaneReport::new(u8::try_from(i + 1).unwrap_or(u8::MAX));
            let mw = |mw: &[Option<f64>], dbm: &[Option<f64>]| {
                mw.get(i).copied().flatten().or_else(|| dbm.get(i).copied().flatten().map(dbm_to_mw))
            };
            if let Some(v) = mw(&self.rx_power_mw, &self.rx_power_dbm) {
                l.set_rx_power_mw(v);
            }
            if let Some(v) = mw(&self.tx_power_mw, &self.tx_power_dbm) {
                l.set_tx_power_mw(v);
            }
            l.tx_bias_ma = self.tx_bias_ma.get(i).copied().flatten();
            l.flags = self.lane_flags.get(i).cloned().unwrap_or_default();
            m.lanes.push(l);
        }
        m.thresholds = match &self.thresholds {
            Some(t) => Thresholds {
                temperature_c: full_set(t.temperature_c),
                supply_voltage_v: full_set(t.supply_voltage_v),
                rx_power_mw: full_set(t.rx_power_mw),
                tx_power_mw: full_set(t.tx_power_mw),
                tx_bias_ma: full_set(t.tx_bias_ma),
            },
            None => alarms,
        };
        m.vdm = self.performance_as_vdm();
        // The lanes the standard fixes, as its decoder gives them (nothing printed is needed):
        // SFF-8636's four channels, SFF-8472's one; a CMIS module's come from its application.
        let fixed = match standard {
            Some(Standard::Sff8636) => Some(super::sff8636::LANES),
            Some(Standard::Sff8472) => Some(1),
            _ => None,
        };
        (m.host_lane_count, m.media_lane_count) = (fixed, fixed);
        m
    }

    /// The module's own pre-FEC BER and eSNR over its performance window, where the module
    /// model keeps a module's own view of its media input (lane 1: a coherent module has
    /// one media lane); the average stands as the lane's BER, as VDM's average does.
    fn performance_as_vdm(&self) -> Option<VdmReport> {
        let of = |p: PmParameter| self.performance.iter().find(|x| x.parameter == p);
        let ber = of(PmParameter::PreFecBer);
        let media = VdmSideValues {
            pre_fec_ber_min: ber.and_then(|b| b.min),
            pre_fec_ber_average: ber.and_then(|b| b.avg),
            pre_fec_ber_max: ber.and_then(|b| b.max),
            esnr_db: of(PmParameter::EsnrDb).and_then(|e| e.avg),
            ..Default::default()
        };
        (!media.is_empty())
            .then(|| VdmReport { lanes: vec![VdmLane { lane: 1, media, host: VdmSideValues::default() }], ..Default::default() })
    }

    /// Adds what `other` printed of the same module and this did not (`show interfaces
    /// transceiver eeprom --dom`, `status` and `pm` of one port, given together).
    pub(crate) fn merge(&mut self, other: &PrintedModule) {
        fn opt<T: Clone>(a: &mut Option<T>, b: &Option<T>) {
            if a.is_none() {
                a.clone_from(b);
            }
        }
        fn list<T: Clone>(a: &mut Vec<T>, b: &[T]) {
            if a.is_empty() {
                a.extend_from_slice(b);
            }
        }
        if !self.tool.split(" + ").any(|t| t == other.tool) {
            self.tool = format!("{} + {}", self.tool, other.tool);
        }
        opt(&mut self.identifier, &other.identifier);
        opt(&mut self.vendor_name, &other.vendor_name);
        opt(&mut self.vendor_pn, &other.vendor_pn);
        opt(&mut self.vendor_sn, &other.vendor_sn);
        opt(&mut self.media, &other.media);
        opt(&mut self.temperature_c, &other.temperature_c);
        opt(&mut self.supply_voltage_v, &other.supply_voltage_v);
        list(&mut self.rx_power_dbm, &other.rx_power_dbm);
        list(&mut self.tx_power_dbm, &other.tx_power_dbm);
        list(&mut self.tx_bias_ma, &other.tx_bias_ma);
        opt(&mut self.rx_power_alarm_dbm, &other.rx_power_alarm_dbm);
        opt(&mut self.tx_power_alarm_dbm, &other.tx_power_alarm_dbm);
        opt(&mut self.tx_bias_alarm_ma, &other.tx_bias_alarm_ma);
        opt(&mut self.temperature_alarm_c, &other.temperature_alarm_c);
        opt(&mut self.supply_voltage_alarm_v, &other.supply_voltage_alarm_v);
        opt(&mut self.identifier_code, &other.identifier_code);
        opt(&mut self.vendor_oui, &other.vendor_oui);
        opt(&mut self.vendor_rev, &other.vendor_rev);
        opt(&mut self.date_code, &other.date_code);
        opt(&mut self.spec_revision, &other.spec_revision);
        opt(&mut self.connector, &other.connector);
        opt(&mut self.connector_name, &other.connector_name);
        opt(&mut self.wavelength_nm, &other.wavelength_nm);
        opt(&mut self.nominal_signaling_rate_mbd, &other.nominal_signaling_rate_mbd);
        opt(&mut self.module_state, &other.module_state);
        opt(&mut self.low_power_request_sw, &other.low_power_request_sw);
        opt(&mut self.low_power_allow_request_hw, &other.low_power_allow_request_hw);
        opt(&mut self.rx_power_oma, &other.rx_power_oma);
        list(&mut self.rx_power_mw, &other.rx_power_mw);
        list(&mut self.tx_power_mw, &other.tx_power_mw);
        opt(&mut self.thresholds, &other.thresholds);
        for f in &other.module_flags {
            if !self.module_flags.contains(f) {
                self.module_flags.push(*f);
            }
        }
        if self.lane_flags.len() < other.lane_flags.len() {
            self.lane_flags.resize(other.lane_flags.len(), Vec::new());
        }
        for (mine, theirs) in self.lane_flags.iter_mut().zip(&other.lane_flags) {
            for f in theirs {
                if !mine.contains(f) {
                    mine.push(*f);
                }
            }
        }
        list(&mut self.performance, &other.performance);
    }

    fn alarm_thresholds(&self) -> Thresholds {
        Thresholds {
            temperature_c: alarm_set(self.temperature_alarm_c, |v| v),
            supply_voltage_v: alarm_set(self.supply_voltage_alarm_v, |v| v),
            rx_power_mw: alarm_set(self.rx_power_alarm_dbm, dbm_to_mw),
            tx_power_mw: alarm_set(self.tx_power_alarm_dbm, dbm_to_mw),
            tx_bias_ma: alarm_set(self.tx_bias_alarm_ma, |v| v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::optical::optical_margin;

    #[test]
    fn printed_values_become_a_report_with_alarm_thresholds() {
        let p = PrintedModule {
            tool: "mlxlink".into(),
            identifier: Some("OSFP".into()),
            rx_power_dbm: vec![Some(-1.0), None],
            tx_bias_ma: vec![Some(7.5), Some(7.6)],
            rx_power_alarm_dbm: Some(PrintedRange { low: -10.0, high: 4.0 }),
            ..Default::default()
        };
        let m = p.to_report();
        assert_eq!((m.standard, m.identifier), (Some(Standard::Cmis), Some(0x19)));
        assert_eq!(m.lanes.len(), 2);
        // -1 dBm = 0.7943 mW.
        assert!((m.lanes[0].rx_power_mw.unwrap() - 0.794_33).abs() < 1e-5);
        assert_eq!(m.lanes[1].rx_power_mw, None);
        // No warning printed: the margin is over the low alarm, -1 - (-10) = 9 dB.
        let om = optical_margin(m.lanes[0].rx_power_dbm, &m.thresholds, None).unwrap();
        assert_eq!(om.reference, Severity::LowAlarm);
        assert!((om.margin_db - 9.0).abs() < 1e-9);
    }

    #[test]
    fn a_capture_s_module_state_reads_back() {
        let read = |json: &str| serde_json::from_str::<PrintedModule>(json).unwrap().module_state;
        let p = PrintedModule { tool: "ethtool".into(), module_state: Some(ModuleState::Reserved(6)), ..Default::default() };
        let json = serde_json::to_string(&p).unwrap();
        assert!(json.contains(r#""module_state":"Reserved (6)""#), "{json}");
        assert_eq!(read(&json), Some(ModuleState::Reserved(6)));
        assert_eq!(read(r#"{"tool": "ethtool", "module_state": "ModulePwrUp"}"#), Some(ModuleState::PwrUp));
        // Written before the state was typed, from ethtool's text of a reserved code.
        assert_eq!(read(r#"{"tool": "ethtool", "module_state": "reserved or unknown"}"#), None);
        assert_eq!(read(r#"{"tool": "ethtool"}"#), None);
    }

    #[test]
    fn unknown_form_factor_is_said() {
        let m = PrintedModule { tool: "mlxlink".into(), identifier: Some("CXP".into()), ..Default::default() }.to_report();
        assert_eq!((m.standard, m.identifier, m.identifier_name.as_deref()), (None, None, Some("CXP")));
        assert_eq!((m.kind(None), m.standard_name()), ("CXP".to_string(), "management standard not known"));
        assert!(m.warnings[0].contains("no management standard is assumed"), "{:?}", m.warnings);
    }

    /// A module printed without its form factor (a paste of the diagnostics alone): no
    /// identifier, name or standard is made up for it.
    #[test]
    fn a_form_factor_not_printed_is_none() {
        let m = PrintedModule { tool: "ethtool -m".into(), tx_bias_ma: vec![Some(7.5)], ..Default::default() }.to_report();
        assert_eq!((m.standard, m.identifier, m.identifier_name.as_deref(), m.form_factor), (None, None, None, None));
        assert_eq!((m.kind(None), m.standard_name()), (String::new(), "form factor not printed"));
        assert_eq!(m.warnings[0], "module form factor not printed (ethtool -m): no management standard is assumed");
    }
}
