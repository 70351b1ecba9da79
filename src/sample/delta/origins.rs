//! The per-series state under [`super::DeltaSum`]: each origin's last values and sums in
//! one buffer, the origins of a series (the first inline), and the segment's wrap notes.

use super::{step, Slot, Step};
use crate::counters::Origin;

/// At most this many wrap sentences are kept per segment (a hostile capture can wrap a
/// counter on every sample); the rest are counted.
const MAX_WRAP_NOTES: usize = 32;

/// One origin's observations of a series: its last values, then the sums of the
/// increases, in one buffer (`values[..last_len]`, `values[last_len..]`): one heap block
/// per series, so a sample's fold visits few cache lines.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct OriginSum {
    pub(super) origin: Origin,
    pub(super) values: Vec<u64>,
    pub(super) last_len: usize,
    /// When the origin's first and last observations were, and how many there were: the
    /// figure's own span, which is not the segment's when a driver starts (or stops)
    /// exposing the counter partway (`super::DeltaSum::own_spans`).
    pub(super) first_t: f64,
    pub(super) last_t: f64,
    pub(super) seen: usize,
}

impl OriginSum {
    /// A first observation `cur` at `t`: nothing summed yet.
    pub(super) fn new(origin: &Origin, cur: &[u64], t: f64) -> Self {
        let mut values = Vec::with_capacity(2 * cur.len());
        values.extend_from_slice(cur);
        values.resize(2 * cur.len(), 0);
        OriginSum { origin: *origin, values, last_len: cur.len(), first_t: t, last_t: t, seen: 1 }
    }
    pub(super) fn last(&self) -> &[u64] {
        &self.values[..self.last_len]
    }
    pub(super) fn sum(&self) -> &[u64] {
        &self.values[self.last_len..]
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct SlotSum {
    /// The origins seen, in first-seen order: the first inline (a series usually has
    /// one), the others after it.
    pub(super) first: Option<OriginSum>,
    pub(super) more: Vec<OriginSum>,
    /// Index among them of the latest observation's origin: the one the slot is followed in.
    pub(super) latest: usize,
}

impl SlotSum {
    pub(super) fn origins(&self) -> impl Iterator<Item = &OriginSum> + '_ {
        self.first.iter().chain(&self.more)
    }
    pub(super) fn find(&self, origin: &Origin) -> Option<&OriginSum> {
        self.origins().find(|o| o.origin == *origin)
    }
    pub(super) fn latest(&self) -> Option<&OriginSum> {
        match self.latest {
            0 => self.first.as_ref(),
            k => self.more.get(k - 1),
        }
    }
    /// The state of `origin`, which becomes the latest, if it was seen.
    #[inline]
    pub(super) fn observe(&mut self, origin: &Origin) -> Option<&mut OriginSum> {
        let k = match &self.first {
            Some(o) if o.origin == *origin => 0,
            _ => 1 + self.more.iter().position(|o| o.origin == *origin)?,
        };
        self.latest = k;
        match k {
            0 => self.first.as_mut(),
            k => self.more.get_mut(k - 1),
        }
    }
}

/// The wrap sentences of a segment, the first [`MAX_WRAP_NOTES`] of them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct WrapNotes {
    pub(super) noted: Vec<String>,
    pub(super) not_noted: usize,
}

impl WrapNotes {
    /// The increase of a counter that went down from `a` to `b` at `t` ([`step`]): a
    /// wrap is noted, a reset counts 0 (the segmenter ends a segment there; defensive).
    #[cold]
    pub(super) fn wrap_or_reset(&mut self, slot: Slot, t: f64, a: u64, b: u64) -> u64 {
        match step(a, b) {
            Step::Increase(d) => d,
            Step::Wrapped(d) => {
                if self.noted.len() < MAX_WRAP_NOTES {
                    self.noted.push(format!("{} wrapped at 2^32 before t={t} s ({a} -> {b})", slot.name()));
                } else {
                    self.not_noted += 1;
                }
                d
            }
            Step::Reset => 0,
        }
    }
}
