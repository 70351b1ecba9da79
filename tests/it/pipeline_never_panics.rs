//! No capture content makes the capture -> window -> analysis -> output pipeline panic:
//! counters that reset, wrap near 2^32 and 2^64 or jump to u64::MAX, lane arrays that
//! change length, nonsense histogram bins, timestamps that repeat, go backwards or are
//! huge, random module bytes, absurd link and PCIe facts, random reader input.
//! Errors are fine; panics, failed JSON and JSON that does not parse back are not.

use optics::analysis::{self, compare, Config, InterfaceAnalysis};
use optics::capture::RecordSink;
use optics::capture::{
    read_capture_from, Capture, CaptureWriter, EventKind, EventRecord, Header, InterfaceRecord, ModulePages, Record, SampleRecord,
};
use optics::counters::{DriverStats, FecHistogramBin, FecStats, LinkInfo, LinkState};
use optics::device::{PciLink, PortIdentity};
use optics::module::PageEntry;
use optics::output::csv::CsvSink;
use optics::output::text::{write_comparisons, write_scan, TextOptions};
use optics::sample::engine::{Engine, EngineConfig, TimeRange};
use optics::sample::intervals::IntervalStage;
use proptest::prelude::*;
use proptest::sample::select;
use std::sync::OnceLock;

const EXAMPLE: &str = "tests/fixtures/example_100g_sr4.jsonl";

// ---------------------------------------------------------------- strategies

/// Counter values near every edge the delta rules care about.
fn counter() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..1000,
        1 => Just(u64::MAX),
        1 => 0xFFFF_FF00u64..=0xFFFF_FFFF,
        1 => 0xC000_0000u64..0xC000_0010,
        1 => 0x3FFF_FFF0u64..0x4000_0010,
        1 => (u64::MAX - 0x100)..=u64::MAX,
        1 => any::<u64>(),
    ]
}

/// [], [total], [total, 2 lanes], [total, 8 lanes], 20 lanes, or any length up to 24.
fn counter_array() -> impl Strategy<Value = Vec<u64>> {
    prop_oneof![Just(0usize), Just(1), Just(3), Just(9), Just(21), 0usize..25].prop_flat_map(|n| proptest::collection::vec(counter(), n))
}

fn histogram() -> impl Strategy<Value = Vec<FecHistogramBin>> {
    let bound = prop_oneof![0u32..16, Just(u32::MAX), any::<u32>()];
    proptest::collection::vec(
        (bound.clone(), bound, counter(), proptest::collection::vec(counter(), 0..10))
            .prop_map(|(low, high, count, per_lane)| FecHistogramBin { low, high, count, per_lane }),
        0..4,
    )
}

fn fec() -> impl Strategy<Value = Option<FecStats>> {
    proptest::option::weighted(
        0.85,
        (counter_array(), counter_array(), counter_array(), histogram()).prop_map(
            |(corrected_blocks, uncorrectable_blocks, corrected_bits, histogram)| FecStats {
                corrected_blocks,
                uncorrectable_blocks,
                corrected_bits,
                histogram,
                source: None,
                latest_readings: None,
            },
        ),
    )
}

/// mlx5 and bnxt_en counter names analysis knows, plus near-misses.
const DRIVER_NAMES: &[&str] = &[
    "rx_corrected_bits_phy",
    "rx_corrected_bits",
    "rx_fec_corrected_blocks",
    "rx_fec_uncorrectable_blocks",
    "rx_bits_phy",
    "rx_bits",
    "rx_pcs_symbol_err_phy",
    "rx_pcs_symbol_err",
    "link_down_events_phy",
    "link_down_events",
    "rx_err_lane_0_phy",
    "rx_err_lane_1_phy",
    "rx_err_lane_2_phy",
    "rx_err_lane_3_phy",
    "rx_err_lane_7_phy",
    "rx_err_lane_99999999999999999999999_phy",
    "rx_err_lane__phy",
    "rx_err_lane_-1_phy",
    "",
];

fn driver_stats() -> impl Strategy<Value = DriverStats> {
    proptest::collection::btree_map(select(DRIVER_NAMES).prop_map(std::sync::Arc::<str>::from), counter(), 0..10)
        .prop_map(|m| m.into_iter().collect())
}

fn link_state() -> impl Strategy<Value = LinkState> {
    (any::<Option<bool>>(), any::<Option<u8>>(), any::<Option<u8>>(), proptest::option::of(counter()))
        .prop_map(|(up, ext_state, ext_substate, down_events)| LinkState { up, ext_state, ext_substate, down_events })
}

fn text(known: &'static [&'static str]) -> impl Strategy<Value = Option<String>> {
    proptest::option::weighted(0.9, prop_oneof![3 => select(known).prop_map(String::from), 1 => ".{0,24}"])
}

const LINK_MODES: &[&str] = &[
    "foo",
    "400000baseXYZ9/Full",
    "200000baseSR4/Full",
    "100000baseSR4/Full",
    "100000baseCR4/Full",
    "25000baseSR/Full",
    "10000baseT/Full",
    "800000baseDR8_2/Full",
    "base",
    "0baseSR0/Full",
    "4294967295baseSR4294967295/Full",
    "99999999999999999999baseSR4/Full",
];
const FEC_NAMES: &[&str] = &["RS", "None", "Off", "BASER", "LLRS", "rs", " RS ", "", "FOO"];
const PCI_SPEEDS: &[&str] = &[
    "Unknown",
    "",
    "999 GT/s PCIe",
    "16.0 GT/s PCIe",
    "32.0 GT/s PCIe",
    "2.5 GT/s PCIe",
    "64.0 GT/s PCIe",
    "-1 GT/s PCIe",
    "NaN GT/s",
    "inf GT/s",
    "1e308 GT/s",
    "0 GT/s",
];

fn link_info() -> impl Strategy<Value = LinkInfo> {
    let speed = proptest::option::of(prop_oneof![
        Just(0u32),
        Just(u32::MAX),
        Just(10_000),
        Just(25_000),
        Just(100_000),
        Just(200_000),
        Just(400_000),
        any::<u32>()
    ]);
    let lanes = proptest::option::of(prop_oneof![Just(0u32), Just(1), Just(4), Just(8), Just(255), any::<u32>()]);
    let modes = || proptest::collection::vec(select(LINK_MODES).prop_map(String::from), 0..4);
    let random = (speed, lanes, text(LINK_MODES), text(FEC_NAMES), modes(), modes()).prop_map(
        |(speed_mbps, lanes, link_mode, fec_active, supported_modes, advertised_modes)| LinkInfo {
            speed_mbps,
            lanes,
            link_mode,
            fec_active,
            supported_modes,
            advertised_modes,
        },
    );
    // Links analysis understands, so BER, margin and ranking run on the odd counters.
    let coherent = (
        select(
            &[
                ("200000baseSR4/Full", 200_000u32, 4u32),
                ("100000baseSR4/Full", 100_000, 4),
                ("25000baseSR/Full", 25_000, 1),
                ("400000baseDR4/Full", 400_000, 4),
                ("200000baseCR4/Full", 200_000, 4),
            ][..],
        ),
        select(&["RS", "None", "BASER"][..]),
        any::<bool>(),
    )
        .prop_map(|((mode, speed, lanes), fec, with_lanes)| LinkInfo {
            speed_mbps: Some(speed),
            lanes: with_lanes.then_some(lanes),
            link_mode: Some(mode.into()),
            fec_active: Some(fec.into()),
            ..Default::default()
        });
    prop_oneof![random, coherent]
}

fn pci() -> impl Strategy<Value = Option<PciLink>> {
    let width = proptest::option::of(prop_oneof![Just(0u32), Just(1), Just(4), Just(16), Just(u32::MAX)]);
    proptest::option::of((text(PCI_SPEEDS), width.clone(), text(PCI_SPEEDS), width, any::<Option<i32>>()).prop_map(
        |(current_link_speed, current_link_width, max_link_speed, max_link_width, numa_node)| PciLink {
            current_link_speed,
            current_link_width,
            max_link_speed,
            max_link_width,
            numa_node,
        },
    ))
}

const BUS_INFOS: &[&str] = &["0000:01:00.0", "0000:01:00.1", "0002:01:00.0", "", ".", "no-dot"];

/// Every family's identifier and some that are none.
fn identifier() -> impl Strategy<Value = u8> {
    prop_oneof![Just(0x03u8), Just(0x0d), Just(0x11), Just(0x18), Just(0x19), Just(0x1e), Just(0x00), any::<u8>()]
}

/// One page entry of a valid shape (inside one half page), random bytes.
fn page_entry() -> impl Strategy<Value = PageEntry> {
    let addr = prop_oneof![Just(0x50u8), Just(0x51), 0u8..0x80];
    let page = prop_oneof![Just(0u8), Just(1), Just(2), Just(3), Just(0x10), Just(0x11), any::<u8>()];
    let offset = prop_oneof![Just(0u16), Just(128), 0u16..256];
    (addr, page, 0u8..3, offset, proptest::collection::vec(any::<u8>(), 1..=128)).prop_map(|(i2c_address, page, bank, offset, mut data)| {
        let half_end = if offset < 128 { 128 } else { 256 };
        data.truncate(half_end - offset as usize);
        // Lower memory belongs to page 0 bank 0 only.
        let (page, bank) = if offset < 128 { (0, 0) } else { (page, bank) };
        PageEntry { i2c_address, page, bank, offset, data }
    })
}

/// The example capture's module pages (a real SFF-8636 100G-SR4), read once.
fn example_pages() -> &'static [PageEntry] {
    static PAGES: OnceLock<Vec<PageEntry>> = OnceLock::new();
    PAGES.get_or_init(|| {
        let cap = optics::capture::read_capture(EXAMPLE).expect("example capture");
        cap.records
            .iter()
            .find_map(|r| match r {
                Record::Interface(i) => i.module.as_ref().map(|m| m.pages.clone()),
                _ => None,
            })
            .expect("example has module pages")
    })
}

/// Module pages: none, random pages behind a chosen identifier, the real example with
/// random bytes overwritten (so lanes, thresholds and monitors decode to odd values), or
/// an entry of an invalid shape.
fn module_pages() -> impl Strategy<Value = Option<ModulePages>> {
    let random = (identifier(), proptest::collection::vec(page_entry(), 0..6)).prop_map(|(id, mut pages)| {
        pages.insert(0, PageEntry { i2c_address: 0x50, page: 0, bank: 0, offset: 0, data: vec![id] });
        pages
    });
    let mutated =
        proptest::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>(), any::<u8>()), 0..40).prop_map(|edits| {
            let mut pages = example_pages().to_vec();
            for (p, b, v) in edits {
                let page = p.get_mut(&mut pages);
                if !page.data.is_empty() {
                    *b.get_mut(&mut page.data) = v;
                }
            }
            pages
        });
    let bad_shape = (any::<u8>(), any::<u8>(), any::<u16>(), proptest::collection::vec(any::<u8>(), 0..300))
        .prop_map(|(i2c_address, page, offset, data)| vec![PageEntry { i2c_address, page, bank: 0, offset, data }]);
    proptest::option::weighted(0.8, prop_oneof![3 => random, 4 => mutated, 1 => bad_shape].prop_map(|pages| ModulePages { pages }))
}

/// Mostly one interface, so its windows hold several samples.
const IFACES: &[&str] = &["eth0", "eth0", "eth0", "eth1", ""];

/// A timestamp as generated; `Timing` may rewrite it.
fn timestamp() -> impl Strategy<Value = f64> {
    prop_oneof![
        4 => 0.0f64..100.0,
        1 => Just(0.0),
        1 => Just(-0.0),
        1 => -1e6f64..0.0,
        1 => Just(1e300),
        1 => Just(-1e300),
        1 => Just(f64::MAX),
        1 => Just(f64::MIN_POSITIVE),
        1 => Just(1e12),
        // Not representable in a capture file (JSON has no NaN or infinities), but a
        // `Record` built in memory can carry them.
        1 => prop_oneof![Just(f64::NAN), Just(f64::INFINITY), Just(f64::NEG_INFINITY)],
    ]
}

fn interface_record() -> impl Strategy<Value = Record> {
    (
        timestamp(),
        select(IFACES),
        text(&["mlx5_core", "bnxt_en", "ice"]),
        text(BUS_INFOS),
        pci(),
        proptest::option::of(any::<Option<u32>>().prop_map(|dev_port| PortIdentity {
            phys_port_name: Some("p0".into()),
            dev_port,
            phys_switch_id: None,
        })),
        link_info(),
        module_pages(),
    )
        .prop_map(|(t, iface, driver, bus_info, pci, port, link, module)| {
            Record::Interface(InterfaceRecord {
                t,
                interface: iface.into(),
                driver,
                bus_info,
                pci,
                port,
                link,
                module,
                origin_file: None,
                host: None,
                ib: None,
                neighbor: None,
            })
        })
}

fn sample_record() -> impl Strategy<Value = Record> {
    (timestamp(), select(IFACES), link_state(), fec(), driver_stats(), module_pages()).prop_map(
        |(t, iface, link, fec, driver_stats, module)| {
            Record::Sample(SampleRecord { t, interface: iface.into(), link, fec, driver_stats, module, ..Default::default() })
        },
    )
}

fn event_record() -> impl Strategy<Value = Record> {
    let kind = select(&[EventKind::CounterReset, EventKind::ModuleChanged, EventKind::InterfaceGone, EventKind::Error][..]);
    (timestamp(), select(IFACES), kind, prop_oneof![Just("module read failed".to_string()), ".{0,20}"])
        .prop_map(|(t, iface, kind, message)| Record::Event(EventRecord { t, interface: iface.into(), kind, message, layer: None }))
}

/// How the generated timestamps are rewritten, so that windows with several samples
/// (and so deltas) are common.
#[derive(Clone, Copy, Debug)]
enum Timing {
    AsGenerated,
    /// Samples 1 s apart (a healthy capture).
    Steady,
    /// Every record at the same instant.
    AllSame(f64),
}

/// How counters are rewritten across samples.
#[derive(Clone, Copy, Debug)]
enum Counters {
    AsGenerated,
    /// Each value becomes a running sum of (generated value mod 2^20) from `start`,
    /// wrapping at 2^64 (or at 2^32 when `u32`): mostly increases, with wraps.
    Running {
        start: u64,
        u32: bool,
    },
}

fn timing() -> impl Strategy<Value = Timing> {
    prop_oneof![
        1 => Just(Timing::AsGenerated),
        2 => Just(Timing::Steady),
        1 => timestamp().prop_map(Timing::AllSame),
    ]
}

fn counters_mode() -> impl Strategy<Value = Counters> {
    prop_oneof![
        1 => Just(Counters::AsGenerated),
        2 => (prop_oneof![Just(0u64), Just(0xFFFF_0000), Just(u64::MAX - 0xFFFF_FFFF), counter()], any::<bool>())
            .prop_map(|(start, u32)| Counters::Running { start, u32 }),
    ]
}

fn running(v: &mut u64, prev: &mut u64, u32: bool) {
    let next = prev.wrapping_add(*v % (1 << 20));
    *prev = if u32 { next & 0xFFFF_FFFF } else { next };
    *v = *prev;
}

/// Applies the timing and counter modes in record order. `stable` keeps each
/// interface's module and counter array lengths as first seen, so segments run long.
fn shape(mut records: Vec<Record>, timing: Timing, counters: Counters, stable: bool) -> Vec<Record> {
    let mut acc: std::collections::HashMap<(String, &'static str, usize), u64> = Default::default();
    let mut first_module: std::collections::HashMap<String, Option<ModulePages>> = Default::default();
    let mut first_len: std::collections::HashMap<(String, &'static str), usize> = Default::default();
    for (i, r) in records.iter_mut().enumerate() {
        if stable {
            match r {
                Record::Interface(x) => {
                    x.module = first_module.entry(x.interface.clone()).or_insert_with(|| x.module.clone()).clone();
                }
                Record::Sample(s) => {
                    let iface = s.interface.clone();
                    if let Some(f) = s.fec.as_mut() {
                        for (name, arr) in
                            [("cb", &mut f.corrected_blocks), ("ub", &mut f.uncorrectable_blocks), ("bits", &mut f.corrected_bits)]
                        {
                            arr.resize(*first_len.entry((iface.clone(), name)).or_insert(arr.len()), 0);
                        }
                    }
                }
                _ => {}
            }
        }
        let t = match timing {
            Timing::AsGenerated => None,
            Timing::Steady => Some(i as f64),
            Timing::AllSame(t) => Some(t),
        };
        match r {
            Record::Interface(x) => x.t = t.unwrap_or(x.t),
            Record::Event(x) => x.t = t.unwrap_or(x.t),
            Record::Header(_) => {}
            Record::Sample(s) => {
                s.t = t.unwrap_or(s.t);
                let Counters::Running { start, u32 } = counters else {
                    continue;
                };
                let iface = s.interface.clone();
                let mut step = |name: &'static str, idx: usize, v: &mut u64| {
                    let prev = acc.entry((iface.clone(), name, idx)).or_insert(start);
                    running(v, prev, u32);
                };
                if let Some(f) = s.fec.as_mut() {
                    for (name, arr) in
                        [("cb", &mut f.corrected_blocks), ("ub", &mut f.uncorrectable_blocks), ("bits", &mut f.corrected_bits)]
                    {
                        for (i, v) in arr.iter_mut().enumerate() {
                            step(name, i, v);
                        }
                    }
                    for (b, bin) in f.histogram.iter_mut().enumerate() {
                        step("bin", 100 * b, &mut bin.count);
                        for (i, v) in bin.per_lane.iter_mut().enumerate() {
                            step("bin", 100 * b + 1 + i, v);
                        }
                    }
                }
                if let Some(d) = s.link.down_events.as_mut() {
                    step("down", 0, d);
                }
                for (i, v) in s.driver_stats.values_mut().enumerate() {
                    step("drv", i, v);
                }
            }
        }
    }
    records
}

fn records() -> impl Strategy<Value = Vec<Record>> {
    (
        proptest::collection::vec(prop_oneof![2 => interface_record(), 8 => sample_record(), 1 => event_record()], 0..20),
        timing(),
        counters_mode(),
        any::<bool>(),
    )
        .prop_map(|(r, t, c, stable)| shape(r, t, c, stable))
}

const CREATED: &[&str] = &["2026-11-30T10:00:00Z", "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "garbage", ""];

fn header(created: &str) -> Header {
    Header { format: "optics-capture".into(), version: 1, created: created.into(), host: None, kernel: None, tool: None, source: None }
}

// ---------------------------------------------------------------- the pipeline

/// Configurations that stress the statistics: confidence at and past its ends, floors
/// and ratios of zero, NaN and negative efficiency, profiles everywhere.
fn configs() -> Vec<Config> {
    let d = Config::default();
    vec![
        d.clone(),
        Config { confidence: 0.0, ..d.clone() },
        Config { confidence: 1.0, outlier_ratio: 0.0, margin_floor_db: 1e9, ..d.clone() },
        Config { confidence: 2.0, outlier_min_limit_fraction: 0.0, optical_margin_floor_db: f64::NAN, pcie_efficiency: -1.0, ..d.clone() },
        Config {
            confidence: f64::NAN,
            pcie_efficiency: 0.0,
            signature_slope_min: f64::NAN,
            profiles: serde_json::from_str(
                r#"[{"min_lane_gbps":0,"margin_floor_db":-5,"outlier_ratio":0},{"min_lane_gbps":1e300,"rx_low_delta_db":0}]"#,
            )
            .expect("profiles"),
            ..d
        },
    ]
}

/// JSON must serialise and parse back (NaN and infinities become `null`, never literals).
fn json_round_trips<T: serde::Serialize + std::fmt::Debug>(v: &T) -> Result<(), TestCaseError> {
    let s = serde_json::to_string(v).map_err(|e| TestCaseError::fail(format!("serialise: {e}")))?;
    prop_assert!(serde_json::from_str::<serde_json::Value>(&s).is_ok(), "JSON does not parse back: {s}");
    Ok(())
}

/// Windows, analysis (alone and with peers, under each config), JSON, text, comparisons, CSV.
fn run_pipeline(cap: &Capture, cfgs: &[Config]) -> Result<(), TestCaseError> {
    let ws = windows(cap, TimeRange::whole());
    let range = TimeRange { from: Some(1.0), to: Some(5.0) };
    let sub = windows(cap, range);
    let mut peers = ws.clone();
    peers.reverse();
    let mut all: Vec<InterfaceAnalysis> = Vec::new();
    for (i, cfg) in cfgs.iter().enumerate() {
        let mut a = analysis::analyze(&ws, cfg, &[]);
        // Peers: the other interfaces' windows, and on the first config the same windows.
        let p = analysis::analyze(&ws, cfg, if i == 0 { &ws } else { &peers });
        a.extend(p);
        a.extend(analysis::analyze(&sub, cfg, &[]));
        json_round_trips(&a)?;
        let mut text = Vec::new();
        write_scan(&mut text, &a, &TextOptions::default()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        all.extend(a);
    }
    let comparisons: Vec<_> = all.iter().take(6).flat_map(|b| all.iter().take(6).map(move |a| compare(b, a))).collect();
    json_round_trips(&comparisons)?;
    let mut text = Vec::new();
    write_comparisons(&mut text, &comparisons).map_err(|e| TestCaseError::fail(e.to_string()))?;

    let mut sink = CsvSink::new(Vec::new(), None);
    let mut stage = IntervalStage::new(cfgs[0].clone(), vec![&mut sink]);
    stage.record(&Record::Header(cap.header.clone())).map_err(|e| TestCaseError::fail(e.to_string()))?;
    for r in &cap.records {
        stage.record(r).map_err(|e| TestCaseError::fail(e.to_string()))?;
    }
    Ok(())
}

fn capture(created: &str, records: Vec<Record>) -> Capture {
    Capture { header: header(created), records, notes: Vec::new() }
}

// ---------------------------------------------------------------- properties

/// `cases` per property, enough for < 20 s in a debug build on 2 cores; a longer hunt:
/// `OPTICS_FUZZ_CASES=20000 cargo test --release --test pipeline_never_panics`.
fn config(cases: u32) -> ProptestConfig {
    let cases = std::env::var("OPTICS_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(cases);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn pipeline_never_panics(records in records(), created in select(CREATED)) {
        let cap = capture(created, records);
        run_pipeline(&cap, &configs())?;
    }

    #[test]
    fn written_captures_read_back_and_analyse(records in records(), cut in any::<prop::sample::Index>()) {
        // What the writer writes the reader reads back; the reread capture, and any
        // truncation of it, goes through the pipeline too.
        let mut w = CaptureWriter::new(Vec::new(), &header(CREATED[0])).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for r in &records {
            let _ = w.write(r);
        }
        let bytes = w.into_inner().unwrap();
        // A non-finite `t` is written as `null`, which the reader refuses (with an error).
        let finite = records.iter().all(|r| r.t().is_none_or(f64::is_finite));
        // FEC arrays longer than any port's lanes are refused by the reader.
        let lanes_fit = records.iter().all(|r| match r {
            Record::Sample(s) => s.fec.as_ref().is_none_or(|f| {
                [&f.corrected_blocks, &f.uncorrectable_blocks, &f.corrected_bits].iter().all(|a| a.len() <= 1 + optics::counters::MAX_LANES)
            }),
            _ => true,
        });
        match read_capture_from(&bytes[..]) {
            Ok(cap) => run_pipeline(&cap, &configs()[..1])?,
            Err(e) => prop_assert!(!finite || !lanes_fit, "written capture does not read back: {e}"),
        }
        let cut = cut.index(bytes.len() + 1);
        if let Ok(cap) = read_capture_from(&bytes[..cut]) {
            run_pipeline(&cap, &configs()[..1])?;
        }
    }
}

/// Random JSON values whose keys come from the capture vocabulary, so the reader's
/// field handling (not only its syntax errors) is exercised.
fn json_value() -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    const KEYS: &[&str] = &[
        "record",
        "format",
        "version",
        "created",
        "t",
        "interface",
        "link",
        "fec",
        "driver_stats",
        "module",
        "pages",
        "i2c_address",
        "page",
        "bank",
        "offset",
        "data",
        "kind",
        "message",
        "up",
        "down_events",
        "corrected_bits",
        "histogram",
        "low",
        "high",
        "count",
        "per_lane",
        "speed_mbps",
        "lanes",
        "pci",
    ];
    const STRINGS: &[&str] = &["header", "sample", "interface", "event", "optics-capture", "error", "counter_reset", "00ff", "zz", "RS"];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        prop_oneof![Just(1e300), Just(-1e300), Just(-0.0), Just(0.5), any::<f64>()].prop_map(Value::from),
        prop_oneof![select(STRINGS).prop_map(String::from), ".{0,8}"].prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((select(KEYS).prop_map(String::from), inner), 0..8)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Number of nodes of a JSON tree.
fn node_count(v: &serde_json::Value) -> usize {
    1 + match v {
        serde_json::Value::Array(a) => a.iter().map(node_count).sum(),
        serde_json::Value::Object(o) => o.values().map(node_count).sum(),
        _ => 0,
    }
}

/// Replaces the `n`-th node (pre-order, 0 = the root) of `v` with `new`.
fn replace_node(v: &mut serde_json::Value, n: usize, new: serde_json::Value) {
    fn walk(v: &mut serde_json::Value, n: usize, new: &mut Option<serde_json::Value>, seen: &mut usize) {
        if new.is_none() {
            return;
        }
        if *seen == n {
            if let Some(x) = new.take() {
                *v = x;
            }
            return;
        }
        *seen += 1;
        match v {
            serde_json::Value::Array(a) => a.iter_mut().for_each(|x| walk(x, n, new, seen)),
            serde_json::Value::Object(o) => o.values_mut().for_each(|x| walk(x, n, new, seen)),
            _ => {}
        }
    }
    walk(v, n, &mut Some(new), &mut 0);
}

proptest! {
    #![proptest_config(config(400))]

    #[test]
    fn reader_survives_random_lines(lines in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..80), 0..6)) {
        let _ = read_capture_from(&lines.join(&b'\n')[..]);
        // Behind a valid header too, so the record parser sees them.
        let mut text = serde_json::to_vec(&Record::Header(header(CREATED[0]))).map_err(|e| TestCaseError::fail(e.to_string()))?;
        for l in &lines {
            text.push(b'\n');
            text.extend_from_slice(l);
        }
        let _ = read_capture_from(&text[..]);
    }

    #[test]
    fn reader_survives_mutated_records(records in records(), edits in proptest::collection::vec((any::<prop::sample::Index>(), json_value()), 1..4)) {
        // Valid records with one node replaced by random JSON: near misses of every field.
        let mut text = serde_json::to_string(&Record::Header(header(CREATED[0]))).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut values: Vec<serde_json::Value> = records.iter().filter_map(|r| serde_json::to_value(r).ok()).collect();
        for (at, v) in edits {
            if values.is_empty() {
                break;
            }
            let target = at.get_mut(&mut values);
            let n = at.index(node_count(target));
            replace_node(target, n, v);
        }
        for v in &values {
            text.push('\n');
            text.push_str(&v.to_string());
        }
        if let Ok(cap) = read_capture_from(text.as_bytes()) {
            run_pipeline(&cap, &configs()[..1])?;
        }
    }

    #[test]
    fn reader_survives_random_json(values in proptest::collection::vec(json_value(), 0..5), with_header in any::<bool>()) {
        let mut text = if with_header {
            serde_json::to_string(&Record::Header(header(CREATED[0]))).map_err(|e| TestCaseError::fail(e.to_string()))?
        } else {
            String::new()
        };
        for v in &values {
            text.push('\n');
            text.push_str(&v.to_string());
        }
        if let Ok(cap) = read_capture_from(text.as_bytes()) {
            run_pipeline(&cap, &configs()[..1])?;
        }
    }
}

// ---------------------------------------------------------------- regressions

/// The CSV rows of `records` behind a header created at `created`, parsed back.
fn csv_rows(created: &str, records: &[Record]) -> Vec<csv::StringRecord> {
    let mut out = Vec::new();
    {
        let mut sink = CsvSink::new(&mut out, None);
        let mut stage = IntervalStage::new(Config::default(), vec![&mut sink]);
        stage.record(&Record::Header(header(created))).expect("header");
        for r in records {
            stage.record(r).expect("record");
        }
    }
    csv::Reader::from_reader(&out[..]).records().collect::<Result<_, _>>().expect("CSV parses")
}

fn bare_sample(t: f64) -> Record {
    Record::Sample(SampleRecord {
        t,
        interface: "eth0".into(),
        link: LinkState::default(),
        fec: None,
        driver_stats: DriverStats::new(),
        module: None,
        ..Default::default()
    })
}

/// Found by `pipeline_never_panics`: `time::Duration::seconds_f64(1e300)` panicked
/// ("overflow constructing `time::SignedDuration`") while stamping the row's wall-clock time.
#[test]
fn csv_sample_at_t_1e300_has_no_time_instead_of_a_panic() {
    let rows = csv_rows("2026-11-30T10:00:00Z", &[bare_sample(1.5), bare_sample(1e300)]);
    assert_eq!(rows.len(), 2);
    // 10:00:00 + 1.5 s = 10:00:01.5, RFC 3339 in UTC.
    assert_eq!(&rows[0][0], "2026-11-30T10:00:01.500000Z");
    // 1e300 s is ~3e292 years: no date; the row itself is still written.
    assert_eq!(&rows[1][0], "");
    assert_eq!(&rows[1][2], "eth0");
}

/// The same path: a duration that fits, added to a start at the end of year 9999,
/// overflowed the date ("resulting value is out of range") and panicked.
#[test]
fn csv_time_past_year_9999_is_empty_instead_of_a_panic() {
    let rows = csv_rows("9999-12-31T23:59:59Z", &[bare_sample(0.5), bare_sample(2.0)]);
    // 23:59:59 + 0.5 s still falls in 9999; + 2 s would be year 10000.
    assert_eq!(&rows[0][0], "9999-12-31T23:59:59.500000Z");
    assert_eq!(&rows[1][0], "");
}

/// Every interface's window over `range`, through the streaming engine.
fn windows(cap: &Capture, range: TimeRange) -> Vec<optics::analysis::InterfaceWindow> {
    let mut e = Engine::new(EngineConfig { range, ..Default::default() });
    cap.records.iter().for_each(|r| e.push(r));
    e.windows()
}
