//! Builds the bundled captures in `captures/` byte by byte from the specs, so every value in
//! them can be traced to arithmetic written here. `tests/bundled_captures.rs` checks the files
//! still match (regenerate with `OPTICS_REGENERATE_CAPTURES=1 cargo test --test bundled_captures`).
//!
//! Modules are SFF-8636 (QSFP28/QSFP56) images: lower page (monitors, SFF-8636 Rev 2.11 6.2),
//! page 00h (identity, 6.3) and page 03h (thresholds, 6.4). Counters follow what mlx5 gives
//! on an RS(544,514) link: netlink FEC totals only, per-lane corrected bits in the driver's
//! `rx_err_lane_N_phy` (kernel-uapi.md section 8).

use serde_json::{json, Value};

/// Deterministic noise (xorshift64*), so regenerated files are identical.
pub struct Rng(u64);
impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Uniform in [-1, 1).
    pub fn sym(&mut self) -> f64 {
        2.0 * self.unit() - 1.0
    }
}

/// dBm -> SFF-8636 power word (0.1 uW per LSB).
pub fn power_word(dbm: f64) -> u16 {
    (10f64.powf(dbm / 10.0) * 10_000.0).round() as u16
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put_ascii(b: &mut [u8], at: usize, len: usize, s: &str) {
    let mut field = vec![b' '; len];
    field[..s.len()].copy_from_slice(s.as_bytes());
    b[at..at + len].copy_from_slice(&field);
}

fn sum8(b: &[u8]) -> u8 {
    b.iter().fold(0u8, |a, x| a.wrapping_add(*x))
}

/// What a module looks like: identity, media, per-lane light.
#[derive(Clone)]
pub struct Qsfp {
    pub vendor: &'static str,
    pub pn: &'static str,
    pub sn: &'static str,
    /// SFF-8024 Table 4-4 extended compliance (byte 192): 0x41 = 50GBASE-SR/100GBASE-SR2/200GBASE-SR4,
    /// 0x40 = 50GBASE-CR/100GBASE-CR2/200GBASE-CR4, 0x02 = 100GBASE-SR4.
    pub ext_compliance: u8,
    /// SFF-8024 Table 4-2 encoding (byte 139): 0x08 PAM4, 0x06 64B/66B.
    pub encoding: u8,
    /// SFF-8024 Table 4-3 connector (byte 130): 0x0c MPO 1x12, 0x23 no separable connector (DAC).
    pub connector: u8,
    /// false for a passive DAC: no optical monitors (byte 220 = 0).
    pub optical: bool,
    pub rx_dbm: [f64; 4],
    pub tx_dbm: [f64; 4],
    pub bias_ma: [f64; 4],
    pub temperature_c: f64,
}

impl Qsfp {
    /// Page 00h upper (bytes 128-255) with valid CC_BASE / CC_EXT.
    pub fn page00(&self) -> Vec<u8> {
        let mut p = vec![0u8; 256];
        p[128] = 0x11; // identifier: QSFP28 or later
        p[129] = 0xcc; // ext identifier: power class 4, CDR in Tx and Rx
        p[130] = self.connector;
        p[131] = 0x80; // 10/40/100G compliance: bit 7 = see extended compliance (byte 192)
        p[139] = self.encoding;
        p[140] = 0xff; // nominal bit rate > 25.4 Gb/s: see byte 222
        p[147] = if self.optical { 0x00 } else { 0xa0 }; // 850 nm VCSEL / copper unequalized
        put_ascii(&mut p, 148, 16, self.vendor);
        p[165..168].copy_from_slice(&[0x00, 0x02, 0xc9]); // OUI
        put_ascii(&mut p, 168, 16, self.pn);
        put_ascii(&mut p, 184, 2, "A2");
        if self.optical {
            put16(&mut p, 186, 850 * 20); // wavelength, 0.05 nm per LSB
            put16(&mut p, 188, 15 * 200); // tolerance, 0.005 nm per LSB
        }
        p[190] = 70; // max case temperature C
        p[191] = sum8(&p[128..191]); // CC_BASE
        p[192] = self.ext_compliance;
        put_ascii(&mut p, 196, 16, self.sn);
        put_ascii(&mut p, 212, 8, "240815");
        // Byte 220: bit 3 = received power is average, bit 2 = Tx power monitored.
        p[220] = if self.optical { 0x0c } else { 0x00 };
        p[222] = 106; // 26.5625 GBd / 250 MBd = 106.25
        p[223] = sum8(&p[192..223]); // CC_EXT
        p[128..].to_vec()
    }

    /// Page 03h upper: thresholds (SFF-8636 Table 6-23..), module's own alarm/warning levels.
    pub fn page03() -> Vec<u8> {
        let mut p = vec![0u8; 256];
        // Temperature, 1/256 C: high alarm 75, low alarm -5, high warning 70, low warning 0.
        put16(&mut p, 128, 75 * 256);
        put16(&mut p, 130, (-5i16 * 256) as u16);
        put16(&mut p, 132, 70 * 256);
        put16(&mut p, 134, 0);
        // Vcc, 100 uV: 3.63 / 2.97 / 3.465 / 3.135 V.
        put16(&mut p, 144, 36300);
        put16(&mut p, 146, 29700);
        put16(&mut p, 148, 34650);
        put16(&mut p, 150, 31350);
        // Rx power, 0.1 uW: +3.4 / -10.9 / +2.4 / -8.9 dBm.
        put16(&mut p, 176, power_word(3.4));
        put16(&mut p, 178, power_word(-10.9));
        put16(&mut p, 180, power_word(2.4));
        put16(&mut p, 182, power_word(-8.9));
        // Tx bias, 2 uA: 13 / 3 / 12 / 4 mA.
        put16(&mut p, 184, 6500);
        put16(&mut p, 186, 1500);
        put16(&mut p, 188, 6000);
        put16(&mut p, 190, 2000);
        // Tx power, 0.1 uW: +4.0 / -8.4 / +3.0 / -7.4 dBm.
        put16(&mut p, 192, power_word(4.0));
        put16(&mut p, 194, power_word(-8.4));
        put16(&mut p, 196, power_word(3.0));
        put16(&mut p, 198, power_word(-7.4));
        p[128..].to_vec()
    }

    /// Lower page (bytes 0-127) with monitors jittered by `rng` (±0.02 dB light, ±0.05 mA bias).
    pub fn lower(&self, rng: &mut Rng) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        b[0] = 0x11;
        b[1] = 0x08; // SFF-8636 revision 2.10
        b[2] = 0x00; // paged memory, data ready
        let temp = ((self.temperature_c + 0.2 * rng.sym()) * 256.0).round() as i16;
        put16(&mut b, 22, temp as u16);
        put16(&mut b, 26, (33000.0 + 30.0 * rng.sym()) as u16); // ~3.300 V
        if self.optical {
            for lane in 0..4 {
                put16(&mut b, 34 + 2 * lane, power_word(self.rx_dbm[lane] + 0.02 * rng.sym()));
                let bias = ((self.bias_ma[lane] + 0.05 * rng.sym()) / 0.002).round() as u16;
                put16(&mut b, 42 + 2 * lane, bias);
                put16(&mut b, 50 + 2 * lane, power_word(self.tx_dbm[lane] + 0.02 * rng.sym()));
            }
        }
        b
    }
}

pub fn pages_json(entries: &[(u8, u16, Vec<u8>)]) -> Value {
    json!({"pages": entries.iter().map(|(page, offset, data)| json!({
        "i2c_address": 80, "page": page, "bank": 0, "offset": offset, "data": hex::encode(data)
    })).collect::<Vec<_>>()})
}

/// One netdev of a capture: its identity, link and what its counters do per second.
#[derive(Clone)]
pub struct Port {
    pub name: &'static str,
    pub bus_info: &'static str,
    pub pci: Value,
    pub port: Value,
    pub link: Value,
    pub module: Qsfp,
    /// Corrected bits per second per lane (mean of the Poisson-ish noise).
    pub lane_bits_per_s: [f64; 4],
    pub down_events: u64,
}

pub fn header() -> Value {
    json!({"record": "header", "format": "optics-capture", "version": 1, "created": "2026-11-30T10:00:00Z",
           "host": "gpu-node-17", "kernel": "6.18.44", "tool": "optics test generator"})
}

pub fn interface_record(t: f64, p: &Port) -> Value {
    json!({"record": "interface", "t": t, "interface": p.name, "driver": "mlx5_core", "bus_info": p.bus_info,
           "pci": p.pci, "port": p.port, "link": p.link,
           "module": pages_json(&[(0, 0, p.module.lower(&mut Rng::new(7))), (0, 128, p.module.page00()), (3, 128, Qsfp::page03())])})
}

/// Cumulative counters of one port.
#[derive(Clone, Default)]
pub struct Counters {
    pub lanes: [u64; 4],
    pub corrected_blocks: u64,
    pub uncorrectable_blocks: u64,
}

impl Counters {
    /// Advances by `dt` seconds: each lane gains `rate * dt` bits, ±5% noise; about 1.25
    /// corrected bits per corrected codeword at these BERs.
    pub fn advance(&mut self, rates: &[f64; 4], dt: f64, rng: &mut Rng) {
        let mut added = 0u64;
        for (count, rate) in self.lanes.iter_mut().zip(rates) {
            let n = (rate * dt * (1.0 + 0.05 * rng.sym())).round().max(0.0) as u64;
            *count += n;
            added += n;
        }
        self.corrected_blocks += (added as f64 / 1.25).round() as u64;
    }
}

pub fn sample_record(t: f64, p: &Port, c: &Counters, rng: &mut Rng) -> Value {
    let total: u64 = c.lanes.iter().sum();
    json!({"record": "sample", "t": t, "interface": p.name,
        "link": {"up": true, "ext_state": null, "ext_substate": null, "down_events": p.down_events},
        // mlx5 on RS-FEC: totals only over netlink (kernel-uapi.md section 8).
        "fec": {"corrected_blocks": [c.corrected_blocks], "uncorrectable_blocks": [c.uncorrectable_blocks],
                "corrected_bits": [total], "histogram": []},
        "driver_stats": {
            "rx_err_lane_0_phy": c.lanes[0], "rx_err_lane_1_phy": c.lanes[1],
            "rx_err_lane_2_phy": c.lanes[2], "rx_err_lane_3_phy": c.lanes[3],
            "rx_corrected_bits_phy": total, "rx_pcs_symbol_err_phy": 0,
            "link_down_events_phy": p.down_events},
        "module": pages_json(&[(0, 0, p.module.lower(rng))])})
}

/// Ticks at ~1 s with a little scheduling jitter, as a real sampler's timestamps look.
pub fn tick_times(n: usize, rng: &mut Rng) -> Vec<f64> {
    (0..n).map(|i| if i == 0 { 0.0 } else { ((i as f64 + 0.002 * rng.sym()) * 10_000.0).round() / 10_000.0 }).collect()
}

pub fn to_jsonl(records: &[Value]) -> String {
    records.iter().map(|r| r.to_string() + "\n").collect()
}

/// The standard run: header, interface records, then `n` samples of every port.
pub fn simple_capture(ports: &[Port], n: usize, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut records = vec![header()];
    records.extend(ports.iter().map(|p| interface_record(0.0, p)));
    let mut counters: Vec<Counters> = ports.iter().map(|_| Counters { lanes: [1_000_000, 1_400_000, 9_000_000, 70_000_000], ..Default::default() }).collect();
    let times = tick_times(n, &mut rng);
    for (i, t) in times.iter().enumerate() {
        for (p, c) in ports.iter().zip(counters.iter_mut()) {
            if i > 0 {
                c.advance(&p.lane_bits_per_s, t - times[i - 1], &mut rng);
            }
            records.push(sample_record(*t, p, c, &mut rng));
        }
    }
    to_jsonl(&records)
}

pub fn pci(current_speed: &str, current_width: u32, max_speed: &str, max_width: u32, numa: i32) -> Value {
    json!({"current_link_speed": current_speed, "current_link_width": current_width,
           "max_link_speed": max_speed, "max_link_width": max_width, "numa_node": numa})
}

/// NVIDIA-style 200GBASE-SR4 QSFP56 at nominal light.
pub fn sr4_200g(sn: &'static str, rx_dbm: [f64; 4]) -> Qsfp {
    Qsfp {
        vendor: "NVIDIA",
        pn: "MMA1T00-VS",
        sn,
        ext_compliance: 0x41,
        encoding: 0x08,
        connector: 0x0c,
        optical: true,
        rx_dbm,
        tx_dbm: [-0.4, -0.5, -0.45, -0.5],
        bias_ma: [7.6, 7.5, 7.55, 7.5],
        temperature_c: 41.0,
    }
}

pub fn cx7_port(name: &'static str, module: Qsfp, lane_bits_per_s: [f64; 4]) -> Port {
    Port {
        name,
        bus_info: "0000:3b:00.0",
        pci: pci("16.0 GT/s PCIe", 16, "16.0 GT/s PCIe", 16, 0),
        port: json!({"phys_port_name": "p0", "dev_port": 0, "phys_switch_id": null}),
        link: json!({"speed_mbps": 200000, "lanes": 4, "link_mode": "200000baseSR4/Full", "fec_active": "RS"}),
        module,
        lane_bits_per_s,
        down_events: 0,
    }
}
