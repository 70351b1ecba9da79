//! SONiC's transceiver status and performance views (sonic-utilities `sfpshow`, as
//! `show interfaces transceiver status` and `show interfaces transceiver pm` print them):
//! per port a `PORT:` heading, then
//! - `status`: `Label: value` lines from the module's STATE_DB status and flag tables
//!   (`Rx loss of signal flag on media lane 3: True`, `Current module state: ModuleReady`,
//!   `Tx power low alarm flag on lane 2: False`; sonic-utilities `utilities_common/sfp_helper.py`
//!   maps the labels);
//! - `pm`: a table of a coherent module's performance window, one row per parameter: name,
//!   unit, min, avg, max, high alarm, high warning, high crossing, low alarm, low warning, low
//!   crossing.
//!
//! Rows are told by their parameter names and split on whitespace, so a paste whose padding
//! collapsed still reads. Layouts checked on the outputs in tests/fixtures/sonic-transceiver/.

use super::{key_value, Fragment, ParseError, ParseResult};
use crate::module::flag::{self, ModuleFlag, Severity, Side};
use crate::module::printed::{PmParameter, PrintedModule, PrintedPm};
use crate::module::state::ModuleState;

pub(crate) const STATUS_TOOL: &str = "sonic transceiver status";
pub(crate) const PM_TOOL: &str = "sonic transceiver pm";

/// The parameters as `sfpshow` names them in its first column.
const PM_NAMES: [(&str, PmParameter); 14] = [
    ("Tx Power", PmParameter::TxPowerDbm),
    ("Rx Total Power", PmParameter::RxTotalPowerDbm),
    ("Rx Signal Power", PmParameter::RxSignalPowerDbm),
    ("CD-short link", PmParameter::CdShortLinkPsPerNm),
    ("PDL", PmParameter::PdlDb),
    ("OSNR", PmParameter::OsnrDb),
    ("eSNR", PmParameter::EsnrDb),
    ("CFO", PmParameter::CfoMhz),
    ("DGD", PmParameter::DgdPs),
    ("SOPMD", PmParameter::SopmdPs2),
    ("SOP ROC", PmParameter::SopRocKradPerS),
    ("Pre-FEC BER", PmParameter::PreFecBer),
    ("Post-FEC BER", PmParameter::PostFecBer),
    ("EVM", PmParameter::EvmPct),
];

/// Per-lane status labels (`... on media lane N`, `... on host lane N`, `... on lane N`).
const LANE_STATUS: [(&str, ModuleFlag); 5] = [
    ("Tx fault flag on media lane ", ModuleFlag::TxFault),
    ("Rx loss of signal flag on media lane ", ModuleFlag::Los(Side::Rx)),
    ("Tx loss of signal flag on host lane ", ModuleFlag::Los(Side::Tx)),
    ("Tx clock and data recovery loss of lock on host lane ", ModuleFlag::Lol(Side::Tx)),
    ("Rx clock and data recovery loss of lock on media lane ", ModuleFlag::Lol(Side::Rx)),
];

/// Module-wide status labels.
const MODULE_STATUS: [(&str, ModuleFlag); 3] = [
    ("Datapath firmware fault", ModuleFlag::DatapathFirmwareFault),
    ("Module firmware fault", ModuleFlag::ModuleFirmwareFault),
    ("Module state changed", ModuleFlag::ModuleStateChanged),
];

/// The monitors of the threshold flags as `sfp_helper.py` words them (`Tx bias high alarm
/// flag on lane 1`, `Vcc low warning flag`).
const LIMIT_MONITORS: [(&str, flag::Monitor); 5] = [
    ("Temperature", flag::Monitor::Temperature),
    ("Vcc", flag::Monitor::SupplyVoltage),
    ("Tx power", flag::Monitor::TxPower),
    ("Rx power", flag::Monitor::RxPower),
    ("Tx bias", flag::Monitor::TxBias),
];
const SEVERITIES: [(&str, Severity); 4] = [
    ("high alarm", Severity::HighAlarm),
    ("low alarm", Severity::LowAlarm),
    ("high warning", Severity::HighWarning),
    ("low warning", Severity::LowWarning),
];

/// `Ethernet100:` alone on its line (status prints a space after the colon).
fn port_heading(line: &str) -> Option<&str> {
    let port = line.trim().strip_suffix(':')?;
    (!port.is_empty() && !port.contains(char::is_whitespace)).then_some(port)
}

/// `Ethernet0: Transceiver performance monitoring not applicable` and its status twin.
fn not_applicable(line: &str) -> Option<&str> {
    let (port, rest) = line.trim().split_once(':')?;
    let rest = rest.trim().to_ascii_lowercase();
    (rest.starts_with("transceiver") && rest.ends_with("not applicable") && !port.contains(char::is_whitespace)).then_some(port)
}

/// A label only `status` prints.
fn is_status_key(k: &str) -> bool {
    k == "Current module state"
        || LANE_STATUS.iter().any(|(p, _)| k.starts_with(p))
        || MODULE_STATUS.iter().any(|(label, _)| *label == k)
        || limit_flag(k).is_some()
}

pub(crate) fn is_status(text: &str) -> bool {
    text.lines().filter_map(key_value).any(|(k, _)| k == "Current module state" || LANE_STATUS.iter().any(|(p, _)| k.starts_with(p)))
}

pub(crate) fn is_pm(text: &str) -> bool {
    let heading = |l: &str| l.split_whitespace().take(5).eq(["Parameter", "Unit", "Min", "Avg", "Max"]);
    text.lines().any(heading) || text.lines().filter(|l| pm_row(l).is_some()).count() >= 2
}

/// A cell: a number, or `N/A` (none).
fn number(cell: &str) -> Option<f64> {
    cell.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A crossing alert: `True` / `False`; sonic-utilities before #4066 printed a number for
/// the Pre-FEC BER row's alerts, which says nothing.
fn alert(cell: &str) -> Option<bool> {
    match cell {
        "True" => Some(true),
        "False" => Some(false),
        _ => None,
    }
}

/// One table row: its parameter and the ten cells after the name.
fn pm_row(line: &str) -> Option<PrintedPm> {
    let line = line.trim();
    let (name, parameter) = PM_NAMES.iter().find(|(n, _)| line.strip_prefix(n).is_some_and(|r| r.starts_with(char::is_whitespace)))?;
    let cells: Vec<&str> = line[name.len()..].split_whitespace().collect();
    let [_unit, min, avg, max, ha, hw, ch, la, lw, cl] = cells[..] else { return None };
    Some(PrintedPm {
        parameter: *parameter,
        min: number(min),
        avg: number(avg),
        max: number(max),
        high_alarm: number(ha),
        high_warning: number(hw),
        low_alarm: number(la),
        low_warning: number(lw),
        crossed_high: alert(ch),
        crossed_low: alert(cl),
    })
}

/// `... lane N` -> N (1-based, at most 32).
fn lane_number(rest: &str) -> Option<usize> {
    rest.trim().parse::<usize>().ok().filter(|n| (1..=32).contains(n))
}

fn lane_flag(m: &mut PrintedModule, lane: usize, f: ModuleFlag) {
    if m.lane_flags.len() < lane {
        m.lane_flags.resize(lane, Vec::new());
    }
    if !m.lane_flags[lane - 1].contains(&f) {
        m.lane_flags[lane - 1].push(f);
    }
}

/// `Tx bias low alarm flag on lane 3` -> (flag, Some(3)); `Vcc high warning flag` -> (flag, None).
fn limit_flag(k: &str) -> Option<(ModuleFlag, Option<usize>)> {
    let (what, lane) = match k.split_once(" flag on lane ") {
        Some((w, n)) => (w, Some(lane_number(n)?)),
        None => (k.strip_suffix(" flag")?, None),
    };
    let (mon, rest) = LIMIT_MONITORS.iter().find_map(|(name, m)| Some((*m, what.strip_prefix(name)?.strip_prefix(' ')?)))?;
    let sev = SEVERITIES.iter().find(|(s, _)| *s == rest)?.1;
    Some((ModuleFlag::Limit(mon, sev), lane))
}

/// One status line into the port's module; a `True` the model has no flag for is kept as
/// printed (`status/LABEL`).
fn status_line(m: &mut PrintedModule, fields: &mut Vec<(String, String)>, k: &str, v: &str) {
    if k == "Current module state" {
        // sonic_xcvr's CmisCodes.MODULE_STATE names (the spec's); `N/A` where none was read.
        m.module_state = ModuleState::from_name(v);
        return;
    }
    if v != "True" {
        return;
    }
    if let Some((prefix, f)) = LANE_STATUS.iter().find(|(p, _)| k.starts_with(p)) {
        if let Some(lane) = lane_number(&k[prefix.len()..]) {
            lane_flag(m, lane, *f);
            return;
        }
    }
    if let Some((_, f)) = MODULE_STATUS.iter().find(|(label, _)| *label == k) {
        if !m.module_flags.contains(f) {
            m.module_flags.push(*f);
        }
        return;
    }
    match limit_flag(k) {
        Some((f, Some(lane))) => lane_flag(m, lane, f),
        Some((f, None)) => {
            if !m.module_flags.contains(&f) {
                m.module_flags.push(f);
            }
        }
        None => fields.push((format!("status/{k}"), v.to_string())),
    }
}

/// A port's name as its heading gives it (none before the first heading) and its lines.
type PortLines<'a> = (Option<String>, Vec<&'a str>);

/// Splits the text at its port headings; lines before the first heading belong to a port
/// the text does not name (a one-port paste without its heading).
fn per_port(text: &str) -> (Vec<PortLines<'_>>, Vec<String>) {
    let mut ports: Vec<PortLines<'_>> = Vec::new();
    let mut notes = Vec::new();
    for line in text.lines() {
        if let Some(port) = not_applicable(line) {
            notes.push(format!("{port}: {}: skipped", line.trim()[port.len() + 1..].trim()));
            continue;
        }
        if let Some(port) = port_heading(line) {
            ports.push((Some(port.to_string()), Vec::new()));
            continue;
        }
        match ports.last_mut() {
            Some((_, lines)) => lines.push(line),
            None => ports.push((None, vec![line])),
        }
    }
    (ports, notes)
}

fn fragment(ports: Vec<Fragment>, notes: Vec<String>, what: &str) -> ParseResult<Fragment> {
    if ports.is_empty() {
        return Err(ParseError::missing(format!("port with {what}")));
    }
    Ok(Fragment { ports, notes, ..Default::default() })
}

pub(crate) fn parse_status(text: &str) -> ParseResult<Fragment> {
    let (blocks, notes) = per_port(text);
    let mut ports = Vec::new();
    for (name, lines) in blocks {
        let mut m = PrintedModule { tool: STATUS_TOOL.into(), ..Default::default() };
        let mut fields = Vec::new();
        let pairs: Vec<(&str, &str)> = lines.iter().filter_map(|l| key_value(l)).collect();
        // A prompt line (`admin@sonic:~$ show ...`) before the first port is no port.
        if !pairs.iter().any(|(k, _)| is_status_key(k)) {
            continue;
        }
        for (k, v) in pairs {
            status_line(&mut m, &mut fields, k, v);
            super::printed_fields_fit(fields.len())?;
        }
        ports.push(Fragment {
            interface: name,
            printed_module: Some(m),
            printed_fields: fields.into_iter().collect(),
            ..Default::default()
        });
    }
    fragment(ports, notes, "status lines (`Rx loss of signal flag on media lane N: ...`)")
}

pub(crate) fn parse_pm(text: &str) -> ParseResult<Fragment> {
    let (blocks, mut notes) = per_port(text);
    let mut ports = Vec::new();
    for (name, lines) in blocks {
        let rows: Vec<PrintedPm> = lines.iter().filter_map(|l| pm_row(l)).collect();
        let cut = lines.iter().filter(|l| PM_NAMES.iter().any(|(n, _)| l.trim().starts_with(n)) && pm_row(l).is_none()).count();
        let label = name.clone().unwrap_or_else(|| "the table".into());
        if cut > 0 {
            notes.push(format!("{label}: {cut} pm row(s) without their ten cells (cut by the paste): skipped"));
        }
        if rows.is_empty() {
            continue;
        }
        let m = PrintedModule { tool: PM_TOOL.into(), performance: rows, ..Default::default() };
        ports.push(Fragment { interface: name, printed_module: Some(m), ..Default::default() });
    }
    fragment(ports, notes, "performance rows (`Pre-FEC BER  N/A  min avg max ...`)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn true_status_lines_become_flags() {
        let text = "Ethernet8: \n\
            \tRx loss of signal flag on media lane 3: True\n\
            \tTx fault flag on media lane 1: False\n\
            \tCurrent module state: ModuleFault\n\
            \tModule firmware fault: True\n\
            \tVcc low warning flag: True\n\
            \tTx bias high alarm flag on lane 2: True\n\
            \tTuning in progress status: True\n";
        let f = parse_status(text).unwrap();
        let p = &f.ports[0];
        assert_eq!(p.interface.as_deref(), Some("Ethernet8"));
        let m = p.printed_module.as_ref().unwrap();
        assert_eq!(m.module_state, Some(ModuleState::Fault));
        let names = |f: &[ModuleFlag]| f.iter().map(|f| f.as_str()).collect::<Vec<_>>();
        assert_eq!(names(&m.module_flags), ["module_firmware_fault", "supply_voltage_low_warning"]);
        assert_eq!(m.lane_flags.iter().map(|l| names(l)).collect::<Vec<_>>(), [vec![], vec!["tx_bias_high_alarm"], vec!["rx_los"]]);
        assert_eq!(p.printed_fields.get("status/Tuning in progress status").map(String::as_str), Some("True"));
    }

    #[test]
    fn pm_rows_split_on_whitespace_even_collapsed() {
        let row = pm_row("Pre-FEC BER N/A 5.30E-04 5.49E-04 5.82E-04 1.25E-02 1.10E-02 False 0 0 False").unwrap();
        assert_eq!(row.parameter, PmParameter::PreFecBer);
        assert_eq!((row.min, row.avg, row.max), (Some(5.30e-4), Some(5.49e-4), Some(5.82e-4)));
        assert_eq!((row.crossed_high, row.crossed_low), (Some(false), Some(false)));
        // `SOP ROC` is not `SOPMD`; N/A thresholds are none.
        let row = pm_row("    SOP ROC          krad/s  1.0       1.0       2.0       N/A          N/A          N/A           N/A          N/A          N/A").unwrap();
        assert_eq!((row.parameter, row.high_alarm, row.crossed_high), (PmParameter::SopRocKradPerS, None, None));
        // A row cut short is not a row.
        assert!(pm_row("OSNR dB 36.4 36.4").is_none());
    }
}
