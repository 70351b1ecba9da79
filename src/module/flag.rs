//! Module flags: the status and threshold bits a transceiver latches, as one vocabulary for
//! every decoder (SFF-8472 Rev 12.4 Table 9-11 byte 110 and Table 9-12; SFF-8636 Rev 2.11
//! Tables 6-4 to 6-6; CMIS 5.2 Table 8-9 and Table 8-80/8-81) and every tool printout that
//! names them. A flag is written as its stable name (`rx_los`, `tx_bias_high_alarm`): that
//! text is the contract of the JSON, the capture format and the `optics_lane_flag` metric.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A quantity the module monitors against alarm and warning thresholds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Monitor {
    /// Module case temperature.
    Temperature,
    /// Supply voltage (Vcc).
    SupplyVoltage,
    /// CMIS auxiliary monitor 1 (Table 8-9).
    Aux1,
    /// CMIS auxiliary monitor 2.
    Aux2,
    /// CMIS auxiliary monitor 3.
    Aux3,
    /// CMIS custom monitor.
    CustomMonitor,
    /// Received optical power, per lane.
    RxPower,
    /// Transmitted optical power, per lane.
    TxPower,
    /// Laser bias current, per lane.
    TxBias,
}

impl Monitor {
    /// Every monitor a flag can name.
    pub(crate) const ALL: [Monitor; 9] = [
        Monitor::Temperature,
        Monitor::SupplyVoltage,
        Monitor::Aux1,
        Monitor::Aux2,
        Monitor::Aux3,
        Monitor::CustomMonitor,
        Monitor::RxPower,
        Monitor::TxPower,
        Monitor::TxBias,
    ];

    /// Its name as the flags begin with it (`supply_voltage`).
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Monitor::Temperature => "temperature",
            Monitor::SupplyVoltage => "supply_voltage",
            Monitor::Aux1 => "aux1",
            Monitor::Aux2 => "aux2",
            Monitor::Aux3 => "aux3",
            Monitor::CustomMonitor => "custom_monitor",
            Monitor::RxPower => "rx_power",
            Monitor::TxPower => "tx_power",
            Monitor::TxBias => "tx_bias",
        }
    }

    /// Its four threshold flags' names, in [`Severity::ALL`] order.
    const fn limit_names(self) -> [&'static str; 4] {
        match self {
            Monitor::Temperature => {
                ["temperature_high_alarm", "temperature_low_alarm", "temperature_high_warning", "temperature_low_warning"]
            }
            Monitor::SupplyVoltage => {
                ["supply_voltage_high_alarm", "supply_voltage_low_alarm", "supply_voltage_high_warning", "supply_voltage_low_warning"]
            }
            Monitor::Aux1 => ["aux1_high_alarm", "aux1_low_alarm", "aux1_high_warning", "aux1_low_warning"],
            Monitor::Aux2 => ["aux2_high_alarm", "aux2_low_alarm", "aux2_high_warning", "aux2_low_warning"],
            Monitor::Aux3 => ["aux3_high_alarm", "aux3_low_alarm", "aux3_high_warning", "aux3_low_warning"],
            Monitor::CustomMonitor => {
                ["custom_monitor_high_alarm", "custom_monitor_low_alarm", "custom_monitor_high_warning", "custom_monitor_low_warning"]
            }
            Monitor::RxPower => ["rx_power_high_alarm", "rx_power_low_alarm", "rx_power_high_warning", "rx_power_low_warning"],
            Monitor::TxPower => ["tx_power_high_alarm", "tx_power_low_alarm", "tx_power_high_warning", "tx_power_low_warning"],
            Monitor::TxBias => ["tx_bias_high_alarm", "tx_bias_low_alarm", "tx_bias_high_warning", "tx_bias_low_warning"],
        }
    }
}

/// Which of a monitor's four thresholds, in the order all three specs lay their bits out
/// and ethtool prints them (`sff-common.c` `sff_show_thresholds`): SFF-8636 Table 6-5's
/// nibble from its most significant bit, CMIS 5.2 Table 8-9's bits from bit 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// Above the high alarm threshold.
    HighAlarm,
    /// Below the low alarm threshold.
    LowAlarm,
    /// Above the high warning threshold.
    HighWarning,
    /// Below the low warning threshold.
    LowWarning,
}

impl Severity {
    /// The four, in spec order.
    pub(crate) const ALL: [Severity; 4] = [Severity::HighAlarm, Severity::LowAlarm, Severity::HighWarning, Severity::LowWarning];

    /// The flag suffix (`high_alarm`), as `ModuleReport` flags and ethtool's JSON keys name it.
    pub(crate) const fn suffix(self) -> &'static str {
        match self {
            Severity::HighAlarm => "high_alarm",
            Severity::LowAlarm => "low_alarm",
            Severity::HighWarning => "high_warning",
            Severity::LowWarning => "low_warning",
        }
    }

    /// Below a low threshold (rather than above a high one).
    pub(crate) const fn is_low(self) -> bool {
        matches!(self, Severity::LowAlarm | Severity::LowWarning)
    }
}

/// The transmit or the receive path of a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// The transmitter (host to media).
    Tx,
    /// The receiver (media to host).
    Rx,
}

/// What a flag says, whatever it is about: the verdict's reading of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlagKind {
    /// A monitor past its alarm threshold.
    Alarm,
    /// A monitor past its warning threshold.
    Warning,
    /// A fault the module reports (transmitter, equaliser, firmware).
    Fault,
    /// Loss of signal.
    Los,
    /// Loss of lock (CDR).
    Lol,
    /// A state change to note, neither a fault nor a limit crossing.
    Event,
}

/// One module flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ModuleFlag {
    /// `{monitor}_{high|low}_{alarm|warning}`: a monitor past one of its thresholds.
    Limit(Monitor, Severity),
    /// `rx_los` / `tx_los`: loss of signal.
    Los(Side),
    /// `rx_lol` / `tx_lol`: loss of lock.
    Lol(Side),
    /// `tx_fault`: the transmitter reports a fault.
    TxFault,
    /// `tx_adaptive_eq_fault`: the transmit input's adaptive equaliser failed.
    TxAdaptiveEqFault,
    /// `module_firmware_fault` (CMIS 5.2 Table 8-9).
    ModuleFirmwareFault,
    /// `datapath_firmware_fault` (CMIS 5.2 Table 8-9).
    DatapathFirmwareFault,
    /// `module_state_changed` (CMIS 5.2 Table 8-9).
    ModuleStateChanged,
}

/// The flags that are not a threshold crossing.
const STATUS: [ModuleFlag; 9] = [
    ModuleFlag::Los(Side::Rx),
    ModuleFlag::Los(Side::Tx),
    ModuleFlag::Lol(Side::Rx),
    ModuleFlag::Lol(Side::Tx),
    ModuleFlag::TxFault,
    ModuleFlag::TxAdaptiveEqFault,
    ModuleFlag::ModuleFirmwareFault,
    ModuleFlag::DatapathFirmwareFault,
    ModuleFlag::ModuleStateChanged,
];

impl ModuleFlag {
    /// Its stable name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ModuleFlag::Limit(m, s) => m.limit_names()[s as usize],
            ModuleFlag::Los(Side::Rx) => "rx_los",
            ModuleFlag::Los(Side::Tx) => "tx_los",
            ModuleFlag::Lol(Side::Rx) => "rx_lol",
            ModuleFlag::Lol(Side::Tx) => "tx_lol",
            ModuleFlag::TxFault => "tx_fault",
            ModuleFlag::TxAdaptiveEqFault => "tx_adaptive_eq_fault",
            ModuleFlag::ModuleFirmwareFault => "module_firmware_fault",
            ModuleFlag::DatapathFirmwareFault => "datapath_firmware_fault",
            ModuleFlag::ModuleStateChanged => "module_state_changed",
        }
    }

    /// What the flag says.
    pub(crate) const fn kind(self) -> FlagKind {
        match self {
            ModuleFlag::Limit(_, Severity::HighAlarm | Severity::LowAlarm) => FlagKind::Alarm,
            ModuleFlag::Limit(_, Severity::HighWarning | Severity::LowWarning) => FlagKind::Warning,
            ModuleFlag::Los(_) => FlagKind::Los,
            ModuleFlag::Lol(_) => FlagKind::Lol,
            ModuleFlag::TxFault | ModuleFlag::TxAdaptiveEqFault | ModuleFlag::ModuleFirmwareFault | ModuleFlag::DatapathFirmwareFault => {
                FlagKind::Fault
            }
            ModuleFlag::ModuleStateChanged => FlagKind::Event,
        }
    }

    /// `monitor` below one of its low thresholds (alarm or warning).
    pub(crate) fn is_low(self, monitor: Monitor) -> bool {
        matches!(self, ModuleFlag::Limit(m, s) if m == monitor && s.is_low())
    }

    /// Every flag there is.
    pub(crate) fn all() -> impl Iterator<Item = ModuleFlag> {
        Monitor::ALL.into_iter().flat_map(|m| Severity::ALL.map(|s| ModuleFlag::Limit(m, s))).chain(STATUS)
    }

    /// The flag of a stable name.
    pub(crate) fn from_name(name: &str) -> Option<ModuleFlag> {
        ModuleFlag::all().find(|f| f.as_str() == name)
    }
}

/// Flags' names joined by `sep`, as the text output lists them.
pub(crate) fn join_flags(flags: &[ModuleFlag], sep: &str) -> String {
    flags.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(sep)
}

impl Serialize for Severity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.suffix())
    }
}

impl fmt::Display for ModuleFlag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ModuleFlag {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ModuleFlag {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<str>>::deserialize(d)?;
        ModuleFlag::from_name(&name).ok_or_else(|| serde::de::Error::custom(format_args!("unknown module flag {name:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_read_back() {
        let all: Vec<ModuleFlag> = ModuleFlag::all().collect();
        let mut names: Vec<&str> = all.iter().map(|f| f.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), all.len());
        for f in all {
            assert_eq!(ModuleFlag::from_name(f.as_str()), Some(f));
            let json = serde_json::to_string(&f).unwrap();
            assert_eq!(json, format!("\"{f}\""));
            assert_eq!(serde_json::from_str::<ModuleFlag>(&json).unwrap(), f);
        }
        assert!(serde_json::from_str::<ModuleFlag>("\"rx_power_sideways\"").is_err());
    }

    #[test]
    fn kinds_follow_the_spec_tables() {
        assert_eq!(ModuleFlag::from_name("rx_power_low_alarm").map(ModuleFlag::kind), Some(FlagKind::Alarm));
        assert_eq!(ModuleFlag::from_name("temperature_high_warning").map(ModuleFlag::kind), Some(FlagKind::Warning));
        assert_eq!(ModuleFlag::from_name("module_firmware_fault").map(ModuleFlag::kind), Some(FlagKind::Fault));
        assert_eq!(ModuleFlag::from_name("tx_lol").map(ModuleFlag::kind), Some(FlagKind::Lol));
        assert_eq!(ModuleFlag::Limit(Monitor::TxBias, Severity::LowWarning).as_str(), "tx_bias_low_warning");
        for m in Monitor::ALL {
            for s in Severity::ALL {
                assert_eq!(ModuleFlag::Limit(m, s).as_str(), format!("{}_{}", m.as_str(), s.suffix()));
            }
        }
    }
}
