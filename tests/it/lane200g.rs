//! 200G lanes end to end: the bundled 1.6TBASE-DR8 capture (tests/it/support/lane200g_captures.rs)
//! through `scan --replay --json`. Expected figures are the generator's constants through the
//! specs: SFF-8024 Rev 4.13 codes, 8 x 212.5 Gb/s lanes (IEEE 802.3dj), RS(544,514) with 4
//! codewords interleaved (802.3dj 1.6TBASE-R), the PAM4 Q model for the margin.

use crate::support;
use serde_json::Value;
use support::lane200g_captures::*;

fn scan() -> Value {
    scan_path(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/dr8-1600g-cmis-lane5-weak.jsonl"))
}

fn scan_path(cap: &std::path::Path) -> Value {
    let out = support::optics().arg("scan").arg("--replay").arg(cap).arg("--json").output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    v["interfaces"][0].clone()
}

#[test]
fn a_1600g_dr8_port_is_decoded_and_judged_on_212g_lanes() {
    let a = scan();
    // Application descriptors: SFF-8024 Table 4-5 host and Table 4-7 SMF media codes.
    let apps: Vec<(u64, &str, u64, &str, u64)> = a["module"]["applications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["host_interface_id"].as_u64().unwrap(),
                p["host_interface"].as_str().unwrap(),
                p["media_interface_id"].as_u64().unwrap(),
                p["media_interface"].as_str().unwrap(),
                p["host_lane_count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        apps,
        [
            (0x83, "1.6TAUI-8 C2M (Annex 176E)", 0x7f, "1.6TBASE-DR8 (Clause 180)", 8),
            (0x82, "800GAUI-4 C2M (Annex 176E)", 0x77, "800GBASE-DR4 (Clause 180)", 4),
            (0x80, "200GAUI-1 C2M (Annex 176E)", 0x73, "200GBASE-DR1 (Clause 180)", 1),
        ]
    );
    for p in a["module"]["applications"].as_array().unwrap() {
        assert_eq!((p["host_lane_bit_rate_gbps"].as_f64(), p["media_lane_bit_rate_gbps"].as_f64()), (Some(212.5), Some(212.5)));
    }
    // 1,600,000 Mb/s over 8 lanes: the 200G PAM4 class, 212.5 Gb/s on the wire.
    let link = &a["link"];
    assert_eq!((link["lanes"].as_u64(), link["lane_rate_gbps"].as_f64()), (Some(8), Some(LANE_GBPS_200G_PAM4)));
    assert_eq!((link["fec"].as_str(), link["fec_limit_ber"].as_f64()), (Some("RS(544,514)"), Some(2.4e-4)));

    // Frame loss: X = 4 (1.6TBASE-R), MFC = 5120 / 672: FLR / CER = 4 + 672 / 5120 = 4.13125;
    // 8 x 212.5e9 / 5440 = 312.5e6 codewords/s over the window.
    let fl = &a["frame_loss"];
    assert_eq!(fl["interleave_codewords"], 4);
    assert!((fl["flr_per_codeword_error_ratio"].as_f64().unwrap() - 4.13125).abs() < 1e-12);
    let secs = link["duration_s"].as_f64().unwrap();
    assert!((fl["codewords"].as_f64().unwrap() / (312.5e6 * secs) - 1.0).abs() < 1e-12, "{fl}");
    assert_eq!((fl["codeword_error_ratio"].as_f64(), fl["flr"].as_f64()), (Some(0.0), Some(0.0)));

    // Lane BER = bits/s / 212.5e9 (±5% noise averaged over 60 intervals: within 1%); lane 5
    // at 2e-5 is 0.732 dB over the limit (module docs), the others 2e-7.
    for l in a["lanes"].as_array().unwrap() {
        let n = l["lane"].as_u64().unwrap() as usize;
        let want = DR8_16T_RATES[n - 1] / (LANE_GBPS_200G_PAM4 * 1e9);
        let ber = l["pre_fec_ber"].as_f64().unwrap();
        assert!((ber / want - 1.0).abs() < 0.01, "lane {n}: {ber} vs {want}");
    }
    let weak = a["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == DR8_16T_WEAK_LANE as u64).unwrap();
    assert_eq!(weak["rank"], 1);
    assert!((weak["margin_db"].as_f64().unwrap() - 0.732).abs() < 0.01, "{weak}");
    let codes: Vec<(String, Option<u64>)> =
        a["reasons"].as_array().unwrap().iter().map(|r| (r["code"].as_str().unwrap().to_string(), r["lane"].as_u64())).collect();
    assert_eq!(codes, [("fec_hiding_marginal_optics".to_string(), Some(5)), ("low_margin".to_string(), Some(5))]);
    assert_eq!(a["verdict"], "investigate");
    // 1.6TBASE-DR8 (Clause 180) runs RS(544,514) end to end at 106.25 GBd: no inner FEC,
    // the margin is the optical lane's own, and no note says otherwise.
    assert!(!a["notes"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("inner FEC")), "{}", a["notes"]);
    assert!(link["fec_limit_source"].as_str().unwrap().starts_with("IEEE 802.3dj 200G lanes: RS(544,514) end to end"), "{link}");
}

#[test]
fn behind_an_inner_fec_the_host_counts_the_same_212g_stream_and_says_whose_margin_it_is() {
    // 1.6TBASE-DR8-2 (Clause 181): 8 x 113.4375 GBd x 2 = 226.875 Gb/s on the fibre, the
    // inner FEC's overhead on the host's 8 x 212.5 Gb/s; the module removes it again, so the
    // host's corrected bits are still over 212.5 Gb/s lanes.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dr8-2.jsonl");
    std::fs::write(&path, dr8_2_capture()).unwrap();
    let a = scan_path(&path);
    let app = &a["module"]["applications"][0];
    assert_eq!(app["media_interface"], "1.6TBASE-DR8-2 (Clause 181)");
    assert_eq!((app["host_lane_bit_rate_gbps"].as_f64(), app["media_lane_bit_rate_gbps"].as_f64()), (Some(212.5), Some(2.0 * 113.4375)));
    assert_eq!(a["link"]["lane_rate_gbps"].as_f64(), Some(LANE_GBPS_200G_PAM4));
    for l in a["lanes"].as_array().unwrap() {
        let n = l["lane"].as_u64().unwrap() as usize;
        let want = DR8_16T_RATES[n - 1] / (LANE_GBPS_200G_PAM4 * 1e9);
        assert!((l["pre_fec_ber"].as_f64().unwrap() / want - 1.0).abs() < 0.01, "lane {n}");
    }
    // Which measurement the margin is: the host FEC's, behind the module's inner FEC.
    assert!(
        a["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with("200G lanes through an inner FEC (IEEE 802.3dj Clause 181/183 PMD)")),
        "{}",
        a["notes"]
    );
}

/// A 1.6T port's lane that came back 30x worse after a flap (the timing of
/// tests/it/after_flap.rs: before (0, 596] s, after (600, 1800] s): base BER 42,500 / 212.5e9
/// = 2e-7, lane 2 after the drop 6e-6.
#[test]
fn a_1600g_lane_thirty_times_worse_after_a_flap_is_degraded_after_flap() {
    use support::flap_captures::{FLAP_LANE, FLAP_RISE, FLAP_T_S};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dr8-1600g-flap.jsonl");
    std::fs::write(&path, dr8_1600g_flap_capture(FLAP_RISE, 0)).unwrap();
    let a = scan_path(&path);
    let f = &a["after_flap"][0];
    assert_eq!(f["drop_t_s"], FLAP_T_S as f64);
    assert_eq!((f["before_s"].as_f64(), f["after_s"].as_f64()), (Some(596.0), Some(1200.0)));
    let base = DR8_16T_FLAP_BITS_PER_S / (LANE_GBPS_200G_PAM4 * 1e9);
    let lanes = f["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 8);
    for l in lanes {
        let n = l["lane"].as_u64().unwrap() as usize;
        let want = if n == FLAP_LANE { FLAP_RISE } else { 1.0 };
        assert!((l["pre_fec_ber_before"].as_f64().unwrap() / base - 1.0).abs() < 0.01, "lane {n}: {l}");
        assert!((l["pre_fec_ber_after"].as_f64().unwrap() / base / want - 1.0).abs() < 0.01, "lane {n}: {l}");
        assert_eq!(l["degraded"], n == FLAP_LANE, "lane {n}");
    }
    let r: Vec<&Value> = a["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == "degraded_after_flap").collect();
    assert_eq!(r.len(), 1, "{}", a["reasons"]);
    assert_eq!(r[0]["lane"].as_u64(), Some(FLAP_LANE as u64));
    let msg = r[0]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("lane 2: pre-FEC BER 6.0e-6 since the link came back from the drop at t=600 s, 30x the 2.0e-7 before it"),
        "{msg}"
    );
}

/// Frame loss on 200G lanes with uncorrectable codewords, and a flap that changed nothing:
/// 1 uncorrectable codeword a second over 1,800 s of 8 x 212.5e9 / 5440 = 312.5e6 codewords/s
/// (no histogram: the lane rate counts them): CER = 1,800 / 5.625e11 = 3.2e-9; X = 4
/// (1.6TBASE-R), 64-octet frames: FLR = 3.2e-9 x (4 + 672 / 5120) = 1.3220e-8, over the
/// module's 1.7e-12 and the PHY's 6.2e-11.
#[test]
fn a_1600g_port_losing_codewords_counts_frame_loss_with_four_interleaved() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dr8-1600g-unchanged.jsonl");
    std::fs::write(&path, dr8_1600g_flap_capture(1.0, 1)).unwrap();
    let a = scan_path(&path);
    assert!(!a["reasons"].as_array().unwrap().iter().any(|r| r["code"] == "degraded_after_flap"), "{}", a["reasons"]);
    let fl = &a["frame_loss"];
    assert_eq!((fl["interleave_codewords"].as_u64(), fl["codewords_source"].as_str()), (Some(4), Some("lane_rate")));
    assert_eq!(fl["uncorrectable_codewords"].as_u64(), Some(1800));
    assert!((fl["codewords"].as_f64().unwrap() / 5.625e11 - 1.0).abs() < 1e-12, "{fl}");
    assert!((fl["codeword_error_ratio"].as_f64().unwrap() / 3.2e-9 - 1.0).abs() < 1e-9, "{fl}");
    assert!((fl["flr"].as_f64().unwrap() / (3.2e-9 * 4.13125) - 1.0).abs() < 1e-9, "{fl}");
    let budgets: Vec<(&str, f64, bool)> = fl["budgets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| (b["name"].as_str().unwrap(), b["flr"].as_f64().unwrap(), b["observed_within"].as_bool().unwrap()))
        .collect();
    assert_eq!(budgets, [("module", 1.7e-12, false), ("phy", 6.2e-11, false)]);
}
