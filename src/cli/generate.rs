//! Shell completions and the man page, generated from the clap definitions.

use clap::{Args, CommandFactory, ValueEnum};
use clap_complete::aot::{generate, Shell};
use std::io::Write;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: CompletionShell,
}

pub fn completions(args: CompletionsArgs) -> anyhow::Result<()> {
    let shell = match args.shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut cmd = super::Cli::command();
    let mut out = std::io::stdout().lock();
    generate(shell, &mut cmd, "optics", &mut out);
    out.flush()?;
    Ok(())
}

pub fn man() -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    clap_mangen::Man::new(super::Cli::command()).render(&mut out)?;
    out.flush()?;
    Ok(())
}
