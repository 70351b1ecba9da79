//! BER, Q, margin, ranking, flags, verdicts and comparisons: pure functions over
//! [`InterfaceWindow`]s that the sampling layer builds from samples (live or replayed).
//!
//! [`analyze`] turns each window into an [`InterfaceAnalysis`] (its JSON is a contract:
//! keys may be added, never renamed): lane rate and FEC ([`lanes`], [`fec`]), pre-FEC
//! BER with Poisson bounds ([`ber`]), Q and margin ([`q`]), optical margin
//! ([`optical`]), outliers ([`outlier`]), PCIe ceiling ([`pcie`]), reasons and the
//! verdict ([`verdict`]), swap advice ([`advice`]); [`compare`] judges before/after.

pub mod advice;
pub mod ber;
pub mod compare;
pub mod config;
pub mod fec;
pub mod lanes;
pub mod optical;
pub mod outlier;
pub mod pcie;
pub mod q;
pub mod stats;
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
use lanes::LaneRate;
use outlier::{Evidence, RxBerFit};
use pcie::{PcieAnalysis, PcieGroup};
use serde::Serialize;
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
    /// "rx_bits" when the driver's received-bit counter is the denominator, else "lane_rate".
    pub ber_denominator: Option<&'static str>,
}

/// One lane, weakest first in [`InterfaceAnalysis::lanes`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LaneAnalysis {
    pub lane: u8,
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
    pub events: Vec<String>,
    /// Assumptions and gaps, one sentence each.
    pub notes: Vec<String>,
}

/// Analyses every window. `peers[i]`, when present, is the far end of `windows[i]`
/// (its module's tx power tells fiber loss from a weak far-end transmitter).
pub fn analyze(windows: &[InterfaceWindow], cfg: &Config, peers: &[InterfaceWindow]) -> Vec<InterfaceAnalysis> {
    let groups = pcie::groups(windows, cfg);
    windows
        .iter()
        .enumerate()
        .map(|(i, w)| analyze_one(w, cfg, peers.get(i), groups.get(&w.interface).cloned()))
        .collect()
}

fn count(c: &Option<crate::counters::Counted>) -> Option<u64> {
    c.as_ref().map(|c| c.value)
}

/// Link media is copper when the kernel link mode says CR, the module says so, or an
/// identified module has no optical monitor on any lane.
fn is_copper(w: &InterfaceWindow) -> bool {
    let mode_cr = w
        .link
        .link_mode
        .as_deref()
        .and_then(|m| m.split_once("base"))
        .is_some_and(|(_, media)| media.starts_with("CR"));
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
    limit: Option<f64>,
    notes: Vec<String>,
}

impl Context<'_> {
    fn ber_of(&self, errors: u64, lanes: u32) -> Option<Ber> {
        let bits = match count(&self.w.deltas.rx_bits).filter(|b| *b > 0) {
            // rx_bits counts the whole port; split evenly per lane.
            Some(rx) => rx as f64 * f64::from(lanes) / f64::from(self.rate.as_ref().map_or(lanes, |r| r.lanes)),
            None => Ber::bits_on_wire(self.rate.as_ref()?.lane_rate_gbps, lanes, self.w.duration_s),
        };
        Ber::new(errors, bits, self.cfg.confidence)
    }

    fn margin(&self, ber: f64) -> Option<f64> {
        q::margin_db(ber, self.limit?, self.modulation?)
    }
}

fn link_analysis(cx: &mut Context) -> LinkAnalysis {
    let w = cx.w;
    let d = &w.deltas;
    let fec = fec::fec_kind(w.link.fec_active.as_deref(), cx.modulation, &mut cx.notes);
    let lim = fec::limit(fec);
    cx.limit = lim.ber_limit;
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
        ..Default::default()
    };
    if w.samples < 2 || w.duration_s <= 0.0 {
        cx.notes.push("window has fewer than two samples: no BER".into());
        return l;
    }
    match (l.corrected_bits, cx.rate.as_ref()) {
        (Some(k), Some(r)) => {
            if let Some(b) = cx.ber_of(k, r.lanes) {
                l.pre_fec_ber = Some(b.ber);
                l.pre_fec_ber_lower = Some(b.lower);
                l.pre_fec_ber_upper = Some(b.upper);
                l.margin_db = cx.margin(if k == 0 { b.upper } else { b.ber });
            }
        }
        (Some(_), None) => cx.notes.push("corrected bits counted but the lane rate is unknown: no BER".into()),
        (None, _) if l.corrected_blocks.is_some() => cx
            .notes
            .push("only FEC block counts (codewords, not bits) are available: no BER".into()),
        (None, _) => {}
    }
    l
}

/// Per-lane monitors and BER, in lane order.
fn lane_analyses(cx: &Context) -> Vec<LaneAnalysis> {
    let w = cx.w;
    let module_lanes = w.module.as_ref().map_or(&[][..], |m| &m.lanes[..]);
    let per_lane = w.deltas.corrected_bits_per_lane.as_ref().map(|l| &l.values[..]);
    let n = [
        module_lanes.iter().map(|l| usize::from(l.lane)).max().unwrap_or(0),
        per_lane.map_or(0, |v| v.len()),
        w.rx_power_dbm_mean.len(),
    ]
    .into_iter()
    .max()
    .unwrap_or(0)
    .min(usize::from(u8::MAX));
    let have_samples = w.samples >= 2 && w.duration_s > 0.0;
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
            if let Some(om) = w
                .module
                .as_ref()
                .and_then(|m| optical::optical_margin(rx, &m.thresholds, m.rx_power_type))
            {
                la.optical_margin_db = Some(om.margin_db);
                la.optical_margin_reference = Some(om.reference);
            }
            if let (Some(k), true) = (la.corrected_bits, have_samples) {
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
/// without the figure go last, ties by lane number.
fn rank(lanes: &mut [LaneAnalysis]) {
    let by_ber = lanes.iter().any(|l| l.margin_db.is_some());
    let key = |l: &LaneAnalysis| if by_ber { l.margin_db } else { l.optical_margin_db };
    lanes.sort_by(|a, b| match (key(a), key(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y).then(a.lane.cmp(&b.lane)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.lane.cmp(&b.lane),
    });
    for (i, l) in lanes.iter_mut().enumerate() {
        l.rank = i + 1;
    }
}

fn fmt_opt_db(v: Option<f64>) -> String {
    v.map_or("unknown".into(), |v| format!("{v:.2} dB"))
}

/// Flags, reasons and advice for the lanes.
fn judge_lanes(cx: &Context, link: &LinkAnalysis, lanes: &mut [LaneAnalysis], fit: Option<&RxBerFit>, peer: Option<&InterfaceWindow>, reasons: &mut Vec<Reason>) {
    let w = cx.w;
    let cfg = &cx.cfg;
    let link_clean = w.link_up != Some(false)
        && link.uncorrectable_blocks.unwrap_or(0) == 0
        && link.link_down_events.unwrap_or(0) == 0;
    let evidence: Vec<Evidence> = (0..lanes.len()).map(|i| outlier::evidence(lanes, i, cfg, cx.limit)).collect();
    let copper = is_copper(w);
    let module_lanes = w.module.as_ref().map_or(&[][..], |m| &m.lanes[..]);
    let peer_lanes = peer.and_then(|p| p.module.as_ref()).map_or(&[][..], |m| &m.lanes[..]);
    for (la, ev) in lanes.iter_mut().zip(evidence) {
        let n = la.lane;
        let flags: &[String] = module_lanes.iter().find(|l| l.lane == n).map_or(&[], |l| &l.flags[..]);
        // Module flags on this lane.
        for f in flags {
            if let Some(code) = flag_code(f) {
                if !la.flags.contains(&code) {
                    la.flags.push(code);
                }
                reasons.push(Reason::new(code, severity_of_flag_code(code), Some(n), format!("lane {n}: module reports {f}")));
            }
        }
        // Optimistic margin: from the BER lower bound (infinite for zero errors).
        let margin_hi = la.pre_fec_ber_lower.filter(|b| *b > 0.0).and_then(|b| cx.margin(b));
        let ber_low_margin = margin_hi.is_some_and(|m| m < cfg.margin_floor_db);
        let rx_flagged = flags.iter().any(|f| f.starts_with("rx_power_low"));
        let optical_low = !rx_flagged && la.optical_margin_db.is_some_and(|m| m < cfg.optical_margin_floor_db);
        let pam4 = cx.modulation == Some(Modulation::Pam4);
        let limit_text = match (cx.limit, link.fec.map(|f| f.name())) {
            (Some(l), Some(f)) => format!("the {f} limit {l:.1e}"),
            _ => "the FEC limit".into(),
        };
        if ber_low_margin || optical_low {
            la.flags.push(LOW_MARGIN);
            let msg = if ber_low_margin {
                format!("lane {n}: margin {} to {limit_text} is below the {:.1} dB floor", fmt_opt_db(la.margin_db), cfg.margin_floor_db)
            } else {
                format!(
                    "lane {n}: rx {:.2} dBm is {} over the module's {} threshold (floor {:.1} dB)",
                    la.rx_power_dbm.unwrap_or(f64::NAN),
                    fmt_opt_db(la.optical_margin_db),
                    la.optical_margin_reference.unwrap_or("low"),
                    cfg.optical_margin_floor_db
                )
            };
            reasons.push(Reason::new(LOW_MARGIN, Severity::Investigate, Some(n), msg));
        }
        let hiding = link_clean && la.corrected_bits.is_some_and(|k| k > 0) && (ev.outlier || ber_low_margin);
        if hiding {
            la.flags.push(FEC_HIDING);
            let mut msg = format!(
                "lane {n}: pre-FEC BER {:.1e}{} with no uncorrectable blocks or link drops: FEC is hiding marginal optics; margin {} to {limit_text}",
                la.pre_fec_ber.unwrap_or(f64::NAN),
                ev.ber_ratio.map(|r| format!(" ({r:.0}x its siblings' median)")).unwrap_or_default(),
                fmt_opt_db(la.margin_db),
            );
            if let Some(d) = ev.rx_delta_db {
                msg.push_str(&format!("; rx {:.2} dBm, {:+.2} dB vs its siblings", la.rx_power_dbm.unwrap_or(f64::NAN), d));
            }
            if let Some(f) = fit {
                msg.push_str(&format!("; BER vs light across lanes {:.1} decades/dB", f.slope_decades_per_db));
                if f.pam4_signature {
                    msg.push_str(" (the PAM4 signature: a few tenths of a dB move the BER by a decade)");
                }
            } else if pam4 {
                msg.push_str(" (PAM4: a few tenths of a dB move the BER by a decade)");
            }
            reasons.push(Reason::new(FEC_HIDING, Severity::Investigate, Some(n), msg));
        }
        if !la.flags.is_empty() {
            let peer_lane = |lane: u8| peer_lanes.iter().find(|l| l.lane == lane);
            let peer_sib: Vec<f64> = peer_lanes.iter().filter(|l| l.lane != n).filter_map(|l| l.tx_power_dbm).collect();
            let peer_tx_delta_db = peer_lane(n)
                .and_then(|l| l.tx_power_dbm)
                .zip(stats::median(&peer_sib))
                .map(|(t, m)| t - m)
                .filter(|d| d.is_finite());
            let facts = LaneFacts {
                lane: n,
                rx_delta_db: ev.rx_delta_db,
                rx_low_flagged: rx_flagged || optical_low,
                flags,
                copper,
                peer_tx_delta_db,
                peer_tx_flagged: peer_lane(n).is_some_and(|l| l.flags.iter().any(|f| f == "tx_fault" || f.starts_with("tx_power_low"))),
                have_peer: peer.is_some(),
            };
            la.advice = Some(lane_advice(&facts, cfg));
        }
        la.evidence = ev;
    }
}

fn link_reasons(cx: &Context, link: &LinkAnalysis, lanes: &[LaneAnalysis], reasons: &mut Vec<Reason>) {
    let w = cx.w;
    let cfg = &cx.cfg;
    if w.link_up == Some(false) {
        let why = link.ext_state.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
        reasons.push(Reason::new(LINK_FLAPS, Severity::Reject, None, format!("link is down at the end of the window{why}")));
    }
    if let Some(k) = link.link_down_events.filter(|k| *k > cfg.max_link_down_events) {
        reasons.push(Reason::new(LINK_FLAPS, Severity::Reject, None, format!("{k} link-down events in {:.0} s", w.duration_s)));
    }
    if let Some(k) = link.uncorrectable_blocks.filter(|k| *k > cfg.max_uncorrectable_blocks) {
        reasons.push(Reason::new(
            UNCORRECTABLE_ERRORS,
            Severity::Reject,
            None,
            format!("{k} uncorrectable FEC blocks in {:.0} s: frames were lost", w.duration_s),
        ));
    }
    if let Some(c) = w.deltas.pcs_symbol_errors.as_ref().filter(|c| c.value > 0) {
        reasons.push(Reason::new(
            UNCORRECTABLE_ERRORS,
            Severity::Reject,
            None,
            format!("{} PCS symbol errors ({}) in {:.0} s: errors reached the PCS", c.value, c.origin.0, w.duration_s),
        ));
    }
    if let Some(m) = &w.module {
        for f in &m.module_flags {
            if let Some(code) = flag_code(f) {
                reasons.push(Reason::new(code, severity_of_flag_code(code), None, format!("module reports {f}")));
            }
        }
    } else {
        let why = w.module_error.as_deref().unwrap_or("no module data");
        reasons.push(Reason::new(MODULE_UNREADABLE, Severity::Investigate, None, format!("module unreadable: {why}")));
    }
    let has_bits = link.corrected_bits.is_some() || lanes.iter().any(|l| l.corrected_bits.is_some());
    if !has_bits {
        let (severity, msg) = if link.fec == Some(FecKind::Off) {
            (Severity::Info, "FEC is off: no corrected-bit counters, so no pre-FEC BER; DOM and PCS errors are the only margin signals")
        } else {
            (Severity::Investigate, "no corrected-bit counters from the kernel or driver: pre-FEC BER and margin cannot be measured")
        };
        reasons.push(Reason::new(NO_FEC_DATA, severity, None, msg.into()));
    }
}

fn analyze_one(w: &InterfaceWindow, base: &Config, peer: Option<&InterfaceWindow>, group: Option<PcieGroup>) -> InterfaceAnalysis {
    let mut notes = Vec::new();
    let rate = lanes::lane_rate(&w.link, w.module.as_ref(), &mut notes);
    let cfg = base.for_lane_rate(rate.as_ref().map(|r| r.lane_rate_gbps));
    let modulation = rate.as_ref().map(|r| r.modulation).or(w.module.as_ref().and_then(|m| m.modulation));
    let mut cx = Context { w, cfg, rate, modulation, limit: None, notes };
    let link = link_analysis(&mut cx);
    let mut lanes = lane_analyses(&cx);
    if let (Some(m), Some(r)) = (&w.module, &cx.rate) {
        if !m.lanes.is_empty() && m.lanes.len() != r.lanes as usize {
            cx.notes.push(format!(
                "module has {} monitored lanes and the link {}: rx power and BER are paired by lane number",
                m.lanes.len(),
                r.lanes
            ));
        }
    }
    if lanes.iter().all(|l| l.corrected_bits.is_none()) && link.corrected_bits.is_some() {
        cx.notes.push("corrected bits are counted for the port only: no per-lane BER".into());
    }
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
    rank(&mut lanes);
    InterfaceAnalysis {
        interface: w.interface.clone(),
        verdict: verdict::verdict(&reasons),
        reasons,
        pcie,
        link,
        module: w.module.clone(),
        module_error: w.module_error.clone(),
        lanes,
        rx_ber_fit: fit,
        events: w.events.clone(),
        notes: cx.notes,
    }
}
