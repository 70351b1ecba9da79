//! CMIS (QSFP-DD / OSFP) captures at 400G and 800G through the binary, as a user runs it:
//! `scan --replay`, `decode` of the module pages a capture carries, `export --csv`.
//! Inputs are the generator's constants (tests/it/support/captures.rs); expected figures are
//! worked by hand below.
//!
//! Shared arithmetic (physics.md, src/analysis/q.rs model):
//! - 400GBASE-DR4 / 800G-DR8: 100G PAM4 lanes at 106.25 Gb/s (53.125 GBd x 2 bits), RS(544,514)
//!   with the Clause 124 pre-FEC limit 2.4e-4.
//! - PAM4 BER = 0.75 Q(x), Q(x) = erfc(x/sqrt 2)/2; margin_db = 10 log10(x / x_limit);
//!   limit: Q = 2.4e-4 / 0.75 = 3.2e-4 -> x_limit = 3.41407 (bisection on erfc).
//! - BER of a lane = corrected bits per second / 106.25e9.

use crate::support;
use crate::support::optics;
#[allow(dead_code)]
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::captures::{DR4_RATES, DR4_RX_DBM, DR8_RATES, DR8_RX_DBM, LANE_GBPS_100G_PAM4};

const DR4: &str = "dr4-400g-cmis-marginal.jsonl";
const DR8: &str = "dr8-800g-cmis-healthy.jsonl";
/// 61 samples per capture (steady_capture(.., 61, ..)), 60 intervals of ~1 s.
const SAMPLES: usize = 61;

/// Lane 2 of the DR4: BER 2.0e-5 -> Q = 2.667e-5 -> x = 4.04052;
/// 10 log10(4.04052 / 3.41407) = 0.732 dB.
const DR4_LANE2_MARGIN_DB: f64 = 0.732;
/// Lane 1 of the DR4: BER 2.0e-7 -> Q = 2.667e-7 -> x = 5.01392 -> 1.669 dB.
const DR4_LANE1_MARGIN_DB: f64 = 1.669;

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn scan(name: &str) -> Value {
    let out = optics().arg("scan").arg("--replay").arg(capture(name)).arg("--json").assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).expect("scan --json prints JSON");
    let ifaces = v["interfaces"].as_array().expect("interfaces array");
    assert_eq!(ifaces.len(), 1, "one interface: {v}");
    ifaces[0].clone()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn lane(iface: &Value, n: usize) -> &Value {
    iface["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap_or_else(|| panic!("lane {n} missing"))
}

fn flags(l: &Value) -> Vec<&str> {
    l["flags"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect()
}

/// Link, lanes and module figures shared by both captures: `n` lanes of 106.25 Gb/s PAM4 on
/// RS(544,514); rx power per lane from page 11h equal to what the generator wrote.
fn check_cmis_link_and_rx(i: &Value, n: usize, rx_dbm: &[f64]) {
    let link = &i["link"];
    assert_eq!(link["lanes"], n);
    assert_eq!(f(&link["lane_rate_gbps"]), LANE_GBPS_100G_PAM4);
    assert_eq!(link["modulation"], "PAM4");
    assert_eq!(link["fec"], "RS(544,514)");
    assert_eq!(f(&link["fec_limit_ber"]), 2.4e-4);
    assert_eq!(link["samples"], SAMPLES);
    assert_eq!(link["uncorrectable_blocks"], 0);
    assert_eq!(link["link_down_events"], 0);

    let m = &i["module"];
    assert_eq!(m["standard"], "CMIS");
    assert_eq!(m["spec_revision"], "CMIS 5.0");
    assert_eq!(m["module_state"], "ModuleReady");
    assert_eq!(m["modulation"], "PAM4");
    assert_eq!((m["host_lane_count"].clone(), m["media_lane_count"].clone()), (n.into(), n.into()));
    assert_eq!(m["active_application"]["app_sel"], 1);
    assert_eq!(f(&m["active_application"]["media_lane_bit_rate_gbps"]), 106.25);
    assert_eq!(m["warnings"], Value::Array(vec![]), "{}", m["warnings"]);
    // One module lane per populated media lane (page 00h byte 210), one analysed lane each.
    let mlanes = m["lanes"].as_array().unwrap();
    assert_eq!(mlanes.len(), n);
    assert_eq!(i["lanes"].as_array().unwrap().len(), n);
    for (k, want) in rx_dbm.iter().enumerate() {
        // The last sample's page 11h word: generator value ±0.02 dB jitter, 0.1 uW LSB
        // (under 0.001 dB at ~0.7 mW).
        let ml = &mlanes[k];
        assert_eq!(ml["lane"], k + 1);
        assert_eq!(ml["data_path_state"], "DPActivated");
        assert!((f(&ml["rx_power_dbm"]) - want).abs() < 0.03, "module lane {}: {ml}", k + 1);
        // The window mean of 61 such readings.
        let al = lane(i, k + 1);
        assert!((f(&al["rx_power_dbm"]) - want).abs() < 0.03, "lane {}: {al}", k + 1);
    }
}

#[test]
fn dr4_400g_marginal_lane2_is_flagged() {
    let i = scan(DR4);
    check_cmis_link_and_rx(&i, 4, &DR4_RX_DBM);
    assert_eq!(i["link"]["link_mode"], "400000baseDR4/Full");
    assert_eq!(i["module"]["identifier"], 0x18);
    assert_eq!(i["verdict"], "investigate");

    let l2 = lane(&i, 2);
    assert_eq!(l2["rank"], 1);
    assert!(flags(l2).contains(&"fec_hiding_marginal_optics"), "{l2}");
    // BER = 2,125,000 / 106.25e9 = 2.0e-5 (±5% per-interval noise averages out over 60).
    assert!((f(&l2["pre_fec_ber"]) / 2.0e-5 - 1.0).abs() < 0.02, "{l2}");
    assert!((f(&l2["margin_db"]) - DR4_LANE2_MARGIN_DB).abs() < 0.05, "{l2}");
    // ~127.5 million corrected bits in 60 s (2,125,000 x 60).
    assert!((f(&l2["corrected_bits"]) / (DR4_RATES[1] * 60.0) - 1.0).abs() < 0.02, "{l2}");
    // -1.85 dBm against its siblings' median -1.25: -0.60 dB; 100x their median BER (2.0e-7).
    assert!((f(&l2["evidence"]["rx_delta_db"]) + 0.60).abs() < 0.03, "{l2}");
    assert!((f(&l2["evidence"]["ber_ratio"]) / 100.0 - 1.0).abs() < 0.05, "{l2}");
    // Optical margin over the module's rx low warning (-5.9 dBm, page 02h): -1.85 + 5.9 = 4.05 dB.
    assert!((f(&l2["optical_margin_db"]) - 4.05).abs() < 0.03, "{l2}");

    // The siblings are fine: no flags, margins about 1.64-1.69 dB.
    for n in [1, 3, 4] {
        let l = lane(&i, n);
        assert!(flags(l).is_empty(), "lane {n}: {l}");
        assert!(f(&l["margin_db"]) > 1.6, "lane {n}: {l}");
    }
    assert!((f(&lane(&i, 1)["margin_db"]) - DR4_LANE1_MARGIN_DB).abs() < 0.05);
    // Every lane-specific reason is about lane 2.
    for r in i["reasons"].as_array().unwrap() {
        assert!(r["lane"].is_null() || r["lane"] == 2, "{r}");
    }
    // Port BER: (21,250 + 2,125,000 + 25,500 + 19,125) / (4 x 106.25e9) = 5.155e-6.
    assert!((f(&i["link"]["pre_fec_ber"]) / 5.155e-6 - 1.0).abs() < 0.02, "{}", i["link"]);
}

#[test]
fn dr8_800g_healthy_is_accepted() {
    let i = scan(DR8);
    check_cmis_link_and_rx(&i, 8, &DR8_RX_DBM);
    assert_eq!(i["link"]["link_mode"], "800000baseDR8/Full");
    assert_eq!(i["module"]["identifier"], 0x19);
    assert_eq!(i["verdict"], "accept");
    assert_eq!(i["reasons"], Value::Array(vec![]), "{}", i["reasons"]);
    for (k, rate) in DR8_RATES.iter().enumerate() {
        let l = lane(&i, k + 1);
        assert!(flags(l).is_empty(), "{l}");
        // e.g. lane 7: 13,812.5 / 106.25e9 = 1.3e-7.
        let ber = rate / 106.25e9;
        assert!((f(&l["pre_fec_ber"]) / ber - 1.0).abs() < 0.03, "lane {}: {l}", k + 1);
        // Worst lane 1.3e-7 -> x = 5.09613 -> 1.740 dB; best 0.9e-7 -> 1.798 dB.
        assert!((1.70..1.84).contains(&f(&l["margin_db"])), "lane {}: {l}", k + 1);
    }
}

/// The module pages of the capture's interface record, as a module image JSON file.
fn module_image_file(name: &str, dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(capture(name)).unwrap();
    let ir: Value =
        text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|r| r["record"] == "interface").expect("an interface record");
    let path = dir.join("module.json");
    std::fs::write(&path, ir["module"].to_string()).unwrap();
    path
}

fn decode(path: &Path) -> Value {
    let out = optics().arg("decode").arg(path).arg("--json").assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("decode --json prints JSON")
}

fn set4(v: &Value) -> [f64; 4] {
    [f(&v["high_alarm"]), f(&v["low_alarm"]), f(&v["high_warning"]), f(&v["low_warning"])]
}

fn near4(got: [f64; 4], want: [f64; 4]) -> bool {
    got.iter().zip(want).all(|(g, w)| (g - w).abs() < 1e-9)
}

/// Page 02h thresholds as the generator wrote them (high alarm, low alarm, high warning,
/// low warning), common to both modules.
fn check_thresholds(m: &Value) {
    let t = &m["thresholds"];
    // 1/256 C words: 75 x 256, -5 x 256, 70 x 256, 0.
    assert!(near4(set4(&t["temperature_c"]), [75.0, -5.0, 70.0, 0.0]));
    // 100 uV words 36300 / 29700 / 34650 / 31350.
    assert!(near4(set4(&t["supply_voltage_v"]), [3.63, 2.97, 3.465, 3.135]));
    // 0.1 uW words: +5.0 dBm = 3.16228 mW -> 31623; -9.9 -> 0.102329 -> 1023;
    // +4.0 -> 2.51189 -> 25119; -5.9 -> 0.257040 -> 2570.
    assert!(near4(set4(&t["rx_power_mw"]), [3.1623, 0.1023, 2.5119, 0.2570]));
    // -6.9 dBm -> 0.204174 mW -> 2042; -2.9 -> 0.512861 -> 5129.
    assert!(near4(set4(&t["tx_power_mw"]), [3.1623, 0.2042, 2.5119, 0.5129]));
    // 2 uA words x multiplier 1: 50000, 10000, 45000, 15000.
    assert!(near4(set4(&t["tx_bias_ma"]), [100.0, 20.0, 90.0, 30.0]));
    let sums = m["checksums"].as_array().unwrap();
    let names: Vec<&str> = sums.iter().map(|c| c["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["page 00h", "page 01h", "page 02h"]);
    assert!(sums.iter().all(|c| c["ok"] == true), "{sums:?}");
    assert_eq!(m["warnings"], Value::Array(vec![]), "{}", m["warnings"]);
    assert_eq!(m["rx_power_type"], "average");
    // Page 01h bytes 138-139: 1311 nm / 0.05 = 26220.
    assert_eq!(f(&m["wavelength_nm"]), 1311.0);
    assert_eq!(m["media_type"], "Optical Interfaces: SMF, 1310 nm EML");
    assert_eq!(m["vendor_name"], "ACME OPTICS");
    assert_eq!(m["date_code"], "250115");
}

#[test]
fn decode_of_the_dr4_module_pages() {
    let dir = tempfile::tempdir().unwrap();
    let m = decode(&module_image_file(DR4, dir.path()));
    assert_eq!(m["standard"], "CMIS");
    assert_eq!(m["identifier"], 0x18);
    assert_eq!(m["vendor_pn"], "QDD-400G-DR4");
    assert_eq!(m["vendor_sn"], "AC2503DR40017");
    assert_eq!(m["connector"], 0x0c); // MPO 1x12
    check_thresholds(&m);
    let apps = m["applications"].as_array().unwrap();
    assert_eq!(apps.len(), 1);
    // Lower bytes 86-89 = 50 1c 44 01: 400GAUI-4-L / 400GBASE-DR4, 4 + 4 lanes, start on lane 1.
    assert_eq!(apps[0]["host_interface"], "400GAUI-4-L C2M (Annex 120G)");
    assert_eq!(apps[0]["media_interface"], "400GBASE-DR4 (Clause 124)");
    assert_eq!(apps[0]["host_lane_assignment"], 1);
    assert_eq!(m["active_application"]["app_sel"], 1);
    // Byte 210 = 0xf0: lanes 5-8 do not exist.
    assert_eq!(m["lanes"].as_array().unwrap().len(), 4);
}

#[test]
fn decode_of_the_dr8_module_pages() {
    let dir = tempfile::tempdir().unwrap();
    let m = decode(&module_image_file(DR8, dir.path()));
    assert_eq!(m["identifier"], 0x19);
    assert_eq!(m["vendor_pn"], "OSFP-800G-DR8");
    assert_eq!(m["vendor_sn"], "AC2509DR80042");
    assert_eq!(m["connector"], 0x28); // MPO 1x16
    check_thresholds(&m);
    let apps = m["applications"].as_array().unwrap();
    assert_eq!(apps.len(), 2);
    // App 1: 52 14 88 01 -> 800GAUI-8 L over 8 media lanes of 100GBASE-DR.
    assert_eq!(apps[0]["host_interface"], "800GAUI-8 L C2M (Annex 120G)");
    assert_eq!((apps[0]["host_lane_count"].clone(), apps[0]["media_lane_count"].clone()), (8.into(), 8.into()));
    // App 2: the 400G-DR4 breakout, data paths may start on lanes 1 or 5 (0x11 = 17),
    // page 01h byte 177 the same for the media side.
    assert_eq!(apps[1]["media_interface"], "400GBASE-DR4 (Clause 124)");
    assert_eq!((apps[1]["host_lane_assignment"].clone(), apps[1]["media_lane_assignment"].clone()), (17.into(), 17.into()));
    assert_eq!(m["lanes"].as_array().unwrap().len(), 8);
}

/// `export --csv`: one row per sample and lane; lane 2 of the DR4 per interval.
fn export_rows(name: &str) -> (Vec<String>, Vec<csv::StringRecord>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    optics().arg("export").arg(capture(name)).arg("--csv").arg(&path).assert().success();
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let headers = rdr.headers().unwrap().iter().map(str::to_string).collect();
    (headers, rdr.records().map(|r| r.expect("RFC 4180 row")).collect())
}

#[test]
fn export_csv_has_a_row_per_sample_and_lane() {
    for (name, lanes) in [(DR4, 4usize), (DR8, 8)] {
        let (headers, rows) = export_rows(name);
        assert_eq!(rows.len(), SAMPLES * lanes, "{name}");
        let col = |h: &str| headers.iter().position(|x| x == h).unwrap();
        let mut seen: Vec<usize> = rows.iter().map(|r| r[col("lane")].parse().unwrap()).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen, (1..=lanes).collect::<Vec<_>>(), "{name}");
    }
    let (headers, rows) = export_rows(DR4);
    let col = |h: &str| headers.iter().position(|x| x == h).unwrap();
    let lane2: Vec<_> = rows.iter().filter(|r| &r[col("lane")] == "2" && !r[col("pre_fec_ber")].is_empty()).collect();
    assert_eq!(lane2.len(), SAMPLES - 1);
    for r in lane2 {
        // 2,125,000 bits/s ±5% over a ~1 s interval / 106.25e9 = 2.0e-5 ±5%.
        let ber: f64 = r[col("pre_fec_ber")].parse().unwrap();
        assert!((ber / 2.0e-5 - 1.0).abs() < 0.06, "{r:?}");
        let rx: f64 = r[col("rx_power_dbm")].parse().unwrap();
        assert!((rx - DR4_RX_DBM[1]).abs() < 0.03, "{r:?}");
        assert!(r[col("flags")].contains("fec_hiding_marginal_optics"), "{r:?}");
    }
}

/// The captures hold what a live sampler reads: the interface record every static page
/// `module::static_pages` asks for (whole upper halves), each sample exactly the runs
/// `module::monitor_requests` asks for (lower 0-25, page 11h 128-213).
#[test]
fn records_carry_what_the_cmis_reader_asks_for() {
    use optics::capture::{read_capture, Record};
    use optics::module::{monitor_requests, static_pages};
    for name in [DR4, DR8] {
        let cap = read_capture(capture(name)).unwrap();
        let ir = cap.records.iter().find_map(|r| if let Record::Interface(i) = r { Some(i) } else { None }).unwrap();
        let img = ir.module.as_ref().unwrap().image().unwrap();
        for req in static_pages(&img).unwrap() {
            let start = u16::from(req.offset);
            assert!(
                img.bytes(req.i2c_address, req.page, req.bank, req.offset, usize::from(req.length)).is_some(),
                "{name}: static page {:02x}h bank {} from {start} missing",
                req.page,
                req.bank
            );
        }
        let want: Vec<(u8, u8, u8, u16, usize)> = monitor_requests(&img)
            .unwrap()
            .iter()
            .map(|r| (r.i2c_address, r.page, r.bank, u16::from(r.offset), usize::from(r.length)))
            .collect();
        assert_eq!(want, [(0x50, 0, 0, 0, 26), (0x50, 0x11, 0, 128, 86)], "{name}");
        for rec in &cap.records {
            if let Record::Sample(s) = rec {
                let got: Vec<_> =
                    s.module.as_ref().unwrap().pages.iter().map(|p| (p.i2c_address, p.page, p.bank, p.offset, p.data.len())).collect();
                assert_eq!(got, want, "{name} t={}", s.t);
            }
        }
    }
}
