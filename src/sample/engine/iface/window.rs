//! An interface's whole-run window refilled into an existing one. The interval walker
//! keeps a window per interface and refills it per interval, so what stays the same from
//! one interval to the next (name, identity, link of the interface record) is not copied
//! again and the vectors it holds keep their allocations.

use super::{IfaceState, StaticModule};
use crate::analysis::series::LaneSeries;
use crate::analysis::InterfaceWindow;
use crate::counters::PortCounters;
use crate::device::DeviceIdentity;
use std::sync::Arc;

impl IfaceState {
    /// The interface name, identity and link of record `ir` (none: unknown) into `w`,
    /// copied only where they differ from what `w` holds.
    pub(super) fn base_into(&self, ir: Option<&StaticModule>, w: &mut InterfaceWindow) {
        if w.interface != self.name {
            w.interface.clone_from(&self.name);
        }
        let Some(r) = ir.map(|ir| &ir.record) else {
            w.identity = DeviceIdentity::default();
            w.link = Default::default();
            return;
        };
        // Every field of the identity (`InterfaceRecord::identity` copies these seven).
        let DeviceIdentity { driver, bus_info, pci, port, host, ib, neighbor } = &w.identity;
        if (driver, bus_info, pci, port, host, ib, neighbor) != (&r.driver, &r.bus_info, &r.pci, &r.port, &r.host, &r.ib, &r.neighbor) {
            w.identity = r.identity();
        }
        if w.link != r.link {
            w.link.clone_from(&r.link);
        }
    }

    /// [`Self::window`] into `w`, whatever `w` held before: afterwards `w` equals the
    /// window this state gives.
    pub(crate) fn window_into(&self, w: &mut InterfaceWindow) {
        self.base_into(self.latest.as_deref(), w);
        // The rest as in a default window, buffers kept (listed in full, so that a field
        // added to the window cannot be left holding the last interval's value).
        let InterfaceWindow {
            interface: _,
            identity: _,
            link: _,
            module: _,
            module_error: _,
            rx_power_dbm_mean,
            duration_s,
            samples,
            link_up,
            link_ext_state,
            link_ext_substate,
            deltas: _,
            counter_spans,
            counters_at_end: _,
            histogram_delta,
            events,
            series: _,
            serdes_eye: _,
        } = w;
        // `module`, `module_error` and `serdes_eye` are left for `fill` to refresh in place (a kept
        // report reuses its strings and vectors), the counters for `fill` to overwrite
        // (not reset to be overwritten: ~340 bytes each); every path below sets them.
        rx_power_dbm_mean.clear();
        *duration_s = 0.0;
        *samples = 0;
        *link_up = None;
        *link_ext_state = None;
        *link_ext_substate = None;
        histogram_delta.clear();
        counter_spans.clear();
        events.clear();
        self.events.since(f64::NEG_INFINITY, &mut w.events);
        if self.latest.is_none() {
            w.events.push("no interface record in the capture: identity and link unknown".into());
        }
        let Some(last) = &self.current else {
            w.events.push("no samples in the window".into());
            w.module_error = Some("no samples in the window".into());
            w.module = None;
            w.series = None;
            w.serdes_eye = None;
            w.deltas = PortCounters::default();
            w.counters_at_end = PortCounters::default();
            return;
        };
        self.breaks.since(f64::NEG_INFINITY, &mut w.events);
        if self.segments_started > 1 {
            w.events
                .push(format!("deltas use the last {} samples (from t={} s), after the last segment break", last.samples, last.first_t));
        }
        last.fill(w, self.module_read_error.as_ref());
        // The trend reads the buckets of this segment only: one module, one counter run.
        segment_series_into(&self.series, last.first_t, &mut w.series);
    }
}

/// The buckets of `series` from `first_t` on into `out` (`None` when there are none),
/// refilling the series `out` holds where no one else holds it, else sharing `series`
/// when all of it is from `first_t` on.
pub(super) fn segment_series_into(series: &Arc<LaneSeries>, first_t: f64, out: &mut Option<Arc<LaneSeries>>) {
    if !series.buckets().iter().any(|b| b.t_start >= first_t) {
        *out = None;
        return;
    }
    if let Some(s) = out.as_mut().and_then(Arc::get_mut).filter(|s| s.capacity() == series.capacity()) {
        s.clone_from(series);
        s.retain_from(first_t);
        return;
    }
    if series.buckets().iter().all(|b| b.t_start >= first_t) {
        *out = Some(Arc::clone(series));
        return;
    }
    let mut s = LaneSeries::clone(series);
    s.retain_from(first_t);
    *out = Some(Arc::new(s));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::{read_capture, Record};
    use crate::sample::engine::TimeRange;

    /// The first interface of a bundled capture, folded whole.
    fn state(capture: &str, buckets: usize) -> IfaceState {
        let path = format!("{}/captures/{capture}.jsonl", env!("CARGO_MANIFEST_DIR"));
        let cap = read_capture(std::path::Path::new(&path)).unwrap();
        let name = cap.interfaces().remove(0);
        let mut st = IfaceState::new(&name, buckets, &[]);
        let all = TimeRange::whole();
        for rec in cap.records_for(&name) {
            match rec {
                Record::Interface(ir) => st.interface(ir, &all),
                Record::Sample(s) => st.sample(s, &all),
                Record::Event(e) => st.event(e, &all),
                Record::Header(_) => {}
            }
        }
        st
    }

    #[test]
    fn a_window_refilled_over_another_is_the_fresh_window() {
        // Other names, identities, links, modules (CMIS, SFF-8636), segment breaks, series
        // of the same and of another capacity, and a state without a record or a sample.
        let states = [
            state("dr8-800g-cmis-healthy", 64),
            state("sr4-200g-counter-reset", 64),
            state("sr4-200g-module-swap", 16),
            state("pcie-gen4-x4-of-x16", 64),
            IfaceState::new("eth9", 64, &[]),
        ];
        for a in &states {
            for b in &states {
                let mut w = a.window();
                b.window_into(&mut w);
                assert_eq!(w, b.window(), "{} over {}", b.name, a.name);
            }
        }
    }
}
