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
//! `rx_bits` split per lane where the driver counts them) and the rx power sum/count in
//! mW (mean = sum / count), and the link-down events inside it with their times.

use serde::Serialize;

/// Link-down times kept per bucket; more are counted in `link_down_events` only.
const MAX_DOWN_TIMES: usize = 16;

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LaneBucket {
    /// Corrected bits on this lane over the bucket; `None` = no per-lane counter.
    pub corrected_bits: Option<u64>,
    /// Sum and count of the rx power readings (mW) of the samples ending the bucket's intervals.
    pub rx_power_mw_sum: f64,
    pub rx_power_mw_count: u32,
}

impl LaneBucket {
    pub fn rx_power_mw_mean(&self) -> Option<f64> {
        (self.rx_power_mw_count > 0).then(|| self.rx_power_mw_sum / f64::from(self.rx_power_mw_count))
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SeriesBucket {
    pub t_start: f64,
    pub t_end: f64,
    /// Seconds of sampled intervals in the bucket.
    pub duration_s: f64,
    /// Sample intervals merged into it.
    pub intervals: u32,
    /// Received bits over the bucket (whole port), where the driver counts them.
    pub rx_bits: Option<u64>,
    /// Index 0 = lane 1.
    pub lanes: Vec<LaneBucket>,
    /// Link-down events inside the bucket (counter increases, or up -> down transitions
    /// seen in the samples where no counter exists).
    pub link_down_events: u64,
    /// Times of the first `MAX_DOWN_TIMES` of them.
    pub link_down_t: Vec<f64>,
}

impl SeriesBucket {
    /// Bits on the wire of one lane over the bucket, the BER denominator analysis uses:
    /// the driver's received bits split evenly over `lanes` where counted, else
    /// `lane_rate_gbps` x `duration_s`.
    pub fn lane_bits_on_wire(&self, lane_rate_gbps: f64, lanes: u32) -> f64 {
        match self.rx_bits.filter(|b| *b > 0) {
            Some(rx) if lanes > 0 => rx as f64 / f64::from(lanes),
            _ => lane_rate_gbps * 1e9 * self.duration_s,
        }
    }

    /// The bucket's mid time, where its figures are placed in time.
    pub fn mid_t_s(&self) -> f64 {
        (self.t_start + self.t_end) / 2.0
    }

    /// Pre-FEC BER of lane `lane` (0-based) over the bucket, where its bits are counted.
    pub fn lane_ber(&self, lane: usize, lane_rate_gbps: f64, lanes: u32) -> Option<f64> {
        let k = self.lanes.get(lane)?.corrected_bits?;
        let bits = self.lane_bits_on_wire(lane_rate_gbps, lanes);
        (bits > 0.0).then(|| k as f64 / bits)
    }

    /// Becomes a bucket of one interval, keeping its vectors' buffers (a bucket merged
    /// away by [`LaneSeries::halve`] is reused rather than allocated anew).
    fn start_with(&mut self, iv: &Interval) {
        let (mut lanes, mut link_down_t) = (std::mem::take(&mut self.lanes), std::mem::take(&mut self.link_down_t));
        lanes.clear();
        link_down_t.clear();
        *self = SeriesBucket { t_start: iv.t_start, t_end: iv.t_start, lanes, link_down_t, ..Default::default() };
        self.absorb_interval(iv);
    }

    /// Adds one interval: what absorbing a bucket of that one interval would do, without
    /// building it (once per sample).
    fn absorb_interval(&mut self, iv: &Interval) {
        self.t_end = iv.t_end;
        self.duration_s += iv.t_end - iv.t_start;
        self.intervals += 1;
        self.rx_bits = match (self.rx_bits, iv.rx_bits) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
        let bits = iv.corrected_bits_per_lane.unwrap_or(&[]);
        let n = bits.len().max(iv.rx_power_mw.len());
        if self.lanes.len() < n {
            self.lanes.resize(n, LaneBucket::default());
        }
        // One pass over the lanes (bits and rx power both end at `n`).
        for (i, a) in self.lanes[..n].iter_mut().enumerate() {
            if let Some(k) = bits.get(i) {
                a.corrected_bits = Some(a.corrected_bits.map_or(*k, |x| x.saturating_add(*k)));
            }
            let rx = iv.rx_power_mw.get(i).copied().flatten();
            a.rx_power_mw_sum += rx.unwrap_or(0.0);
            a.rx_power_mw_count += u32::from(rx.is_some());
        }
        self.link_down_events += iv.link_down_events;
        if iv.link_down_events > 0 && self.link_down_t.len() < MAX_DOWN_TIMES {
            self.link_down_t.push(iv.t_end);
        }
    }

    fn absorb(&mut self, o: &SeriesBucket) {
        self.t_end = o.t_end;
        self.duration_s += o.duration_s;
        self.intervals += o.intervals;
        self.rx_bits = match (self.rx_bits, o.rx_bits) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (a, b) => a.or(b),
        };
        if self.lanes.len() < o.lanes.len() {
            self.lanes.resize(o.lanes.len(), LaneBucket::default());
        }
        for (a, b) in self.lanes.iter_mut().zip(&o.lanes) {
            a.corrected_bits = match (a.corrected_bits, b.corrected_bits) {
                (Some(x), Some(y)) => Some(x.saturating_add(y)),
                (x, y) => x.or(y),
            };
            a.rx_power_mw_sum += b.rx_power_mw_sum;
            a.rx_power_mw_count += b.rx_power_mw_count;
        }
        self.link_down_events += o.link_down_events;
        for t in &o.link_down_t {
            if self.link_down_t.len() < MAX_DOWN_TIMES {
                self.link_down_t.push(*t);
            }
        }
    }
}

/// One interval's figures, as the engine hands them over.
#[derive(Clone, Debug, Default)]
pub struct Interval<'a> {
    pub t_start: f64,
    pub t_end: f64,
    pub corrected_bits_per_lane: Option<&'a [u64]>,
    pub rx_bits: Option<u64>,
    pub rx_power_mw: &'a [Option<f64>],
    pub link_down_events: u64,
}

#[derive(Debug, Serialize)]
pub struct LaneSeries {
    pub buckets: Vec<SeriesBucket>,
    /// Sample intervals per bucket at the current resolution (doubles at each merge).
    pub intervals_per_bucket: u32,
    #[serde(skip)]
    capacity: usize,
    /// Buckets merged away by the last halving, kept for their buffers (at most
    /// `capacity / 2`); not part of the series: clones and comparisons ignore them.
    #[serde(skip)]
    spare: Vec<SeriesBucket>,
}

impl Clone for LaneSeries {
    fn clone(&self) -> Self {
        LaneSeries {
            buckets: self.buckets.clone(),
            intervals_per_bucket: self.intervals_per_bucket,
            capacity: self.capacity,
            spare: Vec::new(),
        }
    }
}

impl PartialEq for LaneSeries {
    fn eq(&self, other: &Self) -> bool {
        self.buckets == other.buckets && self.intervals_per_bucket == other.intervals_per_bucket && self.capacity == other.capacity
    }
}

impl LaneSeries {
    /// `capacity` is rounded up to an even number of at least 2.
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(2).div_ceil(2) * 2;
        LaneSeries { buckets: Vec::new(), intervals_per_bucket: 1, capacity, spare: Vec::new() }
    }

    /// Empty again, as `new` of the same capacity makes it (the spare buckets are kept).
    pub fn clear(&mut self) {
        self.buckets.clear();
        self.intervals_per_bucket = 1;
    }

    pub fn capacity(&self) -> usize {
        self.capacity
    }

    pub fn push(&mut self, iv: &Interval) {
        match self.buckets.last_mut() {
            Some(last) if last.intervals < self.intervals_per_bucket => last.absorb_interval(iv),
            _ => {
                if self.buckets.len() == self.capacity {
                    self.halve();
                    return self.push(iv);
                }
                if self.buckets.capacity() == 0 {
                    // The series fills up to `capacity` buckets: grown step by step, the
                    // vector would be copied (and fresh memory touched) ~log2(capacity) times.
                    self.buckets.reserve_exact(self.capacity);
                }
                let mut b = self.spare.pop().unwrap_or_default();
                b.start_with(iv);
                self.buckets.push(b);
            }
        }
    }

    /// Drops the buckets that ended before `t` (a time-bounded series: `serve` fits its
    /// trend over the last hours, not since start); their buffers are kept as spares.
    pub fn forget_before(&mut self, t: f64) {
        let n = self.buckets.iter().take_while(|b| b.t_end < t).count();
        if n == 0 {
            return;
        }
        let room = (self.capacity / 2).saturating_sub(self.spare.len());
        self.spare.extend(self.buckets.drain(..n).take(room));
    }

    /// Per lane (index 0 = lane 1), the highest BER of the buckets that ended at or after
    /// `t` ([`SeriesBucket::lane_ber`]): what a spike shorter than a window leaves, at the
    /// resolution of the buckets.
    pub fn max_lane_ber_since(&self, t: f64, lane_rate_gbps: f64, lanes: u32) -> Vec<Option<f64>> {
        let mut out: Vec<Option<f64>> = Vec::new();
        for b in self.buckets.iter().filter(|b| b.t_end >= t) {
            if out.len() < b.lanes.len() {
                out.resize(b.lanes.len(), None);
            }
            for (i, m) in out.iter_mut().enumerate() {
                if let Some(ber) = b.lane_ber(i, lane_rate_gbps, lanes).filter(|v| v.is_finite()) {
                    *m = Some(m.map_or(ber, |x: f64| x.max(ber)));
                }
            }
        }
        out
    }

    /// Merges adjacent pairs in place: half as many buckets, each twice as long; the
    /// second of each pair goes to `spare`.
    fn halve(&mut self) {
        let n = self.buckets.len();
        // Before step k, slots k..2k hold emptied buckets (taken or swapped out).
        for k in 0..n / 2 {
            let b = std::mem::take(&mut self.buckets[2 * k + 1]);
            self.buckets.swap(k, 2 * k);
            self.buckets[k].absorb(&b);
            self.spare.push(b);
        }
        if n % 2 == 1 {
            self.buckets.swap(n / 2, n - 1);
        }
        self.buckets.truncate(n.div_ceil(2));
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
                rx_power_mw: &[Some(0.5)],
                link_down_events: u64::from(i == 4321),
                ..Default::default()
            });
            assert!(s.buckets.len() <= 8);
        }
        let bits: u64 = s.buckets.iter().map(|b| b.lanes[0].corrected_bits.unwrap()).sum();
        assert_eq!(bits, 30_000);
        assert_eq!(s.buckets.iter().map(|b| b.duration_s).sum::<f64>(), 10_000.0);
        // 10,000 intervals need 2048 per bucket (8 x 1024 = 8192 < 10,000 <= 16,384).
        assert_eq!(s.intervals_per_bucket, 2048);
        assert_eq!(s.buckets[0].t_start, 0.0);
        assert_eq!(s.buckets.last().unwrap().t_end, 10_000.0);
        let down: Vec<f64> = s.buckets.iter().flat_map(|b| b.link_down_t.clone()).collect();
        assert_eq!(down, vec![4322.0]);
        assert_eq!(s.buckets[0].lanes[0].rx_power_mw_mean(), Some(0.5));
        // First bucket: 2048 s x 3 bits/s on a 53.125 Gb/s lane: 6144 / 1.088e14 = 5.647e-11.
        let ber = s.buckets[0].lane_ber(0, 53.125, 1).unwrap();
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
            assert!(s.buckets.len() <= 16);
        }
        // What is kept spans the last ~100 s (plus at most one bucket's width).
        let first = s.buckets[0].t_start;
        assert!(first >= 9_900.0 - f64::from(s.intervals_per_bucket) && first <= 9_900.0, "{first}");
        // 100 s kept in 16 buckets: 8 intervals each (16 x 8 = 128 >= 100 + 8).
        assert_eq!(s.intervals_per_bucket, 8);
        // The spike's bucket: 300 + 7 x 3 = 321 bits over 8 s at 1 Gb/s per lane.
        let max = s.max_lane_ber_since(9_900.0, 1.0, 1);
        assert!((max[0].unwrap() - 321.0 / 8e9).abs() < 1e-18, "{max:?}");
        assert!((max[1].unwrap() - 1.0 / 1e9).abs() < 1e-18, "{max:?}");
    }
}
