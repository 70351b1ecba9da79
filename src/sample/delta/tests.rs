use super::*;
use crate::analysis::segments::SegmentReason;
use crate::capture::{InterfaceRecord, ModulePages, Record};
use crate::counters::{FecStats, LinkInfo, LinkState};
use crate::module::fingerprint::fingerprint;
use crate::module::PageEntry;

/// Module fingerprint of an interface record (identifier + vendor SN; `None` = no module),
/// as the engine's `StaticModule` takes it from the record's parsed image.
fn module_identity(r: &InterfaceRecord) -> Option<Vec<u8>> {
    r.module.as_ref().and_then(|m| m.image().ok()).and_then(|img| fingerprint(&img))
}

struct Seg {
    started_by: Option<Break>,
    samples: usize,
    sum: DeltaSum,
}

/// The segments of `records` with their sums, folded the way the engine folds them.
fn segments(records: &[Record]) -> Vec<Seg> {
    let mut seg = Segmenter::default();
    let mut out: Vec<Seg> = Vec::new();
    for r in records {
        match r {
            Record::Interface(ir) => seg.interface(ir.t, module_identity(ir)),
            Record::Sample(s) => {
                let p = Point::from_sample(s);
                let brk = seg.sample(&p, out.last().map(|s| &s.sum));
                if brk.is_some() || out.is_empty() {
                    out.push(Seg { started_by: brk, samples: 0, sum: DeltaSum::default() });
                }
                if let Some(last) = out.last_mut() {
                    last.samples += 1;
                    last.sum.push(&p, &mut PointStep::default());
                }
            }
            _ => {}
        }
    }
    out
}

fn sample(t: f64, bits: Vec<u64>, down: u64) -> Record {
    Record::Sample(SampleRecord {
        t,
        interface: "e0".into(),
        link: LinkState { up: Some(true), down_events: Some(down), ..Default::default() },
        fec: Some(FecStats { corrected_bits: bits, ..Default::default() }),
        driver_stats: Default::default(),
        module: None,
        ..Default::default()
    })
}

fn iface(t: f64, sn: &[u8; 16]) -> Record {
    let mut upper = vec![0u8; 128];
    upper[196 - 128..212 - 128].copy_from_slice(sn);
    let pages = vec![
        PageEntry { i2c_address: 0x50, page: 0, bank: 0, offset: 0, data: vec![0x11; 1] },
        PageEntry { i2c_address: 0x50, page: 0, bank: 0, offset: 128, data: upper },
    ];
    Record::Interface(InterfaceRecord {
        t,
        interface: "e0".into(),
        driver: None,
        bus_info: None,
        pci: None,
        port: None,
        link: LinkInfo::default(),
        module: Some(ModulePages { pages }),
        origin_file: None,
        host: None,
        ib: None,
        neighbor: None,
    })
}

#[test]
fn each_series_is_one_figure_and_the_followed_slots_are_theirs() {
    let figures: Vec<CounterFigure> = SCALARS.iter().map(|s| s.0).chain(LANES.iter().map(|s| s.0)).collect();
    let mut names: Vec<&str> = figures.iter().map(|f| f.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), figures.len());
    assert!(!figures.contains(&CounterFigure::FecHistogram));
    assert_eq!(Slot::Bin(1, 2).figure(), CounterFigure::FecHistogram);
    assert_eq!(
        [CORRECTED_BITS_LANES, LINK_DOWN_EVENTS, RX_BITS].map(|s| s.figure()),
        [CounterFigure::CorrectedBitsPerLane, CounterFigure::LinkDownEvents, CounterFigure::RxBits]
    );
    // The name a reset sentence gives a series, and a histogram bin's.
    assert_eq!((LINK_DOWN_EVENTS.name(), Slot::Bin(3, 5).name()), ("link_down_events".to_string(), "FEC histogram bin 3-5".to_string()));
}

#[test]
fn steps() {
    assert_eq!(step(5, 9), Step::Increase(4));
    // 0xFFFF_FFF0 -> 0x10: 2^32 - 0xFFFF_FFF0 = 16, + 16 = 32.
    assert_eq!(step(0xFFFF_FFF0, 0x10), Step::Wrapped(32));
    // From 1000 down to 5: not near 2^32, so a reset.
    assert_eq!(step(1000, 5), Step::Reset);
    // A 64-bit counter above 2^32 going down is a reset, never a wrap.
    assert_eq!(step(U32_RANGE + 10, 3), Step::Reset);
    // Near 2^32 but restarting high is not a plausible wrap.
    assert_eq!(step(0xFFFF_FFF0, 0x8000_0000), Step::Reset);
}

#[test]
fn reset_starts_a_new_segment_and_no_delta_crosses_it() {
    // total, lane1, lane2: 100 -> 150 (+50), then 20 (reset), then 35 (+15).
    let recs = [
        sample(0.0, vec![100, 60, 40], 1),
        sample(1.0, vec![150, 80, 70], 1),
        sample(2.0, vec![20, 10, 10], 1),
        sample(3.0, vec![35, 20, 15], 1),
    ];
    let segs = segments(&recs);
    assert_eq!(segs.len(), 2);
    let b = segs[1].started_by.as_ref().unwrap();
    assert_eq!(b.kind, SegmentReason::CounterReset);
    assert!(b.reason.contains("150 to 20"), "{}", b.reason);
    let d0 = segs[0].sum.total();
    assert_eq!(d0.counters.corrected_bits.unwrap().value, 50);
    assert_eq!(d0.counters.corrected_bits_per_lane.unwrap().values, vec![20, 30]);
    let d1 = segs[1].sum.total();
    assert_eq!(d1.counters.corrected_bits.unwrap().value, 15);
    assert_eq!(d1.counters.corrected_bits_per_lane.unwrap().values, vec![10, 5]);
    assert_eq!(d1.counters.link_down_events.unwrap().value, 0);
}

#[test]
fn u32_down_count_wrap_is_an_increase() {
    // EXT_DOWN_CNT is a u32 on the wire: 4294967294 -> 1 is 2 + 1 = 3 events.
    let recs = [sample(0.0, vec![0], 4_294_967_294), sample(1.0, vec![0], 1)];
    let segs = segments(&recs);
    assert_eq!(segs.len(), 1);
    let d = segs[0].sum.total();
    assert_eq!(d.counters.link_down_events.unwrap().value, 3);
    assert_eq!(d.wraps.len(), 1);
}

#[test]
fn lane_count_change_is_a_reset() {
    let recs = [sample(0.0, vec![10, 5, 5], 0), sample(1.0, vec![12, 3, 3, 3, 3], 0)];
    let segs = segments(&recs);
    assert_eq!(segs.len(), 2);
    assert!(segs[1].started_by.as_ref().unwrap().reason.contains("lane count"));
}

#[test]
fn module_swap_starts_a_segment() {
    let recs = [
        iface(0.0, b"AAA0001         "),
        sample(0.0, vec![10], 0),
        sample(1.0, vec![20], 0),
        iface(1.5, b"AAA0001         "), // same module re-announced (link change): no break
        sample(2.0, vec![30], 0),
        iface(2.5, b"BBB0002         "),
        sample(3.0, vec![40], 0),
        sample(4.0, vec![45], 0),
    ];
    let segs = segments(&recs);
    assert_eq!(segs.len(), 2);
    assert_eq!(segs[0].samples, 3);
    let b = segs[1].started_by.as_ref().unwrap();
    assert_eq!(b.kind, SegmentReason::ModuleChanged);
    assert!(b.reason.contains("AAA0001") && b.reason.contains("BBB0002"), "{}", b.reason);
    assert_eq!(segs[1].sum.total().counters.corrected_bits.unwrap().value, 5);
}

#[test]
fn histogram_bins_read_like_a_map() {
    // Bins out of order and one named twice: slot order, the later (3, 3) wins (7 + lane 4).
    let bin = |low, count, lane| FecHistogramBin { low, high: low, count, per_lane: vec![lane] };
    let mut r = sample(0.0, vec![10], 0);
    if let Record::Sample(s) = &mut r {
        s.fec.as_mut().unwrap().histogram = vec![bin(3, 5, 1), bin(1, 2, 2), bin(3, 7, 4)];
        let p = Point::from_sample(s);
        let bins: Vec<(Slot, Vec<u64>)> =
            p.series.iter().filter(|e| matches!(e.0, Slot::Bin(..))).map(|(k, _, v)| (k, v.to_vec())).collect();
        assert_eq!(bins, vec![(Slot::Bin(1, 1), vec![2, 2]), (Slot::Bin(3, 3), vec![7, 4])]);
    }
}

#[test]
fn origin_switch_is_skipped_not_a_reset() {
    // Sample 2 has no netlink FEC (read failed): corrected bits fall back to the
    // driver counter; netlink deltas continue from sample 1 to 3: 100 -> 130 = 30.
    let mut mid = sample(1.0, vec![], 0);
    if let Record::Sample(s) = &mut mid {
        s.fec = None;
        s.driver_stats.insert("rx_corrected_bits_phy".into(), 7);
    }
    let recs = [sample(0.0, vec![100], 0), mid, sample(2.0, vec![130], 0)];
    let segs = segments(&recs);
    assert_eq!(segs.len(), 1);
    let d = segs[0].sum.total();
    assert_eq!(d.counters.corrected_bits.unwrap(), Counted { value: 30, origin: Origin::Netlink });
}

#[test]
fn sums_refilled_over_other_sums_are_the_fresh_sums() {
    let sum = |records: &[Record]| {
        let mut d = DeltaSum::default();
        for r in records {
            if let Record::Sample(s) = r {
                d.push(&Point::from_sample(s), &mut PointStep::default());
            }
        }
        d
    };
    // Corrected bits (total, then two lanes) 10 -> 30, 4 -> 14, 6 -> 16 and one link-down:
    // increases 20, 10, 10 and 1; the same series later (rewritten in place); and three
    // lanes (other series: rebuilt).
    let a = sum(&[sample(0.0, vec![10, 4, 6], 1), sample(1.0, vec![30, 14, 16], 2)]);
    let a_later = sum(&[sample(0.0, vec![10, 4, 6], 1), sample(1.0, vec![30, 14, 16], 2), sample(2.0, vec![31, 15, 16], 2)]);
    let b = sum(&[sample(0.0, vec![9, 3, 3, 3], 0), sample(1.0, vec![12, 4, 4, 4], 0)]);
    let fresh = |d: &DeltaSum| {
        let mut s = Sums::default();
        d.sums_into(&mut s);
        s
    };
    let d = fresh(&a).delta();
    assert_eq!(d.counters.corrected_bits.map(|c| c.value), Some(20));
    assert_eq!(d.counters.corrected_bits_per_lane.map(|l| l.values), Some(vec![10, 10]));
    assert_eq!(d.counters.link_down_events.map(|c| c.value), Some(1));
    for x in [&a, &a_later, &b] {
        for y in [&a, &a_later, &b] {
            let mut s = fresh(x);
            y.sums_into(&mut s);
            assert_eq!(s, fresh(y));
        }
    }
}

#[test]
fn a_figure_first_seen_partway_spans_from_its_first_reading() {
    // Corrected bits at t = 0..3; the link-down count from t = 2 (2 -> 5: +3), so its span
    // is t = 2..3 of the window's 0..3, and so over a rolling window from t = 1. Read from
    // t = 3 only, it has no increase (not 0), its one reading named.
    let sum = |downs: [Option<u64>; 4]| {
        let mut sum = DeltaSum::default();
        for (t, down) in downs.into_iter().enumerate() {
            if let Record::Sample(mut s) = sample(t as f64, vec![10 * t as u64], 0) {
                s.link.down_events = down;
                sum.push(&Point::from_sample(&s), &mut PointStep::default());
            }
        }
        sum
    };
    let spans = |sum: &DeltaSum, from_t: f64| {
        let mut d = sum.total();
        sum.own_spans(from_t, 3.0, &mut d);
        d
    };
    let from_2 = sum([None, None, Some(2), Some(5)]);
    let span = CounterSpan { figure: CounterFigure::LinkDownEvents, origin: Origin::Netlink, from_t: 2.0, to_t: 3.0, samples: Some(2) };
    for from_t in [0.0, 1.0] {
        let d = spans(&from_2, from_t);
        assert_eq!(d.spans, vec![span.clone()]);
        assert_eq!(d.counters.link_down_events.map(|c| c.value), Some(3));
        assert_eq!(d.counters.corrected_bits.as_ref().map(|c| c.value), Some(30));
    }
    let d = spans(&sum([None, None, None, Some(5)]), 0.0);
    assert_eq!(d.counters.link_down_events, None);
    assert_eq!(d.spans, vec![CounterSpan { from_t: 3.0, samples: Some(1), ..span }]);
}
