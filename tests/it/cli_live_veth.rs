//! The `optics` binary against a real kernel: a veth pair in a throw-away network namespace
//! (never the host's interfaces), and real stop signals (SIGINT, SIGTERM, SIGHUP, SIGUSR1/2,
//! SIGALRM) delivered to a running `watch`.
//! Needs root and `ip netns`; prints `skipping: <reason>` and passes otherwise.
//!
//! veth answers (kernel-uapi.md §10): link up at 10000 Mb/s, no module EEPROM and no FEC
//! (EOPNOTSUPP), driver statistics over the ETHTOOL_GSTATS ioctl only.
//!
//! How the binary runs in the namespace: `ip netns exec NS optics ...`. iproute2 enters the
//! namespace, remounts /sys for it (so /sys/class/net shows v0/v1) and then execs the command
//! in place, so the PID std::process::Command returns becomes optics itself and a signal sent
//! to it reaches optics, not `ip`. The signal test checks this through /proc/PID/comm before
//! signalling; should an `ip` build fork instead, it falls back to
//! `nsenter --net=/var/run/netns/NS optics ...` (which always execs, but keeps the host's /sys).

use crate::support;
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)]
use support::netns::Netns;

fn bin() -> PathBuf {
    PathBuf::from(assert_cmd::cargo::cargo_bin!("optics"))
}

/// `ip netns exec NS optics ARGS...`, not yet spawned.
fn optics_in(ns: &Netns, args: &[&str]) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &ns.name]).arg(bin()).args(args);
    c
}

/// `nsenter --net=/var/run/netns/NS optics ARGS...`: always execs in place.
fn optics_nsenter(ns: &Netns, args: &[&str]) -> Command {
    let mut c = Command::new("nsenter");
    c.arg(format!("--net=/var/run/netns/{}", ns.name)).arg("--").arg(bin()).args(args);
    c
}

fn run_in(ns: &Netns, args: &[&str]) -> Output {
    optics_in(ns, args).output().expect("spawning ip netns exec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn scan_veth_json_says_why_the_module_is_unreadable() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let out = run_in(&ns, &["scan", "v0", "--window", "2s", "--json"]);
    assert!(out.status.success(), "exit {:?}: {}", out.status, text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    let i = &v["interfaces"][0];
    assert_eq!(i["interface"], "v0");
    // No module and no FEC: nothing to accept on.
    assert_ne!(i["verdict"], "accept");
    let reasons = i["reasons"].as_array().unwrap();
    let r = reasons.iter().find(|r| r["code"] == "module_unreadable").unwrap_or_else(|| panic!("no module_unreadable: {reasons:?}"));
    assert!(r["message"].as_str().unwrap().contains("not supported by driver veth"), "{r}");
    assert_eq!(v["source"]["kind"], "live");
    // 2 s at the default 1 s interval: samples at t = 0, 1, 2.
    assert!(i["link"]["samples"].as_u64().unwrap() >= 2, "{}", i["link"]);
    // veth reports 10000 Mb/s.
    assert_eq!(i["link"]["speed_mbps"], 10000);
}

#[test]
fn scan_veth_verbose_names_the_kernel_paths() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let out = run_in(&ns, &["scan", "v0", "--window", "1s", "--interval", "500ms", "--verbose"]);
    assert!(out.status.success(), "exit {:?}: {}", out.status, text(&out.stderr));
    let stdout = text(&out.stdout);
    // veth has no ethtool-netlink statistics: driver counters come over ETHTOOL_GSTATS.
    assert!(stdout.contains("driver counters via ioctl"), "{stdout}");
    assert!(stdout.contains("v0"), "{stdout}");
    // veth implements get_link: the state is netlink's own.
    assert!(stdout.contains(", link via netlink, FEC via "), "{stdout}");
}

/// ifb has no get_link: LINKSTATE_GET answers with no link flag and the state is sysfs's
/// carrier, which --verbose says instead of crediting netlink with it.
#[test]
fn scan_verbose_says_when_the_link_state_is_the_sysfs_carrier() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    if let Err(e) = support::netns::ip(&["-n", &ns.name, "link", "add", "i0", "type", "ifb"]) {
        println!("skipping: no ifb device ({e})");
        return;
    }
    support::netns::ip(&["-n", &ns.name, "link", "set", "i0", "up"]).unwrap();
    let out = run_in(&ns, &["scan", "i0", "--window", "1s", "--interval", "500ms", "--verbose"]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains(", link via netlink (link state from the sysfs carrier), FEC via "), "{stdout}{}", text(&out.stderr));
}

#[test]
fn scan_unknown_interface_fails() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let out = run_in(&ns, &["scan", "nosuch0", "--window", "1s"]);
    assert!(!out.status.success());
    // The kernel's own extack text for an unknown name.
    assert!(text(&out.stderr).contains("no device matches name"), "{}", text(&out.stderr));
}

#[test]
fn scan_without_interface_finds_nothing_in_a_veth_namespace() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let out = run_in(&ns, &["scan", "--window", "1s"]);
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("no network interface with a readable module or FEC statistics"), "{stderr}");
}

#[test]
fn compare_a_stored_baseline_with_the_live_link() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("baseline.jsonl");
    let base_s = base.to_str().unwrap();
    let out = run_in(&ns, &["watch", "v0", "--interval", "300ms", "--duration", "1s", "--record", base_s]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    // No AFTER capture: the baseline's interface is sampled live and compared.
    let out = run_in(&ns, &["compare", base_s, "--window", "1s", "--interval", "300ms", "--json"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["comparisons"][0]["interface"], "v0");
    // veth has no lanes to compare.
    assert_eq!(v["comparisons"][0]["lanes"], serde_json::json!([]));
}

/// A spawned child; kills its whole process group if the test ends before the child does.
struct Running(Option<Child>);

impl Running {
    fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("present until finish")
    }

    /// Waits for the (exited) child and collects its output.
    fn finish(mut self) -> Output {
        self.0.take().expect("present until finish").wait_with_output().expect("collecting output")
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(c) = self.0.as_mut() {
            if let Ok(None) = c.try_wait() {
                // SAFETY: the child was spawned in its own process group (process_group(0)),
                // whose id is its pid: only processes this test started are signalled.
                unsafe { libc::kill(-(c.id() as i32), libc::SIGKILL) };
                let _ = c.wait();
            }
        }
    }
}

/// Complete sample lines in a capture being written (a line counts once its newline is there).
fn complete_samples(path: &Path) -> usize {
    let Ok(s) = std::fs::read_to_string(path) else { return 0 };
    s.split_inclusive('\n').filter(|l| l.ends_with('\n') && l.contains("\"record\":\"sample\"")).count()
}

fn comm(pid: u32) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).map(|s| s.trim().to_string()).unwrap_or_default()
}

/// Starts `watch v0` recording, waits for 3 samples; `None` when the launcher did not exec
/// optics in place (the PID is not optics), after killing what it started.
fn start_watch(cmd: &mut Command, rec: &Path) -> Option<Running> {
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0).spawn().expect("spawning the watcher");
    let mut running = Running(Some(child));
    let deadline = Instant::now() + Duration::from_secs(10);
    while complete_samples(rec) < 3 {
        if let Ok(Some(status)) = running.child().try_wait() {
            panic!("watch exited early ({status}): {}", text(&running.finish().stderr));
        }
        assert!(Instant::now() < deadline, "no 3 samples within 10 s");
        std::thread::sleep(Duration::from_millis(50));
    }
    let pid = running.child().id();
    if comm(pid) != "optics" {
        eprintln!("launcher did not exec optics in place (comm {:?})", comm(pid));
        return None; // Drop kills the process group
    }
    Some(running)
}

fn watch_then_signal(sig: libc::c_int) {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("live.jsonl");
    let csv = dir.path().join("live.csv");
    let (r, c) = (rec.to_str().unwrap(), csv.to_str().unwrap());
    let args = ["watch", "v0", "--interval", "200ms", "--record", r, "--csv", c];
    let mut running = match start_watch(&mut optics_in(&ns, &args), &rec) {
        Some(run) => run,
        None => start_watch(&mut optics_nsenter(&ns, &args), &rec).expect("nsenter execs optics in place"),
    };
    let pid = running.child().id();
    // SAFETY: pid is our child, still running (checked above), and is optics itself.
    assert_eq!(unsafe { libc::kill(pid as i32, sig) }, 0);
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(s) = running.child().try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "watch did not exit within 5 s of signal {sig}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = running.finish();
    assert!(status.success(), "signal {sig}: exit {status}: {}", text(&out.stderr));
    // The analysis of what was sampled is printed on the way out.
    assert!(text(&out.stdout).contains("v0"), "{}", text(&out.stdout));

    // The capture is whole: every line complete JSON, the header first, >= 3 samples.
    let body = std::fs::read_to_string(&rec).unwrap();
    assert!(body.ends_with('\n'), "last line cut: {:?}", &body[body.len().saturating_sub(80)..]);
    let lines: Vec<Value> =
        body.lines().enumerate().map(|(n, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("line {}: {e}", n + 1))).collect();
    assert_eq!(lines[0]["record"], "header");
    assert_eq!(lines[0]["format"], "optics-capture");
    let samples = lines.iter().filter(|l| l["record"] == "sample").count();
    assert!(samples >= 3, "{samples} samples");
    // And the tool's own reader takes it without tolerating anything.
    let cap = optics::capture::read_capture(&rec).unwrap();
    assert!(cap.notes.is_empty(), "{:?}", cap.notes);

    // The CSV has its header and rows (veth: no lanes, one row per sample).
    let mut rdr = csv::Reader::from_path(&csv).unwrap();
    assert_eq!(&rdr.headers().unwrap().iter().take(3).collect::<Vec<_>>(), &["time", "t", "interface"]);
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("whole CSV row")).collect();
    assert!(rows.len() >= 3, "{} rows", rows.len());
    assert!(rows.iter().all(|r| &r[2] == "v0"));
}

#[test]
fn watch_stops_cleanly_on_sigint() {
    watch_then_signal(libc::SIGINT);
}

#[test]
fn watch_stops_cleanly_on_sigterm() {
    watch_then_signal(libc::SIGTERM);
}

/// An SSH session that drops (SIGHUP), a stray SIGUSR1/2 or SIGALRM: the same clean stop,
/// not a death with no analysis.
#[test]
fn watch_stops_cleanly_on_sighup_sigusr_and_sigalrm() {
    for sig in [libc::SIGHUP, libc::SIGUSR1, libc::SIGUSR2, libc::SIGALRM] {
        watch_then_signal(sig);
    }
}

#[test]
fn watch_survives_an_interface_that_vanishes() {
    let Some(ns) = Netns::create("optics-cli") else { return };
    let ipn = |args: &[&str]| support::netns::ip(&[&["-n", ns.name.as_str()], args].concat()).unwrap();
    ipn(&["link", "add", "v2", "type", "veth", "peer", "name", "v3"]);
    ipn(&["link", "set", "v2", "up"]);
    ipn(&["link", "set", "v3", "up"]);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("gone.jsonl");
    let r = rec.to_str().unwrap();
    let args = ["watch", "v0", "v2", "--interval", "200ms", "--duration", "3s", "--record", r];
    let mut running = match start_watch(&mut optics_in(&ns, &args), &rec) {
        Some(run) => run,
        None => start_watch(&mut optics_nsenter(&ns, &args), &rec).expect("nsenter execs optics in place"),
    };
    ipn(&["link", "del", "v0"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = running.child().try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "watch did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    let out = running.finish();
    assert!(status.success(), "exit {status}: {}", text(&out.stderr));
    use optics::capture::{read_capture, EventKind, Record};
    let cap = read_capture(&rec).unwrap();
    let gone_at = cap
        .records
        .iter()
        .find_map(|r| match r {
            Record::Event(e) if e.kind == EventKind::InterfaceGone && e.interface == "v0" => Some(e.t),
            _ => None,
        })
        .expect("an interface_gone event for v0");
    // The other interface keeps being sampled after v0 is gone.
    let v2_after = cap.records.iter().filter(|r| matches!(r, Record::Sample(s) if s.interface == "v2" && s.t > gone_at)).count();
    assert!(v2_after >= 2, "v2 samples after v0 vanished: {v2_after}");
}
