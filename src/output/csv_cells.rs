//! Lane rows written cell by cell into a reused buffer, byte for byte as the `csv` crate's
//! serde writer (its defaults) writes a [`LaneRow`]: RFC 4180 fields separated by `,`,
//! records ended by `\n`; a field is quoted when it holds `,`, `"`, `\r` or `\n`, with
//! `"` doubled inside; `None` is an empty field; floats as `ryu` formats them ([`super::float_cell`]),
//! integers as `itoa` does. The cells a sample's rows share are encoded once per sample.
//! A unit test holds the two writers to the same bytes.

use super::float_cell::{FloatText, MAX_LEN};
use super::lane_row::LaneRow;

/// The header record: the [`LaneRow`] field names, in order.
pub const COLUMNS: [&str; 24] = [
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
];

/// The float columns a row does not share with the other rows of its sample, for
/// [`CellWriter`]'s per-column cache.
const LANE_FLOATS: usize = 11;

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
    /// with the separators around them, in five runs: `time,t,interface,module_sn,`,
    /// `,module_temperature_c,`, `,uncorrectable_blocks_delta,link_down_events_delta,`,
    /// `,interval_s,` and `,host\n`; `shared_ends` are where the runs end.
    shared: Vec<u8>,
    shared_ends: [usize; 5],
}

impl CellWriter {
    /// A text field, quoted when it holds a delimiter, quote or line break (the csv
    /// crate's `QuoteStyle::Necessary` with its default `\n` terminator).
    fn text(out: &mut Vec<u8>, s: &str) {
        let b = s.as_bytes();
        if !b.iter().any(|c| matches!(c, b',' | b'"' | b'\r' | b'\n')) {
            out.extend_from_slice(b);
            return;
        }
        out.push(b'"');
        for part in b.split_inclusive(|c| *c == b'"') {
            out.extend_from_slice(part);
            if part.last() == Some(&b'"') {
                out.push(b'"');
            }
        }
        out.push(b'"');
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

    /// Lane float column `col`, through its cache.
    fn lane_float(&mut self, out: &mut Vec<u8>, col: usize, v: Option<f64>) {
        let Some(v) = v else { return };
        let last = &mut self.last[col];
        if last.bits != Some(v.to_bits()) {
            last.len = self.floats.write(v, &mut last.text);
            last.bits = Some(v.to_bits());
        }
        out.extend_from_slice(&last.text[..last.len]);
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
        out.push(b'\n');
        self.shared_ends[4] = out.len();
    }

    /// Shared run `k` (see [`CellWriter::shared`]).
    fn shared_run(&self, out: &mut Vec<u8>, k: usize) {
        let from = if k == 0 { 0 } else { self.shared_ends[k - 1] };
        out.extend_from_slice(&self.shared[from..self.shared_ends[k]]);
    }

    /// One record, the columns in [`COLUMNS`] order: `r`'s own cells with the shared
    /// ones of the last [`sample`](Self::sample).
    pub fn lane(&mut self, out: &mut Vec<u8>, r: &LaneRow) {
        self.shared_run(out, 0);
        Self::int(&mut self.itoa, out, r.lane.map(u64::from));
        for (i, v) in [r.rx_power_dbm, r.tx_power_dbm, r.tx_bias_ma].into_iter().enumerate() {
            out.push(b',');
            self.lane_float(out, i, v);
        }
        self.shared_run(out, 1);
        Self::int(&mut self.itoa, out, r.corrected_bits_delta);
        for (i, v) in [r.pre_fec_ber, r.margin_db].into_iter().enumerate() {
            out.push(b',');
            self.lane_float(out, 3 + i, v);
        }
        self.shared_run(out, 2);
        for (i, v) in [r.rx_power_mw, r.pre_fec_ber_upper, r.optical_margin_db].into_iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            self.lane_float(out, 5 + i, v);
        }
        self.shared_run(out, 3);
        Self::text(out, &r.flags);
        for (i, v) in [r.esnr_db, r.ltp_db, r.module_pre_fec_ber].into_iter().enumerate() {
            out.push(b',');
            self.lane_float(out, 8 + i, v);
        }
        out.push(b',');
        Self::opt_text(out, r.ber_source.as_ref().map(|b| b.as_str()));
        self.shared_run(out, 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::vdm_lanes::BerSource;

    /// What the csv crate's serde writer makes of `rows` (header first).
    fn by_csv_crate(rows: &[LaneRow]) -> Vec<u8> {
        let mut w = csv::Writer::from_writer(Vec::new());
        rows.iter().for_each(|r| w.serialize(r).unwrap());
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
            LaneRow { ber_source: Some(BerSource::Netlink), ..Default::default() },
        ];
        // Repeated and alternating values go through the per-column cache.
        let rows: Vec<LaneRow> = rows.iter().chain(rows.iter().rev()).chain(&rows).cloned().collect();
        assert_eq!(String::from_utf8(by_cells(&rows)).unwrap(), String::from_utf8(by_csv_crate(&rows)).unwrap());
    }
}
