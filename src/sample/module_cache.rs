//! Module read economy: static pages (identity, thresholds, advertisement) are read once
//! per module and cached; every later sample reads only the monitor and flag bytes
//! `module::monitor_requests` names. CMIS VDM follows the same split
//! (src/module/cmis/vdm.rs): the advertisement (2Fh), descriptor (20h-23h) and threshold
//! (28h-2Bh) pages are static; the sample words (24h-27h) and flags (2Ch) of the instances
//! in use are re-read every sample. VDM pages are read in bank 0 and never written.
//!
//! Module change detection (a swap while sampling), in order:
//! 1. a monitor read covers an identity byte (`identity_fields`: the SFF-8024 identifier
//!    in lower memory, or the vendor serial number) and it differs from the cached
//!    static pages -> the static pages are read again;
//! 2. a module read failed (module pulled, EEPROM busy) and a later one succeeds -> the
//!    static pages are read again, since the module may have been replaced meanwhile.
//!
//! After a re-read the module counts as changed when its [`crate::module::fingerprint`] (identifier +
//! vendor SN) differs from the cached one. A module that was never readable and then is
//! counts as changed too.

use crate::module::fingerprint::{fingerprint, identity_fields};
use crate::module::{self, ModuleImage, PageEntry, PageRequest, I2C_A0};
use crate::source::{IoCounts, Source, SourceError};
use std::collections::BTreeSet;

/// Splits any request into valid ones (1-128 bytes inside one half page; lower memory
/// only as page 0 bank 0), the kernel's rule for `ETHTOOL_MSG_MODULE_EEPROM_GET`.
pub(crate) fn split_request(req: PageRequest) -> Vec<PageRequest> {
    let mut out = Vec::new();
    let mut start = req.offset as u16;
    let end = (start + req.length as u16).min(256);
    while start < end {
        let half_end = if start < 128 { 128 } else { 256 };
        let stop = end.min(half_end);
        let (page, bank) = if start < 128 { (0, 0) } else { (req.page, req.bank) };
        // start <= 255 and stop - start <= 128 by construction.
        out.push(PageRequest::new(req.i2c_address, page, bank, start as u8, (stop - start) as u8));
        start = stop;
    }
    out
}

/// Reads one request, counting it, and stores what came back in `img`.
fn read_into(
    src: &mut dyn Source,
    iface: &str,
    req: PageRequest,
    img: &mut ModuleImage,
    io: &mut IoCounts,
) -> Result<Vec<u8>, SourceError> {
    io.requests += 1;
    let mut bytes = src.read_eeprom(iface, req)?;
    bytes.truncate(req.length as usize);
    io.bytes += bytes.len() as u64;
    // Cannot fail for a valid request: the run stays inside the requested half page.
    let _ = img.insert(req.i2c_address, req.page, req.bank, req.offset as u16, &bytes);
    Ok(bytes)
}

/// One-byte read of the SFF-8024 identifier, used when there are no monitors to read.
pub(crate) const PRESENCE_PROBE: PageRequest = PageRequest::new(I2C_A0, 0, 0, 0, 1);

/// Upper bound on `static_pages` rounds: each round must ask for something new, and no
/// standard chains more than a few (lower -> page 0 -> advertised pages -> banks).
const MAX_STATIC_ROUNDS: usize = 16;

/// Reads the static pages: lower memory first (the identifier picks the standard), then
/// whatever `module::static_pages` asks for until it asks for nothing new. Pages that
/// answer `NotSupported` are skipped with a note; any other error, or `NotSupported`
/// for lower memory itself, is returned.
pub fn read_static(src: &mut dyn Source, iface: &str, io: &mut IoCounts) -> Result<(ModuleImage, Vec<String>), SourceError> {
    let mut img = ModuleImage::new();
    let mut notes = Vec::new();
    let mut tried = BTreeSet::new();
    let lower = PageRequest::lower(I2C_A0);
    let mut pending = vec![lower];
    for _ in 0..MAX_STATIC_ROUNDS {
        let new: Vec<PageRequest> = pending.into_iter().flat_map(split_request).filter(|r| tried.insert(*r)).collect();
        if new.is_empty() {
            return Ok((img, notes));
        }
        for req in new {
            match read_into(src, iface, req, &mut img, io) {
                Ok(b) if b.is_empty() => notes.push(format!("{}: module returned no bytes", describe(req))),
                Ok(_) => {}
                Err(e) if e.is_not_supported() && req != lower => notes.push(format!("{}: not supported, skipped", describe(req))),
                // A page the module advertises but will not select (its page select reads
                // back another page): the rest of the memory map still decodes.
                Err(e @ SourceError::Unavailable { .. }) if req != lower => notes.push(format!("{}: {e}; skipped", describe(req))),
                Err(e) => return Err(e),
            }
        }
        pending = match module::static_pages(&img) {
            // The identity fields are needed for swap detection whatever the decoder
            // asks for; `tried` keeps them from being read twice.
            // Once the decoder asks for nothing new, read identity fields still missing:
            // swap detection needs them whatever the decoder reads.
            Ok(p) if p.iter().flat_map(|r| split_request(*r)).all(|r| tried.contains(&r)) => identity_fields(&img)
                .iter()
                .filter(|f| f.read(&img, 0).is_none())
                .map(|f| PageRequest::new(f.i2c_address, f.page, 0, f.offset, f.len))
                .collect(),
            Ok(p) => p,
            Err(e) => {
                notes.push(format!("static pages beyond lower memory not read: {e}"));
                return Ok((img, notes));
            }
        };
    }
    notes.push(format!("static page discovery stopped after {MAX_STATIC_ROUNDS} rounds"));
    Ok((img, notes))
}

fn describe(req: PageRequest) -> String {
    format!("module i2c {:#04x} page {:#04x} bank {} offset {} length {}", req.i2c_address, req.page, req.bank, req.offset, req.length)
}

/// What one sample read from the module.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModuleSample {
    /// The static pages, when they were (re)read during this sample.
    pub static_pages: Option<Vec<PageEntry>>,
    /// The static pages were re-read and show a different module than before (or the
    /// first readable module after none).
    pub changed: bool,
    /// Monitor and flag bytes read this sample.
    pub monitor: Vec<PageEntry>,
    /// Pages skipped and similar remarks, one sentence each.
    pub(crate) notes: Vec<String>,
}

/// Per-interface cache of a module's static pages.
#[derive(Debug, Default)]
pub struct ModuleCache {
    static_img: Option<ModuleImage>,
    /// The last module read failed: re-read the static pages on the next success.
    failed: bool,
    /// Monitor requests that answered `NotSupported`, not asked again.
    skipped: BTreeSet<PageRequest>,
    /// Requests and bytes this cache has issued.
    pub io: IoCounts,
}

impl ModuleCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
    }

    /// The cached static pages, if any.
    pub fn static_image(&self) -> Option<&ModuleImage> {
        self.static_img.as_ref()
    }

    fn refresh_static(&mut self, src: &mut dyn Source, iface: &str, out: &mut ModuleSample) -> Result<(), SourceError> {
        let (img, notes) = read_static(src, iface, &mut self.io)?;
        let old = self.static_img.as_ref().and_then(fingerprint);
        out.changed = self.static_img.is_none() || old != fingerprint(&img);
        out.static_pages = Some(img.entries());
        out.notes.extend(notes);
        self.static_img = Some(img);
        Ok(())
    }

    /// One sample's module reads. An error marks the module for a static re-read on
    /// the next success (detection rule 2).
    pub fn sample(&mut self, src: &mut dyn Source, iface: &str) -> Result<ModuleSample, SourceError> {
        let r = self.sample_inner(src, iface);
        self.failed = r.is_err();
        r
    }

    fn sample_inner(&mut self, src: &mut dyn Source, iface: &str) -> Result<ModuleSample, SourceError> {
        let mut out = ModuleSample::default();
        if self.static_img.is_none() || self.failed {
            self.refresh_static(src, iface, &mut out)?;
        }
        // Static pages read just now already hold this sample's monitor bytes.
        let mut monitor = self.read_monitors(src, iface, &mut out.notes, out.static_pages.is_some())?;
        // Detection rule 1: identity bytes seen in the monitored region differ.
        if out.static_pages.is_none() && self.identity_differs(&monitor) {
            self.refresh_static(src, iface, &mut out)?;
            monitor = self.read_monitors(src, iface, &mut out.notes, true)?;
        }
        out.monitor = monitor.entries();
        Ok(out)
    }

    /// The monitor requests' bytes: copied from the static image when `fresh_static` and
    /// it holds them, read from the source otherwise.
    fn read_monitors(
        &mut self,
        src: &mut dyn Source,
        iface: &str,
        notes: &mut Vec<String>,
        fresh_static: bool,
    ) -> Result<ModuleImage, SourceError> {
        let mut img = ModuleImage::new();
        let Some(stat) = &self.static_img else { return Ok(img) };
        let mut reqs: Vec<PageRequest> = match module::monitor_requests(stat) {
            Ok(r) => r.into_iter().flat_map(split_request).filter(|r| !self.skipped.contains(r)).collect(),
            Err(_) => Vec::new(), // unknown identifier: nothing we know how to monitor
        };
        if reqs.is_empty() {
            // Nothing to monitor (no DDM, unknown type): still read the identifier byte
            // so a pulled module shows as an error and its return triggers a re-read.
            reqs.push(PRESENCE_PROBE);
        }
        for req in reqs {
            let cached = stat.bytes(req.i2c_address, req.page, req.bank, req.offset, req.length as usize).filter(|_| fresh_static);
            if let Some(bytes) = cached {
                // A request lies inside one half page, so the insert cannot fail.
                let _ = img.insert(req.i2c_address, req.page, req.bank, req.offset as u16, bytes);
                continue;
            }
            match read_into(src, iface, req, &mut img, &mut self.io) {
                Ok(_) => {}
                Err(e) if e.is_not_supported() => {
                    notes.push(format!("{}: not supported, no longer read", describe(req)));
                    self.skipped.insert(req);
                }
                Err(e) => return Err(e),
            }
        }
        Ok(img)
    }

    fn identity_differs(&self, monitor: &ModuleImage) -> bool {
        let Some(stat) = &self.static_img else { return false };
        identity_fields(stat).iter().any(|f| matches!((f.read(monitor, 0), f.read(stat, 0)), (Some(a), Some(b)) if a != b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::fingerprint::IDENTIFIER;
    use crate::module::map::{first_overlap, first_straddling};
    use crate::module::Standard;

    #[test]
    fn identity_tables_are_well_formed() {
        for std in [Standard::Sff8472, Standard::Sff8636, Standard::Cmis] {
            let fields = [IDENTIFIER, module::vendor_sn_field(std)];
            assert_eq!(first_overlap(&fields), None);
            assert_eq!(first_straddling(&fields), None);
        }
    }

    #[test]
    fn requests_are_split_at_half_pages() {
        // 0..256 of page 3: lower half comes from page 0 (shared lower memory).
        let parts = split_request(PageRequest::new(0x50, 3, 0, 0, 255));
        assert_eq!(parts, vec![PageRequest::new(0x50, 0, 0, 0, 128), PageRequest::new(0x50, 3, 0, 128, 127)]);
        assert!(parts.iter().all(|p| p.is_valid()));
        assert_eq!(split_request(PageRequest::new(0x50, 0, 0, 100, 40)).len(), 2);
        assert_eq!(split_request(PageRequest::new(0x50, 0, 0, 250, 40)), vec![PageRequest::new(0x50, 0, 0, 250, 6)]);
        assert!(split_request(PageRequest::new(0x50, 0, 0, 10, 0)).is_empty());
    }

    #[test]
    fn fingerprint_uses_the_standard_serial_field() {
        let mut img = ModuleImage::new();
        assert_eq!(fingerprint(&img), None);
        img.insert(I2C_A0, 0, 0, 0, &[0x11]).unwrap(); // QSFP28 -> SFF-8636
        img.insert(I2C_A0, 0, 0, 196, b"SN0001          ").unwrap();
        let fp = fingerprint(&img).unwrap();
        assert_eq!(fp[0], 0x11);
        assert_eq!(&fp[1..], b"SN0001          ");
    }
}
