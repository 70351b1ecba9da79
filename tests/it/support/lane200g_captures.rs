//! A 1.6T port on 200G lanes (IEEE 802.3dj): an OSFP 1.6TBASE-DR8 module behind a host at
//! 1600000baseDR8 (8 x 212.5 Gb/s PAM4, RS(544,514)), on the CMIS generator of `captures.rs`.
//! Every expected figure in tests/it/lane200g.rs follows from the constants here.
//!
//! Application codes (SFF-8024 Rev 4.13, Table 4-5 host electrical, Table 4-7 SMF media;
//! the same IDs as the SONiC 1.6T design note, doc/port-1.6t-support, 131 = 0x83, 130 = 0x82,
//! 128 = 0x80 host; 127 = 0x7f, 119 = 0x77, 115 = 0x73 media):
//! - AppSel 1: 0x83 1.6TAUI-8 C2M (Annex 176E) over 0x7f 1.6TBASE-DR8 (Clause 180), 8 + 8 lanes;
//! - AppSel 2: 0x82 800GAUI-4 C2M over 0x77 800GBASE-DR4 (Clause 180), 4 + 4 lanes, a data
//!   path on lane 1 or 5 (2 x 800G breakout);
//! - AppSel 3: 0x80 200GAUI-1 C2M over 0x73 200GBASE-DR1 (Clause 180), 1 + 1 lane, any lane.
//!
//! Lanes: 212.5 Gb/s each, so BER = corrected bits/s / 212.5e9. Lanes 1-4 and 6-8 at BER
//! 2e-7 (42,500 bits/s), lane 5 at 2e-5 (4,250,000 bits/s, 100x) with 0.6 dB less light.
//! PAM4 margin at 2e-5 over the RS(544,514) limit 2.4e-4: Q = 2e-5 / 0.75 = 2.667e-5 ->
//! x = 4.04052; x_limit = 3.41407; 10 log10(4.04052 / 3.41407) = 0.732 dB, under the 1 dB floor.
//! No PCIe facts: a 1.6T port is a switch ASIC's (or a NIC on two x16 links); `pci` is null.

use super::captures::*;
use serde_json::json;

pub const LANE_GBPS_200G_PAM4: f64 = 212.5;
pub const DR8_16T_WEAK_LANE: usize = 5;
pub const DR8_16T_RATES: [f64; 8] = [42_500.0, 42_500.0, 42_500.0, 42_500.0, 4_250_000.0, 42_500.0, 42_500.0, 42_500.0];
pub const DR8_16T_RX_DBM: [f64; 8] = [-1.0, -1.1, -0.95, -1.05, -1.65, -1.0, -1.1, -1.05];

pub fn dr8_1600g_port() -> CmisPort<8> {
    let app = |host_id, media_id, lanes, assignment| AppDescriptor {
        host_id,
        media_id,
        host_lanes: lanes,
        media_lanes: lanes,
        host_lane_assignment: assignment,
        media_lane_assignment: assignment,
    };
    CmisPort {
        name: "eth1",
        driver: "example_nic",
        bus_info: "0000:c1:00.0",
        pci: serde_json::Value::Null,
        link: json!({"speed_mbps": 1600000, "lanes": 8, "link_mode": "1600000baseDR8/Full", "fec_active": "RS"}),
        module: Cmis {
            identifier: 0x19, // OSFP
            vendor: "ACME OPTICS",
            pn: "OSFP-1.6T-DR8",
            sn: "AC2611DR16007",
            connector: 0x28,
            media_type: 0x02,
            media_tech: 0x06,
            wavelength_nm: 1311.0,
            max_power_w: 30.0,
            apps: vec![app(0x83, 0x7f, 8, 0x01), app(0x82, 0x77, 4, 0x11), app(0x80, 0x73, 1, 0xff)],
            rx_dbm: DR8_16T_RX_DBM,
            tx_dbm: [1.0, 0.9, 1.1, 0.95, 1.0, 1.05, 0.9, 1.0],
            bias_ma: [60.0, 59.5, 60.5, 59.8, 60.2, 59.9, 60.4, 60.1],
            temperature_c: 52.0,
        },
        lane_bits_per_s: DR8_16T_RATES,
    }
}

/// The same port (and the same counter noise: the same seed) as a 1.6TBASE-DR8-2 (Clause 181, 2 km): SFF-8024 Table 4-7 media code 0x80
/// at 113.4375 GBd with the module's inner FEC; the kernel's `1600000baseDR8_2` (bit 124).
pub fn dr8_2_1600g_port() -> CmisPort<8> {
    let mut p = dr8_1600g_port();
    p.link["link_mode"] = json!("1600000baseDR8_2/Full");
    p.module.pn = "OSFP-1.6T-DR8-2";
    for a in p.module.apps.iter_mut().filter(|a| a.media_id == 0x7f) {
        a.media_id = 0x80;
    }
    p
}

pub fn dr8_2_capture() -> String {
    steady_capture(&[dr8_2_1600g_port()], 61, 16, [1_000_000; 8])
}

/// The captures bundled in `captures/` from this file.
pub fn bundled() -> Vec<(&'static str, String)> {
    vec![("dr8-1600g-cmis-lane5-weak.jsonl", steady_capture(&[dr8_1600g_port()], 61, 16, [1_000_000; 8]))]
}

/// BER of every lane of [`dr8_1600g_flap_capture`] before the drop: 42,500 / 212.5e9.
pub const DR8_16T_FLAP_BITS_PER_S: f64 = 42_500.0;

/// The 1.6TBASE-DR8 port of [`dr8_1600g_port`] on the timing of `flap_captures.rs`: 30 min
/// at 1 s, one link drop counted at t = 600 s, every lane at 42,500 corrected bits/s (BER
/// 2e-7) ±5%, lane `FLAP_LANE` at `rise` x that from the drop on, and `uncorrectable_per_s`
/// uncorrectable codewords every second.
pub fn dr8_1600g_flap_capture(rise: f64, uncorrectable_per_s: u64) -> String {
    use super::flap_captures::{FLAP_LANE, FLAP_SPAN_S, FLAP_T_S};
    let mut port = dr8_1600g_port();
    port.lane_bits_per_s = [DR8_16T_FLAP_BITS_PER_S; 8];
    let mut rng = Rng::new(47);
    let mut records = vec![header(), port.interface_record(0.0)];
    let mut c = Counters::<8> { lanes: [1_000_000; 8], ..Default::default() };
    for t in 0..=FLAP_SPAN_S {
        if t > 0 {
            let mut rates = port.lane_bits_per_s;
            // The interval ending at the drop's sample is the link's retraining: no rise yet.
            if t > FLAP_T_S {
                rates[FLAP_LANE - 1] *= rise;
            }
            c.advance(&rates, 1.0, &mut rng);
            c.uncorrectable_blocks += uncorrectable_per_s;
        }
        let mut sample = port.sample_record(t as f64, &c, &mut rng);
        if t >= FLAP_T_S {
            sample["link"]["down_events"] = json!(1);
        }
        records.push(sample);
    }
    to_jsonl(&records)
}
