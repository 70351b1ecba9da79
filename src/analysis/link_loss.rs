//! Both ends of one link: per lane, the light lost between the far end's transmitter and
//! this end's receiver (`link_loss_db` = far-end Tx dBm - near-end Rx dBm), against the
//! channel insertion loss the PMD allows. A lane over that budget has lost its light in the
//! fiber and connectors, whatever either module says about itself.
//!
//! The far end's lanes arrive already numbered as this end's (`--lane-map` is applied by
//! the caller when the cable crosses them), so lane n here faces lane n there.

use super::{InterfaceWindow, LaneAnalysis};
use crate::module::ModuleReport;

/// An optical PMD and the maximum channel insertion loss of its link power budget: the
/// loss of fiber plus connectors the standard lets a compliant link have. Multimode PMDs
/// are given their longest-reach fiber (the larger allowance), so a lane over it is over
/// on any fiber.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pmd {
    /// The PMD's name as IEEE 802.3 spells it (`100GBASE-SR4`).
    pub name: &'static str,
    /// Where the figure comes from: the clause whose link power budget table gives it.
    pub source: &'static str,
    pub channel_insertion_loss_db: f64,
}

const fn pmd(name: &'static str, source: &'static str, channel_insertion_loss_db: f64) -> Pmd {
    Pmd { name, source, channel_insertion_loss_db }
}

/// Channel insertion loss, max, from each PMD clause's link power budget table
/// (IEEE Std 802.3-2022; 800GBASE-DR8 from IEEE 802.3df-2024, which extends Clause 124).
pub const PMDS: &[Pmd] = &[
    pmd("40GBASE-SR4", "IEEE 802.3 Clause 86 link power budget (OM3, 100 m)", 1.9),
    pmd("40GBASE-LR4", "IEEE 802.3 Clause 87 link power budget", 6.7),
    pmd("100GBASE-SR4", "IEEE 802.3 Clause 95 link power budget (OM4, 100 m)", 1.9),
    pmd("100GBASE-LR4", "IEEE 802.3 Clause 88 link power budget", 6.3),
    pmd("100GBASE-DR", "IEEE 802.3 Clause 140 link power budget", 3.0),
    pmd("100GBASE-FR1", "IEEE 802.3 Clause 140 link power budget", 4.0),
    pmd("100GBASE-LR1", "IEEE 802.3 Clause 140 link power budget", 6.3),
    pmd("200GBASE-SR4", "IEEE 802.3 Clause 138 link power budget (OM4, 100 m)", 1.9),
    pmd("200GBASE-DR4", "IEEE 802.3 Clause 121 link power budget", 3.0),
    pmd("200GBASE-FR4", "IEEE 802.3 Clause 122 link power budget", 4.0),
    pmd("200GBASE-LR4", "IEEE 802.3 Clause 122 link power budget", 6.3),
    pmd("400GBASE-SR8", "IEEE 802.3 Clause 138 link power budget (OM4, 100 m)", 1.9),
    pmd("400GBASE-DR4", "IEEE 802.3 Clause 124 link power budget", 3.0),
    pmd("400GBASE-FR4", "IEEE 802.3 Clause 151 link power budget", 4.0),
    pmd("400GBASE-FR8", "IEEE 802.3 Clause 122 link power budget", 4.0),
    pmd("400GBASE-LR8", "IEEE 802.3 Clause 122 link power budget", 6.3),
    pmd("800GBASE-DR8", "IEEE 802.3df Clause 124 link power budget", 3.0),
];

/// Kernel link modes (`ethtool_link_mode_bit_indices`) that name exactly one PMD of
/// [`PMDS`]; modes shared by several (`100000baseLR4_ER4`) name none.
const LINK_MODES: &[(&str, &str)] = &[
    ("40000baseSR4", "40GBASE-SR4"),
    ("40000baseLR4", "40GBASE-LR4"),
    ("100000baseSR4", "100GBASE-SR4"),
    ("100000baseDR", "100GBASE-DR"),
    ("200000baseSR4", "200GBASE-SR4"),
    ("200000baseDR4", "200GBASE-DR4"),
    ("400000baseSR8", "400GBASE-SR8"),
    ("400000baseDR4", "400GBASE-DR4"),
    ("800000baseDR8", "800GBASE-DR8"),
];

pub fn pmd_by_name(name: &str) -> Option<&'static Pmd> {
    PMDS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// The PMD a module's media text names: one of its words is a PMD name exactly (the
/// decoder's SFF-8024 names: `100GBASE-SR4 or 25GBASE-SR`, `400GBASE-DR4 (Cl 124)`).
fn pmd_of_module(m: &ModuleReport) -> Option<&'static Pmd> {
    let active = m.active_application.as_ref().map(|a| a.media_interface.as_ref());
    [active, m.media_type.as_deref()]
        .into_iter()
        .flatten()
        .flat_map(|t| t.split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '/')))
        .find_map(pmd_by_name)
}

fn pmd_of_link_mode(mode: &str) -> Option<&'static Pmd> {
    let base = mode.split('/').next().unwrap_or(mode);
    LINK_MODES.iter().find(|(m, _)| *m == base).and_then(|(_, p)| pmd_by_name(p))
}

/// The PMD of the link: this end's module, else the far end's, else the link mode.
pub fn pmd_of(w: &InterfaceWindow, peer: Option<&InterfaceWindow>) -> Option<&'static Pmd> {
    let module = |w: &InterfaceWindow| w.module.as_ref().and_then(pmd_of_module);
    module(w).or_else(|| peer.and_then(module)).or_else(|| w.link.link_mode.as_deref().and_then(pmd_of_link_mode))
}

/// Sets each lane's `link_loss_db` (where the far end's Tx power and this end's Rx power
/// are both known), and the PMD and its budget, from the far end's window.
pub fn apply(w: &InterfaceWindow, peer: Option<&InterfaceWindow>, lanes: &mut [LaneAnalysis]) {
    let Some(far) = peer else { return };
    let far_lanes = far.module.as_ref().map_or(&[][..], |m| &m.lanes[..]);
    let pmd = pmd_of(w, Some(far));
    for la in lanes.iter_mut() {
        let far_tx = far_lanes.iter().find(|l| l.lane == la.lane).and_then(|l| l.tx_power_dbm);
        la.link_loss_db = far_tx.zip(la.rx_power_dbm).map(|(t, r)| t - r).filter(|d| d.is_finite());
        if la.link_loss_db.is_some() {
            la.link_loss_budget_db = pmd.map(|p| p.channel_insertion_loss_db);
            la.link_loss_pmd = pmd.map(|p| p.name);
        }
    }
}

/// The lane's loss is over its PMD's budget.
pub fn over_budget(la: &LaneAnalysis) -> bool {
    la.link_loss_db.zip(la.link_loss_budget_db).is_some_and(|(l, b)| l > b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmds_are_found_by_their_exact_name_only() {
        assert_eq!(pmd_by_name("100GBASE-SR4").map(|p| p.channel_insertion_loss_db), Some(1.9));
        let mut m = ModuleReport::new(crate::module::Standard::Sff8636, 0x11);
        m.media_type = Some("100GBASE-SR4 or 25GBASE-SR".into());
        assert_eq!(pmd_of_module(&m).map(|p| p.name), Some("100GBASE-SR4"));
        // 100GBASE-SR10 is not 100GBASE-SR1: no word matches, no PMD.
        m.media_type = Some("100GBASE-SR10".into());
        assert_eq!(pmd_of_module(&m), None);
        assert_eq!(pmd_of_link_mode("200000baseSR4/Full").map(|p| p.name), Some("200GBASE-SR4"));
        assert_eq!(pmd_of_link_mode("100000baseLR4_ER4/Full"), None);
    }

    #[test]
    fn budgets_are_positive_and_names_unique() {
        for (i, p) in PMDS.iter().enumerate() {
            assert!(p.channel_insertion_loss_db > 0.0, "{}", p.name);
            assert!(PMDS[i + 1..].iter().all(|q| q.name != p.name), "{}", p.name);
        }
    }
}
