//! The lane table, weakest first, with a small margin bar. Columns that do not fit the
//! width are dropped, least useful first; flags go beside the row when they fit there,
//! else on a line of their own under it.

use super::module::fmt_dbm;
use super::style::{Painter, Tone};
use super::wrap::{pack, wrap};
use super::{ber_text, margin_text, num, TextOptions};
use crate::analysis::{link_loss, InterfaceAnalysis, LaneAnalysis};
use crate::counters::serdes::SerdesEyeLane;
use std::io::{self, Write};

/// Cells of the margin bar, and the margin (dB) a full bar stands for.
const BAR_CELLS: usize = 8;
const BAR_FULL_DB: f64 = 4.0;

struct Column {
    header: &'static str,
    /// The note below the table that says what the column shows.
    note: Note,
    width: usize,
    /// Lower is kept longer when the width runs out.
    keep: u8,
    cell: fn(&InterfaceAnalysis, &LaneAnalysis) -> String,
    /// Shown only when this holds for the interface (columns most ports leave empty).
    shown: fn(&InterfaceAnalysis) -> bool,
}

/// Which note below the table a column needs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Note {
    Plain,
    /// The link loss columns: what they measure and the PMD's budget.
    Loss,
    /// The host receiver's eye columns: where they come from.
    Eye,
}

fn always(_: &InterfaceAnalysis) -> bool {
    true
}

/// Where the lanes' BER comes from, when it is not the same counter on every lane.
fn mixed_ber_sources(a: &InterfaceAnalysis) -> bool {
    let mut it = a.lanes.iter().map(|l| l.ber_source);
    let first = it.next().flatten();
    it.any(|s| s != first)
}

/// A breakout netdev's lane and the module lane it uses: "2:m6".
fn lane_cell(l: &LaneAnalysis) -> String {
    match l.module_lane.filter(|m| *m != l.lane) {
        Some(m) => format!("{}:m{m}", l.lane),
        None => l.lane.to_string(),
    }
}

const COLUMNS: &[Column] = &[
    Column { header: "lane", note: Note::Plain, width: 4, keep: 0, cell: |_, l| lane_cell(l), shown: always },
    Column {
        header: "rx dBm",
        note: Note::Plain,
        width: 6,
        keep: 3,
        cell: |_, l| fmt_dbm(l.rx_power_dbm).trim_end_matches(" dBm").to_string(),
        shown: always,
    },
    Column {
        header: "tx dBm",
        note: Note::Plain,
        width: 6,
        keep: 6,
        cell: |_, l| fmt_dbm(l.tx_power_dbm).trim_end_matches(" dBm").to_string(),
        shown: always,
    },
    Column { header: "bias mA", note: Note::Plain, width: 7, keep: 7, cell: |_, l| num(l.tx_bias_ma, 2), shown: always },
    Column {
        header: "corr bits",
        note: Note::Plain,
        width: 10,
        keep: 4,
        // A lone snapshot's count since the counters started, where no window counted.
        cell: |_, l| l.corrected_bits.or(l.corrected_bits_since_start).map(|v| v.to_string()).unwrap_or_else(|| "n/a".into()),
        shown: always,
    },
    Column {
        header: "share %",
        note: Note::Plain,
        width: 7,
        keep: 4,
        cell: |_, l| num(l.corrected_bits_share_pct, 1),
        shown: |a| a.lanes.iter().any(|l| l.corrected_bits_share_pct.is_some()),
    },
    Column {
        header: "pre-FEC BER",
        note: Note::Plain,
        width: 11,
        keep: 2,
        cell: |_, l| ber_text(l.corrected_bits, l.pre_fec_ber, l.pre_fec_ber_upper),
        shown: always,
    },
    Column {
        header: "margin dB",
        note: Note::Plain,
        width: 9,
        keep: 1,
        cell: |_, l| margin_text(l.margin_db, l.margin_is_lower_bound),
        shown: always,
    },
    Column { header: "", note: Note::Plain, width: BAR_CELLS, keep: 1, cell: |_, l| bar(l), shown: always },
    Column { header: "opt dB", note: Note::Plain, width: 6, keep: 5, cell: |_, l| num(l.optical_margin_db, 2), shown: always },
    Column {
        header: "BER by",
        note: Note::Plain,
        width: 7,
        keep: 8,
        cell: |_, l| l.ber_source.map_or("-", |b| b.as_str()).to_string(),
        shown: mixed_ber_sources,
    },
    Column {
        header: "eSNR dB",
        note: Note::Plain,
        width: 7,
        keep: 5,
        cell: |_, l| num(l.esnr_db, 1),
        shown: |a| a.lanes.iter().any(|l| l.esnr_db.is_some()),
    },
    Column {
        header: "grade",
        note: Note::Eye,
        width: 5,
        keep: 6,
        cell: |a, l| eye_cell(a, l, |e| e.grade),
        shown: |a| eye_shows(a, |e| e.grade),
    },
    Column {
        header: "eye mV",
        note: Note::Eye,
        width: 6,
        keep: 6,
        cell: |a, l| eye_cell(a, l, |e| e.eye_height_mv),
        shown: |a| eye_shows(a, |e| e.eye_height_mv),
    },
    Column {
        header: "eye ps",
        note: Note::Eye,
        width: 6,
        keep: 7,
        cell: |a, l| eye_cell(a, l, |e| e.eye_width_ps),
        shown: |a| eye_shows(a, |e| e.eye_width_ps),
    },
    Column {
        header: "FOM",
        note: Note::Eye,
        width: 5,
        keep: 6,
        cell: |a, l| eye_cell(a, l, |e| e.last_fom),
        shown: |a| eye_shows(a, |e| e.last_fom),
    },
    Column {
        header: "grades U/M/L",
        note: Note::Eye,
        width: 12,
        keep: 7,
        cell: pam4_grades,
        shown: |a| eye_shows(a, |e| e.upper_grade.or(e.mid_grade).or(e.lower_grade)),
    },
    Column {
        header: "loss dB",
        note: Note::Loss,
        width: 7,
        keep: 2,
        // Over the PMD's budget: marked, the fiber/connector fault the advice names.
        cell: |_, l| match l.link_loss_db {
            Some(v) if link_loss::over_budget(l) => format!("{v:.2}!"),
            v => num(v, 2),
        },
        shown: |a| a.lanes.iter().any(|l| l.link_loss_db.is_some()),
    },
    Column {
        header: "far loss",
        note: Note::Loss,
        width: 8,
        keep: 2,
        cell: |_, l| match l.far_link_loss_db {
            Some(v) if link_loss::far_over_budget(l) => format!("{v:.2}!"),
            v => num(v, 2),
        },
        shown: |a| a.lanes.iter().any(|l| l.far_link_loss_db.is_some()),
    },
];

/// One figure of a lane's host receiver eye.
type EyeFigure = fn(&SerdesEyeLane) -> Option<f64>;

/// The host NIC's eye of lane `l` (the eye's lanes are the port's, from lane 1).
fn eye_of<'a>(a: &'a InterfaceAnalysis, l: &LaneAnalysis) -> Option<&'a SerdesEyeLane> {
    a.serdes_eye.as_ref()?.lanes.get(usize::from(l.lane).checked_sub(1)?)
}

/// An eye figure as the tool printed it (`3065`, `12.5`).
fn eye_cell(a: &InterfaceAnalysis, l: &LaneAnalysis, figure: EyeFigure) -> String {
    eye_of(a, l).and_then(figure).map_or_else(|| "n/a".into(), |v| v.to_string())
}

fn eye_shows(a: &InterfaceAnalysis, figure: EyeFigure) -> bool {
    a.lanes.iter().any(|l| eye_of(a, l).and_then(figure).is_some())
}

/// A PAM4 lane's three eyes' grades (7 nm devices), upper / middle / lower.
fn pam4_grades(a: &InterfaceAnalysis, l: &LaneAnalysis) -> String {
    let Some(e) = eye_of(a, l) else { return "n/a".into() };
    [e.upper_grade, e.mid_grade, e.lower_grade].map(|g| g.map_or_else(|| "-".into(), |v| v.to_string())).join("/")
}

/// Filled cells for the margin, 2 per dB up to 4 dB; blank when there is no margin.
fn bar(l: &LaneAnalysis) -> String {
    let Some(m) = l.margin_db.filter(|m| m.is_finite()) else { return String::new() };
    let filled = ((m.clamp(0.0, BAR_FULL_DB) / BAR_FULL_DB) * BAR_CELLS as f64).round() as usize;
    format!("{}{}", "█".repeat(filled), "·".repeat(BAR_CELLS - filled))
}

/// How bad a lane is: the worst reason naming it.
fn lane_tone(a: &InterfaceAnalysis, lane: u8) -> Tone {
    a.reasons.iter().filter(|r| r.lane == Some(lane)).map(|r| Tone::from(r.severity)).max().unwrap_or(Tone::Plain)
}

pub(crate) fn write_table(w: &mut dyn Write, a: &InterfaceAnalysis, opts: &TextOptions) -> io::Result<()> {
    if a.lanes.is_empty() {
        return Ok(());
    }
    let width = opts.width();
    let paint = opts.painter();
    let mut cols_kept: Vec<&Column> = COLUMNS.iter().filter(|c| (c.shown)(a)).collect();
    // 2 of indent, one space before each column after the first.
    let used = |cs: &[&Column]| 2 + cs.iter().map(|c| c.width + 1).sum::<usize>() - 1;
    while used(&cols_kept) > width {
        let Some(drop) = cols_kept.iter().enumerate().max_by_key(|(_, c)| c.keep).map(|(i, _)| i) else { break };
        if cols_kept[drop].keep == 0 {
            break;
        }
        cols_kept.remove(drop);
    }
    let flags_at = used(&cols_kept) + 2;
    let header: Vec<String> = cols_kept.iter().map(|c| format!("{:>w$}", c.header, w = c.width)).collect();
    let flags_head = if flags_at + 5 <= width { "  flags" } else { "" };
    writeln!(w, "  {}{flags_head}", header.join(" ").trim_end())?;
    for l in &a.lanes {
        let tone = lane_tone(a, l.lane);
        let row: Vec<String> = cols_kept.iter().map(|c| format!("{:>w$}", (c.cell)(a, l), w = c.width)).collect();
        let row = format!("  {}", row.join(" "));
        let row = colour_bar(&row, l, tone, &paint);
        let flags: Vec<String> = l.flags.iter().map(|f| f.to_string()).collect();
        let beside = if flags.is_empty() { Some(Vec::new()) } else { pack(&flags, width.saturating_sub(flags_at)) };
        match beside {
            Some(lines) => {
                let mut it = lines.into_iter();
                match it.next() {
                    Some(first) => writeln!(w, "{row}  {}", paint.paint(&first, tone))?,
                    None => writeln!(w, "{}", row.trim_end())?,
                }
                for rest in it {
                    writeln!(w, "{:flags_at$}{}", "", paint.paint(&rest, tone))?;
                }
            }
            None => {
                writeln!(w, "{}", row.trim_end())?;
                let indent = 8;
                for line in pack(&flags, width.saturating_sub(indent)).unwrap_or_else(|| flags.clone()) {
                    writeln!(w, "{:indent$}{}", "", paint.paint(&line, tone))?;
                }
            }
        }
    }
    write_loss_note(w, a, width, cols_kept.iter().any(|c| c.note == Note::Loss))?;
    let eye_kept: Vec<&str> = cols_kept.iter().filter(|c| c.note == Note::Eye).map(|c| c.header).collect();
    write_eye_note(w, a, width, &eye_kept)
}

/// Where the eye columns come from, and why they carry no judgement.
fn write_eye_note(w: &mut dyn Write, a: &InterfaceAnalysis, width: usize, shown: &[&str]) -> io::Result<()> {
    let Some(eye) = a.serdes_eye.as_ref().filter(|_| !shown.is_empty()) else { return Ok(()) };
    let mode = eye.fom_mode.as_deref().map(|m| format!(", FOM mode {m}")).unwrap_or_default();
    let note = format!(
        "{}: the host NIC's own receiver per lane as {} --show_eye printed it{mode}; host-side evidence beside the module's light, \
         shown as printed and not judged (no pass level is documented for it)",
        shown.join(", "),
        eye.tool
    );
    for line in wrap(&note, width.saturating_sub(2)) {
        writeln!(w, "  {line}")?;
    }
    Ok(())
}

/// What the `loss dB` column measures and the budget it is held to (the PMD's clause).
fn write_loss_note(w: &mut dyn Write, a: &InterfaceAnalysis, width: usize, shown: bool) -> io::Result<()> {
    if !shown {
        return Ok(());
    }
    let budget = a.lanes.iter().find_map(|l| l.link_loss_pmd);
    let note = match budget {
        Some(p) => format!(
            "loss dB: far-end Tx - this end's Rx per lane; ! over the {} channel insertion loss budget of {:.1} dB ({}); far loss: this end's Tx - far-end Rx, the other direction",
            p.name, p.channel_insertion_loss_db, p.source
        ),
        None => "loss dB: far-end Tx - this end's Rx per lane; neither module nor the link mode names the PMD, so no budget; far loss: this end's Tx - far-end Rx, the other direction".into(),
    };
    for line in wrap(&note, width.saturating_sub(2)) {
        writeln!(w, "  {line}")?;
    }
    Ok(())
}

/// The row with its lane number coloured by the lane's worst reason and the bar by margin.
fn colour_bar(row: &str, l: &LaneAnalysis, tone: Tone, paint: &Painter) -> String {
    if !paint.color {
        return row.to_string();
    }
    let mut out = row.to_string();
    let b = bar(l);
    if !b.is_empty() {
        let bar_tone = if tone == Tone::Plain { Tone::Good } else { tone };
        out = out.replacen(&b, &paint.paint(&b, bar_tone), 1);
    }
    if tone != Tone::Plain {
        // The lane number is the first cell after the indent.
        let lane = format!("{:>4}", lane_cell(l));
        let at = 2;
        if out.get(at..at + lane.len()) == Some(lane.as_str()) {
            out.replace_range(at..at + lane.len(), &paint.bold(&lane, tone));
        }
    }
    out
}
