//! SONiC `sfputil show eeprom-hexdump` of one port or many (tests/fixtures/sfputil-hexdump/,
//! sources in its README): each `EEPROM hexdump for port X` is port X's module; `decode` of
//! a dump of several ports asks for `--port` instead of decoding the last one. Values are
//! worked out from the bytes by hand (SFF-8636 Rev 2.11 Table 6-15, SFF-8472 Rev 12.4
//! Tables 4-1 and 9-11).

use crate::support::optics;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/sfputil-hexdump").join(name)
}

fn json(out: &std::process::Output) -> Value {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The SFF-8472 port (Ethernet256): A0h vendor name 20-35 `FINISAR CORP.`, SN 68-83
/// `AUJ0RCJ`; A2h (internally calibrated, A0h byte 92 = 0x68 has bit 5) temperature 96-97 =
/// 0x1402 = 20 + 2/256 degC, Vcc 98-99 = 0x81b1 = 33201 x 100 uV, Tx bias 100-101 = 0x0d5a =
/// 3418 x 2 uA, Tx power 102-103 = 0x17a5 = 6053 x 0.1 uW, Rx power 104-105 = 0x1587 = 5511 x 0.1 uW.
fn assert_finisar(m: &Value) {
    assert_eq!(
        (m["identifier"].as_u64(), m["vendor_name"].as_str(), m["vendor_sn"].as_str()),
        (Some(3), Some("FINISAR CORP."), Some("AUJ0RCJ"))
    );
    assert!((m["module_temperature_c"].as_f64().unwrap() - (20.0 + 2.0 / 256.0)).abs() < 1e-9, "{m}");
    assert!((m["supply_voltage_v"].as_f64().unwrap() - 3.3201).abs() < 1e-9);
    let l = &m["lanes"][0];
    assert!((l["tx_bias_ma"].as_f64().unwrap() - 6.836).abs() < 1e-9);
    assert!((l["tx_power_mw"].as_f64().unwrap() - 0.6053).abs() < 1e-9);
    assert!((l["rx_power_mw"].as_f64().unwrap() - 0.5511).abs() < 1e-9);
}

#[test]
fn decode_of_several_ports_asks_for_port() {
    let out = optics().arg("decode").arg(fixture("two_ports_sff8636_sff8472.txt")).output().unwrap();
    assert!(!out.status.success(), "decoded as one module");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 ports (Ethernet0, Ethernet256)") && err.contains("--port"), "{err}");
    assert!(out.stdout.is_empty(), "nothing decoded: {}", String::from_utf8_lossy(&out.stdout));
    // The same for sfputil's own dump of every port.
    let out = optics().arg("decode").arg(fixture("all_ports_counting_bytes.txt")).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("(Ethernet0, Ethernet4)"));
}

#[test]
fn decode_port_decodes_that_one() {
    let f = fixture("two_ports_sff8636_sff8472.txt");
    // Ethernet0 is the SFF-8636 one: identifier 0x0d, vendor name bytes 148-163 `Molex Inc.`,
    // PN 168-183 `1110401054`, SN 196-211 `611030929`, date code 212-219 `160419`.
    let m = json(&optics().arg("decode").arg(&f).args(["--port", "Ethernet0", "--json"]).output().unwrap());
    assert_eq!(
        (m["identifier"].as_u64(), m["vendor_name"].as_str(), m["vendor_pn"].as_str()),
        (Some(0x0d), Some("Molex Inc."), Some("1110401054"))
    );
    assert_eq!((m["vendor_sn"].as_str(), m["date_code"].as_str()), (Some("611030929"), Some("160419")));
    assert_finisar(&json(&optics().arg("decode").arg(&f).args(["--port", "Ethernet256", "--json"]).output().unwrap()));
    // A port the dump does not hold is named with the ones it does.
    let out = optics().arg("decode").arg(&f).args(["--port", "Ethernet8"]).output().unwrap();
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("Ethernet0, Ethernet256"));
    // One port's dump decodes without --port, as before.
    assert_finisar(&json(&optics().arg("decode").arg(fixture("sff8472_ethernet256.txt")).arg("--json").output().unwrap()));
}

#[test]
fn import_makes_one_interface_per_port() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let out = optics().arg("import").arg(fixture("two_ports_sff8636_sff8472.txt")).arg("-o").arg(&cap).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let m = json(&optics().args(["decode", "--json", "--interface", "Ethernet0"]).arg(&cap).output().unwrap());
    assert_eq!(m["vendor_name"], "Molex Inc.");
    assert_finisar(&json(&optics().args(["decode", "--json", "--interface", "Ethernet256"]).arg(&cap).output().unwrap()));
    // sfputil's dump of every port: Ethernet4's bytes (0x00, 0x01, .. at A0h) are no
    // module's layout: skipped with a note naming it, Ethernet0 kept.
    let out = optics().arg("import").arg(fixture("all_ports_counting_bytes.txt")).arg("-o").arg(&cap).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stderr).contains("Ethernet4: its dump is not a module image"));
}
