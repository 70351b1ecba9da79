//! Before/after comparison of one interface (e.g. around a fiber clean or module swap):
//! a change counts only when the BER confidence intervals do not overlap.

use super::verdict::Verdict;
use super::{InterfaceAnalysis, LaneAnalysis};
use serde::Serialize;

/// How a lane's BER moved from BEFORE to AFTER: JSON `lanes[].change`, whose spellings
/// (`no_significant_change` among them) are the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[allow(clippy::enum_variant_names)]
pub(crate) enum Change {
    Improved,
    Worse,
    NoSignificantChange,
    /// No BER on one side: nothing to judge by.
    Unknown,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct LaneChange {
    pub(crate) lane: u8,
    pub(crate) rx_power_dbm_before: Option<f64>,
    pub(crate) rx_power_dbm_after: Option<f64>,
    pub(crate) rx_power_delta_db: Option<f64>,
    pub(crate) pre_fec_ber_before: Option<f64>,
    pub(crate) pre_fec_ber_after: Option<f64>,
    pub(crate) margin_db_before: Option<f64>,
    pub(crate) margin_db_after: Option<f64>,
    pub(crate) margin_delta_db: Option<f64>,
    pub(crate) change: Change,
    pub(crate) summary: String,
}

/// One interface before and after (a swap, a clean, a reseat): its verdicts, module serials and lanes side by side (`compare`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    /// The AFTER interface's name.
    pub(crate) interface: String,
    /// The BEFORE interface's name (differs when paired with `--pair`).
    pub(crate) interface_before: String,
    pub(crate) module_sn_before: Option<String>,
    pub(crate) module_sn_after: Option<String>,
    /// The module serial number changed: expected after a swap, stated plainly.
    pub(crate) module_changed: bool,
    pub(crate) verdict_before: Verdict,
    /// The verdict of the AFTER capture.
    pub verdict_after: Verdict,
    /// Sentences about the interface as a whole ("module SN A -> SN B").
    pub(crate) notes: Vec<String>,
    pub(crate) lanes: Vec<LaneChange>,
}

impl Comparison {
    /// True when any lane is significantly worse after.
    pub fn any_worse(&self) -> bool {
        self.lanes.iter().any(|l| l.change == Change::Worse)
    }
}

/// "1.2e-6"; a zero-error lane shows its upper bound: "<9.4e-13".
fn fmt_ber(l: &LaneAnalysis) -> String {
    match (l.corrected_bits, l.pre_fec_ber, l.pre_fec_ber_upper) {
        (Some(0), _, Some(u)) => format!("<{u:.1e}"),
        (_, Some(b), _) => format!("{b:.1e}"),
        _ => "n/a".into(),
    }
}

fn diff(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(b? - a?).filter(|d| d.is_finite())
}

/// Smallest BER ratio (either way) that counts as a change, on top of the intervals.
const MIN_BER_RATIO: f64 = 2.0;

fn lane_change(b: &LaneAnalysis, a: &LaneAnalysis) -> LaneChange {
    let bounds = |l: &LaneAnalysis| Some((l.pre_fec_ber?, l.pre_fec_ber_lower?, l.pre_fec_ber_upper?));
    // Material as well as significant: with millions of corrected bits the Poisson
    // intervals are so tight that a 1% drift would "change", yet real links wander by
    // tens of percent with temperature. A factor of MIN_BER_RATIO is ~0.1 dB of PAM4 margin.
    let material = |x: f64, y: f64| x > 0.0 && y > 0.0 && (x / y).max(y / x) >= MIN_BER_RATIO;
    let change = match (bounds(b), bounds(a)) {
        (Some((bb, bl, bu)), Some((ab, al, au))) => {
            if au < bl && (material(bb, ab) || ab == 0.0) {
                Change::Improved
            } else if al > bu && (material(bb, ab) || bb == 0.0) {
                Change::Worse
            } else {
                Change::NoSignificantChange
            }
        }
        _ => Change::Unknown,
    };
    let margin_delta_db = diff(b.margin_db, a.margin_db);
    let word = match change {
        Change::Improved => "improved",
        Change::Worse => "worse",
        Change::NoSignificantChange => "no significant change",
        Change::Unknown => "no BER to compare",
    };
    // Before and after, then the change; a zero-error lane's margin is a lower bound
    // (">3.1"), and between two lower bounds the difference says only how long each
    // window was, so no change is given for it.
    let shown = |l: &LaneAnalysis| l.margin_db.map(|m| format!("{}{m:.1}", if l.margin_is_lower_bound { ">" } else { "" }));
    let margin = match (shown(b), shown(a)) {
        (Some(x), Some(y)) if b.margin_is_lower_bound && a.margin_is_lower_bound => {
            format!("no error counted before or after (margin {x} -> {y} dB: lower bounds of the two windows), ")
        }
        (Some(x), Some(y)) => {
            let d = margin_delta_db.map(|d| format!(" ({d:+.1})")).unwrap_or_default();
            format!("margin {x} -> {y} dB{d}, ")
        }
        _ => String::new(),
    };
    let rx = diff(b.rx_power_dbm, a.rx_power_dbm);
    let rx_text = rx.map(|d| format!(", rx {d:+.1} dB")).unwrap_or_default();
    LaneChange {
        lane: b.lane,
        rx_power_dbm_before: b.rx_power_dbm,
        rx_power_dbm_after: a.rx_power_dbm,
        rx_power_delta_db: rx,
        pre_fec_ber_before: b.pre_fec_ber,
        pre_fec_ber_after: a.pre_fec_ber,
        margin_db_before: b.margin_db,
        margin_db_after: a.margin_db,
        margin_delta_db,
        change,
        summary: format!("lane {}: {margin}BER {} -> {}{rx_text}: {word}", b.lane, fmt_ber(b), fmt_ber(a)),
    }
}

/// Lanes present in both analyses, in lane order.
pub fn compare(before: &InterfaceAnalysis, after: &InterfaceAnalysis) -> Comparison {
    let mut lanes: Vec<LaneChange> =
        before.lanes.iter().filter_map(|b| after.lanes.iter().find(|a| a.lane == b.lane).map(|a| lane_change(b, a))).collect();
    lanes.sort_by_key(|l| l.lane);
    let sn = |a: &InterfaceAnalysis| a.module.as_ref().and_then(|m| m.vendor_sn.clone());
    let (sn_before, sn_after) = (sn(before), sn(after));
    let module_changed = matches!((&sn_before, &sn_after), (Some(b), Some(a)) if a != b);
    let mut notes = Vec::new();
    if module_changed {
        notes.push(format!(
            "module swapped: module SN {} -> SN {} (the lanes compare the new module with the old)",
            sn_before.as_deref().unwrap_or("?"),
            sn_after.as_deref().unwrap_or("?")
        ));
    }
    if before.verdict != after.verdict {
        notes.push(format!("verdict {} -> {}", before.verdict.as_str(), after.verdict.as_str()));
    }
    // An InfiniBand port read from sysfs has no lanes: its symbol errors (what FEC left, from
    // HDR on) and its link downs over each window say what the change did.
    if let (Some(b), Some(a)) = (&before.infiniband, &after.infiniband) {
        if let (Some(rb), Some(ra)) = (b.symbol_errors_per_s, a.symbol_errors_per_s) {
            notes.push(format!("symbol errors (ib:symbol_error) {rb:.3}/s -> {ra:.3}/s"));
        }
        if let (Some(db), Some(da)) = (before.link.link_down_events, after.link.link_down_events) {
            notes.push(format!("link-down events {db} -> {da}"));
        }
    }
    Comparison {
        interface: after.interface.clone(),
        interface_before: before.interface.clone(),
        module_sn_before: sn_before,
        module_sn_after: sn_after,
        module_changed,
        verdict_before: before.verdict,
        verdict_after: after.verdict,
        notes,
        lanes,
    }
}
