use super::common::{check_interfaces, load_config, replay_capture};
use anyhow::{bail, Context};
use clap::Args;
use optics::output::csv::CsvSink;
use optics::sample::capture::read_header;
use optics::sample::engine::TimeRange;
use optics::sample::RecordSink;
use std::io::Write;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The capture to export.
    #[arg(required_unless_present = "replay")]
    pub capture: Option<PathBuf>,
    /// The capture to export (same as the positional argument).
    #[arg(long, value_name = "CAPTURE", conflicts_with = "capture")]
    pub replay: Option<PathBuf>,
    /// Write lane rows as CSV to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub csv: PathBuf,
    /// Only these interfaces.
    #[arg(long = "interface", value_name = "IFACE")]
    pub interfaces: Vec<String>,
    /// Thresholds file (JSON): margins in the rows use it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let Some(path) = args.capture.as_ref().or(args.replay.as_ref()) else { bail!("name the capture to export") };
    let cfg = load_config(args.config.as_deref())?;
    let header = read_header(path).with_context(|| format!("capture {}", path.display()))?;
    let to_stdout = args.csv.as_os_str() == "-";
    let out: Box<dyn Write> = if to_stdout {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(&args.csv).with_context(|| format!("creating {}", args.csv.display()))?)
    };
    let mut sink = CsvSink::new(out, Some(&header.created), cfg);
    let checked = replay_capture(path, TimeRange::whole(), &args.interfaces, &mut [&mut sink as &mut dyn RecordSink])
        .and_then(|(engine, _)| check_interfaces(&engine, &args.interfaces));
    if checked.is_err() && !to_stdout {
        // Only this run wrote the file: a failed export leaves no half-written CSV.
        drop(sink);
        let _ = std::fs::remove_file(&args.csv);
    }
    checked
}
