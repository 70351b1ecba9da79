//! One interface's fold over one interval at a time: what the interval stage's walker
//! ([`crate::sample::intervals::IntervalWalker`]) keeps per interface. The window of an
//! interval is that of a fresh engine state fed the interface record in force, the
//! interval's first sample, the events between and its closing sample; this state is
//! that one, kept across intervals: after each window it restarts at the closing sample
//! ([`IfaceState::restart_at_last_sample`]), so each sample is folded once and no state
//! is built per interval.

use super::iface::{IfaceState, StaticModule};
use super::TimeRange;
use crate::analysis::InterfaceWindow;
use crate::capture::{EventRecord, SampleRecord};
use std::sync::Arc;

/// Series buckets of an interval's window (its one interval fits).
const BUCKETS: usize = 2;

#[derive(Debug)]
pub(crate) struct IntervalFold {
    state: IfaceState,
}

impl IntervalFold {
    /// Before any sample of `iface`, under interface record `ir` (none seen yet: `None`);
    /// `series`: the windows carry the interval's lane series (else none: `series: None`).
    pub(crate) fn new(iface: &str, ir: Option<&Arc<StaticModule>>, series: bool) -> Self {
        let mut state = IfaceState::new(iface, BUCKETS, &[]);
        state.keep_series = series;
        if let Some(ir) = ir {
            state.interface_static(Arc::clone(ir));
        }
        IntervalFold { state }
    }

    pub(crate) fn event(&mut self, e: &EventRecord) {
        self.state.event(e, &TimeRange::whole());
    }

    pub(crate) fn sample(&mut self, s: &SampleRecord) {
        self.state.sample(s, &TimeRange::whole());
    }

    /// The window over what was folded since the interval's first sample, into `w` (its
    /// buffers reused: the stage refills one window per interface).
    pub(crate) fn window_into(&self, w: &mut InterfaceWindow) {
        self.state.window_into(w);
    }

    /// The next interval starts at the last sample folded: as if the fold were
    /// [`Self::new`] then that sample alone.
    pub(crate) fn restart(&mut self) {
        self.state.restart_at_last_sample();
    }
}
