mod cli;

use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

fn main() -> ExitCode {
    // `ulimit -f`: past the limit the kernel sends SIGXFSZ, whose default kills the process
    // mid-row with no analysis. Ignored, the write fails with EFBIG instead, which every
    // output handles as a full disk (whole records kept, analysis printed, exit 1).
    // SAFETY: setting a signal's disposition to SIG_IGN before any thread exists.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    // clap colours its help and usage errors by anstream's rules, which colour a terminal
    // under TERM=dumb when CI is set; a dumb terminal shows escape sequences as text, so it
    // gets none there, as the report does (NO_COLOR anstream honours itself).
    let mut command = cli::Cli::command();
    if cli::present::dumb_terminal() {
        command = command.color(clap::ColorChoice::Never);
    }
    let cli = cli::Cli::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit());
    match cli::run(cli) {
        // An output that failed mid-run was reported; the analysis was still printed.
        Ok(_) if cli::errored() => ExitCode::FAILURE,
        Ok(code) => code,
        Err(e) => {
            // A closed pipe (`optics ... | head`) is not an error.
            if e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)) {
                return ExitCode::SUCCESS;
            }
            // Errors quote interface names and capture text: escape their control characters.
            cli::diag(format_args!("optics: error: {}", optics::output::text::escape(&chain_text(&e))));
            cli::exit_status_of(&e)
        }
    }
}

/// The error and its causes joined by ": ", skipping a cause whose text its parent already
/// ends with: a thiserror variant like `#[error("line {line}: {source}")]` both prints and
/// exposes its source, and `{:#}` would repeat it.
fn chain_text(e: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if out.ends_with(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}
