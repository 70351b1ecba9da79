//! The CSV text of lane rows, with each interval's shared cells encoded once.
//!
//! Every row of an interval repeats the cells of its sample and port (time, interface,
//! the port's deltas, frame loss, the host beneath the link, InfiniBand counters): 38 of a
//! row's 56 cells. Through `csv::Writer::serialize` each row encoded all of them again,
//! which was most of an export's cost (docs/benchmarks.md, section 7). Here
//! [`RowText::interval`] encodes the shared runs of columns once per interval, and
//! [`RowText::row`] puts them between the lane's own cells.
//!
//! The bytes are those `csv::Writer::serialize` writes for the [`LaneRow`] (a test holds
//! every bundled capture to it): text is escaped by `csv_core` in the `csv` crate's
//! default style (RFC 4180, quotes only where needed), floats are `ryu`'s text (found by
//! `zmij`, see [`put_float`]) and integers `itoa`'s, as the `csv` crate's serializer
//! writes them, and a `None` is an empty cell.
//! Numbers never need quotes, so they are written as they are.

use super::lane_row::LaneRow;
use std::ops::Range;

/// The runs of columns every row of an interval shares, in column order: each row is
/// `shared[0], lane cells, shared[1], lane cells, ..., shared[5]` ([`RowText::row`]).
const SHARED_RUNS: usize = 6;

/// The header row and the interval's shared cells, encoded.
pub(super) struct RowText {
    /// Escapes text cells (the `csv` crate's default style); between cells its state is
    /// only "after a delimiter".
    text: csv_core::Writer,
    /// The encoded runs of the current interval, each with its delimiter after it.
    shared: Vec<u8>,
    runs: [Range<usize>; SHARED_RUNS],
}

impl Default for RowText {
    fn default() -> Self {
        RowText { text: csv_core::Writer::new(), shared: Vec::new(), runs: Default::default() }
    }
}

/// The header row: the [`LaneRow`] field names as `csv::Writer::serialize` writes them.
pub(super) fn header(out: &mut Vec<u8>) -> csv::Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.serialize(LaneRow::default())?;
    let text = w.into_inner().map_err(|e| e.into_error())?;
    // The header line, then one row of defaults.
    let end = text.iter().position(|b| *b == b'\n').map_or(text.len(), |i| i + 1);
    out.extend_from_slice(&text[..end]);
    Ok(())
}

impl RowText {
    /// Encodes the cells `row` shares with every row of its interval (those
    /// `CsvSink::fill_base` sets).
    pub(super) fn interval(&mut self, row: &LaneRow) {
        self.shared.clear();
        self.put_text(row.time.as_deref());
        put_float(&mut self.shared, Some(row.t));
        self.put_text(Some(&row.interface));
        self.put_text(row.module_sn.as_deref());
        self.end_run(0);
        put_float(&mut self.shared, row.module_temperature_c);
        self.end_run(1);
        put_int(&mut self.shared, row.uncorrectable_blocks_delta);
        put_int(&mut self.shared, row.link_down_events_delta);
        self.end_run(2);
        put_float(&mut self.shared, row.interval_s);
        self.end_run(3);
        self.put_text(row.host.as_deref());
        self.end_run(4);
        for v in [row.codeword_error_ratio, row.flr, row.predicted_flr] {
            put_float(&mut self.shared, v);
        }
        self.put_text(row.flr_over_budgets);
        self.put_text(row.predicted_flr_over_budgets);
        self.put_text(row.host_driver.as_deref());
        self.put_text(row.host_firmware_version.as_deref());
        put_int(&mut self.shared, row.host_numa_node);
        let counts = [row.host_mtu, row.host_rx_ring, row.host_rx_ring_max, row.host_tx_ring, row.host_tx_ring_max];
        let channels = [row.host_combined_channels, row.host_rx_channels, row.host_tx_channels];
        for v in counts.into_iter().chain(channels) {
            put_int(&mut self.shared, v);
        }
        for v in [row.rx_pause_frames_per_s, row.tx_pause_frames_per_s, row.rx_discards_per_s, row.rx_out_of_buffer_per_s] {
            put_float(&mut self.shared, v);
        }
        put_int(&mut self.shared, row.ib_symbol_error_delta);
        put_float(&mut self.shared, row.ib_symbol_errors_per_s);
        let ib = [
            row.ib_link_downed_delta,
            row.ib_link_error_recovery_delta,
            row.ib_port_rcv_errors_delta,
            row.ib_port_rcv_remote_physical_errors_delta,
            row.ib_local_link_integrity_errors_delta,
            row.ib_excessive_buffer_overrun_errors_delta,
        ];
        for v in ib {
            put_int(&mut self.shared, v);
        }
        self.put_text(row.ib_saturated.as_deref());
        self.end_run(5);
    }

    /// Run `run` is what was encoded since the previous one.
    fn end_run(&mut self, run: usize) {
        let start = run.checked_sub(1).map_or(0, |r| self.runs[r].end);
        self.runs[run] = start..self.shared.len();
    }

    /// Appends the row of `row`'s lane (the cells `fill_lane` sets) to `out`, with the
    /// interval's shared cells last given to [`Self::interval`].
    pub(super) fn row(&mut self, row: &LaneRow, out: &mut Vec<u8>) {
        let shared = |cells: &Self, out: &mut Vec<u8>, run: usize| out.extend_from_slice(&cells.shared[cells.runs[run].clone()]);
        shared(self, out, 0);
        put_int(out, row.lane);
        for v in [row.rx_power_dbm, row.tx_power_dbm, row.tx_bias_ma] {
            put_float(out, v);
        }
        shared(self, out, 1);
        put_int(out, row.corrected_bits_delta);
        put_float(out, row.pre_fec_ber);
        put_float(out, row.margin_db);
        shared(self, out, 2);
        for v in [row.rx_power_mw, row.pre_fec_ber_upper, row.optical_margin_db] {
            put_float(out, v);
        }
        shared(self, out, 3);
        put_text(&mut self.text, out, Some(&row.flags));
        for v in [row.esnr_db, row.ltp_db, row.module_pre_fec_ber] {
            put_float(out, v);
        }
        put_text(&mut self.text, out, row.ber_source.map(|b| b.as_str()));
        shared(self, out, 4);
        put_float(out, row.link_loss_db);
        put_float(out, row.link_loss_budget_db);
        put_text(&mut self.text, out, row.link_loss_pmd);
        shared(self, out, 5);
        // The last cell's delimiter is the row's terminator.
        if let Some(last) = out.last_mut() {
            *last = b'\n';
        }
    }

    fn put_text(&mut self, v: Option<&str>) {
        put_text(&mut self.text, &mut self.shared, v);
    }
}

/// A text cell and its delimiter, escaped by `csv_core` (quoted only where needed, quotes
/// doubled).
fn put_text(w: &mut csv_core::Writer, out: &mut Vec<u8>, v: Option<&str>) {
    let v = v.unwrap_or_default().as_bytes();
    // A cell csv_core would not quote (its own test; most cells: empty, `netlink`) is
    // its bytes as they are: `field` then copies it and `delimiter` writes the comma,
    // leaving the writer between fields as it finds it.
    if !w.should_quote(v) {
        out.extend_from_slice(v);
        out.push(b',');
        return;
    }
    let start = out.len();
    // The most `field` and `delimiter` write: quotes around, each byte doubled, a delimiter.
    out.resize(start + 2 * v.len() + 3, 0);
    let (_, _, field) = w.field(v, &mut out[start..]);
    let (_, delimiter) = w.delimiter(&mut out[start + field..]);
    out.truncate(start + field + delimiter);
}

/// A float cell and its delimiter: the shortest text that reads back as the value, as
/// `ryu` (the `csv` crate's float writer) writes it. `zmij` (the same author's successor,
/// already serde_json's float writer) finds the same digits in about half the time on
/// the rows' 17-digit values, which were a sixth of an export; it writes a positive
/// exponent `1e+16` where `ryu` writes `1e16`, so the `+` is left out.
fn put_float(out: &mut Vec<u8>, v: Option<f64>) {
    if let Some(v) = v {
        let mut buf = zmij::Buffer::new();
        let text = buf.format(v).as_bytes();
        // Only a positive exponent holds a `+`, within the last five bytes (`e+308`), and
        // zmij writes one only from 1e16 on (below, plain decimals): a value far below
        // is not searched (reading back the bytes just written was half this function).
        if v.abs() < PLAIN_BELOW {
            out.extend_from_slice(text);
            out.push(b',');
            return;
        }
        let tail = text.len().saturating_sub(5);
        match text[tail..].iter().position(|b| *b == b'+').map(|i| tail + i) {
            Some(plus) => {
                out.extend_from_slice(&text[..plus]);
                out.extend_from_slice(&text[plus + 1..]);
            }
            None => out.extend_from_slice(text),
        }
    }
    out.push(b',');
}

/// Under this magnitude zmij writes an f64 without an exponent (its fixed notation
/// covers decimal exponents up to 15, so every value under 1e16); a margin below that.
const PLAIN_BELOW: f64 = 1e15;

/// An integer cell and its delimiter.
fn put_int<I: itoa::Integer>(out: &mut Vec<u8>, v: Option<I>) {
    if let Some(v) = v {
        out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }
    out.push(b',');
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// A float cell's text without its delimiter.
    fn float_text(v: f64) -> String {
        let mut out = Vec::new();
        super::put_float(&mut out, Some(v));
        out.pop();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn float_cells_are_ryus_text_at_the_edges() {
        let edges = [
            0.0,
            -0.0,
            1.0,
            0.1,
            1e-5,
            1e-7,
            999_999_999_999_999.9,
            1e15,
            9_999_999_999_999_998.0,
            1e16,
            1.2345678901234568e17,
            1e22,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
        ];
        for v in edges.into_iter().flat_map(|v| [v, -v]).chain([f64::NAN, f64::INFINITY, f64::NEG_INFINITY]) {
            assert_eq!(float_text(v), ryu::Buffer::new().format(v), "{v:e}");
        }
    }

    proptest! {
        #[test]
        fn float_cells_are_ryus_text(bits in any::<u64>(), digits in 0u64..100_000_000, exp in -40i32..40) {
            let v = f64::from_bits(bits);
            prop_assert_eq!(float_text(v), ryu::Buffer::new().format(v).to_string());
            let v = digits as f64 * 10f64.powi(exp);
            prop_assert_eq!(float_text(v), ryu::Buffer::new().format(v).to_string());
        }
    }
}
