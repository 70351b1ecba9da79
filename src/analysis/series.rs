//! A bounded per-lane time series of one interface, for trend work (margin slope,
//! time to the FEC limit, which lane's BER rose before a link drop). The sampling engine
//! (`sample::engine`) fills it; like [`super::InterfaceWindow`] it is analysis input, so it
//! lives here and analysis imports nothing from the sampling layer.
//!
//! Every sample interval (two consecutive samples of one segment) is added to the last
//! bucket. There are at most `capacity` buckets: when they are full, adjacent pairs are
//! merged (the series is downsampled by 2) and each bucket then spans twice as many
//! intervals, so memory stays `capacity x lanes` whatever the run length. A sample that
//! starts a new segment (counter reset, module swap) adds no interval: no delta crosses
//! a segment boundary.
//!
//! Per bucket: `t_start`/`t_end` (seconds since capture start; `duration_s` is the sum of
//! the intervals in it, which excludes time across segment breaks), per lane the corrected
//! bits (a BER per bucket is `corrected_bits / (lane rate x duration_s)`, or over
//! `rx_bits` split per lane where the driver counts them), and the link-down events inside
//! it with their times. The series is held column by column (the buckets' shared figures,
//! the lanes' bits at a fixed stride, the link-down times): 512 buckets of 8 lanes are
//! about 45 KB.

use crate::counters::MAX_LANES;
use std::ops::Range;

/// Link-down times kept per bucket; more are counted in `link_down_events` only.
const MAX_DOWN_TIMES: usize = 16;

// A bucket marks its counted lanes in a `u16`.
const _: () = assert!(MAX_LANES <= 16);

/// What the lanes of one bucket share; their corrected bits are a column of the
/// [`LaneSeries`] ([`LaneSeries::corrected_bits`]), its link-down times another
/// ([`LaneSeries::link_down_t`]): no allocation per bucket.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeriesBucket {
    pub(crate) t_start: f64,
    pub(crate) t_end: f64,
    /// Seconds of sampled intervals in the bucket.
    pub duration_s: f64,
    /// Sample intervals merged into it.
    pub(crate) intervals: u32,
    /// Received bits over the bucket (whole port), where the driver counts them.
    pub(crate) rx_bits: Option<u64>,
    /// Link-down events inside the bucket (counter increases, or up -> down transitions
    /// seen in the samples where no counter exists).
    pub(crate) link_down_events: u64,
    /// Lanes with a per-lane counter in any of its intervals: bit i = lane i + 1.
    counted: u16,
    /// Lanes the bucket spans (the most any of its intervals counted).
    lanes: u8,
    /// Link-down times kept of the bucket (the first `MAX_DOWN_TIMES` of its events).
    down_times: u8,
}

impl SeriesBucket {
    /// Bits on the wire of one lane over the bucket, the BER denominator analysis uses:
    /// the driver's received bits split evenly over `lanes` where counted, else
    /// `lane_rate_gbps` x `duration_s`.
    pub(crate) fn lane_bits_on_wire(&self, lane_rate_gbps: f64, lanes: u32) -> f64 {
        match self.rx_bits.filter(|b| *b > 0) {
            Some(rx) if lanes > 0 => rx as f64 / f64::from(lanes),
            _ => lane_rate_gbps * 1e9 * self.duration_s,
        }
    }

    /// The bucket's mid time, where its figures are placed in time.
    pub(crate) fn mid_t_s(&self) -> f64 {
        (self.t_start + self.t_end) / 2.0
    }

    /// Lanes the bucket spans (index 0 = lane 1).
    pub(crate) fn lanes(&self) -> usize {
        usize::from(self.lanes)
    }

    fn is_counted(&self, lane: usize) -> bool {
        lane < MAX_LANES && self.counted & (1 << lane) != 0
    }

    /// The bucket of interval `iv` alone, without its lanes and link-down time (columns
    /// of the series).
    fn of_interval(iv: &Interval) -> Self {
        SeriesBucket {
            t_start: iv.t_start,
            t_end: iv.t_end,
            duration_s: iv.t_end - iv.t_start,
            intervals: 1,
            rx_bits: iv.rx_bits,
            link_down_events: iv.link_down_events,
            ..Default::default()
        }
    }

    /// Adds bucket `o`'s shared figures (the columns are merged by the series).
    fn absorb(&mut self, o: &SeriesBucket) {
        self.t_end = o.t_end;
        self.duration_s += o.duration_s;
        self.intervals += o.intervals;
        self.rx_bits = match (self.rx_bits, o.rx_bits) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
        self.link_down_events += o.link_down_events;
        self.counted |= o.counted;
        self.lanes = self.lanes.max(o.lanes);
    }
}

/// Lanes `0..n` marked counted.
fn lane_mask(n: usize) -> u16 {
    ((1u32 << n.min(MAX_LANES)) - 1) as u16
}

/// Corrected bits per lane and bucket: the low 32 bits of each count, and the high 32 bits
/// only once a count needs them (a lane near its FEC limit passes 2^32 bits in a bucket of
/// a few minutes; a healthy lane's counts stay far below).
#[derive(Clone, Debug, Default)]
struct Counts {
    lo: Vec<u32>,
    hi: Option<Vec<u32>>,
}

impl Counts {
    fn get(&self, i: usize) -> Option<u64> {
        let lo = u64::from(*self.lo.get(i)?);
        Some(lo | self.hi.as_ref().map_or(0, |h| u64::from(h[i]) << 32))
    }

    fn set(&mut self, i: usize, v: u64) {
        // The low and high halves of `v`.
        self.lo[i] = v as u32;
        let high = (v >> 32) as u32;
        if high != 0 && self.hi.is_none() {
            let mut h = Vec::with_capacity(self.lo.capacity());
            h.resize(self.lo.len(), 0);
            self.hi = Some(h);
        }
        if let Some(h) = &mut self.hi {
            h[i] = high;
        }
    }

    fn add(&mut self, i: usize, v: u64) {
        let sum = self.get(i).unwrap_or(0).saturating_add(v);
        self.set(i, sum);
    }

    /// `f` on both halves (the high one where it exists).
    fn each(&mut self, f: impl Fn(&mut Vec<u32>)) {
        f(&mut self.lo);
        if let Some(h) = &mut self.hi {
            f(h);
        }
    }

    fn clear(&mut self) {
        self.lo.clear();
        self.hi = None;
    }
}

/// One interval's figures, as the engine hands them over.
#[derive(Clone, Debug, Default)]
pub(crate) struct Interval<'a> {
    pub(crate) t_start: f64,
    pub(crate) t_end: f64,
    /// Per lane (index 0 = lane 1; at most [`MAX_LANES`] are kept).
    pub(crate) corrected_bits_per_lane: Option<&'a [u64]>,
    pub(crate) rx_bits: Option<u64>,
    pub(crate) link_down_events: u64,
}

/// The series, column by column: per bucket its shared figures, the lanes' corrected
/// bits at a fixed stride, and the link-down times in bucket order.
#[derive(Clone, Debug)]
pub struct LaneSeries {
    buckets: Vec<SeriesBucket>,
    /// Corrected bits: lane i of bucket k at `k * stride + i` (0 where not counted).
    bits: Counts,
    /// Lanes per bucket in `bits`: the most any interval has had.
    stride: usize,
    /// Every bucket's kept link-down times, bucket after bucket (`down_times` each).
    down_t: Vec<f64>,
    /// Sample intervals per bucket at the current resolution (doubles at each merge).
    pub(crate) intervals_per_bucket: u32,
    capacity: usize,
}

/// The same buckets, lanes and drop times, however the columns are laid out.
impl PartialEq for LaneSeries {
    fn eq(&self, o: &Self) -> bool {
        (self.buckets == o.buckets && self.down_t == o.down_t)
            && (self.intervals_per_bucket, self.capacity) == (o.intervals_per_bucket, o.capacity)
            && (0..self.buckets.len()).all(|k| self.lane_bits(k).eq(o.lane_bits(k)))
    }
}

impl LaneSeries {
    /// `capacity` is rounded up to an even number of at least 2.
    pub(crate) fn new(capacity: usize) -> Self {
        let capacity = capacity.max(2).div_ceil(2) * 2;
        LaneSeries { buckets: Vec::new(), bits: Counts::default(), stride: 0, down_t: Vec::new(), intervals_per_bucket: 1, capacity }
    }

    /// Empty again, as `new` of the same capacity makes it (the columns keep their room).
    pub(crate) fn clear(&mut self) {
        self.buckets.clear();
        self.bits.clear();
        self.stride = 0;
        self.down_t.clear();
        self.intervals_per_bucket = 1;
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The buckets in time order.
    pub fn buckets(&self) -> &[SeriesBucket] {
        &self.buckets
    }

    /// Corrected bits on lane `lane` (0-based) of bucket `k`; `None` = no per-lane counter.
    pub fn corrected_bits(&self, k: usize, lane: usize) -> Option<u64> {
        self.buckets.get(k).filter(|b| b.is_counted(lane))?;
        self.bits.get(k * self.stride + lane)
    }

    /// The lanes of bucket `k` in order ([`Self::corrected_bits`] of each).
    pub(crate) fn lane_bits(&self, k: usize) -> impl Iterator<Item = Option<u64>> + '_ {
        let lanes = self.buckets.get(k).map_or(0, SeriesBucket::lanes);
        (0..lanes).map(move |i| self.corrected_bits(k, i))
    }

    /// The most lanes any bucket spans.
    pub(crate) fn width(&self) -> usize {
        self.buckets.iter().map(SeriesBucket::lanes).max().unwrap_or(0)
    }

    /// Pre-FEC BER of lane `lane` (0-based) over bucket `k`, where its bits are counted.
    pub(crate) fn lane_ber(&self, k: usize, lane: usize, lane_rate_gbps: f64, lanes: u32) -> Option<f64> {
        let n = self.corrected_bits(k, lane)?;
        let bits = self.buckets[k].lane_bits_on_wire(lane_rate_gbps, lanes);
        (bits > 0.0).then(|| n as f64 / bits)
    }

    /// The times of the first 16 link-down events of each bucket, in order.
    pub fn link_down_t(&self) -> &[f64] {
        &self.down_t
    }

    /// Bucket `k`'s kept link-down times.
    pub(crate) fn bucket_link_down_t(&self, k: usize) -> &[f64] {
        let Some(b) = self.buckets.get(k) else { return &[] };
        let at = self.buckets[..k].iter().map(|b| usize::from(b.down_times)).sum::<usize>();
        &self.down_t[at..at + usize::from(b.down_times)]
    }

    pub(crate) fn push(&mut self, iv: &Interval) {
        let bits = iv.corrected_bits_per_lane.unwrap_or(&[]);
        let bits = &bits[..bits.len().min(MAX_LANES)];
        if bits.len() > self.stride {
            self.widen(bits.len());
        }
        let k = match self.buckets.last_mut() {
            Some(last) if last.intervals < self.intervals_per_bucket => {
                last.absorb(&SeriesBucket::of_interval(iv));
                self.buckets.len() - 1
            }
            _ => {
                if self.buckets.len() == self.capacity {
                    self.halve();
                    return self.push(iv);
                }
                if self.buckets.capacity() == 0 {
                    // The series fills up to `capacity` buckets: grown step by step, the
                    // columns would be copied (and fresh memory touched) ~log2(capacity) times.
                    self.buckets.reserve_exact(self.capacity);
                    let room = self.capacity * self.stride;
                    self.bits.each(|v| v.reserve_exact(room));
                }
                self.buckets.push(SeriesBucket::of_interval(iv));
                let len = self.buckets.len() * self.stride;
                self.bits.each(|v| v.resize(len, 0));
                self.buckets.len() - 1
            }
        };
        self.add_lanes(k, bits);
        let b = &mut self.buckets[k];
        if iv.link_down_events > 0 && usize::from(b.down_times) < MAX_DOWN_TIMES {
            b.down_times += 1;
            self.down_t.push(iv.t_end);
        }
    }

    /// Adds one interval's lane bits to bucket `k`.
    fn add_lanes(&mut self, k: usize, bits: &[u64]) {
        let b = &mut self.buckets[k];
        b.counted |= lane_mask(bits.len());
        // At most MAX_LANES (<= 16).
        b.lanes = b.lanes.max(bits.len() as u8);
        for (i, v) in bits.iter().enumerate() {
            self.bits.add(k * self.stride + i, *v);
        }
    }

    /// Room for `lanes` lanes per bucket: the bits column laid out at the new stride.
    fn widen(&mut self, lanes: usize) {
        let old = std::mem::replace(&mut self.stride, lanes);
        let mut bits = Counts { lo: Vec::with_capacity(self.buckets.capacity().max(self.buckets.len()) * lanes), hi: None };
        bits.lo.resize(self.buckets.len() * lanes, 0);
        for k in 0..self.buckets.len() {
            for i in 0..old {
                bits.set(k * lanes + i, self.bits.get(k * old + i).unwrap_or(0));
            }
        }
        self.bits = bits;
    }

    /// Drops the buckets that ended before `t` (a time-bounded series: `serve` fits its
    /// trend over the last hours, not since start).
    pub(crate) fn forget_before(&mut self, t: f64) {
        let n = self.buckets.iter().take_while(|b| b.t_end < t).count();
        self.remove(0..n);
    }

    /// Keeps only the buckets that started at or after `t`.
    pub(crate) fn retain_from(&mut self, t: f64) {
        let mut k = 0;
        while k < self.buckets.len() {
            let run = self.buckets[k..].iter().take_while(|b| b.t_start < t).count();
            if run > 0 {
                self.remove(k..k + run);
            }
            k += 1;
        }
    }

    /// Removes buckets `range` and their lanes and link-down times.
    fn remove(&mut self, range: Range<usize>) {
        if range.is_empty() {
            return;
        }
        let downs = |b: &[SeriesBucket]| b.iter().map(|b| usize::from(b.down_times)).sum::<usize>();
        let first_down = downs(&self.buckets[..range.start]);
        self.down_t.drain(first_down..first_down + downs(&self.buckets[range.clone()]));
        let lanes = range.start * self.stride..range.end * self.stride;
        self.bits.each(|v| {
            v.drain(lanes.clone());
        });
        self.buckets.drain(range);
    }

    /// Per lane (index 0 = lane 1), the highest BER of the buckets that ended at or after
    /// `t` ([`Self::lane_ber`]): what a spike shorter than a window leaves, at the
    /// resolution of the buckets.
    pub(crate) fn max_lane_ber_since(&self, t: f64, lane_rate_gbps: f64, lanes: u32) -> Vec<Option<f64>> {
        let mut out: Vec<Option<f64>> = Vec::new();
        for (k, b) in self.buckets.iter().enumerate().filter(|(_, b)| b.t_end >= t) {
            if out.len() < b.lanes() {
                out.resize(b.lanes(), None);
            }
            for (i, m) in out.iter_mut().enumerate() {
                if let Some(ber) = self.lane_ber(k, i, lane_rate_gbps, lanes).filter(|v| v.is_finite()) {
                    *m = Some(m.map_or(ber, |x: f64| x.max(ber)));
                }
            }
        }
        out
    }

    /// Merges adjacent pairs in place: half as many buckets, each twice as long.
    fn halve(&mut self) {
        let (n, stride) = (self.buckets.len(), self.stride);
        let mut downs = 0;
        let mut read = 0;
        for k in 0..n.div_ceil(2) {
            let mut b = self.buckets[2 * k];
            let times = usize::from(b.down_times);
            self.down_t.copy_within(read..read + times, downs);
            (read, downs) = (read + times, downs + times);
            self.bits.each(|v| v.copy_within(2 * k * stride..(2 * k + 1) * stride, k * stride));
            if let Some(o) = self.buckets.get(2 * k + 1).copied() {
                b.absorb(&o);
                let keep = usize::from(o.down_times).min(MAX_DOWN_TIMES - times);
                self.down_t.copy_within(read..read + keep, downs);
                (read, downs) = (read + usize::from(o.down_times), downs + keep);
                // At most MAX_DOWN_TIMES (16).
                b.down_times = (times + keep) as u8;
                for i in 0..stride {
                    let v = self.bits.get((2 * k + 1) * stride + i).unwrap_or(0);
                    self.bits.add(k * stride + i, v);
                }
            }
            self.buckets[k] = b;
        }
        self.buckets.truncate(n.div_ceil(2));
        let len = self.buckets.len() * stride;
        self.bits.each(|v| v.truncate(len));
        self.down_t.truncate(downs);
        self.intervals_per_bucket = self.intervals_per_bucket.saturating_mul(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_stays_bounded_and_keeps_totals() {
        // 10,000 one-second intervals of 3 corrected bits on lane 1 into 8 buckets:
        // the buckets stay at most 8, and their bits add up to 30,000, their time to 10,000 s.
        let mut s = LaneSeries::new(8);
        for i in 0..10_000u32 {
            let t = f64::from(i);
            s.push(&Interval {
                t_start: t,
                t_end: t + 1.0,
                corrected_bits_per_lane: Some(&[3]),
                link_down_events: u64::from(i == 4321),
                ..Default::default()
            });
            assert!(s.buckets().len() <= 8);
        }
        let bits: u64 = (0..s.buckets().len()).map(|k| s.corrected_bits(k, 0).unwrap()).sum();
        assert_eq!(bits, 30_000);
        assert_eq!(s.buckets().iter().map(|b| b.duration_s).sum::<f64>(), 10_000.0);
        // 10,000 intervals need 2048 per bucket (8 x 1024 = 8192 < 10,000 <= 16,384).
        assert_eq!(s.intervals_per_bucket, 2048);
        assert_eq!(s.buckets()[0].t_start, 0.0);
        assert_eq!(s.buckets().last().unwrap().t_end, 10_000.0);
        assert_eq!(s.link_down_t(), [4322.0]);
        // 4322 s is in the third bucket of 2048 intervals.
        assert_eq!(s.bucket_link_down_t(2), [4322.0]);
        assert!(s.bucket_link_down_t(1).is_empty());
        // First bucket: 2048 s x 3 bits/s on a 53.125 Gb/s lane: 6144 / 1.088e14 = 5.647e-11.
        let ber = s.lane_ber(0, 0, 53.125, 1).unwrap();
        assert!((ber - 6144.0 / (53.125e9 * 2048.0)).abs() < 1e-20);
    }

    #[test]
    fn a_time_bounded_series_keeps_the_recent_buckets_and_their_peak() {
        // One-second intervals of 3 bits on lane 1 and 1 on lane 2, except a 300-bit spike
        // on lane 1 at t=9990 s; buckets ending before t-100 s are forgotten as they go.
        let mut s = LaneSeries::new(16);
        for i in 0..10_000u32 {
            let t = f64::from(i);
            let bits = [if i == 9990 { 300 } else { 3 }, 1];
            s.push(&Interval { t_start: t, t_end: t + 1.0, corrected_bits_per_lane: Some(&bits), ..Default::default() });
            s.forget_before(t + 1.0 - 100.0);
            assert!(s.buckets().len() <= 16);
        }
        // What is kept spans the last ~100 s (plus at most one bucket's width).
        let first = s.buckets()[0].t_start;
        assert!(first >= 9_900.0 - f64::from(s.intervals_per_bucket) && first <= 9_900.0, "{first}");
        // 100 s kept in 16 buckets: 8 intervals each (16 x 8 = 128 >= 100 + 8).
        assert_eq!(s.intervals_per_bucket, 8);
        // The spike's bucket: 300 + 7 x 3 = 321 bits over 8 s at 1 Gb/s per lane.
        let max = s.max_lane_ber_since(9_900.0, 1.0, 1);
        assert!((max[0].unwrap() - 321.0 / 8e9).abs() < 1e-18, "{max:?}");
        assert!((max[1].unwrap() - 1.0 / 1e9).abs() < 1e-18, "{max:?}");
    }

    #[test]
    fn lanes_added_later_drop_times_and_retained_buckets_keep_their_columns() {
        // 8 one-second intervals into 4 buckets: 2 lanes of 1 bit each at first, 4 lanes from
        // the fifth interval on (the bits column widens); 20 drops in the second interval.
        let mut s = LaneSeries::new(4);
        for i in 0..8u32 {
            let t = f64::from(i);
            let bits = [1, 1, 2, 2];
            s.push(&Interval {
                t_start: t,
                t_end: t + 1.0,
                corrected_bits_per_lane: Some(&bits[..if i < 4 { 2 } else { 4 }]),
                link_down_events: if i == 1 { 20 } else { u64::from(i == 6) },
                ..Default::default()
            });
        }
        // Halved once: 4 buckets of 2 intervals.
        assert_eq!(s.intervals_per_bucket, 2);
        let lanes: Vec<Vec<Option<u64>>> = (0..4).map(|k| s.lane_bits(k).collect()).collect();
        assert_eq!(lanes[0], [Some(2), Some(2)]);
        assert_eq!(lanes[1], [Some(2), Some(2)]);
        assert_eq!(lanes[2], [Some(2), Some(2), Some(4), Some(4)]);
        assert_eq!(s.width(), 4);
        // One time per interval with drops: (1, 2] holds 20 events but one time; (6, 7] one.
        assert_eq!(s.buckets()[0].link_down_events, 20);
        assert_eq!(s.bucket_link_down_t(0), [2.0]);
        assert_eq!(s.bucket_link_down_t(3), [7.0]);
        assert_eq!(s.link_down_t(), [2.0, 7.0]);
        // Only the buckets from t = 4 on: the last two, with their lanes and drop time.
        let mut r = s.clone();
        r.retain_from(4.0);
        assert_eq!(r.buckets().len(), 2);
        assert_eq!(r.lane_bits(0).collect::<Vec<_>>(), lanes[2]);
        assert_eq!(r.link_down_t(), [7.0]);
        assert_eq!(r.bucket_link_down_t(1), [7.0]);
        r.forget_before(f64::INFINITY);
        assert!(r.buckets().is_empty() && r.link_down_t().is_empty());
        // A drop in each of 64 intervals into 2 buckets of 32: each keeps its first 16 times.
        let mut d = LaneSeries::new(2);
        for i in 0..64u32 {
            let t = f64::from(i);
            d.push(&Interval { t_start: t, t_end: t + 1.0, link_down_events: 1, ..Default::default() });
        }
        assert_eq!(d.buckets().iter().map(|b| b.link_down_events).collect::<Vec<_>>(), [32, 32]);
        assert_eq!(d.bucket_link_down_t(0), (1..=16).map(f64::from).collect::<Vec<_>>());
        assert_eq!(d.bucket_link_down_t(1), (33..=48).map(f64::from).collect::<Vec<_>>());
    }

    #[test]
    fn counts_past_32_bits_and_saturated_counts_are_kept() {
        // 3e9 bits on lane 1 per interval: past 2^32 from the second; lane 2 at u64::MAX
        // saturates. Capacity 2: halved twice over 8 intervals (4 a bucket).
        let mut s = LaneSeries::new(2);
        for i in 0..8u32 {
            let t = f64::from(i);
            s.push(&Interval {
                t_start: t,
                t_end: t + 1.0,
                corrected_bits_per_lane: Some(&[3_000_000_000, u64::MAX, 1]),
                ..Default::default()
            });
        }
        assert_eq!(s.intervals_per_bucket, 4);
        for k in 0..2 {
            assert_eq!(s.lane_bits(k).collect::<Vec<_>>(), [Some(12_000_000_000), Some(u64::MAX), Some(4)]);
        }
        // Emptied, it equals a fresh series (its columns' layout aside).
        let mut r = s.clone();
        r.forget_before(f64::INFINITY);
        assert_eq!(r, LaneSeries { intervals_per_bucket: 4, ..LaneSeries::new(2) });
    }
}
