//! Lane rows written cell by cell into a reused buffer, byte for byte as the `csv` crate's
//! serde writer (its defaults) writes a [`LaneRow`]: RFC 4180 fields separated by `,`,
//! records ended by `\n`; a field is quoted when it holds `,`, `"`, `\r` or `\n`, with
//! `"` doubled inside; `None` is an empty field; floats as `ryu` formats them ([`super::float_cell`]),
//! integers as `itoa` does. The cells a sample's rows share are encoded once per sample.
//! A unit test holds the two writers to the same bytes (the csv crate's given the rows'
//! text through [`formula_safe`], which it does not do itself).

use super::float_cell::{FloatText, MAX_LEN};
use super::lane_row::LaneRow;
use super::short_copy;

/// The header record: the [`LaneRow`] field names, in order.
pub const COLUMNS: [&str; 32] = [
    "time",
    "t",
    "interface",
    "module_sn",
    "lane",
    "rx_power_dbm",
    "tx_power_dbm",
    "tx_bias_ma",
    "module_temperature_c",
    "corrected_bits_delta",
    "pre_fec_ber",
    "margin_db",
    "uncorrectable_blocks_delta",
    "link_down_events_delta",
    "rx_power_mw",
    "pre_fec_ber_upper",
    "optical_margin_db",
    "interval_s",
    "flags",
    "esnr_db",
    "ltp_db",
    "module_pre_fec_ber",
    "ber_source",
    "host",
    "link_loss_db",
    "link_loss_budget_db",
    "link_loss_pmd",
    "codeword_error_ratio",
    "flr",
    "predicted_flr",
    "flr_over_budgets",
    "predicted_flr_over_budgets",
];

/// The float columns a row does not share with the other rows of its sample, for
/// [`CellWriter`]'s per-column cache.
const LANE_FLOATS: usize = 13;

/// A float column's last value (its bits) and its text: lanes of a sample often repeat
/// a figure (the zero-error BER bound and its margin), which is then formatted once.
#[derive(Clone, Copy, Default)]
struct LastFloat {
    bits: Option<u64>,
    len: usize,
    text: [u8; MAX_LEN],
}

/// Appends CSV records to a byte buffer the caller owns (and reuses).
#[derive(Default)]
pub struct CellWriter {
    floats: FloatText,
    itoa: itoa::Buffer,
    last: [LastFloat; LANE_FLOATS],
    /// The cells every row of a sample shares ([`sample`](Self::sample)), encoded once
    /// with the separators around them, in six runs: `time,t,interface,module_sn,`,
    /// `,module_temperature_c,`, `,uncorrectable_blocks_delta,link_down_events_delta,`,
    /// `,interval_s,`, `,host` and the frame loss cells `,codeword_error_ratio,...`;
    /// `shared_ends` are where the runs end.
    shared: Vec<u8>,
    shared_ends: [usize; 6],
}

/// A text cell (an interface name, a serial number, a host: text from the system or a
/// capture) that a spreadsheet would read as a formula, `=`, `+`, `-` or `@` first, or a
/// tab or carriage return first (OWASP "CSV Injection"), is written with a `'` before it:
/// the spreadsheet shows the text, and runs nothing. Numbers are never text cells: a
/// negative dBm stays a number.
fn is_formula(s: &str) -> bool {
    matches!(s.as_bytes().first(), Some(b'=' | b'+' | b'-' | b'@' | b'\t' | b'\r'))
}

/// `s` as a CSV text cell holds it ([`is_formula`]).
fn formula_safe(s: &str) -> std::borrow::Cow<'_, str> {
    if is_formula(s) {
        format!("'{s}").into()
    } else {
        s.into()
    }
}

impl CellWriter {
    /// A text field, `'` first when [`is_formula`] (inside the quotes when it is quoted),
    /// quoted when [`needs_quotes`].
    fn text(out: &mut Vec<u8>, s: &str) {
        let s = &*formula_safe(s);
        if !needs_quotes(s.as_bytes()) {
            out.extend_from_slice(s.as_bytes());
            return;
        }
        let start = out.len();
        out.resize(start + Cursor::text_room(s), 0);
        let mut c = Cursor { buf: &mut out[start..], at: 0 };
        c.text(s);
        let end = start + c.at;
        out.truncate(end);
    }

    fn opt_text(out: &mut Vec<u8>, s: Option<&str>) {
        if let Some(s) = s {
            Self::text(out, s);
        }
    }

    /// A float cell: its digits never need quotes (`NaN`, `inf`, `-1.5e-7`).
    fn float(floats: &mut FloatText, out: &mut Vec<u8>, v: Option<f64>) {
        if let Some(v) = v {
            let mut text = [0; MAX_LEN];
            let n = floats.write(v, &mut text);
            out.extend_from_slice(&text[..n]);
        }
    }

    fn int(itoa: &mut itoa::Buffer, out: &mut Vec<u8>, v: Option<u64>) {
        if let Some(v) = v {
            out.extend_from_slice(itoa.format(v).as_bytes());
        }
    }

    /// The header record.
    pub fn header(out: &mut Vec<u8>) {
        for (i, c) in COLUMNS.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            Self::text(out, c);
        }
        out.push(b'\n');
    }

    /// Encodes the cells of `r` that every row of its sample shares (time, t, interface,
    /// module_sn, module_temperature_c, the port deltas, interval_s, host): the rows
    /// [`lane`](Self::lane) writes next carry these.
    pub fn sample(&mut self, r: &LaneRow) {
        let out = &mut self.shared;
        out.clear();
        Self::opt_text(out, r.time.as_deref());
        out.push(b',');
        Self::float(&mut self.floats, out, Some(r.t));
        out.push(b',');
        Self::text(out, &r.interface);
        out.push(b',');
        Self::opt_text(out, r.module_sn.as_deref());
        out.push(b',');
        self.shared_ends[0] = out.len();
        out.push(b',');
        Self::float(&mut self.floats, out, r.module_temperature_c);
        out.push(b',');
        self.shared_ends[1] = out.len();
        for v in [r.uncorrectable_blocks_delta, r.link_down_events_delta] {
            out.push(b',');
            Self::int(&mut self.itoa, out, v);
        }
        out.push(b',');
        self.shared_ends[2] = out.len();
        out.push(b',');
        Self::float(&mut self.floats, out, r.interval_s);
        out.push(b',');
        self.shared_ends[3] = out.len();
        out.push(b',');
        Self::opt_text(out, r.host.as_deref());
        self.shared_ends[4] = out.len();
        for v in [r.codeword_error_ratio, r.flr, r.predicted_flr] {
            out.push(b',');
            Self::float(&mut self.floats, out, v);
        }
        for v in [r.flr_over_budgets, r.predicted_flr_over_budgets] {
            out.push(b',');
            Self::opt_text(out, v);
        }
        self.shared_ends[5] = out.len();
    }

    /// One record, the columns in [`COLUMNS`] order: `r`'s own cells with the shared
    /// ones of the last [`sample`](Self::sample).
    pub fn lane(&mut self, out: &mut Vec<u8>, r: &LaneRow) {
        let ber_source = r.ber_source.as_ref().map_or("", |b| b.as_str());
        let pmd = r.link_loss_pmd.unwrap_or("");
        // The row is written through a cursor into room made at the end of `out` (one
        // length check, not one per cell), then `out` is cut to what was written. Room:
        // the shared runs, every float's whole text buffer (copied whole, a fixed-size
        // copy), two integers, the flags and the PMD quoted with every byte doubled,
        // ber_source, separators and the record's end.
        let room = self.shared.len()
            + LANE_FLOATS * MAX_LEN
            + 2 * INT_LEN
            + Cursor::text_room(&r.flags)
            + Cursor::text_room(pmd)
            + ber_source.len()
            + COLUMNS.len();
        let start = out.len();
        out.resize(start + room, 0);
        let mut c = Cursor { buf: &mut out[start..], at: 0 };
        let (floats, last) = (&mut self.floats, &mut self.last);
        let mut float = |c: &mut Cursor, col: usize, v: Option<f64>| float_cell(c, floats, &mut last[col], v);
        c.put(&self.shared[..self.shared_ends[0]]);
        if let Some(lane) = r.lane {
            c.put(self.itoa.format(lane).as_bytes());
        }
        for (col, v) in [r.rx_power_dbm, r.tx_power_dbm, r.tx_bias_ma].into_iter().enumerate() {
            c.byte(b',');
            float(&mut c, col, v);
        }
        c.put(&self.shared[self.shared_ends[0]..self.shared_ends[1]]);
        if let Some(k) = r.corrected_bits_delta {
            c.put(self.itoa.format(k).as_bytes());
        }
        for (col, v) in [(3, r.pre_fec_ber), (4, r.margin_db)] {
            c.byte(b',');
            float(&mut c, col, v);
        }
        c.put(&self.shared[self.shared_ends[1]..self.shared_ends[2]]);
        float(&mut c, 5, r.rx_power_mw);
        for (col, v) in [(6, r.pre_fec_ber_upper), (7, r.optical_margin_db)] {
            c.byte(b',');
            float(&mut c, col, v);
        }
        c.put(&self.shared[self.shared_ends[2]..self.shared_ends[3]]);
        // Reason codes (`low_margin;...`): words, never a formula (no `formula_safe`).
        c.text(&r.flags);
        for (col, v) in [(8, r.esnr_db), (9, r.ltp_db), (10, r.module_pre_fec_ber)] {
            c.byte(b',');
            float(&mut c, col, v);
        }
        c.byte(b',');
        // BerSource's names are plain words (`driver`, `netlink`, `vdm`): never quoted.
        c.put(ber_source.as_bytes());
        c.put(&self.shared[self.shared_ends[3]..self.shared_ends[4]]);
        for (col, v) in [(11, r.link_loss_db), (12, r.link_loss_budget_db)] {
            c.byte(b',');
            float(&mut c, col, v);
        }
        c.byte(b',');
        c.text(pmd);
        c.put(&self.shared[self.shared_ends[4]..self.shared_ends[5]]);
        c.byte(b'\n');
        let end = start + c.at;
        out.truncate(end);
    }
}

/// A lane float cell `v`, its text through its column's cache `last`. Inlined: called
/// as a function per cell, the call and the cache's bounds check cost more than the copy.
#[inline(always)]
fn float_cell(c: &mut Cursor, floats: &mut FloatText, last: &mut LastFloat, v: Option<f64>) {
    if let Some(v) = v {
        if last.bits != Some(v.to_bits()) {
            last.len = floats.write(v, &mut last.text);
            last.bits = Some(v.to_bits());
        }
        c.float(last);
    }
}

/// Longest integer cell (`u64::MAX` has 20 digits).
const INT_LEN: usize = 20;

/// Writes a record's bytes into room already made for them.
struct Cursor<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Cursor<'_> {
    fn put(&mut self, b: &[u8]) {
        short_copy::copy(&mut self.buf[self.at..], b);
        self.at += b.len();
    }

    fn byte(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    /// A cached float's text: its whole buffer copied (room was made for it), its length kept.
    fn float(&mut self, f: &LastFloat) {
        self.buf[self.at..self.at + MAX_LEN].copy_from_slice(&f.text);
        self.at += f.len;
    }

    /// The room [`text`](Self::text) needs at most: every byte doubled, two quotes.
    fn text_room(s: &str) -> usize {
        2 * s.len() + 2
    }

    /// [`CellWriter::text`] into the room.
    fn text(&mut self, s: &str) {
        let b = s.as_bytes();
        if !needs_quotes(b) {
            self.put(b);
            return;
        }
        self.byte(b'"');
        for &c in b {
            if c == b'"' {
                self.byte(b'"');
            }
            self.byte(c);
        }
        self.byte(b'"');
    }
}

/// A text field is quoted when it holds a delimiter, quote or line break (the csv
/// crate's `QuoteStyle::Necessary` with its default `\n` terminator).
fn needs_quotes(b: &[u8]) -> bool {
    b.iter().any(|c| matches!(c, b',' | b'"' | b'\r' | b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::vdm_lanes::BerSource;

    /// What the csv crate's serde writer makes of `rows` (header first), their text cells
    /// through [`formula_safe`].
    fn by_csv_crate(rows: &[LaneRow]) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let safe = |s: &Option<String>| s.as_deref().map(|s| formula_safe(s).into_owned());
        for r in rows {
            let r = LaneRow {
                interface: formula_safe(&r.interface).into_owned(),
                module_sn: safe(&r.module_sn),
                host: safe(&r.host),
                time: safe(&r.time),
                ..r.clone()
            };
            w.serialize(r).unwrap();
        }
        w.into_inner().unwrap()
    }

    fn by_cells(rows: &[LaneRow]) -> Vec<u8> {
        let mut out = Vec::new();
        CellWriter::header(&mut out);
        let mut cw = CellWriter::default();
        for r in rows {
            cw.sample(r);
            cw.lane(&mut out, r);
        }
        out
    }

    #[test]
    fn a_formula_is_text_and_a_number_stays_a_number() {
        let row = LaneRow {
            interface: "=1+1".into(),
            module_sn: Some("-2,3".into()),
            host: Some("@h".into()),
            rx_power_dbm: Some(-3.5),
            ..Default::default()
        };
        let mut out = Vec::new();
        let mut cw = CellWriter::default();
        cw.sample(&row);
        cw.lane(&mut out, &row);
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with(",0.0,'=1+1,\"'-2,3\",,-3.5,"), "{text}");
        // The host, then the three link-loss and the five frame-loss cells, empty.
        assert!(text.ends_with(",'@h,,,,,,,,\n"), "{text}");
    }

    #[test]
    fn cells_are_the_csv_crates_bytes() {
        let full = LaneRow {
            time: Some("2026-12-01T19:30:05.123456Z".into()),
            t: 0.1 + 0.2,
            interface: "eth0".into(),
            module_sn: Some("SN 1".into()),
            lane: Some(255),
            rx_power_dbm: Some(-40.0),
            tx_power_dbm: Some(f64::NEG_INFINITY),
            tx_bias_ma: Some(f64::NAN),
            module_temperature_c: Some(1e300),
            corrected_bits_delta: Some(u64::MAX),
            pre_fec_ber: Some(1.2345678901234567e-9),
            margin_db: Some(-0.0),
            uncorrectable_blocks_delta: Some(0),
            link_down_events_delta: Some(7),
            rx_power_mw: Some(5e-324),
            pre_fec_ber_upper: Some(f64::INFINITY),
            optical_margin_db: Some(123456789012345680.0),
            interval_s: Some(1.0),
            flags: "low_margin;fec_hiding".into(),
            esnr_db: Some(18.5),
            ltp_db: Some(0.001),
            module_pre_fec_ber: Some(2e-5),
            ber_source: Some(BerSource::Vdm),
            host: Some("gpu-node-17".into()),
            link_loss_db: Some(2.5),
            link_loss_budget_db: Some(1.9),
            link_loss_pmd: Some("200GBASE-SR4"),
            codeword_error_ratio: Some(4.369e-7),
            flr: Some(9.311e-7),
            predicted_flr: Some(0.0),
            flr_over_budgets: Some("module;phy"),
            predicted_flr_over_budgets: Some("none"),
        };
        // Hostile text: delimiters, quotes, line breaks, and all of them at once.
        let hostile = |s: &str| LaneRow {
            interface: s.into(),
            module_sn: Some(format!("\"{s}\"")),
            flags: s.into(),
            host: Some(s.into()),
            ber_source: Some(BerSource::Driver),
            ..Default::default()
        };
        let rows = vec![
            full,
            LaneRow::default(),
            hostile("a,b"),
            hostile("q\"uote"),
            hostile("line\nbreak"),
            hostile("cr\rlf\r\n"),
            hostile("\"\","),
            hostile(""),
            hostile(" spaced "),
            // Formulas (OWASP CSV injection), also where the cell is quoted.
            hostile("=HYPERLINK(\"http://x\",\"y\")"),
            hostile("+1"),
            hostile("-2,3"),
            hostile("@SUM(A1)"),
            hostile("\tx"),
            hostile("\rx"),
            LaneRow { ber_source: Some(BerSource::Netlink), ..Default::default() },
            LaneRow { link_loss_db: Some(-0.25), link_loss_pmd: Some("a,\"b"), ..Default::default() },
        ];
        // Repeated and alternating values go through the per-column cache.
        let rows: Vec<LaneRow> = rows.iter().chain(rows.iter().rev()).chain(&rows).cloned().collect();
        assert_eq!(String::from_utf8(by_cells(&rows)).unwrap(), String::from_utf8(by_csv_crate(&rows)).unwrap());
    }
}
