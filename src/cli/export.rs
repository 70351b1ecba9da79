use super::common::{check_interfaces, load_capture, load_config, records_of};
use super::outputs::{check_outputs, remove_created, Output};
use anyhow::{bail, Context};
use clap::Args;
use optics::output::csv::CsvSink;
use optics::sample::RecordSink;
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
    check_outputs(&[("--csv", args.csv.as_deref()), ("--prometheus", args.prometheus.as_deref())], &[Some(path), args.config.as_deref()])?;
    let cfg = load_config(args.config.as_deref())?;
    let cap = load_capture(path)?;
    check_interfaces(&cap, &args.interfaces)?;
    if args.prometheus.is_some() {
        let analyses = super::common::analyze_capture(&cap, &args.interfaces, Default::default(), &cfg, None)?;
        super::serve::write_textfile(args.prometheus.as_deref(), &analyses)?;
    }
    let Some(csv) = &args.csv else { return Ok(()) };
    let out = Output::open("--csv", csv)?;
    let (label, created) = (out.label(), out.created_path());
    let mut sink = CsvSink::new(out, Some(&cap.header.created), cfg);
    for rec in records_of(&cap, &args.interfaces) {
        if let Err(e) = sink.record(rec) {
            // Rows written so far are whole; a file holding none is not left behind.
            if let Some(p) = created.as_deref().filter(|p| std::fs::metadata(p).is_ok_and(|m| m.len() == 0)) {
                remove_created(p, "export failed before its first row");
            }
            return Err(e).with_context(|| label.clone());
        }
    }
    Ok(())
}
