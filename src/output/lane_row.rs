//! The CSV lane row (docs/csv-format.md): what [`super::csv::CsvSink`] fills and both of
//! its encodings (the csv crate's serde writer, serde_json's) write.

use serde::Serialize;

/// One CSV row. Field order is the column order; the first fourteen columns are a contract.
/// The CSV text of a row is written by `output::csv_text`, in this order: a new column is
/// added there too (a test holds the two to the same bytes).
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub(crate) struct LaneRow {
    /// Wall-clock time of the sample (RFC 3339, UTC): capture start + `t`.
    pub(crate) time: Option<String>,
    /// Seconds since capture start.
    pub(crate) t: f64,
    pub(crate) interface: String,
    pub(crate) module_sn: Option<String>,
    /// 1-based lane; empty when neither the module nor the counters give lanes.
    pub(crate) lane: Option<u8>,
    pub(crate) rx_power_dbm: Option<f64>,
    pub(crate) tx_power_dbm: Option<f64>,
    pub(crate) tx_bias_ma: Option<f64>,
    pub(crate) module_temperature_c: Option<f64>,
    /// Corrected bits on this lane since the interface's previous sample.
    pub(crate) corrected_bits_delta: Option<u64>,
    pub(crate) pre_fec_ber: Option<f64>,
    pub(crate) margin_db: Option<f64>,
    /// Port-level increases since the previous sample (same on every lane row).
    pub(crate) uncorrectable_blocks_delta: Option<u64>,
    pub(crate) link_down_events_delta: Option<u64>,
    pub(crate) rx_power_mw: Option<f64>,
    pub(crate) pre_fec_ber_upper: Option<f64>,
    pub(crate) optical_margin_db: Option<f64>,
    pub(crate) interval_s: Option<f64>,
    pub(crate) flags: String,
    /// The module's media-side VDM figures, and which measurement `pre_fec_ber` is
    /// (`driver`, `netlink`, `vdm`; empty = none).
    pub(crate) esnr_db: Option<f64>,
    pub(crate) ltp_db: Option<f64>,
    pub(crate) module_pre_fec_ber: Option<f64>,
    pub(crate) ber_source: Option<crate::analysis::vdm_lanes::BerSource>,
    /// Host the capture was taken on (capture header), after every earlier column.
    pub(crate) host: Option<String>,
    /// With a far end (`export --peer`): far-end Tx dBm - this sample's Rx dBm on the lane
    /// (`analysis::link_loss`), the channel insertion loss budget of the PMD, and the PMD.
    pub(crate) link_loss_db: Option<f64>,
    pub(crate) link_loss_budget_db: Option<f64>,
    pub(crate) link_loss_pmd: Option<&'static str>,
    /// The port's frame loss over the interval (`analysis::frame_loss`, same on every lane
    /// row): uncorrectable over all codewords, its FLR with the PCS's interleave, the FLR
    /// the histogram's tail predicts, and the 802.3 budgets each FLR is over.
    pub(crate) codeword_error_ratio: Option<f64>,
    pub(crate) flr: Option<f64>,
    pub(crate) predicted_flr: Option<f64>,
    pub(crate) flr_over_budgets: Option<&'static str>,
    pub(crate) predicted_flr_over_budgets: Option<&'static str>,
    /// The host beneath the link as the interface record states it (docs/host.md; same
    /// on every row of the interface): driver, firmware, NUMA node, MTU, ring sizes
    /// (current and the driver's maximum) and channels.
    pub(crate) host_driver: Option<String>,
    pub(crate) host_firmware_version: Option<String>,
    pub(crate) host_numa_node: Option<i32>,
    pub(crate) host_mtu: Option<u32>,
    pub(crate) host_rx_ring: Option<u32>,
    pub(crate) host_rx_ring_max: Option<u32>,
    pub(crate) host_tx_ring: Option<u32>,
    pub(crate) host_tx_ring_max: Option<u32>,
    pub(crate) host_combined_channels: Option<u32>,
    pub(crate) host_rx_channels: Option<u32>,
    pub(crate) host_tx_channels: Option<u32>,
    /// Pause frames received and sent, and frames dropped for want of host buffers
    /// (receive discards, out of buffer), per second over the interval (same on every row).
    pub(crate) rx_pause_frames_per_s: Option<f64>,
    pub(crate) tx_pause_frames_per_s: Option<f64>,
    pub(crate) rx_discards_per_s: Option<f64>,
    pub(crate) rx_out_of_buffer_per_s: Option<f64>,
    /// An InfiniBand port's `PortCounters` over the interval (same on every row; empty
    /// for other ports and without an interval): each counter's increase by its sysfs
    /// name, symbol errors per second, and the counters that read their maximum at the
    /// sample (`;`-separated): their increases are lower bounds ("at least").
    pub(crate) ib_symbol_error_delta: Option<u64>,
    pub(crate) ib_symbol_errors_per_s: Option<f64>,
    pub(crate) ib_link_downed_delta: Option<u64>,
    pub(crate) ib_link_error_recovery_delta: Option<u64>,
    pub(crate) ib_port_rcv_errors_delta: Option<u64>,
    pub(crate) ib_port_rcv_remote_physical_errors_delta: Option<u64>,
    pub(crate) ib_local_link_integrity_errors_delta: Option<u64>,
    pub(crate) ib_excessive_buffer_overrun_errors_delta: Option<u64>,
    pub(crate) ib_saturated: Option<String>,
}
