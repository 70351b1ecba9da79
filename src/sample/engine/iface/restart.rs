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
    /// and layout, counters at the end, link state, time base) stays as it is.
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
    }
}

impl IfaceState {
    /// Becomes exactly what a fresh state with the same interface record is after folding
    /// only the last sample folded here: its events, segment breaks, earlier segments,
    /// series and the sums before that sample are forgotten. The segmenter already is that
    /// state's (it keeps only the module and the last t). For states without rolling
    /// windows (the walker's): a fresh one's snapshot ring is not rebuilt.
    pub fn restart_at_last_sample(&mut self) {
        self.events.clear();
        self.breaks.clear();
        self.module_read_error = None;
        self.earlier.clear();
        self.earlier_dropped = 0;
        // A fresh series (`LaneSeries::new` of the same capacity): the first sample adds no interval.
        self.series.buckets.clear();
        self.series.intervals_per_bucket = 1;
        self.segments_started = usize::from(self.current.is_some());
        if let Some(seg) = self.current.as_mut() {
            seg.restart_at_last_sample(&self.point, &self.rx_mw);
        }
    }
}
