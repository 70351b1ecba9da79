//! Upper page 00h (CMIS 5.2 8.3): administrative information, connector, media
//! interface technology, page checksum.

use super::super::map::Field;
use super::super::report::{checksum8, ModuleReport};
use super::super::{sff8024, ModuleImage, I2C_A0};

const fn p00(name: &'static str, offset: u8, len: u8) -> Field {
    Field::new(name, I2C_A0, 0x00, offset, len)
}

pub(super) const VENDOR_NAME: Field = p00("vendor_name", 129, 16);
pub(super) const VENDOR_OUI: Field = p00("vendor_oui", 145, 3);
pub(super) const VENDOR_PN: Field = p00("vendor_pn", 148, 16);
pub(super) const VENDOR_REV: Field = p00("vendor_rev", 164, 2);
pub(crate) const VENDOR_SN: Field = p00("vendor_sn", 166, 16);
/// YYMMDD plus a 2-character lot code, ASCII.
pub(super) const DATE_CODE: Field = p00("date_code", 182, 8);
/// SFF-8024 Table 4-3 connector code.
pub(super) const CONNECTOR: Field = p00("connector", 203, 1);
/// MediaLaneUnsupportedLane: bit i = 1 when media lane i+1 does not exist (CMIS 5.2 8.3.7).
pub(super) const MEDIA_LANE_UNSUPPORTED: Field = p00("media_lane_unsupported", 210, 1);
/// MediaInterfaceTechnology (CMIS 5.2 8.3).
pub(super) const MEDIA_TECH: Field = p00("media_interface_technology", 212, 1);
/// Low 8 bits of the sum of bytes 128-221 (CMIS 5.2 8.3, PageChecksum).
pub(super) const CHECKSUM: Field = p00("checksum", 222, 1);
/// The bytes that checksum covers: 128..=221 (a range, not a field: it spans the others).
const CHECKSUM_FROM: u8 = 128;
const CHECKSUM_LEN: usize = 94;

/// Every field this page decodes, for the overlap test.
#[cfg(test)]
pub(super) const FIELDS: &[Field] =
    &[VENDOR_NAME, VENDOR_OUI, VENDOR_PN, VENDOR_REV, VENDOR_SN, DATE_CODE, CONNECTOR, MEDIA_LANE_UNSUPPORTED, MEDIA_TECH, CHECKSUM];

/// Media interface technology encodings (CMIS 5.2 8.3, byte 212).
const MEDIA_TECHNOLOGIES: &[(u8, &str)] = &[
    (0x00, "850 nm VCSEL"),
    (0x01, "1310 nm VCSEL"),
    (0x02, "1550 nm VCSEL"),
    (0x03, "1310 nm FP"),
    (0x04, "1310 nm DFB"),
    (0x05, "1550 nm DFB"),
    (0x06, "1310 nm EML"),
    (0x07, "1550 nm EML"),
    (0x08, "Others"),
    (0x09, "1490 nm DFB"),
    (0x0a, "Copper cable, unequalized"),
    (0x0b, "Copper cable, passive equalized"),
    (0x0c, "Copper cable, near and far end limiting active equalizers"),
    (0x0d, "Copper cable, far end limiting active equalizers"),
    (0x0e, "Copper cable, near end limiting active equalizers"),
    (0x0f, "Copper cable, linear active equalizers"),
    (0x10, "C-band tunable laser"),
    (0x11, "L-band tunable laser"),
];

/// Media type code for multimode fibre (lower byte 85).
const MEDIA_TYPE_MMF: u8 = 0x01;

/// Bitmap of the media lanes 1-8 the module lacks (0 when page 00h was not read). A
/// 4-lane module in an 8-lane form factor (e.g. 400G-DR4 in QSFP-DD) sets bits 4-7. A
/// module without lane 1 is not credible (the byte is garbage), so such a value is
/// ignored with a warning.
pub(super) fn unsupported_media_lanes(img: &ModuleImage, warnings: &mut Vec<String>) -> u8 {
    match MEDIA_LANE_UNSUPPORTED.byte(img, 0).unwrap_or(0) {
        mask if mask & 0x01 != 0 => {
            warnings.push(format!("page 00h byte 210 = 0x{mask:02x} marks media lane 1 unsupported: ignored"));
            0
        }
        mask => mask,
    }
}

/// Decodes identity fields into `r`; `media_type` is lower byte 85.
pub(super) fn decode(img: &ModuleImage, r: &mut ModuleReport, media_type: Option<u8>) {
    if !img.has_upper_page(I2C_A0, 0x00, 0) {
        r.warnings.push("page 00h absent: vendor identity not decoded".into());
        return;
    }
    r.vendor_name = VENDOR_NAME.ascii(img, 0);
    r.vendor_oui = VENDOR_OUI.read(img, 0).map(|b| format!("{:02x}:{:02x}:{:02x}", b[0], b[1], b[2]));
    r.vendor_pn = VENDOR_PN.ascii(img, 0);
    r.vendor_rev = VENDOR_REV.ascii(img, 0);
    r.vendor_sn = VENDOR_SN.ascii(img, 0);
    r.date_code = DATE_CODE.ascii(img, 0);
    r.connector = CONNECTOR.byte(img, 0);
    r.connector_name = r.connector.map(sff8024::connector_name);
    // 0x00 (850 nm VCSEL) is also what an unprogrammed byte reads: trust it only on MMF
    // modules (a passive copper cable with byte 212 = 0 is not a VCSEL).
    let tech = MEDIA_TECH
        .byte(img, 0)
        .filter(|&t| t != 0x00 || media_type == Some(MEDIA_TYPE_MMF))
        .map(|t| sff8024::lookup(MEDIA_TECHNOLOGIES, t));
    if let Some(tech) = tech {
        r.media_type = Some(match r.media_type.take() {
            Some(media) => format!("{media}, {tech}"),
            None => tech,
        });
    }
    if let (Some(bytes), Some(stored)) = (img.bytes(I2C_A0, 0x00, 0, CHECKSUM_FROM, CHECKSUM_LEN), CHECKSUM.byte(img, 0)) {
        r.check_sum("page 00h", stored, checksum8(bytes));
    }
}
