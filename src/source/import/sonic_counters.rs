//! SONiC's FEC counter views (sonic-utilities `portstat`, printed with `tabulate`):
//!
//! - `show interfaces counters fec-stats` / `portstat -f`: one row per port, `IFACE  STATE
//!   FEC_CORR  FEC_UNCORR  FEC_SYMBOL_ERR` and, by release, `FEC_PRE_BER  FEC_POST_BER`,
//!   `FEC_PRE_BER_MAX`, `FLR(O)  FLR(P) (Accuracy)`, `FEC_MAX_T`. Corrected and uncorrectable
//!   codewords become the port's FEC blocks (SAI_PORT_STAT_IF_IN_FEC_CORRECTABLE_FRAMES /
//!   _NOT_CORRECTABLE_FRAMES count RS codewords), the symbol errors a counter of their own
//!   (`sonic_fec_symbol_err`); the BER and FLR columns are SONiC's own rates over its poll
//!   interval and are kept as printed (`printed_fields`, `fec-stats/FEC_PRE_BER`), not recomputed.
//! - `show interfaces counters fec-histogram` / `portstat -fh`: the RS codeword histogram, one
//!   row per port (`IFACE  BIN0 .. BIN15`), or for one port (`... fec-histogram Ethernet48`) a
//!   `Symbol Errors Per Codeword  Codewords` table of `BINn  count` rows naming no port (the
//!   port then comes from the file name or `--interface`). Bin n is codewords with n symbol
//!   errors (IEEE 802.3 91.6.1 / 119.2.5.3: RS(544,514) corrects up to 15 symbols).
//!
//! Counts print with thousands commas; `N/A` is no value. Rows are split on whitespace, not on
//! columns, so a paste whose padding collapsed still reads; a `(89%)` cell joins the value
//! before it. Layouts checked on the real outputs in tests/fixtures/switch/.

use super::{Fragment, ParseError, ParseResult};
use crate::counters::{DriverStats, FecHistogramBin, FecSource, FecStats, LinkState};
use std::sync::Arc;

/// The counter the symbol errors are kept under.
pub(crate) const SYMBOL_ERRORS: &str = "sonic_fec_symbol_err";

/// Most ports one output can list: a large chassis has a few hundred (bounded memory).
const MAX_PORTS: usize = 4096;

/// Most histogram bins a row may carry (RS(544,514): 0..=15, and room for a wider code).
const MAX_BINS: usize = 64;

/// Whitespace-split cells; a cell in parentheses (`(89%)`, `(Accuracy)`) joins the one before.
fn cells(line: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in line.split_whitespace() {
        match out.last_mut() {
            Some(last) if t.starts_with('(') => {
                last.push(' ');
                last.push_str(t);
            }
            _ => out.push(t.to_string()),
        }
    }
    out
}

/// `130,402` -> 130402; `N/A` -> none.
fn count(cell: &str) -> ParseResult<Option<u64>> {
    if cell == "N/A" {
        return Ok(None);
    }
    cell.replace(',', "").parse().map(Some).map_err(|_| ParseError::malformed(format!("{cell:?} is not a count")))
}

fn is_rule(line: &str) -> bool {
    let l = line.trim();
    !l.is_empty() && l.chars().all(|c| c == '-' || c == ' ')
}

fn is_fec_stats_heading(cells: &[String]) -> bool {
    cells.first().is_some_and(|c| c == "IFACE") && cells.iter().any(|c| c == "FEC_CORR")
}

fn is_histogram_heading(cells: &[String]) -> bool {
    cells.first().is_some_and(|c| c == "IFACE") && cells.iter().any(|c| c == "BIN0")
}

const ONE_PORT_HEADING: &str = "Symbol Errors Per Codeword";

/// Which of the two views `text` is, if either.
pub(crate) fn recognize(text: &str) -> Option<super::Format> {
    for line in text.lines() {
        let c = cells(line);
        if is_fec_stats_heading(&c) {
            return Some(super::Format::SonicFecStats);
        }
        if is_histogram_heading(&c) || line.trim_start().starts_with(ONE_PORT_HEADING) {
            return Some(super::Format::SonicFecHistogram);
        }
    }
    None
}

/// A table's heading, its rows (the lines under it with as many cells) and what was skipped.
struct Table {
    head: Vec<String>,
    rows: Vec<Vec<String>>,
    notes: Vec<String>,
}

fn table(text: &str, heading: fn(&[String]) -> bool) -> ParseResult<Table> {
    let mut head: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() || is_rule(line) {
            continue;
        }
        let c = cells(line);
        if heading(&c) {
            // Rows are read by the heading's columns: a second table of other columns (two
            // releases' outputs pasted together) would read the first one's rows wrongly.
            if let Some(h) = head.as_ref().filter(|h| **h != c) {
                return Err(ParseError::malformed(format!(
                    "a second `IFACE ...` heading with other columns ({} cells, the first has {}): give each table as its own file",
                    c.len(),
                    h.len()
                )));
            }
            head = Some(c);
            continue;
        }
        let Some(h) = &head else { continue };
        if c.len() != h.len() {
            // `Reminder: ...`, a prompt, or a row cut by the paste.
            if c.first().is_some_and(|p| p.starts_with("Ethernet")) {
                notes.push(format!("{}: {} cells where the heading has {}: row skipped", c[0], c.len(), h.len()));
            }
            continue;
        }
        if rows.len() == MAX_PORTS {
            return Err(ParseError::TooMany { what: "ports in one output", max: MAX_PORTS });
        }
        rows.push(c);
    }
    let head = head.ok_or_else(|| ParseError::missing("`IFACE ...` heading"))?;
    Ok(Table { head, rows, notes })
}

/// `show interfaces counters fec-stats` / `portstat -f`.
pub(crate) fn parse_fec_stats(text: &str) -> ParseResult<Fragment> {
    let Table { head, rows, mut notes } = table(text, is_fec_stats_heading)?;
    let col = |name: &str| head.iter().position(|h| h == name);
    let (corr, uncorr, sym, state) = (col("FEC_CORR"), col("FEC_UNCORR"), col("FEC_SYMBOL_ERR"), col("STATE"));
    let mut ports = Vec::with_capacity(rows.len());
    for row in rows {
        let at = |i: Option<usize>| i.map(|i| row[i].as_str());
        let mut f = Fragment { interface: Some(row[0].clone()), ..Default::default() };
        let mut fec = FecStats::default();
        if let Some(v) = at(corr).map(count).transpose()?.flatten() {
            fec.corrected_blocks = vec![v];
        }
        if let Some(v) = at(uncorr).map(count).transpose()?.flatten() {
            fec.uncorrectable_blocks = vec![v];
        }
        if fec != FecStats::default() {
            f.fec = Some(FecStats { source: Some(FecSource::Sonic), ..fec });
        }
        if let Some(v) = at(sym).map(count).transpose()?.flatten() {
            let mut d = DriverStats::new();
            d.insert(Arc::from(SYMBOL_ERRORS), v);
            f.driver_stats = d;
        }
        // portstat's state letters: U up, D down, X disabled; N/A unknown.
        f.link_state = match at(state) {
            Some("U") => Some(LinkState { up: Some(true), ..Default::default() }),
            Some("D" | "X") => Some(LinkState { up: Some(false), ..Default::default() }),
            _ => None,
        };
        for (h, v) in head.iter().zip(&row).skip(1) {
            f.printed_fields.insert(format!("fec-stats/{h}"), v.clone());
        }
        ports.push(f);
    }
    if ports.is_empty() {
        return Err(ParseError::missing("port row under the `IFACE ... FEC_CORR` heading"));
    }
    if let Some(cached) = text.lines().find_map(|l| l.trim().strip_prefix("Last cached time was ")) {
        notes
            .push(format!("fec-stats: counts since SONiC's cached baseline of {} (`sonic-clear counters`), not since boot", cached.trim()));
    }
    Ok(Fragment { ports, notes, ..Default::default() })
}

/// `BIN7` -> 7.
fn bin(cell: &str) -> Option<u32> {
    cell.strip_prefix("BIN")?.parse().ok()
}

fn histogram(bins: impl Iterator<Item = (u32, u64)>) -> ParseResult<FecStats> {
    let mut histogram = Vec::new();
    for (n, c) in bins {
        if histogram.len() == MAX_BINS {
            return Err(ParseError::TooMany { what: "histogram bins", max: MAX_BINS });
        }
        histogram.push(FecHistogramBin { low: n, high: n, count: c, per_lane: Vec::new() });
    }
    Ok(FecStats { histogram, source: Some(FecSource::Sonic), ..Default::default() })
}

/// `show interfaces counters fec-histogram [PORT]` / `portstat -fh`.
pub(crate) fn parse_fec_histogram(text: &str) -> ParseResult<Fragment> {
    // One port: `BINn  count` rows under `Symbol Errors Per Codeword  Codewords`.
    if text.lines().any(|l| l.trim_start().starts_with(ONE_PORT_HEADING)) {
        let mut bins = Vec::new();
        for line in text.lines() {
            if let [b, c] = cells(line).as_slice() {
                if let Some(n) = bin(b) {
                    if let Some(c) = count(c)? {
                        bins.push((n, c));
                    }
                }
            }
        }
        if bins.is_empty() {
            return Err(ParseError::missing(format!("`BINn  count` row under `{ONE_PORT_HEADING}`")));
        }
        return Ok(Fragment { fec: Some(histogram(bins.into_iter())?), ..Default::default() });
    }
    let Table { head, rows, notes } = table(text, is_histogram_heading)?;
    let bins: Vec<(usize, u32)> = head.iter().enumerate().filter_map(|(i, h)| Some((i, bin(h)?))).collect();
    let mut ports = Vec::with_capacity(rows.len());
    for row in rows {
        let mut counts = Vec::with_capacity(bins.len());
        for &(i, n) in &bins {
            if let Some(c) = count(&row[i])? {
                counts.push((n, c));
            }
        }
        ports.push(Fragment { interface: Some(row[0].clone()), fec: Some(histogram(counts.into_iter())?), ..Default::default() });
    }
    if ports.is_empty() {
        return Err(ParseError::missing("port row under the `IFACE BIN0 ...` heading"));
    }
    Ok(Fragment { ports, notes, ..Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_join_parenthesised_suffixes() {
        assert_eq!(cells("FLR(O)    FLR(P) (Accuracy)    FEC_MAX_T"), ["FLR(O)", "FLR(P) (Accuracy)", "FEC_MAX_T"]);
        assert_eq!(cells("Ethernet0  D  4.21e-10       7.81e-10 (89%)   -1.0"), ["Ethernet0", "D", "4.21e-10", "7.81e-10 (89%)", "-1.0"]);
    }

    #[test]
    fn a_second_heading_of_other_columns_is_an_error_not_a_panic() {
        // Rows under the first heading, read by the second's (wider) columns: out of bounds.
        assert!(parse_fec_histogram("IFACE BIN0\nEthernet0 1\nIFACE X BIN0 BIN1\n").is_err());
        assert!(parse_fec_stats("IFACE FEC_CORR\nEthernet0 1\nIFACE STATE FEC_CORR\n").is_err());
        // The same heading again (two runs in one file) still reads.
        let twice = parse_fec_histogram("IFACE BIN0\nEthernet0 1\nIFACE BIN0\nEthernet4 2\n").unwrap();
        assert_eq!(twice.ports.len(), 2);
    }

    #[test]
    fn counts_with_commas() {
        assert_eq!(count("48,315,381").unwrap(), Some(48_315_381));
        assert_eq!(count("N/A").unwrap(), None);
        assert!(count("1.5").is_err());
    }
}
