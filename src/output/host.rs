//! The host beneath one NIC in one line, for the text and Markdown reports (docs/host.md
//! "The host line"): `nothing wrong` or the host codes raised, then what was seen (driver,
//! firmware against its peers, NUMA node and nearest GPUs, MTU against the node's other
//! ports, rings, channels, IRQs, pause and discards), then what could not be checked.

use crate::analysis::host::{HostAnalysis, Rate};
use crate::analysis::verdict::{join_codes, ReasonCode};
use crate::device::host::PciDistance;

/// The line's text (without its `host` label).
pub(crate) fn host_line(h: &HostAnalysis) -> String {
    let head = match h.problems.as_slice() {
        [] => "nothing wrong".to_string(),
        codes => join_codes(codes, ", "),
    };
    let mut parts = Vec::new();
    let driver = [&h.driver, &h.driver_version].iter().filter_map(|f| f.as_ref().map(|f| f.value.as_str())).collect::<Vec<_>>();
    if !driver.is_empty() {
        parts.push(driver.join(" "));
    }
    if let Some(fw) = &h.firmware_version {
        let peers = match h.firmware_peers {
            Some(n) if n > 0 && !h.problems.contains(&ReasonCode::FirmwareMismatch) => format!(" on all {} NICs of its model", n + 1),
            _ => String::new(),
        };
        parts.push(format!("firmware {}{peers}", fw.value));
    }
    if let Some(n) = &h.numa_node {
        parts.push(format!("NUMA node {}", n.value));
    }
    if let Some(m) = &h.mtu {
        let peers = match h.mtu_peers {
            Some(n) if n > 0 && !h.problems.contains(&ReasonCode::MtuMismatch) => format!(" as on {n} other port{}", plural(n)),
            _ => String::new(),
        };
        parts.push(format!("MTU {}{peers}", m.value));
    }
    if let Some(r) = &h.rings {
        let side = |c: Option<u32>, m: Option<u32>| match (c, m) {
            (Some(c), Some(m)) => format!("{c}/{m}"),
            (Some(c), None) => c.to_string(),
            _ => "-".to_string(),
        };
        parts.push(format!("rings rx {} tx {}", side(r.value.rx, r.value.rx_max), side(r.value.tx, r.value.tx_max)));
    }
    if let Some(c) = &h.channels {
        let c = &c.value;
        let kinds: Vec<String> = [("combined", c.combined, c.combined_max), ("rx", c.rx, c.rx_max), ("tx", c.tx, c.tx_max)]
            .iter()
            .filter_map(|(k, n, m)| Some(format!("{} {k}{}", (*n)?, m.map(|m| format!(" of {m}")).unwrap_or_default())))
            .collect();
        let cpus = h.node_cpus.map(|n| format!(" for {n} CPUs on its NUMA node")).unwrap_or_default();
        if !kinds.is_empty() {
            parts.push(format!("channels {}{cpus}", kinds.join(", ")));
        }
    }
    if let Some(i) = &h.irqs {
        parts.push(match i.off_node {
            0 => format!("{} IRQs on its NUMA node", i.total),
            n => format!(
                "{n} of {} IRQs off its NUMA node ({}{})",
                i.total,
                i.off_node_irqs.iter().map(u32::to_string).collect::<Vec<_>>().join(" "),
                if n > i.off_node_irqs.len() { " ..." } else { "" }
            ),
        });
    }
    if let Some(pd) = &h.pause_discards {
        let rate =
            |name: &str, r: &Option<Rate>| r.as_ref().filter(|r| r.count > 0).map(|r| format!("{name} {} ({:.3}/s)", r.count, r.per_s));
        let counted: Vec<String> = [
            rate("pause rx", &pd.rx_pause_frames),
            rate("pause tx", &pd.tx_pause_frames),
            rate("rx discards", &pd.rx_discards),
            rate("out of buffer", &pd.rx_out_of_buffer),
        ]
        .into_iter()
        .flatten()
        .collect();
        let priorities =
            [&pd.rx_pause_per_priority, &pd.tx_pause_per_priority].into_iter().flatten().any(|p| p.counts.iter().any(|c| *c > 0));
        parts.push(match (counted.is_empty(), priorities) {
            (true, false) => format!("no pause frames or discards over {:.0} s", pd.window_s),
            (true, true) => format!("per-priority pause frames over {:.0} s", pd.window_s),
            (false, _) => format!("{} over {:.0} s", counted.join(", "), pd.window_s),
        });
    }
    let mut text = match parts.is_empty() {
        true => head,
        false => format!("{head}: {}", parts.join(", ")),
    };
    let nearest = h.nearest_gpus();
    if let Some(first) = nearest.first() {
        let names: Vec<&str> = nearest.iter().map(|g| g.bus_info.as_str()).collect();
        text +=
            &format!("; nearest GPU{} {} {} ({})", plural(names.len()), names.join(" "), first.distance.as_str(), first.distance.meaning());
        let farther = &h.gpus.as_deref().unwrap_or_default()[nearest.len()..];
        let mut by_distance: Vec<(PciDistance, usize)> = Vec::new();
        for g in farther {
            match by_distance.last_mut() {
                Some((d, n)) if *d == g.distance => *n += 1,
                _ => by_distance.push((g.distance, 1)),
            }
        }
        if !by_distance.is_empty() {
            let counts: Vec<String> = by_distance.iter().map(|(d, n)| format!("{n} {}", d.as_str())).collect();
            text += &format!(", others {}", counts.join(", "));
        }
    }
    if !h.not_checked.is_empty() {
        text += &format!("; could not check {}", h.not_checked.join("; "));
    }
    text
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
