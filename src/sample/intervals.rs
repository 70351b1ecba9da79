//! Windows over consecutive samples of each interface, as records stream past: what one
//! interval of a run looked like (the live `watch` table, margin-over-time plots). Holds
//! per interface only the fold of the current interval ([`IntervalFold`]: the interface
//! record in force, the interval's first sample and the events since, folded as they
//! come) and the last window it gave, so memory follows the number of interfaces, not
//! the length of the run.

use super::by_name::ByName;
use super::engine::{IntervalFold, StaticModule};
use crate::analysis::InterfaceWindow;
use crate::capture::Record;
use std::sync::Arc;

/// Events kept per interval; more in one interval are dropped (the window reports the first ones).
const MAX_EVENTS: usize = 16;

struct Pending {
    /// The interface record in force and, once `started`, the interval since its first sample.
    fold: IntervalFold,
    started: bool,
    samples_since: usize,
    /// Event records taken into the interval.
    events: usize,
    /// The last window [`IntervalWalker::push_in_place`] gave, refilled by the next.
    window: InterfaceWindow,
}

impl Pending {
    fn new(name: &str, series: bool) -> Self {
        Pending {
            fold: IntervalFold::new(name, None, series),
            started: false,
            samples_since: 0,
            events: 0,
            window: InterfaceWindow::default(),
        }
    }

    /// A new interface record `ir` (or none): the next interval starts afresh.
    fn restart(&mut self, name: &str, ir: Option<&Arc<StaticModule>>, series: bool) {
        self.fold = IntervalFold::new(name, ir, series);
        self.started = false;
        self.samples_since = 0;
        self.events = 0;
    }

    /// After the window of the interval the last sample closed: the next starts at it.
    fn next_interval(&mut self) {
        self.fold.restart();
        self.samples_since = 0;
        self.events = 0;
    }
}

/// Emits one window every `every` samples of an interface, spanning back to the sample
/// that started the interval (1 = every consecutive pair; the samples between are not
/// part of it). The one implementation of "the interval since an earlier sample": the
/// live table, plots and CSV rows use it.
pub struct IntervalWalker {
    every: usize,
    /// A window for the first sample of an interface too (alone: no interval yet).
    first_alone: bool,
    /// Capture events between the interval's samples go into its window.
    events: bool,
    /// Windows carry their lane series (the trend's input).
    series: bool,
    per_iface: ByName<Pending>,
}

impl IntervalWalker {
    pub fn new(every: usize) -> Self {
        IntervalWalker { every: every.max(1), first_alone: false, events: true, series: true, per_iface: ByName::default() }
    }

    /// One window per sample over the interval since the interface's previous sample (the
    /// first sample after an interface record alone), counters only, without capture
    /// events: what a CSV row describes.
    pub fn per_sample() -> Self {
        IntervalWalker { every: 1, first_alone: true, events: false, series: true, per_iface: ByName::default() }
    }

    /// Windows without their lane series (`series: None`), for what reads only lane rows
    /// ([`crate::analysis::lane_rows`] never reads it): no series is kept or copied.
    pub fn without_series(mut self) -> Self {
        self.series = false;
        self
    }

    /// Feeds one record; returns the window of the interval it closes, if it closes one.
    pub fn push(&mut self, rec: &Record) -> Option<InterfaceWindow> {
        let p = self.fold(rec)?;
        let w = p.fold.window();
        p.next_interval();
        Some(w)
    }

    /// [`Self::push`], the window refilled into one kept per interface (the strings and
    /// vectors of the last one reused): valid until the next record is pushed.
    pub fn push_in_place(&mut self, rec: &Record) -> Option<&InterfaceWindow> {
        let p = self.fold(rec)?;
        p.fold.window_into(&mut p.window);
        p.next_interval();
        Some(&p.window)
    }

    /// Folds `rec` into its interface's interval; that interface's state when `rec`
    /// closes the interval (or is a first sample with a window of its own).
    fn fold(&mut self, rec: &Record) -> Option<&mut Pending> {
        let name = rec.interface()?;
        let series = self.series;
        let p = self.per_iface.get_or_insert_with(name, || Pending::new(name, series));
        match rec {
            Record::Interface(ir) => {
                // A new interface record means the module or link changed: an interval
                // across it would mix two modules, so the next one starts afresh.
                p.restart(name, Some(&Arc::new(StaticModule::new(ir.clone()))), series);
            }
            Record::Event(e) => {
                if self.events && p.events < MAX_EVENTS {
                    p.fold.event(e);
                    p.events += 1;
                }
            }
            Record::Sample(s) => {
                if !p.started {
                    // The interval's first sample (`first_alone` walkers take no events,
                    // so its lone window holds none and the next interval starts here).
                    p.fold.sample(s);
                    p.started = true;
                    return self.first_alone.then_some(p);
                }
                p.samples_since += 1;
                if p.samples_since < self.every {
                    return None;
                }
                p.fold.sample(s);
                return Some(p);
            }
            Record::Header(_) => {}
        }
        None
    }
}

#[cfg(test)]
mod equivalence;

/// The bundled captures (captures/*.jsonl), sorted.
#[cfg(test)]
pub(crate) fn bundled_captures() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures"));
    let mut paths: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::read_capture;

    #[test]
    fn windows_without_series_are_the_windows_less_their_series() {
        let mut windows = 0;
        for path in bundled_captures() {
            for every in [1, 3] {
                let (mut with, mut without) = (IntervalWalker::new(every), IntervalWalker::new(every).without_series());
                for r in read_capture(&path).unwrap().records {
                    let (a, b) = (with.push(&r), without.push_in_place(&r).cloned());
                    let Some(mut a) = a else {
                        assert!(b.is_none());
                        continue;
                    };
                    a.series = None;
                    assert_eq!(Some(a), b, "{}", path.display());
                    windows += 1;
                }
            }
        }
        assert!(windows > 400, "{windows} windows");
    }

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
