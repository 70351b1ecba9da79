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

#[test]
fn export_csv_rows_carry_the_link_loss() {
    let dir = tempfile::tempdir().unwrap();
    // Far lasers normal (lane 4 at -0.5 dBm); our lane 4 gets -3.0: 2.5 dB lost, over
    // 200GBASE-SR4's 1.9 dB (IEEE 802.3 Clause 138).
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -3.0]);
    let f = far(dir.path(), FAR_TX_NORMAL);
    let csv_path = dir.path().join("rows.csv");
    let out = optics().arg("export").arg(&n).arg("--csv").arg(&csv_path).arg("--peer").arg(&f).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rdr = csv::Reader::from_path(&csv_path).unwrap();
    let headers: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    // Appended after every earlier column.
    let host = headers.iter().position(|h| h == "host").unwrap();
    assert_eq!(&headers[host..host + 4], ["host", "link_loss_db", "link_loss_budget_db", "link_loss_pmd"]);
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 61 * 4);
    for row in &rows {
        let lane: usize = row[col("lane")].parse().unwrap();
        let rx: f64 = row[col("rx_power_dbm")].parse().unwrap();
        let l: f64 = row[col("link_loss_db")].parse().unwrap();
        // The row's loss is the far end's Tx (its window, +-0.02 dB jitter) minus this
        // row's own Rx reading.
        assert!((l - (FAR_TX_NORMAL[lane - 1] - rx)).abs() < 0.05, "lane {lane}: {l} vs rx {rx}");
        let want = if lane == 4 { 2.5 } else { FAR_TX_NORMAL[lane - 1] - [-1.0, -1.1, -1.05][lane - 1] };
        assert!((l - want).abs() < 0.1, "lane {lane}: {l}");
        assert_eq!(&row[col("link_loss_budget_db")], "1.9");
        assert_eq!(&row[col("link_loss_pmd")], "200GBASE-SR4");
    }
    // Without a far end the columns are there, empty.
    let plain = dir.path().join("plain.csv");
    assert!(optics().arg("export").arg(&n).arg("--csv").arg(&plain).output().unwrap().status.success());
    let mut rdr = csv::Reader::from_path(&plain).unwrap();
    assert!(rdr.records().map(Result::unwrap).all(|r| r[col("link_loss_db")].is_empty() && r[col("link_loss_pmd")].is_empty()));
}

#[test]
fn export_with_a_far_end_of_another_link_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -1.1]);
    // The near end itself (same module SN) is no far end.
    let same = dir.path().join("same.jsonl");
    std::fs::copy(&n, &same).unwrap();
    let csv_path = dir.path().join("rows.csv");
    let out = optics().arg("export").arg(&n).arg("--csv").arg(&csv_path).arg("--peer").arg(&same).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("same module (SN MT2233FT01234)"), "{err}");
    assert!(!csv_path.exists(), "a failed export leaves no file");
}

#[test]
fn the_text_report_shows_the_loss_per_lane_and_the_budget_it_is_held_to() {
    let dir = tempfile::tempdir().unwrap();
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -3.0]);
    let f = far(dir.path(), FAR_TX_NORMAL);
    let out = optics().env("COLUMNS", "160").arg("scan").arg("--replay").arg(&n).arg("--peer").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("loss dB"), "{text}");
    // Lane 4: -0.5 - (-3.0) = 2.50, marked over budget.
    let lane4 = text.lines().find(|l| l.trim_start().starts_with("4 ")).unwrap_or_else(|| panic!("{text}"));
    let marked = lane4.split_whitespace().find_map(|c| c.strip_suffix('!')).unwrap_or_else(|| panic!("{lane4}"));
    assert!((marked.parse::<f64>().unwrap() - 2.5).abs() < 0.1, "{lane4}");
    assert!(text.contains("200GBASE-SR4 channel insertion loss budget of 1.9 dB (IEEE 802.3 Clause 138"), "{text}");
    // No far end: no column, no note.
    let out = optics().env("COLUMNS", "160").arg("scan").arg("--replay").arg(&n).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("loss dB"));
}

#[test]
fn the_markdown_report_lists_the_loss_per_lane() {
    let dir = tempfile::tempdir().unwrap();
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -3.0]);
    let f = far(dir.path(), FAR_TX_NORMAL);
    let md = dir.path().join("t.md");
    let out = optics().arg("report").arg(&n).arg("--peer").arg(&f).arg("-o").arg(&md).output().unwrap();
    assert!(md.exists(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&md).unwrap();
    assert!(text.contains("against the 200GBASE-SR4 channel insertion loss budget of 1.9 dB (IEEE 802.3 Clause 138"), "{text}");
    let lane4 = text.lines().find(|l| l.starts_with("- lane 4: 2.")).unwrap_or_else(|| panic!("{text}"));
    assert!(lane4.contains("dB (over budget: fiber/connector); toward the far end"), "{lane4}");
    // The other direction: our Tx -0.5 - the far end's Rx -1.1 = 0.6 dB, within budget.
    assert!(lane4.contains("(near-end Tx - far-end Rx): 0.") && lane4.ends_with(" dB"), "{lane4}");
    assert!(text.lines().any(|l| l.starts_with("- lane 1: 0.") && l.ends_with(" dB")), "{text}");
}

#[test]
fn a_junos_port_is_the_far_end() {
    let dir = tempfile::tempdir().unwrap();
    // The far end as Junos prints et-0/0/0 (real output, tests/fixtures/switch): Tx 1.348,
    // 1.248, 1.262, 1.432 mW = 1.297, 0.962, 1.011, 1.559 dBm. Our lanes receive 0.6 dB
    // less on lanes 1-3 and 3.0 dB less on lane 4 (-1.441 dBm): fiber loss on lane 4,
    // over 200GBASE-SR4's 1.9 dB.
    let n = near(dir.path(), [0.697, 0.362, 0.411, -1.441]);
    let peer = format!("{}:et-0/0/0", Path::new("tests/fixtures/switch/junos_diagnostics_optics_et.txt").display());
    let l = lanes(&n, &["--peer", &peer]);
    for (i, want) in [0.6, 0.6, 0.6, 3.0].iter().enumerate() {
        assert!((loss(&l[i]) - want).abs() < 0.1, "lane {}: {}", i + 1, l[i]);
    }
    let a = advice(&l[3]);
    assert!(a.contains("fiber/connector fault on lane 4") && a.contains("over the 200GBASE-SR4 channel insertion loss budget"), "{a}");
}

#[test]
fn an_eos_port_with_a_weak_lane_is_the_far_end_through_a_lane_map() {
    let dir = tempfile::tempdir().unwrap();
    // EOS Et3/17/1..3 (real output): Tx 1.51, -0.20, 1.65 dBm; lane 2 is 1.78 dB below its
    // siblings' median (1.58). The cable brings far lane 2 to our lane 4 (the lane with the
    // errors), far 1 and 3 straight; each arrives 0.6 dB lower.
    let n = near(dir.path(), [0.91, -1.1, 1.05, -0.80]);
    let peer = format!("{}:Ethernet3/17/1", Path::new("tests/fixtures/switch/eos_show_interfaces_transceiver.txt").display());
    let l = lanes(&n, &["--peer", &peer, "--lane-map", "1:1,3:3,4:2"]);
    for i in [0, 2, 3] {
        assert!((loss(&l[i]) - 0.6).abs() < 0.1, "lane {}: {}", i + 1, l[i]);
    }
    // Our lane 2 faces no far lane: no loss.
    assert!(l[1].get("link_loss_db").is_none_or(Value::is_null), "{}", l[1]);
    let a = advice(&l[3]);
    assert!(a.contains("far end's transmitter on lane 4 is weak"), "{a}");
}

#[test]
fn a_switch_port_with_another_lane_count_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -1.1]);
    // EOS Ethernet3/17/1 prints three lanes; our port has four.
    let peer = format!("{}:Ethernet3/17/1", Path::new("tests/fixtures/switch/eos_show_interfaces_transceiver.txt").display());
    let out = optics().arg("scan").arg("--replay").arg(&n).arg("--peer").arg(&peer).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has 3 lanes and ens3np0 has 4: not the two ends of one link"), "{err}");
}

/// The far end with its receive powers given too (the other direction).
fn far_rx(dir: &Path, tx_dbm: [f64; 4], rx_dbm: [f64; 4]) -> std::path::PathBuf {
    let mut m = sr4_200g("MT2240FT00088", rx_dbm);
    m.tx_dbm = tx_dbm;
    write(dir, "far.jsonl", simple_capture(&[cx7_port("Ethernet48", m, [12_000.0, 15_000.0, 14_000.0, 18_000.0])], 61, 22))
}

fn far_loss(l: &Value) -> f64 {
    l["far_link_loss_db"].as_f64().unwrap_or_else(|| panic!("no far_link_loss_db: {l}"))
}

#[test]
fn both_directions_per_lane_tell_the_fiber_toward_this_end() {
    let dir = tempfile::tempdir().unwrap();
    // Toward us lane 4 loses -0.5 - (-3.0) = 2.5 dB (over 1.9); toward the far end every
    // lane loses our Tx (-0.4, -0.5, -0.45, -0.5) minus its Rx (-1.0, -1.1, -1.05, -1.1) = 0.6 dB.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -3.0]);
    let f = far(dir.path(), FAR_TX_NORMAL);
    let l = lanes(&n, &["--peer", f.to_str().unwrap()]);
    for x in &l {
        assert!((far_loss(x) - 0.6).abs() < 0.1, "{x}");
    }
    let a = advice(&l[3]);
    assert!(a.contains("the other direction (this end's Tx to the far end's Rx) loses 0.6 dB, within it"), "{a}");
    assert!(a.contains("the fiber carrying lane 4 toward this end"), "{a}");
}

#[test]
fn loss_over_budget_both_ways_points_at_what_they_share() {
    let dir = tempfile::tempdir().unwrap();
    // Lane 4 both ways: -0.5 - (-3.0) = 2.5 dB toward us, -0.5 - (-2.9) = 2.4 dB toward the far end.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -3.0]);
    let f = far_rx(dir.path(), FAR_TX_NORMAL, [-1.0, -1.1, -1.05, -2.9]);
    let l = lanes(&n, &["--peer", f.to_str().unwrap()]);
    assert!((loss(&l[3]) - 2.5).abs() < 0.1 && (far_loss(&l[3]) - 2.4).abs() < 0.1, "{}", l[3]);
    let a = advice(&l[3]);
    assert!(a.contains("the other direction loses 2.4 dB, over it too") && a.contains("what both directions of lane 4 share"), "{a}");
}

#[test]
fn a_lane_lost_only_toward_the_far_end_is_named_from_this_end() {
    let dir = tempfile::tempdir().unwrap();
    // Our receivers see 0.6 dB loss on every lane; the far end receives our lane 2 at -3.0:
    // -0.5 - (-3.0) = 2.5 dB, 0.6 dB over the 1.9 dB budget, in the direction toward it.
    let n = near(dir.path(), [-1.0, -1.1, -1.05, -1.1]);
    let f = far_rx(dir.path(), FAR_TX_NORMAL, [-1.0, -3.0, -1.05, -1.1]);
    let out = optics().arg("scan").arg("--replay").arg(&n).arg("--json").arg("--peer").arg(&f).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let i = &v["interfaces"][0];
    let lane2 = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 2).unwrap();
    assert!((far_loss(lane2) - 2.5).abs() < 0.1 && (loss(lane2) - 0.6).abs() < 0.1, "{lane2}");
    let notes = i["notes"].to_string();
    assert!(
        notes.contains("lane 2: the far end receives 2.5 dB less than this end sends") && notes.contains("toward the far end"),
        "{notes}"
    );
    assert!(notes.contains("the way back loses 0.6 dB, within it"), "{notes}");
    // The text report marks it in the far loss column.
    let out = optics().env("COLUMNS", "180").arg("scan").arg("--replay").arg(&n).arg("--peer").arg(&f).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("far loss"), "{text}");
    let row = text.lines().find(|l| l.trim_start().starts_with("2 ")).unwrap_or_else(|| panic!("{text}"));
    let marked = row.split_whitespace().find_map(|c| c.strip_suffix('!')).unwrap_or_else(|| panic!("{row}"));
    assert!((marked.parse::<f64>().unwrap() - 2.5).abs() < 0.1, "{row}");
}

#[test]
fn a_near_end_receiver_behind_a_port_of_an_imported_switch_capture() {
    // `optics import` of the real EOS `show interfaces transceiver detail`
    // (tests/fixtures/switch): Et6/1..4 are Ethernet6/1's four lanes, Tx -2.39, -2.33,
    // -0.78, -0.93 dBm. Our lanes each receive 0.6 dB less (-2.99, -2.93, -1.38, -1.53),
    // yet lane 4 has 150x its siblings' errors: the light and the fiber are fine, so our
    // receiver on lane 4 is suspect. The far end is named `switch.jsonl:Ethernet6/1`.
    let dir = tempfile::tempdir().unwrap();
    let switch = dir.path().join("switch.jsonl");
    let o = optics()
        .arg("import")
        .arg("tests/fixtures/switch/eos_show_interfaces_transceiver_detail.txt")
        .arg("-o")
        .arg(&switch)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let n = near(dir.path(), [-2.99, -2.93, -1.38, -1.53]);
    let peer = format!("{}:Ethernet6/1", switch.display());
    let l = lanes(&n, &["--peer", &peer]);
    for (i, x) in l.iter().enumerate() {
        assert!((loss(x) - 0.6).abs() < 0.1, "lane {}: {x}", i + 1);
        assert_eq!((x["link_loss_budget_db"].as_f64(), x["link_loss_pmd"].as_str()), (Some(1.9), Some("200GBASE-SR4")), "{x}");
    }
    let a = advice(&l[3]);
    assert!(a.contains("this module's receiver on lane 4 is suspect (near-end receiver)") && a.contains("link loss 0.6 dB"), "{a}");
    // The same keys in the CSV rows.
    let csv_path = dir.path().join("rows.csv");
    let out = optics().arg("export").arg(&n).arg("--csv").arg(&csv_path).arg("--peer").arg(&peer).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rdr = csv::Reader::from_path(&csv_path).unwrap();
    let headers: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    for row in rdr.records().map(Result::unwrap) {
        let l: f64 = row[col("link_loss_db")].parse().unwrap();
        assert!((l - 0.6).abs() < 0.1, "{row:?}");
        assert_eq!((&row[col("link_loss_budget_db")], &row[col("link_loss_pmd")]), ("1.9", "200GBASE-SR4"));
    }
}

#[test]
fn a_down_link_between_modules_that_cannot_work_together_names_both() {
    // This end: the real ConnectX-4 `ethtool IFACE` of a down port forced to 40G
    // (cx4_finisar_cwdm4_at_40g/refused) with the real ethtool 7.2 --json -m of an Avago
    // 40GBASE-SR4 (qsfp08, SFF-8636 bytes 186-187: 850 nm). Far ends, real too: a Finisar
    // 40GBASE-LR4 (qsfp09, 1301 nm: single-mode, which an SR receiver cannot see) and a
    // Finisar 100GBASE-SR4 (qsfp03, 850 nm: 100G and its 25G/50G breakouts, no 10G or 40G).
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("ens16f1np1");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy("tests/fixtures/import/ethtool_m/qsfp08.ethtool72.json", folder.join("ethtool_m.json")).unwrap();
    std::fs::copy("tests/fixtures/import/ethtool_m/cx4_finisar_cwdm4_at_40g/refused/ethtool.txt", folder.join("ethtool.txt")).unwrap();
    let near = dir.path().join("near.jsonl");
    optics().arg("import").arg(&folder).args(["--interface", "ens16f1np1", "-o"]).arg(&near).assert().success();
    let scan = |far: &str| {
        let peer = format!("tests/fixtures/import/ethtool_m/{far}:Ethernet1");
        let out = optics().arg("scan").arg("--replay").arg(&near).args(["--json", "--peer", &peer]).output().unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["interfaces"][0].clone()
    };
    let mismatch = |i: &Value| {
        i["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["code"] == "peer_module_mismatch")
            .map(|r| r["message"].as_str().unwrap().to_string())
    };
    let i = scan("qsfp09.ethtool72.json");
    assert_eq!(i["verdict"], "reject");
    let msg = mismatch(&i).expect("SR4 facing LR4");
    assert!(msg.contains("40G Base-SR4, 850 nm") && msg.contains("40G Base-LR4, 1301 nm") && msg.contains("multimode"), "{msg}");
    let advice = i["advice"].as_array().unwrap();
    assert!(!advice.iter().any(|a| a.as_str().unwrap().starts_with("the link went down: reseat")), "{advice:?}");
    let msg = mismatch(&scan("qsfp03.ethtool72.json")).expect("40G SR4 facing 100G SR4");
    assert!(msg.ends_with("the two share no Ethernet rate"), "{msg}");
    // Another 40GBASE-SR4 at the far end (the real mlx4 Avago paste): a pair that can work.
    assert_eq!(mismatch(&scan("mlx4_avago_qsfp_sr4_lanes_2-4_dark_lore-netdev.txt")), None);
}
