//! `ethtool IFACE` (ethtool.c `dump_link_usettings` and the link-detected line):
//! `Settings for X:`, `Speed: 400000Mb/s` (or `Unknown!`), `Lanes: 4` (Linux 5.12+),
//! `Link detected: yes|no`, with the kernel's extended state after a down link
//! (`no (Cable issue, Unsupported cable)`, ethtool `netlink/settings.c`), and `Link Down
//! Events: N` (Linux 6.2+). The negotiated link mode is not printed (only the advertised
//! list), so `link_mode` stays unknown and the lane rate comes from speed / lanes.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::counters::{parse_ext_state, LinkInfo, LinkState};

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    let mut link = LinkInfo::default();
    let mut up = None;
    let mut ext = None;
    let mut down_events = None;
    for line in content_lines(text).map(str::trim) {
        if let Some(name) = line.strip_prefix("Settings for ") {
            f.interface = Some(name.trim_end_matches(':').trim().to_string());
            continue;
        }
        let Some((k, v)) = key_value(line) else { continue };
        match k {
            "Speed" => link.speed_mbps = v.strip_suffix("Mb/s").and_then(|s| s.parse().ok()),
            "Lanes" => link.lanes = v.parse().ok(),
            // `no (Cable issue, Unsupported cable)`: the kernel's extended state, by name.
            "Link detected" => {
                let (yes_no, why) = v.split_once('(').map_or((v, None), |(a, b)| (a.trim(), Some(b.trim_end_matches(')'))));
                up = Some(yes_no == "yes");
                ext = why.and_then(parse_ext_state);
            }
            "Link Down Events" => down_events = v.parse().ok(),
            _ => {}
        }
    }
    if f.interface.is_none() {
        return Err(ParseError::missing("`Settings for IFACE:` line"));
    }
    f.link = Some(link);
    f.link_state = (up.is_some() || down_events.is_some()).then(|| LinkState {
        up,
        ext_state: ext.map(|e| e.0),
        ext_substate: ext.and_then(|e| e.1),
        down_events,
    });
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

    #[test]
    fn the_kernels_reason_for_a_down_link() {
        // A ConnectX-4 refusing a module at 40G (robinchrist/100G-CWDM4-docs README.md, commit
        // 8b02d8b1): ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE = 5, _CI_UNSUPPORTED_CABLE = 1 (uapi).
        let f =
            parse("Settings for ens16f1np1:\n      Speed: Unknown!\n      Link detected: no (Cable issue, Unsupported cable)\n").unwrap();
        let l = f.link_state.unwrap();
        assert_eq!((l.up, l.ext_state, l.ext_substate), (Some(false), Some(5), Some(1)));
        // ETHTOOL_LINK_EXT_STATE_MODULE = 10, _MODULE_CMIS_NOT_READY = 1; a state ethtool has no
        // name for prints as its number; Link Down Events (Linux 6.2+) is a counter.
        let l =
            parse("Settings for e:\n\tLink detected: no (Module, CMIS module is not in ModuleReady state)\n").unwrap().link_state.unwrap();
        assert_eq!((l.ext_state, l.ext_substate), (Some(10), Some(1)));
        let l = parse("Settings for e:\n\tLink detected: no (12, 3)\n\tLink Down Events: 7\n").unwrap().link_state.unwrap();
        assert_eq!((l.ext_state, l.ext_substate, l.down_events), (Some(12), Some(3), Some(7)));
    }
}
