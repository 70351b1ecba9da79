//! `optics report CAPTURE [--peer CAPTURE] [-o FILE.md] [--plots DIR]`.

use super::check::CheckArgs;
use super::common::{analyze_engine, load_config};
use super::outputs::{check_outputs, write_atomic};
use super::peer::{parse_lane_map, parse_peer, LaneMap, Peer, PeerArg};
use super::plot::{plot_files, write_all, EventMarks, PlotKind};
use super::replay::replay_capture;
use anyhow::Context;
use clap::Args;
use optics::output::report::{write_report, Evidence};
use optics::output::text::worst_first;
use optics::sample::engine::TimeRange;
use std::path::{Component, Path, PathBuf};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The capture the evidence is drawn from.
    pub capture: PathBuf,
    /// Only these interfaces [default: every interface of the capture].
    pub interfaces: Vec<String>,
    /// The far end's capture (its module's tx power per lane is quoted); `CAPTURE:IFACE`
    /// names its interface, else the one the near end's LLDP neighbor names, or the only one.
    #[arg(long, value_name = "CAPTURE[:IFACE]", value_parser = parse_peer)]
    pub peer: Option<PeerArg>,
    /// With --peer: which far-end lane faces each of ours, `NEAR:FAR,...` [default: straight,
    /// 1:1,2:2,...].
    #[arg(long, value_name = "NEAR:FAR,...", value_parser = parse_lane_map, requires = "peer")]
    pub lane_map: Option<LaneMap>,
    /// Write the Markdown to this file (`-` for standard output) [default: standard output].
    #[arg(short, long, value_name = "FILE.md")]
    pub output: Option<PathBuf>,
    /// Write SVG plots into this directory and embed them.
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Thresholds file (JSON; see docs/config.md) [default: the built-in thresholds].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Validate against a speed-tier profile (100g, 200g, 400g, 800g or one from the config
    /// file's node_profiles) and show expected beside measured.
    #[arg(long, value_name = "NAME", value_parser = super::generate::ProfileName, hide_possible_values = true)]
    pub profile: Option<String>,
}

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let peer_path = args.peer.as_ref().map(|p| p.path.as_path());
    let inputs = [("CAPTURE", Some(args.capture.as_path())), ("--peer", peer_path), ("--config", args.config.as_deref())];
    check_outputs(&[("--output", args.output.as_deref())], &inputs)?;
    let profile = CheckArgs { profile: args.profile.clone(), check: false };
    let cfg = profile.config(load_config(args.config.as_deref())?)?;
    let mut marks = EventMarks::default();
    let (engine, replayed) = replay_capture(&args.capture, TimeRange::whole(), &args.interfaces, &mut [&mut marks])?;
    let peer =
        args.peer.as_ref().map(|p| Peer::load(p, Some(&args.capture)).map(|p| p.with_lane_map(args.lane_map.as_ref()))).transpose()?;
    let mut analyses = analyze_engine(&engine, &args.interfaces, &cfg, peer.as_ref())?;
    profile.apply_profile(&mut analyses, &cfg)?;
    let peer_analyses = match &peer {
        Some(p) => analyze_engine(p.engine(), &[p.interface().to_string()], &cfg, None)?,
        None => Vec::new(),
    };
    let capture_name = args.capture.display().to_string();
    let peer_name = peer.as_ref().map(|p| format!("{}:{}", p.path().display(), p.interface()));
    let order = worst_first(&analyses);
    // The plots are outputs too: every file `--plots` may write, checked with the others.
    if let Some(dir) = &args.plots {
        std::fs::create_dir_all(dir).with_context(|| format!("--plots {}: creating the folder", dir.display()))?;
        let files: Vec<PathBuf> = order.iter().flat_map(|a| plot_files(&a.interface)).map(|(_, name)| dir.join(name)).collect();
        let mut outputs: Vec<(&str, Option<&Path>)> = files.iter().map(|f| ("--plots", Some(f.as_path()))).collect();
        outputs.push(("--output", args.output.as_deref()));
        check_outputs(&outputs, &inputs)?;
    }
    let identities: Vec<_> = order.iter().map(|a| engine.window(&a.interface).map(|w| w.identity).unwrap_or_default()).collect();
    let mut items = Vec::new();
    // Image links are relative to the report's own folder (the working directory when it
    // goes to stdout), so the report and its plots can be moved or attached together.
    let report_dir = match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(out) => out.parent().unwrap_or(Path::new("")).to_path_buf(),
        None => PathBuf::new(),
    };
    for (i, (a, identity)) in order.iter().zip(&identities).enumerate() {
        let plots = match &args.plots {
            Some(dir) => write_all(&engine, &marks, a, &cfg, dir)?
                .into_iter()
                .map(|(kind, name)| (caption(kind, &a.interface), link_from(&report_dir, &dir.join(name))))
                .collect(),
            None => Vec::new(),
        };
        // `--peer` is the far end of the one analysed interface (Peer checks there is one).
        let peer = peer_name.as_deref().zip(peer_analyses.get(i).filter(|_| i == 0));
        items.push(Evidence { capture: &capture_name, header: &replayed.header, analysis: a, identity, cfg: &cfg, peer, plots });
    }
    let mut buf = Vec::new();
    write_report(&mut buf, &items)?;
    write_atomic("--output", args.output.as_deref().unwrap_or(Path::new("-")), &buf)?;
    Ok(())
}

fn caption(kind: PlotKind, iface: &str) -> String {
    match kind {
        PlotKind::BerVsRx => format!("{iface}: pre-FEC BER against rx power per lane, with the FEC limit"),
        PlotKind::MarginOverTime => format!("{iface}: margin per lane over the capture"),
        PlotKind::Histogram => format!("{iface}: FEC histogram"),
    }
}

/// `target` as a relative link from a file in `dir`, '/'-separated. Both are made absolute
/// (symlinks resolved where they exist) so `-o rep/t.md --plots rep/figs` links
/// `figs/...`, and an absolute `--plots` leaks no local path into the ticket.
fn link_from(dir: &Path, target: &Path) -> String {
    let resolve = |p: &Path| {
        let p = if p.as_os_str().is_empty() { Path::new(".") } else { p };
        p.canonicalize().or_else(|_| std::path::absolute(p)).unwrap_or_else(|_| p.to_path_buf())
    };
    let (from, to) = (resolve(dir), resolve(target));
    let from: Vec<Component> = from.components().collect();
    let to: Vec<Component> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let up = std::iter::repeat_n("..".to_string(), from.len() - common);
    let down = to[common..].iter().map(|c| c.as_os_str().to_string_lossy().into_owned());
    up.chain(down).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::link_from;
    use std::path::Path;

    #[test]
    fn links_are_relative_to_the_report() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        std::fs::create_dir_all(root.join("rep/figs")).unwrap();
        std::fs::create_dir_all(root.join("other")).unwrap();
        assert_eq!(link_from(&root.join("rep"), &root.join("rep/figs/a.svg")), "figs/a.svg");
        assert_eq!(link_from(&root.join("other"), &root.join("rep/figs/a.svg")), "../rep/figs/a.svg");
        assert_eq!(link_from(&root.join("rep/figs"), &root.join("rep/figs/a.svg")), "a.svg");
        assert!(!link_from(Path::new(""), &root.join("rep/figs/a.svg")).starts_with('/'));
    }
}
