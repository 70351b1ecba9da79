//! What per-lane counters say without a time base: a lone snapshot (`optics import` of one
//! `ethtool -S`) has counts since the counters last started, at an unknown time, so no BER;
//! but the lanes' shares of the corrected bits and their ratios need no time at all.

use super::InterfaceWindow;
use crate::analysis::stats;

/// `12.3` for shares of 10 % and more, `1.23` from 1 %, two significant digits below
/// ("0.16"), so a small lane's share is not printed as 0.0.
fn fmt_share(pct: f64) -> String {
    if pct >= 10.0 {
        format!("{pct:.1}")
    } else if pct >= 1.0 {
        format!("{pct:.2}")
    } else if pct > 0.0 {
        let decimals = (1.0 - pct.log10().floor()).clamp(0.0, 12.0) as usize;
        format!("{pct:.decimals$}")
    } else {
        "0".into()
    }
}

/// Sentences for a window with per-lane corrected bits but no BER (one snapshot, or no
/// duration): each lane's share, largest first, and the largest lane over its siblings'
/// median. Empty when a BER is possible or there are no per-lane counts.
/// `used_lanes`: the link's lane count, when known; counters past it are unused lanes'
/// and left out.
pub(crate) fn no_time_base_notes(w: &InterfaceWindow, ber_possible: bool, used_lanes: Option<usize>) -> Vec<String> {
    if ber_possible {
        return Vec::new();
    }
    let counts = if w.samples < 2 { &w.counters_at_end } else { &w.deltas };
    let Some(lanes) = counts.corrected_bits_per_lane.as_ref() else {
        return Vec::new();
    };
    let values = &lanes.values[..lanes.values.len().min(used_lanes.unwrap_or(usize::MAX))];
    if values.len() < 2 {
        return Vec::new();
    }
    // u128: lane counts are arbitrary u64 and their sum must not overflow.
    let total: u128 = values.iter().map(|v| u128::from(*v)).sum();
    let mut out = Vec::new();
    let what =
        if w.samples < 2 { "counts since the counters last started, at an unknown time" } else { "counts over a window of no duration" };
    if total == 0 {
        out.push(format!("no time base ({what}): no lane has corrected bits ({})", lanes.origin));
    } else {
        let mut order: Vec<(usize, u64)> = values.iter().copied().enumerate().collect();
        order.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let shares: Vec<String> =
            order.iter().map(|(i, v)| format!("lane {} {} %", i + 1, fmt_share(*v as f64 * 100.0 / total as f64))).collect();
        let (top_i, top_v) = order[0]; // len > 1
        let siblings: Vec<f64> = order[1..].iter().map(|(_, v)| *v as f64).collect();
        let ratio = match stats::median(&siblings) {
            Some(m) if m > 0.0 => format!("; lane {} has {:.0}x its siblings' median", top_i + 1, top_v as f64 / m),
            _ => format!("; its siblings' median is 0, so lane {} stands alone", top_i + 1),
        };
        out.push(format!(
            "no time base ({what}): lane {} carries {} % of the {total} corrected bits ({}){ratio}",
            top_i + 1,
            fmt_share(top_v as f64 * 100.0 / total as f64),
            shares[1..].join(", ")
        ));
    }
    out.push(
        "a BER needs the time the counts span: import two snapshots, or one with --window-s N (or --since-boot with the uptime)".into(),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{LaneCounts, Origin};

    fn lone(values: Vec<u64>) -> InterfaceWindow {
        let mut w = InterfaceWindow { samples: 1, ..Default::default() };
        w.counters_at_end.corrected_bits_per_lane = Some(LaneCounts { values, origin: Origin::Driver("rx_err_lane_N_phy") });
        w
    }

    #[test]
    fn shares_of_the_gx10_excerpt() {
        // ../shared/real-dumps/ctr02: lanes 6, 2, 190, 0 of 198: lane 3 = 190/198 = 95.96 %,
        // lane 1 6/198 = 3.03 %, lane 2 1.01 %, lane 4 0; median of (6, 2, 0) = 2 -> 95x.
        let n = no_time_base_notes(&lone(vec![6, 2, 190, 0]), false, None);
        assert_eq!(n.len(), 2);
        assert!(n[0].contains("lane 3 carries 96.0 % of the 198 corrected bits"), "{}", n[0]);
        assert!(n[0].contains("lane 1 3.03 %, lane 2 1.01 %, lane 4 0 %"), "{}", n[0]);
        assert!(n[0].contains("95x its siblings' median"), "{}", n[0]);
        assert!(n[1].contains("--window-s"));
    }

    #[test]
    fn small_shares_keep_two_digits() {
        // Of 10000: 9980 = 99.8 %, 16 = 0.16 %, 2 = 0.020 %.
        let n = no_time_base_notes(&lone(vec![16, 2, 2, 9980]), false, Some(4));
        assert!(n[0].contains("lane 4 carries 99.8 %") && n[0].contains("lane 1 0.16 %") && n[0].contains("lane 2 0.020 %"), "{}", n[0]);
        assert!(no_time_base_notes(&lone(vec![16, 2]), true, None).is_empty());
        // A 2-lane link on four counters: lanes 3-4 are unused, not siblings. Of 16 + 2:
        // lane 1 88.9 %, lane 2 11.1 %; its one sibling's median is 2 -> 8x.
        let n = no_time_base_notes(&lone(vec![16, 2, 0, 0]), false, Some(2));
        assert!(n[0].contains("lane 1 carries 88.9 % of the 18 corrected bits (lane 2 11.1 %); lane 1 has 8x"), "{}", n[0]);
    }
}
