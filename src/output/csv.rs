//! CSV of lane rows: one row per (sample, interface, lane), RFC 4180 with a header row,
//! written as records arrive (`watch --csv`) or from a capture (`export --csv`): both feed
//! the same [`CsvSink`], a printer of the interval stage. Each row's deltas, BER and
//! margin are the stage's figures of the interval since the interface's previous sample
//! (the same window analysis as `scan`); the sink only formats them.
//! Columns are documented in docs/csv-format.md; empty cells mean "not available".

use super::csv_text::{self, RowText};
pub(crate) use super::lane_row::LaneRow;
use crate::analysis::infiniband::IbAnalysis;
use crate::analysis::lane_index::LaneIndex;
use crate::analysis::lane_rows::{IntervalSink, LaneInterval, RowFigures};
use crate::analysis::link_loss::{self, FarEnd, Pmd};
use crate::analysis::{InterfaceWindow, LaneAnalysis};
use crate::capture::RecordSink;
use crate::capture::{round_t, Record};
use crate::module::report::LaneReport;
use std::io::{self, Write};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// How rows are encoded: CSV (RFC 4180, a header row of the [`LaneRow`] field names
/// before the first row: the bytes of the `csv` crate's serde writer, each interval's
/// shared cells encoded once, see [`super::csv_text`]), or JSON Lines of the same rows
/// (`export --json`). Encoded rows not yet handed to `out` wait in `buf` (reused: cleared
/// at each flush).
enum Encoding<W: Write> {
    Csv {
        out: W,
        buf: Vec<u8>,
        cells: Box<RowText>,
        header_written: bool,
    },
    JsonLines {
        out: W,
        buf: Vec<u8>,
    },
    /// Every cell through `csv::Writer::serialize`: what the CSV bytes are held to.
    #[cfg(test)]
    Serde(Box<csv::Writer<W>>),
}

impl<W: Write> Encoding<W> {
    fn csv(out: W) -> Self {
        Encoding::Csv { out, buf: Vec::with_capacity(BATCH_BYTES), cells: Box::default(), header_written: false }
    }

    /// Encodes one row into the pending rows (CSV: the header row first).
    fn write_row(&mut self, row: &LaneRow) -> io::Result<()> {
        match self {
            Encoding::Csv { buf, cells, header_written, .. } => {
                if !std::mem::replace(header_written, true) {
                    csv_text::header(buf).map_err(io::Error::other)?;
                }
                cells.row(row, buf);
                Ok(())
            }
            Encoding::JsonLines { buf, .. } => {
                serde_json::to_writer(&mut *buf, row).map_err(io::Error::other)?;
                buf.push(b'\n');
                Ok(())
            }
            #[cfg(test)]
            Encoding::Serde(w) => w.serialize(row).map_err(io::Error::other),
        }
    }
}

/// When a [`CsvSink`] hands its rows to the writer's `flush` (one write to the file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlushPolicy {
    /// After every sample: a live sink (`watch --csv`) keeps every row if the run is stopped.
    PerSample,
    /// Once 1024 rows (`BATCH_ROWS`) are pending, at a sample boundary, and when the sink
    /// finishes: an export, where a write per sample costs more than the rows.
    Batched,
}

/// Rows held before a batched flush: a few hundred kB at most, so memory stays bounded.
pub(crate) const BATCH_ROWS: usize = 1024;

/// Room for a batch of rows (a row of 8 lanes is ~250 bytes), so a batch is one write.
const BATCH_BYTES: usize = BATCH_ROWS * 320;

/// A printer of the interval stage that writes each interval's lane rows, flushed per its [`FlushPolicy`].
pub struct CsvSink<W: Write> {
    encoding: Encoding<W>,
    flush: FlushPolicy,
    /// Rows written since the last flush.
    pending_rows: usize,
    created: Option<OffsetDateTime>,
    host: Option<String>,
    /// The row being written (reused).
    row: LaneRow,
    /// The far end of one interface's link (`export --peer`): its rows get the link loss.
    far_end: Option<FarEnd>,
}

impl<W: Write> CsvSink<W> {
    /// `created` is the capture start (RFC 3339), if known before the header record arrives.
    pub fn new(out: W, created: Option<&str>) -> Self {
        Self::with_out(Encoding::csv(out), created)
    }

    /// The same rows as JSON Lines: one object per row, keys = the CSV column names.
    pub fn json_lines(out: W, created: Option<&str>) -> Self {
        Self::with_out(Encoding::JsonLines { out, buf: Vec::new() }, created)
    }

    fn with_out(encoding: Encoding<W>, created: Option<&str>) -> Self {
        CsvSink {
            encoding,
            flush: FlushPolicy::PerSample,
            pending_rows: 0,
            created: created.and_then(|c| OffsetDateTime::parse(c, &Rfc3339).ok()),
            host: None,
            row: LaneRow::default(),
            far_end: None,
        }
    }

    /// Rows of `far.near` get `link_loss_db` against the far end's Tx powers.
    pub fn with_far_end(mut self, far: FarEnd) -> Self {
        self.far_end = Some(far);
        self
    }

    /// The `host` cell of every row (the capture header's host), if known before the
    /// header record arrives.
    pub fn with_host(mut self, host: Option<String>) -> Self {
        self.host = host;
        self
    }

    /// How rows are flushed (default: per sample).
    pub fn with_flush(mut self, flush: FlushPolicy) -> Self {
        self.flush = flush;
        self
    }

    /// Flushes the rows still held (a batched sink holds up to [`BATCH_ROWS`]); call it
    /// when the records end, or after an error, to see the write's own error.
    pub(crate) fn finish(&mut self) -> io::Result<()> {
        self.pending_rows = 0;
        let (out, buf) = match &mut self.encoding {
            Encoding::Csv { out, buf, .. } | Encoding::JsonLines { out, buf } => (out, buf),
            #[cfg(test)]
            Encoding::Serde(w) => return w.flush(),
        };
        let written = out.write_all(buf);
        buf.clear();
        written?;
        out.flush()
    }

    /// Writes the rows of interval `iv`: one per lane (lane order), or one without lane
    /// cells when there are no lanes. Returns how many.
    fn write_rows(&mut self, iv: &LaneInterval<'_>) -> io::Result<usize> {
        let (w, a) = (iv.window, iv.figures);
        // The row value is refilled per row in place (its strings keep their allocations;
        // moved out and back it was two copies of its ~1 kB per interval).
        let CsvSink { encoding, created, host, row, far_end, .. } = self;
        let far = match far_end.as_mut().map(|f| f.facing(w)).transpose().map_err(io::Error::other)? {
            Some(Some(pmd)) => far_end.as_ref().map(|f| (&f.far, pmd)),
            _ => None,
        };
        let csv = !matches!(encoding, Encoding::JsonLines { .. });
        fill_base(row, iv, *created, host.as_deref(), csv);
        if let Encoding::Csv { cells, .. } = encoding {
            cells.interval(row);
        }
        let module = LaneIndex::new(w.module.as_ref().map_or(&[][..], |m| &m.lanes[..]));
        let has_interval = w.samples >= 2;
        if a.lanes.is_empty() {
            fill_lane(row, None, None, has_interval, None);
            encoding.write_row(row)?;
        }
        for l in &a.lanes {
            // This sample's own DOM reading, not the window mean; on a breakout the
            // netdev lane's module lane (docs/breakout.md).
            let module_lane = l.module_lane.unwrap_or(l.lane);
            let dom = module.get(module_lane);
            fill_lane(row, Some(l), dom, has_interval, far);
            encoding.write_row(row)?;
        }
        Ok(a.lanes.len().max(1))
    }
}

/// The cells every row of a sample shares: `created` is the capture start, `host` the
/// capture's host, `csv` whether text cells go into CSV ([`put_text`]).
fn fill_base(row: &mut LaneRow, iv: &LaneInterval<'_>, created: Option<OffsetDateTime>, host: Option<&str>, csv: bool) {
    let (w, a): (&InterfaceWindow, &RowFigures) = (iv.window, iv.figures);
    let has_interval = w.samples >= 2;
    // Checked: a capture's `t` is untrusted (1e300 or a start near year 9999 would
    // overflow `Duration` or the date); such a row gets an empty `time` cell.
    let at = created.and_then(|c| c.checked_add(time::Duration::checked_seconds_f64(iv.t)?));
    let mut time = row.time.take().unwrap_or_default();
    row.time = at.and_then(|at| rfc3339_micros(at, &mut time)).map(|()| time);
    let module = w.module.as_ref();
    let port = |v: Option<u64>| v.filter(|_| has_interval);
    row.t = iv.t;
    // Text from the system or a capture: in CSV, never a formula ([`is_formula`]).
    put_text(&mut row.interface, &w.interface, csv);
    set_text(&mut row.module_sn, module.and_then(|m| m.vendor_sn.as_deref()), csv);
    row.module_temperature_c = module.and_then(|m| m.module_temperature_c);
    row.uncorrectable_blocks_delta = port(a.link.uncorrectable_blocks);
    row.link_down_events_delta = port(a.link.link_down_events);
    row.interval_s = has_interval.then_some(round_t(w.duration_s));
    set_text(&mut row.host, host, csv);
    let fl = a.frame_loss.as_ref();
    row.codeword_error_ratio = fl.and_then(|f| f.codeword_error_ratio);
    row.flr = fl.and_then(|f| f.flr);
    row.predicted_flr = fl.and_then(|f| f.predicted_flr);
    row.flr_over_budgets = fl.and_then(|f| f.budgets_exceeded(false));
    row.predicted_flr_over_budgets = fl.and_then(|f| f.budgets_exceeded(true));
    let h = w.identity.host.as_ref();
    set_text(&mut row.host_driver, h.and_then(|h| h.driver.as_ref()).map(|f| f.value.as_str()), csv);
    set_text(&mut row.host_firmware_version, h.and_then(|h| h.firmware_version.as_ref()).map(|f| f.value.as_str()), csv);
    row.host_numa_node = h.and_then(|h| h.numa_node.as_ref()).map(|f| f.value);
    row.host_mtu = h.and_then(|h| h.mtu.as_ref()).map(|f| f.value);
    let rings = h.and_then(|h| h.rings.as_ref()).map(|f| &f.value);
    (row.host_rx_ring, row.host_rx_ring_max) = (rings.and_then(|r| r.rx), rings.and_then(|r| r.rx_max));
    (row.host_tx_ring, row.host_tx_ring_max) = (rings.and_then(|r| r.tx), rings.and_then(|r| r.tx_max));
    let ch = h.and_then(|h| h.channels.as_ref()).map(|f| &f.value);
    row.host_combined_channels = ch.and_then(|c| c.combined);
    (row.host_rx_channels, row.host_tx_channels) = (ch.and_then(|c| c.rx), ch.and_then(|c| c.tx));
    let pd = a.pause_discards.as_ref().filter(|_| has_interval);
    let rate = |r: Option<&crate::analysis::host::Rate>| r.map(|r| r.per_s);
    row.rx_pause_frames_per_s = rate(pd.and_then(|p| p.rx_pause_frames.as_ref()));
    row.tx_pause_frames_per_s = rate(pd.and_then(|p| p.tx_pause_frames.as_ref()));
    row.rx_discards_per_s = rate(pd.and_then(|p| p.rx_discards.as_ref()));
    row.rx_out_of_buffer_per_s = rate(pd.and_then(|p| p.rx_out_of_buffer.as_ref()));
    fill_ib(row, a.infiniband.as_ref());
}

/// The InfiniBand cells of a row (all empty for `None`).
fn fill_ib(row: &mut LaneRow, ib: Option<&IbAnalysis>) {
    let count = |name: &str| ib.and_then(|a| a.count(name));
    row.ib_symbol_error_delta = count("symbol_error");
    row.ib_symbol_errors_per_s = ib.and_then(|a| a.symbol_errors_per_s);
    row.ib_link_downed_delta = count("link_downed");
    row.ib_link_error_recovery_delta = count("link_error_recovery");
    row.ib_port_rcv_errors_delta = count("port_rcv_errors");
    row.ib_port_rcv_remote_physical_errors_delta = count("port_rcv_remote_physical_errors");
    row.ib_local_link_integrity_errors_delta = count("local_link_integrity_errors");
    row.ib_excessive_buffer_overrun_errors_delta = count("excessive_buffer_overrun_errors");
    // Sysfs names, never text from a capture: no formula can start one.
    row.ib_saturated = ib.filter(|a| !a.saturated.is_empty()).map(|a| a.saturated.join(";"));
}

/// A text cell (an interface name, a serial number, a host: text from the system or a
/// capture) that a spreadsheet would read as a formula, `=`, `+`, `-` or `@` first, or a
/// tab or carriage return first (OWASP "CSV Injection"), is written with a `'` before it:
/// the spreadsheet shows the text, and runs nothing. Numbers are never text cells: a
/// negative dBm stays a number.
fn is_formula(s: &str) -> bool {
    matches!(s.as_bytes().first(), Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r'))
}

/// `slot = text`, keeping the slot's allocation; in a CSV cell (`csv`), a `'` before
/// text a spreadsheet would take for a formula ([`is_formula`]), and control characters,
/// bidi overrides and line separators as visible escapes, as the text report prints them
/// ([`crate::output::text::escape`]): `export --csv -` goes to a terminal as often as to
/// a spreadsheet, and a name holding `ESC [` must not drive it.
fn put_text(slot: &mut String, text: &str, csv: bool) {
    slot.clear();
    if !csv {
        slot.push_str(text);
        return;
    }
    if is_formula(text) {
        slot.push('\'');
    }
    slot.push_str(&crate::output::text::escape(text));
}

/// [`put_text`] of an optional cell.
fn set_text(slot: &mut Option<String>, text: Option<&str>, csv: bool) {
    match text {
        Some(t) => put_text(slot.get_or_insert_with(String::new), t, csv),
        None => *slot = None,
    }
}

/// The cells of lane `l` (all empty for `None`), with the sample's own monitors `dom`,
/// and the light lost from the far end `far` (its window and the PMD) to that Rx reading.
fn fill_lane(
    row: &mut LaneRow,
    l: Option<&LaneAnalysis>,
    dom: Option<&LaneReport>,
    has_interval: bool,
    far: Option<(&InterfaceWindow, Option<&'static Pmd>)>,
) {
    let counted = |v: Option<f64>| v.filter(|_| has_interval);
    row.lane = l.map(|l| l.lane);
    row.rx_power_dbm = dom.and_then(|d| d.rx_power_dbm);
    row.rx_power_mw = dom.and_then(|d| d.rx_power_mw);
    row.tx_power_dbm = dom.and_then(|d| d.tx_power_dbm);
    row.tx_bias_ma = dom.and_then(|d| d.tx_bias_ma);
    row.corrected_bits_delta = l.and_then(|l| l.corrected_bits).filter(|_| has_interval);
    row.pre_fec_ber = counted(l.and_then(|l| l.pre_fec_ber));
    row.pre_fec_ber_upper = counted(l.and_then(|l| l.pre_fec_ber_upper));
    row.margin_db = counted(l.and_then(|l| l.margin_db));
    row.optical_margin_db = l.and_then(|l| l.optical_margin_db);
    row.flags.clear();
    for (i, f) in l.iter().flat_map(|l| &l.flags).enumerate() {
        if i > 0 {
            row.flags.push(';');
        }
        row.flags.push_str(f.as_str());
    }
    row.esnr_db = l.and_then(|l| l.esnr_db);
    row.ltp_db = l.and_then(|l| l.ltp_db);
    row.module_pre_fec_ber = l.and_then(|l| l.module_pre_fec_ber);
    row.ber_source = l.and_then(|l| l.ber_source);
    row.link_loss_db = far.zip(l).and_then(|((w, _), l)| link_loss::loss_db(w, l.lane, row.rx_power_dbm));
    let pmd = far.and_then(|(_, p)| p).filter(|_| row.link_loss_db.is_some());
    row.link_loss_budget_db = pmd.map(|p| p.channel_insertion_loss_db);
    row.link_loss_pmd = pmd.map(|p| p.name);
}

/// RFC 3339 in UTC with exactly six fractional digits (`2026-12-01T19:30:05.123456Z`), so
/// every row's time has the same width and sorts as text; `None` outside years 0-9999.
/// Into the row's own string, digit by digit: formatted per row it was 1% of an export.
fn rfc3339_micros(at: OffsetDateTime, out: &mut String) -> Option<()> {
    let u = at.to_offset(time::UtcOffset::UTC);
    let year = u32::try_from(u.year()).ok().filter(|y| *y <= 9999)?;
    let mut text = *b"0000-00-00T00:00:00.000000Z";
    let fields = [
        (0..4, year),
        (5..7, u32::from(u8::from(u.month()))),
        (8..10, u32::from(u.day())),
        (11..13, u32::from(u.hour())),
        (14..16, u32::from(u.minute())),
        (17..19, u32::from(u.second())),
        (20..26, u.microsecond()),
    ];
    for (digits, mut v) in fields {
        // Every field is below 10^width (year <= 9999, microsecond < 10^6).
        for d in text[digits].iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    out.clear();
    // ASCII digits and separators only.
    out.push_str(std::str::from_utf8(&text).ok()?);
    Some(())
}

/// Rows still held are written when the sink goes away.
impl<W: Write> Drop for CsvSink<W> {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

impl<W: Write> RecordSink for CsvSink<W> {
    fn record(&mut self, rec: &Record) -> io::Result<()> {
        match rec {
            Record::Header(h) => {
                self.created = OffsetDateTime::parse(&h.created, &Rfc3339).ok().or(self.created);
                if h.host.is_some() {
                    self.host.clone_from(&h.host);
                }
            }
            // Rows come from the intervals the stage hands over.
            Record::Interface(_) | Record::Event(_) | Record::Sample(_) => {}
        }
        Ok(())
    }

    fn finish(&mut self) -> io::Result<()> {
        CsvSink::finish(self)
    }
}

impl<W: Write> IntervalSink for CsvSink<W> {
    fn interval(&mut self, iv: &LaneInterval<'_>) -> io::Result<()> {
        self.pending_rows += self.write_rows(iv)?;
        // At a sample boundary, so a flush writes whole rows only.
        if self.flush == FlushPolicy::PerSample || self.pending_rows >= BATCH_ROWS {
            self.finish()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::read_capture;

    /// Bytes written and flushes seen.
    #[derive(Default)]
    struct Counting {
        bytes: Vec<u8>,
        flushes: usize,
    }

    impl Write for &mut Counting {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.flushes += 1;
            Ok(())
        }
    }

    /// The CSV of `records` (with the far end `far`), through `encoding`.
    fn csv_of(records: &[Record], far: Option<FarEnd>, encoding: impl FnOnce(&mut Vec<u8>) -> Encoding<&mut Vec<u8>>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut sink = CsvSink::with_out(encoding(&mut out), None).with_host(Some("=h,\"2\"".into()));
        if let Some(far) = far {
            sink = sink.with_far_end(far);
        }
        crate::output::tests::print(records, &mut sink);
        drop(sink);
        out
    }

    #[test]
    fn rows_are_the_bytes_of_the_csv_crates_serde_writer() {
        let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/captures"));
        let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        paths.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
        paths.sort();
        assert!(paths.len() >= 20, "{paths:?}");
        for path in &paths {
            let cap = read_capture(path).unwrap();
            // Also with the capture's first interface as the far end of every interface:
            // rows get link loss cells.
            let (engine, _) = crate::sample::engine::replay(path, crate::sample::engine::EngineConfig::default()).unwrap();
            let window = engine.windows().into_iter().next().unwrap();
            let far = |on: bool| on.then(|| FarEnd { near: None, far: window.clone(), shown: "far".into(), check: false });
            for on in [false, true] {
                let serde = csv_of(&cap.records, far(on), |out| Encoding::Serde(Box::new(csv::Writer::from_writer(out))));
                let cells = csv_of(&cap.records, far(on), |out| Encoding::csv(out));
                assert!(
                    cells == serde,
                    "{}:\n{}\n---\n{}",
                    path.display(),
                    String::from_utf8_lossy(&cells),
                    String::from_utf8_lossy(&serde)
                );
            }
        }
    }

    #[test]
    fn batched_rows_are_the_per_sample_rows_in_fewer_writes() {
        let cap = read_capture(concat!(env!("CARGO_MANIFEST_DIR"), "/captures/dr8-800g-cmis-healthy.jsonl")).unwrap();
        let samples = cap.records.iter().filter(|r| matches!(r, Record::Sample(_))).count();
        let run = |flush: FlushPolicy| {
            let mut out = Counting::default();
            let mut sink = CsvSink::new(&mut out, None).with_flush(flush);
            crate::output::tests::print(&cap.records, &mut sink);
            drop(sink);
            out
        };
        let (live, batched) = (run(FlushPolicy::PerSample), run(FlushPolicy::Batched));
        assert_eq!(live.bytes, batched.bytes);
        // One flush per sample, then finish's and the sink's own on drop; 61 samples x
        // 8 lanes = 488 rows fit one batch.
        assert_eq!(live.flushes, samples + 2);
        assert_eq!(batched.flushes, 2);
    }
}
