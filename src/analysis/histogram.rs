//! The RS-FEC codeword histogram (Linux 6.18 `ETHTOOL_A_FEC_STAT_HIST`, kernel-uapi.md §3):
//! how many codewords had 0, 1, 2, ... symbol errors over a window, and how close the tail
//! is to the correction limit t.
//!
//! - t = (n − k) / 2 symbols: RS(544,514) t = 15, RS(528,514) t = 7, LL-RS(272,258) t = 7
//!   (IEEE 802.3 Clauses 91, 119, 161).
//! - `max_symbol_errors` is the upper edge of the highest non-empty bin (a 4-7 bin with
//!   counts may hold 7-error codewords), so `headroom_symbols = t − max_symbol_errors` is
//!   the pessimistic reading; negative when bins past t (uncorrectable codewords) count.
//! - Bins cover arbitrary ranges (mlx5 PPHCR single-symbol bins, netdevsim 0 / 1-3 / 4-7):
//!   each bin becomes a per-symbol density, count / width, placed at its midpoint, so a
//!   4-7 bin weighs like four single-symbol bins would. The tail fit is least squares of
//!   log10(density) against symbol errors over the non-empty bins above the peak (the bin
//!   of highest density) and at or below t.
//! - The fitted line is extrapolated to t+1 and summed as a geometric series over
//!   t+1, t+2, ...: density(t+1) / (1 − 10^slope) per window (`line_predicted_uncorrectable_per_s`).
//!   For independent symbol errors the true tail is binomial and falls faster than any line
//!   on a log scale, so the line over-predicts, by decades on a random channel.
//! - So the port's histogram is also fitted with distributions ([`super::tail_models`]:
//!   binomial, negative binomial, Pólya–Aeppli), chosen by AIC among those χ² does not
//!   reject; the chosen model's P(k > t) gives `predicted_uncorrectable_per_s` and its
//!   interval. The line stands only when the data cannot tell (`prediction_model` "line").
//! - Frame loss ratio: the predicted codeword error ratio (predicted uncorrectable over
//!   all codewords) times the port's FLR / CER factor (1 + X·MFC) / MFC, X the codewords
//!   its PCS interleaves (`frame_loss`). All codewords per second come from the
//!   histogram itself when it counts bin 0, else from the lane rate (n·10 bits per codeword
//!   on the wire).

use super::codeword::{self, correction_limit_symbols, line_codewords_per_s, rs_geometry};
use super::fec::FecKind;
use super::stats::line_fit;
use super::tail_models::{self, TailModelKind, TailModels};
use super::{count, Context, Reason, ReasonCode, Severity};
use crate::counters::FecHistogramBin;
use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct BinRate {
    pub(crate) low: u32,
    pub(crate) high: u32,
    pub(crate) count: u64,
    pub(crate) rate_per_s: f64,
}

/// The histogram of one window (the port, or one lane in [`FecHistogram::lanes`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FecHistogram {
    /// 1-based lane for a per-lane histogram; `None` for the port.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) lane: Option<u8>,
    pub(crate) bins: Vec<BinRate>,
    /// t: symbols per codeword the FEC corrects.
    pub(crate) correction_limit_symbols: Option<u32>,
    /// Upper edge of the highest non-empty bin.
    pub max_symbol_errors: Option<u32>,
    /// t − max_symbol_errors (negative: codewords past t were counted).
    pub headroom_symbols: Option<i64>,
    /// Fitted tail slope: log10 codewords per symbol-error bin, per extra symbol error.
    pub tail_slope_log10_per_symbol: Option<f64>,
    /// The fitted line's log10 codewords at 0 symbol errors, for drawing the tail (not
    /// in the JSON: the slope and the predictions are what it is judged by).
    #[serde(skip)]
    pub(crate) tail_intercept_log10: Option<f64>,
    /// The lowest symbol-error value the line was fitted over (the first bin above the
    /// peak), for drawing it.
    #[serde(skip)]
    pub(crate) tail_fit_from_symbols: Option<u32>,
    /// The window's length, seconds.
    #[serde(skip)]
    pub(crate) window_s: f64,
    /// From the chosen model (`prediction_model`), else the straight line.
    pub predicted_uncorrectable_per_s: Option<f64>,
    /// The chosen model's 95% interval (the line has none).
    pub predicted_uncorrectable_per_s_low: Option<f64>,
    /// Upper end of the chosen model's 95% interval of `predicted_uncorrectable_per_s`.
    pub predicted_uncorrectable_per_s_high: Option<f64>,
    /// What `predicted_uncorrectable_per_s` comes from.
    pub prediction_model: Option<PredictedBy>,
    /// The straight line's own prediction, beside the model's.
    pub line_predicted_uncorrectable_per_s: Option<f64>,
    /// Predicted frame loss ratio: the predicted codeword error ratio times the port's FLR / CER factor.
    pub predicted_flr: Option<f64>,
    pub(crate) fit_r2: Option<f64>,
    /// Non-empty bins above the peak and up to t that the tail line was fitted over.
    pub bins_used: usize,
    /// Codewords per second, from the histogram (bin 0 counted) or the lane rate.
    pub(crate) codewords_per_s: Option<f64>,
    /// Every model fitted to the port's histogram and the choice (not per lane).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tail_models: Option<TailModels>,
    /// Per-lane histograms, when the driver gives per-lane bin values.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lanes: Vec<FecHistogram>,
}

impl FecHistogram {
    /// What the prediction stands on, as the verdict and the plot name it: "Pólya–Aeppli
    /// model (χ² p 0.83)", or "straight-line tail over 6 bins (R² 0.98, as ...)" with why no
    /// model was chosen; `None` without a prediction.
    pub(crate) fn basis_text(&self) -> Option<String> {
        match self.prediction_model? {
            PredictedBy::Model(kind) => {
                let fit = self.tail_models.as_ref().and_then(|m| m.fits.iter().find(|f| f.model == kind));
                let quality = fit.and_then(|f| f.chi2_p).map(|p| format!(" (χ² p {p:.2})")).unwrap_or_default();
                Some(format!("{} model{quality}", kind.name()))
            }
            PredictedBy::Line => {
                let why = self.tail_models.as_ref().and_then(|m| m.note.as_deref()).map(|n| format!(", as {n}")).unwrap_or_default();
                Some(format!("straight-line tail over {} bins (R² {:.2}{why})", self.bins_used, self.fit_r2.unwrap_or(0.0)))
            }
        }
    }

    /// The prediction as the verdict and the plot quote it: "34 uncorrectable codewords/s
    /// (95%: 3.399e1 to 3.417e1), frame loss ratio 9.3e-7"; `None` without one.
    pub(crate) fn prediction_text(&self) -> Option<String> {
        let u = self.predicted_uncorrectable_per_s?;
        let interval = self
            .predicted_uncorrectable_per_s_low
            .zip(self.predicted_uncorrectable_per_s_high)
            .map(|(lo, hi)| format!(" (95%: {lo:.3e} to {hi:.3e})"))
            .unwrap_or_default();
        let flr = self.predicted_flr.map(|f| format!(", frame loss ratio {f:.1e}")).unwrap_or_default();
        Some(format!("{} uncorrectable codewords/s{interval}{flr}", rate_text(u)))
    }
}

/// Where a predicted uncorrectable rate comes from: a fitted model, or the straight line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PredictedBy {
    /// A fitted model of symbol errors per codeword, chosen by AIC among those χ² does not reject.
    Model(TailModelKind),
    /// The straight line fitted to the log of the tail bins (the data cannot tell a model).
    Line,
}

impl Serialize for PredictedBy {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PredictedBy::Model(k) => k.serialize(s),
            PredictedBy::Line => s.serialize_str("line"),
        }
    }
}

/// What the analysis knows that the bins do not say.
pub struct HistogramInput<'a> {
    /// The window's histogram bins, increases over the window.
    pub bins: &'a [FecHistogramBin],
    /// The window's length, seconds.
    pub duration_s: f64,
    /// The FEC the link runs (its t and codeword geometry).
    pub fec: FecKind,
    /// Line codewords per second of the port from the lane rate, if known.
    pub line_codewords_per_s: Option<f64>,
    /// FLR / CER of the port (`codeword::port_factor`); `None`: no predicted FLR.
    pub flr_per_codeword_error_ratio: Option<f64>,
}

/// `None` when the window has no bins or no duration.
pub fn analyze(input: &HistogramInput) -> Option<FecHistogram> {
    let mut h = line_only(input)?;
    model_tail(&mut h, input);
    let lanes = input.bins.iter().map(|b| b.per_lane.len()).max().unwrap_or(0);
    // A lane's share of the line's codewords is unknown (RS codewords are striped across
    // lanes), so per-lane predictions use the lane's own bin-0 count when it has one.
    for j in 0..lanes.min(usize::from(u8::MAX)) {
        let lane_counts: Vec<(u32, u32, u64)> = input.bins.iter().filter_map(|b| b.per_lane.get(j).map(|c| (b.low, b.high, *c))).collect();
        let mut l = summarize(&lane_counts, input, None);
        // j < 255 by the bound above.
        l.lane = u8::try_from(j + 1).ok();
        h.lanes.push(l);
    }
    Some(h)
}

/// The port's histogram with the straight-line tail only, no per-lane histograms and no
/// tail models: what [`analyze`] starts from, and the benchmark's baseline for what the
/// models cost; `None` when the window has no bins or no duration.
pub fn line_only(input: &HistogramInput) -> Option<FecHistogram> {
    if input.bins.is_empty() || !(input.duration_s > 0.0) {
        return None;
    }
    let counts: Vec<(u32, u32, u64)> = input.bins.iter().map(|b| (b.low, b.high, b.count)).collect();
    Some(summarize(&counts, input, input.line_codewords_per_s))
}

fn summarize(counts: &[(u32, u32, u64)], input: &HistogramInput, line_cw: Option<f64>) -> FecHistogram {
    let t = correction_limit_symbols(input.fec);
    let mut sorted = counts.to_vec();
    sorted.sort_by_key(|(lo, hi, _)| (*lo, *hi));
    let bins: Vec<BinRate> =
        sorted.iter().map(|&(low, high, count)| BinRate { low, high, count, rate_per_s: count as f64 / input.duration_s }).collect();
    let max_symbol_errors = bins.iter().filter(|b| b.count > 0).map(|b| b.high).max();
    let headroom_symbols = t.zip(max_symbol_errors).map(|(t, m)| i64::from(t) - i64::from(m));
    // All codewords: the histogram's own total when it counts the error-free ones.
    // Counts are untrusted: summed as f64, which cannot overflow.
    let total: f64 = bins.iter().map(|b| b.count as f64).sum();
    let codewords_per_s = if bins.iter().any(|b| b.low == 0) && total > 0.0 { Some(total / input.duration_s) } else { line_cw };
    let mut h = FecHistogram {
        bins,
        correction_limit_symbols: t,
        max_symbol_errors,
        headroom_symbols,
        codewords_per_s,
        window_s: input.duration_s,
        ..Default::default()
    };
    let Some(t) = t else { return h };
    let density = |b: &BinRate| b.count as f64 / f64::from(b.high.saturating_sub(b.low) + 1);
    let mid = |b: &BinRate| (f64::from(b.low) + f64::from(b.high)) / 2.0;
    // The peak: the densest bin (ties: the lower one).
    let Some(peak) = h.bins.iter().filter(|b| b.count > 0).max_by(|a, b| density(a).total_cmp(&density(b)).then(b.low.cmp(&a.low))) else {
        return h;
    };
    let pts: Vec<(f64, f64)> =
        h.bins.iter().filter(|b| b.count > 0 && b.low > peak.high && b.high <= t).map(|b| (mid(b), density(b).log10())).collect();
    h.bins_used = pts.len();
    let Some(fit) = line_fit(&pts) else { return h };
    h.fit_r2 = Some(fit.r * fit.r);
    h.tail_slope_log10_per_symbol = Some(fit.slope);
    h.tail_intercept_log10 = Some(fit.intercept);
    h.tail_fit_from_symbols = Some(peak.high + 1);
    if fit.slope >= 0.0 {
        return h; // a tail that does not fall cannot be summed: no prediction
    }
    // Codewords in the window with exactly t+1 errors, then the geometric sum beyond.
    let at_t1 = 10f64.powf(fit.intercept + fit.slope * f64::from(t + 1));
    let uncorrectable = at_t1 / (1.0 - 10f64.powf(fit.slope)) / input.duration_s;
    h.line_predicted_uncorrectable_per_s = Some(uncorrectable);
    set_prediction(&mut h, input, PredictedBy::Line, uncorrectable, None);
    h
}

fn set_prediction(h: &mut FecHistogram, input: &HistogramInput, by: PredictedBy, per_s: f64, interval: Option<(f64, f64)>) {
    h.prediction_model = Some(by);
    h.predicted_uncorrectable_per_s = Some(per_s);
    h.predicted_uncorrectable_per_s_low = interval.map(|i| i.0);
    h.predicted_uncorrectable_per_s_high = interval.map(|i| i.1);
    h.predicted_flr = match (h.codewords_per_s.filter(|c| *c > 0.0), input.flr_per_codeword_error_ratio) {
        (Some(cw), Some(factor)) => Some((per_s / cw * factor).min(1.0)),
        _ => None,
    };
}

/// The port's histogram fitted with distributions; the chosen one's P(k > t) replaces the
/// line's prediction.
fn model_tail(h: &mut FecHistogram, input: &HistogramInput) {
    let (Some((n, _)), Some(t)) = (rs_geometry(input.fec), h.correction_limit_symbols) else { return };
    let counts: Vec<(u32, u32, u64)> = h.bins.iter().map(|b| (b.low, b.high, b.count)).collect();
    let Some(models) = tail_models::fit(&counts, n, t) else { return };
    if let (Some(kind), Some(share)) = (models.selected, models.uncorrectable_share) {
        // Shares of all codewords; the bins hold the correctable ones, 1 − share of them.
        let total: f64 = counts.iter().map(|c| c.2 as f64).sum();
        let per_s = |q: f64| total * q / (1.0 - q).max(f64::MIN_POSITIVE) / input.duration_s;
        let interval = models.uncorrectable_share_low.zip(models.uncorrectable_share_high).map(|(lo, hi)| (per_s(lo), per_s(hi)));
        set_prediction(h, input, PredictedBy::Model(kind), per_s(share), interval);
    }
    h.tail_models = Some(models);
}

/// A rate as people read it: "34" and "2.5" rather than "3.4e1" and "2.5e0"; rates
/// under 0.1 or from a million up stay scientific ("1.4e-3", "7.8e7").
pub(crate) fn rate_text(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if !(0.1..1e6).contains(&a) {
        format!("{v:.1e}")
    } else if a >= 10.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// The window's histogram analysed ([`analyze`]), as the verdict and the CSV rows see it;
/// `None` without bins.
pub(super) fn of_window(cx: &Context) -> Option<FecHistogram> {
    if cx.w.histogram_delta.is_empty() {
        return None;
    }
    let rate = cx.rate.as_ref();
    analyze(&HistogramInput {
        bins: &cx.w.histogram_delta,
        duration_s: cx.w.seconds_of(crate::counters::CounterFigure::FecHistogram),
        fec: cx.fec,
        line_codewords_per_s: rate.and_then(|r| line_codewords_per_s(cx.fec, r.lane_rate_gbps, r.lanes)),
        flr_per_codeword_error_ratio: codeword::port_factor(
            cx.fec,
            rate.map(|r| r.speed_mbps),
            rate.map(|r| r.lanes),
            cx.cfg.fec_flr_frame_bytes,
        ),
    })
}

/// The window's histogram, and its headroom and prediction stated: in
/// `fec_tail_near_limit` when the tail nears t or the predicted FLR passes the limit,
/// whether or not any codeword was uncorrectable yet, else in a note.
pub(super) fn judge(cx: &mut Context, reasons: &mut Vec<Reason>) -> Option<FecHistogram> {
    let h = of_window(cx)?;
    let Some(t) = h.correction_limit_symbols else {
        cx.notes.push(format!("FEC histogram counted, but {} has no symbol correction limit: rates only", cx.fec.name()));
        return Some(h);
    };
    let (Some(max), Some(headroom)) = (h.max_symbol_errors, h.headroom_symbols) else {
        cx.notes.push("FEC histogram: no codeword counted in the window".into());
        return Some(h);
    };
    let fec = cx.fec.name();
    let prediction = match (h.basis_text(), h.prediction_text()) {
        (Some(basis), Some(prediction)) => format!("; the {basis} predicts {prediction}"),
        _ => format!("; {} tail bin(s) above the peak: no tail fit", h.bins_used),
    };
    let summary =
        format!("codewords with up to {max} symbol errors, {headroom} symbol(s) of headroom to the {fec} limit t = {t}{prediction}");
    let near = headroom <= i64::from(cx.cfg.fec_tail_near_limit_symbols);
    let flr_high = h.predicted_flr.is_some_and(|f| f > cx.cfg.fec_max_predicted_flr);
    if near || flr_high {
        let uncorrectable = count(&cx.w.deltas.uncorrectable_blocks);
        let why = match (near, flr_high) {
            (true, true) => format!(
                "within {} symbols of t and a predicted FLR over {:.1e} ({})",
                cx.cfg.fec_tail_near_limit_symbols,
                cx.cfg.fec_max_predicted_flr,
                codeword::limit_name(cx.cfg.fec_max_predicted_flr)
            ),
            (true, false) => format!("within {} symbols of t", cx.cfg.fec_tail_near_limit_symbols),
            _ => format!(
                "a predicted FLR over {:.1e} ({})",
                cx.cfg.fec_max_predicted_flr,
                codeword::limit_name(cx.cfg.fec_max_predicted_flr)
            ),
        };
        let lost = match uncorrectable {
            Some(0) => ": no codeword was uncorrectable yet, but the link is near the FEC cliff".to_string(),
            Some(k) => format!("; {k} codewords were already uncorrectable"),
            None => String::new(),
        };
        reasons.push(Reason::new(ReasonCode::FecTailNearLimit, Severity::Investigate, None, format!("FEC tail {why}: {summary}{lost}")));
    } else {
        cx.notes.push(format!("FEC histogram: {summary}"));
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(low: u32, high: u32, count: u64) -> FecHistogramBin {
        FecHistogramBin { low, high, count, per_lane: Vec::new() }
    }

    fn input(bins: &[FecHistogramBin], fec: FecKind) -> HistogramInput<'_> {
        HistogramInput { bins, duration_s: 10.0, fec, line_codewords_per_s: None, flr_per_codeword_error_ratio: Some(2.13125) }
    }

    #[test]
    fn rates_read_as_numbers() {
        // 2048 codewords in 60 s.
        assert_eq!(rate_text(2048.0 / 60.0), "34");
        assert_eq!(rate_text(2.5), "2.5");
        assert_eq!(rate_text(0.25), "0.25");
        assert_eq!(rate_text(1.4e-3), "1.4e-3");
        assert_eq!(rate_text(7.8125e7), "7.8e7");
        assert_eq!(rate_text(0.0), "0");
    }

    #[test]
    fn single_symbol_bins_exact_geometric_tail() {
        // Bins 0..=15 with counts 1e9 (bin 0) and 10^(8 - s) for s = 1..=6; empty above.
        let mut bins = vec![bin(0, 0, 1_000_000_000)];
        for s in 1..=15u32 {
            bins.push(bin(s, s, if s <= 6 { 10u64.pow(8 - s) } else { 0 }));
        }
        let h = analyze(&input(&bins, FecKind::Rs544)).unwrap();
        assert_eq!((h.max_symbol_errors, h.headroom_symbols, h.bins_used), (Some(6), Some(9), 6));
        assert!((h.tail_slope_log10_per_symbol.unwrap() + 1.0).abs() < 1e-12);
        assert!((h.fit_r2.unwrap() - 1.0).abs() < 1e-12);
        // Line: log10 N = 8 - s -> N(16) = 1e-8; geometric sum 1e-8 / (1 - 0.1) = 1.111e-8
        // over 10 s = 1.111e-9 per s.
        let line = h.line_predicted_uncorrectable_per_s.unwrap();
        assert!((line - 1.0e-8 / 0.9 / 10.0).abs() < 1e-20, "{line}");
        // A decade per symbol from bin 1 is one burst continuing with θ = 0.1 (Pólya–Aeppli):
        // that model is chosen, and its tail is the line's to within the few bursts that pair up.
        assert_eq!(h.prediction_model, Some(PredictedBy::Model(TailModelKind::PolyaAeppli)), "{:#?}", h.tail_models);
        let u = h.predicted_uncorrectable_per_s.unwrap();
        assert!(u / line < 3.0 && line / u < 3.0, "{u} vs {line}");
        // Codewords: (1e9 + 1111111) / 10 s; FLR = CER x the factor given (X = 2, 64-octet frames).
        let cw = (1e9 + 11_111_100.0) / 10.0;
        assert!((h.codewords_per_s.unwrap() - cw).abs() < 1e-3);
        assert!((h.predicted_flr.unwrap() - u / cw * 2.13125).abs() < 1e-25);
        assert_eq!(h.bins[3].rate_per_s, 1e5 / 10.0);
    }

    #[test]
    fn ranges_become_densities() {
        // netdevsim ranges: 0, 1-3, 4-7 on RS(528,514) (t = 7).
        // Densities: 3e6 / 3 = 1e6 at 2; 4e3 / 4 = 1e3 at 5.5 -> slope -3 / 3.5 = -0.857 per symbol.
        let bins = [bin(0, 0, 1_000_000_000), bin(1, 3, 3_000_000), bin(4, 7, 4_000)];
        let h = analyze(&input(&bins, FecKind::Rs528)).unwrap();
        assert_eq!((h.max_symbol_errors, h.headroom_symbols, h.bins_used), (Some(7), Some(0), 2));
        let slope = h.tail_slope_log10_per_symbol.unwrap();
        assert!((slope + 3.0 / 3.5).abs() < 1e-12);
        // log10 density at 8 = 3 + slope x 2.5 = 0.857 -> 7.197 codewords, sum / (1 - 10^slope).
        let at8 = 10f64.powf(3.0 + slope * 2.5);
        assert!((h.line_predicted_uncorrectable_per_s.unwrap() - at8 / (1.0 - 10f64.powf(slope)) / 10.0).abs() < 1e-9);
        // Three non-empty bins: two-parameter models are chosen by AIC alone, and say so.
        assert!(h.tail_models.unwrap().note.is_some());
    }

    #[test]
    fn no_tail_no_fit_and_past_t_is_negative_headroom() {
        let bins = [bin(0, 0, 1000), bin(1, 1, 5)];
        let h = analyze(&input(&bins, FecKind::Rs544)).unwrap();
        assert_eq!((h.bins_used, h.fit_r2, h.predicted_flr), (1, None, None));
        let bins = [bin(0, 0, 1000), bin(1, 3, 50), bin(8, 8, 2)];
        let h = analyze(&input(&bins, FecKind::Rs528)).unwrap();
        assert_eq!(h.headroom_symbols, Some(-1));
        assert!(analyze(&input(&[], FecKind::Rs544)).is_none());
        // No RS FEC: rates only.
        let h = analyze(&input(&bins, FecKind::BaseR)).unwrap();
        assert_eq!((h.correction_limit_symbols, h.headroom_symbols, h.fit_r2), (None, None, None));
    }

    #[test]
    fn per_lane_bins() {
        let mut b0 = bin(0, 0, 200);
        b0.per_lane = vec![100, 100];
        let mut b1 = bin(1, 3, 30);
        b1.per_lane = vec![10, 20];
        let h = analyze(&input(&[b0, b1], FecKind::Rs544)).unwrap();
        assert_eq!(h.lanes.len(), 2);
        assert_eq!(h.lanes[1].lane, Some(2));
        assert_eq!(h.lanes[1].bins[1].count, 20);
        assert_eq!(h.lanes[1].headroom_symbols, Some(12));
    }
}
