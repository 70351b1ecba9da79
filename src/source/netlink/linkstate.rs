//! `ETHTOOL_MSG_LINKSTATE_GET` (6) with `ETHTOOL_FLAG_STATS` (kernel-uapi.md §4).

use super::consts::*;
use super::parse::{attrs, u8_of, uint_of, WireError};
use super::{malformed, Dev, Netlink};
use crate::counters::LinkState;
use crate::source::Result;

/// LINK, EXT_STATE, EXT_SUBSTATE (u8) and EXT_DOWN_CNT (u32 on the wire, 8 bytes
/// accepted). SQI and unknown attributes are skipped.
pub fn parse_reply(buf: &[u8]) -> std::result::Result<LinkState, WireError> {
    let mut s = LinkState::default();
    for a in attrs(buf)? {
        match a.ty {
            ETHTOOL_A_LINKSTATE_LINK => s.up = u8_of(a.payload).map(|v| v != 0),
            ETHTOOL_A_LINKSTATE_EXT_STATE => s.ext_state = u8_of(a.payload),
            ETHTOOL_A_LINKSTATE_EXT_SUBSTATE => s.ext_substate = u8_of(a.payload),
            ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT => s.down_events = uint_of(a.payload),
            _ => {}
        }
    }
    Ok(s)
}

impl Netlink {
    /// LINKSTATE_GET with statistics (for EXT_DOWN_CNT).
    pub(crate) fn link_state(&mut self, family: u16, dev: &Dev) -> Result<LinkState> {
        let what = "LINKSTATE_GET";
        let reply = self.do_with_stats(family, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_A_LINKSTATE_HEADER, what, dev)?;
        parse_reply(&reply).map_err(|d| malformed(what, d))
    }
}
