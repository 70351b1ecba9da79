//! Both ends of one link (`scan --peer`): per lane, link loss = far-end Tx dBm - near-end
//! Rx dBm against the PMD's channel insertion loss budget, and advice naming the end and
//! the part. 200GBASE-SR4 (the generator's link mode `200000baseSR4/Full`): budget 1.9 dB
//! (IEEE 802.3 Clause 138 link power budget, OM4 100 m). Monitors jitter by +-0.02 dB per
//! sample in the generator, so figures are checked to 0.1 dB.

use crate::support::captures::*;
use crate::support::optics;
use serde_json::Value;
use std::path::Path;

/// Corrected bits per second per lane: lane 4 far over its siblings (BER 6.65e-5 at 53.125 Gb/s).
const LANE4_ERRORS: [f64; 4] = [15_000.0, 23_333.0, 20_000.0, 3_533_333.0];
const FAR_TX_NORMAL: [f64; 4] = [-0.4, -0.5, -0.45, -0.5];

fn write(dir: &Path, name: &str, text: String) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn near(dir: &Path, rx_dbm: [f64; 4]) -> std::path::PathBuf {
    write(dir, "near.jsonl", simple_capture(&[cx7_port("ens3np0", sr4_200g("MT2233FT01234", rx_dbm), LANE4_ERRORS)], 61, 21))
}

fn far(dir: &Path, tx_dbm: [f64; 4]) -> std::path::PathBuf {
    let mut m = sr4_200g("MT2240FT00088", [-1.0, -1.1, -1.05, -1.1]);
    m.tx_dbm = tx_dbm;
    write(dir, "far.jsonl", simple_capture(&[cx7_port("Ethernet48", m, [12_000.0, 15_000.0, 14_000.0, 18_000.0])], 61, 22))
}

fn lanes(near: &Path, extra: &[&str]) -> Vec<Value> {
    let out = optics().arg("scan").arg("--replay").arg(near).arg("--json").args(extra).output().unwrap();
    assert!(out.status.success() || out.status.code() == Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut l = v["interfaces"][0]["lanes"].as_array().unwrap().clone();
    l.sort_by_key(|l| l["lane"].as_u64());
    l
}

fn loss(l: &Value) -> f64 {
    l["link_loss_db"].as_f64().unwrap_or_else(|| panic!("no link_loss_db: {l}"))
}

fn advice(l: &Value) -> String {
    l["advice"].as_str().unwrap_or_else(|| panic!("no advice: {l}")).to_string()
}

#[test]
fn far_end_transmitter_weak_on_one_lane() {
    let dir = tempfile::tempdir().unwrap();
    // Far lane 4 at -1.85 dBm, 1.4 dB under its siblings' median (-0.45); our lane 4
    // receives it 0.6 dB lower, -2.45: the loss is 0.6 dB on every lane, within budget.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -2.45]);
    let f = far(dir.path(), [-0.4, -0.5, -0.45, -1.85]);
    let l = lanes(&n, &["--peer", f.to_str().unwrap()]);
    for (i, want) in [0.6, 0.6, 0.6, 0.6].iter().enumerate() {
        assert!((loss(&l[i]) - want).abs() < 0.1, "lane {}: {}", i + 1, l[i]);
        assert_eq!(l[i]["link_loss_budget_db"].as_f64(), Some(1.9));
        assert_eq!(l[i]["link_loss_pmd"], "200GBASE-SR4");
    }
    let a = advice(&l[3]);
    assert!(a.contains("far end's transmitter on lane 4 is weak") && a.contains("1.4 dB below"), "{a}");
    assert!(a.contains("within the 200GBASE-SR4 budget of 1.9 dB") && a.contains("swap the far-end module"), "{a}");
}

#[test]
fn fiber_loss_on_one_lane_is_over_the_pmd_budget() {
    let dir = tempfile::tempdir().unwrap();
    // Far lasers normal; our lane 4 gets -3.0 dBm: -0.5 - (-3.0) = 2.5 dB lost on lane 4,
    // 0.6 dB over the 1.9 dB budget; lanes 1-3 lose 0.6 dB.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -3.0]);
    let f = far(dir.path(), FAR_TX_NORMAL);
    let l = lanes(&n, &["--peer", f.to_str().unwrap()]);
    assert!((loss(&l[3]) - 2.5).abs() < 0.1, "{}", l[3]);
    for x in &l[..3] {
        assert!((loss(x) - 0.6).abs() < 0.1, "{x}");
    }
    let a = advice(&l[3]);
    assert!(
        a.contains("fiber/connector fault on lane 4") && a.contains("over the 200GBASE-SR4 channel insertion loss budget of 1.9 dB"),
        "{a}"
    );
    assert!(a.contains("(far-end Tx -0.") && a.contains("near-end Rx -3.0") && a.contains("clean the fiber"), "{a}");
}

#[test]
fn near_end_receiver_when_light_and_loss_are_normal() {
    let dir = tempfile::tempdir().unwrap();
    // Every lane loses 0.6 dB and receives -1.0 .. -1.1 dBm, yet lane 4 has 150x the errors.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -1.1]);
    let f = far(dir.path(), FAR_TX_NORMAL);
    let l = lanes(&n, &["--peer", f.to_str().unwrap()]);
    assert!((loss(&l[3]) - 0.6).abs() < 0.1, "{}", l[3]);
    let a = advice(&l[3]);
    assert!(a.contains("this module's receiver on lane 4 is suspect (near-end receiver)"), "{a}");
    assert!(a.contains("link loss 0.6 dB") && a.contains("within the 200GBASE-SR4 budget"), "{a}");
}

#[test]
fn a_crossed_cable_is_paired_by_the_lane_map() {
    let dir = tempfile::tempdir().unwrap();
    // The cable crosses lanes 3 and 4: far lane 3 (-2.0 dBm, weak) reaches our lane 4.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -2.6]);
    let f = far(dir.path(), [-0.4, -0.5, -2.0, -0.45]);
    let straight = lanes(&n, &["--peer", f.to_str().unwrap()]);
    // Straight: lane 4 would lose -0.45 - (-2.6) = 2.15 dB, lane 3 gain 0.95 dB.
    assert!((loss(&straight[3]) - 2.15).abs() < 0.1 && (loss(&straight[2]) + 0.95).abs() < 0.1);
    let mapped = lanes(&n, &["--peer", f.to_str().unwrap(), "--lane-map", "1:1,2:2,3:4,4:3"]);
    // Mapped: lane 4 = -2.0 - (-2.6) = 0.6, lane 3 = -0.45 - (-1.05) = 0.6.
    assert!((loss(&mapped[3]) - 0.6).abs() < 0.1 && (loss(&mapped[2]) - 0.6).abs() < 0.1, "{mapped:?}");
    assert!(advice(&mapped[3]).contains("far end's transmitter on lane 4 is weak"), "{}", advice(&mapped[3]));
}

#[test]
fn an_imported_tool_output_is_a_far_end() {
    let dir = tempfile::tempdir().unwrap();
    // The far end as real ethtool 7.2 --json -m of an SR4 module (qsfp03): Tx 0.9958 mW on
    // lane 1 = 10 log10(0.9958) = -0.018 dBm; our lane 1 receives -1.0: loss 0.98 dB.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -1.1]);
    let peer = format!("{}:Ethernet8", Path::new("tests/fixtures/import/ethtool_m/qsfp03.ethtool72.json").display());
    let l = lanes(&n, &["--peer", &peer]);
    assert!((loss(&l[0]) - 0.98).abs() < 0.1, "{}", l[0]);
    // Lane 4: 1.25 mW = 0.969 dBm, -1.1 received: 2.07 dB, over the 1.9 dB budget.
    assert!((loss(&l[3]) - 2.07).abs() < 0.1, "{}", l[3]);
    assert!(advice(&l[3]).contains("fiber/connector fault on lane 4"), "{}", advice(&l[3]));
}

#[test]
fn without_a_peer_no_link_loss_keys() {
    let dir = tempfile::tempdir().unwrap();
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -1.1]);
    let l = lanes(&n, &[]);
    assert!(l.iter().all(|x| x.get("link_loss_db").is_none() && x.get("link_loss_budget_db").is_none()), "{l:?}");
}
