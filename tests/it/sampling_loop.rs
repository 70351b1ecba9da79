//! The live sampling path without hardware: the module read economy and the sampling
//! loop, driven by fake and replayed sources (feature `live`).

use crate::capture_roundtrip::{windows, EXAMPLE};
use optics::capture::RecordSink;
use optics::capture::{read_capture, read_capture_from, CaptureWriter, EventKind, Header, Record};
use optics::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use optics::device::DeviceIdentity;
use optics::module::fingerprint::fingerprint;
use optics::module::{ModuleImage, PageRequest, I2C_A0};
use optics::sample::engine::TimeRange;
use optics::sample::module_cache::ModuleCache;
use optics::sample::summary::{StopReason, StopSignal};
use optics::sample::watch::{watch_until, WatchConfig};
use optics::source::replay::ReplaySource;
use optics::source::{IoCounts, PathsUsed, Source, SourceError};
use std::time::Duration;

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

fn never() -> impl std::future::Future<Output = StopReason> {
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
    let cap = read_capture_from(&file.into_inner().unwrap()[..]).unwrap();
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
        StopReason::Signal(StopSignal::Int)
    };
    let mut mem: Vec<Record> = Vec::new();
    let s = watch_until(cfg, make, &mut [&mut mem], stop).await.unwrap();
    assert_eq!(s.stopped_by, StopReason::Signal(StopSignal::Int));
    assert_eq!(mem.iter().filter(|r| matches!(r, Record::Sample(_))).count() as u64, s.samples);
}
