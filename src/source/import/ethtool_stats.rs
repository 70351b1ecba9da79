//! `ethtool -S IFACE` (text: `NIC statistics:` then `     name: value` lines, as ethtool.c
//! prints the driver's string set; with `--groups`, `Stats for IFACE:` then `group-Name: value`)
//! and `ethtool --json -S IFACE` (an array of one object: `ifname` and the counters, at the
//! top level or under `statistics`; standard groups as objects, flattened to `group-Name`). The counters go into
//! `driver_stats` exactly as the live ioctl reads them, so `counters::normalize` maps them.

use super::{content_lines, Fragment, ParseError, ParseResult};
use std::sync::Arc;

pub(crate) fn parse_text(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    // Collected, then sorted once (a name added to `DriverStats` one by one costs O(n)).
    let mut counters = Vec::new();
    let mut skipped = 0usize;
    for line in content_lines(text).map(str::trim).filter(|l| !l.is_empty() && *l != "NIC statistics:") {
        if let Some(name) = line.strip_prefix("Stats for ").and_then(|n| n.strip_suffix(':')) {
            f.interface = Some(name.trim().to_string());
            continue;
        }
        // Per-queue lines keep their prefix (`[0]: rx_ucast_packets: 5`): split at the last colon.
        match line.rsplit_once(':').map(|(k, v)| (k.trim(), v.trim().parse::<u64>())) {
            Some((k, Ok(v))) if !k.is_empty() => counters.push((k.into(), v)),
            _ => skipped += 1,
        }
    }
    f.driver_stats = counters.into_iter().collect();
    if f.driver_stats.is_empty() {
        return Err(ParseError::missing("`name: value` counter lines"));
    }
    if skipped > 0 {
        f.notes.push(format!("{skipped} line(s) that are not `name: unsigned integer` skipped"));
    }
    Ok(f)
}

/// Numbers by name; a nested object of numbers (a standard group such as `eth-phy`) as
/// `group-Name`, the text form's names.
fn insert_numbers(obj: &serde_json::Map<String, serde_json::Value>, out: &mut Vec<(Arc<str>, u64)>) {
    for (k, v) in obj {
        if let Some(n) = v.as_u64() {
            out.push((k.as_str().into(), n));
        } else if let Some(group) = v.as_object().filter(|_| k != "statistics") {
            for (name, n) in group.iter().filter_map(|(name, n)| n.as_u64().map(|n| (name, n))) {
                out.push((format!("{k}-{name}").into(), n));
            }
        }
    }
}

pub(crate) fn parse_json(text: &str) -> ParseResult<Fragment> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(ParseError::syntax)?;
    let arr = v.as_array().ok_or_else(|| ParseError::malformed("expected a JSON array of interface objects"))?;
    if arr.len() != 1 {
        return Err(ParseError::refused(
            format!("{} interface objects; expected one", arr.len()),
            "give one interface's ethtool --json -S IFACE",
        ));
    }
    let obj = arr[0].as_object().ok_or_else(|| ParseError::malformed("array element is not an object"))?;
    let mut f = Fragment { interface: obj.get("ifname").and_then(|n| n.as_str()).map(str::to_string), ..Default::default() };
    let mut counters = Vec::new();
    insert_numbers(obj, &mut counters);
    if let Some(s) = obj.get("statistics").and_then(|s| s.as_object()) {
        insert_numbers(s, &mut counters);
    }
    f.driver_stats = counters.into_iter().collect();
    if f.driver_stats.is_empty() {
        return Err(ParseError::missing("numeric counters"));
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::normalize;

    #[test]
    fn bnxt_real_excerpt() {
        let text = include_str!("../../../tests/fixtures/real-dumps/ctr03_bnxt_en_ethtool_S_10g_sfp_port_stats.txt");
        let f = parse_text(text).unwrap();
        assert_eq!(f.driver_stats["rx_bits"], 1_722_813_173_120);
        assert_eq!(f.driver_stats["link_down_events"], 4);
        assert!(f.notes.is_empty(), "{:?}", f.notes);
        let p = normalize(None, None, &f.driver_stats);
        assert_eq!(p.link_down_events.unwrap().value, 4);
    }

    #[test]
    fn mlx5_lane_counters_with_heading_and_queue_lines() {
        let text =
            "NIC statistics:\n     rx_packets: 10\n     [0]: rx_ucast_packets: 5\n     rx_err_lane_0_phy: 6\n     rx_err_lane_1_phy: 2\n";
        let f = parse_text(text).unwrap();
        assert_eq!(f.driver_stats["[0]: rx_ucast_packets"], 5);
        let p = normalize(None, None, &f.driver_stats);
        assert_eq!(p.corrected_bits_per_lane.unwrap().values, vec![6, 2]);
    }

    #[test]
    fn json_form() {
        let f = parse_json(r#"[ { "ifname": "ens3np0", "rx_err_lane_0_phy": 7, "statistics": {"rx_corrected_bits_phy": 9} } ]"#).unwrap();
        assert_eq!(f.interface.as_deref(), Some("ens3np0"));
        assert_eq!((f.driver_stats["rx_err_lane_0_phy"], f.driver_stats["rx_corrected_bits_phy"]), (7, 9));
        assert!(parse_json("[]").is_err());
        // Standard groups (ethtool --json -S IFACE --groups eth-phy): named as the text form names them.
        let f = parse_json(r#"[ { "ifname": "eth0", "eth-phy": { "SymbolErrorDuringCarrier": 1 } } ]"#).unwrap();
        assert_eq!(f.driver_stats["eth-phy-SymbolErrorDuringCarrier"], 1);
        let t = parse_text("Stats for eth0:\neth-phy-SymbolErrorDuringCarrier: 1\n").unwrap();
        assert_eq!((t.interface.as_deref(), t.driver_stats.clone()), (Some("eth0"), f.driver_stats));
    }
}
