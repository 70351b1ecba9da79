//! `ethtool IFACE` (ethtool.c `dump_link_usettings` and the link-detected line):
//! `Settings for X:`, `Speed: 400000Mb/s` (or `Unknown!`), `Lanes: 4` (Linux 5.12+),
//! `Link detected: yes|no`, with the kernel's extended state after a down link
//! (`no (Cable issue, Unsupported cable)`, ethtool `netlink/settings.c`), and `Link Down
//! Events: N` (Linux 6.2+), and the supported and advertised link-mode lists (one or
//! several names per line, continued on lines of their own; `Not reported` when the driver
//! gives none). The negotiated link mode is not printed (only those lists), so `link_mode`
//! stays unknown and the lane rate comes from speed / lanes.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::counters::{parse_ext_state, LinkInfo, LinkState, MAX_LINK_MODES};

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    let mut link = LinkInfo::default();
    let mut up = None;
    let mut ext = None;
    let mut down_events = None;
    // The list a line without a key continues: `None` after any other key.
    let mut list: Option<ModeList> = None;
    for line in content_lines(text).map(str::trim) {
        if let Some(name) = line.strip_prefix("Settings for ") {
            f.interface = Some(name.trim_end_matches(':').trim().to_string());
            list = None;
            continue;
        }
        let Some((k, v)) = key_value(line) else {
            if let Some(l) = list {
                push_modes(l.of(&mut link), line);
            }
            continue;
        };
        list = match k {
            "Supported link modes" => Some(ModeList::Supported),
            "Advertised link modes" => Some(ModeList::Advertised),
            _ => None,
        };
        if let Some(l) = list {
            push_modes(l.of(&mut link), v);
        }
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

/// Which of `ethtool IFACE`'s link-mode lists a line belongs to.
#[derive(Clone, Copy)]
enum ModeList {
    Supported,
    Advertised,
}

impl ModeList {
    fn of(self, link: &mut LinkInfo) -> &mut Vec<String> {
        match self {
            ModeList::Supported => &mut link.supported_modes,
            ModeList::Advertised => &mut link.advertised_modes,
        }
    }
}

/// The link-mode names of one line of a list (`1000baseT/Full 10000baseT/Full`); `Not
/// reported` adds none. A list longer than the kernel has modes is cut there.
fn push_modes(into: &mut Vec<String>, line: &str) {
    if line == "Not reported" {
        return;
    }
    for name in line.split_whitespace().filter(|w| w.contains("base")) {
        if into.len() < MAX_LINK_MODES && !into.iter().any(|n| n == name) {
            into.push(name.to_string());
        }
    }
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
        let supported_modes = vec!["400000baseDR4/Full".to_string()];
        assert_eq!(f.link, Some(LinkInfo { speed_mbps: Some(400_000), lanes: Some(4), supported_modes, ..Default::default() }));
        assert_eq!(f.link_state.unwrap().up, Some(true));
        // Link down: speed unknown.
        let f = parse("Settings for eth1:\n\tSpeed: Unknown!\n\tLink detected: no\n").unwrap();
        assert_eq!(f.link.unwrap().speed_mbps, None);
        assert_eq!(f.link_state.unwrap().up, Some(false));
    }

    #[test]
    fn link_mode_lists_continue_on_their_own_lines() {
        // The ConnectX-4 port of robinchrist/100G-CWDM4-docs (README.md @ 8b02d8b1), cut: the
        // lists run on over unkeyed lines, FEC modes are no link modes.
        let text = "Settings for ens16f1np1:\n      Supported ports: [ FIBRE ]\n      Supported link modes:   1000baseKX/Full\n\
                    \x20                             10000baseKR/Full\n                              100000baseLR4_ER4/Full\n\
                    \x20     Supported pause frame use: Symmetric\n      Supported FEC modes: None        RS      BASER\n\
                    \x20     Advertised link modes:  40000baseKR4/Full\n                              40000baseSR4/Full\n\
                    \x20     Advertised pause frame use: No\n      Speed: Unknown!\n";
        let link = parse(text).unwrap().link.unwrap();
        assert_eq!(link.supported_modes, ["1000baseKX/Full", "10000baseKR/Full", "100000baseLR4_ER4/Full"]);
        assert_eq!(link.advertised_modes, ["40000baseKR4/Full", "40000baseSR4/Full"]);
        // Older ethtool prints several names a line; `Not reported` is none.
        let text = "Settings for eth0:\n\tSupported link modes:   10baseT/Half 10baseT/Full\n\t                        1000baseT/Full\n\
                    \tAdvertised link modes:  Not reported\n";
        let link = parse(text).unwrap().link.unwrap();
        assert_eq!(link.supported_modes, ["10baseT/Half", "10baseT/Full", "1000baseT/Full"]);
        assert!(link.advertised_modes.is_empty());
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
