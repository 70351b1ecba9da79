//! Reasons and the verdict per interface.
//!
//! Severity by code (the verdict is the worst reason's; no reason -> accept):
//! - reject: `uncorrectable_errors` (frames were lost), `link_flaps` (link went down or
//!   is down), `module_fault` (LOS/LOL/Tx fault), `dom_alarm` (past the module's own
//!   alarm limit), `ber_over_fec_limit` (a lane's or the port's BER past the FEC limit), `pcie_degraded` when the card trained below its own width/speed
//!   (a seating or slot fault that caps the port).
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
//!   `module_not_ready` (a CMIS module short of ModuleReady: its transmitters are off).
//! - info (does not change the verdict): `no_fec_data` on a link running without FEC, or
//!   where only FEC block counts exist (frame loss is still watched; BER bounded below).

use crate::module::flag::{FlagKind, ModuleFlag};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Accept,
    Investigate,
    Reject,
}

impl Verdict {
    /// The JSON spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Accept => "accept",
            Verdict::Investigate => "investigate",
            Verdict::Reject => "reject",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Investigate,
    Reject,
}

/// A reason's code: the contract vocabulary of JSON `code`, CSV, the `reason` metric label and
/// `--fail-on`. Spelled in snake_case on the wire; ordered by that spelling so every
/// listing sorted by code reads as it always has.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReasonCode {
    PcieDegraded,
    UncorrectableErrors,
    LinkFlaps,
    FecHidingMarginalOptics,
    LowMargin,
    DomAlarm,
    DomWarning,
    ModuleFault,
    NoFecData,
    ModuleUnreadable,
    BerOverFecLimit,
    WeakTransmitter,
    InsufficientData,
    FecTailNearLimit,
    MarginFalling,
    BelowProfile,
    HostNumaRemote,
    MtuMismatch,
    FirmwareMismatch,
    RingsBelowMax,
    PauseStorm,
    RxDiscards,
    IrqsOffNumaNode,
    ChannelsBelowNodeCpus,
    LinkErrorRecovery,
    IbPortErrors,
    CounterSaturated,
    DegradedAfterFlap,
    DomImplausible,
    DomFlagUnconfirmed,
    ModuleNotReady,
}

impl ReasonCode {
    /// The wire spelling (JSON, CSV, metric label).
    pub fn as_str(self) -> &'static str {
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

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    pub code: ReasonCode,
    pub message: String,
    pub severity: Severity,
    /// 1-based lane the reason is about, if any.
    pub lane: Option<u8>,
}

impl Reason {
    pub fn new(code: ReasonCode, severity: Severity, lane: Option<u8>, message: String) -> Self {
        Reason { code, message, severity, lane }
    }
}

/// Which code a module or lane flag raises, if any: a fault, loss of signal or loss of
/// lock is a module fault; a threshold crossing a DOM alarm or warning.
pub fn flag_code(flag: ModuleFlag) -> Option<ReasonCode> {
    match flag.kind() {
        FlagKind::Fault | FlagKind::Los | FlagKind::Lol => Some(ReasonCode::ModuleFault),
        FlagKind::Alarm => Some(ReasonCode::DomAlarm),
        FlagKind::Warning => Some(ReasonCode::DomWarning),
        FlagKind::Event => None,
    }
}

pub fn severity_of_flag_code(code: ReasonCode) -> Severity {
    if code == ReasonCode::DomWarning {
        Severity::Investigate
    } else {
        Severity::Reject
    }
}

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
