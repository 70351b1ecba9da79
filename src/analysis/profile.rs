//! Node validation by speed tier (the node-acceptance runbook): every NIC at its expected
//! rate and lane count, the expected FEC, a PCIe link wide and fast enough for the port,
//! no flaps, FEC margin above a floor. A NIC short of its profile gets `below_profile`
//! (reject), each check with the expected and the measured value side by side.
//!
//! Built-ins `100g`, `200g`, `400g`, `800g`; the config file's `node_profiles` adds or
//! replaces profiles by name.

use super::verdict::{verdict, Reason, ReasonCode, Severity};
use super::InterfaceAnalysis;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// One way a PCIe link can be enough: at least this generation at at least this width.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcieMinimum {
    pub generation: u8,
    pub width: u32,
}

/// What a node's NIC must show. A field left out is not checked.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NodeProfile {
    pub speed_mbps: Option<u32>,
    pub lanes: Option<u32>,
    /// FEC name as the analysis prints it: "RS(544,514)", "RS(528,514)", ...
    pub fec: Option<String>,
    /// Any one of these is enough (e.g. Gen6 x16 or Gen5 x32 for 800G).
    pub pcie: Vec<PcieMinimum>,
    pub margin_floor_db: Option<f64>,
    pub max_link_down_events: Option<u64>,
}

#[derive(Debug, Error, PartialEq)]
pub enum ProfileError {
    #[error("no profile named {name:?} (built in: 100g, 200g, 400g, 800g{user})")]
    Unknown { name: String, user: String },
}

const fn pcie(generation: u8, width: u32) -> PcieMinimum {
    PcieMinimum { generation, width }
}

/// The built-in tiers. PCIe: a port needs a usable PCIe ceiling above its rate
/// (pcie.rs: Gen3 x16 = 116 Gb/s for 100G; Gen5 x16 = 463 Gb/s for 200G/400G;
/// Gen6 x16 = 869 Gb/s, or two Gen5 x16 paths, for 800G).
pub fn builtin(name: &str) -> Option<NodeProfile> {
    let rs544 = Some("RS(544,514)".to_string());
    let p = |speed_gbps: u32, lanes: u32, fec: Option<String>, pcie: Vec<PcieMinimum>| NodeProfile {
        speed_mbps: Some(speed_gbps * 1000),
        lanes: Some(lanes),
        fec,
        pcie,
        margin_floor_db: Some(1.0),
        max_link_down_events: Some(0),
    };
    match name {
        // 100GBASE-SR4/CR4: 4 x 25.78125 Gb/s NRZ with RS(528,514) (Clause 91).
        "100g" => Some(p(100, 4, Some("RS(528,514)".into()), vec![pcie(3, 16), pcie(4, 8)])),
        "200g" => Some(p(200, 4, rs544, vec![pcie(5, 16)])),
        // 400G over 4 x 106.25 Gb/s PAM4 lanes (400GBASE-DR4), the NIC-side norm.
        "400g" => Some(p(400, 4, rs544, vec![pcie(5, 16)])),
        "800g" => Some(p(800, 8, rs544, vec![pcie(6, 16), pcie(5, 32)])),
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
pub fn pcie_generation(gts: f64) -> Option<u8> {
    [(2.5, 1), (5.0, 2), (8.0, 3), (16.0, 4), (32.0, 5), (64.0, 6), (128.0, 7)]
        .iter()
        .find(|(rate, _)| (gts - rate).abs() < 0.01 * rate)
        .map(|(_, g)| *g)
}

/// One line of the profile check: what it expects, what was measured, whether it passes
/// (`None`: not measured, so not judged).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileItem {
    pub check: &'static str,
    pub expected: String,
    pub measured: String,
    pub ok: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProfileCheck {
    pub profile: String,
    pub items: Vec<ProfileItem>,
}

fn item(check: &'static str, expected: String, measured: Option<String>, ok: Option<bool>) -> ProfileItem {
    ProfileItem { check, expected, measured: measured.unwrap_or_else(|| "unknown".into()), ok }
}

/// The checks of `p` against one analysed interface.
pub fn evaluate(name: &str, p: &NodeProfile, a: &InterfaceAnalysis) -> ProfileCheck {
    let l = &a.link;
    let mut items = Vec::new();
    if let Some(want) = p.speed_mbps {
        items.push(item("speed", format!("{want} Mb/s"), l.speed_mbps.map(|s| format!("{s} Mb/s")), l.speed_mbps.map(|s| s >= want)));
    }
    if let Some(want) = p.lanes {
        items.push(item("lanes", want.to_string(), l.lanes.map(|n| n.to_string()), l.lanes.map(|n| n == want)));
    }
    if let Some(want) = &p.fec {
        let have = l.fec.map(|f| f.name());
        items.push(item("fec", want.clone(), have.map(str::to_string), have.map(|h| h.eq_ignore_ascii_case(want))));
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
        items.push(item("pcie", expected, measured.map(|m| m.2), ok));
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
        items.push(item("margin", format!(">= {floor:.2} dB"), measured, ok));
    }
    if let Some(max) = p.max_link_down_events {
        let have = l.link_down_events;
        items.push(item("link_down_events", format!("<= {max}"), have.map(|n| n.to_string()), have.map(|n| n <= max)));
    }
    ProfileCheck { profile: name.to_string(), items }
}

/// Adds one `below_profile` reason per failed check and recomputes the verdict.
pub fn apply(check: &ProfileCheck, a: &mut InterfaceAnalysis) {
    for it in check.items.iter().filter(|i| i.ok == Some(false)) {
        let msg = format!("profile {}: {} expected {}, measured {}", check.profile, it.check, it.expected, it.measured);
        a.reasons.push(Reason::new(ReasonCode::BelowProfile, Severity::Reject, None, msg));
    }
    a.reasons.sort_by_key(|r| std::cmp::Reverse(r.severity));
    a.verdict = verdict(&a.reasons);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::fec::FecKind;
    use crate::analysis::{LaneAnalysis, Verdict};

    fn nic(speed_mbps: u32, lanes: u32, gts: f64, width: u32, margin: f64) -> InterfaceAnalysis {
        let mut a = InterfaceAnalysis {
            interface: "ens3np0".into(),
            verdict: Verdict::Accept,
            reasons: vec![],
            pcie: Default::default(),
            link: Default::default(),
            module: None,
            module_error: None,
            lanes: vec![LaneAnalysis { lane: 2, rank: 1, margin_db: Some(margin), ..Default::default() }],
            rx_ber_fit: None,
            events: vec![],
            notes: vec![],
            segments: Vec::new(),
            profile: None,
            fec_histogram: None,
            lane_groups: vec![],
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
        let mut a = nic(200_000, 4, 16.0, 4, 1.6);
        let c = evaluate("200g", &p, &a);
        let pcie = c.items.iter().find(|i| i.check == "pcie").unwrap();
        assert_eq!((pcie.expected.as_str(), pcie.measured.as_str(), pcie.ok), ("Gen5 x16", "Gen4 x4", Some(false)));
        assert!(c.items.iter().filter(|i| i.check != "pcie").all(|i| i.ok == Some(true)), "{:?}", c.items);
        apply(&c, &mut a);
        assert_eq!(a.verdict, Verdict::Reject);
        assert_eq!(a.reasons[0].message, "profile 200g: pcie expected Gen5 x16, measured Gen4 x4");
    }

    #[test]
    fn gen6_x16_meets_800g_and_gen5_x32_is_the_alternative() {
        let p = builtin("800g").unwrap();
        assert!(evaluate("800g", &p, &nic(800_000, 8, 64.0, 16, 1.7)).items.iter().all(|i| i.ok == Some(true)));
        let c = evaluate("800g", &p, &nic(800_000, 8, 32.0, 16, 1.7));
        assert_eq!(c.items.iter().find(|i| i.check == "pcie").unwrap().ok, Some(false));
        // 400G at 0.4 dB margin: the speed and the margin floor both fail.
        let c = evaluate("800g", &p, &nic(400_000, 8, 64.0, 16, 0.4));
        let failed: Vec<&str> = c.items.iter().filter(|i| i.ok == Some(false)).map(|i| i.check).collect();
        assert_eq!(failed, vec!["speed", "margin"]);
    }

    #[test]
    fn user_profiles_replace_and_extend_builtins() {
        let mut user = BTreeMap::new();
        user.insert("200g".to_string(), NodeProfile { speed_mbps: Some(200_000), ..Default::default() });
        assert_eq!(resolve("200g", &user).unwrap().pcie, vec![]);
        assert_eq!(resolve("400g", &user).unwrap().pcie, vec![pcie(5, 16)]);
        let e = resolve("1t", &user).unwrap_err().to_string();
        assert!(e.contains("\"1t\"") && e.contains("800g, 200g"), "{e}");
    }
}
