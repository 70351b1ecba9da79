//! CMIS decoder: two real dumps (tests/fixtures/real-dumps, headers kept verbatim) and byte-built
//! images. Every expected value is derived from the bytes by hand in a comment.

use optics::module::report::{Modulation, RxPowerType};
use optics::module::state::{DataPathState, ModuleState};
use optics::module::threshold::ThresholdSet;
use optics::module::{cmis, ModuleImage, ModuleReport, PageRequest, I2C_A0};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// A tiny reader for the two fixture layouts: `hexdump -C` rows (`00000080 18 43 ... |..|`)
// and Junos rows (`  0x80:19 43 ...`) under "Lower Page:" / "Upper Page NNh:" headings.
// ---------------------------------------------------------------------------------------

fn parse_dump(text: &str) -> ModuleImage {
    let mut img = ModuleImage::new();
    let mut page = 0u8;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('#') {
            continue;
        }
        if let Some(i) = t.find("Upper Page ") {
            page = u8::from_str_radix(&t[i + 11..i + 13], 16).expect("page number");
            continue;
        }
        if t.contains("Lower Page") {
            page = 0;
            continue;
        }
        let (addr, rest) = if let Some(r) = t.strip_prefix("0x") {
            match r.split_once(':') {
                Some(x) => x,
                None => continue,
            }
        } else {
            match t.split_once(' ') {
                Some((a, r)) if a.len() == 8 && a.chars().all(|c| c.is_ascii_hexdigit()) => (a, r),
                _ => continue,
            }
        };
        let addr = u16::from_str_radix(addr, 16).expect("address");
        let hex = rest.split('|').next().unwrap_or("");
        let bytes: Vec<u8> = hex.split_whitespace().map(|b| u8::from_str_radix(b, 16).expect("byte")).collect();
        img.insert_span(I2C_A0, page, 0, addr, &bytes).expect("row inside one page");
    }
    img
}

fn fixture(prefix: &str) -> ModuleImage {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps");
    let entry = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with(prefix))
        .expect("fixture file");
    parse_dump(&std::fs::read_to_string(entry.path()).expect("fixture text"))
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

fn assert_set(s: Option<ThresholdSet>, ha: f64, la: f64, hw: f64, lw: f64) {
    let s = s.expect("threshold set");
    assert!(close(s.high_alarm, ha) && close(s.low_alarm, la), "{s:?}");
    assert!(close(s.high_warning, hw) && close(s.low_warning, lw), "{s:?}");
}

// ---------------------------------------------------------------------------------------
// Real dumps
// ---------------------------------------------------------------------------------------

#[test]
fn cmis02_cisco_qsfpdd_cmis40_empty_application_table() {
    let img = fixture("cmis02_");
    let r = cmis::decode(&img);
    assert_eq!(r.identifier, Some(0x18)); // byte 0
    assert_eq!(r.identifier_name.as_deref(), Some("QSFP-DD Double Density 8X Pluggable Transceiver"));
    assert_eq!(r.spec_revision.as_deref(), Some("CMIS 4.0")); // byte 1 = 0x40
    assert_eq!(r.flat_memory, Some(false)); // byte 2 = 0x00: bit 7 clear -> paged
    assert_eq!(r.module_state, Some(ModuleState::Ready)); // byte 3 = 0x07: bits 3-1 = 3
    assert!(r.module_flags.is_empty()); // bytes 8-11 = 00 00 00 00
                                        // bytes 14-15 = 0x1700 = 5888 / 256 = 23.0 C; 16-17 = 0x8200 = 33280 * 100 uV = 3.328 V
    assert_eq!(r.module_temperature_c, Some(23.0));
    assert!(close(r.supply_voltage_v.unwrap(), 3.328));
    // byte 85 = 0x03; byte 212 = 0x00 is not trusted on a non-MMF module
    assert_eq!(r.media_type.as_deref(), Some("Passive Copper Cable"));
    // bytes 86-113 zero: descriptor 1 is unused (host ID 0x00), so the list is empty -- no
    // active application, no crash. Bytes 114-117 = 11 00 88 00 (a stray descriptor 8,
    // 400GAUI-8 / 8+8 lanes) follow the end of the list: ignored, with a warning.
    assert!(r.applications.is_empty());
    assert!(r.warnings.iter().any(|w| w.contains("application descriptor 8 follows the end")), "{:?}", r.warnings);
    assert_eq!(r.active_application, None);
    assert_eq!(r.modulation, None);
    assert_eq!(r.vendor_name.as_deref(), Some("CISCO")); // 129-144
    assert_eq!(r.vendor_oui.as_deref(), Some("00:06:f6")); // 145-147
    assert_eq!(r.vendor_pn.as_deref(), Some("68-103205-02")); // 148-163
    assert_eq!(r.vendor_rev.as_deref(), Some("2")); // 164-165 = "2 "
    assert_eq!(r.vendor_sn.as_deref(), Some("FAB261100CQ")); // 166-181
    assert_eq!(r.date_code.as_deref(), Some("221018")); // 182-189 = "221018  "
    assert_eq!(r.connector, Some(0x00)); // 203
    assert_eq!(r.connector_name.as_deref(), Some("Unknown or unspecified"));
    // page 00h checksum: byte 222 = 0xf9 = low byte of sum(128..=221)
    assert_eq!(r.checksums.len(), 1);
    assert_eq!((r.checksums[0].stored, r.checksums[0].ok), (0xf9, true));
    // Paged module whose dump lacks pages 01h, 02h, 11h: no lanes, each gap named.
    assert!(r.lanes.is_empty());
    assert_eq!(r.rx_power_type, None);
    for page in ["page 01h absent", "page 02h absent", "page 11h bank 0 absent"] {
        assert!(r.warnings.iter().any(|w| w.contains(page)), "{page}: {:?}", r.warnings);
    }
}

#[test]
fn cmis04_credo_osfp_aec_cmis50() {
    let img = fixture("cmis04_");
    let r = cmis::decode(&img);
    assert_eq!(r.identifier, Some(0x19)); // OSFP
    assert_eq!(r.spec_revision.as_deref(), Some("CMIS 5.0")); // byte 1 = 0x50
    assert_eq!(r.flat_memory, Some(false));
    assert_eq!(r.module_state, Some(ModuleState::Ready)); // 0x07 -> 3
    assert!(r.module_flags.is_empty());
    // 0x3344 = 13124 / 256 = 51.265625 C (page 01h byte 159 = 0x03: temp and Vcc implemented)
    assert_eq!(r.module_temperature_c, Some(51.265625));
    // 0x80d4 = 32980 * 100 uV = 3.298 V
    assert!(close(r.supply_voltage_v.unwrap(), 3.298));
    // byte 85 = 0x04; page 00h byte 212 = 0x0c
    assert_eq!(r.media_type.as_deref(), Some("Active Cable Assembly, Copper cable, near and far end limiting active equalizers"));
    assert_eq!(r.vendor_name.as_deref(), Some("Credo"));
    assert_eq!(r.vendor_oui.as_deref(), Some("9a:ad:ca"));
    assert_eq!(r.vendor_pn.as_deref(), Some("CAC845301A2NC2XA"));
    assert_eq!(r.vendor_sn.as_deref(), Some("BL8J4455150007V"));
    assert_eq!(r.date_code.as_deref(), Some("250409"));
    assert_eq!(r.connector_name.as_deref(), Some("No separable connector")); // 203 = 0x23
    assert_eq!(r.wavelength_nm, None); // page 01h 138-139 = 0: not an optical module

    // Lower 86..: 4b 04 11 ff | 4c 04 11 ff | 4d 04 22 55 | 4e 04 22 55 | 4f 04 44 11 |
    // 50 04 44 11 | ff (end). Media lane assignment page 01h 176-181: ff ff 55 55 11 11.
    // Same as the Junos "advertised_applications" table of this port.
    let expect = [
        (1, 0x4b, "100GAUI-1-S C2M (Annex 120G)", 1, 0xff),
        (2, 0x4c, "100GAUI-1-L C2M (Annex 120G)", 1, 0xff),
        (3, 0x4d, "200GAUI-2-S C2M (Annex 120G)", 2, 0x55),
        (4, 0x4e, "200GAUI-2-L C2M (Annex 120G)", 2, 0x55),
        (5, 0x4f, "400GAUI-4-S C2M (Annex 120G)", 4, 0x11),
        (6, 0x50, "400GAUI-4-L C2M (Annex 120G)", 4, 0x11),
    ];
    assert_eq!(r.applications.len(), 6);
    for (app, (sel, host, name, lanes, assign)) in r.applications.iter().zip(expect) {
        assert_eq!((app.app_sel, app.host_interface_id, &*app.host_interface), (sel, host, name));
        assert_eq!((app.media_interface_id, &*app.media_interface), (0x04, "Active Cable assembly with BER < 1e-6"));
        assert_eq!((app.host_lane_count, app.media_lane_count), (lanes, lanes));
        assert_eq!((app.host_lane_assignment, app.media_lane_assignment), (Some(assign), Some(assign)));
    }
    // Page 11h 206-213 = 50 50 50 50 58 58 58 58: AppSel 5 on every lane (DataPathID 0 / 4).
    let active = r.active_application.as_ref().expect("active application");
    assert_eq!(active.app_sel, 5);
    assert_eq!(active.host_interface, "400GAUI-4-S C2M (Annex 120G)");
    assert_eq!((r.host_lane_count, r.media_lane_count), (Some(4), Some(4)));
    // 400GAUI-4: 4 x 106.25 Gb/s PAM4; the AEC media code names no signal and maps lanes 1:1.
    assert_eq!(r.modulation, Some(Modulation::Pam4));
    assert_eq!(active.host_lane_bit_rate_gbps, Some(106.25));
    assert_eq!(active.media_lane_bit_rate_gbps, Some(106.25));

    // Page 01h 160 = 0x00: no Tx bias / Tx power / Rx power monitor -> None, never 0.
    assert_eq!(r.rx_power_type, None);
    assert_eq!(r.lanes.len(), 8); // byte 142 = 0x20: bits 1-0 = 0 -> bank 0 only
    for (i, lane) in r.lanes.iter().enumerate() {
        assert_eq!(lane.lane as usize, i + 1);
        assert_eq!((lane.rx_power_mw, lane.tx_power_mw, lane.tx_bias_ma), (None, None, None));
        assert!(lane.flags.is_empty()); // 11h 135-152 all zero
        assert_eq!(lane.data_path_state, Some(DataPathState::Activated)); // 128-131 = 0x44: 4
    }
    // Page 02h: temperature 4b00 fb00 4600 0000 -> 75, -5, 70, 0 C
    assert_set(r.thresholds.temperature_c, 75.0, -5.0, 70.0, 0.0);
    // Vcc 8b42 768e 875a 7a76 = 35650 30350 34650 31350 * 100 uV
    assert_set(r.thresholds.supply_voltage_v, 3.565, 3.035, 3.465, 3.135);
    assert_eq!((r.thresholds.tx_power_mw, r.thresholds.rx_power_mw, r.thresholds.tx_bias_ma), (None, None, None));
    // Checksums noted in the fixture header: 00h 0x0e, 01h 0xfd, 02h 0x2e, all valid.
    let sums: Vec<(&str, u8, bool)> = r.checksums.iter().map(|c| (c.name.as_str(), c.stored, c.ok)).collect();
    assert_eq!(sums, [("page 00h", 0x0e, true), ("page 01h", 0xfd, true), ("page 02h", 0x2e, true)]);
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);

    // Paged, one bank: lower + 00h + 01h + 02h + 10h/11h bank 0, all held by the dump.
    let pages = cmis::static_pages(&img);
    assert_eq!(pages.len(), 6);
    assert!(pages.iter().all(|p| img.has_upper_page(p.i2c_address, p.page, p.bank) || p.offset == 0));
}

// ---------------------------------------------------------------------------------------
// Byte-built images
// ---------------------------------------------------------------------------------------

/// A paged CMIS 5.2 QSFP-DD, SMF, app 1 = 400GAUI-8 / 400GBASE-DR4 (8 host, 4 media lanes).
fn base() -> ModuleImage {
    let mut lower = [0u8; 128];
    lower[0] = 0x18;
    lower[1] = 0x52;
    lower[3] = 3 << 1; // ModuleReady
    lower[85] = 0x02; // SMF
    lower[86..90].copy_from_slice(&[0x11, 0x1c, 0x84, 0x01]);
    lower[90] = 0xff; // end of list
    let mut img = ModuleImage::new();
    img.insert(I2C_A0, 0, 0, 0, &lower).unwrap();
    let mut p00 = [0x20u8; 128];
    p00[0] = 0x18;
    p00[210 - 128] = 0x00; // MediaLaneUnsupported (CMIS 5.2 8.3.7): all 8 media lanes exist
    p00[222 - 128] = p00[..94].iter().fold(0u8, |a, b| a.wrapping_add(*b));
    img.insert(I2C_A0, 0x00, 0, 128, &p00).unwrap();
    img
}

/// Page 01h: temperature + Vcc monitors, lane monitors byte 160 = `lane_mon`, banks code,
/// rx power type byte 151.
fn with_page01(img: &mut ModuleImage, lane_mon: u8, banks: u8, byte151: u8) {
    let mut p = [0u8; 128];
    p[142 - 128] = banks;
    p[151 - 128] = byte151;
    p[157 - 128] = 0x0f; // all Tx flags
    p[158 - 128] = 0x06; // Rx LOS, Rx CDR LOL
    p[159 - 128] = 0x03;
    p[160 - 128] = lane_mon;
    p[255 - 128] = p[2..127].iter().fold(0u8, |a, b| a.wrapping_add(*b));
    img.insert(I2C_A0, 0x01, 0, 128, &p).unwrap();
}

/// Page 11h of `bank`: AppSel 1 on all lanes, monitors word i = `base_word + i`.
fn with_page11(img: &mut ModuleImage, bank: u8, base_word: u16) {
    let mut p = [0u8; 128];
    p[..4].copy_from_slice(&[0x44; 4]);
    for i in 0..8 {
        let w = (base_word + i as u16).to_be_bytes();
        for off in [154, 170, 186] {
            p[off - 128 + 2 * i..off - 128 + 2 * i + 2].copy_from_slice(&w);
        }
        p[206 - 128 + i] = 0x10;
    }
    img.insert(I2C_A0, 0x11, bank, 128, &p).unwrap();
}

fn set(img: &mut ModuleImage, page: u8, bank: u8, offset: u16, bytes: &[u8]) {
    img.insert(I2C_A0, page, bank, offset, bytes).unwrap();
}

#[test]
fn two_banks_give_sixteen_lanes() {
    let mut img = base();
    with_page01(&mut img, 0x07, 0x01, 0x10); // banks code 1 -> banks 0 and 1
    with_page11(&mut img, 0, 10_000);
    with_page11(&mut img, 1, 20_000);
    let r = cmis::decode(&img);
    assert_eq!(r.lanes.len(), 16);
    // Lane 9 = bank 1 lane 1: rx power word 20000 * 0.1 uW = 2.0 mW = 3.0103 dBm
    let l9 = &r.lanes[8];
    assert_eq!(l9.lane, 9);
    assert_eq!(l9.rx_power_mw, Some(2.0));
    assert!((l9.rx_power_dbm.unwrap() - 3.0103).abs() < 1e-4);
    // Lane 16 = bank 1 lane 8: word 20007 -> 2.0007 mW; bias 20007 * 2 uA = 40.014 mA
    assert_eq!(r.lanes[15].lane, 16);
    assert!(close(r.lanes[15].tx_power_mw.unwrap(), 2.0007));
    assert!(close(r.lanes[15].tx_bias_ma.unwrap(), 40.014));
    assert_eq!(r.lanes[0].rx_power_mw, Some(1.0)); // bank 0 lane 1: 10000 -> 1 mW
                                                   // static pages: lower, 00h, 01h, 02h, 10h/11h for banks 0 and 1
    let pages = cmis::static_pages(&img);
    assert!(pages.contains(&PageRequest::upper(I2C_A0, 0x11, 1)));
    assert!(pages.contains(&PageRequest::upper(I2C_A0, 0x10, 1)));
    assert_eq!(pages.len(), 8);
    let mon = cmis::monitor_requests(&img);
    assert_eq!(
        mon,
        [PageRequest::new(I2C_A0, 0, 0, 0, 26), PageRequest::new(I2C_A0, 0x11, 0, 128, 86), PageRequest::new(I2C_A0, 0x11, 1, 128, 86)]
    );
    // A second bank advertised but not read is named, not invented.
    let mut one = base();
    with_page01(&mut one, 0x07, 0x01, 0x10);
    with_page11(&mut one, 0, 10_000);
    let r = cmis::decode(&one);
    assert_eq!(r.lanes.len(), 8);
    assert!(r.warnings.iter().any(|w| w.contains("page 11h bank 1 absent: lanes 9-16")));
}

#[test]
fn rx_power_type_oma_vs_average() {
    // page 01h byte 151 bit 4: 1 = average, 0 = OMA; meaningful only with an Rx power monitor
    for (byte151, want) in [(0x10, RxPowerType::Average), (0x00, RxPowerType::Oma)] {
        let mut img = base();
        with_page01(&mut img, 0x04, 0, byte151);
        assert_eq!(cmis::decode(&img).rx_power_type, Some(want));
    }
    let mut img = base();
    with_page01(&mut img, 0x00, 0, 0x10);
    assert_eq!(cmis::decode(&img).rx_power_type, None);
}

#[test]
fn tx_bias_multiplier_scales_monitors_and_thresholds() {
    // byte 160 bits 4-3: 01 -> x2, 10 -> x4; word 5000 * 2 uA = 10 mA before the multiplier
    for (lane_mon, mult) in [(0x01u8, 1.0), (0x09, 2.0), (0x11, 4.0)] {
        let mut img = base();
        with_page01(&mut img, lane_mon, 0, 0);
        with_page11(&mut img, 0, 5000);
        let mut p02 = [0u8; 128];
        // bias thresholds at 184-191: high alarm 6000 (12 mA), low alarm 1000 (2 mA), ...
        p02[184 - 128..192 - 128].copy_from_slice(&[0x17, 0x70, 0x03, 0xe8, 0x13, 0x88, 0x07, 0xd0]);
        set(&mut img, 0x02, 0, 128, &p02);
        let r = cmis::decode(&img);
        assert!(close(r.lanes[0].tx_bias_ma.unwrap(), 10.0 * mult));
        assert_eq!(r.lanes[0].tx_power_mw, None); // bit 1 clear: no Tx power monitor
        assert_eq!(r.lanes[0].rx_power_mw, None);
        // 6000/1000/5000/2000 words -> 12/2/10/4 mA, times the multiplier
        assert_set(r.thresholds.tx_bias_ma, 12.0 * mult, 2.0 * mult, 10.0 * mult, 4.0 * mult);
        assert_eq!(r.thresholds.rx_power_mw, None);
    }
    // Reserved multiplier code 11b: bias not decoded, warning
    let mut img = base();
    with_page01(&mut img, 0x19, 0, 0);
    with_page11(&mut img, 0, 5000);
    let r = cmis::decode(&img);
    assert_eq!(r.lanes[0].tx_bias_ma, None);
    assert!(r.warnings.iter().any(|w| w.contains("Tx bias multiplier")));
}

#[test]
fn flat_memory_stops_at_page_00h() {
    let mut img = base();
    set(&mut img, 0, 0, 2, &[0x80]); // MemoryModel = flat
    let pages = cmis::static_pages(&img);
    assert_eq!(pages, [PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0x00, 0)]);
    assert_eq!(cmis::monitor_requests(&img), [PageRequest::new(I2C_A0, 0, 0, 0, 26)]);
    let r = cmis::decode(&img);
    assert_eq!(r.flat_memory, Some(true));
    assert!(r.lanes.is_empty());
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    // Flat memory has no Active Control Set: application 1 is the one in use.
    assert_eq!(r.active_application.as_ref().map(|a| a.app_sel), Some(1));
}

#[test]
fn missing_page01_leaves_monitors_none() {
    let mut img = base();
    with_page11(&mut img, 0, 10_000);
    let r = cmis::decode(&img);
    assert_eq!(r.lanes.len(), 8);
    assert!(r.lanes.iter().all(|l| l.rx_power_mw.is_none() && l.tx_power_mw.is_none() && l.tx_bias_ma.is_none()));
    assert_eq!(r.rx_power_type, None);
    assert!(r.warnings.iter().any(|w| w.contains("page 01h absent")));
    // Before page 01h is read, static_pages asks for it and for bank 0 of 10h/11h only.
    let pages = cmis::static_pages(&base());
    assert_eq!(pages.len(), 6);
    assert!(pages.contains(&PageRequest::upper(I2C_A0, 0x01, 0)));
}

#[test]
fn pam4_applications_from_media_codes() {
    // app 1: 400GAUI-8 (0x11) / 400GBASE-DR4 (SMF 0x1c), lane counts 0x84 -> 8 host, 4 media
    let r = cmis::decode(&base());
    let a = r.active_application.as_ref().unwrap();
    assert_eq!(a.media_interface, "400GBASE-DR4 (Clause 124)");
    assert_eq!((a.host_lane_count, a.media_lane_count), (8, 4));
    assert_eq!(a.modulation, Some(Modulation::Pam4));
    assert_eq!((a.host_lane_bit_rate_gbps, a.media_lane_bit_rate_gbps), (Some(53.125), Some(106.25)));
    assert_eq!(a.host_lane_assignment, Some(0x01));
    assert_eq!(a.media_lane_assignment, None); // page 01h not read

    // MMF 400GBASE-SR8 (0x10), 8 x 53.125 Gb/s PAM4; a second app with 100GBASE-SR4 NRZ
    // selected by the Active Control Set (11h byte 206 = 0x20: AppSel 2).
    let mut img = base();
    set(&mut img, 0, 0, 85, &[0x01]);
    set(&mut img, 0, 0, 86, &[0x11, 0x10, 0x88, 0x01, 0x0b, 0x09, 0x44, 0x11, 0xff]);
    with_page11(&mut img, 0, 0);
    set(&mut img, 0x11, 0, 206, &[0x20]);
    let r = cmis::decode(&img);
    assert_eq!(r.applications[0].media_interface, "400GBASE-SR8 (Clause 138)");
    assert_eq!(r.applications[0].modulation, Some(Modulation::Pam4));
    assert_eq!(r.applications[0].media_lane_bit_rate_gbps, Some(53.125));
    let a = r.active_application.as_ref().unwrap();
    assert_eq!((a.app_sel, &*a.media_interface), (2, "100GBASE-SR4 (Clause 95)"));
    assert_eq!(r.modulation, Some(Modulation::Nrz));
    assert_eq!((r.host_lane_count, r.media_lane_count), (Some(4), Some(4)));

    // Unknown codes print as Unknown (0xNN)
    set(&mut img, 0, 0, 86, &[0xee, 0xef]);
    let r = cmis::decode(&img);
    assert_eq!(r.applications[0].host_interface, "Unknown (0xee)");
    assert_eq!(r.applications[0].media_interface, "Unknown (0xef)");
    assert_eq!(r.applications[0].modulation, None);
}

#[test]
fn applications_nine_to_fifteen_come_from_page01() {
    let mut img = base();
    // Lower descriptors 1-8 all used: no 0xff end marker there.
    let mut lower_apps = [0u8; 32];
    for d in lower_apps.chunks_exact_mut(4) {
        d.copy_from_slice(&[0x0b, 0x09, 0x44, 0x11]);
    }
    set(&mut img, 0, 0, 86, &lower_apps);
    with_page01(&mut img, 0x07, 0, 0);
    set(&mut img, 0x01, 0, 223, &[0x0d, 0x0c, 0x22, 0x55, 0xff]); // app 9: 100GAUI-2 / 100GBASE-SR2
    set(&mut img, 0x01, 0, 176 + 8, &[0x55]); // media lane assignment of app 9
    let r = cmis::decode(&img);
    assert_eq!(r.applications.len(), 9);
    let a9 = &r.applications[8];
    assert_eq!((a9.app_sel, a9.host_interface_id, a9.media_lane_assignment), (9, 0x0d, Some(0x55)));
}

#[test]
fn flags_are_reported_when_advertised() {
    let mut img = base();
    with_page01(&mut img, 0x07, 0, 0);
    set(&mut img, 0x01, 0, 157, &[0x0e]); // Tx fault NOT advertised (bit 0 clear)
    with_page11(&mut img, 0, 10_000);
    set(&mut img, 0x11, 0, 135, &[0x01, 0x02]); // Tx fault lane 1 (ignored), Tx LOS lane 2
    set(&mut img, 0x11, 0, 147, &[0x05]); // Rx LOS lanes 1 and 3
    set(&mut img, 0x11, 0, 149, &[0x80]); // Rx power high alarm lane 8
    set(&mut img, 0, 0, 8, &[0x01, 0x11]); // state changed; temperature + Vcc high alarm
    set(&mut img, 0x11, 0, 128, &[0x21]); // lane 1 DPDeactivated (1), lane 2 DPInit (2)
    let r = cmis::decode(&img);
    assert_eq!(crate::support::flag_names(&r.lanes[0].flags), ["rx_los"]);
    assert_eq!(crate::support::flag_names(&r.lanes[1].flags), ["tx_los"]);
    assert_eq!(crate::support::flag_names(&r.lanes[2].flags), ["rx_los"]);
    assert_eq!(crate::support::flag_names(&r.lanes[7].flags), ["rx_power_high_alarm"]);
    assert_eq!(
        crate::support::flag_names(&r.module_flags),
        ["module_state_changed", "temperature_high_alarm", "supply_voltage_high_alarm"]
    );
    assert_eq!(r.lanes[0].data_path_state, Some(DataPathState::Deactivated));
    assert_eq!(r.lanes[1].data_path_state, Some(DataPathState::Init));
}

#[test]
fn zero_rx_power_is_minus_infinity_dbm() {
    let mut img = base();
    with_page01(&mut img, 0x07, 0, 0);
    with_page11(&mut img, 0, 0); // lane 1 words = 0
    let r = cmis::decode(&img);
    assert_eq!(r.lanes[0].rx_power_mw, Some(0.0));
    assert_eq!(r.lanes[0].rx_power_dbm, Some(f64::NEG_INFINITY));
    assert_eq!(r.lanes[0].tx_power_dbm, Some(f64::NEG_INFINITY));
}

#[test]
fn checksum_mismatch_is_a_warning() {
    let mut img = base();
    // base() stores sum(128..=221) = 0x18 + 92 * 0x20 + 0x00 (byte 210) = 24 + 2944 = 2968
    // -> 2968 mod 256 = 0x98
    set(&mut img, 0x00, 0, 222, &[0x99]);
    let r = cmis::decode(&img);
    let c = &r.checksums[0];
    assert_eq!((c.stored, c.computed, c.ok), (0x99, 0x98, false));
    assert!(r.warnings.iter().any(|w| w.contains("page 00h checksum mismatch")));
    assert!(r.vendor_name.is_none()); // still decoded: an all-blank name is "not given"
}

#[test]
fn garbage_is_decoded_partially() {
    // Identifier says CMIS, only 10 bytes read.
    let mut img = ModuleImage::new();
    set(&mut img, 0, 0, 0, &[0x18, 0x50, 0x00, 0x06, 0, 0, 0, 0, 0, 0]);
    let r = cmis::decode(&img);
    assert_eq!(r.spec_revision.as_deref(), Some("CMIS 5.0"));
    assert_eq!(r.module_temperature_c, None);
    assert!(r.warnings.iter().any(|w| w.contains("lower memory")));
    assert!(cmis::static_pages(&img).iter().all(PageRequest::is_valid));

    // Reserved bank code 3, lane counts 0xf9 (15 host, 9 media), CMIS 3.0 revision.
    let mut img = base();
    set(&mut img, 0, 0, 1, &[0x30]);
    set(&mut img, 0, 0, 88, &[0xf9]);
    with_page01(&mut img, 0x07, 0x03, 0);
    let r = cmis::decode(&img);
    assert_eq!(r.lanes.len(), 0); // only bank 0 assumed, and its 11h is absent
    let a = &r.applications[0];
    assert_eq!((a.host_lane_count, a.media_lane_count), (8, 8));
    for w in ["reserved bank count", "host lane count 15", "media lane count 9", "CMIS revision 3.0"] {
        assert!(r.warnings.iter().any(|x| x.contains(w)), "{w}: {:?}", r.warnings);
    }
    assert_eq!(cmis::static_pages(&img).len(), 6);
}

fn report_is_sane(r: &ModuleReport) {
    assert!(r.lanes.len() <= 32);
    for a in &r.applications {
        assert!((1..=15).contains(&a.app_sel));
        assert!(a.host_lane_count <= 8 && a.media_lane_count <= 8);
    }
}

proptest! {
    #[test]
    fn arbitrary_bytes_and_pages_never_panic(
        lower in proptest::collection::vec(any::<u8>(), 0..=128),
        pages in proptest::collection::vec((prop_oneof![Just(0u8), Just(1), Just(2), Just(0x10), Just(0x11)], 0u8..4, proptest::collection::vec(any::<u8>(), 1..=128)), 0..8),
    ) {
        let mut img = ModuleImage::new();
        let mut lower = lower;
        if let Some(b) = lower.first_mut() {
            *b = 0x18;
        }
        if !lower.is_empty() {
            img.insert(I2C_A0, 0, 0, 0, &lower).unwrap();
        }
        for (page, bank, bytes) in &pages {
            img.insert(I2C_A0, *page, *bank, 128, bytes).unwrap();
        }
        let r = cmis::decode(&img);
        report_is_sane(&r);
        prop_assert!(cmis::static_pages(&img).iter().all(PageRequest::is_valid));
        prop_assert!(cmis::monitor_requests(&img).iter().all(PageRequest::is_valid));
    }
}
