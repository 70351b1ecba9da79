//! The kernel log in an import (docs/import.md "The kernel log"): real `dmesg` and journal
//! lines (tests/fixtures/kernel-log/README.md) carried to the interface whose PCI function
//! they name.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

const K: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/kernel-log");
const M: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/import/ethtool_m");

/// The capture's interface records of `iface`, and import's stderr.
fn import(input: &Path, iface: &str) -> (Vec<Value>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("c.jsonl");
    let o = optics().arg("import").arg(input).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&cap).unwrap();
    let recs = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["record"] == "interface" && r["interface"] == iface)
        .collect();
    (recs, String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_bundles_dmesg_reaches_the_interface_at_its_bus_info() {
    // The E810 log (README): ens1f1 is 0000:10:00.1 by its ethtool -i bus-info.
    let (recs, said) = import(&Path::new(K).join("ice-e810-sos"), "ens1f1");
    let log = &recs[0]["host"]["kernel_log"];
    assert_eq!(log["from"], "import");
    let v = &log["value"];
    assert_eq!(v["driver"], "ice");
    let b = &v["pcie_bandwidth"];
    // 126.024 Gb/s over 16.0 GT/s x8 at 0000:0f:02.0, of 252.048 Gb/s with x16.
    assert_eq!(
        (
            b["available_mbps"].as_u64(),
            b["width"].as_u64(),
            b["limited_at"].as_str(),
            b["capable_mbps"].as_u64(),
            b["capable_width"].as_u64()
        ),
        (Some(126_024), Some(8), Some("0000:0f:02.0"), Some(252_048), Some(16))
    );
    let m = &v["messages"][0];
    assert_eq!(
        (m["event"]["kind"].as_str(), m["event"]["speed_mbps"].as_u64(), m["event"]["fec"].as_str()),
        (Some("link_up"), Some(25_000), Some("RS-FEC"))
    );
    assert_eq!(m["at"]["boot_us"], 1_258_079_089u64);
    // The other seven functions are said, not guessed at.
    assert!(
        said.contains("the kernel log speaks of 7 PCI function(s) no interface of the input is at: 0000:10:00.0 (ens1f0, ice)"),
        "{said}"
    );
}

#[test]
fn a_pasted_dmesg_is_read_and_its_refusal_lands_on_the_refused_port() {
    // The intel-wired-lan paste: `dmesg | grep -i i40e`, then ethtool net03 / -i / -m.
    let (recs, said) = import(&Path::new(M).join("i40e_dell_sfp28_refused_paste_intel-wired-lan.txt"), "net03");
    assert!(!said.contains("no known format"), "{said}");
    let m = &recs[0]["host"]["kernel_log"]["value"]["messages"];
    assert_eq!(m.as_array().unwrap().len(), 1, "{m:#}");
    assert_eq!(m[0]["event"]["kind"], "module_refused");
    assert_eq!(m[0]["text"], "Rx/Tx is disabled on this device because an unsupported SFP module type was detected.");
    // Port 0 (0000:5e:00.0, renamed net02) is in the log, not in the paste's ethtool outputs.
    assert!(said.contains("0000:5e:00.0 (net02, i40e)"), "{said}");
}

#[test]
fn a_kernel_log_alone_names_no_interface() {
    let tmp = tempfile::tempdir().unwrap();
    let o = optics()
        .arg("import")
        .arg(Path::new(K).join("aer_root_port_dmesg_T_linux-pci.txt"))
        .arg("-o")
        .arg(tmp.path().join("c.jsonl"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
}
