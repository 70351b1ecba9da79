//! Link state by notification against a real kernel (veth in a throw-away network
//! namespace; never the host's interfaces): the rtnetlink socket names the devices that
//! changed and reports an overflow; the live source keeps link state and modes between
//! samples, yet every sample's up/down is the kernel's, a flap between samples makes it
//! ask again, renames and removals are `NoDevice`, and lost notifications are recovered
//! by a full read. Needs root and `ip netns`; skips with a printed reason otherwise.

use crate::support;
use optics::source::live::LiveSource;
use optics::source::netlink::link_watch::{LinkWatch, Notifications};
use optics::source::netlink::notify::{Drained, LinkNotifier};
use optics::source::Source;
use std::time::{Duration, Instant};

#[allow(dead_code)]
use support::netns::{ip, Netns};

/// A namespace whose setup has settled: linkwatch delivers the carrier change of the
/// pair coming up from a workqueue, after `ip` returned, and a socket opened too early
/// would count it as a change made by the test.
fn settled_netns() -> Option<Netns> {
    let ns = Netns::create("optics-n")?;
    ns.enter();
    std::thread::sleep(Duration::from_millis(300));
    Some(ns)
}

fn ifindex(name: &str) -> u32 {
    let c = std::ffi::CString::new(name).expect("test names have no NUL");
    // SAFETY: valid NUL-terminated string.
    unsafe { libc::if_nametoindex(c.as_ptr()) }
}

/// Drains until `done` holds for what was gathered, or 3 s pass (linkwatch delivers
/// carrier changes from a workqueue, not inside the `ip` command).
fn drain_until(n: &mut LinkNotifier, done: impl Fn(&Drained) -> bool) -> Drained {
    let mut all = Drained::default();
    let start = Instant::now();
    while !done(&all) && start.elapsed() < Duration::from_secs(3) {
        let d = n.drain().unwrap();
        all.ifindexes.extend(d.ifindexes);
        all.lost |= d.lost;
        std::thread::sleep(Duration::from_millis(20));
    }
    all
}

#[test]
fn notifier_names_changed_devices_and_reports_overflow() {
    let Some(ns) = settled_netns() else { return };
    let (v0, v1) = (ifindex("v0"), ifindex("v1"));
    let mut n = LinkNotifier::open().unwrap();
    // Nothing changed since the subscription: one EAGAIN, no bytes.
    assert_eq!(n.drain().unwrap(), Drained::default());
    assert_eq!(n.io_counts().bytes, 0);
    // The peer going down changes v1 (IFF_UP) and v0 (carrier).
    ip(&["-n", &ns.name, "link", "set", "v1", "down"]).unwrap();
    let d = drain_until(&mut n, |d| d.ifindexes.contains(&v0) && d.ifindexes.contains(&v1));
    assert!(d.ifindexes.contains(&v0) && d.ifindexes.contains(&v1) && !d.lost, "{d:?} (v0 {v0}, v1 {v1})");
    assert!(n.io_counts().bytes > 0);

    // The smallest receive buffer the kernel allows holds a message or two: twenty
    // changes overflow it, and the kernel says so (ENOBUFS).
    let mut small = LinkNotifier::open_with_receive_buffer(Some(1)).unwrap();
    for i in 0..10 {
        ip(&["-n", &ns.name, "link", "set", "v1", if i % 2 == 0 { "up" } else { "down" }]).unwrap();
    }
    let d = drain_until(&mut small, |d| d.lost);
    assert!(d.lost, "{d:?}");
}

/// One sample as `watch` takes it (link state, link info, FEC, driver counters); the
/// link's up and the requests it made.
fn sample(s: &mut LiveSource) -> (Option<bool>, u64) {
    let before = s.io_counts().requests;
    let up = s.link_state("v0").unwrap().up;
    assert_eq!(s.link_info("v0").unwrap().speed_mbps, Some(10_000));
    assert!(s.fec("v0").unwrap_err().is_not_supported());
    s.end_sample();
    (up, s.io_counts().requests - before)
}

#[test]
fn live_source_keeps_the_link_between_samples_and_follows_changes() {
    let Some(ns) = settled_netns() else { return };
    let set_peer = |state: &str| ip(&["-n", &ns.name, "link", "set", "v1", state]).unwrap();
    let mut s = LiveSource::new();
    // First sample: LINKSTATE_GET, LINKMODES_GET, FEC_GET (and the one-off lookups).
    assert_eq!(sample(&mut s).0, Some(true));
    // Quiet: ETHTOOL_GLINK and FEC_GET only.
    for _ in 0..5 {
        assert_eq!(sample(&mut s), (Some(true), 2));
    }
    // Peer down then up: each sample has the kernel's answer at once, whether or not the
    // notification has arrived.
    set_peer("down");
    assert_eq!(sample(&mut s).0, Some(false));
    set_peer("up");
    assert_eq!(sample(&mut s).0, Some(true));
    std::thread::sleep(Duration::from_millis(300));
    sample(&mut s); // the notifications of that flap make this one a full read
    assert_eq!(sample(&mut s), (Some(true), 2));

    // A flap between two samples: up in both, but the notifications make the next
    // sample ask LINKSTATE_GET, LINKMODES_GET (and FEC_GET) again, without GLINK.
    set_peer("down");
    set_peer("up");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(sample(&mut s), (Some(true), 3));
    assert_eq!(sample(&mut s), (Some(true), 2));

    // Renamed away: the name is no device any more.
    ip(&["-n", &ns.name, "link", "set", "v0", "name", "vx"]).unwrap();
    let e = s.link_state("v0").unwrap_err();
    assert!(e.is_no_device(), "{e}");
}

#[test]
fn lost_notifications_are_recovered_by_a_full_read() {
    let Some(ns) = settled_netns() else { return };
    let small = || Ok(Box::new(LinkNotifier::open_with_receive_buffer(Some(1))?) as Box<dyn Notifications>);
    let mut s = LiveSource::new().with_link_watch(LinkWatch::with_opener(Box::new(small)));
    assert_eq!(sample(&mut s).0, Some(true));
    assert_eq!(sample(&mut s), (Some(true), 2));
    // Flaps of the peer ending up: more notifications than the buffer holds.
    for state in ["down", "up"].repeat(10) {
        ip(&["-n", &ns.name, "link", "set", "v1", state]).unwrap();
    }
    std::thread::sleep(Duration::from_millis(300));
    // ENOBUFS: this sample reads state and modes afresh; the next is quiet again.
    assert_eq!(sample(&mut s), (Some(true), 3));
    assert_eq!(sample(&mut s), (Some(true), 2));
}

#[test]
fn a_shared_watch_drains_once_per_pass() {
    let Some(ns) = settled_netns() else { return };
    ip(&["-n", &ns.name, "link", "add", "v2", "type", "veth", "peer", "name", "v3"]).unwrap();
    ip(&["-n", &ns.name, "link", "set", "v2", "up"]).unwrap();
    ip(&["-n", &ns.name, "link", "set", "v3", "up"]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let watch = LinkWatch::new();
    let mut a = LiveSource::new().with_link_watch(watch.clone());
    let mut b = LiveSource::new().with_link_watch(watch);
    let pass = |a: &mut LiveSource, b: &mut LiveSource| {
        let (ua, ub) = (a.link_state("v0").unwrap().up, b.link_state("v2").unwrap().up);
        a.end_sample();
        b.end_sample();
        (ua, ub)
    };
    assert_eq!(pass(&mut a, &mut b), (Some(true), Some(true)));
    assert_eq!(pass(&mut a, &mut b), (Some(true), Some(true)));
    // v3 (v2's peer) goes down: v2's source sees it, v0's stays quiet.
    ip(&["-n", &ns.name, "link", "set", "v3", "down"]).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let (ra, rb) = (a.io_counts().requests, b.io_counts().requests);
    assert_eq!(pass(&mut a, &mut b), (Some(true), Some(false)));
    // a: GLINK only; b: GLINK differs or the notification -> LINKSTATE_GET.
    assert_eq!(a.io_counts().requests - ra, 1);
    assert!(b.io_counts().requests - rb >= 1);
}
