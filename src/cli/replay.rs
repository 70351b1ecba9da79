//! A capture into an engine: streamed from a file or a pipe (bounded memory, every record
//! also handed to the run's sinks as it is read), or folded from an imported capture held
//! in memory. The analysing subcommands and `--peer` share it.

use super::inputs::{open_capture, Opened};
use anyhow::Context;
use optics::capture::{Capture, CaptureReader, RecordSink};
use optics::sample::engine::{Engine, EngineConfig, Replayed, TimeRange};
use std::path::Path;

/// Streams a capture into a fresh engine over `range`; the records of the chosen
/// interfaces (all when `only` is empty) also go to `sinks` as they are read
/// ([`stream_capture`]). The file is opened once (a pipe works).
pub fn replay_capture(
    path: &Path,
    range: TimeRange,
    only: &[String],
    sinks: &mut [&mut dyn RecordSink],
) -> anyhow::Result<(Engine, Replayed)> {
    replay_opened(open_capture(path)?, path, range, only, sinks)
}

/// [`replay_capture`] of a capture already opened (its header read).
pub fn replay_opened(
    reader: CaptureReader<Opened>,
    path: &Path,
    range: TimeRange,
    only: &[String],
    sinks: &mut [&mut dyn RecordSink],
) -> anyhow::Result<(Engine, Replayed)> {
    let mut engine = Engine::new(EngineConfig { range, ..Default::default() });
    let done = stream_capture(reader, path, &mut engine, only, sinks)?;
    Ok((engine, done))
}

/// Streams an opened capture: every record goes to `all`, those of the chosen interfaces
/// (all when `only` is empty) also to `sinks`, as they are read. What the reader tolerated
/// (a truncated last line) goes to stderr so the user knows the capture was cut short. A
/// bad line is an error of the capture; a sink's failure is the sink's own (it names
/// itself, or is said to be an output), never blamed on the capture. A stop signal, where
/// the run catches them ([`super::stop`]), ends the stream between two records.
pub fn stream_capture(
    mut reader: CaptureReader<Opened>,
    path: &Path,
    all: &mut dyn RecordSink,
    only: &[String],
    sinks: &mut [&mut dyn RecordSink],
) -> anyhow::Result<Replayed> {
    while super::stop::caught().is_none() {
        let Some(rec) = reader.next_record().with_context(|| format!("capture {}", path.display()))? else { break };
        all.record(&rec).context("writing an output")?;
        if only.is_empty() || rec.interface().is_some_and(|i| only.iter().any(|n| n == i)) {
            for s in sinks.iter_mut() {
                s.record(&rec).context("writing an output")?;
            }
        }
    }
    let done = Replayed { header: reader.header().clone(), notes: reader.notes().to_vec() };
    for note in &done.notes {
        super::diag(format_args!("optics: note: {}: {}", path.display(), optics::output::text::escape(note)));
    }
    Ok(done)
}

/// An in-memory capture (imported tool output: small) folded into a fresh engine over `range`.
pub fn engine_of(cap: &Capture, range: TimeRange) -> Engine {
    let mut engine = Engine::new(EngineConfig { range, ..Default::default() });
    cap.records.iter().for_each(|r| engine.push(r));
    engine
}
