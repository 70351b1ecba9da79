//! Node validation by speed tier (the node-acceptance runbook): every NIC at its expected
//! rate and lane count, the expected FEC, a PCIe link that carries the port's line rate
//! and trained at what the card can do, no flaps, FEC margin above a floor. A NIC short
//! of its profile gets `below_profile` (reject), each check with the expected and the
//! measured value side by side; a check that could not be measured is "not measured"
//! (never a pass), and the check's summary says how many passed.
//!
//! Built-ins `100g`, `200g`, `400g`, `800g` ask for what the hardware people buy can do:
//! a ConnectX-6 200G card is PCIe Gen4 x16 (231.9 Gb/s usable, pcie.rs), enough for 200
//! Gb/s. A specific generation and width ("Gen5 x16 as contracted") is the config
//! file's `node_profiles` `pcie` list, which adds or replaces profiles by name.

use super::verdict::{verdict, Reason, ReasonCode, Severity};
use super::InterfaceAnalysis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// One way a PCIe link can be enough: at least this generation at at least this width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct PcieMinimum {
    pub(crate) generation: u8,
    pub(crate) width: u32,
}

/// What a node's NIC must show. A field left out is not checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodeProfile {
    pub(crate) speed_mbps: Option<u32>,
    pub(crate) lanes: Option<u32>,
    /// FEC name as the analysis prints it: "RS(544,514)", "RS(528,514)", ...
    pub(crate) fec: Option<String>,
    /// Any one of these is enough (e.g. Gen6 x16 or Gen5 x32 for 800G).
    pub(crate) pcie: Vec<PcieMinimum>,
    /// The PCIe ceiling (the multi-host group's, where the port has several paths) must
    /// carry the line rate: the profile's `speed_mbps`, else the link's.
    pub(crate) pcie_carries_line_rate: Option<bool>,
    /// The PCIe link must be trained at the card's own maximum speed and width (a Gen5
    /// card running at Gen4 is degraded, whatever the ceiling).
    pub(crate) pcie_at_capability: Option<bool>,
    /// BER margin floor in dB of the tier, in place of the configuration's `margin_floor_db`.
    pub margin_floor_db: Option<f64>,
    pub(crate) max_link_down_events: Option<u64>,
    /// The MTU every port must run (9000 on a jumbo-frame fabric).
    pub(crate) mtu: Option<u32>,
    /// The host thresholds of this tier: each replaces the configuration's key of the same
    /// name for the host judgements (`rings_below_max`, `pause_storm`, `rx_discards`,
    /// `irqs_off_numa_node`, `channels_below_node_cpus`, `firmware_mismatch`), which stay
    /// investigate; the built-in tiers' values and where they come from are in [`builtin`].
    pub(crate) min_ring_fraction: Option<f64>,
    pub(crate) max_pause_frames_per_s: Option<f64>,
    pub(crate) max_rx_discards_per_s: Option<f64>,
    pub(crate) max_irqs_off_node: Option<u32>,
    pub(crate) min_channel_fraction: Option<f64>,
    pub(crate) firmware_consistent: Option<bool>,
}

/// Why `--profile NAME` names no profile.
#[derive(Debug, Error, PartialEq)]
pub enum ProfileError {
    /// No built-in or configured profile has the name.
    #[error("no profile named {name:?} (built in: 100g, 200g, 400g, 800g{user})")]
    Unknown {
        /// The name asked for (`--profile NAME`).
        name: String,
        /// The configured profiles' names, as the message lists them after the built-ins.
        user: String,
    },
}

/// The names of the built-in tiers ([`builtin`]), for help and shell completion.
pub const BUILTIN_PROFILES: [&str; 4] = ["100g", "200g", "400g", "800g"];

/// The built-in tiers. PCIe: a usable ceiling (pcie.rs) that carries the line rate, and
/// the link trained at the card's own capability; no generation or width of their own, so
/// every card that can carry the port passes: Gen3 x16 = 116 Gb/s for 100G; Gen4 x16 =
/// 231.9 Gb/s for 200G (ConnectX-6); Gen5 x16 = 463 Gb/s for 400G; Gen6 x16 = 869 Gb/s, or
/// two Gen5 x16 paths of a multi-host group, for 800G.
///
/// The host (docs/host.md), scaled with the line rate where the rate sets the need:
/// - `min_ring_fraction` 0.125 / 0.25 / 0.5 / 1.0: the receive ring holds as long a stall
///   at the tier's rate as mlx5's default 1024 descriptors do at 100 Gb/s (1024 x 9000 B x
///   8 / 100 Gb/s = 737 us), as a share of mlx5's maximum 8192 (1024, 2048, 4096, 8192).
/// - `max_pause_frames_per_s` 1000 / 2000 / 4000 / 8000: pause at the largest quanta
///   (65535 x 512 bit times, IEEE 802.3 Annex 31B) holds the partner as large a share of
///   each second at the tier's rate as 1000 a second do at 100 Gb/s (a third).
/// - `max_rx_discards_per_s` 0, `firmware_consistent`, `max_irqs_off_node` 1 and
///   `min_channel_fraction` 0.5: the configuration's defaults, which no line rate changes
///   (a lost frame is lost; one control vector; one queue per core).
pub fn builtin(name: &str) -> Option<NodeProfile> {
    let rs544 = Some("RS(544,514)".to_string());
    let p = |speed_gbps: u32, lanes: u32, fec: Option<String>| NodeProfile {
        speed_mbps: Some(speed_gbps * 1000),
        lanes: Some(lanes),
        fec,
        pcie: Vec::new(),
        pcie_carries_line_rate: Some(true),
        pcie_at_capability: Some(true),
        margin_floor_db: Some(1.0),
        max_link_down_events: Some(0),
        mtu: None,
        min_ring_fraction: Some(f64::from(speed_gbps) / 800.0),
        max_pause_frames_per_s: Some(f64::from(speed_gbps) * 10.0),
        max_rx_discards_per_s: Some(0.0),
        max_irqs_off_node: Some(1),
        min_channel_fraction: Some(0.5),
        firmware_consistent: Some(true),
    };
    match name {
        // 100GBASE-SR4/CR4: 4 x 25.78125 Gb/s NRZ with RS(528,514) (Clause 91).
        "100g" => Some(p(100, 4, Some("RS(528,514)".into()))),
        "200g" => Some(p(200, 4, rs544)),
        // 400G over 4 x 106.25 Gb/s PAM4 lanes (400GBASE-DR4), the NIC-side norm.
        "400g" => Some(p(400, 4, rs544)),
        "800g" => Some(p(800, 8, rs544)),
        _ => None,
    }
}

/// A user profile of that name, else the built-in.
pub fn resolve(name: &str, user: &BTreeMap<String, NodeProfile>) -> Result<NodeProfile, ProfileError> {
    user.get(name)
        .cloned()
        .or_else(|| builtin(name))
        .ok_or_else(|| ProfileError::Unknown { name: name.to_string(), user: user.keys().map(|k| format!(", {k}")).collect() })
}

/// PCIe generation from the per-lane signalling rate (PCIe base spec: 2.5, 5, 8, 16, 32, 64 GT/s).
pub(crate) fn pcie_generation(gts: f64) -> Option<u8> {
    [(2.5, 1), (5.0, 2), (8.0, 3), (16.0, 4), (32.0, 5), (64.0, 6), (128.0, 7)]
        .iter()
        .find(|(rate, _)| (gts - rate).abs() < 0.01 * rate)
        .map(|(_, g)| *g)
}

/// What a line of the profile check checks, written as its name (`pcie_ceiling`) in the
/// JSON and the reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// The link's speed, at least the profile's.
    Speed,
    /// The link's lane count.
    Lanes,
    /// The FEC in use.
    Fec,
    /// The PCIe link's generation and width.
    Pcie,
    /// The weakest lane's margin, else the port's.
    Margin,
    /// Link-down events in the window.
    LinkDownEvents,
    /// The interface's MTU.
    Mtu,
    /// Whether the PCIe path carries the line rate.
    PcieCeiling,
    /// Whether the PCIe link trained at the card's maximum.
    PcieTrained,
}

impl Check {
    /// Its name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Check::Speed => "speed",
            Check::Lanes => "lanes",
            Check::Fec => "fec",
            Check::Pcie => "pcie",
            Check::Margin => "margin",
            Check::LinkDownEvents => "link_down_events",
            Check::Mtu => "mtu",
            Check::PcieCeiling => "pcie_ceiling",
            Check::PcieTrained => "pcie_trained",
        }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of the profile check: what it expects, what was measured, whether it passes
/// (`None`: not measured, so not judged).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileItem {
    /// What is checked.
    pub check: Check,
    pub(crate) expected: String,
    pub(crate) measured: String,
    /// Whether it passes; `None` when it could not be measured.
    pub ok: Option<bool>,
}

/// The checks of a `--profile` against one interface, with how many passed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileCheck {
    /// The profile's name (`200g`).
    pub profile: String,
    /// Each check, expected beside measured.
    pub items: Vec<ProfileItem>,
    /// Checks that passed, out of `items.len()`.
    pub(crate) passed: usize,
    /// Checks that could not be measured (`ok` null): never counted as passed.
    pub not_measured: usize,
    /// "profile 200g: 6/6 checks passed", with what failed or was not measured.
    pub(crate) summary: String,
}

/// What a check shows when it could not be measured.
pub(crate) const NOT_MEASURED: &str = "not measured";

fn item(check: Check, expected: String, measured: Option<String>, ok: Option<bool>) -> ProfileItem {
    let ok = if measured.is_some() { ok } else { None };
    ProfileItem { check, expected, measured: measured.unwrap_or_else(|| NOT_MEASURED.into()), ok }
}

impl ProfileCheck {
    fn new(profile: &str, items: Vec<ProfileItem>) -> Self {
        let passed = items.iter().filter(|i| i.ok == Some(true)).count();
        let not_measured = items.iter().filter(|i| i.ok.is_none()).count();
        let names = |want: Option<bool>| items.iter().filter(|i| i.ok == want).map(|i| i.check.as_str()).collect::<Vec<_>>().join(", ");
        let mut summary = format!("profile {profile}: {passed}/{} checks passed", items.len());
        if passed + not_measured < items.len() {
            summary.push_str(&format!("; failed: {}", names(Some(false))));
        }
        if not_measured > 0 {
            summary.push_str(&format!("; not measured: {}", names(None)));
        }
        ProfileCheck { profile: profile.to_string(), items, passed, not_measured, summary }
    }
}

/// The checks of `p` against one analysed interface.
pub fn evaluate(name: &str, p: &NodeProfile, a: &InterfaceAnalysis) -> ProfileCheck {
    let l = &a.link;
    let mut items = Vec::new();
    if let Some(want) = p.speed_mbps {
        items.push(item(Check::Speed, format!("{want} Mb/s"), l.speed_mbps.map(|s| format!("{s} Mb/s")), l.speed_mbps.map(|s| s >= want)));
    }
    if let Some(want) = p.lanes {
        items.push(item(Check::Lanes, want.to_string(), l.lanes.map(|n| n.to_string()), l.lanes.map(|n| n == want)));
    }
    if let Some(want) = &p.fec {
        let have = l.fec.map(|f| f.name());
        items.push(item(Check::Fec, want.clone(), have.map(str::to_string), have.map(|h| h.eq_ignore_ascii_case(want))));
    }
    if !p.pcie.is_empty() {
        let expected = p.pcie.iter().map(|m| format!("Gen{} x{}", m.generation, m.width)).collect::<Vec<_>>().join(" or ");
        let pc = &a.pcie;
        // A multi-host port moves its traffic over every path of its group: widths add up.
        let paths = pc.group.as_ref().map_or(1, |g| g.paths.len().max(1)) as u32;
        let measured = match (pc.current_speed_gts.and_then(pcie_generation), pc.current_width) {
            (Some(g), Some(w)) if paths > 1 => Some((g, w * paths, format!("Gen{g} x{w} x {paths} paths"))),
            (Some(g), Some(w)) => Some((g, w, format!("Gen{g} x{w}"))),
            _ => None,
        };
        let ok = measured.as_ref().map(|(g, w, _)| p.pcie.iter().any(|m| *g >= m.generation && *w >= m.width));
        items.push(item(Check::Pcie, expected, measured.map(|m| m.2), ok));
    }
    if p.pcie_carries_line_rate == Some(true) {
        items.push(carries_line_rate(p, a));
    }
    if p.pcie_at_capability == Some(true) {
        items.push(at_capability(a));
    }
    if let Some(floor) = p.margin_floor_db {
        // The weakest lane's margin, else the port's. A zero-error margin is a lower bound:
        // under the floor it proves nothing either way, so it is not judged.
        let lane = a.lanes.first().filter(|w| w.margin_db.is_some());
        let (m, bound, what) = match lane {
            Some(w) => (w.margin_db, w.margin_is_lower_bound, format!(" (lane {})", w.lane)),
            None => (l.margin_db, l.margin_is_lower_bound, " (port)".to_string()),
        };
        let measured = m.map(|m| format!("{}{m:.2} dB{what}", if bound { ">" } else { "" }));
        let ok = m.and_then(|m| {
            if m >= floor {
                Some(true)
            } else if bound {
                None
            } else {
                Some(false)
            }
        });
        items.push(item(Check::Margin, format!(">= {floor:.2} dB"), measured, ok));
    }
    if let Some(max) = p.max_link_down_events {
        let have = l.link_down_events;
        items.push(item(Check::LinkDownEvents, format!("<= {max}"), have.map(|n| n.to_string()), have.map(|n| n <= max)));
    }
    if let Some(want) = p.mtu {
        let have = a.host.as_ref().and_then(|h| h.mtu.as_ref()).map(|m| m.value);
        items.push(item(Check::Mtu, want.to_string(), have.map(|m| m.to_string()), have.map(|m| m == want)));
    }
    ProfileCheck::new(name, items)
}

/// The PCIe ceiling against the line rate: a multi-host port moves its traffic over
/// every path of its group, so the group's summed ceiling is what must carry it.
fn carries_line_rate(p: &NodeProfile, a: &InterfaceAnalysis) -> ProfileItem {
    let pc = &a.pcie;
    let rate_gbps = p.speed_mbps.or(a.link.speed_mbps).map(|s| f64::from(s) / 1000.0);
    let (ceiling, paths) = match pc.group.as_ref().filter(|g| g.paths.len() > 1) {
        Some(g) => (g.group_ceiling_gbps, format!(" over {} paths", g.paths.len())),
        None => (pc.ceiling_gbps, String::new()),
    };
    let link = match (pc.current_speed_gts.and_then(pcie_generation), pc.current_width) {
        (Some(g), Some(w)) => format!(" (Gen{g} x{w}{paths})"),
        _ => paths,
    };
    let expected = rate_gbps.map_or("the line rate".to_string(), |r| format!(">= {r:.1} Gb/s (the line rate)"));
    let measured = ceiling.map(|c| format!("{c:.1} Gb/s{link}"));
    let ok = ceiling.zip(rate_gbps).map(|(c, r)| c >= r);
    item(Check::PcieCeiling, expected, measured, ok)
}

/// Trained at the card's own maximum speed and width (sysfs `max_link_*`).
fn at_capability(a: &InterfaceAnalysis) -> ProfileItem {
    let pc = &a.pcie;
    let gts = |v: Option<f64>| v.map(|g| format!("{g:.1} GT/s"));
    let have = gts(pc.current_speed_gts).zip(pc.current_width).map(|(s, w)| format!("{s} x{w}"));
    let max = gts(pc.max_speed_gts).zip(pc.max_width).map(|(s, w)| format!("{s} x{w}"));
    let expected = max.clone().map_or("the card's maximum".to_string(), |m| format!("the card's maximum, {m}"));
    let measured = have.zip(max.as_ref()).map(|(h, _)| h);
    let ok = match (pc.current_speed_gts, pc.current_width, pc.max_speed_gts, pc.max_width) {
        (Some(s), Some(w), Some(ms), Some(mw)) => Some(s + 0.01 >= ms && w >= mw),
        _ => None,
    };
    item(Check::PcieTrained, expected, measured, ok)
}

/// Adds one `below_profile` reason per failed check and recomputes the verdict.
pub fn apply(check: &ProfileCheck, a: &mut InterfaceAnalysis) {
    for it in check.items.iter().filter(|i| i.ok == Some(false)) {
        let msg = format!("profile {}: {} expected {}, measured {}", check.profile, it.check, it.expected, it.measured);
        a.reasons.push(Reason::new(ReasonCode::BelowProfile, Severity::Reject, None, msg));
    }
    if check.items.iter().any(|i| i.ok == Some(false)) {
        a.advice.push(format!(
            "profile {}: bring each failed check to what the profile expects (slot and riser for PCIe, the FEC and speed settings at both ends, the optics for margin), or validate against the profile this node was bought for",
            check.profile
        ));
    }
    a.reasons.sort_by_key(|r| std::cmp::Reverse(r.severity));
    a.verdict = verdict(&a.reasons);
    a.notes.push(check.summary.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fec::FecKind;
    use crate::analysis::{LaneAnalysis, Verdict};

    #[test]
    fn every_builtin_name_is_a_tier() {
        assert!(BUILTIN_PROFILES.iter().all(|n| builtin(n).is_some()));
        assert!(builtin("300g").is_none());
    }

    const fn pcie(generation: u8, width: u32) -> PcieMinimum {
        PcieMinimum { generation, width }
    }

    fn nic(speed_mbps: u32, lanes: u32, gts: f64, width: u32, margin: f64) -> InterfaceAnalysis {
        let mut a = InterfaceAnalysis {
            interface: "ens3np0".into(),
            verdict: Verdict::Accept,
            reasons: vec![],
            pcie: Default::default(),
            host: None,
            neighbor: None,
            link: Default::default(),
            serdes_eye: None,
            module: None,
            module_error: None,
            lanes: vec![LaneAnalysis { lane: 2, rank: 1, margin_db: Some(margin), ..Default::default() }],
            rx_ber_fit: None,
            events: vec![],
            notes: vec![],
            advice: vec![],
            segments: Vec::new(),
            after_flap: Vec::new(),
            profile: None,
            fec_histogram: None,
            frame_loss: None,
            lane_groups: vec![],
            infiniband: None,
            kernel_log: None,
        };
        a.link.speed_mbps = Some(speed_mbps);
        a.link.lanes = Some(lanes);
        a.link.fec = Some(FecKind::Rs544);
        a.link.link_down_events = Some(0);
        a.pcie.current_speed_gts = Some(gts);
        a.pcie.current_width = Some(width);
        a
    }

    #[test]
    fn generations_from_signalling_rate() {
        assert_eq!(pcie_generation(16.0), Some(4));
        assert_eq!(pcie_generation(64.0), Some(6));
        assert_eq!(pcie_generation(2.5), Some(1));
        assert_eq!(pcie_generation(20.0), None);
    }

    #[test]
    fn gen4_x4_is_below_200g_and_says_both_sides() {
        let p = builtin("200g").unwrap();
        // Gen4 x4 trained at its maximum: 16 x 4 x 128/130 x 0.92 = 57.97 Gb/s < 200.
        let mut a = nic(200_000, 4, 16.0, 4, 1.6);
        a.pcie.ceiling_gbps = Some(16.0 * 4.0 * 128.0 / 130.0 * 0.92);
        (a.pcie.max_speed_gts, a.pcie.max_width) = (Some(16.0), Some(4));
        let c = evaluate("200g", &p, &a);
        let pcie = c.items.iter().find(|i| i.check == Check::PcieCeiling).unwrap();
        assert_eq!(
            (pcie.expected.as_str(), pcie.measured.as_str(), pcie.ok),
            (">= 200.0 Gb/s (the line rate)", "58.0 Gb/s (Gen4 x4)", Some(false))
        );
        assert!(c.items.iter().filter(|i| i.check != Check::PcieCeiling).all(|i| i.ok == Some(true)), "{:?}", c.items);
        assert_eq!(c.summary, "profile 200g: 6/7 checks passed; failed: pcie_ceiling");
        apply(&c, &mut a);
        assert_eq!(a.verdict, Verdict::Reject);
        assert_eq!(a.reasons[0].message, "profile 200g: pcie_ceiling expected >= 200.0 Gb/s (the line rate), measured 58.0 Gb/s (Gen4 x4)");
    }

    #[test]
    fn a_connectx6_200g_card_at_gen4_x16_passes_200g() {
        // ConnectX-6 200G: PCIe Gen4 x16 = 16 x 16 x 128/130 x 0.92 = 231.9 Gb/s >= 200.
        let p = builtin("200g").unwrap();
        let mut a = nic(200_000, 4, 16.0, 16, 1.6);
        a.pcie.ceiling_gbps = Some(16.0 * 16.0 * 128.0 / 130.0 * 0.92);
        (a.pcie.max_speed_gts, a.pcie.max_width) = (Some(16.0), Some(16));
        let c = evaluate("200g", &p, &a);
        assert!(c.items.iter().all(|i| i.ok == Some(true)), "{:?}", c.items);
        assert_eq!(c.summary, format!("profile 200g: {n}/{n} checks passed", n = c.items.len()));
        // The same card's Gen5 sibling trained at Gen4: the ceiling carries 200G, but the
        // link is below what the card can do.
        a.pcie.max_speed_gts = Some(32.0);
        let c = evaluate("200g", &p, &a);
        let failed: Vec<&str> = c.items.iter().filter(|i| i.ok == Some(false)).map(|i| i.check.as_str()).collect();
        assert_eq!(failed, vec!["pcie_trained"]);
        // No PCIe figures at all: not measured, not passed.
        let mut a = nic(200_000, 4, 16.0, 16, 1.6);
        (a.pcie.current_speed_gts, a.pcie.current_width) = (None, None);
        let c = evaluate("200g", &p, &a);
        assert_eq!(c.not_measured, 2, "{:?}", c.items);
        assert!(c.summary.ends_with("; not measured: pcie_ceiling, pcie_trained"), "{}", c.summary);
        assert!(c.items.iter().filter(|i| i.ok.is_none()).all(|i| i.measured == NOT_MEASURED));
    }

    #[test]
    fn a_contracted_generation_is_a_user_setting() {
        let p = NodeProfile { pcie: vec![pcie(6, 16), pcie(5, 32)], ..Default::default() };
        assert!(evaluate("800g-contract", &p, &nic(800_000, 8, 64.0, 16, 1.7)).items.iter().all(|i| i.ok == Some(true)));
        let c = evaluate("800g-contract", &p, &nic(800_000, 8, 32.0, 16, 1.7));
        assert_eq!(c.items.iter().find(|i| i.check == Check::Pcie).unwrap().ok, Some(false));
        // 400G at 0.4 dB margin against the 800g tier: the speed and the margin floor fail.
        let c = evaluate("800g", &builtin("800g").unwrap(), &nic(400_000, 8, 64.0, 16, 0.4));
        let failed: Vec<&str> = c.items.iter().filter(|i| i.ok == Some(false)).map(|i| i.check.as_str()).collect();
        assert_eq!(failed, vec!["speed", "margin"]);
    }

    #[test]
    fn a_profile_mtu_is_checked_against_the_hosts() {
        let p = NodeProfile { mtu: Some(9000), ..Default::default() };
        let mut a = nic(200_000, 4, 16.0, 16, 1.7);
        assert_eq!(evaluate("fabric", &p, &a).items[0].ok, None, "no host facts: not measured");
        let host = crate::device::host::HostFacts { mtu: Some(crate::device::host::Fact::ioctl(1500)), ..Default::default() };
        a.host = Some(crate::analysis::host::analyze_host(&host));
        let c = evaluate("fabric", &p, &a);
        assert_eq!((c.items[0].check, c.items[0].measured.as_str(), c.items[0].ok), (Check::Mtu, "1500", Some(false)));
        assert_eq!(serde_json::to_value(&c.items[0]).unwrap()["check"], "mtu");
    }

    /// The tiers' host thresholds follow the line rate: 1024 of 8192 descriptors hold 737 us
    /// at 100 Gb/s (1024 x 72000 bit / 100e9 bit/s), so 200G needs 2048 and 800G all 8192
    /// for the same time; pause frames at full quanta (65535 x 512 bit = 335.5 us at
    /// 100 Gb/s) 1000 a second hold 100G a third of the time, and 8000 hold 800G the same.
    #[test]
    fn tiers_scale_rings_and_pause_with_the_rate() {
        let t = |n: &str| builtin(n).unwrap();
        let ring_us = |gbps: f64, entries: f64| entries * 9000.0 * 8.0 / (gbps * 1e3);
        for (name, gbps) in [("100g", 100.0), ("200g", 200.0), ("400g", 400.0), ("800g", 800.0)] {
            let p = t(name);
            let entries = p.min_ring_fraction.unwrap() * 8192.0;
            assert!((ring_us(gbps, entries) - 737.28).abs() < 0.01, "{name}");
            let paused = p.max_pause_frames_per_s.unwrap() * 65535.0 * 512.0 / (gbps * 1e9);
            assert!((paused - 0.3355).abs() < 1e-3, "{name}: {paused}");
            assert_eq!((p.max_rx_discards_per_s, p.max_irqs_off_node, p.firmware_consistent), (Some(0.0), Some(1), Some(true)));
        }
    }

    #[test]
    fn user_profiles_replace_and_extend_builtins() {
        let mut user = BTreeMap::new();
        user.insert("200g".to_string(), NodeProfile { speed_mbps: Some(200_000), ..Default::default() });
        assert_eq!(resolve("200g", &user).unwrap().pcie_carries_line_rate, None);
        assert_eq!(resolve("400g", &user).unwrap().pcie_carries_line_rate, Some(true));
        let e = resolve("1t", &user).unwrap_err().to_string();
        assert!(e.contains("\"1t\"") && e.contains("800g, 200g"), "{e}");
    }
}
