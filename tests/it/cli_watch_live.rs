//! `watch`/`scan` against a real kernel, for what the live sampler promises beyond one
//! veth: an ifindex named on the command line becomes the device's name, a device named
//! twice is sampled once, no name means discovery, a rename swap is an `interface_gone`
//! plus a new interface, and the per-sample syscall budget (counted with strace, not
//! timed). Namespaces are created and deleted by each test (never the host's
//! interfaces); without root or `ip netns` (or strace, for the budget) a test prints
//! `skipping: <reason>` and passes. Also the flags `watch --replay` refuses.

use crate::support;
use optics::capture::{read_capture, EventKind, Record};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

#[allow(dead_code)]
use support::netns::{ip, Netns};

fn bin() -> PathBuf {
    PathBuf::from(assert_cmd::cargo::cargo_bin!("optics"))
}

fn run_in(ns: &Netns, args: &[&str]) -> Output {
    Command::new("ip").args(["netns", "exec", &ns.name]).arg(bin()).args(args).output().expect("spawning ip netns exec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `ip -n NS ARGS...`, which must succeed.
fn ipn(ns: &Netns, args: &[&str]) {
    ip(&[&["-n", ns.name.as_str()], args].concat()).unwrap();
}

/// The ifindex of `name` inside the namespace (`/sys/class/net/NAME/ifindex` as seen there).
fn ifindex_in(ns: &Netns, name: &str) -> u32 {
    let out = Command::new("ip").args(["netns", "exec", &ns.name, "cat", &format!("/sys/class/net/{name}/ifindex")]).output().unwrap();
    text(&out.stdout).trim().parse().unwrap_or_else(|e| panic!("ifindex of {name}: {e}: {}", text(&out.stderr)))
}

fn samples_of<'a>(records: &'a [Record], iface: &'a str) -> impl Iterator<Item = &'a optics::capture::SampleRecord> + 'a {
    records.iter().filter_map(move |r| match r {
        Record::Sample(s) if s.interface == iface => Some(s),
        _ => None,
    })
}

#[test]
fn ifindex_on_the_command_line_is_named_and_duplicates_are_sampled_once() {
    let Some(ns) = Netns::create("optics-wl") else { return };
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("c.jsonl");
    let index = ifindex_in(&ns, "v0").to_string();
    let out = run_in(&ns, &["watch", &index, "v0", &index, "--interval", "200ms", "--duration", "1s", "--record", rec.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let cap = read_capture(&rec).unwrap();
    assert_eq!(cap.interfaces(), vec!["v0".to_string()], "the ifindex is reported by its name, once");
    let ts: Vec<f64> = samples_of(&cap.records, "v0").map(|s| s.t).collect();
    assert!(ts.len() >= 3, "{ts:?}");
    // One sample per tick: 200 ms apart, never two at (nearly) the same time.
    assert!(ts.windows(2).all(|w| w[1] - w[0] > 0.1), "{ts:?}");
    // The report names the device too.
    assert!(text(&out.stdout).contains("v0"), "{}", text(&out.stdout));
    assert!(!text(&out.stdout).contains(&format!("{index}:")), "{}", text(&out.stdout));
}

#[test]
fn watch_without_interface_discovers_like_scan() {
    let Some(ns) = Netns::create("optics-wl") else { return };
    // veth is virtual and has neither module nor FEC: discovery runs and finds nothing.
    for args in [["watch", "--duration", "1s"], ["scan", "--window", "1s"]] {
        let cmd = args[0];
        let out = run_in(&ns, &args);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("no network interface with a readable module or FEC statistics"), "{cmd}: {stderr}");
    }
}

#[test]
fn rename_swap_is_interface_gone_and_a_new_interface() {
    let Some(ns) = Netns::create("optics-wl") else { return };
    ipn(&ns, &["link", "add", "v2", "type", "veth", "peer", "name", "v3"]);
    ipn(&ns, &["link", "set", "v2", "up"]);
    ipn(&ns, &["link", "set", "v3", "up"]);
    let (v1, v3) = (ifindex_in(&ns, "v1"), ifindex_in(&ns, "v3"));
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("swap.jsonl");
    let child = Command::new("ip")
        .args(["netns", "exec", &ns.name])
        .arg(bin())
        .args(["watch", "v0", "--interval", "200ms", "--duration", "2500ms", "--record", rec.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(900));
    // v0 renamed away and v2 renamed to v0 in one `ip -batch` (renames need the link down).
    let batch = dir.path().join("swap.ip");
    std::fs::write(&batch, "link set v0 down\nlink set v0 name vx\nlink set v2 down\nlink set v2 name v0\nlink set v0 up\n").unwrap();
    ip(&["-n", &ns.name, "-batch", batch.to_str().unwrap()]).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    let cap = read_capture(&rec).unwrap();
    let gone = cap
        .records
        .iter()
        .position(|r| matches!(r, Record::Event(e) if e.kind == EventKind::InterfaceGone && e.interface == "v0"))
        .unwrap_or_else(|| panic!("no interface_gone for v0: {:?}", cap.records));
    let interfaces: Vec<usize> =
        cap.records.iter().enumerate().filter(|(_, r)| matches!(r, Record::Interface(i) if i.interface == "v0")).map(|(n, _)| n).collect();
    assert_eq!(interfaces.len(), 2, "an interface record for each device: {interfaces:?}");
    assert!(interfaces[0] < gone && gone < interfaces[1]);
    // veth's peer_ifindex says which device a sample came from: v1's peer before, v3's after.
    let peer = |s: &optics::capture::SampleRecord| s.driver_stats.get("peer_ifindex");
    let before: Vec<_> = cap.records[..gone].iter().filter_map(|r| if let Record::Sample(s) = r { peer(s) } else { None }).collect();
    let after: Vec<_> = cap.records[gone..].iter().filter_map(|r| if let Record::Sample(s) = r { peer(s) } else { None }).collect();
    assert!(!before.is_empty() && before.iter().all(|&p| p == u64::from(v1)), "{before:?} (v1 = {v1})");
    assert!(!after.is_empty() && after.iter().all(|&p| p == u64::from(v3)), "{after:?} (v3 = {v3})");
}

#[test]
fn link_down_and_up_during_watch_are_in_the_samples_and_counted_once() {
    let Some(ns) = Netns::create("optics-wl") else { return };
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("flap.jsonl");
    let child = Command::new("ip")
        .args(["netns", "exec", &ns.name])
        .arg(bin())
        .args(["watch", "v0", "--interval", "100ms", "--duration", "2500ms", "--json", "--record", rec.to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The peer down for about 0.7 s in the middle of the run: v0 loses its carrier.
    std::thread::sleep(std::time::Duration::from_millis(800));
    ipn(&ns, &["link", "set", "v1", "down"]);
    std::thread::sleep(std::time::Duration::from_millis(700));
    ipn(&ns, &["link", "set", "v1", "up"]);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));

    let cap = read_capture(&rec).unwrap();
    let ups: Vec<Option<bool>> = samples_of(&cap.records, "v0").map(|s| s.link.up).collect();
    // Runs of equal values: up, down (at 100 ms a 700 ms outage spans several samples), up.
    let mut runs = ups.clone();
    runs.dedup();
    assert_eq!(runs, [Some(true), Some(false), Some(true)], "{ups:?}");
    assert!(ups.iter().filter(|u| **u == Some(false)).count() >= 3, "{ups:?}");
    // Down and up again at the same speed: one interface record, no errors (beyond the
    // one-off "module not read" of a veth).
    let interfaces = cap.records.iter().filter(|r| matches!(r, Record::Interface(_))).count();
    let errors: Vec<_> = cap
        .records
        .iter()
        .filter(|r| matches!(r, Record::Event(e) if e.kind == EventKind::Error && !e.message.starts_with("module not read")))
        .collect();
    assert_eq!((interfaces, errors.len()), (1, 0), "{errors:?}");
    // veth has no link-down counter: the one up->down transition of the samples.
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    let link = &v["interfaces"][0]["link"];
    assert_eq!(
        (link["link_down_events"].as_u64(), link["counter_sources"]["link_down_events"].as_str()),
        (Some(1), Some("samples")),
        "{link}"
    );
}

/// Per-sample syscalls of `watch IFACES...` in `ns`: the difference between a short and a
/// longer run over the difference in samples (start-up cost cancels out), per syscall.
fn syscalls_per_sample(ns: &Netns, dir: &Path, ifaces: &[String]) -> Vec<(String, f64)> {
    let counts = |duration: &str| -> (u64, std::collections::BTreeMap<String, u64>) {
        let st = dir.join(format!("strace-{duration}.txt"));
        let mut args: Vec<String> = vec!["netns".into(), "exec".into(), ns.name.clone(), "strace".into(), "-f".into(), "-c".into()];
        args.extend(["-o".into(), st.display().to_string(), bin().display().to_string(), "watch".into()]);
        args.extend(ifaces.iter().cloned());
        args.extend(["--interval", "100ms", "--duration", duration, "--verbose"].map(String::from));
        let out = Command::new("ip").args(&args).output().unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        // "N ticks, S samples, ..." from --verbose.
        let stdout = text(&out.stdout);
        let line = stdout.lines().find(|l| l.contains(" ticks, ")).unwrap_or_else(|| panic!("{stdout}"));
        let samples = line.split(", ").nth(1).and_then(|w| w.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
        let mut per = std::collections::BTreeMap::new();
        for l in std::fs::read_to_string(&st).unwrap().lines() {
            // "% time seconds usecs/call calls [errors] syscall"
            let f: Vec<&str> = l.split_whitespace().collect();
            if f.len() >= 5 && f[0].parse::<f64>().is_ok() && f.last() != Some(&"total") {
                per.insert(f.last().unwrap().to_string(), f[3].parse::<u64>().unwrap_or(0));
            }
        }
        (samples, per)
    };
    let (s1, c1) = counts("500ms");
    let (s2, c2) = counts("1500ms");
    assert!(s2 > s1, "{s1} -> {s2} samples");
    c2.iter().map(|(k, &v)| (k.clone(), (v.saturating_sub(c1.get(k).copied().unwrap_or(0))) as f64 / (s2 - s1) as f64)).collect()
}

#[test]
fn a_sample_stays_within_its_syscall_budget() {
    if Command::new("strace").arg("-V").output().is_err() {
        eprintln!("skipping: strace is not installed");
        return;
    }
    let Some(ns) = Netns::create("optics-wl") else { return };
    // 8 veth with 64 queues each (577 counters): the string table must not be re-read.
    let mut ifaces = Vec::new();
    for i in 0..8 {
        let (a, b) = (format!("q{i}"), format!("p{i}"));
        ipn(&ns, &["link", "add", &a, "numtxqueues", "64", "numrxqueues", "64", "type", "veth", "peer", "name", &b]);
        ipn(&ns, &["link", "set", &a, "up"]);
        ipn(&ns, &["link", "set", &b, "up"]);
        ifaces.push(a);
    }
    let dir = tempfile::tempdir().unwrap();
    let per = syscalls_per_sample(&ns, dir.path(), &ifaces);
    eprintln!("syscalls per interface-sample: {per:?}");
    // The kernel work of one sample: ETHTOOL_GLINK, FEC_GET (one sendto + one recvfrom,
    // no ACK), GSSET_INFO + GSTATS (no GSTRINGS), one recv of the link notifications per
    // pass (EAGAIN), no socket opened or closed: 5.125 with 8 links up. The budget is 10.
    let kernel: f64 = per
        .iter()
        .filter(|(k, _)| ["ioctl", "sendto", "recvfrom", "sendmsg", "recvmsg", "socket", "close"].contains(&k.as_str()))
        .map(|(_, v)| v)
        .sum();
    assert!(kernel <= 10.0, "{kernel} kernel syscalls per interface-sample: {per:?}");
    let socket = per.iter().find(|(k, _)| k == "socket").map(|(_, v)| *v).unwrap_or(0.0);
    assert!(socket < 0.01, "sockets opened per sample: {per:?}");
}

#[test]
fn watch_replay_refuses_live_only_flags() {
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/sr4-200g-lane4-marginal.jsonl");
    let cap = cap.to_str().unwrap();
    for flag in [&["--duration", "5s"][..], &["--interval", "2s"], &["-v"], &["--verbose"]] {
        let out = Command::new(bin()).args(["watch", "--replay", cap]).args(flag).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("cannot be used with"), "{flag:?}: {}", text(&out.stderr));
    }
    let out = Command::new(bin()).args(["watch", "--replay", cap]).output().unwrap();
    assert!(out.status.code() == Some(0) || out.status.code() == Some(3), "{}", text(&out.stderr));
}

#[test]
fn absurd_durations_are_usage_errors_not_panics() {
    for args in [
        &["watch", "v0", "--duration", "18446744073709551615s"][..],
        &["scan", "v0", "--window", "18446744073709551615s"],
        &["watch", "v0", "--interval", "3651d"],
    ] {
        let out = Command::new(bin()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        let stderr = text(&out.stderr);
        assert!(stderr.contains("10 years") && !stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
