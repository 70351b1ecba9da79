use super::common::{analyze_capture, parse_duration, AnalysisArgs, LiveArgs, RangeArgs};
use super::import::load_inputs;
use super::live::{self, LivePlan};
use anyhow::{bail, Context};
use clap::Args;
use optics::analysis::compare::{compare, Comparison};
use optics::analysis::InterfaceAnalysis;
use optics::output::{self, text};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Capture taken before the change (swap, clean, reseat), or a stored baseline.
    pub before: PathBuf,
    /// Capture taken after. Without it, the baseline's interfaces are sampled live now
    /// (drift against a stored baseline).
    pub after: Option<PathBuf>,
    /// Only this interface (present in both).
    #[arg(long = "interface", value_name = "IFACE")]
    pub interface: Option<String>,
    #[command(flatten)]
    pub range: RangeArgs,
    /// How long to sample live when there is no AFTER capture.
    #[arg(long, value_parser = parse_duration, default_value = "10s")]
    pub window: Duration,
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub analysis: AnalysisArgs,
}

#[derive(Serialize)]
struct CompareOutput<'a> {
    comparisons: &'a [Comparison],
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let cfg = args.analysis.config()?;
    let range = args.range.range()?;
    let only: Vec<String> = args.interface.iter().cloned().collect();
    let (before_cap, after_cap) = load_inputs(&args.before, args.after.as_deref())?;
    let before = analyze_capture(&before_cap, &only, range, &cfg, None)?;
    let after = match &after_cap {
        Some(cap) => analyze_capture(cap, &only, range, &cfg, None)?,
        None => {
            let named: Vec<String> = before.iter().map(|a| a.interface.clone()).collect();
            let plan = LivePlan {
                interfaces: live::resolve_interfaces(&named, args.live.i2c.as_deref())?,
                interval: args.live.interval,
                duration: Some(args.window + args.live.interval / 2),
                i2c: args.live.i2c.clone(),
                record: args.live.record.clone(),
                csv: None,
            };
            let (cap, _) = live::sample(&plan, &cfg)?;
            analyze_capture(&cap, &[], Default::default(), &cfg, None).context("analysing the live samples")?
        }
    };
    let comparisons = pair(&before, &after)?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.analysis.json {
        output::write_json(&mut out, &CompareOutput { comparisons: &comparisons })?;
    } else {
        text::write_comparisons(&mut out, &comparisons)?;
    }
    out.flush()?;
    Ok(())
}

/// Same names pair up; two single-interface captures pair whatever their names.
fn pair(before: &[InterfaceAnalysis], after: &[InterfaceAnalysis]) -> anyhow::Result<Vec<Comparison>> {
    let pairs: Vec<_> = if before.len() == 1 && after.len() == 1 {
        vec![(&before[0], &after[0])]
    } else {
        before.iter().filter_map(|b| after.iter().find(|a| a.interface == b.interface).map(|a| (b, a))).collect()
    };
    if pairs.is_empty() {
        bail!("the two captures share no interface name; choose one with --interface");
    }
    Ok(pairs.into_iter().map(|(b, a)| compare(b, a)).collect())
}
