//! `mlxlink -d DEV [-m] [-c] [--show_histogram]` text: sections titled by a line and a line
//! of dashes, then `Field<padding>: value` lines (mstflint `MlxlinkCmdPrint`); values may
//! carry ANSI colour codes, which are dropped.

use super::mlxlink_fields::{to_fragment, Field};
use super::{key_value, Fragment, ParseResult};

/// The text without ANSI escape sequences (`ESC [ ... letter`).
pub fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out.trim().to_string()
}

pub fn parse(text: &str) -> ParseResult<Fragment> {
    let lines: Vec<String> = text.lines().map(strip_ansi).collect();
    let mut section = String::new();
    let mut fields: Vec<Field> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if lines.get(i + 1).is_some_and(|n| n.starts_with("---")) && !line.contains(':') {
            section = line.clone();
            continue;
        }
        if section.is_empty() || line.starts_with("---") {
            continue;
        }
        if let Some((k, v)) = key_value(line) {
            fields.push((section.clone(), k.to_string(), v.to_string()));
        }
    }
    to_fragment(&fields)
}
