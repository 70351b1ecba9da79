//! What a port is, whoever read it: the PCIe function behind a netdev, its link, and
//! which physical port it is. Sources fill these, the capture format stores them, and
//! analysis and output read them.

pub mod host;

use host::HostFacts;
use serde::{Deserialize, Serialize};

/// PCIe link of the NIC function (sysfs `current_link_*` / `max_link_*`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PciLink {
    pub current_link_speed: Option<String>,
    pub current_link_width: Option<u32>,
    pub max_link_speed: Option<String>,
    pub max_link_width: Option<u32>,
    pub numa_node: Option<i32>,
}

/// Which physical port a netdev is (sysfs `phys_port_name`, `dev_port`, `phys_switch_id`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortIdentity {
    pub phys_port_name: Option<String>,
    pub dev_port: Option<u32>,
    pub phys_switch_id: Option<String>,
}

/// What a netdev is: driver and bus address (GDRVINFO / sysfs), PCIe link, port identity,
/// and the host beneath it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeviceIdentity {
    pub driver: Option<String>,
    pub bus_info: Option<String>,
    pub pci: Option<PciLink>,
    pub port: Option<PortIdentity>,
    pub host: Option<HostFacts>,
    /// The InfiniBand port this is (an IB port named `mlx5_0/1`, or the HCA port behind a
    /// RoCE netdev); `None` for other netdevs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbPort>,
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
    pub fn name(&self) -> String {
        format!("{}/{}", self.hca, self.port)
    }
    pub fn is_infiniband(&self) -> bool {
        self.link_layer.as_deref().is_some_and(|l| l.eq_ignore_ascii_case("infiniband"))
    }
}
