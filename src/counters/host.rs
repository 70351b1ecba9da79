//! What the host's side of the port counts that caps throughput without touching the
//! link: pause frames (IEEE 802.3 Annex 31B MAC Control PAUSE, and 802.1Qbb priority flow
//! control per priority) and frames the NIC received but dropped for want of host buffers.
//!
//! Preference order, as for the FEC figures (`normalize`): the kernel's standard
//! `ETHTOOL_A_PAUSE_STATS` (PAUSE_GET with `ETHTOOL_FLAG_STATS`, Linux 5.11+) first, then
//! the driver's own `ethtool -S` names. The names, from the drivers' string tables:
//!
//! | figure | mlx5 (en_stats.c) | bnxt_en (bnxt_ethtool.c) | ice (ice_ethtool.c) |
//! |---|---|---|---|
//! | pause received | `rx_pause_ctrl_phy` (PPCNT 802.3 a_pause_mac_ctrl_frames_received) | `rx_pause_frames` | `link_xoff_rx.nic` |
//! | pause sent | `tx_pause_ctrl_phy` | `tx_pause_frames` | `link_xoff_tx.nic` |
//! | per priority N received | `rx_prioN_pause` (pport_per_prio_pfc_stats_desc "rx_%s_pause") | `rx_pfc_ena_frames_priN` | `rx_priority_N_xoff.nic` |
//! | per priority N sent | `tx_prioN_pause` | `tx_pfc_ena_frames_priN` | `tx_priority_N_xoff.nic` |
//! | receive discards | `rx_discards_phy` (PPCNT RFC 2863 if_in_discards) | `rx_stat_discard` | `rx_dropped.nic` (GLPRT_RDPC, stats.eth.rx_discards) |
//! | out of receive buffer | `rx_out_of_buffer` (q counter: "no recv wqes") | | |

use super::driver_stats::DriverStats;
use super::model::{Counted, HostCounted, LaneCounts, Origin, PortCounters};
use super::slots::{HostSlots, PRIORITIES};
use serde::{Deserialize, Serialize};

/// `ETHTOOL_A_PAUSE_STATS` as the kernel gives it (the capture's sample `pause`): `None`
/// where the driver does not count it (the kernel leaves out a counter the driver left at
/// ETHTOOL_STAT_NOT_SET).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PauseStats {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tx_frames: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rx_frames: Option<u64>,
}

/// The pause and discard figures of one sample into `out.host` (after
/// [`super::normalize_into`] filled the rest): netlink's pause counts where the kernel gave
/// them, else the driver's.
pub(crate) fn normalize_into(out: &mut PortCounters, pause: Option<&PauseStats>, stats: &DriverStats) {
    fill(&mut out.host, pause, stats, &stats.slots().host);
}

fn fill(out: &mut HostCounted, pause: Option<&PauseStats>, stats: &DriverStats, slots: &HostSlots) {
    let counted = |slot: Option<(usize, &'static str)>| slot.map(|(k, o)| Counted { value: stats.at(k).1, origin: Origin::Driver(o) });
    let netlink = |v: Option<u64>| v.map(|value| Counted { value, origin: Origin::Netlink });
    out.rx_pause_frames = netlink(pause.and_then(|p| p.rx_frames)).or_else(|| counted(slots.rx_pause));
    out.tx_pause_frames = netlink(pause.and_then(|p| p.tx_frames)).or_else(|| counted(slots.tx_pause));
    out.rx_discards = counted(slots.rx_discards);
    out.rx_out_of_buffer = counted(slots.rx_out_of_buffer);
    lanes_into(&mut out.rx_pause_per_priority, stats, slots.rx_priority.as_ref());
    lanes_into(&mut out.tx_pause_per_priority, stats, slots.tx_priority.as_ref());
}

/// Per-priority values into `slot`, reusing its buffer.
fn lanes_into(slot: &mut Option<LaneCounts>, stats: &DriverStats, at: Option<&(Vec<usize>, &'static str)>) {
    let Some((at, origin)) = at else {
        *slot = None;
        return;
    };
    let l = slot.get_or_insert_with(|| LaneCounts { values: Vec::with_capacity(PRIORITIES), origin: Origin::Driver(origin) });
    l.values.clear();
    l.values.extend(at.iter().map(|&k| stats.at(k).1));
    l.origin = Origin::Driver(origin);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalize(pause: Option<&PauseStats>, _: Option<()>, d: &DriverStats) -> PortCounters {
        let mut p = PortCounters::default();
        normalize_into(&mut p, pause, d);
        p
    }

    fn stats(pairs: &[(&str, u64)]) -> DriverStats {
        pairs.iter().map(|(k, v)| ((*k).into(), *v)).collect()
    }

    /// A real bnxt_en `ethtool -S` of a healthy 10G port (tests/fixtures/real-dumps/ctr03,
    /// provenance in its README): rx/tx_pause_frames, rx_stat_discard and
    /// rx/tx_pfc_ena_frames_pri0..7, all 0.
    #[test]
    fn bnxt_names_from_a_real_dump() {
        let text = include_str!("../../tests/fixtures/real-dumps/ctr03_bnxt_en_ethtool_S_10g_sfp_port_stats.txt");
        let d: DriverStats = text
            .lines()
            .filter_map(|l| {
                let (k, v) = l.trim().split_once(':')?;
                Some((k.trim().into(), v.trim().parse::<u64>().ok()?))
            })
            .collect();
        let p = normalize(None, None, &d);
        assert_eq!(p.host.rx_pause_frames.unwrap(), Counted { value: 0, origin: Origin::Driver("rx_pause_frames") });
        assert_eq!(p.host.tx_pause_frames.unwrap().origin, Origin::Driver("tx_pause_frames"));
        assert_eq!(p.host.rx_discards.unwrap().origin, Origin::Driver("rx_stat_discard"));
        assert_eq!(p.host.rx_pause_per_priority.unwrap().values, vec![0; PRIORITIES]);
        assert_eq!(p.host.tx_pause_per_priority.unwrap().origin.to_string(), "driver:tx_pfc_ena_frames_priN");
        assert!(p.host.rx_out_of_buffer.is_none());
    }

    #[test]
    fn netlink_pause_wins_and_mlx5_priorities_are_in_order() {
        let mut pairs: Vec<(String, u64)> = (0..8).map(|p| (format!("rx_prio{p}_pause"), 10 * p)).collect();
        pairs.extend([("rx_pause_ctrl_phy".to_string(), 99), ("rx_discards_phy".to_string(), 5), ("rx_out_of_buffer".to_string(), 7)]);
        let d: DriverStats = pairs.iter().map(|(k, v)| (k.as_str().into(), *v)).collect();
        let mut out = HostCounted::default();
        let pause = PauseStats { tx_frames: Some(3), rx_frames: Some(4) };
        fill(&mut out, Some(&pause), &d, &HostSlots::find(&d));
        assert_eq!(out.rx_pause_frames, Some(Counted { value: 4, origin: Origin::Netlink }));
        assert_eq!(out.tx_pause_frames, Some(Counted { value: 3, origin: Origin::Netlink }));
        let prio = out.rx_pause_per_priority.clone().unwrap();
        assert_eq!((prio.values, prio.origin.to_string()), (vec![0, 10, 20, 30, 40, 50, 60, 70], "driver:rx_prioN_pause".to_string()));
        assert_eq!(out.rx_discards.as_ref().unwrap().value, 5);
        assert_eq!(out.rx_out_of_buffer.as_ref().unwrap().value, 7);
        // Without netlink's figures the driver's stand in.
        fill(&mut out, None, &d, &HostSlots::find(&d));
        assert_eq!(out.rx_pause_frames.unwrap().origin, Origin::Driver("rx_pause_ctrl_phy"));
        // A priority missing: no per-priority figure (not a shifted one).
        let partial = stats(&[("rx_prio0_pause", 1), ("rx_prio2_pause", 1)]);
        assert!(HostSlots::find(&partial).rx_priority.is_none());
    }

    #[test]
    fn ice_names() {
        let mut pairs: Vec<(String, u64)> = (0..8).map(|p| (format!("tx_priority_{p}_xoff.nic"), p)).collect();
        pairs.extend([("link_xoff_rx.nic".to_string(), 2), ("rx_dropped.nic".to_string(), 1)]);
        let d: DriverStats = pairs.iter().map(|(k, v)| (k.as_str().into(), *v)).collect();
        let p = normalize(None, None, &d);
        assert_eq!(p.host.rx_pause_frames.unwrap().origin, Origin::Driver("link_xoff_rx.nic"));
        assert_eq!(p.host.rx_discards.unwrap().origin, Origin::Driver("rx_dropped.nic"));
        assert_eq!(p.host.tx_pause_per_priority.unwrap().origin.to_string(), "driver:tx_priority_N_xoff.nic");
    }
}
