//! PCIe ceiling of the NIC function and multi-host grouping (physics.md "PCIe ceiling").
//!
//! usable Gb/s = GT/s × width × encoding × efficiency, where encoding is 8b/10b for
//! Gen1-2, 128b/130b for Gen3-5, and for Gen6 (64 GT/s PAM4, FLIT mode) the share of a
//! 256-byte flit that carries TLP bytes: 236/256 (6 bytes DLP, 8 CRC, 6 FEC).
//! `efficiency` (default 0.92) is the TLP share with 256-byte max payload: a 256 B
//! payload travels with ~20-24 B of TLP header, sequence number, LCRC and framing,
//! 256/278 ≈ 0.92. It makes Gen4 x4 = 16 × 4 × 128/130 × 0.92 = 58.0 Gb/s (the
//! "58 Gb/s on a 200G NIC" case) and Gen5 x4 = 116 Gb/s, the top of the observed
//! ranges; smaller payloads or read-heavy traffic do worse, so this is a best case.

use super::config::Config;
use super::InterfaceWindow;
use crate::device::PciLink;
use serde::Serialize;
use std::collections::BTreeMap;

/// "16.0 GT/s PCIe" (sysfs `current_link_speed`) -> 16.0. "Unknown" -> None.
pub(crate) fn parse_gts(s: &str) -> Option<f64> {
    let mut it = s.split_whitespace();
    let v: f64 = it.next()?.parse().ok()?;
    (it.next()?.eq_ignore_ascii_case("GT/s") && v.is_finite() && v > 0.0).then_some(v)
}

/// Line-code efficiency by signalling rate.
fn encoding(gts: f64) -> f64 {
    if gts <= 5.0 {
        0.8 // Gen1/2: 8b/10b
    } else if gts < 64.0 {
        128.0 / 130.0 // Gen3-5
    } else {
        236.0 / 256.0 // Gen6+ FLIT
    }
}

pub(crate) fn ceiling_gbps(gts: f64, width: u32, efficiency: f64) -> f64 {
    gts * f64::from(width) * encoding(gts) * efficiency
}

/// Netdevs that share one module (same vendor and serial) across distinct PCIe links,
/// as on a GB10's ConnectX-7 (each port reached by two hosts over x4 links).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct PcieGroup {
    pub(crate) module_serial: String,
    pub(crate) interfaces: Vec<String>,
    /// Distinct PCIe links (`domain:bus:device`; functions of one device share a link).
    pub(crate) paths: Vec<String>,
    /// Sum of one ceiling per path: what the port can move with traffic on every path.
    pub(crate) group_ceiling_gbps: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PcieAnalysis {
    pub(crate) degraded: bool,
    /// Usable Gb/s of this netdev's own PCIe link (the per-path ceiling).
    pub(crate) ceiling_gbps: Option<f64>,
    pub(crate) current_speed_gts: Option<f64>,
    pub(crate) current_width: Option<u32>,
    pub(crate) max_speed_gts: Option<f64>,
    pub(crate) max_width: Option<u32>,
    pub(crate) port_speed_gbps: Option<f64>,
    /// Trained below what the card can do (width or speed).
    pub(crate) trained_down: bool,
    pub(crate) group: Option<PcieGroup>,
    /// The link is the kernel log's bandwidth line's (an import with no lspci or sysfs link):
    /// the slowest link on the path to the function, and the function's own top.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) from_kernel_log: bool,
    /// Where that line says the slowest link is, when not at the function itself (a bridge
    /// above it: its own link may be the one, or one further up).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kernel_limited_at: Option<String>,
    /// Why degraded, or what the grouping means; `None` when there is nothing to say.
    pub(crate) message: Option<String>,
    pub(crate) advice: Option<String>,
}

fn path_key(bus_info: &str) -> String {
    // "0000:01:00.1" -> "0000:01:00".
    bus_info.rsplit_once('.').map_or(bus_info, |(dev, _)| dev).to_string()
}

fn serial_key(w: &InterfaceWindow) -> Option<String> {
    let m = w.module.as_ref()?;
    let sn = m.vendor_sn.as_deref()?.trim();
    (!sn.is_empty()).then(|| format!("{} {sn}", m.vendor_name.as_deref().unwrap_or("").trim()).trim().to_string())
}

fn own_ceiling(pci: Option<&PciLink>, cfg: &Config) -> Option<f64> {
    let p = pci?;
    let gts = p.current_link_speed.as_deref().and_then(parse_gts)?;
    Some(ceiling_gbps(gts, p.current_link_width.filter(|w| *w > 0)?, cfg.pcie_efficiency))
}

/// Most netdevs one multi-host module serial can have (hosts x ports per host).
const MAX_MULTI_HOST_NETDEVS: usize = 16;

/// Groups of two to `MAX_MULTI_HOST_NETDEVS` windows sharing a module serial, keyed by interface name.
pub(crate) fn groups(windows: &[InterfaceWindow], cfg: &Config) -> BTreeMap<String, PcieGroup> {
    let mut by_serial: BTreeMap<String, Vec<&InterfaceWindow>> = BTreeMap::new();
    for w in windows {
        if let Some(k) = serial_key(w) {
            by_serial.entry(k).or_default().push(w);
        }
    }
    let mut out = BTreeMap::new();
    // A multi-host NIC splits one port over a few hosts (2-8 PCIe paths); more netdevs
    // sharing one serial is cloned or blank module data, not a NIC: no group (which also
    // keeps this linear in the number of interfaces).
    for (serial, members) in by_serial.into_iter().filter(|(_, m)| m.len() > 1 && m.len() <= MAX_MULTI_HOST_NETDEVS) {
        let mut path_ceilings: BTreeMap<String, Option<f64>> = BTreeMap::new();
        for w in &members {
            if let Some(bus) = w.identity.bus_info.as_deref() {
                path_ceilings.entry(path_key(bus)).or_insert_with(|| own_ceiling(w.identity.pci.as_ref(), cfg));
            }
        }
        let group_ceiling_gbps = path_ceilings.values().copied().sum::<Option<f64>>();
        let group = PcieGroup {
            module_serial: serial,
            interfaces: members.iter().map(|w| w.interface.clone()).collect(),
            paths: path_ceilings.keys().cloned().collect(),
            group_ceiling_gbps,
        };
        for w in members {
            out.insert(w.interface.clone(), group.clone());
        }
    }
    out
}

pub(crate) fn analyze_pcie(w: &InterfaceWindow, cfg: &Config, group: Option<PcieGroup>) -> PcieAnalysis {
    let read = w.identity.pci.as_ref().filter(|p| p.current_link_speed.is_some() && p.current_link_width.is_some());
    // No other source gave the link: the kernel's own statement of it.
    let log = super::kernel_log::of(w);
    let kernel = log.and_then(|l| l.pcie_bandwidth.as_ref()).filter(|_| read.is_none());
    let kernel_pci = kernel.map(super::kernel_log::pci_link);
    let pci = kernel_pci.as_ref().or(w.identity.pci.as_ref());
    let own = |at: &str| {
        let bus = w.identity.bus_info.as_deref().and_then(|b| crate::device::PciAddress::parse_domain_optional(b.trim()));
        bus.is_some() && crate::device::PciAddress::parse(at) == bus
    };
    let limited_elsewhere = kernel.and_then(|k| k.limited_at.clone()).filter(|at| !own(at));
    let kernel_speed = log.and_then(|l| {
        l.messages.iter().rev().find_map(|m| match m.event {
            crate::device::kernel_log::KernelEvent::LinkUp { speed_mbps, .. } => speed_mbps,
            _ => None,
        })
    });
    let speed = |s: Option<&String>| s.and_then(|s| parse_gts(s));
    let mut a = PcieAnalysis {
        current_speed_gts: speed(pci.and_then(|p| p.current_link_speed.as_ref())),
        current_width: pci.and_then(|p| p.current_link_width),
        max_speed_gts: speed(pci.and_then(|p| p.max_link_speed.as_ref())),
        max_width: pci.and_then(|p| p.max_link_width),
        ceiling_gbps: own_ceiling(pci, cfg),
        port_speed_gbps: w.link.speed_mbps.or(kernel_speed).map(|m| f64::from(m) / 1000.0),
        from_kernel_log: kernel.is_some(),
        kernel_limited_at: limited_elsewhere.clone(),
        ..Default::default()
    };
    let mut why = Vec::new();
    if let (Some(c), Some(m)) = (a.current_width, a.max_width) {
        if c < m {
            why.push(format!("trained at x{c} of x{m}"));
        }
    }
    if let (Some(c), Some(m)) = (a.current_speed_gts, a.max_speed_gts) {
        if c < m {
            why.push(format!("trained at {c} GT/s of {m} GT/s"));
        }
    }
    // A narrow link above the function is the path's, not proof the card trained down.
    a.trained_down = !why.is_empty() && limited_elsewhere.is_none();
    let below_max = !why.is_empty();
    let multi_path = group.as_ref().filter(|g| g.paths.len() > 1);
    // A multi-host port is judged by what all its paths carry together.
    let reach = multi_path.map_or(a.ceiling_gbps, |g| g.group_ceiling_gbps);
    if let (Some(reach), Some(port)) = (reach, a.port_speed_gbps) {
        if reach < port {
            why.push(format!("PCIe ceiling {reach:.0} Gb/s is below the port's {port:.0} Gb/s"));
        }
    }
    a.degraded = !why.is_empty();
    if a.degraded {
        let said = kernel.map(|k| {
            let gbps = |mbps: u64| format!("{}.{:03} Gb/s", mbps / 1000, mbps % 1000);
            let at = k.limited_at.as_deref().map(|a| format!(", limited by {} x{} link at {a}", k.speed, k.width)).unwrap_or_default();
            format!(
                " (the kernel log: {} available PCIe bandwidth{at}; the function is capable of {} with {} x{})",
                gbps(k.available_mbps),
                gbps(k.capable_mbps),
                k.capable_speed,
                k.capable_width
            )
        });
        a.message = Some(format!("PCIe {}{}", why.join("; "), said.unwrap_or_default()));
        a.advice = Some(if let (Some(at), true) = (&limited_elsewhere, below_max) {
            format!("the narrowest link on the card's path is at {at}: if that is the port above the card, reseat the card or move it to a slot wired for its full width and speed; if it is a switch or riser further up, that link caps every device below it (lspci -tv shows the path)")
        } else if a.trained_down {
            "reseat the card or move it to a slot wired for its full width and speed; check riser and bifurcation settings".into()
        } else {
            "the slot's PCIe link cannot carry the port's rate: use a wider or faster slot".into()
        });
    } else if let (Some(g), Some(c)) = (multi_path, a.ceiling_gbps) {
        a.message = Some(format!(
            "multi-host port: {} share module {} over {} PCIe links; this path carries at most {c:.0} Gb/s, the port reaches its rate only with traffic spread across {}",
            g.interfaces.join(", "),
            g.module_serial,
            g.paths.len(),
            g.interfaces.join(" and ")
        ));
    }
    a.group = group;
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::DeviceIdentity;
    use crate::module::report::{ModuleReport, Standard};
    fn pci(cur: &str, cw: u32, max: &str, mw: u32) -> PciLink {
        PciLink {
            current_link_speed: Some(cur.into()),
            current_link_width: Some(cw),
            max_link_speed: Some(max.into()),
            max_link_width: Some(mw),
            numa_node: None,
        }
    }

    fn window(name: &str, bus: &str, p: PciLink, speed_mbps: u32, sn: &str) -> InterfaceWindow {
        let mut m = ModuleReport::new(Standard::Cmis, Some(0x18));
        m.vendor_name = Some("NVIDIA".into());
        m.vendor_sn = Some(sn.into());
        let mut w = InterfaceWindow { interface: name.into(), module: Some(m), ..Default::default() };
        w.identity = DeviceIdentity { bus_info: Some(bus.into()), pci: Some(p), ..Default::default() };
        w.link.speed_mbps = Some(speed_mbps);
        w
    }

    #[test]
    fn sysfs_speeds() {
        assert_eq!(parse_gts("16.0 GT/s PCIe"), Some(16.0));
        assert_eq!(parse_gts("8.0 GT/s"), Some(8.0));
        assert_eq!(parse_gts("2.5 GT/s PCIe"), Some(2.5));
        assert_eq!(parse_gts("Unknown"), None);
        assert_eq!(parse_gts("16.0 Gb/s"), None);
        assert_eq!(parse_gts(""), None);
    }

    #[test]
    fn ceilings() {
        // Gen4 x4: 16 x 4 x 128/130 = 63.015 raw; x 0.92 = 57.97.
        assert!((ceiling_gbps(16.0, 4, 0.92) - 57.974).abs() < 1e-3);
        // Gen5 x4: 126.031 raw -> 115.95.
        assert!((ceiling_gbps(32.0, 4, 0.92) - 115.948).abs() < 1e-3);
        // Gen3 x16: 8 x 16 x 128/130 = 126.031 -> 115.95.
        assert!((ceiling_gbps(8.0, 16, 0.92) - 115.948).abs() < 1e-3);
        // Gen2 x8: 5 x 8 x 0.8 = 32 -> 29.44.
        assert!((ceiling_gbps(5.0, 8, 0.92) - 29.44).abs() < 1e-9);
        // Gen6 x4 FLIT: 64 x 4 x 236/256 = 236 -> 217.12.
        assert!((ceiling_gbps(64.0, 4, 0.92) - 217.12).abs() < 1e-9);
    }

    #[test]
    fn trained_down_is_degraded() {
        let w = window("eth0", "0000:01:00.0", pci("16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 16), 200_000, "A");
        let a = analyze_pcie(&w, &Config::default(), None);
        assert!(a.degraded && a.trained_down);
        assert!((a.ceiling_gbps.unwrap() - 57.974).abs() < 1e-3);
        let msg = a.message.unwrap();
        assert!(msg.contains("x4 of x16") && msg.contains("58 Gb/s is below the port's 200"), "{msg}");
        assert!(a.advice.unwrap().contains("reseat"));
    }

    #[test]
    fn full_width_gen4_x16_is_fine() {
        // 16 x 16 x 128/130 x 0.92 = 231.9 >= 200.
        let w = window("eth0", "0000:01:00.0", pci("16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16), 200_000, "A");
        let a = analyze_pcie(&w, &Config::default(), None);
        assert!(!a.degraded && a.message.is_none());
    }

    #[test]
    fn gb10_multi_host_grouping() {
        // Two ports, each reached by two Gen5 x4 links (domains 0000 and 0002): four netdevs.
        let g5 = || pci("32.0 GT/s PCIe", 4, "32.0 GT/s PCIe", 4);
        let ws = vec![
            window("enp1s0f0np0", "0000:01:00.0", g5(), 200_000, "SN1"),
            window("enp1s0f1np1", "0000:01:00.1", g5(), 200_000, "SN2"),
            window("enP2p1s0f0np0", "0002:01:00.0", g5(), 200_000, "SN1"),
            window("enP2p1s0f1np1", "0002:01:00.1", g5(), 200_000, "SN2"),
        ];
        let cfg = Config::default();
        let g = groups(&ws, &cfg);
        assert_eq!(g.len(), 4);
        let g1 = &g["enp1s0f0np0"];
        assert_eq!(g1.interfaces, vec!["enp1s0f0np0", "enP2p1s0f0np0"]);
        assert_eq!(g1.paths, vec!["0000:01:00", "0002:01:00"]);
        // Two paths x 115.948 = 231.9 Gb/s >= 200: not degraded, though one path is 116.
        assert!((g1.group_ceiling_gbps.unwrap() - 231.896).abs() < 1e-2);
        let a = analyze_pcie(&ws[0], &cfg, Some(g1.clone()));
        assert!(!a.degraded, "{:?}", a.message);
        assert!((a.ceiling_gbps.unwrap() - 115.948).abs() < 1e-3);
        assert!(a.message.unwrap().contains("at most 116 Gb/s"));
        // Alone, the same x4 path would be below the 200G port.
        assert!(analyze_pcie(&ws[0], &cfg, None).degraded);
    }

    #[test]
    fn functions_of_one_device_are_one_path() {
        let g4 = || pci("16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16);
        let ws = vec![window("a", "0000:01:00.0", g4(), 100_000, "X"), window("b", "0000:01:00.1", g4(), 100_000, "X")];
        let g = groups(&ws, &Config::default());
        assert_eq!(g["a"].paths.len(), 1);
        assert!(analyze_pcie(&ws[0], &Config::default(), Some(g["a"].clone())).message.is_none());
    }
}
