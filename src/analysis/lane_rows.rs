//! What a CSV lane row shows of a window, judged exactly as [`super::analyze`]
//! judges it, without what a row never shows: the shared measuring step
//! (`measure`), then only the judges that set lane flags, in
//! `analyze`'s order (module flags, `fec_hiding` and `low_margin`, then
//! `ber_over_fec_limit`, then `weak_transmitter`), and the window's worth as far as it
//! clears counts without an interval (its `insufficient_data` reason is not worded). PCIe,
//! trend, lane-group and histogram judges (the histogram is analysed for the frame loss
//! figures only), ranking, the verdict and the rx/BER fit (it
//! only words reasons and evidence) are skipped: none of them touches a lane's flags or
//! figures. Reasons are still worded by the judges that run, then dropped; without
//! lanes, the lane judges do not run at all.

use super::*;

/// One window's figures as its rows show them.
#[derive(Clone, Debug, PartialEq)]
pub struct RowFigures {
    /// Port counts over the window (`None` without an interval, as in `analyze`); no
    /// `counter_sources` or `link_mode` (`analyze` names them, rows do not).
    pub link: LinkAnalysis,
    /// Lanes in lane order, flags set.
    pub lanes: Vec<LaneAnalysis>,
    /// The window's frame loss, observed and predicted from its histogram (when it has
    /// bins), as `analyze` gives it; `None` without an RS FEC.
    pub frame_loss: Option<frame_loss::FrameLoss>,
}

/// The row figures of `w` analysed alone (no peer; breakout lane map from `w` itself), as
/// `analyze(&[w], cfg, &[])` gives them.
pub fn row_figures(w: &InterfaceWindow, cfg: &Config) -> RowFigures {
    row_figures_reusing(w, cfg, Vec::new())
}

/// [`row_figures`] with the lanes in `spare` (its lanes are replaced; give back the last
/// figures' `lanes`): one allocation for every window of a run.
pub fn row_figures_reusing(w: &InterfaceWindow, cfg: &Config, spare: Vec<LaneAnalysis>) -> RowFigures {
    let map = breakout::lane_map_alone(w);
    let mut notes = Vec::new();
    let view = breakout::window_for(w, &map, &mut notes);
    let (cx, mut link, mut lanes) = measure(&view, cfg, &map, notes, spare);
    // These judges change nothing but lanes and reasons (rows drop the reasons): a
    // window without lanes (no module monitors, no per-lane FEC counters) skips them.
    if !lanes.is_empty() {
        let mut reasons = Vec::new();
        judge_lanes(&cx, &link, &mut lanes, None, None, &mut reasons);
        limits::fec_limit_reasons(&cx, &link, &mut lanes, &mut reasons);
        transmitter::judge_transmitters(cx.w, &cx.cfg, None, &mut lanes, &mut reasons);
    }
    limits::clear_uncounted(&cx, &mut link, &mut lanes);
    let histogram = histogram::of_window(&cx);
    let frame_loss = frame_loss::of_window(&cx, &link, histogram.as_ref());
    RowFigures { link, lanes, frame_loss }
}
