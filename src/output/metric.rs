//! The metric vocabulary: every family the exporter and the textfile route expose, with its
//! name, type, labels, unit and help as data. docs/metrics.md documents each; a test keeps
//! the two equal. Names may be added, never renamed (the contract of docs/metrics.md).
//!
//! The order of [`Metric::ALL`] is the order of the families in an exposition.

/// Whether a family is a gauge or a monotonic counter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetricType {
    /// A value that goes up and down (`# TYPE ... gauge`).
    Gauge,
    /// A value that only grows; its exposed name ends in `_total` (`# TYPE ... counter`).
    Counter,
}

/// What a family is: the data behind each [`Metric`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricSpec {
    /// The name as exposed (a counter's with its `_total`).
    pub name: &'static str,
    /// Gauge or counter.
    pub kind: MetricType,
    /// Label names, in the order a series carries them.
    pub labels: &'static [&'static str],
    /// The unit the name ends in, Prometheus style (`dbm`, `seconds`); empty for a ratio,
    /// a count of things or an info family.
    pub(crate) unit: &'static str,
    /// The `# HELP` text.
    pub(crate) help: &'static str,
}

macro_rules! metrics {
    ($($variant:ident = $kind:ident $name:literal [$($label:literal),*] unit $unit:literal: $help:literal;)*) => {
        /// One metric family (see [`MetricSpec`] for what each carries).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Metric {
            $(#[doc = $help] $variant,)*
        }

        impl Metric {
            /// Every family, in exposition order.
            pub const ALL: &'static [Metric] = &[$(Metric::$variant,)*];

            /// The family's name, type, labels, unit and help.
            pub const fn spec(self) -> &'static MetricSpec {
                match self {
                    $(Metric::$variant => &MetricSpec {
                        name: $name,
                        kind: MetricType::$kind,
                        labels: &[$($label),*],
                        unit: $unit,
                        help: $help,
                    },)*
                }
            }
        }
    };
}

metrics! {
    LaneRxPowerDbm = Gauge "optics_lane_rx_power_dbm" ["interface", "lane"] unit "dbm":
        "Received optical power per lane, dBm (latest reading)";
    LaneTxPowerDbm = Gauge "optics_lane_tx_power_dbm" ["interface", "lane"] unit "dbm":
        "Transmitted optical power per lane, dBm (latest reading)";
    LaneTxBiasAmperes = Gauge "optics_lane_tx_bias_amperes" ["interface", "lane"] unit "amperes":
        "Laser bias current per lane, amperes";
    LanePreFecBer = Gauge "optics_lane_pre_fec_ber" ["interface", "lane", "window"] unit "":
        "Pre-FEC bit error ratio per lane over the named window (run = the judgement window of the current segment)";
    LanePreFecBerUpper = Gauge "optics_lane_pre_fec_ber_upper" ["interface", "lane"] unit "":
        "Upper confidence bound of the judgement-window pre-FEC BER per lane";
    LaneMarginDb = Gauge "optics_lane_margin_db" ["interface", "lane"] unit "db":
        "Optical-equivalent margin to the FEC limit per lane, dB (judgement window)";
    LaneMarginSlopeDbPerHour = Gauge "optics_lane_margin_slope_db_per_hour" ["interface", "lane"] unit "db_per_hour":
        "Slope of the lane's margin over the trend window, dB per hour (least squares on the bucketed series)";
    LaneTimeToFecLimitSeconds = Gauge "optics_lane_time_to_fec_limit_seconds" ["interface", "lane"] unit "seconds":
        "Seconds until a falling lane's margin reaches the FEC limit at its current slope";
    LaneTimeToFloorSeconds = Gauge "optics_lane_time_to_floor_seconds" ["interface", "lane"] unit "seconds":
        "Seconds until a falling lane's margin reaches the margin floor at its current slope";
    LaneOpticalMarginDb = Gauge "optics_lane_optical_margin_db" ["interface", "lane"] unit "db":
        "Received power above the module's low warning (or alarm) threshold per lane, dB";
    LaneCorrectedBitsTotal = Counter "optics_lane_corrected_bits_total" ["interface", "lane"] unit "bits":
        "Bits FEC corrected per lane, carried across hardware counter resets";
    LanePreFecBerMax = Gauge "optics_lane_pre_fec_ber_max" ["interface", "lane", "window"] unit "":
        "Highest pre-FEC BER per lane of a series bucket (about a minute) in the named window";
    LaneRank = Gauge "optics_lane_rank" ["interface", "lane"] unit "":
        "Lane rank by margin within its interface, 1 = weakest";
    LaneFlag = Gauge "optics_lane_flag" ["interface", "lane", "flag"] unit "":
        "1 while the lane carries this flag";
    InterfaceVerdict = Gauge "optics_interface_verdict" ["interface", "verdict"] unit "":
        "One-hot verdict of the interface: accept, investigate or reject";
    InterfaceReason = Gauge "optics_interface_reason" ["interface", "code"] unit "":
        "1 while the interface has a reason with this code";
    InterfacePeerInfo = Gauge "optics_interface_peer_info" ["interface", "system", "port"] unit "":
        "The far end of the interface's cable as the LLDP neighbor table names it (value 1): the neighbor's system and port";
    FecCorrectedBlocksTotal = Counter "optics_fec_corrected_blocks_total" ["interface"] unit "blocks":
        "FEC codewords corrected, carried across hardware counter resets";
    FecUncorrectableBlocksTotal = Counter "optics_fec_uncorrectable_blocks_total" ["interface"] unit "blocks":
        "FEC codewords FEC could not correct (frames lost), carried across resets";
    FecPredictedFlrMax = Gauge "optics_fec_predicted_flr_max" ["interface", "window"] unit "":
        "Highest frame loss ratio the FEC histogram's tail predicted in the named window";
    LinkDownEventsTotal = Counter "optics_link_down_events_total" ["interface"] unit "events":
        "Link down events, carried across hardware counter resets";
    LinkUp = Gauge "optics_link_up" ["interface"] unit "":
        "1 when the link is up, 0 when down";
    LinkSpeedBitsPerSecond = Gauge "optics_link_speed_bits_per_second" ["interface"] unit "bits_per_second":
        "Negotiated link speed, bits per second";
    LinkInfo = Gauge "optics_link_info" ["interface", "link_mode", "fec", "modulation"] unit "":
        "Negotiated link mode, FEC and lane modulation (value 1)";
    ModuleTemperatureCelsius = Gauge "optics_module_temperature_celsius" ["interface"] unit "celsius":
        "Module temperature, degrees Celsius";
    ModuleSupplyVoltageVolts = Gauge "optics_module_supply_voltage_volts" ["interface"] unit "volts":
        "Module supply voltage, volts";
    ModuleInfo = Gauge "optics_module_info" ["interface", "standard", "vendor", "part_number", "module_sn", "revision"] unit "":
        "Module identity (value 1); module_sn changes when the module is swapped";
    ModuleThreshold = Gauge "optics_module_threshold" ["interface", "quantity", "limit"] unit "":
        "Module alarm and warning limits, in the quantity's unit";
    PcieLinkWidth = Gauge "optics_pcie_link_width" ["interface", "which"] unit "":
        "PCIe link width in lanes, current or max";
    PcieLinkSpeedGts = Gauge "optics_pcie_link_speed_gts" ["interface", "which"] unit "gts":
        "PCIe link speed in GT/s, current or max";
    PcieCeilingBitsPerSecond = Gauge "optics_pcie_ceiling_bits_per_second" ["interface"] unit "bits_per_second":
        "Usable bandwidth of the NIC's own PCIe link, bits per second";
    PcieDegraded = Gauge "optics_pcie_degraded" ["interface"] unit "":
        "1 when the PCIe link caps the port below its line rate";
    HostInfo = Gauge "optics_host_info" ["interface", "driver", "driver_version", "firmware_version", "numa_node"] unit "":
        "The NIC's driver, driver version, firmware version and NUMA node (value 1)";
    HostMtuBytes = Gauge "optics_host_mtu_bytes" ["interface"] unit "bytes":
        "MTU of the netdev, bytes";
    HostRingEntries = Gauge "optics_host_ring_entries" ["interface", "direction", "which"] unit "":
        "Descriptor ring size, rx or tx, current or the driver's max";
    HostPauseFramesTotal = Counter "optics_host_pause_frames_total" ["interface", "direction"] unit "frames":
        "Pause frames received or sent (link level), carried across hardware counter resets";
    HostRxDiscardedFramesTotal = Counter "optics_host_rx_discarded_frames_total" ["interface", "cause"] unit "frames":
        "Received frames dropped for want of host buffers (discards, out_of_buffer), carried across resets";
    IbPortInfo = Gauge "optics_ib_port_info" ["interface", "hca", "port", "speed", "width"] unit "":
        "InfiniBand port identity (value 1): RDMA device, port number, link speed (NDR, HDR, ...) and width (4X, ...) as sysfs rate names them";
    IbSymbolErrorsTotal = Counter "optics_ib_symbol_errors_total" ["interface"] unit "errors":
        "InfiniBand PortCounters SymbolErrorCounter (HDR and later: errors FEC left), carried across resets; a lower bound while optics_ib_counter_saturated says so";
    IbLinkErrorRecoveriesTotal = Counter "optics_ib_link_error_recoveries_total" ["interface"] unit "":
        "InfiniBand PortCounters LinkErrorRecoveryCounter: retrains without going down, carried across resets";
    IbPortRcvErrorsTotal = Counter "optics_ib_port_rcv_errors_total" ["interface"] unit "errors":
        "InfiniBand PortCounters PortRcvErrors: received packets dropped with an error, carried across resets";
    IbPortRcvRemotePhysicalErrorsTotal = Counter "optics_ib_port_rcv_remote_physical_errors_total" ["interface"] unit "errors":
        "InfiniBand PortCounters PortRcvRemotePhysicalErrors: packets the sender marked bad (an error upstream), carried across resets";
    IbLocalLinkIntegrityErrorsTotal = Counter "optics_ib_local_link_integrity_errors_total" ["interface"] unit "errors":
        "InfiniBand PortCounters LocalLinkIntegrityErrors: times local physical errors crossed their threshold, carried across resets";
    IbExcessiveBufferOverrunErrorsTotal = Counter "optics_ib_excessive_buffer_overrun_errors_total" ["interface"] unit "errors":
        "InfiniBand PortCounters ExcessiveBufferOverrunErrors: input buffer overruns, carried across resets";
    IbPortXmitDiscardsTotal = Counter "optics_ib_port_xmit_discards_total" ["interface"] unit "":
        "InfiniBand PortCounters PortXmitDiscards: outbound packets dropped (port down or congested), carried across resets";
    IbPortRcvDataBytesTotal = Counter "optics_ib_port_rcv_data_bytes_total" ["interface"] unit "bytes":
        "InfiniBand bytes received (PortRcvData x 4 octets), carried across resets";
    IbPortXmitDataBytesTotal = Counter "optics_ib_port_xmit_data_bytes_total" ["interface"] unit "bytes":
        "InfiniBand bytes sent (PortXmitData x 4 octets), carried across resets";
    IbPortRcvPacketsTotal = Counter "optics_ib_port_rcv_packets_total" ["interface"] unit "packets":
        "InfiniBand packets received (PortRcvPkts), carried across resets";
    IbPortXmitPacketsTotal = Counter "optics_ib_port_xmit_packets_total" ["interface"] unit "packets":
        "InfiniBand packets sent (PortXmitPkts), carried across resets";
    IbCounterSaturated = Gauge "optics_ib_counter_saturated" ["interface", "counter"] unit "":
        "1 while an InfiniBand PortCounters counter reads its maximum (it stops there): its count is at least that, its rate unknown; 0 otherwise";
    BuildInfo = Gauge "optics_build_info" ["version"] unit "":
        "optics build (value 1)";
    SampleDurationSeconds = Gauge "optics_sample_duration_seconds" [] unit "seconds":
        "Wall time the last sampling tick took, seconds";
    SampleErrorsTotal = Counter "optics_sample_errors_total" ["layer"] unit "errors":
        "Sampling errors by layer (module, counters, discovery)";
    LastSampleTimestampSeconds = Gauge "optics_last_sample_timestamp_seconds" [] unit "seconds":
        "Unix time of the last completed sampling tick";
    Interfaces = Gauge "optics_interfaces" [] unit "":
        "Interfaces the exporter samples now (0: none found)";
    JudgeWindowSeconds = Gauge "optics_judge_window_seconds" [] unit "seconds":
        "Window the verdicts, flags, margins and BERs are judged over, seconds";
    TrendWindowSeconds = Gauge "optics_trend_window_seconds" [] unit "seconds":
        "Window the margin trend is fitted over, seconds";
    FecCodewordErrorRatio = Gauge "optics_fec_codeword_error_ratio" ["interface"] unit "":
        "Uncorrectable over all RS-FEC codewords in the judgement window";
    FecFlr = Gauge "optics_fec_flr" ["interface"] unit "":
        "Frame loss ratio of the judgement window's uncorrectable codewords, with the PCS's codeword interleave";
    FecPredictedFlr = Gauge "optics_fec_predicted_flr" ["interface"] unit "":
        "Frame loss ratio the FEC histogram's chosen tail model predicts over the judgement window";
    FecFlrBudget = Gauge "optics_fec_flr_budget" ["interface", "budget"] unit "":
        "Frame loss ratio budget of IEEE 802.3 138.1.1 for 64-octet frames: the module's or the whole PHY's";
}

impl Metric {
    /// The name as exposed.
    pub const fn name(self) -> &'static str {
        self.spec().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_carry_their_type_and_unit() {
        let mut names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Metric::ALL.len(), "a name is used twice");
        for m in Metric::ALL {
            let s = m.spec();
            assert_eq!(s.name.ends_with("_total"), s.kind == MetricType::Counter, "{}: counters and only counters end in _total", s.name);
            let base = s.name.strip_suffix("_total").unwrap_or(s.name);
            assert!(
                s.unit.is_empty() || base.ends_with(&format!("_{}", s.unit)),
                "{}: the name does not end in its unit {}",
                s.name,
                s.unit
            );
        }
    }
}
