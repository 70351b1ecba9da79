use super::*;

#[test]
fn counter_sources_name_netlink_and_driver_counters() {
    use crate::counters::normalize;
    let fec = crate::counters::FecStats { corrected_bits: vec![10], ..Default::default() };
    let driver =
        [("rx_err_lane_0_phy".into(), 4), ("rx_err_lane_1_phy".into(), 6), ("link_down_events_phy".into(), 1)].into_iter().collect();
    let s = counter_sources(&normalize(Some(&fec), None, &driver));
    assert_eq!(s.get("corrected_bits").map(String::as_str), Some("netlink"));
    assert_eq!(s.get("corrected_bits_per_lane").map(String::as_str), Some("driver:rx_err_lane_N_phy"));
    assert_eq!(s.get("link_down_events").map(String::as_str), Some("driver:link_down_events_phy"));
    assert!(!s.contains_key("uncorrectable_blocks"));
}
use crate::counters::{Counted, LaneCounts, Origin};
use crate::device::PciLink;
use crate::module::report::{LaneReport, RxPowerType, Standard, Thresholds};
use crate::module::state::DataPathState;
use crate::module::threshold::ThresholdSet;
/// A module flag by its stable name.
fn flag(name: &str) -> crate::module::flag::ModuleFlag {
    crate::module::flag::ModuleFlag::from_name(name).unwrap()
}

fn mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

fn module(rx_dbm: &[f64], sn: &str) -> ModuleReport {
    let mut m = ModuleReport::new(Standard::Cmis, Some(0x18));
    m.vendor_name = Some("ACME".into());
    m.vendor_sn = Some(sn.into());
    m.media_type = Some("200GBASE-SR4".into());
    m.modulation = Some(Modulation::Pam4);
    m.rx_power_type = Some(RxPowerType::Average);
    // Low warning 0.1 mW = -10 dBm, low alarm 0.05 mW.
    m.thresholds = Thresholds {
        rx_power_mw: Some(ThresholdSet { high_alarm: 3.0, low_alarm: 0.05, high_warning: 2.0, low_warning: 0.1 }),
        ..Default::default()
    };
    for (i, dbm) in rx_dbm.iter().enumerate() {
        let mut l = LaneReport::new(i as u8 + 1);
        l.set_rx_power_mw(mw(*dbm));
        l.set_tx_power_mw(mw(0.5));
        l.tx_bias_ma = Some(7.5);
        m.lanes.push(l);
    }
    m
}

fn counted(v: u64) -> Option<Counted> {
    Some(Counted { value: v, origin: Origin::Netlink })
}

/// 200GBASE-SR4 over 60 s, Gen4 x16 (16 x 16 x 128/130 x 0.92 = 231.9 Gb/s >= 200).
fn sr4(rx_dbm: &[f64], bits: &[u64]) -> InterfaceWindow {
    InterfaceWindow {
        interface: "eth0".into(),
        identity: DeviceIdentity {
            driver: Some("mlx5_core".into()),
            bus_info: Some("0000:01:00.0".into()),
            pci: Some(PciLink {
                current_link_speed: Some("16.0 GT/s PCIe".into()),
                current_link_width: Some(16),
                max_link_speed: Some("16.0 GT/s PCIe".into()),
                max_link_width: Some(16),
                numa_node: None,
            }),
            port: None,
            host: None,
            ib: None,
            neighbor: None,
        },
        link: LinkInfo {
            speed_mbps: Some(200_000),
            lanes: Some(4),
            link_mode: Some("200000baseSR4/Full".into()),
            fec_active: Some("RS".into()),
            ..Default::default()
        },
        module: Some(module(rx_dbm, "SN0001")),
        rx_power_dbm_mean: rx_dbm.iter().map(|v| Some(*v)).collect(),
        duration_s: 60.0,
        samples: 61,
        link_up: Some(true),
        deltas: PortCounters {
            corrected_bits: counted(bits.iter().sum()),
            corrected_bits_per_lane: Some(LaneCounts { values: bits.to_vec(), origin: Origin::Netlink }),
            uncorrectable_blocks: counted(0),
            link_down_events: counted(0),
            ..Default::default()
        },
        ..Default::default()
    }
}

const CASE_RX: [f64; 4] = [-1.0, -1.1, -1.5, -1.6];
const CASE_BITS: [u64; 4] = [1_000_000, 1_400_000, 5_000_000, 212_000_000];
const HEALTHY_RX: [f64; 4] = [-1.0, -1.1, -1.05, -1.15];
const HEALTHY_BITS: [u64; 4] = [1_000_000, 1_400_000, 1_100_000, 1_200_000];

fn one(w: InterfaceWindow) -> InterfaceAnalysis {
    analyze(&[w], &Config::default(), &[]).remove(0)
}

fn codes(a: &InterfaceAnalysis) -> Vec<ReasonCode> {
    a.reasons.iter().filter(|r| r.severity != Severity::Info).map(|r| r.code).collect()
}

#[test]
fn the_200g_sr4_case_points_at_lane_4() {
    let a = one(sr4(&CASE_RX, &CASE_BITS));
    assert_eq!(a.verdict, Verdict::Investigate, "{:#?}", a.reasons);
    let l4 = &a.lanes[0];
    assert_eq!((l4.lane, l4.rank), (4, 1));
    // 212e6 / (53.125e9 x 60) = 6.651e-5; margin 10·log10(3.74926/3.41407) = 0.407 dB.
    assert!((l4.pre_fec_ber.unwrap() - 6.651e-5).abs() < 1e-8);
    assert!((l4.margin_db.unwrap() - 0.407).abs() < 2e-3);
    assert!(!l4.margin_is_lower_bound);
    assert!(l4.flags.contains(&ReasonCode::FecHidingMarginalOptics) && l4.flags.contains(&ReasonCode::LowMargin), "{:?}", l4.flags);
    // Evidence: -0.5 dB vs siblings' median, 151x the siblings' median BER.
    assert!((l4.evidence.rx_delta_db.unwrap() + 0.5).abs() < 1e-9);
    assert!((l4.evidence.ber_ratio.unwrap() - 151.4).abs() < 0.1);
    let advice = l4.advice.as_deref().unwrap();
    assert!(advice.starts_with("lane 4:") && advice.contains("clean the fiber"), "{advice}");
    // Optical margin over the -10 dBm low warning: -1.6 + 10 = 8.4 dB.
    assert!((l4.optical_margin_db.unwrap() - 8.4).abs() < 1e-9);
    // Ranking by BER margin: lane 3 (1.297 dB), 2 (1.534), 1 (1.593).
    assert_eq!(a.lanes.iter().map(|l| l.lane).collect::<Vec<_>>(), vec![4, 3, 2, 1]);
    assert!(a.lanes[1..].iter().all(|l| l.flags.is_empty() && l.advice.is_none()));
    let hiding = a.reasons.iter().find(|r| r.code == ReasonCode::FecHidingMarginalOptics).unwrap();
    assert_eq!(hiding.lane, Some(4));
    assert!(hiding.message.contains("0.41 dB") && hiding.message.contains("RS(544,514)"), "{}", hiding.message);
    assert!(a.rx_ber_fit.as_ref().unwrap().pam4_signature);
    assert_eq!(l4.evidence.pam4_signature, Some(true));
    assert!((l4.evidence.slope_decades_per_db.unwrap() + 3.110).abs() < 2e-3);
    assert!(a.notes.is_empty(), "{:?}", a.notes);
    assert!(!a.pcie.degraded);
    assert_eq!(a.link.fec, Some(FecKind::Rs544));
    // Port: 219.4e6 / (4 x 3.1875e12) = 1.7208e-5.
    assert!((a.link.pre_fec_ber.unwrap() - 1.7208e-5).abs() < 1e-8);
}

#[test]
fn json_contract_keys() {
    let a = one(sr4(&CASE_RX, &CASE_BITS));
    let v = serde_json::to_value(&a).unwrap();
    for k in ["interface", "verdict", "reasons", "pcie", "link", "module", "lanes"] {
        assert!(v.get(k).is_some(), "{k}");
    }
    assert_eq!(v["verdict"], "investigate");
    assert_eq!(v["pcie"]["degraded"], false);
    assert!(v["pcie"]["ceiling_gbps"].is_number());
    assert_eq!(v["link"]["fec"], "RS(544,514)");
    let lane = &v["lanes"][0];
    for k in [
        "lane",
        "rank",
        "rx_power_dbm",
        "tx_power_dbm",
        "tx_bias_ma",
        "pre_fec_ber",
        "pre_fec_ber_upper",
        "margin_db",
        "optical_margin_db",
        "flags",
        "advice",
        "esnr_db",
        "ltp_db",
        "module_pre_fec_ber",
        "ber_source",
        "host",
    ] {
        assert!(lane.get(k).is_some(), "{k}");
    }
    // Per-lane corrected bits from the netlink FEC lanes (Origin::netlink).
    assert_eq!(lane["ber_source"], "netlink");
    assert_eq!(lane["lane"], 4);
    assert_eq!(lane["flags"][0], "fec_hiding_marginal_optics");
    let r = &v["reasons"][0];
    assert!(r["code"].is_string() && r["message"].is_string());
}

#[test]
fn healthy_link_is_accepted_without_flags() {
    let a = one(sr4(&HEALTHY_RX, &HEALTHY_BITS));
    assert_eq!(a.verdict, Verdict::Accept);
    assert!(a.reasons.is_empty(), "{:#?}", a.reasons);
    assert!(a.lanes.iter().all(|l| l.flags.is_empty() && l.advice.is_none()));
    // Weakest is lane 2: 1.4e6 -> margin 1.534 dB.
    assert_eq!(a.lanes[0].lane, 2);
    assert!((a.lanes[0].margin_db.unwrap() - 1.534).abs() < 2e-3);
}

#[test]
fn zero_errors_give_a_lower_bound_margin() {
    let a = one(sr4(&HEALTHY_RX, &[0, 0, 0, 0]));
    assert_eq!(a.verdict, Verdict::Accept);
    let l = &a.lanes[0];
    // Upper bound 2.9957 / 3.1875e12 = 9.398e-13 -> x 7.22; margin >= 3.120 dB.
    assert!(l.margin_is_lower_bound);
    assert!((l.pre_fec_ber_upper.unwrap() - 9.398e-13).abs() < 1e-15);
    assert!((l.margin_db.unwrap() - 3.120).abs() < 2e-3);
    // No BER to rank by apart from equal bounds: lane order.
    assert_eq!(a.lanes.iter().map(|l| l.lane).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
}

#[test]
fn degraded_pcie_is_rejected() {
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    if let Some(p) = w.identity.pci.as_mut() {
        p.current_link_width = Some(4);
    }
    let a = one(w);
    assert_eq!(a.verdict, Verdict::Reject);
    assert_eq!(codes(&a), vec![ReasonCode::PcieDegraded]);
    assert!(a.pcie.degraded && (a.pcie.ceiling_gbps.unwrap() - 57.97).abs() < 0.01);
    // The advice is said once, as `pcie.advice`, not again in the reason.
    assert!(a.pcie.advice.as_deref().unwrap().contains("reseat") && !a.reasons[0].message.contains("reseat"));
    // A slot that is x4 by design: investigate, not reject.
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    if let Some(p) = w.identity.pci.as_mut() {
        p.current_link_width = Some(4);
        p.max_link_width = Some(4);
    }
    assert_eq!(one(w).verdict, Verdict::Investigate);
}

#[test]
fn uncorrectable_errors_reject_and_nothing_is_hidden() {
    let mut w = sr4(&CASE_RX, &CASE_BITS);
    w.deltas.uncorrectable_blocks = counted(5);
    let a = one(w);
    assert_eq!(a.verdict, Verdict::Reject);
    assert!(codes(&a).contains(&ReasonCode::UncorrectableErrors));
    // FEC is no longer hiding anything: frames are being lost. The lane is still low margin.
    assert!(!a.lanes[0].flags.contains(&ReasonCode::FecHidingMarginalOptics) && a.lanes[0].flags.contains(&ReasonCode::LowMargin));
}

#[test]
fn link_flaps_and_link_down_reject() {
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    w.deltas.link_down_events = counted(2);
    let a = one(w);
    assert_eq!((a.verdict, codes(&a)), (Verdict::Reject, vec![ReasonCode::LinkFlaps]));
    assert!(a.reasons[0].message.starts_with("2 link-down events"));
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    w.link_up = Some(false);
    w.link_ext_state = Some(4);
    let a = one(w);
    assert!(a.reasons[0].message.contains("no cable"), "{}", a.reasons[0].message);
}

#[test]
fn module_alarms_warnings_and_faults() {
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    // A flag with the healthy reading under it: the reading does not bear it out.
    if let Some(m) = w.module.as_mut() {
        m.lanes[2].flags = vec![flag("rx_power_low_warning")];
    }
    let a = one(w.clone());
    assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![ReasonCode::DomFlagUnconfirmed]));
    assert_eq!(a.reasons[0].lane, Some(3));
    // Lane 3 at -10.5 dBm: past its -10 dBm low warning, inside the -13 dBm low alarm.
    if let Some(m) = w.module.as_mut() {
        m.lanes[2].set_rx_power_mw(mw(-10.5));
    }
    let a = one(w.clone());
    assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![ReasonCode::DomWarning]));
    let l3 = a.lanes.iter().find(|l| l.lane == 3).unwrap();
    assert_eq!(l3.flags, vec![ReasonCode::DomWarning]);
    assert!(l3.advice.as_deref().unwrap().contains("clean the fiber"));
    if let Some(m) = w.module.as_mut() {
        m.lanes[2].flags = vec![flag("rx_power_low_alarm")];
        m.lanes[2].set_rx_power_mw(mw(-13.5));
        m.module_flags = vec![flag("temperature_high_warning")];
    }
    let a = one(w.clone());
    assert_eq!(a.verdict, Verdict::Reject);
    assert_eq!(codes(&a), vec![ReasonCode::DomAlarm, ReasonCode::DomWarning]); // worst first
    if let Some(m) = w.module.as_mut() {
        m.lanes[2].flags = vec![flag("tx_fault")];
        m.module_flags.clear();
    }
    let a = one(w);
    assert_eq!((a.verdict, codes(&a)), (Verdict::Reject, vec![ReasonCode::ModuleFault]));
    assert!(a.lanes.iter().find(|l| l.lane == 3).unwrap().advice.as_deref().unwrap().contains("swap the module"));
}

#[test]
fn no_fec_data() {
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    w.deltas.corrected_bits = None;
    w.deltas.corrected_bits_per_lane = None;
    w.deltas.corrected_blocks = counted(10);
    let a = one(w.clone());
    // Block counts alone (ice, bnxt_en): frame loss is still watched and a corrected
    // codeword holds at least one bit error, so they bound the BER from below: an
    // info reason, no verdict change.
    assert_eq!((a.verdict, codes(&a)), (Verdict::Accept, vec![]));
    let r = a.reasons.iter().find(|r| r.code == ReasonCode::NoFecData).unwrap();
    assert_eq!(r.severity, Severity::Info);
    assert!(r.message.contains("10 corrected codewords") && r.message.contains("at least"), "{}", r.message);
    assert!(a.notes.iter().any(|n| n.contains("only FEC block counts")));
    // Ranked by optical margin instead: lane 4 (-1.15 dBm) is weakest.
    assert_eq!(a.lanes[0].lane, 4);
    // Neither bits nor blocks: nothing measures the line.
    let mut bare = w.clone();
    bare.deltas.corrected_blocks = None;
    let a = one(bare);
    assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![ReasonCode::NoFecData]));
    // A 10G link without FEC: a note, not a verdict change.
    w.link = LinkInfo {
        speed_mbps: Some(10_000),
        lanes: Some(1),
        link_mode: Some("10000baseSR/Full".into()),
        fec_active: Some("None".into()),
        ..Default::default()
    };
    w.identity.pci = None;
    let a = one(w.clone());
    assert_eq!(a.verdict, Verdict::Accept);
    assert_eq!(a.reasons.len(), 1);
    assert_eq!((a.reasons[0].code, a.reasons[0].severity), (ReasonCode::NoFecData, Severity::Info));
    // bnxt_en reports rx_corrected_bits = 0 with FEC off: still no BER from it.
    w.deltas.corrected_bits = counted(0);
    let a = one(w);
    assert_eq!(a.verdict, Verdict::Accept);
    assert!(a.link.pre_fec_ber.is_none());
    assert!(a.notes.iter().any(|n| n.contains("FEC is off")));
}

#[test]
fn module_unreadable() {
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    w.module = None;
    w.rx_power_dbm_mean.clear();
    w.module_error = Some("EEPROM read: kernel error 121".into());
    let a = one(w);
    assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![ReasonCode::ModuleUnreadable]));
    assert!(a.reasons[0].message.contains("kernel error 121"));
    // The code already says "module_unreadable": the message does not repeat it.
    assert_eq!(a.reasons[0].message, "EEPROM read: kernel error 121");
    // BER still works from the counters alone.
    assert_eq!(a.lanes.len(), 4);
    assert!(a.lanes.iter().all(|l| l.margin_db.is_some() && l.rx_power_dbm.is_none()));
}

#[test]
fn port_total_only_and_rx_bits() {
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    w.deltas.corrected_bits_per_lane = None;
    let a = one(w.clone());
    assert!(a.lanes.iter().all(|l| l.pre_fec_ber.is_none()));
    // 4.7e6 / (4 x 3.1875e12) = 3.6863e-7.
    assert!((a.link.pre_fec_ber.unwrap() - 3.6863e-7).abs() < 1e-10);
    assert!(a.notes.iter().any(|n| n.contains("port only")));
    // rx_bits 1.0e13 over the window: port BER 4.7e6 / 1e13 = 4.7e-7.
    w.deltas.rx_bits = counted(10_000_000_000_000);
    let a = one(w);
    assert!((a.link.pre_fec_ber.unwrap() - 4.7e-7).abs() < 1e-12);
    assert_eq!(a.link.ber_denominator, Some(BerDenominator::RxBits));
}

#[test]
fn peer_tells_weak_far_end_transmitter() {
    let w = sr4(&CASE_RX, &CASE_BITS);
    let mut peer = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    // Far-end lane 4 transmits at -1.5 dBm vs 0.5 on its others: 2.0 dB low.
    if let Some(m) = peer.module.as_mut() {
        m.lanes[3].set_tx_power_mw(mw(-1.5));
    }
    let a = analyze(std::slice::from_ref(&w), &Config::default(), std::slice::from_ref(&peer)).remove(0);
    let advice = a.lanes[0].advice.as_deref().unwrap();
    assert!(advice.contains("far end's transmitter on lane 4") && advice.contains("2.0 dB"), "{advice}");
    // Far-end tx normal: the fiber between.
    if let Some(m) = peer.module.as_mut() {
        m.lanes[3].set_tx_power_mw(mw(0.5));
    }
    let a = analyze(&[w], &Config::default(), &[peer]).remove(0);
    assert!(a.lanes[0].advice.as_deref().unwrap().contains("far-end transmitter normal"));
}

#[test]
fn gx10_dac_lane_errors_are_not_marginal() {
    // ../shared/real-dumps/ctr02: 200GBASE-CR4 DAC, RS, lanes 6, 2, 190, 0 (no time base).
    // Even over only 1 s: lane 3 = 190 / 53.125e9 = 3.6e-9, under 1e-3 x 2.4e-4 = 2.4e-7,
    // although its lower bound (~167) is over 10x the siblings' median upper bound (6.3)
    // and its BER is 190 / median(6, 2, 0) = 95x its siblings'.
    let mut w = sr4(&[], &[6, 2, 190, 0]);
    w.link.link_mode = Some("200000baseCR4/Full".into());
    w.module = None;
    w.module_error = Some("not read".into());
    w.duration_s = 1.0;
    w.samples = 2;
    let a = one(w);
    assert_eq!(codes(&a), vec![ReasonCode::ModuleUnreadable]);
    assert_eq!(a.lanes[0].lane, 3);
    assert!(!a.lanes[0].evidence.outlier && a.lanes[0].flags.is_empty());
    assert!((a.lanes[0].evidence.ber_ratio.unwrap() - 95.0).abs() < 1e-9);
    assert!((a.lanes[0].pre_fec_ber.unwrap() - 3.576e-9).abs() < 1e-12);
}

#[test]
fn copper_advice() {
    let mut w = sr4(&CASE_RX, &CASE_BITS);
    w.link.link_mode = Some("200000baseCR4/Full".into());
    let a = one(w);
    assert!(a.lanes[0].advice.as_deref().unwrap().contains("replace the cable"));
}

#[test]
fn multi_host_grouping_through_analyze() {
    let g5 = |bus: &str, name: &str| {
        let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
        w.interface = name.into();
        w.identity.bus_info = Some(bus.into());
        w.identity.pci = Some(PciLink {
            current_link_speed: Some("32.0 GT/s PCIe".into()),
            current_link_width: Some(4),
            max_link_speed: Some("32.0 GT/s PCIe".into()),
            max_link_width: Some(4),
            numa_node: None,
        });
        w
    };
    let ws = [g5("0000:01:00.0", "enp1s0f0np0"), g5("0002:01:00.0", "enP2p1s0f0np0")];
    let out = analyze(&ws, &Config::default(), &[]);
    for a in &out {
        assert_eq!(a.verdict, Verdict::Accept, "{:#?}", a.reasons);
        let g = a.pcie.group.as_ref().unwrap();
        assert_eq!(g.paths.len(), 2);
        assert!(a.pcie.message.as_deref().unwrap().contains("116 Gb/s"));
    }
    // Alone, one x4 Gen5 path (116 Gb/s) cannot carry 200G.
    assert_eq!(one(ws[0].clone()).verdict, Verdict::Investigate);
}

#[test]
fn compare_before_and_after_cleaning() {
    let before = one(sr4(&CASE_RX, &CASE_BITS));
    let mut bits = CASE_BITS;
    bits[3] = 1_200_000;
    let mut rx = CASE_RX;
    rx[3] = -1.1;
    let after = one(sr4(&rx, &bits));
    let c = compare(&before, &after);
    let l4 = c.lanes.iter().find(|l| l.lane == 4).unwrap();
    assert_eq!(l4.change, compare::Change::Improved);
    // Margin 0.407 -> 10·log10(x(1.2e6/3.1875e12 = 3.765e-7)/3.41407) = 1.562: +1.2 dB (1.155).
    assert!((l4.margin_delta_db.unwrap() - 1.155).abs() < 5e-3, "{:?}", l4.margin_delta_db);
    // Before and after as well as the change (0.407 -> 1.562).
    assert_eq!(l4.summary, "lane 4: margin 0.4 -> 1.6 dB (+1.2), BER 6.7e-5 -> 3.8e-7, rx +0.5 dB: improved");
    // Lane 1 unchanged: identical counts, overlapping intervals.
    let l1 = c.lanes.iter().find(|l| l.lane == 1).unwrap();
    assert_eq!(l1.change, compare::Change::NoSignificantChange);
    assert!(l1.summary.ends_with("no significant change"));
    // Worse the other way round.
    assert_eq!(compare(&after, &before).lanes[3].change, compare::Change::Worse);
    // Two error-free lanes: both margins are lower bounds, and no difference is claimed.
    let clean = one(sr4(&CASE_RX, &[0; 4]));
    let l = &compare(&clean, &clean).lanes[0];
    assert!(l.summary.starts_with("lane 1: no error counted before or after (margin >"), "{}", l.summary);
    assert!(
        l.summary.contains("lower bounds of the two windows") && !l.summary.contains("(+") && !l.summary.contains("(-"),
        "{}",
        l.summary
    );
}

#[test]
fn dark_lanes_the_link_uses_are_judged_and_those_it_does_not_are_noted() {
    // Bias low alarm 0.5 mA; lanes 3-4 switched off: 0 mA, 0 mW out, 0 mW in.
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    if let Some(m) = w.module.as_mut() {
        m.thresholds.tx_bias_ma = Some(ThresholdSet { high_alarm: 15.0, low_alarm: 0.5, high_warning: 14.0, low_warning: 1.0 });
        for l in &mut m.lanes[2..] {
            l.tx_bias_ma = Some(0.0);
            l.set_tx_power_mw(0.0);
            l.set_rx_power_mw(0.0);
        }
    }
    // 200000baseSR4 uses all four: lanes 3 and 4 dark is two lasers at 0 mA, under their alarm.
    let a = one(w.clone());
    assert_eq!(a.verdict, Verdict::Reject);
    assert!(a.reasons.iter().any(|r| r.code == ReasonCode::DomAlarm && r.lane == Some(3)), "{:?}", a.reasons);
    assert!(!a.notes.iter().any(|n| n.contains("dark")), "{:?}", a.notes);
    // 100000baseSR2 (2 x 50G PAM4) uses lanes 1-2: lanes 3-4 are switched off, not failing.
    w.link = LinkInfo {
        speed_mbps: Some(100_000),
        lanes: Some(2),
        link_mode: Some("100000baseSR2/Full".into()),
        fec_active: Some("RS".into()),
        ..Default::default()
    };
    w.deltas.corrected_bits_per_lane = Some(LaneCounts { values: HEALTHY_BITS[..2].to_vec(), origin: Origin::Netlink });
    w.deltas.corrected_bits = counted(HEALTHY_BITS[..2].iter().sum());
    let a = one(w.clone());
    assert!(!a.reasons.iter().any(|r| r.code == ReasonCode::DomAlarm), "{:?}", a.reasons);
    assert!(a.notes.iter().any(|n| n.starts_with("lanes 3, 4 dark")), "{:?}", a.notes);
    // A lane still drawing bias is not dark: 0.3 mA under the 0.5 mA alarm is judged.
    if let Some(m) = w.module.as_mut() {
        m.lanes[3].tx_bias_ma = Some(0.3);
    }
    let a = one(w);
    assert!(a.reasons.iter().any(|r| r.code == ReasonCode::DomAlarm && r.lane == Some(4)), "{:?}", a.reasons);
    assert!(a.notes.iter().any(|n| n.starts_with("lane 3 dark")), "{:?}", a.notes);
}

#[test]
fn a_cmis_module_short_of_ready_or_with_lanes_out_of_their_data_path_is_not_judged_on_them() {
    // Every lane at 0 mA with bias thresholds: a laser fault by the numbers alone.
    let dark = |w: &mut InterfaceWindow, lanes: std::ops::Range<usize>| {
        let m = w.module.as_mut().unwrap();
        m.thresholds.tx_bias_ma = Some(ThresholdSet { high_alarm: 15.0, low_alarm: 0.5, high_warning: 14.0, low_warning: 1.0 });
        for l in &mut m.lanes[lanes] {
            l.tx_bias_ma = Some(0.0);
            l.set_tx_power_mw(0.0);
        }
    };
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    dark(&mut w, 0..4);
    w.module.as_mut().unwrap().module_state = Some(ModuleState::LowPwr);
    // CMIS 5.2 Table 8-7: ModuleLowPwr keeps the transmitters off; not four dead lasers.
    let a = one(w.clone());
    assert_eq!(codes(&a), vec![ReasonCode::ModuleNotReady], "{:?}", a.reasons);
    assert_eq!(a.verdict, Verdict::Investigate);
    assert!(a.notes.iter().any(|n| n.starts_with("lanes 1-4 ModuleLowPwr (CMIS 5.2 Table 8-7, module state)")), "{:?}", a.notes);
    // Who holds it low (CMIS 5.2 6.3.2): the host's software request, the LPMode signal it
    // allows, or neither (the module itself).
    for (request_sw, allow_request_hw, says) in [
        (true, false, "LowPwrRequestSW is set"),
        (false, true, "LPMode signal may hold it"),
        (false, false, "the host asks for high power"),
    ] {
        let mut w = w.clone();
        w.module.as_mut().unwrap().low_power_controls = Some(crate::module::report::LowPowerControls { request_sw, allow_request_hw });
        let a = one(w);
        let r = a.reasons.iter().find(|r| r.code == ReasonCode::ModuleNotReady).unwrap();
        assert!(r.message.contains(says), "{}", r.message);
    }
    // ModuleFault is the module's own fault: rejected.
    w.module.as_mut().unwrap().module_state = Some(ModuleState::Fault);
    let a = one(w.clone());
    assert!(a.reasons.iter().any(|r| r.code == ReasonCode::ModuleFault && r.severity == Severity::Reject), "{:?}", a.reasons);
    // Ready, lanes 3-4 deactivated (page 11h): those two are noted, not judged.
    let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
    dark(&mut w, 2..4);
    let m = w.module.as_mut().unwrap();
    m.module_state = Some(ModuleState::Ready);
    for (i, l) in m.lanes.iter_mut().enumerate() {
        l.data_path_state = Some(if i < 2 { DataPathState::Activated } else { DataPathState::Deactivated });
    }
    let a = one(w.clone());
    assert!(!a.reasons.iter().any(|r| r.code == ReasonCode::DomAlarm), "{:?}", a.reasons);
    assert!(a.notes.iter().any(|n| n.starts_with("lanes 3, 4 DPDeactivated (CMIS 5.2 page 11h, data path state)")), "{:?}", a.notes);
    // The same lanes DPActivated: dark lanes the 4-lane link uses, judged.
    for l in &mut w.module.as_mut().unwrap().lanes {
        l.data_path_state = Some(DataPathState::Activated);
    }
    assert!(one(w).reasons.iter().any(|r| r.code == ReasonCode::DomAlarm && r.lane == Some(3)));
}

#[test]
fn a_down_port_sharing_no_rate_with_its_module_says_so_and_an_up_one_never_does() {
    // A four-lane 100GBASE-SR4 module (SFF-8024 code 02h): 100G, or its breakouts 25G and 50G.
    let base = |supported: &[&str], advertised: &[&str], up: bool| {
        let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
        w.link_up = Some(up);
        w.link.supported_modes = supported.iter().map(|s| s.to_string()).collect();
        w.link.advertised_modes = advertised.iter().map(|s| s.to_string()).collect();
        let m = w.module.as_mut().unwrap();
        m.media_type = Some("100GBASE-SR4 or 25GBASE-SR".into());
        m.host_lane_count = Some(4);
        one(w)
    };
    let mismatch = |a: &InterfaceAnalysis| a.reasons.iter().find(|r| r.code == ReasonCode::ModuleSpeedMismatch).map(|r| r.message.clone());
    let a = base(&["10000baseSR/Full", "40000baseSR4/Full"], &[], false);
    let msg = mismatch(&a).expect("a 10G/40G port cannot run a 100G SR4");
    assert!(
        msg.starts_with("the port supports only 10G, 40G (10000baseSR/Full 40000baseSR4/Full), and the module runs 25G, 50G, 100G"),
        "{msg}"
    );
    assert_eq!(a.verdict, Verdict::Reject);
    // Forced to 40G on a port that runs 100G: the setting.
    let a = base(&["40000baseSR4/Full", "100000baseSR4/Full"], &["40000baseSR4/Full"], false);
    assert!(mismatch(&a).is_some_and(|m| m.starts_with("the port is set to 40G (40000baseSR4/Full)")), "{:?}", a.reasons);
    // A breakout port of 25G shares a rate; an up link proves the rates meet.
    assert_eq!(mismatch(&base(&["25000baseSR/Full"], &[], false)), None);
    assert_eq!(mismatch(&base(&["10000baseSR/Full"], &[], true)), None);
    // Nothing listed: nothing judged.
    assert_eq!(mismatch(&base(&[], &[], false)), None);
}
