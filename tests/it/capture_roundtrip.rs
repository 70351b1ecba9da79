//! Capture format: the shared example read as specified, write/read round trip, the
//! reader's tolerance rules, replay, the module read economy and the sampling loop.

use optics::capture::RecordSink;
use optics::capture::{read_capture, read_capture_from, CaptureError, CaptureWriter, EventKind, Header, Record};
use optics::counters::{DriverStats, FecStats, LinkInfo, LinkState, Origin};
use optics::device::DeviceIdentity;
use optics::module::fingerprint::fingerprint;
use optics::module::{ModuleImage, PageRequest, I2C_A0};
use optics::sample::engine::{Engine, EngineConfig, TimeRange};
use optics::sample::module_cache::ModuleCache;
use optics::sample::watch::{watch_until, StopReason, WatchConfig};
use optics::source::replay::ReplaySource;
use optics::source::{IoCounts, PathsUsed, Source, SourceError};
use std::time::Duration;

const EXAMPLE: &str = "tests/fixtures/example_100g_sr4.jsonl";

fn example_text() -> String {
    std::fs::read_to_string(EXAMPLE).unwrap()
}

#[test]
fn example_capture_reads_as_specified() {
    let cap = read_capture(EXAMPLE).unwrap();
    assert_eq!(cap.header.version, 1);
    assert_eq!(cap.header.kernel.as_deref(), Some("6.18.0"));
    assert!(cap.notes.is_empty());
    // 32 lines: header + 1 interface record + 30 samples.
    assert_eq!(cap.records.len(), 31);
    assert_eq!(cap.interfaces(), vec!["ens3np0".to_string()]);
    assert_eq!(cap.samples_for("ens3np0").count(), 30);
    let ir: Vec<_> = cap.interface_records_for("ens3np0").collect();
    assert_eq!(ir.len(), 1);
    let ir = ir[0];
    assert_eq!(ir.driver.as_deref(), Some("mlx5_core"));
    assert_eq!(ir.bus_info.as_deref(), Some("0000:3b:00.0"));
    assert_eq!(ir.pci.as_ref().unwrap().current_link_width, Some(16));
    assert_eq!(ir.port.as_ref().unwrap().phys_port_name.as_deref(), Some("p0"));
    assert_eq!(ir.link.speed_mbps, Some(100_000));
    assert_eq!(ir.link.lanes, Some(4));
    assert_eq!(ir.link.fec_active.as_deref(), Some("RS"));
    let img = ir.module.as_ref().unwrap().image().unwrap();
    // Byte 0 = 0x11: QSFP28 (SFF-8024 Table 4-1). Page 00h bytes 196-211 (SFF-8636
    // Table 6-15) hex 45 58 32 36 31 31 53 52 34 43 30 30 34 32 20 20 = "EX2611SR4C0042  ".
    let fp = fingerprint(&img).unwrap();
    assert_eq!(fp[0], 0x11);
    assert_eq!(&fp[1..], b"EX2611SR4C0042  ");
    assert!(img.has_upper_page(I2C_A0, 3, 0));
}

#[test]
fn window_over_the_example_is_healthy() {
    let cap = read_capture(EXAMPLE).unwrap();
    let w = windows(&cap, TimeRange::whole());
    assert_eq!(w.len(), 1);
    let w = &w[0];
    assert_eq!(w.samples, 30);
    // First sample t=0.0, last t=28.9998.
    assert!((w.duration_s - 28.9998).abs() < 1e-9, "{}", w.duration_s);
    assert_eq!(w.link_up, Some(true));
    assert_eq!(w.identity.driver.as_deref(), Some("mlx5_core"));
    assert_eq!(w.link.speed_mbps, Some(100_000));
    let bits = w.deltas.corrected_bits.as_ref().unwrap();
    assert_eq!((bits.value, &bits.origin), (0, &Origin::netlink()));
    // Netlink has totals only; lanes come from mlx5 rx_err_lane_N_phy, all flat.
    assert_eq!(w.deltas.corrected_bits_per_lane.as_ref().unwrap().values, vec![0, 0, 0, 0]);
    assert_eq!(w.deltas.uncorrectable_blocks.as_ref().unwrap().value, 0);
    assert_eq!(w.deltas.link_down_events.as_ref().unwrap().value, 0);
    assert!(w.module.is_some(), "{:?}", w.module_error);
    assert!(w.events.is_empty(), "{:?}", w.events);

    // A sub-window: samples at 1.001 .. 10.x only.
    let sub = windows(&cap, TimeRange { from: Some(1.0), to: Some(10.5) });
    assert!(sub[0].samples < 30 && sub[0].samples > 5);
    assert!(sub[0].duration_s < 10.0);
}

#[test]
fn write_then_read_is_identical() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut w = CaptureWriter::new(Vec::new(), &cap.header).unwrap();
    for r in &cap.records {
        w.write(r).unwrap();
    }
    let bytes = w.into_inner();
    let back = read_capture_from(&bytes[..]).unwrap();
    assert_eq!(back, cap);
    // And writing again gives the same bytes.
    let mut w2 = CaptureWriter::new(Vec::new(), &back.header).unwrap();
    for r in &back.records {
        w2.record(r).unwrap();
    }
    assert_eq!(w2.into_inner(), bytes);
}

#[test]
fn a_record_time_json_cannot_carry_is_refused() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut rec = cap.records.iter().find(|r| matches!(r, Record::Sample(_))).unwrap().clone();
    if let Record::Sample(s) = &mut rec {
        s.t = f64::NAN;
    }
    let header_only = CaptureWriter::new(Vec::new(), &cap.header).unwrap().into_inner().len();
    let mut w = CaptureWriter::new(Vec::new(), &cap.header).unwrap();
    assert_eq!(w.write(&rec).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(w.into_inner().len(), header_only, "nothing written for the refused record");
}

#[test]
fn truncated_last_line_is_tolerated_with_a_note() {
    let text = example_text();
    let cut = &text[..text.trim_end().len() - 200];
    let cap = read_capture_from(cut.as_bytes()).unwrap();
    assert_eq!(cap.samples_for("ens3np0").count(), 29);
    assert_eq!(cap.notes.len(), 1);
    assert!(cap.notes[0].contains("line 32"), "{}", cap.notes[0]);
}

#[test]
fn bad_middle_line_is_an_error_naming_it() {
    let mut lines: Vec<String> = example_text().lines().map(String::from).collect();
    lines[4] = lines[4][..100].to_string(); // line 5, cut short but not the last line
    let err = read_capture_from(lines.join("\n").as_bytes()).unwrap_err();
    assert!(matches!(err, CaptureError::BadLine { line: 5, .. }), "{err}");
    assert!(err.to_string().starts_with("line 5:"), "{err}");
    // An unknown record type in the middle is also an error.
    let mut lines: Vec<String> = example_text().lines().map(String::from).collect();
    lines[2] = r#"{"record":"bogus","t":1.0}"#.into();
    assert!(matches!(read_capture_from(lines.join("\n").as_bytes()), Err(CaptureError::BadLine { line: 3, .. })));
}

#[test]
fn other_versions_are_refused_clearly() {
    let text = example_text().replacen("\"version\":1", "\"version\":2", 1);
    let err = read_capture_from(text.as_bytes()).unwrap_err();
    assert!(matches!(err, CaptureError::UnsupportedVersion { found: 2 }));
    assert!(err.to_string().contains("version 2"), "{err}");
    let text = example_text().replacen("optics-capture", "other", 1);
    assert!(matches!(read_capture_from(text.as_bytes()), Err(CaptureError::WrongFormat { .. })));
    assert!(matches!(read_capture_from(&b""[..]), Err(CaptureError::Empty)));
}

#[test]
fn replay_serves_captured_bytes_and_advances() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut src = ReplaySource::new(&cap);
    let first = src.read_eeprom("ens3np0", PageRequest::lower(I2C_A0)).unwrap();
    let s0: Vec<_> = cap.samples_for("ens3np0").collect();
    assert_eq!(first, s0[0].module.as_ref().unwrap().pages[0].data);
    // Page 3 (thresholds) comes from the interface record; first byte 0x4b = 75 degC.
    let p3 = src.read_eeprom("ens3np0", PageRequest::new(I2C_A0, 3, 0, 128, 2)).unwrap();
    assert_eq!(p3, vec![0x4b, 0x00]);
    assert!(src.read_eeprom("ens3np0", PageRequest::upper(I2C_A0, 2, 0)).unwrap_err().is_not_supported());
    assert!(src.link_state("eth9").unwrap_err().is_no_device());
    // Three module reads (the refused one counts as a request): 128 + 2 bytes.
    assert_eq!(src.io_counts(), IoCounts { requests: 3, bytes: 130 });
    assert!(src.advance());
    assert_eq!(src.current_sample("ens3np0").unwrap().t, 1.001);
    while src.advance() {}
    assert!(src.link_state("ens3np0").unwrap_err().is_no_device());
}

#[test]
fn module_cache_reads_static_pages_once() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut src = ReplaySource::new(&cap);
    let mut cache = ModuleCache::new();
    let first = cache.sample(&mut src, "ens3np0").unwrap();
    assert!(first.changed);
    assert!(first.static_pages.is_some());
    let img = cache.static_image().unwrap().clone();
    assert!(img.has_lower(I2C_A0));
    // The first sample's monitor bytes come from the static pages just read: no second read.
    assert_eq!(cache.io.bytes, img.len() as u64);
    assert!(!first.monitor.is_empty());
    src.advance();
    let before = cache.io.clone();
    let second = cache.sample(&mut src, "ens3np0").unwrap();
    assert!(second.static_pages.is_none() && !second.changed);
    // Only monitor bytes (or the 1-byte presence probe) are read after the first sample.
    let monitor: usize = optics::module::monitor_requests(&img).unwrap().iter().map(|r| r.length as usize).sum();
    let expect_bytes = if monitor == 0 { 1 } else { monitor as u64 };
    assert_eq!(cache.io.bytes - before.bytes, expect_bytes);
    assert_eq!(second.monitor.iter().map(|e| e.data.len() as u64).sum::<u64>(), expect_bytes);
}

// ---- A fake source for the sampling loop ------------------------------------------------

#[derive(Clone, Default)]
struct FakeCfg {
    /// Tick from which the netdev is gone.
    vanish_at: Option<u64>,
    fec: bool,
    /// Tick at which the FEC counters restart from zero.
    reset_at: Option<u64>,
    module: bool,
    /// Tick at which every module read fails (EEPROM busy).
    module_busy_at: Option<u64>,
    /// Tick from which another module (another serial number) is plugged in.
    swap_at: Option<u64>,
}

struct Fake {
    cfg: FakeCfg,
    tick: u64,
    io: IoCounts,
}

fn qsfp28_image(sn: &[u8; 16]) -> ModuleImage {
    let mut img = ModuleImage::new();
    let mut lower = [0u8; 128];
    lower[0] = 0x11; // QSFP28
    img.insert(I2C_A0, 0, 0, 0, &lower).unwrap();
    let mut upper = [0u8; 128];
    upper[0] = 0x11;
    upper[196 - 128..212 - 128].copy_from_slice(sn); // SFF-8636 Table 6-15 vendor SN
    img.insert(I2C_A0, 0, 0, 128, &upper).unwrap();
    img.insert(I2C_A0, 3, 0, 128, &[0u8; 128]).unwrap();
    img
}

impl Fake {
    fn gone(&self, what: &str) -> Result<(), SourceError> {
        match self.cfg.vanish_at {
            Some(v) if self.tick >= v => Err(SourceError::NoDevice { what: what.into(), iface: "fake".into(), message: None }),
            _ => Ok(()),
        }
    }
    fn not_supported(what: &str) -> SourceError {
        SourceError::NotSupported { what: what.into(), driver: Some("fake".into()), message: None }
    }
}

impl Source for Fake {
    fn interfaces(&mut self) -> Result<Vec<String>, SourceError> {
        Ok(vec![])
    }
    fn identity(&mut self, _: &str) -> Result<DeviceIdentity, SourceError> {
        self.gone("identity")?;
        Ok(DeviceIdentity { driver: Some("fake".into()), ..Default::default() })
    }
    fn link_info(&mut self, _: &str) -> Result<LinkInfo, SourceError> {
        self.gone("link info")?;
        Ok(LinkInfo { speed_mbps: Some(100_000), lanes: Some(2), ..Default::default() })
    }
    fn link_state(&mut self, _: &str) -> Result<LinkState, SourceError> {
        self.gone("link state")?;
        Ok(LinkState { up: Some(true), down_events: Some(0), ..Default::default() })
    }
    fn fec(&mut self, _: &str) -> Result<FecStats, SourceError> {
        self.gone("fec")?;
        if !self.cfg.fec {
            return Err(Self::not_supported("fec"));
        }
        // Lanes grow by 4 and 6 per tick; after a reset they start again from zero.
        let n = match self.cfg.reset_at {
            Some(r) if self.tick >= r => self.tick - r,
            _ => self.tick + 100,
        };
        Ok(FecStats { corrected_bits: vec![10 * n, 4 * n, 6 * n], ..Default::default() })
    }
    fn driver_stats(&mut self, _: &str) -> Result<DriverStats, SourceError> {
        self.gone("driver stats")?;
        Ok(DriverStats::new())
    }
    fn read_eeprom(&mut self, _: &str, req: PageRequest) -> Result<Vec<u8>, SourceError> {
        self.gone("module")?;
        self.io.requests += 1;
        if !self.cfg.module {
            return Err(Self::not_supported("module"));
        }
        if self.cfg.module_busy_at == Some(self.tick) {
            return Err(SourceError::Busy { what: "module".into(), message: None });
        }
        let img = match self.cfg.swap_at {
            Some(s) if self.tick >= s => qsfp28_image(b"SNB0002         "),
            _ => qsfp28_image(b"SNA0001         "),
        };
        let b = img
            .bytes(req.i2c_address, req.page, req.bank, req.offset, req.length as usize)
            .ok_or_else(|| Self::not_supported("page"))?
            .to_vec();
        self.io.bytes += b.len() as u64;
        Ok(b)
    }
    fn paths(&self, _: &str) -> PathsUsed {
        PathsUsed::default()
    }
    fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }
    fn end_sample(&mut self) {
        self.tick += 1;
    }
}

fn never() -> impl std::future::Future<Output = String> {
    std::future::pending()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_records_samples_resets_swaps_and_vanishing_interfaces() {
    let cfg = WatchConfig {
        interfaces: vec!["eth0".into(), "eth1".into()],
        interval: Duration::from_millis(20),
        duration: None,
        max_ticks: Some(6),
        read_module: true,
    };
    let make = |name: &str| -> Box<dyn Source + Send> {
        let cfg = if name == "eth0" {
            FakeCfg { fec: true, reset_at: Some(4), module: true, module_busy_at: Some(2), swap_at: Some(3), ..Default::default() }
        } else {
            FakeCfg { vanish_at: Some(2), ..Default::default() }
        };
        Box::new(Fake { cfg, tick: 0, io: IoCounts::default() })
    };
    let mut mem: Vec<Record> = Vec::new();
    let mut file = CaptureWriter::new(Vec::new(), &Header::new(Some("test".into()), None, Some("optics test".into()))).unwrap();
    let summary = {
        let mut sinks: [&mut dyn RecordSink; 2] = [&mut mem, &mut file];
        watch_until(cfg, make, &mut sinks, never()).await.unwrap()
    };
    assert_eq!(summary.stopped_by, StopReason::MaxTicks);
    assert_eq!(summary.ticks, 6);
    assert_eq!(summary.interfaces_gone, vec!["eth1".to_string()]);
    assert_eq!(summary.samples, 6 + 2);

    // The file sink holds the same records, readable as a capture.
    let cap = read_capture_from(&file.into_inner()[..]).unwrap();
    assert_eq!(cap.records, mem);

    let events = |iface: &str| -> Vec<EventKind> {
        cap.records_for(iface)
            .filter_map(|r| match r {
                Record::Event(e) => Some(e.kind),
                _ => None,
            })
            .collect()
    };
    // eth0: module read error at tick 2, swap seen at tick 3, FEC reset at tick 4.
    let e0 = events("eth0");
    assert_eq!(e0.iter().filter(|k| **k == EventKind::Error).count(), 1, "{e0:?}");
    assert_eq!(e0.iter().filter(|k| **k == EventKind::ModuleChanged).count(), 1, "{e0:?}");
    assert_eq!(e0.iter().filter(|k| **k == EventKind::CounterReset).count(), 1, "{e0:?}");
    let irs: Vec<_> = cap.interface_records_for("eth0").collect();
    assert_eq!(irs.len(), 2);
    let sn = |i: usize| fingerprint(&irs[i].module.as_ref().unwrap().image().unwrap()).unwrap();
    assert_eq!(&sn(0)[1..], b"SNA0001         ");
    assert_eq!(&sn(1)[1..], b"SNB0002         ");
    let s0: Vec<_> = cap.samples_for("eth0").collect();
    assert_eq!(s0.len(), 6);
    assert!(s0[2].module.is_none()); // the busy tick
    assert_eq!(s0[0].fec.as_ref().unwrap().corrected_bits, vec![1000, 400, 600]);
    assert!(s0.windows(2).all(|p| p[1].t >= p[0].t));

    // eth1: no FEC (null), module not supported (one error event), gone at tick 2.
    let s1: Vec<_> = cap.samples_for("eth1").collect();
    assert_eq!(s1.len(), 2);
    assert!(s1.iter().all(|s| s.fec.is_none() && s.module.is_none()));
    let e1 = events("eth1");
    assert_eq!(e1, vec![EventKind::Error, EventKind::InterfaceGone]);

    // Windows from the live records: eth0 uses the segment after the reset (ticks 4, 5:
    // totals 0 -> 10, lanes 0 -> 4 and 0 -> 6).
    let w = windows(&cap, TimeRange::whole());
    let w0 = &w[0];
    assert_eq!(w0.samples, 2);
    assert_eq!(w0.deltas.corrected_bits.as_ref().unwrap().value, 10);
    assert_eq!(w0.deltas.corrected_bits_per_lane.as_ref().unwrap().values, vec![4, 6]);
    assert!(w0.events.iter().any(|e| e.contains("module changed")), "{:?}", w0.events);
    assert!(w0.events.iter().any(|e| e.contains("went from")), "{:?}", w0.events);
    assert!(w[1].events.iter().any(|e| e.contains("interface gone")), "{:?}", w[1].events);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_stops_at_duration_and_on_request() {
    let make = |_: &str| -> Box<dyn Source + Send> {
        Box::new(Fake { cfg: FakeCfg { fec: true, ..Default::default() }, tick: 0, io: IoCounts::default() })
    };
    let cfg = WatchConfig {
        interfaces: vec!["eth0".into()],
        interval: Duration::from_millis(20),
        duration: Some(Duration::from_millis(70)),
        max_ticks: None,
        read_module: false,
    };
    let mut mem: Vec<Record> = Vec::new();
    let s = watch_until(cfg.clone(), make, &mut [&mut mem], never()).await.unwrap();
    assert_eq!(s.stopped_by, StopReason::Duration);
    assert!(s.samples >= 1);
    assert_eq!(mem.iter().filter(|r| matches!(r, Record::Sample(_))).count() as u64, s.samples);

    // A stop request (what SIGINT/SIGTERM become) ends the loop between ticks.
    let cfg = WatchConfig { duration: None, ..cfg };
    let stop = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        "SIGINT".to_string()
    };
    let mut mem: Vec<Record> = Vec::new();
    let s = watch_until(cfg, make, &mut [&mut mem], stop).await.unwrap();
    assert_eq!(s.stopped_by, StopReason::Signal("SIGINT".into()));
    assert_eq!(mem.iter().filter(|r| matches!(r, Record::Sample(_))).count() as u64, s.samples);
}

/// Every interface's window over `range`, through the streaming engine.
fn windows(cap: &optics::capture::Capture, range: TimeRange) -> Vec<optics::analysis::InterfaceWindow> {
    let mut e = Engine::new(EngineConfig { range, ..Default::default() });
    cap.records.iter().for_each(|r| e.push(r));
    e.windows()
}
