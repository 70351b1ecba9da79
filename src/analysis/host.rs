//! The host beneath the link as analysed (docs/host.md): the facts with where each came
//! from, the node's GPUs as the NIC sees them (nearest first), what could not be checked,
//! and the judgements against the node's other NICs and the configuration:
//! `host_numa_remote`, `mtu_mismatch`, `firmware_mismatch`, `rings_below_max`,
//! `pause_storm`, `rx_discards`, `irqs_off_numa_node`, `channels_below_node_cpus`
//! (investigate: they cap host-to-host throughput, not the link).

use super::verdict::{verdict, Reason, ReasonCode, Severity};
use super::{Config, InterfaceAnalysis, InterfaceWindow};
use crate::counters::{CounterFigure, Origin};
use crate::device::host::{Channels, Fact, HostFacts, PauseSettings, PciDistance, Rings};
use serde::Serialize;
use std::collections::BTreeMap;

/// The host beneath a link as analysed: driver, firmware, PCI ID, NUMA node, MTU, rings, channels, pause, and the NIC's interrupts and GPUs against its NUMA node.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HostAnalysis {
    pub(crate) driver: Option<Fact<String>>,
    pub(crate) driver_version: Option<Fact<String>>,
    pub(crate) firmware_version: Option<Fact<String>>,
    pub(crate) pci_id: Option<Fact<String>>,
    pub(crate) numa_node: Option<Fact<i32>>,
    pub(crate) mtu: Option<Fact<u32>>,
    pub(crate) rings: Option<Fact<Rings>>,
    pub(crate) channels: Option<Fact<Channels>>,
    /// Pause as set and negotiated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pause: Option<Fact<PauseSettings>>,
    /// How many CPUs the NIC's NUMA node has.
    pub node_cpus: Option<usize>,
    /// Where the NIC's interrupts may run against its NUMA node's CPUs.
    pub irqs: Option<IrqPlacement>,
    /// The node's GPUs from this NIC, nearest first; `None` when GPUs were not looked for.
    pub gpus: Option<Vec<GpuPlacement>>,
    /// Pause frames and receive discards over the window, as rates; `None` without a
    /// window (a lone snapshot) or without such counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pause_discards: Option<PauseDiscards>,
    /// What could not be checked, one sentence each.
    pub not_checked: Vec<String>,
    /// The host reason codes raised on this NIC, in the order judged; empty when nothing
    /// the host checks could look at is wrong (the one-line summary says so).
    pub(crate) problems: Vec<ReasonCode>,
    /// How many other NICs of its model (PCI ID) on the node run its firmware version;
    /// `None` when firmware was not compared (version or model unknown, or
    /// `firmware_consistent` off).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) firmware_peers: Option<usize>,
    /// How many of the node's other ports run its MTU; `None` when its MTU is unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) mtu_peers: Option<usize>,
}

/// A counter's increase over the window and its rate.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct Rate {
    pub(crate) count: u64,
    pub(crate) per_s: f64,
    pub(crate) origin: Origin,
}

/// Per 802.1Qbb priority increases over the window (index = priority).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct PerPriority {
    pub(crate) counts: Vec<u64>,
    pub(crate) origin: Origin,
    /// Seconds the counts span (the figure's own span: [`InterfaceWindow::seconds_of`]).
    #[serde(skip)]
    pub(crate) seconds: f64,
}

/// What the port's host side counted over the window (`counters::host`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct PauseDiscards {
    pub(crate) window_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rx_pause_frames: Option<Rate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tx_pause_frames: Option<Rate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rx_pause_per_priority: Option<PerPriority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tx_pause_per_priority: Option<PerPriority>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rx_discards: Option<Rate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rx_out_of_buffer: Option<Rate>,
}

impl PauseDiscards {
    /// The window's pause and discard figures; `None` without a window to make rates of,
    /// or when none of them was counted.
    pub(crate) fn of(w: &InterfaceWindow) -> Option<PauseDiscards> {
        let h = &w.deltas.host;
        if h.is_empty() || w.samples < 2 || w.duration_s <= 0.0 {
            return None;
        }
        // Each over its own span, which is the window's unless the counter was read from partway.
        let rate = |figure, c: &Option<crate::counters::Counted>| {
            c.as_ref().map(|c| Rate { count: c.value, per_s: c.value as f64 / w.seconds_of(figure), origin: c.origin })
        };
        let prio = |figure, l: &Option<crate::counters::LaneCounts>| {
            l.as_ref().map(|l| PerPriority { counts: l.values.clone(), origin: l.origin, seconds: w.seconds_of(figure) })
        };
        Some(PauseDiscards {
            window_s: w.duration_s,
            rx_pause_frames: rate(CounterFigure::RxPauseFrames, &h.rx_pause_frames),
            tx_pause_frames: rate(CounterFigure::TxPauseFrames, &h.tx_pause_frames),
            rx_pause_per_priority: prio(CounterFigure::RxPausePerPriority, &h.rx_pause_per_priority),
            tx_pause_per_priority: prio(CounterFigure::TxPausePerPriority, &h.tx_pause_per_priority),
            rx_discards: rate(CounterFigure::RxDiscards, &h.rx_discards),
            rx_out_of_buffer: rate(CounterFigure::RxOutOfBuffer, &h.rx_out_of_buffer),
        })
    }

    /// Every pause counter as (rate per second, whose direction, what it is): the link's
    /// and each priority's.
    fn pause_rates(&self) -> Vec<(f64, Direction, String)> {
        let mut all = Vec::new();
        for (dir, r) in [(Direction::Received, &self.rx_pause_frames), (Direction::Sent, &self.tx_pause_frames)] {
            if let Some(r) = r {
                all.push((r.per_s, dir, format!("({})", r.origin)));
            }
        }
        for (dir, p) in [(Direction::Received, &self.rx_pause_per_priority), (Direction::Sent, &self.tx_pause_per_priority)] {
            let Some(p) = p else { continue };
            for (prio, n) in p.counts.iter().enumerate() {
                all.push((*n as f64 / p.seconds, dir, format!("on priority {prio} ({})", p.origin)));
            }
        }
        all
    }

    /// Frames the host could not take: receive discards and out-of-buffer drops.
    fn discarded(&self) -> Vec<&Rate> {
        [&self.rx_discards, &self.rx_out_of_buffer].into_iter().flatten().collect()
    }
}

/// Which way a pause frame went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    /// The link partner asked this port to stop sending.
    Received,
    /// This port asked its link partner to stop: its own receive side could not keep up.
    Sent,
}

/// One GPU as seen from the NIC.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuPlacement {
    /// The GPU's PCI address (`0000:41:00.0`).
    pub bus_info: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pci_id: Option<String>,
    pub(crate) numa_node: Option<i32>,
    /// How far the GPU is from the NIC on the PCI tree (`PIX` nearest to `SYS` across sockets, as `nvidia-smi topo -m` names them).
    pub distance: PciDistance,
}

/// The NIC's interrupts against its NUMA node: an IRQ is off the node when any CPU it may
/// run on is not one of the node's (its softirq work then reads packets across the
/// socket interconnect).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IrqPlacement {
    /// IRQs the NIC has.
    pub total: usize,
    /// Those of them that may run on a CPU off the NIC's NUMA node.
    pub off_node: usize,
    /// The first few IRQs off the node, by number.
    pub off_node_irqs: Vec<u32>,
}

/// How many IRQ numbers an [`IrqPlacement`] names.
const NAMED_IRQS: usize = 8;

impl HostAnalysis {
    /// The GPUs at the smallest distance from the NIC (several when they tie).
    pub fn nearest_gpus(&self) -> &[GpuPlacement] {
        let gpus = self.gpus.as_deref().unwrap_or_default();
        let n = gpus.first().map(|g| gpus.iter().take_while(|o| o.distance == g.distance).count()).unwrap_or(0);
        &gpus[..n]
    }
}

/// The host facts of one interface analysed: GPUs by distance from the NIC, IRQs against its NUMA node.
pub fn analyze_host(h: &HostFacts) -> HostAnalysis {
    let numa = h.numa_node.as_ref().map(|f| f.value);
    let nic_path = h.pci_path.as_ref().map(|f| f.value.as_slice()).unwrap_or_default();
    let gpus = h.gpus.as_ref().map(|found| {
        let mut placed: Vec<GpuPlacement> = found
            .value
            .iter()
            .map(|g| GpuPlacement {
                bus_info: g.bus_info.clone(),
                pci_id: g.pci_id.clone(),
                numa_node: g.numa_node,
                distance: g.distance.unwrap_or_else(|| PciDistance::between(nic_path, numa, &g.pci_path, g.numa_node)),
            })
            .collect();
        placed.sort_by(|a, b| (a.distance, &a.bus_info).cmp(&(b.distance, &b.bus_info)));
        placed
    });
    let mut not_checked = Vec::new();
    match &gpus {
        // A PCI function whose source lists no PCI devices (a sosreport's copied sysfs
        // keeps none): another source of the bundle (`nvidia-smi topo -m`) may have them.
        None if h.pci_path.is_some() || h.numa_node.is_some() => {
            not_checked.push("GPU locality: the source lists none of the node's PCI devices to find GPUs in".to_string())
        }
        None => not_checked.push("GPU locality: not a PCI function, or GPUs were not looked for".to_string()),
        Some(g) if g.is_empty() => not_checked.push("GPU locality: no GPUs found on this node".to_string()),
        // Distances a tool stated need no NUMA node of the NIC.
        Some(_) if numa.is_none() && h.gpus.as_ref().is_some_and(|f| f.value.iter().any(|g| g.distance.is_none())) => {
            not_checked.push("NUMA locality: the kernel knows no NUMA node for this NIC (numa_node -1)".to_string())
        }
        Some(_) => {}
    }
    if h.firmware_version.is_none() {
        not_checked.push("firmware version: the driver reports none".to_string());
    }
    if h.mtu.is_none() {
        not_checked.push("MTU: not read".to_string());
    }
    if h.rings.is_none() {
        not_checked.push("ring sizes: not reported (the driver answers no RINGS_GET, or the source did not read them)".to_string());
    }
    let node_cpus = h.node_cpus.as_ref().map(|c| &c.value);
    if h.channels.is_none() {
        not_checked.push("channels: not reported (the driver answers no CHANNELS_GET, or the source did not read them)".to_string());
    }
    if h.pci_path.is_some() && (h.irqs.is_none() || node_cpus.is_none()) {
        not_checked.push("IRQ placement: the NIC's interrupts or its NUMA node's CPUs were not read".to_string());
    }
    let irqs = match (h.irqs.as_ref(), node_cpus) {
        (Some(irqs), Some(cpus)) if !irqs.value.is_empty() => {
            // A set: a capture's lists are as long as its line allows, and a scan of the
            // node's list per CPU of every interrupt would be quadratic in them.
            let node: std::collections::BTreeSet<u32> = cpus.iter().copied().collect();
            let off: Vec<u32> = irqs.value.iter().filter(|i| i.cpus.iter().any(|c| !node.contains(c))).map(|i| i.irq).collect();
            Some(IrqPlacement { total: irqs.value.len(), off_node: off.len(), off_node_irqs: off.into_iter().take(NAMED_IRQS).collect() })
        }
        _ => None,
    };
    HostAnalysis {
        driver: h.driver.clone(),
        driver_version: h.driver_version.clone(),
        firmware_version: h.firmware_version.clone(),
        pci_id: h.pci_id.clone(),
        numa_node: h.numa_node.clone(),
        mtu: h.mtu.clone(),
        rings: h.rings.clone(),
        channels: h.channels.clone(),
        pause: h.pause.clone(),
        node_cpus: node_cpus.map(Vec::len),
        irqs,
        gpus,
        pause_discards: None,
        not_checked,
        problems: Vec::new(),
        firmware_peers: None,
        mtu_peers: None,
    }
}

/// What the node's NICs show, to judge each against the others: every port's MTU and,
/// per NIC model (PCI ID), the firmware each of its NICs runs.
#[derive(Clone, Debug, Default)]
pub struct Node {
    /// (interface, MTU) of every port whose MTU is known, in the source's order.
    mtus: Vec<(String, u32)>,
    /// PCI ID -> (interface, firmware version) of the NICs of that model.
    firmware: BTreeMap<String, Vec<(String, String)>>,
}

impl Node {
    /// Every port's MTU and each NIC model's firmware versions, from the node's windows.
    pub fn of(all: &[InterfaceWindow]) -> Node {
        let mut node = Node::default();
        for w in all {
            let Some(h) = &w.identity.host else { continue };
            if let Some(m) = &h.mtu {
                node.mtus.push((w.interface.clone(), m.value));
            }
            if let (Some(id), Some(fw)) = (&h.pci_id, &h.firmware_version) {
                node.firmware.entry(id.value.clone()).or_default().push((w.interface.clone(), firmware_version(&fw.value).to_string()));
            }
        }
        node
    }

    /// The MTU more than half of the node's ports run, if one does.
    fn majority_mtu(&self) -> Option<u32> {
        let mut counts: BTreeMap<u32, usize> = BTreeMap::new();
        for (_, m) in &self.mtus {
            *counts.entry(*m).or_default() += 1;
        }
        counts.into_iter().find(|(_, n)| 2 * n > self.mtus.len()).map(|(m, _)| m)
    }
}

/// The version of a firmware string: mlx5 adds the board's PSID (`28.39.1002
/// (MT_0000000838)`), which differs between OEM boards of one model running one firmware.
fn firmware_version(fw: &str) -> &str {
    fw.split_whitespace().next().unwrap_or(fw)
}

/// Up to four names, then how many more.
fn names(list: &[&str]) -> String {
    match list.len() {
        0..=4 => list.join(", "),
        n => format!("{} and {} more", list[..4].join(", "), n - 4),
    }
}

/// `pause_storm` when a pause counter (the link's, or a priority's) climbs faster than
/// `max_pause_frames_per_s`; `rx_discards` when the port dropped received frames for want
/// of host buffers faster than `max_rx_discards_per_s`.
fn judge_pause_discards(pd: &PauseDiscards, iface: &str, cfg: &Config) -> Vec<(ReasonCode, String, String)> {
    let mut found = Vec::new();
    let window = format!("over {:.0} s", pd.window_s);
    let over: Vec<(f64, Direction, String)> = pd.pause_rates().into_iter().filter(|(r, _, _)| *r > cfg.max_pause_frames_per_s).collect();
    // The fastest; of equal rates the first (the link's total before its priorities).
    if let Some((rate, dir, what)) = over.iter().reduce(|a, b| if b.0 > a.0 { b } else { a }) {
        let (verb, advice) = match dir {
            Direction::Received => (
                "received",
                format!(
                    "{iface}: the link partner keeps asking this port to stop sending: look at the switch port's congestion (its buffers, ECN and PFC thresholds, an incast onto it, a slow host behind it); {NOT_THE_LINK}"
                ),
            ),
            Direction::Sent => (
                "sent",
                format!(
                    "{iface}: this host's receive side cannot keep up and pauses the switch: raise the rings (`ethtool -G {iface}`), spread its IRQs over its NUMA node's CPUs, check the PCIe link and the consumer; {NOT_THE_LINK}"
                ),
            ),
        };
        let also = match over.len() {
            1 => String::new(),
            n => format!(" ({} more pause counters over it)", n - 1),
        };
        found.push((
            ReasonCode::PauseStorm,
            format!(
                "pause frames {verb} {what} at {} /s {window}: above max_pause_frames_per_s {}{also}",
                rate_text(*rate),
                rate_text(cfg.max_pause_frames_per_s)
            ),
            advice,
        ));
    }
    let dropped = pd.discarded();
    let count: u64 = dropped.iter().map(|r| r.count).sum();
    let rate: f64 = dropped.iter().map(|r| r.per_s).sum();
    if count > 0 && rate > cfg.max_rx_discards_per_s {
        let each = dropped.iter().filter(|r| r.count > 0).map(|r| format!("{} ({})", r.count, r.origin)).collect::<Vec<_>>().join(", ");
        found.push((
            ReasonCode::RxDiscards,
            format!("{count} received frames dropped for want of host buffers {window} ({} /s): {each}", rate_text(rate)),
            format!(
                "{iface}: the host did not take frames off the NIC in time: raise the rings (`ethtool -G {iface}`), add channels (`ethtool -L`) up to its NUMA node's CPUs, keep its IRQs and the consuming threads on that node; a lossless (PFC) fabric should pause instead of dropping; {NOT_THE_LINK}"
            ),
        ));
    }
    found
}

/// `irqs_off_numa_node` when more of the NIC's interrupts than `max_irqs_off_node` are
/// delivered off its NUMA node; `channels_below_node_cpus` when it receives on fewer queues
/// than `min_channel_fraction` of its node's CPUs and the driver allows more.
fn judge_queues(h: &HostAnalysis, iface: &str, cfg: &Config) -> Vec<(ReasonCode, String, String)> {
    let mut found = Vec::new();
    let (Some(node), Some(cpus)) = (h.numa_node.as_ref().map(|n| n.value), h.node_cpus) else { return found };
    let channels = h.channels.as_ref().map(|c| &c.value);
    let queues = channels.and_then(Channels::rx_queues);
    // `ethtool -L` sets combined channels where the driver has them, else rx ones.
    let kind = if channels.is_some_and(|c| c.combined.is_some()) { "combined" } else { "rx" };
    if let Some(i) = h.irqs.as_ref().filter(|i| i.off_node > cfg.max_irqs_off_node as usize) {
        let listed = i.off_node_irqs.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
        let more = if i.off_node > i.off_node_irqs.len() { " ..." } else { "" };
        let first = match queues {
            Some(q) if q as usize > cpus => format!(
                "its {q} receive queues outnumber the {cpus} CPUs of NUMA node {node}, so the rest are served from the other socket: cut them to {cpus} (`ethtool -L {iface} {kind} {cpus}`), then bind"
            ),
            _ => "bind".to_string(),
        };
        found.push((
            ReasonCode::IrqsOffNumaNode,
            format!(
                "{} of {} IRQs delivered off its NUMA node {node} ({listed}{more}): above max_irqs_off_node {}; their packets are handled across the socket interconnect",
                i.off_node, i.total, cfg.max_irqs_off_node
            ),
            format!(
                "{iface}: {first} each IRQ to a CPU of NUMA node {node} (/sys/devices/system/node/node{node}/cpulist): the vendor's `set_irq_affinity_bynode.sh {node} {iface}`, or `/proc/irq/N/smp_affinity_list`, with irqbalance kept off them (IRQBALANCE_BANNED_CPULIST or its hint policy exact); it does not move the NIC, so a NIC remote from its GPUs stays remote; {NOT_THE_LINK}"
            ),
        ));
    }
    let max_queues = channels.and_then(|c| match (c.combined_max, c.rx_max) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    });
    let wanted = (cfg.min_channel_fraction * cpus as f64).ceil() as u32;
    // Only what the driver can do is asked for: its maximum caps the target.
    let target = max_queues.map_or(wanted, |m| wanted.min(m));
    if let Some(q) = queues.filter(|q| *q < target) {
        found.push((
            ReasonCode::ChannelsBelowNodeCpus,
            format!(
                "{q} receive queues for the {cpus} CPUs of its NUMA node {node}: under {} of them (min_channel_fraction){}",
                percent(cfg.min_channel_fraction),
                max_queues.map(|m| format!("; the driver allows {m}")).unwrap_or_default()
            ),
            format!(
                "{iface}: add queues (`ethtool -L {iface} {kind} {target}`, and the persistent network configuration) so receive work spreads over the cores of NUMA node {node}, one queue per core; it does not speed one flow (a flow hashes to one queue), and queues beyond the node's CPUs land on the other socket; {NOT_THE_LINK}"
            ),
        ));
    }
    found
}

/// A rate for a sentence: three significant figures.
fn rate_text(r: f64) -> String {
    if r >= 100.0 {
        format!("{r:.0}")
    } else if r >= 1.0 {
        format!("{r:.1}")
    } else {
        format!("{r:.3}")
    }
}

/// `0.5` as `50%`.
fn percent(f: f64) -> String {
    format!("{}%", (f * 100.0).round())
}

/// What none of the host's fixes change.
const NOT_THE_LINK: &str = "this lifts a host-to-host ceiling only: it does not change the link, its FEC counters or its optics";

/// Adds the host reasons of `a` (against the rest of `node`; its window `w` for the
/// pause and discard rates) with their advice, and recomputes the verdict.
pub fn judge(a: &mut InterfaceAnalysis, w: &InterfaceWindow, node: &Node, cfg: &Config) {
    if let Some(pd) = PauseDiscards::of(w) {
        a.host.get_or_insert_with(HostAnalysis::default).pause_discards = Some(pd);
    }
    let Some(h) = &a.host else { return };
    let mut not_checked = Vec::new();
    if h.pause_discards.is_none() {
        not_checked.push(match w.samples {
            0 | 1 => "pause and discards: one reading, no window to make rates of".to_string(),
            _ => "pause and discards: no pause, discard or out-of-buffer counter read".to_string(),
        });
    }
    let mut found: Vec<(ReasonCode, String, String)> = Vec::new();
    let iface = a.interface.as_str();
    // SYS is worked out only where both NUMA nodes are known (sysfs), or stated by the tool
    // that measured it (nvidia-smi topo -m), which names no NUMA node for the NIC.
    let nic_node = h.numa_node.as_ref().map(|n| n.value);
    if let Some(first) = h.nearest_gpus().first().filter(|g| g.distance == PciDistance::Sys) {
        let gpus: Vec<&str> = h.nearest_gpus().iter().map(|g| g.bus_info.as_str()).collect();
        let gpu_node = first.numa_node.map_or("another NUMA node".to_string(), |n| format!("NUMA node {n}"));
        let plural = if gpus.len() == 1 { "" } else { "s" };
        let (nic, other_side) = match nic_node {
            Some(n) => (format!("NIC on NUMA node {n}, its"), format!("NUMA node {n}")),
            None => ("the NIC's".to_string(), "the NIC's NUMA node".to_string()),
        };
        found.push((
            ReasonCode::HostNumaRemote,
            format!(
                "{nic} nearest GPU{plural} {} on {gpu_node}: every transfer between them crosses the socket interconnect (SYS)",
                names(&gpus)
            ),
            format!(
                "{iface}: put the NIC in a slot on {gpu_node}, beside the GPU{plural} it serves ({}), or the GPUs on {other_side}; {NOT_THE_LINK}",
                names(&gpus)
            ),
        ));
    }
    let mut mtu_peers = None;
    if let Some(mtu) = h.mtu.as_ref().map(|m| m.value) {
        let others: Vec<(&str, u32)> = node.mtus.iter().filter(|(i, _)| i != iface).map(|(i, m)| (i.as_str(), *m)).collect();
        mtu_peers = Some(others.iter().filter(|(_, m)| *m == mtu).count());
        let expected = match cfg.expected_mtu {
            Some(e) => Some((e, "the configuration (expected_mtu) expects".to_string())),
            None => node.majority_mtu().map(|e| {
                let at: Vec<&str> = others.iter().filter(|(_, m)| *m == e).map(|(i, _)| *i).collect();
                (e, format!("the node's other fabric ports ({}) run", names(&at)))
            }),
        };
        let mixed = || {
            let mut by_mtu: BTreeMap<u32, Vec<&str>> = BTreeMap::new();
            for (i, m) in &node.mtus {
                by_mtu.entry(*m).or_default().push(i);
            }
            by_mtu.iter().map(|(m, at)| format!("{m} on {}", names(at))).collect::<Vec<_>>().join("; ")
        };
        match expected {
            Some((e, whose)) if e != mtu => found.push((
                ReasonCode::MtuMismatch,
                format!("MTU {mtu} where {whose} {e}"),
                format!(
                    "{iface}: set MTU {e} (`ip link set {iface} mtu {e}` and the persistent network configuration), and the same on its switch port: large frames are otherwise fragmented or dropped; {NOT_THE_LINK}"
                ),
            )),
            None if others.iter().any(|(_, m)| *m != mtu) => found.push((
                ReasonCode::MtuMismatch,
                format!("the node's fabric ports run different MTUs ({}), none on most of them", mixed()),
                format!("{iface}: set one MTU on every fabric port (and `expected_mtu` in the configuration to check it); {NOT_THE_LINK}"),
            )),
            _ => {}
        }
    }
    let mut firmware_peers = None;
    if let (true, None, Some(_)) = (cfg.firmware_consistent, &h.pci_id, &h.firmware_version) {
        not_checked.push("firmware consistency: the NIC's model (PCI ID) is not known, to compare with the node's others".to_string());
    }
    if let (true, Some(id), Some(fw)) = (cfg.firmware_consistent, &h.pci_id, &h.firmware_version) {
        let mine = firmware_version(&fw.value);
        let model = node.firmware.get(&id.value).map(Vec::as_slice).unwrap_or_default();
        firmware_peers = Some(model.iter().filter(|(i, v)| i != iface && v == mine).count());
        let other: Vec<&(String, String)> = model.iter().filter(|(i, v)| i != iface && v != mine).collect();
        if !other.is_empty() {
            let mut by_version: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
            for (i, v) in &other {
                by_version.entry(v).or_default().push(i);
            }
            let theirs = by_version.iter().map(|(v, at)| format!("{v} ({})", names(at))).collect::<Vec<_>>().join(", ");
            found.push((
                ReasonCode::FirmwareMismatch,
                format!("firmware {mine} where other NICs of this model ({}) run {theirs}", id.value),
                format!(
                    "{iface}: bring every {} NIC of the node to one firmware the vendor qualifies (mlxfwmanager, bnxtnvm, the vendor's update package), then reboot or reset the NICs; {NOT_THE_LINK}",
                    id.value
                ),
            ));
        }
    }
    if let Some(r) = h.rings.as_ref().map(|r| &r.value) {
        let low = |cur: Option<u32>, max: Option<u32>| match (cur, max) {
            (Some(c), Some(m)) if f64::from(c) < cfg.min_ring_fraction * f64::from(m) => Some((c, m)),
            _ => None,
        };
        let (rx, tx) = (low(r.rx, r.rx_max), low(r.tx, r.tx_max));
        if rx.is_some() || tx.is_some() {
            let side = |name: &str, c: Option<u32>, m: Option<u32>| match (c, m) {
                (Some(c), Some(m)) => format!("{name} {c} of {m}"),
                (Some(c), None) => format!("{name} {c}"),
                _ => format!("{name} not reported"),
            };
            let asym = match (r.rx, r.tx) {
                (Some(a), Some(b)) if a != b => "; rx and tx differ",
                _ => "",
            };
            let (rx_to, tx_to) = (r.rx_max.unwrap_or_default(), r.tx_max.unwrap_or_default());
            found.push((
                ReasonCode::RingsBelowMax,
                format!(
                    "ring sizes {}, {}: below {} of the maximum (min_ring_fraction){asym}",
                    side("rx", r.rx, r.rx_max),
                    side("tx", r.tx, r.tx_max),
                    percent(cfg.min_ring_fraction)
                ),
                format!(
                    "{iface}: raise the rings (`ethtool -G {iface} rx {rx_to} tx {tx_to}`, and the persistent network configuration): a bigger ring rides out longer stalls of the host without dropping; it costs memory per queue and does not fix a receiver that is slower than the line; {NOT_THE_LINK}"
                ),
            ));
        }
    }
    if let Some(pd) = &h.pause_discards {
        found.extend(judge_pause_discards(pd, iface, cfg));
    }
    found.extend(judge_queues(h, iface, cfg));
    if let Some(h) = a.host.as_mut() {
        h.not_checked.extend(not_checked);
        h.problems = found.iter().map(|(code, _, _)| *code).collect();
        h.firmware_peers = firmware_peers;
        h.mtu_peers = mtu_peers;
    }
    if found.is_empty() {
        return;
    }
    for (code, message, advice) in found {
        a.reasons.push(Reason::new(code, Severity::Investigate, None, message));
        if !a.advice.contains(&advice) {
            a.advice.push(advice);
        }
    }
    // Stable: the reasons keep their order within a severity.
    a.reasons.sort_by_key(|r| std::cmp::Reverse(r.severity));
    a.verdict = verdict(&a.reasons);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::host::Gpu;

    fn gpu(bus: &str, node: i32, path: &str) -> Gpu {
        Gpu {
            bus_info: bus.into(),
            pci_id: Some("10de:2330".into()),
            numa_node: Some(node),
            pci_path: path.split('/').map(str::to_string).collect(),
            distance: None,
        }
    }

    #[test]
    fn gpus_are_placed_nearest_first() {
        let h = HostFacts {
            numa_node: Some(Fact::sysfs(0)),
            pci_path: Some(Fact::sysfs(
                "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0".split('/').map(str::to_string).collect(),
            )),
            firmware_version: Some(Fact::ioctl("28.39.1002".into())),
            mtu: Some(Fact::ioctl(9000)),
            rings: Some(Fact::netlink(Rings { rx: Some(8192), rx_max: Some(8192), tx: Some(8192), tx_max: Some(8192) })),
            channels: Some(Fact::netlink(Channels { combined: Some(16), combined_max: Some(63), ..Channels::default() })),
            node_cpus: Some(Fact::sysfs((0..32).collect())),
            irqs: Some(Fact::procfs(vec![crate::device::host::Irq { irq: 40, cpus: vec![3] }])),
            gpus: Some(Fact::sysfs(vec![
                gpu("0000:9b:00.0", 1, "pci0000:9a/0000:9a:02.0/0000:9b:00.0"),
                gpu("0000:1b:00.0", 0, "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:04.0/0000:1b:00.0"),
                gpu("0000:2b:00.0", 0, "pci0000:2a/0000:2a:02.0/0000:2b:00.0"),
            ])),
            ..HostFacts::default()
        };
        let a = analyze_host(&h);
        let order: Vec<_> = a.gpus.as_ref().unwrap().iter().map(|g| (g.bus_info.as_str(), g.distance)).collect();
        assert_eq!(order, [("0000:1b:00.0", PciDistance::Pix), ("0000:2b:00.0", PciDistance::Node), ("0000:9b:00.0", PciDistance::Sys)]);
        assert_eq!(a.nearest_gpus().len(), 1);
        assert!(a.not_checked.is_empty(), "{:?}", a.not_checked);
    }

    #[test]
    fn irq_placement_of_long_cpu_lists_is_not_quadratic() {
        // A capture line may list 100,000s of CPUs (nothing bounds what it holds): each
        // interrupt CPU looked up in the node's, not searched for along it.
        let n = 200_000;
        let h = HostFacts {
            node_cpus: Some(Fact::sysfs((0..n).collect())),
            irqs: Some(Fact::procfs(vec![
                crate::device::host::Irq { irq: 1, cpus: (0..n).rev().collect() },
                crate::device::host::Irq { irq: 2, cpus: vec![n] },
            ])),
            ..HostFacts::default()
        };
        let irqs = analyze_host(&h).irqs.unwrap();
        assert_eq!((irqs.total, irqs.off_node, irqs.off_node_irqs), (2, 1, vec![2]));
    }

    fn nic(name: &str, mtu: u32, fw: &str) -> InterfaceWindow {
        let host = HostFacts {
            pci_id: Some(Fact::sysfs("15b3:101d".into())),
            firmware_version: Some(Fact::ioctl(fw.into())),
            mtu: Some(Fact::ioctl(mtu)),
            ..HostFacts::default()
        };
        let mut w = InterfaceWindow { interface: name.into(), ..Default::default() };
        w.identity.host = Some(host);
        w
    }

    fn codes(a: &InterfaceAnalysis) -> Vec<ReasonCode> {
        a.reasons
            .iter()
            .map(|r| r.code)
            .filter(|c| matches!(c, ReasonCode::MtuMismatch | ReasonCode::FirmwareMismatch | ReasonCode::HostNumaRemote))
            .collect()
    }

    /// One port at 1500 among 9000s, on an older firmware than its siblings of one model
    /// (the PSID in brackets differs between OEM boards and is not the version).
    #[test]
    fn the_odd_port_out_is_named() {
        let ws = [
            nic("a", 9000, "22.39.1002 (MT_0000000359)"),
            nic("b", 9000, "22.39.1002 (DEL0000000027)"),
            nic("c", 1500, "22.36.1010 (MT_0000000359)"),
        ];
        let all = crate::analysis::analyze(&ws, &Config::default(), &[]);
        assert_eq!(codes(&all[2]), [ReasonCode::MtuMismatch, ReasonCode::FirmwareMismatch]);
        let c = &all[2].reasons;
        assert!(c.iter().any(|r| r.message == "MTU 1500 where the node's other fabric ports (a, b) run 9000"), "{c:?}");
        assert!(
            c.iter().any(|r| r.message == "firmware 22.36.1010 where other NICs of this model (15b3:101d) run 22.39.1002 (a, b)"),
            "{c:?}"
        );
        assert!(all[2].advice.iter().any(|a| a.starts_with("c: set MTU 9000 (`ip link set c mtu 9000`")), "{:?}", all[2].advice);
        // a and b run the node's MTU; their firmware differs from c's.
        assert_eq!(codes(&all[0]), [ReasonCode::FirmwareMismatch]);
        assert_eq!(all[0].verdict, crate::analysis::Verdict::Investigate);
    }

    #[test]
    fn expected_mtu_judges_a_lone_port_and_a_node_in_agreement_passes() {
        let cfg = Config { expected_mtu: Some(9000), ..Config::default() };
        let lone = crate::analysis::analyze(&[nic("a", 1500, "1.0")], &cfg, &[]);
        assert_eq!(
            lone[0].reasons.iter().find(|r| r.code == ReasonCode::MtuMismatch).unwrap().message,
            "MTU 1500 where the configuration (expected_mtu) expects 9000"
        );
        let agree = crate::analysis::analyze(&[nic("a", 9000, "1.0"), nic("b", 9000, "1.0")], &cfg, &[]);
        assert!(agree.iter().all(|a| codes(a).is_empty()));
        // Two against two and no expected MTU: every port is told the node disagrees.
        let split = crate::analysis::analyze(
            &[nic("a", 9000, "1"), nic("b", 9000, "1"), nic("c", 1500, "1"), nic("d", 1500, "1")],
            &Config::default(),
            &[],
        );
        assert!(split.iter().all(|a| codes(a) == [ReasonCode::MtuMismatch]));
        assert!(split[0].reasons.iter().any(|r| r.message.contains("(1500 on c, d; 9000 on a, b)")));
    }

    /// The peers each NIC's line counts: a and b share a model, firmware and MTU; c has no
    /// PCI ID, so its firmware is compared with no one and it says so.
    #[test]
    fn peers_are_counted_and_a_nic_without_a_model_is_not_compared() {
        let mut c = nic("c", 9000, "22.39.1002");
        c.identity.host.as_mut().unwrap().pci_id = None;
        let all = crate::analysis::analyze(&[nic("a", 9000, "22.39.1002"), nic("b", 9000, "22.39.1002"), c], &Config::default(), &[]);
        let host = |i: usize| all[i].host.as_ref().unwrap();
        assert_eq!((host(0).firmware_peers, host(0).mtu_peers, host(0).problems.len()), (Some(1), Some(2), 0));
        assert_eq!((host(2).firmware_peers, host(2).mtu_peers), (None, Some(2)));
        assert!(host(2).not_checked.iter().any(|n| n.starts_with("firmware consistency: the NIC's model (PCI ID) is not known")));
        // No window (no samples): pause and discards are named as not checked.
        assert!(host(0).not_checked.iter().any(|n| n == "pause and discards: one reading, no window to make rates of"));
    }

    #[test]
    fn what_could_not_be_checked_is_said() {
        let a = analyze_host(&HostFacts { gpus: Some(Fact::sysfs(Vec::new())), ..HostFacts::default() });
        assert_eq!(a.not_checked.len(), 5, "{:?}", a.not_checked);
        assert!(a.not_checked[3].starts_with("ring sizes: not reported"));
        assert!(a.not_checked[0].contains("no GPUs"));
        assert!(a.nearest_gpus().is_empty());
    }
}
