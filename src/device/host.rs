//! The host beneath the link: driver and firmware, the NUMA node and PCI place of the NIC
//! and of the node's GPUs, the MTU. Sources fill these, each fact with where it came from;
//! the capture stores them; analysis judges them (docs/host.md).

use serde::{Deserialize, Serialize};

/// Where a host fact was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactSource {
    /// A sysfs attribute or link (`/sys/class/net/IF/...`, `/sys/bus/pci/devices/...`).
    Sysfs,
    /// An ioctl on a socket of the netdev's netns: `ETHTOOL_GDRVINFO` (what `ethtool -i`
    /// prints), `SIOCGIFMTU`.
    Ioctl,
}

/// A value and where it was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact<T> {
    pub value: T,
    pub from: FactSource,
}

impl<T> Fact<T> {
    pub fn sysfs(value: T) -> Self {
        Fact { value, from: FactSource::Sysfs }
    }
    pub fn ioctl(value: T) -> Self {
        Fact { value, from: FactSource::Ioctl }
    }
}

/// A GPU of the node (a PCI display, 3D or processing-accelerator function of NVIDIA,
/// AMD or Intel).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gpu {
    pub bus_info: String,
    /// PCI vendor and device ID, `10de:2330`.
    pub pci_id: String,
    /// `None` where the kernel knows no NUMA affinity (`numa_node` -1).
    pub numa_node: Option<i32>,
    /// The device's place below `/sys/devices`: host bridge (`pci0000:17`), each bridge,
    /// the function itself.
    pub pci_path: Vec<String>,
}

/// What the host tells of one NIC. `None` = not read (older captures, a source without it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFacts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<Fact<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<Fact<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware_version: Option<Fact<String>>,
    /// PCI vendor and device ID of the NIC function (`15b3:1021`): NICs of one model share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_id: Option<Fact<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_node: Option<Fact<i32>>,
    /// The NIC function's place below `/sys/devices` ([`Gpu::pci_path`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_path: Option<Fact<Vec<String>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Fact<u32>>,
    /// The node's GPUs; `None` = not looked for, empty = none found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<Fact<Vec<Gpu>>>,
}

/// How far apart two PCI functions are, in the vocabulary of `nvidia-smi topo -m`'s
/// legend (its `X`, `NV#` and NIC-to-NIC columns aside). Ordered nearest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum PciDistance {
    /// Through at most one PCIe switch.
    Pix,
    /// Through several PCIe bridges, not the host bridge.
    Pxb,
    /// Through the PCIe host bridge (the CPU's root complex) they share.
    Phb,
    /// Between host bridges of one NUMA node.
    Node,
    /// Across the interconnect between NUMA nodes (sockets).
    Sys,
}

impl PciDistance {
    pub fn as_str(self) -> &'static str {
        match self {
            PciDistance::Pix => "PIX",
            PciDistance::Pxb => "PXB",
            PciDistance::Phb => "PHB",
            PciDistance::Node => "NODE",
            PciDistance::Sys => "SYS",
        }
    }

    /// What it means, for a sentence.
    pub fn meaning(self) -> &'static str {
        match self {
            PciDistance::Pix => "behind one PCIe switch",
            PciDistance::Pxb => "behind PCIe bridges below one root port",
            PciDistance::Phb => "on one host bridge",
            PciDistance::Node => "on one NUMA node, different host bridges",
            PciDistance::Sys => "on another NUMA node",
        }
    }

    /// The distance between functions at `a` and `b` (paths as in [`Gpu::pci_path`]) on
    /// NUMA nodes `a_node` and `b_node`. Different host bridges are `Sys` when both NUMA
    /// nodes are known and differ, else `Node` (a kernel without NUMA knows none).
    pub fn between(a: &[String], a_node: Option<i32>, b: &[String], b_node: Option<i32>) -> PciDistance {
        let (Some((ra, a)), Some((rb, b))) = (a.split_first(), b.split_first()) else {
            return Self::across_bridges(a_node, b_node);
        };
        if ra != rb {
            return Self::across_bridges(a_node, b_node);
        }
        let shared = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        if shared == 0 {
            return PciDistance::Phb;
        }
        // Below the last shared bridge (a switch's upstream port), one switch leaves each
        // side a downstream port and the function itself; more means another bridge.
        if a.len() - shared <= 2 && b.len() - shared <= 2 {
            PciDistance::Pix
        } else {
            PciDistance::Pxb
        }
    }

    fn across_bridges(a_node: Option<i32>, b_node: Option<i32>) -> PciDistance {
        match (a_node, b_node) {
            (Some(a), Some(b)) if a != b => PciDistance::Sys,
            _ => PciDistance::Node,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(s: &str) -> Vec<String> {
        s.split('/').map(str::to_string).collect()
    }

    /// Layouts as PCIe gives them (PCIe Base 6.0 §1.3: a root port has one link, a switch
    /// is an upstream port over downstream ports), distances as the nvidia-smi legend names them.
    #[test]
    fn distances_follow_the_topology() {
        let nic = path("pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0");
        let same_switch = path("pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:04.0/0000:1b:00.0");
        let two_switches = path("pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:08.0/0000:1c:00.0/0000:1d:00.0/0000:1e:00.0");
        let other_root_port = path("pci0000:16/0000:16:04.0/0000:2a:00.0");
        let other_bridge = path("pci0000:30/0000:30:02.0/0000:31:00.0");
        assert_eq!(PciDistance::between(&nic, Some(0), &same_switch, Some(0)), PciDistance::Pix);
        assert_eq!(PciDistance::between(&nic, Some(0), &two_switches, Some(0)), PciDistance::Pxb);
        assert_eq!(PciDistance::between(&nic, Some(0), &other_root_port, Some(0)), PciDistance::Phb);
        assert_eq!(PciDistance::between(&nic, Some(0), &other_bridge, Some(0)), PciDistance::Node);
        assert_eq!(PciDistance::between(&nic, Some(0), &other_bridge, Some(1)), PciDistance::Sys);
        assert_eq!(PciDistance::between(&nic, None, &other_bridge, Some(1)), PciDistance::Node);
        assert_eq!(PciDistance::between(&[], Some(0), &other_bridge, Some(1)), PciDistance::Sys);
        assert!(PciDistance::Pix < PciDistance::Pxb && PciDistance::Node < PciDistance::Sys);
    }

    #[test]
    fn facts_say_where_they_came_from() {
        let h = HostFacts { mtu: Some(Fact::sysfs(9000)), ..HostFacts::default() };
        assert_eq!(serde_json::to_string(&h).unwrap(), r#"{"mtu":{"value":9000,"from":"sysfs"}}"#);
        assert_eq!(serde_json::from_str::<HostFacts>("{}").unwrap(), HostFacts::default());
    }
}
