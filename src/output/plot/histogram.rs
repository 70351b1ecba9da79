//! The FEC histogram (kernel 6.18 ethtool FEC stats) as the analysis judged it
//! (`analysis::histogram`): codewords by how many symbol errors each needed corrected, on a
//! log axis, with the correction limit t (RS(544,514) t = 15, IEEE 802.3 91.5.2.1), the
//! fitted tail extrapolated past t, and the prediction the verdict quotes. Past t a
//! codeword is uncorrectable.

use super::{PlotError, FONT, LIMIT_COLOR, SIZE};
use crate::analysis::histogram::{rate_text, BinRate, FecHistogram};
use crate::output::text::escape;
use plotters::prelude::*;

/// The bars' colour.
pub const BAR_COLOR: RGBColor = RGBColor(0, 114, 178);
/// The fitted tail's colour.
pub const FIT_COLOR: RGBColor = RGBColor(213, 94, 0);

/// Codewords per symbol-error value: a bin of several values (netdevsim's 4-7) is spread
/// over them, as the tail fit weighs it.
fn density(b: &BinRate) -> f64 {
    b.count as f64 / f64::from(b.high.saturating_sub(b.low) + 1)
}

/// Symbol-error values the extrapolated tail is drawn past t.
const EXTRAPOLATED_SYMBOLS: u32 = 3;

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
    // The fitted tail: log10 density = intercept + slope x symbol errors, from the first
    // bin above the peak to t, then extrapolated.
    let fit = h.tail_intercept_log10.zip(h.tail_slope_log10_per_symbol).zip(t);
    let peak_high = bins.iter().filter(|b| b.count > 0).max_by(|a, b| density(a).total_cmp(&density(b)).then(b.low.cmp(&a.low)));
    let fit_line = |from: u32, to: u32| -> Vec<(f64, f64)> {
        let Some(((c, m), _)) = fit else { return Vec::new() };
        (from..=to).map(|x| (f64::from(x) + 0.45, 10f64.powf(c + m * f64::from(x)))).collect()
    };
    let (fitted, extrapolated) = match (fit, peak_high) {
        (Some((_, t)), Some(p)) => (fit_line(p.high + 1, t), fit_line(t, t + EXTRAPOLATED_SYMBOLS)),
        _ => (Vec::new(), Vec::new()),
    };
    let xmax = bins.iter().map(|b| b.high).chain(t.map(|t| t + EXTRAPOLATED_SYMBOLS)).max().unwrap_or(0) + 1;
    let cmax = bins.iter().map(|b| density(b)).fold(1.0, f64::max) * 3.0;
    let cmin = extrapolated.iter().map(|p| p.1).fold(0.5, f64::min) / 3.0;

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
        if !fitted.is_empty() || !extrapolated.is_empty() {
            let r2 = h.fit_r2.map(|r| format!(" (R² {r:.2})")).unwrap_or_default();
            let prediction = match (h.predicted_uncorrectable_per_s, h.predicted_flr) {
                (Some(u), Some(f)) => format!(": predicts {} uncorrectable codewords/s, frame loss ratio {f:.1e}", rate_text(u)),
                (Some(u), None) => format!(": predicts {} uncorrectable codewords/s", rate_text(u)),
                _ => String::new(),
            };
            chart
                .draw_series(LineSeries::new(fitted, FIT_COLOR.stroke_width(2)))?
                .label(format!("tail fit over {} bins{r2}{prediction}", h.bins_used))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], FIT_COLOR.stroke_width(2)));
            chart.draw_series(DashedLineSeries::new(extrapolated, 6, 4, FIT_COLOR.stroke_width(2)))?;
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
