//! Pre-FEC BER against rx power: one point per lane that has a BER from any source, the
//! FEC limit as a line, and the least-squares fit of log10 BER on dBm (the PAM4 signature).
//! Lanes the NIC counts are circles with their confidence interval; lanes whose BER is the
//! module's own VDM estimate (CMIS 5.2 Table 8-167, no count behind it, so no interval)
//! are triangles, and their labels say so.

use super::{lane_color, span, PlotError, FONT, LIMIT_COLOR, SIZE};
use crate::analysis::outlier::fit_points;
use crate::analysis::stats::line_fit;
use crate::analysis::vdm_lanes::BerSource;
use crate::analysis::InterfaceAnalysis;
use crate::output::text::escape;
use plotters::prelude::*;

/// One drawn lane.
struct Point {
    lane: u8,
    rx_dbm: f64,
    /// The BER, or its upper bound when no error was counted.
    ber: f64,
    /// The confidence interval, where the BER is a count (not a module estimate).
    interval: Option<(f64, f64)>,
    zero_errors: bool,
    vdm: bool,
}

impl Point {
    fn label(&self) -> String {
        let source = if self.vdm { " (VDM)" } else { "" };
        format!("lane {}{source}", self.lane)
    }
}

fn points(a: &InterfaceAnalysis) -> Vec<Point> {
    a.lanes
        .iter()
        .filter_map(|l| {
            let rx_dbm = l.rx_power_dbm.filter(|v| v.is_finite())?;
            let vdm = l.ber_source == Some(BerSource::Vdm);
            let zero_errors = l.corrected_bits == Some(0);
            let upper = l.pre_fec_ber_upper.filter(|v| *v > 0.0);
            let ber = if zero_errors { upper? } else { l.pre_fec_ber.filter(|v| *v > 0.0)? };
            let interval = upper.map(|hi| (l.pre_fec_ber_lower.filter(|v| *v > 0.0).unwrap_or(ber / 10.0), hi));
            Some(Point { lane: l.lane, rx_dbm, ber, interval, zero_errors, vdm })
        })
        .collect()
}

/// SVG of each lane's pre-FEC BER (with its Poisson bounds) against its rx power in dBm, with the FEC limit as a line.
pub fn ber_vs_rx(a: &InterfaceAnalysis) -> Result<String, PlotError> {
    let pts = points(a);
    if pts.is_empty() {
        return Err(PlotError::NoData(format!("{}: no lane has both an rx power and a pre-FEC BER", escape(&a.interface))));
    }
    let limit = a.link.fec_limit_ber;
    let rx = || pts.iter().map(|p| p.rx_dbm);
    let (x0, x1) = span(rx().fold(f64::INFINITY, f64::min), rx().fold(f64::NEG_INFINITY, f64::max), 0.3);
    let ylo = pts.iter().map(|p| p.interval.map_or(p.ber, |i| i.0)).fold(f64::INFINITY, f64::min) / 3.0;
    let yhi = pts.iter().map(|p| p.interval.map_or(p.ber, |i| i.1)).chain(limit).fold(0.0, f64::max) * 3.0;

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let title = format!("{}: pre-FEC BER vs rx power", escape(&a.interface));
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(x0..x1, (ylo..yhi).log_scale())?;
        chart
            .configure_mesh()
            .x_desc("rx power (dBm)")
            .y_desc("pre-FEC BER")
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .x_label_formatter(&|v| format!("{v:.1}"))
            .label_style((FONT, 13))
            .draw()?;
        if let Some(lim) = limit {
            let name = a.link.fec.map(|f| f.name()).unwrap_or("FEC");
            chart
                .draw_series(LineSeries::new(vec![(x0, lim), (x1, lim)], LIMIT_COLOR.stroke_width(2)))?
                .label(format!("{name} limit {lim:.1e}"))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LIMIT_COLOR.stroke_width(2)));
        }
        // The fit the verdict quotes: over the lanes with counted errors (analysis::outlier).
        if let Some(f) = line_fit(&fit_points(&a.lanes)) {
            let line: Vec<(f64, f64)> =
                (0..=20).map(|i| x0 + (x1 - x0) * f64::from(i) / 20.0).map(|x| (x, 10f64.powf(f.intercept + f.slope * x))).collect();
            let line: Vec<(f64, f64)> = line.into_iter().filter(|(_, y)| *y >= ylo && *y <= yhi).collect();
            let counted = if f.n == 1 { "counted lane" } else { "counted lanes" };
            chart
                .draw_series(LineSeries::new(line, BLACK.mix(0.5).stroke_width(1)))?
                .label(format!("fit {:.1} decades/dB over {} {counted}", f.slope, f.n))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5)));
        }
        for p in &pts {
            let c = lane_color(p.lane);
            let (x, y) = (p.rx_dbm, p.ber);
            let mut marks: Vec<DynElement<_, (f64, f64)>> = Vec::new();
            if let Some((lo, hi)) = p.interval {
                marks.push(PathElement::new(vec![(x, lo), (x, hi)], c.stroke_width(2)).into_dyn());
            }
            if p.vdm {
                marks.push(TriangleMarker::new((x, y), 7, c.filled()).into_dyn());
            } else {
                let style = if p.zero_errors { c.stroke_width(2) } else { c.filled() };
                marks.push(Circle::new((x, y), 5, style).into_dyn());
            }
            let vdm = p.vdm;
            chart.draw_series(marks)?.label(p.label()).legend(move |(x, y)| {
                if vdm {
                    TriangleMarker::new((x + 10, y), 5, c.filled()).into_dyn()
                } else {
                    Circle::new((x + 10, y), 4, c.filled()).into_dyn()
                }
            });
            let text = format!("{}{}", p.label(), if p.zero_errors { " (0 errors: upper bound)" } else { "" });
            chart.plotting_area().draw(&(EmptyElement::at((x, y)) + Text::new(text, (8, -18), (FONT, 13).into_font().color(&c))))?;
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.9)).border_style(BLACK).label_font((FONT, 13)).draw()?;
        root.present()?;
    }
    Ok(svg)
}
