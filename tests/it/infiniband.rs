//! InfiniBand ports: sysfs trees laid out byte for byte as the kernel's ABI gives them
//! (tests/it/support/ib_sysfs.rs), read live, recorded, replayed and judged.
//!
//! Expected values are derived from what the fixture wrote and the IBTA `PortCounters`
//! definitions (data counters in 4-octet units, 16/8/4-bit saturating error counters),
//! never read back from optics' own output.

pub(crate) use crate::support::ib_captures::records;
use crate::support::ib_sysfs::{add_hca, set_port, PortSpec};
use crate::support::{import_at, optics};
#[cfg(live)]
use optics::capture::read_capture_from;
#[cfg(live)]
use optics::capture::Record;
use optics::capture::{CaptureWriter, Header, RecordSink};
#[cfg(live)]
use optics::counters::LinkState;
#[cfg(live)]
use optics::counters::{DriverStats, FecStats, LinkInfo};
#[cfg(live)]
use optics::device::DeviceIdentity;
#[cfg(live)]
use optics::module::PageRequest;
use optics::source::infiniband::IbTree;
#[cfg(live)]
use optics::source::infiniband::InfinibandSource;
#[cfg(live)]
use optics::source::{IoCounts, PathsUsed, Source};
use serde_json::Value;
use std::path::Path;
#[cfg(live)]
use std::time::Duration;

const HCA_BDF: &str = "0000:3b:00.0";

/// A capture of `name` read from the tree at `root` once per step: each step rewrites the
/// port, then the port is read at its time `t`.
fn capture_over(root: &Path, name: &str, steps: &[(f64, PortSpec)], out: &Path) {
    let (hca, _) = name.split_once('/').unwrap();
    let tree = IbTree::new(root);
    let mut w = CaptureWriter::new(std::fs::File::create(out).unwrap(), &Header::new(Some("ib-test".into()), None, None)).unwrap();
    for (i, (t, spec)) in steps.iter().enumerate() {
        set_port(root, hca, spec);
        let [ir, s] = records(&tree, name, *t);
        if i == 0 {
            w.record(&ir).unwrap();
        }
        w.record(&s).unwrap();
    }
}

pub(crate) fn scan_json(capture: &Path, extra: &[&str]) -> Value {
    let out = optics().args(["scan", "--replay"]).arg(capture).arg("--json").args(extra).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

pub(crate) fn codes(iface: &Value) -> Vec<String> {
    iface["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_string()).collect()
}

pub(crate) fn reason<'a>(iface: &'a Value, code: &str) -> &'a Value {
    iface["reasons"].as_array().unwrap().iter().find(|r| r["code"] == code).unwrap_or_else(|| panic!("no {code} in {iface}"))
}

fn ndr(counters: Vec<(&'static str, u64)>) -> PortSpec {
    PortSpec { counters, ..PortSpec::ndr(1) }
}

#[test]
fn dual_port_hca_beside_a_roce_port() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    add_hca(
        root,
        "mlx5_0",
        HCA_BDF,
        Some("ibp59s0"),
        &[PortSpec::ndr(1), PortSpec { state: "1: DOWN", phys_state: "3: Disabled", ..PortSpec::ndr(2) }],
    );
    let roce = PortSpec { link_layer: "Ethernet", rate: "100 Gb/sec (4X EDR)", ..PortSpec::ndr(1) };
    add_hca(root, "mlx5_1", "0000:5e:00.0", None, &[roce]);
    let tree = IbTree::new(root);
    // Only InfiniBand link layers are IB ports; the RoCE port goes through its netdev.
    assert_eq!(tree.infiniband_ports(), ["mlx5_0/1", "mlx5_0/2"]);
    assert!(tree.has_port("mlx5_1/1") && !tree.has_port("mlx5_0/3") && !tree.has_port("mlx5_0"));

    let id = tree.identity("mlx5_0/1").unwrap();
    assert_eq!(id.driver.as_deref(), Some("mlx5_core"));
    assert_eq!(id.bus_info.as_deref(), Some(HCA_BDF));
    let pci = id.pci.unwrap();
    assert_eq!((pci.current_link_speed.as_deref(), pci.current_link_width), (Some("32.0 GT/s PCIe"), Some(16)));
    let ib = id.ib.unwrap();
    assert_eq!((ib.hca.as_str(), ib.port), ("mlx5_0", 1));
    assert_eq!(ib.rate.as_deref(), Some("400 Gb/sec (4X NDR)"));
    assert_eq!(ib.fw_ver.as_deref(), Some("28.39.1002"));
    assert_eq!(ib.netdev.as_deref(), Some("ibp59s0"));
    // 4X NDR: 4 lanes x 100 Gb/s.
    let link = tree.link_info("mlx5_0/1").unwrap();
    assert_eq!((link.speed_mbps, link.lanes, link.link_mode.as_deref()), (Some(400_000), Some(4), Some("4X NDR")));

    let s = tree.sample("mlx5_0/2").unwrap();
    assert_eq!(s.state.as_deref(), Some("1: DOWN"));
    assert_eq!(s.link_up(), Some(false));
    // 21 PortCounters files; hw_counters without the `lifespan` setting.
    assert_eq!(s.counters.len(), 21);
    assert_eq!(s.hw_counters.keys().collect::<Vec<_>>(), ["local_ack_timeout_err", "out_of_buffer"]);
    assert!(tree.sample("mlx5_0/9").unwrap_err().is_no_device());
}

#[test]
fn rising_symbol_errors_are_errors_after_fec_with_a_rate() {
    let tmp = tempfile::tempdir().unwrap();
    add_hca(tmp.path(), "mlx5_0", HCA_BDF, Some("ibp59s0"), &[PortSpec::ndr(1)]);
    let cap = tmp.path().join("ndr.jsonl");
    // 60 s apart: 12 symbol errors, 7.5e9 data units received (x 4 octets = 30 GB).
    let t0 = ndr(vec![("symbol_error", 3), ("port_rcv_data", 1_000_000_000), ("port_xmit_data", 500)]);
    let t1 = ndr(vec![("symbol_error", 15), ("port_rcv_data", 8_500_000_000), ("port_xmit_data", 1_500)]);
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, t0), (60.0, t1)], &cap);
    let j = scan_json(&cap, &[]);
    let p = &j["interfaces"][0];
    assert_eq!(p["interface"], "mlx5_0/1");
    assert_eq!(p["verdict"], "reject");
    let r = reason(p, "uncorrectable_errors");
    let msg = r["message"].as_str().unwrap();
    assert!(
        msg.contains("12 symbol errors") && msg.contains("in 60 s") && msg.contains("0.200/s") && msg.contains("FEC did not correct"),
        "{msg}"
    );
    let ib = &p["infiniband"];
    assert_eq!(ib["rx_bytes"], 30_000_000_000u64);
    assert_eq!(ib["tx_bytes"], 4_000u64);
    assert_eq!(ib["symbol_errors_per_s"], 0.2);
    assert_eq!(ib["symbol_errors_after_fec"], true);
    assert_eq!(ib["speed"], "NDR");
    // The PCIe check applies to the HCA's function; no module or FEC reason for an IB port.
    assert_eq!(p["pcie"]["current_width"], 16);
    for absent in ["module_unreadable", "no_fec_data", "insufficient_data"] {
        assert!(!codes(p).contains(&absent.to_string()), "{absent}: {:?}", codes(p));
    }
    // The advice names the cable, the modules and both ends' mlxlink.
    let advice = p["advice"].to_string();
    assert!(advice.contains("cable") && advice.contains("mlxlink"), "{advice}");
}

#[test]
fn quiet_port_is_accepted_and_link_downed_is_link_flaps() {
    let tmp = tempfile::tempdir().unwrap();
    add_hca(tmp.path(), "mlx5_0", HCA_BDF, None, &[PortSpec::ndr(1)]);
    let quiet = tmp.path().join("quiet.jsonl");
    let data = |d: u64| vec![("port_rcv_data", d), ("port_xmit_data", d)];
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, ndr(data(10))), (30.0, ndr(data(20))), (60.0, ndr(data(30)))], &quiet);
    let p = &scan_json(&quiet, &[])["interfaces"][0];
    assert_eq!(p["verdict"], "accept", "{:?}", codes(p));

    let flaps = tmp.path().join("flaps.jsonl");
    let t0 = ndr(vec![("link_downed", 1), ("link_error_recovery", 0)]);
    let t1 = ndr(vec![("link_downed", 3), ("link_error_recovery", 5)]);
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, t0), (60.0, t1)], &flaps);
    let p = &scan_json(&flaps, &[])["interfaces"][0];
    assert_eq!(p["verdict"], "reject");
    assert!(reason(p, "link_flaps")["message"].as_str().unwrap().starts_with("2 link-down events in 60 s"));
    assert_eq!(p["link"]["counter_sources"]["link_down_events"], "ib:link_downed");
    let rec = reason(p, "link_error_recovery");
    assert_eq!(rec["severity"], "investigate");
    assert!(rec["message"].as_str().unwrap().starts_with("5 link error recoveries"));
}

#[test]
fn a_down_port_is_link_flaps() {
    let tmp = tempfile::tempdir().unwrap();
    let down = PortSpec { state: "1: DOWN", phys_state: "2: Polling", ..PortSpec::ndr(1) };
    add_hca(tmp.path(), "mlx5_0", HCA_BDF, None, std::slice::from_ref(&down));
    let cap = tmp.path().join("down.jsonl");
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, down.clone()), (30.0, down)], &cap);
    let p = &scan_json(&cap, &[])["interfaces"][0];
    assert_eq!(p["verdict"], "reject");
    assert!(reason(p, "link_flaps")["message"].as_str().unwrap().contains("down at the end of the window"));
}

#[test]
fn a_saturated_counter_is_a_lower_bound() {
    let tmp = tempfile::tempdir().unwrap();
    add_hca(tmp.path(), "mlx5_0", HCA_BDF, None, &[PortSpec::ndr(1)]);
    let cap = tmp.path().join("sat.jsonl");
    // symbol_error is 16 bits (IBTA PortCounters): it stops at 2^16 - 1 = 65535.
    // local_link_integrity_errors is 4 bits: 15.
    let t0 = ndr(vec![("symbol_error", 65_000), ("local_link_integrity_errors", 15)]);
    let t1 = ndr(vec![("symbol_error", 65_535), ("local_link_integrity_errors", 15)]);
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, t0), (60.0, t1)], &cap);
    let p = &scan_json(&cap, &[])["interfaces"][0];
    let sat: Vec<&str> = p["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == "counter_saturated")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert_eq!(sat.len(), 2, "{sat:?}");
    assert!(
        sat.iter().any(|m| m.starts_with("symbol_error reads 65535") && m.contains("16 bits") && m.contains("at least 65535")),
        "{sat:?}"
    );
    assert!(sat.iter().any(|m| m.starts_with("local_link_integrity_errors reads 15") && m.contains("4 bits")), "{sat:?}");
    // The 535 counted before it stopped are "at least 535".
    assert!(reason(p, "uncorrectable_errors")["message"].as_str().unwrap().starts_with("at least 535 symbol errors"));
    assert_eq!(p["infiniband"]["saturated"], serde_json::json!(["symbol_error", "local_link_integrity_errors"]));
}

#[test]
fn hdr_where_the_profile_wants_ndr_is_below_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let hdr = PortSpec { rate: "200 Gb/sec (4X HDR)", ..PortSpec::ndr(1) };
    add_hca(tmp.path(), "mlx5_0", HCA_BDF, None, std::slice::from_ref(&hdr));
    let cap = tmp.path().join("hdr.jsonl");
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, hdr.clone()), (60.0, hdr)], &cap);
    let p = &scan_json(&cap, &["--profile", "400g"])["interfaces"][0];
    let msg = reason(p, "below_profile")["message"].as_str().unwrap().to_string();
    assert!(msg.contains("200000") || msg.contains("200"), "{msg}");
    assert_eq!(p["link"]["link_mode"], "4X HDR");
}

#[test]
fn text_report_names_the_port_and_its_rate() {
    let tmp = tempfile::tempdir().unwrap();
    add_hca(tmp.path(), "mlx5_0", HCA_BDF, None, &[PortSpec::ndr(1)]);
    let cap = tmp.path().join("t.jsonl");
    let t1 = ndr(vec![("symbol_error", 4)]);
    capture_over(tmp.path(), "mlx5_0/1", &[(0.0, PortSpec::ndr(1)), (60.0, t1)], &cap);
    let out = optics().args(["scan", "--replay"]).arg(&cap).env("COLUMNS", "200").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("mlx5_0/1") && text.contains("REJECT") && text.contains("4X NDR"), "{text}");
    // CSV export works on the port too.
    let csv = tmp.path().join("t.csv");
    optics().args(["export"]).arg(&cap).arg("--csv").arg(&csv).assert().success();
    assert!(std::fs::read_to_string(&csv).unwrap().contains("mlx5_0/1"));
}

/// The port rewritten between samples: what the sampler reads each tick.
#[cfg(live)]
struct Stepping {
    inner: InfinibandSource,
    root: std::path::PathBuf,
    steps: Vec<PortSpec>,
    at: usize,
}

#[cfg(live)]
impl Source for Stepping {
    fn interfaces(&mut self) -> optics::source::Result<Vec<String>> {
        self.inner.interfaces()
    }
    fn identity(&mut self, i: &str) -> optics::source::Result<DeviceIdentity> {
        self.inner.identity(i)
    }
    fn link_info(&mut self, i: &str) -> optics::source::Result<LinkInfo> {
        self.inner.link_info(i)
    }
    fn link_state(&mut self, i: &str) -> optics::source::Result<LinkState> {
        self.inner.link_state(i)
    }
    fn fec(&mut self, i: &str) -> optics::source::Result<FecStats> {
        self.inner.fec(i)
    }
    fn driver_stats(&mut self, i: &str) -> optics::source::Result<DriverStats> {
        self.inner.driver_stats(i)
    }
    fn read_eeprom(&mut self, i: &str, req: PageRequest) -> optics::source::Result<Vec<u8>> {
        self.inner.read_eeprom(i, req)
    }
    fn infiniband(&mut self, i: &str) -> optics::source::Result<optics::counters::ib::IbSample> {
        self.inner.infiniband(i)
    }
    fn paths(&self, i: &str) -> PathsUsed {
        self.inner.paths(i)
    }
    fn io_counts(&self) -> IoCounts {
        self.inner.io_counts()
    }
    fn end_sample(&mut self) {
        self.at += 1;
        if let Some(s) = self.steps.get(self.at) {
            set_port(&self.root, "mlx5_0", s);
        }
    }
}

#[cfg(live)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_sampler_records_what_replay_reads() {
    use optics::sample::watch::{watch_until, WatchConfig};
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().to_path_buf();
    let steps = vec![ndr(vec![("symbol_error", 1), ("link_downed", 2)]), ndr(vec![("symbol_error", 8), ("link_downed", 2)])];
    add_hca(&root, "mlx5_0", HCA_BDF, Some("ibp59s0"), &steps[..1]);
    let cfg = WatchConfig {
        interfaces: vec!["mlx5_0/1".into()],
        interval: Duration::from_millis(20),
        duration: None,
        max_ticks: Some(2),
        read_module: true,
    };
    let make = {
        let (root, steps) = (root.clone(), steps.clone());
        move |_: &str| -> Box<dyn Source + Send> {
            Box::new(Stepping { inner: InfinibandSource::new(IbTree::new(&root)), root: root.clone(), steps: steps.clone(), at: 0 })
        }
    };
    let mut file = CaptureWriter::new(Vec::new(), &Header::new(None, None, None)).unwrap();
    watch_until(cfg, make, &mut [&mut file], std::future::pending()).await.unwrap();
    let cap = read_capture_from(&file.into_inner().unwrap()[..]).unwrap();
    let ir: Vec<_> = cap.interface_records_for("mlx5_0/1").collect();
    assert_eq!(ir.len(), 1);
    let ib = ir[0].ib.as_ref().unwrap();
    assert_eq!((ib.hca.as_str(), ib.port, ib.netdev.as_deref()), ("mlx5_0", 1, Some("ibp59s0")));
    assert_eq!(ir[0].bus_info.as_deref(), Some(HCA_BDF));
    let s: Vec<_> = cap.samples_for("mlx5_0/1").collect();
    assert_eq!(s.len(), 2);
    assert_eq!(s.iter().map(|s| s.ib.as_ref().unwrap().counters["symbol_error"]).collect::<Vec<_>>(), [1, 8]);
    assert_eq!(s[1].link.up, Some(true));
    // The one event says, once, where the module can be read from instead.
    let events: Vec<&str> =
        cap.records.iter().filter_map(|r| if let Record::Event(e) = r { Some(e.message.as_str()) } else { None }).collect();
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(events[0].starts_with("module not read") && events[0].contains("mlxlink -m"), "{events:?}");
    // The record round-trips through replay: symbol errors 8 - 1 = 7 over the window.
    let cap_path = tmp.path().join("rec.jsonl");
    let mut w = CaptureWriter::new(std::fs::File::create(&cap_path).unwrap(), &cap.header).unwrap();
    for r in &cap.records {
        w.record(r).unwrap();
    }
    drop(w);
    let out = optics().args(["scan", "--replay"]).arg(&cap_path).arg("--json").output().unwrap();
    let j: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["interfaces"][0]["infiniband"]["counters"]["symbol_error"], 7);
}

#[cfg(live)]
#[test]
fn an_unknown_ib_port_is_refused_and_no_ib_means_no_change() {
    // This machine has no /sys/class/infiniband/mlx9_9: a clear error, exit 1.
    let out = optics().args(["scan", "mlx9_9/1", "--window", "1s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such InfiniBand port mlx9_9/1"));
}

// ---- imports: real tool outputs (tests/fixtures/infiniband/README.md) and copied trees ----

pub(crate) const FIX: &str = "tests/fixtures/infiniband";

pub(crate) fn import(args: &[&std::ffi::OsStr], out: &Path) {
    let o = optics().arg("import").args(args).arg("-o").arg(out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

pub(crate) fn by_name<'a>(j: &'a Value, name: &str) -> &'a Value {
    j["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == name).unwrap_or_else(|| panic!("no {name} in {j}"))
}

#[test]
fn ibstat_of_eight_ndr_nics_becomes_ports() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("ibstat.jsonl");
    import(&[format!("{FIX}/ibstat_ndr_cx7_deepep_303.txt").as_ref()], &cap);
    let c = optics::capture::read_capture(&cap).unwrap();
    assert_eq!(c.interfaces(), ["mlx5_0/1", "mlx5_1/1"]);
    let ir = c.interface_records_for("mlx5_0/1").next().unwrap();
    // `Rate: 400` is Gb/s.
    assert_eq!(ir.link.speed_mbps, Some(400_000));
    let ib = ir.ib.as_ref().unwrap();
    assert_eq!((ib.fw_ver.as_deref(), ib.link_layer.as_deref()), (Some("28.43.2026"), Some("InfiniBand")));
    let s = c.samples_for("mlx5_0/1").next().unwrap();
    assert_eq!(s.link.up, Some(true));
    assert_eq!(s.ib.as_ref().unwrap().state.as_deref(), Some("Active"));
}

#[test]
fn ibstat_with_a_down_port_is_link_flaps_there_only() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("down.jsonl");
    import(&[format!("{FIX}/ibstat_hdr_and_down_nccl_tests_128.txt").as_ref()], &cap);
    let j = scan_json(&cap, &[]);
    let down = by_name(&j, "mlx5_1/1");
    assert_eq!(down["verdict"], "reject");
    assert!(reason(down, "link_flaps")["message"].as_str().unwrap().contains("down"));
    assert!(!codes(by_name(&j, "mlx5_0/1")).contains(&"link_flaps".to_string()));
}

#[test]
fn ibstatus_at_hdr_where_the_profile_wants_400g_is_below_profile() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("hdr.jsonl");
    import(&[format!("{FIX}/ibstatus_hdr_nccl_1412.txt").as_ref()], &cap);
    let j = scan_json(&cap, &["--profile", "400g"]);
    for name in ["mlx5_0/1", "mlx5_1/1", "mlx5_2/1"] {
        let p = by_name(&j, name);
        // `200 Gb/sec (4X HDR)`: 4 lanes of 50 Gb/s.
        assert_eq!(p["link"]["speed_mbps"], 200_000);
        assert_eq!(p["link"]["lanes"], 4);
        assert_eq!(p["infiniband"]["speed"], "HDR");
        assert!(codes(p).contains(&"below_profile".to_string()), "{name}: {:?}", codes(p));
    }
}

#[test]
fn perfquery_x_of_a_named_port_reads_every_counter() {
    // As sosreport names it: sos_commands/infiniband/perfquery_-C_mlx5_0_-P_1.
    let tmp = tempfile::tempdir().unwrap();
    let sos = tmp.path().join("sos_commands/infiniband");
    std::fs::create_dir_all(&sos).unwrap();
    std::fs::copy(format!("{FIX}/perfquery_x_rhel75_infiniband_diags_16.txt"), sos.join("perfquery_-C_mlx5_0_-P_1")).unwrap();
    std::fs::copy(format!("{FIX}/ibstat_ndr_cx7_deepep_303.txt"), sos.join("ibstat")).unwrap();
    let cap = tmp.path().join("pq.jsonl");
    import(&[tmp.path().as_os_str()], &cap);
    let c = optics::capture::read_capture(&cap).unwrap();
    let s = c.samples_for("mlx5_0/1").last().unwrap();
    let ib = s.ib.as_ref().unwrap();
    // Every PortCounters and PortCountersExtended field perfquery -x printed, 0 as printed;
    // the state from ibstat of the same input.
    for k in ["symbol_error", "link_downed", "port_xmit_data", "port_rcv_data", "unicast_rcv_packets", "port_xmit_wait", "VL15_dropped"] {
        assert_eq!(ib.counters.get(k), Some(&0), "{k}");
    }
    assert_eq!(ib.state.as_deref(), Some("Active"));
    assert_eq!(c.interface_records_for("mlx5_0/1").next().unwrap().link.speed_mbps, Some(400_000));
}

#[test]
fn two_perfquery_snapshots_with_rising_symbol_errors_are_not_accepted() {
    let tmp = tempfile::tempdir().unwrap();
    let before = tmp.path().join("before.txt");
    let after = tmp.path().join("after.txt");
    let real = std::fs::read_to_string(format!("{FIX}/perfquery_old_names_tacc_stats.txt")).unwrap();
    std::fs::write(&before, &real).unwrap();
    // The same port 300 s later (derived from the real output): 40 symbol errors, RcvData +1e9 units.
    let later = real
        .replace("SymbolErrors:....................0", "SymbolErrors:....................40")
        .replace("RcvData:.........................2411533950", "RcvData:.........................3411533950");
    std::fs::write(&after, later).unwrap();
    let cap = tmp.path().join("pq2.jsonl");
    import_at(&[(&before, "2026-12-05T10:00:00Z"), (&after, "2026-12-05T10:05:00Z")], &["--interface", "mlx5_0/1"], &cap);
    let p = &scan_json(&cap, &[])["interfaces"][0];
    assert_ne!(p["verdict"], "accept");
    let msg = reason(p, "uncorrectable_errors")["message"].as_str().unwrap().to_string();
    assert!(msg.starts_with("40 symbol errors") && msg.contains("in 300 s"), "{msg}");
    // 1e9 units of 4 octets.
    assert_eq!(p["infiniband"]["rx_bytes"], 4_000_000_000u64);
}

#[test]
fn a_copied_sysfs_tree_imports_like_a_live_read() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    add_hca(&a, "mlx5_0", HCA_BDF, Some("ibp59s0"), &[ndr(vec![("link_downed", 0)])]);
    add_hca(&b, "mlx5_0", HCA_BDF, Some("ibp59s0"), &[ndr(vec![("link_downed", 2)])]);
    let cap = tmp.path().join("tree.jsonl");
    import_at(&[(&a, "2026-12-05T10:00:00Z"), (&b, "2026-12-05T10:01:00Z")], &[], &cap);
    let c = optics::capture::read_capture(&cap).unwrap();
    assert_eq!(c.interfaces(), ["mlx5_0/1"]);
    let ir = c.interface_records_for("mlx5_0/1").next().unwrap();
    assert_eq!(ir.bus_info.as_deref(), Some(HCA_BDF));
    assert_eq!(ir.ib.as_ref().unwrap().rate.as_deref(), Some("400 Gb/sec (4X NDR)"));
    let p = &scan_json(&cap, &[])["interfaces"][0];
    assert!(reason(p, "link_flaps")["message"].as_str().unwrap().starts_with("2 link-down events in 60 s"));
}

// ---- the outputs on the bundled IB captures (captures/README.md; the generator's
// arithmetic in support/ib_captures.rs: 2 symbol errors a second for 60 s, one link down) ----

fn bundled(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

/// A quiet IB port was UNKNOWN under `--check` ("no data": no BER, no lanes) though its
/// symbol errors over the window measure the line; it is OK, with the rate as perfdata.
#[test]
fn check_report_and_compare_speak_of_an_ib_ports_symbol_errors() {
    let (healthy, failing) = (bundled("ib-ndr-healthy.jsonl"), bundled("ib-ndr-errors-after-fec.jsonl"));
    let check = |cap: &Path| {
        let o = optics().args(["scan", "--check", "--replay"]).arg(cap).output().unwrap();
        (o.status.code(), String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    assert_eq!(check(&healthy), (Some(0), "OPTICS OK - 1 interface accepted | symbol_errors_per_s_mlx5_0_1=0;;0".into()));
    let (code, line) = check(&failing);
    assert_eq!(code, Some(2), "{line}");
    // 120 errors over 60 s.
    assert!(line.starts_with("OPTICS CRITICAL - mlx5_0/1: ") && line.ends_with(" | symbol_errors_per_s_mlx5_0_1=2;;0"), "{line}");
    assert_eq!(scan_json(&healthy, &[])["interfaces"][0]["infiniband"]["symbol_errors_per_s"], 0.0);

    let report = |cap: &Path| String::from_utf8(optics().arg("report").arg(cap).output().unwrap().stdout).unwrap();
    let r = report(&failing);
    assert!(r.contains("- NOT ruled out: frame loss past the FEC (120 symbol errors, ib:symbol_error)."), "{r}");
    let r = report(&healthy);
    assert!(r.contains("- Ruled out: frame loss past the FEC (0 symbol errors, ib:symbol_error)."), "{r}");

    let o = optics().arg("compare").arg(&failing).arg(&healthy).arg("--json").output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: Value = serde_json::from_slice(&o.stdout).unwrap();
    let notes = &j["comparisons"][0]["notes"];
    assert_eq!(
        notes,
        &serde_json::json!(["verdict reject -> accept", "symbol errors (ib:symbol_error) 2.000/s -> 0.000/s", "link-down events 1 -> 0"])
    );
}
