//! InfiniBand ports through the exporter: the bundled IB captures (captures/README.md,
//! built from real ibstat/perfquery values) exported as metrics, and a real Prometheus
//! running the shipped rules over two replaying exporters: the IB alerts fire for the port
//! with errors after FEC and stay silent for the healthy one.
//!
//! Expected values from the generator's arithmetic (tests/it/support/ib_captures.rs), not
//! from optics: over 60 s, 2 symbol errors a second are 120; two recoveries; one link
//! down; 1e9 data units a second of 4 octets are 240e9 bytes; 976,562 packets a second are
//! 58,593,720; local_link_integrity_errors reads 15, all ones in 4 bits.

use crate::support;
use serde_json::Value;
use std::process::Command;
use std::time::{Duration, Instant};
use support::prometheus::{free_port, have, Prometheus};
use support::serve::{bin, capture, get, samples, Serve};

fn metrics_of(capture_name: &str) -> Vec<(String, f64)> {
    let out = support::optics().args(["scan", "--replay"]).arg(capture(capture_name)).args(["--prometheus", "-"]).output().unwrap();
    samples(&String::from_utf8(out.stdout).unwrap())
}

fn value(all: &[(String, f64)], series: &str) -> f64 {
    all.iter().find(|(s, _)| s == series).unwrap_or_else(|| panic!("no {series}")).1
}

#[test]
fn an_ib_port_is_exported_with_its_counters_and_their_ceilings() {
    let m = metrics_of("ib-ndr-errors-after-fec.jsonl");
    let i = r#"interface="mlx5_0/1""#;
    assert_eq!(value(&m, &format!("optics_ib_symbol_errors_total{{{i}}}")), 120.0);
    assert_eq!(value(&m, &format!("optics_ib_link_error_recoveries_total{{{i}}}")), 2.0);
    assert_eq!(value(&m, &format!("optics_link_down_events_total{{{i}}}")), 1.0);
    assert_eq!(value(&m, &format!("optics_ib_port_rcv_data_bytes_total{{{i}}}")), 240e9);
    assert_eq!(value(&m, &format!("optics_ib_port_xmit_packets_total{{{i}}}")), 58_593_720.0);
    assert_eq!(value(&m, &format!("optics_ib_port_rcv_errors_total{{{i}}}")), 0.0);
    assert_eq!(value(&m, &format!(r#"optics_ib_port_info{{{i},hca="mlx5_0",port="1",speed="NDR",width="4X"}}"#)), 1.0);
    // 4X NDR: 4 x 100 Gb/s; ACTIVE is up.
    assert_eq!(value(&m, &format!("optics_link_speed_bits_per_second{{{i}}}")), 400e9);
    assert_eq!(value(&m, &format!("optics_link_up{{{i}}}")), 1.0);
    // The 4-bit counter at 15 is saturated, every other counter read is not.
    let sat: Vec<(&str, f64)> = m
        .iter()
        .filter_map(|(s, v)| Some((s.strip_prefix("optics_ib_counter_saturated{")?.split("counter=\"").nth(1)?.split('"').next()?, *v)))
        .collect();
    assert_eq!(sat.iter().filter(|(_, v)| *v == 1.0).map(|(c, _)| *c).collect::<Vec<_>>(), ["local_link_integrity_errors"]);
    assert!(sat.len() >= 12 && sat.iter().any(|(c, v)| *c == "symbol_error" && *v == 0.0), "{sat:?}");
    for code in ["uncorrectable_errors", "link_flaps", "link_error_recovery", "counter_saturated"] {
        assert_eq!(value(&m, &format!(r#"optics_interface_reason{{{i},code="{code}"}}"#)), 1.0, "{code}");
    }

    let healthy = metrics_of("ib-ndr-healthy.jsonl");
    assert_eq!(value(&healthy, &format!("optics_ib_symbol_errors_total{{{i}}}")), 0.0);
    assert_eq!(value(&healthy, &format!(r#"optics_interface_verdict{{{i},verdict="accept"}}"#)), 1.0);
    assert!(healthy.iter().filter(|(s, _)| s.starts_with("optics_ib_counter_saturated")).all(|(_, v)| *v == 0.0));
}

/// `optics serve --replay CAPTURE --speed SPEED` on a port chosen before Prometheus starts.
fn serve_on(port: u16, capture_name: &str, speed: f64) -> Serve {
    let mut c = Command::new(bin());
    c.args(["serve", "--replay", &capture(capture_name), "--speed", &speed.to_string(), "--listen", &format!("127.0.0.1:{port}")]);
    Serve::start(c)
}

const IB_ALERTS: [&str; 4] = ["OpticsIbSymbolErrors", "OpticsIbLinkErrorRecovery", "OpticsIbCounterSaturated", "OpticsLinkFlaps"];

#[test]
fn prometheus_fires_the_ib_rules_on_the_failing_port_only() {
    if !have("prometheus") {
        return;
    }
    // The counters' rises are alerts only where Prometheus saw the value before them, so
    // Prometheus scrapes first and the exporters start after it is up: on a loaded machine a
    // replay that finished before the first scrape would show flat counters. At 4x the 60 s
    // captures take 15 s: recoveries at 3.75 s and 8.75 s, the link down at 11.25 s, symbol
    // errors all along.
    let (fp, hp) = (free_port(), free_port());
    let (failing_addr, healthy_addr) = (format!("127.0.0.1:{fp}"), format!("127.0.0.1:{hp}"));
    let prom = Prometheus::start(&[failing_addr.clone(), healthy_addr.clone()]);
    let ready = Instant::now() + Duration::from_secs(60);
    while prom.api("/api/v1/query?query=up").is_none() {
        assert!(Instant::now() < ready, "prometheus not up in 60 s: {}", prom.log());
        std::thread::sleep(Duration::from_millis(200));
    }
    let failing = serve_on(fp, "ib-ndr-errors-after-fec.jsonl", 4.0);
    let healthy = serve_on(hp, "ib-ndr-healthy.jsonl", 4.0);
    let deadline = Instant::now() + Duration::from_secs(90);
    let firing = |alerts: &[Value], name: &str, instance: &str| {
        alerts.iter().any(|a| {
            let l = &a["labels"];
            l["alertname"] == name && l["instance"] == instance && l["interface"] == "mlx5_0/1" && a["state"] == "firing"
        })
    };
    loop {
        let alerts = prom.api("/api/v1/alerts").map(|v| v["data"]["alerts"].as_array().cloned().unwrap_or_default()).unwrap_or_default();
        if IB_ALERTS.iter().all(|n| firing(&alerts, n, &failing_addr)) {
            break;
        }
        assert!(Instant::now() < deadline, "IB alerts not all firing in 90 s; last alerts: {alerts:?}\nprometheus log:\n{}", prom.log());
        std::thread::sleep(Duration::from_millis(500));
    }
    let alerts = prom.api("/api/v1/alerts").unwrap()["data"]["alerts"].as_array().cloned().unwrap();
    let symbol = alerts.iter().find(|a| a["labels"]["alertname"] == "OpticsIbSymbolErrors").unwrap();
    assert_eq!(symbol["labels"]["severity"], "critical");
    assert!(symbol["annotations"]["summary"].as_str().unwrap().contains("mlx5_0/1 lane all"), "{symbol}");
    // The healthy port was scraped (accept) and is named by no alert in any state.
    let q = prom
        .api(&format!("/api/v1/query?query=optics_interface_verdict%7Binstance%3D%22{healthy_addr}%22%2Cverdict%3D%22accept%22%7D"))
        .unwrap();
    assert_eq!(q["data"]["result"][0]["value"][1], "1", "{q}");
    for a in &alerts {
        assert_ne!(a["labels"]["instance"], healthy_addr.as_str(), "the healthy IB port alerted: {a}");
    }
    drop(prom);
    // Both exporters served throughout.
    assert!(get(failing.addr, "/metrics", &[]).unwrap().body.contains("optics_ib_symbol_errors_total"));
    assert!(get(healthy.addr, "/metrics", &[]).unwrap().body.contains("optics_ib_port_info"));
}
