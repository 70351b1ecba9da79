//! SFF-8024 code tables (Rev 4.11): identifiers (Table 4-1), connectors (Table 4-3),
//! encodings (Table 4-2), and which management standard an identifier implies.

use super::report::Standard;

/// SFF-8024 Table 4-1, Identifier Values.
const IDENTIFIERS: &[(u8, &str)] = &[
    (0x00, "Unknown or unspecified"),
    (0x01, "GBIC"),
    (0x02, "Module/connector soldered to motherboard"),
    (0x03, "SFP/SFP+/SFP28"),
    (0x04, "300 pin XBI"),
    (0x05, "XENPAK"),
    (0x06, "XFP"),
    (0x07, "XFF"),
    (0x08, "XFP-E"),
    (0x09, "XPAK"),
    (0x0a, "X2"),
    (0x0b, "DWDM-SFP/SFP+"),
    (0x0c, "QSFP"),
    (0x0d, "QSFP+ or later"),
    (0x0e, "CXP or later"),
    (0x0f, "Shielded Mini Multilane HD 4X"),
    (0x10, "Shielded Mini Multilane HD 8X"),
    (0x11, "QSFP28 or later"),
    (0x12, "CXP2 (aka CXP28) or later"),
    (0x13, "CDFP (Style 1/Style2)"),
    (0x14, "Shielded Mini Multilane HD 4X Fanout Cable"),
    (0x15, "Shielded Mini Multilane HD 8X Fanout Cable"),
    (0x16, "CDFP (Style 3)"),
    (0x17, "microQSFP"),
    (0x18, "QSFP-DD Double Density 8X Pluggable Transceiver"),
    (0x19, "OSFP 8X Pluggable Transceiver"),
    (0x1a, "SFP-DD Double Density 2X Pluggable Transceiver"),
    (0x1b, "DSFP Dual Small Form Factor Pluggable Transceiver"),
    (0x1c, "x4 MiniLink/OcuLink"),
    (0x1d, "x8 MiniLink"),
    (0x1e, "QSFP+ or later with CMIS"),
    (0x1f, "SFP-DD Double Density 2X Pluggable Transceiver with CMIS"),
    (0x20, "SFP+ and later with CMIS"),
    (0x21, "OSFP-XD with CMIS"),
    (0x22, "OIF-ELSFP with CMIS"),
    (0x23, "CDFP (x4 PCIe) SFF-TA-1032 with CMIS"),
    (0x24, "CDFP (x8 PCIe) SFF-TA-1032 with CMIS"),
    (0x25, "CDFP (x16 PCIe) SFF-TA-1032 with CMIS"),
];

/// Identifier name, or `Unknown (0xNN)` for codes the table does not list.
pub fn identifier_name(id: u8) -> String {
    lookup(IDENTIFIERS, id)
}

/// SFF-8024 Table 4-3, Connector Types.
const CONNECTORS: &[(u8, &str)] = &[
    (0x00, "Unknown or unspecified"),
    (0x01, "SC (Subscriber Connector)"),
    (0x02, "Fibre Channel Style 1 copper connector"),
    (0x03, "Fibre Channel Style 2 copper connector"),
    (0x04, "BNC/TNC (Bayonet/Threaded Neill-Concelman)"),
    (0x05, "Fibre Channel coax headers"),
    (0x06, "Fiber Jack"),
    (0x07, "LC (Lucent Connector)"),
    (0x08, "MT-RJ (Mechanical Transfer - Registered Jack)"),
    (0x09, "MU (Multiple Optical)"),
    (0x0a, "SG"),
    (0x0b, "Optical Pigtail"),
    (0x0c, "MPO 1x12 (Multifiber Parallel Optic)"),
    (0x0d, "MPO 2x16"),
    (0x20, "HSSDC II (High Speed Serial Data Connector)"),
    (0x21, "Copper pigtail"),
    (0x22, "RJ45 (Registered Jack)"),
    (0x23, "No separable connector"),
    (0x24, "MXC 2x16"),
    (0x25, "CS optical connector"),
    (0x26, "SN (previously Mini CS) optical connector"),
    (0x27, "MPO 2x12"),
    (0x28, "MPO 1x16"),
];

/// Connector name, or `Unknown (0xNN)` for codes the table does not list.
pub fn connector_name(code: u8) -> String {
    lookup(CONNECTORS, code)
}

/// The management interface an identifier implies (SFF-8024 Table 4-1 "Reference" column).
pub fn standard_for_identifier(id: u8) -> Option<Standard> {
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

/// The name of `code` in `table`, or `Unknown (0xNN)` for codes the table does not list.
pub(crate) fn lookup(table: &[(u8, &str)], code: u8) -> String {
    table
        .iter()
        .find(|(c, _)| *c == code)
        .map(|(_, n)| n.to_string())
        .unwrap_or_else(|| format!("Unknown ({code:#04x})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_codes_print_as_unknown() {
        assert_eq!(identifier_name(0x11), "QSFP28 or later");
        assert_eq!(identifier_name(0x7e), "Unknown (0x7e)");
        assert_eq!(standard_for_identifier(0x7e), None);
        assert_eq!(standard_for_identifier(0x18), Some(Standard::Cmis));
    }
}
