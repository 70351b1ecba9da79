//! `compare`: one line per lane, before against after.

use super::escape;
use crate::analysis::compare::Comparison;
use std::io::{self, Write};

pub fn write_comparisons(w: &mut dyn Write, comparisons: &[Comparison]) -> io::Result<()> {
    for c in comparisons {
        writeln!(w, "{}", escape(&c.interface))?;
        for l in &c.lanes {
            writeln!(w, "  {}", escape(&l.summary))?;
        }
    }
    Ok(())
}
