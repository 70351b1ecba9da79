//! SVG plots (plotters' SVG backend: `<text>` elements, no system fonts): pre-FEC BER
//! against rx power per lane, margin over time per lane, the FEC histogram.

mod ber_vs_rx;
mod histogram;
mod margin_time;

pub use ber_vs_rx::ber_vs_rx;
pub use histogram::histogram;
pub use margin_time::{margin_over_time, MarginSeries};

use plotters::style::RGBColor;
use thiserror::Error;

/// Why a plot was not drawn.
#[derive(Debug, Error)]
pub enum PlotError {
    /// The input holds none of the figures this plot draws (the message says which).
    #[error("nothing to plot: {0}")]
    NoData(String),
    /// The SVG backend failed (plotters' message).
    #[error("drawing the plot: {0}")]
    Draw(String),
}

impl<E: std::error::Error + Send + Sync> From<plotters::drawing::DrawingAreaErrorKind<E>> for PlotError {
    fn from(e: plotters::drawing::DrawingAreaErrorKind<E>) -> Self {
        PlotError::Draw(e.to_string())
    }
}

pub(crate) const SIZE: (u32, u32) = (900, 560);
pub(crate) const FONT: &str = "sans-serif";

/// Lane colours (Okabe-Ito, distinguishable with the common colour-vision deficiencies).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(230, 159, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
    RGBColor(213, 94, 0),
    RGBColor(120, 120, 120),
    RGBColor(0, 0, 0),
];

pub(crate) fn lane_color(lane: u8) -> RGBColor {
    PALETTE[usize::from(lane.saturating_sub(1)) % PALETTE.len()]
}

pub(crate) const LIMIT_COLOR: RGBColor = RGBColor(200, 0, 0);

/// `lo..hi` padded on both sides, so a single value or a flat series still spans something.
fn span(lo: f64, hi: f64, pad: f64) -> (f64, f64) {
    (lo - pad, hi + pad)
}
