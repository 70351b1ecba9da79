//! `ethtool -a IFACE` / `--show-pause`, with `-I` / `--include-statistics` and `--json`
//! (ethtool netlink/pause.c `pause_reply_cb`, `show_pause_stats`): the pause settings
//! (`Autonegotiate:`, `RX:`, `TX:`, and `RX negotiated:` / `TX negotiated:` when
//! autonegotiation is on) become a host fact; the `Statistics:` counters
//! (`ETHTOOL_A_PAUSE_STAT_TX_FRAMES` / `_RX_FRAMES`, IEEE 802.3 30.3.4.2 / 30.3.4.3) become
//! the sample's `pause`, as the live source records them, so two snapshots give a rate.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::counters::host::PauseStats;
use crate::device::host::{Fact, PauseSettings};

/// `on` / `off` as `show_bool` prints them; `n/a` is an attribute the kernel left out.
fn on_off(v: &str) -> ParseResult<Option<bool>> {
    match v {
        "on" => Ok(Some(true)),
        "off" => Ok(Some(false)),
        "n/a" => Ok(None),
        _ => Err(ParseError::malformed(format!("`{v}` is not on, off or n/a"))),
    }
}

fn count(k: &str, v: &str) -> ParseResult<u64> {
    v.parse().map_err(|_| ParseError::malformed(format!("`{v}` is not a count")).at(k))
}

/// A fragment of what was read; refused when it holds neither a setting nor a counter.
fn fragment(
    interface: Option<String>,
    settings: PauseSettings,
    stats: PauseStats,
    printed: Vec<(String, String)>,
) -> ParseResult<Fragment> {
    let has_settings = settings != PauseSettings::default();
    let has_stats = stats != PauseStats::default();
    if !has_settings && !has_stats {
        return Err(ParseError::missing("pause setting (`Autonegotiate:`, `RX:`, `TX:`) and no pause statistics"));
    }
    let mut f = Fragment { interface, ..Fragment::default() };
    f.host.pause = has_settings.then(|| Fact::import(settings));
    f.pause = has_stats.then_some(stats);
    f.printed_fields = printed.into_iter().map(|(k, v)| (format!("ethtool -a/{k}"), v)).collect();
    Ok(f)
}

/// The text output. Lines after `Statistics:` are counters (two-space indented, `name: N`);
/// a counter this release does not know (`tx_pause_storm_events`, Linux 7.0) is kept as a
/// printed field only.
pub(crate) fn parse_text(text: &str) -> ParseResult<Fragment> {
    let mut interface = None;
    let mut s = PauseSettings::default();
    let mut stats = PauseStats::default();
    let mut printed = Vec::new();
    let mut in_stats = false;
    for line in content_lines(text).map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(i) = line.strip_prefix("Pause parameters for ").and_then(|r| r.strip_suffix(':')) {
            interface = Some(i.trim().to_string());
            in_stats = false;
            continue;
        }
        if line == "Statistics:" {
            in_stats = true;
            continue;
        }
        let Some((k, v)) = key_value(line) else { continue };
        if in_stats {
            let n = count(k, v)?;
            match k {
                "tx_pause_frames" => stats.tx_frames = Some(n),
                "rx_pause_frames" => stats.rx_frames = Some(n),
                _ => {}
            }
        } else {
            let slot = match k {
                "Autonegotiate" => &mut s.autoneg,
                "RX" => &mut s.rx,
                "TX" => &mut s.tx,
                "RX negotiated" => &mut s.rx_negotiated,
                "TX negotiated" => &mut s.tx_negotiated,
                // "Cannot get device pause settings: Operation not supported" and the like.
                _ => continue,
            };
            *slot = on_off(v).map_err(|e| e.at(k))?;
        }
        printed.push((k.to_string(), v.to_string()));
        super::printed_fields_fit(printed.len())?;
    }
    fragment(interface, s, stats, printed)
}

/// `ethtool --json [-I] -a IFACE`: one object with `ifname`, `autonegotiate`, `rx`, `tx`,
/// `negotiated: {rx, tx}` and `statistics: {tx_pause_frames, rx_pause_frames}`.
pub(crate) fn parse_json(v: &serde_json::Value) -> ParseResult<Fragment> {
    let list = v.as_array().ok_or_else(|| ParseError::malformed("not an array"))?;
    let [o] = list.as_slice() else {
        return Err(ParseError::malformed(format!("{} objects: one interface's pause settings expected", list.len())));
    };
    let flag = |o: &serde_json::Value, k: &str| -> ParseResult<Option<bool>> {
        o.get(k).map(|b| b.as_bool().ok_or_else(|| ParseError::malformed(format!("`{k}` is not true or false")))).transpose()
    };
    let negotiated = o.get("negotiated").cloned().unwrap_or_default();
    let s = PauseSettings {
        autoneg: flag(o, "autonegotiate")?,
        rx: flag(o, "rx")?,
        tx: flag(o, "tx")?,
        rx_negotiated: flag(&negotiated, "rx")?,
        tx_negotiated: flag(&negotiated, "tx")?,
    };
    let mut stats = PauseStats::default();
    let mut printed = Vec::new();
    if let Some(st) = o.get("statistics").and_then(|s| s.as_object()) {
        for (k, n) in st {
            let n = n.as_u64().ok_or_else(|| ParseError::malformed(format!("`{n}` is not a count")).at(format_args!("statistics/{k}")))?;
            match k.as_str() {
                "tx_pause_frames" => stats.tx_frames = Some(n),
                "rx_pause_frames" => stats.rx_frames = Some(n),
                _ => {}
            }
            printed.push((k.clone(), n.to_string()));
            super::printed_fields_fit(printed.len())?;
        }
    }
    let interface = o.get("ifname").and_then(|i| i.as_str()).map(str::to_string);
    fragment(interface, s, stats, printed)
}

/// Is `v` what `ethtool --json -a` prints (an object with `ifname` and `autonegotiate` or
/// `statistics` with a pause counter)?
pub(crate) fn is_json(v: &serde_json::Value) -> bool {
    v.as_array().and_then(|a| a.first()).is_some_and(|o| {
        o.get("ifname").is_some()
            && (o.get("autonegotiate").is_some()
                || o.pointer("/statistics/tx_pause_frames").is_some()
                || o.pointer("/statistics/rx_pause_frames").is_some())
    })
}

/// Is `text` an `ethtool -a` output: its title, or the three settings lines without it?
pub(crate) fn is_text(text: &str) -> bool {
    let lines: Vec<&str> = content_lines(text).map(str::trim).collect();
    let starts = |p: &str| lines.iter().any(|l| l.starts_with(p));
    starts("Pause parameters for ") || (starts("Autonegotiate:") && starts("RX:") && starts("TX:"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// netlink/pause.c's formats: `Autonegotiate:\t%s\n`, `RX:\t\t%s\n`, `TX:\t\t%s\n`,
    /// `RX negotiated: %s\n`, then `Statistics:` and `  %s: %PRIu64\n` per counter.
    #[test]
    fn settings_and_counters() {
        let text = "Pause parameters for eth0:\nAutonegotiate:\ton\nRX:\t\toff\nTX:\t\ton\nRX negotiated: off\nTX negotiated: on\n\
                    Statistics:\n  tx_pause_frames: 12\n  rx_pause_frames: 3\n  tx_pause_storm_events: 2\n";
        let f = parse_text(text).unwrap();
        assert_eq!(f.interface.as_deref(), Some("eth0"));
        let s = f.host.pause.clone().unwrap().value;
        assert_eq!(
            (s.autoneg, s.rx, s.tx, s.rx_negotiated, s.tx_negotiated),
            (Some(true), Some(false), Some(true), Some(false), Some(true))
        );
        assert_eq!(f.pause, Some(PauseStats { tx_frames: Some(12), rx_frames: Some(3) }));
        assert_eq!(f.printed_fields["ethtool -a/tx_pause_storm_events"], "2");
        assert!(f.has_counters());
    }

    #[test]
    fn refused_when_it_says_nothing() {
        let e = parse_text("Pause parameters for wlan0:\nCannot get device pause settings: Operation not supported\n").unwrap_err();
        assert_eq!(e, ParseError::missing("pause setting (`Autonegotiate:`, `RX:`, `TX:`) and no pause statistics"));
        assert_eq!(parse_text("Pause parameters for eth0:\nRX:\t\tmaybe\n").unwrap_err().to_string(), "RX: `maybe` is not on, off or n/a");
        assert!(parse_text("Pause parameters for eth0:\nStatistics:\n  tx_pause_frames: -1\n").is_err());
        let v: serde_json::Value = serde_json::from_str(r#"[{"ifname":"a","rx":1}]"#).unwrap();
        assert_eq!(parse_json(&v).unwrap_err().to_string(), "`rx` is not true or false");
    }
}
