//! What a lane row shows of one interval, judged exactly as [`super::analyze`] judges the
//! interval's window, without what a row never shows: the shared measuring step
//! (`measure`), then only the judges that set lane flags, in `analyze`'s order (module
//! flags, `fec_hiding` and `low_margin`, then `ber_over_fec_limit`, then
//! `weak_transmitter`), and the window's worth as far as it clears counts without an
//! interval (its `insufficient_data` reason is not worded). PCIe, trend, lane-group and
//! histogram judges (the histogram is analysed for the frame loss figures only), ranking,
//! the verdict and the rx/BER fit (it only words reasons and evidence) are skipped: none
//! of them touches a lane's flags or figures. Reasons are
//! still worded by the judges that run, then dropped; without lanes, the lane judges do
//! not run at all.
//!
//! The interval stage (`sample::intervals`) works these figures out once per interval
//! and hands them, as a [`LaneInterval`], to every [`IntervalSink`]: the CSV rows and the
//! live table only format them.

use super::*;

/// One window's figures as its rows show them.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct RowFigures {
    /// Port counts over the window (`None` without an interval, as in `analyze`); no
    /// `counter_sources` or `link_mode` (`analyze` names them, rows do not).
    pub(crate) link: LinkAnalysis,
    /// Lanes in lane order, flags set.
    pub(crate) lanes: Vec<LaneAnalysis>,
    /// The window's frame loss, observed and predicted from its histogram (when it has
    /// bins), as `analyze` gives it; `None` without an RS FEC.
    pub(crate) frame_loss: Option<frame_loss::FrameLoss>,
    /// Pause frames and receive discards over the window, as rates (`host`); `None`
    /// without an interval or such counters.
    pub(crate) pause_discards: Option<host::PauseDiscards>,
    /// An InfiniBand port's counts over the window (`infiniband`); `None` without an
    /// interval or for other ports.
    pub(crate) infiniband: Option<infiniband::IbAnalysis>,
}

impl RowFigures {
    /// The row figures of `w` analysed alone (no peer; breakout lane map from `w`
    /// itself), as `analyze(&[w], cfg, &[])` gives them. The lanes are refilled in place
    /// (one allocation for every interval of a run).
    pub(crate) fn refill(&mut self, w: &InterfaceWindow, cfg: &Config) {
        let map = breakout::lane_map_alone(w);
        let mut notes = Vec::new();
        let view = breakout::window_for(w, &map, &mut notes);
        let (cx, mut link, mut lanes) = measure(&view, cfg, &map, notes, std::mem::take(&mut self.lanes));
        // These judges change nothing but lanes and reasons (rows drop the reasons): a
        // window without lanes (no module monitors, no per-lane FEC counters) skips them.
        if !lanes.is_empty() {
            let mut reasons = Vec::new();
            judge_lanes(&cx, &link, &mut lanes, None, None, &mut reasons);
            limits::fec_limit_reasons(&cx, &link, &mut lanes, &mut reasons);
            transmitter::judge_transmitters(&cx, None, &mut lanes, &mut reasons);
        }
        limits::clear_uncounted(&cx, &mut link, &mut lanes);
        let histogram = histogram::of_window(&cx);
        self.frame_loss = frame_loss::of_window(&cx, &link, histogram.as_ref());
        self.pause_discards = host::PauseDiscards::of(w);
        self.infiniband = infiniband::IbAnalysis::of_interval(w);
        self.link = link;
        self.lanes = lanes;
    }
}

/// The row figures of `w` ([`RowFigures::refill`] into fresh figures).
#[cfg(test)]
pub(crate) fn row_figures(w: &InterfaceWindow, cfg: &Config) -> RowFigures {
    let mut f = RowFigures::default();
    f.refill(w, cfg);
    f
}

/// One interval of one interface, closed by a sample, with its lane figures: what the
/// interval stage hands every [`IntervalSink`].
#[derive(Clone, Copy, Debug)]
pub struct LaneInterval<'a> {
    /// The closing sample's time (seconds since capture start).
    pub(crate) t: f64,
    /// The first sample of the interface (or the first since its interface record) alone:
    /// no interval yet, so no deltas, BER or margin.
    pub(crate) first: bool,
    /// The window over the interval (its module decoded at the closing sample).
    pub(crate) window: &'a InterfaceWindow,
    pub(crate) figures: &'a RowFigures,
}

/// What takes the interval stage's figures: the CSV rows, the live table. It also takes
/// the records themselves (as a `capture::RecordSink`) for what is not an interval: the
/// capture header, events.
pub trait IntervalSink {
    /// Takes one interval's lane figures; `iv.first` is the interface's first interval.
    fn interval(&mut self, iv: &LaneInterval<'_>) -> std::io::Result<()>;
}
