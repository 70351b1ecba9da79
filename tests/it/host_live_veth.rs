//! The host facts on the real kernel: a veth pair in throw-away network namespaces (never
//! the host's interfaces). Needs root and `ip netns`; skips with a printed reason otherwise.
//!
//! veth answers GDRVINFO with driver `veth`, version `1.0` (drivers/net/veth.c DRV_VERSION)
//! and no firmware; its MTU is what `ip link set mtu` set, read with SIOCGIFMTU in the
//! socket's own namespace (the test thread's `/sys` still shows the host's).

use crate::support;
use optics::device::host::{Fact, FactSource};
use optics::source::live::LiveSource;
use optics::source::Source;

#[allow(dead_code)]
use support::netns::{ip, Netns};

#[test]
fn veth_host_facts_come_from_the_sockets_namespace() {
    let Some(ns) = Netns::create("optics-h") else { return };
    ip(&["-n", &ns.name, "link", "set", "v0", "mtu", "9000"]).unwrap();
    ns.enter();
    let mut s = LiveSource::new();
    let h = s.identity("v0").unwrap().host.unwrap();
    assert_eq!(h.driver, Some(Fact::ioctl("veth".to_string())));
    assert_eq!(h.driver_version, Some(Fact::ioctl("1.0".to_string())));
    assert_eq!(h.firmware_version, None);
    assert_eq!(h.mtu, Some(Fact::ioctl(9000)));
    // Not a PCI function: no NUMA node, no PCI place, GPUs not looked for.
    assert_eq!((h.numa_node, h.pci_path, h.gpus), (None, None, None));
    let v1 = s.identity("v1").unwrap().host.unwrap();
    assert_eq!(v1.mtu.map(|m| (m.value, m.from)), Some((1500, FactSource::Ioctl)));
}

/// v1 moved into a second namespace: read there, it keeps the MTU set before the move;
/// the first namespace no longer has it.
#[test]
fn veth_moved_between_namespaces_is_read_where_it_is() {
    let Some(a) = Netns::create("optics-h") else { return };
    let Some(b) = Netns::create("optics-h") else { return };
    // `b`'s own pair goes first: a netns cannot hold two v1.
    ip(&["-n", &b.name, "link", "del", "v0"]).unwrap();
    ip(&["-n", &a.name, "link", "set", "v1", "mtu", "4000"]).unwrap();
    ip(&["-n", &a.name, "link", "set", "v1", "netns", &b.name]).unwrap();
    let handle = {
        let name = b.name.clone();
        std::thread::spawn(move || {
            let ns = Netns { name };
            ns.enter();
            let mtu = LiveSource::new().identity("v1").ok().and_then(|i| i.host?.mtu);
            std::mem::forget(ns); // `b` below owns the namespace
            mtu
        })
    };
    assert_eq!(handle.join().unwrap(), Some(Fact::ioctl(4000)));
    a.enter();
    let mut s = LiveSource::new();
    assert_eq!(s.identity("v0").unwrap().host.unwrap().mtu, Some(Fact::ioctl(1500)));
    assert!(s.identity("v1").is_err() || s.identity("v1").unwrap().host.unwrap().mtu.is_none());
}

/// `ethtool`'s own view of a netdev in namespace `ns`: the value after `label` in section
/// `section` of `ethtool ARGS` (`"n/a"` as `None`).
fn ethtool_value(ns: &str, args: &[&str], section: &str, label: &str) -> Option<u32> {
    let out = std::process::Command::new("ip").args(["netns", "exec", ns, "ethtool"]).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let after = text.split(section).nth(1)?;
    let line = after.lines().find(|l| l.trim_start().starts_with(label))?;
    line.split(':').nth(1)?.trim().parse().ok()
}

/// veth answers CHANNELS_GET with rx and tx channels up to the queues it was made with
/// (drivers/net/veth.c veth_get_channels: max = the device's real queue counts), and no
/// RINGS_GET (EOPNOTSUPP, as `ethtool -g` says). `ethtool -L` changes them; what optics
/// reads is what `ethtool -l` then prints.
#[test]
fn veth_channels_follow_ethtool_set_and_rings_are_not_reported() {
    let Some(ns) = Netns::create("optics-h") else { return };
    ip(&["-n", &ns.name, "link", "add", "q0", "numtxqueues", "4", "numrxqueues", "4", "type", "veth", "peer", "name", "q1"]).unwrap();
    let ethtool =
        |args: &[&str]| std::process::Command::new("ip").args(["netns", "exec", &ns.name, "ethtool"]).args(args).status().map(|s| s.code());
    // Rings: veth has no get_ringparam, so neither ethtool nor optics gets any.
    assert_ne!(ethtool(&["-g", "q0"]).unwrap(), Some(0));
    assert_eq!(ethtool(&["-L", "q0", "rx", "3", "tx", "2"]).unwrap(), Some(0));
    let name = ns.name.clone();
    let h = std::thread::spawn(move || {
        let ns = Netns { name };
        ns.enter();
        let h = LiveSource::new().identity("q0").unwrap().host.unwrap();
        std::mem::forget(ns); // the outer `ns` owns the namespace
        h
    })
    .join()
    .unwrap();
    assert_eq!(h.rings, None);
    let c = h.channels.expect("veth answers CHANNELS_GET");
    assert_eq!(c.from, FactSource::Netlink);
    let c = c.value;
    assert_eq!((c.rx, c.rx_max, c.tx, c.tx_max), (Some(3), Some(4), Some(2), Some(4)));
    assert_eq!((c.combined, c.other), (None, None), "veth has no combined or other channels (max 0, n/a)");
    let current = "Current hardware settings:";
    let maxima = "Pre-set maximums:";
    assert_eq!(ethtool_value(&ns.name, &["-l", "q0"], current, "RX:"), c.rx);
    assert_eq!(ethtool_value(&ns.name, &["-l", "q0"], current, "TX:"), c.tx);
    assert_eq!(ethtool_value(&ns.name, &["-l", "q0"], maxima, "RX:"), c.rx_max);
    assert_eq!(ethtool_value(&ns.name, &["-l", "q0"], current, "Combined:"), None);
    // More than the maximum is refused by the kernel, and nothing changes.
    assert_ne!(ethtool(&["-L", "q0", "rx", "5"]).unwrap(), Some(0));
    assert_eq!(ethtool_value(&ns.name, &["-l", "q0"], current, "RX:"), Some(3));
}

/// veth has no pause statistics (PAUSE_GET answers EOPNOTSUPP, kernel-uapi.md §10): the
/// source says so once and does not ask again on later samples.
#[test]
fn veth_pause_statistics_are_not_supported_and_asked_once() {
    let Some(ns) = Netns::create("optics-h") else { return };
    ns.enter();
    let mut s = LiveSource::new();
    let first = s.pause_stats("v0").unwrap_err();
    assert!(first.is_not_supported(), "{first}");
    let asked = s.io_counts().requests;
    assert!(s.pause_stats("v0").unwrap_err().is_not_supported());
    assert_eq!(s.io_counts().requests, asked, "a driver without pause statistics is not asked again");
}
