//! Fixed-point decimals (`{:.N}`) without the float formatting machinery, for the lines
//! `watch` prints per interface-sample: the same bytes as `format!("{v:.N}")` for every
//! value. `core` works the exact decimal expansion out in general (Grisu with a Dragon
//! fallback), which for a timestamp or a margin costs more than the rest of the line.
//! Below 2^52 a double is `m / 2^k` with integers `m < 2^53` and `k >= 1`, so `v x 10^N`
//! splits exactly into an integer part and a remainder over `2^k`, and rounding it to
//! the nearest integer, ties to even, as `core` does, is one comparison. Other values
//! (large, NaN, infinite) go to `core`.

use std::fmt::Write as _;

/// Decimals the fast path takes: `m x 10^N` stays below 2^64 (2^53 x 10^3 < 2^63).
const MAX_DECIMALS: usize = 3;

/// `v` as `format!("{v:.decimals$}")` would write it, appended to `out`.
pub(crate) fn push_fixed(out: &mut String, v: f64, decimals: usize) {
    push_fixed_right(out, v, 0, decimals);
}

/// `v` right-aligned in `width` characters, as `format!("{v:>width$.decimals$}")`.
pub(crate) fn push_fixed_right(out: &mut String, v: f64, width: usize, decimals: usize) {
    let mut buf = [b' '; 32];
    match scaled(v.abs(), decimals) {
        Some(n) if width <= buf.len() => {
            let mut at = digits_before(&mut buf, n, decimals);
            // `core` writes the sign of every negative value, -0.0 and those that round to 0 too.
            if v.is_sign_negative() {
                at -= 1;
                buf[at] = b'-';
            }
            // ASCII only: bytes are characters; the spaces before are the padding.
            let from = at.min(buf.len() - width);
            out.push_str(std::str::from_utf8(&buf[from..]).unwrap_or_default());
        }
        // Writing into a String cannot fail.
        _ => drop(write!(out, "{v:>width$.decimals$}")),
    }
}

/// `a` (finite, non-negative, below 2^52) x 10^`decimals`, rounded to an integer half to
/// even; `None` outside that range.
fn scaled(a: f64, decimals: usize) -> Option<u64> {
    if decimals > MAX_DECIMALS || !(a < (1u64 << 52) as f64) {
        return None;
    }
    if a == 0.0 {
        return Some(0);
    }
    // IEEE 754 binary64: 52 fraction bits, exponent biased by 1075 for an integer significand.
    let bits = a.to_bits();
    let exp = (bits >> 52) as i64;
    let (m, k) = if exp == 0 { (bits & ((1 << 52) - 1), 1074) } else { ((bits & ((1 << 52) - 1)) | (1 << 52), 1075 - exp) };
    // a < 2^52, so a = m / 2^k with k >= 1.
    let num = m * 10u64.pow(decimals as u32);
    if k >= 64 {
        // num < 2^63 <= 2^(k-1): below half of one, rounds to 0.
        return Some(0);
    }
    let q = num >> k;
    let rem = num & ((1u64 << k) - 1);
    let half = 1u64 << (k - 1);
    let up = rem > half || (rem == half && q & 1 == 1);
    Some(q + u64::from(up))
}

/// `n / 10^decimals` with `decimals` digits after the point (and one before it at
/// least), written at the end of `buf`; returns where it starts. `n < 2^64` has at most
/// 20 digits: with the point, the sign and the padding they fit in 32 bytes.
fn digits_before(buf: &mut [u8; 32], mut n: u64, decimals: usize) -> usize {
    let mut at = buf.len();
    let mut written = 0;
    while n > 0 || written <= decimals {
        if decimals > 0 && written == decimals {
            at -= 1;
            buf[at] = b'.';
        }
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        written += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(v: f64) {
        for d in 0..=MAX_DECIMALS + 1 {
            let mut s = String::new();
            push_fixed(&mut s, v, d);
            assert_eq!(s, format!("{v:.d$}"), "{v:e} ({:#x}) to {d} decimals", v.to_bits());
        }
        for (width, d) in [(8, 1), (12, 2), (3, 0), (40, 1)] {
            let mut s = String::from("t=");
            push_fixed_right(&mut s, v, width, d);
            assert_eq!(s, format!("t={v:>width$.d$}"), "{v:e} in {width}");
        }
    }

    #[test]
    fn edge_values_are_written_as_core_writes_them() {
        let two52 = (1u64 << 52) as f64;
        for v in [
            0.0,
            -0.0,
            // Exact ties, rounded to even: 0.25 -> 0.2, 0.35 is below its tie, 0.05 above.
            0.25,
            0.75,
            2.5,
            3.5,
            1.125,
            1.0625,
            0.35,
            0.05,
            0.0005,
            0.9999,
            0.99995,
            9.95,
            99.95,
            -0.01,
            -0.04,
            -2.5,
            f64::MIN_POSITIVE,
            5e-324,
            -5e-324,
            1e-20,
            two52 - 0.5,
            two52 - 1.0,
            two52,
            two52 + 1.0,
            1e300,
            f64::MAX,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            123456.789,
            99999999.95,
        ] {
            check(v);
            check(-v);
            // The doubles either side.
            check(f64::from_bits(v.to_bits().wrapping_add(1)));
            check(f64::from_bits(v.to_bits().wrapping_sub(1)));
        }
    }

    #[test]
    fn timestamps_margins_and_random_doubles_are_written_as_core_writes_them() {
        // Microsecond timestamps as `round_t` leaves them, and every multiple of 0.0005
        // (the ties of 3 decimals and their neighbours) over a range of margins.
        for i in 0..50_000u64 {
            check((i * 997) as f64 / 1e6);
            check(i as f64 * 0.0005 - 50.0);
        }
        // Random bit patterns over every exponent (xorshift64: a fixed sequence), and
        // random values where the fast path works.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..50_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check(f64::from_bits(x));
            check((x >> 11) as f64 / (1u64 << (x % 60)) as f64);
        }
    }
}
