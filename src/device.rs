//! What a port is, whoever read it: the PCIe function behind a netdev, its link, and
//! which physical port it is. Sources fill these, the capture format stores them, and
//! analysis and output read them.

#![warn(missing_docs)]

pub mod host;

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
