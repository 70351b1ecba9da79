//! Capture lines straight from a `BufRead`'s buffer: a line that lies whole in the buffer
//! is handed out in place (no copy); only one that straddles a refill is gathered into
//! an owned buffer.

use super::{CaptureError, MAX_LINE_BYTES};
use std::io::BufRead;

pub(super) struct Lines<R: BufRead> {
    reader: R,
    /// Bytes of the line handed out in place (and its newline), consumed on the next call.
    pending: usize,
    /// A line gathered across refills.
    buf: Vec<u8>,
    /// Number of the line last read (1-based).
    line: usize,
}

impl<R: BufRead> Lines<R> {
    pub(super) fn new(reader: R) -> Self {
        Lines { reader, pending: 0, buf: Vec::new(), line: 0 }
    }

    /// The next non-blank line (without its newline) and its 1-based number; `None` at the
    /// end of the input. A last line without a newline is returned as it is.
    pub(super) fn next_line(&mut self) -> Result<Option<(usize, &[u8])>, CaptureError> {
        let in_place = loop {
            self.reader.consume(std::mem::take(&mut self.pending));
            self.buf.clear();
            let in_place = loop {
                let avail = match self.reader.fill_buf() {
                    Ok(avail) => avail,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e.into()),
                };
                if avail.is_empty() {
                    if self.buf.is_empty() {
                        return Ok(None);
                    }
                    break None;
                }
                if let Some(end) = memchr::memchr(b'\n', avail) {
                    if self.buf.is_empty() {
                        break Some(end);
                    }
                    self.buf.extend_from_slice(&avail[..end]);
                    self.reader.consume(end + 1);
                    break None;
                }
                let n = avail.len();
                self.buf.extend_from_slice(avail);
                self.reader.consume(n);
                // Held: at most the limit plus one buffer's worth.
                if self.buf.len() > MAX_LINE_BYTES {
                    break None;
                }
            };
            self.line += 1;
            let len = in_place.unwrap_or(self.buf.len());
            if len > MAX_LINE_BYTES {
                return Err(CaptureError::LineTooLong { line: self.line, limit: MAX_LINE_BYTES });
            }
            let blank = match in_place {
                Some(end) => self.reader.fill_buf()?.get(..end).is_some_and(|l| l.iter().all(u8::is_ascii_whitespace)),
                None => self.buf.iter().all(u8::is_ascii_whitespace),
            };
            if let Some(end) = in_place {
                self.pending = end + 1;
            }
            if !blank {
                break in_place;
            }
        };
        let line = match in_place {
            // The bytes just found are still buffered: `fill_buf` hands back the unconsumed
            // buffer without reading.
            Some(end) => self.reader.fill_buf()?.get(..end).ok_or_else(|| std::io::Error::other("the reader dropped buffered bytes"))?,
            None => &self.buf[..],
        };
        Ok(Some((self.line, line)))
    }
}

#[cfg(test)]
mod tests {
    use super::Lines;
    use crate::capture::{CaptureError, MAX_LINE_BYTES};
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn lines_split_as_text_does(
            text in prop::collection::vec(prop::sample::select(b"ab \t\r\n\n".to_vec()), 0..200),
            capacity in 1usize..24,
        ) {
            let mut expected = Vec::new();
            let mut segments: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
            if text.is_empty() || text.ends_with(b"\n") {
                segments.pop();
            }
            for (i, seg) in segments.into_iter().enumerate() {
                if !seg.iter().all(u8::is_ascii_whitespace) {
                    expected.push((i + 1, seg.to_vec()));
                }
            }
            let mut lines = Lines::new(std::io::BufReader::with_capacity(capacity, &text[..]));
            let mut got = Vec::new();
            while let Some((n, line)) = lines.next_line().expect("reading a slice") {
                got.push((n, line.to_vec()));
            }
            prop_assert_eq!(got, expected);
        }
    }

    #[test]
    fn a_line_past_the_limit_is_refused_wherever_the_buffer_ends() {
        let long = || std::io::Read::take(std::io::repeat(b'a'), MAX_LINE_BYTES as u64 + 1);
        let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, long()));
        assert!(matches!(lines.next_line(), Err(CaptureError::LineTooLong { line: 1, .. })));
        // The longest allowed line, then a newline and a short one.
        let at_limit = std::io::Read::chain(std::io::Read::take(std::io::repeat(b'a'), MAX_LINE_BYTES as u64), &b"\nb"[..]);
        let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, at_limit));
        assert_eq!(lines.next_line().unwrap().map(|(n, l)| (n, l.len())), Some((1, MAX_LINE_BYTES)));
        assert_eq!(lines.next_line().unwrap().map(|(n, l)| (n, l.to_vec())), Some((2, b"b".to_vec())));
        assert!(lines.next_line().unwrap().is_none());
    }
}
