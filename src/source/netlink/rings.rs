//! `ETHTOOL_MSG_RINGS_GET` (15) and `ETHTOOL_MSG_CHANNELS_GET` (17), Linux 5.6+: what
//! `ethtool -g` and `ethtool -l` print (include/uapi/linux/ethtool_netlink_generated.h,
//! Documentation/networking/ethtool-netlink.rst "RINGS_GET", "CHANNELS_GET"). Neither op
//! takes `ETHTOOL_FLAG_STATS` (its header flag mask is 3, kernel-uapi.md §1.3).

use super::consts::*;
use super::header_request::header_only;
use super::parse::{attrs, u32_of, WireError};
use super::{malformed, Dev, Netlink};
use crate::device::host::{Channels, Rings};
use crate::source::Result;

/// RX, TX and their maximums; a driver leaves out what it has not (RX_MINI, RX_JUMBO and
/// the attributes after TX are not read).
pub(crate) fn parse_rings(buf: &[u8]) -> std::result::Result<Rings, WireError> {
    let mut r = Rings::default();
    for a in attrs(buf)? {
        let slot = match a.ty {
            ETHTOOL_A_RINGS_RX => &mut r.rx,
            ETHTOOL_A_RINGS_RX_MAX => &mut r.rx_max,
            ETHTOOL_A_RINGS_TX => &mut r.tx,
            ETHTOOL_A_RINGS_TX_MAX => &mut r.tx_max,
            _ => continue,
        };
        *slot = Some(u32_of(a.payload).ok_or(WireError::NotU32 { what: "rings", ty: a.ty, len: a.payload.len() })?);
    }
    Ok(r)
}

/// Every count and maximum. The kernel sends all eight (`channels_fill_reply`); a kind
/// whose maximum is 0 is one the driver has not, and is left out as `ethtool -l` prints
/// it `n/a`.
pub(crate) fn parse_channels(buf: &[u8]) -> std::result::Result<Channels, WireError> {
    let mut c = Channels::default();
    for a in attrs(buf)? {
        let slot = match a.ty {
            ETHTOOL_A_CHANNELS_RX_COUNT => &mut c.rx,
            ETHTOOL_A_CHANNELS_RX_MAX => &mut c.rx_max,
            ETHTOOL_A_CHANNELS_TX_COUNT => &mut c.tx,
            ETHTOOL_A_CHANNELS_TX_MAX => &mut c.tx_max,
            ETHTOOL_A_CHANNELS_OTHER_COUNT => &mut c.other,
            ETHTOOL_A_CHANNELS_OTHER_MAX => &mut c.other_max,
            ETHTOOL_A_CHANNELS_COMBINED_COUNT => &mut c.combined,
            ETHTOOL_A_CHANNELS_COMBINED_MAX => &mut c.combined_max,
            _ => continue,
        };
        *slot = Some(u32_of(a.payload).ok_or(WireError::NotU32 { what: "channels", ty: a.ty, len: a.payload.len() })?);
    }
    for (count, max) in [(&mut c.rx, c.rx_max), (&mut c.tx, c.tx_max), (&mut c.other, c.other_max), (&mut c.combined, c.combined_max)] {
        if max.unwrap_or(0) == 0 {
            *count = None;
        }
    }
    for max in [&mut c.rx_max, &mut c.tx_max, &mut c.other_max, &mut c.combined_max] {
        if *max == Some(0) {
            *max = None;
        }
    }
    Ok(c)
}

impl Netlink {
    pub(crate) fn rings(&mut self, family: u16, dev: &Dev) -> Result<Rings> {
        let what = "RINGS_GET";
        let reply = self.do_one(family, ETHTOOL_MSG_RINGS_GET, &header_only(dev, ETHTOOL_A_RINGS_HEADER, 0), what, Some(dev))?;
        parse_rings(&reply).map_err(|d| malformed(what, d))
    }

    pub(crate) fn channels(&mut self, family: u16, dev: &Dev) -> Result<Channels> {
        let what = "CHANNELS_GET";
        let reply = self.do_one(family, ETHTOOL_MSG_CHANNELS_GET, &header_only(dev, ETHTOOL_A_CHANNELS_HEADER, 0), what, Some(dev))?;
        parse_channels(&reply).map_err(|d| malformed(what, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::netlink::parse::AttrWriter;

    /// An mlx5 reply as `ethtool -g` prints it for a ConnectX-6 at its defaults: rx 1024
    /// of 8192, tx 1024 of 8192 (drivers/net/ethernet/mellanox/mlx5/core/en/params.h
    /// MLX5E_PARAMS_DEFAULT_LOG_RQ_SIZE 10, en_ethtool.c max 1 << MLX5E_PARAMS_MAXIMUM_LOG_RQ_SIZE 13).
    #[test]
    fn rings_reply_decodes() {
        let mut w = AttrWriter::new();
        w.u32(ETHTOOL_A_RINGS_RX_MAX, 8192).u32(3, 0).u32(4, 0).u32(ETHTOOL_A_RINGS_TX_MAX, 8192);
        w.u32(ETHTOOL_A_RINGS_RX, 1024).u32(ETHTOOL_A_RINGS_TX, 1024).u32(10, 0);
        let r = parse_rings(&w.into_bytes()).unwrap();
        assert_eq!(r, Rings { rx: Some(1024), rx_max: Some(8192), tx: Some(1024), tx_max: Some(8192) });
        let mut bad = AttrWriter::new();
        bad.u8(ETHTOOL_A_RINGS_RX, 1);
        assert_eq!(
            parse_rings(&bad.into_bytes()).unwrap_err().to_string(),
            format!("rings attribute {ETHTOOL_A_RINGS_RX} has 1 bytes, not 4")
        );
    }

    /// veth on 6.18 with two CPUs (measured, docs/host.md): rx 1 of 2, tx 1 of 2, no other
    /// or combined channels (maximum 0, `n/a`).
    #[test]
    fn channels_without_a_kind_leave_it_out() {
        let mut w = AttrWriter::new();
        for (ty, v) in [(2, 2), (3, 2), (4, 0), (5, 0), (6, 1), (7, 1), (8, 0), (9, 0)] {
            w.u32(ty, v);
        }
        let c = parse_channels(&w.into_bytes()).unwrap();
        assert_eq!(c, Channels { rx: Some(1), rx_max: Some(2), tx: Some(1), tx_max: Some(2), ..Channels::default() });
        assert_eq!(c.rx_queues(), Some(1));
    }
}
