//! The readable report as a person sees it: golden text at width 100 with colour off, every
//! line within the width, colour only on a terminal (through a pseudo-terminal made by
//! util-linux `script`), NO_COLOR, control characters escaped, the fleet table.
//!
//! Golden files are in tests/golden/; after a deliberate change, `OPTICS_BLESS=1 cargo test
//! --test cli_text` rewrites them (and README's sample) and the diff is reviewed by hand.

use crate::support;
use crate::support::optics;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn capture(name: &str) -> PathBuf {
    root().join("captures").join(name)
}

fn scan_text(path: &Path, columns: usize, extra: &[&str]) -> String {
    let out = optics().env("COLUMNS", columns.to_string()).arg("scan").arg("--replay").arg(path).args(extra).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn bless() -> bool {
    std::env::var_os("OPTICS_BLESS").is_some()
}

fn golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if bless() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e} (OPTICS_BLESS=1 writes it)", path.display()));
    assert_eq!(actual, want, "{name} differs from the golden file (OPTICS_BLESS=1 rewrites it; review the diff)");
}

#[test]
fn golden_reports_at_width_100() {
    for (cap, gold) in [
        ("sr4-200g-lane4-marginal.jsonl", "scan-marginal.txt"),
        ("sr4-200g-healthy.jsonl", "scan-healthy.txt"),
        ("multihost-gb10-cx7.jsonl", "scan-multihost.txt"),
        ("dr8-800g-cmis-healthy.jsonl", "scan-800g.txt"),
    ] {
        let text = scan_text(&capture(cap), 100, &[]);
        assert!(!text.contains('\x1b'), "{cap}: colour when piped");
        golden(gold, &text);
    }
}

#[test]
fn marginal_report_reads_in_the_descent_order() {
    let text = scan_text(&capture("sr4-200g-lane4-marginal.jsonl"), 100, &[]);
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("ens3np0  INVESTIGATE"), "verdict first: {first}");
    let at = |label: &str| text.find(label).unwrap_or_else(|| panic!("{label} missing:\n{text}"));
    assert!(at("  pcie ") < at("  link ") && at("  link ") < at("  module ") && at("  module ") < at("  reason "));
    // Weakest first: lane 4 (212e6 bits / (53.125e9 x 60 s) = 6.66e-5), then 3, 2, 1.
    let lanes: Vec<&str> = text.lines().filter(|l| l.len() > 6 && l[2..6].trim().parse::<u8>().is_ok()).map(|l| l[2..6].trim()).collect();
    assert_eq!(lanes, vec!["4", "3", "2", "1"]);
    // Per-source provenance only with --verbose.
    assert!(!text.contains("counters "));
    let verbose = scan_text(&capture("sr4-200g-lane4-marginal.jsonl"), 100, &["--verbose"]);
    assert!(verbose.contains("corrected_bits_per_lane from driver:rx_err_lane_N_phy"), "{verbose}");
}

#[test]
fn no_line_is_wider_than_the_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut caps: Vec<PathBuf> = std::fs::read_dir(root().join("captures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    caps.push(support::fleet_captures::eight_nic_capture(dir.path()));
    assert!(caps.len() >= 13);
    for cap in &caps {
        for width in [80, 100, 160] {
            for extra in [&[][..], &["--all", "--verbose"][..]] {
                let text = scan_text(cap, width, extra);
                for line in text.lines() {
                    assert!(line.chars().count() <= width, "{} at {width}: {} columns: {line}", cap.display(), line.chars().count());
                }
            }
        }
    }
}

#[test]
fn eight_nics_in_eight_lines_worst_first() {
    let dir = tempfile::tempdir().unwrap();
    let cap = support::fleet_captures::eight_nic_capture(dir.path());
    let text = scan_text(&cap, 100, &[]);
    // Table rows start at column 0; reasons that do not fit continue on indented lines.
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert!(lines[0].starts_with("interface") && lines[0].contains("verdict") && lines[0].contains("PCIe"), "{}", lines[0]);
    let rows: Vec<(&str, &str)> = lines[1..9]
        .iter()
        .map(|l| {
            let mut it = l.split_whitespace();
            (it.next().unwrap(), it.next().unwrap())
        })
        .collect();
    // Rejects first (ens5: PCIe Gen4 x4 of x16; ens7: link flaps and uncorrectables), then
    // ens3's investigate, then the five healthy ports.
    let verdicts: Vec<&str> = rows.iter().map(|r| r.1).collect();
    assert_eq!(verdicts, ["REJECT", "REJECT", "INVESTIGATE", "ACCEPT", "ACCEPT", "ACCEPT", "ACCEPT", "ACCEPT"]);
    let mut rejects: Vec<&str> = rows[..2].iter().map(|r| r.0).collect();
    rejects.sort();
    assert_eq!(rejects, ["ens5np0", "ens7np0"]);
    assert_eq!(rows[2].0, "ens3np0");
    let ens5 = lines[1..9].iter().find(|l| l.starts_with("ens5np0")).unwrap();
    assert!(ens5.contains("Gen4 x4!") && ens5.contains("pcie_degraded"), "{ens5}");
    // Detail for the three that are not accepted only; --all gives all eight.
    let details = |t: &str| {
        t.lines()
            .filter(|l| {
                l.starts_with("ens")
                    && (l.contains("  ACCEPT") || l.contains("  REJECT") || l.contains("  INVESTIGATE"))
                    && !l.contains("RS544")
            })
            .count()
    };
    assert_eq!(details(&text), 3, "{text}");
    assert!(text.contains("5 accepted ports not detailed"));
    assert_eq!(details(&scan_text(&cap, 100, &["--all"])), 8);
}

/// Runs `optics ARGS` on a pseudo-terminal (util-linux `script`), returning what it printed.
fn on_pty(args: &str, env: &[(&str, &str)]) -> Option<String> {
    let bin = assert_cmd::cargo::cargo_bin!("optics");
    let mut cmd = std::process::Command::new("script");
    // A terminal that shows colour unless a test says otherwise (clap colours nothing without TERM).
    cmd.args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"]).env_remove("NO_COLOR").env("COLUMNS", "100").env("TERM", "xterm");
    for (k, v) in env {
        cmd.env(k, v);
    }
    match cmd.output() {
        Ok(o) if o.status.success() => Some(String::from_utf8_lossy(&o.stdout).into_owned()),
        Ok(o) => panic!("script failed: {}", String::from_utf8_lossy(&o.stderr)),
        Err(e) => {
            println!("skipping: no util-linux script ({e})");
            None
        }
    }
}

#[test]
fn colour_on_a_terminal_only() {
    let cap = capture("sr4-200g-lane4-marginal.jsonl");
    let scan = format!("scan --replay {}", cap.display());
    let Some(tty) = on_pty(&scan, &[]) else { return };
    // Bold yellow INVESTIGATE (SGR 1;33), and the flagged lane 4 coloured.
    assert!(
        tty.contains("\x1b[1m\x1b[33mINVESTIGATE") || tty.contains("\x1b[33m\x1b[1mINVESTIGATE") || tty.contains("\x1b[1;33mINVESTIGATE"),
        "{tty:?}"
    );
    let plain = |s: &str| !s.contains("\x1b[");
    assert!(plain(&on_pty(&scan, &[("NO_COLOR", "1")]).unwrap()), "NO_COLOR is honoured");
    assert!(plain(&on_pty(&format!("{scan} --color never"), &[]).unwrap()));
    assert!(!plain(&on_pty(&format!("{scan} --color always"), &[("NO_COLOR", "1")]).unwrap()), "--color always wins");
    // Piped: none, unless asked for.
    assert!(plain(&scan_text(&cap, 100, &[])));
    assert!(!plain(&scan_text(&cap, 100, &["--color", "always"])));
}

/// Every coloured output on a terminal (the report, clap's help and its usage errors) is
/// plain under TERM=dumb (a terminal that shows no escape sequences) and under NO_COLOR.
#[test]
fn term_dumb_and_no_color_reach_every_coloured_output() {
    let cap = capture("sr4-200g-lane4-marginal.jsonl");
    let scan = format!("scan --replay {}", cap.display());
    let plain = |s: &str| !s.contains('\x1b');
    // `script` exits with the command's status: a usage error (2) is still output.
    let any_status = |args: &str, env: &[(&str, &str)]| {
        let bin = assert_cmd::cargo::cargo_bin!("optics");
        let mut cmd = std::process::Command::new("script");
        cmd.args(["-qec", &format!("{} {args}", bin.display()), "/dev/null"]).env_remove("NO_COLOR").env("TERM", "xterm");
        cmd.envs(env.iter().copied());
        cmd.output().ok().map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
    };
    let Some(coloured) = on_pty(&scan, &[]) else { return };
    for (what, args) in [("report", scan.as_str()), ("help", "scan --help"), ("usage error", "scan --no-such-flag")] {
        let shown = if what == "report" { Some(coloured.clone()) } else { any_status(args, &[]) };
        assert!(!plain(&shown.unwrap()), "{what} is coloured on a terminal (the control)");
        for env in [("TERM", "dumb"), ("NO_COLOR", "1")] {
            let text = any_status(args, &[env]).unwrap();
            assert!(plain(&text), "{what} with {}={}: {text:?}", env.0, env.1);
            assert!(text.len() > 40, "{what}: {text:?}");
        }
    }
}

#[test]
fn control_characters_from_a_capture_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(capture("sr4-200g-lane4-marginal.jsonl")).unwrap();
    // JSON "\u001b[2J" is ESC [ 2 J (erase display) inside the interface name.
    let evil = text.replace("\"ens3np0\"", "\"ens3\\u001b[2Jnp0\"");
    let path = dir.path().join("evil.jsonl");
    std::fs::write(&path, evil).unwrap();
    for extra in [&[][..], &["--color", "always"][..], &["--check"][..]] {
        let out = optics().arg("scan").arg("--replay").arg(&path).args(extra).output().unwrap();
        let s = String::from_utf8_lossy(&out.stdout);
        assert!(s.contains("ens3\\x1b[2Jnp0"), "{s}");
        assert!(!s.contains("\x1b[2J"), "raw escape printed: {s:?}");
    }
    let out = optics().arg("report").arg(&path).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains('\x1b'));
    // Errors quote the capture's names too.
    let out = optics().arg("scan").arg("--replay").arg(&path).arg("eth9").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("ens3\\x1b[2Jnp0") && !err.contains('\x1b'), "{err:?}");
}

#[test]
fn readme_sample_is_the_real_output() {
    let readme_path = root().join("README.md");
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    const MARK: &str =
        "<!-- sample: optics scan --replay captures/sr4-200g-lane4-marginal.jsonl (width 100, no colour; tests/it/cli_text.rs checks it) -->";
    let at = readme.find(MARK).expect("README has the sample marker") + MARK.len();
    let open = readme[at..].find("```\n").unwrap() + at + 4;
    let close = readme[open..].find("```").unwrap() + open;
    let actual = scan_text(&capture("sr4-200g-lane4-marginal.jsonl"), 100, &[]);
    if bless() {
        std::fs::write(&readme_path, format!("{}{actual}{}", &readme[..open], &readme[close..])).unwrap();
        return;
    }
    assert_eq!(&readme[open..close], actual, "README's sample is stale: OPTICS_BLESS=1 cargo test --test cli_text rewrites it");
}

/// The module line names the form factor and the application, not the media-type byte.
/// 800G: identifier 0x19 is OSFP (SFF-8024 Table 4-1); AppSel 1's media interface 0x14 is
/// 100GBASE-DR (Table 4-7) on 8 media lanes. 200G: identifier 0x11 is "QSFP28 or later"
/// and the extended compliance code 41h (50GBASE-SR, 100GBASE-SR2, or 200GBASE-SR4, Table
/// 4-4) runs only on 50 Gb/s lanes, so the form is QSFP56 (a QSFP28 is 4 x 28 Gb/s,
/// SFF-8665); of the code's alternatives the link's 200000baseSR4 runs the one at 200G.
#[test]
fn the_module_line_names_form_factor_and_application() {
    let dr8 = scan_text(&capture("dr8-800g-cmis-healthy.jsonl"), 100, &[]);
    assert!(dr8.contains("SN AC2509DR80042 (OSFP 8x 100GBASE-DR, CMIS), 48.0 C"), "{dr8}");
    let sr4 = scan_text(&capture("sr4-200g-healthy.jsonl"), 100, &[]);
    assert!(sr4.contains("(QSFP56 200GBASE-SR4, SFF-8636)"), "{sr4}");
    let out = optics().arg("decode").arg(capture("dr8-800g-cmis-healthy.jsonl")).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("Module:            OSFP 8x 100GBASE-DR\n"));
}
