//! Frame loss (`frame_loss`, docs/fec-histogram.md "Frame loss") in the CSV rows and the
//! Prometheus metrics, on the bundled histogram captures of tests/it/support/fecx_captures.rs.
//! Expected figures are the generator's counts through 802.3's arithmetic: 400GBASE-R
//! interleaves X = 2 codewords (IEEE 802.3 Clause 119), 64-octet frames take 84 octets on
//! the wire, MFC = 5120 / 672, so FLR = CER x (2 + 672 / 5120) = CER x 2.13125.

use crate::support;
use support::fecx_captures::*;

fn capture(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

const FLR_PER_CER_400G: f64 = 2.0 + 672.0 / 5120.0;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * b.abs()
}

/// Rows of `export --csv -` keyed by column name.
fn rows(name: &str) -> Vec<std::collections::HashMap<String, String>> {
    let out = support::optics().arg("export").arg(capture(name)).args(["--csv", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut r = csv::Reader::from_reader(&out.stdout[..]);
    let head: Vec<String> = r.headers().unwrap().iter().map(str::to_string).collect();
    // The contract: the new columns come after every earlier one.
    let tail = ["codeword_error_ratio", "flr", "predicted_flr", "flr_over_budgets", "predicted_flr_over_budgets"];
    let at = head.iter().position(|h| h == "codeword_error_ratio").unwrap();
    assert_eq!(&head[at..at + 5], tail);
    assert!(at > head.iter().position(|h| h == "link_loss_pmd").unwrap());
    r.records().map(|rec| head.iter().cloned().zip(rec.unwrap().iter().map(str::to_string)).collect()).collect()
}

/// Interval k of a capture (samples k-1 to k) gains floor(W k / 60) - floor(W (k-1) / 60)
/// codewords in a bin holding W over the window (the generator's spreading).
fn gained(window: u64, k: u64) -> u64 {
    window * k / INTERVALS - window * (k - 1) / INTERVALS
}

#[test]
fn csv_rows_carry_each_intervals_frame_loss() {
    let counts = failing_counts();
    let errored: u64 = counts.iter().sum();
    let bin0 = DR4_CODEWORDS_PER_S * INTERVALS - errored;
    let failing = rows("dr4-400g-fec-tail-failing.jsonl");
    // The first sample has no interval: every frame loss cell empty.
    assert!(failing[0]["codeword_error_ratio"].is_empty() && failing[0]["flr"].is_empty() && failing[0]["flr_over_budgets"].is_empty());
    let mut checked = 0;
    for r in failing.iter().filter(|r| !r["interval_s"].is_empty()) {
        let k = r["t"].parse::<f64>().unwrap().round() as u64;
        // No bin past t = 15 on this capture: the uncorrectable ones are counted apart.
        let u = gained(FAILING_UNCORRECTABLE, k);
        let codewords = gained(bin0, k) + counts[1..].iter().map(|&w| gained(w, k)).sum::<u64>() + u;
        let cer = u as f64 / codewords as f64;
        assert_eq!(r["uncorrectable_blocks_delta"], u.to_string());
        assert!(close(r["codeword_error_ratio"].parse().unwrap(), cer), "t={k}: {} vs {cer}", r["codeword_error_ratio"]);
        assert!(close(r["flr"].parse().unwrap(), cer * FLR_PER_CER_400G), "t={k}: {}", r["flr"]);
        // ~4.4e-7 x 2.13: over the module's 1.7e-12 and the PHY's 6.2e-11, and so is the tail's.
        assert_eq!((r["flr_over_budgets"].as_str(), r["predicted_flr_over_budgets"].as_str()), ("module;phy", "module;phy"));
        assert!(r["predicted_flr"].parse::<f64>().unwrap() > 6.2e-11);
        checked += 1;
    }
    // 60 intervals x 4 lanes, the port's cells on every lane's row.
    assert_eq!(checked, 240);

    // Healthy: no uncorrectable codeword (FLR 0) and a tail far inside both budgets.
    for r in rows("dr4-400g-fec-tail-healthy.jsonl").iter().filter(|r| !r["interval_s"].is_empty()) {
        assert_eq!((r["codeword_error_ratio"].as_str(), r["flr"].as_str()), ("0.0", "0.0"));
        assert_eq!((r["flr_over_budgets"].as_str(), r["predicted_flr_over_budgets"].as_str()), ("none", "none"));
    }
}

#[test]
fn metrics_carry_the_windows_frame_loss_and_both_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let prom = dir.path().join("optics.prom");
    let out = support::optics()
        .args(["scan", "--replay"])
        .arg(capture("dr4-400g-fec-tail-failing.jsonl"))
        .arg("--prometheus")
        .arg(&prom)
        .output()
        .unwrap();
    assert!(out.status.code().is_some(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&prom).unwrap();
    let value = |series: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(series)).unwrap_or_else(|| panic!("{series} missing:\n{text}"));
        line.rsplit_once(' ').unwrap().1.parse().unwrap()
    };
    // The window: the histogram's 78.125e6 x 60 codewords plus the 2048 uncorrectable.
    let cer = FAILING_UNCORRECTABLE as f64 / (DR4_CODEWORDS_PER_S * INTERVALS + FAILING_UNCORRECTABLE) as f64;
    assert!(close(value("optics_fec_codeword_error_ratio{interface=\"ens5np0\"}"), cer));
    assert!(close(value("optics_fec_flr{interface=\"ens5np0\"}"), cer * FLR_PER_CER_400G));
    assert!(value("optics_fec_predicted_flr{interface=\"ens5np0\"}") > 6.2e-11);
    assert_eq!(value("optics_fec_flr_budget{interface=\"ens5np0\",budget=\"module\"}"), 1.7e-12);
    assert_eq!(value("optics_fec_flr_budget{interface=\"ens5np0\",budget=\"phy\"}"), 6.2e-11);
}
