//! Real-kernel tests of the netlink and ioctl paths on a veth pair inside a throw-away
//! network namespace (never the host's interfaces). Needs root and `ip netns`; skips
//! with a printed reason otherwise. Expected answers: kernel-uapi.md §10 (6.18, veth).

use crate::support;
use optics::module::PageRequest;
use optics::source::ioctl::Ethtool;
use optics::source::live::LiveSource;
use optics::source::netlink::consts::{ETHTOOL_MSG_FEC_GET, ETHTOOL_MSG_LINKSTATE_GET};
use optics::source::netlink::{eeprom, linkmodes, Dev, Netlink};
use optics::source::{Source, SourceError};
use std::process::Command;

#[allow(dead_code)]
use support::netns::{ip, Netns};

/// ifindex in the calling thread's netns (0 when absent).
fn ifindex(name: &str) -> u32 {
    let c = std::ffi::CString::new(name).expect("test names have no NUL");
    // SAFETY: valid NUL-terminated string.
    unsafe { libc::if_nametoindex(c.as_ptr()) }
}

#[test]
fn live_source_on_veth() {
    let Some(ns) = Netns::create("optics-t") else { return };
    ns.enter();
    let mut s = LiveSource::new();

    let st = s.link_state("v0").unwrap();
    assert_eq!(st.up, Some(true));
    // veth gives LINK only (§4).
    assert_eq!((st.ext_state, st.down_events), (None, None));

    let info = s.link_info("v0").unwrap();
    assert_eq!(info.speed_mbps, Some(10_000));
    assert_eq!(info.lanes, None); // veth omits LANES
    assert_eq!(info.link_mode, None); // OURS is empty
    assert_eq!(info.fec_active, None);

    let id = s.identity("v0").unwrap();
    assert_eq!(id.driver.as_deref(), Some("veth"));

    // veth has 10 counters; peer_ifindex is v1's ifindex.
    let stats = s.driver_stats("v0").unwrap();
    assert_eq!(stats.len(), 10, "{stats:?}");
    assert_eq!(stats.get("peer_ifindex"), Some(u64::from(ifindex("v1"))));

    let fec = s.fec("v0").unwrap_err();
    assert!(fec.is_not_supported(), "{fec}");
    assert!(fec.to_string().contains("driver veth"), "{fec}");
    let ee = s.read_eeprom("v0", PageRequest::lower(0x50)).unwrap_err();
    assert!(ee.is_not_supported() && ee.to_string().contains("veth"), "{ee}");

    let p = s.paths("v0");
    assert_eq!((p.link.as_deref(), p.fec.as_deref(), p.module.as_deref()), (Some("netlink"), Some("netlink"), Some("netlink")));
    assert_eq!(p.driver_stats.as_deref(), Some("ioctl"));
    assert!(p.unavailable.iter().any(|u| u == "FEC statistics: not supported by driver veth"), "{:?}", p.unavailable);
    assert!(s.io_counts().requests >= 6 && s.io_counts().bytes > 0);

    // An ifindex given as a decimal string names the same device.
    let by_index = s.link_state(&ifindex("v0").to_string()).unwrap();
    assert_eq!(by_index.up, Some(true));

    // Peer down: v0 loses carrier.
    ip(&["-n", &ns.name, "link", "set", "v1", "down"]).unwrap();
    assert_eq!(s.link_state("v0").unwrap().up, Some(false));
}

#[test]
fn ioctl_paths_on_veth() {
    let Some(ns) = Netns::create("optics-t") else { return };
    ns.enter();
    let mut e = Ethtool::open().unwrap();
    let dev = Dev::named("v0");
    let d = e.drvinfo(&dev).unwrap();
    assert_eq!((d.driver.as_str(), d.version.as_str(), d.n_stats), ("veth", "1.0", 10));
    assert!(e.link_up(&dev).unwrap());
    let ls = e.link_settings(&dev).unwrap();
    assert_eq!((ls.speed_mbps, ls.duplex), (Some(10_000), Some(1)));
    assert!(e.fec_active(&dev).unwrap_err().is_not_supported());
    assert!(e.module_eeprom(&dev, PageRequest::lower(0x50)).unwrap_err().is_not_supported());
    let stats = e.driver_stats(&dev).unwrap();
    assert!(stats.get("rx_queue_0_xdp_packets").is_some(), "{stats:?}");
    let missing = e.drvinfo(&Dev::named("nosuch0")).unwrap_err();
    assert!(missing.is_no_device(), "{missing}");
}

#[test]
fn unknown_interface_keeps_kernel_text() {
    let Some(ns) = Netns::create("optics-t") else { return };
    ns.enter();
    let mut s = LiveSource::new();
    let e = s.link_state("nosuch0").unwrap_err();
    assert!(e.is_no_device(), "{e}");
    assert_eq!(e.kernel_message(), Some("no device matches name"));
    assert!(e.to_string().contains("no device matches name"), "{e}");
    // An ifindex that does not exist.
    assert!(s.link_state("4000000").unwrap_err().is_no_device());
}

#[test]
fn kernel_rejects_cross_half_page_read() {
    let Some(ns) = Netns::create("optics-t") else { return };
    ns.enter();
    let mut nl = Netlink::connect().unwrap();
    let fam = nl.ethtool_family().unwrap().expect("ethtool family on 6.18");
    let dev = Dev::named("v0");
    // Offset 100 + 64 bytes crosses the lower/upper boundary at 128.
    let bad = PageRequest::new(0x50, 0, 0, 100, 64);
    assert!(!bad.is_valid());
    // Checked locally: nothing is sent.
    let before = nl.io_counts().requests;
    assert!(matches!(nl.module_eeprom(fam.id, &dev, bad), Err(SourceError::Unavailable { .. })));
    assert_eq!(nl.io_counts().requests, before);
    // Sent raw, the kernel validates before calling the driver (§2).
    let e = nl.module_eeprom_raw(fam.id, &dev, &eeprom::request_attrs(&dev, &bad), "raw").unwrap_err();
    assert_eq!(e.errno(), Some(libc::EINVAL), "{e}");
    assert_eq!(e.kernel_message(), Some("reading cross half page boundary is illegal"));
}

#[test]
fn link_mode_table_matches_running_kernel() {
    let Some(ns) = Netns::create("optics-t") else { return };
    ns.enter();
    let mut nl = Netlink::connect().unwrap();
    let fam = nl.ethtool_family().unwrap().expect("ethtool family on 6.18");
    let names = nl.link_mode_names(fam.id).unwrap();
    assert!(names.len() >= 121, "{}", names.len());
    // Modes newer than the running kernel (the 1.6T bits 121-124 came after 6.18) are not in its set.
    let newest = names.iter().map(|(i, _)| *i).max().unwrap_or(0);
    for m in linkmodes::LINK_MODES.iter().filter(|m| m.bit <= newest) {
        let kernel = names.iter().find(|(i, _)| *i == m.bit).map(|(_, n)| n.as_str());
        assert_eq!(kernel, Some(m.name), "bit {}", m.bit);
    }
    for (bit, name) in optics::source::netlink::fec::FEC_MODE_BITS {
        assert_eq!(names.iter().find(|(i, _)| i == bit).map(|(_, n)| n.as_str()), Some(*name));
    }
}

#[test]
fn dumps_end_at_done() {
    let Some(ns) = Netns::create("optics-t") else { return };
    ns.enter();
    let mut nl = Netlink::connect().unwrap();
    let fam = nl.ethtool_family().unwrap().expect("ethtool family on 6.18");
    // HEADER(1) as an empty nest: dumps ignore the device (net/ethtool/netlink.c).
    let empty_header = [0x04, 0x00, 0x01, 0x80];
    // LINKSTATE: one reply per netdev of the namespace (lo, v0, v1).
    let r = nl.request(fam.id, ETHTOOL_MSG_LINKSTATE_GET, &empty_header, true, "dump", None).unwrap();
    assert_eq!(r.len(), 3);
    // FEC_GET: devices answering EOPNOTSUPP are skipped, so DONE comes with no replies.
    let r = nl.request(fam.id, ETHTOOL_MSG_FEC_GET, &empty_header, true, "dump", None).unwrap();
    assert!(r.is_empty());
}

const EPERM_CHILD_ENV: &str = "OPTICS_EPERM_CHILD";

/// Does something only inside the unprivileged child that `module_read_unprivileged_is_eperm` starts.
#[test]
fn eperm_child() {
    if std::env::var_os(EPERM_CHILD_ENV).is_none() {
        return;
    }
    let mut s = LiveSource::new();
    // LINKSTATE needs no privilege; MODULE_EEPROM_GET needs CAP_NET_ADMIN (§1.1).
    assert_eq!(s.link_state("v0").unwrap().up, Some(true));
    let e = s.read_eeprom("v0", PageRequest::lower(0x50)).unwrap_err();
    assert!(matches!(e, SourceError::Permission { .. }), "{e}");
    println!("EPERM-CHILD-OK");
}

#[test]
fn module_read_unprivileged_is_eperm() {
    let Some(ns) = Netns::create("optics-t") else { return };
    if Command::new("setpriv").arg("--version").output().is_err() {
        eprintln!("skipping: setpriv not available");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("ip")
        .args(["netns", "exec", &ns.name, "setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups"])
        .arg(&exe)
        .args(["--exact", "live_veth::eperm_child", "--nocapture", "--test-threads", "1"])
        .env(EPERM_CHILD_ENV, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && stdout.contains("EPERM-CHILD-OK"), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
}
