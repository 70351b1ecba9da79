//! How the readable report is shown: the terminal's width, colour, which ports in detail.

use clap::{Args, ValueEnum};
use optics::output::text::{TextOptions, DEFAULT_WIDTH};
use std::io::IsTerminal;

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    #[default]
    Auto,
    Always,
    Never,
}

#[derive(Args, Debug, Clone, Default)]
pub struct DisplayArgs {
    /// Colour the verdict, flagged lanes and margin bars.
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// With several interfaces, show the detail of every port, not only those not accepted.
    #[arg(long)]
    pub all: bool,
}

impl DisplayArgs {
    pub fn options(&self, verbose: bool) -> TextOptions {
        let tty = std::io::stdout().is_terminal();
        TextOptions {
            width: width(tty),
            color: use_color(self.color, tty && !dumb_terminal(), std::env::var_os("NO_COLOR")),
            verbose,
            all: self.all,
        }
    }
}

/// TERM=dumb is a terminal that cannot show escape sequences (Emacs shell, some CI): no
/// colour, and no cursor movement either (the live table writes plain lines there).
pub fn dumb_terminal() -> bool {
    std::env::var_os("TERM").is_some_and(|t| t == "dumb")
}

/// https://no-color.org: a NO_COLOR that is set and not empty turns colour off unless asked for.
fn use_color(choice: ColorChoice, tty: bool, no_color: Option<std::ffi::OsString>) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => tty && no_color.is_none_or(|v| v.is_empty()),
    }
}

/// `COLUMNS` when set, else stdout's terminal width, else 100.
pub fn width(tty: bool) -> usize {
    width_of(libc::STDOUT_FILENO, tty)
}

/// The same for stderr (where `watch` draws its live table).
#[cfg(live)]
pub fn stderr_width() -> usize {
    width_of(libc::STDERR_FILENO, std::io::stderr().is_terminal())
}

fn width_of(fd: libc::c_int, tty: bool) -> usize {
    if let Some(n) = std::env::var("COLUMNS").ok().and_then(|v| v.trim().parse::<usize>().ok()).filter(|n| *n > 0) {
        return n;
    }
    if tty {
        // SAFETY: TIOCGWINSZ writes one winsize into the struct we own; `fd` is stdout or stderr.
        let mut ws: libc::winsize = unsafe { std::mem::zeroed() };
        if unsafe { libc::ioctl(fd, libc::TIOCGWINSZ, &mut ws) } == 0 && ws.ws_col > 0 {
            return usize::from(ws.ws_col);
        }
    }
    DEFAULT_WIDTH
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_wins_only_in_auto() {
        assert!(use_color(ColorChoice::Auto, true, None));
        assert!(!use_color(ColorChoice::Auto, false, None));
        assert!(!use_color(ColorChoice::Auto, true, Some("1".into())));
        assert!(use_color(ColorChoice::Auto, true, Some("".into())));
        assert!(use_color(ColorChoice::Always, false, Some("1".into())));
        assert!(!use_color(ColorChoice::Never, true, None));
    }
}
