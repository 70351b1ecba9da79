//! The readable reports of `scan`/`watch` and `compare`, fitted to the terminal.
//!
//! One interface: its detail, in the order an engineer descends — verdict, PCIe,
//! link/FEC, module, the lanes weakest first, then reasons and advice. Several: a
//! one-line-per-port table worst first, then the detail of the ports that are not
//! accepted (all of them with `all`).

mod compare;
mod detail;
mod fleet;
mod lanes;
pub mod module;
pub(crate) mod style;
pub(crate) mod wrap;

pub use compare::write_comparisons;
pub use fleet::worst_first;
pub use wrap::escape;

use crate::analysis::{InterfaceAnalysis, Verdict};
use std::io::{self, Write};

/// The width used when stdout is not a terminal and `COLUMNS` is unset.
pub const DEFAULT_WIDTH: usize = 100;
/// Narrower than this the tables cannot be laid out; lines may then overflow.
pub(crate) const MIN_WIDTH: usize = 40;

/// How the text writers lay out their output.
#[derive(Clone, Copy, Debug)]
pub struct TextOptions {
    /// Terminal columns to fit (at least 40 are used).
    pub width: usize,
    /// ANSI colour on the verdicts and flags.
    pub color: bool,
    /// Per-source counter provenance.
    pub verbose: bool,
    /// Detail for every port, not only those that are not accepted.
    pub all: bool,
}

impl Default for TextOptions {
    fn default() -> Self {
        TextOptions { width: DEFAULT_WIDTH, color: false, verbose: false, all: false }
    }
}

impl TextOptions {
    fn width(&self) -> usize {
        self.width.max(MIN_WIDTH)
    }

    fn painter(&self) -> style::Painter {
        style::Painter { color: self.color }
    }
}

/// Writes `scan`'s text: one interface in detail, or the fleet table worst first and the detail of each port not accepted (every port with `all`).
pub fn write_scan(w: &mut dyn Write, analyses: &[InterfaceAnalysis], opts: &TextOptions) -> io::Result<()> {
    if analyses.len() == 1 {
        return detail::write_interface(w, &analyses[0], opts);
    }
    let order = fleet::worst_first(analyses);
    fleet::write_table(w, &order, opts)?;
    let shown: Vec<&InterfaceAnalysis> = order.iter().copied().filter(|a| opts.all || a.verdict != Verdict::Accept).collect();
    for a in &shown {
        writeln!(w)?;
        detail::write_interface(w, a, opts)?;
    }
    let hidden = order.len() - shown.len();
    if hidden > 0 {
        writeln!(w)?;
        let s = if hidden == 1 { "" } else { "s" };
        for line in wrap::wrap(&format!("{hidden} accepted port{s} not detailed (--all shows every port)."), opts.width()) {
            writeln!(w, "{line}")?;
        }
    }
    Ok(())
}

/// "2.81e-7", "n/a".
pub(crate) fn sci(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map(|x| format!("{x:.2e}")).unwrap_or_else(|| "n/a".into())
}

/// Fixed decimals, "-inf" (a dark lane's dBm), "n/a".
pub(crate) fn num(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.decimals$}"),
        Some(x) if x == f64::NEG_INFINITY => "-inf".into(),
        _ => "n/a".into(),
    }
}

/// A BER with no errors counted is shown as its upper bound: `<9.40e-13`.
fn ber_text(corrected: Option<u64>, ber: Option<f64>, upper: Option<f64>) -> String {
    match (corrected, upper) {
        (Some(0), Some(u)) => format!("<{u:.2e}"),
        _ => sci(ber),
    }
}

/// A margin from a zero-error upper bound is a floor on the real margin: `>3.06`.
fn margin_text(margin: Option<f64>, lower_bound: bool) -> String {
    match margin {
        Some(m) if lower_bound && m.is_finite() => format!(">{m:.2}"),
        other => num(other, 2),
    }
}

pub(crate) fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Accept => "ACCEPT",
        Verdict::Investigate => "INVESTIGATE",
        Verdict::Reject => "REJECT",
    }
}

/// Writes `label` then `text` wrapped to the width, continuation lines under the text.
fn field(w: &mut dyn Write, label: &str, text: &str, width: usize) -> io::Result<()> {
    const INDENT: usize = 11;
    let text = escape(text);
    for (i, line) in wrap::wrap(&text, width.saturating_sub(INDENT)).iter().enumerate() {
        if i == 0 {
            writeln!(w, "  {label:<8} {line}")?;
        } else {
            writeln!(w, "{:INDENT$}{line}", "")?;
        }
    }
    Ok(())
}
