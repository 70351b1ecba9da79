//! `compare`: one line per lane, before against after.

use super::escape;
use crate::analysis::compare::Comparison;
use std::io::{self, Write};

/// Writes `compare`'s text: per interface its name (before -> after when renamed), the notes (module swap, verdict change), then one line per lane.
pub fn write_comparisons(w: &mut dyn Write, comparisons: &[Comparison]) -> io::Result<()> {
    for c in comparisons {
        if c.interface_before == c.interface {
            writeln!(w, "{}", escape(&c.interface))?;
        } else {
            writeln!(w, "{} -> {}", escape(&c.interface_before), escape(&c.interface))?;
        }
        // Module swap, verdict change.
        for n in &c.notes {
            writeln!(w, "  {}", escape(n))?;
        }
        for l in &c.lanes {
            writeln!(w, "  {}", escape(&l.summary))?;
        }
    }
    Ok(())
}
