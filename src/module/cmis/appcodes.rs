//! SFF-8024 interface codes used in CMIS Application Descriptors: host electrical
//! (Table 4-5) and module media (Tables 4-6 MMF, 4-7 SMF, 4-8 passive copper, 4-9 active
//! cable, 4-10 BASE-T), with the per-lane signalling each implies.
//!
//! Revision: Rev 4.11 plus the codes Rev 4.12/4.13 add (IEEE 802.3df/dj 800G and 1.6T PMDs,
//! 200G-per-lane AUIs, LPO, OpenZR+/Open XR, PCIe, EEI). Cross-checked against SONiC
//! sonic_xcvr (codes/public/sff8024.py, whose tables stop at Rev 4.8a-era codes, and the
//! SONiC 1.6T design note's SMF table, IDs 115-128 with lane counts and signalling rates)
//! and against a second open implementation's Rev 4.13 tables. Where those two disagree
//! (host codes 0x1e-0x24: BASE-T here and in SONiC, 200GBASE-CR1 / LPO LEI codes in the
//! other) the older, SONiC-confirmed assignment is kept.
//!
//! Lane rates are the nominal per-lane bit rates of the IEEE 802.3 clause or annex the
//! code names (e.g. 400GAUI-4: 4 lanes x 106.25 Gb/s PAM4). Codes whose clause does not
//! fix a lane signal (copper/active-cable media codes, Fibre Channel, InfiniBand, OTN)
//! carry no rate; the application then takes it from the host side (see [`describe`]).

use super::super::report::{Application, Modulation};
use super::super::sff8024;
use std::borrow::Cow;

/// Signalling of one lane: format and nominal bit rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Signal {
    pub(crate) modulation: Modulation,
    pub(crate) lane_gbps: f64,
}

/// One row of an SFF-8024 interface code table.
pub(super) struct Code {
    pub(crate) code: u8,
    pub(crate) name: &'static str,
    pub(crate) signal: Option<Signal>,
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
    plain("8GFC (FC-PI-4)", 0x25),
    plain("10GFC (10GFC)", 0x26),
    plain("16GFC (FC-PI-5)", 0x27),
    plain("32GFC (FC-PI-6)", 0x28),
    plain("64GFC (FC-PI-7)", 0x29),
    plain("128GFC (FC-PI-6P)", 0x2a),
    plain("256GFC (FC-PI-7P)", 0x2b),
    plain("IB SDR (Arch.Spec.Vol.2)", 0x2c),
    plain("IB DDR (Arch.Spec.Vol.2)", 0x2d),
    plain("IB QDR (Arch.Spec.Vol.2)", 0x2e),
    plain("IB FDR (Arch.Spec.Vol.2)", 0x2f),
    plain("IB EDR (Arch.Spec.Vol.2)", 0x30),
    plain("IB HDR (Arch.Spec.Vol.2)", 0x31),
    plain("IB NDR", 0x32),
    plain("E.96 (CPRI Specification V7.0)", 0x33),
    plain("E.99 (CPRI Specification V7.0)", 0x34),
    plain("E.119 (CPRI Specification V7.0)", 0x35),
    plain("E.238 (CPRI Specification V7.0)", 0x36),
    plain("OTL3.4 (ITU-T G.709/Y.1331 G.Sup58)", 0x37),
    plain("OTL4.10 (ITU-T G.709/Y.1331 G.Sup58)", 0x38),
    plain("OTL4.4 (ITU-T G.709/Y.1331 G.Sup58)", 0x39),
    plain("OTLC.4 (ITU-T G.709.1/Y.1331 G.Sup58)", 0x3a),
    plain("FOIC1.4 (ITU-T G.709.1/Y.1331 G.Sup58)", 0x3b),
    plain("FOIC1.2 (ITU-T G.709.1/Y.1331 G.Sup58)", 0x3c),
    plain("FOIC2.8 (ITU-T G.709.1/Y.1331 G.Sup58)", 0x3d),
    plain("FOIC2.4 (ITU-T G.709.1/Y.1331 G.Sup58)", 0x3e),
    plain("FOIC4.16 (ITU-T G.709.1 G.Sup58)", 0x3f),
    plain("FOIC4.8 (ITU-T G.709.1 G.Sup58)", 0x40),
    nrz("CAUI-4 C2M (Annex 83E) without FEC", 0x41, 25.78125),
    nrz("CAUI-4 C2M (Annex 83E) with RS(528,514) FEC", 0x42, 25.78125),
    nrz("50GBASE-CR2 (Ethernet Technology Consortium) with RS(528,514) FEC", 0x43, 25.78125),
    nrz("50GBASE-CR2 (Ethernet Technology Consortium) with BASE-R FEC", 0x44, 25.78125),
    nrz("50GBASE-CR2 (Ethernet Technology Consortium) with no FEC", 0x45, 25.78125),
    pam4("100GBASE-CR1 (Clause 162)", 0x46, 106.25),
    pam4("200GBASE-CR2 (Clause 162)", 0x47, 106.25),
    pam4("400GBASE-CR4 (Clause 162)", 0x48, 106.25),
    pam4("800G-ETC-CR8 or 800GBASE-CR8", 0x49, 106.25),
    plain("128GFC (FC-PI-8)", 0x4a),
    pam4("100GAUI-1-S C2M (Annex 120G)", 0x4b, 106.25),
    pam4("100GAUI-1-L C2M (Annex 120G)", 0x4c, 106.25),
    pam4("200GAUI-2-S C2M (Annex 120G)", 0x4d, 106.25),
    pam4("200GAUI-2-L C2M (Annex 120G)", 0x4e, 106.25),
    pam4("400GAUI-4-S C2M (Annex 120G)", 0x4f, 106.25),
    pam4("400GAUI-4-L C2M (Annex 120G)", 0x50, 106.25),
    pam4("800GAUI-8 S C2M (Annex 120G)", 0x51, 106.25),
    pam4("800GAUI-8 L C2M (Annex 120G)", 0x52, 106.25),
    plain("OTL4.2 (ITU-T G.709)", 0x53),
    pam4("1.6TAUI-16-S C2M (Annex 120G)", 0x55, 106.25),
    pam4("1.6TAUI-16-L C2M (Annex 120G)", 0x56, 106.25),
    pam4("800GBASE-CR4 (Clause 179)", 0x57, 212.5),
    pam4("1.6TBASE-CR8 (Clause 179)", 0x58, 212.5),
    plain("PCIe 4.0", 0x70),
    plain("PCIe 5.0", 0x71),
    plain("PCIe 6.0", 0x72),
    plain("PCIe 7.0", 0x73),
    plain("CEI-112G-LINEAR-PAM4 (OIF)", 0x74),
    pam4("200GAUI-1 C2M (Annex 176E)", 0x80, 212.5),
    pam4("400GAUI-2 C2M (Annex 176E)", 0x81, 212.5),
    pam4("800GAUI-4 C2M (Annex 176E)", 0x82, 212.5),
    pam4("1.6TAUI-8 C2M (Annex 176E)", 0x83, 212.5),
    plain("EEI-100G-RTLR-1-S (OIF)", 0x90),
    plain("EEI-100G-RTLR-1-L (OIF)", 0x91),
    plain("EEI-200G-RTLR-2-S (OIF)", 0x92),
    plain("EEI-200G-RTLR-2-L (OIF)", 0x93),
    plain("EEI-400G-RTLR-4-S (OIF)", 0x94),
    plain("EEI-400G-RTLR-4-L (OIF)", 0x95),
    plain("EEI-800G-RTLR-8-S (OIF)", 0x96),
    plain("EEI-800G-RTLR-8-L (OIF)", 0x97),
    plain("IB XDR", 0xa0),
    plain("FOIC1.1-MFI (ITU-T G.709.5)", 0xb0),
    plain("FOIC4.4-MFI (ITU-T G.709.5)", 0xb1),
    plain("FOIC8.8-MFI (ITU-T G.709.5)", 0xb2),
    plain("ITU-T G.9804.3 (PON)", 0xb7),
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
    pam4("200GBASE-SR2 (Clause 167)", 0x1b, 106.25),
    plain("128GFC-MM (FC-PI-8)", 0x1c),
    pam4("100GBASE-VR1 (Clause 167)", 0x1d, 106.25),
    pam4("200GBASE-VR2 (Clause 167)", 0x1e, 106.25),
    pam4("400GBASE-VR4 (Clause 167)", 0x1f, 106.25),
    pam4("800GBASE-VR8 (Clause 167)", 0x20, 106.25),
    // Two wavelengths per fiber (BiDi MSAs): the code fixes no single lane signal here.
    plain("800G-VR4.2", 0x21),
    plain("800G-SR4.2", 0x22),
    plain("1.6T-VR8.2", 0x23),
    plain("1.6T-SR8.2", 0x24),
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
    plain("8GFC-SM (FC-PI-4)", 0x1f),
    plain("10GFC-SM (10GFC)", 0x20),
    plain("16GFC-SM (FC-PI-5)", 0x21),
    plain("32GFC-SM (FC-PI-6)", 0x22),
    plain("64GFC-SM (FC-PI-7)", 0x23),
    plain("128GFC-PSM4 (FC-PI-6P)", 0x24),
    plain("256GFC-PSM4 (FC-PI-7P)", 0x25),
    plain("128GFC-CWDM4 (FC-PI-6P)", 0x26),
    plain("256GFC-CWDM4 (FC-PI-7P)", 0x27),
    plain("4I1-9D1F (G.959.1)", 0x2c),
    plain("4L1-9C1F (G.959.1)", 0x2d),
    plain("4L1-9D1F (G.959.1)", 0x2e),
    plain("C4S1-9D1F (G.695)", 0x2f),
    plain("C4S1-4D1F (G.695)", 0x30),
    plain("4I1-4D1F (G.959.1)", 0x31),
    plain("8R1-4D1F (G.959.1)", 0x32),
    plain("8I1-4D1F (G.959.1)", 0x33),
    nrz("100G CWDM4-OCP", 0x34, 25.78125),
    plain("ZR400-OFEC-16QAM-HA", 0x35),
    plain("ZR400-OFEC-16QAM-HB", 0x36),
    plain("ZR400-OFEC-8QAM-HA", 0x37),
    plain("10G-SR (CPRI)", 0x38),
    plain("10G-LR (CPRI)", 0x39),
    plain("25G-SR (CPRI)", 0x3a),
    plain("25G-LR (CPRI)", 0x3b),
    plain("10G-LR-BiDi (CPRI)", 0x3c),
    plain("25G-LR-BiDi (CPRI)", 0x3d),
    // Coherent codes (400ZR, OpenZR+, FLEXO, 800ZR, 800GBASE-LR1/ER1): symbols, not bit
    // lanes, so no lane signal.
    plain("400ZR, DWDM, amplified", 0x3e),
    plain("400ZR, Single Wavelength, Unamplified", 0x3f),
    pam4("50GBASE-ER (Clause 139)", 0x40, 53.125),
    pam4("200GBASE-ER4 (Clause 122)", 0x41, 53.125),
    pam4("400GBASE-ER8 (Clause 122)", 0x42, 53.125),
    pam4("400GBASE-LR4-6 (Clause 151)", 0x43, 106.25),
    plain("100GBASE-ZR (Clause 153)", 0x44),
    plain("128GFC-SM (FC-PI-8)", 0x45),
    plain("ZR400-OFEC-16QAM", 0x46),
    plain("ZR300-OFEC-8QAM", 0x47),
    plain("ZR200-OFEC-QPSK", 0x48),
    plain("ZR100-OFEC-QPSK", 0x49),
    pam4("100G-LR1-20 MSA", 0x4a, 106.25),
    pam4("100G-ER1-30 MSA", 0x4b, 106.25),
    pam4("100G-ER1-40 MSA", 0x4c, 106.25),
    plain("400GBASE-ZR (Clause 155)", 0x4d),
    nrz("10GBASE-BR (Clause 158)", 0x4e, 10.3125),
    nrz("25GBASE-BR (Clause 159)", 0x4f, 25.78125),
    pam4("50GBASE-BR (Clause 160)", 0x50, 53.125),
    plain("FOIC1.4-DO (G.709.3/Y.1331.3)", 0x51),
    plain("FOIC2.8-DO (G.709.3/Y.1331.3)", 0x52),
    plain("FOIC4.8-DO (G.709.3/Y.1331.3)", 0x53),
    plain("FOIC2.4-DO (G.709.3/Y.1331.3)", 0x54),
    // IEEE 802.3df: 100G-per-lane SMF PMDs in Clause 124.
    pam4("400GBASE-DR4-2 (Clause 124)", 0x55, 106.25),
    pam4("800GBASE-DR8 (Clause 124)", 0x56, 106.25),
    pam4("800GBASE-DR8-2 (Clause 124)", 0x57, 106.25),
    plain("ZR400-OFEC-8QAM-HB", 0x58),
    plain("ZR300-OFEC-8QAM-HA", 0x59),
    plain("ZR300-OFEC-8QAM-HB", 0x5a),
    plain("ZR200-OFEC-QPSK-HA", 0x5b),
    plain("ZR200-OFEC-QPSK-HB", 0x5c),
    plain("ZR100-OFEC-QPSK-HA", 0x5d),
    plain("ZR100-OFEC-QPSK-HB", 0x5e),
    plain("FLEXO-4-DO-16QAM/FOIC4.8-DO", 0x5f),
    plain("FLEXO-3-DO-8QAM/FOIC3.6-DO", 0x60),
    plain("FLEXO-2-DO-QPSK/FOIC2.4-DO", 0x61),
    plain("FLEXO-2-DO-16QAM/FOIC2.8-DO", 0x62),
    plain("FLEXO-1-DO-QPSK/FOIC1.4-DO", 0x63),
    plain("FLEXO-4e-DO-QPSK/FOIC4e.4-DO", 0x64),
    plain("FLEXO-4-DO-QPSK/FOIC4.4-DO", 0x65),
    plain("FLEXO-8e-DO-16QAM/FOIC8e.8-DO", 0x66),
    plain("FLEXO-8-DO-16QAM/FOIC8.8-DO", 0x67),
    plain("FLEXO-8e-DPO-16QAM/FOIC8e.8-DPO", 0x68),
    plain("FLEXO-8-DPO-16QAM/FOIC8.8-DPO", 0x69),
    plain("FLEXO-6e-DPO-16QAM/FOIC6e.8-DPO", 0x6a),
    plain("FLEXO-6-DPO-16QAM/FOIC6.8-DPO", 0x6b),
    plain("800ZR-A, 150 GHz DWDM", 0x6c),
    plain("800ZR-B, 150 GHz DWDM", 0x6d),
    plain("800ZR-C, 150 GHz DWDM", 0x6e),
    pam4("400G-ER4-30 MSA", 0x6f, 106.25),
    plain("1I1-5D1F (G.959.1)", 0x70),
    plain("1R1-5D1F (G.959.1)", 0x71),
    plain("FOIC1.1-RS (G.709.1/Y.1331.58)", 0x72),
    // IEEE 802.3dj: 200G-per-lane PMDs. Signalling rates as SFF-8024 Rev 4.13 Table 4-7
    // gives them (tabulated in SONiC's design note doc/port-1.6t-support, "SMF Media
    // Interface"): the 500 m DR PMDs (Clause 180) and 800GBASE-FR4-500 at 106.25 GBd PAM4
    // (212.5 Gb/s, the host's RS(544,514) stream as it is); the 2 km "-2" DR PMDs (Clause
    // 181) and 800GBASE-FR4 / LR4 (Clause 183) at 113.4375 GBd (226.875 Gb/s), the rate of
    // that stream with the Clause 177 inner FEC the module adds.
    pam4("200GBASE-DR1 (Clause 180)", 0x73, 212.5),
    pam4("200GBASE-DR1-2 (Clause 181)", 0x74, 226.875),
    pam4("400GBASE-DR2 (Clause 180)", 0x75, 212.5),
    pam4("400GBASE-DR2-2 (Clause 181)", 0x76, 226.875),
    pam4("800GBASE-DR4 (Clause 180)", 0x77, 212.5),
    pam4("800GBASE-DR4-2 (Clause 181)", 0x78, 226.875),
    pam4("800GBASE-FR4-500 (Clause 183)", 0x79, 212.5),
    pam4("800GBASE-FR4 (Clause 183)", 0x7a, 226.875),
    pam4("800GBASE-LR4 (Clause 183)", 0x7b, 226.875),
    plain("800GBASE-LR1", 0x7c),
    plain("800GBASE-ER1-20", 0x7d),
    plain("800GBASE-ER1", 0x7e),
    pam4("1.6TBASE-DR8 (Clause 180)", 0x7f, 212.5),
    pam4("1.6TBASE-DR8-2 (Clause 181)", 0x80, 226.875),
    plain("XR400-16QAM (Open XR Optics)", 0x81),
    plain("XR300-8QAM (Open XR Optics)", 0x82),
    plain("XR200-QPSK (Open XR Optics)", 0x83),
    plain("XR200-16QAM (Open XR Optics)", 0x84),
    plain("XR100-QPSK (Open XR Optics)", 0x85),
    plain("XR100-16QAM (Open XR Optics)", 0x86),
    plain("XR400-WS-16QAM (Open XR Optics)", 0x87),
    plain("XR200-WS-QPSK (Open XR Optics)", 0x88),
    plain("XR200-WS-16QAM (Open XR Optics)", 0x89),
    plain("XR100-WS-QPSK (Open XR Optics)", 0x8a),
    plain("XR100-WS-16QAM (Open XR Optics)", 0x8b),
    plain("XR200-WS-BIDI-16QAM (Open XR Optics)", 0x8c),
    plain("XR100-WS-BIDI-QPSK (Open XR Optics)", 0x8d),
    plain("XR100-WS-BIDI-16QAM (Open XR Optics)", 0x8e),
    // Linear pluggable optics: 100G PAM4 per lane, no DSP in the module.
    pam4("100G-DR1-LPO", 0x8f, 106.25),
    pam4("200G-DR2-LPO", 0x90, 106.25),
    pam4("400G-DR4-LPO", 0x91, 106.25),
    pam4("800G-DR8-LPO", 0x92, 106.25),
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
pub(super) fn find(table: Option<&[Code]>, code: u8) -> (Cow<'static, str>, Option<Signal>) {
    match table.and_then(|t| t.iter().find(|c| c.code == code)) {
        Some(c) => (Cow::Borrowed(c.name), c.signal),
        // An empty table makes `lookup` produce the shared "Unknown (0xNN)" text.
        None => (Cow::Owned(sff8024::lookup(&[], code)), None),
    }
}

/// One raw Application Descriptor (CMIS 5.2 Table 8-23 / Table 8-52).
#[derive(Clone, Copy, Debug)]
pub(super) struct Descriptor {
    pub(crate) app_sel: u8,
    pub(crate) host_id: u8,
    pub(crate) media_id: u8,
    pub(crate) lane_counts: u8,
    pub(crate) host_lane_assignment: u8,
    pub(crate) media_lane_assignment: Option<u8>,
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

    #[test]
    fn current_800g_and_1_6t_media_codes_decode() {
        // SFF-8024 Table 4-7 (Rev 4.12+): 0x56 = 86 800GBASE-DR8, 8 x 106.25 Gb/s PAM4 (IEEE
        // 802.3df Clause 124: 53.125 GBd x 2 bits); 0x7a = 122 800GBASE-FR4, 4 lanes at
        // 113.4375 GBd x 2 = 226.875 Gb/s; 0x7f = 127 1.6TBASE-DR8, 106.25 GBd x 2 = 212.5.
        let (name, sig) = find(Some(MEDIA_SMF), 0x56);
        assert_eq!(name, "800GBASE-DR8 (Clause 124)");
        assert_eq!(sig, Some(Signal { modulation: Modulation::Pam4, lane_gbps: 106.25 }));
        assert_eq!(
            find(Some(MEDIA_SMF), 0x7a),
            ("800GBASE-FR4 (Clause 183)".into(), Some(Signal { modulation: Modulation::Pam4, lane_gbps: 226.875 }))
        );
        assert_eq!(find(Some(MEDIA_SMF), 0x7f).1.map(|s| s.lane_gbps), Some(212.5));
        // Every Clause 180 PMD at 2 x 106.25 GBd, every Clause 181 one at 2 x 113.4375 GBd.
        for code in 0x73..=0x80u8 {
            let (name, sig) = find(Some(MEDIA_SMF), code);
            let gbps = sig.map(|s| s.lane_gbps);
            if name.contains("(Clause 180)") || name.starts_with("800GBASE-FR4-500") {
                assert_eq!(gbps, Some(2.0 * 106.25), "{name}");
            } else if name.contains("(Clause 181)") || name.contains("(Clause 183)") {
                assert_eq!(gbps, Some(2.0 * 113.4375), "{name}");
            }
        }
        // Table 4-6 0x20 = 32 800GBASE-VR8 (Clause 167), 8 x 106.25 Gb/s.
        assert_eq!(find(Some(MEDIA_MMF), 0x20).0, "800GBASE-VR8 (Clause 167)");
        // Coherent codes name no lane signal: 0x6c 800ZR-A.
        assert_eq!(find(Some(MEDIA_SMF), 0x6c).1, None);
        assert!(!find(Some(HOST_ELECTRICAL), 0x74).0.starts_with("Unknown"));
    }
}
