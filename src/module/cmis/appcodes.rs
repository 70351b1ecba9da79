//! SFF-8024 Rev 4.11 interface codes used in CMIS Application Descriptors:
//! host electrical (Table 4-5) and module media (Tables 4-6 MMF, 4-7 SMF, 4-8 passive
//! copper, 4-9 active cable, 4-10 BASE-T), with the per-lane signalling each implies.
//!
//! Lane rates are the nominal per-lane bit rates of the IEEE 802.3 clause or annex the
//! code names (e.g. 400GAUI-4: 4 lanes x 106.25 Gb/s PAM4). Codes whose clause does not
//! fix a lane signal (copper/active-cable media codes, Fibre Channel, InfiniBand, OTN)
//! carry no rate; the application then takes it from the host side (see [`describe`]).

use super::super::report::{Application, Modulation};
use super::super::sff8024;

/// Signalling of one lane: format and nominal bit rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Signal {
    pub modulation: Modulation,
    pub lane_gbps: f64,
}

/// One row of an SFF-8024 interface code table.
pub(super) struct Code {
    pub code: u8,
    pub name: &'static str,
    pub signal: Option<Signal>,
}

const fn nrz(name: &'static str, code: u8, lane_gbps: f64) -> Code {
    Code { code, name, signal: Some(Signal { modulation: Modulation::Nrz, lane_gbps }) }
}
const fn pam4(name: &'static str, code: u8, lane_gbps: f64) -> Code {
    Code { code, name, signal: Some(Signal { modulation: Modulation::Pam4, lane_gbps }) }
}
const fn plain(name: &'static str, code: u8) -> Code {
    Code { code, name, signal: None }
}

/// SFF-8024 Table 4-5, Host Electrical Interface Codes (Ethernet rows with lane rates).
pub(super) const HOST_ELECTRICAL: &[Code] = &[
    plain("Undefined", 0x00),
    nrz("1000BASE-CX (Clause 39)", 0x01, 1.25),
    nrz("XAUI (Clause 47)", 0x02, 3.125),
    nrz("XFI (SFF INF-8071i)", 0x03, 10.3125),
    nrz("SFI (SFF-8431)", 0x04, 10.3125),
    nrz("25GAUI C2M (Annex 109B)", 0x05, 25.78125),
    nrz("XLAUI C2M (Annex 83B)", 0x06, 10.3125),
    nrz("XLPPI (Annex 86A)", 0x07, 10.3125),
    nrz("LAUI-2 C2M (Annex 135C)", 0x08, 25.78125),
    nrz("50GAUI-2 C2M (Annex 135E)", 0x09, 26.5625),
    pam4("50GAUI-1 C2M (Annex 135G)", 0x0a, 53.125),
    nrz("CAUI-4 C2M (Annex 83E)", 0x0b, 25.78125),
    nrz("100GAUI-4 C2M (Annex 135E)", 0x0c, 26.5625),
    pam4("100GAUI-2 C2M (Annex 135G)", 0x0d, 53.125),
    nrz("200GAUI-8 C2M (Annex 120C)", 0x0e, 26.5625),
    pam4("200GAUI-4 C2M (Annex 120E)", 0x0f, 53.125),
    nrz("400GAUI-16 C2M (Annex 120C)", 0x10, 26.5625),
    pam4("400GAUI-8 C2M (Annex 120E)", 0x11, 53.125),
    nrz("10GBASE-CX4 (Clause 54)", 0x13, 3.125),
    nrz("25GBASE-CR CA-25G-L (Clause 110)", 0x14, 25.78125),
    nrz("25GBASE-CR or 25GBASE-CR-S CA-25G-S (Clause 110)", 0x15, 25.78125),
    nrz("25GBASE-CR or 25GBASE-CR-S CA-25G-N (Clause 110)", 0x16, 25.78125),
    nrz("40GBASE-CR4 (Clause 85)", 0x17, 10.3125),
    pam4("50GBASE-CR (Clause 136)", 0x18, 53.125),
    nrz("100GBASE-CR10 (Clause 85)", 0x19, 10.3125),
    nrz("100GBASE-CR4 (Clause 92)", 0x1a, 25.78125),
    pam4("100GBASE-CR2 (Clause 136)", 0x1b, 53.125),
    pam4("200GBASE-CR4 (Clause 136)", 0x1c, 53.125),
    pam4("400G CR8", 0x1d, 53.125),
    plain("1000BASE-T (Clause 40)", 0x1e),
    plain("2.5GBASE-T (Clause 126)", 0x1f),
    plain("5GBASE-T (Clause 126)", 0x20),
    plain("10GBASE-T (Clause 55)", 0x21),
    plain("IB SDR (Arch.Spec.Vol.2)", 0x2c),
    plain("IB DDR (Arch.Spec.Vol.2)", 0x2d),
    plain("IB QDR (Arch.Spec.Vol.2)", 0x2e),
    plain("IB FDR (Arch.Spec.Vol.2)", 0x2f),
    plain("IB EDR (Arch.Spec.Vol.2)", 0x30),
    plain("IB HDR (Arch.Spec.Vol.2)", 0x31),
    plain("IB NDR", 0x32),
    nrz("CAUI-4 C2M (Annex 83E) without FEC", 0x41, 25.78125),
    nrz("CAUI-4 C2M (Annex 83E) with RS(528,514) FEC", 0x42, 25.78125),
    nrz("50GBASE-CR2 (Ethernet Technology Consortium) with RS(528,514) FEC", 0x43, 25.78125),
    nrz("50GBASE-CR2 (Ethernet Technology Consortium) with BASE-R FEC", 0x44, 25.78125),
    nrz("50GBASE-CR2 (Ethernet Technology Consortium) with no FEC", 0x45, 25.78125),
    pam4("100GBASE-CR1 (Clause 162)", 0x46, 106.25),
    pam4("200GBASE-CR2 (Clause 162)", 0x47, 106.25),
    pam4("400GBASE-CR4 (Clause 162)", 0x48, 106.25),
    pam4("800G-ETC-CR8 or 800GBASE-CR8", 0x49, 106.25),
    pam4("100GAUI-1-S C2M (Annex 120G)", 0x4b, 106.25),
    pam4("100GAUI-1-L C2M (Annex 120G)", 0x4c, 106.25),
    pam4("200GAUI-2-S C2M (Annex 120G)", 0x4d, 106.25),
    pam4("200GAUI-2-L C2M (Annex 120G)", 0x4e, 106.25),
    pam4("400GAUI-4-S C2M (Annex 120G)", 0x4f, 106.25),
    pam4("400GAUI-4-L C2M (Annex 120G)", 0x50, 106.25),
    pam4("800GAUI-8 S C2M (Annex 120G)", 0x51, 106.25),
    pam4("800GAUI-8 L C2M (Annex 120G)", 0x52, 106.25),
    pam4("1.6TAUI-16-S C2M (Annex 120G)", 0x55, 106.25),
    pam4("1.6TAUI-16-L C2M (Annex 120G)", 0x56, 106.25),
    pam4("800GBASE-CR4 (Clause 179)", 0x57, 212.5),
    pam4("1.6TBASE-CR8 (Clause 179)", 0x58, 212.5),
    pam4("200GAUI-1 C2M (Annex 176E)", 0x80, 212.5),
    pam4("400GAUI-2 C2M (Annex 176E)", 0x81, 212.5),
    pam4("800GAUI-4 C2M (Annex 176E)", 0x82, 212.5),
    pam4("1.6TAUI-8 C2M (Annex 176E)", 0x83, 212.5),
];

/// SFF-8024 Table 4-6, MMF Media Interface Codes.
pub(super) const MEDIA_MMF: &[Code] = &[
    plain("Undefined", 0x00),
    nrz("10GBASE-SW (Clause 52)", 0x01, 9.95328),
    nrz("10GBASE-SR (Clause 52)", 0x02, 10.3125),
    nrz("25GBASE-SR (Clause 112)", 0x03, 25.78125),
    nrz("40GBASE-SR4 (Clause 86)", 0x04, 10.3125),
    nrz("40GE SWDM4 MSA Spec", 0x05, 10.3125),
    nrz("40GE BiDi", 0x06, 20.625),
    pam4("50GBASE-SR (Clause 138)", 0x07, 53.125),
    nrz("100GBASE-SR10 (Clause 86)", 0x08, 10.3125),
    nrz("100GBASE-SR4 (Clause 95)", 0x09, 25.78125),
    nrz("100GE SWDM4 MSA Spec", 0x0a, 25.78125),
    pam4("100GE BiDi", 0x0b, 53.125),
    pam4("100GBASE-SR2 (Clause 138)", 0x0c, 53.125),
    pam4("100GBASE-SR1 (Clause 167)", 0x0d, 106.25),
    pam4("200GBASE-SR4 (Clause 138)", 0x0e, 53.125),
    nrz("400GBASE-SR16 (Clause 123)", 0x0f, 26.5625),
    pam4("400GBASE-SR8 (Clause 138)", 0x10, 53.125),
    pam4("400GBASE-SR4 (Clause 167)", 0x11, 106.25),
    pam4("800GBASE-SR8 (Clause 167)", 0x12, 106.25),
    plain("8GFC-MM (FC-PI-4)", 0x13),
    plain("10GFC-MM (10GFC)", 0x14),
    plain("16GFC-MM (FC-PI-5)", 0x15),
    plain("32GFC-MM (FC-PI-6)", 0x16),
    plain("64GFC-MM (FC-PI-7)", 0x17),
    plain("128GFC-MM4 (FC-PI-6P)", 0x18),
    plain("256GFC-MM4 (FC-PI-7P)", 0x19),
    pam4("400GBASE-SR4.2 (Clause 150)", 0x1a, 53.125),
];

/// SFF-8024 Table 4-7, SMF Media Interface Codes.
pub(super) const MEDIA_SMF: &[Code] = &[
    plain("Undefined", 0x00),
    nrz("10GBASE-LW (Clause 52)", 0x01, 9.95328),
    nrz("10GBASE-EW (Clause 52)", 0x02, 9.95328),
    nrz("10G-ZW", 0x03, 9.95328),
    nrz("10GBASE-LR (Clause 52)", 0x04, 10.3125),
    nrz("10GBASE-ER (Clause 52)", 0x05, 10.3125),
    nrz("10G-ZR", 0x06, 10.3125),
    nrz("25GBASE-LR (Clause 114)", 0x07, 25.78125),
    nrz("25GBASE-ER (Clause 114)", 0x08, 25.78125),
    nrz("40GBASE-LR4 (Clause 87)", 0x09, 10.3125),
    nrz("40GBASE-FR (Clause 89)", 0x0a, 41.25),
    pam4("50GBASE-FR (Clause 139)", 0x0b, 53.125),
    pam4("50GBASE-LR (Clause 139)", 0x0c, 53.125),
    nrz("100GBASE-LR4 (Clause 88)", 0x0d, 25.78125),
    nrz("100GBASE-ER4 (Clause 88)", 0x0e, 25.78125),
    nrz("100G PSM4 MSA Spec", 0x0f, 25.78125),
    nrz("100G CWDM4 MSA Spec", 0x10, 25.78125),
    nrz("100G 4WDM-10 MSA Spec", 0x11, 25.78125),
    nrz("100G 4WDM-20 MSA Spec", 0x12, 25.78125),
    nrz("100G 4WDM-40 MSA Spec", 0x13, 25.78125),
    pam4("100GBASE-DR (Clause 140)", 0x14, 106.25),
    pam4("100G-FR/100GBASE-FR1 (Clause 140)", 0x15, 106.25),
    pam4("100G-LR/100GBASE-LR1 (Clause 140)", 0x16, 106.25),
    pam4("200GBASE-DR4 (Clause 121)", 0x17, 53.125),
    pam4("200GBASE-FR4 (Clause 122)", 0x18, 53.125),
    pam4("200GBASE-LR4 (Clause 122)", 0x19, 53.125),
    pam4("400GBASE-FR8 (Clause 122)", 0x1a, 53.125),
    pam4("400GBASE-LR8 (Clause 122)", 0x1b, 53.125),
    pam4("400GBASE-DR4 (Clause 124)", 0x1c, 106.25),
    pam4("400G-FR4/400GBASE-FR4 (Clause 151)", 0x1d, 106.25),
    pam4("400G-LR4-10", 0x1e, 106.25),
];

/// SFF-8024 Table 4-8, Passive Copper Cable Media Interface Codes.
pub(super) const MEDIA_PASSIVE_COPPER: &[Code] =
    &[plain("Undefined", 0x00), plain("Copper cable", 0x01), plain("Passive Loopback module", 0x02)];

/// SFF-8024 Table 4-9, Active Cable Assembly Media Interface Codes.
pub(super) const MEDIA_ACTIVE_CABLE: &[Code] = &[
    plain("Undefined", 0x00),
    plain("Active Cable assembly with BER < 1e-12", 0x01),
    plain("Active Cable assembly with BER < 5e-5", 0x02),
    plain("Active Cable assembly with BER < 2.6e-4", 0x03),
    plain("Active Cable assembly with BER < 1e-6", 0x04),
    plain("Active Loopback module", 0xbf),
];

/// SFF-8024 Table 4-10, BASE-T Media Interface Codes.
pub(super) const MEDIA_BASE_T: &[Code] = &[
    plain("Undefined", 0x00),
    plain("1000BASE-T (Clause 40)", 0x01),
    plain("2.5GBASE-T (Clause 126)", 0x02),
    plain("5GBASE-T (Clause 126)", 0x03),
    plain("10GBASE-T (Clause 55)", 0x04),
];

/// The media code table selected by the MediaType byte (CMIS 5.2 8.2, lower byte 85).
pub(super) fn media_table(media_type: u8) -> Option<&'static [Code]> {
    match media_type {
        0x01 => Some(MEDIA_MMF),
        0x02 => Some(MEDIA_SMF),
        0x03 => Some(MEDIA_PASSIVE_COPPER),
        0x04 => Some(MEDIA_ACTIVE_CABLE),
        0x05 => Some(MEDIA_BASE_T),
        _ => None,
    }
}

/// Name and signal of `code`; codes the table lacks print as `Unknown (0xNN)`.
pub(super) fn find(table: Option<&[Code]>, code: u8) -> (String, Option<Signal>) {
    match table.and_then(|t| t.iter().find(|c| c.code == code)) {
        Some(c) => (c.name.to_string(), c.signal),
        // An empty table makes `lookup` produce the shared "Unknown (0xNN)" text.
        None => (sff8024::lookup(&[], code), None),
    }
}

/// One raw Application Descriptor (CMIS 5.2 Table 8-23 / Table 8-52).
#[derive(Clone, Copy, Debug)]
pub(super) struct Descriptor {
    pub app_sel: u8,
    pub host_id: u8,
    pub media_id: u8,
    pub lane_counts: u8,
    pub host_lane_assignment: u8,
    pub media_lane_assignment: Option<u8>,
}

/// Builds the report's view of one descriptor; `media_type` picks the media code table.
///
/// Modulation and media lane rate come from the media code when it defines them, else from
/// the host code when the module maps lanes one to one (equal host and media lane counts,
/// as in copper and active cables, whose media codes name no signal).
pub(super) fn describe(d: &Descriptor, media_type: Option<u8>, warnings: &mut Vec<String>) -> Application {
    let (host_interface, host_signal) = find(Some(HOST_ELECTRICAL), d.host_id);
    let (media_interface, media_signal) = find(media_type.and_then(media_table), d.media_id);
    let host_lane_count = lane_count(d.app_sel, "host", d.lane_counts >> 4, warnings);
    let media_lane_count = lane_count(d.app_sel, "media", d.lane_counts & 0x0f, warnings);
    let media_signal = media_signal.or(if host_lane_count == media_lane_count { host_signal } else { None });
    Application {
        app_sel: d.app_sel,
        host_interface_id: d.host_id,
        host_interface,
        media_interface_id: d.media_id,
        media_interface,
        host_lane_count,
        media_lane_count,
        host_lane_assignment: Some(d.host_lane_assignment),
        media_lane_assignment: d.media_lane_assignment,
        modulation: media_signal.or(host_signal).map(|s| s.modulation),
        host_lane_bit_rate_gbps: host_signal.map(|s| s.lane_gbps),
        media_lane_bit_rate_gbps: media_signal.map(|s| s.lane_gbps),
    }
}

/// A lane count nibble (CMIS 5.2 Table 8-23, byte 2): 1-8 lanes per bank; other values
/// are kept (0) or clamped (9-15 -> 8) with a warning.
fn lane_count(app_sel: u8, side: &str, n: u8, warnings: &mut Vec<String>) -> u8 {
    if (1..=8).contains(&n) {
        return n;
    }
    warnings.push(format!("application {app_sel}: {side} lane count {n} is outside 1-8"));
    n.min(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables() -> [&'static [Code]; 6] {
        [HOST_ELECTRICAL, MEDIA_MMF, MEDIA_SMF, MEDIA_PASSIVE_COPPER, MEDIA_ACTIVE_CABLE, MEDIA_BASE_T]
    }

    #[test]
    fn codes_are_unique_and_sorted() {
        for t in tables() {
            assert!(t.windows(2).all(|w| w[0].code < w[1].code), "{}", t[0].name);
        }
    }

    #[test]
    fn lookups() {
        // 0x4f = 79: 400GAUI-4-S, 4 x 106.25 Gb/s PAM4 (IEEE 802.3ck Annex 120G).
        let (name, sig) = find(Some(HOST_ELECTRICAL), 0x4f);
        assert_eq!(name, "400GAUI-4-S C2M (Annex 120G)");
        assert_eq!(sig, Some(Signal { modulation: Modulation::Pam4, lane_gbps: 106.25 }));
        assert_eq!(find(Some(MEDIA_SMF), 0x1c).0, "400GBASE-DR4 (Clause 124)");
        assert_eq!(find(Some(MEDIA_MMF), 0x7e).0, "Unknown (0x7e)");
        assert_eq!(find(None, 0x03).0, "Unknown (0x03)");
        assert_eq!(media_table(0x04).map(|t| t.len()), Some(MEDIA_ACTIVE_CABLE.len()));
    }
}
