//! Lane count, per-lane bit rate and modulation of a link, from the kernel link mode
//! (`200000baseSR4/Full`), the kernel's lane count, and the module's own view.
//!
//! The bit rate is the one on the wire after FEC encoding (what corrected-bit counters
//! count against): 64b/66b + RS-FEC transcoding for 25G NRZ lanes (25.78125 Gb/s),
//! 256b/257b + RS(544,514) for PAM4 lanes (53.125 / 106.25 / 212.5 Gb/s); physics.md "Lane rates".

use crate::counters::LinkInfo;
use crate::module::report::Modulation;
use crate::module::ModuleReport;
use serde::Serialize;

/// A per-lane speed class, named in the JSON (`lane_class`) as the table below names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub(crate) enum LaneClass {
    #[serde(rename = "1G NRZ")]
    G1Nrz,
    #[serde(rename = "10G NRZ")]
    G10Nrz,
    #[serde(rename = "25G NRZ")]
    G25Nrz,
    #[serde(rename = "50G PAM4")]
    G50Pam4,
    #[serde(rename = "100G PAM4")]
    G100Pam4,
    #[serde(rename = "200G PAM4")]
    G200Pam4,
}

/// A lane class's figures: nominal Mb/s (link speed / lanes), bit rate on the wire, modulation.
struct LaneClassSpec {
    nominal_mbps: u32,
    class: LaneClass,
    gbps: f64,
    modulation: Modulation,
}

/// IEEE 802.3 lane classes. 1G: 8b/10b (Clause 36); 10G: 64b/66b (Clause 49);
/// 25G: 64b/66b (Clause 107/108); PAM4: 26.5625 / 53.125 / 106.25 GBd (Clauses 134-140, 173+).
///
/// 200G lanes (IEEE 802.3dj): 200 Gb/s x 257/256 (transcoding) x 544/514 (RS(544,514)) =
/// 212.5 Gb/s, 106.25 GBd PAM4, the rate of the host's FEC-coded stream: the AUI's
/// (Annex 176E), copper's (Clause 179) and the 500 m DR PMDs' (Clause 180). The Clause 181
/// and 183 PMDs signal at 113.4375 GBd (226.875 Gb/s) on the fibre because the module adds
/// an inner code (SFF-8024 Rev 4.13 Table 4-7; `module::cmis::appcodes`), but it removes it
/// again before the host: the host's corrected bits are over the 212.5 Gb/s stream whatever
/// the PMD, so that is the BER denominator here.
const LANE_CLASSES: &[LaneClassSpec] = &[
    LaneClassSpec { nominal_mbps: 1_000, class: LaneClass::G1Nrz, gbps: 1.25, modulation: Modulation::Nrz },
    LaneClassSpec { nominal_mbps: 10_000, class: LaneClass::G10Nrz, gbps: 10.3125, modulation: Modulation::Nrz },
    LaneClassSpec { nominal_mbps: 25_000, class: LaneClass::G25Nrz, gbps: 25.78125, modulation: Modulation::Nrz },
    LaneClassSpec { nominal_mbps: 50_000, class: LaneClass::G50Pam4, gbps: 53.125, modulation: Modulation::Pam4 },
    LaneClassSpec { nominal_mbps: 100_000, class: LaneClass::G100Pam4, gbps: 106.25, modulation: Modulation::Pam4 },
    LaneClassSpec { nominal_mbps: 200_000, class: LaneClass::G200Pam4, gbps: 212.5, modulation: Modulation::Pam4 },
];

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct LaneRate {
    /// Port speed: the kernel's, else the link mode's.
    pub(crate) speed_mbps: u32,
    pub(crate) lanes: u32,
    /// e.g. "50G PAM4".
    pub(crate) class: LaneClass,
    pub(crate) lane_rate_gbps: f64,
    pub(crate) modulation: Modulation,
}

/// Speed (Mb/s) and lane count from a kernel link-mode name: `200000baseSR4/Full` ->
/// (200000, 4), `25000baseSR/Full` -> (25000, 1), `800000baseDR8_2/Full` -> (800000, 8).
pub(crate) fn parse_link_mode(name: &str) -> Option<(u32, u32)> {
    let (speed, rest) = name.split_once("base")?;
    let speed_mbps = speed.parse().ok()?;
    let media = rest.split(['/', '_']).next().unwrap_or(rest);
    // The media name's trailing digits (`SR4` -> 4), sliced rather than collected: parsed per window.
    let digits = &media[media.trim_end_matches(|c: char| c.is_ascii_digit()).len()..];
    let lanes = if digits.is_empty() { 1 } else { digits.parse().ok()? };
    (lanes > 0).then_some((speed_mbps, lanes))
}

/// The lane count where the kernel states none (no lane count, no link mode: an old
/// kernel, an import of `ethtool IFACE` that prints only the speed), and where it came
/// from: the module's own count; one lane for an SFP (SFF-8472 modules, SFF-8419's form
/// factor, carry one lane each way); one lane for a port of 25G or less, which IEEE 802.3
/// runs serially (1000BASE-X Clause 36, 10GBASE-R Clause 49, 25GBASE-R Clause 107; the
/// kernel names the rare four-lane 10G PMDs, `10000baseLX4`, in its link mode). Above
/// 25G a speed has several lane layouts (50G: 2x25G NRZ or 1x50G PAM4): none is assumed.
/// The first of those that makes the speed a known lane rate is taken: a QSFP+ (four 10G
/// lanes) in a port running 10G uses one of them, not four of 2.5G; when none does, the
/// first stands and the lane rate is said to be unknown.
pub(crate) fn unstated_lanes(speed_mbps: u32, module: Option<&ModuleReport>) -> Option<(u32, &'static str)> {
    let module_lanes = module.and_then(|m| m.host_lane_count.or(m.media_lane_count)).filter(|n| *n > 0).map(u32::from);
    let candidates = [
        module_lanes.map(|n| (n, "taken from the module")),
        module.is_some_and(|m| m.standard == Some(crate::module::Standard::Sff8472)).then_some((1, "from the SFP form factor (one lane)")),
        (speed_mbps <= 25_000).then_some((
            1,
            if module_lanes.is_some_and(|n| n > 1) {
                "assumed: a port of 25G or less runs one lane, one of the module's"
            } else {
                "assumed: a port of 25G or less runs one lane"
            },
        )),
    ];
    let known = |n: u32| speed_mbps.is_multiple_of(n) && LANE_CLASSES.iter().any(|c| c.nominal_mbps == speed_mbps / n);
    let mut stated = candidates.into_iter().flatten();
    let first = stated.clone().next();
    stated.find(|(n, _)| known(*n)).or(first)
}

/// The lane rate of a link; `notes` gets a sentence for every assumption or disagreement.
pub(crate) fn lane_rate(link: &LinkInfo, module: Option<&ModuleReport>, notes: &mut Vec<String>) -> Option<LaneRate> {
    // Parsed only for what the kernel did not give (it gives both on most links; a CSV
    // export asks every window).
    let parsed = || link.link_mode.as_deref().and_then(parse_link_mode);
    let speed_mbps = link.speed_mbps.or_else(|| parsed().map(|p| p.0))?;
    let lanes = match link.lanes.filter(|n| *n > 0).or_else(|| parsed().map(|p| p.1)) {
        Some(n) => n,
        None => {
            let (n, from) = unstated_lanes(speed_mbps, module)?;
            notes.push(format!("lane count {n} {from} (the kernel gave none)"));
            n
        }
    };
    let per_lane_mbps = speed_mbps / lanes;
    let Some(class) = LANE_CLASSES.iter().find(|c| c.nominal_mbps == per_lane_mbps) else {
        notes.push(format!("{per_lane_mbps} Mb/s per lane is not a known lane class: no per-lane bit rate"));
        return None;
    };
    if let Some(m) = module.and_then(|m| m.modulation).filter(|m| *m != class.modulation) {
        // Gearbox modules (e.g. 100G-DR: 4x25G NRZ host, 1x100G PAM4 media) differ by
        // design; counters are the host lanes', so the link's modulation is used.
        notes.push(format!("module media modulation {m:?} differs from the host lanes' {:?}; using the host lanes'", class.modulation));
    }
    Some(LaneRate { speed_mbps, lanes, class: class.class, lane_rate_gbps: class.gbps, modulation: class.modulation })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::Standard;

    fn link(mode: &str, speed: Option<u32>, lanes: Option<u32>) -> LinkInfo {
        LinkInfo { speed_mbps: speed, lanes, link_mode: Some(mode.into()), ..Default::default() }
    }

    #[test]
    fn link_mode_names() {
        assert_eq!(parse_link_mode("200000baseSR4/Full"), Some((200_000, 4)));
        assert_eq!(parse_link_mode("25000baseSR/Full"), Some((25_000, 1)));
        assert_eq!(parse_link_mode("800000baseDR8_2/Full"), Some((800_000, 8)));
        assert_eq!(parse_link_mode("100000baseLR4_ER4/Full"), Some((100_000, 4)));
        assert_eq!(parse_link_mode("10000baseT/Full"), Some((10_000, 1)));
        assert_eq!(parse_link_mode("garbage"), None);
        assert_eq!(parse_link_mode("xbaseSR4"), None);
        assert_eq!(parse_link_mode("1000baseSR0"), None);
    }

    #[test]
    fn classes_from_speed_over_lanes() {
        let mut n = Vec::new();
        // 200000 / 4 = 50000 -> 50G PAM4, 53.125 Gb/s.
        let r = lane_rate(&link("200000baseSR4/Full", None, None), None, &mut n).unwrap();
        assert_eq!((r.lanes, r.lane_rate_gbps, r.modulation), (4, 53.125, Modulation::Pam4));
        // 100000 / 4 = 25000 -> 25G NRZ.
        let r = lane_rate(&link("100000baseSR4/Full", Some(100_000), None), None, &mut n).unwrap();
        assert_eq!((r.lane_rate_gbps, r.modulation), (25.78125, Modulation::Nrz));
        // 400000 / 4 = 100000 -> 106.25; 800000 / 4 = 200000 -> 212.5; 40000 / 4 -> 10G.
        assert_eq!(lane_rate(&link("400000baseDR4/Full", None, Some(4)), None, &mut n).unwrap().lane_rate_gbps, 106.25);
        assert_eq!(lane_rate(&link("800000baseDR4/Full", None, None), None, &mut n).unwrap().lane_rate_gbps, 212.5);
        assert_eq!(lane_rate(&link("40000baseSR4/Full", None, None), None, &mut n).unwrap().lane_rate_gbps, 10.3125);
        // 1600000 / 8 = 200000 -> 200G PAM4: 8 x 212.5 Gb/s (IEEE 802.3dj 1.6TBASE-DR8).
        let r = lane_rate(&link("1600000baseDR8/Full", None, None), None, &mut n).unwrap();
        assert_eq!((r.speed_mbps, r.lanes, r.lane_rate_gbps, r.modulation), (1_600_000, 8, 212.5, Modulation::Pam4));
        assert_eq!(parse_link_mode("1600000baseDR8_2/Full"), Some((1_600_000, 8)));
        // 200 x 257/256 x 544/514 = 212.5 Gb/s = 2 bits x 106.25 GBd; a Clause 181 PMD's
        // 113.4375 GBd on the fibre does not change what the host counts over.
        assert_eq!(200.0 * 257.0 / 256.0 * 544.0 / 514.0, 212.5);
        assert_eq!(2.0 * 106.25, 212.5);
        let r = lane_rate(&link("1600000baseDR8_2/Full", None, None), None, &mut n).unwrap();
        assert_eq!((r.lanes, r.lane_rate_gbps), (8, 212.5));
        assert!(n.is_empty());
        // 2500 Mb/s per lane: no class, a note.
        assert!(lane_rate(&link("2500baseT/Full", None, None), None, &mut n).is_none());
        assert_eq!(n.len(), 1);
    }

    #[test]
    fn lanes_the_kernel_does_not_state() {
        // `ethtool IFACE` printing only "Speed: 10000Mb/s": a serial 10GBASE-R lane.
        let mut n = Vec::new();
        let speed_only = |mbps| LinkInfo { speed_mbps: Some(mbps), ..Default::default() };
        let r = lane_rate(&speed_only(10_000), None, &mut n).unwrap();
        assert_eq!((r.lanes, r.lane_rate_gbps), (1, 10.3125));
        assert_eq!(n, vec!["lane count 1 assumed: a port of 25G or less runs one lane (the kernel gave none)"]);
        // 50G: 2x25G NRZ or 1x50G PAM4, nothing assumed; an SFP56 module says one lane.
        assert!(lane_rate(&speed_only(50_000), None, &mut n).is_none());
        let sfp = ModuleReport::new(Standard::Sff8472, Some(0x03));
        let r = lane_rate(&speed_only(50_000), Some(&sfp), &mut n).unwrap();
        assert_eq!((r.lanes, r.modulation), (1, Modulation::Pam4));
        assert_eq!(unstated_lanes(100_000, None), None);
        // A QSFP+ (SFF-8636: four 10G lanes) in a port running 10G: 10000 / 4 is no lane
        // rate, 10000 / 1 is 10GBASE-R's (the real mlx4 paste in analysis::tests has lanes
        // 2-4 dark); at 40G the module's four stand.
        let mut qsfp = ModuleReport::new(Standard::Sff8636, Some(0x0d));
        qsfp.host_lane_count = Some(4);
        assert_eq!(unstated_lanes(10_000, Some(&qsfp)), Some((1, "assumed: a port of 25G or less runs one lane, one of the module's")));
        assert_eq!(unstated_lanes(40_000, Some(&qsfp)), Some((4, "taken from the module")));
        // 2500 Mb/s: no count makes it a lane rate; the module's stands (and the rate is unknown).
        assert_eq!(unstated_lanes(2_500, Some(&qsfp)), Some((4, "taken from the module")));
    }

    #[test]
    fn module_fills_lanes_and_flags_gearbox() {
        let mut m = ModuleReport::new(Standard::Cmis, Some(0x18));
        m.host_lane_count = Some(4);
        m.modulation = Some(Modulation::Pam4);
        let l = LinkInfo { speed_mbps: Some(100_000), ..Default::default() };
        let mut n = Vec::new();
        let r = lane_rate(&l, Some(&m), &mut n).unwrap();
        assert_eq!((r.lanes, r.modulation), (4, Modulation::Nrz));
        assert_eq!(n.len(), 2, "{n:?}");
    }
}
