//! Pieces every analysing subcommand shares: config, captures, windows -> analysis, output.

use super::inputs::{read_file, MAX_CONFIG_BYTES};
use super::outputs::{remove_created, Guarded, Output};
use super::peer::Peer;
use super::replay::engine_of;
use super::usage;
use anyhow::{bail, Context};
use clap::{Args, ValueEnum};
use optics::analysis::config::Config;
use optics::analysis::segments::SegmentInput;
use optics::analysis::verdict::Verdict;
use optics::analysis::{analyze_selected, InterfaceAnalysis};
use optics::capture::RecordSink;
use optics::capture::{compressed, Capture, CaptureWriter, Header, Record};
use optics::output::csv::CsvSink;
use optics::sample::engine::{Engine, TimeRange};
use optics::sample::intervals::{IntervalPrinter, IntervalStage};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The longest `--interval`/`--duration`/`--window` accepted: ten years is longer than
/// any run, and far from where adding it to a clock reading could overflow.
pub const MAX_DURATION: Duration = Duration::from_secs(10 * 365 * 24 * 3600);

/// Why a duration flag's value is refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum DurationError {
    #[error("{0} (examples: 500ms, 1s, 10m, 2h)")]
    Unreadable(#[from] humantime::DurationError),
    #[error("must be longer than zero")]
    Zero,
    #[error("{0} is longer than the 10 years (87600h) a run can last")]
    TooLong(String),
}

/// `--interval 1s`, `--duration 10m`, `--window 500ms`.
pub fn parse_duration(s: &str) -> Result<Duration, DurationError> {
    let d = humantime::parse_duration(s)?;
    if d.is_zero() {
        return Err(DurationError::Zero);
    }
    if d > MAX_DURATION {
        return Err(DurationError::TooLong(s.to_string()));
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
        assert_eq!(parse_duration("3650d 1s"), Err(DurationError::TooLong("3650d 1s".into())));
        assert!(parse_duration("3650d 1s").unwrap_err().to_string().contains("10 years"));
        assert!(matches!(parse_duration("18446744073709551615s"), Err(DurationError::TooLong(_))));
        assert_eq!(parse_duration("0s"), Err(DurationError::Zero));
        assert!(matches!(parse_duration("1 fortnight"), Err(DurationError::Unreadable(_))));
    }
}

#[derive(Args, Debug, Clone)]
pub struct AnalysisArgs {
    /// Thresholds file (JSON; see docs/config.md) [default: the built-in thresholds].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Print JSON instead of the readable report.
    #[arg(long)]
    pub json: bool,
}

impl AnalysisArgs {
    pub fn config(&self) -> anyhow::Result<Config> {
        load_config(self.config.as_deref())
    }
}

/// Exit status when `--fail-on` is met (1 is an error, 2 a usage error).
pub const VERDICT_FAILED: u8 = 3;

/// `--fail-on` of the commands that give a verdict per interface (`scan`, `watch`);
/// `compare` has its own, which also judges the change.
#[derive(Args, Debug, Clone)]
pub struct FailOnArgs {
    /// Exit with status 3 when any interface's verdict is at least this bad.
    #[arg(long, value_enum, value_name = "VERDICT")]
    pub fail_on: Option<FailOn>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// A verdict of investigate or reject.
    Investigate,
    /// A verdict of reject.
    Reject,
}

impl FailOn {
    /// The least bad verdict that meets it.
    pub fn verdict(self) -> Verdict {
        match self {
            FailOn::Investigate => Verdict::Investigate,
            FailOn::Reject => Verdict::Reject,
        }
    }
}

impl FailOnArgs {
    /// True when `--fail-on` is met by any verdict.
    pub fn failed(&self, analyses: &[InterfaceAnalysis]) -> bool {
        let worst = analyses.iter().map(|a| a.verdict).max();
        self.fail_on.is_some_and(|f| worst >= Some(f.verdict()))
    }
}

/// Options of every subcommand that samples the live system.
#[derive(Args, Debug, Clone)]
pub struct LiveArgs {
    /// Time between live samples (a duration: 500ms, 2s, 1m) [default: 1s].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub interval: Option<Duration>,
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

impl LiveArgs {
    /// `--interval`, or 1 s.
    pub fn interval(&self) -> Duration {
        self.interval.unwrap_or(Duration::from_secs(1))
    }

    /// Refuses the live-sampling flags (and `--window` when `window_given`) on a run that
    /// reads captures instead: silently doing nothing would mislead. (`--verbose` also
    /// shows the counters' sources of a capture, so it is not among them.)
    pub fn refuse_without_live(&self, window_given: bool, source: &str) -> anyhow::Result<()> {
        let given: Vec<&str> = [
            ("--window", window_given),
            ("--interval", self.interval.is_some()),
            ("--record", self.record.is_some()),
            ("--i2c", self.i2c.is_some()),
        ]
        .into_iter()
        .filter_map(|(flag, set)| set.then_some(flag))
        .collect();
        if !given.is_empty() {
            let verb = if given.len() == 1 { "applies" } else { "apply" };
            return Err(usage(format!("{} only {verb} when sampling the live system; it does nothing with {source}", given.join(", "))));
        }
        Ok(())
    }
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
                return Err(usage(format!("--to ({t}) must be after --from ({f})")));
            }
        }
        Ok(TimeRange { from: self.from, to: self.to })
    }
}

/// The thresholds file, or the built-in defaults.
pub fn load_config(path: Option<&Path>) -> anyhow::Result<Config> {
    let Some(p) = path else { return Ok(Config::default()) };
    let load = || -> anyhow::Result<Config> {
        let bytes = read_file(p, MAX_CONFIG_BYTES, "a thresholds file")?;
        let text = String::from_utf8(bytes).map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", p.display()))?;
        Ok(Config::from_json(&text, &p.display().to_string())?)
    };
    load().with_context(|| format!("loading config {}", p.display()))
}

/// Every name in `names` must be an interface the engine has seen.
pub fn check_interfaces(engine: &Engine, names: &[String]) -> anyhow::Result<()> {
    check_names(&engine.interfaces(), names)
}

/// A capture's interfaces in order of first appearance, as the engine lists them
/// (`Engine::interfaces`: every interface, sample and event record names one), and each
/// one's sample spacing: what a pass that only checks a capture needs, in memory that
/// follows the number of interfaces (a few dozen bytes each), not an engine's state.
#[derive(Default)]
pub struct SeenInterfaces {
    pub names: Vec<String>,
    /// Per interface: samples, first and last sample time.
    known: std::collections::HashMap<String, (u64, f64, f64)>,
}

impl SeenInterfaces {
    /// The widest mean sample spacing of the interfaces with two samples or more, seconds
    /// (0 without any): the interval a replayed capture was sampled at.
    pub fn widest_mean_spacing_s(&self) -> f64 {
        self.known.values().filter(|(n, _, _)| *n > 1).map(|(n, first, last)| (last - first) / (n - 1) as f64).fold(0.0, f64::max)
    }
}

impl RecordSink for SeenInterfaces {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        let Some(name) = rec.interface() else { return Ok(()) };
        if !self.known.contains_key(name) {
            self.known.insert(name.to_string(), (0, f64::NAN, f64::NAN));
            self.names.push(name.to_string());
        }
        if let (Record::Sample(s), Some(seen)) = (rec, self.known.get_mut(name)) {
            if seen.0 == 0 {
                seen.1 = s.t;
            }
            seen.0 += 1;
            seen.2 = s.t;
        }
        Ok(())
    }
}

/// Every name in `names` must be one of `have` (the capture's interfaces, in order of
/// first appearance: [`Engine::interfaces`]).
pub fn check_names(have: &[String], names: &[String]) -> anyhow::Result<()> {
    let known: std::collections::HashSet<&String> = have.iter().collect();
    match names.iter().find(|n| !known.contains(n)) {
        Some(name) => bail!("interface {name} is not in the capture (it has: {})", have.join(", ")),
        None => Ok(()),
    }
}

/// The chosen interfaces (all when `only` is empty) analysed with `peer`'s windows.
/// PCIe grouping (a multi-host NIC's netdevs) is computed from every interface of the
/// source, then the chosen ones are kept, so naming one netdev does not change its verdict.
pub fn analyze_engine(engine: &Engine, only: &[String], cfg: &Config, peer: Option<&Peer>) -> anyhow::Result<Vec<InterfaceAnalysis>> {
    check_interfaces(engine, only)?;
    let ws = engine.windows();
    if ws.is_empty() {
        bail!("the capture holds no interface samples");
    }
    let range = engine.config().range;
    if range.is_partial() && ws.iter().all(|w| w.samples == 0) {
        let bounds: Vec<String> =
            [("--from", range.from), ("--to", range.to)].into_iter().filter_map(|(flag, v)| v.map(|v| format!("{flag} {v} s"))).collect();
        bail!("{} selects no sample of the capture", bounds.join(" "));
    }
    let wanted: std::collections::HashSet<&String> = only.iter().collect();
    let selected: Vec<usize> = (0..ws.len()).filter(|i| only.is_empty() || wanted.contains(&ws[*i].interface)).collect();
    // The far end: paired explicitly with the one analysed interface (cli::peer); the
    // windows are copied for it only when there is one.
    let peers = match peer {
        Some(p) => p.windows_for(&selected.iter().map(|i| ws[*i].clone()).collect::<Vec<_>>())?,
        None => Vec::new(),
    };
    let segments = |iface: &str| -> Vec<SegmentInput> {
        engine
            .segments(iface)
            .into_iter()
            .map(|s| SegmentInput { reason: s.reason, break_noun: s.break_noun, from_t: s.from_t, to_t: s.to_t, window: s.window })
            .collect()
    };
    Ok(analyze_selected(&ws, &selected, cfg, &peers, &segments))
}

/// [`analyze_engine`] over in-memory captures.
pub fn analyze_capture(
    cap: &Capture,
    only: &[String],
    range: TimeRange,
    cfg: &Config,
    peer: Option<&Peer>,
) -> anyhow::Result<Vec<InterfaceAnalysis>> {
    analyze_engine(&engine_of(cap, range), only, cfg, peer)
}

/// A fresh capture header for this host.
#[cfg(live)]
pub fn local_header() -> Header {
    let read = |p: &str| std::fs::read_to_string(p).ok().map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    Header::new(
        read("/proc/sys/kernel/hostname"),
        read("/proc/sys/kernel/osrelease"),
        Some(format!("optics {}", env!("CARGO_PKG_VERSION"))),
    )
}

/// The `--record` capture and `--csv` rows a run writes as records arrive, live or replayed
/// (rules: [`super::outputs`]). Dropped without [`FileSinks::finish`] (the run failed), it
/// removes the files it created that hold no sample.
pub struct FileSinks {
    capture: Option<Guarded<CaptureWriter<Output>>>,
    csv: Option<Guarded<CsvSink<Output>>>,
    /// The thresholds the CSV rows' figures are judged by.
    cfg: Config,
    /// Files this run created: (path, true for the CSV).
    created: Vec<(PathBuf, bool)>,
    finished: bool,
}

impl FileSinks {
    /// Opens the outputs the caller checked with [`super::outputs::check_outputs`]; the
    /// capture header is written at once.
    pub fn create(record: Option<&Path>, csv: Option<&Path>, header: &Header, cfg: &Config) -> anyhow::Result<Self> {
        let mut files = FileSinks { capture: None, csv: None, cfg: cfg.clone(), created: Vec::new(), finished: false };
        if let Some(p) = record {
            let out = Output::open("--record", p)?;
            let label = out.label();
            files.created.extend(out.created_path().map(|p| (p, false)));
            let writer = match compressed::wants_zstd(p) {
                true => CaptureWriter::compressed(out, header),
                false => CaptureWriter::new(out, header),
            };
            let writer = writer.with_context(|| format!("{label}: writing the header"))?;
            files.capture = Some(Guarded::new(writer, label));
        }
        if let Some(p) = csv {
            let out = Output::open("--csv", p)?;
            let label = out.label();
            files.created.extend(out.created_path().map(|p| (p, true)));
            files.csv = Some(Guarded::new(CsvSink::new(out, Some(&header.created)).with_host(header.host.clone()), label));
        }
        Ok(files)
    }

    /// The open files as one sink: records into the capture as they come, and the CSV
    /// (beside `more` printers: the live table) through one interval stage, so each
    /// interval's figures are worked out once for all of them.
    pub fn sinks<'a>(&'a mut self, more: Vec<&'a mut dyn IntervalPrinter>) -> RunSinks<'a> {
        let mut printers = more;
        if let Some(c) = self.csv.as_mut() {
            printers.push(c);
        }
        let capture = self.capture.as_mut().map(|w| w as &mut dyn RecordSink);
        RunSinks { capture, stage: IntervalStage::new(self.cfg.clone(), printers) }
    }

    /// The run ended normally: a CSV that got no row (stopped before the first sample) is
    /// removed rather than left empty without its header row; the capture keeps its header.
    pub fn finish(mut self) {
        self.finished = true;
        self.close();
        if self.csv.as_ref().is_some_and(|c| c.samples == 0) {
            for (p, _) in self.created.iter().filter(|(_, csv)| *csv) {
                remove_created(p, "no sample was taken, so it would hold no header or row");
            }
        }
    }
}

impl FileSinks {
    /// Ends every file's stream (a compressed capture's last frame); failures are reported
    /// by the guard and make the exit status non-zero.
    fn close(&mut self) {
        let _ = self.sinks(Vec::new()).finish();
    }
}

/// [`FileSinks::sinks`]: the capture writer and the interval stage, one sink.
pub struct RunSinks<'a> {
    capture: Option<&'a mut dyn RecordSink>,
    stage: IntervalStage<'a>,
}

impl RecordSink for RunSinks<'_> {
    fn record(&mut self, rec: &optics::capture::Record) -> std::io::Result<()> {
        if let Some(c) = self.capture.as_mut() {
            c.record(rec)?;
        }
        self.stage.record(rec)
    }

    fn end_tick(&mut self, sampling: std::time::Duration) -> std::io::Result<()> {
        if let Some(c) = self.capture.as_mut() {
            c.end_tick(sampling)?;
        }
        self.stage.end_tick(sampling)
    }

    fn finish(&mut self) -> std::io::Result<()> {
        if let Some(c) = self.capture.as_mut() {
            c.finish()?;
        }
        self.stage.finish()
    }
}

impl Drop for FileSinks {
    fn drop(&mut self) {
        if !self.finished {
            self.close();
        }
        let samples = self.capture.as_ref().map_or(0, |c| c.samples) + self.csv.as_ref().map_or(0, |c| c.samples);
        if !self.finished && samples == 0 {
            for (p, _) in &self.created {
                remove_created(p, "the run failed before writing a sample");
            }
        }
    }
}

/// What to sample live, and where the samples go (`scan`, `watch`, `compare`). A build
/// without the live sources refuses before reading it.
#[cfg_attr(not(live), allow(dead_code))]
pub struct LivePlan {
    pub interfaces: Vec<String>,
    pub interval: Duration,
    pub duration: Option<Duration>,
    pub i2c: Option<PathBuf>,
    pub record: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    /// The live table's verdict column judges this window (`watch --judge-window`).
    pub judge_window: Option<Duration>,
}
