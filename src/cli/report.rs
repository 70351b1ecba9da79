//! `optics report CAPTURE [--peer CAPTURE] [-o FILE.md] [--plots DIR]`.

use super::check::CheckArgs;
use super::common::{analyze_capture, load_capture, load_config};
use super::plot::{write_all, PlotKind};
use anyhow::Context;
use clap::Args;
use optics::output::report::{write_report, Evidence};
use optics::output::text::worst_first;
use optics::sample::window::{windows, TimeRange};
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The capture the evidence is drawn from.
    pub capture: PathBuf,
    /// Only these interfaces (default: all of the capture).
    pub interfaces: Vec<String>,
    /// The far end's capture (its module's tx power per lane is quoted).
    #[arg(long, value_name = "CAPTURE")]
    pub peer: Option<PathBuf>,
    /// Write the Markdown here instead of stdout.
    #[arg(short, long, value_name = "FILE.md")]
    pub output: Option<PathBuf>,
    /// Write SVG plots into this directory and embed them.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Thresholds file (JSON; see docs/config.md).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Validate against a speed-tier profile and show expected beside measured.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let cfg = load_config(args.config.as_deref())?;
    let cap = load_capture(&args.capture)?;
    let peer_cap = args.peer.as_deref().map(load_capture).transpose()?;
    let mut analyses = analyze_capture(&cap, &args.interfaces, TimeRange::whole(), &cfg, peer_cap.as_ref())?;
    CheckArgs { profile: args.profile.clone(), check: false }.apply_profile(&mut analyses, &cfg)?;
    let peer_analyses = match &peer_cap {
        Some(p) => analyze_capture(p, &[], TimeRange::whole(), &cfg, None)?,
        None => Vec::new(),
    };
    let ws = windows(&cap, TimeRange::whole());
    let capture_name = args.capture.display().to_string();
    let peer_name = args.peer.as_ref().map(|p| p.display().to_string());
    let order = worst_first(&analyses);
    let mut items = Vec::new();
    for (i, a) in order.iter().enumerate() {
        let identity = ws.iter().find(|w| w.interface == a.interface).map(|w| &w.identity);
        let plots = match &args.plots {
            Some(dir) => write_all(&cap, &a.interface, &cfg, dir)?
                .into_iter()
                .map(|(kind, name)| (caption(kind, &a.interface), dir.join(name).display().to_string()))
                .collect(),
            None => Vec::new(),
        };
        // The far end pairs with the first (worst) interface, as `scan --peer` does by position.
        let peer = peer_name.as_deref().zip(peer_analyses.get(i).filter(|_| i == 0));
        items.push(Evidence {
            capture: &capture_name,
            header: &cap.header,
            analysis: a,
            identity: identity.unwrap_or(&DEFAULT_IDENTITY),
            cfg: &cfg,
            peer,
            plots,
        });
    }
    let mut buf = Vec::new();
    write_report(&mut buf, &items)?;
    match &args.output {
        Some(p) => std::fs::write(p, &buf).with_context(|| format!("writing {}", p.display()))?,
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&buf)?;
            out.flush()?;
        }
    }
    Ok(())
}

static DEFAULT_IDENTITY: optics::source::DeviceIdentity =
    optics::source::DeviceIdentity { driver: None, bus_info: None, pci: None, port: None };

fn caption(kind: PlotKind, iface: &str) -> String {
    match kind {
        PlotKind::BerVsRx => format!("{iface}: pre-FEC BER against rx power per lane, with the FEC limit"),
        PlotKind::MarginOverTime => format!("{iface}: margin per lane over the capture"),
        PlotKind::Histogram => format!("{iface}: FEC histogram"),
    }
}
