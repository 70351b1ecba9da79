//! lldpd's neighbor table (`lldpcli show neighbors [details]`, `lldpctl`), in its three output
//! formats: plain text (`Interface:    eth0, via: LLDP, ...` blocks with `SysName:`,
//! `PortID:    ifname Ethernet1`, `PortDescr:`), `-f keyvalue` (`lldp.eth0.chassis.name=...`,
//! `lldp.eth0.port.ifname=...`) and `-f json` / `-f json0`. Each host interface with a
//! neighbor becomes a fragment naming the far end of its cable ([`LinkNeighbor`]): the
//! switch (System Name TLV, IEEE 802.1AB-2016 8.5.6, else the chassis ID, 8.5.2) and its port
//! (Port ID TLV, 8.5.3, and Port Description, 8.5.5). Layouts read in lldpd's
//! `src/client/text_writer.c`, `kv_writer.c`, `json_writer.c` and its integration tests, and
//! checked on real outputs in tests/fixtures/lldp/.

use super::{Fragment, ParseError, ParseResult};
use crate::device::LinkNeighbor;
use serde_json::Value;

/// Most neighbors one output may list (bounded memory).
const MAX_NEIGHBORS: usize = 4096;

/// lldpd's text block heading: `Interface:    eth0, via: LLDP, RID: 1, Time: ...`.
fn text_heading(line: &str) -> Option<(&str, Option<&str>)> {
    let rest = line.trim().strip_prefix("Interface:")?;
    let (name, tail) = rest.split_once(',').unwrap_or((rest, ""));
    let via = tail.trim().strip_prefix("via:").map(|v| v.split(',').next().unwrap_or("").trim()).filter(|v| !v.is_empty());
    let name = name.trim();
    (!name.is_empty() && !name.contains(' ')).then_some((name, via))
}

pub(crate) fn is_text(text: &str) -> bool {
    let mut heading = false;
    for l in text.lines().map(str::trim) {
        if text_heading(l).is_some_and(|(_, via)| via.is_some()) {
            heading = true;
        } else if heading && (l.starts_with("ChassisID:") || l.starts_with("PortID:") || l.starts_with("SysName:")) {
            return true;
        }
    }
    false
}

pub(crate) fn is_keyvalue(text: &str) -> bool {
    text.lines().map(str::trim).filter(|l| !l.is_empty()).all(|l| l.starts_with("lldp.") && l.contains('='))
        && text.lines().any(|l| l.contains(".chassis.") || l.contains(".port."))
}

pub(crate) fn is_json(v: &Value) -> bool {
    v.get("lldp").is_some_and(|l| l.is_object() || l.is_array())
}

/// `ifname Ethernet1`, `mac 00:11:..`, `local 34` -> the value after the subtype word.
fn id_value(v: &str) -> &str {
    let v = v.trim();
    match v.split_once(' ') {
        Some((sub, rest)) if ["ifname", "mac", "local", "ifalias", "ip", "unhandled"].contains(&sub) => rest.trim(),
        _ => v,
    }
}

fn set(slot: &mut Option<String>, v: &str) {
    let v = v.trim();
    if slot.is_none() && !v.is_empty() {
        *slot = Some(v.to_string());
    }
}

fn fragments(found: Vec<(String, LinkNeighbor)>) -> ParseResult<Fragment> {
    let mut ports = Vec::new();
    for (iface, n) in found {
        if n.system.is_none() && n.chassis_id.is_none() && n.port.is_none() {
            continue;
        }
        if ports.len() == MAX_NEIGHBORS {
            return Err(ParseError::TooMany { what: "neighbors in one output", max: MAX_NEIGHBORS });
        }
        ports.push(Fragment { interface: Some(iface), neighbor: Some(n), ..Default::default() });
    }
    if ports.is_empty() {
        return Err(ParseError::missing(
            "neighbor with a chassis or port ID (lldpd has not heard its peers yet, or LLDP is off on the switch)",
        ));
    }
    Ok(Fragment { ports, ..Default::default() })
}

pub(crate) fn parse_text(text: &str) -> ParseResult<Fragment> {
    let mut found: Vec<(String, LinkNeighbor)> = Vec::new();
    for line in text.lines() {
        if let Some((iface, via)) = text_heading(line) {
            found.push((iface.to_string(), LinkNeighbor { via: via.map(str::to_string), ..Default::default() }));
            continue;
        }
        let Some((_, n)) = found.last_mut() else { continue };
        let Some((k, v)) = line.split_once(':') else { continue };
        match k.trim() {
            "SysName" => set(&mut n.system, v),
            "ChassisID" => set(&mut n.chassis_id, id_value(v)),
            "PortID" => set(&mut n.port, id_value(v)),
            "PortDescr" => set(&mut n.port_description, v),
            _ => {}
        }
    }
    fragments(found)
}

pub(crate) fn parse_keyvalue(text: &str) -> ParseResult<Fragment> {
    let mut found: Vec<(String, LinkNeighbor)> = Vec::new();
    for line in text.lines() {
        let Some((k, v)) = line.trim().split_once('=') else { continue };
        let Some(rest) = k.strip_prefix("lldp.") else { continue };
        // The interface name may hold dots (`eth0.100`): the key's known tails end it.
        const TAILS: [&str; 7] = [".via", ".chassis.name", ".chassis.mac", ".chassis.local", ".port.ifname", ".port.descr", ".port.mac"];
        let Some((iface, tail)) = TAILS.iter().find_map(|t| rest.strip_suffix(t).map(|i| (i, *t))) else { continue };
        let at = match found.iter().position(|(i, _)| i == iface) {
            Some(at) => at,
            None => {
                found.push((iface.to_string(), LinkNeighbor::default()));
                found.len() - 1
            }
        };
        let n = &mut found[at].1;
        match tail {
            ".via" => set(&mut n.via, v),
            ".chassis.name" => set(&mut n.system, v),
            ".chassis.mac" | ".chassis.local" => set(&mut n.chassis_id, v),
            ".port.ifname" | ".port.mac" => set(&mut n.port, v),
            _ => set(&mut n.port_description, v),
        }
    }
    fragments(found)
}

/// A JSON value as text: a string, or lldpd's `{"value": ..}` / `[{"value": ..}]` forms.
fn text_of(v: &Value) -> Option<&str> {
    match v {
        Value::String(s) => Some(s),
        Value::Array(a) => a.first().and_then(text_of),
        Value::Object(o) => o.get("value").and_then(text_of),
        _ => None,
    }
}

/// One interface's object (`{"via": .., "chassis": {..}, "port": {..}}`).
fn json_neighbor(o: &Value) -> LinkNeighbor {
    let mut n = LinkNeighbor::default();
    if let Some(v) = o.get("via").and_then(text_of) {
        set(&mut n.via, v);
    }
    // `-f json`: the chassis is keyed by its system name (`{"ns-2": {"id": ..}}`), or is
    // `{"id": ..}` when it has none; `-f json0`: a list of `{"name": [..], "id": [..]}`.
    let chassis = o.get("chassis").map(|c| if let Value::Array(a) = c { a.first().unwrap_or(c) } else { c });
    if let Some(Value::Object(c)) = chassis {
        if let Some(id) = c.get("id").and_then(text_of) {
            set(&mut n.chassis_id, id);
            if let Some(name) = c.get("name").and_then(text_of) {
                set(&mut n.system, name);
            }
        } else if let Some((name, inner)) = c.iter().next() {
            set(&mut n.system, name);
            if let Some(id) = inner.get("id").and_then(text_of) {
                set(&mut n.chassis_id, id);
            }
        }
    }
    let port = o.get("port").map(|p| if let Value::Array(a) = p { a.first().unwrap_or(p) } else { p });
    if let Some(p) = port {
        if let Some(id) = p.get("id").and_then(text_of) {
            set(&mut n.port, id);
        }
        if let Some(d) = p.get("descr").and_then(text_of) {
            set(&mut n.port_description, d);
        }
    }
    n
}

pub(crate) fn parse_json(text: &str) -> ParseResult<Fragment> {
    let v: Value = serde_json::from_str(text).map_err(ParseError::syntax)?;
    let lldp = v.get("lldp").ok_or_else(|| ParseError::missing("\"lldp\" object"))?;
    // `json0` wraps everything in lists: `{"lldp": [{"interface": [{"name": "eth0", ..}]}]}`.
    let lldp = if let Value::Array(a) = lldp { a.first().unwrap_or(lldp) } else { lldp };
    let mut found = Vec::new();
    match lldp.get("interface") {
        // One neighbor: `{"eth0": {..}}`.
        Some(Value::Object(m)) => found.extend(m.iter().map(|(k, o)| (k.clone(), json_neighbor(o)))),
        // Several (`-f json`): `[{"eth0": {..}}, {"eth1": {..}}]`; `json0`: `[{"name": "eth0", ..}]`.
        Some(Value::Array(a)) => {
            for item in a.iter().take(MAX_NEIGHBORS + 1) {
                match item.get("name").and_then(text_of) {
                    Some(name) => found.push((name.to_string(), json_neighbor(item))),
                    None => {
                        if let Value::Object(m) = item {
                            found.extend(m.iter().map(|(k, o)| (k.clone(), json_neighbor(o))));
                        }
                    }
                }
            }
        }
        _ => return Err(ParseError::missing("neighbor (an empty \"lldp\" object: lldpd has heard no peer)")),
    }
    fragments(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subtype_words_are_not_the_id() {
        assert_eq!(id_value("ifname Ethernet1"), "Ethernet1");
        assert_eq!(id_value("local 34"), "34");
        assert_eq!(id_value("mac a4:8c:db:6a:09:00"), "a4:8c:db:6a:09:00");
        assert_eq!(id_value("Ethernet1"), "Ethernet1");
    }

    #[test]
    fn an_empty_table_is_said() {
        assert!(parse_json(r#"{"lldp": {}}"#).unwrap_err().to_string().contains("heard no peer"));
    }
}
