//! The streaming engine on long and hand-built runs (rolling windows, link drops, segments,
//! ranges, bounded lines, export rows), through the real binary where they are CLI.

use crate::support::optics;
use optics::analysis::{analyze, config::Config, verdict::ReasonCode};
use optics::capture::{CaptureWriter, Header, InterfaceRecord, Record, SampleRecord};
use optics::counters::{FecStats, LinkInfo, LinkState};
use optics::sample::engine::{replay_from, Engine, EngineConfig};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn iface(name: &str) -> Record {
    Record::Interface(InterfaceRecord {
        t: 0.0,
        interface: name.into(),
        driver: None,
        bus_info: None,
        pci: None,
        port: None,
        link: LinkInfo {
            speed_mbps: Some(200_000),
            lanes: Some(4),
            link_mode: Some("200000baseSR4/Full".into()),
            fec_active: Some("RS".into()),
            ..Default::default()
        },
        module: None,
        origin_file: None,
        host: None,
        ib: None,
        neighbor: None,
    })
}

fn sample(name: &str, t: f64, lanes: [u64; 4], up: bool, down_events: Option<u64>) -> Record {
    let total: u64 = lanes.iter().sum();
    Record::Sample(SampleRecord {
        t,
        interface: name.into(),
        link: LinkState { up: Some(up), down_events, ..Default::default() },
        fec: Some(FecStats {
            corrected_bits: [&[total][..], &lanes[..]].concat(),
            corrected_blocks: vec![0],
            uncorrectable_blocks: vec![0],
            histogram: vec![],
            source: None,
            latest_readings: None,
        }),
        module: None,
        ..Default::default()
    })
}

/// Lane i of interface k gains (i + 1) x (k + 1) x 1000 bits per second.
fn bits_at(k: usize, t: u64) -> [u64; 4] {
    std::array::from_fn(|i| (i as u64 + 1) * (k as u64 + 1) * 1000 * t + 7)
}

#[test]
fn a_two_hour_capture_equals_first_and_last_counters() {
    // 3 interfaces x 7201 samples at 1 s, written as a capture and streamed back.
    let names = ["e0", "e1", "e2"];
    let mut w = CaptureWriter::new(Vec::new(), &Header::new(None, None, None)).unwrap();
    for n in names {
        w.write(&iface(n)).unwrap();
    }
    for t in 0..=7200u64 {
        for (k, n) in names.iter().enumerate() {
            w.write(&sample(n, t as f64, bits_at(k, t), true, Some(3))).unwrap();
        }
    }
    let bytes = w.into_inner().unwrap();
    let (engine, done) = replay_from(&bytes[..], EngineConfig { buckets: 64, ..Default::default() }).unwrap();
    assert!(done.notes.is_empty());
    assert_eq!(engine.interfaces(), names);
    let ws = engine.windows();
    let out = analyze(&ws, &Config::default(), &[]);
    for (k, (w, a)) in ws.iter().zip(&out).enumerate() {
        // Last minus first: lane i gained (i + 1)(k + 1) x 1000 x 7200 bits over 7200 s.
        let want: Vec<u64> = (0..4).map(|i| (i + 1) * (k as u64 + 1) * 7_200_000).collect();
        assert_eq!(w.deltas.corrected_bits_per_lane.as_ref().unwrap().values, want);
        assert_eq!(w.duration_s, 7200.0);
        assert_eq!(w.samples, 7201);
        assert_eq!(w.deltas.link_down_events.as_ref().unwrap().value, 0);
        // BER of lane 1 = (k + 1) x 7.2e6 / (53.125e9 x 7200) = (k + 1) x 1.8824e-8.
        let l1 = a.lanes.iter().find(|l| l.lane == 1).unwrap();
        let ber = (k as f64 + 1.0) * 7.2e6 / (53.125e9 * 7200.0);
        assert!((l1.pre_fec_ber.unwrap() / ber - 1.0).abs() < 1e-12, "{:?} {ber}", l1.pre_fec_ber);
        // The series stays within its bound and adds up to the same totals.
        let s = engine.series(&w.interface).unwrap();
        assert!(s.buckets().len() <= 64);
        let lane1: u64 = (0..s.buckets().len()).map(|k| s.corrected_bits(k, 0).unwrap()).sum();
        assert_eq!(lane1, want[0]);
        assert_eq!(s.buckets().iter().map(|b| b.duration_s).sum::<f64>(), 7200.0);
    }
}

#[test]
fn rolling_windows_cover_the_last_seconds() {
    // Lane 1 gains 10 bits/s until t = 900 s, then 100 bits/s, to t = 999 s.
    // Rolling [60, 300]: snapshots every >= 300/256 s.
    let mut e = Engine::new(EngineConfig { rolling_s: vec![60.0, 300.0], ..EngineConfig::default() });
    e.push(&iface("e0"));
    let mut lane1 = 0u64;
    for t in 0..1000u64 {
        if t > 0 {
            lane1 += if t <= 900 { 10 } else { 100 };
        }
        e.push(&sample("e0", t as f64, [lane1, 0, 0, 0], true, Some(0)));
    }
    // Snapshots land on even seconds (1 s < 1.17 s spacing <= 2 s), so the 60 s window
    // starts at t = 940: 59 s, 60 samples, 59 x 100 = 5900 bits.
    let w = e.rolling_windows(60.0).remove(0);
    assert_eq!((w.duration_s, w.samples), (59.0, 60));
    assert_eq!(w.deltas.corrected_bits_per_lane.unwrap().values, vec![5900, 0, 0, 0]);
    // 300 s: from t = 700 (299 s): 200 s at 10 + 99 s at 100 = 2000 + 9900 = 11900.
    let w = e.rolling_windows(300.0).remove(0);
    assert_eq!((w.duration_s, w.samples), (299.0, 300));
    assert_eq!(w.deltas.corrected_bits_per_lane.unwrap().values[0], 11_900);
    // The whole run is still there: 900 x 10 + 99 x 100 = 18900.
    assert_eq!(e.window("e0").unwrap().deltas.corrected_bits_per_lane.unwrap().values[0], 18_900);
}

#[test]
fn link_drops_without_a_counter_are_counted_from_the_samples() {
    // 20 samples, no link-down counter; down at samples 5-7 and 12-14: two up -> down.
    let mut e = Engine::new(EngineConfig::default());
    e.push(&iface("v0"));
    for t in 0..20u64 {
        let up = !(5..8).contains(&t) && !(12..15).contains(&t);
        e.push(&sample("v0", t as f64, bits_at(0, t), up, None));
    }
    let w = e.window("v0").unwrap();
    let d = w.deltas.link_down_events.as_ref().unwrap();
    assert_eq!((d.value, d.origin.to_string().as_str()), (2, "samples"));
    let a = analyze(&[w], &Config::default(), &[]).remove(0);
    assert!(a.reasons.iter().any(|r| r.code == ReasonCode::LinkFlaps && r.message.starts_with("2 link-down events")), "{:#?}", a.reasons);
    assert_eq!(a.link.counter_sources.get("link_down_events").map(String::as_str), Some("samples"));
    // The series puts the two drops at t = 5 and t = 12.
    assert_eq!(e.series("v0").unwrap().link_down_t(), [5.0, 12.0]);
}

#[test]
fn interfaces_in_order_and_removed_ones_forgotten() {
    let mut e = Engine::new(EngineConfig::default());
    for n in ["b", "a", "c"] {
        e.push(&sample(n, 0.0, [0; 4], true, Some(0)));
    }
    e.remove("a");
    assert_eq!(e.interfaces(), ["b", "c"]);
    assert!(e.window("a").is_none());
}

#[test]
fn an_endless_line_is_refused_with_its_number() {
    // Issue 9 item 19: one line is bounded at 16 MB.
    optics()
        .args(["scan", "--replay", "/dev/zero"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("line 1: longer than 16777216 bytes"));
}

#[test]
fn a_range_that_selects_no_sample_is_an_error() {
    // Issue 9 item 4: the capture ends near t = 60 s.
    optics()
        .args(["scan", "--replay"])
        .arg(capture("sr4-200g-lane4-marginal.jsonl"))
        .args(["--from", "1000"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("selects no sample"));
}

fn scan_json(args: &[&str]) -> Value {
    let out = optics().arg("scan").args(args).arg("--json").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn naming_one_netdev_of_a_multi_host_nic_keeps_its_verdict() {
    // Issue 9 item 6: grouping is computed from every interface, then filtered.
    let path = capture("multihost-gb10-cx7.jsonl");
    let p = path.to_str().unwrap();
    let all = scan_json(&["--replay", p]);
    let one = scan_json(&["--replay", p, "enp1s0f0np0"]);
    let ifs = one["interfaces"].as_array().unwrap();
    assert_eq!(ifs.len(), 1);
    let same = all["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == "enp1s0f0np0").unwrap();
    assert_eq!(ifs[0]["verdict"], same["verdict"]);
    assert_eq!(ifs[0]["verdict"], "accept");
    assert_eq!(ifs[0]["pcie"], same["pcie"]);
}

#[test]
fn every_segment_is_analysed_and_reported() {
    // Issue 9 item 5: the marginal first 30 s of the module-swap capture (lane 4 of SN
    // MT2233FT01234 at -1.6 dBm, the lane4-marginal case) is reported; the verdict is the
    // new module's.
    let path = capture("sr4-200g-module-swap.jsonl");
    let v = scan_json(&["--replay", path.to_str().unwrap()]);
    let a = &v["interfaces"][0];
    let segs = a["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 2);
    for s in segs {
        for k in ["from_t", "to_t", "module_sn", "reason", "verdict", "reasons", "lanes"] {
            assert!(s.get(k).is_some(), "{k}");
        }
    }
    assert_eq!((segs[0]["reason"].as_str(), segs[1]["reason"].as_str()), (Some("start"), Some("module_changed")));
    assert_eq!(segs[0]["module_sn"], "MT2233FT01234");
    assert_eq!(segs[0]["verdict"], "investigate");
    assert!(segs[0]["reasons"].as_array().unwrap().iter().any(|r| r["lane"] == 4));
    assert_eq!(segs[1]["verdict"], a["verdict"]);
    assert!(segs[1]["from_t"].as_f64().unwrap() > 29.0 && segs[0]["to_t"].as_f64().unwrap() < 30.0);
    let text = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains("before the module swap at t=30.002 s (module SN MT2233FT01234): investigate: lane 4"), "{text}");
    // A counter reset splits the same module: the first part is still there.
    let v = scan_json(&["--replay", capture("sr4-200g-counter-reset.jsonl").to_str().unwrap()]);
    let segs = v["interfaces"][0]["segments"].as_array().unwrap();
    assert_eq!(segs.iter().map(|s| s["reason"].as_str().unwrap()).collect::<Vec<_>>(), ["start", "counter_reset"]);
}

#[test]
fn rx_monitors_alone_equal_the_full_decode() {
    // Issue 7 item 2: per sample only the rx monitors are decoded; they must be what the
    // full decode gives, for every sample of every bundled capture and every real dump.
    use optics::module::{decode, input, lane_rx_power_mw, rx_power_by_lane, ModuleImage};
    let mut images: Vec<(String, ModuleImage)> = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    for e in std::fs::read_dir(dir.join("captures")).unwrap().flatten().filter(|e| e.path().extension().is_some_and(|x| x == "jsonl")) {
        let cap = optics::capture::read_capture(e.path()).unwrap();
        let mut stat: Option<ModuleImage> = None;
        for (i, r) in cap.records.iter().enumerate() {
            match r {
                Record::Interface(ir) => stat = ir.module.as_ref().map(|m| m.image().unwrap()),
                Record::Sample(s) => {
                    let mut img = stat.clone().unwrap_or_default();
                    s.module.iter().flat_map(|m| &m.pages).for_each(|p| img.insert_entry(p).unwrap());
                    images.push((format!("{} record {i}", e.path().display()), img));
                }
                _ => {}
            }
        }
    }
    for e in std::fs::read_dir(dir.join("tests/fixtures/real-dumps")).unwrap().flatten() {
        if let Ok(p) = input::parse(&std::fs::read(e.path()).unwrap()) {
            images.push((e.path().display().to_string(), p.image));
        }
    }
    assert!(images.len() > 700, "{}", images.len());
    for (name, img) in &images {
        let fast = lane_rx_power_mw(img).ok();
        let full = decode(img).ok().map(|m| rx_power_by_lane(&m));
        assert_eq!(fast, full, "{name}");
    }
}

#[test]
fn export_rows_have_one_time_format_a_host_and_json_lines() {
    // Issue 11 item 8: RFC 3339 with microseconds always, `host` after every earlier
    // column, and `--json FILE` writing the same rows as JSON Lines.
    let dir = tempfile::tempdir().unwrap();
    let (csv_path, json_path) = (dir.path().join("rows.csv"), dir.path().join("rows.jsonl"));
    optics()
        .arg("export")
        .arg(capture("sr4-200g-lane4-marginal.jsonl"))
        .arg("--csv")
        .arg(&csv_path)
        .arg("--json")
        .arg(&json_path)
        .assert()
        .success();
    let text = std::fs::read_to_string(&csv_path).unwrap();
    let mut r = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    assert_eq!(header.first().map(String::as_str), Some("time"));
    // `host` after every column that was there before it; later columns are appended after it.
    assert_eq!(header[23], "host");
    assert_eq!(&header[24..27], ["link_loss_db", "link_loss_budget_db", "link_loss_pmd"]);
    assert_eq!(&header[27..32], ["codeword_error_ratio", "flr", "predicted_flr", "flr_over_budgets", "predicted_flr_over_budgets"]);
    assert_eq!(header[18], "flags"); // the contract columns keep their places
    let rows: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
    // The capture starts 2026-11-30T10:00:00Z (header); the second sample is at t = 1.0001 s.
    let second = rows.iter().find(|r| &r[1] != "0").unwrap();
    assert_eq!(&second[0], format!("2026-11-30T10:00:{:09.6}Z", second[1].parse::<f64>().unwrap()));
    assert!(rows.iter().all(|r| r[0].len() == "2026-11-30T10:00:00.000000Z".len()));
    let host = rows[0].get(23).unwrap();
    assert!(!host.is_empty());
    // JSON Lines: one object per CSV row, the same values under the column names.
    let lines: Vec<Value> = std::fs::read_to_string(&json_path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), rows.len());
    for (row, obj) in rows.iter().zip(&lines) {
        assert_eq!(obj["time"], row[0]);
        assert_eq!(obj["host"], host);
        assert_eq!(obj["lane"].as_u64().map(|v| v.to_string()).unwrap_or_default(), row[4]);
        assert_eq!(obj["corrected_bits_delta"].as_u64().map(|v| v.to_string()).unwrap_or_default(), row[9]);
    }
}

#[test]
fn an_earlier_segment_is_named_by_the_break_that_ended_it() {
    // A sample stamped before the one it follows breaks the segment as a counter reset
    // does (the JSON reason is `counter_reset` for both), but the text says what happened.
    let lines: Vec<Value> =
        std::fs::read_to_string(capture("sr4-200g-healthy.jsonl")).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let samples: Vec<usize> = (0..lines.len()).filter(|i| lines[*i]["record"] == "sample").collect();
    let (at, prev) = (samples[samples.len() / 2], samples[samples.len() / 2 - 1]);
    let mut lines = lines;
    // One second before the previous sample; later samples come after it again.
    let back_t = lines[prev]["t"].as_f64().unwrap() - 1.0;
    lines[at]["t"] = back_t.into();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clock-back.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let v = scan_json(&["--replay", path.to_str().unwrap()]);
    let segs = v["interfaces"][0]["segments"].as_array().unwrap();
    assert_eq!(segs.iter().map(|s| s["reason"].as_str().unwrap()).collect::<Vec<_>>(), ["start", "counter_reset"]);
    let text = |p: &Path| String::from_utf8(optics().args(["scan", "--replay"]).arg(p).output().unwrap().stdout).unwrap();
    let clock = text(&path);
    assert!(clock.contains(&format!("before time going backwards at t={back_t} s")), "{clock}");
    assert!(!clock.contains("before the counter reset"), "{clock}");
    let reset = text(&capture("sr4-200g-counter-reset.jsonl"));
    assert!(reset.contains("before the counter reset at t="), "{reset}");
}
