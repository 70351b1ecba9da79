//! Both ends of one link: per lane, the light lost between the far end's transmitter and
//! this end's receiver (`link_loss_db` = far-end Tx dBm - near-end Rx dBm), and in the other
//! direction between this end's transmitter and the far end's receiver (`far_link_loss_db` =
//! near-end Tx dBm - far-end Rx dBm), against the channel insertion loss the PMD allows. A
//! lane over that budget has lost its light in the fiber and connectors of that direction,
//! whatever either module says about itself; over it in both directions, in what both
//! directions share (a connector or patch cord carrying both fibers of the lane).
//!
//! The far end's lanes arrive already numbered as this end's (`--lane-map` is applied by
//! the caller when the cable crosses them), so lane n here faces lane n there.

use super::{InterfaceWindow, LaneAnalysis};
use crate::module::ModuleReport;

/// An optical PMD and the maximum channel insertion loss of its link power budget: the
/// loss of fiber plus connectors the standard lets a compliant link have. A multimode PMD
/// allows a different loss on each fiber type it lists; it is given the largest of them
/// (40GBASE-SR4: OM3's 1.9 dB, not OM4's 1.5 dB over its longer reach), so a lane over it
/// is over on any fiber.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pmd {
    /// The PMD's name as IEEE 802.3 spells it (`100GBASE-SR4`).
    pub(crate) name: &'static str,
    /// Where the figure comes from: the clause whose link power budget table gives it.
    pub(crate) source: &'static str,
    pub(crate) channel_insertion_loss_db: f64,
}

const fn pmd(name: &'static str, source: &'static str, channel_insertion_loss_db: f64) -> Pmd {
    Pmd { name, source, channel_insertion_loss_db }
}

/// Channel insertion loss (max) from each PMD clause's link power budget table (IEEE Std
/// 802.3-2022; 800GBASE-DR8 from IEEE Std 802.3df-2024, which adds it to Clause 124). Each
/// figure was checked against a public transcription of the table (docs/import.md, "Both
/// ends of a link", lists which): the cabling characteristics the TIA Fiber Optics
/// Technology Consortium publishes per IEEE 802.3 application quote the same maxima.
pub(crate) const PMDS: &[Pmd] = &[
    pmd("40GBASE-SR4", "IEEE 802.3 Clause 86 link power budget (OM3 100 m: 1.9 dB; OM4 150 m: 1.5 dB)", 1.9),
    pmd("40GBASE-LR4", "IEEE 802.3 Clause 87 link power budget (SMF 10 km)", 6.7),
    pmd("100GBASE-SR4", "IEEE 802.3 Clause 95 link power budget (OM3 70 m: 1.8 dB; OM4 100 m: 1.9 dB)", 1.9),
    pmd("100GBASE-LR4", "IEEE 802.3 Clause 88 link power budget (SMF 10 km)", 6.3),
    pmd("100GBASE-DR", "IEEE 802.3 Clause 140 link power budget (SMF 500 m)", 3.0),
    pmd("100GBASE-FR1", "IEEE 802.3 Clause 140 link power budget (SMF 2 km)", 4.0),
    pmd("100GBASE-LR1", "IEEE 802.3 Clause 140 link power budget (SMF 10 km)", 6.3),
    pmd("200GBASE-SR4", "IEEE 802.3 Clause 138 link power budget (OM3 70 m: 1.8 dB; OM4 100 m: 1.9 dB)", 1.9),
    pmd("200GBASE-DR4", "IEEE 802.3 Clause 121 link power budget (SMF 500 m)", 3.0),
    pmd("200GBASE-FR4", "IEEE 802.3 Clause 122 link power budget (SMF 2 km)", 4.0),
    pmd("200GBASE-LR4", "IEEE 802.3 Clause 122 link power budget (SMF 10 km)", 6.3),
    pmd("400GBASE-SR8", "IEEE 802.3 Clause 138 link power budget (OM3 70 m: 1.8 dB; OM4 100 m: 1.9 dB)", 1.9),
    pmd("400GBASE-DR4", "IEEE 802.3 Clause 124 link power budget (SMF 500 m)", 3.0),
    pmd("400GBASE-FR4", "IEEE 802.3 Clause 151 link power budget (SMF 2 km)", 4.0),
    pmd("400GBASE-FR8", "IEEE 802.3 Clause 122 link power budget (SMF 2 km)", 4.0),
    pmd("400GBASE-LR8", "IEEE 802.3 Clause 122 link power budget (SMF 10 km)", 6.3),
    pmd("800GBASE-DR8", "IEEE 802.3df Clause 124 link power budget (SMF 500 m)", 3.0),
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

/// A lane's PMD in the JSON: its name.
pub(crate) fn serialize_pmd_name<S: serde::Serializer>(pmd: &Option<&'static Pmd>, s: S) -> Result<S::Ok, S::Error> {
    match pmd {
        Some(p) => s.serialize_str(p.name),
        None => s.serialize_none(),
    }
}

pub(crate) fn pmd_by_name(name: &str) -> Option<&'static Pmd> {
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
pub(crate) fn pmd_of(w: &InterfaceWindow, peer: Option<&InterfaceWindow>) -> Option<&'static Pmd> {
    let module = |w: &InterfaceWindow| w.module.as_ref().and_then(pmd_of_module);
    module(w).or_else(|| peer.and_then(module)).or_else(|| w.link.link_mode.as_deref().and_then(pmd_of_link_mode))
}

/// The far end of one interface's link as a sink of rows takes it (`export --peer`).
pub struct FarEnd {
    /// The near-end interface; `None`: the first one the rows name.
    pub near: Option<String>,
    /// The far end's window, its lanes already numbered as the near lanes they face.
    pub far: InterfaceWindow,
    /// How the far end is named in a message (`--peer FILE:IFACE`).
    pub shown: String,
    /// Check the two ends are one link ([`not_one_link`]) at the near end's first window;
    /// off when a lane map pairs them by hand.
    pub check: bool,
}

impl FarEnd {
    /// When `w` is the near end: the PMD whose budget applies (`Some(None)`: none known).
    /// The near end's first window is checked to be one link with the far end.
    pub fn facing(&mut self, w: &InterfaceWindow) -> Result<Option<Option<&'static Pmd>>, NotOneLink> {
        let near = self.near.get_or_insert_with(|| w.interface.clone());
        if *near != w.interface {
            return Ok(None);
        }
        if self.check {
            if let Some(why) = not_one_link(w, &self.far, &self.shown) {
                return Err(why);
            }
            self.check = false;
        }
        Ok(Some(pmd_of(w, Some(&self.far))))
    }
}

/// Why two windows cannot be the two ends of one link; `far` is the far end as the user
/// named it (`--peer FILE:IFACE`), `near` the near interface.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NotOneLink {
    /// The two ends run different lane counts.
    #[error("{far} has {far_lanes} lanes and {near} has {near_lanes}: not the two ends of one link")]
    Lanes {
        /// The far end, as the user named it.
        far: String,
        /// Lanes the far end runs.
        far_lanes: u32,
        /// The near interface.
        near: String,
        /// Lanes the near end runs.
        near_lanes: u32,
    },
    /// The two ends run different link modes.
    #[error("{far} runs {far_mode} and {near} runs {near_mode}: not the two ends of one link")]
    LinkMode {
        /// The far end, as the user named it.
        far: String,
        /// The far end's link mode (`400000baseDR4/Full`).
        far_mode: String,
        /// The near interface.
        near: String,
        /// The near end's link mode.
        near_mode: String,
    },
    /// The same serial number at both ends: the far end's capture was not given.
    #[error("{far} is the same module (SN {sn}) as {near}: give the far end's capture")]
    SameModule {
        /// The far end, as the user named it.
        far: String,
        /// The module serial number both ends report.
        sn: String,
        /// The near interface.
        near: String,
    },
}

/// Why `far` (named `shown` in the message) cannot be the far end of `near`'s link, if it
/// cannot: another lane count or link mode, or the same module (its serial number), whose
/// tx powers would be compared against the wrong lanes.
pub fn not_one_link(near: &InterfaceWindow, far: &InterfaceWindow, shown: &str) -> Option<NotOneLink> {
    let lanes = |w: &InterfaceWindow| w.link.lanes.or(w.module.as_ref().map(|m| m.lanes.len() as u32).filter(|n| *n > 0));
    let names = || (shown.to_string(), near.interface.clone());
    if let (Some(near_lanes), Some(far_lanes)) = (lanes(near), lanes(far)) {
        if near_lanes != far_lanes {
            let (far, near) = names();
            return Some(NotOneLink::Lanes { far, far_lanes, near, near_lanes });
        }
    }
    if let (Some(near_mode), Some(far_mode)) = (&near.link.link_mode, &far.link.link_mode) {
        if near_mode != far_mode {
            let (far, near) = names();
            return Some(NotOneLink::LinkMode { far, far_mode: far_mode.clone(), near, near_mode: near_mode.clone() });
        }
    }
    let sn = |w: &InterfaceWindow| w.module.as_ref().and_then(|m| m.vendor_sn.clone());
    match (sn(near), sn(far)) {
        (Some(a), Some(b)) if a == b => {
            let (far, near) = names();
            Some(NotOneLink::SameModule { far, sn: a, near })
        }
        _ => None,
    }
}

/// The light lost on `lane` between the far end's transmitter and this end's receiver
/// reading `rx_power_dbm`: far-end Tx dBm - near-end Rx dBm, where both are known.
pub(crate) fn loss_db(far: &InterfaceWindow, lane: u8, rx_power_dbm: Option<f64>) -> Option<f64> {
    let far_tx = far.module.as_ref()?.lanes.iter().find(|l| l.lane == lane).and_then(|l| l.tx_power_dbm);
    far_tx.zip(rx_power_dbm).map(|(t, r)| t - r).filter(|d| d.is_finite())
}

/// The light lost on `lane` in the other direction, between this end's transmitter sending
/// `tx_power_dbm` and the far end's receiver on the lane facing it: near-end Tx dBm - far-end
/// Rx dBm, where both are known.
pub(crate) fn far_loss_db(far: &InterfaceWindow, lane: u8, tx_power_dbm: Option<f64>) -> Option<f64> {
    let far_rx = far.module.as_ref()?.lanes.iter().find(|l| l.lane == lane).and_then(|l| l.rx_power_dbm);
    tx_power_dbm.zip(far_rx).map(|(t, r)| t - r).filter(|d| d.is_finite())
}

/// Sets each lane's `link_loss_db` and `far_link_loss_db` (each where its two powers are
/// known), and the PMD and its budget, from the far end's window. Returns a note per lane
/// whose far-end receive direction alone is over the budget: this end's receiver sees
/// nothing wrong there, so no judgement of this end names the lane.
pub fn apply(w: &InterfaceWindow, peer: Option<&InterfaceWindow>, lanes: &mut [LaneAnalysis]) -> Vec<String> {
    let Some(far) = peer else { return Vec::new() };
    let pmd = pmd_of(w, Some(far));
    let mut notes = Vec::new();
    for la in lanes.iter_mut() {
        la.link_loss_db = loss_db(far, la.lane, la.rx_power_dbm);
        la.far_link_loss_db = far_loss_db(far, la.lane, la.tx_power_dbm);
        if la.link_loss_db.is_some() || la.far_link_loss_db.is_some() {
            la.link_loss_budget_db = pmd.map(|p| p.channel_insertion_loss_db);
            la.link_loss_pmd = pmd;
        }
        if far_over_budget(la) && !over_budget(la) {
            let (n, budget) = (la.lane, la.link_loss_budget_db.unwrap_or(f64::NAN));
            let loss = la.far_link_loss_db.unwrap_or(f64::NAN);
            notes.push(format!(
                "lane {n}: the far end receives {loss:.1} dB less than this end sends on lane {n}, over the {} budget of {budget:.1} dB by {:.1} dB{}: fiber/connector fault in the direction toward the far end: inspect and clean the fiber of lane {n} from this end's Tx to the far end's Rx",
                la.link_loss_pmd.map_or("PMD", |p| p.name),
                loss - budget,
                match la.link_loss_db {
                    Some(back) => format!(" (the way back loses {back:.1} dB, within it)"),
                    None => String::new(),
                }
            ));
        }
    }
    notes
}

/// The lane's loss toward this end is over its PMD's budget.
pub(crate) fn over_budget(la: &LaneAnalysis) -> bool {
    la.link_loss_db.zip(la.link_loss_budget_db).is_some_and(|(l, b)| l > b)
}

/// The lane's loss toward the far end is over its PMD's budget.
pub(crate) fn far_over_budget(la: &LaneAnalysis) -> bool {
    la.far_link_loss_db.zip(la.link_loss_budget_db).is_some_and(|(l, b)| l > b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pmds_are_found_by_their_exact_name_only() {
        assert_eq!(pmd_by_name("100GBASE-SR4").map(|p| p.channel_insertion_loss_db), Some(1.9));
        let mut m = ModuleReport::new(crate::module::Standard::Sff8636, Some(0x11));
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
