//! The module's own view of its lanes (CMIS VDM) in the lane model, and which measurement
//! each lane's `pre_fec_ber` and `margin_db` come from (`ber_source`). docs/vdm.md states
//! the rule:
//!
//! 1. The NIC's per-lane corrected-bit counters rank first where they exist: they are what
//!    the FEC at this end actually corrected (`"driver"` for `ethtool -S` names such as
//!    mlx5's `rx_err_lane_N_phy`, `"netlink"` for the ethtool FEC per-lane statistics).
//! 2. Lanes the NIC does not count (mlx5 exposes four `rx_err_lane_N_phy`, so lanes 5-8 of
//!    an 8-lane port) take the module's media-side VDM pre-FEC BER (current value, else the
//!    average): `"vdm"`.
//! 3. Otherwise `pre_fec_ber` is null (`ber_source` null) and a note says why; the port
//!    BER is still judged.
//!
//! eSNR breaks ties in the ranking (lower is weaker) and feeds the advice: low eSNR with
//! normal light points at the module's receiver or the far end's transmitter, not the fiber.

use super::lane_index::lane_list;
use super::*;
use crate::counters::Origin;
use crate::module::vdm::{VdmLane, VdmSideValues};
use std::cmp::Ordering;

/// A lane's eSNR this far below its siblings' median counts as low (dB). PAM4 receivers
/// of one module sit within a few tenths of a dB of each other on a healthy link.
pub(crate) const ESNR_LOW_DELTA_DB: f64 = 1.0;

/// Which measurement a lane's `pre_fec_ber` and `margin_db` come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BerSource {
    /// Driver statistics (`ethtool -S`), e.g. mlx5 `rx_err_lane_N_phy`.
    Driver,
    /// Ethtool netlink FEC statistics, per lane.
    Netlink,
    /// Per-lane FEC counts an imported tool output printed (mlxlink, NVUE).
    Import,
    /// The module's VDM media-side pre-FEC BER.
    Vdm,
}

impl BerSource {
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            BerSource::Driver => "driver",
            BerSource::Netlink => "netlink",
            BerSource::Import => "import",
            BerSource::Vdm => "vdm",
        }
    }
}

/// The module's host-side (electrical input) VDM figures of a lane: `host` in lane JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostSide {
    pub(crate) esnr_db: Option<f64>,
    pub(crate) ltp_db: Option<f64>,
    pub(crate) module_pre_fec_ber: Option<f64>,
}

/// The module's own BER of one input: the current value, else the average (CMIS VDM types
/// 15/16, then 13/14).
fn module_ber(v: &VdmSideValues) -> Option<f64> {
    v.pre_fec_ber_current.or(v.pre_fec_ber_average)
}

/// The BER source of per-lane corrected bits counted at `origin`; `None` for an origin that
/// counts no lanes.
fn source_of(origin: Origin) -> Option<BerSource> {
    match origin {
        Origin::Driver(_) => Some(BerSource::Driver),
        Origin::Netlink => Some(BerSource::Netlink),
        Origin::Import(_) => Some(BerSource::Import),
        Origin::Ib(_) | Origin::Samples => None,
    }
}

/// Fills the VDM figures of every lane, `ber_source`, and the module's BER where the NIC
/// has no per-lane count; notes which lanes have no per-lane BER and why.
pub(super) fn apply(cx: &mut Context, lanes: &mut [LaneAnalysis]) {
    let w = cx.w;
    let per_lane = w.deltas.corrected_bits_per_lane.as_ref();
    let nic_source = per_lane.and_then(|c| source_of(c.origin));
    let vdm = w.module.as_ref().and_then(|m| m.vdm.as_ref());
    let mut filled = Vec::new();
    for la in lanes.iter_mut() {
        if la.pre_fec_ber.is_some() {
            la.ber_source = nic_source;
        }
        let Some(v) = vdm.and_then(|v| v.lane(la.lane)) else { continue };
        la.esnr_db = v.media.esnr_db;
        la.ltp_db = v.media.ltp_db;
        la.module_pre_fec_ber = module_ber(&v.media);
        la.host = host_side(v);
        // Only lanes the NIC does not count: a counted lane without a BER (a one-sample
        // window) waits for the NIC's own figure.
        if la.pre_fec_ber.is_none() && la.corrected_bits.is_none() {
            if let Some(ber) = la.module_pre_fec_ber {
                la.pre_fec_ber = Some(ber);
                la.ber_source = Some(BerSource::Vdm);
                // A BER of 0 leaves margin unbounded: no figure rather than infinity.
                la.q = cx.modulation.and_then(|m| q::q_from_ber(ber, m));
                la.margin_db = cx.margin(ber);
                filled.push(la.lane);
            }
        }
    }
    let counted = per_lane.map_or(0, |c| c.values.len());
    let blind: Vec<u8> = lanes.iter().filter(|l| l.pre_fec_ber.is_none()).map(|l| l.lane).collect();
    // Worded only for a note: most windows need none.
    let nic_lanes = || {
        if counted > 0 {
            let origin = per_lane.map_or(String::new(), |c| c.origin.to_string());
            let who = if is_mlx5(w) { "mlx5 exposes" } else { "the NIC counts" };
            format!("{who} corrected bits for lanes 1-{counted} only ({origin})")
        } else {
            "the NIC counts corrected bits for the port only".into()
        }
    };
    if !filled.is_empty() {
        filled.sort_unstable();
        cx.notes.push(format!("lanes {}: pre-FEC BER from the module's VDM (media input): {}", lane_list(&filled), nic_lanes()));
    }
    // Only worth saying when some lanes do have a BER, or the module could have filled them.
    let any_ber = lanes.iter().any(|l| l.pre_fec_ber.is_some());
    if !blind.is_empty() && (any_ber || vdm.is_some()) && cx.ber_possible() {
        let mut blind = blind;
        blind.sort_unstable();
        let module = if vdm.is_some() { "the module's VDM reports no pre-FEC BER for them" } else { "the module has no VDM" };
        cx.notes.push(format!(
            "lanes {}: no per-lane pre-FEC BER: {} and {module}; the port-level BER is still judged",
            lane_list(&blind),
            nic_lanes()
        ));
    }
}

fn is_mlx5(w: &InterfaceWindow) -> bool {
    w.identity.driver.as_deref() == Some("mlx5_core")
}

fn host_side(v: &VdmLane) -> Option<HostSide> {
    let h = &v.host;
    (!h.is_empty()).then(|| HostSide { esnr_db: h.esnr_db, ltp_db: h.ltp_db, module_pre_fec_ber: module_ber(h) })
}

/// The module's BER when it is what the lane's margin rests on (a point figure: no
/// Poisson bounds, since the module reports no counts).
pub(super) fn module_point_ber(la: &LaneAnalysis) -> Option<f64> {
    la.pre_fec_ber.filter(|b| *b > 0.0 && la.ber_source == Some(BerSource::Vdm))
}

/// Tie-break for the ranking: lower media eSNR is weaker; lanes without eSNR after.
pub(super) fn by_esnr(a: &LaneAnalysis, b: &LaneAnalysis) -> Ordering {
    match (a.esnr_db, b.esnr_db) {
        (Some(x), Some(y)) => x.total_cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// The media eSNR a lane is measured against: its siblings' (every other lane's; lane
/// numbers are distinct), sorted once per window.
pub(super) struct EsnrSiblings(stats::SiblingMedians);

impl EsnrSiblings {
    pub(super) fn of(lanes: &[LaneAnalysis]) -> Self {
        EsnrSiblings(stats::SiblingMedians::new(lanes.iter().map(|l| l.esnr_db)))
    }

    /// Media eSNR of lane `l` minus the median of its siblings' (negative = worse); the
    /// median is not looked up for a lane without eSNR (most modules report none).
    pub(super) fn delta_db(&self, l: &LaneAnalysis) -> Option<f64> {
        let e = l.esnr_db?;
        self.0.without(Some(e)).map(|m| e - m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn esnr_breaks_ties_lowest_first() {
        let l = |lane, esnr_db| LaneAnalysis { lane, esnr_db, ..Default::default() };
        assert_eq!(by_esnr(&l(1, Some(18.0)), &l(2, Some(20.0))), Ordering::Less);
        assert_eq!(by_esnr(&l(1, None), &l(2, Some(20.0))), Ordering::Greater);
        // Lane 2 is 3 dB under the median of 21, 21.
        let lanes = [l(1, Some(21.0)), l(2, Some(18.0)), l(3, Some(21.0)), l(4, None)];
        let sib = EsnrSiblings::of(&lanes);
        let d: Vec<_> = lanes.iter().map(|l| sib.delta_db(l)).collect();
        assert_eq!(d, [Some(1.5), Some(-3.0), Some(1.5), None]);
    }
}
