//! Windows over consecutive samples of each interface, as records stream past: what one
//! interval of a run looked like (the live `watch` table, margin-over-time plots). Holds
//! per interface only the interface record in force, the interval's first sample and the
//! events since, so memory follows the number of interfaces, not the length of the run.

use super::capture::{Record, SampleRecord};
use super::window::{window, TimeRange};
use crate::analysis::InterfaceWindow;
use std::collections::HashMap;

/// Events kept per interval; more in one interval are dropped (the window reports the first ones).
const MAX_EVENTS: usize = 16;

#[derive(Default)]
struct Pending {
    interface: Option<Record>,
    start: Option<SampleRecord>,
    samples_since: usize,
    events: Vec<Record>,
}

/// Emits one window every `every` samples of an interface, spanning back to the sample
/// that started the interval (1 = every consecutive pair).
pub struct IntervalWalker {
    every: usize,
    per_iface: HashMap<String, Pending>,
}

impl IntervalWalker {
    pub fn new(every: usize) -> Self {
        IntervalWalker { every: every.max(1), per_iface: HashMap::new() }
    }

    /// Feeds one record; returns the window of the interval it closes, if it closes one.
    pub fn push(&mut self, rec: &Record) -> Option<InterfaceWindow> {
        let name = rec.interface()?.to_string();
        let p = self.per_iface.entry(name.clone()).or_default();
        match rec {
            Record::Interface(_) => {
                // A new interface record means the module or link changed: an interval
                // across it would mix two modules, so the next one starts afresh.
                p.interface = Some(rec.clone());
                p.start = None;
                p.samples_since = 0;
                p.events.clear();
            }
            Record::Event(_) => {
                if p.events.len() < MAX_EVENTS {
                    p.events.push(rec.clone());
                }
            }
            Record::Sample(s) => {
                let Some(start) = p.start.as_ref() else {
                    p.start = Some(s.clone());
                    return None;
                };
                p.samples_since += 1;
                if p.samples_since < self.every {
                    return None;
                }
                let start = Record::Sample(start.clone());
                let recs = p.interface.iter().chain(std::iter::once(&start)).chain(&p.events).chain(std::iter::once(rec));
                let w = window(&name, recs, TimeRange::whole());
                p.start = Some(s.clone());
                p.samples_since = 0;
                p.events.clear();
                return Some(w);
            }
            Record::Header(_) => {}
        }
        None
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
