use super::common::{analyze_capture, load_capture, AnalysisArgs, RangeArgs};
use anyhow::bail;
use clap::Args;
use optics::analysis::compare::{compare, Comparison};
use optics::output::{self, analysis_text};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Capture taken before the change (swap, clean, reseat) or the stored baseline.
    pub before: PathBuf,
    /// Capture taken after.
    pub after: PathBuf,
    /// Only this interface (present in both captures).
    #[arg(long = "interface", value_name = "IFACE")]
    pub interface: Option<String>,
    #[command(flatten)]
    pub range: RangeArgs,
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
    let before = analyze_capture(&load_capture(&args.before)?, &only, range, &cfg, None)?;
    let after = analyze_capture(&load_capture(&args.after)?, &only, range, &cfg, None)?;
    // Same names pair up; two single-interface captures pair whatever their names.
    let pairs: Vec<_> = if before.len() == 1 && after.len() == 1 {
        vec![(&before[0], &after[0])]
    } else {
        before.iter().filter_map(|b| after.iter().find(|a| a.interface == b.interface).map(|a| (b, a))).collect()
    };
    if pairs.is_empty() {
        bail!("the two captures share no interface name; choose one with --interface");
    }
    let comparisons: Vec<Comparison> = pairs.into_iter().map(|(b, a)| compare(b, a)).collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.analysis.json {
        output::write_json(&mut out, &CompareOutput { comparisons: &comparisons })?;
    } else {
        analysis_text::write_comparisons(&mut out, &comparisons)?;
    }
    out.flush()?;
    Ok(())
}
