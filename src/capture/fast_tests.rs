//! The direct reader ([`super::fast`]) against the serde path it shortcuts: on every line
//! it either gives up or gives exactly serde's record (`t` compared bit for bit), and it
//! takes every line optics writes. Also the in-place line splitter ([`super::lines`]).

use super::lines::Lines;
use super::{fast, parse_record_serde, CaptureError, CaptureWriter, EventKind, EventRecord, Header, InterfaceRecord, ModulePages};
use super::{Record, SampleRecord, MAX_LINE_BYTES};
use crate::counters::{DriverStats, FecHistogramBin, FecStats, LinkInfo, LinkState};
use crate::device::{PciLink, PortIdentity};
use crate::module::printed::PrintedModule;
use crate::module::PageEntry;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// The line `CaptureWriter` writes for `rec` (without its newline).
fn written(rec: &Record) -> Vec<u8> {
    let mut w = CaptureWriter::new(Vec::new(), &Header::new(None, None, None)).expect("writing to a Vec cannot fail");
    w.write(rec).expect("a finite t, writing to a Vec");
    let out = w.into_inner();
    let mut lines = out.split(|b| *b == b'\n');
    lines.nth(1).expect("header line, then the record's").to_vec()
}

/// The fast reader gave up, or serde read the same record (and `t` to the same bits).
fn agrees(line: &[u8]) -> Result<Option<Record>, TestCaseError> {
    let fast = fast::parse_record(line);
    if let Some(f) = &fast {
        let serde = parse_record_serde(line);
        prop_assert!(serde.is_ok(), "fast reader accepted what serde refuses ({:?}): {}", serde, String::from_utf8_lossy(line));
        let serde = serde.expect("checked just above");
        prop_assert_eq!(f, &serde, "line {}", String::from_utf8_lossy(line));
        prop_assert_eq!(f.t().map(f64::to_bits), serde.t().map(f64::to_bits));
    }
    Ok(fast)
}

/// Taken by the fast reader, and read as serde reads it.
fn taken(line: &[u8]) -> Result<Record, TestCaseError> {
    match agrees(line)? {
        Some(r) => Ok(r),
        None => Err(TestCaseError::fail(format!("fast reader gave up on {}", String::from_utf8_lossy(line)))),
    }
}

fn driver_stats(names: BTreeMap<String, u64>) -> DriverStats {
    // Built through its Deserialize only: its representation is not this module's business.
    serde_json::from_value(serde_json::json!(names)).expect("a map of names to counts is DriverStats")
}

fn seconds() -> impl Strategy<Value = f64> {
    prop_oneof![
        (0u64..100_000_000_000).prop_map(|us| super::round_t(us as f64 / 1e6)),
        (0u32..100_000).prop_map(f64::from),
        any::<f64>().prop_filter("JSON numbers are finite", |t| t.is_finite()),
        (-1e6..1e12f64).prop_map(super::round_t),
    ]
}

/// Names as drivers and the writer produce them, and (`wild`) any text at all.
fn name(wild: bool) -> BoxedStrategy<String> {
    if wild {
        prop_oneof!["[a-z0-9_.:-]{0,16}", any::<String>(), "[\"\\\\\t\u{1}é]{0,4}"].boxed()
    } else {
        "[a-z][a-z0-9_.:-]{0,15}".boxed()
    }
}

fn counters(wild: bool) -> BoxedStrategy<Vec<u64>> {
    let len = if wild { 0..20usize } else { 0..18usize };
    prop::collection::vec(prop_oneof![any::<u64>(), 0..10_000_000u64], len).boxed()
}

fn fec(wild: bool) -> impl Strategy<Value = FecStats> {
    let bin = (any::<u32>(), any::<u32>(), any::<u64>(), prop::collection::vec(any::<u64>(), 0..4))
        .prop_map(|(low, high, count, per_lane)| FecHistogramBin { low, high, count, per_lane });
    let bins = if wild { 0..3usize } else { 0..1 };
    (counters(wild), counters(wild), counters(wild), prop::collection::vec(bin, bins)).prop_map(
        |(corrected_blocks, uncorrectable_blocks, corrected_bits, histogram)| FecStats {
            corrected_blocks,
            uncorrectable_blocks,
            corrected_bits,
            histogram,
        },
    )
}

fn pages() -> impl Strategy<Value = Option<ModulePages>> {
    let entry = (any::<u8>(), any::<u8>(), any::<u8>(), any::<u16>(), prop::collection::vec(any::<u8>(), 0..130))
        .prop_map(|(i2c_address, page, bank, offset, data)| PageEntry { i2c_address, page, bank, offset, data });
    prop::option::of(prop::collection::vec(entry, 0..4).prop_map(|pages| ModulePages { pages }))
}

fn link_state() -> impl Strategy<Value = LinkState> {
    (any::<Option<bool>>(), any::<Option<u8>>(), any::<Option<u8>>(), any::<Option<u64>>())
        .prop_map(|(up, ext_state, ext_substate, down_events)| LinkState { up, ext_state, ext_substate, down_events })
}

fn sample(wild: bool) -> impl Strategy<Value = Record> {
    let imported = (
        prop::option::of(name(wild)),
        prop::option::of(name(wild)),
        prop::option::of((name(wild), any::<Option<i8>>())),
        prop::collection::btree_map(name(wild), name(wild), 0..3),
    );
    (
        seconds(),
        name(wild),
        link_state(),
        prop::option::of(fec(wild)),
        prop::collection::btree_map(name(wild), any::<u64>(), 0..4),
        pages(),
        imported,
    )
        .prop_map(|(t, interface, link, fec, stats, module, (origin_file, time_base, printed, printed_fields))| {
            let printed_module = printed.map(|(tool, temp)| PrintedModule {
                tool,
                temperature_c: temp.map(|c| f64::from(c) / 4.0),
                ..PrintedModule::default()
            });
            Record::Sample(SampleRecord {
                t,
                interface,
                link,
                fec,
                driver_stats: driver_stats(stats),
                module,
                origin_file,
                time_base,
                printed_module,
                printed_fields,
            })
        })
}

fn interface(wild: bool) -> impl Strategy<Value = Record> {
    let pci =
        (prop::option::of(name(wild)), any::<Option<u32>>(), prop::option::of(name(wild)), any::<Option<u32>>(), any::<Option<i32>>())
            .prop_map(|(current_link_speed, current_link_width, max_link_speed, max_link_width, numa_node)| PciLink {
                current_link_speed,
                current_link_width,
                max_link_speed,
                max_link_width,
                numa_node,
            });
    let port = (prop::option::of(name(wild)), any::<Option<u32>>(), prop::option::of(name(wild)))
        .prop_map(|(phys_port_name, dev_port, phys_switch_id)| PortIdentity { phys_port_name, dev_port, phys_switch_id });
    let link = (any::<Option<u32>>(), any::<Option<u32>>(), prop::option::of(name(wild)), prop::option::of(name(wild)))
        .prop_map(|(speed_mbps, lanes, link_mode, fec_active)| LinkInfo { speed_mbps, lanes, link_mode, fec_active });
    (
        seconds(),
        name(wild),
        (prop::option::of(name(wild)), prop::option::of(name(wild))),
        prop::option::of(pci),
        prop::option::of(port),
        link,
        pages(),
        prop::option::of(name(wild)),
    )
        .prop_map(|(t, interface, (driver, bus_info), pci, port, link, module, origin_file)| {
            Record::Interface(InterfaceRecord { t, interface, driver, bus_info, pci, port, link, module, origin_file })
        })
}

fn event(wild: bool) -> impl Strategy<Value = Record> {
    let kind = prop::sample::select(vec![EventKind::CounterReset, EventKind::ModuleChanged, EventKind::InterfaceGone, EventKind::Error]);
    (seconds(), name(wild), kind, name(wild))
        .prop_map(|(t, interface, kind, message)| Record::Event(EventRecord { t, interface, kind, message }))
}

/// `wild`: any text and counts past what the reader accepts; otherwise what a live
/// capture holds (plain names, at most 1 + 16 lane counters, no histogram).
fn record(wild: bool) -> impl Strategy<Value = Record> {
    prop_oneof![4 => sample(wild), 1 => interface(wild), 1 => event(wild)]
}

/// The same JSON with every object's keys sorted (as the bundled captures are written).
fn sorted_keys(line: &[u8]) -> Vec<u8> {
    let v: serde_json::Value = serde_json::from_slice(line).expect("a written line is JSON");
    serde_json::to_vec(&v).expect("a Value serialises")
}

/// Bytes that change a JSON line's meaning or validity.
const EDIT_BYTES: &[u8] = b" \t\r\n\"\\-+0159eE.,:}]{[nultrfaAFgz\x00\x1f\x7f\xc3\xff";

#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, u8),
    Replace(usize, u8),
    Delete(usize),
    Truncate(usize),
    /// Writes a key/value again right after the opening brace.
    Duplicate(&'static str),
}

fn edit() -> impl Strategy<Value = Edit> {
    let byte = prop::sample::select(EDIT_BYTES);
    let dup = prop::sample::select(vec![
        "\"t\":1.0,",
        "\"record\":\"sample\",",
        "\"interface\":\"x\",",
        "\"fec\":null,",
        "\"module\":null,",
        "\"driver_stats\":{},",
        "\"origin_file\":null,",
        "\"unknown\":1,",
    ]);
    prop_oneof![
        (any::<usize>(), byte.clone()).prop_map(|(at, b)| Edit::Insert(at, b)),
        (any::<usize>(), byte).prop_map(|(at, b)| Edit::Replace(at, b)),
        any::<usize>().prop_map(Edit::Delete),
        any::<usize>().prop_map(Edit::Truncate),
        dup.prop_map(Edit::Duplicate),
    ]
}

fn apply(line: &mut Vec<u8>, edit: &Edit) {
    let at = |i: usize, n: usize| i % n.max(1);
    match *edit {
        Edit::Insert(i, b) => line.insert(at(i, line.len() + 1), b),
        Edit::Replace(i, b) if !line.is_empty() => {
            let i = at(i, line.len());
            line[i] = b;
        }
        Edit::Delete(i) if !line.is_empty() => {
            line.remove(at(i, line.len()));
        }
        Edit::Truncate(i) => line.truncate(at(i, line.len())),
        Edit::Duplicate(field) if !line.is_empty() => {
            line.splice(1..1, field.bytes());
        }
        _ => {}
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn written_records_are_taken_and_read_as_serde_reads_them(rec in record(false)) {
        let line = written(&rec);
        taken(&line)?;
        // (Not compared with the first: serde_json's float parse does not round-trip every
        // f64, so a line written again from its own reading may hold another `t`.)
        taken(&sorted_keys(&line))?;
    }

    #[test]
    fn live_samples_are_read_in_the_writers_layout(rec in sample(false)) {
        let line = written(&rec);
        let Record::Sample(s) = &rec else { unreachable!("sample() makes samples") };
        let live = s.origin_file.is_none() && s.time_base.is_none() && s.printed_module.is_none() && s.printed_fields.is_empty()
            && s.fec.as_ref().is_none_or(|f| f.histogram.is_empty());
        match fast::sample_as_written(&line) {
            Some(got) => {
                let serde = parse_record_serde(&line).map_err(|e| TestCaseError::fail(e.to_string()))?;
                prop_assert_eq!(&Record::Sample(got.clone()), &serde);
                prop_assert_eq!(got.t.to_bits(), serde.t().map(f64::to_bits).unwrap_or_default());
            }
            None => prop_assert!(!live, "a live sample in the writer's layout was not read as such: {}", String::from_utf8_lossy(&line)),
        }
        // Any other key order is not the writer's layout.
        prop_assert!(fast::sample_as_written(&sorted_keys(&line)).is_none());
    }

    #[test]
    fn any_written_record_is_read_as_serde_reads_it(rec in record(true)) {
        let line = written(&rec);
        agrees(&line)?;
        agrees(&sorted_keys(&line))?;
    }

    #[test]
    fn edited_lines_fall_back_or_agree(rec in record(false), edits in prop::collection::vec(edit(), 1..4)) {
        let mut line = written(&rec);
        for e in &edits {
            apply(&mut line, e);
        }
        agrees(&line)?;
    }

    #[test]
    fn times_are_serde_json_bit_for_bit(num in prop_oneof![
        any::<f64>().prop_filter("finite", |t| t.is_finite()).prop_map(|t| serde_json::to_string(&t).expect("a finite f64")),
        seconds().prop_map(|t| serde_json::to_string(&t).expect("a finite f64")),
        "-?(0|[1-9][0-9]{0,24})(\\.[0-9]{1,24})?([eE][+-]?[0-9]{1,3})?",
    ]) {
        let line = format!(r#"{{"record":"event","t":{num},"interface":"e","kind":"error","message":"m"}}"#);
        let serde = parse_record_serde(line.as_bytes()).ok().and_then(|r| r.t()).map(f64::to_bits);
        let fast = fast::parse_record(line.as_bytes()).and_then(|r| r.t()).map(f64::to_bits);
        prop_assert_eq!(fast, serde, "t = {}", num);
    }

    #[test]
    fn hex_is_read_as_the_hex_crate_reads_it(
        text in prop_oneof!["[0-9a-fA-F]{0,40}", "[0-9a-fA-F]{0,20}[g-zG-Z/:@`~\x00-\x08\u{80}-\u{ff}][0-9a-fA-F]{0,20}"],
    ) {
        let line = format!(r#"{{"record":"sample","t":1,"interface":"e","link":{{"up":true}},"fec":null,"module":{{"pages":[{{"i2c_address":80,"page":0,"offset":0,"data":"{text}"}}]}}}}"#);
        let fast = agrees(line.as_bytes())?;
        let data = fast.and_then(|r| match r {
            Record::Sample(s) => s.module.and_then(|m| m.pages.into_iter().next()).map(|p| p.data),
            _ => None,
        });
        prop_assert_eq!(data, hex::decode(&text).ok());
    }

    #[test]
    fn counters_are_read_as_serde_reads_them(nums in prop::collection::vec(prop_oneof![
        "0|[1-9][0-9]{0,8}",
        any::<u64>().prop_map(|n| n.to_string()),
        "[0-9]{1,22}",
    ], 1..18)) {
        // Last in the line, so the final counters sit within 8 bytes of its end.
        let line = format!(r#"{{"record":"sample","t":1,"interface":"e","link":{{"up":true}},"module":null,"fec":{{"corrected_bits":[{}]}}}}"#, nums.join(","));
        let fast = agrees(line.as_bytes())?;
        prop_assert_eq!(fast.is_some(), parse_record_serde(line.as_bytes()).is_ok(), "{}", line);
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        prefix in prop::sample::select(vec!["", "{\"record\":\"sample\",", "{\"record\":\"interface\",", "{\"record\":\"event\",", "{\"link\":{", "{\"record\":\"sample\",\"module\":{\"pages\":[{\"data\":\""]),
        bytes in prop::collection::vec(prop_oneof![prop::sample::select(EDIT_BYTES), any::<u8>()], 0..200),
    ) {
        let mut line = prefix.as_bytes().to_vec();
        line.extend_from_slice(&bytes);
        agrees(&line)?;
    }

    #[test]
    fn lines_split_as_text_does(
        text in prop::collection::vec(prop::sample::select(b"ab \t\r\n\n".to_vec()), 0..200),
        capacity in 1usize..24,
    ) {
        let mut expected = Vec::new();
        let mut segments: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
        if text.is_empty() || text.ends_with(b"\n") {
            segments.pop();
        }
        for (i, seg) in segments.into_iter().enumerate() {
            if !seg.iter().all(u8::is_ascii_whitespace) {
                expected.push((i + 1, seg.to_vec()));
            }
        }
        let mut lines = Lines::new(std::io::BufReader::with_capacity(capacity, &text[..]));
        let mut got = Vec::new();
        while let Some((n, line)) = lines.next_line().expect("reading a slice") {
            got.push((n, line.to_vec()));
        }
        prop_assert_eq!(got, expected);
    }
}

#[test]
fn shapes_other_than_the_writers_fall_back_or_agree() {
    let line = written(&Record::Sample(SampleRecord {
        t: 12.5,
        interface: "ens1np0".into(),
        link: LinkState { up: Some(true), ext_state: None, ext_substate: None, down_events: Some(0) },
        fec: Some(FecStats { corrected_blocks: vec![0], uncorrectable_blocks: vec![0], corrected_bits: vec![3, 1, 2], histogram: vec![] }),
        module: Some(ModulePages { pages: vec![PageEntry { i2c_address: 80, page: 17, bank: 0, offset: 128, data: vec![0xab, 0x01] }] }),
        ..SampleRecord::default()
    }));
    let text = String::from_utf8(line).expect("JSON is UTF-8");
    assert!(fast::parse_record(text.as_bytes()).is_some());
    let taken_as_serde = [
        // Other key order, spacing, upper-case hex: read directly, same record.
        text.replace(r#""t":12.5,"interface":"ens1np0","#, r#""interface":"ens1np0","t":12.5,"#),
        // (The tag itself must be compact: it is found by its bytes.)
        text.replace(',', " ,\t").replace(':', ": ").replacen(r#""record": "sample""#, r#""record":"sample""#, 1),
        text.replace("ab01", "AB01"),
    ];
    for t in &taken_as_serde {
        let fast = fast::parse_record(t.as_bytes());
        assert!(fast.is_some(), "{t}");
        assert_eq!(fast.unwrap(), parse_record_serde(t.as_bytes()).unwrap(), "{t}");
    }
    let given_up = [
        // Escapes and an unknown key (serde ignores it): serde decides.
        text.replace("ens1np0", "ens1\\u006ep0"),
        text.replace(r#""t":12.5"#, r#""t":12.5,"extra":[1]"#),
        // Serde errors: bad hex, odd hex, out of range, negative, float counter, duplicate
        // key, 18 counters, a non-empty histogram of the wrong shape, cut short.
        text.replace("ab01", "zz01"),
        text.replace("ab01", "ab0"),
        text.replace(r#""offset":128"#, r#""offset":65536"#),
        text.replace(r#""i2c_address":80"#, r#""i2c_address":256"#),
        text.replace("[3,1,2]", "[18446744073709551616]"),
        text.replace("[3,1,2]", "[-3,1,2]"),
        text.replace("[3,1,2]", "[3.0,1,2]"),
        text.replace("[3,1,2]", "[01,1,2]"),
        text.replace("[3,1,2]", &format!("[{}]", ["1"; 18].join(","))),
        text.replace(r#""histogram":[]"#, r#""histogram":[1]"#),
        text.replace(r#""t":12.5"#, r#""t":12.5,"t":13"#),
        text.replace(r#""t":12.5"#, r#""t":1e400"#),
        text[..text.len() - 3].to_string(),
    ];
    for t in &given_up {
        assert!(fast::parse_record(t.as_bytes()).is_none(), "{t}");
    }
    // A histogram is read by serde, inside a line the fast reader takes.
    let hist = text.replace(r#""histogram":[]"#, r#""histogram":[{"low":0,"high":0,"count":7}]"#);
    let rec = fast::parse_record(hist.as_bytes()).expect("histogram handed to serde");
    assert_eq!(rec, parse_record_serde(hist.as_bytes()).unwrap());
}

/// The bytes of a sample line's one page whose `data` is `hex_text`, as the fast reader
/// reads them (checked against serde by `agrees`).
fn page_data_as_read(hex_text: &[u8]) -> Option<Vec<u8>> {
    let mut line = br#"{"record":"sample","t":1,"interface":"e","link":{"up":true},"fec":null,"module":{"pages":[{"i2c_address":80,"page":0,"offset":0,"data":""#.to_vec();
    line.extend_from_slice(hex_text);
    line.extend_from_slice(br#""}]}}"#);
    agrees(&line).expect("the fast reader agrees with serde").and_then(|r| match r {
        Record::Sample(s) => s.module.and_then(|m| m.pages.into_iter().next()).map(|p| p.data),
        _ => None,
    })
}

#[test]
fn every_byte_pair_of_hex_is_read_as_the_hex_crate_reads_it() {
    for pair in 0..=u16::MAX {
        let pair = pair.to_le_bytes();
        let data = page_data_as_read(&pair);
        assert_eq!(data, hex::decode(pair).ok(), "{pair:?}");
    }
}

#[test]
fn every_line_of_every_bundled_capture_is_taken_and_read_as_serde_reads_it() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("captures");
    let mut files = 0;
    for entry in std::fs::read_dir(&dir).expect("captures/ is bundled") {
        let path = entry.expect("listing captures/").path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        files += 1;
        let text = std::fs::read(&path).expect("reading a bundled capture");
        for (i, line) in text.split(|b| *b == b'\n').enumerate().skip(1).filter(|(_, l)| !l.is_empty()) {
            let r = taken(line).unwrap_or_else(|e| panic!("{} line {}: {e}", path.display(), i + 1));
            assert!(!matches!(r, Record::Header(_)));
        }
    }
    assert!(files >= 20, "{files} bundled captures");
}

#[test]
fn a_line_past_the_limit_is_refused_wherever_the_buffer_ends() {
    let long = || std::io::Read::take(std::io::repeat(b'a'), MAX_LINE_BYTES as u64 + 1);
    let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, long()));
    assert!(matches!(lines.next_line(), Err(CaptureError::LineTooLong { line: 1, .. })));
    // The longest allowed line, then a newline and a short one.
    let at_limit = std::io::Read::chain(std::io::Read::take(std::io::repeat(b'a'), MAX_LINE_BYTES as u64), &b"\nb"[..]);
    let mut lines = Lines::new(std::io::BufReader::with_capacity(1 << 16, at_limit));
    assert_eq!(lines.next_line().unwrap().map(|(n, l)| (n, l.len())), Some((1, MAX_LINE_BYTES)));
    assert_eq!(lines.next_line().unwrap().map(|(n, l)| (n, l.to_vec())), Some((2, b"b".to_vec())));
    assert!(lines.next_line().unwrap().is_none());
}

#[test]
fn every_byte_at_every_place_of_a_long_hex_run_is_read_as_the_hex_crate_reads_it() {
    // 56 digits: 32 read together where the CPU can, then 16, then 8 read by pairs.
    let valid = b"0123456789abcdefABCDEF0123456789aBcDeF0123456789fedcbaFE";
    for at in 0..valid.len() {
        for byte in 0..=u8::MAX {
            let mut text = valid.to_vec();
            text[at] = byte;
            let data = page_data_as_read(&text);
            // A quote or a backslash ends or escapes the string: serde decides, and does not read it as hex.
            if byte != b'"' && byte != b'\\' {
                assert_eq!(data, hex::decode(&text).ok(), "byte {byte:#04x} at {at}");
            }
        }
    }
}

/// Lines read one after another into one record (its buffers reused, whatever the line
/// before left in it, a failed read included) come out as a fresh parse gives them,
/// errors included.
fn read_in_turn(lines: &[Vec<u8>]) -> Result<(), TestCaseError> {
    let mut rec = Record::Sample(SampleRecord::default());
    for line in lines {
        let fresh = super::parse_record(line);
        let reused = super::parse_record_into(line, &mut rec).map(|()| &rec);
        let text = String::from_utf8_lossy(line);
        match (&fresh, reused) {
            (Ok(f), Ok(r)) => {
                prop_assert_eq!(f, r, "line {}", text);
                prop_assert_eq!(f.t().map(f64::to_bits), r.t().map(f64::to_bits));
            }
            (Err(f), Err(r)) => prop_assert_eq!(f.to_string(), r.to_string()),
            (f, r) => prop_assert!(false, "fresh {:?}, reused {:?}: {}", f, r, text),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn records_read_into_the_one_before_are_read_as_fresh(
        recs in prop::collection::vec((record(true), any::<bool>(), prop::collection::vec(edit(), 0..3)), 1..8),
    ) {
        let lines: Vec<Vec<u8>> = recs
            .iter()
            .map(|(rec, sorted, edits)| {
                let mut line = if *sorted { sorted_keys(&written(rec)) } else { written(rec) };
                for e in edits {
                    apply(&mut line, e);
                }
                line
            })
            .collect();
        read_in_turn(&lines)?;
    }
}

#[test]
fn every_bundled_capture_reads_the_same_into_one_record() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("captures");
    for entry in std::fs::read_dir(&dir).expect("captures/ is bundled") {
        let path = entry.expect("listing captures/").path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let fresh = super::read_capture(&path).expect("a bundled capture reads");
        let file = std::io::BufReader::new(std::fs::File::open(&path).expect("opening a bundled capture"));
        let mut reader = super::CaptureReader::new(file).expect("a bundled capture has a header");
        let mut rec = Record::Sample(SampleRecord::default());
        let mut k = 0;
        while reader.next_record_into(&mut rec).expect("a bundled capture reads") {
            assert_eq!(Some(&rec), fresh.records.get(k), "{} record {k}", path.display());
            assert_eq!(rec.t().map(f64::to_bits), fresh.records[k].t().map(f64::to_bits));
            k += 1;
        }
        assert_eq!(k, fresh.records.len(), "{}", path.display());
    }
}

#[test]
fn a_reused_record_keeps_no_large_buffer_a_smaller_line_does_not_need() {
    let sample = |name: String, data: Vec<u8>| {
        written(&Record::Sample(SampleRecord {
            t: 1.0,
            interface: name,
            link: LinkState::default(),
            module: Some(ModulePages { pages: vec![PageEntry { i2c_address: 80, page: 0, bank: 0, offset: 0, data }] }),
            ..SampleRecord::default()
        }))
    };
    let mut rec = Record::Sample(SampleRecord::default());
    assert!(super::parse_record_into(&sample("e".repeat(1 << 20), vec![7; 1 << 20]), &mut rec).is_ok());
    assert!(super::parse_record_into(&sample("e0".into(), vec![7; 2]), &mut rec).is_ok());
    let Record::Sample(s) = &rec else { panic!("a sample line gives a sample") };
    let data = &s.module.as_ref().expect("pages were written").pages[0].data;
    // What `reuse` allows: twice the contents plus a little.
    assert!(data.capacity() <= 2 * 2 + 64, "{}", data.capacity());
    assert!(s.interface.capacity() <= 2 * 2 + 64, "{}", s.interface.capacity());
}
