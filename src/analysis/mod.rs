//! BER, Q, margin, ranking, flags, verdicts and comparisons: pure functions over
//! [`InterfaceWindow`]s that the sampling layer builds from samples (live or replayed).
//!
//! [`analyze`] turns each window into an [`InterfaceAnalysis`] (its JSON is a contract:
//! keys may be added, never renamed): lane rate and FEC (`lanes`, [`fec`]), pre-FEC
//! BER with Poisson bounds (`ber`), Q and margin (`q`), optical margin
//! (`optical`), outliers ([`outlier`]), PCIe ceiling (`pcie`), flags and reasons
//! (`judge`), the host beneath the link ([`host`]), the verdict ([`verdict`](mod@verdict)), swap advice (`advice`); [`compare`](mod@compare) judges
//! before/after.

pub(crate) mod advice;
pub(crate) mod after_flap;
pub(crate) mod ber;
pub(crate) mod breakout;
pub mod codeword;
pub mod compare;
pub mod config;
pub(crate) mod dom_limits;
pub(crate) mod dom_trust;
pub mod fec;
pub(crate) mod frame_loss;
pub mod histogram;
pub mod host;
pub mod infiniband;
mod judge;
pub(crate) mod kernel_log;
pub(crate) mod lane_groups;
pub(crate) mod lane_index;
pub mod lane_rows;
pub(crate) mod lanes;
mod latest_readings;
mod limits;
pub mod link_loss;
pub(crate) mod optical;
pub mod outlier;
pub(crate) mod pcie;
mod peer_modules;
mod port_modes;
pub mod profile;
pub(crate) mod q;
pub mod segments;
pub mod series;
pub mod series_margin;
pub(crate) mod shares;
pub(crate) mod stats;
pub mod tail_models;
mod transmitter;
pub mod trend;
pub mod trend_lanes;
pub mod vdm_lanes;
pub mod verdict;

pub use compare::{compare, Comparison};
pub use config::Config;
pub(crate) use verdict::Severity;
pub use verdict::{Reason, ReasonCode, Verdict};

use crate::counters::serdes::SerdesEye;
use crate::counters::{CounterFigure, ExtStateValue, FecHistogramBin, LinkExtState, LinkInfo, PortCounters};
use crate::device::DeviceIdentity;
use crate::module::report::{LowPowerControls, Modulation};
use crate::module::state::ModuleState;
use crate::module::ModuleReport;
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
    /// The interface's name (netdev, or as an import names it).
    pub interface: String,
    /// The NIC, PCI and port identity behind the interface.
    pub identity: DeviceIdentity,
    /// Link state, speed, lanes and FEC mode at the end of the window.
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
    /// Samples in the window.
    pub samples: usize,
    /// Link up at the end of the window.
    pub link_up: Option<bool>,
    /// Extended link state at the end of the window (raw `ethtool_link_ext_state`).
    pub link_ext_state: Option<u8>,
    /// Its substate (raw, e.g. `ETHTOOL_LINK_EXT_SUBSTATE_CI_UNSUPPORTED_CABLE`).
    pub link_ext_substate: Option<u8>,
    /// Counter increases over the window (each `Counted::value` is a delta), after
    /// resets and wraps were handled. `None` = the counter was never available, or read
    /// at one moment of the window only (`counter_spans` says when).
    pub deltas: PortCounters,
    /// The figures whose own span is not the window's (read from partway, or up to
    /// partway): their increases and rates are over their own span.
    pub counter_spans: Vec<CounterSpan>,
    /// Counters as read at the last sample (absolute, not deltas): what a lone snapshot
    /// without a time base still tells (`shares`).
    pub counters_at_end: PortCounters,
    /// FEC histogram increases over the window.
    pub histogram_delta: Vec<FecHistogramBin>,
    /// Counter resets, module swaps, gaps, errors seen in the window: one sentence each.
    pub events: Vec<String>,
    /// The bounded per-lane series of the window's segment ([`trend_lanes`]); run windows only.
    pub series: Option<std::sync::Arc<series::LaneSeries>>,
    /// The host NIC's receiver eye per lane as the latest sample of the segment with one
    /// printed it (imported `mlxlink --show_eye`).
    pub serdes_eye: Option<SerdesEye>,
}

/// A counter figure whose own span in a window is not the window's: its readings began
/// after the window's first sample (a driver that starts exposing the counter after a
/// firmware reset or link-up, an import where one snapshot lacks it) or ended before its
/// last. Its increase, and every rate of it, is over this span; read at one moment only,
/// it has no increase.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CounterSpan {
    /// The figure (`corrected_bits_per_lane`, `symbol_errors`, `fec_histogram` for the
    /// histogram's bins).
    pub(crate) figure: CounterFigure,
    /// Where its latest reading came from.
    pub(crate) origin: crate::counters::Origin,
    /// Its first and last reading in the window (seconds since capture start).
    pub(crate) from_t: f64,
    pub(crate) to_t: f64,
    /// Its readings in the window; `null` when that is not known (a rolling window that
    /// starts after its first reading).
    pub(crate) samples: Option<usize>,
}

impl CounterSpan {
    /// Seconds between its first and last reading.
    pub(crate) fn duration_s(&self) -> f64 {
        self.to_t - self.from_t
    }

    /// True when it has an increase: read at two moments at least.
    pub(crate) fn has_delta(&self) -> bool {
        self.to_t > self.from_t
    }
}

/// As the text and the report give it beside the window's span: "corrected_bits_per_lane
/// (driver:rx_err_lane_N_phy) over its own 30.0 s (t=30.0-60.0 s, 31 samples)", or "...
/// read at t=60.0 s only: no increase".
impl std::fmt::Display for CounterSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (name, origin) = (self.figure, self.origin);
        if !self.has_delta() {
            return write!(f, "{name} ({origin}) read at t={:.1} s only: no increase", self.to_t);
        }
        write!(f, "{name} ({origin}) over its own {:.1} s (t={:.1}-{:.1} s", self.duration_s(), self.from_t, self.to_t)?;
        match self.samples {
            Some(n) => write!(f, ", {n} samples)"),
            None => f.write_str(")"),
        }
    }
}

impl InterfaceWindow {
    /// The own span of `figure` when it is not the window's.
    pub(crate) fn counter_span(&self, figure: CounterFigure) -> Option<&CounterSpan> {
        self.counter_spans.iter().find(|s| s.figure == figure)
    }

    /// Seconds the increase of `figure` spans: its own span, else the window's.
    pub(crate) fn seconds_of(&self, figure: CounterFigure) -> f64 {
        self.counter_span(figure).map_or(self.duration_s, CounterSpan::duration_s)
    }
}

/// What a BER's bit count is: `rx_bits` when the driver's received-bit counter is the
/// denominator, else `lane_rate` (the lane rate times the window).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum BerDenominator {
    RxBits,
    LaneRate,
}

/// The link as analysed: rate, FEC, window counters and the port-level BER.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LinkAnalysis {
    pub(crate) up: Option<bool>,
    pub(crate) ext_state: Option<ExtStateValue>,
    /// Why, within the extended state, as ethtool names it ("Unsupported cable").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ext_substate: Option<&'static str>,
    pub(crate) speed_mbps: Option<u32>,
    pub(crate) link_mode: Option<String>,
    /// The link modes the port supports, kernel names; absent where not reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) supported_modes: Vec<String>,
    /// The link modes the port advertises, or is forced to; absent where not reported.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) advertised_modes: Vec<String>,
    /// Lanes the link runs (4 for `400000baseDR4/Full`), when the link mode or speed tells.
    pub lanes: Option<u32>,
    pub(crate) lane_class: Option<lanes::LaneClass>,
    pub(crate) lane_rate_gbps: Option<f64>,
    pub(crate) modulation: Option<Modulation>,
    /// The FEC the link runs.
    pub fec: Option<FecKind>,
    /// Pre-FEC BER limit the FEC is judged against (its PMD clause's), when it has one.
    pub fec_limit_ber: Option<f64>,
    pub(crate) fec_limit_source: Option<fec::LimitSource>,
    pub(crate) duration_s: f64,
    pub(crate) samples: usize,
    /// The figures whose own span is not the window's ([`InterfaceWindow::counter_spans`]):
    /// their counts and rates are over it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) counter_spans: Vec<CounterSpan>,
    pub(crate) link_down_events: Option<u64>,
    pub(crate) uncorrectable_blocks: Option<u64>,
    pub(crate) corrected_blocks: Option<u64>,
    pub(crate) corrected_bits: Option<u64>,
    /// Whole-port BER (all lanes), from the total corrected bits.
    pub pre_fec_ber: Option<f64>,
    pub(crate) pre_fec_ber_lower: Option<f64>,
    pub(crate) pre_fec_ber_upper: Option<f64>,
    pub(crate) margin_db: Option<f64>,
    /// True when the port had no errors: `margin_db` is from the BER upper bound.
    pub(crate) margin_is_lower_bound: bool,
    /// What the port BER is divided by.
    pub(crate) ber_denominator: Option<BerDenominator>,
    /// Where each counted figure came from: `netlink` (standard ethtool statistics) or
    /// `driver:<ethtool -S name>`, keyed by figure (`corrected_bits_per_lane`, ...).
    pub counter_sources: BTreeMap<&'static str, String>,
}

/// One lane, weakest first in [`InterfaceAnalysis::lanes`].
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LaneAnalysis {
    /// 1-based lane of the netdev.
    pub lane: u8,
    /// 1-based lane of the module this netdev lane uses (differs from `lane` on breakouts).
    pub module_lane: Option<u8>,
    /// 1 = weakest.
    pub rank: usize,
    /// Received optical power of this lane in dBm: the mean over the window's samples, else the module's last reading.
    pub rx_power_dbm: Option<f64>,
    /// Transmitted optical power of this lane in dBm, as the module reports it at the end of the window.
    pub tx_power_dbm: Option<f64>,
    /// Laser bias current of this lane in mA, as the module reports it at the end of the window.
    pub tx_bias_ma: Option<f64>,
    /// Bits the FEC corrected on this lane over the window.
    pub corrected_bits: Option<u64>,
    /// Without a time base (a lone snapshot): the lane's corrected bits since the counters
    /// started, and its share of all the lanes' (percent). They rank the lanes when no
    /// lane has a BER.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected_bits_since_start: Option<u64>,
    /// This lane's percentage of all the lanes' corrected bits since the counters started (no time base).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub corrected_bits_share_pct: Option<f64>,
    /// Pre-FEC bit error ratio of this lane over the window: corrected bits over the bits the lane carried.
    pub pre_fec_ber: Option<f64>,
    /// Lower Poisson bound of `pre_fec_ber` at the configured confidence.
    pub pre_fec_ber_lower: Option<f64>,
    /// Upper Poisson bound of `pre_fec_ber` at the configured confidence (with no error counted, the bound zero errors allow).
    pub pre_fec_ber_upper: Option<f64>,
    /// Eye distance x with BER = Q(x) (NRZ) or 0.75·Q(x) (PAM4).
    pub q: Option<f64>,
    /// Optical-equivalent margin to the FEC limit.
    pub margin_db: Option<f64>,
    /// True when the lane had no errors: `margin_db` is then from the BER upper bound,
    /// so the real margin is at least this.
    pub margin_is_lower_bound: bool,
    /// Rx power in dB over the module's low threshold named by `optical_margin_reference`.
    pub optical_margin_db: Option<f64>,
    /// "low_warning" or "low_alarm": which module threshold `optical_margin_db` is over.
    pub optical_margin_reference: Option<crate::module::flag::Severity>,
    /// The reason codes raised on this lane.
    pub flags: Vec<ReasonCode>,
    /// How this lane stands against its siblings (rx delta, BER ratio, outlier, the rx/BER slope).
    pub evidence: Evidence,
    /// What to do about this lane, when a reason names it.
    pub advice: Option<String>,
    /// The module's eSNR of this lane's media input in dB (CMIS VDM); lower is weaker.
    pub esnr_db: Option<f64>,
    /// The module's PAM4 level transition parameter (LTP) of this lane's media input, in dB (CMIS VDM).
    pub ltp_db: Option<f64>,
    /// The module's own pre-FEC BER of this lane's media input (CMIS VDM: the current value, else the average).
    pub module_pre_fec_ber: Option<f64>,
    /// Which measurement `pre_fec_ber` and `margin_db` come from: the NIC's counters (driver, netlink, an import) or the module's VDM.
    pub ber_source: Option<vdm_lanes::BerSource>,
    /// The module's host-side (electrical input) VDM figures, when it reports any.
    pub host: Option<vdm_lanes::HostSide>,
    /// Margin slope and times to the floor and the FEC limit: [`trend_lanes`].
    #[serde(flatten)]
    pub trend: trend_lanes::LaneTrend,
    /// With `--peer`: far-end Tx dBm minus this end's Rx dBm on this lane (the near-end
    /// receive direction), the channel insertion loss its PMD allows, and that PMD
    /// ([`link_loss`]). Absent without a far end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_loss_db: Option<f64>,
    /// With `--peer`: the channel insertion loss in dB that the PMD allows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_loss_budget_db: Option<f64>,
    /// With `--peer`: the PMD whose budget `link_loss_budget_db` is, written as its name
    /// (`400GBASE-DR4`).
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "link_loss::serialize_pmd_name")]
    pub link_loss_pmd: Option<&'static link_loss::Pmd>,
    /// With `--peer`: the other direction, this end's Tx dBm minus the far end's Rx dBm on
    /// the lane facing this one (the far-end receive direction), held to the same budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub far_link_loss_db: Option<f64>,
}

/// One interface as analysed: the verdict and its reasons, the link, the module, every lane weakest first, and the evidence beside them (its JSON is a contract).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InterfaceAnalysis {
    /// The interface's name.
    pub interface: String,
    /// accept, investigate or reject: the worst reason's severity.
    pub verdict: Verdict,
    /// Why the verdict is what it is, worst first.
    pub reasons: Vec<Reason>,
    pub(crate) pcie: PcieAnalysis,
    /// The host beneath the link (driver, firmware, NUMA and GPU locality, MTU), when the
    /// source read it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) host: Option<host::HostAnalysis>,
    /// What the port's cable reaches, as an imported LLDP neighbor table names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub neighbor: Option<crate::device::LinkNeighbor>,
    /// The link as analysed: rate, FEC and its limit, the window's counters and the port BER.
    pub link: LinkAnalysis,
    /// Host-side evidence beside the lanes: the NIC's own receiver eye per lane as the tool
    /// printed it (`lanes[0]` = lane 1), shown, not judged: its vendor documents no pass
    /// level for the grade or the opening.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) serdes_eye: Option<SerdesEye>,
    /// The module as decoded at the end of the window (identity, monitors, thresholds, flags).
    pub module: Option<ModuleReport>,
    pub(crate) module_error: Option<String>,
    /// Every lane, weakest first.
    pub lanes: Vec<LaneAnalysis>,
    /// log10(BER) against rx power across lanes, where there are enough points.
    pub(crate) rx_ber_fit: Option<RxBerFit>,
    /// The RS-FEC codeword histogram over the window (Linux 6.18), when counted.
    pub fec_histogram: Option<histogram::FecHistogram>,
    /// Codeword error ratio and frame loss ratio, observed and predicted, with the PCS's
    /// interleave and the budgets they are judged by ([`frame_loss`]); `None` without an RS FEC.
    pub(crate) frame_loss: Option<frame_loss::FrameLoss>,
    /// Lanes the NIC counts only together (port total minus the per-lane counters).
    pub(crate) lane_groups: Vec<lane_groups::LaneGroup>,
    pub(crate) events: Vec<String>,
    /// Assumptions and gaps, one sentence each.
    pub(crate) notes: Vec<String>,
    /// What to do about the reasons that name no lane (a lane carries its own `advice`;
    /// PCIe's is `pcie.advice`), one sentence each, never repeated.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) advice: Vec<String>,
    /// The `--profile` checks, expected beside measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<profile::ProfileCheck>,
    /// Every segment of the run (counter resets, module swaps split it), oldest first;
    /// the last is the one `verdict` judges (see [`analyze_selected`]).
    pub segments: Vec<segments::SegmentAnalysis>,
    /// An InfiniBand port's facts and counts ([`infiniband`]); absent for other ports.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infiniband: Option<infiniband::IbAnalysis>,
    /// What an imported kernel log said of the NIC function (docs/import.md "The kernel log").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) kernel_log: Option<kernel_log::KernelLogAnalysis>,
    /// Each link drop in the window's series with every lane's BER before and after it
    /// ([`after_flap`]); empty without drops, a series or per-lane counters.
    pub(crate) after_flap: Vec<after_flap::FlapComparison>,
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
/// one by one.
pub fn analyze_selected(
    all: &[InterfaceWindow],
    selected: &[usize],
    cfg: &Config,
    peers: &[InterfaceWindow],
    segments: &dyn Fn(&str) -> Vec<segments::SegmentInput>,
) -> Vec<InterfaceAnalysis> {
    let groups = pcie::groups(all, cfg);
    let node = host::Node::of(all);
    let maps = breakout::lane_maps(all);
    selected
        .iter()
        .filter_map(|k| Some((all.get(*k)?, maps.get(*k)?)))
        .enumerate()
        .map(|(i, (w, map))| {
            let group = groups.get(&w.interface).cloned();
            let mut a = analyze_one(w, cfg, peers.get(i), group.clone(), map);
            host::judge(&mut a, w, &node, cfg);
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
    cfg: std::borrow::Cow<'a, Config>,
    rate: Option<LaneRate>,
    modulation: Option<Modulation>,
    fec: FecKind,
    limit: Option<f64>,
    /// The eye distance at `limit` ([`q::q_from_ber`]), worked out once for every margin.
    x_limit: Option<f64>,
    /// Poisson bounds at `cfg.confidence`, worked out once for every BER.
    bounds: ber::PoissonBounds,
    /// What of the module's diagnostics can be believed, and the thresholds judged against.
    dom: dom_trust::Trust<'a>,
    notes: Vec<String>,
}

impl Context<'_> {
    /// BER of `errors` of `figure` over `lanes` lanes: the driver's rx_bits (whole port,
    /// split evenly per lane) when counted over the same span, else lane rate x the
    /// figure's own span ([`InterfaceWindow::seconds_of`]).
    fn ber_of(&self, figure: CounterFigure, errors: u64, lanes: u32) -> Option<Ber> {
        let rate = self.rate.as_ref()?;
        let span = |f| self.w.counter_span(f).map(|s| (s.from_t, s.to_t));
        let rx_bits = count(&self.w.deltas.rx_bits).filter(|b| *b > 0 && span(CounterFigure::RxBits) == span(figure));
        let bits = match rx_bits {
            Some(rx) => rx as f64 * f64::from(lanes) / f64::from(rate.lanes),
            None => Ber::bits_on_wire(rate.lane_rate_gbps, lanes, self.w.seconds_of(figure)),
        };
        Ber::bounded(errors, bits, &self.bounds)
    }

    /// The NIC's per-lane counts of the lanes the link uses. A driver with more lane
    /// counters than the link has lanes (mlx5's four `rx_err_lane_N_phy` on a 2-lane
    /// 100G port) counts lanes that carry nothing: they are not siblings of the used ones,
    /// so medians, shares and the table leave them out.
    fn used<'v>(&self, values: &'v [u64]) -> &'v [u64] {
        match self.rate.as_ref() {
            Some(r) => &values[..values.len().min(r.lanes as usize)],
            None => values,
        }
    }

    /// A BER needs a window and a FEC that counts what it corrects.
    fn ber_possible(&self) -> bool {
        self.w.samples >= 2 && self.w.duration_s > 0.0 && self.fec != FecKind::Off
    }

    fn margin(&self, ber: f64) -> Option<f64> {
        self.margin_of_q(q::q_from_ber(ber, self.modulation?)?)
    }

    /// The margin of eye distance `x` to the FEC limit's.
    fn margin_of_q(&self, x: f64) -> Option<f64> {
        Some(q::margin_db_of_q(x, self.x_limit?))
    }
}

fn link_analysis(cx: &mut Context) -> LinkAnalysis {
    let w = cx.w;
    let d = &w.deltas;
    let fec = cx.fec;
    let lim = fec::limit(fec, cx.rate.as_ref().map(|r| r.lane_rate_gbps));
    let mut l = LinkAnalysis {
        up: w.link_up,
        ext_state: w.link_ext_state.filter(|_| w.link_up == Some(false)).map(ExtStateValue),
        ext_substate: w
            .link_ext_state
            .and_then(LinkExtState::from_raw)
            .zip(w.link_ext_substate)
            .filter(|_| w.link_up == Some(false))
            .and_then(|(s, b)| s.substate_name(b)),
        speed_mbps: w.link.speed_mbps,
        // Named by `analyze_one`: lane rows never show it (a string per row's window).
        link_mode: None,
        lanes: cx.rate.as_ref().map(|r| r.lanes),
        lane_class: cx.rate.as_ref().map(|r| r.class),
        lane_rate_gbps: cx.rate.as_ref().map(|r| r.lane_rate_gbps),
        modulation: cx.modulation,
        fec: Some(fec),
        fec_limit_ber: lim.ber_limit,
        fec_limit_source: Some(if infiniband::is_ib_port(w) { lim.source.on_infiniband() } else { lim.source }),
        duration_s: w.duration_s,
        samples: w.samples,
        counter_spans: w.counter_spans.clone(),
        link_down_events: count(&d.link_down_events),
        uncorrectable_blocks: count(&d.uncorrectable_blocks),
        corrected_blocks: count(&d.corrected_blocks),
        corrected_bits: count(&d.corrected_bits),
        ber_denominator: Some(if count(&d.rx_bits).is_some_and(|b| b > 0) { BerDenominator::RxBits } else { BerDenominator::LaneRate }),
        ..Default::default()
    };
    if latest_readings::present(w) {
        // Latest readings, not counters: their own sentences (`latest_readings`).
        cx.notes.extend(latest_readings::note(w));
    } else if l.uncorrectable_blocks.is_none() {
        // A lone snapshot's counts (since the counters started) speak too.
        let counted = if w.samples < 2 { &w.counters_at_end } else { d };
        let lost = [&counted.fcs_errors, &counted.symbol_errors, &counted.pcs_symbol_errors]
            .iter()
            .any(|c| c.as_ref().is_some_and(|c| c.value > 0));
        match judge::loss_ruled_out(w) {
            Some(n) => cx.notes.push(n),
            // Counted losses get a reason of their own (`uncorrectable_errors`).
            None if lost => {}
            None => cx.notes.push("uncorrectable FEC blocks are not counted: frame loss cannot be ruled out".into()),
        }
    }
    if !cx.ber_possible() {
        if fec == FecKind::Off {
            cx.notes.push("FEC is off: corrected-bit counters, if any, do not measure the line BER".into());
        } else if let Some((b, origin)) = snapshot_rx_bits_ber(cx) {
            // The driver's received-bit counter started with its corrected-bit counter:
            // their ratio is the BER since then, with no time base needed.
            l.pre_fec_ber = Some(b.ber);
            l.pre_fec_ber_lower = Some(b.lower);
            l.pre_fec_ber_upper = Some(b.upper);
            l.margin_db = cx.margin(b.judged());
            l.margin_is_lower_bound = b.errors == 0;
            l.ber_denominator = Some(BerDenominator::RxBits);
            cx.notes.push(format!(
                "port pre-FEC BER {:.2e} from one snapshot: {} corrected bits over {origin}'s {:.0} received bits since the counters started (the driver's rx_bits is the denominator, so no time base is needed)",
                b.ber, b.errors, b.bits
            ));
        } else {
            cx.notes.push("window has fewer than two samples: no BER".into());
        }
        return l;
    }
    match (l.corrected_bits, cx.rate.as_ref()) {
        (Some(k), Some(r)) => {
            if let Some(b) = cx.ber_of(CounterFigure::CorrectedBits, k, r.lanes) {
                l.pre_fec_ber = Some(b.ber);
                l.pre_fec_ber_lower = Some(b.lower);
                l.pre_fec_ber_upper = Some(b.upper);
                l.margin_db = cx.margin(b.judged());
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

/// A lone snapshot's port BER from the driver's received-bit counter (bnxt_en `rx_bits`,
/// mlx5 `rx_bits_phy`): corrected bits over received bits, both counted since the
/// counters started. `None` with a window (the window's own BER is used) or without both.
fn snapshot_rx_bits_ber(cx: &Context) -> Option<(Ber, String)> {
    let c = &cx.w.counters_at_end;
    if cx.w.samples >= 2 {
        return None;
    }
    let k = c.corrected_bits.as_ref()?.value;
    let rx = c.rx_bits.as_ref().filter(|b| b.value > 0)?;
    Some((Ber::bounded(k, rx.value as f64, &cx.bounds)?, rx.origin.to_string()))
}

fn counter_sources(d: &PortCounters) -> BTreeMap<&'static str, String> {
    use CounterFigure as F;
    let totals = [
        (F::CorrectedBits, &d.corrected_bits),
        (F::CorrectedBlocks, &d.corrected_blocks),
        (F::UncorrectableBlocks, &d.uncorrectable_blocks),
        (F::RxBits, &d.rx_bits),
        (F::PcsSymbolErrors, &d.pcs_symbol_errors),
        (F::LinkDownEvents, &d.link_down_events),
        (F::FcsErrors, &d.fcs_errors),
        (F::SymbolErrors, &d.symbol_errors),
        (F::CorrectedReadingChanges, &d.corrected_reading_changes),
        (F::UncorrectableReadingChanges, &d.uncorrectable_reading_changes),
    ];
    let lanes = [
        (F::CorrectedBitsPerLane, &d.corrected_bits_per_lane),
        (F::CorrectedBlocksPerLane, &d.corrected_blocks_per_lane),
        (F::UncorrectableBlocksPerLane, &d.uncorrectable_blocks_per_lane),
    ];
    // Keyed by name: the JSON object's keys, in name order.
    let t = totals.into_iter().filter_map(|(k, c)| c.as_ref().map(|c| (k.as_str(), c.origin.to_string())));
    let l = lanes.into_iter().filter_map(|(k, c)| c.as_ref().map(|c| (k.as_str(), c.origin.to_string())));
    t.chain(l).collect()
}

/// Per-lane monitors and BER, in lane order, into `out` (cleared first).
fn lane_analyses(cx: &Context, out: &mut Vec<LaneAnalysis>) {
    let w = cx.w;
    let module_lanes = w.module.as_ref().map_or(&[][..], |m| &m.lanes[..]);
    let per_lane = w.deltas.corrected_bits_per_lane.as_ref().map(|l| cx.used(&l.values));
    // Without a time base, each lane's count since the counters started and its share.
    let snapshot = (!cx.ber_possible())
        .then_some(if w.samples < 2 { &w.counters_at_end } else { &w.deltas })
        .and_then(|c| c.corrected_bits_per_lane.as_ref())
        .map(|l| cx.used(&l.values))
        .filter(|v| v.len() > 1);
    let snapshot_total: u128 = snapshot.map_or(0, |v| v.iter().map(|k| u128::from(*k)).sum());
    let n =
        [module_lanes.iter().map(|l| usize::from(l.lane)).max().unwrap_or(0), per_lane.map_or(0, |v| v.len()), w.rx_power_dbm_mean.len()]
            .into_iter()
            .max()
            .unwrap_or(0)
            .min(usize::from(u8::MAX));
    let module_index = lane_index::LaneIndex::new(module_lanes);
    // `optical::optical_margin` per lane, the module's threshold converted once (none
    // over a level that cannot be believed: `dom_trust`).
    let low = optical::LowThreshold::of(&cx.dom.thresholds);
    // Default lanes filled in place: a lane is too large to build and then move.
    out.clear();
    out.resize_with(n, LaneAnalysis::default);
    for (idx, la) in out.iter_mut().enumerate() {
        // n <= 255, so the lane number fits a u8.
        let lane = u8::try_from(idx + 1).unwrap_or(u8::MAX);
        let m = module_index.get(lane);
        let rx = w.rx_power_dbm_mean.get(idx).copied().flatten().or(m.and_then(|m| m.rx_power_dbm));
        let rx = rx.filter(|v| v.is_finite());
        la.lane = lane;
        la.rx_power_dbm = rx;
        la.tx_power_dbm = m.and_then(|m| m.tx_power_dbm).filter(|v| v.is_finite());
        la.tx_bias_ma = m.and_then(|m| m.tx_bias_ma);
        la.corrected_bits = per_lane.and_then(|v| v.get(idx).copied());
        la.corrected_bits_since_start = snapshot.and_then(|v| v.get(idx).copied());
        la.corrected_bits_share_pct =
            la.corrected_bits_since_start.filter(|_| snapshot_total > 0).map(|k| k as f64 * 100.0 / snapshot_total as f64);
        if let Some(t) = low {
            la.optical_margin_db = t.margin_db(rx);
            la.optical_margin_reference = la.optical_margin_db.map(|_| t.reference);
        }
        if let (Some(k), true) = (la.corrected_bits, cx.ber_possible()) {
            if let Some(b) = cx.ber_of(CounterFigure::CorrectedBitsPerLane, k, 1) {
                la.pre_fec_ber = Some(b.ber);
                la.pre_fec_ber_lower = Some(b.lower);
                la.pre_fec_ber_upper = Some(b.upper);
                la.margin_is_lower_bound = k == 0;
                let at = b.judged();
                la.q = cx.modulation.and_then(|m| q::q_from_ber(at, m));
                la.margin_db = la.q.and_then(|x| cx.margin_of_q(x));
            }
        }
    }
}

/// Weakest first: by BER margin when any lane has one, else by the lanes' shares of the
/// corrected bits (a lone snapshot: the largest share is the weakest), else by optical
/// margin; lanes without the figure go last, ties by media eSNR (lower first), then lane
/// number.
pub fn rank(lanes: &mut [LaneAnalysis]) {
    let by_ber = lanes.iter().any(|l| l.margin_db.is_some());
    let by_share = !by_ber && lanes.iter().any(|l| l.corrected_bits_share_pct.is_some());
    let key = |l: &LaneAnalysis| {
        if by_ber {
            l.margin_db
        } else if by_share {
            // Negated: the largest share sorts first.
            l.corrected_bits_share_pct.map(|s| -s)
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

/// The link and its lanes as measured over `w` (the netdev's view of its window), before
/// any judge: rate, FEC, BER, margins, the module's VDM figures, module lanes. The lanes
/// go into `lanes` (refilled: a CSV export reuses one allocation for every row's window).
fn measure<'a>(
    w: &'a InterfaceWindow,
    base: &'a Config,
    map: &breakout::Mapping,
    mut notes: Vec<String>,
    mut lanes: Vec<LaneAnalysis>,
) -> (Context<'a>, LinkAnalysis, Vec<LaneAnalysis>) {
    let rate = lanes::lane_rate(&w.link, w.module.as_ref(), &mut notes);
    let cfg = base.for_lane_rate(rate.as_ref().map(|r| r.lane_rate_gbps));
    let modulation = rate.as_ref().map(|r| r.modulation).or(w.module.as_ref().and_then(|m| m.modulation));
    let fec = fec::fec_kind(w.link.fec_active.as_deref(), modulation, &mut notes);
    let limit = fec::limit(fec, rate.as_ref().map(|r| r.lane_rate_gbps)).ber_limit;
    let x_limit = limit.zip(modulation).and_then(|(l, m)| q::q_from_ber(l, m));
    let bounds = ber::PoissonBounds::new(cfg.confidence);
    let dom = w.module.as_ref().map(dom_trust::Trust::of).unwrap_or_default();
    let mut cx = Context { w, cfg, rate, modulation, fec, limit, x_limit, bounds, dom, notes };
    let link = link_analysis(&mut cx);
    lane_analyses(&cx, &mut lanes);
    vdm_lanes::apply(&mut cx, &mut lanes);
    for l in lanes.iter_mut() {
        l.module_lane = breakout::module_lane(map, l.lane, w.module.is_some());
    }
    (cx, link, lanes)
}

/// The driver's per-lane counters that name no lane of the port (`rx_err_lane_99999_phy`):
/// left out, and said, with what the lanes are; where no lane could be attributed at all
/// (no lane 0), why the port has port-only figures.
fn stray_lane_counters(cx: &Context, lanes_counted: bool) -> Option<String> {
    let names = cx.w.counters_at_end.stray_lane_counters.as_deref()?;
    let listed = match names {
        [one] => format!("{one} names"),
        [a, b] => format!("{a} and {b} name"),
        [a, b, rest @ ..] => format!("{a}, {b} and {} more name", rest.len()),
        [] => return None,
    };
    let port = cx.rate.as_ref().map_or("the port's lane count is unknown".to_string(), |r| format!("the port has {} lanes", r.lanes));
    // mlx5's own numbering (en_stats.c `pport_phy_statistical_err_lanes_stats_desc`).
    let mlx5 = "mlx5 names lanes 0-3, rx_err_lane_0_phy to rx_err_lane_3_phy";
    Some(if lanes_counted {
        format!(
            "{listed} no lane of this port ({port}; {mlx5}): left out of the lanes, which are the counters numbered from 0 without a gap"
        )
    } else {
        format!("{listed} no lane counted from lane 0 ({port}; {mlx5}): no lane can be attributed, so corrected bits are counted for the port only")
    })
}

/// "lanes 3-4: ... unused" when the driver counts more lanes than the link uses.
fn unused_lane_counters(cx: &Context) -> Option<String> {
    let w = cx.w;
    let counts = if w.samples < 2 { &w.counters_at_end } else { &w.deltas };
    let c = counts.corrected_bits_per_lane.as_ref()?;
    let used = cx.used(&c.values).len();
    let extra = &c.values[used..];
    let (first, last) = (used + 1, c.values.len());
    if extra.is_empty() {
        return None;
    }
    let which = if first == last { format!("lane {first}") } else { format!("lanes {first}-{last}") };
    let mode = w.link.link_mode.as_deref().map(|m| format!(" ({m})")).unwrap_or_default();
    let read = if extra.iter().all(|v| *v == 0) {
        "they read 0".to_string()
    } else {
        format!("they read {}", extra.iter().map(u64::to_string).collect::<Vec<_>>().join(", "))
    };
    Some(format!(
        "{which}: {} counts them but the link uses {used} lanes{mode}: unused, left out of the lanes, their medians and shares ({read})",
        c.origin
    ))
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
    let (mut cx, mut link, mut lanes) = measure(w, base, map, notes, Vec::new());
    // Here, not in `measure`: lane rows never show it, and a map of strings per row was 3% of a CSV export.
    link.counter_sources = counter_sources(&w.deltas);
    link.link_mode.clone_from(&w.link.link_mode);
    link.supported_modes.clone_from(&w.link.supported_modes);
    link.advertised_modes.clone_from(&w.link.advertised_modes);
    let groups = lane_groups::groups(&mut cx, &link, &lanes);
    if let (Some(m), Some(r)) = (&w.module, &cx.rate) {
        if !m.lanes.is_empty() && m.lanes.len() != r.lanes as usize {
            cx.notes.push(format!(
                "module has {} monitored lanes and the link {}: rx power and BER are paired by lane number",
                m.lanes.len(),
                r.lanes
            ));
        }
    }
    let lane_counters = w.deltas.corrected_bits_per_lane.is_some() || w.counters_at_end.corrected_bits_per_lane.is_some();
    let stray = stray_lane_counters(&cx, lane_counters);
    if lanes.iter().all(|l| l.pre_fec_ber.is_none()) && link.corrected_bits.is_some() && !lane_counters && stray.is_none() {
        cx.notes.push("corrected bits are counted for the port only: no per-lane BER".into());
    }
    cx.notes.extend(stray);
    cx.notes.extend(unused_lane_counters(&cx));
    if let Some(r) = &cx.rate {
        cx.notes.extend(fec::inner_fec_note(cx.fec, r.lane_rate_gbps, w.link.link_mode.as_deref()).map(str::to_string));
    }
    cx.notes.extend(shares::no_time_base_notes(w, cx.ber_possible(), cx.rate.as_ref().map(|r| r.lanes as usize)));
    let fit = outlier::rx_ber_fit(&lanes, cx.modulation, &cx.cfg);
    let mut reasons = Vec::new();
    let pcie = pcie::analyze_pcie(w, &cx.cfg, group);
    if pcie.degraded {
        let severity = if pcie.trained_down { Severity::Reject } else { Severity::Investigate };
        // The advice is `pcie.advice`, printed once with the others: not repeated here.
        let msg = pcie.message.as_deref().unwrap_or("PCIe degraded").to_string();
        reasons.push(Reason::new(ReasonCode::PcieDegraded, severity, None, msg));
    }
    port_modes::judge(w, &mut reasons);
    peer_modules::judge(w, peer, &mut reasons);
    link_reasons(&cx, &link, &lanes, &mut reasons);
    let klog = kernel_log::of(w).map(kernel_log::analyze);
    if let Some(k) = &klog {
        cx.notes.extend(kernel_log::notes(w, k));
        kernel_log::judge_aer(k, &mut reasons, &mut cx.notes);
    }
    let ib = infiniband::judge(&mut cx, &mut reasons);
    cx.notes.extend(link_loss::apply(w, peer, &mut lanes));
    let unjudged = judge_lanes(&cx, &link, &mut lanes, fit.as_ref(), peer, &mut reasons);
    cx.notes.extend(unjudged.notes(w.module.as_ref().map_or(0, |m| m.lanes.len())));
    module_state_reasons(w, &mut reasons);
    trend_lanes::judge(&cx, &link, &mut lanes, &mut reasons);
    let after_flap = after_flap::judge(&cx, &mut lanes, &mut reasons);
    let mut advice = Vec::new();
    if ib.is_some() && reasons.iter().any(|r| infiniband::LINK_CODES.contains(&r.code) && r.severity > Severity::Info) {
        advice.push(infiniband::LINK_ADVICE.to_string());
    }
    lane_groups::judge(&cx, &link, &groups, &lanes, &mut reasons, &mut advice);
    let fec_histogram = histogram::judge(&mut cx, &mut reasons);
    let frame_loss = frame_loss::of_window(&cx, &link, fec_histogram.as_ref());
    limits::fec_limit_reasons(&cx, &link, &mut lanes, &mut reasons);
    transmitter::judge_transmitters(&cx, peer, &mut lanes, &mut reasons);
    limits::window_worth(&cx, &mut link, &mut lanes, &mut reasons);
    if w.link_up == Some(false) {
        let ext = w.link_ext_state.and_then(LinkExtState::from_raw).map(|s| advice::link_down_advice(s, w.link_ext_substate));
        let kernel = klog.as_ref().and_then(|k| k.down_reason.as_ref()).map(kernel_log::down_advice);
        advice.extend(ext.or(kernel).map(str::to_string));
    }
    advice::fill(&reasons, &mut lanes, &mut advice);
    rank(&mut lanes);
    // Worst first: by severity, then port-wide reasons before lane ones, lanes weakest first.
    let lane_rank = |n: Option<u8>| n.and_then(|n| lanes.iter().find(|l| l.lane == n)).map_or(0, |l| l.rank);
    reasons.sort_by_key(|r| (std::cmp::Reverse(r.severity), lane_rank(r.lane)));
    InterfaceAnalysis {
        interface: w.interface.clone(),
        verdict: verdict::verdict(&reasons),
        reasons,
        pcie,
        host: w.identity.host.as_ref().map(host::analyze_host),
        neighbor: w.identity.neighbor.clone(),
        link,
        serdes_eye: w.serdes_eye.clone(),
        module,
        module_error: w.module_error.clone(),
        lanes,
        rx_ber_fit: fit,
        fec_histogram,
        frame_loss,
        lane_groups: groups,
        events: w.events.clone(),
        notes: cx.notes,
        advice,
        profile: None,
        segments: Vec::new(),
        infiniband: ib,
        after_flap,
        kernel_log: klog,
    }
}

/// A CMIS module's own state (CMIS 5.2 Table 8-7): ModuleFault is a fault (`module_fault`,
/// reject); short of ModuleReady otherwise (`module_not_ready`, investigate) it sends nothing
/// and its lanes are not judged (`dom_limits::inactive_lanes`).
fn module_state_reasons(w: &InterfaceWindow, reasons: &mut Vec<Reason>) {
    let Some(m) = w.module.as_ref() else { return };
    if m.module_state == Some(ModuleState::Fault) {
        let msg =
            "the module is in ModuleFault (CMIS 5.2 Table 8-7): it shut down on a fault of its own; its flags and fault cause say which";
        reasons.push(Reason::new(ReasonCode::ModuleFault, Severity::Reject, None, msg.into()));
    } else if let Some(state) = dom_limits::not_ready(m) {
        let mut msg =
            format!("the module is in {state}, not ModuleReady (CMIS 5.2 Table 8-7): its transmitters are off and no data path can run");
        if state == ModuleState::LowPwr {
            msg.push_str(low_power_cause(m.low_power_controls));
        }
        reasons.push(Reason::new(ReasonCode::ModuleNotReady, Severity::Investigate, None, msg));
    }
}

/// Who holds a CMIS module in ModuleLowPwr, from its Module Global Controls (byte 26): the
/// state machine stays there while LowPwrRequestSW is set, or while LowPwrAllowRequestHW is
/// set and the host asserts LPMode (CMIS 5.2 6.3.2).
fn low_power_cause(controls: Option<LowPowerControls>) -> &'static str {
    match controls {
        None => "",
        Some(LowPowerControls { request_sw: true, .. }) => {
            "; the host asks for it: LowPwrRequestSW is set (the driver's module power policy, `ethtool --show-module IFACE`)"
        }
        Some(LowPowerControls { allow_request_hw: true, .. }) => {
            "; LowPwrRequestSW is clear and LowPwrAllowRequestHW set: the host's LPMode signal may hold it there"
        }
        Some(_) => "; the host asks for high power (LowPwrRequestSW and LowPwrAllowRequestHW clear), so the module stays low on its own",
    }
}

#[cfg(test)]
mod tests;
