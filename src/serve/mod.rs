//! `optics serve`: sampling on its own schedule into the streaming engine, one metrics
//! snapshot per tick, served over HTTP ([`http`]) without ever touching hardware.
//!
//! - [`Exporter`] is the sink: records go into the [`Engine`]; after each tick it analyses
//!   the judgement window (the last [`ServeWindows::judge_s`] of each interface's current
//!   segment: verdicts, flags, margins, BERs, as `scan --from` over those records would),
//!   the trend over the last [`ServeWindows::trend_s`], the rolling windows, the whole run
//!   for the `_total` counters only, and the peaks of the last hour, and swaps in a new
//!   [`Snapshot`]. Memory is bounded by the windows (the engine's snapshot ring and its
//!   time-bounded series), never by how long the daemon has run.
//! - `run_live` (feature `live`) samples interfaces (named, or discovered as `scan` does) and re-discovers
//!   them periodically: a new one is picked up, a vanished one has its series removed.
//! - [`run_replay`] feeds a capture's records as if live, at `t / speed`.
//! - Logs: one line per event on stderr, no timestamp (journald adds it), prefixed with
//!   the sd-daemon priority `<3>` error, `<4>` warning, `<5>` notice, `<6>` info, which
//!   journald turns into the entry's priority.

pub(crate) mod connections;
pub mod http;
pub mod web_config;

use crate::analysis::InterfaceAnalysis;
use crate::analysis::{analyze, Config};
use crate::capture::RecordSink;
use crate::capture::{CaptureReader, ErrorLayer, EventKind, Record};
use crate::output::html::status_page;
use crate::output::prometheus::{window_label, Beside, ExporterStats, Metrics, Peaks};
use crate::sample::engine::{Engine, EngineConfig};
#[cfg(live)]
use crate::sample::summary::StopReason;
use crate::sample::summary::StopSignal;
#[cfg(live)]
use crate::sample::watch::{watch_until, WatchConfig, WatchError};
#[cfg(live)]
use crate::source::Source;
use hyper::body::Bytes;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use thiserror::Error;
use tokio::signal::unix::{signal, Signal, SignalKind};

pub(crate) const LOG_ERR: u8 = 3;
/// syslog priority 4 (`<4>`): warning.
pub const LOG_WARNING: u8 = 4;
pub(crate) const LOG_NOTICE: u8 = 5;
/// syslog priority 6 (`<6>`): informational.
pub const LOG_INFO: u8 = 6;

/// One journald-friendly line on stderr (see the module comment).
pub fn log(priority: u8, message: &str) {
    use std::io::Write;
    // One event per line: a newline inside a message would split the entry. A closed or
    // full stderr must not stop the exporter (eprintln! would panic): the line is dropped.
    let _ = writeln!(std::io::stderr().lock(), "<{priority}>{}", message.replace('\n', " "));
}

/// What a scrape returns: built once per tick.
#[derive(Clone, Debug, Default)]
pub struct Snapshot {
    /// The OpenMetrics exposition.
    pub openmetrics: Bytes,
    /// The Prometheus text exposition (0.0.4).
    pub text: Bytes,
    /// The status page.
    pub html: Bytes,
    /// Series in the exposition.
    pub series: usize,
    /// Ticks (or replayed sample groups) so far; 0 = nothing sampled yet.
    pub ticks: u64,
}

/// The latest snapshot, shared between the sampler and the HTTP handlers.
#[derive(Debug, Default)]
pub struct Shared {
    latest: RwLock<Arc<Snapshot>>,
}

impl Shared {
    /// The latest snapshot.
    pub fn latest(&self) -> Arc<Snapshot> {
        // A poisoned lock still holds a whole Arc (replaced in one assignment).
        self.latest.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
    /// Replaces the latest snapshot.
    pub fn publish(&self, snap: Snapshot) {
        *self.latest.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(snap);
    }
}

/// Why serving stopped early.
#[derive(Debug, Error)]
pub enum ServeError {
    /// The signal handlers could not be installed.
    #[error("installing signal handlers: {0}")]
    Signal(std::io::Error),
    /// Sampling failed.
    #[cfg(live)]
    #[error("sampling: {0}")]
    Watch(#[from] WatchError),
}

/// A configuration waiting to be applied at the next tick (SIGHUP).
pub(crate) type PendingConfig = Arc<Mutex<Option<Config>>>;

/// The windows `serve` judges over, seconds (fixed for the daemon's life: they size the
/// engine's state, so a SIGHUP reload does not change them).
#[derive(Clone, Debug, PartialEq)]
pub struct ServeWindows {
    /// Verdicts, reasons, flags, margins, BERs: the last this-many seconds.
    pub judge_s: f64,
    /// The margin trend: fitted over the series buckets of the last this-many seconds.
    pub trend_s: f64,
    /// `optics_lane_pre_fec_ber{window="<N>s"}`.
    pub(crate) rolling_s: Vec<f64>,
}

impl ServeWindows {
    /// The defaults of the configuration `cfg` (`judge_window_s`, `trend_fit_window_s`).
    pub fn of(cfg: &Config, rolling_s: Vec<f64>) -> Self {
        ServeWindows { judge_s: cfg.judge_window_s, trend_s: cfg.trend_fit_window_s, rolling_s }
    }
}

/// The window the `_max` series look back over (`window="1h"`).
pub(crate) const PEAK_S: f64 = 3600.0;
/// The predicted-FLR peak is kept per minute: 60 slots cover [`PEAK_S`].
const PEAK_SLOT_S: f64 = 60.0;

/// The highest value of each [`PEAK_SLOT_S`] slot of the last [`PEAK_S`]: a bounded
/// running maximum (at most 61 slots) whatever the sampling rate.
#[derive(Clone, Debug, Default)]
struct HourMax {
    slots: VecDeque<(f64, f64)>,
}

impl HourMax {
    fn push(&mut self, t: f64, v: f64) {
        let slot = (t / PEAK_SLOT_S).floor() * PEAK_SLOT_S;
        while self.slots.front().is_some_and(|(s, _)| *s + PEAK_SLOT_S <= t - PEAK_S) {
            self.slots.pop_front();
        }
        match self.slots.back_mut() {
            Some((s, m)) if *s == slot => *m = m.max(v),
            _ => self.slots.push_back((slot, v)),
        }
    }
    fn max(&self) -> Option<f64> {
        self.slots.iter().map(|(_, v)| *v).reduce(f64::max)
    }
}

/// The sink `serve` samples into.
pub struct Exporter {
    engine: Engine,
    metrics: Metrics,
    cfg: Config,
    windows: ServeWindows,
    /// Per interface, the predicted frame loss ratio's peak of the last hour.
    flr_peaks: BTreeMap<String, HourMax>,
    /// Latest record time (shifted), the clock of the peaks.
    last_t: f64,
    /// Per interface, the module error counted and not yet over (a module read since
    /// ends it).
    module_errors: BTreeMap<String, String>,
    stats: ExporterStats,
    shared: Arc<Shared>,
    pending: PendingConfig,
    ticks: u64,
    /// Added to record times: live sampling restarts its clock when the interface set changes.
    t_offset: f64,
}

impl Exporter {
    /// An exporter judging with `cfg` over `windows`, publishing into `shared`.
    pub fn new(cfg: Config, windows: ServeWindows, shared: Arc<Shared>) -> Self {
        // The snapshot ring answers the judgement window beside the rolling ones; the
        // series keeps the trend window, and at least the hour the peaks look back over.
        let mut rolling_s = windows.rolling_s.clone();
        rolling_s.push(windows.judge_s);
        let engine =
            Engine::new(EngineConfig { rolling_s, series_horizon_s: Some(windows.trend_s.max(PEAK_S)), ..EngineConfig::default() });
        let stats = ExporterStats {
            judge_window_s: Some(windows.judge_s),
            trend_window_s: Some(windows.trend_s),
            interfaces: Some(0),
            ..ExporterStats::default()
        };
        Exporter {
            engine,
            metrics: Metrics::new(),
            cfg,
            windows,
            flr_peaks: BTreeMap::new(),
            last_t: f64::NEG_INFINITY,
            module_errors: BTreeMap::new(),
            stats,
            shared,
            pending: PendingConfig::default(),
            ticks: 0,
            t_offset: 0.0,
        }
    }

    /// Where a reloaded configuration is put for the next tick.
    pub(crate) fn pending_config(&self) -> PendingConfig {
        self.pending.clone()
    }

    #[cfg(live)]
    pub(crate) fn interfaces(&self) -> Vec<String> {
        self.engine.interfaces()
    }

    /// Removes an interface's series (it vanished) and logs why.
    pub(crate) fn remove(&mut self, iface: &str, why: &str) {
        if self.engine.interfaces().iter().any(|i| i == iface) {
            self.engine.remove(iface);
            self.metrics.forget(iface);
            self.flr_peaks.remove(iface);
            self.module_errors.remove(iface);
            log(LOG_WARNING, &format!("interface {iface} removed: {why}; its series are no longer exported"));
        }
    }

    pub(crate) fn count_error(&mut self, layer: &'static str) {
        *self.stats.sample_errors.entry(layer).or_default() += 1;
    }

    /// A discovery pass found nothing to sample: the exporter is alive and says so
    /// (`optics_interfaces 0`, a fresh `optics_last_sample_timestamp_seconds`).
    #[cfg(live)]
    pub(crate) fn nothing_to_sample(&mut self) {
        self.stats.last_sample_unix_s = SystemTime::now().duration_since(UNIX_EPOCH).ok().map(|d| d.as_secs_f64());
        self.publish();
    }

    /// Analyses the judgement, rolling and whole-run windows and publishes the snapshot.
    pub fn publish(&mut self) {
        if let Some(cfg) = self.pending.lock().unwrap_or_else(|e| e.into_inner()).take() {
            self.cfg = cfg;
        }
        let w = &self.windows;
        let judged = analyze(&self.engine.judged_windows(w.judge_s, w.trend_s), &self.cfg, &[]);
        // The whole run only feeds the `_total` counters: no trend is fitted on it.
        let mut whole = self.engine.windows();
        whole.iter_mut().for_each(|w| w.series = None);
        let lifetime = analyze(&whole, &self.cfg, &[]);
        let rolling: Vec<(String, Vec<_>)> =
            w.rolling_s.iter().map(|&s| (window_label(s), analyze(&self.engine.rolling_windows(s), &self.cfg, &[]))).collect();
        let peaks = self.peaks(&judged, &rolling);
        self.stats.interfaces = Some(judged.len());
        let beside = Beside { lifetime: Some(&lifetime), peaks: &peaks };
        let exp = self.metrics.render_beside(&judged, beside, &rolling, &self.stats);
        let status = format!(
            "{} interface(s), {} tick(s), {} series; judged over the last {} s",
            judged.len(),
            self.ticks,
            exp.series,
            self.windows.judge_s
        );
        self.shared.publish(Snapshot {
            openmetrics: Bytes::from(exp.openmetrics),
            text: Bytes::from(exp.text),
            html: Bytes::from(status_page(&judged, &status)),
            series: exp.series,
            ticks: self.ticks,
        });
    }
}

impl Exporter {
    /// Per interface, the peaks of the last [`PEAK_S`]: the lane BER from the engine's
    /// time-bounded series (its buckets, about a minute each), the predicted FLR as the
    /// highest any window judged this tick or earlier in the hour.
    fn peaks(&mut self, judged: &[InterfaceAnalysis], rolling: &[(String, Vec<InterfaceAnalysis>)]) -> Vec<Peaks> {
        let t = self.last_t;
        judged
            .iter()
            .map(|a| {
                let lane_pre_fec_ber = match (self.engine.series(&a.interface), a.link.lane_rate_gbps, a.link.lanes) {
                    (Some(s), Some(rate), Some(lanes)) => {
                        let end = s.buckets().last().map_or(t, |b| b.t_end);
                        s.max_lane_ber_since(end - PEAK_S, rate, lanes)
                    }
                    _ => Vec::new(),
                };
                let now = std::iter::once(a)
                    .chain(rolling.iter().flat_map(|(_, r)| r.iter().filter(|r| r.interface == a.interface)))
                    .filter_map(|x| x.fec_histogram.as_ref()?.predicted_flr)
                    .filter(|v| v.is_finite())
                    .reduce(f64::max);
                let peak = self.flr_peaks.entry(a.interface.clone()).or_default();
                if let (Some(v), true) = (now, t.is_finite()) {
                    peak.push(t, v);
                }
                Peaks { interface: a.interface.clone(), lane_pre_fec_ber, predicted_flr: peak.max() }
            })
            .collect()
    }
}

fn shifted(rec: &Record, dt: f64) -> Record {
    let mut r = rec.clone();
    match &mut r {
        Record::Header(_) => {}
        Record::Interface(x) => x.t += dt,
        Record::Sample(x) => x.t += dt,
        Record::Event(x) => x.t += dt,
    }
    r
}

impl RecordSink for Exporter {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        if let Record::Event(e) = rec {
            match e.kind {
                EventKind::InterfaceGone => {
                    self.remove(&e.interface, &e.message);
                    return Ok(());
                }
                EventKind::Error => {
                    // A module error is reported again each time the sampler restarts on a
                    // new interface set: one condition is counted (and logged) once, until
                    // a module read succeeds or the interface goes.
                    let layer = e.error_layer().unwrap_or(ErrorLayer::Counters);
                    let known = layer == ErrorLayer::Module && self.module_errors.get(&e.interface) == Some(&e.message);
                    if !known {
                        self.count_error(layer.as_str());
                        log(LOG_WARNING, &format!("interface {}: {}", e.interface, e.message));
                    }
                    if layer == ErrorLayer::Module {
                        self.module_errors.insert(e.interface.clone(), e.message.clone());
                    }
                }
                EventKind::ModuleChanged | EventKind::CounterReset => {
                    log(LOG_NOTICE, &format!("interface {}: {}: {}", e.interface, e.kind.as_str(), e.message));
                }
            }
        }
        if let Record::Interface(ir) = rec {
            if !self.engine.interfaces().contains(&ir.interface) {
                log(
                    LOG_INFO,
                    &format!("interface {} sampled ({})", ir.interface, ir.link.link_mode.as_deref().unwrap_or("link mode unknown")),
                );
            }
        }
        let rec = shifted(rec, self.t_offset);
        if let Record::Sample(s) = &rec {
            self.last_t = self.last_t.max(s.t);
            if s.module.is_some() {
                self.module_errors.remove(&s.interface);
            }
        }
        self.engine.push(&rec);
        Ok(())
    }

    fn end_tick(&mut self, sampling: Duration) -> std::io::Result<()> {
        self.ticks += 1;
        self.stats.sample_duration_s = Some(sampling.as_secs_f64());
        self.stats.last_sample_unix_s = SystemTime::now().duration_since(UNIX_EPOCH).ok().map(|d| d.as_secs_f64());
        self.publish();
        Ok(())
    }
}

/// SIGINT/SIGTERM (stop) and SIGHUP (reload), installed once for the whole run.
pub struct Signals {
    int: Signal,
    term: Signal,
    hup: Signal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sig {
    Stop(StopSignal),
    Reload,
}

impl Signals {
    /// Installs handlers of SIGINT, SIGTERM and SIGHUP.
    pub fn install() -> Result<Self, ServeError> {
        let s = |k| signal(k).map_err(ServeError::Signal);
        Ok(Signals { int: s(SignalKind::interrupt())?, term: s(SignalKind::terminate())?, hup: s(SignalKind::hangup())? })
    }

    pub(crate) async fn next(&mut self) -> Sig {
        tokio::select! {
            _ = self.int.recv() => Sig::Stop(StopSignal::Int),
            _ = self.term.recv() => Sig::Stop(StopSignal::Term),
            _ = self.hup.recv() => Sig::Reload,
        }
    }
}

/// An error of the caller's own (reading a file it names, discovering interfaces): serve
/// only shows it.
pub type CallerError = Box<dyn std::error::Error + Send + Sync>;

/// Reloads the configuration on SIGHUP (the caller reads `--config` again).
pub type Reload<'a> = &'a (dyn Fn() -> Result<Config, CallerError> + Sync);

fn reload(pending: &PendingConfig, reload: Reload) {
    match reload() {
        Ok(cfg) => {
            *pending.lock().unwrap_or_else(|e| e.into_inner()) = Some(cfg);
            log(LOG_NOTICE, "configuration reloaded; applied from the next tick");
        }
        Err(e) => log(LOG_ERR, &format!("configuration not reloaded, the previous one stays: {e}")),
    }
}

/// Waits for a stop signal, handling reloads meanwhile; `Some(name)` = stop.
async fn until_stop(signals: &mut Signals, pending: &PendingConfig, on_reload: Reload<'_>) -> StopSignal {
    loop {
        match signals.next().await {
            Sig::Stop(name) => return name,
            Sig::Reload => reload(pending, on_reload),
        }
    }
}

/// How live `serve` samples.
pub struct LiveOptions {
    /// Time between samples.
    pub interval: Duration,
    /// How often the interface set is looked at again.
    pub rediscover: Duration,
}

#[cfg(live)]
/// Samples until SIGINT/SIGTERM. `discover` returns the interfaces to sample now (the
/// named ones that exist, or what discovery finds); a change restarts the sampling loop
/// on the new set (the engine keeps its state; vanished interfaces are removed).
pub async fn run_live<F, D>(
    exporter: &mut Exporter,
    opts: &LiveOptions,
    make_source: F,
    discover: D,
    signals: &mut Signals,
    on_reload: Reload<'_>,
) -> Result<StopSignal, ServeError>
where
    F: Fn(&str) -> Box<dyn Source + Send>,
    D: Fn() -> Result<Vec<String>, CallerError>,
{
    let start = std::time::Instant::now();
    let pending = exporter.pending_config();
    let look = |exporter: &mut Exporter| -> Option<Vec<String>> {
        match tokio::task::block_in_place(&discover) {
            Ok(found) => Some(found),
            Err(e) => {
                exporter.count_error("discovery");
                log(LOG_ERR, &format!("interface discovery failed: {e}"));
                None
            }
        }
    };
    loop {
        let current = look(exporter).unwrap_or_else(|| exporter.interfaces());
        for gone in exporter.interfaces().into_iter().filter(|i| !current.contains(i)) {
            exporter.remove(&gone, "no longer found by discovery");
        }
        if current.is_empty() {
            log(LOG_WARNING, &format!("no interface to sample; looking again in {:?}", opts.rediscover));
            exporter.nothing_to_sample();
            tokio::select! {
                name = until_stop(signals, &pending, on_reload) => return Ok(name),
                _ = tokio::time::sleep(opts.rediscover) => continue,
            }
        }
        log(LOG_INFO, &format!("sampling {} every {:?}", current.join(", "), opts.interval));
        exporter.t_offset = start.elapsed().as_secs_f64();
        let wcfg = WatchConfig { interfaces: current.clone(), interval: opts.interval, duration: None, max_ticks: None, read_module: true };
        let gone = Mutex::new(Vec::new());
        let stop = async {
            let mut tick = tokio::time::interval_at(tokio::time::Instant::now() + opts.rediscover, opts.rediscover);
            loop {
                tokio::select! {
                    sig = until_stop(signals, &pending, on_reload) => return StopReason::Signal(sig),
                    _ = tick.tick() => {
                        let found = tokio::task::block_in_place(&discover);
                        // The loop samples a gone interface no more: one found again was
                        // back before this look (the names alone are then unchanged).
                        let back = |f: &Vec<String>| lock(&gone).iter().any(|g| f.contains(g));
                        if found.as_ref().is_ok_and(|f| f != &current || back(f)) {
                            return StopReason::Rediscover;
                        }
                    }
                }
            }
        };
        let mut noting = NotingGone { exporter: &mut *exporter, gone: &gone };
        let summary = watch_until(wcfg, &make_source, &mut [&mut noting as &mut dyn RecordSink], stop).await?;
        match summary.stopped_by {
            StopReason::Signal(sig) => return Ok(sig),
            StopReason::AllInterfacesGone => tokio::select! {
                name = until_stop(signals, &pending, on_reload) => return Ok(name),
                _ = tokio::time::sleep(opts.rediscover) => {}
            },
            _ => log(LOG_INFO, "interface set changed"),
        }
    }
}

/// The exporter as the live loop's sink, noting the interfaces the loop reports gone (it
/// stops sampling them) for the rediscover look.
#[cfg(live)]
struct NotingGone<'a> {
    exporter: &'a mut Exporter,
    gone: &'a Mutex<Vec<String>>,
}

#[cfg(live)]
impl RecordSink for NotingGone<'_> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        if let Record::Event(e) = rec {
            if e.kind == EventKind::InterfaceGone {
                lock(self.gone).push(e.interface.clone());
            }
        }
        self.exporter.record(rec)
    }

    fn end_tick(&mut self, sampling: Duration) -> std::io::Result<()> {
        self.exporter.end_tick(sampling)
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.exporter.finish()
    }
}

/// A lock that a panicked holder did not spoil: the list is only pushed to and read.
#[cfg(live)]
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Feeds a capture's records (those of `only`, or all) as if they arrived live: a record
/// stamped `t` is given at `(t - t_first) / speed` seconds after the start; each group of
/// records with one timestamp ends a tick. Records go to the exporter one at a time as they
/// are read, a group's included: a long capture, or one whose records all share one `t`,
/// costs no more memory than a short one. A bad line ends the replay with a log line.
/// Then keeps serving the last snapshot until SIGINT/SIGTERM.
pub async fn run_replay<R: std::io::BufRead>(
    exporter: &mut Exporter,
    reader: &mut CaptureReader<R>,
    only: &[String],
    speed: f64,
    signals: &mut Signals,
    on_reload: Reload<'_>,
) -> StopSignal {
    let pending = exporter.pending_config();
    let start = tokio::time::Instant::now();
    let next_of = |reader: &mut CaptureReader<R>| loop {
        match reader.next_record() {
            Ok(Some(r)) if only.is_empty() || r.interface().is_some_and(|i| only.iter().any(|n| n == i)) => return Some(r),
            Ok(Some(_)) => continue,
            Ok(None) => return None,
            Err(e) => {
                log(LOG_ERR, &format!("replay stopped: {e}"));
                return None;
            }
        }
    };
    let mut t0: Option<f64> = None;
    // The timestamp of the group being fed, and whether it held a sample (which ends a tick).
    let mut group: Option<Option<f64>> = None;
    let mut sampled = false;
    while let Some(rec) = next_of(reader) {
        let t = rec.t();
        if group != Some(t) {
            if std::mem::take(&mut sampled) {
                // The exporter's sink never fails (it only logs and keeps state).
                let _ = exporter.end_tick(Duration::ZERO);
            }
            group = Some(t);
            let t0 = *t0.get_or_insert(t.unwrap_or(0.0));
            // A capture's t is untrusted: a delay too large for a Duration or an Instant is
            // due at once rather than a panic or a wait without end.
            let delay = Duration::try_from_secs_f64((t.unwrap_or(t0) - t0).max(0.0) / speed).ok();
            if let Some(due) = delay.and_then(|d| start.checked_add(d)) {
                tokio::select! {
                    name = until_stop(signals, &pending, on_reload) => return name,
                    _ = tokio::time::sleep_until(due) => {}
                }
            }
        }
        sampled |= matches!(rec, Record::Sample(_));
        let _ = exporter.record(&rec);
    }
    if sampled {
        let _ = exporter.end_tick(Duration::ZERO);
    }
    log(LOG_INFO, "replay finished; serving its last snapshot until stopped");
    loop {
        match signals.next().await {
            Sig::Stop(name) => return name,
            Sig::Reload => {
                reload(&pending, on_reload);
                exporter.publish();
            }
        }
    }
}
