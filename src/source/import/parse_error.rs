//! Why a parser could not read a file of the format it was recognised as: the detail of
//! [`ImportError::Parse`](super::ImportError::Parse), which adds the file and the format.
//!
//! The kind says what went wrong (the text is not the format's syntax, a part is absent, a
//! value does not read, the input is usable only given another way, a bound was passed);
//! the words say it to the person who gave the file.

use std::fmt;
use thiserror::Error;

/// What a parser returns.
pub type ParseResult<T> = Result<T, ParseError>;

/// Why a recognised file could not be parsed.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ParseError {
    /// Not the text the format is written in: not UTF-8, not JSON (the decoder's words).
    #[error("{0}")]
    Syntax(String),
    /// A part the format always prints is absent: `no {0}`.
    #[error("no {0}")]
    Missing(String),
    /// A value or line that does not read as the tool prints it (the value, and what it
    /// should be).
    #[error("{0}")]
    Malformed(String),
    /// Where in the file (a row, a field, a port) the inner error is.
    #[error("{at}: {error}")]
    At {
        /// The row, field or port, as the file names it.
        at: String,
        /// What is wrong there.
        error: Box<ParseError>,
    },
    /// Recognised, but not usable as given: what is wrong, and what to give or run instead.
    #[error("{problem}: {instead}")]
    Refused {
        /// What makes the input unusable.
        problem: String,
        /// What to give or run instead.
        instead: &'static str,
    },
    /// More of something than one output of the tool can hold: refused so that memory stays
    /// bounded by what a real output needs.
    #[error("more than {max} {what}")]
    TooMany {
        /// What there are too many of (`ports in one output`).
        what: &'static str,
        /// The most that is read.
        max: usize,
    },
}

impl ParseError {
    /// A part the format always prints is absent (`what` reads after "no ").
    pub(crate) fn missing(what: impl Into<String>) -> Self {
        Self::Missing(what.into())
    }

    /// A value or line that does not read as the tool prints it.
    pub(crate) fn malformed(what: impl Into<String>) -> Self {
        Self::Malformed(what.into())
    }

    /// Recognised but not usable as given; `instead` says what to give or run.
    pub(crate) fn refused(problem: impl Into<String>, instead: &'static str) -> Self {
        Self::Refused { problem: problem.into(), instead }
    }

    /// Not the format's syntax (a decoder's own error).
    pub(crate) fn syntax(e: impl fmt::Display) -> Self {
        Self::Syntax(e.to_string())
    }

    /// This error, located at `at` (a row, a field, a port).
    pub(crate) fn at(self, at: impl fmt::Display) -> Self {
        Self::At { at: at.to_string(), error: Box::new(self) }
    }

    /// The error under any [`At`](Self::At) locations: what went wrong, wherever it was.
    #[cfg(test)]
    pub(crate) fn kind(&self) -> &Self {
        match self {
            Self::At { error, .. } => error.kind(),
            e => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_located_error_reads_outermost_first_and_keeps_its_kind() {
        let e = ParseError::malformed("\"x\" is not a number").at("Rx Power").at("row 3");
        assert_eq!(e.to_string(), "row 3: Rx Power: \"x\" is not a number");
        assert!(matches!(e.kind(), ParseError::Malformed(_)));
        assert_eq!(ParseError::missing("`driver:` line").to_string(), "no `driver:` line");
        assert_eq!(ParseError::TooMany { what: "ports in one output", max: 4 }.to_string(), "more than 4 ports in one output");
    }
}
