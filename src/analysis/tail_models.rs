//! Models of the RS-FEC codeword histogram: how many codewords carry k symbol errors, fitted
//! by maximum likelihood over the bins (single symbols or ranges such as 1-3, 4-7), so the
//! share of codewords past the correction limit t can be predicted from what was counted.
//!
//! - `binomial`: independent symbol errors, each of the n symbols of a codeword in error
//!   with probability p (a random, Gaussian-noise channel); P(0) = (1 − p)^n,
//!   P(k+1) = P(k)·(n − k)/(k + 1)·p/(1 − p).
//! - `negative_binomial`: a Poisson count whose rate itself varies (a gamma mixture: light,
//!   temperature, crosstalk drifting under the window); mean μ, shape r:
//!   P(0) = (r/(r + μ))^r, P(k+1) = P(k)·(k + r)/(k + 1)·μ/(r + μ).
//! - `polya_aeppli`: error events arriving at random (Poisson λ per codeword), each a burst
//!   of a geometric number of symbols (a DFE feeding back its own wrong decision continues
//!   the burst with probability θ): pgf exp(λ((1 − θ)z/(1 − θz) − 1)), whence
//!   P(0) = e^−λ, P(1) = λ(1 − θ)P(0), (k + 1)P(k+1) = (2θk + λ(1 − θ))P(k) − θ²(k − 1)P(k−1).
//!
//! Each maximises the grouped log-likelihood Σ count_b·ln(P(bin b) / P(any bin))
//! (conditional: codewords past the bins, the uncorrectable ones, are not in them) by
//! Newton's method from moment estimates, in unbounded coordinates (ln p; ln μ, ln(1/r);
//! ln λ, logit θ). The recursions above are evaluated once per step on jets (`jet.rs`), numbers
//! that carry their exact gradient and Hessian, so each step costs one pass over the bins
//! and the fit converges in a few (a channel less dispersed than Poisson takes the
//! two-parameter models to their Poisson bound, which is tried directly once the walk
//! heads there, and where they stop). On single-symbol bins 0, 1, ..., top (mlx5, SONiC)
//! the likelihood unconditional on the bins depends on the counts through a few sums, and
//! each model's maximum of it has the counts' mean: the binomial's p is mean/n, the negative
//! binomial's shape a one-dimensional search along that line, Pólya–Aeppli's started on it
//! from the first two bins; from there Newton's method goes on on the terms' derivatives in
//! plain numbers (Pólya–Aeppli's from its pgf), which correct for the conditioning on the
//! bins, no step where it is negligible (`fit_on_sums`). Models are compared by
//! AIC = 2·params − 2·ln L and tested by χ² over the bins (adjacent bins pooled until each expects 5 codewords); the lowest AIC among
//! those the χ² test does not reject (p ≥ 0.001) is chosen. With fewer than three non-empty
//! bins, or when every testable model is rejected, the data cannot tell: the caller keeps
//! its straight-line tail and says so. The predicted uncorrectable share is the model's
//! P(k > t), with a 95% interval from the parameters' covariance (delta method).

mod jet;

use jet::{Jet, Real};
use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// A model of symbol errors per codeword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TailModelKind {
    /// Independent symbol errors: each symbol wrong with one probability `p`.
    Binomial,
    /// Symbol errors overdispersed (clustered) about their mean: a mean and a shape.
    NegativeBinomial,
    /// Bursts of symbol errors: bursts per codeword (Poisson) and a geometric burst length.
    PolyaAeppli,
}

impl TailModelKind {
    /// Every model, in the order they are fitted and listed.
    pub const ALL: [TailModelKind; 3] = [TailModelKind::Binomial, TailModelKind::NegativeBinomial, TailModelKind::PolyaAeppli];

    pub(crate) fn name(self) -> &'static str {
        match self {
            TailModelKind::Binomial => "binomial",
            TailModelKind::NegativeBinomial => "negative binomial",
            TailModelKind::PolyaAeppli => "Pólya–Aeppli",
        }
    }

    fn params(self) -> usize {
        match self {
            TailModelKind::Binomial => 1,
            _ => 2,
        }
    }
}

/// One model fitted to one histogram.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailModelFit {
    /// The model fitted.
    pub model: TailModelKind,
    /// binomial: `p` per symbol; negative binomial: `mean_symbols`, `shape`; Pólya–Aeppli:
    /// `bursts_per_codeword` (λ), `burst_continue` (θ).
    pub(crate) params: Vec<(&'static str, f64)>,
    pub(crate) log_likelihood: f64,
    /// Akaike information criterion of the fit (2·params − 2·log-likelihood): lower is better.
    pub aic: f64,
    pub(crate) chi2: f64,
    pub(crate) chi2_dof: i64,
    /// `None` when no degree of freedom is left to test with.
    pub(crate) chi2_p: Option<f64>,
    /// P(k > t): the share of codewords the FEC cannot correct.
    pub(crate) uncorrectable_share: f64,
}

/// The fits and the choice among them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailModels {
    /// The chosen model; `None`: the data cannot tell, the straight line stands.
    pub selected: Option<TailModelKind>,
    /// Why no model was chosen, or why the one chosen could not be tested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Every model that could be fitted, in `TailModelKind::ALL`'s order.
    pub fits: Vec<TailModelFit>,
    /// The chosen model's P(k > t) and its 95% interval.
    pub uncorrectable_share: Option<f64>,
    pub(crate) uncorrectable_share_low: Option<f64>,
    pub(crate) uncorrectable_share_high: Option<f64>,
    /// The chosen model's expected codewords over the window with k = 0, 1, ..., t +
    /// [`EXPECTED_PAST_T`] symbol errors (the histogram's total times P(k) over P(any bin)),
    /// for drawing beside the bins; empty when no model is chosen.
    #[serde(skip)]
    pub(crate) expected_codewords: Vec<f64>,
}

/// Symbol-error values past t whose expected codewords are kept for drawing.
pub(crate) const EXPECTED_PAST_T: u32 = 3;

/// χ² p under which a model is rejected.
const CHI2_REJECT_P: f64 = 0.001;
/// AIC difference past which a model is not supported beside the best.
const AIC_SUPPORT: f64 = 10.0;
/// Expected codewords a χ² cell needs.
const CHI2_MIN_EXPECTED: f64 = 5.0;

/// Newton iterations at most per model (from the moment estimates it takes 3 to 8).
const MAX_NEWTON: usize = 60;
/// Passes at most of Newton's method on plain derivatives ([`newton_on_terms`]) before the
/// fit on jets, which searches, takes over.
const MAX_PLAIN: usize = 12;
/// Newton decrement gᵀH⁻¹g (the log-likelihood still to gain, twice over) at which a fit
/// has converged: the parameters are then within 1e-5 standard errors of the maximum.
const CONVERGED: f64 = 1e-10;
/// Under this decrement the quadratic model is trusted: the full step is taken unchecked
/// (the likelihood's own rounding, ~1e-16 of Σ count·ln P, could refuse it).
const QUADRATIC: f64 = 1e-6;
/// A tail sum stops where what is left (bounded by the last term over 1 − its ratio to the
/// one before) is under this share of the sum: below the sum's own rounding.
const TAIL_REST: f64 = 1e-17;
/// The same for the tail's gradient in the interval, which needs a few digits only.
const TAIL_REST_GRADIENT: f64 = 1e-8;

impl TailModelKind {
    /// The model's parameters from the fitted (unbounded) coordinates.
    fn natural<T: Real>(self, u: [T; 2]) -> [T; 2] {
        match self {
            // p, capped under 1/2 (a codeword with half its symbols wrong is no channel).
            TailModelKind::Binomial => [if u[0].value() < 0.5f64.ln() { u[0].exp() } else { T::constant(0.5) }, T::constant(0.0)],
            // μ, 1/r (r → ∞, Poisson, at u[1] → −∞, as θ → 0 is).
            TailModelKind::NegativeBinomial => [u[0].exp(), u[1].exp()],
            // λ, θ in (0, 1).
            TailModelKind::PolyaAeppli => [u[0].exp(), u[1].logistic()],
        }
    }
}

/// P(0), P(1), ... of a model at the fitted coordinates, by its recursion (module docs).
struct Terms<T> {
    kind: TailModelKind,
    n: f64,
    k: f64,
    v: T,
    prev: T,
    /// binomial: p/(1 − p); negative binomial: 1/r, μ/(1 + μ/r); Pólya–Aeppli: λ(1 − θ), θ, θ².
    c: [T; 3],
}

impl<T: Real> Terms<T> {
    fn new(kind: TailModelKind, u: [T; 2], n: u32) -> Terms<T> {
        let [a, b] = kind.natural(u);
        let zero = T::constant(0.0);
        let n = f64::from(n);
        let (v, c) = match kind {
            TailModelKind::Binomial => ((-a).ln_1p().scale(n).exp(), [a / (T::constant(1.0) - a), zero, zero]),
            // (1 + μ/r)^−r, and P(k+1)/P(k) = (k + r)/(k + 1)·μ/(r + μ) = (1 + k/r)/(k + 1)·μ/(1 + μ/r):
            // in 1/r, which a Poisson-like channel takes to 0 without cancelling.
            TailModelKind::NegativeBinomial => {
                let mu_a = a * b;
                ((-(mu_a.ln_1p() / b)).exp(), [b, a / (T::constant(1.0) + mu_a), zero])
            }
            TailModelKind::PolyaAeppli => ((-a).exp(), [a * (T::constant(1.0) - b), b, b * b]),
        };
        Terms { kind, n, k: 0.0, v, prev: zero, c }
    }

    /// The recursion picked up at term `k`, given P(k − 1) and P(k).
    fn resume(kind: TailModelKind, u: [T; 2], n: u32, k: usize, prev: T, v: T) -> Terms<T> {
        Terms { k: k as f64, prev, v, ..Terms::new(kind, u, n) }
    }
}

impl<T: Real> Iterator for Terms<T> {
    type Item = T;

    #[inline(always)]
    fn next(&mut self) -> Option<T> {
        let (k, c) = (self.k, &self.c);
        let next = match self.kind {
            TailModelKind::Binomial => self.v * c[0].scale((self.n - k).max(0.0) / (k + 1.0)),
            TailModelKind::NegativeBinomial => self.v * ((c[0].scale(k) + T::constant(1.0)) * c[1]).scale(1.0 / (k + 1.0)),
            TailModelKind::PolyaAeppli => {
                let next = ((c[1].scale(2.0 * k) + c[0]) * self.v - c[2].scale((k - 1.0).max(0.0)) * self.prev).scale(1.0 / (k + 1.0));
                // Cancellation far out in the tail can leave a term a hair under zero.
                if next.value() > 0.0 {
                    next
                } else {
                    T::constant(0.0)
                }
            }
        };
        self.k = k + 1.0;
        self.prev = std::mem::replace(&mut self.v, next);
        Some(self.prev)
    }
}

/// A histogram as the models see it: bins clipped to the codeword's n symbols.
struct Grouped {
    /// First and last symbol-error value of each bin within 0..=kmax (`lo > hi`: none),
    /// and its codewords.
    bins: Vec<(usize, usize, f64)>,
    n: u32,
    kmax: usize,
    total: f64,
}

impl Grouped {
    fn new(bins: &[(u32, u32, u64)], n: u32, kmax: usize) -> Grouped {
        let clip = |s: u32| (s.min(n) as usize).min(kmax);
        let bins: Vec<(usize, usize, f64)> = bins
            .iter()
            .map(|&(lo, hi, c)| {
                let (lo, hi) = (lo.min(n) as usize, clip(hi));
                (lo, hi, c as f64)
            })
            .collect();
        let total = bins.iter().map(|b| b.2).sum();
        Grouped { bins, n, kmax, total }
    }

    /// Each bin's codewords and P(bin), from P(0..=kmax).
    fn bin_probs<'a, T: Real>(&'a self, p: &'a [T]) -> impl Iterator<Item = (f64, T)> + 'a {
        self.bins.iter().map(|&(lo, hi, c)| (c, p.get(lo..=hi).unwrap_or_default().iter().fold(T::constant(0.0), |s, &x| s + x)))
    }

    /// −ln L of `kind` at `u`, conditional on a codeword landing in a bin (uncorrectable
    /// ones are counted apart); `None` where a counted bin is impossible. `buf` gets P(0..=kmax).
    fn neg_log_likelihood<T: Real>(&self, kind: TailModelKind, u: [T; 2], buf: &mut Vec<T>) -> Option<T> {
        buf.clear();
        buf.extend(Terms::new(kind, u, self.n).take(self.kmax + 1));
        self.neg_log_likelihood_of(buf)
    }

    /// −ln L from P(0..=kmax).
    fn neg_log_likelihood_of<T: Real>(&self, p: &[T]) -> Option<T> {
        let (mut ll, mut covered) = (T::constant(0.0), T::constant(0.0));
        for (c, pb) in self.bin_probs(p) {
            covered = covered + pb;
            if c == 0.0 {
                continue;
            }
            if !(pb.value() > 0.0) {
                return None;
            }
            ll = ll + pb.ln().scale(c);
        }
        let nll = covered.ln().scale(self.total) - ll;
        nll.value().is_finite().then_some(nll)
    }
}

/// Mean and variance of symbol errors per codeword, each bin at its midpoint.
fn moments(g: &Grouped) -> (f64, f64) {
    let (mut s1, mut s2) = (0.0, 0.0);
    for &(lo, hi, c) in &g.bins {
        let m = (lo as f64 + hi as f64) / 2.0;
        s1 += c * m;
        s2 += c * m * m;
    }
    let mean = (s1 / g.total).max(1e-12);
    // No less dispersed than a hair over Poisson: the two-parameter models start inside
    // their range, where the likelihood still has a slope to follow (at the Poisson bound
    // it is flat to rounding).
    (mean, (s2 / g.total - mean * mean).max(mean * 1.0001))
}

/// The bounds of the two-parameter models' shape coordinate `u[1]` (ln(1/r), logit θ).
/// Towards Poisson (u[1] → −∞) the bound is where the model is its limit to within the
/// likelihood's rounding (1/r or θ = 4e-18: a share of 1e-18 of 1e10 codewords'
/// log-likelihood), so a fit to a channel less dispersed than Poisson stops there; the
/// other way (r → 0, θ → 1), where 1 − θ still has ten significant digits.
const SHAPE_BOUNDS: (f64, f64) = (-40.0, 25.0);

/// Moment estimates, in the fitted coordinates (`var` over `mean`: see [`moments`]).
fn start(kind: TailModelKind, mean: f64, var: f64, n: u32) -> [f64; 2] {
    match kind {
        TailModelKind::Binomial => [(mean / f64::from(n)).ln(), 0.0],
        // var = μ + μ²/r.
        TailModelKind::NegativeBinomial => [mean.ln(), ((var - mean) / (mean * mean)).ln()],
        // var / mean = (1 + θ)/(1 − θ).
        TailModelKind::PolyaAeppli => {
            let d = var / mean;
            let theta = ((d - 1.0) / (d + 1.0)).clamp(1e-6, 1.0 - 1e-6);
            [(mean * (1.0 - theta)).ln(), (theta / (1.0 - theta)).ln()]
        }
    }
}

/// Single-symbol bins 0, 1, ..., top, each once and in order (mlx5 PPHCR, SONiC): the
/// log-likelihood unconditional on the bins, Σ c_k ln P(k), depends on the counts through
/// a few sums, and the conditioning on the bins is N·ln(1 − P(k > top)), P(k > top) the
/// tail past the top bin, which the figures' own tail sums reach anyway.
struct Sums {
    top: usize,
    /// N: the codewords counted.
    total: f64,
    /// Σ k·c_k: the symbol errors counted.
    symbols: f64,
    /// N_{>i}, i = 0..=top: the codewords with more than i symbol errors.
    above: Vec<f64>,
}

impl Sums {
    /// `None` unless the bins are 0, 1, ..., top in order and some symbol error is counted.
    fn new(g: &Grouped) -> Option<Sums> {
        if g.bins.iter().enumerate().any(|(k, b)| b.0 != k || b.1 != k) {
            return None;
        }
        let top = g.bins.len().checked_sub(1)?;
        let mut above = vec![0.0; top + 1];
        let mut symbols = 0.0;
        for &(k, _, c) in &g.bins {
            symbols += k as f64 * c;
            if k > 0 {
                above[k - 1] += c;
            }
        }
        for i in (0..top).rev() {
            above[i] += above[i + 1];
        }
        (symbols > 0.0).then_some(Sums { top, total: g.total, symbols, above })
    }

    fn mean(&self) -> f64 {
        self.symbols / self.total
    }

    /// N(var − mean)/2 = Σ_i i·N_{>i} − N·mean²/2: the sign of the two-parameter models' slope
    /// in their shape at the Poisson limit (positive: the maximum is inside).
    fn over_poisson(&self) -> f64 {
        let mean = self.mean();
        self.above.iter().enumerate().map(|(i, t)| i as f64 * t).sum::<f64>() - self.total * mean * mean / 2.0
    }
}

/// ℓ₂(x) = (ln(1 + x) − x/(1 + x))/x² and its derivative, by their series
/// Σ_{m≥2} (−1)^m (m − 1)/m·x^(m−2) under x = 0.1 (the closed form cancels there), to x^18.
fn ell2(x: f64) -> (f64, f64) {
    if x >= 0.1 {
        let num = x.ln_1p() - x / (1.0 + x);
        return (num / (x * x), 1.0 / (x * (1.0 + x) * (1.0 + x)) - 2.0 * num / (x * x * x));
    }
    let (mut l, mut d) = (0.0, 0.0);
    for m in (2..=20u32).rev() {
        let (sign, m) = (if m % 2 == 0 { 1.0 } else { -1.0 }, f64::from(m));
        l = l * x + sign * (m - 1.0) / m;
        if m >= 3.0 {
            d = d * x + sign * (m - 1.0) * (m - 2.0) / m;
        }
    }
    (l, d)
}

/// The negative binomial's maximum of Σ c_k ln P(k) from the sums, in the fitted coordinates
/// (ln μ, ln s), s = 1/r. Its μ score is N(mean − μ)/(1 + μs), so μ = the mean at every s;
/// with x = μs, ∂/∂s = Nμ²(ℓ₂(x) − 1/(1 + x)) + Σ_i N_{>i}·i/(1 + is) (Σ_k c_k Σ_{i<k}
/// ln(1 + is) = Σ_i N_{>i} ln(1 + is)): Newton's method on its root in ln s, a division per
/// symbol value a step and no logarithm. At s = 0 it is N(var − mean)/2: no more dispersed
/// than Poisson, the maximum is the Poisson bound. `None` where the walk does not settle
/// inside the bounds.
fn nb_profile(s: &Sums, from: f64) -> Option<[f64; 2]> {
    let (n, mu) = (s.total, s.mean());
    // ∂/∂s and ∂²/∂s² of Σ c_k ln P(k) along μ = the mean, at ln s = v.
    let slope = |v: f64| {
        let sh = v.exp();
        let x = mu * sh;
        let (l2, l2d) = ell2(x);
        let q = 1.0 / (1.0 + x);
        let (mut f, mut df) = (n * mu * mu * (l2 - q), n * mu * mu * mu * (l2d + q * q));
        for (i, t) in s.above.iter().enumerate().skip(1) {
            let w = i as f64 / (1.0 + i as f64 * sh);
            f += t * w;
            df -= t * w * w;
        }
        (f, df)
    };
    let (lo, hi) = SHAPE_BOUNDS;
    if !(s.over_poisson() > 0.0) {
        return Some([mu.ln(), lo]);
    }
    let mut v = from.clamp(lo, hi);
    for _ in 0..MAX_NEWTON {
        let (f, df) = slope(v);
        // Newton on f(e^v): f/(s·f′), at most 5 a step; the root is where f falls through 0.
        if !(df < 0.0) {
            return None;
        }
        let step = (-f / (v.exp() * df)).clamp(-5.0, 5.0);
        v += step;
        if !(lo..=hi).contains(&v) {
            return None;
        }
        if step.abs() < 1e-9 {
            return Some([mu.ln(), v]);
        }
    }
    None
}

/// P(k) of a model at the fitted coordinates `u`, k = 0, 1, ..., with its gradient and
/// Hessian in `u` (`[∂²/∂u0², ∂²/∂u0∂u1, ∂²/∂u1²]`), in plain numbers: what a pass of the
/// recursion on jets gives, at a third of the work a term.
/// - binomial: ∂ln P(k)/∂ln p = (k − np)/(1 − p), ∂²ln P(k)/∂(ln p)² = p(k − n)/(1 − p)².
/// - negative binomial (x = μs, s = 1/r, A_k = Σ_{i<k} is/(1 + is), B_k = Σ_{i<k}
///   is/(1 + is)²): ∂ln P(k)/∂ln μ = (k − μ)/(1 + x), ∂ln P(k)/∂ln s = A_k + μxℓ₂(x) −
///   kx/(1 + x); second derivatives −(μ + kx)/(1 + x)², −(k − μ)x/(1 + x)² and
///   B_k + μx(1/(1 + x)² − ℓ₂(x)) − kx/(1 + x)² (2ℓ₂ + xℓ₂′ = 1/(1 + x)²).
/// - Pólya–Aeppli from its pgf G = exp(λ(h(z) − 1)), h − 1 = −(1 − z)/(1 − θz):
///   ∂G/∂λ = −(1 − z)G/(1 − θz), ∂G/∂θ = −λz(1 − z)G/(1 − θz)², ∂²G/∂λ² = (1 − z)²G/(1 − θz)²,
///   ∂²G/∂λ∂θ = −z(1 − z)G/(1 − θz)² + λz(1 − z)²G/(1 − θz)³ and ∂²G/∂θ² =
///   λ²z²(1 − z)²G/(1 − θz)⁴ − 2λz²(1 − z)G/(1 − θz)³; with C, B, A, D the coefficients of
///   G/(1 − θz)^m, m = 1..4 (C_k = P(k) + θC_{k−1}, B_k = C_k + θB_{k−1}, ...), ∂P(k)/∂λ =
///   (1 − θ)C_{k−1} − P(k), ∂P(k)/∂θ = −λ(B_{k−1} − B_{k−2}), ∂²P(k)/∂λ² = B_k − 2B_{k−1} +
///   B_{k−2}, ∂²P(k)/∂λ∂θ = −(B_{k−1} − B_{k−2}) + λ(A_{k−1} − 2A_{k−2} + A_{k−3}) and
///   ∂²P(k)/∂θ² = λ²(D_{k−2} − 2D_{k−3} + D_{k−4}) − 2λ(A_{k−2} − A_{k−3}).
struct Derivs {
    terms: Terms<f64>,
    k: f64,
    /// binomial: p; negative binomial: μ, s; Pólya–Aeppli: λ, θ.
    nat: [f64; 2],
    /// Negative binomial: x, 1/(1 + x), μxℓ₂(x), A_k, B_k.
    nb: [f64; 5],
    /// Pólya–Aeppli: C_{k−1}; B_{k−1}, B_{k−2}; A_{k−1}, A_{k−2}, A_{k−3}; D_{k−1}, ..., D_{k−4}.
    c1: f64,
    bq: [f64; 2],
    aq: [f64; 3],
    dq: [f64; 4],
}

impl Derivs {
    fn new(kind: TailModelKind, u: [f64; 2], n: u32) -> Derivs {
        let nat = kind.natural(u);
        let x = nat[0] * nat[1];
        let mu_x_l2 = if kind == TailModelKind::NegativeBinomial { nat[0] * x * ell2(x).0 } else { 0.0 };
        let nb = [x, 1.0 / (1.0 + x), mu_x_l2, 0.0, 0.0];
        Derivs { terms: Terms::new(kind, u, n), k: 0.0, nat, nb, c1: 0.0, bq: [0.0; 2], aq: [0.0; 3], dq: [0.0; 4] }
    }
}

impl Iterator for Derivs {
    /// P(k), its gradient and its Hessian.
    type Item = (f64, [f64; 2], [f64; 3]);

    // Inlined into each pass's loop, where the model's branch is the same every term.
    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        let p = self.terms.next()?;
        let (k, [a, b]) = (self.k, self.nat);
        self.k += 1.0;
        // From the derivatives of ln P(k): ∂P = P·d, ∂²P = P·(e + d·dᵀ).
        let of_ln = |d: [f64; 2], e: [f64; 3]| {
            (p, [p * d[0], p * d[1]], [p * (e[0] + d[0] * d[0]), p * (e[1] + d[0] * d[1]), p * (e[2] + d[1] * d[1])])
        };
        Some(match self.terms.kind {
            TailModelKind::Binomial => {
                let n = self.terms.n;
                let q = 1.0 / (1.0 - a);
                of_ln([(k - n * a) * q, 0.0], [a * (k - n) * q * q, 0.0, 0.0])
            }
            TailModelKind::NegativeBinomial => {
                let [x, q, mu_x_l2, ak, bk] = self.nb;
                let (km, q2) = ((k - a) * q, q * q);
                let out = of_ln([km, ak + mu_x_l2 - k * x * q], [-(a + k * x) * q2, -km * x * q, bk + a * x * q2 - mu_x_l2 - k * x * q2]);
                let ks = k * b;
                let w = 1.0 / (1.0 + ks);
                self.nb[3] += ks * w;
                self.nb[4] += ks * w * w;
                out
            }
            TailModelKind::PolyaAeppli => {
                let (lambda, theta) = (a, b);
                let [b1, b2] = self.bq;
                let [a1, a2, a3] = self.aq;
                let [d1, d2, d3, d4] = self.dq;
                let ck = p + theta * self.c1;
                let bk = ck + theta * b1;
                let ak = bk + theta * a1;
                let dk = ak + theta * d1;
                let p_l = (1.0 - theta) * self.c1 - p;
                let p_t = -lambda * (b1 - b2);
                let p_ll = bk - 2.0 * b1 + b2;
                let p_lt = -(b1 - b2) + lambda * (a1 - 2.0 * a2 + a3);
                let p_tt = lambda * lambda * (d2 - 2.0 * d3 + d4) - 2.0 * lambda * (a2 - a3);
                (self.c1, self.bq, self.aq, self.dq) = (ck, [bk, b1], [ak, a1, a2], [dk, d1, d2, d3]);
                // To the fitted coordinates: ∂/∂ln λ = λ∂/∂λ, ∂/∂logit θ = w∂/∂θ, w = θ(1 − θ), ∂w/∂logit θ = w(1 − 2θ).
                let w = theta * (1.0 - theta);
                (
                    p,
                    [lambda * p_l, w * p_t],
                    [lambda * lambda * p_ll + lambda * p_l, lambda * w * p_lt, w * w * p_tt + w * (1.0 - 2.0 * theta) * p_t],
                )
            }
        })
    }
}

/// What one pass of a model's terms at `u` gives on single-symbol bins 0..=top.
struct Pass {
    /// Gradient and Hessian of −ln L, conditional on the bins.
    grad: [f64; 2],
    hess: [f64; 3],
}

/// One pass of `kind`'s terms at `u` over the single-symbol bins 0..=top of `g`: −ln L's
/// gradient and Hessian, conditional on the bins, and P(0..=kmax) in `values`. The
/// conditioning N·ln P(k ≤ top) is differentiated from the same terms' sum; Σ c_k ln P(k)
/// from each bin's ∂P/P for Pólya–Aeppli, and for the binomial and the negative binomial in
/// closed form from the sums ([`Derivs`]' ∂ln P(k)/∂u summed over the counts: Σ c_k·k = S,
/// Σ c_k A_k = Σ_i N_{>i}·is/(1 + is), ...). `None` where a counted bin is impossible.
fn pass(g: &Grouped, s: &Sums, kind: TailModelKind, u: [f64; 2], values: &mut Vec<f64>) -> Option<Pass> {
    values.clear();
    let per_bin = kind == TailModelKind::PolyaAeppli;
    // Σ c_k ∂ln P(k) and Σ c_k ∂²ln P(k) (per bin), P(k ≤ top) and its derivatives.
    let (mut lg, mut lh) = ([0.0; 2], [0.0; 3]);
    let (mut cv, mut cg, mut ch) = (0.0, [0.0; 2], [0.0; 3]);
    let mut terms = Derivs::new(kind, u, g.n);
    for k in 0..=g.kmax {
        let Some((p, gk, hk)) = terms.next() else { break };
        values.push(p);
        if k > s.top {
            continue;
        }
        cv += p;
        cg = [cg[0] + gk[0], cg[1] + gk[1]];
        ch = [ch[0] + hk[0], ch[1] + hk[1], ch[2] + hk[2]];
        let c = g.bins[k].2;
        if per_bin && c > 0.0 {
            if !(p > 0.0) {
                return None;
            }
            let r = 1.0 / p;
            let d = [gk[0] * r, gk[1] * r];
            lg = [lg[0] + c * d[0], lg[1] + c * d[1]];
            lh = [lh[0] + c * (hk[0] * r - d[0] * d[0]), lh[1] + c * (hk[1] * r - d[0] * d[1]), lh[2] + c * (hk[2] * r - d[1] * d[1])];
        }
    }
    if !per_bin {
        (lg, lh) = on_sums(g, s, kind, u);
    }
    let (n, q) = (g.total, 1.0 / cv);
    Some(Pass {
        grad: [n * q * cg[0] - lg[0], n * q * cg[1] - lg[1]],
        hess: [
            n * q * (ch[0] - q * cg[0] * cg[0]) - lh[0],
            n * q * (ch[1] - q * cg[0] * cg[1]) - lh[1],
            n * q * (ch[2] - q * cg[1] * cg[1]) - lh[2],
        ],
    })
}

/// Σ c_k ln P(k)'s gradient and Hessian in `u` for the binomial or the negative binomial,
/// from the sums of the counts ([`pass`]).
fn on_sums(g: &Grouped, s: &Sums, kind: TailModelKind, u: [f64; 2]) -> ([f64; 2], [f64; 3]) {
    let [a, b] = kind.natural(u);
    let (n, sy) = (s.total, s.symbols);
    if kind == TailModelKind::Binomial {
        let (q, nn) = (1.0 / (1.0 - a), f64::from(g.n) * n);
        return ([(sy - nn * a) * q, 0.0], [a * (sy - nn) * q * q, 0.0, 0.0]);
    }
    let (x, q) = (a * b, 1.0 / (1.0 + a * b));
    let mu_x_l2 = a * x * ell2(x).0;
    let (mut s1, mut s2) = (0.0, 0.0);
    for (i, c) in s.above.iter().enumerate().skip(1) {
        let is = i as f64 * b;
        let w = is / (1.0 + is);
        s1 += c * w;
        s2 += c * w / (1.0 + is);
    }
    let q2 = q * q;
    (
        [(sy - n * a) * q, s1 + n * mu_x_l2 - sy * x * q],
        [-(n * a + sy * x) * q2, -(sy - n * a) * x * q2, s2 + n * a * x * q2 - n * mu_x_l2 - sy * x * q2],
    )
}

/// A fit at its maximum, with what the figures need.
#[derive(Clone, Copy)]
struct Fitted {
    u: [f64; 2],
    /// −ln L's Hessian there (or at the last point before, within the convergence tolerance).
    hessian: [f64; 3],
    nll: f64,
    /// P(k > t).
    share: f64,
}

/// Newton's method on single-symbol bins from `u` on [`pass`]'s exact gradient and Hessian:
/// the step is the last where its decrement is under [`QUADRATIC`] (one more pass then
/// gives the figures there) and none is taken under [`CONVERGED`]; a shape at its bound with
/// the likelihood still rising past it stays there. Then −ln L (a logarithm a counted bin,
/// the conditioning from the tail) and P(k > t) summed on until what is left is under
/// [`TAIL_REST`] of it. `None` where the Hessian is not positive definite or the walk does
/// not settle in [`MAX_PLAIN`] passes (the fit on jets, which searches, takes over).
fn newton_on_terms(g: &Grouped, s: &Sums, kind: TailModelKind, mut u: [f64; 2], t: usize, values: &mut Vec<f64>) -> Option<Fitted> {
    let (lo, hi) = if kind.params() == 1 { (0.0, 0.0) } else { SHAPE_BOUNDS };
    u[1] = u[1].clamp(lo, hi);
    let mut last = false;
    for _ in 0..MAX_PLAIN {
        if kind == TailModelKind::Binomial && !(u[0] < 0.5f64.ln()) {
            return None;
        }
        let ps = pass(g, s, kind, u, values)?;
        let ([g0, g1], [a, b, c]) = (ps.grad, ps.hess);
        let pinned = kind.params() == 2 && ((u[1] <= lo && g1 > 0.0) || (u[1] >= hi && g1 < 0.0));
        let step = if kind.params() == 1 || pinned {
            if !(a > 0.0) {
                return None;
            }
            [-g0 / a, 0.0]
        } else {
            let det = a * c - b * b;
            if !(a > 0.0 && det > 0.0) {
                return None;
            }
            [-(c * g0 - b * g1) / det, -(a * g1 - b * g0) / det]
        };
        let decrement = -(step[0] * g0 + step[1] * g1);
        if last || decrement < CONVERGED {
            return Some(finish(g, s.top, kind, u, t, ps.hess, values));
        }
        let longest = step[0].abs().max(step[1].abs());
        let s = if longest > 5.0 { 5.0 / longest } else { 1.0 };
        u = [u[0] + s * step[0], (u[1] + s * step[1]).clamp(lo, hi)];
        last = s == 1.0 && decrement < QUADRATIC;
    }
    None
}

/// The figures of a converged [`pass`]: P(k > t) summed on past kmax until what is left
/// is under [`TAIL_REST`] of it, and −ln L from the bins' P(k) (in `values`) and the tail
/// past the top bin.
fn finish(g: &Grouped, top: usize, kind: TailModelKind, u: [f64; 2], t: usize, hessian: [f64; 3], values: &[f64]) -> Fitted {
    let past = |from: usize| values.get(from..).unwrap_or_default().iter().sum::<f64>();
    let within = past(t + 1);
    let mut rest = 0.0;
    let k = values.len();
    let mut last = values.last().copied().unwrap_or(f64::INFINITY);
    let prev = if k >= 2 { values[k - 2] } else { 0.0 };
    let end = (t + 1 + 512).min(g.n as usize);
    for term in Terms::resume(kind, u, g.n, k - 1, prev, last).skip(1).take(end.saturating_sub(g.kmax)) {
        rest += term;
        let ratio = term / last;
        last = term;
        if ratio < 1.0 && term < TAIL_REST * (1.0 - ratio) * (within + rest) {
            break;
        }
    }
    let ll: f64 = values.iter().zip(&g.bins[..=top]).filter(|(_, b)| b.2 > 0.0).map(|(p, b)| b.2 * p.ln()).sum();
    Fitted { u, hessian, nll: g.total * (-(past(top + 1) + rest)).ln_1p() - ll, share: within + rest }
}

/// ∂P(k > top)/∂u of `kind` at `u`, and P(k > top), from the terms' plain values
/// ([`Derivs`]), summed until what is left is under [`TAIL_REST_GRADIENT`] of the sums.
fn tail_gradient(kind: TailModelKind, u: [f64; 2], n: u32, top: usize) -> ([f64; 2], f64) {
    let (mut grad, mut tail, mut last) = ([0.0; 2], 0.0, f64::INFINITY);
    let end = (top + 1 + 512).min(n as usize);
    for (k, (p, g, _)) in Derivs::new(kind, u, n).enumerate().take(end + 1) {
        if k > top {
            grad = [grad[0] + g[0], grad[1] + g[1]];
            tail += p;
            let ratio = p / last;
            if p == 0.0 || (ratio < 1.0 && p * (k as f64 + 1.0) < TAIL_REST_GRADIENT * (1.0 - ratio) * tail) {
                break;
            }
        }
        last = p;
    }
    (grad, tail)
}

/// The shape coordinate (ln(1/r), logit θ) of the negative binomial or Pólya–Aeppli at the
/// counts' mean x̄ from the first two bins' ratio c₂/c₁ = P(2)/P(1), the recursions at k = 1:
/// (1 + s)/2·x̄/(1 + x̄s) (s = 1/r) and θ + x̄(1 − θ)²/2 (λ = x̄(1 − θ)), solved for the shape
/// (Pólya–Aeppli's by one substitution θ = c₂/c₁ on the right): the searches' start, nearer
/// their maximum than the moments' on a tail that falls geometrically from bin 1 (the
/// moments' are tried where the search from it does not settle).
fn shape_from_ratio(kind: TailModelKind, g: &Grouped, s: &Sums) -> Option<f64> {
    let (c1, c2) = (g.bins.get(1)?.2, g.bins.get(2)?.2);
    if !(c1 > 0.0 && c2 > 0.0) {
        return None;
    }
    let (r, m) = (c2 / c1, s.mean());
    let v = match kind {
        TailModelKind::NegativeBinomial => ((2.0 * r - m) / (m * (1.0 - 2.0 * r))).ln(),
        TailModelKind::PolyaAeppli => {
            let theta = r - m * (1.0 - r) * (1.0 - r) / 2.0;
            (theta / (1.0 - theta)).ln()
        }
        TailModelKind::Binomial => return None,
    };
    v.is_finite().then_some(v)
}

/// The maximum-likelihood fit of `kind` on single-symbol bins: Newton's method on the
/// terms' plain derivatives ([`newton_on_terms`]) from the maximum of Σ c_k ln P(k), which
/// the sums give (the binomial's p = mean/n, the negative binomial's [`nb_profile`]) or come
/// near (Pólya–Aeppli along λ = mean·(1 − θ) from the bins' ratio), so that the conditioning
/// on the bins is what the steps correct (none where the tail past the top bin is under
/// ~1e-12 of the codewords: every bundled capture but the failing one). From the moments
/// where that does not settle; `None` where neither does (the fit on jets then).
fn fit_on_sums(g: &Grouped, kind: TailModelKind, s: &Sums, from: [f64; 2], t: usize, values: &mut Vec<f64>) -> Option<Fitted> {
    let start = match kind {
        TailModelKind::Binomial => Some([(s.mean() / f64::from(g.n)).ln(), 0.0]),
        TailModelKind::NegativeBinomial => shape_from_ratio(kind, g, s).and_then(|v| nb_profile(s, v)).or_else(|| nb_profile(s, from[1])),
        TailModelKind::PolyaAeppli => {
            // λ = mean·(1 − θ), 1 − θ = 1/(1 + e^v); no more dispersed than Poisson, the bound.
            let v = if s.over_poisson() > 0.0 { shape_from_ratio(kind, g, s).unwrap_or(from[1]) } else { SHAPE_BOUNDS.0 };
            Some([s.mean().ln() - v.exp().ln_1p(), v])
        }
    };
    start.and_then(|u| newton_on_terms(g, s, kind, u, t, values)).or_else(|| newton_on_terms(g, s, kind, from, t, values))
}

/// A descent step on −ln L from its jet `j` over the free coordinates (only the first
/// when `one_d`): Newton's where the Hessian is positive definite (`true`), else Newton's on
/// the Hessian shifted until it is; at most 5 in any coordinate (a factor of e^5).
fn descent(j: &Jet, one_d: bool) -> ([f64; 2], bool) {
    let ([g0, g1], [a, b, c]) = (j.g, j.h);
    let (mut step, mut newton) = if one_d {
        if a > 0.0 {
            ([-g0 / a, 0.0], true)
        } else {
            ([-g0 / (a.abs() + g0.abs()), 0.0], false)
        }
    } else {
        let least = (a + c) / 2.0 - ((a - c) / 2.0).hypot(b);
        let shift = if least > 0.0 { 0.0 } else { -least + 1e-3 * (a.abs() + c.abs()) + f64::MIN_POSITIVE };
        let (a, c) = (a + shift, c + shift);
        let det = a * c - b * b;
        ([-(c * g0 - b * g1) / det, -(a * g1 - b * g0) / det], shift == 0.0)
    };
    let longest = step[0].abs().max(step[1].abs());
    if longest > 5.0 {
        step = [step[0] * 5.0 / longest, step[1] * 5.0 / longest];
        newton = false;
    }
    (step, newton)
}

/// The jet of −ln L at `u`.
fn jet_at(g: &Grouped, kind: TailModelKind, u: [f64; 2], buf: &mut Vec<Jet>) -> Option<Jet> {
    g.neg_log_likelihood(kind, [Jet::variable(u[0], 0), Jet::variable(u[1], 1)], buf)
}

/// The maximum-likelihood coordinates of `kind` from `u`, and the Hessian of −ln L at the
/// last point a jet was evaluated: Newton's method on the exact gradient and Hessian, each
/// step halved until it descends; the shape stays within its bounds. A Newton step whose
/// decrement is under [`QUADRATIC`] is the last: what it leaves is of the order of its
/// square. `None` when the likelihood cannot be evaluated at `u`.
fn maximise(g: &Grouped, kind: TailModelKind, mut u: [f64; 2], jets: &mut Vec<Jet>, values: &mut Vec<f64>) -> Option<Optimum> {
    let (lo, hi) = if kind.params() == 1 { (0.0, 0.0) } else { SHAPE_BOUNDS };
    u[1] = u[1].clamp(lo, hi);
    let mut j = jet_at(g, kind, u, jets)?;
    for _ in 0..MAX_NEWTON {
        // A shape at its bound with the likelihood still rising past it stays there.
        let pinned = (u[1] <= lo && j.g[1] > 0.0) || (u[1] >= hi && j.g[1] < 0.0);
        let (step, newton) = descent(&j, kind.params() == 1 || pinned);
        let decrement = -(step[0] * j.g[0] + step[1] * j.g[1]);
        // Converged where the Hessian is positive definite; elsewhere (the likelihood flat
        // towards Poisson, where the shape's slope is exponentially small) only when no
        // step descends.
        if !(decrement > if newton { CONVERGED } else { 0.0 }) {
            return Some(Optimum { u, hessian: j.h, nll: Some(j.v) });
        }
        let at = |s: f64| [u[0] + s * step[0], (u[1] + s * step[1]).clamp(lo, hi)];
        if newton && decrement < QUADRATIC {
            return Some(Optimum { u: at(1.0), hessian: j.h, nll: None });
        }
        let mut next = jet_at(g, kind, at(1.0), jets).filter(|n| n.v < j.v).map(|n| (at(1.0), n));
        // Towards Poisson the likelihood flattens exponentially in the shape and Newton walks
        // there a unit a step: the bound itself is tried, and taken when it does better and
        // the likelihood still rises past it (else the walk would stop on a flat bound short
        // of an optimum inside).
        if step[1] < -0.5 && u[1] > lo {
            let bound = [u[0] + step[0], lo];
            let to_beat = next.map_or(j.v, |(_, n)| n.v);
            if g.neg_log_likelihood(kind, bound, values).is_some_and(|f| f < to_beat) {
                match jet_at(g, kind, bound, jets).filter(|n| n.g[1] > 0.0) {
                    Some(n) => next = Some((bound, n)),
                    // The jets are the bound's now: the step's again.
                    None => next = next.and_then(|(v, _)| jet_at(g, kind, v, jets).map(|n| (v, n))),
                }
            }
        }
        let mut s = 1.0;
        while next.is_none() && s > 1e-12 {
            s /= 2.0;
            if g.neg_log_likelihood(kind, at(s), values).is_some_and(|f| f < j.v) {
                next = jet_at(g, kind, at(s), jets).map(|n| (at(s), n));
            }
        }
        // No step descends: the jets last evaluated may be a refused trial's.
        let Some((v, n)) = next else { return Some(Optimum { u, hessian: j.h, nll: None }) };
        (u, j) = (v, n);
    }
    Some(Optimum { u, hessian: j.h, nll: Some(j.v) })
}

/// Where [`maximise`] stopped.
#[derive(Clone, Copy)]
struct Optimum {
    u: [f64; 2],
    /// −ln L's Hessian at the last point its jet was evaluated.
    hessian: [f64; 3],
    /// −ln L at `u` when the jets last evaluated are at `u`.
    nll: Option<f64>,
}

/// −ln L of `kind` at the optimum and its P(k > t), leaving P(0..=kmax) in `values` (from the
/// jets when they were last evaluated there); `None` where a counted bin is impossible. The
/// tail is summed term by term (1 − P(k ≤ t) would cancel to noise), up to t + 513 or until
/// what is left is under [`TAIL_REST`] of the sum.
fn evaluate(g: &Grouped, kind: TailModelKind, o: &Optimum, t: u32, jets: &[Jet], values: &mut Vec<f64>) -> Option<(f64, f64)> {
    values.clear();
    match o.nll {
        Some(_) => values.extend(jets.iter().map(|j| j.v)),
        None => values.extend(Terms::new(kind, o.u, g.n).take(g.kmax + 1)),
    }
    let t = t as usize;
    let k = values.len();
    let mut tail: f64 = values.get(t + 1..).unwrap_or_default().iter().sum();
    let mut last = values.last().copied().unwrap_or(f64::INFINITY);
    let prev = if k >= 2 { values[k - 2] } else { 0.0 };
    let end = (t + 1 + 512).min(g.n as usize);
    let past = Terms::resume(kind, o.u, g.n, k - 1, prev, last).skip(1);
    for term in past.take(end.saturating_sub(g.kmax)) {
        tail += term;
        let ratio = term / last;
        last = term;
        if ratio < 1.0 && term < TAIL_REST * (1.0 - ratio) * tail {
            break;
        }
    }
    if let Some(nll) = o.nll {
        return Some((nll, tail));
    }
    g.neg_log_likelihood_of(values).map(|nll| (nll, tail))
}

/// χ² of the fit (P(0..=kmax) in `p`) over bins pooled until each expects
/// `CHI2_MIN_EXPECTED` codewords.
fn chi2(g: &Grouped, p: &[f64], params: usize) -> (f64, i64) {
    let covered: f64 = g.bin_probs(p).map(|(_, q)| q).sum();
    let (mut x2, mut cells) = (0.0, 0i64);
    let (mut o, mut e) = (0.0, 0.0);
    let (mut last_o, mut last_e) = (0.0, 0.0);
    for (c, q) in g.bin_probs(p) {
        o += c;
        e += g.total * q / covered;
        if e >= CHI2_MIN_EXPECTED {
            if cells > 0 && last_e > 0.0 {
                x2 += (last_o - last_e) * (last_o - last_e) / last_e;
            }
            (last_o, last_e, cells) = (o, e, cells + 1);
            (o, e) = (0.0, 0.0);
        }
    }
    // What is left joins the last cell (or is the only one).
    let (o, e) = if cells > 0 { (last_o + o, last_e + e) } else { (o, e) };
    if e > 0.0 {
        x2 += (o - e) * (o - e) / e;
    }
    (x2, cells.max(1) - 1 - params as i64)
}

/// 95% interval of ln P(k > t) at the optimum from the inverse of −ln L's Hessian there
/// (delta method), with the tail's gradient and value to [`TAIL_REST_GRADIENT`]
/// ([`tail_gradient`]).
fn interval(kind: TailModelKind, hessian: [f64; 3], (grad, share): ([f64; 2], f64)) -> Option<(f64, f64)> {
    let [a, b, c] = hessian;
    let cov = if kind.params() == 1 {
        [1.0 / a, 0.0, 0.0]
    } else {
        let det = a * c - b * b;
        if !(det > 0.0) {
            return None;
        }
        [c / det, -b / det, a / det]
    };
    let [g0, g1] = [grad[0] / share, grad[1] / share];
    let var = g0 * g0 * cov[0] + 2.0 * g0 * g1 * cov[1] + g1 * g1 * cov[2];
    (var.is_finite() && var >= 0.0).then(|| (-1.96 * var.sqrt(), 1.96 * var.sqrt()))
}

/// Fits every model to `bins` (window counts, any ranges) of an RS(n, k) FEC with limit
/// `t`; `None` without codewords.
pub fn fit(bins: &[(u32, u32, u64)], n: u32, t: u32) -> Option<TailModels> {
    if n == 0 {
        return None;
    }
    let kmax = bins.iter().map(|b| b.1).max().unwrap_or(0).max(t).min(n) as usize;
    let g = Grouped::new(bins, n, kmax);
    if !(g.total > 0.0) {
        return None;
    }
    let total = g.total;
    let nonempty = bins.iter().filter(|b| b.2 > 0).count();
    let mut jets = Vec::new();
    let mut values = Vec::with_capacity(kmax + 1);
    let (mean, var) = moments(&g);
    let sums = Sums::new(&g);
    let mut fits = Vec::with_capacity(3);
    let mut optima = Vec::with_capacity(3);
    for kind in TailModelKind::ALL {
        let d = kind.params();
        let from = start(kind, mean, var, n);
        let on_sums = sums.as_ref().and_then(|s| fit_on_sums(&g, kind, s, from, t as usize, &mut values));
        let fitted = on_sums.or_else(|| {
            let o = maximise(&g, kind, from, &mut jets, &mut values)?;
            let (nll, share) = evaluate(&g, kind, &o, t, &jets, &mut values)?;
            Some(Fitted { u: o.u, hessian: o.hessian, nll, share })
        });
        let Some(f) = fitted else { continue };
        let Fitted { u, nll, share, .. } = f;
        let (x2, dof) = chi2(&g, &values, d);
        let chi2_p = (dof >= 1).then(|| ChiSquared::new(dof as f64).map(|c| c.sf(x2)).ok()).flatten();
        let nat = kind.natural(u);
        let params = match kind {
            TailModelKind::Binomial => vec![("p", nat[0])],
            TailModelKind::NegativeBinomial => vec![("mean_symbols", nat[0]), ("shape", 1.0 / nat[1])],
            TailModelKind::PolyaAeppli => vec![("bursts_per_codeword", nat[0]), ("burst_continue", nat[1])],
        };
        fits.push(TailModelFit {
            model: kind,
            params,
            log_likelihood: -nll,
            aic: 2.0 * d as f64 + 2.0 * nll,
            chi2: x2,
            chi2_dof: dof,
            chi2_p,
            uncorrectable_share: share,
        });
        optima.push(f);
    }
    let mut out = TailModels {
        selected: None,
        note: None,
        fits,
        uncorrectable_share: None,
        uncorrectable_share_low: None,
        uncorrectable_share_high: None,
        expected_codewords: Vec::new(),
    };
    if nonempty < 3 {
        out.note = Some(format!("{nonempty} non-empty bin(s): too few to tell the models apart"));
        return Some(out);
    }
    // The best by AIC that χ² does not reject, among those the data support about as well
    // as the best of all (AIC within 10: a likelihood ratio under e^5).
    let Some(best) = out.fits.iter().map(|f| f.aic).min_by(f64::total_cmp) else { return Some(out) };
    let rejected = |f: &TailModelFit| f.chi2_p.is_some_and(|p| p < CHI2_REJECT_P);
    let Some(chosen) = out.fits.iter().filter(|f| !rejected(f) && f.aic <= best + AIC_SUPPORT).min_by(|a, b| a.aic.total_cmp(&b.aic))
    else {
        out.note = Some(format!("no model fits: the best by AIC is rejected by χ² (p < {CHI2_REJECT_P})"));
        return Some(out);
    };
    if chosen.chi2_p.is_none() {
        out.note = Some(format!("too few bins for a χ² test of the {}: chosen by AIC alone", chosen.model.name()));
    }
    let (kind, share) = (chosen.model, chosen.uncorrectable_share);
    out.selected = Some(kind);
    out.uncorrectable_share = Some(share);
    let Some(Fitted { u, hessian, .. }) = out.fits.iter().position(|f| f.model == kind).map(|i| optima[i]) else { return Some(out) };
    if let Some((lo, hi)) = interval(kind, hessian, tail_gradient(kind, u, n, t as usize)) {
        out.uncorrectable_share_low = Some(share * lo.exp());
        out.uncorrectable_share_high = Some((share * hi.exp()).min(1.0));
    }
    let drawn = (t + EXPECTED_PAST_T).min(n) as usize + 1;
    values.clear();
    values.extend(Terms::new(kind, u, n).take(drawn.max(kmax + 1)));
    let covered: f64 = g.bin_probs(&values[..=kmax]).map(|(_, q)| q).sum();
    out.expected_codewords = values[..drawn].iter().map(|p| total * p / covered).collect();
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ln C(n, k) by sums of logs, independent of the models' recursions.
    fn ln_choose(n: u64, k: u64) -> f64 {
        (1..=k).map(|i| ((n - k + i) as f64).ln() - (i as f64).ln()).sum()
    }

    fn ln_factorial(k: u64) -> f64 {
        (1..=k).map(|i| (i as f64).ln()).sum()
    }

    /// Binomial(544, p) by its closed form.
    fn binomial(k: u64, p: f64) -> f64 {
        (ln_choose(544, k) + k as f64 * p.ln() + (544 - k) as f64 * (1.0 - p).ln()).exp()
    }

    /// Pólya–Aeppli by its defining sum over the number of bursts j: e^−λ Σ λ^j/j!·C(k−1, j−1)·θ^(k−j)(1 − θ)^j.
    fn polya_aeppli(k: u64, lambda: f64, theta: f64) -> f64 {
        if k == 0 {
            return (-lambda).exp();
        }
        (1..=k)
            .map(|j| {
                (-lambda + j as f64 * lambda.ln() - ln_factorial(j)
                    + ln_choose(k - 1, j - 1)
                    + (k - j) as f64 * theta.ln()
                    + j as f64 * (1.0 - theta).ln())
                .exp()
            })
            .sum()
    }

    #[test]
    fn recursions_match_closed_forms() {
        let buf: Vec<f64> = Terms::new(TailModelKind::Binomial, [(1e-4f64).ln(), 0.0], 544).take(21).collect();
        for k in [0, 1, 5, 16, 20] {
            assert!((buf[k] / binomial(k as u64, 1e-4) - 1.0).abs() < 1e-9, "k {k}");
        }
        let (lambda, theta): (f64, f64) = (2e-3, 0.4);
        let buf: Vec<f64> = Terms::new(TailModelKind::PolyaAeppli, [lambda.ln(), (theta / (1.0 - theta)).ln()], 544).take(21).collect();
        for k in [0, 1, 2, 7, 16] {
            assert!((buf[k] / polya_aeppli(k as u64, lambda, theta) - 1.0).abs() < 1e-9, "k {k}");
        }
    }

    /// Single-symbol bins 0..=15 of `total` codewords drawn from `p(k)`, rounded to whole codewords.
    fn histogram(total: f64, p: impl Fn(u64) -> f64) -> Vec<(u32, u32, u64)> {
        (0..=15u32).map(|k| (k, k, (total * p(u64::from(k))).round() as u64)).collect()
    }

    #[test]
    fn a_random_channel_is_binomial_and_its_tail_is_predicted() {
        // p = 1.5e-3 per symbol: mean 0.816 symbols per codeword; 4.6875e9 codewords reach ~11.
        let p = 1.5e-3;
        let bins = histogram(4.6875e9, |k| binomial(k, p));
        assert!(bins[9].2 > 0);
        let m = fit(&bins, 544, 15).unwrap();
        assert_eq!(m.selected, Some(TailModelKind::Binomial), "{m:#?}");
        let truth: f64 = (16..=544).map(|k| binomial(k, p)).sum();
        let got = m.uncorrectable_share.unwrap();
        assert!(got / truth < 3.0 && truth / got < 3.0, "{got} vs {truth}");
        assert!(m.uncorrectable_share_low.unwrap() <= got && got <= m.uncorrectable_share_high.unwrap());
        // What is drawn beside the bins: the codewords Binomial(544, p) expects at k = 0..=18.
        assert_eq!(m.expected_codewords.len(), 15 + 1 + EXPECTED_PAST_T as usize);
        for (k, e) in m.expected_codewords.iter().enumerate().take(12) {
            let want = 4.6875e9 * binomial(k as u64, p);
            assert!((e / want - 1.0).abs() < 0.01, "k {k}: {e} vs {want}");
        }
    }

    #[test]
    fn a_bursty_channel_is_polya_aeppli() {
        // λ = 5e-3 bursts per codeword, each continuing with θ = 0.45.
        let (lambda, theta) = (5e-3, 0.45);
        let bins = histogram(4.6875e9, |k| polya_aeppli(k, lambda, theta));
        let m = fit(&bins, 544, 15).unwrap();
        assert_eq!(m.selected, Some(TailModelKind::PolyaAeppli), "{m:#?}");
        let truth: f64 = (16..=200).map(|k| polya_aeppli(k, lambda, theta)).sum();
        let got = m.uncorrectable_share.unwrap();
        assert!(got / truth < 3.0 && truth / got < 3.0, "{got} vs {truth}");
        let b = m.fits.iter().find(|f| f.model == TailModelKind::Binomial).unwrap();
        assert!(b.chi2_p.unwrap() < CHI2_REJECT_P);
    }

    /// Negative binomial(μ, r) by its product form Π_{i<k} (r + i)/(i + 1) · (r/(r+μ))^r (μ/(r+μ))^k.
    fn negative_binomial(k: u64, mu: f64, r: f64) -> f64 {
        (0..k).map(|i| (r + i as f64) / (i as f64 + 1.0)).product::<f64>() * (r / (r + mu)).powf(r) * (mu / (r + mu)).powi(k as i32)
    }

    #[test]
    fn the_fit_on_sums_lands_where_the_fit_on_jets_does() {
        // Random, drifting and bursty channels, one with a tail well past the bins (so the
        // conditioning on them is not negligible), and the bundled two-mechanisms histogram,
        // whose three bins leave the fit nearly free along one direction.
        let mut cases = vec![
            histogram(4.6875e9, |k| binomial(k, 1.5e-3)),
            histogram(4.6875e9, |k| negative_binomial(k, 0.05, 0.3)),
            histogram(4.6875e9, |k| polya_aeppli(k, 5e-3, 0.45)),
            histogram(4.6875e9, |k| polya_aeppli(k, 2e-2, 0.7)),
        ];
        let two: [u64; 16] = [4687097976, 400000, 2000, 10, 0, 0, 0, 0, 3, 5, 4, 2, 0, 0, 0, 0];
        cases.push(two.iter().enumerate().map(|(k, &c)| (k as u32, k as u32, c)).collect());
        for bins in cases {
            let g = Grouped::new(&bins, 544, 15);
            let sums = Sums::new(&g).unwrap();
            let (mean, var) = moments(&g);
            for kind in TailModelKind::ALL {
                let from = start(kind, mean, var, 544);
                let (mut jets, mut values) = (Vec::new(), Vec::new());
                let on_sums = fit_on_sums(&g, kind, &sums, from, 15, &mut values).unwrap();
                let on_jets = maximise(&g, kind, from, &mut jets, &mut values).unwrap();
                let (a, b) = (kind.natural(on_sums.u), kind.natural(on_jets.u));
                for i in 0..kind.params() {
                    assert!((a[i] / b[i] - 1.0).abs() < 1e-6, "{kind:?} {:?}: {a:?} vs {b:?}", &bins[..4]);
                }
            }
        }
    }

    /// Each model at parameters (in u) from a clean channel to a bursty one, for the
    /// closed-form derivatives checked against the jets.
    fn derivative_cases() -> [(TailModelKind, [f64; 2]); 5] {
        [
            (TailModelKind::Binomial, [(2e-3f64).ln(), 0.0]),
            (TailModelKind::NegativeBinomial, [(0.05f64).ln(), (1.0f64 / 0.3).ln()]),
            (TailModelKind::NegativeBinomial, [(0.5f64).ln(), (1e-3f64).ln()]),
            (TailModelKind::PolyaAeppli, [(5e-3f64).ln(), (0.45f64 / 0.55).ln()]),
            (TailModelKind::PolyaAeppli, [(2e-2f64).ln(), (0.7f64 / 0.3).ln()]),
        ]
    }

    #[test]
    fn tail_gradients_match_the_jets() {
        // Each model's ∂P(k > 15)/∂u from its closed forms against the recursion on jets.
        for (kind, u) in derivative_cases() {
            let (grad, share) = tail_gradient(kind, u, 544, 15);
            let jets = Terms::new(kind, [Jet::variable(u[0], 0), Jet::variable(u[1], 1)], 544).take(400).skip(16);
            let want = jets.fold(Jet::constant(0.0), |s, j| s + j);
            assert!((share / want.v - 1.0).abs() < 1e-7, "{kind:?}: {share} vs {}", want.v);
            for i in 0..kind.params() {
                assert!((grad[i] / want.g[i] - 1.0).abs() < 1e-6, "{kind:?} {i}: {grad:?} vs {:?}", want.g);
            }
        }
    }

    #[test]
    fn plain_derivatives_match_the_jets() {
        // Each model's P(k) with its gradient and Hessian in u term by term ([`Derivs`]:
        // closed forms, Pólya–Aeppli's pgf) against the recursion on jets, well into the tail.
        for (kind, u) in derivative_cases() {
            let jets = Terms::new(kind, [Jet::variable(u[0], 0), Jet::variable(u[1], 1)], 544);
            for (k, ((p, g, h), j)) in Derivs::new(kind, u, 544).zip(jets).enumerate().take(40) {
                let close = |got: f64, want: f64| (got - want).abs() <= 1e-9 * want.abs().max(j.v * 1e-3);
                assert!(close(p, j.v), "{kind:?} k {k}: {p} vs {}", j.v);
                for i in 0..2 {
                    assert!(close(g[i], j.g[i]), "{kind:?} k {k} g{i}: {g:?} vs {:?}", j.g);
                }
                for i in 0..3 {
                    assert!(close(h[i], j.h[i]), "{kind:?} k {k} h{i}: {h:?} vs {:?}", j.h);
                }
            }
        }
    }

    #[test]
    fn range_bins_random_channel() {
        // netdevsim-style ranges 0, 1-3, 4-7, 8-11, 12-15 from a binomial channel.
        let p = 2e-3;
        let ranges = [(0u32, 0u32), (1, 3), (4, 7), (8, 11), (12, 15)];
        let bins: Vec<(u32, u32, u64)> = ranges
            .iter()
            .map(|&(lo, hi)| (lo, hi, (4.6875e9 * (lo..=hi).map(|k| binomial(u64::from(k), p)).sum::<f64>()).round() as u64))
            .collect();
        let m = fit(&bins, 544, 15).unwrap();
        let truth: f64 = (16..=544).map(|k| binomial(k, p)).sum();
        let got = m.uncorrectable_share.unwrap();
        assert!(got / truth < 3.0 && truth / got < 3.0, "{got} vs {truth}: {m:#?}");
    }

    #[test]
    fn too_few_bins_cannot_tell() {
        let m = fit(&[(0, 0, 1_000_000), (1, 1, 10)], 544, 15).unwrap();
        assert_eq!(m.selected, None);
        assert!(m.note.unwrap().contains("too few"));
        assert!(fit(&[(0, 0, 0)], 544, 15).is_none());
        // Bins beyond the codeword's symbols are clipped, never allocated.
        assert!(fit(&[(0, 0, 10), (1, u32::MAX, 3), (u32::MAX, u32::MAX, 1)], 544, 15).is_some());
    }
}
