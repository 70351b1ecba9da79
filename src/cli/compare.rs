use super::common::{analyze_capture, analyze_engine, parse_duration, AnalysisArgs, LiveArgs, LivePlan, RangeArgs, VERDICT_FAILED};
use super::import::{load_inputs, Input};
use super::live;
use super::outputs::check_outputs;
use super::replay::replay_opened;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use optics::analysis::compare::{compare, Comparison};
use optics::analysis::verdict::Verdict;
use optics::analysis::{Config, InterfaceAnalysis};
use optics::output::{self, text};
use optics::sample::engine::TimeRange;
use optics::source::import::build::UNNAMED;
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Capture taken before the change (swap, clean, reseat), or a stored baseline.
    pub before: PathBuf,
    /// Capture taken after. Without it, the baseline's interfaces are sampled live now
    /// (drift against a stored baseline).
    pub after: Option<PathBuf>,
    /// Only this interface (present in both).
    #[arg(long = "interface", value_name = "IFACE", conflicts_with = "pairs")]
    pub interface: Option<String>,
    /// Pair BEFORE's interface A with AFTER's B when their names differ (repeatable).
    #[arg(long = "pair", value_name = "A=B", value_parser = parse_pair)]
    pub pairs: Vec<(String, String)>,
    #[command(flatten)]
    pub range: RangeArgs,
    /// How long to sample live when there is no AFTER capture (a duration: 500ms, 10s, 1m) [default: 10s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub window: Option<Duration>,
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
    /// Exit with status 3 when an AFTER verdict is at least this bad, or (worse) when any
    /// lane is significantly worse after than before.
    #[arg(long, value_enum, value_name = "GATE")]
    pub fail_on: Option<CompareFailOn>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompareFailOn {
    /// An AFTER verdict of investigate or reject.
    Investigate,
    /// An AFTER verdict of reject.
    Reject,
    /// Any lane significantly worse after than before.
    Worse,
}

/// A `--pair` that is not `BEFORE_IFACE=AFTER_IFACE`.
#[derive(Debug, thiserror::Error)]
#[error("expected BEFORE_IFACE=AFTER_IFACE")]
struct NotAPair;

fn parse_pair(s: &str) -> Result<(String, String), NotAPair> {
    match s.split_once('=') {
        Some((a, b)) if !a.is_empty() && !b.is_empty() => Ok((a.to_string(), b.to_string())),
        _ => Err(NotAPair),
    }
}

#[derive(Serialize)]
struct CompareOutput<'a> {
    comparisons: &'a [Comparison],
}

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let inputs = [("BEFORE", Some(args.before.as_path())), ("AFTER", args.after.as_deref()), ("--config", args.analysis.config.as_deref())];
    check_outputs(&[("--record", args.live.record.as_deref())], &inputs)?;
    let cfg = args.analysis.config()?;
    let range = args.range.range()?;
    let only: Vec<String> = args.interface.iter().cloned().collect();
    let before_only: Vec<String> = if args.pairs.is_empty() { only.clone() } else { args.pairs.iter().map(|(b, _)| b.clone()).collect() };
    let after_only: Vec<String> = if args.pairs.is_empty() { only.clone() } else { args.pairs.iter().map(|(_, a)| a.clone()).collect() };
    if args.after.is_some() {
        args.live.refuse_without_live(args.window.is_some(), "an AFTER capture")?;
    }
    let (before_cap, after_cap) = load_inputs(&args.before, args.after.as_deref())?;
    let before = analyze_input(before_cap, &before_only, range, &cfg).context("BEFORE")?;
    let after = match after_cap {
        Some(input) => analyze_input(input, &after_only, range, &cfg).context("AFTER")?,
        None => {
            let named: Vec<String> = if args.pairs.is_empty() { before.iter().map(|a| a.interface.clone()).collect() } else { after_only };
            let plan = LivePlan {
                interfaces: live::resolve_interfaces(&named, args.live.i2c.as_deref())?,
                interval: args.live.interval(),
                duration: Some(args.window.unwrap_or(Duration::from_secs(10)) + args.live.interval() / 2),
                i2c: args.live.i2c.clone(),
                record: args.live.record.clone(),
                csv: None,
                judge_window: None,
            };
            let (engine, _) = live::sample(&plan, &cfg)?;
            analyze_engine(&engine, &[], &cfg, None).context("analysing the live samples")?
        }
    };
    let comparisons = pair(&before, &after, &args.pairs)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.analysis.json {
        output::write_json(&mut out, &CompareOutput { comparisons: &comparisons })?;
    } else {
        text::write_comparisons(&mut out, &comparisons)?;
    }
    out.flush()?;
    Ok(if failed(args.fail_on, &comparisons) { ExitCode::from(VERDICT_FAILED) } else { ExitCode::SUCCESS })
}

/// One side analysed: a capture streamed through the engine, an import from memory.
fn analyze_input(input: Input, only: &[String], range: TimeRange, cfg: &Config) -> anyhow::Result<Vec<InterfaceAnalysis>> {
    match input {
        Input::Capture(path, reader) => {
            let (engine, _) = replay_opened(reader, &path, range, &[], &mut [])?;
            if !range.is_partial() && engine.windows().iter().all(|w| w.samples == 0) {
                bail!("{}: no samples to analyse", path.display());
            }
            analyze_engine(&engine, only, cfg, None)
        }
        Input::Imported(cap) => analyze_capture(&cap, only, range, cfg, None),
    }
}

/// `--fail-on` over the comparisons: the AFTER verdicts, or any lane significantly worse.
fn failed(fail_on: Option<CompareFailOn>, comparisons: &[Comparison]) -> bool {
    let worst_after = comparisons.iter().map(|c| c.verdict_after).max();
    match fail_on {
        Some(CompareFailOn::Worse) => comparisons.iter().any(Comparison::any_worse),
        Some(CompareFailOn::Investigate) => worst_after >= Some(Verdict::Investigate),
        Some(CompareFailOn::Reject) => worst_after >= Some(Verdict::Reject),
        None => false,
    }
}

/// Interfaces pair by name, or as `--pair` says; both ends of a pair must have as many lanes.
fn pair(before: &[InterfaceAnalysis], after: &[InterfaceAnalysis], explicit: &[(String, String)]) -> anyhow::Result<Vec<Comparison>> {
    let find = |set: &'_ [InterfaceAnalysis], name: &str| set.iter().find(|a| a.interface == name).cloned();
    let pairs: Vec<(InterfaceAnalysis, InterfaceAnalysis)> = if explicit.is_empty() {
        before.iter().filter_map(|b| find(after, &b.interface).map(|a| (b.clone(), a))).collect()
    } else {
        explicit.iter().filter_map(|(b, a)| Some((find(before, b)?, find(after, a)?))).collect()
    };
    if pairs.is_empty() {
        let names = |set: &[InterfaceAnalysis]| set.iter().map(|a| a.interface.clone()).collect::<Vec<_>>();
        let (b, a) = (names(before), names(after));
        bail!(
            "the two captures share no interface name (BEFORE has {}, AFTER has {}); pair them explicitly, e.g. --pair {}={}",
            b.join(", "),
            a.join(", "),
            b.first().map_or("A", String::as_str),
            a.first().map_or("B", String::as_str)
        );
    }
    // Paired by name only: an interface that names no port ("unnamed", an import of
    // outputs that carry no netdev name) with another module after is as likely another
    // port as a swap, and is not differenced unless --pair says they are one port.
    if explicit.is_empty() {
        let sn = |x: &InterfaceAnalysis| x.module.as_ref().and_then(|m| m.vendor_sn.clone());
        for (b, a) in &pairs {
            if let (Some(sb), Some(sa)) = (sn(b), sn(a)) {
                if b.interface == UNNAMED && sb.trim() != sa.trim() {
                    bail!(
                        "BEFORE and AFTER name no interface and hold different modules (SN {} and SN {}): two ports are not differenced; if this is one port whose module was swapped, say so with --pair {UNNAMED}={UNNAMED}",
                        sb.trim(),
                        sa.trim()
                    );
                }
            }
        }
    }
    let lane_count = |x: &InterfaceAnalysis| x.link.lanes.map(|n| n as usize).unwrap_or(x.lanes.len());
    for (b, a) in &pairs {
        if lane_count(b) != lane_count(a) {
            bail!(
                "BEFORE {} has {} lanes and AFTER {} has {}: not the same link, nothing to compare lane by lane",
                b.interface,
                lane_count(b),
                a.interface,
                lane_count(a)
            );
        }
    }
    Ok(pairs.iter().map(|(b, a)| compare(b, a)).collect())
}
