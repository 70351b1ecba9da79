//! Junos `show interfaces diagnostics optics [IFACE]` (EX, QFX, MX, PTX): one block per
//! `Physical interface: NAME`, module monitors and thresholds first, then per lane a
//! `Lane N` block (0-based) for multi-lane modules. The labels are ethtool's (`Laser output
//! power : 0.6560 mW / -1.83 dBm`, `Module temperature : 36 degrees C / 97 degrees F`), plus
//! `Laser receiver power` for a lane's receive power, so the lines go through the decoded
//! `ethtool -m` label table ([`super::ethtool_module`]). Layout read in Juniper's CLI
//! reference for the command and checked on the real outputs in tests/fixtures/switch/.

use super::{ethtool_module, key_value, Fragment, ParseError, ParseResult};

pub(crate) const TOOL: &str = "junos show interfaces diagnostics optics";

const HEADING: &str = "Physical interface:";

/// Lines that only Junos' optics diagnostics print under a `Physical interface:` heading.
pub(crate) fn is_junos_optics(text: &str) -> bool {
    let mut heading = false;
    for l in text.lines().map(str::trim) {
        if l.starts_with(HEADING) {
            heading = true;
        } else if heading
            && key_value(l).is_some_and(|(k, _)| matches!(k, "Laser output power" | "Laser bias current" | "Module temperature"))
        {
            return true;
        }
    }
    false
}

/// More lanes than any module has: a larger `Lane N` is not read (bounded memory).
const MAX_LANES: usize = 32;

/// `Lane 2` -> 2.
fn lane_heading(line: &str) -> Option<usize> {
    line.strip_prefix("Lane ")?.trim().parse().ok()
}

/// A `label : value` line and the lane (0-based) it is under.
type Line<'a> = (&'a str, &'a str, Option<usize>);

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    // (interface, its lines)
    let mut blocks: Vec<(String, Vec<Line>)> = Vec::new();
    let mut lane = None;
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix(HEADING) {
            blocks.push((name.trim().to_string(), Vec::new()));
            lane = None;
        } else if let Some(n) = lane_heading(line) {
            lane = Some(n);
        } else if lane.is_some_and(|n| n >= MAX_LANES) {
            continue;
        } else if let (Some((_, lines)), Some((k, v))) = (blocks.last_mut(), key_value(line)) {
            lines.push((k, v, lane));
        }
    }
    if blocks.is_empty() {
        return Err(ParseError::missing(format!("`{HEADING}` block")));
    }
    let mut ports = Vec::with_capacity(blocks.len());
    for (name, lines) in blocks {
        let (m, notes) = ethtool_module::parse_labelled(TOOL, lines.into_iter())?;
        ports.push(Fragment { interface: Some(name), printed_module: Some(m), notes, ..Default::default() });
    }
    Ok(Fragment { ports, ..Default::default() })
}
