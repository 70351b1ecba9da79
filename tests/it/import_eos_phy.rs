//! Arista EOS `show interfaces phy detail | json` of a real switch (tests/fixtures/switch/README.md,
//! EOS 4.35.4M): each port's RS-FEC codewords, link and module as printed. Every value checked
//! is read off the JSON by hand.

use crate::support::optics;
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
    assert_eq!(s["fec"]["corrected_blocks"], serde_json::json!([5]));
    assert_eq!(s["fec"]["uncorrectable_blocks"], serde_json::json!([3]));
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
    assert_eq!((s["fec"]["corrected_blocks"][0].as_u64(), s["fec"]["uncorrectable_blocks"][0].as_u64()), (Some(0), Some(0)));
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
    // and "FEC uncorrected codewords 5  9 ...": the first column is the figure, the second
    // how often it changed.
    let link = &of(&ifaces, "Ethernet49/1")["link"];
    assert_eq!((link["speed_mbps"].as_u64(), link["lanes"].as_u64(), link["fec_active"].as_str()), (Some(100_000), Some(4), Some("RS")));
    let s = of(&samples, "Ethernet49/1");
    assert_eq!(
        (s["fec"]["corrected_blocks"].clone(), s["fec"]["uncorrectable_blocks"].clone()),
        (serde_json::json!([1]), serde_json::json!([5]))
    );
    assert_eq!(s["fec"]["source"], "eos");
    assert_eq!(s["link"]["up"], true);
    assert_eq!(
        (s["printed_module"]["media"].as_str(), s["printed_module"]["vendor_sn"].as_str()),
        (Some("100GBASE-CWDM4"), Some("34417D10463"))
    );
    // Symbols per FEC lane are not bits: kept as printed, as in the JSON form.
    assert_eq!(s["printed_fields"]["phy-detail/FEC lane corrected symbols/Lane 3"], "61828  2  67 days, 4:50:37 ago");
    assert_eq!(s["printed_fields"]["phy-detail/PCS err blocks"], "309  10:32:09 ago");

    // Ethernet53/1, a 100GBASE-CR4 cable: nothing corrected, 4 codewords lost.
    let s = of(&samples, "Ethernet53/1");
    assert_eq!((s["fec"]["corrected_blocks"][0].as_u64(), s["fec"]["uncorrectable_blocks"][0].as_u64()), (Some(0), Some(4)));
    assert_eq!(s["printed_module"]["vendor_sn"], "QAMJ2220R01038F");

    // The lost codewords are said with EOS as their source, and the port is not accepted.
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let port = v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == "Ethernet53/1").unwrap();
    let r = port["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "uncorrectable_errors").unwrap_or_else(|| panic!("{port:#}"));
    assert!(r["message"].as_str().unwrap().starts_with("4 uncorrectable FEC codewords (import:eos)"), "{r}");
    assert_ne!(port["verdict"], "accept");
}
