//! Sampling over time, counter deltas (resets, wraps), capture recording and replay.
//!
//! - [`capture`]: the capture format (docs/capture-format.md): record types, writer, tolerant reader.
//! - [`delta`]: counter deltas between samples, segments at resets / module swaps, wraps.
//! - [`engine`]: the streaming fold from records to [`crate::analysis::InterfaceWindow`]s, run and rolling.
//! - [`module_cache`]: read static module pages once, then only monitor bytes.
//! - [`watch`]: the async sampling loop that produces records for [`RecordSink`]s.
//!
//! Live sampling and replay produce the same [`capture::Record`]s, so one path
//! (records -> engine -> windows -> analysis) serves both.

mod by_name;
pub mod capture;
pub mod delta;
pub mod engine;
pub mod intervals;
pub mod module_cache;
mod ticker;
pub mod watch;

use capture::Record;

/// Where sampled records go: the capture writer, a CSV writer, an in-memory `Vec`.
/// One producer, many sinks.
pub trait RecordSink {
    /// Takes one record; a sink that writes to a file flushes before returning, so
    /// every record accepted is on disk if the process is stopped.
    fn record(&mut self, rec: &Record) -> std::io::Result<()>;
    /// Called after every record of one sampling tick was given; `sampling` is the wall
    /// time the tick took. Sinks that act per tick (the exporter's snapshot) hook here.
    fn end_tick(&mut self, _sampling: std::time::Duration) -> std::io::Result<()> {
        Ok(())
    }
}

impl RecordSink for Vec<Record> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        self.push(rec.clone());
        Ok(())
    }
}
