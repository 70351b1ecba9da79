use super::common::SeenInterfaces;
use super::common::{analyze_engine, check_names, load_config};
use super::inputs::open_capture;
use super::outputs::{check_outputs, remove_created, Labelled, Output};
use super::peer::{parse_lane_map, parse_peer, LaneMap, Peer, PeerArg};
use super::replay::{replay_opened, stream_capture};
use anyhow::bail;
use clap::{ArgGroup, Args};
use optics::capture::RecordSink;
use optics::output::csv::{CsvSink, FlushPolicy};
use optics::sample::engine::TimeRange;
use optics::sample::intervals::{IntervalPrinter, IntervalStage};
use std::path::PathBuf;

#[derive(Args, Debug)]
// At least one output, any of them (clap names the three when none is given).
#[command(group(ArgGroup::new("outputs").required(true).multiple(true).args(["csv", "json", "prometheus"])))]
pub struct ExportArgs {
    /// The capture to export.
    #[arg(required_unless_present = "replay")]
    pub capture: Option<PathBuf>,
    /// The capture to export (same as the positional argument).
    #[arg(long, value_name = "CAPTURE", conflicts_with = "capture")]
    pub replay: Option<PathBuf>,
    /// Write lane rows as CSV to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write the same rows as JSON Lines (one object per row) to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the capture's metrics for node_exporter's textfile collector to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub prometheus: Option<PathBuf>,
    /// Only these interfaces (repeatable) [default: every interface of the capture].
    #[arg(long = "interface", value_name = "IFACE")]
    pub interfaces: Vec<String>,
    /// Thresholds file (JSON; see docs/config.md): margins in the rows use it [default: the
    /// built-in thresholds].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The far end of the exported interface's link (a capture, or anything `import` reads;
    /// `CAPTURE:IFACE` names its interface, else the one the near end's LLDP neighbor names):
    /// rows get `link_loss_db` against its Tx powers.
    #[arg(long, value_name = "CAPTURE[:IFACE]", value_parser = parse_peer)]
    pub peer: Option<PeerArg>,
    /// With --peer: which far-end lane faces each of ours, `NEAR:FAR,...` [default: straight,
    /// 1:1,2:2,...].
    #[arg(long, value_name = "NEAR:FAR,...", value_parser = parse_lane_map, requires = "peer")]
    pub lane_map: Option<LaneMap>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let Some(path) = args.capture.as_ref().or(args.replay.as_ref()) else { bail!("name the capture to export") };
    check_outputs(
        &[("--csv", args.csv.as_deref()), ("--json", args.json.as_deref()), ("--prometheus", args.prometheus.as_deref())],
        &[("CAPTURE", Some(path)), ("--peer", args.peer.as_ref().map(|p| p.path.as_path())), ("--config", args.config.as_deref())],
    )?;
    let cfg = load_config(args.config.as_deref())?;
    if args.peer.is_some() && args.interfaces.len() > 1 {
        bail!("--peer is the far end of one link, but {} interfaces are named: name one", args.interfaces.len());
    }
    // The far end faces the one interface named, else the capture's only one (checked below).
    let peer = args.peer.as_ref().map(|p| Peer::load(p, Some(path)).map(|p| p.with_lane_map(args.lane_map.as_ref()))).transpose()?;
    // Opened once: the header for the rows, then the records (a pipe is read once).
    let reader = open_capture(path)?;
    let header = reader.header().clone();
    let mut made: Vec<PathBuf> = Vec::new();
    let mut sinks: Vec<Labelled<CsvSink<Output>>> = Vec::new();
    let outputs = [args.csv.is_some(), args.json.is_some(), args.prometheus.is_some()].iter().filter(|o| **o).count();
    for (flag, target, json) in [("--csv", &args.csv, false), ("--json", &args.json, true)] {
        let Some(p) = target else { continue };
        let out = Output::open(flag, p)?;
        made.extend(out.created_path());
        let label = out.label();
        let sink = if json { CsvSink::json_lines(out, Some(&header.created)) } else { CsvSink::new(out, Some(&header.created)) };
        let sink = match &peer {
            Some(p) => sink.with_far_end(p.far_end(args.interfaces.first().cloned())?),
            None => sink,
        };
        sinks.push(Labelled::new(sink.with_host(header.host.clone()).with_flush(FlushPolicy::Batched), label, outputs > 1));
    }
    // Each interval's figures worked out once, for the CSV and the JSON rows alike.
    let mut stage = IntervalStage::new(cfg.clone(), sinks.iter_mut().map(|s| s as &mut dyn IntervalPrinter).collect());
    let mut refs: Vec<&mut dyn RecordSink> = vec![&mut stage];
    // The whole-run engine only for the metrics: the rows need no more of the capture's
    // fold than which interfaces it has (for `--interface`).
    let mut seen = SeenInterfaces::default();
    let replayed = match args.prometheus {
        Some(_) => replay_opened(reader, path, TimeRange::whole(), &args.interfaces, &mut refs).map(|(engine, _)| Some(engine)),
        None => stream_capture(reader, path, &mut seen, &args.interfaces, &mut refs).map(|_| None),
    };
    drop(refs);
    drop(stage);
    // The rows still held by the batched sinks, also after an error (its files are removed
    // below, but a write error of their own is the one to report).
    let finished = sinks.iter_mut().try_for_each(|s| s.finish());
    let checked = replayed.and_then(|engine| {
        finished?;
        // A whole-run engine ran only for --prometheus (its analysis checks the names).
        let names = match engine {
            Some(engine) => {
                super::outputs::write_textfile(args.prometheus.as_deref(), &analyze_engine(&engine, &args.interfaces, &cfg, None)?)?;
                engine.interfaces()
            }
            None => {
                check_names(&seen.names, &args.interfaces)?;
                seen.names
            }
        };
        match &peer {
            Some(p) if args.interfaces.is_empty() && names.len() > 1 => bail!(
                "--peer {} is the far end of one link, but the capture has {} interfaces ({}): name one with --interface",
                p.path().display(),
                names.len(),
                names.join(", ")
            ),
            _ => Ok(()),
        }
    });
    drop(sinks);
    if checked.is_err() {
        // Only this run made these files, and rows are written whole: a failed export
        // leaves no partial output behind.
        for p in &made {
            remove_created(p, "export failed");
        }
    }
    checked
}
