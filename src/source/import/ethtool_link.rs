//! `ethtool IFACE` (ethtool.c `dump_link_usettings` and the link-detected line):
//! `Settings for X:`, `Speed: 400000Mb/s` (or `Unknown!`), `Lanes: 4` (Linux 5.12+),
//! `Link detected: yes|no`. The negotiated link mode is not printed (only the advertised
//! list), so `link_mode` stays unknown and the lane rate comes from speed / lanes.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::counters::{LinkInfo, LinkState};

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    let mut link = LinkInfo::default();
    let mut up = None;
    for line in content_lines(text).map(str::trim) {
        if let Some(name) = line.strip_prefix("Settings for ") {
            f.interface = Some(name.trim_end_matches(':').trim().to_string());
            continue;
        }
        let Some((k, v)) = key_value(line) else { continue };
        match k {
            "Speed" => link.speed_mbps = v.strip_suffix("Mb/s").and_then(|s| s.parse().ok()),
            "Lanes" => link.lanes = v.parse().ok(),
            "Link detected" => up = Some(v == "yes"),
            _ => {}
        }
    }
    if f.interface.is_none() {
        return Err(ParseError::missing("`Settings for IFACE:` line"));
    }
    f.link = Some(link);
    f.link_state = up.map(|up| LinkState { up: Some(up), ..Default::default() });
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_as_ethtool_prints_them() {
        // Layout of ethtool 6.x `ethtool ens3np0` on a 400G port (tab-indented fields).
        let text = "Settings for ens3np0:\n\tSupported ports: [ FIBRE ]\n\tSupported link modes:   400000baseDR4/Full\n\
                    \tSpeed: 400000Mb/s\n\tLanes: 4\n\tDuplex: Full\n\tAuto-negotiation: off\n\tPort: FIBRE\n\tLink detected: yes\n";
        let f = parse(text).unwrap();
        assert_eq!(f.interface.as_deref(), Some("ens3np0"));
        assert_eq!(f.link, Some(LinkInfo { speed_mbps: Some(400_000), lanes: Some(4), ..Default::default() }));
        assert_eq!(f.link_state.unwrap().up, Some(true));
        // Link down: speed unknown.
        let f = parse("Settings for eth1:\n\tSpeed: Unknown!\n\tLink detected: no\n").unwrap();
        assert_eq!(f.link.unwrap().speed_mbps, None);
        assert_eq!(f.link_state.unwrap().up, Some(false));
    }
}
