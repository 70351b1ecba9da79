//! What a sampling run did, as the end-of-run analysis reports it. Separate from the
//! sampling loop ([`super::watch`], live only) because every build reports a run: a
//! replayed one has no summary, but the types that describe one are shared by `scan`'s
//! output on every platform.

use crate::source::{IoCounts, PathsUsed};
use std::collections::BTreeMap;

/// Why a sampling loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// `--duration` elapsed.
    Duration,
    /// The tick limit was reached.
    MaxTicks,
    /// A stop signal arrived.
    Signal(StopSignal),
    /// The caller looks at a new set of interfaces (`serve` re-discovered them).
    Rediscover,
    /// Every interface sampled is gone.
    AllInterfacesGone,
}

/// What a sampling run did.
#[derive(Clone, Debug, PartialEq)]
pub struct WatchSummary {
    /// Ticks of the sampling clock.
    pub ticks: u64,
    /// Interface samples taken.
    pub samples: u64,
    pub(crate) records: u64,
    pub(crate) error_events: u64,
    /// Interfaces that vanished during the run.
    pub interfaces_gone: Vec<String>,
    /// What the sources did, summed over interfaces.
    pub io: IoCounts,
    /// Module reads the caches issued (part of `io`).
    pub module_io: IoCounts,
    /// Why the run ended.
    pub stopped_by: StopReason,
    /// Remarks per interface (module pages skipped, ...), one sentence each.
    pub notes: Vec<String>,
    /// Which path each layer used per interface, and what the kernel could not give.
    pub paths: BTreeMap<String, PathsUsed>,
}

/// The signals that end a run the way Ctrl-C does, with its analysis printed and every
/// sample written kept: SIGINT and SIGTERM, and those whose default would kill it with
/// nothing: SIGHUP (the SSH session dropped), SIGUSR1/SIGUSR2 (sent by mistake, or by a
/// supervisor), SIGALRM (`timeout -s ALRM`, a stray `alarm`). `serve` stops on the first
/// two and reloads on SIGHUP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopSignal {
    /// SIGINT.
    Int,
    /// SIGTERM.
    Term,
    /// SIGHUP.
    Hup,
    /// SIGUSR1.
    Usr1,
    /// SIGUSR2.
    Usr2,
    /// SIGALRM.
    Alrm,
}

impl StopSignal {
    /// Every stop signal.
    pub const ALL: [StopSignal; 6] =
        [StopSignal::Int, StopSignal::Term, StopSignal::Hup, StopSignal::Usr1, StopSignal::Usr2, StopSignal::Alrm];

    /// The signal's number on this platform.
    pub fn number(self) -> libc::c_int {
        match self {
            StopSignal::Int => libc::SIGINT,
            StopSignal::Term => libc::SIGTERM,
            StopSignal::Hup => libc::SIGHUP,
            StopSignal::Usr1 => libc::SIGUSR1,
            StopSignal::Usr2 => libc::SIGUSR2,
            StopSignal::Alrm => libc::SIGALRM,
        }
    }

    /// The signal with this number, if it is one of [`StopSignal::ALL`].
    pub fn from_number(sig: libc::c_int) -> Option<StopSignal> {
        StopSignal::ALL.into_iter().find(|s| s.number() == sig)
    }

    /// "SIGINT", as logs and messages name it.
    pub(crate) fn name(self) -> &'static str {
        match self {
            StopSignal::Int => "SIGINT",
            StopSignal::Term => "SIGTERM",
            StopSignal::Hup => "SIGHUP",
            StopSignal::Usr1 => "SIGUSR1",
            StopSignal::Usr2 => "SIGUSR2",
            StopSignal::Alrm => "SIGALRM",
        }
    }
}

impl std::fmt::Display for StopSignal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_signal_is_named_and_numbered_once() {
        for s in StopSignal::ALL {
            assert_eq!(StopSignal::from_number(s.number()), Some(s));
            assert_eq!(format!("{s}"), s.name());
        }
        assert_eq!(StopSignal::from_number(libc::SIGKILL), None);
    }
}
