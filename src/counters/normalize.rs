//! One per-lane counter model from whatever the kernel and the driver offer.
//!
//! Preference order: the standard netlink FEC/link statistics first (their meaning is
//! fixed by the kernel uAPI), then driver-private `ethtool -S` counters whose meaning is
//! known (mlx5 `*_phy` PPCNT counters, bnxt_en port_stats_ext). Every figure carries its
//! origin so a report can say which one it used.

use super::model::{Counted, LaneCounts, Origin, PortCounters};
use super::slots::{Slot, Slots};
use super::{DriverStats, FecStats, LinkState};

/// The driver counters [`normalize`] reads (a copy of a sample that keeps only these
/// normalises the same): the known names and the mlx5 per-lane ones. What the interval
/// walker kept of an interval's first sample before it kept one fold per interface; its
/// equivalence oracle still does.
#[cfg(test)]
pub(crate) fn known_driver_stats(stats: &DriverStats) -> DriverStats {
    use super::slots::*;
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
    let host = HostSlots::find(stats).positions();
    named.chain(host).chain(stats.prefix_range(MLX5_LANE_PREFIX)).map(|k| stats.at(k)).map(|(n, v)| (n.clone(), v)).collect()
}

fn mlx5_lane_errors(stats: &DriverStats, slots: &Slots) -> Option<LaneCounts> {
    let values = slots.lanes.as_ref()?.iter().map(|&k| stats.at(k).1).collect();
    Some(LaneCounts { values, origin: Origin::Driver("rx_err_lane_N_phy") })
}

/// Where the FEC statistics `fec` were counted: the tool an import read, else netlink.
pub(crate) fn fec_origin(fec: &FecStats) -> Origin {
    fec.source.map_or(Origin::Netlink, Origin::Import)
}

/// The total of a FEC `[total, lane..]` array.
fn total(arr: &[u64], origin: Origin) -> Option<Counted> {
    arr.first().map(|v| Counted { value: *v, origin })
}

/// The lanes of a FEC `[total, lane..]` array into `slot`, reusing its buffer, or
/// `fallback`'s where the array has none.
fn lanes_into(slot: &mut Option<LaneCounts>, arr: &[u64], origin: Origin, fallback: impl FnOnce() -> Option<LaneCounts>) {
    match (arr.get(1..).filter(|l| !l.is_empty()), slot.as_mut()) {
        (Some(lanes), Some(old)) => {
            old.values.clear();
            old.values.extend_from_slice(lanes);
            old.origin = origin;
        }
        (Some(lanes), None) => *slot = Some(LaneCounts { values: lanes.to_vec(), origin }),
        (None, _) => *slot = fallback(),
    }
}

#[cfg(test)]
pub(crate) fn normalize(fec: Option<&FecStats>, link: Option<&LinkState>, driver: &DriverStats) -> PortCounters {
    let mut out = PortCounters::default();
    normalize_into(&mut out, fec, link, driver);
    out
}

/// [`normalize`] into `out`, reusing its per-lane buffers (a stream of samples).
pub(crate) fn normalize_into(out: &mut PortCounters, fec: Option<&FecStats>, link: Option<&LinkState>, driver: &DriverStats) {
    let empty = FecStats::default();
    let fec = fec.unwrap_or(&empty);
    let slots = driver.slots();
    let from_driver = |slot: Option<Slot>| slot.map(|s| Counted { value: driver.at(s.at).1, origin: Origin::Driver(s.name) });
    let origin = fec_origin(fec);
    // A tool's latest readings are no running totals: only their change counts are.
    let readings = fec.latest_readings.as_ref();
    let changes = |r: Option<&super::LatestReading>| r.map(|r| Counted { value: r.changes, origin });
    out.corrected_reading_changes = changes(readings.and_then(|r| r.corrected_blocks.as_ref()));
    out.uncorrectable_reading_changes = changes(readings.and_then(|r| r.uncorrectable_blocks.as_ref()));
    out.latest_readings = readings.cloned();
    let fec = if fec.source.is_none_or(super::FecSource::prints_running_totals) { fec } else { &empty };
    out.corrected_bits = total(&fec.corrected_bits, origin).or_else(|| from_driver(slots.corrected_bits));
    lanes_into(&mut out.corrected_bits_per_lane, &fec.corrected_bits, origin, || mlx5_lane_errors(driver, slots));
    // Said only where the driver's per-lane counters are what would give the lanes.
    let driver_lanes = fec.corrected_bits.len() < 2;
    out.stray_lane_counters = slots.stray_lanes.clone().filter(|_| driver_lanes);
    out.corrected_blocks = total(&fec.corrected_blocks, origin).or_else(|| from_driver(slots.corrected_blocks));
    lanes_into(&mut out.corrected_blocks_per_lane, &fec.corrected_blocks, origin, || None);
    out.uncorrectable_blocks = total(&fec.uncorrectable_blocks, origin).or_else(|| from_driver(slots.uncorrectable_blocks));
    lanes_into(&mut out.uncorrectable_blocks_per_lane, &fec.uncorrectable_blocks, origin, || None);
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
    fn a_stray_lane_name_is_left_out_and_named_not_the_lanes_lost() {
        // The ctr02 lanes beside names no mlx5 prints (its table is rx_err_lane_0_phy to
        // rx_err_lane_3_phy): lanes 0-3 are still lanes 1-4; the others are named.
        let mut d = stats(&[("rx_err_lane_0_phy", 6), ("rx_err_lane_1_phy", 2), ("rx_err_lane_2_phy", 190), ("rx_err_lane_3_phy", 0)]);
        for stray in ["rx_err_lane_99999_phy", "rx_err_lane_x_phy", "rx_err_lane_03_phy", "rx_err_lane_5_phy"] {
            d.insert(stray.into(), 1);
        }
        let p = normalize(None, None, &d);
        assert_eq!(p.corrected_bits_per_lane.unwrap().values, vec![6, 2, 190, 0]);
        let stray: Vec<&str> = p.stray_lane_counters.as_deref().unwrap().iter().map(|n| &**n).collect();
        assert_eq!(stray, ["rx_err_lane_5_phy", "rx_err_lane_99999_phy", "rx_err_lane_03_phy", "rx_err_lane_x_phy"]);
        // Without lane 0 no lane is known by position: every name is said.
        let p = normalize(None, None, &stats(&[("rx_err_lane_1_phy", 2), ("rx_err_lane_99999_phy", 1)]));
        assert!(p.corrected_bits_per_lane.is_none());
        assert_eq!(p.stray_lane_counters.as_deref().map(<[_]>::len), Some(2));
        // Netlink's lanes are the lanes: the driver's names are not read, so not said.
        let fec = FecStats { corrected_bits: vec![10, 4, 6], ..Default::default() };
        assert!(normalize(Some(&fec), None, &d).stray_lane_counters.is_none());
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
        // Lane 1's counter missing: lane 2 cannot be placed by position, lane 0 still can.
        let d = stats(&[("rx_err_lane_0_phy", 1), ("rx_err_lane_2_phy", 1)]);
        let p = normalize(None, None, &d);
        assert_eq!(p.corrected_bits_per_lane.unwrap().values, vec![1]);
        assert_eq!(p.stray_lane_counters.as_deref().map(|s| s[0].to_string()), Some("rx_err_lane_2_phy".into()));
    }

    #[test]
    fn an_imported_tools_fec_counters_carry_its_name() {
        let fec = FecStats { corrected_bits: vec![10, 4, 6], source: Some(crate::counters::FecSource::Nvue), ..Default::default() };
        let p = normalize(Some(&fec), None, &DriverStats::default());
        assert_eq!(p.corrected_bits.unwrap().origin.to_string(), "import:nvue");
        assert_eq!(p.corrected_bits_per_lane.unwrap().origin.to_string(), "import:nvue");
        let p = normalize(Some(&FecStats { source: None, ..fec }), None, &DriverStats::default());
        assert_eq!(p.corrected_bits.unwrap().origin, Origin::Netlink);
    }

    #[test]
    fn latest_readings_are_no_counts_but_their_change_counts_are() {
        use crate::counters::{FecReadings, FecSource, LatestReading};
        let reading = |value, changes| Some(LatestReading { value, changes, ..Default::default() });
        let fec = FecStats {
            // An EOS capture from before `latest_readings`: its arrays are readings too.
            uncorrectable_blocks: vec![5],
            latest_readings: Some(FecReadings { corrected_blocks: reading(1, 577), uncorrectable_blocks: reading(5, 9) }),
            source: Some(FecSource::Eos),
            ..Default::default()
        };
        let p = normalize(Some(&fec), None, &DriverStats::default());
        assert_eq!((p.corrected_blocks, p.uncorrectable_blocks), (None, None));
        assert_eq!(p.corrected_reading_changes, Some(Counted { value: 577, origin: Origin::Import(FecSource::Eos) }));
        assert_eq!(p.uncorrectable_reading_changes.map(|c| c.value), Some(9));
        assert_eq!(p.latest_readings, fec.latest_readings);
    }
}
