//! SFF-8472 decoding against a real i2cdump and against byte-built images. Every expected
//! value is derived from the spec arithmetic in the comment next to it.

use optics::module::report::{Modulation, RxPowerType};
use optics::module::threshold::ThresholdSet;
use optics::module::{self, sff8472, ModuleImage, ModuleReport, PageRequest, Standard, I2C_A0, I2C_A2};

const SFP02: &str = include_str!("../fixtures/real-dumps/sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt");

/// The 256 bytes of the `### i2cdump ... <address>` section: rows `NN: hh hh ...` (16 bytes
/// each; the ASCII column after them is ignored).
fn i2cdump_section(text: &str, address: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("###") {
            inside = line.starts_with("### i2cdump") && line.contains(address);
            continue;
        }
        let Some((addr, rest)) = line.split_once(": ") else { continue };
        if !inside || line.starts_with('#') || addr.len() != 2 || u8::from_str_radix(addr, 16).is_err() {
            continue;
        }
        bytes.extend(rest.split_whitespace().take(16).map(|h| u8::from_str_radix(h, 16).expect("hex byte")));
    }
    bytes
}

fn sfp02_image() -> ModuleImage {
    let a0 = i2cdump_section(SFP02, "0x50");
    let a2 = i2cdump_section(SFP02, "0x51");
    assert_eq!((a0.len(), a2.len()), (256, 256));
    let mut img = ModuleImage::new();
    img.insert_span(I2C_A0, 0, 0, 0, &a0).unwrap();
    img.insert_span(I2C_A2, 0, 0, 0, &a2).unwrap();
    img
}

fn close(actual: Option<f64>, expected: f64) {
    let v = actual.unwrap_or_else(|| panic!("expected {expected}, got None"));
    assert!((v - expected).abs() < 1e-9, "expected {expected}, got {v}");
}

fn set_close(actual: Option<ThresholdSet>, high_alarm: f64, low_alarm: f64, high_warning: f64, low_warning: f64) {
    let t = actual.expect("thresholds");
    close(Some(t.high_alarm), high_alarm);
    close(Some(t.low_alarm), low_alarm);
    close(Some(t.high_warning), high_warning);
    close(Some(t.low_warning), low_warning);
}

#[test]
fn sfp02_real_dump() {
    let img = sfp02_image();
    let r = module::decode(&img).unwrap();
    assert_eq!(r.standard, Some(Standard::Sff8472));
    // A0h byte 0 = 03h: SFP/SFP+/SFP28 (SFF-8024 Table 4-1).
    assert_eq!(r.identifier, Some(3));
    assert_eq!(r.identifier_name.as_deref(), Some("SFP/SFP+/SFP28"));
    // Bytes 20-35 "OEM" + 13 spaces; 40-55 "SFP-10G-T8" + 6 spaces; 56-59 "A   ";
    // 68-83 "F250114T0010" + 4 spaces; 84-91 "250115" + 2 spaces (no lot code).
    assert_eq!(r.vendor_name.as_deref(), Some("OEM"));
    assert_eq!(r.vendor_pn.as_deref(), Some("SFP-10G-T8"));
    assert_eq!(r.vendor_rev.as_deref(), Some("A"));
    assert_eq!(r.vendor_sn.as_deref(), Some("F250114T0010"));
    assert_eq!(r.date_code.as_deref(), Some("250115"));
    // Bytes 37-39 = 00 00 00: no OUI.
    assert_eq!(r.vendor_oui, None);
    // Byte 2 = 07h: LC (SFF-8024 Table 4-3).
    assert_eq!(r.connector, Some(7));
    assert_eq!(r.connector_name.as_deref(), Some("LC (Lucent Connector)"));
    // Byte 3 = 10h (bit 4: 10GBASE-SR), bytes 4-10 = 0, byte 36 = 0 (no extended code).
    assert_eq!(r.media_type.as_deref(), Some("10GBASE-SR"));
    // Byte 11 = 06h: 64B/66B in the SFF-8472 column of SFF-8024 Table 4-2 -> NRZ.
    assert_eq!(r.encoding.as_deref(), Some("64B/66B"));
    assert_eq!(r.modulation, Some(Modulation::Nrz));
    // Byte 12 = 67h = 103 x 100 MBd.
    assert_eq!(r.nominal_signaling_rate_mbd, Some(10300));
    // Bytes 60-61 = 00 00 and byte 8 = 0 (not a cable): wavelength unspecified.
    assert_eq!(r.wavelength_nm, None);
    // Byte 94 = 03h: SFF-8472 Rev 10.2 (Table 8-8).
    assert_eq!(r.spec_revision.as_deref(), Some("Rev 10.2"));
    // Byte 92 = 68h: bit 6 DDM, bit 5 internal calibration, bit 3 average power.
    assert_eq!(r.rx_power_type, Some(RxPowerType::Average));
    assert_eq!((r.media_lane_count, r.host_lane_count), (Some(1), Some(1)));

    // A2h 96-97 = 42 33: 66 + 0x33/256 = 66 + 51/256 = 66.19921875 C.
    close(r.module_temperature_c, 66.19921875);
    // A2h 98-99 = 7f ca = 32714 x 100 uV = 3.2714 V.
    close(r.supply_voltage_v, 3.2714);
    assert_eq!(r.lanes.len(), 1);
    let lane = &r.lanes[0];
    assert_eq!(lane.lane, 1);
    // A2h 100-101 = 0b b8 = 3000 x 2 uA = 6.0 mA.
    close(lane.tx_bias_ma, 6.0);
    // A2h 102-103 = 13 92 = 5010 x 0.1 uW = 0.501 mW; 10 log10(0.501) = -3.00162274 dBm.
    close(lane.tx_power_mw, 0.501);
    assert!((lane.tx_power_dbm.unwrap() - -3.001_622_741).abs() < 1e-6);
    // A2h 104-105 = 13 92: the same 0.501 mW received.
    close(lane.rx_power_mw, 0.501);
    assert!((lane.rx_power_dbm.unwrap() - -3.001_622_741).abs() < 1e-6);

    let t = &r.thresholds;
    // A2h 0-7: 50 00 | f6 00 | 4b 00 | fb 00 = 80, -10 (0xf600 = -2560, /256), 75, -5 (-1280/256) C.
    set_close(t.temperature_c, 80.0, -10.0, 75.0, -5.0);
    // A2h 8-15: 8c 9f = 140 x 256 + 159 = 35999, 71 48 = 29000, 88 b8 = 35000, 75 30 = 30000 (x 100 uV).
    set_close(t.supply_voltage_v, 3.5999, 2.9, 3.5, 3.0);
    // A2h 16-23: 1d 4c = 7500, 01 f4 = 500, 19 64 = 6500, 03 e8 = 1000 (x 2 uA).
    set_close(t.tx_bias_ma, 15.0, 1.0, 13.0, 2.0);
    // A2h 24-31: 2b d4 = 11220, 07 46 = 1862, 27 10 = 10000, 09 28 = 2344 (x 0.1 uW).
    set_close(t.tx_power_mw, 1.122, 0.1862, 1.0, 0.2344);
    // A2h 32-39: 2b d4 = 11220, 02 85 = 645, 27 10 = 10000, 03 2c = 812 (x 0.1 uW).
    set_close(t.rx_power_mw, 1.122, 0.0645, 1.0, 0.0812);

    // A2h 110 = 00 (no TX_FAULT, no RX_LOS), 112-113 = 00 00, 116-117 = 00 00.
    assert!(r.module_flags.is_empty());
    assert!(lane.flags.is_empty());

    // CC_BASE: sum(A0h 0-62) = 1804 = 7 x 256 + 12 -> 0x0c = byte 63.
    // CC_EXT: sum(A0h 64-94) = 1515 = 5 x 256 + 235 -> 0xeb = byte 95.
    // CC_DMI: sum(A2h 0-94) = 3454 = 13 x 256 + 126 -> 0x7e = A2h byte 95.
    let sums: Vec<(&str, u8, bool)> = r.checksums.iter().map(|c| (c.name.as_str(), c.stored, c.ok)).collect();
    assert_eq!(sums, vec![("CC_BASE", 0x0c, true), ("CC_EXT", 0xeb, true), ("CC_DMI", 0x7e, true)]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    // DDM implemented: A0h lower + upper, A2h lower; monitors A2h 96-119.
    assert_eq!(
        module::static_pages(&img).unwrap(),
        vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0), PageRequest::lower(I2C_A2)]
    );
    assert_eq!(module::monitor_requests(&img).unwrap(), vec![PageRequest::new(I2C_A2, 0, 0, 96, 24)]);
}

// ---------------------------------------------------------------------------------------
// Byte-built modules.

struct Sfp {
    a0: [u8; 256],
    a2: [u8; 256],
}

impl Sfp {
    /// An internally calibrated 10GBASE-SR with DDM, flags and soft TX_FAULT / RX_LOS.
    fn new() -> Self {
        let mut s = Sfp { a0: [0; 256], a2: [0; 256] };
        s.a0[0] = 0x03; // SFP
        s.a0[2] = 0x07; // LC
        s.a0[3] = 0x10; // 10GBASE-SR
        s.a0[11] = 0x06; // 64B/66B
        s.a0[12] = 103; // 10.3 GBd
        s.a0[20..36].copy_from_slice(b"ACME            ");
        s.a0[40..56].copy_from_slice(b"SR-10G          ");
        s.a0[68..84].copy_from_slice(b"SN1             ");
        s.a0[84..92].copy_from_slice(b"240229AB");
        s.a0[60..62].copy_from_slice(&850u16.to_be_bytes());
        s.a0[92] = 0x68; // DDM, internal calibration, average power
        s.a0[93] = 0xb0; // alarm/warning flags, soft TX_FAULT, soft RX_LOS
        s.a0[94] = 0x09; // Rev 12.4
        s
    }
    fn a2_word(&mut self, offset: usize, v: u16) {
        self.a2[offset..offset + 2].copy_from_slice(&v.to_be_bytes());
    }
    fn a2_float(&mut self, offset: usize, v: f32) {
        self.a2[offset..offset + 4].copy_from_slice(&v.to_be_bytes());
    }
    /// Image with valid CC_BASE, CC_EXT and CC_DMI; A2h only when `with_a2`.
    fn image(&self, with_a2: bool) -> ModuleImage {
        let mut a0 = self.a0;
        let mut a2 = self.a2;
        a0[63] = a0[..63].iter().fold(0u8, |s, b| s.wrapping_add(*b));
        a0[95] = a0[64..95].iter().fold(0u8, |s, b| s.wrapping_add(*b));
        a2[95] = a2[..95].iter().fold(0u8, |s, b| s.wrapping_add(*b));
        let mut img = ModuleImage::new();
        img.insert_span(I2C_A0, 0, 0, 0, &a0).unwrap();
        if with_a2 {
            img.insert_span(I2C_A2, 0, 0, 0, &a2).unwrap();
        }
        img
    }
    fn decode(&self, with_a2: bool) -> ModuleReport {
        module::decode(&self.image(with_a2)).unwrap()
    }
}

#[test]
fn byte_built_identity() {
    let mut s = Sfp::new();
    let r = s.decode(true);
    assert_eq!(r.vendor_name.as_deref(), Some("ACME"));
    assert_eq!(r.date_code.as_deref(), Some("240229AB"));
    assert_eq!(r.spec_revision.as_deref(), Some("Rev 12.4"));
    // Bytes 60-61 = 0x0352 = 850 nm.
    assert_eq!(r.wavelength_nm, Some(850.0));
    assert!(r.checksums.iter().all(|c| c.ok));

    // Byte 12 = FFh: nominal rate is byte 66 x 250 MBd = 100 x 250 = 25000 MBd, per the byte 12 description.
    s.a0[12] = 0xff;
    s.a0[66] = 100;
    // Byte 36 = 02h: 100GBASE-SR4 or 25GBASE-SR, listed before the byte 3 code.
    s.a0[36] = 0x02;
    s.a0[11] = 0x08; // PAM4
    let r = s.decode(true);
    assert_eq!(r.nominal_signaling_rate_mbd, Some(25000));
    assert_eq!(r.media_type.as_deref(), Some("100GBASE-SR4 or 25GBASE-SR, 10GBASE-SR"));
    assert_eq!(r.modulation, Some(Modulation::Pam4));

    // A passive DAC: byte 8 bit 2, byte 60 bit 0 (SFF-8431 Appendix E, Table 8-2): bytes
    // 60-61 are cable compliance, not a wavelength.
    let mut dac = Sfp::new();
    dac.a0[3] = 0;
    dac.a0[8] = 0x04;
    dac.a0[60] = 0x01;
    dac.a0[61] = 0x00;
    let r = dac.decode(true);
    assert_eq!(r.media_type.as_deref(), Some("Passive Cable (SFF-8431 Appendix E)"));
    assert_eq!(r.wavelength_nm, None);
}

#[test]
fn external_calibration_uses_all_five_rx_terms_and_linear_constants() {
    let mut s = Sfp::new();
    s.a0[92] = 0x58; // DDM (bit 6), external calibration (bit 4), average power (bit 3)

    // Rx_PWR(4..0) at A2h 56, 60, 64, 68, 72 (Table 9-6), powers of two so f32 is exact.
    s.a2_float(56, 2f32.powi(-24)); // Rx_PWR(4)
    s.a2_float(60, 2f32.powi(-16)); // Rx_PWR(3)
    s.a2_float(64, 0.0625); // Rx_PWR(2)
    s.a2_float(68, 2.0); // Rx_PWR(1)
    s.a2_float(72, 3.0); // Rx_PWR(0)
                         // Slopes are unsigned 8.8, offsets signed 16-bit (Table 9-6).
    s.a2_word(76, 0x0180); // Tx_I slope 1.5
    s.a2_word(78, (-100i16) as u16); // Tx_I offset -100 LSB
    s.a2_word(80, 0x0080); // Tx_PWR slope 0.5
    s.a2_word(82, 20); // Tx_PWR offset +20 LSB
    s.a2_word(84, 0x0200); // T slope 2.0
    s.a2_word(86, (-2560i16) as u16); // T offset -2560 (= -10 C)
    s.a2_word(88, 0x0100); // V slope 1.0
    s.a2_word(90, 500); // V offset +500 (= 50 mV)

    // Raw monitors (A/D counts).
    s.a2_word(96, 0x0f00); // T: 2 x 3840 - 2560 = 5120 -> 20.0 C
    s.a2_word(98, 32500); // V: 32500 + 500 = 33000 -> 3.3 V
    s.a2_word(100, 4096); // I: 1.5 x 4096 - 100 = 6044 -> 12.088 mA
    s.a2_word(102, 10000); // Tx: 0.5 x 10000 + 20 = 5020 -> 0.502 mW
    s.a2_word(104, 256); // Rx: see below

    // Raw thresholds, calibrated with the same constants as the monitors.
    for (offset, raw) in [
        (0, 0x2d00u16),         // T high alarm: 2 x 11520 - 2560 = 20480 -> 80 C
        (2, (-1280i16) as u16), // T low alarm (signed A/D): 2 x -1280 - 2560 = -5120 -> -20 C
        (4, 0x2a80),            // T high warning: 2 x 10880 - 2560 = 19200 -> 75 C
        (6, 0x0280),            // T low warning: 2 x 640 - 2560 = -1280 -> -5 C
        (8, 35500),             // V: 36000 -> 3.6 V
        (10, 28500),            // 29000 -> 2.9 V
        (12, 34500),            // 35000 -> 3.5 V
        (14, 29500),            // 30000 -> 3.0 V
        (16, 5000),             // I: 1.5 x 5000 - 100 = 7400 -> 14.8 mA
        (18, 1000),             // 1400 -> 2.8 mA
        (20, 4800),             // 7100 -> 14.2 mA
        (22, 1200),             // 1700 -> 3.4 mA
        (24, 20000),            // Tx: 0.5 x 20000 + 20 = 10020 -> 1.002 mW
        (26, 2000),             // 1020 -> 0.102 mW
        (28, 16000),            // 8020 -> 0.802 mW
        (30, 3000),             // 1520 -> 0.152 mW
        (32, 512),              // Rx high alarm, see below
        (34, 0),                // Rx low alarm: Rx_PWR(0) only = 3 -> 0.0003 mW
        (36, 256),              // Rx high warning = the monitor value
        (38, 128),              // Rx low warning, see below
    ] {
        s.a2_word(offset, raw);
    }
    let r = s.decode(true);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    close(r.module_temperature_c, 20.0);
    close(r.supply_voltage_v, 3.3);
    let lane = &r.lanes[0];
    close(lane.tx_bias_ma, 12.088);
    close(lane.tx_power_mw, 0.502);

    // Rx at ADC = 256: 3 + 2 x 256 + 2^-4 x 256^2 + 2^-16 x 256^3 + 2^-24 x 256^4
    //                = 3 + 512 + 4096 + 256 + 256 = 5123 x 0.1 uW = 0.5123 mW.
    // Dropping the 4th-order term would give 4867 -> 0.4867 mW; ethtool's sfpdiag.c
    // formula (c0 + x c1 + x c2 + x c3) would give about 531 -> 0.0531 mW.
    close(lane.rx_power_mw, 0.5123);
    assert!((lane.rx_power_mw.unwrap() - 0.4867).abs() > 0.02);

    let t = &r.thresholds;
    set_close(t.temperature_c, 80.0, -20.0, 75.0, -5.0);
    set_close(t.supply_voltage_v, 3.6, 2.9, 3.5, 3.0);
    set_close(t.tx_bias_ma, 14.8, 2.8, 14.2, 3.4);
    set_close(t.tx_power_mw, 1.002, 0.102, 0.802, 0.152);
    // Rx high alarm, ADC 512: 3 + 1024 + 2^-4 x 2^18 + 2^-16 x 2^27 + 2^-24 x 2^36
    //                       = 3 + 1024 + 16384 + 2048 + 4096 = 23555 -> 2.3555 mW.
    // Rx low warning, ADC 128: 3 + 256 + 2^-4 x 2^14 + 2^-16 x 2^21 + 2^-24 x 2^28
    //                       = 3 + 256 + 1024 + 32 + 16 = 1331 -> 0.1331 mW.
    set_close(t.rx_power_mw, 2.3555, 0.0003, 0.5123, 0.1331);
}

#[test]
fn external_calibration_without_constants_reports_missing_bytes() {
    let mut s = Sfp::new();
    s.a0[92] = 0x58;
    s.a2_word(96, 0x1900);
    // A0h plus only A2h 96-119 (a monitor read): no thresholds, no calibration constants.
    let mut partial = s.image(false);
    partial.insert(I2C_A2, 0, 0, 96, &s.a2[96..120]).unwrap();
    let r = module::decode(&partial).unwrap();
    assert_eq!(r.module_temperature_c, None);
    assert!(r.warnings.iter().any(|w| w.starts_with("A2h incomplete") && w.contains("t_slope")), "{:?}", r.warnings);
}

#[test]
fn rx_power_type_oma_versus_average() {
    let mut s = Sfp::new();
    assert_eq!(s.decode(true).rx_power_type, Some(RxPowerType::Average));
    s.a0[92] = 0x60; // DDM + internal, bit 3 clear: OMA (Table 8-5)
    assert_eq!(s.decode(true).rx_power_type, Some(RxPowerType::Oma));
}

#[test]
fn ddm_not_implemented() {
    let mut s = Sfp::new();
    s.a0[92] = 0x00;
    s.a2_word(96, 0x1900); // ignored: A2h is not diagnostics without bit 6
    let img = s.image(true);
    let r = module::decode(&img).unwrap();
    assert_eq!(r.module_temperature_c, None);
    assert_eq!(r.supply_voltage_v, None);
    assert_eq!(r.lanes[0].rx_power_mw, None);
    assert_eq!(r.lanes[0].tx_bias_ma, None);
    assert_eq!(r.thresholds.temperature_c, None);
    assert_eq!(r.rx_power_type, None);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // CC_DMI is not checked: A2h holds no diagnostics.
    assert_eq!(r.checksums.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(), ["CC_BASE", "CC_EXT"]);
    assert_eq!(sff8472::static_pages(&img), vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0)]);
    assert!(sff8472::monitor_requests(&img).is_empty());
}

#[test]
fn a2_missing_while_ddm_claimed() {
    let r = Sfp::new().decode(false);
    assert_eq!(r.module_temperature_c, None);
    assert_eq!(r.thresholds.rx_power_mw, None);
    assert_eq!(r.lanes[0].rx_power_dbm, None);
    assert_eq!(r.warnings, vec!["module implements DDM (A0h byte 92 bit 6) but A2h (I2C 0x51) was not read".to_string()]);
    // Identity still decoded.
    assert_eq!(r.vendor_pn.as_deref(), Some("SR-10G"));
}

#[test]
fn address_change_required_warns() {
    let mut s = Sfp::new();
    s.a0[92] |= 0x04;
    let r = s.decode(true);
    assert!(r.warnings.iter().any(|w| w.contains("address change") && w.contains("8.9")), "{:?}", r.warnings);
    // Nothing performs the address change sequence, so A2h is neither read nor monitored.
    let img = s.image(true);
    assert!(sff8472::static_pages(&img).iter().all(|p| p.i2c_address == I2C_A0));
    assert!(sff8472::monitor_requests(&img).is_empty());
}

#[test]
fn checksum_mismatch_warns_and_still_decodes() {
    let s = Sfp::new();
    let mut img = s.image(true);
    // Overwrite CC_BASE with a wrong value: the stored sum is computed, then bumped by one.
    let good = img.byte(I2C_A0, 0, 0, 63).unwrap();
    img.insert(I2C_A0, 0, 0, 63, &[good.wrapping_add(1)]).unwrap();
    let r = module::decode(&img).unwrap();
    let cc = &r.checksums[0];
    assert_eq!((cc.name.as_str(), cc.ok, cc.computed, cc.stored), ("CC_BASE", false, good, good.wrapping_add(1)));
    assert!(r.warnings.iter().any(|w| w.starts_with("CC_BASE checksum mismatch")), "{:?}", r.warnings);
    assert_eq!(r.vendor_name.as_deref(), Some("ACME"));
    assert_eq!(r.media_type.as_deref(), Some("10GBASE-SR"));
}

#[test]
fn zero_rx_power_is_minus_infinity_dbm() {
    let mut s = Sfp::new();
    // A live module's Vcc (0x8036 = 3.2822 V): an A2h of nothing but zeros is no reading at all.
    s.a2_word(98, 0x8036);
    s.a2_word(104, 0);
    let lane = &s.decode(true).lanes[0];
    assert_eq!(lane.rx_power_mw, Some(0.0));
    assert_eq!(lane.rx_power_dbm, Some(f64::NEG_INFINITY));
}

#[test]
fn alarm_warning_and_status_flags() {
    let mut s = Sfp::new();
    s.a2[110] = 0x06; // bit 2 TX_FAULT, bit 1 RX_LOS
    s.a2[112] = 0x88; // bit 7 temperature high alarm, bit 3 TX bias high alarm
    s.a2[113] = 0x40; // bit 6 RX power low alarm
    s.a2[116] = 0x11; // bit 4 Vcc low warning, bit 0 TX power low warning
    s.a2[117] = 0x80; // bit 7 RX power high warning
    let r = s.decode(true);
    assert_eq!(crate::support::flag_names(&r.module_flags), ["temperature_high_alarm", "supply_voltage_low_warning"]);
    assert_eq!(
        crate::support::flag_names(&r.lanes[0].flags),
        ["tx_fault", "rx_los", "tx_bias_high_alarm", "rx_power_low_alarm", "tx_power_low_warning", "rx_power_high_warning"]
    );

    // Byte 93 = 0: neither the flags nor soft TX_FAULT / RX_LOS are implemented (Table 8-6).
    s.a0[93] = 0;
    let r = s.decode(true);
    assert!(r.module_flags.is_empty() && r.lanes[0].flags.is_empty());

    // Data_Ready_Bar (byte 110 bit 0) set: monitors may not be valid yet.
    let mut s = Sfp::new();
    s.a2[110] = 0x01;
    assert!(s.decode(true).warnings.iter().any(|w| w.contains("Data_Ready_Bar")));
}
