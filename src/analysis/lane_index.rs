//! A module's lane reports looked up by lane number, per window: decodes list lane n at
//! index n - 1 (lanes 1..=N in order), and a judge asks for every lane of every window,
//! so where the whole list is in that order a lane is found by its index, not searched.

use crate::module::report::LaneReport;

/// `lanes` (a window's module lanes), with whether lane n is at index n - 1 throughout.
#[derive(Clone, Copy)]
pub struct LaneIndex<'a> {
    lanes: &'a [LaneReport],
    in_order: bool,
}

impl<'a> LaneIndex<'a> {
    pub fn new(lanes: &'a [LaneReport]) -> Self {
        let in_order = lanes.iter().enumerate().all(|(i, l)| usize::from(l.lane) == i + 1);
        LaneIndex { lanes, in_order }
    }

    /// The first lane report numbered `lane`, as `iter().find` gives it.
    pub fn get(&self, lane: u8) -> Option<&'a LaneReport> {
        if self.in_order {
            // In order, lane numbers are distinct: the one at `lane - 1` is the only one.
            usize::from(lane).checked_sub(1).and_then(|i| self.lanes.get(i))
        } else {
            self.lanes.iter().find(|l| l.lane == lane)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
