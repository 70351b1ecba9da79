//! Memory maps as data: every decoder describes what it reads as a table of [`Field`]s,
//! and a unit test per standard checks that the table has no overlaps.

use super::image::{HalfView, ModuleImage};

/// A fixed-position field of a module memory map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The field's name in the spec's table, for messages and overlap tests.
    pub name: &'static str,
    pub(crate) i2c_address: u8,
    pub(crate) page: u8,
    pub(crate) offset: u8,
    pub(crate) len: u8,
}

impl Field {
    /// A field of `len` bytes at `offset` (0-255) of `page` at `i2c_address`.
    pub const fn new(name: &'static str, i2c_address: u8, page: u8, offset: u8, len: u8) -> Self {
        Field { name, i2c_address, page, offset, len }
    }

    /// The field's bytes in `bank`, if the image holds all of them.
    pub(crate) fn read<'a>(&self, img: &'a ModuleImage, bank: u8) -> Option<&'a [u8]> {
        img.bytes(self.i2c_address, self.page, bank, self.offset, self.len as usize)
    }

    /// The field's bytes in a half page already looked up (the one holding `offset`).
    pub(crate) fn read_in<'a>(&self, half: HalfView<'a>) -> Option<&'a [u8]> {
        half.bytes(self.offset, self.len as usize)
    }

    /// The field as a 16-bit big-endian word (the field must be 2 bytes long).
    pub(crate) fn word(&self, img: &ModuleImage, bank: u8) -> Option<[u8; 2]> {
        debug_assert_eq!(self.len, 2, "{} is not a word", self.name);
        self.read(img, bank).map(|b| [b[0], b[1]])
    }

    /// The field's first byte in `bank`, if the image holds it.
    pub fn byte(&self, img: &ModuleImage, bank: u8) -> Option<u8> {
        self.read(img, bank).map(|b| b[0])
    }

    /// ASCII field with trailing spaces (and NULs) trimmed; non-printable bytes become '?'.
    /// An all-blank field is `None`: the module does not say.
    pub(crate) fn ascii(&self, img: &ModuleImage, bank: u8) -> Option<String> {
        self.read(img, bank).map(ascii_trimmed).filter(|s| !s.is_empty())
    }

    /// Lower memory is shared by every page, so (address, offset < 128) collide across pages.
    #[cfg(test)]
    fn span(&self) -> (u8, Option<u8>, u16, u16) {
        let page = if self.offset < 128 { None } else { Some(self.page) };
        (self.i2c_address, page, self.offset as u16, self.offset as u16 + self.len as u16)
    }
}

pub(crate) fn ascii_trimmed(bytes: &[u8]) -> String {
    let s: String = bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else if b == 0 {
                ' '
            } else {
                '?'
            }
        })
        .collect();
    s.trim_end().to_string()
}

/// Names of the first pair of overlapping fields in `fields`, if any (the tests of every
/// memory map hold their tables to it).
#[cfg(test)]
pub(crate) fn first_overlap(fields: &[Field]) -> Option<(&'static str, &'static str)> {
    for (i, a) in fields.iter().enumerate() {
        for b in &fields[i + 1..] {
            let (aa, ap, a0, a1) = a.span();
            let (ba, bp, b0, b1) = b.span();
            if aa == ba && ap == bp && a0 < b1 && b0 < a1 {
                return Some((a.name, b.name));
            }
        }
    }
    None
}

/// Fields that run past the end of their half page.
#[cfg(test)]
pub(crate) fn first_straddling(fields: &[Field]) -> Option<&'static str> {
    fields.iter().find(|f| f.len == 0 || (f.offset as u16 % 128) + f.len as u16 > 128).map(|f| f.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_detection() {
        let a = Field::new("a", 0x50, 0, 10, 2);
        let b = Field::new("b", 0x50, 0, 11, 1);
        let c = Field::new("c", 0x50, 3, 11, 1); // lower memory: same bytes as b
        let d = Field::new("d", 0x50, 3, 200, 2);
        let e = Field::new("e", 0x50, 2, 200, 2); // other page: no overlap
        assert_eq!(first_overlap(&[a, b]), Some(("a", "b")));
        assert_eq!(first_overlap(&[b, c]), Some(("b", "c")));
        assert_eq!(first_overlap(&[a, d, e]), None);
        assert_eq!(first_straddling(&[Field::new("x", 0x50, 0, 127, 2)]), Some("x"));
    }

    #[test]
    fn ascii_is_trimmed() {
        assert_eq!(ascii_trimmed(b"FINISAR CORP    "), "FINISAR CORP");
        assert_eq!(ascii_trimmed(&[b'A', 0x01, 0]), "A?");
    }
}
