//! Margin trends and link drops traced to a lane through
//! `scan --replay --json` on the bundled captures of tests/it/support/trend_captures.rs. The
//! expected figures are the generator's truth (its constants), worked by hand below.

use crate::support;
#[allow(dead_code)]
use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::trend_captures::*;

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn scan(name: &str, extra: &[&str]) -> Value {
    let out = Command::new(assert_cmd::cargo::cargo_bin!("optics"))
        .arg("scan")
        .arg("--replay")
        .arg(capture(name))
        .arg("--json")
        .args(extra)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    let ifaces = v["interfaces"].as_array().expect("interfaces array");
    assert_eq!(ifaces.len(), 1);
    ifaces[0].clone()
}

fn lane(a: &Value, n: u64) -> &Value {
    a["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap()
}

fn reasons<'a>(a: &'a Value, code: &str) -> Vec<&'a Value> {
    a["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == code).collect()
}

#[test]
fn generator_margins_follow_the_q_model() {
    // x_limit = 3.41407 (physics.md); at 0 dB the BER is the limit itself.
    assert!((x_of_ber(RS544_LIMIT) - 3.41407).abs() < 1e-4);
    assert!((pam4_ber_at_margin(0.0) / RS544_LIMIT - 1.0).abs() < 1e-9);
    // 1.2 dB: x = 3.41407 x 10^0.12 = 3.41407 x 1.318257 = 4.50062; Q(4.5) = 3.3977e-6 and
    // φ(4.5) = 1.5984e-5 give Q(4.50062) = 3.3977e-6 - 0.00062 x 1.5984e-5 = 3.3878e-6;
    // BER = 0.75 x 3.3878e-6 = 2.5408e-6.
    assert!((pam4_ber_at_margin(1.2) / 2.5408e-6 - 1.0).abs() < 1e-3, "{}", pam4_ber_at_margin(1.2));
}

#[test]
fn the_degrading_lane_is_falling_at_the_generators_rate() {
    let a = scan("dr4-400g-lane2-degrading-4h.jsonl", &[]);
    let l2 = lane(&a, DEGRADING_LANE as u64);
    // Truth: -0.1 dB/h, inside the fit's interval, and the point estimate close to it
    // (±0.05 dB wobble averaged over ~1440 intervals moves the slope by < 0.005 dB/h).
    let truth = -DEGRADE_RATE_DB_PER_H;
    let slope = l2["margin_slope_db_per_h"].as_f64().unwrap();
    let ci: Vec<f64> = l2["margin_slope_ci_db_per_h"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap()).collect();
    assert!(ci[0] <= truth && truth <= ci[1], "truth {truth} outside {ci:?}");
    assert!((slope - truth).abs() < 0.005, "{slope}");
    assert!(ci[1] < 0.0);
    // At the end of the run (t = 4 h) the margin is 1.6 - 0.1 x 4 = 1.2 dB: the limit
    // (0 dB) is 1.2 / 0.1 = 12 h away, the 1.0 dB floor 0.2 / 0.1 = 2 h. The fit's last
    // point is the last bucket's mid time (< 1 min before the end): within 0.1 h.
    let to_limit = l2["time_to_fec_limit_s"].as_f64().unwrap();
    let to_floor = l2["time_to_floor_s"].as_f64().unwrap();
    let end_margin = DEGRADE_M0_DB - DEGRADE_RATE_DB_PER_H * DEGRADE_SPAN_S / 3600.0;
    assert!((to_limit / 3600.0 - end_margin / DEGRADE_RATE_DB_PER_H).abs() < 0.1, "{to_limit}");
    assert!((to_floor / 3600.0 - (end_margin - 1.0) / DEGRADE_RATE_DB_PER_H).abs() < 0.1, "{to_floor}");
    // Steady lanes: a slope, but not falling (no times).
    for n in [1u64, 3, 4] {
        let l = lane(&a, n);
        assert!(l["margin_slope_db_per_h"].is_f64(), "lane {n}");
        assert!(l["margin_slope_ci_db_per_h"][1].as_f64().unwrap() >= 0.0, "lane {n} falls: {l}");
        assert!(l["time_to_fec_limit_s"].is_null() && l["time_to_floor_s"].is_null(), "lane {n}");
    }
    let falling = reasons(&a, "margin_falling");
    assert_eq!(falling.len(), 1);
    let r = falling[0];
    assert_eq!(r["lane"], 2);
    assert_eq!(r["severity"], "investigate");
    let msg = r["message"].as_str().unwrap();
    assert!(msg.starts_with("lane 2 loses 0.10 dB/h"), "{msg}");
    assert!(
        msg.contains("reaches the 1.0 dB margin floor in about 2 h") && msg.contains("crosses the RS(544,514) limit in about 12 h"),
        "{msg}"
    );
}

#[test]
fn a_trend_needs_the_configured_span() {
    // trend_window_s 5 h is longer than the 4 h capture: no trend, every key null.
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("t.json");
    std::fs::write(&cfg, r#"{"trend_window_s": 18000}"#).unwrap();
    let a = scan("dr4-400g-lane2-degrading-4h.jsonl", &["--config", cfg.to_str().unwrap()]);
    let l2 = lane(&a, 2);
    for k in ["margin_slope_db_per_h", "margin_slope_ci_db_per_h", "time_to_floor_s", "time_to_fec_limit_s"] {
        assert!(l2[k].is_null(), "{k}: {l2}");
    }
    assert!(reasons(&a, "margin_falling").is_empty());
    // Too short a window (60 s) is refused at the range check.
    std::fs::write(&cfg, r#"{"trend_window_s": 10}"#).unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin!("optics"))
        .args(["scan", "--replay"])
        .arg(capture("dr4-400g-lane2-degrading-4h.jsonl"))
        .args(["--config", cfg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("trend_window_s"));
}

#[test]
fn the_link_drop_is_traced_to_the_lane_whose_ber_rose() {
    let a = scan("sr4-200g-drop-after-lane3-rise.jsonl", &[]);
    let flaps = reasons(&a, "link_flaps");
    assert_eq!(flaps.len(), 1);
    let r = flaps[0];
    assert_eq!(r["lane"], DROP_LANE as u64);
    let msg = r["message"].as_str().unwrap();
    // Lookback 300 s: intervals ending in (600, 900] against those ending by 600. Lane 3
    // gains 40 x 1062.5 b/s there against 1062.5 before (±5% noise averaged over 300 and
    // 600 intervals): a 40x rise.
    let tail = format!("in the 5 min before the drop at t={DROP_T_S} s");
    assert!(msg.contains("lane 3's BER rose ") && msg.ends_with(&tail), "{msg}");
    let rise: f64 = msg.split("rose ").nth(1).and_then(|s| s.split('x').next()).unwrap().parse().unwrap();
    assert!((rise - DROP_RISE).abs() <= 1.0, "{rise}");
    const { assert!(DROP_RISE_FROM_S == DROP_T_S - 300) };
}
