//! Builds the bundled captures in `captures/` byte by byte from the specs, so every value in
//! them can be traced to arithmetic written here. `tests/bundled_captures.rs` checks the files
//! still match (regenerate with `OPTICS_REGENERATE_CAPTURES=1 cargo test --test bundled_captures`).
//!
//! SFF-8636 (QSFP28/QSFP56) modules ([`Qsfp`]): lower page (monitors, SFF-8636 Rev 2.11 6.2),
//! page 00h (identity, 6.3) and page 03h (thresholds, 6.4). Their counters follow what mlx5
//! gives on an RS(544,514) link: netlink FEC totals only, per-lane corrected bits in the
//! driver's `rx_err_lane_N_phy` (kernel-uapi.md section 8).
//!
//! CMIS 5.x (QSFP-DD/OSFP) modules ([`Cmis`]): lower memory, pages 00h, 01h, 02h, 10h and
//! 11h (CMIS 5.2 chapter 8). Their counters are what a driver that fills the netlink lanes
//! would report: `corrected_bits: [total, lane 1, ..]`, block counts as totals only.

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

pub fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_be_bytes());
}

fn put_ascii(b: &mut [u8], at: usize, len: usize, s: &str) {
    let mut field = vec![b' '; len];
    field[..s.len()].copy_from_slice(s.as_bytes());
    b[at..at + len].copy_from_slice(&field);
}

pub fn sum8(b: &[u8]) -> u8 {
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

/// Cumulative counters of one port with `N` lanes.
#[derive(Clone)]
pub struct Counters<const N: usize = 4> {
    pub lanes: [u64; N],
    pub corrected_blocks: u64,
    pub uncorrectable_blocks: u64,
}

impl<const N: usize> Default for Counters<N> {
    fn default() -> Self {
        Counters { lanes: [0; N], corrected_blocks: 0, uncorrectable_blocks: 0 }
    }
}

impl<const N: usize> Counters<N> {
    /// Advances by `dt` seconds: each lane gains `rate * dt` bits, ±5% noise; about 1.25
    /// corrected bits per corrected codeword at these BERs.
    pub fn advance(&mut self, rates: &[f64; N], dt: f64, rng: &mut Rng) {
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

/// A port a capture can be built from: its records and its lanes' corrected bits per second.
pub trait Sampled<const N: usize> {
    fn interface_record(&self, t: f64) -> Value;
    fn sample_record(&self, t: f64, c: &Counters<N>, rng: &mut Rng) -> Value;
    fn lane_bits_per_s(&self) -> &[f64; N];
}

impl Sampled<4> for Port {
    fn interface_record(&self, t: f64) -> Value {
        interface_record(t, self)
    }
    fn sample_record(&self, t: f64, c: &Counters<4>, rng: &mut Rng) -> Value {
        sample_record(t, self, c, rng)
    }
    fn lane_bits_per_s(&self) -> &[f64; 4] {
        &self.lane_bits_per_s
    }
}

/// The standard run: header, interface records, then `n` samples of every port.
pub fn simple_capture(ports: &[Port], n: usize, seed: u64) -> String {
    steady_capture(ports, n, seed, [1_000_000, 1_400_000, 9_000_000, 70_000_000])
}

/// Header, interface records, then `n` samples of every port, counters starting at `start`.
pub fn steady_capture<const N: usize, P: Sampled<N>>(ports: &[P], n: usize, seed: u64, start: [u64; N]) -> String {
    let mut rng = Rng::new(seed);
    let mut records = vec![header()];
    records.extend(ports.iter().map(|p| p.interface_record(0.0)));
    let mut counters: Vec<Counters<N>> = ports.iter().map(|_| Counters { lanes: start, ..Default::default() }).collect();
    let times = tick_times(n, &mut rng);
    for (i, t) in times.iter().enumerate() {
        for (p, c) in ports.iter().zip(counters.iter_mut()) {
            if i > 0 {
                c.advance(p.lane_bits_per_s(), t - times[i - 1], &mut rng);
            }
            records.push(p.sample_record(*t, c, &mut rng));
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

/// One CMIS Application Descriptor (CMIS 5.2 Table 8-23): SFF-8024 host (Table 4-5) and
/// media (Table 4-7 SMF) interface codes, lane counts, and the host / media lanes a data
/// path of it may start on (bit i = lane i+1; media side in page 01h, Table 8-52).
#[derive(Clone, Copy)]
pub struct AppDescriptor {
    pub host_id: u8,
    pub media_id: u8,
    pub host_lanes: u8,
    pub media_lanes: u8,
    pub host_lane_assignment: u8,
    pub media_lane_assignment: u8,
}

/// A CMIS 5.x module with `N` populated media lanes (of the 8 that bank 0 of page 11h
/// describes), one data path of application 1 over lanes 1..N, ModuleReady.
#[derive(Clone)]
pub struct Cmis<const N: usize> {
    /// SFF-8024 Table 4-1: 0x18 QSFP-DD, 0x19 OSFP.
    pub identifier: u8,
    pub vendor: &'static str,
    pub pn: &'static str,
    pub sn: &'static str,
    /// SFF-8024 Table 4-3 connector (page 00h byte 203): 0x0c MPO 1x12, 0x28 MPO 1x16.
    pub connector: u8,
    /// MediaType (lower byte 85): 0x01 MMF, 0x02 SMF.
    pub media_type: u8,
    /// MediaInterfaceTechnology (page 00h byte 212): 0x06 = 1310 nm EML.
    pub media_tech: u8,
    /// Nominal wavelength, nm (page 01h bytes 138-139, 0.05 nm per LSB).
    pub wavelength_nm: f64,
    /// Maximum power, W (page 00h byte 201, 0.25 W per LSB).
    pub max_power_w: f64,
    /// Application 1 first; application 1 is the active one.
    pub apps: Vec<AppDescriptor>,
    pub rx_dbm: [f64; N],
    pub tx_dbm: [f64; N],
    pub bias_ma: [f64; N],
    pub temperature_c: f64,
}

/// Bytes 128..=213 of page 11h: what `module::monitor_requests` re-reads each sample
/// (data path state, flags, monitors, Active Control Set DPConfig; src/module/cmis/mod.rs).
pub const CMIS_P11_MONITOR_END: usize = 213;
/// Lower bytes 0..26: state, module flags, temperature, Vcc, aux monitors (the same function).
pub const CMIS_LOWER_MONITOR_LEN: usize = 26;

impl<const N: usize> Cmis<N> {
    /// Lower memory, bytes 0-127 (CMIS 5.2 8.2), temperature and Vcc jittered by `rng`
    /// (±0.2 C, ±3 mV).
    pub fn lower(&self, rng: &mut Rng) -> Vec<u8> {
        let mut b = vec![0u8; 128];
        b[0] = self.identifier;
        b[1] = 0x50; // revision compliance: CMIS 5.0 (major in bits 7-4)
        b[2] = 0x00; // bit 7 MemoryModel = 0: paged memory (pages 01h, 02h, 10h, 11h exist)
                     // Bits 3-1 ModuleState = 3 ModuleReady (Table 8-7); bit 0 = 1 interrupt deasserted.
        b[3] = (3 << 1) | 0x01;
        // Bytes 8-11 module flags (Table 8-9): all clear.
        let temp = ((self.temperature_c + 0.2 * rng.sym()) * 256.0).round() as i16;
        put16(&mut b, 14, temp as u16); // Table 8-10: 1/256 C, signed
        put16(&mut b, 16, (33000.0 + 30.0 * rng.sym()) as u16); // 100 uV: ~3.300 V
        b[85] = self.media_type;
        // Application Descriptors 1-8 at 86-117, 4 bytes each (Table 8-23); HostInterfaceID
        // 0xFF ends the list.
        for (i, a) in self.apps.iter().enumerate() {
            let at = 86 + 4 * i;
            b[at..at + 4].copy_from_slice(&[a.host_id, a.media_id, (a.host_lanes << 4) | a.media_lanes, a.host_lane_assignment]);
        }
        b[86 + 4 * self.apps.len()] = 0xff;
        b
    }

    /// Page 00h upper (CMIS 5.2 8.3): identity; PageChecksum (byte 222) over 128-221.
    pub fn page00(&self) -> Vec<u8> {
        let mut p = vec![0u8; 256];
        p[128] = self.identifier;
        put_ascii(&mut p, 129, 16, self.vendor);
        p[145..148].copy_from_slice(&[0xac, 0xde, 0x48]); // vendor OUI (synthetic)
        put_ascii(&mut p, 148, 16, self.pn);
        put_ascii(&mut p, 164, 2, "A0");
        put_ascii(&mut p, 166, 16, self.sn);
        put_ascii(&mut p, 182, 8, "250115");
        p[200] = 7 << 5; // power class 8 (bits 7-5 = 7): see byte 201
        p[201] = (self.max_power_w / 0.25).round() as u8;
        p[203] = self.connector;
        // Byte 210 (CMIS 5.2 8.3.7): bit i = 1 when media lane i+1 is not supported.
        p[210] = !((1u16 << N) - 1) as u8;
        p[212] = self.media_tech;
        p[222] = sum8(&p[128..222]);
        p[128..].to_vec()
    }

    /// Page 01h upper (CMIS 5.2 8.4): advertisement; PageChecksum (byte 255) over 130-254.
    pub fn page01(&self) -> Vec<u8> {
        let mut p = vec![0u8; 256];
        p[128] = 2; // active firmware 2.1
        p[129] = 1;
        put16(&mut p, 138, (self.wavelength_nm / 0.05).round() as u16);
        put16(&mut p, 140, (6.5f64 / 0.005).round() as u16); // tolerance ±6.5 nm, 0.005 nm per LSB
        p[142] = 0x00; // bits 1-0 BanksSupported = 0: bank 0 only (8 lanes)
        p[151] = 0x10; // bit 4: Rx power is measured as average power, not OMA
        p[157] = 0x07; // Tx flags: bit 0 TxFault, 1 TxLOS, 2 TxCDRLOL (Table 8-80 advertisement)
        p[158] = 0x06; // Rx flags: bit 1 RxLOS, 2 RxCDRLOL (Table 8-81 advertisement)
        p[159] = 0x03; // module monitors: bit 0 temperature, bit 1 Vcc
                       // Lane monitors: bit 0 Tx bias, 1 Tx power, 2 Rx power; bits 4-3 = 0: bias x1.
        p[160] = 0x07;
        for (i, a) in self.apps.iter().enumerate() {
            p[176 + i] = a.media_lane_assignment; // Table 8-52
        }
        p[255] = sum8(&p[130..255]);
        p[128..].to_vec()
    }

    /// Page 02h upper (CMIS 5.2 8.5): thresholds, high alarm / low alarm / high warning /
    /// low warning per monitor; PageChecksum (byte 255) over 128-254. Optical levels
    /// bracket 400GBASE-DR4 (IEEE 802.3 Clause 124): Rx average power -5.9..+4.0 dBm,
    /// Tx average launch power -2.9..+4.0 dBm.
    pub fn page02() -> Vec<u8> {
        let mut p = vec![0u8; 256];
        // Temperature, 1/256 C: 75 / -5 / 70 / 0.
        put16(&mut p, 128, 75 * 256);
        put16(&mut p, 130, (-5i16 * 256) as u16);
        put16(&mut p, 132, 70 * 256);
        put16(&mut p, 134, 0);
        // Vcc, 100 uV: 3.63 / 2.97 / 3.465 / 3.135 V.
        put16(&mut p, 136, 36300);
        put16(&mut p, 138, 29700);
        put16(&mut p, 140, 34650);
        put16(&mut p, 142, 31350);
        // Tx power, 0.1 uW: +5.0 / -6.9 / +4.0 / -2.9 dBm.
        put16(&mut p, 176, power_word(5.0));
        put16(&mut p, 178, power_word(-6.9));
        put16(&mut p, 180, power_word(4.0));
        put16(&mut p, 182, power_word(-2.9));
        // Tx bias, 2 uA (multiplier 1): 100 / 20 / 90 / 30 mA.
        put16(&mut p, 184, 50000);
        put16(&mut p, 186, 10000);
        put16(&mut p, 188, 45000);
        put16(&mut p, 190, 15000);
        // Rx power, 0.1 uW: +5.0 / -9.9 / +4.0 / -5.9 dBm.
        put16(&mut p, 192, power_word(5.0));
        put16(&mut p, 194, power_word(-9.9));
        put16(&mut p, 196, power_word(4.0));
        put16(&mut p, 198, power_word(-5.9));
        p[255] = sum8(&p[128..255]);
        p[128..].to_vec()
    }

    /// Page 11h upper, bank 0 (CMIS 5.2 Tables 8-79 to 8-89), monitors jittered by `rng`
    /// (±0.02 dB light, ±0.05 mA bias). Lanes 1..N form one data path of application 1;
    /// lanes N+1..8 (unsupported) are deactivated and read zero.
    pub fn page11(&self, rng: &mut Rng) -> Vec<u8> {
        let mut p = vec![0u8; 256];
        for lane in 0..8 {
            let used = lane < N;
            // DPStateHostLane nibbles, lane 1 in bits 3-0 of 128: 4 DPActivated, 1 DPDeactivated.
            p[128 + lane / 2] |= (if used { 4 } else { 1 }) << (4 * (lane % 2));
            if used {
                p[132] |= 1 << lane; // OutputStatusRx: valid
                p[133] |= 1 << lane; // OutputStatusTx: valid
                                     // Table 8-82 monitors: Tx power 0.1 uW, Tx bias 2 uA, Rx power 0.1 uW.
                put16(&mut p, 154 + 2 * lane, power_word(self.tx_dbm[lane] + 0.02 * rng.sym()));
                put16(&mut p, 170 + 2 * lane, ((self.bias_ma[lane] + 0.05 * rng.sym()) / 0.002).round() as u16);
                put16(&mut p, 186 + 2 * lane, power_word(self.rx_dbm[lane] + 0.02 * rng.sym()));
                p[202 + lane / 2] |= 1 << (4 * (lane % 2)); // ConfigStatus: 1 ConfigSuccess
                                                            // Active Control Set DPConfigLane (Table 8-86): AppSel 1 in bits 7-4,
                                                            // DataPathID 0 (the data path's first lane, lane 1) in bits 3-1.
                p[206 + lane] = 1 << 4;
            }
        }
        // Bytes 135-152 lane flags (Tables 8-80, 8-81): all clear.
        p[128..].to_vec()
    }

    /// The static pages an interface record carries (what `module::static_pages` reads).
    pub fn static_pages(&self) -> Value {
        pages_json(&[
            (0, 0, self.lower(&mut Rng::new(7))),
            (0x00, 128, self.page00()),
            (0x01, 128, self.page01()),
            (0x02, 128, Self::page02()),
            (0x10, 128, vec![0u8; 128]),
            (0x11, 128, self.page11(&mut Rng::new(11))),
        ])
    }

    /// The monitor bytes of one sample: lower 0-25 and page 11h 128-213.
    pub fn monitor_pages(&self, rng: &mut Rng) -> Value {
        let lower = self.lower(rng);
        let p11 = self.page11(rng);
        pages_json(&[(0, 0, lower[..CMIS_LOWER_MONITOR_LEN].to_vec()), (0x11, 128, p11[..=CMIS_P11_MONITOR_END - 128].to_vec())])
    }
}

/// A netdev on a CMIS module whose driver fills the netlink FEC lanes.
#[derive(Clone)]
pub struct CmisPort<const N: usize> {
    pub name: &'static str,
    pub driver: &'static str,
    pub bus_info: &'static str,
    pub pci: Value,
    pub link: Value,
    pub module: Cmis<N>,
    /// Corrected bits per second per lane.
    pub lane_bits_per_s: [f64; N],
}

impl<const N: usize> Sampled<N> for CmisPort<N> {
    fn interface_record(&self, t: f64) -> Value {
        json!({"record": "interface", "t": t, "interface": self.name, "driver": self.driver, "bus_info": self.bus_info,
               "pci": self.pci, "port": {"phys_port_name": "p0", "dev_port": 0, "phys_switch_id": null}, "link": self.link,
               "module": self.module.static_pages()})
    }

    fn sample_record(&self, t: f64, c: &Counters<N>, rng: &mut Rng) -> Value {
        let total: u64 = c.lanes.iter().sum();
        let mut bits = vec![total];
        bits.extend(c.lanes);
        json!({"record": "sample", "t": t, "interface": self.name,
            "link": {"up": true, "ext_state": null, "ext_substate": null, "down_events": 0},
            // RS decoding spans lanes: blocks are totals; corrected bits per lane.
            "fec": {"corrected_blocks": [c.corrected_blocks], "uncorrectable_blocks": [c.uncorrectable_blocks],
                    "corrected_bits": bits, "histogram": []},
            "driver_stats": {},
            "module": self.module.monitor_pages(rng)})
    }

    fn lane_bits_per_s(&self) -> &[f64; N] {
        &self.lane_bits_per_s
    }
}

// ---------------------------------------------------------------------------------------
// The bundled CMIS ports (dr4-400g-cmis-marginal.jsonl, dr8-800g-cmis-healthy.jsonl)
// ---------------------------------------------------------------------------------------

/// 400GBASE-DR4 and 800G-DR8 lanes: 106.25 Gb/s each (26.5625 GBd x 2 bits x 2 for
/// 100G PAM4 after RS(544,514); physics.md "Lane rates"), so BER = bits/s / 106.25e9.
pub const LANE_GBPS_100G_PAM4: f64 = 106.25;

/// DR4 rx: lane 2 at -1.85 dBm, its siblings' median (-1.20, -1.30, -1.25) = -1.25: 0.60 dB less.
pub const DR4_RX_DBM: [f64; 4] = [-1.20, -1.85, -1.30, -1.25];
/// DR4 corrected bits per second = BER x 106.25e9:
/// lane 1 2.0e-7 -> 21,250; lane 2 2.0e-5 -> 2,125,000; lane 3 2.4e-7 -> 25,500; lane 4 1.8e-7 -> 19,125.
/// Lane 2 over its siblings' median (2.0e-7): 100x.
/// Margins (PAM4 BER = 0.75 Q(x), margin = 10 log10(x / x_limit), x_limit = 3.41407 at 2.4e-4):
/// lane 2: Q = 2.0e-5 / 0.75 = 2.667e-5 -> x = 4.04052 -> 10 log10(4.04052 / 3.41407) = 0.732 dB;
/// lane 1: Q = 2.667e-7 -> x = 5.01392 -> 1.669 dB (above the 1.0 dB floor, so only lane 2 is flagged).
pub const DR4_RATES: [f64; 4] = [21_250.0, 2_125_000.0, 25_500.0, 19_125.0];
/// 800G-DR8: balanced light within 0.6 dB.
pub const DR8_RX_DBM: [f64; 8] = [-1.0, -1.3, -0.9, -1.2, -1.1, -0.8, -1.4, -1.05];
/// DR8 BER 0.9e-7 .. 1.3e-7 (x 106.25e9): 1.0, 1.2, 0.9, 1.1, 1.0, 0.95, 1.3, 1.05 e-7.
/// Worst, 1.3e-7: Q = 1.733e-7 -> x = 5.09613 -> 1.740 dB; best 0.9e-7 -> x = 5.16534 -> 1.798 dB.
pub const DR8_RATES: [f64; 8] = [10_625.0, 12_750.0, 9_562.5, 11_687.5, 10_625.0, 10_093.75, 13_812.5, 11_156.25];

/// SFF-8024 Table 4-5 host codes 0x50 400GAUI-4-L C2M, 0x52 800GAUI-8 L C2M (Annex 120G);
/// Table 4-7 SMF media codes 0x1c 400GBASE-DR4 (Clause 124), 0x14 100GBASE-DR (Clause 140).
const DR4_APP: AppDescriptor =
    AppDescriptor { host_id: 0x50, media_id: 0x1c, host_lanes: 4, media_lanes: 4, host_lane_assignment: 0x01, media_lane_assignment: 0x01 };

pub fn dr4_400g_port() -> CmisPort<4> {
    CmisPort {
        name: "ens5np0",
        driver: "example_nic",
        bus_info: "0000:5e:00.0",
        pci: pci("32.0 GT/s PCIe", 16, "32.0 GT/s PCIe", 16, 0),
        link: json!({"speed_mbps": 400000, "lanes": 4, "link_mode": "400000baseDR4/Full", "fec_active": "RS"}),
        module: Cmis {
            identifier: 0x18, // QSFP-DD, 4 of its 8 lanes populated (page 00h byte 210 = 0xf0)
            vendor: "ACME OPTICS",
            pn: "QDD-400G-DR4",
            sn: "AC2503DR40017",
            connector: 0x0c,
            media_type: 0x02,
            media_tech: 0x06,
            wavelength_nm: 1311.0,
            max_power_w: 10.0,
            apps: vec![DR4_APP],
            rx_dbm: DR4_RX_DBM,
            tx_dbm: [0.8, 0.7, 0.9, 0.75],
            bias_ma: [48.0, 47.5, 48.5, 47.8],
            temperature_c: 45.0,
        },
        lane_bits_per_s: DR4_RATES,
    }
}

pub fn dr8_800g_port() -> CmisPort<8> {
    CmisPort {
        name: "ens6np0",
        driver: "example_nic",
        bus_info: "0000:9a:00.0",
        // An 800G port needs PCIe Gen6 x16 (64 GT/s: ~868 Gb/s usable); Gen5 x16 tops out near 464.
        pci: pci("64.0 GT/s PCIe", 16, "64.0 GT/s PCIe", 16, 1),
        link: json!({"speed_mbps": 800000, "lanes": 8, "link_mode": "800000baseDR8/Full", "fec_active": "RS"}),
        module: Cmis {
            identifier: 0x19, // OSFP
            vendor: "ACME OPTICS",
            pn: "OSFP-800G-DR8",
            sn: "AC2509DR80042",
            connector: 0x28,
            media_type: 0x02,
            media_tech: 0x06,
            wavelength_nm: 1311.0,
            max_power_w: 16.0,
            // App 1: 800GAUI-8 over 8 x 100GBASE-DR media lanes (the per-lane PMD code;
            // dr8-800g-vdm-lane7-weak.jsonl uses SFF-8024 0x56 800GBASE-DR8); app 2: 400G-DR4
            // breakout, a data path may start on lane 1 or 5.
            apps: vec![
                AppDescriptor {
                    host_id: 0x52,
                    media_id: 0x14,
                    host_lanes: 8,
                    media_lanes: 8,
                    host_lane_assignment: 0x01,
                    media_lane_assignment: 0x01,
                },
                AppDescriptor { host_lane_assignment: 0x11, media_lane_assignment: 0x11, ..DR4_APP },
            ],
            rx_dbm: DR8_RX_DBM,
            tx_dbm: [0.6, 0.5, 0.7, 0.55, 0.6, 0.65, 0.5, 0.6],
            bias_ma: [52.0, 51.5, 52.5, 51.8, 52.2, 51.9, 52.4, 52.1],
            temperature_c: 48.0,
        },
        lane_bits_per_s: DR8_RATES,
    }
}
