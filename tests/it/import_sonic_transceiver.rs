//! SONiC `show interfaces transceiver status` and `pm` (tests/fixtures/sonic-transceiver/,
//! sources in its README): each port's module state and flags, and a coherent module's
//! performance window, through the binary. Every value checked is read off the text by hand.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

const F: &str = "tests/fixtures/sonic-transceiver";

/// `optics import ARGS -o cap`; the capture's records.
fn import(args: &[&str], dir: &Path) -> (Vec<Value>, std::path::PathBuf) {
    let cap = dir.join("cap.jsonl");
    let o = optics().arg("import").args(args).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&cap).unwrap();
    (text.lines().map(|l| serde_json::from_str(l).unwrap()).collect(), cap)
}

fn printed_module<'a>(records: &'a [Value], iface: &str) -> &'a Value {
    let r = records.iter().find(|r| r["interface"] == iface && !r["printed_module"].is_null());
    r.unwrap_or_else(|| panic!("no module of {iface}")).get("printed_module").unwrap()
}

fn decode(cap: &Path, iface: &str) -> Value {
    let o = optics().args(["decode", "--json", "--interface", iface]).arg(cap).output().unwrap();
    assert!(o.status.success(), "{iface}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn row<'a>(m: &'a Value, parameter: &str) -> &'a Value {
    m["performance"].as_array().unwrap().iter().find(|r| r["parameter"] == parameter).unwrap_or_else(|| panic!("no {parameter} in {m}"))
}

#[test]
fn pm_table_is_the_modules_performance_window() {
    let dir = tempfile::tempdir().unwrap();
    let (records, cap) = import(&[&format!("{F}/pm_command_reference.txt")], dir.path());
    let m = printed_module(&records, "Ethernet100");
    assert_eq!(m["performance"].as_array().unwrap().len(), 14, "every row printed: {m}");
    let tx = row(m, "tx_power_dbm");
    assert_eq!((tx["min"].as_f64(), tx["avg"].as_f64(), tx["max"].as_f64()), (Some(-8.22), Some(-8.23), Some(-8.24)));
    assert_eq!((tx["high_alarm"].as_f64(), tx["low_warning"].as_f64()), (Some(-5.0), Some(-16.003)));
    // Rx Signal Power's alerts printed True.
    let sig = row(m, "rx_signal_power_dbm");
    assert_eq!((sig["crossed_high"].as_bool(), sig["crossed_low"].as_bool()), (Some(true), Some(true)));
    // This release printed `0.0` for Pre-FEC BER's alerts: not a True/False, so none.
    let ber = row(m, "pre_fec_ber");
    assert!(ber["crossed_high"].is_null() && ber["crossed_low"].is_null(), "{ber}");
    // SOP ROC's thresholds printed N/A.
    assert!(row(m, "sop_roc_krad_per_s")["high_alarm"].is_null());
    // The module's own BER and eSNR land where a module's view of its media input is kept.
    let media = &decode(&cap, "Ethernet100")["vdm"]["lanes"][0]["media"];
    assert_eq!(
        (media["pre_fec_ber_min"].as_f64(), media["pre_fec_ber_average"].as_f64(), media["pre_fec_ber_max"].as_f64()),
        (Some(4.58e-4), Some(4.66e-4), Some(5.76e-4))
    );
    assert_eq!(media["esnr_db"].as_f64(), Some(30.5));
}

#[test]
fn pm_rows_of_a_real_zr_module_without_their_heading() {
    let dir = tempfile::tempdir().unwrap();
    let (records, cap) = import(&[&format!("{F}/pm_pr2927_rows.txt"), "--interface", "Ethernet0"], dir.path());
    let m = printed_module(&records, "Ethernet0");
    assert_eq!(m["performance"].as_array().unwrap().len(), 10);
    let cfo = row(m, "cfo_mhz");
    assert_eq!((cfo["min"].as_f64(), cfo["avg"].as_f64(), cfo["max"].as_f64()), (Some(-768.0), Some(-660.0), Some(-561.0)));
    let post = row(m, "post_fec_ber");
    assert_eq!((post["max"].as_f64(), post["high_alarm"].as_f64(), post["high_warning"].as_f64()), (Some(0.0), Some(1000.0), Some(1.0)));
    let media = &decode(&cap, "Ethernet0")["vdm"]["lanes"][0]["media"];
    assert_eq!((media["pre_fec_ber_average"].as_f64(), media["esnr_db"].as_f64()), (Some(5.49e-4), Some(18.1)));
    // Not printed, not invented: no Tx power row in these rows.
    assert!(m["performance"].as_array().unwrap().iter().all(|r| r["parameter"] != "tx_power_dbm"));
}

#[test]
fn status_gives_the_module_state_and_no_flag_that_read_false() {
    let dir = tempfile::tempdir().unwrap();
    let (records, _) = import(&[&format!("{F}/status_command_reference.txt")], dir.path());
    let m = printed_module(&records, "Ethernet100");
    assert_eq!(m["module_state"], "ModuleReady");
    // Every flag of this output reads False.
    assert!(m.get("lane_flags").is_none() && m.get("module_flags").is_none(), "{m}");
    assert_eq!(records.iter().filter(|r| !r["printed_module"].is_null()).count(), 1, "one port, the prompt line is none");
}

#[test]
fn status_and_pm_of_one_port_are_one_module() {
    let dir = tempfile::tempdir().unwrap();
    let both = dir.path().join("both");
    std::fs::create_dir(&both).unwrap();
    for f in ["pm_command_reference.txt", "status_command_reference.txt"] {
        std::fs::copy(Path::new(F).join(f), both.join(f)).unwrap();
    }
    let (records, cap) = import(&[both.to_str().unwrap()], dir.path());
    let m = printed_module(&records, "Ethernet100");
    assert_eq!((m["module_state"].as_str(), m["performance"].as_array().map(Vec::len)), (Some("ModuleReady"), Some(14)));
    let d = decode(&cap, "Ethernet100");
    assert_eq!((d["module_state"].as_str(), d["vdm"]["lanes"][0]["media"]["esnr_db"].as_f64()), (Some("ModuleReady"), Some(30.5)));
}

#[test]
fn a_module_of_pm_and_status_alone_says_no_thresholds_were_printed() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    for f in ["pm_command_reference.txt", "status_command_reference.txt"] {
        std::fs::copy(Path::new(F).join(f), input.join(f)).unwrap();
    }
    let (_, cap) = import(&[input.to_str().unwrap()], dir.path());
    let m = decode(&cap, "Ethernet100");
    let warnings: Vec<&str> = m["warnings"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    // pm prints per-row thresholds of its window and status prints flags: neither prints the
    // module's alarm or warning thresholds, so none are claimed.
    assert!(warnings.iter().any(|w| w.ends_with("(no EEPROM bytes): no thresholds printed")), "{warnings:?}");
    assert!(!warnings.iter().any(|w| w.contains("alarm thresholds only")), "{warnings:?}");
    assert!(m["thresholds"].as_object().is_none_or(|t| t.values().all(Value::is_null)), "{}", m["thresholds"]);
}
