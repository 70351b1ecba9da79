//! The host beneath the link: driver and firmware, the NUMA node and PCI place of the NIC
//! and of the node's GPUs, the MTU, ring sizes and channels, and where the NIC's
//! interrupts may run. Sources fill these, each fact with where it came from;
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
    /// ethtool netlink: `ETHTOOL_MSG_RINGS_GET`, `ETHTOOL_MSG_CHANNELS_GET` (what
    /// `ethtool -g` / `-l` print).
    Netlink,
    /// procfs: `/proc/irq/N/effective_affinity_list` / `smp_affinity_list`.
    Procfs,
    /// A tool's printed output turned into facts by `optics import` (docs/import.md).
    Import,
}

/// A value and where it was read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fact<T> {
    /// The value.
    pub value: T,
    /// Where it was read.
    pub from: FactSource,
}

impl<T> Fact<T> {
    /// A value read from sysfs.
    pub fn sysfs(value: T) -> Self {
        Fact { value, from: FactSource::Sysfs }
    }
    /// A value read by an ethtool ioctl.
    pub fn ioctl(value: T) -> Self {
        Fact { value, from: FactSource::Ioctl }
    }
    /// A value read by ethtool netlink.
    pub fn netlink(value: T) -> Self {
        Fact { value, from: FactSource::Netlink }
    }
    /// A value read from procfs.
    pub fn procfs(value: T) -> Self {
        Fact { value, from: FactSource::Procfs }
    }
    pub(crate) fn import(value: T) -> Self {
        Fact { value, from: FactSource::Import }
    }
}

/// Descriptor ring sizes, current and the driver's maximum (`ETHTOOL_A_RINGS_RX`, `_TX`,
/// `_RX_MAX`, `_TX_MAX`; `ethtool -g`'s "Current hardware settings" and "Pre-set
/// maximums"). `None` where the driver reports none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rings {
    /// Rx descriptors now.
    pub rx: Option<u32>,
    /// The most rx descriptors the driver allows.
    pub rx_max: Option<u32>,
    /// Tx descriptors now.
    pub tx: Option<u32>,
    /// The most tx descriptors the driver allows.
    pub tx_max: Option<u32>,
}

/// Queue channels, current and maximum (`ETHTOOL_A_CHANNELS_*_COUNT` / `*_MAX`; `ethtool -l`).
/// A driver that has no channels of a kind leaves both out (`n/a` in `ethtool -l`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Channels {
    /// Rx-only channels now.
    pub rx: Option<u32>,
    /// The most rx-only channels.
    pub rx_max: Option<u32>,
    /// Tx-only channels now.
    pub tx: Option<u32>,
    /// The most tx-only channels.
    pub tx_max: Option<u32>,
    /// Other channels (link interrupts and the like) now.
    pub other: Option<u32>,
    /// The most other channels.
    pub other_max: Option<u32>,
    /// Combined rx/tx channels now.
    pub combined: Option<u32>,
    /// The most combined channels.
    pub combined_max: Option<u32>,
}

impl Channels {
    /// Queues that receive: combined plus rx-only channels.
    pub(crate) fn rx_queues(&self) -> Option<u32> {
        match (self.combined, self.rx) {
            (None, None) => None,
            (c, r) => Some(c.unwrap_or(0) + r.unwrap_or(0)),
        }
    }
}

/// Pause (IEEE 802.3 Annex 31B MAC Control PAUSE) as the port is set to use it
/// (`ETHTOOL_A_PAUSE_AUTONEG`, `_RX`, `_TX`: obey received pause frames, send them) and,
/// with autonegotiation on, what the two link partners' advertisements resolved to
/// (802.3 Table 28B-3; what `ethtool -a` prints as `RX negotiated` / `TX negotiated`).
/// `None` where the source gives none.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PauseSettings {
    /// Pause settings are autonegotiated (`ETHTOOL_A_PAUSE_AUTONEG`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autoneg: Option<bool>,
    /// The port obeys received pause frames (`ETHTOOL_A_PAUSE_RX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx: Option<bool>,
    /// The port sends pause frames (`ETHTOOL_A_PAUSE_TX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx: Option<bool>,
    /// Receive pause as the partners' advertisements resolved (`RX negotiated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_negotiated: Option<bool>,
    /// Transmit pause as the partners' advertisements resolved (`TX negotiated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_negotiated: Option<bool>,
}

/// One interrupt of the NIC function (`/sys/bus/pci/devices/BDF/msi_irqs/N`) and the CPUs
/// it is delivered to (`/proc/irq/N/effective_affinity_list`, else `smp_affinity_list`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Irq {
    /// The interrupt's number.
    pub irq: u32,
    /// The CPUs it is delivered to.
    pub cpus: Vec<u32>,
}

/// A kernel CPU list (`0-3,8,10-11`, Documentation/admin-guide/cgroup-v2.rst "cpuset"
/// format, what `cpulist` and `smp_affinity_list` print) expanded; `None` when malformed.
/// At most `MAX_CPUS` CPUs (the kernel's NR_CPUS ceiling) so a hostile file is bounded:
/// the kernel prints a cpumask with each CPU once (`%*pbl`, lib/vsprintf.c
/// `bitmap_list_string`), so a list naming more than that in all (`0-8191,0-8191,...`)
/// is malformed, not expanded.
pub(crate) fn parse_cpu_list(s: &str) -> Option<Vec<u32>> {
    const MAX_CPUS: u32 = 8192;
    let mut out = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let v = part.trim().parse::<u32>().ok()?;
                (v, v)
            }
        };
        if lo > hi || hi >= MAX_CPUS || out.len() + (hi - lo) as usize >= MAX_CPUS as usize {
            return None;
        }
        out.extend(lo..=hi);
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// A GPU of the node (a PCI display, 3D or processing-accelerator function of NVIDIA,
/// AMD or Intel).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gpu {
    /// The PCI address, or the name the source gives it (`nvidia-smi topo -m`: `GPU0`).
    pub bus_info: String,
    /// PCI vendor and device ID, `10de:2330`; `None` where the source names none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_id: Option<String>,
    /// `None` where the kernel knows no NUMA affinity (`numa_node` -1).
    pub numa_node: Option<i32>,
    /// The device's place below `/sys/devices`: host bridge (`pci0000:17`), each bridge,
    /// the function itself.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pci_path: Vec<String>,
    /// Its distance from the NIC as the source states it (`nvidia-smi topo -m`); `None`:
    /// worked out from the two PCI places ([`PciDistance::between`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) distance: Option<PciDistance>,
}

/// The most GPUs one host's outputs may name (an HGX node has 8, a PCIe expansion chassis a
/// few dozen): every interface of an import holds its own copy of its NIC's GPUs, so a
/// listing of thousands is refused or left out, with a note (docs/host.md).
pub(crate) const MAX_GPUS: usize = 256;

/// PCI vendor IDs of GPU makers (PCI-SIG): NVIDIA, AMD (ATI), Intel.
const GPU_VENDORS: &[u32] = &[0x10de, 0x1002, 0x8086];
/// Class and subclass of a GPU (PCI Code and ID Assignment Spec 1.16 §1.4, §1.19):
/// VGA-compatible 03h/00h, 3D 03h/02h, other display 03h/80h (AMD Instinct MI200),
/// processing accelerator 12h/00h (MI300).
const GPU_CLASSES: &[u32] = &[0x0300, 0x0302, 0x0380, 0x1200];

/// Is a function of `vendor` with class and subclass `class` (`0x0302`, the sysfs `class`
/// attribute without its programming interface) a GPU?
pub fn is_gpu(vendor: u32, class: u32) -> bool {
    GPU_VENDORS.contains(&vendor) && GPU_CLASSES.contains(&class)
}

/// What the host tells of one NIC. `None` = not read (older captures, a source without it).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostFacts {
    /// The kernel driver (`ethtool -i` driver).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<Fact<String>>,
    /// The driver's version (`ethtool -i` version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_version: Option<Fact<String>>,
    /// The NIC's firmware version (`ethtool -i` firmware-version).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub firmware_version: Option<Fact<String>>,
    /// PCI vendor and device ID of the NIC function (`15b3:1021`): NICs of one model share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_id: Option<Fact<String>>,
    /// The NIC function's NUMA node.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub numa_node: Option<Fact<i32>>,
    /// The NIC function's place below `/sys/devices` ([`Gpu::pci_path`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_path: Option<Fact<Vec<String>>>,
    /// The netdev's MTU in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Fact<u32>>,
    /// The node's GPUs; `None` = not looked for, empty = none found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<Fact<Vec<Gpu>>>,
    /// Descriptor ring sizes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rings: Option<Fact<Rings>>,
    /// Queue channels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<Fact<Channels>>,
    /// The CPUs of the NIC's NUMA node (`/sys/devices/system/node/nodeN/cpulist`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_cpus: Option<Fact<Vec<u32>>>,
    /// The NIC function's interrupts and their affinity; `None` = not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub irqs: Option<Fact<Vec<Irq>>>,
    /// Pause settings (`ethtool -a`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<Fact<PauseSettings>>,
    /// What the kernel log said of the NIC function (its link and module, its PCIe
    /// bandwidth, AER's error reports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_log: Option<Fact<super::kernel_log::KernelLog>>,
}

impl HostFacts {
    /// Every fact marked as imported ([`FactSource::Import`]): what a live reader found in
    /// a copy of `/sys` a support bundle kept, not on this machine.
    pub fn imported(self) -> HostFacts {
        fn import<T>(f: Option<Fact<T>>) -> Option<Fact<T>> {
            f.map(|f| Fact::import(f.value))
        }
        // Every field by name: a fact added later must be marked here too.
        let HostFacts {
            driver,
            driver_version,
            firmware_version,
            pci_id,
            numa_node,
            pci_path,
            mtu,
            gpus,
            rings,
            channels,
            node_cpus,
            irqs,
            pause,
            kernel_log,
        } = self;
        HostFacts {
            driver: import(driver),
            driver_version: import(driver_version),
            firmware_version: import(firmware_version),
            pci_id: import(pci_id),
            numa_node: import(numa_node),
            pci_path: import(pci_path),
            mtu: import(mtu),
            gpus: import(gpus),
            rings: import(rings),
            channels: import(channels),
            node_cpus: import(node_cpus),
            irqs: import(irqs),
            pause: import(pause),
            kernel_log: import(kernel_log),
        }
    }

    /// Fills each fact `self` lacks from `other` (a support bundle's files each give some).
    pub(crate) fn fill_from(&mut self, other: &HostFacts) {
        fn fill<T: Clone>(slot: &mut Option<T>, v: &Option<T>) {
            if slot.is_none() {
                slot.clone_from(v);
            }
        }
        fill(&mut self.driver, &other.driver);
        fill(&mut self.driver_version, &other.driver_version);
        fill(&mut self.firmware_version, &other.firmware_version);
        fill(&mut self.pci_id, &other.pci_id);
        fill(&mut self.numa_node, &other.numa_node);
        fill(&mut self.pci_path, &other.pci_path);
        fill(&mut self.mtu, &other.mtu);
        fill(&mut self.gpus, &other.gpus);
        fill(&mut self.rings, &other.rings);
        fill(&mut self.channels, &other.channels);
        fill(&mut self.node_cpus, &other.node_cpus);
        fill(&mut self.irqs, &other.irqs);
        fill(&mut self.pause, &other.pause);
        fill(&mut self.kernel_log, &other.kernel_log);
    }
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
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            PciDistance::Pix => "PIX",
            PciDistance::Pxb => "PXB",
            PciDistance::Phb => "PHB",
            PciDistance::Node => "NODE",
            PciDistance::Sys => "SYS",
        }
    }

    /// What it means, for a sentence.
    pub(crate) fn meaning(self) -> &'static str {
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
    fn cpu_lists_expand_as_the_kernel_prints_them() {
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_cpu_list(""), Some(vec![]));
        assert_eq!(parse_cpu_list("3-1"), None);
        assert_eq!(parse_cpu_list("0-4294967295"), None);
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(parse_cpu_list("0-8191").map(|c| c.len()), Some(8192));
    }

    #[test]
    fn a_cpu_list_naming_a_cpu_twice_past_nr_cpus_is_malformed_not_expanded() {
        // 64 kB of `0-8191,` (the most a sysfs attribute is read) would be 76M CPUs.
        assert_eq!(parse_cpu_list(&"0-8191,".repeat(9362)), None);
        assert_eq!(parse_cpu_list("0-8191,0"), None);
    }

    #[test]
    fn facts_say_where_they_came_from() {
        let h = HostFacts { mtu: Some(Fact::sysfs(9000)), ..HostFacts::default() };
        assert_eq!(serde_json::to_string(&h).unwrap(), r#"{"mtu":{"value":9000,"from":"sysfs"}}"#);
        assert_eq!(serde_json::from_str::<HostFacts>("{}").unwrap(), HostFacts::default());
    }
}
