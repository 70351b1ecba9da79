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
//! Each is fitted by Nelder–Mead, then Newton, on the grouped log-likelihood
//! Σ count_b·ln(P(bin b) / P(any bin)) (conditional: codewords past the bins, the
//! uncorrectable ones, are not in them), from moment estimates. Models are compared by AIC = 2·params − 2·ln L and tested by χ² over
//! the bins (adjacent bins pooled until each expects 5 codewords); the lowest AIC among
//! those the χ² test does not reject (p ≥ 0.001) is chosen. With fewer than three non-empty
//! bins, or when every testable model is rejected, the data cannot tell: the caller keeps
//! its straight-line tail and says so. The predicted uncorrectable share is the model's
//! P(k > t), with a 95% interval from the parameters' covariance (delta method).

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

/// A model of symbol errors per codeword.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TailModelKind {
    Binomial,
    NegativeBinomial,
    PolyaAeppli,
}

impl TailModelKind {
    pub const ALL: [TailModelKind; 3] = [TailModelKind::Binomial, TailModelKind::NegativeBinomial, TailModelKind::PolyaAeppli];

    pub fn name(self) -> &'static str {
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

    /// The model's parameters from the fitted (unbounded) coordinates.
    fn natural(self, u: [f64; 2]) -> [f64; 2] {
        match self {
            // p, capped under 1/2 (a codeword with half its symbols wrong is no channel).
            TailModelKind::Binomial => [u[0].exp().min(0.5), 0.0],
            // μ, r.
            TailModelKind::NegativeBinomial => [u[0].exp(), u[1].exp()],
            // λ, θ in (0, 1).
            TailModelKind::PolyaAeppli => [u[0].exp(), 1.0 / (1.0 + (-u[1]).exp())],
        }
    }
}

/// One model fitted to one histogram.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailModelFit {
    pub model: TailModelKind,
    /// binomial: `p` per symbol; negative binomial: `mean_symbols`, `shape`; Pólya–Aeppli:
    /// `bursts_per_codeword` (λ), `burst_continue` (θ).
    pub params: Vec<(&'static str, f64)>,
    pub log_likelihood: f64,
    pub aic: f64,
    pub chi2: f64,
    pub chi2_dof: i64,
    /// `None` when no degree of freedom is left to test with.
    pub chi2_p: Option<f64>,
    /// P(k > t): the share of codewords the FEC cannot correct.
    pub uncorrectable_share: f64,
}

/// The fits and the choice among them.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TailModels {
    /// The chosen model; `None`: the data cannot tell, the straight line stands.
    pub selected: Option<TailModelKind>,
    /// Why no model was chosen, or why the one chosen could not be tested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub fits: Vec<TailModelFit>,
    /// The chosen model's P(k > t) and its 95% interval.
    pub uncorrectable_share: Option<f64>,
    pub uncorrectable_share_low: Option<f64>,
    pub uncorrectable_share_high: Option<f64>,
    /// The chosen model's expected codewords over the window with k = 0, 1, ..., t +
    /// [`EXPECTED_PAST_T`] symbol errors (the histogram's total times P(k) over P(any bin)),
    /// for drawing beside the bins; empty when no model is chosen.
    #[serde(skip)]
    pub expected_codewords: Vec<f64>,
}

/// Symbol-error values past t whose expected codewords are kept for drawing.
pub const EXPECTED_PAST_T: u32 = 3;

/// χ² p under which a model is rejected.
const CHI2_REJECT_P: f64 = 0.001;
/// AIC difference past which a model is not supported beside the best.
const AIC_SUPPORT: f64 = 10.0;
/// Expected codewords a χ² cell needs.
const CHI2_MIN_EXPECTED: f64 = 5.0;

/// P(0..=kmax) of `kind` at `u`, into `out`.
fn pmf(kind: TailModelKind, u: [f64; 2], n: u32, kmax: usize, out: &mut Vec<f64>) {
    out.clear();
    let [a, b] = kind.natural(u);
    match kind {
        TailModelKind::Binomial => {
            let p = a;
            let ratio = p / (1.0 - p);
            let mut v = (f64::from(n) * (-p).ln_1p()).exp();
            for k in 0..=kmax {
                out.push(v);
                let k = k as f64;
                v *= (f64::from(n) - k).max(0.0) / (k + 1.0) * ratio;
            }
        }
        TailModelKind::NegativeBinomial => {
            let (mu, r) = (a, b);
            let q = mu / (r + mu);
            let mut v = (-r * (mu / r).ln_1p()).exp();
            for k in 0..=kmax {
                out.push(v);
                let k = k as f64;
                v *= (k + r) / (k + 1.0) * q;
            }
        }
        TailModelKind::PolyaAeppli => {
            let (lambda, theta) = (a, b);
            let (mut prev, mut v) = (0.0, (-lambda).exp());
            for k in 0..=kmax {
                out.push(v);
                let kf = k as f64;
                let next = ((2.0 * theta * kf + lambda * (1.0 - theta)) * v - theta * theta * (kf - 1.0).max(0.0) * prev) / (kf + 1.0);
                (prev, v) = (v, next.max(0.0));
            }
        }
    }
}

/// A histogram as the models see it: bins clipped to the codeword's n symbols.
struct Grouped<'a> {
    bins: &'a [(u32, u32, u64)],
    n: u32,
    kmax: usize,
    total: f64,
}

impl Grouped<'_> {
    fn bin_probs(&self, p: &[f64]) -> impl Iterator<Item = (u64, f64)> + '_ {
        let p: Vec<f64> = p.to_vec();
        self.bins.iter().map(move |&(lo, hi, c)| {
            let (lo, hi) = (lo.min(self.n) as usize, hi.min(self.n) as usize);
            (c, p.get(lo..=hi.min(self.kmax)).map_or(0.0, |s| s.iter().sum()))
        })
    }

    fn log_likelihood(&self, kind: TailModelKind, u: [f64; 2], buf: &mut Vec<f64>) -> f64 {
        pmf(kind, u, self.n, self.kmax, buf);
        let (mut ll, mut covered) = (0.0, 0.0);
        for &(lo, hi, c) in self.bins {
            let (lo, hi) = (lo.min(self.n) as usize, hi.min(self.n) as usize);
            let pb: f64 = buf.get(lo..=hi.min(self.kmax)).map_or(0.0, |s| s.iter().sum());
            covered += pb;
            if c == 0 {
                continue;
            }
            if !(pb > 0.0) {
                return f64::NEG_INFINITY;
            }
            ll += c as f64 * pb.ln();
        }
        // The bins hold the codewords within their ranges only (uncorrectable ones are
        // counted apart): the likelihood is conditional on landing in a bin.
        ll - self.total * covered.ln()
    }
}

/// Mean and variance of symbol errors per codeword, each bin at its midpoint.
fn moments(g: &Grouped) -> (f64, f64) {
    let (mut s1, mut s2) = (0.0, 0.0);
    for &(lo, hi, c) in g.bins {
        let m = (f64::from(lo.min(g.n)) + f64::from(hi.min(g.n))) / 2.0;
        s1 += c as f64 * m;
        s2 += c as f64 * m * m;
    }
    let mean = (s1 / g.total).max(1e-12);
    (mean, (s2 / g.total - mean * mean).max(mean * 1.0001))
}

fn start(kind: TailModelKind, mean: f64, var: f64, n: u32) -> [f64; 2] {
    match kind {
        TailModelKind::Binomial => [(mean / f64::from(n)).ln(), 0.0],
        // var = μ + μ²/r.
        TailModelKind::NegativeBinomial => [mean.ln(), (mean * mean / (var - mean)).max(1e-6).ln()],
        // var / mean = (1 + θ)/(1 − θ).
        TailModelKind::PolyaAeppli => {
            let d = var / mean;
            let theta = ((d - 1.0) / (d + 1.0)).clamp(1e-6, 1.0 - 1e-6);
            [(mean * (1.0 - theta)).ln(), (theta / (1.0 - theta)).ln()]
        }
    }
}

/// Nelder–Mead minimum of `f` over the first `d` (1 or 2) coordinates.
fn nelder_mead(f: &mut dyn FnMut([f64; 2]) -> f64, start: [f64; 2], d: usize) -> ([f64; 2], f64) {
    let mut pts: Vec<([f64; 2], f64)> = Vec::with_capacity(d + 1);
    pts.push((start, f(start)));
    for i in 0..d {
        let mut p = start;
        p[i] += 0.5;
        pts.push((p, f(p)));
    }
    let by_value = |a: &([f64; 2], f64), b: &([f64; 2], f64)| a.1.total_cmp(&b.1);
    for _ in 0..400 {
        pts.sort_by(by_value);
        let (best, worst) = (pts[0].1, pts[d].1);
        let size = pts[1..].iter().map(|(p, _)| (0..d).map(|i| (p[i] - pts[0].0[i]).abs()).fold(0.0, f64::max)).fold(0.0, f64::max);
        if (worst - best).abs() <= 1e-9 * (1.0 + best.abs()) && size < 1e-6 {
            break;
        }
        let mut c = [0.0; 2];
        for (p, _) in &pts[..d] {
            for i in 0..d {
                c[i] += p[i] / d as f64;
            }
        }
        let at = |t: f64, w: [f64; 2]| {
            let mut x = c;
            for i in 0..d {
                x[i] = c[i] + t * (w[i] - c[i]);
            }
            x
        };
        let w = pts[d].0;
        let r = at(-1.0, w);
        let fr = f(r);
        if fr < pts[0].1 {
            let e = at(-2.0, w);
            let fe = f(e);
            pts[d] = if fe < fr { (e, fe) } else { (r, fr) };
        } else if fr < pts[d - 1].1 {
            pts[d] = (r, fr);
        } else {
            let k = if fr < pts[d].1 { at(-0.5, w) } else { at(0.5, w) };
            let fk = f(k);
            if fk < fr.min(pts[d].1) {
                pts[d] = (k, fk);
            } else {
                let b = pts[0].0;
                for (p, v) in pts[1..].iter_mut() {
                    for i in 0..d {
                        p[i] = b[i] + 0.5 * (p[i] - b[i]);
                    }
                    *v = f(*p);
                }
            }
        }
    }
    pts.sort_by(by_value);
    pts[0]
}

/// `u` moved by `s` along coordinate `i`.
fn shift(u: [f64; 2], i: usize, s: f64) -> [f64; 2] {
    let mut v = u;
    v[i] += s;
    v
}

/// Central-difference Hessian of `f` at `u` (`fu` = f(u)) over the first `d` coordinates.
fn hessian(f: &mut dyn FnMut([f64; 2]) -> f64, u: [f64; 2], fu: f64, d: usize) -> [[f64; 2]; 2] {
    let h = 1e-4;
    let second = |f: &mut dyn FnMut([f64; 2]) -> f64, i: usize| (f(shift(u, i, h)) - 2.0 * fu + f(shift(u, i, -h))) / (h * h);
    let mut hess = [[second(f, 0), 0.0], [0.0, 0.0]];
    if d == 2 {
        hess[1][1] = second(f, 1);
        let cross = (f(shift(shift(u, 0, h), 1, h)) - f(shift(shift(u, 0, h), 1, -h)) - f(shift(shift(u, 0, -h), 1, h))
            + f(shift(shift(u, 0, -h), 1, -h)))
            / (4.0 * h * h);
        (hess[0][1], hess[1][0]) = (cross, cross);
    }
    hess
}

/// Newton steps from `u` on `f` (numeric gradient and Hessian, halving a step that does not
/// descend): Nelder–Mead stalls on a likelihood as sharp as 1e9 codewords make it.
fn newton_polish(f: &mut dyn FnMut([f64; 2]) -> f64, mut u: [f64; 2], mut fu: f64, d: usize) -> ([f64; 2], f64) {
    for _ in 0..30 {
        let hg = 1e-6;
        let mut g = [0.0; 2];
        for (i, gi) in g.iter_mut().enumerate().take(d) {
            *gi = (f(shift(u, i, hg)) - f(shift(u, i, -hg))) / (2.0 * hg);
        }
        let hess = hessian(f, u, fu, d);
        let step = if d == 1 {
            [-g[0] / hess[0][0], 0.0]
        } else {
            let det = hess[0][0] * hess[1][1] - hess[0][1] * hess[1][0];
            [-(hess[1][1] * g[0] - hess[0][1] * g[1]) / det, -(hess[0][0] * g[1] - hess[1][0] * g[0]) / det]
        };
        if !step.iter().all(|x| x.is_finite()) || hess[0][0] <= 0.0 {
            break;
        }
        let mut scale = 1.0;
        let mut moved = false;
        for _ in 0..20 {
            let v = [u[0] + scale * step[0], u[1] + scale * step[1]];
            let fv = f(v);
            if fv < fu {
                (u, fu, moved) = (v, fv, true);
                break;
            }
            scale /= 2.0;
        }
        if !moved || scale * step[0].abs().max(step[1].abs()) < 1e-10 {
            break;
        }
    }
    (u, fu)
}

/// P(k > t) of `kind` at `u`: summed term by term (1 − P(k ≤ t) would cancel to noise).
fn tail_share(kind: TailModelKind, u: [f64; 2], n: u32, t: u32, buf: &mut Vec<f64>) -> f64 {
    // Bursts can run long: sum far enough that the terms left are negligible.
    let kmax = (t as usize + 1 + 512).min(n as usize);
    pmf(kind, u, n, kmax, buf);
    buf.get(t as usize + 1..).map_or(0.0, |s| s.iter().sum())
}

/// χ² of the fit over bins pooled until each expects `CHI2_MIN_EXPECTED` codewords.
fn chi2(g: &Grouped, p: &[f64], params: usize) -> (f64, i64) {
    let probs: Vec<(u64, f64)> = g.bin_probs(p).collect();
    let covered: f64 = probs.iter().map(|(_, q)| q).sum();
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (c, q) in probs {
        o += c as f64;
        e += g.total * q / covered;
        if e >= CHI2_MIN_EXPECTED {
            cells.push((o, e));
            (o, e) = (0.0, 0.0);
        }
    }
    match cells.last_mut() {
        Some(last) => {
            last.0 += o;
            last.1 += e;
        }
        None => cells.push((o, e)),
    }
    let x2 = cells.iter().filter(|(_, e)| *e > 0.0).map(|(o, e)| (o - e) * (o - e) / e).sum();
    (x2, cells.len() as i64 - 1 - params as i64)
}

/// 95% interval of ln P(k > t) from the inverse Hessian of −ln L (delta method).
fn interval(kind: TailModelKind, g: &Grouped, u: [f64; 2], t: u32, buf: &mut Vec<f64>) -> Option<(f64, f64)> {
    let d = kind.params();
    let h = 1e-3;
    let mut nll = |x: [f64; 2]| -g.log_likelihood(kind, x, buf);
    let f0 = nll(u);
    let hess = hessian(&mut nll, u, f0, d);
    let cov = if d == 1 {
        [[1.0 / hess[0][0], 0.0], [0.0, 0.0]]
    } else {
        let det = hess[0][0] * hess[1][1] - hess[0][1] * hess[1][0];
        if !(det > 0.0) {
            return None;
        }
        [[hess[1][1] / det, -hess[0][1] / det], [-hess[1][0] / det, hess[0][0] / det]]
    };
    let mut grad = [0.0; 2];
    for (i, gi) in grad.iter_mut().enumerate().take(d) {
        let up = tail_share(kind, shift(u, i, h), g.n, t, buf).ln();
        let down = tail_share(kind, shift(u, i, -h), g.n, t, buf).ln();
        *gi = (up - down) / (2.0 * h);
    }
    let var: f64 = (0..d).flat_map(|i| (0..d).map(move |j| (i, j))).map(|(i, j)| grad[i] * cov[i][j] * grad[j]).sum();
    (var.is_finite() && var >= 0.0).then(|| (-1.96 * var.sqrt(), 1.96 * var.sqrt()))
}

/// Fits every model to `bins` (window counts, any ranges) of an RS(n, k) FEC with limit
/// `t`; `None` without codewords.
pub fn fit(bins: &[(u32, u32, u64)], n: u32, t: u32) -> Option<TailModels> {
    let total: f64 = bins.iter().map(|b| b.2 as f64).sum();
    if !(total > 0.0) || n == 0 {
        return None;
    }
    let kmax = bins.iter().map(|b| b.1).max().unwrap_or(0).max(t).min(n) as usize;
    let g = Grouped { bins, n, kmax, total };
    let nonempty = bins.iter().filter(|b| b.2 > 0).count();
    let mut buf = Vec::with_capacity(kmax + 1);
    let (mean, var) = moments(&g);
    let mut fits = Vec::with_capacity(3);
    let mut optima = Vec::with_capacity(3);
    for kind in TailModelKind::ALL {
        let d = kind.params();
        let mut nll_of = |x| -g.log_likelihood(kind, x, &mut buf);
        let (u, nll) = nelder_mead(&mut nll_of, start(kind, mean, var, n), d);
        let (u, nll) = newton_polish(&mut nll_of, u, nll, d);
        if !nll.is_finite() {
            continue;
        }
        pmf(kind, u, n, kmax, &mut buf);
        let (x2, dof) = chi2(&g, &buf, d);
        let chi2_p = (dof >= 1).then(|| ChiSquared::new(dof as f64).map(|c| c.sf(x2)).ok()).flatten();
        let nat = kind.natural(u);
        let params = match kind {
            TailModelKind::Binomial => vec![("p", nat[0])],
            TailModelKind::NegativeBinomial => vec![("mean_symbols", nat[0]), ("shape", nat[1])],
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
            uncorrectable_share: tail_share(kind, u, n, t, &mut buf),
        });
        optima.push(u);
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
    let Some(u) = out.fits.iter().position(|f| f.model == kind).map(|i| optima[i]) else { return Some(out) };
    if let Some((lo, hi)) = interval(kind, &g, u, t, &mut buf) {
        out.uncorrectable_share_low = Some(share * lo.exp());
        out.uncorrectable_share_high = Some((share * hi.exp()).min(1.0));
    }
    pmf(kind, u, n, kmax, &mut buf);
    let covered: f64 = g.bin_probs(&buf).map(|(_, q)| q).sum();
    pmf(kind, u, n, (t + EXPECTED_PAST_T).min(n) as usize, &mut buf);
    out.expected_codewords = buf.iter().map(|p| total * p / covered).collect();
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
        let mut buf = Vec::new();
        pmf(TailModelKind::Binomial, [(1e-4f64).ln(), 0.0], 544, 20, &mut buf);
        for k in [0, 1, 5, 16, 20] {
            assert!((buf[k] / binomial(k as u64, 1e-4) - 1.0).abs() < 1e-9, "k {k}");
        }
        let (lambda, theta): (f64, f64) = (2e-3, 0.4);
        pmf(TailModelKind::PolyaAeppli, [lambda.ln(), (theta / (1.0 - theta)).ln()], 544, 20, &mut buf);
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
