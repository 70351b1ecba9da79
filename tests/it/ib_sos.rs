//! A node's support bundle as sosreport and a `cp -rL /sys` keep it, imported whole: real
//! `ibstat` and `perfquery` outputs (tests/fixtures/infiniband/README.md) beside a copied
//! `/sys/class/infiniband` tree laid out as the kernel's ABI gives it
//! (support/ib_sysfs.rs), joined into ports and judged.
//!
//! Expected values are derived by hand from what each file says and the IBTA
//! `PortCounters` definitions (data in 4-octet units; `PortRcvErrors` 16 bits, so 65,535 is
//! its ceiling), never read back from optics' output.

use crate::infiniband::{by_name, codes, reason, scan_json, FIX};
use crate::support::ib_sysfs::{add_hca, set_pci_attr, PortSpec};
use crate::support::{import_at, optics};
use std::path::Path;

const BDF0: &str = "0000:3b:00.0";
const BDF1: &str = "0000:86:00.0";

/// The real perfquery (older field names; tacc_stats), as HCA mlx5_1 of the real ibstat
/// would print it: its header's LID made that port's `Base lid: 49`, and the fields in
/// `set` given those values (the same counters the node's sysfs shows at that moment).
fn perfquery_of_lid_49(set: &[(&str, u64)]) -> String {
    let real = std::fs::read_to_string(format!("{FIX}/perfquery_old_names_tacc_stats.txt")).unwrap();
    let mut out = String::new();
    for line in real.replace("Lid 936 port 1", "Lid 49 port 1").lines() {
        match set.iter().find(|(k, _)| line.starts_with(&format!("{k}:"))) {
            Some((k, v)) => out.push_str(&format!("{k}:{}{v}\n", ".".repeat(32 - k.len()))),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

/// One moment of the node at `dir`: the real `ibstat` of two ConnectX-7 HCAs (mlx5_0 LID
/// 50, mlx5_1 LID 49, `Rate: 400`), the perfquery of mlx5_1 port 1 saved as the user ran it
/// (`perfquery`: its file names no port, its header only the LID), and the copied sysfs
/// tree with each port's counters (`p0` of mlx5_0/1, `p1` of mlx5_1/1).
fn bundle(dir: &Path, p0: &[(&'static str, u64)], p1: &[(&'static str, u64)], pq: &[(&str, u64)]) {
    let sos = dir.join("sos_commands/infiniband");
    std::fs::create_dir_all(&sos).unwrap();
    std::fs::copy(format!("{FIX}/ibstat_ndr_cx7_deepep_303.txt"), sos.join("ibstat")).unwrap();
    std::fs::write(sos.join("perfquery"), perfquery_of_lid_49(pq)).unwrap();
    // The tree's HCAs are the ibstat's: its firmware, its node GUIDs in sysfs's form.
    for (hca, bdf, guid, counters) in [("mlx5_0", BDF0, "a088:c203:0074:cfda", p0), ("mlx5_1", BDF1, "a088:c203:0074:cbaa", p1)] {
        add_hca(dir, hca, bdf, None, &[PortSpec { counters: counters.to_vec(), ..PortSpec::ndr(1) }]);
        set_pci_attr(dir, bdf, &format!("infiniband/{hca}/fw_ver"), "28.43.2026");
        set_pci_attr(dir, bdf, &format!("infiniband/{hca}/node_guid"), guid);
    }
}

#[test]
fn a_bundle_of_ibstat_perfquery_and_sysfs_joins_into_ports_and_is_judged() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("sos-1000"), tmp.path().join("sos-1005"));
    // mlx5_1/1 as perfquery names its fields and sysfs its files: the data counters from
    // the real output, then 300 s later 1e9 more units received, the link downed once and
    // PortRcvErrors run from 65,000 into its ceiling.
    let data = [
        ("port_xmit_data", 905_972_985),
        ("port_rcv_data", 2_411_533_950),
        ("port_xmit_packets", 22_945_597),
        ("port_rcv_packets", 26_264_095),
    ];
    let p1_a: Vec<(&str, u64)> = data.iter().copied().chain([("port_rcv_errors", 65_000)]).collect();
    let p1_b: Vec<(&str, u64)> = [
        ("port_xmit_data", 905_972_985),
        ("port_rcv_data", 3_411_533_950),
        ("port_xmit_packets", 22_945_597),
        ("port_rcv_packets", 26_264_095),
    ]
    .into_iter()
    .chain([("link_downed", 1), ("port_rcv_errors", 65_535)])
    .collect();
    bundle(&a, &[], &p1_a, &[("RcvErrors", 65_000)]);
    // mlx5_0/1's symbol errors rose by 40 (sysfs).
    bundle(&b, &[("symbol_error", 40)], &p1_b, &[("RcvData", 3_411_533_950), ("LinkDowned", 1), ("RcvErrors", 65_535)]);
    let cap = tmp.path().join("sos.jsonl");
    import_at(&[(&a, "2026-12-05T10:00:00Z"), (&b, "2026-12-05T10:05:00Z")], &[], &cap);

    // The joins: two ports (the ibstat's, the tree's, the perfquery's by LID 49), each on
    // its own PCI function, with the kernel's rate text and ibstat's firmware.
    let c = optics::capture::read_capture(&cap).unwrap();
    assert_eq!(c.interfaces(), ["mlx5_0/1", "mlx5_1/1"]);
    for (name, bdf) in [("mlx5_0/1", BDF0), ("mlx5_1/1", BDF1)] {
        let ir = c.interface_records_for(name).next().unwrap();
        assert_eq!(ir.bus_info.as_deref(), Some(bdf), "{name}");
        let ib = ir.ib.as_ref().unwrap();
        assert_eq!((ib.rate.as_deref(), ib.fw_ver.as_deref()), (Some("400 Gb/sec (4X NDR)"), Some("28.43.2026")), "{name}");
    }
    let read_from = |name: &str| c.samples_for(name).last().unwrap().origin_file.clone().unwrap();
    assert!(read_from("mlx5_1/1").contains("sos_commands/infiniband/perfquery"), "{}", read_from("mlx5_1/1"));
    assert!(!read_from("mlx5_0/1").contains("perfquery"), "{}", read_from("mlx5_0/1"));

    let j = scan_json(&cap, &[]);
    // mlx5_0/1: 40 symbol errors in 300 s, 0.1333/s; on NDR errors FEC left.
    let p0 = by_name(&j, "mlx5_0/1");
    assert_eq!(p0["verdict"], "reject");
    let m = reason(p0, "uncorrectable_errors")["message"].as_str().unwrap().to_string();
    assert!(m.starts_with("40 symbol errors (ib:symbol_error) in 300 s (0.133/s): on 4X NDR"), "{m}");
    assert!(m.contains("errors FEC did not correct"), "{m}");
    assert!((p0["infiniband"]["symbol_errors_per_s"].as_f64().unwrap() - 40.0 / 300.0).abs() < 1e-12);
    assert!(!codes(p0).contains(&"link_flaps".to_string()), "{:?}", codes(p0));
    // NDR's RS(544,514) limit cites InfiniBand, not an Ethernet PMD clause.
    let cited = p0["link"]["fec_limit_source"].as_str().unwrap();
    assert!(cited.starts_with("InfiniBand HDR/NDR: RS(544,514)") && !cited.contains("Clause 138"), "{cited}");
    assert_eq!(p0["link"]["fec_limit_ber"], 2.4e-4);

    // mlx5_1/1: link_downed 0 -> 1 is link_flaps; PortRcvErrors 65,000 -> 65,535 is at least
    // 535 and saturated; RcvData +1e9 units is 4e9 bytes; no symbol errors.
    let p1 = by_name(&j, "mlx5_1/1");
    assert_eq!(p1["verdict"], "reject");
    assert!(reason(p1, "link_flaps")["message"].as_str().unwrap().starts_with("1 link-down event in 300 s"), "{p1}");
    let m = reason(p1, "ib_port_errors")["message"].as_str().unwrap().to_string();
    assert!(m.starts_with("at least 535 received packets dropped with an error"), "{m}");
    let m = reason(p1, "counter_saturated")["message"].as_str().unwrap().to_string();
    assert!(m.starts_with("port_rcv_errors reads 65535, the most its 16 bits hold"), "{m}");
    assert_eq!(p1["infiniband"]["saturated"], serde_json::json!(["port_rcv_errors"]));
    assert_eq!(p1["infiniband"]["rx_bytes"], 4_000_000_000u64);
    assert_eq!(p1["infiniband"]["counters"]["symbol_error"], 0);
    assert!(!codes(p1).contains(&"uncorrectable_errors".to_string()), "{:?}", codes(p1));
}

/// One moment of the node with the real perfquery's `SymbolErrors` changed from 0 to 40
/// (tests/fixtures/infiniband/README.md) while the copied tree's `symbol_error` of that port
/// reads 0: sysfs and perfquery read one PMA counter, so at one time they read one value,
/// and no time between the reads explains a fault counter that differs. The port's notes
/// name the counter and both values; the data counters, equal in both, raise nothing.
#[test]
fn a_perfquery_that_disagrees_with_the_tree_is_named_in_the_ports_notes() {
    let tmp = tempfile::tempdir().unwrap();
    let sos = tmp.path().join("sos");
    let p1 = [
        ("port_xmit_data", 905_972_985),
        ("port_rcv_data", 2_411_533_950),
        ("port_xmit_packets", 22_945_597),
        ("port_rcv_packets", 26_264_095),
        ("symbol_error", 0),
    ];
    bundle(&sos, &[], &p1, &[("SymbolErrors", 40)]);
    let cap = tmp.path().join("one.jsonl");
    let stderr = import_at(&[(&sos, "2026-12-05T10:00:00Z")], &[], &cap);
    let said = "symbol_error: sysfs class/infiniband read 0, perfquery read 40: the same PMA counter of this port in one input";
    assert!(stderr.contains(&format!("mlx5_1/1: {said}")), "{stderr}");
    let j = scan_json(&cap, &[]);
    let p = by_name(&j, "mlx5_1/1");
    let notes: Vec<&str> = p["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert_eq!(notes.iter().filter(|n| n.contains("PMA counter")).count(), 1, "{notes:?}");
    assert!(notes.iter().any(|n| n.starts_with(said) && n.ends_with("sysfs class/infiniband's value is used")), "{notes:?}");
    assert_eq!(p["infiniband"]["counters"]["symbol_error"], 0);
    let other = by_name(&j, "mlx5_0/1")["notes"].to_string();
    assert!(!other.contains("PMA counter"), "{other}");
}

/// The real sosreport-shaped folder of one HDR node (`sos_hdr_2x/`) with the line grep
/// dropped from its mlxlink output put back (`Time Since Last Clear [Min]`, 100 minutes),
/// and 40 symbol errors in its perfquery (its `SymbolErrorCounter` read 0).
fn hdr_bundle_with_a_clear_time(dir: &Path) {
    let from = Path::new(FIX).join("sos_hdr_2x/sos_commands");
    for (sub, file) in [("infiniband", "ibstat"), ("infiniband", "perfquery_-C_mlx5_0_-P_1"), ("mellanox_firmware", "mlxlink_-d_mlx5_0_-c")]
    {
        let to = dir.join("sos_commands").join(sub);
        std::fs::create_dir_all(&to).unwrap();
        let text = std::fs::read_to_string(from.join(sub).join(file)).unwrap();
        let text = text.replace("SymbolErrorCounter:..............0", "SymbolErrorCounter:..............40").replace(
            "Physical Counters and BER Info\n------------------------------\n",
            "Physical Counters and BER Info\n------------------------------\nTime Since Last Clear [Min]     : 100\n",
        );
        std::fs::write(to.join(file), text).unwrap();
    }
}

#[test]
fn mlxlinks_time_since_its_clear_is_not_the_perfquery_counters_time_base() {
    let tmp = tempfile::tempdir().unwrap();
    hdr_bundle_with_a_clear_time(tmp.path());
    let cap = tmp.path().join("one.jsonl");
    let o = optics().arg("import").arg(tmp.path()).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("InfiniBand counters (ibstat, perfquery, sysfs) state no time since their clear"));
    let j = scan_json(&cap, &[]);
    let p = by_name(&j, "mlx5_0/1");
    // mlxlink's own counters span its 100 min: lane 1's 3,183,333 corrected bits over
    // 6,000 s x 53.125 Gb/s.
    let ber = p["lanes"][0]["pre_fec_ber"].as_f64().unwrap();
    let want = 3_183_333.0 / (6000.0 * 53.125e9);
    assert!((ber - want).abs() < want * 1e-6, "{ber} vs {want}");
    // perfquery's run from a clear nobody stated: 40 since then, no rate, not a verdict on
    // the last 100 minutes.
    assert!(p["infiniband"]["symbol_errors_per_s"].is_null(), "{}", p["infiniband"]);
    assert_eq!(p["infiniband"]["counters"]["symbol_error"], 40);
    let r = reason(p, "uncorrectable_errors");
    assert_eq!(r["severity"], "investigate");
    let m = r["message"].as_str().unwrap();
    assert!(m.starts_with("40 symbol errors (ib:symbol_error) since the counters were last cleared"), "{m}");
    // 50,334,712 units of 4 octets since that clear.
    assert_eq!(p["infiniband"]["tx_bytes"], 201_338_848u64);
}
