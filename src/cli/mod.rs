//! Argument parsing and wiring only: validate what the user typed, then call the library.

mod check;
mod common;
mod compare;
mod decode;
mod export;
mod generate;
mod import;
mod inputs;
#[cfg_attr(not(live), path = "offline.rs")]
mod live;
pub mod outputs;
mod peer;
mod plot;
pub(crate) mod present;
mod replay;
mod report;
mod scan;
mod serve;
mod stop;
mod watch;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Every exit status, for `--help` and the README.
pub const EXIT_CODES: &str = "\
Exit status:
  0  done; with --check: OK (accept)
  1  error: bad input, unknown interface, unreadable file; with --check: WARNING (investigate)
  2  usage error (a flag or value clap refuses, a profile no config defines, a flag
     that does nothing with this input), with --check too; with --check: CRITICAL (reject)
  3  --fail-on met; with --check: UNKNOWN (no data, or an error such as an unreadable capture)";

#[derive(Parser, Debug)]
#[command(name = "optics", version, about = "Find the physical-layer faults hiding under a green high-speed link", after_help = EXIT_CODES)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Sample interfaces briefly (or replay a capture), rank their lanes by margin, give a verdict.
    #[command(after_help = EXIT_CODES)]
    Scan(scan::ScanArgs),
    /// Sample interfaces over time, record a capture or stream CSV as it goes, analyse the run at the end.
    ///
    /// The live table shows each last interval (and, with --judge-window, a verdict over that
    /// window); the analysis printed at the end is over the whole run, as a recording is.
    #[command(after_help = EXIT_CODES)]
    Watch(watch::WatchArgs),
    /// Compare per lane before and after a swap or clean (two captures, or a baseline and the port now).
    Compare(compare::CompareArgs),
    /// Export a capture's lane rows (CSV, JSON Lines) or its metrics (a Prometheus textfile).
    Export(export::ExportArgs),
    /// Import tool outputs (mlxlink, ethtool, lspci, support bundles, switch views) into a capture.
    Import(import::ImportArgs),
    /// Decode a module: a live port's (--interface) or an EEPROM image (image JSON, binary, hex text).
    Decode(decode::DecodeArgs),
    /// Serve per-lane margin, BER and verdicts to Prometheus (a daemon; scrapes never touch hardware).
    Serve(serve::ServeArgs),
    /// Plot a capture as SVG: BER against rx power, margin over time, or the FEC histogram.
    Plot(plot::PlotArgs),
    /// Write Markdown evidence for a ticket: node, module, measured, expected, ruled out, conclusion.
    Report(report::ReportArgs),
    /// Print shell completions (bash, zsh, fish) on stdout.
    #[command(after_help = generate::COMPLETION_INSTALL)]
    Completions(generate::CompletionsArgs),
    /// Print man pages (roff): optics(1), `optics man scan` for optics-scan(1); `--dir DIR` writes them all.
    Man(generate::ManArgs),
}

/// A mistake in what was typed that only shows after parsing (a flag that does nothing
/// with this input, a profile the config file does not define): exit status 2, as clap's
/// own usage errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(String);

/// The error of a usage mistake ([`UsageError`]).
pub fn usage(message: impl Into<String>) -> anyhow::Error {
    UsageError(message.into()).into()
}

/// Whether `e` is (or was caused by) a usage mistake.
pub fn is_usage(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.is::<UsageError>())
}

/// The exit status of a failed run: 2 for a usage mistake, 1 for any other error.
pub fn exit_status_of(e: &anyhow::Error) -> ExitCode {
    if is_usage(e) {
        ExitCode::from(2)
    } else {
        ExitCode::FAILURE
    }
}

/// Writes one diagnostic line to stderr. A closed or full stderr (`2>/dev/full`) must not
/// panic as `eprintln!` does, nor change the exit status: the line is dropped.
pub fn diag(args: std::fmt::Arguments) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_fmt(args).and_then(|()| err.write_all(b"\n"));
}

static ERRORED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// An error was reported on stderr while the run went on (an output failed): the exit
/// status must say so (ripgrep's `messages::set_errored`).
pub fn set_errored() {
    ERRORED.store(true, std::sync::atomic::Ordering::Relaxed);
}

pub fn errored() -> bool {
    ERRORED.load(std::sync::atomic::Ordering::Relaxed)
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Scan(args) => check::guard(args.check.check, || scan::run(args)),
        Command::Watch(args) => check::guard(args.check.check, || watch::run(args)),
        Command::Compare(args) => compare::run(args),
        Command::Export(args) => export::run(args).map(|()| ExitCode::SUCCESS),
        Command::Decode(args) => decode::run(args).map(|()| ExitCode::SUCCESS),
        Command::Serve(args) => serve::run(args).map(|()| ExitCode::SUCCESS),
        Command::Import(args) => import::run(args).map(|()| ExitCode::SUCCESS),
        Command::Plot(args) => plot::run(args).map(|()| ExitCode::SUCCESS),
        Command::Report(args) => report::run(args).map(|()| ExitCode::SUCCESS),
        Command::Completions(args) => generate::completions(args).map(|()| ExitCode::SUCCESS),
        Command::Man(args) => generate::man(args).map(|()| ExitCode::SUCCESS),
    }
}
