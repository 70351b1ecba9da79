//! SFF-8636 Rev 2.11 (QSFP+/QSFP28) and SFF-8436 Rev 4.8 (QSFP+), which SFF-8636
//! supersedes with the same layout for every byte decoded here: lower page 00h
//! (status, flags, monitors), upper page 00h (identity, compliance, options) and,
//! when memory is paged, upper page 03h (thresholds).
//!
//! Table numbers: lower page Tables 6-2 to 6-8 (Rev 2.11); upper page 00h and page 03h
//! are cited by byte offset and clause, with the Rev 2.10a table number where given
//! (the byte layout is unchanged in Rev 2.11).
//!
//! Rules this decoder follows where the spec leaves room (documented here once):
//! - A capability bit of page 00h (options 193-195, diagnostic type 220) gates the flag
//!   or monitor it advertises. When page 00h was not read the capability counts as
//!   present, so a lower-page-only read still reports everything it holds.
//! - Copper cables (transmitter technology, byte 147 bits 7-4, >= 1010b) have no laser:
//!   no wavelength (bytes 186-187 hold attenuation), no optical power or bias.
//! - Temperature/Vcc: byte 220 bits 5/4 advertise them, but SFF-8436-era modules and
//!   many SFF-8636 ones leave the bits clear while reporting live values, so only an
//!   unadvertised *and* all-zero word is read as "not implemented" (`None`).
//! - Page 03h absent on a paged module: thresholds are `None`; a warning is added only
//!   when the image holds some other upper page than 00h (the reader paged, yet skipped
//!   03h). A plain 256-byte dump (lower + page 00h) is a normal input and gets none.

use std::ops::RangeInclusive;

use super::flag::{ModuleFlag, Monitor, Severity, Side};
use super::map::Field;
use super::report::{LaneReport, Modulation, RxPowerType};
use super::threshold::ThresholdSet;
use super::{sff8024, units, ModuleImage, ModuleReport, PageRequest, Standard, I2C_A0};
pub(crate) use monitors::{lane_rx_power_mw, MonitorPlan, MONITOR_FIELDS};

mod monitors;

const A0: u8 = I2C_A0;
/// QSFP modules have four electrical and four optical lanes.
pub(crate) const LANES: u8 = 4;

// ---- Lower page 00h (SFF-8636 Rev 2.11 6.2, Tables 6-2 to 6-8) ----
const IDENTIFIER: Field = Field::new("identifier", A0, 0, 0, 1);
const REV_COMPLIANCE: Field = Field::new("revision_compliance", A0, 0, 1, 1);
const STATUS: Field = Field::new("status", A0, 0, 2, 1);
const LOS_FLAGS: Field = Field::new("los_flags", A0, 0, 3, 1);
const FAULT_FLAGS: Field = Field::new("tx_fault_flags", A0, 0, 4, 1);
const LOL_FLAGS: Field = Field::new("cdr_lol_flags", A0, 0, 5, 1);
const TEMPERATURE_FLAGS: Field = Field::new("temperature_flags", A0, 0, 6, 1);
const VCC_FLAGS: Field = Field::new("supply_voltage_flags", A0, 0, 7, 1);
const RX_POWER_FLAGS: Field = Field::new("rx_power_flags", A0, 0, 9, 2);
const TX_BIAS_FLAGS: Field = Field::new("tx_bias_flags", A0, 0, 11, 2);
const TX_POWER_FLAGS: Field = Field::new("tx_power_flags", A0, 0, 13, 2);
const TEMPERATURE: Field = Field::new("temperature", A0, 0, 22, 2);
const SUPPLY_VOLTAGE: Field = Field::new("supply_voltage", A0, 0, 26, 2);
/// One big-endian word per lane, lanes 1-4 (Table 6-8).
const RX_POWER: Field = Field::new("rx_power", A0, 0, 34, 8);
const TX_BIAS: Field = Field::new("tx_bias", A0, 0, 42, 8);
const TX_POWER: Field = Field::new("tx_power", A0, 0, 50, 8);

/// Flags (bytes 3-14) and monitors (22-57) in one read: fewer I2C transactions than
/// two, and the bytes in between (reserved / vendor specific) cost nothing.
const FLAGS_AND_MONITORS: Field = Field::new("flags_and_monitors", A0, 0, 3, 55);

// ---- Upper page 00h (SFF-8636 Rev 2.10a Table 6-14) ----
const IDENTIFIER_UPPER: Field = Field::new("identifier_upper", A0, 0, 128, 1);
const CONNECTOR: Field = Field::new("connector", A0, 0, 130, 1);
const ETHERNET_COMPLIANCE: Field = Field::new("ethernet_compliance", A0, 0, 131, 1);
const ENCODING: Field = Field::new("encoding", A0, 0, 139, 1);
const BR_NOMINAL: Field = Field::new("br_nominal", A0, 0, 140, 1);
const DEVICE_TECHNOLOGY: Field = Field::new("device_technology", A0, 0, 147, 1);
const VENDOR_NAME: Field = Field::new("vendor_name", A0, 0, 148, 16);
const VENDOR_OUI: Field = Field::new("vendor_oui", A0, 0, 165, 3);
const VENDOR_PN: Field = Field::new("vendor_pn", A0, 0, 168, 16);
const VENDOR_REV: Field = Field::new("vendor_rev", A0, 0, 184, 2);
/// Wavelength x20 nm (optical), or copper attenuation in dB at 2.5/5.0 GHz.
const WAVELENGTH: Field = Field::new("wavelength", A0, 0, 186, 2);
const CC_BASE: Field = Field::new("cc_base", A0, 0, 191, 1);
const EXT_COMPLIANCE: Field = Field::new("ext_compliance", A0, 0, 192, 1);
/// Options (Rev 2.10a Table 6-21): 193 equalizer/emphasis, 194 CDR/squelch, 195 pages/signals.
const OPTIONS_193: Field = Field::new("options_193", A0, 0, 193, 1);
const OPTIONS_194: Field = Field::new("options_194", A0, 0, 194, 1);
const OPTIONS_195: Field = Field::new("options_195", A0, 0, 195, 1);
pub(crate) const VENDOR_SN: Field = Field::new("vendor_sn", A0, 0, 196, 16);
const DATE_CODE: Field = Field::new("date_code", A0, 0, 212, 8);
/// Diagnostic monitoring type (Rev 2.10a Table 6-23).
const DIAG_MONITORING_TYPE: Field = Field::new("diag_monitoring_type", A0, 0, 220, 1);
/// Nominal baud rate per lane in 250 MBd, used when byte 140 is FFh (Rev 2.10a Table 6-25).
const BAUD_RATE_EXTENDED: Field = Field::new("baud_rate_extended", A0, 0, 222, 1);
const CC_EXT: Field = Field::new("cc_ext", A0, 0, 223, 1);

/// Checksum coverage: CC_BASE = low byte of the sum of 128-190,
/// CC_EXT of 192-222. They span the fields above, so the overlap test leaves them out.
const CC_BASE_SPAN: Field = Field::new("cc_base_span", A0, 0, 128, 63);
const CC_EXT_SPAN: Field = Field::new("cc_ext_span", A0, 0, 192, 31);

// ---- Upper page 03h, free side and channel thresholds: high alarm, low alarm, high warning,
// low warning, one big-endian word each, same units as the monitors. ----
const TEMPERATURE_THRESHOLDS: Field = Field::new("temperature_thresholds", A0, 3, 128, 8);
const VCC_THRESHOLDS: Field = Field::new("supply_voltage_thresholds", A0, 3, 144, 8);
const RX_POWER_THRESHOLDS: Field = Field::new("rx_power_thresholds", A0, 3, 176, 8);
const TX_BIAS_THRESHOLDS: Field = Field::new("tx_bias_thresholds", A0, 3, 184, 8);
const TX_POWER_THRESHOLDS: Field = Field::new("tx_power_thresholds", A0, 3, 192, 8);

// ---- Bits ----
/// Byte 2 (Table 6-2): upper memory flat (page 00h only), and data not ready.
const STATUS_FLAT_MEM: u8 = 1 << 2;
const STATUS_DATA_NOT_READY: u8 = 1 << 0;
/// Byte 131 bit 7: the compliance is given by the extended code in byte 192.
const ETHERNET_COMPLIANCE_EXTENDED: u8 = 1 << 7;
/// Byte 131 bits 6-0 (Rev 2.10a Table 6-16).
const ETHERNET_COMPLIANCE_BITS: &[(u8, &str)] = &[
    (1 << 6, "10GBASE-LRM"),
    (1 << 5, "10GBASE-LR"),
    (1 << 4, "10GBASE-SR"),
    (1 << 3, "40GBASE-CR4"),
    (1 << 2, "40GBASE-SR4"),
    (1 << 1, "40GBASE-LR4"),
    (1 << 0, "40G Active Cable (XLPPI)"),
];
/// Byte 147 bits 7-4 (Rev 2.10a Table 6-19): codes 1010b-1111b are copper cables.
const TECHNOLOGY_FIRST_COPPER: u8 = 0xa;
/// Byte 220: bit 3 rx power is average (1) or OMA (0).
const DIAG_RX_POWER_AVERAGE: u8 = 1 << 3;

/// Byte 1 (Table 6-3, Revision Compliance).
const REVISIONS: &[(u8, &str)] = &[
    (0x00, "Revision not specified"),
    (0x01, "SFF-8436 Rev 4.8 or earlier"),
    (0x02, "SFF-8436 Rev 4.8 or earlier, with byte 1 and bytes 186-189 per SFF-8636"),
    (0x03, "SFF-8636 Rev 1.3 or earlier"),
    (0x04, "SFF-8636 Rev 1.4"),
    (0x05, "SFF-8636 Rev 1.5"),
    (0x06, "SFF-8636 Rev 2.0"),
    (0x07, "SFF-8636 Rev 2.5-2.7"),
    (0x08, "SFF-8636 Rev 2.8-2.10"),
];

/// Extended compliance codes (SFF-8024 Table 4-4) whose listed PMDs all run PAM4 on the
/// module's host and media lanes (50G/100G-per-lane Ethernet: 50GAUI-1, 100GAUI-2,
/// 200GAUI-4, 100GAUI-1 hosts). Single-lambda 100G optics behind a CAUI-4 host (21h,
/// 25h-28h, 2Ah-2Eh, 3Ah) are left out: their host lanes are 25G NRZ, which is what the
/// host's FEC counters see.
const PAM4_EXT_COMPLIANCE: &[RangeInclusive<u8>] = &[0x29..=0x29, 0x30..=0x33, 0x36..=0x36, 0x3f..=0x4b];

/// A page 00h bit saying a flag or monitor is implemented.
#[derive(Clone, Copy)]
struct Capability {
    field: Field,
    mask: u8,
}

/// Byte 193 bit 3: Tx input equalizers auto-adaptive capable.
const TX_ADAPTIVE_EQ: Capability = Capability { field: OPTIONS_193, mask: 1 << 3 };
/// Byte 194 bits 5/4: Tx / Rx CDR loss-of-lock flags implemented.
const TX_LOL_IMPLEMENTED: Capability = Capability { field: OPTIONS_194, mask: 1 << 5 };
const RX_LOL_IMPLEMENTED: Capability = Capability { field: OPTIONS_194, mask: 1 << 4 };
/// Byte 195 bits 3/1: Tx fault / Tx LOS implemented.
const TX_FAULT_IMPLEMENTED: Capability = Capability { field: OPTIONS_195, mask: 1 << 3 };
const TX_LOS_IMPLEMENTED: Capability = Capability { field: OPTIONS_195, mask: 1 << 1 };
/// Byte 220 bit 2: transmitter power measurement supported; bits 5/4 temperature / Vcc.
const TX_POWER_SUPPORTED: Capability = Capability { field: DIAG_MONITORING_TYPE, mask: 1 << 2 };
const TEMPERATURE_IMPLEMENTED: Capability = Capability { field: DIAG_MONITORING_TYPE, mask: 1 << 5 };
const VCC_IMPLEMENTED: Capability = Capability { field: DIAG_MONITORING_TYPE, mask: 1 << 4 };

/// Advertised by the module, or unknown (page 00h not read).
fn advertised(img: &ModuleImage, cap: Capability) -> Option<bool> {
    cap.field.byte(img, 0).map(|b| b & cap.mask != 0)
}

/// Unknown counts as implemented (see the module doc).
fn implemented(img: &ModuleImage, cap: Option<Capability>) -> bool {
    cap.is_none_or(|c| advertised(img, c) != Some(false))
}

/// Per-lane status bits: lane n is bit `shift + n - 1` (Table 6-4).
struct LaneStatusFlag {
    field: Field,
    shift: usize,
    flag: ModuleFlag,
    requires: Option<Capability>,
}

const LANE_STATUS_FLAGS: &[LaneStatusFlag] = &[
    // Rx LOS is mandatory: no capability bit.
    LaneStatusFlag { field: LOS_FLAGS, shift: 0, flag: ModuleFlag::Los(Side::Rx), requires: None },
    LaneStatusFlag { field: LOS_FLAGS, shift: 4, flag: ModuleFlag::Los(Side::Tx), requires: Some(TX_LOS_IMPLEMENTED) },
    LaneStatusFlag { field: FAULT_FLAGS, shift: 0, flag: ModuleFlag::TxFault, requires: Some(TX_FAULT_IMPLEMENTED) },
    LaneStatusFlag { field: FAULT_FLAGS, shift: 4, flag: ModuleFlag::TxAdaptiveEqFault, requires: Some(TX_ADAPTIVE_EQ) },
    LaneStatusFlag { field: LOL_FLAGS, shift: 0, flag: ModuleFlag::Lol(Side::Rx), requires: Some(RX_LOL_IMPLEMENTED) },
    LaneStatusFlag { field: LOL_FLAGS, shift: 4, flag: ModuleFlag::Lol(Side::Tx), requires: Some(TX_LOL_IMPLEMENTED) },
];

/// Alarm/warning nibble, most significant bit first (Tables 6-5, 6-6): high alarm, low
/// alarm, high warning, low warning ([`Severity::ALL`]'s order).
fn nibble_bit(s: Severity) -> u8 {
    0x8 >> (s as u8)
}

/// A monitor's alarm/warning flags. Module monitors: the high nibble of one byte
/// (Table 6-5). Lane monitors: two bytes, lanes 1 and 3 in the high nibbles, 2 and 4 in
/// the low ones (Table 6-6).
struct MonitorFlags {
    field: Field,
    monitor: Monitor,
    requires: Option<Capability>,
}

const MODULE_MONITOR_FLAGS: &[MonitorFlags] = &[
    MonitorFlags { field: TEMPERATURE_FLAGS, monitor: Monitor::Temperature, requires: None },
    MonitorFlags { field: VCC_FLAGS, monitor: Monitor::SupplyVoltage, requires: None },
];

const LANE_MONITOR_FLAGS: &[MonitorFlags] = &[
    MonitorFlags { field: RX_POWER_FLAGS, monitor: Monitor::RxPower, requires: None },
    MonitorFlags { field: TX_BIAS_FLAGS, monitor: Monitor::TxBias, requires: None },
    MonitorFlags { field: TX_POWER_FLAGS, monitor: Monitor::TxPower, requires: Some(TX_POWER_SUPPORTED) },
];

fn nibble_flags(nibble: u8, monitor: Monitor) -> impl Iterator<Item = ModuleFlag> {
    Severity::ALL.into_iter().filter(move |s| nibble & nibble_bit(*s) != 0).map(move |s| ModuleFlag::Limit(monitor, s))
}

/// Decodes whatever the image holds; missing parts become `None` plus a warning.
pub fn decode(img: &ModuleImage) -> ModuleReport {
    let id = IDENTIFIER.byte(img, 0).or_else(|| IDENTIFIER_UPPER.byte(img, 0));
    let mut r = ModuleReport::new(Standard::Sff8636, id);
    r.media_lane_count = Some(LANES);
    r.host_lane_count = Some(LANES);
    r.lanes = (1..=LANES).map(LaneReport::new).collect();
    decode_status(img, &mut r);
    decode_identity(img, &mut r);
    MonitorPlan::new(img).refresh(img, &mut r);
    decode_thresholds(img, &mut r);
    r
}

fn flat_memory(img: &ModuleImage) -> Option<bool> {
    STATUS.byte(img, 0).map(|s| s & STATUS_FLAT_MEM != 0)
}

/// Optical unless page 00h says copper cable (or was not read).
fn is_optical(img: &ModuleImage) -> bool {
    DEVICE_TECHNOLOGY.byte(img, 0).is_none_or(|t| t >> 4 < TECHNOLOGY_FIRST_COPPER)
}

fn decode_status(img: &ModuleImage, r: &mut ModuleReport) {
    r.spec_revision = REV_COMPLIANCE.byte(img, 0).map(|b| sff8024::lookup(REVISIONS, b));
    r.flat_memory = flat_memory(img);
    match STATUS.byte(img, 0) {
        None => r.warnings.push("lower page byte 2 (status) not read: flat-memory bit unknown".into()),
        Some(s) if s & STATUS_DATA_NOT_READY != 0 => {
            r.warnings.push("module reports data not ready (byte 2 bit 0): monitors and flags may be stale".into())
        }
        Some(_) => {}
    }
}

fn decode_identity(img: &ModuleImage, r: &mut ModuleReport) {
    if !img.has_upper_page(A0, 0, 0) {
        r.warnings.push("upper page 00h not read: identity and compliance unavailable".into());
        return;
    }
    if let (Some(lower), Some(upper)) = (IDENTIFIER.byte(img, 0), IDENTIFIER_UPPER.byte(img, 0)) {
        if lower != upper {
            r.warnings.push(format!("identifier mismatch: byte 0 = {lower:#04x}, byte 128 = {upper:#04x}"));
        }
    }
    let text = |f: Field| f.ascii(img, 0).filter(|s| !s.is_empty());
    r.vendor_name = text(VENDOR_NAME);
    r.vendor_pn = text(VENDOR_PN);
    r.vendor_sn = text(VENDOR_SN);
    r.vendor_rev = text(VENDOR_REV);
    // YYMMDDLL, kept as the vendor wrote it.
    r.date_code = text(DATE_CODE);
    r.vendor_oui = VENDOR_OUI.read(img, 0).map(|b| b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(":"));
    r.connector = CONNECTOR.byte(img, 0);
    r.connector_name = r.connector.map(sff8024::connector_name);
    r.media_type = media_type(img);
    r.form_factor = r.identifier.and_then(|id| form_factor(id, extended_compliance(img)));
    r.modulation = modulation(img);
    r.nominal_signaling_rate_mbd = nominal_rate_mbd(img);
    if is_optical(img) {
        r.wavelength_nm = WAVELENGTH.word(img, 0).map(u16::from_be_bytes).filter(|&w| w != 0).map(|w| w as f64 / 20.0);
    }
    if let Some(dmt) = DIAG_MONITORING_TYPE.byte(img, 0).filter(|_| is_optical(img)) {
        r.rx_power_type = Some(if dmt & DIAG_RX_POWER_AVERAGE != 0 { RxPowerType::Average } else { RxPowerType::Oma });
    }
    for (name, span, stored) in [("CC_BASE", CC_BASE_SPAN, CC_BASE), ("CC_EXT", CC_EXT_SPAN, CC_EXT)] {
        if let (Some(bytes), Some(stored)) = (span.read(img, 0), stored.byte(img, 0)) {
            r.check_sum(name, stored, super::report::checksum8(bytes));
        }
    }
}

/// Byte 192, when it applies: byte 131 bit 7 says so, or byte 131 names nothing else
/// (some modules fill 192 without setting the bit).
fn extended_compliance(img: &ModuleImage) -> Option<u8> {
    let eth = ETHERNET_COMPLIANCE.byte(img, 0).unwrap_or(0);
    let applies = eth & ETHERNET_COMPLIANCE_EXTENDED != 0 || eth == 0;
    EXT_COMPLIANCE.byte(img, 0).filter(|&c| c != 0 && applies)
}

/// Extended compliance codes (SFF-8024 Rev 4.x Table 4-4) every one of whose applications
/// runs on 50 Gb/s PAM4 lanes (26.5625 GBd): the 50GAUI / 100GAUI-2 / 200GAUI-4 active
/// cables (30h-33h), 50GBASE-CR/SR/FR/LR, 100GBASE-CR2/SR2, 200GBASE-CR4/SR4/DR4/FR4/LR4
/// and 200G PSM4 (40h-46h), 50GBASE-ER (4Ah).
const FIFTY_GBPS_LANE_CODES: &[RangeInclusive<u8>] = &[0x30..=0x33, 0x40..=0x46, 0x4a..=0x4a];

/// The form factor of an SFF-8636 module. Identifier 11h is "QSFP28 or later" (SFF-8024
/// Table 4-1): the QSFP28 form factor is four lanes of up to 28 Gb/s (SFF-8665), so a
/// module on that identifier whose extended compliance (byte 192, a code of SFF-8024
/// Table 4-4, in force when byte 131 bit 7 says so, SFF-8636 Rev 2.10a Table 6-16) names
/// only 50 Gb/s-lane applications is the later four-lane form, QSFP56, as its makers name
/// it (NVIDIA MMA1T00-VS "200GbE QSFP56", managed per SFF-8636). ethtool prints 11h as "QSFP28" whatever the compliance; the
/// identifier's own name stays in `identifier_name`.
fn form_factor(identifier: u8, ext_compliance: Option<u8>) -> Option<&'static str> {
    match ext_compliance {
        Some(c) if identifier == 0x11 && FIFTY_GBPS_LANE_CODES.iter().any(|r| r.contains(&c)) => Some("QSFP56"),
        _ => sff8024::form_factor(identifier),
    }
}

/// The extended compliance name first, then every 10/40G Ethernet bit of byte 131.
fn media_type(img: &ModuleImage) -> Option<String> {
    let eth = ETHERNET_COMPLIANCE.byte(img, 0).unwrap_or(0);
    let names: Vec<String> = extended_compliance(img)
        .map(sff8024::ext_compliance_name)
        .into_iter()
        .chain(ETHERNET_COMPLIANCE_BITS.iter().filter(|(bit, _)| eth & bit != 0).map(|(_, n)| n.to_string()))
        .collect();
    (!names.is_empty()).then(|| names.join("; "))
}

/// PAM4 when the encoding (byte 139) says so or the extended compliance code implies it
/// (QSFP56 modules often give the PCS code 256B/257B in byte 139); otherwise what the
/// encoding implies (NRZ), or `None` when it is unspecified.
fn modulation(img: &ModuleImage) -> Option<Modulation> {
    let ext_pam4 = extended_compliance(img).is_some_and(|c| PAM4_EXT_COMPLIANCE.iter().any(|r| r.contains(&c)));
    if ext_pam4 {
        return Some(Modulation::Pam4);
    }
    ENCODING.byte(img, 0).and_then(Modulation::for_encoding)
}

/// Byte 140 in 100 MBd; FFh means "see byte 222" (250 MBd units). 0 is unspecified.
fn nominal_rate_mbd(img: &ModuleImage) -> Option<u32> {
    let rate = match BR_NOMINAL.byte(img, 0)? {
        0xff => BAUD_RATE_EXTENDED.byte(img, 0)? as u32 * 250,
        br => br as u32 * 100,
    };
    (rate != 0).then_some(rate)
}

/// Tx power is taken as reported when byte 220 bit 2 advertises it (`implemented`), or
/// when `words` (monitors or thresholds) are non-zero anyway: SFF-8436-era modules (40G
/// QSFP+) leave the bit clear yet report real Tx power, and ethtool's qsfp.c prints it
/// without consulting the bit.
fn tx_power_reported(implemented: bool, words: Option<&[u8]>) -> bool {
    implemented || words.is_some_and(|b| b.iter().any(|&x| x != 0))
}

fn threshold_set(img: &ModuleImage, field: Field, convert: fn([u8; 2]) -> f64) -> Option<ThresholdSet> {
    let b = field.read(img, 0)?;
    let w = |i: usize| b.get(2 * i..2 * i + 2).map(|x| convert(units::word(x)));
    Some(ThresholdSet { high_alarm: w(0)?, low_alarm: w(1)?, high_warning: w(2)?, low_warning: w(3)? })
}

fn decode_thresholds(img: &ModuleImage, r: &mut ModuleReport) {
    // Flat memory: page 03h does not exist, whatever the image holds at that key.
    if flat_memory(img) == Some(true) {
        return;
    }
    // Paged memory has page 03h (SFF-8636 Rev 2.11 6.1.2): a dump without it lacks the
    // thresholds, which the reader must be told rather than shown nulls.
    if !img.has_upper_page(A0, 3, 0) {
        r.warnings.push("page 03h not read: thresholds unavailable".into());
        return;
    }
    if img.echoes_page00(A0, 3, 0) {
        r.warnings.push(super::echoed_page_warning(3, 0));
        r.warnings.push("page 03h not read: thresholds unavailable".into());
        return;
    }
    let t = &mut r.thresholds;
    t.temperature_c = threshold_set(img, TEMPERATURE_THRESHOLDS, units::temperature_c);
    t.supply_voltage_v = threshold_set(img, VCC_THRESHOLDS, units::voltage_v);
    if is_optical(img) {
        t.rx_power_mw = threshold_set(img, RX_POWER_THRESHOLDS, units::power_mw);
        t.tx_bias_ma = threshold_set(img, TX_BIAS_THRESHOLDS, units::bias_ma);
        if tx_power_reported(implemented(img, Some(TX_POWER_SUPPORTED)), TX_POWER_THRESHOLDS.read(img, 0)) {
            t.tx_power_mw = threshold_set(img, TX_POWER_THRESHOLDS, units::power_mw);
        }
    }
}

/// Lower page, upper page 00h, and upper page 03h once byte 2 says memory is paged.
/// Pages 01h (application select table) and 02h (user EEPROM) hold nothing this
/// report uses, so they are not read.
pub fn static_pages(img: &ModuleImage) -> Vec<PageRequest> {
    let mut pages = vec![PageRequest::lower(A0), PageRequest::upper(A0, 0, 0)];
    if flat_memory(img) == Some(false) {
        pages.push(PageRequest::upper(A0, 3, 0));
    }
    pages
}

/// Flags (bytes 3-14) and monitors (22-57), one read inside the lower half.
pub fn monitor_requests(_img: &ModuleImage) -> Vec<PageRequest> {
    let f = FLAGS_AND_MONITORS;
    vec![PageRequest::new(f.i2c_address, f.page, 0, f.offset, f.len)]
}

#[cfg(test)]
mod tests {
    use super::super::map::{first_overlap, first_straddling};
    use super::*;

    // Every field the decoder reads, per half page: the map the overlap test checks. The
    // lower page is its identity and status bytes, then the fields a sample re-reads.
    fn lower_map() -> Vec<Field> {
        [&[IDENTIFIER, REV_COMPLIANCE, STATUS][..], MONITOR_FIELDS[0]].concat()
    }
    const PAGE00_MAP: &[Field] = &[
        IDENTIFIER_UPPER,
        CONNECTOR,
        ETHERNET_COMPLIANCE,
        ENCODING,
        BR_NOMINAL,
        DEVICE_TECHNOLOGY,
        VENDOR_NAME,
        VENDOR_OUI,
        VENDOR_PN,
        VENDOR_REV,
        WAVELENGTH,
        CC_BASE,
        EXT_COMPLIANCE,
        OPTIONS_193,
        OPTIONS_194,
        OPTIONS_195,
        VENDOR_SN,
        DATE_CODE,
        DIAG_MONITORING_TYPE,
        BAUD_RATE_EXTENDED,
        CC_EXT,
    ];
    const PAGE03_MAP: &[Field] = &[TEMPERATURE_THRESHOLDS, VCC_THRESHOLDS, RX_POWER_THRESHOLDS, TX_BIAS_THRESHOLDS, TX_POWER_THRESHOLDS];

    #[test]
    fn field_tables_do_not_overlap_or_straddle() {
        let lower = lower_map();
        for table in [&lower[..], PAGE00_MAP, PAGE03_MAP] {
            assert_eq!(first_overlap(table), None);
            assert_eq!(first_straddling(table), None);
        }
        let all: Vec<Field> = [&lower[..], PAGE00_MAP, PAGE03_MAP].concat();
        assert_eq!(first_overlap(&all), None);
        assert_eq!(first_straddling(&[FLAGS_AND_MONITORS, CC_BASE_SPAN, CC_EXT_SPAN]), None);
    }

    #[test]
    fn checksum_spans_end_before_their_check_bytes() {
        assert_eq!(CC_BASE_SPAN.offset as u16 + CC_BASE_SPAN.len as u16, CC_BASE.offset as u16);
        assert_eq!(CC_EXT_SPAN.offset as u16 + CC_EXT_SPAN.len as u16, CC_EXT.offset as u16);
    }

    #[test]
    fn monitor_request_covers_every_flag_and_monitor() {
        let f = FLAGS_AND_MONITORS;
        let (start, end) = (f.offset as u16, f.offset as u16 + f.len as u16);
        for m in lower_map().iter().filter(|m| m.offset >= LOS_FLAGS.offset) {
            assert!(start <= m.offset as u16 && m.offset as u16 + m.len as u16 <= end, "{}", m.name);
        }
        let req = monitor_requests(&ModuleImage::new());
        assert!(req.iter().all(PageRequest::is_valid));
        assert_eq!(req, vec![PageRequest::new(A0, 0, 0, 3, 55)]);
    }

    #[test]
    fn qsfp28_or_later_is_qsfp56_only_on_fifty_gbps_lane_compliance() {
        // SFF-8024 Table 4-4: 41h "50GBASE-SR, 100GBASE-SR2, or 200GBASE-SR4", 43h
        // "200GBASE-FR4", 30h a 200GAUI-4 active copper cable: QSFP56 on identifier 11h.
        for code in [0x41, 0x43, 0x30, 0x46] {
            assert_eq!(form_factor(0x11, Some(code)), Some("QSFP56"), "{code:#04x}");
        }
        // 02h 100GBASE-SR4 (25G lanes), 25h 100GBASE-DR over CAUI-4 (a 25G-lane host), 29h
        // (100G lanes, not claimed here), none at all: QSFP28 as Table 4-1 names 11h.
        for code in [Some(0x02), Some(0x25), Some(0x29), None] {
            assert_eq!(form_factor(0x11, code), Some("QSFP28"), "{code:?}");
        }
        // Another identifier keeps its own form factor whatever the code.
        assert_eq!(form_factor(0x0d, Some(0x41)), Some("QSFP+"));
    }

    #[test]
    fn nibble_flag_names() {
        let v: Vec<&str> = nibble_flags(0b1001, Monitor::RxPower).map(ModuleFlag::as_str).collect();
        assert_eq!(v, ["rx_power_high_alarm", "rx_power_low_warning"]);
    }

    #[test]
    fn pam4_codes_are_listed_by_range() {
        let pam4 = |c: u8| PAM4_EXT_COMPLIANCE.iter().any(|r| r.contains(&c));
        assert!(pam4(0x40) && pam4(0x41) && pam4(0x46) && pam4(0x31));
        assert!(!pam4(0x02) && !pam4(0x25) && !pam4(0x4c));
    }
}
