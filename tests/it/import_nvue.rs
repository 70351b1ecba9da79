//! NVIDIA Cumulus Linux NVUE outputs of a switch port (tests/fixtures/switch/README.md):
//! `nv show interface IF transceiver` becomes the port's module, `nv show interface IF link
//! phy-detail` its FEC counters with their time base. Each value checked is read off the
//! printed text by hand; powers are checked against the mW↔dBm arithmetic.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

const F: &str = "tests/fixtures/switch";

fn import(file: &Path, cap: &Path) -> String {
    let o = optics().arg("import").arg(file).arg("-o").arg(cap).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{}: {err}", file.display());
    err
}

fn records(cap: &Path, kind: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(cap).unwrap();
    text.lines().skip(1).map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|r| r["record"] == kind).collect()
}

#[test]
fn the_transceiver_view_is_the_ports_module() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&Path::new(F).join("nvue_show_interface_transceiver_cl512.txt"), &cap);
    // The prompt line names the port.
    assert_eq!(records(&cap, "interface")[0]["interface"], "swp1");
    let o = optics().args(["decode", "--json", "--interface", "swp1"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (m["vendor_name"].as_str(), m["vendor_pn"].as_str(), m["vendor_sn"].as_str()),
        (Some("Mellanox"), Some("MFA1A00-C003"), Some("MT2108FT02204"))
    );
    assert_eq!((m["module_temperature_c"].as_f64(), m["supply_voltage_v"].as_f64()), (Some(42.56), Some(3.2888)));
    let lanes = m["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 4);
    let rx_mw = [0.8625, 0.8385, 0.8556, 0.8576];
    let rx_dbm_printed = [-0.64, -0.76, -0.68, -0.67];
    for ((l, mw), printed) in lanes.iter().zip(rx_mw).zip(rx_dbm_printed) {
        // The mW is what the module reported (0.1 uW resolution); dBm = 10 log10(mW), which
        // NVUE rounded to 0.01 dB.
        let dbm = l["rx_power_dbm"].as_f64().unwrap();
        assert!((dbm - 10.0 * f64::log10(mw)).abs() < 1e-9, "{l}");
        assert!((dbm - printed).abs() <= 0.005 + 1e-9, "{l}");
        assert_eq!(l["tx_bias_ma"].as_f64(), Some(6.75));
    }
    assert!((lanes[3]["tx_power_dbm"].as_f64().unwrap() - 10.0 * f64::log10(0.9695)).abs() < 1e-9);
}

#[test]
fn phy_detail_gives_the_ports_lane_counts_since_the_clear() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let err = import(&Path::new(F).join("nvue_link_phy_detail_cl512.txt"), &cap);
    assert!(err.contains("swp1"), "{err}");
    let s = records(&cap, "sample");
    let last = s.last().unwrap();
    assert_eq!(last["interface"], "swp1");
    let bits = &last["fec"]["corrected_bits"];
    assert_eq!(bits[0], 1_478_918_665u64, "the sum of the eight lanes");
    assert_eq!(bits[1], 747_567_424u64);
    assert_eq!(bits.as_array().unwrap().len(), 9);
    // 324 min since the clear: a zero reading 19440 s before the snapshot.
    assert!((last["t"].as_f64().unwrap() - s[0]["t"].as_f64().unwrap() - 19_440.0).abs() < 1e-6);
    let hist = last["fec"]["histogram"].as_array().unwrap();
    assert_eq!(hist.len(), 16);
    assert_eq!((hist[1]["low"].as_u64(), hist[1]["count"].as_u64()), (Some(1), Some(598_244_758)));
    assert_eq!(hist[8]["count"], 1);
    assert_eq!(last["printed_fields"]["nvue phy-detail/raw-ber-lane0"], "3E-6");
}

#[test]
fn nvue_json_reads_like_its_text() {
    let dir = tempfile::tempdir().unwrap();
    // `-o json` prints the text's keys as one object (docs/import.md: no public JSON sample).
    let f = dir.path().join("swp1_phy.json");
    std::fs::write(&f, r#"{"time-since-last-clear-min": 10, "effective-errors": 0, "phy-raw-errors-lane0": 6, "phy-raw-errors-lane1": 4, "rs-num-corr-err-bin0": 100, "rs-num-corr-err-bin1": 10}"#).unwrap();
    let cap = dir.path().join("c.jsonl");
    let o = optics().arg("import").arg(&f).args(["--interface", "swp1", "-o"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let last = records(&cap, "sample").pop().unwrap();
    assert_eq!(last["fec"]["corrected_bits"], serde_json::json!([10, 6, 4]));
    assert_eq!(last["fec"]["histogram"][1]["count"], 10);
}

#[test]
fn truncated_nvue_output_is_refused_not_guessed() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(Path::new(F).join("nvue_link_phy_detail_cl512.txt")).unwrap();
    // Cut in the middle of a lane's count: the rest of the lanes are gone and lane 3's
    // number is now text.
    let cut = format!("{}x", &text[..text.find("phy-raw-errors-lane3").unwrap() + "phy-raw-errors-lane3       3057".len()]);
    let f = dir.path().join("cut.txt");
    std::fs::write(&f, cut).unwrap();
    let o = optics().arg("import").arg(&f).arg("-o").arg(dir.path().join("c.jsonl")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("phy-raw-errors-lane3"), "{err}");
}

#[test]
fn phy_detail_effective_errors_are_named_after_nvue_not_mlxlink() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&Path::new(F).join("nvue_link_phy_detail_cl512.txt"), &cap);
    // `effective-errors 0` as printed, under NVUE's own name.
    let last = records(&cap, "sample").pop().unwrap();
    assert_eq!(last["driver_stats"]["nvue_effective_errors"], 0);
    assert!(last["driver_stats"].get("mlxlink_effective_physical_errors").is_none());
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let a = &v["interfaces"][0];
    assert_eq!(a["link"]["counter_sources"]["pcs_symbol_errors"], "driver:nvue_effective_errors");
    // 0 over the 324 min since the clear (19440 s): no frame lost, said with NVUE's counter.
    let notes: Vec<&str> = a["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(notes.iter().any(|n| n.contains("driver:nvue_effective_errors counted 0 over 19440 s")), "{notes:?}");
    assert!(!notes.iter().any(|n| n.contains("mlxlink")), "{notes:?}");
}

#[test]
fn a_capture_with_the_earlier_name_still_reads_its_effective_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&Path::new(F).join("nvue_link_phy_detail_cl512.txt"), &cap);
    let text = std::fs::read_to_string(&cap).unwrap().replace("nvue_effective_errors", "mlxlink_effective_physical_errors");
    std::fs::write(&cap, text).unwrap();
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["interfaces"][0]["link"]["counter_sources"]["pcs_symbol_errors"], "driver:mlxlink_effective_physical_errors");
}

#[test]
fn the_nested_platform_transceiver_view_gives_the_lanes_and_every_threshold() {
    // `nv show platform transceiver swp2` (Cumulus Linux 5.14 user guide): each monitor a
    // block with its reading and four thresholds, the channels nested under `channel:`.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&Path::new(F).join("nvue_show_platform_transceiver_cl514.txt"), &cap);
    assert_eq!(records(&cap, "interface")[0]["interface"], "swp2");
    let o = optics().args(["decode", "--json", "--interface", "swp2"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((m["vendor_pn"].as_str(), m["vendor_sn"].as_str()), (Some("MFA1A00-C003"), Some("MT2108FT02204")));
    assert_eq!((m["module_temperature_c"].as_f64(), m["supply_voltage_v"].as_f64()), (Some(42.56), Some(3.2862)));
    let lane = &m["lanes"][0];
    assert_eq!(
        (lane["rx_power_mw"].as_f64(), lane["tx_power_mw"].as_f64(), lane["tx_bias_ma"].as_f64()),
        (Some(0.8625), Some(0.8988), Some(6.75))
    );
    let t = &m["thresholds"];
    let four = |k: &str| ["high_alarm", "low_alarm", "high_warning", "low_warning"].map(|s| t[k][s].as_f64().unwrap());
    assert_eq!(four("temperature_c"), [80.0, -10.0, 70.0, 0.0]);
    assert_eq!(four("supply_voltage_v"), [3.5, 3.1, 3.465, 3.135]);
    assert_eq!(four("tx_bias_ma"), [8.5, 5.492, 8.0, 6.0]);
    // Power thresholds are printed in dBm only: mW = 10^(dBm/10). Rx 5.40 / -13.31 / 2.40 /
    // -10.30 dBm = 3.4674 / 0.046666 / 1.7378 / 0.093325 mW; Tx low alarm -11.40 dBm =
    // 0.072444 mW, low warning -8.40 dBm = 0.144544 mW.
    let close = |got: [f64; 4], want: [f64; 4]| {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-4 * w, "{got:?} vs {want:?}");
        }
    };
    close(four("rx_power_mw"), [3.4674, 0.046666, 1.7378, 0.093325]);
    close(four("tx_power_mw"), [3.4674, 0.072444, 1.7378, 0.144544]);
}
