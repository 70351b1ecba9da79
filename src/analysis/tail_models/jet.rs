//! A number that carries its first and second derivatives with respect to two variables
//! (forward-mode differentiation to second order), so that one pass of a distribution's
//! recursion gives the log-likelihood, its gradient and its Hessian exactly: Newton's
//! method without numeric differences, and the delta method's covariance from the same
//! Hessian. The fits need nothing more than these few operations, so this stays a small
//! type rather than a crate.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// What the distributions' recursions compute with: `f64` (values only) or [`Jet`].
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + Div<Output = Self> + Neg<Output = Self>
{
    fn constant(v: f64) -> Self;
    fn value(self) -> f64;
    fn scale(self, s: f64) -> Self;
    /// f(self), given f, f′ and f″ at `self.value()` (the chain rule to second order).
    fn chain(self, f: f64, f1: f64, f2: f64) -> Self;
    fn exp(self) -> Self {
        let e = self.value().exp();
        self.chain(e, e, e)
    }
    fn ln(self) -> Self {
        let (v, r) = (self.value(), 1.0 / self.value());
        self.chain(v.ln(), r, -r * r)
    }
    fn ln_1p(self) -> Self {
        let (v, r) = (self.value(), 1.0 / (1.0 + self.value()));
        self.chain(v.ln_1p(), r, -r * r)
    }
    /// 1 / (1 + e^−x).
    fn logistic(self) -> Self {
        let s = 1.0 / (1.0 + (-self.value()).exp());
        let d = s * (1.0 - s);
        self.chain(s, d, d * (1.0 - 2.0 * s))
    }
}

impl Real for f64 {
    fn constant(v: f64) -> Self {
        v
    }
    fn value(self) -> f64 {
        self
    }
    fn scale(self, s: f64) -> Self {
        self * s
    }
    fn chain(self, f: f64, _: f64, _: f64) -> Self {
        f
    }
}

/// A value `v`, its gradient `g` and its Hessian `h` (`[∂²/∂x0², ∂²/∂x0∂x1, ∂²/∂x1²]`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Jet {
    pub(crate) v: f64,
    pub(crate) g: [f64; 2],
    pub(crate) h: [f64; 3],
}

impl Jet {
    /// The variable `i` (0 or 1) at `v`.
    pub(crate) fn variable(v: f64, i: usize) -> Jet {
        let mut g = [0.0; 2];
        g[i] = 1.0;
        Jet { v, g, h: [0.0; 3] }
    }
}

impl Add for Jet {
    type Output = Jet;
    fn add(self, o: Jet) -> Jet {
        Jet {
            v: self.v + o.v,
            g: [self.g[0] + o.g[0], self.g[1] + o.g[1]],
            h: [self.h[0] + o.h[0], self.h[1] + o.h[1], self.h[2] + o.h[2]],
        }
    }
}

impl Sub for Jet {
    type Output = Jet;
    fn sub(self, o: Jet) -> Jet {
        self + -o
    }
}

impl Neg for Jet {
    type Output = Jet;
    fn neg(self) -> Jet {
        self.scale(-1.0)
    }
}

impl Mul for Jet {
    type Output = Jet;
    fn mul(self, o: Jet) -> Jet {
        let (a, b) = (self, o);
        Jet {
            v: a.v * b.v,
            g: [a.v * b.g[0] + a.g[0] * b.v, a.v * b.g[1] + a.g[1] * b.v],
            h: [
                a.v * b.h[0] + a.h[0] * b.v + 2.0 * a.g[0] * b.g[0],
                a.v * b.h[1] + a.h[1] * b.v + a.g[0] * b.g[1] + a.g[1] * b.g[0],
                a.v * b.h[2] + a.h[2] * b.v + 2.0 * a.g[1] * b.g[1],
            ],
        }
    }
}

impl Div for Jet {
    type Output = Jet;
    /// q = a/b from a = q·b differentiated: q′ = (a′ − q·b′)/b, q″ = (a″ − q·b″ − q′b′ − b′q′)/b.
    fn div(self, o: Jet) -> Jet {
        let (a, b) = (self, o);
        let q = a.v / b.v;
        let g = [(a.g[0] - q * b.g[0]) / b.v, (a.g[1] - q * b.g[1]) / b.v];
        Jet {
            v: q,
            g,
            h: [
                (a.h[0] - q * b.h[0] - 2.0 * g[0] * b.g[0]) / b.v,
                (a.h[1] - q * b.h[1] - g[0] * b.g[1] - g[1] * b.g[0]) / b.v,
                (a.h[2] - q * b.h[2] - 2.0 * g[1] * b.g[1]) / b.v,
            ],
        }
    }
}

impl Real for Jet {
    fn constant(v: f64) -> Self {
        Jet { v, ..Jet::default() }
    }
    fn value(self) -> f64 {
        self.v
    }
    fn scale(self, s: f64) -> Self {
        Jet { v: self.v * s, g: [self.g[0] * s, self.g[1] * s], h: [self.h[0] * s, self.h[1] * s, self.h[2] * s] }
    }
    fn chain(self, f: f64, f1: f64, f2: f64) -> Self {
        let [g0, g1] = self.g;
        Jet {
            v: f,
            g: [f1 * g0, f1 * g1],
            h: [f1 * self.h[0] + f2 * g0 * g0, f1 * self.h[1] + f2 * g0 * g1, f1 * self.h[2] + f2 * g1 * g1],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f(x, y) = ln(1 + x·y / (x + e^y)) + logistic(x − y), its derivatives against
    /// central differences of the f64 evaluation.
    fn f<T: Real>(x: T, y: T) -> T {
        (x * y / (x + y.exp())).ln_1p() + (x - y).logistic() - T::constant(2.0).scale(0.5).ln()
    }

    #[test]
    fn derivatives_match_differences() {
        let (x, y) = (0.7, -0.4);
        let j = f(Jet::variable(x, 0), Jet::variable(y, 1));
        assert!((j.v - f(x, y)).abs() < 1e-15);
        let h = 1e-4;
        let d0 = (f(x + h, y) - f(x - h, y)) / (2.0 * h);
        let d1 = (f(x, y + h) - f(x, y - h)) / (2.0 * h);
        let d00 = (f(x + h, y) - 2.0 * f(x, y) + f(x - h, y)) / (h * h);
        let d11 = (f(x, y + h) - 2.0 * f(x, y) + f(x, y - h)) / (h * h);
        let d01 = (f(x + h, y + h) - f(x + h, y - h) - f(x - h, y + h) + f(x - h, y - h)) / (4.0 * h * h);
        for (got, want) in [(j.g[0], d0), (j.g[1], d1), (j.h[0], d00), (j.h[1], d01), (j.h[2], d11)] {
            assert!((got - want).abs() < 1e-6, "{got} vs {want}");
        }
    }
}
