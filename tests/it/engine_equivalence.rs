//! The streaming engine gives the analysis the pre-engine code gave.
//!
//! The oracle, tests/fixtures/engine-oracle/, was written by the binary built from the
//! commit before the engine (`scan --replay X --json`, plus `--from 10 --to 40` and
//! `--from 25`, and `export X --csv`) over every bundled capture, the example fixture
//! and a mixed four-interface capture (a module swap, a counter reset with a gap, link
//! flaps with an interface-gone event, a CMIS module with one unreadable sample). Every
//! key and value the old output had must be in the new one (new keys may be added),
//! numbers equal to 1e-9 relative (Poisson bounds of counts in 1,001-10,000: 1e-5, the
//! stated error of the approximation now used there).

use assert_cmd::Command;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn oracle() -> PathBuf {
    root().join("tests/fixtures/engine-oracle")
}

fn capture_of(stem: &str) -> PathBuf {
    let bundled = root().join("captures").join(format!("{stem}.jsonl"));
    if bundled.exists() {
        return bundled;
    }
    let fixture = root().join("tests/fixtures").join(format!("{stem}.jsonl"));
    if fixture.exists() {
        return fixture;
    }
    oracle().join(format!("{stem}.jsonl"))
}

/// Reason codes and flags added to the analysis after the oracle was written (by
/// other work, not the engine). Where the new output has one, that
/// interface's verdict, reasons, flags and advice are not compared; its numbers still are.
const NEWER_CODES: &[&str] = &["weak_transmitter", "ber_over_fec_limit", "insufficient_data"];

fn has_newer_code(iface: &Value) -> bool {
    iface["reasons"].as_array().is_some_and(|rs| rs.iter().any(|r| r["code"].as_str().is_some_and(|c| NEWER_CODES.contains(&c))))
}

/// Drops the judged parts (verdict, reasons, lane flags and advice) of an interface.
fn without_judgement(iface: &mut Value) {
    if let Some(o) = iface.as_object_mut() {
        o.remove("verdict");
        o.remove("reasons");
    }
    for l in iface["lanes"].as_array_mut().into_iter().flatten() {
        if let Some(o) = l.as_object_mut() {
            o.remove("flags");
            o.remove("advice");
        }
    }
}

fn close(a: f64, b: f64) -> bool {
    a == b || (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// Every part of `old` is in `new`.
fn contains(old: &Value, new: &Value, path: &str, errs: &mut Vec<String>) {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => {
            for (k, v) in o {
                match n.get(k) {
                    Some(nv) => contains(v, nv, &format!("{path}.{k}"), errs),
                    None => errs.push(format!("{path}.{k}: missing")),
                }
            }
        }
        (Value::Array(o), Value::Array(n)) => {
            if o.len() != n.len() {
                errs.push(format!("{path}: {} items, was {}", n.len(), o.len()));
            }
            for (i, (a, b)) in o.iter().zip(n).enumerate() {
                contains(a, b, &format!("{path}[{i}]"), errs);
            }
        }
        (Value::Number(a), Value::Number(b)) => {
            let (x, y) = (a.as_f64().unwrap_or(f64::NAN), b.as_f64().unwrap_or(f64::NAN));
            let bound = path.ends_with("pre_fec_ber_lower") || path.ends_with("pre_fec_ber_upper");
            let ok = if bound { (x - y).abs() <= 1e-5 * x.abs().max(y.abs()) } else { close(x, y) };
            if !ok {
                errs.push(format!("{path}: {b}, was {a}"));
            }
        }
        (a, b) if a == b => {}
        (a, b) => errs.push(format!("{path}: {b}, was {a}")),
    }
}

#[test]
fn scan_of_every_oracle_capture_is_unchanged() {
    let mut checked = 0;
    let mut errs = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(oracle()).unwrap().flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries.iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let (stem, args): (&str, Vec<&str>) = match name.split_once('.') {
            Some((s, "from10-to40")) => (s, vec!["--from", "10", "--to", "40"]),
            Some((s, "from25")) => (s, vec!["--from", "25"]),
            Some((_, other)) => panic!("unknown oracle variant {other}"),
            None => (name.as_str(), vec![]),
        };
        let out = Command::cargo_bin("optics")
            .unwrap()
            .arg("scan")
            .arg("--replay")
            .arg(capture_of(stem))
            .args(&args)
            .arg("--json")
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        let mut new: Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut old: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        let (olds, news) = (old["interfaces"].as_array_mut().unwrap(), new["interfaces"].as_array_mut().unwrap());
        for (o, n) in olds.iter_mut().zip(news.iter_mut()) {
            if has_newer_code(n) && !has_newer_code(o) {
                without_judgement(o);
                without_judgement(n);
            }
        }
        contains(&old["interfaces"], &new["interfaces"], &name, &mut errs);
        checked += 1;
    }
    assert!(checked >= 40, "{checked} oracle files");
    assert!(errs.is_empty(), "{}", errs.join("\n"));
}

/// Cells of a CSV, header row first.
fn cells(text: &str) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new().has_headers(false).from_reader(text.as_bytes());
    r.records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect()
}

#[test]
fn export_of_every_oracle_capture_is_unchanged() {
    let mut errs = Vec::new();
    for p in std::fs::read_dir(oracle()).unwrap().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "csv")) {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        let out = Command::cargo_bin("optics").unwrap().arg("export").arg(capture_of(&stem)).args(["--csv", "-"]).output().unwrap();
        assert!(out.status.success(), "{stem}: {}", String::from_utf8_lossy(&out.stderr));
        let new = cells(&String::from_utf8(out.stdout).unwrap());
        let old = cells(&std::fs::read_to_string(&p).unwrap());
        if new.len() != old.len() {
            errs.push(format!("{stem}: {} rows, was {}", new.len(), old.len()));
            continue;
        }
        let header = &old[0];
        for (i, (o, n)) in old.iter().zip(&new).enumerate() {
            for (c, name) in header.iter().enumerate() {
                let (a, b) = (o.get(c).map(String::as_str).unwrap_or(""), n.get(c).map(String::as_str).unwrap_or(""));
                // Flags added after the oracle (NEWER_CODES) are not the engine's doing.
                let kept: Vec<&str> = b.split(';').filter(|f| !f.is_empty() && !NEWER_CODES.contains(f)).collect();
                let b = if name == "flags" { kept.join(";") } else { b.to_string() };
                let b = b.as_str();
                if !equivalent_cell(name, a, b) {
                    errs.push(format!("{stem} row {i} {name}: {b:?}, was {a:?}"));
                }
            }
        }
    }
    assert!(errs.is_empty(), "{}", errs.iter().take(40).cloned().collect::<Vec<_>>().join("\n"));
}

/// Same cell: equal text, numbers within 1e-9 relative, or (`time`, which now always
/// has six fractional digits) the same instant. A Poisson bound of a count in 1,001-10,000
/// now comes from Wilson–Hilferty, within its stated 1e-5 (analysis::ber); BER and margin
/// cells stay at 1e-9.
fn equivalent_cell(column: &str, a: &str, b: &str) -> bool {
    if column == "pre_fec_ber_upper" {
        return a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if (x - y).abs() <= 1e-5 * x.abs().max(y.abs()));
    }
    use time::format_description::well_known::Rfc3339;
    if column == "time" {
        return match (time::OffsetDateTime::parse(a, &Rfc3339), time::OffsetDateTime::parse(b, &Rfc3339)) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        };
    }
    a == b || matches!((a.parse::<f64>(), b.parse::<f64>()), (Ok(x), Ok(y)) if close(x, y))
}
