//! Gaps between samples (missed samples, a stalled reader) without keeping the samples:
//! a count of each interval length and the largest intervals seen.
//!
//! A gap is an interval longer than [`GAP_FACTOR`] x the median interval of the segment.
//! The median comes from a table of interval lengths (exact while at most
//! [`MAX_DISTINCT`] distinct lengths were seen, then lengths are rounded to 1 ms); the
//! gaps named are the [`MAX_NAMED`] largest intervals, the others are counted.

use std::collections::{BTreeMap, VecDeque};

/// A gap longer than this many median sample intervals is reported.
pub(crate) const GAP_FACTOR: f64 = 2.5;
const MAX_DISTINCT: usize = 4096;
const MAX_NAMED: usize = 64;

/// Non-negative seconds as an orderable key (the bits of a non-negative f64 order as its value).
fn key(dt: f64) -> u64 {
    dt.max(0.0).to_bits()
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Gaps {
    last_t: Option<f64>,
    /// Interval length (f64 bits) -> how many.
    lengths: BTreeMap<u64, u64>,
    /// The first interval's length while it is the only one, not yet in `lengths`: an
    /// interval walker's state (two samples, restarted per interval) never allocates
    /// a map node only to free it.
    lone: Option<u64>,
    intervals: u64,
    /// Largest intervals, smallest first: (length bits, start, end). Sorted rather than a
    /// heap: the newest interval is usually the largest kept (of equal lengths the later
    /// one is), so it goes to the back and the smallest leaves the front, touching two
    /// entries instead of a heap's path.
    largest: VecDeque<(u64, u64, u64)>,
}

impl Gaps {
    pub(crate) fn push(&mut self, t: f64) {
        if let Some(a) = self.last_t.replace(t) {
            let dt = t - a;
            let mut k = key(dt);
            if self.lengths.len() >= MAX_DISTINCT && !self.lengths.contains_key(&k) {
                k = key((dt * 1e3).round() / 1e3);
            }
            if self.intervals == 0 {
                self.lone = Some(k);
            } else {
                if let Some(first) = self.lone.take() {
                    *self.lengths.entry(first).or_default() += 1;
                }
                *self.lengths.entry(k).or_default() += 1;
            }
            self.intervals += 1;
            let iv = (key(dt), a.to_bits(), t.to_bits());
            // Full: the new interval replaces the smallest kept one if it is larger.
            if self.largest.len() >= MAX_NAMED {
                if self.largest.front().is_some_and(|smallest| iv <= *smallest) {
                    return;
                }
                self.largest.pop_front();
            }
            let at = match self.largest.back() {
                Some(b) if iv < *b => self.largest.partition_point(|x| *x <= iv),
                _ => self.largest.len(),
            };
            self.largest.insert(at, iv);
        }
    }

    /// Becomes what a fresh table is after the sample at `t` alone (no interval yet).
    pub(crate) fn restart_at(&mut self, t: f64) {
        self.lengths.clear();
        self.lone = None;
        self.intervals = 0;
        self.largest.clear();
        self.last_t = Some(t);
    }

    /// The median interval (the upper one of an even count), if any; with two or more
    /// intervals (before that, `lengths` lacks the `lone` one).
    fn median(&self) -> Option<f64> {
        let want = self.intervals / 2;
        let mut seen = 0;
        for (k, n) in &self.lengths {
            seen += n;
            if seen > want {
                return Some(f64::from_bits(*k));
            }
        }
        None
    }

    /// One sentence per gap, in time order.
    pub(crate) fn sentences(&self) -> Vec<String> {
        if self.intervals < 2 {
            return Vec::new();
        }
        let Some(median) = self.median().filter(|m| *m > 0.0) else { return Vec::new() };
        let limit = GAP_FACTOR * median;
        let mut named: Vec<(f64, f64)> =
            self.largest.iter().map(|(_, a, b)| (f64::from_bits(*a), f64::from_bits(*b))).filter(|(a, b)| b - a > limit).collect();
        named.sort_by(|x, y| x.0.total_cmp(&y.0));
        let total: u64 = self.lengths.iter().filter(|(k, _)| f64::from_bits(**k) > limit).map(|(_, n)| n).sum();
        let mut out: Vec<String> = named
            .iter()
            .map(|(a, b)| {
                format!(
                    "gap of {:.3} s between samples at t={a} s and t={b} s (about {} samples missed)",
                    b - a,
                    ((b - a) / median).round() as u64 - 1
                )
            })
            .collect();
        if total > named.len() as u64 {
            out.push(format!("{} more gaps not listed", total - named.len() as u64));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_interval_is_a_gap() {
        // Intervals 1, 1, 1, 4, 1: median 1 s; 4 s > 2.5 s is a gap of 3 missed samples.
        let mut g = Gaps::default();
        for t in [0.0, 1.0, 2.0, 3.0, 7.0, 8.0] {
            g.push(t);
        }
        assert_eq!(g.sentences(), vec!["gap of 4.000 s between samples at t=3 s and t=7 s (about 3 samples missed)".to_string()]);
    }

    #[test]
    fn a_restarted_table_is_a_fresh_one() {
        // Intervals 1, 1, 4 after a restart at t = 10 (the lone first interval, then the
        // map): median 1 s, one gap of 4 s; the intervals before the restart are forgotten.
        let mut restarted = Gaps::default();
        for t in [0.0, 9.0, 10.0] {
            restarted.push(t);
        }
        restarted.restart_at(10.0);
        let mut fresh = Gaps::default();
        fresh.push(10.0);
        for t in [11.0, 12.0, 16.0] {
            assert_eq!(restarted.sentences(), fresh.sentences());
            restarted.push(t);
            fresh.push(t);
        }
        let want = vec!["gap of 4.000 s between samples at t=12 s and t=16 s (about 3 samples missed)".to_string()];
        assert_eq!((restarted.sentences(), fresh.sentences()), (want.clone(), want));
    }

    #[test]
    fn many_gaps_are_counted_not_all_named() {
        // 100 gaps of 10 s between 1 s steps: 64 named, 36 counted.
        let mut g = Gaps::default();
        let mut t = 0.0;
        for _ in 0..100 {
            for _ in 0..3 {
                t += 1.0;
                g.push(t);
            }
            t += 10.0;
            g.push(t);
        }
        let s = g.sentences();
        assert_eq!(s.len(), MAX_NAMED + 1);
        assert_eq!(s.last().map(String::as_str), Some("36 more gaps not listed"));
        // Of equal gaps the later are kept: gap i (0-based) runs from t = 13 i + 3 to
        // 13 (i + 1), and the first named is i = 36's.
        assert_eq!(s[0], "gap of 10.000 s between samples at t=471 s and t=481 s (about 9 samples missed)");
    }
}
