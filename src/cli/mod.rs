//! Argument parsing and wiring only: validate what the user typed, then call the library.

mod decode;

use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(name = "optics", version, about = "Find the physical-layer faults hiding under a green high-speed link")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Decode a module EEPROM image (image JSON, flat binary dump, or ethtool/i2cdump hex text).
    Decode(decode::DecodeArgs),
}

pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Decode(args) => decode::run(args),
    }
}
