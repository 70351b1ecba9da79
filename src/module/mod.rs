//! Module EEPROM decoding. No I/O here: decoders read a [`ModuleImage`] that any
//! source (netlink, ioctl, I2C, a file, a capture) filled.
//!
//! - [`sff8024`]: identifier / connector / encoding code tables shared by all standards.
//! - [`sff8472`]: SFP/SFP+ (A0h identity, A2h diagnostics with internal/external calibration).
//! - [`sff8636`]: QSFP+/QSFP28 (SFF-8636, and SFF-8436 which it supersedes).
//! - [`cmis`]: CMIS 4.0/5.x (QSFP-DD, OSFP, QSFP112, ...).
//! - [`vdm`]: the decoded CMIS VDM model (per-lane eSNR, PAM4 LTP, pre-FEC BER).
//! - [`threshold`]: a monitor's alarm and warning thresholds; `clone`: field-wise `Clone`
//!   for the models a monitor refresh rewrites per sample.
//! - [`flag`]: the module flags (status and threshold bits) every decoder reports.
//! - [`state`]: the CMIS module and data path states.
//! - [`fingerprint`]: the identity bytes (identifier + vendor SN) that tell one module from another.
//! - [`input`]: file formats a user may hand us (image JSON, flat binary, hex text).
//! - [`printed`]: module monitors as a tool printed them (no EEPROM bytes), from imports.

pub(crate) mod clone;
pub mod cmis;
pub mod fingerprint;
pub mod flag;
pub mod image;
pub mod input;
pub mod map;
pub mod monitors;
pub mod printed;
pub mod report;
pub mod sff8024;
pub mod sff8472;
pub mod sff8636;
pub mod state;
pub mod threshold;
pub mod units;
pub mod vdm;

pub use image::{HalfView, ModuleImage, PageEntry, I2C_A0, I2C_A2};
pub use report::{ModuleReport, Standard};

use thiserror::Error;

/// Why an image cannot be decoded at all.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    /// Byte 0 (SFF-8024 identifier) was not read.
    #[error("module image is empty: no byte 0 (identifier) was read")]
    NoIdentifier,
    /// Byte 0 names no standard optics decodes (SFF-8024 Table 4-1).
    #[error("unknown module identifier {name}: not an SFF-8472, SFF-8636 or CMIS module")]
    UnknownIdentifier {
        /// Byte 0.
        identifier: u8,
        /// Byte 0's name (SFF-8024 Table 4-1), or its hex text.
        name: String,
    },
}

/// One module read: at most 128 bytes, inside one half page (the kernel's
/// `ETHTOOL_MSG_MODULE_EEPROM_GET` rule, and what I2C paging allows).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PageRequest {
    /// 7-bit I2C address (0x50 A0h, 0x51 A2h).
    pub i2c_address: u8,
    /// Page number (0 for lower memory).
    pub page: u8,
    /// CMIS bank; 0 elsewhere.
    pub bank: u8,
    /// 0-255: 0-127 lower memory (page 0 only), 128-255 upper half of `page`.
    pub offset: u8,
    /// Number of bytes, 1-128, inside one half page.
    pub length: u8,
}

impl PageRequest {
    /// A read of `length` bytes at `offset` of `page`/`bank` at `i2c_address`.
    pub const fn new(i2c_address: u8, page: u8, bank: u8, offset: u8, length: u8) -> Self {
        PageRequest { i2c_address, page, bank, offset, length }
    }
    /// The whole lower half (offsets 0-127).
    pub const fn lower(i2c_address: u8) -> Self {
        PageRequest::new(i2c_address, 0, 0, 0, 128)
    }
    /// The whole upper half (offsets 128-255) of `page` in `bank`.
    pub const fn upper(i2c_address: u8, page: u8, bank: u8) -> Self {
        PageRequest::new(i2c_address, page, bank, 128, 128)
    }
    /// True when the request lies inside one half page and is 1-128 bytes long.
    pub fn is_valid(&self) -> bool {
        let start = self.offset as u16;
        let end = start + self.length as u16;
        self.length >= 1 && self.length <= 128 && (if start < 128 { end <= 128 && self.page == 0 && self.bank == 0 } else { end <= 256 })
    }
}

/// Which standard an image follows, from its identifier byte (SFF-8024 Table 4-1).
pub(crate) fn standard_of(img: &ModuleImage) -> Result<Standard, DecodeError> {
    // A2h (I2C 0x51) with no A0h at all: only SFF-8472 modules have it (an `ethtool -m
    // IFACE hex on offset 256` dump); its decoder warns that the identity is absent.
    // The same with some A0h bytes but not byte 0 (e.g. only byte 92, the diagnostic
    // monitoring type that says how to calibrate A2h, SFF-8472 Table 8-5).
    let has = |addr: u8| img.keys().any(|k| k.i2c_address == addr);
    if img.byte(I2C_A0, 0, 0, 0).is_none() && has(I2C_A2) {
        return Ok(Standard::Sff8472);
    }
    let id = img.byte(I2C_A0, 0, 0, 0).ok_or(DecodeError::NoIdentifier)?;
    Standard::for_identifier(id).ok_or_else(|| DecodeError::UnknownIdentifier { identifier: id, name: sff8024::identifier_name(id) })
}

/// Decodes whatever the image holds. Fails only when the identifier is missing or
/// unknown; everything else missing becomes `None` plus a warning.
pub fn decode(img: &ModuleImage) -> Result<ModuleReport, DecodeError> {
    Ok(match standard_of(img)? {
        Standard::Sff8472 => sff8472::decode(img),
        Standard::Sff8636 => sff8636::decode(img),
        Standard::Cmis => cmis::decode(img),
    })
}

/// Per lane (index 0 = lane 1) rx power in mW, exactly as `decode(img)`'s lanes give it
/// by lane number (a lane the decode lists without a reading is `None`; the vector is as
/// long as the highest lane number), without decoding the rest (identity, applications,
/// thresholds): what a stream of samples needs from each sample's monitor bytes.
/// SFF-8472 (one lane, calibration constants) takes the full decode.
pub fn lane_rx_power_mw(img: &ModuleImage) -> Result<Vec<Option<f64>>, DecodeError> {
    Ok(match standard_of(img)? {
        Standard::Sff8472 => rx_power_by_lane(&sff8472::decode(img)),
        Standard::Sff8636 => sff8636::lane_rx_power_mw(img),
        Standard::Cmis => cmis::lane_rx_power_mw(img),
    })
}

/// A decode's rx power in mW by lane number (index 0 = lane 1).
pub fn rx_power_by_lane(m: &ModuleReport) -> Vec<Option<f64>> {
    let n = m.lanes.iter().map(|l| l.lane as usize).max().unwrap_or(0);
    let mut out = vec![None; n];
    for l in &m.lanes {
        if let Some(slot) = (l.lane as usize).checked_sub(1).and_then(|i| out.get_mut(i)) {
            *slot = l.rx_power_mw;
        }
    }
    out
}

/// The static pages (identity, thresholds, advertisement) worth reading, given what has
/// been read so far: call again after reading until it asks for nothing new. Only pages
/// the module advertises are named (flat-memory bits, CMIS banks, SFF-8472 DDM bit).
pub fn static_pages(img: &ModuleImage) -> Result<Vec<PageRequest>, DecodeError> {
    Ok(match standard_of(img)? {
        Standard::Sff8472 => sff8472::static_pages(img),
        Standard::Sff8636 => sff8636::static_pages(img),
        Standard::Cmis => cmis::static_pages(img),
    })
}

/// The monitor and flag bytes to re-read on every sample (requests never cross a half page).
pub fn monitor_requests(img: &ModuleImage) -> Result<Vec<PageRequest>, DecodeError> {
    Ok(match standard_of(img)? {
        Standard::Sff8472 => sff8472::monitor_requests(img),
        Standard::Sff8636 => sff8636::monitor_requests(img),
        Standard::Cmis => cmis::monitor_requests(img),
    })
}

/// Why a decoder set aside an upper page that [echoes page 00h](ModuleImage::echoes_page00).
pub(crate) fn echoed_page_warning(page: u8, bank: u8) -> String {
    let bank = if bank == 0 { String::new() } else { format!(" bank {bank}") };
    format!("page {page:02X}h{bank} reads the same as page 00h (the driver did not select the page): taken as not read")
}

/// Where the vendor serial number lives in `standard`'s memory map: what a module swap changes.
pub(crate) fn vendor_sn_field(standard: Standard) -> map::Field {
    match standard {
        Standard::Sff8472 => sff8472::VENDOR_SN,
        Standard::Sff8636 => sff8636::VENDOR_SN,
        Standard::Cmis => cmis::VENDOR_SN,
    }
}
