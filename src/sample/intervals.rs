//! Windows over consecutive samples of each interface, as records stream past: what one
//! interval of a run looked like (the live `watch` table, margin-over-time plots). Holds
//! per interface only the interface record in force, the interval's first sample and the
//! events since, so memory follows the number of interfaces, not the length of the run.

use super::capture::{Record, SampleRecord};
use super::engine::{records_window, StaticModule};
use crate::analysis::InterfaceWindow;
use crate::counters::normalize::known_driver_stats;
use std::collections::HashMap;
use std::sync::Arc;

/// Events kept per interval; more in one interval are dropped (the window reports the first ones).
const MAX_EVENTS: usize = 16;

#[derive(Default)]
struct Pending {
    /// The interface record in force, its static pages parsed once.
    interface: Option<Arc<StaticModule>>,
    /// The interval's first sample, with only the driver counters the window reads.
    start: Option<Record>,
    samples_since: usize,
    events: Vec<Record>,
}

/// Emits one window every `every` samples of an interface, spanning back to the sample
/// that started the interval (1 = every consecutive pair). The one implementation of
/// "the interval since an earlier sample": the live table, plots and CSV rows use it.
pub struct IntervalWalker {
    every: usize,
    /// A window for the first sample of an interface too (alone: no interval yet).
    first_alone: bool,
    /// Capture events between the interval's samples go into its window.
    events: bool,
    per_iface: HashMap<String, Pending>,
}

impl IntervalWalker {
    pub fn new(every: usize) -> Self {
        IntervalWalker { every: every.max(1), first_alone: false, events: true, per_iface: HashMap::new() }
    }

    /// One window per sample over the interval since the interface's previous sample (the
    /// first sample after an interface record alone), counters only, without capture
    /// events: what a CSV row describes.
    pub fn per_sample() -> Self {
        IntervalWalker { every: 1, first_alone: true, events: false, per_iface: HashMap::new() }
    }

    /// Feeds one record; returns the window of the interval it closes, if it closes one.
    pub fn push(&mut self, rec: &Record) -> Option<InterfaceWindow> {
        let name = rec.interface()?;
        if !self.per_iface.contains_key(name) {
            self.per_iface.insert(name.to_string(), Pending::default());
        }
        // Inserted just above when missing.
        let p = self.per_iface.get_mut(name)?;
        match rec {
            Record::Interface(ir) => {
                // A new interface record means the module or link changed: an interval
                // across it would mix two modules, so the next one starts afresh.
                p.interface = Some(Arc::new(StaticModule::new(ir.clone())));
                p.start = None;
                p.samples_since = 0;
                p.events.clear();
            }
            Record::Event(_) => {
                if self.events && p.events.len() < MAX_EVENTS {
                    p.events.push(rec.clone());
                }
            }
            Record::Sample(s) => {
                let Some(start) = p.start.as_ref() else {
                    p.start = Some(Record::Sample(kept_for_interval(s)));
                    return self.first_alone.then(|| records_window(name, p.interface.as_ref(), std::iter::once(rec)));
                };
                p.samples_since += 1;
                if p.samples_since < self.every {
                    return None;
                }
                let recs = std::iter::once(start).chain(&p.events).chain(std::iter::once(rec));
                let w = records_window(name, p.interface.as_ref(), recs);
                p.start = Some(Record::Sample(kept_for_interval(s)));
                p.samples_since = 0;
                p.events.clear();
                return Some(w);
            }
            Record::Header(_) => {}
        }
        None
    }
}

/// A copy of `s` for the start of an interval: of the driver's counters (hundreds on a
/// multi-queue NIC) only those the counter model reads, which are all a window uses.
fn kept_for_interval(s: &SampleRecord) -> SampleRecord {
    let SampleRecord { t, interface, link, fec, driver_stats, module, origin_file, time_base, printed_module, printed_fields } = s;
    SampleRecord {
        t: *t,
        interface: interface.clone(),
        link: link.clone(),
        fec: fec.clone(),
        driver_stats: known_driver_stats(driver_stats),
        module: module.clone(),
        origin_file: origin_file.clone(),
        time_base: time_base.clone(),
        printed_module: printed_module.clone(),
        printed_fields: printed_fields.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::capture::read_capture;

    #[test]
    fn consecutive_pairs_of_the_marginal_capture() {
        // 61 samples about 1 s apart (the generator jitters timestamps by a few ms): 60 one-second intervals, every other one with `every = 2`.
        let cap =
            read_capture(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures/sr4-200g-lane4-marginal.jsonl"))).unwrap();
        let mut walker = IntervalWalker::new(1);
        let ws: Vec<InterfaceWindow> = cap.records.iter().filter_map(|r| walker.push(r)).collect();
        assert_eq!(ws.len(), 60);
        assert!(ws.iter().all(|w| w.samples == 2 && (w.duration_s - 1.0).abs() < 0.05), "{:?}", ws[0].duration_s);
        let mut walker = IntervalWalker::new(2);
        assert_eq!(cap.records.iter().filter_map(|r| walker.push(r)).count(), 30);
    }
}
