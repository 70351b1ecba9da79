//! NVIDIA Cumulus Linux NVUE (5.10+), a switch port's view of its module and its PHY:
//!
//! - `nv show interface IF transceiver` (and the nested `nv show platform transceiver IF`,
//!   read by path: `channel/channel-1/rx-power/power`, its thresholds in dBm kept in mW):
//!   `key : value` lines (`vendor-pn : MFA1A00-C003`,
//!   `temperature : 42.56 degrees C / 108.61 degrees F`, `voltage : 3.2888 V`,
//!   `ch-N-rx-power : 0.8625 mW / -0.64 dBm`, `ch-N-tx-power`, `ch-N-tx-bias-current :
//!   6.750 mA`) -> the port's `printed_module`, through the decoded `ethtool -m` label
//!   table ([`super::ethtool_module`]);
//! - `nv show interface IF link phy-detail` (5.10-5.14; `link phy health` from 5.15): a
//!   two-column `name  operational` table of the port's PPCNT counters, the same the NIC's
//!   mlxlink prints (`phy-raw-errors-laneN` = the bits FEC corrected per lane,
//!   `time-since-last-clear-min`, `effective-errors`, `rs-num-corr-err-binN` = the FEC
//!   histogram) -> the port's FEC statistics with their time base.
//!
//! `-o json` prints the same keys as one object (NVUE renders its text from that object;
//! no JSON output of these two commands was found in public sources, so the JSON form is
//! read by the keys the text shows: docs/import.md). The port is named by the command line
//! when the paste keeps the prompt (`cumulus@switch:~$ nv show interface swp1 transceiver`),
//! else by the file name or `--interface`. Layouts read on the examples of NVIDIA's Cumulus
//! Linux user guide and NVUE command reference (tests/fixtures/switch/README.md).

use super::mlxlink_fields::parse_ber;
use super::{content_lines, ethtool_module, key_value, Fragment, ParseError, ParseResult};
use crate::counters::{FecHistogramBin, FecSource, FecStats, MAX_LANES};
use serde_json::Value;

pub(crate) const TOOL: &str = "nvue nv show interface transceiver";

/// The driver-counter name `effective-errors` (PPCNT's errors left after FEC, as mlxlink's
/// `Effective Physical Errors`, but counted by the switch) is recorded under, so its origin
/// names NVUE.
pub(crate) const EFFECTIVE_ERRORS: &str = "nvue_effective_errors";

/// Most histogram bins NVUE prints (`rs-num-corr-err-bin0..15`, RS(544,514) corrects up to
/// 15 symbols); a larger bin is not read.
const MAX_BINS: usize = 16;

/// The port a pasted prompt names: `cumulus@switch:~$ nv show interface swp1 transceiver`,
/// `nv show platform transceiver swp2`.
fn prompt_port(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let after = |cmd: &str| l.find(cmd).map(|at| &l[at + cmd.len()..]);
        let rest = after("nv show interface ").or_else(|| after("nv show platform transceiver "))?;
        let port = rest.split_whitespace().next()?;
        (!port.starts_with('-')).then(|| port.to_string())
    })
}

/// `ch-3-rx-power` -> (2, `rx-power`).
fn channel_key(k: &str) -> Option<(usize, &str)> {
    let rest = k.strip_prefix("ch-")?;
    let (n, what) = rest.split_once('-')?;
    let n: usize = n.parse().ok()?;
    (1..=MAX_LANES).contains(&n).then(|| (n - 1, what))
}

/// The ethtool label of a monitor of the nested view, and whether its thresholds are
/// printed in dBm only (ethtool's label table reads mW).
fn nested_monitor(name: &str) -> Option<(&'static str, bool)> {
    Some(match name {
        "temperature" => ("Module temperature", false),
        "voltage" => ("Module voltage", false),
        "rx-power" => ("Laser rx power", true),
        "tx-power" => ("Laser output power", true),
        "tx-bias-current" => ("Laser bias current", false),
        _ => return None,
    })
}

/// `high-alarm-threshold` -> `high alarm`.
fn threshold_severity(key: &str) -> Option<&'static str> {
    Some(match key {
        "high-alarm-threshold" => "high alarm",
        "low-alarm-threshold" => "low alarm",
        "high-warning-threshold" => "high warning",
        "low-warning-threshold" => "low warning",
        _ => return None,
    })
}

/// The ethtool label of an NVUE transceiver key and the lane (0-based) it is of: a key of the
/// condensed view (`ch-3-rx-power`, `temperature`), or a path of the nested `nv show platform
/// transceiver IF` view (`temperature/temperature`, `channel/channel-3/rx-power/power`,
/// `channel/channel-3/rx-power/low-alarm-threshold`). A threshold is the module's (the view
/// prints it under each channel). The third item: the value is dBm only.
fn ethtool_label(k: &str) -> Option<(String, Option<usize>, bool)> {
    if let Some((lane, what)) = channel_key(k) {
        let label = match what {
            "rx-power" => "Rcvr signal avg optical power",
            "tx-power" => "Laser output power",
            "tx-bias-current" => "Laser bias current",
            _ => return None,
        };
        return Some((label.into(), Some(lane), false));
    }
    let path: Vec<&str> = k.split('/').collect();
    match path[..] {
        [m, v] if m == v && matches!(m, "temperature" | "voltage") => return Some((nested_monitor(m)?.0.into(), None, false)),
        [m, t] => {
            let (stem, dbm) = nested_monitor(m).filter(|_| matches!(m, "temperature" | "voltage"))?;
            return Some((format!("{stem} {} threshold", threshold_severity(t)?), None, dbm));
        }
        ["channel", ch, what, leaf] => {
            let n: usize = ch.strip_prefix("channel-")?.parse().ok()?;
            let lane = (1..=MAX_LANES).contains(&n).then(|| n - 1)?;
            return match (what, leaf) {
                ("rx-power", "power") => Some(("Rcvr signal avg optical power".into(), Some(lane), false)),
                ("tx-power", "power") => Some(("Laser output power".into(), Some(lane), false)),
                ("tx-bias-current", "current") => Some(("Laser bias current".into(), Some(lane), false)),
                _ => {
                    let (stem, dbm) = nested_monitor(what)?;
                    Some((format!("{stem} {} threshold", threshold_severity(leaf)?), None, dbm))
                }
            };
        }
        [_] => {}
        _ => return None,
    }
    let label = match k {
        "vendor-name" => "Vendor name",
        "vendor-pn" => "Vendor PN",
        "vendor-sn" => "Vendor SN",
        "vendor-rev" => "Vendor rev",
        "vendor-oui" => "Vendor OUI",
        "vendor-date-code" => "Date code",
        "revision-compliance" => "Revision compliance",
        "cable-type" => "Transceiver type",
        "temperature" => "Module temperature",
        "voltage" => "Module voltage",
        _ => return None,
    };
    Some((label.into(), None, false))
}

/// `-13.31 dBm` as ethtool's label table reads a power: `0.0466... mW`.
fn dbm_as_mw(v: &str) -> Option<String> {
    let dbm: f64 = v.split_whitespace().next()?.parse().ok().filter(|x: &f64| x.is_finite())?;
    Some(format!("{} mW", 10f64.powf(dbm / 10.0)))
}

fn is_transceiver_key(k: &str) -> bool {
    k == "diagnostics-status" || channel_key(k).is_some_and(|(_, w)| w == "rx-power" || w == "tx-bias-current")
}

fn is_phy_key(k: &str) -> bool {
    k == "time-since-last-clear-min" || k.starts_with("phy-raw-errors-lane")
}

/// `name  value [applied]` rows of NVUE's two-column tables (the heading and its dashes
/// are not rows: their value is not a reading).
fn table_rows(text: &str) -> impl Iterator<Item = (&str, &str)> {
    content_lines(text).filter_map(|l| {
        let mut cells = l.split_whitespace();
        let (k, v) = (cells.next()?, cells.next()?);
        (!k.starts_with('-') && k != "operational").then_some((k, v))
    })
}

/// The NVUE output `text` is, if it is one.
pub(crate) fn recognize(text: &str) -> Option<super::Format> {
    if content_lines(text).filter_map(key_value).any(|(k, _)| is_transceiver_key(k)) {
        return Some(super::Format::NvueTransceiver);
    }
    let mut rows = table_rows(text);
    rows.any(|(k, _)| is_phy_key(k)).then_some(super::Format::NvuePhyDetail)
}

/// The NVUE `-o json` output `v` is, if it is one: an object with these commands' keys.
pub(crate) fn recognize_json(v: &Value) -> Option<super::Format> {
    let o = v.as_object()?;
    if o.keys().any(|k| is_transceiver_key(k)) {
        Some(super::Format::NvueTransceiver)
    } else if o.keys().any(|k| is_phy_key(k)) {
        Some(super::Format::NvuePhyDetail)
    } else {
        None
    }
}

/// A JSON value as the text would print it (numbers and strings; anything else is not a value).
fn json_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Nesting the nested view has (`channel/channel-1/rx-power/power`), with room to spare.
const MAX_DEPTH: usize = 6;

/// The longest path of heads a value is read under (the nested view's deepest,
/// `channel/channel-1/rx-power`, is 26 bytes): each value line copies its heads' path, so a
/// longer head (no NVUE key) is not one; 1 MB heads over 15 MB of lines held 23 GB.
const MAX_HEAD_PATH_BYTES: usize = 64;

/// Every scalar of an `-o json` object as `(path, text)`, the path's keys joined by `/`;
/// `deeper` counts the objects below [`MAX_DEPTH`], which are not read.
fn json_paths(prefix: &str, v: &Value, depth: usize, out: &mut Vec<(String, String)>, deeper: &mut usize) -> ParseResult<()> {
    match v {
        Value::Object(o) if depth < MAX_DEPTH => {
            for (k, x) in o {
                super::field_name_fits("key", k)?;
                let path = if prefix.is_empty() { k.clone() } else { format!("{prefix}/{k}") };
                json_paths(&path, x, depth + 1, out, deeper)?;
            }
        }
        Value::Object(_) => *deeper += 1,
        _ => {
            out.extend(json_text(v).map(|t| (prefix.to_string(), t)));
            super::printed_fields_fit(out.len())?;
        }
    }
    Ok(())
}

/// `key : value` lines as `(path, value)`: a `key:` line with no value heads the lines
/// indented under it (NVUE prints nested objects so: `channel:` / `  channel-1:` /
/// `    rx-power:` / `        power : 0.8625 mW / -0.64 dBm`). A head past [`MAX_DEPTH`]
/// or [`MAX_HEAD_PATH_BYTES`] heads nothing: its lines are not read, and a note says how many.
fn nested_paths(text: &str, notes: &mut Vec<String>) -> ParseResult<Vec<(String, String)>> {
    // A head: its indent, its key, and whether it is read (within both bounds).
    let mut heads: Vec<(usize, &str, bool)> = Vec::new();
    let mut out = Vec::new();
    let (mut dropped_heads, mut unread) = (0usize, 0usize);
    for line in content_lines(text) {
        let Some((k, v)) = key_value(line) else { continue };
        let indent = line.len() - line.trim_start().len();
        while heads.last().is_some_and(|(i, _, _)| *i >= indent) {
            heads.pop();
        }
        let under_dropped = heads.iter().any(|(_, _, read)| !read);
        if v.is_empty() {
            let read = heads.iter().filter(|h| h.2).count();
            let above: usize = heads.iter().filter(|h| h.2).map(|(_, h, _)| h.len() + 1).sum();
            let fits = !under_dropped && read < MAX_DEPTH && above + k.len() <= MAX_HEAD_PATH_BYTES;
            dropped_heads += usize::from(!fits && !under_dropped);
            heads.push((indent, k, fits));
            continue;
        }
        if under_dropped {
            unread += 1;
            continue;
        }
        let path: Vec<&str> = heads.iter().map(|(_, h, _)| *h).chain([k]).collect();
        out.push((path.join("/"), v.to_string()));
        super::printed_fields_fit(out.len())?;
    }
    if dropped_heads > 0 {
        notes.push(format!(
            "{dropped_heads} nested head(s) deeper than {MAX_DEPTH} or longer than {MAX_HEAD_PATH_BYTES} bytes with the heads above (no NVUE key is): their {unread} value line(s) not read"
        ));
    }
    Ok(out)
}

/// An output's `(key, value)` pairs, and the port it names.
type Pairs = (Vec<(String, String)>, Option<String>);

/// The `(key, value)` pairs of the output, text or `-o json`, and the port it names; what
/// was not read goes to `notes`.
fn pairs(text: &str, table: bool, notes: &mut Vec<String>) -> ParseResult<Pairs> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') {
        let v: Value = serde_json::from_str(trimmed).map_err(|e| ParseError::syntax(format_args!("not JSON: {e}")))?;
        if !v.is_object() {
            return Err(ParseError::malformed("not an NVUE -o json object"));
        }
        let (mut out, mut deeper) = (Vec::new(), 0);
        json_paths("", &v, 0, &mut out, &mut deeper)?;
        if deeper > 0 {
            notes.push(format!("{deeper} object(s) nested deeper than {MAX_DEPTH} levels (no NVUE key is) not read"));
        }
        return Ok((out, None));
    }
    let pairs = if table {
        let mut rows = Vec::new();
        for (k, v) in table_rows(text) {
            rows.push((k.to_string(), v.to_string()));
            super::printed_fields_fit(rows.len())?;
        }
        rows
    } else {
        nested_paths(text, notes)?
    };
    Ok((pairs, prompt_port(text)))
}

/// `nv show interface IF transceiver` (text or `-o json`).
pub(crate) fn parse_transceiver(text: &str) -> ParseResult<Fragment> {
    let mut read_notes = Vec::new();
    let (pairs, port) = pairs(text, false, &mut read_notes)?;
    let mut lines: Vec<(String, String, Option<usize>)> = Vec::new();
    for (k, v) in &pairs {
        if let Some((label, lane, dbm)) = ethtool_label(k) {
            let v = if dbm { dbm_as_mw(v).unwrap_or_else(|| v.clone()) } else { v.clone() };
            lines.push((label, v, lane));
        }
    }
    let (mut m, mut notes) = ethtool_module::parse_labelled(TOOL, lines.iter().map(|(l, v, lane)| (l.as_str(), v.as_str(), *lane)))?;
    // NVUE does not say whether `rx-power` is average power or OMA.
    m.rx_power_oma = None;
    // NVUE names the form factor without SFF-8024's code (`identifier : QSFP28`).
    m.identifier = pairs.iter().find(|(k, _)| k == "identifier").map(|(_, v)| v.trim().to_string()).filter(|v| !v.is_empty());
    notes.extend(read_notes);
    let mut f = Fragment { interface: port, printed_module: Some(m), notes, ..Default::default() };
    f.printed_fields = pairs.into_iter().map(|(k, v)| (format!("nvue transceiver/{k}"), v)).collect();
    Ok(f)
}

fn count(k: &str, v: &str) -> ParseResult<u64> {
    v.trim().parse().map_err(|_| ParseError::malformed(format!("{k} {v:?} is not an unsigned integer")))
}

/// `nv show interface IF link phy-detail` / `link phy health` (text or `-o json`).
pub(crate) fn parse_phy_detail(text: &str) -> ParseResult<Fragment> {
    let mut notes = Vec::new();
    let (pairs, port) = pairs(text, true, &mut notes)?;
    let mut f = Fragment { interface: port, notes, ..Default::default() };
    let mut lanes: Vec<Option<u64>> = Vec::new();
    let mut bins: Vec<Option<u64>> = Vec::new();
    for (k, v) in &pairs {
        f.printed_fields.insert(format!("nvue phy-detail/{k}"), v.clone());
        let na = v == "n/a" || v == "N/A";
        if let Some(n) = k.strip_prefix("phy-raw-errors-lane").and_then(|n| n.parse::<usize>().ok()).filter(|_| !na) {
            if n >= MAX_LANES {
                return Err(ParseError::malformed(format!("more lanes than a port has ({MAX_LANES})")).at(k));
            }
            if lanes.len() <= n {
                lanes.resize(n + 1, None);
            }
            lanes[n] = Some(count(k, v)?);
        } else if let Some(n) = k.strip_prefix("rs-num-corr-err-bin").and_then(|n| n.parse::<usize>().ok()).filter(|_| !na) {
            if n >= MAX_BINS {
                f.notes.push(format!("{k}: a bin past {} not read", MAX_BINS - 1));
                continue;
            }
            if bins.len() <= n {
                bins.resize(n + 1, None);
            }
            bins[n] = Some(count(k, v)?);
        } else if k == "time-since-last-clear-min" && !na {
            // Whole minutes as printed: a time that has passed, so finite and not negative.
            let min = v.parse::<f64>().ok().filter(|m| m.is_finite() && *m >= 0.0 && (m * 60.0).is_finite());
            f.since_clear_s =
                Some(min.ok_or_else(|| ParseError::malformed(format!("{k} {v:?} is not a number of minutes at or above 0")))? * 60.0);
        } else if k == "effective-errors" && !na {
            f.driver_stats.insert(EFFECTIVE_ERRORS.into(), count(k, v)?);
        } else if k.contains("ber") && !na && v != "0" && parse_ber(v).is_none() {
            f.notes.push(format!("{k} {v:?} is not in the <coef>E-<magnitude> form"));
        }
    }
    if lanes.iter().any(Option::is_none) || bins.iter().any(Option::is_none) {
        return Err(ParseError::missing("lane or histogram bin between some of the ones printed"));
    }
    let lanes: Vec<u64> = lanes.into_iter().flatten().collect();
    let mut fec = FecStats::default();
    if !lanes.is_empty() {
        let total = lanes
            .iter()
            .try_fold(0u64, |a, v| a.checked_add(*v))
            .ok_or_else(|| ParseError::malformed("sum exceeds 64 bits").at("phy-raw-errors"))?;
        fec.corrected_bits = std::iter::once(total).chain(lanes).collect();
    }
    fec.histogram = bins
        .into_iter()
        .flatten()
        .enumerate()
        .map(|(i, count)| FecHistogramBin { low: i as u32, high: i as u32, count, per_lane: Vec::new() })
        .collect();
    if fec == FecStats::default() {
        return Err(ParseError::missing("phy-raw-errors-laneN or rs-num-corr-err-binN counters"));
    }
    f.fec = Some(FecStats { source: Some(FecSource::Nvue), ..fec });
    if f.since_clear_s.is_none() {
        f.notes.push("counters without time-since-last-clear-min: no time base from the content".into());
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_prompts() {
        assert_eq!(channel_key("ch-3-rx-power"), Some((2, "rx-power")));
        assert_eq!(channel_key("ch-0-rx-power"), None);
        assert_eq!(channel_key("ch-99-rx-power"), None);
        assert_eq!(prompt_port("cumulus@leaf01:mgmt:~$ nv show interface swp51 link phy-detail\n").as_deref(), Some("swp51"));
        assert_eq!(prompt_port("nv show interface --view counters"), None);
        assert_eq!(recognize("time-since-last-clear-min  1\nphy-raw-errors-lane0  5\n"), Some(super::super::Format::NvuePhyDetail));
        assert_eq!(recognize("ch-1-rx-power : 0.5 mW / -3.01 dBm\n"), Some(super::super::Format::NvueTransceiver));
        assert_eq!(recognize("State : Active\n"), None);
    }

    #[test]
    fn a_head_longer_than_any_nvue_key_heads_nothing_and_says_so() {
        let long = "h".repeat(MAX_HEAD_PATH_BYTES + 1);
        // Its lines (and its sub-heads') are not read under a path that leaves it out.
        let text = format!("channel:\n  {long}:\n    power : 1\n    deeper:\n      x : 2\n  kept : 3\n");
        let mut notes = Vec::new();
        assert_eq!(nested_paths(&text, &mut notes).unwrap(), [("channel/kept".to_string(), "3".to_string())]);
        assert_eq!(
            notes,
            ["1 nested head(s) deeper than 6 or longer than 64 bytes with the heads above (no NVUE key is): their 2 value line(s) not read"]
        );
        // Seven heads deep: the seventh heads nothing.
        let deep: String = (0..7).map(|i| format!("{}h{i}:\n", " ".repeat(i))).collect::<String>() + &" ".repeat(7) + "v : 1\n";
        let mut notes = Vec::new();
        assert!(nested_paths(&deep, &mut notes).unwrap().is_empty());
        assert_eq!(notes.len(), 1);
        // JSON nested deeper than NVUE's: a note, nothing made up.
        let v: Value = serde_json::from_str(r#"{"a":{"b":{"c":{"d":{"e":{"f":{"g":"1"}}}}},"k":"2"}}"#).unwrap();
        let (mut out, mut deeper) = (Vec::new(), 0);
        json_paths("", &v, 0, &mut out, &mut deeper).unwrap();
        assert_eq!((out, deeper), (vec![("a/k".to_string(), "2".to_string())], 1));
    }

    #[test]
    fn nested_views_read_as_paths_in_text_and_json() {
        let text = "vendor-pn : X\ntemperature:\n  temperature : 40.5 C\nchannel:\n  channel-2:\n    rx-power:\n        power : 0.5 mW / -3.01 dBm\n";
        let paths = nested_paths(text, &mut Vec::new()).unwrap();
        assert_eq!(paths[1], ("temperature/temperature".to_string(), "40.5 C".to_string()));
        assert_eq!(paths[2].0, "channel/channel-2/rx-power/power");
        // The nested object as napalm-cumulus reads `nv show platform transceiver -o json`
        // (`ch_data["rx-power"]["power"]`): the same paths.
        let v: Value = serde_json::from_str(r#"{"channel": {"channel-2": {"rx-power": {"power": "0.5 mW / -3.01 dBm"}}}}"#).unwrap();
        let mut out = Vec::new();
        json_paths("", &v, 0, &mut out, &mut 0).unwrap();
        assert_eq!(out, [("channel/channel-2/rx-power/power".to_string(), "0.5 mW / -3.01 dBm".to_string())]);
        assert_eq!(ethtool_label("channel/channel-2/rx-power/power"), Some(("Rcvr signal avg optical power".into(), Some(1), false)));
        assert_eq!(
            ethtool_label("channel/channel-2/rx-power/low-alarm-threshold"),
            Some(("Laser rx power low alarm threshold".into(), None, true))
        );
        assert_eq!(ethtool_label("voltage/high-warning-threshold"), Some(("Module voltage high warning threshold".into(), None, false)));
        assert_eq!(ethtool_label("channel/channel-0/rx-power/power"), None);
        assert_eq!(dbm_as_mw("-10.00 dBm").as_deref(), Some("0.1 mW"));
        assert_eq!(prompt_port("cumulus@switch:~$ nv show platform transceiver swp2").as_deref(), Some("swp2"));
    }

    #[test]
    fn a_gap_between_lanes_or_a_bad_count_is_an_error() {
        assert!(parse_phy_detail("phy-raw-errors-lane0  1\nphy-raw-errors-lane2  1\n").is_err());
        assert!(parse_phy_detail("phy-raw-errors-lane0  x\n").is_err());
        assert!(parse_phy_detail("phy-raw-errors-lane99  1\n").is_err());
        assert!(parse_phy_detail("time-since-last-clear-min  -3\nphy-raw-errors-lane0  1\n").is_err());
        let j = parse_phy_detail(r#"{"time-since-last-clear-min": 2, "phy-raw-errors-lane0": 7, "phy-raw-errors-lane1": 3}"#).unwrap();
        assert_eq!((j.since_clear_s, j.fec.unwrap().corrected_bits), (Some(120.0), vec![10, 7, 3]));
        // Counts and BERs as strings, as napalm-cumulus reads NVUE's `-o json` (`!= '0'`).
        let s =
            parse_phy_detail(r#"{"time-since-last-clear-min": "2", "effective-errors": "0", "raw-ber": "0", "phy-raw-errors-lane0": "7"}"#)
                .unwrap();
        assert_eq!((s.since_clear_s, s.fec.unwrap().corrected_bits), (Some(120.0), vec![7, 7]));
        assert_eq!(s.driver_stats.get(EFFECTIVE_ERRORS), Some(0));
        assert!(s.notes.iter().all(|n| !n.contains("raw-ber")), "{:?}", s.notes);
    }
}
