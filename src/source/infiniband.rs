//! InfiniBand ports from sysfs (Documentation/ABI/stable/sysfs-class-infiniband):
//! `<class>/<hca>/ports/<n>/{state,phys_state,rate,link_layer,counters/*,hw_counters/*}`
//! and the HCA's `fw_ver`, `board_id`, `node_guid` and `device` link (its PCI function).
//!
//! An IB port has no Ethernet netdev with FEC statistics or module EEPROM (the mlx5 IPoIB
//! netdev implements neither ethtool op), so it is its own interface, named `mlx5_0/1`
//! (`<hca>/<port>`; a netdev name can never hold a `/`). [`IbTree`] reads a tree laid out
//! as the kernel's (live `/sys/class/infiniband`, or a copy a support bundle kept);
//! [`InfinibandSource`] samples its IB ports through the same [`Source`] trait as netdevs.

use super::sysfs::Sysfs;
use super::{IoCounts, PathsUsed, Result, Source, SourceError};
use crate::counters::ib::{IbRate, IbSample};
use crate::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use crate::device::host::{Fact, HostFacts};
use crate::device::{DeviceIdentity, IbPort};
use crate::module::PageRequest;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Most entries read from one `counters/` or `hw_counters/` directory: the kernel shows 17
/// `PortCounters` files and mlx5 some 60 hardware counters; a directory with more is not one.
const MAX_COUNTER_FILES: usize = 512;
/// Longest attribute read: a counter is at most 20 digits, `rate` and `fw_ver` a few dozen bytes.
const MAX_ATTR_BYTES: u64 = 4096;

/// A tree of RDMA devices laid out as `/sys/class/infiniband`.
#[derive(Clone, Debug)]
pub struct IbTree {
    /// The directory holding `<hca>/ports/<n>`.
    class: PathBuf,
    /// Resolves an HCA's `device` link to its PCI function (live trees).
    sysfs: Sysfs,
}

/// `mlx5_0/1` -> (`mlx5_0`, 1); `None` for anything else (and for names that could walk
/// out of the tree: an RDMA device name holds no `/` and is never `.` or `..`).
pub fn parse_port_name(name: &str) -> Option<(&str, u32)> {
    let (hca, port) = name.split_once('/')?;
    let ok = !hca.is_empty() && hca != "." && hca != ".." && !port.starts_with('+');
    ok.then_some(())?;
    Some((hca, port.parse().ok()?))
}

impl IbTree {
    /// `root` contains `sys/` ("/" on a live system), as [`Sysfs::new`].
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        IbTree { class: root.join("sys/class/infiniband"), sysfs: Sysfs::new(root) }
    }

    /// The running system's tree (`/`).
    pub fn system() -> Self {
        IbTree::new("/")
    }

    /// A copied `class/infiniband` directory (a support bundle's): `class` holds `<hca>/ports/<n>`.
    pub fn at_class(class: impl Into<PathBuf>) -> Self {
        IbTree { class: class.into(), sysfs: Sysfs::new("/nonexistent") }
    }

    /// Every port of every RDMA device, as `(hca, port)`, sorted (numerically by port).
    pub(crate) fn all_ports(&self) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        for hca in sorted_names(&self.class) {
            let mut ports: Vec<u32> = sorted_names(&self.class.join(&hca).join("ports")).iter().filter_map(|p| p.parse().ok()).collect();
            ports.sort_unstable();
            out.extend(ports.into_iter().map(|p| (hca.clone(), p)));
        }
        out
    }

    /// The ports whose link layer is InfiniBand, named `hca/port`. RoCE ports (link layer
    /// Ethernet) are read through their netdev instead.
    pub fn infiniband_ports(&self) -> Vec<String> {
        let ib = |(hca, port): &(String, u32)| read_attr(&self.port_dir(hca, *port).join("link_layer")).is_some_and(|l| is_ib(&l));
        self.all_ports().into_iter().filter(ib).map(|(hca, port)| format!("{hca}/{port}")).collect()
    }

    /// True when `name` is `hca/port` of a port in this tree.
    pub fn has_port(&self, name: &str) -> bool {
        parse_port_name(name).is_some_and(|(hca, port)| self.port_dir(hca, port).is_dir())
    }

    fn port_dir(&self, hca: &str, port: u32) -> PathBuf {
        self.class.join(hca).join("ports").join(port.to_string())
    }

    /// The port directory of `name`, or `NoDevice`.
    fn existing(&self, name: &str, what: &str) -> Result<(String, u32, PathBuf)> {
        let no_device = || SourceError::NoDevice {
            what: what.to_string(),
            iface: name.to_string(),
            message: Some(format!("no InfiniBand port {name} under {}", self.class.display())),
        };
        let (hca, port) = parse_port_name(name).ok_or_else(no_device)?;
        let dir = self.port_dir(hca, port);
        if !dir.is_dir() {
            return Err(no_device());
        }
        Ok((hca.to_string(), port, dir))
    }

    /// What the port is: its HCA's PCI function (driver, address, PCIe link, so the PCIe
    /// check applies as to a netdev), the host beneath it as a netdev's (NUMA node, PCI
    /// place, the node's GPUs, and the HCA's `fw_ver` as its firmware, so the NUMA and
    /// firmware checks apply too) and the port itself.
    pub fn identity(&self, name: &str) -> Result<DeviceIdentity> {
        let (hca, port, dir) = self.existing(name, "identity")?;
        let hca_dir = self.class.join(&hca);
        let device = hca_dir.join("device");
        let ib = IbPort {
            hca: hca.clone(),
            port,
            link_layer: read_attr(&dir.join("link_layer")),
            rate: read_attr(&dir.join("rate")),
            fw_ver: read_attr(&hca_dir.join("fw_ver")),
            board_id: read_attr(&hca_dir.join("board_id")),
            node_guid: read_attr(&hca_dir.join("node_guid")),
            netdev: self.netdev(&hca_dir, &dir, port),
        };
        let linked = fs::symlink_metadata(&device).is_ok_and(|m| m.file_type().is_symlink());
        let mut host = if linked { self.sysfs.host_facts_at(&device) } else { HostFacts::default() };
        host.firmware_version = ib.fw_ver.clone().map(Fact::sysfs);
        Ok(DeviceIdentity {
            driver: linked.then(|| self.sysfs.driver_at(&device)).flatten(),
            bus_info: linked.then(|| self.sysfs.bus_info_at(&device)).flatten(),
            pci: linked.then(|| self.sysfs.pci_link_at(&device)).flatten(),
            port: None,
            host: Some(host),
            ib: Some(ib),
            neighbor: None,
        })
    }

    /// The port's netdev: RoCE's GID 0 netdev (`gid_attrs/ndevs/0`), else the HCA function's
    /// netdev whose `dev_port` is this port's (IPoIB; `dev_port` counts from 0), else its
    /// only one.
    fn netdev(&self, hca_dir: &Path, port_dir: &Path, port: u32) -> Option<String> {
        if let Some(n) = read_attr(&port_dir.join("gid_attrs/ndevs/0")) {
            return Some(n);
        }
        let net = hca_dir.join("device/net");
        let names = sorted_names(&net);
        let dev_port = port.checked_sub(1);
        let by_port = names.iter().find(|n| read_attr(&net.join(n).join("dev_port")).and_then(|p| p.parse::<u32>().ok()) == dev_port);
        by_port.cloned().or_else(|| (names.len() == 1).then(|| names[0].clone()))
    }

    /// Width and speed from `rate`.
    pub fn link_info(&self, name: &str) -> Result<LinkInfo> {
        let (_, _, dir) = self.existing(name, "link info")?;
        let text = read_attr(&dir.join("rate"))
            .ok_or_else(|| SourceError::Unavailable { what: "link info".into(), detail: format!("{name}: no readable rate") })?;
        IbRate::parse(&text).map(|r| r.link_info()).ok_or_else(|| SourceError::Malformed {
            what: "link info".into(),
            detail: format!("{name}: rate {text:?} is not \"N Gb/sec (WX SPEED)\""),
        })
    }

    /// State, physical state and every counter, read now.
    pub fn sample(&self, name: &str) -> Result<IbSample> {
        let (_, _, dir) = self.existing(name, "InfiniBand counters")?;
        let counters = read_counters(&dir.join("counters"));
        if counters.is_empty() {
            return Err(SourceError::Unavailable {
                what: "InfiniBand counters".into(),
                detail: format!("{name}: no readable counters/ (the HCA answers no PMA PortCounters)"),
            });
        }
        Ok(IbSample {
            state: read_attr(&dir.join("state")),
            phys_state: read_attr(&dir.join("phys_state")),
            counters,
            hw_counters: read_counters(&dir.join("hw_counters")),
            disagreements: Vec::new(),
        })
    }
}

fn is_ib(link_layer: &str) -> bool {
    link_layer.trim().eq_ignore_ascii_case("infiniband")
}

/// Directory entry names, sorted; none when unreadable.
fn sorted_names(dir: &Path) -> Vec<String> {
    let Ok(rd) = fs::read_dir(dir) else { return Vec::new() };
    let mut names: Vec<String> = rd.filter_map(|e| e.ok()?.file_name().into_string().ok()).take(MAX_COUNTER_FILES).collect();
    names.sort();
    names
}

/// One attribute, trimmed; `None` when missing, unreadable, not UTF-8, empty or too long.
fn read_attr(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut text = String::new();
    fs::File::open(path).ok()?.take(MAX_ATTR_BYTES).read_to_string(&mut text).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// Every file of `dir` that holds one unsigned number (`lifespan` is a setting, not a counter).
fn read_counters(dir: &Path) -> BTreeMap<String, u64> {
    sorted_names(dir)
        .into_iter()
        .filter(|n| n != "lifespan")
        .filter_map(|n| {
            let v = read_attr(&dir.join(&n))?.parse().ok()?;
            Some((n, v))
        })
        .collect()
}

/// A [`Source`] for InfiniBand ports named `hca/port`.
pub struct InfinibandSource {
    tree: IbTree,
    io: IoCounts,
}

impl InfinibandSource {
    /// A source over `tree`'s InfiniBand ports.
    pub fn new(tree: IbTree) -> Self {
        InfinibandSource { tree, io: IoCounts::default() }
    }

    /// A source over the running system's InfiniBand ports.
    pub fn system() -> Self {
        Self::new(IbTree::system())
    }

    fn not_supported(what: &str, why: &str) -> SourceError {
        SourceError::NotSupported { what: what.to_string(), driver: Some("InfiniBand sysfs".into()), message: Some(why.to_string()) }
    }
}

impl Source for InfinibandSource {
    fn interfaces(&mut self) -> Result<Vec<String>> {
        Ok(self.tree.infiniband_ports())
    }

    fn identity(&mut self, iface: &str) -> Result<DeviceIdentity> {
        self.tree.identity(iface)
    }

    fn link_info(&mut self, iface: &str) -> Result<LinkInfo> {
        self.tree.link_info(iface)
    }

    fn link_state(&mut self, iface: &str) -> Result<LinkState> {
        let (_, _, dir) = self.tree.existing(iface, "link state")?;
        self.io.requests += 1;
        let up = IbSample { state: read_attr(&dir.join("state")), ..Default::default() }.link_up();
        Ok(LinkState { up, ..Default::default() })
    }

    fn fec(&mut self, iface: &str) -> Result<FecStats> {
        self.tree.existing(iface, "FEC statistics")?;
        Err(Self::not_supported("FEC statistics", "an InfiniBand port has no ethtool FEC statistics; mlxlink -c gives them"))
    }

    fn driver_stats(&mut self, iface: &str) -> Result<DriverStats> {
        self.tree.existing(iface, "driver statistics")?;
        Err(Self::not_supported("driver statistics", "an InfiniBand port's counters are its PortCounters"))
    }

    fn read_eeprom(&mut self, iface: &str, _req: PageRequest) -> Result<Vec<u8>> {
        self.tree.existing(iface, "module EEPROM")?;
        Err(Self::not_supported("module EEPROM", "sysfs gives no module EEPROM for an InfiniBand port; import `mlxlink -m` output for it"))
    }

    fn infiniband(&mut self, iface: &str) -> Result<IbSample> {
        self.io.requests += 1;
        self.tree.sample(iface)
    }

    fn paths(&self, _iface: &str) -> PathsUsed {
        let sysfs = Some("sysfs".to_string());
        PathsUsed {
            module: None,
            link: sysfs.clone(),
            fec: None,
            driver_stats: sysfs,
            unavailable: vec!["module EEPROM and FEC statistics: an InfiniBand port has neither in sysfs (mlxlink gives both)".into()],
        }
    }

    fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_names() {
        assert_eq!(parse_port_name("mlx5_0/1"), Some(("mlx5_0", 1)));
        for bad in ["mlx5_0", "/1", "../1", "./1", "mlx5_0/x", "mlx5_0/+1", "mlx5_0/1/2", "eth0"] {
            assert_eq!(parse_port_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_missing_tree_has_no_ports() {
        let t = IbTree::new("/nonexistent/optics-ib-root");
        assert!(t.infiniband_ports().is_empty());
        assert!(t.identity("mlx5_0/1").unwrap_err().is_no_device());
        assert!(t.sample("../../etc/1").unwrap_err().is_no_device());
    }
}
