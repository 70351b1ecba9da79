//! Sampling over time, counter deltas (resets, wraps), capture recording and replay.
//!
//! - [`capture`]: the capture format (docs/capture-format.md): record types, writer, tolerant reader.
//! - [`delta`]: counter deltas between samples, segments at resets / module swaps, wraps.
//! - [`window`]: [`crate::analysis::InterfaceWindow`]s built from a capture's records.
//! - [`module_cache`]: read static module pages once, then only monitor bytes.
//! - [`watch`]: the async sampling loop that produces records for [`RecordSink`]s.
//!
//! Live sampling and replay produce the same [`capture::Record`]s, so one path
//! (records -> windows -> analysis) serves both.

pub mod capture;
pub mod delta;
pub mod intervals;
pub mod module_cache;
pub mod watch;
pub mod window;

use capture::Record;

/// Where sampled records go: the capture writer, a CSV writer, an in-memory `Vec`.
/// One producer, many sinks.
pub trait RecordSink {
    /// Takes one record; a sink that writes to a file flushes before returning, so
    /// every record accepted is on disk if the process is stopped.
    fn record(&mut self, rec: &Record) -> std::io::Result<()>;
}

impl RecordSink for Vec<Record> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        self.push(rec.clone());
        Ok(())
    }
}
