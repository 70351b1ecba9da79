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
//!   `margin_falling` (a lane's margin trend falls; see `trend_lanes`).
//! - info (does not change the verdict): `no_fec_data` on a link running without FEC, or
//!   where only FEC block counts exist (frame loss is still watched; BER bounded below).

use serde::Serialize;

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

pub const PCIE_DEGRADED: &str = "pcie_degraded";
pub const UNCORRECTABLE_ERRORS: &str = "uncorrectable_errors";
pub const LINK_FLAPS: &str = "link_flaps";
pub const FEC_HIDING: &str = "fec_hiding_marginal_optics";
pub const LOW_MARGIN: &str = "low_margin";
pub const DOM_ALARM: &str = "dom_alarm";
pub const DOM_WARNING: &str = "dom_warning";
pub const MODULE_FAULT: &str = "module_fault";
pub const NO_FEC_DATA: &str = "no_fec_data";
pub const MODULE_UNREADABLE: &str = "module_unreadable";
pub const BER_OVER_FEC_LIMIT: &str = "ber_over_fec_limit";
pub const WEAK_TRANSMITTER: &str = "weak_transmitter";
pub const INSUFFICIENT_DATA: &str = "insufficient_data";
pub const FEC_TAIL_NEAR_LIMIT: &str = "fec_tail_near_limit";
pub const MARGIN_FALLING: &str = "margin_falling";

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    pub code: &'static str,
    pub message: String,
    pub severity: Severity,
    /// 1-based lane the reason is about, if any.
    pub lane: Option<u8>,
}

impl Reason {
    pub fn new(code: &'static str, severity: Severity, lane: Option<u8>, message: String) -> Self {
        Reason { code, message, severity, lane }
    }
}

/// Module flag names (report.rs vocabulary) that mean a fault rather than a limit crossing.
const FAULT_FLAGS: &[&str] = &["rx_los", "tx_los", "rx_lol", "tx_lol", "tx_fault", "tx_adaptive_eq_fault"];

/// Which code a module or lane flag raises, if any.
pub fn flag_code(flag: &str) -> Option<&'static str> {
    if FAULT_FLAGS.contains(&flag) || flag.contains("fault") {
        Some(MODULE_FAULT)
    } else if flag.ends_with("_alarm") {
        Some(DOM_ALARM)
    } else if flag.ends_with("_warning") {
        Some(DOM_WARNING)
    } else {
        None
    }
}

pub fn severity_of_flag_code(code: &str) -> Severity {
    if code == DOM_WARNING {
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
        assert_eq!(flag_code("rx_los"), Some(MODULE_FAULT));
        assert_eq!(flag_code("tx_fault"), Some(MODULE_FAULT));
        assert_eq!(flag_code("module_fault"), Some(MODULE_FAULT));
        assert_eq!(flag_code("rx_power_low_alarm"), Some(DOM_ALARM));
        assert_eq!(flag_code("temperature_high_warning"), Some(DOM_WARNING));
        assert_eq!(flag_code("data_ready"), None);
    }

    #[test]
    fn worst_reason_wins() {
        let r = |s| Reason::new(LOW_MARGIN, s, None, String::new());
        assert_eq!(verdict(&[]), Verdict::Accept);
        assert_eq!(verdict(&[r(Severity::Info)]), Verdict::Accept);
        assert_eq!(verdict(&[r(Severity::Info), r(Severity::Investigate)]), Verdict::Investigate);
        assert_eq!(verdict(&[r(Severity::Reject), r(Severity::Investigate)]), Verdict::Reject);
    }
}
