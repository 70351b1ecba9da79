//! Frame loss the way IEEE 802.3 counts it: from the RS-FEC codeword error ratio (CER)
//! to the frame loss ratio (FLR), with the codeword interleave of the PCS in use, judged
//! against the two budgets the PMD clauses state.
//!
//! - An uncorrectable codeword makes the decoder mark what it carries as errored
//!   (IEEE 802.3 91.5.3.3; the Clause 119 decoder likewise), so every frame that touches it is lost.
//! - A codeword carries floor(10k / 257) transcoded 257-bit blocks of 256 data bits
//!   (RS(544,514), RS(528,514): 20 blocks, 5120 bits = 640 octets). A frame on the wire is
//!   `frame_bytes` plus 8 octets of preamble/SFD and the 12-octet minimum interpacket gap;
//!   MFC, the MAC frames per codeword, is codeword data bits / frame bits on the wire
//!   (64-octet frames: 5120 / 672 = 7.619).
//! - With X codewords interleaved symbol by symbol, one errored codeword's symbols are spread
//!   over the data of X codewords, X·MFC frames, and the frames overlapping a span of L
//!   frames number L + 1 on average; per codeword there are MFC frames, so
//!   FLR = CER · (1 + X·MFC) / MFC (the IEEE 802.3df logic ad hoc's relation, as SONiC's
//!   `port_flr` applies it with MFC = 8: 1.125 / 2.125 / 4.125 for X = 1 / 2 / 4).
//! - Budgets (RS(544,514) PMDs, IEEE 802.3 138.1.1 as amended by 802.3cm, likewise 124.1.1
//!   and 140.1.1): a BER of 2.4e-4 at the PMD "results in a frame loss ratio of less than
//!   1.7e-12 for 64-octet frames with minimum interpacket gap"; "for a complete Physical
//!   Layer, the frame loss ratio may be degraded to 6.2e-11" by the electrical interfaces.
//!   Host FEC counters see the whole PHY, so `fec_max_predicted_flr` defaults to the PHY's.

use super::codeword::{
    flr_per_codeword_error_ratio, interleave, mac_frames_per_codeword, BUDGET_SOURCE, MODULE_FLR_BUDGET, PHY_FLR_BUDGET,
};
use super::fec::FecKind;
use super::histogram::FecHistogram;
use crate::counters::CounterFigure;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FlrBudget {
    pub(crate) name: FlrBudgetName,
    pub(crate) flr: f64,
    pub(crate) source: &'static str,
    /// Observed FLR within the budget; `None` when not observed.
    pub(crate) observed_within: Option<bool>,
    /// Predicted FLR (histogram tail) within the budget; `None` when not predicted.
    pub(crate) predicted_within: Option<bool>,
}

/// Which FLR budget (IEEE 802.3 138.1.1 and the PMD clauses alike), written as JSON and
/// the `optics_fec_flr_budget{budget}` label give it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FlrBudgetName {
    /// The optics' allocation of the budget.
    Module,
    /// The whole Physical Layer's.
    Phy,
}

impl FlrBudgetName {
    /// Its name (`module`, `phy`).
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            FlrBudgetName::Module => "module",
            FlrBudgetName::Phy => "phy",
        }
    }
}

/// Where the count of all codewords in a window comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CodewordsSource {
    /// The histogram's own bins with bin 0, plus the uncorrectable ones.
    Histogram,
    /// The lane rate over the window.
    LaneRate,
}

/// JSON `frame_loss` of an interface (keys are a contract).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct FrameLoss {
    pub(crate) fec: FecKind,
    /// X: codewords interleaved symbol by symbol; `None` when the port's PCS is not known.
    pub(crate) interleave_codewords: Option<u32>,
    pub(crate) interleave_source: Option<&'static str>,
    pub(crate) frame_bytes: u32,
    /// MFC: MAC frames of `frame_bytes` per codeword.
    pub(crate) mac_frames_per_codeword: Option<f64>,
    /// (1 + X·MFC) / MFC.
    pub(crate) flr_per_codeword_error_ratio: Option<f64>,
    /// All codewords in the window, and where that figure comes from.
    pub(crate) codewords: Option<f64>,
    pub(crate) codewords_source: Option<CodewordsSource>,
    pub(crate) uncorrectable_codewords: Option<u64>,
    /// Observed: uncorrectable / all codewords, and the FLR it means.
    pub(crate) codeword_error_ratio: Option<f64>,
    pub(crate) flr: Option<f64>,
    /// From the histogram's tail: predicted uncorrectable / all codewords, and its FLR.
    pub(crate) predicted_codeword_error_ratio: Option<f64>,
    pub(crate) predicted_flr: Option<f64>,
    /// SONiC `port_flr.lua`'s figure, for cross-checking against switch output: the
    /// histogram's straight line summed over t+1..=t+5, over all codewords, times X + 1/8
    /// (its MFC = 8). Its line is this one when bin 0 is the peak and bins are single symbols.
    pub(crate) sonic_predicted_flr: Option<f64>,
    /// The module's and the PHY's budgets (RS(544,514) PMDs); empty for other FECs.
    pub(crate) budgets: Vec<FlrBudget>,
}

/// What the window counted that frame loss needs.
pub(crate) struct FrameLossInput<'a> {
    pub(crate) fec: FecKind,
    pub(crate) speed_mbps: Option<u32>,
    pub(crate) lanes: Option<u32>,
    pub(crate) frame_bytes: u32,
    pub(crate) duration_s: f64,
    /// A window (two samples or more): counts are over it.
    pub(crate) windowed: bool,
    pub(crate) uncorrectable_blocks: Option<u64>,
    /// Line codewords per second from the lane rate.
    pub(crate) line_codewords_per_s: Option<f64>,
    pub(crate) histogram: Option<&'a FecHistogram>,
}

/// The window's frame loss, as the verdict's JSON and the CSV rows give it: its
/// uncorrectable blocks (`link`) and its histogram's prediction (`histogram`).
pub(super) fn of_window(cx: &super::Context, link: &super::LinkAnalysis, histogram: Option<&FecHistogram>) -> Option<FrameLoss> {
    let rate = cx.rate.as_ref();
    frame_loss(&FrameLossInput {
        fec: cx.fec,
        speed_mbps: rate.map(|r| r.speed_mbps),
        lanes: rate.map(|r| r.lanes),
        frame_bytes: cx.cfg.fec_flr_frame_bytes,
        // Over the uncorrectable count's own span (the window's unless it was read from partway).
        duration_s: cx.w.seconds_of(CounterFigure::UncorrectableBlocks),
        windowed: cx.w.samples >= 2 && cx.w.seconds_of(CounterFigure::UncorrectableBlocks) > 0.0,
        uncorrectable_blocks: link.uncorrectable_blocks,
        line_codewords_per_s: rate.and_then(|r| super::codeword::line_codewords_per_s(cx.fec, r.lane_rate_gbps, r.lanes)),
        histogram,
    })
}

impl FrameLoss {
    /// The budgets the observed FLR (`predicted`: the predicted one) is over, as CSV names
    /// them: `none`, `module` or `module;phy` (the module's budget is the smaller); `None`
    /// when the figure or the budgets are unknown.
    pub(crate) fn budgets_exceeded(&self, predicted: bool) -> Option<&'static str> {
        let flr = if predicted { self.predicted_flr } else { self.flr }?;
        let over = |name: FlrBudgetName| self.budgets.iter().any(|b| b.name == name && flr > b.flr);
        if self.budgets.is_empty() {
            return None;
        }
        Some(match (over(FlrBudgetName::Module), over(FlrBudgetName::Phy)) {
            (_, true) => "module;phy",
            (true, false) => "module",
            (false, false) => "none",
        })
    }
}

/// `None` for a FEC without codewords (off, BASE-R, unknown).
pub(crate) fn frame_loss(input: &FrameLossInput) -> Option<FrameLoss> {
    let fec = input.fec;
    let mfc = mac_frames_per_codeword(fec, input.frame_bytes)?;
    let x = input.speed_mbps.and_then(|s| interleave(fec, s, input.lanes.unwrap_or(0)));
    let factor = x.map(|(x, _)| flr_per_codeword_error_ratio(x, mfc));
    let uncorrectable = input.uncorrectable_blocks.filter(|_| input.windowed);
    // The histogram counts bin 0 and every corrected codeword; the uncorrectable ones are
    // counted apart unless a bin past t holds them.
    let t = super::codeword::correction_limit_symbols(fec);
    let from_histogram = input.histogram.filter(|h| h.bins.iter().any(|b| b.low == 0)).map(|h| {
        let counted: f64 = h.bins.iter().map(|b| b.count as f64).sum();
        let past_t = t.is_some_and(|t| h.bins.iter().any(|b| b.high > t));
        counted + if past_t { 0.0 } else { uncorrectable.unwrap_or(0) as f64 }
    });
    let (codewords, codewords_source) = match from_histogram.filter(|c| *c > 0.0) {
        Some(c) => (Some(c), Some(CodewordsSource::Histogram)),
        None => match input.line_codewords_per_s.filter(|_| input.windowed && input.duration_s > 0.0) {
            Some(per_s) => (Some(per_s * input.duration_s), Some(CodewordsSource::LaneRate)),
            None => (None, None),
        },
    };
    let cer = uncorrectable.zip(codewords).map(|(u, c)| (u as f64 / c).min(1.0));
    let predicted_cer =
        input.histogram.and_then(|h| h.predicted_uncorrectable_per_s).zip(codewords).map(|(u, c)| (u * input.duration_s / c).min(1.0));
    let flr = cer.zip(factor).map(|(c, f)| (c * f).min(1.0));
    let predicted_flr = predicted_cer.zip(factor).map(|(c, f)| (c * f).min(1.0));
    let sonic_predicted_flr = input.histogram.and_then(|h| {
        let (slope, intercept, t) = (h.tail_slope_log10_per_symbol?, h.tail_intercept_log10?, h.correction_limit_symbols?);
        let cw = codewords?;
        let cer: f64 = (t + 1..=t + 5).map(|j| 10f64.powf(intercept + slope * f64::from(j))).sum::<f64>() / cw;
        Some((cer * (f64::from(x?.0) + 1.0 / 8.0)).min(1.0))
    });
    let budgets = if fec == FecKind::Rs544 {
        [(FlrBudgetName::Module, MODULE_FLR_BUDGET), (FlrBudgetName::Phy, PHY_FLR_BUDGET)]
            .into_iter()
            .map(|(name, budget)| FlrBudget {
                name,
                flr: budget,
                source: BUDGET_SOURCE,
                observed_within: flr.map(|f| f <= budget),
                predicted_within: predicted_flr.map(|f| f <= budget),
            })
            .collect()
    } else {
        Vec::new()
    };
    Some(FrameLoss {
        fec,
        interleave_codewords: x.map(|(x, _)| x),
        interleave_source: x.map(|(_, s)| s),
        frame_bytes: input.frame_bytes,
        mac_frames_per_codeword: Some(mfc),
        flr_per_codeword_error_ratio: factor,
        codewords,
        codewords_source,
        uncorrectable_codewords: uncorrectable,
        codeword_error_ratio: cer,
        flr,
        predicted_codeword_error_ratio: predicted_cer,
        predicted_flr,
        sonic_predicted_flr,
        budgets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observed_flr_from_the_lane_rate_and_budgets() {
        // 400G: 78.125e6 codewords/s x 100 s = 7.8125e9; 1 uncorrectable: CER 1.28e-10;
        // FLR = 1.28e-10 x 2.13125 = 2.728e-10, over both budgets.
        let input = FrameLossInput {
            fec: FecKind::Rs544,
            speed_mbps: Some(400_000),
            lanes: Some(4),
            frame_bytes: 64,
            duration_s: 100.0,
            windowed: true,
            uncorrectable_blocks: Some(1),
            line_codewords_per_s: Some(78.125e6),
            histogram: None,
        };
        let f = frame_loss(&input).unwrap();
        assert_eq!((f.interleave_codewords, f.codewords_source), (Some(2), Some(CodewordsSource::LaneRate)));
        let json = serde_json::to_value(&f).unwrap();
        assert_eq!((&json["codewords_source"], &json["budgets"][1]["name"]), (&serde_json::json!("lane_rate"), &serde_json::json!("phy")));
        assert!((f.codeword_error_ratio.unwrap() - 1.28e-10).abs() < 1e-22);
        assert!((f.flr.unwrap() - 1.28e-10 * 2.13125).abs() < 1e-22);
        assert_eq!(
            f.budgets.iter().map(|b| (b.name.as_str(), b.observed_within)).collect::<Vec<_>>(),
            [("module", Some(false)), ("phy", Some(false))]
        );
        assert_eq!((f.budgets_exceeded(false), f.budgets_exceeded(true)), (Some("module;phy"), None));
        // 1e-12 is within both; 1e-11 over the module's 1.7e-12 only.
        let mut g = f.clone();
        g.flr = Some(1e-12);
        assert_eq!(g.budgets_exceeded(false), Some("none"));
        g.flr = Some(1e-11);
        assert_eq!(g.budgets_exceeded(false), Some("module"));
        // No window: no observed ratio.
        let f = frame_loss(&FrameLossInput { windowed: false, ..input }).unwrap();
        assert_eq!((f.codewords, f.flr, f.budgets_exceeded(false)), (None, None, None));
    }
}
