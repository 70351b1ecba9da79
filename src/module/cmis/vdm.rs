//! Versatile Diagnostics Monitoring, pages 20h-2Fh (CMIS 5.2 VDM section), read only.
//!
//! - Page 01h byte 142 bit 6: VDM pages supported (CMIS 5.2 8.4, supported pages advertising).
//! - Page 2Fh byte 128 bits 1-0: groups supported minus one (VDM advertisement and control).
//!   Byte 144 (freeze request) is a control the module acts on: never written here.
//! - Group g (0-3): descriptor page 20h+g, samples 24h+g, threshold sets 28h+g; page 2Ch
//!   holds the flags of all four groups (CMIS 5.2 VDM section, "VDM descriptor", "VDM
//!   real-time values", "VDM thresholds", "VDM flags"). Each group has 64 instances.
//! - Descriptor, 2 bytes per instance at 128 + 2i: even byte bits 7-4 threshold set ID,
//!   bits 3-0 lane - 1; odd byte the observable type ID (0 = unused) ([`vdm_types`]).
//! - Sample i: a big-endian word at 128 + 2i of the sample page, encoded per its type.
//! - Threshold set s: 8 bytes at 128 + 8s of the threshold page: high alarm, low alarm,
//!   high warning, low warning, each encoded as the instance's samples.
//! - Flags of instance i of group g: page 2Ch byte 128 + 32g + i/2, nibble 4 x (i mod 2):
//!   bit 0 high alarm, 1 low alarm, 2 high warning, 3 low warning (latched).
//!
//! VDM pages are read in bank 0: the descriptor's 4-bit lane field covers the module's
//! lanes itself (SONiC's cmisVDM.py reads the same way). Layout cross-checked against SONiC
//! sonic_xcvr (api/public/cmisVDM.py, mem_maps/public/cmis.py).

use super::super::map::Field;
use super::super::report::ModuleReport;
use super::super::threshold::ThresholdSet;
use super::super::vdm::{Side, VdmLane, VdmObservable, VdmReport, VdmSideValues};
use super::super::{HalfView, ModuleImage, PageRequest, I2C_A0};
use super::page01;
use super::vdm_types::{self, Quantity};

/// Page 01h byte 142 bit 6 (shared byte with BanksSupported, [`page01::PAGES_BANKS`]).
const VDM_SUPPORTED_BIT: u8 = 0x40;
/// Page 2Fh byte 128: bits 1-0 = number of groups - 1.
pub(super) const GROUPS_SUPPORTED: Field = Field::new("vdm_groups_supported", I2C_A0, 0x2f, 128, 1);
const DESCRIPTOR_PAGE: u8 = 0x20;
const SAMPLE_PAGE: u8 = 0x24;
const THRESHOLD_PAGE: u8 = 0x28;
const FLAG_PAGE: u8 = 0x2c;
const INSTANCES_PER_GROUP: usize = 64;
/// Flag bytes per group on page 2Ch: 64 instances x 4 bits.
const FLAG_BYTES_PER_GROUP: usize = 32;
const FLAG_NAMES: [&str; 4] = ["high_alarm", "low_alarm", "high_warning", "low_warning"];

/// The half pages whose every byte a sample may re-read (VDM samples, CMIS 5.2 pages
/// 24h-27h, and flags, page 2Ch): read again per sample by [`refresh`].
pub(super) const MONITOR_PAGES: &[u8] = &[SAMPLE_PAGE, SAMPLE_PAGE + 1, SAMPLE_PAGE + 2, SAMPLE_PAGE + 3, FLAG_PAGE];

const fn page_field(name: &'static str, page: u8) -> Field {
    Field::new(name, I2C_A0, page, 128, 128)
}

/// Every field this decoder reads, for the overlap test.
#[cfg(test)]
pub(super) const FIELDS: &[Field] = &[
    GROUPS_SUPPORTED,
    page_field("vdm_descriptors_1", 0x20),
    page_field("vdm_descriptors_2", 0x21),
    page_field("vdm_descriptors_3", 0x22),
    page_field("vdm_descriptors_4", 0x23),
    page_field("vdm_samples_1", 0x24),
    page_field("vdm_samples_2", 0x25),
    page_field("vdm_samples_3", 0x26),
    page_field("vdm_samples_4", 0x27),
    page_field("vdm_thresholds_1", 0x28),
    page_field("vdm_thresholds_2", 0x29),
    page_field("vdm_thresholds_3", 0x2a),
    page_field("vdm_thresholds_4", 0x2b),
    page_field("vdm_flags", 0x2c),
];

/// Page 01h says the module implements pages 20h-2Fh.
fn advertised(img: &ModuleImage) -> bool {
    page01::PAGES_BANKS.byte(img, 0).is_some_and(|b| b & VDM_SUPPORTED_BIT != 0)
}

/// Groups (1-4) page 2Fh advertises, when VDM is advertised and page 2Fh was read.
fn groups(img: &ModuleImage) -> Option<u8> {
    advertised(img).then(|| GROUPS_SUPPORTED.byte(img, 0)).flatten().map(|b| (b & 0x03) + 1)
}

/// The descriptor bytes of group `g` (0-based), if read.
fn descriptors(img: &ModuleImage, g: u8) -> Option<&[u8]> {
    page_field("vdm_descriptors", DESCRIPTOR_PAGE + g).read(img, 0)
}

/// Instances in use in group `g`: up to the last descriptor with a non-zero type ID.
fn used_instances(img: &ModuleImage, g: u8) -> usize {
    descriptors(img, g).map_or(0, |d| d.chunks(2).rposition(|c| c[1] != 0).map_or(0, |i| i + 1))
}

/// Static VDM pages: 2Fh when page 01h advertises VDM, then each advertised group's
/// descriptor and threshold pages.
pub(super) fn static_pages(img: &ModuleImage) -> Vec<PageRequest> {
    if !advertised(img) {
        return Vec::new();
    }
    let mut out = vec![PageRequest::upper(I2C_A0, 0x2f, 0)];
    for g in 0..groups(img).unwrap_or(0) {
        out.push(PageRequest::upper(I2C_A0, DESCRIPTOR_PAGE + g, 0));
        out.push(PageRequest::upper(I2C_A0, THRESHOLD_PAGE + g, 0));
    }
    out
}

/// Per-sample VDM reads: the sample words and flag nibbles of the instances in use.
pub(super) fn monitor_requests(img: &ModuleImage) -> Vec<PageRequest> {
    let mut out = Vec::new();
    for g in 0..groups(img).unwrap_or(0) {
        let n = used_instances(img, g);
        if n == 0 {
            continue;
        }
        // n <= 64: 2n <= 128 and 128 + 32g + n/2 stays inside the half page.
        let flag_at = 128 + FLAG_BYTES_PER_GROUP * usize::from(g);
        out.push(PageRequest::new(I2C_A0, SAMPLE_PAGE + g, 0, 128, (2 * n) as u8));
        out.push(PageRequest::new(I2C_A0, FLAG_PAGE, 0, flag_at as u8, n.div_ceil(2) as u8));
    }
    out
}

/// Decodes the VDM pages into `r.vdm`; nothing when page 01h does not advertise VDM.
pub(super) fn decode(img: &ModuleImage, r: &mut ModuleReport) {
    if !advertised(img) {
        return;
    }
    let mut vdm = VdmReport { groups_supported: groups(img), ..Default::default() };
    let Some(groups) = vdm.groups_supported else {
        r.warnings.push("page 01h advertises VDM but page 2Fh is absent: VDM not decoded".into());
        r.vdm = Some(vdm);
        return;
    };
    for g in 0..groups {
        let Some(desc) = descriptors(img, g) else {
            r.warnings.push(format!("VDM group {} descriptor page {:02X}h absent: not decoded", g + 1, DESCRIPTOR_PAGE + g));
            continue;
        };
        let thresholds = img.bytes(I2C_A0, THRESHOLD_PAGE + g, 0, 128, 128);
        let pages = SamplePages::of(img, g);
        for (i, d) in desc.chunks(2).enumerate().take(INSTANCES_PER_GROUP) {
            if d[1] == 0 {
                continue;
            }
            // i < 64 and the descriptor nibbles are < 16: every value fits a u8.
            let (instance, set) = (i as u8, d[0] >> 4);
            let ty = vdm_types::lookup(d[1]);
            let threshold = |k: usize| thresholds.and_then(|t| t.get(8 * usize::from(set) + 2 * k..8 * usize::from(set) + 2 * k + 2));
            let thresholds = ty.and_then(|ty| {
                let w: Vec<f64> = (0..4).filter_map(|k| threshold(k).map(|b| ty.format.decode([b[0], b[1]]))).collect();
                (w.len() == 4).then(|| ThresholdSet { high_alarm: w[0], low_alarm: w[1], high_warning: w[2], low_warning: w[3] })
            });
            let mut o = VdmObservable {
                group: g + 1,
                instance,
                type_id: d[1],
                key: ty.map(|t| t.key),
                side: ty.and_then(|t| t.side),
                lane: (d[0] & 0x0f) + 1,
                threshold_set: set,
                raw: None,
                value: None,
                thresholds,
                flags: Vec::new(),
            };
            read_sample(&pages, &mut o);
            vdm.observables.push(o);
        }
    }
    vdm.lanes = lanes(&vdm.observables);
    r.vdm = Some(vdm);
}

/// The pages an instance's sample and flags are read from: group `g`'s sample page and
/// the flag page.
struct SamplePages<'a> {
    samples: Option<HalfView<'a>>,
    flags: Option<HalfView<'a>>,
}

impl<'a> SamplePages<'a> {
    fn of(img: &'a ModuleImage, g: u8) -> Self {
        SamplePages { samples: img.half_view(I2C_A0, SAMPLE_PAGE + g, 0, 128), flags: img.half_view(I2C_A0, FLAG_PAGE, 0, 128) }
    }
}

/// The sample word, its value and the latched flags of observable `o` (group and
/// instance set), from `pages` of its group; what a sample re-reads.
fn read_sample(pages: &SamplePages, o: &mut VdmObservable) {
    let i = usize::from(o.instance);
    // A sample read covers only the instances in use: read the word, not the page.
    // instance < 64: 128 + 2 x instance + 1 <= 255.
    let raw = pages.samples.and_then(|h| h.bytes(128 + 2 * o.instance, 2)).map(|b| [b[0], b[1]]);
    o.raw = raw.map(u16::from_be_bytes);
    o.value = vdm_types::lookup(o.type_id).zip(raw).map(|(t, w)| t.format.decode(w));
    // 128 + 32 x (group - 1) + i/2 <= 128 + 96 + 31 = 255.
    let at = 128 + FLAG_BYTES_PER_GROUP * usize::from(o.group - 1) + i / 2;
    let nibble = pages.flags.and_then(|h| h.byte(at as u8)).map(|b| (b >> (4 * (i % 2))) & 0x0f);
    o.flags.clear();
    o.flags.extend(FLAG_NAMES.iter().enumerate().filter(|(bit, _)| nibble.is_some_and(|n| n & (1 << bit) != 0)).map(|(_, n)| *n));
}

/// Decodes again, into `vdm` (the decode of the same image before a sample's bytes on
/// the sample and flag pages changed), every sample word, value and flag, and the lane view.
pub(super) fn refresh(img: &ModuleImage, vdm: &mut VdmReport) {
    let mut pages = None;
    for o in &mut vdm.observables {
        // Observables come group by group.
        let p = match pages {
            Some((g, ref p)) if g == o.group => p,
            _ => &pages.insert((o.group, SamplePages::of(img, o.group - 1))).1,
        };
        read_sample(p, o);
    }
    vdm.lanes = lanes(&vdm.observables);
}

/// The lane view: the first instance of each lane quantity wins.
fn lanes(observables: &[VdmObservable]) -> Vec<VdmLane> {
    let mut out: Vec<VdmLane> = Vec::new();
    for o in observables {
        let (Some(ty), Some(side), Some(value)) = (vdm_types::lookup(o.type_id), o.side, o.value) else { continue };
        let idx = match out.iter().position(|l| l.lane == o.lane) {
            Some(i) => i,
            None => {
                out.push(VdmLane { lane: o.lane, ..Default::default() });
                out.len() - 1
            }
        };
        let v = match side {
            Side::Media => &mut out[idx].media,
            Side::Host => &mut out[idx].host,
        };
        if let Some(slot) = slot(v, ty.quantity) {
            slot.get_or_insert(value);
        }
    }
    out.sort_by_key(|l| l.lane);
    out
}

fn slot(v: &mut VdmSideValues, q: Quantity) -> Option<&mut Option<f64>> {
    Some(match q {
        Quantity::EsnrDb => &mut v.esnr_db,
        Quantity::LtpDb => &mut v.ltp_db,
        Quantity::PreFecBerMin => &mut v.pre_fec_ber_min,
        Quantity::PreFecBerMax => &mut v.pre_fec_ber_max,
        Quantity::PreFecBerAverage => &mut v.pre_fec_ber_average,
        Quantity::PreFecBerCurrent => &mut v.pre_fec_ber_current,
        Quantity::ErroredFramesMin => &mut v.errored_frames_min,
        Quantity::ErroredFramesMax => &mut v.errored_frames_max,
        Quantity::ErroredFramesAverage => &mut v.errored_frames_average,
        Quantity::ErroredFramesCurrent => &mut v.errored_frames_current,
        Quantity::Other => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Paged CMIS module advertising VDM with one group.
    fn image(descriptors: &[(u8, u8)], samples: &[u16]) -> ModuleImage {
        let mut img = ModuleImage::new();
        img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0x00]).unwrap();
        img.insert(I2C_A0, 0x01, 0, 142, &[VDM_SUPPORTED_BIT]).unwrap();
        img.insert(I2C_A0, 0x2f, 0, 128, &[0x00]).unwrap();
        let mut d = vec![0u8; 128];
        for (i, (lane_set, ty)) in descriptors.iter().enumerate() {
            d[2 * i] = *lane_set;
            d[2 * i + 1] = *ty;
        }
        img.insert(I2C_A0, 0x20, 0, 128, &d).unwrap();
        let s: Vec<u8> = samples.iter().flat_map(|w| w.to_be_bytes()).collect();
        img.insert(I2C_A0, 0x24, 0, 128, &s).unwrap();
        img
    }

    #[test]
    fn requests_follow_the_advertisement() {
        let img = image(&[(0x00, 5), (0x01, 5), (0x02, 15)], &[]);
        let st = static_pages(&img);
        assert_eq!(st, [PageRequest::upper(I2C_A0, 0x2f, 0), PageRequest::upper(I2C_A0, 0x20, 0), PageRequest::upper(I2C_A0, 0x28, 0)]);
        // Three instances: 6 sample bytes, 2 flag bytes (4 bits each).
        assert_eq!(monitor_requests(&img), [PageRequest::new(I2C_A0, 0x24, 0, 128, 6), PageRequest::new(I2C_A0, 0x2c, 0, 128, 2)]);
        assert!(st.iter().chain(&monitor_requests(&img)).all(PageRequest::is_valid));
        // Not advertised in page 01h: nothing, whatever page 2Fh says.
        let mut bare = ModuleImage::new();
        bare.insert(I2C_A0, 0x01, 0, 142, &[0x00]).unwrap();
        assert!(static_pages(&bare).is_empty());
    }

    #[test]
    fn descriptors_samples_thresholds_and_flags() {
        // Instance 0: lane 3 (nibble 2), threshold set 1, eSNR media; instance 1: lane 3, BER.
        let mut img = image(&[(0x12, 5), (0x02, 15)], &[0x1780, 0x90f0]);
        let mut th = vec![0u8; 128];
        // Set 1 (bytes 8-15): 30 / 15 / 28 / 17 dB x 256.
        for (k, db) in [30u16, 15, 28, 17].iter().enumerate() {
            th[8 + 2 * k..10 + 2 * k].copy_from_slice(&(db * 256).to_be_bytes());
        }
        img.insert(I2C_A0, 0x28, 0, 128, &th).unwrap();
        // Instance 1 (high nibble of byte 128): bit 2 high warning.
        img.insert(I2C_A0, 0x2c, 0, 128, &[0x40]).unwrap();
        let mut r = ModuleReport::new(crate::module::Standard::Cmis, Some(0x18));
        decode(&img, &mut r);
        let v = r.vdm.unwrap();
        assert_eq!(v.groups_supported, Some(1));
        let (esnr, ber) = (&v.observables[0], &v.observables[1]);
        assert_eq!((esnr.lane, esnr.threshold_set, esnr.key), (3, 1, Some("esnr_media_db")));
        assert_eq!(esnr.value, Some(23.5)); // 0x1780 = 6016 / 256
        assert_eq!(esnr.thresholds.unwrap().low_warning, 17.0);
        assert!(esnr.flags.is_empty());
        assert!((ber.value.unwrap() - 2.4e-4).abs() < 1e-18); // 240 x 10^(18 - 24)
        assert_eq!(ber.flags, ["high_warning"]);
        assert_eq!(v.lanes.len(), 1);
        assert_eq!(v.lanes[0].media.esnr_db, Some(23.5));
    }

    #[test]
    fn unknown_types_keep_their_raw_word_and_unused_slots_are_skipped() {
        // Instance 0 unused (type 0), instance 1 type 200 (not in the table) on lane 1.
        let img = image(&[(0x00, 0), (0x00, 200)], &[0x1234, 0xabcd]);
        let mut r = ModuleReport::new(crate::module::Standard::Cmis, Some(0x18));
        decode(&img, &mut r);
        let v = r.vdm.unwrap();
        assert_eq!(v.observables.len(), 1);
        let o = &v.observables[0];
        assert_eq!((o.instance, o.type_id, o.key, o.raw, o.value), (1, 200, None, Some(0xabcd), None));
        assert!(v.lanes.is_empty());
        // Page 2Fh missing although page 01h advertises VDM: a warning, an empty report.
        let mut bare = ModuleImage::new();
        bare.insert(I2C_A0, 0x01, 0, 142, &[VDM_SUPPORTED_BIT]).unwrap();
        let mut r = ModuleReport::new(crate::module::Standard::Cmis, Some(0x18));
        decode(&bare, &mut r);
        assert_eq!(r.vdm.map(|v| v.groups_supported), Some(None));
        assert!(r.warnings.iter().any(|w| w.contains("page 2Fh is absent")), "{:?}", r.warnings);
    }
}
