//! Lower memory, bytes 0-127 (CMIS 5.2 8.2): management characteristics, module state,
//! module flags and monitors, media type and Application Descriptors 1-8.

use super::super::flag::{ModuleFlag, Monitor, Severity};
use super::super::map::Field;
use super::super::report::{LowPowerControls, ModuleReport};
use super::super::state::ModuleState;
use super::super::{units, ModuleImage, I2C_A0};
use super::appcodes::Descriptor;

const fn lower(name: &'static str, offset: u8, len: u8) -> Field {
    Field::new(name, I2C_A0, 0, offset, len)
}

/// SFF-8024 identifier (CMIS 5.2 8.2, byte 0).
pub(super) const IDENTIFIER: Field = lower("identifier", 0, 1);
/// Revision compliance: major in bits 7-4, minor in bits 3-0 (CMIS 5.2 8.2, byte 1).
pub(super) const REVISION: Field = lower("revision", 1, 1);
/// Bit 7 MemoryModel: 1 = flat memory, 0 = paged (CMIS 5.2 8.2, byte 2; named Flat_mem in
/// CMIS 4.0, same bit).
pub(super) const MEMORY_MODEL: Field = lower("memory_model", 2, 1);
/// Bits 3-1 ModuleState (CMIS 5.2 8.2, encodings Table 8-7).
pub(super) const MODULE_STATE: Field = lower("module_state", 3, 1);
/// Module flags, CMIS 5.2 Table 8-9 (latched, clear on read).
pub(super) const FLAGS_STATE: Field = lower("flags_module_state", 8, 1);
pub(super) const FLAGS_TEMP_VCC: Field = lower("flags_temperature_vcc", 9, 1);
pub(super) const FLAGS_AUX12: Field = lower("flags_aux1_aux2", 10, 1);
pub(super) const FLAGS_AUX3_CUSTOM: Field = lower("flags_aux3_custom", 11, 1);
/// Module monitors (CMIS 5.2 Table 8-10): 1/256 degC signed, 100 uV unsigned.
pub(super) const TEMPERATURE: Field = lower("temperature", 14, 2);
pub(super) const VCC: Field = lower("vcc", 16, 2);
/// Module Global Controls (CMIS 5.2 8.2, byte 26): bit 6 LowPwrAllowRequestHW, bit 4
/// LowPwrRequestSW (ethtool `cmis.h`: `CMIS_LOW_PWR_ALLOW_REQUEST_HW_MASK` 0x40,
/// `CMIS_LOW_PWR_REQUEST_SW_MASK` 0x10).
pub(super) const GLOBAL_CONTROLS: Field = lower("module_global_controls", 26, 1);
/// MediaType: selects the media interface code table (CMIS 5.2 8.2).
pub(super) const MEDIA_TYPE: Field = lower("media_type", 85, 1);
/// Application Descriptors 1-8, 4 bytes each (CMIS 5.2 Table 8-23).
pub(super) const APP_DESCRIPTORS: Field = lower("application_descriptors", 86, 32);
/// Bytes 0-25, re-read on every sample: state, flags, temperature, Vcc, aux monitors.
pub(super) const MONITOR_SPAN_LEN: u8 = 26;

/// Every field this page decodes, for the overlap test.
#[cfg(test)]
pub(super) const FIELDS: &[Field] = &[
    IDENTIFIER,
    REVISION,
    MEMORY_MODEL,
    MODULE_STATE,
    FLAGS_STATE,
    FLAGS_TEMP_VCC,
    FLAGS_AUX12,
    FLAGS_AUX3_CUSTOM,
    TEMPERATURE,
    VCC,
    GLOBAL_CONTROLS,
    MEDIA_TYPE,
    APP_DESCRIPTORS,
];

/// Module flag bits (CMIS 5.2 Table 8-9): (byte, bit, flag).
const MODULE_FLAGS: &[(Field, u8, ModuleFlag)] = &[
    (FLAGS_STATE, 0, ModuleFlag::ModuleStateChanged),
    (FLAGS_STATE, 1, ModuleFlag::ModuleFirmwareFault),
    (FLAGS_STATE, 2, ModuleFlag::DatapathFirmwareFault),
    (FLAGS_TEMP_VCC, 0, ModuleFlag::Limit(Monitor::Temperature, Severity::HighAlarm)),
    (FLAGS_TEMP_VCC, 1, ModuleFlag::Limit(Monitor::Temperature, Severity::LowAlarm)),
    (FLAGS_TEMP_VCC, 2, ModuleFlag::Limit(Monitor::Temperature, Severity::HighWarning)),
    (FLAGS_TEMP_VCC, 3, ModuleFlag::Limit(Monitor::Temperature, Severity::LowWarning)),
    (FLAGS_TEMP_VCC, 4, ModuleFlag::Limit(Monitor::SupplyVoltage, Severity::HighAlarm)),
    (FLAGS_TEMP_VCC, 5, ModuleFlag::Limit(Monitor::SupplyVoltage, Severity::LowAlarm)),
    (FLAGS_TEMP_VCC, 6, ModuleFlag::Limit(Monitor::SupplyVoltage, Severity::HighWarning)),
    (FLAGS_TEMP_VCC, 7, ModuleFlag::Limit(Monitor::SupplyVoltage, Severity::LowWarning)),
    (FLAGS_AUX12, 0, ModuleFlag::Limit(Monitor::Aux1, Severity::HighAlarm)),
    (FLAGS_AUX12, 1, ModuleFlag::Limit(Monitor::Aux1, Severity::LowAlarm)),
    (FLAGS_AUX12, 2, ModuleFlag::Limit(Monitor::Aux1, Severity::HighWarning)),
    (FLAGS_AUX12, 3, ModuleFlag::Limit(Monitor::Aux1, Severity::LowWarning)),
    (FLAGS_AUX12, 4, ModuleFlag::Limit(Monitor::Aux2, Severity::HighAlarm)),
    (FLAGS_AUX12, 5, ModuleFlag::Limit(Monitor::Aux2, Severity::LowAlarm)),
    (FLAGS_AUX12, 6, ModuleFlag::Limit(Monitor::Aux2, Severity::HighWarning)),
    (FLAGS_AUX12, 7, ModuleFlag::Limit(Monitor::Aux2, Severity::LowWarning)),
    (FLAGS_AUX3_CUSTOM, 0, ModuleFlag::Limit(Monitor::Aux3, Severity::HighAlarm)),
    (FLAGS_AUX3_CUSTOM, 1, ModuleFlag::Limit(Monitor::Aux3, Severity::LowAlarm)),
    (FLAGS_AUX3_CUSTOM, 2, ModuleFlag::Limit(Monitor::Aux3, Severity::HighWarning)),
    (FLAGS_AUX3_CUSTOM, 3, ModuleFlag::Limit(Monitor::Aux3, Severity::LowWarning)),
    (FLAGS_AUX3_CUSTOM, 4, ModuleFlag::Limit(Monitor::CustomMonitor, Severity::HighAlarm)),
    (FLAGS_AUX3_CUSTOM, 5, ModuleFlag::Limit(Monitor::CustomMonitor, Severity::LowAlarm)),
    (FLAGS_AUX3_CUSTOM, 6, ModuleFlag::Limit(Monitor::CustomMonitor, Severity::HighWarning)),
    (FLAGS_AUX3_CUSTOM, 7, ModuleFlag::Limit(Monitor::CustomMonitor, Severity::LowWarning)),
];

/// MediaType encodings (CMIS 5.2 8.2).
const MEDIA_TYPES: &[(u8, &str)] = &[
    (0x00, "Undefined"),
    (0x01, "Optical Interfaces: MMF"),
    (0x02, "Optical Interfaces: SMF"),
    (0x03, "Passive Copper Cable"),
    (0x04, "Active Cable Assembly"),
    (0x05, "BASE-T"),
];

/// `Some(true)` for flat memory, `None` if byte 2 was not read.
pub(super) fn flat_memory(img: &ModuleImage) -> Option<bool> {
    MEMORY_MODEL.byte(img, 0).map(|b| b & 0x80 != 0)
}

pub(super) fn media_type(img: &ModuleImage) -> Option<u8> {
    MEDIA_TYPE.byte(img, 0)
}

/// Decodes revision, memory model, state, flags, monitors and media type into `r`.
pub(super) fn decode(img: &ModuleImage, r: &mut ModuleReport) {
    if !img.has_lower(I2C_A0) {
        r.warnings.push("lower memory (bytes 0-127) incomplete: missing fields are left empty".into());
    }
    if let Some(rev) = REVISION.byte(img, 0) {
        let (major, minor) = (rev >> 4, rev & 0x0f);
        r.spec_revision = Some(format!("CMIS {major}.{minor}"));
        // The offsets used here are the same in CMIS 4.0 and 5.0-5.2; earlier and later
        // revisions may differ.
        if !(4..=5).contains(&major) {
            r.warnings.push(format!("CMIS revision {major}.{minor}: decoded with the CMIS 4.0/5.x memory map"));
        }
    }
    r.flat_memory = flat_memory(img);
    r.low_power_controls =
        GLOBAL_CONTROLS.byte(img, 0).map(|b| LowPowerControls { request_sw: b & 0x10 != 0, allow_request_hw: b & 0x40 != 0 });
    monitors(img, r);
    r.media_type = media_type(img).map(|m| super::super::sff8024::lookup(MEDIA_TYPES, m));
}

/// The lower-memory fields a sample re-reads: module state (byte 3), module flags (bytes
/// 8-11, CMIS 5.2 Table 8-9), temperature and Vcc (bytes 14-17, Table 8-10). Overwrites
/// what `r` held, reusing its strings.
pub(super) fn monitors(img: &ModuleImage, r: &mut ModuleReport) {
    let half = img.half_view(I2C_A0, 0, 0, 0);
    let read = |f: Field| half.and_then(|h| f.read_in(h));
    r.module_state = read(MODULE_STATE).map(|b| ModuleState::from_code((b[0] >> 1) & 0x07));
    r.module_flags.clear();
    // Flags are rare: the table is walked when a flag byte has some bit set.
    if [FLAGS_STATE, FLAGS_TEMP_VCC, FLAGS_AUX12, FLAGS_AUX3_CUSTOM].into_iter().any(|f| read(f).is_some_and(|b| b[0] != 0)) {
        for (field, bit, name) in MODULE_FLAGS {
            if read(*field).is_some_and(|b| b[0] & (1 << bit) != 0) {
                r.module_flags.push(*name);
            }
        }
    }
    r.module_temperature_c = read(TEMPERATURE).map(units::word).map(units::temperature_c);
    r.supply_voltage_v = read(VCC).map(units::word).map(units::voltage_v);
}

/// The fields [`monitors`] decodes.
pub(super) const MONITOR_FIELDS: &[Field] = &[MODULE_STATE, FLAGS_STATE, FLAGS_TEMP_VCC, FLAGS_AUX12, FLAGS_AUX3_CUSTOM, TEMPERATURE, VCC];

/// Descriptors read from one table, and whether the list ended inside it.
pub(super) struct DescriptorList {
    pub(crate) descriptors: Vec<Descriptor>,
    pub(crate) ended: bool,
    /// A used descriptor after the end of the list (ignored, worth a warning).
    pub(crate) stray_after_end: Option<u8>,
}

/// Application Descriptors 1-8 (an absent table counts as an ended, empty list).
pub(super) fn descriptors(img: &ModuleImage) -> DescriptorList {
    match APP_DESCRIPTORS.read(img, 0) {
        Some(bytes) => parse_descriptors(bytes, 1),
        None => DescriptorList { descriptors: Vec::new(), ended: true, stray_after_end: None },
    }
}

/// Splits 4-byte descriptors numbered from `first_app_sel`. Descriptors are contiguous
/// from AppSel 1 and a HostInterfaceID of 0xFF ends the list (CMIS 5.2 8.2); an
/// unused entry (0x00, "Undefined") ends it too, as in an all-zero table. SONiC's
/// sonic_xcvr stops at "Undefined" the same way.
pub(super) fn parse_descriptors(bytes: &[u8], first_app_sel: u8) -> DescriptorList {
    let mut list = DescriptorList { descriptors: Vec::new(), ended: false, stray_after_end: None };
    for (i, d) in bytes.chunks_exact(4).enumerate() {
        let app_sel = first_app_sel + i as u8;
        let unused = d[0] == 0xff || d[0] == 0x00;
        if list.ended || unused {
            if list.ended && !unused && list.stray_after_end.is_none() {
                list.stray_after_end = Some(app_sel);
            }
            list.ended = true;
            continue;
        }
        list.descriptors.push(Descriptor {
            app_sel,
            host_id: d[0],
            media_id: d[1],
            lane_counts: d[2],
            host_lane_assignment: d[3],
            media_lane_assignment: None,
        });
    }
    list
}
