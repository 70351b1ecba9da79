//! `ETHTOOL_MSG_FEC_GET` (29, Linux 5.13) with `ETHTOOL_FLAG_STATS` (kernel-uapi.md §3):
//! active FEC mode, and the FEC counters `[total, lane0..]` plus the 6.18 histogram.

use super::consts::*;
use super::header_request::header_only;
use super::parse::{attrs, u32_of, u64_array, uint_of, Attr, WireError};
use super::{malformed, Dev, Netlink};
use crate::counters::{FecHistogramBin, FecStats};
use crate::source::Result;

/// FEC link-mode bits (`enum ethtool_link_mode_bit_indices`) and the kernel's names for
/// them in `ETH_SS_LINK_MODES` ("None", "RS", "BASER", "LLRS").
pub const FEC_MODE_BITS: &[(u32, &str)] = &[(49, "None"), (50, "RS"), (51, "BASER"), (74, "LLRS")];

/// Name of an `ETHTOOL_A_FEC_ACTIVE` link-mode bit.
pub(crate) fn fec_mode_name(bit: u32) -> String {
    FEC_MODE_BITS.iter().find(|(b, _)| *b == bit).map(|(_, n)| n.to_string()).unwrap_or_else(|| format!("link mode bit {bit}"))
}

/// A decoded FEC_GET reply.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FecReply {
    /// `None` when the kernel omitted ACTIVE (the driver reports no active mode).
    pub active: Option<String>,
    /// `None` when there was no STATS nest (the driver has no `get_fec_stats`).
    pub stats: Option<FecStats>,
    /// Parts of the reply that could not be decoded.
    pub warnings: Vec<String>,
}

/// The FEC_GET request's attributes for `dev` (header only, with `flags`).
pub fn request_attrs(dev: &Dev, flags: u32) -> Vec<u8> {
    header_only(dev, ETHTOOL_A_FEC_HEADER, flags)
}

/// Decodes a FEC_GET reply's attributes.
pub fn parse_reply(buf: &[u8]) -> std::result::Result<FecReply, WireError> {
    let mut out = FecReply::default();
    for a in attrs(buf)? {
        match a.ty {
            ETHTOOL_A_FEC_ACTIVE => match u32_of(a.payload) {
                Some(bit) => out.active = Some(fec_mode_name(bit)),
                None => out.warnings.push(format!("FEC ACTIVE has {} bytes, not 4", a.payload.len())),
            },
            ETHTOOL_A_FEC_STATS => out.stats = Some(parse_stats(a.payload, &mut out.warnings)?),
            _ => {} // HEADER, MODES, AUTO and anything newer
        }
    }
    Ok(out)
}

fn parse_stats(buf: &[u8], warnings: &mut Vec<String>) -> std::result::Result<FecStats, WireError> {
    let mut s = FecStats::default();
    for a in attrs(buf)? {
        let slot = match a.ty {
            ETHTOOL_A_FEC_STAT_CORRECTED => &mut s.corrected_blocks,
            ETHTOOL_A_FEC_STAT_UNCORR => &mut s.uncorrectable_blocks,
            ETHTOOL_A_FEC_STAT_CORR_BITS => &mut s.corrected_bits,
            ETHTOOL_A_FEC_STAT_HIST => {
                match parse_bin(&a) {
                    Ok(bin) => s.histogram.push(bin),
                    Err(w) => warnings.push(w.to_string()),
                }
                continue;
            }
            _ => continue, // PAD, unknown
        };
        // A 0-byte array means "not reported by the driver": it stays empty.
        match u64_array(a.payload) {
            Some(v) => *slot = v,
            None => warnings.push(format!("FEC stat {} has {} bytes, not a multiple of 8", a.ty, a.payload.len())),
        }
    }
    Ok(s)
}

fn parse_bin(hist: &Attr<'_>) -> std::result::Result<FecHistogramBin, WireError> {
    let (mut low, mut high, mut count) = (None, None, None);
    let mut per_lane = Vec::new();
    for a in attrs(hist.payload)? {
        match a.ty {
            ETHTOOL_A_FEC_HIST_BIN_LOW => low = u32_of(a.payload),
            ETHTOOL_A_FEC_HIST_BIN_HIGH => high = u32_of(a.payload),
            ETHTOOL_A_FEC_HIST_BIN_VAL => count = uint_of(a.payload),
            ETHTOOL_A_FEC_HIST_BIN_VAL_PER_LANE => per_lane = u64_array(a.payload).ok_or(WireError::HistogramPerLane)?,
            _ => {} // PAD, unknown
        }
    }
    match (low, high, count) {
        (Some(low), Some(high), Some(count)) => Ok(FecHistogramBin { low, high, count, per_lane }),
        _ => Err(WireError::HistogramBin { low, high, count }),
    }
}

impl Netlink {
    /// FEC_GET with statistics.
    pub fn fec(&mut self, family: u16, dev: &Dev) -> Result<FecReply> {
        let what = "FEC_GET";
        let reply = self.do_with_stats(family, ETHTOOL_MSG_FEC_GET, ETHTOOL_A_FEC_HEADER, what, dev)?;
        parse_reply(&reply).map_err(|d| malformed(what, d))
    }
}
