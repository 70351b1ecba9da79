//! Arista EOS `show interfaces [IF] phy detail`, as `| json` and as text: per port the
//! PHY's view of it, each figure with how often it changed and when last (JSON:
//! `{value, changes, lastChange}` objects under `interfacePhyStatuses`, keyed by the long
//! name; text: `Label  value  changes  last change` rows under an `EthernetN` heading):
//!
//! - the FEC block's corrected / uncorrected codewords (RS-FEC: IEEE 802.3 91.6.8 / 91.6.9)
//!   -> the port's latest codeword readings ([`FecReadings`]: value, how often it changed,
//!   when last), and its encoding (`reedSolomon`, `Reed-Solomon`; `fireCode`, `Fire-code`)
//!   -> the FEC in use. The values are not running totals (a figure reads less than the
//!   number of times it changed; EOS keeps the count of the latest sampling interval that
//!   changed it), so they never enter the codeword counters two snapshots subtract: a lone
//!   output says codewords were lost at some time, two say whether new readings came;
//! - `operSpeed` / `Oper speed` (`100Gbps`) and the lanes (`pma.laneSignalDetect`, the text's
//!   `FEC lane mapping` `PMA lane` row) -> speed and lane count;
//! - `interfaceState` / `Interface state` (`up`) -> link up;
//! - the transceiver's media and serial number -> the port's module as printed (its media
//!   names the PMD of the link budget; EOS pads the serial number with spaces, trimmed here).
//!
//! Everything else is kept as printed (`phy-detail/<path>`): the per-lane corrected symbols
//! (a symbol is not a bit, so they are not the lanes' corrected bits), the SerDes eye and
//! taps (in units EOS does not state), the change counts, another chip's rows. Layouts read
//! on EOS 4.35.4M JSON (DCS-7050CX3-32C-R) and EOS 4.26.14M text (DCS-7160-48TC6-F)
//! (tests/fixtures/switch/README.md).

use super::{content_lines, Fragment, ParseError, ParseResult};
use crate::counters::{FecReadings, FecSource, FecStats, LatestReading, LinkInfo, LinkState, MAX_LANES};
use crate::module::printed::PrintedModule;
use serde_json::Value;

pub(crate) const TOOL: &str = "eos show interfaces phy detail";

/// Ports one output may hold (a modular chassis lists a few hundred).
const MAX_PORTS: usize = 2048;
/// Nesting below an interface that is kept as printed (EOS's own is 6 deep).
const MAX_DEPTH: usize = 8;

pub(crate) fn is_eos_phy_json(v: &Value) -> bool {
    v.get("interfacePhyStatuses").is_some_and(Value::is_object)
}

/// `{"value": x, ...}` -> x.
fn value<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key)?.get("value")
}

/// `{"value": 5, "changes": 6, "lastChange": 1787066000.42}` -> the latest reading (EOS
/// writes `lastChange` 0 for never).
fn reading(v: &Value, key: &str) -> ParseResult<Option<LatestReading>> {
    let Some(r) = v.get(key) else { return Ok(None) };
    let count = |field: &str| match r.get(field) {
        None => Ok(None),
        Some(n) => n.as_u64().map(Some).ok_or_else(|| ParseError::malformed(format!("{key} {field} {n} is not a count"))),
    };
    let Some(value) = count("value")? else { return Ok(None) };
    // Whole seconds: a change time is said to the second, and EOS's are after 1970 and
    // before 2^64 s (a value outside is no time).
    let at = r.get("lastChange").and_then(Value::as_f64).filter(|t| *t >= 1.0 && *t < 1.0e15).map(|t| t as u64);
    Ok(Some(LatestReading { value, changes: count("changes")?.unwrap_or(0), last_change_unix_s: at, last_change_age_s: None }))
}

/// `100Gbps` -> 100000 Mb/s.
fn speed_mbps(s: &str) -> Option<u32> {
    let g = s.strip_suffix("Gbps")?.parse::<u32>().ok()?;
    g.checked_mul(1000)
}

/// EOS's FEC encoding names, as the capture names them (`LinkInfo::fec_active`).
fn fec_active(encoding: &str) -> Option<String> {
    match encoding {
        "reedSolomon" | "reedSolomon544" => Some("RS".into()),
        "fireCode" => Some("BASER".into()),
        "disabled" => Some("None".into()),
        _ => None,
    }
}

/// Every scalar under `v` as `prefix/key/...` -> its text; `deeper` counts the values
/// below [`MAX_DEPTH`], which are not kept.
fn flatten(
    prefix: &str,
    v: &Value,
    depth: usize,
    out: &mut std::collections::BTreeMap<String, String>,
    deeper: &mut usize,
) -> ParseResult<()> {
    match v {
        Value::Object(o) if depth < MAX_DEPTH => {
            for (k, x) in o {
                super::field_name_fits("key", k)?;
                flatten(&format!("{prefix}/{k}"), x, depth + 1, out, deeper)?;
            }
        }
        Value::Array(a) if depth < MAX_DEPTH => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}/{i}"), x, depth + 1, out, deeper)?;
            }
        }
        Value::Object(_) | Value::Array(_) => *deeper += 1,
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        Value::Number(_) | Value::Bool(_) => {
            out.insert(prefix.to_string(), v.to_string());
        }
        Value::Null => {}
    }
    super::printed_fields_fit(out.len())
}

/// What optics reads of one port, the JSON and the text form alike.
#[derive(Default)]
struct Port {
    /// `Some` when the port has a FEC block (RS-FEC or fire-code): its codeword readings.
    fec: Option<FecReadings>,
    link: LinkInfo,
    up: Option<bool>,
    media: Option<String>,
    sn: Option<String>,
}

impl Port {
    fn fragment(self, name: &str, printed_fields: std::collections::BTreeMap<String, String>) -> Fragment {
        let mut f = Fragment { interface: Some(name.to_string()), printed_fields, ..Default::default() };
        if let Some(readings) = self.fec {
            // Latest readings, not running totals: never in the codeword arrays.
            let latest_readings = Some(readings).filter(|r| *r != FecReadings::default());
            f.fec = Some(FecStats { latest_readings, source: Some(FecSource::Eos), ..Default::default() });
        }
        if self.link != LinkInfo::default() {
            f.link = Some(self.link);
        }
        f.link_state = self.up.map(|up| LinkState { up: Some(up), ..Default::default() });
        if self.media.is_some() || self.sn.is_some() {
            f.printed_module = Some(PrintedModule { tool: TOOL.into(), media: self.media, vendor_sn: self.sn, ..Default::default() });
        }
        f
    }
}

fn port(name: &str, p: &Value) -> ParseResult<Fragment> {
    let mut port = Port::default();
    let phys = p.get("phyStatuses").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    for phy in phys {
        if let Some(fec) = phy.get("fec") {
            port.fec = Some(FecReadings {
                corrected_blocks: reading(fec, "correctedCodewords")?,
                uncorrectable_blocks: reading(fec, "uncorrectedCodewords")?,
            });
            port.link.fec_active = fec.get("encoding").and_then(Value::as_str).and_then(fec_active);
        }
        port.link.speed_mbps = port.link.speed_mbps.or_else(|| phy.get("operSpeed").and_then(Value::as_str).and_then(speed_mbps));
        if let Some(lanes) = phy.pointer("/pma/laneSignalDetect").and_then(Value::as_object).filter(|l| !l.is_empty()) {
            port.link.lanes = port.link.lanes.or(Some(lane_count(lanes.len())?));
        }
    }
    port.up = value(p, "interfaceState").and_then(Value::as_str).map(|s| s == "up");
    if let Some(t) = p.get("transceiver") {
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
        port.media = text(value(t, "mediaType"));
        port.sn = text(t.get("vendorSn"));
    }
    let (mut printed, mut deeper) = (std::collections::BTreeMap::new(), 0);
    flatten("phy-detail", p, 0, &mut printed, &mut deeper)?;
    let mut f = port.fragment(name, printed);
    if deeper > 0 {
        f.notes.push(format!("{deeper} object(s) nested deeper than {MAX_DEPTH} levels not kept as printed"));
    }
    Ok(f)
}

/// A port's lane count, refused past what a port can have.
fn lane_count(n: usize) -> ParseResult<u32> {
    if n > MAX_LANES {
        return Err(ParseError::TooMany { what: "lanes on one port", max: MAX_LANES });
    }
    // `n` <= MAX_LANES (16), so it fits a u32.
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let v: Value = serde_json::from_str(text).map_err(ParseError::syntax)?;
    let ports =
        v.get("interfacePhyStatuses").and_then(Value::as_object).ok_or_else(|| ParseError::missing("interfacePhyStatuses object"))?;
    if ports.len() > MAX_PORTS {
        return Err(ParseError::TooMany { what: "ports in one output", max: MAX_PORTS });
    }
    let ports = ports.iter().map(|(name, p)| port(name, p).map_err(|e| e.at(name))).collect::<ParseResult<Vec<_>>>()?;
    if ports.is_empty() {
        return Err(ParseError::missing("interface under interfacePhyStatuses"));
    }
    Ok(Fragment { ports, ..Default::default() })
}

/// The text form names the FEC as EOS prints it (`Reed-Solomon`, `Fire-code`, `None`).
fn fec_active_text(name: &str) -> Option<String> {
    match name.to_ascii_lowercase().as_str() {
        "reed-solomon" | "reed-solomon 544" => Some("RS".into()),
        "fire-code" | "fire code" => Some("BASER".into()),
        "none" | "disabled" => Some("None".into()),
        _ => None,
    }
}

/// Whether `text` is `show interfaces [IF] phy detail` as EOS prints it: a `PHY state` row
/// under the `Current State  Changes  Last Change` heading.
pub fn is_eos_phy_text(text: &str) -> bool {
    let mut lines = content_lines(text).map(str::trim);
    let heading = lines.any(|l| l.starts_with("Current State") && l.contains("Changes") && l.contains("Last Change"));
    heading && content_lines(text).any(|l| l.trim_start().starts_with("PHY state "))
}

/// A port's heading: its name alone at the start of a line (`Ethernet49/1`).
fn port_heading(line: &str) -> Option<&str> {
    let name = line.trim_end();
    let ok = !line.starts_with(char::is_whitespace)
        && name.starts_with("Ethernet")
        && name.len() > "Ethernet".len()
        && !name.contains(char::is_whitespace);
    ok.then_some(name)
}

/// `  Label          value   changes   last change` -> (label, the cells after it). Columns
/// are set apart by two spaces or more; a label has single spaces inside.
fn row(line: &str) -> Option<(&str, Vec<&str>)> {
    let t = line.trim();
    let mut cells = t.split("  ").map(str::trim).filter(|c| !c.is_empty());
    let label = cells.next()?;
    Some((label, cells.collect()))
}

/// A figure's row as its latest reading: `FEC corrected codewords  1  577  2:39:43 ago` is
/// a reading of 1 that changed 577 times, last 2:39:43 before the output (`never`: no time).
fn text_reading(label: &str, cells: &[&str]) -> ParseResult<Option<LatestReading>> {
    let count = |v: &str| v.parse::<u64>().map_err(|_| ParseError::malformed(format!("{label} {v:?} is not a count")));
    let Some((value, rest)) = cells.split_first() else { return Ok(None) };
    // A row may leave its change count out (`PCS err blocks  309  10:32:09 ago`).
    let changes = rest.iter().find_map(|c| c.parse::<u64>().ok()).unwrap_or(0);
    let last_change_age_s = rest.iter().find_map(|a| age_s(a));
    Ok(Some(LatestReading { value: count(value)?, changes, last_change_age_s, last_change_unix_s: None }))
}

/// `67 days, 4:51:43 ago` / `1 day, 22:45:12 ago` / `2:39:43 ago` -> seconds; `never` or
/// anything else -> `None`.
fn age_s(text: &str) -> Option<u64> {
    let t = text.strip_suffix(" ago")?.trim();
    let (days, clock) = match t.split_once(',') {
        Some((d, c)) => (d.trim().strip_suffix("days").or_else(|| d.trim().strip_suffix("day"))?.trim().parse::<u64>().ok()?, c.trim()),
        None => (0, t),
    };
    let mut hms = clock.split(':').map(|p| p.parse::<u64>().ok());
    let (h, m, s) = (hms.next()??, hms.next()??, hms.next()??);
    if hms.next().is_some() || m > 59 || s > 59 {
        return None;
    }
    days.checked_mul(86_400)?.checked_add(h.checked_mul(3600)?)?.checked_add(m * 60 + s)
}

/// One port's block of the text form, after its heading line. Rows two spaces in are the
/// port's own PHY; a row with no value heads the rows further in (`FEC lane corrected
/// symbols`, then `Lane 0 ...`); a line at the start is a table (`LANE REV RATE ...`, its
/// rows after it) or another chip of the port (`Coherent transceiver phy`), kept as printed.
fn text_port(name: &str, lines: &[&str]) -> ParseResult<Fragment> {
    let mut port = Port::default();
    let mut printed = std::collections::BTreeMap::new();
    let (mut chip, mut group, mut table) = (String::new(), String::new(), None::<String>);
    for line in lines {
        let t = line.trim();
        if t.is_empty() || t.starts_with("Current System Time:") || t.starts_with("---") || t.starts_with('|') {
            continue;
        }
        if !line.starts_with(char::is_whitespace) {
            let mut words = t.split_whitespace();
            let first = words.next().unwrap_or_default();
            if first.chars().all(|c| c.is_ascii_uppercase()) && words.next().is_some() {
                super::field_name_fits("table name", first)?;
                table = Some(first.to_string());
            } else if let Some(table) = &table {
                super::field_name_fits("table row name", first)?;
                printed.insert(format!("phy-detail/{table} {first}"), t[first.len()..].trim().to_string());
                super::printed_fields_fit(printed.len())?;
            } else {
                super::field_name_fits("chip heading", t)?;
                (chip, group) = (t.to_string(), String::new());
            }
            continue;
        }
        table = None;
        let Some((label, cells)) = row(line) else { continue };
        if label.starts_with("Current State") {
            continue;
        }
        let deep = line.len() - line.trim_start().len() > 2;
        if !deep {
            group = if cells.is_empty() { label.to_string() } else { String::new() };
        }
        let within = [chip.as_str(), if deep { group.as_str() } else { "" }];
        let path: Vec<&str> = std::iter::once("phy-detail").chain(within.into_iter().filter(|p| !p.is_empty())).chain([label]).collect();
        if !cells.is_empty() {
            super::field_name_fits("row label", label)?;
            if deep {
                super::field_name_fits("row group", &group)?;
            }
            printed.insert(path.join("/"), cells.join("  "));
            super::printed_fields_fit(printed.len())?;
        }
        if !chip.is_empty() {
            continue; // another chip's view (a MACsec PHY, a coherent DSP): kept as printed
        }
        match (deep, group.as_str(), label) {
            (false, _, "Interface state") => port.up = cells.first().map(|s| *s == "up"),
            (false, _, "Transceiver") => port.media = cells.first().map(|s| s.to_string()),
            (false, _, "Transceiver SN") => port.sn = cells.first().map(|s| s.to_string()),
            (false, _, "Oper speed") => port.link.speed_mbps = cells.first().and_then(|s| speed_mbps(s)),
            (false, _, "Forward Error Correction") => {
                port.link.fec_active = cells.first().and_then(|s| fec_active_text(s));
                if port.link.fec_active.as_deref().is_some_and(|f| f != "None") {
                    port.fec.get_or_insert_default();
                }
            }
            (false, _, "FEC corrected codewords") => port.fec.get_or_insert_default().corrected_blocks = text_reading(label, &cells)?,
            (false, _, "FEC uncorrected codewords") => port.fec.get_or_insert_default().uncorrectable_blocks = text_reading(label, &cells)?,
            (true, "FEC lane mapping", "PMA lane") => {
                let lanes: std::collections::BTreeSet<&str> = cells.iter().flat_map(|c| c.split_whitespace()).collect();
                port.link.lanes = Some(lane_count(lanes.len())?);
            }
            _ => {}
        }
    }
    Ok(port.fragment(name, printed))
}

/// `show interfaces [IF] phy detail` as EOS prints it: one block per port, headed by its name.
pub fn parse_text(text: &str) -> ParseResult<Fragment> {
    let lines: Vec<&str> = content_lines(text).collect();
    let starts: Vec<(usize, &str)> = lines.iter().enumerate().filter_map(|(i, l)| Some((i, port_heading(l)?))).collect();
    if starts.len() > MAX_PORTS {
        return Err(ParseError::TooMany { what: "ports in one output", max: MAX_PORTS });
    }
    let mut ports = Vec::with_capacity(starts.len());
    for (k, &(at, name)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(lines.len(), |&(next, _)| next);
        ports.push(text_port(name, &lines[at + 1..end]).map_err(|e| e.at(name))?);
    }
    if ports.is_empty() {
        return Err(ParseError::missing("a port heading (EthernetN) above the PHY rows"));
    }
    Ok(Fragment { ports, ..Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_and_encodings_as_eos_names_them() {
        assert_eq!(speed_mbps("100Gbps"), Some(100_000));
        assert_eq!(speed_mbps("10Gbps"), Some(10_000));
        assert_eq!(speed_mbps("Unknown"), None);
        assert_eq!(fec_active("reedSolomon").as_deref(), Some("RS"));
        assert_eq!(fec_active("fireCode").as_deref(), Some("BASER"));
    }

    #[test]
    fn text_rows_and_what_they_refuse() {
        let head = "Ethernet7\n                   Current State   Changes   Last Change\n";
        // A copper port: no FEC block, so no codewords are made up.
        let copper =
            parse_text(&format!("{head}  PHY state          linkUp   1   0:01:00 ago\n  Forward Error Correction    None\n")).unwrap();
        assert!(copper.ports[0].fec.is_none());
        assert_eq!(copper.ports[0].link.as_ref().unwrap().fec_active.as_deref(), Some("None"));
        // A figure that is not a count names its row and its port.
        let e = parse_text(&format!("{head}  PHY state   linkUp   1   x\n  FEC corrected codewords     many   3   0:01:00 ago\n"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Ethernet7") && e.contains("FEC corrected codewords"), "{e}");
        // Rows with no port heading above them are not a port.
        assert!(parse_text("  PHY state   linkUp   1   0:01:00 ago\n").is_err());
        assert_eq!(port_heading("Ethernet49/1"), Some("Ethernet49/1"));
        assert_eq!(port_heading("INTF   PCSLK RF"), None);
        assert_eq!(fec_active_text("Fire-code").as_deref(), Some("BASER"));
    }

    #[test]
    fn a_count_that_is_not_one_is_refused() {
        let text = r#"{"interfacePhyStatuses": {"Ethernet1/1": {"phyStatuses": [{"fec": {"correctedCodewords": {"value": "x"}}}]}}}"#;
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains("Ethernet1/1") && e.contains("correctedCodewords"), "{e}");
    }
}
