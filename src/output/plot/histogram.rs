//! The FEC histogram (kernel 6.18 ethtool FEC stats) as the analysis judged it
//! (`analysis::histogram`): codewords by how many symbol errors each needed corrected, on a
//! log axis, with the correction limit t (RS(544,514) t = 15, IEEE 802.3 91.5.2.1), the tail
//! the prediction stands on, and the prediction the verdict quotes. Past t a codeword is
//! uncorrectable.
//!
//! - The tail is the chosen model's expected codewords at each symbol-error value (a
//!   circle per value, solid up to t, dashed past it), or, when no model was chosen, the
//!   straight line fitted over the bins above the peak; its legend names it and its fit
//!   quality as the verdict does.
//! - The prediction is a cross at the codewords the window would hold past t (the
//!   predicted uncorrectable rate times the window), with its 95% interval as a whisker.
//!
//! Everything drawn comes from the [`FecHistogram`] the verdict and the JSON are built
//! from; nothing is fitted here.

use super::{PlotError, FONT, LIMIT_COLOR, SIZE};
use crate::analysis::histogram::{rate_text, BinRate, FecHistogram, PredictedBy};
use crate::analysis::tail_models::EXPECTED_PAST_T;
use crate::output::text::escape;
use plotters::prelude::*;

/// The bars' colour.
const BAR_COLOR: RGBColor = RGBColor(0, 114, 178);
/// The straight-line tail's colour.
const FIT_COLOR: RGBColor = RGBColor(213, 94, 0);
/// The chosen model's colour (Okabe-Ito bluish green).
const MODEL_COLOR: RGBColor = RGBColor(0, 158, 115);
/// The prediction's colour (Okabe-Ito reddish purple).
const PREDICTION_COLOR: RGBColor = RGBColor(204, 121, 167);

/// Codewords per symbol-error value: a bin of several values (netdevsim's 4-7) is spread
/// over them, as the tail fit weighs it.
fn density(b: &BinRate) -> f64 {
    b.count as f64 / f64::from(b.high.saturating_sub(b.low) + 1)
}

/// (x, codewords) points of a drawn series.
type Points = Vec<(f64, f64)>;

/// Bars span [k, k + 0.9] on the axis: a value's centre is k + 0.45.
fn centre(k: u32) -> f64 {
    f64::from(k) + 0.45
}

/// `fec`: the code's name for the limit's label ("RS(544,514)").
pub fn histogram(interface: &str, h: &FecHistogram, fec: Option<&str>) -> Result<String, PlotError> {
    let bins: Vec<&BinRate> = h.bins.iter().filter(|b| b.high >= b.low).collect();
    if bins.is_empty() {
        return Err(PlotError::NoData(format!(
            "{}: the capture has no FEC histogram (kernel 6.18+ and a driver that fills it)",
            escape(interface)
        )));
    }
    let t = h.correction_limit_symbols;
    let positive = |v: &f64| v.is_finite() && *v > 0.0;
    // The tail the prediction stands on: (k centre, codewords), up to t and past it.
    let (tail, tail_past_t): (Points, Points) = match (h.prediction_model, t) {
        (Some(PredictedBy::Model(_)), Some(t)) => {
            let expected = h.tail_models.as_ref().map(|m| m.expected_codewords.as_slice()).unwrap_or_default();
            let at = |k: u32| expected.get(k as usize).copied().filter(positive).map(|v| (centre(k), v));
            ((0..=t).filter_map(at).collect(), (t..=t + EXPECTED_PAST_T).filter_map(at).collect())
        }
        (Some(PredictedBy::Line), Some(t)) => {
            let line = |from: u32, to: u32| -> Points {
                let (Some(c), Some(m)) = (h.tail_intercept_log10, h.tail_slope_log10_per_symbol) else { return Vec::new() };
                (from..=to).map(|k| (centre(k), 10f64.powf(c + m * f64::from(k)))).collect()
            };
            (line(h.tail_fit_from_symbols.unwrap_or(0), t), line(t, t + EXPECTED_PAST_T))
        }
        _ => (Vec::new(), Vec::new()),
    };
    // The prediction as codewords in the window past t, with its interval where it has one.
    let in_window = |per_s: Option<f64>| per_s.map(|u| u * h.window_s).filter(positive);
    let predicted = in_window(h.predicted_uncorrectable_per_s).zip(t);
    let interval = in_window(h.predicted_uncorrectable_per_s_low).zip(in_window(h.predicted_uncorrectable_per_s_high));

    let xmax = bins.iter().map(|b| b.high).chain(t.map(|t| t + EXPECTED_PAST_T)).max().unwrap_or(0) + 1;
    let drawn = || {
        bins.iter()
            .map(|b| density(b))
            .chain(tail.iter().chain(&tail_past_t).map(|p| p.1))
            .chain(predicted.map(|p| p.0))
            .chain(interval.iter().flat_map(|i| [i.0, i.1]))
            .filter(positive)
    };
    let cmax = drawn().fold(1.0, f64::max) * 3.0;
    let cmin = drawn().fold(0.5, f64::min) / 3.0;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{}: FEC histogram", escape(interface)), (FONT, 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(0f64..f64::from(xmax), (cmin..cmax).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("symbol errors per codeword")
            .y_desc("codewords in the window")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .label_style((FONT, 13))
            .draw()?;
        chart.draw_series(
            bins.iter()
                .filter(|b| b.count > 0)
                .map(|b| Rectangle::new([(f64::from(b.low), cmin), (f64::from(b.high) + 0.9, density(b))], BAR_COLOR.filled())),
        )?;
        if let Some(t) = t {
            let x = f64::from(t) + 0.95;
            let name = fec.unwrap_or("the FEC");
            chart
                .draw_series([PathElement::new(vec![(x, cmin), (x, cmax)], LIMIT_COLOR.stroke_width(2))])?
                .label(format!("t = {t}: {name} corrects up to {t} symbols"))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LIMIT_COLOR.stroke_width(2)));
        }
        if let Some(basis) = h.basis_text().filter(|_| !tail.is_empty()) {
            let (color, label) = match h.prediction_model {
                Some(PredictedBy::Model(_)) => (MODEL_COLOR, format!("{basis}: expected codewords")),
                _ => (FIT_COLOR, basis),
            };
            if color == MODEL_COLOR {
                chart.draw_series(tail.iter().chain(tail_past_t.iter().skip(1)).map(|p| Circle::new(*p, 3, color.filled())))?;
            }
            chart
                .draw_series(LineSeries::new(tail, color.stroke_width(2)))?
                .label(escape(&label))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart.draw_series(DashedLineSeries::new(tail_past_t, 6, 4, color.stroke_width(2)))?;
        }
        if let (Some((u, t)), Some(prediction)) = (predicted, h.prediction_text()) {
            // Centred over the values past t the tail is drawn for.
            let x = f64::from(t) + 1.0 + f64::from(EXPECTED_PAST_T) / 2.0;
            let style = PREDICTION_COLOR.stroke_width(2);
            if let Some((lo, hi)) = interval {
                chart.draw_series([PathElement::new(vec![(x, lo), (x, hi)], style)])?;
            }
            chart
                .draw_series([Cross::new((x, u), 6, style)])?
                .label(format!("past t: {}", escape(&prediction)))
                .legend(move |(x, y)| Cross::new((x + 10, y), 6, style));
            chart.draw_series([Text::new(format!(" {}/s", rate_text(u / h.window_s)), (x + 0.2, u), (FONT, 12))])?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font((FONT, 13))
            .draw()?;
        root.present()?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(low: u32, high: u32, count: u64) -> BinRate {
        BinRate { low, high, count, rate_per_s: count as f64 }
    }

    #[test]
    fn one_bar_per_non_empty_bin() {
        // Bins 0, 1, 2-3 with codewords; bin 4-15 empty: three bars.
        let h = FecHistogram { bins: vec![bin(0, 0, 1_000_000), bin(1, 1, 5_000), bin(2, 3, 7), bin(4, 15, 0)], ..Default::default() };
        let svg = histogram("ens3np0", &h, None).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let bars = doc.descendants().filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#0072B2")).count();
        assert_eq!(bars, 3, "{svg}");
        assert!(matches!(histogram("ens3np0", &FecHistogram::default(), None), Err(PlotError::NoData(_))));
    }
}
