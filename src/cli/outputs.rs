//! The files a run writes (`--record`, `--csv`, `--json`, `--prometheus`, `-o`, the plots of
//! `report --plots`): checked together in one place ([`check_outputs`]) before any is
//! created, locked against a second writer, written in whole records (whole documents
//! atomically), and a failing one reported while the others go on.
//!
//! - No output may be another output or an input (same device and inode, or the same
//!   canonical path for files yet to be created), nor an existing file inside an input
//!   folder the run walks: one file would hold two formats, or an input would be
//!   overwritten while it is read.
//! - `-` is standard output for every output flag; the report then goes to stderr.
//! - Every output is validated (not a directory, its folder exists) before the first is
//!   created, and a run that fails before writing a sample removes the files it created.
//! - Each file is opened without truncating, locked (`flock` LOCK_EX, non-blocking), and only
//!   then emptied: a second `optics` writing the same file gets a clear error and destroys
//!   nothing.
//! - A write that fails (full disk) is rolled back to the last whole record, that output is
//!   reported and closed, the others keep going, and the process exits non-zero.

use super::{diag, set_errored};
use anyhow::{bail, Context};
use optics::analysis::lane_rows::{IntervalSink, LaneInterval};
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once an output flag was given `-`: the report must not mix with it on stdout.
static STDOUT_TAKEN: AtomicBool = AtomicBool::new(false);

/// True when an output writes to standard output.
pub fn stdout_taken() -> bool {
    STDOUT_TAKEN.load(Ordering::Relaxed)
}

fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// What makes two paths the same file.
#[derive(Debug, PartialEq)]
enum Identity {
    Inode(u64, u64),
    Path(PathBuf),
}

/// The file `path` names: its inode when it exists, else its canonical folder plus name.
fn identity(path: &Path) -> Option<Identity> {
    if let Ok(m) = std::fs::metadata(path) {
        return Some(Identity::Inode(m.dev(), m.ino()));
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Some(Identity::Path(parent.canonicalize().ok()?.join(path.file_name()?)))
}

/// True when both paths name one existing file (or one path yet to be created).
pub fn same_file(a: &Path, b: &Path) -> bool {
    matches!((identity(a), identity(b)), (Some(x), Some(y)) if x == y)
}

/// A file a run names: the flag that names it and its path.
pub type Named<'a> = (&'a str, Option<&'a Path>);

/// The one check every output of every command goes through, before anything is created
/// or read: no output is another output or an input of the run (same device and inode
/// when the file exists, else the same canonical path), none lies in an input folder the
/// run walks, at most one is standard output (`-`), and each can be created. Creates
/// nothing; an output given `-` takes standard output from here on ([`stdout_taken`]).
pub fn check_outputs(outputs: &[Named], inputs: &[Named]) -> anyhow::Result<()> {
    let outputs: Vec<(&str, &Path)> = outputs.iter().filter_map(|(f, p)| p.map(|p| (*f, p))).collect();
    let inputs: Vec<(&str, &Path, Option<Identity>)> =
        inputs.iter().filter_map(|(f, p)| p.filter(|p| !is_stdout(p)).map(|p| (*f, p, identity(p)))).collect();
    let stdout: Vec<&str> = outputs.iter().filter(|(_, p)| is_stdout(p)).map(|(f, _)| *f).collect();
    if stdout.len() > 1 {
        bail!("{} both write to standard output (-): give one of them a file", stdout.join(" and "));
    }
    let files: Vec<(&str, &Path, Option<Identity>)> =
        outputs.iter().filter(|(_, p)| !is_stdout(p)).map(|(f, p)| (*f, *p, identity(p))).collect();
    for (i, (flag, path, id)) in files.iter().enumerate() {
        validate(flag, path)?;
        let Some(id) = id else { continue };
        if let Some((other, _, _)) = files[..i].iter().find(|(_, _, o)| o.as_ref() == Some(id)) {
            bail!("{other} and {flag} name the same file {}: one file cannot hold both", path.display());
        }
        if let Some((input, _, _)) = inputs.iter().find(|(_, _, o)| o.as_ref() == Some(id)) {
            bail!("{flag} {} is also an input of this run ({input}): it would be overwritten while it is read", path.display());
        }
        // An existing file under a folder the run walks is one of its inputs.
        if let (Identity::Inode(..), Ok(real)) = (id, path.canonicalize()) {
            for (input, dir, _) in inputs.iter().filter(|(_, p, _)| p.is_dir()) {
                if dir.canonicalize().is_ok_and(|d| real.starts_with(&d)) {
                    bail!(
                        "{flag} {} is inside the input folder {} ({input}), which this run reads: it would be overwritten while it is read",
                        path.display(),
                        dir.display()
                    );
                }
            }
        }
    }
    if !stdout.is_empty() {
        STDOUT_TAKEN.store(true, Ordering::Relaxed);
    }
    Ok(())
}

/// The output can be created: not a directory, and its folder exists.
fn validate(flag: &str, path: &Path) -> anyhow::Result<()> {
    if path.is_dir() {
        bail!("{flag} {}: is a directory; name a file in it", path.display());
    }
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if !parent.is_dir() {
        bail!("{flag} {}: the folder {} does not exist", path.display(), parent.display());
    }
    Ok(())
}

/// One output: standard output, or a file this process holds the lock of.
pub struct Output {
    flag: String,
    /// `None` for standard output.
    path: Option<PathBuf>,
    file: Option<File>,
    /// The file did not exist before this run.
    pub created: bool,
    /// Bytes of the file known to be whole records.
    committed: u64,
    /// Bytes written to the file since the last flush.
    unflushed: u64,
    /// Standard output's bytes since the last flush.
    pending: Vec<u8>,
}

impl Output {
    /// Opens `path` (`-`: standard output) for `flag`: created if missing, locked, then
    /// emptied, so a file another process is writing is never touched.
    pub fn open(flag: &str, path: &Path) -> anyhow::Result<Output> {
        let mut out =
            Output { flag: flag.to_string(), path: None, file: None, created: false, committed: 0, unflushed: 0, pending: Vec::new() };
        if is_stdout(path) {
            STDOUT_TAKEN.store(true, Ordering::Relaxed);
            return Ok(out);
        }
        out.created = !path.exists();
        let file =
            OpenOptions::new().write(true).create(true).truncate(false).open(path).with_context(|| format!("{flag} {}", path.display()))?;
        out.path = Some(path.to_path_buf());
        // SAFETY: flock on a descriptor this File owns for the duration of the call.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::WouldBlock {
                bail!("{flag} {}: another process is writing this file (it is locked); choose another file", path.display());
            }
            // Filesystems without flock: go on unlocked.
        }
        if file.metadata().is_ok_and(|m| m.is_file()) {
            file.set_len(0).with_context(|| format!("{flag} {}: emptying", path.display()))?;
        }
        out.file = Some(file);
        Ok(out)
    }

    /// "--csv out.csv" (or "--csv -").
    pub fn label(&self) -> String {
        format!("{} {}", self.flag, self.path.as_deref().map_or("-".into(), |p| p.display().to_string()))
    }

    /// The file, if this run created it (so it may remove it).
    pub fn created_path(&self) -> Option<PathBuf> {
        self.path.clone().filter(|_| self.created)
    }

    /// On a failed write, the file cut back to its whole records.
    fn settle(&mut self, result: io::Result<()>) -> io::Result<()> {
        let Err(e) = result else { return Ok(()) };
        self.pending.clear();
        self.unflushed = 0;
        if let Some(f) = self.file.as_ref() {
            // Best effort: the error is what the user must see.
            let _ = f.set_len(self.committed);
        }
        Err(e)
    }
}

/// Writes a whole document (an SVG, a report, a metrics textfile) to `path` (`-`: standard
/// output) atomically: into a temporary file beside it, then renamed over it, so a reader
/// (node_exporter's textfile collector, a browser) never sees half of it and a full disk
/// leaves the previous file, not an empty or cut one.
pub fn write_atomic(flag: &str, path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let shown = || format!("{flag} {}", path.display());
    if is_stdout(path) {
        STDOUT_TAKEN.store(true, Ordering::Relaxed);
        let mut out = io::stdout().lock();
        return out.write_all(bytes).and_then(|()| out.flush()).with_context(shown);
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(name) = path.file_name() else { bail!("{}: names no file", shown()) };
    let tmp = dir.join(format!(".{}.{}.tmp", name.to_string_lossy(), std::process::id()));
    let written = (|| {
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        // Best effort: the write error is what the user must see.
        let _ = std::fs::remove_file(&tmp);
    }
    written.with_context(shown)
}

/// `scan`/`export --prometheus FILE`: the run-window metrics for node_exporter's textfile
/// collector, written atomically (`-`: standard output); a no-op without FILE.
pub fn write_textfile(path: Option<&Path>, analyses: &[optics::analysis::InterfaceAnalysis]) -> anyhow::Result<()> {
    let Some(path) = path else { return Ok(()) };
    write_atomic("--prometheus", path, optics::output::prometheus::analyses_textfile(analyses).as_bytes())
}

/// Removes a file this run created, and says so.
pub fn remove_created(path: &Path, why: &str) {
    if std::fs::remove_file(path).is_ok() {
        diag(format_args!("optics: note: removed {}: {why}", path.display()));
    }
}

/// Callers write whole records, then `flush`: standard output collects the writes until
/// `flush`, which writes them in one piece; a file takes them as they come. Either way a
/// failed write is cut back to the last flush, so a full disk never leaves half a CSV row
/// or JSON line.
impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(f) = self.file.as_mut() else {
            self.pending.extend_from_slice(buf);
            return Ok(buf.len());
        };
        // The bytes as they are (a CSV batch is not copied again); they count as whole
        // records at the next flush.
        let written = f.write_all(buf);
        self.unflushed += buf.len() as u64;
        self.settle(written).map(|()| buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.file.is_some() {
            self.committed += self.unflushed;
            self.unflushed = 0;
            return Ok(());
        }
        if self.pending.is_empty() {
            return Ok(());
        }
        let result = io::stdout().lock().write_all(&self.pending).and_then(|()| io::stdout().lock().flush());
        self.pending.clear();
        self.settle(result)
    }
}

/// A sink whose failure closes it alone: reported once, the run goes on, the exit is non-zero.
pub struct Guarded<S> {
    pub sink: S,
    label: String,
    failed: bool,
    /// Sample records written.
    pub samples: u64,
}

impl<S> Guarded<S> {
    pub fn new(sink: S, label: String) -> Self {
        Guarded { sink, label, failed: false, samples: 0 }
    }
}

impl<S> Guarded<S> {
    /// A failed write closes this sink alone (see the type).
    fn settle(&mut self, result: io::Result<()>) {
        match result {
            Ok(()) => {}
            // The reader of a `-` output went away (`| head`): not an error (ripgrep).
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && self.label.ends_with(" -") => self.failed = true,
            Err(e) => {
                self.failed = true;
                set_errored();
                diag(format_args!(
                    "optics: error: {}: {e}; it is closed at its last whole record, the other outputs and the analysis go on",
                    self.label
                ));
            }
        }
    }
}

impl<S: IntervalSink> IntervalSink for Guarded<S> {
    fn interval(&mut self, iv: &LaneInterval<'_>) -> io::Result<()> {
        if !self.failed {
            let result = self.sink.interval(iv);
            self.settle(result);
        }
        Ok(())
    }
}

impl<S: optics::capture::RecordSink> optics::capture::RecordSink for Guarded<S> {
    fn record(&mut self, rec: &optics::capture::Record) -> io::Result<()> {
        if self.failed {
            return Ok(());
        }
        let result = self.sink.record(rec);
        if result.is_ok() && matches!(rec, optics::capture::Record::Sample(_)) {
            self.samples += 1;
        }
        self.settle(result);
        Ok(())
    }

    fn end_tick(&mut self, sampling: std::time::Duration) -> io::Result<()> {
        if !self.failed {
            let result = self.sink.end_tick(sampling);
            self.settle(result);
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        if !self.failed {
            let result = self.sink.finish();
            self.settle(result);
        }
        Ok(())
    }
}

/// A sink whose failure ends the run (`export`: rows and metrics are all or nothing),
/// its error naming the output (`--csv out.csv: No space left on device`), never the
/// capture being read, and keeping its kind: a closed `-` is still a broken pipe, which
/// `main` takes as success. When other outputs still need the stream (`--csv - --prometheus
/// FILE | head -1`), a closed `-` is not a failure either: it closes this output alone and
/// the others are written in full.
pub struct Labelled<S> {
    pub sink: S,
    label: String,
    /// Other outputs go on when this one's reader goes away.
    others: bool,
    /// Its `-` reader went away: nothing more is written to it.
    closed: bool,
}

impl<S> Labelled<S> {
    /// `others`: whether the run has other outputs that still need the stream.
    pub fn new(sink: S, label: String, others: bool) -> Self {
        Labelled { sink, label, others, closed: false }
    }

    /// `e`, said to be this output's.
    pub fn name(&self, e: io::Error) -> io::Error {
        io::Error::new(e.kind(), format!("{}: {e}", self.label))
    }

    /// A closed `-` with other outputs to write closes this one alone (see the type).
    fn settle(&mut self, result: io::Result<()>) -> io::Result<()> {
        match result {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe && self.others && self.label.ends_with(" -") => {
                self.closed = true;
                Ok(())
            }
            other => other.map_err(|e| self.name(e)),
        }
    }
}

impl<S: IntervalSink> IntervalSink for Labelled<S> {
    fn interval(&mut self, iv: &LaneInterval<'_>) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.sink.interval(iv);
        self.settle(result)
    }
}

impl<S: optics::capture::RecordSink> optics::capture::RecordSink for Labelled<S> {
    fn record(&mut self, rec: &optics::capture::Record) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.sink.record(rec);
        self.settle(result)
    }

    fn finish(&mut self) -> io::Result<()> {
        if self.closed {
            return Ok(());
        }
        let result = self.sink.finish();
        self.settle(result)
    }
}
