//! `decode_sample` / `decode_sample_into` against the full decode of the same image: on
//! real dumps and on the bundled captures' interface records, with samples that keep the
//! static bytes, change monitors, overwrite static bytes one at a time, write hostile
//! values, truncated runs and pages the static image lacks.

use super::*;
use crate::capture::{read_capture, Record};
use crate::module::state::{DataPathState, ModuleState};
use crate::module::{input, monitor_requests, PageEntry, I2C_A0, I2C_A2};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::PathBuf;

/// A module flag by its stable name.
fn flag(name: &str) -> crate::module::flag::ModuleFlag {
    crate::module::flag::ModuleFlag::from_name(name).unwrap()
}

fn key(e: &PageEntry) -> (u8, u8, u8, u16, usize) {
    (e.i2c_address, e.page, e.bank, e.offset, e.data.len())
}

/// Reports unlike any decode here, with strings and lanes whose buffers a refresh into
/// them reuses, every monitor field scrambled: an SFF-8636 report (4 lanes) and a CMIS one
/// (8 lanes), so that a refresh into them meets fewer and more lanes than it decodes.
fn stale_reports() -> Vec<ModuleReport> {
    let sff = decode(&real_dump("qsfp05_dell_3MFXG_qsfp28_100g_lr4_sffdb_lower_p00.txt")).expect("an SFF-8636 dump");
    let cmis =
        decode(&real_dump("cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt")).expect("a CMIS dump");
    let mut out = vec![sff, cmis];
    for r in &mut out {
        for (i, l) in r.lanes.iter_mut().enumerate() {
            l.flags.push(flag("rx_los"));
            l.data_path_state = Some(if i % 2 == 0 { DataPathState::Init } else { DataPathState::Reserved(9) });
            (l.rx_power_mw, l.rx_power_dbm, l.tx_power_mw, l.tx_power_dbm) = (Some(-1.0), None, None, Some(f64::NAN));
            l.tx_bias_ma = Some(1e9);
            (l.app_sel, l.data_path_first_lane) = (Some(15), Some(99));
        }
        r.module_flags.push(flag("temperature_high_alarm"));
        (r.module_temperature_c, r.supply_voltage_v) = (Some(-300.0), None);
        r.module_state = Some(ModuleState::Reserved(7));
        r.warnings.push("stale".into());
    }
    out
}

/// Both per-sample decodes of `base` with `runs` laid over it equal `decode` of that image.
/// `None` when `runs` does not fit an image (no sample could carry it) or `base` has no
/// static decode (SFF-8472, unknown identifier); else whether the sample took the refresh.
fn check(base: &ModuleImage, runs: &[PageEntry]) -> Option<bool> {
    let st = StaticDecode::new(base)?;
    let mut img = base.clone();
    if runs.iter().any(|e| img.insert_entry(e).is_err()) {
        return None;
    }
    // Debug text: equal where values are equal, NaN included.
    let want = format!("{:?}", decode(&img));
    let got = format!("{:?}", st.decode_sample(base, &img, runs.iter().map(key)));
    assert_eq!(got, want, "decode_sample, runs {:?}", runs.iter().map(key).collect::<Vec<_>>());
    let starts = [None, st.decode_sample(base, base, std::iter::empty()).ok()].into_iter().chain(stale_reports().into_iter().map(Some));
    for start in starts {
        let mut out = start;
        let done = st.decode_sample_into(base, &img, runs.iter().map(key), &mut out);
        let got = format!("{:?}", done.map(|()| out.expect("Ok leaves a report")));
        assert_eq!(got, want, "decode_sample_into, runs {:?}", runs.iter().map(key).collect::<Vec<_>>());
    }
    Some(runs.iter().all(|e| st.refreshes(base, &img, key(e))))
}

fn real_dump(name: &str) -> ModuleImage {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(name);
    input::parse(&std::fs::read(&path).expect("fixture present")).expect("a module dump").image
}

/// Every module dump of tests/fixtures/real-dumps (the counter excerpts are not images).
fn real_dumps() -> Vec<(String, ModuleImage)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps");
    let mut out: Vec<(String, ModuleImage)> = std::fs::read_dir(dir)
        .expect("fixture folder")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let parsed = input::parse(&std::fs::read(&path).ok()?).ok()?;
            Some((path.file_name()?.to_string_lossy().into_owned(), parsed.image))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The per-sample requests of `base` filled by `fill(run index, byte index, static byte)`.
fn monitor_runs(base: &ModuleImage, fill: impl Fn(usize, usize, Option<u8>) -> u8) -> Vec<PageEntry> {
    let requests = monitor_requests(base).unwrap_or_default();
    requests
        .iter()
        .enumerate()
        .map(|(r, q)| PageEntry {
            i2c_address: q.i2c_address,
            page: q.page,
            bank: q.bank,
            offset: u16::from(q.offset),
            data: (0..usize::from(q.length)).map(|i| fill(r, i, base.byte(q.i2c_address, q.page, q.bank, q.offset + i as u8))).collect(),
        })
        .collect()
}

/// Samples for `base`: its own bytes, changed and hostile monitors, each monitor byte
/// flipped alone (static bytes among them: identifier, memory model, Active Control Set),
/// truncated runs, VDM pages whole, and pages the static image lacks.
fn samples(base: &ModuleImage) -> Vec<Vec<PageEntry>> {
    let mut out = vec![
        monitor_runs(base, |_, _, b| b.unwrap_or(0)),
        monitor_runs(base, |_, _, _| 0x00),
        monitor_runs(base, |_, _, _| 0xff),
        monitor_runs(base, |r, i, _| (r * 131 + i * 37 + 11) as u8),
    ];
    let same = monitor_runs(base, |_, _, b| b.unwrap_or(0));
    for (r, run) in same.iter().enumerate() {
        for i in 0..run.data.len() {
            let mut flipped = same.clone();
            flipped[r].data[i] ^= 0xff;
            out.push(flipped);
        }
        // Truncated: the run cut to its first and last byte.
        let mut head = same.clone();
        head[r].data.truncate(1);
        out.push(head);
        let mut tail = same.clone();
        tail[r].offset += run.data.len() as u16 - 1;
        tail[r].data = vec![0xa5];
        out.push(tail);
    }
    let page = |page: u8, bank: u8, fill: u8| PageEntry { i2c_address: I2C_A0, page, bank, offset: 128, data: vec![fill; 128] };
    for p in [0x24, 0x25, 0x2c, 0x11, 0x01, 0x03] {
        out.push([same.clone(), vec![page(p, 0, 0x5a)]].concat());
        out.push([same.clone(), vec![page(p, 1, 0xff)]].concat());
    }
    out.push(vec![PageEntry { i2c_address: I2C_A2, page: 0, bank: 0, offset: 96, data: vec![0x80; 24] }]);
    out
}

#[test]
fn real_dumps_decode_per_sample_as_a_whole() {
    let (mut checked, mut refreshed) = (0, 0);
    for (name, base) in real_dumps() {
        let results: Vec<Option<bool>> = samples(&base).iter().map(|runs| check(&base, runs)).collect();
        // SFF-8472 has no static decode: its samples take the full decode.
        assert_eq!(results.iter().any(Option::is_some), StaticDecode::new(&base).is_some(), "{name}");
        checked += usize::from(results.iter().any(Option::is_some));
        refreshed += results.iter().filter(|r| **r == Some(true)).count();
    }
    // 2 CMIS and 8 SFF-8636 dumps; both paths taken.
    assert_eq!(checked, 10);
    assert!(refreshed > 100, "{refreshed}");
}

/// The last interface record's module image per interface, and each sample's runs.
fn capture_samples() -> Vec<(ModuleImage, Vec<PageEntry>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("captures");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir).expect("captures").filter_map(|e| Some(e.ok()?.path())).collect();
    paths.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let cap = read_capture(&path).expect("bundled capture reads");
        let mut bases: HashMap<String, ModuleImage> = HashMap::new();
        for rec in &cap.records {
            match rec {
                Record::Interface(ir) => {
                    if let Some(img) = ir.module.as_ref().and_then(|m| m.image().ok()) {
                        bases.insert(ir.interface.clone(), img);
                    }
                }
                Record::Sample(s) => {
                    if let (Some(base), Some(m)) = (bases.get(&s.interface), &s.module) {
                        out.push((base.clone(), m.pages.clone()));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

#[test]
fn bundled_capture_samples_decode_per_sample_as_a_whole() {
    let all = capture_samples();
    assert!(all.len() > 1000, "{}", all.len());
    // A capture's samples carry the module's monitor bytes only: all take the refresh.
    for (base, runs) in &all {
        assert_eq!(check(base, runs), Some(true));
    }
    // Every 50th sample with hostile monitor values, and laid over another static record.
    for (i, (base, runs)) in all.iter().enumerate().step_by(50) {
        for fill in [0x00, 0xff, 0x7f] {
            let hostile: Vec<PageEntry> = runs.iter().map(|e| PageEntry { data: vec![fill; e.data.len()], ..e.clone() }).collect();
            check(base, &hostile);
        }
        check(&all[(i + 7) % all.len()].0, runs);
    }
}

fn run_strategy() -> impl Strategy<Value = PageEntry> {
    let page = prop::sample::select(vec![0x00u8, 0x01, 0x02, 0x03, 0x11, 0x20, 0x24, 0x2c, 0x2f]);
    (prop::sample::select(vec![I2C_A0, I2C_A2]), page, 0u8..2, 0u16..256, 1usize..40, any::<u8>()).prop_map(
        |(i2c_address, page, bank, offset, len, seed)| {
            // Lower memory is page 0 bank 0; a run stays inside its half page.
            let (page, bank) = if offset < 128 { (0, 0) } else { (page, bank) };
            let end = if offset < 128 { 128 } else { 256 };
            let len = len.min(end - usize::from(offset));
            let data = (0..len).map(|i| seed.wrapping_mul(i as u8 | 1).wrapping_add(i as u8)).collect();
            PageEntry { i2c_address, page, bank, offset, data }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Arbitrary runs anywhere, over a real dump of each standard and a capture's 800G module.
    #[test]
    fn arbitrary_runs_decode_per_sample_as_a_whole(runs in prop::collection::vec(run_strategy(), 1..5), which in 0usize..3) {
        let base = match which {
            0 => real_dump("cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt"),
            1 => real_dump("qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt"),
            _ => capture_base(),
        };
        // Laid over the module's own monitor bytes, as a sample carries them.
        let runs = [monitor_runs(&base, |_, _, b| b.unwrap_or(0)), runs].concat();
        check(&base, &runs);
    }
}

/// The VDM-advertising 800G module of the bundled captures.
fn capture_base() -> ModuleImage {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("captures/dr8-800g-vdm-lane7-weak.jsonl");
    let cap = read_capture(path).expect("bundled capture reads");
    cap.records
        .iter()
        .find_map(|r| match r {
            Record::Interface(ir) => ir.module.as_ref().and_then(|m| m.image().ok()),
            _ => None,
        })
        .expect("an interface record with module pages")
}
