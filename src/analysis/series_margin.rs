//! Margin to the FEC limit per lane per bucket of the engine's bounded [`LaneSeries`]:
//! the points of `plot --kind margin-over-time` (and of a margin trend). Each bucket is
//! judged like a window's lane: BER = corrected bits / bits on the wire, the Poisson
//! upper bound where the bucket saw no error (its margin is then a lower bound), and
//! margin = 10·log10(x / x_limit) (`q::margin_db`).

use super::ber::{judged_ber, poisson_bounds};
use super::q::{margin_db_of_q, q_from_ber};
use super::series::LaneSeries;
use super::trend::MarginPoint;
use super::LinkAnalysis;
use std::collections::BTreeMap;

/// One bucket's margin; `lower_bound` when the bucket saw no error (the margin is then
/// from the BER upper bound: at least this much). A trend skips those (see
/// [`super::trend`]); a plot draws them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BucketMargin {
    /// The bucket's mid time and margin in dB.
    pub point: MarginPoint,
    pub(crate) lower_bound: bool,
}

/// Per lane (1-based), the margin of every bucket with counted bits, at the bucket's mid
/// time. Empty when the link's lane rate, modulation or FEC limit is unknown.
pub fn lane_margins(series: &LaneSeries, link: &LinkAnalysis, confidence: f64) -> BTreeMap<u8, Vec<BucketMargin>> {
    let mut out: BTreeMap<u8, Vec<BucketMargin>> = BTreeMap::new();
    let (Some(rate), Some(lanes), Some(m), Some(limit)) = (link.lane_rate_gbps, link.lanes, link.modulation, link.fec_limit_ber) else {
        return out;
    };
    // The BER `Ber::new(k, bits, confidence)` is judged at ([`judged_ber`]) and
    // `margin_db(.., limit, m)`, per bucket and lane, with what does not depend on the
    // bucket computed once: the limit's eye distance and the Poisson upper bound of zero
    // errors; the bounds of other counts are unused.
    let Some(x_limit) = q_from_ber(limit, m) else { return out };
    let mut zero_upper = None;
    for (k, b) in series.buckets().iter().enumerate() {
        let bits = b.lane_bits_on_wire(rate, lanes);
        if !(bits.is_finite() && bits > 0.0) {
            continue;
        }
        let mut margin_of = |k: u64| {
            let at = judged_ber(k, bits, || *zero_upper.get_or_insert_with(|| poisson_bounds(0, confidence).1));
            q_from_ber(at, m).map(|x| margin_db_of_q(x, x_limit)).filter(|v| v.is_finite())
        };
        // Every lane of the bucket without an error has the same bits, so the same bound
        // and margin: judged once.
        let mut zero_margin = None;
        for (i, bits) in series.lane_bits(k).enumerate() {
            let (Some(k), Ok(lane)) = (bits, u8::try_from(i + 1)) else { continue };
            let margin = if k == 0 { *zero_margin.get_or_insert_with(|| margin_of(0)) } else { margin_of(k) };
            if let Some(margin) = margin {
                let point = MarginPoint { t_s: b.mid_t_s(), margin_db: margin };
                out.entry(lane).or_default().push(BucketMargin { point, lower_bound: k == 0 });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::q::margin_db;
    use crate::analysis::series::Interval;
    use crate::module::report::Modulation;

    #[test]
    fn margin_per_bucket_from_bits_and_rate() {
        // Two 10 s buckets on a 4-lane 53.125 Gb/s PAM4 link, limit 2.4e-4: lane 1 corrects
        // 5.3125e7 bits per bucket (BER 1e-4, the link's q::margin_db at 1e-4), lane 2 none.
        let mut s = LaneSeries::new(8);
        for i in 0..2 {
            let t = f64::from(i) * 10.0;
            s.push(&Interval { t_start: t, t_end: t + 10.0, corrected_bits_per_lane: Some(&[53_125_000, 0]), ..Default::default() });
        }
        let link = LinkAnalysis {
            lane_rate_gbps: Some(53.125),
            lanes: Some(4),
            modulation: Some(Modulation::Pam4),
            fec_limit_ber: Some(2.4e-4),
            ..Default::default()
        };
        let m = lane_margins(&s, &link, 0.95);
        let l1 = &m[&1];
        assert_eq!(l1.iter().map(|p| p.point.t_s).collect::<Vec<_>>(), vec![5.0, 15.0]);
        let want = margin_db(1e-4, 2.4e-4, Modulation::Pam4).unwrap();
        assert!((l1[0].point.margin_db - want).abs() < 1e-12 && !l1[0].lower_bound);
        // Lane 2: no error, so the margin is from the upper bound, above lane 1's.
        assert!(m[&2][0].point.margin_db > want && m[&2][0].lower_bound);
        // No FEC limit: nothing to measure against.
        assert!(lane_margins(&s, &LinkAnalysis { fec_limit_ber: None, ..link }, 0.95).is_empty());
    }
}
