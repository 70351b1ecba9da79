//! A switch's FEC counters as SONiC prints them (real outputs, tests/fixtures/switch/README.md
//! and tests/fixtures/fec-histogram/README.md): `show interfaces counters fec-stats` in the
//! layouts of four releases and `show interfaces counters fec-histogram` for all ports and for
//! one. Every value checked is read off the text by hand.

use crate::support::optics;
use serde_json::Value;
use std::path::Path;

/// `optics import ARGS -o cap`: the sample records by interface, and stderr.
fn import(args: &[&str]) -> (Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.jsonl");
    let o = optics().arg("import").args(args).arg("-o").arg(&cap).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{args:?}: {err}");
    let samples = std::fs::read_to_string(&cap)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["record"] == "sample")
        .collect();
    (samples, err)
}

fn port<'a>(samples: &'a [Value], name: &str) -> &'a Value {
    samples.iter().find(|s| s["interface"] == name).unwrap_or_else(|| panic!("no {name}"))
}

fn fixture(dir: &str, name: &str) -> String {
    Path::new("tests/fixtures").join(dir).join(name).display().to_string()
}

#[test]
fn fec_stats_of_the_first_layout_with_its_cached_baseline() {
    let (s, err) = import(&[&fixture("switch", "sonic_fec_stats_pr2027.txt")]);
    assert_eq!(s.len(), 2);
    let e0 = port(&s, "Ethernet0");
    // `136,403` codewords corrected, 34 not, 40 symbol errors; state U.
    assert_eq!(e0["fec"]["corrected_blocks"], serde_json::json!([136403]));
    assert_eq!(e0["fec"]["uncorrectable_blocks"], serde_json::json!([34]));
    assert_eq!(e0["driver_stats"]["sonic_fec_symbol_err"], 40);
    assert_eq!(e0["link"]["up"], true);
    assert_eq!(port(&s, "Ethernet8")["link"]["up"], false);
    assert!(err.contains("cached baseline of 2022-07-29 19:34:08"), "{err}");
}

#[test]
fn fec_stats_keeps_sonics_ber_columns_as_printed() {
    let (s, _) = import(&[&fixture("switch", "sonic_fec_stats_pr3757.txt")]);
    assert_eq!(s.len(), 7);
    let e48 = port(&s, "Ethernet48");
    assert_eq!(e48["fec"]["corrected_blocks"], serde_json::json!([48315381]));
    assert_eq!(e48["driver_stats"]["sonic_fec_symbol_err"], 48308608);
    let p = &e48["printed_fields"];
    assert_eq!((p["fec-stats/FEC_PRE_BER"].as_str(), p["fec-stats/FEC_PRE_BER_MAX"].as_str()), (Some("7.24e-10"), Some("2.35e-09")));
    assert_eq!(p["fec-stats/FEC_POST_BER"], "0.00e+00");
}

#[test]
fn fec_stats_with_flr_and_max_t_columns() {
    let (s, _) = import(&[&fixture("switch", "sonic_fec_stats_flr_pr4124.txt")]);
    let e3 = port(&s, "Ethernet3");
    assert_eq!((e3["fec"]["corrected_blocks"][0].as_u64(), e3["fec"]["uncorrectable_blocks"][0].as_u64()), (Some(88), Some(4)));
    assert_eq!(e3["printed_fields"]["fec-stats/FLR(O)"], "N/A");
    // sonic-utilities' own expected output: `FLR(P) (Accuracy)` and its `7.81e-10 (89%)` cell
    // are one column each; a state `N/A` is no link state.
    let (s, _) = import(&[&fixture("switch", "sonic_fec_stats_max_t_portstat_test.txt")]);
    assert_eq!(s.len(), 4);
    let e0 = port(&s, "Ethernet0");
    assert_eq!(e0["printed_fields"]["fec-stats/FLR(P) (Accuracy)"], "7.81e-10 (89%)");
    assert_eq!(e0["printed_fields"]["fec-stats/FEC_MAX_T"], "-1.0");
    assert_eq!(e0["fec"]["corrected_blocks"][0], 130402);
    assert_eq!(e0["link"]["up"], false);
    assert!(port(&s, "Ethernet4")["link"]["up"].is_null(), "{}", port(&s, "Ethernet4"));
}

fn bins(sample: &Value) -> Vec<(u64, u64)> {
    sample["fec"]["histogram"].as_array().unwrap().iter().map(|b| (b["low"].as_u64().unwrap(), b["count"].as_u64().unwrap())).collect()
}

#[test]
fn fec_histogram_of_every_port_and_of_one() {
    let (s, _) = import(&[&fixture("fec-histogram", "sonic_portstat_fh_pr4075.txt")]);
    assert_eq!(s.len(), 4);
    let b = bins(port(&s, "Ethernet24"));
    assert_eq!(b.len(), 16);
    assert_eq!(&b[..3], [(0, 4_374_594_305), (1, 57_484), (2, 502)]);
    assert!(b[3..].iter().all(|(_, c)| *c == 0));
    // One port's table names no port: --interface names it.
    let (s, _) = import(&["--interface", "Ethernet48", &fixture("fec-histogram", "sonic_show_fec_histogram_pr3919_ethernet48.txt")]);
    let b = bins(port(&s, "Ethernet48"));
    assert_eq!(&b[..3], [(0, 78_924_019_231), (1, 118_358), (2, 279)]);
    // 78924019231 + 118358 + 279 codewords in all.
    assert_eq!(b.iter().map(|(_, c)| c).sum::<u64>(), 78_924_137_868);
}

#[test]
fn a_row_cut_by_the_paste_is_said_and_a_table_of_none_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("fec.txt");
    std::fs::write(&f, "      IFACE    STATE    FEC_CORR    FEC_UNCORR    FEC_SYMBOL_ERR\n  Ethernet0        U     136,403\n").unwrap();
    let o = optics().arg("import").arg(&f).arg("-o").arg(dir.path().join("c.jsonl")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(err.contains("no port row") && err.contains("fec-stats"), "{err}");
}
