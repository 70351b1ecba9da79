//! The host line (docs/host.md "The host line"): one line per NIC that says `nothing wrong`
//! or names the host codes raised, what each check saw (firmware against the NICs of its
//! model, NUMA node and nearest GPUs, MTU against the node's other ports, rings,
//! channels, IRQs, pause and discards over the window) and what could not be checked.
//! Node trees are the two-socket node of `support::host_node` (laid out to the kernel's ABI).

use super::support::captures::{cx7_port, simple_capture, sr4_200g};
use super::support::host_node::{add, healthy_facts, two_socket_node, with_host, Function};
use super::support::optics;
use optics::device::host::{Fact, Irq};
use optics::source::sysfs::Sysfs;
use serde_json::{json, Value};
use std::fs;
use std::path::Path;

/// mlx5's pause and discard counters (`rx_pause_ctrl_phy`, `rx_prioN_pause`,
/// `rx_discards_phy`, `rx_out_of_buffer`) on every sample, never moving.
fn quiet_pause_counters(capture: &str) -> String {
    let mut out = String::new();
    for line in capture.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["record"] == "sample" {
            let d = &mut v["driver_stats"];
            for p in 0..8 {
                d[format!("rx_prio{p}_pause")] = json!(0);
                d[format!("tx_prio{p}_pause")] = json!(0);
            }
            for name in ["rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_discards_phy", "rx_out_of_buffer"] {
                d[name] = json!(0);
            }
        }
        out += &(v.to_string() + "\n");
    }
    out
}

/// `scan --replay` of `capture`: the text's `host` lines (sorted), and the JSON.
fn scan(dir: &Path, capture: &str) -> (Vec<String>, Value) {
    let file = dir.join("node.jsonl");
    fs::write(&file, capture).unwrap();
    let out = optics().args(["scan", "--all", "--replay"]).arg(&file).env("COLUMNS", "1000").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let mut lines: Vec<String> = text.lines().filter(|l| l.trim_start().starts_with("host ")).map(|l| l.trim().to_string()).collect();
    lines.sort();
    let out = optics().args(["scan", "--json", "--replay"]).arg(&file).assert().success().get_output().stdout.clone();
    (lines, serde_json::from_slice(&out).unwrap())
}

fn of<'v>(v: &'v Value, iface: &str) -> &'v Value {
    v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap()
}

/// Both NICs of the two-socket node as a healthy node has them: one firmware, MTU 9000,
/// rings at their maximum, a queue per CPU of the node (32 of the 32), every IRQ on a CPU
/// of its own node (socket 0 is CPUs 0-15 and 32-47, socket 1 16-31 and 48-63), a GPU
/// behind the same switch (socket 0) or host bridge (socket 1), pause and discard
/// counters present and still. Each NIC's host line says so, with what it saw.
#[test]
fn a_node_with_nothing_wrong_says_so_in_one_line_per_nic() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let facts = |iface: &str| {
        let mut h = healthy_facts(&s, iface);
        let cpus: [u32; 2] = if iface == "ens1np0" { [3, 33] } else { [16, 48] };
        h.irqs = Some(Fact::procfs(cpus.iter().zip(60..).map(|(c, irq)| Irq { irq, cpus: vec![*c] }).collect()));
        h
    };
    let ports = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4]), cx7_port("ens2np0", sr4_200g("SN2", [-1.0; 4]), [1e3; 4])];
    let (lines, v) = scan(tmp.path(), &quiet_pause_counters(&with_host(&simple_capture(&ports, 6, 1), facts)));
    let window = |iface: &str| format!("{:.0}", of(&v, iface)["link"]["duration_s"].as_f64().unwrap());
    let common = "mlx5_core 6.8.0-45-generic, firmware 28.39.1002 (MT_0000000838) on all 2 NICs of its model";
    let rest = "MTU 9000 as on 1 other port, rings rx 8192/8192 tx 8192/8192, channels 32 combined of 63 for 32 CPUs on its \
                NUMA node, 2 IRQs on its NUMA node";
    assert_eq!(
        lines,
        [
            format!(
                "host     nothing wrong: {common}, NUMA node 0, {rest}, no pause frames or discards over {} s; nearest GPU \
                 0000:1b:00.0 PIX (behind one PCIe switch), others 1 NODE, 1 SYS",
                window("ens1np0")
            ),
            format!(
                "host     nothing wrong: {common}, NUMA node 1, {rest}, no pause frames or discards over {} s; nearest GPU \
                 0000:9c:00.0 PHB (on one host bridge), others 2 SYS",
                window("ens2np0")
            ),
        ]
    );
    for iface in ["ens1np0", "ens2np0"] {
        let host = &of(&v, iface)["host"];
        assert_eq!((&host["problems"], &host["not_checked"]), (&json!([]), &json!([])), "{iface}");
        assert_eq!((&host["firmware_peers"], &host["mtu_peers"]), (&json!(1), &json!(1)), "{iface}");
    }
}

/// One Intel E810 port on a node without GPUs whose kernel knows no NUMA node, with none
/// of GDRVINFO's firmware, rings, channels, IRQs or pause counters: its line says nothing
/// wrong with what it saw and names each thing it could not check; the verdict, reasons
/// and advice are those of the same capture without host facts.
#[test]
fn a_node_without_gpus_or_such_counters_says_what_it_could_not_check() {
    let tmp = tempfile::tempdir().unwrap();
    let nic = Function {
        path: "pci0000:00/0000:00:03.0",
        vendor: 0x8086,
        device: 0x1592,
        class: 0x020000,
        numa: -1,
        driver: Some("ice"),
        netdev: Some(("eth0", 1500)),
    };
    add(tmp.path(), &nic);
    let s = Sysfs::new(tmp.path());
    let port = [cx7_port("eth0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
    let plain = simple_capture(&port, 6, 1);
    let (lines, v) = scan(tmp.path(), &with_host(&plain, |i| s.host_facts(i).unwrap()));
    assert_eq!(
        lines,
        ["host     nothing wrong: ice, MTU 1500; could not check GPU locality: no GPUs found on this node; firmware \
          version: the driver reports none; ring sizes: not reported (the driver answers no RINGS_GET, or the source did \
          not read them); channels: not reported (the driver answers no CHANNELS_GET, or the source did not read them); \
          IRQ placement: the NIC's interrupts or its NUMA node's CPUs were not read; pause and discards: no pause, discard \
          or out-of-buffer counter read"]
    );
    let (_, before) = scan(tmp.path(), &plain);
    let judged = |v: &Value| {
        let i = of(v, "eth0");
        (i["verdict"].clone(), i["reasons"].clone(), i["advice"].clone())
    };
    assert_eq!(judged(&v), judged(&before));
}

/// The Markdown report's node section carries the same line.
#[test]
fn the_report_carries_the_host_line() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), false);
    fs::write(tmp.path().join("sys/class/net/ens2np0/mtu"), "1500\n").unwrap();
    let s = Sysfs::new(tmp.path());
    let ports = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4]), cx7_port("ens2np0", sr4_200g("SN2", [-1.0; 4]), [1e3; 4])];
    let file = tmp.path().join("r.jsonl");
    fs::write(&file, with_host(&simple_capture(&ports, 6, 1), |i| s.host_facts(i).unwrap())).unwrap();
    let md = tmp.path().join("r.md");
    optics().arg("report").arg(&file).arg("-o").arg(&md).assert().success();
    let md = fs::read_to_string(&md).unwrap();
    // Two ports, 9000 and 1500: no MTU is most ports', so both are told; socket 0's NIC
    // has two IRQs off its node (the tree's), socket 1's only GPUs on socket 0.
    let socket0 = "- Host beneath the link: mtu_mismatch, irqs_off_numa_node: mlx5_core, NUMA node 0, MTU 9000, 2 of 4 IRQs \
                   off its NUMA node (42 43); nearest GPU 0000:1b:00.0 PIX";
    let socket1 = "- Host beneath the link: host_numa_remote, mtu_mismatch: mlx5_core, NUMA node 1, MTU 1500; nearest GPUs \
                   0000:1b:00.0 0000:2b:00.0 SYS";
    assert!(md.contains(socket0) && md.contains(socket1), "{md}");
}
