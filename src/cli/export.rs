use super::common::{check_interfaces, load_capture, load_config, records_of};
use anyhow::{bail, Context};
use clap::Args;
use optics::output::csv::CsvSink;
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
    #[arg(long, value_name = "FILE", required_unless_present = "prometheus")]
    pub csv: Option<PathBuf>,
    /// Write the capture's metrics for node_exporter's textfile collector to FILE (atomically).
    #[arg(long, value_name = "FILE")]
    pub prometheus: Option<PathBuf>,
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
    let cap = load_capture(path)?;
    check_interfaces(&cap, &args.interfaces)?;
    if args.prometheus.is_some() {
        super::serve::write_textfile(
            args.prometheus.as_deref(),
            &super::common::analyze_capture(&cap, &args.interfaces, Default::default(), &cfg, None)?,
        )?;
    }
    let Some(csv) = &args.csv else { return Ok(()) };
    let out: Box<dyn Write> = if csv.as_os_str() == "-" {
        Box::new(std::io::stdout().lock())
    } else {
        Box::new(std::fs::File::create(csv).with_context(|| format!("creating {}", csv.display()))?)
    };
    let mut sink = CsvSink::new(out, Some(&cap.header.created), cfg);
    for rec in records_of(&cap, &args.interfaces) {
        sink.record(rec)?;
    }
    Ok(())
}
