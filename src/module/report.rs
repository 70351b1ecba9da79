//! The decoded module: one model for all three standards. Its JSON form is a contract
//! (`optics decode --json`, and `module` in scan output): keys may be added, never renamed.
//! A value the module does not implement, or whose page is absent, is `None` (`null`), never 0.

use super::clone::clone_field_wise;
use super::flag::ModuleFlag;
use super::state::{DataPathState, ModuleState};
use super::threshold::ThresholdSet;
use serde::Serialize;
use std::borrow::Cow;

/// The management interface a module implements (`standard` in `decode --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Standard {
    /// SFF-8472 (SFP, SFP+, SFP28).
    #[serde(rename = "SFF-8472")]
    Sff8472,
    /// SFF-8636 / SFF-8436 (QSFP+, QSFP28).
    #[serde(rename = "SFF-8636")]
    Sff8636,
    /// CMIS 4.0/5.x (QSFP-DD, OSFP, QSFP112, ...).
    #[serde(rename = "CMIS")]
    Cmis,
}

impl Standard {
    /// The management interface an identifier implies (SFF-8024 Table 4-1 "Reference" column).
    pub(crate) fn for_identifier(id: u8) -> Option<Standard> {
        match id {
            // SFP family and GBIC-style serial ID: SFF-8472 (SFF-8079 for 0x03 without DDM).
            0x02 | 0x03 | 0x0b => Some(Standard::Sff8472),
            // QSFP/QSFP+/QSFP28: SFF-8436 / SFF-8636.
            0x0c | 0x0d | 0x11 => Some(Standard::Sff8636),
            // CMIS form factors.
            0x18 | 0x19 | 0x1a | 0x1b | 0x1e | 0x1f | 0x20 | 0x21 | 0x22 | 0x23 | 0x24 | 0x25 => Some(Standard::Cmis),
            _ => None,
        }
    }

    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            Standard::Sff8472 => "SFF-8472",
            Standard::Sff8636 => "SFF-8636",
            Standard::Cmis => "CMIS",
        }
    }
}

/// What the rx power monitor measures (SFF-8472 A0h byte 92 bit 3, SFF-8636 page 00h byte 220 bit 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RxPowerType {
    /// Average optical power.
    Average,
    /// Optical modulation amplitude.
    Oma,
}

/// Line signalling of a lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Modulation {
    /// Two-level non-return-to-zero.
    #[serde(rename = "NRZ")]
    Nrz,
    /// Four-level pulse amplitude modulation.
    #[serde(rename = "PAM4")]
    Pam4,
}

impl Modulation {
    /// Line modulation implied by an encoding code (SFF-8024 Table 4-2). Codes 01h-07h are
    /// two-level line codes in both columns, so one mapping serves SFF-8472 and SFF-8636.
    /// 00h (unspecified) and reserved codes give `None`.
    pub(crate) fn for_encoding(code: u8) -> Option<Modulation> {
        match code {
            0x01..=0x07 => Some(Modulation::Nrz),
            0x08 => Some(Modulation::Pam4),
            _ => None,
        }
    }
}

/// The module's alarm and warning thresholds per monitor, in each monitor's unit; `None` when not read.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Thresholds {
    /// Module temperature, degC.
    pub temperature_c: Option<ThresholdSet>,
    /// Supply voltage, V.
    pub supply_voltage_v: Option<ThresholdSet>,
    /// Per-lane rx power, mW.
    pub rx_power_mw: Option<ThresholdSet>,
    /// Per-lane tx power, mW.
    pub tx_power_mw: Option<ThresholdSet>,
    /// Per-lane tx bias current, mA.
    pub tx_bias_ma: Option<ThresholdSet>,
}

/// Per-lane monitors and flags. `lane` is 1-based. dBm of 0 mW is -inf (`null` in JSON).
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct LaneReport {
    /// Lane number, 1-based.
    pub lane: u8,
    /// Received optical power, mW.
    pub rx_power_mw: Option<f64>,
    /// Received optical power, dBm.
    pub rx_power_dbm: Option<f64>,
    /// Transmitted optical power, mW.
    pub tx_power_mw: Option<f64>,
    /// Transmitted optical power, dBm.
    pub tx_power_dbm: Option<f64>,
    /// Laser bias current, mA.
    pub tx_bias_ma: Option<f64>,
    /// Stable flag names: `rx_los`, `tx_los`, `rx_lol`, `tx_lol`, `tx_fault`,
    /// `tx_adaptive_eq_fault`, `{rx_power,tx_power,tx_bias}_{high,low}_{alarm,warning}`.
    pub flags: Vec<ModuleFlag>,
    /// CMIS data path state of the host lane (`DPActivated`, `DPInit`, ...), if read.
    pub data_path_state: Option<DataPathState>,
    /// CMIS Active Control Set (page 11h Table 8-86): the AppSel code of the data path
    /// this lane belongs to, and that data path's first lane (1-based); `None` when the
    /// lane is in no data path or the page was not read.
    pub(crate) app_sel: Option<u8>,
    pub(crate) data_path_first_lane: Option<u8>,
}

clone_field_wise!(LaneReport {
    lane,
    rx_power_mw,
    rx_power_dbm,
    tx_power_mw,
    tx_power_dbm,
    tx_bias_ma,
    flags,
    data_path_state,
    app_sel,
    data_path_first_lane
});

impl LaneReport {
    /// A lane with no monitors or flags read yet.
    pub fn new(lane: u8) -> Self {
        LaneReport { lane, ..Default::default() }
    }
    /// Sets rx power in mW and dBm together.
    pub(crate) fn set_rx_power_mw(&mut self, mw: f64) {
        self.rx_power_mw = Some(mw);
        self.rx_power_dbm = Some(super::units::mw_to_dbm(mw));
    }
    pub(crate) fn set_tx_power_mw(&mut self, mw: f64) {
        self.tx_power_mw = Some(mw);
        self.tx_power_dbm = Some(super::units::mw_to_dbm(mw));
    }
}

/// One advertised application (CMIS 5.2 8.2.11 / Table 8-23), or the one in use.
#[derive(Debug, PartialEq, Serialize)]
pub struct Application {
    /// 1-based AppSel code.
    pub app_sel: u8,
    /// Host electrical interface code (SFF-8024 Table 4-5).
    pub host_interface_id: u8,
    /// The SFF-8024 table's name, borrowed, or an unknown code's text (as `media_interface`).
    pub host_interface: Cow<'static, str>,
    /// Media interface code (SFF-8024 Tables 4-6 to 4-10, by media type).
    pub media_interface_id: u8,
    /// The media interface code's name, borrowed, or an unknown code's text.
    pub media_interface: Cow<'static, str>,
    /// Host lanes the application uses.
    pub host_lane_count: u8,
    /// Media lanes the application uses.
    pub media_lane_count: u8,
    /// Bit i set: the application may start on host lane i+1.
    pub host_lane_assignment: Option<u8>,
    /// Bit i set: the application may start on media lane i+1.
    pub media_lane_assignment: Option<u8>,
    /// Lane signalling of the application (media side when its code defines it, else host).
    pub modulation: Option<Modulation>,
    /// Nominal per-lane bit rates (SFF-8024 code tables); `None` when the code fixes none.
    pub host_lane_bit_rate_gbps: Option<f64>,
    /// Nominal media lane bit rate, Gb/s.
    pub media_lane_bit_rate_gbps: Option<f64>,
}

clone_field_wise!(Application {
    app_sel,
    host_interface_id,
    host_interface,
    media_interface_id,
    media_interface,
    host_lane_count,
    media_lane_count,
    host_lane_assignment,
    media_lane_assignment,
    modulation,
    host_lane_bit_rate_gbps,
    media_lane_bit_rate_gbps
});

/// A checksum the decoder verified. A mismatch is reported, never a refusal.
#[derive(Debug, PartialEq, Eq, Serialize)]
pub struct ChecksumCheck {
    /// Which checksum (`CC_BASE`, `CC_EXT`, ...).
    pub name: String,
    /// The checksum byte the module holds.
    pub stored: u8,
    /// The checksum worked out from the covered bytes.
    pub computed: u8,
    /// True when the two agree.
    pub ok: bool,
}

clone_field_wise!(ChecksumCheck { name, stored, computed, ok });

/// How the host asks a CMIS module for low power: Module Global Controls, lower memory
/// byte 26 (CMIS 5.2 8.2; ethtool `cmis.h` `CMIS_MODULE_CONTROL_OFFSET`). The module state
/// machine (CMIS 5.2 6.3.2) stays in ModuleLowPwr while LowPwrRequestSW is set, or while
/// LowPwrAllowRequestHW is set and the host asserts the LPMode signal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct LowPowerControls {
    /// LowPwrRequestSW (bit 4): the host asks for low power by writing the module.
    pub request_sw: bool,
    /// LowPwrAllowRequestHW (bit 6): the LPMode signal may ask for low power.
    pub allow_request_hw: bool,
}

/// A decoded module, one model for SFF-8472, SFF-8636 and CMIS (`module` in JSON).
#[derive(Debug, PartialEq, Serialize)]
pub struct ModuleReport {
    /// The management interface the identifier implies; `None` when nothing tells it (a
    /// printed module whose form factor was not printed, or is no SFF-8024 one).
    pub standard: Option<Standard>,
    /// SFF-8024 identifier code (byte 0); `None` when the source gives none (a printed
    /// module without its form factor, or with one SFF-8024 has no code for).
    pub identifier: Option<u8>,
    /// The identifier's name (SFF-8024 Table 4-1), or the form factor as a tool printed it;
    /// `None` when none was printed.
    pub identifier_name: Option<String>,
    /// The form factor as people name it ("QSFP28", "QSFP56", "OSFP"): the identifier's
    /// (SFF-8024 Table 4-1), told apart by the module's own compliance where one identifier
    /// covers several ([`super::sff8636`]: 0x11 "QSFP28 or later").
    pub(crate) form_factor: Option<&'static str>,
    /// Revision of the management spec the module claims, as text.
    pub spec_revision: Option<String>,
    /// Vendor name, as the module holds it (trailing spaces trimmed).
    pub vendor_name: Option<String>,
    /// Vendor IEEE company ID as hex bytes, `xx:xx:xx`.
    pub vendor_oui: Option<String>,
    /// Vendor part number.
    pub vendor_pn: Option<String>,
    /// Vendor serial number.
    pub vendor_sn: Option<String>,
    /// Vendor revision.
    pub vendor_rev: Option<String>,
    /// Manufacturing date code, as held (YYMMDD plus lot code).
    pub date_code: Option<String>,
    /// Connector code (SFF-8024 Table 4-3).
    pub connector: Option<u8>,
    /// The connector code's name.
    pub connector_name: Option<String>,
    /// Human-readable media / compliance description.
    pub media_type: Option<String>,
    /// Nominal wavelength in nm (optical modules).
    pub wavelength_nm: Option<f64>,
    /// Nominal signalling rate per lane in MBd (SFF-8472 byte 12, SFF-8636 bytes 140/222).
    pub nominal_signaling_rate_mbd: Option<u32>,
    /// Module temperature, degC.
    pub module_temperature_c: Option<f64>,
    /// Supply voltage, V.
    pub supply_voltage_v: Option<f64>,
    /// CMIS module state (ModuleLowPwr, ModuleReady, ...).
    pub module_state: Option<ModuleState>,
    /// The host's low-power requests to a CMIS module (byte 26); `None` where not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low_power_controls: Option<LowPowerControls>,
    /// Module-level flags (temperature/voltage alarms and warnings, module fault, ...).
    pub module_flags: Vec<ModuleFlag>,
    /// True when the module has only lower memory and page 00h (no paging).
    pub flat_memory: Option<bool>,
    /// What the rx power monitor measures.
    pub rx_power_type: Option<RxPowerType>,
    /// Line signalling of the module's lanes.
    pub modulation: Option<Modulation>,
    /// Line encoding name (SFF-8024 Table 4-2).
    pub encoding: Option<String>,
    /// Media lanes of the module.
    pub media_lane_count: Option<u8>,
    /// Host lanes of the module.
    pub host_lane_count: Option<u8>,
    /// The application in use (CMIS Active Control Set), if known.
    pub active_application: Option<Application>,
    /// Every application the module advertises (CMIS 5.2 Table 8-23).
    pub applications: Vec<Application>,
    /// Per-lane monitors and flags.
    pub lanes: Vec<LaneReport>,
    /// The module's alarm and warning thresholds.
    pub thresholds: Thresholds,
    /// CMIS VDM (pages 20h-2Fh) when page 01h advertises it.
    pub vdm: Option<super::vdm::VdmReport>,
    /// Every checksum the decoder verified.
    pub checksums: Vec<ChecksumCheck>,
    /// What the decoder found wrong but decoded past (checksum mismatches, bad codes), as text.
    pub warnings: Vec<String>,
}

clone_field_wise!(ModuleReport {
    standard,
    identifier,
    identifier_name,
    form_factor,
    spec_revision,
    vendor_name,
    vendor_oui,
    vendor_pn,
    vendor_sn,
    vendor_rev,
    date_code,
    connector,
    connector_name,
    media_type,
    wavelength_nm,
    nominal_signaling_rate_mbd,
    module_temperature_c,
    supply_voltage_v,
    module_state,
    low_power_controls,
    module_flags,
    flat_memory,
    rx_power_type,
    modulation,
    encoding,
    media_lane_count,
    host_lane_count,
    active_application,
    applications,
    lanes,
    thresholds,
    vdm,
    checksums,
    warnings
});

impl ModuleReport {
    /// What the module is, in a few words: its form factor and the application it runs
    /// ("OSFP 8x 100GBASE-DR", "QSFP56 200GBASE-SR4"). The application is the active one
    /// (CMIS: the media interface of the lanes' AppSel, times its lane count), else the
    /// compliance code; of the alternatives a compliance code lists ("50GBASE-SR,
    /// 100GBASE-SR2, or 200GBASE-SR4", SFF-8024 Table 4-4), the one at the link's
    /// `speed_mbps` when exactly one is.
    pub(crate) fn kind(&self, speed_mbps: Option<u32>) -> String {
        let application = match &self.active_application {
            // "100GBASE-DR (Clause 140)": the clause is for the decode listing.
            Some(app) => {
                let media = app.media_interface.split(" (").next().unwrap_or(&app.media_interface);
                // A one-lane interface (100GBASE-DR at 106.25 Gb/s a lane) runs on each media
                // lane; an aggregate one (800GBASE-DR8) already names them all.
                let name_gbps = media.split('G').next().and_then(|n| n.parse::<f64>().ok());
                let per_lane = matches!((name_gbps, app.media_lane_bit_rate_gbps), (Some(n), Some(r)) if n <= r);
                if per_lane && app.media_lane_count > 1 {
                    format!("{}x {media}", app.media_lane_count)
                } else {
                    media.to_string()
                }
            }
            None => match &self.media_type {
                Some(m) => {
                    let alternatives: Vec<&str> = m
                        .split(", ")
                        .flat_map(|p| p.split(" or "))
                        .map(|p| p.trim_start_matches("or ").trim())
                        .filter(|p| !p.is_empty())
                        .collect();
                    let at_speed = |a: &&str| speed_mbps.is_some_and(|s| a.starts_with(&format!("{}GBASE-", s / 1000)));
                    match alternatives.into_iter().filter(at_speed).collect::<Vec<_>>()[..] {
                        [one] => one.to_string(),
                        _ => m.clone(),
                    }
                }
                None => String::new(),
            },
        };
        match self.form_factor.map(str::to_string).or_else(|| self.identifier_name.clone()) {
            Some(form) if application.is_empty() => form,
            Some(form) => format!("{form} {application}"),
            None => application,
        }
    }

    /// The management standard's name, or why there is none: a printed module whose form
    /// factor was not printed, or is one SFF-8024 gives no code.
    pub(crate) fn standard_name(&self) -> &'static str {
        match (self.standard, &self.identifier_name) {
            (Some(s), _) => s.as_str(),
            (None, Some(_)) => "management standard not known",
            (None, None) => "form factor not printed",
        }
    }

    /// An empty report for `standard` with its SFF-8024 identifier (`None`: byte 0 not
    /// read, so no identifier, name or form factor); decoders fill what the image holds.
    pub fn new(standard: Standard, identifier: Option<u8>) -> Self {
        ModuleReport {
            standard: Some(standard),
            identifier,
            identifier_name: identifier.map(super::sff8024::identifier_name),
            form_factor: identifier.and_then(super::sff8024::form_factor),
            spec_revision: None,
            vendor_name: None,
            vendor_oui: None,
            vendor_pn: None,
            vendor_sn: None,
            vendor_rev: None,
            date_code: None,
            connector: None,
            connector_name: None,
            media_type: None,
            wavelength_nm: None,
            nominal_signaling_rate_mbd: None,
            module_temperature_c: None,
            supply_voltage_v: None,
            module_state: None,
            low_power_controls: None,
            module_flags: Vec::new(),
            flat_memory: None,
            rx_power_type: None,
            modulation: None,
            encoding: None,
            media_lane_count: None,
            host_lane_count: None,
            active_application: None,
            applications: Vec::new(),
            lanes: Vec::new(),
            thresholds: Thresholds::default(),
            vdm: None,
            checksums: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// Every checksum the image carries fails, and it carries at least two (SFF-8472
    /// CC_BASE and CC_EXT, SFF-8636 the same, CMIS the page checksums): not one mis-set
    /// byte (a warning, as Linux sfp.c treats it) but a read that returned garbage.
    pub fn image_corrupt(&self) -> bool {
        self.checksums.len() >= 2 && self.checksums.iter().all(|c| !c.ok)
    }

    /// Records a checksum result, adding a warning on mismatch.
    pub fn check_sum(&mut self, name: &str, stored: u8, computed: u8) {
        let ok = stored == computed;
        if !ok {
            self.warnings.push(format!("{name} checksum mismatch: stored {stored:#04x}, computed {computed:#04x}"));
        }
        self.checksums.push(ChecksumCheck { name: name.to_string(), stored, computed, ok });
    }
}

/// Low 8 bits of the byte sum: the checksum rule of SFF-8472 (CC_BASE/CC_EXT),
/// SFF-8636 (CC_BASE/CC_EXT) and CMIS (page checksums).
pub fn checksum8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |acc, b| acc.wrapping_add(*b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_name_their_standard() {
        assert_eq!(Standard::for_identifier(0x7e), None);
        assert_eq!(Standard::for_identifier(0x18), Some(Standard::Cmis));
    }

    #[test]
    fn modulation_follows_encoding() {
        assert_eq!(Modulation::for_encoding(0x08), Some(Modulation::Pam4));
        assert_eq!(Modulation::for_encoding(0x06), Some(Modulation::Nrz));
        assert_eq!(Modulation::for_encoding(0x03), Some(Modulation::Nrz));
        assert_eq!(Modulation::for_encoding(0x00), None);
        assert_eq!(Modulation::for_encoding(0x09), None);
    }
}
