//! Hex digits sixteen at a time with SSE2 (part of every x86_64 CPU): checked and
//! converted in 16-byte registers instead of one table lookup per pair, and the run's
//! end (its closing quote, or any byte that is not a digit) found on the way.

use std::arch::x86_64::*;

/// Decodes the hex digits (either case) at the start of `text`, appending the bytes to
/// `out`, while 16 bytes can be loaded: the bytes the `hex` crate (and
/// [`super::page_hex`]'s table) gives for them. Returns how many digits it took: all the
/// leading ones but at most one (an odd count is left to the caller) when it stopped at
/// a byte that is not a digit, a multiple of 16 when it reached `text`'s last 15 bytes.
#[target_feature(enable = "sse2")]
pub(super) fn leading_digits(text: &[u8], out: &mut Vec<u8>) -> usize {
    let mut n = 0;
    // 32 digits per step while there are: one check and one 16-byte append.
    while let Some(chunk) = text.get(n..).and_then(<[u8]>::first_chunk::<32>) {
        let (first, second) = chunk.split_at(16);
        let ((16, a), (16, b)) = (sixteen(first), sixteen(second)) else { break };
        let bytes = _mm_packus_epi16(a, b);
        let (low, high) = (_mm_cvtsi128_si64(bytes), _mm_cvtsi128_si64(_mm_unpackhi_epi64(bytes, bytes)));
        out.extend_from_slice(&(u128::from(low as u64) | u128::from(high as u64) << 64).to_le_bytes());
        n += 32;
    }
    while let Some(chunk) = text.get(n..).and_then(<[u8]>::first_chunk::<16>) {
        let (digits, pairs) = sixteen(chunk);
        let bytes = (_mm_cvtsi128_si64(_mm_packus_epi16(pairs, pairs)) as u64).to_le_bytes();
        let whole = digits / 2;
        out.extend_from_slice(&bytes[..whole]);
        n += 2 * whole;
        if digits < 16 {
            break;
        }
    }
    n
}

/// How many of the 16 bytes are hex digits before the first that is not, and in each
/// 16-bit lane's low byte the byte a pair spells (those past that first non-digit are
/// meaningless).
#[target_feature(enable = "sse2")]
fn sixteen(chars: &[u8]) -> (usize, __m128i) {
    let half = |h: &[u8]| h.first_chunk::<8>().map_or(0, |h| i64::from_le_bytes(*h));
    let v = _mm_set_epi64x(half(chars.get(8..).unwrap_or_default()), half(chars));
    // Signed compares: a byte from 0x80 up is negative, below '0' and below 'a'.
    let digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8(b'0' as i8 - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8(b'9' as i8 + 1)));
    // Bit 5 set folds 'A'..'F' onto 'a'..'f' (and nothing else onto them).
    let lower = _mm_or_si128(v, _mm_set1_epi8(0x20));
    let letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8(b'a' as i8 - 1)), _mm_cmplt_epi8(lower, _mm_set1_epi8(b'f' as i8 + 1)));
    let valid = _mm_movemask_epi8(_mm_or_si128(digit, letter)) as u32;
    // '0'..'9' -> 0..9, 'a'..'f' and 'A'..'F' -> 1..6 + 9.
    let nibbles = _mm_add_epi8(_mm_and_si128(v, _mm_set1_epi8(0x0f)), _mm_and_si128(letter, _mm_set1_epi8(9)));
    // Per 16-bit lane (first digit in the low byte): first << 4 | second, in the low byte.
    let pairs = _mm_and_si128(_mm_or_si128(_mm_slli_epi16(nibbles, 4), _mm_srli_epi16(nibbles, 8)), _mm_set1_epi16(0xff));
    ((!valid).trailing_zeros() as usize, pairs)
}
