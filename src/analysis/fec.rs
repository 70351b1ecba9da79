//! Which FEC a link runs and the pre-FEC BER its PMD clause requires (physics.md).
//!
//! The limit used is the BER the IEEE 802.3 PMD clause specifies at the FEC input
//! for the frame loss ratio the standard promises; past it the uncorrectable rate
//! climbs steeply (the "FEC cliff"). Margin is measured to that limit, not to the
//! cliff itself, because the limit is what the optics are specified to meet.

use crate::module::report::Modulation;
use serde::Serialize;
use std::borrow::Cow;

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
    Off,
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

pub struct FecLimit {
    pub kind: FecKind,
    /// Pre-FEC BER the PMD clause requires; `None`: no single clause limit, BER without margin.
    pub ber_limit: Option<f64>,
    pub source: LimitSource,
}

/// Where a [`FecLimit`] comes from: the JSON `fec_limit_source` is its [`LimitSource::citation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitSource {
    /// RS(544,514) PMDs: IEEE 802.3 Clauses 138, 124 and 140.
    Rs544Pmds,
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
}

impl LimitSource {
    /// The citation, as JSON and the report write it (a contract: never reword one).
    pub fn citation(self) -> &'static str {
        match self {
            LimitSource::Rs544Pmds => {
                "IEEE 802.3 Clause 138 (200GBASE-SR4, 400GBASE-SR8), Clause 124 (400GBASE-DR4), Clause 140 (100GBASE-DR)"
            }
            LimitSource::Rs528Pmds => "IEEE 802.3 Clause 95 (100GBASE-SR4), Clause 112 (25GBASE-SR)",
            LimitSource::BaseR => "IEEE 802.3 Clause 74 (BASE-R FEC): no single pre-FEC limit",
            LimitSource::Llrs => "Ethernet Technology Consortium LL-RS: no single pre-FEC limit",
            LimitSource::NoFec => "IEEE 802.3 Clause 52 (10GBASE-SR) and similar: BER 1e-12 without FEC",
            LimitSource::Unknown => "FEC mode unknown",
        }
    }
}

impl Serialize for LimitSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.citation())
    }
}

pub const FEC_LIMITS: &[FecLimit] = &[
    FecLimit { kind: FecKind::Rs544, ber_limit: Some(2.4e-4), source: LimitSource::Rs544Pmds },
    FecLimit { kind: FecKind::Rs528, ber_limit: Some(5e-5), source: LimitSource::Rs528Pmds },
    // FireCode and LL-RS PMDs do not share one pre-FEC figure: report BER, no margin.
    FecLimit { kind: FecKind::BaseR, ber_limit: None, source: LimitSource::BaseR },
    FecLimit { kind: FecKind::Llrs, ber_limit: None, source: LimitSource::Llrs },
    // Without FEC the PMD itself must deliver 1e-12 (e.g. Clause 52, 10GBASE-SR).
    FecLimit { kind: FecKind::Off, ber_limit: Some(1e-12), source: LimitSource::NoFec },
    FecLimit { kind: FecKind::Unknown, ber_limit: None, source: LimitSource::Unknown },
];

pub fn limit(kind: FecKind) -> &'static FecLimit {
    // Every FecKind has a row (checked by a test), so the fallback is the Unknown row.
    FEC_LIMITS.iter().find(|l| l.kind == kind).unwrap_or(&FEC_LIMITS[FEC_LIMITS.len() - 1])
}

/// What the host's RS(544,514) counters measure on a 200G-per-lane optical link: IEEE
/// 802.3dj gives its 200 Gb/s per lane IM-DD optical PMDs (DR, FR, LR) a concatenated inner
/// FEC (a Hamming (128,120) code, Clause 177) terminated in the module, so the host decoder
/// sees only what the inner decoder left. `None` for other links (copper 200G lanes, CR and
/// KR, run the host FEC end to end).
pub fn inner_fec_note(fec: FecKind, lane_rate_gbps: f64, link_mode: Option<&str>) -> Option<&'static str> {
    let pmd = link_mode?.split_once("base")?.1;
    let optical = matches!(pmd.as_bytes().first(), Some(b'D' | b'F' | b'L' | b'S' | b'E'));
    (fec == FecKind::Rs544 && lane_rate_gbps >= 200.0 && optical).then_some(
        "200G lanes on optics (IEEE 802.3dj): the module's inner FEC (Hamming (128,120), Clause 177) corrects first, so the host's RS(544,514) counters, the lanes' pre_fec_ber and margin_db are what it left: the host FEC's margin to 2.4e-4, not the optical lane's; the optical lane's own BER is the module's media-side VDM figure (module_pre_fec_ber) where it reports one",
    )
}

/// The FEC in use from the kernel's active-FEC name and the lanes' modulation.
pub fn fec_kind(fec_active: Option<&str>, modulation: Option<Modulation>, notes: &mut Vec<String>) -> FecKind {
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
    fn every_kind_has_one_row() {
        for k in [FecKind::Rs544, FecKind::Rs528, FecKind::BaseR, FecKind::Llrs, FecKind::Off, FecKind::Unknown] {
            assert_eq!(FEC_LIMITS.iter().filter(|l| l.kind == k).count(), 1, "{k:?}");
        }
        assert_eq!(limit(FecKind::Rs544).ber_limit, Some(2.4e-4));
        assert_eq!(limit(FecKind::Rs528).ber_limit, Some(5e-5));
        assert_eq!(limit(FecKind::Off).ber_limit, Some(1e-12));
    }

    #[test]
    fn the_inner_fec_note_is_for_200g_optical_lanes_only() {
        let note = |fec, gbps, mode| inner_fec_note(fec, gbps, Some(mode)).is_some();
        assert!(note(FecKind::Rs544, 212.5, "1600000baseDR8/Full"));
        assert!(note(FecKind::Rs544, 212.5, "800000baseFR4/Full"));
        assert!(!note(FecKind::Rs544, 212.5, "800000baseCR4/Full"));
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
