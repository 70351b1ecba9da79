//! SFF-8024 code tables (Rev 4.11): identifiers (Table 4-1), connectors (Table 4-3),
//! encodings (Table 4-2), extended specification compliance (Table 4-4), and which
//! management standard an identifier implies.

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
pub(crate) fn identifier_name(id: u8) -> String {
    lookup(IDENTIFIERS, id)
}

/// The form factor an identifier names, as people say it (Table 4-1's names shortened).
/// 0x11 "QSFP28 or later" is QSFP28 here; a module's compliance can say it is a later one
/// (`sff8636::form_factor`).
pub(crate) fn form_factor(id: u8) -> Option<&'static str> {
    Some(match id {
        0x03 => "SFP",
        0x0c => "QSFP",
        0x0d => "QSFP+",
        0x11 => "QSFP28",
        0x17 => "microQSFP",
        0x18 => "QSFP-DD",
        0x19 => "OSFP",
        0x1a | 0x1f => "SFP-DD",
        0x1e => "QSFP",
        0x20 => "SFP+",
        0x21 => "OSFP-XD",
        _ => return None,
    })
}

/// SFF-8024 Table 4-3, Connector Types (0x0e-0x1f and 0x29-0x7f reserved, 0x80-0xff vendor specific).
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

/// Connector name (SFF-8024 Table 4-3); vendor-specific codes 0x80-0xff are named as such.
pub(crate) fn connector_name(code: u8) -> String {
    if code >= 0x80 {
        return format!("Vendor specific ({code:#04x})");
    }
    lookup(CONNECTORS, code)
}

/// SFF-8024 Table 4-2, Encoding Values, SFF-8472 column (A0h byte 11).
const ENCODINGS_SFF8472: &[(u8, &str)] = &[
    (0x00, "Unspecified"),
    (0x01, "8B/10B"),
    (0x02, "4B/5B"),
    (0x03, "NRZ"),
    (0x04, "Manchester"),
    (0x05, "SONET Scrambled"),
    (0x06, "64B/66B"),
    (0x07, "256B/257B (transcoded FEC-enabled data)"),
    (0x08, "PAM4"),
];

/// Encoding name for an SFF-8472 module (A0h byte 11).
pub(crate) fn encoding_name_sff8472(code: u8) -> String {
    lookup(ENCODINGS_SFF8472, code)
}

/// SFF-8024 Table 4-4, Extended Specification Compliance Codes (SFF-8472 A0h byte 36,
/// SFF-8636 page 00h byte 192).
const EXT_COMPLIANCE: &[(u8, &str)] = &[
    (0x00, "Unspecified"),
    (0x01, "100G AOC (Active Optical Cable), retimed or 25GAUI C2M AOC, BER 5x10^-5"),
    (0x02, "100GBASE-SR4 or 25GBASE-SR"),
    (0x03, "100GBASE-LR4 or 25GBASE-LR"),
    (0x04, "100GBASE-ER4 or 25GBASE-ER"),
    (0x05, "100GBASE-SR10"),
    (0x06, "100G CWDM4"),
    (0x07, "100G PSM4 Parallel SMF"),
    (0x08, "100G ACC (Active Copper Cable), retimed or 25GAUI C2M ACC, BER 5x10^-5"),
    (0x09, "Obsolete (assigned before 100G CWDM4 MSA required FEC)"),
    (0x0b, "100GBASE-CR4, 25GBASE-CR CA-25G-L or 50GBASE-CR2 with RS (Clause 91) FEC"),
    (0x0c, "25GBASE-CR CA-25G-S or 50GBASE-CR2 with BASE-R (Clause 74) FEC"),
    (0x0d, "25GBASE-CR CA-25G-N or 50GBASE-CR2 with no FEC"),
    (0x0e, "10 Mb/s Single Pair Ethernet (10BASE-T1L, 10BASE-T1S, 10BASE-T1M)"),
    (0x10, "40GBASE-ER4"),
    (0x11, "4 x 10GBASE-SR"),
    (0x12, "40G PSM4 Parallel SMF"),
    (0x13, "G959.1 profile P1I1-2D1 (10709 MBd, 2 km, 1310 nm SM)"),
    (0x14, "G959.1 profile P1S1-2D2 (10709 MBd, 40 km, 1550 nm SM)"),
    (0x15, "G959.1 profile P1L1-2D2 (10709 MBd, 80 km, 1550 nm SM)"),
    (0x16, "10GBASE-T with SFI electrical interface"),
    (0x17, "100G CLR4"),
    (0x18, "100G AOC, retimed or 25GAUI C2M AOC, BER 10^-12"),
    (0x19, "100G ACC, retimed or 25GAUI C2M ACC, BER 10^-12"),
    (0x1a, "100GE-DWDM2"),
    (0x1b, "100G 1550 nm WDM (4 wavelengths)"),
    (0x1c, "10GBASE-T Short Reach (30 meters)"),
    (0x1d, "5GBASE-T"),
    (0x1e, "2.5GBASE-T"),
    (0x1f, "40G SWDM4"),
    (0x20, "100G SWDM4"),
    (0x21, "100G PAM4 BiDi"),
    (0x22, "4WDM-10 MSA"),
    (0x23, "4WDM-20 MSA"),
    (0x24, "4WDM-40 MSA"),
    (0x25, "100GBASE-DR (Clause 140), CAUI-4 (no FEC)"),
    (0x26, "100G-FR or 100GBASE-FR1 (Clause 140), CAUI-4 (no FEC on host interface)"),
    (0x27, "100G-LR or 100GBASE-LR1 (Clause 140), CAUI-4 (no FEC on host interface)"),
    (0x28, "100GBASE-SR1 (Clause 167), CAUI-4 (no FEC on host interface)"),
    (0x29, "100GBASE-SR1, 200GBASE-SR2 or 400GBASE-SR4 (Clause 167)"),
    (0x2a, "100GBASE-FR1 (Clause 140)"),
    (0x2b, "100GBASE-LR1 (Clause 140)"),
    (0x2c, "100G-LR1-20 MSA, CAUI-4 (no FEC on host interface)"),
    (0x2d, "100G-ER1-30 MSA, CAUI-4 (no FEC on host interface)"),
    (0x2e, "100G-ER1-40 MSA, CAUI-4 (no FEC on host interface)"),
    (0x2f, "100G-LR1-20 MSA"),
    (0x30, "Active Copper Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M, BER 10^-6"),
    (0x31, "Active Optical Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M, BER 10^-6"),
    (0x32, "Active Copper Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M, BER 2.6x10^-4 (ACC), 10^-5 (AUI)"),
    (0x33, "Active Optical Cable with 50GAUI, 100GAUI-2 or 200GAUI-4 C2M, BER 2.6x10^-4 (AOC), 10^-5 (AUI)"),
    (0x34, "100G-ER1-30 MSA"),
    (0x35, "100G-ER1-40 MSA"),
    (0x36, "100GBASE-VR1, 200GBASE-VR2 or 400GBASE-VR4 (Clause 167)"),
    (0x37, "10GBASE-BR (Clause 158)"),
    (0x38, "25GBASE-BR (Clause 159)"),
    (0x39, "50GBASE-BR (Clause 160)"),
    (0x3a, "100GBASE-VR1 (Clause 167), CAUI-4 (no FEC on host interface)"),
    (0x3f, "100GBASE-CR1, 200GBASE-CR2 or 400GBASE-CR4 (Clause 162)"),
    (0x40, "50GBASE-CR, 100GBASE-CR2, or 200GBASE-CR4"),
    (0x41, "50GBASE-SR, 100GBASE-SR2, or 200GBASE-SR4"),
    (0x42, "50GBASE-FR or 200GBASE-DR4"),
    (0x43, "200GBASE-FR4"),
    (0x44, "200G 1550 nm PSM4"),
    (0x45, "50GBASE-LR"),
    (0x46, "200GBASE-LR4"),
    (0x47, "400GBASE-DR4 (Clause 124), 100GAUI-1 C2M (Annex 120G)"),
    (0x48, "400GBASE-FR4 (Clause 151)"),
    (0x49, "400GBASE-LR4-6 (Clause 151)"),
    (0x4a, "50GBASE-ER (Clause 139)"),
    (0x4b, "400G-LR4-10"),
    (0x4c, "400GBASE-ZR (Clause 156)"),
    (0x7f, "256GFC-SW4 (FC-PI-7P)"),
    (0x80, "64GFC (FC-PI-7)"),
    (0x81, "128GFC (FC-PI-8)"),
];

/// Extended specification compliance name (SFF-8024 Table 4-4).
pub(crate) fn ext_compliance_name(code: u8) -> String {
    lookup(EXT_COMPLIANCE, code)
}

/// The name of `code` in `table`, or `Unknown (0xNN)` for codes the table does not list.
pub(crate) fn lookup(table: &[(u8, &str)], code: u8) -> String {
    table.iter().find(|(c, _)| *c == code).map(|(_, n)| n.to_string()).unwrap_or_else(|| format!("Unknown ({code:#04x})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_codes_print_as_unknown() {
        assert_eq!(identifier_name(0x11), "QSFP28 or later");
        assert_eq!(identifier_name(0x7e), "Unknown (0x7e)");
        assert_eq!(connector_name(0x0e), "Unknown (0x0e)");
        assert_eq!(ext_compliance_name(0x0a), "Unknown (0x0a)");
        assert_eq!(encoding_name_sff8472(0x09), "Unknown (0x09)");
    }

    #[test]
    fn connector_and_compliance_codes() {
        assert_eq!(connector_name(0x07), "LC (Lucent Connector)");
        assert_eq!(connector_name(0x22), "RJ45 (Registered Jack)");
        assert_eq!(connector_name(0x91), "Vendor specific (0x91)");
        assert_eq!(ext_compliance_name(0x02), "100GBASE-SR4 or 25GBASE-SR");
        assert_eq!(ext_compliance_name(0x16), "10GBASE-T with SFI electrical interface");
    }

    #[test]
    fn sff8472_encoding_column() {
        // SFF-8024 Table 4-2, SFF-8472 column: 04h Manchester, 06h 64B/66B.
        assert_eq!(encoding_name_sff8472(0x04), "Manchester");
        assert_eq!(encoding_name_sff8472(0x06), "64B/66B");
        assert_eq!(encoding_name_sff8472(0x08), "PAM4");
    }

    #[test]
    fn tables_are_sorted_without_duplicates() {
        for table in [IDENTIFIERS, CONNECTORS, ENCODINGS_SFF8472, EXT_COMPLIANCE] {
            assert!(table.windows(2).all(|w| w[0].0 < w[1].0));
        }
    }
}
