//! `optics decode` says what an image holds and nothing more: monitors a module does not
//! have are null, a corrupt read says so up front and fails, a partial SFF-8472 image is
//! decoded for what it holds. Images are byte-built from the specs.

use crate::support::optics;
use serde_json::{json, Value};

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn page(i2c: u8, page: u8, offset: u16, data: &[u8]) -> Value {
    json!({"i2c_address": i2c, "page": page, "bank": 0, "offset": offset, "data": hex(data)})
}

/// Runs `decode --json` on an image JSON; (exit code, JSON stdout or Null, stderr).
fn decode(image: &Value, json_out: bool) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("m.json");
    std::fs::write(&p, image.to_string()).unwrap();
    let mut c = optics();
    c.arg("decode").arg(&p);
    if json_out {
        c.arg("--json");
    }
    let o = c.output().unwrap();
    (o.status.code().unwrap(), String::from_utf8(o.stdout).unwrap(), String::from_utf8(o.stderr).unwrap())
}

fn ascii(s: &str, len: usize) -> Vec<u8> {
    let mut v = s.as_bytes().to_vec();
    v.resize(len, b' ');
    v
}

#[test]
fn a_cmis_flat_memory_passive_dac_has_no_temperature_or_vcc() {
    // CMIS 5.2: byte 0 identifier 0x18 (QSFP-DD), byte 1 revision 5.0, byte 2 bit 7 flat
    // memory, bytes 14-17 (temperature, Vcc) 0, byte 85 MediaType 03h passive copper.
    let mut lower = vec![0u8; 128];
    (lower[0], lower[1], lower[2], lower[85]) = (0x18, 0x50, 0x80, 0x03);
    // Page 00h: identifier, vendor name 129-144, PN 148-163, SN 166-181; checksum at 222
    // over 128-221 (CMIS 5.2 Table 8-28).
    let mut upper = vec![0u8; 128];
    upper[0] = 0x18;
    upper[1..17].copy_from_slice(&ascii("ACME CABLES", 16));
    upper[20..36].copy_from_slice(&ascii("AC-DAC-800G", 16));
    upper[38..54].copy_from_slice(&ascii("DAC0000001", 16));
    upper[94] = upper[..94].iter().fold(0u8, |a, b| a.wrapping_add(*b));
    let img = json!({"pages": [page(80, 0, 0, &lower), page(80, 0, 128, &upper)]});
    let (code, out, err) = decode(&img, true);
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    assert!(m["module_temperature_c"].is_null() && m["supply_voltage_v"].is_null(), "{m}");
    assert_eq!(m["vendor_sn"], "DAC0000001");
}

#[test]
fn a_corrupt_sff8472_read_says_so_first_and_fails() {
    // SFF-8472 A0h whose vendor text is garbage and whose CC_BASE (byte 63, sum of 0-62)
    // and CC_EXT (byte 95, sum of 64-94) both disagree with the bytes.
    let mut a0: Vec<u8> = (0..=255u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
    (a0[0], a0[92]) = (0x03, 0x00);
    a0[63] = a0[..63].iter().fold(0u8, |a, b| a.wrapping_add(*b)).wrapping_add(1);
    a0[95] = a0[64..95].iter().fold(0u8, |a, b| a.wrapping_add(*b)).wrapping_add(1);
    let img = json!({"pages": [page(80, 0, 0, &a0[..128]), page(80, 0, 128, &a0[128..])]});
    let (code, out, err) = decode(&img, false);
    assert_ne!(code, 0);
    assert!(out.starts_with("IMAGE CORRUPT:"), "{out}");
    assert!(err.contains("module image corrupt"), "{err}");
}

/// SFF-8472 A2h (Table 9-11): thresholds 0-39 left 0, monitors at 96-105: temperature
/// 0x2880 = 40.5 C, Vcc 0x8036 = 32822 x 100 uV = 3.2822 V, bias 0x1770 = 6000 x 2 uA =
/// 12.0 mA, tx 0x1f40 = 8000 x 0.1 uW = 0.8 mW, rx 0x1388 = 0.5 mW.
fn a2h() -> Vec<u8> {
    let mut a2 = vec![0u8; 256];
    a2[96..106].copy_from_slice(&[0x28, 0x80, 0x80, 0x36, 0x17, 0x70, 0x1f, 0x40, 0x13, 0x88]);
    a2
}

#[test]
fn an_a2h_with_only_byte_92_of_a0h_is_decoded() {
    // A0h byte 92 = 0x68: DDM implemented (bit 6), internally calibrated (bit 5), average
    // rx power (bit 3) (SFF-8472 Table 8-5); no byte 0.
    let a2 = a2h();
    let img = json!({"pages": [page(80, 0, 92, &[0x68]), page(81, 0, 0, &a2[..128]), page(81, 0, 128, &a2[128..])]});
    let (code, out, err) = decode(&img, true);
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    assert!((m["module_temperature_c"].as_f64().unwrap() - 40.5).abs() < 1e-9, "{m}");
    assert!((m["supply_voltage_v"].as_f64().unwrap() - 3.2822).abs() < 1e-9, "{m}");
    let l = &m["lanes"][0];
    assert!((l["tx_bias_ma"].as_f64().unwrap() - 12.0).abs() < 1e-9 && (l["tx_power_mw"].as_f64().unwrap() - 0.8).abs() < 1e-9, "{l}");
    assert!(m["warnings"].to_string().contains("A0h byte 0 absent"), "{}", m["warnings"]);
    // Byte 0 was not read: no identifier, not 0x00 "Unknown or unspecified".
    assert!(m["identifier"].is_null() && m["identifier_name"].is_null() && m["form_factor"].is_null(), "{m}");
    let (code, text, err) = decode(&img, false);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("Identifier:        not read (byte 0 absent)"), "{text}");
}

#[test]
fn an_all_zero_a2h_is_called_what_it_is() {
    // A driver's stand-in A2h: 256 zero bytes. Not 0 C, 0 V, 0 mW.
    let zero = vec![0u8; 128];
    let img = json!({"pages": [page(80, 0, 0, &[0x03]), page(80, 0, 92, &[0x68]), page(81, 0, 0, &zero), page(81, 0, 128, &zero)]});
    let (code, out, err) = decode(&img, true);
    assert_eq!(code, 0, "{err}");
    let m: Value = serde_json::from_str(&out).unwrap();
    assert!(m["module_temperature_c"].is_null() && m["supply_voltage_v"].is_null(), "{m}");
    assert!(m["lanes"][0]["tx_power_mw"].is_null() && m["lanes"][0]["rx_power_mw"].is_null(), "{m}");
    assert!(m["warnings"].to_string().contains("A2h is all zero"), "{}", m["warnings"]);
}
