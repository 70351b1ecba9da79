//! `ETHTOOL_MSG_LINKMODES_GET` (4; kernel-uapi.md §5): speed, lanes, duplex and the
//! OURS bitset, and the link-mode table that names the active mode.

use super::consts::*;
use super::parse::{attrs, u32_array, u32_of, u8_of, AttrWriter, WireError};
use super::{malformed, Dev, Netlink};
use crate::source::Result;

/// LINKMODES_GET (or GLINKSETTINGS) reduced to what naming the link needs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinkModes {
    /// `None` for SPEED_UNKNOWN (0xFFFFFFFF: link down, bridge, ...).
    pub speed_mbps: Option<u32>,
    /// Linux 5.12+, and only when the driver knows (veth omits it).
    pub lanes: Option<u32>,
    /// 0 half, 1 full; `None` for 0xFF unknown.
    pub duplex: Option<u8>,
    /// OURS VALUE words: advertised link modes.
    pub advertised: Vec<u32>,
    /// OURS MASK words: supported link modes.
    pub supported: Vec<u32>,
}

/// One `enum ethtool_link_mode_bit_indices` entry: bit, kernel name (as in the
/// `ETH_SS_LINK_MODES` string set), speed and lane count (net/ethtool/common.c
/// `link_mode_params`). Classic NRZ modes 10G-100G and the PAM4-era modes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkModeBit {
    /// Bit index in the link mode bitmap.
    pub bit: u32,
    /// The kernel's name for the mode.
    pub name: &'static str,
    /// Speed, Mb/s.
    pub speed_mbps: u32,
    pub(crate) lanes: u32,
}

const fn m(bit: u32, name: &'static str, speed_mbps: u32, lanes: u32) -> LinkModeBit {
    LinkModeBit { bit, name, speed_mbps, lanes }
}

/// include/uapi/linux/ethtool.h, Linux 6.18 (121 bits; FEC bits 49-51/74 and the
/// non-speed bits are not link modes and are left out), and the four 1.6T modes the uAPI
/// added after it (bits 121-124, 1600000baseCR8/KR8/DR8/DR8_2: 8 lanes of 200G, IEEE
/// 802.3dj; mlx5 maps its 1600TAUI-8 PTYS bit to them).
pub const LINK_MODES: &[LinkModeBit] = &[
    m(5, "1000baseT/Full", 1000, 1),
    m(12, "10000baseT/Full", 10000, 1),
    m(17, "1000baseKX/Full", 1000, 1),
    m(18, "10000baseKX4/Full", 10000, 4),
    m(19, "10000baseKR/Full", 10000, 1),
    m(23, "40000baseKR4/Full", 40000, 4),
    m(24, "40000baseCR4/Full", 40000, 4),
    m(25, "40000baseSR4/Full", 40000, 4),
    m(26, "40000baseLR4/Full", 40000, 4),
    m(31, "25000baseCR/Full", 25000, 1),
    m(32, "25000baseKR/Full", 25000, 1),
    m(33, "25000baseSR/Full", 25000, 1),
    m(34, "50000baseCR2/Full", 50000, 2),
    m(35, "50000baseKR2/Full", 50000, 2),
    m(36, "100000baseKR4/Full", 100000, 4),
    m(37, "100000baseSR4/Full", 100000, 4),
    m(38, "100000baseCR4/Full", 100000, 4),
    m(39, "100000baseLR4_ER4/Full", 100000, 4),
    m(40, "50000baseSR2/Full", 50000, 2),
    m(41, "1000baseX/Full", 1000, 1),
    m(42, "10000baseCR/Full", 10000, 1),
    m(43, "10000baseSR/Full", 10000, 1),
    m(44, "10000baseLR/Full", 10000, 1),
    m(45, "10000baseLRM/Full", 10000, 1),
    m(46, "10000baseER/Full", 10000, 1),
    m(52, "50000baseKR/Full", 50000, 1),
    m(53, "50000baseSR/Full", 50000, 1),
    m(54, "50000baseCR/Full", 50000, 1),
    m(55, "50000baseLR_ER_FR/Full", 50000, 1),
    m(56, "50000baseDR/Full", 50000, 1),
    m(57, "100000baseKR2/Full", 100000, 2),
    m(58, "100000baseSR2/Full", 100000, 2),
    m(59, "100000baseCR2/Full", 100000, 2),
    m(60, "100000baseLR2_ER2_FR2/Full", 100000, 2),
    m(61, "100000baseDR2/Full", 100000, 2),
    m(62, "200000baseKR4/Full", 200000, 4),
    m(63, "200000baseSR4/Full", 200000, 4),
    m(64, "200000baseLR4_ER4_FR4/Full", 200000, 4),
    m(65, "200000baseDR4/Full", 200000, 4),
    m(66, "200000baseCR4/Full", 200000, 4),
    m(69, "400000baseKR8/Full", 400000, 8),
    m(70, "400000baseSR8/Full", 400000, 8),
    m(71, "400000baseLR8_ER8_FR8/Full", 400000, 8),
    m(72, "400000baseDR8/Full", 400000, 8),
    m(73, "400000baseCR8/Full", 400000, 8),
    m(75, "100000baseKR/Full", 100000, 1),
    m(76, "100000baseSR/Full", 100000, 1),
    m(77, "100000baseLR_ER_FR/Full", 100000, 1),
    m(78, "100000baseCR/Full", 100000, 1),
    m(79, "100000baseDR/Full", 100000, 1),
    m(80, "200000baseKR2/Full", 200000, 2),
    m(81, "200000baseSR2/Full", 200000, 2),
    m(82, "200000baseLR2_ER2_FR2/Full", 200000, 2),
    m(83, "200000baseDR2/Full", 200000, 2),
    m(84, "200000baseCR2/Full", 200000, 2),
    m(85, "400000baseKR4/Full", 400000, 4),
    m(86, "400000baseSR4/Full", 400000, 4),
    m(87, "400000baseLR4_ER4_FR4/Full", 400000, 4),
    m(88, "400000baseDR4/Full", 400000, 4),
    m(89, "400000baseCR4/Full", 400000, 4),
    m(93, "800000baseCR8/Full", 800000, 8),
    m(94, "800000baseKR8/Full", 800000, 8),
    m(95, "800000baseDR8/Full", 800000, 8),
    m(96, "800000baseDR8_2/Full", 800000, 8),
    m(97, "800000baseSR8/Full", 800000, 8),
    m(98, "800000baseVR8/Full", 800000, 8),
    m(103, "200000baseCR/Full", 200000, 1),
    m(104, "200000baseKR/Full", 200000, 1),
    m(105, "200000baseDR/Full", 200000, 1),
    m(106, "200000baseDR_2/Full", 200000, 1),
    m(107, "200000baseSR/Full", 200000, 1),
    m(108, "200000baseVR/Full", 200000, 1),
    m(109, "400000baseCR2/Full", 400000, 2),
    m(110, "400000baseKR2/Full", 400000, 2),
    m(111, "400000baseDR2/Full", 400000, 2),
    m(112, "400000baseDR2_2/Full", 400000, 2),
    m(113, "400000baseSR2/Full", 400000, 2),
    m(114, "400000baseVR2/Full", 400000, 2),
    m(115, "800000baseCR4/Full", 800000, 4),
    m(116, "800000baseKR4/Full", 800000, 4),
    m(117, "800000baseDR4/Full", 800000, 4),
    m(118, "800000baseDR4_2/Full", 800000, 4),
    m(119, "800000baseSR4/Full", 800000, 4),
    m(120, "800000baseVR4/Full", 800000, 4),
    m(121, "1600000baseCR8/Full", 1600000, 8),
    m(122, "1600000baseKR8/Full", 1600000, 8),
    m(123, "1600000baseDR8/Full", 1600000, 8),
    m(124, "1600000baseDR8_2/Full", 1600000, 8),
];

fn bit_set(words: &[u32], bit: u32) -> bool {
    words.get((bit / 32) as usize).is_some_and(|w| w & (1 << (bit % 32)) != 0)
}

/// The active link mode's name when exactly one mode in the advertised set (else the
/// supported set) matches speed, lanes (when known) and full duplex. Several candidates
/// (e.g. a 100G port advertising SR4 and CR4) give `None`: the kernel does not say
/// which medium is plugged in.
pub fn active_mode_name(lm: &LinkModes) -> Option<String> {
    let speed = lm.speed_mbps?;
    if lm.duplex != Some(1) {
        return None;
    }
    [&lm.advertised, &lm.supported].into_iter().find_map(|words| {
        let mut hits =
            LINK_MODES.iter().filter(|e| e.speed_mbps == speed && lm.lanes.is_none_or(|l| l == e.lanes) && bit_set(words, e.bit));
        match (hits.next(), hits.next()) {
            (Some(one), None) => Some(one.name.to_string()),
            _ => None,
        }
    })
}

/// The names of the link modes set in `words` (an OURS value or mask), in bit order;
/// bits that are no link mode of [`LINK_MODES`] (autonegotiation, pause, port types, FEC)
/// are left out.
pub fn mode_names(words: &[u32]) -> Vec<String> {
    LINK_MODES.iter().filter(|e| bit_set(words, e.bit)).map(|e| e.name.to_string()).collect()
}

/// Compact bitsets give the OURS VALUE/MASK as plain u32 words.
pub fn request_attrs(dev: &Dev) -> Vec<u8> {
    let mut w = AttrWriter::new();
    dev.header_in(&mut w, ETHTOOL_A_LINKMODES_HEADER, ETHTOOL_FLAG_COMPACT_BITSETS);
    w.into_bytes()
}

/// Decodes a LINKMODES_GET reply's attributes.
pub fn parse_reply(buf: &[u8]) -> std::result::Result<LinkModes, WireError> {
    let mut lm = LinkModes::default();
    for a in attrs(buf)? {
        match a.ty {
            ETHTOOL_A_LINKMODES_SPEED => lm.speed_mbps = u32_of(a.payload).filter(|&s| s != SPEED_UNKNOWN),
            ETHTOOL_A_LINKMODES_LANES => lm.lanes = u32_of(a.payload).filter(|&l| l != 0),
            ETHTOOL_A_LINKMODES_DUPLEX => lm.duplex = u8_of(a.payload).filter(|&d| d != 0xFF),
            ETHTOOL_A_LINKMODES_OURS => {
                for b in attrs(a.payload)? {
                    match b.ty {
                        ETHTOOL_A_BITSET_VALUE => lm.advertised = u32_array(b.payload),
                        ETHTOOL_A_BITSET_MASK => lm.supported = u32_array(b.payload),
                        _ => {} // SIZE, NOMASK, verbose BITS
                    }
                }
            }
            _ => {}
        }
    }
    Ok(lm)
}

impl Netlink {
    pub(crate) fn link_modes(&mut self, family: u16, dev: &Dev) -> Result<LinkModes> {
        let what = "LINKMODES_GET";
        let reply = self.do_one(family, ETHTOOL_MSG_LINKMODES_GET, &request_attrs(dev), what, Some(dev))?;
        parse_reply(&reply).map_err(|d| malformed(what, d))
    }

    /// The kernel's names for the link-mode bits (`ETH_SS_LINK_MODES` string set), to
    /// check [`LINK_MODES`] against the running kernel.
    pub fn link_mode_names(&mut self, family: u16) -> Result<Vec<(u32, String)>> {
        let what = "STRSET_GET link modes";
        let mut set = AttrWriter::new();
        set.u32(ETHTOOL_A_STRINGSET_ID, ETH_SS_LINK_MODES);
        let mut sets = AttrWriter::new();
        sets.nest(ETHTOOL_A_STRINGSETS_STRINGSET, &set);
        let mut req = AttrWriter::new();
        req.nest(ETHTOOL_A_STRSET_HEADER, &AttrWriter::new()).nest(ETHTOOL_A_STRSET_STRINGSETS, &sets);
        let reply = self.do_one(family, ETHTOOL_MSG_STRSET_GET, &req.finish(), what, None)?;
        parse_strings(&reply).map_err(|d| malformed(what, d))
    }
}

/// STRINGSETS{STRINGSET{ID, COUNT, STRINGS{STRING{INDEX, VALUE}}}} flattened.
fn parse_strings(buf: &[u8]) -> std::result::Result<Vec<(u32, String)>, WireError> {
    let mut out = Vec::new();
    for sets in attrs(buf)?.iter().filter(|a| a.ty == ETHTOOL_A_STRSET_STRINGSETS) {
        for set in attrs(sets.payload)?.iter().filter(|a| a.ty == ETHTOOL_A_STRINGSETS_STRINGSET) {
            for strings in attrs(set.payload)?.iter().filter(|a| a.ty == ETHTOOL_A_STRINGSET_STRINGS) {
                for s in attrs(strings.payload)?.iter().filter(|a| a.ty == ETHTOOL_A_STRINGS_STRING) {
                    let (mut index, mut value) = (None, None);
                    for f in attrs(s.payload)? {
                        match f.ty {
                            ETHTOOL_A_STRING_INDEX => index = u32_of(f.payload),
                            ETHTOOL_A_STRING_VALUE => value = Some(super::parse::string_of(f.payload)),
                            _ => {}
                        }
                    }
                    if let (Some(i), Some(v)) = (index, value) {
                        out.push((i, v));
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_1600g_dr8_port_is_named_from_bit_123() {
        // Bit 123 is word 3 (bits 96-127), bit 27 of it.
        let lm = LinkModes {
            speed_mbps: Some(1_600_000),
            lanes: Some(8),
            duplex: Some(1),
            advertised: vec![0, 0, 0, 1 << 27],
            supported: Vec::new(),
        };
        assert_eq!(active_mode_name(&lm).as_deref(), Some("1600000baseDR8/Full"));
        // Bits 13 (Pause), 25 (40000baseSR4) and 43 (10000baseSR): the pause bit is no mode.
        assert_eq!(mode_names(&[1 << 13 | 1 << 25, 1 << 11]), ["40000baseSR4/Full", "10000baseSR/Full"]);
        // Bits are unique and ascending.
        assert!(LINK_MODES.windows(2).all(|w| w[0].bit < w[1].bit));
    }
}
