//! What a sampling run did, as the end-of-run analysis reports it. Separate from the
//! sampling loop ([`super::watch`], live only) because every build reports a run: a
//! replayed one has no summary, but the types that describe one are shared by `scan`'s
//! output on every platform.

use crate::source::{IoCounts, PathsUsed};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    Duration,
    MaxTicks,
    /// "SIGINT", "SIGTERM" (a name of the sampling loop's `STOP_SIGNALS`), or whatever the
    /// caller's stop future returned.
    Signal(String),
    AllInterfacesGone,
}

#[derive(Clone, Debug, PartialEq)]
pub struct WatchSummary {
    pub ticks: u64,
    pub samples: u64,
    pub records: u64,
    pub error_events: u64,
    pub interfaces_gone: Vec<String>,
    /// What the sources did, summed over interfaces.
    pub io: IoCounts,
    /// Module reads the caches issued (part of `io`).
    pub module_io: IoCounts,
    pub stopped_by: StopReason,
    /// Remarks per interface (module pages skipped, ...), one sentence each.
    pub notes: Vec<String>,
    /// Which path each layer used per interface, and what the kernel could not give.
    pub paths: BTreeMap<String, PathsUsed>,
}
