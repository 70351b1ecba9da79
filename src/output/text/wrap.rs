//! Fitting text to a width, and keeping what the system hands us from driving the terminal.

use std::borrow::Cow;

/// Characters that move or reorder text without being control characters: the bidi
/// embeddings, overrides and isolates (Unicode UAX #9: U+202A-U+202E, U+2066-U+2069), the
/// implicit marks (U+200E, U+200F, U+061C), and the line and paragraph separators
/// (U+2028, U+2029) that some terminals and editors break lines at. A name holding
/// U+202E would print reversed ("Trojan Source", CVE-2021-42574).
fn is_invisible_layout(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}' | '\u{2028}' | '\u{2029}')
}

fn needs_escape(c: char) -> bool {
    c.is_control() || is_invisible_layout(c)
}

/// Control characters (C0, DEL, C1), bidi overrides and line separators as visible escapes
/// (`\x1b`, `\n`, `\u{9b}`, `\u{202e}`), so an interface name, a vendor string or any text
/// from a capture cannot move the cursor, recolour the terminal, reorder what follows or
/// forge a line of the report.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Columns a plain (uncoloured) string takes: one per char (the report prints no wide glyphs).
pub(crate) fn cols(s: &str) -> usize {
    s.chars().count()
}

/// Greedy word wrap to `width` columns; a word longer than the width is cut. Linear in
/// the text: each line keeps its column count, and a long word is cut by walking its
/// characters once (a 1 MiB word in a capture's event message must not take seconds).
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    let mut line_cols = 0usize;
    for word in text.split_whitespace() {
        let word_cols = cols(word);
        let sep = usize::from(!line.is_empty());
        if line_cols + sep + word_cols <= width {
            if sep == 1 {
                line.push(' ');
            }
            line.push_str(word);
            line_cols += sep + word_cols;
            continue;
        }
        if !line.is_empty() {
            lines.push(std::mem::take(&mut line));
        }
        if word_cols <= width {
            line.push_str(word);
            line_cols = word_cols;
            continue;
        }
        // Alone on the line and still too long: cut it into width-column pieces; the last
        // piece starts the next line, where the following word may join it.
        let mut rest = word;
        let mut rest_cols = word_cols;
        while rest_cols > width {
            let cut = rest.char_indices().nth(width).map_or(rest.len(), |(i, _)| i);
            lines.push(rest[..cut].to_string());
            rest = &rest[cut..];
            rest_cols -= width;
        }
        line.push_str(rest);
        line_cols = rest_cols;
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `items` packed into a column `width` wide, comma-separated, breaking between items.
/// `None` when the longest item does not fit (the caller then puts them on a line of their own).
pub(crate) fn pack(items: &[String], width: usize) -> Option<Vec<String>> {
    if items.iter().any(|i| cols(i) + 1 > width) {
        return None;
    }
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for (n, item) in items.iter().enumerate() {
        let piece = if n + 1 < items.len() { format!("{item},") } else { item.clone() };
        let sep = usize::from(!line.is_empty());
        if !line.is_empty() && cols(&line) + sep + cols(&piece) > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&piece);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    Some(lines)
}

/// A string cut to `width` columns, with `~` marking the cut.
pub(crate) fn fit(s: &str, width: usize) -> String {
    if cols(s) <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('~');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_control_characters_only() {
        assert_eq!(escape("ens3np0"), "ens3np0");
        assert_eq!(escape("e\u{1b}[31mx"), "e\\x1b[31mx");
        assert_eq!(escape("a\nb\tc\u{7f}"), "a\\nb\\tc\\x7f");
        assert_eq!(escape("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(escape("µ-é"), "µ-é");
        // A right-to-left override and a line separator are shown, not obeyed.
        assert_eq!(escape("p0\u{202e}1\u{2028}x"), "p0\\u{202e}1\\u{2028}x");
    }

    #[test]
    fn wraps_at_word_boundaries_and_cuts_long_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap("", 10), vec![""]);
        assert_eq!(wrap("ab abcdefg h", 3), vec!["ab", "abc", "def", "g h"]);
        // One 4 MiB word is cut whole (a cut that re-collected the rest of the word took
        // seconds per MiB: the suite's time, not a timed assertion, would show it).
        let long = "x".repeat(4 << 20);
        assert_eq!(wrap(&long, 100).len(), (4 << 20) / 100 + 1);
        for l in wrap("the quick brown fox jumps over the lazy dog", 7) {
            assert!(cols(&l) <= 7, "{l}");
        }
    }

    #[test]
    fn packs_items_or_declines() {
        let items: Vec<String> = ["low_margin", "dom_warning"].iter().map(|s| s.to_string()).collect();
        assert_eq!(pack(&items, 30).unwrap(), vec!["low_margin, dom_warning"]);
        assert_eq!(pack(&items, 12).unwrap(), vec!["low_margin,", "dom_warning"]);
        assert!(pack(&items, 8).is_none());
        assert_eq!(fit("enP2p1s0f0np0", 6), "enP2p~");
    }
}
