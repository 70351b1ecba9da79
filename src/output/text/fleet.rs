//! Many ports at once: one line per port, worst first, so a node with eight NICs is
//! summarised in eight lines.

use super::style::Tone;
use super::wrap::{cols, fit, pack};
use super::{escape, margin_text, verdict_word, TextOptions};
use crate::analysis::fec::FecKind;
use crate::analysis::profile::pcie_generation;
use crate::analysis::verdict::verdict_codes;
use crate::analysis::InterfaceAnalysis;
use std::cmp::Ordering;
use std::io::{self, Write};

/// Worst verdict first, then the smallest worst-lane margin (none last), then the name.
pub fn worst_first(analyses: &[InterfaceAnalysis]) -> Vec<&InterfaceAnalysis> {
    let mut v: Vec<&InterfaceAnalysis> = analyses.iter().collect();
    let margin = |a: &InterfaceAnalysis| a.lanes.first().and_then(|l| l.margin_db).or(a.link.margin_db);
    v.sort_by(|a, b| {
        b.verdict
            .cmp(&a.verdict)
            .then_with(|| match (margin(a), margin(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            })
            .then_with(|| a.interface.cmp(&b.interface))
    });
    v
}

fn fec_short(f: Option<FecKind>) -> &'static str {
    match f {
        Some(FecKind::Rs544) => "RS544",
        Some(FecKind::Rs528) => "RS528",
        Some(FecKind::BaseR) => "BASE-R",
        Some(FecKind::Llrs) => "LL-RS",
        Some(FecKind::Off) => "off",
        Some(FecKind::Unknown) | None => "?",
    }
}

/// The cells of one port's line, in column order (reasons last).
fn cells(a: &InterfaceAnalysis) -> [String; 8] {
    let l = &a.link;
    let speed = l.speed_mbps.map(|s| if s % 1000 == 0 { format!("{}G", s / 1000) } else { format!("{s}M") }).unwrap_or_else(|| "?".into());
    let worst = a.lanes.first().filter(|w| w.margin_db.is_some());
    let p = &a.pcie;
    let pcie = match (p.current_speed_gts.and_then(pcie_generation), p.current_width) {
        (Some(g), Some(wd)) => format!("Gen{g} x{wd}{}", if p.degraded { "!" } else { "" }),
        (None, Some(wd)) => format!("x{wd}"),
        _ => "-".into(),
    };
    let ber = super::ber_text(l.corrected_bits, l.pre_fec_ber, l.pre_fec_ber_upper);
    [
        escape(&a.interface).into_owned(),
        verdict_word(a.verdict).into(),
        speed,
        fec_short(l.fec).into(),
        worst.map(|w| w.lane.to_string()).unwrap_or_else(|| "-".into()),
        worst
            .map(|w| margin_text(w.margin_db, w.margin_is_lower_bound))
            .unwrap_or_else(|| margin_text(l.margin_db, l.margin_is_lower_bound)),
        ber,
        pcie,
    ]
}

const HEADERS: [&str; 8] = ["interface", "verdict", "speed", "FEC", "lane", "margin", "port BER", "PCIe"];
/// Columns right-aligned (numbers).
const RIGHT: [bool; 8] = [false, false, true, false, true, true, true, false];

pub(crate) fn write_table(w: &mut dyn Write, order: &[&InterfaceAnalysis], opts: &TextOptions) -> io::Result<()> {
    let width = opts.width();
    let paint = opts.painter();
    let rows: Vec<[String; 8]> = order.iter().map(|a| cells(a)).collect();
    let mut widths: Vec<usize> = HEADERS.iter().map(|h| cols(h)).collect();
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(cols(c));
        }
    }
    // A long (or escaped) name may take at most a quarter of the line.
    widths[0] = widths[0].min(width / 4);
    let line = |cells: &[String]| -> String {
        cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let c = fit(c, widths[i]);
                if RIGHT[i] {
                    format!("{c:>w$}", w = widths[i])
                } else {
                    format!("{c:<w$}", w = widths[i])
                }
            })
            .collect::<Vec<_>>()
            .join("  ")
    };
    let reasons_at = widths.iter().sum::<usize>() + 2 * widths.len();
    let head: Vec<String> = HEADERS.iter().map(|h| h.to_string()).collect();
    writeln!(w, "{}  reasons", line(&head))?;
    for (a, r) in order.iter().zip(&rows) {
        let mut text = line(r);
        let word = verdict_word(a.verdict);
        // The verdict cell starts after the name column and its gap.
        let at = text.char_indices().nth(widths[0] + 2).map_or(text.len(), |(i, _)| i);
        text.replace_range(at..at + word.len(), &paint.bold(word, Tone::from(a.verdict)));
        let codes: Vec<String> = verdict_codes(&a.reasons).iter().map(ToString::to_string).collect();
        if codes.is_empty() {
            writeln!(w, "{}", text.trim_end())?;
            continue;
        }
        match pack(&codes, width.saturating_sub(reasons_at)) {
            Some(lines) => {
                for (i, l) in lines.iter().enumerate() {
                    if i == 0 {
                        writeln!(w, "{text}  {l}")?;
                    } else {
                        writeln!(w, "{:reasons_at$}{l}", "")?;
                    }
                }
            }
            None => {
                writeln!(w, "{}", text.trim_end())?;
                for l in pack(&codes, width.saturating_sub(4)).unwrap_or(codes) {
                    writeln!(w, "    {l}")?;
                }
            }
        }
    }
    if order.iter().any(|a| a.pcie.degraded) {
        writeln!(w, "(! PCIe below what the port needs or the card can do)")?;
    }
    Ok(())
}
