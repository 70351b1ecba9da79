//! SFF-8636 / SFF-8436 decoder against real dumps (tests/fixtures/real-dumps/qsfp*.txt, lower page +
//! upper page 00h) and byte-built images. Every expected value is worked out from the
//! bytes with the spec arithmetic, written in the comment next to it:
//! temperature = signed word / 256 °C; Vcc = word x 100 µV; power = word x 0.1 µW;
//! bias = word x 2 µA; dBm = 10·log10(mW).

use optics::module::report::{Modulation, RxPowerType};
use optics::module::{self, sff8636, ModuleImage, ModuleReport, PageRequest, Standard, I2C_A0};
use proptest::prelude::*;

// ---------- fixtures ----------

/// Reads `0xNNNN: hh hh ...` rows (ignoring `#` lines) into page 0 at I2C 0x50.
fn load(name: &str) -> ModuleImage {
    let path = format!("{}/tests/fixtures/real-dumps/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut img = ModuleImage::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (addr, bytes) = line.split_once(':').expect("row has ADDR:");
        let addr = u16::from_str_radix(addr.trim().trim_start_matches("0x"), 16).expect("hex address");
        let data: Vec<u8> = bytes.split_whitespace().map(|h| u8::from_str_radix(h, 16).expect("hex byte")).collect();
        img.insert_span(I2C_A0, 0, 0, addr, &data).expect("row inside page 0");
    }
    assert_eq!(img.len(), 256, "{name}: lower page + upper page 00h");
    img
}

fn close(actual: Option<f64>, expected: f64, tol: f64, what: &str) {
    let a = actual.unwrap_or_else(|| panic!("{what}: None, expected {expected}"));
    assert!((a - expected).abs() <= tol, "{what}: {a} != {expected}");
}

/// What a fixture must decode to; each value derived by hand in the table below.
struct Expected {
    file: &'static str,
    identifier: u8,
    spec_revision: &'static str,
    vendor: &'static str,
    pn: &'static str,
    sn: &'static str,
    rev: &'static str,
    date: &'static str,
    oui: &'static str,
    connector: u8,
    media: &'static str,
    temperature_c: f64,
    vcc_v: f64,
    rx_mw: [f64; 4],
    rx_dbm: [f64; 4],
    bias_ma: [f64; 4],
    tx_mw: Option<[f64; 4]>,
    rx_type: RxPowerType,
    wavelength_nm: Option<f64>,
    rate_mbd: u32,
    flat: bool,
}

fn check(e: &Expected) {
    let img = load(e.file);
    let r = sff8636::decode(&img);
    let f = e.file;
    assert_eq!(r.standard, Some(Standard::Sff8636), "{f}");
    assert_eq!(r.identifier, Some(e.identifier), "{f}");
    assert_eq!(r.spec_revision.as_deref(), Some(e.spec_revision), "{f}");
    assert_eq!(r.vendor_name.as_deref(), Some(e.vendor), "{f}");
    assert_eq!(r.vendor_pn.as_deref(), Some(e.pn), "{f}");
    assert_eq!(r.vendor_sn.as_deref(), Some(e.sn), "{f}");
    assert_eq!(r.vendor_rev.as_deref(), Some(e.rev), "{f}");
    assert_eq!(r.date_code.as_deref(), Some(e.date), "{f}");
    assert_eq!(r.vendor_oui.as_deref(), Some(e.oui), "{f}");
    assert_eq!(r.connector, Some(e.connector), "{f}");
    let media = r.media_type.clone().unwrap_or_default();
    assert!(media.contains(e.media), "{f}: media {media:?} lacks {:?}", e.media);
    close(r.module_temperature_c, e.temperature_c, 1e-9, &format!("{f} temperature"));
    close(r.supply_voltage_v, e.vcc_v, 1e-9, &format!("{f} vcc"));
    assert_eq!(r.lanes.len(), 4, "{f}");
    assert_eq!((r.media_lane_count, r.host_lane_count), (Some(4), Some(4)), "{f}");
    for (i, lane) in r.lanes.iter().enumerate() {
        assert_eq!(lane.lane as usize, i + 1);
        close(lane.rx_power_mw, e.rx_mw[i], 1e-9, &format!("{f} lane {} rx mW", i + 1));
        close(lane.rx_power_dbm, e.rx_dbm[i], 6e-4, &format!("{f} lane {} rx dBm", i + 1));
        close(lane.tx_bias_ma, e.bias_ma[i], 1e-9, &format!("{f} lane {} bias", i + 1));
        match e.tx_mw {
            Some(tx) => close(lane.tx_power_mw, tx[i], 1e-9, &format!("{f} lane {} tx mW", i + 1)),
            None => assert_eq!((lane.tx_power_mw, lane.tx_power_dbm), (None, None), "{f} tx power unsupported"),
        }
        assert!(lane.flags.is_empty(), "{f}: {:?}", lane.flags);
    }
    assert!(r.module_flags.is_empty(), "{f}");
    assert_eq!(r.rx_power_type, Some(e.rx_type), "{f}");
    match e.wavelength_nm {
        Some(w) => close(r.wavelength_nm, w, 1e-9, &format!("{f} wavelength")),
        None => assert_eq!(r.wavelength_nm, None, "{f}"),
    }
    assert_eq!(r.nominal_signaling_rate_mbd, Some(e.rate_mbd), "{f}");
    assert_eq!(r.flat_memory, Some(e.flat), "{f}");
    assert_eq!(r.checksums.len(), 2, "{f}");
    assert!(r.checksums.iter().all(|c| c.ok), "{f}: {:?}", r.checksums);
    // A 256-byte dump of paged memory lacks page 03h: the only warning is that the
    // thresholds are absent (not null with no word), no checksum warning.
    if e.flat {
        assert!(r.warnings.is_empty(), "{f}: {:?}", r.warnings);
    } else {
        assert_eq!(r.warnings, vec!["page 03h not read: thresholds unavailable".to_string()], "{f}");
    }
    assert_eq!(r.thresholds, Default::default(), "{f}");
    // The dispatcher picks this decoder from the identifier.
    assert_eq!(module::decode(&img).expect("known identifier"), r, "{f}");
}

#[test]
fn qsfp03_finisar_100g_sr4() {
    check(&Expected {
        file: "qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt",
        identifier: 0x11,
        spec_revision: "SFF-8636 Rev 2.5-2.7", // byte 1 = 07h
        vendor: "FINISAR CORP",
        pn: "FTLC9551REPM",
        sn: "XU90TRP",
        rev: "A0",
        date: "151006",
        oui: "00:90:65",
        connector: 0x0c,         // MPO 1x12
        media: "100GBASE-SR4",   // 131 = 80h (extended) -> 192 = 02h
        temperature_c: 26.40625, // 0x1a68 = 6760 / 256
        vcc_v: 3.2578,           // 0x7f42 = 32578 x 100 µV
        // 0x340f = 13327, 0x1cf3 = 7411, 0x3457 = 13399, 0x33cf = 13263 (x 0.1 µW)
        rx_mw: [1.3327, 0.7411, 1.3399, 1.3263],
        // 10·log10(1.3327) = 1.247, 10·log10(0.7411) = -1.301, 1.271, 1.226
        rx_dbm: [1.247, -1.301, 1.271, 1.226],
        // 0x0dd3 = 3539, 0x0df9 = 3577, 0x0e03 = 3587, 0x0ddf = 3551 (x 2 µA)
        bias_ma: [7.078, 7.154, 7.174, 7.102],
        // 220 = 0Ch: bit 2 set. 0x26e6 = 9958, 0x2dd3 = 11731, 0x2dd8 = 11736, 0x30d4 = 12500
        tx_mw: Some([0.9958, 1.1731, 1.1736, 1.25]),
        rx_type: RxPowerType::Average, // 220 bit 3 set
        wavelength_nm: Some(850.0),    // 147 = 00h (850 nm VCSEL); 0x4268 = 17000 / 20
        rate_mbd: 25750,               // 140 = FFh -> 222 = 67h = 103 x 250 MBd
        flat: false,                   // byte 2 = 00h
    });
}

#[test]
fn qsfp04_lumentum_100g_cwdm4() {
    check(&Expected {
        file: "qsfp04_lumentum_LQ210CR-CAA1_qsfp28_100g_cwdm4_sffdb_lower_p00.txt",
        identifier: 0x11,
        spec_revision: "SFF-8636 Rev 2.5-2.7",
        vendor: "LUMENTUM",
        pn: "LQ210CR-CAA1",
        sn: "FF4250500019-Q",
        rev: "01",
        date: "151202",
        oui: "00:01:9c",
        connector: 0x07,          // LC
        media: "100G CWDM4",      // 192 = 06h
        temperature_c: 30.640625, // 0x1ea4 = 7844 / 256
        vcc_v: 3.3091,            // 0x8143 = 33091
        // 0x1896 = 6294, 0x1de5 = 7653, 0x28fc = 10492, 0x1e76 = 7798
        rx_mw: [0.6294, 0.7653, 1.0492, 0.7798],
        rx_dbm: [-2.011, -1.162, 0.209, -1.080],
        // 0x3005 = 12293, 0x2e97 = 11927, 0x30af = 12463, 0x4107 = 16647 (x 2 µA)
        bias_ma: [24.586, 23.854, 24.926, 33.294],
        // 0x1f47 = 8007, 0x1f70 = 8048, 0x200c = 8204, 0x1d91 = 7569
        tx_mw: Some([0.8007, 0.8048, 0.8204, 0.7569]),
        rx_type: RxPowerType::Average, // 220 = 0Ch
        wavelength_nm: Some(1311.0),   // 147 = 60h (1310 nm EML); 0x666c = 26220 / 20
        rate_mbd: 25750,
        flat: false, // byte 2 = 02h: IntL only
    });
}

#[test]
fn qsfp05_dell_100g_lr4() {
    check(&Expected {
        file: "qsfp05_dell_3MFXG_qsfp28_100g_lr4_sffdb_lower_p00.txt",
        identifier: 0x11,
        spec_revision: "SFF-8636 Rev 2.5-2.7",
        vendor: "DELL",
        pn: "3MFXG",
        sn: "CN03MFXG56I0001",
        rev: "A0",
        date: "150618",
        oui: "00:1f:22",
        connector: 0x07,
        media: "100GBASE-LR4",      // 192 = 03h
        temperature_c: 25.17578125, // 0x192d = 6445 / 256
        vcc_v: 3.26,                // 0x7f58 = 32600
        // 0x12f8 = 4856, 0x1217 = 4631, 0x1709 = 5897, 0x0f2e = 3886
        rx_mw: [0.4856, 0.4631, 0.5897, 0.3886],
        rx_dbm: [-3.137, -3.343, -2.294, -4.105],
        // 0x8c56 = 35926, 0x798a = 31114, 0x7e21 = 32289, 0x84b5 = 33973 (x 2 µA)
        bias_ma: [71.852, 62.228, 64.578, 67.946],
        // 0x1f8d = 8077, 0x2125 = 8485, 0x20a1 = 8353, 0x2334 = 9012
        tx_mw: Some([0.8077, 0.8485, 0.8353, 0.9012]),
        rx_type: RxPowerType::Average,
        wavelength_nm: Some(1310.0), // 147 = 64h (1310 nm DFB); 0x6658 = 26200 / 20
        rate_mbd: 25750,
        flat: false,
    });
}

#[test]
fn qsfp07_finisar_100g_aoc_has_no_tx_power() {
    check(&Expected {
        file: "qsfp07_finisar_FCBN425QB1C03_qsfp28_100g_aoc_3m_sffdb_lower_p00.txt",
        identifier: 0x11,
        spec_revision: "SFF-8636 Rev 2.0", // byte 1 = 06h
        vendor: "FINISAR CORP",
        pn: "FCBN425QB1C03",
        sn: "DUH002C",
        rev: "A1",
        date: "151021",
        oui: "00:90:65",
        connector: 0x23,            // no separable connector
        media: "100G AOC",          // 192 = 01h
        temperature_c: 29.30859375, // 0x1d4f = 7503 / 256
        vcc_v: 3.2573,              // 0x7f3d = 32573
        // 0x1b19 = 6937, 0x1c87 = 7303, 0x1a7c = 6780, 0x1bdd = 7133
        rx_mw: [0.6937, 0.7303, 0.678, 0.7133],
        rx_dbm: [-1.588, -1.365, -1.688, -1.467],
        // 0x0eed = 3821, 0x0ed1 = 3793, 0x0ecc = 3788, 0x0fe8 = 4072 (x 2 µA)
        bias_ma: [7.642, 7.586, 7.576, 8.144],
        tx_mw: None,                   // 220 = 08h: bit 2 clear
        rx_type: RxPowerType::Average, // bit 3 set
        wavelength_nm: None,           // 186-187 = 0000h: not given
        rate_mbd: 25750,
        flat: false,
    });
}

#[test]
fn qsfp08_avago_40g_sr4_sff8436() {
    check(&Expected {
        file: "qsfp08_avago_AFBR-79EQDZ_qsfp+_40g_sr4_sffdb_lower_p00.txt",
        identifier: 0x0d,                        // QSFP+ (SFF-8436 era), same layout
        spec_revision: "Revision not specified", // byte 1 = 00h
        vendor: "AVAGO",
        pn: "AFBR-79EQDZ",
        sn: "QD490728",
        rev: "01",
        date: "131205",
        oui: "00:17:6a",
        connector: 0x0c,
        media: "40GBASE-SR4",       // 131 = 04h (bit 2)
        temperature_c: 25.53515625, // 0x1989 = 6537 / 256
        vcc_v: 3.302,               // 0x80fc = 33020
        // 0x2c7a = 11386, 0x2c51 = 11345, 0x231a = 8986, 0x2543 = 9539
        rx_mw: [1.1386, 1.1345, 0.8986, 0.9539],
        rx_dbm: [0.564, 0.548, -0.464, -0.205],
        // 0x0db3 = 3507, 0x0d77 = 3447, 0x0dc7 = 3527, 0x0d7f = 3455 (x 2 µA)
        bias_ma: [7.014, 6.894, 7.054, 6.91],
        // 220 = 08h: bit 2 clear, but SFF-8436-era modules report Tx power regardless (as ethtool shows it):
        // 0x1aed = 6893, 0x1b3e = 6974, 0x1ca4 = 7332, 0x1c64 = 7268 (x 0.1 uW)
        tx_mw: Some([0.6893, 0.6974, 0.7332, 0.7268]),
        rx_type: RxPowerType::Average,
        wavelength_nm: Some(850.0), // 0x4268 = 17000 / 20
        rate_mbd: 10300,            // 140 = 67h = 103 x 100 MBd
        flat: false,
    });
}

#[test]
fn qsfp09_finisar_40g_lr4_sff8436() {
    check(&Expected {
        file: "qsfp09_finisar_FTL4C1QE1C_qsfp+_40g_lr4_sffdb_lower_p00.txt",
        identifier: 0x0d,
        spec_revision: "Revision not specified",
        vendor: "FINISAR CORP.",
        pn: "FTL4C1QE1C",
        sn: "UQK0NL1",
        rev: "A1",
        date: "131120",
        oui: "00:90:65",
        connector: 0x07,
        media: "40GBASE-LR4",       // 131 = 02h
        temperature_c: 28.30859375, // 0x1c4f = 7247 / 256
        vcc_v: 3.304,               // 0x8110 = 33040
        // 0x07d7 = 2007, 0x0655 = 1621, 0x0641 = 1601, 0x07ab = 1963
        rx_mw: [0.2007, 0.1621, 0.1601, 0.1963],
        rx_dbm: [-6.975, -7.902, -7.956, -7.071],
        // 0x4b1d = 19229, 0x4555 = 17749, 0x4845 = 18501, 0x444a = 17482 (x 2 µA)
        bias_ma: [38.458, 35.498, 37.002, 34.964],
        // 220 = 08h, yet bytes 50-57 hold Tx power: 0x1f02 = 7938, 0x2f75 = 12149, 0x3282 = 12930, 0x374e = 14158
        tx_mw: Some([0.7938, 1.2149, 1.2930, 1.4158]),
        rx_type: RxPowerType::Average,
        wavelength_nm: Some(1301.0), // 147 = 40h (1310 nm DFB); 0x65a4 = 26020 / 20
        rate_mbd: 10300,
        flat: false,
    });
}

#[test]
fn qsfp10_jdsu_40g_lr4_low_rx() {
    check(&Expected {
        file: "qsfp10_jdsu_JQP-04LWBA2_qsfp+_40g_lr4_sffdb_lower_p00.txt",
        identifier: 0x0d,
        spec_revision: "Revision not specified",
        vendor: "JDSU",
        pn: "JQP-04LWBA2",
        sn: "FE341088C024",
        rev: "01",
        date: "140822",
        oui: "00:01:9c",
        connector: 0x07,
        media: "40GBASE-LR4",
        temperature_c: 32.82421875, // 0x20d3 = 8403 / 256
        vcc_v: 3.2854,              // 0x8056 = 32854
        // 0x0323 = 803, 0x03bc = 956, 0x0320 = 800, 0x0649 = 1609
        rx_mw: [0.0803, 0.0956, 0.08, 0.1609],
        // 10·log10(0.0803) = -10.953, -10.195, 10·log10(0.08) = -10.969, -7.934
        rx_dbm: [-10.953, -10.195, -10.969, -7.934],
        // 0x4d76 = 19830, 0x4f6a = 20330, 0x5433 = 21555, 0x44c5 = 17605 (x 2 µA)
        bias_ma: [39.66, 40.66, 43.11, 35.21],
        // 220 = 08h (bit 2 clear) but Tx power is reported anyway (SFF-8436 era): bytes 50-57
        // 0x3cd8 = 15576, 0x38c4 = 14532, 0x3be6 = 15334, 0x3689 = 13961 (x 0.1 uW)
        tx_mw: Some([1.5576, 1.4532, 1.5334, 1.3961]),
        rx_type: RxPowerType::Average,
        wavelength_nm: Some(1311.0), // 0x666c = 26220 / 20
        rate_mbd: 10300,
        flat: false,
    });
}

/// Passive DAC: flat memory, copper technology, nothing monitored.
#[test]
fn qsfp06_amphenol_100g_cr4_dac() {
    let img = load("qsfp06_amphenol_NDAAFF-C103_qsfp28_100g_cr4_dac_3m_sffdb_lower_p00.txt");
    let r = sff8636::decode(&img);
    assert_eq!(r.identifier, Some(0x11));
    assert_eq!(r.vendor_name.as_deref(), Some("Amphenol"));
    assert_eq!(r.vendor_pn.as_deref(), Some("NDAAFF-C103"));
    assert_eq!(r.vendor_sn.as_deref(), Some("APF1550103475F"));
    assert_eq!(r.vendor_rev.as_deref(), Some("A"));
    assert_eq!(r.vendor_oui.as_deref(), Some("78:a7:14"));
    assert_eq!(r.connector, Some(0x23)); // no separable connector
                                         // 131 = 88h: extended (bit 7) -> 192 = 0Bh, plus bit 3 40GBASE-CR4.
    let media = r.media_type.clone().unwrap_or_default();
    assert!(media.contains("100GBASE-CR4") && media.contains("40GBASE-CR4"), "{media}");
    assert_eq!(r.flat_memory, Some(true)); // byte 2 = 04h
                                           // 220 = 00h (temperature/Vcc not advertised) and the words are 0000h: not implemented.
    assert_eq!((r.module_temperature_c, r.supply_voltage_v), (None, None));
    // 147 = A0h: copper, unequalized. No laser: no wavelength (186-187 are attenuation),
    // no optical power or bias, no rx power type.
    assert_eq!(r.wavelength_nm, None);
    assert_eq!(r.rx_power_type, None);
    assert_eq!(r.lanes.len(), 4);
    for lane in &r.lanes {
        assert_eq!((lane.rx_power_mw, lane.tx_power_mw, lane.tx_bias_ma), (None, None, None));
        assert!(lane.flags.is_empty());
    }
    assert!(r.checksums.iter().all(|c| c.ok) && r.checksums.len() == 2); // 15h, 3Fh
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Flat memory: page 03h is never asked for.
    assert_eq!(sff8636::static_pages(&img), vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0)]);
}

// ---------- byte-built images ----------

/// A QSFP28 100GBASE-SR4 with paged memory; checksums fixed by `image`.
fn base() -> [u8; 256] {
    let mut b = [0u8; 256];
    b[0] = 0x11; // QSFP28
    b[1] = 0x08; // SFF-8636 Rev 2.8-2.10
    b[2] = 0x00; // paged, data ready
                 // Temperature 0x1900 = 6400 / 256 = 25.0 °C; Vcc 0x80e8 = 33000 -> 3.3 V.
    b[22..24].copy_from_slice(&[0x19, 0x00]);
    b[26..28].copy_from_slice(&[0x80, 0xe8]);
    for lane in 0..4 {
        // rx 0x2710 = 10000 -> 1.0 mW; bias 0x1388 = 5000 -> 10 mA; tx 0x1388 = 5000 -> 0.5 mW.
        b[34 + 2 * lane..36 + 2 * lane].copy_from_slice(&[0x27, 0x10]);
        b[42 + 2 * lane..44 + 2 * lane].copy_from_slice(&[0x13, 0x88]);
        b[50 + 2 * lane..52 + 2 * lane].copy_from_slice(&[0x13, 0x88]);
    }
    b[128] = 0x11;
    b[130] = 0x0c; // MPO 1x12
    b[131] = 0x80; // extended compliance in 192
    b[139] = 0x07; // 256B/257B
    b[140] = 0xff;
    b[147] = 0x00; // 850 nm VCSEL
    b[148..164].copy_from_slice(b"TEST VENDOR     ");
    b[168..184].copy_from_slice(b"TEST-PN         ");
    b[184..186].copy_from_slice(b"A1");
    b[186..188].copy_from_slice(&[0x42, 0x68]); // 17000 / 20 = 850 nm
    b[192] = 0x02; // 100GBASE-SR4
    b[193..196].copy_from_slice(&[0xff, 0xff, 0xff]); // every option implemented
    b[196..212].copy_from_slice(b"SN0001          ");
    b[212..220].copy_from_slice(b"240131  ");
    b[220] = 0x0c; // rx average, tx power supported
    b[222] = 0x67;
    b
}

/// Image of `b` (lower + page 00h) with valid CC_BASE / CC_EXT, plus optional page 03h.
fn image(mut b: [u8; 256], page03: Option<&[u8; 128]>) -> ModuleImage {
    b[191] = b[128..191].iter().fold(0u8, |a, x| a.wrapping_add(*x));
    b[223] = b[192..223].iter().fold(0u8, |a, x| a.wrapping_add(*x));
    let mut img = ModuleImage::new();
    img.insert_span(I2C_A0, 0, 0, 0, &b).expect("256 bytes of page 0");
    if let Some(p) = page03 {
        img.insert(I2C_A0, 3, 0, 128, p).expect("upper half of page 3");
    }
    img
}

fn decode(b: [u8; 256]) -> ModuleReport {
    sff8636::decode(&image(b, None))
}

#[test]
fn base_image_decodes_cleanly() {
    let r = decode(base());
    assert_eq!(r.warnings, vec!["page 03h not read: thresholds unavailable".to_string()]);
    assert_eq!(r.spec_revision.as_deref(), Some("SFF-8636 Rev 2.8-2.10"));
    assert_eq!(r.module_temperature_c, Some(25.0));
    close(r.supply_voltage_v, 3.3, 1e-9, "vcc");
    for lane in &r.lanes {
        assert_eq!(lane.rx_power_mw, Some(1.0));
        assert_eq!(lane.rx_power_dbm, Some(0.0)); // 10·log10(1) = 0
        close(lane.tx_bias_ma, 10.0, 1e-9, "bias");
        close(lane.tx_power_dbm, -3.0103, 1e-4, "tx dBm"); // 10·log10(0.5)
    }
    assert_eq!(r.modulation, Some(Modulation::Nrz)); // 256B/257B, 192 = 02h not PAM4
}

/// Page 03h thresholds, in the monitors' units (high alarm, low alarm, high warning, low warning).
#[test]
fn page_03h_thresholds() {
    let mut p3 = [0u8; 128];
    let mut put = |offset: usize, words: [u16; 4]| {
        for (i, w) in words.iter().enumerate() {
            p3[offset - 128 + 2 * i..offset - 128 + 2 * i + 2].copy_from_slice(&w.to_be_bytes());
        }
    };
    // 0x4b00 = 19200/256 = 75 °C; 0xfb00 = -1280/256 = -5 °C; 0x4600 = 70 °C; 0x0000 = 0 °C
    put(128, [0x4b00, 0xfb00, 0x4600, 0x0000]);
    // 36000, 30000, 35000, 31000 x 100 µV = 3.6, 3.0, 3.5, 3.1 V
    put(144, [36000, 30000, 35000, 31000]);
    // 20000, 100, 15000, 200 x 0.1 µW = 2.0, 0.01, 1.5, 0.02 mW
    put(176, [20000, 100, 15000, 200]);
    // 15000, 500, 12500, 1000 x 2 µA = 30, 1, 25, 2 mA
    put(184, [15000, 500, 12500, 1000]);
    // 30000, 500, 25000, 1000 x 0.1 µW = 3.0, 0.05, 2.5, 0.1 mW
    put(192, [30000, 500, 25000, 1000]);
    let img = image(base(), Some(&p3));
    let r = sff8636::decode(&img);
    let t = &r.thresholds;
    let temp = t.temperature_c.expect("temperature thresholds");
    assert_eq!((temp.high_alarm, temp.low_alarm, temp.high_warning, temp.low_warning), (75.0, -5.0, 70.0, 0.0));
    let v = t.supply_voltage_v.expect("vcc thresholds");
    for (a, e) in [(v.high_alarm, 3.6), (v.low_alarm, 3.0), (v.high_warning, 3.5), (v.low_warning, 3.1)] {
        close(Some(a), e, 1e-9, "vcc threshold");
    }
    let rx = t.rx_power_mw.expect("rx thresholds");
    assert_eq!((rx.high_alarm, rx.low_alarm, rx.high_warning, rx.low_warning), (2.0, 0.01, 1.5, 0.02));
    let bias = t.tx_bias_ma.expect("bias thresholds");
    for (a, e) in [(bias.high_alarm, 30.0), (bias.low_alarm, 1.0), (bias.high_warning, 25.0), (bias.low_warning, 2.0)] {
        close(Some(a), e, 1e-9, "bias threshold");
    }
    let tx = t.tx_power_mw.expect("tx thresholds");
    assert_eq!((tx.high_alarm, tx.low_alarm, tx.high_warning, tx.low_warning), (3.0, 0.05, 2.5, 0.1));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Paged memory (byte 2 bit 2 clear): page 03h is part of the static read.
    assert_eq!(
        sff8636::static_pages(&img),
        vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0), PageRequest::upper(I2C_A0, 3, 0)]
    );
}

#[test]
fn missing_page_03h_warns() {
    // Lower + 00h only of paged memory (byte 2 bit 2 clear): thresholds None, and said so
    // (CMIS warns alike for a missing page 02h).
    let r = decode(base());
    assert_eq!(r.thresholds, Default::default());
    assert!(r.warnings.iter().any(|w| w.contains("page 03h not read")), "{:?}", r.warnings);
    // Page 02h was read but 03h was not: the reader paged and skipped it.
    let mut img = image(base(), None);
    img.insert(I2C_A0, 2, 0, 128, &[0u8; 128]).unwrap();
    let r = sff8636::decode(&img);
    assert_eq!(r.thresholds.rx_power_mw, None);
    assert!(r.warnings.iter().any(|w| w.contains("page 03h not read")), "{:?}", r.warnings);
}

#[test]
fn flat_memory_ignores_page_03h() {
    let mut b = base();
    b[2] = 0x04; // flat memory
    let img = image(b, Some(&[0x11; 128]));
    let r = sff8636::decode(&img);
    assert_eq!(r.flat_memory, Some(true));
    assert_eq!(r.thresholds, Default::default());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(sff8636::static_pages(&img), vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0)]);
}

#[test]
fn static_pages_before_anything_is_read() {
    // Byte 2 unknown: ask for what every module has; page 03h once byte 2 is known.
    let img = ModuleImage::new();
    assert_eq!(sff8636::static_pages(&img), vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0, 0)]);
    let req = sff8636::monitor_requests(&img);
    assert!(req.iter().all(|r| r.is_valid() && r.offset + r.length <= 128));
    // Bytes 3 (first flag byte) through 57 (last tx power byte).
    assert_eq!(req, vec![PageRequest::new(I2C_A0, 0, 0, 3, 55)]);
}

#[test]
fn flags_set() {
    let mut b = base();
    b[3] = 0x21; // bit 0: Rx LOS lane 1; bit 5: Tx LOS lane 2
    b[4] = 0x18; // bit 3: Tx fault lane 4; bit 4: Tx adaptive EQ fault lane 1
    b[5] = 0x42; // bit 1: Rx LOL lane 2; bit 6: Tx LOL lane 3
    b[6] = 0x80; // temperature high alarm
    b[7] = 0x10; // Vcc low warning
    b[9] = 0x41; // lane 1 nibble 0100: rx low alarm; lane 2 nibble 0001: rx low warning
    b[12] = 0x02; // lane 4 nibble 0010: bias high warning
    b[13] = 0x80; // lane 1 nibble 1000: tx power high alarm
    let r = decode(b);
    assert_eq!(crate::support::flag_names(&r.module_flags), ["temperature_high_alarm", "supply_voltage_low_warning"]);
    let flags: Vec<Vec<&str>> = r.lanes.iter().map(|l| crate::support::flag_names(&l.flags)).collect();
    assert_eq!(flags[0], ["rx_los", "tx_adaptive_eq_fault", "rx_power_low_alarm", "tx_power_high_alarm"]);
    assert_eq!(flags[1], ["tx_los", "rx_lol", "rx_power_low_warning"]);
    assert_eq!(flags[2], ["tx_lol"]);
    assert_eq!(flags[3], ["tx_fault", "tx_bias_high_warning"]);
}

#[test]
fn flags_of_unimplemented_features_are_ignored() {
    let mut b = base();
    b[3] = 0xff; // every Rx and Tx LOS bit
    b[4] = 0xff;
    b[5] = 0xff;
    b[13] = 0xff;
    b[193..196].copy_from_slice(&[0, 0, 0]); // no Tx LOS, Tx fault, adaptive EQ, CDR LOL
    b[220] = 0x08; // no tx power measurement
    let r = decode(b);
    for lane in &r.lanes {
        assert_eq!(crate::support::flag_names(&lane.flags), ["rx_los"]); // Rx LOS is mandatory
    }
}

#[test]
fn oma_rx_power() {
    let mut b = base();
    b[220] = 0x04; // bit 3 clear: OMA; bit 2 set: tx power supported
    let r = decode(b);
    assert_eq!(r.rx_power_type, Some(RxPowerType::Oma));
    assert_eq!(r.lanes[0].tx_power_mw, Some(0.5));
}

#[test]
fn tx_power_unsupported() {
    let mut b = base();
    b[220] = 0x08; // bit 2 clear
    b[50..58].fill(0); // and no Tx power words: nothing to report
    let r = decode(b);
    assert_eq!(r.rx_power_type, Some(RxPowerType::Average));
    for lane in &r.lanes {
        assert_eq!((lane.tx_power_mw, lane.tx_power_dbm), (None, None));
        assert_eq!(lane.rx_power_mw, Some(1.0));
    }
}

#[test]
fn zero_rx_power_is_minus_infinity_dbm() {
    let mut b = base();
    b[38..40].copy_from_slice(&[0, 0]); // lane 3 rx power word = 0 -> 0 mW
    let r = decode(b);
    assert_eq!(r.lanes[2].rx_power_mw, Some(0.0));
    assert_eq!(r.lanes[2].rx_power_dbm, Some(f64::NEG_INFINITY));
    assert_eq!(r.lanes[1].rx_power_dbm, Some(0.0));
}

#[test]
fn checksum_mismatch_is_a_warning() {
    let mut img = image(base(), None);
    // Corrupt CC_BASE after `image` computed it.
    let good = img.byte(I2C_A0, 0, 0, 191).unwrap();
    img.insert(I2C_A0, 0, 0, 191, &[good.wrapping_add(1)]).unwrap();
    let r = sff8636::decode(&img);
    let base_cc = r.checksums.iter().find(|c| c.name == "CC_BASE").expect("CC_BASE checked");
    assert!(!base_cc.ok);
    assert_eq!((base_cc.stored, base_cc.computed), (good.wrapping_add(1), good));
    assert!(r.checksums.iter().any(|c| c.name == "CC_EXT" && c.ok));
    assert!(r.warnings.iter().any(|w| w.contains("CC_BASE checksum mismatch")), "{:?}", r.warnings);
    // Still decoded.
    assert_eq!(r.vendor_name.as_deref(), Some("TEST VENDOR"));
}

#[test]
fn pam4_from_encoding_or_extended_compliance() {
    let mut b = base();
    b[139] = 0x08; // encoding PAM4
    assert_eq!(decode(b).modulation, Some(Modulation::Pam4));
    let mut b = base();
    b[139] = 0x07; // 256B/257B, but 192 = 41h: 200GBASE-SR4 (QSFP56, 4 x 50G PAM4)
    b[192] = 0x41;
    let r = decode(b);
    assert_eq!(r.modulation, Some(Modulation::Pam4));
    assert!(r.media_type.unwrap_or_default().contains("200GBASE-SR4"));
    let mut b = base();
    b[139] = 0x00; // unspecified encoding
    b[192] = 0x25; // 100GBASE-DR behind CAUI-4: host lanes NRZ, not PAM4
    assert_eq!(decode(b).modulation, None);
}

#[test]
fn data_not_ready_and_identifier_mismatch_warn() {
    let mut b = base();
    b[2] = 0x01;
    b[128] = 0x0d;
    let r = decode(b);
    assert!(r.warnings.iter().any(|w| w.contains("data not ready")), "{:?}", r.warnings);
    assert!(r.warnings.iter().any(|w| w.contains("identifier mismatch")), "{:?}", r.warnings);
}

#[test]
fn lower_page_only_reports_monitors_without_identity() {
    let mut img = ModuleImage::new();
    img.insert(I2C_A0, 0, 0, 0, &base()[..128]).unwrap();
    let r = sff8636::decode(&img);
    assert_eq!(r.vendor_name, None);
    assert_eq!(r.checksums, vec![]);
    assert!(r.warnings.iter().any(|w| w.contains("upper page 00h not read")));
    // Capabilities unknown: everything the lower page holds is reported.
    assert_eq!(r.lanes[0].tx_power_mw, Some(0.5));
    assert_eq!(r.lanes[0].rx_power_mw, Some(1.0));
}

// ---------- arbitrary bytes ----------

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn never_panics_on_full_garbage(
        page0 in proptest::collection::vec(any::<u8>(), 256),
        page3 in proptest::option::of(proptest::collection::vec(any::<u8>(), 128)),
    ) {
        let mut img = ModuleImage::new();
        img.insert_span(I2C_A0, 0, 0, 0, &page0).unwrap();
        if let Some(p) = &page3 {
            img.insert(I2C_A0, 3, 0, 128, p).unwrap();
        }
        let r = sff8636::decode(&img);
        prop_assert_eq!(r.lanes.len(), 4);
        prop_assert_eq!(r.checksums.len(), 2);
        for req in sff8636::static_pages(&img).iter().chain(&sff8636::monitor_requests(&img)) {
            prop_assert!(req.is_valid());
        }
    }

    #[test]
    fn never_panics_on_partial_garbage(
        runs in proptest::collection::vec((0u16..256, proptest::collection::vec(any::<u8>(), 1..40), 0u8..5), 0..12),
    ) {
        let mut img = ModuleImage::new();
        for (offset, data, page) in runs {
            // Clip each run to its half page; lower half belongs to page 0.
            let end = if offset < 128 { 128 } else { 256 };
            let n = data.len().min((end - offset) as usize);
            let page = if offset < 128 { 0 } else { page };
            img.insert(I2C_A0, page, 0, offset, &data[..n]).unwrap();
        }
        let r = sff8636::decode(&img);
        prop_assert_eq!(r.lanes.len(), 4);
        prop_assert!(sff8636::static_pages(&img).iter().all(PageRequest::is_valid));
    }
}
