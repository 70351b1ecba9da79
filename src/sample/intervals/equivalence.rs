//! The walker's windows held to fresh-state windows: each interval's window from the one
//! fold kept per interface (restarted at each closing sample) must equal
//! [`records_window`] of a fresh state fed the interface record in force, the interval's
//! first sample (the copy the walker used to keep), its events and its closing sample,
//! on every bundled capture, imported tool output, and hostile variants: counter resets,
//! time running backwards, a duplicate sample, another module's interface record, page
//! layouts that change, module data gone, link flaps, 32-bit wraps, events between samples
//! (more than the walker keeps), no interface record at all.

use super::{IntervalWalker, MAX_EVENTS};
use crate::analysis::InterfaceWindow;
use crate::capture::{read_capture, EventKind, EventRecord, Record, SampleRecord};
use crate::counters::normalize::known_driver_stats;
use crate::sample::engine::{records_window, StaticModule};
use std::collections::HashMap;
use std::sync::Arc;

#[derive(Default)]
struct Pending {
    interface: Option<Arc<StaticModule>>,
    start: Option<Record>,
    events: Vec<Record>,
}

/// The walker as it was: a fresh engine state per interval over a kept copy of the start.
#[derive(Default)]
struct Oracle {
    per_iface: HashMap<String, Pending>,
}

impl Oracle {
    fn push(&mut self, rec: &Record) -> Option<InterfaceWindow> {
        let name = rec.interface()?;
        let p = self.per_iface.entry(name.to_string()).or_default();
        match rec {
            Record::Interface(ir) => {
                *p = Pending { interface: Some(Arc::new(StaticModule::new(ir.clone()))), ..Default::default() };
            }
            Record::Event(_) => {
                if p.events.len() < MAX_EVENTS {
                    p.events.push(rec.clone());
                }
            }
            Record::Sample(s) => {
                let recs = p.start.iter().chain(&p.events).chain(std::iter::once(rec));
                // The walker's windows carry no lane series.
                let w = InterfaceWindow { series: None, ..records_window(name, p.interface.as_ref(), recs) };
                p.start = Some(Record::Sample(kept_for_interval(s)));
                p.events.clear();
                return Some(w);
            }
            Record::Header(_) => {}
        }
        None
    }
}

/// The start copy the walker kept: of the driver's counters only those the counter model reads.
fn kept_for_interval(s: &SampleRecord) -> SampleRecord {
    SampleRecord { driver_stats: known_driver_stats(&s.driver_stats), ..s.clone() }
}

/// Applies `f` to every `every`-th sample record (the `every`-th, the 2 x `every`-th, ...).
fn edit(records: &[Record], every: usize, f: impl Fn(&mut SampleRecord)) -> Vec<Record> {
    let mut out = records.to_vec();
    let samples = out.iter_mut().filter_map(|r| match r {
        Record::Sample(s) => Some(s),
        _ => None,
    });
    samples.enumerate().filter(|(i, _)| i % every == every - 1).for_each(|(_, s)| f(s));
    out
}

/// Each interface record again after its interface's `at`-th record, changed by `f`.
fn interface_again(records: &[Record], at: usize, f: impl Fn(&mut Record)) -> Vec<Record> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let irs: HashMap<String, Record> = records
        .iter()
        .filter(|r| matches!(r, Record::Interface(_)))
        .map(|r| (r.interface().unwrap_or_default().to_string(), r.clone()))
        .collect();
    for r in records {
        out.push(r.clone());
        let Some(name) = r.interface() else { continue };
        let n = seen.entry(name.to_string()).or_default();
        *n += 1;
        if let (true, Some(ir)) = (*n == at, irs.get(name)) {
            let mut ir = ir.clone();
            f(&mut ir);
            out.push(ir);
        }
    }
    out
}

/// Events of `interface` at `t`, one of each kind the window reads or ignores.
fn events_at(interface: &str, t: f64, n: usize) -> Vec<Record> {
    let kinds = [
        (EventKind::Error, "module read failed: i2c timeout"),
        (EventKind::Error, "fec statistics read failed"),
        (EventKind::InterfaceGone, "gone"),
        (EventKind::CounterReset, "corrected_bits went down"),
    ];
    (0..n)
        .map(|i| {
            let (kind, message) = kinds[i % kinds.len()];
            Record::Event(EventRecord { t, interface: interface.to_string(), kind, message: format!("{message} #{i}"), layer: None })
        })
        .collect()
}

/// `n` events before every `every`-th sample (and before the first record of each interface).
fn with_events(records: &[Record], every: usize, n: usize) -> Vec<Record> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for r in records {
        if let Some(name) = r.interface() {
            let k = seen.entry(name.to_string()).or_default();
            if *k == 0 || (matches!(r, Record::Sample(_)) && (*k).is_multiple_of(every)) {
                out.extend(events_at(name, r.t().unwrap_or(0.0), n));
            }
            *k += 1;
        }
        out.push(r.clone());
    }
    out
}

fn halve(v: &mut [u64]) {
    v.iter_mut().for_each(|x| *x /= 2);
}

/// Hostile variants of a capture's records (the first is the capture itself).
fn variants(records: &[Record]) -> Vec<(&'static str, Vec<Record>)> {
    vec![
        ("as bundled", records.to_vec()),
        (
            "counter reset",
            edit(records, 7, |s| {
                if let Some(f) = s.fec.as_mut() {
                    halve(&mut f.corrected_bits);
                    halve(&mut f.corrected_blocks);
                    f.histogram.iter_mut().for_each(|b| b.count /= 2);
                }
                s.link.down_events = s.link.down_events.map(|d| d / 2);
                s.driver_stats.values_mut().for_each(|v| *v /= 2);
            }),
        ),
        ("time backwards", edit(records, 5, |s| s.t -= 3.0)),
        ("time stands still", edit(records, 6, |s| s.t = (s.t - 1.0).max(0.0).floor())),
        (
            "32-bit wrap",
            edit(records, 1, |s| {
                s.link.down_events = Some(if (s.t.round() as u64).is_multiple_of(3) { 0xFFFF_FFF0 } else { 5 });
            }),
        ),
        (
            "lane count change",
            edit(records, 4, |s| {
                if let Some(f) = s.fec.as_mut() {
                    f.corrected_bits.pop();
                }
            }),
        ),
        (
            "layout changes",
            edit(records, 2, |s| {
                if let Some(m) = s.module.as_mut() {
                    m.pages.pop();
                    // Every other time, a page the static image lacks where the dropped one was.
                    if let (0, Some(mut e)) = (s.t.round() as u64 % 4, m.pages.first().cloned()) {
                        (e.page, e.bank, e.offset, e.data) = (0x24, 0, 128, vec![0x41; 16]);
                        m.pages.push(e);
                    }
                }
            }),
        ),
        ("module data gone", edit(records, 5, |s| s.module = None)),
        (
            "link flaps",
            edit(records, 1, |s| {
                let t = s.t.round() as u64;
                s.link.up = if t.is_multiple_of(3) {
                    Some(false)
                } else if t.is_multiple_of(5) {
                    None
                } else {
                    s.link.up
                };
                s.link.ext_state = Some(5).filter(|_| t.is_multiple_of(3));
                // No netlink count: without a driver one, link-down events are the transitions seen.
                s.link.down_events = None;
            }),
        ),
        ("events between samples", with_events(records, 3, 2)),
        ("more events than kept", with_events(records, 4, MAX_EVENTS + 5)),
        (
            "another module's interface record",
            interface_again(records, 20, |r| {
                if let Record::Interface(ir) = r {
                    // Vendor SN bytes (CMIS page 00h 166-181, SFF-8636 196-211).
                    for e in ir.module.iter_mut().flat_map(|m| &mut m.pages).filter(|e| e.page == 0) {
                        for (i, b) in e.data.iter_mut().enumerate() {
                            let at = usize::from(e.offset) + i;
                            if (166..182).contains(&at) || (196..212).contains(&at) {
                                *b = b'Z';
                            }
                        }
                    }
                }
            }),
        ),
        (
            "interface record without a module",
            interface_again(records, 11, |r| {
                if let Record::Interface(ir) = r {
                    ir.module = None
                }
            }),
        ),
        ("no interface record", records.iter().filter(|r| !matches!(r, Record::Interface(_))).cloned().collect()),
        (
            "no interface record, module data gone",
            edit(&records.iter().filter(|r| !matches!(r, Record::Interface(_))).cloned().collect::<Vec<_>>(), 3, |s| s.module = None),
        ),
    ]
}

/// What the windows covered, so the test knows the hostile paths ran.
#[derive(Default, Debug)]
struct Seen {
    windows: usize,
    breaks: usize,
    capture_events: usize,
    module_errors: usize,
    time_base: usize,
    wraps: usize,
    link_down_from_samples: usize,
}

impl Seen {
    fn add(&mut self, w: &InterfaceWindow) {
        let has = |s: &str| w.events.iter().any(|e| e.contains(s));
        self.windows += 1;
        self.breaks += usize::from(has("after the last segment break"));
        self.capture_events += usize::from(has(": error: ") || has("interface gone"));
        self.module_errors += usize::from(w.module_error.is_some());
        self.time_base += usize::from(has("time base: "));
        self.wraps += usize::from(has("wrapped at 2^32"));
        self.link_down_from_samples +=
            usize::from(w.deltas.link_down_events.as_ref().is_some_and(|c| c.origin == crate::counters::Origin::Samples && c.value > 0));
    }
}

fn check(what: &str, records: &[Record], seen: &mut Seen) {
    let (mut walker, mut oracle) = (IntervalWalker::default(), Oracle::default());
    for (i, rec) in records.iter().enumerate() {
        let want = oracle.push(rec);
        let got = walker.push(rec).map(|(w, _)| w);
        // Debug text where `==` cannot tell (NaN figures compare unequal to themselves).
        if got != want.as_ref() {
            assert_eq!(format!("{got:#?}"), format!("{:#?}", want.as_ref()), "{what}, record {i}");
        }
        want.iter().for_each(|w| seen.add(w));
    }
}

#[test]
fn walker_windows_are_fresh_state_windows() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures"));
    let mut paths: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    paths.sort();
    let mut seen = Seen::default();
    for path in &paths {
        let cap = read_capture(path).unwrap();
        // The first few hundred records of the long captures show all they have to show.
        let records = &cap.records[..cap.records.len().min(400)];
        for (variant, records) in variants(records) {
            check(&format!("{} ({variant})", path.display()), &records, &mut seen);
        }
    }
    assert!(seen.windows > 25_000, "{seen:?}");
    assert!(seen.breaks > 1000 && seen.capture_events > 1000 && seen.module_errors > 100, "{seen:?}");
    assert!(seen.wraps > 100 && seen.link_down_from_samples > 100, "{seen:?}");
}

#[test]
fn walker_windows_of_imported_tool_output_are_fresh_state_windows() {
    use crate::source::import::{import, ImportOptions};
    let fixtures = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/import"));
    let inputs: [(&[&str], ImportOptions); 3] = [
        (&["mlxlink_400g_a.json", "mlxlink_400g_b.json"], ImportOptions::default()),
        (&["mlxlink_400g_a.txt"], ImportOptions { window_s: Some(600.0), ..Default::default() }),
        (&["sosreport"], ImportOptions { since_boot: true, ..Default::default() }),
    ];
    let (mut seen, mut printed) = (Seen::default(), 0);
    for (files, opts) in inputs {
        let paths: Vec<_> = files.iter().map(|f| fixtures.join(f)).collect();
        let cap = import(&paths, &opts).unwrap().capture;
        printed += cap.records.iter().filter(|r| matches!(r, Record::Sample(s) if s.printed_module.is_some())).count();
        for (variant, records) in variants(&cap.records) {
            check(&format!("{files:?} ({variant})"), &records, &mut seen);
        }
    }
    assert!(printed > 0 && seen.time_base > 10 && seen.windows > 100, "{printed} {seen:?}");
}
