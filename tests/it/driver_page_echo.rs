//! A driver that answers page 00h for every page it is asked (the page select never
//! reaches the module): real module bytes laid out as such a driver returns them. The
//! case is real: intel/ethernet-linux-ice issue 14 ("ICE not able to read paged QSFP
//! EEPROM", 2024-12-09) reports ice 1.14 and later encoding the page number with the
//! field's shift instead of its mask, so "always return multiple copies of Page 00".
//! Every module byte below is from a real dump (tests/fixtures/real-dumps, sources in
//! each file's header); only the copies of page 00h are the driver's.

use crate::support::optics;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn real_dump(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(name)
}

/// Hex bytes of the rows of a dump after `rows`' first heading-free lines, read here
/// rather than by the tool's parser: `0xNN:` or `0xNNNN:` then 16 bytes.
fn rows(text: &str) -> Vec<u8> {
    text.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("0x") && !l.starts_with("0x  "))
        .filter_map(|l| l.split_once(':').map(|(_, r)| r.to_string()))
        .flat_map(|r| r.split_whitespace().map(|t| u8::from_str_radix(t, 16).unwrap()).collect::<Vec<_>>())
        .collect()
}

fn decode_json(path: &Path) -> Value {
    let out = optics().arg("decode").arg(path).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("decode --json prints JSON")
}

fn warnings(v: &Value) -> Vec<String> {
    v["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap().to_string()).collect()
}

/// The reason codes `scan --replay --json` gives the one interface of an imported image.
fn scan_reasons(image: &Path, dir: &Path) -> Vec<String> {
    let capture = dir.join("echo.jsonl");
    optics().arg("import").arg(image).arg("--interface").arg("eth0").arg("-o").arg(&capture).assert().success();
    let out = optics().args(["scan", "--json", "--replay"]).arg(&capture).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("scan --json prints JSON");
    v["interfaces"][0]["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_string()).collect()
}

#[test]
fn sff8636_page_03h_that_is_page_00h_gives_no_thresholds_and_no_alarms() {
    let text = std::fs::read_to_string(real_dump("qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt")).unwrap();
    let b = rows(&text);
    assert_eq!(b.len(), 256);
    // `ethtool -m IFACE raw on` of a paged SFF-8636 module: 640 bytes, upper pages 01h, 02h
    // and 03h at 256, 384 and 512; this driver gives page 00h's upper half at each.
    let mut raw = b.clone();
    for _ in 0..3 {
        raw.extend_from_slice(&b[128..256]);
    }
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("ice_qsfp03_640.bin");
    std::fs::write(&image, &raw).unwrap();

    let v = decode_json(&image);
    // Read as thresholds, page 00h gives levels no module has (its rx "low alarm" 0x504d,
    // bytes 178-179 "PM" of the part number, is 2.0557 mW, over its "high warning"
    // 0x2020 = 0.8224 mW): they are not decoded.
    for key in ["temperature_c", "supply_voltage_v", "rx_power_mw", "tx_power_mw", "tx_bias_ma"] {
        assert!(v["thresholds"][key].is_null(), "thresholds.{key} = {}", v["thresholds"][key]);
    }
    let w = warnings(&v);
    assert!(w.iter().any(|w| w.starts_with("page 03h reads the same as page 00h")), "{w:?}");
    // The lower page is the module's own: lane 2 rx power, bytes 36-37 = 0x1cf3 = 7411 x
    // 0.1 uW (SFF-8636 Rev 2.11 Table 6-8); lane 2 bias, bytes 44-45 = 0x0df9 = 3577 x 2 uA.
    assert_eq!(v["lanes"][1]["rx_power_mw"].as_f64(), Some(0.7411));
    assert!((v["lanes"][1]["tx_bias_ma"].as_f64().unwrap() - 7.154).abs() < 1e-9);

    // No verdict from levels that are the vendor's name read as numbers.
    let reasons = scan_reasons(&image, dir.path());
    for code in ["dom_alarm", "dom_warning", "dom_implausible"] {
        assert!(!reasons.iter().any(|r| r == code), "{reasons:?}");
    }
}

#[test]
fn cmis_pages_that_are_page_00h_are_taken_as_not_read() {
    let text = std::fs::read_to_string(real_dump("cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt"))
        .unwrap();
    let b = rows(&text);
    // Lower page, then upper pages 00h, 01h, 02h, 10h, 11h in the dump's order.
    assert_eq!(b.len(), 6 * 128);
    let (lower, p00) = (&b[..128], &b[128..256]);
    let entry = |page: u8, offset: u16, data: &[u8]| serde_json::json!({"i2c_address": 80, "page": page, "bank": 0, "offset": offset, "data": hex::encode(data)});
    let mut pages = vec![entry(0, 0, lower), entry(0, 128, p00)];
    pages.extend([0x01, 0x02, 0x10, 0x11].map(|p| entry(p, 128, p00)));
    let dir = tempfile::tempdir().unwrap();
    let image = dir.path().join("ice_cmis04.json");
    std::fs::write(&image, serde_json::json!({ "pages": pages }).to_string()).unwrap();

    let v = decode_json(&image);
    let w = warnings(&v);
    for page in ["01h", "02h", "10h", "11h"] {
        assert!(w.iter().any(|w| w.starts_with(&format!("page {page} reads the same as page 00h"))), "{page}: {w:?}");
    }
    // Page 11h read as lanes would give monitors from "Credo" and the part number, and
    // flags (a Tx fault on lane 6) from its spaces: no lane is decoded, no threshold either.
    assert_eq!(v["lanes"].as_array().unwrap().len(), 0);
    for key in ["temperature_c", "supply_voltage_v", "rx_power_mw", "tx_power_mw", "tx_bias_ma"] {
        assert!(v["thresholds"][key].is_null(), "thresholds.{key}");
    }
    // Lower memory is the module's: bytes 14-15 = 0x3344 = 13124 / 256 = 51.27 C, bytes
    // 16-17 = 0x80d4 = 32980 x 100 uV (CMIS 5.2 Table 8-10); page 00h its identity.
    assert!((v["module_temperature_c"].as_f64().unwrap() - 13124.0 / 256.0).abs() < 1e-9);
    assert!((v["supply_voltage_v"].as_f64().unwrap() - 3.298).abs() < 1e-9);
    assert_eq!(v["vendor_pn"], "CAC845301A2NC2XA");

    let reasons = scan_reasons(&image, dir.path());
    for code in ["dom_alarm", "dom_warning", "dom_implausible", "module_fault"] {
        assert!(!reasons.iter().any(|r| r == code), "{reasons:?}");
    }
}
