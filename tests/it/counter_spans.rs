//! Counters read over part of a window only: a figure first seen partway (a driver that
//! starts exposing a counter after a firmware reset, a counter that appears after link-up,
//! an import where one snapshot lacks it) has its increase and rates over its own span,
//! which the JSON and the text say; one read at a single sample has no increase (null,
//! not 0). The captures are bundled ones (captures/README.md) with counters taken out of
//! some samples, as each test says.

use crate::support::{edited_capture as edited, optics};
use serde_json::Value;
use std::path::Path;

fn scan(path: &Path, json: bool) -> String {
    let mut cmd = optics();
    cmd.arg("scan").arg("--replay").arg(path);
    if json {
        cmd.arg("--json");
    }
    let o = cmd.output().unwrap();
    String::from_utf8(o.stdout).unwrap()
}

fn only_interface(text: &str) -> Value {
    let v: Value = serde_json::from_str(text).unwrap();
    v["interfaces"][0].clone()
}

fn lane(iface: &Value, n: u64) -> &Value {
    iface["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap()
}

#[test]
fn a_lane_counter_first_seen_partway_has_its_ber_over_its_own_span() {
    // sr4-200g-lane4-marginal with mlx5's per-lane counters (`rx_err_lane_<n>_phy`) taken
    // out of its first 30 samples (t = 0 .. 28.9995 s), as a driver that starts exposing
    // them after a firmware reset: they are read from sample 31 (t = 29.9991 s) to the last
    // (t = 60.0011 s), 31 samples, 30.002 s; the port totals keep the whole 60 s.
    let dir = tempfile::tempdir().unwrap();
    let cap = edited(dir.path(), "sr4-200g-lane4-marginal.jsonl", |k, r| {
        if k < 30 {
            r["driver_stats"].as_object_mut().unwrap().retain(|name, _| !name.starts_with("rx_err_lane_"));
        }
    });
    let i = only_interface(&scan(&cap, true));
    let spans = i["link"]["counter_spans"].as_array().unwrap();
    assert_eq!(spans.len(), 1, "{spans:?}");
    let s = &spans[0];
    assert_eq!(s["figure"], "corrected_bits_per_lane");
    assert_eq!(s["origin"], "driver:rx_err_lane_N_phy");
    assert_eq!((s["from_t"].as_f64(), s["to_t"].as_f64(), s["samples"].as_u64()), (Some(29.9991), Some(60.0011), Some(31)));
    assert_eq!(i["link"]["duration_s"].as_f64(), Some(60.0011), "the window is still the whole run");
    // Lane 4 (rx_err_lane_3_phy): 175,630,487 at t = 29.9991 s, 282,302,572 at 60.0011 s:
    // 106,672,085 corrected bits over 30.002 s x 53.125 Gb/s = 6.6926e-5 (over the window's
    // 60 s it would read half that, 3.35e-5). Lane 3 (rx_err_lane_2_phy): 24,086,645 ->
    // 38,980,321, 14,893,676 bits: 9.3440e-6.
    let bits_on_wire = 53.125e9 * (60.0011 - 29.9991);
    for (n, bits) in [(4, 106_672_085u64), (3, 14_893_676)] {
        let l = lane(&i, n);
        assert_eq!(l["corrected_bits"].as_u64(), Some(bits), "lane {n}");
        let ber = l["pre_fec_ber"].as_f64().unwrap();
        let want = bits as f64 / bits_on_wire;
        assert!((ber - want).abs() < want * 1e-9, "lane {n}: {ber} vs {want}");
    }
    // The whole-window capture's verdict is kept: lanes 3 and 4 under the 1 dB floor.
    for n in [3, 4] {
        assert!(lane(&i, n)["flags"].as_array().unwrap().iter().any(|f| f == "low_margin"), "lane {n}: {}", lane(&i, n));
    }
    // The text says the span where it says the window's.
    let text = scan(&cap, false);
    let window: String = text.lines().skip_while(|l| !l.trim_start().starts_with("window")).take(3).collect::<Vec<_>>().join(" ");
    let window = window.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        window.contains("60.0 s, 61 samples")
            && window.contains("corrected_bits_per_lane (driver:rx_err_lane_N_phy) over its own 30.0 s (t=30.0-60.0 s, 31 samples)"),
        "{text}"
    );
}

#[test]
fn a_counter_read_at_one_sample_only_has_no_increase() {
    // sr4-200g-link-flaps, whose netlink FEC counts 74 uncorrectable blocks over its 60 s,
    // with the uncorrectable count taken out of every sample but the last (t = 60.0014 s; an
    // import where the earlier snapshot lacks it): read once, it has no increase, not 0 and
    // not 74.
    let dir = tempfile::tempdir().unwrap();
    let cap = edited(dir.path(), "sr4-200g-link-flaps.jsonl", |k, r| {
        if k < 60 {
            r["fec"]["uncorrectable_blocks"] = Value::Array(vec![]);
        }
    });
    let i = only_interface(&scan(&cap, true));
    assert!(i["link"]["uncorrectable_blocks"].is_null(), "{}", i["link"]);
    let spans = i["link"]["counter_spans"].as_array().unwrap();
    let s = spans.iter().find(|s| s["figure"] == "uncorrectable_blocks").unwrap();
    assert_eq!((s["from_t"].as_f64(), s["to_t"].as_f64(), s["samples"].as_u64()), (Some(60.0014), Some(60.0014), Some(1)));
    let reasons = i["reasons"].as_array().unwrap();
    assert!(!reasons.iter().any(|r| r["message"].as_str().unwrap().contains("uncorrectable FEC block")), "{reasons:?}");
    let text = scan(&cap, false).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains("window 60.0 s, 61 samples; link-down events 2, port pre-FEC BER 1.92e-5, uncorrectable_blocks (netlink) read at t=60.0 s only: no increase"), "{text}");
}
