//! Reasons and the verdict per interface.
//!
//! Severity by code (the verdict is the worst reason's; no reason -> accept):
//! - reject: `uncorrectable_errors` (frames were lost), `link_flaps` (link went down or
//!   is down), `module_fault` (LOS/LOL/Tx fault), `dom_alarm` (past the module's own
//!   alarm limit), `ber_over_fec_limit` (a lane's or the port's BER past the FEC limit), `pcie_degraded` when the card trained below its own width/speed
//!   (a seating or slot fault that caps the port), `module_speed_mismatch` (a down link
//!   whose port supports, or is set to, no rate the module runs; see `port_modes`),
//!   `peer_module_mismatch` (with `--peer`, a down link whose two ends' modules cannot work
//!   together; investigate when the link's state is not known; see `peer_modules`).
//! - investigate: `fec_hiding_marginal_optics`, `low_margin`, `dom_warning`,
//!   `pcie_degraded` when the slot is simply narrower than the port needs,
//!   `module_unreadable`, `weak_transmitter`, `insufficient_data`, `no_fec_data` when FEC is on (or unknown) and nothing counts it,
//!   `fec_tail_near_limit` (the codeword histogram nears t; see `histogram`),
//!   `margin_falling` (a lane's margin trend falls; see `trend_lanes`),
//!   `host_numa_remote`, `mtu_mismatch`, `firmware_mismatch`, `rings_below_max`,
//!   `pause_storm`, `rx_discards`, `irqs_off_numa_node`, `channels_below_node_cpus` (the
//!   host beneath the link; see `host`),
//!   `link_error_recovery` (an InfiniBand port retrained), `ib_port_errors` (an IB port
//!   dropped received packets or crossed its local link integrity threshold),
//!   `counter_saturated` (an IB counter stuck at its maximum: a lower bound, no rate; see
//!   `infiniband`),
//!   `degraded_after_flap` (a lane's BER rose and held after a link drop; see `after_flap`),
//!   `dom_implausible` (the module's readings or alarm levels cannot be so; see `dom_trust`),
//!   `dom_flag_unconfirmed` (a limit flag its own reading does not bear out; see `dom_trust`),
//!   `module_not_ready` (a CMIS module short of ModuleReady: its transmitters are off),
//!   `pcie_errors` (AER's uncorrected errors on the NIC function, or a stream of corrected
//!   ones; reject when fatal; see `kernel_log`).
//! - info (does not change the verdict): `no_fec_data` on a link running without FEC, or
//!   where only FEC block counts exist (frame loss is still watched; BER bounded below).

use crate::module::flag::{FlagKind, ModuleFlag};
use serde::{Deserialize, Serialize};

/// What to do with a link: accept it, investigate it, or reject it (the worst reason's severity).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Nothing found: the link is healthy.
    Accept,
    /// Something to look at, nothing yet lost.
    Investigate,
    /// A fault: frames lost, the link down, or past a limit.
    Reject,
}

impl Verdict {
    /// The JSON spelling.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Verdict::Accept => "accept",
            Verdict::Investigate => "investigate",
            Verdict::Reject => "reject",
        }
    }
}

/// How much a reason weighs in the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Stated, not judged: does not change the verdict.
    Info,
    /// Makes the verdict at least investigate.
    Investigate,
    /// Makes the verdict reject.
    Reject,
}

/// A reason's code: the contract vocabulary of JSON `code`, CSV, the `reason` metric label and
/// `--fail-on`. Spelled in snake_case on the wire; ordered by that spelling so every
/// listing sorted by code reads as it always has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    /// The PCIe link cannot carry the port: trained below the card's own width or speed (reject), or a slot too narrow for the port (investigate).
    PcieDegraded,
    /// Uncorrectable FEC blocks, PCS symbol errors or bad frames in the window: frames were lost.
    UncorrectableErrors,
    /// Link-down events in the window, or the link is down.
    LinkFlaps,
    /// Link up and FEC correcting everything while a lane is an outlier.
    FecHidingMarginalOptics,
    /// A lane's (or the port's) BER margin under `margin_floor_db`, or its optical margin under `optical_margin_floor_db`.
    LowMargin,
    /// A module monitor past the module's own alarm threshold.
    DomAlarm,
    /// A module monitor past its warning threshold.
    DomWarning,
    /// LOS, LOL or Tx fault on a lane, or a CMIS module in ModuleFault (CMIS 5.2 Table 8-7).
    ModuleFault,
    /// No corrected-bit counter: BER cannot be measured (info when FEC is off or only block counts exist).
    NoFecData,
    /// No module data, or every checksum of the image read fails.
    ModuleUnreadable,
    /// A lane's or the port's pre-FEC BER past the FEC limit beyond counting noise (its lower bound over it).
    BerOverFecLimit,
    /// A lane's tx power below its siblings' beyond their spread, or its bias high while its power is low.
    WeakTransmitter,
    /// Too few samples, no counter deltas, or a window under `min_window_s` (or a lane rate of no known class).
    InsufficientData,
    /// The FEC codeword histogram nears the correction limit t, or its tail predicts a frame loss ratio over `fec_max_predicted_flr`.
    FecTailNearLimit,
    /// A lane's margin trend falls (the slope's whole confidence interval under 0 dB/h).
    MarginFalling,
    /// With `--profile NAME`: a check of the profile fails.
    BelowProfile,
    /// The NIC's nearest GPU is on another NUMA node.
    HostNumaRemote,
    /// The port's MTU differs from `expected_mtu`, else from what most of the node's ports run.
    MtuMismatch,
    /// Another NIC of the same model (PCI ID) on the node runs another firmware version.
    FirmwareMismatch,
    /// The rx or tx descriptor ring under `min_ring_fraction` of the driver's maximum.
    RingsBelowMax,
    /// A pause counter climbs faster than `max_pause_frames_per_s` over the window.
    PauseStorm,
    /// Received frames dropped for want of host buffers faster than `max_rx_discards_per_s`.
    RxDiscards,
    /// More of the NIC's interrupts than `max_irqs_off_node` delivered to CPUs off its NUMA node.
    IrqsOffNumaNode,
    /// The NIC receives on fewer queues than `min_channel_fraction` of its NUMA node's CPUs while its driver allows more.
    ChannelsBelowNodeCpus,
    /// An InfiniBand port retrained without going down (`link_error_recovery` rose).
    LinkErrorRecovery,
    /// An InfiniBand port dropped received packets with errors, crossed its local link integrity threshold, or overran its input buffer.
    IbPortErrors,
    /// An InfiniBand counter stuck at its maximum: its increase a lower bound, no rate.
    CounterSaturated,
    /// After a link drop, a lane's BER at least `flap_ber_rise_ratio` times its BER before, significantly and holding.
    DegradedAfterFlap,
    /// The module's readings or alarm levels cannot be so (supply, temperature, levels out of order).
    DomImplausible,
    /// A module limit flag its own reading in the same read does not bear out.
    DomFlagUnconfirmed,
    /// A CMIS module in ModuleLowPwr, ModulePwrUp or ModulePwrDn, not ModuleReady (CMIS 5.2 Table 8-7): its transmitters are off.
    ModuleNotReady,
    /// A down link whose port supports, or is set to, no Ethernet rate its module runs.
    ModuleSpeedMismatch,
    /// With `--peer`: a link not up whose two ends' modules cannot work together (850 nm
    /// facing single-mode optics, or no Ethernet rate in common).
    PeerModuleMismatch,
    /// AER reported uncorrected PCIe errors on the NIC function, or a stream of corrected ones (an imported kernel log).
    PcieErrors,
}

impl ReasonCode {
    /// The wire spelling (JSON, CSV, metric label).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ReasonCode::PcieDegraded => "pcie_degraded",
            ReasonCode::UncorrectableErrors => "uncorrectable_errors",
            ReasonCode::LinkFlaps => "link_flaps",
            ReasonCode::FecHidingMarginalOptics => "fec_hiding_marginal_optics",
            ReasonCode::LowMargin => "low_margin",
            ReasonCode::DomAlarm => "dom_alarm",
            ReasonCode::DomWarning => "dom_warning",
            ReasonCode::ModuleFault => "module_fault",
            ReasonCode::NoFecData => "no_fec_data",
            ReasonCode::ModuleUnreadable => "module_unreadable",
            ReasonCode::BerOverFecLimit => "ber_over_fec_limit",
            ReasonCode::WeakTransmitter => "weak_transmitter",
            ReasonCode::InsufficientData => "insufficient_data",
            ReasonCode::FecTailNearLimit => "fec_tail_near_limit",
            ReasonCode::MarginFalling => "margin_falling",
            ReasonCode::BelowProfile => "below_profile",
            ReasonCode::HostNumaRemote => "host_numa_remote",
            ReasonCode::MtuMismatch => "mtu_mismatch",
            ReasonCode::FirmwareMismatch => "firmware_mismatch",
            ReasonCode::RingsBelowMax => "rings_below_max",
            ReasonCode::PauseStorm => "pause_storm",
            ReasonCode::RxDiscards => "rx_discards",
            ReasonCode::IrqsOffNumaNode => "irqs_off_numa_node",
            ReasonCode::ChannelsBelowNodeCpus => "channels_below_node_cpus",
            ReasonCode::LinkErrorRecovery => "link_error_recovery",
            ReasonCode::IbPortErrors => "ib_port_errors",
            ReasonCode::CounterSaturated => "counter_saturated",
            ReasonCode::DegradedAfterFlap => "degraded_after_flap",
            ReasonCode::DomImplausible => "dom_implausible",
            ReasonCode::DomFlagUnconfirmed => "dom_flag_unconfirmed",
            ReasonCode::ModuleNotReady => "module_not_ready",
            ReasonCode::ModuleSpeedMismatch => "module_speed_mismatch",
            ReasonCode::PeerModuleMismatch => "peer_module_mismatch",
            ReasonCode::PcieErrors => "pcie_errors",
        }
    }
}

/// The codes that move the verdict (above info), each once, in the reasons' order: what a
/// verdict line, a fleet row and a plugin status line name.
pub fn verdict_codes(reasons: &[Reason]) -> Vec<ReasonCode> {
    let mut codes = Vec::new();
    for r in reasons.iter().filter(|r| r.severity > Severity::Info) {
        if !codes.contains(&r.code) {
            codes.push(r.code);
        }
    }
    codes
}

/// Codes spelled as the wire spells them, `sep` between.
pub fn join_codes(codes: &[ReasonCode], sep: &str) -> String {
    codes.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(sep)
}

impl std::fmt::Display for ReasonCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Ord for ReasonCode {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for ReasonCode {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// One reason for a verdict: its code, its sentence, its severity, and the lane it is about.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    /// The contract code (JSON `code`, CSV, metric label, `--fail-on`).
    pub code: ReasonCode,
    /// What was found, in one sentence with its figures.
    pub message: String,
    pub(crate) severity: Severity,
    /// 1-based lane the reason is about, if any.
    pub lane: Option<u8>,
}

impl Reason {
    /// A reason of `code` at `severity`, about `lane` (1-based) when it names one.
    pub fn new(code: ReasonCode, severity: Severity, lane: Option<u8>, message: String) -> Self {
        Reason { code, message, severity, lane }
    }
}

/// Which code a module or lane flag raises, if any: a fault, loss of signal or loss of
/// lock is a module fault; a threshold crossing a DOM alarm or warning.
pub(crate) fn flag_code(flag: ModuleFlag) -> Option<ReasonCode> {
    match flag.kind() {
        FlagKind::Fault | FlagKind::Los | FlagKind::Lol => Some(ReasonCode::ModuleFault),
        FlagKind::Alarm => Some(ReasonCode::DomAlarm),
        FlagKind::Warning => Some(ReasonCode::DomWarning),
        FlagKind::Event => None,
    }
}

pub(crate) fn severity_of_flag_code(code: ReasonCode) -> Severity {
    if code == ReasonCode::DomWarning {
        Severity::Investigate
    } else {
        Severity::Reject
    }
}

/// The verdict of these reasons: the worst severity among them; accept when none counts.
pub fn verdict(reasons: &[Reason]) -> Verdict {
    match reasons.iter().map(|r| r.severity).max() {
        Some(Severity::Reject) => Verdict::Reject,
        Some(Severity::Investigate) => Verdict::Investigate,
        Some(Severity::Info) | None => Verdict::Accept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_map_to_codes() {
        let code = |name| ModuleFlag::from_name(name).and_then(flag_code);
        assert_eq!(code("rx_los"), Some(ReasonCode::ModuleFault));
        assert_eq!(code("tx_lol"), Some(ReasonCode::ModuleFault));
        assert_eq!(code("tx_fault"), Some(ReasonCode::ModuleFault));
        assert_eq!(code("tx_adaptive_eq_fault"), Some(ReasonCode::ModuleFault));
        assert_eq!(code("datapath_firmware_fault"), Some(ReasonCode::ModuleFault));
        assert_eq!(code("rx_power_low_alarm"), Some(ReasonCode::DomAlarm));
        assert_eq!(code("aux2_high_alarm"), Some(ReasonCode::DomAlarm));
        assert_eq!(code("temperature_high_warning"), Some(ReasonCode::DomWarning));
        assert_eq!(code("module_state_changed"), None);
    }

    #[test]
    fn worst_reason_wins() {
        let r = |s| Reason::new(ReasonCode::LowMargin, s, None, String::new());
        assert_eq!(verdict(&[]), Verdict::Accept);
        assert_eq!(verdict(&[r(Severity::Info)]), Verdict::Accept);
        assert_eq!(verdict(&[r(Severity::Info), r(Severity::Investigate)]), Verdict::Investigate);
        assert_eq!(verdict(&[r(Severity::Reject), r(Severity::Investigate)]), Verdict::Reject);
    }
}
