//! Driver-private counters on the real kernel: a veth pair with 4 queues in a throw-away
//! network namespace, whose counter set changes size with its channel count
//! (`ethtool -L`). Needs root, `ip netns` and `ethtool`; skips with a printed reason
//! otherwise.

use crate::support;
use optics::source::ioctl::Ethtool;
use optics::source::netlink::Dev;
use std::collections::BTreeSet;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;

#[allow(dead_code)]
use support::netns::{ip, Netns};

fn ifindex(name: &str) -> u32 {
    let c = std::ffi::CString::new(name).expect("test names have no NUL");
    // SAFETY: valid NUL-terminated string.
    unsafe { libc::if_nametoindex(c.as_ptr()) }
}

/// `ethtool -S` of `iface` in `ns`: the counter names, or `None` without the tool.
fn ethtool_names(ns: &str, iface: &str) -> Option<BTreeSet<String>> {
    let out = Command::new("ip").args(["netns", "exec", ns, "ethtool", "-S", iface]).output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    // "NIC statistics:" then one "     name: value" line per counter.
    Some(text.lines().skip(1).filter_map(|l| l.split_once(':')).map(|(n, _)| n.trim().to_string()).collect())
}

/// Whether the kernel answers a GSTATS asking for 1 value (the driver has more) with
/// count 0 (upstream 7b07be1ff1cb), found with a raw ioctl of this test's own
/// (include/uapi/linux/ethtool.h: ETHTOOL_GSTATS 0x1d, `{u32 cmd; u32 n_stats; u64 data[]}`).
fn kernel_refuses_wrong_counts(iface: &str) -> bool {
    // SAFETY: socket(2) takes no pointers.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    assert!(fd >= 0, "socket: {}", std::io::Error::last_os_error());
    // SAFETY: a fresh descriptor owned by nothing else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    // Room for any count an old kernel may write for a veth (a few per queue).
    let mut buf = vec![0u8; 8 + 8 * 4096];
    buf[..4].copy_from_slice(&0x1du32.to_ne_bytes());
    buf[4..8].copy_from_slice(&1u32.to_ne_bytes());
    // SAFETY: all-zero ifreq is valid; the name is short and NUL-terminated by the zeroes.
    let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
    for (d, s) in ifr.ifr_name.iter_mut().zip(iface.bytes()) {
        *d = s as libc::c_char;
    }
    ifr.ifr_ifru.ifru_data = buf.as_mut_ptr().cast();
    // SAFETY: ifr_data points to a buffer larger than anything the kernel writes here.
    let rc = unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCETHTOOL as _, &mut ifr as *mut libc::ifreq) };
    assert_eq!(rc, 0, "GSTATS: {}", std::io::Error::last_os_error());
    u32::from_ne_bytes(buf[4..8].try_into().unwrap()) == 0
}

#[test]
fn driver_stats_follow_a_channel_change() {
    let Some(ns) = Netns::create("optics-ds") else { return };
    let q = ["numtxqueues", "4", "numrxqueues", "4"];
    let mut add = vec!["-n", &ns.name, "link", "add", "w0"];
    add.extend(q);
    add.extend(["type", "veth", "peer", "name", "w1"]);
    add.extend(q);
    ip(&add).unwrap();
    ip(&["-n", &ns.name, "link", "set", "w0", "up"]).unwrap();
    ip(&["-n", &ns.name, "link", "set", "w1", "up"]).unwrap();
    let Some(names_4q) = ethtool_names(&ns.name, "w0") else {
        eprintln!("skipping: no ethtool");
        return;
    };
    ns.enter();
    let refuses = kernel_refuses_wrong_counts("w0");
    let mut e = Ethtool::open().unwrap();
    let dev = Dev { name: "w0".into(), ifindex: Some(ifindex("w0")), driver: None };

    let first = e.driver_stats(&dev).unwrap();
    assert_eq!(first.iter().map(|(n, _)| n.to_string()).collect::<BTreeSet<_>>(), names_4q);
    assert_eq!(first.get("peer_ifindex"), Some(u64::from(ifindex("w1"))));
    // A sample once the names are known: GSTATS alone where the kernel checks the count
    // itself, else GSSET_INFO first.
    for _ in 0..3 {
        let before = e.io_counts().requests;
        assert_eq!(e.driver_stats(&dev).unwrap().len(), names_4q.len());
        assert_eq!(e.io_counts().requests - before, if refuses { 1 } else { 2 }, "refuses wrong counts: {refuses}");
    }

    // Two channels: fewer per-queue counters. The next read has the new set, values and all.
    let out = Command::new("ip").args(["netns", "exec", &ns.name, "ethtool", "-L", "w0", "rx", "2", "tx", "2"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names_2q = ethtool_names(&ns.name, "w0").unwrap();
    assert!(names_2q.len() < names_4q.len() && names_2q.contains("rx_queue_1_xdp_packets") && !names_2q.contains("rx_queue_2_xdp_packets"));
    let after = e.driver_stats(&dev).unwrap();
    assert_eq!(after.iter().map(|(n, _)| n.to_string()).collect::<BTreeSet<_>>(), names_2q);
    assert_eq!(after.get("peer_ifindex"), Some(u64::from(ifindex("w1"))));
    let before = e.io_counts().requests;
    assert_eq!(e.driver_stats(&dev).unwrap().len(), names_2q.len());
    assert_eq!(e.io_counts().requests - before, if refuses { 1 } else { 2 });
}
