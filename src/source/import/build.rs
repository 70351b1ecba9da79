//! From parsed files to capture records: fragments grouped per interface and snapshot, a
//! stated time base, records as the live sampler writes them (docs/import.md).
//!
//! - A **snapshot** is what one input argument (a file, or a directory) says about one
//!   interface: its counter files (different formats merge; two of the same format are an
//!   error) plus identity, link and module files.
//! - A file that names no interface belongs to the only interface the input names, or to
//!   `--interface`; with several candidates it is an error, never a guess. With none at all
//!   the interface is called `unnamed`.
//! - **Time base**, per interface: several snapshots are spaced by their content
//!   (mlxlink "Time Since Last Clear" of each, while it grows), else `--at`, else the
//!   files' modification times. One snapshot: since the clear (mlxlink), else
//!   `--window-s`, else the uptime with `--since-boot`: a zero reading is written at the
//!   start of that span. Otherwise the snapshot stands alone and the analysis says no BER.
//!   A tool's own clear is its own counters' span: an InfiniBand port's `PortCounters`
//!   (perfquery, sysfs) joined to an mlxlink output get no zero reading from it.

use super::walk::{read_input, ParsedFile};
use super::{lspci, Fragment, ImportError};
use crate::capture::{is_capture_start, round_t, Capture, Header, InterfaceRecord, ModulePages, Record, SampleRecord};
use crate::counters::{FecStats, LinkInfo, LinkState};
use crate::device::{PciAddress, PciLink};
use crate::module::printed::PrintedModule;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use time::OffsetDateTime;

/// The interface name when no input names one.
pub const UNNAMED: &str = "unnamed";

/// What `optics import` was told beside its inputs.
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// `--at PATH=RFC3339`: when the input at PATH was taken.
    pub at: Vec<(PathBuf, OffsetDateTime)>,
    /// `--window-s N`: a lone snapshot's counters span the last N seconds.
    pub window_s: Option<f64>,
    /// `--since-boot`: a lone snapshot's counters span the host's uptime (from the input).
    pub since_boot: bool,
    /// `--interface`: the interface of files that name none.
    pub interface: Option<String>,
}

/// What an import produced: the capture and how it was built.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The capture the inputs make (docs/capture-format.md).
    pub capture: Capture,
    /// Per interface: snapshots and the time base used, and what was assumed; one sentence each.
    pub notes: Vec<String>,
}

/// One interface as one input argument saw it.
#[derive(Clone, Debug, Default)]
struct Snapshot {
    files: Vec<PathBuf>,
    counter_files: Vec<PathBuf>,
    formats: Vec<&'static str>,
    counters: Fragment,
    driver: Option<String>,
    bus_info: Option<String>,
    pci: Option<PciLink>,
    link: LinkInfo,
    up: Option<bool>,
    /// The kernel's extended link state and substate as `ethtool IFACE` printed them.
    ext_state: Option<(Option<u8>, Option<u8>)>,
    module_pages: Option<ModulePages>,
    printed_module: Option<PrintedModule>,
    serdes_eye: Option<crate::counters::serdes::SerdesEye>,
    mtime: Option<std::time::SystemTime>,
    at: Option<OffsetDateTime>,
    uptime_s: Option<f64>,
    /// An InfiniBand port's identity and reading (`ibstat`, `perfquery`, a sysfs tree), merged.
    ib_port: Option<crate::device::IbPort>,
    neighbor: Option<crate::device::LinkNeighbor>,
    ib: Option<crate::counters::ib::IbSample>,
    /// Every `PortCounters` value of the port as each file read it, in the order read:
    /// the first is the one kept, the others are checked against it.
    ib_reads: Vec<IbRead>,
    /// The host beneath the interface, from its own files and the host-wide ones.
    host: crate::device::host::HostFacts,
}

/// One `PortCounters` value of a port as one file read it.
#[derive(Clone, Debug)]
struct IbRead {
    counter: String,
    value: u64,
    source: &'static str,
    mtime: Option<std::time::SystemTime>,
}

/// A module's vendor SN: the printed module's, else the decoded pages'.
fn module_sn(printed: Option<&PrintedModule>, pages: Option<&ModulePages>) -> Option<String> {
    let sn = printed.and_then(|p| p.vendor_sn.clone()).or_else(|| {
        let img = pages?.image().ok()?;
        crate::module::decode(&img).ok().and_then(|m| m.vendor_sn)
    });
    sn.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
}

fn fill<T: Clone>(slot: &mut Option<T>, v: &Option<T>) {
    if slot.is_none() {
        *slot = v.clone();
    }
}

fn merge_link(into: &mut LinkInfo, from: &LinkInfo) {
    fill(&mut into.speed_mbps, &from.speed_mbps);
    fill(&mut into.lanes, &from.lanes);
    fill(&mut into.link_mode, &from.link_mode);
    fill(&mut into.fec_active, &from.fec_active);
    if into.supported_modes.is_empty() {
        into.supported_modes.clone_from(&from.supported_modes);
    }
    if into.advertised_modes.is_empty() {
        into.advertised_modes.clone_from(&from.advertised_modes);
    }
}

/// `from`'s InfiniBand identity where `into` has none (the kernel's `rate` text, with its
/// width and speed, wins over `ibstat`'s bare `Rate: 400`).
fn merge_ib(into: &mut crate::device::IbPort, from: &crate::device::IbPort) {
    fill(&mut into.link_layer, &from.link_layer);
    if into.rate.as_deref().and_then(crate::counters::ib::IbRate::parse).is_none() && from.rate.is_some() {
        into.rate.clone_from(&from.rate);
    }
    fill(&mut into.fw_ver, &from.fw_ver);
    fill(&mut into.board_id, &from.board_id);
    fill(&mut into.node_guid, &from.node_guid);
    fill(&mut into.netdev, &from.netdev);
}

fn merge_fec(into: &mut Option<FecStats>, from: &FecStats, path: &Path) -> Result<(), ImportError> {
    match into {
        None => *into = Some(from.clone()),
        Some(cur) => {
            // One record names one source for all its FEC counters: counters of two tools
            // (mlxlink's bits beside `ethtool --show-fec`'s blocks) are said to be netlink's,
            // as before sources were recorded; one tool's parts keep its name.
            let counts = |f: &FecStats| {
                [&f.corrected_bits, &f.corrected_blocks, &f.uncorrectable_blocks].iter().any(|v| !v.is_empty()) || !f.histogram.is_empty()
            };
            if cur.source != from.source {
                cur.source = match (counts(cur), counts(from)) {
                    (true, true) => None,
                    (true, false) => cur.source,
                    (false, _) => from.source,
                };
            }
            for (a, b, name) in [
                (&mut cur.corrected_bits, &from.corrected_bits, "corrected bits"),
                (&mut cur.corrected_blocks, &from.corrected_blocks, "corrected blocks"),
                (&mut cur.uncorrectable_blocks, &from.uncorrectable_blocks, "uncorrectable blocks"),
            ] {
                if !a.is_empty() && !b.is_empty() {
                    return Err(ImportError::Input(format!("{}: FEC {name} given twice for one interface in one input", path.display())));
                }
                if a.is_empty() {
                    a.clone_from(b);
                }
            }
            if cur.histogram.is_empty() {
                cur.histogram.clone_from(&from.histogram);
            }
        }
    }
    Ok(())
}

impl Snapshot {
    fn add(&mut self, pf: &ParsedFile) -> Result<(), ImportError> {
        let f = &pf.fragment;
        if f.has_counters() && self.formats.contains(&pf.format.name()) {
            // A paste of several commands (one file) holding the same output twice: a before
            // and an after with no time between them that the file can give.
            let what = match self.counter_files.contains(&pf.path) {
                true => "cut the paste into one file per snapshot and give them as arguments with their times (--at FILE=RFC3339)",
                false => "give each snapshot as its own argument",
            };
            return Err(ImportError::Input(format!(
                "{}: a second {} output of one interface in one input; {what}",
                pf.path.display(),
                pf.format.name()
            )));
        }
        self.files.push(pf.path.clone());
        if f.has_counters() {
            self.formats.push(pf.format.name());
            self.counter_files.push(pf.path.clone());
            self.mtime = self.mtime.max(pf.mtime);
            let c = &mut self.counters;
            c.driver_stats.extend(f.driver_stats.iter().map(|(k, v)| (k.clone(), v)));
            if let Some(fec) = &f.fec {
                merge_fec(&mut c.fec, fec, &pf.path)?;
            }
            fill(&mut c.since_clear_s, &f.since_clear_s);
            fill(&mut c.pause, &f.pause);
            if let Some(d) = f.link_state.as_ref().and_then(|l| l.down_events) {
                c.link_state.get_or_insert_with(LinkState::default).down_events = Some(d);
            }
        }
        for (k, v) in &f.printed_fields {
            self.counters.printed_fields.insert(k.clone(), v.clone());
        }
        fill(&mut self.driver, &f.driver);
        fill(&mut self.bus_info, &f.bus_info);
        fill(&mut self.up, &f.link_state.as_ref().and_then(|l| l.up));
        if let Some(l) = f.link_state.as_ref().filter(|l| l.ext_state.is_some()) {
            fill(&mut self.ext_state, &Some((l.ext_state, l.ext_substate)));
        }
        if let Some(l) = &f.link {
            merge_link(&mut self.link, l);
        }
        // A port holds one module at a time: a second module in one input (a paste of the
        // port before and after a swap) is not merged into the first, nor dropped.
        if let (Some(a), Some(b)) = (self.module_sn(), module_sn(f.printed_module.as_ref(), f.module_pages.as_ref())) {
            if a != b {
                return Err(ImportError::Input(format!(
                    "{}: a second module (vendor SN {b}) for an interface whose module is vendor SN {a}, in one input; cut the paste into one file per module and give them as arguments (with --at FILE=RFC3339 for their times), or give each port its own --interface",
                    pf.path.display()
                )));
            }
        }
        fill(&mut self.module_pages, &f.module_pages);
        // One port's module as several commands print it (SONiC `eeprom --dom`, `status`, `pm`).
        match (&mut self.printed_module, &f.printed_module) {
            (Some(have), Some(more)) => have.merge(more),
            (have, more) => fill(have, more),
        }
        fill(&mut self.serdes_eye, &f.serdes_eye);
        fill(&mut self.uptime_s, &f.uptime_s);
        fill(&mut self.neighbor, &f.neighbor);
        self.host.fill_from(&f.host);
        for p in &f.ib_ports {
            merge_ib(self.ib_port.get_or_insert_with(|| p.identity.clone()), &p.identity);
            let s = self.ib.get_or_insert_with(Default::default);
            fill(&mut s.state, &p.sample.state);
            fill(&mut s.phys_state, &p.sample.phys_state);
            for (k, v) in p.sample.counters.iter().chain(&p.sample.hw_counters) {
                let into = if p.sample.counters.contains_key(k) { &mut s.counters } else { &mut s.hw_counters };
                into.entry(k.clone()).or_insert(*v);
            }
            let read = |(k, v): (&String, &u64)| IbRead { counter: k.clone(), value: *v, source: pf.format.name(), mtime: pf.mtime };
            self.ib_reads.extend(p.sample.counters.iter().map(read));
        }
        Ok(())
    }

    fn has_counters(&self) -> bool {
        self.counters.has_counters() || self.ib.as_ref().is_some_and(|s| s.state.is_some() || !s.counters.is_empty())
    }

    /// The counters two files of this snapshot read of the port in disagreement (each
    /// later read against the first, the one kept): the time between them is the
    /// files' modification times apart, with 2 s for the clock's grain (whole seconds on
    /// some file systems) and the tools' own reading time.
    fn ib_disagreements(&self) -> Vec<crate::counters::ib::IbDisagreement> {
        use crate::counters::ib::{reads_agree, IbDisagreement, IbRate, IbReading};
        let rate = self.ib_port.as_ref().and_then(|p| p.rate.as_deref()).and_then(IbRate::parse);
        let mut out = Vec::new();
        for (i, kept) in self.ib_reads.iter().enumerate() {
            let first = self.ib_reads[..i].iter().all(|r| r.counter != kept.counter);
            for other in self.ib_reads[i + 1..].iter().filter(|r| first && r.counter == kept.counter && r.source != kept.source) {
                let dt_s = match (kept.mtime, other.mtime) {
                    (Some(a), Some(b)) => Some(a.duration_since(b).unwrap_or_else(|e| e.duration()).as_secs_f64() + 2.0),
                    _ => None,
                };
                if !reads_agree(&kept.counter, kept.value, other.value, dt_s, rate) {
                    let reading = |r: &IbRead| IbReading { source: r.source.to_string(), value: r.value };
                    out.push(IbDisagreement { counter: kept.counter.clone(), kept: reading(kept), other: reading(other) });
                }
            }
        }
        out
    }

    fn has_module(&self) -> bool {
        self.module_pages.is_some() || self.printed_module.is_some()
    }

    /// A reading that is not a counter: the module's monitors or the NIC's receiver eye.
    fn has_reading(&self) -> bool {
        self.has_module() || self.serdes_eye.is_some()
    }

    fn files_text(files: &[PathBuf]) -> String {
        files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    }

    /// The module's vendor SN: the printed module's, else the decoded pages'.
    fn module_sn(&self) -> Option<String> {
        module_sn(self.printed_module.as_ref(), self.module_pages.as_ref())
    }

    /// The module's vendor SN as the pages and the printed module give it; a mismatch is mixed-up input.
    fn check_module(&self, iface: &str) -> Result<(), ImportError> {
        let (Some(pages), Some(printed)) = (&self.module_pages, &self.printed_module) else { return Ok(()) };
        let from_pages = pages.image().ok().and_then(|img| crate::module::decode(&img).ok()).and_then(|m| m.vendor_sn);
        match (from_pages, &printed.vendor_sn) {
            (Some(a), Some(b)) if a.trim() != b.trim() => Err(ImportError::Input(format!(
                "{iface}: the module pages say vendor SN {a:?} and {} says {b:?}: these files are of different modules ({})",
                printed.tool,
                Self::files_text(&self.files)
            ))),
            _ => Ok(()),
        }
    }
}

/// The interface of each parsed file (rules in the module docs).
fn assign_interfaces(files: &[Vec<ParsedFile>], opts: &ImportOptions, notes: &mut Vec<String>) -> Result<Vec<Vec<String>>, ImportError> {
    let mut named: Vec<String> = Vec::new();
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    let mut names: Vec<Vec<Option<String>>> = Vec::new();
    for group in files {
        let mut g = Vec::new();
        for pf in group {
            // Host-wide outputs (lspci, uptime) belong to no one interface.
            let fr = &pf.fragment;
            if fr.interface.is_none() && pf.name_interface.is_none() && fr.is_host_wide() {
                g.push(Some(String::new()));
                continue;
            }
            let n = match (&pf.fragment.interface, &pf.name_interface) {
                (Some(c), Some(n)) if c != n => {
                    return Err(ImportError::Input(format!("{}: the output is of {c} but the file name says {n}", pf.path.display())))
                }
                (c, n) => c.clone().or(n.clone()),
            };
            if let Some(n) = &n {
                if !n.is_empty() && seen.insert(n.clone()) {
                    named.push(n.clone());
                }
            }
            g.push(n);
        }
        names.push(g);
    }
    let fallback = match (&opts.interface, named.len()) {
        (Some(i), _) => Some(i.clone()),
        (None, 0) => Some(UNNAMED.to_string()),
        (None, 1) => Some(named[0].clone()),
        _ => None,
    };
    let mut out = Vec::new();
    for (group, g) in files.iter().zip(names) {
        let mut o = Vec::new();
        for (pf, n) in group.iter().zip(g) {
            let n = match (n, &fallback) {
                (Some(n), _) => n,
                (None, Some(f)) => {
                    let f_data = &pf.fragment;
                    if opts.interface.is_none() && f != UNNAMED && (f_data.has_counters() || f_data.module_pages.is_some()) {
                        notes.push(format!("{}: names no interface; taken as {f}, the only interface in the input", pf.path.display()));
                    }
                    f.clone()
                }
                (None, None) => {
                    return Err(ImportError::Input(format!(
                        "{}: names no interface and the input has several ({}): give --interface",
                        pf.path.display(),
                        named.join(", ")
                    )))
                }
            };
            o.push(n);
        }
        out.push(o);
    }
    if named.is_empty() && opts.interface.is_none() {
        notes.push(format!("no input names its interface: recorded as {UNNAMED:?} (give --interface NAME)"));
    }
    Ok(out)
}

/// Seconds of each snapshot from the first, and the time-base sentence.
fn spacing(iface: &str, snaps: &[&Snapshot]) -> Result<(Vec<f64>, String, Option<OffsetDateTime>), ImportError> {
    let clears: Vec<Option<f64>> = snaps.iter().map(|s| s.counters.since_clear_s).collect();
    if clears.iter().all(Option::is_some) {
        let c: Vec<f64> = clears.iter().flatten().copied().collect();
        if c.windows(2).all(|w| w[1] >= w[0]) {
            let t = c.iter().map(|v| v - c[0]).collect();
            return Ok((t, "content: the interval between mlxlink's \"Time Since Last Clear\" readings".into(), None));
        }
    }
    if snaps.iter().any(|s| s.at.is_some()) && !snaps.iter().all(|s| s.at.is_some()) {
        return Err(ImportError::Input(format!("{iface}: --at is given for some of its inputs only: give it for each")));
    }
    if snaps.iter().all(|s| s.at.is_some()) {
        let at: Vec<OffsetDateTime> = snaps.iter().filter_map(|s| s.at).collect();
        let t = at.iter().map(|a| (*a - at[0]).as_seconds_f64()).collect();
        return Ok((t, "--at: the times given for each input".into(), Some(at[0])));
    }
    let mtimes: Vec<std::time::SystemTime> = snaps.iter().filter_map(|s| s.mtime).collect();
    if mtimes.len() != snaps.len() {
        return Err(ImportError::Input(format!("{iface}: no time base for its snapshots: give --at FILE=RFC3339 for each")));
    }
    let t = mtimes
        .iter()
        .map(|m| m.duration_since(mtimes[0]).map(|d| d.as_secs_f64()).unwrap_or_else(|e| -e.duration().as_secs_f64()))
        .collect();
    Ok((t, "file modification times of the counter files (no time in the content, no --at)".into(), Some(OffsetDateTime::from(mtimes[0]))))
}

/// A reading of zero counts in the shape of `s`: the start of a span the counters cover.
fn zero_sample(s: &SampleRecord) -> SampleRecord {
    let zero = |v: &Vec<u64>| vec![0; v.len()];
    let fec = s.fec.as_ref().map(|f| FecStats {
        corrected_blocks: zero(&f.corrected_blocks),
        uncorrectable_blocks: zero(&f.uncorrectable_blocks),
        corrected_bits: zero(&f.corrected_bits),
        histogram: f
            .histogram
            .iter()
            .map(|b| crate::counters::FecHistogramBin { count: 0, per_lane: zero(&b.per_lane), ..b.clone() })
            .collect(),
        source: f.source,
        // A change count has no known start: none is made up.
        latest_readings: None,
    });
    SampleRecord {
        t: 0.0,
        interface: s.interface.clone(),
        link: LinkState { down_events: s.link.down_events.map(|_| 0), ..s.link.clone() },
        fec,
        driver_stats: s.driver_stats.with_values([]), // the same names, every value 0
        pause: s
            .pause
            .as_ref()
            .map(|p| crate::counters::host::PauseStats { tx_frames: p.tx_frames.map(|_| 0), rx_frames: p.rx_frames.map(|_| 0) }),
        origin_file: s.origin_file.clone(),
        // The port's state as read; its counters from 0.
        ib: s.ib.as_ref().map(|ib| crate::counters::ib::IbSample {
            counters: ib.counters.keys().map(|k| (k.clone(), 0)).collect(),
            hw_counters: ib.hw_counters.keys().map(|k| (k.clone(), 0)).collect(),
            disagreements: Vec::new(),
            ..ib.clone()
        }),
        ..Default::default()
    }
}

fn fmt_s(s: f64) -> String {
    format!("{s:.1} s")
}

/// The most GPUs all interfaces of one input may hold between them: a host of
/// [`MAX_GPUS`](crate::device::host::MAX_GPUS) GPUs with 256 ports.
const MAX_GPU_COPIES: usize = 1 << 16;

/// Why `interfaces` interfaces get no GPUs when each would hold its own copy of up to
/// `gpus` (the capture writes them with every interface): more than [`MAX_GPU_COPIES`].
pub(super) fn too_many_gpu_copies(interfaces: usize, gpus: usize) -> Option<String> {
    (interfaces.saturating_mul(gpus) > MAX_GPU_COPIES).then(|| {
        format!("{interfaces} interfaces with up to {gpus} GPUs each: more GPU places than one host's {MAX_GPU_COPIES}, GPU locality not checked")
    })
}

/// The snapshots one input argument gives, per interface, with the host-wide lspci and
/// uptime matched to them, and mixed-up input refused.
fn group_snapshots(
    input: &Path,
    group: &[ParsedFile],
    names: &[String],
    opts: &ImportOptions,
    notes: &mut Vec<String>,
) -> Result<BTreeMap<String, Snapshot>, ImportError> {
    let mut by_iface: BTreeMap<String, Snapshot> = BTreeMap::new();
    let mut pci_devices: Vec<&lspci::PciFunction> = Vec::new();
    let mut uptime = None;
    let (mut links, mut topology, mut rdma, mut kernel_logs) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (pf, name) in group.iter().zip(names) {
        pci_devices.extend(pf.fragment.pci_devices.iter());
        kernel_logs.extend(pf.fragment.kernel_log.iter());
        links.extend(pf.fragment.netdev_links.iter());
        topology.extend(pf.fragment.gpu_topology.iter());
        rdma.extend(pf.fragment.rdma_netdevs.iter());
        if pf.fragment.uptime_s.is_some() {
            uptime = pf.fragment.uptime_s;
        } else if !name.is_empty() {
            by_iface.entry(name.clone()).or_default().add(pf)?;
        }
    }
    let at = opts.at.iter().find(|(p, _)| p == input).map(|(_, t)| *t);
    let single = by_iface.len() == 1;
    // lspci's functions by address (the listing's and the tree's of one function merged),
    // so each interface finds its own in one look-up: a scan of the list per interface made
    // an input of many ports quadratic (8,000: two minutes).
    let functions = lspci::by_address(pci_devices);
    let mut gpus = lspci::gpus(&functions, notes);
    let single_nic = topology.len() == 1;
    // Each interface holds its own copy of its NIC's GPUs (the capture writes them with
    // every interface): 4,096 switch ports mapped to one NIC of 256 GPUs held 340 MB from
    // 700 kB of input. More than one host's worth is left out.
    let most = gpus.len().max(topology.iter().map(|t| t.gpu_count()).max().unwrap_or(0));
    if let Some(note) = too_many_gpu_copies(by_iface.len(), most) {
        notes.push(note);
        gpus.clear();
        topology.clear();
    }
    for (name, snap) in &mut by_iface {
        host_wide_facts(name, snap, &links, &topology, &rdma, single && single_nic, notes);
        snap.at = at;
        snap.uptime_s = snap.uptime_s.or(uptime);
        match &snap.bus_info {
            Some(b) => {
                if let Some(nic) = PciAddress::parse_domain_optional(b.trim()).and_then(|a| functions.get(&a)) {
                    fill(&mut snap.pci, &nic.link);
                    lspci::fill_host(&mut snap.host, nic, &gpus);
                }
            }
            // Without a bus address, the only device with a link is this interface's only
            // when it is the only interface.
            None if single => {
                let links: Vec<&PciLink> = functions.values().filter_map(|f| f.link.as_ref()).collect();
                match links.as_slice() {
                    [one] => snap.pci = Some((*one).clone()),
                    [] => {}
                    _ => notes.push(format!(
                        "{name}: lspci lists {} PCIe devices and no ethtool -i bus-info picks one: PCIe link not used",
                        links.len()
                    )),
                }
            }
            None => {}
        }
        snap.check_module(name)?;
    }
    let ports = by_iface.iter_mut().map(|(n, s)| (n.as_str(), s.bus_info.as_deref(), &mut s.host));
    super::kernel_log::join(&kernel_logs, ports, notes);
    // An ethtool -S of one interface with a -m of another: mixed-up input, not two half interfaces.
    let counters_only = by_iface.iter().find(|(_, s)| s.has_counters() && !s.has_module()).map(|(n, _)| n);
    let module_only = by_iface
        .iter()
        .find(|(_, s)| s.has_module() && !s.has_counters() && s.driver.is_none() && s.link == LinkInfo::default())
        .map(|(n, _)| n);
    if let (Some(c), Some(m)) = (counters_only, module_only) {
        return Err(ImportError::Input(format!(
            "{}: counters of {c} but module pages of {m} only: these are outputs of different interfaces; import them separately or name the right files",
            input.display()
        )));
    }
    Ok(by_iface)
}

/// The host-wide outputs' facts of interface `name`: its `ip link` MTU (and PCI function
/// when no `ethtool -i` gave one), and the GPUs of its NIC in `nvidia-smi topo -m`, found
/// by RDMA device: the interface's own (`mlx5_0/1`), the one `ibdev2netdev` says carries
/// it, or the matrix's only NIC when the input has one interface (`only`).
fn host_wide_facts(
    name: &str,
    snap: &mut Snapshot,
    links: &[&super::host_tools::NetdevLink],
    topology: &[&super::host_tools::NicGpus],
    rdma: &[&(String, String)],
    only: bool,
    notes: &mut Vec<String>,
) {
    use crate::device::host::Fact;
    if let Some(l) = links.iter().find(|l| l.interface == name) {
        if snap.host.mtu.is_none() {
            snap.host.mtu = Some(Fact::import(l.mtu));
        }
        fill(&mut snap.bus_info, &l.bus_info);
    }
    if snap.host.gpus.is_some() || topology.is_empty() {
        return;
    }
    let hca = crate::source::infiniband::parse_port_name(name).map(|(hca, _)| hca.to_string());
    let carried: Vec<&str> = rdma.iter().filter(|(_, netdev)| netdev == name).map(|(dev, _)| dev.as_str()).collect();
    let nic = topology.iter().find(|t| hca.as_deref() == Some(t.nic.as_str()) || carried.contains(&t.nic.as_str()));
    let nic = match (nic, only) {
        (Some(n), _) => Some(*n),
        (None, true) => {
            notes.push(format!("{name}: nvidia-smi topo -m's only NIC ({}) taken as this interface's", topology[0].nic));
            Some(topology[0])
        }
        (None, false) => None,
    };
    if let Some(n) = nic {
        snap.host.gpus = Some(Fact::import(n.gpus()));
    }
}

/// Whose statement a lone snapshot's span is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SpanOf {
    /// The tool's own time since its counters' clear (mlxlink, NVUE): its counters' span
    /// only. Another source's counters (perfquery, a sysfs tree: the IB `PortCounters`) were
    /// cleared when they were, which that tool does not say.
    ToolClear,
    /// The user's `--window-s` / `--since-boot`: every counter of the input.
    User,
}

/// The span a lone snapshot's counts cover (seconds, the sentence saying why, and whose
/// statement it is), if any.
fn lone_span(name: &str, s: &Snapshot, opts: &ImportOptions) -> Result<Option<(f64, String, SpanOf)>, ImportError> {
    Ok(match (s.counters.since_clear_s, opts.window_s, opts.since_boot) {
        (Some(c), _, _) => Some((
            c,
            format!(
                "the counters' own time since their clear, {:.1} min (mlxlink \"Time Since Last Clear\", NVUE time-since-last-clear-min): counts since the clear",
                c / 60.0
            ),
            SpanOf::ToolClear,
        )),
        (None, Some(w), _) => Some((w, format!("--window-s {w}: counts taken as covering the last {}", fmt_s(w)), SpanOf::User)),
        (None, None, true) => match s.uptime_s {
            Some(u) => Some((u, format!("--since-boot: counts since boot, uptime {}", fmt_s(u)), SpanOf::User)),
            None => {
                return Err(ImportError::Input(format!(
                    "{name}: --since-boot needs the host's uptime in the input (`cat /proc/uptime` or `uptime` output)"
                )))
            }
        },
        (None, None, false) => None,
    })
}

/// One interface's records from its snapshots (argument order); returns the wall time of t = 0 when known.
fn interface_records(
    name: &str,
    list: &[Snapshot],
    opts: &ImportOptions,
    notes: &mut Vec<String>,
    records: &mut Vec<Record>,
) -> Result<Option<OffsetDateTime>, ImportError> {
    let counted: Vec<&Snapshot> = list.iter().filter(|s| s.has_counters()).collect();
    let (times, base, start) = match counted.len() {
        0 => (Vec::new(), "no counters: identity and module only".to_string(), None),
        1 => (vec![0.0], String::new(), None),
        _ => spacing(name, &counted)?,
    };
    let span = match counted.as_slice() {
        [one] => lone_span(name, one, opts)?,
        _ => None,
    };
    let mut ci = 0usize;
    let mut last_sample: Option<usize> = None;
    let mut prev: Option<&Snapshot> = None;
    for snap in list {
        // An identity-only input sits at the time of the snapshot before it.
        let t0 = times.get(ci.saturating_sub(usize::from(!snap.has_counters()))).copied().unwrap_or(0.0);
        // Identity is static: a later input without lspci/-i keeps the earlier one's.
        let module = snap.module_pages.clone().or_else(|| prev.and_then(|p| p.module_pages.clone()));
        if snap.module_pages.is_none() && module.is_some() && snap.has_counters() {
            notes.push(format!("{name}: no module pages in {}: the earlier input's are kept", Snapshot::files_text(&snap.files)));
        }
        let mut link = snap.link.clone();
        if let Some(p) = prev {
            merge_link(&mut link, &p.link);
        }
        records.push(Record::Interface(InterfaceRecord {
            t: round_t(t0),
            interface: name.to_string(),
            driver: snap.driver.clone().or_else(|| prev.and_then(|p| p.driver.clone())),
            bus_info: snap.bus_info.clone().or_else(|| prev.and_then(|p| p.bus_info.clone())),
            pci: snap.pci.clone().or_else(|| prev.and_then(|p| p.pci.clone())),
            port: None,
            link,
            module,
            origin_file: Some(Snapshot::files_text(&snap.files)),
            host: {
                let mut h = snap.host.clone();
                if let Some(p) = prev {
                    h.fill_from(&p.host);
                }
                (h != crate::device::host::HostFacts::default()).then_some(h)
            },
            neighbor: snap.neighbor.clone().or_else(|| prev.and_then(|p| p.neighbor.clone())),
            ib: snap.ib_port.clone().or_else(|| prev.and_then(|p| p.ib_port.clone())).map(|mut p| {
                // A perfquery names no device: the interface's name (`--interface mlx5_0/1`) does.
                if let (true, Some((hca, port))) = (p.hca.is_empty(), crate::source::infiniband::parse_port_name(name)) {
                    (p.hca, p.port) = (hca.to_string(), port);
                }
                p
            }),
        }));
        prev = Some(snap);
        // Without counters, a sample only carries a module or eye reading that has no other one.
        let module_only = counted.is_empty() && snap.has_reading();
        if !snap.has_counters() && !module_only {
            continue;
        }
        ci += usize::from(snap.has_counters());
        let mut link_state = snap.counters.link_state.clone().unwrap_or_default();
        link_state.up = link_state.up.or(snap.up);
        if let (None, Some((state, substate))) = (link_state.ext_state, snap.ext_state) {
            (link_state.ext_state, link_state.ext_substate) = (state, substate);
        }
        let s = SampleRecord {
            t: round_t(t0 + span.as_ref().map_or(0.0, |s| s.0)),
            interface: name.to_string(),
            link: link_state,
            fec: snap.counters.fec.clone(),
            driver_stats: snap.counters.driver_stats.clone(),
            module: None,
            origin_file: Some(Snapshot::files_text(if snap.counter_files.is_empty() { &snap.files } else { &snap.counter_files })),
            time_base: None,
            printed_module: snap.printed_module.clone(),
            printed_fields: snap.counters.printed_fields.clone(),
            ib: snap.ib.clone().map(|mut ib| {
                ib.disagreements = snap.ib_disagreements();
                for d in &ib.disagreements {
                    notes.push(format!("{name}: {}", crate::counters::ib::disagreement_text(d)));
                }
                ib
            }),
            pause: snap.counters.pause.clone(),
            serdes_eye: snap.serdes_eye.clone(),
        };
        if let Some((_, _, of)) = &span {
            let mut z = zero_sample(&s);
            z.t = round_t(t0);
            z.time_base = Some("zero reading at the start of the span the counts cover".into());
            // The IB counters were not cleared with the tool's: no zero reading of theirs, so
            // they are read at the span's end only (counts since an unknown clear, no
            // increase and no rate: the engine's rule for a counter read at one moment).
            if let (SpanOf::ToolClear, Some(ib)) = (of, z.ib.as_mut().filter(|ib| !ib.counters.is_empty())) {
                ib.counters.clear();
                ib.hw_counters.clear();
                notes.push(format!(
                    "{name}: the InfiniBand counters (ibstat, perfquery, sysfs) state no time since their clear: counts since an unknown clear, no rate; the span is the tool's own counters'"
                ));
            }
            records.push(Record::Sample(z));
        }
        last_sample = Some(records.len());
        records.push(Record::Sample(s));
    }
    let sentence = match (&span, counted.len()) {
        (Some((_, why, _)), _) => why.clone(),
        // EOS's latest readings have no start to give: only a second snapshot adds to them.
        (None, 1) if counted[0].counters.readings_only() => {
            "none: one snapshot of the switch's latest FEC readings, not running totals (no count or BER; a second snapshot tells whether new readings came)".into()
        }
        (None, 1) => {
            "none: one snapshot, counts since the counters last started at an unknown time (no BER; give --window-s N or --since-boot)"
                .into()
        }
        (None, _) => base,
    };
    if let Some(Record::Sample(last)) = last_sample.and_then(|i| records.get_mut(i)) {
        last.time_base = Some(sentence.clone());
    }
    notes.push(format!("{name}: {} snapshot(s); time base: {sentence}", counted.len()));
    Ok(start)
}

/// Do bus-info `a` and `b` name one function (whatever the case, with or without domain
/// 0)? Text that is no PCI address (a USB or platform device's) is compared as it is.
fn same_function(a: &str, b: &str) -> bool {
    match (PciAddress::parse_domain_optional(a.trim()), PciAddress::parse_domain_optional(b.trim())) {
        (Some(a), Some(b)) => a == b,
        _ => a.trim().eq_ignore_ascii_case(b.trim()),
    }
}

/// Snapshots of one interface must be of one port: two PCI addresses are two ports, and
/// inputs that name no interface with two module SNs are two ports as likely as one
/// port whose module was swapped — refused rather than merged into one BER across both
/// (a named netdev, or `--interface`, says it is one port: its SN change is a swap).
fn check_one_port(name: &str, list: &[Snapshot], opts: &ImportOptions) -> Result<(), ImportError> {
    let Some(first) = list.first() else { return Ok(()) };
    let files = |s: &Snapshot| Snapshot::files_text(&s.files);
    for s in &list[1..] {
        if let (Some(a), Some(b)) = (&first.bus_info, &s.bus_info) {
            if !same_function(a, b) {
                return Err(ImportError::Input(format!(
                    "{name}: {} is PCI {a} and {} is PCI {b}: two ports, not two snapshots of one; import them separately",
                    files(first),
                    files(s)
                )));
            }
        }
        if name == UNNAMED && opts.interface.is_none() {
            if let (Some(a), Some(b)) = (first.module_sn(), s.module_sn()) {
                if a != b {
                    return Err(ImportError::Input(format!(
                        "{} (module SN {a}) and {} (module SN {b}) name no interface and hold different modules: two ports (e.g. p0 and p1 of one adapter) are not merged into one; import each port on its own, or give --interface NAME if they are one port whose module was swapped",
                        files(first),
                        files(s)
                    )));
                }
            }
        }
    }
    Ok(())
}

/// A reading without counters (an `mlxlink --show_eye`, a printed module) given as an
/// argument of its own is of the counters' snapshot it sits with, the one before it, else
/// the next: it moves there, as when its file shares that snapshot's folder, so the sample
/// of that time carries it (a sample is written only for a snapshot with counters, when
/// any has them). A snapshot that already has its own eye keeps it and says so.
fn place_readings(name: &str, list: &mut [Snapshot], notes: &mut Vec<String>) {
    for i in 0..list.len() {
        if list[i].has_counters() || (list[i].serdes_eye.is_none() && list[i].printed_module.is_none()) {
            continue;
        }
        let Some(j) = (0..i).rev().chain(i + 1..list.len()).find(|&j| list[j].has_counters()) else { continue };
        let (eye, printed) = (list[i].serdes_eye.take(), list[i].printed_module.take());
        let from = Snapshot::files_text(&list[i].files);
        let into = &mut list[j];
        match (&into.serdes_eye, eye) {
            (None, eye) => into.serdes_eye = eye,
            (Some(_), Some(_)) => notes.push(format!(
                "{name}: the eye in {from} is not used: the counters it sits with ({}) come with an eye of their own",
                Snapshot::files_text(&into.files)
            )),
            (Some(_), None) => {}
        }
        match (&mut into.printed_module, printed) {
            (Some(have), Some(more)) => have.merge(&more),
            (have, more) => fill(have, &more),
        }
    }
    // A link's own state given as an argument of its own (`ethtool IFACE`: up or down, the
    // kernel's reason, the speed) is of the moment of the reading or counters it sits with,
    // the one before it, else the next, as when its file shares that snapshot's folder.
    for i in 0..list.len() {
        let lone = &list[i];
        if lone.has_counters() || lone.has_reading() || (lone.up.is_none() && lone.ext_state.is_none()) {
            continue;
        }
        let Some(j) = (0..i).rev().chain(i + 1..list.len()).find(|&j| list[j].has_counters() || list[j].has_reading()) else { continue };
        let (up, ext_state, link) = (list[i].up.take(), list[i].ext_state.take(), list[i].link.clone());
        let into = &mut list[j];
        fill(&mut into.up, &up);
        fill(&mut into.ext_state, &ext_state);
        merge_link(&mut into.link, &link);
    }
}

/// Imports the inputs (files or directories) into one capture.
pub fn import(inputs: &[PathBuf], opts: &ImportOptions) -> Result<Imported, ImportError> {
    if inputs.is_empty() {
        return Err(ImportError::Input("nothing to import".into()));
    }
    let mut notes = Vec::new();
    let files: Vec<Vec<ParsedFile>> = inputs.iter().map(|p| read_input(p, &mut notes)).collect::<Result<_, _>>()?;
    import_parsed(inputs, &files, notes, opts)
}

/// [`import`] of files already read and parsed (`files[i]` of `inputs[i]`; a pipe is read
/// once by the caller); `notes` are the reading's.
pub fn import_parsed(
    inputs: &[PathBuf],
    files: &[Vec<ParsedFile>],
    mut notes: Vec<String>,
    opts: &ImportOptions,
) -> Result<Imported, ImportError> {
    // A switch's table of ports is one file per port from here on; so are InfiniBand ports.
    let split: Vec<Vec<ParsedFile>> =
        files.iter().map(|g| super::walk::split_ib_ports(&g.iter().flat_map(ParsedFile::ports).collect::<Vec<_>>())).collect();
    // An amBER CSV's rows are runs: each a snapshot of its own, as if given as its own argument.
    let (inputs, split) = super::walk::split_runs(inputs, split);
    let inputs = &inputs[..];
    let files = &split[..];
    for pf in files.iter().flatten() {
        notes.extend(pf.fragment.notes.iter().map(|n| format!("{}: {n}", pf.path.display())));
    }
    let ifaces = assign_interfaces(files, opts, &mut notes)?;
    // Per interface, in order of first appearance: its snapshot in each input (linear in
    // interfaces: a set, not a scan of the order, says which were seen).
    let mut order: Vec<String> = Vec::new();
    let mut snaps: BTreeMap<String, Vec<Snapshot>> = BTreeMap::new();
    for ((input, group), names) in inputs.iter().zip(files).zip(&ifaces) {
        for (name, snap) in group_snapshots(input, group, names, opts, &mut notes)? {
            let list = snaps.entry(name).or_insert_with_key(|name| {
                order.push(name.clone());
                Vec::new()
            });
            list.push(snap);
        }
    }
    if order.is_empty() {
        let shown: Vec<String> = inputs.iter().map(|p| p.display().to_string()).collect();
        // A port its driver refused has no netdev: the kernel's line is the answer.
        let logs = files.iter().flatten().filter_map(|pf| pf.fragment.kernel_log.as_ref());
        let said = match super::kernel_log::refusals(logs, &Default::default()).as_slice() {
            [] => String::new(),
            r => format!("; the kernel log says: {}", r.join("; ")),
        };
        return Err(ImportError::Input(format!(
            "{}: no interface in the input: lspci and uptime outputs describe the host, not a link; import them with an interface's ethtool or mlxlink output{said}",
            shown.join(", ")
        )));
    }
    for (name, list) in &mut snaps {
        crate::capture::check_interface_name(name).map_err(|e| ImportError::Input(format!("the inputs name {e}")))?;
        check_one_port(name, list, opts)?;
        place_readings(name, list, &mut notes);
    }
    let mut records: Vec<Record> = Vec::new();
    let mut created: Option<OffsetDateTime> = None;
    for name in &order {
        let start = interface_records(name, snaps.get(name).map_or(&[][..], |v| &v[..]), opts, &mut notes, &mut records)?;
        created = created.or(start);
    }
    let mut header = Header::new(None, None, Some(format!("optics {} import", env!("CARGO_PKG_VERSION"))));
    if let Some(c) = created.and_then(|c| c.format(&time::format_description::well_known::Rfc3339).ok()) {
        header.created = c;
    }
    header.source = Some("import".into());
    let capture = Capture { header, records, notes: Vec::new() };
    check_readable(&capture)?;
    Ok(Imported { capture, notes })
}

/// Whatever import writes, `scan --replay` reads: the records are written as capture lines
/// and read back by the capture reader (a thousand at a time: memory stays bounded), and
/// one the reader would refuse (a value that overflowed to infinity, more than 16 lanes,
/// more than 64 histogram bins) refuses the import, naming the file it came from.
fn check_readable(capture: &Capture) -> Result<(), ImportError> {
    const CHUNK: usize = 1024;
    let mut text = Vec::new();
    for chunk in capture.records.chunks(CHUNK) {
        text.clear();
        let mut writer = crate::capture::CaptureWriter::new(&mut text, &capture.header).map_err(|e| ImportError::Input(e.to_string()))?;
        for rec in chunk {
            writer.write(rec).map_err(|e| refused(rec, &e.to_string()))?;
        }
        drop(writer);
        let mut reader = crate::capture::CaptureReader::new(&text[..]).map_err(|e| ImportError::Input(e.to_string()))?;
        for rec in chunk {
            if let Err(e) = reader.next_record() {
                return Err(refused(rec, &e.to_string()));
            }
        }
    }
    Ok(())
}

fn refused(rec: &Record, why: &str) -> ImportError {
    let origin = match rec {
        Record::Sample(s) => s.origin_file.clone(),
        Record::Interface(i) => i.origin_file.clone(),
        _ => None,
    };
    // "line N: " is the line of the check's own buffer, not of any file the user has.
    let why = why.split_once(": ").filter(|(l, _)| l.starts_with("line ")).map_or(why, |(_, w)| w);
    ImportError::Input(format!(
        "{}: {}: a capture may not hold this ({why}): nothing written",
        origin.unwrap_or_else(|| "input".into()),
        rec.interface().unwrap_or("?")
    ))
}

/// True when the file starts with a capture header line (its first 64 kB tell).
pub fn is_capture(path: &Path) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let Ok(f) = std::fs::File::open(path) else { return false };
    path.is_file() && f.take(1 << 16).read_to_end(&mut head).is_ok() && is_capture_start(&head)
}

/// `compare BEFORE AFTER` of two tool outputs (a runbook's stored baseline and a new
/// dump): the baseline alone, and the interval from it to AFTER, so the comparison's
/// "after" is the per-lane BER over that interval. (Captures are streamed by the caller.)
pub fn import_pair(before: &Path, after: &Path) -> Result<(Imported, Imported), ImportError> {
    let opts = ImportOptions::default();
    Ok((import(&[before.to_path_buf()], &opts)?, import(&[before.to_path_buf(), after.to_path_buf()], &opts)?))
}
