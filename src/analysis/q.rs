//! Q factor and margin to the FEC limit under the Gaussian-noise model (physics.md).
//!
//! Q(x) = ½·erfc(x/√2). NRZ: BER = Q(x). PAM4 with Gray coding: BER ≈ 0.75·Q(x)
//! (symbol error rate 1.5·Q(x), one of two bits wrong per symbol error).
//! Margin assumes a thermal-noise-limited receiver, where the eye opening x scales
//! with received optical power, so `margin_db = 10·log10(x / x_limit)` is the
//! optical-power equivalent (the electrical margin is twice that in dB). Shot- or
//! RIN-limited receivers and equalizer penalties make real margins smaller than this.

use crate::module::report::Modulation;
use statrs::function::erf::{erfc, erfc_inv};
use std::f64::consts::SQRT_2;

/// BER per unit Q(x) for the modulation.
fn ber_per_q(m: Modulation) -> f64 {
    match m {
        Modulation::Nrz => 1.0,
        Modulation::Pam4 => 0.75,
    }
}

/// The eye distance x with BER = factor·Q(x); `None` for BER <= 0 (unbounded) or an
/// eye that the model says is closed (Q >= 0.5).
pub(crate) fn q_from_ber(ber: f64, m: Modulation) -> Option<f64> {
    let q = ber / ber_per_q(m);
    (q.is_finite() && q > 0.0 && q < 0.5).then(|| SQRT_2 * erfc_inv(2.0 * q))
}

/// Optical-equivalent margin in dB of a lane at `ber` over the `limit` BER.
#[cfg(test)]
pub(crate) fn margin_db(ber: f64, limit: f64, m: Modulation) -> Option<f64> {
    Some(margin_db_of_q(q_from_ber(ber, m)?, q_from_ber(limit, m)?))
}

/// The margin in dB from the eye distances ([`q_from_ber`]) of the lane and of the limit,
/// for callers that judge many BERs against one limit.
pub(crate) fn margin_db_of_q(x: f64, x_limit: f64) -> f64 {
    10.0 * (x / x_limit).log10()
}

/// Whether lanes' margins ([`margin_db_of_q`] of [`q_from_ber`]) are under a floor, for a
/// window that judges every lane against one floor: the margin falls as the BER rises, so
/// the BER at the floor, worked out once, decides for BERs clearly on either side of it
/// without an erfc⁻¹ and a log each; near it the margin itself is worked out.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MarginFloor {
    x_limit: f64,
    floor_db: f64,
    m: Modulation,
    /// factor·Q(x) at the floor's eye distance x = x_limit·10^(floor/10); not finite and
    /// positive: always the exact figure.
    ber_at_floor: f64,
}

/// BERs within this relative distance of the floor's are judged by their margin: it is
/// about 1e-7 dB of margin (d margin / d ln BER = −4.34/(x² + 1) dB), far past the
/// rounding of erfc⁻¹ and log10 (~1e-15 relative), so outside it the order cannot differ.
const FLOOR_BAND: f64 = 1e-6;

impl MarginFloor {
    pub(crate) fn new(x_limit: f64, floor_db: f64, m: Modulation) -> Self {
        let x = x_limit * 10f64.powf(floor_db / 10.0);
        let ber_at_floor = ber_per_q(m) * 0.5 * erfc(x / SQRT_2);
        MarginFloor { x_limit, floor_db, m, ber_at_floor }
    }

    /// `margin_db_of_q(q_from_ber(ber)?, x_limit) < floor_db`; false where the model gives
    /// no margin (BER <= 0, or an eye it says is closed).
    pub(crate) fn under(&self, ber: f64) -> bool {
        let q = ber / ber_per_q(self.m);
        if !(q.is_finite() && q > 0.0 && q < 0.5) {
            return false;
        }
        let b = self.ber_at_floor;
        if b.is_finite() && b > 0.0 {
            if ber > b * (1.0 + FLOOR_BAND) {
                return true;
            }
            if ber < b * (1.0 - FLOOR_BAND) {
                return false;
            }
        }
        q_from_ber(ber, self.m).is_some_and(|x| margin_db_of_q(x, self.x_limit) < self.floor_db)
    }
}

/// Decades of BER per dB of light the model predicts for a lane at `ber`: with x scaling
/// as 10^(dB/10), d log10 BER / d dB = −x·φ(x) / (10·Q(x)) (φ the normal density), about
/// −(x² + 1)/10. It depends on the operating point x, and through BER = 0.75·Q(x) on the
/// modulation: at its FEC limit NRZ (5e-5, x 3.89) gives −1.60, PAM4 (2.4e-4, x 3.41) −1.25;
/// at 1e-12 NRZ gives −5.04.
pub(crate) fn model_slope_decades_per_db(ber: f64, m: Modulation) -> Option<f64> {
    let x = q_from_ber(ber, m)?;
    let q = ber / ber_per_q(m);
    let phi = (-x * x / 2.0).exp() / (2.0 * std::f64::consts::PI).sqrt();
    Some(-x * phi / (10.0 * q))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_slopes() {
        // NRZ 5e-5: x 3.89059, φ = e^-7.5684 / 2.50663 = 2.0607e-4, φ/Q 4.1214 -> -1.6035.
        assert!((model_slope_decades_per_db(5e-5, Modulation::Nrz).unwrap() + 1.6035).abs() < 1e-3);
        // NRZ 1e-12: x 7.03448, φ = e^-24.7417 / 2.50663 = 7.1714e-12 -> -0.703448 x 7.1714 = -5.0447.
        assert!((model_slope_decades_per_db(1e-12, Modulation::Nrz).unwrap() + 5.0447).abs() < 1e-3);
        // PAM4 2.4e-4: Q 3.2e-4, x 3.41407, φ = e^-5.8279 / 2.50663 = 1.17454e-3 -> -1.2531.
        assert!((model_slope_decades_per_db(2.4e-4, Modulation::Pam4).unwrap() + 1.2531).abs() < 1e-3);
        // Close to -(x² + 1)/10 for large x.
        let s = model_slope_decades_per_db(1e-15, Modulation::Nrz).unwrap();
        let x = q_from_ber(1e-15, Modulation::Nrz).unwrap();
        assert!((s + (x * x + 1.0) / 10.0).abs() < 0.02 * s.abs());
        assert!(model_slope_decades_per_db(0.0, Modulation::Nrz).is_none());
    }

    #[test]
    fn margin_floor_as_the_margin() {
        // Against each limit and floor, BERs from 1e-30 to the closed eye, packed near the
        // floor's BER: `under` agrees with the margin worked out in full.
        for (limit, m) in [(2.4e-4, Modulation::Pam4), (5e-5, Modulation::Nrz)] {
            let x_limit = q_from_ber(limit, m).unwrap();
            for floor_db in [-0.5, 0.0, 1.0, 3.0] {
                let f = MarginFloor::new(x_limit, floor_db, m);
                let near = (-40..=40).map(|i| f.ber_at_floor * (1.0 + f64::from(i) * 5e-8));
                let wide = (0..=300).map(|i| 10f64.powf(-30.0 + f64::from(i) * 0.1));
                for ber in near.chain(wide).chain([0.0, 0.6, f64::NAN]) {
                    let exact = q_from_ber(ber, m).is_some_and(|x| margin_db_of_q(x, x_limit) < floor_db);
                    assert_eq!(f.under(ber), exact, "{limit} {floor_db} {ber}");
                }
            }
        }
    }

    #[test]
    fn q_values() {
        // NRZ 1e-12 -> Q = 7.0345 (textbook); 5e-5 -> 3.8906.
        assert!((q_from_ber(1e-12, Modulation::Nrz).unwrap() - 7.03448).abs() < 1e-4);
        assert!((q_from_ber(5e-5, Modulation::Nrz).unwrap() - 3.89059).abs() < 1e-4);
        // PAM4 2.4e-4 -> Q(x) = 3.2e-4 -> x = 3.41407.
        assert!((q_from_ber(2.4e-4, Modulation::Pam4).unwrap() - 3.41407).abs() < 1e-4);
        assert!(q_from_ber(0.0, Modulation::Nrz).is_none());
        assert!(q_from_ber(0.5, Modulation::Nrz).is_none());
        assert!(q_from_ber(0.4, Modulation::Pam4).is_none()); // 0.4/0.75 > 0.5
        assert!(q_from_ber(f64::NAN, Modulation::Pam4).is_none());
    }

    #[test]
    fn margins_of_the_200g_sr4_case() {
        // 53.125 Gb/s x 60 s = 3.1875e12 bits.
        // lane 2: 1.4e6 -> 4.392e-7 -> Q 5.856e-7 -> x 4.86044; 10·log10(4.86044/3.41407) = 1.534 dB.
        // lane 4: 212e6 -> 6.651e-5 -> Q 8.868e-5 -> x 3.74926; 10·log10(3.74926/3.41407) = 0.407 dB.
        let l2 = margin_db(1.4e6 / 3.1875e12, 2.4e-4, Modulation::Pam4).unwrap();
        let l4 = margin_db(212e6 / 3.1875e12, 2.4e-4, Modulation::Pam4).unwrap();
        assert!((l2 - 1.534).abs() < 2e-3, "{l2}");
        assert!((l4 - 0.407).abs() < 2e-3, "{l4}");
        // ~150x the corrected bits costs more than 1 dB of margin.
        assert!(l2 - l4 > 1.0);
        // At the limit the margin is 0; beyond it negative.
        assert!(margin_db(2.4e-4, 2.4e-4, Modulation::Pam4).unwrap().abs() < 1e-12);
        assert!(margin_db(1e-3, 2.4e-4, Modulation::Pam4).unwrap() < 0.0);
        // NRZ 1e-9 against RS(528,514) 5e-5: x 5.99781 / 3.89059 -> 1.880 dB.
        assert!((margin_db(1e-9, 5e-5, Modulation::Nrz).unwrap() - 1.8798).abs() < 1e-3);
    }
}
