//! `Sysfs` against fixture trees laid out like `/sys` (tests/fixtures/sysfs/*), with the
//! relative symlinks the kernel creates (`class/net/IF`, `device`, `driver`, `subsystem`).
//! Every expected value below is the content written into the fixture, which follows the
//! formats in kernel-uapi.md §9 (pci-sysfs.c, net-sysfs.c).

use optics::device::{PciLink, PortIdentity};
use optics::source::sysfs::Sysfs;
use std::path::PathBuf;

fn fixture(name: &str) -> Sysfs {
    Sysfs::new(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sysfs").join(name))
}

fn pcie(cur: &str, cur_w: u32, max: &str, max_w: u32, numa: Option<i32>) -> Option<PciLink> {
    Some(PciLink {
        current_link_speed: Some(cur.to_string()),
        current_link_width: Some(cur_w),
        max_link_speed: Some(max.to_string()),
        max_link_width: Some(max_w),
        numa_node: numa,
    })
}

fn port(name: Option<&str>, dev_port: u32, switch: Option<&str>) -> Option<PortIdentity> {
    Some(PortIdentity { phys_port_name: name.map(str::to_string), dev_port: Some(dev_port), phys_switch_id: switch.map(str::to_string) })
}

#[test]
fn server_lists_netdevs_but_not_bonding_masters() {
    let s = fixture("server");
    // bonding_masters is a plain file in class/net, not a netdev.
    assert_eq!(s.interfaces(), ["enp202s0f0np0", "enp23s0f0np0", "lo", "veth0"]);
    assert!(s.exists("veth0"));
    assert!(!s.exists("bonding_masters"));
    assert!(!s.exists("eth7"));
}

#[test]
fn connectx7_healthy_gen4_x16_of_x16() {
    let s = fixture("server");
    let i = "enp23s0f0np0";
    assert!(!s.is_virtual(i));
    assert_eq!(s.ifindex(i), Some(4));
    assert_eq!(s.name_for_ifindex(4).as_deref(), Some(i));
    assert_eq!(s.driver(i).as_deref(), Some("mlx5_core"));
    assert_eq!(s.bus_info(i).as_deref(), Some("0000:17:00.0"));
    // A Gen5-capable card (max 32.0 GT/s) in a Gen4 slot: trained at 16.0 GT/s, full width.
    assert_eq!(s.pci_link(i), pcie("16.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16, Some(0)));
    assert_eq!(s.port_identity(i), port(Some("p0"), 0, Some("b8cef60300a1b2c3")));
}

#[test]
fn connectx7_degraded_gen4_x4_of_x16() {
    let s = fixture("server");
    let i = "enp202s0f0np0";
    assert!(!s.is_virtual(i));
    assert_eq!(s.ifindex(i), Some(6));
    assert_eq!(s.name_for_ifindex(6).as_deref(), Some(i));
    assert_eq!(s.driver(i).as_deref(), Some("mlx5_core"));
    assert_eq!(s.bus_info(i).as_deref(), Some("0000:ca:00.0"));
    // Trained at x4 where the device can do x16: the case sysfs exists to reveal.
    assert_eq!(s.pci_link(i), pcie("16.0 GT/s PCIe", 4, "32.0 GT/s PCIe", 16, Some(1)));
    assert_eq!(s.port_identity(i), port(Some("p0"), 0, Some("e8ebd30300d4e5f6")));
}

#[test]
fn veth_and_lo_are_virtual() {
    let s = fixture("server");
    for (i, ifindex) in [("veth0", 8), ("lo", 1)] {
        assert!(s.is_virtual(i), "{i}");
        assert_eq!(s.ifindex(i), Some(ifindex), "{i}");
        assert_eq!(s.name_for_ifindex(ifindex).as_deref(), Some(i));
        assert_eq!(s.driver(i), None, "{i}");
        assert_eq!(s.bus_info(i), None, "{i}");
        assert_eq!(s.pci_link(i), None, "{i}");
        // dev_port exists on every netdev; since 6.16 phys_port_name/phys_switch_id are
        // absent for drivers without them.
        assert_eq!(s.port_identity(i), port(None, 0, None), "{i}");
    }
    assert_eq!(s.name_for_ifindex(99), None);
}

#[test]
fn gb10_two_pcie_links_four_netdevs() {
    let s = fixture("gb10");
    assert_eq!(s.interfaces(), ["enP2p1s0f0np0", "enP2p1s0f1np1", "enp1s0f0np0", "enp1s0f1np1"]);
    // (netdev, ifindex, PCI function, port name). Domain 0000 and domain 0002 are two
    // Gen5 x4 links into the same ConnectX-7; each link carries one PF per port.
    let expected = [
        ("enp1s0f0np0", 2, "0000:01:00.0", "p0"),
        ("enp1s0f1np1", 3, "0000:01:00.1", "p1"),
        ("enP2p1s0f0np0", 4, "0002:01:00.0", "p0"),
        ("enP2p1s0f1np1", 5, "0002:01:00.1", "p1"),
    ];
    for (i, ifindex, bdf, pname) in expected {
        assert!(!s.is_virtual(i), "{i}");
        assert_eq!(s.ifindex(i), Some(ifindex), "{i}");
        assert_eq!(s.name_for_ifindex(ifindex).as_deref(), Some(i));
        assert_eq!(s.driver(i).as_deref(), Some("mlx5_core"), "{i}");
        assert_eq!(s.bus_info(i).as_deref(), Some(bdf), "{i}");
        // numa_node -1 (no affinity known) -> None.
        assert_eq!(s.pci_link(i), pcie("32.0 GT/s PCIe", 4, "32.0 GT/s PCIe", 4, None), "{i}");
        // Same phys_switch_id everywhere: one ASIC behind all four netdevs.
        assert_eq!(s.port_identity(i), port(Some(pname), 0, Some("4cbb470300f1e2d3")), "{i}");
    }
}

#[test]
fn virtio_net_reports_parent_pci_function() {
    let s = fixture("vm");
    assert_eq!(s.interfaces(), ["eth0", "lo"]);
    let i = "eth0";
    assert!(!s.is_virtual(i));
    assert_eq!(s.ifindex(i), Some(2));
    // `device` points at virtio0, whose driver is virtio_net ...
    assert_eq!(s.driver(i).as_deref(), Some("virtio_net"));
    // ... and whose parent is the PCI function, which is what GDRVINFO's bus_info says.
    assert_eq!(s.bus_info(i).as_deref(), Some("0000:00:03.0"));
    // A legacy virtio-pci function is not PCIe: no link attributes.
    assert_eq!(s.pci_link(i), None);
    // phys_port_name exists but cannot be read (the fixture's stand-in for EOPNOTSUPP):
    // treated as absent; phys_switch_id is missing.
    assert_eq!(s.port_identity(i), port(None, 0, None));
}

/// Whatever this machine's real /sys holds, every accessor answers without panicking.
#[test]
fn live_sysfs_answers_without_panicking() {
    let s = Sysfs::system();
    for i in s.interfaces() {
        assert!(s.exists(&i), "{i}");
        let ifindex = s.ifindex(&i);
        if let Some(n) = ifindex {
            assert_eq!(s.name_for_ifindex(n).as_deref(), Some(i.as_str()));
        }
        let _ = (s.is_virtual(&i), s.driver(&i), s.bus_info(&i), s.pci_link(&i), s.port_identity(&i));
    }
}
