//! Why a link is down, as the kernel says it: `enum ethtool_link_ext_state` and its
//! substates (include/uapi/linux/ethtool.h), with the names this tool writes and the ones
//! `ethtool IFACE` prints (ethtool `netlink/settings.c`: `names_link_ext_state` and the
//! `names_*_link_ext_substate` tables), so one table carries the vocabulary both ways.

use serde::{Serialize, Serializer};
use std::fmt;

/// One `ETHTOOL_LINK_EXT_STATE_*` value. Captures keep the raw number (`link.ext_state`),
/// so a value a newer kernel adds still reads; this names the ones the uapi defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LinkExtState {
    /// `ETHTOOL_LINK_EXT_STATE_AUTONEG`.
    Autoneg,
    /// `ETHTOOL_LINK_EXT_STATE_LINK_TRAINING_FAILURE`.
    LinkTrainingFailure,
    /// `ETHTOOL_LINK_EXT_STATE_LINK_LOGICAL_MISMATCH`.
    LinkLogicalMismatch,
    /// `ETHTOOL_LINK_EXT_STATE_BAD_SIGNAL_INTEGRITY`.
    BadSignalIntegrity,
    /// `ETHTOOL_LINK_EXT_STATE_NO_CABLE`.
    NoCable,
    /// `ETHTOOL_LINK_EXT_STATE_CABLE_ISSUE`.
    CableIssue,
    /// `ETHTOOL_LINK_EXT_STATE_EEPROM_ISSUE`.
    EepromIssue,
    /// `ETHTOOL_LINK_EXT_STATE_CALIBRATION_FAILURE`.
    CalibrationFailure,
    /// `ETHTOOL_LINK_EXT_STATE_POWER_BUDGET_EXCEEDED`.
    PowerBudgetExceeded,
    /// `ETHTOOL_LINK_EXT_STATE_OVERHEAT`.
    Overheat,
    /// `ETHTOOL_LINK_EXT_STATE_MODULE`.
    Module,
}

/// Each state in uapi order (its value is its index): the name this tool writes, the name
/// `ethtool IFACE` prints, and the printed names of its substates from value 1.
const STATES: [(LinkExtState, &str, &str, &[&str]); 11] = [
    (
        LinkExtState::Autoneg,
        "autoneg",
        "Autoneg",
        &[
            "No partner detected",
            "Ack not received",
            "Next page exchange failed",
            "No partner detected during force mode",
            "FEC mismatch during override",
            "No HCD",
        ],
    ),
    (
        LinkExtState::LinkTrainingFailure,
        "link training failure",
        "Link training failure",
        &[
            "KR frame lock not acquired",
            "KR link inhibit timeout",
            "KR Link partner did not set receiver ready",
            "Remote side is not ready yet",
        ],
    ),
    (
        LinkExtState::LinkLogicalMismatch,
        "link logical mismatch",
        "Logical mismatch",
        &[
            "PCS did not acquire block lock",
            "PCS did not acquire AM lock",
            "PCS did not get align_status",
            "FC FEC is not locked",
            "RS FEC is not locked",
        ],
    ),
    (
        LinkExtState::BadSignalIntegrity,
        "bad signal integrity",
        "Bad signal integrity",
        &["Large number of physical errors", "Unsupported rate", "Serdes reference clock lost", "Serdes ALOS"],
    ),
    (LinkExtState::NoCable, "no cable", "No cable", &[]),
    (LinkExtState::CableIssue, "cable issue", "Cable issue", &["Unsupported cable", "Cable test failure"]),
    (LinkExtState::EepromIssue, "EEPROM issue", "EEPROM issue", &[]),
    (LinkExtState::CalibrationFailure, "calibration failure", "Calibration failure", &[]),
    (LinkExtState::PowerBudgetExceeded, "power budget exceeded", "Power budget exceeded", &[]),
    (LinkExtState::Overheat, "overheat", "Overheat", &[]),
    (LinkExtState::Module, "module", "Module", &["CMIS module is not in ModuleReady state"]),
];

impl LinkExtState {
    /// The state of a raw `ext_state` value; `None` for one the uapi does not define.
    pub(crate) fn from_raw(value: u8) -> Option<Self> {
        STATES.get(usize::from(value)).map(|s| s.0)
    }

    fn row(self) -> &'static (LinkExtState, &'static str, &'static str, &'static [&'static str]) {
        &STATES[self as usize]
    }

    /// The name reports and JSON give the state (`cable issue`).
    pub(crate) fn name(self) -> &'static str {
        self.row().1
    }

    /// The substate's name as ethtool prints it (`Unsupported cable`); `None` for a value
    /// it has no name for.
    pub(crate) fn substate_name(self, substate: u8) -> Option<&'static str> {
        self.row().3.get(usize::from(substate).checked_sub(1)?).copied()
    }
}

/// A raw `ext_state` value as reports and the JSON write it: the uapi state's name (`cable
/// issue`), or `unknown (N)` for a value a newer kernel defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ExtStateValue(pub(crate) u8);

impl fmt::Display for ExtStateValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match LinkExtState::from_raw(self.0) {
            Some(s) => f.write_str(s.name()),
            None => write!(f, "unknown ({})", self.0),
        }
    }
}

impl Serialize for ExtStateValue {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The state and substate of ethtool's `Link detected: no (Cable issue, Unsupported cable)`
/// parenthesis (`Cable issue, Unsupported cable`) as raw values: by name, or the number
/// ethtool prints for a value it has no name for.
pub(crate) fn parse_ext_state(text: &str) -> Option<(u8, Option<u8>)> {
    let (state, substate) = match text.split_once(',') {
        Some((a, b)) => (a.trim(), Some(b.trim())),
        None => (text.trim(), None),
    };
    let value = STATES.iter().position(|s| s.2 == state).and_then(|i| u8::try_from(i).ok()).or_else(|| state.parse().ok())?;
    let subs = STATES.get(usize::from(value)).map_or(&[][..], |s| s.3);
    let sub = substate.and_then(|b| subs.iter().position(|n| *n == b).and_then(|i| u8::try_from(i + 1).ok()).or_else(|| b.parse().ok()));
    Some((value, sub))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_state_sits_at_its_uapi_value() {
        // include/uapi/linux/ethtool.h: AUTONEG = 0 ... NO_CABLE = 4, CABLE_ISSUE = 5,
        // MODULE = 10.
        for (i, s) in STATES.iter().enumerate() {
            assert_eq!(s.0 as usize, i);
        }
        assert_eq!(LinkExtState::from_raw(4), Some(LinkExtState::NoCable));
        assert_eq!(LinkExtState::from_raw(10), Some(LinkExtState::Module));
        assert_eq!(LinkExtState::from_raw(11), None);
        assert_eq!(ExtStateValue(11).to_string(), "unknown (11)");
        assert_eq!(serde_json::to_string(&ExtStateValue(5)).unwrap(), "\"cable issue\"");
    }

    #[test]
    fn printed_names_read_back_to_values() {
        assert_eq!(parse_ext_state("Cable issue, Unsupported cable"), Some((5, Some(1))));
        assert_eq!(parse_ext_state("Logical mismatch, RS FEC is not locked"), Some((2, Some(5))));
        assert_eq!(parse_ext_state("No cable"), Some((4, None)));
        // A value ethtool has no name for is printed as its number.
        assert_eq!(parse_ext_state("12, 3"), Some((12, Some(3))));
        assert_eq!(parse_ext_state("Nonsense"), None);
        assert_eq!(LinkExtState::CableIssue.substate_name(1), Some("Unsupported cable"));
        assert_eq!(LinkExtState::NoCable.substate_name(1), None);
        assert_eq!(LinkExtState::Module.substate_name(0), None);
    }
}
