//! Live sampling shared by `scan`, `watch`, `compare`, `serve` and `decode --interface`: validate interfaces, run
//! the sampling loop into the requested sinks, and return what was recorded as a capture.
//! Built with the `live` feature on Linux; elsewhere `offline.rs` stands in its place and
//! says what was left out of the build.

use super::common::{local_header, FileSinks, LivePlan};
use super::present::{dumb_terminal, stderr_width};
use super::usage;
use anyhow::{bail, Context};
use optics::analysis::config::Config;
use optics::analysis::lane_rows::{IntervalSink, LaneInterval};
use optics::capture::{Record, RecordSink};
use optics::module::{self, ModuleReport};
use optics::output::live_table::LiveTable;
use optics::sample::engine::{Engine, EngineConfig};
use optics::sample::module_cache::read_static;
use optics::sample::summary::{StopReason, StopSignal, WatchSummary};
use optics::sample::watch::{stop_signals, watch_until_on, SampleOn, WatchConfig};
use optics::serve::{run_live, CallerError, Exporter, LiveOptions, Reload, Signals};
use optics::source::i2c::I2cModule;
use optics::source::infiniband::{parse_port_name, IbTree, InfinibandSource};
use optics::source::live::LiveSource;
use optics::source::netlink::link_watch::LinkWatch;
use optics::source::{discover, IoCounts, Source};
use std::io::{BufWriter, IsTerminal, Stderr};
use std::path::Path;
use std::time::Duration;

/// Interfaces named by the user must exist (the kernel's answer is the check); an
/// ifindex becomes the device's name (reports and captures name devices), and a device
/// named twice is sampled once. With none named, discovery finds the netdevs with a
/// module or FEC statistics and the InfiniBand ports.
pub fn resolve_interfaces(named: &[String], i2c: Option<&Path>) -> anyhow::Result<Vec<String>> {
    for name in named {
        check_live_name(name).map_err(|why| usage(format!("interface {}: {why}", shown(name))))?;
    }
    let mut src = LiveSource::new();
    let ib = IbTree::system();
    if named.is_empty() {
        let found = discover_all(&mut src, &ib).context("discovering interfaces")?;
        if found.is_empty() {
            bail!("no network interface with a readable module or FEC statistics was found; name one (e.g. optics scan IFACE) or use --replay FILE");
        }
        return Ok(found);
    }
    let mut names: Vec<String> = Vec::new();
    for iface in named {
        // An InfiniBand port (`mlx5_0/1`) is no netdev: sysfs says whether it exists.
        if parse_port_name(iface).is_some() {
            if !ib.has_port(iface) {
                bail!("no such InfiniBand port {iface}: no /sys/class/infiniband/{}", iface.replacen('/', "/ports/", 1));
            }
            if !names.contains(iface) {
                names.push(iface.clone());
            }
            continue;
        }
        if let Err(e) = src.link_state(iface) {
            if e.is_no_device() {
                bail!("no such interface {iface}: {e}");
            }
        }
        let name = src.netdev_name(iface).with_context(|| format!("interface {iface}"))?;
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if i2c.is_some() && names.len() != 1 {
        return Err(usage("--i2c reads one module: name exactly one interface"));
    }
    Ok(names)
}

/// What may name a live interface, checked before the system is touched: an ifindex; an
/// InfiniBand port `hca/port` (the device's name at most IB_DEVICE_NAME_MAX - 1 = 63 bytes,
/// include/rdma/ib_verbs.h; a port number to 255, as sysfs numbers them); else a netdev name
/// as the kernel's dev_valid_name() allows one (net/core/dev.c): 1 to IFNAMSIZ - 1 = 15
/// bytes (include/uapi/linux/if.h), not `.` or `..`, no `/`, `:` or whitespace.
fn check_live_name(name: &str) -> Result<(), BadLiveName> {
    if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
        return name.parse::<u32>().map(drop).map_err(|_| BadLiveName::NotAnIfindex);
    }
    if let Some((hca, port)) = parse_port_name(name) {
        if hca.len() >= IB_DEVICE_NAME_MAX {
            return Err(BadLiveName::LongIbDevice(hca.len()));
        }
        return (port <= 255).then_some(()).ok_or(BadLiveName::IbPortOver255(port));
    }
    if name.len() >= IFNAMSIZ {
        return Err(BadLiveName::LongNetdev(name.len()));
    }
    if name.is_empty() || name == "." || name == ".." || name.contains(|c: char| c == '/' || c == ':' || c.is_ascii_whitespace()) {
        return Err(BadLiveName::NotANetdev);
    }
    Ok(())
}

const IFNAMSIZ: usize = 16;
const IB_DEVICE_NAME_MAX: usize = 64;

/// Why a name cannot name a live interface ([`check_live_name`]).
#[derive(Debug, thiserror::Error, PartialEq)]
enum BadLiveName {
    #[error("not an ifindex (at most 4294967295)")]
    NotAnIfindex,
    #[error("an InfiniBand device name is at most {max} bytes, not {0}", max = IB_DEVICE_NAME_MAX - 1)]
    LongIbDevice(usize),
    #[error("port {0}: InfiniBand port numbers go to 255")]
    IbPortOver255(u32),
    #[error("an interface name is at most {max} bytes (IFNAMSIZ), not {0}", max = IFNAMSIZ - 1)]
    LongNetdev(usize),
    #[error("not an interface name (1-15 bytes, not . or .., no /, : or whitespace)")]
    NotANetdev,
}

/// `name` as an error quotes it: its first 32 characters.
fn shown(name: &str) -> String {
    match name.char_indices().nth(32) {
        Some((at, _)) => format!("{}…", &name[..at]),
        None => name.to_string(),
    }
}

/// What discovery finds: the netdevs with a module or FEC statistics, then every port whose
/// link layer is InfiniBand (`mlx5_0/1`; RoCE ports are among the netdevs).
fn discover_all(src: &mut LiveSource, ib: &IbTree) -> optics::source::Result<Vec<String>> {
    let mut found = discover(src)?;
    found.extend(ib.infiniband_ports());
    Ok(found)
}

/// The source of one interface: sysfs for an InfiniBand port, the kernel's netdev
/// interfaces (with the shared link-notification socket) for the rest.
fn interface_source(iface: &str, link_watch: &LinkWatch) -> Box<dyn Source + Send> {
    if parse_port_name(iface).is_some() {
        return Box::new(InfinibandSource::system());
    }
    Box::new(LiveSource::new().with_link_watch(link_watch.clone()))
}

fn make_source(i2c: Option<&Path>) -> anyhow::Result<impl Fn(&str) -> Box<dyn Source + Send>> {
    // Opened once up front so a busy or missing device is reported before sampling starts.
    if let Some(path) = i2c {
        I2cModule::open(path).with_context(|| format!("opening {}", path.display()))?;
    }
    let i2c = i2c.map(Path::to_path_buf);
    // One link-notification socket for all interfaces' sources.
    let link_watch = LinkWatch::new();
    Ok(move |iface: &str| -> Box<dyn Source + Send> {
        match i2c.as_ref().filter(|_| parse_port_name(iface).is_none()).and_then(|p| I2cModule::open(p).ok()) {
            Some(reader) => Box::new(LiveSource::new().with_link_watch(link_watch.clone()).with_eeprom_reader(Box::new(reader))),
            None => interface_source(iface, &link_watch),
        }
    })
}

/// The live table (best effort: a failing stderr silences it, sampling goes on), its
/// lines written to stderr once per tick (the table flushes at the end of each tick and
/// at every terminal redraw) instead of once per line: a write per interface-sample was
/// as many syscalls as the sample's own requests. The bytes are the same.
type Progress = BestEffort<LiveTable<BufWriter<Stderr>>>;

/// Room for a tick of 64 interfaces' lines or a redrawn table, so a tick is one write.
const PROGRESS_BUFFER: usize = 64 << 10;

fn progress(cfg: &Config, judge_window: Option<Duration>) -> Progress {
    let out = BufWriter::with_capacity(PROGRESS_BUFFER, std::io::stderr());
    // Redrawn in place (cursor movement) only where the terminal can show it.
    let redraw = std::io::stderr().is_terminal() && !dumb_terminal();
    let table = LiveTable::new(out, redraw, Some(stderr_width()), cfg.clone());
    BestEffort::new(match judge_window {
        Some(w) => table.with_judge_window(w.as_secs_f64()),
        None => table,
    })
}

/// Samples until the duration ends or a stop signal (SIGINT, SIGTERM, SIGHUP, ...); every record is folded into the
/// returned engine (nothing of the run is kept beyond its state), and written to the
/// `--record` / `--csv` files as it was taken.
pub fn sample(plan: &LivePlan, cfg: &Config) -> anyhow::Result<(Engine, WatchSummary)> {
    let header = local_header();
    let factory = make_source(plan.i2c.as_deref())?;
    // One thread: the loop is all the runtime runs, so a tick is sampled where the timer
    // fired, without a hand-off to another thread (futex calls and thread switches that
    // cost as much CPU as the sample's own requests).
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().context("starting the sampler")?;
    // Signals are caught before any output exists: a stop at any moment leaves whole files.
    let stop = {
        let _in_runtime = rt.enter();
        stop_signals().context("sampling")?
    };
    let mut engine = Engine::new(EngineConfig::default());
    let mut files = FileSinks::create(plan.record.as_deref(), plan.csv.as_deref(), &header, cfg)?;
    let mut progress = progress(cfg, plan.judge_window);
    // The live table and the CSV take their intervals from one stage.
    let mut outputs = files.sinks(vec![&mut progress]);
    let mut sinks: Vec<&mut dyn RecordSink> = vec![&mut engine, &mut outputs];
    let wcfg = WatchConfig {
        interfaces: plan.interfaces.clone(),
        interval: plan.interval,
        duration: plan.duration,
        max_ticks: None,
        read_module: true,
    };
    let summary = rt.block_on(watch_until_on(wcfg, SampleOn::PollingThread, factory, &mut sinks, stop)).context("sampling")?;
    drop(sinks);
    drop(outputs);
    files.finish();
    if let (0, StopReason::Signal(sig)) = (summary.samples, summary.stopped_by) {
        bail!("stopped by {sig} before the first sample: nothing to analyse");
    }
    Ok((engine, summary))
}

/// `serve` on the live system: samples the named interfaces that exist (or what discovery
/// finds), looking again every `rediscover`, until SIGINT/SIGTERM; the name of the signal.
pub async fn serve_live(
    exporter: &mut Exporter,
    named: Vec<String>,
    opts: LiveOptions,
    signals: &mut Signals,
    on_reload: Reload<'_>,
) -> anyhow::Result<StopSignal> {
    let find = move || -> Result<Vec<String>, CallerError> {
        let mut src = LiveSource::new();
        let ib = IbTree::system();
        if named.is_empty() {
            return Ok(discover_all(&mut src, &ib)?);
        }
        // A named InfiniBand port exists while sysfs has it; a netdev while the kernel knows it.
        let exists = |i: &&String| match parse_port_name(i) {
            Some(_) => ib.has_port(i),
            None => !src.link_state(i).is_err_and(|e| e.is_no_device()),
        };
        Ok(named.iter().filter(exists).cloned().collect())
    };
    let link_watch = LinkWatch::new();
    let make_source = move |iface: &str| interface_source(iface, &link_watch);
    Ok(run_live(exporter, &opts, make_source, find, signals, on_reload).await?)
}

/// A sink that only informs (the live table on stderr): a failed write (`2>/dev/full`, a
/// closed terminal) silences it and nothing else; the run, its outputs and its exit status
/// do not depend on it.
pub struct BestEffort<S> {
    pub sink: S,
    failed: bool,
}

impl<S> BestEffort<S> {
    pub fn new(sink: S) -> Self {
        BestEffort { sink, failed: false }
    }
}

impl<S: IntervalSink> IntervalSink for BestEffort<S> {
    fn interval(&mut self, iv: &LaneInterval<'_>) -> std::io::Result<()> {
        if !self.failed {
            self.failed = self.sink.interval(iv).is_err();
        }
        Ok(())
    }
}

impl<S: RecordSink> RecordSink for BestEffort<S> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        if !self.failed {
            self.failed = self.sink.record(rec).is_err();
        }
        Ok(())
    }

    fn end_tick(&mut self, sampling: std::time::Duration) -> std::io::Result<()> {
        if !self.failed {
            self.failed = self.sink.end_tick(sampling).is_err();
        }
        Ok(())
    }
}

/// The module of the live port `iface` as it reads now: its static pages, which hold
/// this moment's monitors too (what `scan` reads on its first sample).
pub fn decode_live(iface: &str, i2c: Option<&Path>) -> anyhow::Result<ModuleReport> {
    let name = resolve_interfaces(&[iface.to_string()], i2c)?.remove(0);
    let mut src = LiveSource::new();
    if let Some(path) = i2c {
        let reader = I2cModule::open(path).with_context(|| format!("opening {}", path.display()))?;
        src = src.with_eeprom_reader(Box::new(reader));
    }
    let mut io = IoCounts::default();
    let (image, notes) = read_static(&mut src, &name, &mut io).with_context(|| format!("reading the module of {name}"))?;
    let mut report = module::decode(&image).with_context(|| format!("decoding the module of {name}"))?;
    report.warnings.extend(notes);
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::check_live_name;

    #[test]
    fn live_names_are_bounded_as_the_kernel_bounds_them() {
        for ok in ["eth0", "ens3np0", "a23456789012345", "7", "4294967295", "mlx5_0/1", &format!("{}/255", "d".repeat(63))] {
            assert_eq!(check_live_name(ok), Ok(()), "{ok}");
        }
        let too_long = "a".repeat(16);
        let ib_too_long = format!("{}/1", "d".repeat(64));
        for bad in [&too_long[..], "", ".", "..", "a:b", "a b", "4294967296", &ib_too_long, "mlx5_0/256"] {
            assert!(check_live_name(bad).is_err(), "{bad:?}");
        }
    }
}
