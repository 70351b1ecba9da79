//! The captures bundled in `captures/` are exactly what tests/it/support/captures.rs builds.
//! Regenerate after changing the generator: `OPTICS_REGENERATE_CAPTURES=1 cargo test --test bundled_captures`.

use crate::support;
#[allow(dead_code)]
use serde_json::{json, Value};
use support::captures::*;

const MARGINAL_RX_DBM: [f64; 4] = [-1.0, -1.1, -1.5, -1.6];
const HEALTHY_RX_DBM: [f64; 4] = [-1.0, -1.1, -1.05, -1.15];
/// Lane 4 at 3.533e6 corrected bits/s absorbs 212 million over 60 s; lane 2 at 23,333/s, 1.4 million:
/// the ~150x of the 200G SR4 case. BER = rate / 53.125e9: lane 4 6.65e-5, lane 2 4.39e-7.
const MARGINAL_RATES: [f64; 4] = [15_000.0, 23_333.0, 500_000.0, 3_533_333.0];
/// Healthy PAM4 lanes: BER 2.3e-7 .. 3.4e-7, within a factor 1.5 of each other.
const HEALTHY_RATES: [f64; 4] = [12_000.0, 15_000.0, 14_000.0, 18_000.0];

fn marginal_port() -> Port {
    cx7_port("ens3np0", sr4_200g("MT2233FT01234", MARGINAL_RX_DBM), MARGINAL_RATES)
}

fn healthy_port() -> Port {
    cx7_port("ens3np0", sr4_200g("MT2233FT01234", HEALTHY_RX_DBM), HEALTHY_RATES)
}

/// Samples of one port where `at(i, port, counters)` may change things before sample i.
fn scripted(port: Port, n: usize, seed: u64, mut at: impl FnMut(usize, f64, &mut Port, &mut Counters, &mut Vec<Value>)) -> String {
    let mut rng = Rng::new(seed);
    let mut port = port;
    let mut records = vec![header(), interface_record(0.0, &port)];
    let mut c = Counters { lanes: [1_000_000, 1_400_000, 9_000_000, 70_000_000], ..Default::default() };
    let times = tick_times(n, &mut rng);
    for (i, t) in times.iter().enumerate() {
        at(i, *t, &mut port, &mut c, &mut records);
        if i > 0 {
            c.advance(&port.lane_bits_per_s, t - times[i - 1], &mut rng);
        }
        records.push(sample_record(*t, &port, &c, &mut rng));
    }
    to_jsonl(&records)
}

fn gb10_ports() -> Vec<Port> {
    // GB10 (DGX Spark class) ConnectX-7: two PCIe Gen5 x4 links (domains 0000 and 0002), each
    // carrying both ports, so four netdevs; a 200GBASE-CR4 DAC per port (no optical monitors).
    let dac = |sn: &'static str| Qsfp {
        vendor: "NVIDIA",
        pn: "MCP1650-V001E30",
        sn,
        ext_compliance: 0x40,
        encoding: 0x08,
        connector: 0x23,
        optical: false,
        rx_dbm: [0.0; 4],
        tx_dbm: [0.0; 4],
        bias_ma: [0.0; 4],
        temperature_c: 38.0,
    };
    let mk = |name, bus, port_name: &str, dev_port: u32, sn| Port {
        name,
        bus_info: bus,
        pci: pci("32.0 GT/s PCIe", 4, "32.0 GT/s PCIe", 4, 0),
        port: json!({"phys_port_name": port_name, "dev_port": dev_port, "phys_switch_id": null}),
        link: json!({"speed_mbps": 200000, "lanes": 4, "link_mode": "200000baseCR4/Full", "fec_active": "RS"}),
        module: dac(sn),
        // ../shared/real-dumps/ctr02: lanes 6, 2, 190, 0 corrected bits: tiny, lane 3 busiest.
        lane_bits_per_s: [0.1, 0.03, 3.2, 0.0],
        down_events: 0,
    };
    vec![
        mk("enp1s0f0np0", "0000:01:00.0", "p0", 0, "MT2402VS00017"),
        mk("enp1s0f1np1", "0000:01:00.1", "p1", 1, "MT2402VS00018"),
        mk("enP2p1s0f0np0", "0002:01:00.0", "p0", 0, "MT2402VS00017"),
        mk("enP2p1s0f1np1", "0002:01:00.1", "p1", 1, "MT2402VS00018"),
    ]
}

fn all_captures() -> Vec<(&'static str, String)> {
    let mut out = vec![
        ("sr4-200g-lane4-marginal.jsonl", simple_capture(&[marginal_port()], 61, 1)),
        ("sr4-200g-healthy.jsonl", simple_capture(&[healthy_port()], 61, 2)),
    ];
    // The far end of the marginal link, for `--peer`: its transmitters as it sees them.
    // Normal: all four lasers within 0.1 dB, so the missing light was lost in between.
    let far = |sn, tx_dbm| {
        let mut m = sr4_200g(sn, HEALTHY_RX_DBM);
        m.tx_dbm = tx_dbm;
        cx7_port("ens1f0np0", m, HEALTHY_RATES)
    };
    out.push(("sr4-200g-far-end-normal-tx.jsonl", simple_capture(&[far("MT2240FT00088", [-0.4, -0.5, -0.45, -0.5])], 61, 9)));
    // Weak: lane 4's laser 1.4 dB below the median of its others (-0.45 dBm): a far-end module fault.
    out.push(("sr4-200g-far-end-weak-tx.jsonl", simple_capture(&[far("MT2240FT00088", [-0.4, -0.5, -0.45, -1.85])], 61, 10)));
    // After cleaning the lane-4 connector: lanes 3-4 back within 0.1 dB, BER like lanes 1-2.
    let cleaned = cx7_port("ens3np0", sr4_200g("MT2233FT01234", [-1.0, -1.1, -1.05, -1.1]), [15_000.0, 23_333.0, 20_000.0, 25_000.0]);
    out.push(("sr4-200g-after-clean.jsonl", simple_capture(&[cleaned], 61, 3)));

    // Driver reload at sample 30: every counter restarts from 0.
    out.push((
        "sr4-200g-counter-reset.jsonl",
        scripted(healthy_port(), 61, 4, |i, t, p, c, recs| {
            if i == 30 {
                *c = Counters::default();
                recs.push(json!({"record": "event", "t": t, "interface": p.name, "kind": "counter_reset",
                                 "message": "rx_corrected_bits_phy went down (driver reload or counter clear)"}));
            }
        }),
    ));
    // Module swapped at sample 30: the marginal module is replaced by a healthy one.
    out.push((
        "sr4-200g-module-swap.jsonl",
        scripted(marginal_port(), 61, 5, |i, t, p, _c, recs| {
            if i == 30 {
                *p = cx7_port("ens3np0", sr4_200g("MT2301FT05678", HEALTHY_RX_DBM), HEALTHY_RATES);
                recs.push(json!({"record": "event", "t": t, "interface": p.name, "kind": "module_changed",
                                 "message": "module serial changed from MT2233FT01234 to MT2301FT05678"}));
                recs.push(interface_record(t, p));
            }
        }),
    ));
    // Link flapped twice and FEC gave up on some codewords: lanes 3-4 past the cliff.
    out.push((
        "sr4-200g-link-flaps.jsonl",
        scripted(marginal_port(), 61, 6, |i, _t, p, c, _recs| {
            if i == 20 || i == 40 {
                p.down_events += 1;
                c.uncorrectable_blocks += 37;
            }
        }),
    ));
    // Healthy optics, but the NIC trained at PCIe Gen4 x4 of x16: a ~58 Gb/s ceiling on a 200G port.
    let mut degraded = healthy_port();
    degraded.pci = pci("16.0 GT/s PCIe", 4, "16.0 GT/s PCIe", 16, 0);
    out.push(("pcie-gen4-x4-of-x16.jsonl", simple_capture(&[degraded], 31, 7)));
    out.push(("multihost-gb10-cx7.jsonl", simple_capture(&gb10_ports(), 31, 8)));
    // CMIS at 100G per lane: counters start mid-run, as on a link up for a while.
    out.push(("dr4-400g-cmis-marginal.jsonl", steady_capture(&[dr4_400g_port()], 61, 9, [2_000_000, 150_000_000, 2_500_000, 1_800_000])));
    out.push(("dr8-800g-cmis-healthy.jsonl", steady_capture(&[dr8_800g_port()], 61, 10, [1_000_000; 8])));
    out.extend(support::vdm_captures::vdm_captures());
    out.extend(support::fecx_captures::bundled());
    out.extend(support::trend_captures::bundled());
    out.extend(support::flap_captures::bundled());
    out.extend(support::lane200g_captures::bundled());
    out.extend(support::ib_captures::bundled());
    out
}

#[test]
fn bundled_captures_match_the_generator() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("captures");
    let regenerate = std::env::var_os("OPTICS_REGENERATE_CAPTURES").is_some();
    for (name, content) in all_captures() {
        let path = dir.join(name);
        if regenerate {
            std::fs::write(&path, &content).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(on_disk == content, "{name} differs from the generator: regenerate with OPTICS_REGENERATE_CAPTURES=1");
    }
}

#[test]
fn generator_arithmetic() {
    // -1.6 dBm = 10^(-0.16) mW = 0.69183 mW = 6918 x 0.1 uW.
    assert_eq!(power_word(-1.6), 6918);
    // 3,533,333 bits/s over 60 s = 212.0 million; 23,333 x 60 = 1.4 million: ratio 151.
    assert!((MARGINAL_RATES[3] * 60.0 / 1e6 - 212.0).abs() < 0.01);
    assert!((MARGINAL_RATES[3] / MARGINAL_RATES[1] - 151.4).abs() < 0.1);
    let p = sr4_200g("X", HEALTHY_RX_DBM).page00();
    // CC_BASE (page 00h byte 191) covers 128-190: p[63] is byte 191 of the page.
    assert_eq!(p[63], p[..63].iter().fold(0u8, |a, b| a.wrapping_add(*b)));
}

#[test]
fn cmis_generator_arithmetic() {
    // -1.85 dBm = 10^(-0.185) mW = 0.65313 mW = 6531 x 0.1 uW.
    assert_eq!(power_word(-1.85), 6531);
    // BER = rate / 106.25e9: lane 2 2,125,000 -> 2.0e-5, lane 1 21,250 -> 2.0e-7 (100x apart).
    assert!((DR4_RATES[1] / (LANE_GBPS_100G_PAM4 * 1e9) - 2.0e-5).abs() < 1e-12);
    assert!((DR4_RATES[1] / DR4_RATES[0] - 100.0).abs() < 1e-9);
    let dr4 = dr4_400g_port().module;
    let p00 = dr4.page00();
    // Byte 210 (p00[82]): lanes 5-8 unsupported on the 4-lane module, none on the 8-lane one.
    assert_eq!(p00[210 - 128], 0xf0);
    assert_eq!(dr8_800g_port().module.page00()[210 - 128], 0x00);
    // PageChecksum 00h (byte 222) covers 128-221; 01h (255) 130-254; 02h (255) 128-254.
    let sum = |b: &[u8]| b.iter().fold(0u8, |a, x| a.wrapping_add(*x));
    assert_eq!(p00[222 - 128], sum(&p00[..94]));
    let p01 = dr4.page01();
    assert_eq!(p01[127], sum(&p01[2..127]));
    let p02 = Cmis::<4>::page02();
    assert_eq!(p02[127], sum(&p02[..127]));
    // A sample carries lower 0-25 and page 11h 128-213 (86 bytes), as monitor_requests asks.
    let pages = dr4.monitor_pages(&mut Rng::new(1));
    let lens: Vec<usize> = pages["pages"].as_array().unwrap().iter().map(|p| p["data"].as_str().unwrap().len() / 2).collect();
    assert_eq!(lens, [26, 86]);
}
