//! mlx5's per-lane corrected bits are `rx_err_lane_0_phy` to `rx_err_lane_3_phy` and no
//! others (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c,
//! `pport_phy_statistical_err_lanes_stats_desc`, a fixed table of four). A name past them
//! (`rx_err_lane_99999_phy`: a merged or edited input) is left out and named; it does not
//! cost the port its lanes. The capture is the bundled sr4-200g-lane4-marginal (mlx5-style
//! driver counters) with such names added, as each test says.

use crate::support::{edited_capture, optics};
use serde_json::Value;
use std::path::Path;

fn scan_json(path: &Path) -> Value {
    let o = optics().args(["scan", "--json", "--replay"]).arg(path).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["interfaces"][0].clone()
}

fn notes(i: &Value) -> Vec<String> {
    i["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().split_whitespace().collect::<Vec<_>>().join(" ")).collect()
}

#[test]
fn a_stray_lane_counter_is_named_and_the_four_lanes_kept() {
    // `rx_err_lane_99999_phy` = 5 added to every sample.
    let dir = tempfile::tempdir().unwrap();
    let cap = edited_capture(dir.path(), "sr4-200g-lane4-marginal.jsonl", |_, r| {
        r["driver_stats"]["rx_err_lane_99999_phy"] = 5.into();
    });
    let i = scan_json(&cap);
    // Lane 4 is rx_err_lane_3_phy: 70,000,000 at t = 0, 282,302,572 at t = 60.0011 s:
    // 212,302,572 bits over 60.0011 s x 53.125 Gb/s = 6.6603e-5.
    let lane4 = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 4).unwrap();
    assert_eq!(lane4["corrected_bits"].as_u64(), Some(212_302_572));
    let want = 212_302_572.0 / (53.125e9 * 60.0011);
    let ber = lane4["pre_fec_ber"].as_f64().unwrap();
    assert!((ber - want).abs() < want * 1e-9, "{ber} vs {want}");
    assert_eq!(i["link"]["counter_sources"]["corrected_bits_per_lane"], "driver:rx_err_lane_N_phy");
    let n = notes(&i);
    assert!(
        n.iter().any(|n| n.starts_with("rx_err_lane_99999_phy names no lane of this port (the port has 4 lanes; mlx5 names lanes 0-3")),
        "{n:?}"
    );
    assert!(!n.iter().any(|n| n.contains("counted for the port only")), "{n:?}");
}

#[test]
fn lane_counters_without_lane_0_say_why_the_port_has_port_figures_only() {
    // `rx_err_lane_0_phy` taken out and `rx_err_lane_99999_phy` added in every sample: no
    // lane is known by position, and the note says why.
    let dir = tempfile::tempdir().unwrap();
    let cap = edited_capture(dir.path(), "sr4-200g-lane4-marginal.jsonl", |_, r| {
        let stats = r["driver_stats"].as_object_mut().unwrap();
        stats.remove("rx_err_lane_0_phy");
        stats.insert("rx_err_lane_99999_phy".into(), 5.into());
    });
    let i = scan_json(&cap);
    assert!(i["lanes"].as_array().unwrap().iter().all(|l| l["corrected_bits"].is_null()), "{}", i["lanes"]);
    let n = notes(&i);
    assert!(
        n.iter().any(|n| n
            .starts_with("rx_err_lane_1_phy, rx_err_lane_2_phy and 2 more name no lane counted from lane 0 (the port has 4 lanes;")
            && n.ends_with("no lane can be attributed, so corrected bits are counted for the port only")),
        "{n:?}"
    );
}
