//! Argument parsing and wiring only: validate what the user typed, then call the library.

mod common;
mod compare;
mod decode;
mod export;
mod live;
pub mod outputs;
mod peer;
mod scan;
mod watch;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "optics", version, about = "Find the physical-layer faults hiding under a green high-speed link")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Sample an interface briefly (or replay a capture), rank lanes by margin, give a verdict.
    Scan(scan::ScanArgs),
    /// Sample interfaces over time; record a capture and/or stream CSV; analyse at the end.
    Watch(watch::WatchArgs),
    /// Before/after per lane: did the swap or clean help?
    Compare(compare::CompareArgs),
    /// Export a capture as CSV lane rows.
    Export(export::ExportArgs),
    /// Decode a module EEPROM image (image JSON, flat binary dump, or ethtool/i2cdump hex text).
    Decode(decode::DecodeArgs),
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
        Command::Scan(args) => scan::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Export(args) => export::run(args).map(|()| ExitCode::SUCCESS),
        Command::Decode(args) => decode::run(args).map(|()| ExitCode::SUCCESS),
    }
}
