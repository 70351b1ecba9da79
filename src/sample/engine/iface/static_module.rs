//! An interface record's static module, decoded once, and one sample's module built on it.

use crate::capture::{InterfaceRecord, SampleRecord};
use crate::module::fingerprint::fingerprint;
use crate::module::image::ImageError;
use crate::module::monitors::StaticDecode;
use crate::module::{decode, lane_rx_power_mw, rx_power_by_lane, DecodeError, ModuleImage, ModuleReport, PageEntry};
use thiserror::Error;

/// An interface record and what is derived from it once: its static pages as an image.
#[derive(Debug)]
pub(crate) struct StaticModule {
    pub(crate) record: InterfaceRecord,
    /// `Ok(None)`: the record has no module pages.
    pub(super) image: Result<Option<ModuleImage>, NoModule>,
    /// The record's module fingerprint (`module::fingerprint::fingerprint`), from `image`: not
    /// parsed again per interval.
    pub(super) fingerprint: Option<Vec<u8>>,
    /// `image` decoded once: a sample then decodes only its monitor fields (and, CMIS,
    /// reads its rx power through the plan's `rx_plan`).
    pub(super) decoded: Option<StaticDecode>,
}

/// Why a window has no decoded module (the words become the window's `module_error`).
#[derive(Clone, Debug, Error, PartialEq)]
pub(super) enum NoModule {
    #[error("no samples in the window")]
    NoSamples,
    #[error("no module data in the capture")]
    NoData,
    #[error("module pages in the capture are malformed: {0}")]
    Malformed(#[from] ImageError),
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl StaticModule {
    pub(crate) fn new(record: InterfaceRecord) -> Self {
        let image = record.module.as_ref().map(|m| m.image().map_err(NoModule::Malformed)).transpose();
        let fingerprint = image.as_ref().ok().and_then(Option::as_ref).and_then(fingerprint);
        let decoded = image.as_ref().ok().and_then(Option::as_ref).and_then(StaticDecode::new);
        StaticModule { record, image, fingerprint, decoded }
    }

    /// The module of a sample: these static pages plus the sample's monitor pages
    /// (sample bytes win), built from the cached image, not re-parsed; or, for imported
    /// tool output without EEPROM bytes, the monitors as the tool printed them.
    pub(super) fn with_sample(this: Option<&Self>, s: &SampleRecord) -> Result<SampleModule, NoModule> {
        if let (Some(p), None, None) = (&s.printed_module, this.and_then(|m| m.record.module.as_ref()), &s.module) {
            return Ok(SampleModule::Printed(Box::new(p.to_report())));
        }
        let base = match this.map(|m| &m.image) {
            Some(Err(e)) => return Err(e.clone()),
            Some(Ok(img)) => img.as_ref(),
            None => None,
        };
        if base.is_none() && s.module.is_none() {
            return Err(NoModule::NoData);
        }
        let mut img = base.cloned().unwrap_or_default();
        for e in s.module.iter().flat_map(|m| &m.pages) {
            img.insert_entry(e)?;
        }
        Ok(SampleModule::Image(img))
    }
}

/// Where a page entry's bytes go: address, page, bank, offset and length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct PageRun(pub(super) u8, pub(super) u8, pub(super) u8, pub(super) u16, pub(super) usize);

impl PageRun {
    pub(super) fn of(e: &PageEntry) -> Self {
        PageRun(e.i2c_address, e.page, e.bank, e.offset, e.data.len())
    }
}

/// One sample's module: an image to decode, or a report a tool printed (imports).
#[derive(Clone, Debug)]
pub(super) enum SampleModule {
    Image(ModuleImage),
    Printed(Box<ModuleReport>),
}

impl SampleModule {
    pub(super) fn decode(&self) -> Result<ModuleReport, DecodeError> {
        match self {
            SampleModule::Image(img) => decode(img),
            SampleModule::Printed(r) => Ok((**r).clone()),
        }
    }

    /// Rx power in mW by lane: only the rx monitors are decoded per sample.
    pub(super) fn rx_power_mw(&self) -> Option<Vec<Option<f64>>> {
        match self {
            SampleModule::Image(img) => lane_rx_power_mw(img).ok(),
            SampleModule::Printed(r) => Some(rx_power_by_lane(r)),
        }
    }
}
