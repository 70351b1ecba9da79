//! The host beneath the link as analysed (docs/host.md): the facts with where each came
//! from, the node's GPUs as the NIC sees them (nearest first), and what could not be
//! checked.

use crate::device::host::{Fact, HostFacts, PciDistance};
use serde::Serialize;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostAnalysis {
    pub driver: Option<Fact<String>>,
    pub driver_version: Option<Fact<String>>,
    pub firmware_version: Option<Fact<String>>,
    pub pci_id: Option<Fact<String>>,
    pub numa_node: Option<Fact<i32>>,
    pub mtu: Option<Fact<u32>>,
    /// The node's GPUs from this NIC, nearest first; `None` when GPUs were not looked for.
    pub gpus: Option<Vec<GpuPlacement>>,
    /// What could not be checked, one sentence each.
    pub not_checked: Vec<String>,
}

/// One GPU as seen from the NIC.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuPlacement {
    pub bus_info: String,
    pub pci_id: String,
    pub numa_node: Option<i32>,
    pub distance: PciDistance,
}

impl HostAnalysis {
    /// The GPUs at the smallest distance from the NIC (several when they tie).
    pub fn nearest_gpus(&self) -> &[GpuPlacement] {
        let gpus = self.gpus.as_deref().unwrap_or_default();
        let n = gpus.first().map(|g| gpus.iter().take_while(|o| o.distance == g.distance).count()).unwrap_or(0);
        &gpus[..n]
    }
}

pub fn analyze_host(h: &HostFacts) -> HostAnalysis {
    let numa = h.numa_node.as_ref().map(|f| f.value);
    let nic_path = h.pci_path.as_ref().map(|f| f.value.as_slice()).unwrap_or_default();
    let gpus = h.gpus.as_ref().map(|found| {
        let mut placed: Vec<GpuPlacement> = found
            .value
            .iter()
            .map(|g| GpuPlacement {
                bus_info: g.bus_info.clone(),
                pci_id: g.pci_id.clone(),
                numa_node: g.numa_node,
                distance: PciDistance::between(nic_path, numa, &g.pci_path, g.numa_node),
            })
            .collect();
        placed.sort_by(|a, b| (a.distance, &a.bus_info).cmp(&(b.distance, &b.bus_info)));
        placed
    });
    let mut not_checked = Vec::new();
    match &gpus {
        None => not_checked.push("GPU locality: not a PCI function, or GPUs were not looked for".to_string()),
        Some(g) if g.is_empty() => not_checked.push("GPU locality: no GPUs found on this node".to_string()),
        Some(_) if numa.is_none() => {
            not_checked.push("NUMA locality: the kernel knows no NUMA node for this NIC (numa_node -1)".to_string())
        }
        Some(_) => {}
    }
    if h.firmware_version.is_none() {
        not_checked.push("firmware version: the driver reports none".to_string());
    }
    if h.mtu.is_none() {
        not_checked.push("MTU: not read".to_string());
    }
    HostAnalysis {
        driver: h.driver.clone(),
        driver_version: h.driver_version.clone(),
        firmware_version: h.firmware_version.clone(),
        pci_id: h.pci_id.clone(),
        numa_node: h.numa_node.clone(),
        mtu: h.mtu.clone(),
        gpus,
        not_checked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::host::Gpu;

    fn gpu(bus: &str, node: i32, path: &str) -> Gpu {
        Gpu {
            bus_info: bus.into(),
            pci_id: "10de:2330".into(),
            numa_node: Some(node),
            pci_path: path.split('/').map(str::to_string).collect(),
        }
    }

    #[test]
    fn gpus_are_placed_nearest_first() {
        let h = HostFacts {
            numa_node: Some(Fact::sysfs(0)),
            pci_path: Some(Fact::sysfs(
                "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0".split('/').map(str::to_string).collect(),
            )),
            firmware_version: Some(Fact::ioctl("28.39.1002".into())),
            mtu: Some(Fact::ioctl(9000)),
            gpus: Some(Fact::sysfs(vec![
                gpu("0000:9b:00.0", 1, "pci0000:9a/0000:9a:02.0/0000:9b:00.0"),
                gpu("0000:1b:00.0", 0, "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:04.0/0000:1b:00.0"),
                gpu("0000:2b:00.0", 0, "pci0000:2a/0000:2a:02.0/0000:2b:00.0"),
            ])),
            ..HostFacts::default()
        };
        let a = analyze_host(&h);
        let order: Vec<_> = a.gpus.as_ref().unwrap().iter().map(|g| (g.bus_info.as_str(), g.distance)).collect();
        assert_eq!(order, [("0000:1b:00.0", PciDistance::Pix), ("0000:2b:00.0", PciDistance::Node), ("0000:9b:00.0", PciDistance::Sys)]);
        assert_eq!(a.nearest_gpus().len(), 1);
        assert!(a.not_checked.is_empty(), "{:?}", a.not_checked);
    }

    #[test]
    fn what_could_not_be_checked_is_said() {
        let a = analyze_host(&HostFacts { gpus: Some(Fact::sysfs(Vec::new())), ..HostFacts::default() });
        assert_eq!(a.not_checked.len(), 3, "{:?}", a.not_checked);
        assert!(a.not_checked[0].contains("no GPUs"));
        assert!(a.nearest_gpus().is_empty());
    }
}
