//! SFF-8472 (Rev 12.4) SFP/SFP+/SFP28 decoder: A0h (I2C 0x50) serial ID, A2h (I2C 0x51)
//! diagnostics with internal or external calibration.
//!
//! Monitors go through three steps: raw A/D word -> calibrated word (the internal-calibration
//! encoding, SFF-8472 9.2) -> SI units via [`units`]. Internally calibrated modules skip the
//! middle step; externally calibrated ones (A0h byte 92 bit 4) apply the constants of
//! SFF-8472 Rev 12.4 9.3 / Table 9-6.

use super::flag::{ModuleFlag, Monitor as FlagMonitor, Severity, Side};
use super::image::{ModuleImage, I2C_A0, I2C_A2};
use super::map::Field;
use super::report::Modulation;
use super::report::{checksum8, LaneReport, ModuleReport, RxPowerType, Standard};
use super::threshold::ThresholdSet;
use super::{sff8024, units, PageRequest};
use calibration::{to_si, Calibration, Monitor, MONITORS};

mod calibration;

// ---------------------------------------------------------------------------------------
// A0h serial ID (SFF-8472 Rev 12.4 Table 4-1).

const IDENTIFIER: Field = Field::new("identifier", I2C_A0, 0, 0, 1);
const CONNECTOR: Field = Field::new("connector", I2C_A0, 0, 2, 1);
/// Transceiver compliance codes, bytes 3-10 (Table 5-3).
const TRANSCEIVER: Field = Field::new("transceiver", I2C_A0, 0, 3, 8);
const ENCODING: Field = Field::new("encoding", I2C_A0, 0, 11, 1);
/// Nominal signalling rate, units of 100 MBd; FFh = see byte 66.
const BR_NOMINAL: Field = Field::new("br_nominal", I2C_A0, 0, 12, 1);
const VENDOR_NAME: Field = Field::new("vendor_name", I2C_A0, 0, 20, 16);
/// Extended specification compliance (SFF-8024 Table 4-4).
const EXT_COMPLIANCE: Field = Field::new("ext_compliance", I2C_A0, 0, 36, 1);
const VENDOR_OUI: Field = Field::new("vendor_oui", I2C_A0, 0, 37, 3);
const VENDOR_PN: Field = Field::new("vendor_pn", I2C_A0, 0, 40, 16);
const VENDOR_REV: Field = Field::new("vendor_rev", I2C_A0, 0, 56, 4);
/// Laser wavelength in nm, or cable compliance for SFP+ cables (Tables 8-1 to 8-3).
const WAVELENGTH: Field = Field::new("wavelength_or_cable_compliance", I2C_A0, 0, 60, 2);
const CC_BASE: Field = Field::new("cc_base", I2C_A0, 0, 63, 1);
/// Upper bit-rate margin, or the nominal rate in units of 250 MBd when byte 12 is FFh.
const BR_MAX: Field = Field::new("br_max", I2C_A0, 0, 66, 1);
pub(crate) const VENDOR_SN: Field = Field::new("vendor_sn", I2C_A0, 0, 68, 16);
/// YYMMDD plus a 2-character lot code (Table 8-4).
const DATE_CODE: Field = Field::new("date_code", I2C_A0, 0, 84, 8);
const DIAG_TYPE: Field = Field::new("diagnostic_monitoring_type", I2C_A0, 0, 92, 1);
const ENHANCED_OPTIONS: Field = Field::new("enhanced_options", I2C_A0, 0, 93, 1);
const SFF8472_COMPLIANCE: Field = Field::new("sff8472_compliance", I2C_A0, 0, 94, 1);
const CC_EXT: Field = Field::new("cc_ext", I2C_A0, 0, 95, 1);

/// Every A0h field this decoder reads: the inventory the overlap test checks.
#[cfg(test)]
const A0_FIELDS: &[Field] = &[
    IDENTIFIER,
    CONNECTOR,
    TRANSCEIVER,
    ENCODING,
    BR_NOMINAL,
    VENDOR_NAME,
    EXT_COMPLIANCE,
    VENDOR_OUI,
    VENDOR_PN,
    VENDOR_REV,
    WAVELENGTH,
    CC_BASE,
    BR_MAX,
    VENDOR_SN,
    DATE_CODE,
    DIAG_TYPE,
    ENHANCED_OPTIONS,
    SFF8472_COMPLIANCE,
    CC_EXT,
];

// A0h byte 92, Diagnostic Monitoring Type (Table 8-5).
const DIAG_DDM_IMPLEMENTED: u8 = 1 << 6;
const DIAG_INTERNAL_CAL: u8 = 1 << 5;
const DIAG_EXTERNAL_CAL: u8 = 1 << 4;
/// Set: received power is average power; clear: OMA.
const DIAG_RX_POWER_AVERAGE: u8 = 1 << 3;
const DIAG_ADDRESS_CHANGE: u8 = 1 << 2;

// A0h byte 93, Enhanced Options (Table 8-6).
const ENH_ALARM_WARNING_FLAGS: u8 = 1 << 7;
const ENH_SOFT_TX_FAULT: u8 = 1 << 5;
const ENH_SOFT_RX_LOS: u8 = 1 << 4;

// A0h byte 8 bits 3-2, SFP+ cable technology (Table 5-3).
const CABLE_ACTIVE: u8 = 1 << 3;
const CABLE_PASSIVE: u8 = 1 << 2;

/// One bit of the transceiver compliance codes, A0h bytes 3-10 (Table 5-3), in the order
/// they are listed in `media_type`. FC link length / technology / media bits describe
/// variants, not the medium, and are left out; cable technology is handled on its own.
struct ComplianceBit {
    /// A0h offset (3-10).
    offset: u8,
    mask: u8,
    name: &'static str,
}

const fn cb(offset: u8, mask: u8, name: &'static str) -> ComplianceBit {
    ComplianceBit { offset, mask, name }
}

const COMPLIANCE_BITS: &[ComplianceBit] = &[
    cb(3, 0x80, "10GBASE-ER"),
    cb(3, 0x40, "10GBASE-LRM"),
    cb(3, 0x20, "10GBASE-LR"),
    cb(3, 0x10, "10GBASE-SR"),
    cb(6, 0x80, "BASE-PX"),
    cb(6, 0x40, "BASE-BX10"),
    cb(6, 0x20, "100BASE-FX"),
    cb(6, 0x10, "100BASE-LX/LX10"),
    cb(6, 0x08, "1000BASE-T"),
    cb(6, 0x04, "1000BASE-CX"),
    cb(6, 0x02, "1000BASE-LX"),
    cb(6, 0x01, "1000BASE-SX"),
    cb(3, 0x08, "InfiniBand 1X SX"),
    cb(3, 0x04, "InfiniBand 1X LX"),
    cb(3, 0x02, "InfiniBand 1X Copper Active"),
    cb(3, 0x01, "InfiniBand 1X Copper Passive"),
    cb(4, 0x80, "ESCON MMF 1310 nm LED"),
    cb(4, 0x40, "ESCON SMF 1310 nm Laser"),
    cb(4, 0x20, "OC-192 short reach"),
    cb(4, 0x04, "OC-48 long reach"),
    cb(4, 0x02, "OC-48 intermediate reach"),
    cb(4, 0x01, "OC-48 short reach"),
    cb(5, 0x40, "OC-12 single mode long reach"),
    cb(5, 0x20, "OC-12 single mode intermediate reach"),
    cb(5, 0x10, "OC-12 short reach"),
    cb(5, 0x04, "OC-3 single mode long reach"),
    cb(5, 0x02, "OC-3 single mode intermediate reach"),
    cb(5, 0x01, "OC-3 short reach"),
    cb(10, 0x08, "Fibre Channel 3200 MBytes/sec"),
    cb(10, 0x20, "Fibre Channel 1600 MBytes/sec"),
    cb(10, 0x80, "Fibre Channel 1200 MBytes/sec"),
    cb(10, 0x40, "Fibre Channel 800 MBytes/sec"),
    cb(10, 0x10, "Fibre Channel 400 MBytes/sec"),
    cb(10, 0x04, "Fibre Channel 200 MBytes/sec"),
    cb(10, 0x01, "Fibre Channel 100 MBytes/sec"),
];

/// A0h byte 60 for SFP+ cables: passive (Table 8-2, bits 0-1) and active (Table 8-3, bits 0-3).
const CABLE_COMPLIANCE_BITS: &[(u8, &str, bool)] = &[
    // (mask, standard, defined for active cables only)
    (0x01, "SFF-8431 Appendix E", false),
    (0x02, "FC-PI-4 Annex H", false),
    (0x04, "SFF-8431 limiting", true),
    (0x08, "FC-PI-4 limiting", true),
];

/// A0h byte 94, SFF-8472 Compliance (Table 8-8).
const SFF8472_REVISIONS: &[(u8, &str)] = &[
    (0x01, "Rev 9.3"),
    (0x02, "Rev 9.5"),
    (0x03, "Rev 10.2"),
    (0x04, "Rev 10.4"),
    (0x05, "Rev 11.0"),
    (0x06, "Rev 11.3"),
    (0x07, "Rev 11.4"),
    (0x08, "Rev 12.3"),
    (0x09, "Rev 12.4"),
];

// ---------------------------------------------------------------------------------------
// A2h diagnostics (SFF-8472 Rev 12.4 Table 9-5 thresholds, 9-6 calibration, 9-11 monitors).

/// Each threshold block: high alarm, low alarm, high warning, low warning (Table 9-5).
const TEMPERATURE_THRESHOLDS: Field = Field::new("temperature_thresholds", I2C_A2, 0, 0, 8);
const VOLTAGE_THRESHOLDS: Field = Field::new("voltage_thresholds", I2C_A2, 0, 8, 8);
const TX_BIAS_THRESHOLDS: Field = Field::new("tx_bias_thresholds", I2C_A2, 0, 16, 8);
const TX_POWER_THRESHOLDS: Field = Field::new("tx_power_thresholds", I2C_A2, 0, 24, 8);
const RX_POWER_THRESHOLDS: Field = Field::new("rx_power_thresholds", I2C_A2, 0, 32, 8);
/// Rx power polynomial coefficients, big-endian IEEE-754 singles (Table 9-6).
const RX_PWR_4: Field = Field::new("rx_pwr_4", I2C_A2, 0, 56, 4);
const RX_PWR_3: Field = Field::new("rx_pwr_3", I2C_A2, 0, 60, 4);
const RX_PWR_2: Field = Field::new("rx_pwr_2", I2C_A2, 0, 64, 4);
const RX_PWR_1: Field = Field::new("rx_pwr_1", I2C_A2, 0, 68, 4);
const RX_PWR_0: Field = Field::new("rx_pwr_0", I2C_A2, 0, 72, 4);
/// Slopes: unsigned 8.8 fixed point; offsets: signed, in the monitor's LSB (Table 9-6).
const TX_I_SLOPE: Field = Field::new("tx_i_slope", I2C_A2, 0, 76, 2);
const TX_I_OFFSET: Field = Field::new("tx_i_offset", I2C_A2, 0, 78, 2);
const TX_PWR_SLOPE: Field = Field::new("tx_pwr_slope", I2C_A2, 0, 80, 2);
const TX_PWR_OFFSET: Field = Field::new("tx_pwr_offset", I2C_A2, 0, 82, 2);
const T_SLOPE: Field = Field::new("t_slope", I2C_A2, 0, 84, 2);
const T_OFFSET: Field = Field::new("t_offset", I2C_A2, 0, 86, 2);
const V_SLOPE: Field = Field::new("v_slope", I2C_A2, 0, 88, 2);
const V_OFFSET: Field = Field::new("v_offset", I2C_A2, 0, 90, 2);
const CC_DMI: Field = Field::new("cc_dmi", I2C_A2, 0, 95, 1);
const TEMPERATURE: Field = Field::new("temperature", I2C_A2, 0, 96, 2);
const VCC: Field = Field::new("vcc", I2C_A2, 0, 98, 2);
const TX_BIAS: Field = Field::new("tx_bias", I2C_A2, 0, 100, 2);
const TX_POWER: Field = Field::new("tx_power", I2C_A2, 0, 102, 2);
const RX_POWER: Field = Field::new("rx_power", I2C_A2, 0, 104, 2);
/// Status/control (Table 9-11): bit 2 TX_FAULT, bit 1 RX_LOS, bit 0 Data_Ready_Bar.
const STATUS_CONTROL: Field = Field::new("status_control", I2C_A2, 0, 110, 1);
/// Alarm and warning flags (Table 9-12).
const ALARM_FLAGS_0: Field = Field::new("alarm_flags_112", I2C_A2, 0, 112, 1);
const ALARM_FLAGS_1: Field = Field::new("alarm_flags_113", I2C_A2, 0, 113, 1);
const WARNING_FLAGS_0: Field = Field::new("warning_flags_116", I2C_A2, 0, 116, 1);
const WARNING_FLAGS_1: Field = Field::new("warning_flags_117", I2C_A2, 0, 117, 1);

/// Every A2h field this decoder reads: the inventory the overlap test checks.
#[cfg(test)]
const A2_FIELDS: &[Field] = &[
    TEMPERATURE_THRESHOLDS,
    VOLTAGE_THRESHOLDS,
    TX_BIAS_THRESHOLDS,
    TX_POWER_THRESHOLDS,
    RX_POWER_THRESHOLDS,
    RX_PWR_4,
    RX_PWR_3,
    RX_PWR_2,
    RX_PWR_1,
    RX_PWR_0,
    TX_I_SLOPE,
    TX_I_OFFSET,
    TX_PWR_SLOPE,
    TX_PWR_OFFSET,
    T_SLOPE,
    T_OFFSET,
    V_SLOPE,
    V_OFFSET,
    CC_DMI,
    TEMPERATURE,
    VCC,
    TX_BIAS,
    TX_POWER,
    RX_POWER,
    STATUS_CONTROL,
    ALARM_FLAGS_0,
    ALARM_FLAGS_1,
    WARNING_FLAGS_0,
    WARNING_FLAGS_1,
];

/// Bytes 96-119: monitors, status, flags and extended status, re-read on every sample.
const MONITOR_REQUEST: PageRequest = PageRequest::new(I2C_A2, 0, 0, 96, 24);

/// A checksum: the low 8 bits of the sum of `covered` must equal `stored` (SFF-8472 CC_BASE, CC_EXT and CC_DMI definitions).
struct ChecksumSpan {
    name: &'static str,
    covered: Field,
    stored: Field,
}

const CHECKSUMS: &[ChecksumSpan] = &[
    ChecksumSpan { name: "CC_BASE", covered: Field::new("base_id", I2C_A0, 0, 0, 63), stored: CC_BASE },
    ChecksumSpan { name: "CC_EXT", covered: Field::new("extended_id", I2C_A0, 0, 64, 31), stored: CC_EXT },
    ChecksumSpan { name: "CC_DMI", covered: Field::new("diagnostics", I2C_A2, 0, 0, 95), stored: CC_DMI },
];

// ---------------------------------------------------------------------------------------
// Flags (Table 9-11 status bits, Table 9-12 alarm and warning flags).

#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    Module,
    Lane,
}

struct FlagBit {
    field: Field,
    mask: u8,
    flag: ModuleFlag,
    scope: Scope,
    /// A0h byte 93 bit that says the flag is implemented.
    requires: u8,
}

const fn flag(field: Field, bit: u8, flag: ModuleFlag, scope: Scope, requires: u8) -> FlagBit {
    FlagBit { field, mask: 1 << bit, flag, scope, requires }
}

const FLAG_BITS: &[FlagBit] = &[
    flag(STATUS_CONTROL, 2, ModuleFlag::TxFault, Scope::Lane, ENH_SOFT_TX_FAULT),
    flag(STATUS_CONTROL, 1, ModuleFlag::Los(Side::Rx), Scope::Lane, ENH_SOFT_RX_LOS),
    flag(ALARM_FLAGS_0, 7, ModuleFlag::Limit(FlagMonitor::Temperature, Severity::HighAlarm), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 6, ModuleFlag::Limit(FlagMonitor::Temperature, Severity::LowAlarm), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 5, ModuleFlag::Limit(FlagMonitor::SupplyVoltage, Severity::HighAlarm), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 4, ModuleFlag::Limit(FlagMonitor::SupplyVoltage, Severity::LowAlarm), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 3, ModuleFlag::Limit(FlagMonitor::TxBias, Severity::HighAlarm), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 2, ModuleFlag::Limit(FlagMonitor::TxBias, Severity::LowAlarm), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 1, ModuleFlag::Limit(FlagMonitor::TxPower, Severity::HighAlarm), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_0, 0, ModuleFlag::Limit(FlagMonitor::TxPower, Severity::LowAlarm), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_1, 7, ModuleFlag::Limit(FlagMonitor::RxPower, Severity::HighAlarm), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(ALARM_FLAGS_1, 6, ModuleFlag::Limit(FlagMonitor::RxPower, Severity::LowAlarm), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 7, ModuleFlag::Limit(FlagMonitor::Temperature, Severity::HighWarning), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 6, ModuleFlag::Limit(FlagMonitor::Temperature, Severity::LowWarning), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 5, ModuleFlag::Limit(FlagMonitor::SupplyVoltage, Severity::HighWarning), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 4, ModuleFlag::Limit(FlagMonitor::SupplyVoltage, Severity::LowWarning), Scope::Module, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 3, ModuleFlag::Limit(FlagMonitor::TxBias, Severity::HighWarning), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 2, ModuleFlag::Limit(FlagMonitor::TxBias, Severity::LowWarning), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 1, ModuleFlag::Limit(FlagMonitor::TxPower, Severity::HighWarning), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_0, 0, ModuleFlag::Limit(FlagMonitor::TxPower, Severity::LowWarning), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_1, 7, ModuleFlag::Limit(FlagMonitor::RxPower, Severity::HighWarning), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
    flag(WARNING_FLAGS_1, 6, ModuleFlag::Limit(FlagMonitor::RxPower, Severity::LowWarning), Scope::Lane, ENH_ALARM_WARNING_FLAGS),
];

// ---------------------------------------------------------------------------------------

/// Reads fields of one image and remembers which ones were not supplied.
struct Reader<'a> {
    img: &'a ModuleImage,
    missing: Vec<&'static str>,
}

impl<'a> Reader<'a> {
    fn new(img: &'a ModuleImage) -> Self {
        Reader { img, missing: Vec::new() }
    }
    fn read(&mut self, f: Field) -> Option<&'a [u8]> {
        let bytes = f.read(self.img, 0);
        if bytes.is_none() && !self.missing.contains(&f.name) {
            self.missing.push(f.name);
        }
        bytes
    }
    fn byte(&mut self, f: Field) -> Option<u8> {
        self.read(f).and_then(|b| b.first().copied())
    }
    fn word(&mut self, f: Field) -> Option<[u8; 2]> {
        self.read(f).and_then(|b| Some([*b.first()?, *b.get(1)?]))
    }
    fn ascii(&mut self, f: Field) -> Option<String> {
        self.read(f).map(super::map::ascii_trimmed).filter(|s| !s.is_empty())
    }
}

fn ddm_implemented(img: &ModuleImage) -> bool {
    DIAG_TYPE.byte(img, 0).is_some_and(|b| b & DIAG_DDM_IMPLEMENTED != 0)
}

/// A2h is worth reading when the module implements DDM (A0h byte 92 bit 6) and does not
/// need the address change sequence (bit 2, SFF-8472 8.9): neither the kernel nor a plain
/// I2C read performs that sequence, so such a module's A2h is not what it seems
/// (Linux sfp.c refuses it too).
fn a2h_readable(img: &ModuleImage) -> bool {
    ddm_implemented(img) && DIAG_TYPE.byte(img, 0).is_some_and(|b| b & DIAG_ADDRESS_CHANGE == 0)
}

/// A0h lower and upper half, plus A2h lower half when it is readable (`a2h_readable`).
pub fn static_pages(img: &ModuleImage) -> Vec<PageRequest> {
    let mut pages = vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0)];
    if a2h_readable(img) {
        pages.push(PageRequest::lower(I2C_A2));
    }
    pages
}

/// A2h bytes 96-119 (monitors, status, flags) when A2h is readable.
pub fn monitor_requests(img: &ModuleImage) -> Vec<PageRequest> {
    if a2h_readable(img) {
        vec![MONITOR_REQUEST]
    } else {
        Vec::new()
    }
}

/// Decodes an SFF-8472 module (A0h identity, A2h diagnostics when readable).
pub fn decode(img: &ModuleImage) -> ModuleReport {
    let mut a0 = Reader::new(img);
    let mut report = ModuleReport::new(Standard::Sff8472, a0.byte(IDENTIFIER));
    report.media_lane_count = Some(1);
    report.host_lane_count = Some(1);

    let a0_absent = !img.keys().any(|k| k.i2c_address == I2C_A0);
    if a0_absent {
        report.warnings.push(
            "identity page A0h absent (a dump of A2h alone): no identifier, vendor or calibration bits; monitors taken as internally calibrated (A0h byte 92 unknown)"
                .into(),
        );
    } else if img.byte(I2C_A0, 0, 0, 0).is_none() {
        let cal = if DIAG_TYPE.byte(img, 0).is_some() { "monitors calibrated as byte 92 says" } else { "byte 92 absent too: no monitors" };
        report.warnings.push(format!("A0h byte 0 absent (a partial A0h with A2h): no identifier or vendor; {cal}"));
    }
    decode_identity(&mut a0, &mut report);
    for c in CHECKSUMS {
        if let (Some(covered), Some(stored)) = (c.covered.read(img, 0), c.stored.byte(img, 0)) {
            // CC_DMI only means something when A2h holds diagnostics.
            if c.stored.i2c_address == I2C_A2 && !ddm_implemented(img) {
                continue;
            }
            report.check_sum(c.name, stored, checksum8(covered));
        }
    }
    if !a0.missing.is_empty() && !a0_absent {
        report.warnings.push(format!("A0h incomplete, not read: {}", a0.missing.join(", ")));
    }

    let mut lane = LaneReport::new(1);
    decode_diagnostics(img, &mut report, &mut lane);
    if a2_all_zero(img) {
        // A real module's A2h holds its thresholds and a live Vcc near 3.3 V: 256 zero
        // bytes are a driver's stand-in (no A2h behind it), not 0 C, 0 V and 0 mW.
        report
            .warnings
            .push("A2h is all zero (every byte read is 0): no diagnostics behind it, so no temperature, Vcc, bias or power".into());
        report.module_temperature_c = None;
        report.supply_voltage_v = None;
        report.thresholds = Default::default();
        lane = LaneReport::new(1);
    }
    report.lanes.push(lane);
    report
}

/// Every byte of A2h that was read is 0 (at least its monitor bytes 96-105 were read).
fn a2_all_zero(img: &ModuleImage) -> bool {
    let lower = img.bytes(I2C_A2, 0, 0, 0, 128);
    let monitors = img.bytes(I2C_A2, 0, 0, 96, 10);
    let upper = img.half_view(I2C_A2, 0, 0, 128);
    monitors.is_some()
        && lower.is_none_or(|b| b.iter().all(|x| *x == 0))
        && monitors.is_some_and(|b| b.iter().all(|x| *x == 0))
        && upper.is_none_or(|h| (128..=255u8).all(|o| h.byte(o).is_none_or(|x| x == 0)))
}

fn decode_identity(a0: &mut Reader, report: &mut ModuleReport) {
    if let Some(code) = a0.byte(CONNECTOR) {
        report.connector = Some(code);
        report.connector_name = Some(sff8024::connector_name(code));
    }
    if let Some(code) = a0.byte(ENCODING) {
        report.encoding = Some(sff8024::encoding_name_sff8472(code));
        report.modulation = Modulation::for_encoding(code);
    }
    report.nominal_signaling_rate_mbd = match a0.byte(BR_NOMINAL) {
        Some(0) | None => None,
        // SFF-8472 byte 12 description: FFh means the rate exceeds 25.4 GBd and byte 66 holds it in 250 MBd units.
        Some(0xff) => a0.byte(BR_MAX).filter(|&b| b != 0).map(|b| b as u32 * 250),
        Some(b) => Some(b as u32 * 100),
    };
    report.vendor_name = a0.ascii(VENDOR_NAME);
    report.vendor_pn = a0.ascii(VENDOR_PN);
    report.vendor_rev = a0.ascii(VENDOR_REV);
    report.vendor_sn = a0.ascii(VENDOR_SN);
    report.date_code = a0.ascii(DATE_CODE);
    // 00:00:00 is what modules without an IEEE company ID store.
    report.vendor_oui = a0
        .read(VENDOR_OUI)
        .filter(|b| b.iter().any(|&x| x != 0))
        .map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(":"));
    // 00h: no SFF-8472 revision claimed (Table 8-8).
    report.spec_revision = a0.byte(SFF8472_COMPLIANCE).filter(|&b| b != 0).map(|b| sff8024::lookup(SFF8472_REVISIONS, b));

    let transceiver = a0.read(TRANSCEIVER);
    let ext = a0.byte(EXT_COMPLIANCE);
    let wavelength = a0.word(WAVELENGTH);
    let cable = transceiver.and_then(|t| t.get(5)).map_or(0, |b| b & (CABLE_ACTIVE | CABLE_PASSIVE));

    let mut media: Vec<String> = Vec::new();
    if let Some(code) = ext.filter(|&c| c != 0) {
        media.push(sff8024::ext_compliance_name(code));
    }
    if let Some(t) = transceiver {
        for bit in COMPLIANCE_BITS {
            let set = t.get((bit.offset - TRANSCEIVER.offset) as usize).is_some_and(|b| b & bit.mask != 0);
            if set {
                media.push(bit.name.to_string());
            }
        }
    }
    if cable != 0 {
        // Tables 8-2 / 8-3: for cables, byte 60 lists the cable specifications met.
        let active = cable & CABLE_ACTIVE != 0;
        let specs: Vec<&str> = CABLE_COMPLIANCE_BITS
            .iter()
            .filter(|(mask, _, active_only)| (active || !active_only) && wavelength.is_some_and(|w| w[0] & mask != 0))
            .map(|(_, name, _)| *name)
            .collect();
        let kind = if active { "Active Cable" } else { "Passive Cable" };
        media.push(if specs.is_empty() { kind.to_string() } else { format!("{kind} ({})", specs.join(", ")) });
    } else {
        report.wavelength_nm = wavelength.map(u16::from_be_bytes).filter(|&nm| nm != 0).map(f64::from);
    }
    report.media_type = (!media.is_empty()).then(|| media.join(", "));
}

fn decode_diagnostics(img: &ModuleImage, report: &mut ModuleReport, lane: &mut LaneReport) {
    // Without A0h, byte 92 is unknown: A2h itself shows diagnostics exist, and internal
    // calibration is by far the common case (the caller warns about the assumption).
    let a2_alone = !img.keys().any(|k| k.i2c_address == I2C_A0) && img.keys().any(|k| k.i2c_address == I2C_A2);
    let Some(diag) = DIAG_TYPE.byte(img, 0).or(a2_alone.then_some(DIAG_DDM_IMPLEMENTED | DIAG_INTERNAL_CAL)) else { return };
    if diag & DIAG_ADDRESS_CHANGE != 0 {
        report.warnings.push("A2h needs an address change sequence (A0h byte 92 bit 2, SFF-8472 8.9): it may not be readable".into());
    }
    if diag & DIAG_DDM_IMPLEMENTED == 0 {
        return;
    }
    if !a2_alone {
        report.rx_power_type = Some(if diag & DIAG_RX_POWER_AVERAGE != 0 { RxPowerType::Average } else { RxPowerType::Oma });
    }
    if !img.keys().any(|k| k.i2c_address == I2C_A2) {
        report.warnings.push("module implements DDM (A0h byte 92 bit 6) but A2h (I2C 0x51) was not read".into());
        return;
    }
    // Linux sfp.c also lets external calibration win when both bits are set.
    let external = diag & DIAG_EXTERNAL_CAL != 0;
    if external && diag & DIAG_INTERNAL_CAL != 0 {
        report.warnings.push("A0h byte 92 claims both internal and external calibration; using external".into());
    }

    let mut a2 = Reader::new(img);
    for map in &MONITORS {
        let cal = if external {
            match Calibration::external(&mut a2, &map.external) {
                Some(c) => c,
                None => continue, // constants missing: reported in the A2h incomplete warning
            }
        } else {
            Calibration::Internal
        };
        let mut non_finite = false;
        let mut to_si = |raw: [u8; 2]| {
            let si = cal.apply(map.monitor, raw).map(|w| to_si(map.monitor, w));
            non_finite |= si.is_none();
            si
        };
        let value = a2.word(map.value).and_then(&mut to_si);
        // Thresholds are A/D values compared against the raw monitor word, so with external
        // calibration they go through the same constants (SFF-8472 9.3; ethtool sfpdiag.c
        // sff8472_calibration and Linux sfp.c hwmon calibrate thresholds the same way).
        let thresholds = a2.read(map.thresholds).and_then(|t| {
            // chunks_exact(2) hands units::word exactly two bytes.
            let mut w = t.chunks_exact(2).map(units::word);
            Some(ThresholdSet {
                high_alarm: to_si(w.next()?)?,
                low_alarm: to_si(w.next()?)?,
                high_warning: to_si(w.next()?)?,
                low_warning: to_si(w.next()?)?,
            })
        });
        if non_finite {
            report
                .warnings
                .push(format!("external calibration of {} gives a non-finite value (A2h bytes 56-91 look corrupt)", map.value.name));
        }
        let t = &mut report.thresholds;
        match map.monitor {
            Monitor::Temperature => (report.module_temperature_c, t.temperature_c) = (value, thresholds),
            Monitor::Voltage => (report.supply_voltage_v, t.supply_voltage_v) = (value, thresholds),
            Monitor::TxBias => (lane.tx_bias_ma, t.tx_bias_ma) = (value, thresholds),
            Monitor::TxPower => {
                t.tx_power_mw = thresholds;
                value.into_iter().for_each(|mw| lane.set_tx_power_mw(mw));
            }
            Monitor::RxPower => {
                t.rx_power_mw = thresholds;
                value.into_iter().for_each(|mw| lane.set_rx_power_mw(mw));
            }
        }
    }

    let options = ENHANCED_OPTIONS.byte(img, 0).unwrap_or(0);
    for f in FLAG_BITS.iter().filter(|f| options & f.requires != 0) {
        if a2.byte(f.field).is_some_and(|b| b & f.mask != 0) {
            match f.scope {
                Scope::Module => report.module_flags.push(f.flag),
                Scope::Lane => lane.flags.push(f.flag),
            }
        }
    }
    if a2.byte(STATUS_CONTROL).is_some_and(|b| b & 1 != 0) {
        report.warnings.push("A2h byte 110 Data_Ready_Bar is set: monitor values may not be valid yet".into());
    }
    if !a2.missing.is_empty() {
        report.warnings.push(format!("A2h incomplete, not read: {}", a2.missing.join(", ")));
    }
}

#[cfg(test)]
mod tests;
