//! `optics serve` and deploy/ against the real components: promtool on the shipped rules and
//! on a real /metrics body, a real Prometheus server scraping two replaying exporters until the
//! FEC-hiding alert fires for lane 4 of the marginal link (and never for the healthy one),
//! the Grafana dashboard's PromQL against docs/metrics.md, and `systemd-analyze verify` on the
//! units. Missing tools (`promtool`, `prometheus`, `systemd-analyze`) print `skipping: <reason>`;
//! `.ci/run` installs Debian's `prometheus` package so CI runs them all.

use crate::support;
use serde_json::Value;
use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[allow(dead_code)]
use support::prometheus::{have, repo, Prometheus};
use support::serve::{get, samples, Serve};

fn documented_metrics() -> BTreeSet<String> {
    let doc = std::fs::read_to_string(repo("docs/metrics.md")).unwrap();
    doc.lines().filter_map(|l| l.strip_prefix("| `")).filter_map(|l| l.split_once('`')).map(|(name, _)| name.to_string()).collect()
}

/// Metric names a PromQL expression selects: identifiers outside strings, label matchers,
/// ranges and grouping clauses that are not functions, keywords or aggregation modifiers.
fn metric_names(expr: &str) -> BTreeSet<String> {
    let mut s = String::new();
    // Strings, {...} matchers and [...] ranges out.
    let mut depth_brace = 0;
    let mut depth_bracket = 0;
    let mut in_str = None;
    for c in expr.chars() {
        match (in_str, c) {
            (Some(q), c) if c == q => in_str = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => in_str = Some(c),
            (None, '{') => depth_brace += 1,
            (None, '}') => depth_brace -= 1,
            (None, '[') => depth_bracket += 1,
            (None, ']') => depth_bracket -= 1,
            (None, c) if depth_brace == 0 && depth_bracket == 0 => s.push(c),
            _ => {}
        }
        if depth_brace > 0 || depth_bracket > 0 {
            s.push(' ');
        }
    }
    // Grouping clauses name labels, not metrics.
    let grouping = ["by", "without", "on", "ignoring", "group_left", "group_right"];
    let mut out = BTreeSet::new();
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut skip_parens = false;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphabetic() || c == '_' || c == ':' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_' || chars[i] == ':') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let next = chars[i..].iter().find(|c| !c.is_whitespace());
            if grouping.contains(&word.as_str()) {
                skip_parens = true;
                continue;
            }
            // Aggregations may put their grouping clause before the parenthesis: `sum by (x) (...)`.
            let aggregations =
                ["sum", "min", "max", "avg", "count", "group", "stddev", "stdvar", "topk", "bottomk", "quantile", "count_values"];
            let keyword =
                aggregations.contains(&word.as_str()) || ["and", "or", "unless", "bool", "offset", "inf", "nan"].contains(&word.as_str());
            if next != Some(&'(') && !keyword && !(start > 0 && chars[start - 1].is_ascii_digit()) {
                out.insert(word);
            }
            continue;
        }
        if c == '(' && skip_parens {
            // Skip the label list of a grouping clause.
            while i < chars.len() && chars[i] != ')' {
                i += 1;
            }
            skip_parens = false;
        }
        i += 1;
    }
    out
}

#[test]
fn promql_metric_name_extraction() {
    // Hand-checked against the PromQL grammar: functions, grouping labels, matchers, ranges out.
    let names = metric_names(
        r#"sum by (verdict) (rate(optics_lane_corrected_bits_total{lane="4",x=~"a{b}"}[5m])) * on(instance) group_left(lane) up"#,
    );
    assert_eq!(names, ["optics_lane_corrected_bits_total", "up"].iter().map(|s| s.to_string()).collect());
    assert!(metric_names(r#"max(count by (instance) ({__name__=~"optics_.+"}))"#).is_empty());
}

#[test]
fn dashboard_is_json_and_names_only_exported_metrics() {
    let text = std::fs::read_to_string(repo("deploy/grafana/optics-dashboard.json")).unwrap();
    let dash: Value = serde_json::from_str(&text).expect("the dashboard is valid JSON");
    let exported = documented_metrics();
    assert!(exported.len() >= 30, "docs/metrics.md lists the contract: {exported:?}");
    let mut exprs = Vec::new();
    for p in dash["panels"].as_array().unwrap() {
        for t in p["targets"].as_array().unwrap() {
            exprs.push(t["expr"].as_str().unwrap().to_string());
        }
    }
    for v in dash["templating"]["list"].as_array().unwrap() {
        if let Some(q) = v["query"].as_str().and_then(|q| q.strip_prefix("label_values(")) {
            exprs.push(q.rsplit_once(',').unwrap().0.to_string());
        }
    }
    assert!(exprs.len() >= 10);
    let text = exprs.join("\n");
    for want in ["optics_interface_verdict", "bottomk(20, optics_lane_margin_db)", "optics_lane_pre_fec_ber", "optics_lane_rx_power_dbm"] {
        assert!(text.contains(want), "dashboard lacks {want}");
    }
    for e in &exprs {
        for name in metric_names(e) {
            assert!(exported.contains(&name), "dashboard expression {e:?} names {name}, which optics does not export");
        }
    }
}

#[test]
fn rules_name_only_exported_metrics() {
    let text = std::fs::read_to_string(repo("deploy/prometheus/optics-rules.yml")).unwrap();
    let exported = documented_metrics();
    // Every `expr:` block, single line or `|` block.
    let mut exprs: Vec<String> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if let Some(rest) = l.trim_start().strip_prefix("expr:") {
            let mut e = rest.trim().trim_start_matches('|').to_string();
            while lines.peek().is_some_and(|n| n.starts_with("          ") && !n.trim_start().contains(": ")) {
                e.push(' ');
                e.push_str(lines.next().unwrap().trim());
            }
            exprs.push(e);
        }
    }
    assert_eq!(exprs.len(), 22);
    for e in &exprs {
        for name in metric_names(e) {
            assert!(exported.contains(&name) || name == "up", "rule {e:?} names {name}, which optics does not export");
        }
    }
}

#[test]
fn promtool_checks_and_tests_the_shipped_rules() {
    if !have("promtool") {
        return;
    }
    let dir = repo("deploy/prometheus");
    for args in [&["check", "rules", "optics-rules.yml"][..], &["test", "rules", "optics-rules.test.yml"][..]] {
        let out = Command::new("promtool").args(args).current_dir(&dir).output().unwrap();
        assert!(
            out.status.success(),
            "promtool {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn metrics_body_passes_promtool_and_formats_follow_accept() {
    let serve = Serve::replay("sr4-200g-lane4-marginal.jsonl", 1000.0);
    serve.wait_ready();
    // Healthy after the first tick; lane counters need the second sample (an interval),
    // which a loaded machine may not have replayed yet.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let text = loop {
        let t = get(serve.addr, "/metrics", &[]).unwrap();
        if t.body.contains("optics_lane_corrected_bits") || std::time::Instant::now() > deadline {
            break t;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(text.status, 200);
    assert!(text.headers.to_ascii_lowercase().contains("content-type: text/plain; version=0.0.4"), "{}", text.headers);
    assert!(!text.body.contains("# EOF"));
    let om = get(serve.addr, "/metrics", &[("Accept", "application/openmetrics-text;version=1.0.0,text/plain;q=0.5")]).unwrap();
    assert!(om.headers.contains("application/openmetrics-text; version=1.0.0"), "{}", om.headers);
    assert!(om.body.ends_with("# EOF\n"));
    // Counters: `_total` in 0.0.4 metadata, bare family name in OpenMetrics.
    assert!(text.body.contains("# TYPE optics_lane_corrected_bits_total counter"));
    assert!(om.body.contains("# TYPE optics_lane_corrected_bits counter"));
    assert_eq!(get(serve.addr, "/nope", &[]).unwrap().status, 404);
    let page = get(serve.addr, "/", &[]).unwrap();
    assert!(page.body.contains("<td>ens3np0</td><td>investigate</td><td>4</td>"), "{}", page.body);

    if !have("promtool") {
        return;
    }
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.body.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // The only lint allowed: `_bits` names (the contract; FEC counts bits, not bytes).
    for line in report.lines().filter(|l| !l.trim().is_empty()) {
        assert!(line.contains("use base unit \"bytes\" instead of \"bits\""), "promtool check metrics: {line}");
    }
    let code = out.status.code();
    assert!(code == Some(0) || (code == Some(3) && !report.is_empty()), "promtool failed to parse: {code:?} {report}");
}

#[test]
fn systemd_units_verify() {
    if !have("systemd-analyze") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = support::serve::bin();
    for unit in ["optics.service", "optics-scan.service", "optics-scan.timer"] {
        let text = std::fs::read_to_string(repo(&format!("deploy/systemd/{unit}"))).unwrap();
        // The units name the installed path; verify them against the binary just built.
        std::fs::write(dir.path().join(unit), text.replace("/usr/local/bin/optics", bin.to_str().unwrap())).unwrap();
    }
    let svc = std::fs::read_to_string(repo("deploy/systemd/optics.service")).unwrap();
    for want in
        ["DynamicUser=yes", "AmbientCapabilities=CAP_NET_ADMIN", "ProtectSystem=strict", "NoNewPrivileges=yes", "Restart=on-failure"]
    {
        assert!(svc.lines().any(|l| l == want), "optics.service lacks {want}");
    }
    let out = Command::new("systemd-analyze")
        .args(["verify", "--man=no", "optics.service", "optics-scan.service", "optics-scan.timer"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "systemd-analyze verify: {report}");
}

#[test]
fn prometheus_fires_fec_hiding_for_lane_4_of_the_marginal_link_only() {
    if !have("prometheus") {
        return;
    }
    // The 60 s captures replayed at 10x: the verdict is in after ~6 s and stays.
    let marginal = Serve::replay("sr4-200g-lane4-marginal.jsonl", 10.0);
    let healthy = Serve::replay("sr4-200g-healthy.jsonl", 10.0);
    let (m, h) = (marginal.addr.to_string(), healthy.addr.to_string());
    let prom = Prometheus::start(&[m.clone(), h.clone()]);
    let deadline = Instant::now() + Duration::from_secs(45);
    let mut last = Value::Null;
    let firing = loop {
        if Instant::now() > deadline {
            let log = std::fs::read_to_string(prom.dir().join("prometheus.log")).unwrap_or_default();
            let flags = prom.api("/api/v1/query?query=optics_lane_flag");
            panic!("no FEC-hiding alert for lane 4 within 45 s; last /api/v1/alerts: {last}\nflags in Prometheus: {flags:?}\nprometheus log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(500));
        let Some(v) = prom.api("/api/v1/alerts") else { continue };
        last = v.clone();
        let alerts = v["data"]["alerts"].as_array().cloned().unwrap_or_default();
        let hit = alerts.iter().find(|a| {
            let l = &a["labels"];
            l["alertname"] == "OpticsFecHidingMarginalOptics" && l["interface"] == "ens3np0" && l["lane"] == "4" && a["state"] == "firing"
        });
        if let Some(a) = hit {
            break (a.clone(), alerts);
        }
    };
    let (alert, _) = &firing;
    assert_eq!(alert["labels"]["instance"], m.as_str());
    let summary = alert["annotations"]["summary"].as_str().unwrap();
    assert!(summary.contains("ens3np0 lane 4"), "{summary}");
    // The healthy exporter has been scraped too (its verdict is accept), and no FEC-hiding
    // alert names it, in any state.
    let q = prom.api(&format!("/api/v1/query?query=optics_interface_verdict%7Binstance%3D%22{h}%22%2Cverdict%3D%22accept%22%7D")).unwrap();
    let result = q["data"]["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(result.len(), 1, "healthy exporter not scraped: {q}");
    assert_eq!(result[0]["value"][1], "1");
    let alerts = prom.api("/api/v1/alerts").unwrap();
    for a in alerts["data"]["alerts"].as_array().unwrap() {
        let l = &a["labels"];
        assert!(!(l["alertname"] == "OpticsFecHidingMarginalOptics" && l["instance"] == h.as_str()), "healthy link alerted: {a}");
    }
    // Lane 3 is flagged too (21x its siblings); lanes 1 and 2 never.
    for a in alerts["data"]["alerts"].as_array().unwrap() {
        if a["labels"]["alertname"] == "OpticsFecHidingMarginalOptics" {
            assert!(a["labels"]["lane"] == "4" || a["labels"]["lane"] == "3", "{a}");
        }
    }
    drop(prom);
    // The exporters served throughout.
    let body = get(marginal.addr, "/metrics", &[]).unwrap().body;
    assert!(samples(&body).iter().any(|(s, v)| s.contains("flag=\"fec_hiding_marginal_optics\"") && s.contains("lane=\"4\"") && *v == 1.0));
}
