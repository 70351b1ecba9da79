//! Arista EOS `show interfaces phy detail`, `| json` and text, of real switches
//! (tests/fixtures/switch/README.md): each port's RS-FEC codeword readings, link and module
//! as printed. Every value checked is read off the output by hand. A codeword row is
//! `value / changes / last change`, and its value is EOS's latest reading, not a running
//! total (docs/import.md): it is never subtracted, only its change count is.

use crate::support::{import_at, optics};
use serde_json::Value;
use std::path::Path;

const PHY: &str = "tests/fixtures/switch/eos_show_interfaces_phy_detail.json";

/// The capture's records of `kind`, by interface.
fn records(cap: &Path, kind: &str) -> Vec<Value> {
    let text = std::fs::read_to_string(cap).unwrap();
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|r| r["record"] == kind).collect()
}

fn of<'a>(recs: &'a [Value], name: &str) -> &'a Value {
    recs.iter().find(|r| r["interface"] == name).unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn each_port_becomes_an_interface_with_its_codewords_link_and_module() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let o = optics().arg("import").arg(PHY).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let ifaces = records(&cap, "interface");
    let samples = records(&cap, "sample");
    let mut names: Vec<&str> = ifaces.iter().filter_map(|r| r["interface"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["Ethernet1/1", "Ethernet29/1", "Ethernet4/1"]);

    // Ethernet4/1: "operSpeed": "25Gbps", one lane under laneSignalDetect, "reedSolomon";
    // correctedCodewords 5, uncorrectedCodewords 3; interfaceState "up".
    let link = &of(&ifaces, "Ethernet4/1")["link"];
    assert_eq!((link["speed_mbps"].as_u64(), link["lanes"].as_u64(), link["fec_active"].as_str()), (Some(25_000), Some(1), Some("RS")));
    let s = of(&samples, "Ethernet4/1");
    // "correctedCodewords": {"value": 5, "changes": 6, "lastChange": 1787066000.4227245},
    // "uncorrectedCodewords": {"value": 3, "changes": 13, "lastChange": 1787068239.2125041}:
    // latest readings (3 after 13 changes is no running total), never the codeword counters.
    assert_eq!(
        s["fec"]["latest_readings"],
        serde_json::json!({
            "corrected_blocks": {"value": 5, "changes": 6, "last_change_unix_s": 1787066000u64},
            "uncorrectable_blocks": {"value": 3, "changes": 13, "last_change_unix_s": 1787068239u64}
        })
    );
    assert_eq!(
        (s["fec"]["corrected_blocks"].clone(), s["fec"]["uncorrectable_blocks"].clone()),
        (serde_json::json!([]), serde_json::json!([]))
    );
    assert_eq!(s["link"]["up"], true);
    // The module as printed: its media, and its SN without EOS's four padding spaces.
    assert_eq!(s["printed_module"]["media"], "100GBASE-SR4");
    assert_eq!(s["printed_module"]["vendor_sn"], "XXX000a`0004");
    // What is not modelled stays as printed: the SerDes eye, in units EOS does not state.
    assert_eq!(s["printed_fields"]["phy-detail/phyStatuses/0/serdes/0/eyeUpper"], "149");

    // Ethernet29/1: 100Gbps over four lanes, no codeword corrected or lost.
    let link = &of(&ifaces, "Ethernet29/1")["link"];
    assert_eq!((link["speed_mbps"].as_u64(), link["lanes"].as_u64()), (Some(100_000), Some(4)));
    let s = of(&samples, "Ethernet29/1");
    // `{"value": 0, "changes": 0, "lastChange": 0.0}`: never changed, so no time.
    let never = serde_json::json!({"value": 0, "changes": 0});
    assert_eq!((&s["fec"]["latest_readings"]["corrected_blocks"], &s["fec"]["latest_readings"]["uncorrectable_blocks"]), (&never, &never));
    assert_eq!(s["printed_fields"]["phy-detail/phyStatuses/0/fec/correctedSymbols/3/value"], "0");

    // Ethernet1/1: 10G without FEC: no FEC counts are made up.
    let s = of(&samples, "Ethernet1/1");
    assert!(s["fec"].is_null(), "{s}");
    assert_eq!(of(&ifaces, "Ethernet1/1")["link"]["speed_mbps"], 10_000);
}

/// `show interfaces EthernetN phy detail` as EOS 4.26.14M prints it on a DCS-7160-48TC6-F
/// (TechBlueprints/disunified, tests/fixtures/switch/README.md): the same figures as the
/// JSON form, read off the text by hand.
#[test]
fn the_text_form_of_a_real_switch_gives_each_port_its_codewords_link_and_module() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("switch");
    std::fs::create_dir(&input).unwrap();
    for f in ["eos_show_interfaces_ethernet49_1_phy_detail_4.26.txt", "eos_show_interfaces_ethernet53_1_phy_detail_4.26.txt"] {
        std::fs::copy(Path::new("tests/fixtures/switch").join(f), input.join(f)).unwrap();
    }
    let cap = dir.path().join("c.jsonl");
    let o = optics().arg("import").arg(&input).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (ifaces, samples) = (records(&cap, "interface"), records(&cap, "sample"));

    // Ethernet49/1: "Oper speed 100Gbps", "PMA lane 00 01 02 03" (four lanes), "Forward Error
    // Correction Reed-Solomon", "Interface state up"; "FEC corrected codewords 1  577 ..."
    // and "FEC uncorrected codewords 5  9  10:32:09 ago": the reading, how often it changed,
    // how long before the output it last did (2:39:43 = 9583 s, 10:32:09 = 37929 s).
    let link = &of(&ifaces, "Ethernet49/1")["link"];
    assert_eq!((link["speed_mbps"].as_u64(), link["lanes"].as_u64(), link["fec_active"].as_str()), (Some(100_000), Some(4), Some("RS")));
    let s = of(&samples, "Ethernet49/1");
    assert_eq!(
        s["fec"]["latest_readings"],
        serde_json::json!({
            "corrected_blocks": {"value": 1, "changes": 577, "last_change_age_s": 9583},
            "uncorrectable_blocks": {"value": 5, "changes": 9, "last_change_age_s": 37929}
        })
    );
    assert_eq!(s["fec"]["corrected_blocks"], serde_json::json!([]));
    assert_eq!(s["fec"]["source"], "eos");
    assert_eq!(s["link"]["up"], true);
    assert_eq!(
        (s["printed_module"]["media"].as_str(), s["printed_module"]["vendor_sn"].as_str()),
        (Some("100GBASE-CWDM4"), Some("34417D10463"))
    );
    // Symbols per FEC lane are not bits: kept as printed, as in the JSON form.
    assert_eq!(s["printed_fields"]["phy-detail/FEC lane corrected symbols/Lane 3"], "61828  2  67 days, 4:50:37 ago");
    assert_eq!(s["printed_fields"]["phy-detail/PCS err blocks"], "309  10:32:09 ago");

    // Ethernet53/1, a 100GBASE-CR4 cable: "FEC corrected codewords 0  0  never", "FEC
    // uncorrected codewords 4  1  1 day, 22:45:23 ago" (86400 + 81923 = 168323 s).
    let s = of(&samples, "Ethernet53/1");
    assert_eq!(
        s["fec"]["latest_readings"],
        serde_json::json!({
            "corrected_blocks": {"value": 0, "changes": 0},
            "uncorrectable_blocks": {"value": 4, "changes": 1, "last_change_age_s": 168323}
        })
    );
    assert_eq!(s["printed_module"]["vendor_sn"], "QAMJ2220R01038F");

    // One output: codewords were lost at the reading's last change, no count since a clear
    // and no rate: investigate, with when.
    let port = scanned(&cap, "Ethernet53/1");
    let r = reason(&port, "uncorrectable_errors");
    assert_eq!(r["severity"], "investigate");
    assert!(
        r["message"].as_str().unwrap().starts_with(
            "the latest reading of uncorrectable FEC codewords (import:eos) is 4, last changed 1 day, 22:45:23 before the output, 1 change: codewords were lost then"
        ),
        "{r}"
    );
    assert_eq!(port["verdict"], "investigate");
    // No codeword count or BER is made of readings.
    assert!(port["link"]["uncorrectable_blocks"].is_null() && port["link"]["corrected_blocks"].is_null(), "{port:#}");
    assert!(port["link"]["pre_fec_ber"].is_null());
}

/// `scan --json --replay CAPTURE`'s interface `name`.
fn scanned(cap: &Path, name: &str) -> Value {
    let o = optics().args(["scan", "--json", "--replay"]).arg(cap).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stderr)));
    v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == name).unwrap_or_else(|| panic!("no {name}")).clone()
}

fn reason<'a>(port: &'a Value, code: &str) -> &'a Value {
    port["reasons"].as_array().unwrap().iter().find(|r| r["code"] == code).unwrap_or_else(|| panic!("no {code}: {port:#}"))
}

fn notes(port: &Value) -> Vec<&str> {
    port["notes"].as_array().map(|n| n.iter().filter_map(Value::as_str).collect()).unwrap_or_default()
}

const TH4: &str = "tests/fixtures/switch/eos_show_int_phy_detail_400g_bcm56993.txt";

/// A 400G switch's `show int phy detail` (BCM56993, linkmon's test input): its breakout
/// ports' readings, one of them updated at every poll (2,205,674 changes, last 0:00:00 ago).
#[test]
fn a_400g_switch_s_readings_are_readings_with_their_change_counts() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let o = optics().arg("import").arg(TH4).arg("-o").arg(&cap).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    // No `--window-s` is offered: readings have no start to give them a span.
    assert!(err.contains("Ethernet1/1: 1 snapshot(s); time base: none: one snapshot of the switch's latest FEC readings, not running totals (no count or BER; a second snapshot tells whether new readings came)"), "{err}");
    let (ifaces, samples) = (records(&cap, "interface"), records(&cap, "sample"));
    // Ethernet1/1: "Oper speed 100Gbps", "PMA lane 00 00 01 01" (two lanes: PAM4),
    // "Reed-Solomon", "Transceiver 400GBASE-CR8" (a breakout of the cable).
    let link = &of(&ifaces, "Ethernet1/1")["link"];
    assert_eq!((link["speed_mbps"].as_u64(), link["lanes"].as_u64(), link["fec_active"].as_str()), (Some(100_000), Some(2), Some("RS")));
    let s = of(&samples, "Ethernet1/1");
    assert_eq!(
        s["fec"]["latest_readings"],
        serde_json::json!({
            "corrected_blocks": {"value": 1217, "changes": 2205674, "last_change_age_s": 0},
            "uncorrectable_blocks": {"value": 0, "changes": 0}
        })
    );
    assert_eq!(s["printed_module"]["media"], "400GBASE-CR8");
    // EOS's own rates are kept as printed, not read as the window's BER.
    assert_eq!(s["printed_fields"]["phy-detail/Pre-FEC bit error rate"], "2.09E-09");
    // "FEC uncorrected codewords 1  1  92 days, 20:26:20 ago": 92 x 86400 + 73580 s.
    let s = of(&samples, "Ethernet1/7");
    assert_eq!(
        s["fec"]["latest_readings"]["uncorrectable_blocks"],
        serde_json::json!({"value": 1, "changes": 1, "last_change_age_s": 8_022_380u64})
    );

    // A reading of 0 that never changed: no codeword was read lost, said as such.
    let port = scanned(&cap, "Ethernet1/1");
    assert!(
        notes(&port).contains(&"the reading of uncorrectable FEC codewords (import:eos) is 0 and never changed: no codeword was read lost"),
        "{port:#}"
    );
    assert!(port["reasons"].as_array().unwrap().iter().all(|r| r["code"] != "uncorrectable_errors"), "{port:#}");
    let r = reason(&port, "no_fec_data");
    assert!(r["message"].as_str().unwrap().starts_with("the codeword figures are the tool's latest readings, not running totals"), "{r}");
    // Ethernet2/5 is down ("Interface state down"), its last lost-codeword reading 11.
    let port = scanned(&cap, "Ethernet2/5");
    assert_eq!(port["verdict"], "reject");
    assert!(reason(&port, "uncorrectable_errors")["message"]
        .as_str()
        .unwrap()
        .contains(" is 11, last changed 13 days, 12:04:41 before the output, 56 changes"));
}

/// Two outputs a minute apart: the second is the real one with three rows moved on by hand
/// (no second real output of the same ports was found): `Ethernet1/1`'s corrected reading
/// 1217 -> 3 after 16 more changes (subtracted as a counter, a decrease: a made-up reset),
/// `Ethernet1/7`'s uncorrected reading 1 -> 2 after one more change (a new reading of lost
/// codewords), `Ethernet1/3` untouched. The readings are never subtracted; the change counts are.
#[test]
fn two_eos_outputs_judge_new_readings_not_a_difference_of_readings() {
    let dir = tempfile::tempdir().unwrap();
    let before = std::fs::read_to_string(TH4).unwrap();
    let after = before
        .replacen("Current System Time: Fri Mar 22 05:43:37 2024", "Current System Time: Fri Mar 22 05:44:37 2024", 1)
        .replacen(
            "  FEC corrected codewords     1217              2205674            0:00:00 ago",
            "  FEC corrected codewords     3                 2205690            0:00:00 ago",
            1,
        )
        .replacen(
            "  FEC uncorrected codewords   1                       1  92 days, 20:26:20 ago",
            "  FEC uncorrected codewords   2                       2            0:00:20 ago",
            1,
        );
    assert_ne!(before, after);
    let (a, b) = (dir.path().join("before.txt"), dir.path().join("after.txt"));
    std::fs::write(&a, &before).unwrap();
    std::fs::write(&b, &after).unwrap();
    let cap = dir.path().join("c.jsonl");
    import_at(&[(&a, "2024-03-22T05:43:37Z"), (&b, "2024-03-22T05:44:37Z")], &[], &cap);

    // Ethernet1/7: the reading changed once in 60 s: codewords were lost in the window.
    let port = scanned(&cap, "Ethernet1/7");
    let r = reason(&port, "uncorrectable_errors");
    assert_eq!(r["severity"], "reject");
    assert!(
        r["message"].as_str().unwrap().starts_with(
            "the reading of uncorrectable FEC codewords (import:eos) changed 1 time in 60 s, the latest 2: codewords were lost in the window"
        ),
        "{r}"
    );
    assert_eq!(port["verdict"], "reject");
    assert!(port["link"]["uncorrectable_blocks"].is_null(), "no count is made of readings: {port:#}");

    // Ethernet1/1: 1217 -> 3 is no reset and 3 - 1217 no count: neither is said.
    let port = scanned(&cap, "Ethernet1/1");
    assert!(port["link"]["corrected_blocks"].is_null() && port["link"]["pre_fec_ber"].is_null(), "{port:#}");
    let said = serde_json::to_string(&port).unwrap();
    assert!(!said.contains("reset"), "{said}");
    assert!(notes(&port).contains(&"the reading of uncorrectable FEC codewords (import:eos) did not change in 60 s: no new reading of lost codewords (the tool prints readings, not totals, so no count or rate)"), "{port:#}");

    // Ethernet1/3, the same in both: no new reading, no reason.
    let port = scanned(&cap, "Ethernet1/3");
    assert!(port["reasons"].as_array().unwrap().iter().all(|r| r["code"] != "uncorrectable_errors"), "{port:#}");
}
