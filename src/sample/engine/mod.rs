//! The streaming engine: records (live samples, or a capture read line by line) pass
//! once through per-interface state that holds only what the analysis needs, and at any
//! moment yields the [`InterfaceWindow`]s analysis turns into verdicts. Every command
//! (`scan`, `watch`, `compare`, `export`, `decode` of a capture) runs on it.
//!
//! Per interface, over the samples with `from <= t <= to` (records outside are skipped,
//! never kept):
//! - records are split into segments (`crate::sample::delta::Segmenter`: counter
//!   reset, module swap, time backwards); the whole-run window uses the **last**
//!   segment, so every delta belongs to one module and one unbroken counter run. Earlier
//!   segments are named in `events` and kept (the last `iface::MAX_SEGMENTS`) for
//!   per-segment analysis;
//! - time base = the samples' own timestamps: `duration_s` = last t - first t of the
//!   segment (gaps and missed samples included; gaps are also named in `events`, see
//!   `gaps`);
//! - identity and link come from the latest interface record at or before `to`;
//! - `module` = decode(static pages of the interface record in force at the last sample
//!   plus that sample's monitor pages); a decode failure fills `module_error` instead. The
//!   static pages are parsed into an image once per interface record; each sample only
//!   lays its monitor bytes over a copy of it;
//! - `rx_power_dbm_mean`: per lane, the mean of the linear power (mW) over the segment's
//!   samples (running sums), then converted to dBm;
//! - link-down events: the counter's increase where the driver counts them, else the
//!   up -> down transitions seen in the samples (origin `samples`);
//! - capture `error` / `interface_gone` events become sentences; `counter_reset` and
//!   `module_changed` events are re-derived from the data (the segments) instead.
//!
//! Memory: per interface a few counter vectors per segment, the latest interface record,
//! a ring of at most ~256 counter snapshots where rolling windows are asked for
//! ([`EngineConfig::rolling_s`]), and a [`LaneSeries`] of
//! at most `buckets` buckets: bounded by interfaces x lanes x buckets, never by the
//! length of the run.

mod gaps;
mod iface;
mod interval;

use crate::analysis::series::LaneSeries;
pub(crate) use iface::StaticModule;
pub(crate) use interval::IntervalFold;

use crate::analysis::segments::SegmentReason;
use crate::analysis::InterfaceWindow;
use crate::capture::RecordSink;
use crate::capture::{CaptureError, CaptureReader, Header, Record};
use crate::sample::delta::Break;
use iface::IfaceState;
use indexmap::IndexMap;
use std::io::BufRead;
use std::path::Path;

/// Seconds since capture start; `None` = open end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeRange {
    /// Start, seconds since capture start; `None` = from the beginning.
    pub from: Option<f64>,
    /// End, seconds since capture start (inclusive); `None` = to the end.
    pub to: Option<f64>,
}

impl TimeRange {
    /// The whole capture.
    pub fn whole() -> Self {
        Self::default()
    }
    /// True when `t` (seconds since capture start) lies in the range.
    pub fn contains(&self, t: f64) -> bool {
        self.from.is_none_or(|f| t >= f) && self.to.is_none_or(|e| t <= e)
    }
    pub(crate) fn before_end(&self, t: f64) -> bool {
        self.to.is_none_or(|e| t <= e)
    }
    /// True when a bound is set.
    pub fn is_partial(&self) -> bool {
        self.from.is_some() || self.to.is_some()
    }
}

/// What the engine folds and keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// Only samples in this range are folded (`--from` / `--to`).
    pub range: TimeRange,
    /// Rolling windows the state can answer for (seconds); the longest sizes the ring.
    /// None by default: a whole-run fold (`scan`, `export`, `watch`) asks for none, and the
    /// ring of up to 256 counter snapshots would be most of an interface's memory (~250 KB
    /// of ~370 KB for 8 lanes); `serve` and the live table's judge window name theirs.
    pub rolling_s: Vec<f64>,
    /// Per-lane series length bound (buckets per interface).
    pub buckets: usize,
    /// Series buckets older than this (seconds before an interface's latest sample) are
    /// dropped, so the series spans the last this-many seconds at `buckets` resolution
    /// (`serve`'s trend window); `None`: the whole run, downsampled as it grows.
    pub series_horizon_s: Option<f64>,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { range: TimeRange::whole(), rolling_s: Vec::new(), buckets: 512, series_horizon_s: None }
    }
}

/// Why a segment started: the kind of the break that started it, if any.
pub(crate) fn segment_reason(b: Option<&Break>) -> SegmentReason {
    b.map_or(SegmentReason::Start, |b| b.kind)
}

/// One segment's own window.
#[derive(Clone, Debug, PartialEq)]
pub struct SegmentWindow {
    /// Why the segment started.
    pub reason: SegmentReason,
    /// Sentence of the break that started it, if any.
    pub(crate) started_by: Option<String>,
    /// What the break that started it is (`Break::noun`), if any.
    pub break_noun: Option<&'static str>,
    /// Start, seconds since capture start.
    pub from_t: f64,
    /// End, seconds since capture start.
    pub to_t: f64,
    /// The segment's window.
    pub window: InterfaceWindow,
}

/// The incremental fold over records (module docs).
#[derive(Debug)]
pub struct Engine {
    cfg: EngineConfig,
    /// Per interface, in order of first appearance (a removed one that comes back is new).
    states: IndexMap<String, IfaceState>,
}

impl Engine {
    /// An engine with no interfaces yet.
    pub fn new(cfg: EngineConfig) -> Self {
        Engine { cfg, states: IndexMap::new() }
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &EngineConfig {
        &self.cfg
    }

    fn state(&mut self, name: &str) -> &mut IfaceState {
        let (buckets, rolling, horizon) = (self.cfg.buckets, &self.cfg.rolling_s, self.cfg.series_horizon_s);
        let i = self.states.get_index_of(name).unwrap_or_else(|| {
            let mut st = IfaceState::new(name, buckets, rolling);
            st.series_horizon_s = horizon;
            self.states.insert_full(name.to_string(), st).0
        });
        &mut self.states[i]
    }

    fn get(&self, name: &str) -> Option<&IfaceState> {
        self.states.get(name)
    }

    fn live(&self) -> impl Iterator<Item = &IfaceState> {
        self.states.values()
    }

    /// Folds one record (any interface); header records are ignored.
    pub fn push(&mut self, rec: &Record) {
        let range = self.cfg.range;
        match rec {
            Record::Header(_) => {}
            Record::Interface(ir) => self.state(&ir.interface).interface(ir, &range),
            Record::Sample(s) => self.state(&s.interface).sample(s, &range),
            Record::Event(e) => self.state(&e.interface).event(e, &range),
        }
    }

    /// Interface names in order of first appearance.
    pub fn interfaces(&self) -> Vec<String> {
        self.live().map(|s| s.name.clone()).collect()
    }

    /// One window per interface over the whole run (in the range).
    pub fn windows(&self) -> Vec<InterfaceWindow> {
        self.live().map(IfaceState::window).collect()
    }

    /// The window of `iface` over the whole run (in the range), if it was seen.
    pub fn window(&self, iface: &str) -> Option<InterfaceWindow> {
        self.get(iface).map(IfaceState::window)
    }

    /// One window per interface over the last `seconds` of its current segment, from the
    /// ring of counter snapshots (resolution: the longest configured rolling window / 256).
    pub fn rolling_windows(&self, seconds: f64) -> Vec<InterfaceWindow> {
        self.live().map(|s| s.rolling_window(seconds)).collect()
    }

    /// [`Self::rolling_windows`] of one interface.
    pub fn rolling_window(&self, iface: &str, seconds: f64) -> Option<InterfaceWindow> {
        self.get(iface).map(|s| s.rolling_window(seconds))
    }

    /// One window per interface as `serve` judges it (`IfaceState::judged_window`): the
    /// last `judge_s` of the current segment (as [`Self::rolling_windows`]; `judge_s` must
    /// be one of `rolling_s` or shorter than the longest), with the series of the last
    /// `trend_s` for the margin trend.
    pub fn judged_windows(&self, judge_s: f64, trend_s: f64) -> Vec<InterfaceWindow> {
        self.live().map(|s| s.judged_window(judge_s, trend_s)).collect()
    }

    /// Every kept segment of `iface`, oldest first (the last is the whole-run window's).
    pub fn segments(&self, iface: &str) -> Vec<SegmentWindow> {
        let Some(st) = self.get(iface) else { return Vec::new() };
        st.segment_windows()
            .into_iter()
            .map(|(b, from_t, to_t, window)| SegmentWindow {
                reason: segment_reason(b),
                started_by: b.map(|b| b.reason.clone()),
                break_noun: b.map(|b| b.noun),
                from_t,
                to_t,
                window,
            })
            .collect()
    }

    /// The interface vanished: forget its state.
    pub fn remove(&mut self, iface: &str) {
        self.states.shift_remove(iface);
    }

    /// The bounded per-lane series of `iface`.
    pub fn series(&self, iface: &str) -> Option<&LaneSeries> {
        self.get(iface).map(IfaceState::series)
    }
}

impl RecordSink for Engine {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        self.push(rec);
        Ok(())
    }
}

/// The window over a few records of one interface (file order), given the interface
/// record in force (parsed once by the caller): what a CSV row or a live-table interval
/// describes, from a fresh state. Other interfaces' records and header records are
/// ignored. The oracle [`IntervalFold`]'s windows are held to.
#[cfg(test)]
pub(crate) fn records_window<'a>(
    iface: &str,
    ir: Option<&std::sync::Arc<StaticModule>>,
    records: impl IntoIterator<Item = &'a Record>,
) -> InterfaceWindow {
    let mut st = IfaceState::new(iface, 2, &[]);
    let all = TimeRange::whole();
    if let Some(ir) = ir {
        st.interface_static(std::sync::Arc::clone(ir));
    }
    for rec in records.into_iter().filter(|r| r.interface() == Some(iface)) {
        match rec {
            Record::Interface(i) => st.interface(i, &all),
            Record::Sample(s) => st.sample(s, &all),
            Record::Event(e) => st.event(e, &all),
            Record::Header(_) => {}
        }
    }
    st.window()
}

/// What a streamed capture left besides its records.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// The capture's header.
    pub header: Header,
    /// What the reader tolerated (a truncated last line), one sentence each.
    pub notes: Vec<String>,
}

/// Streams a capture: each record, read line by line, goes to `f`.
pub fn for_each_record(reader: impl BufRead, mut f: impl FnMut(&Record) -> std::io::Result<()>) -> Result<Replayed, CaptureError> {
    let mut r = CaptureReader::new(reader)?;
    while let Some(rec) = r.next_record()? {
        f(&rec).map_err(CaptureError::Sink)?;
    }
    Ok(Replayed { header: r.header().clone(), notes: r.notes().to_vec() })
}

/// Replays a capture file into a fresh engine.
pub fn replay(path: impl AsRef<Path>, cfg: EngineConfig) -> Result<(Engine, Replayed), CaptureError> {
    let file = std::fs::File::open(path)?;
    replay_from(std::io::BufReader::with_capacity(1 << 16, file), cfg)
}

/// Replays a capture from `reader` (a file, a pipe, stdin) into a fresh engine.
pub fn replay_from(reader: impl BufRead, cfg: EngineConfig) -> Result<(Engine, Replayed), CaptureError> {
    let mut engine = Engine::new(cfg);
    let done = for_each_record(reader, |rec| {
        engine.push(rec);
        Ok(())
    })?;
    Ok((engine, done))
}
