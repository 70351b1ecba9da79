//! CSV rows of InfiniBand ports: the `ib_` columns (docs/csv-format.md) on the bundled IB
//! captures replayed through `export --csv`.
//!
//! Expected values come from how the captures were made (captures/README.md,
//! support/ib_captures.rs): one sample a second for 60 s; the failing port gains 2 symbol
//! errors a second, one link error recovery at 15 s and at 35 s, one link down at 45 s, and
//! its `local_link_integrity_errors` stays at 15, the most a 4-bit `PortCounters` field holds
//! (IBTA Vol 1 16.1.3.5), so every row names it saturated.

use crate::support::optics;
use std::path::Path;

/// The columns before the IB ones, which a CSV user already reads: never moved.
const LAST_EARLIER_COLUMN: &str = "rx_out_of_buffer_per_s";

const IB_COLUMNS: [&str; 9] = [
    "ib_symbol_error_delta",
    "ib_symbol_errors_per_s",
    "ib_link_downed_delta",
    "ib_link_error_recovery_delta",
    "ib_port_rcv_errors_delta",
    "ib_port_rcv_remote_physical_errors_delta",
    "ib_local_link_integrity_errors_delta",
    "ib_excessive_buffer_overrun_errors_delta",
    "ib_saturated",
];

/// The header and rows of `export --csv` of bundled capture `name`.
fn export(name: &str) -> (Vec<String>, Vec<csv::StringRecord>) {
    let cap = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name);
    let out = optics().arg("export").arg(&cap).arg("--csv").arg("-").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut rdr = csv::Reader::from_reader(&out.stdout[..]);
    let headers = rdr.headers().unwrap().iter().map(str::to_string).collect();
    (headers, rdr.records().map(|r| r.expect("whole row")).collect())
}

#[test]
fn ib_rows_carry_symbol_errors_per_second_and_at_least_flags() {
    let (headers, rows) = export("ib-ndr-errors-after-fec.jsonl");
    let at = headers.iter().position(|h| h == LAST_EARLIER_COLUMN).unwrap();
    assert_eq!(&headers[at + 1..at + 1 + IB_COLUMNS.len()], &IB_COLUMNS[..], "appended after the earlier columns, in order");
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    // 61 samples (t = 0..60 s), no lanes: one row each.
    assert_eq!(rows.len(), 61);
    // The first sample has no interval: every IB cell empty.
    assert!(IB_COLUMNS.iter().all(|c| rows[0][col(c)].is_empty()));
    let mut symbol_errors = 0;
    for row in &rows[1..] {
        let t: f64 = row[col("t")].parse().unwrap();
        let cell = |c: &str| row[col(c)].to_string();
        assert_eq!(cell("interval_s"), "1.0");
        assert_eq!(cell("ib_symbol_error_delta"), "2", "t={t}");
        symbol_errors += 2;
        // 2 errors over 1 s.
        assert_eq!(cell("ib_symbol_errors_per_s").parse::<f64>().unwrap(), 2.0);
        assert_eq!(cell("ib_link_error_recovery_delta"), if t == 15.0 || t == 35.0 { "1" } else { "0" }, "t={t}");
        assert_eq!(cell("ib_link_downed_delta"), if t == 45.0 { "1" } else { "0" }, "t={t}");
        // link_downed is the port's link-down count too.
        assert_eq!(cell("link_down_events_delta"), cell("ib_link_downed_delta"));
        for quiet in ["ib_port_rcv_errors_delta", "ib_port_rcv_remote_physical_errors_delta", "ib_excessive_buffer_overrun_errors_delta"] {
            assert_eq!(cell(quiet), "0", "{quiet} t={t}");
        }
        // Stuck at 15 = 2^4 - 1: no increase seen, and that 0 is only a lower bound.
        assert_eq!(cell("ib_local_link_integrity_errors_delta"), "0");
        assert_eq!(cell("ib_saturated"), "local_link_integrity_errors");
    }
    assert_eq!(symbol_errors, 120);
}

#[test]
fn a_quiet_ib_port_has_zeros_and_ethernet_rows_have_no_ib_cells() {
    let (headers, rows) = export("ib-ndr-healthy.jsonl");
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    for row in &rows[1..] {
        for c in &IB_COLUMNS[..IB_COLUMNS.len() - 1] {
            assert_eq!(row[col(c)].parse::<f64>().unwrap(), 0.0, "{c}");
        }
        assert_eq!(&row[col("ib_saturated")], "");
    }
    // An Ethernet port has none of these counters: empty, never 0.
    let (headers, rows) = export("sr4-200g-link-flaps.jsonl");
    let col = |name: &str| headers.iter().position(|h| h == name).unwrap();
    assert!(rows.iter().all(|r| IB_COLUMNS.iter().all(|c| r[col(c)].is_empty())));
}
