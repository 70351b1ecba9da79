//! Byte-for-byte `/sys/class/infiniband` trees, laid out as the kernel lays them out
//! (Documentation/ABI/stable/sysfs-class-infiniband; drivers/infiniband/core/sysfs.c):
//!
//! ```text
//! sys/class/infiniband/mlx5_0 -> ../../devices/pci0000:00/0000:3b:00.0/infiniband/mlx5_0
//! sys/bus/pci/devices/0000:3b:00.0 -> ../../../devices/pci0000:00/0000:3b:00.0
//! sys/devices/pci0000:00/0000:3b:00.0/{vendor,device,class,numa_node,current_link_speed,...,driver ->, subsystem ->}
//! .../infiniband/mlx5_0/{fw_ver,board_id,node_guid,node_type,device -> ../../../0000:3b:00.0}
//! .../infiniband/mlx5_0/ports/1/{state,phys_state,rate,link_layer,counters/*,hw_counters/*}
//! ```
//!
//! Attribute text is what the kernel's show functions print: `state` "%d: %s\n"
//! (`4: ACTIVE`), `phys_state` "%u: %s\n" (`5: LinkUp`), `rate` "%d%s Gb/sec (%dX%s)\n",
//! counters "%u\n" / "%llu\n", `node_guid` "%04x:%04x:%04x:%04x\n"; the PCI function's
//! `vendor`, `device`, `class` "0x%04x\n" / "0x%06x\n" (Documentation/ABI/testing/sysfs-bus-pci).

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// One port as the test sets it up.
#[derive(Clone, Debug)]
pub struct PortSpec {
    pub port: u32,
    pub state: &'static str,
    pub phys_state: &'static str,
    pub rate: &'static str,
    pub link_layer: &'static str,
    /// `counters/<name>` contents (a number; a counter not listed is written as 0).
    pub counters: Vec<(&'static str, u64)>,
}

impl PortSpec {
    /// An NDR 4X port, ACTIVE / LinkUp, every counter 0.
    pub fn ndr(port: u32) -> Self {
        PortSpec {
            port,
            state: "4: ACTIVE",
            phys_state: "5: LinkUp",
            rate: "400 Gb/sec (4X NDR)",
            link_layer: "InfiniBand",
            counters: Vec::new(),
        }
    }
}

/// Every file the kernel creates under `counters/` (sysfs.c `pma_attrs` /
/// `pma_attrs_ext`; `port_xmit_wait` included).
pub const COUNTER_FILES: &[&str] = &[
    "VL15_dropped",
    "excessive_buffer_overrun_errors",
    "link_downed",
    "link_error_recovery",
    "local_link_integrity_errors",
    "multicast_rcv_packets",
    "multicast_xmit_packets",
    "port_rcv_constraint_errors",
    "port_rcv_data",
    "port_rcv_errors",
    "port_rcv_packets",
    "port_rcv_remote_physical_errors",
    "port_rcv_switch_relay_errors",
    "port_xmit_constraint_errors",
    "port_xmit_data",
    "port_xmit_discards",
    "port_xmit_packets",
    "port_xmit_wait",
    "symbol_error",
    "unicast_rcv_packets",
    "unicast_xmit_packets",
];

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text.as_bytes()).unwrap();
}

/// The node GUID `add_hca` writes for HCA `mlx5_N`: `a088:c203:0074:cf0N` (sysfs's form).
pub fn node_guid(hca: &str) -> String {
    let n: u32 = hca.rsplit('_').next().and_then(|n| n.parse().ok()).unwrap_or(0);
    format!("a088:c203:0074:cf{n:02x}")
}

/// Adds HCA `hca` on PCI function `bdf` (a ConnectX-7, PCI ID 15b3:1021, InfiniBand
/// controller class 0x0207, Gen5 x16 of x16, NUMA node 0, driver mlx5_core, firmware
/// 28.39.1002) with `ports` and, when given, its IPoIB netdev under the PCI function
/// (`dev_port` 0) to the tree at `root`.
pub fn add_hca(root: &Path, hca: &str, bdf: &str, netdev: Option<&str>, ports: &[PortSpec]) -> PathBuf {
    let pci = root.join("sys/devices/pci0000:00").join(bdf);
    for (f, v) in [
        ("vendor", "0x15b3"),
        ("device", "0x1021"),
        ("class", "0x020700"),
        ("current_link_speed", "32.0 GT/s PCIe"),
        ("current_link_width", "16"),
        ("max_link_speed", "32.0 GT/s PCIe"),
        ("max_link_width", "16"),
        ("numa_node", "0"),
    ] {
        write(&pci.join(f), &format!("{v}\n"));
    }
    fs::create_dir_all(root.join("sys/bus/pci/drivers/mlx5_core")).unwrap();
    if !pci.join("subsystem").exists() {
        symlink("../../../bus/pci", pci.join("subsystem")).unwrap();
        symlink("../../../bus/pci/drivers/mlx5_core", pci.join("driver")).unwrap();
        fs::create_dir_all(root.join("sys/bus/pci/devices")).unwrap();
        symlink(format!("../../../devices/pci0000:00/{bdf}"), root.join("sys/bus/pci/devices").join(bdf)).unwrap();
    }
    let dev = pci.join("infiniband").join(hca);
    write(&dev.join("fw_ver"), "28.39.1002\n");
    write(&dev.join("board_id"), "MT_0000000838\n");
    write(&dev.join("node_guid"), &format!("{}\n", node_guid(hca)));
    write(&dev.join("node_type"), "1: CA\n");
    symlink(format!("../../../{bdf}"), dev.join("device")).unwrap();
    fs::create_dir_all(root.join("sys/class/infiniband")).unwrap();
    symlink(format!("../../devices/pci0000:00/{bdf}/infiniband/{hca}"), root.join("sys/class/infiniband").join(hca)).unwrap();
    if let Some(n) = netdev {
        write(&pci.join("net").join(n).join("dev_port"), "0\n");
    }
    for p in ports {
        set_port(root, hca, p);
    }
    dev
}

/// Adds a GPU (NVIDIA H100, 10de:2330, 3D controller class 0x030200) at `bdf` below root
/// port `port` of host bridge `bridge` (`pci0000:80`), on NUMA node `numa`.
pub fn add_gpu(root: &Path, bridge: &str, port: &str, bdf: &str, numa: i32) {
    let path = format!("{bridge}/{port}/{bdf}");
    let dir = root.join("sys/devices").join(&path);
    for (f, v) in
        [("vendor", "0x10de".to_string()), ("device", "0x2330".into()), ("class", "0x030200".into()), ("numa_node", numa.to_string())]
    {
        write(&dir.join(f), &format!("{v}\n"));
    }
    symlink("../../../../bus/pci", dir.join("subsystem")).unwrap();
    fs::create_dir_all(root.join("sys/bus/pci/devices")).unwrap();
    symlink(format!("../../../devices/{path}"), root.join("sys/bus/pci/devices").join(bdf)).unwrap();
}

/// Rewrites an attribute of the HCA's PCI function `bdf` (`numa_node`) or of the HCA
/// itself (`infiniband/mlx5_0/fw_ver`), as another slot or firmware would show it.
pub fn set_pci_attr(root: &Path, bdf: &str, rel: &str, value: &str) {
    write(&root.join("sys/devices/pci0000:00").join(bdf).join(rel), &format!("{value}\n"));
}

/// Writes (or rewrites) a port's attributes and counters.
pub fn set_port(root: &Path, hca: &str, p: &PortSpec) {
    let dir = root.join("sys/class/infiniband").join(hca).join("ports").join(p.port.to_string());
    write(&dir.join("state"), &format!("{}\n", p.state));
    write(&dir.join("phys_state"), &format!("{}\n", p.phys_state));
    write(&dir.join("rate"), &format!("{}\n", p.rate));
    write(&dir.join("link_layer"), &format!("{}\n", p.link_layer));
    for name in COUNTER_FILES {
        let v = p.counters.iter().find(|(n, _)| n == name).map_or(0, |(_, v)| *v);
        write(&dir.join("counters").join(name), &format!("{v}\n"));
    }
    // mlx5 hw_counters (a few of them) and the core's `lifespan` setting.
    write(&dir.join("hw_counters/lifespan"), "10\n");
    write(&dir.join("hw_counters/out_of_buffer"), "0\n");
    write(&dir.join("hw_counters/local_ack_timeout_err"), "0\n");
}
