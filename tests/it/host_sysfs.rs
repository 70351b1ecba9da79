//! The host beneath the link from sysfs trees laid out as the kernel's ABI gives them: the
//! two-socket node of `support::host_node` (socket 0's NIC behind a PCIe switch with a GPU,
//! socket 1's on a host bridge with another). Expected distances follow from the layout
//! (PCIe Base 6.0 §1.3) in `nvidia-smi topo -m`'s legend.

use super::support::captures::{cx7_port, simple_capture, sr4_200g};
use super::support::host_node::{add, healthy_facts, two_socket_node, with_host, Function, GPU_SOCKET1, NIC_SOCKET0};
use super::support::optics;
use optics::device::host::{Channels, Fact, FactSource, HostFacts, PciDistance, Rings};
use optics::source::sysfs::Sysfs;
use serde_json::{json, Value};
use std::fs;

fn path(s: &str) -> Vec<String> {
    s.split('/').map(str::to_string).collect()
}

#[test]
fn two_socket_node_facts_come_from_sysfs() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let h = s.host_facts("ens1np0").unwrap();
    assert_eq!(h.driver, Some(Fact::sysfs("mlx5_core".to_string())));
    assert_eq!(h.pci_id, Some(Fact::sysfs("15b3:1021".to_string())));
    assert_eq!(h.numa_node, Some(Fact::sysfs(0)));
    assert_eq!(h.mtu, Some(Fact::sysfs(9000)));
    assert_eq!(h.pci_path, Some(Fact::sysfs(path(NIC_SOCKET0))));
    // sysfs holds no driver or firmware version: GDRVINFO gives them on a live node.
    assert_eq!((h.driver_version, h.firmware_version), (None, None));
    let gpus = h.gpus.unwrap();
    assert_eq!(gpus.from, FactSource::Sysfs);
    let found: Vec<(&str, &str, Option<i32>)> =
        gpus.value.iter().map(|g| (g.bus_info.as_str(), g.pci_id.as_deref().unwrap_or_default(), g.numa_node)).collect();
    assert_eq!(
        found,
        [("0000:1b:00.0", "10de:2330", Some(0)), ("0000:2b:00.0", "10de:2330", Some(0)), ("0000:9c:00.0", "10de:2330", Some(1))]
    );
    assert_eq!(gpus.value[2].pci_path, path(GPU_SOCKET1));
    assert_eq!(s.host_facts("eth9"), None);
    let cpus = h.node_cpus.unwrap();
    assert_eq!((cpus.from, cpus.value.len(), cpus.value[16]), (FactSource::Sysfs, 32, 32));
    let irqs = h.irqs.unwrap();
    assert_eq!(irqs.from, FactSource::Procfs);
    let found: Vec<(u32, usize)> = irqs.value.iter().map(|i| (i.irq, i.cpus.len())).collect();
    assert_eq!(found, [(40, 1), (41, 1), (42, 1), (43, 64)]);
    // Socket 1's NIC has no msi_irqs directory: not read, rather than none.
    assert_eq!(s.host_facts("ens2np0").unwrap().irqs, None);
}

/// IRQ 42 runs on CPU 16 (socket 1) and 43 may run on any CPU: two of four off the
/// NIC's node; 40 (CPU 3) and 41 (CPU 33, a socket-0 hyperthread) are on it.
#[test]
fn irqs_off_the_nics_numa_node_are_counted() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let a = optics::analysis::host::analyze_host(&Sysfs::new(tmp.path()).host_facts("ens1np0").unwrap());
    let irqs = a.irqs.unwrap();
    assert_eq!((irqs.total, irqs.off_node, irqs.off_node_irqs), (4, 2, vec![42, 43]));
    assert_eq!(a.node_cpus, Some(32));
}

/// Distances of each GPU from each NIC, worked out from the layout above.
#[test]
fn each_nic_sees_its_gpus_at_their_distance() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let placed = |nic: &str| {
        let a = optics::analysis::host::analyze_host(&s.host_facts(nic).unwrap());
        a.gpus.unwrap().into_iter().map(|g| (g.bus_info, g.distance)).collect::<Vec<_>>()
    };
    let own = |b: &str, d| (b.to_string(), d);
    use PciDistance::*;
    assert_eq!(placed("ens1np0"), [own("0000:1b:00.0", Pix), own("0000:2b:00.0", Node), own("0000:9c:00.0", Sys)]);
    assert_eq!(placed("ens2np0"), [own("0000:9c:00.0", Phb), own("0000:1b:00.0", Sys), own("0000:2b:00.0", Sys)]);
}

#[test]
fn a_nic_with_no_gpu_on_its_socket_has_only_remote_ones() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), false);
    let a = optics::analysis::host::analyze_host(&Sysfs::new(tmp.path()).host_facts("ens2np0").unwrap());
    let nearest: Vec<_> = a.nearest_gpus().iter().map(|g| (g.bus_info.as_str(), g.distance)).collect();
    assert_eq!(nearest, [("0000:1b:00.0", PciDistance::Sys), ("0000:2b:00.0", PciDistance::Sys)]);
}

#[test]
fn a_node_without_gpus_says_it_could_not_check_locality() {
    let tmp = tempfile::tempdir().unwrap();
    add(
        tmp.path(),
        &Function {
            path: "pci0000:00/0000:00:03.0",
            vendor: 0x8086,
            device: 0x1592,
            class: 0x020000,
            numa: -1,
            driver: Some("ice"),
            netdev: Some(("eth0", 1500)),
        },
    );
    let h = Sysfs::new(tmp.path()).host_facts("eth0").unwrap();
    assert_eq!((h.numa_node, h.gpus.map(|g| g.value.len())), (None, Some(0)));
    let a = optics::analysis::host::analyze_host(&Sysfs::new(tmp.path()).host_facts("eth0").unwrap());
    assert!(a.not_checked.iter().any(|n| n.contains("no GPUs found")), "{:?}", a.not_checked);
}

/// Host facts written into a capture read back through `scan --replay`: a `host` line
/// between PCIe and link in the text, a `host` object in the JSON.
#[test]
fn recorded_host_facts_show_in_scan() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let facts = healthy_facts(&s, "ens1np0");
    let capture = with_host(&simple_capture(&[cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])], 6, 1), |_| facts.clone());
    let file = tmp.path().join("host.jsonl");
    fs::write(&file, capture).unwrap();

    // What record writes, replay reads.
    let back = optics::capture::read_capture(&file).unwrap();
    let rec = back.interface_records_for("ens1np0").next().unwrap();
    assert_eq!(rec.host.as_ref(), Some(&facts));

    let out = optics().args(["scan", "--all", "--replay"]).arg(&file).env("COLUMNS", "1000").assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at =
        |label: &str| lines.iter().position(|l| l.trim_start().starts_with(label)).unwrap_or_else(|| panic!("no {label} line:\n{text}"));
    assert!(at("pcie") < at("host") && at("host") < at("link"), "{text}");
    assert_eq!(
        lines[at("host")].trim(),
        "host     irqs_off_numa_node: mlx5_core 6.8.0-45-generic, firmware 28.39.1002 (MT_0000000838), NUMA node 0, \
         MTU 9000, rings rx 8192/8192 tx 8192/8192, channels 32 combined of 63 for 32 CPUs on its NUMA node, 2 of 4 IRQs \
         off its NUMA node (42 43); nearest GPU 0000:1b:00.0 PIX (behind one PCIe switch), others 1 NODE, 1 SYS; could \
         not check pause and discards: no pause, discard or out-of-buffer counter read"
    );

    let out = optics().args(["scan", "--json", "--replay"]).arg(&file).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let host = &v["interfaces"][0]["host"];
    assert_eq!(host["firmware_version"], json!({"value": "28.39.1002 (MT_0000000838)", "from": "ioctl"}));
    assert_eq!(host["mtu"], json!({"value": 9000, "from": "sysfs"}));
    assert_eq!(host["gpus"][0]["distance"], "PIX");
    assert_eq!(host["not_checked"], json!(["pause and discards: no pause, discard or out-of-buffer counter read"]));
    assert_eq!(host["problems"], json!(["irqs_off_numa_node"]));
}

/// Socket 1's NIC with no GPU on its socket, left at MTU 1500 where the configuration
/// expects 9000, on another firmware than socket 0's NIC of the same model: `scan` names
/// it with the GPUs it should be beside, and says what to change.
#[test]
fn a_remote_nic_at_the_wrong_mtu_on_other_firmware_is_named() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), false);
    fs::write(tmp.path().join("sys/class/net/ens2np0/mtu"), "1500\n").unwrap();
    let s = Sysfs::new(tmp.path());
    let facts = |iface: &str| {
        let mut h = s.host_facts(iface).unwrap();
        let fw = if iface == "ens1np0" { "28.39.1002 (MT_0000000838)" } else { "28.36.1010 (MT_0000000838)" };
        h.firmware_version = Some(Fact::ioctl(fw.into()));
        h
    };
    let ports = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4]), cx7_port("ens2np0", sr4_200g("SN2", [-1.0; 4]), [1e3; 4])];
    let file = tmp.path().join("node.jsonl");
    fs::write(&file, with_host(&simple_capture(&ports, 6, 1), facts)).unwrap();
    let cfg = tmp.path().join("cfg.json");
    fs::write(&cfg, r#"{"expected_mtu": 9000}"#).unwrap();

    let out =
        optics().args(["scan", "--json", "--replay"]).arg(&file).arg("--config").arg(&cfg).assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    let of = |iface: &str| v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap().clone();
    let host_reasons = |i: &Value| -> Vec<(String, String)> {
        i["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| ["host_numa_remote", "mtu_mismatch", "firmware_mismatch"].contains(&r["code"].as_str().unwrap()))
            .map(|r| (r["code"].as_str().unwrap().to_string(), r["message"].as_str().unwrap().to_string()))
            .collect()
    };
    let remote = of("ens2np0");
    let r = host_reasons(&remote);
    let want = |code: &str, msg: &str| (code.to_string(), msg.to_string());
    assert!(r.contains(&want("host_numa_remote", "NIC on NUMA node 1, its nearest GPUs 0000:1b:00.0, 0000:2b:00.0 on NUMA node 0: every transfer between them crosses the socket interconnect (SYS)")), "{r:?}");
    assert!(r.contains(&want("mtu_mismatch", "MTU 1500 where the configuration (expected_mtu) expects 9000")), "{r:?}");
    assert!(
        r.contains(&want("firmware_mismatch", "firmware 28.36.1010 where other NICs of this model (15b3:1021) run 28.39.1002 (ens1np0)")),
        "{r:?}"
    );
    let advice = remote["advice"].as_array().unwrap();
    assert!(advice.iter().any(|a| a.as_str().unwrap().starts_with("ens2np0: put the NIC in a slot on NUMA node 0")), "{advice:?}");
    assert!(
        advice.iter().all(|a| !a.as_str().unwrap().contains("mtu") || a.as_str().unwrap().contains("does not change the link")),
        "{advice:?}"
    );
    // Socket 0's NIC sits behind the switch with its GPU at 9000: only the firmware differs.
    let local = host_reasons(&of("ens1np0"));
    assert_eq!(local.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(), ["firmware_mismatch"]);
}

/// mlx5's default rings (1024 of 8192: MLX5E_PARAMS_DEFAULT_LOG_RQ_SIZE 10, maximum
/// 1 << 13) are an eighth of what the card holds, under the default `min_ring_fraction`
/// 0.5: `rings_below_max`, with the command that raises them. A port at 4096 of 8192
/// (exactly half) passes. `min_ring_fraction` 0.1 passes both.
#[test]
fn default_mlx5_rings_are_below_max_and_half_is_enough() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let facts = |iface: &str| {
        let mut h = s.host_facts(iface).unwrap();
        let (rx, tx) = if iface == "ens1np0" { (1024, 1024) } else { (4096, 4096) };
        h.rings = Some(Fact::netlink(Rings { rx: Some(rx), rx_max: Some(8192), tx: Some(tx), tx_max: Some(8192) }));
        h
    };
    let ports = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4]), cx7_port("ens2np0", sr4_200g("SN2", [-1.0; 4]), [1e3; 4])];
    let file = tmp.path().join("node.jsonl");
    fs::write(&file, with_host(&simple_capture(&ports, 6, 1), facts)).unwrap();
    let scan = |extra: &[&str]| -> Value {
        let out = optics().args(["scan", "--json", "--replay"]).arg(&file).args(extra).assert().success().get_output().stdout.clone();
        serde_json::from_slice(&out).unwrap()
    };
    let rings_reasons = |v: &Value, iface: &str| -> Vec<String> {
        let i = v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap();
        i["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["code"] == "rings_below_max")
            .map(|r| r["message"].as_str().unwrap().to_string())
            .collect()
    };
    let v = scan(&[]);
    assert_eq!(rings_reasons(&v, "ens1np0"), ["ring sizes rx 1024 of 8192, tx 1024 of 8192: below 50% of the maximum (min_ring_fraction)"]);
    assert!(rings_reasons(&v, "ens2np0").is_empty());
    let ens1 = v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == "ens1np0").unwrap();
    assert!(
        ens1["advice"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a.as_str().unwrap().starts_with("ens1np0: raise the rings (`ethtool -G ens1np0 rx 8192 tx 8192`")),
        "{}",
        ens1["advice"]
    );
    let cfg = tmp.path().join("cfg.json");
    fs::write(&cfg, r#"{"min_ring_fraction": 0.1}"#).unwrap();
    let v = scan(&["--config", cfg.to_str().unwrap()]);
    assert!(rings_reasons(&v, "ens1np0").is_empty());
}

/// The report's node section names the firmware the capture recorded; a capture from
/// before host facts says it was not recorded.
#[test]
fn report_names_the_recorded_firmware() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let port = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
    let report = |capture: String| {
        let file = tmp.path().join("r.jsonl");
        fs::write(&file, capture).unwrap();
        let md = tmp.path().join("r.md");
        optics().arg("report").arg(&file).arg("-o").arg(&md).assert().success();
        fs::read_to_string(&md).unwrap()
    };
    let with_fw = report(with_host(&simple_capture(&port, 6, 1), |i| {
        let mut h = s.host_facts(i).unwrap();
        h.firmware_version = Some(Fact::ioctl("28.39.1002 (MT_0000000838)".into()));
        h
    }));
    assert!(with_fw.contains("- NIC driver: mlx5_core; firmware version: 28.39.1002 (MT_0000000838)"), "{with_fw}");
    let without = report(simple_capture(&port, 6, 1));
    assert!(without.contains("firmware version: not recorded in the capture"), "{without}");
}

/// The codes of `iface`'s reasons among `codes`, with their messages, and its advice.
fn reasons_of(v: &Value, iface: &str, codes: &[&str]) -> (Vec<(String, String)>, Vec<String>) {
    let i = v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap();
    let reasons = i["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| codes.contains(&r["code"].as_str().unwrap()))
        .map(|r| (r["code"].as_str().unwrap().to_string(), r["message"].as_str().unwrap().to_string()))
        .collect();
    let advice = i["advice"].as_array().map(|a| a.iter().map(|a| a.as_str().unwrap().to_string()).collect()).unwrap_or_default();
    (reasons, advice)
}

/// Socket 0's NIC: IRQ 42 delivered on CPU 16 (socket 1) and 43 allowed on every CPU are
/// two of its four interrupts off NUMA node 0, one more than the control vector
/// `max_irqs_off_node` allows. With 4 combined channels (of 63) for the node's 32 CPUs
/// it receives on fewer than the 16 queues `min_channel_fraction` 0.5 asks (one per core
/// of its 16 two-thread cores); with 40 it has more queues than CPUs, and the advice cuts
/// them to 32 before binding.
#[test]
fn irqs_off_the_node_and_too_few_channels_are_judged() {
    let tmp = tempfile::tempdir().unwrap();
    two_socket_node(tmp.path(), true);
    let s = Sysfs::new(tmp.path());
    let run = |combined: u32, cfg: Option<&str>| -> Value {
        let facts = |iface: &str| {
            let mut h = s.host_facts(iface).unwrap();
            h.channels = Some(Fact::netlink(Channels { combined: Some(combined), combined_max: Some(63), ..Channels::default() }));
            h
        };
        let port = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
        let file = tmp.path().join("irq.jsonl");
        fs::write(&file, with_host(&simple_capture(&port, 6, 1), facts)).unwrap();
        let mut cmd = optics();
        cmd.args(["scan", "--json", "--replay"]).arg(&file);
        if let Some(c) = cfg {
            let path = tmp.path().join("cfg.json");
            fs::write(&path, c).unwrap();
            cmd.arg("--config").arg(path);
        }
        serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap()
    };
    let codes = ["irqs_off_numa_node", "channels_below_node_cpus"];
    let (r, advice) = reasons_of(&run(4, None), "ens1np0", &codes);
    let want = |c: &str, m: &str| (c.to_string(), m.to_string());
    assert_eq!(
        r,
        [
            want("irqs_off_numa_node", "2 of 4 IRQs delivered off its NUMA node 0 (42 43): above max_irqs_off_node 1; their packets are handled across the socket interconnect"),
            want("channels_below_node_cpus", "4 receive queues for the 32 CPUs of its NUMA node 0: under 50% of them (min_channel_fraction); the driver allows 63"),
        ]
    );
    assert!(advice.iter().any(|a| a.starts_with("ens1np0: bind each IRQ to a CPU of NUMA node 0 ")), "{advice:?}");
    assert!(advice.iter().any(|a| a.starts_with("ens1np0: add queues (`ethtool -L ens1np0 combined 16`")), "{advice:?}");
    assert!(advice.iter().all(|a| a.contains("does not change the link")), "{advice:?}");

    // 40 queues for 32 CPUs: enough channels, and the advice cuts them to the node's CPUs.
    let (r, advice) = reasons_of(&run(40, None), "ens1np0", &codes);
    assert_eq!(r.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(), ["irqs_off_numa_node"]);
    assert!(
        advice.iter().any(|a| a.starts_with(
            "ens1np0: its 40 receive queues outnumber the 32 CPUs of NUMA node 0, so the rest are served from the other socket: cut them to 32 (`ethtool -L ens1np0 combined 32`), then bind"
        )),
        "{advice:?}"
    );
    // Thresholds from the configuration: two IRQs off the node allowed, 1/8 of its CPUs enough.
    let (r, _) = reasons_of(&run(4, Some(r#"{"max_irqs_off_node": 2, "min_channel_fraction": 0.125}"#)), "ens1np0", &codes);
    assert!(r.is_empty(), "{r:?}");
}

/// One capture judged under two tiers: a 200G port with rings at 2048 of 8192 and the
/// other host facts in order. 2048 descriptors of 9000-byte frames hold 2048 x 72000 bit /
/// 200 Gb/s = 737 us, what the built-in `200g` tier asks (its `min_ring_fraction` 0.25), but
/// a quarter of the maximum is under the configuration's default half; a user tier
/// "training" that wants full rings judges it `rings_below_max`, a tier "storage" that
/// takes an eighth accepts it.
#[test]
fn one_capture_under_two_tiers_gets_two_verdicts() {
    let tmp = tempfile::tempdir().unwrap();
    let facts = |_: &str| HostFacts {
        mtu: Some(Fact::ioctl(9000)),
        rings: Some(Fact::netlink(Rings { rx: Some(2048), rx_max: Some(8192), tx: Some(2048), tx_max: Some(8192) })),
        ..HostFacts::default()
    };
    let port = [cx7_port("ens1np0", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
    let file = tmp.path().join("tiers.jsonl");
    fs::write(&file, with_host(&simple_capture(&port, 6, 1), facts)).unwrap();
    let cfg = tmp.path().join("cfg.json");
    fs::write(
        &cfg,
        r#"{"node_profiles": {"training": {"min_ring_fraction": 1.0, "max_pause_frames_per_s": 8000},
                             "storage": {"min_ring_fraction": 0.125}}}"#,
    )
    .unwrap();
    let scan = |profile: Option<&str>| -> (String, Vec<String>) {
        let mut cmd = optics();
        cmd.args(["scan", "--json", "--replay"]).arg(&file).arg("--config").arg(&cfg);
        if let Some(p) = profile {
            cmd.args(["--profile", p]);
        }
        let v: Value = serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap();
        let i = &v["interfaces"][0];
        let codes = i["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_string()).collect();
        (i["verdict"].as_str().unwrap().to_string(), codes)
    };
    let (training, training_codes) = scan(Some("training"));
    let (storage, storage_codes) = scan(Some("storage"));
    assert_eq!((training.as_str(), training_codes), ("investigate", vec!["rings_below_max".to_string()]));
    assert_eq!((storage.as_str(), storage_codes), ("accept", vec![]));
    // No profile: the configuration's 0.5; the built-in 200g tier: 0.25, enough at 200 Gb/s.
    assert!(scan(None).1.contains(&"rings_below_max".to_string()));
    assert!(!scan(Some("200g")).1.contains(&"rings_below_max".to_string()));
}

/// A tier's host key out of range is refused with its full name.
#[test]
fn a_tiers_host_key_out_of_range_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = tmp.path().join("cfg.json");
    fs::write(&cfg, r#"{"node_profiles": {"t": {"min_ring_fraction": 2}}}"#).unwrap();
    let out = optics().args(["scan", "--replay", "/dev/null", "--config"]).arg(&cfg).assert().failure().get_output().stderr.clone();
    let err = String::from_utf8(out).unwrap();
    assert!(err.contains("`node_profiles.t.min_ring_fraction` is 2"), "{err}");
}
