use super::check::CheckArgs;
use super::common::{analyze_engine, parse_duration, AnalysisArgs, FailOnArgs, LiveArgs, LivePlan, RangeArgs, VERDICT_FAILED};
use super::live;
use super::outputs::{check_outputs, stdout_taken};
use super::peer::{parse_lane_map, parse_peer, LaneMap, Peer, PeerArg};
use super::present::DisplayArgs;
use super::replay::replay_capture;
use super::usage;
use anyhow::Context;
use clap::Args;
use optics::analysis::InterfaceAnalysis;
use optics::output::text::{self, TextOptions};
use optics::output::{self};
use optics::sample::summary::WatchSummary;
use optics::source::{IoCounts, PathsUsed};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ScanArgs {
    /// Interfaces to sample (names or ifindex) [default: every netdev with a module or FEC statistics].
    #[arg(value_hint = super::generate::LIVE_INTERFACE)]
    pub interfaces: Vec<String>,
    /// Analyse a capture instead of the live system (the window is the whole capture).
    #[arg(long, value_name = "CAPTURE")]
    pub replay: Option<PathBuf>,
    #[command(flatten)]
    pub range: RangeArgs,
    /// How long to sample live before deciding (a duration: 500ms, 5s, 1m) [default: 5s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub window: Option<Duration>,
    /// The far end's capture (`CAPTURE:IFACE` names its interface; else the one the near
    /// end's LLDP neighbor names, or the only one): tells fiber loss from a weak far-end
    /// transmitter.
    #[arg(long, value_name = "CAPTURE[:IFACE]", value_parser = parse_peer)]
    pub peer: Option<PeerArg>,
    /// With --peer: which far-end lane faces each of ours, `NEAR:FAR,...` (crossed cables,
    /// breakouts) [default: straight, 1:1,2:2,...].
    #[arg(long, value_name = "NEAR:FAR,...", value_parser = parse_lane_map, requires = "peer")]
    pub lane_map: Option<LaneMap>,
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub gate: FailOnArgs,
    #[command(flatten)]
    pub check: CheckArgs,
    #[command(flatten)]
    pub display: DisplayArgs,
    /// Also write the metrics for node_exporter's textfile collector to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub prometheus: Option<PathBuf>,
}

/// `scan`/`watch --json`: `interfaces` is the contract; the rest is context.
#[derive(Serialize)]
pub struct ScanOutput<'a> {
    pub interfaces: &'a [InterfaceAnalysis],
    pub source: SourceInfo,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub paths: BTreeMap<String, PathsUsed>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub io: Option<IoCounts>,
}

#[derive(Serialize)]
pub struct SourceInfo {
    /// "replay" or "live".
    pub kind: &'static str,
    pub capture: Option<String>,
    pub from: Option<f64>,
    pub to: Option<f64>,
}

pub fn run(args: ScanArgs) -> anyhow::Result<ExitCode> {
    let inputs = [
        ("--replay", args.replay.as_deref()),
        ("--peer", args.peer.as_ref().map(|p| p.path.as_path())),
        ("--config", args.analysis.config.as_deref()),
        ("--i2c", args.live.i2c.as_deref()),
    ];
    check_outputs(&[("--record", args.live.record.as_deref()), ("--prometheus", args.prometheus.as_deref())], &inputs)?;
    let cfg = args.check.config(args.analysis.config()?)?;
    let range = args.range.range()?;
    let peer =
        args.peer.as_ref().map(|p| Peer::load(p, args.replay.as_deref()).map(|p| p.with_lane_map(args.lane_map.as_ref()))).transpose()?;
    let (mut analyses, source, summary) = match &args.replay {
        Some(path) => {
            args.live.refuse_without_live(args.window.is_some(), "--replay")?;
            let (engine, _) = replay_capture(path, range, &[], &mut [])?;
            let analyses = analyze_engine(&engine, &args.interfaces, &cfg, peer.as_ref())?;
            let source = SourceInfo { kind: "replay", capture: Some(path.display().to_string()), from: range.from, to: range.to };
            (analyses, source, None)
        }
        None => {
            if range.from.is_some() || range.to.is_some() {
                return Err(usage("--from/--to select part of a capture: use them with --replay"));
            }
            let plan = LivePlan {
                interfaces: live::resolve_interfaces(&args.interfaces, args.live.i2c.as_deref())?,
                interval: args.live.interval(),
                // Half an interval of slack so the last sample lands at t = window.
                duration: Some(args.window.unwrap_or(Duration::from_secs(5)) + args.live.interval() / 2),
                i2c: args.live.i2c.clone(),
                record: args.live.record.clone(),
                csv: None,
                judge_window: None,
            };
            let (engine, summary) = live::sample(&plan, &cfg)?;
            let analyses = analyze_engine(&engine, &[], &cfg, peer.as_ref()).context("analysing the samples")?;
            let source =
                SourceInfo { kind: "live", capture: args.live.record.as_ref().map(|p| p.display().to_string()), from: None, to: None };
            (analyses, source, Some(summary))
        }
    };
    args.check.apply_profile(&mut analyses, &cfg)?;
    super::outputs::write_textfile(args.prometheus.as_deref(), &analyses)?;
    args.check.finish(&analyses, &cfg, || {
        let opts = args.display.options(args.live.verbose);
        print_analyses(&analyses, source, summary.as_ref(), args.analysis.json, &opts)?;
        Ok(if args.gate.failed(&analyses) { ExitCode::from(VERDICT_FAILED) } else { ExitCode::SUCCESS })
    })
}

/// Prints analyses as text or JSON, with live-path details when `verbose`.
pub fn print_analyses(
    analyses: &[InterfaceAnalysis],
    source: SourceInfo,
    summary: Option<&WatchSummary>,
    json: bool,
    opts: &TextOptions,
) -> anyhow::Result<()> {
    let verbose = opts.verbose;
    // An output flag given `-` owns stdout: the report goes to stderr beside it. Buffered:
    // stdout is line-buffered (its writer searches every small write for a newline) and
    // stderr not at all, while the JSON serializer writes a few bytes at a time.
    let target: Box<dyn Write> = if stdout_taken() { Box::new(std::io::stderr().lock()) } else { Box::new(std::io::stdout().lock()) };
    let mut out = std::io::BufWriter::with_capacity(64 << 10, target);
    if json {
        let doc = ScanOutput {
            interfaces: analyses,
            source,
            paths: summary.filter(|_| verbose).map(|s| s.paths.clone()).unwrap_or_default(),
            io: summary.filter(|_| verbose).map(|s| s.io.clone()),
        };
        output::write_json(&mut out, &doc)?;
    } else {
        text::write_scan(&mut out, analyses, opts)?;
        if let (Some(s), true) = (summary, verbose) {
            writeln!(out)?;
            for (iface, p) in &s.paths {
                writeln!(
                    out,
                    "{iface}: module via {}, link via {}, FEC via {}, driver counters via {}",
                    p.module.as_deref().unwrap_or("-"),
                    p.link.as_deref().unwrap_or("-"),
                    p.fec.as_deref().unwrap_or("-"),
                    p.driver_stats.as_deref().unwrap_or("-"),
                )?;
                for u in &p.unavailable {
                    writeln!(out, "{iface}: unavailable: {u}")?;
                }
            }
            writeln!(
                out,
                "{} ticks, {} samples, {} requests, {} bytes ({} module requests, {} module bytes)",
                s.ticks, s.samples, s.io.requests, s.io.bytes, s.module_io.requests, s.module_io.bytes
            )?;
            for n in &s.notes {
                writeln!(out, "note: {n}")?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// The interface with the worst verdict (smallest worst-lane margin among equals).
pub fn worst_interface(analyses: &[InterfaceAnalysis]) -> Option<&InterfaceAnalysis> {
    text::worst_first(analyses).into_iter().next()
}
