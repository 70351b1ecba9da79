//! `optics watch --replay` runs a capture through the same `--record` / `--csv` sinks as live
//! sampling: recording then replaying must give the identical analysis, and the streamed
//! CSV must equal `optics export` of the same capture.

use crate::support::optics;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

/// `scan --replay PATH --json`, the `interfaces` part (the `source` part names the file).
fn scan_interfaces(path: &Path) -> Value {
    let out = optics().arg("scan").arg("--replay").arg(path).arg("--json").assert().success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    v["interfaces"].clone()
}

fn round_trip(name: &str) {
    let src = capture(name);
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.jsonl");
    let csv = dir.path().join("rows.csv");
    let out =
        optics().arg("watch").arg("--replay").arg(&src).arg("--record").arg(&rec).arg("--csv").arg(&csv).arg("--json").assert().success();
    let watched: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();

    let original = scan_interfaces(&src);
    assert_eq!(scan_interfaces(&rec), original, "{name}: record -> replay changed the analysis");
    // watch's own analysis is the scan analysis too.
    assert_eq!(watched["interfaces"], original, "{name}: watch --replay analysed differently");

    let exported = optics().arg("export").arg(&src).args(["--csv", "-"]).assert().success().get_output().stdout.clone();
    let streamed = std::fs::read(&csv).unwrap();
    assert!(!streamed.is_empty());
    assert!(streamed == exported, "{name}: watch --csv differs from export --csv");
}

#[test]
fn record_replay_round_trip_marginal() {
    round_trip("sr4-200g-lane4-marginal.jsonl");
}

/// Segment breaks (an event record and a second interface record) survive the round trip.
#[test]
fn record_replay_round_trip_module_swap() {
    round_trip("sr4-200g-module-swap.jsonl");
}

/// Four interfaces interleaved.
#[test]
fn record_replay_round_trip_multihost() {
    round_trip("multihost-gb10-cx7.jsonl");
}

/// The example capture (a copy of the shared example in tests/fixtures).
#[test]
fn record_replay_round_trip_example() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/example_100g_sr4.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("rec.jsonl");
    optics().arg("watch").arg("--replay").arg(&src).arg("--record").arg(&rec).assert().success();
    assert_eq!(scan_interfaces(&rec), scan_interfaces(&src));
}

// `watch` without interfaces discovers them like `scan`: tested inside a
// network namespace in tests/cli_watch_live.rs, since here it would sample the host.

#[test]
fn watch_help_says_the_end_analysis_is_over_the_whole_run() {
    let out = optics().args(["watch", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("over the whole run"), "{help}");
    assert!(help.contains("--judge-window"), "{help}");
}

#[test]
fn watch_refuses_a_judge_window_of_fewer_than_three_intervals() {
    let out = optics().args(["watch", "--interval", "1s", "--judge-window", "2s", "lo"]).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--judge-window") && err.contains("3 sample intervals"), "{err}");
}

/// `watch --replay` stops on a stop signal as a live `watch` does: exit 0, the analysis of
/// what was read printed, every sample written kept whole. The capture comes through a pipe
/// whose writer stays open, so the signal finds the replay waiting in a read.
#[test]
fn watch_replay_stops_cleanly_on_a_signal() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let text = std::fs::read_to_string(capture("sr4-200g-lane4-marginal.jsonl")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The header, the interface record and the first samples.
    let first_samples = 6;
    let cut = lines.iter().enumerate().filter(|(_, l)| l.contains("\"record\":\"sample\"")).nth(first_samples - 1).unwrap().0 + 1;
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        let dir = tempfile::tempdir().unwrap();
        let (rec, csv) = (dir.path().join("r.jsonl"), dir.path().join("c.csv"));
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("optics"))
            .args(["watch", "--replay", "-", "--record"])
            .arg(&rec)
            .arg("--csv")
            .arg(&csv)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(lines[..cut].join("\n").as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let samples = |p: &Path| std::fs::read_to_string(p).unwrap_or_default().matches("\"record\":\"sample\"").count();
        let deadline = Instant::now() + Duration::from_secs(20);
        while samples(&rec) < first_samples {
            assert!(Instant::now() < deadline, "the replay did not write its samples");
            std::thread::sleep(Duration::from_millis(10));
        }
        // SAFETY: our own child, not yet reaped.
        assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
        let deadline = Instant::now() + Duration::from_secs(10);
        while child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "watch --replay did not stop on signal {sig}");
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success(), "signal {sig}: {:?}: {stderr}", out.status);
        assert!(stdout.contains("ens3np0"), "no analysis printed: {stdout}");
        assert!(stderr.contains("stopped by SIG"), "{stderr}");
        // Every sample read is kept, whole.
        let body = std::fs::read_to_string(&rec).unwrap();
        assert_eq!(samples(&rec), first_samples);
        assert!(body.ends_with('\n'));
        assert!(optics::capture::read_capture(&rec).unwrap().notes.is_empty());
        let rows: Vec<csv::StringRecord> = csv::Reader::from_path(&csv).unwrap().records().map(|r| r.expect("whole row")).collect();
        assert_eq!(rows.len(), 4 * first_samples, "one row per lane (4) per sample");
    }
}
