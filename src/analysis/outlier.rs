//! `fec_hiding_marginal_optics` and `low_margin`: which lanes are weak although the
//! link looks clean, and the evidence for it.
//!
//! A lane is an outlier when, with noise accounted for, its BER is at least
//! `outlier_ratio` (10x) its siblings': its lower confidence bound must reach ratio x
//! the median of the siblings' upper bounds, so 30 errors beside zeros (lower bound
//! 21.6 < 10 x 3.0) do not trigger and 212e6 beside 1.4e6 does. It must also carry
//! at least `outlier_min_limit_fraction` of the FEC limit, so a lane at 1e-11 beside
//! 1e-13 siblings is not called marginal. `low_margin` uses the optimistic margin
//! (from the BER lower bound), so a short window with few counts cannot trigger it.
//! FEC is "hiding" the lane when the link is not down, with no new uncorrectable blocks
//! and no link drops (a counter the driver lacks counts as zero, with a note), and the
//! lane is an outlier or below the margin floor.
//!
//! Siblings are of a comparable source (docs/vdm.md): the NIC's counted lanes are
//! measured against the NIC's counted lanes, with their Poisson bounds; lanes whose BER is
//! the module's VDM point figure against the other VDM lanes, at `outlier_ratio` on the
//! figures themselves (the module reports no counts to bound). A VDM lane 100x its VDM
//! siblings is an outlier even while the counted lanes sit far from both.

use super::config::Config;
use super::q;
use super::stats::{line_fit, median, LineFit, SiblingMedians};
use super::LaneAnalysis;
use crate::module::report::Modulation;
use serde::Serialize;

/// Per-lane evidence for a flag.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Evidence {
    /// rx dBm minus the siblings' median rx dBm.
    pub(crate) rx_delta_db: Option<f64>,
    /// Lane BER over the siblings' median BER.
    pub(crate) ber_ratio: Option<f64>,
    /// Outlier by the confidence-interval rule above.
    pub(crate) outlier: bool,
    /// The interface's [`RxBerFit`] slope, copied onto flagged lanes.
    pub(crate) slope_decades_per_db: Option<f64>,
    pub(crate) pam4_signature: Option<bool>,
    /// The fit's modulation-aware signature ([`RxBerFit::signature`]).
    pub(crate) signature: Option<bool>,
}

/// log10(BER) against rx dBm across the lanes of one interface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct RxBerFit {
    /// Decades of BER per dB of rx power (negative: less light, more errors).
    pub(crate) slope_decades_per_db: f64,
    pub(crate) r: f64,
    pub(crate) lanes: usize,
    /// Slope within the configured PAM4 range on a PAM4 link: errors follow the light.
    pub(crate) pam4_signature: bool,
    /// Slope within the range configured for the link's modulation (PAM4:
    /// `signature_slope_*`, NRZ: `nrz_signature_slope_*`): errors follow the light.
    pub(crate) signature: bool,
    /// The Q model's slope at the median log10 BER of the fitted lanes ([`q::model_slope_decades_per_db`]).
    pub(crate) model_slope_decades_per_db: Option<f64>,
}

/// What each lane's [`Evidence`] is measured against, worked out once per window: one
/// sorted copy per figure, not one per lane (a CSV export judges every row). Asked lane
/// by lane rather than collected: a judge then holds no list of evidence per window.
pub(crate) struct Siblings {
    rx: SiblingMedians,
    /// The counted lanes' BERs and upper bounds (every lane but the VDM ones).
    ber: SiblingMedians,
    upper: SiblingMedians,
    /// The VDM lanes' point BERs.
    vdm: SiblingMedians,
}

fn is_vdm(l: &LaneAnalysis) -> bool {
    l.ber_source == Some(super::vdm_lanes::BerSource::Vdm)
}

impl Siblings {
    /// Each lane's siblings are all the other lanes of `lanes` whose BER is of the same
    /// kind (counted, or the module's VDM figure).
    pub(crate) fn of(lanes: &[LaneAnalysis]) -> Self {
        let counted = |l: &&LaneAnalysis| !is_vdm(l);
        Siblings {
            rx: SiblingMedians::new(lanes.iter().map(|l| l.rx_power_dbm)),
            ber: SiblingMedians::new(lanes.iter().filter(counted).map(|l| l.pre_fec_ber)),
            upper: SiblingMedians::new(lanes.iter().filter(counted).map(|l| l.pre_fec_ber_upper)),
            vdm: SiblingMedians::new(lanes.iter().filter(|l| is_vdm(l)).map(|l| l.pre_fec_ber)),
        }
    }

    /// The evidence of `me`, one of the lanes given to [`of`](Self::of).
    pub(crate) fn evidence(&self, me: &LaneAnalysis, cfg: &Config, ber_limit: Option<f64>) -> Evidence {
        let rx_delta_db = me.rx_power_dbm.zip(self.rx.without(me.rx_power_dbm)).map(|(r, m)| r - m).filter(|d| d.is_finite());
        let carries = |b: f64| ber_limit.is_none_or(|lim| b >= cfg.outlier_min_limit_fraction * lim);
        if is_vdm(me) {
            let ber_ratio = match (me.pre_fec_ber, self.vdm.without(me.pre_fec_ber)) {
                (Some(b), Some(m)) if m > 0.0 => Some(b / m),
                _ => None,
            };
            let outlier = ber_ratio.is_some_and(|r| r >= cfg.outlier_ratio) && me.pre_fec_ber.is_some_and(carries);
            return Evidence { rx_delta_db, ber_ratio, outlier, ..Default::default() };
        }
        let ber_ratio = match (me.pre_fec_ber, self.ber.without(me.pre_fec_ber)) {
            (Some(b), Some(m)) if m > 0.0 => Some(b / m),
            _ => None,
        };
        let outlier = match (me.pre_fec_ber_lower, me.pre_fec_ber, self.upper.without(me.pre_fec_ber_upper)) {
            (Some(lo), Some(b), Some(sib)) => lo >= cfg.outlier_ratio * sib && carries(b),
            _ => false,
        };
        Evidence { rx_delta_db, ber_ratio, outlier, ..Default::default() }
    }
}

/// (rx dBm, log10 BER) of the lanes with both a finite rx power and at least one corrected bit.
pub(crate) fn fit_points(lanes: &[LaneAnalysis]) -> Vec<(f64, f64)> {
    lanes
        .iter()
        .filter(|l| l.corrected_bits.is_some_and(|k| k > 0))
        .filter_map(|l| Some((l.rx_power_dbm?, l.pre_fec_ber?.log10())))
        .collect()
}

/// The fit over [`fit_points`], with the modulation's signature slope range.
pub(crate) fn rx_ber_fit(lanes: &[LaneAnalysis], modulation: Option<Modulation>, cfg: &Config) -> Option<RxBerFit> {
    let pts = fit_points(lanes);
    let LineFit { slope, r, n, .. } = line_fit(&pts)?;
    let range = match modulation {
        Some(Modulation::Pam4) => Some(cfg.signature_slope_min..=cfg.signature_slope_max),
        Some(Modulation::Nrz) => Some(cfg.nrz_signature_slope_min..=cfg.nrz_signature_slope_max),
        None => None,
    };
    let signature = slope < 0.0 && range.is_some_and(|r| r.contains(&-slope));
    // Median in log10 BER: the operating point the lanes' BERs centre on.
    let median_ber = median(&pts.iter().map(|p| p.1).collect::<Vec<_>>()).map(|l| 10f64.powf(l));
    let model_slope_decades_per_db = modulation.zip(median_ber).and_then(|(m, b)| q::model_slope_decades_per_db(b, m));
    Some(RxBerFit {
        slope_decades_per_db: slope,
        r,
        lanes: n,
        pam4_signature: signature && modulation == Some(Modulation::Pam4),
        signature,
        model_slope_decades_per_db,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every lane's evidence, in lane order.
    fn lane_evidence(lanes: &[LaneAnalysis], cfg: &Config, ber_limit: Option<f64>) -> Vec<Evidence> {
        let sib = Siblings::of(lanes);
        lanes.iter().map(|l| sib.evidence(l, cfg, ber_limit)).collect()
    }

    fn lane(n: u8, rx: f64, k: u64) -> LaneAnalysis {
        let b = super::super::ber::Ber::new(k, 3.1875e12, 0.95).unwrap();
        LaneAnalysis {
            lane: n,
            rx_power_dbm: Some(rx),
            corrected_bits: Some(k),
            pre_fec_ber: Some(b.ber),
            pre_fec_ber_lower: Some(b.lower),
            pre_fec_ber_upper: Some(b.upper),
            ..Default::default()
        }
    }

    #[test]
    fn the_200g_sr4_lanes() {
        let cfg = Config::default();
        let ls = vec![lane(1, -1.0, 1_000_000), lane(2, -1.1, 1_400_000), lane(3, -1.5, 5_000_000), lane(4, -1.6, 212_000_000)];
        // Lane 4: siblings' rx median (-1.0, -1.1, -1.5) = -1.1 -> delta -0.5 dB;
        // siblings' corrected-bit median 1.4e6 -> ratio 212/1.4 = 151.4.
        let e = &lane_evidence(&ls, &cfg, Some(2.4e-4))[3];
        assert!((e.rx_delta_db.unwrap() + 0.5).abs() < 1e-9);
        assert!((e.ber_ratio.unwrap() - 151.43).abs() < 0.01);
        assert!(e.outlier);
        // Lane 3: siblings 1.0e6, 1.4e6, 212e6 -> median 1.4e6; 5/1.4 = 3.6x: not an outlier.
        let e3 = &lane_evidence(&ls, &cfg, Some(2.4e-4))[2];
        assert!(!e3.outlier && (e3.ber_ratio.unwrap() - 3.571).abs() < 1e-3);
        // log10 BER = -6.5035, -6.3573, -5.8045, -4.1771 at x = -1.0, -1.1, -1.5, -1.6:
        // dx = 0.3, 0.2, -0.2, -0.3 (sxx 0.26); dy = -0.7929, -0.6467, -0.0939, 1.5335;
        // sxy = -0.2379 - 0.1293 + 0.0188 - 0.4601 = -0.8085 -> slope -3.110 decades/dB.
        let f = rx_ber_fit(&ls, Some(Modulation::Pam4), &cfg).unwrap();
        assert!((f.slope_decades_per_db + 3.110).abs() < 2e-3, "{}", f.slope_decades_per_db);
        assert!(f.pam4_signature && f.signature && f.lanes == 4);
        // Model at the median BER (log10 median of -6.3573, -5.8045 -> 10^-6.0809 = 8.30e-7).
        let m = q::model_slope_decades_per_db(10f64.powf((-6.3573 - 5.8045) / 2.0), Modulation::Pam4).unwrap();
        assert!((f.model_slope_decades_per_db.unwrap() - m).abs() < 1e-3);
        // The same points on an NRZ link: 3.11 is inside the NRZ range 1.3-8.0, not PAM4's.
        let nrz = rx_ber_fit(&ls, Some(Modulation::Nrz), &cfg).unwrap();
        assert!(!nrz.pam4_signature && nrz.signature);
        // A slope of 9 decades/dB is too steep for NRZ light alone; 1.1 passes PAM4, not NRZ.
        let steep = |slope: f64| {
            vec![
                lane(1, -1.0, 1_000_000),
                lane(2, -1.1, (1e6 * 10f64.powf(0.1 * slope)) as u64),
                lane(3, -1.2, (1e6 * 10f64.powf(0.2 * slope)) as u64),
            ]
        };
        assert!(!rx_ber_fit(&steep(9.0), Some(Modulation::Nrz), &cfg).unwrap().signature);
        assert!(!rx_ber_fit(&steep(1.1), Some(Modulation::Nrz), &cfg).unwrap().signature);
        assert!(rx_ber_fit(&steep(1.1), Some(Modulation::Pam4), &cfg).unwrap().signature);
        assert!(!rx_ber_fit(&ls, None, &cfg).unwrap().signature);
    }

    #[test]
    fn small_counts_do_not_trigger() {
        let cfg = Config::default();
        // 30 errors: lower bound chi2(60 dof, 0.05)/2 = 43.19/2 = 21.6 < 10 x 3.0 (zero-error siblings' upper).
        let ls = vec![lane(1, -1.0, 0), lane(2, -1.0, 0), lane(3, -1.0, 30), lane(4, -1.0, 0)];
        assert!(!lane_evidence(&ls, &cfg, None)[2].outlier);
        // 1e6 errors: far past 10x, and 1e6 / 3.1875e12 = 3.1e-7 >= 1e-3 x 2.4e-4: outlier.
        let ls = vec![lane(1, -1.0, 0), lane(2, -1.0, 0), lane(3, -1.0, 1_000_000), lane(4, -1.0, 0)];
        assert!(lane_evidence(&ls, &cfg, Some(2.4e-4))[2].outlier);
        let ls = vec![lane(1, -1.0, 0), lane(2, -1.0, 0), lane(3, -1.0, 100), lane(4, -1.0, 0)];
        // 100 / 3.1875e12 = 3.1e-11 < 2.4e-7.
        assert!(!lane_evidence(&ls, &cfg, Some(2.4e-4))[2].outlier);
    }
}
