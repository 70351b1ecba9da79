//! Reading what the user names, once and bounded (docs/capture-format.md "Bounds").
//!
//! - Zstandard input (a `.zst` capture, or zstd bytes on a pipe) is read decompressed,
//!   recognised by its bytes, not its name.
//! - Every input is opened once: a pipe (`<(zcat run.jsonl.gz)`, `/dev/stdin`) cannot be
//!   read twice, so what tells a capture from a tool output (its first line) is peeked
//!   into memory and read again from there, never from the file a second time.
//! - Every read is bounded by the largest thing its format can be, with an error that says
//!   so: a capture line by [`optics::capture::MAX_LINE_BYTES`] (a capture itself is a
//!   stream, held one line at a time), a thresholds file by [`MAX_CONFIG_BYTES`], a module
//!   image by [`MAX_IMAGE_BYTES`], a tool output by [`MAX_TOOL_OUTPUT_BYTES`]. `/dev/zero`
//!   and `/proc/self/pagemap` end in that error, not in the OOM killer.

use anyhow::{bail, Context};
use optics::capture::{compressed, is_capture_start, CaptureReader};
use optics::source::import::walk::read_at_most;
use std::fs::File;
use std::io::{BufReader, Chain, Cursor, Read};
use std::path::Path;

/// A thresholds file holds a few dozen keys and profiles (docs/config.md): a few kB. 1 MiB
/// is hundreds of times that.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// A module image as `decode` reads it: the largest real one (CMIS, lower memory and 256
/// upper pages of 128 bytes: 32,896 bytes) as hex text or image JSON is under 200 kB;
/// 4 MiB is twenty times that.
pub const MAX_IMAGE_BYTES: u64 = 4 << 20;

/// A tool output (mlxlink, ethtool, lspci): the import's own per-file bound.
pub const MAX_TOOL_OUTPUT_BYTES: u64 = optics::source::import::walk::MAX_FILE_BYTES;

/// The most of an input's start peeked to tell a capture from anything else: a capture's
/// header line is well under it.
const PEEK_BYTES: usize = 64 << 10;

/// An input opened once: the bytes peeked, then the rest of the file.
pub type Opened = BufReader<Chain<Cursor<Vec<u8>>, Box<dyn Read>>>;

/// An opened input and what its start says it is.
pub struct Input {
    pub reader: Opened,
    /// Its first line is a capture header.
    pub is_capture: bool,
    /// Zstandard input: set when its stream ends inside a frame.
    pub cut: Option<compressed::Cut>,
}

/// Opens `path` (`-`: standard input) once and peeks its first line (at most 64 kB);
/// Zstandard bytes (a `.zst` capture, `zstd -c` output on a pipe) are decompressed on the
/// way. An error says `{what} {path}` ("reading x", "capture x").
pub fn open(path: &Path, what: &str) -> anyhow::Result<Input> {
    let source: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(UntilStopped(std::io::stdin()))
    } else {
        Box::new(UntilStopped(File::open(path).with_context(|| format!("{what} {}", path.display()))?))
    };
    let shown = || format!("{what} {}", path.display());
    let (head, source) = peek(source).with_context(shown)?;
    let (head, source, cut) = if compressed::is_zstd(&head) {
        let unframed = compressed::Unframed::new(Cursor::new(head).chain(source)).with_context(shown)?;
        let cut = unframed.cut();
        let (head, source) = peek(Box::new(unframed)).with_context(|| format!("{} (zstd)", shown()))?;
        (head, source, Some(cut))
    } else {
        (head, source, None)
    };
    let is_capture = is_capture_start(&head);
    Ok(Input { reader: BufReader::with_capacity(1 << 16, Cursor::new(head).chain(source)), is_capture, cut })
}

/// Reads until the first non-blank line is whole, the peek is full, or the input ends: a
/// pipe hands over what its writer has written so far, which may be part of a line.
fn peek(mut source: Box<dyn Read>) -> std::io::Result<(Vec<u8>, Box<dyn Read>)> {
    let mut head = Vec::with_capacity(4096);
    let mut chunk = [0u8; 4096];
    while head.len() < PEEK_BYTES && !first_line_whole(&head) {
        let n = match source.read(&mut chunk[..(PEEK_BYTES - head.len()).min(4096)]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        head.extend_from_slice(&chunk[..n]);
    }
    Ok((head, source))
}

/// An input whose read interrupted by a stop signal ([`super::stop`]: `watch --replay`
/// catches them) ends there, rather than being retried: a replay of a pipe that waits
/// for its writer stops on Ctrl-C as a replay of a file does.
struct UntilStopped<R>(R);

impl<R: Read> Read for UntilStopped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self.0.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted && super::stop::caught().is_some() => Ok(0),
            read => read,
        }
    }
}

fn first_line_whole(head: &[u8]) -> bool {
    let start = head.iter().position(|b| !b.is_ascii_whitespace());
    start.is_some_and(|s| head[s..].contains(&b'\n'))
}

impl Input {
    /// The whole input, refused past `max` bytes (`what` names the format in the error).
    pub fn read_all(self, path: &Path, max: u64, what: &str) -> anyhow::Result<Vec<u8>> {
        read_bounded(self.reader, path, max, what)
    }

    /// The input as a capture, its header read.
    pub fn capture(self, path: &Path) -> anyhow::Result<CaptureReader<Opened>> {
        CaptureReader::with_cut(self.reader, self.cut).with_context(|| format!("capture {}", path.display()))
    }
}

/// Opens a capture once and reads its header.
pub fn open_capture(path: &Path) -> anyhow::Result<CaptureReader<Opened>> {
    open(path, "capture")?.capture(path)
}

/// All of `r`, refused past `max` bytes.
pub fn read_bounded(r: impl Read, path: &Path, max: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    match read_at_most(r, max).with_context(|| format!("reading {}", path.display()))? {
        Some(bytes) => Ok(bytes),
        None => bail!("{}: longer than {} bytes, the most {what} can be: not {what}", path.display(), max),
    }
}

/// A whole small file (a thresholds file), bounded.
pub fn read_file(path: &Path, max: u64, what: &str) -> anyhow::Result<Vec<u8>> {
    let r: Box<dyn Read> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).with_context(|| format!("reading {}", path.display()))?)
    };
    read_bounded(r, path, max, what)
}

/// True for a file that can be opened again (not a pipe, a socket or standard input).
pub fn rereadable(path: &Path) -> bool {
    path.as_os_str() != "-" && std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_past_its_bound_is_refused() {
        let zero = std::io::repeat(0).take(1 << 20);
        let e = read_bounded(zero, Path::new("/dev/zero"), 1000, "a module image").unwrap_err();
        assert!(format!("{e}").contains("longer than 1000 bytes"), "{e}");
        assert_eq!(read_bounded(&b"abc"[..], Path::new("x"), 3, "x").unwrap(), b"abc");
    }

    #[test]
    fn a_first_line_is_whole_after_its_newline() {
        assert!(!first_line_whole(b"\n\n  {\"record\""));
        assert!(first_line_whole(b"\n{\"record\":\"header\"}\n"));
    }
}
