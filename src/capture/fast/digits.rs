//! Non-negative JSON integers (counters, page numbers) read eight digits at a time: one
//! 8-byte load finds how many leading bytes are digits and converts them together
//! (SWAR), instead of a branch and a multiply per digit.

use super::Cursor;

impl Cursor<'_> {
    /// A non-negative JSON integer that fits a u64 (anything else: serde decides, which
    /// for an integer field means an error or a conversion the caller does not make).
    #[inline(always)]
    pub(super) fn u64(&mut self) -> Option<u64> {
        self.ws();
        let rest = &self.b[self.i..];
        let (n, v) = match short(rest).or_else(|| chunked(rest)) {
            Some(read) => read,
            None => checked(rest)?,
        };
        // RFC 8259 section 6: no leading zeros; a fraction or exponent makes it a float.
        if n == 0 || (n > 1 && rest[0] == b'0') || matches!(rest.get(n), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        self.i += n;
        Some(v)
    }

    /// `[n,n,...]` as the writer writes counters (no whitespace, none longer than 15
    /// digits), at most `max` of them, appended to `v`: what [`Cursor::u64`] in an array
    /// reads, without its per-element checks. `None` at the first byte off that shape
    /// (the caller rereads the array).
    pub(super) fn compact_counters(&mut self, v: &mut Vec<u64>, max: usize) -> Option<()> {
        self.ws();
        let b = self.b;
        let mut i = self.i;
        (b.get(i) == Some(&b'[')).then_some(())?;
        i += 1;
        if b.get(i) == Some(&b']') {
            self.i = i + 1;
            return Some(());
        }
        loop {
            let (n, value) = chunked(&b[i..])?;
            // RFC 8259 section 6: a digit, no leading zero; the delimiter right after rules
            // out a fraction or exponent.
            if n == 0 || (n > 1 && b[i] == b'0') || v.len() == max {
                return None;
            }
            v.push(value);
            i += n + 1;
            match b.get(i - 1) {
                Some(b',') => {}
                Some(b']') => {
                    self.i = i;
                    return Some(());
                }
                _ => return None,
            }
        }
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// 10^0..10^7 as integers, the scale of a chunk of fewer than eight digits.
const POW10_U64: [u64; 8] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000];

/// The number of leading ASCII digits of `rest` and their value, when there are at most
/// three and a byte follows them (page numbers, offsets, addresses: a byte per digit is
/// cheaper than a chunk); else `None`.
#[inline(always)]
fn short(rest: &[u8]) -> Option<(usize, u64)> {
    let &[a, b, c, d, ..] = rest else { return None };
    let digit = |x: u8| u64::from(x.wrapping_sub(b'0'));
    let (a, b, c) = (digit(a), digit(b), digit(c));
    match (a < 10, b < 10, c < 10, digit(d) < 10) {
        (false, ..) => Some((0, 0)),
        (true, false, ..) => Some((1, a)),
        (true, true, false, _) => Some((2, a * 10 + b)),
        (true, true, true, false) => Some((3, a * 100 + b * 10 + c)),
        (true, true, true, true) => None,
    }
}

/// The number of leading ASCII digits of `rest` and their value, when there are at most
/// 15 (no overflow) and the 8-byte loads stay inside `rest`; else `None` ([`checked`]).
#[inline(always)]
fn chunked(rest: &[u8]) -> Option<(usize, u64)> {
    let first = u64::from_le_bytes(*rest.first_chunk::<8>()?);
    let n = leading_digits(first);
    if n < 8 {
        return Some((n, leading_value(first, n)));
    }
    let second = u64::from_le_bytes(*rest.get(8..)?.first_chunk::<8>()?);
    let m = leading_digits(second);
    (m < 8).then(|| (8 + m, eight_digits(first.wrapping_sub(ONES * u64::from(b'0'))) * POW10_U64[m] + leading_value(second, m)))
}

/// Digit by digit, refusing a value past u64 (serde then reports it).
#[cold]
#[inline(never)]
fn checked(rest: &[u8]) -> Option<(usize, u64)> {
    let n = rest.iter().take_while(|c| c.is_ascii_digit()).count();
    let v = rest[..n].iter().try_fold(0u64, |v, c| v.checked_mul(10)?.checked_add(u64::from(c - b'0')))?;
    Some((n, v))
}

/// How many of the 8 bytes of `chars` (the first in the low byte) are digits before the
/// first one that is not.
fn leading_digits(chars: u64) -> usize {
    // Bit 7 set: below '0' (the subtraction wraps) or above '9' (the addition reaches 0x80).
    // Bytes past the first non-digit may be wrong: borrows and carries only run upwards.
    let not_digit = (chars.wrapping_sub(ONES * 0x30) | chars.wrapping_add(ONES * 0x46)) & ONES * 0x80;
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of the first `n` (< 8) bytes of `chars`, all digits.
fn leading_value(chars: u64, n: usize) -> u64 {
    // The digits to the top bytes, leading zeros below them; no digits (a shift by 64) is 0.
    let values = chars.wrapping_sub(ONES * u64::from(b'0'));
    values.checked_shl(8 * (8 - n) as u32).map_or(0, eight_digits)
}

/// The number of eight decimal digit values, one per byte, the most significant in the
/// lowest byte (leading zeros allowed): pairs, then fours, then eight (SWAR).
fn eight_digits(v: u64) -> u64 {
    let pairs = (v.wrapping_mul(10) + (v >> 8)) & 0x00ff_00ff_00ff_00ff;
    let fours = (pairs.wrapping_mul(100) + (pairs >> 16)) & 0x0000_ffff_0000_ffff;
    (fours.wrapping_mul(10_000) + (fours >> 32)) & 0xffff_ffff
}
