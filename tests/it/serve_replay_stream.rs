//! `serve --replay` streams: the records that share one timestamp are fed to the exporter one
//! at a time (not held until the group ends), and the start-up check of a capture keeps only
//! its interface names and sample spacing (no engine). The daemon's peak memory (VmHWM of the
//! child, from /proc) does not grow with how many records share a `t`: a relative bound
//! between two runs, robust on a loaded machine, never a timing.

use crate::support::serve::{bin, capture, Serve};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The bundled capture's header and interface record, then `samples` copies of its first
/// sample record: all stamped with one `t`. (Each record is ~780 bytes of JSON.)
fn one_timestamp_capture(dir: &Path, samples: usize) -> PathBuf {
    let text = std::fs::read_to_string(capture("sr4-200g-lane4-marginal.jsonl")).unwrap();
    let mut lines = text.lines();
    let (header, interface, sample) = (lines.next().unwrap(), lines.next().unwrap(), lines.next().unwrap());
    assert!(sample.contains("\"record\":\"sample\""), "{sample}");
    let path = dir.join(format!("one-t-{samples}.jsonl"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    writeln!(out, "{header}\n{interface}").unwrap();
    for _ in 0..samples {
        writeln!(out, "{sample}").unwrap();
    }
    out.flush().unwrap();
    path
}

/// Peak resident memory (kB) of `optics serve --replay CAPTURE` once its replay has ended
/// (the single group ends the only tick, so /healthz turns 200 only after every record).
fn peak_rss_kb(capture: &Path) -> u64 {
    let mut cmd = Command::new(bin());
    cmd.arg("serve").arg("--replay").arg(capture).args(["--listen", "127.0.0.1:0"]);
    let serve = Serve::start(cmd);
    serve.wait_ready();
    let status = std::fs::read_to_string(format!("/proc/{}/status", serve.child.id())).unwrap();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).expect("VmHWM")
}

#[test]
fn records_sharing_one_timestamp_are_streamed_in_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    // 2,000 vs 40,000 records of one `t` (1.6 MB vs 31 MB): held as parsed records, the
    // larger group alone would be over 50 MB more.
    let small = peak_rss_kb(&one_timestamp_capture(dir.path(), 2_000));
    let large = peak_rss_kb(&one_timestamp_capture(dir.path(), 40_000));
    assert!(large < small + 16 * 1024, "peak RSS grew with the group: {small} kB for 2,000 records, {large} kB for 40,000");
}
