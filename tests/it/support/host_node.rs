//! The two-socket node of the host tests, as sysfs lays it out (Documentation/ABI/testing/
//! sysfs-bus-pci, sysfs-class-net): each PCI function a directory under `devices/` nested
//! below its bridges, `bus/pci/devices/BDF` and `class/net/IF` relative links to it,
//! `subsystem` and `driver` links, `vendor`, `device`, `class` in `0x` hex and `numa_node`
//! in decimal (-1 = unknown); and the host facts a healthy node's NICs report on top of it.
//!
//! Socket 0 has NIC ens1np0 behind a PCIe switch with GPU 0000:1b:00.0, and GPU
//! 0000:2b:00.0 on another host bridge. Socket 1 has NIC ens2np0 on a root port of the host
//! bridge whose other root port holds GPU 0000:9c:00.0. A BMC's VGA (ASPEED) and an NVSwitch
//! bridge are there too and are not GPUs.

use optics::device::host::{Channels, Fact, HostFacts, Rings};
use optics::source::sysfs::Sysfs;
use serde_json::Value;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

/// A PCI function at `path` (components below `sys/devices`).
pub struct Function<'a> {
    pub path: &'a str,
    pub vendor: u32,
    pub device: u32,
    pub class: u32,
    pub numa: i32,
    pub driver: Option<&'a str>,
    pub netdev: Option<(&'a str, u32)>,
}

pub fn add(root: &Path, f: &Function) {
    let parts: Vec<&str> = f.path.split('/').collect();
    let dir = root.join("sys/devices").join(f.path);
    fs::create_dir_all(&dir).unwrap();
    let up = "../".repeat(parts.len() + 1); // from sys/devices/<path> to sys/
    let bdf = parts.last().unwrap();
    for (name, value) in [
        ("vendor", format!("{:#06x}\n", f.vendor)),
        ("device", format!("{:#06x}\n", f.device)),
        ("class", format!("{:#08x}\n", f.class)),
        ("numa_node", format!("{}\n", f.numa)),
    ] {
        fs::write(dir.join(name), value).unwrap();
    }
    symlink(format!("{up}bus/pci"), dir.join("subsystem")).unwrap();
    if let Some(d) = f.driver {
        symlink(format!("{up}bus/pci/drivers/{d}"), dir.join("driver")).unwrap();
    }
    fs::create_dir_all(root.join("sys/bus/pci/devices")).unwrap();
    symlink(format!("../../../devices/{}", f.path), root.join("sys/bus/pci/devices").join(bdf)).unwrap();
    if let Some((name, mtu)) = f.netdev {
        let net = dir.join("net").join(name);
        fs::create_dir_all(&net).unwrap();
        fs::write(net.join("mtu"), format!("{mtu}\n")).unwrap();
        symlink(format!("../../../{bdf}"), net.join("device")).unwrap();
        fs::create_dir_all(root.join("sys/class/net")).unwrap();
        symlink(format!("../../devices/{}/net/{name}", f.path), root.join("sys/class/net").join(name)).unwrap();
    }
}

pub const NIC_SOCKET0: &str = "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0";
const GPU_SWITCH: &str = "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:04.0/0000:1b:00.0";
const GPU_SOCKET0: &str = "pci0000:2a/0000:2a:02.0/0000:2b:00.0";
const NIC_SOCKET1: &str = "pci0000:9a/0000:9a:02.0/0000:9b:00.0";
pub const GPU_SOCKET1: &str = "pci0000:9a/0000:9a:04.0/0000:9c:00.0";

/// The two-socket node; without `gpu_on_socket1`, socket 1's NIC has no GPU near it.
pub fn two_socket_node(root: &Path, gpu_on_socket1: bool) {
    let nic = |path, name, numa, mtu| Function {
        path,
        vendor: 0x15b3,
        device: 0x1021,
        class: 0x020000,
        numa,
        driver: Some("mlx5_core"),
        netdev: Some((name, mtu)),
    };
    let gpu = |path, numa| Function { path, vendor: 0x10de, device: 0x2330, class: 0x030200, numa, driver: Some("nvidia"), netdev: None };
    let bridge =
        |path, numa| Function { path, vendor: 0x8086, device: 0x347a, class: 0x060400, numa, driver: Some("pcieport"), netdev: None };
    for f in [
        bridge("pci0000:16/0000:16:02.0", 0),
        bridge("pci0000:16/0000:16:02.0/0000:17:00.0", 0),
        bridge("pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0", 0),
        bridge("pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:04.0", 0),
        nic(NIC_SOCKET0, "ens1np0", 0, 9000),
        gpu(GPU_SWITCH, 0),
        bridge("pci0000:2a/0000:2a:02.0", 0),
        gpu(GPU_SOCKET0, 0),
        bridge("pci0000:9a/0000:9a:02.0", 1),
        nic(NIC_SOCKET1, "ens2np0", 1, 9000),
        // A BMC's VGA: a display controller, not of a GPU vendor.
        Function {
            path: "pci0000:00/0000:00:1c.0/0000:02:00.0",
            vendor: 0x1a03,
            device: 0x2000,
            class: 0x030000,
            numa: 0,
            driver: Some("ast"),
            netdev: None,
        },
        // An NVSwitch: NVIDIA's, but a bridge (class 06h/80h).
        Function {
            path: "pci0000:2a/0000:2a:04.0/0000:2c:00.0",
            vendor: 0x10de,
            device: 0x22a3,
            class: 0x068000,
            numa: 0,
            driver: None,
            netdev: None,
        },
    ] {
        add(root, &f);
    }
    add(root, &bridge("pci0000:00/0000:00:1c.0", 0));
    node_cpus_and_irqs(root);
    if gpu_on_socket1 {
        add(root, &bridge("pci0000:9a/0000:9a:04.0", 1));
        add(root, &gpu(GPU_SOCKET1, 1));
    }
}

/// Socket 0 holds CPUs 0-15 and 32-47 (their hyperthreads), socket 1 16-31 and 48-63, as
/// `devices/system/node/nodeN/cpulist` prints them. Socket 0's NIC has four MSI-X
/// interrupts (`msi_irqs/N`): 40 and 41 delivered on its node, 42 on CPU 16 (socket 1),
/// and 43 with no effective affinity file (an older kernel) allowed on every CPU.
fn node_cpus_and_irqs(root: &Path) {
    for (node, cpus) in [(0, "0-15,32-47"), (1, "16-31,48-63")] {
        let dir = root.join(format!("sys/devices/system/node/node{node}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("cpulist"), format!("{cpus}\n")).unwrap();
    }
    let msi = root.join("sys/devices").join(NIC_SOCKET0).join("msi_irqs");
    fs::create_dir_all(&msi).unwrap();
    for (irq, effective, allowed) in [(40, Some("3"), "0-15"), (41, Some("33"), "32-47"), (42, Some("16"), "0-63"), (43, None, "0-63")] {
        fs::write(msi.join(irq.to_string()), "msix\n").unwrap();
        let dir = root.join(format!("proc/irq/{irq}"));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("smp_affinity_list"), format!("{allowed}\n")).unwrap();
        if let Some(e) = effective {
            fs::write(dir.join("effective_affinity_list"), format!("{e}\n")).unwrap();
        }
    }
}

/// `capture` with `facts(interface)` as the `host` of every interface record.
pub fn with_host(capture: &str, facts: impl Fn(&str) -> HostFacts) -> String {
    let mut out = String::new();
    for line in capture.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["record"] == "interface" {
            let iface = v["interface"].as_str().unwrap().to_string();
            v["host"] = serde_json::to_value(facts(&iface)).unwrap();
        }
        out += &(v.to_string() + "\n");
    }
    out
}

/// `iface`'s facts from the node's sysfs, with what the kernel's ethtool interfaces give a
/// healthy node's ConnectX-7: one driver and firmware, rings at their maximum (8192), 32
/// combined channels of 63.
pub fn healthy_facts(sys: &Sysfs, iface: &str) -> HostFacts {
    let mut h = sys.host_facts(iface).unwrap();
    h.driver_version = Some(Fact::ioctl("6.8.0-45-generic".into()));
    h.firmware_version = Some(Fact::ioctl("28.39.1002 (MT_0000000838)".into()));
    h.rings = Some(Fact::netlink(Rings { rx: Some(8192), rx_max: Some(8192), tx: Some(8192), tx_max: Some(8192) }));
    h.channels = Some(Fact::netlink(Channels { combined: Some(32), combined_max: Some(63), ..Channels::default() }));
    h
}
