//! The counter figures a window follows, by one name each: the name `counter_sources`,
//! `counter_spans` and the counter-reset sentences give it (`corrected_bits_per_lane`,
//! `fec_histogram`). That text is the contract of the JSON; the figure is a type so that
//! the sample stage and the analysis cannot disagree on a name.

use serde::{Serialize, Serializer};
use std::fmt;

/// The enum and its names from one list.
macro_rules! figures {
    ($($(#[$doc:meta])* $v:ident = $name:literal,)*) => {
        /// A counter figure of the normalised model ([`super::PortCounters`]), or the FEC
        /// histogram as one figure.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum CounterFigure {
            $($(#[$doc])* $v,)*
        }

        impl CounterFigure {
            /// Its name.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(CounterFigure::$v => $name,)*
                }
            }
        }
    };
}

figures! {
    /// Bits FEC corrected, port total.
    CorrectedBits = "corrected_bits",
    /// Codewords FEC corrected, port total.
    CorrectedBlocks = "corrected_blocks",
    /// Codewords FEC could not correct, port total.
    UncorrectableBlocks = "uncorrectable_blocks",
    /// Bits received (the driver's counter).
    RxBits = "rx_bits",
    /// PCS symbol errors (errors left after FEC).
    PcsSymbolErrors = "pcs_symbol_errors",
    /// Link-down events.
    LinkDownEvents = "link_down_events",
    /// Frames dropped for a bad FCS.
    FcsErrors = "fcs_errors",
    /// Symbol errors (IEEE 802.3 a_symbol_error_during_carrier; InfiniBand SymbolErrorCounter).
    SymbolErrors = "symbol_errors",
    /// InfiniBand LinkErrorRecoveryCounter.
    LinkErrorRecovery = "link_error_recovery",
    /// InfiniBand PortRcvErrors.
    PortRcvErrors = "port_rcv_errors",
    /// InfiniBand PortRcvRemotePhysicalErrors.
    PortRcvRemotePhysicalErrors = "port_rcv_remote_physical_errors",
    /// InfiniBand LocalLinkIntegrityErrors.
    LocalLinkIntegrityErrors = "local_link_integrity_errors",
    /// InfiniBand ExcessiveBufferOverrunErrors.
    ExcessiveBufferOverrunErrors = "excessive_buffer_overrun_errors",
    /// InfiniBand PortXmitDiscards.
    PortXmitDiscards = "port_xmit_discards",
    /// InfiniBand VL15Dropped.
    Vl15Dropped = "VL15_dropped",
    /// InfiniBand PortRcvData.
    PortRcvData = "port_rcv_data",
    /// InfiniBand PortXmitData.
    PortXmitData = "port_xmit_data",
    /// InfiniBand PortRcvPkts.
    PortRcvPackets = "port_rcv_packets",
    /// InfiniBand PortXmitPkts.
    PortXmitPackets = "port_xmit_packets",
    /// Pause frames received.
    RxPauseFrames = "rx_pause_frames",
    /// Pause frames sent.
    TxPauseFrames = "tx_pause_frames",
    /// Frames the host discarded on receive.
    RxDiscards = "rx_discards",
    /// Frames dropped for want of a receive buffer.
    RxOutOfBuffer = "rx_out_of_buffer",
    /// How often a tool's latest corrected-codeword reading changed.
    CorrectedReadingChanges = "corrected_reading_changes",
    /// How often a tool's latest uncorrectable-codeword reading changed.
    UncorrectableReadingChanges = "uncorrectable_reading_changes",
    /// Bits FEC corrected, per lane.
    CorrectedBitsPerLane = "corrected_bits_per_lane",
    /// Codewords FEC corrected, per lane.
    CorrectedBlocksPerLane = "corrected_blocks_per_lane",
    /// Codewords FEC could not correct, per lane.
    UncorrectableBlocksPerLane = "uncorrectable_blocks_per_lane",
    /// Pause frames received, per 802.1Qbb priority.
    RxPausePerPriority = "rx_pause_per_priority",
    /// Pause frames sent, per 802.1Qbb priority.
    TxPausePerPriority = "tx_pause_per_priority",
    /// The FEC histogram's bins, as one figure.
    FecHistogram = "fec_histogram",
}

impl fmt::Display for CounterFigure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CounterFigure {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_is_written_as_its_name() {
        let f = CounterFigure::CorrectedBitsPerLane;
        assert_eq!((f.as_str(), f.to_string()), ("corrected_bits_per_lane", "corrected_bits_per_lane".to_string()));
        assert_eq!(serde_json::to_string(&CounterFigure::Vl15Dropped).unwrap(), "\"VL15_dropped\"");
    }
}
