//! Every segment of a run analysed on its own (issue 9 item 5): after a module swap or a
//! counter reset the earlier part is still judged and reported, while the interface's
//! verdict stays the latest segment's. The JSON keys of [`SegmentAnalysis`] are a contract.

use super::pcie::PcieGroup;
use super::{analyze_one, Config, InterfaceWindow, LaneAnalysis, Reason, Verdict};
use serde::Serialize;

/// One segment to analyse: why it started ("start", "counter_reset", "module_changed"),
/// its first and last sample times, and its window.
pub struct SegmentInput<'a> {
    pub reason: &'static str,
    pub from_t: f64,
    pub to_t: f64,
    pub window: &'a InterfaceWindow,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SegmentAnalysis {
    pub from_t: f64,
    pub to_t: f64,
    pub module_sn: Option<String>,
    pub reason: &'static str,
    pub verdict: Verdict,
    pub reasons: Vec<Reason>,
    pub lanes: Vec<LaneAnalysis>,
}

/// Analyses each segment as a window of its own, in the interface's PCIe `group`.
pub fn analyze_segments(segs: &[SegmentInput], group: Option<&PcieGroup>, cfg: &Config) -> Vec<SegmentAnalysis> {
    segs.iter()
        .map(|s| {
            let a = analyze_one(s.window, cfg, None, group.cloned());
            SegmentAnalysis {
                from_t: s.from_t,
                to_t: s.to_t,
                module_sn: s.window.module.as_ref().and_then(|m| m.vendor_sn.clone()),
                reason: s.reason,
                verdict: a.verdict,
                reasons: a.reasons,
                lanes: a.lanes,
            }
        })
        .collect()
}

/// "lane 4 marginal"-style summary of a segment for the text report: its worst reason,
/// or "no fault found".
pub fn summary(s: &SegmentAnalysis) -> String {
    match s.reasons.first() {
        Some(r) => match r.lane {
            Some(l) => format!("lane {l} {}", r.code.replace('_', " ")),
            None => r.code.replace('_', " "),
        },
        None => "no fault found".into(),
    }
}
