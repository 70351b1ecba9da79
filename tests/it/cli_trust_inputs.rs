//! Issue 9: module inputs that were refused, silently incomplete, or unbounded, through the
//! real binary.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

fn real_dump(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(name)).unwrap()
}

fn decode_json(text: &str) -> (Value, String, Option<i32>) {
    let out = optics().args(["decode", "-", "--json"]).write_stdin(text.as_bytes().to_vec()).output().unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (v, String::from_utf8_lossy(&out.stderr).into_owned(), out.status.code())
}

/// Item 18: 10,000 rows 0x10000 apart, each followed by "*" (610 KB), is refused at once.
#[test]
fn repeat_lines_past_the_largest_module_address_are_refused() {
    let row = "11 07 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|";
    let text: String = (0..10_000u32).map(|i| format!("{:08x}  {row}\n*\n", i * 0x1_0000)).collect();
    assert!(text.len() > 600_000);
    let (_, err, code) = decode_json(&text);
    assert_eq!(code, Some(1));
    assert!(err.contains("past the largest address a module image can have"), "{err}");
}

/// Smaller: an SFF-8636 dump of lower memory + page 00h (paged: byte 2 bit 2 clear) warns
/// that the page 03h thresholds are absent instead of printing nulls silently.
#[test]
fn sff8636_without_page_03h_warns() {
    let (v, err, code) = decode_json(&real_dump("qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt"));
    assert_eq!(code, Some(0), "{err}");
    assert!(v["thresholds"]["rx_power_mw"].is_null());
    assert!(v["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("page 03h not read")), "{v}");
}

/// Smaller: `ethtool -m IFACE hex on offset 256` prints A2h alone at 0x100-0x1ff; its
/// diagnostics decode, with a warning that the identity page is absent.
#[test]
fn sff8472_a2h_alone_decodes_its_diagnostics() {
    // A2h of the real sfp02 dump (i2cdump 0x51 rows), re-laid as ethtool prints offset 256.
    let dump = real_dump("sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt");
    let a2: Vec<&str> = dump.lines().skip_while(|l| !l.starts_with("### i2cdump -y 8 0x51")).skip(2).take(16).collect();
    let mut text = String::from("Offset\t\tValues\n------\t\t------\n");
    for (i, l) in a2.iter().enumerate() {
        let bytes: Vec<&str> = l.split_whitespace().skip(1).take(16).collect();
        text.push_str(&format!("0x{:04x}:\t\t{}\n", 0x100 + i * 16, bytes.join(" ")));
    }
    let (v, err, code) = decode_json(&text);
    assert_eq!(code, Some(0), "{err}\n{text}");
    assert!(v["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("identity page A0h absent")), "{v}");
    // SFF-8472 Table 9-11, internal calibration: A2h 96-97 = 42 33 -> 66 + 0x33/256 = 66.199 C;
    // 98-99 = 7f ca -> 32714 x 100 uV = 3.2714 V; bias 0b b8 -> 3000 x 2 uA = 6.0 mA;
    // tx and rx power 13 92 -> 5010 x 0.1 uW = 0.501 mW.
    assert!((v["module_temperature_c"].as_f64().unwrap() - 66.199).abs() < 1e-3, "{v}");
    assert!((v["supply_voltage_v"].as_f64().unwrap() - 3.2714).abs() < 1e-9);
    let lane = &v["lanes"][0];
    assert!((lane["tx_bias_ma"].as_f64().unwrap() - 6.0).abs() < 1e-9);
    assert!((lane["tx_power_mw"].as_f64().unwrap() - 0.501).abs() < 1e-9);
    assert!((lane["rx_power_mw"].as_f64().unwrap() - 0.501).abs() < 1e-9);
}

/// Smaller: live-only flags on `scan --replay` (and `compare` with an AFTER capture) are
/// refused instead of silently doing nothing; `-v` is honoured (it shows counter sources).
#[test]
fn live_flags_on_a_replay_are_refused() {
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/sr4-200g-healthy.jsonl");
    for flags in [&["--window", "10s"][..], &["--interval", "2s"], &["--record", "/tmp/never-written.jsonl"]] {
        let out = optics().args(["scan", "--replay"]).arg(&cap).args(flags).output().unwrap();
        // A usage mistake: exit 2, as clap's own.
        assert_eq!(out.status.code(), Some(2), "{flags:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flags[0]) && err.contains("does nothing with --replay"), "{flags:?}: {err}");
    }
    let out = optics().args(["scan", "--replay"]).arg(&cap).arg("-v").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("counters "), "-v shows where each counter came from");
    let out = optics().arg("compare").arg(&cap).arg(&cap).args(["--window", "3s"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("does nothing with an AFTER capture"));
    assert!(!Path::new("/tmp/never-written.jsonl").exists());
}

/// Smaller: an FEC array of 10^6 lanes is refused where the capture is read, with its line.
#[test]
fn fec_arrays_longer_than_any_port_are_refused() {
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/sr4-200g-healthy.jsonl")).unwrap();
    let mut lines: Vec<String> = src.lines().map(str::to_string).collect();
    let mut rec: Value = serde_json::from_str(&lines[5]).unwrap();
    assert_eq!(rec["record"], "sample");
    rec["fec"]["corrected_bits"] = Value::Array(vec![Value::from(0u64); 1_000_001]);
    lines[5] = rec.to_string();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lanes.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 6") && err.contains("no module or link has that many"), "{err}");
    // 8 lanes (a DR8 port) is fine: 1 total + 8.
    rec["fec"]["corrected_bits"] = Value::Array(vec![Value::from(0u64); 9]);
    lines[5] = rec.to_string();
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let out = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    assert_ne!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Item 22's fault in a neighbour: a module image entry given as an array is not read as
/// positional fields.
#[test]
fn image_entries_must_be_objects() {
    let (_, err, code) = decode_json(r#"{"pages":[[80,0,0,0,"18"]]}"#);
    assert_eq!(code, Some(1));
    assert!(err.contains("invalid type: sequence, expected an object"), "{err}");
    // The object form of the same entry is read (identifier 0x18: CMIS).
    let (v, _, _) = decode_json(r#"{"pages":[{"i2c_address":80,"page":0,"offset":0,"data":"18"}]}"#);
    assert_eq!(v["standard"], "CMIS");
}

/// Issue 9 leftover: serde reads a struct from a JSON array by position; a capture line
/// that is an array (`["sample", ...]`) is refused naming its line, not matched to fields.
#[test]
fn capture_lines_must_be_objects() {
    let dir = tempfile::tempdir().unwrap();
    let header = r#"{"record":"header","format":"optics-capture","version":1,"created":"2026-12-01T00:00:00Z"}"#;
    let interface = r#"["interface", 0.0, "ens3np0"]"#;
    let path = dir.path().join("array.jsonl");
    std::fs::write(&path, format!("{header}\n{interface}\n")).unwrap();
    let out = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2: a capture record is a JSON object"), "{err}");
    // The header line too.
    std::fs::write(&path, r#"["header", "optics-capture", 1, "2026-12-01T00:00:00Z"]"#).unwrap();
    let out = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("line 1: a capture record is a JSON object"));
}
