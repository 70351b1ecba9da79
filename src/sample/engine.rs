//! TEMPORARY stand-in for the streaming engine (branch h-engine builds the real one with
//! this exact API). It keeps a bounded queue of records per interface and rebuilds
//! windows with [`super::window::window`] on demand: correct, but O(records) per call.
//! The lead replaces this file with the real engine at merge.

use super::capture::Record;
use super::window::{window, TimeRange};
use super::RecordSink;
use crate::analysis::InterfaceWindow;
use std::collections::{BTreeMap, VecDeque};

/// Records kept per interface (stand-in bound; the real engine holds running state).
const MAX_RECORDS: usize = 4096;

#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    pub range: TimeRange,
    /// Rolling windows, in seconds, kept besides the run window.
    pub rolling_s: Vec<f64>,
    pub buckets: usize,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { range: TimeRange::whole(), rolling_s: vec![60.0, 300.0], buckets: 512 }
    }
}

#[derive(Default)]
struct IfaceRecords {
    /// The interface record in force, kept even when the queue has dropped it.
    interface: Option<Record>,
    records: VecDeque<Record>,
    first_seen: usize,
}

pub struct Engine {
    cfg: EngineConfig,
    ifaces: BTreeMap<String, IfaceRecords>,
    seen: usize,
}

impl Engine {
    pub fn new(cfg: EngineConfig) -> Self {
        Engine { cfg, ifaces: BTreeMap::new(), seen: 0 }
    }

    pub fn push(&mut self, rec: &Record) {
        let Some(name) = rec.interface() else { return };
        if !self.ifaces.contains_key(name) {
            self.seen += 1;
            self.ifaces.insert(name.to_string(), IfaceRecords { first_seen: self.seen, ..Default::default() });
        }
        // Inserted just above when missing.
        let Some(st) = self.ifaces.get_mut(name) else { return };
        if matches!(rec, Record::Interface(_)) {
            st.interface = Some(rec.clone());
        }
        st.records.push_back(rec.clone());
        while st.records.len() > MAX_RECORDS {
            st.records.pop_front();
        }
    }

    /// Interfaces in order of first appearance.
    pub fn interfaces(&self) -> Vec<String> {
        let mut v: Vec<(&usize, &String)> = self.ifaces.iter().map(|(n, s)| (&s.first_seen, n)).collect();
        v.sort();
        v.into_iter().map(|(_, n)| n.clone()).collect()
    }

    fn window_of(&self, name: &str, range: TimeRange) -> InterfaceWindow {
        let st = &self.ifaces[name];
        let head = st.interface.iter().filter(|ir| st.records.front() != Some(*ir));
        window(name, head.chain(st.records.iter()), range)
    }

    pub fn windows(&self) -> Vec<InterfaceWindow> {
        self.interfaces().iter().map(|n| self.window_of(n, self.cfg.range)).collect()
    }

    /// Windows over the last `seconds` of each interface's samples.
    pub fn rolling_windows(&self, seconds: f64) -> Vec<InterfaceWindow> {
        self.interfaces()
            .iter()
            .map(|n| {
                let last = self.ifaces[n].records.iter().rev().find_map(|r| matches!(r, Record::Sample(_)).then(|| r.t()).flatten());
                let from = last.map(|t| t - seconds);
                self.window_of(n, TimeRange { from, to: self.cfg.range.to })
            })
            .collect()
    }

    pub fn remove(&mut self, iface: &str) {
        self.ifaces.remove(iface);
    }
}

impl RecordSink for Engine {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        self.push(rec);
        Ok(())
    }
}
