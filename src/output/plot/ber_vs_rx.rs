//! Pre-FEC BER against rx power: one point per lane with its confidence interval, the FEC
//! limit as a line, and the least-squares fit of log10 BER on dBm (the PAM4 signature).

use super::{lane_color, span, PlotError, FONT, LIMIT_COLOR, SIZE};
use crate::analysis::outlier::fit_points;
use crate::analysis::stats::line_fit;
use crate::analysis::InterfaceAnalysis;
use crate::output::text::escape;
use plotters::prelude::*;

pub fn ber_vs_rx(a: &InterfaceAnalysis) -> Result<String, PlotError> {
    // (lane, rx dBm, BER or its upper bound, lower, upper, zero errors)
    let pts: Vec<(u8, f64, f64, f64, f64, bool)> = a
        .lanes
        .iter()
        .filter_map(|l| {
            let rx = l.rx_power_dbm.filter(|v| v.is_finite())?;
            let upper = l.pre_fec_ber_upper.filter(|v| *v > 0.0)?;
            let zero = l.corrected_bits == Some(0);
            let y = if zero { upper } else { l.pre_fec_ber.filter(|v| *v > 0.0)? };
            let lower = l.pre_fec_ber_lower.filter(|v| *v > 0.0).unwrap_or(y / 10.0);
            Some((l.lane, rx, y, lower, upper, zero))
        })
        .collect();
    if pts.is_empty() {
        return Err(PlotError::NoData(format!("{}: no lane has both an rx power and a pre-FEC BER", escape(&a.interface))));
    }
    let limit = a.link.fec_limit_ber;
    let (x0, x1) =
        span(pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min), pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max), 0.3);
    let ylo = pts.iter().map(|p| p.3).fold(f64::INFINITY, f64::min) / 3.0;
    let yhi = pts.iter().map(|p| p.4).chain(limit).fold(0.0, f64::max) * 3.0;

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
        let fit = line_fit(&fit_points(&a.lanes));
        if let Some(f) = fit {
            let line: Vec<(f64, f64)> =
                (0..=20).map(|i| x0 + (x1 - x0) * f64::from(i) / 20.0).map(|x| (x, 10f64.powf(f.intercept + f.slope * x))).collect();
            let line: Vec<(f64, f64)> = line.into_iter().filter(|(_, y)| *y >= ylo && *y <= yhi).collect();
            chart
                .draw_series(LineSeries::new(line, BLACK.mix(0.5).stroke_width(1)))?
                .label(format!("fit {:.1} decades/dB over {} lanes", f.slope, f.n))
                .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5)));
        }
        for &(lane, rx, y, lo, hi, zero) in &pts {
            let c = lane_color(lane);
            let style = if zero { c.stroke_width(2) } else { c.filled() };
            chart
                .draw_series([
                    PathElement::new(vec![(rx, lo), (rx, hi)], c.stroke_width(2)).into_dyn(),
                    Circle::new((rx, y), 5, style).into_dyn(),
                ])?
                .label(format!("lane {lane}"))
                .legend(move |(x, y)| Circle::new((x + 10, y), 4, c.filled()));
            let text = format!("lane {lane}{}", if zero { " (0 errors: upper bound)" } else { "" });
            chart.plotting_area().draw(&(EmptyElement::at((rx, y)) + Text::new(text, (8, -18), (FONT, 13).into_font().color(&c))))?;
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.9)).border_style(BLACK).label_font((FONT, 13)).draw()?;
        root.present()?;
    }
    Ok(svg)
}
