//! Section 7: the streaming engine on long captures. 16 interfaces x 8 lanes
//! at 1 s, built from captures/dr8-800g-cmis-healthy.jsonl's records (its 61 samples
//! repeat with counters carried forward so they keep rising), 10 min / 1 h / 6 h / 24 h
//! (`--quick`: 10 min / 1 h), written to a temporary file and deleted afterwards.
//!
//! Per length, side by side: `scan --replay` work (stream + engine + analysis) and
//! `export --csv` work in lane-samples per CPU-second (getrusage of this process), a
//! plain `serde_json::from_str::<Value>` per line over the same file (the floor an
//! in-process reader can be compared with), the capture reading alone (`CaptureReader`,
//! records dropped: records per CPU-second and its ratio to the Value parse), and the
//! peak RSS of a fresh `optics scan --replay` process (GNU time's `%M` of the child).
//! The four in-process steps run in rounds (9 at 10 min, 5 at 1 h, 3 beyond); each figure
//! is the median over rounds and each ratio the median of its per-round ratios, with the
//! lowest round printed beside the targets' figures so the spread stays visible.
//! `cargo bench --bench figures -- --quick --only stream` runs this section alone.

use super::{Table, Target};
use anyhow::{bail, Context, Result};
use optics::analysis::{analyze, Config};
use optics::capture::RecordSink;
use optics::capture::{read_capture, CaptureWriter, Record};
use optics::output::csv::CsvSink;
use optics::sample::engine::{for_each_record, replay, EngineConfig};
use optics::sample::intervals::IntervalStage;
use std::io::{BufRead, Write};
use std::path::Path;

const TEMPLATE: &str = "captures/dr8-800g-cmis-healthy.jsonl";
const IFACES: usize = 16;
const LANES: usize = 8;
/// The memory figure: interfaces and samples per interface (past the series' 512 buckets).
const MEMORY_IFACES: usize = 800;
const MEMORY_SAMPLES: usize = 650;

fn cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Writes a capture of `ifaces` interfaces x `seconds` samples at 1 s to `path`.
fn generate(path: &Path, ifaces: usize, seconds: usize) -> Result<usize> {
    let cap = read_capture(Path::new(env!("CARGO_MANIFEST_DIR")).join(TEMPLATE)).context(TEMPLATE)?;
    let ir = cap.records.iter().find_map(|r| if let Record::Interface(i) = r { Some(i.clone()) } else { None });
    let samples: Vec<_> = cap.records.iter().filter_map(|r| if let Record::Sample(s) = r { Some(s.clone()) } else { None }).collect();
    let (Some(ir), Some(first), Some(last)) = (ir, samples.first(), samples.last()) else {
        bail!("{TEMPLATE}: no interface record or samples")
    };
    // Counters carried forward each cycle so they keep rising (no false counter resets).
    let fec = |s: &optics::capture::SampleRecord| s.fec.clone().unwrap_or_default();
    let steps = |get: fn(&optics::counters::FecStats) -> &Vec<u64>| -> Vec<u64> {
        get(&fec(last)).iter().zip(get(&fec(first))).map(|(a, b)| a.saturating_sub(*b)).collect()
    };
    let (bits_step, blocks_step) = (steps(|f| &f.corrected_bits), steps(|f| &f.corrected_blocks));
    let file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let mut w = CaptureWriter::new(file, &cap.header)?;
    for k in 0..ifaces {
        let mut r = ir.clone();
        r.interface = format!("ens{k}np0");
        w.write(&Record::Interface(r))?;
    }
    let mut n = 0;
    for t in 0..seconds {
        let (cycle, i) = (t / samples.len(), t % samples.len());
        for k in 0..ifaces {
            let mut s = samples[i].clone();
            s.t = t as f64;
            s.interface = format!("ens{k}np0");
            if let Some(f) = s.fec.as_mut() {
                for (v, d) in f.corrected_bits.iter_mut().zip(&bits_step).chain(f.corrected_blocks.iter_mut().zip(&blocks_step)) {
                    *v += cycle as u64 * d;
                }
            }
            w.write(&Record::Sample(s))?;
            n += 1;
        }
    }
    w.into_inner()?.flush()?;
    Ok(n)
}

/// Peak RSS (bytes) of a fresh `optics scan --replay path --json`, from GNU time's `%M`
/// (its child's `ru_maxrss`, after a plain fork). Not from a wait4 of our own child: Rust
/// spawns with vfork, and the kernel then folds this (large) process's high-water mark
/// into the child's `ru_maxrss` at exec.
fn child_peak_rss(path: &Path) -> Result<u64> {
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "%M", env!("CARGO_BIN_EXE_optics"), "scan", "--json", "--replay"])
        .arg(path)
        .stdout(std::process::Stdio::null())
        .output()
        .context("running /usr/bin/time (GNU time) for the child's peak RSS")?;
    let text = String::from_utf8_lossy(&out.stderr);
    match (out.status.success(), text.lines().last().and_then(|l| l.trim().parse::<u64>().ok())) {
        (true, Some(kb)) => Ok(kb * 1024),
        _ => bail!("optics scan --replay {} under /usr/bin/time: {text}", path.display()),
    }
}

struct Null;
impl Write for Null {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Rounds per capture length. Each figure is the median over rounds, and a ratio is taken
/// within each round (its two sides measured seconds apart) before the median: a burst of
/// load on a shared machine then moves one round, not the figure. Odd counts, so the
/// median is a round's own value.
fn rounds_for(seconds: usize) -> usize {
    match seconds {
        ..=600 => 9,
        601..=3600 => 5,
        _ => 3,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// One round over a capture: lane-samples per CPU-second of each step, records per
/// CPU-second of the reading alone.
struct Round {
    parse: f64,
    read_records: f64,
    read_lanes: f64,
    scan: f64,
    export: f64,
}

fn measure_round(path: &Path, cfg: &Config, lane_samples: f64, label: &str) -> Result<Round> {
    // Plain parse into Value, line by line.
    let c0 = cpu_s();
    let f = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?);
    let mut lines = 0usize;
    for line in f.lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        lines += usize::from(!v.is_null());
    }
    let parse = lane_samples / (cpu_s() - c0);
    std::hint::black_box(lines);
    // Reading alone: lines into records (`CaptureReader`), each dropped.
    let c0 = cpu_s();
    let mut records = 0usize;
    for_each_record(std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?), |_| {
        records += 1;
        Ok(())
    })?;
    let read_s = cpu_s() - c0;
    // scan: stream + engine + analysis.
    let c0 = cpu_s();
    let (engine, _) = replay(path, EngineConfig::default())?;
    let a = analyze(&engine.windows(), cfg, &[]);
    let scan = lane_samples / (cpu_s() - c0);
    if a.len() != IFACES {
        bail!("scan of the {label} capture gave {} interfaces", a.len());
    }
    // export: stream + CSV rows.
    let c0 = cpu_s();
    let mut sink = CsvSink::new(Null, None);
    let mut stage = IntervalStage::new(cfg.clone(), vec![&mut sink]);
    for_each_record(std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(path)?), |r| stage.record(r))?;
    drop(stage);
    drop(sink);
    let export = lane_samples / (cpu_s() - c0);
    Ok(Round { parse, read_records: records as f64 / read_s, read_lanes: lane_samples / read_s, scan, export })
}

pub fn run(t: &mut Table, quick: bool) -> Result<()> {
    t.section("7. Streaming engine on long captures (16 interfaces x 8 lanes, 1 s)");
    let lengths: &[(&str, usize)] =
        if quick { &[("10 min", 600), ("1 h", 3600)] } else { &[("10 min", 600), ("1 h", 3600), ("6 h", 21_600), ("24 h", 86_400)] };
    let dir = tempfile::tempdir_in("/tmp")?;
    let mut rss_first = None;
    let cfg = Config::default();
    for (label, seconds) in lengths {
        let path = dir.path().join(format!("long-{seconds}.jsonl"));
        let samples = generate(&path, IFACES, *seconds)?;
        let lane_samples = (samples * LANES) as f64;
        let size_mb = std::fs::metadata(&path)?.len() as f64 / 1e6;
        let mut rounds = Vec::new();
        for _ in 0..rounds_for(*seconds) {
            rounds.push(measure_round(&path, &cfg, lane_samples, label)?);
        }
        let m = |f: fn(&Round) -> f64| median(rounds.iter().map(f).collect());
        let low = |f: fn(&Round) -> f64| rounds.iter().map(f).fold(f64::INFINITY, f64::min);
        let rss = child_peak_rss(&path)?;
        let rss_mb = rss as f64 / 1e6;
        let scan_ratio = |r: &Round| r.scan / r.parse;
        t.row(
            &format!("{label} ({size_mb:.0} MB, median of {} rounds): serde_json Value parse", rounds.len()),
            m(|r| r.parse),
            "lane-samples/CPU-s",
            Target::Info,
        );
        t.row(&format!("{label}: capture reading alone"), m(|r| r.read_records), "records/CPU-s", Target::Info);
        t.row(&format!("{label}: reading / Value parse"), m(|r| r.read_lanes / r.parse), "x", Target::Info);
        t.row(&format!("{label}: scan --replay"), m(|r| r.scan), "lane-samples/CPU-s", Target::AtLeast(2e6));
        // The ratio to a generic Value parse was a target while a hand-written reader served it;
        // with serde_json reading the capture it is shown, and the absolute figures are the contract.
        t.row(&format!("{label}: scan / Value parse"), m(scan_ratio), "x", Target::Info);
        t.row(&format!("{label}: scan / Value parse, lowest round"), low(scan_ratio), "x", Target::Info);
        t.row(&format!("{label}: export --csv"), m(|r| r.export), "lane-samples/CPU-s", Target::AtLeast(2e6));
        t.row(&format!("{label}: export --csv, lowest round"), low(|r| r.export), "lane-samples/CPU-s", Target::Info);
        t.row(&format!("{label}: peak RSS of optics scan --replay"), rss_mb, "MB", Target::AtMost(64.0));
        match rss_first {
            None => rss_first = Some(rss_mb),
            Some(r0) => t.row(&format!("{label}: peak RSS / 10 min's"), rss_mb / r0, "x", Target::AtMost(1.2)),
        }
        std::fs::remove_file(&path)?;
    }
    // Memory per interface once a capture is long enough to fill every bounded buffer
    // (600+ samples: the series' buckets halve, every ring is full): the peak RSS of a fresh
    // `scan --replay` over many 8-lane interfaces, divided by their number (the process's
    // own few MB spread over them), and the growth from a quarter as many interfaces
    // (what one more interface costs, without the process).
    let mut per_iface = Vec::new();
    for n in [MEMORY_IFACES / 4, MEMORY_IFACES] {
        let path = dir.path().join(format!("memory-{n}.jsonl"));
        generate(&path, n, MEMORY_SAMPLES)?;
        per_iface.push((n, child_peak_rss(&path)? as f64));
        std::fs::remove_file(&path)?;
    }
    if let [(n0, rss0), (n1, rss1)] = per_iface[..] {
        let label = format!("{n1} interfaces x 8 lanes x {MEMORY_SAMPLES} samples: scan --replay peak RSS / interfaces");
        t.row(&label, rss1 / n1 as f64 / 1e3, "KB/interface", Target::AtMost(100.0));
        let label = format!("  growth from {n0} to {n1} interfaces, per interface");
        t.row(&label, (rss1 - rss0) / (n1 - n0) as f64 / 1e3, "KB/interface", Target::Info);
    }
    // Issue 9 item 21: linear in the number of interfaces.
    for n in [1_000usize, 10_000] {
        let path = dir.path().join(format!("ifaces-{n}.jsonl"));
        let samples = generate(&path, n, 3)?;
        let c0 = cpu_s();
        let (engine, _) = replay(&path, EngineConfig::default())?;
        let a = analyze(&engine.windows(), &cfg, &[]);
        let s = cpu_s() - c0;
        std::hint::black_box(a.len());
        t.row(&format!("{n} interfaces x 3 samples: scan"), s / samples as f64 * 1e6, "us/sample", Target::Info);
        std::fs::remove_file(&path)?;
    }
    Ok(())
}
