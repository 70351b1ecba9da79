//! `optics serve` process control: SIGHUP re-reads --config (a bad file is refused and the
//! previous configuration stays), SIGTERM stops it cleanly with status 0.

use crate::support;
use std::process::Command;
use std::time::{Duration, Instant};

#[allow(dead_code)]
use support::serve::{bin, capture, get, Serve};

fn signal(serve: &Serve, sig: libc::c_int) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(serve.child.id() as libc::pid_t, sig) }, 0);
}

fn low_margin_lanes(serve: &Serve) -> Vec<String> {
    let body = get(serve.addr, "/metrics", &[]).unwrap().body;
    body.lines()
        .filter(|l| l.starts_with("optics_lane_flag{") && l.contains("flag=\"low_margin\""))
        .filter_map(|l| l.split("lane=\"").nth(1)?.split('"').next().map(str::to_string))
        .collect()
}

fn wait_until(serve: &Serve, what: &str, ok: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ok() {
        assert!(Instant::now() < deadline, "{what}; log: {}", serve.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sighup_reloads_the_config_and_sigterm_stops_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("config.json");
    std::fs::write(&cfg, "{}").unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["serve", "--replay", &capture("sr4-200g-lane4-marginal.jsonl"), "--speed", "1000", "--listen", "127.0.0.1:0"])
        .arg("--config")
        .arg(&cfg);
    let mut serve = Serve::start(cmd);
    serve.wait_ready();
    // Default floor 1 dB: lanes 4 (0.41 dB) and 3 (0.91 dB) are low (the capture's README).
    wait_until(&serve, "lanes 3 and 4 low with the default floor", || low_margin_lanes(&serve) == ["3", "4"]);
    // A floor of 0.5 dB keeps lane 4 only.
    std::fs::write(&cfg, r#"{"margin_floor_db": 0.5}"#).unwrap();
    signal(&serve, libc::SIGHUP);
    wait_until(&serve, "only lane 4 low after the reload", || low_margin_lanes(&serve) == ["4"]);
    // A broken file is refused; the 0.5 dB floor stays.
    std::fs::write(&cfg, "{not json").unwrap();
    signal(&serve, libc::SIGHUP);
    wait_until(&serve, "the refusal logged", || serve.stderr.lock().unwrap().contains("<3>configuration not reloaded"));
    assert_eq!(low_margin_lanes(&serve), ["4"]);
    signal(&serve, libc::SIGTERM);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = serve.child.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "serve did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    std::thread::sleep(Duration::from_millis(100)); // the stderr reader drains the pipe
    let log = serve.stderr.lock().unwrap().clone();
    assert!(log.contains("<6>stopping (SIGTERM)"), "{log}");
    // journald form: every line carries a priority prefix and no timestamp.
    for line in log.lines() {
        assert!(line.len() > 3 && line.starts_with('<') && line.as_bytes()[2] == b'>', "{line}");
    }
}
