//! sysfs: driver, bus address, PCIe link and port identity of a netdev, and the host
//! beneath it (NUMA node and PCI place of the NIC and of the node's GPUs, MTU).
//!
//! Everything here is best effort: a missing file, an unreadable one (older kernels
//! answer EOPNOTSUPP/EINVAL on read for attributes the driver lacks) or odd contents
//! all give `None`, never an error or a panic. The root is injectable so tests use
//! fixture trees laid out like `/sys`, and `optics import` reads the copy a support bundle
//! kept (`Sysfs::copy_at`): such a copy holds some attribute files and the links on their
//! way, not every link the kernel shows, so a device is also found by its PCI address.

use crate::device::host::{parse_cpu_list, Fact, Gpu, HostFacts, Irq};
use crate::device::{PciAddress, PciLink, PortIdentity};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The most interrupts read of one function: an mlx5 function has one per channel plus a
/// few (at most 2048 MSI-X vectors, PCIe Base 6.0 §7.7.2 Table Size); the bound keeps a
/// hostile tree finite.
const MAX_IRQS: usize = 4096;

/// The most CPUs a function's interrupts may list between them (1M, 4 MB): its most
/// interrupts ([`MAX_IRQS`]) on 256 CPUs each. A copied tree whose lists name more (4096
/// interrupts on all of 8192 CPUs would be 134 MB) has its interrupts not read, not held.
const MAX_IRQ_CPUS: usize = 1 << 20;

/// The most entries `bus/pci/devices` is read for: a PCI segment has 65,536 functions
/// (256 buses of 32 devices of 8).
pub(crate) const MAX_PCI_FUNCTIONS: usize = 1 << 16;

/// A view of `/sys` (or a fixture tree laid out the same way under `root`).
#[derive(Clone, Debug)]
pub struct Sysfs {
    /// The directory laid out as `/sys`.
    sys: PathBuf,
    /// The directory laid out as `/proc` (for `irq/N`).
    proc: PathBuf,
    /// A copy's GPUs, looked for once: a copy does not change while it is read, and every
    /// netdev of it would scan `bus/pci/devices` again (20,000 functions under 30 netdevs
    /// took 260 s). `None` for the live tree, where a GPU may be hot-plugged between reads.
    copy_gpus: Option<std::sync::OnceLock<Option<Vec<Gpu>>>>,
}

impl Sysfs {
    /// `root` is the directory that contains `sys/` ("/" on a live system).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        Sysfs { sys: root.join("sys"), proc: root.join("proc"), copy_gpus: None }
    }
    /// A copy of `/sys` at `sys` (whatever its name), with `proc/` beside it if the copy
    /// kept one.
    pub(crate) fn copy_at(sys: impl Into<PathBuf>) -> Self {
        let sys = sys.into();
        let proc = sys.parent().map_or_else(|| PathBuf::from("proc"), |p| p.join("proc"));
        Sysfs { sys, proc, copy_gpus: Some(std::sync::OnceLock::new()) }
    }
    /// The running system's tree (`/`).
    pub fn system() -> Self {
        Sysfs::new("/")
    }
    /// Every netdev in `sys/class/net`, sorted.
    pub fn interfaces(&self) -> Vec<String> {
        let Ok(dir) = fs::read_dir(self.class_net()) else {
            return Vec::new();
        };
        let mut names: Vec<String> = dir
            .filter_map(|e| e.ok())
            // Plain files live here too (`bonding_masters` when bonding is loaded);
            // netdevs are (links to) directories.
            .filter(|e| fs::metadata(e.path()).is_ok_and(|m| m.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }
    /// True when netdev `iface` exists.
    pub fn exists(&self, iface: &str) -> bool {
        valid_name(iface) && self.netdev(iface).is_dir()
    }
    /// True for netdevs with no `device` link (veth, bridge, loopback, ...).
    pub fn is_virtual(&self, iface: &str) -> bool {
        !valid_name(iface) || fs::symlink_metadata(self.netdev(iface).join("device")).is_err()
    }
    /// The carrier as the kernel keeps it (`netif_carrier_ok`, what `ethtool_op_get_link`
    /// answers for most drivers): `carrier` reads 1 or 0 while the device is up and fails
    /// (EINVAL) while it is administratively down (net/core/net-sysfs.c `carrier_show`),
    /// when IFF_UP (bit 0 of `flags`) is clear and the link is down.
    pub(crate) fn carrier(&self, iface: &str) -> Option<bool> {
        if !valid_name(iface) {
            return None;
        }
        match self.read_attr(&self.netdev(iface).join("carrier")).as_deref() {
            Some("1") => Some(true),
            Some("0") => Some(false),
            _ => {
                let flags = self.read_attr(&self.netdev(iface).join("flags"))?;
                let flags = u32::from_str_radix(flags.trim_start_matches("0x"), 16).ok()?;
                (flags & 1 == 0).then_some(false)
            }
        }
    }
    /// One attribute of netdev `iface` (`operstate`, `speed`), trimmed.
    pub(crate) fn netdev_attr(&self, iface: &str, attr: &str) -> Option<String> {
        valid_name(iface).then(|| self.read_attr(&self.netdev(iface).join(attr))).flatten()
    }
    /// The ifindex of netdev `iface`.
    pub fn ifindex(&self, iface: &str) -> Option<u32> {
        self.read_attr(&self.netdev(iface).join("ifindex"))?.parse().ok()
    }
    /// The name of the netdev with `ifindex`.
    pub fn name_for_ifindex(&self, ifindex: u32) -> Option<String> {
        self.interfaces().into_iter().find(|name| self.ifindex(name) == Some(ifindex))
    }
    /// Driver name from the `device/driver` link.
    pub fn driver(&self, iface: &str) -> Option<String> {
        self.driver_at(&self.device_link(iface)?)
    }
    /// Bus address (PCI BDF) from the `device` link. virtio_net reports the PCI function
    /// that carries the virtio device, as its GDRVINFO does (`virtio_bus_name()` is the
    /// parent's name), so the same rule applies here.
    pub fn bus_info(&self, iface: &str) -> Option<String> {
        self.bus_info_at(&self.device_link(iface)?)
    }
    /// [`Self::bus_info`] of the device a `device` link (at `device`) points to.
    pub fn bus_info_at(&self, device: &Path) -> Option<String> {
        match self.pci_function(device) {
            Some(pci) => basename(&pci),
            None => self.device_name(device),
        }
    }
    /// Driver name of the device a `device` link (at `device`) points to: its `driver`
    /// link; in a copy, that of the PCI function found by its address, else (a copy that
    /// kept the function's `uevent` but not the link) the `DRIVER=` line of its `uevent`
    /// (drivers/base/core.c `dev_uevent`).
    pub(crate) fn driver_at(&self, device: &Path) -> Option<String> {
        link_basename(&device.join("driver")).or_else(|| {
            let dev = self.pci_function(device)?;
            link_basename(&dev.join("driver")).or_else(|| {
                let uevent = self.read_attr(&dev.join("uevent"))?;
                uevent.lines().find_map(|l| l.strip_prefix("DRIVER=")).map(str::to_string)
            })
        })
    }
    /// PCIe link attributes; `None` when the device is not a PCIe function.
    pub fn pci_link(&self, iface: &str) -> Option<PciLink> {
        self.pci_link_at(&self.device_link(iface)?)
    }
    /// [`Self::pci_link`] of the device a `device` link (at `device`) points to (an RDMA
    /// device's `device`, for one).
    pub fn pci_link_at(&self, device: &Path) -> Option<PciLink> {
        let pci = self.pci_function(device)?;
        let link = PciLink {
            current_link_speed: self.read_attr(&pci.join("current_link_speed")),
            current_link_width: self.read_attr(&pci.join("current_link_width")).and_then(|s| s.parse().ok()),
            max_link_speed: self.read_attr(&pci.join("max_link_speed")),
            max_link_width: self.read_attr(&pci.join("max_link_width")).and_then(|s| s.parse().ok()),
            // `-1` is the kernel's "no NUMA affinity known".
            numa_node: self.read_attr(&pci.join("numa_node")).and_then(|s| s.parse().ok()).filter(|n: &i32| *n >= 0),
        };
        // The link attributes exist only for PCIe functions (pci-sysfs.c,
        // pcie_dev_attrs_are_visible); numa_node alone does not make a PCIe link.
        let any_link = link.current_link_speed.is_some()
            || link.current_link_width.is_some()
            || link.max_link_speed.is_some()
            || link.max_link_width.is_some();
        any_link.then_some(link)
    }
    /// Port identity; `None` when none of the attributes exist.
    pub fn port_identity(&self, iface: &str) -> Option<PortIdentity> {
        if !valid_name(iface) {
            return None;
        }
        let dir = self.netdev(iface);
        // Since 6.16 phys_port_name/phys_switch_id are absent without driver support;
        // before, they exist and reading them fails with EOPNOTSUPP. Both mean "none".
        let port = PortIdentity {
            phys_port_name: self.read_attr(&dir.join("phys_port_name")),
            dev_port: self.read_attr(&dir.join("dev_port")).and_then(|s| s.parse().ok()),
            phys_switch_id: self.read_attr(&dir.join("phys_switch_id")),
        };
        (port != PortIdentity::default()).then_some(port)
    }

    /// What sysfs holds of the host beneath `iface`: `Self::host_facts_at` its `device`
    /// link, and its MTU. `None` for a name no netdev has. Driver and firmware versions are
    /// not in a netdev's sysfs (GDRVINFO has them).
    pub fn host_facts(&self, iface: &str) -> Option<HostFacts> {
        if !self.exists(iface) {
            return None;
        }
        let mut h = self.device_link(iface).map(|d| self.host_facts_at(&d)).unwrap_or_default();
        h.mtu = self.read_attr(&self.netdev(iface).join("mtu")).and_then(|s| s.parse().ok()).map(Fact::sysfs);
        Some(h)
    }

    /// What sysfs holds of the host beneath the device a `device` link (at `device`) points
    /// to (a netdev's, an RDMA device's): driver, PCI ID, NUMA node and place of its PCI
    /// function, and (for a PCI function) the node's GPUs.
    pub(crate) fn host_facts_at(&self, device: &Path) -> HostFacts {
        let pci = self.pci_function(device);
        let pci = pci.as_deref();
        let numa_node = pci.and_then(|p| self.numa_node(p));
        HostFacts {
            driver: self.driver_at(device).map(Fact::sysfs),
            pci_id: pci.and_then(|p| self.pci_id(p)).map(Fact::sysfs),
            numa_node: numa_node.map(Fact::sysfs),
            node_cpus: numa_node.and_then(|n| self.node_cpus(n)).map(Fact::sysfs),
            irqs: pci.and_then(|p| self.irqs(p)).map(Fact::procfs),
            pci_path: pci.and_then(|p| self.pci_path(p)).map(Fact::sysfs),
            gpus: pci.and_then(|_| self.gpus()).map(Fact::sysfs),
            ..HostFacts::default()
        }
    }

    /// The CPUs of NUMA node `node` (`devices/system/node/nodeN/cpulist`,
    /// Documentation/ABI/stable/sysfs-devices-node).
    pub(crate) fn node_cpus(&self, node: i32) -> Option<Vec<u32>> {
        parse_cpu_list(&self.read_attr(&self.sys.join(format!("devices/system/node/node{node}/cpulist")))?)
    }

    /// The MSI/MSI-X interrupts of a PCI function (`msi_irqs/N`,
    /// Documentation/ABI/testing/sysfs-bus-pci) with the CPUs each is delivered to
    /// (`/proc/irq/N/effective_affinity_list`, Linux 4.13+: where the interrupt controller
    /// actually sends it; else `smp_affinity_list`, the CPUs allowed;
    /// Documentation/core-api/irq/irq-affinity.rst), by number; an IRQ whose affinity
    /// cannot be read is left out. `None` when the function
    /// has no `msi_irqs` (legacy INTx, or not a PCI function). At most [`MAX_IRQS`].
    fn irqs(&self, pci: &Path) -> Option<Vec<Irq>> {
        let dir = fs::read_dir(pci.join("msi_irqs")).ok()?;
        let mut numbers: Vec<u32> = dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok()).take(MAX_IRQS).collect();
        numbers.sort_unstable();
        let proc_irq = self.proc.join("irq");
        let (mut irqs, mut listed) = (Vec::new(), 0usize);
        for irq in numbers {
            let dir = proc_irq.join(irq.to_string());
            let Some(cpus) = self
                .read_attr(&dir.join("effective_affinity_list"))
                .or_else(|| self.read_attr(&dir.join("smp_affinity_list")))
                .and_then(|list| parse_cpu_list(&list))
            else {
                continue;
            };
            listed += cpus.len();
            if listed > MAX_IRQ_CPUS {
                return None;
            }
            irqs.push(Irq { irq, cpus });
        }
        Some(irqs)
    }

    /// The node's GPUs (`bus/pci/devices`), by bus address; `None` when there is no
    /// `bus/pci/devices` to look in (a copy that did not keep it), or when it holds more
    /// than [`MAX_GPUS`](crate::device::host::MAX_GPUS) GPUs or [`MAX_PCI_FUNCTIONS`]
    /// entries (no host's: GPU locality is then not checked, and says so).
    pub(crate) fn gpus(&self) -> Option<Vec<Gpu>> {
        match &self.copy_gpus {
            Some(once) => once.get_or_init(|| self.read_gpus()).clone(),
            None => self.read_gpus(),
        }
    }

    fn read_gpus(&self) -> Option<Vec<Gpu>> {
        let dir = fs::read_dir(self.sys.join("bus/pci/devices")).ok()?;
        let mut gpus: Vec<Gpu> = Vec::new();
        for (i, e) in dir.filter_map(|e| e.ok()).enumerate() {
            if i == MAX_PCI_FUNCTIONS {
                return None;
            }
            gpus.extend(self.gpu(&e.path()));
            if gpus.len() > crate::device::host::MAX_GPUS {
                return None;
            }
        }
        gpus.sort_by(|a, b| a.bus_info.cmp(&b.bus_info));
        Some(gpus)
    }

    /// The PCI function behind `link` (an entry of `bus/pci/devices`), if it is a GPU. Its
    /// place is its directory's below `devices`; unknown (empty) in a copy that kept the
    /// entry as a directory of its own.
    fn gpu(&self, link: &Path) -> Option<Gpu> {
        let dev = self.resolve(link)?;
        let class = self.hex_attr(&dev.join("class"))?;
        let vendor = self.hex_attr(&dev.join("vendor"))?;
        if !crate::device::host::is_gpu(vendor, class >> 8) {
            return None;
        }
        Some(Gpu {
            bus_info: basename(link)?,
            pci_id: Some(self.pci_id(&dev)?),
            numa_node: self.numa_node(&dev),
            pci_path: self.pci_path(&dev).unwrap_or_default(),
            distance: None,
        })
    }

    /// `vendor:device` of a PCI function, lower-case hex (`15b3:1021`).
    fn pci_id(&self, dev: &Path) -> Option<String> {
        let vendor = self.hex_attr(&dev.join("vendor"))?;
        let device = self.hex_attr(&dev.join("device"))?;
        Some(format!("{vendor:04x}:{device:04x}"))
    }

    /// `numa_node` of a PCI function; `-1` is the kernel's "no NUMA affinity known".
    fn numa_node(&self, dev: &Path) -> Option<i32> {
        self.read_attr(&dev.join("numa_node")).and_then(|s| s.parse().ok()).filter(|n: &i32| *n >= 0)
    }

    /// A canonical device directory as its components below `sys/devices`: the host bridge
    /// (`pci0000:16`), each bridge, the function.
    fn pci_path(&self, dev: &Path) -> Option<Vec<String>> {
        let devices = fs::canonicalize(self.sys.join("devices")).ok()?;
        let rel = dev.strip_prefix(devices).ok()?;
        let parts: Option<Vec<String>> = rel.components().map(|c| c.as_os_str().to_str().map(str::to_string)).collect();
        parts.filter(|p| !p.is_empty())
    }

    /// A `0x`-prefixed hex attribute (`vendor`, `device`, `class`).
    fn hex_attr(&self, path: &Path) -> Option<u32> {
        u32::from_str_radix(self.read_attr(path)?.strip_prefix("0x")?, 16).ok()
    }

    fn class_net(&self) -> PathBuf {
        self.sys.join("class/net")
    }
    fn netdev(&self, iface: &str) -> PathBuf {
        self.class_net().join(iface)
    }
    /// `sys/class/net/IF/device`, when the netdev has one (physical devices only).
    fn device_link(&self, iface: &str) -> Option<PathBuf> {
        (!self.is_virtual(iface)).then(|| self.netdev(iface).join("device"))
    }
    /// The PCI function directory behind a `device` link: the device itself when it sits
    /// on the PCI bus, or its parent when it is a virtio device on a virtio-pci transport.
    /// In a copy: a directory named as a PCI function that kept no `subsystem` link (a
    /// sosreport copies the attribute files it names and the links on their way, no more),
    /// else the copy's `bus/pci/devices` entry of the address the link (or a file in its
    /// place) names, when the link's own target was not copied.
    fn pci_function(&self, device: &Path) -> Option<PathBuf> {
        if let Some(dev) = self.resolve(device).filter(|d| d.is_dir()) {
            return match link_basename(&dev.join("subsystem")).as_deref() {
                Some("pci") => Some(dev),
                Some("virtio") => {
                    let parent = dev.parent()?;
                    (link_basename(&parent.join("subsystem")).as_deref() == Some("pci")).then(|| parent.to_path_buf())
                }
                Some(_) => None,
                None => basename(&dev).filter(|n| PciAddress::parse(n).is_some()).map(|_| dev),
            };
        }
        let name = self.device_name(device).filter(|n| PciAddress::parse(n).is_some())?;
        self.resolve(&self.sys.join("bus/pci/devices").join(name)).filter(|d| d.is_dir())
    }
    /// `path` with every link followed, when it stays inside the tree: a link in a copy that
    /// points out of it (to the `/sys` of the machine reading it) is not followed.
    fn resolve(&self, path: &Path) -> Option<PathBuf> {
        let path = fs::canonicalize(path).ok()?;
        path.starts_with(fs::canonicalize(&self.sys).ok()?).then_some(path)
    }
    /// The name of the device a `device` entry stands for: the last component of the
    /// link's target (whether or not the target is there), or of the path a plain file in
    /// its place holds (a copy that wrote `readlink -f` of the link).
    fn device_name(&self, device: &Path) -> Option<String> {
        link_basename(device).or_else(|| {
            let meta = fs::symlink_metadata(device).ok()?;
            let text = meta.is_file().then(|| self.read_attr(device)).flatten()?;
            basename(Path::new(&text))
        })
    }
    /// One attribute, trimmed; `None` when missing, unreadable, not UTF-8, empty or longer
    /// than [`MAX_ATTR_BYTES`].
    fn read_attr(&self, path: &Path) -> Option<String> {
        let mut bytes = Vec::new();
        fs::File::open(path).ok()?.take(MAX_ATTR_BYTES + 1).read_to_end(&mut bytes).ok()?;
        if bytes.len() as u64 > MAX_ATTR_BYTES {
            return None;
        }
        let text = String::from_utf8(bytes).ok()?;
        let text = text.trim();
        (!text.is_empty()).then(|| text.to_string())
    }
}

/// The most a sysfs attribute can hold: the kernel hands a `show` method one page to fill
/// (fs/sysfs/file.c, sysfs_emit), and the largest page Linux uses is 64 KiB (arm64,
/// ppc64). The root is injectable, so a longer file (or an endless one, `/dev/zero` linked
/// into a copied tree) is no attribute: it is read no further than this.
const MAX_ATTR_BYTES: u64 = 64 * 1024;

/// A netdev name can never contain `/` or be `.`/`..` (dev_valid_name); refusing them
/// keeps a user-typed name from walking out of `sys/class/net`.
fn valid_name(iface: &str) -> bool {
    !iface.is_empty() && iface != "." && iface != ".." && !iface.contains('/')
}

fn basename(path: &Path) -> Option<String> {
    path.file_name()?.to_str().map(str::to_string)
}

/// Last component of a symlink's target (`../../../bus/pci/drivers/mlx5_core` -> `mlx5_core`).
fn link_basename(link: &Path) -> Option<String> {
    basename(&fs::read_link(link).ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// `carrier` 1/0 while up; unreadable (EINVAL) while administratively down, when
    /// `flags` (hex, IFF_UP = 0x1) says down; neither readable: unknown.
    #[test]
    fn carrier_from_its_attribute_else_the_up_flag() {
        let tmp = tempfile::tempdir().unwrap();
        let net = tmp.path().join("sys/class/net");
        // (name, carrier, flags, want); "" = the attribute is not there (or unreadable).
        let cases = [
            ("up1", "1\n", "0x1003\n", Some(true)),
            ("up0", "0\n", "0x1003\n", Some(false)),
            ("admindown", "", "0x1002\n", Some(false)),
            ("upnocarrier", "", "0x1003\n", None),
            ("bare", "", "", None),
        ];
        for (name, carrier, flags, want) in cases {
            let dir = net.join(name);
            fs::create_dir_all(&dir).unwrap();
            for (attr, text) in [("carrier", carrier), ("flags", flags)] {
                if !text.is_empty() {
                    fs::write(dir.join(attr), text).unwrap();
                }
            }
            assert_eq!(Sysfs::new(tmp.path()).carrier(name), want, "{name}");
        }
        assert_eq!(Sysfs::new(tmp.path()).carrier("../up1"), None);
    }

    /// A netdev whose attributes hold odd contents: none of them may panic or parse.
    #[test]
    fn odd_contents_are_none() {
        let tmp = tempfile::tempdir().unwrap();
        let pci = tmp.path().join("sys/devices/pci0000:00/0000:05:00.0");
        let net = pci.join("net/eth9");
        fs::create_dir_all(&net).unwrap();
        fs::create_dir_all(tmp.path().join("sys/class/net")).unwrap();
        symlink("../../devices/pci0000:00/0000:05:00.0/net/eth9", tmp.path().join("sys/class/net/eth9")).unwrap();
        symlink("../../../0000:05:00.0", net.join("device")).unwrap();
        symlink("../../../bus/pci", pci.join("subsystem")).unwrap();
        fs::write(net.join("ifindex"), "seven\n").unwrap();
        fs::write(net.join("dev_port"), "-3\n").unwrap();
        fs::write(net.join("phys_port_name"), "\n").unwrap();
        fs::write(net.join("phys_switch_id"), [0xff, 0xfe, b'\n']).unwrap();
        fs::write(pci.join("current_link_speed"), "Unknown\n").unwrap();
        fs::write(pci.join("current_link_width"), "x16\n").unwrap();
        fs::write(pci.join("max_link_width"), "99999999999\n").unwrap();
        fs::write(pci.join("numa_node"), "\n").unwrap();

        let s = Sysfs::new(tmp.path());
        assert_eq!(s.interfaces(), vec!["eth9".to_string()]);
        assert!(!s.is_virtual("eth9"));
        assert_eq!(s.ifindex("eth9"), None);
        assert_eq!(s.driver("eth9"), None, "no driver link: unbound device");
        assert_eq!(s.bus_info("eth9").as_deref(), Some("0000:05:00.0"));
        assert_eq!(s.port_identity("eth9"), None);
        // "Unknown" is what pci_speed_string() prints for a link it cannot name: kept verbatim.
        assert_eq!(s.pci_link("eth9"), Some(PciLink { current_link_speed: Some("Unknown".into()), ..PciLink::default() }));
    }

    #[test]
    fn interrupts_listing_more_cpus_than_a_host_delivers_to_are_not_read() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Sysfs::new(tmp.path());
        let pci = tmp.path().join("sys/devices/pci0000:00/0000:05:00.0");
        fs::create_dir_all(pci.join("msi_irqs")).unwrap();
        let irq = |n: usize, cpus: &str| {
            fs::write(pci.join("msi_irqs").join(n.to_string()), "msix\n").unwrap();
            let dir = tmp.path().join("proc/irq").join(n.to_string());
            fs::create_dir_all(&dir).unwrap();
            fs::write(dir.join("effective_affinity_list"), cpus).unwrap();
        };
        irq(1, "3\n");
        assert_eq!(s.irqs(&pci), Some(vec![Irq { irq: 1, cpus: vec![3] }]));
        // 129 interrupts on all 8192 CPUs: past the 1M a function's interrupts may list.
        for n in 2..=129 {
            irq(n, "0-8191\n");
        }
        assert_eq!(s.irqs(&pci), None);
    }

    /// A copy listing more GPUs than a host holds gives none (GPU locality not checked),
    /// and a copy's GPUs are looked for once: they are the same for each of its netdevs.
    #[test]
    fn a_tree_of_more_gpus_than_a_host_holds_gives_none_and_a_copy_is_read_once() {
        let tmp = tempfile::tempdir().unwrap();
        let sys = tmp.path().join("sys");
        let gpu = |i: usize| {
            let addr = format!("0000:{:02x}:{:02x}.0", 1 + i / 32, i % 32);
            let dev = sys.join("devices/pci0000:00").join(&addr);
            fs::create_dir_all(&dev).unwrap();
            fs::write(dev.join("vendor"), "0x10de\n").unwrap();
            fs::write(dev.join("device"), "0x2330\n").unwrap();
            fs::write(dev.join("class"), "0x030200\n").unwrap();
            fs::create_dir_all(sys.join("bus/pci/devices")).unwrap();
            std::os::unix::fs::symlink(format!("../../../devices/pci0000:00/{addr}"), sys.join("bus/pci/devices").join(&addr)).unwrap();
        };
        (0..crate::device::host::MAX_GPUS).for_each(gpu);
        let copy = Sysfs::copy_at(&sys);
        assert_eq!(copy.gpus().map(|g| g.len()), Some(256));
        gpu(256);
        assert_eq!(Sysfs::new(tmp.path()).gpus(), None, "257 GPUs: no host's");
        assert_eq!(copy.gpus().map(|g| g.len()), Some(256), "the copy's GPUs were read once");
    }

    #[test]
    fn an_attribute_longer_than_the_largest_page_is_none() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Sysfs::new(tmp.path());
        let (page, over) = (tmp.path().join("page"), tmp.path().join("over"));
        fs::write(&page, "x".repeat(64 * 1024)).unwrap();
        fs::write(&over, "x".repeat(64 * 1024 + 1)).unwrap();
        assert_eq!(s.read_attr(&page).map(|t| t.len()), Some(65_536));
        assert_eq!(s.read_attr(&over), None);
        // An endless file is read no further than the bound.
        assert_eq!(s.read_attr(Path::new("/dev/zero")), None);
    }

    #[test]
    fn names_that_escape_class_net_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("sys/class/net")).unwrap();
        let s = Sysfs::new(tmp.path());
        for name in ["", ".", "..", "../net", "a/b"] {
            assert!(!s.exists(name), "{name:?}");
            assert!(s.is_virtual(name), "{name:?}");
            assert_eq!(s.port_identity(name), None, "{name:?}");
        }
    }

    /// A copy as `cp -r` makes it: `class/net/eth1/device` a link whose target was not
    /// copied, `eth2/device` a file holding `readlink -f` of it, `eth3/device` a link out
    /// of the copy (to this machine's `/sys`); `bus/pci/devices/0000:05:00.0` a directory
    /// of its own with its `driver` link dangling and no `subsystem` link.
    #[test]
    fn a_copy_finds_functions_by_address_and_never_reads_outside_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let sys = tmp.path().join("copy");
        let func = sys.join("bus/pci/devices/0000:05:00.0");
        fs::create_dir_all(&func).unwrap();
        fs::write(func.join("numa_node"), "1\n").unwrap();
        fs::write(func.join("vendor"), "0x15b3\n").unwrap();
        fs::write(func.join("device"), "0x1021\n").unwrap();
        fs::write(func.join("current_link_width"), "16\n").unwrap();
        symlink("../../../../bus/pci/drivers/mlx5_core", func.join("driver")).unwrap();
        for n in ["eth1", "eth2", "eth3"] {
            fs::create_dir_all(sys.join("class/net").join(n)).unwrap();
            fs::write(sys.join("class/net").join(n).join("mtu"), "9000\n").unwrap();
        }
        symlink("../../../0000:05:00.0", sys.join("class/net/eth1/device")).unwrap();
        fs::write(sys.join("class/net/eth2/device"), "/sys/devices/pci0000:00/0000:00:02.0/0000:05:00.0\n").unwrap();
        symlink("/sys/devices/pci0000:00/0000:00:03.0", sys.join("class/net/eth3/device")).unwrap();
        let s = Sysfs::copy_at(&sys);
        for n in ["eth1", "eth2"] {
            let h = s.host_facts(n).unwrap();
            assert_eq!(s.bus_info(n).as_deref(), Some("0000:05:00.0"), "{n}");
            assert_eq!(
                (h.numa_node, h.pci_id, h.mtu),
                (Some(Fact::sysfs(1)), Some(Fact::sysfs("15b3:1021".into())), Some(Fact::sysfs(9000))),
                "{n}"
            );
            assert_eq!(h.driver, Some(Fact::sysfs("mlx5_core".into())), "{n}");
            // Its place below the bridges was not kept; the copy has no bus/pci GPUs.
            assert_eq!((h.pci_path, h.gpus.map(|g| g.value.len())), (None, Some(0)), "{n}");
            assert_eq!(s.pci_link(n).and_then(|l| l.current_link_width), Some(16), "{n}");
        }
        // Out of the copy: named by the link, nothing read behind it.
        let h = s.host_facts("eth3").unwrap();
        assert_eq!(s.bus_info("eth3").as_deref(), Some("0000:00:03.0"));
        assert_eq!((h.numa_node, h.pci_id, h.pci_path, h.gpus), (None, None, None, None));
    }

    #[test]
    fn missing_root_gives_nothing() {
        let s = Sysfs::new("/nonexistent/optics-sysfs-root");
        assert!(s.interfaces().is_empty());
        assert!(!s.exists("eth0"));
        assert_eq!(s.name_for_ifindex(1), None);
        assert_eq!(s.pci_link("eth0"), None);
    }
}
