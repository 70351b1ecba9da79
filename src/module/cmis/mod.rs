//! CMIS 4.0 / 5.x decoder (QSFP-DD, OSFP, QSFP112, ...), CMIS 5.2 chapter 8 memory map.
//!
//! One file per page, as SONiC's sonic_xcvr lays out its CMIS map: `lower` (bytes
//! 0-127), `page00`, `page01`, `page02`, `page11` (one per bank), and
//! `appcodes` (the SFF-8024 interface code tables the Application Descriptors use), and
//! `vdm` + `vdm_types` (Versatile Diagnostics Monitoring, pages 20h-2Fh, read only).
//!
//! CMIS 4.0 vs 5.x: every field decoded here sits at the same offset with the same
//! encoding in CMIS 4.0 and 5.0-5.2 (flat-memory bit 2.7, module state 3.3-1, page 01h
//! advertisement bytes 142-160, Application Descriptors 9-15 at page 01h 223-250, page 11h
//! flags, monitors and Active Control Set at 206-213); ethtool's cmis.c and SONiC's CMIS
//! map do not branch on the revision either. Other revisions are decoded with the same
//! map and a warning.
//!
//! Lanes: one [`LaneReport`](super::report::LaneReport) per media lane of each bank whose
//! page 11h was read, 8 per bank, even when the active application uses fewer (a 4-lane
//! application on an 8-lane module still reports lanes 1-8: the unused lanes' flags and
//! data path states are real data). Lanes the module says it does not have (page 00h
//! byte 210, e.g. lanes 5-8 of a 4-lane 400G-DR4 in a QSFP-DD) are left out: their
//! monitors read zero and mean nothing.

mod appcodes;
mod lower;
mod page00;
mod page01;
mod page02;
mod page11;
mod vdm;
mod vdm_types;

use super::report::Application;
use super::{ModuleImage, ModuleReport, PageRequest, Standard, I2C_A0};
use appcodes::Descriptor;
pub(crate) use page00::VENDOR_SN;

/// Decodes whatever the image holds; missing pages leave fields `None` with a warning.
///
/// An upper page that reads as page 00h (the driver never selected it) is taken as not read:
/// its bytes would be the vendor's name and part number read as advertisement, thresholds
/// and lane monitors.
pub fn decode(img: &ModuleImage) -> ModuleReport {
    let echoed = img.echoed_pages(I2C_A0);
    let img = &*img.without_upper(I2C_A0, &echoed);
    let mut r = ModuleReport::new(Standard::Cmis, lower::IDENTIFIER.byte(img, 0));
    r.warnings.extend(echoed.iter().map(|&(page, bank)| super::echoed_page_warning(page, bank)));
    lower::decode(img, &mut r);
    let media_type = lower::media_type(img);
    page00::decode(img, &mut r, media_type);

    let paged = lower::flat_memory(img) == Some(false);
    let adv = if paged { page01::decode(img, &mut r) } else { None };
    unadvertised_monitors(adv.as_ref(), &mut r);
    if no_module_monitors(img) {
        r.module_temperature_c = None;
        r.supply_voltage_v = None;
    }

    r.applications = applications(img, media_type, &mut r.warnings);
    let active_sel = if paged { page11::active_app_sel(img) } else { None };
    let active = match active_sel {
        Some(sel) => {
            let app = r.applications.iter().find(|a| a.app_sel == sel).cloned();
            if app.is_none() {
                r.warnings.push(format!("active AppSel {sel} (page 11h byte 206) is not an advertised application"));
            }
            app
        }
        // No Active Control Set: the module runs its default, application 1.
        None => r.applications.iter().find(|a| a.app_sel == 1).cloned(),
    };
    if let Some(app) = &active {
        r.host_lane_count = Some(app.host_lane_count);
        r.media_lane_count = Some(app.media_lane_count);
        r.modulation = app.modulation;
    }
    r.active_application = active;

    if paged {
        page02::decode(img, adv.as_ref(), &mut r);
        let mut warnings = std::mem::take(&mut r.warnings);
        media_lanes(img, adv.as_ref(), &mut r, &mut warnings);
        r.warnings = warnings;
        vdm::decode(img, &mut r);
    }
    r
}

/// A flat-memory passive copper cable has no module monitors: flat memory (byte 2 bit 7)
/// has no page 01h to advertise any (CMIS 5.2 8.2.1), and a passive cable (MediaType 03h,
/// byte 85, Table 8-12) has no electronics to measure with, so bytes 14-17 read 0 and
/// mean "not implemented": `null`, never 0 C and 0 V (as SFF-8636 DACs already give).
fn no_module_monitors(img: &ModuleImage) -> bool {
    lower::flat_memory(img) == Some(true) && lower::media_type(img) == Some(0x03)
}

/// A module-level monitor the module does not implement (page 01h byte 159) is None, not 0.
fn unadvertised_monitors(adv: Option<&page01::Advertisement>, r: &mut ModuleReport) {
    if let Some(adv) = adv {
        if !adv.temperature_mon {
            r.module_temperature_c = None;
        }
        if !adv.vcc_mon {
            r.supply_voltage_v = None;
        }
    }
}

/// The media lanes of every bank page 01h advertises, from page 11h (paged modules).
fn media_lanes(img: &ModuleImage, adv: Option<&page01::Advertisement>, r: &mut ModuleReport, warnings: &mut Vec<String>) {
    let banks = page01::bank_count(img).unwrap_or(1);
    // Byte 210 describes media lanes 1-8, i.e. bank 0.
    let unsupported = page00::unsupported_media_lanes(img, warnings);
    for bank in 0..banks {
        match page11::lanes(img, bank, adv) {
            Some(lanes) if bank == 0 => {
                r.lanes.extend(lanes.into_iter().enumerate().filter(|(i, _)| unsupported & (1 << i) == 0).map(|(_, l)| l))
            }
            Some(lanes) => r.lanes.extend(lanes),
            None => {
                let first = u16::from(bank) * u16::from(page11::LANES_PER_BANK) + 1;
                let last = first + u16::from(page11::LANES_PER_BANK) - 1;
                warnings.push(format!("page 11h bank {bank} absent: lanes {first}-{last} not decoded"));
            }
        }
    }
}

/// Fields a sample re-reads and [`MonitorPlan::refresh`] decodes again: lower memory state,
/// flags and module monitors (CMIS 5.2 Tables 8-9, 8-10) and page 11h lane states, flags
/// and monitors (Tables 8-79 to 8-82) of any bank.
pub(crate) const MONITOR_FIELDS: [&[super::map::Field]; 2] = [lower::MONITOR_FIELDS, page11::MONITOR_FIELDS];

/// Whole half pages a sample re-reads: VDM samples (24h-27h) and flags (2Ch), CMIS 5.2 8.22.
pub(crate) const MONITOR_PAGES: &[u8] = vdm::MONITOR_PAGES;

/// What [`decode`] reads besides the bytes of [`MONITOR_FIELDS`] / [`MONITOR_PAGES`] to
/// decode those bytes, resolved once from an image: the [`RxPlan`] (memory model, page 01h
/// advertisement, banks, unsupported media lanes) and the lane flags and monitors page
/// 01h advertises (Tables 8-41 ff.). [`MonitorPlan::refresh`] then decodes a sample's
/// monitor bytes only.
#[derive(Clone, Debug)]
pub(crate) struct MonitorPlan {
    rx: RxPlan,
    lanes: page11::LanePlan,
    /// [`no_module_monitors`]: temperature and Vcc stay `None` on every sample.
    no_module_monitors: bool,
}

impl MonitorPlan {
    pub(crate) fn new(img: &ModuleImage) -> Self {
        // As `decode` reads it: pages that echo page 00h taken as not read.
        let img = &*img.without_upper(I2C_A0, &img.echoed_pages(I2C_A0));
        let rx = RxPlan::new(img);
        MonitorPlan { lanes: page11::LanePlan::new(img, rx.adv.as_ref()), rx, no_module_monitors: no_module_monitors(img) }
    }

    /// The per-sample Rx power reading this plan includes.
    pub(crate) fn rx(&self) -> &RxPlan {
        &self.rx
    }

    /// True when [`refresh`](Self::refresh) decodes the lanes (paged memory).
    pub(crate) fn refreshes_lanes(&self) -> bool {
        self.rx.banks != 0
    }

    /// Decodes again, into `r` (the decode of an image that resolves to this plan, before
    /// a sample's bytes in [`MONITOR_FIELDS`] / [`MONITOR_PAGES`] changed), every field
    /// those bytes feed, with the functions [`decode`] uses, in place (strings reused);
    /// the rest of `r`, its lanes' numbers and data paths and its warnings, stays as it is
    /// (the bytes it comes from did not change).
    pub(crate) fn refresh(&self, img: &ModuleImage, r: &mut ModuleReport) {
        lower::monitors(img, r);
        if self.no_module_monitors {
            r.module_temperature_c = None;
            r.supply_voltage_v = None;
        }
        // Flat memory has no page 01h or 11h (no banks).
        if !self.refreshes_lanes() {
            return;
        }
        unadvertised_monitors(self.rx.adv.as_ref(), r);
        // Lanes come bank by bank: each bank's page 11h is read once.
        let mut bank = None;
        for lane in &mut r.lanes {
            let index = usize::from(lane.lane.saturating_sub(1));
            let b = (index / usize::from(page11::LANES_PER_BANK)) as u8;
            let monitors = match bank {
                Some((at, ref monitors)) if at == b => monitors,
                _ => &bank.insert((b, self.lanes.bank(img.half_view(I2C_A0, 0x11, b, 128)))).1,
            };
            monitors.refresh(index % usize::from(page11::LANES_PER_BANK), lane);
        }
        if let Some(v) = &mut r.vdm {
            vdm::refresh(img, v);
        }
    }
}

/// Rx power in mW by lane number (index 0 = lane 1), as [`decode`] gives it: lanes of
/// every bank whose page 11h was read (bank 0 without the lanes page 00h byte 210 marks
/// unsupported), readings only where page 01h advertises Rx power monitoring.
pub(crate) fn lane_rx_power_mw(img: &ModuleImage) -> Vec<Option<f64>> {
    let mut out = Vec::new();
    RxPlan::new(img).read(img, &mut out);
    out
}

/// What [`lane_rx_power_mw`] reads besides the page 11h Rx power words, resolved once
/// from an image: flat memory (lower byte 2 bit 7, CMIS 5.2 Table 8-4), the page 01h
/// advertisement (bytes 142, 159-160, Table 8-28ff.) and the unsupported media lanes (page
/// 00h byte 210). A sample that leaves those bytes alone reads only its Rx power words.
#[derive(Clone, Debug)]
pub(crate) struct RxPlan {
    /// Banks whose page 11h may hold lanes; 0 for flat memory (no page 11h).
    banks: u8,
    adv: Option<page01::Advertisement>,
    unsupported: u8,
    /// The single bytes the plan was resolved from, as the image had them.
    bytes: [(super::map::Field, Option<u8>); 3],
}

impl RxPlan {
    pub(crate) fn new(img: &ModuleImage) -> Self {
        // As `decode` reads it: pages that echo page 00h taken as not read.
        let img = &*img.without_upper(I2C_A0, &img.echoed_pages(I2C_A0));
        let paged = lower::flat_memory(img) == Some(false);
        let bytes = [lower::IDENTIFIER, lower::MEMORY_MODEL, page00::MEDIA_LANE_UNSUPPORTED].map(|f| (f, f.byte(img, 0)));
        RxPlan {
            banks: if paged { page01::bank_count(img).unwrap_or(1) } else { 0 },
            adv: paged.then(|| page01::advertisement(img)).flatten(),
            unsupported: if paged { page00::unsupported_media_lanes(img, &mut Vec::new()) } else { 0 },
            bytes,
        }
    }

    /// True when an image made of the plan's image with `runs` (I2C address, page, offset,
    /// bytes) laid over it resolves to the same plan: no run changes a byte the plan was
    /// resolved from, nor touches page 01h.
    pub(crate) fn holds_for<'a>(&self, mut runs: impl Iterator<Item = (u8, u8, u16, &'a [u8])>) -> bool {
        runs.all(|(addr, page, offset, data)| {
            if addr == I2C_A0 && page == 0x01 && usize::from(offset) + data.len() > 128 {
                return false;
            }
            // Lower memory (offsets 0-127) is the same whatever the page.
            self.bytes.iter().all(|(f, was)| {
                let same_memory = f.i2c_address == addr && (f.offset < 128 || f.page == page);
                let at = usize::from(f.offset).checked_sub(usize::from(offset)).filter(|_| same_memory);
                at.and_then(|i| data.get(i)).is_none_or(|b| Some(*b) == *was)
            })
        })
    }

    /// [`lane_rx_power_mw`] of `img` into `out`, where `img` resolves to this plan.
    pub(crate) fn read(&self, img: &ModuleImage, out: &mut Vec<Option<f64>>) {
        out.clear();
        out.reserve(usize::from(self.banks) * usize::from(page11::LANES_PER_BANK));
        for bank in 0..self.banks {
            let Some(rx) = page11::lane_rx_power_mw(img, bank, self.adv.as_ref()) else { continue };
            for (i, mw) in rx.enumerate().filter(|(i, _)| bank != 0 || self.unsupported & (1 << i) == 0) {
                let lane = usize::from(bank) * usize::from(page11::LANES_PER_BANK) + i;
                // Lanes come in increasing order: those left out before `lane` stay `None`.
                if out.len() < lane {
                    out.resize(lane, None);
                }
                out.push(mw);
            }
        }
    }
}

/// Application Descriptors 1-8 (lower memory) then 9-15 (page 01h) up to the 0xFF end
/// marker, with media lane assignments from page 01h.
fn applications(img: &ModuleImage, media_type: Option<u8>, warnings: &mut Vec<String>) -> Vec<Application> {
    let mut lists = vec![lower::descriptors(img)];
    if lists.iter().all(|l| !l.ended) {
        lists.extend(page01::descriptors(img));
    }
    for sel in lists.iter().filter_map(|l| l.stray_after_end) {
        warnings.push(format!("application descriptor {sel} follows the end of the list: ignored"));
    }
    lists
        .iter()
        .flat_map(|l| &l.descriptors)
        .map(|d| Descriptor { media_lane_assignment: page01::media_lane_assignment(img, d.app_sel), ..*d })
        .map(|d| appcodes::describe(&d, media_type, warnings))
        .collect()
}

/// Static pages worth reading: lower memory and page 00h, and on paged modules pages
/// 01h, 02h, 10h + 11h of each bank page 01h advertises (bank 0 until it is read), and
/// the VDM advertisement, descriptor and threshold pages when page 01h advertises VDM.
/// The list depends only on what the image holds, so callers repeat until it stops growing.
pub fn static_pages(img: &ModuleImage) -> Vec<PageRequest> {
    let mut out = vec![PageRequest::lower(I2C_A0), PageRequest::upper(I2C_A0, 0x00, 0)];
    if lower::flat_memory(img) == Some(false) {
        out.push(PageRequest::upper(I2C_A0, 0x01, 0));
        out.push(PageRequest::upper(I2C_A0, 0x02, 0));
        for bank in 0..page01::bank_count(img).unwrap_or(1) {
            out.push(PageRequest::upper(I2C_A0, 0x10, bank));
            out.push(PageRequest::upper(I2C_A0, 0x11, bank));
        }
        out.extend(vdm::static_pages(img));
    }
    out
}

/// Per-sample reads: lower bytes 0-25 (state, flags, temperature, Vcc) and, on paged
/// modules, page 11h bytes 128-213 (data path state, flags, monitors, Active Control Set)
/// of each bank, and the VDM samples and flags of the instances in use.
pub fn monitor_requests(img: &ModuleImage) -> Vec<PageRequest> {
    let mut out = vec![PageRequest::new(I2C_A0, 0, 0, 0, lower::MONITOR_SPAN_LEN)];
    if lower::flat_memory(img) == Some(false) {
        let len = page11::MONITOR_SPAN_END - 128 + 1;
        for bank in 0..page01::bank_count(img).unwrap_or(1) {
            out.push(PageRequest::new(I2C_A0, 0x11, bank, 128, len));
        }
        out.extend(vdm::monitor_requests(img));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::map::{first_overlap, first_straddling, Field};
    use super::*;

    #[test]
    fn field_tables_do_not_overlap() {
        let all: Vec<Field> =
            [lower::FIELDS, page00::FIELDS, page01::FIELDS, page02::FIELDS, page11::MONITOR_FIELDS, &[page11::DP_CONFIG], vdm::FIELDS]
                .concat();
        assert_eq!(first_overlap(&all), None);
        assert_eq!(first_straddling(&all), None);
    }

    #[test]
    fn module_global_controls_give_the_low_power_requests() {
        // Lower memory byte 26 (CMIS 5.2 8.2): bit 4 LowPwrRequestSW, bit 6
        // LowPwrAllowRequestHW; bit 7 BankBroadcastEnable and bit 3 SoftwareReset are not them.
        let controls = |b26: u8| {
            let mut img = ModuleImage::new();
            img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0x00]).unwrap();
            img.insert(I2C_A0, 0, 0, 26, &[b26]).unwrap();
            decode(&img).low_power_controls.map(|c| (c.request_sw, c.allow_request_hw))
        };
        assert_eq!(controls(0x10), Some((true, false)));
        assert_eq!(controls(0x40), Some((false, true)));
        assert_eq!(controls(0x88), Some((false, false)));
        assert_eq!(controls(0x50), Some((true, true)));
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0x00]).unwrap();
        assert_eq!(decode(&img).low_power_controls, None, "byte 26 not read");
    }

    /// Paged module, page 00h byte 210 = `unsupported`, page 11h bank 0 read.
    fn with_lane_bitmap(unsupported: u8) -> ModuleReport {
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0x00]).unwrap();
        img.insert(I2C_A0, 0x00, 0, 210, &[unsupported]).unwrap();
        img.insert(I2C_A0, 0x11, 0, 128, &[0x44; 4]).unwrap();
        decode(&img)
    }

    #[test]
    fn unsupported_media_lanes_are_left_out() {
        // 0xf0: lanes 5-8 unsupported (a 4-lane DR4 in a QSFP-DD) -> lanes 1-4.
        let lanes: Vec<u8> = with_lane_bitmap(0xf0).lanes.iter().map(|l| l.lane).collect();
        assert_eq!(lanes, [1, 2, 3, 4]);
        // 0x00: all eight.
        assert_eq!(with_lane_bitmap(0x00).lanes.len(), 8);
        // 0x03 claims lane 1 is missing: not credible, ignored with a warning.
        let r = with_lane_bitmap(0x03);
        assert_eq!(r.lanes.len(), 8);
        assert!(r.warnings.iter().any(|w| w.contains("byte 210 = 0x03")), "{:?}", r.warnings);
    }

    #[test]
    fn requests_are_valid_half_page_reads() {
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0x00]).unwrap();
        img.insert(I2C_A0, 0x01, 0, 142, &[0x02]).unwrap(); // banks 0-3
        let st = static_pages(&img);
        assert_eq!(st.len(), 2 + 2 + 4 * 2);
        let mon = monitor_requests(&img);
        assert_eq!(mon[0], PageRequest::new(I2C_A0, 0, 0, 0, 26));
        assert_eq!(mon[1], PageRequest::new(I2C_A0, 0x11, 0, 128, 86));
        assert_eq!(mon.len(), 5);
        assert!(st.iter().chain(&mon).all(PageRequest::is_valid));
    }

    #[test]
    fn rx_plan_reads_the_rx_words_while_its_bytes_stay() {
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0x00]).unwrap(); // QSFP-DD, paged memory
        img.insert(I2C_A0, 0x00, 0, 210, &[0x00]).unwrap(); // every media lane supported
        img.insert(I2C_A0, 0x01, 0, 159, &[0x00, 0x04]).unwrap(); // byte 160 bit 2: Rx power monitored
                                                                  // Page 11h bytes 186-201, lanes 1-8: lane 1 Rx power 0x2710 = 10000 x 0.1 uW = 1.0 mW
                                                                  // (Table 8-82), the others 0 mW.
        let mut rx = [0; 16];
        rx[..2].copy_from_slice(&[0x27, 0x10]);
        img.insert(I2C_A0, 0x11, 0, 186, &rx).unwrap();
        let plan = RxPlan::new(&img);
        let mut out = vec![Some(9.0); 12];
        plan.read(&img, &mut out);
        let mut want = vec![Some(0.0); 8];
        want[0] = Some(1.0);
        assert_eq!(out, want);
        assert_eq!(lane_rx_power_mw(&img), out);
        // New Rx words, an unchanged lower page and unchanged byte 210 keep the plan; a
        // changed memory model byte, byte 210 or anything on page 01h does not.
        let runs = |r: &[(u8, u16, &[u8])]| plan.holds_for(r.iter().map(|(page, off, d)| (I2C_A0, *page, *off, *d)));
        assert!(runs(&[(0x11, 186, &[0x00, 0x01]), (0x00, 0, &[0x18, 0x50, 0x00])]));
        assert!(!runs(&[(0x00, 0, &[0x18, 0x50, 0x80])]));
        assert!(runs(&[(0x00, 200, &[0; 16])]));
        assert!(!runs(&[(0x00, 200, &[0xf0; 16])]));
        assert!(!runs(&[(0x01, 200, &[0x00])]));
    }
}
