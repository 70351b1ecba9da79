//! A float cell as the csv crate writes it (through `ryu`: the shortest digits that read
//! back to the same f64, `NaN`, `inf`, `-inf`), by `zmij`: the same digits in less than
//! half the time. The two differ in one spelling only: zmij signs positive exponents
//! (`5.9077e+16`), ryu does not (`5.9077e16`), so the sign is dropped. A test holds the
//! two to the same bytes.

/// Longest text: `-2.2250738585072014e-308` (sign, 17 digits, point, exponent).
pub const MAX_LEN: usize = 24;

/// Formats floats into a caller's fixed buffer.
#[derive(Default)]
pub struct FloatText {
    zmij: zmij::Buffer,
}

impl FloatText {
    /// Writes `v` into `into`; returns its length.
    #[inline]
    pub fn write(&mut self, v: f64, into: &mut [u8; MAX_LEN]) -> usize {
        let s = self.zmij.format(v).as_bytes();
        let n = s.len().min(MAX_LEN);
        super::short_copy::copy(into, &s[..n]);
        // Both print plain decimals below 1e16 (ryu's switch to exponents): checking from
        // 1e15 on is on the safe side; only larger magnitudes (and infinities: no `+`)
        // can hold the exponent's sign.
        if v.abs() < 1e15 {
            return n;
        }
        match into[..n].iter().position(|b| *b == b'+') {
            Some(p) => {
                into.copy_within(p + 1..n, p);
                n - 1
            }
            None => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts zmij's cell is ryu's for `v`.
    fn same(ft: &mut FloatText, ryu: &mut ryu::Buffer, v: f64) {
        let mut text = [0; MAX_LEN];
        let n = ft.write(v, &mut text);
        assert_eq!(std::str::from_utf8(&text[..n]).unwrap(), ryu.format(v), "{:#x}", v.to_bits());
    }

    #[test]
    fn zmij_cells_are_ryus() {
        let (mut ft, mut ryu) = (FloatText::default(), ryu::Buffer::new());
        let mut check = |v: f64| {
            same(&mut ft, &mut ryu, v);
            same(&mut ft, &mut ryu, -v);
        };
        // splitmix64: every bit pattern is as likely (NaNs, infinities, subnormals included).
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for _ in 0..200_000 {
            check(f64::from_bits(next()));
        }
        // Subnormals (biased exponent 0), random mantissas and the extremes.
        for _ in 0..20_000 {
            check(f64::from_bits(next() & ((1 << 52) - 1)));
        }
        for v in [0.0, f64::MIN_POSITIVE, 5e-324, f64::MAX, f64::EPSILON, f64::INFINITY, f64::NAN, 1.0, 0.1 + 0.2] {
            check(v);
        }
        // Where ryu switches to exponents (1e16) and back (1e-5 .. 1e-7): every power of
        // ten's neighbours, random values between, and decimal-looking values.
        for e in -7..=17 {
            let p = 10f64.powi(e);
            for k in -3i64..=3 {
                check(f64::from_bits(p.to_bits().wrapping_add_signed(k)));
            }
        }
        for _ in 0..50_000 {
            let u = (next() >> 11) as f64 / (1u64 << 53) as f64;
            check(1e15 + u * (1e17 - 1e15));
            check(1e-7 + u * (1e-5 - 1e-7));
            // A few decimal digits at a random scale: what monitors and counters print.
            check((next() % 1_000_000) as f64 * 10f64.powi((next() % 40) as i32 - 20));
        }
    }
}
