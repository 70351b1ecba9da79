//! `optics serve --rediscover` on the real kernel: an interface deleted and created again
//! within one rediscover period (so discovery finds the same names at its next look) is
//! sampled again, its series back, while the other interface is sampled throughout. Two
//! veth pairs in a throw-away network namespace; needs root and `ip netns`, skips otherwise.

use crate::support;
use std::process::Command;

#[allow(dead_code)]
use support::netns::{ip, Netns};
use support::serve::{bin, wait_for_interfaces, Serve};

#[test]
fn an_interface_back_within_one_rediscover_period_is_sampled_again() {
    let Some(ns) = Netns::create("optics-back") else { return };
    let pair = |ns: &Netns| {
        for args in [
            &["link", "add", "v2", "type", "veth", "peer", "name", "v3"][..],
            &["link", "set", "v2", "up"][..],
            &["link", "set", "v3", "up"][..],
        ] {
            ip(&[&["-n", ns.name.as_str()], args].concat()).unwrap();
        }
    };
    pair(&ns);
    ip(&["-n", &ns.name, "link", "set", "lo", "up"]).unwrap();
    let mut cmd = Command::new("ip");
    cmd.args(["netns", "exec", &ns.name]).arg(bin()).args([
        "serve",
        "v0",
        "v2",
        "--interval",
        "200ms",
        "--rediscover",
        "5s",
        "--listen",
        "127.0.0.1:0",
    ]);
    let mut serve = Serve::start(cmd);
    ns.enter();
    wait_for_interfaces(&serve, &["v0", "v2"]);
    // Deleted, and created again as soon as the sampler has found it gone (its series
    // go, a sample or two later): well inside the 5 s period, so discovery's next look
    // finds v0 and v2, the names it started with.
    ip(&["-n", &ns.name, "link", "del", "v2"]).unwrap();
    wait_for_interfaces(&serve, &["v0"]);
    pair(&ns);
    // Sampled again within a rediscover period and a few samples.
    wait_for_interfaces(&serve, &["v0", "v2"]);
    let log = serve.stderr.lock().unwrap().clone();
    assert!(log.lines().any(|l| l.starts_with("<4>interface v2 removed")), "{log}");
    assert!(serve.alive());
}
