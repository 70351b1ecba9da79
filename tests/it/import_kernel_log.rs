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

/// `scan --json` of an imported input: its interfaces.
fn scan(input: &Path) -> Vec<Value> {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("c.jsonl");
    optics().arg("import").arg(input).arg("-o").arg(&cap).assert().success();
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    serde_json::from_slice::<Value>(&o.stdout).unwrap()["interfaces"].as_array().unwrap().clone()
}

#[test]
fn a_down_links_reason_quotes_the_kernels_refusal() {
    // net03 is down (Link detected: no) and i40e states no extended state; its kernel log's
    // last word on 0000:5e:00.1 is the refusal: the reason quotes it, the advice follows it.
    let all = scan(&Path::new(M).join("i40e_dell_sfp28_refused_paste_intel-wired-lan.txt"));
    let i = &all[0];
    let r = i["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "link_flaps").unwrap();
    assert_eq!(
        r["message"],
        "link is down at the end of the window; the kernel said \"Rx/Tx is disabled on this device because an unsupported SFP module type was detected.\" (i40e, 160831.934190 s after boot)"
    );
    assert!(
        i["advice"].as_array().unwrap().iter().any(|a| a.as_str().unwrap().starts_with("the NIC refuses this module")),
        "{:#}",
        i["advice"]
    );
    assert_eq!(i["kernel_log"]["down_reason"]["event"]["kind"], "module_refused");
    assert_eq!((i["kernel_log"]["link_ups"].as_u64(), i["kernel_log"]["link_downs"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn the_kernels_bandwidth_line_is_the_pcie_link_when_nothing_else_gives_one() {
    // ens1f1 with no lspci or sysfs: the kernel's line gives 16.0 GT/s x8 of the card's x16,
    // and its link-up line the port's 25 Gb/s. The narrowest link is at 0000:0f:02.0, not at
    // the function (0000:10:00.1): the path's, so investigate, not the card-trained-down reject.
    let all = scan(&Path::new(K).join("ice-e810-sos"));
    let i = &all[0];
    let p = &i["pcie"];
    assert_eq!((p["current_width"].as_u64(), p["max_width"].as_u64()), (Some(8), Some(16)));
    assert_eq!((p["current_speed_gts"].as_f64(), p["from_kernel_log"].as_bool()), (Some(16.0), Some(true)));
    assert_eq!(p["kernel_limited_at"], "0000:0f:02.0");
    // 16 GT/s x 8 x 128/130 x 0.92 = 115.948 Gb/s, over the port's 25 Gb/s.
    assert!((p["ceiling_gbps"].as_f64().unwrap() - 115.948).abs() < 1e-3, "{p:#}");
    assert_eq!(p["port_speed_gbps"].as_f64(), Some(25.0));
    let r = i["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "pcie_degraded").unwrap();
    assert_eq!(r["severity"], "investigate");
    assert!(r["message"].as_str().unwrap().contains("limited by 16.0 GT/s PCIe x8 link at 0000:0f:02.0"), "{r}");
}

#[test]
fn a_few_corrected_aer_errors_on_the_function_are_a_note() {
    // The ath10k function's one report (RxErr, BadTLP, BadDLLP): said with its kinds, no reason.
    let all = scan(&Path::new(K).join("ath10k-aer"));
    let i = &all[0];
    assert!(!i["reasons"].as_array().unwrap().iter().any(|r| r["code"] == "pcie_errors"));
    let a = &i["kernel_log"]["aer"];
    assert_eq!(
        (a["corrected"].as_u64(), a["corrected_by_kind"]["receiver_error"].as_u64(), a["corrected_by_kind"]["bad_tlp"].as_u64()),
        (Some(1), Some(1), Some(1))
    );
    let notes: Vec<&str> = i["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(
        notes.contains(&"AER reported 1 corrected PCIe error(s) on the NIC function at Fri Aug 29 20:09:52 2025 (1 receiver error(s) (physical layer), 2 bad TLP/DLLP or replay(s) (data link layer)): fewer than 100, corrected by the link itself, noise unless they grow"),
        "{notes:#?}"
    );
}

#[test]
fn a_port_its_driver_refused_has_no_netdev_and_the_kernels_line_is_the_answer() {
    // The Proxmox paste (README): lspci lists both X520 ports, but ixgbe refused port 1's
    // module at probe, so no netdev exists for it and nothing names an interface. The import
    // cannot make a capture, and says what the kernel said of 0000:5f:00.1.
    let tmp = tempfile::tempdir().unwrap();
    let o = optics()
        .arg("import")
        .arg(Path::new(K).join("ixgbe_x520_port_refused_pve_paste.txt"))
        .arg("-o")
        .arg(tmp.path().join("c.jsonl"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("the kernel log says: 0000:5f:00.1 (ixgbe): \"failed to load because an unsupported SFP+ or QSFP module type was detected.     # 报错提示\" (3.021043 s after boot)"),
        "{err}"
    );
    assert!(!err.contains("0000:5f:00.0 (ixgbe): \""), "{err}");
}
