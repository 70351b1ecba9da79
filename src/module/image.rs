//! A module's memory as a set of 128-byte half pages keyed by (I2C address, page, bank).
//!
//! Offsets 0-127 are lower memory, common to every page (SFF-8636 6.1, CMIS 5.2 8.1);
//! offsets 128-255 are the upper half of the selected page and bank. SFF-8472 A2h
//! (I2C 0x51) is addressed the same way: 0-127 diagnostics, 128-255 user / paged area.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// SFF-8472 A0h, and every page of SFF-8636 / CMIS modules.
pub const I2C_A0: u8 = 0x50;
/// SFF-8472 A2h (diagnostics).
pub const I2C_A2: u8 = 0x51;
pub(crate) const HALF_PAGE_LEN: usize = 128;

/// Identifies one half page. Lower memory is always stored as page 0, bank 0, `upper == false`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct HalfPageKey {
    pub(crate) i2c_address: u8,
    pub(crate) page: u8,
    pub(crate) bank: u8,
    pub(crate) upper: bool,
}

impl HalfPageKey {
    /// The half page that holds `offset` (0-255) when `page`/`bank` are selected.
    pub(crate) fn for_offset(i2c_address: u8, page: u8, bank: u8, offset: u8) -> Self {
        if offset < 128 {
            HalfPageKey { i2c_address, page: 0, bank: 0, upper: false }
        } else {
            HalfPageKey { i2c_address, page, bank, upper: true }
        }
    }
    /// First byte offset (0 or 128) of this half page.
    pub(crate) fn base_offset(&self) -> u8 {
        if self.upper {
            128
        } else {
            0
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct HalfPage {
    data: [u8; HALF_PAGE_LEN],
    /// Bit i set: byte i of this half page was supplied.
    present: u128,
}

impl HalfPage {
    fn empty() -> Self {
        HalfPage { data: [0; HALF_PAGE_LEN], present: 0 }
    }
}

/// One half page of an image (`ModuleImage::half_view`): reads answer as
/// [`ModuleImage::bytes`] does, without looking the half page up again.
#[derive(Clone, Copy, Debug)]
pub struct HalfView<'a> {
    data: &'a [u8; HALF_PAGE_LEN],
    present: u128,
}

impl<'a> HalfView<'a> {
    /// `len` bytes from `offset` (0-255, taken within this half page), only if every one
    /// was supplied and they lie in the half page.
    pub(crate) fn bytes(&self, offset: u8, len: usize) -> Option<&'a [u8]> {
        let start = usize::from(offset) % HALF_PAGE_LEN;
        if len == 0 || start + len > HALF_PAGE_LEN {
            return None;
        }
        let mask = if len == HALF_PAGE_LEN { u128::MAX } else { ((1u128 << len) - 1) << start };
        (self.present & mask == mask).then(|| &self.data[start..start + len])
    }

    /// True when any byte of the half page was supplied.
    pub(crate) fn any(&self) -> bool {
        self.present != 0
    }

    /// The byte at `offset` (0-255, taken within this half page), if it was supplied.
    pub fn byte(&self, offset: u8) -> Option<u8> {
        let i = usize::from(offset) % HALF_PAGE_LEN;
        (self.present & (1u128 << i) != 0).then_some(self.data[i])
    }
}

/// Why a run of bytes cannot go into a [`ModuleImage`].
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ImageError {
    /// The run crosses a 128-byte half-page boundary.
    #[error("offset {offset} + length {len} crosses a half-page boundary (entries must lie inside one 128-byte half page)")]
    CrossesHalfPage {
        /// Offset of the first byte, 0-255.
        offset: u16,
        /// Number of bytes.
        len: usize,
    },
    /// Offsets 0-127 (lower memory) given for a page other than 0.
    #[error("page {page} has no lower half: offsets 0-127 belong to page 0 only")]
    LowerOfNonzeroPage {
        /// The page the entry named.
        page: u8,
    },
    /// The offset is past 255.
    #[error("offset {0} is outside 0-255")]
    OffsetOutOfRange(u16),
    /// The I2C address is not 7-bit.
    #[error("I2C address {0:#04x} is outside 0x00-0x7f")]
    BadI2cAddress(u16),
}

/// One contiguous run of bytes inside one half page: the entry of the module image JSON
/// format (docs/module-image-format.md) and of capture records.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
// The derived impls become inherent functions; the trait impls below only admit objects.
#[serde(remote = "Self")]
pub struct PageEntry {
    /// 7-bit I2C address: 0x50 (A0h) or 0x51 (A2h, SFF-8472 diagnostics).
    pub i2c_address: u8,
    /// Page number (the upper-memory page selected by byte 127).
    pub page: u8,
    /// CMIS bank (byte 126); 0 for SFF-8472 and SFF-8636, and when absent.
    #[serde(default)]
    pub bank: u8,
    /// Offset of the first byte, 0-255 (0-127 lower memory, 128-255 the page's upper half).
    pub offset: u16,
    /// The bytes, as a hex string in JSON.
    #[serde(with = "hex_bytes")]
    pub data: Vec<u8>,
}

impl Serialize for PageEntry {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        PageEntry::serialize(self, s)
    }
}

/// An entry is a JSON object: derived structs would also read `[80, 0, 0, 0, "18"]` as
/// positional fields, silently, whatever the array meant.
impl<'de> Deserialize<'de> for PageEntry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectOnly;
        impl<'de> serde::de::Visitor<'de> for ObjectOnly {
            type Value = PageEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object {\"i2c_address\", \"page\", \"bank\", \"offset\", \"data\"}")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<PageEntry, A::Error> {
                PageEntry::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(ObjectOnly)
    }
}

mod hex_bytes {
    use serde::{Deserializer, Serializer};
    pub(crate) fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&hex::encode(v))
    }
    /// Decodes the string where the parser holds it (no copy); whitespace is allowed.
    struct HexVisitor;

    impl serde::de::Visitor<'_> for HexVisitor {
        type Value = Vec<u8>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a hex string")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Vec<u8>, E> {
            if s.bytes().any(|b| b.is_ascii_whitespace()) {
                let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
                return decode(&compact).map_err(E::custom);
            }
            decode(s).map_err(E::custom)
        }
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_str(HexVisitor)
    }

    /// `hex::decode` into a buffer sized once (its errors, odd length first): a capture
    /// decodes a few hundred bytes of hex per sample, and the collecting decoder was a
    /// tenth of replay time.
    fn decode(s: &str) -> Result<Vec<u8>, hex::FromHexError> {
        let mut out = vec![0; s.len() / 2];
        hex::decode_to_slice(s, &mut out)?;
        Ok(out)
    }
}

impl HalfPageKey {
    /// The key as one integer ordered like the derived `Ord` (address, page, bank, upper).
    fn packed(&self) -> u32 {
        u32::from_be_bytes([self.i2c_address, self.page, self.bank, u8::from(self.upper)])
    }
    fn unpacked(k: u32) -> Self {
        let [i2c_address, page, bank, upper] = k.to_be_bytes();
        HalfPageKey { i2c_address, page, bank, upper: upper != 0 }
    }
}

/// The bytes of a module that some source supplied, possibly incomplete.
///
/// Half pages are keyed by `HalfPageKey::packed`: a sample's decode reads a few dozen
/// fields, and a tree search over integers costs a fraction of one over the key struct.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ModuleImage {
    halves: BTreeMap<u32, HalfPage>,
}

impl std::fmt::Debug for ModuleImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModuleImage").field("halves", &self.halves().collect::<Vec<_>>()).finish()
    }
}

impl ModuleImage {
    /// An empty image.
    pub fn new() -> Self {
        Self::default()
    }

    fn half(&self, key: HalfPageKey) -> Option<&HalfPage> {
        self.halves.get(&key.packed())
    }

    /// The half page of `key`, created empty where absent.
    fn half_mut(&mut self, key: HalfPageKey) -> &mut HalfPage {
        self.halves.entry(key.packed()).or_insert_with(HalfPage::empty)
    }

    /// Every half page held (also empty ones), in key order.
    fn halves(&self) -> impl Iterator<Item = (HalfPageKey, &HalfPage)> + '_ {
        self.halves.iter().map(|(k, h)| (HalfPageKey::unpacked(*k), h))
    }

    /// Stores `data` at `offset` (0-255) of `page`/`bank`; the run must stay in one half page.
    pub fn insert(&mut self, i2c_address: u8, page: u8, bank: u8, offset: u16, data: &[u8]) -> Result<(), ImageError> {
        if i2c_address > 0x7f {
            return Err(ImageError::BadI2cAddress(i2c_address as u16));
        }
        if offset > 255 {
            return Err(ImageError::OffsetOutOfRange(offset));
        }
        if data.is_empty() {
            return Ok(());
        }
        let half_end = if offset < 128 { 128 } else { 256 };
        if offset as usize + data.len() > half_end {
            return Err(ImageError::CrossesHalfPage { offset, len: data.len() });
        }
        if offset < 128 && (page != 0 || bank != 0) {
            return Err(ImageError::LowerOfNonzeroPage { page });
        }
        let key = HalfPageKey::for_offset(i2c_address, page, bank, offset as u8);
        let half = self.half_mut(key);
        let start = offset as usize % HALF_PAGE_LEN;
        // start + len <= 128 (checked above), len >= 1.
        half.data[start..start + data.len()].copy_from_slice(data);
        let mask = if data.len() == HALF_PAGE_LEN { u128::MAX } else { ((1u128 << data.len()) - 1) << start };
        half.present |= mask;
        Ok(())
    }

    /// Inserts a run that may span several half pages of the same page (e.g. 256 bytes
    /// starting at offset 0 of page 0).
    pub fn insert_span(&mut self, i2c_address: u8, page: u8, bank: u8, offset: u16, data: &[u8]) -> Result<(), ImageError> {
        let mut off = offset;
        let mut rest = data;
        while !rest.is_empty() {
            let half_end: u16 = if off < 128 { 128 } else { 256 };
            if off >= 256 {
                return Err(ImageError::OffsetOutOfRange(off));
            }
            let n = ((half_end - off) as usize).min(rest.len());
            let (pg, bk) = if off < 128 { (0, 0) } else { (page, bank) };
            self.insert(i2c_address, pg, bk, off, &rest[..n])?;
            off += n as u16;
            rest = &rest[n..];
        }
        Ok(())
    }

    /// Adds one [`PageEntry`]'s bytes (see [`ModuleImage::insert`]).
    pub fn insert_entry(&mut self, e: &PageEntry) -> Result<(), ImageError> {
        self.insert(e.i2c_address, e.page, e.bank, e.offset, &e.data)
    }

    /// Copies every byte of `other` into `self` (later values win).
    pub(crate) fn merge(&mut self, other: &ModuleImage) {
        for (key, half) in other.halves() {
            let mine = self.half_mut(key);
            for i in 0..HALF_PAGE_LEN {
                if half.present & (1u128 << i) != 0 {
                    mine.data[i] = half.data[i];
                    mine.present |= 1u128 << i;
                }
            }
        }
    }

    /// One byte at `offset` (0-255) with `page`/`bank` selected, if supplied.
    pub fn byte(&self, i2c_address: u8, page: u8, bank: u8, offset: u8) -> Option<u8> {
        self.half_view(i2c_address, page, bank, offset)?.byte(offset)
    }

    /// `len` bytes from `offset`, only if every one was supplied and they lie in one half page.
    pub fn bytes(&self, i2c_address: u8, page: u8, bank: u8, offset: u8, len: usize) -> Option<&[u8]> {
        self.half_view(i2c_address, page, bank, offset)?.bytes(offset, len)
    }

    /// The half page that holds `offset` with `page`/`bank` selected, if any of it was
    /// supplied: a decoder reading many fields of one half page looks it up once.
    pub(crate) fn half_view(&self, i2c_address: u8, page: u8, bank: u8, offset: u8) -> Option<HalfView<'_>> {
        let half = self.half(HalfPageKey::for_offset(i2c_address, page, bank, offset))?;
        Some(HalfView { data: &half.data, present: half.present })
    }

    /// True when any byte of the upper half of `page`/`bank` was supplied.
    pub fn has_upper_page(&self, i2c_address: u8, page: u8, bank: u8) -> bool {
        self.half_view(i2c_address, page, bank, 128).is_some_and(|h| h.any())
    }

    /// True when the whole lower half of `i2c_address` was supplied.
    pub fn has_lower(&self, i2c_address: u8) -> bool {
        self.bytes(i2c_address, 0, 0, 0, HALF_PAGE_LEN).is_some()
    }

    /// True when the upper half of `page`/`bank` (not page 00h) reads byte for byte as
    /// upper page 00h, which holds identity text no other page carries: the reader
    /// never selected the page (its page select, byte 127 of SFF-8636 Rev 2.11 6.1 and
    /// CMIS 5.2 8.2.1, went unwritten, as in an ice driver that encoded the page number
    /// with the field's shift instead of its mask) and was answered page 00h again. A
    /// page 00h of one repeated byte (a blank or unanswered EEPROM) proves nothing.
    pub(crate) fn echoes_page00(&self, i2c_address: u8, page: u8, bank: u8) -> bool {
        if page == 0 && bank == 0 {
            return false;
        }
        let (Some(this), Some(p00)) =
            (self.bytes(i2c_address, page, bank, 128, HALF_PAGE_LEN), self.bytes(i2c_address, 0, 0, 128, HALF_PAGE_LEN))
        else {
            return false;
        };
        this == p00 && p00.iter().any(|b| *b != p00[0])
    }

    /// Every upper half page of `i2c_address` that [echoes page 00h](Self::echoes_page00),
    /// as (page, bank).
    pub(crate) fn echoed_pages(&self, i2c_address: u8) -> Vec<(u8, u8)> {
        self.halves()
            .filter(|(k, _)| k.i2c_address == i2c_address && k.upper)
            .map(|(k, _)| (k.page, k.bank))
            .filter(|&(page, bank)| self.echoes_page00(i2c_address, page, bank))
            .collect()
    }

    /// This image without the upper halves of `pages` (page, bank) of `i2c_address`: the
    /// image as a reader that skipped them would have filled it. Borrowed when there are none.
    pub(crate) fn without_upper(&self, i2c_address: u8, pages: &[(u8, u8)]) -> std::borrow::Cow<'_, ModuleImage> {
        if pages.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut out = self.clone();
        for &(page, bank) in pages {
            out.halves.remove(&HalfPageKey { i2c_address, page, bank, upper: true }.packed());
        }
        std::borrow::Cow::Owned(out)
    }

    /// True when no byte was supplied.
    pub fn is_empty(&self) -> bool {
        self.halves.values().all(|h| h.present == 0)
    }

    /// Number of bytes supplied.
    pub fn len(&self) -> usize {
        self.halves.values().map(|h| h.present.count_ones() as usize).sum()
    }

    /// The half pages held, in key order.
    pub(crate) fn keys(&self) -> impl Iterator<Item = HalfPageKey> + '_ {
        self.halves().filter(|(_, h)| h.present != 0).map(|(k, _)| k)
    }

    /// The image as contiguous runs, one entry per run, in key order.
    pub(crate) fn entries(&self) -> Vec<PageEntry> {
        let mut out = Vec::new();
        for (key, half) in self.halves() {
            let mut i = 0;
            while i < HALF_PAGE_LEN {
                if half.present & (1u128 << i) == 0 {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < HALF_PAGE_LEN && half.present & (1u128 << i) != 0 {
                    i += 1;
                }
                out.push(PageEntry {
                    i2c_address: key.i2c_address,
                    page: key.page,
                    bank: key.bank,
                    offset: key.base_offset() as u16 + start as u16,
                    data: half.data[start..i].to_vec(),
                });
            }
        }
        out
    }

    pub(crate) fn from_entries<'a>(entries: impl IntoIterator<Item = &'a PageEntry>) -> Result<Self, ImageError> {
        let mut img = ModuleImage::new();
        for e in entries {
            img.insert_entry(e)?;
        }
        Ok(img)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_memory_is_shared_by_every_page() {
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 0, 0, 2, &[0xaa]).unwrap();
        assert_eq!(img.byte(I2C_A0, 3, 1, 2), Some(0xaa));
        assert_eq!(img.byte(I2C_A0, 3, 1, 130), None);
    }

    #[test]
    fn bytes_require_every_byte_present() {
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 3, 0, 128, &[1, 2, 3]).unwrap();
        assert_eq!(img.bytes(I2C_A0, 3, 0, 129, 2), Some(&[2u8, 3][..]));
        assert_eq!(img.bytes(I2C_A0, 3, 0, 129, 3), None);
        assert!(img.has_upper_page(I2C_A0, 3, 0));
        assert!(!img.has_upper_page(I2C_A0, 3, 1));
    }

    #[test]
    fn rejects_runs_across_half_pages_and_lower_of_other_pages() {
        let mut img = ModuleImage::new();
        assert!(matches!(img.insert(I2C_A0, 0, 0, 120, &[0; 16]), Err(ImageError::CrossesHalfPage { .. })));
        assert_eq!(img.insert(I2C_A0, 2, 0, 0, &[0; 4]), Err(ImageError::LowerOfNonzeroPage { page: 2 }));
        assert_eq!(img.insert(0x80, 0, 0, 0, &[0]), Err(ImageError::BadI2cAddress(0x80)));
    }

    #[test]
    fn packed_keys_order_like_the_keys() {
        let keys = [(0x50, 0, 0, false), (0x50, 0, 0, true), (0x50, 0x11, 0, true), (0x50, 0x11, 3, true), (0x51, 0, 0, false)];
        let keys: Vec<HalfPageKey> =
            keys.iter().map(|&(i2c_address, page, bank, upper)| HalfPageKey { i2c_address, page, bank, upper }).collect();
        for (a, b) in keys.iter().zip(&keys[1..]) {
            assert!(a < b && a.packed() < b.packed());
        }
        assert!(keys.iter().all(|k| HalfPageKey::unpacked(k.packed()) == *k));
    }

    #[test]
    fn a_page_that_reads_as_page_00h_is_an_echo() {
        let mut img = ModuleImage::new();
        let p00: Vec<u8> = (0..128u8).collect();
        img.insert(I2C_A0, 0, 0, 128, &p00).unwrap();
        img.insert(I2C_A0, 3, 0, 128, &p00).unwrap();
        img.insert(I2C_A0, 2, 0, 128, &[0; 128]).unwrap();
        assert!(img.echoes_page00(I2C_A0, 3, 0));
        assert!(!img.echoes_page00(I2C_A0, 2, 0));
        assert!(!img.echoes_page00(I2C_A0, 0, 0));
        // Part of the page, or a page 00h of one repeated byte, is no proof.
        img.insert(I2C_A0, 1, 0, 128, &p00[..64]).unwrap();
        assert!(!img.echoes_page00(I2C_A0, 1, 0));
        let mut blank = ModuleImage::new();
        blank.insert(I2C_A0, 0, 0, 128, &[0xff; 128]).unwrap();
        blank.insert(I2C_A0, 3, 0, 128, &[0xff; 128]).unwrap();
        assert!(!blank.echoes_page00(I2C_A0, 3, 0));
        assert_eq!(img.echoed_pages(I2C_A0), vec![(3, 0)]);
        let clean = img.without_upper(I2C_A0, &[(3, 0)]);
        assert!(!clean.has_upper_page(I2C_A0, 3, 0) && clean.has_upper_page(I2C_A0, 2, 0) && clean.has_upper_page(I2C_A0, 0, 0));
        assert!(matches!(img.without_upper(I2C_A0, &[]), std::borrow::Cow::Borrowed(_)));
    }

    #[test]
    fn entries_round_trip() {
        let mut img = ModuleImage::new();
        img.insert_span(I2C_A0, 0, 0, 0, &[7u8; 256]).unwrap();
        img.insert(I2C_A0, 0x11, 2, 200, &[1, 2]).unwrap();
        let entries = img.entries();
        assert_eq!(entries.len(), 3);
        assert_eq!(ModuleImage::from_entries(&entries).unwrap(), img);
        assert_eq!(img.len(), 258);
    }
}
