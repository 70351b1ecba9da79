//! InfiniBand port counters: the Performance Management `PortCounters` attribute as the
//! kernel shows it under `/sys/class/infiniband/<hca>/ports/<n>/counters/`
//! (Documentation/ABI/stable/sysfs-class-infiniband; drivers/infiniband/core/sysfs.c), its
//! counters' widths, and how they join the normalised model ([`PortCounters`]).
//!
//! The error counters are narrow and **saturate** rather than wrap (IBTA Vol 1 Rel 1.4,
//! 16.1.3.5 `PortCounters`, Table 247: "counters ... stop at all ones"): a counter that reads
//! its maximum is "at least that many since it was last cleared", and its increase over a
//! window is a lower bound, never a rate. The data and packet counters are 32 bits in
//! `PortCounters` and 64 bits where the HCA has `PortCountersExtended` (the kernel then
//! shows those; the ABI calls them 64-bit counters). Data counters count octets divided
//! by 4 (`PortXmitData` / `PortRcvData`, "in units of 32-bit words").

use super::model::{Counted, IbCounted, Origin, PortCounters};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One reading of an InfiniBand port: the capture's `sample.ib` object (docs/capture-format.md).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct IbSample {
    /// `state` as sysfs prints it: `4: ACTIVE` (IBTA PortInfo:PortState).
    #[serde(default)]
    pub state: Option<String>,
    /// `phys_state`: `5: LinkUp` (IBTA PortInfo:PortPhysicalState).
    #[serde(default)]
    pub(crate) phys_state: Option<String>,
    /// `counters/<name>` -> value, named as sysfs names the files (`symbol_error`, `VL15_dropped`).
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
    /// `hw_counters/<name>` -> value: the driver's own counters (mlx5 `out_of_buffer`, ...), kept raw.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hw_counters: BTreeMap<String, u64>,
    /// Counters two tools read of this port at one time (a copied sysfs tree and a
    /// `perfquery` in one input) whose values differ by more than the time between the
    /// reads explains; the reading kept is the first tool's.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub disagreements: Vec<IbDisagreement>,
}

/// One `PortCounters` field of a port as two tools read it, in disagreement: both read the
/// port's Performance Management Agent (sysfs through the kernel's MAD, `perfquery` through
/// umad), so at one time they read one value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IbDisagreement {
    /// The counter, as sysfs names it (`symbol_error`).
    pub counter: String,
    /// The value kept, and the tool that read it (`sysfs tree`).
    pub kept: IbReading,
    /// The other tool's value.
    pub other: IbReading,
}

/// `symbol_error: sysfs class/infiniband read 0, perfquery 40 ...`: a disagreement in words.
pub(crate) fn disagreement_text(d: &IbDisagreement) -> String {
    format!(
        "{}: {} read {}, {} read {}: the same PMA counter of this port in one input, which the time between the two reads does not explain (a read of another time or port?); {}'s value is used",
        d.counter, d.kept.source, d.kept.value, d.other.source, d.other.value, d.kept.source
    )
}

/// A counter's value as one tool read it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct IbReading {
    /// The tool, as import names the format (`perfquery`).
    pub source: String,
    /// The value it read.
    pub value: u64,
}

/// Counters of traffic: between two reads they move by at most what the link carries in
/// the time between them (data in 4-octet units, and a packet is at least one unit).
const TRAFFIC_COUNTERS: &[&str] = &[
    "port_xmit_data",
    "port_rcv_data",
    "port_xmit_packets",
    "port_rcv_packets",
    "unicast_xmit_packets",
    "unicast_rcv_packets",
    "multicast_xmit_packets",
    "multicast_rcv_packets",
];

/// Can two reads of `PortCounters` field `counter`, `a` and `b`, taken `dt_s` seconds
/// apart (`None`: not known) on a link of `rate`, both be true? Equal reads are; so is a
/// saturated one below a further one (all ones is "at least", IBTA 16.1.3.5, and a
/// 64-bit `PortCountersExtended` read runs past the 32-bit ceiling). A traffic counter
/// may move by what the link carries in `dt_s`; `port_xmit_wait` (time with data and no
/// credit) by any amount. Every other field counts faults and events, which two reads of
/// one port at one time do not see come and go.
pub(crate) fn reads_agree(counter: &str, a: u64, b: u64, dt_s: Option<f64>, rate: Option<IbRate>) -> bool {
    if a == b || port_counter(counter).is_some_and(|c| a.min(b) == c.max()) || counter == "port_xmit_wait" {
        return true;
    }
    if !TRAFFIC_COUNTERS.contains(&counter) {
        return false;
    }
    match (dt_s, rate) {
        (Some(dt), Some(r)) => a.abs_diff(b) as f64 <= r.gbps * 1e9 / (8 * DATA_OCTETS_PER_UNIT) as f64 * dt,
        _ => true,
    }
}

impl IbSample {
    /// The port is up when its logical state is ACTIVE (4) or its physical state LinkUp (5):
    /// ARMED/INIT ports train the wire but carry no data yet, so only ACTIVE counts as up.
    pub fn link_up(&self) -> Option<bool> {
        let state = self.state.as_deref()?;
        Some(state_number(state) == Some(4) || state.to_ascii_uppercase().contains("ACTIVE"))
    }
}

/// The number before the colon of `4: ACTIVE` / `5: LinkUp`.
fn state_number(text: &str) -> Option<u32> {
    text.split(':').next()?.trim().parse().ok()
}

/// A `PortCounters` field: its sysfs file name and width in bits (sysfs.c `PORT_PMA_ATTR`,
/// IBTA Table 247).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PortCounter {
    pub(crate) name: &'static str,
    pub(crate) bits: u32,
}

impl PortCounter {
    /// The value a saturated counter holds: all ones.
    pub(crate) fn max(self) -> u64 {
        (1u64 << self.bits) - 1
    }
}

/// Every `PortCounters` field the kernel shows, with its width (sysfs.c `PORT_PMA_ATTR`
/// rows: name, counter, **width**, offset).
pub(crate) const PORT_COUNTERS: &[PortCounter] = &[
    PortCounter { name: "symbol_error", bits: 16 },
    PortCounter { name: "link_error_recovery", bits: 8 },
    PortCounter { name: "link_downed", bits: 8 },
    PortCounter { name: "port_rcv_errors", bits: 16 },
    PortCounter { name: "port_rcv_remote_physical_errors", bits: 16 },
    PortCounter { name: "port_rcv_switch_relay_errors", bits: 16 },
    PortCounter { name: "port_xmit_discards", bits: 16 },
    PortCounter { name: "port_xmit_constraint_errors", bits: 8 },
    PortCounter { name: "port_rcv_constraint_errors", bits: 8 },
    PortCounter { name: "local_link_integrity_errors", bits: 4 },
    PortCounter { name: "excessive_buffer_overrun_errors", bits: 4 },
    PortCounter { name: "VL15_dropped", bits: 16 },
    // 32 bits in PortCounters; 64 in PortCountersExtended, where all ones is not a ceiling
    // but a value like any other (reached after 2^32 x 4 octets, never in practice).
    PortCounter { name: "port_xmit_data", bits: 32 },
    PortCounter { name: "port_rcv_data", bits: 32 },
    PortCounter { name: "port_xmit_packets", bits: 32 },
    PortCounter { name: "port_rcv_packets", bits: 32 },
    PortCounter { name: "port_xmit_wait", bits: 32 },
];

pub(crate) fn port_counter(name: &str) -> Option<PortCounter> {
    PORT_COUNTERS.iter().copied().find(|c| c.name == name)
}

/// The counters of `counters` (name -> value) that read their maximum: saturated, so
/// "at least" that many (IBTA 16.1.3.5).
pub(crate) fn saturated<'a>(counters: impl IntoIterator<Item = (&'a str, u64)>) -> Vec<(PortCounter, u64)> {
    counters.into_iter().filter_map(|(name, v)| port_counter(name).filter(|c| v == c.max()).map(|c| (c, v))).collect()
}

/// Octets per `port_rcv_data` / `port_xmit_data` unit (IBTA Table 247: "divided by 4").
pub(crate) const DATA_OCTETS_PER_UNIT: u64 = 4;

const SYMBOL_ERROR: &str = "symbol_error";
const LINK_DOWNED: &str = "link_downed";

/// The IB figures of `ib` into `out` (after [`super::normalize_into`] filled the rest): an
/// IB port has no netlink or driver counters, so its symbol errors and link-down count
/// are the `PortCounters` ones. Without `ib`, `out.ib` is emptied.
pub(crate) fn normalize_into(out: &mut PortCounters, ib: Option<&IbSample>) {
    let Some(ib) = ib else {
        if !out.ib.is_empty() {
            out.ib = IbCounted::default();
        }
        return;
    };
    let get = |name: &'static str| ib.counters.get(name).map(|v| Counted { value: *v, origin: Origin::Ib(name) });
    if let Some(c) = get(SYMBOL_ERROR) {
        out.symbol_errors = Some(c);
    }
    if let Some(c) = get(LINK_DOWNED) {
        out.link_down_events = Some(c);
    }
    out.ib = IbCounted {
        link_error_recovery: get("link_error_recovery"),
        port_rcv_errors: get("port_rcv_errors"),
        port_rcv_remote_physical_errors: get("port_rcv_remote_physical_errors"),
        local_link_integrity_errors: get("local_link_integrity_errors"),
        excessive_buffer_overrun_errors: get("excessive_buffer_overrun_errors"),
        port_xmit_discards: get("port_xmit_discards"),
        vl15_dropped: get("VL15_dropped"),
        port_rcv_data: get("port_rcv_data"),
        port_xmit_data: get("port_xmit_data"),
        port_rcv_packets: get("port_rcv_packets"),
        port_xmit_packets: get("port_xmit_packets"),
        disagreements: ib.disagreements.clone(),
    };
}

/// The sysfs name behind an [`Origin::Ib`].
pub(crate) fn origin_name(origin: &Origin) -> Option<&'static str> {
    match origin {
        Origin::Ib(name) => Some(name),
        _ => None,
    }
}

/// An IB link speed (IBTA PortInfo:LinkSpeedActive / LinkSpeedExtActive), as the kernel's
/// `rate` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum IbSpeed {
    /// Single data rate: 2.5 Gb/s per lane.
    Sdr,
    /// Double data rate: 5 Gb/s per lane.
    Ddr,
    /// Quad data rate: 10 Gb/s per lane.
    Qdr,
    /// FDR10: 10.3125 GBd per lane, 64b/66b.
    Fdr10,
    /// Fourteen data rate: 14.0625 GBd per lane.
    Fdr,
    /// Enhanced data rate: 25.78125 GBd per lane.
    Edr,
    /// High data rate: 50 Gb/s per lane (PAM4).
    Hdr,
    /// Next data rate: 100 Gb/s per lane (PAM4).
    Ndr,
    /// Extreme data rate: 200 Gb/s per lane (PAM4).
    Xdr,
}

impl IbSpeed {
    pub(crate) fn parse(text: &str) -> Option<IbSpeed> {
        Some(match text.trim().to_ascii_uppercase().as_str() {
            "SDR" => IbSpeed::Sdr,
            "DDR" => IbSpeed::Ddr,
            "QDR" => IbSpeed::Qdr,
            "FDR10" => IbSpeed::Fdr10,
            "FDR" => IbSpeed::Fdr,
            "EDR" => IbSpeed::Edr,
            "HDR" => IbSpeed::Hdr,
            "NDR" => IbSpeed::Ndr,
            "XDR" => IbSpeed::Xdr,
            _ => return None,
        })
    }

    pub(crate) fn as_str(self) -> &'static str {
        match self {
            IbSpeed::Sdr => "SDR",
            IbSpeed::Ddr => "DDR",
            IbSpeed::Qdr => "QDR",
            IbSpeed::Fdr10 => "FDR10",
            IbSpeed::Fdr => "FDR",
            IbSpeed::Edr => "EDR",
            IbSpeed::Hdr => "HDR",
            IbSpeed::Ndr => "NDR",
            IbSpeed::Xdr => "XDR",
        }
    }

    /// Data rate per lane in Mb/s as the kernel's `rate` counts it (sysfs.c `rate_show`,
    /// deci-Gb/s per lane: SDR 2.5, DDR 5, QDR/FDR10 10, FDR 14, EDR 25, HDR 50, NDR 100, XDR 200).
    pub(crate) fn lane_mbps(self) -> u32 {
        match self {
            IbSpeed::Sdr => 2_500,
            IbSpeed::Ddr => 5_000,
            IbSpeed::Qdr | IbSpeed::Fdr10 => 10_000,
            IbSpeed::Fdr => 14_000,
            IbSpeed::Edr => 25_000,
            IbSpeed::Hdr => 50_000,
            IbSpeed::Ndr => 100_000,
            IbSpeed::Xdr => 200_000,
        }
    }

    /// HDR and later run RS-FEC on every link (PAM4 from HDR on, 50G lanes and up): their
    /// symbol error counter counts errors the FEC (and PLR) left, which the application
    /// saw (NVIDIA UFM Enterprise User Manual 6.17, "Low-Frequency (Secondary) Telemetry
    /// Fields": Symbol_Errors are "error bits that were not corrected by phy correction
    /// mechanisms"; Symbol_BER is "post FEC + PLR").
    pub(crate) fn symbol_errors_after_fec(self) -> bool {
        self >= IbSpeed::Hdr
    }
}

/// The kernel's `rate`: `400 Gb/sec (4X NDR)`, `56 Gb/sec (4X FDR)`, `2.5 Gb/sec (1X SDR)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct IbRate {
    pub(crate) gbps: f64,
    /// Active width in lanes (1X, 2X, 4X, 8X, 12X).
    pub(crate) width: u32,
    pub(crate) speed: IbSpeed,
}

impl IbRate {
    /// `rate_show`'s format: `"%d%s Gb/sec (%dX%s)"`. Also the `ibstat` / `ibstatus` text
    /// (`rate: 400 Gb/sec (4X NDR)`) once the label is cut off.
    pub(crate) fn parse(text: &str) -> Option<IbRate> {
        let (gbps, rest) = text.trim().split_once(" Gb/sec")?;
        let gbps: f64 = gbps.trim().parse().ok()?;
        let inner = rest.trim().strip_prefix('(')?.strip_suffix(')')?.trim();
        let (width, speed) = inner.split_once(['X', 'x'])?;
        let width: u32 = width.trim().parse().ok().filter(|w| (1..=12).contains(w))?;
        let speed = IbSpeed::parse(speed)?;
        (gbps.is_finite() && gbps > 0.0).then_some(IbRate { gbps, width, speed })
    }

    /// `4X NDR`: what the link mode shows for an IB port.
    pub(crate) fn mode(&self) -> String {
        format!("{}X {}", self.width, self.speed.as_str())
    }

    /// The link as the rest of optics reads it: speed = lanes x the speed's lane rate (the
    /// kernel's "56 Gb/sec" for FDR is 4 x 14), lanes = width, mode `4X NDR`. FEC is not
    /// named: sysfs does not say which one is active.
    pub(crate) fn link_info(&self) -> super::LinkInfo {
        super::LinkInfo {
            speed_mbps: Some(self.speed.lane_mbps() * self.width),
            lanes: Some(self.width),
            link_mode: Some(self.mode()),
            fec_active: None,
            ..Default::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_the_kernels() {
        // sysfs.c PORT_PMA_ATTR: symbol_error 16, link_error_recovery 8, link_downed 8,
        // local_link_integrity_errors 4, excessive_buffer_overrun_errors 4.
        assert_eq!(port_counter("symbol_error").unwrap().max(), 65_535);
        assert_eq!(port_counter("link_downed").unwrap().max(), 255);
        assert_eq!(port_counter("local_link_integrity_errors").unwrap().max(), 15);
        assert_eq!(port_counter("port_rcv_data").unwrap().max(), 4_294_967_295);
        let names: std::collections::HashSet<_> = PORT_COUNTERS.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), PORT_COUNTERS.len());
    }

    /// Two reads of one port: fault counters agree only when equal or saturated; traffic
    /// by what 4X NDR (400 Gb/s = 1.25e10 4-octet units a second) carries between them.
    #[test]
    fn two_reads_agree_within_what_the_time_between_them_explains() {
        let ndr = IbRate::parse("400 Gb/sec (4X NDR)");
        assert!(reads_agree("symbol_error", 40, 40, None, ndr));
        assert!(!reads_agree("symbol_error", 0, 40, Some(1.0), ndr));
        assert!(reads_agree("symbol_error", 65_535, 70_000, None, None));
        assert!(reads_agree("port_rcv_data", 0, 12_500_000_000, Some(1.0), ndr));
        assert!(!reads_agree("port_rcv_data", 0, 12_500_000_001, Some(1.0), ndr));
        assert!(reads_agree("port_rcv_data", 0, 1 << 40, None, ndr));
        assert!(reads_agree("port_rcv_data", 4_294_967_295, 1 << 40, Some(0.0), ndr));
        assert!(reads_agree("port_xmit_wait", 0, 1 << 40, Some(0.0), ndr));
    }

    #[test]
    fn rates_as_the_kernel_prints_them() {
        let r = IbRate::parse("400 Gb/sec (4X NDR)\n").unwrap();
        assert_eq!((r.gbps, r.width, r.speed), (400.0, 4, IbSpeed::Ndr));
        assert_eq!(r.link_info().speed_mbps, Some(400_000));
        assert_eq!(r.mode(), "4X NDR");
        // rate_show prints ".5" for odd deci-Gb/s: 1X SDR is 25 deci-Gb/s.
        assert_eq!(IbRate::parse("2.5 Gb/sec (1X SDR)").unwrap().link_info().speed_mbps, Some(2_500));
        assert_eq!(IbRate::parse("56 Gb/sec (4X FDR)").unwrap().link_info().speed_mbps, Some(56_000));
        assert_eq!(IbRate::parse("100 Gb/sec (2X HDR)").unwrap().width, 2);
        for bad in ["", "400", "400 Gb/sec", "400 Gb/sec (4X)", "400 Gb/sec (0X NDR)", "x Gb/sec (4X NDR)", "400 Gb/sec (4X ZDR)"] {
            assert!(IbRate::parse(bad).is_none(), "{bad:?}");
        }
    }

    #[test]
    fn only_active_is_up() {
        let s = |t: &str| IbSample { state: Some(t.into()), ..Default::default() };
        assert_eq!(s("4: ACTIVE").link_up(), Some(true));
        assert_eq!(s("1: DOWN").link_up(), Some(false));
        assert_eq!(s("2: INIT").link_up(), Some(false));
        assert_eq!(IbSample::default().link_up(), None);
    }

    #[test]
    fn saturated_counters_are_named() {
        let c = [("symbol_error", 65_535), ("link_downed", 3), ("local_link_integrity_errors", 15), ("port_rcv_data", 7)];
        let s = saturated(c);
        assert_eq!(
            s.iter().map(|(c, v)| (c.name, *v)).collect::<Vec<_>>(),
            vec![("symbol_error", 65_535), ("local_link_integrity_errors", 15)]
        );
    }
}
