//! `optics_sample_errors_total{layer="module"}` counts a persistent module condition once:
//! a veth has no module (the kernel answers "not supported"), which the sampler reports
//! each time it restarts on a new interface set. Re-adding one veth pair three times must
//! count v0's condition once and w0's once per appearance (1 + 4), not once per restart.
//! Real kernel, throw-away namespace; prints `skipping: <reason>` and passes without root.

use crate::support;
use std::process::Command;
use std::time::{Duration, Instant};

use support::netns::{ip, Netns};
use support::serve::{bin, get, samples, Serve};

fn metrics(serve: &Serve) -> String {
    get(serve.addr, "/metrics", &[]).map(|r| r.body).unwrap_or_default()
}

fn wait_until(serve: &Serve, what: &str, ok: impl Fn(&str) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !ok(&metrics(serve)) {
        assert!(Instant::now() < deadline, "waiting for {what}; log: {}", serve.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn module_errors(body: &str) -> f64 {
    samples(body).into_iter().find(|(s, _)| s == "optics_sample_errors_total{layer=\"module\"}").map_or(-1.0, |(_, v)| v)
}

#[test]
fn a_persistent_module_error_is_counted_once_across_interface_set_changes() {
    let Some(ns) = Netns::create("optics-errs") else { return };
    let add_w = || {
        for args in [
            &["link", "add", "w0", "type", "veth", "peer", "name", "w1"][..],
            &["link", "set", "w0", "up"][..],
            &["link", "set", "w1", "up"][..],
        ] {
            ip(&[&["-n", ns.name.as_str()], args].concat()).unwrap();
        }
    };
    add_w();
    ip(&["-n", &ns.name, "link", "set", "lo", "up"]).unwrap();
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &ns.name]).arg(bin()).args([
        "serve",
        "v0",
        "w0",
        "--interval",
        "100ms",
        "--rediscover",
        "200ms",
        "--listen",
        "127.0.0.1:0",
    ]);
    let serve = Serve::start(cmd);
    ns.enter();
    let has_w0 = |b: &str| b.contains("optics_link_up{interface=\"w0\"}");
    wait_until(&serve, "both sampled", |b| has_w0(b) && b.contains("optics_link_up{interface=\"v0\"}"));
    for _ in 0..3 {
        ip(&["-n", &ns.name, "link", "del", "w0"]).unwrap();
        wait_until(&serve, "w0 removed", |b| !has_w0(b) && b.contains("optics_link_up{interface=\"v0\"}"));
        // Past a rediscovery pass, so the sampler has restarted on v0 alone.
        std::thread::sleep(Duration::from_millis(600));
        add_w();
        wait_until(&serve, "w0 back", has_w0);
    }
    // A few more ticks on the final set, then the count.
    std::thread::sleep(Duration::from_millis(500));
    let body = metrics(&serve);
    let log = serve.stderr.lock().unwrap().clone();
    let restarts = log.lines().filter(|l| l.contains("interface set changed")).count();
    assert!(restarts >= 6, "the sampler restarted {restarts} times: {log}");
    assert_eq!(module_errors(&body), 5.0, "v0 once, w0 once per appearance (4); log: {log}");
}
