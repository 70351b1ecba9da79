//! Hex page data (`PageEntry::data`) read straight into bytes: 16 digits at a time
//! where SSE2 is there ([`super::hex_sse2`]), the rest by pairs.

use super::Cursor;

impl Cursor<'_> {
    /// Hex text (either case), the digits `module::image`'s reader (the `hex` crate)
    /// accepts, into `out` (its allocation reused: [`super::reuse`]); whitespace, an escape
    /// or an odd length (which that reader handles or reports) gives up.
    pub(super) fn hex(&mut self, out: &mut Vec<u8>) -> Option<()> {
        self.eat(b'"')?;
        let rest = &self.b[self.i..];
        out.clear();
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of the x86_64 baseline: every CPU this build runs on has it.
        let lead = unsafe { super::hex_sse2::leading_digits(rest, out) };
        #[cfg(not(target_arch = "x86_64"))]
        let lead = 0;
        // The digits left (none, one, or those too near the line's end), up to the quote.
        let tail = &rest[lead..];
        let s = match tail.first() {
            Some(b'"') => &[],
            _ => &tail[..memchr::memchr(b'"', tail)?],
        };
        if s.len() % 2 != 0 {
            return None;
        }
        let mut bad = 0;
        out.extend(s.chunks_exact(2).map(|pair| {
            let value = HEX_PAIR[usize::from(u16::from_le_bytes([pair[0], pair[1]]))];
            bad |= value;
            value as u8
        }));
        super::reuse::trim(out);
        self.i += lead + s.len() + 1;
        (bad & 0xff00 == 0).then_some(())
    }
}

/// Value of each hex digit, 0xff for any other byte.
const HEX_DIGIT: [u8; 256] = {
    let mut table = [0xff; 256];
    let mut c = 0;
    while c < 10 {
        table[b'0' as usize + c] = c as u8;
        c += 1;
    }
    let mut c = 0;
    while c < 6 {
        table[b'a' as usize + c] = 10 + c as u8;
        table[b'A' as usize + c] = 10 + c as u8;
        c += 1;
    }
    table
};

/// The byte two hex digits spell, indexed by the pair as a little-endian u16 (the first
/// digit in the low byte); 0x100 for any pair that is not two digits. One lookup per
/// byte instead of two, and a shift and an OR fewer.
static HEX_PAIR: [u16; 1 << 16] = {
    let mut table = [0x100; 1 << 16];
    let mut high = 0;
    while high < 256 {
        let mut low = 0;
        while low < 256 {
            let (h, l) = (HEX_DIGIT[high], HEX_DIGIT[low]);
            if h != 0xff && l != 0xff {
                table[high | low << 8] = (h << 4 | l) as u16;
            }
            low += 1;
        }
        high += 1;
    }
    table
};
