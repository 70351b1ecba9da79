use super::check::CheckArgs;
use super::common::{
    analyze_capture, check_interfaces, load_capture, parse_duration, records_of, AnalysisArgs, FileSinks, LiveArgs, VERDICT_FAILED,
};
use super::live::{self, LivePlan};
use super::present::DisplayArgs;
use super::scan::{print_analyses, SourceInfo};
use anyhow::{bail, Context};
use clap::Args;
use optics::analysis::config::Config;
use optics::sample::capture::Capture;
use optics::sample::window::TimeRange;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
// A replay has no clock and no kernel paths: live-only flags are usage errors with it
// rather than silently ignored (exit 2, clap's usage error).
#[command(mut_arg("interval", |a| a.conflicts_with("replay")), mut_arg("verbose", |a| a.conflicts_with("replay")))]
pub struct WatchArgs {
    /// Interfaces to sample (names or ifindex). None: every netdev with a module or FEC
    /// statistics, as `scan` finds them.
    pub interfaces: Vec<String>,
    /// Stop after this long; without it, sample until Ctrl-C or SIGTERM.
    #[arg(long, value_parser = parse_duration, conflicts_with = "replay")]
    pub duration: Option<Duration>,
    /// Stream lane rows as CSV as samples are taken.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Run a capture through the same sinks and analysis instead of the live system.
    #[arg(long, value_name = "CAPTURE")]
    pub replay: Option<PathBuf>,
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    #[command(flatten)]
    pub check: CheckArgs,
    #[command(flatten)]
    pub display: DisplayArgs,
}

pub fn run(args: WatchArgs) -> anyhow::Result<ExitCode> {
    let cfg = args.analysis.config()?;
    let (mut analyses, source, summary) = match &args.replay {
        Some(path) => {
            if args.live.i2c.is_some() {
                bail!("--i2c reads the live system; it does not go with --replay");
            }
            let cap = load_capture(path)?;
            replay_into_sinks(&cap, &args, &cfg)?;
            let analyses = analyze_capture(&cap, &args.interfaces, TimeRange::whole(), &cfg, None)?;
            (analyses, SourceInfo { kind: "replay", capture: Some(path.display().to_string()), from: None, to: None }, None)
        }
        None => {
            let plan = LivePlan {
                interfaces: live::resolve_interfaces(&args.interfaces, args.live.i2c.as_deref())?,
                interval: args.live.interval,
                duration: args.duration,
                i2c: args.live.i2c.clone(),
                record: args.live.record.clone(),
                csv: args.csv.clone(),
            };
            let (cap, summary) = live::sample(&plan, &cfg)?;
            let analyses = analyze_capture(&cap, &[], TimeRange::whole(), &cfg, None).context("analysing the samples")?;
            let source =
                SourceInfo { kind: "live", capture: args.live.record.as_ref().map(|p| p.display().to_string()), from: None, to: None };
            (analyses, source, Some(summary))
        }
    };
    args.check.apply_profile(&mut analyses, &cfg)?;
    args.check.finish(&analyses, &cfg, || {
        let opts = args.display.options(args.live.verbose);
        print_analyses(&analyses, source, summary.as_ref(), args.analysis.json, &opts)?;
        Ok(if args.analysis.failed(&analyses) { ExitCode::from(VERDICT_FAILED) } else { ExitCode::SUCCESS })
    })
}

/// A replayed capture goes through the same `--record`/`--csv` sinks as live samples.
fn replay_into_sinks(cap: &Capture, args: &WatchArgs, cfg: &Config) -> anyhow::Result<()> {
    check_interfaces(cap, &args.interfaces)?;
    let mut files = FileSinks::create(args.live.record.as_deref(), args.csv.as_deref(), &cap.header, cfg)?;
    let mut sinks = files.sinks();
    for rec in records_of(cap, &args.interfaces) {
        for s in sinks.iter_mut() {
            s.record(rec)?;
        }
    }
    Ok(())
}
