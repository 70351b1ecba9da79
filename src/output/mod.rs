//! Output writers over the same decoded and analysed data: readable text, JSON, CSV,
//! Prometheus metrics and the status page of `optics serve`.
//! Writers never reach back into sources.

pub mod csv;
mod csv_text;
pub(crate) mod host;
pub(crate) mod html;
mod lane_row;
pub mod live_table;
pub mod metric;
pub mod plot;
pub mod prometheus;
pub mod report;
pub mod text;

use serde::Serialize;
use std::io::{self, Write};

/// Pretty JSON followed by a newline. Non-finite floats (e.g. -inf dBm of a dark lane)
/// serialize as `null`, keeping the output strict RFC 8259 JSON.
pub fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)?;
    writeln!(w)
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::analysis::lane_rows::{row_figures, IntervalSink, LaneInterval};
    use crate::analysis::{Config, InterfaceWindow};
    use crate::capture::{Record, RecordSink};
    use crate::sample::engine::records_window;
    use std::collections::HashMap;

    /// `records` into `printer` as the interval stage hands them, each interval's window
    /// built afresh from the records it spans (the interface record in force, the previous
    /// sample, the events between, the closing sample: what the stage's own fold is held
    /// to) and its figures worked out alone.
    pub(crate) fn print<P: RecordSink + IntervalSink>(records: &[Record], printer: &mut P) {
        let cfg = Config::default();
        // Per interface: the interface record in force, the previous sample, the events since.
        type Spanned<'a> = (Option<&'a Record>, Option<&'a Record>, Vec<&'a Record>);
        let mut last: HashMap<&str, Spanned<'_>> = HashMap::new();
        for r in records {
            printer.record(r).unwrap();
            let Some(name) = r.interface() else { continue };
            let (ir, prev, events) = last.entry(name).or_default();
            match r {
                Record::Interface(_) => (*ir, *prev, *events) = (Some(r), None, Vec::new()),
                Record::Event(_) => events.push(r),
                Record::Sample(s) => {
                    let spanned = ir.iter().chain(prev.iter()).chain(events.iter()).copied().chain([r]);
                    let window = InterfaceWindow { series: None, ..records_window(name, None, spanned) };
                    let figures = row_figures(&window, &cfg);
                    printer.interval(&LaneInterval { t: s.t, first: prev.is_none(), window: &window, figures: &figures }).unwrap();
                    (*prev, *events) = (Some(r), Vec::new());
                }
                Record::Header(_) => {}
            }
        }
        printer.finish().unwrap();
    }

    /// The bundled captures (captures/*.jsonl), sorted.
    pub(crate) fn bundled_captures() -> Vec<std::path::PathBuf> {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures"));
        let mut paths: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
        paths.sort();
        paths
    }
}
