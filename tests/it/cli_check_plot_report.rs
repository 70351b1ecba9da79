//! `--profile`, `--check` (monitoring-plugin exit codes 0-3), `plot`, `report`,
//! `completions` and `man`, through the real binary.
//!
//! Profile arithmetic (src/analysis/profile.rs): 200g wants 200000 Mb/s over 4 lanes,
//! RS(544,514), a PCIe ceiling of at least 200 Gb/s trained at the card's maximum, a margin
//! of at least 1 dB, no link-down events; 800g wants 800000 Mb/s over 8 lanes and 800 Gb/s
//! of PCIe (Gen6 x16 = 868.5 Gb/s).

use crate::support::optics;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn scan(cap: &str, extra: &[&str]) -> std::process::Output {
    optics().arg("scan").arg("--replay").arg(capture(cap)).args(extra).output().unwrap()
}

fn profile_items(cap: &str, profile: &str) -> (Value, Vec<(String, String, String, Value)>) {
    let out = scan(cap, &["--profile", profile, "--json"]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let i = v["interfaces"][0].clone();
    let items = i["profile"]["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["check"].as_str().unwrap().into(),
                x["expected"].as_str().unwrap().into(),
                x["measured"].as_str().unwrap().into(),
                x["ok"].clone(),
            )
        })
        .collect();
    (i, items)
}

#[test]
fn gen4_x4_is_below_the_200g_profile_with_both_sides() {
    // The capture's NIC trained at 16.0 GT/s (Gen4) x4 of x16: 16 x 4 x 128/130 x 0.92 =
    // 58.0 Gb/s of ceiling for a 200 Gb/s port, and below the card's own x16.
    let (i, items) = profile_items("pcie-gen4-x4-of-x16.jsonl", "200g");
    assert_eq!(i["verdict"], "reject");
    let pcie = items.iter().find(|x| x.0 == "pcie_ceiling").unwrap();
    assert_eq!((pcie.1.as_str(), pcie.2.as_str(), &pcie.3), (">= 200.0 Gb/s (the line rate)", "58.0 Gb/s (Gen4 x4)", &Value::Bool(false)));
    let below: Vec<&str> =
        i["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == "below_profile").map(|r| r["message"].as_str().unwrap()).collect();
    assert_eq!(
        below,
        [
            "profile 200g: pcie_ceiling expected >= 200.0 Gb/s (the line rate), measured 58.0 Gb/s (Gen4 x4)",
            "profile 200g: pcie_trained expected the card's maximum, 16.0 GT/s x16, measured 16.0 GT/s x4"
        ]
    );
    // Speed, lanes, FEC and flaps meet it: 200000 Mb/s, 4 lanes, RS(544,514), 0 events.
    for check in ["speed", "lanes", "fec", "link_down_events"] {
        assert_eq!(items.iter().find(|x| x.0 == check).unwrap().3, Value::Bool(true), "{check}");
    }
    // The text report shows expected beside measured.
    let text = String::from_utf8(scan("pcie-gen4-x4-of-x16.jsonl", &["--profile", "200g"]).stdout).unwrap();
    assert!(text.contains("below_profile: profile 200g: pcie_ceiling expected >= 200.0 Gb/s"), "{text}");
}

#[test]
fn a_healthy_connectx6_200g_at_gen4_x16_passes_the_200g_profile_and_says_so() {
    // README's healthy sample: mlx5 at 16.0 GT/s x16 of x16 = 231.9 Gb/s >= 200 Gb/s.
    let (i, items) = profile_items("sr4-200g-healthy.jsonl", "200g");
    assert_eq!(i["verdict"], "accept", "{items:?}");
    assert!(items.iter().all(|x| x.3 == Value::Bool(true)), "{items:?}");
    let n = items.len();
    assert_eq!(i["profile"]["summary"], format!("profile 200g: {n}/{n} checks passed"));
    let text = String::from_utf8(scan("sr4-200g-healthy.jsonl", &["--profile", "200g", "--all"]).stdout).unwrap();
    assert!(text.contains(&format!("profile 200g: {n}/{n} checks passed")), "{text}");
    let (code, out) = check(&capture("sr4-200g-healthy.jsonl"), &["--profile", "200g"]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn an_unmeasured_profile_check_is_unknown_not_ok() {
    // The same healthy capture with its PCIe link removed: the PCIe checks cannot be
    // measured, so --check cannot say OK.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(capture("sr4-200g-healthy.jsonl")).unwrap();
    let mut out_text = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if v["record"] == "interface" {
            v.as_object_mut().unwrap().remove("pci");
        }
        out_text.push_str(&v.to_string());
        out_text.push('\n');
    }
    let p = dir.path().join("nopci.jsonl");
    std::fs::write(&p, out_text).unwrap();
    let (code, out) = check(&p, &["--profile", "200g"]);
    assert_eq!(code, 3, "{out}");
    assert!(out.starts_with("OPTICS UNKNOWN - ens3np0: profile 200g not measured: pcie_ceiling pcie_trained"), "{out}");
}

#[test]
fn the_800g_capture_meets_800g_and_not_400g() {
    // 800000baseDR8 over 8 lanes at 64 GT/s (Gen6) x16; weakest lane 1.74 dB.
    let (i, items) = profile_items("dr8-800g-cmis-healthy.jsonl", "800g");
    assert_eq!(i["verdict"], "accept");
    assert!(items.iter().all(|x| x.3 == Value::Bool(true)), "{items:?}");
    // 400g expects 4 lanes of 100G: the 8-lane port is not what that profile validates.
    let (i, items) = profile_items("dr8-800g-cmis-healthy.jsonl", "400g");
    assert_eq!(i["verdict"], "reject");
    let failed: Vec<&str> = items.iter().filter(|x| x.3 == Value::Bool(false)).map(|x| x.0.as_str()).collect();
    assert_eq!(failed, ["lanes"]);
}

#[test]
fn user_profiles_come_from_the_config_file() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.json");
    std::fs::write(&cfg, r#"{"node_profiles": {"lab": {"speed_mbps": 200000, "pcie": [{"generation": 4, "width": 4}]}}}"#).unwrap();
    let out = scan("pcie-gen4-x4-of-x16.jsonl", &["--config", cfg.to_str().unwrap(), "--profile", "lab", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let items = v["interfaces"][0]["profile"]["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 2);
    assert!(items.iter().all(|x| x["ok"] == true));
    // A name neither built in nor in the config file: a usage error.
    let out = scan("pcie-gen4-x4-of-x16.jsonl", &["--profile", "1t"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no profile named \"1t\""));
}

fn check(cap: &Path, extra: &[&str]) -> (i32, String) {
    let out = optics().arg("scan").arg("--replay").arg(cap).arg("--check").args(extra).output().unwrap();
    (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
}

#[test]
fn check_exit_codes_zero_to_three() {
    let (code, out) = check(&capture("dr8-800g-cmis-healthy.jsonl"), &["--profile", "800g"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("OPTICS OK - 1 interface accepted | margin_db_ens6np0_1="), "{out}");
    assert_eq!(out.lines().count(), 1);

    let (code, out) = check(&capture("sr4-200g-lane4-marginal.jsonl"), &[]);
    assert_eq!(code, 1, "{out}");
    assert!(out.starts_with("OPTICS WARNING - ens3np0: fec_hiding_marginal_optics, low_margin | "), "{out}");
    // Lane 4's margin 0.41 dB (212e6 bits in 60 s, worked in tests/cli_scan.rs): warn below
    // the 1 dB floor ("1:" in the plugin range syntax), critical below the limit itself ("0:").
    assert!(out.contains(" margin_db_ens3np0_4=0.41;1:;0:"), "{out}");

    let (code, out) = check(&capture("pcie-gen4-x4-of-x16.jsonl"), &["--profile", "200g"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.starts_with("OPTICS CRITICAL - ens3np0: pcie_degraded, below_profile"), "{out}");

    let (code, out) = check(Path::new("/nonexistent/capture.jsonl"), &[]);
    assert_eq!(code, 3);
    assert!(out.starts_with("OPTICS UNKNOWN - capture /nonexistent/capture.jsonl"), "{out}");
    // A capture with an interface record and no samples: no data.
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(capture("sr4-200g-healthy.jsonl")).unwrap();
    let p = dir.path().join("nosamples.jsonl");
    std::fs::write(&p, text.lines().take(2).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let (code, out) = check(&p, &[]);
    assert_eq!(code, 3, "{out}");
    assert!(out.starts_with("OPTICS UNKNOWN - "), "{out}");
}

#[test]
fn help_lists_every_exit_code() {
    for args in [&["--help"][..], &["scan", "--help"][..], &["watch", "--help"][..]] {
        let out = optics().args(args).output().unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        for code in ["0  done", "1  error", "2  usage error", "3  --fail-on met", "UNKNOWN", "CRITICAL", "WARNING"] {
            assert!(help.contains(code), "{args:?}: {code}");
        }
    }
}

fn svg_texts(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| n.text().unwrap_or("").trim().to_string()).collect()
}

#[test]
fn plot_ber_vs_rx_has_a_series_per_lane_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("p.svg");
    optics().arg("plot").arg(capture("sr4-200g-lane4-marginal.jsonl")).arg("-o").arg(&out).assert().success();
    let svg = std::fs::read_to_string(&out).unwrap();
    let texts = svg_texts(&svg);
    for lane in 1..=4 {
        // The legend entry and the point's own label.
        assert_eq!(texts.iter().filter(|t| **t == format!("lane {lane}")).count(), 2, "lane {lane}: {texts:?}");
    }
    // RS(544,514) limit 2.4e-4 (IEEE 802.3 Clause 138).
    assert!(texts.iter().any(|t| t == "RS(544,514) limit 2.4e-4"), "{texts:?}");
    assert!(texts.iter().any(|t| t.starts_with("fit -") && t.ends_with("decades/dB over 4 counted lanes")), "{texts:?}");
    // One filled circle per lane point (plus legend markers).
    let doc = roxmltree::Document::parse(&svg).unwrap();
    assert!(doc.descendants().filter(|n| n.has_tag_name("circle")).count() >= 8);
}

#[test]
fn plot_margin_over_time_and_histogram() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.svg");
    optics().arg("plot").arg(capture("sr4-200g-module-swap.jsonl")).args(["--kind", "margin-over-time", "-o"]).arg(&out).assert().success();
    let texts = svg_texts(&std::fs::read_to_string(&out).unwrap());
    for lane in 1..=4 {
        assert_eq!(texts.iter().filter(|t| **t == format!("lane {lane}")).count(), 1, "{texts:?}");
    }
    assert!(texts.iter().any(|t| t == "margin floor 1.0 dB"));
    assert!(texts.iter().any(|t| t == "module changed"), "{texts:?}");
    // No bundled capture has FEC histogram bins: a clear error, exit 1, no file.
    let h = dir.path().join("h.svg");
    let o = optics().arg("plot").arg(capture("sr4-200g-healthy.jsonl")).args(["--kind", "histogram", "-o"]).arg(&h).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no FEC histogram"));
    assert!(!h.exists());
}

#[test]
fn report_is_vendor_ready_markdown() {
    let dir = tempfile::tempdir().unwrap();
    let md = dir.path().join("r.md");
    let plots = dir.path().join("plots");
    optics()
        .arg("report")
        .arg(capture("sr4-200g-lane4-marginal.jsonl"))
        .arg("--peer")
        .arg(capture("sr4-200g-far-end-normal-tx.jsonl"))
        .arg("-o")
        .arg(&md)
        .arg("--plots")
        .arg(&plots)
        .assert()
        .success();
    let text = std::fs::read_to_string(&md).unwrap();
    // Header (host, kernel), interface record (driver, PCI), module EEPROM (serial, date code).
    for want in [
        "# Link evidence: gpu-node-17",
        "Kernel: 6.18.44",
        "NIC driver: mlx5_core",
        "PCI address: 0000:3b:00.0",
        "Serial number: MT2233FT01234",
        "### What was measured",
        "### What was expected",
        "### What was ruled out",
        "- Ruled out: PCIe bottleneck",
        "- Ruled out: frame loss past the FEC (0 uncorrectable blocks)",
        "### Far end",
        "### Conclusion",
        "`fec_hiding_marginal_optics`",
        "`corrected_bits_per_lane` from driver:rx_err_lane_N_phy",
    ] {
        assert!(text.contains(want), "missing {want:?}:\n{text}");
    }
    // Lane 4: 212302572 corrected bits in the window; the 90% interval (two one-sided 95% bounds).
    let l4 = text.lines().find(|l| l.starts_with("| 4 |")).unwrap();
    assert!(l4.contains("| 212302572 |") && l4.contains("0.41"), "{l4}");
    assert!(text.contains("90% interval"));
    for name in ["ens3np0-ber-vs-rx.svg", "ens3np0-margin-over-time.svg"] {
        assert!(plots.join(name).exists(), "{name}");
        // Linked from the report's folder: r.md and plots/ are side by side.
        assert!(text.contains(&format!("](plots/{name})")), "{name} embedded");
    }
}
