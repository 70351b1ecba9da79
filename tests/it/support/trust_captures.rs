//! Captures for the verdict-gate regression tests, built record by record.

use super::captures::{cx7_port, header, interface_record, sr4_200g, to_jsonl};
use serde_json::json;

/// 200GBASE-SR4 whose driver counts corrected bits for the port only (netlink total, no
/// per-lane counters), at `port_ber` over `seconds` sampled once a second.
/// Bits on the wire: 4 lanes x 53.125 Gb/s = 212.5e9 bit/s.
pub fn port_only_sr4(port_ber: f64, seconds: u32) -> String {
    let port = cx7_port("ens1f0np0", sr4_200g("MT2240FT00099", [-1.0, -1.1, -1.05, -1.15]), [0.0; 4]);
    let per_s = port_ber * 212.5e9;
    let mut records = vec![header(), interface_record(0.0, &port)];
    for i in 0..=seconds {
        let bits = (per_s * f64::from(i)).round() as u64;
        records.push(json!({"record": "sample", "t": f64::from(i), "interface": port.name,
            "link": {"up": true, "ext_state": null, "ext_substate": null, "down_events": 0},
            "fec": {"corrected_blocks": [bits / 2], "uncorrectable_blocks": [0], "corrected_bits": [bits], "histogram": []},
            "driver_stats": {}}));
    }
    to_jsonl(&records)
}

/// The far end as a 200GBASE-SR4 port whose module has no tx power monitors (a passive
/// DAC's QSFP memory map: byte 220 = 0), healthy counters, 61 samples.
pub fn peer_without_tx_power() -> String {
    use super::captures::{simple_capture, Qsfp};
    let module = Qsfp { optical: false, ..sr4_200g("MT2240FT00077", [-1.0, -1.1, -1.05, -1.15]) };
    simple_capture(&[cx7_port("ens1f0np0", module, [12_000.0, 15_000.0, 14_000.0, 18_000.0])], 61, 5)
}
