//! `watch` as it runs: on a terminal, a per-lane table redrawn in place (rx dBm, BER over
//! the last interval, margin, a sparkline of recent margins); elsewhere one plain line per
//! interface per sample. A printer of the interval stage: each interval's figures are
//! the stage's (the lane rows' part of the analysis, judged as `analyze` judges them),
//! ranked as the report ranks, so the figures are the report's.

use crate::analysis::lane_rows::{IntervalSink, LaneInterval, RowFigures};
use crate::analysis::{analyze, rank, Config, LaneAnalysis, Verdict};
use crate::capture::Record;
use crate::capture::RecordSink;
use crate::output::text::wrap::fit;
use crate::output::text::{escape, verdict_word, DEFAULT_WIDTH};
use crate::sample::engine::{Engine, EngineConfig};
use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::io::{self, Write};

/// Margins kept per lane for the sparkline.
const HISTORY: usize = 24;
/// Sparkline levels, and the margin (dB) the top level stands for (as the report's bar).
const LEVELS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
const FULL_DB: f64 = 4.0;

#[derive(Default)]
struct LaneState {
    rx_dbm: Option<f64>,
    ber: Option<f64>,
    ber_is_bound: bool,
    margin_db: Option<f64>,
    history: VecDeque<Option<f64>>,
}

#[derive(Default)]
struct IfaceState {
    t: f64,
    link_up: Option<bool>,
    /// Over the judgement window, when the table has one.
    verdict: Option<Verdict>,
    lanes: BTreeMap<u8, LaneState>,
}

/// `watch`'s live per-lane table (on a terminal, redrawn in place) or plain lines, one per interface per sample.
pub struct LiveTable<W: Write> {
    out: W,
    redraw: bool,
    width: usize,
    cfg: Config,
    /// `--judge-window`: the verdict column's own fold (an engine whose snapshot ring
    /// answers that window) and its length in seconds.
    judge: Option<(Engine, f64)>,
    ifaces: BTreeMap<String, IfaceState>,
    /// Lines of the table on screen, to move back over when redrawing.
    drawn: usize,
    /// The plain line being formatted, kept for its capacity.
    line: String,
    /// The interval's lanes, ranked for the plain line (kept for its capacity).
    ranked: Vec<LaneAnalysis>,
}

/// One sparkline cell for a margin: blank when the interval had none.
pub(crate) fn spark(margin_db: Option<f64>) -> char {
    match margin_db.filter(|m| m.is_finite()) {
        Some(m) => {
            let i = ((m.clamp(0.0, FULL_DB) / FULL_DB) * (LEVELS.len() - 1) as f64).round() as usize;
            LEVELS[i]
        }
        None => ' ',
    }
}

impl<W: Write> LiveTable<W> {
    /// `redraw`: a terminal that takes cursor movement; else plain lines.
    pub fn new(out: W, redraw: bool, width: Option<usize>, cfg: Config) -> Self {
        LiveTable {
            out,
            redraw,
            width: width.unwrap_or(DEFAULT_WIDTH).max(40),
            cfg,
            judge: None,
            ifaces: BTreeMap::new(),
            drawn: 0,
            line: String::new(),
            ranked: Vec::new(),
        }
    }

    /// A verdict per interface over the last `seconds` of its samples (as `serve
    /// --judge-window` judges them), shown beside the last interval's figures. It costs a
    /// whole analysis per interface and sample, so it is asked for.
    pub fn with_judge_window(mut self, seconds: f64) -> Self {
        // The series is not read: the smallest one.
        self.judge = Some((Engine::new(EngineConfig { rolling_s: vec![seconds], buckets: 2, ..EngineConfig::default() }), seconds));
        self
    }

    /// The verdict of `interface` over the judgement window, if the table has one.
    fn verdict(&self, interface: &str) -> Option<Verdict> {
        let (engine, seconds) = self.judge.as_ref()?;
        let w = engine.rolling_window(interface, *seconds)?;
        analyze(std::slice::from_ref(&w), &self.cfg, &[]).pop().map(|a| a.verdict)
    }

    fn update(&mut self, t: f64, interface: &str, a: &RowFigures, verdict: Option<Verdict>) {
        let st = self.ifaces.entry(interface.to_string()).or_default();
        st.t = t;
        st.link_up = a.link.up;
        st.verdict = verdict;
        for l in &a.lanes {
            let ls = st.lanes.entry(l.lane).or_default();
            ls.rx_dbm = l.rx_power_dbm;
            ls.ber_is_bound = l.corrected_bits == Some(0);
            ls.ber = if ls.ber_is_bound { l.pre_fec_ber_upper } else { l.pre_fec_ber };
            ls.margin_db = l.margin_db;
            if ls.history.len() == HISTORY {
                ls.history.pop_front();
            }
            ls.history.push_back(l.margin_db);
        }
    }

    fn table(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for (name, st) in &self.ifaces {
            let link = match st.link_up {
                Some(true) => "up",
                Some(false) => "DOWN",
                None => "state unknown",
            };
            let verdict = match (st.verdict, &self.judge) {
                (Some(v), Some((_, s))) => format!("  {} over the last {s} s", verdict_word(v)),
                _ => String::new(),
            };
            lines.push(format!("{}  t={:.1} s  link {link}{verdict}", escape(name), st.t));
            if st.lanes.is_empty() {
                lines.push("  no per-lane data (no module monitors or per-lane FEC counters)".into());
                continue;
            }
            lines.push(format!("  {:>4} {:>7} {:>11} {:>9}  margin, last {HISTORY} intervals", "lane", "rx dBm", "BER", "margin dB"));
            for (lane, ls) in &st.lanes {
                let ber = match ls.ber {
                    Some(b) if ls.ber_is_bound => format!("<{b:.2e}"),
                    Some(b) => format!("{b:.2e}"),
                    None => "n/a".into(),
                };
                let spark: String = ls.history.iter().map(|m| spark(*m)).collect();
                lines.push(format!(
                    "  {lane:>4} {:>7} {ber:>11} {:>9}  {spark}",
                    ls.rx_dbm.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a".into()),
                    ls.margin_db.map(|v| format!("{v:.2}")).unwrap_or_else(|| "n/a".into()),
                ));
            }
        }
        lines.into_iter().map(|l| fit(&l, self.width)).collect()
    }

    /// The line of `a`, its weakest lane named (`lanes`: `a`'s lanes ranked, weakest first).
    fn plain(&mut self, interface: &str, a: &RowFigures, lanes: &[LaneAnalysis], t: f64, verdict: Option<Verdict>) -> io::Result<()> {
        let link = match a.link.up {
            Some(true) => "up",
            Some(false) => "DOWN",
            None => "?",
        };
        let count = |v: Option<u64>| v.map_or("n/a".to_string(), |v| format!("+{v}"));
        let line = &mut self.line;
        line.clear();
        // Writing into a String cannot fail.
        let _ = write!(
            line,
            "t={t:>8.1}s {}: link {link}, corrected bits {}, uncorrectable blocks {}",
            escape(interface),
            count(a.link.corrected_bits),
            count(a.link.uncorrectable_blocks)
        );
        if let Some((lane, m)) = lanes.first().and_then(|l| Some((l.lane, l.margin_db?))) {
            let _ = write!(line, ", weakest lane {lane} margin {m:.2} dB");
        }
        if let Some(v) = verdict {
            let _ = write!(line, ", verdict {}", verdict_word(v));
        }
        line.push('\n');
        // The line whole, newline included, in one write (`writeln!` writes the newline apart).
        self.out.write_all(line.as_bytes())
    }

    /// Moves back over the table and clears it (cursor up, erase below: ECMA-48 CUU, ED).
    fn clear(&mut self) -> io::Result<()> {
        if self.drawn > 0 {
            write!(self.out, "\x1b[{}A\x1b[J", self.drawn)?;
            self.drawn = 0;
        }
        Ok(())
    }

    fn draw(&mut self) -> io::Result<()> {
        self.clear()?;
        let lines = self.table();
        for l in &lines {
            writeln!(self.out, "{l}")?;
        }
        self.drawn = lines.len();
        self.out.flush()
    }
}

impl<W: Write> RecordSink for LiveTable<W> {
    fn record(&mut self, rec: &Record) -> io::Result<()> {
        if let Some((engine, _)) = &mut self.judge {
            engine.push(rec);
        }
        if let Record::Event(e) = rec {
            // Events scroll above the table.
            self.clear()?;
            writeln!(self.out, "t={:>8.1}s {}: {}: {}", e.t, escape(&e.interface), e.kind.as_str(), escape(&e.message))?;
            if self.redraw {
                self.draw()?;
            }
        }
        Ok(())
    }

    /// A buffered `out` is written out once per tick.
    fn end_tick(&mut self, _sampling: std::time::Duration) -> io::Result<()> {
        self.out.flush()
    }
}

impl<W: Write> IntervalSink for LiveTable<W> {
    /// The interval `iv`: the table redrawn, or its plain line. An interface's first
    /// sample alone is no interval yet: nothing is shown until the next.
    fn interval(&mut self, iv: &LaneInterval<'_>) -> io::Result<()> {
        if iv.first {
            return Ok(());
        }
        // The lane-row figures only: the verdict, reasons' text, trend and PCIe judging of a
        // whole analysis are not shown here, and cost most of a sample's CPU in `watch`.
        let (w, a) = (iv.window, iv.figures);
        let verdict = self.verdict(&w.interface);
        if self.redraw {
            self.update(iv.t, &w.interface, a, verdict);
            self.draw()
        } else {
            let mut lanes = std::mem::take(&mut self.ranked);
            lanes.clone_from(&a.lanes);
            rank(&mut lanes);
            let shown = self.plain(&w.interface, a, &lanes, iv.t, verdict);
            self.ranked = lanes;
            shown
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::read_capture;
    use crate::output::tests::print;

    fn marginal() -> Vec<Record> {
        read_capture(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures/sr4-200g-lane4-marginal.jsonl"))).unwrap().records
    }

    #[test]
    fn sparkline_levels() {
        assert_eq!(spark(Some(0.0)), '▁');
        assert_eq!(spark(Some(4.0)), '█');
        assert_eq!(spark(Some(9.0)), '█');
        // 0.41 dB of 4: 0.1 of 7 steps = 0.7 -> level 1.
        assert_eq!(spark(Some(0.41)), '▂');
        assert_eq!(spark(None), ' ');
    }

    #[test]
    fn plain_lines_when_piped() {
        let mut buf = Vec::new();
        print(&marginal(), &mut LiveTable::new(&mut buf, false, None, Config::default()));
        let text = String::from_utf8(buf).unwrap();
        // 61 samples: 60 intervals, one line each, no cursor movement.
        assert_eq!(text.lines().count(), 60);
        assert!(!text.contains('\x1b'));
        // Lane 4 carries ~212e6 bits per 60 s, ~3.5e6 per second: BER ~6.7e-5, margin ~0.4 dB.
        assert!(text.lines().all(|l| l.contains("weakest lane 4 margin 0.")), "{text}");
    }

    #[test]
    fn the_verdict_column_judges_the_window() {
        // The marginal capture (lane 4 hides behind FEC: investigate) judged over 30 s: every
        // line from the first interval on says so; without a window, no verdict is shown.
        let mut buf = Vec::new();
        print(&marginal(), &mut LiveTable::new(&mut buf, false, None, Config::default()).with_judge_window(30.0));
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text.lines().count(), 60);
        assert!(text.lines().all(|l| l.ends_with(", verdict INVESTIGATE")), "{text}");
        // The window is 30 s of the 60: the same as the analysis of the records from t=30 s.
        let mut engine =
            Engine::new(EngineConfig { range: crate::sample::engine::TimeRange { from: Some(30.0), to: None }, ..Default::default() });
        marginal().iter().for_each(|r| engine.push(r));
        assert_eq!(analyze(&engine.windows(), &Config::default(), &[])[0].verdict, Verdict::Investigate);
    }

    /// Every plain line of every bundled capture is the one `format!` writes from the
    /// whole analysis of the same interval.
    #[test]
    fn plain_lines_are_the_format_lines() {
        let mut lines = 0;
        for path in crate::output::tests::bundled_captures() {
            let records = read_capture(&path).unwrap().records;
            let mut buf = Vec::new();
            print(&records, &mut LiveTable::new(&mut buf, false, None, Config::default()));
            let mut want = String::new();
            // Each interface's previous sample: the interval's start.
            let mut last: std::collections::HashMap<String, (Option<Record>, Option<Record>)> = Default::default();
            for r in &records {
                if let Record::Event(e) = r {
                    want += &format!("t={:>8.1}s {}: {}: {}\n", e.t, escape(&e.interface), e.kind.as_str(), escape(&e.message));
                }
                let Some(name) = r.interface() else { continue };
                let (ir, prev) = last.entry(name.to_string()).or_default();
                match r {
                    Record::Interface(_) => (*ir, *prev) = (Some(r.clone()), None),
                    Record::Sample(_) => {
                        let Some(start) = prev.replace(r.clone()) else { continue };
                        let w = crate::sample::engine::records_window(name, None, ir.iter().chain([&start, r]));
                        let a = analyze(std::slice::from_ref(&w), &Config::default(), &[]).remove(0);
                        let link = match a.link.up {
                            Some(true) => "up",
                            Some(false) => "DOWN",
                            None => "?",
                        };
                        let count = |v: Option<u64>| v.map_or("n/a".to_string(), |v| format!("+{v}"));
                        let weakest = a.lanes.first().and_then(|l| Some((l.lane, l.margin_db?)));
                        want += &format!(
                            "t={:>8.1}s {}: link {link}, corrected bits {}, uncorrectable blocks {}{}\n",
                            r.t().unwrap_or_default(),
                            escape(name),
                            count(a.link.corrected_bits),
                            count(a.link.uncorrectable_blocks),
                            weakest.map_or(String::new(), |(lane, m)| format!(", weakest lane {lane} margin {m:.2} dB")),
                        );
                        lines += 1;
                    }
                    _ => {}
                }
            }
            assert_eq!(String::from_utf8(buf).unwrap(), want, "{}", path.display());
        }
        assert!(lines > 300, "{lines} lines");
    }

    #[test]
    fn redraws_in_place_on_a_terminal() {
        let mut buf = Vec::new();
        print(&marginal(), &mut LiveTable::new(&mut buf, true, Some(100), Config::default()));
        let text = String::from_utf8(buf).unwrap();
        // Header, column line and 4 lanes: every redraw after the first moves up 6 lines.
        assert_eq!(text.matches("\x1b[6A\x1b[J").count(), 59);
        let last = text.rsplit("\x1b[J").next().unwrap();
        let lane4 = last.lines().find(|l| l.trim_start().starts_with("4 ")).unwrap();
        assert_eq!(lane4.chars().filter(|c| LEVELS.contains(c)).count(), HISTORY, "{lane4}");
        assert!(last.lines().all(|l| l.chars().count() <= 100));
    }
}
