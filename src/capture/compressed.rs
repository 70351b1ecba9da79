//! Compressed captures: Zstandard frames (RFC 8878) around the same JSON Lines.
//!
//! A day of 16 ports at 1 Hz is about a gigabyte of JSON Lines that compresses 14-90x. A
//! recording must survive being killed, so the writer ends a zstd *block* at every
//! sampling tick (the decoder hands out every whole block it has read) and a *frame*
//! (RFC 8878 §3.1.1, with its content checksum) every `FRAME_BYTES` of records: a capture
//! cut anywhere replays up to its last flushed tick. Readers take concatenated frames
//! (§3.1: a stream may hold several) and treat an input that ends inside a frame as the
//! end of the capture, the way a cut last line of a plain capture is.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The four bytes every Zstandard frame starts with (RFC 8878 §3.1.1, 0xFD2FB528 little-endian).
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// zstd's default level: fast enough for 1 Hz sampling of many ports (a tick's few kB
/// in microseconds) and most of the ratio higher levels reach on these repetitive lines.
const LEVEL: i32 = 3;

/// Uncompressed bytes after which the current frame is closed at the next tick: each
/// frame is then independently checksummed and a reader never holds more than one
/// frame's window (the level's window is at most 8 MiB).
pub(crate) const FRAME_BYTES: u64 = 4 << 20;

/// True when `head` starts a Zstandard frame.
pub fn is_zstd(head: &[u8]) -> bool {
    head.starts_with(&ZSTD_MAGIC)
}

/// True when a capture written to `path` is compressed: its name ends in `.zst`.
pub fn wants_zstd(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "zst")
}

/// A `Write` that compresses into frames: [`Frames::end_block`] makes everything written so
/// far decodable (and starts a new frame past [`FRAME_BYTES`]); [`Frames::finish`] closes the
/// frame.
pub(crate) struct Frames<W: Write> {
    state: State<W>,
    in_frame: u64,
}

enum State<W: Write> {
    Open(zstd::stream::write::Encoder<'static, W>),
    Idle(W),
    /// Only while switching between the two.
    Moving,
}

impl<W: Write> Frames<W> {
    pub(crate) fn new(out: W) -> Self {
        Frames { state: State::Idle(out), in_frame: 0 }
    }

    fn encoder(&mut self) -> io::Result<&mut zstd::stream::write::Encoder<'static, W>> {
        if let State::Idle(_) = self.state {
            let State::Idle(out) = std::mem::replace(&mut self.state, State::Moving) else { unreachable!() };
            let mut enc = zstd::stream::write::Encoder::new(out, LEVEL)?;
            enc.include_checksum(true)?;
            self.state = State::Open(enc);
        }
        match &mut self.state {
            State::Open(enc) => Ok(enc),
            _ => Err(io::Error::other("compressed capture: the writer failed earlier")),
        }
    }

    /// Ends a block: every byte written so far reaches `W` (and `W` is flushed). Past
    /// [`FRAME_BYTES`] the frame is closed, so the next write starts a new one.
    pub(crate) fn end_block(&mut self) -> io::Result<()> {
        if self.in_frame >= FRAME_BYTES {
            return self.finish();
        }
        match &mut self.state {
            State::Open(enc) => enc.flush(),
            State::Idle(out) => out.flush(),
            State::Moving => Ok(()),
        }
    }

    /// Closes the current frame (epilogue and checksum) and flushes `W`.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.in_frame = 0;
        match std::mem::replace(&mut self.state, State::Moving) {
            State::Open(enc) => {
                let mut out = enc.finish()?;
                let flushed = out.flush();
                self.state = State::Idle(out);
                flushed
            }
            other => {
                self.state = other;
                Ok(())
            }
        }
    }

    /// The frame closed, `W` back.
    pub(crate) fn into_inner(mut self) -> io::Result<W> {
        self.finish()?;
        match self.state {
            State::Idle(out) => Ok(out),
            _ => Err(io::Error::other("compressed capture: the writer failed earlier")),
        }
    }
}

impl<W: Write> Write for Frames<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.encoder()?.write(buf)?;
        self.in_frame += n as u64;
        Ok(n)
    }

    /// A block end: see [`Frames::end_block`].
    fn flush(&mut self) -> io::Result<()> {
        self.end_block()
    }
}

/// Whether a stream of frames ended inside a frame (a recording killed mid-write): set by
/// the [`Unframed`] reading it, read by whoever reports on the capture, so the reader can
/// say the capture was cut rather than that it ended.
#[derive(Clone, Debug, Default)]
pub struct Cut(Arc<AtomicBool>);

impl Cut {
    /// True once the stream was found to end inside a frame.
    pub fn happened(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Reads a stream of frames as the JSON Lines they hold; an input that ends inside a
/// frame (a recording killed mid-write) ends there, after every whole block it held, and
/// its [`Cut`] says so.
pub struct Unframed<R: Read> {
    inner: zstd::stream::read::Decoder<'static, io::BufReader<R>>,
    cut: Cut,
    done: bool,
}

impl<R: Read> Unframed<R> {
    /// Reads the Zstandard frames of `compressed`.
    pub fn new(compressed: R) -> io::Result<Self> {
        Ok(Unframed { inner: zstd::stream::read::Decoder::new(compressed)?, cut: Cut::default(), done: false })
    }

    /// Set when the input ends inside a frame.
    pub fn cut(&self) -> Cut {
        self.cut.clone()
    }
}

impl<R: Read> Read for Unframed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.done {
            return Ok(0);
        }
        match self.inner.read(buf) {
            // zstd's "incomplete frame": the input ended inside a frame.
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                self.done = true;
                self.cut.0.store(true, Ordering::Relaxed);
                Ok(0)
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: std::ops::Range<u32>) -> Vec<String> {
        n.map(|i| format!("{{\"record\":\"sample\",\"t\":{i}.0,\"interface\":\"ens3np0\"}}\n")).collect()
    }

    /// Writes `ticks` ticks of 10 lines, a block per tick; returns the bytes and the
    /// compressed length at the end of each tick.
    fn recording(ticks: u32, frame_every: Option<u32>) -> (Vec<u8>, Vec<usize>) {
        let mut w = Frames::new(Vec::new());
        let mut ends = Vec::new();
        for t in 0..ticks {
            for l in lines(t * 10..t * 10 + 10) {
                w.write_all(l.as_bytes()).unwrap();
            }
            if frame_every.is_some_and(|k| t % k == k - 1) {
                w.finish().unwrap();
            } else {
                w.end_block().unwrap();
            }
            ends.push(match &w.state {
                State::Open(e) => e.get_ref().len(),
                State::Idle(v) => v.len(),
                State::Moving => unreachable!(),
            });
        }
        (w.into_inner().unwrap(), ends)
    }

    fn read_all(bytes: &[u8]) -> String {
        let mut s = String::new();
        Unframed::new(bytes).unwrap().read_to_string(&mut s).unwrap();
        s
    }

    #[test]
    fn frames_round_trip_and_start_with_the_magic() {
        let (bytes, _) = recording(20, Some(7));
        assert!(is_zstd(&bytes));
        assert_eq!(read_all(&bytes), lines(0..200).concat());
        // Three closed frames and a last one: each starts with the magic (RFC 8878 §3.1.1).
        assert!(bytes.windows(4).filter(|w| *w == ZSTD_MAGIC).count() >= 3);
    }

    #[test]
    fn a_stream_cut_anywhere_reads_to_its_last_whole_tick() {
        let (bytes, ends) = recording(12, Some(5));
        for cut in 0..bytes.len() {
            if cut < 4 {
                continue; // not even a frame header: not a zstd stream to read
            }
            let mut s = String::new();
            match Unframed::new(&bytes[..cut]).unwrap().read_to_string(&mut s) {
                Ok(_) => {}
                Err(e) => panic!("cut at {cut}: {e}"),
            }
            // Every tick whose block ended at or before the cut is there, whole.
            let ticks_whole = ends.iter().filter(|&&e| e <= cut).count() as u32;
            assert!(s.starts_with(&lines(0..ticks_whole * 10).concat()), "cut at {cut}: {ticks_whole} ticks expected");
        }
    }

    #[test]
    fn a_frame_is_closed_past_its_size() {
        let mut w = Frames::new(Vec::new());
        let line = "x".repeat(1023) + "\n";
        for _ in 0..(FRAME_BYTES / 1024 + 1) {
            w.write_all(line.as_bytes()).unwrap();
        }
        w.end_block().unwrap();
        assert!(matches!(w.state, State::Idle(_)), "the frame past FRAME_BYTES is closed at the block end");
        assert_eq!(w.in_frame, 0);
    }

    #[test]
    fn names_ending_in_zst_are_compressed() {
        assert!(wants_zstd(Path::new("run.jsonl.zst")));
        assert!(!wants_zstd(Path::new("run.jsonl")));
        assert!(!wants_zstd(Path::new("-")));
    }
}
