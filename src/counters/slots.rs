//! Where the counters the model reads sit in one table of `ethtool -S` names: the names
//! each figure is read from, in preference order ([`mod@super::normalize`] for the FEC and link
//! figures, [`super::host`] for pause and discards), and their positions in a table, found
//! once per table ([`super::DriverStats`] keeps them with its names), so a sample of a live
//! device only reads values.

use std::ops::Range;
use std::sync::Arc;

/// Driver counter names, shared by every sample of a name table.
pub(crate) type CounterNames = Arc<[Arc<str>]>;

/// Lookups in a table of counter names sorted byte-wise, as [`super::DriverStats`] answers
/// them: all a finder needs.
pub(super) trait NameTable {
    /// The position of `name` in name order.
    fn position(&self, name: &str) -> Option<usize>;
    /// The positions of the names that start with `prefix`.
    fn prefix_range(&self, prefix: &str) -> Range<usize>;
    /// The name at position `k` (`k` < the table's length).
    fn name_at(&self, k: usize) -> &str;
}

/// Driver counters with a known meaning, in preference order per figure.
pub(super) const DRIVER_CORRECTED_BITS: &[&str] = &["rx_corrected_bits_phy", "rx_corrected_bits"];
pub(super) const DRIVER_CORRECTED_BLOCKS: &[&str] = &["rx_fec_corrected_blocks"];
pub(super) const DRIVER_UNCORRECTABLE_BLOCKS: &[&str] = &["rx_fec_uncorrectable_blocks"];
pub(super) const DRIVER_RX_BITS: &[&str] = &["rx_bits_phy", "rx_bits"];
/// `mlxlink_effective_physical_errors`: mlxlink's "Effective Physical Errors" (errors left
/// after FEC) as `optics import` records them (src/source/import/mlxlink_fields.rs);
/// `nvue_effective_errors`: the same PPCNT count as a Cumulus switch's NVUE prints it
/// (`effective-errors`, src/source/import/nvue.rs).
pub(super) const DRIVER_PCS_SYMBOL_ERRORS: &[&str] =
    &["rx_pcs_symbol_err_phy", "rx_pcs_symbol_err", "mlxlink_effective_physical_errors", "nvue_effective_errors"];
pub(super) const DRIVER_LINK_DOWN: &[&str] = &["link_down_events_phy", "link_down_events"];
/// Frames dropped for a bad FCS (docs/import.md "Counters that speak about frame loss"):
/// mlx5 `rx_crc_errors_phy` (PPCNT IEEE 802.3 group, a_frame_check_sequence_errors),
/// bnxt_en `rx_fcs_err_frames` (port_stats), ice `rx_crc_errors.nic` (GLPRT_CRCERRS).
pub(super) const DRIVER_FCS_ERRORS: &[&str] = &["rx_crc_errors_phy", "rx_fcs_err_frames", "rx_crc_errors.nic"];
/// mlx5 `rx_symbol_err_phy` (PPCNT IEEE 802.3 group, a_symbol_error_during_carrier).
pub(super) const DRIVER_SYMBOL_ERRORS: &[&str] = &["rx_symbol_err_phy"];

/// A known counter's position in a name table and the origin it is reported under.
#[derive(Clone, Copy, Debug)]
pub(super) struct Slot {
    pub(super) at: usize,
    /// The `ethtool -S` name found.
    pub(super) name: &'static str,
}

impl Slot {
    /// The first of `names` (in preference order) that `stats` has.
    fn find(stats: &impl NameTable, names: &[&'static str]) -> Option<Slot> {
        names.iter().find_map(|&name| stats.position(name).map(|at| Slot { at, name }))
    }
}

/// Where the driver counters [`normalize`](super::normalize()) reads sit in one name table (positions in name
/// order): they depend on the names only, so they are found once per table
/// ([`super::DriverStats`] keeps them) and a sample of a live device only reads its values.
#[derive(Debug)]
pub(crate) struct Slots {
    pub(super) corrected_bits: Option<Slot>,
    pub(super) corrected_blocks: Option<Slot>,
    pub(super) uncorrectable_blocks: Option<Slot>,
    pub(super) rx_bits: Option<Slot>,
    pub(super) pcs_symbol_errors: Option<Slot>,
    pub(super) link_down: Option<Slot>,
    pub(super) fcs_errors: Option<Slot>,
    pub(super) symbol_errors: Option<Slot>,
    /// mlx5 `rx_err_lane_N_phy` positions, lane 0 first.
    pub(super) lanes: Option<Vec<usize>>,
    /// The `rx_err_lane_N_phy` names that are not one of those lanes ([`mlx5_lane_slots`]).
    pub(super) stray_lanes: Option<CounterNames>,
    /// Pause and discard counters (`counters::host`).
    pub(super) host: HostSlots,
}

impl Slots {
    pub(super) fn find(stats: &impl NameTable) -> Slots {
        let (lanes, stray_lanes) = mlx5_lane_slots(stats);
        Slots {
            corrected_bits: Slot::find(stats, DRIVER_CORRECTED_BITS),
            corrected_blocks: Slot::find(stats, DRIVER_CORRECTED_BLOCKS),
            uncorrectable_blocks: Slot::find(stats, DRIVER_UNCORRECTABLE_BLOCKS),
            rx_bits: Slot::find(stats, DRIVER_RX_BITS),
            pcs_symbol_errors: Slot::find(stats, DRIVER_PCS_SYMBOL_ERRORS),
            link_down: Slot::find(stats, DRIVER_LINK_DOWN),
            fcs_errors: Slot::find(stats, DRIVER_FCS_ERRORS),
            symbol_errors: Slot::find(stats, DRIVER_SYMBOL_ERRORS),
            lanes,
            stray_lanes,
            host: HostSlots::find(stats),
        }
    }
}

pub(super) const MLX5_LANE_PREFIX: &str = "rx_err_lane_";

/// mlx5 `rx_err_lane_N_phy`: per-lane FEC-corrected bits (PPCNT phy_corrected_bits_laneN):
/// the positions of lanes 0..n, and the names of this family that are not one of them.
///
/// The driver prints exactly `rx_err_lane_0_phy` .. `rx_err_lane_3_phy`, whatever the
/// port's lane count (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c,
/// `pport_phy_statistical_err_lanes_stats_desc`: a fixed table of four). So the lanes are
/// attributed by their number from 0 while the numbers run without a gap (at most
/// [`super::MAX_LANES`]); a name past them (`rx_err_lane_99999_phy`, `rx_err_lane_x_phy`,
/// lane 5 without lane 4) is no lane a driver counts, from a merged or edited input: it
/// is left out and named, and does not cost the port its lanes.
fn mlx5_lane_slots(stats: &impl NameTable) -> (Option<Vec<usize>>, Option<CounterNames>) {
    let mut lanes: Vec<(Option<usize>, usize)> = stats
        .prefix_range(MLX5_LANE_PREFIX)
        .filter_map(|k| {
            let n = stats.name_at(k).strip_prefix(MLX5_LANE_PREFIX)?.strip_suffix("_phy")?;
            // `0` only as itself: `rx_err_lane_01_phy` is no name the driver prints.
            let lane = n.parse::<usize>().ok().filter(|l| l.to_string() == n);
            Some((lane, k))
        })
        .collect();
    // Numbered lanes in order, the unnumbered names last.
    lanes.sort_by_key(|(n, k)| (n.is_none(), *n, *k));
    let attributed = lanes.iter().enumerate().take_while(|(i, (n, _))| *n == Some(*i) && *i < super::MAX_LANES).count();
    let stray: Vec<Arc<str>> = lanes[attributed..].iter().map(|(_, k)| Arc::from(stats.name_at(*k))).collect();
    let at: Vec<usize> = lanes[..attributed].iter().map(|(_, k)| *k).collect();
    ((!at.is_empty()).then_some(at), (!stray.is_empty()).then(|| stray.into()))
}

/// 802.1Qbb priorities.
pub(crate) const PRIORITIES: usize = 8;

pub(super) const RX_PAUSE: &[&str] = &["rx_pause_ctrl_phy", "rx_pause_frames", "link_xoff_rx.nic"];
pub(super) const TX_PAUSE: &[&str] = &["tx_pause_ctrl_phy", "tx_pause_frames", "link_xoff_tx.nic"];
pub(super) const RX_DISCARDS: &[&str] = &["rx_discards_phy", "rx_stat_discard", "rx_dropped.nic"];
pub(super) const RX_OUT_OF_BUFFER: &[&str] = &["rx_out_of_buffer"];

/// Per-priority names: (prefix, suffix, the family's `ethtool -S` name), the priority's digit between.
pub(super) type PriorityName = (&'static str, &'static str, &'static str);
pub(super) const RX_PRIORITY: &[PriorityName] = &[
    ("rx_prio", "_pause", "rx_prioN_pause"),
    ("rx_pfc_ena_frames_pri", "", "rx_pfc_ena_frames_priN"),
    ("rx_priority_", "_xoff.nic", "rx_priority_N_xoff.nic"),
];
pub(super) const TX_PRIORITY: &[PriorityName] = &[
    ("tx_prio", "_pause", "tx_prioN_pause"),
    ("tx_pfc_ena_frames_pri", "", "tx_pfc_ena_frames_priN"),
    ("tx_priority_", "_xoff.nic", "tx_priority_N_xoff.nic"),
];

/// Where the pause and discard counters `counters::host` reads sit in one name table (found once per table, as
/// the FEC figures' slots are).
#[derive(Debug, Default)]
pub(crate) struct HostSlots {
    pub(super) rx_pause: Option<(usize, &'static str)>,
    pub(super) tx_pause: Option<(usize, &'static str)>,
    pub(super) rx_discards: Option<(usize, &'static str)>,
    pub(super) rx_out_of_buffer: Option<(usize, &'static str)>,
    pub(super) rx_priority: Option<(Vec<usize>, &'static str)>,
    pub(super) tx_priority: Option<(Vec<usize>, &'static str)>,
}

impl HostSlots {
    pub(super) fn find(stats: &impl NameTable) -> HostSlots {
        let one = |names: &[&'static str]| names.iter().find_map(|&n| stats.position(n).map(|at| (at, n)));
        // Every priority 0..7 must be there to be attributed by position.
        let per_priority = |names: &[PriorityName]| {
            names.iter().find_map(|(prefix, suffix, origin)| {
                let at: Option<Vec<usize>> = (0..PRIORITIES).map(|p| stats.position(&format!("{prefix}{p}{suffix}"))).collect();
                at.map(|at| (at, *origin))
            })
        };
        HostSlots {
            rx_pause: one(RX_PAUSE),
            tx_pause: one(TX_PAUSE),
            rx_discards: one(RX_DISCARDS),
            rx_out_of_buffer: one(RX_OUT_OF_BUFFER),
            rx_priority: per_priority(RX_PRIORITY),
            tx_priority: per_priority(TX_PRIORITY),
        }
    }

    /// The positions of every name read (for the interval walker's equivalence oracle).
    #[cfg(test)]
    pub(super) fn positions(&self) -> Vec<usize> {
        let ones = [self.rx_pause, self.tx_pause, self.rx_discards, self.rx_out_of_buffer].into_iter().flatten().map(|(k, _)| k);
        let lanes = [&self.rx_priority, &self.tx_priority].into_iter().flatten().flat_map(|(v, _)| v.iter().copied());
        ones.chain(lanes).collect()
    }
}
