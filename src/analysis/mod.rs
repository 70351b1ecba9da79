//! BER, Q, margin, ranking, flags, verdicts and comparisons: pure functions over
//! [`InterfaceWindow`]s that the sampling layer builds from samples (live or replayed).
//!
//! [`analyze`] turns each window into an [`InterfaceAnalysis`] (its JSON is a contract:
//! keys may be added, never renamed): lane rate and FEC ([`lanes`], [`fec`]), pre-FEC
//! BER with Poisson bounds ([`ber`]), Q and margin ([`q`]), optical margin
//! ([`optical`]), outliers ([`outlier`]), PCIe ceiling ([`pcie`]), flags and reasons
//! (`judge`), the verdict ([`verdict`]), swap advice ([`advice`]); [`compare`] judges
//! before/after.

pub mod advice;
pub mod ber;
pub mod breakout;
pub mod compare;
pub mod config;
pub mod fec;
pub mod histogram;
mod judge;
pub mod lane_groups;
pub mod lanes;
mod limits;
pub mod optical;
pub mod outlier;
pub mod pcie;
pub mod profile;
pub mod q;
pub mod segments;
pub mod shares;
pub mod stats;
mod transmitter;
pub mod trend;
pub mod vdm_lanes;
pub mod verdict;

pub use compare::{compare, Comparison};
pub use config::Config;
pub use verdict::{Reason, Severity, Verdict};

use crate::counters::{ext_state_name, FecHistogramBin, LinkInfo, PortCounters};
use crate::module::report::Modulation;
use crate::module::ModuleReport;
use crate::source::DeviceIdentity;
use advice::{lane_advice, LaneFacts};
use ber::Ber;
use fec::FecKind;
use judge::{judge_lanes, link_reasons};
use lanes::LaneRate;
use outlier::{Evidence, RxBerFit};
use pcie::{PcieAnalysis, PcieGroup};
use serde::Serialize;
use std::collections::BTreeMap;
use verdict::*;

/// Everything analysis needs about one interface over one window of samples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InterfaceWindow {
    pub interface: String,
    pub identity: DeviceIdentity,
    pub link: LinkInfo,
    /// Latest decode: static pages plus the monitors of the last sample in the window.
    pub module: Option<ModuleReport>,
    /// Why `module` is `None` (unreadable, not supported, ...).
    pub module_error: Option<String>,
    /// Per-lane rx power in dBm averaged over the window's samples (index 0 = lane 1);
    /// `None` where no sample had it.
    pub rx_power_dbm_mean: Vec<Option<f64>>,
    /// Seconds between the first and last sample the deltas span (sample timestamps).
    pub duration_s: f64,
    pub samples: usize,
    /// Link up at the end of the window.
    pub link_up: Option<bool>,
    /// Extended link state at the end of the window (raw `ethtool_link_ext_state`).
    pub link_ext_state: Option<u8>,
    /// Counter increases over the window (each `Counted::value` is a delta), after
    /// resets and wraps were handled. `None` = the counter was never available.
    pub deltas: PortCounters,
    /// Counters as read at the last sample (absolute, not deltas): what a lone snapshot
    /// without a time base still tells ([`shares`]).
    pub counters_at_end: PortCounters,
    /// FEC histogram increases over the window.
    pub histogram_delta: Vec<FecHistogramBin>,
    /// Counter resets, module swaps, gaps, errors seen in the window: one sentence each.
    pub events: Vec<String>,
}

/// The link as analysed: rate, FEC, window counters and the port-level BER.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkAnalysis {
    pub up: Option<bool>,
    pub ext_state: Option<String>,
    pub speed_mbps: Option<u32>,
    pub link_mode: Option<String>,
    pub lanes: Option<u32>,
    pub lane_class: Option<&'static str>,
    pub lane_rate_gbps: Option<f64>,
    pub modulation: Option<Modulation>,
    pub fec: Option<FecKind>,
    pub fec_limit_ber: Option<f64>,
    pub fec_limit_source: Option<&'static str>,
    pub duration_s: f64,
    pub samples: usize,
    pub link_down_events: Option<u64>,
    pub uncorrectable_blocks: Option<u64>,
    pub corrected_blocks: Option<u64>,
    pub corrected_bits: Option<u64>,
    /// Whole-port BER (all lanes), from the total corrected bits.
    pub pre_fec_ber: Option<f64>,
    pub pre_fec_ber_lower: Option<f64>,
    pub pre_fec_ber_upper: Option<f64>,
    pub margin_db: Option<f64>,
    /// True when the port had no errors: `margin_db` is from the BER upper bound.
    pub margin_is_lower_bound: bool,
    /// "rx_bits" when the driver's received-bit counter is the denominator, else "lane_rate".
    pub ber_denominator: Option<&'static str>,
    /// Where each counted figure came from: `netlink` (standard ethtool statistics) or
    /// `driver:<ethtool -S name>`, keyed by figure (`corrected_bits_per_lane`, ...).
    pub counter_sources: BTreeMap<&'static str, String>,
}

/// One lane, weakest first in [`InterfaceAnalysis::lanes`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LaneAnalysis {
    pub lane: u8,
    /// 1-based lane of the module this netdev lane uses (differs from `lane` on breakouts).
    pub module_lane: Option<u8>,
    /// 1 = weakest.
    pub rank: usize,
    pub rx_power_dbm: Option<f64>,
    pub tx_power_dbm: Option<f64>,
    pub tx_bias_ma: Option<f64>,
    pub corrected_bits: Option<u64>,
    pub pre_fec_ber: Option<f64>,
    pub pre_fec_ber_lower: Option<f64>,
    pub pre_fec_ber_upper: Option<f64>,
    /// Eye distance x with BER = Q(x) (NRZ) or 0.75·Q(x) (PAM4).
    pub q: Option<f64>,
    /// Optical-equivalent margin to the FEC limit.
    pub margin_db: Option<f64>,
    /// True when the lane had no errors: `margin_db` is then from the BER upper bound,
    /// so the real margin is at least this.
    pub margin_is_lower_bound: bool,
    pub optical_margin_db: Option<f64>,
    /// "low_warning" or "low_alarm": which module threshold `optical_margin_db` is over.
    pub optical_margin_reference: Option<&'static str>,
    pub flags: Vec<&'static str>,
    pub evidence: Evidence,
    pub advice: Option<String>,
    /// The module's own figures (CMIS VDM, media input) and where `pre_fec_ber` /
    /// `margin_db` come from: [`vdm_lanes`].
    pub esnr_db: Option<f64>,
    pub ltp_db: Option<f64>,
    pub module_pre_fec_ber: Option<f64>,
    pub ber_source: Option<vdm_lanes::BerSource>,
    /// The module's host-side (electrical input) VDM figures, when it reports any.
    pub host: Option<vdm_lanes::HostSide>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InterfaceAnalysis {
    pub interface: String,
    pub verdict: Verdict,
    pub reasons: Vec<Reason>,
    pub pcie: PcieAnalysis,
    pub link: LinkAnalysis,
    pub module: Option<ModuleReport>,
    pub module_error: Option<String>,
    pub lanes: Vec<LaneAnalysis>,
    /// log10(BER) against rx power across lanes, where there are enough points.
    pub rx_ber_fit: Option<RxBerFit>,
    /// The RS-FEC codeword histogram over the window (Linux 6.18), when counted.
    pub fec_histogram: Option<histogram::FecHistogram>,
    /// Lanes the NIC counts only together (port total minus the per-lane counters).
    pub lane_groups: Vec<lane_groups::LaneGroup>,
    pub events: Vec<String>,
    /// Assumptions and gaps, one sentence each.
    pub notes: Vec<String>,
    /// The `--profile` checks, expected beside measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<profile::ProfileCheck>,
    /// Every segment of the run (counter resets, module swaps split it), oldest first;
    /// the last is the one `verdict` judges (see [`analyze_selected`]).
    pub segments: Vec<segments::SegmentAnalysis>,
}

/// Analyses every window. `peers[i]`, when present, is the far end of `windows[i]`
/// (its module's tx power tells fiber loss from a weak far-end transmitter).
pub fn analyze(windows: &[InterfaceWindow], cfg: &Config, peers: &[InterfaceWindow]) -> Vec<InterfaceAnalysis> {
    let all: Vec<usize> = (0..windows.len()).collect();
    analyze_selected(windows, &all, cfg, peers, &|_| Vec::new())
}

/// Analyses `all[k]` for each `k` in `selected`, with PCIe grouping (multi-host NICs) and
/// breakout lane maps computed from every window of the source; `peers[i]` is the far
/// end of the i-th selected; `segments(iface)` gives the interface's segments to analyse
/// one by one (issue 9 item 5).
pub fn analyze_selected(
    all: &[InterfaceWindow],
    selected: &[usize],
    cfg: &Config,
    peers: &[InterfaceWindow],
    segments: &dyn Fn(&str) -> Vec<segments::SegmentInput>,
) -> Vec<InterfaceAnalysis> {
    let groups = pcie::groups(all, cfg);
    let maps = breakout::lane_maps(all);
    selected
        .iter()
        .filter_map(|k| Some((all.get(*k)?, maps.get(*k)?)))
        .enumerate()
        .map(|(i, (w, map))| {
            let group = groups.get(&w.interface).cloned();
            let mut a = analyze_one(w, cfg, peers.get(i), group.clone(), map);
            a.segments = segments::analyze_segments(&segments(&w.interface), group.as_ref(), map, cfg);
            a
        })
        .collect()
}

fn count(c: &Option<crate::counters::Counted>) -> Option<u64> {
    c.as_ref().map(|c| c.value)
}

/// Link media is copper when the kernel link mode says CR, the module says so, or an
/// identified module has no optical monitor on any lane.
fn is_copper(w: &InterfaceWindow) -> bool {
    let mode_cr = w.link.link_mode.as_deref().and_then(|m| m.split_once("base")).is_some_and(|(_, media)| media.starts_with("CR"));
    let Some(m) = &w.module else { return mode_cr };
    let media = m.media_type.as_deref().unwrap_or("").to_ascii_lowercase();
    let named = ["copper", "dac", "aec", "twinax"].iter().any(|k| media.contains(k));
    let no_monitors = !m.lanes.is_empty() && m.lanes.iter().all(|l| l.rx_power_mw.is_none() && l.tx_power_mw.is_none());
    mode_cr || named || no_monitors
}

struct Context<'a> {
    w: &'a InterfaceWindow,
    cfg: Config,
    rate: Option<LaneRate>,
    modulation: Option<Modulation>,
    fec: FecKind,
    limit: Option<f64>,
    notes: Vec<String>,
}

impl Context<'_> {
    /// BER of `errors` over `lanes` lanes: the driver's rx_bits (whole port, split evenly
    /// per lane) when counted, else lane rate x window.
    fn ber_of(&self, errors: u64, lanes: u32) -> Option<Ber> {
        let rate = self.rate.as_ref()?;
        let bits = match count(&self.w.deltas.rx_bits).filter(|b| *b > 0) {
            Some(rx) => rx as f64 * f64::from(lanes) / f64::from(rate.lanes),
            None => Ber::bits_on_wire(rate.lane_rate_gbps, lanes, self.w.duration_s),
        };
        Ber::new(errors, bits, self.cfg.confidence)
    }

    /// A BER needs a window and a FEC that counts what it corrects.
    fn ber_possible(&self) -> bool {
        self.w.samples >= 2 && self.w.duration_s > 0.0 && self.fec != FecKind::Off
    }

    fn margin(&self, ber: f64) -> Option<f64> {
        q::margin_db(ber, self.limit?, self.modulation?)
    }
}

fn link_analysis(cx: &mut Context) -> LinkAnalysis {
    let w = cx.w;
    let d = &w.deltas;
    let fec = cx.fec;
    let lim = fec::limit(fec);
    let mut l = LinkAnalysis {
        up: w.link_up,
        ext_state: w.link_ext_state.filter(|_| w.link_up == Some(false)).map(ext_state_name),
        speed_mbps: w.link.speed_mbps,
        link_mode: w.link.link_mode.clone(),
        lanes: cx.rate.as_ref().map(|r| r.lanes),
        lane_class: cx.rate.as_ref().map(|r| r.class),
        lane_rate_gbps: cx.rate.as_ref().map(|r| r.lane_rate_gbps),
        modulation: cx.modulation,
        fec: Some(fec),
        fec_limit_ber: lim.ber_limit,
        fec_limit_source: Some(lim.clause),
        duration_s: w.duration_s,
        samples: w.samples,
        link_down_events: count(&d.link_down_events),
        uncorrectable_blocks: count(&d.uncorrectable_blocks),
        corrected_blocks: count(&d.corrected_blocks),
        corrected_bits: count(&d.corrected_bits),
        ber_denominator: Some(if count(&d.rx_bits).is_some_and(|b| b > 0) { "rx_bits" } else { "lane_rate" }),
        counter_sources: counter_sources(d),
        ..Default::default()
    };
    if l.uncorrectable_blocks.is_none() {
        cx.notes.push("uncorrectable FEC blocks are not counted: frame loss cannot be ruled out".into());
    }
    if !cx.ber_possible() {
        if fec == FecKind::Off {
            cx.notes.push("FEC is off: corrected-bit counters, if any, do not measure the line BER".into());
        } else {
            cx.notes.push("window has fewer than two samples: no BER".into());
        }
        return l;
    }
    match (l.corrected_bits, cx.rate.as_ref()) {
        (Some(k), Some(r)) => {
            if let Some(b) = cx.ber_of(k, r.lanes) {
                l.pre_fec_ber = Some(b.ber);
                l.pre_fec_ber_lower = Some(b.lower);
                l.pre_fec_ber_upper = Some(b.upper);
                l.margin_db = cx.margin(if k == 0 { b.upper } else { b.ber });
                l.margin_is_lower_bound = k == 0;
            }
        }
        (Some(_), None) => cx.notes.push("corrected bits counted but the lane rate is unknown: no BER".into()),
        (None, _) if l.corrected_blocks.is_some() => {
            cx.notes.push("only FEC block counts (codewords, not bits) are available: no BER".into())
        }
        (None, _) => {}
    }
    l
}

fn counter_sources(d: &PortCounters) -> BTreeMap<&'static str, String> {
    let totals = [
        ("corrected_bits", &d.corrected_bits),
        ("corrected_blocks", &d.corrected_blocks),
        ("uncorrectable_blocks", &d.uncorrectable_blocks),
        ("rx_bits", &d.rx_bits),
        ("pcs_symbol_errors", &d.pcs_symbol_errors),
        ("link_down_events", &d.link_down_events),
    ];
    let lanes = [
        ("corrected_bits_per_lane", &d.corrected_bits_per_lane),
        ("corrected_blocks_per_lane", &d.corrected_blocks_per_lane),
        ("uncorrectable_blocks_per_lane", &d.uncorrectable_blocks_per_lane),
    ];
    let t = totals.into_iter().filter_map(|(k, c)| c.as_ref().map(|c| (k, c.origin.0.to_string())));
    let l = lanes.into_iter().filter_map(|(k, c)| c.as_ref().map(|c| (k, c.origin.0.to_string())));
    t.chain(l).collect()
}

/// Per-lane monitors and BER, in lane order.
fn lane_analyses(cx: &Context) -> Vec<LaneAnalysis> {
    let w = cx.w;
    let module_lanes = w.module.as_ref().map_or(&[][..], |m| &m.lanes[..]);
    let per_lane = w.deltas.corrected_bits_per_lane.as_ref().map(|l| &l.values[..]);
    let n =
        [module_lanes.iter().map(|l| usize::from(l.lane)).max().unwrap_or(0), per_lane.map_or(0, |v| v.len()), w.rx_power_dbm_mean.len()]
            .into_iter()
            .max()
            .unwrap_or(0)
            .min(usize::from(u8::MAX));
    (1..=n)
        .map(|i| {
            let idx = i - 1;
            // n <= 255, so the lane number fits a u8.
            let lane = u8::try_from(i).unwrap_or(u8::MAX);
            let m = module_lanes.iter().find(|l| l.lane == lane);
            let rx = w.rx_power_dbm_mean.get(idx).copied().flatten().or(m.and_then(|m| m.rx_power_dbm));
            let rx = rx.filter(|v| v.is_finite());
            let mut la = LaneAnalysis {
                lane,
                rx_power_dbm: rx,
                tx_power_dbm: m.and_then(|m| m.tx_power_dbm).filter(|v| v.is_finite()),
                tx_bias_ma: m.and_then(|m| m.tx_bias_ma),
                corrected_bits: per_lane.and_then(|v| v.get(idx).copied()),
                ..Default::default()
            };
            if let Some(om) = w.module.as_ref().and_then(|m| optical::optical_margin(rx, &m.thresholds, m.rx_power_type)) {
                la.optical_margin_db = Some(om.margin_db);
                la.optical_margin_reference = Some(om.reference);
            }
            if let (Some(k), true) = (la.corrected_bits, cx.ber_possible()) {
                if let Some(b) = cx.ber_of(k, 1) {
                    la.pre_fec_ber = Some(b.ber);
                    la.pre_fec_ber_lower = Some(b.lower);
                    la.pre_fec_ber_upper = Some(b.upper);
                    la.margin_is_lower_bound = k == 0;
                    let at = if k == 0 { b.upper } else { b.ber };
                    la.q = cx.modulation.and_then(|m| q::q_from_ber(at, m));
                    la.margin_db = cx.margin(at);
                }
            }
            la
        })
        .collect()
}

/// Weakest first: by BER margin when any lane has one, else by optical margin; lanes
/// without the figure go last, ties by media eSNR (lower first), then lane number.
fn rank(lanes: &mut [LaneAnalysis]) {
    let by_ber = lanes.iter().any(|l| l.margin_db.is_some());
    let key = |l: &LaneAnalysis| {
        if by_ber {
            l.margin_db
        } else {
            l.optical_margin_db
        }
    };
    lanes.sort_by(|a, b| match (key(a), key(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y).then(vdm_lanes::by_esnr(a, b)).then(a.lane.cmp(&b.lane)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => vdm_lanes::by_esnr(a, b).then(a.lane.cmp(&b.lane)),
    });
    for (i, l) in lanes.iter_mut().enumerate() {
        l.rank = i + 1;
    }
}

fn analyze_one(
    w: &InterfaceWindow,
    base: &Config,
    peer: Option<&InterfaceWindow>,
    group: Option<PcieGroup>,
    map: &breakout::Mapping,
) -> InterfaceAnalysis {
    let mut notes = Vec::new();
    let module = breakout::reported_module(w, map);
    let view = breakout::window_for(w, map, &mut notes);
    let w = &*view;
    let rate = lanes::lane_rate(&w.link, w.module.as_ref(), &mut notes);
    let cfg = base.for_lane_rate(rate.as_ref().map(|r| r.lane_rate_gbps));
    let modulation = rate.as_ref().map(|r| r.modulation).or(w.module.as_ref().and_then(|m| m.modulation));
    let fec = fec::fec_kind(w.link.fec_active.as_deref(), modulation, &mut notes);
    let limit = fec::limit(fec).ber_limit;
    let mut cx = Context { w, cfg, rate, modulation, fec, limit, notes };
    let mut link = link_analysis(&mut cx);
    let mut lanes = lane_analyses(&cx);
    vdm_lanes::apply(&mut cx, &mut lanes);
    for l in lanes.iter_mut() {
        l.module_lane = breakout::module_lane(map, l.lane, w.module.is_some());
    }
    let groups = lane_groups::groups(&mut cx, &link);
    if let (Some(m), Some(r)) = (&w.module, &cx.rate) {
        if !m.lanes.is_empty() && m.lanes.len() != r.lanes as usize {
            cx.notes.push(format!(
                "module has {} monitored lanes and the link {}: rx power and BER are paired by lane number",
                m.lanes.len(),
                r.lanes
            ));
        }
    }
    if lanes.iter().all(|l| l.pre_fec_ber.is_none()) && link.corrected_bits.is_some() {
        cx.notes.push("corrected bits are counted for the port only: no per-lane BER".into());
    }
    cx.notes.extend(shares::no_time_base_notes(w, cx.ber_possible()));
    let fit = outlier::rx_ber_fit(&lanes, cx.modulation, &cx.cfg);
    let mut reasons = Vec::new();
    let pcie = pcie::analyze_pcie(w, &cx.cfg, group);
    if pcie.degraded {
        let severity = if pcie.trained_down { Severity::Reject } else { Severity::Investigate };
        let msg = format!("{}: {}", pcie.message.as_deref().unwrap_or("PCIe degraded"), pcie.advice.as_deref().unwrap_or(""));
        reasons.push(Reason::new(PCIE_DEGRADED, severity, None, msg));
    }
    link_reasons(&cx, &link, &lanes, &mut reasons);
    judge_lanes(&cx, &link, &mut lanes, fit.as_ref(), peer, &mut reasons);
    lane_groups::judge(&cx, &link, &groups, &lanes, &mut reasons);
    let fec_histogram = histogram::judge(&mut cx, &mut reasons);
    limits::fec_limit_reasons(&cx, &link, &mut lanes, &mut reasons);
    transmitter::judge_transmitters(w, &cx.cfg, &mut lanes, &mut reasons);
    limits::window_worth(&cx, &mut link, &mut lanes, &mut reasons);
    rank(&mut lanes);
    // Worst first: by severity, then port-wide reasons before lane ones, lanes weakest first.
    let lane_rank = |n: Option<u8>| n.and_then(|n| lanes.iter().find(|l| l.lane == n)).map_or(0, |l| l.rank);
    reasons.sort_by_key(|r| (std::cmp::Reverse(r.severity), lane_rank(r.lane)));
    InterfaceAnalysis {
        interface: w.interface.clone(),
        verdict: verdict::verdict(&reasons),
        reasons,
        pcie,
        link,
        module,
        module_error: w.module_error.clone(),
        lanes,
        rx_ber_fit: fit,
        fec_histogram,
        lane_groups: groups,
        events: w.events.clone(),
        notes: cx.notes,
        profile: None,
        segments: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counter_sources_name_netlink_and_driver_counters() {
        use crate::counters::normalize;
        let fec = crate::counters::FecStats { corrected_bits: vec![10], ..Default::default() };
        let driver = [("rx_err_lane_0_phy".to_string(), 4), ("rx_err_lane_1_phy".to_string(), 6), ("link_down_events_phy".to_string(), 1)]
            .into_iter()
            .collect();
        let s = counter_sources(&normalize(Some(&fec), None, &driver));
        assert_eq!(s.get("corrected_bits").map(String::as_str), Some("netlink"));
        assert_eq!(s.get("corrected_bits_per_lane").map(String::as_str), Some("driver:rx_err_lane_N_phy"));
        assert_eq!(s.get("link_down_events").map(String::as_str), Some("driver:link_down_events_phy"));
        assert!(!s.contains_key("uncorrectable_blocks"));
    }
    use crate::counters::{Counted, LaneCounts, Origin};
    use crate::module::report::{LaneReport, RxPowerType, Standard, ThresholdSet, Thresholds};
    use crate::source::PciLink;

    fn mw(dbm: f64) -> f64 {
        10f64.powf(dbm / 10.0)
    }

    fn module(rx_dbm: &[f64], sn: &str) -> ModuleReport {
        let mut m = ModuleReport::new(Standard::Cmis, 0x18);
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
        Some(Counted { value: v, origin: Origin::netlink() })
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
            },
            link: LinkInfo {
                speed_mbps: Some(200_000),
                lanes: Some(4),
                link_mode: Some("200000baseSR4/Full".into()),
                fec_active: Some("RS".into()),
            },
            module: Some(module(rx_dbm, "SN0001")),
            rx_power_dbm_mean: rx_dbm.iter().map(|v| Some(*v)).collect(),
            duration_s: 60.0,
            samples: 61,
            link_up: Some(true),
            deltas: PortCounters {
                corrected_bits: counted(bits.iter().sum()),
                corrected_bits_per_lane: Some(LaneCounts { values: bits.to_vec(), origin: Origin::netlink() }),
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

    fn codes(a: &InterfaceAnalysis) -> Vec<&'static str> {
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
        assert!(l4.flags.contains(&FEC_HIDING) && l4.flags.contains(&LOW_MARGIN), "{:?}", l4.flags);
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
        let hiding = a.reasons.iter().find(|r| r.code == FEC_HIDING).unwrap();
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
        assert_eq!(codes(&a), vec![PCIE_DEGRADED]);
        assert!(a.pcie.degraded && (a.pcie.ceiling_gbps.unwrap() - 57.97).abs() < 0.01);
        assert!(a.reasons[0].message.contains("reseat"));
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
        assert!(codes(&a).contains(&UNCORRECTABLE_ERRORS));
        // FEC is no longer hiding anything: frames are being lost. The lane is still low margin.
        assert!(!a.lanes[0].flags.contains(&FEC_HIDING) && a.lanes[0].flags.contains(&LOW_MARGIN));
    }

    #[test]
    fn link_flaps_and_link_down_reject() {
        let mut w = sr4(&HEALTHY_RX, &HEALTHY_BITS);
        w.deltas.link_down_events = counted(2);
        let a = one(w);
        assert_eq!((a.verdict, codes(&a)), (Verdict::Reject, vec![LINK_FLAPS]));
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
        if let Some(m) = w.module.as_mut() {
            m.lanes[2].flags = vec!["rx_power_low_warning".into()];
        }
        let a = one(w.clone());
        assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![DOM_WARNING]));
        let l3 = a.lanes.iter().find(|l| l.lane == 3).unwrap();
        assert_eq!(l3.flags, vec![DOM_WARNING]);
        assert!(l3.advice.as_deref().unwrap().contains("clean the fiber"));
        if let Some(m) = w.module.as_mut() {
            m.lanes[2].flags = vec!["rx_power_low_alarm".into()];
            m.module_flags = vec!["temperature_high_warning".into()];
        }
        let a = one(w.clone());
        assert_eq!(a.verdict, Verdict::Reject);
        assert_eq!(codes(&a), vec![DOM_ALARM, DOM_WARNING]); // worst first
        if let Some(m) = w.module.as_mut() {
            m.lanes[2].flags = vec!["tx_fault".into()];
            m.module_flags.clear();
        }
        let a = one(w);
        assert_eq!((a.verdict, codes(&a)), (Verdict::Reject, vec![MODULE_FAULT]));
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
        let r = a.reasons.iter().find(|r| r.code == NO_FEC_DATA).unwrap();
        assert_eq!(r.severity, Severity::Info);
        assert!(r.message.contains("10 corrected codewords") && r.message.contains("at least"), "{}", r.message);
        assert!(a.notes.iter().any(|n| n.contains("only FEC block counts")));
        // Ranked by optical margin instead: lane 4 (-1.15 dBm) is weakest.
        assert_eq!(a.lanes[0].lane, 4);
        // Neither bits nor blocks: nothing measures the line.
        let mut bare = w.clone();
        bare.deltas.corrected_blocks = None;
        let a = one(bare);
        assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![NO_FEC_DATA]));
        // A 10G link without FEC: a note, not a verdict change.
        w.link = LinkInfo {
            speed_mbps: Some(10_000),
            lanes: Some(1),
            link_mode: Some("10000baseSR/Full".into()),
            fec_active: Some("None".into()),
        };
        w.identity.pci = None;
        let a = one(w.clone());
        assert_eq!(a.verdict, Verdict::Accept);
        assert_eq!(a.reasons.len(), 1);
        assert_eq!((a.reasons[0].code, a.reasons[0].severity), (NO_FEC_DATA, Severity::Info));
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
        assert_eq!((a.verdict, codes(&a)), (Verdict::Investigate, vec![MODULE_UNREADABLE]));
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
        assert_eq!(a.link.ber_denominator, Some("rx_bits"));
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
        assert_eq!(codes(&a), vec![MODULE_UNREADABLE]);
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
        assert_eq!(l4.summary, "lane 4: +1.2 dB margin, BER 6.7e-5 -> 3.8e-7, rx +0.5 dB: improved");
        // Lane 1 unchanged: identical counts, overlapping intervals.
        let l1 = c.lanes.iter().find(|l| l.lane == 1).unwrap();
        assert_eq!(l1.change, compare::Change::NoSignificantChange);
        assert!(l1.summary.ends_with("no significant change"));
        // Worse the other way round.
        assert_eq!(compare(&after, &before).lanes[3].change, compare::Change::Worse);
    }
}
