//! Every input is read once and bounded by the largest thing its format can be; `import`
//! writes only what a capture may hold and says why it writes nothing. Through the real
//! binary.

use crate::support::optics;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import").join(rel)
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn fails_with(out: std::process::Output, want: &str) {
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(stderr_of(&out).contains(want), "want {want:?}: {}", stderr_of(&out));
}

/// `/dev/zero` and `/proc/self/pagemap` claim a size of 0 and never end: each read stops at
/// its format's bound (a module image 4 MiB, a thresholds file 1 MiB, a tool output 16 MiB).
#[test]
fn endless_inputs_stop_at_their_format_bound() {
    for endless in ["/dev/zero", "/proc/self/pagemap"] {
        fails_with(optics().args(["decode", endless]).output().unwrap(), &format!("longer than {} bytes", 4 << 20));
        let out = optics().arg("scan").arg("--replay").arg(capture("sr4-200g-healthy.jsonl")).args(["--config", endless]).output().unwrap();
        fails_with(out, &format!("longer than {} bytes", 1 << 20));
        let dir = tempfile::tempdir().unwrap();
        let out = optics().args(["import", endless, "-o"]).arg(dir.path().join("x.jsonl")).output().unwrap();
        fails_with(out, &format!("longer than {} bytes", 16 << 20));
        fails_with(optics().args(["compare", endless, endless]).output().unwrap(), &format!("longer than {} bytes", 16 << 20));
    }
}

/// A pipe (`<(zcat run.jsonl.gz)`, here standard input) is read once: the header and the
/// records come from one pass.
#[test]
fn a_piped_capture_is_read_once() {
    let marginal = std::fs::read(capture("sr4-200g-lane4-marginal.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    let out = optics().args(["watch", "--replay", "/dev/stdin", "--csv"]).arg(&csv).write_stdin(marginal.clone()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("INVESTIGATE"));
    // 61 samples of 4 lanes, and the header row.
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 61 * 4 + 1);
    let out = optics().args(["export", "/dev/stdin", "--csv", "-"]).write_stdin(marginal.clone()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 61 * 4 + 1);
    let out = optics()
        .args(["compare", "/dev/stdin"])
        .arg(capture("sr4-200g-after-clean.jsonl"))
        .arg("--json")
        .write_stdin(marginal.clone())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["comparisons"].as_array().map(Vec::len), Some(1));
    // A tool output through a pipe: parsed from the one read.
    let mlx = std::fs::read(fixture("mlxlink_400g_a.txt")).unwrap();
    let out = optics().args(["compare", "/dev/stdin"]).arg(fixture("mlxlink_400g_b.json")).write_stdin(mlx).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}

/// What `import` writes, `scan --replay` reads: what a capture may not hold is refused at
/// import, with the reason, and nothing is written.
#[test]
fn import_refuses_what_a_capture_may_not_hold() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("mlxlink_400g_a.txt")).unwrap();
    let variant = |name: &str, from: &str, to: &str| {
        assert!(text.contains(from), "{from}");
        let p = dir.path().join(name);
        std::fs::write(&p, text.replace(from, to)).unwrap();
        p
    };
    let out_path = dir.path().join("out.jsonl");
    let import = |p: &Path| optics().arg("import").arg(p).arg("-o").arg(&out_path).output().unwrap();
    // 17 lanes of corrected bits: a capture holds at most 16.
    let lanes17 = vec!["1000"; 17].join(",");
    fails_with(import(&variant("lanes17", "1000000,2000000,1500000,50000000", &lanes17)), "a capture may not hold this");
    assert!(!out_path.exists(), "nothing written");
    // A count of minutes since the clear that is negative, or overflows: refused at parse.
    fails_with(
        import(&variant("negative", "Time Since Last Clear [Min]             : 10.0", "Time Since Last Clear [Min]             : -10.0")),
        "at or above 0",
    );
    fails_with(
        import(&variant("inf", "Time Since Last Clear [Min]             : 10.0", "Time Since Last Clear [Min]             : 1e308")),
        "at or above 0",
    );
    // A reading that overflows to infinity (rx power 1e999 dBm) would be written as null.
    let out = import(&variant("rxinf", "-1.000,-1.100,-1.200,-2.000", "1e999,-1.100,-1.200,-2.000"));
    if !out.status.success() {
        fails_with(out, "a capture may not hold this");
    } else {
        // Accepted only when the parser already dropped it: the capture must then replay.
        let replay = optics().args(["scan", "--json", "--replay"]).arg(&out_path).output().unwrap();
        assert!(replay.status.code() != Some(1), "{}", stderr_of(&replay));
    }
    assert!(!dir.path().join("-").exists());
}

/// lspci or uptime alone, or anything that yields no interface, is not a capture.
#[test]
fn import_of_no_interface_exits_non_zero_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("out.jsonl");
    for input in [fixture("sosreport/sos_commands/pci/lspci_-nnvv"), fixture("sosreport/proc/uptime")] {
        let out = optics().arg("import").arg(&input).arg("-o").arg(&out_path).output().unwrap();
        fails_with(out, "no interface in the input");
        assert!(!out_path.exists(), "nothing written");
    }
}

/// In a folder: a recognised output over the 16 MiB bound is said to be skipped, and an
/// unreadable file is a note, not the end of the import.
#[test]
fn import_folder_reports_skipped_large_and_unreadable_files() {
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    std::fs::create_dir(&bundle).unwrap();
    let sos = fixture("sosreport/sos_commands/networking");
    for name in ["ethtool_-S_ens3np0", "ethtool_ens3np0"] {
        std::fs::copy(sos.join(name), bundle.join(name)).unwrap();
    }
    // An ethtool -S of another port padded past 16 MiB with more counters.
    let mut big = std::fs::read_to_string(sos.join("ethtool_-S_ens4np0")).unwrap();
    let pad = "     rx_pad_counter: 0\n";
    while big.len() <= 16 << 20 {
        big.push_str(&pad.repeat(10_000));
    }
    std::fs::write(bundle.join("ethtool_-S_ens4np0"), big).unwrap();
    let secret = bundle.join("secret");
    std::fs::write(&secret, "x").unwrap();
    std::fs::set_permissions(&secret, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    let root = std::fs::read(&secret).is_ok();
    let out = optics().arg("import").arg(&bundle).arg("-o").arg(dir.path().join("out.jsonl")).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let err = stderr_of(&out);
    assert!(
        err.contains("ethtool_-S_ens4np0: ethtool -S output of more than 16777216 bytes (16 MiB), the most one is read: skipped"),
        "{err}"
    );
    if !root {
        assert!(err.contains("secret: unreadable"), "{err}");
    }
}

/// A key given twice in the thresholds file is refused (at any depth), not silently the
/// last one.
#[test]
fn a_config_key_given_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let scan = |cfg: &str| {
        let p = dir.path().join("cfg.json");
        std::fs::write(&p, cfg).unwrap();
        optics().arg("scan").arg("--replay").arg(capture("sr4-200g-healthy.jsonl")).arg("--config").arg(&p).output().unwrap()
    };
    fails_with(scan(r#"{"margin_floor_db": 3.0, "margin_floor_db": 0.5}"#), "the key `margin_floor_db` is given twice");
    fails_with(
        scan(r#"{"node_profiles": {"x": {"margin_floor_db": 1, "margin_floor_db": 2}}}"#),
        "the key `margin_floor_db` is given twice",
    );
    assert!(scan(r#"{"margin_floor_db": 0.5}"#).status.success());
}

/// A lane rate optics does not know (the kernel's `56000baseSR4/Full`, 14 Gb/s lanes) is
/// said as `insufficient_data`: `--fail-on investigate` exits 3 and `--check` is UNKNOWN.
#[test]
fn an_unknown_lane_rate_never_passes_a_gate() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(capture("sr4-200g-healthy.jsonl")).unwrap();
    let p = dir.path().join("56g.jsonl");
    std::fs::write(
        &p,
        text.replace(
            "\"link_mode\":\"200000baseSR4/Full\",\"speed_mbps\":200000",
            "\"link_mode\":\"56000baseSR4/Full\",\"speed_mbps\":56000",
        ),
    )
    .unwrap();
    let out = optics().args(["scan", "--json", "--replay"]).arg(&p).output().unwrap();
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a = &doc["interfaces"][0];
    assert_eq!(a["verdict"], "investigate", "{a}");
    let reason = a["reasons"].as_array().unwrap().iter().find(|r| r["code"] == "insufficient_data").expect("insufficient_data");
    // 56000 Mb/s over 4 lanes.
    assert!(reason["message"].as_str().unwrap().contains("14000 Mb/s per lane"), "{reason}");
    let out = optics().args(["scan", "--fail-on", "investigate", "--replay"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let out = optics().args(["scan", "--check", "--replay"]).arg(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", String::from_utf8_lossy(&out.stdout));
}

/// `ulimit -f`: SIGXFSZ is ignored and the write's EFBIG is a full disk: the CSV keeps its
/// whole rows, the analysis is printed, the exit status is 1.
#[test]
fn a_file_size_limit_is_a_full_disk_not_a_kill() {
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("rows.csv");
    let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("optics"));
    cmd.args(["watch", "--replay"]).arg(capture("sr4-200g-lane4-marginal.jsonl")).arg("--csv").arg(&csv);
    // SAFETY: setrlimit is async-signal-safe; the child only sets its own limit before exec.
    unsafe {
        cmd.pre_exec(|| {
            let lim = libc::rlimit { rlim_cur: 8192, rlim_max: 8192 };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("INVESTIGATE"), "the analysis is printed");
    let body = std::fs::read_to_string(&csv).unwrap();
    assert!(body.len() <= 8192 && body.ends_with('\n'), "whole rows only");
}

/// TERM=dumb gets no colour even when asked for automatically (here through a
/// pseudo-terminal would be needed for `auto`; `--color auto` off a terminal is off anyway,
/// so the check is that TERM=dumb never turns colour on).
#[test]
fn term_dumb_is_not_coloured() {
    let out = optics().env("TERM", "dumb").args(["scan", "--replay"]).arg(capture("sr4-200g-lane4-marginal.jsonl")).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\u{1b}'));
}

/// An event message is held to 1 KiB and marked as cut (docs/capture-format.md, "Message
/// length"): 40 events of 2 MiB each (80 MiB of text) are analysed in the memory of a small
/// capture, and the JSON and the text report show each message cut, with how much.
#[test]
fn megabyte_event_messages_are_cut_and_never_held_whole() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if !Path::new("/usr/bin/time").exists() {
        println!("skipping: no /usr/bin/time (GNU time) for the child's peak RSS");
        return;
    }
    const EVENTS: usize = 40;
    const MESSAGE_BYTES: usize = 2 << 20;
    let text = std::fs::read_to_string(capture("sr4-200g-lane4-marginal.jsonl")).unwrap();
    let mut body = String::new();
    let mut events = 0;
    for line in text.lines() {
        body.push_str(line);
        body.push('\n');
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["record"] == "sample" && events < EVENTS {
            // One long word: the text report wraps it too.
            let message = format!("event{events:02} {}", "x".repeat(MESSAGE_BYTES));
            let event =
                serde_json::json!({"record": "event", "t": v["t"], "interface": v["interface"], "kind": "error", "message": message});
            body.push_str(&event.to_string());
            body.push('\n');
            events += 1;
        }
    }
    assert_eq!(events, EVENTS);
    // Each message is "eventNN " (8 bytes) and the word: all but the first 1,024 bytes are cut.
    let cut = 8 + MESSAGE_BYTES - 1024;
    for json in [true, false] {
        let mut cmd = Command::new("/usr/bin/time");
        cmd.args(["-f", "%M"]).arg(assert_cmd::cargo::cargo_bin!("optics")).args(["scan", "--replay", "-"]);
        if json {
            cmd.arg("--json");
        }
        let mut child = cmd.env("COLUMNS", "100").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let input = body.clone();
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(&format!("… [cut {cut} bytes]")), "json {json}: no cut message");
        assert!(!stdout.contains(&"x".repeat(1025)), "json {json}: a message longer than 1 KiB");
        // GNU time's %M: the child's peak RSS in kB. A small capture's scan peaks near
        // 12 MiB; the messages held whole would be 80 MiB before any copy of them.
        let peak_kb: u64 = stderr.lines().last().unwrap().trim().parse().unwrap();
        assert!(peak_kb < 64 * 1024, "json {json}: peak RSS {peak_kb} kB");
    }
}
