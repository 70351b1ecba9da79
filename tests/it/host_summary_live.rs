//! The host line on the real kernel: `optics scan` of a veth pair in a throw-away network
//! namespace (`ip netns exec`, never the host's interfaces). Needs root and `ip netns`;
//! skips with a printed reason otherwise.
//!
//! veth answers GDRVINFO with driver `veth` version `1.0` and no firmware, CHANNELS_GET
//! with its queues, no RINGS_GET and no pause statistics, and sits on no PCI function: its
//! line says what it saw and that GPU locality, firmware, rings, IRQs and pause could not
//! be checked; an MTU set on one end only is `mtu_mismatch` on both (two ports, no
//! majority).

use crate::support;
use std::process::Command;

#[allow(dead_code)]
use support::netns::{ip, Netns};

/// The `host` lines of `optics scan v0 v1` run in `ns`, in interface order.
fn host_lines(ns: &Netns) -> Vec<String> {
    let bin = assert_cmd::cargo::cargo_bin!("optics");
    let out = Command::new("ip")
        .args(["netns", "exec", &ns.name])
        .arg(bin)
        .args(["scan", "v0", "v1", "--window", "1s", "--interval", "500ms"])
        .env("COLUMNS", "1000")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.code().is_some(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    text.lines().filter(|l| l.trim_start().starts_with("host ")).map(|l| l.trim().to_string()).collect()
}

#[test]
fn a_veth_pair_at_one_mtu_has_nothing_wrong_and_one_end_changed_is_named() {
    let Some(ns) = Netns::create("optics-hs") else { return };
    for end in ["v0", "v1"] {
        ip(&["-n", &ns.name, "link", "set", end, "mtu", "9000"]).unwrap();
    }
    let not_checked = "could not check GPU locality: not a PCI function, or GPUs were not looked for; firmware version: \
                       the driver reports none; ring sizes: not reported";
    let lines = host_lines(&ns);
    assert_eq!(lines.len(), 2, "{lines:?}");
    for l in &lines {
        assert!(l.starts_with("host     nothing wrong: veth 1.0, MTU 9000 as on 1 other port, channels "), "{l}");
        assert!(l.contains(not_checked) && l.contains("; pause and discards: "), "{l}");
    }
    ip(&["-n", &ns.name, "link", "set", "v1", "mtu", "1500"]).unwrap();
    let lines = host_lines(&ns);
    assert!(lines[0].starts_with("host     mtu_mismatch: veth 1.0, MTU 9000, channels "), "{lines:?}");
    assert!(lines[1].starts_with("host     mtu_mismatch: veth 1.0, MTU 1500, channels "), "{lines:?}");
}
