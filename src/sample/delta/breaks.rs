//! Where a segment breaks (module docs of [`super`]): a counter reset, time running
//! backwards, or a module swap between interface records; [`Segmenter`] decides it per
//! sample, `ResetDetector` (live) for a series of points alone.

#[cfg(live)]
use super::SlotMap;
use super::{step, DeltaSum, Point, Slot, Step};
use crate::analysis::segments::SegmentReason;
#[cfg(live)]
use crate::counters::Origin;
use crate::module::map::ascii_trimmed;

/// Why a segment started.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Break {
    pub(crate) t: f64,
    /// What the segment it starts is: never [`SegmentReason::Start`].
    pub(crate) kind: SegmentReason,
    /// What the break is, for a sentence: "the module swap", "the counter reset", "time
    /// going backwards" (the last two are both `counter_reset` segments in the JSON).
    pub(crate) noun: &'static str,
    /// One sentence, e.g. "corrected_bits went from 1000 to 5 (driver reload or counter clear)".
    pub(crate) reason: String,
}

/// Why `p` cannot follow a sample at `last_t`.
fn time_reason(last_t: Option<f64>, p: &Point) -> Option<String> {
    let t0 = last_t.filter(|t0| p.t < *t0)?;
    Some(format!("time went backwards from {t0} s to {} s", p.t))
}

/// Why `cur` cannot follow `prev`, the last observation of the same series and origin.
#[inline]
pub(super) fn series_reset(slot: Slot, prev: &[u64], cur: &[u64]) -> Option<String> {
    // Every value up or unchanged (the usual sample) needs no look at wraps.
    if prev.len() == cur.len() && prev.iter().zip(cur).all(|(a, b)| b >= a) {
        return None;
    }
    series_reset_reason(slot, prev, cur)
}

#[cold]
fn series_reset_reason(slot: Slot, prev: &[u64], cur: &[u64]) -> Option<String> {
    if prev.len() != cur.len() {
        return Some(format!("{} changed from {} to {} values (lane count change)", slot.name(), prev.len(), cur.len()));
    }
    let (a, b) = prev.iter().zip(cur).find(|(a, b)| b < a && step(**a, **b) == Step::Reset)?;
    Some(format!("{} went from {a} to {b} (driver reload or counter clear)", slot.name()))
}

/// Compares `cur` with the last observations of the same series: a reset reason, if any.
/// Also used live by the sampling loop to emit `counter_reset` events.
#[cfg(live)]
#[derive(Clone, Debug, Default)]
pub(crate) struct ResetDetector {
    /// Per series, the last values of each origin seen.
    last: SlotMap<Vec<(Origin, Vec<u64>)>>,
    last_t: Option<f64>,
}

#[cfg(live)]
impl ResetDetector {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// The reason `p` cannot continue the current segment, if any.
    pub(crate) fn check(&self, p: &Point) -> Option<String> {
        if let Some(reason) = time_reason(self.last_t, p) {
            return Some(reason);
        }
        for (i, (slot, origin, cur)) in p.series.iter().enumerate() {
            let Some(per_origin) = self.last.get(i, slot) else { continue };
            let Some((_, prev)) = per_origin.iter().find(|(o, _)| o == origin) else { continue };
            if let Some(reason) = series_reset(slot, prev, cur) {
                return Some(reason);
            }
        }
        None
    }

    pub(crate) fn push(&mut self, p: &Point) {
        for (i, (slot, origin, v)) in p.series.iter().enumerate() {
            let per_origin = self.last.get_or_default(i, slot);
            match per_origin.iter_mut().find(|(o, _)| o == origin) {
                Some((_, last)) => {
                    last.clear();
                    last.extend_from_slice(v);
                }
                None => per_origin.push((*origin, v.to_vec())),
            }
        }
        self.last_t = Some(p.t);
    }

    /// Starts a new segment.
    pub(crate) fn clear(&mut self) {
        *self = Self::default();
    }
}

fn describe_fingerprint(fp: &Option<Vec<u8>>) -> String {
    match fp {
        None => "no module".into(),
        Some(fp) if fp.len() > 1 => format!("SN {:?}", ascii_trimmed(&fp[1..])),
        Some(fp) => format!("identifier {:#04x}", fp.first().copied().unwrap_or(0)),
    }
}

/// Says where one interface's records (file order) break into segments, one record at
/// a time: the rules of the module docs, without keeping the records. The last
/// observation of each series is the current segment's [`DeltaSum`]'s (it holds them
/// anyway), so the caller hands that in rather than this keeping a copy.
#[derive(Clone, Debug, Default)]
pub(crate) struct Segmenter {
    module: Option<Option<Vec<u8>>>,
    pending: Option<Break>,
    last_t: Option<f64>,
}

impl Segmenter {
    /// An interface record with module fingerprint `fp` ([`fingerprint`](crate::module::fingerprint::fingerprint) of its image): a
    /// different module than the previous record's breaks the segment at the next sample.
    pub(crate) fn interface(&mut self, t: f64, fp: Option<Vec<u8>>) {
        if let Some(prev) = &self.module {
            if *prev != fp {
                self.pending = Some(Break {
                    t,
                    kind: SegmentReason::ModuleChanged,
                    noun: "the module swap",
                    reason: format!("module changed from {} to {}", describe_fingerprint(prev), describe_fingerprint(&fp)),
                });
            }
        }
        self.module = Some(fp);
    }

    /// A sample's counters: `Some(break)` when this sample starts a new segment.
    /// `current`: the sums of the segment so far (every earlier sample of it pushed),
    /// `None` before the first sample.
    pub(crate) fn sample(&mut self, p: &Point, current: Option<&DeltaSum>) -> Option<Break> {
        let last_t = self.last_t.replace(p.t);
        self.pending.take().or_else(|| {
            let (noun, reason) = match time_reason(last_t, p) {
                Some(r) => ("time going backwards", r),
                None => ("the counter reset", current.and_then(|sum| sum.reset_reason(p))?),
            };
            Some(Break { t: p.t, kind: SegmentReason::CounterReset, noun, reason })
        })
    }
}
