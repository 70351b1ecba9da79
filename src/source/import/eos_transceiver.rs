//! Arista EOS `show interfaces transceiver [detail]`. The plain view is one table, one row per
//! interface: `Port  Temp  Voltage  Bias  Tx Power  Rx Power  Last Update` (Celsius, Volts,
//! mA, dBm, dBm). `detail` prints one table per monitor (`Temperature`, `Voltage`, `Current`,
//! `Tx Power`, `Rx Power`), each row the value and its `High Alarm  High Warn  Low Alarm  Low
//! Warn` thresholds. `N/A` is no value. A multi-lane module prints a row per lane named by the
//! lane's interface (`Et3/17/1`, `Et3/17/2`, ...) with the module's one temperature and
//! voltage on each: rows numbered 1, 2, 3, ... under one prefix with the same temperature and
//! voltage are the lanes of one module, named by its first interface (`Ethernet3/17/1`). A
//! 4x25G breakout of one module reads the same way (its lanes under the first interface: pair
//! a host port with its lane by `--lane-map`). Layouts checked on the outputs in
//! tests/fixtures/switch/.

use super::{Fragment, ParseError, ParseResult};
use crate::module::flag::Severity;
use crate::module::printed::{LimitsSeen, Monitor, PrintedModule};
use crate::module::units::dbm_to_mw;
use std::collections::HashMap;

pub(crate) const TOOL: &str = "eos show interfaces transceiver";

/// The column heading line of the plain table.
fn is_heading(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("Port") && l.contains("(Celsius)") && l.contains("(dBm)")
}

/// The threshold heading line of `detail`'s tables.
fn is_detail_heading(line: &str) -> bool {
    line.contains("High Alarm") && line.contains("Low Warn")
}

pub(crate) fn is_eos_transceiver(text: &str) -> bool {
    let plain = text.lines().any(is_heading) && text.lines().any(|l| l.contains("Tx Power") && l.contains("Rx Power"));
    plain || (text.lines().any(is_detail_heading) && text.lines().any(|l| l.trim_start().starts_with("Port")))
}

/// `Et3/17/1` -> `Ethernet3/17/1` (EOS's own long name).
fn long_name(port: &str) -> String {
    match port.strip_prefix("Et") {
        Some(rest) if !rest.starts_with("hernet") => format!("Ethernet{rest}"),
        _ => port.to_string(),
    }
}

fn cell(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// The monitors, in the order of the plain table's columns after the port.
const COLUMNS: [Monitor; 5] = [Monitor::Temperature, Monitor::Voltage, Monitor::TxBias, Monitor::TxPower, Monitor::RxPower];

/// `detail`'s threshold columns, in their printed order (`High Alarm  High Warn  Low Alarm  Low Warn`).
const DETAIL_LIMITS: [Severity; 4] = [Severity::HighAlarm, Severity::HighWarning, Severity::LowAlarm, Severity::LowWarning];

/// `detail`'s table title line: the monitor whose table follows.
fn detail_monitor(line: &str) -> Option<Monitor> {
    let l = line.trim_start();
    [
        ("Temperature", Monitor::Temperature),
        ("Voltage", Monitor::Voltage),
        ("Current", Monitor::TxBias),
        ("Tx Power", Monitor::TxPower),
        ("Rx Power", Monitor::RxPower),
    ]
    .into_iter()
    .find_map(|(name, m)| l.starts_with(name).then_some(m))
}

/// One interface's row(s): the cells as printed, per monitor (indexed by [`Monitor`]).
#[derive(Default)]
struct Row<'a> {
    port: &'a str,
    values: [Option<&'a str>; 5],
    /// `detail`'s limits (powers in mW).
    limits: LimitsSeen,
}

impl Row<'_> {
    fn value(&self, m: Monitor) -> Option<f64> {
        self.values[m as usize].and_then(cell)
    }
    /// Temperature and voltage as printed: the same text on every lane of one module.
    fn module_cells(&self) -> (Option<&str>, Option<&str>) {
        (self.values[Monitor::Temperature as usize], self.values[Monitor::Voltage as usize])
    }
}

fn plain_rows(text: &str) -> Vec<Row<'_>> {
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if is_heading(line) {
            in_table = true;
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        if in_table && t.len() >= 6 && t[0].starts_with("Et") {
            let mut row = Row { port: t[0], ..Default::default() };
            for (m, cell) in COLUMNS.into_iter().zip(&t[1..6]) {
                row.values[m as usize] = Some(*cell);
            }
            rows.push(row);
        }
    }
    rows
}

/// `detail`'s tables merged per interface, in order of first appearance.
fn detail_rows(text: &str) -> Vec<Row<'_>> {
    let mut rows: Vec<Row> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    let mut monitor = None;
    for line in text.lines() {
        if let Some(m) = detail_monitor(line) {
            monitor = Some(m);
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        let Some(m) = monitor.filter(|_| t.len() >= 6 && t[0].starts_with("Et")) else { continue };
        let i = *at.entry(t[0]).or_insert_with(|| {
            rows.push(Row { port: t[0], ..Default::default() });
            rows.len() - 1
        });
        rows[i].values[m as usize] = Some(t[1]);
        // Powers are printed in dBm, kept in mW.
        let si = |x: f64| if matches!(m, Monitor::TxPower | Monitor::RxPower) { dbm_to_mw(x) } else { x };
        for (sev, text) in DETAIL_LIMITS.into_iter().zip(&t[2..6]) {
            rows[i].limits.set(m, sev, cell(text).map(si));
        }
    }
    rows
}

/// `Et3/17/2` -> (`Et3/17`, 2).
fn lane_of(port: &str) -> Option<(&str, u32)> {
    let (prefix, n) = port.rsplit_once('/')?;
    Some((prefix, n.parse().ok()?))
}

/// The rows grouped into modules, one port fragment each.
fn modules(rows: &[Row]) -> Vec<Fragment> {
    let mut ports: Vec<Fragment> = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        // The rows after `rows[i]` that are its module's next lanes.
        let mut n = 1;
        if let Some((prefix, 1)) = lane_of(rows[i].port) {
            while let Some(r) = rows.get(i + n) {
                let next = lane_of(r.port).is_some_and(|(p, k)| p == prefix && k as usize == n + 1);
                if !next || r.module_cells() != rows[i].module_cells() {
                    break;
                }
                n += 1;
            }
        }
        let lanes = &rows[i..i + n];
        let per_lane = |m: Monitor| lanes.iter().map(|r| r.value(m)).collect::<Vec<_>>();
        let m = PrintedModule {
            tool: TOOL.into(),
            temperature_c: lanes[0].value(Monitor::Temperature),
            supply_voltage_v: lanes[0].value(Monitor::Voltage),
            rx_power_dbm: per_lane(Monitor::RxPower),
            tx_power_dbm: per_lane(Monitor::TxPower),
            tx_bias_ma: per_lane(Monitor::TxBias),
            // The module's thresholds: its first lane's `detail` rows.
            thresholds: lanes[0].limits.thresholds(),
            ..Default::default()
        };
        let mut notes = Vec::new();
        if Monitor::ALL.iter().all(|mon| lanes.iter().all(|r| r.value(*mon).is_none())) {
            notes.push(format!("{}: every monitor N/A (no module, or no DOM): no monitors", lanes[0].port));
        }
        ports.push(Fragment { interface: Some(long_name(lanes[0].port)), printed_module: Some(m), notes, ..Default::default() });
        i += n;
    }
    ports
}

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let detail = text.lines().any(is_detail_heading);
    let rows = if detail { detail_rows(text) } else { plain_rows(text) };
    if rows.is_empty() {
        return Err(ParseError::missing("transceiver rows under the `Port ...` heading"));
    }
    Ok(Fragment { ports: modules(&rows), ..Default::default() })
}
