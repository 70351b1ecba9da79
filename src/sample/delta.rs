//! Counter deltas between consecutive samples, and the segments they live in.
//!
//! Counters are compared after `counters::normalize` (the figures analysis uses), plus
//! the FEC histogram bins; other driver statistics are never compared because some of
//! them are gauges. Each figure is a *series* of one value (a total) or several (lanes,
//! histogram bin count + per-lane counts), tagged with its origin.
//!
//! Rules, applied to each pair of consecutive observations of a series with the same
//! origin (an observation from another origin, or a missing one, is skipped, not a break):
//! - value went up or stayed: delta = cur - prev;
//! - value went down from within the top quarter of the 32-bit range
//!   (`prev` in [0xC000_0000, 0xFFFF_FFFF]) to below 0x4000_0000: a 32-bit **wrap**
//!   (e.g. `ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT`, a u32 on the wire); delta = 2^32 - prev + cur,
//!   at most 2^31. 64-bit counters are never assumed to wrap (2^64 bits at 400 Gb/s is
//!   over a year of *bits*, far more in errors);
//! - any other decrease is a **reset** (driver reload, counter clear): a new segment starts;
//! - the number of values changed (lane count change): a reset too.
//!
//! A segment also ends when the module changes (the identifier / vendor SN fingerprint of
//! consecutive interface records differs: `module_changed`) or time runs backwards.
//! Deltas are never taken across a segment boundary, so none is negative or huge.

use crate::analysis::CounterSpan;
use crate::capture::SampleRecord;
#[cfg(test)]
use crate::counters::normalize;
use crate::counters::{normalize_into, Counted, CounterFigure, FecHistogramBin, LaneCounts, Origin, PortCounters};
use std::collections::BTreeMap;

/// Lowest previous value from which a decrease may be a 32-bit wrap.
pub(crate) const WRAP_FROM_AT_LEAST: u64 = 0xC000_0000;
/// A wrapped counter must restart below this.
pub(crate) const WRAP_TO_BELOW: u64 = 0x4000_0000;
const U32_RANGE: u64 = 1 << 32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    Increase(u64),
    /// A 32-bit counter passed 2^32; the value is the increase.
    Wrapped(u64),
    Reset,
}

/// How one counter moved between two readings (rules in the module docs).
pub(crate) fn step(prev: u64, cur: u64) -> Step {
    if cur >= prev {
        Step::Increase(cur - prev)
    } else if (WRAP_FROM_AT_LEAST..U32_RANGE).contains(&prev) && cur < WRAP_TO_BELOW {
        Step::Wrapped(U32_RANGE - prev + cur)
    } else {
        Step::Reset
    }
}

type ScalarGet = fn(&PortCounters) -> Option<&Counted>;
type ScalarMut = fn(&mut PortCounters) -> &mut Option<Counted>;
type LanesGet = fn(&PortCounters) -> Option<&LaneCounts>;
type LanesMut = fn(&mut PortCounters) -> &mut Option<LaneCounts>;

use CounterFigure as F;

/// The normalised totals, as data so every one gets the same treatment.
const SCALARS: &[(CounterFigure, ScalarGet, ScalarMut)] = &[
    (F::CorrectedBits, |p| p.corrected_bits.as_ref(), |p| &mut p.corrected_bits),
    (F::CorrectedBlocks, |p| p.corrected_blocks.as_ref(), |p| &mut p.corrected_blocks),
    (F::UncorrectableBlocks, |p| p.uncorrectable_blocks.as_ref(), |p| &mut p.uncorrectable_blocks),
    (F::RxBits, |p| p.rx_bits.as_ref(), |p| &mut p.rx_bits),
    (F::PcsSymbolErrors, |p| p.pcs_symbol_errors.as_ref(), |p| &mut p.pcs_symbol_errors),
    (F::LinkDownEvents, |p| p.link_down_events.as_ref(), |p| &mut p.link_down_events),
    (F::FcsErrors, |p| p.fcs_errors.as_ref(), |p| &mut p.fcs_errors),
    (F::SymbolErrors, |p| p.symbol_errors.as_ref(), |p| &mut p.symbol_errors),
    (F::LinkErrorRecovery, |p| p.ib.link_error_recovery.as_ref(), |p| &mut p.ib.link_error_recovery),
    (F::PortRcvErrors, |p| p.ib.port_rcv_errors.as_ref(), |p| &mut p.ib.port_rcv_errors),
    (F::PortRcvRemotePhysicalErrors, |p| p.ib.port_rcv_remote_physical_errors.as_ref(), |p| &mut p.ib.port_rcv_remote_physical_errors),
    (F::LocalLinkIntegrityErrors, |p| p.ib.local_link_integrity_errors.as_ref(), |p| &mut p.ib.local_link_integrity_errors),
    (F::ExcessiveBufferOverrunErrors, |p| p.ib.excessive_buffer_overrun_errors.as_ref(), |p| &mut p.ib.excessive_buffer_overrun_errors),
    (F::PortXmitDiscards, |p| p.ib.port_xmit_discards.as_ref(), |p| &mut p.ib.port_xmit_discards),
    (F::Vl15Dropped, |p| p.ib.vl15_dropped.as_ref(), |p| &mut p.ib.vl15_dropped),
    (F::PortRcvData, |p| p.ib.port_rcv_data.as_ref(), |p| &mut p.ib.port_rcv_data),
    (F::PortXmitData, |p| p.ib.port_xmit_data.as_ref(), |p| &mut p.ib.port_xmit_data),
    (F::PortRcvPackets, |p| p.ib.port_rcv_packets.as_ref(), |p| &mut p.ib.port_rcv_packets),
    (F::PortXmitPackets, |p| p.ib.port_xmit_packets.as_ref(), |p| &mut p.ib.port_xmit_packets),
    (F::RxPauseFrames, |p| p.host.rx_pause_frames.as_ref(), |p| &mut p.host.rx_pause_frames),
    (F::TxPauseFrames, |p| p.host.tx_pause_frames.as_ref(), |p| &mut p.host.tx_pause_frames),
    (F::RxDiscards, |p| p.host.rx_discards.as_ref(), |p| &mut p.host.rx_discards),
    (F::RxOutOfBuffer, |p| p.host.rx_out_of_buffer.as_ref(), |p| &mut p.host.rx_out_of_buffer),
    // How often a tool's latest codeword readings changed (the readings are not subtracted).
    (F::CorrectedReadingChanges, |p| p.corrected_reading_changes.as_ref(), |p| &mut p.corrected_reading_changes),
    (F::UncorrectableReadingChanges, |p| p.uncorrectable_reading_changes.as_ref(), |p| &mut p.uncorrectable_reading_changes),
];

const LANES: &[(CounterFigure, LanesGet, LanesMut)] = &[
    (F::CorrectedBitsPerLane, |p| p.corrected_bits_per_lane.as_ref(), |p| &mut p.corrected_bits_per_lane),
    (F::CorrectedBlocksPerLane, |p| p.corrected_blocks_per_lane.as_ref(), |p| &mut p.corrected_blocks_per_lane),
    (F::UncorrectableBlocksPerLane, |p| p.uncorrectable_blocks_per_lane.as_ref(), |p| &mut p.uncorrectable_blocks_per_lane),
    // Per 802.1Qbb priority, not per lane: the same treatment of a run of values.
    (F::RxPausePerPriority, |p| p.host.rx_pause_per_priority.as_ref(), |p| &mut p.host.rx_pause_per_priority),
    (F::TxPausePerPriority, |p| p.host.tx_pause_per_priority.as_ref(), |p| &mut p.host.tx_pause_per_priority),
];

/// `LANES[0]`, `SCALARS[5]` and `SCALARS[3]`: the series per-interval consumers (trend series) follow.
const CORRECTED_BITS_LANES: Slot = Slot::Lanes(0);
const LINK_DOWN_EVENTS: Slot = Slot::Scalar(5);
const RX_BITS: Slot = Slot::Scalar(3);

/// Which figure a series is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Scalar(usize),
    Lanes(usize),
    /// FEC histogram bin (low, high): values = [count, per_lane..].
    Bin(u32, u32),
}

impl Slot {
    /// The figure it is a series of: every histogram bin is [`CounterFigure::FecHistogram`].
    fn figure(&self) -> CounterFigure {
        // A slot's index is a position in its table (slots are made from the tables only).
        match self {
            Slot::Scalar(i) => SCALARS[*i].0,
            Slot::Lanes(i) => LANES[*i].0,
            Slot::Bin(..) => CounterFigure::FecHistogram,
        }
    }

    fn name(&self) -> String {
        match self {
            Slot::Bin(lo, hi) => format!("FEC histogram bin {lo}-{hi}"),
            _ => self.figure().as_str().to_string(),
        }
    }
}

/// Series in slot order, each an origin and a run of `values`: one sample's counters
/// ([`Point`]) or a segment's sums ([`Sums`]). Flat, so that a state refilled per sample
/// keeps its buffers instead of allocating a map and a vector per series.
#[derive(Clone, Debug, Default, PartialEq)]
struct SeriesSet {
    /// Sorted by slot, one entry per slot.
    entries: Vec<(Slot, Origin, std::ops::Range<usize>)>,
    values: Vec<u64>,
}

impl SeriesSet {
    fn clear(&mut self) {
        self.entries.clear();
        self.values.clear();
    }

    /// Appends a series of values `head` then `tail`; `slot` must be past every slot
    /// already held unless [`Self::sort_slots`] follows. (Inlined: a few calls per sample.)
    #[inline]
    fn push(&mut self, slot: Slot, origin: &Origin, head: &[u64], tail: &[u64]) {
        let from = self.values.len();
        // A total is one value: a push, not a copy call.
        match head {
            [v] => self.values.push(*v),
            _ => self.values.extend_from_slice(head),
        }
        if !tail.is_empty() {
            self.values.extend_from_slice(tail);
        }
        self.entries.push((slot, *origin, from..self.values.len()));
    }

    /// Restores slot order after pushes out of order; of equal slots the last pushed
    /// stays (a map's insert).
    fn sort_slots(&mut self) {
        if self.entries.windows(2).all(|w| w[0].0 < w[1].0) {
            return;
        }
        // Stable: equal slots keep push order, so the last of each run is the one to keep.
        self.entries.sort_by_key(|e| e.0);
        let mut kept: Vec<(Slot, Origin, std::ops::Range<usize>)> = Vec::with_capacity(self.entries.len());
        for e in self.entries.drain(..) {
            match kept.last_mut() {
                Some(last) if last.0 == e.0 => *last = e,
                _ => kept.push(e),
            }
        }
        self.entries = kept;
    }

    fn iter(&self) -> impl Iterator<Item = (Slot, &Origin, &[u64])> + '_ {
        self.entries.iter().map(|(slot, origin, r)| (*slot, origin, &self.values[r.clone()]))
    }
}

/// Where `slot` is in `v` (sorted by slot), or where it would go; `hint` is checked
/// first (state kept per slot sees the same slots in the same order every sample).
#[inline]
fn find_slot<T>(v: &[(Slot, T)], hint: usize, slot: Slot) -> Result<usize, usize> {
    match v.get(hint) {
        Some((s, _)) if *s == slot => Ok(hint),
        _ => v.binary_search_by_key(&slot, |e| e.0),
    }
}

/// State per slot, in slot order: the totals and lanes (at most [`SCALARS`] + [`LANES`]:
/// a vector looked up from a hint) and the histogram bins (a map: over a segment a
/// capture may name any number of them, and none costs a shift of the others).
#[derive(Clone, Debug, PartialEq)]
struct SlotMap<T> {
    fixed: Vec<(Slot, T)>,
    bins: BTreeMap<Slot, T>,
}

impl<T> Default for SlotMap<T> {
    fn default() -> Self {
        SlotMap { fixed: Vec::new(), bins: BTreeMap::new() }
    }
}

impl<T: Default> SlotMap<T> {
    /// `hint`: the slot's index among a point's series (totals and lanes come first).
    #[inline]
    fn get(&self, hint: usize, slot: Slot) -> Option<&T> {
        match slot {
            Slot::Bin(..) => self.bins.get(&slot),
            _ => find_slot(&self.fixed, hint, slot).ok().map(|k| &self.fixed[k].1),
        }
    }

    #[inline]
    fn get_or_default(&mut self, hint: usize, slot: Slot) -> &mut T {
        if let Slot::Bin(..) = slot {
            return self.bins.entry(slot).or_default();
        }
        let k = match find_slot(&self.fixed, hint, slot) {
            Ok(k) => k,
            Err(k) => {
                self.fixed.insert(k, (slot, T::default()));
                k
            }
        };
        &mut self.fixed[k].1
    }

    fn iter(&self) -> impl Iterator<Item = (Slot, &T)> + '_ {
        self.fixed.iter().map(|(s, t)| (*s, t)).chain(self.bins.iter().map(|(s, t)| (*s, t)))
    }
}

/// One sample's counters as series: per slot an origin and its values.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Point {
    pub(crate) t: f64,
    series: SeriesSet,
}

impl Point {
    #[cfg(test)]
    pub(crate) fn from_sample(s: &SampleRecord) -> Self {
        let mut out = Point::default();
        let mut counters = normalize(s.fec.as_ref(), Some(&s.link), &s.driver_stats);
        crate::counters::ib::normalize_into(&mut counters, s.ib.as_ref());
        crate::counters::host::normalize_into(&mut counters, s.pause.as_ref(), &s.driver_stats);
        out.refill(s, &counters);
        out
    }

    /// The point of sample `s`, its counters normalised into `counters` first: both
    /// buffers kept from the last sample's (what `watch` and the engine do per sample).
    pub(crate) fn refill_from(&mut self, s: &SampleRecord, counters: &mut PortCounters) {
        normalize_into(counters, s.fec.as_ref(), Some(&s.link), &s.driver_stats);
        crate::counters::ib::normalize_into(counters, s.ib.as_ref());
        crate::counters::host::normalize_into(counters, s.pause.as_ref(), &s.driver_stats);
        self.refill(s, counters);
    }

    /// The point of sample `s`, whose counters the caller already normalised (`p`), into
    /// this point, keeping its buffers.
    pub(crate) fn refill(&mut self, s: &SampleRecord, p: &PortCounters) {
        self.t = s.t;
        let series = &mut self.series;
        series.clear();
        for (i, (_, get, _)) in SCALARS.iter().enumerate() {
            if let Some(c) = get(p) {
                series.push(Slot::Scalar(i), &c.origin, &[c.value], &[]);
            }
        }
        for (i, (_, get, _)) in LANES.iter().enumerate() {
            if let Some(l) = get(p) {
                series.push(Slot::Lanes(i), &l.origin, &l.values, &[]);
            }
        }
        if let Some(fec) = &s.fec {
            let origin = crate::counters::fec_origin(fec);
            for bin in &fec.histogram {
                series.push(Slot::Bin(bin.low, bin.high), &origin, &[bin.count], &bin.per_lane);
            }
        }
        series.sort_slots();
    }
}

/// A segment's counter increases at one moment, as series (slot, origin of the latest
/// observation, sums): what [`DeltaSum::total`] reports, without the wrap sentences, in a
/// form that a ring of rolling-window snapshots refills without allocating.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Sums(SeriesSet);

impl Sums {
    /// The increases as counters and histogram (no wrap sentences).
    pub(crate) fn delta(&self) -> SegmentDelta {
        let mut out = SegmentDelta::default();
        for (slot, origin, sum) in self.0.iter() {
            match slot {
                Slot::Scalar(i) => {
                    if let (Some((_, _, set)), Some(v)) = (SCALARS.get(i), sum.first()) {
                        *set(&mut out.counters) = Some(Counted { value: *v, origin: *origin });
                    }
                }
                Slot::Lanes(i) => {
                    if let Some((_, _, set)) = LANES.get(i) {
                        *set(&mut out.counters) = Some(LaneCounts { values: sum.to_vec(), origin: *origin });
                    }
                }
                Slot::Bin(low, high) => {
                    let count = sum.first().copied().unwrap_or(0);
                    let per_lane = sum.get(1..).map(|s| s.to_vec()).unwrap_or_default();
                    out.histogram.push(FecHistogramBin { low, high, count, per_lane });
                }
            }
        }
        out
    }
}

/// Counter increases over one segment, folded one point at a time: per series and
/// origin, the sum of the increases between consecutive observations of that origin
/// (an observation of another origin is skipped, not a break). A series is reported in
/// the origin of its latest observation. Memory: one value vector per series and origin.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct DeltaSum {
    slots: SlotMap<SlotSum>,
    wraps: WrapNotes,
}

/// What the latest [`DeltaSum::push`] added, for per-interval consumers. Refilled by
/// each push (its buffer kept).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct PointStep {
    corrected_bits_per_lane: Vec<u64>,
    has_corrected_bits_per_lane: bool,
    pub(crate) link_down_events: Option<u64>,
    pub(crate) rx_bits: Option<u64>,
}

impl PointStep {
    pub(crate) fn corrected_bits_per_lane(&self) -> Option<&[u64]> {
        self.has_corrected_bits_per_lane.then_some(&self.corrected_bits_per_lane[..])
    }
}

impl DeltaSum {
    /// Folds `p` in; `out` is refilled with what it added.
    pub(crate) fn push(&mut self, p: &Point, out: &mut PointStep) {
        out.corrected_bits_per_lane.clear();
        out.has_corrected_bits_per_lane = false;
        out.link_down_events = None;
        out.rx_bits = None;
        for (i, (slot, origin, cur)) in p.series.iter().enumerate() {
            let s = self.slots.get_or_default(i, slot);
            let Some(o) = s.observe(origin) else {
                s.latest = usize::from(s.first.is_some()) + s.more.len();
                match s.first {
                    None => s.first = Some(OriginSum::new(origin, cur, p.t)),
                    Some(_) => s.more.push(OriginSum::new(origin, cur, p.t)),
                }
                continue;
            };
            o.last_t = p.t;
            o.seen += 1;
            // Only the steps a per-interval consumer reads are kept.
            let keep = matches!(slot, CORRECTED_BITS_LANES | LINK_DOWN_EVENTS | RX_BITS);
            let inc = &mut out.corrected_bits_per_lane;
            let first = inc.len();
            let (last, sum) = o.values.split_at_mut(o.last_len);
            // The usual sample: as many values as the sums, one pass over the three.
            if last.len() == cur.len() && sum.len() == cur.len() {
                for ((last, sum), b) in last.iter_mut().zip(sum.iter_mut()).zip(cur) {
                    let a = std::mem::replace(last, *b);
                    let d = if *b >= a { *b - a } else { self.wraps.wrap_or_reset(slot, p.t, a, *b) };
                    *sum = sum.saturating_add(d);
                    if keep {
                        inc.push(d);
                    }
                }
            }
            // The sums have the length of the origin's first observation; a later one of
            // another length (the segmenter breaks there) is summed where they meet.
            else {
                for (i, (last, b)) in last.iter_mut().zip(cur).enumerate() {
                    let a = std::mem::replace(last, *b);
                    let d = if *b >= a { *b - a } else { self.wraps.wrap_or_reset(slot, p.t, a, *b) };
                    if let Some(s) = sum.get_mut(i) {
                        *s = s.saturating_add(d);
                    }
                    if keep {
                        inc.push(d);
                    }
                }
                if o.last_len != cur.len() {
                    o.values.splice(..o.last_len, cur.iter().copied());
                    o.last_len = cur.len();
                }
            }
            // The scalars' single step is read back and dropped from the lane buffer.
            match slot {
                CORRECTED_BITS_LANES => out.has_corrected_bits_per_lane = true,
                LINK_DOWN_EVENTS => out.link_down_events = inc.get(first).copied(),
                RX_BITS => out.rx_bits = inc.get(first).copied(),
                _ => {}
            }
            if slot != CORRECTED_BITS_LANES {
                inc.truncate(first);
            }
        }
    }

    /// Why `p` cannot continue this segment's series (`ResetDetector::check` over the
    /// last observations kept here), if a reason there is.
    pub(crate) fn reset_reason(&self, p: &Point) -> Option<String> {
        for (i, (slot, origin, cur)) in p.series.iter().enumerate() {
            let Some(o) = self.slots.get(i, slot).and_then(|s| s.find(origin)) else { continue };
            if let Some(reason) = series_reset(slot, o.last(), cur) {
                return Some(reason);
            }
        }
        None
    }

    /// The sums so far into `out` (its buffers kept): a rolling-window snapshot.
    pub(crate) fn sums_into(&self, out: &mut Sums) {
        if self.sums_over(out) {
            return;
        }
        out.0.clear();
        // Sized once: a fresh snapshot's buffers would otherwise grow (and be copied) a few
        // times each.
        let latest = || self.slots.iter().filter_map(|(_, s)| s.latest());
        out.0.entries.reserve(latest().count());
        out.0.values.reserve(latest().map(|o| o.sum().len()).sum());
        for (slot, s) in self.slots.iter() {
            let Some(o) = s.latest() else { continue };
            out.0.push(slot, &o.origin, o.sum(), &[]);
        }
    }

    /// Rewrites the values of `out` with the sums where `out` holds the same series (slot,
    /// origin, length) in the same order, as a recycled snapshot usually does: what
    /// [`Self::sums_into`] would rebuild. False otherwise (`out` is then rebuilt anyway).
    fn sums_over(&self, out: &mut Sums) -> bool {
        let set = &mut out.0;
        let mut k = 0;
        for (slot, s) in self.slots.iter() {
            let Some(o) = s.latest() else { continue };
            match set.entries.get(k) {
                // `Sums` are built by `sums_into` alone, so its ranges lie in `values`.
                Some((held, origin, r)) if *held == slot && *origin == o.origin && r.len() == o.sum().len() => {
                    set.values[r.clone()].copy_from_slice(o.sum());
                }
                _ => return false,
            }
            k += 1;
        }
        k == set.entries.len()
    }

    /// Becomes what a fresh sum is after pushing `p` alone, where `p` is the last point
    /// pushed (a segment restarted at its last sample). The usual case, where `p` named
    /// every series the sum holds in one origin each, keeps the buffers: the last values
    /// are already `p`'s, only the sums go back to zero.
    pub(crate) fn restart_from(&mut self, p: &Point) {
        let only_p = self.slots.iter().count() == p.series.entries.len()
            && p.series.iter().enumerate().all(|(i, (slot, origin, cur))| {
                self.slots.get(i, slot).is_some_and(|s| {
                    s.more.is_empty()
                        && s.first
                            .as_ref()
                            .is_some_and(|o| o.origin == *origin && o.last_t == p.t && o.last() == cur && o.sum().len() == cur.len())
                })
            });
        if !only_p {
            *self = DeltaSum::default();
            self.push(p, &mut PointStep::default());
            return;
        }
        for s in self.slots.fixed.iter_mut().map(|(_, s)| s).chain(self.slots.bins.values_mut()) {
            s.first.iter_mut().chain(s.more.iter_mut()).for_each(|o| {
                o.values[o.last_len..].fill(0);
                (o.first_t, o.seen) = (o.last_t, 1);
            });
        }
        self.wraps.noted.clear();
        self.wraps.not_noted = 0;
    }

    /// Says in `d`, the increases over a window of this segment from its reading at
    /// `from_t` to the one at `to_t`, which figures span less of it: each gets its own
    /// [`CounterSpan`] (first seen partway: a driver that starts exposing a counter after a
    /// firmware reset or link-up, an import where one snapshot lacks it), and one read at a
    /// single moment of the window has no increase, so it leaves `d` (it is not 0). The
    /// histogram's bins are one figure, spanning from its earliest bin to its latest.
    pub(crate) fn own_spans(&self, from_t: f64, to_t: f64, d: &mut SegmentDelta) {
        let mut histogram: Option<CounterSpan> = None;
        for (slot, s) in self.slots.iter() {
            let Some(o) = s.latest() else { continue };
            let own_from = o.first_t.max(from_t);
            let span = CounterSpan {
                figure: slot.figure(),
                origin: o.origin,
                from_t: own_from,
                to_t: o.last_t,
                // Every reading since the first is in the window when the first is.
                samples: (o.first_t >= from_t).then_some(o.seen),
            };
            // A lone snapshot's window has no increases at all, and says so as a whole.
            if !span.has_delta() && to_t > from_t {
                match slot {
                    Slot::Scalar(i) => *SCALARS[i].2(&mut d.counters) = None,
                    Slot::Lanes(i) => *LANES[i].2(&mut d.counters) = None,
                    Slot::Bin(low, high) => d.histogram.retain(|b| (b.low, b.high) != (low, high)),
                }
            }
            if let Slot::Bin(..) = slot {
                let h = histogram.get_or_insert_with(|| span.clone());
                if span.from_t < h.from_t {
                    (h.from_t, h.samples) = (span.from_t, span.samples);
                }
                h.to_t = h.to_t.max(span.to_t);
                continue;
            }
            if o.last_t >= from_t && (own_from > from_t || o.last_t < to_t) {
                d.spans.push(span);
            }
        }
        d.spans.extend(histogram.filter(|h| h.to_t >= from_t && (h.from_t > from_t || h.to_t < to_t)));
    }

    /// The increases so far.
    #[cfg(test)]
    pub(crate) fn total(&self) -> SegmentDelta {
        self.total_into(&mut Sums::default())
    }

    /// The increases so far, the sums gathered in `scratch` (whatever it held; its buffers are
    /// kept for the next call).
    pub(crate) fn total_into(&self, scratch: &mut Sums) -> SegmentDelta {
        self.sums_into(scratch);
        let mut out = scratch.delta();
        out.wraps.clone_from(&self.wraps.noted);
        if self.wraps.not_noted > 0 {
            out.wraps.push(format!("{} more counter wraps at 2^32 not listed", self.wraps.not_noted));
        }
        out
    }
}

/// Counter increases over a segment.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SegmentDelta {
    /// Each `Counted::value` / `LaneCounts::values` is an increase.
    pub(crate) counters: PortCounters,
    pub(crate) histogram: Vec<FecHistogramBin>,
    /// Counters that wrapped at 2^32, one sentence each.
    pub(crate) wraps: Vec<String>,
    /// Figures whose own span is not the window's ([`DeltaSum::own_spans`]).
    pub(crate) spans: Vec<CounterSpan>,
}

impl SegmentDelta {
    /// The increases since `earlier` (a total of the same segment at an earlier sample).
    /// A figure `earlier` lacks, or had from another origin, counts in full. Wrap
    /// sentences are not carried.
    pub(crate) fn since(&self, earlier: &SegmentDelta) -> SegmentDelta {
        let (c, e) = (&self.counters, &earlier.counters);
        // The fold's own tables: a figure is told here exactly when the fold sums it.
        let mut counters = PortCounters::default();
        for (_, get, set) in SCALARS {
            if let Some(n) = get(c) {
                let value = match get(e) {
                    Some(t) if t.origin == n.origin => n.value.saturating_sub(t.value),
                    _ => n.value,
                };
                *set(&mut counters) = Some(Counted { value, origin: n.origin });
            }
        }
        for (_, get, set) in LANES {
            if let Some(n) = get(c) {
                let values = match get(e) {
                    Some(t) if t.origin == n.origin && t.values.len() == n.values.len() => {
                        n.values.iter().zip(&t.values).map(|(a, b)| a.saturating_sub(*b)).collect()
                    }
                    _ => n.values.clone(),
                };
                *set(&mut counters) = Some(LaneCounts { values, origin: n.origin });
            }
        }
        let histogram = self
            .histogram
            .iter()
            .map(|b| match earlier.histogram.iter().find(|x| x.low == b.low && x.high == b.high) {
                Some(x) if x.per_lane.len() == b.per_lane.len() => FecHistogramBin {
                    low: b.low,
                    high: b.high,
                    count: b.count.saturating_sub(x.count),
                    per_lane: b.per_lane.iter().zip(&x.per_lane).map(|(a, c)| a.saturating_sub(*c)).collect(),
                },
                _ => b.clone(),
            })
            .collect();
        SegmentDelta { counters, histogram, wraps: Vec::new(), spans: Vec::new() }
    }
}

mod breaks;
mod origins;
#[cfg(test)]
mod tests;

use breaks::series_reset;
#[cfg(live)]
pub(crate) use breaks::ResetDetector;
pub(crate) use breaks::{Break, Segmenter};
use origins::{OriginSum, SlotSum, WrapNotes};
