//! `optics decode` as a user runs it: every input format, the `--json` contract, error exits.

use crate::support::optics;
use predicates::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

fn real_dump(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(name)
}

const QSFP03: &str = "qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt";
const SFP02: &str = "sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt";

fn decode_json(path: &std::path::Path) -> Value {
    let out = optics().arg("decode").arg(path).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("decode --json prints JSON")
}

/// The rows of a `0xNNNN: hh ...` dump as a flat byte vector (independent of the tool's parser).
fn rows_to_bytes(text: &str) -> Vec<u8> {
    text.lines()
        .filter(|l| l.starts_with("0x"))
        .flat_map(|l| l.split_once(':').map(|(_, r)| r.to_string()))
        .flat_map(|r| r.split_whitespace().map(|t| u8::from_str_radix(t, 16).unwrap()).collect::<Vec<_>>())
        .collect()
}

#[test]
fn json_contract_keys_from_a_real_qsfp28() {
    let v = decode_json(&real_dump(QSFP03));
    for key in [
        "standard",
        "identifier",
        "identifier_name",
        "vendor_name",
        "vendor_pn",
        "vendor_sn",
        "vendor_rev",
        "date_code",
        "module_temperature_c",
        "supply_voltage_v",
        "lanes",
        "rx_power_type",
        "modulation",
        "media_lane_count",
        "host_lane_count",
        "thresholds",
        "warnings",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
    for key in ["temperature_c", "supply_voltage_v", "rx_power_mw", "tx_power_mw", "tx_bias_ma"] {
        assert!(v["thresholds"].get(key).is_some(), "missing thresholds.{key}");
        // No page 03h in this dump: thresholds are null, never 0.
        assert!(v["thresholds"][key].is_null());
    }
    assert_eq!(v["standard"], "SFF-8636");
    assert_eq!(v["identifier"], 0x11);
    // Page 00h 148-163 "FINISAR CORP    " trimmed; 168-183 "FTLC9551REPM    "; 196-211 "XU90TRP ...".
    assert_eq!(v["vendor_name"], "FINISAR CORP");
    assert_eq!(v["vendor_pn"], "FTLC9551REPM");
    assert_eq!(v["vendor_sn"], "XU90TRP");
    let lanes = v["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 4);
    // Lower bytes 36-37 (lane 2 rx power) = 0x1cf3 = 7411 x 0.1 uW = 0.7411 mW.
    assert_eq!(lanes[1]["lane"], 2);
    assert!((lanes[1]["rx_power_mw"].as_f64().unwrap() - 0.7411).abs() < 1e-9);
    // 10*log10(0.7411) = -1.3015 dBm.
    assert!((lanes[1]["rx_power_dbm"].as_f64().unwrap() - -1.3015).abs() < 1e-3);
}

#[test]
fn every_input_format_decodes_to_the_same_module() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(real_dump(QSFP03)).unwrap();
    let bytes = rows_to_bytes(&text);
    assert_eq!(bytes.len(), 256);

    let bin = dir.path().join("qsfp03.bin");
    std::fs::write(&bin, &bytes).unwrap();
    let json = dir.path().join("qsfp03.json");
    let doc = serde_json::json!({"pages": [
        {"i2c_address": 80, "page": 0, "bank": 0, "offset": 0, "data": hex::encode(&bytes[..128])},
        {"i2c_address": 80, "page": 0, "bank": 0, "offset": 128, "data": hex::encode(&bytes[128..])},
    ]});
    std::fs::write(&json, doc.to_string()).unwrap();

    let from_text = decode_json(&real_dump(QSFP03));
    assert_eq!(decode_json(&bin), from_text);
    assert_eq!(decode_json(&json), from_text);
}

#[test]
fn sfp_i2cdump_pair_decodes_as_sff8472() {
    let v = decode_json(&real_dump(SFP02));
    assert_eq!(v["standard"], "SFF-8472");
    assert_eq!(v["identifier"], 3);
    assert_eq!(v["vendor_name"], "OEM");
    assert_eq!(v["vendor_pn"], "SFP-10G-T8");
    assert_eq!(v["lanes"].as_array().unwrap().len(), 1);
}

#[test]
fn readable_report_by_default() {
    optics()
        .arg("decode")
        .arg(real_dump(QSFP03))
        .assert()
        .success()
        .stdout(predicate::str::contains("FINISAR CORP").and(predicate::str::contains("SFF-8636")));
}

#[test]
fn dark_lane_is_minus_infinity_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = rows_to_bytes(&std::fs::read_to_string(real_dump(QSFP03)).unwrap());
    bytes[34] = 0; // lane 1 rx power MSB/LSB (SFF-8636 lower bytes 34-35) = 0 mW
    bytes[35] = 0;
    let bin = dir.path().join("dark.bin");
    std::fs::write(&bin, &bytes).unwrap();
    let v = decode_json(&bin);
    assert_eq!(v["lanes"][0]["rx_power_mw"], 0.0);
    assert!(v["lanes"][0]["rx_power_dbm"].is_null(), "-inf is carried as null in strict JSON");
    optics().arg("decode").arg(&bin).assert().success().stdout(predicate::str::contains("-inf"));
}

#[test]
fn bad_inputs_exit_non_zero_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[u8], &str); 5] = [
        ("empty", b"", "empty"),
        ("garbage.txt", b"hello, this is not a dump\n", "unrecognised input"),
        ("unknown.bin", &[0x7e; 256], "Unknown (0x7e)"),
        ("short.bin", &[0x11; 100], "256"),
        ("bad.json", b"{\"pages\": [{\"i2c_address\": 80}]}", "module image JSON"),
    ];
    for (name, content, needle) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, content).unwrap();
        optics().arg("decode").arg(&p).assert().failure().stderr(predicate::str::contains(needle));
    }
    optics().args(["decode", "/nonexistent/module.bin"]).assert().failure().stderr(predicate::str::contains("reading"));
}

#[test]
fn a_capture_decodes_to_its_latest_module_reading() {
    let cap = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("captures/sr4-200g-lane4-marginal.jsonl");
    let v = decode_json(&cap);
    // tests/it/support/captures.rs: sr4_200g("MT2233FT01234", ..), lane 4 at -1.6 dBm +/- 0.02 dB jitter.
    assert_eq!(v["vendor_sn"], "MT2233FT01234");
    assert_eq!(v["standard"], "SFF-8636");
    assert!((v["lanes"][3]["rx_power_dbm"].as_f64().unwrap() - -1.6).abs() < 0.03);
    let gb10 = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("captures/multihost-gb10-cx7.jsonl");
    let out = optics().arg("decode").arg(&gb10).args(["--interface", "enp1s0f1np1", "--json"]).assert().success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["vendor_sn"], "MT2402VS00018"); // port 1's cable
    optics()
        .arg("decode")
        .arg(&gb10)
        .args(["--interface", "nope"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("not in the capture"));
}

/// `decode --interface IFACE` reads the live port's module (the `ethtool -m` replacement):
/// here no port has one, so the kernel's answer is the error, and the usage mistakes
/// around it exit 2.
#[test]
fn decode_interface_reads_a_live_port() {
    let out = optics().args(["decode", "--interface", "nosuch0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no such interface nosuch0"), "{}", String::from_utf8_lossy(&out.stderr));
    // lo has no module: the read is refused by the kernel (not supported), named as such.
    let out = optics().args(["decode", "--interface", "lo"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("reading the module of lo"), "{err}");
    // Neither a file nor an interface; a module image with --interface; --i2c with a file.
    assert_eq!(optics().arg("decode").output().unwrap().status.code(), Some(2));
    let out = optics().arg("decode").arg(real_dump(QSFP03)).args(["--interface", "lo"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a module image"));
    let out = optics().arg("decode").arg(real_dump(QSFP03)).args(["--i2c", "/dev/i2c-0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Thresholds print in mW and dBm, as `ethtool -m` does. SFF-8472 Rev 12.4 Table 9-5: A2h
/// bytes 32-33 are the rx power high alarm and 34-35 its low alarm, in units of 0.1 uW.
#[test]
fn thresholds_are_shown_in_mw_and_dbm() {
    let text = std::fs::read_to_string(real_dump(SFP02)).unwrap();
    // The A2h block of the i2cdump pair: its row "20:" holds bytes 0x20-0x2f.
    let a2 = &text[text.find("### i2cdump -y 8 0x51").expect("an A2h dump")..];
    let row = a2.lines().find(|l| l.starts_with("20:")).expect("row 20 of A2h");
    let b: Vec<u16> = row.split_whitespace().skip(1).take(4).map(|h| u16::from_str_radix(h, 16).unwrap()).collect();
    let high_mw = f64::from(b[0] << 8 | b[1]) * 0.1e-3;
    let low_mw = f64::from(b[2] << 8 | b[3]) * 0.1e-3;
    let out = optics().arg("decode").arg(real_dump(SFP02)).output().unwrap();
    assert!(out.status.success());
    let report = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = report.lines().collect();
    let at = lines.iter().position(|l| l.starts_with("rx power ")).expect("an rx power threshold row");
    let mw: Vec<&str> = lines[at].split_whitespace().collect();
    let dbm: Vec<&str> = lines[at + 1].split_whitespace().collect();
    assert_eq!(mw.last(), Some(&"mW"));
    assert_eq!(dbm.last(), Some(&"dBm"));
    // low alarm, low warn, high warn, high alarm.
    assert_eq!(mw[2], format!("{low_mw:.4}"), "{}", lines[at]);
    assert_eq!(mw[5], format!("{high_mw:.4}"), "{}", lines[at]);
    let dbm_of = |mw: f64| if mw > 0.0 { format!("{:.2}", 10.0 * mw.log10()) } else { "-inf".into() };
    assert_eq!(dbm[0], dbm_of(low_mw), "{}", lines[at + 1]);
    assert_eq!(dbm[3], dbm_of(high_mw), "{}", lines[at + 1]);
}
