//! `serve`'s live loop with discovery (library level, over capture replay sources): an
//! interface that discovery starts to report is picked up, one it stops reporting has its
//! series removed, and SIGTERM ends the loop. Alone in its binary: it signals its own process
//! (tokio's handler catches the signal). The capture has 31 samples per interface: at 50 ms
//! that is 1.5 s per sampling run, far more than the phases need.

use optics::analysis::Config;
use optics::capture::read_capture;
use optics::serve::{run_live, CallerError, Exporter, LiveOptions, ServeWindows, Shared, Signals};
use optics::source::replay::ReplaySource;
use optics::source::Source;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const A: &str = "enp1s0f0np0";
const B: &str = "enp1s0f1np1";

fn interfaces_exported(shared: &Shared) -> Vec<String> {
    let snap = shared.latest();
    let text = String::from_utf8_lossy(&snap.text).into_owned();
    let mut v: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("optics_interface_verdict{") && l.contains("verdict=\"accept\""))
        .filter_map(|l| l.split("interface=\"").nth(1)?.split('"').next().map(str::to_string))
        .collect();
    v.sort();
    v
}

fn run_phases(shared: &Shared, phase: &AtomicUsize) {
    let wait_for = |want: &[&str]| {
        let deadline = Instant::now() + Duration::from_secs(10);
        while interfaces_exported(shared) != want {
            assert!(Instant::now() < deadline, "wanted {want:?}, exported {:?}", interfaces_exported(shared));
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    wait_for(&[A]);
    phase.store(1, Ordering::SeqCst);
    wait_for(&[A, B]);
    phase.store(2, Ordering::SeqCst);
    wait_for(&[B]);
}

#[test]
fn discovery_picks_up_new_interfaces_and_drops_vanished_ones() {
    let cap = read_capture(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/multihost-gb10-cx7.jsonl")).unwrap();
    let shared = Arc::new(Shared::default());
    // 0: only A; 1: A and B; 2: only B.
    let phase = Arc::new(AtomicUsize::new(0));
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let checker = {
        let (shared, phase) = (shared.clone(), phase.clone());
        std::thread::spawn(move || {
            // Whatever happens, the loop is stopped, so a failure cannot hang the test.
            let r = std::panic::catch_unwind(move || run_phases(&shared, &phase));
            // SAFETY: signals our own process; run_live's handler is installed by now.
            unsafe { libc::kill(libc::getpid(), libc::SIGTERM) };
            if let Err(e) = r {
                std::panic::resume_unwind(e);
            }
        })
    };
    let stopped = rt.block_on(async {
        let mut signals = Signals::install().unwrap();
        let mut exporter = Exporter::new(Config::default(), ServeWindows::of(&Config::default(), vec![300.0]), shared.clone());
        let opts = LiveOptions { interval: Duration::from_millis(50), rediscover: Duration::from_millis(100) };
        let make_source = |_: &str| -> Box<dyn Source + Send> { Box::new(ReplaySource::new(&cap)) };
        let discover = || -> Result<Vec<String>, CallerError> {
            Ok(match phase.load(Ordering::SeqCst) {
                0 => vec![A.to_string()],
                1 => vec![A.to_string(), B.to_string()],
                _ => vec![B.to_string()],
            })
        };
        let reload = || -> Result<Config, CallerError> { Ok(Config::default()) };
        run_live(&mut exporter, &opts, make_source, discover, &mut signals, &reload).await.unwrap()
    });
    checker.join().expect("the checker saw every phase");
    assert_eq!(stopped, optics::sample::summary::StopSignal::Term);
}
