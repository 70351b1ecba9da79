//! One per-lane counter model from whatever the kernel and the driver offer.
//!
//! Preference order: the standard netlink FEC/link statistics first (their meaning is
//! fixed by the kernel uAPI), then driver-private `ethtool -S` counters whose meaning is
//! known (mlx5 `*_phy` PPCNT counters, bnxt_en port_stats_ext). Every figure carries its
//! origin so a report can say which one it used.

use super::{DriverStats, FecStats, LinkState};
use serde::Serialize;
use std::fmt;

/// Where a normalised figure came from. Written (JSON, notes) as `netlink`,
/// `driver:<ethtool -S name>`, `ib:<sysfs counter name>` or `samples`: a contract.
/// Every origin is a name this crate knows, so none is allocated per sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The kernel's ethtool netlink statistics (FEC, link, pause).
    Netlink,
    /// A driver-private `ethtool -S` counter by name; a family of lanes or priorities
    /// names its digit `N` (`rx_err_lane_N_phy`).
    Driver(&'static str),
    /// An InfiniBand `PortCounters` counter by its sysfs name (`counters::ib`).
    Ib(&'static str),
    /// Counted from the samples themselves (link up -> down transitions).
    Samples,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Netlink => f.write_str("netlink"),
            Origin::Driver(name) => write!(f, "driver:{name}"),
            Origin::Ib(name) => write!(f, "ib:{name}"),
            Origin::Samples => f.write_str("samples"),
        }
    }
}

impl Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counted {
    pub value: u64,
    pub origin: Origin,
}

/// Per-lane values, index 0 = lane 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaneCounts {
    pub values: Vec<u64>,
    pub origin: Origin,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortCounters {
    pub corrected_bits: Option<Counted>,
    pub corrected_bits_per_lane: Option<LaneCounts>,
    pub corrected_blocks: Option<Counted>,
    pub corrected_blocks_per_lane: Option<LaneCounts>,
    pub uncorrectable_blocks: Option<Counted>,
    pub uncorrectable_blocks_per_lane: Option<LaneCounts>,
    /// Received bits (bnxt_en `rx_bits`, mlx5 `rx_bits_phy` where present): a measured BER denominator.
    pub rx_bits: Option<Counted>,
    /// PCS symbol errors (errors FEC did not correct, or FEC inactive).
    pub pcs_symbol_errors: Option<Counted>,
    pub link_down_events: Option<Counted>,
    /// Frames received with a bad frame check sequence and dropped (IEEE 802.3 30.3.1.1.6
    /// aFrameCheckSequenceErrors): frames lost on the line, whatever FEC says.
    pub fcs_errors: Option<Counted>,
    /// Frames during which the PHY saw an invalid symbol (IEEE 802.3 30.3.2.1.5
    /// aSymbolErrorDuringCarrier): errors that reached the PCS uncorrected. On an
    /// InfiniBand port, `PortCounters` SymbolErrorCounter (`ib:symbol_error`).
    pub symbol_errors: Option<Counted>,
    /// InfiniBand `PortCounters` figures with no Ethernet counterpart (`counters::ib`).
    #[serde(skip_serializing_if = "super::ib::IbCounted::is_empty")]
    pub ib: super::ib::IbCounted,
    /// Pause frames and receive discards (`counters::host`).
    #[serde(skip_serializing_if = "super::host::HostCounted::is_empty")]
    pub host: super::host::HostCounted,
}

/// Driver counters with a known meaning, in preference order per figure.
const DRIVER_CORRECTED_BITS: &[&str] = &["rx_corrected_bits_phy", "rx_corrected_bits"];
const DRIVER_CORRECTED_BLOCKS: &[&str] = &["rx_fec_corrected_blocks"];
const DRIVER_UNCORRECTABLE_BLOCKS: &[&str] = &["rx_fec_uncorrectable_blocks"];
const DRIVER_RX_BITS: &[&str] = &["rx_bits_phy", "rx_bits"];
/// `mlxlink_effective_physical_errors`: mlxlink's "Effective Physical Errors" (errors left
/// after FEC) as `optics import` records them (src/source/import/mlxlink_fields.rs).
const DRIVER_PCS_SYMBOL_ERRORS: &[&str] = &["rx_pcs_symbol_err_phy", "rx_pcs_symbol_err", "mlxlink_effective_physical_errors"];
const DRIVER_LINK_DOWN: &[&str] = &["link_down_events_phy", "link_down_events"];
/// Frames dropped for a bad FCS (docs/import.md "Counters that speak about frame loss"):
/// mlx5 `rx_crc_errors_phy` (PPCNT IEEE 802.3 group, a_frame_check_sequence_errors),
/// bnxt_en `rx_fcs_err_frames` (port_stats), ice `rx_crc_errors.nic` (GLPRT_CRCERRS).
const DRIVER_FCS_ERRORS: &[&str] = &["rx_crc_errors_phy", "rx_fcs_err_frames", "rx_crc_errors.nic"];
/// mlx5 `rx_symbol_err_phy` (PPCNT IEEE 802.3 group, a_symbol_error_during_carrier).
const DRIVER_SYMBOL_ERRORS: &[&str] = &["rx_symbol_err_phy"];

/// A known counter's position in a name table and the origin it is reported under.
#[derive(Clone, Copy, Debug)]
struct Slot {
    at: usize,
    /// The `ethtool -S` name found.
    name: &'static str,
}

impl Slot {
    /// The first of `names` (in preference order) that `stats` has.
    fn find(stats: &DriverStats, names: &[&'static str]) -> Option<Slot> {
        names.iter().find_map(|&name| stats.position(name).map(|at| Slot { at, name }))
    }

    fn counted(self, stats: &DriverStats) -> Counted {
        Counted { value: stats.at(self.at).1, origin: Origin::Driver(self.name) }
    }
}

/// Where the driver counters [`normalize`] reads sit in one name table (positions in name
/// order): they depend on the names only, so they are found once per table
/// ([`DriverStats::slots`]) and a sample of a live device only reads its values.
#[derive(Debug)]
pub(crate) struct Slots {
    corrected_bits: Option<Slot>,
    corrected_blocks: Option<Slot>,
    uncorrectable_blocks: Option<Slot>,
    rx_bits: Option<Slot>,
    pcs_symbol_errors: Option<Slot>,
    link_down: Option<Slot>,
    fcs_errors: Option<Slot>,
    symbol_errors: Option<Slot>,
    /// mlx5 `rx_err_lane_N_phy` positions, lane 0 first.
    lanes: Option<Vec<usize>>,
    /// Pause and discard counters (`counters::host`).
    pub(super) host: super::host::HostSlots,
}

impl Slots {
    pub(super) fn find(stats: &DriverStats) -> Slots {
        Slots {
            corrected_bits: Slot::find(stats, DRIVER_CORRECTED_BITS),
            corrected_blocks: Slot::find(stats, DRIVER_CORRECTED_BLOCKS),
            uncorrectable_blocks: Slot::find(stats, DRIVER_UNCORRECTABLE_BLOCKS),
            rx_bits: Slot::find(stats, DRIVER_RX_BITS),
            pcs_symbol_errors: Slot::find(stats, DRIVER_PCS_SYMBOL_ERRORS),
            link_down: Slot::find(stats, DRIVER_LINK_DOWN),
            fcs_errors: Slot::find(stats, DRIVER_FCS_ERRORS),
            symbol_errors: Slot::find(stats, DRIVER_SYMBOL_ERRORS),
            lanes: mlx5_lane_slots(stats),
            host: super::host::HostSlots::find(stats),
        }
    }
}

const MLX5_LANE_PREFIX: &str = "rx_err_lane_";

/// The driver counters [`normalize`] reads (a copy of a sample that keeps only these
/// normalises the same): the known names and the mlx5 per-lane ones. What the interval
/// walker kept of an interval's first sample before it kept one fold per interface; its
/// equivalence oracle still does.
#[cfg(test)]
pub(crate) fn known_driver_stats(stats: &DriverStats) -> DriverStats {
    let known = [
        DRIVER_CORRECTED_BITS,
        DRIVER_CORRECTED_BLOCKS,
        DRIVER_UNCORRECTABLE_BLOCKS,
        DRIVER_RX_BITS,
        DRIVER_PCS_SYMBOL_ERRORS,
        DRIVER_LINK_DOWN,
        DRIVER_FCS_ERRORS,
        DRIVER_SYMBOL_ERRORS,
    ];
    let named = known.into_iter().flatten().filter_map(|n| stats.position(n));
    let host = super::host::HostSlots::find(stats).positions();
    named.chain(host).chain(stats.prefix_range(MLX5_LANE_PREFIX)).map(|k| stats.at(k)).map(|(n, v)| (n.clone(), v)).collect()
}

/// mlx5 `rx_err_lane_N_phy`: per-lane FEC-corrected bits (PPCNT phy_corrected_bits_laneN),
/// the positions of lanes 0..n.
fn mlx5_lane_slots(stats: &DriverStats) -> Option<Vec<usize>> {
    let mut lanes: Vec<(usize, usize)> = stats
        .prefix_range(MLX5_LANE_PREFIX)
        .filter_map(|k| {
            let n = stats.at(k).0.strip_prefix(MLX5_LANE_PREFIX)?.strip_suffix("_phy")?;
            Some((n.parse::<usize>().ok()?, k))
        })
        .collect();
    if lanes.is_empty() {
        return None;
    }
    lanes.sort();
    // Lanes must be 0..n without gaps to be attributed by position, and no more than a
    // port can have.
    if lanes.len() > super::MAX_LANES || lanes.iter().enumerate().any(|(i, (n, _))| *n != i) {
        return None;
    }
    Some(lanes.into_iter().map(|(_, k)| k).collect())
}

fn mlx5_lane_errors(stats: &DriverStats, slots: &Slots) -> Option<LaneCounts> {
    let values = slots.lanes.as_ref()?.iter().map(|&k| stats.at(k).1).collect();
    Some(LaneCounts { values, origin: Origin::Driver("rx_err_lane_N_phy") })
}

/// The total of a netlink `[total, lane..]` array.
fn total(arr: &[u64]) -> Option<Counted> {
    arr.first().map(|v| Counted { value: *v, origin: Origin::Netlink })
}

/// The lanes of a netlink `[total, lane..]` array into `slot`, reusing its buffer, or
/// `fallback`'s where the array has none.
fn lanes_into(slot: &mut Option<LaneCounts>, arr: &[u64], fallback: impl FnOnce() -> Option<LaneCounts>) {
    match (arr.get(1..).filter(|l| !l.is_empty()), slot.as_mut()) {
        (Some(lanes), Some(old)) => {
            old.values.clear();
            old.values.extend_from_slice(lanes);
            old.origin = Origin::Netlink;
        }
        (Some(lanes), None) => *slot = Some(LaneCounts { values: lanes.to_vec(), origin: Origin::Netlink }),
        (None, _) => *slot = fallback(),
    }
}

pub fn normalize(fec: Option<&FecStats>, link: Option<&LinkState>, driver: &DriverStats) -> PortCounters {
    let mut out = PortCounters::default();
    normalize_into(&mut out, fec, link, driver);
    out
}

/// [`normalize`] into `out`, reusing its per-lane buffers (a stream of samples).
pub fn normalize_into(out: &mut PortCounters, fec: Option<&FecStats>, link: Option<&LinkState>, driver: &DriverStats) {
    let empty = FecStats::default();
    let fec = fec.unwrap_or(&empty);
    let slots = driver.slots();
    let from_driver = |slot: Option<Slot>| slot.map(|s| s.counted(driver));
    out.corrected_bits = total(&fec.corrected_bits).or_else(|| from_driver(slots.corrected_bits));
    lanes_into(&mut out.corrected_bits_per_lane, &fec.corrected_bits, || mlx5_lane_errors(driver, slots));
    out.corrected_blocks = total(&fec.corrected_blocks).or_else(|| from_driver(slots.corrected_blocks));
    lanes_into(&mut out.corrected_blocks_per_lane, &fec.corrected_blocks, || None);
    out.uncorrectable_blocks = total(&fec.uncorrectable_blocks).or_else(|| from_driver(slots.uncorrectable_blocks));
    lanes_into(&mut out.uncorrectable_blocks_per_lane, &fec.uncorrectable_blocks, || None);
    out.rx_bits = from_driver(slots.rx_bits);
    out.pcs_symbol_errors = from_driver(slots.pcs_symbol_errors);
    out.fcs_errors = from_driver(slots.fcs_errors);
    out.symbol_errors = from_driver(slots.symbol_errors);
    out.link_down_events =
        link.and_then(|l| l.down_events).map(|v| Counted { value: v, origin: Origin::Netlink }).or_else(|| from_driver(slots.link_down));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(pairs: &[(&str, u64)]) -> DriverStats {
        pairs.iter().map(|(k, v)| ((*k).into(), *v)).collect()
    }

    #[test]
    fn mlx5_lane_counters_from_the_gx10_excerpt() {
        // ../shared/real-dumps/ctr02: lanes 6, 2, 190, 0; total 198.
        let d = stats(&[
            ("rx_err_lane_0_phy", 6),
            ("rx_err_lane_1_phy", 2),
            ("rx_err_lane_2_phy", 190),
            ("rx_err_lane_3_phy", 0),
            ("rx_corrected_bits_phy", 198),
        ]);
        let p = normalize(None, None, &d);
        assert_eq!(p.corrected_bits_per_lane.as_ref().unwrap().values, vec![6, 2, 190, 0]);
        assert_eq!(p.corrected_bits.as_ref().unwrap().value, 198);
        assert_eq!(p.corrected_bits.unwrap().origin, Origin::Driver("rx_corrected_bits_phy"));
    }

    #[test]
    fn frame_loss_counters_of_mlx5_bnxt_and_ice() {
        // A ConnectX-6 Dx 100G LR4 link (public blog note "100G AIOM: Power budget
        // exceeded", tests/fixtures/counters/README.md): 13147323 CRC errors.
        let d = stats(&[("rx_crc_errors_phy", 13_147_323), ("rx_symbol_err_phy", 13_115_284), ("rx_err_lane_0_phy", 13_115_284)]);
        let p = normalize(None, None, &d);
        assert_eq!(p.fcs_errors.unwrap(), Counted { value: 13_147_323, origin: Origin::Driver("rx_crc_errors_phy") });
        assert_eq!(p.symbol_errors.unwrap().value, 13_115_284);
        // ../shared/real-dumps/ctr03 (bnxt_en): rx_fcs_err_frames 0; ice names it rx_crc_errors.nic.
        assert_eq!(
            normalize(None, None, &stats(&[("rx_fcs_err_frames", 0)])).fcs_errors.unwrap().origin,
            Origin::Driver("rx_fcs_err_frames")
        );
        assert_eq!(normalize(None, None, &stats(&[("rx_crc_errors.nic", 7)])).fcs_errors.unwrap().value, 7);
    }

    #[test]
    fn netlink_wins_and_says_so() {
        let fec = FecStats { corrected_bits: vec![10, 4, 6], corrected_blocks: vec![3], ..Default::default() };
        let d = stats(&[("rx_corrected_bits_phy", 99), ("rx_err_lane_0_phy", 1)]);
        let link = LinkState { up: Some(true), down_events: Some(2), ..Default::default() };
        let p = normalize(Some(&fec), Some(&link), &d);
        assert_eq!(p.corrected_bits.unwrap(), Counted { value: 10, origin: Origin::Netlink });
        assert_eq!(p.corrected_bits_per_lane.unwrap().values, vec![4, 6]);
        assert_eq!(p.corrected_blocks.unwrap().value, 3);
        assert!(p.uncorrectable_blocks.is_none());
        assert_eq!(p.link_down_events.unwrap().value, 2);
    }

    #[test]
    fn bnxt_port_counters() {
        // ../shared/real-dumps/ctr03 (bnxt_en 10G): rx_bits, link_down_events, no per-lane.
        let d = stats(&[("rx_bits", 1722813173120), ("link_down_events", 4), ("rx_corrected_bits", 0), ("rx_pcs_symbol_err", 0)]);
        let p = normalize(None, None, &d);
        assert_eq!(p.rx_bits.unwrap().value, 1722813173120);
        assert_eq!(p.link_down_events.unwrap().origin, Origin::Driver("link_down_events"));
        assert!(p.corrected_bits_per_lane.is_none());
        assert_eq!(p.corrected_bits.unwrap().value, 0);
    }

    #[test]
    fn the_known_counters_alone_normalise_the_same() {
        // 64 queues of unrelated counters around the mlx5 per-lane and PPCNT names.
        let mut d = stats(&[("rx_err_lane_0_phy", 6), ("rx_err_lane_1_phy", 2), ("rx_corrected_bits_phy", 8), ("link_down_events_phy", 1)]);
        for q in 0..64 {
            d.insert(format!("rx_queue_{q}_packets").into(), q);
            d.insert(format!("rx_err_{q}").into(), q);
        }
        let known = known_driver_stats(&d);
        assert_eq!(known.len(), 4);
        assert_eq!(normalize(None, None, &known), normalize(None, None, &d));
    }

    #[test]
    fn a_later_sample_of_the_same_names_reads_its_own_values() {
        // Name order (bytes): rx_bits < rx_err_lane_0_phy < rx_err_lane_1_phy < rx_queue_0_packets.
        let first = stats(&[("rx_err_lane_1_phy", 2), ("rx_err_lane_0_phy", 1), ("rx_bits", 100), ("rx_queue_0_packets", 7)]);
        assert_eq!(normalize(None, None, &first).corrected_bits_per_lane.unwrap().values, vec![1, 2]);
        let later = first.with_values([5, 6, 200, 8]);
        let p = normalize(None, None, &later);
        assert_eq!(p.rx_bits.unwrap().value, 5);
        assert_eq!(p.corrected_bits_per_lane.unwrap().values, vec![6, 200]);
        let want = stats(&[("rx_bits", 5), ("rx_err_lane_0_phy", 6), ("rx_err_lane_1_phy", 200)]);
        assert_eq!(known_driver_stats(&first), stats(&[("rx_bits", 100), ("rx_err_lane_0_phy", 1), ("rx_err_lane_1_phy", 2)]));
        assert_eq!(known_driver_stats(&later), want);
        assert_eq!(normalize(None, None, &known_driver_stats(&later)), normalize(None, None, &later));
    }

    #[test]
    fn gapped_lane_names_are_not_attributed() {
        let d = stats(&[("rx_err_lane_0_phy", 1), ("rx_err_lane_2_phy", 1)]);
        assert!(normalize(None, None, &d).corrected_bits_per_lane.is_none());
    }
}
