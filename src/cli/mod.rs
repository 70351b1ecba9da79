//! Argument parsing and wiring only: validate what the user typed, then call the library.

mod common;
mod compare;
mod decode;
mod export;
mod import;
mod live;
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
    /// Turn tool outputs (mlxlink, ethtool, lspci, support bundles, runbook baselines) into a capture.
    Import(import::ImportArgs),
    /// Decode a module EEPROM image (image JSON, flat binary dump, or ethtool/i2cdump hex text).
    Decode(decode::DecodeArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Scan(args) => scan::run(args),
        Command::Watch(args) => watch::run(args),
        Command::Compare(args) => compare::run(args).map(|()| ExitCode::SUCCESS),
        Command::Export(args) => export::run(args).map(|()| ExitCode::SUCCESS),
        Command::Decode(args) => decode::run(args).map(|()| ExitCode::SUCCESS),
        Command::Import(args) => import::run(args).map(|()| ExitCode::SUCCESS),
    }
}
