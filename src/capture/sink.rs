//! Where records go: one producer, many sinks.

use super::Record;

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
    /// The stream ended (the run is over, however it ended): close what a sink keeps open
    /// (a compressed capture's last frame). Nothing is given after it.
    fn finish(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl RecordSink for Vec<Record> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        self.push(rec.clone());
        Ok(())
    }
}
