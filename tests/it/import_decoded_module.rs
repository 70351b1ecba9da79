//! Decoded `ethtool -m` text and `ethtool --json -m` (real ethtool 6.1 / 7.2 output of real
//! module bytes, tests/fixtures/import/ethtool_m/README.md) read by `optics import` and
//! `optics decode`: the module they give equals `optics decode` of the same module's bytes in
//! identity, monitors (within the printed precision), thresholds and flags, on every pair.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

const D: &str = "tests/fixtures/real-dumps";
const M: &str = "tests/fixtures/import/ethtool_m";

/// Every module whose bytes and decoded output we both have: (decoded file, bytes file).
const PAIRS: &[(&str, &str)] = &[
    ("cmis04.ethtool61.txt", "cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt"),
    ("cmis04.ethtool72.json", "cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt"),
    ("qsfp03.ethtool72.json", "qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt"),
    ("qsfp04.ethtool72.json", "qsfp04_lumentum_LQ210CR-CAA1_qsfp28_100g_cwdm4_sffdb_lower_p00.txt"),
    ("qsfp05.ethtool72.json", "qsfp05_dell_3MFXG_qsfp28_100g_lr4_sffdb_lower_p00.txt"),
    ("qsfp06.ethtool61.txt", "qsfp06_amphenol_NDAAFF-C103_qsfp28_100g_cr4_dac_3m_sffdb_lower_p00.txt"),
    ("qsfp06.ethtool72.json", "qsfp06_amphenol_NDAAFF-C103_qsfp28_100g_cr4_dac_3m_sffdb_lower_p00.txt"),
    ("qsfp07.ethtool72.json", "qsfp07_finisar_FCBN425QB1C03_qsfp28_100g_aoc_3m_sffdb_lower_p00.txt"),
    ("qsfp08.ethtool72.json", "qsfp08_avago_AFBR-79EQDZ_qsfp+_40g_sr4_sffdb_lower_p00.txt"),
    ("qsfp09.ethtool72.json", "qsfp09_finisar_FTL4C1QE1C_qsfp+_40g_lr4_sffdb_lower_p00.txt"),
    ("qsfp10.ethtool72.json", "qsfp10_jdsu_JQP-04LWBA2_qsfp+_40g_lr4_sffdb_lower_p00.txt"),
    ("sfp02.ethtool61.txt", "sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt"),
    ("sfp02.ethtool72.json", "sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt"),
];

fn decode_json(path: &Path) -> Value {
    let o = optics().args(["decode", "--json"]).arg(path).output().unwrap();
    assert!(o.status.success(), "{}: {}", path.display(), String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// `optics import DECODED -o c.jsonl`, then the module of that capture.
fn imported(decoded: &Path, dir: &Path) -> Value {
    let cap = dir.join(format!("{}.jsonl", decoded.file_name().unwrap().to_string_lossy()));
    let o = optics().arg("import").arg(decoded).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}: {}", decoded.display(), String::from_utf8_lossy(&o.stderr));
    decode_json(&cap)
}

/// ethtool's printed precision per quantity: text `%.4f` mW / V, `%.3f` mA, `%.2f` degC;
/// its JSON prints temperature to 4 decimals, the rest as the text does. Half a printed
/// unit, plus float slack.
fn close(a: &Value, b: &Value, tol: f64, what: &str) {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => assert!((x - y).abs() <= tol + 1e-9, "{what}: printed {x} vs decoded {y}"),
        _ => assert_eq!(a.is_null(), b.is_null(), "{what}: printed {a} vs decoded {b}"),
    }
}

/// Flags compared as a set: ethtool prints them in its table's order, the decoder in the spec's bit order.
fn sorted(v: &Value) -> Vec<String> {
    let mut f: Vec<String> = v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect();
    f.sort();
    f
}

fn same_module(p: &Value, d: &Value, what: &str) {
    for k in ["standard", "identifier", "vendor_name", "vendor_pn", "vendor_sn", "vendor_rev", "vendor_oui", "date_code", "connector"] {
        assert_eq!(p[k], d[k], "{what}: {k}");
    }
    close(&p["wavelength_nm"], &d["wavelength_nm"], 0.0, &format!("{what}: wavelength"));
    close(&p["module_temperature_c"], &d["module_temperature_c"], 0.005, &format!("{what}: temperature"));
    close(&p["supply_voltage_v"], &d["supply_voltage_v"], 0.00005, &format!("{what}: voltage"));
    assert_eq!(p["module_state"], d["module_state"], "{what}: module state");
    assert_eq!(p["low_power_controls"], d["low_power_controls"], "{what}: LowPwrRequestSW / LowPwrAllowRequestHW");
    assert_eq!(sorted(&p["module_flags"]), sorted(&d["module_flags"]), "{what}: module flags");
    for (name, tol) in [
        ("temperature_c", 0.005),
        ("supply_voltage_v", 0.00005),
        ("rx_power_mw", 0.00005),
        ("tx_power_mw", 0.00005),
        ("tx_bias_ma", 0.0005),
    ] {
        let (a, b) = (&p["thresholds"][name], &d["thresholds"][name]);
        assert_eq!(a.is_null(), b.is_null(), "{what}: threshold set {name}: printed {a} vs decoded {b}");
        for sev in ["high_alarm", "low_alarm", "high_warning", "low_warning"] {
            close(&a[sev], &b[sev], tol, &format!("{what}: {name}.{sev}"));
        }
    }
    // Lanes: every monitor ethtool printed equals the decoded one; the decoder's lanes whose
    // monitors were not printed (a module without DOM) stay unprinted, not invented.
    let pl = p["lanes"].as_array().unwrap();
    let dl = d["lanes"].as_array().unwrap();
    for (i, l) in pl.iter().enumerate() {
        let dlane = &dl[i];
        for (k, tol) in [("rx_power_mw", 0.00005), ("tx_power_mw", 0.00005), ("tx_bias_ma", 0.0005)] {
            close(&l[k], &dlane[k], tol, &format!("{what}: lane {} {k}", i + 1));
        }
        assert_eq!(sorted(&l["flags"]), sorted(&dlane["flags"]), "{what}: lane {} flags", i + 1);
    }
    let decoded_monitored = dl.iter().filter(|l| !l["rx_power_mw"].is_null() || !l["tx_bias_ma"].is_null()).count();
    let printed_monitored = pl.iter().filter(|l| !l["rx_power_mw"].is_null() || !l["tx_bias_ma"].is_null()).count();
    assert_eq!(printed_monitored, decoded_monitored, "{what}: lanes with monitors");
}

#[test]
fn decoded_ethtool_m_equals_decode_of_the_same_bytes_on_every_pair() {
    let dir = tempfile::tempdir().unwrap();
    for (decoded, bytes) in PAIRS {
        let dpath = Path::new(M).join(decoded);
        let from_bytes = decode_json(&Path::new(D).join(bytes));
        let direct = decode_json(&dpath);
        same_module(&direct, &from_bytes, &format!("decode {decoded}"));
        let via_import = imported(&dpath, dir.path());
        same_module(&via_import, &from_bytes, &format!("import {decoded}"));
        assert!(
            via_import["warnings"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("as printed by ethtool -m")),
            "{decoded}: marked as printed values: {}",
            via_import["warnings"]
        );
    }
}

#[test]
fn sfp_monitors_as_the_a2h_bytes_give_them() {
    // sfp02 A2h row 0x60: 42 33 7f ca 0b b8 13 92 13 92 (SFF-8472 Rev 12.4 Table 9-11, 9-16):
    // temperature 0x4233 / 256 = 66.199 degC, Vcc 0x7fca = 32714 x 100 uV = 3.2714 V,
    // bias 0x0bb8 = 3000 x 2 uA = 6.000 mA, Tx and Rx 0x1392 = 5010 x 0.1 uW = 0.5010 mW.
    let m = decode_json(&Path::new(M).join("sfp02.ethtool61.txt"));
    assert_eq!(m["standard"], "SFF-8472");
    assert_eq!(m["vendor_pn"], "SFP-10G-T8");
    assert!((m["module_temperature_c"].as_f64().unwrap() - 66.20).abs() < 0.006);
    assert_eq!(m["supply_voltage_v"].as_f64(), Some(3.2714));
    let l = &m["lanes"][0];
    assert_eq!(l["tx_bias_ma"].as_f64(), Some(6.0));
    assert_eq!(l["rx_power_mw"].as_f64(), Some(0.501));
    assert_eq!(l["tx_power_mw"].as_f64(), Some(0.501));
    assert_eq!(m["rx_power_type"], "average");
}

#[test]
fn a_ticket_paste_of_a_module_with_alarms_on_keeps_its_flags() {
    // dec10: decoded ethtool -m of a bnxt_en SFP+ pasted with the flags ethtool printed On:
    // bias high alarm, Tx power low alarm, temperature low alarm, voltage low alarm.
    let m = decode_json(&Path::new(M).join("dec10_bnxt_sfp10gsr85_ethtool_m_decoded_go-ethtool-metrics.txt"));
    assert_eq!(m["vendor_pn"], "SFP-10GSR-85");
    assert_eq!(m["module_flags"], serde_json::json!(["temperature_low_alarm", "supply_voltage_low_alarm"]));
    assert_eq!(m["lanes"][0]["flags"], serde_json::json!(["tx_bias_high_alarm", "tx_power_low_alarm"]));
    // Printed 2.7310 mW / 4.36 dBm.
    assert_eq!(m["lanes"][0]["rx_power_mw"].as_f64(), Some(2.731));
    assert_eq!(m["thresholds"]["tx_bias_ma"]["high_alarm"].as_f64(), Some(15.39));
}

#[test]
fn a_module_whose_diagnostics_cannot_be_so_is_investigated_not_rejected_on_them() {
    // dec10 prints a supply of 0.2287 V: a module that answers runs at 3.3 V +- 5 %
    // (3.135-3.465 V), so its converter reads nonsense. Its levels say the same: temperature
    // low alarm 7.06 C over its high alarm 3.02 C, rx and tx power alarms all 0.8224 mW (no
    // room between low and high). Its "alarms" are artefacts: no dom_alarm, no optical
    // margin over a meaningless level, and the verdict is investigate, not reject.
    let (all, _) = import_and_scan(&Path::new(M).join("dec10_bnxt_sfp10gsr85_ethtool_m_decoded_go-ethtool-metrics.txt"));
    let i = &all[0];
    assert_eq!(i["verdict"], "investigate", "{i:#}");
    let codes = codes(i);
    assert!(codes.contains(&"dom_implausible") && !codes.contains(&"dom_alarm"), "{codes:?}");
    let why = i["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "dom_implausible").unwrap();
    assert_eq!(why["severity"], "investigate");
    let msg = why["message"].as_str().unwrap();
    for said in ["supply 0.23 V", "temperature low alarm 7.06 C is not under its high alarm 3.02 C", "tx power low alarm 0.8224 mW"] {
        assert!(msg.contains(said), "{said}: {msg}");
    }
    assert!(i["lanes"][0]["optical_margin_db"].is_null(), "{:#}", i["lanes"][0]);
    // The module keeps what it printed: decode is a faithful record, only the judgement sets it aside.
    assert_eq!(i["module"]["supply_voltage_v"].as_f64(), Some(0.2287));
}

#[test]
fn two_modules_in_one_paste_are_refused_with_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let one = std::fs::read_to_string(Path::new(M).join("sfp02.ethtool61.txt")).unwrap();
    let two = dir.path().join("two.txt");
    std::fs::write(&two, format!("{one}{one}")).unwrap();
    let o = optics().args(["decode", "--json"]).arg(&two).output().unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("each module") && err.contains("own file"), "{err}");
}

#[test]
fn a_limit_flag_its_own_reading_does_not_bear_out_is_investigated_not_rejected() {
    // The i40e paste prints "Laser bias current low alarm : On" with a bias of 6.090 mA, while
    // its own levels are low alarm 2.000 mA and low warning 3.000 mA: the reading is 3.09 mA
    // past even the warning on the low side. The flag is an earlier event the module kept (or
    // a wrong flag), not a laser under its limit now: no dom_alarm, no swap advice.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("i40e.jsonl");
    // With the port's `ethtool eth0` (speed only, no lane count): the SFP's one lane.
    let src = Path::new(M).join("i40e_fs_sfp10gsr85_ethtool_m_decoded_go-ethtool-metrics.txt");
    let link = Path::new(M).join("i40e_fs_sfp10gsr85_ethtool_link_go-ethtool-metrics.txt");
    optics().arg("import").arg(&src).arg(&link).args(["--interface", "eth0", "-o"]).arg(&cap).assert().success();
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let i = &v["interfaces"][0];
    assert_eq!(i["verdict"], "investigate", "{i:#}");
    let reasons = i["reasons"].as_array().unwrap();
    assert!(!reasons.iter().any(|r| r["code"] == "dom_alarm"), "{reasons:?}");
    let why = reasons.iter().find(|r| r["code"] == "dom_flag_unconfirmed").expect("dom_flag_unconfirmed");
    assert_eq!((why["severity"].as_str(), why["lane"].as_u64()), (Some("investigate"), Some(1)));
    let msg = why["message"].as_str().unwrap();
    assert!(msg.contains("tx_bias_low_alarm") && msg.contains("tx bias reads 6.09 mA, inside its low warning 3.00 mA"), "{msg}");
    // The flag stays in the module record: decode is a faithful record.
    assert_eq!(i["module"]["lanes"][0]["flags"], serde_json::json!(["tx_bias_low_alarm"]));
    let advice = i["advice"].as_array().unwrap();
    assert!(!advice.iter().any(|a| a.as_str().unwrap().contains("swap")), "{advice:?}");
    let lane_advice = i["lanes"][0]["advice"].as_str().unwrap();
    assert!(lane_advice.starts_with("lane 1: read the module's flags again") && !lane_advice.contains("swap"), "{lane_advice}");
    // 10000 Mb/s with no lane count from the kernel: one lane of 10GBASE-R, 10.3125 Gb/s
    // (64b/66b, IEEE 802.3 Clause 49), not "an unknown lane rate".
    assert_eq!((i["link"]["lanes"].as_u64(), i["link"]["lane_rate_gbps"].as_f64()), (Some(1), Some(10.3125)), "{:#}", i["link"]);
    assert!(!reasons.iter().any(|r| r["message"].as_str().unwrap().contains("not a lane rate")), "{reasons:?}");
}

#[test]
fn lanes_dark_at_both_ends_beside_a_lit_one_are_switched_off_not_failing() {
    // The mlx4 paste (README): lane 1 lit (6.662 mA, -1.48 dBm out, -1.15 dBm in), lanes 2-4
    // at 0.000 mA, 0 mW out, 0 mW in, every flag Off. Under the module's bias low alarm
    // (0.500 mA) by the numbers, but a laser that draws nothing and a receiver that gets
    // nothing is a lane switched off (a QSFP+ in a one-lane mode, or its transmitter
    // disabled), not three dead lasers: no dom_alarm, no swap, the lanes named in a note.
    let i = &scan_imported(&Path::new(M).join("mlx4_avago_qsfp_sr4_lanes_2-4_dark_lore-netdev.txt"), "eth2");
    assert_ne!(i["verdict"], "reject", "{i:#}");
    let reasons = i["reasons"].as_array().unwrap();
    assert!(!reasons.iter().any(|r| r["code"] == "dom_alarm" || r["code"] == "dom_warning"), "{reasons:?}");
    assert!(i["lanes"].as_array().unwrap().iter().all(|l| l["flags"].as_array().unwrap().is_empty()), "{:#}", i["lanes"]);
    let advice = i["advice"].as_array().unwrap();
    assert!(!advice.iter().any(|a| a.as_str().unwrap().contains("swap")), "{advice:?}");
    let notes = i["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().starts_with("lanes 2-4 dark")), "{notes:?}");
}

/// `scan --json` of one input (a file or a snapshot folder) imported as `iface`.
/// `optics import INPUT` with no `--interface` (the input names its ports), then `scan
/// --json` of it: every interface, and what import said on stderr.
fn import_and_scan(input: &Path) -> (Vec<Value>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap.jsonl");
    let o = optics().arg("import").arg(input).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let scan = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v = serde_json::from_slice::<Value>(&scan.stdout).unwrap();
    (v["interfaces"].as_array().unwrap().clone(), String::from_utf8_lossy(&o.stderr).into_owned())
}

/// The reason codes of a scanned interface.
fn codes(i: &Value) -> Vec<&str> {
    i["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect()
}

fn scan_imported(input: &Path, iface: &str) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("cap.jsonl");
    optics().arg("import").arg(input).args(["--interface", iface, "-o"]).arg(&cap).assert().success();
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    serde_json::from_slice::<Value>(&o.stdout).unwrap()["interfaces"][0].clone()
}

#[test]
fn a_nic_that_refuses_the_module_keeps_it_dark_and_says_why_not_four_dead_lasers() {
    // The real ConnectX-4 / Finisar CWDM4 pair (README): the NIC says "Cable issue,
    // Unsupported cable" (uapi ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE, _CI_UNSUPPORTED_CABLE) and
    // every lane reads 0 mA and 0.1 µW both ways with its low alarms On. The port is down
    // by the NIC's choice: rejected for the link, with the NIC's reason and what to do about
    // it, not twelve laser alarms and "swap the module" four times.
    let i = scan_imported(&Path::new(M).join("cx4_finisar_cwdm4_at_40g/refused"), "ens16f1np1");
    assert_eq!(i["verdict"], "reject", "{i:#}");
    assert_eq!((i["link"]["up"].as_bool(), i["link"]["ext_state"].as_str()), (Some(false), Some("cable issue")));
    assert_eq!(i["link"]["ext_substate"], "Unsupported cable");
    let reasons = i["reasons"].as_array().unwrap();
    let down = reasons.iter().find(|r| r["code"] == "link_flaps").expect("link_flaps");
    assert_eq!(down["message"], "link is down at the end of the window (cable issue: Unsupported cable)");
    assert!(
        !reasons.iter().any(|r| ["dom_alarm", "dom_warning", "dom_flag_unconfirmed"].contains(&r["code"].as_str().unwrap())),
        "{reasons:?}"
    );
    let advice: Vec<&str> = i["advice"].as_array().unwrap().iter().map(|a| a.as_str().unwrap()).collect();
    assert!(advice.iter().any(|a| a.starts_with("the NIC refuses this module or cable (unsupported cable)")), "{advice:?}");
    assert!(i["lanes"].as_array().unwrap().iter().all(|l| l["advice"].is_null()), "{:#}", i["lanes"]);
    let notes = i["notes"].as_array().unwrap();
    assert!(notes.iter().any(|n| n.as_str().unwrap().starts_with("every lane dark (1-4")), "{notes:?}");
    // The port was forced to 40G ("Advertised link modes: 40000baseKR4/Full ... LR4/Full",
    // autonegotiation off) and the module is a 100G CWDM4 (SFF-8636 byte 131 bit 7's
    // extended code, "100G CWDM4 MSA with FEC"): four 25G lanes multiplexed, no 10G lane
    // rate, so no 40G. The port supports 100000baseLR4_ER4 and more, so it is the setting.
    let speed = reasons.iter().find(|r| r["code"] == "module_speed_mismatch").expect("module_speed_mismatch");
    let msg = speed["message"].as_str().unwrap();
    assert!(msg.starts_with("the port is set to 40G (40000baseKR4/Full 40000baseCR4/Full 40000baseSR4/Full 40000baseLR4/Full)"), "{msg}");
    assert!(msg.contains("100G") && !msg.contains("runs 40G"), "{msg}");
    // The two files given as two arguments, in either order, are the same moment as the folder.
    let refused = Path::new(M).join("cx4_finisar_cwdm4_at_40g/refused");
    for files in [["ethtool_m.txt", "ethtool.txt"], ["ethtool.txt", "ethtool_m.txt"]] {
        let tmp = tempfile::tempdir().unwrap();
        let cap = tmp.path().join("cap.jsonl");
        let mut import = optics();
        import.arg("import").args(files.map(|f| refused.join(f)));
        import.args(["--interface", "ens16f1np1", "-o"]).arg(&cap).assert().success();
        let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
        let two = &serde_json::from_slice::<Value>(&o.stdout).unwrap()["interfaces"][0];
        assert_eq!((&two["verdict"], &two["reasons"], &two["link"]), (&i["verdict"], &i["reasons"], &i["link"]), "{files:?}");
    }

    // Recoded, the same module lights all four lanes at 40G: 4 x 10G lanes (40000 / 4 is
    // 10GBASE-R's rate, IEEE 802.3 Clause 49 lanes of XLAUI), nothing dark, no alarm.
    let i = scan_imported(&Path::new(M).join("cx4_finisar_cwdm4_at_40g/recoded"), "ens16f1np1");
    assert_eq!((i["link"]["lanes"].as_u64(), i["link"]["lane_rate_gbps"].as_f64()), (Some(4), Some(10.3125)), "{:#}", i["link"]);
    let reasons = i["reasons"].as_array().unwrap();
    assert!(
        !reasons.iter().any(|r| ["dom_alarm", "link_flaps", "module_speed_mismatch"].contains(&r["code"].as_str().unwrap())),
        "{reasons:?}"
    );
    assert!(!i["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("dark")));
}

#[test]
fn a_cmis_module_held_in_low_power_is_not_ready_not_accepted() {
    // The netdev patch's example (README): Module State 0x01 (ModuleLowPwr) after the host
    // set low power. CMIS 5.2 Table 8-7: no data path runs short of ModuleReady.
    let i = &scan_imported(&Path::new(M).join("cmis_qsfpdd_low_power_excerpt_netdev.txt"), "swp11");
    assert_eq!(i["module"]["module_state"], "ModuleLowPwr");
    let r = i["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "module_not_ready").expect("module_not_ready");
    assert_eq!(r["severity"], "investigate");
    assert_ne!(i["verdict"], "accept");
    // Printed `LowPwrRequestSW : On`, `LowPwrAllowRequestHW : Off`: the host's software
    // request holds the module low (CMIS 5.2 6.3.2), and the reason says so.
    assert_eq!(i["module"]["low_power_controls"], serde_json::json!({"request_sw": true, "allow_request_hw": false}));
    assert!(r["message"].as_str().unwrap().contains("LowPwrRequestSW is set"), "{r}");
}

#[test]
fn a_module_that_reads_all_ones_is_not_believed_and_the_pasted_prompt_names_the_port() {
    // Cumulus RMP 3.2.1's guide (README): `cumulus@switch:~$ sudo ethtool -m swp49` and every
    // byte 0xff. The prompt names the port (no --interface); a supply of 6.53 V is no module's
    // (they run at 3.3 V) and each low alarm equals its high one, so the readings and
    // their 20 On flags are not evidence: dom_implausible, never dom_alarm.
    let (all, _) = import_and_scan(&Path::new(M).join("cumulus_rmp321_swp49_eeprom_all_ff_docs.txt"));
    let i = &all[0];
    assert_eq!(i["interface"], "swp49");
    let codes = codes(i);
    assert!(codes.contains(&"dom_implausible"), "{codes:?}");
    assert!(!codes.contains(&"dom_alarm") && !codes.contains(&"dom_warning"), "{codes:?}");
    assert_ne!(i["verdict"], "reject");
}

#[test]
fn a_paste_of_several_commands_is_read_as_a_folder_of_their_outputs() {
    // The real intel-wired-lan paste (README): dmesg, `ethtool net03`, `ethtool -i net03` and
    // `ethtool -m net03` in one file. Each command's output is read on its own: the link is
    // down (Link detected: no), the driver and bus are i40e at 0000:5e:00.1, and the module's
    // dark laser is the refused port's state, not a laser fault; the dmesg section is read
    // as the kernel log (tests/it/import_kernel_log.rs), nothing is skipped.
    let (all, said) = import_and_scan(&Path::new(M).join("i40e_dell_sfp28_refused_paste_intel-wired-lan.txt"));
    assert!(!said.contains("of no known format"), "{said}");
    let i = &all[0];
    assert_eq!(i["interface"], "net03");
    assert_eq!(i["link"]["up"], false);
    assert_eq!(i["module"]["vendor_pn"], "M14MK");
    assert_eq!(i["host"]["driver"]["value"], "i40e", "{:#}", i["host"]);
    let codes = codes(i);
    assert!(codes.contains(&"link_flaps"), "{codes:?}");
    assert!(!codes.contains(&"dom_alarm") && !codes.contains(&"dom_warning"), "{codes:?}");
    // The port supports 10000baseSR/Full only; the module's SFF-8024 code 02h ("100G Base-SR4
    // or 25GBase-SR") in a one-lane SFP28 at 25750 MBd nominal is 25GBASE-SR. No rate in
    // common: the cause i40e's refusal in the dmesg lines states, and reseating is no fix.
    assert_eq!(codes[0], "module_speed_mismatch", "{codes:?}");
    let speed = &i["reasons"][0]["message"];
    assert!(speed.as_str().unwrap().starts_with("the port supports only 10G (10000baseSR/Full), and the module runs 25G ("), "{speed}");
    let advice = i["advice"].as_array().unwrap();
    assert!(!advice.iter().any(|a| a.as_str().unwrap().starts_with("the link went down: reseat")), "{advice:?}");
    assert_eq!(i["module"]["nominal_signaling_rate_mbd"], 25750);
    assert_eq!(
        (&i["link"]["supported_modes"][0], &i["link"]["advertised_modes"][0]),
        (&"10000baseSR/Full".into(), &"10000baseSR/Full".into())
    );
    assert!(i["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().starts_with("every lane dark")), "{:#}", i["notes"]);
}

#[test]
fn a_paste_of_two_ports_gives_each_its_outputs() {
    // The real netdev paste (README): `ethtool -i enp3s0f1` and `ethtool -m enp3s0f1` (an
    // RJ45 SFP+ with no monitors), then `ethtool -m enp3s0f0` (an LR receiving 0.0001 mW).
    // Each command line names its port, so each output lands on its own interface.
    let (all, _) = import_and_scan(&Path::new(M).join("ixgbe_two_ports_paste_netdev.txt"));
    let by_name = |n: &str| all.iter().find(|i| i["interface"] == n).cloned().unwrap();
    let copper = by_name("enp3s0f1");
    assert_eq!(copper["host"]["driver"]["value"], "ixgbe");
    assert!(copper["module"]["lanes"].as_array().is_none_or(|l| l.iter().all(|l| l["rx_power_mw"].is_null())), "{:#}", copper["module"]);
    let lr = by_name("enp3s0f0");
    assert_eq!(lr["module"]["vendor_pn"], "TN-SFP-10G-LR");
    // 0.0001 mW received against a low alarm of 0.0490 mW: 10 log10(0.049/0.0001) = 26.9 dB
    // short, while its own 0.5547 mW out sits inside 0.1349-1.2589 mW.
    let lane = &lr["lanes"][0];
    assert!((lane["rx_power_dbm"].as_f64().unwrap() + 40.0).abs() < 1e-9, "{lane:#}");
    let alarm = lr["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "dom_alarm").expect("dom_alarm");
    assert!(alarm["message"].as_str().unwrap().contains("26.90 dB below"), "{alarm}");
    assert!(lane["advice"].as_str().unwrap().contains("fiber"), "{lane:#}");
}

#[test]
fn a_paste_of_a_before_and_an_after_says_how_to_give_them() {
    // Two `ethtool -S eth0` in one paste: two snapshots whose times the file cannot give.
    let tmp = tempfile::tempdir().unwrap();
    let paste = tmp.path().join("ticket.txt");
    std::fs::write(
        &paste,
        "$ ethtool -S eth0\nNIC statistics:\n     rx_packets: 10\n$ sleep 60\n$ ethtool -S eth0\nNIC statistics:\n     rx_packets: 20\n",
    )
    .unwrap();
    let o = optics().arg("import").arg(&paste).arg("-o").arg(tmp.path().join("c.jsonl")).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("a second ethtool -S output of one interface in one input; cut the paste into one file per snapshot"), "{err}");
}

#[test]
fn latched_loss_of_lock_with_normal_light_and_no_errors_blames_no_receiver() {
    // tests/fixtures/import/ethtool_m/README.md: OPAE qsfpinfo's Finisar SR4, Rx and Tx loss
    // of lock on every lane, light normal, no error counted.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("q.jsonl");
    let input = "tests/fixtures/import/ethtool_m/opae_qsfpinfo_finisar_sr4_lol_flags.txt";
    let o = optics().args(["import", input, "--interface", "fpga0", "-o"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let i = &v["interfaces"][0];
    // The flags stand (module_fault), read as printed; lane 1 receives 0.9603 mW = -0.18 dBm.
    let codes: Vec<&str> = i["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"module_fault"), "{codes:?}");
    let lane1 = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 1).unwrap();
    assert!((lane1["rx_power_dbm"].as_f64().unwrap() - 10.0 * 0.9603f64.log10()).abs() < 1e-9);
    // No error was counted: the advice reads the flags again rather than blame a receiver.
    for n in [1, 3, 4] {
        let a = i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap()["advice"].as_str().unwrap().to_string();
        assert!(a.contains("reports rx_lol, tx_lol with received light normal and no errors counted"), "lane {n}: {a}");
        assert!(!a.contains("errors are high"), "lane {n}: {a}");
    }
}
