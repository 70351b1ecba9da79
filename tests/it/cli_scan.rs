//! `optics scan --replay` as a user runs it, over every bundled capture (captures/README.md)
//! and the example capture. Expected numbers come from the generator constants in
//! tests/it/bundled_captures.rs and tests/it/support/captures.rs, worked by hand in the comments.
//!
//! Shared arithmetic (physics.md, src/analysis/q.rs model):
//! - 200GBASE-SR4: 4 lanes x 26.5625 GBd PAM4 = 53.125 Gb/s per lane; RS(544,514) limit 2.4e-4.
//! - PAM4 BER = 0.75 Q(x), Q(x) = erfc(x/sqrt 2)/2; margin_db = 10 log10(x / x_limit).
//! - Limit: Q = 2.4e-4 / 0.75 = 3.2e-4 -> x_limit = 3.41407 (bisection on erfc).

use crate::support::optics;
use predicates::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn scan_json(path: &Path, extra: &[&str]) -> Value {
    let out = optics().arg("scan").arg("--replay").arg(path).arg("--json").args(extra).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("scan --json prints JSON")
}

/// The single interface of a one-port capture.
fn only_interface(v: &Value) -> &Value {
    let ifaces = v["interfaces"].as_array().expect("interfaces is an array");
    assert_eq!(ifaces.len(), 1, "one interface expected: {v}");
    &ifaces[0]
}

fn lane(iface: &Value, n: u64) -> &Value {
    iface["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap_or_else(|| panic!("lane {n} missing"))
}

fn codes(iface: &Value) -> Vec<String> {
    iface["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_string()).collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// The case optics exists for: the JSON contract keys and lane 4's numbers.
#[test]
fn marginal_lane4_json_contract_and_numbers() {
    let v = scan_json(&capture("sr4-200g-lane4-marginal.jsonl"), &[]);
    let i = only_interface(&v);
    // The contract the issue fixes: every key present.
    for key in ["interface", "verdict", "reasons", "pcie", "link", "module", "lanes"] {
        assert!(i.get(key).is_some(), "missing interfaces[].{key}");
    }
    for key in ["degraded", "ceiling_gbps"] {
        assert!(i["pcie"].get(key).is_some(), "missing pcie.{key}");
    }
    for r in i["reasons"].as_array().unwrap() {
        assert!(r["code"].is_string() && r["message"].is_string(), "reason without code/message: {r}");
    }
    for key in ["standard", "vendor_sn", "lanes", "thresholds"] {
        assert!(i["module"].get(key).is_some(), "missing module.{key}");
    }
    let lanes = i["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 4);
    for l in lanes {
        for key in [
            "lane",
            "rank",
            "rx_power_dbm",
            "tx_power_dbm",
            "tx_bias_ma",
            "pre_fec_ber",
            "pre_fec_ber_upper",
            "margin_db",
            "optical_margin_db",
            "flags",
            "advice",
        ] {
            assert!(l.get(key).is_some(), "missing lanes[].{key} in {l}");
        }
    }

    assert_eq!(i["interface"], "ens3np0");
    assert_eq!(i["verdict"], "investigate");
    assert_eq!(i["module"]["standard"], "SFF-8636");
    assert_eq!(i["module"]["vendor_sn"], "MT2233FT01234");
    // Generator page 03h: temperature high alarm 75 C (75 x 256 / 256).
    assert_eq!(f(&i["module"]["thresholds"]["temperature_c"]["high_alarm"]), 75.0);

    let l4 = lane(i, 4);
    assert_eq!(l4["rank"], 1, "the worst lane ranks first");
    let flags: Vec<&str> = l4["flags"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert!(flags.contains(&"fec_hiding_marginal_optics"), "{flags:?}");
    assert!(codes(i).contains(&"fec_hiding_marginal_optics".to_string()));
    // MARGINAL_RATES[3] = 3,533,333 bits/s / 53.125e9 b/s = 6.651e-5 (±5% noise per second,
    // averaged over 60 intervals): within 10%.
    let ber = f(&l4["pre_fec_ber"]);
    assert!((ber / 6.651e-5 - 1.0).abs() < 0.10, "lane 4 BER {ber}");
    assert!(f(&l4["pre_fec_ber_upper"]) >= ber);
    // Q = 6.651e-5 / 0.75 = 8.868e-5 -> x = 3.74926; 10 log10(3.74926 / 3.41407) = 0.4067 dB.
    // BER ±5% moves it to 0.392..0.422 dB, so ±0.03 dB.
    let margin = f(&l4["margin_db"]);
    assert!((margin - 0.4067).abs() < 0.03, "lane 4 margin {margin}");
    // MARGINAL_RX_DBM[3] = -1.6 dBm, jitter ±0.02 dB and 0.1 uW quantisation.
    let rx = f(&l4["rx_power_dbm"]);
    assert!((rx - -1.6).abs() < 0.03, "lane 4 rx {rx}");
    // tx -0.5 dBm, bias 7.5 mA ±0.05 (sr4_200g).
    assert!((f(&l4["tx_power_dbm"]) - -0.5).abs() < 0.03);
    assert!((f(&l4["tx_bias_ma"]) - 7.5).abs() < 0.06);
    assert!(l4["advice"].as_str().unwrap().contains("lane 4"), "{}", l4["advice"]);

    // Lanes 1-2 are fine: 15,000 and 23,333 bits/s -> 2.82e-7 and 4.39e-7,
    // margins 10 log10(4.94719/3.41407) = 1.611 and 10 log10(4.86044/3.41407) = 1.534 dB.
    for (n, ber, margin) in [(1, 2.8235e-7, 1.6109), (2, 4.3921e-7, 1.5340)] {
        let l = lane(i, n);
        assert!((f(&l["pre_fec_ber"]) / ber - 1.0).abs() < 0.10, "lane {n}: {l}");
        assert!((f(&l["margin_db"]) - margin).abs() < 0.03, "lane {n}: {l}");
        assert!(l["flags"].as_array().unwrap().is_empty(), "lane {n} raised a flag: {l}");
    }
}

#[test]
fn marginal_text_names_lane4_and_investigate() {
    let out = optics().arg("scan").arg("--replay").arg(capture("sr4-200g-lane4-marginal.jsonl")).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).to_string();
    assert!(text.contains("INVESTIGATE"), "{text}");
    assert!(text.contains("lane 4"), "{text}");
}

/// Healthy, and the marginal port after cleaning (rates 15,000..25,000 bits/s, light within
/// 0.1 dB): no false alarm.
#[test]
fn healthy_raises_no_false_alarm() {
    for name in ["sr4-200g-healthy.jsonl", "sr4-200g-after-clean.jsonl"] {
        let v = scan_json(&capture(name), &[]);
        let i = only_interface(&v);
        assert_eq!(i["verdict"], "accept", "{name}");
        assert!(i["reasons"].as_array().unwrap().is_empty(), "{name}: {}", i["reasons"]);
        for l in i["lanes"].as_array().unwrap() {
            assert!(l["flags"].as_array().unwrap().is_empty(), "{name}: flag on a healthy lane: {l}");
            // Max rate 25,000 / 53.125e9 = 4.7e-7: every lane well under 1e-6.
            assert!(f(&l["pre_fec_ber"]) < 1e-6, "{name}: {l}");
        }
    }
}

/// Every bundled capture scans, and its JSON names a verdict per interface.
#[test]
fn every_bundled_capture_scans() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "jsonl") {
            let v = scan_json(&path, &[]);
            for i in v["interfaces"].as_array().unwrap() {
                let verdict = i["verdict"].as_str().unwrap();
                assert!(["accept", "investigate", "reject"].contains(&verdict), "{}: {verdict}", path.display());
            }
            assert_eq!(v["source"]["kind"], "replay");
            n += 1;
        }
    }
    // One row per file in captures/README.md's table.
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    assert_eq!(n, readme.lines().filter(|l| l.starts_with("| `") && l.contains(".jsonl`")).count());
}

/// Counters restarting or a new module must never produce a huge bogus delta.
#[test]
fn counter_reset_and_module_swap_give_sane_ber_and_say_why() {
    for (name, words) in [
        ("sr4-200g-counter-reset.jsonl", &["reload"][..]),
        ("sr4-200g-module-swap.jsonl", &["module changed", "MT2233FT01234", "MT2301FT05678"][..]),
    ] {
        let v = scan_json(&capture(name), &[]);
        let i = only_interface(&v);
        // Both end on healthy rates (max 18,000 bits/s -> 3.4e-7); a reset counted as a
        // wrap would be ~2^64 bits, i.e. BER far above 1.
        for l in i["lanes"].as_array().unwrap() {
            let ber = f(&l["pre_fec_ber"]);
            assert!(ber < 1e-5, "{name}: absurd BER {ber} on {l}");
        }
        let events: Vec<&str> = i["events"].as_array().unwrap().iter().map(|e| e.as_str().unwrap()).collect();
        for w in words {
            assert!(events.iter().any(|e| e.contains(w)), "{name}: no event mentions {w:?}: {events:?}");
        }
    }
}

#[test]
fn link_flaps_reject() {
    let v = scan_json(&capture("sr4-200g-link-flaps.jsonl"), &[]);
    let i = only_interface(&v);
    assert_eq!(i["verdict"], "reject");
    let c = codes(i);
    assert!(c.contains(&"link_flaps".to_string()), "{c:?}");
    assert!(c.contains(&"uncorrectable_errors".to_string()), "{c:?}");
    // Generator: down_events += 1 and uncorrectable += 37 at samples 20 and 40 -> 2 and 74.
    assert_eq!(i["link"]["link_down_events"], 2);
    assert_eq!(i["link"]["uncorrectable_blocks"], 74);
}

#[test]
fn pcie_gen4_x4_of_x16_is_degraded() {
    let v = scan_json(&capture("pcie-gen4-x4-of-x16.jsonl"), &[]);
    let i = only_interface(&v);
    assert_eq!(i["pcie"]["degraded"], true);
    // Gen4 16 GT/s x 4 lanes x 128/130 (128b/130b) x 0.92 (Config::default pcie_efficiency)
    // = 64 x 0.984615 x 0.92 = 57.974 Gb/s, under the 200 Gb/s port.
    let ceiling = f(&i["pcie"]["ceiling_gbps"]);
    assert!((ceiling - 57.974).abs() < 0.01, "{ceiling}");
    assert!(codes(i).contains(&"pcie_degraded".to_string()));
    // The optics are the healthy ones: no lane flags.
    for l in i["lanes"].as_array().unwrap() {
        assert!(l["flags"].as_array().unwrap().is_empty(), "{l}");
    }
}

#[test]
fn multihost_groups_netdevs_sharing_a_module() {
    let v = scan_json(&capture("multihost-gb10-cx7.jsonl"), &[]);
    let ifaces = v["interfaces"].as_array().unwrap();
    let names: Vec<&str> = ifaces.iter().map(|i| i["interface"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    // gb10_ports(): serial MT2402VS00017 on p0 of both PCIe domains, MT2402VS00018 on p1.
    let pairs = [("enp1s0f0np0", "enP2p1s0f0np0"), ("enp1s0f1np1", "enP2p1s0f1np1")];
    for i in ifaces {
        let name = i["interface"].as_str().unwrap();
        let (a, b) = pairs.iter().find(|(a, b)| *a == name || *b == name).unwrap_or_else(|| panic!("unexpected {name}"));
        let group: Vec<&str> = i["pcie"]["group"]["interfaces"]
            .as_array()
            .unwrap_or_else(|| panic!("{name}: no pcie.group"))
            .iter()
            .map(|x| x.as_str().unwrap())
            .collect();
        assert!(group.contains(a) && group.contains(b) && group.len() == 2, "{name}: {group:?}");
        // Gen5 32 GT/s x 4 x 128/130 x 0.92 = 115.948 Gb/s per path, two paths 231.897.
        assert!((f(&i["pcie"]["ceiling_gbps"]) - 115.948).abs() < 0.01);
        assert!((f(&i["pcie"]["group"]["group_ceiling_gbps"]) - 231.897).abs() < 0.01);
        assert_eq!(i["pcie"]["degraded"], false);
    }
}

#[test]
fn from_to_select_part_of_a_capture() {
    let path = capture("sr4-200g-healthy.jsonl");
    let whole = scan_json(&path, &[]);
    // 61 samples at ~1 s: 60 s.
    assert!((f(&only_interface(&whole)["link"]["duration_s"]) - 60.0).abs() < 0.05);
    let part = scan_json(&path, &["--from", "10", "--to", "20"]);
    let i = only_interface(&part);
    // Samples at t = 10..20 (±2 ms jitter): 11 samples, 10 s.
    assert!((f(&i["link"]["duration_s"]) - 10.0).abs() < 0.05, "{}", i["link"]);
    assert_eq!(i["link"]["samples"], 11);
    assert_eq!(part["source"]["from"], 10.0);
}

#[test]
fn unknown_interface_is_a_clear_error() {
    optics().args(["scan", "eth9", "--replay"]).arg(capture("sr4-200g-healthy.jsonl")).assert().failure().stderr(
        predicate::str::contains("eth9").and(predicate::str::contains("not in the capture")).and(predicate::str::contains("ens3np0")),
    );
}

#[test]
fn missing_capture_file_fails() {
    optics()
        .args(["scan", "--replay", "no/such/capture.jsonl"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("no/such/capture.jsonl"));
}

/// The first `n` lines of the healthy capture (header, interface record, n-2 samples).
fn healthy_lines(n: usize) -> Vec<String> {
    let text = std::fs::read_to_string(capture("sr4-200g-healthy.jsonl")).unwrap();
    text.lines().take(n).map(str::to_string).collect()
}

#[test]
fn garbage_middle_line_fails_naming_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.jsonl");
    // Lines 1-30 intact, line 31 garbage, then 5 more good lines.
    let mut lines = healthy_lines(30);
    lines.push("this is not json".into());
    let text = std::fs::read_to_string(capture("sr4-200g-healthy.jsonl")).unwrap();
    lines.extend(text.lines().skip(40).take(5).map(str::to_string));
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    optics().arg("scan").arg("--replay").arg(&path).assert().failure().stderr(predicate::str::contains("line 31"));
}

#[test]
fn truncated_last_line_still_scans() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.jsonl");
    // 30 whole lines (header, interface, 28 samples) + the first 300 bytes of line 31.
    let mut text = healthy_lines(30).join("\n") + "\n";
    text.push_str(&healthy_lines(31)[30][..300]);
    std::fs::write(&path, text).unwrap();
    let out = optics().arg("scan").arg("--replay").arg(&path).arg("--json").assert().success();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(stderr.contains("line 31") && stderr.contains("truncated"), "the user is told: {stderr}");
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let i = only_interface(&v);
    assert_eq!(i["link"]["samples"], 28);
    assert_eq!(i["verdict"], "accept");
}

#[test]
fn fail_on_investigate_sets_the_exit_status() {
    optics().args(["scan", "--fail-on", "investigate", "--replay"]).arg(capture("sr4-200g-lane4-marginal.jsonl")).assert().code(3);
    optics().args(["scan", "--fail-on", "investigate", "--replay"]).arg(capture("sr4-200g-healthy.jsonl")).assert().code(0);
    // Investigate is not reject.
    optics().args(["scan", "--fail-on", "reject", "--replay"]).arg(capture("sr4-200g-lane4-marginal.jsonl")).assert().code(0);
    optics().args(["scan", "--fail-on", "reject", "--replay"]).arg(capture("sr4-200g-link-flaps.jsonl")).assert().code(3);
}

/// The example capture from the shared examples, copied into tests/fixtures so tests do not
/// depend on /work/shared: a healthy 100GBASE-SR4 (NRZ, RS(528,514)) with zero corrected bits.
#[test]
fn example_100g_sr4_is_accepted() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_100g_sr4.jsonl");
    let v = scan_json(&path, &[]);
    let i = only_interface(&v);
    assert_eq!(i["verdict"], "accept");
    assert!(i["reasons"].as_array().unwrap().is_empty(), "{}", i["reasons"]);
    assert_eq!(i["link"]["modulation"], "NRZ");
    assert_eq!(i["link"]["fec"], "RS(528,514)");
    // IEEE 802.3 Clause 91: RS(528,514) corrects to ~1e-12 from a pre-FEC BER of 5e-5.
    assert_eq!(f(&i["link"]["fec_limit_ber"]), 5e-5);
    // 100GBASE-SR4: 4 x 25.78125 Gb/s.
    assert!((f(&i["link"]["lane_rate_gbps"]) - 25.78125).abs() < 1e-9);
    for l in i["lanes"].as_array().unwrap() {
        assert!(l["flags"].as_array().unwrap().is_empty(), "{l}");
        // Zero corrected bits in 29 s (30 samples at 1 s): 25.78125e9 x 29 = 7.477e11 bits,
        // so the 95% upper bound is 3 / 7.477e11 = 4.01e-12 (rule of three).
        assert!((f(&l["pre_fec_ber_upper"]) / 4.0125e-12 - 1.0).abs() < 0.01, "{l}");
    }
    // Interface record lane 1 rx word 0x1925 = 6437 x 0.1 uW = 0.6437 mW = -1.913 dBm;
    // samples jitter around it by a few hundredths of a dB.
    let rx1 = f(&lane(i, 1)["rx_power_dbm"]);
    assert!((rx1 - -1.913).abs() < 0.1, "{rx1}");
}

/// `--peer` (the far end's capture) tells fiber loss from a weak far-end transmitter.
#[test]
fn peer_capture_tells_fiber_loss_from_a_weak_far_end_laser() {
    let lane4_advice = |peer: &str| {
        let v = scan_json(&capture("sr4-200g-lane4-marginal.jsonl"), &["--peer", capture(peer).to_str().unwrap()]);
        let lanes = only_interface(&v)["lanes"].as_array().unwrap().clone();
        let l4 = lanes.iter().find(|l| l["lane"] == 4).unwrap().clone();
        l4["advice"].as_str().unwrap().to_string()
    };
    // Far end's lasers all within 0.1 dB (generator: -0.4, -0.5, -0.45, -0.5 dBm): the light
    // was lost in between.
    let a = lane4_advice("sr4-200g-far-end-normal-tx.jsonl");
    assert!(a.contains("far-end transmitter normal") && a.contains("clean the fiber"), "{a}");
    // Far end's lane 4 at -1.85 dBm vs the median of its others, -0.45: 1.4 dB weak.
    let a = lane4_advice("sr4-200g-far-end-weak-tx.jsonl");
    assert!(a.contains("far end's transmitter on lane 4 is weak") && a.contains("1.4 dB"), "{a}");
    assert!(a.contains("swap the far-end module"), "{a}");
}
