//! Arista EOS `show interfaces phy detail | json`: per interface (`interfacePhyStatuses`,
//! keyed by the long name, `Ethernet29/1`) the PHY's view of its port, each figure a
//! `{value, changes, lastChange}` object:
//!
//! - `phyStatuses[].fec`: `correctedCodewords` / `uncorrectedCodewords` -> the port's FEC
//!   corrected / uncorrectable codewords (RS-FEC: IEEE 802.3 91.6.8 / 91.6.9, counted since
//!   the switch last cleared them; EOS prints no time since the clear); `encoding`
//!   (`reedSolomon`, `fireCode`) -> the FEC in use;
//! - `operSpeed` (`100Gbps`) and the `pma.laneSignalDetect` lanes -> speed and lane count;
//! - `interfaceState` (`up`) -> link up;
//! - `transceiver.mediaType` and `vendorSn` -> the port's module as printed (its media names
//!   the PMD of the link budget; EOS pads the serial number with spaces, trimmed here).
//!
//! Every scalar under the interface is kept as printed (`phy-detail/<path>`): the per-lane
//! corrected symbols (a symbol is not a bit, so they are not the lanes' corrected bits), the
//! SerDes eye (`eyeLeft` ... `eyeLower`, in units EOS does not state), taps and the change
//! counts. Layout read on a DCS-7050CX3-32C-R running EOS 4.35.4M (tests/fixtures/switch/).

use super::{Fragment, ParseError, ParseResult};
use crate::counters::{FecSource, FecStats, LinkInfo, LinkState, MAX_LANES};
use crate::module::printed::PrintedModule;
use serde_json::Value;

pub const TOOL: &str = "eos show interfaces phy detail";

/// Ports one output may hold (a modular chassis lists a few hundred).
const MAX_PORTS: usize = 2048;
/// Nesting below an interface that is kept as printed (EOS's own is 6 deep).
const MAX_DEPTH: usize = 8;

pub fn is_eos_phy_json(v: &Value) -> bool {
    v.get("interfacePhyStatuses").is_some_and(Value::is_object)
}

/// `{"value": x, ...}` -> x.
fn value<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    v.get(key)?.get("value")
}

fn count(v: &Value, key: &str) -> ParseResult<Option<u64>> {
    match value(v, key) {
        None => Ok(None),
        Some(n) => n.as_u64().map(Some).ok_or_else(|| ParseError::malformed(format!("{key} {n} is not a count"))),
    }
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

/// Every scalar under `v` as `prefix/key/...` -> its text.
fn flatten(prefix: &str, v: &Value, depth: usize, out: &mut std::collections::BTreeMap<String, String>) {
    match v {
        Value::Object(o) if depth < MAX_DEPTH => {
            for (k, x) in o {
                flatten(&format!("{prefix}/{k}"), x, depth + 1, out);
            }
        }
        Value::Array(a) if depth < MAX_DEPTH => {
            for (i, x) in a.iter().enumerate() {
                flatten(&format!("{prefix}/{i}"), x, depth + 1, out);
            }
        }
        Value::String(s) => {
            out.insert(prefix.to_string(), s.clone());
        }
        Value::Number(_) | Value::Bool(_) => {
            out.insert(prefix.to_string(), v.to_string());
        }
        _ => {}
    }
}

fn port(name: &str, p: &Value) -> ParseResult<Fragment> {
    let mut f = Fragment { interface: Some(name.to_string()), ..Default::default() };
    let phys = p.get("phyStatuses").and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let mut link = LinkInfo::default();
    for phy in phys {
        if let Some(fec) = phy.get("fec") {
            let corrected = count(fec, "correctedCodewords")?;
            let uncorrected = count(fec, "uncorrectedCodewords")?;
            f.fec = Some(FecStats {
                corrected_blocks: corrected.into_iter().collect(),
                uncorrectable_blocks: uncorrected.into_iter().collect(),
                source: Some(FecSource::Eos),
                ..Default::default()
            });
            link.fec_active = fec.get("encoding").and_then(Value::as_str).and_then(fec_active);
        }
        link.speed_mbps = link.speed_mbps.or_else(|| phy.get("operSpeed").and_then(Value::as_str).and_then(speed_mbps));
        if let Some(lanes) = phy.pointer("/pma/laneSignalDetect").and_then(Value::as_object).filter(|l| !l.is_empty()) {
            if lanes.len() > MAX_LANES {
                return Err(ParseError::TooMany { what: "lanes on one port", max: MAX_LANES });
            }
            // `lanes.len()` <= MAX_LANES (16), so it fits a u32.
            link.lanes = link.lanes.or(u32::try_from(lanes.len()).ok());
        }
    }
    if link != LinkInfo::default() {
        f.link = Some(link);
    }
    if let Some(state) = value(p, "interfaceState").and_then(Value::as_str) {
        f.link_state = Some(LinkState { up: Some(state == "up"), ..Default::default() });
    }
    if let Some(t) = p.get("transceiver") {
        let media = value(t, "mediaType").and_then(Value::as_str).map(str::trim).filter(|m| !m.is_empty());
        let sn = t.get("vendorSn").and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
        if media.is_some() || sn.is_some() {
            f.printed_module = Some(PrintedModule {
                tool: TOOL.into(),
                media: media.map(str::to_string),
                vendor_sn: sn.map(str::to_string),
                ..Default::default()
            });
        }
    }
    flatten("phy-detail", p, 0, &mut f.printed_fields);
    Ok(f)
}

pub fn parse(text: &str) -> ParseResult<Fragment> {
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
    fn a_count_that_is_not_one_is_refused() {
        let text = r#"{"interfacePhyStatuses": {"Ethernet1/1": {"phyStatuses": [{"fec": {"correctedCodewords": {"value": "x"}}}]}}}"#;
        let e = parse(text).unwrap_err().to_string();
        assert!(e.contains("Ethernet1/1") && e.contains("correctedCodewords"), "{e}");
    }
}
