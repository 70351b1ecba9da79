//! CSV of lane rows: one row per (sample, interface, lane), RFC 4180 with a header row,
//! written as records arrive (`watch --csv`) or from a capture (`export --csv`): both feed
//! the same [`CsvSink`]. Each row's deltas, BER and margin come from the same window
//! analysis as `scan`, over the interval since the interface's previous sample.
//! Columns are documented in docs/csv-format.md; empty cells mean "not available".

use crate::analysis::{analyze, config::Config};
use crate::sample::capture::{round_t, Record};
use crate::sample::window::{window, TimeRange};
use crate::sample::RecordSink;
use serde::Serialize;
use std::collections::HashMap;
use std::io::{self, Write};
use time::format_description::well_known::Rfc3339;
use time::OffsetDateTime;

/// One CSV row. Field order is the column order; the first fourteen columns are a contract.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct LaneRow {
    /// Wall-clock time of the sample (RFC 3339, UTC): capture start + `t`.
    pub time: Option<String>,
    /// Seconds since capture start.
    pub t: f64,
    pub interface: String,
    pub module_sn: Option<String>,
    /// 1-based lane; empty when neither the module nor the counters give lanes.
    pub lane: Option<u8>,
    pub rx_power_dbm: Option<f64>,
    pub tx_power_dbm: Option<f64>,
    pub tx_bias_ma: Option<f64>,
    pub module_temperature_c: Option<f64>,
    /// Corrected bits on this lane since the interface's previous sample.
    pub corrected_bits_delta: Option<u64>,
    pub pre_fec_ber: Option<f64>,
    pub margin_db: Option<f64>,
    /// Port-level increases since the previous sample (same on every lane row).
    pub uncorrectable_blocks_delta: Option<u64>,
    pub link_down_events_delta: Option<u64>,
    pub rx_power_mw: Option<f64>,
    pub pre_fec_ber_upper: Option<f64>,
    pub optical_margin_db: Option<f64>,
    pub interval_s: Option<f64>,
    pub flags: String,
    /// The module's media-side VDM figures, and which measurement `pre_fec_ber` is
    /// (`driver`, `netlink`, `vdm`; empty = none).
    pub esnr_db: Option<f64>,
    pub ltp_db: Option<f64>,
    pub module_pre_fec_ber: Option<f64>,
    pub ber_source: Option<crate::analysis::vdm_lanes::BerSource>,
}

#[derive(Default)]
struct IfaceState {
    interface: Option<Record>,
    previous: Option<Record>,
}

/// A [`RecordSink`] that turns sample records into lane rows, flushed per sample.
pub struct CsvSink<W: Write> {
    out: csv::Writer<W>,
    created: Option<OffsetDateTime>,
    cfg: Config,
    state: HashMap<String, IfaceState>,
}

impl<W: Write> CsvSink<W> {
    /// `created` is the capture start (RFC 3339), if known before the header record arrives.
    pub fn new(out: W, created: Option<&str>, cfg: Config) -> Self {
        CsvSink {
            out: csv::Writer::from_writer(out),
            created: created.and_then(|c| OffsetDateTime::parse(c, &Rfc3339).ok()),
            cfg,
            state: HashMap::new(),
        }
    }

    fn rows(&self, st: &IfaceState, rec: &Record) -> Vec<LaneRow> {
        let Record::Sample(s) = rec else { return Vec::new() };
        let records: Vec<&Record> = st.interface.iter().chain(st.previous.iter()).chain(std::iter::once(rec)).collect();
        let w = window(&s.interface, records, TimeRange::whole());
        let has_interval = w.samples >= 2;
        let analysis = analyze(std::slice::from_ref(&w), &self.cfg, &[]);
        let Some(a) = analysis.into_iter().next() else { return Vec::new() };
        // Checked: a capture's `t` is untrusted (1e300 or a start near year 9999 would
        // overflow `Duration` or the date); such a row gets an empty `time` cell.
        let time =
            self.created.and_then(|c| c.checked_add(time::Duration::checked_seconds_f64(s.t)?)).and_then(|at| at.format(&Rfc3339).ok());
        let module = w.module.as_ref();
        let port = |v: Option<u64>| v.filter(|_| has_interval);
        let base = LaneRow {
            time,
            t: s.t,
            interface: s.interface.clone(),
            module_sn: module.and_then(|m| m.vendor_sn.clone()),
            module_temperature_c: module.and_then(|m| m.module_temperature_c),
            uncorrectable_blocks_delta: port(a.link.uncorrectable_blocks),
            link_down_events_delta: port(a.link.link_down_events),
            interval_s: has_interval.then_some(round_t(w.duration_s)),
            ..Default::default()
        };
        if a.lanes.is_empty() {
            return vec![base];
        }
        let mut lanes = a.lanes;
        lanes.sort_by_key(|l| l.lane);
        lanes
            .into_iter()
            .map(|l| {
                // This sample's own DOM reading, not the window mean; on a breakout the
                // netdev lane's module lane (docs/breakout.md).
                let module_lane = l.module_lane.unwrap_or(l.lane);
                let dom = module.and_then(|m| m.lanes.iter().find(|x| x.lane == module_lane));
                LaneRow {
                    lane: Some(l.lane),
                    rx_power_dbm: dom.and_then(|d| d.rx_power_dbm),
                    rx_power_mw: dom.and_then(|d| d.rx_power_mw),
                    tx_power_dbm: dom.and_then(|d| d.tx_power_dbm),
                    tx_bias_ma: dom.and_then(|d| d.tx_bias_ma),
                    corrected_bits_delta: l.corrected_bits.filter(|_| has_interval),
                    pre_fec_ber: l.pre_fec_ber.filter(|_| has_interval),
                    pre_fec_ber_upper: l.pre_fec_ber_upper.filter(|_| has_interval),
                    margin_db: l.margin_db.filter(|_| has_interval),
                    optical_margin_db: l.optical_margin_db,
                    flags: l.flags.join(";"),
                    esnr_db: l.esnr_db,
                    ltp_db: l.ltp_db,
                    module_pre_fec_ber: l.module_pre_fec_ber,
                    ber_source: l.ber_source,
                    ..base.clone()
                }
            })
            .collect()
    }
}

impl<W: Write> RecordSink for CsvSink<W> {
    fn record(&mut self, rec: &Record) -> io::Result<()> {
        match rec {
            Record::Header(h) => {
                self.created = OffsetDateTime::parse(&h.created, &Rfc3339).ok().or(self.created);
            }
            Record::Interface(i) => {
                // A new interface record means the module or link changed: deltas across
                // it would mix two modules, so the next sample starts afresh.
                self.state.insert(i.interface.clone(), IfaceState { interface: Some(rec.clone()), previous: None });
            }
            Record::Sample(s) => {
                let st = self.state.remove(&s.interface).unwrap_or_default();
                let rows = self.rows(&st, rec);
                for row in &rows {
                    self.out.serialize(row).map_err(io::Error::other)?;
                }
                self.out.flush()?;
                self.state.insert(s.interface.clone(), IfaceState { interface: st.interface, previous: Some(rec.clone()) });
            }
            Record::Event(_) => {}
        }
        Ok(())
    }
}
