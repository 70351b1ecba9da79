//! The interval stage: per interface, the interval since its previous sample, its
//! window and its lane figures (`RowFigures`), worked out once per sample and handed to
//! every printer that shows intervals (the CSV rows, the live table): printers only
//! format what they are given. Holds per interface only the fold of the current interval
//! (`IntervalFold`: the interface record in force, the interval's first sample and the
//! events since, folded as they come) and the window it last gave, so memory follows the
//! number of interfaces, not the length of the run.

use super::engine::{IntervalFold, StaticModule};
use crate::analysis::lane_rows::{IntervalSink, LaneInterval, RowFigures};
use crate::analysis::{Config, InterfaceWindow};
use crate::capture::{Record, RecordSink};
use indexmap::IndexMap;
use std::sync::Arc;

/// Events kept per interval; more in one interval are dropped (the window reports the first ones).
const MAX_EVENTS: usize = 16;

struct Pending {
    /// The interface record in force and, once `started`, the interval since its first sample.
    fold: IntervalFold,
    started: bool,
    /// Event records taken into the interval.
    events: usize,
    /// The last window [`IntervalWalker::push`] gave, refilled by the next.
    window: InterfaceWindow,
}

impl Pending {
    fn new(name: &str) -> Self {
        Pending { fold: IntervalFold::new(name, None, false), started: false, events: 0, window: InterfaceWindow::default() }
    }

    /// A new interface record `ir` (or none): the next interval starts afresh.
    fn restart(&mut self, name: &str, ir: Option<&Arc<StaticModule>>) {
        self.fold = IntervalFold::new(name, ir, false);
        self.started = false;
        self.events = 0;
    }
}

/// One window per sample of an interface, over the interval since its previous sample
/// (the first sample after an interface record alone), with the capture events between;
/// windows carry no lane series (lane figures never read it). The one implementation of
/// "the interval since the previous sample".
#[derive(Default)]
pub(crate) struct IntervalWalker {
    per_iface: IndexMap<String, Pending>,
}

impl IntervalWalker {
    /// Feeds one record; the window of the interval a sample closes (refilled into one
    /// kept per interface: valid until the next record is pushed), and whether it is the
    /// interface's first sample alone.
    pub(crate) fn push(&mut self, rec: &Record) -> Option<(&InterfaceWindow, bool)> {
        let name = rec.interface()?;
        let i = self.per_iface.get_index_of(name).unwrap_or_else(|| self.per_iface.insert_full(name.to_string(), Pending::new(name)).0);
        let p = &mut self.per_iface[i];
        match rec {
            Record::Interface(ir) => {
                // A new interface record means the module or link changed: an interval
                // across it would mix two modules, so the next one starts afresh.
                p.restart(name, Some(&Arc::new(StaticModule::new(ir.clone()))));
            }
            Record::Event(e) => {
                if p.events < MAX_EVENTS {
                    p.fold.event(e);
                    p.events += 1;
                }
            }
            Record::Sample(s) => {
                p.fold.sample(s);
                p.fold.window_into(&mut p.window);
                // The next interval starts at this sample.
                p.fold.restart();
                p.events = 0;
                let first = !std::mem::replace(&mut p.started, true);
                return Some((&p.window, first));
            }
            Record::Header(_) => {}
        }
        None
    }
}

/// A printer of intervals: it takes every record (the header, events) and the figures of
/// every interval.
pub trait IntervalPrinter: RecordSink + IntervalSink {}

impl<T: RecordSink + IntervalSink + ?Sized> IntervalPrinter for T {}

/// The interval stage: a [`RecordSink`] that gives each record to its printers, then, for
/// a sample, the interval it closes with its lane figures, worked out once for them all.
pub struct IntervalStage<'a> {
    cfg: Config,
    walker: IntervalWalker,
    /// The last interval's figures (refilled: their lanes keep their allocation).
    figures: RowFigures,
    printers: Vec<&'a mut dyn IntervalPrinter>,
}

impl<'a> IntervalStage<'a> {
    /// A stage with no interval seen yet, feeding `printers`.
    pub fn new(cfg: Config, printers: Vec<&'a mut dyn IntervalPrinter>) -> Self {
        IntervalStage { cfg, walker: IntervalWalker::default(), figures: RowFigures::default(), printers }
    }
}

impl RecordSink for IntervalStage<'_> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        for p in self.printers.iter_mut() {
            p.record(rec)?;
        }
        if self.printers.is_empty() {
            return Ok(());
        }
        let Some((window, first)) = self.walker.push(rec) else { return Ok(()) };
        self.figures.refill(window, &self.cfg);
        let iv = LaneInterval { t: rec.t().unwrap_or_default(), first, window, figures: &self.figures };
        self.printers.iter_mut().try_for_each(|p| p.interval(&iv))
    }

    fn end_tick(&mut self, sampling: std::time::Duration) -> std::io::Result<()> {
        self.printers.iter_mut().try_for_each(|p| p.end_tick(sampling))
    }

    fn finish(&mut self) -> std::io::Result<()> {
        self.printers.iter_mut().try_for_each(|p| p.finish())
    }
}

#[cfg(test)]
mod equivalence;
#[cfg(test)]
mod figures;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::read_capture;

    #[test]
    fn consecutive_pairs_of_the_marginal_capture() {
        // 61 samples about 1 s apart (the generator jitters timestamps by a few ms): the
        // first alone, then 60 one-second intervals.
        let cap =
            read_capture(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures/sr4-200g-lane4-marginal.jsonl"))).unwrap();
        let mut walker = IntervalWalker::default();
        let ws: Vec<(InterfaceWindow, bool)> = cap.records.iter().filter_map(|r| walker.push(r).map(|(w, f)| (w.clone(), f))).collect();
        assert_eq!(ws.len(), 61);
        assert!(ws[0].1 && ws[0].0.samples == 1);
        assert!(ws[1..].iter().all(|(w, first)| !first && w.samples == 2 && (w.duration_s - 1.0).abs() < 0.05), "{:?}", ws[1].0.duration_s);
    }
}
