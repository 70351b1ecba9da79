//! Short byte copies without a `memcpy` call: a CSV row is some twenty copies of a few
//! bytes each (cells, runs of shared cells), where a call per copy cost more than the
//! bytes. Fixed-size chunks, which compile to plain loads and stores, the last one
//! overlapping the one before it.

/// `dst[..src.len()].copy_from_slice(src)`, by fixed-size chunks.
#[inline]
pub fn copy(dst: &mut [u8], src: &[u8]) {
    let n = src.len();
    let dst = &mut dst[..n];
    if n >= 16 {
        let mut at = 0;
        while at + 16 < n {
            chunk::<16>(dst, src, at);
            at += 16;
        }
        chunk::<16>(dst, src, n - 16);
    } else if n >= 8 {
        chunk::<8>(dst, src, 0);
        chunk::<8>(dst, src, n - 8);
    } else if n >= 4 {
        chunk::<4>(dst, src, 0);
        chunk::<4>(dst, src, n - 4);
    } else if n >= 2 {
        chunk::<2>(dst, src, 0);
        chunk::<2>(dst, src, n - 2);
    } else if n == 1 {
        dst[0] = src[0];
    }
}

/// Bytes `at..at + N` of `src` into the same place of `dst`.
#[inline(always)]
fn chunk<const N: usize>(dst: &mut [u8], src: &[u8], at: usize) {
    let mut c = [0; N];
    c.copy_from_slice(&src[at..][..N]);
    dst[at..][..N].copy_from_slice(&c);
}

#[cfg(test)]
mod tests {
    #[test]
    fn copies_every_length() {
        let src: Vec<u8> = (1..=70).collect();
        for n in 0..=src.len() {
            let mut dst = [0u8; 72];
            super::copy(&mut dst, &src[..n]);
            assert_eq!(&dst[..n], &src[..n], "{n}");
            assert!(dst[n..].iter().all(|b| *b == 0), "{n}");
        }
    }
}
