//! TODO(helper): decoder.
use super::{ModuleImage, ModuleReport, PageRequest};

pub fn decode(img: &ModuleImage) -> ModuleReport {
    let id = img.byte(super::I2C_A0, 0, 0, 0).unwrap_or(0);
    ModuleReport::new(super::standard_of(img).unwrap_or(super::Standard::Cmis), id)
}
pub fn static_pages(_img: &ModuleImage) -> Vec<PageRequest> { Vec::new() }
pub fn monitor_requests(_img: &ModuleImage) -> Vec<PageRequest> { Vec::new() }
