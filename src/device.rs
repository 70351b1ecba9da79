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
}
