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

// `watch` without interfaces discovers them like `scan` (issue 9 item 11): tested inside a
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
