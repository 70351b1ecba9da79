//! Pause frames and receive discards judged as rates over the window (`pause_storm`,
//! `rx_discards`, docs/host.md "Pause and discards"), from counters as drivers name them
//! (mlx5 `rx_pause_ctrl_phy`, `rx_prioN_pause`, `rx_discards_phy`, `rx_out_of_buffer`) and
//! from the kernel's `ETHTOOL_A_PAUSE_STATS` recorded as a sample's `pause` (a capture
//! extension: older captures have none and read as before).

use super::support::captures::{cx7_port, simple_capture, sr4_200g};
use super::support::optics;
use serde_json::{json, Value};

/// `capture` with `add(interface, t, sample)` applied to every sample record.
fn with_samples(capture: &str, add: impl Fn(&str, f64, &mut Value)) -> String {
    capture
        .lines()
        .map(|line| {
            let mut v: Value = serde_json::from_str(line).unwrap();
            if v["record"] == "sample" {
                let iface = v["interface"].as_str().unwrap().to_string();
                let t = v["t"].as_f64().unwrap();
                add(&iface, t, &mut v);
            }
            v.to_string() + "\n"
        })
        .collect()
}

fn scan(capture: &str, extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    std::fs::write(&file, capture).unwrap();
    let out = optics().args(["scan", "--json", "--replay"]).arg(&file).args(extra).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

fn of<'v>(v: &'v Value, iface: &str) -> &'v Value {
    v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap()
}

fn reasons(i: &Value, code: &str) -> Vec<String> {
    i["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == code).map(|r| r["message"].as_str().unwrap().to_string()).collect()
}

/// Port a receives 3000 pause frames a second on priority 3 and the link total with it
/// (mlx5 names), and drops 2 frames a second for want of buffers; port b runs quiet
/// (counters present, never moving). Six samples about a second apart: the window is
/// the span between the first and last sample, and each rate its increase over it.
#[test]
fn a_climbing_pause_counter_is_judged_as_a_rate() {
    let ports = [cx7_port("a", sr4_200g("SN1", [-1.0; 4]), [1e3; 4]), cx7_port("b", sr4_200g("SN2", [-1.0; 4]), [1e3; 4])];
    let counts = |t: f64, per_s: f64| (t * per_s).round() as u64;
    let capture = with_samples(&simple_capture(&ports, 6, 1), |iface, t, v| {
        let busy = iface == "a";
        let d = &mut v["driver_stats"];
        for p in 0..8 {
            d[format!("rx_prio{p}_pause")] = json!(if busy && p == 3 { counts(t, 3000.0) } else { 0 });
            d[format!("tx_prio{p}_pause")] = json!(0);
        }
        d["rx_pause_ctrl_phy"] = json!(if busy { counts(t, 3000.0) } else { 0 });
        d["tx_pause_ctrl_phy"] = json!(0);
        d["rx_discards_phy"] = json!(if busy { counts(t, 2.0) } else { 0 });
        d["rx_out_of_buffer"] = json!(0);
    });
    let v = scan(&capture, &[]);
    let a = of(&v, "a");
    let pd = &a["host"]["pause_discards"];
    let window = pd["window_s"].as_f64().unwrap();
    assert!((window - 5.0).abs() < 0.01, "{window}");
    let rx = pd["rx_pause_frames"]["count"].as_u64().unwrap();
    // 3000 frames a second over the window's span, give or take the rounding of each reading.
    assert!((rx as f64 - 3000.0 * window).abs() <= 1.0, "{rx}");
    assert_eq!(pd["rx_pause_frames"]["origin"], "driver:rx_pause_ctrl_phy");
    assert_eq!(pd["rx_pause_per_priority"]["counts"][3], rx);
    let storm = reasons(a, "pause_storm");
    assert_eq!(storm.len(), 1, "{storm:?}");
    assert!(
        storm[0].starts_with("pause frames received (driver:rx_pause_ctrl_phy) at 3000 /s over 5 s: above max_pause_frames_per_s 1000"),
        "{storm:?}"
    );
    assert!(storm[0].ends_with("(1 more pause counters over it)"), "{storm:?}");
    let dropped = reasons(a, "rx_discards");
    assert_eq!(dropped.len(), 1, "{dropped:?}");
    assert!(
        dropped[0].starts_with("10 received frames dropped for want of host buffers over 5 s (2.0 /s): 10 (driver:rx_discards_phy)"),
        "{dropped:?}"
    );
    assert!(a["advice"].as_array().unwrap().iter().any(|x| x.as_str().unwrap().starts_with("a: the link partner keeps asking")));
    assert_eq!(a["verdict"], "investigate");
    // b's counters never moved: counted, not judged.
    let b = of(&v, "b");
    assert_eq!(b["host"]["pause_discards"]["rx_pause_frames"]["count"], 0);
    assert!(reasons(b, "pause_storm").is_empty() && reasons(b, "rx_discards").is_empty());
    // A threshold above the rate passes it.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("cfg.json");
    std::fs::write(&cfg, r#"{"max_pause_frames_per_s": 5000, "max_rx_discards_per_s": 3}"#).unwrap();
    let v = scan(&capture, &["--config", cfg.to_str().unwrap()]);
    assert!(reasons(of(&v, "a"), "pause_storm").is_empty() && reasons(of(&v, "a"), "rx_discards").is_empty());
}

/// The kernel's pause statistics recorded in a sample's `pause` replay, and win over the
/// driver's names: 1200 frames a second sent (this host pausing its switch).
#[test]
fn recorded_netlink_pause_statistics_replay() {
    let ports = [cx7_port("a", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
    let capture = with_samples(&simple_capture(&ports, 6, 1), |_, t, v| {
        v["pause"] = json!({"tx_frames": (t * 1200.0).round() as u64, "rx_frames": 0});
        v["driver_stats"]["tx_pause_ctrl_phy"] = json!(7);
    });
    let v = scan(&capture, &[]);
    let a = of(&v, "a");
    assert_eq!(a["host"]["pause_discards"]["tx_pause_frames"]["origin"], "netlink");
    let storm = reasons(a, "pause_storm");
    assert!(storm.len() == 1 && storm[0].starts_with("pause frames sent (netlink) at 1200 /s"), "{storm:?}");
    assert!(a["advice"].as_array().unwrap().iter().any(|x| x.as_str().unwrap().starts_with("a: this host's receive side cannot keep up")));
    // The capture reader reads the field as written.
    let back = optics::capture::read_capture_from(capture.as_bytes()).unwrap();
    let last = back.samples_for("a").last().unwrap();
    let pause = last.pause.clone().unwrap();
    assert_eq!((pause.tx_frames, pause.rx_frames), (Some((last.t * 1200.0).round() as u64), Some(0)));
}

/// A capture from before pause statistics were recorded (the bundled ones) has no
/// `pause_discards` and no new reasons.
#[test]
fn captures_without_the_counters_read_as_before() {
    let ports = [cx7_port("a", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
    let v = scan(&simple_capture(&ports, 6, 1), &[]);
    let a = of(&v, "a");
    assert!(a["host"].is_null() || a["host"]["pause_discards"].is_null(), "{}", a["host"]);
    assert!(reasons(a, "pause_storm").is_empty() && reasons(a, "rx_discards").is_empty());
}

/// The exposition (`export --prometheus`, the textfile route; `serve` renders the same)
/// carries the host facts and the pause and discard counters as `_total`: bounded labels
/// (direction, cause), the firmware as an info series.
#[test]
fn host_metrics_in_the_exposition() {
    let ports = [cx7_port("a", sr4_200g("SN1", [-1.0; 4]), [1e3; 4])];
    let capture = with_samples(&simple_capture(&ports, 6, 1), |_, t, v| {
        v["pause"] = json!({"tx_frames": 0, "rx_frames": (t * 10.0).round() as u64});
        v["driver_stats"]["rx_discards_phy"] = json!(4);
    });
    // The interface record's host facts as a live read would give them.
    let capture: String = capture
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["record"] == "interface" {
                v["host"] = json!({
                    "driver": {"value": "mlx5_core", "from": "ioctl"},
                    "firmware_version": {"value": "28.39.1002 (MT_0000000838)", "from": "ioctl"},
                    "numa_node": {"value": 1, "from": "sysfs"},
                    "mtu": {"value": 9000, "from": "ioctl"},
                    "rings": {"value": {"rx": 1024, "rx_max": 8192, "tx": 1024, "tx_max": 8192}, "from": "netlink"}
                });
            }
            v.to_string() + "\n"
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    std::fs::write(&cap, capture).unwrap();
    let prom = dir.path().join("optics.prom");
    optics().arg("export").arg(&cap).arg("--prometheus").arg(&prom).assert().success();
    let text = std::fs::read_to_string(&prom).unwrap();
    let has = |line: &str| text.lines().any(|l| l == line);
    assert!(
        has(
            r#"optics_host_info{interface="a",driver="mlx5_core",driver_version="",firmware_version="28.39.1002 (MT_0000000838)",numa_node="1"} 1.0"#
        ),
        "{text}"
    );
    assert!(has(r#"optics_host_mtu_bytes{interface="a"} 9000.0"#), "{text}");
    assert!(has(r#"optics_host_ring_entries{interface="a",direction="rx",which="current"} 1024.0"#), "{text}");
    assert!(has(r#"optics_host_ring_entries{interface="a",direction="tx",which="max"} 8192.0"#), "{text}");
    assert!(has(r#"optics_host_pause_frames_total{interface="a",direction="tx"} 0"#), "{text}");
    assert!(text.lines().any(|l| l.starts_with(r#"optics_host_pause_frames_total{interface="a",direction="rx"} "#)), "{text}");
    // The discard counter never moved: its total over the run is 0.
    assert!(has(r#"optics_host_rx_discarded_frames_total{interface="a",cause="discards"} 0"#), "{text}");
    assert!(has(r#"optics_interface_reason{interface="a",code="rings_below_max"} 1.0"#), "{text}");
}

/// CSV host columns of the bundled capture (tests/fixtures/host/README.md): the interface
/// record's facts on every row, and per interval the pause and discard rates. The
/// generator adds 20 pause frames a sample and one discard every 10 s: each interval's
/// `rx_pause_frames_per_s` x `interval_s` is 20 frames, and the discard rates over one
/// lane's rows add up to the 6 discards of the 60 s run; nothing is sent or out of buffer.
#[test]
fn csv_rows_carry_the_host_columns() {
    let out = optics()
        .arg("export")
        .arg(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host/sr4-200g-host-pause.jsonl"))
        .args(["--csv", "-"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let mut r = csv::Reader::from_reader(&out[..]);
    let head: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    // Appended after every earlier column.
    let host_cols = [
        "host_driver",
        "host_firmware_version",
        "host_numa_node",
        "host_mtu",
        "host_rx_ring",
        "host_rx_ring_max",
        "host_tx_ring",
        "host_tx_ring_max",
        "host_combined_channels",
        "host_rx_channels",
        "host_tx_channels",
        "rx_pause_frames_per_s",
        "tx_pause_frames_per_s",
        "rx_discards_per_s",
        "rx_out_of_buffer_per_s",
    ];
    let at = head.iter().position(|h| h == "predicted_flr_over_budgets").unwrap() + 1;
    assert_eq!(&head[at..at + host_cols.len()], host_cols);
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    let num = |row: &csv::StringRecord, c: &str| -> Option<f64> { (!row[col(c)].is_empty()).then(|| row[col(c)].parse().unwrap()) };
    for row in &rows {
        let facts: Vec<&str> = host_cols[..11].iter().map(|c| &row[col(c)]).collect();
        assert_eq!(facts, ["mlx5_core", "20.39.1002 (MT_0000000228)", "0", "9000", "1024", "8192", "1024", "8192", "32", "", ""]);
    }
    let lane1: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[col("lane")] == "1").collect();
    assert_eq!(lane1.len(), 61);
    assert_eq!((num(lane1[0], "rx_pause_frames_per_s"), num(lane1[0], "rx_discards_per_s")), (None, None), "no interval yet");
    let mut discards = 0.0;
    for row in &lane1[1..] {
        let dt = num(row, "interval_s").unwrap();
        let frames = num(row, "rx_pause_frames_per_s").unwrap() * dt;
        assert!((frames - 20.0).abs() < 1e-6, "{frames}");
        assert_eq!((num(row, "tx_pause_frames_per_s"), num(row, "rx_out_of_buffer_per_s")), (Some(0.0), Some(0.0)));
        discards += num(row, "rx_discards_per_s").unwrap() * dt;
    }
    assert!((discards - 6.0).abs() < 1e-6, "{discards}");
}
