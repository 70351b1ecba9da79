//! Two small statistics helpers statrs does not offer: a median and a least-squares line.

use serde::Serialize;

/// Median of the finite values; `None` when there are none.
pub fn median(values: &[f64]) -> Option<f64> {
    // Called per lane over its siblings (a CSV export does it for every row): up to
    // STACK values are sorted in place on the stack, without an allocation.
    const STACK: usize = 16;
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
    if v.is_empty() {
        return None;
    }
    v.sort_unstable_by(f64::total_cmp);
    let mid = v.len() / 2;
    // mid < len, and mid >= 1 when len is even and non-empty.
    Some(if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 })
}

/// y = slope·x + intercept by ordinary least squares, with Pearson's r.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct LineFit {
    pub slope: f64,
    pub intercept: f64,
    pub r: f64,
    pub n: usize,
}

/// `None` for fewer than two points or when every x (or every y) is the same.
pub fn line_fit(points: &[(f64, f64)]) -> Option<LineFit> {
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
