//! CMIS VDM (pages 20h-2Fh) through the binary: `decode` of byte-built VDM pages, and
//! `scan --replay` of captures/dr8-800g-vdm-lane7-weak.jsonl, an 8-lane 800G-DR8 port
//! whose NIC (mlx5-style) counts corrected bits for lanes 1-4 only.
//!
//! Inputs are the generator's constants (tests/it/support/vdm_captures.rs); expected figures
//! are worked by hand here from the CMIS encodings:
//! - F16: m x 10^(e - 24), e = bits 15-11, m = bits 10-0 (CMIS 5.2 VDM sample formats);
//! - eSNR / LTP: U16, 1/256 dB;
//! - PAM4 margin: BER = 0.75 Q(x), margin = 10 log10(x / 3.41407) at the RS(544,514) limit
//!   2.4e-4 (see tests/cmis_captures.rs): BER 2.0e-5 -> x = 4.04052 -> 0.732 dB.

use crate::support;
use crate::support::optics;
#[allow(dead_code)]
use serde_json::Value;
use std::path::{Path, PathBuf};
use support::vdm_captures::*;

const CAPTURE: &str = "dr8-800g-vdm-lane7-weak.jsonl";

fn capture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(CAPTURE)
}

fn records(text: &str) -> Vec<Value> {
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn near(got: &Value, want: f64, rel: f64) -> bool {
    (f(got) / want - 1.0).abs() < rel
}

/// Static pages of the interface record plus the first sample's pages, as one module
/// image JSON file (what `optics decode` reads).
fn module_image(dir: &Path) -> PathBuf {
    let recs = records(&std::fs::read_to_string(capture()).unwrap());
    let ir = recs.iter().find(|r| r["record"] == "interface").unwrap();
    let sample = recs.iter().find(|r| r["record"] == "sample").unwrap();
    let mut pages = ir["module"]["pages"].as_array().unwrap().clone();
    pages.extend(sample["module"]["pages"].as_array().unwrap().iter().cloned());
    let path = dir.join("module.json");
    std::fs::write(&path, serde_json::json!({ "pages": pages }).to_string()).unwrap();
    path
}

#[test]
fn f16_words_of_the_fixture_follow_the_spec() {
    // 2.0e-5 = 2000 x 10^-8: e = 16 -> 16 << 11 | 2000 = 32768 + 2000 = 0x87d0.
    assert_eq!(f16(2.0e-5), 0x87d0);
    // 1.5e-7 = 1500 x 10^-10: e = 14 -> 28672 + 1500 = 0x75dc.
    assert_eq!(f16(1.5e-7), 0x75dc);
    // 1.0e-9 = 1000 x 10^-12: e = 12 -> 24576 + 1000 = 0x63e8.
    assert_eq!(f16(1.0e-9), 0x63e8);
    // 2.4e-4 = 240 x 10^-6: e = 18 -> 36864 + 240 = 0x90f0.
    assert_eq!(f16(2.4e-4), 0x90f0);
}

#[test]
fn decode_reports_vdm_per_lane() {
    let dir = tempfile::tempdir().unwrap();
    let out = optics().arg("decode").arg(module_image(dir.path())).arg("--json").assert().success().get_output().stdout.clone();
    let m: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(m["warnings"], Value::Array(vec![]), "{}", m["warnings"]);
    // Lower byte 87 = 0x56 with MediaType 0x02 (SMF): SFF-8024 Table 4-7 800GBASE-DR8.
    assert_eq!(m["active_application"]["media_interface"], "800GBASE-DR8 (Clause 124)");
    assert_eq!(f(&m["active_application"]["media_lane_bit_rate_gbps"]), 106.25);
    let v = &m["vdm"];
    // Page 2Fh byte 128 = 0x01: two groups. Group 1: 7 types x 8 lanes, group 2: 2 x 8.
    assert_eq!(v["groups_supported"], 2);
    let obs = v["observables"].as_array().unwrap();
    assert_eq!(obs.len(), 56 + 16);
    // Instance 6 of group 1 (type-major, 8k + lane - 1: k = 0 eSNR, lane 7): descriptor
    // bytes 140-141 = 0x06 0x05; sample 0x1180 = 4480 / 256 = 17.5 dB.
    let esnr7 = &obs[6];
    assert_eq!((esnr7["group"].clone(), esnr7["lane"].clone(), esnr7["type_id"].clone()), (1.into(), 7.into(), 5.into()));
    assert_eq!(esnr7["key"], "esnr_media_db");
    assert_eq!(esnr7["raw"], 0x1180);
    assert_eq!(f(&esnr7["value"]), 17.5);
    // Threshold set 0 at page 28h bytes 128-135: 30 / 15 / 28 / 18 dB x 256.
    let t = &esnr7["thresholds"];
    assert_eq!([f(&t["high_alarm"]), f(&t["low_alarm"]), f(&t["high_warning"]), f(&t["low_warning"])], VDM_ESNR_THRESHOLDS_DB);
    // Page 2Ch byte 131 bit 3 (instance 6: byte 6/2 = 3, low nibble): below the low warning.
    assert_eq!(esnr7["flags"], serde_json::json!(["low_warning"]));
    assert!(obs.iter().filter(|o| !o["flags"].as_array().unwrap().is_empty()).count() == 1);
    // Instance 46 (k = 5, BER current, lane 7): 0x87d0 = 2000 x 10^(16 - 24) = 2.0e-5;
    // its threshold set 2 high alarm 0x90f0 = 2.4e-4.
    let ber7 = &obs[5 * 8 + 6];
    assert_eq!((ber7["key"].clone(), ber7["raw"].clone()), ("pre_fec_ber_current_media".into(), 0x87d0.into()));
    assert!(near(&ber7["value"], 2.0e-5, 1e-12));
    assert!(near(&ber7["thresholds"]["high_alarm"], 2.4e-4, 1e-12));

    let lanes = v["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 8);
    for (k, l) in lanes.iter().enumerate() {
        assert_eq!(l["lane"], k + 1);
        assert_eq!(f(&l["media"]["esnr_db"]), VDM_ESNR_DB[k]);
        assert_eq!(f(&l["media"]["ltp_db"]), VDM_LTP_DB[k]);
        assert!(near(&l["media"]["pre_fec_ber_current"], VDM_BER[k], 1e-12));
        assert!(near(&l["media"]["pre_fec_ber_average"], VDM_BER[k], 1e-12));
        // Min and max: half and twice the current value (1.0e-5 = 1000 x 10^-8 and
        // 4.0e-5 = 400 x 10^-7 on lane 7).
        assert!(near(&l["media"]["pre_fec_ber_min"], VDM_BER[k] / 2.0, 1e-12));
        assert!(near(&l["media"]["pre_fec_ber_max"], VDM_BER[k] * 2.0, 1e-12));
        assert_eq!(f(&l["media"]["errored_frames_current"]), 0.0);
        // Group 2: host eSNR 24 dB = 0x1800, host BER 0x63e8 = 1.0e-9.
        assert_eq!(f(&l["host"]["esnr_db"]), VDM_HOST_ESNR_DB);
        assert!(near(&l["host"]["pre_fec_ber_current"], VDM_HOST_BER, 1e-12));
    }

    let out = optics().arg("decode").arg(module_image(dir.path())).assert().success().get_output().stdout.clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("VDM: 72 observables in 2 groups"), "{text}");
    let row7 = text.lines().find(|l| l.starts_with("7 ") && l.contains("media")).unwrap_or_else(|| panic!("{text}"));
    assert!(row7.contains("17.50") && row7.contains("13.50") && row7.contains("2.00e-5"), "{row7}");
    assert!(text.contains("VDM flag: lane 7 esnr_media_db: low_warning"), "{text}");
}

fn scan(path: &Path) -> Value {
    let out = optics().arg("scan").arg("--replay").arg(path).arg("--json").assert().success().get_output().stdout.clone();
    let v: Value = serde_json::from_slice(&out).unwrap();
    v["interfaces"][0].clone()
}

fn lane(i: &Value, n: usize) -> &Value {
    i["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap()
}

#[test]
fn scan_ranks_all_eight_lanes_with_vdm_where_the_nic_is_blind() {
    let i = scan(&capture());
    let order: Vec<u64> = i["lanes"].as_array().unwrap().iter().map(|l| l["lane"].as_u64().unwrap()).collect();
    assert_eq!(order.len(), 8);
    assert_eq!(order[0], 7, "lane 7 weakest: {order:?}");
    assert_eq!(i["verdict"], "investigate");
    let l7 = lane(&i, 7);
    assert_eq!(l7["rank"], 1);
    assert_eq!(l7["ber_source"], "vdm");
    assert!(near(&l7["pre_fec_ber"], 2.0e-5, 1e-9));
    // 2.0e-5 -> Q = 2.667e-5 -> x = 4.04052 -> 10 log10(4.04052 / 3.41407) = 0.732 dB.
    assert!((f(&l7["margin_db"]) - 0.732).abs() < 2e-3, "{l7}");
    assert_eq!(f(&l7["esnr_db"]), 17.5);
    assert_eq!(f(&l7["ltp_db"]), 13.5);
    assert_eq!(f(&l7["host"]["esnr_db"]), 24.0);
    let flags: Vec<&str> = l7["flags"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()).collect();
    assert!(flags.contains(&"low_margin") && flags.contains(&"fec_hiding_marginal_optics"), "{flags:?}");
    // Light normal (-1.05 dBm, its siblings' median), eSNR 3.5 dB low: not the fiber.
    let advice = l7["advice"].as_str().unwrap();
    assert!(advice.contains("eSNR is 17.5 dB, 3.5 dB below") && advice.contains("not the fiber"), "{advice}");
    for n in 1..=8 {
        let l = lane(&i, n);
        if n <= 4 {
            // The NIC's own count ranks first: BER = VDM_RATES / 106.25e9 (±5% noise),
            // not the module's 1.5e-7.
            assert_eq!(l["ber_source"], "driver", "{l}");
            assert!(near(&l["pre_fec_ber"], VDM_RATES[n - 1] / 106.25e9, 0.03), "{l}");
            assert!(near(&l["module_pre_fec_ber"], 1.5e-7, 1e-9));
        } else {
            assert_eq!(l["ber_source"], "vdm", "{l}");
            assert!(near(&l["pre_fec_ber"], VDM_BER[n - 1], 1e-9));
            assert_eq!(l["corrected_bits"], Value::Null);
        }
        if n != 7 {
            assert!(l["flags"].as_array().unwrap().is_empty(), "{l}");
        }
    }
    let notes: Vec<&str> = i["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(
        notes.iter().any(|n| n.starts_with("lanes 5-8: pre-FEC BER from the module's VDM")
            && n.contains("mlx5 exposes corrected bits for lanes 1-4 only")),
        "{notes:?}"
    );
}

#[test]
fn without_vdm_the_blind_lanes_have_no_ber_and_say_why() {
    // The same capture with every VDM page (20h-2Fh) removed from its records.
    let text = std::fs::read_to_string(capture()).unwrap();
    let stripped: String = records(&text)
        .into_iter()
        .map(|mut r| {
            if let Some(pages) = r["module"]["pages"].as_array_mut() {
                pages.retain(|p| !(0x20..=0x2f).contains(&p["page"].as_u64().unwrap()));
            }
            r.to_string() + "\n"
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("no-vdm.jsonl");
    std::fs::write(&path, stripped).unwrap();
    let i = scan(&path);
    for n in 5..=8 {
        let l = lane(&i, n);
        assert_eq!((l["pre_fec_ber"].clone(), l["ber_source"].clone(), l["margin_db"].clone()), (Value::Null, Value::Null, Value::Null));
    }
    assert_eq!(lane(&i, 1)["ber_source"], "driver");
    // The port BER is still there: total / (8 x 106.25e9): sum(VDM_RATES) = 2,201,125 /s
    // over 8 x 106.25e9 = 2.5896e-6.
    let total: f64 = VDM_RATES.iter().sum();
    assert!(near(&i["link"]["pre_fec_ber"], total / (8.0 * 106.25e9), 0.03), "{}", i["link"]);
    let notes: Vec<&str> = i["notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    let why = notes.iter().find(|n| n.starts_with("lanes 5-8: no per-lane pre-FEC BER")).unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        why.contains("lanes 1-4 only")
            && why.contains("mlx5 exposes corrected bits for lanes 1-4 only")
            && why.contains("port-level BER is still judged"),
        "{why}"
    );
}

#[test]
fn csv_carries_the_vdm_columns() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.csv");
    optics().arg("export").arg(capture()).arg("--csv").arg(&path).assert().success();
    let mut rdr = csv::Reader::from_path(&path).unwrap();
    let headers: Vec<String> = rdr.headers().unwrap().iter().map(str::to_string).collect();
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap_or_else(|| panic!("no {name} column"));
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    let last7 = rows.iter().rev().find(|r| &r[col("lane")] == "7").unwrap();
    assert_eq!(&last7[col("esnr_db")], "17.5");
    assert_eq!(&last7[col("ltp_db")], "13.5");
    assert_eq!(&last7[col("ber_source")], "vdm");
    assert_eq!(last7[col("module_pre_fec_ber")].parse::<f64>().unwrap(), 2.0e-5);
    let last1 = rows.iter().rev().find(|r| &r[col("lane")] == "1").unwrap();
    assert_eq!(&last1[col("ber_source")], "driver");
}

#[cfg(live)]
#[test]
fn vdm_descriptors_are_read_once_and_samples_every_time() {
    use optics::capture::read_capture;
    use optics::module::{PageRequest, I2C_A0};
    use optics::sample::module_cache::ModuleCache;
    use optics::source::replay::ReplaySource;
    use optics::source::Source;

    let cap = read_capture(capture()).unwrap();
    let mut src = ReplaySource::new(&cap);
    let mut cache = ModuleCache::new();
    let first = cache.sample(&mut src, "enp8s0f0np0").unwrap();
    assert!(first.static_pages.is_some());
    let img = cache.static_image().unwrap();
    // Page 01h byte 142 bit 6 -> page 2Fh; its byte 128 = 1 -> groups 1-2: descriptor pages
    // 20h-21h and threshold pages 28h-29h, whole upper halves, bank 0.
    for page in [0x2f, 0x20, 0x21, 0x28, 0x29] {
        assert!(img.has_upper_page(I2C_A0, page, 0), "page {page:#04x} not read");
    }
    // Sample pages are not static.
    assert!(!img.has_upper_page(I2C_A0, 0x24, 0));
    src.advance();
    let before = src.io_counts();
    let second = cache.sample(&mut src, "enp8s0f0np0").unwrap();
    assert!(second.static_pages.is_none());
    let reqs: Vec<PageRequest> =
        second.monitor.iter().map(|e| PageRequest::new(e.i2c_address, e.page, e.bank, e.offset as u8, e.data.len() as u8)).collect();
    // Group 1 uses 56 instances: 112 sample bytes on 24h, 28 flag bytes at 2Ch 128; group 2
    // 16 instances: 32 bytes on 25h, 8 flag bytes at 2Ch 160 (128 + 32 x group index 1).
    for want in [
        PageRequest::new(I2C_A0, 0x24, 0, 128, 112),
        PageRequest::new(I2C_A0, 0x25, 0, 128, 32),
        PageRequest::new(I2C_A0, 0x2c, 0, 128, 28),
        PageRequest::new(I2C_A0, 0x2c, 0, 160, 8),
    ] {
        assert!(reqs.contains(&want), "{want:?} not among {reqs:?}");
    }
    // Lower 0-25 (26) + page 11h 128-213 (86) + VDM 112 + 32 + 28 + 8 = 292 bytes per sample.
    assert_eq!(src.io_counts().bytes - before.bytes, 292);
}

#[test]
fn a_real_cmis_module_without_vdm_decodes_without_it() {
    // tests/fixtures/real-dumps/cmis04 (Credo OSFP AEC, CMIS 5.0): page 01h byte 142 = 0x20,
    // bit 6 (VDM pages supported) clear: no `vdm`, and no VDM warning.
    let dump = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/real-dumps/cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt");
    let out = optics().arg("decode").arg(dump).arg("--json").assert().success().get_output().stdout.clone();
    let m: Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(m["standard"], "CMIS");
    assert_eq!(m["vdm"], Value::Null);
    assert!(m["warnings"].as_array().unwrap().iter().all(|w| !w.as_str().unwrap().contains("VDM")), "{}", m["warnings"]);
}
