//! Names from the system or a capture (interface names, the host) are text, never markup
//! or formulas, in every output that carries them: raw HTML and Markdown in the report,
//! formula leads in CSV, and the plot files `report --plots` embeds. Through the real binary.

use crate::support::optics;
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

/// A copy of bundled capture `name` in `dir` with each `(from, to)` interface renamed
/// (`to` as it is inside a JSON string).
fn renamed(dir: &Path, name: &str, renames: &[(&str, &str)]) -> PathBuf {
    let mut text = std::fs::read_to_string(capture(name)).unwrap();
    for (from, to) in renames {
        text = text.replace(&format!("\"{from}\""), &format!("\"{to}\""));
    }
    let path = dir.join("renamed.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn report_shows_markup_in_names_as_text() {
    let dir = tempfile::tempdir().unwrap();
    let evil = r#"<img src=x onerror=alert(1)>|[a](javascript:b)`&"#;
    let path = renamed(dir.path(), "sr4-200g-lane4-marginal.jsonl", &[("ens3np0", &evil.replace('"', "\\\""))]);
    let out = optics().arg("report").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(!md.contains("<img") && !md.contains("[a](") && !md.contains("b)`"), "{md}");
    // CommonMark renders the entities and backslash escapes as the name's own characters.
    let shown = r"&lt;img src=x onerror=alert(1)&gt;\|\[a\](javascript:b)\`&amp;";
    assert!(md.contains(&format!("## {shown}: INVESTIGATE")), "{md}");
    assert!(md.contains(&format!("Verdicts: {shown} INVESTIGATE.")), "{md}");
}

#[test]
fn report_quotes_a_capture_path_with_backticks_in_a_longer_fence() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a`b.jsonl");
    std::fs::copy(capture("sr4-200g-lane4-marginal.jsonl"), &path).unwrap();
    let out = optics().arg("report").arg(&path).current_dir(dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    // A one-backtick run inside: a two-backtick fence (CommonMark 6.1).
    assert!(md.contains(&format!("the capture ``{}``", path.display())), "{md}");
}

#[test]
fn csv_cells_that_read_as_formulas_are_text_and_numbers_stay_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "=HYPERLINK(\\\"http://x\\\",\\\"y\\\")";
    let path = renamed(dir.path(), "sr4-200g-lane4-marginal.jsonl", &[("ens3np0", evil)]);
    let text = std::fs::read_to_string(&path).unwrap();
    // The host too (capture header), with a leading '@'.
    std::fs::write(&path, text.replacen("\"host\":\"", "\"host\":\"@", 1)).unwrap();
    let out = optics().arg("export").arg(&path).args(["--csv", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rdr = csv::Reader::from_reader(&out.stdout[..]);
    let head = rdr.headers().unwrap().clone();
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = rdr.records().map(Result::unwrap).collect();
    assert!(!rows.is_empty());
    let mut negative_dbm = 0;
    for r in &rows {
        assert_eq!(&r[col("interface")], "'=HYPERLINK(\"http://x\",\"y\")");
        assert!(r[col("host")].starts_with("'@"), "{:?}", &r[col("host")]);
        // A negative power is a number: no quote before its minus.
        let dbm = &r[col("rx_power_dbm")];
        if dbm.starts_with('-') {
            negative_dbm += 1;
            assert!(dbm.parse::<f64>().is_ok(), "{dbm}");
        }
    }
    assert!(negative_dbm > 0, "the capture has negative rx powers to keep as numbers");
    // JSON Lines carries the name as it is.
    let out = optics().arg("export").arg(&path).args(["--json", "-"]).output().unwrap();
    let first: serde_json::Value = serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    assert_eq!(first["interface"], "=HYPERLINK(\"http://x\",\"y\")");
}

/// A name holding a terminal's escapes (ESC [ 31 m, a title set by OSC ... BEL, a C1 CSI,
/// a bidi override) reaches no CSV cell raw: `export --csv -` is printed on a terminal as
/// often as it is opened in a spreadsheet. The text report writes the same escapes.
#[test]
fn csv_cells_carry_no_terminal_escapes_from_names() {
    let dir = tempfile::tempdir().unwrap();
    let evil = r"e\u001b[31mx\u001b]0;pwn\u0007\u009b2J\u202e";
    let path = renamed(dir.path(), "sr4-200g-lane4-marginal.jsonl", &[("ens3np0", evil)]);
    let out = optics().arg("export").arg(&path).args(["--csv", "-"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(!csv.chars().any(|c| c.is_control() && c != '\n' || c == '\u{202e}'), "a raw control character in the CSV");
    let mut rdr = csv::Reader::from_reader(csv.as_bytes());
    let col = rdr.headers().unwrap().iter().position(|h| h == "interface").unwrap();
    let first = rdr.records().next().unwrap().unwrap();
    assert_eq!(&first[col], r"e\x1b[31mx\x1b]0;pwn\x07\u{9b}2J\u{202e}");
    let text = optics().args(["scan", "--replay"]).arg(&path).output().unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).starts_with(&first[col]), "the same escapes as the text report");
}

#[test]
fn report_plots_of_names_that_differ_in_replaced_characters_are_distinct() {
    // `p0+1` and `p0@1` both become `p0_1` in a file name: each must get its own files,
    // and the report must embed each interface's own plot.
    let dir = tempfile::tempdir().unwrap();
    let path = renamed(dir.path(), "dr8-800g-breakout-2x400g.jsonl", &[("ens7f0np0", "p0+1"), ("ens7f1np1", "p0@1")]);
    let figs = dir.path().join("figs");
    let report = dir.path().join("r.md");
    let out = optics().arg("report").arg(&path).arg("--plots").arg(&figs).arg("-o").arg(&report).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(&report).unwrap();
    let mut links: Vec<(String, String)> = Vec::new();
    let mut section = String::new();
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = h.split(':').next().unwrap().to_string();
        }
        if line.starts_with("![") {
            links.push((section.clone(), line[line.find("](").unwrap() + 2..line.len() - 1].to_string()));
        }
    }
    let of = |iface: &str| links.iter().filter(|(s, _)| s == iface).map(|(_, l)| l.clone()).collect::<Vec<_>>();
    let (a, b) = (of("p0+1"), of("p0@1"));
    assert!(!a.is_empty() && !b.is_empty(), "{links:?}");
    assert!(a.iter().all(|l| !b.contains(l)), "one file for both: {links:?}");
    for (iface, files) in [("p0+1", &a), ("p0@1", &b)] {
        for f in files {
            let svg = std::fs::read_to_string(dir.path().join(f)).unwrap();
            assert!(svg.contains(&format!("{iface}: ")), "{f} is not {iface}'s plot");
        }
    }
}

#[test]
fn report_keeps_the_analysis_own_code_spans_and_escapes_what_surrounds_them() {
    // The advice quotes a command with a placeholder: a code span shows it as typed
    // (CommonMark 6.1), where an escaped backtick and `&lt;` would show the markup in the source.
    let dir = tempfile::tempdir().unwrap();
    let evil = r#"ib<x>&"#;
    let path = renamed(dir.path(), "ib-ndr-errors-after-fec.jsonl", &[("mlx5_0/1", evil)]);
    let out = optics().arg("report").arg(&path).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.contains("`mlxlink -d <PCI address> -c -e -m`"), "{md}");
    assert!(!md.contains(r"\`mlxlink"), "{md}");
    // The interface name around the spans is still text.
    assert!(md.contains("ib&lt;x&gt;&amp;") && !md.contains("ib<x>"), "{md}");
}
