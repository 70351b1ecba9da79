use super::common::{check_interfaces, load_config, replay_capture};
use anyhow::{bail, Context};
use clap::Args;
use optics::output::csv::CsvSink;
use optics::sample::capture::read_header;
use optics::sample::engine::TimeRange;
use optics::sample::RecordSink;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The capture to export.
    #[arg(required_unless_present = "replay")]
    pub capture: Option<PathBuf>,
    /// The capture to export (same as the positional argument).
    #[arg(long, value_name = "CAPTURE", conflicts_with = "capture")]
    pub replay: Option<PathBuf>,
    /// Write lane rows as CSV to this file (`-` for standard output).
    #[arg(long, value_name = "FILE", required_unless_present = "json")]
    pub csv: Option<PathBuf>,
    /// Write the same rows as JSON Lines (one object per row) to this file (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Only these interfaces.
    #[arg(long = "interface", value_name = "IFACE")]
    pub interfaces: Vec<String>,
    /// Thresholds file (JSON): margins in the rows use it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
}

/// An output file, or standard output for `-`; `created` says whether this run made it.
fn open_output(path: &Path) -> anyhow::Result<(Box<dyn Write>, bool)> {
    if path.as_os_str() == "-" {
        return Ok((Box::new(std::io::stdout().lock()), false));
    }
    let file = std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    Ok((Box::new(std::io::BufWriter::new(file)), true))
}

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let Some(path) = args.capture.as_ref().or(args.replay.as_ref()) else { bail!("name the capture to export") };
    if let (Some(c), Some(j)) = (&args.csv, &args.json) {
        if c == j {
            bail!("--csv and --json name the same file {}", c.display());
        }
    }
    let cfg = load_config(args.config.as_deref())?;
    let header = read_header(path).with_context(|| format!("capture {}", path.display()))?;
    let mut made: Vec<&Path> = Vec::new();
    let mut sinks: Vec<CsvSink<Box<dyn Write>>> = Vec::new();
    for (target, json) in [(&args.csv, false), (&args.json, true)] {
        let Some(p) = target else { continue };
        let (out, created) = open_output(p)?;
        if created {
            made.push(p);
        }
        let sink = if json {
            CsvSink::json_lines(out, Some(&header.created), cfg.clone())
        } else {
            CsvSink::new(out, Some(&header.created), cfg.clone())
        };
        sinks.push(sink.with_host(header.host.clone()));
    }
    let mut refs: Vec<&mut dyn RecordSink> = sinks.iter_mut().map(|s| s as &mut dyn RecordSink).collect();
    let checked = replay_capture(path, TimeRange::whole(), &args.interfaces, &mut refs)
        .and_then(|(engine, _)| check_interfaces(&engine, &args.interfaces));
    drop(refs);
    drop(sinks); // flushes
    if checked.is_err() {
        // Only this run wrote these files: a failed export leaves no half-written output.
        for p in made {
            let _ = std::fs::remove_file(p);
        }
    }
    checked
}
