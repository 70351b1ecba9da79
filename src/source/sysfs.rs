//! sysfs: driver, bus address, PCIe link and port identity of a netdev.
//! TODO(helper): implementation. The root is injectable so tests use fixture trees.

use super::{PciLink, PortIdentity};
use std::path::PathBuf;

/// A view of `/sys` (or a fixture tree laid out the same way under `root`).
#[derive(Clone, Debug)]
pub struct Sysfs {
    root: PathBuf,
}

impl Sysfs {
    /// `root` is the directory that contains `sys/` ("/" on a live system).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Sysfs { root: root.into() }
    }
    pub fn system() -> Self {
        Sysfs::new("/")
    }
    /// Every netdev in `sys/class/net`, sorted.
    pub fn interfaces(&self) -> Vec<String> {
        let _ = &self.root;
        Vec::new()
    }
    pub fn exists(&self, _iface: &str) -> bool {
        false
    }
    /// True for netdevs with no `device` link (veth, bridge, loopback, ...).
    pub fn is_virtual(&self, _iface: &str) -> bool {
        true
    }
    pub fn ifindex(&self, _iface: &str) -> Option<u32> {
        None
    }
    pub fn name_for_ifindex(&self, _ifindex: u32) -> Option<String> {
        None
    }
    /// Driver name from the `device/driver` link.
    pub fn driver(&self, _iface: &str) -> Option<String> {
        None
    }
    /// Bus address (PCI BDF) from the `device` link.
    pub fn bus_info(&self, _iface: &str) -> Option<String> {
        None
    }
    /// PCIe link attributes; `None` when the device is not a PCIe function.
    pub fn pci_link(&self, _iface: &str) -> Option<PciLink> {
        None
    }
    /// Port identity; `None` when none of the attributes exist.
    pub fn port_identity(&self, _iface: &str) -> Option<PortIdentity> {
        None
    }
}
