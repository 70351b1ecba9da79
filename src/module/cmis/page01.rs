//! Upper page 01h (CMIS 5.2 8.4): advertisement of implemented pages, banks, monitors
//! and flags, media lane assignment, Application Descriptors 9-15. Absent on flat-memory
//! modules.

use super::super::map::Field;
use super::super::report::{checksum8, ModuleReport, RxPowerType};
use super::super::{ModuleImage, I2C_A0};
use super::lower::DescriptorList;

const fn p01(name: &'static str, offset: u8, len: u8) -> Field {
    Field::new(name, I2C_A0, 0x01, offset, len)
}

/// Nominal wavelength, U16 in units of 0.05 nm (CMIS 5.2 8.4).
pub(super) const WAVELENGTH: Field = p01("nominal_wavelength", 138, 2);
/// Bits 1-0 BanksSupported: 0 = bank 0, 1 = banks 0-1, 2 = banks 0-3 (CMIS 5.2 8.4).
pub(super) const PAGES_BANKS: Field = p01("supported_pages_banks", 142, 1);
/// Bit 4: Rx power measured as average (1) or OMA (0) (ethtool cmis.h CMIS_DIAG_TYPE_OFFSET).
pub(super) const RX_POWER_TYPE: Field = p01("rx_power_measurement_type", 151, 1);
/// Supported Tx / Rx flags (CMIS 5.2 8.4; advertisement of Tables 8-80 and 8-81).
pub(super) const TX_FLAGS_ADV: Field = p01("tx_flags_supported", 157, 1);
pub(super) const RX_FLAGS_ADV: Field = p01("rx_flags_supported", 158, 1);
/// Bit 0 temperature, bit 1 Vcc monitor implemented (CMIS 5.2 8.4).
pub(super) const MODULE_MON_ADV: Field = p01("module_monitors_supported", 159, 1);
/// Bit 0 Tx bias, bit 1 Tx power, bit 2 Rx power monitors; bits 4-3 Tx bias current
/// multiplier 1/2/4 (CMIS 5.2 8.4).
pub(super) const LANE_MON_ADV: Field = p01("lane_monitors_supported", 160, 1);
/// Media lane assignment options of applications 1-15 (CMIS 5.2 Table 8-52).
pub(super) const MEDIA_LANE_ASSIGNMENT: Field = p01("media_lane_assignment", 176, 15);
/// Application Descriptors 9-15 (CMIS 5.2 8.4; also CMIS 4.0).
pub(super) const APP_DESCRIPTORS_9_15: Field = p01("application_descriptors_9_15", 223, 28);
/// Low 8 bits of the sum of bytes 130-254 (CMIS 5.2 8.4, PageChecksum).
pub(super) const CHECKSUM: Field = p01("checksum", 255, 1);
const CHECKSUM_FROM: u8 = 130;
const CHECKSUM_LEN: usize = 125;

/// Every field this page decodes, for the overlap test.
#[cfg(test)]
pub(super) const FIELDS: &[Field] = &[
    WAVELENGTH,
    PAGES_BANKS,
    RX_POWER_TYPE,
    TX_FLAGS_ADV,
    RX_FLAGS_ADV,
    MODULE_MON_ADV,
    LANE_MON_ADV,
    MEDIA_LANE_ASSIGNMENT,
    APP_DESCRIPTORS_9_15,
    CHECKSUM,
];

/// What page 01h says the module implements.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Advertisement {
    pub(crate) temperature_mon: bool,
    pub(crate) vcc_mon: bool,
    pub(crate) tx_bias_mon: bool,
    pub(crate) tx_power_mon: bool,
    pub(crate) rx_power_mon: bool,
    /// Multiplier of the 2 uA bias LSB; `None` for the reserved code 3.
    pub(crate) tx_bias_multiplier: Option<u8>,
    pub(crate) rx_power_type: RxPowerType,
}

/// Number of banks (1, 2 or 4) the module advertises; `None` when page 01h byte 142 was
/// not read or holds the reserved code 3.
pub(super) fn bank_count(img: &ModuleImage) -> Option<u8> {
    match PAGES_BANKS.byte(img, 0)? & 0x03 {
        0 => Some(1),
        1 => Some(2),
        2 => Some(4),
        _ => None,
    }
}

/// The monitors page 01h advertises, without the rest of its decode (no report, no
/// checksum): what the per-sample rx power reading needs. `None` as for [`decode`].
pub(super) fn advertisement(img: &ModuleImage) -> Option<Advertisement> {
    if !img.has_upper_page(I2C_A0, 0x01, 0) {
        return None;
    }
    Some(advertised(MODULE_MON_ADV.byte(img, 0)?, LANE_MON_ADV.byte(img, 0)?, img))
}

/// Bytes 159 (module monitors) and 160 (lane monitors), and byte 145 bit 4 (Rx power type).
fn advertised(module_mon: u8, lane_mon: u8, img: &ModuleImage) -> Advertisement {
    let tx_bias_multiplier = match (lane_mon >> 3) & 0x03 {
        0 => Some(1),
        1 => Some(2),
        2 => Some(4),
        _ => None,
    };
    let tx_bias_mon = lane_mon & 0x01 != 0;
    let rx_average = RX_POWER_TYPE.byte(img, 0).is_some_and(|b| b & 0x10 != 0);
    Advertisement {
        temperature_mon: module_mon & 0x01 != 0,
        vcc_mon: module_mon & 0x02 != 0,
        tx_bias_mon,
        tx_power_mon: lane_mon & 0x02 != 0,
        rx_power_mon: lane_mon & 0x04 != 0,
        tx_bias_multiplier,
        rx_power_type: if rx_average { RxPowerType::Average } else { RxPowerType::Oma },
    }
}

/// Decodes the advertisement; `None` (plus a warning) when page 01h was not read.
pub(super) fn decode(img: &ModuleImage, r: &mut ModuleReport) -> Option<Advertisement> {
    if !img.has_upper_page(I2C_A0, 0x01, 0) {
        r.warnings.push("page 01h absent: implemented monitors unknown, lane monitors and thresholds not decoded".into());
        return None;
    }
    if PAGES_BANKS.byte(img, 0).is_some() && bank_count(img).is_none() {
        r.warnings.push("page 01h byte 142: reserved bank count code 3, assuming bank 0 only".into());
    }
    r.wavelength_nm = WAVELENGTH.word(img, 0).map(u16::from_be_bytes).filter(|&w| w != 0).map(|w| w as f64 * 0.05);
    if let (Some(bytes), Some(stored)) = (img.bytes(I2C_A0, 0x01, 0, CHECKSUM_FROM, CHECKSUM_LEN), CHECKSUM.byte(img, 0)) {
        r.check_sum("page 01h", stored, checksum8(bytes));
    }
    let (Some(module_mon), Some(lane_mon)) = (MODULE_MON_ADV.byte(img, 0), LANE_MON_ADV.byte(img, 0)) else {
        r.warnings.push("page 01h bytes 159-160 (monitor advertisement) missing".into());
        return None;
    };
    let adv = advertised(module_mon, lane_mon, img);
    if adv.tx_bias_mon && adv.tx_bias_multiplier.is_none() {
        r.warnings.push("page 01h byte 160: reserved Tx bias multiplier code 3, Tx bias not decoded".into());
    }
    // The measurement type means nothing for a module that does not measure Rx power.
    r.rx_power_type = adv.rx_power_mon.then_some(adv.rx_power_type);
    Some(adv)
}

/// Application Descriptors 9-15, when page 01h holds them.
pub(super) fn descriptors(img: &ModuleImage) -> Option<DescriptorList> {
    APP_DESCRIPTORS_9_15.read(img, 0).map(|b| super::lower::parse_descriptors(b, 9))
}

/// Media lane assignment byte of `app_sel` (1-15), if page 01h holds it.
pub(super) fn media_lane_assignment(img: &ModuleImage, app_sel: u8) -> Option<u8> {
    let bytes = MEDIA_LANE_ASSIGNMENT.read(img, 0)?;
    bytes.get(usize::from(app_sel).checked_sub(1)?).copied()
}
