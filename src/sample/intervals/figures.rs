//! The interval stage's figures held to the full analysis, so the two cannot drift: over every
//! bundled capture and hostile variants of each (identifier, revision, Active Control Set
//! or monitor bytes changed in a sample, pages missing or the static image lacks, module
//! data gone, a repeated interface record, the interface gone and back), each window's
//! module must equal the full decode of its static pages with the sample's bytes laid over
//! them (`module::decode`), and the row figures ([`RowFigures::refill`], the previous
//! window's lanes refilled as the stage refills them) must equal those of `analyze` of
//! that window, the weakest lane first once ranked as the live table ranks them.

use super::IntervalWalker;
use crate::analysis::lane_rows::{row_figures, RowFigures};
use crate::analysis::{analyze, config::Config, rank, vdm_lanes::BerSource, LaneAnalysis, LinkAnalysis, ReasonCode};
use crate::capture::{read_capture, EventKind, EventRecord, Record};
use crate::module::{decode, ModuleImage, ModuleReport};
use std::collections::HashMap;

/// What a row or the live table shows of a window's figures, floats by their bits.
type Shown = (
    (Option<bool>, Option<u64>, Option<u64>, Option<u64>),
    Vec<(u8, Option<u8>, Option<u64>, [Option<u64>; 8], Vec<ReasonCode>, Option<BerSource>)>,
);

fn shown(link: &LinkAnalysis, lanes: &[LaneAnalysis]) -> Shown {
    let mut lanes: Vec<&LaneAnalysis> = lanes.iter().collect();
    lanes.sort_by_key(|l| l.lane);
    let l = lanes
        .iter()
        .map(|l| {
            let f = [
                l.rx_power_dbm,
                l.pre_fec_ber,
                l.pre_fec_ber_upper,
                l.margin_db,
                l.optical_margin_db,
                l.esnr_db,
                l.ltp_db,
                l.module_pre_fec_ber,
            ];
            (l.lane, l.module_lane, l.corrected_bits, f.map(|v| v.map(f64::to_bits)), l.flags.clone(), l.ber_source)
        })
        .collect();
    ((link.up, link.corrected_bits, link.uncorrectable_blocks, link.link_down_events), l)
}

/// Sets byte `offset` (0-255) of every run of `rec`'s sample pages that covers it in `page`.
fn poke(rec: &mut Record, page: u8, offset: u16, f: impl Fn(u8) -> u8) {
    let Record::Sample(s) = rec else { return };
    for e in s.module.iter_mut().flat_map(|m| &mut m.pages) {
        let covers = (e.offset..e.offset + e.data.len() as u16).contains(&offset);
        if covers && (offset < 128 || e.page == page) {
            let i = usize::from(offset - e.offset);
            e.data[i] = f(e.data[i]);
        }
    }
}

/// Hostile variants of a capture's records (the first is the capture itself).
fn variants(records: &[Record]) -> Vec<(&'static str, Vec<Record>)> {
    let edit = |name: &'static str, every: usize, f: &dyn Fn(&mut Record)| {
        let mut out = records.to_vec();
        let samples = out.iter_mut().filter(|r| matches!(r, Record::Sample(_)));
        samples.enumerate().filter(|(i, _)| i % every == every - 1).for_each(|(_, r)| f(r));
        (name, out)
    };
    let mut out = vec![
        ("as bundled", records.to_vec()),
        // SFF-8024 identifier: another standard, or an unknown one.
        edit("identifier changed", 3, &|r| poke(r, 0, 0, |b| b ^ 0x1f)),
        edit("revision changed", 4, &|r| poke(r, 0, 1, |b| b.wrapping_add(0x10))),
        // CMIS page 11h byte 206 (Active Control Set, AppSel of lane 1).
        edit("active control set changed", 5, &|r| poke(r, 0x11, 206, |b| b ^ 0x30)),
        // CMIS lower byte 14 / SFF-8636 byte 22: temperature MSB; SFF-8636 byte 3: LOS flags.
        edit("monitors changed", 2, &|r| {
            poke(r, 0, 14, |b| b.wrapping_add(3));
            poke(r, 0, 22, |b| b.wrapping_add(3));
            poke(r, 0, 3, |b| b ^ 0x0f);
            poke(r, 0x11, 150, |b| b ^ 0xff);
        }),
        // A reserved byte in the monitor read (CMIS lower 20, SFF-8636 16): not a monitor field.
        edit("reserved byte changed", 6, &|r| {
            poke(r, 0, 20, |b| b ^ 1);
            poke(r, 0, 16, |b| b ^ 1);
        }),
        edit("last page missing", 4, &|r| {
            if let Record::Sample(s) = r {
                s.module.iter_mut().for_each(|m| drop(m.pages.pop()));
            }
        }),
        edit("module data gone", 5, &|r| {
            if let Record::Sample(s) = r {
                s.module = None;
            }
        }),
        // A page the static image does not hold (bank 3 of page 11h, a VDM sample page).
        edit("pages not in the static image", 3, &|r| {
            if let Record::Sample(s) = r {
                if let Some(m) = s.module.as_mut() {
                    let mut extra = m.pages.last().cloned().into_iter().collect::<Vec<_>>();
                    extra.iter_mut().for_each(|e| e.bank = 3);
                    m.pages.extend(extra);
                    let mut vdm = m.pages.last().cloned().into_iter().collect::<Vec<_>>();
                    vdm.iter_mut().for_each(|e| (e.page, e.bank, e.offset, e.data) = (0x24, 0, 128, vec![0x41; 16]));
                    m.pages.extend(vdm);
                }
            }
        }),
    ];
    // The interface record again halfway, and the interface gone and back after it.
    let mut again = records.to_vec();
    let half = again.len() / 2;
    let irs: Vec<Record> = again.iter().filter(|r| matches!(r, Record::Interface(_))).cloned().collect();
    let gone: Vec<Record> = irs
        .iter()
        .filter_map(|r| match r {
            Record::Interface(ir) => Some(Record::Event(EventRecord {
                t: ir.t,
                interface: ir.interface.clone(),
                kind: EventKind::InterfaceGone,
                message: "gone".into(),
                layer: None,
            })),
            _ => None,
        })
        .collect();
    again.splice(half..half, gone.into_iter().chain(irs));
    out.push(("interface record again, interface gone and back", again));
    out
}

/// The full path's module for a sample: `decode` of the interface record's static pages
/// with the sample's pages laid over them; `None` where the engine reports an error.
fn full_module(statics: &HashMap<String, Option<ModuleImage>>, rec: &Record) -> Option<ModuleReport> {
    let Record::Sample(s) = rec else { return None };
    let base = statics.get(&s.interface).cloned().flatten();
    if base.is_none() && s.module.is_none() {
        return None;
    }
    let mut img = base.unwrap_or_default();
    for e in s.module.iter().flat_map(|m| &m.pages) {
        img.insert_entry(e).ok()?;
    }
    decode(&img).ok()
}

#[test]
fn fast_rows_are_the_full_paths_on_every_capture_and_hostile_variant() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures"));
    let cfg = Config::default();
    let (mut windows, mut refreshed_kinds) = (0, std::collections::BTreeSet::new());
    let mut paths: Vec<_> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "jsonl")).collect();
    paths.sort();
    for path in paths {
        let cap = read_capture(&path).unwrap();
        for (variant, records) in variants(&cap.records) {
            let mut walker = IntervalWalker::default();
            // Refilled from the previous window, as the stage refills them.
            let mut figures = RowFigures::default();
            let mut statics: HashMap<String, Option<ModuleImage>> = HashMap::new();
            for rec in &records {
                if let Record::Interface(ir) = rec {
                    statics.insert(ir.interface.clone(), ir.module.as_ref().and_then(|m| m.image().ok()));
                }
                let Some((w, _)) = walker.push(rec) else { continue };
                let at = format!("{} ({variant}), t={:?}", path.display(), rec.t());
                let full = full_module(&statics, rec);
                assert_eq!(w.module, full, "module of {at}");
                if let Some(m) = &w.module {
                    refreshed_kinds.insert(m.standard_name());
                }
                let a = analyze(std::slice::from_ref(w), &cfg, &[]).remove(0);
                let fresh = row_figures(w, &cfg);
                assert_eq!(shown(&fresh.link, &fresh.lanes), shown(&a.link, &a.lanes), "figures of {at}");
                figures.refill(w, &cfg);
                assert_eq!(figures, fresh, "refilled lanes of {at}");
                // Ranked as the live table ranks them: the report's order.
                let mut ranked = fresh.lanes.clone();
                rank(&mut ranked);
                let order = |ls: &[LaneAnalysis]| ls.iter().map(|l| (l.lane, l.rank)).collect::<Vec<_>>();
                assert_eq!(order(&ranked), order(&a.lanes), "ranks of {at}");
                windows += 1;
            }
        }
    }
    assert!(windows > 10_000, "{windows}");
    // Both refreshed standards were exercised.
    assert!(refreshed_kinds.contains("CMIS") && refreshed_kinds.contains("SFF-8636"), "{refreshed_kinds:?}");
}
