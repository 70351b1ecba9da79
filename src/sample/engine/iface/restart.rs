//! Restarting an interface's fold at its last sample. The interval walker folds an
//! interval's closing sample once, takes the window, and then needs the fold a fresh
//! state would be after that sample alone (the next interval starts there): rather than
//! building a state per interval and folding the start sample into it again, the state
//! forgets what came before the last sample.

use super::{IfaceState, RxSums, Segment, Sentences};
use crate::sample::delta::Point;

impl Sentences {
    fn clear(&mut self) {
        self.items.clear();
        self.dropped = 0;
    }
}

impl RxSums {
    /// Becomes what a fresh sum is after `reading_mw` alone (empty: no reading).
    fn restart(&mut self, reading_mw: &[Option<f64>]) {
        self.lanes = 0;
        self.sum_mw.clear();
        self.count.clear();
        self.add(reading_mw);
    }
}

impl Segment {
    /// What `start_segment` and one sample leave, `last` and `rx_mw` being the point and
    /// rx reading of the segment's last sample. What that sample set alone (module image
    /// and layout, counters at the end, link state, time base, its eye) stays as it is.
    fn restart_at_last_sample(&mut self, last: &Point, rx_mw: &[Option<f64>]) {
        self.started_by = None;
        self.first_t = self.last_t;
        self.samples = 1;
        self.sum.restart_from(last);
        self.rx.restart(rx_mw);
        self.gaps.restart_at(self.last_t);
        // One sample: no up -> down transition yet, and its own link state seen or not.
        self.down_transitions = 0;
        self.link_seen = self.link_up.is_some();
        self.ring.clear();
        // An eye read before the last sample is not that sample's.
        if !self.eye_at_last {
            self.serdes_eye = None;
        }
    }
}

impl IfaceState {
    /// Becomes exactly what a fresh state with the same interface record is after folding
    /// only the last sample folded here: its events, segment breaks, earlier segments,
    /// series and the sums before that sample are forgotten. The segmenter already is that
    /// state's (it keeps only the module and the last t). For states without rolling
    /// windows (the walker's): a fresh one's snapshot ring is not rebuilt.
    pub(crate) fn restart_at_last_sample(&mut self) {
        self.events.clear();
        self.breaks.clear();
        self.module_read_error = None;
        self.earlier.clear();
        self.earlier_dropped = 0;
        // A fresh series: the first sample adds no interval.
        std::sync::Arc::make_mut(&mut self.series).clear();
        self.segments_started = usize::from(self.current.is_some());
        if let Some(seg) = self.current.as_mut() {
            seg.restart_at_last_sample(&self.point, &self.rx_mw);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::capture::SampleRecord;
    use crate::counters::{DriverStats, FecHistogramBin, FecStats, LinkState};
    use crate::sample::delta::{DeltaSum, Point, PointStep};

    /// A sample with FEC corrected bits (total then lanes) and histogram bins, or (`fec`
    /// empty) the driver's corrected-bit counter, and a netlink link-down count.
    fn sample(t: f64, fec: &[u64], bins: &[(u32, u64)], driver_bits: Option<u64>, down: u64) -> SampleRecord {
        let histogram =
            bins.iter().map(|(low, count)| FecHistogramBin { low: *low, high: *low, count: *count, per_lane: vec![] }).collect();
        let fec = (!fec.is_empty()).then(|| FecStats { corrected_bits: fec.to_vec(), histogram, ..Default::default() });
        let mut driver_stats = DriverStats::new();
        if let Some(v) = driver_bits {
            driver_stats.insert("rx_corrected_bits_phy".into(), v);
        }
        SampleRecord { t, fec, driver_stats, link: LinkState { down_events: Some(down), ..Default::default() }, ..Default::default() }
    }

    #[test]
    fn a_sum_restarted_at_its_last_point_is_a_fresh_sum_of_it() {
        let cases: [&[SampleRecord]; 4] = [
            // Increases in one origin each (the usual case: buffers kept).
            &[sample(0.0, &[10, 4, 6], &[(0, 5), (1, 2)], None, 1), sample(1.0, &[30, 14, 16], &[(0, 9), (1, 2)], None, 2)],
            // A 32-bit wrap of the link-down count: its note goes too.
            &[sample(0.0, &[10, 4, 6], &[], None, 0xFFFF_FFF0), sample(1.0, &[10, 4, 6], &[], None, 3)],
            // Corrected bits from netlink, then from the driver: two origins of one series.
            &[sample(0.0, &[10, 4, 6], &[], None, 1), sample(1.0, &[], &[], Some(50), 1)],
            // A histogram bin the last point no longer names.
            &[sample(0.0, &[10, 4, 6], &[(0, 5), (7, 1)], None, 1), sample(1.0, &[11, 5, 6], &[(0, 6)], None, 1)],
        ];
        for samples in cases {
            let mut sum = DeltaSum::default();
            for s in samples {
                sum.push(&Point::from_sample(s), &mut PointStep::default());
            }
            let last = Point::from_sample(samples.last().unwrap());
            sum.restart_from(&last);
            let mut fresh = DeltaSum::default();
            fresh.push(&last, &mut PointStep::default());
            assert_eq!(sum, fresh, "{samples:?}");
            assert_eq!(sum.total(), fresh.total());
        }
    }
}
