//! What a port is, whoever read it: the PCIe function behind a netdev, its link, and
//! which physical port it is. Sources fill these, the capture format stores them, and
//! analysis and output read them.

pub mod host;
pub mod kernel_log;

use host::HostFacts;
use serde::{Deserialize, Serialize};

/// PCIe link of the NIC function (sysfs `current_link_*` / `max_link_*`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PciLink {
    /// The link's speed now, as sysfs prints it (`16.0 GT/s PCIe`).
    pub current_link_speed: Option<String>,
    /// The link's width now, in lanes.
    pub current_link_width: Option<u32>,
    /// The fastest speed the link can train to.
    pub max_link_speed: Option<String>,
    /// The widest the link can train to.
    pub max_link_width: Option<u32>,
    /// The NUMA node of the function (-1: none).
    pub numa_node: Option<i32>,
}

/// A PCI function's address: domain (PCI segment), bus, device and function.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PciAddress {
    /// The domain: 0 on most hosts; Intel VMD puts the devices behind it in domains from
    /// `0x10000` up (drivers/pci/controller/vmd.c `vmd_find_free_domain`).
    pub domain: u32,
    /// The bus number.
    pub bus: u8,
    /// The device number, 5 bits (PCI Local Bus 3.0 §3.2.2.3.1).
    pub device: u8,
    /// The function number, 3 bits.
    pub function: u8,
}

impl PciAddress {
    /// `dddd:bb:dd.f` in hex, as the kernel names a function (drivers/pci/probe.c
    /// `pci_setup_device`: `"%04x:%02x:%02x.%d"`, the name sysfs and `ethtool -i` bus-info
    /// give): the domain has four digits or more (VMD's `10000:e1:00.0`), up to the eight of
    /// its 32 bits. Either case.
    pub fn parse(text: &str) -> Option<PciAddress> {
        Self::read(text, true)
    }

    /// As [`PciAddress::parse`], or `bb:dd.f` for a function in domain 0, as lspci prints
    /// it on a host with that domain only (lspci.c `show_slot_name`) and as `mlxlink -d`
    /// takes it.
    pub fn parse_domain_optional(text: &str) -> Option<PciAddress> {
        Self::read(text, false)
    }

    fn read(text: &str, domain_required: bool) -> Option<PciAddress> {
        let (bus, dev_fn) = text.rsplit_once(':')?;
        let bus = if bus.contains(':') {
            PciBus::parse(bus)?
        } else if domain_required {
            return None;
        } else {
            PciBus { domain: 0, bus: byte(bus, 2)? }
        };
        bus.function(dev_fn)
    }

    /// The bus the function is on.
    pub fn bus(&self) -> PciBus {
        PciBus { domain: self.domain, bus: self.bus }
    }
}

/// The kernel's name of the function, lower case: `0000:3b:00.0`, `10000:e1:00.0`.
impl std::fmt::Display for PciAddress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{:02x}.{}", self.bus(), self.device, self.function)
    }
}

/// A PCI bus: a domain and a bus number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PciBus {
    /// The domain, as in [`PciAddress::domain`].
    pub domain: u32,
    /// The bus number.
    pub bus: u8,
}

impl PciBus {
    /// `dddd:bb` in hex, the domain as in [`PciAddress::parse`]: a host bridge as `lspci -t`
    /// prints it (`[10000:e0]`) and sysfs names it (`pci10000:e0`).
    pub fn parse(text: &str) -> Option<PciBus> {
        let (domain, bus) = text.split_once(':')?;
        Some(PciBus { domain: hex(domain, 4, 8)?, bus: byte(bus, 2)? })
    }

    /// The function `dd.f` (device in two hex digits, up to `1f`; function `0`-`7`) on
    /// this bus.
    pub fn function(self, dev_fn: &str) -> Option<PciAddress> {
        let (device, function) = dev_fn.split_once('.')?;
        let (device, function) = (byte(device, 2)?, byte(function, 1)?);
        (device < 32 && function < 8).then_some(PciAddress { domain: self.domain, bus: self.bus, device, function })
    }
}

/// `dddd:bb`, lower case: `0000:3b`, `10000:e0` (the host bridge `pci10000:e0` in sysfs).
impl std::fmt::Display for PciBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04x}:{:02x}", self.domain, self.bus)
    }
}

/// `text` as a hex number of `min..=max` digits (no sign, no `0x`).
fn hex(text: &str, min: usize, max: usize) -> Option<u32> {
    ((min..=max).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_hexdigit())).then(|| u32::from_str_radix(text, 16).ok()).flatten()
}

/// A bus or device number (two hex digits, `%02x`) or a function (one).
fn byte(text: &str, digits: usize) -> Option<u8> {
    hex(text, digits, digits).and_then(|v| u8::try_from(v).ok())
}

/// Which physical port a netdev is (sysfs `phys_port_name`, `dev_port`, `phys_switch_id`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortIdentity {
    /// The port's name on its device (`p0`).
    pub phys_port_name: Option<String>,
    /// The port's index on its device.
    pub dev_port: Option<u32>,
    /// The switch ID shared by the ports of one ASIC.
    pub phys_switch_id: Option<String>,
}

/// What a netdev is: driver and bus address (GDRVINFO / sysfs), PCIe link, port identity,
/// and the host beneath it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    /// The kernel driver (`mlx5_core`).
    pub driver: Option<String>,
    /// The bus address (`0000:3b:00.0`).
    pub bus_info: Option<String>,
    /// The PCIe link of the NIC function.
    pub pci: Option<PciLink>,
    /// Which physical port it is.
    pub port: Option<PortIdentity>,
    /// The host beneath the netdev.
    pub host: Option<HostFacts>,
    /// The InfiniBand port this is (an IB port named `mlx5_0/1`, or the HCA port behind a
    /// RoCE netdev); `None` for other netdevs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbPort>,
    /// What the port's cable reaches, as LLDP names it; `None` when no neighbor table was read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbor: Option<LinkNeighbor>,
}

/// The far end of a port's cable as a link-layer discovery protocol names it (IEEE 802.1AB
/// LLDP, or CDP, as lldpd heard it): the neighbor's system and the port it sends from, as
/// received.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkNeighbor {
    /// System Name TLV (IEEE 802.1AB-2016 8.5.6).
    #[serde(default)]
    pub system: Option<String>,
    /// Chassis ID TLV (8.5.2), without its subtype word.
    #[serde(default)]
    pub chassis_id: Option<String>,
    /// Port ID TLV (8.5.3), without its subtype word (`Ethernet48`, a MAC, a local number).
    #[serde(default)]
    pub port: Option<String>,
    /// Port Description TLV (8.5.5): switches that send a number as the port ID often
    /// name the port here.
    #[serde(default)]
    pub port_description: Option<String>,
    /// How it was learned (`LLDP`, `CDPv2`).
    #[serde(default)]
    pub via: Option<String>,
}

impl LinkNeighbor {
    /// The names the neighbor gives its port: the port ID, then the description.
    pub fn port_names(&self) -> impl Iterator<Item = &str> {
        [&self.port, &self.port_description].into_iter().flatten().map(String::as_str)
    }

    /// `leaf1 port Ethernet48 (LLDP)`.
    pub fn shown(&self) -> String {
        let system = self.system.as_deref().or(self.chassis_id.as_deref()).unwrap_or("(unnamed system)");
        let port = match (&self.port, &self.port_description) {
            (Some(p), Some(d)) if p != d => format!(" port {p} ({d})"),
            (Some(p), _) | (None, Some(p)) => format!(" port {p}"),
            (None, None) => String::new(),
        };
        let via = self.via.as_deref().map(|v| format!(" ({v})")).unwrap_or_default();
        format!("{system}{port}{via}")
    }
}

/// An RDMA device's port as sysfs names it (Documentation/ABI/stable/sysfs-class-infiniband):
/// `/sys/class/infiniband/<hca>/ports/<port>`. Raw text as the kernel prints it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IbPort {
    /// RDMA device name, e.g. `mlx5_0`.
    pub hca: String,
    /// Port number (1-based on an HCA).
    pub port: u32,
    /// `link_layer`: `InfiniBand` or `Ethernet` (RoCE).
    pub link_layer: Option<String>,
    /// `rate`: active width x speed as the kernel prints it, e.g. `400 Gb/sec (4X NDR)`.
    pub rate: Option<String>,
    /// The HCA's `fw_ver`.
    #[serde(default)]
    pub fw_ver: Option<String>,
    /// The HCA's `board_id` (NVIDIA PSID, e.g. `MT_0000000838`).
    #[serde(default)]
    pub board_id: Option<String>,
    /// The HCA's `node_guid` as the tool printed it (sysfs `1070:fd03:00a4:110a`, `ibstat`
    /// `0x1070fd0300a4110a`): which adapter this is, whatever its PCI address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_guid: Option<String>,
    /// The netdev on this port (IPoIB, or the RoCE Ethernet netdev), if any.
    #[serde(default)]
    pub netdev: Option<String>,
}

impl IbPort {
    /// `mlx5_0/1`: how an IB port is named wherever an interface name appears.
    pub(crate) fn name(&self) -> String {
        format!("{}/{}", self.hca, self.port)
    }
    pub(crate) fn is_infiniband(&self) -> bool {
        self.link_layer.as_deref().is_some_and(|l| l.eq_ignore_ascii_case("infiniband"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_are_read_as_the_kernel_and_lspci_print_them() {
        let at = |domain, bus, device, function| Some(PciAddress { domain, bus, device, function });
        assert_eq!(PciAddress::parse("0000:3b:00.0"), at(0, 0x3b, 0, 0));
        assert_eq!(PciAddress::parse("10000:e1:00.7"), at(0x10000, 0xe1, 0, 7));
        assert_eq!(PciAddress::parse("0000:AF:1f.3"), at(0, 0xaf, 0x1f, 3));
        assert_eq!(PciAddress::parse("ffffffff:ff:1f.7"), at(u32::MAX, 0xff, 0x1f, 7));
        for bad in [
            "3b:00.0",
            "000:3b:00.0",
            "100000000:3b:00.0",
            "0000:3b:00.8",
            "0000:3b:20.0",
            "0000:3b:00",
            "0000:3b:000.0",
            "0000:3:00.0",
            "virtio2",
            "mlx5_core.sf.1",
            "0000:3b:00.0/x",
            "+000:3b:00.0",
            "0000:3b:0x.0",
            "",
        ] {
            assert_eq!(PciAddress::parse(bad), None, "{bad}");
        }
        assert_eq!(PciAddress::parse_domain_optional("3b:00.1"), at(0, 0x3b, 0, 1));
        assert_eq!(PciAddress::parse_domain_optional("10000:e0:17.0"), at(0x10000, 0xe0, 0x17, 0));
        assert_eq!(PciAddress::parse_domain_optional("e0:17"), None);
        assert_eq!(PciAddress::parse("10000:E1:00.0").map(|a| a.to_string()).as_deref(), Some("10000:e1:00.0"));
        assert_eq!(PciAddress::parse_domain_optional("3b:00.1").map(|a| a.to_string()).as_deref(), Some("0000:3b:00.1"));
        assert_eq!(PciBus::parse("10000:E0"), Some(PciBus { domain: 0x10000, bus: 0xe0 }));
        assert_eq!(PciBus::parse("10000:e0").map(|b| b.to_string()).as_deref(), Some("10000:e0"));
        assert_eq!(
            (PciBus::parse("0000:3b"), PciBus::parse("00:3b"), PciBus::parse("0000:3b0")),
            (at(0, 0x3b, 0, 0).map(|a| a.bus()), None, None)
        );
    }
}
