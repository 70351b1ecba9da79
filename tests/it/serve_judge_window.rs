//! `optics serve` judges a window, not its whole life (docs/metrics.md "Windows"): through
//! the real binary replaying generated captures (tests/it/support/window_captures.rs), with
//! a real Prometheus server scraping it where one is installed.

use crate::support;
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};
use support::prometheus::{free_port, have, Prometheus};
use support::serve::{bin, get, samples, Serve};
use support::trend_captures::x_of_ber;
use support::window_captures::*;

fn metrics(serve: &Serve) -> Vec<(String, f64)> {
    samples(&get(serve.addr, "/metrics", &[]).map(|r| r.body).unwrap_or_default())
}

fn value(m: &[(String, f64)], series: &str) -> Option<f64> {
    m.iter().find(|(s, _)| s == series).map(|(_, v)| *v)
}

fn has_reason(m: &[(String, f64)], iface: &str, code: &str) -> bool {
    value(m, &format!("optics_interface_reason{{interface=\"{iface}\",code=\"{code}\"}}")) == Some(1.0)
}

fn verdict(m: &[(String, f64)], iface: &str, v: &str) -> bool {
    value(m, &format!("optics_interface_verdict{{interface=\"{iface}\",verdict=\"{v}\"}}")) == Some(1.0)
}

fn serve_capture(path: &std::path::Path, speed: f64, listen: &str, extra: &[&str]) -> Serve {
    let mut c = Command::new(bin());
    c.args(["serve", "--replay"]).arg(path).args(["--speed", &speed.to_string(), "--listen", listen]).args(extra);
    Serve::start(c)
}

#[test]
fn a_link_drop_rejects_while_in_the_judge_window_and_counts_for_ever() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("flap.jsonl");
    std::fs::write(&cap, flap_capture()).unwrap();
    // Prometheus first (when installed), scraping the port serve will listen on, so it sees
    // the few seconds of `reject` too.
    let port = free_port();
    let target = format!("127.0.0.1:{port}");
    let prom = have("prometheus").then(|| Prometheus::start(std::slice::from_ref(&target)));
    if let Some(p) = &prom {
        // Ready, and the target scraped once (down: nothing listens yet), so the scrapes
        // run every second from the exporter's first tick on.
        assert!(p.wait_ready(), "prometheus never became ready: {}", p.log());
        let deadline = Instant::now() + Duration::from_secs(30);
        while p.scalar(&format!("up{{instance=\"{target}\"}}")).is_none() {
            assert!(Instant::now() < deadline, "prometheus never scraped {target}: {}", p.log());
            std::thread::sleep(Duration::from_millis(100));
        }
    }
    // 31 min at 60x: 31 s. The drop at t=30 s is counted by the sample at t=30 s, 0.5 s in.
    let speed = 60.0;
    let serve = serve_capture(&cap, speed, &target, &["--judge-window", "5m"]);
    let start = Instant::now();
    let iface = "ens3np0";
    // Reject (link_flaps) within a minute of the drop: by t = 90 s of the capture, 1.5 s in
    // at 60x (plus a second of slack for a loaded machine).
    let mut rejected_at = None;
    while start.elapsed() < Duration::from_secs(10) {
        let m = metrics(&serve);
        if verdict(&m, iface, "reject") && has_reason(&m, iface, "link_flaps") {
            rejected_at = Some(start.elapsed());
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let rejected_at = rejected_at.unwrap_or_else(|| panic!("no reject with link_flaps: {}", serve.stderr.lock().unwrap()));
    let due = Duration::from_secs_f64((FLAP_T_S as f64 + 60.0) / speed + 1.0);
    assert!(rejected_at <= due, "reject seen {rejected_at:?} after start, due by {due:?}");
    // Once the drop is more than 5 min old (t > 330 s, 5.5 s in): accept, no link_flaps,
    // and the lifetime counter still holds the one drop.
    let mut accepted = None;
    while start.elapsed() < Duration::from_secs(40) {
        let m = metrics(&serve);
        if start.elapsed() > Duration::from_secs_f64((FLAP_T_S as f64 + 300.0) / speed) && verdict(&m, iface, "accept") {
            accepted = Some(m);
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let m = accepted.unwrap_or_else(|| panic!("never accepted after the drop left the window: {}", serve.stderr.lock().unwrap()));
    assert!(!has_reason(&m, iface, "link_flaps"));
    assert_eq!(value(&m, &format!("optics_link_down_events_total{{interface=\"{iface}\"}}")), Some(1.0));
    assert_eq!(value(&m, "optics_judge_window_seconds"), Some(300.0));
    assert_eq!(value(&m, "optics_interfaces"), Some(1.0));
    // Prometheus saw both: a reject in the last minutes, accept now, and the one drop.
    let Some(prom) = prom else { return };
    let deadline = Instant::now() + Duration::from_secs(30);
    let q_reject = format!("max_over_time(optics_interface_verdict{{interface=\"{iface}\",verdict=\"reject\"}}[5m])");
    let q_accept = format!("optics_interface_verdict{{interface=\"{iface}\",verdict=\"accept\"}}");
    let q_drops = format!("optics_link_down_events_total{{interface=\"{iface}\"}}");
    loop {
        let seen = (prom.scalar(&q_reject), prom.scalar(&q_accept), prom.scalar(&q_drops));
        if seen == (Some(1.0), Some(1.0), Some(1.0)) {
            break;
        }
        assert!(Instant::now() < deadline, "Prometheus saw (reject in 5m, accept now, drops) = {seen:?}\n{}", prom.log());
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Lane `lane` of `scan --json` for the capture's one interface (lanes are listed weakest first).
fn scan_lane(cap: &std::path::Path, from: f64, lane: usize) -> Value {
    let out = Command::new(bin()).args(["scan", "--replay"]).arg(cap).args(["--from", &from.to_string(), "--json"]).output().unwrap();
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("scan --json: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    let ifaces = v["interfaces"].as_array().cloned().unwrap_or_else(|| v.as_array().cloned().unwrap_or_default());
    ifaces[0]["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == lane).cloned().unwrap()
}

#[test]
fn a_lane_that_degrades_late_is_judged_on_the_last_15_minutes() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("late.jsonl");
    let text = late_capture();
    std::fs::write(&cap, &text).unwrap();
    let port = free_port();
    let target = format!("127.0.0.1:{port}");
    let prom = have("prometheus").then(|| Prometheus::start(std::slice::from_ref(&target)));
    // 2 h at 3600x: 2 s; the default judgement window (15 min).
    let serve = serve_capture(&cap, 3600.0, &target, &[]);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !serve.stderr.lock().unwrap().contains("replay finished") {
        assert!(Instant::now() < deadline, "replay never finished: {}", serve.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(100));
    }
    let m = metrics(&serve);
    let iface = "ens5np0";
    let lane = LATE_LANE;
    let margin = value(&m, &format!("optics_lane_margin_db{{interface=\"{iface}\",lane=\"{lane}\"}}")).expect("lane 2 margin");
    // What scan says of the last 15 min of the same records.
    let from = LATE_SPAN_S - 15.0 * 60.0;
    let scan_margin = scan_lane(&cap, from, lane)["margin_db"].as_f64().unwrap();
    assert!((margin - scan_margin).abs() <= 0.1, "serve {margin} dB vs scan --from {from}: {scan_margin} dB");
    // And what the generator put there: the 15 min's corrected bits over the lane's bits
    // on the wire (106.25 Gb/s x 900 s), through the PAM4 Q model (0.75 Q(x) = BER,
    // margin = 10 log10(x / x_limit), x_limit at the RS(544,514) limit 2.4e-4).
    let bits: u64 = (1..=90).map(|i| late_interval_bits(lane, from + LATE_STEP_S * f64::from(i))).sum();
    let ber = bits as f64 / (106.25e9 * 900.0);
    let expected = 10.0 * (x_of_ber(ber) / x_of_ber(2.4e-4)).log10();
    assert!((margin - expected).abs() <= 0.1, "serve {margin} dB vs the generator's {expected} dB (BER {ber:e})");
    // The whole run would have said otherwise: 100 of its 120 minutes at 2.4 dB.
    let whole = scan_lane(&cap, 0.0, lane)["margin_db"].as_f64().unwrap();
    assert!(whole - margin > 0.3, "the whole run's margin {whole} dB is not above the window's {margin} dB");
    // Under the 1.0 dB floor: flagged.
    assert_eq!(value(&m, &format!("optics_lane_flag{{interface=\"{iface}\",lane=\"{lane}\",flag=\"low_margin\"}}")), Some(1.0));
    // The rx gauge is the last sample's reading (CMIS 5.2 Table 8-82), not a mean.
    let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
    let rx_last = cmis_sample_rx_dbm(&last, lane).unwrap();
    let rx = value(&m, &format!("optics_lane_rx_power_dbm{{interface=\"{iface}\",lane=\"{lane}\"}}")).unwrap();
    assert!((rx - rx_last).abs() < 1e-3, "rx gauge {rx} dBm, last sample {rx_last} dBm");
    // The peak of the last hour is at least the judgement window's BER.
    let ber_run = value(&m, &format!("optics_lane_pre_fec_ber{{interface=\"{iface}\",lane=\"{lane}\",window=\"run\"}}")).unwrap();
    let ber_max = value(&m, &format!("optics_lane_pre_fec_ber_max{{interface=\"{iface}\",lane=\"{lane}\",window=\"1h\"}}")).unwrap();
    assert!(ber_max >= ber_run, "1h max {ber_max:e} under the window's {ber_run:e}");
    let Some(prom) = prom else { return };
    let q = format!("optics_lane_margin_db{{interface=\"{iface}\",lane=\"{lane}\"}}");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if prom.scalar(&q).is_some_and(|v| (v - margin).abs() < 1e-9) {
            break;
        }
        assert!(Instant::now() < deadline, "Prometheus never saw lane 2's margin {margin}: {:?}\n{}", prom.scalar(&q), prom.log());
        std::thread::sleep(Duration::from_millis(500));
    }
}

#[test]
fn a_judge_window_shorter_than_three_samples_is_refused() {
    let out = Command::new(bin())
        .args(["serve", "--interval", "10s", "--judge-window", "20s", "--listen", "127.0.0.1:0", "lo"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--judge-window") && err.contains("3 sample intervals"), "{err}");
}
