//! Which module this is: the bytes a swap changes. The sampler uses them to notice a
//! swap while sampling, the engine to start a new segment when the module changed.

use super::map::Field;
use super::{ModuleImage, I2C_A0};

/// SFF-8024 Table 4-1: byte 0 of every standard says what kind of module this is.
pub(crate) const IDENTIFIER: Field = Field::new("identifier", I2C_A0, 0, 0, 1);

/// Bytes that say which module this is: the identifier and, where the standard is known,
/// the vendor serial number (what a swap changes).
pub(crate) fn identity_fields(img: &ModuleImage) -> Vec<Field> {
    let sn = super::standard_of(img).ok().map(super::vendor_sn_field);
    std::iter::once(IDENTIFIER).chain(sn).collect()
}

/// Identifier byte followed by the vendor SN bytes (those present): equal fingerprints =
/// the same module. `None` when the image has no identifier.
pub fn fingerprint(img: &ModuleImage) -> Option<Vec<u8>> {
    IDENTIFIER.read(img, 0)?;
    Some(identity_fields(img).iter().filter_map(|f| f.read(img, 0)).flatten().copied().collect())
}
