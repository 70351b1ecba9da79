//! `ethtool --show-fec IFACE --statistics` (`-I`) text and `--json`, as ethtool's
//! `netlink/fec.c` prints them: `Active FEC encoding: RS`, then under `Statistics:` each
//! counter as `  name: total` followed by `    Lane N: value` lines (N from 0) in ethtool
//! before 6.19; from the histogram patch on (ethtool-next, October 2025, for Linux 6.18's
//! `ETHTOOL_A_FEC_STAT_HIST`) a counter's lanes on its own line (`  name: total [ per_lane: a,
//! b ]`) and each histogram bin as `  fec_symbol_err_LOW[_to_HIGH]: total [ per_lane: .. ]`
//! (the patch's first version named the bins `fec_bit_err_`, its code prints `fec_symbols_err_`;
//! all three are read).
//! JSON: `active`, and `statistics.NAME.{total,lanes}`, `statistics.hist[].{bin_low,bin_high,total,lanes}`.
//! Values become the netlink `FecStats` shape (`[total, lane 1, ..]`) the live source fills.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::counters::{FecHistogramBin, FecStats, LinkInfo};

/// ethtool's FEC names (`None`, `Off`, `RS`, `BaseR`, `LLRS`, `Auto`) as the capture's
/// kernel link-mode bit names.
fn fec_active(name: &str) -> Option<String> {
    match name.trim().to_ascii_uppercase().as_str() {
        "NONE" | "OFF" => Some("None".into()),
        "RS" => Some("RS".into()),
        "BASER" => Some("BASER".into()),
        "LLRS" => Some("LLRS".into()),
        _ => None,
    }
}

fn counter_mut<'a>(fec: &'a mut FecStats, name: &str) -> Option<&'a mut Vec<u64>> {
    match name {
        "corrected_blocks" => Some(&mut fec.corrected_blocks),
        "uncorrectable_blocks" => Some(&mut fec.uncorrectable_blocks),
        "corrected_bits" => Some(&mut fec.corrected_bits),
        _ => None,
    }
}

/// The bin name prefixes ethtool's histogram patch printed, in its versions.
const BIN_PREFIXES: [&str; 3] = ["fec_symbol_err_", "fec_symbols_err_", "fec_bit_err_"];

/// `fec_symbol_err_0` -> (0, 0); `fec_symbol_err_1_to_3` -> (1, 3).
fn bin_range(name: &str) -> Option<(u32, u32)> {
    let r = BIN_PREFIXES.iter().find_map(|p| name.strip_prefix(p))?;
    match r.split_once("_to_") {
        Some((lo, hi)) => Some((lo.parse().ok()?, hi.parse().ok()?)),
        None => r.parse().ok().map(|v| (v, v)),
    }
}

fn parse_u64(s: &str) -> ParseResult<u64> {
    s.trim().parse().map_err(|_| ParseError::malformed(format!("{s:?} is not an unsigned integer")))
}

/// `445 [ per_lane:  125, 120, 100, 100 ]` -> (445, [125, 120, 100, 100]); `12` -> (12, []).
fn total_and_lanes(v: &str) -> ParseResult<(u64, Vec<u64>)> {
    let (total, lanes) = match v.split_once('[') {
        Some((t, rest)) => {
            let inner = rest
                .trim()
                .strip_suffix(']')
                .ok_or_else(|| ParseError::malformed("`[ per_lane:` without its `]`").at(format_args!("{v:?}")))?;
            (
                t,
                inner
                    .trim()
                    .strip_prefix("per_lane:")
                    .ok_or_else(|| ParseError::malformed("`[` without `per_lane:`").at(format_args!("{v:?}")))?,
            )
        }
        None => (v, ""),
    };
    let lanes = lanes.split(',').map(str::trim).filter(|s| !s.is_empty()).map(parse_u64).collect::<Result<Vec<_>, _>>()?;
    if lanes.len() > crate::counters::MAX_LANES {
        return Err(ParseError::malformed(format!("{} per-lane values: more lanes than a port has", lanes.len())));
    }
    Ok((parse_u64(total)?, lanes))
}

pub(crate) fn parse_text(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    let mut fec = FecStats::default();
    let mut current: Option<String> = None;
    let mut in_stats = false;
    for line in content_lines(text).map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(name) = line.strip_prefix("FEC parameters for ") {
            f.interface = Some(name.trim_end_matches(':').trim().to_string());
            continue;
        }
        if line == "Statistics:" {
            in_stats = true;
            continue;
        }
        let Some((k, v)) = key_value(line) else { continue };
        if !in_stats {
            if k == "Active FEC encoding" {
                let active = fec_active(v);
                if active.is_none() {
                    f.notes.push(format!("active FEC {v:?} not recognised"));
                }
                f.link = Some(LinkInfo { fec_active: active, ..Default::default() });
            }
            continue;
        }
        if let Some(lane) = k.strip_prefix("Lane ") {
            let lane: usize = lane.trim().parse().map_err(|_| ParseError::malformed(format!("bad lane line {line:?}")))?;
            let name = current.as_deref().ok_or_else(|| ParseError::malformed(format!("lane line {line:?} before any counter")))?;
            let arr =
                counter_mut(&mut fec, name).ok_or_else(|| ParseError::malformed(format!("lane line under unknown counter {name}")))?;
            // Lanes print in order from 0: element lane + 1 of [total, lanes..].
            if Some(arr.len()) != lane.checked_add(1) {
                return Err(ParseError::malformed(format!("lane {lane} out of order")).at(name));
            }
            arr.push(parse_u64(v)?);
        } else if let Some((lo, hi)) = bin_range(k) {
            let (total, per_lane) = total_and_lanes(v)?;
            fec.histogram.push(FecHistogramBin { low: lo, high: hi, count: total, per_lane });
        } else if let Some(arr) = counter_mut(&mut fec, k) {
            let (total, lanes) = total_and_lanes(v)?;
            *arr = std::iter::once(total).chain(lanes).collect();
            current = Some(k.to_string());
        } else {
            f.notes.push(format!("FEC statistic {k} not known; skipped"));
        }
    }
    if !in_stats {
        return Err(ParseError::refused("no `Statistics:` section", "run ethtool with --statistics / -I"));
    }
    f.fec = Some(fec);
    Ok(f)
}

pub(crate) fn parse_json(text: &str) -> ParseResult<Fragment> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(ParseError::syntax)?;
    let obj = v
        .as_array()
        .and_then(|a| (a.len() == 1).then(|| &a[0]))
        .ok_or_else(|| ParseError::malformed("expected a JSON array of one interface object"))?;
    let mut f = Fragment { interface: obj.get("ifname").and_then(|n| n.as_str()).map(str::to_string), ..Default::default() };
    if let Some(a) = obj.get("active").and_then(|a| a.as_array()).and_then(|a| a.first()).and_then(|a| a.as_str()) {
        f.link = Some(LinkInfo { fec_active: fec_active(a), ..Default::default() });
    }
    let stats = obj.get("statistics").ok_or_else(|| ParseError::refused("no \"statistics\"", "run ethtool with --statistics / -I"))?;
    let num =
        |v: &serde_json::Value, what: &str| v.as_u64().ok_or_else(|| ParseError::malformed(format!("{what} is not an unsigned integer")));
    let mut fec = FecStats::default();
    for name in ["corrected_blocks", "uncorrectable_blocks", "corrected_bits"] {
        let Some(c) = stats.get(name) else { continue };
        let mut arr = vec![num(c.get("total").unwrap_or(&serde_json::Value::Null), name)?];
        for l in c.get("lanes").and_then(|l| l.as_array()).into_iter().flatten() {
            arr.push(num(l, name)?);
        }
        if let Some(slot) = counter_mut(&mut fec, name) {
            *slot = arr;
        }
    }
    for b in stats.get("hist").and_then(|h| h.as_array()).into_iter().flatten() {
        let field = |k: &str| b.get(k).and_then(|x| x.as_u64()).ok_or_else(|| ParseError::malformed(format!("hist bin without {k}")));
        let per_lane =
            b.get("lanes").and_then(|l| l.as_array()).into_iter().flatten().map(|l| num(l, "hist lane")).collect::<Result<_, _>>()?;
        let low = u32::try_from(field("bin_low")?).map_err(|_| ParseError::malformed("bin_low out of range"))?;
        let high = u32::try_from(field("bin_high")?).map_err(|_| ParseError::malformed("bin_high out of range"))?;
        fec.histogram.push(FecHistogramBin { low, high, count: field("total")?, per_lane });
    }
    f.fec = Some(fec);
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    const FMT01: &str =
        include_str!("../../../tests/fixtures/real-dumps/fmt01_ethtool_show_fec_output_format_examples_NOT_MEASUREMENTS.txt");

    /// The text between `### (X)` and the next `###` or JSON, without the `# ethtool` prompt line.
    fn section(name: &str) -> String {
        let start = FMT01.find(name).unwrap() + name.len();
        let rest = &FMT01[start..];
        let end = rest.find("###").or_else(|| rest.find("\n [\n")).or_else(|| rest.find(" # ethtool -j")).unwrap_or(rest.len());
        rest[..end].to_string()
    }

    #[test]
    fn per_lane_layout_of_sample_a() {
        let f = parse_text(&section("### (A)")).unwrap();
        assert_eq!(f.interface.as_deref(), Some("eth0"));
        let fec = f.fec.unwrap();
        // 256 = 255 + 1; 145 = 128 + 17 (as printed).
        assert_eq!(fec.corrected_blocks, vec![256, 255, 1]);
        assert_eq!(fec.uncorrectable_blocks, vec![145, 128, 17]);
        assert_eq!(f.link.unwrap().fec_active.as_deref(), Some("None"));
    }

    #[test]
    fn histogram_text_and_json_of_sample_b_agree() {
        let f = parse_text(&section("### (B)")).unwrap();
        let fec = f.fec.unwrap();
        assert_eq!(fec.corrected_blocks, vec![123]);
        assert_eq!(fec.histogram.len(), 3);
        assert_eq!((fec.histogram[0].low, fec.histogram[0].high, fec.histogram[0].count), (0, 0, 445));
        assert_eq!(fec.histogram[0].per_lane, vec![125, 120, 100, 100]);
        assert_eq!((fec.histogram[1].low, fec.histogram[1].high, fec.histogram[1].count), (1, 3, 12));
        let json_at = FMT01.find("[ {").unwrap();
        let j = parse_json(&FMT01[json_at..]).unwrap();
        assert_eq!(j.interface.as_deref(), Some("eni8np1"));
        assert_eq!(j.fec.unwrap(), fec);
    }

    #[test]
    fn symbol_error_bins_and_per_lane_counters_of_the_histogram_patch() {
        let f = parse_text(include_str!("../../../tests/fixtures/ethtool-fec/ethtool_show_fec_histogram_v2.txt")).unwrap();
        let fec = f.fec.unwrap();
        assert_eq!((fec.corrected_blocks, fec.uncorrectable_blocks), (vec![123], vec![4]));
        let bins: Vec<_> = fec.histogram.iter().map(|b| (b.low, b.high, b.count)).collect();
        assert_eq!(bins, [(0, 0, 445), (1, 3, 12), (4, 7, 2)]);
        // The lanes of bin 0 add up to its total: 125 + 120 + 100 + 100 = 445.
        assert_eq!(fec.histogram[0].per_lane.iter().sum::<u64>(), 445);
        // A block counter's lanes on its line (v2's printf), the values of sample (A).
        let f = parse_text("FEC parameters for eth0:\nStatistics:\n  corrected_blocks: 256 [ per_lane: 255, 1 ]\n  fec_symbols_err_5: 7\n")
            .unwrap();
        let fec = f.fec.unwrap();
        assert_eq!(fec.corrected_blocks, vec![256, 255, 1]);
        assert_eq!((fec.histogram[0].low, fec.histogram[0].count), (5, 7));
        // A cut paste: a `[` with no `]` is said, not read as a total.
        assert!(parse_text("FEC parameters for eth0:\nStatistics:\n  fec_symbol_err_0: 445 [ per_lane: 125,\n")
            .unwrap_err()
            .to_string()
            .contains("]"));
    }

    #[test]
    fn without_statistics_is_an_error() {
        assert!(matches!(
            parse_text("FEC parameters for eth0:\nActive FEC encoding: RS\n").unwrap_err().kind(),
            ParseError::Refused { instead: "run ethtool with --statistics / -I", .. }
        ));
    }
}
