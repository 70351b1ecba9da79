//! Speed and memory figures: `cargo bench --bench figures` prints one Markdown table per
//! area, each figure beside its target, and exits 0. docs/benchmarks.md explains every
//! target. Nothing here fails on a slow or busy machine: these are figures to read, not
//! timed tests (project rule), so a shared CI box cannot make the suite flaky.
//!
//! Time is wall time from `std::time::Instant` around single-threaded work, so it stands
//! for CPU time on an idle core. Memory is the kernel's own account in
//! `/proc/self/status` (VmRSS now, VmHWM peak), with the peak reset through
//! `/proc/self/clear_refs` (proc(5), value 5) before the step it is meant to measure.

#[path = "figures/histogram.rs"]
mod histogram;
#[path = "figures/import.rs"]
mod import;
#[path = "figures/stream.rs"]
mod stream;

use anyhow::{anyhow, bail, Context, Result};
use optics::analysis::{analyze, Config};
use optics::capture::RecordSink;
use optics::capture::{read_capture_from, Capture, CaptureWriter, InterfaceRecord, ModulePages, Record, SampleRecord};
use optics::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use optics::device::DeviceIdentity;
use optics::module::report::checksum8;
use optics::module::{decode, input, ModuleImage, PageRequest, I2C_A0};
use optics::output::csv::CsvSink;
use optics::sample::engine::{Engine, EngineConfig, TimeRange};
use optics::sample::intervals::IntervalStage;
use optics::sample::module_cache::ModuleCache;
use optics::source::replay::ReplaySource;
use optics::source::{IoCounts, PathsUsed, Source, SourceError};
use std::hint::black_box;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The fleet the targets are sized for: a 64-port switch or a rack of NIC ports,
/// sampled every second (docs/benchmarks.md, "The budget").
const PORTS: usize = 64;
/// Ten minutes at 1 s: the synthetic capture is 64 x 600 samples.
const SAMPLES_PER_PORT: usize = 600;
/// Time spent repeating each micro-figure (after one warm-up call).
const MICRO_BUDGET: Duration = Duration::from_millis(400);
/// Lanes per SFF-8636 port: rows per sample in the CSV export.
const LANES_PER_PORT: usize = 4;

// ---------------------------------------------------------------------------------------
// Figures and targets
// ---------------------------------------------------------------------------------------

enum Target {
    AtLeast(f64),
    AtMost(f64),
    /// Context for another figure; no target of its own.
    Info,
}

#[derive(Default)]
struct Table {
    met: usize,
    missed: Vec<String>,
}

impl Table {
    fn section(&self, title: &str) {
        println!("\n### {title}\n");
        println!("| figure | value | unit | target | meets |");
        println!("|---|---:|---|---|---|");
    }

    fn row(&mut self, name: &str, value: f64, unit: &str, target: Target) {
        let (target_text, meets) = match target {
            Target::AtLeast(t) => (format!(">= {}", num(t)), Some(value >= t)),
            Target::AtMost(t) => (format!("<= {}", num(t)), Some(value <= t)),
            Target::Info => (String::new(), None),
        };
        let verdict = match meets {
            Some(true) => "yes",
            Some(false) => "**NO**",
            None => "",
        };
        match meets {
            Some(true) => self.met += 1,
            Some(false) => self.missed.push(name.to_string()),
            None => {}
        }
        println!("| {name} | {} | {unit} | {target_text} | {verdict} |", num(value));
    }
}

/// About three significant digits (whole numbers as such), thousands grouped.
fn num(v: f64) -> String {
    let a = v.abs();
    if a >= 1000.0 {
        let digits = format!("{:.0}", a);
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if v < 0.0 {
            out.insert(0, '-');
        }
        out
    } else if v.fract() == 0.0 || a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// Seconds per call of `f`, repeated for `budget` after one untimed warm-up call.
fn per_call(budget: Duration, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut calls = 0u64;
    while calls == 0 || start.elapsed() < budget {
        f();
        calls += 1;
    }
    start.elapsed().as_secs_f64() / calls as f64
}

// ---------------------------------------------------------------------------------------
// Memory from /proc/self/status
// ---------------------------------------------------------------------------------------

/// A `/proc/self/status` line in kB (`VmRSS`, `VmHWM`), as bytes.
fn status_bytes(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.strip_prefix(key).is_some_and(|r| r.starts_with(':')))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Returns freed heap to the kernel, then resets VmHWM to the current RSS (proc(5):
/// writing 5 to clear_refs, Linux 4.0+), so the next peak is the next step's own.
/// Without the trim, memory the allocator kept from earlier steps would be reused
/// unseen and the growth would read low.
fn reset_peak_rss() -> bool {
    // SAFETY: malloc_trim only releases free heap pages; it touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// Argument that makes this binary the child of [`peak_rss_reading_file`].
const CHILD_FLAG: &str = "--peak-rss-reading";

/// Child mode: read the capture file named after [`CHILD_FLAG`] as `optics scan` does
/// (`read_capture`, a buffered file) and print `records peak_bytes start_bytes`.
fn child_read(path: &str) -> Result<()> {
    let start = status_bytes("VmRSS").unwrap_or(0);
    let cap = optics::capture::read_capture(path)?;
    let peak = status_bytes("VmHWM").unwrap_or(0);
    println!("{} {peak} {start}", cap.records.len() + 1);
    Ok(())
}

/// Peak RSS of a fresh process that reads `bytes` from a file: the whole cost of loading
/// a capture, with no allocator state left over from other figures.
fn peak_rss_reading_file(bytes: &[u8]) -> Result<(u64, u64)> {
    let mut file = tempfile::NamedTempFile::new()?;
    file.write_all(bytes)?;
    file.flush()?;
    let out = std::process::Command::new(std::env::current_exe()?).arg(CHILD_FLAG).arg(file.path()).output()?;
    if !out.status.success() {
        bail!("child reading the capture failed: {}", String::from_utf8_lossy(&out.stderr));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let nums: Vec<u64> = text.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    match nums[..] {
        [_, peak, start] => Ok((peak, start)),
        _ => bail!("child printed {text:?}"),
    }
}

const MB: f64 = 1_000_000.0;

// ---------------------------------------------------------------------------------------
// Inputs
// ---------------------------------------------------------------------------------------

fn repo_file(rel: &str) -> Result<Vec<u8>> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read(&p).with_context(|| format!("reading {}", p.display()))
}

const SFF8472_DUMP: &str = "tests/fixtures/real-dumps/sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt";
const SFF8636_DUMP: &str = "tests/fixtures/real-dumps/qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt";
const CMIS_DUMP: &str = "tests/fixtures/real-dumps/cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt";
const MARGINAL_CAPTURE: &str = "captures/sr4-200g-lane4-marginal.jsonl";

fn put16(page: &mut [u8; 128], offset: usize, v: u16) {
    // offset is an upper-page address (128-255): index = offset - 128.
    page[offset - 128..offset - 126].copy_from_slice(&v.to_be_bytes());
}

fn put_ascii(page: &mut [u8; 128], offset: usize, len: usize, s: &str) {
    let field = &mut page[offset - 128..offset - 128 + len];
    field.fill(b' ');
    field[..s.len()].copy_from_slice(s.as_bytes());
}

/// A paged CMIS 5.2 module with two banks (16 media lanes), built byte by byte: lower
/// memory, pages 00h, 01h, 02h, and 10h/11h of banks 0 and 1, every monitor advertised.
/// The heaviest decode the tool meets: two page-11h banks of lane monitors and flags.
fn cmis_two_banks() -> Result<ModuleImage> {
    let mut img = ModuleImage::new();

    // Lower memory, CMIS 5.2 Table 8-4 .. 8-12.
    let mut lower = [0u8; 128];
    lower[0] = 0x19; // SFF-8024 Table 4-1: OSFP
    lower[1] = 0x52; // revision 5.2
    lower[2] = 0x00; // bit 7 = 0: paged memory
    lower[3] = 3 << 1; // module state 3 = ModuleReady (bits 3-1)
    lower[14..16].copy_from_slice(&0x2300u16.to_be_bytes()); // 0x2300 / 256 = 35.0 C
    lower[16..18].copy_from_slice(&33_000u16.to_be_bytes()); // 33000 x 100 uV = 3.3 V
    lower[85] = 0x02; // media type: SMF
    lower[86..90].copy_from_slice(&[0x11, 0x1c, 0x84, 0x01]); // AppSel 1: 400GAUI-8 / 400GBASE-DR4, 8 host / 4 media lanes
    lower[90] = 0xff; // end of the descriptor list
    img.insert(I2C_A0, 0, 0, 0, &lower)?;

    // Page 00h identity, CMIS 5.2 Table 8-28; checksum byte 222 = sum of 128-221.
    let mut p00 = [0u8; 128];
    p00[0] = 0x19;
    put_ascii(&mut p00, 129, 16, "BENCH OPTICS");
    put_ascii(&mut p00, 148, 16, "BENCH-2BANK-DR8");
    put_ascii(&mut p00, 164, 2, "A1");
    put_ascii(&mut p00, 166, 16, "BENCH0000000001");
    put_ascii(&mut p00, 182, 8, "26010100");
    p00[203 - 128] = 0x07; // connector: LC
    p00[222 - 128] = checksum8(&p00[..94]);
    img.insert(I2C_A0, 0x00, 0, 128, &p00)?;

    // Page 01h advertisement, CMIS 5.2 Table 8-40 .. 8-46; checksum 255 = sum of 130-254.
    let mut p01 = [0u8; 128];
    p01[142 - 128] = 0x01; // bits 1-0 = 1: banks 0 and 1
    p01[157 - 128] = 0x0f; // Tx flags supported
    p01[158 - 128] = 0x06; // Rx LOS, Rx CDR LOL supported
    p01[159 - 128] = 0x03; // temperature and Vcc monitors
    p01[160 - 128] = 0x07; // Tx bias, Tx power, Rx power monitors (bias multiplier x1)
    p01[255 - 128] = checksum8(&p01[2..127]);
    img.insert(I2C_A0, 0x01, 0, 128, &p01)?;

    // Page 02h thresholds, CMIS 5.2 Table 8-50: high alarm, low alarm, high warning, low warning.
    let mut p02 = [0u8; 128];
    for (offset, words) in [
        (128, [75 * 256, (-5i16 * 256) as u16, 70 * 256, 0]), // temperature, 1/256 C
        (136, [36_300, 29_700, 34_650, 31_350]),              // Vcc, 100 uV: 3.63/2.97/3.465/3.135 V
        (176, [31_623, 1_000, 25_119, 1_259]),                // Tx power, 0.1 uW: +5/-10/+4/-9 dBm
        (184, [7_500, 1_000, 6_500, 1_500]),                  // Tx bias, 2 uA: 15/2/13/3 mA
        (192, [31_623, 501, 25_119, 631]),                    // Rx power, 0.1 uW: +5/-13/+4/-12 dBm
    ] {
        for (i, w) in words.into_iter().enumerate() {
            put16(&mut p02, offset + 2 * i, w);
        }
    }
    p02[255 - 128] = checksum8(&p02[..127]);
    img.insert(I2C_A0, 0x02, 0, 128, &p02)?;

    for bank in 0..2u8 {
        // Page 10h controls: all defaults.
        img.insert(I2C_A0, 0x10, bank, 128, &[0u8; 128])?;
        // Page 11h, CMIS 5.2 Table 8-77 .. 8-80: DPActivated (4) on all lanes, monitors,
        // AppSel 1 in the Active Control Set.
        let mut p11 = [0u8; 128];
        p11[..4].fill(0x44);
        for lane in 0..8u16 {
            let base = 8_000 + 1_000 * u16::from(bank) + 100 * lane; // 0.8-1.67 mW
            put16(&mut p11, 154 + 2 * lane as usize, base + 2_000); // Tx power
            put16(&mut p11, 170 + 2 * lane as usize, 3_000 + lane); // Tx bias ~6 mA
            put16(&mut p11, 186 + 2 * lane as usize, base); // Rx power
            p11[206 - 128 + lane as usize] = 0x10;
        }
        img.insert(I2C_A0, 0x11, bank, 128, &p11)?;
    }
    Ok(img)
}

// ---------------------------------------------------------------------------------------
// The synthetic 64-port capture
// ---------------------------------------------------------------------------------------

/// `first + (last - first) * k / steps`: the template's counter rate carried on past its end,
/// so counters keep growing (no reset, one segment) over any number of samples.
fn extrapolate(first: u64, last: u64, k: usize, steps: usize) -> u64 {
    let rise = u128::from(last.saturating_sub(first)) * k as u128 / steps.max(1) as u128;
    first.saturating_add(u64::try_from(rise).unwrap_or(u64::MAX))
}

fn extrapolate_vec(first: &[u64], last: &[u64], k: usize, steps: usize) -> Vec<u64> {
    first.iter().zip(last).map(|(a, b)| extrapolate(*a, *b, k, steps)).collect()
}

fn extrapolate_fec(first: &Option<FecStats>, last: &Option<FecStats>, k: usize, steps: usize) -> Option<FecStats> {
    let (a, b) = (first.as_ref()?, last.as_ref()?);
    Some(FecStats {
        corrected_blocks: extrapolate_vec(&a.corrected_blocks, &b.corrected_blocks, k, steps),
        uncorrectable_blocks: extrapolate_vec(&a.uncorrectable_blocks, &b.uncorrectable_blocks, k, steps),
        corrected_bits: extrapolate_vec(&a.corrected_bits, &b.corrected_bits, k, steps),
        histogram: Vec::new(),
        source: b.source,
        latest_readings: b.latest_readings.clone(),
    })
}

fn extrapolate_stats(first: &DriverStats, last: &DriverStats, k: usize, steps: usize) -> DriverStats {
    first.iter().map(|(name, a)| (name.clone(), extrapolate(a, last.get(name).unwrap_or(a), k, steps))).collect()
}

/// Gives port `n` its own module serial (SFF-8636 Table 6-15: page 00h bytes 196-211)
/// and fixes CC_EXT (byte 223 = sum of 192-222), so no two ports look like one cable.
fn set_serial(pages: &mut ModulePages, n: usize) {
    let sn = format!("BENCH{n:011}");
    for e in pages.pages.iter_mut().filter(|e| e.i2c_address == I2C_A0 && e.page == 0 && e.offset == 128 && e.data.len() == 128) {
        e.data[68..84].copy_from_slice(sn.as_bytes());
        e.data[95] = checksum8(&e.data[64..95]);
    }
}

/// 64 ports x 600 samples at 1 s: each port is the marginal capture's port (its module
/// pages cycled, its counter rates carried on), with its own name, PCIe function and
/// module serial. Written with the tool's `CaptureWriter`; returns the bytes, the seconds
/// spent inside `write` and the number of records written.
fn synthetic_capture(template: &Capture) -> Result<(Vec<u8>, f64, usize)> {
    let iface_tpl: &InterfaceRecord = template
        .records
        .iter()
        .find_map(|r| if let Record::Interface(i) = r { Some(i) } else { None })
        .ok_or_else(|| anyhow!("{MARGINAL_CAPTURE}: no interface record"))?;
    let samples: Vec<&SampleRecord> = template.samples_for(&iface_tpl.interface).collect();
    let (Some(first), Some(last)) = (samples.first(), samples.last()) else { bail!("{MARGINAL_CAPTURE}: no samples") };
    let steps = samples.len() - 1;

    let mut writer = CaptureWriter::new(Vec::with_capacity(40_000_000), &template.header)?;
    let mut write_s = 0.0;
    let mut records = 0;
    let mut write = |w: &mut CaptureWriter<Vec<u8>>, rec: Record| -> io::Result<()> {
        let t = Instant::now();
        w.write(&rec)?;
        write_s += t.elapsed().as_secs_f64();
        records += 1;
        Ok(())
    };
    let name = |p: usize| format!("eth{p}");
    for p in 0..PORTS {
        let mut ir = iface_tpl.clone();
        ir.interface = name(p);
        ir.bus_info = Some(format!("0000:{:02x}:00.0", p + 1));
        if let Some(m) = ir.module.as_mut() {
            set_serial(m, p);
        }
        write(&mut writer, Record::Interface(ir))?;
    }
    for k in 0..SAMPLES_PER_PORT {
        let tpl = samples[k % samples.len()];
        for p in 0..PORTS {
            let s = SampleRecord {
                t: k as f64,
                interface: name(p),
                link: tpl.link.clone(),
                fec: extrapolate_fec(&first.fec, &last.fec, k, steps),
                driver_stats: extrapolate_stats(&first.driver_stats, &last.driver_stats, k, steps),
                module: tpl.module.clone(),
                ..Default::default()
            };
            write(&mut writer, Record::Sample(s))?;
        }
    }
    Ok((writer.into_inner()?, write_s, records))
}

/// Counts CSV lines and drops them: the export's cost without the disk.
#[derive(Default)]
struct LineCounter {
    lines: usize,
    bytes: usize,
}

impl Write for LineCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.lines += buf.iter().filter(|&&b| b == b'\n').count();
        self.bytes += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------------------------------
// Read economy
// ---------------------------------------------------------------------------------------

/// A module answering from an image, counted like a live source (one request per read):
/// read economy for standards the bundled captures do not hold.
struct ImageSource {
    img: ModuleImage,
    io: IoCounts,
}

fn not_here(what: &str) -> SourceError {
    SourceError::NotSupported { what: what.to_string(), driver: Some("bench".into()), message: None }
}

impl Source for ImageSource {
    fn interfaces(&mut self) -> optics::source::Result<Vec<String>> {
        Ok(vec!["bench0".into()])
    }
    fn identity(&mut self, _: &str) -> optics::source::Result<DeviceIdentity> {
        Err(not_here("identity"))
    }
    fn link_info(&mut self, _: &str) -> optics::source::Result<LinkInfo> {
        Err(not_here("link info"))
    }
    fn link_state(&mut self, _: &str) -> optics::source::Result<LinkState> {
        Err(not_here("link state"))
    }
    fn fec(&mut self, _: &str) -> optics::source::Result<FecStats> {
        Err(not_here("FEC statistics"))
    }
    fn driver_stats(&mut self, _: &str) -> optics::source::Result<DriverStats> {
        Err(not_here("driver statistics"))
    }
    fn read_eeprom(&mut self, _: &str, req: PageRequest) -> optics::source::Result<Vec<u8>> {
        self.io.requests += 1;
        let bytes = self
            .img
            .bytes(req.i2c_address, req.page, req.bank, req.offset, req.length as usize)
            .ok_or_else(|| not_here("module EEPROM"))?
            .to_vec();
        self.io.bytes += bytes.len() as u64;
        Ok(bytes)
    }
    fn paths(&self, _: &str) -> PathsUsed {
        PathsUsed::default()
    }
    fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }
}

/// Requests and bytes of the first sample (static pages + monitors) and the largest
/// later sample (monitors only), through `ModuleCache` and the source's `io_counts()`.
fn read_economy(src: &mut dyn Source, iface: &str, samples: usize) -> Result<(IoCounts, IoCounts)> {
    let mut cache = ModuleCache::new();
    let mut first = None;
    let mut later = IoCounts::default();
    for k in 0..samples {
        let before = src.io_counts();
        cache.sample(src, iface).with_context(|| format!("{iface} sample {k}"))?;
        let after = src.io_counts();
        let used = IoCounts { requests: after.requests - before.requests, bytes: after.bytes - before.bytes };
        match first {
            None => first = Some(used),
            Some(_) if (used.bytes, used.requests) > (later.bytes, later.requests) => later = used,
            Some(_) => {}
        }
        src.end_sample();
    }
    Ok((first.ok_or_else(|| anyhow!("no sample"))?, later))
}

/// I2C time for these reads at 100 kHz (Standard mode, the SFF-8419/SFF-8636 baseline):
/// 9 clocks per byte, and per read about 3 bytes of addressing (device address + offset
/// write, repeated-start device address) besides the data.
fn i2c_ms_at_100khz(io: &IoCounts) -> f64 {
    (io.bytes + 3 * io.requests) as f64 * 9.0 * 10e-6 * 1e3
}

fn economy_rows(t: &mut Table, label: &str, first: &IoCounts, later: &IoCounts) {
    t.row(&format!("{label}: first sample, requests"), first.requests as f64, "requests", Target::Info);
    t.row(&format!("{label}: first sample, bytes"), first.bytes as f64, "bytes", Target::Info);
    t.row(&format!("{label}: later sample, requests"), later.requests as f64, "requests", Target::Info);
    t.row(&format!("{label}: later sample, bytes"), later.bytes as f64, "bytes", Target::Info);
    let ratio = if first.bytes == 0 { 0.0 } else { 100.0 * later.bytes as f64 / first.bytes as f64 };
    t.row(&format!("{label}: later / first bytes"), ratio, "%", Target::AtMost(25.0));
    t.row(&format!("{label}: I2C time per later sample at 100 kHz"), i2c_ms_at_100khz(later), "ms/port", Target::AtMost(100.0));
    let ports = PORTS as f64;
    t.row(&format!("{label}: {PORTS} ports at 1 s, requests"), later.requests as f64 * ports, "requests/s", Target::Info);
    t.row(&format!("{label}: {PORTS} ports at 1 s, bytes"), later.bytes as f64 * ports, "bytes/s", Target::Info);
    t.row(
        &format!("{label}: {PORTS} ports at 1 s, if static pages were re-read every sample"),
        first.bytes as f64 * ports,
        "bytes/s",
        Target::Info,
    );
    t.row(
        &format!("{label}: {PORTS} ports sharing one 100 kHz bus, occupancy"),
        i2c_ms_at_100khz(later) * ports / 10.0,
        "% of 1 s",
        Target::Info,
    );
}

// ---------------------------------------------------------------------------------------

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| c.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split(':').nth(1)).map(|s| s.trim().to_string()))
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map(|s| s.trim().to_string()).unwrap_or_default();
    format!("{cores} cores, {cpu}, Linux {kernel}")
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == CHILD_FLAG) {
        return child_read(args.get(i + 1).ok_or_else(|| anyhow!("{CHILD_FLAG} needs a path"))?);
    }
    // `cargo bench` passes --bench; `cargo test --benches` does not: a debug-build run
    // would take long and its figures would mean nothing, so it only says how to run.
    if !args.iter().any(|a| a == "--bench") {
        println!("figures: run `cargo bench --bench figures` (release build) to measure; nothing measured here.");
        return Ok(());
    }
    // `--only stream` / `--only import` / `--only histogram`: section 7 (the long
    // captures), 8 (import of many ports) or 9 (the FEC histogram) alone, for whoever works on it.
    let only = args.iter().position(|a| a == "--only").map(|i| args.get(i + 1).map(String::as_str));
    if let Some(section) = only {
        if !matches!(section, Some("stream" | "import" | "histogram")) {
            bail!(
                "--only takes `stream` (section 7), `import` (section 8) or `histogram` (section 9), the sections that run alone, not {section:?}"
            );
        }
    }
    let started = Instant::now();
    let date = time::OffsetDateTime::now_utc().format(&time::format_description::well_known::Rfc3339).unwrap_or_default();
    println!("## optics figures\n");
    println!("{date}; {}; {} build", machine(), if cfg!(debug_assertions) { "DEBUG (figures meaningless)" } else { "release" });
    let mut t = Table::default();
    match only {
        Some(Some("stream")) => {
            stream::run(&mut t, args.iter().any(|a| a == "--quick"))?;
            return summary(&t, started);
        }
        Some(Some("histogram")) => {
            histogram::run(&mut t)?;
            return summary(&t, started);
        }
        Some(_) => {
            import::run(&mut t)?;
            return summary(&t, started);
        }
        None => {}
    }

    // 1. Decode.
    let sff8472 = input::parse(&repo_file(SFF8472_DUMP)?).context(SFF8472_DUMP)?.image;
    let sff8636 = input::parse(&repo_file(SFF8636_DUMP)?).context(SFF8636_DUMP)?.image;
    let cmis = input::parse(&repo_file(CMIS_DUMP)?).context(CMIS_DUMP)?.image;
    let cmis2 = cmis_two_banks()?;
    t.section("1. Decode (`module::decode`), target <= 100 us per image");
    let mut decode_us_max: f64 = 0.0;
    for (label, img) in [
        ("SFF-8472 sfp02 real dump (A0h+A2h)", &sff8472),
        ("SFF-8636 qsfp03 real dump (lower+00h)", &sff8636),
        ("CMIS 5.0 cmis04 real dump (6 half pages)", &cmis),
        ("CMIS 5.2 byte-built, 2 banks", &cmis2),
    ] {
        let report = decode(img).with_context(|| label.to_string())?;
        let s = per_call(MICRO_BUDGET, || {
            black_box(decode(black_box(img)).ok());
        });
        decode_us_max = decode_us_max.max(s * 1e6);
        let lanes = report.lanes.len();
        t.row(&format!("{label}, {lanes} lane{}: time", if lanes == 1 { "" } else { "s" }), s * 1e6, "us/decode", Target::AtMost(100.0));
        t.row(&format!("{label}: rate"), 1.0 / s, "images/s", Target::Info);
    }

    // 2. Input parsing.
    t.section("2. Hex-text input parsing (`module::input::parse`), target >= 1,000 dumps/s");
    for (label, path) in [("sfp02 i2cdump A0h+A2h", SFF8472_DUMP), ("qsfp03 offset rows", SFF8636_DUMP), ("cmis04 Junos picd", CMIS_DUMP)] {
        let text = repo_file(path)?;
        let s = per_call(MICRO_BUDGET, || {
            black_box(input::parse(black_box(&text)).ok());
        });
        t.row(&format!("{label} ({} bytes of text)", text.len()), 1.0 / s, "dumps/s", Target::AtLeast(1_000.0));
    }

    // 3. Capture reading.
    t.section("3. Capture writing and reading (`capture`)");
    let marginal_bytes = repo_file(MARGINAL_CAPTURE)?;
    let marginal = read_capture_from(&marginal_bytes[..]).context(MARGINAL_CAPTURE)?;
    let marginal_lines = marginal.records.len() + 1;
    let s = per_call(MICRO_BUDGET, || {
        black_box(read_capture_from(black_box(&marginal_bytes[..])).ok());
    });
    t.row(
        &format!("read {MARGINAL_CAPTURE} ({marginal_lines} records)"),
        marginal_lines as f64 / s,
        "records/s",
        Target::AtLeast(25_000.0),
    );
    t.row(&format!("read {MARGINAL_CAPTURE}"), marginal_bytes.len() as f64 / s / MB, "MB/s", Target::AtLeast(20.0));

    let (big, write_s, written) = synthetic_capture(&marginal)?;
    let write_us_per_record = write_s / written as f64 * 1e6;
    let label = format!("{PORTS} x {SAMPLES_PER_PORT} synthetic ({:.1} MB)", big.len() as f64 / MB);
    t.row(&format!("write {label} (`CaptureWriter` to memory)"), written as f64 / write_s, "records/s", Target::AtLeast(6_400.0));
    let peak_reset = reset_peak_rss();
    let rss_before = status_bytes("VmRSS").unwrap_or(0);
    let start = Instant::now();
    let cap = read_capture_from(&big[..]).context("reading the synthetic capture")?;
    let read_s = start.elapsed().as_secs_f64();
    let peak = status_bytes("VmHWM").unwrap_or(0);
    let rss_after = status_bytes("VmRSS").unwrap_or(0);
    let big_lines = cap.records.len() + 1;
    t.row(&format!("read {label}"), big_lines as f64 / read_s, "records/s", Target::AtLeast(25_000.0));
    t.row(&format!("read {label}"), big.len() as f64 / read_s / MB, "MB/s", Target::AtLeast(20.0));
    t.row(&format!("read {label}: time"), read_s, "s", Target::Info);
    if peak_reset {
        t.row(
            &format!("read {label}: peak RSS growth while reading"),
            peak.saturating_sub(rss_before) as f64 / MB,
            "MB",
            Target::AtMost(256.0),
        );
    } else {
        // clear_refs refused: only the process lifetime peak is known.
        t.row("process peak RSS so far (VmHWM could not be reset)", peak as f64 / MB, "MB", Target::Info);
    }
    t.row(&format!("read {label}: RSS held by the parsed capture"), rss_after.saturating_sub(rss_before) as f64 / MB, "MB", Target::Info);
    let (child_peak, child_start) = peak_rss_reading_file(&big)?;
    t.row(&format!("read {label} from a file in a fresh process: peak RSS"), child_peak as f64 / MB, "MB", Target::AtMost(256.0));
    t.row("same process before reading", child_start as f64 / MB, "MB", Target::Info);
    drop(big);

    // 4. Window + analysis.
    t.section("4. Windows and analysis over the synthetic capture");
    let cfg = Config::default();
    let start = Instant::now();
    let ws = windows(&cap, TimeRange::whole());
    let windows_s = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let analyses = analyze(&ws, &cfg, &[]);
    let analyze_s = start.elapsed().as_secs_f64();
    if ws.len() != PORTS || analyses.len() != PORTS {
        bail!("expected {PORTS} windows, got {} ({} analyses)", ws.len(), analyses.len());
    }
    let per_iface = |s: f64| s / PORTS as f64 * 1e3;
    let samples = ws.first().map(|w| w.samples).unwrap_or(0);
    t.row(&format!("engine windows (`sample::engine`), {samples} samples each"), per_iface(windows_s), "ms/interface", Target::Info);
    t.row("`analysis::analyze`", per_iface(analyze_s), "ms/interface", Target::Info);
    t.row("windows + analyze", per_iface(windows_s + analyze_s), "ms/interface", Target::AtMost(15.0));
    let scan_s = read_s + windows_s + analyze_s;
    t.row(&format!("scan of the whole capture: read + windows + analyze ({PORTS} ports)"), scan_s, "s", Target::AtMost(5.0));
    if let Some((a, weakest)) = analyses.first().and_then(|a| Some((a, a.lanes.first()?))) {
        // The workload is the marginal case at 64x scale: lane 4 should still stand out.
        println!(
            "\nWorkload check: {} verdict {:?}, weakest lane {} (pre-FEC BER {:.2e}, flags {}).",
            a.interface,
            a.verdict,
            weakest.lane,
            weakest.pre_fec_ber.unwrap_or(f64::NAN),
            optics::analysis::verdict::join_codes(&weakest.flags, ", ")
        );
    }

    // 5. CSV export.
    t.section("5. CSV export (`output::csv::CsvSink`) of the synthetic capture");
    let mut counter = LineCounter::default();
    let mut sink = CsvSink::new(&mut counter, Some(&cap.header.created));
    let start = Instant::now();
    let mut stage = IntervalStage::new(cfg.clone(), vec![&mut sink]);
    stage.record(&Record::Header(cap.header.clone()))?;
    for rec in &cap.records {
        stage.record(rec)?;
    }
    drop(stage);
    drop(sink); // flushes the last rows
    let csv_s = start.elapsed().as_secs_f64();
    let sample_records = cap.records.iter().filter(|r| matches!(r, Record::Sample(_))).count();
    let rows = counter.lines.saturating_sub(1); // minus the header row
    if rows != sample_records * LANES_PER_PORT {
        bail!("CSV export wrote {rows} rows, expected {sample_records} samples x {LANES_PER_PORT} lanes");
    }
    t.row(&format!("{rows} lane rows from {sample_records} samples"), rows as f64 / csv_s, "rows/s", Target::AtLeast(25_600.0));
    let csv_us_per_sample = csv_s / sample_records as f64 * 1e6;
    t.row("per sample record", csv_us_per_sample, "us/sample", Target::Info);
    t.row("whole export", csv_s, "s", Target::Info);
    t.row("CSV written", counter.bytes as f64 / MB, "MB", Target::Info);

    // 6. Read economy.
    t.section("6. Module read economy (`sample::module_cache`), requests and bytes from `io_counts()`");
    let iface = marginal.interfaces().into_iter().next().ok_or_else(|| anyhow!("{MARGINAL_CAPTURE}: no interface"))?;
    let n = marginal.samples_for(&iface).count();
    let mut replay = ReplaySource::new(&marginal);
    let (first, later) = read_economy(&mut replay, &iface, n)?;
    economy_rows(&mut t, &format!("SFF-8636 marginal capture replay ({n} samples)"), &first, &later);
    for (label, img) in [("SFF-8472 sfp02 image", sff8472), ("CMIS 5.2 2-bank image", cmis2)] {
        let mut src = ImageSource { img, io: IoCounts::default() };
        let (first, later) = read_economy(&mut src, "bench0", 10)?;
        economy_rows(&mut t, label, &first, &later);
    }

    // 7. Long captures through the streaming engine.
    stream::run(&mut t, args.iter().any(|a| a == "--quick"))?;

    // 8. Import of a bundle with many ports.
    import::run(&mut t)?;

    // 9. The FEC histogram's analysis per window.
    histogram::run(&mut t)?;

    // The budget: what one 1 s tick costs the CPU for 64 ports.
    t.section(&format!("The budget: CPU per 1 s tick for {PORTS} ports"));
    let tick_ms = PORTS as f64 * (write_us_per_record + csv_us_per_sample) / 1e3;
    t.row("capture write + CSV row analysis (includes module decode)", tick_ms, "ms per tick", Target::AtMost(50.0));
    t.row("worst module decode alone", PORTS as f64 * decode_us_max / 1e3, "ms per tick", Target::Info);
    summary(&t, started)
}

fn summary(t: &Table, started: Instant) -> Result<()> {
    println!(
        "\n{} of {} targets met{}; run took {:.1} s.",
        t.met,
        t.met + t.missed.len(),
        if t.missed.is_empty() { String::new() } else { format!(" (missed: {})", t.missed.join("; ")) },
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Every interface's window over `range`, through the streaming engine.
fn windows(cap: &Capture, range: TimeRange) -> Vec<optics::analysis::InterfaceWindow> {
    let mut e = Engine::new(EngineConfig { range, ..Default::default() });
    cap.records.iter().for_each(|r| e.push(r));
    e.windows()
}
