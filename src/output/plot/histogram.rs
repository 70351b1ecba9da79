//! The FEC histogram (kernel 6.18 ethtool FEC stats): codewords by how many symbol errors
//! each needed corrected, on a log count axis. Past the code's correction capability
//! (t = 15 for RS(544,514)) a codeword is uncorrectable.

use super::{PlotError, FONT, SIZE};
use crate::counters::FecHistogramBin;
use crate::output::text::escape;
use plotters::prelude::*;

pub fn histogram(interface: &str, bins: &[FecHistogramBin]) -> Result<String, PlotError> {
    let bins: Vec<&FecHistogramBin> = bins.iter().filter(|b| b.high >= b.low).collect();
    if bins.is_empty() {
        return Err(PlotError::NoData(format!(
            "{}: the capture has no FEC histogram (kernel 6.18+ and a driver that fills it)",
            escape(interface)
        )));
    }
    let xmax = bins.iter().map(|b| b.high).max().unwrap_or(0) + 1;
    let cmax = bins.iter().map(|b| b.count).max().unwrap_or(0).max(1) as f64 * 3.0;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{}: FEC histogram", escape(interface)), (FONT, 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(0f64..f64::from(xmax), (0.5f64..cmax).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("symbol errors per codeword (bin)")
            .y_desc("codewords")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .label_style((FONT, 13))
            .draw()?;
        let blue = RGBColor(0, 114, 178);
        chart.draw_series(
            bins.iter()
                .filter(|b| b.count > 0)
                .map(|b| Rectangle::new([(f64::from(b.low), 0.5), (f64::from(b.high) + 0.9, b.count as f64)], blue.filled())),
        )?;
        root.present()?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(low: u32, high: u32, count: u64) -> FecHistogramBin {
        FecHistogramBin { low, high, count, per_lane: vec![] }
    }

    #[test]
    fn one_bar_per_non_empty_bin() {
        // Bins 0, 1, 2-3 with codewords; bin 4-15 empty: three bars.
        let svg = histogram("ens3np0", &[bin(0, 0, 1_000_000), bin(1, 1, 5_000), bin(2, 3, 7), bin(4, 15, 0)]).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let bars = doc.descendants().filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#0072B2")).count();
        assert_eq!(bars, 3, "{svg}");
        assert!(matches!(histogram("ens3np0", &[]), Err(PlotError::NoData(_))));
    }
}
