//! Compressed captures end to end: `--record *.zst` and `import -o *.zst` write Zstandard
//! frames that the reference `zstd` tool decompresses to the plain capture's bytes; every
//! reader takes zstd bytes by their content (any name, a pipe, standard input); a capture
//! cut anywhere reads up to its last whole tick, and a cut never panics.

use crate::support::optics;
use std::path::{Path, PathBuf};
use std::process::Command;

const CAPTURE: &str = "captures/sr4-200g-lane4-marginal.jsonl";
/// The first four bytes of every Zstandard frame (RFC 8878 §3.1.1).
const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// The reference `zstd` tool, when this machine has it (.ci/run installs it).
fn zstd_tool() -> Option<&'static str> {
    let ok = Command::new("zstd").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping the comparison with the zstd tool: zstd is not installed");
    }
    ok.then_some("zstd")
}

fn run(args: &[&str]) -> std::process::Output {
    let out = optics().args(args).output().unwrap();
    assert!(out.status.success(), "optics {args:?}: {}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    out
}

fn record(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    run(&["watch", "--replay", CAPTURE, "--record", path.to_str().unwrap()]);
    path
}

/// `scan --replay X --json` with the capture's path blanked (it is named in the output).
fn scan_json(path: &Path) -> String {
    let out = run(&["scan", "--replay", path.to_str().unwrap(), "--json"]);
    String::from_utf8(out.stdout).unwrap().replace(path.to_str().unwrap(), "CAPTURE")
}

#[test]
fn a_zst_recording_is_the_plain_recording_in_zstd_frames() {
    let dir = tempfile::tempdir().unwrap();
    let plain = record(dir.path(), "run.jsonl");
    let packed = record(dir.path(), "run.jsonl.zst");
    let bytes = std::fs::read(&packed).unwrap();
    assert_eq!(bytes[..4], MAGIC, "a .zst recording starts a zstd frame");
    let plain_bytes = std::fs::read(&plain).unwrap();
    assert!(bytes.len() * 3 < plain_bytes.len(), "{} compressed vs {} plain bytes", bytes.len(), plain_bytes.len());
    if let Some(zstd) = zstd_tool() {
        let out = Command::new(zstd).args(["-d", "-c", "-q"]).arg(&packed).output().unwrap();
        assert!(out.status.success(), "zstd -d: {}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(out.stdout, plain_bytes, "zstd -d gives the plain capture's bytes");
    }
    assert_eq!(scan_json(&packed), scan_json(&plain));
}

#[test]
fn every_reader_takes_zstd_bytes_whatever_the_name_and_from_a_pipe() {
    let Some(zstd) = zstd_tool() else { return };
    let dir = tempfile::tempdir().unwrap();
    // Compressed by the reference tool (one frame, its own block sizes), named without .zst.
    let packed = dir.path().join("capture.bin");
    let st = Command::new(zstd).args(["-q", "-19", "-c", CAPTURE]).stdout(std::fs::File::create(&packed).unwrap()).status().unwrap();
    assert!(st.success());
    let plain = Path::new(CAPTURE);
    assert_eq!(scan_json(&packed), scan_json(plain));
    let export = |p: &Path| run(&["export", "--csv", "-", p.to_str().unwrap()]).stdout;
    assert_eq!(export(&packed), export(plain));
    // Standard input: read once, decompressed.
    let out = optics().args(["export", "--csv", "-", "-"]).write_stdin(std::fs::read(&packed).unwrap()).output().unwrap();
    assert!(out.status.success());
    assert_eq!(out.stdout, export(plain));
}

#[test]
fn an_import_written_as_zst_reads_back_as_the_plain_one() {
    let dir = tempfile::tempdir().unwrap();
    let input = "tests/fixtures/import/mlxlink_400g_a.txt";
    let (plain, packed) = (dir.path().join("imp.jsonl"), dir.path().join("imp.jsonl.zst"));
    for out in [&plain, &packed] {
        run(&["import", input, "--interface", "ens1np0", "-o", out.to_str().unwrap()]);
    }
    assert_eq!(std::fs::read(&packed).unwrap()[..4], MAGIC);
    assert_eq!(scan_json(&packed), scan_json(&plain));
}

/// A recording cut at any byte (a full disk, a killed process, a copy in progress) is read
/// up to what it holds: never a panic, and past the header's block a whole capture.
#[test]
fn a_zst_capture_cut_anywhere_reads_or_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let packed = std::fs::read(record(dir.path(), "run.jsonl.zst")).unwrap();
    let cut_path = dir.path().join("cut.jsonl.zst");
    let step = (packed.len() / 12).max(1);
    for cut in (1..packed.len()).step_by(step).chain([packed.len() - 1]) {
        std::fs::write(&cut_path, &packed[..cut]).unwrap();
        let out = optics().args(["scan", "--replay", cut_path.to_str().unwrap(), "--json"]).output().unwrap();
        let code = out.status.code();
        assert!(matches!(code, Some(0) | Some(1)), "cut at {cut}: {:?}\n{}", code, String::from_utf8_lossy(&out.stderr));
        if code == Some(1) {
            assert!(!out.stderr.is_empty(), "cut at {cut}: an error says why");
        }
    }
    // Missing only its last bytes (the frame's checksum), every tick is there.
    std::fs::write(&cut_path, &packed[..packed.len() - 1]).unwrap();
    let whole = optics::capture::read_capture(dir.path().join("run.jsonl.zst")).unwrap();
    let cut = optics::capture::read_capture(&cut_path).unwrap();
    assert_eq!(cut.records.len(), whole.records.len());
}

/// A recording cut at every byte (a frame without its end, even missing only its checksum,
/// is cut): before its header's block is whole the capture "is cut", never "empty"; after,
/// it replays a prefix of the whole and says it was cut.
#[test]
fn a_zst_capture_cut_at_any_byte_says_it_was_cut() {
    let dir = tempfile::tempdir().unwrap();
    let packed = std::fs::read(record(dir.path(), "run.jsonl.zst")).unwrap();
    let whole = optics::capture::read_capture(dir.path().join("run.jsonl.zst")).unwrap();
    assert!(whole.notes.is_empty(), "{:?}", whole.notes);
    let cut_path = dir.path().join("cut.jsonl.zst");
    let mut read_some = 0;
    for cut in 4..packed.len() {
        std::fs::write(&cut_path, &packed[..cut]).unwrap();
        match optics::capture::read_capture(&cut_path) {
            Ok(c) => {
                read_some += 1;
                assert!(c.records.len() <= whole.records.len());
                assert_eq!(c.records[..], whole.records[..c.records.len()], "cut at {cut}: a prefix of the whole");
                assert!(c.notes.iter().any(|n| n.contains("ends inside a Zstandard frame")), "cut at {cut}: {:?}", c.notes);
            }
            Err(e) => {
                assert!(matches!(e, optics::capture::CaptureError::CutBeforeHeader), "cut at {cut}: {e}");
                assert!(e.to_string().starts_with("capture is cut"), "{e}");
            }
        }
    }
    assert!(read_some > packed.len() / 2, "most cuts replay: {read_some} of {}", packed.len());
    // Through the command: the cut said on stderr, and a cut header is no "empty" capture.
    std::fs::write(&cut_path, &packed[..packed.len() - 1]).unwrap();
    let out = optics().args(["scan", "--replay", cut_path.to_str().unwrap()]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("ends inside a Zstandard frame (a recording killed mid-write)"));
    std::fs::write(&cut_path, &packed[..8]).unwrap();
    let out = optics().args(["scan", "--replay", cut_path.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("capture is cut") && !err.contains("empty"), "{err}");
}

/// SIGKILL mid-recording: the capture replays up to its last flushed tick.
#[cfg(live)]
#[test]
fn a_killed_zst_recording_replays_to_its_last_tick() {
    let Some(ns) = crate::support::netns::Netns::create("optics-zstd") else { return };
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("killed.jsonl.zst");
    let mut child = Command::new("nsenter")
        .arg(format!("--net=/var/run/netns/{}", ns.name))
        .arg("--")
        .arg(assert_cmd::cargo::cargo_bin!("optics"))
        .args(["watch", "v0", "--interval", "100ms", "--record"])
        .arg(&rec)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    child.kill().unwrap(); // SIGKILL: no handler runs, no frame is closed
    child.wait().unwrap();
    let cap = optics::capture::read_capture(&rec).unwrap();
    let samples = cap.records.iter().filter(|r| matches!(r, optics::capture::Record::Sample(_))).count();
    assert!(samples >= 5, "{samples} samples survived the kill");
    assert!(cap.notes.iter().any(|n| n.contains("ends inside a Zstandard frame")), "{:?}", cap.notes);
    let out = optics().args(["scan", "--replay", rec.to_str().unwrap()]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
