//! `optics import FILE|DIR... -o CAPTURE`: tool outputs into a capture (docs/import.md).

use super::inputs::{self, Opened};
use super::outputs::{check_outputs, remove_created, Output};
use super::usage;
use anyhow::{bail, Context};
use clap::Args;
use optics::capture::{compressed, Capture, CaptureReader, CaptureWriter, Record};
use optics::source::import::walk::{parse_read, read_input, ParsedFile};
use optics::source::import::{import, import_parsed, ImportError, ImportOptions, Imported};
use std::path::{Path, PathBuf};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Tool outputs or directories of them (a sosreport, a runbook baseline folder). Each
    /// argument is one snapshot of the interfaces it covers.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// The capture to write.
    #[arg(short, long, value_name = "CAPTURE")]
    pub output: PathBuf,
    /// When an input was taken (time base when the content has none): `FILE=2026-12-01T10:00:00Z`.
    #[arg(long, value_name = "FILE=RFC3339", value_parser = parse_at)]
    pub at: Vec<(PathBuf, OffsetDateTime)>,
    /// A lone snapshot's counters cover the last N seconds (e.g. counters cleared N s before).
    #[arg(long, value_name = "SECONDS", value_parser = parse_positive)]
    pub window_s: Option<f64>,
    /// A lone snapshot's counters cover the time since boot (needs the uptime in the input).
    #[arg(long)]
    pub since_boot: bool,
    /// The interface of files that name none (`counters.baseline`).
    #[arg(long = "interface", value_name = "IFACE")]
    pub interface: Option<String>,
}

/// Why an `--at` is refused.
#[derive(Debug, thiserror::Error)]
enum AtError {
    #[error("expected FILE=RFC3339, e.g. a.json=2026-12-01T10:00:00Z")]
    NoTime,
    #[error("{when:?} is not RFC 3339: {error}")]
    NotRfc3339 { when: String, error: time::error::Parse },
}

fn parse_at(s: &str) -> Result<(PathBuf, OffsetDateTime), AtError> {
    let (path, when) = s.rsplit_once('=').ok_or(AtError::NoTime)?;
    let t = OffsetDateTime::parse(when, &Rfc3339).map_err(|error| AtError::NotRfc3339 { when: when.to_string(), error })?;
    Ok((PathBuf::from(path), t))
}

/// A `--window-s` that is not a number of seconds above 0.
#[derive(Debug, thiserror::Error)]
#[error("a number of seconds above 0")]
struct NotPositive;

fn parse_positive(s: &str) -> Result<f64, NotPositive> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(NotPositive),
    }
}

pub fn run(args: ImportArgs) -> anyhow::Result<()> {
    for (p, _) in &args.at {
        if !args.inputs.contains(p) {
            return Err(usage(format!("--at {}: not one of the inputs", p.display())));
        }
    }
    if args.window_s.is_some() && args.since_boot {
        return Err(usage("--window-s and --since-boot both give a lone snapshot's span: choose one"));
    }
    let opts =
        ImportOptions { at: args.at.clone(), window_s: args.window_s, since_boot: args.since_boot, interface: args.interface.clone() };
    let inputs: Vec<(&str, Option<&Path>)> = args.inputs.iter().map(|p| ("input", Some(p.as_path()))).collect();
    check_outputs(&[("--output", Some(&args.output))], &inputs)?;
    let imported = import(&args.inputs, &opts).context("importing")?;
    write_capture(&args.output, &imported.capture)?;
    for n in &imported.notes {
        super::diag(format_args!("optics: import: {n}"));
    }
    Ok(())
}

/// Locked, whole lines, `-` for stdout (rules: [`super::outputs`]); a capture this run
/// created and could not finish is removed.
fn write_capture(path: &Path, cap: &Capture) -> anyhow::Result<()> {
    let out = Output::open("--output", path)?;
    let created = out.created_path();
    let writer = match compressed::wants_zstd(path) {
        true => CaptureWriter::compressed(out, &cap.header),
        false => CaptureWriter::new(out, &cap.header),
    };
    let written = writer.and_then(|mut w| {
        cap.records.iter().try_for_each(|r| w.write(r))?;
        w.finish()
    });
    if let Err(e) = written {
        if let Some(p) = created {
            remove_created(&p, "the import could not be written whole");
        }
        return Err(e).with_context(|| format!("writing {}", path.display()));
    }
    Ok(())
}

/// One side of `compare`: a capture (opened once, streamed through the engine when
/// analysed, so memory follows its interfaces, not its length), or imported tool output
/// (one snapshot per file: small) held in memory.
pub enum Input {
    Capture(PathBuf, CaptureReader<Opened>),
    Imported(Capture),
}

/// What one of `compare`'s arguments holds, each file read once (a pipe works).
/// Boxed: the variants' sizes differ by hundreds of bytes.
enum Read {
    Capture(Box<CaptureReader<Opened>>),
    /// A tool output file, parsed (one file per command of a paste of several).
    Tool(Vec<ParsedFile>),
    /// A folder of tool outputs (read by the import walk).
    Folder,
}

fn read_arg(path: &Path) -> anyhow::Result<Read> {
    if path.is_dir() {
        return Ok(Read::Folder);
    }
    let input = inputs::open(path, "reading")?;
    if input.is_capture {
        return Ok(Read::Capture(Box::new(input.capture(path)?)));
    }
    let bytes = input.read_all(path, inputs::MAX_TOOL_OUTPUT_BYTES, "a tool output")?;
    let parsed = parse_read(path, &bytes).with_context(|| format!("reading {}", path.display()))?;
    if parsed.is_empty() {
        bail!("{}", ImportError::Unrecognised { path: path.to_path_buf() });
    }
    Ok(Read::Tool(parsed))
}

/// `compare`'s inputs: captures, or anything `import` reads (two tool outputs: the baseline
/// alone, and the interval from it to AFTER); notes go to stderr.
pub fn load_inputs(before: &Path, after: Option<&Path>) -> anyhow::Result<(Input, Option<Input>)> {
    let b = read_arg(before)?;
    let a = after.map(read_arg).transpose()?;
    let opts = ImportOptions::default();
    let one = |path: &Path, read: Read| -> anyhow::Result<Input> {
        match read {
            Read::Capture(r) => Ok(Input::Capture(path.to_path_buf(), *r)),
            Read::Tool(parsed) => {
                let imported = import_parsed(&[path.to_path_buf()], &[parsed], Vec::new(), &opts);
                Ok(Input::Imported(checked(path, imported.with_context(|| format!("reading {}", path.display()))?)?))
            }
            Read::Folder => {
                let imported = import(&[path.to_path_buf()], &opts).with_context(|| format!("reading {}", path.display()))?;
                Ok(Input::Imported(checked(path, imported)?))
            }
        }
    };
    match (b, a, after) {
        (b, None, _) | (b, _, None) => Ok((one(before, b)?, None)),
        (b @ Read::Capture(_), Some(a), Some(after)) | (b, Some(a @ Read::Capture(_)), Some(after)) => {
            Ok((one(before, b)?, Some(one(after, a)?)))
        }
        (b, Some(a), Some(after)) => {
            // The baseline alone, and the interval from it to AFTER.
            let both = [before.to_path_buf(), after.to_path_buf()];
            let shown = || format!("reading {} and {}", before.display(), after.display());
            let (b_files, a_files) = (parsed_or_read(before, b)?, parsed_or_read(after, a)?);
            let alone = import_parsed(&both[..1], std::slice::from_ref(&b_files), Vec::new(), &opts).with_context(shown)?;
            let pair = import_parsed(&both, &[b_files, a_files], Vec::new(), &opts).with_context(shown)?;
            Ok((Input::Imported(checked(before, alone)?), Some(Input::Imported(checked(after, pair)?))))
        }
    }
}

/// A tool output's parsed files: the one already read, or those of a folder.
fn parsed_or_read(path: &Path, read: Read) -> anyhow::Result<Vec<ParsedFile>> {
    match read {
        Read::Tool(parsed) => Ok(parsed),
        _ => {
            let mut notes = Vec::new();
            let files = read_input(path, &mut notes).with_context(|| format!("reading {}", path.display()))?;
            for n in notes {
                super::diag(format_args!("optics: note: {}: {n}", path.display()));
            }
            Ok(files)
        }
    }
}

fn checked(path: &Path, imported: Imported) -> anyhow::Result<Capture> {
    for n in imported.capture.notes.iter().chain(&imported.notes) {
        super::diag(format_args!("optics: note: {}: {n}", path.display()));
    }
    if imported.capture.records.iter().all(|r| !matches!(r, Record::Sample(_))) {
        bail!("{}: no samples to analyse", path.display());
    }
    Ok(imported.capture)
}
