//! Issue 9: faults the verdict missed, through the real binary. Expected figures are worked
//! from the physics (physics.md): 200GBASE-SR4 = 4 x 53.125 Gb/s PAM4, RS(544,514) limit 2.4e-4.

use crate::support;
use crate::support::optics;
#[allow(dead_code)]
use serde_json::Value;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn scan_json(path: &Path, extra: &[&str]) -> (Value, i32) {
    let out = optics().arg("scan").arg("--replay").arg(path).arg("--json").args(extra).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (v, out.status.code().unwrap())
}

fn codes(iface: &Value) -> Vec<&str> {
    iface["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect()
}

fn reason<'a>(iface: &'a Value, code: &str) -> &'a Value {
    iface["reasons"].as_array().unwrap().iter().find(|r| r["code"] == code).unwrap_or_else(|| panic!("no {code}: {iface}"))
}

/// Item 1: the port BER alone, four times the limit, rejects.
#[test]
fn port_ber_past_the_fec_limit_rejects() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("port-only.jsonl");
    std::fs::write(&path, support::trust_captures::port_only_sr4(9.4e-4, 10)).unwrap();
    let (v, code) = scan_json(&path, &["--fail-on", "reject"]);
    let i = &v["interfaces"][0];
    assert_eq!(i["verdict"], "reject", "{i}");
    assert_eq!(code, 3);
    // 9.4e-4 x 212.5e9 bit/s x 10 s corrected over 2.125e12 bits: BER 9.4e-4.
    assert!((i["link"]["pre_fec_ber"].as_f64().unwrap() - 9.4e-4).abs() < 1e-9);
    let r = reason(i, "ber_over_fec_limit");
    assert_eq!(r["severity"], "reject");
    assert!(r["lane"].is_null() && r["message"].as_str().unwrap().contains("port pre-FEC BER 9.40e-4"), "{r}");
    // Past the limit the margin is negative, and the port is judged like a lane.
    assert!(i["link"]["margin_db"].as_f64().unwrap() < 0.0);
    assert!(codes(i).contains(&"low_margin"));
    // Healthy at 2.4e-7 (a thousandth of the limit): margin 10 log10(x(2.4e-7)/x(2.4e-4)) =
    // 10 log10(5.1673/3.41407) = 1.80 dB over the 1.0 dB floor: accepted.
    std::fs::write(&path, support::trust_captures::port_only_sr4(2.4e-7, 10)).unwrap();
    let (v, _) = scan_json(&path, &[]);
    assert_eq!(v["interfaces"][0]["verdict"], "accept", "{}", v["interfaces"][0]["reasons"]);
}

/// Item 1, the same fault on a lane: lane 4 at 1.5e7 corrected bits/s is a BER of
/// 1.5e7 / 53.125e9 = 2.82e-4, past 2.4e-4, while the port (4 lanes) is at 7.1e-5.
#[test]
fn a_lane_past_the_fec_limit_rejects() {
    use support::captures::{cx7_port, simple_capture, sr4_200g};
    let port = cx7_port("ens1f0np0", sr4_200g("MT2240FT00098", [-1.0, -1.1, -1.05, -1.6]), [12_000.0, 15_000.0, 14_000.0, 1.5e7]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lane-over.jsonl");
    std::fs::write(&path, simple_capture(&[port], 61, 11)).unwrap();
    let (v, _) = scan_json(&path, &[]);
    let i = &v["interfaces"][0];
    assert_eq!(i["verdict"], "reject");
    let r = reason(i, "ber_over_fec_limit");
    assert_eq!(r["lane"], 4);
    assert_eq!(i["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == "ber_over_fec_limit").count(), 1, "lane reason only");
    let ber = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 4).unwrap()["pre_fec_ber"].as_f64().unwrap();
    assert!((ber - 2.82e-4).abs() < 0.05e-4, "{ber}");
}

/// Item 3: lane 4 transmits 1.4 dB below its siblings.
#[test]
fn weak_local_transmitter_is_flagged() {
    let (v, code) = scan_json(&capture("sr4-200g-far-end-weak-tx.jsonl"), &["--fail-on", "investigate"]);
    let i = &v["interfaces"][0];
    assert_eq!((i["verdict"].as_str(), code), (Some("investigate"), 3));
    let r = reason(i, "weak_transmitter");
    assert_eq!(r["lane"], 4);
    let lane4 = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 4).unwrap();
    assert!(lane4["flags"].as_array().unwrap().iter().any(|f| f == "weak_transmitter"));
    // A gap alone (no bias rise, no far end to ask) is investigated, not an RMA: the advice
    // asks for corroboration before any swap.
    let advice = lane4["advice"].as_str().unwrap();
    assert!(advice.contains("lane 4 laser") && advice.contains("before any swap") && !advice.contains("replace this module"), "{advice}");
    assert!(r["message"].as_str().unwrap().contains("1.4 dB below its siblings' median"), "{}", r["message"]);
    // With the far end (sr4-200g-lane4-marginal: 0.5 dB less light on lane 4 than on its
    // others, over rx_low_delta_db 0.3): corroborated, replace this module.
    let (v, _) =
        scan_json(&capture("sr4-200g-far-end-weak-tx.jsonl"), &["--peer", capture("sr4-200g-lane4-marginal.jsonl").to_str().unwrap()]);
    let lane4 = v["interfaces"][0]["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 4).unwrap().clone();
    let advice = lane4["advice"].as_str().unwrap();
    assert!(
        advice.contains("lane 4 laser is weak")
            && advice.contains("replace this module")
            && advice.contains("dB less light on lane 4 than on its others"),
        "{advice}"
    );
    // Its siblings at -0.41..-0.49 dBm are not.
    assert_eq!(i["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == "weak_transmitter").count(), 1);
    // A threshold over the 1.4 dB delta turns the rule off.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.json");
    std::fs::write(&cfg, r#"{"tx_low_delta_db": 2.0}"#).unwrap();
    let (v, _) = scan_json(&capture("sr4-200g-far-end-weak-tx.jsonl"), &["--config", cfg.to_str().unwrap()]);
    assert_eq!(v["interfaces"][0]["verdict"], "accept");
}

/// Item 4: one sample is no data, not ACCEPT with zero counts.
#[test]
fn a_window_without_data_is_insufficient() {
    let (v, code) = scan_json(&capture("sr4-200g-lane4-marginal.jsonl"), &["--from", "0", "--to", "0.5", "--fail-on", "investigate"]);
    let i = &v["interfaces"][0];
    assert_eq!((i["verdict"].as_str(), code), (Some("investigate"), 3));
    assert_eq!(reason(i, "insufficient_data")["severity"], "investigate");
    for k in ["corrected_bits", "uncorrectable_blocks", "link_down_events", "pre_fec_ber"] {
        assert!(i["link"][k].is_null(), "link.{k} = {}", i["link"][k]);
    }
    assert!(i["lanes"].as_array().unwrap().iter().all(|l| l["corrected_bits"].is_null()));
    let text = optics()
        .args(["scan", "--replay"])
        .arg(capture("sr4-200g-lane4-marginal.jsonl"))
        .args(["--from", "0", "--to", "0.5"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(!text.contains("ACCEPT") && text.contains("insufficient_data"), "{text}");
    // Shorter than a configured minimum: the 60 s capture against min_window_s 120.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.json");
    std::fs::write(&cfg, r#"{"min_window_s": 120}"#).unwrap();
    let (v, _) = scan_json(&capture("sr4-200g-healthy.jsonl"), &["--config", cfg.to_str().unwrap()]);
    assert_eq!(v["interfaces"][0]["verdict"], "investigate");
    assert!(reason(&v["interfaces"][0], "insufficient_data")["message"].as_str().unwrap().contains("min_window_s"));
}

/// Item 22: out-of-range values and non-objects are refused, naming the key and range.
#[test]
fn config_values_are_range_checked() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.json");
    for (text, needle) in [
        (r#"{"confidence": 1.5}"#, "`confidence` is 1.5, allowed over 0.5 and under 1"),
        (r#"{"pcie_efficiency": 5}"#, "`pcie_efficiency` is 5, allowed over 0, at most 1"),
        (r#"{"outlier_ratio": -1}"#, "`outlier_ratio` is -1"),
        (r#"{"max_uncorrectable_blocks": 1.5}"#, "key `max_uncorrectable_blocks`"),
        ("[0.9, 10, 0.001]", "must be a JSON object"),
    ] {
        std::fs::write(&cfg, text).unwrap();
        let out = optics().args(["scan", "--replay"]).arg(capture("sr4-200g-healthy.jsonl")).arg("--config").arg(&cfg).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{text}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{text}: {err}");
    }
}

fn scan_text(args: &[&std::ffi::OsStr]) -> (String, String, Option<i32>) {
    let out = optics().arg("scan").args(args).output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

/// Item 7: `--peer` pairs explicitly and refuses what cannot be the far end.
#[test]
fn peer_is_paired_explicitly_and_checked() {
    let marginal = capture("sr4-200g-lane4-marginal.jsonl");
    let os = |p: &Path| p.as_os_str().to_owned();
    let run = |peer: &std::ffi::OsStr| scan_text(&["--replay".as_ref(), marginal.as_os_str(), "--peer".as_ref(), peer]);
    // The capture as its own peer, by path and as a copy (same module SN).
    let (_, err, code) = run(marginal.as_os_str());
    assert_eq!(code, Some(1));
    assert!(err.contains("the analysed capture itself"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("copy.jsonl");
    std::fs::copy(&marginal, &copy).unwrap();
    let (_, err, code) = run(copy.as_os_str());
    assert_eq!(code, Some(1));
    assert!(err.contains("same module (SN MT2233FT01234)"), "{err}");
    // An 800G DR8 (8 lanes) is not the far end of a 4-lane SR4.
    let (_, err, code) = run(&os(&capture("dr8-800g-cmis-healthy.jsonl")));
    assert_eq!(code, Some(1));
    assert!(err.contains("has 8 lanes") && err.contains("has 4"), "{err}");
    // Several interfaces: the error names the form to use, and that form is accepted
    // (then refused for its different link mode, CR4 against SR4).
    let (_, err, _) = run(&os(&capture("multihost-gb10-cx7.jsonl")));
    let hint = err.split("name the far end: --peer ").nth(1).unwrap_or_else(|| panic!("{err}")).trim();
    let (_, err, code) = run(hint.as_ref());
    assert_eq!(code, Some(1));
    assert!(err.contains("runs 200000baseCR4/Full") && err.contains("runs 200000baseSR4/Full"), "{err}");
    // A peer with no tx power tells nothing about the far-end transmitter.
    let dac = dir.path().join("dac.jsonl");
    std::fs::write(&dac, support::trust_captures::peer_without_tx_power()).unwrap();
    let (text, err, code) = run(dac.as_os_str());
    assert_eq!(code, Some(0), "{err}");
    assert!(text.contains("far-end tx unknown") && !text.contains("far-end transmitter normal"), "{text}");
    // A weak far end: lane 4 1.4 dB below its siblings (-1.86 against -0.44 dBm).
    let weak = capture("sr4-200g-far-end-weak-tx.jsonl");
    let spec = format!("{}:ens1f0np0", weak.display());
    let (text, _, code) = run(spec.as_ref());
    assert_eq!(code, Some(0));
    assert!(text.contains("the far end's transmitter on lane 4 is weak (1.4 dB below its other lanes)"), "{text}");
}

fn compare_run(args: &[&std::ffi::OsStr]) -> (String, String, Option<i32>) {
    let out = optics().arg("compare").args(args).output().unwrap();
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

/// Item 8: `compare` pairs by name or `--pair`, refuses different lane counts, names a module
/// swap, and `--fail-on` judges the AFTER side (`worse`: any lane significantly worse).
#[test]
fn compare_pairs_by_name_and_gates_on_after() {
    let sr4 = capture("sr4-200g-lane4-marginal.jsonl"); // ens3np0, SN MT2233FT01234
    let dr8 = capture("dr8-800g-cmis-healthy.jsonl"); // ens6np0, 8 lanes
    let clean = capture("sr4-200g-after-clean.jsonl"); // ens3np0
    let o = |p: &PathBuf| p.as_os_str().to_owned();
    // Different names: refused with a hint that works as printed...
    let (_, err, code) = compare_run(&[&o(&sr4), &o(&dr8)]);
    assert_eq!(code, Some(1));
    let hint = err.split("e.g. ").nth(1).unwrap_or_else(|| panic!("{err}")).trim().to_string();
    assert_eq!(hint, "--pair ens3np0=ens6np0");
    let pair_arg = hint.trim_start_matches("--pair ").to_string();
    // ...and then refused for 4 lanes against 8, not "lanes 1-4 improved".
    let (out, err, code) = compare_run(&[&o(&sr4), &o(&dr8), "--pair".as_ref(), pair_arg.as_ref()]);
    assert_eq!(code, Some(1), "{out}");
    assert!(err.contains("has 4 lanes") && err.contains("has 8"), "{err}");
    // A module swap is stated plainly: the weak-tx capture's module is SN MT2240FT00088.
    let other = capture("sr4-200g-far-end-weak-tx.jsonl");
    let (out, err, code) = compare_run(&[&o(&sr4), &o(&other), "--pair".as_ref(), "ens3np0=ens1f0np0".as_ref()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("module SN MT2233FT01234 -> SN MT2240FT00088"), "{out}");
    // --fail-on applies to AFTER: marginal (investigate) -> cleaned (accept) passes...
    let (_, _, code) = compare_run(&[&o(&sr4), &o(&clean), "--fail-on".as_ref(), "investigate".as_ref()]);
    assert_eq!(code, Some(0));
    // ...and the reverse fails, for the verdict and for lanes 3 and 4 being worse.
    for gate in ["investigate", "worse"] {
        let (_, _, code) = compare_run(&[&o(&clean), &o(&sr4), "--fail-on".as_ref(), gate.as_ref()]);
        assert_eq!(code, Some(3), "--fail-on {gate}");
    }
    let (_, _, code) = compare_run(&[&o(&sr4), &o(&clean), "--fail-on".as_ref(), "worse".as_ref()]);
    assert_eq!(code, Some(0), "nothing got worse after the clean");
    // JSON says which module each side had.
    let (out, _, _) = compare_run(&[&o(&sr4), &o(&clean), "--json".as_ref()]);
    let v: Value = serde_json::from_str(&out).unwrap();
    let c = &v["comparisons"][0];
    assert_eq!((c["verdict_before"].as_str(), c["verdict_after"].as_str()), (Some("investigate"), Some("accept")));
    assert_eq!(c["module_changed"], false);
}

/// Smaller: the port BER of a zero-error window reads as its bound, like a lane's, and one
/// sample is "1 sample".
#[test]
fn report_wording() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clean.jsonl");
    std::fs::write(&path, support::trust_captures::port_only_sr4(0.0, 10)).unwrap();
    let out = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Zero errors over 2.125e12 bits: upper bound -ln(0.05) / 2.125e12 = 1.41e-12.
    assert!(text.contains("port pre-FEC BER") && text.contains("<1.41e-12") && !text.contains("0.00e0"), "{text}");
    let out = optics().args(["scan", "--replay"]).arg(capture("sr4-200g-healthy.jsonl")).args(["--to", "0.5"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // One sample counts nothing yet: the counts the window has not measured are left out.
    assert!(text.contains("window   0.0 s, 1 sample\n"), "{text}");
}
