//! `optics compare` and `optics export --csv` as a user runs them on the bundled captures.
//! Numbers come from the generator constants (tests/it/bundled_captures.rs), worked by hand:
//! 200GBASE-SR4 lanes carry 53.125 Gb/s (4 x 26.5625 GBd PAM4); BER = bits/s / 53.125e9.

use crate::support::optics;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

const MARGINAL: &str = "sr4-200g-lane4-marginal.jsonl";

/// The contract: these columns first, in this order (src/output/lane_row.rs `LaneRow`).
const CONTRACT_COLUMNS: [&str; 14] = [
    "time",
    "t",
    "interface",
    "module_sn",
    "lane",
    "rx_power_dbm",
    "tx_power_dbm",
    "tx_bias_ma",
    "module_temperature_c",
    "corrected_bits_delta",
    "pre_fec_ber",
    "margin_db",
    "uncorrectable_blocks_delta",
    "link_down_events_delta",
];

#[test]
fn compare_marginal_with_after_clean() {
    let out = optics().arg("compare").arg(capture(MARGINAL)).arg(capture("sr4-200g-after-clean.jsonl")).arg("--json").assert().success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let cmp = &v["comparisons"][0];
    assert_eq!(cmp["interface"], "ens3np0");
    let lane = |n: u64| cmp["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap().clone();
    // Cleaning: lane 3 500,000 -> 20,000 bits/s (9.41e-6 -> 3.76e-7), rx -1.5 -> -1.05 dBm;
    // lane 4 3,533,333 -> 25,000 bits/s (6.65e-5 -> 4.71e-7), rx -1.6 -> -1.1 dBm.
    // Margins (PAM4, limit x 3.41407): lane 3 0.914 -> 1.561 dB, lane 4 0.407 -> 1.522 dB.
    for (n, d_margin, d_rx) in [(3, 1.561 - 0.914, 0.45), (4, 1.522 - 0.407, 0.5)] {
        let l = lane(n);
        assert_eq!(l["change"], "improved", "lane {n}: {l}");
        let got = l["margin_delta_db"].as_f64().unwrap();
        assert!((got - d_margin).abs() < 0.05, "lane {n} margin delta {got}, expected {d_margin}");
        let rx = l["rx_power_delta_db"].as_f64().unwrap();
        assert!((rx - d_rx).abs() < 0.05, "lane {n} rx delta {rx}");
    }
    // Lanes 1-2: same rates (15,000 and 23,333) and light before and after.
    for n in [1, 2] {
        let l = lane(n);
        assert_ne!(l["change"], "improved", "lane {n}: {l}");
        assert!(l["margin_delta_db"].as_f64().unwrap().abs() < 0.05, "lane {n}: {l}");
    }
    // Text names the improvement per lane.
    optics()
        .arg("compare")
        .arg(capture(MARGINAL))
        .arg(capture("sr4-200g-after-clean.jsonl"))
        .assert()
        .success()
        .stdout(predicate::str::contains("lane 4").and(predicate::str::contains("improved")));
}

fn export_to_file(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    optics().arg("export").arg(capture(name)).arg("--csv").arg(&path).assert().success();
    (dir, path)
}

fn num(cell: &str) -> Option<f64> {
    if cell.is_empty() {
        None
    } else {
        Some(cell.parse::<f64>().unwrap_or_else(|e| panic!("not a number {cell:?}: {e}")))
    }
}

#[test]
fn export_csv_rows_and_values() {
    let (_dir, path) = export_to_file(MARGINAL);
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let headers: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    assert!(headers.len() >= CONTRACT_COLUMNS.len());
    assert_eq!(&headers[..CONTRACT_COLUMNS.len()], &CONTRACT_COLUMNS[..], "contract columns first, in order");
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("RFC 4180 row")).collect();
    // simple_capture(.., 61, ..): 61 samples x 4 lanes.
    assert_eq!(rows.len(), 61 * 4);
    // Every column except the text ones is numeric or empty.
    let text_cols = [
        "time",
        "interface",
        "module_sn",
        "flags",
        "ber_source",
        "host",
        "link_loss_pmd",
        "flr_over_budgets",
        "predicted_flr_over_budgets",
        "host_driver",
        "host_firmware_version",
    ];
    for row in &rows {
        assert_eq!(row.len(), headers.len());
        for (h, cell) in headers.iter().zip(row.iter()) {
            if !text_cols.contains(&h.as_str()) {
                num(cell);
            }
        }
    }
    let first_t = num(&rows[0][col("t")]).unwrap();
    assert_eq!(first_t, 0.0);
    for row in &rows {
        let t = num(&row[col("t")]).unwrap();
        let lane = num(&row[col("lane")]).unwrap();
        assert_eq!(&row[col("interface")], "ens3np0");
        assert_eq!(&row[col("module_sn")], "MT2233FT01234");
        if t == first_t {
            // No previous sample: no deltas, no BER.
            for c in ["corrected_bits_delta", "pre_fec_ber", "margin_db", "uncorrectable_blocks_delta", "link_down_events_delta"] {
                assert_eq!(&row[col(c)], "", "first sample has an empty {c}");
            }
            // "created": "2026-11-30T10:00:00Z" + 0 s, always with microseconds.
            assert_eq!(&row[col("time")], "2026-11-30T10:00:00.000000Z");
            continue;
        }
        assert_eq!(num(&row[col("uncorrectable_blocks_delta")]), Some(0.0));
        assert_eq!(num(&row[col("link_down_events_delta")]), Some(0.0));
        if lane == 4.0 {
            // 3,533,333 bits/s ±5% over ~1 s / 53.125e9 = 6.65e-5 ±5%; the ±0.2% tick jitter
            // is divided out by the interval.
            let ber = num(&row[col("pre_fec_ber")]).unwrap();
            assert!((ber / 6.651e-5 - 1.0).abs() < 0.06, "t={t}: lane 4 BER {ber}");
            // About 3.53 million bits per ~1 s interval.
            let bits = num(&row[col("corrected_bits_delta")]).unwrap();
            assert!((bits / 3_533_333.0 - 1.0).abs() < 0.06, "t={t}: {bits}");
            // -1.6 dBm ±0.02 jitter, 0.1 uW quantisation.
            assert!((num(&row[col("rx_power_dbm")]).unwrap() - -1.6).abs() < 0.03);
        }
    }
}

/// Python's csv module is an independent RFC 4180 reader: same rows, same header.
#[test]
fn export_csv_parses_with_python_csv() {
    let (_dir, path) = export_to_file(MARGINAL);
    let script = "import csv,sys\nrows=list(csv.reader(open(sys.argv[1],newline='')))\nw={len(r) for r in rows}\nassert len(w)==1,w\nprint(len(rows)-1, ','.join(rows[0][:3]))\n";
    let out = match std::process::Command::new("python3").arg("-c").arg(script).arg(&path).output() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("skipping: python3 not available ({e})");
            return;
        }
    };
    assert!(out.status.success(), "python csv failed: {}", String::from_utf8_lossy(&out.stderr));
    // 61 x 4 rows after the header.
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "244 time,t,interface");
}

#[test]
fn export_csv_to_stdout_matches_the_file() {
    let (_dir, path) = export_to_file(MARGINAL);
    let file = std::fs::read(&path).unwrap();
    let out = optics().arg("export").arg(capture(MARGINAL)).args(["--csv", "-"]).assert().success();
    assert_eq!(out.get_output().stdout, file);
    assert!(String::from_utf8_lossy(&file).starts_with(&CONTRACT_COLUMNS.join(",")));
}

/// A counter reset gives empty deltas on the sample after it, never a wrapped huge number.
#[test]
fn export_counter_reset_has_no_bogus_delta() {
    let (_dir, path) = export_to_file("sr4-200g-counter-reset.jsonl");
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let headers = rdr.headers().unwrap().clone();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 61 * 4);
    for row in &rows {
        if let Some(ber) = num(&row[col("pre_fec_ber")]) {
            // HEALTHY_RATES max 18,000 bits/s -> 3.4e-7; ±5% noise per interval.
            assert!(ber < 1e-6, "t={}: BER {ber}", &row[col("t")]);
        }
    }
    // Sample 30 (the reset, rows 120..124) has no previous sample in its segment.
    assert!(rows[120..124].iter().all(|r| r[col("corrected_bits_delta")].is_empty()), "{:?}", &rows[120]);
}

#[test]
fn export_unknown_interface_fails() {
    optics()
        .arg("export")
        .arg(capture(MARGINAL))
        .args(["--csv", "-", "--interface", "eth9"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("eth9"));
}

#[test]
fn export_unknown_interface_fails_the_same_with_and_without_the_metrics() {
    // The capture's interfaces in order of first appearance, read from its lines.
    let cap = capture("multihost-gb10-cx7.jsonl");
    let mut have: Vec<String> = Vec::new();
    for line in std::fs::read_to_string(&cap).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if let Some(name) = v["interface"].as_str().filter(|n| !have.iter().any(|h| h == n)) {
            have.push(name.to_string());
        }
    }
    assert_eq!(have.len(), 4, "{have:?}");
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    let prom = dir.path().join("optics.prom");
    // Without --prometheus the rows need no whole-run analysis; with it they do: the
    // error, its exit status and the removed output are the same either way.
    for metrics in [false, true] {
        let mut cmd = optics();
        cmd.arg("export").arg(&cap).arg("--csv").arg(&csv).args(["--interface", &have[1], "--interface", "nosuch"]);
        if metrics {
            cmd.arg("--prometheus").arg(&prom);
        }
        let want = format!(
            "optics: note: removed {}: export failed\noptics: error: interface nosuch is not in the capture (it has: {})\n",
            csv.display(),
            have.join(", ")
        );
        cmd.assert().code(1).stdout("").stderr(want);
        assert!(!csv.exists() && !prom.exists(), "metrics {metrics}");
        // A name the capture has is exported.
        let mut ok = optics();
        ok.arg("export").arg(&cap).arg("--csv").arg(&csv).args(["--interface", &have[1]]);
        if metrics {
            ok.arg("--prometheus").arg(&prom);
        }
        ok.assert().success();
        let rows = std::fs::read_to_string(&csv).unwrap();
        assert!(rows.lines().skip(1).all(|r| r.split(',').nth(2) == Some(have[1].as_str())), "{rows}");
        std::fs::remove_file(&csv).unwrap();
    }
}
