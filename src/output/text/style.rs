//! Colour on a terminal only: the verdict, flagged lanes and the margin bar. Colour is
//! added to whole laid-out lines, so widths are always measured on plain text.

use crate::analysis::{Severity, Verdict};
use anstyle::{AnsiColor, Style};

fn fg(c: AnsiColor) -> Style {
    Style::new().fg_color(Some(c.into()))
}

/// How bad something is, for colour: none, fine, look at it, reject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Tone {
    Plain,
    Good,
    Warn,
    Bad,
}

impl From<Verdict> for Tone {
    fn from(v: Verdict) -> Tone {
        match v {
            Verdict::Accept => Tone::Good,
            Verdict::Investigate => Tone::Warn,
            Verdict::Reject => Tone::Bad,
        }
    }
}

impl From<Severity> for Tone {
    fn from(s: Severity) -> Tone {
        match s {
            Severity::Info => Tone::Plain,
            Severity::Investigate => Tone::Warn,
            Severity::Reject => Tone::Bad,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct Painter {
    pub(crate) color: bool,
}

impl Painter {
    pub(crate) fn paint(&self, s: &str, tone: Tone) -> String {
        self.styled(s, tone, false)
    }

    pub(crate) fn bold(&self, s: &str, tone: Tone) -> String {
        self.styled(s, tone, true)
    }

    fn styled(&self, s: &str, tone: Tone, bold: bool) -> String {
        let style = match tone {
            Tone::Plain => Style::new(),
            Tone::Good => fg(AnsiColor::Green),
            Tone::Warn => fg(AnsiColor::Yellow),
            Tone::Bad => fg(AnsiColor::Red),
        };
        let style = if bold { style.bold() } else { style };
        if !self.color || style == Style::new() {
            return s.to_string();
        }
        format!("{}{s}{}", style.render(), style.render_reset())
    }
}
