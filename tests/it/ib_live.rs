//! InfiniBand ports on the live system path: `serve`, and `scan` with and without names,
//! read the kernel's `/sys/class/infiniband` as they would on a node with HCAs. A tree laid
//! out byte for byte as the kernel's ABI gives it (support::ib_sysfs:
//! Documentation/ABI/stable/sysfs-class-infiniband) is laid over `/sys` in a private mount
//! namespace inside a throw-away network namespace (`Netns::over_sys`: no host netdev is
//! discovered, and the binary has no knob: it reads `/sys`). Needs root, `ip netns`,
//! `unshare` and overlayfs; prints `skipping: <reason>` and passes otherwise.
//!
//! Expected values are what the test wrote into the tree (IBTA PortCounters: PortRcvData in
//! 4-octet units), never read back from optics.

use crate::support;
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};
use support::ib_sysfs::{add_hca, set_port, PortSpec};
use support::netns::{ip, Netns};
use support::serve::{bin, get, samples, wait_for_interfaces, Serve};

const HCA_BDF: &str = "0000:3b:00.0";
const ROCE_BDF: &str = "0000:5e:00.0";

/// An NDR HCA with its IPoIB netdev, and beside it a RoCE HCA (link layer Ethernet), which
/// is no InfiniBand port of its own: its netdev is the interface.
fn tree(root: &Path) {
    add_hca(root, "mlx5_0", HCA_BDF, Some("ibp59s0"), &[PortSpec::ndr(1)]);
    add_hca(root, "mlx5_1", ROCE_BDF, None, &[PortSpec { link_layer: "Ethernet", rate: "400 Gb/sec (4X)", ..PortSpec::ndr(1) }]);
}

/// A namespace whose programs see `tree` over /sys; `None` (after saying why) where this
/// machine cannot run the test.
fn setup() -> Option<(Netns, tempfile::TempDir)> {
    let ns = Netns::create("optics-ib")?;
    let tmp = tempfile::tempdir().unwrap();
    tree(tmp.path());
    ns.over_sys_works(tmp.path()).then_some((ns, tmp))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn value_of(body: &str, series: &str) -> Option<f64> {
    samples(body).into_iter().find(|(s, _)| s == series).map(|(_, v)| v)
}

#[test]
fn serve_discovers_samples_and_exports_a_live_ib_port() {
    let Some((ns, tmp)) = setup() else { return };
    let root = tmp.path();
    ip(&["-n", &ns.name, "link", "set", "lo", "up"]).unwrap();
    let mut cmd = ns.over_sys(root);
    cmd.arg(bin()).args(["serve", "--interval", "200ms", "--rediscover", "1s", "--listen", "127.0.0.1:0"]);
    let mut serve = Serve::start(cmd);
    // The exporter listens on the namespace's loopback: this test thread goes there too.
    ns.enter();
    // Discovery with no names: the IB port; not the RoCE port's HCA port, not the veths
    // (no module, no FEC statistics).
    wait_for_interfaces(&serve, &["mlx5_0/1"]);
    let body = get(serve.addr, "/metrics", &[]).unwrap().body;
    let i = r#"interface="mlx5_0/1""#;
    assert_eq!(
        value_of(&body, &format!(r#"optics_ib_port_info{{{i},hca="mlx5_0",port="1",speed="NDR",width="4X"}}"#)),
        Some(1.0),
        "{body}"
    );
    // 4X NDR: 4 lanes of 100 Gb/s; state 4: ACTIVE is up.
    assert_eq!(value_of(&body, &format!("optics_link_speed_bits_per_second{{{i}}}")), Some(400e9), "{body}");
    assert_eq!(value_of(&body, &format!("optics_link_up{{{i}}}")), Some(1.0), "{body}");
    assert_eq!(value_of(&body, &format!("optics_ib_symbol_errors_total{{{i}}}")), Some(0.0), "{body}");
    assert!(!body.contains("mlx5_1"), "the RoCE port is no InfiniBand port: {body}");

    // The counters rise under the running exporter: 7 symbol errors, 1000 data units of 4 octets.
    set_port(root, "mlx5_0", &PortSpec { counters: vec![("symbol_error", 7), ("port_rcv_data", 1000)], ..PortSpec::ndr(1) });
    let deadline = Instant::now() + Duration::from_secs(15);
    let body = loop {
        let body = get(serve.addr, "/metrics", &[]).map(|r| r.body).unwrap_or_default();
        if value_of(&body, &format!("optics_ib_symbol_errors_total{{{i}}}")) == Some(7.0) {
            break body;
        }
        assert!(Instant::now() < deadline, "the rise never showed: {body}\nlog: {}", serve.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(value_of(&body, &format!("optics_ib_port_rcv_data_bytes_total{{{i}}}")), Some(4000.0), "{body}");
    assert!(serve.alive());
    let log = serve.stderr.lock().unwrap().clone();
    assert!(!log.contains("<3>"), "an error was logged: {log}");
}

/// Named, an IB port is served while sysfs has it, beside a netdev named with it.
#[test]
fn serve_samples_a_named_ib_port_beside_a_netdev() {
    let Some((ns, tmp)) = setup() else { return };
    ip(&["-n", &ns.name, "link", "set", "lo", "up"]).unwrap();
    let mut cmd = ns.over_sys(tmp.path());
    cmd.arg(bin()).args(["serve", "mlx5_0/1", "v0", "--interval", "200ms", "--listen", "127.0.0.1:0"]);
    let serve = Serve::start(cmd);
    ns.enter();
    wait_for_interfaces(&serve, &["mlx5_0/1", "v0"]);
    let body = get(serve.addr, "/metrics", &[]).unwrap().body;
    assert_eq!(value_of(&body, r#"optics_ib_symbol_errors_total{interface="mlx5_0/1"}"#), Some(0.0), "{body}");
}

#[test]
fn scan_with_no_names_finds_the_ib_port_and_scan_of_it_reads_it() {
    let Some((ns, tmp)) = setup() else { return };
    let root = tmp.path();
    for args in [
        &["scan", "--window", "2s", "--interval", "500ms", "--json"][..],
        &["scan", "mlx5_0/1", "--window", "2s", "--interval", "500ms", "--json"],
    ] {
        let mut cmd = ns.over_sys(root);
        let out = cmd.arg(bin()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: exit {:?}: {}", out.status, text(&out.stderr));
        let j: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
        let names: Vec<&str> = j["interfaces"].as_array().unwrap().iter().map(|i| i["interface"].as_str().unwrap()).collect();
        assert_eq!(names, ["mlx5_0/1"], "{args:?}");
        assert_eq!(j["source"]["kind"], "live");
        let p = &j["interfaces"][0];
        let ib = &p["infiniband"];
        assert_eq!((&ib["hca"], &ib["port"], &ib["netdev"]), (&"mlx5_0".into(), &1.into(), &"ibp59s0".into()), "{ib}");
        assert_eq!(ib["rate"], "400 Gb/sec (4X NDR)");
        assert_eq!(p["link"]["speed_mbps"], 400_000);
        // The HCA's `device` link reaches its PCI function: identity, firmware, PCIe link.
        assert_eq!(p["host"]["pci_id"]["value"], "15b3:1021", "{}", p["host"]);
        assert_eq!(p["host"]["firmware_version"]["value"], "28.39.1002");
        assert_eq!((&p["pcie"]["current_speed_gts"], &p["pcie"]["current_width"]), (&32.0.into(), &16.into()), "{}", p["pcie"]);
        // Every counter 0 over the window: nothing to hold against the port.
        assert_eq!(p["verdict"], "accept", "{}", p["reasons"]);
    }
}

#[test]
fn without_ib_devices_scan_behaves_as_before() {
    let Some(ns) = Netns::create("optics-noib") else { return };
    // The namespace's /sys has no class/infiniband (as a host without HCAs) and its veths
    // have no module or FEC statistics: discovery finds nothing and says so, exit 1.
    let mut cmd = std::process::Command::new("ip");
    let out = cmd.args(["netns", "exec", &ns.name]).arg(bin()).args(["scan", "--window", "1s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stderr).trim(),
        "optics: error: no network interface with a readable module or FEC statistics was found; name one (e.g. optics scan IFACE) or use --replay FILE"
    );
}
