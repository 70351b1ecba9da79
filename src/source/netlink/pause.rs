//! `ETHTOOL_MSG_PAUSE_GET` (21, Linux 5.6; statistics with `ETHTOOL_FLAG_STATS` since
//! 5.11): the pause frames the MAC sent and received (`ETHTOOL_A_PAUSE_STAT_TX_FRAMES`,
//! `_RX_FRAMES`, u64, IEEE 802.3 30.3.4.2 aPAUSEMACCtrlFramesTransmitted / 30.3.4.3
//! aPAUSEMACCtrlFramesReceived), what `ethtool -I -a` prints.

use super::consts::*;
use super::parse::{attrs, uint_of, WireError};
use super::{malformed, Dev, Netlink};
use crate::counters::host::PauseStats;
use crate::source::Result;

/// The STATS nest of a PAUSE_GET reply; `None` when the reply has none (the driver has
/// no `get_pause_stats`, or the kernel predates them). PAD and unknown attributes are skipped.
pub(crate) fn parse_reply(buf: &[u8]) -> std::result::Result<Option<PauseStats>, WireError> {
    let Some(nest) = attrs(buf)?.into_iter().find(|a| a.ty == ETHTOOL_A_PAUSE_STATS) else {
        return Ok(None);
    };
    let mut s = PauseStats::default();
    for a in attrs(nest.payload)? {
        let slot = match a.ty {
            ETHTOOL_A_PAUSE_STAT_TX_FRAMES => &mut s.tx_frames,
            ETHTOOL_A_PAUSE_STAT_RX_FRAMES => &mut s.rx_frames,
            _ => continue,
        };
        *slot = Some(uint_of(a.payload).ok_or(WireError::NotUint { what: "pause", ty: a.ty, len: a.payload.len() })?);
    }
    Ok(Some(s))
}

impl Netlink {
    /// PAUSE_GET with statistics.
    pub(crate) fn pause(&mut self, family: u16, dev: &Dev) -> Result<Option<PauseStats>> {
        let what = "PAUSE_GET";
        let reply = self.do_with_stats(family, ETHTOOL_MSG_PAUSE_GET, ETHTOOL_A_PAUSE_HEADER, what, dev)?;
        parse_reply(&reply).map_err(|d| malformed(what, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::netlink::parse::AttrWriter;

    /// A reply as net/ethtool/pause.c builds it: AUTONEG, RX, TX (u8), then the STATS nest
    /// with a PAD and the two u64 counters (`pause_put_stats`).
    #[test]
    fn pause_stats_decode() {
        let mut stats = AttrWriter::new();
        stats
            .bytes(1, &[])
            .bytes(ETHTOOL_A_PAUSE_STAT_TX_FRAMES, &7u64.to_ne_bytes())
            .bytes(ETHTOOL_A_PAUSE_STAT_RX_FRAMES, &123_456u64.to_ne_bytes());
        let mut w = AttrWriter::new();
        w.u8(ETHTOOL_A_PAUSE_AUTONEG, 0).u8(ETHTOOL_A_PAUSE_RX, 1).u8(ETHTOOL_A_PAUSE_TX, 1).nest(ETHTOOL_A_PAUSE_STATS, &stats);
        assert_eq!(parse_reply(&w.into_bytes()).unwrap(), Some(PauseStats { tx_frames: Some(7), rx_frames: Some(123_456) }));
        let mut none = AttrWriter::new();
        none.u8(ETHTOOL_A_PAUSE_AUTONEG, 0);
        assert_eq!(parse_reply(&none.into_bytes()).unwrap(), None);
    }
}
