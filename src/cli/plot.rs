//! `optics plot CAPTURE -o FILE.svg [--kind ...]`: the capture streams once through the
//! engine (memory follows its interfaces, not its length); margin over time comes from the
//! engine's bounded per-lane series.

use super::common::{analyze_engine, load_config};
use super::outputs::{check_outputs, write_atomic};
use super::replay::replay_capture;
use super::scan::worst_interface;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use optics::analysis::series_margin::lane_margins;
use optics::analysis::{Config, InterfaceAnalysis};
use optics::capture::Record;
use optics::capture::RecordSink;
use optics::output::plot::{self, MarginSeries};
use optics::sample::engine::{Engine, TimeRange};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotKind {
    /// Pre-FEC BER per lane against rx power (counted lanes and VDM lanes), with the FEC limit and the fitted slope.
    BerVsRx,
    /// Margin per lane over the capture, with the margin floor, link drops, module swaps and counter resets.
    MarginOverTime,
    /// The FEC histogram (codewords by corrected symbol errors) with the limit t, the chosen tail model and its prediction, when the capture has one.
    Histogram,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The capture to plot.
    pub capture: PathBuf,
    /// The SVG file to write.
    #[arg(short, long, value_name = "FILE.svg")]
    pub output: PathBuf,
    /// What to draw.
    #[arg(long, value_enum, default_value_t = PlotKind::BerVsRx)]
    pub kind: PlotKind,
    /// Which interface [default: the one with the worst verdict].
    #[arg(long, value_name = "IFACE")]
    pub interface: Option<String>,
    /// Thresholds file (JSON; see docs/config.md) [default: the built-in thresholds].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Event marks kept per interface; a plot with more would be unreadable anyway.
const MAX_EVENT_MARKS: usize = 64;

/// The event records of a replay, as plot marks: (t, what), at most [`MAX_EVENT_MARKS`]
/// per interface.
#[derive(Default)]
pub struct EventMarks(HashMap<String, Vec<(f64, String)>>);

impl RecordSink for EventMarks {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        if let Record::Event(e) = rec {
            let marks = self.0.entry(e.interface.clone()).or_default();
            if marks.len() < MAX_EVENT_MARKS {
                marks.push((e.t, e.kind.as_str().replace('_', " ")));
            }
        }
        Ok(())
    }
}

impl EventMarks {
    fn of(&self, iface: &str) -> Vec<(f64, String)> {
        self.0.get(iface).cloned().unwrap_or_default()
    }
}

pub fn run(args: PlotArgs) -> anyhow::Result<()> {
    check_outputs(&[("--output", Some(&args.output))], &[("CAPTURE", Some(&args.capture)), ("--config", args.config.as_deref())])?;
    let cfg = load_config(args.config.as_deref())?;
    let only: Vec<String> = args.interface.iter().cloned().collect();
    let mut marks = EventMarks::default();
    let (engine, _) = replay_capture(&args.capture, TimeRange::whole(), &only, &mut [&mut marks])?;
    let analyses = analyze_engine(&engine, &only, &cfg, None)?;
    let Some(a) = worst_interface(&analyses) else { bail!("the capture holds no interface samples") };
    let svg = render(&engine, &marks, a, args.kind, &cfg)?;
    write_atomic("--output", &args.output, svg.as_bytes())
}

/// The SVG text of one plot of the analysed interface `a` of a replayed capture.
pub fn render(engine: &Engine, marks: &EventMarks, a: &InterfaceAnalysis, kind: PlotKind, cfg: &Config) -> anyhow::Result<String> {
    let svg = match kind {
        PlotKind::BerVsRx => plot::ber_vs_rx(a)?,
        PlotKind::MarginOverTime => {
            let series = engine.series(&a.interface);
            // Every bucket is drawn, the error-free ones at their lower-bound margin.
            let lanes = series
                .map(|s| lane_margins(s, &a.link, cfg.confidence))
                .unwrap_or_default()
                .into_iter()
                .map(|(lane, ms)| (lane, ms.into_iter().map(|m| m.point).collect()))
                .collect();
            let link_drops_t_s = series.map(|s| s.link_down_t().to_vec()).unwrap_or_default();
            // The verdict is the last segment's: shade it when breaks split the run.
            let judged_t_s = a.segments.last().filter(|_| a.segments.len() > 1).map(|s| (s.from_t, s.to_t));
            let s = MarginSeries {
                interface: a.interface.clone(),
                lanes,
                events: marks.of(&a.interface),
                link_drops_t_s,
                judged_t_s,
                floor_db: cfg.margin_floor_db,
            };
            plot::margin_over_time(&s)?
        }
        PlotKind::Histogram => {
            let empty = Default::default();
            plot::histogram(&a.interface, a.fec_histogram.as_ref().unwrap_or(&empty), a.link.fec.map(|f| f.name()))?
        }
    };
    Ok(svg)
}

/// For `report --plots`: writes the plots that have data into `dir`, returning the file names.
pub fn write_all(
    engine: &Engine,
    marks: &EventMarks,
    a: &InterfaceAnalysis,
    cfg: &Config,
    dir: &Path,
) -> anyhow::Result<Vec<(PlotKind, String)>> {
    std::fs::create_dir_all(dir).with_context(|| format!("--plots {}: creating the folder", dir.display()))?;
    let mut out = Vec::new();
    for (kind, name) in plot_files(&a.interface) {
        let Ok(svg) = render(engine, marks, a, kind, cfg) else { continue };
        write_atomic("--plots", &dir.join(&name), svg.as_bytes())?;
        out.push((kind, name));
    }
    Ok(out)
}

/// The file names `report --plots` gives an interface's plots.
pub fn plot_files(iface: &str) -> [(PlotKind, String); 3] {
    let stem = file_stem(iface);
    [
        (PlotKind::BerVsRx, format!("{stem}-ber-vs-rx.svg")),
        (PlotKind::MarginOverTime, format!("{stem}-margin-over-time.svg")),
        (PlotKind::Histogram, format!("{stem}-histogram.svg")),
    ]
}

/// A file-name-safe form of an interface name: the name itself when every character is
/// safe (letters, digits, `_`, `.`, `-`), else the safe form followed by a hash of the
/// whole name, so names that differ only in replaced characters (`p0+1`, `p0@1`) never
/// share a file and the wrong plot is never embedded.
fn file_stem(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_.-".contains(c);
    let mut out: String = s.chars().map(|c| if safe(c) { c } else { '_' }).collect();
    if !s.chars().all(safe) || s.starts_with('.') {
        // FNV-1a 64 (a stable hash: the name must not change between runs or builds).
        let h = s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
        out = format!("{out}-{h:016x}");
    }
    out
}
