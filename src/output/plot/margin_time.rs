//! Margin to the FEC limit over time, per lane, from the buckets of the engine's bounded
//! per-lane series (`analysis::series_margin`); the margin floor as a line, link drops and
//! segment breaks (module swaps, counter resets) as marked verticals, and the part of the
//! run the verdict judges shaded when a break split the run. The time axis is in seconds,
//! minutes or hours, whichever the run's length reads best in.

use super::{lane_color, span, PlotError, FONT, LIMIT_COLOR, SIZE};
use crate::analysis::trend::MarginPoint;
use crate::output::text::escape;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// One interface's per-lane margin over time and what marks the run, as `plot margin-over-time` draws it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MarginSeries {
    /// The interface's name, as the title gives it.
    pub interface: String,
    /// Per lane, the margin of each series bucket at its mid time (the trend analysis's points).
    pub lanes: BTreeMap<u8, Vec<MarginPoint>>,
    /// (t, what): segment breaks (counter resets, module swaps) and other capture events.
    pub events: Vec<(f64, String)>,
    /// Times of the link drops the counters or the samples saw.
    pub link_drops_t_s: Vec<f64>,
    /// The part of the run the verdict judges (the last segment), when breaks split it.
    pub judged_t_s: Option<(f64, f64)>,
    /// The margin floor in dB (`margin_floor_db` of the configuration), drawn as a line.
    pub floor_db: f64,
}

/// Colour of the link-drop marks (a dark red, apart from the limit's and the lanes').
const DROP_COLOR: RGBColor = RGBColor(140, 0, 60);
/// Fill of the judged window.
const JUDGED_COLOR: RGBColor = RGBColor(255, 236, 179);

/// The time axis unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimeUnit {
    Seconds,
    Minutes,
    Hours,
}

impl TimeUnit {
    /// Seconds up to 2 min, minutes up to 2 h, hours beyond: tick labels stay short
    /// numbers ("14000.0 s" is 3.9 h).
    fn for_span(span_s: f64) -> Self {
        if span_s > 2.0 * 3600.0 {
            TimeUnit::Hours
        } else if span_s > 120.0 {
            TimeUnit::Minutes
        } else {
            TimeUnit::Seconds
        }
    }

    fn seconds(self) -> f64 {
        match self {
            TimeUnit::Seconds => 1.0,
            TimeUnit::Minutes => 60.0,
            TimeUnit::Hours => 3600.0,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Seconds => "s",
            TimeUnit::Minutes => "min",
            TimeUnit::Hours => "h",
        }
    }
}

/// SVG of the margin to the FEC limit over time per lane, with the floor, link drops, segment breaks and the judged part.
pub fn margin_over_time(s: &MarginSeries) -> Result<String, PlotError> {
    let all = || s.lanes.values().flatten();
    if all().next().is_none() {
        return Err(PlotError::NoData(format!("{}: no interval has a per-lane margin", escape(&s.interface))));
    }
    let ts = all().map(|p| p.t_s).chain(s.events.iter().map(|e| e.0)).chain(s.link_drops_t_s.iter().copied());
    let (t0, t1) = ts.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), t| (a.min(t), b.max(t)));
    let unit = TimeUnit::for_span(t1 - t0);
    let u = unit.seconds();
    let (t0, t1) = span(t0 / u, t1 / u, (t1 - t0) / u * 0.02 + 0.5 / u);
    let ms = all().map(|p| p.margin_db).chain([s.floor_db, 0.0]);
    let (m0, m1) = ms.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), m| (a.min(m), b.max(m)));
    let (m0, m1) = span(m0, m1, 0.3);

    // Whole numbers of the unit, unless the axis spans fewer than ten of them.
    let decimals = if t1 - t0 < 10.0 { 1 } else { 0 };
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
        chart
            .configure_mesh()
            .x_desc(format!("time since capture start ({})", unit.symbol()))
            .y_desc("margin (dB)")
            .x_label_formatter(&|v| format!("{v:.decimals$}"))
            .label_style((FONT, 13))
            .draw()?;
        if let Some((a, b)) = s.judged_t_s {
            chart
                .draw_series([Rectangle::new([(a / u, m0), (b / u, m1)], JUDGED_COLOR.mix(0.6).filled())])?
                .label("window the verdict judges")
                .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], JUDGED_COLOR.filled()));
        }
        chart
            .draw_series(LineSeries::new(vec![(t0, s.floor_db), (t1, s.floor_db)], LIMIT_COLOR.stroke_width(2)))?
            .label(format!("margin floor {:.1} dB", s.floor_db))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], LIMIT_COLOR.stroke_width(2)));
        for (t, what) in &s.events {
            chart.draw_series([
                PathElement::new(vec![(*t / u, m0), (*t / u, m1)], BLACK.mix(0.6).stroke_width(1)).into_dyn(),
                Text::new(format!(" {}", escape(what)), (*t / u, m1), (FONT, 12)).into_dyn(),
            ])?;
        }
        if !s.link_drops_t_s.is_empty() {
            let n = s.link_drops_t_s.len();
            chart
                .draw_series(
                    s.link_drops_t_s.iter().map(|t| PathElement::new(vec![(*t / u, m0), (*t / u, m1)], DROP_COLOR.stroke_width(2))),
                )?
                .label(format!("link down ({n} drop{})", if n == 1 { "" } else { "s" }))
                .legend(|(x, y)| PathElement::new(vec![(x + 10, y - 6), (x + 10, y + 6)], DROP_COLOR.stroke_width(2)));
        }
        for (&lane, points) in &s.lanes {
            let c = lane_color(lane);
            let pts: Vec<(f64, f64)> = points.iter().map(|p| (p.t_s, p.margin_db)).collect();
            // A segment break (module swap, counter reset) is not a trend: the line stops there.
            let runs = pts.chunk_by(|a, b| !s.events.iter().any(|(t, _)| *t > a.0 && *t <= b.0));
            chart
                .draw_series(runs.map(|run| PathElement::new(run.iter().map(|(t, m)| (t / u, *m)).collect::<Vec<_>>(), c.stroke_width(2))))?
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_unit_follows_the_run_length() {
        assert_eq!(TimeUnit::for_span(60.0), TimeUnit::Seconds);
        assert_eq!(TimeUnit::for_span(120.0), TimeUnit::Seconds);
        assert_eq!(TimeUnit::for_span(1200.0), TimeUnit::Minutes);
        // 14000 s = 3.9 h.
        assert_eq!(TimeUnit::for_span(14000.0), TimeUnit::Hours);
    }
}
