//! Small statistics helpers statrs does not offer: a median, leave-one-out medians and a
//! least-squares line.

use serde::Serialize;

/// Median of the finite values; `None` when there are none.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    // Up to STACK values are sorted in place on the stack, without an allocation.
    let mut stack = [0.0; STACK];
    let mut heap = Vec::new();
    let v: &mut [f64] = if values.len() <= STACK {
        let mut n = 0;
        for x in values.iter().copied().filter(|x| x.is_finite()) {
            stack[n] = x;
            n += 1;
        }
        &mut stack[..n]
    } else {
        heap.extend(values.iter().copied().filter(|x| x.is_finite()));
        &mut heap
    };
    v.sort_unstable_by(f64::total_cmp);
    middle(v.len(), |k| v[k])
}

/// The median of `n` sorted values, `at(k)` the k-th smallest; `None` when `n` is 0.
fn middle(n: usize, at: impl Fn(usize) -> f64) -> Option<f64> {
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    // mid < n, and mid >= 1 when n is even and non-zero.
    Some(if n % 2 == 1 { at(mid) } else { (at(mid - 1) + at(mid)) / 2.0 })
}

/// Leave-one-out medians: for each lane, the [`median`] of its siblings' values (every
/// lane's but its own), from one sorted copy per window instead of one sort per lane.
#[derive(Clone, Debug, Default)]
pub(crate) struct SiblingMedians {
    /// The finite values of every lane as [`total_key`]s, sorted: the first `len` of
    /// `stack` when they fit (a window's lanes do: no allocation per window), else `heap`.
    stack: [i64; STACK],
    len: usize,
    heap: Vec<i64>,
}

/// Values a [`SiblingMedians`] holds without allocating (a port has at most 8 lanes).
const STACK: usize = 16;

/// `f64::total_cmp`'s order as an integer's (its own definition: the bits, with the
/// magnitude bits flipped when the sign is set); the map is its own inverse.
fn total_key(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

fn from_total_key(k: i64) -> f64 {
    f64::from_bits((k ^ (((k >> 63) as u64) >> 1) as i64) as u64)
}

impl SiblingMedians {
    /// Over one value per lane (`None`: the lane lacks it).
    #[inline]
    pub(crate) fn new(values: impl IntoIterator<Item = Option<f64>>) -> Self {
        let mut s = SiblingMedians::default();
        for k in values.into_iter().flatten().filter(|x| x.is_finite()).map(total_key) {
            if s.len < STACK {
                // Inserted in order, the larger keys moved up one by one: for a port's
                // few lanes cheaper than a sort (whose moves are a memmove call each).
                let mut at = s.len;
                while at > 0 && s.stack[at - 1] > k {
                    s.stack[at] = s.stack[at - 1];
                    at -= 1;
                }
                s.stack[at] = k;
                s.len += 1;
            } else {
                if s.heap.is_empty() {
                    s.heap.extend_from_slice(&s.stack);
                }
                s.heap.push(k);
            }
        }
        s.heap.sort_unstable();
        s
    }

    fn keys(&self) -> &[i64] {
        if self.heap.is_empty() {
            &self.stack[..self.len]
        } else {
            &self.heap
        }
    }

    /// The median of the values without one copy of `own` (the lane's own value, as given
    /// to [`new`](Self::new)): the same multiset, so the same figure, as [`median`] over
    /// the siblings' values.
    pub(crate) fn without(&self, own: Option<f64>) -> Option<f64> {
        let v = self.keys();
        let Some(x) = own.map(total_key).filter(|x| v.contains(x)) else {
            return middle(v.len(), |k| from_total_key(v[k]));
        };
        // Without the first copy of `x`, the k-th smallest is v[k] before it (exactly when
        // v[k] < x), else v[k + 1]; k < len - 1, so k + 1 < len.
        middle(v.len() - 1, |k| from_total_key(if v[k] < x { v[k] } else { v[k + 1] }))
    }
}

/// y = slope·x + intercept by ordinary least squares, with Pearson's r.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub(crate) struct LineFit {
    pub(crate) slope: f64,
    pub(crate) intercept: f64,
    pub(crate) r: f64,
    pub(crate) n: usize,
}

/// `None` for fewer than two points or when every x (or every y) is the same.
pub(crate) fn line_fit(points: &[(f64, f64)]) -> Option<LineFit> {
    let pts: Vec<(f64, f64)> = points.iter().copied().filter(|(x, y)| x.is_finite() && y.is_finite()).collect();
    let n = pts.len();
    if n < 2 {
        return None;
    }
    let mean_x = pts.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let mean_y = pts.iter().map(|p| p.1).sum::<f64>() / n as f64;
    let (mut sxx, mut syy, mut sxy) = (0.0, 0.0, 0.0);
    for (x, y) in &pts {
        let (dx, dy) = (x - mean_x, y - mean_y);
        sxx += dx * dx;
        syy += dy * dy;
        sxy += dx * dy;
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some(LineFit { slope, intercept: mean_y - slope * mean_x, r: sxy / (sxx * syy).sqrt(), n })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn total_keys_order_as_total_cmp() {
        let xs = [f64::NEG_INFINITY, -1e300, -1.0, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1e300, f64::INFINITY];
        for (i, a) in xs.iter().enumerate() {
            assert_eq!(from_total_key(total_key(*a)).to_bits(), a.to_bits());
            for b in &xs[i..] {
                assert_eq!(total_key(*a).cmp(&total_key(*b)), a.total_cmp(b), "{a} {b}");
            }
        }
    }

    #[test]
    fn sibling_medians_leave_one_out() {
        // Lanes 10, 30, none, 20, NaN, 40: lane 1's siblings 30, 20, 40 -> 30; lane 2's
        // 10, 20, 40 -> 20; lane 3 (none) has all four: (20 + 30) / 2 = 25, lane 5 (NaN)
        // too; lane 4's 10, 30, 40 -> 30; lane 6's 10, 30, 20 -> 20.
        let values = [Some(10.0), Some(30.0), None, Some(20.0), Some(f64::NAN), Some(40.0)];
        let s = SiblingMedians::new(values);
        let got: Vec<Option<f64>> = values.iter().map(|v| s.without(*v)).collect();
        assert_eq!(got, vec![Some(30.0), Some(20.0), Some(25.0), Some(30.0), Some(25.0), Some(20.0)]);
        // Ties: 5, 5, 7 -> either 5's siblings are 5 and 7 -> 6.
        let s = SiblingMedians::new([Some(5.0), Some(5.0), Some(7.0)]);
        assert_eq!((s.without(Some(5.0)), s.without(Some(7.0))), (Some(6.0), Some(5.0)));
        // -0.0 and 0.0 are told apart as total_cmp tells them: without -0.0 -> 0.0 and 1.0.
        let s = SiblingMedians::new([Some(0.0), Some(-0.0), Some(1.0)]);
        assert_eq!(s.without(Some(-0.0)), Some(0.5));
        assert_eq!(s.without(Some(1.0)).map(f64::to_bits), Some(((-0.0f64 + 0.0) / 2.0).to_bits()));
        // Every removal position, odd and even counts, with ties: as `median` of the rest.
        for n in 1..=9usize {
            let values: Vec<f64> = (0..n).map(|i| ((i * 7) % 5) as f64).collect();
            let s = SiblingMedians::new(values.iter().map(|v| Some(*v)));
            for i in 0..n {
                let rest: Vec<f64> = values.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, v)| *v).collect();
                assert_eq!(s.without(Some(values[i])), median(&rest), "{values:?} without {i}");
            }
        }
        // One lane: no siblings.
        assert_eq!(SiblingMedians::new([Some(1.0)]).without(Some(1.0)), None);
        // More values than the stack holds: 1..=40 without 1 -> 2..=40, median 21; without
        // 40 -> 1..=39, median 20; without a value not there -> (20 + 21) / 2.
        let s = SiblingMedians::new((1..=40).rev().map(|v| Some(f64::from(v))));
        assert_eq!((s.without(Some(1.0)), s.without(Some(40.0)), s.without(Some(0.5))), (Some(21.0), Some(20.0), Some(20.5)));
    }

    #[test]
    fn fits() {
        // y = -2x + 1 exactly: slope -2, intercept 1, r -1.
        let f = line_fit(&[(0.0, 1.0), (1.0, -1.0), (2.0, -3.0)]).unwrap();
        assert!((f.slope + 2.0).abs() < 1e-12 && (f.intercept - 1.0).abs() < 1e-12 && (f.r + 1.0).abs() < 1e-12);
        // (0,0),(1,1),(2,1): mean (1, 2/3); sxy = (-1)(-2/3)+0+(1)(1/3) = 1; sxx = 2 -> slope 0.5;
        // syy = 4/9+1/9+1/9 = 2/3 -> r = 1/sqrt(4/3) = 0.8660.
        let f = line_fit(&[(0.0, 0.0), (1.0, 1.0), (2.0, 1.0)]).unwrap();
        assert!((f.slope - 0.5).abs() < 1e-12 && (f.r - 0.866_025).abs() < 1e-6);
        assert!(line_fit(&[(1.0, 1.0)]).is_none());
        assert!(line_fit(&[(1.0, 1.0), (1.0, 2.0)]).is_none());
    }
}
