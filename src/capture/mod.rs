//! The capture format (docs/capture-format.md): JSON Lines, one record per line, raw
//! bytes and counters only. The writer flushes every line so a capture stopped at any
//! moment is valid up to its last complete line; the reader tolerates a truncated last
//! line (with a note) and rejects any other bad line, naming it.

pub mod compressed;
mod lines;
mod sink;

use crate::counters::host::PauseStats;
use crate::counters::ib::IbSample;
use crate::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use crate::device::host::HostFacts;
use crate::device::{DeviceIdentity, IbPort, LinkNeighbor, PciLink, PortIdentity};
use crate::module::image::ImageError;
use crate::module::printed::PrintedModule;
use crate::module::{ModuleImage, PageEntry};
use serde::{Deserialize, Serialize};
pub use sink::RecordSink;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::Path;
use thiserror::Error;

/// `format` value of the header.
pub(crate) const FORMAT_NAME: &str = "optics-capture";
/// The only version this reader understands.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// The first line of a capture: what it is, and where and when it was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always `optics-capture`.
    pub format: String,
    /// The format version (1).
    pub version: u32,
    /// RFC 3339 wall-clock time at capture start (timestamps `t` are relative to it).
    pub created: String,
    /// The host the capture was taken on, when known.
    pub host: Option<String>,
    /// The host's kernel release (`uname -r`), when known.
    pub kernel: Option<String>,
    /// The tool and version that wrote the capture.
    pub tool: Option<String>,
    /// What produced the records: absent for live sampling, `"import"` for `optics import`
    /// (tool outputs turned into records, docs/import.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Header {
    /// A version-1 header stamped with the current UTC time.
    pub fn new(host: Option<String>, kernel: Option<String>, tool: Option<String>) -> Self {
        let created = time::OffsetDateTime::now_utc()
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_else(|_| "1970-01-01T00:00:00Z".into());
        Header { format: FORMAT_NAME.into(), version: FORMAT_VERSION, created, host, kernel, tool, source: None }
    }
}

/// Module bytes as page runs (`PageEntry`, hex `data`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModulePages {
    /// The page runs, in the order read.
    pub pages: Vec<PageEntry>,
}

impl ModulePages {
    /// The runs laid into one image, or why they do not fit.
    pub fn image(&self) -> Result<ModuleImage, ImageError> {
        ModuleImage::from_entries(&self.pages)
    }
}

/// What an interface is and what it has plugged in: written at start and whenever the
/// module or the negotiated link changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InterfaceRecord {
    /// Seconds since capture start.
    pub t: f64,
    /// At most `MAX_INTERFACE_NAME_BYTES`.
    #[serde(deserialize_with = "deserialize_interface")]
    pub interface: String,
    /// The netdev's driver (`ethtool -i`).
    pub driver: Option<String>,
    /// The PCI address of the NIC function (`ethtool -i` bus-info).
    pub bus_info: Option<String>,
    /// The PCIe link of the NIC function.
    pub pci: Option<PciLink>,
    /// Which physical port the netdev is.
    pub port: Option<PortIdentity>,
    /// The negotiated link (speed, lanes, FEC mode).
    pub link: LinkInfo,
    /// Static pages (identity, thresholds, advertisement); `null` = module not readable.
    pub module: Option<ModulePages>,
    /// Imported records: the tool-output file(s) this record was built from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_file: Option<String>,
    /// The host beneath the link (driver and firmware, NUMA and PCI place, GPUs, MTU);
    /// absent in captures written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<HostFacts>,
    /// The InfiniBand port this interface is (docs/infiniband.md); absent for other netdevs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbPort>,
    /// What the port's cable reaches, from an imported LLDP neighbor table; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub neighbor: Option<LinkNeighbor>,
}

impl InterfaceRecord {
    pub(crate) fn identity(&self) -> DeviceIdentity {
        DeviceIdentity {
            driver: self.driver.clone(),
            bus_info: self.bus_info.clone(),
            pci: self.pci.clone(),
            port: self.port.clone(),
            host: self.host.clone(),
            ib: self.ib.clone(),
            neighbor: self.neighbor.clone(),
        }
    }
}

/// One reading of one interface.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SampleRecord {
    /// Seconds since capture start.
    pub t: f64,
    /// At most `MAX_INTERFACE_NAME_BYTES`.
    #[serde(deserialize_with = "deserialize_interface")]
    pub interface: String,
    /// Link state and link-down counts as read.
    pub link: LinkState,
    /// `null` = the driver reports no FEC statistics (or the read failed: see events).
    pub fec: Option<FecStats>,
    /// Driver counters (`ethtool -S`) by name.
    #[serde(default)]
    pub driver_stats: DriverStats,
    /// Monitor and flag bytes read this sample; `null` = not read.
    pub module: Option<ModulePages>,
    /// Imported records: the tool-output file(s) this sample was built from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin_file: Option<String>,
    /// Imported records: how `t` was found (docs/import.md "Time base"), one sentence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_base: Option<String>,
    /// Imported records: module monitors as a tool printed them (e.g. `mlxlink -m`), for
    /// inputs that carry no EEPROM bytes. Used instead of decoding `module` pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed_module: Option<PrintedModule>,
    /// Imported records: every field as the tool printed it (`Section/Field` -> text), so
    /// values parsed from text ("15E-255", "1,2,3,4 [0..9]") can be checked against it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub printed_fields: BTreeMap<String, String>,
    /// InfiniBand port state and PortCounters as sysfs gives them (docs/infiniband.md);
    /// absent for other netdevs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ib: Option<IbSample>,
    /// Pause frames sent and received (`ETHTOOL_A_PAUSE_STATS`, docs/host.md); absent when
    /// the driver has none and in captures written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pause: Option<PauseStats>,
    /// Imported records: the host NIC's receiver eye per lane as a tool printed it
    /// (`mlxlink --show_eye`); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serdes_eye: Option<crate::counters::serdes::SerdesEye>,
}

/// What an event record says happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// An interface's counters went backwards (a driver reset or a clear).
    CounterReset,
    /// The plugged module changed (another serial number or part).
    ModuleChanged,
    /// The interface disappeared.
    InterfaceGone,
    /// A read failed (its layer says which).
    Error,
}

impl EventKind {
    /// The snake_case name, as the capture writes it.
    pub fn as_str(&self) -> &'static str {
        match self {
            EventKind::CounterReset => "counter_reset",
            EventKind::ModuleChanged => "module_changed",
            EventKind::InterfaceGone => "interface_gone",
            EventKind::Error => "error",
        }
    }
}

/// Something that happened to an interface between samples.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EventRecord {
    /// Seconds since capture start.
    pub t: f64,
    /// At most `MAX_INTERFACE_NAME_BYTES`.
    #[serde(deserialize_with = "deserialize_interface")]
    pub interface: String,
    /// What happened.
    pub kind: EventKind,
    /// At most `MAX_MESSAGE_BYTES` and a mark: cut as it is read (`cut_message`).
    #[serde(deserialize_with = "deserialize_message")]
    pub message: String,
    /// `error` events: the layer that failed (absent in captures written before it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<ErrorLayer>,
}

impl EventRecord {
    /// An event whose message is held to [`MAX_MESSAGE_BYTES`] ([`cut_message`]).
    #[cfg(any(live, test))]
    pub(crate) fn new(t: f64, interface: &str, kind: EventKind, message: &str) -> Self {
        EventRecord { t, interface: interface.to_string(), kind, message: cut_message(message).into_owned(), layer: None }
    }

    /// An `error` event of `layer`.
    #[cfg(live)]
    pub(crate) fn error(t: f64, interface: &str, layer: ErrorLayer, message: &str) -> Self {
        EventRecord { layer: Some(layer), ..EventRecord::new(t, interface, EventKind::Error, message) }
    }

    /// The layer of an `error` event. Captures written before events carried `layer` named
    /// a module failure only in the message, which their writer always began with "module"
    /// ("module read failed: ...", "module not read: ..."): read that way for them alone.
    pub(crate) fn error_layer(&self) -> Option<ErrorLayer> {
        if self.kind != EventKind::Error {
            return None;
        }
        Some(self.layer.unwrap_or(match self.message.starts_with("module") {
            true => ErrorLayer::Module,
            false => ErrorLayer::Counters,
        }))
    }
}

/// Where a sampling error came from (`optics_sample_errors_total{layer}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorLayer {
    /// The module's EEPROM (DOM, identity).
    Module,
    /// Link state, FEC, driver or PCIe counters.
    Counters,
}

impl ErrorLayer {
    pub(crate) fn as_str(&self) -> &'static str {
        match self {
            ErrorLayer::Module => "module",
            ErrorLayer::Counters => "counters",
        }
    }
}

/// The longest interface name a capture holds, in bytes (docs/capture-format.md, "Interface names").
/// A netdev's name is at most 15 (IFNAMSIZ 16 with its NUL, include/uapi/linux/if.h), an
/// InfiniBand port's `hca/port` at most 67 (IB_DEVICE_NAME_MAX 64 with its NUL,
/// include/rdma/ib_verbs.h, a slash, a port number to 255); the port names switch imports
/// carry ("Ethernet0", "et-0/0/0:3") are shorter still. A longer name is no interface.
pub(crate) const MAX_INTERFACE_NAME_BYTES: usize = 128;

/// An interface name longer than [`MAX_INTERFACE_NAME_BYTES`]: its length in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an interface name of {0} bytes: at most {MAX_INTERFACE_NAME_BYTES} (a netdev's is at most 15, an InfiniBand port's 67)")]
pub(crate) struct NameTooLong(pub(crate) usize);

/// Refuses an interface name longer than [`MAX_INTERFACE_NAME_BYTES`] (read from a capture,
/// or given by an imported file).
pub(crate) fn check_interface_name(name: &str) -> Result<(), NameTooLong> {
    match name.len() {
        n if n > MAX_INTERFACE_NAME_BYTES => Err(NameTooLong(n)),
        _ => Ok(()),
    }
}

fn deserialize_interface<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let name = String::deserialize(d)?;
    check_interface_name(&name).map_err(serde::de::Error::custom)?;
    Ok(name)
}

/// The most of an event message that is kept, stored or printed (docs/capture-format.md
/// "Bounds"): a message says what failed in a sentence or two (a kernel error with its
/// extack text is under 200 bytes); 1 KiB is several times that. Longer ones are cut
/// ([`cut_message`]), so the 256 messages an interface keeps stay a few hundred kB
/// whatever a capture holds.
pub(crate) const MAX_MESSAGE_BYTES: usize = 1024;

/// `message`, cut to its first [`MAX_MESSAGE_BYTES`] bytes (at a character boundary) and
/// marked as cut with how many bytes were dropped: `...… [cut 4193280 bytes]`.
pub(crate) fn cut_message(message: &str) -> std::borrow::Cow<'_, str> {
    if message.len() <= MAX_MESSAGE_BYTES {
        return message.into();
    }
    let mut end = MAX_MESSAGE_BYTES;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [cut {} bytes]", &message[..end], message.len() - end).into()
}

/// An event's message as it is read: cut there ([`cut_message`]), from the line's own
/// bytes where serde lends them, so a 4 MiB message is never copied whole.
fn deserialize_message<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    struct Cut;
    impl serde::de::Visitor<'_> for Cut {
        type Value = String;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a string")
        }
        fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<String, E> {
            Ok(cut_message(s).into_owned())
        }
    }
    d.deserialize_str(Cut)
}

/// One line of a capture. Records stream through one at a time, so the variants' sizes
/// cost nothing worth a box (an allocation) per sample.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "lowercase")]
pub enum Record {
    /// The first line.
    Header(Header),
    /// An interface's identity and static module pages.
    Interface(InterfaceRecord),
    /// One reading of one interface.
    Sample(SampleRecord),
    /// Something that happened.
    Event(EventRecord),
}

impl Record {
    /// Seconds since capture start (`None` for the header).
    pub fn t(&self) -> Option<f64> {
        match self {
            Record::Header(_) => None,
            Record::Interface(r) => Some(r.t),
            Record::Sample(r) => Some(r.t),
            Record::Event(r) => Some(r.t),
        }
    }
    /// The interface the record is about (`None` for the header).
    pub fn interface(&self) -> Option<&str> {
        match self {
            Record::Header(_) => None,
            Record::Interface(r) => Some(&r.interface),
            Record::Sample(r) => Some(&r.interface),
            Record::Event(r) => Some(&r.interface),
        }
    }
}

/// Rounds seconds to microseconds: timestamps then print in at most 6 decimals and
/// read back bit-identical (serde_json parses such short decimals exactly).
pub(crate) fn round_t(seconds: f64) -> f64 {
    (seconds * 1e6).round() / 1e6
}

/// Why a capture could not be read or written.
#[derive(Debug, Error)]
pub enum CaptureError {
    /// The input could not be read.
    #[error("reading capture: {0}")]
    Io(#[from] std::io::Error),
    /// No header line.
    #[error("capture is empty: no header line")]
    Empty,
    /// A compressed capture that ends inside a frame before its header line is whole.
    #[error("capture is cut: it ends inside its first Zstandard frame, before its header line is whole (a recording killed as it started, or a damaged file)")]
    CutBeforeHeader,
    #[error("line 1: not a capture header ({detail})")]
    /// The first line is not a header.
    NotAHeader {
        /// The parser's words.
        detail: String,
    },
    #[error("line 1: format is {found:?}, expected {FORMAT_NAME:?}")]
    /// The header names another format.
    WrongFormat {
        /// The format the header names.
        found: String,
    },
    #[error("line 1: capture format version {found} is not supported (this build reads version {FORMAT_VERSION})")]
    /// A format version this build does not read.
    UnsupportedVersion {
        /// The version the header names.
        found: u64,
    },
    #[error("line {line}: {source}")]
    /// A line that is not a record.
    BadLine {
        /// The line number, from 1.
        line: usize,
        /// Why the record did not parse.
        source: serde_json::Error,
    },
    #[error("line {line}: a header may only appear on line 1")]
    /// A header after line 1.
    HeaderNotFirst {
        /// The line number, from 1.
        line: usize,
    },
    #[error("line {line}: longer than {limit} bytes: not a capture line")]
    /// A line longer than any record.
    LineTooLong {
        /// The line number, from 1.
        line: usize,
        /// The longest line read, in bytes.
        limit: usize,
    },
    /// The sink the records were written to failed.
    #[error("{0}")]
    Sink(std::io::Error),
    #[error("line {line}: not UTF-8 text")]
    /// A line that is not UTF-8.
    NotUtf8 {
        /// The line number, from 1.
        line: usize,
    },
    #[error("line {line}: a capture record is a JSON object ({{\"record\": ...}}), not an array or other value")]
    /// A line of JSON that is not an object.
    NotAnObject {
        /// The line number, from 1.
        line: usize,
    },
}

/// Longest capture line accepted (docs/capture-format.md): a record holds at most a few
/// kB of module pages and counters, so a longer line is not a capture (`/dev/zero`).
pub(crate) const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// A whole capture in file order (tests and tools that want every record; commands
/// stream with [`CaptureReader`] instead).
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    /// The first line.
    pub header: Header,
    /// Every record after the header, in file order (never a `Record::Header`).
    pub records: Vec<Record>,
    /// What the reader tolerated (a truncated last line), one sentence each.
    pub notes: Vec<String>,
}

impl Capture {
    /// Interface names in order of first appearance.
    pub fn interfaces(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.records.iter().filter_map(Record::interface).filter(|n| seen.insert(*n)).map(str::to_string).collect()
    }

    /// One interface's records, in file order.
    pub fn records_for<'a>(&'a self, iface: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
        self.records.iter().filter(move |r| r.interface() == Some(iface))
    }

    /// One interface's samples, in file order.
    pub fn samples_for<'a>(&'a self, iface: &'a str) -> impl Iterator<Item = &'a SampleRecord> + 'a {
        self.records_for(iface).filter_map(|r| match r {
            Record::Sample(s) => Some(s),
            _ => None,
        })
    }

    /// One interface's interface records, in file order.
    pub fn interface_records_for<'a>(&'a self, iface: &'a str) -> impl Iterator<Item = &'a InterfaceRecord> + 'a {
        self.records_for(iface).filter_map(|r| match r {
            Record::Interface(i) => Some(i),
            _ => None,
        })
    }
}

/// Reads a whole capture file into memory: small inputs only (tests); commands stream
/// it through the engine ([`crate::sample::engine::for_each_record`]).
pub fn read_capture(path: impl AsRef<Path>) -> Result<Capture, CaptureError> {
    let (reader, cut) = open_file(path.as_ref())?;
    read_whole(CaptureReader::with_cut(reader, cut)?)
}

/// A capture file's lines, decompressed when it holds Zstandard frames (by its bytes, not
/// its name).
fn open_file(path: &Path) -> std::io::Result<(Box<dyn BufRead>, Option<compressed::Cut>)> {
    let mut file = std::io::BufReader::new(std::fs::File::open(path)?);
    if compressed::is_zstd(file.fill_buf()?) {
        let unframed = compressed::Unframed::new(file)?;
        let cut = unframed.cut();
        return Ok((Box::new(std::io::BufReader::new(unframed)), Some(cut)));
    }
    Ok((Box::new(file), None))
}

/// Reads a whole capture into memory ([`CaptureReader`] rules).
pub fn read_capture_from(reader: impl BufRead) -> Result<Capture, CaptureError> {
    read_whole(CaptureReader::new(reader)?)
}

fn read_whole(mut r: CaptureReader<impl BufRead>) -> Result<Capture, CaptureError> {
    let mut records = Vec::new();
    while let Some(rec) = r.next_record()? {
        records.push(rec);
    }
    Ok(Capture { header: r.header().clone(), records, notes: r.notes().to_vec() })
}

/// Reads a capture one line at a time; only the current line is held. The last line
/// may be cut short (a writer stopped mid-line): it is dropped with a note when it
/// fails to parse *because the text ends early*; any other bad line is an error naming
/// its 1-based line number. Blank lines are skipped; a line longer than
/// `MAX_LINE_BYTES` is an error.
pub struct CaptureReader<R: BufRead> {
    lines: lines::Lines<R>,
    header: Header,
    notes: Vec<String>,
    /// Set when a compressed capture's stream ends inside a frame: said once, at its end.
    cut: Option<compressed::Cut>,
}

impl<R: BufRead> CaptureReader<R> {
    /// Reads and checks the header line.
    pub fn new(reader: R) -> Result<Self, CaptureError> {
        Self::with_cut(reader, None)
    }

    /// Reads and checks the header line of the lines of a compressed capture whose stream
    /// sets `cut` when it ends inside a frame ([`compressed::Unframed::cut`]): the reader
    /// then says the capture was cut (a note at its end, an error before its header).
    pub fn with_cut(reader: R, cut: Option<compressed::Cut>) -> Result<Self, CaptureError> {
        let mut lines = lines::Lines::new(reader);
        let Some((n, first)) = lines.next_line()? else {
            return Err(if cut.as_ref().is_some_and(compressed::Cut::happened) {
                CaptureError::CutBeforeHeader
            } else {
                CaptureError::Empty
            });
        };
        object_line(first, n)?;
        let first = std::str::from_utf8(first).map_err(|_| CaptureError::NotUtf8 { line: n })?;
        let header = match parse_header(first) {
            // The header's own line cut short by the frame's end: cut, not malformed.
            Err(CaptureError::NotAHeader { .. }) if cut.as_ref().is_some_and(compressed::Cut::happened) => {
                return Err(CaptureError::CutBeforeHeader)
            }
            other => other?,
        };
        Ok(CaptureReader { lines, header, notes: Vec::new(), cut })
    }

    /// The end of the lines: a compressed capture cut inside a frame says so, once.
    fn ended(&mut self) {
        if self.cut.take().is_some_and(|c| c.happened()) {
            self.notes.push(
                "the compressed capture ends inside a Zstandard frame (a recording killed mid-write): read up to its last whole block"
                    .to_string(),
            );
        }
    }

    /// The capture's header (its first line).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// What the reader tolerated so far, one sentence each.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The next record, `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<Record>, CaptureError> {
        let Some((n, line)) = self.lines.next_line()? else {
            self.ended();
            return Ok(None);
        };
        object_line(line, n)?;
        match parse_record(line) {
            Ok(Record::Header(_)) => Err(CaptureError::HeaderNotFirst { line: n }),
            Ok(rec) => Ok(Some(rec)),
            Err(source) => {
                let cut_short = serde_json::from_slice::<serde_json::Value>(line).err().is_some_and(|e| e.is_eof());
                if cut_short && self.lines.next_line()?.is_none() {
                    self.notes.push(format!("line {n} is truncated (capture stopped mid-write); ignored"));
                    self.ended();
                    return Ok(None);
                }
                Err(CaptureError::BadLine { line: n, source })
            }
        }
    }
}

/// serde reads a struct from a JSON array too, by position (`["sample", 1.0, ...]`): a
/// capture line must be an object, so a reordered or foreign line is refused, not
/// silently matched to fields (docs/capture-format.md: one JSON object per line).
fn object_line(buf: &[u8], line: usize) -> Result<(), CaptureError> {
    match buf.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') => Ok(()),
        _ => Err(CaptureError::NotAnObject { line }),
    }
}

/// Starts like a capture: the first non-blank line is a header record. (Telling a capture
/// from a module image or a tool output by its first bytes.)
pub fn is_capture_start(bytes: &[u8]) -> bool {
    let first = bytes.split(|b| *b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace)).unwrap_or_default();
    serde_json::from_slice::<serde_json::Value>(first).is_ok_and(|v| v["record"] == "header")
}

/// The `record` key alone; every other key is skipped without being kept.
#[derive(Deserialize)]
struct Tag<'a> {
    #[serde(borrow)]
    record: std::borrow::Cow<'a, str>,
}

/// The variant a line names in its first key, found by a byte comparison: the writer
/// (serde's internally tagged enum) puts `"record"` first, so a capture's own lines are
/// parsed once, straight into the variant's struct (which ignores the `record` key).
fn leading_tag(line: &[u8]) -> Option<&'static str> {
    let rest = line.trim_ascii_start().strip_prefix(b"{\"record\":\"")?;
    ["sample", "interface", "event"].into_iter().find(|tag| rest.strip_prefix(tag.as_bytes()).is_some_and(|r| r.starts_with(b"\",")))
}

/// One record line. serde's internally tagged enum buffers a whole line into a generic
/// tree before choosing the variant; choosing it from the leading tag (else from a pass
/// that reads only the tag) and then parsing the variant's own struct is several times
/// cheaper. Any failure is reported as the enum itself reports it, so error messages do
/// not depend on the shortcut.
///
/// A line of UTF-8 (every line a capture writer writes) is checked once, whole, and parsed
/// as text: serde_json then checks no string's bytes again, one by one. Any other line is
/// parsed as bytes, as before, so its error is the same.
fn parse_record(line: &[u8]) -> Result<Record, serde_json::Error> {
    let Ok(text) = std::str::from_utf8(line) else { return serde_json::from_slice::<Record>(line) };
    let tag = match leading_tag(line) {
        Some(tag) => Some(std::borrow::Cow::Borrowed(tag)),
        None => serde_json::from_str::<Tag>(text).ok().map(|t| t.record),
    };
    let parsed = match tag.as_deref() {
        Some("sample") => serde_json::from_str(text).map(Record::Sample).ok(),
        Some("interface") => serde_json::from_str(text).map(Record::Interface).ok(),
        Some("event") => serde_json::from_str(text).map(Record::Event).ok(),
        _ => None,
    };
    match parsed {
        Some(r) => Ok(r),
        None => serde_json::from_str::<Record>(text),
    }
}

/// Checks format and version before the rest of the header, so a future version gets
/// a clear "unsupported version" rather than a field error.
fn parse_header(line: &str) -> Result<Header, CaptureError> {
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| CaptureError::NotAHeader { detail: e.to_string() })?;
    if v.get("record").and_then(|r| r.as_str()) != Some("header") {
        return Err(CaptureError::NotAHeader { detail: "first line is not {\"record\":\"header\",...}".into() });
    }
    match v.get("format").and_then(|f| f.as_str()) {
        Some(FORMAT_NAME) => {}
        other => return Err(CaptureError::WrongFormat { found: other.unwrap_or("(missing)").to_string() }),
    }
    match v.get("version").and_then(|n| n.as_u64()) {
        Some(n) if n == FORMAT_VERSION as u64 => {}
        Some(n) => return Err(CaptureError::UnsupportedVersion { found: n }),
        None => return Err(CaptureError::NotAHeader { detail: "version missing or not an integer".into() }),
    }
    serde_json::from_value(v).map_err(|e| CaptureError::NotAHeader { detail: e.to_string() })
}

/// Writes a capture to any `Write`: the header on creation, then one line per record,
/// flushed with each record; a compressed capture ([`crate::capture::compressed`]) ends a block per sampling tick
/// instead, so a recording cut anywhere replays up to its last tick.
pub struct CaptureWriter<W: Write> {
    out: Out<W>,
    line: Vec<u8>,
}

enum Out<W: Write> {
    Plain(W),
    Zstd(compressed::Frames<W>),
}

impl<W: Write> CaptureWriter<W> {
    /// A writer of plain JSON Lines to `out`; writes the header first.
    pub fn new(out: W, header: &Header) -> std::io::Result<Self> {
        Self::start(Out::Plain(out), header)
    }

    /// A capture compressed into Zstandard frames ([`crate::capture::compressed`]).
    pub fn compressed(out: W, header: &Header) -> std::io::Result<Self> {
        let mut w = Self::start(Out::Zstd(compressed::Frames::new(out)), header)?;
        // The header alone is a readable capture from the start.
        w.end_block()?;
        Ok(w)
    }

    fn start(out: Out<W>, header: &Header) -> std::io::Result<Self> {
        let mut w = CaptureWriter { out, line: Vec::with_capacity(4096) };
        w.write(&Record::Header(header.clone()))?;
        Ok(w)
    }

    /// Serialises the whole line first and writes it in one call, so a stop between
    /// records never leaves half a line.
    pub fn write(&mut self, rec: &Record) -> std::io::Result<()> {
        // JSON has no NaN or infinity: such a `t` would be written as null and the
        // capture could not be read back.
        if rec.t().is_some_and(|t| !t.is_finite()) {
            return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "record time is not a finite number of seconds"));
        }
        self.line.clear();
        serde_json::to_writer(&mut self.line, rec)?;
        self.line.push(b'\n');
        match &mut self.out {
            Out::Plain(w) => {
                w.write_all(&self.line)?;
                w.flush()
            }
            Out::Zstd(f) => f.write_all(&self.line),
        }
    }

    /// Everything written so far reaches the file: a no-op for a plain capture (each
    /// record is flushed), a block end for a compressed one.
    pub(crate) fn end_block(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Out::Plain(_) => Ok(()),
            Out::Zstd(f) => f.end_block(),
        }
    }

    /// The capture is complete: a compressed one's last frame is closed.
    pub fn finish(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Out::Plain(w) => w.flush(),
            Out::Zstd(f) => f.finish(),
        }
    }

    /// The writer, the capture finished.
    pub fn into_inner(self) -> std::io::Result<W> {
        match self.out {
            Out::Plain(w) => Ok(w),
            Out::Zstd(f) => f.into_inner(),
        }
    }
}

impl<W: Write> RecordSink for CaptureWriter<W> {
    fn record(&mut self, rec: &Record) -> std::io::Result<()> {
        self.write(rec)
    }

    fn end_tick(&mut self, _sampling: std::time::Duration) -> std::io::Result<()> {
        self.end_block()
    }

    fn finish(&mut self) -> std::io::Result<()> {
        CaptureWriter::finish(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_past_1_kib_is_cut_at_a_character_and_marked() {
        assert_eq!(cut_message("short"), "short");
        let at_limit = "a".repeat(MAX_MESSAGE_BYTES);
        assert_eq!(cut_message(&at_limit), at_limit);
        // 1,023 ASCII bytes then a 3-byte character straddling the limit: cut before it.
        let straddling = format!("{}€€", "a".repeat(MAX_MESSAGE_BYTES - 1));
        assert_eq!(cut_message(&straddling), format!("{}… [cut 6 bytes]", "a".repeat(MAX_MESSAGE_BYTES - 1)));
        // Cut as it is read, escaped or not.
        let line = format!(r#"{{"t":1,"interface":"e","kind":"error","message":"é{}"}}"#, "b".repeat(2000));
        let e: EventRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(e.message, format!("é{}… [cut 978 bytes]", "b".repeat(MAX_MESSAGE_BYTES - 2)));
        assert_eq!(EventRecord::new(1.0, "e", EventKind::Error, &"c".repeat(1025)).message, format!("{}… [cut 1 bytes]", "c".repeat(1024)));
    }

    #[test]
    fn header_is_first_and_alone() {
        let text = "{\"record\":\"header\",\"format\":\"optics-capture\",\"version\":1,\"created\":\"x\",\"host\":null,\"kernel\":null,\"tool\":null}\n\
                    {\"record\":\"header\",\"format\":\"optics-capture\",\"version\":1,\"created\":\"x\",\"host\":null,\"kernel\":null,\"tool\":null}\n\
                    {\"record\":\"event\",\"t\":1.0,\"interface\":\"e\",\"kind\":\"error\",\"message\":\"m\"}\n";
        assert!(matches!(read_capture_from(text.as_bytes()), Err(CaptureError::HeaderNotFirst { line: 2 })));
    }

    #[test]
    fn leading_tag_is_read_only_when_it_is_the_first_key() {
        assert_eq!(leading_tag(br#"{"record":"sample","t":1}"#), Some("sample"));
        assert_eq!(leading_tag(br#"  {"record":"event","t":1}"#), Some("event"));
        // Another first key, a longer tag, or spacing the writer never emits: the slow path decides.
        assert_eq!(leading_tag(br#"{"t":1,"record":"sample"}"#), None);
        assert_eq!(leading_tag(br#"{"record":"samples","t":1}"#), None);
        assert_eq!(leading_tag(br#"{"record": "sample","t":1}"#), None);
        // Both paths give the same record.
        let line = br#"{"record":"event","t":2.5,"interface":"e","kind":"error","message":"m"}"#;
        let spaced = br#"{"t":2.5, "record":"event","interface":"e","kind":"error","message":"m"}"#;
        assert_eq!(parse_record(line).unwrap(), parse_record(spaced).unwrap());
    }

    #[test]
    fn microsecond_timestamps_survive_json() {
        for t in [0.0, 1.000001, 28.9998, 12345.678901] {
            let r = round_t(t);
            let back: f64 = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
            assert_eq!(back.to_bits(), r.to_bits());
        }
    }
}
