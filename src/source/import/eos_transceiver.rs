//! Arista EOS `show interfaces transceiver`: one row per interface, `Port  Temp  Voltage
//! Bias  Tx Power  Rx Power  Last Update` (Celsius, Volts, mA, dBm, dBm), `N/A` where there
//! is no value. A multi-lane module prints a row per lane named by the lane's interface
//! (`Et3/17/1`, `Et3/17/2`, ...) with the module's one temperature and voltage on each: rows
//! numbered 1, 2, 3, ... under one prefix with the same temperature and voltage are the
//! lanes of one module, named by its first interface (`Ethernet3/17/1`). A 4x25G breakout of
//! one module reads the same way (its lanes under the first interface: pair a host port with
//! its lane by `--lane-map`). Layout checked on the real output in tests/fixtures/switch/.

use super::{Fragment, ParseResult};
use crate::module::printed::PrintedModule;

pub const TOOL: &str = "eos show interfaces transceiver";

/// The column heading line of the table.
fn is_heading(line: &str) -> bool {
    let l = line.trim_start();
    l.starts_with("Port") && l.contains("(Celsius)") && l.contains("(dBm)")
}

pub fn is_eos_transceiver(text: &str) -> bool {
    text.lines().any(is_heading) && text.lines().any(|l| l.contains("Tx Power") && l.contains("Rx Power"))
}

/// `Et3/17/1` -> `Ethernet3/17/1` (EOS's own long name).
fn long_name(port: &str) -> String {
    match port.strip_prefix("Et") {
        Some(rest) if !rest.starts_with("hernet") => format!("Ethernet{rest}"),
        _ => port.to_string(),
    }
}

struct Row<'a> {
    port: &'a str,
    /// Temperature and voltage as printed: the same text on every lane of one module.
    module_cells: (&'a str, &'a str),
    temp_c: Option<f64>,
    volt_v: Option<f64>,
    bias_ma: Option<f64>,
    tx_dbm: Option<f64>,
    rx_dbm: Option<f64>,
}

fn cell(s: &str) -> Option<f64> {
    s.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// `Et3/17/2` -> (`Et3/17`, 2).
fn lane_of(port: &str) -> Option<(&str, u32)> {
    let (prefix, n) = port.rsplit_once('/')?;
    Some((prefix, n.parse().ok()?))
}

pub fn parse(text: &str) -> ParseResult<Fragment> {
    let mut rows: Vec<Row> = Vec::new();
    let mut in_table = false;
    for line in text.lines() {
        if is_heading(line) {
            in_table = true;
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        if !in_table || t.len() < 6 || !t[0].starts_with("Et") {
            continue;
        }
        rows.push(Row {
            port: t[0],
            module_cells: (t[1], t[2]),
            temp_c: cell(t[1]),
            volt_v: cell(t[2]),
            bias_ma: cell(t[3]),
            tx_dbm: cell(t[4]),
            rx_dbm: cell(t[5]),
        });
    }
    if rows.is_empty() {
        return Err("no transceiver rows under the `Port (Celsius) ...` heading".into());
    }
    let mut ports: Vec<Fragment> = Vec::new();
    let mut i = 0;
    while i < rows.len() {
        // The rows after `rows[i]` that are its module's next lanes.
        let mut n = 1;
        if let Some((prefix, 1)) = lane_of(rows[i].port) {
            while let Some(r) = rows.get(i + n) {
                let next = lane_of(r.port).is_some_and(|(p, k)| p == prefix && k as usize == n + 1);
                if !next || r.module_cells != rows[i].module_cells {
                    break;
                }
                n += 1;
            }
        }
        let lanes = &rows[i..i + n];
        let m = PrintedModule {
            tool: TOOL.into(),
            temperature_c: lanes[0].temp_c,
            supply_voltage_v: lanes[0].volt_v,
            rx_power_dbm: lanes.iter().map(|r| r.rx_dbm).collect(),
            tx_power_dbm: lanes.iter().map(|r| r.tx_dbm).collect(),
            tx_bias_ma: lanes.iter().map(|r| r.bias_ma).collect(),
            ..Default::default()
        };
        let mut notes = Vec::new();
        let none = |f: fn(&Row) -> Option<f64>| lanes.iter().all(|r| f(r).is_none());
        if none(|r| r.rx_dbm) && none(|r| r.tx_dbm) && none(|r| r.bias_ma) && lanes[0].temp_c.is_none() {
            notes.push(format!("{}: every monitor N/A (no module, or no DOM): no monitors", lanes[0].port));
        }
        ports.push(Fragment { interface: Some(long_name(lanes[0].port)), printed_module: Some(m), notes, ..Default::default() });
        i += n;
    }
    Ok(Fragment { ports, ..Default::default() })
}
