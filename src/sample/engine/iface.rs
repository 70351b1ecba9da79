//! One interface's state in the engine: what [`InterfaceWindow`] needs, folded one record
//! at a time (the rules are those of the module docs of [`super`]).

use super::gaps::Gaps;
use super::TimeRange;
use crate::analysis::series::{Interval, LaneSeries};
use crate::analysis::InterfaceWindow;
use crate::capture::{ErrorLayer, EventKind, EventRecord, InterfaceRecord, SampleRecord};
use crate::counters::serdes::SerdesEye;
use crate::counters::{Counted, Origin, PortCounters};
use crate::module::units::mw_to_dbm;
use crate::module::ModuleReport;
use crate::sample::delta::{Break, DeltaSum, Point, PointStep, SegmentDelta, Segmenter, Sums};
use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Arc;

mod restart;
mod static_module;
mod window;

pub(crate) use static_module::StaticModule;
use static_module::{NoModule, PageRun, SampleModule};

/// Sentences kept per list (events, segment breaks); the rest are counted.
const MAX_SENTENCES: usize = 256;
/// Earlier segments kept for per-segment analysis; older ones are counted.
pub(crate) const MAX_SEGMENTS: usize = 16;
/// Rolling-window snapshots per longest rolling window.
const RING_SLOTS: f64 = 256.0;

/// A list of sentences that stops growing at [`MAX_SENTENCES`] and counts the rest.
#[derive(Clone, Debug, Default)]
struct Sentences {
    items: Vec<(f64, String)>,
    dropped: usize,
}

impl Sentences {
    fn push(&mut self, t: f64, s: String) {
        if self.items.len() < MAX_SENTENCES {
            self.items.push((t, s));
        } else {
            self.dropped += 1;
        }
    }
    fn since(&self, t0: f64, out: &mut Vec<String>) {
        out.extend(self.items.iter().filter(|(t, _)| *t >= t0).map(|(_, s)| s.clone()));
        if self.dropped > 0 {
            out.push(format!("{} more not listed", self.dropped));
        }
    }
}

/// Running per-lane sums of rx power in mW: the mean is taken in linear power, since
/// averaging dBm values would weight low readings more than the light they stand for.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RxSums {
    /// Longest reading seen (lanes).
    lanes: usize,
    sum_mw: Vec<f64>,
    count: Vec<u64>,
}

impl RxSums {
    pub(crate) fn add(&mut self, reading_mw: &[Option<f64>]) {
        self.lanes = self.lanes.max(reading_mw.len());
        if self.sum_mw.len() < reading_mw.len() {
            self.sum_mw.resize(reading_mw.len(), 0.0);
            self.count.resize(reading_mw.len(), 0);
        }
        for (i, v) in reading_mw.iter().enumerate() {
            if let Some(v) = v {
                self.sum_mw[i] += v;
                self.count[i] += 1;
            }
        }
    }

    /// Becomes a copy of `other`, keeping its buffers.
    fn copy_from(&mut self, other: &RxSums) {
        self.lanes = other.lanes;
        self.sum_mw.clone_from(&other.sum_mw);
        self.count.clone_from(&other.count);
    }

    /// Per lane mean as dBm; `None` where no reading had the lane. `minus` removes an
    /// earlier state's sums (rolling windows).
    pub(crate) fn mean_dbm(&self, minus: Option<&RxSums>) -> Vec<Option<f64>> {
        let mut out = Vec::new();
        self.mean_dbm_into(minus, &mut out);
        out
    }

    /// [`Self::mean_dbm`] into `out` (its buffer kept).
    pub(crate) fn mean_dbm_into(&self, minus: Option<&RxSums>, out: &mut Vec<Option<f64>>) {
        let lanes = if minus.is_some() { self.sum_mw.len() } else { self.lanes };
        out.clear();
        out.extend((0..lanes).map(|i| {
            let (s0, n0) = minus.map_or((0.0, 0), |m| (m.sum_mw.get(i).copied().unwrap_or(0.0), m.count.get(i).copied().unwrap_or(0)));
            let n = self.count.get(i).copied().unwrap_or(0).saturating_sub(n0);
            (n > 0).then(|| mw_to_dbm((self.sum_mw[i] - s0) / n as f64))
        }));
    }
}

/// The counters of a segment at one sample, for rolling windows.
#[derive(Clone, Debug)]
struct Snapshot {
    t: f64,
    sums: Sums,
    /// Samples and rx sums before this sample.
    samples_before: usize,
    rx_before: RxSums,
    down_transitions: u64,
}

/// One segment: consecutive samples between which every delta is meaningful.
#[derive(Clone, Debug)]
pub(crate) struct Segment {
    pub(crate) started_by: Option<Break>,
    pub(crate) first_t: f64,
    pub(crate) last_t: f64,
    pub(crate) samples: usize,
    sum: DeltaSum,
    rx: RxSums,
    gaps: Gaps,
    link_up: Option<bool>,
    link_ext_state: Option<u8>,
    link_ext_substate: Option<u8>,
    /// Up -> down transitions seen in the samples (link-down events where no counter exists).
    down_transitions: u64,
    link_seen: bool,
    /// Interface record in force at the last sample, and that sample's module.
    ir: Option<Arc<StaticModule>>,
    image: Result<SampleModule, NoModule>,
    /// Where the last sample's monitor pages lay in `image`.
    layout: Vec<PageRun>,
    /// The last sample's absolute counters (boxed: a sample swaps them in by pointer, not
    /// by copying ~340 bytes into a cold segment) and time-base remark (imports).
    counters_at_end: Box<PortCounters>,
    time_base: Option<String>,
    /// The latest printed receiver eye of the segment's samples (imports: `mlxlink
    /// --show_eye`), and whether the last sample carried it.
    serdes_eye: Option<SerdesEye>,
    eye_at_last: bool,
    ring: VecDeque<Snapshot>,
    /// Scratch for [`Self::delta`] (its value is never read): a window filled per sample
    /// gathers the sums without allocating them anew.
    sums_scratch: RefCell<Sums>,
}

impl Segment {
    fn delta(&self) -> SegmentDelta {
        self.sum.total_into(&mut self.sums_scratch.borrow_mut())
    }

    /// Port counters with link-down events from the samples where no counter exists.
    fn with_transitions(&self, mut d: SegmentDelta, transitions: u64) -> SegmentDelta {
        if d.counters.link_down_events.is_none() && self.link_seen {
            d.counters.link_down_events = Some(Counted { value: transitions, origin: Origin::Samples });
        }
        d
    }

    /// Takes a sample's module. When the static record is the last sample's and the
    /// sample writes the same byte runs, its bytes are laid over the last sample's image
    /// in place: every byte it leaves alone is then the static record's, as in a fresh
    /// copy of it, without copying the static image per sample.
    fn set_module(&mut self, latest: Option<&Arc<StaticModule>>, s: &SampleRecord) {
        let same_base = match (&self.ir, latest) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        let pages = s.module.as_ref().map_or(&[][..], |m| &m.pages[..]);
        let same_layout = self.layout.len() == pages.len() && self.layout.iter().zip(pages).all(|(r, e)| *r == PageRun::of(e));
        match (same_base, same_layout, &mut self.image) {
            (true, true, Ok(SampleModule::Image(img))) => {
                // The same runs were inserted into this image before, so they fit again.
                if let Err(e) = pages.iter().try_for_each(|e| img.insert_entry(e)) {
                    self.image = Err(NoModule::Malformed(e));
                }
                return;
            }
            // What the last sample's error came from (the record's pages, where the runs
            // lie: never their bytes) is the same: so is the error, not built again.
            (true, true, Err(_)) if s.printed_module.is_none() => return,
            _ => {}
        }
        self.image = StaticModule::with_sample(latest.map(|a| &**a), s);
        self.ir = latest.cloned();
        self.layout.clear();
        self.layout.extend(pages.iter().map(PageRun::of));
    }

    /// Rx power in mW by lane of the last sample `s` into `out`; false (and `out` empty)
    /// when its module does not decode. Only the rx monitors are read: through the
    /// static record's plan where the sample leaves what the plan was resolved from alone.
    fn rx_power_mw(&self, s: &SampleRecord, out: &mut Vec<Option<f64>>) -> bool {
        // `image` is the record's static image with the sample's runs laid over it.
        if let (Ok(SampleModule::Image(img)), Some(plan)) = (&self.image, self.ir.as_ref().and_then(|ir| ir.decoded.as_ref()?.rx_plan())) {
            let pages = s.module.iter().flat_map(|m| &m.pages);
            if plan.holds_for(pages.map(|e| (e.i2c_address, e.page, e.offset, &e.data[..]))) {
                plan.read(img, out);
                return true;
            }
        }
        let Some(rx) = self.image.as_ref().ok().and_then(SampleModule::rx_power_mw) else {
            // Empty, not the previous sample's: a restart ([`IfaceState::restart_at_last_sample`]) re-adds it.
            out.clear();
            return false;
        };
        *out = rx;
        true
    }

    /// The last sample's module into `out`, reusing the report it holds; `None` on error
    /// (borrowed: the stored image's own error, not copied per window).
    fn decode_into(&self, out: &mut Option<ModuleReport>) -> Result<(), Cow<'_, NoModule>> {
        // `image` is the record's static image with the `layout` runs laid over it.
        if let (Ok(SampleModule::Image(img)), Some(ir)) = (&self.image, self.ir.as_deref()) {
            if let (Some(st), Ok(Some(base))) = (&ir.decoded, &ir.image) {
                let runs = self.layout.iter().map(|r| (r.0, r.1, r.2, r.3, r.4));
                return st.decode_sample_into(base, img, runs, out).map_err(|e| Cow::Owned(e.into()));
            }
        }
        *out = None;
        let image = self.image.as_ref().map_err(Cow::Borrowed)?;
        *out = Some(image.decode().map_err(|e| Cow::Owned(e.into()))?);
        Ok(())
    }

    /// Before the sample at `t` is counted in: a snapshot when `spacing_s` has passed
    /// since the last one, and the ring trimmed to the one at or before `t - keep_s` and
    /// those after it. A snapshot dropped from the front lends its buffers to the next.
    fn snapshot(&mut self, t: f64, spacing_s: f64, keep_s: f64) {
        // The newest snapshot is never the second one trimmed against (its t is `t`),
        // so trimming before pushing leaves what trimming after would.
        let mut spare = None;
        while self.ring.len() >= 2 && self.ring[1].t <= t - keep_s {
            spare = self.ring.pop_front();
        }
        if self.ring.back().is_some_and(|b| t - b.t < spacing_s) {
            return;
        }
        let mut snap = spare.unwrap_or_else(|| Snapshot {
            t,
            sums: Sums::default(),
            samples_before: 0,
            rx_before: RxSums::default(),
            down_transitions: 0,
        });
        snap.t = t;
        self.sum.sums_into(&mut snap.sums);
        snap.samples_before = self.samples;
        snap.rx_before.copy_from(&self.rx);
        snap.down_transitions = self.down_transitions;
        self.ring.push_back(snap);
    }

    /// The segment's own part of a window: counters, time base, module, gaps, wraps.
    fn fill(&self, w: &mut InterfaceWindow, module_read_error: Option<&String>) {
        w.samples = self.samples;
        w.duration_s = self.last_t - self.first_t;
        w.link_up = self.link_up;
        w.link_ext_state = self.link_ext_state;
        w.link_ext_substate = self.link_ext_substate;
        w.counters_at_end = PortCounters::clone(&self.counters_at_end);
        w.events.extend(self.time_base.iter().map(|tb| format!("time base: {tb}")));
        w.serdes_eye.clone_from(&self.serdes_eye);
        w.events.extend(self.gaps.sentences());
        let mut d = self.with_transitions(self.delta(), self.down_transitions);
        self.sum.own_spans(self.first_t, self.last_t, &mut d);
        w.counter_spans = d.spans;
        w.deltas = d.counters;
        w.histogram_delta = d.histogram;
        w.events.extend(d.wraps);
        match self.decode_into(&mut w.module) {
            Ok(()) => w.module_error = None,
            // Into the string `w` holds: a window refilled per interval keeps its buffer.
            Err(e) => {
                let held = w.module_error.get_or_insert_with(String::new);
                held.clear();
                match module_read_error {
                    Some(text) => held.push_str(text),
                    // Writing into a String cannot fail.
                    None => {
                        let _ = write!(held, "{e}");
                    }
                }
            }
        }
        self.rx.mean_dbm_into(None, &mut w.rx_power_dbm_mean);
    }
}

#[derive(Debug)]
pub(crate) struct IfaceState {
    pub(crate) name: String,
    /// Latest interface record at or before the range end.
    latest: Option<Arc<StaticModule>>,
    segmenter: Segmenter,
    /// Error / interface-gone events in the range.
    events: Sentences,
    /// "t=... s: reason" of every segment after the first.
    breaks: Sentences,
    module_read_error: Option<String>,
    segments_started: usize,
    earlier: VecDeque<Segment>,
    earlier_dropped: usize,
    current: Option<Segment>,
    /// Shared with the windows that hold it whole (no copy per window); a push after
    /// one was taken and kept copies it first.
    series: Arc<LaneSeries>,
    /// False: `series` stays empty and windows carry none (an interval walker's windows
    /// for lane rows, which never read it).
    pub(super) keep_series: bool,
    /// Buckets that ended more than this many seconds before the latest sample are
    /// dropped (`serve`: the trend window); `None` keeps the whole run's.
    pub(super) series_horizon_s: Option<f64>,
    ring_spacing_s: Option<f64>,
    ring_keep_s: f64,
    /// Per-sample scratch, refilled by each sample (buffers kept): after a sample, its
    /// point and rx reading (what [`Self::restart_at_last_sample`] folds in again).
    point: Point,
    step: PointStep,
    rx_mw: Vec<Option<f64>>,
    /// The sample's counters; then the previous sample's, whose buffers the next reuses.
    counters: Box<PortCounters>,
}

impl IfaceState {
    pub(super) fn new(name: &str, buckets: usize, rolling_s: &[f64]) -> Self {
        let longest = rolling_s.iter().copied().filter(|s| s.is_finite() && *s > 0.0).fold(0.0, f64::max);
        IfaceState {
            name: name.to_string(),
            latest: None,
            segmenter: Segmenter::default(),
            events: Sentences::default(),
            breaks: Sentences::default(),
            module_read_error: None,
            segments_started: 0,
            earlier: VecDeque::new(),
            earlier_dropped: 0,
            current: None,
            series: Arc::new(LaneSeries::new(buckets)),
            keep_series: true,
            series_horizon_s: None,
            ring_spacing_s: (longest > 0.0).then_some(longest / RING_SLOTS),
            ring_keep_s: longest,
            point: Point::default(),
            step: PointStep::default(),
            rx_mw: Vec::new(),
            counters: Box::default(),
        }
    }

    pub(crate) fn series(&self) -> &LaneSeries {
        &self.series
    }

    pub(crate) fn interface(&mut self, ir: &InterfaceRecord, range: &TimeRange) {
        if range.before_end(ir.t) {
            self.interface_static(Arc::new(StaticModule::new(ir.clone())));
        }
    }

    /// An interface record already parsed (shared between states).
    pub(crate) fn interface_static(&mut self, st: Arc<StaticModule>) {
        self.segmenter.interface(st.record.t, st.fingerprint.clone());
        self.latest = Some(st);
    }

    pub(crate) fn event(&mut self, e: &EventRecord, range: &TimeRange) {
        if !range.contains(e.t) || !matches!(e.kind, EventKind::Error | EventKind::InterfaceGone) {
            return;
        }
        if e.error_layer() == Some(ErrorLayer::Module) {
            self.module_read_error = Some(e.message.clone());
        }
        self.events.push(e.t, format!("t={} s: {}: {}", e.t, e.kind.as_str().replace('_', " "), e.message));
    }

    pub(super) fn sample(&mut self, s: &SampleRecord, range: &TimeRange) {
        if !range.contains(s.t) {
            return;
        }
        self.point.refill_from(s, &mut self.counters);
        let brk = self.segmenter.sample(&self.point, self.current.as_ref().map(|seg| &seg.sum));
        let continues = brk.is_none() && self.current.is_some();
        if !continues {
            self.start_segment(brk, s.t);
        }
        let spacing = self.ring_spacing_s;
        let keep = self.ring_keep_s;
        // start_segment() leaves a current segment.
        let Some(seg) = self.current.as_mut() else { return };
        seg.set_module(self.latest.as_ref(), s);
        // Only the rx monitors are decoded per sample; the full decode waits for a window.
        let rx_ok = seg.rx_power_mw(s, &mut self.rx_mw);
        let rx_mw = &self.rx_mw[..];
        let step = &mut self.step;
        seg.sum.push(&self.point, step);
        let up = s.link.up;
        let went_down = seg.link_up == Some(true) && up == Some(false);
        seg.link_seen |= up.is_some();
        seg.down_transitions += u64::from(went_down);
        if continues && self.keep_series {
            let down = step.link_down_events.unwrap_or(u64::from(went_down));
            Arc::make_mut(&mut self.series).push(&Interval {
                t_start: seg.last_t,
                t_end: s.t,
                corrected_bits_per_lane: step.corrected_bits_per_lane(),
                rx_bits: step.rx_bits,
                link_down_events: down,
            });
        }
        if let Some(h) = self.series_horizon_s {
            if self.series.buckets().first().is_some_and(|b| b.t_end < s.t - h) {
                Arc::make_mut(&mut self.series).forget_before(s.t - h);
            }
        }
        if let Some(spacing) = spacing {
            seg.snapshot(s.t, spacing, keep);
        }
        seg.samples += 1;
        seg.last_t = s.t;
        seg.link_up = up;
        seg.link_ext_state = s.link.ext_state;
        seg.link_ext_substate = s.link.ext_substate;
        seg.gaps.push(s.t);
        if rx_ok {
            seg.rx.add(rx_mw);
        }
        std::mem::swap(&mut seg.counters_at_end, &mut self.counters);
        seg.time_base.clone_from(&s.time_base);
        seg.eye_at_last = s.serdes_eye.is_some();
        if seg.eye_at_last {
            seg.serdes_eye.clone_from(&s.serdes_eye);
        }
    }

    fn start_segment(&mut self, brk: Option<Break>, t: f64) {
        if let Some(b) = &brk {
            if self.segments_started > 0 {
                self.breaks.push(b.t, format!("t={} s: {}", b.t, b.reason));
            }
        }
        if let Some(mut old) = self.current.take() {
            // Rolling windows look at the current segment only.
            old.ring = VecDeque::new();
            if self.earlier.len() == MAX_SEGMENTS {
                self.earlier.pop_front();
                self.earlier_dropped += 1;
            }
            self.earlier.push_back(old);
        }
        self.segments_started += 1;
        self.current = Some(Segment {
            started_by: brk,
            first_t: t,
            last_t: t,
            samples: 0,
            sum: DeltaSum::default(),
            rx: RxSums::default(),
            gaps: Gaps::default(),
            link_up: None,
            link_ext_state: None,
            link_ext_substate: None,
            down_transitions: 0,
            link_seen: false,
            ir: None,
            image: Err(NoModule::NoSamples),
            layout: Vec::new(),
            counters_at_end: Box::default(),
            time_base: None,
            serdes_eye: None,
            eye_at_last: false,
            ring: VecDeque::new(),
            sums_scratch: RefCell::default(),
        });
    }

    fn base(&self, ir: Option<&StaticModule>) -> InterfaceWindow {
        let mut w = InterfaceWindow::default();
        self.base_into(ir, &mut w);
        w
    }

    /// The whole run's window: the last segment, with every event of the run.
    pub(crate) fn window(&self) -> InterfaceWindow {
        let mut w = InterfaceWindow::default();
        self.window_into(&mut w);
        w
    }

    /// The window over the last `seconds` of the current segment (at the resolution of
    /// the snapshot ring: the window starts at the first snapshot inside it).
    pub(crate) fn rolling_window(&self, seconds: f64) -> InterfaceWindow {
        let Some(seg) = &self.current else { return self.window() };
        let mut w = self.base(self.latest.as_deref());
        let start = seg.last_t - seconds;
        let snap = seg.ring.iter().find(|s| s.t >= start);
        w.serdes_eye.clone_from(&seg.serdes_eye);
        let Some(snap) = snap else {
            // No snapshot inside the window: only the latest sample.
            w.samples = 1;
            w.link_up = seg.link_up;
            w.link_ext_state = seg.link_ext_state;
            w.link_ext_substate = seg.link_ext_substate;
            w.link_ext_substate = seg.link_ext_substate;
            if let Err(e) = seg.decode_into(&mut w.module) {
                w.module_error = Some(e.to_string());
            }
            return w;
        };
        self.events.since(snap.t, &mut w.events);
        w.samples = seg.samples - snap.samples_before;
        w.duration_s = seg.last_t - snap.t;
        w.link_up = seg.link_up;
        w.link_ext_state = seg.link_ext_state;
        w.link_ext_substate = seg.link_ext_substate;
        w.counters_at_end = PortCounters::clone(&seg.counters_at_end);
        let mut d = seg.with_transitions(seg.delta().since(&snap.sums.delta()), seg.down_transitions - snap.down_transitions);
        seg.sum.own_spans(snap.t, seg.last_t, &mut d);
        w.counter_spans = d.spans;
        w.deltas = d.counters;
        w.histogram_delta = d.histogram;
        if let Err(e) = seg.decode_into(&mut w.module) {
            w.module_error = Some(self.module_read_error.clone().unwrap_or_else(|| e.to_string()));
        }
        w.rx_power_dbm_mean = seg.rx.mean_dbm(Some(&snap.rx_before));
        w
    }

    /// The window `serve` judges: [`Self::rolling_window`] over the last `judge_s`, with
    /// the series buckets of the current segment from the last `trend_s` (those the
    /// state still holds: see `series_horizon_s`) for the margin trend and the peaks.
    pub(crate) fn judged_window(&self, judge_s: f64, trend_s: f64) -> InterfaceWindow {
        let mut w = self.rolling_window(judge_s);
        if let Some(seg) = &self.current {
            window::segment_series_into(&self.series, seg.first_t.max(seg.last_t - trend_s), &mut w.series);
        }
        w
    }

    /// Every kept segment's own window, oldest first, with why it started.
    pub(crate) fn segment_windows(&self) -> Vec<(Option<&Break>, f64, f64, InterfaceWindow)> {
        self.earlier
            .iter()
            .chain(self.current.iter())
            .map(|seg| {
                let mut w = self.base(seg.ir.as_deref());
                seg.fill(&mut w, None);
                (seg.started_by.as_ref(), seg.first_t, seg.last_t, w)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
