//! A link that came back worse after a flap (`degraded_after_flap`, docs/config.md) on the
//! bundled captures of tests/it/support/flap_captures.rs: through `scan --replay --json` and
//! text, and through the window `serve` judges (the engine's judged window, the flap gone
//! from the judgement window but still in the trend series).

use crate::support;
use optics::analysis::{analyze, Config, ReasonCode, Verdict};
use optics::sample::engine::{Engine, EngineConfig};
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::flap_captures::*;

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn scan(name: &str) -> Value {
    let out = support::optics().arg("scan").arg("--replay").arg(capture(name)).arg("--json").output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["interfaces"][0].clone()
}

fn codes(a: &Value, code: &str) -> Vec<Value> {
    a["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == code).cloned().collect()
}

/// Lane figures on each side of the drop, worked from the generator: 1,800 one-second
/// intervals in at most 512 buckets are 4 intervals a bucket (the series halves at 512 and
/// 1,024 intervals; 1,800 / 4 = 450). The drop is counted by the sample at t = 600 s: the
/// interval (599, 600], in the bucket (596, 600], left out. Before: (0, 596], 596 s; after:
/// (600, 1800], 1,200 s. Base BER 1,062.5 / 53.125e9 = 2e-8; lane 2 after it 30x = 6e-7.
/// The ±5% uniform noise averages to under 0.5% over 596 intervals.
#[test]
fn a_lane_thirty_times_worse_after_the_flap_is_degraded_after_flap() {
    let a = scan("sr4-200g-worse-after-flap.jsonl");
    let flaps = a["after_flap"].as_array().unwrap();
    assert_eq!(flaps.len(), 1, "{flaps:?}");
    let f = &flaps[0];
    assert_eq!(f["drop_t_s"], FLAP_T_S as f64);
    assert_eq!((f["before_s"].as_f64(), f["after_s"].as_f64()), (Some(596.0), Some(1200.0)));
    let base_ber = FLAP_BASE_BITS_PER_S / 53.125e9;
    for l in f["lanes"].as_array().unwrap() {
        let n = l["lane"].as_u64().unwrap() as usize;
        let before = l["pre_fec_ber_before"].as_f64().unwrap();
        let after = l["pre_fec_ber_after"].as_f64().unwrap();
        assert!((before / base_ber - 1.0).abs() < 0.01, "lane {n}: {before}");
        let want = if n == FLAP_LANE { FLAP_RISE } else { 1.0 };
        assert!((after / base_ber / want - 1.0).abs() < 0.01, "lane {n}: {after}");
        assert!((l["rise"].as_f64().unwrap() / want - 1.0).abs() < 0.02, "lane {n}: {l}");
        assert_eq!(l["degraded"], n == FLAP_LANE, "lane {n}");
    }
    let r = codes(&a, "degraded_after_flap");
    assert_eq!(r.len(), 1, "{r:?}");
    assert_eq!((r[0]["lane"].as_u64(), r[0]["severity"].as_str()), (Some(FLAP_LANE as u64), Some("investigate")));
    let msg = r[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("lane 2: pre-FEC BER 6.0e-7 since the link came back from the drop at t=600 s, 30x the 2.0e-8 before it"),
        "{msg}"
    );
    // The flap itself is in the window: link_flaps rejects as it always did.
    assert_eq!(codes(&a, "link_flaps").len(), 1);
    assert_eq!(a["verdict"], "reject");
    let lane2 = a["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 2).unwrap();
    assert!(lane2["flags"].as_array().unwrap().iter().any(|f| f == "degraded_after_flap"), "{lane2}");
    assert!(lane2["advice"].as_str().unwrap().contains("bounce the link once more"), "{lane2}");

    let text = support::optics().arg("scan").arg("--replay").arg(capture("sr4-200g-worse-after-flap.jsonl")).output().unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("degraded_after_flap") && text.contains("t=600 s"), "{text}");
}

#[test]
fn a_flap_that_leaves_the_ber_unchanged_is_not() {
    let a = scan("sr4-200g-unchanged-after-flap.jsonl");
    assert!(codes(&a, "degraded_after_flap").is_empty(), "{}", a["reasons"]);
    let f = &a["after_flap"][0];
    assert!(f["lanes"].as_array().unwrap().iter().all(|l| l["degraded"] == false && (l["rise"].as_f64().unwrap() - 1.0).abs() < 0.02));
    assert_eq!(codes(&a, "link_flaps").len(), 1);
}

/// What `serve` judges at the end of the replay: the last 900 s (judge_window_s) hold no
/// drop, so `link_flaps` is gone, while the series of the trend window (6 h) still holds
/// the drop at t = 600 s and both sides of it: `degraded_after_flap`, investigate. Lane 2
/// at 30x its siblings in the judgement window is also their outlier
/// (`fec_hiding_marginal_optics`, `outlier_ratio` 10); only the flap's reason says when it
/// began and that the drop did it.
#[test]
fn serve_keeps_it_after_the_flap_leaves_the_judgement_window() {
    let cfg = Config::default();
    let judged = |name: &str| {
        let cap = optics::capture::read_capture(capture(name)).unwrap();
        let mut e = Engine::new(EngineConfig {
            rolling_s: vec![cfg.judge_window_s],
            series_horizon_s: Some(cfg.trend_fit_window_s),
            ..EngineConfig::default()
        });
        for r in &cap.records {
            e.push(r);
        }
        analyze(&e.judged_windows(cfg.judge_window_s, cfg.trend_fit_window_s), &cfg, &[]).remove(0)
    };
    let a = judged("sr4-200g-worse-after-flap.jsonl");
    let got: Vec<(ReasonCode, Option<u8>)> = a.reasons.iter().map(|r| (r.code, r.lane)).collect();
    assert_eq!(got, [(ReasonCode::FecHidingMarginalOptics, Some(2)), (ReasonCode::DegradedAfterFlap, Some(2))]);
    assert_eq!(a.verdict, Verdict::Investigate);
    let a = judged("sr4-200g-unchanged-after-flap.jsonl");
    assert!(a.reasons.is_empty(), "{:?}", a.reasons);
    assert_eq!(a.verdict, Verdict::Accept);
}
