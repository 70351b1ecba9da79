//! Every segment of a run analysed on its own: after a module swap or a
//! counter reset the earlier part is still judged and reported, while the interface's
//! verdict stays the latest segment's. The JSON keys of [`SegmentAnalysis`] are a contract.

use super::breakout::Mapping;
use super::pcie::PcieGroup;
use super::verdict::join_codes;
use super::{analyze_one, Config, InterfaceWindow, LaneAnalysis, Reason, ReasonCode, Verdict};
use serde::Serialize;

/// Why a segment started, as the JSON `segments[].reason` names it (snake_case is the
/// contract).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SegmentReason {
    /// The first segment of the run.
    Start,
    /// A counter went backwards (a reset or clear) or time did.
    CounterReset,
    /// A different module than the previous interface record's.
    ModuleChanged,
}

/// One segment to analyse: why it started, its first and last sample times, and its window.
pub struct SegmentInput {
    /// Why the segment started.
    pub reason: SegmentReason,
    /// The break that started it, for the text ("the module swap", "time going
    /// backwards", ...); `None` for the first segment.
    pub break_noun: Option<&'static str>,
    /// Time of its first sample, seconds since the capture started.
    pub from_t: f64,
    /// Time of its last sample, seconds since the capture started.
    pub to_t: f64,
    /// The window of the segment's samples.
    pub window: InterfaceWindow,
}

/// One segment of a run analysed on its own (JSON `segments[]`): its span, module, verdict and reasons.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SegmentAnalysis {
    /// Time of the segment's first sample, seconds since the capture started.
    pub from_t: f64,
    /// Time of the segment's last sample, seconds since the capture started.
    pub to_t: f64,
    pub(crate) module_sn: Option<String>,
    pub(crate) reason: SegmentReason,
    /// Not in the JSON (`reason` is the contract there).
    #[serde(skip)]
    pub(crate) break_noun: Option<&'static str>,
    pub(crate) verdict: Verdict,
    pub(crate) reasons: Vec<Reason>,
    pub(crate) lanes: Vec<LaneAnalysis>,
}

/// Analyses each segment as a window of its own, in the interface's PCIe `group` and
/// with its breakout lane `map`.
pub(crate) fn analyze_segments(segs: &[SegmentInput], group: Option<&PcieGroup>, map: &Mapping, cfg: &Config) -> Vec<SegmentAnalysis> {
    segs.iter()
        .map(|s| {
            let a = analyze_one(&s.window, cfg, None, group.cloned(), map);
            SegmentAnalysis {
                from_t: s.from_t,
                to_t: s.to_t,
                module_sn: s.window.module.as_ref().and_then(|m| m.vendor_sn.clone()),
                reason: s.reason,
                break_noun: s.break_noun,
                verdict: a.verdict,
                reasons: a.reasons,
                lanes: a.lanes,
            }
        })
        .collect()
}

/// One line per earlier segment, e.g. "before the module swap at t=30.002 s (module SN
/// A1): investigate: lane 4 fec_hiding_marginal_optics, low_margin": what ended it
/// (the next segment's reason and start), its module, verdict and reasons per lane.
pub(crate) fn earlier_summaries(segs: &[SegmentAnalysis]) -> Vec<String> {
    segs.windows(2)
        .map(|p| {
            let (s, next) = (&p[0], &p[1]);
            let what = next.break_noun.unwrap_or("the segment break");
            let sn = s.module_sn.as_deref().map(|sn| format!(" (module SN {sn})")).unwrap_or_default();
            let mut parts: Vec<(Option<u8>, Vec<ReasonCode>)> = Vec::new();
            for r in &s.reasons {
                match parts.iter_mut().find(|(l, _)| *l == r.lane) {
                    Some((_, codes)) if !codes.contains(&r.code) => codes.push(r.code),
                    Some(_) => {}
                    None => parts.push((r.lane, vec![r.code])),
                }
            }
            let found = if parts.is_empty() {
                "no fault found".to_string()
            } else {
                let one = |(l, codes): &(Option<u8>, Vec<ReasonCode>)| match l {
                    Some(l) => format!("lane {l} {}", join_codes(codes, ", ")),
                    None => join_codes(codes, ", "),
                };
                parts.iter().map(one).collect::<Vec<_>>().join("; ")
            };
            format!("before {what} at t={} s{sn}: {}: {found}", next.from_t, s.verdict.as_str())
        })
        .collect()
}
