//! The normalised per-lane counter model every figure lands in, whichever source counted
//! it: each figure with its [`Origin`] ([`mod@super::normalize`] fills it from netlink and
//! driver counters, [`super::host`] the pause and discard figures, [`super::ib`] an
//! InfiniBand port's `PortCounters`).

use super::FecSource;
use serde::Serialize;
use std::fmt;

/// Where a normalised figure came from. Written (JSON, notes) as `netlink`,
/// `driver:<ethtool -S name>`, `ib:<sysfs counter name>`, `import:<tool>` or `samples`: a
/// contract.
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
    /// FEC counters an imported tool output printed (`mlxlink`, `nvue`, `eos`, `sonic`).
    Import(FecSource),
    /// Counted from the samples themselves (link up -> down transitions).
    Samples,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Netlink => f.write_str("netlink"),
            Origin::Driver(name) => write!(f, "driver:{name}"),
            Origin::Ib(name) => write!(f, "ib:{name}"),
            Origin::Import(tool) => write!(f, "import:{}", tool.as_str()),
            Origin::Samples => f.write_str("samples"),
        }
    }
}

impl Serialize for Origin {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A counter's value and where it came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Counted {
    /// The count.
    pub value: u64,
    /// Where the count came from.
    pub origin: Origin,
}

/// Per-lane values, index 0 = lane 1.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LaneCounts {
    /// The count of each lane.
    pub values: Vec<u64>,
    pub(crate) origin: Origin,
}

/// One port's counters, one model whatever the driver named them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PortCounters {
    /// Bits FEC corrected.
    pub corrected_bits: Option<Counted>,
    /// Bits FEC corrected, per lane.
    pub corrected_bits_per_lane: Option<LaneCounts>,
    pub(crate) corrected_blocks: Option<Counted>,
    pub(crate) corrected_blocks_per_lane: Option<LaneCounts>,
    /// Codewords FEC could not correct.
    pub uncorrectable_blocks: Option<Counted>,
    pub(crate) uncorrectable_blocks_per_lane: Option<LaneCounts>,
    /// How often a tool's latest reading of corrected codewords changed
    /// ([`super::FecReadings`]): a running count where the figure itself is not one.
    pub(crate) corrected_reading_changes: Option<Counted>,
    /// The same of uncorrectable codewords: over a window, new readings of lost codewords.
    pub(crate) uncorrectable_reading_changes: Option<Counted>,
    /// The latest readings themselves, as read (never subtracted: absent from deltas).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) latest_readings: Option<super::FecReadings>,
    /// Received bits (bnxt_en `rx_bits`, mlx5 `rx_bits_phy` where present): a measured BER denominator.
    pub(crate) rx_bits: Option<Counted>,
    /// PCS symbol errors (errors FEC did not correct, or FEC inactive).
    pub(crate) pcs_symbol_errors: Option<Counted>,
    /// Times the link went down.
    pub link_down_events: Option<Counted>,
    /// Frames received with a bad frame check sequence and dropped (IEEE 802.3 30.3.1.1.6
    /// aFrameCheckSequenceErrors): frames lost on the line, whatever FEC says.
    pub(crate) fcs_errors: Option<Counted>,
    /// Frames during which the PHY saw an invalid symbol (IEEE 802.3 30.3.2.1.5
    /// aSymbolErrorDuringCarrier): errors that reached the PCS uncorrected. On an
    /// InfiniBand port, `PortCounters` SymbolErrorCounter (`ib:symbol_error`).
    pub(crate) symbol_errors: Option<Counted>,
    /// InfiniBand `PortCounters` figures with no Ethernet counterpart (`counters::ib`).
    #[serde(skip_serializing_if = "IbCounted::is_empty")]
    pub(crate) ib: IbCounted,
    /// Pause frames and receive discards (`counters::host`).
    #[serde(skip_serializing_if = "HostCounted::is_empty")]
    pub(crate) host: HostCounted,
    /// Driver per-lane counter names that are no lane of the port and were left out of
    /// `corrected_bits_per_lane` (mlx5 `rx_err_lane_99999_phy`: `super::slots`), when the
    /// driver's per-lane counters were read.
    #[serde(skip)]
    pub(crate) stray_lane_counters: Option<super::slots::CounterNames>,
}

/// `PortCounters` figures the Ethernet model has no name for, each with its origin
/// (`ib:<sysfs name>`); the ones it has (`symbol_error`, `link_downed`) go to
/// `PortCounters::symbol_errors` and [`PortCounters::link_down_events`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IbCounted {
    /// Retrains: the port training state machine completed link error recovery.
    pub(crate) link_error_recovery: Option<Counted>,
    /// Packets received with an error (ICRC/VCRC, physical errors, malformed) and dropped.
    pub(crate) port_rcv_errors: Option<Counted>,
    /// Packets received marked bad (EBP) by the sender: an error on another link upstream.
    pub(crate) port_rcv_remote_physical_errors: Option<Counted>,
    /// Times local physical errors passed the LocalPhyErrors threshold.
    pub(crate) local_link_integrity_errors: Option<Counted>,
    /// Input buffer overruns: credit misconfiguration, or very poor signal integrity.
    pub(crate) excessive_buffer_overrun_errors: Option<Counted>,
    /// Outbound packets dropped because the port was down or congested.
    pub(crate) port_xmit_discards: Option<Counted>,
    #[serde(rename = "VL15_dropped")]
    pub(crate) vl15_dropped: Option<Counted>,
    /// Received data in 4-octet units.
    pub(crate) port_rcv_data: Option<Counted>,
    /// Transmitted data in 4-octet units.
    pub(crate) port_xmit_data: Option<Counted>,
    pub(crate) port_rcv_packets: Option<Counted>,
    pub(crate) port_xmit_packets: Option<Counted>,
    /// Counters two tools read at once in disagreement ([`super::ib::IbSample::disagreements`]).
    #[serde(skip)]
    pub(crate) disagreements: Vec<super::ib::IbDisagreement>,
}

impl IbCounted {
    pub(crate) fn is_empty(&self) -> bool {
        *self == IbCounted::default()
    }

    /// The figures with their sysfs names, in table order.
    pub(crate) fn named(&self) -> [(&'static str, &Option<Counted>); 11] {
        [
            ("link_error_recovery", &self.link_error_recovery),
            ("port_rcv_errors", &self.port_rcv_errors),
            ("port_rcv_remote_physical_errors", &self.port_rcv_remote_physical_errors),
            ("local_link_integrity_errors", &self.local_link_integrity_errors),
            ("excessive_buffer_overrun_errors", &self.excessive_buffer_overrun_errors),
            ("port_xmit_discards", &self.port_xmit_discards),
            ("VL15_dropped", &self.vl15_dropped),
            ("port_rcv_data", &self.port_rcv_data),
            ("port_xmit_data", &self.port_xmit_data),
            ("port_rcv_packets", &self.port_rcv_packets),
            ("port_xmit_packets", &self.port_xmit_packets),
        ]
    }
}

/// The pause and discard figures, each with its origin.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HostCounted {
    pub(crate) rx_pause_frames: Option<Counted>,
    pub(crate) tx_pause_frames: Option<Counted>,
    /// Priority flow control frames received per priority (index = priority 0..7).
    pub(crate) rx_pause_per_priority: Option<LaneCounts>,
    pub(crate) tx_pause_per_priority: Option<LaneCounts>,
    /// Frames the port received and dropped before the host saw them (no buffer, no
    /// descriptor, a full queue).
    pub(crate) rx_discards: Option<Counted>,
    /// mlx5's receive queue had no posted buffer for a frame (its receive ring ran empty).
    pub(crate) rx_out_of_buffer: Option<Counted>,
}

impl HostCounted {
    pub(crate) fn is_empty(&self) -> bool {
        *self == HostCounted::default()
    }
}
