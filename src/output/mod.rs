//! Output writers over the same decoded and analysed data: readable text, JSON, CSV,
//! Prometheus metrics and the status page of `optics serve`.
//! Writers never reach back into sources.

pub mod csv;
mod csv_cells;
#[cfg(test)]
mod csv_equivalence;
mod fixed;
mod float_cell;
pub mod html;
mod lane_row;
pub mod live_table;
pub mod metric;
pub mod plot;
pub mod prometheus;
pub mod report;
mod short_copy;
pub mod text;

use serde::Serialize;
use std::io::{self, Write};

/// Pretty JSON followed by a newline. Non-finite floats (e.g. -inf dBm of a dark lane)
/// serialize as `null`, keeping the output strict RFC 8259 JSON.
pub fn write_json<T: Serialize>(w: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, value)?;
    writeln!(w)
}
