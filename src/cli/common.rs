//! Pieces every analysing subcommand shares: config, captures, windows -> analysis, output.

use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use optics::analysis::config::Config;
use optics::analysis::verdict::Verdict;
use optics::analysis::{analyze, InterfaceAnalysis};
use optics::output::csv::CsvSink;
use optics::sample::capture::{read_capture, Capture, CaptureWriter, Header, Record};
use optics::sample::window::{windows, TimeRange};
use optics::sample::RecordSink;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest `--interval`/`--duration`/`--window` accepted: ten years is longer than
/// any run, and far from where adding it to a clock reading could overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// `--interval 1s`, `--duration 10m`, `--window 500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s).map_err(|e| format!("{e} (examples: 500ms, 1s, 10m, 2h)"))?;
    if d.is_zero() {
        return Err("must be longer than zero".into());
    }
    if d > MAX_DURATION {
        return Err(format!("{s} is longer than the 10 years (87600h) a run can last"));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_bounded() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        // 10 years = 3650 days exactly is the limit; a second more is refused.
        assert_eq!(parse_duration("3650d"), Ok(MAX_DURATION));
        assert!(parse_duration("3650d 1s").unwrap_err().contains("10 years"));
        assert!(parse_duration("18446744073709551615s").unwrap_err().contains("10 years"));
        assert!(parse_duration("0s").is_err());
    }
}

#[derive(Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Thresholds file (JSON; see docs/config.md). Defaults are built in.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print JSON instead of the readable report.
    #[arg(long)]
    pub json: bool,
    /// Exit with status 3 when any interface's verdict is at least this bad.
    #[arg(long, value_enum, value_name = "VERDICT")]
    pub fail_on: Option<FailOn>,
}

/// Exit status when `--fail-on` is met (1 is an error, 2 a usage error from clap).
pub const VERDICT_FAILED: u8 = 3;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Investigate,
    Reject,
}

impl AnalysisArgs {
    pub fn config(&self) -> anyhow::Result<Config> {
        load_config(self.config.as_deref())
    }

    /// True when `--fail-on` is met by any verdict.
    pub fn failed(&self, analyses: &[InterfaceAnalysis]) -> bool {
        let worst = analyses.iter().map(|a| a.verdict).max();
        match (self.fail_on, worst) {
            (Some(FailOn::Investigate), Some(v)) => v >= Verdict::Investigate,
            (Some(FailOn::Reject), Some(v)) => v >= Verdict::Reject,
            _ => false,
        }
    }
}

/// Options of every subcommand that samples the live system.
#[derive(Args, Debug, Clone)]
pub struct LiveArgs {
    /// Time between live samples.
    #[arg(long, value_parser = parse_duration, default_value = "1s")]
    pub interval: Duration,
    /// Write the samples to this capture file (JSON Lines) as they are taken.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Read the module over direct I2C (e.g. /dev/i2c-3) instead of the driver.
    #[arg(long, value_name = "DEVICE")]
    pub i2c: Option<PathBuf>,
    /// Show which kernel path each layer used, and request/byte counts.
    #[arg(long, short)]
    pub verbose: bool,
}

#[derive(Args, Debug, Clone, Default)]
pub struct RangeArgs {
    /// Start of the analysed window, in seconds since the capture started.
    #[arg(long, value_name = "SECONDS")]
    pub from: Option<f64>,
    /// End of the analysed window, in seconds since the capture started.
    #[arg(long, value_name = "SECONDS")]
    pub to: Option<f64>,
}

impl RangeArgs {
    pub fn range(&self) -> anyhow::Result<TimeRange> {
        if let (Some(f), Some(t)) = (self.from, self.to) {
            if t <= f {
                bail!("--to ({t}) must be after --from ({f})");
            }
        }
        Ok(TimeRange { from: self.from, to: self.to })
    }
}

/// Reads a capture; what the reader tolerated (a truncated last line) goes to stderr so the
/// user knows the capture was cut short.
pub fn load_capture(path: &Path) -> anyhow::Result<Capture> {
    let cap = read_capture(path).with_context(|| format!("capture {}", path.display()))?;
    for note in &cap.notes {
        eprintln!("optics: note: {}: {}", path.display(), optics::output::text::escape(note));
    }
    Ok(cap)
}

/// The thresholds file, or the built-in defaults.
pub fn load_config(path: Option<&Path>) -> anyhow::Result<Config> {
    match path {
        Some(p) => Config::load(p).with_context(|| format!("loading config {}", p.display())),
        None => Ok(Config::default()),
    }
}

/// Every name in `names` must be an interface of the capture.
pub fn check_interfaces(cap: &Capture, names: &[String]) -> anyhow::Result<()> {
    let have = cap.interfaces();
    match names.iter().find(|n| !have.contains(n)) {
        Some(name) => bail!("interface {name} is not in the capture (it has: {})", have.join(", ")),
        None => Ok(()),
    }
}

/// The records of the chosen interfaces (all when `names` is empty).
pub fn records_of<'a>(cap: &'a Capture, names: &'a [String]) -> impl Iterator<Item = &'a Record> + 'a {
    cap.records.iter().filter(move |r| names.is_empty() || r.interface().is_some_and(|i| names.iter().any(|n| n == i)))
}

/// Windows of the chosen interfaces (all when `only` is empty) analysed with `peers`.
pub fn analyze_capture(
    cap: &Capture,
    only: &[String],
    range: TimeRange,
    cfg: &Config,
    peer: Option<&Capture>,
) -> anyhow::Result<Vec<InterfaceAnalysis>> {
    check_interfaces(cap, only)?;
    let mut ws = windows(cap, range);
    if !only.is_empty() {
        ws.retain(|w| only.contains(&w.interface));
    }
    if ws.is_empty() {
        bail!("the capture holds no interface samples");
    }
    // The far end's capture: paired by position (one interface each is the usual case).
    let peers = peer.map(|p| windows(p, TimeRange::whole())).unwrap_or_default();
    Ok(analyze(&ws, cfg, &peers))
}

/// A fresh capture header for this host.
pub fn local_header() -> Header {
    let read = |p: &str| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    Header::new(
        read("/proc/sys/kernel/hostname"),
        read("/proc/sys/kernel/osrelease"),
        Some(format!("optics {}", env!("CARGO_PKG_VERSION"))),
    )
}

/// The `--record` capture and `--csv` rows a run writes as records arrive, live or replayed.
pub struct FileSinks {
    capture: Option<CaptureWriter<File>>,
    csv: Option<CsvSink<File>>,
}

impl FileSinks {
    pub fn create(record: Option<&Path>, csv: Option<&Path>, header: &Header, cfg: &Config) -> anyhow::Result<Self> {
        let capture = match record {
            Some(p) => Some(CaptureWriter::create(p, header).with_context(|| format!("creating {}", p.display()))?),
            None => None,
        };
        let csv = match csv {
            Some(p) => {
                let file = File::create(p).with_context(|| format!("creating {}", p.display()))?;
                Some(CsvSink::new(file, Some(&header.created), cfg.clone()))
            }
            None => None,
        };
        Ok(FileSinks { capture, csv })
    }

    /// The open files as sinks.
    pub fn sinks(&mut self) -> Vec<&mut dyn RecordSink> {
        let mut out: Vec<&mut dyn RecordSink> = Vec::new();
        if let Some(w) = self.capture.as_mut() {
            out.push(w);
        }
        if let Some(c) = self.csv.as_mut() {
            out.push(c);
        }
        out
    }
}
