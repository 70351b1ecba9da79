//! Exporter figures: `cargo bench --bench serve [-- --quick]` prints each figure beside its
//! target (issue 8) and exits 0; figures to read, not timed tests.
//!
//! 1. `/metrics` scrape latency over loopback TCP, 64 interfaces x 8 lanes, one new
//!    connection per scrape (the worst case; Prometheus keeps connections alive).
//! 2. Series per 8-port node of 8 lanes.
//! 3. RSS of the exporter state after 10,000 samples against after 100.
//! 4. CPU per interface-sample of the exporter's fold and judgement, in process: 64
//!    interfaces x 8 lanes at 1 s, with the judgement window (judgement + whole-run
//!    counters + rolling 300 s + trend + peaks) beside the judgement over the whole run
//!    (what `serve` did before it judged a window: run + rolling 300 s).
//! 5. CPU per interface-sample of `optics serve` on 64 veth interfaces at 1 s, against a
//!    loop forking `ethtool -S` and `ethtool --show-fec` per interface (what subprocess
//!    exporters do). Needs root and `ip netns` (skipped with the reason otherwise).

use optics::analysis::{analyze, Config, InterfaceAnalysis};
use optics::capture::RecordSink;
use optics::capture::{read_capture, Record};
use optics::output::prometheus::{window_label, ExporterStats, Metrics};
use optics::sample::engine::{Engine, EngineConfig};
use optics::serve::http::{serve, Limits, Security};
use optics::serve::{Exporter, ServeWindows, Shared, Snapshot};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[allow(dead_code)]
#[path = "../tests/it/support/netns.rs"]
mod netns;

fn row(name: &str, value: f64, unit: &str, target: &str, meets: Option<bool>) {
    let verdict = match meets {
        Some(true) => "yes",
        Some(false) => "**NO**",
        None => "",
    };
    println!("| {name} | {value:.3} | {unit} | {target} | {verdict} |");
}

fn section(title: &str) {
    println!("\n### {title}\n\n| figure | value | unit | target | meets |\n|---|---:|---|---|---|");
}

fn node(ports: usize) -> Vec<InterfaceAnalysis> {
    let cap = read_capture(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/dr8-800g-cmis-healthy.jsonl")).expect("bundled capture");
    let mut engine = Engine::new(EngineConfig::default());
    cap.records.iter().for_each(|r| engine.push(r));
    let one = analyze(&engine.windows(), &Config::default(), &[]).remove(0);
    (0..ports)
        .map(|i| {
            let mut a = one.clone();
            a.interface = format!("ens{i}np0");
            a
        })
        .collect()
}

fn status_kb(key: &str) -> u64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines().find_map(|l| l.strip_prefix(key)?.strip_prefix(':')).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
}

fn scrape_latency(quick: bool) {
    section("1. `/metrics` scrape, 64 interfaces x 8 lanes (new TCP connection each)");
    let ifaces = node(64);
    let rolling = vec![(window_label(300.0), ifaces.clone())];
    let exp = Metrics::new().render(&ifaces, &rolling, &ExporterStats::default());
    let shared = Arc::new(Shared::default());
    shared.publish(Snapshot {
        openmetrics: exp.openmetrics.clone().into(),
        text: exp.text.clone().into(),
        html: Default::default(),
        series: exp.series,
        ticks: 1,
    });
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let listener = rt.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("loopback listener");
    let addr = listener.local_addr().expect("bound");
    rt.spawn(serve(listener, shared, Limits::default(), Security::default(), std::future::pending()));
    let n = if quick { 300 } else { 3000 };
    let mut times = Vec::with_capacity(n);
    let mut bytes = 0;
    for _ in 0..n {
        let t = Instant::now();
        let mut s = TcpStream::connect(addr).expect("connect");
        s.write_all(b"GET /metrics HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n").expect("write");
        let mut buf = Vec::new();
        s.read_to_end(&mut buf).expect("read");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        bytes = buf.len();
    }
    times.sort_by(f64::total_cmp);
    let median = times[n / 2];
    row("series exposed", exp.series as f64, "series", "", None);
    row("response size", bytes as f64 / 1024.0, "KiB", "", None);
    row("median latency", median, "ms", "< 5 ms", Some(median < 5.0));
    row("p99 latency", times[n * 99 / 100], "ms", "", None);
    drop(rt);
}

fn series_per_node() {
    section("2. Series per 8-port node of 8 lanes (default rolling window 300 s)");
    let ifaces = node(8);
    let rolling = vec![(window_label(300.0), ifaces.clone())];
    let stats = ExporterStats { sample_duration_s: Some(0.01), last_sample_unix_s: Some(1.0), ..Default::default() };
    let n = Metrics::new().render(&ifaces, &rolling, &stats).series;
    row("series", n as f64, "series", "< 1,000", Some(n < 1000));
    let fleet = n as f64 * 10_000.0;
    row("10,000 nodes (docs/fleet.md)", fleet / 1e6, "M series", "", None);
}

fn rss_flat() {
    section("3. Exporter RSS after 10,000 samples vs 100 (one 8-lane interface, one publish each)");
    let cap = read_capture(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/dr8-800g-cmis-healthy.jsonl")).expect("bundled capture");
    let samples: Vec<&Record> = cap.records.iter().filter(|r| matches!(r, Record::Sample(_))).collect();
    let head: Vec<&Record> = cap.records.iter().filter(|r| matches!(r, Record::Interface(_))).collect();
    let period = samples.last().and_then(|r| r.t()).unwrap_or(60.0) + 1.0;
    let cfg = Config::default();
    let mut exporter = Exporter::new(cfg.clone(), ServeWindows::of(&cfg, vec![300.0]), Arc::new(Shared::default()));
    for r in &head {
        let _ = exporter.record(r);
    }
    let push = |from: usize, to: usize, exporter: &mut Exporter| {
        for i in from..to {
            let mut r = samples[i % samples.len()].clone();
            if let Record::Sample(s) = &mut r {
                s.t += period * (i / samples.len()) as f64;
            }
            let _ = exporter.record(&r);
        }
        exporter.publish();
    };
    push(0, 100, &mut exporter);
    let at_100 = status_kb("VmRSS");
    push(100, 10_000, &mut exporter);
    let at_10k = status_kb("VmRSS");
    let growth_mb = (at_10k as f64 - at_100 as f64) / 1024.0;
    row("RSS after 100 samples", at_100 as f64 / 1024.0, "MiB", "", None);
    row("RSS after 10,000 samples", at_10k as f64 / 1024.0, "MiB", "", None);
    row("growth", growth_mb, "MiB", "<= 2 MiB", Some(growth_mb <= 2.0));
}

/// CPU time of this thread, seconds (the machine is shared: wall time would count others).
fn thread_cpu_s() -> f64 {
    // SAFETY: clock_gettime fills the struct we pass.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 / 1e9
}

/// 64 copies of the 800G-DR8 healthy port (8 lanes), `n` samples each at 1 s, in tick
/// order: (records of one tick).
fn node_ticks(n: usize) -> (Vec<Record>, Vec<Vec<Record>>) {
    let cap = read_capture(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/dr8-800g-cmis-healthy.jsonl")).expect("bundled capture");
    let samples: Vec<&Record> = cap.records.iter().filter(|r| matches!(r, Record::Sample(_))).collect();
    let head: Vec<Record> = cap.records.iter().filter(|r| matches!(r, Record::Interface(_))).cloned().collect();
    let period = samples.last().and_then(|r| r.t()).unwrap_or(60.0) + 1.0;
    let rename = |r: &mut Record, name: &str| match r {
        Record::Interface(x) => x.interface = name.to_string(),
        Record::Sample(x) => x.interface = name.to_string(),
        _ => {}
    };
    let names: Vec<String> = (0..64).map(|i| format!("ens{i}np0")).collect();
    let mut heads = Vec::new();
    for name in &names {
        for h in &head {
            let mut r = h.clone();
            rename(&mut r, name);
            heads.push(r);
        }
    }
    let ticks = (0..n)
        .map(|i| {
            names
                .iter()
                .map(|name| {
                    let mut r = samples[i % samples.len()].clone();
                    if let Record::Sample(s) = &mut r {
                        s.t += period * (i / samples.len()) as f64;
                    }
                    rename(&mut r, name);
                    r
                })
                .collect()
        })
        .collect();
    (heads, ticks)
}

fn judgement_cpu(quick: bool) {
    section("4. CPU per interface-sample, fold + judgement + encoding, 64 interfaces x 8 lanes at 1 s (in process)");
    // Warm-up ticks fill the windows (15 min judged, 300 s rolling) before the measured ones.
    let (warm, measured) = if quick { (900, 60) } else { (900, 300) };
    let (heads, ticks) = node_ticks(warm + measured);
    let cfg = Config::default();
    // Before: the whole run judged, plus the 300 s rolling window.
    let mut engine = Engine::new(EngineConfig { rolling_s: vec![300.0], ..EngineConfig::default() });
    let mut metrics = Metrics::new();
    heads.iter().for_each(|r| engine.push(r));
    let mut whole_tick = |engine: &mut Engine, tick: &[Record]| {
        tick.iter().for_each(|r| engine.push(r));
        let run = analyze(&engine.windows(), &cfg, &[]);
        let rolling = vec![(window_label(300.0), analyze(&engine.rolling_windows(300.0), &cfg, &[]))];
        metrics.render(&run, &rolling, &ExporterStats::default()).series
    };
    ticks[..warm].iter().for_each(|t| {
        whole_tick(&mut engine, t);
    });
    let c0 = thread_cpu_s();
    ticks[warm..].iter().for_each(|t| {
        whole_tick(&mut engine, t);
    });
    let before_us = (thread_cpu_s() - c0) / (64 * measured) as f64 * 1e6;
    // Now: the exporter's judgement (judgement window, whole-run counters, rolling, trend, peaks).
    let mut exporter = Exporter::new(cfg.clone(), ServeWindows::of(&cfg, vec![300.0]), Arc::new(Shared::default()));
    heads.iter().for_each(|r| drop(exporter.record(r)));
    let judged_tick = |exporter: &mut Exporter, tick: &[Record]| {
        tick.iter().for_each(|r| drop(exporter.record(r)));
        exporter.publish();
    };
    ticks[..warm].iter().for_each(|t| judged_tick(&mut exporter, t));
    let c0 = thread_cpu_s();
    ticks[warm..].iter().for_each(|t| judged_tick(&mut exporter, t));
    let now_us = (thread_cpu_s() - c0) / (64 * measured) as f64 * 1e6;
    row("whole run judged (before)", before_us, "us CPU / interface-sample", "", None);
    row("15 min judgement window (now)", now_us, "us CPU / interface-sample", "", None);
    let ratio = now_us / before_us.max(1e-9);
    row("ratio (now / before)", ratio, "x", "<= 2x", Some(ratio <= 2.0));
}

/// utime + stime of a process, seconds.
fn cpu_s(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the `(comm)`: state is field 3, utime 14, stime 15 (proc(5)).
    let rest = stat.rsplit_once(") ").map_or("", |(_, r)| r);
    let f: Vec<f64> = rest.split_whitespace().map(|x| x.parse().unwrap_or(0.0)).collect();
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) } as f64;
    (f.get(11).copied().unwrap_or(0.0) + f.get(12).copied().unwrap_or(0.0)) / hz
}

fn children_cpu_s() -> f64 {
    // SAFETY: getrusage fills the struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn cpu_per_sample(quick: bool) {
    section("5. CPU per interface-sample: `optics serve` on 64 veth at 1 s vs forking ethtool");
    let Some(ns) = netns::Netns::create("optics-bench") else {
        println!("| (skipped: see the line above) | | | | |");
        return;
    };
    let ipn = |args: &[&str]| netns::ip(&[&["-n", ns.name.as_str()], args].concat());
    let names: Vec<String> = (0..64).map(|i| format!("b{i}")).collect();
    for n in &names {
        let peer = format!("{n}p");
        if let Err(e) = ipn(&["link", "add", n, "type", "veth", "peer", "name", &peer]).and_then(|_| ipn(&["link", "set", n, "up"])) {
            println!("| (skipped: {e}) | | | | |");
            return;
        }
    }
    let secs = if quick { 5 } else { 20 };
    let mut child = Command::new("ip")
        .args(["netns", "exec", &ns.name, env!("CARGO_BIN_EXE_optics"), "serve", "--interval", "1s", "--listen", "127.0.0.1:0"])
        .args(&names)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawning optics serve");
    // After start-up (first ticks read static state), measure `secs` ticks.
    std::thread::sleep(Duration::from_millis(2500));
    let c0 = cpu_s(child.id());
    std::thread::sleep(Duration::from_secs(secs));
    let serve_cpu = cpu_s(child.id()) - c0;
    let _ = child.kill();
    let _ = child.wait();
    let serve_samples = (64 * secs) as f64;
    let serve_us = serve_cpu / serve_samples * 1e6;
    row("optics serve", serve_us, "us CPU / interface-sample", "", None);

    // The subprocess exporters' loop, run inside the namespace on this thread.
    ns.enter();
    let rounds = if quick { 2 } else { 5 };
    let c0 = children_cpu_s();
    for _ in 0..rounds {
        for n in &names {
            for args in [&["-S", n.as_str()][..], &["--show-fec", n.as_str()][..]] {
                let _ = Command::new("ethtool").args(args).stdout(Stdio::null()).stderr(Stdio::null()).status();
            }
        }
    }
    let fork_us = (children_cpu_s() - c0) / (rounds * 64) as f64 * 1e6;
    row("fork ethtool -S + --show-fec", fork_us, "us CPU / interface-sample", "", None);
    let ratio = fork_us / serve_us.max(1e-3);
    row("ratio (fork / serve)", ratio, "x", ">= 50x", Some(ratio >= 50.0));
    println!("\n(serve's CPU is /proc/PID/stat utime+stime over {secs} s; the fork loop's is RUSAGE_CHILDREN; veth has no module or FEC, so both read link and driver counters only.)");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") {
        println!("serve: run `cargo bench --bench serve [-- --quick]` (release build) to measure; nothing measured here.");
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    println!(
        "## optics serve figures ({} build{})",
        if cfg!(debug_assertions) { "DEBUG" } else { "release" },
        if quick { ", --quick" } else { "" }
    );
    scrape_latency(quick);
    series_per_node();
    rss_flat();
    judgement_cpu(quick);
    cpu_per_sample(quick);
}
