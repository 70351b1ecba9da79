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

use super::fec::FecKind;
use super::histogram::{codeword_data_bits, FecHistogram};
use serde::Serialize;

/// Ethernet preamble + SFD (8 octets) and minimum interpacket gap (12 octets) per frame.
pub const FRAME_OVERHEAD_BYTES: u32 = 20;

/// The frame loss ratio the optics may cause on their own (IEEE 802.3 138.1.1, 802.3cm).
pub const MODULE_FLR_BUDGET: f64 = 1.7e-12;
/// The frame loss ratio a complete Physical Layer may reach (IEEE 802.3 138.1.1, 802.3cm).
pub const PHY_FLR_BUDGET: f64 = 6.2e-11;
const BUDGET_SOURCE: &str = "IEEE 802.3 138.1.1 (802.3cm; likewise 124.1.1, 140.1.1): 64-octet frames, minimum interpacket gap";

/// Which budget a configured FLR limit is, for the reason that compares with it.
pub fn limit_name(limit: f64) -> &'static str {
    if limit == PHY_FLR_BUDGET {
        "the PHY's budget, IEEE 802.3 138.1.1"
    } else if limit == MODULE_FLR_BUDGET {
        "the module's budget, IEEE 802.3 138.1.1"
    } else {
        "fec_max_predicted_flr"
    }
}

/// Codewords a PCS interleaves symbol by symbol, by FEC and port speed.
struct InterleaveRow {
    fec: FecKind,
    /// Port speeds (Mb/s) the row covers, inclusive.
    speed_mbps: (u32, u32),
    /// Lane counts the row covers (empty: any).
    lanes: &'static [u32],
    codewords: u32,
    source: &'static str,
}

const INTERLEAVE: &[InterleaveRow] = &[
    InterleaveRow {
        fec: FecKind::Rs528,
        speed_mbps: (0, u32::MAX),
        lanes: &[],
        codewords: 1,
        source: "IEEE 802.3 Clause 91 (100GBASE-R) and Clause 108 (25GBASE-R) RS-FEC: one codeword at a time",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (0, 50_000),
        lanes: &[],
        codewords: 1,
        source: "IEEE 802.3 Clause 134 (50GBASE-R RS-FEC): one codeword at a time",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (100_000, 100_000),
        lanes: &[4],
        codewords: 1,
        source: "IEEE 802.3 Clause 91 (100GBASE-KP4 RS(544,514)): one codeword at a time",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (100_000, 100_000),
        lanes: &[1, 2],
        codewords: 2,
        source: "100G on 1 or 2 lanes: 2 (IEEE 802.3ck Clause 161 RS-FEC-Int; a Clause 91 PHY without interleave loses fewer, so this errs high), as the 802.3df logic ad hoc's table gives",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (200_000, 400_000),
        lanes: &[],
        codewords: 2,
        source: "IEEE 802.3 Clause 119 (200GBASE-R / 400GBASE-R PCS): two RS(544,514) codewords interleaved symbol by symbol",
    },
    InterleaveRow {
        fec: FecKind::Rs544,
        speed_mbps: (800_000, 1_600_000),
        lanes: &[],
        codewords: 4,
        source: "IEEE 802.3df Clause 172 (800GBASE-R) and 802.3dj 1.6TBASE-R PCS: 4, as the 802.3df logic ad hoc's FLR analysis gives",
    },
];

/// X for a port: `None` where no row covers the FEC, speed and lane count.
pub fn interleave(fec: FecKind, speed_mbps: u32, lanes: u32) -> Option<(u32, &'static str)> {
    INTERLEAVE
        .iter()
        .find(|r| {
            r.fec == fec && (r.speed_mbps.0..=r.speed_mbps.1).contains(&speed_mbps) && (r.lanes.is_empty() || r.lanes.contains(&lanes))
        })
        .map(|r| (r.codewords, r.source))
}

/// MFC: MAC frames of `frame_bytes` (plus preamble and gap) per codeword's data.
pub fn mac_frames_per_codeword(fec: FecKind, frame_bytes: u32) -> Option<f64> {
    let data_bits = codeword_data_bits(fec)?;
    Some(f64::from(data_bits) / (f64::from(frame_bytes + FRAME_OVERHEAD_BYTES) * 8.0))
}

/// FLR / CER = (1 + X·MFC) / MFC.
pub fn flr_per_codeword_error_ratio(interleave: u32, mfc: f64) -> f64 {
    (1.0 + f64::from(interleave) * mfc) / mfc
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FlrBudget {
    /// "module" (the optics' allocation) or "phy" (the whole Physical Layer).
    pub name: &'static str,
    pub flr: f64,
    pub source: &'static str,
    /// Observed FLR within the budget; `None` when not observed.
    pub observed_within: Option<bool>,
    /// Predicted FLR (histogram tail) within the budget; `None` when not predicted.
    pub predicted_within: Option<bool>,
}

/// JSON `frame_loss` of an interface (keys are a contract).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FrameLoss {
    pub fec: FecKind,
    /// X: codewords interleaved symbol by symbol; `None` when the port's PCS is not known.
    pub interleave_codewords: Option<u32>,
    pub interleave_source: Option<&'static str>,
    pub frame_bytes: u32,
    /// MFC: MAC frames of `frame_bytes` per codeword.
    pub mac_frames_per_codeword: Option<f64>,
    /// (1 + X·MFC) / MFC.
    pub flr_per_codeword_error_ratio: Option<f64>,
    /// All codewords in the window, and where that figure comes from ("histogram": its
    /// own bins with bin 0, plus the uncorrectable ones; "lane_rate").
    pub codewords: Option<f64>,
    pub codewords_source: Option<&'static str>,
    pub uncorrectable_codewords: Option<u64>,
    /// Observed: uncorrectable / all codewords, and the FLR it means.
    pub codeword_error_ratio: Option<f64>,
    pub flr: Option<f64>,
    /// From the histogram's tail: predicted uncorrectable / all codewords, and its FLR.
    pub predicted_codeword_error_ratio: Option<f64>,
    pub predicted_flr: Option<f64>,
    /// SONiC `port_flr.lua`'s figure, for cross-checking against switch output: the
    /// histogram's straight line summed over t+1..=t+5, over all codewords, times X + 1/8
    /// (its MFC = 8). Its line is this one when bin 0 is the peak and bins are single symbols.
    pub sonic_predicted_flr: Option<f64>,
    /// The module's and the PHY's budgets (RS(544,514) PMDs); empty for other FECs.
    pub budgets: Vec<FlrBudget>,
}

/// What the window counted that frame loss needs.
pub struct FrameLossInput<'a> {
    pub fec: FecKind,
    pub speed_mbps: Option<u32>,
    pub lanes: Option<u32>,
    pub frame_bytes: u32,
    pub duration_s: f64,
    /// A window (two samples or more): counts are over it.
    pub windowed: bool,
    pub uncorrectable_blocks: Option<u64>,
    /// Line codewords per second from the lane rate.
    pub line_codewords_per_s: Option<f64>,
    pub histogram: Option<&'a FecHistogram>,
}

/// The factor FLR / CER of a port, `None` without a known interleave or an RS FEC.
pub fn port_factor(fec: FecKind, speed_mbps: Option<u32>, lanes: Option<u32>, frame_bytes: u32) -> Option<f64> {
    let (x, _) = interleave(fec, speed_mbps?, lanes.unwrap_or(0))?;
    Some(flr_per_codeword_error_ratio(x, mac_frames_per_codeword(fec, frame_bytes)?))
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
        duration_s: cx.w.duration_s,
        windowed: cx.w.samples >= 2 && cx.w.duration_s > 0.0,
        uncorrectable_blocks: link.uncorrectable_blocks,
        line_codewords_per_s: rate.and_then(|r| super::histogram::line_codewords_per_s(cx.fec, r.lane_rate_gbps, r.lanes)),
        histogram,
    })
}

impl FrameLoss {
    /// The budgets the observed FLR (`predicted`: the predicted one) is over, as CSV names
    /// them: `none`, `module` or `module;phy` (the module's budget is the smaller); `None`
    /// when the figure or the budgets are unknown.
    pub fn budgets_exceeded(&self, predicted: bool) -> Option<&'static str> {
        let flr = if predicted { self.predicted_flr } else { self.flr }?;
        let over = |name: &str| self.budgets.iter().any(|b| b.name == name && flr > b.flr);
        if self.budgets.is_empty() {
            return None;
        }
        Some(match (over("module"), over("phy")) {
            (_, true) => "module;phy",
            (true, false) => "module",
            (false, false) => "none",
        })
    }
}

/// `None` for a FEC without codewords (off, BASE-R, unknown).
pub fn frame_loss(input: &FrameLossInput) -> Option<FrameLoss> {
    let fec = input.fec;
    let mfc = mac_frames_per_codeword(fec, input.frame_bytes)?;
    let x = input.speed_mbps.and_then(|s| interleave(fec, s, input.lanes.unwrap_or(0)));
    let factor = x.map(|(x, _)| flr_per_codeword_error_ratio(x, mfc));
    let uncorrectable = input.uncorrectable_blocks.filter(|_| input.windowed);
    // The histogram counts bin 0 and every corrected codeword; the uncorrectable ones are
    // counted apart unless a bin past t holds them.
    let t = super::histogram::correction_limit_symbols(fec);
    let from_histogram = input.histogram.filter(|h| h.bins.iter().any(|b| b.low == 0)).map(|h| {
        let counted: f64 = h.bins.iter().map(|b| b.count as f64).sum();
        let past_t = t.is_some_and(|t| h.bins.iter().any(|b| b.high > t));
        counted + if past_t { 0.0 } else { uncorrectable.unwrap_or(0) as f64 }
    });
    let (codewords, codewords_source) = match from_histogram.filter(|c| *c > 0.0) {
        Some(c) => (Some(c), Some("histogram")),
        None => match input.line_codewords_per_s.filter(|_| input.windowed && input.duration_s > 0.0) {
            Some(per_s) => (Some(per_s * input.duration_s), Some("lane_rate")),
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
        [("module", MODULE_FLR_BUDGET), ("phy", PHY_FLR_BUDGET)]
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
    fn interleave_by_rate() {
        let x = |fec, speed, lanes| interleave(fec, speed, lanes).map(|(x, _)| x);
        assert_eq!(x(FecKind::Rs528, 100_000, 4), Some(1));
        assert_eq!(x(FecKind::Rs528, 25_000, 1), Some(1));
        assert_eq!(x(FecKind::Rs544, 50_000, 1), Some(1));
        assert_eq!(x(FecKind::Rs544, 100_000, 4), Some(1));
        assert_eq!(x(FecKind::Rs544, 100_000, 2), Some(2));
        assert_eq!(x(FecKind::Rs544, 100_000, 1), Some(2));
        assert_eq!(x(FecKind::Rs544, 200_000, 4), Some(2));
        assert_eq!(x(FecKind::Rs544, 400_000, 8), Some(2));
        assert_eq!(x(FecKind::Rs544, 400_000, 4), Some(2));
        assert_eq!(x(FecKind::Rs544, 800_000, 8), Some(4));
        assert_eq!(x(FecKind::Rs544, 1_600_000, 8), Some(4));
        assert_eq!(x(FecKind::BaseR, 25_000, 1), None);
        assert_eq!(x(FecKind::Rs544, 3_200_000, 16), None);
    }

    #[test]
    fn flr_factor_for_64_octet_frames() {
        // 64 + 20 = 84 octets = 672 bits; 5120 / 672 = 7.6190 frames per codeword.
        let mfc = mac_frames_per_codeword(FecKind::Rs544, 64).unwrap();
        assert!((mfc - 5120.0 / 672.0).abs() < 1e-12);
        // (1 + X·MFC) / MFC = X + 672 / 5120 = X + 0.13125.
        assert!((flr_per_codeword_error_ratio(1, mfc) - 1.13125).abs() < 1e-12);
        assert!((flr_per_codeword_error_ratio(2, mfc) - 2.13125).abs() < 1e-12);
        assert!((flr_per_codeword_error_ratio(4, mfc) - 4.13125).abs() < 1e-12);
        // SONiC's MFC = 8: 1.125 / 2.125 / 4.125.
        assert_eq!(flr_per_codeword_error_ratio(2, 8.0), 2.125);
        // 1518-octet frames span 12304 / 5120 = 2.403 codewords: X + 2.403.
        let mfc = mac_frames_per_codeword(FecKind::Rs544, 1518).unwrap();
        assert!((flr_per_codeword_error_ratio(1, mfc) - (1.0 + 12304.0 / 5120.0)).abs() < 1e-12);
        assert_eq!(mac_frames_per_codeword(FecKind::BaseR, 64), None);
    }

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
        assert_eq!((f.interleave_codewords, f.codewords_source), (Some(2), Some("lane_rate")));
        assert!((f.codeword_error_ratio.unwrap() - 1.28e-10).abs() < 1e-22);
        assert!((f.flr.unwrap() - 1.28e-10 * 2.13125).abs() < 1e-22);
        assert_eq!(
            f.budgets.iter().map(|b| (b.name, b.observed_within)).collect::<Vec<_>>(),
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
