//! Lanes the NIC counts only as a group: where per-lane corrected-bit counters cover the
//! first m of a port's n lanes (mlx5 has `rx_err_lane_0..3_phy` only, so an 8-lane port
//! shows lanes 1-4), the port total minus their sum is what lanes m+1..n corrected
//! together. That group gets a BER over its n − m lanes' bits, a margin, and the same
//! floor and outlier tests a lane gets, so errors sitting in lanes 5-8 are not "accept".
//! The group's BER is the mean of its lanes: its worst lane is at least that bad. Each
//! lane of the group keeps `pre_fec_ber: null` (a group figure is not a lane's).

use super::*;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct LaneGroup {
    /// 1-based lanes of the port in the group.
    pub(crate) lanes: Vec<u8>,
    pub(crate) corrected_bits: u64,
    pub(crate) pre_fec_ber: Option<f64>,
    pub(crate) pre_fec_ber_lower: Option<f64>,
    pub(crate) pre_fec_ber_upper: Option<f64>,
    pub(crate) margin_db: Option<f64>,
    pub(crate) margin_is_lower_bound: bool,
    /// How the group's count was derived.
    pub(crate) source: String,
}

impl LaneGroup {
    /// "lanes 5-8" (or "lane 8").
    pub(crate) fn name(&self) -> String {
        match (self.lanes.first(), self.lanes.last()) {
            (Some(a), Some(b)) if a != b => format!("lanes {a}-{b}"),
            (Some(a), _) => format!("lane {a}"),
            _ => "no lanes".into(),
        }
    }
}

/// The group of lanes past the per-lane counters, when the port total covers more.
pub(super) fn groups(cx: &mut Context, link: &LinkAnalysis, measured: &[LaneAnalysis]) -> Vec<LaneGroup> {
    let d = &cx.w.deltas;
    let (Some(per_lane), Some(total), Some(rate)) = (d.corrected_bits_per_lane.as_ref(), link.corrected_bits, cx.rate.as_ref()) else {
        return Vec::new();
    };
    let counted = u32::try_from(per_lane.values.len()).unwrap_or(u32::MAX);
    if counted == 0 || counted >= rate.lanes || !cx.ber_possible() {
        return Vec::new();
    }
    let lanes: Vec<u8> = (counted + 1..=rate.lanes).filter_map(|l| u8::try_from(l).ok()).collect();
    // Counters are untrusted: a sum past u64 exceeds any port total too.
    let sum = per_lane.values.iter().try_fold(0u64, |a, v| a.checked_add(*v));
    let covered = format!("{} counts lanes 1-{counted} only", per_lane.origin);
    let span = |f| cx.w.counter_span(f).map(|s| (s.from_t, s.to_t));
    if span(CounterFigure::CorrectedBits) != span(CounterFigure::CorrectedBitsPerLane) {
        cx.notes.push(format!("{covered}, over another span than the port total's: no figure for the other lanes"));
        return Vec::new();
    }
    let Some(k) = sum.and_then(|s| total.checked_sub(s)) else {
        let sum = sum.map_or_else(|| "past 2^64".to_string(), |s| s.to_string());
        cx.notes.push(format!("{covered}, and their sum {sum} exceeds the port total {total}: no figure for the other lanes"));
        return Vec::new();
    };
    let source = format!("port corrected bits minus lanes 1-{counted} ({covered})");
    let mut g = LaneGroup {
        lanes,
        corrected_bits: k,
        pre_fec_ber: None,
        pre_fec_ber_lower: None,
        pre_fec_ber_upper: None,
        margin_db: None,
        margin_is_lower_bound: k == 0,
        source,
    };
    if let Some(b) = cx.ber_of(CounterFigure::CorrectedBits, k, rate.lanes - counted) {
        g.pre_fec_ber = Some(b.ber);
        g.pre_fec_ber_lower = Some(b.lower);
        g.pre_fec_ber_upper = Some(b.upper);
        g.margin_db = cx.margin(b.judged());
    }
    if all_vdm(&g, measured) {
        cx.notes.push(format!(
            "{covered}: {} are counted by the NIC only as a group; each is judged as a lane by the module's VDM pre-FEC BER",
            g.name()
        ));
    } else {
        cx.notes.push(format!("{covered}: {} are judged as a group from the port total; their lanes have no per-lane BER", g.name()));
    }
    vec![g]
}

/// Every lane of the group has the module's own per-lane BER: the lanes are judged one by
/// one (outlier.rs), so the group earns no reason of its own on top.
fn all_vdm(g: &LaneGroup, lanes: &[LaneAnalysis]) -> bool {
    g.lanes.iter().all(|n| lanes.iter().any(|l| l.lane == *n && l.ber_source == Some(super::vdm_lanes::BerSource::Vdm)))
}

/// `low_margin` and `fec_hiding_marginal_optics` for a group, by the lanes' own rules
/// (optimistic margin from the lower bound; outlier against the counted lanes).
pub(super) fn judge(
    cx: &Context,
    link: &LinkAnalysis,
    groups: &[LaneGroup],
    lanes: &[LaneAnalysis],
    reasons: &mut Vec<Reason>,
    advice: &mut Vec<String>,
) {
    let cfg = &cx.cfg;
    let link_clean = limits::link_clean(cx, link);
    let limit_text = limits::limit_text(cx, link);
    let sib_upper: Vec<f64> = lanes.iter().filter_map(|l| l.pre_fec_ber_upper).collect();
    for g in groups.iter().filter(|g| !all_vdm(g, lanes)) {
        let name = g.name();
        let margin_hi = g.pre_fec_ber_lower.filter(|b| *b > 0.0).and_then(|b| cx.margin(b));
        let low = margin_hi.is_some_and(|m| m < cfg.margin_floor_db);
        let outlier = match (g.pre_fec_ber_lower, g.pre_fec_ber, stats::median(&sib_upper)) {
            (Some(lo), Some(b), Some(sib)) => {
                lo >= cfg.outlier_ratio * sib && cx.limit.is_none_or(|lim| b >= cfg.outlier_min_limit_fraction * lim)
            }
            _ => false,
        };
        let what = format!("{name} (counted only as a group: {})", g.source);
        let ber = g.pre_fec_ber.map_or("unknown".into(), |b| format!("{b:.1e}"));
        let margin = limits::fmt_opt_db(g.margin_db);
        if link_clean && g.corrected_bits > 0 && (outlier || low) {
            let msg = format!(
                "{what}: mean pre-FEC BER {ber} with no uncorrectable blocks or link drops: FEC is hiding marginal optics; margin {margin} to {limit_text}; its worst lane is at least this bad"
            );
            reasons.push(Reason::new(ReasonCode::FecHidingMarginalOptics, Severity::Investigate, None, msg));
        }
        if low {
            let msg = limits::below_floor(&what, g.margin_db, &limit_text, cfg.margin_floor_db);
            reasons.push(Reason::new(ReasonCode::LowMargin, Severity::Investigate, None, msg));
        }
        if (link_clean && g.corrected_bits > 0 && outlier) || low {
            // The NIC cannot say which lane of the group; the module's VDM (when it has
            // per-lane BER, those lanes are judged as lanes: vdm_lanes) or moving the
            // fibers can.
            advice.push(format!(
                "{name}: the NIC counts these lanes only together: find the weak one with the module's per-lane diagnostics (CMIS VDM pre-FEC BER, mlxlink) or by swapping lanes, then clean that lane's fiber and connectors at both ends"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{Counted, LaneCounts, Origin};

    /// 800G-DR8 over 10 s, no module: 8 x 106.25e9 x 10 = 1.0625e12 bits per lane.
    fn port(total: u64, lanes: &[u64]) -> InterfaceWindow {
        let c = |v| Some(Counted { value: v, origin: Origin::Netlink });
        InterfaceWindow {
            interface: "eth0".into(),
            link: LinkInfo {
                speed_mbps: Some(800_000),
                lanes: Some(8),
                link_mode: Some("800000baseDR8/Full".into()),
                fec_active: Some("RS".into()),
                ..Default::default()
            },
            duration_s: 10.0,
            samples: 11,
            link_up: Some(true),
            module_error: Some("not read".into()),
            deltas: PortCounters {
                corrected_bits: c(total),
                corrected_bits_per_lane: Some(LaneCounts { values: lanes.to_vec(), origin: Origin::Driver("rx_err_lane_N_phy") }),
                uncorrectable_blocks: c(0),
                link_down_events: c(0),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn group_from_the_port_total() {
        // Lanes 1-4: 106,250 each (1e-7); the rest, 4 x 1.0625e12 bits, hold 21.25e6 + 3 x 106,250
        // = 21,568,750: mean BER 21,568,750 / 4.25e12 = 5.075e-6.
        let total = 4 * 106_250 + 21_568_750;
        let a = analyze(&[port(total, &[106_250; 4])], &Config::default(), &[]).remove(0);
        let g = &a.lane_groups[0];
        assert_eq!((g.lanes.clone(), g.corrected_bits, g.name()), (vec![5, 6, 7, 8], 21_568_750, "lanes 5-8".to_string()));
        assert!((g.pre_fec_ber.unwrap() - 5.075e-6).abs() < 1e-12);
        // Q = 6.767e-6 -> x 4.35130 -> 10 log10(4.35130 / 3.41407) = 1.053 dB.
        assert!((g.margin_db.unwrap() - 1.053).abs() < 1e-3);
        let r = a.reasons.iter().find(|r| r.code == ReasonCode::FecHidingMarginalOptics).unwrap();
        assert!(r.message.starts_with("lanes 5-8") && r.lane.is_none(), "{}", r.message);
        assert!(a.lanes.iter().filter(|l| l.lane > 4).all(|l| l.pre_fec_ber.is_none()));
        // Errors only where the lanes are counted: the group is clean (lower-bound margin).
        let a = analyze(&[port(4 * 106_250, &[106_250; 4])], &Config::default(), &[]).remove(0);
        assert!(a.lane_groups[0].margin_is_lower_bound && a.lane_groups[0].corrected_bits == 0);
        assert!(
            a.reasons.iter().all(|r| r.code != ReasonCode::FecHidingMarginalOptics && r.code != ReasonCode::LowMargin),
            "{:?}",
            a.reasons
        );
        // Lanes summing past the total: a note, no group.
        let a = analyze(&[port(10, &[106_250; 4])], &Config::default(), &[]).remove(0);
        assert!(a.lane_groups.is_empty() && a.notes.iter().any(|n| n.contains("exceeds the port total")));
        // Lanes whose sum passes u64 (hostile counters; found by pipeline_never_panics): a note, no panic.
        let a = analyze(&[port(u64::MAX, &[u64::MAX, 1, 0, 0])], &Config::default(), &[]).remove(0);
        assert!(a.lane_groups.is_empty() && a.notes.iter().any(|n| n.contains("past 2^64")), "{:?}", a.notes);
        // Every lane counted: no group.
        assert!(analyze(&[port(8, &[1; 8])], &Config::default(), &[]).remove(0).lane_groups.is_empty());
    }
}
