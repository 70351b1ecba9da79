//! One client cannot starve `serve`: while a flooder holds 2,000 idle loopback connections
//! and opens new ones as fast as it can, a well-behaved scraper (one `/metrics` every 0.5 s,
//! 10 s timeout, as Prometheus would) keeps >= 95 % of its scrapes at a median under 100 ms,
//! and the exporter's open files stay under the 1,024 a systemd unit gets by default.
//! Figures printed with --nocapture: successes, median and slowest scrape, flood size,
//! the exporter's most open files.
//!
//! The flood is bounded: at most [`FLOOD_OPENS`] connections in all, for as long as the
//! scraper runs. It comes from 127.0.0.1, the scraper's own address, so the per-peer cap
//! cannot tell them apart: only shedding the oldest idle connection and the first-byte
//! timeout keep the scraper served (a separate peer is the easier case; unit tests in
//! src/serve/connections.rs cover the choice between peers).

use crate::support;
use std::collections::VecDeque;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use support::serve::{get, replay_command, Serve};

const HELD: usize = 2_000;
const FLOODERS: usize = 2;
const FLOOD_OPENS: usize = 20_000;
const SCRAPES: usize = 20;
const SCRAPE_EVERY: Duration = Duration::from_millis(500);

/// The test process holds HELD sockets of its own beside the scraper's: lift the soft
/// open-file limit to the hard one (a soft limit of 1,024 is common).
fn raise_nofile() {
    let mut lim = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit/setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 && lim.rlim_cur < lim.rlim_max {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

fn open_files(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map(|d| d.count()).unwrap_or(0)
}

/// Opens connections as fast as it can, never sending a byte, keeping its newest share of
/// HELD open.
fn flood(addr: SocketAddr, stop: Arc<AtomicBool>, opened: Arc<AtomicUsize>) {
    const SHARE: usize = HELD / FLOODERS;
    let mut held: VecDeque<TcpStream> = VecDeque::with_capacity(SHARE);
    while !stop.load(Ordering::Relaxed) && opened.load(Ordering::Relaxed) < FLOOD_OPENS {
        if let Ok(s) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) {
            opened.fetch_add(1, Ordering::Relaxed);
            if held.len() == SHARE {
                held.pop_front();
            }
            held.push_back(s);
        }
    }
    // Held until the scraper is done, whatever the count reached.
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_scraper_is_served_while_another_client_floods_idle_connections() {
    raise_nofile();
    let mut serve = Serve::start(replay_command("sr4-200g-healthy.jsonl", 1000.0));
    serve.wait_ready();
    let pid = serve.child.id();

    let stop = Arc::new(AtomicBool::new(false));
    let opened = Arc::new(AtomicUsize::new(0));
    let flooders: Vec<_> = (0..FLOODERS)
        .map(|_| {
            let (stop, opened) = (stop.clone(), opened.clone());
            let addr = serve.addr;
            std::thread::spawn(move || flood(addr, stop, opened))
        })
        .collect();
    // The flood is under way (2,000 held) before the scraper starts.
    let ramp = Instant::now();
    while opened.load(Ordering::Relaxed) < HELD && ramp.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(10));
    }

    let mut latencies = Vec::new();
    let mut failures = Vec::new();
    let mut most_files = 0;
    for i in 0..SCRAPES {
        let due = Instant::now() + SCRAPE_EVERY;
        let t = Instant::now();
        match get(serve.addr, "/metrics", &[]) {
            Ok(r) if r.status == 200 && r.body.contains("optics_interface_verdict{") => latencies.push(t.elapsed()),
            Ok(r) => failures.push(format!("scrape {i}: status {} ({} bytes)", r.status, r.body.len())),
            Err(e) => failures.push(format!("scrape {i}: {e}")),
        }
        most_files = most_files.max(open_files(pid));
        std::thread::sleep(due.saturating_duration_since(Instant::now()));
    }
    stop.store(true, Ordering::Relaxed);
    for f in flooders {
        f.join().expect("flood thread");
    }

    latencies.sort();
    let median = latencies.get(latencies.len() / 2).copied().unwrap_or(Duration::MAX);
    let slowest = latencies.last().copied().unwrap_or_default();
    println!(
        "{}/{SCRAPES} scrapes answered, median {median:?}, slowest {slowest:?}; {} connections opened by the flood; \
         exporter's most open files {most_files}; failures: {failures:?}",
        latencies.len(),
        opened.load(Ordering::Relaxed)
    );
    assert!(serve.alive(), "the exporter died: {}", serve.stderr.lock().unwrap());
    assert!(opened.load(Ordering::Relaxed) > HELD, "the flood did not get going");
    assert!(latencies.len() * 100 >= SCRAPES * 95, "only {}/{SCRAPES} scrapes answered: {failures:?}", latencies.len());
    assert!(median < Duration::from_millis(100), "median scrape {median:?}");
    assert!(most_files < 1024, "the exporter held {most_files} files");
}
