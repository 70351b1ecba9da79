//! A switch's view of its ports' modules, as the network team sends it back (real outputs,
//! tests/fixtures/switch/README.md): SONiC `show interfaces transceiver eeprom --dom`, Arista
//! EOS `show interfaces transceiver`, Junos `show interfaces diagnostics optics`. Each port
//! becomes an interface named as the switch names it; every value checked is read off the
//! text by hand (the README lists them).

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

const F: &str = "tests/fixtures/switch";

/// `optics import FILE -o cap`, then the module of `iface` in that capture.
fn module(file: &Path, iface: &str, dir: &Path) -> Value {
    let cap = dir.join("cap.jsonl");
    let o = optics().arg("import").arg(file).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
    let o = optics().args(["decode", "--json", "--interface", iface]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{iface}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn lanes(m: &Value, key: &str) -> Vec<Option<f64>> {
    m["lanes"].as_array().unwrap().iter().map(|l| l[key].as_f64()).collect()
}

fn close(got: &[Option<f64>], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        let g = g.unwrap_or_else(|| panic!("no value where {w} was printed: {got:?}"));
        assert!((g - w).abs() <= tol, "{got:?} vs {want:?}");
    }
}

#[test]
fn eos_rows_of_one_module_are_its_lanes() {
    let dir = tempfile::tempdir().unwrap();
    let f = Path::new(F).join("eos_show_interfaces_transceiver.txt");
    let m = module(&f, "Ethernet3/17/1", dir.path());
    close(&lanes(&m, "tx_power_dbm"), &[1.51, -0.20, 1.65], 1e-9);
    close(&lanes(&m, "rx_power_dbm"), &[-0.10, -0.20, -0.72], 1e-9);
    close(&lanes(&m, "tx_bias_ma"), &[36.64, 36.94, 37.42], 1e-9);
    assert_eq!((m["module_temperature_c"].as_f64(), m["supply_voltage_v"].as_f64()), (Some(35.61), Some(3.21)));
    // Et3/1/1: Tx printed N/A is no value, not 0 (nor -inf).
    let m = module(&f, "Ethernet3/1/1", dir.path());
    assert_eq!(lanes(&m, "tx_power_dbm"), [None]);
    close(&lanes(&m, "rx_power_dbm"), &[-2.39], 1e-9);
    // Et5/29/1: every cell N/A.
    let m = module(&f, "Ethernet5/29/1", dir.path());
    assert!(m["module_temperature_c"].is_null() && lanes(&m, "rx_power_dbm").iter().all(Option::is_none), "{m}");
}

#[test]
fn eos_detail_gives_the_thresholds_too() {
    let dir = tempfile::tempdir().unwrap();
    let f = Path::new(F).join("eos_show_interfaces_transceiver_detail.txt");
    let m = module(&f, "Ethernet6/1", dir.path());
    close(&lanes(&m, "tx_power_dbm"), &[-2.39, -2.33, -0.78, -0.93], 1e-9);
    close(&lanes(&m, "rx_power_dbm"), &[-0.90, -0.94, -1.00, -0.83], 1e-9);
    assert_eq!((m["module_temperature_c"].as_f64(), m["supply_voltage_v"].as_f64()), (Some(27.48), Some(3.30)));
    let t = &m["thresholds"];
    // EOS prints high alarm, high warn, low alarm, low warn.
    assert_eq!(
        (t["temperature_c"]["high_alarm"].as_f64(), t["temperature_c"]["high_warning"].as_f64(), t["temperature_c"]["low_alarm"].as_f64()),
        (Some(80.0), Some(75.0), Some(-5.0))
    );
    // dBm kept in mW: 10^(-9.6/10) = 0.10965, 10^(-11.5/10) = 0.07079.
    assert!((t["tx_power_mw"]["low_alarm"].as_f64().unwrap() - 0.10965).abs() < 1e-5, "{t}");
    assert!((t["rx_power_mw"]["low_alarm"].as_f64().unwrap() - 0.07079).abs() < 1e-5, "{t}");
    // Et29/1..4 print only their bias: one module of four lanes.
    let m = module(&f, "Ethernet29/1", dir.path());
    close(&lanes(&m, "tx_bias_ma"), &[21.90; 4], 1e-9);
    let m = module(&f, "Ethernet7/1", dir.path());
    close(&lanes(&m, "rx_power_dbm"), &[-1.15], 1e-9);
}

#[test]
fn sonic_sfpshow_as_a_web_page_renders_it() {
    let dir = tempfile::tempdir().unwrap();
    let m = module(&Path::new(F).join("sonic_transceiver_eeprom_dom.txt"), "0/0", dir.path());
    assert_eq!(
        (m["vendor_name"].as_str(), m["vendor_pn"].as_str(), m["vendor_sn"].as_str()),
        (Some("Teraspek"), Some("TSQ885S101T1"), Some("22070073"))
    );
    // "QSFP28 or later": SFF-8024 0x11, an SFF-8636 module.
    assert_eq!(m["identifier"], 0x11);
    close(&lanes(&m, "rx_power_dbm"), &[0.8422, 0.6971, 1.6414, 1.1458], 1e-9);
    close(&lanes(&m, "tx_bias_ma"), &[6.0740, 6.2960, 5.9220, 6.5100], 1e-9);
    // No TXnPower line: no Tx power.
    assert!(lanes(&m, "tx_power_dbm").iter().all(Option::is_none));
    assert_eq!((m["module_temperature_c"].as_f64(), m["supply_voltage_v"].as_f64()), (Some(32.957), Some(3.2961)));
    // Rx thresholds printed in dBm, kept in mW: 10^(4.4/10) = 2.7542, 10^(-13.2975/10) = 0.04680.
    let rx = &m["thresholds"]["rx_power_mw"];
    assert!((rx["high_alarm"].as_f64().unwrap() - 2.7542).abs() < 1e-4, "{rx}");
    assert!((rx["low_alarm"].as_f64().unwrap() - 0.04680).abs() < 1e-5, "{rx}");
    assert_eq!(m["thresholds"]["tx_bias_ma"]["high_warning"].as_f64(), Some(8.5));
}

#[test]
fn sonic_sfpshow_indented_as_the_switch_prints_it_reads_the_same() {
    let dir = tempfile::tempdir().unwrap();
    // The same port with sfpshow's own indentation (8 spaces, 16 under a section heading).
    let text = std::fs::read_to_string(Path::new(F).join("sonic_transceiver_eeprom_dom.txt")).unwrap();
    let mut indented = String::new();
    let mut in_values = false;
    for l in text.lines() {
        let pad = if l.contains("SFP EEPROM detected") || l.starts_with("sonic#") {
            in_values = false;
            ""
        } else if l.ends_with(':') {
            in_values = l.ends_with("Values:");
            "        "
        } else if in_values {
            "                "
        } else {
            "        "
        };
        indented.push_str(&format!("{pad}{l}\n"));
    }
    let f = dir.path().join("sfpshow.txt");
    std::fs::write(&f, indented).unwrap();
    let m = module(&f, "0/0", dir.path());
    close(&lanes(&m, "rx_power_dbm"), &[0.8422, 0.6971, 1.6414, 1.1458], 1e-9);
    assert_eq!(m["vendor_sn"], "22070073");
}

#[test]
fn sonic_without_dom_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    // The same port as `show interfaces transceiver eeprom` prints it without `--dom`: the
    // identity lines, up to the monitor sections.
    let text = std::fs::read_to_string(Path::new(F).join("sonic_transceiver_eeprom_dom.txt")).unwrap();
    let identity: String = text.lines().take_while(|l| !l.starts_with("ChannelMonitorValues")).map(|l| format!("{l}\n")).collect();
    let f = dir.path().join("eeprom.txt");
    std::fs::write(&f, identity).unwrap();
    let o = optics().arg("import").arg(&f).arg("-o").arg(dir.path().join("c.jsonl")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("0/0: identity only, no DOM printed: run `show interfaces transceiver eeprom --dom 0/0`"), "{err}");
}

#[test]
fn junos_lanes_are_numbered_from_one() {
    let dir = tempfile::tempdir().unwrap();
    let m = module(&Path::new(F).join("junos_diagnostics_optics_et.txt"), "et-0/0/0", dir.path());
    // `Lane 0..3` are lanes 1-4.
    close(&lanes(&m, "tx_power_mw"), &[1.348, 1.248, 1.262, 1.432], 1e-9);
    close(&lanes(&m, "rx_power_mw"), &[1.267, 1.180, 1.250, 1.368], 1e-9);
    close(&lanes(&m, "tx_bias_ma"), &[132.255; 4], 1e-9);
    assert_eq!((m["module_temperature_c"].as_f64(), m["supply_voltage_v"].as_f64()), (Some(48.0), Some(3.334)));
    assert_eq!(m["thresholds"]["rx_power_mw"]["low_alarm"].as_f64(), Some(0.0437));
    assert_eq!(m["thresholds"]["tx_bias_ma"]["high_alarm"].as_f64(), Some(175.0));
    let m = module(&Path::new(F).join("junos_diagnostics_optics_xe.txt"), "xe-0/1/7", dir.path());
    close(&lanes(&m, "tx_power_mw"), &[0.6560], 1e-9);
    close(&lanes(&m, "rx_power_mw"), &[0.5866], 1e-9);
    assert_eq!(m["module_temperature_c"].as_f64(), Some(36.0));
}

/// Junos prints no form factor: none is made up for the module (no identifier, name or
/// standard: JSON nulls, no "Unknown or unspecified", no "CMIS"), and the scan text, the
/// decode listing and the Markdown report say it was not printed.
#[test]
fn a_module_printed_without_its_form_factor_is_said_so_and_nothing_made_up() {
    let dir = tempfile::tempdir().unwrap();
    let m = module(&Path::new(F).join("junos_diagnostics_optics_xe.txt"), "xe-0/1/7", dir.path());
    assert_eq!((&m["standard"], &m["identifier"], &m["identifier_name"]), (&Value::Null, &Value::Null, &Value::Null), "{m}");
    let cap = dir.path().join("cap.jsonl");
    let run = |args: &[&str]| {
        let o = optics().args(args).arg(&cap).output().unwrap();
        assert!(o.status.success(), "{args:?}: {}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let v: Value = serde_json::from_str(&run(&["scan", "--json", "--replay"])).unwrap();
    let scanned = &v["interfaces"][0]["module"];
    assert_eq!((&scanned["standard"], &scanned["identifier"]), (&Value::Null, &Value::Null), "{scanned}");
    let text = run(&["scan", "--replay"]);
    let line = text.lines().find(|l| l.trim_start().starts_with("module ")).unwrap_or_else(|| panic!("{text}"));
    assert_eq!(line.split_whitespace().collect::<Vec<_>>().join(" "), "module unnamed (form factor not printed), 36.0 C");
    let listing = run(&["decode", "--interface", "xe-0/1/7"]);
    assert!(listing.contains("Standard:          form factor not printed"), "{listing}");
    assert!(listing.contains("Identifier:        not printed") && !listing.contains("Module:  "), "{listing}");
    let md = run(&["report"]);
    assert!(md.contains("- Module: form factor not printed; media: "), "{md}");
    for out in [&text, &listing, &md, &v.to_string()] {
        assert!(!out.contains("Unknown or unspecified") && !out.contains("CMIS"), "{out}");
    }
}

#[test]
fn a_switch_table_is_one_interface_per_port() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.jsonl");
    let o = optics().arg("import").arg(Path::new(F).join("eos_show_interfaces_transceiver.txt")).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&cap).unwrap();
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|r| r["interface"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    // Et3/17/1..3 are one module; the other rows one port each.
    assert_eq!(names, ["Ethernet3/1/1", "Ethernet3/17/1", "Ethernet4/21/1", "Ethernet5/29/1"]);
}

/// A Junos lane number too large for a lane is no lane (the fuzzing of every switch parser
/// lives with the other parsers', in import_never_panics).
#[test]
fn a_huge_lane_number_is_not_a_lane() {
    let f = optics::source::import::walk::parse_bytes(
        optics::source::import::Format::JunosOptics,
        b"Physical interface: et-0/0/0\n  Lane 4000000000\n    Laser output power : 1.0 mW / 0.00 dBm\n",
    )
    .unwrap();
    let m = f.ports[0].printed_module.as_ref().unwrap();
    assert!(m.tx_power_mw.is_empty(), "{m:?}");
}

#[test]
fn an_unread_file_is_told_which_switch_views_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("notes.txt");
    std::fs::write(&f, "Ethernet48 is flapping, see ticket\n").unwrap();
    let o = optics().arg("import").arg(&f).arg("-o").arg(dir.path().join("c.jsonl")).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("show interfaces transceiver eeprom --dom") && err.contains("show interfaces diagnostics optics"), "{err}");
}

/// `optics import FILE`, then `scan --json` of the capture: the interface named `iface`.
fn judged(file: &Path, iface: &str, dir: &Path) -> Value {
    let cap = dir.join("judged.jsonl");
    let o = optics().arg("import").arg(file).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}: {}", file.display(), String::from_utf8_lossy(&o.stderr));
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap_or_else(|| panic!("no {iface}")).clone()
}

#[test]
fn a_lone_switch_snapshot_with_lost_codewords_is_not_accepted() {
    // Uncorrectable codewords since an unknown clear: frames were lost at some time, so the
    // port is investigated (a second snapshot tells whether they still are), never accepted.
    // SONiC Ethernet0 prints FEC_UNCORR 34; EOS Ethernet4/1 a latest reading of 3 uncorrected
    // codewords (not a total: docs/import.md); EOS Ethernet29/1 prints 0 and is not flagged.
    let dir = tempfile::tempdir().unwrap();
    // The count is said with the tool that printed it, not the kernel's netlink statistics.
    for (file, iface, lost, tool, figures) in [
        (
            "sonic_fec_stats_pr2027.txt",
            "Ethernet0",
            Some("34 uncorrectable FEC codewords (import:sonic)"),
            "import:sonic",
            ["corrected_blocks", "uncorrectable_blocks"],
        ),
        (
            "eos_show_interfaces_phy_detail.json",
            "Ethernet4/1",
            Some("the latest reading of uncorrectable FEC codewords (import:eos) is 3, last changed at 2026-08-18T"),
            "import:eos",
            ["corrected_reading_changes", "uncorrectable_reading_changes"],
        ),
        (
            "eos_show_interfaces_phy_detail.json",
            "Ethernet29/1",
            None,
            "import:eos",
            ["corrected_reading_changes", "uncorrectable_reading_changes"],
        ),
    ] {
        let i = judged(&Path::new(F).join(file), iface, dir.path());
        let r = i["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "uncorrectable_errors");
        match lost {
            Some(said) => {
                let r = r.unwrap_or_else(|| panic!("{iface}: {i:#}"));
                assert_eq!(r["severity"], "investigate", "{r}");
                assert!(r["message"].as_str().unwrap().starts_with(said), "{r}");
                assert_ne!(i["verdict"], "accept");
            }
            None => assert!(r.is_none(), "{iface}: {r:?}"),
        }
        let sources = &i["link"]["counter_sources"];
        assert_eq!(figures.map(|f| sources[f].as_str()), [Some(tool), Some(tool)], "{iface}");
    }
}

#[test]
fn imported_fec_counters_name_their_tool_and_a_capture_without_it_still_says_netlink() {
    // Each import writes the tool into the capture's `fec.source`; mlxlink's per-lane raw
    // errors are the lanes' BER source (`ber_source` "import").
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("eos_show_interfaces_phy_detail.json", "Ethernet4/1", "eos", "uncorrectable_reading_changes"),
        ("sonic_fec_stats_pr2027.txt", "Ethernet0", "sonic", "corrected_blocks"),
        ("nvue_link_phy_detail_cl512.txt", "swp1", "nvue", "corrected_bits_per_lane"),
        ("../mlxlink/cx4_forum_show_counters.txt", "unnamed", "mlxlink", "corrected_bits_per_lane"),
    ];
    for (file, iface, tool, counter) in cases {
        let cap = dir.path().join(format!("{tool}.jsonl"));
        let o = optics().arg("import").arg(Path::new(F).join(file)).arg("-o").arg(&cap).output().unwrap();
        assert!(o.status.success(), "{file}: {}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(&cap).unwrap();
        let samples: Vec<Value> =
            text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|r| r["record"] == "sample").collect();
        assert!(samples.iter().filter(|s| s["interface"] == iface).all(|s| s["fec"]["source"] == tool), "{file}");
        let scan = |cap: &Path| -> Value {
            let o = optics().args(["scan", "--json", "--replay"]).arg(cap).output().unwrap();
            let v: Value = serde_json::from_slice(&o.stdout).unwrap();
            v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap().clone()
        };
        let i = scan(&cap);
        assert_eq!(i["link"]["counter_sources"][counter], format!("import:{tool}"), "{file}");
        if tool == "mlxlink" {
            let lane = &i["lanes"][0];
            assert_eq!(lane["ber_source"], "import", "{lane}");
        }
        // A capture written before `fec.source` existed reads as before: netlink.
        let old = dir.path().join(format!("{tool}-old.jsonl"));
        std::fs::write(&old, text.replace(&format!(",\"source\":\"{tool}\""), "")).unwrap();
        assert!(!std::fs::read_to_string(&old).unwrap().contains(&format!("\"source\":\"{tool}\"")));
        assert_eq!(scan(&old)["link"]["counter_sources"][counter], "netlink", "{file}");
    }
}
