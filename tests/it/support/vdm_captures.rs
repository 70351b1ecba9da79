//! An 800G-DR8 link the NIC sees only half of, and the module sees whole (CMIS VDM).
//!
//! The netdev is mlx5-style: netlink FEC totals only, per-lane corrected bits in the
//! driver's `rx_err_lane_N_phy` for lanes 1-4 only (kernel-uapi.md section 8), although the
//! port has 8 lanes. The OSFP module advertises VDM (page 01h byte 142 bit 6) with two groups
//! (page 2Fh byte 128 = 1): group 1 (pages 20h/24h/28h) media-input observables of lanes
//! 1-8, group 2 (21h/25h/29h) host-input ones. Lane 7 is weak: BER 2.0e-5 and eSNR 3.5 dB
//! under its siblings. Layout: src/module/cmis/vdm.rs (CMIS 5.2 VDM section).
//!
//! CMIS F16 (VDM sample formats): value = m x 10^(e - 24), e = bits 15-11, m = bits 10-0.
//! [`f16`] picks the smallest e with m <= 2047 (the finest step), e.g.
//! - 2.0e-5 = 2000 x 10^-8: e = 16, word 16 << 11 | 2000 = 0x87d0;
//! - 1.5e-7 = 1500 x 10^-10: e = 14, word 14 << 11 | 1500 = 0x75dc;
//! - 1.0e-9 = 1000 x 10^-12: e = 12, word 12 << 11 | 1000 = 0x63e8.
//!
//! eSNR and PAM4 LTP are U16 in 1/256 dB: 21.0 dB = 5376 = 0x1500, 17.5 dB = 4480 = 0x1180.

use super::captures::*;
use serde_json::{json, Value};

/// Corrected bits per second = BER x 106.25e9 (LANE_GBPS_100G_PAM4). Lanes 1-4 as the
/// healthy DR8 (1.0, 1.2, 0.9, 1.1 e-7); lanes 5-8: 1.0e-7 -> 10,625; 0.95e-7 -> 10,093.75;
/// 2.0e-5 -> 2,125,000 (lane 7); 1.05e-7 -> 11,156.25.
pub const VDM_RATES: [f64; 8] = [10_625.0, 12_750.0, 9_562.5, 11_687.5, 10_625.0, 10_093.75, 2_125_000.0, 11_156.25];
/// The module's media-input pre-FEC BER (VDM type 15, current value). Lanes 5-8 agree with
/// the line (VDM_RATES / 106.25e9); lanes 1-4 read 1.5e-7, so a test can tell the NIC's
/// figure (which ranks first there) from the module's.
pub const VDM_BER: [f64; 8] = [1.5e-7, 1.5e-7, 1.5e-7, 1.5e-7, 1.0e-7, 0.95e-7, 2.0e-5, 1.05e-7];
/// Media-input eSNR, dB (VDM type 5): lane 7 3.5 dB under the others' median (21.0).
pub const VDM_ESNR_DB: [f64; 8] = [21.0, 20.75, 21.25, 21.0, 21.0, 20.75, 17.5, 21.25];
/// Media-input PAM4 level transition parameter, dB (type 7).
pub const VDM_LTP_DB: [f64; 8] = [16.0, 16.0, 16.25, 16.0, 15.75, 16.0, 13.5, 16.0];
/// Host-input eSNR (type 6) and BER (type 16): the electrical side is clean.
pub const VDM_HOST_ESNR_DB: f64 = 24.0;
pub const VDM_HOST_BER: f64 = 1.0e-9;
/// eSNR thresholds (set 0, 1/256 dB): high alarm 30, low alarm 15, high warning 28, low
/// warning 18 dB: lane 7's 17.5 dB raises its low-warning flag (page 2Ch).
pub const VDM_ESNR_THRESHOLDS_DB: [f64; 4] = [30.0, 15.0, 28.0, 18.0];

/// CMIS F16 word of `value` (> 0): the smallest exponent whose mantissa fits 11 bits.
pub fn f16(value: f64) -> u16 {
    if value == 0.0 {
        return 0;
    }
    (0u16..32)
        .find_map(|e| {
            let m = (value * 10f64.powi(24 - i32::from(e))).round();
            (m <= 2047.0).then_some((e << 11) | m as u16)
        })
        .expect("value below 2047 x 10^7")
}

fn db256(db: f64) -> u16 {
    (db * 256.0).round() as u16
}

/// Group 1 observables, type-major: instance 8k + lane - 1 is type `MEDIA_TYPES[k].0` on
/// that lane, threshold set `.1`.
const MEDIA_TYPES: [(u8, u8); 7] = [(5, 0), (7, 1), (9, 2), (11, 2), (13, 2), (15, 2), (23, 3)];
/// Group 2: host eSNR (6) and host BER current (16).
const HOST_TYPES: [(u8, u8); 2] = [(6, 0), (16, 2)];

/// Sample word of VDM type `ty` on `lane` (0-based).
fn sample(ty: u8, lane: usize) -> u16 {
    match ty {
        5 => db256(VDM_ESNR_DB[lane]),
        7 => db256(VDM_LTP_DB[lane]),
        // Min / max over the VDM interval: half and twice the current value.
        9 => f16(VDM_BER[lane] / 2.0),
        11 => f16(VDM_BER[lane] * 2.0),
        13 | 15 => f16(VDM_BER[lane]),
        23 => 0, // no errored frames
        6 => db256(VDM_HOST_ESNR_DB),
        16 => f16(VDM_HOST_BER),
        _ => unreachable!("type {ty} not in the fixture"),
    }
}

fn descriptor_page(types: &[(u8, u8)]) -> Vec<u8> {
    let mut p = vec![0u8; 128];
    for (k, (ty, set)) in types.iter().enumerate() {
        for lane in 0..8 {
            let i = 8 * k + lane;
            p[2 * i] = (set << 4) | lane as u8; // bits 7-4 threshold set, 3-0 lane - 1
            p[2 * i + 1] = *ty;
        }
    }
    p
}

fn sample_words(types: &[(u8, u8)]) -> Vec<u8> {
    types.iter().flat_map(|(ty, _)| (0..8).flat_map(move |lane| sample(*ty, lane).to_be_bytes())).collect()
}

/// Threshold page: set 0 eSNR (dB), 1 LTP (dB), 2 BER (F16: 2.4e-4 / 0 / 1.0e-4 / 0),
/// 3 errored frames (F16: 1 / 0 / 0.1 / 0); 8 bytes per set, HA, LA, HW, LW.
fn threshold_page() -> Vec<u8> {
    let mut p = vec![0u8; 128];
    let sets: [[u16; 4]; 4] = [
        VDM_ESNR_THRESHOLDS_DB.map(db256),
        [db256(25.0), db256(10.0), db256(23.0), db256(12.0)],
        [f16(2.4e-4), 0, f16(1.0e-4), 0],
        [f16(1.0), 0, f16(0.1), 0],
    ];
    for (s, words) in sets.iter().enumerate() {
        for (k, w) in words.iter().enumerate() {
            put16(&mut p, 8 * s + 2 * k, *w);
        }
    }
    p
}

/// Page 2Ch flag nibbles of group 1 (bytes 128-155, 4 bits per instance): lane 7's eSNR
/// (instance 6: byte 6 / 2 = 3, low nibble as the instance is even) below its low
/// warning: bit 3.
fn media_flags() -> Vec<u8> {
    let mut f = vec![0u8; 28];
    f[3] |= 0x08;
    f
}

/// The 800G-DR8 OSFP of dr8-800g-cmis-healthy.jsonl behind an mlx5 port.
pub struct VdmPort {
    pub port: CmisPort<8>,
}

pub fn dr8_800g_vdm_port() -> VdmPort {
    let mut port = dr8_800g_port();
    port.name = "enp8s0f0np0";
    port.driver = "mlx5_core";
    port.module.sn = "AC2511DR80077";
    port.lane_bits_per_s = VDM_RATES;
    // Lane 7's light as its siblings' median (-1.05 dBm): the weakness is in the signal, not
    // the power, which is what eSNR tells apart.
    port.module.rx_dbm[6] = -1.05;
    // Application 1's media code: SFF-8024 Table 4-7 0x56 800GBASE-DR8 (Clause 124).
    port.module.apps[0].media_id = 0x56;
    VdmPort { port }
}

impl VdmPort {
    /// Page 01h with byte 142 bit 6 (VDM pages supported) set; checksum (255) over 130-254.
    fn page01(&self) -> Vec<u8> {
        let mut p = self.port.module.page01();
        p[142 - 128] |= 0x40;
        p[127] = sum8(&p[2..127]);
        p
    }

    fn static_pages(&self) -> Value {
        let m = &self.port.module;
        let mut p2f = vec![0u8; 128];
        p2f[0] = 0x01; // bits 1-0: groups supported - 1 = 1 -> two groups
        pages_json(&[
            (0, 0, m.lower(&mut Rng::new(7))),
            (0x00, 128, m.page00()),
            (0x01, 128, self.page01()),
            (0x02, 128, Cmis::<8>::page02()),
            (0x10, 128, vec![0u8; 128]),
            (0x11, 128, m.page11(&mut Rng::new(11))),
            (0x20, 128, descriptor_page(&MEDIA_TYPES)),
            (0x21, 128, descriptor_page(&HOST_TYPES)),
            (0x28, 128, threshold_page()),
            (0x29, 128, threshold_page()),
            (0x2f, 128, p2f),
        ])
    }
}

impl Sampled<8> for VdmPort {
    fn interface_record(&self, t: f64) -> Value {
        let mut r = self.port.interface_record(t);
        r["module"] = self.static_pages();
        r
    }

    /// Monitors as the CMIS port, VDM samples of the 56 + 16 instances in use and their
    /// flag bytes (what monitor_requests asks), and mlx5 counters for lanes 1-4 only.
    fn sample_record(&self, t: f64, c: &Counters<8>, rng: &mut Rng) -> Value {
        let mut r = self.port.sample_record(t, c, rng);
        let total: u64 = c.lanes.iter().sum();
        r["fec"]["corrected_bits"] = json!([total]);
        r["driver_stats"] = json!({
            "rx_err_lane_0_phy": c.lanes[0], "rx_err_lane_1_phy": c.lanes[1],
            "rx_err_lane_2_phy": c.lanes[2], "rx_err_lane_3_phy": c.lanes[3],
            "rx_corrected_bits_phy": total, "rx_pcs_symbol_err_phy": 0, "link_down_events_phy": 0});
        let vdm = pages_json(&[
            (0x24, 128, sample_words(&MEDIA_TYPES)),
            (0x25, 128, sample_words(&HOST_TYPES)),
            (0x2c, 128, media_flags()),
            (0x2c, 160, vec![0u8; 8]),
        ]);
        let pages = r["module"]["pages"].as_array_mut().expect("sample pages");
        pages.extend(vdm["pages"].as_array().expect("pages").iter().cloned());
        r
    }

    fn lane_bits_per_s(&self) -> &[f64; 8] {
        &self.port.lane_bits_per_s
    }
}

/// The bundled VDM captures.
pub fn vdm_captures() -> Vec<(&'static str, String)> {
    vec![("dr8-800g-vdm-lane7-weak.jsonl", steady_capture(&[dr8_800g_vdm_port()], 61, 11, [1_000_000; 8]))]
}
