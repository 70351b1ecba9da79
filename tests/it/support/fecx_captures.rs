//! Captures for the FEC codeword histogram, lanes counted only as a group, breakout lanes
//! and NRZ links, built on the generator in `captures.rs` (same modules, same counters).
//! Every expected figure in the tests follows from the constants here.
//!
//! Histograms (Linux 6.18 `ETHTOOL_A_FEC_STAT_HIST`, mlx5 style: 16 single-symbol bins
//! 0..15 for RS(544,514), `sum` only, no per-lane values): over the 60 intervals of a
//! capture bin s gains exactly `counts[s]` codewords, spread evenly by sample index
//! (cumulative count at sample i = counts[s] x i / 60), and bin 0 holds the rest of the
//! line's 78.125e6 codewords per second (400G: 4 x 106.25e9 / 5440 bits).

use super::captures::*;
use serde_json::{json, Value};

/// Intervals in every capture here (61 samples at ~1 s).
pub const INTERVALS: u64 = 60;
/// 400GBASE-DR4: 4 x 106.25e9 b/s / (544 x 10 bits) = 78,125,000 codewords per second.
pub const DR4_CODEWORDS_PER_S: u64 = 78_125_000;

/// Healthy: bin s (1..=7) holds 6 x 10^(7 - s) codewords per window: a decade per symbol.
pub fn healthy_counts() -> [u64; 16] {
    let mut c = [0u64; 16];
    for s in 1..=7u32 {
        c[s as usize] = 6 * 10u64.pow(7 - s);
    }
    c
}

/// Marginal: bin s (1..=14) holds 4^(14 - s): a quarter per symbol, one codeword reached 14
/// symbol errors (t = 15), none was uncorrectable.
pub fn marginal_counts() -> [u64; 16] {
    let mut c = [0u64; 16];
    for s in 1..=14u32 {
        c[s as usize] = 4u64.pow(14 - s);
    }
    c
}

/// Failing: bin s (1..=15) holds 2^(26 - s), and the line continues past t: 2^(26-16) = 1024
/// codewords at 16 errors, 2048 summed over 16, 17, ... (1024 / (1 - 1/2)): uncorrectable.
pub fn failing_counts() -> [u64; 16] {
    let mut c = [0u64; 16];
    for s in 1..=15u32 {
        c[s as usize] = 2u64.pow(26 - s);
    }
    c
}
pub const FAILING_UNCORRECTABLE: u64 = 2048;

/// Random: each of the 544 symbols of a codeword in error with probability
/// `RANDOM_SYMBOL_ERROR_RATIO`, independently (a Gaussian-noise channel): bin s holds the
/// window's codewords times Binomial(544, p) at s, rounded; the highest non-empty bin is 10.
pub const RANDOM_SYMBOL_ERROR_RATIO: f64 = 1e-3;

/// Binomial(544, p) at k by its closed form: C(544, k) p^k (1 − p)^(544 − k).
pub fn binomial_544(k: u64, p: f64) -> f64 {
    let ln_choose: f64 = (1..=k).map(|i| ((544 - k + i) as f64).ln() - (i as f64).ln()).sum();
    (ln_choose + k as f64 * p.ln() + (544 - k) as f64 * (-p).ln_1p()).exp()
}

pub fn random_counts() -> [u64; 16] {
    let window = (DR4_CODEWORDS_PER_S * INTERVALS) as f64;
    let mut c = [0u64; 16];
    for s in 1..16u64 {
        c[s as usize] = (window * binomial_544(s, RANDOM_SYMBOL_ERROR_RATIO)).round() as u64;
    }
    c
}

/// Drifting: Poisson symbol errors whose rate drifts under the window (a gamma mixture):
/// negative binomial of mean `DRIFTING_MEAN_SYMBOLS` and shape `DRIFTING_SHAPE`, bin s
/// holding the window's codewords times its P(s), rounded (bins 1-10).
pub const DRIFTING_MEAN_SYMBOLS: f64 = 0.05;
pub const DRIFTING_SHAPE: f64 = 0.3;

/// Negative binomial at k by its closed form: Γ(k + r)/(k! Γ(r)) (r/(r + μ))^r (μ/(r + μ))^k.
pub fn negative_binomial(k: u64, mu: f64, r: f64) -> f64 {
    use statrs::function::gamma::ln_gamma;
    let k = k as f64;
    (ln_gamma(k + r) - ln_gamma(k + 1.0) - ln_gamma(r) + r * (r / (r + mu)).ln() + k * (mu / (r + mu)).ln()).exp()
}

pub fn drifting_counts() -> [u64; 16] {
    let window = (DR4_CODEWORDS_PER_S * INTERVALS) as f64;
    let mut c = [0u64; 16];
    for s in 1..16u64 {
        c[s as usize] = (window * negative_binomial(s, DRIFTING_MEAN_SYMBOLS, DRIFTING_SHAPE)).round() as u64;
    }
    c
}

/// Two mechanisms no single model fits: a steep random core (bins 1-3: 400,000, 2,000, 10)
/// and a few long bursts apart from it (bins 8-11: 3, 5, 4, 2); the tail models are all
/// rejected by χ², so the straight line over the bins above the peak stands.
pub fn two_mechanism_counts() -> [u64; 16] {
    [0, 400_000, 2_000, 10, 0, 0, 0, 0, 3, 5, 4, 2, 0, 0, 0, 0]
}

/// The cumulative histogram at sample `i` of a port at `codewords_per_s`.
fn histogram_json(counts: &[u64; 16], i: u64, codewords_per_s: u64) -> Value {
    let errored: u64 = counts.iter().sum();
    let bin0 = codewords_per_s * INTERVALS - errored;
    let bins: Vec<Value> = (0..16u32)
        .map(|s| {
            let window = if s == 0 { bin0 } else { counts[s as usize] };
            json!({"low": s, "high": s, "count": window * i / INTERVALS, "per_lane": []})
        })
        .collect();
    Value::Array(bins)
}

/// A CMIS port whose samples carry a codeword histogram (and uncorrectable codewords).
pub struct HistogramPort {
    pub base: CmisPort<4>,
    pub counts: [u64; 16],
    pub uncorrectable: u64,
}

impl Sampled<4> for HistogramPort {
    fn interface_record(&self, t: f64) -> Value {
        self.base.interface_record(t)
    }
    fn sample_record(&self, t: f64, c: &Counters<4>, rng: &mut Rng) -> Value {
        let mut v = self.base.sample_record(t, c, rng);
        // Sample index: the ticks are 1 s apart within ±2 ms.
        let i = t.round() as u64;
        v["fec"]["histogram"] = histogram_json(&self.counts, i, DR4_CODEWORDS_PER_S);
        v["fec"]["uncorrectable_blocks"] = json!([self.uncorrectable * i / INTERVALS]);
        v
    }
    fn lane_bits_per_s(&self) -> &[f64; 4] {
        &self.base.lane_bits_per_s
    }
}

/// The DR4 port at balanced light; corrected bits per lane from the histogram's symbol
/// errors (sum of s x counts[s] over 4 lanes and 60 s, ~1.1 bits per symbol error).
pub fn dr4_histogram_port(name: &'static str, counts: [u64; 16], uncorrectable: u64) -> HistogramPort {
    let mut base = dr4_400g_port();
    base.name = name;
    base.module.rx_dbm = [-1.20, -1.25, -1.30, -1.25];
    let symbols: u64 = counts.iter().enumerate().map(|(s, n)| s as u64 * n).sum();
    let per_lane = symbols as f64 * 1.1 / 4.0 / INTERVALS as f64;
    base.lane_bits_per_s = [per_lane; 4];
    HistogramPort { base, counts, uncorrectable }
}

pub fn histogram_capture(counts: [u64; 16], uncorrectable: u64, seed: u64) -> String {
    steady_capture(&[dr4_histogram_port("ens5np0", counts, uncorrectable)], 61, seed, [0; 4])
}

// ---------------------------------------------------------------------------------------
// 800G with mlx5's four lane counters: lanes 5-8 counted only as a group
// ---------------------------------------------------------------------------------------

/// Lanes 1-4 and 5, 7, 8 at BER 1e-7 (10,625 b/s at 106.25 Gb/s); lane 6 at 2e-5 (2,125,000).
/// The group 5-8: (3 x 10,625 + 2,125,000) / (4 x 106.25e9) = 5.075e-6 mean BER.
pub const GROUP_RATES: [f64; 8] = [10_625.0, 10_625.0, 10_625.0, 10_625.0, 10_625.0, 2_125_000.0, 10_625.0, 10_625.0];

/// An 8-lane port whose driver has per-lane counters for lanes 1-4 only (mlx5
/// `rx_err_lane_0..3_phy`) and the port total over netlink.
pub struct Mlx5EightLanePort(pub CmisPort<8>);

impl Sampled<8> for Mlx5EightLanePort {
    fn interface_record(&self, t: f64) -> Value {
        let mut v = self.0.interface_record(t);
        v["driver"] = json!("mlx5_core");
        v
    }
    fn sample_record(&self, t: f64, c: &Counters<8>, rng: &mut Rng) -> Value {
        let mut v = self.0.sample_record(t, c, rng);
        let total: u64 = c.lanes.iter().sum();
        v["fec"]["corrected_bits"] = json!([total]);
        v["driver_stats"] = json!({
            "rx_err_lane_0_phy": c.lanes[0], "rx_err_lane_1_phy": c.lanes[1],
            "rx_err_lane_2_phy": c.lanes[2], "rx_err_lane_3_phy": c.lanes[3],
            "rx_corrected_bits_phy": total, "rx_pcs_symbol_err_phy": 0, "link_down_events_phy": 0});
        v
    }
    fn lane_bits_per_s(&self) -> &[f64; 8] {
        &self.0.lane_bits_per_s
    }
}

pub fn group_capture() -> String {
    let mut p = dr8_800g_port();
    p.driver = "mlx5_core";
    p.lane_bits_per_s = GROUP_RATES;
    steady_capture(&[Mlx5EightLanePort(p)], 61, 21, [0; 8])
}

// ---------------------------------------------------------------------------------------
// 2x400G breakout of one 800G-DR8 OSFP
// ---------------------------------------------------------------------------------------

/// Module rx per module lane: lane 6 at -6.2 dBm, under the page 02h low warning (-5.9 dBm).
pub const BREAKOUT_RX_DBM: [f64; 8] = [-1.0, -1.3, -0.9, -1.2, -1.1, -6.2, -1.4, -1.05];
/// Netdev 1 (module lanes 1-4): BER 1e-7 each. Netdev 2 (lanes 5-8): its lane 2 = module lane 6
/// at 2e-5 (100x its siblings' 2e-7), the others 2e-7 (21,250 b/s at 106.25 Gb/s).
pub const BREAKOUT_RATES: [[f64; 4]; 2] = [[10_625.0; 4], [21_250.0, 2_125_000.0, 21_250.0, 21_250.0]];

/// Page 11h Active Control Set (Table 8-86, bytes 206-213): AppSel 2 (the 400G-DR4
/// breakout application) on every lane, DataPathID 0 for lanes 1-4 and 4 for lanes 5-8;
/// and the Rx power low warning (byte 152, Table 8-81) on module lane 6.
fn patch_page11(pages: &mut Value) {
    for p in pages["pages"].as_array_mut().into_iter().flatten() {
        if p["page"] != 0x11 || p["offset"] != 128 {
            continue;
        }
        let mut b = hex::decode(p["data"].as_str().unwrap_or("")).unwrap_or_default();
        for lane in 0..8usize {
            if let Some(x) = b.get_mut(206 - 128 + lane) {
                *x = (2 << 4) | (if lane < 4 { 0 } else { 4 } << 1);
            }
        }
        if let Some(x) = b.get_mut(152 - 128) {
            *x |= 1 << 5;
        }
        p["data"] = json!(hex::encode(&b));
    }
}

/// One of the two netdevs: devlink split port `p0s<index>`, 4 lanes, 400GBASE-DR4.
pub struct BreakoutNetdev {
    pub port: CmisPort<8>,
    pub index: u32,
    pub rates: [f64; 4],
}

impl Sampled<4> for BreakoutNetdev {
    fn interface_record(&self, t: f64) -> Value {
        let mut v = self.port.interface_record(t);
        v["port"] = json!({"phys_port_name": format!("p0s{}", self.index), "dev_port": self.index, "phys_switch_id": null});
        v["link"] = json!({"speed_mbps": 400000, "lanes": 4, "link_mode": "400000baseDR4/Full", "fec_active": "RS"});
        patch_page11(&mut v["module"]);
        v
    }
    fn sample_record(&self, t: f64, c: &Counters<4>, rng: &mut Rng) -> Value {
        let c8 = Counters::<8> { lanes: [0; 8], ..Default::default() };
        let mut v = self.port.sample_record(t, &c8, rng);
        let total: u64 = c.lanes.iter().sum();
        let mut bits = vec![total];
        bits.extend(c.lanes);
        v["fec"]["corrected_bits"] = json!(bits);
        v["fec"]["corrected_blocks"] = json!([c.corrected_blocks]);
        patch_page11(&mut v["module"]);
        v
    }
    fn lane_bits_per_s(&self) -> &[f64; 4] {
        &self.rates
    }
}

pub fn breakout_netdevs() -> Vec<BreakoutNetdev> {
    let mut port = dr8_800g_port();
    port.module.rx_dbm = BREAKOUT_RX_DBM;
    port.pci = pci("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16, 0);
    (0..2u32)
        .map(|i| {
            let mut p = port.clone();
            p.name = if i == 0 { "ens7f0np0" } else { "ens7f1np1" };
            p.bus_info = if i == 0 { "0000:9a:00.0" } else { "0000:9a:00.1" };
            BreakoutNetdev { port: p, index: i, rates: BREAKOUT_RATES[i as usize] }
        })
        .collect()
}

pub fn breakout_capture() -> String {
    steady_capture(&breakout_netdevs(), 61, 22, [0; 4])
}

// ---------------------------------------------------------------------------------------
// 100GBASE-SR4: 4 x 25.78125 Gb/s NRZ, RS(528,514)
// ---------------------------------------------------------------------------------------

/// Lane 3 gets 0.55 dB less light than the median of its siblings (-2.05 dBm).
pub const NRZ_RX_DBM: [f64; 4] = [-2.0, -2.1, -2.6, -2.05];
/// BER x 25.78125e9: lanes 1.0e-8, 1.2e-8, 2.0e-6, 0.9e-8.
pub const NRZ_RATES: [f64; 4] = [257.8125, 309.375, 51_562.5, 232.03125];

pub fn sr4_100g_port() -> Port {
    let module = Qsfp {
        vendor: "ACME OPTICS",
        pn: "QSFP-100G-SR4",
        sn: "AC2411SR40007",
        ext_compliance: 0x02, // SFF-8024 Table 4-4: 100GBASE-SR4
        encoding: 0x06,       // SFF-8024 Table 4-2: 64B/66B
        connector: 0x0c,
        optical: true,
        rx_dbm: NRZ_RX_DBM,
        tx_dbm: [-0.6, -0.5, -0.55, -0.6],
        bias_ma: [6.8, 6.9, 6.85, 6.8],
        temperature_c: 39.0,
    };
    let mut p = cx7_port("ens2np0", module, NRZ_RATES);
    p.link = json!({"speed_mbps": 100000, "lanes": 4, "link_mode": "100000baseSR4/Full", "fec_active": "RS"});
    p
}

pub fn nrz_capture() -> String {
    steady_capture(&[sr4_100g_port()], 61, 23, [0; 4])
}

/// The captures bundled in `captures/` from this file.
pub fn bundled() -> Vec<(&'static str, String)> {
    vec![
        ("dr4-400g-fec-tail-healthy.jsonl", histogram_capture(healthy_counts(), 0, 31)),
        ("dr4-400g-fec-tail-creeping.jsonl", histogram_capture(marginal_counts(), 0, 32)),
        ("dr4-400g-fec-tail-failing.jsonl", histogram_capture(failing_counts(), FAILING_UNCORRECTABLE, 33)),
        ("dr4-400g-fec-tail-random.jsonl", histogram_capture(random_counts(), 0, 34)),
        ("dr4-400g-fec-tail-two-mechanisms.jsonl", histogram_capture(two_mechanism_counts(), 0, 35)),
        ("dr4-400g-fec-tail-drifting.jsonl", histogram_capture(drifting_counts(), 0, 36)),
        ("dr8-800g-mlx5-lanes-5-8-group.jsonl", group_capture()),
        ("dr8-800g-breakout-2x400g.jsonl", breakout_capture()),
        ("sr4-100g-nrz-marginal.jsonl", nrz_capture()),
    ]
}
