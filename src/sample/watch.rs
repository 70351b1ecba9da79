//! The sampling loop: every tick, every interface is sampled (each on its own
//! [`Source`]) in one task on tokio's blocking pool, or on the polling thread itself
//! ([`SampleOn`]), and the resulting records go to every [`RecordSink`] in interface
//! order. One blocking task per tick, not one per interface: the hand-off to the pool
//! costs a few futex/epoll calls and thread switches, which would be as many as the
//! sample itself makes; a runtime that runs nothing but this loop skips even that.
//!
//! - Timestamps are monotonic (`Instant` since start), rounded to microseconds.
//! - Ticks come from a timerfd (`super::ticker`: one wake-up per tick); missed ticks
//!   are skipped, not bunched.
//! - One `sample` record per interface per tick; an `interface` record first and again
//!   when the negotiated link or the module changes; `event` records for counter resets,
//!   module changes, errors, and an interface that vanished (`NoDevice`: that interface
//!   stops, the others keep going). A name that now belongs to another device (its
//!   ifindex changed: a rename swap) is an `interface_gone` for the old device and a
//!   new `interface` record for the new one, which is sampled from then on.
//! - A stop signal ([`StopSignal`]), `duration` or `max_ticks` end the loop between ticks; a tick in
//!   flight is finished and written, so every sample taken is in the sinks.

use super::delta::{Point, ResetDetector};
use super::module_cache::ModuleCache;
pub use super::summary::{StopReason, StopSignal, WatchSummary};
use super::ticker::Ticker;
use crate::capture::RecordSink;
use crate::capture::{round_t, ErrorLayer, EventKind, EventRecord, InterfaceRecord, ModulePages, Record, SampleRecord};
use crate::counters::{LinkInfo, LinkState, PortCounters};
use crate::source::{IoCounts, Source, SourceError};
use std::future::Future;
use std::time::{Duration, Instant};
use thiserror::Error;

/// What to sample, how often and for how long.
#[derive(Clone, Debug)]
pub struct WatchConfig {
    /// Interfaces to sample.
    pub interfaces: Vec<String>,
    /// Time between ticks.
    pub interval: Duration,
    /// Stop after this long (`--duration`); `None` = until a signal.
    pub duration: Option<Duration>,
    /// Stop after this many ticks; `None` = no limit.
    pub max_ticks: Option<u64>,
    /// Read module monitor pages each sample (static pages once per module).
    pub read_module: bool,
}

/// Why a sampling run failed.
#[derive(Debug, Error)]
pub enum WatchError {
    /// A record sink failed.
    #[error("writing records: {0}")]
    Sink(#[from] std::io::Error),
    /// The signal handlers could not be installed.
    #[error("installing signal handlers: {0}")]
    Signal(std::io::Error),
    /// A sampling task panicked or was cancelled.
    #[error("sampling task failed: {0}")]
    Task(String),
    /// The sampling clock could not start.
    #[error("starting the sampling clock: {0}")]
    Clock(std::io::Error),
}

/// One interface's sampling state; moved into a blocking task for each tick.
struct Iface {
    name: String,
    source: Box<dyn Source + Send>,
    /// The device the name stood for at its interface record (`None` for sources
    /// without ifindex, or before the first sample).
    ifindex: Option<u32>,
    cache: ModuleCache,
    detector: ResetDetector,
    read_module: bool,
    /// Link written in the last interface record (`None` before the first one).
    announced_link: Option<LinkInfo>,
    /// Last module error reported, so a persistent failure is reported once.
    module_error: Option<String>,
    /// Remarks that are not events (module pages skipped), for the summary.
    notes: Vec<String>,
    /// This tick's records, emptied into the sinks (kept for its capacity).
    out: Vec<Record>,
    /// The last sample's counters and point for `detector`, refilled per sample (buffers kept).
    counters: PortCounters,
    point: Point,
    /// The name string of the last sample record, back from the sinks: the next one's.
    spare_name: Option<String>,
    /// This tick found the interface gone.
    gone: bool,
}

/// The interface vanished (`NoDevice`); the record says so.
struct Gone(EventRecord);

fn event(iface: &str, t: f64, kind: EventKind, message: String) -> Record {
    Record::Event(EventRecord::new(t, iface, kind, &message))
}

fn error(iface: &str, t: f64, layer: ErrorLayer, message: String) -> Record {
    Record::Event(EventRecord::error(t, iface, layer, &message))
}

/// One source answer: `NotSupported` -> `None`; other errors -> `None` plus an error
/// event; `NoDevice` -> `Err(interface_gone event)`.
fn check<T>(iface: &str, t: f64, r: Result<T, SourceError>, errors: &mut Vec<Record>) -> Result<Option<T>, Gone> {
    match r {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.is_no_device() => Err(Gone(EventRecord::new(t, iface, EventKind::InterfaceGone, &e.to_string()))),
        Err(e) if e.is_not_supported() => Ok(None),
        Err(e) => {
            errors.push(error(iface, t, ErrorLayer::Counters, e.to_string()));
            Ok(None)
        }
    }
}

impl Iface {
    fn event(&self, t: f64, kind: EventKind, message: String) -> Record {
        event(&self.name, t, kind, message)
    }

    /// One tick's records into `self.out`; `self.gone` if the interface vanished.
    fn sample(&mut self, start: Instant) {
        let t = round_t(start.elapsed().as_secs_f64());
        let mut out = std::mem::take(&mut self.out);
        if self.ifindex.is_none() {
            self.ifindex = self.source.ifindex(&self.name);
        }
        let mut r = self.sample_at(t, &mut out);
        if let Err(Gone(ev)) = &r {
            // The name may stand for another device now (a rename swap): the old one is
            // gone, the new one starts afresh under the same name.
            let now = self.source.ifindex(&self.name);
            if let (Some(old), Some(new)) = (self.ifindex, now) {
                if new != old {
                    let message = format!("{} now names another device (ifindex {old} -> {new}): {}", self.name, ev.message);
                    out.push(self.event(t, EventKind::InterfaceGone, message));
                    self.restart(new);
                    r = self.sample_at(t, &mut out);
                }
            }
        }
        self.source.end_sample();
        self.gone = r.is_err();
        if let Err(Gone(ev)) = r {
            out.push(Record::Event(ev));
        }
        self.out = out;
    }

    /// Forgets the previous device: the next sample writes a new interface record and
    /// starts new counter and module state.
    fn restart(&mut self, ifindex: u32) {
        self.ifindex = Some(ifindex);
        self.announced_link = None;
        self.cache = ModuleCache::new();
        self.detector.clear();
        self.module_error = None;
    }

    fn sample_at(&mut self, t: f64, out: &mut Vec<Record>) -> Result<(), Gone> {
        // Error events go straight to `out`, so they survive an early "gone" return.
        let link = check(&self.name, t, self.source.link_state(&self.name), out)?.unwrap_or_else(LinkState::default);
        let link_info = check(&self.name, t, self.source.link_info(&self.name), out)?;
        let fec = check(&self.name, t, self.source.fec(&self.name), out)?;
        let driver_stats = check(&self.name, t, self.source.driver_stats(&self.name), out)?.unwrap_or_default();
        let ib = check(&self.name, t, self.source.infiniband(&self.name), out)?;
        let pause = check(&self.name, t, self.source.pause_stats(&self.name), out)?;
        let module = self.sample_module(t, out)?;

        let module_changed = module.as_ref().is_some_and(|m| m.changed) && self.announced_link.is_some();
        let link_changed = link_info.as_ref().is_some_and(|l| Some(l) != self.announced_link.as_ref());
        if self.announced_link.is_none() || module_changed || link_changed {
            let identity = check(&self.name, t, self.source.identity(&self.name), out)?.unwrap_or_default();
            let link = link_info.or_else(|| self.announced_link.clone()).unwrap_or_default();
            self.announced_link = Some(link.clone());
            out.push(Record::Interface(InterfaceRecord {
                t,
                interface: self.name.clone(),
                driver: identity.driver,
                bus_info: identity.bus_info,
                pci: identity.pci,
                port: identity.port,
                host: identity.host,
                link,
                module: self.cache.static_image().map(|img| ModulePages { pages: img.entries() }),
                origin_file: None,
                ib: identity.ib,
                neighbor: identity.neighbor,
            }));
        }
        if module_changed {
            self.detector.clear();
            out.push(self.event(
                t,
                EventKind::ModuleChanged,
                "module changed: identifier or vendor serial number differs; static pages re-read".into(),
            ));
        }
        let sample = SampleRecord {
            t,
            interface: self.spare_name.take().filter(|n| *n == self.name).unwrap_or_else(|| self.name.clone()),
            link,
            fec,
            driver_stats,
            module: module.map(|m| ModulePages { pages: m.monitor }),
            ib,
            pause,
            ..Default::default()
        };
        // `Point::from_sample`, into the buffers of the last sample's.
        self.point.refill_from(&sample, &mut self.counters);
        let reset = self.detector.check(&self.point);
        if reset.is_some() {
            self.detector.clear(); // this sample starts a new segment
        }
        self.detector.push(&self.point);
        out.push(Record::Sample(sample));
        if let Some(reason) = reset {
            out.push(self.event(t, EventKind::CounterReset, reason));
        }
        Ok(())
    }

    /// Module reads through the cache. A module path the driver does not support is
    /// reported once and not tried again; other failures are reported when they change.
    fn sample_module(&mut self, t: f64, errors: &mut Vec<Record>) -> Result<Option<super::module_cache::ModuleSample>, Gone> {
        if !self.read_module {
            return Ok(None);
        }
        match self.cache.sample(self.source.as_mut(), &self.name) {
            Ok(mut m) => {
                self.module_error = None;
                self.notes.extend(m.notes.drain(..).map(|n| format!("{}: {n}", self.name)));
                Ok(Some(m))
            }
            Err(e) if e.is_no_device() => Err(Gone(EventRecord::new(t, &self.name, EventKind::InterfaceGone, &e.to_string()))),
            Err(e) => {
                let msg = if e.is_not_supported() {
                    self.read_module = false;
                    format!("module not read: {e}")
                } else {
                    format!("module read failed: {e}")
                };
                if self.module_error.as_ref() != Some(&msg) {
                    errors.push(error(&self.name, t, ErrorLayer::Module, msg.clone()));
                    self.module_error = Some(msg);
                }
                Ok(None)
            }
        }
    }
}

/// [`StopSignal`] as a stop condition for [`watch_until`], caught from this call on (a
/// caller creating output files calls it first, so a signal cannot kill the process between
/// creating a file and writing its header). Must run inside a tokio runtime.
pub fn stop_signals() -> Result<impl Future<Output = StopReason>, WatchError> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut caught = Vec::with_capacity(StopSignal::ALL.len());
    for sig in StopSignal::ALL {
        caught.push((signal(SignalKind::from_raw(sig.number())).map_err(WatchError::Signal)?, sig));
    }
    Ok(async move {
        // The first of them to arrive; each `recv` is polled in turn until one is ready.
        std::future::poll_fn(move |cx| {
            for (s, sig) in caught.iter_mut() {
                if s.poll_recv(cx).is_ready() {
                    return std::task::Poll::Ready(StopReason::Signal(*sig));
                }
            }
            std::task::Poll::Pending
        })
        .await
    })
}

/// Where a tick's sampling runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SampleOn {
    /// One task per tick on tokio's blocking pool: the runtime's other tasks (an HTTP
    /// server beside the loop) keep running while the kernel is asked.
    #[default]
    BlockingPool,
    /// The thread polling the loop: no hand-off and no thread switch per tick. Only for a
    /// runtime that runs nothing else (the CLI's current-thread runtime), which the
    /// sampling blocks for its duration; signals are still seen between ticks.
    PollingThread,
}

/// `watch` with the caller's stop condition instead of signals.
pub async fn watch_until<F, S>(
    cfg: WatchConfig,
    make_source: F,
    sinks: &mut [&mut dyn RecordSink],
    stop: S,
) -> Result<WatchSummary, WatchError>
where
    F: Fn(&str) -> Box<dyn Source + Send>,
    S: Future<Output = StopReason>,
{
    watch_until_on(cfg, SampleOn::BlockingPool, make_source, sinks, stop).await
}

/// [`watch_until`], sampling where `on` says.
pub async fn watch_until_on<F, S>(
    cfg: WatchConfig,
    on: SampleOn,
    make_source: F,
    sinks: &mut [&mut dyn RecordSink],
    stop: S,
) -> Result<WatchSummary, WatchError>
where
    F: Fn(&str) -> Box<dyn Source + Send>,
    S: Future<Output = StopReason>,
{
    let start = Instant::now();
    // A duration past what an Instant can hold means no deadline (the CLI refuses such
    // durations; the library must not panic on them either).
    let deadline = cfg.duration.and_then(|d| start.checked_add(d)).map(tokio::time::Instant::from_std);
    let mut live: Vec<Box<Iface>> = cfg
        .interfaces
        .iter()
        .map(|n| {
            Box::new(Iface {
                name: n.clone(),
                source: make_source(n),
                ifindex: None,
                cache: ModuleCache::new(),
                detector: ResetDetector::new(),
                read_module: cfg.read_module,
                announced_link: None,
                module_error: None,
                notes: Vec::new(),
                out: Vec::new(),
                counters: PortCounters::default(),
                point: Point::default(),
                spare_name: None,
                gone: false,
            })
        })
        .collect();
    let mut summary = WatchSummary {
        ticks: 0,
        samples: 0,
        records: 0,
        error_events: 0,
        interfaces_gone: Vec::new(),
        io: IoCounts::default(),
        module_io: IoCounts::default(),
        stopped_by: StopReason::AllInterfacesGone,
        notes: Vec::new(),
        paths: Default::default(),
    };
    let mut finished: Vec<Box<Iface>> = Vec::new();
    // A period past a century is as good as "never again" (and past what a clock reading
    // can have added to it): clamped to a century instead of overflowing.
    let century = Duration::from_secs(100 * 365 * 24 * 3600);
    let period = if start.checked_add(cfg.interval.saturating_mul(2)).is_some() { cfg.interval.min(century) } else { century };
    let mut ticker = Ticker::new(period.max(Duration::from_nanos(1))).map_err(WatchError::Clock)?;
    // One timer for the whole run, not one registered and dropped per tick.
    let until_deadline = async {
        match deadline {
            Some(d) => tokio::time::sleep_until(d).await,
            None => std::future::pending().await,
        }
    };
    tokio::pin!(stop, until_deadline);
    loop {
        if live.is_empty() {
            summary.stopped_by = StopReason::AllInterfacesGone;
            break;
        }
        if cfg.max_ticks.is_some_and(|m| summary.ticks >= m) {
            summary.stopped_by = StopReason::MaxTicks;
            break;
        }
        tokio::select! {
            biased;
            why = &mut stop => { summary.stopped_by = why; break; }
            _ = &mut until_deadline => { summary.stopped_by = StopReason::Duration; break; }
            tick = ticker.tick() => tick.map_err(WatchError::Clock)?,
        }
        // The run is [start, deadline): a tick due at the deadline itself (the last of a
        // duration that is a multiple of the interval) is not taken. The timerfd is exact;
        // tokio's deadline timer, rounded up to its millisecond, would fire just after it.
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            summary.stopped_by = StopReason::Duration;
            break;
        }
        let tick_start = Instant::now();
        let mut batch = std::mem::take(&mut live);
        let sample_all = move || {
            batch.iter_mut().for_each(|st| st.sample(start));
            batch
        };
        live = match on {
            SampleOn::BlockingPool => tokio::task::spawn_blocking(sample_all).await.map_err(|e| WatchError::Task(e.to_string()))?,
            SampleOn::PollingThread => sample_all(),
        };
        for st in live.iter_mut() {
            for rec in st.out.drain(..) {
                for sink in sinks.iter_mut() {
                    sink.record(&rec)?;
                }
                summary.records += 1;
                match rec {
                    Record::Sample(s) => {
                        summary.samples += 1;
                        st.spare_name = Some(s.interface);
                    }
                    Record::Event(e) if e.kind == EventKind::Error => summary.error_events += 1,
                    _ => {}
                }
            }
        }
        // Interface order is kept: the gone leave the list where they were.
        let mut i = 0;
        while i < live.len() {
            if live[i].gone {
                let st = live.remove(i);
                summary.interfaces_gone.push(st.name.clone());
                finished.push(st);
            } else {
                i += 1;
            }
        }
        for sink in sinks.iter_mut() {
            sink.end_tick(tick_start.elapsed())?;
        }
        summary.ticks += 1;
    }
    for st in live.iter().chain(&finished) {
        let io = st.source.io_counts();
        summary.io.requests += io.requests;
        summary.io.bytes += io.bytes;
        summary.module_io.requests += st.cache.io.requests;
        summary.module_io.bytes += st.cache.io.bytes;
        summary.notes.extend(st.notes.iter().cloned());
        summary.paths.insert(st.name.clone(), st.source.paths(&st.name));
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counters::{DriverStats, FecStats};
    use crate::device::DeviceIdentity;
    use crate::module::PageRequest;
    use crate::source::PathsUsed;
    use std::sync::{Arc, Mutex};

    /// A device whose name is taken over by another (ifindex 3 -> 9) before sample `swap_at`;
    /// the first request of that sample fails ENODEV as the kernel's name/index check does.
    struct Swapping {
        sample: u32,
        swap_at: u32,
        reported_gone: bool,
        ifindex_calls: Arc<Mutex<u32>>,
    }

    impl Source for Swapping {
        fn interfaces(&mut self) -> crate::source::Result<Vec<String>> {
            Ok(vec!["v0".into()])
        }
        fn identity(&mut self, _: &str) -> crate::source::Result<DeviceIdentity> {
            Ok(DeviceIdentity::default())
        }
        fn link_info(&mut self, _: &str) -> crate::source::Result<LinkInfo> {
            Ok(LinkInfo { speed_mbps: Some(10_000), ..LinkInfo::default() })
        }
        fn link_state(&mut self, iface: &str) -> crate::source::Result<LinkState> {
            if self.sample == self.swap_at && !self.reported_gone {
                self.reported_gone = true;
                return Err(SourceError::from_errno(
                    "LINKSTATE_GET",
                    iface,
                    None,
                    libc::ENODEV,
                    Some("ifindex and name do not match".into()),
                ));
            }
            Ok(LinkState { up: Some(true), ..LinkState::default() })
        }
        fn fec(&mut self, _: &str) -> crate::source::Result<FecStats> {
            Err(SourceError::from_errno("FEC", "v0", None, libc::EOPNOTSUPP, None))
        }
        fn driver_stats(&mut self, _: &str) -> crate::source::Result<DriverStats> {
            Ok(DriverStats::new())
        }
        fn read_eeprom(&mut self, _: &str, _: PageRequest) -> crate::source::Result<Vec<u8>> {
            Err(SourceError::from_errno("EEPROM", "v0", None, libc::EOPNOTSUPP, None))
        }
        fn paths(&self, _: &str) -> PathsUsed {
            PathsUsed::default()
        }
        fn io_counts(&self) -> IoCounts {
            IoCounts::default()
        }
        fn ifindex(&mut self, _: &str) -> Option<u32> {
            *self.ifindex_calls.lock().unwrap() += 1;
            Some(if self.reported_gone { 9 } else { 3 })
        }
        fn end_sample(&mut self) {
            self.sample += 1;
        }
    }

    fn cfg(interval: Duration, duration: Option<Duration>, max_ticks: u64) -> WatchConfig {
        WatchConfig { interfaces: vec!["v0".into()], interval, duration, max_ticks: Some(max_ticks), read_module: false }
    }

    fn run(cfg: WatchConfig, swap_at: u32, calls: Arc<Mutex<u32>>) -> (Vec<Record>, WatchSummary) {
        run_on(SampleOn::BlockingPool, cfg, swap_at, calls)
    }

    fn run_on(on: SampleOn, cfg: WatchConfig, swap_at: u32, calls: Arc<Mutex<u32>>) -> (Vec<Record>, WatchSummary) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let mut records: Vec<Record> = Vec::new();
        let make = move |_: &str| -> Box<dyn Source + Send> {
            Box::new(Swapping { sample: 0, swap_at, reported_gone: false, ifindex_calls: calls.clone() })
        };
        let summary = rt.block_on(watch_until_on(cfg, on, make, &mut [&mut records], std::future::pending())).unwrap();
        (records, summary)
    }

    #[test]
    fn sampling_on_the_polling_thread_gives_the_same_records() {
        // Timestamps differ between runs; everything else must not.
        let strip_t = |mut records: Vec<Record>| -> Vec<Record> {
            for r in &mut records {
                match r {
                    Record::Sample(s) => s.t = 0.0,
                    Record::Interface(i) => i.t = 0.0,
                    Record::Event(e) => e.t = 0.0,
                    _ => {}
                }
            }
            records
        };
        let cfg = cfg(Duration::from_millis(1), None, 4);
        let (pool, s1) = run_on(SampleOn::BlockingPool, cfg.clone(), 2, Arc::new(Mutex::new(0)));
        let (here, s2) = run_on(SampleOn::PollingThread, cfg, 2, Arc::new(Mutex::new(0)));
        assert_eq!(pool.len(), here.len());
        assert_eq!(strip_t(pool), strip_t(here));
        assert_eq!((s1.samples, s1.ticks, s1.stopped_by), (s2.samples, s2.ticks, s2.stopped_by));
    }

    #[test]
    fn rename_swap_is_gone_then_a_new_interface() {
        let calls = Arc::new(Mutex::new(0));
        let (records, summary) = run(cfg(Duration::from_millis(1), None, 4), 2, calls.clone());
        let kinds: Vec<String> = records
            .iter()
            .map(|r| match r {
                Record::Interface(_) => "interface".to_string(),
                Record::Sample(_) => "sample".to_string(),
                Record::Event(e) => e.kind.as_str().to_string(),
                _ => "other".to_string(),
            })
            .collect();
        // Samples 0 and 1 of the first device; at sample 2 the old device is gone and the
        // new one gets its own interface record and keeps being sampled.
        assert_eq!(kinds, ["interface", "sample", "sample", "interface_gone", "interface", "sample", "sample"]);
        let gone = records.iter().find_map(|r| match r {
            Record::Event(e) if e.kind == EventKind::InterfaceGone => Some(e.message.clone()),
            _ => None,
        });
        assert!(gone.unwrap().contains("ifindex 3 -> 9"));
        assert!(summary.interfaces_gone.is_empty(), "the name is still sampled");
        assert_eq!(summary.samples, 4);
        // Resolved once at the start and once after the failure, not per sample.
        assert_eq!(*calls.lock().unwrap(), 2);
    }

    #[test]
    fn absurd_durations_do_not_panic() {
        let calls = Arc::new(Mutex::new(0));
        let (_, s) = run(cfg(Duration::from_millis(1), Some(Duration::MAX), 2), u32::MAX, calls.clone());
        assert_eq!((s.ticks, s.stopped_by), (2, StopReason::MaxTicks));
        let (_, s) = run(cfg(Duration::MAX, Some(Duration::MAX), 1), u32::MAX, calls);
        assert_eq!((s.ticks, s.stopped_by), (1, StopReason::MaxTicks));
    }
}
