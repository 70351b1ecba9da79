//! `mlxlink --amber_collect` CSV (tests/fixtures/mlxlink/README.md): each row is a run, so
//! two rows are two snapshots spaced by their own "time since last clear", and the per-lane
//! BER follows from the raw error counts and the lane rate, worked out by hand here.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

const F: &str = "tests/fixtures/mlxlink/amber_collect_100g_two_runs.csv";

#[test]
fn two_runs_of_an_amber_csv_give_each_lanes_ber() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let o = optics().arg("import").arg(F).args(["--interface", "ens1f0np0", "-o"]).arg(&cap).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("2 snapshot(s)"), "{err}");
    assert!(err.contains("blame Unknown"), "the link-down columns are said: {err}");
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = &v["interfaces"][0];
    // 20.0 - 10.0 min = 600 s; 100GBASE-SR4 over the 4 lanes amBER printed (lanes 5-8 N/A):
    // 25.78125 Gb/s each, 1.546875e13 bits per lane. Lane deltas 309375, 618750, 309375,
    // 15468750 -> BER 2e-8, 4e-8, 2e-8, 1e-6.
    assert_eq!(a["link"]["duration_s"], 600.0);
    assert_eq!(a["link"]["lane_rate_gbps"], 25.78125);
    let lane = |n: u64| a["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap().clone();
    for (n, ber) in [(1, 2e-8), (2, 4e-8), (3, 2e-8), (4, 1e-6)] {
        let got = lane(n)["pre_fec_ber"].as_f64().unwrap();
        assert!((got - ber).abs() < ber * 1e-9, "lane {n}: {got}");
    }
    assert_eq!(a["lanes"][0]["lane"], 4, "the weakest lane first");
}

#[test]
fn a_cut_amber_row_is_refused_with_the_row_named() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new(F)).unwrap();
    let f = dir.path().join("cut.csv");
    // The second run cut in the middle: fewer values than field names.
    std::fs::write(&f, &text[..text.len() - 200]).unwrap();
    let o = optics().arg("import").arg(&f).arg("-o").arg(dir.path().join("c.jsonl")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("row 2") && err.contains("cut"), "{err}");
}
