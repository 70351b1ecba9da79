//! Fitting text to a width, and keeping what the system hands us from driving the terminal.

use std::borrow::Cow;

/// Control characters (C0, DEL, C1) as visible escapes (`\x1b`, `\n`, `\u{9b}`), so an
/// interface name, a vendor string or any text from a capture cannot move the cursor,
/// recolour the terminal or forge a line of the report.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Columns a plain (uncoloured) string takes: one per char (the report prints no wide glyphs).
pub fn cols(s: &str) -> usize {
    s.chars().count()
}

/// Greedy word wrap to `width` columns; a word longer than the width is cut.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        let mut word: String = word.to_string();
        loop {
            let sep = usize::from(!line.is_empty());
            if cols(&line) + sep + cols(&word) <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.push_str(&word);
                break;
            }
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            // Alone on the line and still too long: cut it.
            let head: String = word.chars().take(width).collect();
            word = word.chars().skip(width).collect();
            lines.push(head);
            if word.is_empty() {
                break;
            }
        }
    }
    if !line.is_empty() || lines.is_empty() {
        lines.push(line);
    }
    lines
}

/// `items` packed into a column `width` wide, comma-separated, breaking between items.
/// `None` when the longest item does not fit (the caller then puts them on a line of their own).
pub fn pack(items: &[String], width: usize) -> Option<Vec<String>> {
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
pub fn fit(s: &str, width: usize) -> String {
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
    }

    #[test]
    fn wraps_at_word_boundaries_and_cuts_long_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
        assert_eq!(wrap("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(wrap("", 10), vec![""]);
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
