//! Pre-FEC BER over a window with exact Poisson confidence bounds.
//!
//! Corrected bits in a window are a Poisson count k. The bounds are the exact
//! (Garwood) ones through the chi-square / gamma relation: with confidence c,
//! lower = Gamma(k, 1) quantile at 1 − c (0 when k = 0), upper = Gamma(k + 1, 1)
//! quantile at c. Each bound is one-sided at c, so `[lower, upper]` is a
//! (2c − 1) two-sided interval: 90% at the default c = 0.95, where zero errors give
//! upper = −ln 0.05 = 3.0 (the "rule of three"). Up to [`EXACT_MAX_COUNT`] the quantile
//! is solved by Newton's method (exact to ~1e-13 relative; tested against statrs'
//! bisection); above it the Wilson–Hilferty cube-root approximation is used (relative
//! error < 1e-5 there: 6.4e-6 at 1,001, falling as 1/k², tested), because each incomplete
//! gamma costs more the larger the count, and CSV rows need one per lane per sample.

use serde::Serialize;
use statrs::distribution::{ContinuousCDF, Gamma};
use statrs::function::erf::erfc_inv;
use statrs::function::gamma::{gamma_lr, ln_gamma};

/// Largest count bounded with the exact gamma quantile.
pub(crate) const EXACT_MAX_COUNT: u64 = 1_000;

/// Confidence is kept inside (0.5, 1): outside it the quantiles panic or mean nothing.
fn clamp_confidence(c: f64) -> f64 {
    if c.is_finite() {
        c.clamp(0.5, 1.0 - 1e-12)
    } else {
        0.95
    }
}

/// Standard normal quantile z with P(Z <= z) = p, p in (0, 1): z = −√2·erfc⁻¹(2p).
fn normal_quantile(p: f64) -> f64 {
    -std::f64::consts::SQRT_2 * erfc_inv(2.0 * p)
}

/// Wilson–Hilferty: the Gamma(shape, 1) quantile at the normal quantile `z`.
fn wilson_hilferty(shape: f64, z: f64) -> f64 {
    shape * (1.0 - 1.0 / (9.0 * shape) + z / (3.0 * shape.sqrt())).powi(3)
}

/// Gamma(shape, 1) quantile at p by Newton's method on the regularised lower incomplete
/// gamma P(shape, x) = p, started from Wilson–Hilferty: 3-6 evaluations of P instead of
/// the ~100 of a bisection (statrs' generic `inverse_cdf`), to the same 1e-13 relative.
fn gamma_quantile(shape: f64, p: f64) -> f64 {
    let ln_norm = ln_gamma(shape);
    let mut x = wilson_hilferty(shape, normal_quantile(p)).max(1e-3);
    for _ in 0..60 {
        let f = gamma_lr(shape, x) - p;
        let density = ((shape - 1.0) * x.ln() - x - ln_norm).exp();
        if !(density.is_finite() && density > 0.0) {
            break;
        }
        let next = x - f / density;
        let next = if next > 0.0 { next } else { x / 2.0 };
        if (next - x).abs() <= 1e-14 * x {
            return next;
        }
        x = next;
    }
    // Not converged (extreme confidence): the generic bisection.
    // shape >= 1 and p in (0,1) here (callers guarantee), so Gamma::new cannot fail.
    Gamma::new(shape, 1.0).map(|g| g.inverse_cdf(p)).unwrap_or(f64::NAN)
}

/// One-sided bounds `(lower, upper)` on the mean of a Poisson count `k`.
pub(crate) fn poisson_bounds(k: u64, confidence: f64) -> (f64, f64) {
    PoissonBounds::new(confidence).of(k)
}

/// [`poisson_bounds`] at one confidence, its normal quantile worked out once: a window
/// bounds every lane's count at the same confidence (and a CSV export every row's window).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PoissonBounds {
    c: f64,
    /// The normal quantile at `c`, for counts above [`EXACT_MAX_COUNT`].
    z: f64,
}

impl PoissonBounds {
    pub(crate) fn new(confidence: f64) -> Self {
        let c = clamp_confidence(confidence);
        PoissonBounds { c, z: normal_quantile(c) }
    }

    /// The bounds on a count `k`.
    pub(crate) fn of(&self, k: u64) -> (f64, f64) {
        let (c, z) = (self.c, self.z);
        if k <= EXACT_MAX_COUNT {
            let lower = if k == 0 { 0.0 } else { gamma_quantile(k as f64, 1.0 - c) };
            (lower, gamma_quantile(k as f64 + 1.0, c))
        } else {
            (wilson_hilferty(k as f64, -z), wilson_hilferty(k as f64 + 1.0, z))
        }
    }
}

/// A measured BER: errors over bits, with bounds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct Ber {
    pub(crate) errors: u64,
    pub(crate) bits: f64,
    pub(crate) ber: f64,
    pub(crate) lower: f64,
    pub(crate) upper: f64,
}

impl Ber {
    /// `None` when there were no bits to count against.
    #[cfg(test)]
    pub(crate) fn new(errors: u64, bits: f64, confidence: f64) -> Option<Ber> {
        Ber::bounded(errors, bits, &PoissonBounds::new(confidence))
    }

    /// The count's BER and its Poisson bounds at the confidence of `bounds`; `None` when
    /// there were no bits to count against.
    pub(crate) fn bounded(errors: u64, bits: f64, bounds: &PoissonBounds) -> Option<Ber> {
        if !(bits.is_finite() && bits > 0.0) {
            return None;
        }
        let (lo, hi) = bounds.of(errors);
        Some(Ber { errors, bits, ber: rate(errors as f64, bits), lower: rate(lo, bits), upper: rate(hi, bits) })
    }

    /// The BER a margin is judged at ([`judged_ber`]'s rule): the count's own rate, or
    /// with no error counted the upper bound (the margin is then a lower bound).
    pub(crate) fn judged(&self) -> f64 {
        if self.errors == 0 {
            self.upper
        } else {
            self.ber
        }
    }

    /// Bits on the wire in `seconds` at `lane_rate_gbps` on `lanes` lanes.
    pub(crate) fn bits_on_wire(lane_rate_gbps: f64, lanes: u32, seconds: f64) -> f64 {
        lane_rate_gbps * 1e9 * f64::from(lanes) * seconds
    }

    /// True when the two intervals do not overlap.
    #[cfg(test)]
    pub(crate) fn differs_from(&self, other: &Ber) -> bool {
        self.lower > other.upper || other.lower > self.upper
    }
}

/// `count` (errors, or a bound on them) over `bits`: a BER cannot exceed 1 whatever the
/// counts claim.
fn rate(count: f64, bits: f64) -> f64 {
    (count / bits).min(1.0)
}

/// The BER a margin is judged at, as [`Ber::bounded`] gives it: `errors` over `bits`, or
/// where none was counted the upper bound of zero errors (`zero_upper()`, the count
/// [`PoissonBounds::of`]`(0)` bounds; the margin is then a lower bound). For callers that
/// judge many counts at one confidence without building a [`Ber`] each.
pub(crate) fn judged_ber(errors: u64, bits: f64, zero_upper: impl FnOnce() -> f64) -> f64 {
    rate(if errors == 0 { zero_upper() } else { errors as f64 }, bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * b.abs()
    }

    #[test]
    fn exact_bounds_match_tables() {
        // k = 0: upper = −ln(0.05) = 2.995732.
        let (l, u) = poisson_bounds(0, 0.95);
        assert_eq!(l, 0.0);
        assert!(close(u, 2.995732, 1e-5), "{u}");
        // k = 1: lower = −ln(0.95) = 0.051293; upper solves e^-u(1+u) = 0.05 -> 4.743865.
        let (l, u) = poisson_bounds(1, 0.95);
        assert!(close(l, 0.051293, 1e-4), "{l}");
        assert!(close(u, 4.743865, 1e-5), "{u}");
        // k = 10: Garwood 90% interval (5.425, 16.962) (chi-square 10.851/2, 33.924/2).
        let (l, u) = poisson_bounds(10, 0.95);
        assert!(close(l, 5.4254, 1e-4), "{l}");
        assert!(close(u, 16.962, 1e-4), "{u}");
    }

    #[test]
    fn approximation_joins_the_exact_bounds() {
        let (le, ue) = poisson_bounds(EXACT_MAX_COUNT, 0.95);
        let (la, ua) = poisson_bounds(EXACT_MAX_COUNT + 1, 0.95);
        // One more count moves the bounds by about 1/k = 1e-3: no jump beyond that.
        assert!(close(la, le, 2e-3) && close(ua, ue, 2e-3), "{le} {la} {ue} {ua}");
        // k = 212e6: z·√k = 1.64485 x 14560.2 = 23949.8; the cube-root terms add
        // (z²−1)/3 = 0.57, and the upper bound counts from k+1: k − 23949, k + 23951.
        let k = 212_000_000u64;
        let (l, u) = poisson_bounds(k, 0.95);
        assert!((l - (212e6 - 23_949.0)).abs() < 2.0, "{l}");
        assert!((u - (212e6 + 23_951.0)).abs() < 2.0, "{u}");
    }

    #[test]
    fn newton_quantile_equals_the_statrs_bisection() {
        for k in [1u64, 2, 3, 5, 10, 30, 100, 500, EXACT_MAX_COUNT] {
            for c in [0.6, 0.9, 0.95, 0.99, 0.999] {
                let g = |shape: f64, p: f64| Gamma::new(shape, 1.0).unwrap().inverse_cdf(p);
                let (l, u) = poisson_bounds(k, c);
                assert!(close(l, g(k as f64, 1.0 - c), 1e-9), "k={k} c={c}: {l}");
                assert!(close(u, g(k as f64 + 1.0, c), 1e-9), "k={k} c={c}: {u}");
            }
        }
    }

    #[test]
    fn wilson_hilferty_error_above_the_exact_range_is_under_1e5() {
        // The stated bound, checked against the exact quantile where it takes over.
        for k in [EXACT_MAX_COUNT + 1, 3_000, 20_000, 100_000] {
            for c in [0.6, 0.9, 0.95, 0.99, 0.999] {
                let (l, u) = poisson_bounds(k, c);
                assert!(close(l, gamma_quantile(k as f64, 1.0 - c), 1e-5), "k={k} c={c}");
                assert!(close(u, gamma_quantile(k as f64 + 1.0, c), 1e-5), "k={k} c={c}");
            }
        }
    }

    #[test]
    fn confidence_outside_range_does_not_panic() {
        for c in [-1.0, 0.0, 1.0, 2.0, f64::NAN] {
            let (l, u) = poisson_bounds(3, c);
            assert!(l.is_finite() && u.is_finite() && l <= u, "{c}");
        }
    }

    #[test]
    fn ber_over_a_window() {
        // 200G SR4 lane: 53.125 Gb/s x 60 s = 3.1875e12 bits; 1.4e6 corrected -> 4.392e-7.
        let bits = Ber::bits_on_wire(53.125, 1, 60.0);
        assert_eq!(bits, 3.1875e12);
        let b = Ber::new(1_400_000, bits, 0.95).unwrap();
        assert!(close(b.ber, 4.392157e-7, 1e-6));
        assert!(b.lower < b.ber && b.ber < b.upper);
        // Zero errors: upper = 2.9957 / 3.1875e12 = 9.398e-13.
        let z = Ber::new(0, bits, 0.95).unwrap();
        assert!(close(z.upper, 9.3984e-13, 1e-4));
        assert!(Ber::new(5, 0.0, 0.95).is_none());
        assert!(Ber::new(5, f64::NAN, 0.95).is_none());
        // Absurd counts cap at 1.
        assert_eq!(Ber::new(u64::MAX, 10.0, 0.95).unwrap().ber, 1.0);
    }

    #[test]
    fn overlap() {
        let a = Ber::new(100, 1e9, 0.95).unwrap();
        let b = Ber::new(120, 1e9, 0.95).unwrap();
        let c = Ber::new(1000, 1e9, 0.95).unwrap();
        assert!(!a.differs_from(&b));
        assert!(a.differs_from(&c) && c.differs_from(&a));
    }

    #[test]
    fn judged_ber_is_the_ber_or_the_zero_count_upper_bound() {
        // 3 errors in 1e12 bits: 3e-12; none: the 95% upper bound of zero errors,
        // -ln(0.05) = 2.9957 errors, over the bits (Ber::new's upper); more errors than
        // bits: capped at 1.
        let zero = || poisson_bounds(0, 0.95).1;
        assert_eq!(judged_ber(3, 1e12, || unreachable!("errors were counted")), 3e-12);
        assert!(close(judged_ber(0, 1e12, zero), 2.9957e-12, 1e-4));
        assert_eq!(judged_ber(0, 1e12, zero), Ber::new(0, 1e12, 0.95).unwrap().upper);
        assert_eq!(judged_ber(10, 5.0, zero), 1.0);
        // A counted Ber judges at the same rule.
        for (k, bits) in [(3, 1e12), (0, 1e12), (10, 5.0)] {
            assert_eq!(Ber::new(k, bits, 0.95).unwrap().judged(), judged_ber(k, bits, zero), "{k} in {bits}");
        }
    }
}
