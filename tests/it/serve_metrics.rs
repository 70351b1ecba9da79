//! The metrics contract over real analyses: series count of an 8-port node, counters carried
//! across a hardware reset, docs/metrics.md equal to the code's list, the textfile route.

use optics::analysis::{analyze, Config, InterfaceAnalysis};
use optics::capture::{read_capture, Record};
use optics::output::metric::{Metric, MetricType};
use optics::output::prometheus::{window_label, Beside, ExporterStats, Metrics, Peaks};
use optics::sample::engine::{Engine, EngineConfig};
use std::collections::BTreeSet;
use std::path::Path;

fn capture(name: &str) -> optics::capture::Capture {
    read_capture(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)).unwrap()
}

fn analyses(name: &str) -> Vec<InterfaceAnalysis> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name);
    let (engine, _) = optics::sample::engine::replay(path, EngineConfig::default()).unwrap();
    analyze(&engine.windows(), &Config::default(), &[])
}

fn sample_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect()
}

#[test]
fn series_of_an_8_port_node_stay_under_1000() {
    // An 8-port node of 800G-DR8 ports (8 lanes each): the bundled healthy CMIS capture
    // as ens1..ens8, with the default rolling window (300 s).
    let one = analyses("dr8-800g-cmis-healthy.jsonl");
    assert_eq!(one[0].lanes.len(), 8);
    let node: Vec<InterfaceAnalysis> = (1..=8)
        .map(|i| {
            let mut a = one[0].clone();
            a.interface = format!("ens{i}");
            a
        })
        .collect();
    let rolling = vec![(window_label(300.0), node.clone())];
    let exp = Metrics::new().render(
        &node,
        &rolling,
        &ExporterStats { sample_duration_s: Some(0.01), last_sample_unix_s: Some(1.0), ..Default::default() },
    );
    let lines = sample_lines(&exp.text);
    assert_eq!(exp.series, lines.len());
    println!("series per 8-port node of 8 lanes: {}", exp.series);
    assert!(exp.series < 1000, "{} series", exp.series);
    // No label value is a per-sample number: every label value is an interface, a lane
    // number, or a word from a fixed vocabulary (module identity on optics_module_info).
    let distinct_series: BTreeSet<&str> = lines.iter().map(|l| l.rsplit_once(' ').unwrap().0).collect();
    assert_eq!(distinct_series.len(), lines.len(), "duplicate series");
    for l in &lines {
        let series = l.rsplit_once(' ').unwrap().0;
        if series.starts_with("optics_module_info") || series.starts_with("optics_build_info") || series.starts_with("optics_link_info") {
            continue;
        }
        for value in series.split('"').skip(1).step_by(2) {
            assert!(
                value.parse::<f64>().is_err() || value.parse::<u8>().is_ok_and(|n| (1..=8).contains(&n)),
                "per-sample label value {value:?} in {series}"
            );
        }
    }
}

#[test]
fn docs_list_exactly_the_exported_metrics() {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/metrics.md")).unwrap();
    let documented: BTreeSet<&str> =
        doc.lines().filter_map(|l| l.strip_prefix("| `")).filter_map(|l| l.split_once('`')).map(|(n, _)| n).collect();
    let code: BTreeSet<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
    assert_eq!(documented, code);
    for m in Metric::ALL {
        let spec = m.spec();
        let row = doc.lines().find(|l| l.starts_with(&format!("| `{}`", spec.name))).unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let kind = match spec.kind {
            MetricType::Gauge => "gauge",
            MetricType::Counter => "counter",
        };
        assert_eq!(cells[2], kind, "{row}");
        let labels = if spec.labels.is_empty() { "(none)".to_string() } else { spec.labels.join(", ") };
        assert_eq!(cells[3], labels, "{row}");
    }
    // Every metric is exposed by some bundled capture (or the exporter itself).
    let mut all = Vec::new();
    for c in [
        "sr4-200g-lane4-marginal.jsonl",
        "sr4-200g-link-flaps.jsonl",
        "pcie-gen4-x4-of-x16.jsonl",
        "dr8-800g-cmis-healthy.jsonl",
        "dr4-400g-lane2-degrading-4h.jsonl",
        "dr4-400g-fec-tail-creeping.jsonl",
        "ib-ndr-errors-after-fec.jsonl",
    ] {
        all.extend(analyses(c));
    }
    // Host facts and pause and discard counters (tests/fixtures/host/README.md).
    let host = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/host/sr4-200g-host-pause.jsonl");
    let (engine, _) = optics::sample::engine::replay(host, EngineConfig::default()).unwrap();
    all.extend(analyze(&engine.windows(), &Config::default(), &[]));
    // An imported LLDP neighbor (no bundled capture has one): the far end's info series.
    all[0].neighbor =
        Some(optics::device::LinkNeighbor { system: Some("leaf7".into()), port: Some("Ethernet48".into()), ..Default::default() });
    // `serve`'s own: the windows, the interface count and the peaks of the last hour.
    let stats = ExporterStats {
        sample_duration_s: Some(0.01),
        last_sample_unix_s: Some(1.0),
        interfaces: Some(all.len()),
        judge_window_s: Some(900.0),
        trend_window_s: Some(21_600.0),
        ..Default::default()
    };
    let peaks = [Peaks { interface: "ens3np0".into(), lane_pre_fec_ber: vec![Some(1e-6)], predicted_flr: Some(1e-12) }];
    let text = Metrics::new().render_beside(&all, Beside { lifetime: None, peaks: &peaks }, &[], &stats).text;
    for name in code {
        assert!(text.contains(&format!("\n{name}{{")) || text.contains(&format!("\n{name} ")), "{name} never exposed");
    }
}

#[test]
fn corrected_bits_stay_monotonic_across_a_counter_reset() {
    // The capture's driver restarts its counters at t~30 s. Expected total per lane, from the
    // raw driver counters: (last - first) before the reset + (last - first) after it.
    let cap = capture("sr4-200g-counter-reset.jsonl");
    let lane_counter = |r: &Record, lane: usize| match r {
        Record::Sample(s) => s.driver_stats.get(format!("rx_err_lane_{}_phy", lane - 1).as_str()),
        _ => None,
    };
    let mut engine = Engine::new(EngineConfig::default());
    let mut metrics = Metrics::new();
    let cfg = Config::default();
    let mut last_total = [0u64; 5];
    for rec in &cap.records {
        engine.push(rec);
        if !matches!(rec, Record::Sample(_)) {
            continue;
        }
        let run = analyze(&engine.windows(), &cfg, &[]);
        let text = metrics.render(&run, &[], &ExporterStats::default()).text;
        for (lane, last) in last_total.iter_mut().enumerate().skip(1) {
            let key = format!("optics_lane_corrected_bits_total{{interface=\"ens3np0\",lane=\"{lane}\"}} ");
            if let Some(v) = text.lines().find_map(|l| l.strip_prefix(&key)) {
                let v: u64 = v.parse().unwrap();
                assert!(v >= *last, "lane {lane} went down: {} -> {v}", *last);
                *last = v;
            }
        }
    }
    for (lane, total) in last_total.iter().enumerate().skip(1) {
        let vals: Vec<u64> = cap.records.iter().filter_map(|r| lane_counter(r, lane)).collect();
        let reset = vals.windows(2).position(|w| w[1] < w[0]).expect("the capture has a reset") + 1;
        let expected = (vals[reset - 1] - vals[0]) + (vals[vals.len() - 1] - vals[reset]);
        assert_eq!(*total, expected, "lane {lane}");
    }
}

#[test]
fn textfile_is_written_whole_and_renamed_into_place() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("optics.prom");
    std::fs::write(&path, "old\n").unwrap();
    optics::output::prometheus::write_analyses_textfile(&path, &analyses("sr4-200g-lane4-marginal.jsonl")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("optics_lane_flag{interface=\"ens3np0\",lane=\"4\",flag=\"fec_hiding_marginal_optics\"} 1"));
    // Nothing else left in the directory (the temporary file was renamed).
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("optics.prom")]);
}
