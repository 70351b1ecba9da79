//! Prometheus metrics from analyses: the contract in docs/metrics.md (names may be added,
//! never renamed). One exposition is built per sampling tick and served as is, so a
//! scrape never reaches the hardware.
//!
//! Encoded with `prometheus-client` (OpenMetrics 1.0 text). The crate has no 0.0.4 text
//! encoder, so [`Exposition::text`] derives it from the OpenMetrics body: `# EOF` and
//! `# UNIT` lines dropped, counter families named with their `_total` suffix (the one
//! difference 0.0.4 parsers see). `_info` metrics are gauges of value 1, which both
//! formats accept.
//!
//! Cardinality is bounded by construction: labels are `interface`, `lane` and fixed
//! vocabularies (window names from the configuration, flag and reason codes, verdicts,
//! threshold names); `optics_module_info` alone carries module identity. No label value
//! changes from one sample to the next. Non-finite values (the -inf dBm of a dark lane)
//! are not exported: `optics_lane_flag{flag="rx_los"}` says what happened.

use crate::analysis::host::HostAnalysis;
use crate::analysis::infiniband::IbAnalysis;
use crate::analysis::{InterfaceAnalysis, LaneAnalysis, Verdict};
use crate::counters::ib::port_counter;
use crate::module::report::Modulation;
use crate::module::threshold::ThresholdSet;
use crate::module::units::mw_to_dbm;
use crate::output::metric::{Metric, MetricType};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::AtomicU64;

type Labels = Vec<(String, String)>;
type GaugeFamily = Family<Labels, Gauge<f64, AtomicU64>>;
type CounterFamily = Family<Labels, Counter<u64>>;

/// Layers `optics_sample_errors_total` counts (always all present, so `rate()` starts at 0).
pub(crate) const ERROR_LAYERS: [&str; 3] = ["module", "counters", "discovery"];

/// What the exporter reports about itself.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExporterStats {
    /// Wall time the last sampling tick took.
    pub sample_duration_s: Option<f64>,
    /// Sampling errors so far, by layer (`module`, `counters`, `discovery`).
    pub sample_errors: BTreeMap<&'static str, u64>,
    /// Unix time of the last completed tick (or discovery pass that found nothing).
    pub last_sample_unix_s: Option<f64>,
    /// Interfaces sampled now (`serve`); `None` for a textfile of one run.
    pub interfaces: Option<usize>,
    /// `serve`'s judgement window, seconds (`None` for a textfile).
    pub judge_window_s: Option<f64>,
    /// `serve`'s trend window, seconds (`None` for a textfile).
    pub trend_window_s: Option<f64>,
}

/// What `serve` judges beside the judgement window: the lifetime counters and the peaks of
/// the last hour, per interface name.
#[derive(Clone, Copy, Debug, Default)]
pub struct Beside<'a> {
    /// Analyses whose counters are exported as the `_total` counters (whole run, since
    /// the exporter started); `None`: the judged analyses' own.
    pub lifetime: Option<&'a [InterfaceAnalysis]>,
    /// Per interface, the peaks of the last hour.
    pub peaks: &'a [Peaks],
}

/// The window the `_max` series cover, as their `window` label says.
pub(crate) const PEAK_WINDOW: &str = "1h";

/// An interface's highest figures over the last hour (the `_max` series' `window` label, `1h`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Peaks {
    /// The interface's name.
    pub interface: String,
    /// Per lane (index 0 = lane 1): the highest pre-FEC BER of a series bucket.
    pub lane_pre_fec_ber: Vec<Option<f64>>,
    /// The highest predicted frame loss ratio of a window judged in it.
    pub predicted_flr: Option<f64>,
}

/// A hardware counter made monotonic: when the value the window reports goes down (a
/// counter reset starts a new segment), what was counted before is carried over, so
/// Prometheus `rate()` sees one counter that never decreases.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Carried {
    base: u64,
    last: u64,
}

impl Carried {
    pub(crate) fn update(&mut self, value: u64) -> u64 {
        if value < self.last {
            self.base = self.base.saturating_add(self.last);
        }
        self.last = value;
        self.base.saturating_add(value)
    }
}

/// Counter state that must survive from one exposition to the next.
#[derive(Debug, Default)]
pub struct Metrics {
    /// (interface, counter key) -> carried counter.
    carried: BTreeMap<(String, String), Carried>,
}

/// One rendered exposition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Exposition {
    /// OpenMetrics 1.0 text, `# EOF`-terminated.
    pub openmetrics: String,
    /// Prometheus text format 0.0.4 (also node_exporter's textfile format).
    pub text: String,
    /// Number of series (sample lines).
    pub series: usize,
}

/// One registered family, indexed by [`Metric`] (declaration order = [`Metric::ALL`]'s).
enum Registered {
    Gauge(GaugeFamily),
    Counter(CounterFamily),
}

struct Families {
    reg: Registry,
    families: Vec<Registered>,
}

impl Families {
    fn new() -> Self {
        let mut reg = Registry::default();
        let mut families = Vec::with_capacity(Metric::ALL.len());
        for m in Metric::ALL {
            let spec = m.spec();
            debug_assert_eq!(*m as usize, families.len(), "Metric::ALL is in declaration order");
            families.push(match spec.kind {
                MetricType::Counter => {
                    let f = CounterFamily::default();
                    // The encoder appends `_total` to counters.
                    reg.register(spec.name.trim_end_matches("_total"), spec.help, f.clone());
                    Registered::Counter(f)
                }
                MetricType::Gauge => {
                    let f = GaugeFamily::default();
                    reg.register(spec.name, spec.help, f.clone());
                    Registered::Gauge(f)
                }
            });
        }
        Families { reg, families }
    }

    fn set(&self, metric: Metric, labels: &[(&str, &str)], value: f64) {
        if !value.is_finite() {
            return;
        }
        debug_assert!(same_labels(metric, labels), "{metric:?}: labels {labels:?}");
        match &self.families[metric as usize] {
            Registered::Gauge(f) => {
                f.get_or_create(&owned(labels)).set(value);
            }
            Registered::Counter(_) => debug_assert!(false, "{metric:?} is a counter"),
        }
    }

    fn count(&self, metric: Metric, labels: &[(&str, &str)], value: u64) {
        debug_assert!(same_labels(metric, labels), "{metric:?}: labels {labels:?}");
        match &self.families[metric as usize] {
            Registered::Counter(f) => {
                f.get_or_create(&owned(labels)).inc_by(value);
            }
            Registered::Gauge(_) => debug_assert!(false, "{metric:?} is a gauge"),
        }
    }
}

/// The host facts of interface `i` (docs/host.md): identity as an info series, MTU, rings.
fn host(f: &Families, i: &str, h: &HostAnalysis) {
    let text = |o: &Option<crate::device::host::Fact<String>>| o.as_ref().map_or("", |f| f.value.trim()).to_string();
    let numa = h.numa_node.as_ref().map_or(String::new(), |n| n.value.to_string());
    if h.driver.is_some() || h.firmware_version.is_some() || h.numa_node.is_some() {
        f.set(
            Metric::HostInfo,
            &[
                ("interface", i),
                ("driver", &text(&h.driver)),
                ("driver_version", &text(&h.driver_version)),
                ("firmware_version", &text(&h.firmware_version)),
                ("numa_node", &numa),
            ],
            1.0,
        );
    }
    if let Some(m) = &h.mtu {
        f.set(Metric::HostMtuBytes, &[("interface", i)], f64::from(m.value));
    }
    if let Some(r) = &h.rings {
        let r = &r.value;
        for (direction, which, v) in [("rx", "current", r.rx), ("rx", "max", r.rx_max), ("tx", "current", r.tx), ("tx", "max", r.tx_max)] {
            if let Some(v) = v {
                f.set(Metric::HostRingEntries, &[("interface", i), ("direction", direction), ("which", which)], f64::from(v));
            }
        }
    }
}

/// The longest label value of `optics_interface_peer_info`: a System Name or Port ID TLV
/// holds at most 255 octets (IEEE 802.1AB-2016 8.5.3, 8.5.6), so a neighbor read from a file
/// cannot make a series longer than a real one.
const PEER_LABEL_MAX_BYTES: usize = 255;

/// `s` cut to at most `max` bytes, at a character boundary.
fn bounded(s: &str, max: usize) -> &str {
    let end = (0..=max.min(s.len())).rev().find(|i| s.is_char_boundary(*i)).unwrap_or(0);
    &s[..end]
}

/// The interface's far end as its LLDP neighbor names it: one series per interface. The
/// system is its name, else its chassis ID; the port its ID, else its description.
fn peer(f: &Families, i: &str, n: &crate::device::LinkNeighbor) {
    let system = n.system.as_deref().or(n.chassis_id.as_deref()).unwrap_or_default();
    let port = n.port_names().next().unwrap_or_default();
    let (system, port) = (bounded(system, PEER_LABEL_MAX_BYTES), bounded(port, PEER_LABEL_MAX_BYTES));
    f.set(Metric::InterfacePeerInfo, &[("interface", i), ("system", system), ("port", port)], 1.0);
}

/// Whether a series carries exactly its family's label names, in order.
fn same_labels(metric: Metric, labels: &[(&str, &str)]) -> bool {
    labels.iter().map(|(k, _)| *k).eq(metric.spec().labels.iter().copied())
}

fn owned(labels: &[(&str, &str)]) -> Labels {
    labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn modulation_name(m: Modulation) -> &'static str {
    match m {
        Modulation::Nrz => "NRZ",
        Modulation::Pam4 => "PAM4",
    }
}

/// A rolling window's label: `300s`.
pub fn window_label(seconds: f64) -> String {
    format!("{seconds}s")
}

impl Metrics {
    /// An empty metric set, with no counters carried yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Drops the carried counters of an interface whose series are removed.
    pub(crate) fn forget(&mut self, iface: &str) {
        self.carried.retain(|(i, _), _| i != iface);
    }

    fn carry(&mut self, iface: &str, key: String, value: u64) -> u64 {
        self.carried.entry((iface.to_string(), key)).or_default().update(value)
    }

    /// The exposition for the run-window analyses `run`, the rolling-window analyses
    /// `rolling` (window label, analyses), and the exporter's own figures.
    pub fn render(&mut self, run: &[InterfaceAnalysis], rolling: &[(String, Vec<InterfaceAnalysis>)], stats: &ExporterStats) -> Exposition {
        self.render_beside(run, Beside::default(), rolling, stats)
    }

    /// [`Self::render`] for `serve`: `judged` over the judgement window, the counters from
    /// `beside.lifetime` (matched by interface name) and the peaks of the last hour.
    pub fn render_beside(
        &mut self,
        judged: &[InterfaceAnalysis],
        beside: Beside,
        rolling: &[(String, Vec<InterfaceAnalysis>)],
        stats: &ExporterStats,
    ) -> Exposition {
        let f = Families::new();
        for a in judged {
            let life = match beside.lifetime {
                Some(all) => all.iter().find(|l| l.interface == a.interface),
                None => Some(a),
            };
            self.interface(&f, a, life);
        }
        for p in beside.peaks {
            let i = p.interface.as_str();
            for (n, ber) in p.lane_pre_fec_ber.iter().enumerate() {
                if let Some(ber) = ber {
                    f.set(Metric::LanePreFecBerMax, &[("interface", i), ("lane", &(n + 1).to_string()), ("window", PEAK_WINDOW)], *ber);
                }
            }
            if let Some(flr) = p.predicted_flr {
                f.set(Metric::FecPredictedFlrMax, &[("interface", i), ("window", PEAK_WINDOW)], flr);
            }
        }
        for (label, analyses) in rolling {
            for a in analyses {
                for l in &a.lanes {
                    if let Some(ber) = l.pre_fec_ber {
                        f.set(Metric::LanePreFecBer, &[("interface", &a.interface), ("lane", &l.lane.to_string()), ("window", label)], ber);
                    }
                }
            }
        }
        exporter(&f, stats);
        let mut openmetrics = String::new();
        // Writing into a String cannot fail.
        encode(&mut openmetrics, &f.reg).expect("encoding into a String");
        let openmetrics = sorted_samples(&openmetrics);
        let text = to_text_format(&openmetrics);
        let series = text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).count();
        Exposition { openmetrics, text, series }
    }

    /// `life`: the analysis whose counters the `_total` counters carry (`None`: not yet).
    fn interface(&mut self, f: &Families, a: &InterfaceAnalysis, life: Option<&InterfaceAnalysis>) {
        let i = a.interface.as_str();
        let iface = [("interface", i)];
        for v in [Verdict::Accept, Verdict::Investigate, Verdict::Reject] {
            f.set(Metric::InterfaceVerdict, &[("interface", i), ("verdict", v.as_str())], f64::from(u8::from(a.verdict == v)));
        }
        for code in a.reasons.iter().map(|r| r.code).collect::<BTreeSet<_>>() {
            f.set(Metric::InterfaceReason, &[("interface", i), ("code", code.as_str())], 1.0);
        }
        if let Some(n) = &a.neighbor {
            peer(f, i, n);
        }
        let link = &a.link;
        if let Some(life) = life {
            let l = &life.link;
            for (name, key, value) in [
                (Metric::FecCorrectedBlocksTotal, "corrected_blocks", l.corrected_blocks),
                (Metric::FecUncorrectableBlocksTotal, "uncorrectable_blocks", l.uncorrectable_blocks),
                (Metric::LinkDownEventsTotal, "link_down_events", l.link_down_events),
            ] {
                if let Some(v) = value {
                    let total = self.carry(i, key.into(), v);
                    f.count(name, &iface, total);
                }
            }
            for l in &life.lanes {
                if let Some(bits) = l.corrected_bits {
                    let total = self.carry(i, format!("lane{}_corrected_bits", l.lane), bits);
                    f.count(Metric::LaneCorrectedBitsTotal, &[("interface", i), ("lane", &l.lane.to_string())], total);
                }
            }
        }
        if let Some(up) = link.up {
            f.set(Metric::LinkUp, &iface, f64::from(u8::from(up)));
        }
        if let Some(mbps) = link.speed_mbps {
            f.set(Metric::LinkSpeedBitsPerSecond, &iface, f64::from(mbps) * 1e6);
        }
        f.set(
            Metric::LinkInfo,
            &[
                ("interface", i),
                ("link_mode", link.link_mode.as_deref().unwrap_or("")),
                ("fec", link.fec.map_or("", |k| k.name())),
                ("modulation", link.modulation.map_or("", modulation_name)),
            ],
            1.0,
        );
        if let Some(m) = &a.module {
            if let Some(t) = m.module_temperature_c {
                f.set(Metric::ModuleTemperatureCelsius, &iface, t);
            }
            if let Some(v) = m.supply_voltage_v {
                f.set(Metric::ModuleSupplyVoltageVolts, &iface, v);
            }
            let s = |o: &Option<String>| o.as_deref().map(str::trim).unwrap_or("").to_string();
            f.set(
                Metric::ModuleInfo,
                &[
                    ("interface", i),
                    ("standard", m.standard.map_or("", |s| s.as_str())),
                    ("vendor", &s(&m.vendor_name)),
                    ("part_number", &s(&m.vendor_pn)),
                    ("module_sn", &s(&m.vendor_sn)),
                    ("revision", &s(&m.vendor_rev)),
                ],
                1.0,
            );
            let th = &m.thresholds;
            let id = |v: f64| v;
            let amps = |ma: f64| ma / 1000.0;
            for (quantity, set, unit) in [
                ("temperature_celsius", th.temperature_c, &id as &dyn Fn(f64) -> f64),
                ("supply_voltage_volts", th.supply_voltage_v, &id),
                ("rx_power_dbm", th.rx_power_mw, &mw_to_dbm),
                ("tx_power_dbm", th.tx_power_mw, &mw_to_dbm),
                ("tx_bias_amperes", th.tx_bias_ma, &amps),
            ] {
                if let Some(ThresholdSet { high_alarm, low_alarm, high_warning, low_warning }) = set {
                    for (limit, v) in
                        [("high_alarm", high_alarm), ("low_alarm", low_alarm), ("high_warning", high_warning), ("low_warning", low_warning)]
                    {
                        f.set(Metric::ModuleThreshold, &[("interface", i), ("quantity", quantity), ("limit", limit)], unit(v));
                    }
                }
            }
        }
        let p = &a.pcie;
        for (which, width, gts) in [("current", p.current_width, p.current_speed_gts), ("max", p.max_width, p.max_speed_gts)] {
            if let Some(w) = width {
                f.set(Metric::PcieLinkWidth, &[("interface", i), ("which", which)], f64::from(w));
            }
            if let Some(g) = gts {
                f.set(Metric::PcieLinkSpeedGts, &[("interface", i), ("which", which)], g);
            }
        }
        if let Some(c) = p.ceiling_gbps {
            f.set(Metric::PcieCeilingBitsPerSecond, &iface, c * 1e9);
        }
        if p.current_width.is_some() || p.ceiling_gbps.is_some() {
            f.set(Metric::PcieDegraded, &iface, f64::from(u8::from(p.degraded)));
        }
        if let Some(fl) = &a.frame_loss {
            for (metric, v) in [
                (Metric::FecCodewordErrorRatio, fl.codeword_error_ratio),
                (Metric::FecFlr, fl.flr),
                (Metric::FecPredictedFlr, fl.predicted_flr),
            ] {
                if let Some(v) = v {
                    f.set(metric, &iface, v);
                }
            }
            for b in &fl.budgets {
                f.set(Metric::FecFlrBudget, &[("interface", i), ("budget", b.name.as_str())], b.flr);
            }
        }
        if let Some(h) = &a.host {
            host(f, i, h);
        }
        if let Some(pd) = life.and_then(|l| l.host.as_ref()?.pause_discards.as_ref()) {
            for (direction, r) in [("rx", &pd.rx_pause_frames), ("tx", &pd.tx_pause_frames)] {
                if let Some(r) = r {
                    let total = self.carry(i, format!("{direction}_pause_frames"), r.count);
                    f.count(Metric::HostPauseFramesTotal, &[("interface", i), ("direction", direction)], total);
                }
            }
            for (cause, r) in [("discards", &pd.rx_discards), ("out_of_buffer", &pd.rx_out_of_buffer)] {
                if let Some(r) = r {
                    let total = self.carry(i, format!("rx_{cause}"), r.count);
                    f.count(Metric::HostRxDiscardedFramesTotal, &[("interface", i), ("cause", cause)], total);
                }
            }
        }
        if let Some(ib) = &a.infiniband {
            ib_port(f, i, ib);
        }
        if let Some(ib) = life.and_then(|l| l.infiniband.as_ref()) {
            for (metric, name, value) in ib_counters(ib) {
                let total = self.carry(i, format!("ib:{name}"), value);
                f.count(metric, &iface, total);
            }
        }
        let module_lanes = a.module.as_ref().map_or(&[][..], |m| &m.lanes[..]);
        for l in &a.lanes {
            // DOM gauges are the latest reading, as ethtool -m and other exporters show
            // them: the module lane's rx of the last sample (breakouts map netdev lanes).
            let ml = l.module_lane.unwrap_or(l.lane);
            let rx_latest = module_lanes.iter().find(|m| m.lane == ml).and_then(|m| m.rx_power_dbm).filter(|v| v.is_finite());
            lane(f, i, l, rx_latest);
        }
    }
}

fn lane(f: &Families, i: &str, l: &LaneAnalysis, rx_latest: Option<f64>) {
    let lane = l.lane.to_string();
    let labels = [("interface", i), ("lane", lane.as_str())];
    let gauges = [
        (Metric::LaneRxPowerDbm, rx_latest),
        (Metric::LaneTxPowerDbm, l.tx_power_dbm),
        (Metric::LaneTxBiasAmperes, l.tx_bias_ma.map(|ma| ma / 1000.0)),
        (Metric::LanePreFecBerUpper, l.pre_fec_ber_upper),
        (Metric::LaneMarginDb, l.margin_db),
        (Metric::LaneMarginSlopeDbPerHour, l.trend.margin_slope_db_per_h),
        (Metric::LaneTimeToFecLimitSeconds, l.trend.time_to_fec_limit_s),
        (Metric::LaneTimeToFloorSeconds, l.trend.time_to_floor_s),
        (Metric::LaneOpticalMarginDb, l.optical_margin_db),
        (Metric::LaneRank, Some(l.rank as f64)),
    ];
    for (name, v) in gauges {
        if let Some(v) = v {
            f.set(name, &labels, v);
        }
    }
    if let Some(ber) = l.pre_fec_ber {
        f.set(Metric::LanePreFecBer, &[("interface", i), ("lane", &lane), ("window", "run")], ber);
    }
    for flag in l.flags.iter().collect::<BTreeSet<_>>() {
        f.set(Metric::LaneFlag, &[("interface", i), ("lane", &lane), ("flag", flag.as_str())], 1.0);
    }
}

/// The `PortCounters` figures exported as counter families, by sysfs name (docs/metrics.md);
/// `link_downed` is `optics_link_down_events_total`, as for any link.
const IB_COUNTERS: [(Metric, &str); 9] = [
    (Metric::IbSymbolErrorsTotal, "symbol_error"),
    (Metric::IbLinkErrorRecoveriesTotal, "link_error_recovery"),
    (Metric::IbPortRcvErrorsTotal, "port_rcv_errors"),
    (Metric::IbPortRcvRemotePhysicalErrorsTotal, "port_rcv_remote_physical_errors"),
    (Metric::IbLocalLinkIntegrityErrorsTotal, "local_link_integrity_errors"),
    (Metric::IbExcessiveBufferOverrunErrorsTotal, "excessive_buffer_overrun_errors"),
    (Metric::IbPortXmitDiscardsTotal, "port_xmit_discards"),
    (Metric::IbPortRcvPacketsTotal, "port_rcv_packets"),
    (Metric::IbPortXmitPacketsTotal, "port_xmit_packets"),
];

/// What an InfiniBand port counted over `ib`'s window, as (family, carry key, value): the
/// `PortCounters` of [`IB_COUNTERS`] and the data counters in bytes.
fn ib_counters(ib: &IbAnalysis) -> impl Iterator<Item = (Metric, &'static str, u64)> + '_ {
    let counted = IB_COUNTERS.iter().filter_map(|(m, name)| Some((*m, *name, (*ib.counters.get(name)?)?)));
    let bytes = [
        (Metric::IbPortRcvDataBytesTotal, "port_rcv_data", ib.rx_bytes),
        (Metric::IbPortXmitDataBytesTotal, "port_xmit_data", ib.tx_bytes),
    ];
    counted.chain(bytes.into_iter().filter_map(|(m, name, v)| Some((m, name, v?))))
}

/// An InfiniBand port's identity and, for every `PortCounters` counter read, whether it
/// reads its maximum (saturated: its `_total` is then a lower bound and its rate unknown).
fn ib_port(f: &Families, i: &str, ib: &IbAnalysis) {
    let port = ib.port.to_string();
    let width = ib.width.map(|w| format!("{w}X")).unwrap_or_default();
    let speed = ib.speed.map_or("", |s| s.as_str());
    f.set(Metric::IbPortInfo, &[("interface", i), ("hca", &ib.hca), ("port", &port), ("speed", speed), ("width", &width)], 1.0);
    for (name, value) in &ib.counters {
        if value.is_some() && port_counter(name).is_some() {
            let saturated = ib.saturated.contains(name);
            f.set(Metric::IbCounterSaturated, &[("interface", i), ("counter", name)], f64::from(u8::from(saturated)));
        }
    }
}

fn exporter(f: &Families, stats: &ExporterStats) {
    f.set(Metric::BuildInfo, &[("version", env!("CARGO_PKG_VERSION"))], 1.0);
    if let Some(d) = stats.sample_duration_s {
        f.set(Metric::SampleDurationSeconds, &[], d);
    }
    for layer in ERROR_LAYERS {
        f.count(Metric::SampleErrorsTotal, &[("layer", layer)], stats.sample_errors.get(layer).copied().unwrap_or(0));
    }
    if let Some(t) = stats.last_sample_unix_s {
        f.set(Metric::LastSampleTimestampSeconds, &[], t);
    }
    for (name, v) in [
        (Metric::Interfaces, stats.interfaces.map(|n| n as f64)),
        (Metric::JudgeWindowSeconds, stats.judge_window_s),
        (Metric::TrendWindowSeconds, stats.trend_window_s),
    ] {
        if let Some(v) = v {
            f.set(name, &[], v);
        }
    }
}

/// The same exposition with each family's sample lines sorted: the families keep
/// their labels in hash order, and a stable order makes the output diffable.
fn sorted_samples(exposition: &str) -> String {
    let mut out = String::with_capacity(exposition.len());
    let mut run: Vec<&str> = Vec::new();
    let flush = |run: &mut Vec<&str>, out: &mut String| {
        run.sort_unstable();
        for l in run.drain(..) {
            out.push_str(l);
            out.push('\n');
        }
    };
    for line in exposition.lines() {
        if line.starts_with('#') {
            flush(&mut run, &mut out);
            out.push_str(line);
            out.push('\n');
        } else {
            run.push(line);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// OpenMetrics text -> Prometheus text format 0.0.4 (see the module comment).
pub(crate) fn to_text_format(openmetrics: &str) -> String {
    let counters: BTreeSet<&str> =
        openmetrics.lines().filter_map(|l| l.strip_prefix("# TYPE ")).filter_map(|l| l.strip_suffix(" counter")).collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let meta = line.strip_prefix("# HELP ").map(|r| ("# HELP ", r)).or_else(|| line.strip_prefix("# TYPE ").map(|r| ("# TYPE ", r)));
        match meta {
            Some((kind, rest)) => {
                let (name, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                let suffix = if counters.contains(name) { "_total" } else { "" };
                out.push_str(&format!("{kind}{name}{suffix} {tail}\n"));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Writes `text` for node_exporter's textfile collector: to a temporary file in the same
/// directory, then renamed into place, so the collector never reads a half-written file.
pub(crate) fn write_textfile(path: &Path, text: &str) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file"))?;
    let tmp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The textfile for one run of `scan` / `export`: the same metrics `serve` exposes for the
/// run window, plus build info and the time it was written.
pub fn write_analyses_textfile(path: &Path, analyses: &[InterfaceAnalysis]) -> std::io::Result<()> {
    write_textfile(path, &analyses_textfile(analyses))
}

/// The text of [`write_analyses_textfile`], for a caller that writes it elsewhere (standard output).
pub fn analyses_textfile(analyses: &[InterfaceAnalysis]) -> String {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).ok();
    let stats = ExporterStats { last_sample_unix_s: now, ..Default::default() };
    Metrics::new().render(analyses, &[], &stats).text
}
