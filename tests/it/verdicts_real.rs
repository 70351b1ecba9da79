//! Verdicts that hold on real hardware, through the real binary: real tool outputs
//! (tests/fixtures/verdicts/README.md says where each came from) and byte-built images
//! from the specs. Expected figures are worked by hand in the comments.

use crate::support::optics;
use crate::support::vdm_captures::f16;
use serde_json::Value;
use std::path::{Path, PathBuf};

const F: &str = "tests/fixtures/verdicts";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(F).join(name)
}

fn import(args: &[&str], out: &Path) -> std::process::Output {
    optics().arg("import").args(args).arg("-o").arg(out).output().unwrap()
}

fn scan_json(capture: &Path) -> Value {
    let o = optics().args(["scan", "--json", "--replay"]).arg(capture).output().unwrap();
    assert!(o.status.code().is_some_and(|c| c == 0 || c == 3), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice::<Value>(&o.stdout).unwrap()["interfaces"][0].clone()
}

/// Imports `files` (one input argument each, plus `extra`) and scans the capture.
fn imported(files: &[&str], extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let mut args: Vec<String> = files.iter().map(|f| fixture(f).display().to_string()).collect();
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = import(&args, &cap);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    scan_json(&cap)
}

fn reasons<'a>(i: &'a Value, code: &str) -> Vec<&'a Value> {
    i["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == code).collect()
}

fn notes(i: &Value) -> Vec<String> {
    i["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

#[test]
fn a_healthy_dr8_whose_lasers_spread_is_not_a_weak_transmitter() {
    // 800G-DR8 tx 2.1, 1.3, 3.0, 2.4, 1.8, 0.7, 2.6, 1.5 dBm (IEEE 802.3 Clause 124 allows
    // -2.9 to 4.0 dBm per lane): lane 6 is 1.4 dB under its siblings' median 2.1, inside the
    // 2.24 dB their spread allows for 8 lanes (robust sd 0.741 dB x z(8) 3.02), and 7.6 dB
    // over the module's tx low alarm -6.9 dBm.
    let i = imported(&["mlxlink_800g_dr8_healthy_tx_spread.txt"], &[]);
    assert!(reasons(&i, "weak_transmitter").is_empty(), "{}", i["reasons"]);
    assert_eq!(i["verdict"], "accept", "{}", i["reasons"]);
    // mlxlink's "Effective Physical Errors: 0" over the 10.0 min since the clear rules loss out.
    let n = notes(&i);
    assert!(
        n.iter().any(|n| n == "uncorrectable FEC blocks are not counted, but driver:mlxlink_effective_physical_errors counted 0 over 600 s: no frame was lost"),
        "{n:?}"
    );
    assert!(!n.iter().any(|n| n.contains("cannot be ruled out")), "{n:?}");
}

#[test]
fn thresholds_printed_by_mlxlink_are_judged_as_decoded_flags_are() {
    // Lane 6 tx -7.5 dBm under the printed tx alarm range [-6.9..6]: 0.60 dB below the low
    // alarm; lane 3 rx -9.9 dBm under [-8.9..5]: 1.00 dB below. As a decoded module's
    // tx_power_low_alarm / rx_power_low_alarm flags would be: dom_alarm, reject.
    let i = imported(&["mlxlink_800g_dr8_tx6_rx3_under_alarm.txt"], &[]);
    assert_eq!(i["verdict"], "reject");
    let alarms: Vec<(u64, &str)> =
        reasons(&i, "dom_alarm").iter().map(|r| (r["lane"].as_u64().unwrap(), r["message"].as_str().unwrap())).collect();
    assert!(alarms.contains(&(6, "lane 6: tx -7.50 dBm is 0.60 dB below the module's tx power low alarm -6.90 dBm")), "{alarms:?}");
    assert!(alarms.contains(&(3, "lane 3: rx -9.90 dBm is 1.00 dB below the module's rx power low alarm -8.90 dBm")), "{alarms:?}");
    // Not a mere low_margin "-1.00 dB over" the threshold.
    assert!(reasons(&i, "low_margin").iter().all(|r| r["lane"] != 3), "{}", i["reasons"]);
    assert!(!i["reasons"].to_string().contains("dB over"), "{}", i["reasons"]);
    // Every lane a reason names has advice.
    for r in i["reasons"].as_array().unwrap().iter().filter(|r| r["severity"] != "info") {
        if let Some(n) = r["lane"].as_u64() {
            let l = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap();
            assert!(l["advice"].is_string(), "lane {n}: {r}");
        }
    }
}

#[test]
fn crc_and_symbol_error_counters_are_heard() {
    // A real ConnectX-6 Dx 100G LR4 `ethtool -S | grep err` (README): 13147323
    // rx_crc_errors_phy, 13115284 rx_symbol_err_phy. One snapshot: the loss happened at an
    // unknown time since the counters started, so investigate, with the counts.
    let i = imported(&["mlx5_cx6dx_100g_lr4_crc_errors.txt"], &[]);
    let r = reasons(&i, "uncorrectable_errors");
    assert_eq!(r.len(), 1, "{}", i["reasons"]);
    assert_eq!(r[0]["severity"], "investigate");
    let m = r[0]["message"].as_str().unwrap();
    assert!(
        m.starts_with("13147323 frames with a bad FCS (CRC) (driver:rx_crc_errors_phy) and 13115284 frames with symbol errors (driver:rx_symbol_err_phy) since the counters last started"),
        "{m}"
    );
    assert!(!notes(&i).iter().any(|n| n.contains("cannot be ruled out")), "{:?}", notes(&i));
    // Four lanes of 13115284 each: 25 % apiece, counts shown, not n/a.
    for l in i["lanes"].as_array().unwrap() {
        assert_eq!(l["corrected_bits_since_start"], 13_115_284u64, "{l}");
        assert!((l["corrected_bits_share_pct"].as_f64().unwrap() - 25.0).abs() < 1e-9, "{l}");
    }
    // The same counts over a stated hour: frames lost in the window, reject.
    let i = imported(&["mlx5_cx6dx_100g_lr4_crc_errors.txt"], &["--window-s", "3600"]);
    let r = reasons(&i, "uncorrectable_errors");
    assert_eq!((r[0]["severity"].as_str(), i["verdict"].as_str()), (Some("reject"), Some("reject")));
    assert!(r[0]["message"].as_str().unwrap().ends_with("in 3600 s: frames were lost"), "{}", r[0]);
}

#[test]
fn effective_physical_errors_zero_rules_frame_loss_out() {
    // A real ConnectX-4 100G `mlxlink -c` (README): Effective Physical Errors 0 over
    // 1715.4 min = 102924 s since the clear.
    let i = imported(&["mlxlink_cx4_100g_effective_errors_zero.txt"], &[]);
    let n = notes(&i);
    assert!(
        n.iter().any(|n| n == "uncorrectable FEC blocks are not counted, but driver:mlxlink_effective_physical_errors counted 0 over 102924 s: no frame was lost"),
        "{n:?}"
    );
    assert!(!n.iter().any(|n| n.contains("cannot be ruled out")), "{n:?}");
    assert!(reasons(&i, "uncorrectable_errors").is_empty(), "{}", i["reasons"]);
}

#[test]
fn counters_of_lanes_the_link_does_not_use_are_not_siblings() {
    // mlx5 100G over 2 x 50G PAM4 lanes (Speed 100000, Lanes 2) with four rx_err_lane_N_phy:
    // 5000, 120, 0, 0. Lanes 3-4 are unused. Of 5120 bits: lane 1 97.66 %, lane 2 2.34 %;
    // lane 1 over its one sibling: 5000 / 120 = 42x.
    let i = imported(&["mlx5_100g_cr2_two_lanes"], &[]);
    let lanes = i["lanes"].as_array().unwrap();
    assert_eq!(lanes.iter().map(|l| l["lane"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2], "{lanes:?}");
    assert_eq!((lanes[0]["rank"].as_u64(), lanes[0]["corrected_bits_since_start"].as_u64()), (Some(1), Some(5000)));
    assert!((lanes[0]["corrected_bits_share_pct"].as_f64().unwrap() - 5000.0 * 100.0 / 5120.0).abs() < 1e-9);
    let n = notes(&i);
    assert!(
        n.iter()
            .any(|n| n.starts_with("lanes 3-4: driver:rx_err_lane_N_phy counts them but the link uses 2 lanes")
                && n.ends_with("(they read 0)")),
        "{n:?}"
    );
    assert!(
        n.iter()
            .any(|n| n.contains("lane 1 carries 97.7 % of the 5120 corrected bits (lane 2 2.34 %); lane 1 has 42x its siblings' median")),
        "{n:?}"
    );
    assert!(!n.iter().any(|n| n.contains("stands alone") || n.contains("counted for the port only")), "{n:?}");
    // The text table shows the counts and shares, not n/a.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    assert!(import(&[fixture("mlx5_100g_cr2_two_lanes").to_str().unwrap()], &cap).status.success());
    let o = optics().args(["scan", "--all", "--replay"]).arg(&cap).env("COLUMNS", "120").output().unwrap();
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("share %") && text.contains("5000") && text.contains("97.7"), "{text}");
}

#[test]
fn two_ports_of_one_adapter_are_never_merged() {
    // p0 and p1 of one adapter, mlxlink outputs that name no interface, module SNs
    // AO25010101 and AO25010102: refused, not one "unnamed" port with a BER across both.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let (p0, p1) = (fixture("mlxlink_800g_dr8_p0.txt"), fixture("mlxlink_800g_dr8_p1.txt"));
    let o = import(&[p0.to_str().unwrap(), p1.to_str().unwrap()], &cap);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("(module SN AO25010101)") && err.contains("(module SN AO25010102)") && err.contains("two ports"), "{err}");
    // compare reads them directly: refused the same way.
    let o = optics().arg("compare").arg(&p0).arg(&p1).output().unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("hold different modules"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn a_vdm_lane_far_above_its_vdm_siblings_is_judged_as_a_lane() {
    // The bundled 800G-DR8 VDM capture with lane 7's VDM pre-FEC BER at 5.0e-6 instead of
    // 2.0e-5: 50x its VDM siblings' median (lanes 5, 6, 8: 1.0e-7, 0.95e-7, 1.05e-7) with a
    // margin over the 1 dB floor (PAM4 at 5.0e-6: Q 4.36 vs 3.41 at 2.4e-4, about 1.06 dB).
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/dr8-800g-vdm-lane7-weak.jsonl")).unwrap();
    let (from, to) = (format!("{:04x}", f16(2.0e-5)), format!("{:04x}", f16(5.0e-6)));
    let mut out = String::new();
    for line in text.lines() {
        let mut v: Value = serde_json::from_str(line).unwrap();
        if let Some(pages) = v["module"]["pages"].as_array_mut() {
            for p in pages.iter_mut().filter(|p| p["page"] == 0x24) {
                let d = p["data"].as_str().unwrap();
                // Word-aligned: the sample words of page 24h are 2 bytes each from offset 128.
                let words: Vec<String> = d
                    .as_bytes()
                    .chunks(4)
                    .map(|c| std::str::from_utf8(c).unwrap())
                    .map(|w| if w == from { to.clone() } else { w.to_string() })
                    .collect();
                p["data"] = Value::String(words.concat());
            }
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    std::fs::write(&cap, out).unwrap();
    let i = scan_json(&cap);
    let l7 = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 7).unwrap().clone();
    assert_eq!(l7["ber_source"], "vdm");
    assert!((l7["pre_fec_ber"].as_f64().unwrap() - 5.0e-6).abs() < 1e-9, "{l7}");
    assert!(l7["margin_db"].as_f64().unwrap() > 1.0, "{l7}");
    assert!(l7["flags"].as_array().unwrap().iter().any(|f| f == "fec_hiding_marginal_optics"), "{l7}");
    let hiding = reasons(&i, "fec_hiding_marginal_optics");
    assert!(hiding.iter().any(|r| r["lane"] == 7 && r["message"].as_str().unwrap().contains("(50x its siblings' median)")), "{hiding:?}");
    // The 5-8 group's reason does not repeat the lane's; no note says "no per-lane BER".
    assert!(hiding.iter().all(|r| !r["lane"].is_null()), "{hiding:?}");
    assert!(!notes(&i).iter().any(|n| n.contains("no per-lane BER")), "{:?}", notes(&i));
}

#[test]
fn every_verdict_but_accept_comes_with_advice_never_repeated() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures");
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let o = optics().args(["scan", "--json", "--replay"]).arg(&p).output().unwrap();
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        for i in v["interfaces"].as_array().unwrap() {
            let mut advice: Vec<String> =
                i["lanes"].as_array().unwrap().iter().filter_map(|l| l["advice"].as_str().map(String::from)).collect();
            advice.extend(i["pcie"]["advice"].as_str().map(String::from));
            advice.extend(i["advice"].as_array().into_iter().flatten().filter_map(|a| a.as_str().map(String::from)));
            if i["verdict"] != "accept" {
                seen += 1;
                assert!(!advice.is_empty(), "{}: {}: no advice", p.display(), i["interface"]);
            }
            for r in i["reasons"].as_array().unwrap() {
                let m = r["message"].as_str().unwrap();
                assert!(advice.iter().all(|a| !m.contains(a.as_str())), "{}: a reason repeats its advice: {m}", p.display());
            }
            // A lane a reason names has advice of its own (a link drop traced to lane 3 too).
            for r in i["reasons"].as_array().unwrap().iter().filter(|r| r["severity"] != "info") {
                if let Some(n) = r["lane"].as_u64() {
                    let l = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap();
                    assert!(l["advice"].is_string(), "{}: lane {n} ({}) has no advice", p.display(), r["code"]);
                }
            }
        }
    }
    assert!(seen > 5, "{seen}");
}

#[test]
fn a_lone_bnxt_snapshot_uses_rx_bits_as_the_ber_denominator() {
    // The real bnxt_en `ethtool -S` of tests/fixtures/real-dumps/ctr03: rx_corrected_bits 0,
    // rx_bits 1722813173120, both since the counters started: the port BER needs no time
    // base. Zero errors: the 95 % one-sided upper bound is -ln(0.05) / bits = 2.9957 /
    // 1.7228e12 = 1.739e-12.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let dump = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps/ctr03_bnxt_en_ethtool_S_10g_sfp_port_stats.txt");
    let o = import(&[dump.to_str().unwrap()], &cap);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let i = scan_json(&cap);
    assert_eq!(i["link"]["ber_denominator"], "rx_bits");
    let upper = i["link"]["pre_fec_ber_upper"].as_f64().unwrap();
    assert!((upper / (2.995_732_3 / 1_722_813_173_120.0) - 1.0).abs() < 1e-6, "{upper}");
    assert!(notes(&i).iter().any(|n| n.contains("over driver:rx_bits's 1722813173120 received bits")), "{:?}", notes(&i));
    assert!(reasons(&i, "insufficient_data").is_empty(), "{}", i["reasons"]);
}
