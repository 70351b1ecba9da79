//! `optics plot CAPTURE -o FILE.svg [--kind ...]`.

use super::common::{analyze_capture, load_capture, load_config};
use super::scan::worst_interface;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use optics::analysis::trend::MarginPoint;
use optics::analysis::{analyze, Config};
use optics::output::plot::{self, MarginSeries};
use optics::sample::capture::{Capture, Record};
use optics::sample::intervals::IntervalWalker;
use optics::sample::window::{windows, TimeRange};
use std::path::{Path, PathBuf};

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlotKind {
    /// Pre-FEC BER per lane against rx power, with the FEC limit and the fitted slope.
    BerVsRx,
    /// Margin per lane over the capture, with the margin floor and events.
    MarginOverTime,
    /// The FEC histogram (codewords by corrected symbol errors), when the capture has one.
    Histogram,
}

#[derive(Args, Debug)]
pub struct PlotArgs {
    /// The capture to plot.
    pub capture: PathBuf,
    /// The SVG file to write.
    #[arg(short, long, value_name = "FILE.svg")]
    pub output: PathBuf,
    #[arg(long, value_enum, default_value_t = PlotKind::BerVsRx)]
    pub kind: PlotKind,
    /// Which interface (default: the one with the worst verdict).
    #[arg(long, value_name = "IFACE")]
    pub interface: Option<String>,
    /// Thresholds file (JSON; see docs/config.md).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// Intervals plotted at most; longer captures are walked in strides of several samples.
const MAX_INTERVALS: usize = 400;

pub fn run(args: PlotArgs) -> anyhow::Result<()> {
    let cfg = load_config(args.config.as_deref())?;
    let cap = load_capture(&args.capture)?;
    let svg = render(&cap, args.kind, args.interface.as_deref(), &cfg)?;
    std::fs::write(&args.output, svg).with_context(|| format!("writing {}", args.output.display()))
}

/// The SVG text of one plot of one interface of the capture.
pub fn render(cap: &Capture, kind: PlotKind, interface: Option<&str>, cfg: &Config) -> anyhow::Result<String> {
    let only: Vec<String> = interface.map(str::to_string).into_iter().collect();
    let analyses = analyze_capture(cap, &only, TimeRange::whole(), cfg, None)?;
    let Some(a) = worst_interface(&analyses) else { bail!("the capture holds no interface samples") };
    let svg = match kind {
        PlotKind::BerVsRx => plot::ber_vs_rx(a)?,
        PlotKind::MarginOverTime => plot::margin_over_time(&margin_series(cap, &a.interface, cfg))?,
        PlotKind::Histogram => {
            let w = windows(cap, TimeRange::whole()).into_iter().find(|w| w.interface == a.interface);
            plot::histogram(&a.interface, w.map(|w| w.histogram_delta).as_deref().unwrap_or(&[]))?
        }
    };
    Ok(svg)
}

/// Per-interval lane margins of one interface: consecutive samples (or strides of them)
/// analysed like any window. One function, so a per-lane series kept by the sampling
/// engine can replace it.
pub fn margin_series(cap: &Capture, iface: &str, cfg: &Config) -> MarginSeries {
    let samples = cap.samples_for(iface).count();
    let mut walker = IntervalWalker::new(samples.div_ceil(MAX_INTERVALS));
    let mut s = MarginSeries { interface: iface.to_string(), floor_db: cfg.margin_floor_db, ..Default::default() };
    for rec in cap.records_for(iface) {
        if let Record::Event(e) = rec {
            s.events.push((e.t, e.kind.as_str().replace('_', " ")));
        }
        let (Some(w), Some(t)) = (walker.push(rec), rec.t()) else { continue };
        for a in analyze(&[w], cfg, &[]) {
            for l in a.lanes.iter().filter(|l| l.margin_db.is_some_and(f64::is_finite)) {
                s.lanes.entry(l.lane).or_default().push(MarginPoint { t_s: t, margin_db: l.margin_db.unwrap_or_default() });
            }
        }
    }
    s
}

/// For `report --plots`: writes the plots that have data into `dir`, returning the file names.
pub fn write_all(cap: &Capture, iface: &str, cfg: &Config, dir: &Path) -> anyhow::Result<Vec<(PlotKind, String)>> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut out = Vec::new();
    for (kind, stem) in
        [(PlotKind::BerVsRx, "ber-vs-rx"), (PlotKind::MarginOverTime, "margin-over-time"), (PlotKind::Histogram, "histogram")]
    {
        let Ok(svg) = render(cap, kind, Some(iface), cfg) else { continue };
        let name = format!("{}-{stem}.svg", sanitize(iface));
        std::fs::write(dir.join(&name), svg).with_context(|| format!("writing {}", dir.join(&name).display()))?;
        out.push((kind, name));
    }
    Ok(out)
}

/// A file-name-safe form of an interface name.
fn sanitize(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' }).collect()
}
