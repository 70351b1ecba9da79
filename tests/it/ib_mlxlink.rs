//! An InfiniBand port's `mlxlink` output joined to the port: a sosreport-shaped folder of
//! real outputs of one node (tests/fixtures/infiniband/README.md, `sos_hdr_2x/`): `ibstat`
//! of two ConnectX-6 HCAs trained at 2X HDR, `perfquery` of mlx5_0 port 1 and each HCA's
//! `mlxlink -c`, saved under the names sosreport gives them. Each mlxlink output lands on
//! the port its file name names, with its per-lane raw errors, FEC and link width.
//!
//! Expected values from the outputs and the IB lane rates, not from optics: 2X HDR is 2
//! lanes of 50 Gb/s data, 53.125 Gb/s on the wire (RS(544,514), 256b/257b: physics.md);
//! over a stated window of 6,000 s lane 1 of mlx5_0 counts 3,183,333 corrected bits of
//! 6,000 x 53.125e9 = 3.1875e14, a BER of 9.987e-9 (mlxlink printed the port's raw BER as
//! 1E-8); PortXmitData 50,334,712 units of 4 octets are 201,338,848 bytes.

use crate::infiniband::{by_name, codes, import, reason, scan_json, FIX};
use std::ffi::OsStr;

fn bundle() -> String {
    format!("{FIX}/sos_hdr_2x")
}

#[test]
fn each_mlxlink_output_lands_on_the_port_its_file_names() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("sos.jsonl");
    import(&[bundle().as_ref()], &cap);
    let c = optics::capture::read_capture(&cap).unwrap();
    // Two ports, no third interface for the mlxlink outputs (they name no netdev).
    assert_eq!(c.interfaces(), ["mlx5_0/1", "mlx5_1/1"]);
    let ports = [("mlx5_0/1", [3_183_333u64, 242_074], "0x1070fd0300a41f36"), ("mlx5_1/1", [2_361_678, 219_959], "0x1070fd0300a41ec2")];
    for (name, lanes, guid) in ports {
        let s = c.samples_for(name).last().unwrap();
        let fec = s.fec.as_ref().unwrap_or_else(|| panic!("{name}: no mlxlink FEC counters"));
        assert_eq!(fec.corrected_bits, [lanes[0] + lanes[1], lanes[0], lanes[1]], "{name}");
        let ir = c.interface_records_for(name).next().unwrap();
        // ibstat's `Rate: 100` (Gb/s) and mlxlink's `IB-HDR` over `2x`: 2 lanes, RS-FEC.
        assert_eq!((ir.link.speed_mbps, ir.link.lanes), (Some(100_000), Some(2)), "{name}");
        assert_eq!(ir.link.fec_active.as_deref(), Some("RS"), "{name}");
        assert_eq!(ir.ib.as_ref().unwrap().node_guid.as_deref(), Some(guid));
    }
    // The perfquery (of mlx5_0 port 1 by its file name) stays on mlx5_0/1.
    let ib = c.samples_for("mlx5_0/1").last().unwrap().ib.clone().unwrap();
    assert_eq!(ib.counters["port_rcv_switch_relay_errors"], 6);
    assert!(c.samples_for("mlx5_1/1").last().unwrap().ib.as_ref().unwrap().counters.is_empty());
}

#[test]
fn joined_lanes_are_judged_as_an_ethernet_ports_are() {
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("sos.jsonl");
    import(&[bundle().as_ref(), OsStr::new("--window-s"), OsStr::new("6000")], &cap);
    let j = scan_json(&cap, &["--profile", "200g"]);
    let p = by_name(&j, "mlx5_0/1");
    let lanes = p["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 2);
    let ber = |i: usize| lanes[i]["pre_fec_ber"].as_f64().unwrap();
    let expect = [3_183_333.0 / (6000.0 * 53.125e9), 242_074.0 / (6000.0 * 53.125e9)];
    for (i, e) in expect.iter().enumerate() {
        assert!((ber(i) - e).abs() < e * 1e-6, "lane {}: {} vs {e}", i + 1, ber(i));
    }
    assert_eq!(p["link"]["lane_rate_gbps"], 53.125);
    // 2X HDR is 100 Gb/s where the profile wants 200.
    assert!(codes(p).contains(&"below_profile".to_string()), "{:?}", codes(p));
    assert!(reason(p, "below_profile")["message"].as_str().unwrap().contains("100"));
    assert_eq!(p["infiniband"]["tx_bytes"], 201_338_848u64);
    // With lanes from mlxlink, the "sysfs gives no per-lane counters" note is not given.
    assert!(!p["notes"].to_string().contains("sysfs gives no module EEPROM"), "{}", p["notes"]);
}

#[test]
fn an_mlxlink_of_a_port_not_in_the_input_is_not_invented_a_port() {
    // Alone, an mlxlink output names no IB port optics has seen: it stays unnamed (as
    // before), or takes --interface.
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("one.jsonl");
    let file = format!("{}/sos_commands/mellanox_firmware/mlxlink_-d_mlx5_0_-c", bundle());
    import(&[file.as_ref()], &cap);
    assert_eq!(optics::capture::read_capture(&cap).unwrap().interfaces(), ["unnamed"]);
}
