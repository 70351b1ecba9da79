//! A sample's module decoded from the decode of its static pages: per sample only the
//! monitor fields are decoded again, in place, through the `MonitorPlan` of each standard
//! (resolved once from the static image; the full decode runs the same code), where that
//! gives exactly what [`decode`] of the sample's image gives. That holds when every byte
//! the sample lays over the static image is either
//! - inside a monitor field the refresh decodes again, and already present in the static
//!   image (so nothing that depends on which bytes were read changes), or inside a half
//!   page the refresh decodes whole (CMIS VDM samples and flags), or
//! - equal to the static image's byte.
//!
//! Otherwise (an identifier, revision or Active Control Set byte changed, a page the
//! static image lacks, SFF-8472 whose calibration ties monitors to constants) the sample
//! takes the full decode.

use super::clone::clone_fields_except;
use super::image::HALF_PAGE_LEN;
use super::map::Field;
use super::report::LaneReport;
use super::{cmis, decode, sff8636, standard_of, DecodeError, ModuleImage, ModuleReport, Standard};

/// Bytes of one half page (any bank) that a refresh decodes again: bit i = byte i.
#[derive(Clone, Debug, PartialEq)]
struct Mask {
    i2c_address: u8,
    /// `None`: lower memory.
    page: Option<u8>,
    bits: u128,
    /// The refresh decodes the whole half page, present or not.
    whole: bool,
}

/// The decode of a module's static pages, and what a sample may change of it.
#[derive(Clone, Debug)]
pub(crate) struct StaticDecode {
    report: ModuleReport,
    masks: Vec<Mask>,
    plan: Plan,
}

/// The standard's monitor plan.
#[derive(Clone, Debug)]
enum Plan {
    Cmis(cmis::MonitorPlan),
    Sff8636(sff8636::MonitorPlan),
}

fn masks_of(fields: &[&[Field]], whole_pages: &[u8]) -> Vec<Mask> {
    let mut out: Vec<Mask> = Vec::new();
    for f in fields.iter().copied().flatten() {
        let page = (f.offset >= 128).then_some(f.page);
        let start = usize::from(f.offset) % HALF_PAGE_LEN;
        let bits = (start..start + usize::from(f.len)).filter(|i| *i < HALF_PAGE_LEN).fold(0u128, |m, i| m | 1 << i);
        match out.iter_mut().find(|m| m.i2c_address == f.i2c_address && m.page == page) {
            Some(m) => m.bits |= bits,
            None => out.push(Mask { i2c_address: f.i2c_address, page, bits, whole: false }),
        }
    }
    out.extend(whole_pages.iter().map(|p| Mask { i2c_address: super::I2C_A0, page: Some(*p), bits: u128::MAX, whole: true }));
    out
}

/// `out.clone_from(src)` but for the fields every refresh overwrites whatever they held
/// (module temperature, Vcc and flags; with `lanes`, each lane's monitors, flags and data
/// path state), so that `clone_unrefreshed` then a refresh gives what `clone_from` then
/// the refresh gives. The patterns list every field: one added later fails to build.
fn clone_unrefreshed(out: &mut ModuleReport, src: &ModuleReport, lanes: bool) {
    clone_fields_except!(out, src, ModuleReport {
        standard, identifier, identifier_name, form_factor, spec_revision, vendor_name, vendor_oui, vendor_pn, vendor_sn, vendor_rev,
        date_code, connector, connector_name, media_type, wavelength_nm, nominal_signaling_rate_mbd, module_state, low_power_controls,
        flat_memory, rx_power_type, modulation, encoding, media_lane_count, host_lane_count, active_application,
        applications, thresholds, vdm, checksums, warnings,
    } except { module_temperature_c, supply_voltage_v, module_flags, lanes });
    let src_lanes = &src.lanes;
    if !lanes {
        out.lanes.clone_from(src_lanes);
        return;
    }
    out.lanes.truncate(src_lanes.len());
    let kept = out.lanes.len();
    for (o, s) in out.lanes.iter_mut().zip(src_lanes) {
        clone_fields_except!(o, s, LaneReport { lane, app_sel, data_path_first_lane } except {
            rx_power_mw, rx_power_dbm, tx_power_mw, tx_power_dbm, tx_bias_ma, flags, data_path_state,
        });
    }
    out.lanes.extend_from_slice(&src_lanes[kept..]);
}

impl StaticDecode {
    /// `None` when the static image does not decode or its standard has no monitor refresh.
    pub(crate) fn new(static_img: &ModuleImage) -> Option<Self> {
        let (masks, plan) = match standard_of(static_img).ok()? {
            Standard::Cmis => (masks_of(&cmis::MONITOR_FIELDS, cmis::MONITOR_PAGES), Plan::Cmis(cmis::MonitorPlan::new(static_img))),
            Standard::Sff8636 => (masks_of(&sff8636::MONITOR_FIELDS, &[]), Plan::Sff8636(sff8636::MonitorPlan::new(static_img))),
            Standard::Sff8472 => return None,
        };
        Some(StaticDecode { report: decode(static_img).ok()?, masks, plan })
    }

    /// [`decode_sample_into`](Self::decode_sample_into) into a fresh report.
    #[cfg(test)]
    pub(crate) fn decode_sample(
        &self,
        static_img: &ModuleImage,
        img: &ModuleImage,
        runs: impl Iterator<Item = (u8, u8, u8, u16, usize)>,
    ) -> Result<ModuleReport, DecodeError> {
        let mut out = None;
        self.decode_sample_into(static_img, img, runs, &mut out)?;
        // decode_sample_into fills `out` whenever it returns Ok.
        Ok(out.expect("a report on Ok"))
    }

    /// The per-sample Rx power reading of a CMIS module, resolved with the rest.
    pub(crate) fn rx_plan(&self) -> Option<&cmis::RxPlan> {
        match &self.plan {
            Plan::Cmis(p) => Some(p.rx()),
            Plan::Sff8636(_) => None,
        }
    }

    /// Exactly `decode(img)` into `out`, where `img` is `static_img` (the image this was
    /// made from) with the byte runs `runs` (I2C address, page, bank, offset, length) of a
    /// sample laid over it; in place, reusing the strings and vectors of the report `out`
    /// holds: a report kept across samples then allocates nothing where the sample only
    /// refreshes monitors. `None` on error.
    pub(crate) fn decode_sample_into(
        &self,
        static_img: &ModuleImage,
        img: &ModuleImage,
        mut runs: impl Iterator<Item = (u8, u8, u8, u16, usize)>,
        out: &mut Option<ModuleReport>,
    ) -> Result<(), DecodeError> {
        if !runs.all(|run| self.refreshes(static_img, img, run)) {
            *out = None;
            *out = Some(decode(img)?);
            return Ok(());
        }
        let r = match out {
            Some(r) => {
                clone_unrefreshed(r, &self.report, self.refreshes_lanes());
                r
            }
            None => out.insert(self.report.clone()),
        };
        self.refresh(img, r);
        Ok(())
    }

    /// True when [`refresh`](Self::refresh) writes every lane's monitors, flags and data
    /// path state (CMIS flat memory has no page 11h: its lanes are left alone).
    fn refreshes_lanes(&self) -> bool {
        match &self.plan {
            Plan::Cmis(p) => p.refreshes_lanes(),
            Plan::Sff8636(_) => true,
        }
    }

    fn refresh(&self, img: &ModuleImage, r: &mut ModuleReport) {
        match &self.plan {
            Plan::Cmis(p) => p.refresh(img, r),
            Plan::Sff8636(p) => p.refresh(img, r),
        }
    }

    /// True when the refresh covers what this run of sample bytes changes (module docs).
    fn refreshes(&self, static_img: &ModuleImage, img: &ModuleImage, (addr, page, bank, offset, len): (u8, u8, u8, u16, usize)) -> bool {
        let Ok(off) = u8::try_from(offset) else { return false };
        let Some(new) = img.bytes(addr, page, bank, off, len) else { return false };
        let half_page = (off >= 128).then_some(page);
        let mask = self.masks.iter().find(|m| m.i2c_address == addr && m.page == half_page);
        if mask.is_some_and(|m| m.whole) {
            return true;
        }
        let bits = mask.map_or(0, |m| m.bits);
        let start = usize::from(off) % HALF_PAGE_LEN;
        let Some(old) = static_img.bytes(addr, page, bank, off, len) else { return false };
        // The bytes outside the refreshed fields must be the static image's: compared
        // run by run of such bytes (`bytes` gave 1-128 bytes inside the half page).
        let run = if len == HALF_PAGE_LEN { u128::MAX } else { ((1u128 << len) - 1) << start };
        let mut fixed = run & !bits;
        while fixed != 0 {
            let from = fixed.trailing_zeros() as usize;
            let to = from + (fixed >> from).trailing_ones() as usize;
            if new[from - start..to - start] != old[from - start..to - start] {
                return false;
            }
            fixed &= u128::MAX.checked_shl(to as u32).unwrap_or(0);
        }
        true
    }
}

#[cfg(test)]
mod tests;
