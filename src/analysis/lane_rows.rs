//! What a CSV lane row shows of a window, judged exactly as [`analyze`](super::analyze)
//! judges it, without what a row never shows: the shared measuring step
//! ([`measure`](super::measure)), then only the judges that set lane flags, in
//! `analyze`'s order (module flags, `fec_hiding` and `low_margin`, then
//! `ber_over_fec_limit`, then `weak_transmitter`), and the window's worth (which clears
//! counts without an interval). PCIe, trend, lane-group and histogram judges, ranking,
//! the verdict and the rx/BER fit (it only words reasons and evidence) are skipped: none
//! of them touches a lane's flags or figures. Reasons are still worded by the judges that
//! run, then dropped.

use super::*;

/// One window's figures as its rows show them.
#[derive(Clone, Debug, PartialEq)]
pub struct RowFigures {
    /// Port counts over the window (`None` without an interval, as in `analyze`).
    pub link: LinkAnalysis,
    /// Lanes in lane order, flags set.
    pub lanes: Vec<LaneAnalysis>,
}

/// The row figures of `w` analysed alone (no peer; breakout lane map from `w` itself), as
/// `analyze(&[w], cfg, &[])` gives them.
pub fn row_figures(w: &InterfaceWindow, cfg: &Config) -> RowFigures {
    let maps = breakout::lane_maps(std::slice::from_ref(w));
    let map = maps.first().unwrap_or(&breakout::Mapping::Identity);
    let mut notes = Vec::new();
    let view = breakout::window_for(w, map, &mut notes);
    let (cx, mut link, mut lanes) = measure(&view, cfg, map, notes);
    let mut reasons = Vec::new();
    judge_lanes(&cx, &link, &mut lanes, None, None, &mut reasons);
    limits::fec_limit_reasons(&cx, &link, &mut lanes, &mut reasons);
    transmitter::judge_transmitters(cx.w, &cx.cfg, &mut lanes, &mut reasons);
    limits::window_worth(&cx, &mut link, &mut lanes, &mut reasons);
    RowFigures { link, lanes }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample::capture::read_capture;
    use crate::sample::intervals::IntervalWalker;

    /// The figures a row shows, from either path.
    type Shown =
        (Option<u64>, Option<u64>, Vec<(u8, Option<u8>, Option<u64>, [Option<u64>; 7], Vec<&'static str>, Option<vdm_lanes::BerSource>)>);

    fn shown(link: &LinkAnalysis, lanes: &[LaneAnalysis]) -> Shown {
        let mut lanes: Vec<&LaneAnalysis> = lanes.iter().collect();
        lanes.sort_by_key(|l| l.lane);
        let l = lanes
            .iter()
            .map(|l| {
                let f = [l.pre_fec_ber, l.pre_fec_ber_upper, l.margin_db, l.optical_margin_db, l.esnr_db, l.ltp_db, l.module_pre_fec_ber];
                (l.lane, l.module_lane, l.corrected_bits, f.map(|v| v.map(f64::to_bits)), l.flags.clone(), l.ber_source)
            })
            .collect();
        (link.uncorrectable_blocks, link.link_down_events, l)
    }

    #[test]
    fn row_figures_are_analyzes_on_every_bundled_capture() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures"));
        let cfg = Config::default();
        let mut windows = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let cap = read_capture(&path).unwrap();
            let mut walker = IntervalWalker::per_sample();
            for w in cap.records.iter().filter_map(|r| walker.push(r)) {
                let full = analyze(std::slice::from_ref(&w), &cfg, &[]).remove(0);
                let fast = row_figures(&w, &cfg);
                assert_eq!(shown(&fast.link, &fast.lanes), shown(&full.link, &full.lanes), "{} t={}", path.display(), w.duration_s);
                windows += 1;
            }
        }
        assert!(windows > 1000, "{windows}");
    }
}
