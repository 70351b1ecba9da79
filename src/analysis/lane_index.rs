//! A module's lane reports looked up by lane number, per window: decodes list lane n at
//! index n - 1 (lanes 1..=N in order), and a judge asks for every lane of every window,
//! so where the whole list is in that order a lane is found by its index, not searched.
//! And lane numbers as notes name them (`lane_list`).

use crate::module::report::LaneReport;

/// `lanes` (a window's module lanes), with whether lane n is at index n - 1 throughout.
#[derive(Clone, Copy)]
pub(crate) struct LaneIndex<'a> {
    lanes: &'a [LaneReport],
    in_order: bool,
}

impl<'a> LaneIndex<'a> {
    pub(crate) fn new(lanes: &'a [LaneReport]) -> Self {
        let in_order = lanes.iter().enumerate().all(|(i, l)| usize::from(l.lane) == i + 1);
        LaneIndex { lanes, in_order }
    }

    /// The first lane report numbered `lane`, as `iter().find` gives it.
    pub(crate) fn get(&self, lane: u8) -> Option<&'a LaneReport> {
        if self.in_order {
            // In order, lane numbers are distinct: the one at `lane - 1` is the only one.
            usize::from(lane).checked_sub(1).and_then(|i| self.lanes.get(i))
        } else {
            self.lanes.iter().find(|l| l.lane == lane)
        }
    }
}

/// "1-4", "5, 7": compact lane lists for notes.
pub(super) fn lane_list(lanes: &[u8]) -> String {
    let contiguous = lanes.windows(2).all(|w| w[1] == w[0] + 1);
    match (lanes.first(), lanes.last()) {
        (Some(a), Some(b)) if contiguous && lanes.len() > 2 => format!("{a}-{b}"),
        _ => lanes.iter().map(u8::to_string).collect::<Vec<_>>().join(", "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_lists() {
        assert_eq!(lane_list(&[5, 6, 7, 8]), "5-8");
        assert_eq!(lane_list(&[5, 7]), "5, 7");
        assert_eq!(lane_list(&[3]), "3");
    }

    #[test]
    fn finds_what_a_search_finds() {
        let lanes =
            |ns: &[u8]| ns.iter().map(|n| LaneReport { tx_bias_ma: Some(f64::from(*n)), ..LaneReport::new(*n) }).collect::<Vec<_>>();
        // In order, a breakout's subset, out of order, duplicated (the first one counts), lane 0.
        for ns in [&[1, 2, 3, 4][..], &[], &[5, 6], &[2, 1], &[1, 1], &[2, 2], &[0, 1], &[1, 3]] {
            let ls = lanes(ns);
            let ix = LaneIndex::new(&ls);
            for n in 0..=8u8 {
                let want = ls.iter().position(|l| l.lane == n);
                let got = ix.get(n).map(std::ptr::from_ref);
                assert_eq!(got, want.map(|i| std::ptr::from_ref(&ls[i])), "{ns:?} lane {n}");
            }
        }
    }
}
