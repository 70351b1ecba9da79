//! Issue 9 items 12-17 and 20: what a run writes, through the real binary. Outputs are never
//! inputs or each other, are locked, validated before any is created, `-` is stdout, a
//! failing one is reported while the rest go on, and an early signal leaves whole files.

use crate::support::optics;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;

#[allow(dead_code)]
fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

const MARGINAL: &str = "sr4-200g-lane4-marginal.jsonl";

/// Item 12: one file for two outputs, or an output that is an input, is refused up front.
#[test]
fn an_output_may_not_be_another_output_or_an_input() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("F");
    let out = optics().args(["watch", "--replay"]).arg(capture(MARGINAL)).arg("--record").arg(&f).arg("--csv").arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("--record and --csv name the same file"), "{}", stderr_of(&out));
    assert!(!f.exists(), "nothing is created");
    // export X --csv X, through another name for the same inode (a hard link).
    let x = dir.path().join("x.jsonl");
    std::fs::copy(capture(MARGINAL), &x).unwrap();
    let alias = dir.path().join("alias.jsonl");
    std::fs::hard_link(&x, &alias).unwrap();
    let before = std::fs::read(&x).unwrap();
    let out = optics().arg("export").arg(&x).arg("--csv").arg(&alias).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("is also an input"), "{}", stderr_of(&out));
    assert_eq!(std::fs::read(&x).unwrap(), before, "the capture is untouched");
    // watch --replay X --record X, and --config as an output.
    let cfg = dir.path().join("c.json");
    std::fs::write(&cfg, "{}").unwrap();
    for (flag, target) in [("--record", &x), ("--csv", &cfg)] {
        let out = optics().args(["watch", "--replay"]).arg(&x).arg("--config").arg(&cfg).arg(flag).arg(target).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{flag}");
        assert!(stderr_of(&out).contains("is also an input"), "{flag}: {}", stderr_of(&out));
    }
    assert_eq!(std::fs::read(&x).unwrap(), before);
    // Both on stdout would interleave JSON and CSV.
    let out = optics().args(["watch", "--replay"]).arg(&x).args(["--record", "-", "--csv", "-"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// Item 13: a file another process holds locked is refused before sampling, and untouched.
#[test]
fn a_locked_output_is_refused_and_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("busy.jsonl");
    std::fs::write(&f, "another writer's data\n").unwrap();
    let held = std::fs::OpenOptions::new().append(true).open(&f).unwrap();
    // SAFETY: flock on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) }, 0);
    for flag in ["--record", "--csv"] {
        let out = optics().args(["watch", "--replay"]).arg(capture(MARGINAL)).arg(flag).arg(&f).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{flag}");
        assert!(stderr_of(&out).contains("another process is writing this file"), "{}", stderr_of(&out));
        assert!(out.stdout.is_empty(), "no analysis: it failed before sampling");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "another writer's data\n");
    }
    drop(held);
    // Unlocked, the same file is written.
    optics().args(["watch", "--replay"]).arg(capture(MARGINAL)).arg("--record").arg(&f).assert().success();
    assert!(std::fs::read_to_string(&f).unwrap().starts_with("{\"record\":\"header\""));
}

/// Item 14: `-` is standard output for `watch --csv` and `--record`; no file named `-`.
#[test]
fn dash_is_standard_output_for_every_output_flag() {
    let dir = tempfile::tempdir().unwrap();
    let exported = optics().arg("export").arg(capture(MARGINAL)).args(["--csv", "-"]).output().unwrap().stdout;
    let out = optics().current_dir(dir.path()).args(["watch", "--replay"]).arg(capture(MARGINAL)).args(["--csv", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(out.stdout == exported, "stdout is exactly the CSV");
    // The report goes to stderr beside it.
    assert!(stderr_of(&out).contains("INVESTIGATE"), "{}", stderr_of(&out));
    let out = optics().current_dir(dir.path()).args(["watch", "--replay"]).arg(capture(MARGINAL)).args(["--record", "-"]).output().unwrap();
    assert!(out.status.success());
    let first = String::from_utf8_lossy(&out.stdout).lines().next().unwrap().to_string();
    assert!(first.contains("\"record\":\"header\""), "{first}");
    assert!(!dir.path().join("-").exists());
    // A reader that goes away (`| head`) is not an error.
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin!("optics"))
        .args(["watch", "--replay"])
        .arg(capture(MARGINAL))
        .args(["--csv", "-"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

/// `optics export CAPTURE --csv - | head -1`: the reader going away is not an error for
/// `export` either (exit 0, nothing on stderr), as for every other command.
#[test]
fn export_to_a_closed_pipe_is_success() {
    // 1,441 samples x 4 lanes: far more than a pipe buffer holds.
    let cap = capture("dr4-400g-lane2-degrading-4h.jsonl");
    for flag in ["--csv", "--json"] {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(r#"set -o pipefail; "$0" export "$1" "$2" - | head -1 >/dev/null"#)
            .arg(assert_cmd::cargo::cargo_bin!("optics"))
            .arg(&cap)
            .arg(flag)
            .output()
            .unwrap();
        assert!(out.status.success(), "{flag}: {:?}: {}", out.status, stderr_of(&out));
        assert_eq!(stderr_of(&out), "", "{flag}");
    }
}

/// `optics export CAPTURE --csv - --prometheus FILE | head -1`: the closed pipe closes the
/// rows alone; the metrics file (and any other file output) is still written in full, as a
/// run without the pipe writes it, and the exit is 0.
#[test]
fn export_metrics_file_is_written_when_its_rows_pipe_closes() {
    let cap = capture("dr4-400g-lane2-degrading-4h.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let (piped, whole) = (dir.path().join("piped.prom"), dir.path().join("whole.prom"));
    let (piped_json, whole_json) = (dir.path().join("piped.jsonl"), dir.path().join("whole.jsonl"));
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(r#"set -o pipefail; "$0" export "$1" --csv - --prometheus "$2" --json "$3" | head -1 >/dev/null"#)
        .arg(assert_cmd::cargo::cargo_bin!("optics"))
        .arg(&cap)
        .arg(&piped)
        .arg(&piped_json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{:?}: {}", out.status, stderr_of(&out));
    assert_eq!(stderr_of(&out), "");
    optics().arg("export").arg(&cap).arg("--prometheus").arg(&whole).arg("--json").arg(&whole_json).assert().success();
    let metrics = std::fs::read_to_string(&piped).expect("the metrics file is written");
    // The same metrics as a run without the pipe writes, but for the wall-clock time it ran.
    let timeless = |m: &str| m.lines().filter(|l| !l.starts_with("optics_last_sample_timestamp_seconds")).collect::<Vec<_>>().join("\n");
    assert!(metrics.contains("optics_interface_verdict{interface=\"ens5np0\",verdict=\"investigate\"} 1"), "{metrics}");
    assert_eq!(timeless(&metrics), timeless(&std::fs::read_to_string(&whole).unwrap()));
    // 1,441 samples: one JSON line each, none lost to the closed pipe.
    let rows = std::fs::read_to_string(&piped_json).unwrap();
    assert!(rows.lines().count() >= 1441, "{} lines", rows.lines().count());
    assert_eq!(rows, std::fs::read_to_string(&whole_json).unwrap());
}

/// A failing output is named in the error, never the capture being read.
#[test]
fn an_export_write_failure_names_the_output() {
    for flag in ["--csv", "--json"] {
        let out = optics().arg("export").arg(capture(MARGINAL)).args([flag, "/dev/full"]).output().unwrap();
        assert_eq!(out.status.code(), Some(1));
        let err = stderr_of(&out);
        assert!(err.contains(&format!("{flag} /dev/full: No space left on device")), "{err}");
        assert!(!err.contains(MARGINAL), "the capture is not to blame: {err}");
    }
}

/// Item 15: every output is checked before any is created.
#[test]
fn a_bad_output_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("out.jsonl");
    let out = optics()
        .args(["watch", "--replay"])
        .arg(capture(MARGINAL))
        .arg("--record")
        .arg(&rec)
        .arg("--csv")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("is a directory"), "{}", stderr_of(&out));
    assert!(!rec.exists(), "no stray capture");
    let out = optics()
        .args(["watch", "--replay"])
        .arg(capture(MARGINAL))
        .arg("--record")
        .arg(&rec)
        .arg("--csv")
        .arg(dir.path().join("no/such/dir.csv"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("does not exist"));
    assert!(!rec.exists());
}

/// Item 16: a full disk under one output: reported, the other output and the analysis go on,
/// exit 1.
#[test]
fn a_full_output_is_reported_while_the_rest_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("ok.jsonl");
    let out = optics()
        .args(["watch", "--replay"])
        .arg(capture(MARGINAL))
        .arg("--record")
        .arg(&rec)
        .args(["--csv", "/dev/full"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = stderr_of(&out);
    assert!(err.contains("--csv /dev/full") && err.contains("No space left"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("INVESTIGATE"), "the analysis is printed");
    // The capture is whole: the same records as the source (header + interface + 61 samples).
    let written = std::fs::read_to_string(&rec).unwrap();
    let source = std::fs::read_to_string(capture(MARGINAL)).unwrap();
    assert_eq!(written.lines().count(), source.lines().count());
    // The other way round.
    let csv = dir.path().join("rows.csv");
    let out = optics()
        .args(["watch", "--replay"])
        .arg(capture(MARGINAL))
        .args(["--record", "/dev/full"])
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr_of(&out).contains("--record /dev/full"), "{}", stderr_of(&out));
}

/// Item 17: SIGINT/SIGTERM within the first milliseconds leaves no 0-byte capture and no
/// CSV without its header: either no file, or whole files.
#[cfg(live)]
#[test]
fn an_early_signal_leaves_whole_files_or_none() {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};
    let Some(ns) = crate::support::netns::Netns::create("optics-early") else { return };
    let dir = tempfile::tempdir().unwrap();
    for (i, sig) in [libc::SIGINT, libc::SIGTERM].iter().cycle().take(16).enumerate() {
        let rec = dir.path().join(format!("r{i}.jsonl"));
        let csv = dir.path().join(format!("c{i}.csv"));
        let mut cmd = std::process::Command::new("nsenter");
        // The child starts as a terminal starts it, with SIGINT and SIGTERM at their
        // default action. A test run from a shell's background job (`cargo test &`)
        // inherits SIGINT ignored, kept across exec: a SIGINT sent before optics catches it
        // (the slower the start, the likelier) was then discarded, and a watch without
        // --duration never stopped.
        // SAFETY: signal(2) is async-signal-safe, and nothing else runs between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                Ok(())
            })
        };
        let mut child = cmd
            .arg(format!("--net=/var/run/netns/{}", ns.name))
            .arg("--")
            .arg(assert_cmd::cargo::cargo_bin!("optics"))
            .args(["watch", "v0", "--interval", "100ms", "--record"])
            .arg(&rec)
            .arg("--csv")
            .arg(&csv)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // 0 to 19 ms: before, while and after the outputs are created (startup takes ~4 ms).
        std::thread::sleep(Duration::from_micros(1_250 * i as u64));
        // SAFETY: our own child, not yet reaped.
        unsafe { libc::kill(child.id() as i32, *sig) };
        // A bound on a lost signal, not on a slow exit.
        let deadline = Instant::now() + Duration::from_secs(60);
        while child.try_wait().unwrap().is_none() {
            assert!(Instant::now() < deadline, "run {i} did not stop");
            std::thread::sleep(Duration::from_millis(10));
        }
        if rec.exists() {
            let body = std::fs::read_to_string(&rec).unwrap();
            assert!(body.starts_with("{\"record\":\"header\"") && body.ends_with('\n'), "run {i}: capture {body:?}");
        }
        if csv.exists() {
            let body = std::fs::read_to_string(&csv).unwrap();
            assert!(body.starts_with("time,t,interface,"), "run {i}: CSV {body:?}");
        }
    }
}

/// Item 20: a full stderr never panics (exit 101); the exit status is still right.
#[test]
fn an_unwritable_stderr_does_not_panic() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let run = |args: &[&str]| {
        let out =
            std::process::Command::new(assert_cmd::cargo::cargo_bin!("optics")).args(args).stderr(full()).stdout(Stdio::null()).output();
        out.unwrap().status.code()
    };
    assert_eq!(run(&["scan", "--replay", "/no/such/capture.jsonl"]), Some(1));
    // A note (a cut last line) on the way to a good analysis: still success.
    let dir = tempfile::tempdir().unwrap();
    let cut = dir.path().join("cut.jsonl");
    let mut body = std::fs::read_to_string(capture(MARGINAL)).unwrap();
    body.push_str("{\"record\":\"sam");
    std::fs::write(&cut, body).unwrap();
    assert_eq!(run(&["scan", "--replay", cut.to_str().unwrap()]), Some(0));
    // An output failure reported on a full stderr: still exit 1.
    assert_eq!(run(&["watch", "--replay", cut.to_str().unwrap(), "--csv", "/dev/full"]), Some(1));
}

/// A live run whose progress lines cannot be written still samples, records and succeeds.
#[cfg(live)]
#[test]
fn a_live_run_with_an_unwritable_stderr_still_records() {
    let full = || std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let Some(ns) = crate::support::netns::Netns::create("optics-stderr") else { return };
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("live.jsonl");
    let status = std::process::Command::new("nsenter")
        .arg(format!("--net=/var/run/netns/{}", ns.name))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin!("optics"))
        .args(["watch", "v0", "--interval", "200ms", "--duration", "1s", "--record"])
        .arg(&rec)
        .stdout(Stdio::null())
        .stderr(full())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    let samples = std::fs::read_to_string(&rec).unwrap().lines().filter(|l| l.contains("\"record\":\"sample\"")).count();
    assert!(samples >= 3, "{samples} samples");
}

/// Item 16: a write cut short by the disk (here a file-size limit, RLIMIT_FSIZE: the kernel
/// writes what fits, then EFBIG) leaves whole CSV rows and whole capture lines only.
#[test]
fn a_write_cut_short_leaves_whole_rows() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let (csv, rec) = (dir.path().join("rows.csv"), dir.path().join("rec.jsonl"));
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("optics"));
    cmd.args(["watch", "--replay"]).arg(capture(MARGINAL)).arg("--csv").arg(&csv).arg("--record").arg(&rec);
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            // 20,000 bytes: a few dozen CSV rows, a few capture lines; then EFBIG, not SIGXFSZ.
            let lim = libc::rlimit { rlim_cur: 20_000, rlim_max: 20_000 };
            libc::setrlimit(libc::RLIMIT_FSIZE, &lim);
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(err.contains("--csv") && err.contains("--record"), "both outputs reported: {err}");
    let body = std::fs::read_to_string(&csv).unwrap();
    assert!(!body.is_empty() && body.ends_with('\n'), "CSV cut mid-row: {:?}", &body[body.len().saturating_sub(60)..]);
    let mut rdr = csv::Reader::from_reader(body.as_bytes());
    let width = rdr.headers().unwrap().len();
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("whole row")).collect();
    assert!(!rows.is_empty() && rows.iter().all(|r| r.len() == width));
    let lines = std::fs::read_to_string(&rec).unwrap();
    assert!(lines.ends_with('\n'));
    for l in lines.lines() {
        serde_json::from_str::<serde_json::Value>(l).expect("whole capture line");
    }
    // The analysis of everything replayed is still printed.
    assert!(String::from_utf8_lossy(&out.stdout).contains("INVESTIGATE"));
}

/// Item 12's fault in the other writing commands: `plot -o`, `import -o`, `report -o` never
/// overwrite their input.
#[test]
fn plot_import_and_report_do_not_overwrite_their_input() {
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.jsonl");
    std::fs::copy(capture(MARGINAL), &x).unwrap();
    let before = std::fs::read(&x).unwrap();
    for cmd in [&["plot"][..], &["import"], &["report"]] {
        let out = optics().args(cmd).arg(&x).arg("-o").arg(&x).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd:?}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains("is also an input"), "{cmd:?}: {}", stderr_of(&out));
        assert_eq!(std::fs::read(&x).unwrap(), before, "{cmd:?}");
    }
    // `-o -` is stdout for plot: the SVG itself.
    let out = optics().arg("plot").arg(&x).args(["-o", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
    assert!(!dir.path().join("-").exists());
}
