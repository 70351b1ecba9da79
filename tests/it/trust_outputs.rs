//! Every output of every command goes through one check against every file the run reads
//! and every other output it writes (same device and inode when the file exists, else the
//! same canonical path), and `-` is standard output for every output flag. Through the real
//! binary, one test per command.

use crate::support::optics;
use std::path::{Path, PathBuf};

const MARGINAL: &str = "sr4-200g-lane4-marginal.jsonl";
const FAR_END: &str = "sr4-200g-far-end-normal-tx.jsonl";

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A scratch folder with copies of the marginal capture (`c.jsonl`), its far end
/// (`p.jsonl`), a config (`cfg.json`) and a hard link to the capture (`alias.jsonl`).
struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(capture(MARGINAL), dir.path().join("c.jsonl")).unwrap();
        std::fs::copy(capture(FAR_END), dir.path().join("p.jsonl")).unwrap();
        std::fs::write(dir.path().join("cfg.json"), "{}").unwrap();
        std::fs::hard_link(dir.path().join("c.jsonl"), dir.path().join("alias.jsonl")).unwrap();
        Scratch { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Every file's bytes, to show a refused run touched none.
    fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        let mut v: Vec<(String, Vec<u8>)> = std::fs::read_dir(self.dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read(&p).unwrap_or_default()))
            .collect();
        v.sort();
        v
    }

    /// Runs `args` (paths by name in the scratch folder as `@name`) in the folder and
    /// asserts a refusal that names `want` and left every file as it was.
    fn refused(&self, args: &[&str], want: &str) {
        let before = self.snapshot();
        let args: Vec<String> =
            args.iter().map(|a| a.strip_prefix('@').map_or(a.to_string(), |n| self.path(n).display().to_string())).collect();
        let out = optics().args(&args).current_dir(self.dir.path()).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr_of(&out));
        assert!(stderr_of(&out).contains(want), "{args:?}: {}", stderr_of(&out));
        assert_eq!(self.snapshot(), before, "{args:?}: a refused run changes no file");
    }
}

#[test]
fn scan_prometheus_may_not_be_an_input_or_another_output() {
    let s = Scratch::new();
    let input = "is also an input";
    s.refused(&["scan", "--replay", "@c.jsonl", "--prometheus", "@c.jsonl"], input);
    s.refused(&["scan", "--replay", "@c.jsonl", "--prometheus", "@alias.jsonl"], input);
    s.refused(&["scan", "--replay", "@c.jsonl", "--peer", "@p.jsonl", "--prometheus", "@p.jsonl"], input);
    s.refused(&["scan", "--replay", "@c.jsonl", "--config", "@cfg.json", "--prometheus", "@cfg.json"], input);
    // Relative and absolute spellings of one file are one file.
    s.refused(&["scan", "--replay", "c.jsonl", "--prometheus", "./c.jsonl"], input);
    // A file yet to be created, named twice: one canonical path.
    s.refused(&["scan", "--prometheus", "@new.prom", "--record", "new.prom"], "name the same file");
}

#[test]
fn scan_and_export_prometheus_dash_is_standard_output() {
    let s = Scratch::new();
    let out = optics().args(["scan", "--replay", "c.jsonl", "--prometheus", "-"]).current_dir(s.dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    let metrics = String::from_utf8_lossy(&out.stdout);
    assert!(metrics.contains("optics_interface_verdict{"), "{metrics}");
    // The readable report goes to stderr beside it.
    assert!(stderr_of(&out).contains("INVESTIGATE"), "{}", stderr_of(&out));
    assert!(!s.path("-").exists(), "no file named -");
    let out = optics().args(["export", "c.jsonl", "--prometheus", "-"]).current_dir(s.dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains("optics_interface_verdict{"));
    assert!(!s.path("-").exists(), "no file named -");
    // Two outputs on standard output would interleave.
    s.refused(&["export", "c.jsonl", "--prometheus", "-", "--csv", "-"], "both write to standard output");
}

#[test]
fn export_outputs_may_not_be_inputs() {
    let s = Scratch::new();
    s.refused(&["export", "@c.jsonl", "--prometheus", "@alias.jsonl"], "is also an input");
    s.refused(&["export", "@c.jsonl", "--config", "@cfg.json", "--json", "@cfg.json"], "is also an input");
    s.refused(&["export", "@c.jsonl", "--csv", "@out", "--prometheus", "@out"], "name the same file");
}

#[test]
fn watch_outputs_may_not_be_inputs() {
    let s = Scratch::new();
    s.refused(&["watch", "--replay", "@c.jsonl", "--record", "@alias.jsonl"], "is also an input");
    s.refused(&["watch", "--replay", "@c.jsonl", "--config", "@cfg.json", "--csv", "@cfg.json"], "is also an input");
}

#[test]
fn compare_record_may_not_be_an_input() {
    // Refused before any live sampling, so no privileges are needed to see it.
    let s = Scratch::new();
    s.refused(&["compare", "@c.jsonl", "--record", "@c.jsonl"], "is also an input");
    s.refused(&["compare", "@c.jsonl", "--config", "@cfg.json", "--record", "@cfg.json"], "is also an input");
}

#[test]
fn plot_and_report_outputs_may_not_be_inputs() {
    let s = Scratch::new();
    s.refused(&["plot", "@c.jsonl", "--config", "@cfg.json", "-o", "@cfg.json"], "is also an input");
    s.refused(&["report", "@c.jsonl", "--peer", "@p.jsonl", "-o", "@p.jsonl"], "is also an input");
    s.refused(&["report", "@c.jsonl", "--config", "@cfg.json", "-o", "@alias.jsonl"], "is also an input");
    // A plot that `report --plots` would write over the capture it reads.
    std::fs::copy(capture(MARGINAL), s.path("ens3np0-ber-vs-rx.svg")).unwrap();
    s.refused(&["report", "@ens3np0-ber-vs-rx.svg", "--plots", "@."], "is also an input");
}

#[test]
fn import_output_may_not_be_an_input_or_inside_an_input_folder() {
    let s = Scratch::new();
    let sos = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/sosreport/sos_commands/networking");
    let bundle = s.path("bundle");
    std::fs::create_dir(&bundle).unwrap();
    for name in ["ethtool_-S_ens3np0", "ethtool_ens3np0"] {
        std::fs::copy(sos.join(name), bundle.join(name)).unwrap();
    }
    s.refused(&["import", "@bundle/ethtool_-S_ens3np0", "-o", "@bundle/ethtool_-S_ens3np0"], "is also an input");
    // A folder's file named as the output: it is read by the walk, then would be overwritten.
    s.refused(&["import", "@bundle", "-o", "@bundle/ethtool_ens3np0"], "inside the input folder");
    // A new file in the folder is not an input: written.
    let out = optics().arg("import").arg(&bundle).arg("-o").arg(bundle.join("new.jsonl")).output().unwrap();
    assert!(out.status.success(), "{}", stderr_of(&out));
}
