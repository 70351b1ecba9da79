use super::check::CheckArgs;
use super::common::{
    analyze_engine, check_interfaces, parse_duration, AnalysisArgs, FailOnArgs, FileSinks, LiveArgs, LivePlan, VERDICT_FAILED,
};
use super::inputs::open_capture;
use super::live;
use super::outputs::check_outputs;
use super::present::DisplayArgs;
use super::replay::replay_opened;
use super::scan::{print_analyses, SourceInfo};
use super::stop;
use super::usage;
use anyhow::Context;
use clap::Args;
use optics::analysis::config::Config;
use optics::analysis::InterfaceAnalysis;
use optics::sample::engine::TimeRange;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
// A replay has no clock and no kernel paths: live-only flags are usage errors with it
// rather than silently ignored (exit 2, clap's usage error).
#[command(mut_arg("interval", |a| a.conflicts_with("replay")), mut_arg("verbose", |a| a.conflicts_with("replay")))]
pub struct WatchArgs {
    /// Interfaces to sample (names or ifindex) [default: every netdev with a module or FEC
    /// statistics, as `scan` finds them].
    #[arg(value_hint = super::generate::LIVE_INTERFACE)]
    pub interfaces: Vec<String>,
    /// Stop after this long (a duration: 30s, 10m, 2h) [default: until Ctrl-C or another stop
    /// signal: SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGALRM]. The analysis is printed either way.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "replay")]
    pub duration: Option<Duration>,
    /// Stream lane rows as CSV as samples are taken.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Run a capture through the same sinks and analysis instead of the live system.
    #[arg(long, value_name = "CAPTURE")]
    pub replay: Option<PathBuf>,
    /// The live table's verdict column: each interface judged over the last DURATION of its
    /// samples, as `serve --judge-window` judges it (a duration of at least 3 intervals: 30s,
    /// 15m) [default: no verdict column]. The analysis printed at the end is over the whole run.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, conflicts_with = "replay")]
    pub judge_window: Option<Duration>,
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
}

pub fn run(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let outputs = [("--record", args.live.record.as_deref()), ("--csv", args.csv.as_deref())];
    check_outputs(
        &outputs,
        &[("--replay", args.replay.as_deref()), ("--config", args.analysis.config.as_deref()), ("--i2c", args.live.i2c.as_deref())],
    )?;
    let cfg = args.check.config(args.analysis.config()?)?;
    if let Some(w) = args.judge_window {
        let interval = args.live.interval();
        if w < interval * 3 {
            return Err(usage(format!(
                "--judge-window {w:?} is shorter than 3 sample intervals (--interval {interval:?}): a verdict needs a few counter deltas"
            )));
        }
    }
    let (mut analyses, source, summary) = match &args.replay {
        Some(path) => {
            if args.live.i2c.is_some() {
                return Err(usage("--i2c reads the live system; it does not go with --replay"));
            }
            let analyses = replay_into_sinks(path, &args, &cfg)?;
            (analyses, SourceInfo { kind: "replay", capture: Some(path.display().to_string()), from: None, to: None }, None)
        }
        None => {
            let plan = LivePlan {
                interfaces: live::resolve_interfaces(&args.interfaces, args.live.i2c.as_deref())?,
                interval: args.live.interval(),
                duration: args.duration,
                i2c: args.live.i2c.clone(),
                record: args.live.record.clone(),
                csv: args.csv.clone(),
                judge_window: args.judge_window,
            };
            let (engine, summary) = live::sample(&plan, &cfg)?;
            let analyses = analyze_engine(&engine, &[], &cfg, None).context("analysing the samples")?;
            let source =
                SourceInfo { kind: "live", capture: args.live.record.as_ref().map(|p| p.display().to_string()), from: None, to: None };
            (analyses, source, Some(summary))
        }
    };
    args.check.apply_profile(&mut analyses, &cfg)?;
    args.check.finish(&analyses, &cfg, || {
        let opts = args.display.options(args.live.verbose);
        print_analyses(&analyses, source, summary.as_ref(), args.analysis.json, &opts)?;
        Ok(if args.gate.failed(&analyses) { ExitCode::from(VERDICT_FAILED) } else { ExitCode::SUCCESS })
    })
}

/// A replayed capture goes through the same `--record`/`--csv` sinks as live samples,
/// streamed into the engine in the same pass. A stop signal ends it as it ends a live run
/// ([`super::stop`]): what was read is analysed, every sample written stays.
fn replay_into_sinks(path: &std::path::Path, args: &WatchArgs, cfg: &Config) -> anyhow::Result<Vec<InterfaceAnalysis>> {
    // Caught before any output exists: a stop at any moment leaves whole files.
    stop::catch().context("installing signal handlers")?;
    // Opened once: the header for the outputs, then the records (a pipe is read once).
    let reader = open_capture(path)?;
    let mut files = FileSinks::create(args.live.record.as_deref(), args.csv.as_deref(), reader.header(), cfg)?;
    let mut sinks = files.sinks(Vec::new());
    let (engine, _) = replay_opened(reader, path, TimeRange::whole(), &args.interfaces, &mut [&mut sinks])?;
    drop(sinks);
    // Unknown names: the outputs are dropped unfinished (removed) before any analysis.
    check_interfaces(&engine, &args.interfaces)?;
    files.finish();
    if let Some(sig) = stop::caught() {
        super::diag(format_args!("optics: note: stopped by {sig}: the analysis covers the capture up to there"));
    }
    analyze_engine(&engine, &args.interfaces, cfg, None)
}
