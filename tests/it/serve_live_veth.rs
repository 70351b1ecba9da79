//! `optics serve` on the real kernel: two veth pairs in a throw-away network namespace
//! (never the host's interfaces). Deleting one pair removes its series (and logs it) while
//! the process keeps serving the other. Needs root and `ip netns`; prints `skipping: <reason>`
//! and passes otherwise.

use crate::support;
use std::process::Command;
use std::time::{Duration, Instant};

#[allow(dead_code)]
use support::netns::{ip, Netns};
use support::serve::{bin, get, wait_for_interfaces, Serve};

#[test]
fn deleting_a_veth_removes_its_series_and_serving_goes_on() {
    let Some(ns) = Netns::create("optics-serve") else { return };
    for args in [
        &["link", "add", "v2", "type", "veth", "peer", "name", "v3"][..],
        &["link", "set", "v2", "up"][..],
        &["link", "set", "v3", "up"][..],
        &["link", "set", "lo", "up"][..],
    ] {
        ip(&[&["-n", ns.name.as_str()], args].concat()).unwrap();
    }
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &ns.name]).arg(bin()).args(["serve", "v0", "v2", "--interval", "200ms", "--listen", "127.0.0.1:0"]);
    let mut serve = Serve::start(cmd);
    // The exporter listens on the namespace's loopback: this test thread goes there too.
    ns.enter();
    wait_for_interfaces(&serve, &["v0", "v2"]);
    ip(&["-n", &ns.name, "link", "del", "v2"]).unwrap();
    wait_for_interfaces(&serve, &["v0"]);
    let body = get(serve.addr, "/metrics", &[]).unwrap().body;
    assert!(!body.contains("interface=\"v2\""), "a series of v2 is left: {body}");
    assert!(body.contains("optics_link_up{interface=\"v0\"} 1"), "{body}");
    assert!(serve.alive());
    let log = serve.stderr.lock().unwrap().clone();
    assert!(log.lines().any(|l| l.starts_with("<4>interface v2 removed")), "{log}");
    assert_eq!(get(serve.addr, "/healthz", &[]).unwrap().status, 200);
}

/// A node whose NICs vanish must alert, not go quiet: with its one interface deleted (and
/// discovery finding nothing in its place), the exporter still publishes
/// `optics_interfaces 0` and an `optics_last_sample_timestamp_seconds` that keeps moving.
#[test]
fn with_no_interface_left_the_exporter_still_says_so() {
    let Some(ns) = Netns::create("optics-empty") else { return };
    ip(&["-n", &ns.name, "link", "set", "lo", "up"]).unwrap();
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &ns.name]).arg(bin()).args([
        "serve",
        "v0",
        "--interval",
        "200ms",
        "--rediscover",
        "300ms",
        "--listen",
        "127.0.0.1:0",
    ]);
    let mut serve = Serve::start(cmd);
    ns.enter();
    let value = |body: &str, name: &str| -> Option<f64> {
        body.lines().find(|l| l.starts_with(name) && l[name.len()..].starts_with(' '))?.split_whitespace().nth(1)?.parse().ok()
    };
    let wait_for = |what: &str, ok: &dyn Fn(&str) -> bool, serve: &Serve| -> String {
        let deadline = Instant::now() + Duration::from_secs(15);
        loop {
            let body = get(serve.addr, "/metrics", &[]).map(|r| r.body).unwrap_or_default();
            if ok(&body) {
                return body;
            }
            assert!(Instant::now() < deadline, "waited for {what}; log: {}", serve.stderr.lock().unwrap());
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for("v0 sampled", &|b| value(b, "optics_interfaces") == Some(1.0), &serve);
    ip(&["-n", &ns.name, "link", "del", "v0"]).unwrap();
    let first = wait_for("no interface", &|b| value(b, "optics_interfaces") == Some(0.0), &serve);
    assert!(!first.contains("interface=\"v0\""), "v0's series are left: {first}");
    let t0 = value(&first, "optics_last_sample_timestamp_seconds").expect("a timestamp with no interface");
    let later = wait_for(
        "a newer timestamp",
        &|b| value(b, "optics_last_sample_timestamp_seconds").is_some_and(|t| t > t0) && value(b, "optics_interfaces") == Some(0.0),
        &serve,
    );
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs_f64();
    let t1 = value(&later, "optics_last_sample_timestamp_seconds").unwrap();
    assert!((now - t1).abs() < 10.0, "the timestamp is the wall clock's: {t1} vs {now}");
    assert!(serve.alive());
}
