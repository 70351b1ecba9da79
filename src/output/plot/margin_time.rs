//! Margin to the FEC limit over time, per lane, from the buckets of the engine's bounded
//! per-lane series (`analysis::series_margin`);
//! the margin floor as a line, segment breaks and events as marked verticals.

use super::{lane_color, span, PlotError, FONT, LIMIT_COLOR, SIZE};
use crate::analysis::trend::MarginPoint;
use crate::output::text::escape;
use plotters::prelude::*;
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarginSeries {
    pub interface: String,
    /// Per lane, the margin of each series bucket at its mid time (the trend analysis's points).
    pub lanes: BTreeMap<u8, Vec<MarginPoint>>,
    /// (t, what): counter resets, module swaps, errors.
    pub events: Vec<(f64, String)>,
    pub floor_db: f64,
}

pub fn margin_over_time(s: &MarginSeries) -> Result<String, PlotError> {
    let all = || s.lanes.values().flatten();
    if all().next().is_none() {
        return Err(PlotError::NoData(format!("{}: no interval has a per-lane margin", escape(&s.interface))));
    }
    let ts = all().map(|p| p.t_s).chain(s.events.iter().map(|e| e.0));
    let (t0, t1) = ts.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| (a.min(t), b.max(t)));
    let (t0, t1) = span(t0, t1, 0.5);
    let ms = all().map(|p| p.margin_db).chain([s.floor_db, 0.0]);
    let (m0, m1) = ms.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), m| (a.min(m), b.max(m)));
    let (m0, m1) = span(m0, m1, 0.3);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(format!("{}: margin to the FEC limit over time", escape(&s.interface)), (FONT, 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(t0..t1, m0..m1)?;
        chart.configure_mesh().x_desc("time since capture start (s)").y_desc("margin (dB)").label_style((FONT, 13)).draw()?;
        chart
            .draw_series(LineSeries::new(vec![(t0, s.floor_db), (t1, s.floor_db)], LIMIT_COLOR.stroke_width(2)))?
            .label(format!("margin floor {:.1} dB", s.floor_db))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LIMIT_COLOR.stroke_width(2)));
        for (t, what) in &s.events {
            chart.draw_series([
                PathElement::new(vec![(*t, m0), (*t, m1)], BLACK.mix(0.6).stroke_width(1)).into_dyn(),
                Text::new(format!(" {}", escape(what)), (*t, m1), (FONT, 12)).into_dyn(),
            ])?;
        }
        for (&lane, points) in &s.lanes {
            let c = lane_color(lane);
            let pts: Vec<(f64, f64)> = points.iter().map(|p| (p.t_s, p.margin_db)).collect();
            // A segment break (module swap, counter reset) is not a trend: the line stops there.
            let runs = pts.chunk_by(|a, b| !s.events.iter().any(|(t, _)| *t > a.0 && *t <= b.0));
            chart
                .draw_series(runs.map(|run| PathElement::new(run.to_vec(), c.stroke_width(2))))?
                .label(format!("lane {lane}"))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font((FONT, 13))
            .draw()?;
        root.present()?;
    }
    Ok(svg)
}
