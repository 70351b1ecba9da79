//! Which FEC a link runs and the pre-FEC BER its PMD clause requires (physics.md).
//!
//! The limit used is the BER the IEEE 802.3 PMD clause specifies at the FEC input
//! for the frame loss ratio the standard promises; past it the uncorrectable rate
//! climbs steeply (the "FEC cliff"). Margin is measured to that limit, not to the
//! cliff itself, because the limit is what the optics are specified to meet.

use crate::module::report::Modulation;
use serde::Serialize;
use std::borrow::Cow;

/// The FEC a link runs, as the kernel reports it (`ethtool --show-fec`) or the lane rate implies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FecKind {
    /// RS(544,514) "KP4": PAM4 lanes.
    Rs544,
    /// RS(528,514) "KR4": 25G NRZ lanes.
    Rs528,
    /// BASE-R FireCode (Clause 74).
    BaseR,
    /// Low-latency RS(272,257+1).
    Llrs,
    /// No FEC.
    Off,
    /// The FEC mode could not be told.
    Unknown,
}

impl FecKind {
    /// The name used in JSON and messages.
    pub fn name(&self) -> &'static str {
        match self {
            FecKind::Rs544 => "RS(544,514)",
            FecKind::Rs528 => "RS(528,514)",
            FecKind::BaseR => "BASE-R",
            FecKind::Llrs => "LL-RS",
            FecKind::Off => "none",
            FecKind::Unknown => "unknown",
        }
    }
}

impl Serialize for FecKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A row of the pre-FEC BER limits: the limit an FEC kind is held to on lanes from a bit rate up, and its source.
pub struct FecLimit {
    pub(crate) kind: FecKind,
    /// The row holds for lanes of at least this bit rate (Gb/s); rows of one kind are tried
    /// fastest first.
    pub(crate) lanes_from_gbps: f64,
    /// Pre-FEC BER the PMD clause requires; `None`: no single clause limit, BER without margin.
    pub(crate) ber_limit: Option<f64>,
    pub(crate) source: LimitSource,
}

/// Where a [`FecLimit`] comes from: the JSON `fec_limit_source` is its [`LimitSource::citation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LimitSource {
    /// RS(544,514) PMDs: IEEE 802.3 Clauses 138, 124 and 140.
    Rs544Pmds,
    /// 200G lanes (IEEE 802.3dj): the same RS(544,514) end to end, its input threshold.
    /// The 2.4e-4 is carried over from IEEE 802.3 138.1.1 as amended by 802.3cm (BER 2.4e-4
    /// at the RS(544,514) input ↔ FLR 1.7e-12, 6.2e-11 for the whole PHY), not read from
    /// 802.3dj: no 802.3dj draft, baseline or reflector text stating the host RS(544,514)
    /// BER or FLR for 200G lanes could be found to cite; docs/fec-histogram.md ("200G
    /// lanes") lists what was searched and found.
    Rs544Lanes200G,
    /// RS(528,514) PMDs: IEEE 802.3 Clauses 95 and 112.
    Rs528Pmds,
    /// IEEE 802.3 Clause 74 names no single pre-FEC figure.
    BaseR,
    /// The Ethernet Technology Consortium's LL-RS names no single pre-FEC figure.
    Llrs,
    /// No FEC: the PMD itself must deliver 1e-12 (e.g. Clause 52, 10GBASE-SR).
    NoFec,
    /// The FEC in use is unknown.
    Unknown,
    /// An InfiniBand link on RS(544,514) (HDR and NDR, PAM4): the code the Ethernet rows
    /// cite, named for InfiniBand ([`LimitSource::on_infiniband`]).
    IbRs544,
    /// An InfiniBand link on RS(528,514) (EDR with its FEC on).
    IbRs528,
    /// An InfiniBand link without FEC (FDR and earlier, EDR with its FEC off).
    IbNoFec,
    /// An InfiniBand link on Firecode or LL RS-FEC (271,257): no published pre-FEC figure.
    IbNoLimit,
}

impl LimitSource {
    /// The citation, as JSON and the report write it (a contract: never reword one).
    pub(crate) fn citation(self) -> &'static str {
        match self {
            LimitSource::Rs544Pmds => {
                "IEEE 802.3 Clause 138 (200GBASE-SR4, 400GBASE-SR8), Clause 124 (400GBASE-DR4), Clause 140 (100GBASE-DR)"
            }
            LimitSource::Rs544Lanes200G => {
                "IEEE 802.3dj 200G lanes: RS(544,514) end to end (Clause 179 CR, Clause 180 DR; Clauses 181 and 183 behind the module's Clause 177 inner FEC), the RS(544,514) input limit of IEEE 802.3 138.1.1 as amended by 802.3cm"
            }
            LimitSource::Rs528Pmds => "IEEE 802.3 Clause 95 (100GBASE-SR4), Clause 112 (25GBASE-SR)",
            LimitSource::BaseR => "IEEE 802.3 Clause 74 (BASE-R FEC): no single pre-FEC limit",
            LimitSource::Llrs => "Ethernet Technology Consortium LL-RS: no single pre-FEC limit",
            LimitSource::NoFec => "IEEE 802.3 Clause 52 (10GBASE-SR) and similar: BER 1e-12 without FEC",
            LimitSource::Unknown => "FEC mode unknown",
            // The IBTA's physical specification (Vol 2) is not public: the code is the one
            // NVIDIA's mlxlink names on the port, the BER InfiniBand requires is NVIDIA's
            // statement of it (DGX SuperPOD cabling design guide, "Bit Error Rate"), and the
            // input limit is the code's own, as 802.3 derives it for the same code.
            LimitSource::IbRs544 => {
                "InfiniBand HDR/NDR: RS(544,514) on the link (mlxlink \"RS-FEC - (544,514)\"), the same code's decoder input limit (as IEEE 802.3 138.1.1 derives it for RS(544,514)); InfiniBand requires a link BER below 1e-12 (NVIDIA DGX SuperPOD cabling design guide)"
            }
            LimitSource::IbRs528 => {
                "InfiniBand EDR: RS(528,514) on the link (mlxlink \"RS-FEC - (528,514)\"), the same code's decoder input limit (as IEEE 802.3 Clause 91 derives it for RS(528,514)); InfiniBand requires a link BER below 1e-12 (NVIDIA DGX SuperPOD cabling design guide)"
            }
            LimitSource::IbNoFec => {
                "InfiniBand without FEC: a link BER below 1e-12, the InfiniBand specification's requirement (NVIDIA DGX SuperPOD cabling design guide)"
            }
            LimitSource::IbNoLimit => "InfiniBand Firecode or LL RS-FEC (271,257) (mlxlink's names): no published pre-FEC limit",
        }
    }

    /// This limit's source on an InfiniBand link: the same code and figure, cited for
    /// InfiniBand rather than an Ethernet PMD clause.
    pub(crate) fn on_infiniband(self) -> LimitSource {
        match self {
            LimitSource::Rs544Pmds | LimitSource::Rs544Lanes200G => LimitSource::IbRs544,
            LimitSource::Rs528Pmds => LimitSource::IbRs528,
            LimitSource::NoFec => LimitSource::IbNoFec,
            LimitSource::BaseR | LimitSource::Llrs => LimitSource::IbNoLimit,
            other => other,
        }
    }
}

impl Serialize for LimitSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.citation())
    }
}

pub(crate) const FEC_LIMITS: &[FecLimit] = &[
    // IEEE 802.3dj keeps RS(544,514) from the host's PCS to the far host on 200G lanes
    // (212.5 Gb/s = 200 Gb/s x 257/256 x 544/514, lanes.rs): the code and so the BER its
    // decoder takes at its input for the 1.7e-12 FLR are those of 138.1.1. On Clause 181 and
    // 183 PMDs an inner code in the module corrects first: the host's input is its output.
    FecLimit { kind: FecKind::Rs544, lanes_from_gbps: 200.0, ber_limit: Some(2.4e-4), source: LimitSource::Rs544Lanes200G },
    FecLimit { kind: FecKind::Rs544, lanes_from_gbps: 0.0, ber_limit: Some(2.4e-4), source: LimitSource::Rs544Pmds },
    FecLimit { kind: FecKind::Rs528, lanes_from_gbps: 0.0, ber_limit: Some(5e-5), source: LimitSource::Rs528Pmds },
    // FireCode and LL-RS PMDs do not share one pre-FEC figure: report BER, no margin.
    FecLimit { kind: FecKind::BaseR, lanes_from_gbps: 0.0, ber_limit: None, source: LimitSource::BaseR },
    FecLimit { kind: FecKind::Llrs, lanes_from_gbps: 0.0, ber_limit: None, source: LimitSource::Llrs },
    // Without FEC the PMD itself must deliver 1e-12 (e.g. Clause 52, 10GBASE-SR).
    FecLimit { kind: FecKind::Off, lanes_from_gbps: 0.0, ber_limit: Some(1e-12), source: LimitSource::NoFec },
    FecLimit { kind: FecKind::Unknown, lanes_from_gbps: 0.0, ber_limit: None, source: LimitSource::Unknown },
];

/// The limit of `kind` on lanes of `lane_rate_gbps` (unknown: the slowest lanes' row).
pub fn limit(kind: FecKind, lane_rate_gbps: Option<f64>) -> &'static FecLimit {
    let gbps = lane_rate_gbps.unwrap_or(0.0);
    // Every FecKind has a row from 0 Gb/s (checked by a test), so the fallback is the Unknown row.
    FEC_LIMITS.iter().find(|l| l.kind == kind && gbps >= l.lanes_from_gbps).unwrap_or(&FEC_LIMITS[FEC_LIMITS.len() - 1])
}

/// What the host's RS(544,514) counters measure on a 200G-per-lane optical link whose PMD
/// carries IEEE 802.3dj's concatenated inner FEC (a Hamming (128,120) code, Clause 177)
/// terminated in the module: the host decoder sees only what the inner decoder left.
///
/// Which PMDs carry it shows in their signalling rate (SFF-8024 Rev 4.13 Table 4-7, as
/// SONiC's 200G SerDes / 1.6T design note tabulates it): the 2 km "-2" DR PMDs (Clause
/// 181) and 800GBASE-FR4 / LR4 (Clause 183) signal at 113.4375 GBd, the inner code's
/// overhead over the host's 106.25 GBd; the 500 m DR PMDs (Clause 180: 200GBASE-DR1 to
/// 1.6TBASE-DR8) and 800GBASE-FR4-500 signal at 106.25 GBd and run the host FEC end to end,
/// as copper (CR, KR) does. The kernel names the "-2" PMDs with a `_2` suffix
/// (`1600000baseDR8_2`). `None` for every other link.
pub(crate) fn inner_fec_note(fec: FecKind, lane_rate_gbps: f64, link_mode: Option<&str>) -> Option<&'static str> {
    let pmd = link_mode?.split_once("base")?.1.split('/').next()?;
    let inner = pmd.ends_with("_2") || matches!(pmd.as_bytes().first(), Some(b'F' | b'L'));
    (fec == FecKind::Rs544 && lane_rate_gbps >= 200.0 && inner).then_some(
        "200G lanes through an inner FEC (IEEE 802.3dj Clause 181/183 PMD): the module's inner FEC (Hamming (128,120), Clause 177) corrects first, so the host's RS(544,514) counters, the lanes' pre_fec_ber and margin_db are what it left: the host FEC's margin to 2.4e-4, not the optical lane's; the optical lane's own BER is the module's media-side VDM figure (module_pre_fec_ber) where it reports one",
    )
}

/// The FEC in use from the kernel's active-FEC name and the lanes' modulation.
pub(crate) fn fec_kind(fec_active: Option<&str>, modulation: Option<Modulation>, notes: &mut Vec<String>) -> FecKind {
    // A known name is told without case, not copied: a CSV export asks once per row.
    let known = |s: &str| ["RS", "BASER", "LLRS", "NONE", "OFF"].into_iter().find(|k| s.eq_ignore_ascii_case(k));
    let name = fec_active.map(str::trim).map(|s| known(s).map_or_else(|| Cow::Owned(s.to_ascii_uppercase()), Cow::Borrowed));
    match (name.as_deref(), modulation) {
        (Some("RS"), Some(Modulation::Pam4)) => FecKind::Rs544,
        (Some("RS"), Some(Modulation::Nrz)) => FecKind::Rs528,
        (Some("RS"), None) => {
            notes.push("RS FEC on lanes of unknown rate: RS(528,514) or RS(544,514) cannot be told apart".into());
            FecKind::Unknown
        }
        (Some("BASER"), _) => FecKind::BaseR,
        (Some("LLRS"), _) => FecKind::Llrs,
        (Some("NONE" | "OFF"), _) => FecKind::Off,
        (None, Some(Modulation::Pam4)) => {
            // Every IEEE PAM4 Ethernet PMD mandates RS(544,514).
            notes.push("active FEC not reported; PAM4 lanes imply RS(544,514)".into());
            FecKind::Rs544
        }
        (other, _) => {
            notes.push(match other {
                Some(name) => format!("active FEC {name} not recognised"),
                None => "active FEC not reported".into(),
            });
            FecKind::Unknown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_has_one_row_for_any_lane() {
        for k in [FecKind::Rs544, FecKind::Rs528, FecKind::BaseR, FecKind::Llrs, FecKind::Off, FecKind::Unknown] {
            assert_eq!(FEC_LIMITS.iter().filter(|l| l.kind == k && l.lanes_from_gbps == 0.0).count(), 1, "{k:?}");
        }
        // Rows of one kind, fastest lanes first: a slower row never hides a faster one.
        for (i, a) in FEC_LIMITS.iter().enumerate() {
            assert!(FEC_LIMITS[i + 1..].iter().all(|b| b.kind != a.kind || b.lanes_from_gbps < a.lanes_from_gbps), "{:?}", a.kind);
        }
        assert_eq!(limit(FecKind::Rs544, None).ber_limit, Some(2.4e-4));
        assert_eq!(limit(FecKind::Rs528, Some(25.78125)).ber_limit, Some(5e-5));
        assert_eq!(limit(FecKind::Off, Some(10.3125)).ber_limit, Some(1e-12));
    }

    #[test]
    fn lanes_of_200g_cite_802_3dj() {
        // 100G lanes (106.25 Gb/s): Clauses 138/124/140; 200G lanes (212.5 Gb/s): 802.3dj,
        // the same 2.4e-4 at the same code's input.
        assert_eq!(limit(FecKind::Rs544, Some(106.25)).source, LimitSource::Rs544Pmds);
        assert_eq!(limit(FecKind::Rs544, Some(53.125)).source, LimitSource::Rs544Pmds);
        let l = limit(FecKind::Rs544, Some(212.5));
        assert_eq!((l.source, l.ber_limit), (LimitSource::Rs544Lanes200G, Some(2.4e-4)));
        assert!(l.source.citation().starts_with("IEEE 802.3dj"));
    }

    #[test]
    fn infiniband_links_cite_infiniband_not_an_ethernet_clause() {
        for kind in [FecKind::Rs544, FecKind::Rs528, FecKind::Off, FecKind::BaseR, FecKind::Llrs] {
            for gbps in [Some(26.5625), Some(53.125), Some(106.25), Some(212.5), None] {
                let l = limit(kind, gbps);
                let ib = l.source.on_infiniband();
                assert!(ib.citation().starts_with("InfiniBand"), "{kind:?} {gbps:?}: {}", ib.citation());
                assert!(!ib.citation().contains("Clause 138") && !ib.citation().contains("Clause 52"), "{}", ib.citation());
            }
        }
        // The figure is the code's: RS(544,514) keeps 2.4e-4, no FEC 1e-12.
        assert_eq!(limit(FecKind::Rs544, Some(106.25)).source.on_infiniband(), LimitSource::IbRs544);
        assert_eq!(limit(FecKind::Off, None).source.on_infiniband(), LimitSource::IbNoFec);
        assert_eq!(LimitSource::Unknown.on_infiniband(), LimitSource::Unknown);
    }

    #[test]
    fn the_inner_fec_note_is_for_pmds_with_an_inner_fec_only() {
        let note = |fec, gbps, mode| inner_fec_note(fec, gbps, Some(mode)).is_some();
        // Clause 181 ("-2", 113.4375 GBd) and Clause 183 FR4 / LR4: inner FEC in the module.
        assert!(note(FecKind::Rs544, 212.5, "1600000baseDR8_2/Full"));
        assert!(note(FecKind::Rs544, 212.5, "800000baseDR4_2/Full"));
        assert!(note(FecKind::Rs544, 212.5, "200000baseDR_2/Full"));
        assert!(note(FecKind::Rs544, 212.5, "800000baseFR4/Full"));
        // Clause 180 (500 m DR, 106.25 GBd) and copper: the host FEC end to end.
        assert!(!note(FecKind::Rs544, 212.5, "1600000baseDR8/Full"));
        assert!(!note(FecKind::Rs544, 212.5, "800000baseDR4/Full"));
        assert!(!note(FecKind::Rs544, 212.5, "800000baseCR4/Full"));
        // 100G lanes: 800000baseDR8_2 is 802.3df's 8 x 100G 2 km PMD, no inner code.
        assert!(!note(FecKind::Rs544, 106.25, "800000baseDR8_2/Full"));
        assert!(!note(FecKind::Rs544, 106.25, "400000baseDR4/Full"));
        assert_eq!(inner_fec_note(FecKind::Rs544, 212.5, None), None);
    }

    #[test]
    fn kinds_from_kernel_names() {
        let mut n = Vec::new();
        assert_eq!(fec_kind(Some("RS"), Some(Modulation::Pam4), &mut n), FecKind::Rs544);
        assert_eq!(fec_kind(Some("RS"), Some(Modulation::Nrz), &mut n), FecKind::Rs528);
        assert_eq!(fec_kind(Some("BASER"), Some(Modulation::Nrz), &mut n), FecKind::BaseR);
        assert_eq!(fec_kind(Some("None"), Some(Modulation::Nrz), &mut n), FecKind::Off);
        assert_eq!(fec_kind(Some("LLRS"), None, &mut n), FecKind::Llrs);
        assert!(n.is_empty());
        assert_eq!(fec_kind(None, Some(Modulation::Pam4), &mut n), FecKind::Rs544);
        assert_eq!(fec_kind(None, Some(Modulation::Nrz), &mut n), FecKind::Unknown);
        assert_eq!(n.len(), 2);
    }
}
