//! [`InterfaceWindow`]s from capture records: the one path from samples (live or
//! replayed) to analysis.
//!
//! Per interface, over the samples with `from <= t <= to`:
//! - records are split into segments ([`super::delta::segments`]); the window uses the
//!   **last** segment, so every delta belongs to one module and one unbroken counter
//!   run. Earlier segments are named in `events`;
//! - time base = the samples' own timestamps: `duration_s` = last t - first t of the
//!   used samples (gaps and missed samples included; gaps are also named in `events`);
//! - identity and link come from the latest interface record at or before `to`;
//! - `module` = decode(static pages of the interface record in force + the last used
//!   sample's monitor pages); a decode failure fills `module_error` instead;
//! - `rx_power_dbm_mean`: per lane, the mean of the linear power (mW) over the used
//!   samples, then converted to dBm. Averaging dBm values would weight low readings
//!   more than the optical power they stand for;
//! - capture `error` / `interface_gone` events become sentences; `counter_reset` and
//!   `module_changed` events are re-derived from the data (the segments) instead.

use super::capture::{Capture, EventKind, InterfaceRecord, Record, SampleRecord};
use super::delta::{segments, sum_deltas};
use crate::analysis::InterfaceWindow;
use crate::counters::normalize;
use crate::module::units::mw_to_dbm;
use crate::module::{decode, ModuleImage, ModuleReport};
use std::collections::HashMap;

/// Seconds since capture start; `None` = open end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TimeRange {
    pub from: Option<f64>,
    pub to: Option<f64>,
}

impl TimeRange {
    pub fn whole() -> Self {
        Self::default()
    }
    pub fn contains(&self, t: f64) -> bool {
        self.from.is_none_or(|f| t >= f) && self.to.is_none_or(|e| t <= e)
    }
    fn before_end(&self, t: f64) -> bool {
        self.to.is_none_or(|e| t <= e)
    }
}

/// A gap longer than this many median sample intervals is reported.
const GAP_FACTOR: f64 = 2.5;

/// One window per interface of the capture, in order of first appearance.
pub fn windows(cap: &Capture, range: TimeRange) -> Vec<InterfaceWindow> {
    cap.interfaces().iter().map(|name| window(name, cap.records_for(name), range)).collect()
}

/// The module image of a sample: static pages of the interface record in force plus
/// the sample's monitor pages (sample bytes win).
pub fn module_image(ir: Option<&InterfaceRecord>, s: &SampleRecord) -> Result<ModuleImage, String> {
    let parts: Vec<_> = ir.and_then(|i| i.module.as_ref()).into_iter().chain(s.module.as_ref()).collect();
    if parts.is_empty() {
        return Err("no module data in the capture".into());
    }
    let mut img = ModuleImage::new();
    for p in parts {
        img.merge(&p.image().map_err(|e| format!("module pages in the capture are malformed: {e}"))?);
    }
    Ok(img)
}

fn decode_sample(ir: Option<&InterfaceRecord>, s: &SampleRecord) -> Result<ModuleReport, String> {
    // Imported tool output without EEPROM bytes carries the monitors as printed instead.
    if let (Some(p), None, None) = (&s.printed_module, ir.and_then(|i| i.module.as_ref()), &s.module) {
        return Ok(p.to_report());
    }
    let img = module_image(ir, s)?;
    decode(&img).map_err(|e| e.to_string())
}

/// Per lane (index 0 = lane 1): mean of the mW readings present, as dBm.
pub fn mean_rx_power_dbm(readings_mw: &[Vec<Option<f64>>]) -> Vec<Option<f64>> {
    let lanes = readings_mw.iter().map(Vec::len).max().unwrap_or(0);
    (0..lanes)
        .map(|i| {
            let vals: Vec<f64> = readings_mw.iter().filter_map(|r| r.get(i).copied().flatten()).collect();
            (!vals.is_empty()).then(|| mw_to_dbm(vals.iter().sum::<f64>() / vals.len() as f64))
        })
        .collect()
}

fn lane_rx_mw(m: &ModuleReport) -> Vec<Option<f64>> {
    let n = m.lanes.iter().map(|l| l.lane as usize).max().unwrap_or(0);
    let mut out = vec![None; n];
    for l in &m.lanes {
        if let Some(slot) = (l.lane as usize).checked_sub(1).and_then(|i| out.get_mut(i)) {
            *slot = l.rx_power_mw;
        }
    }
    out
}

/// One interface's window from its records (file order).
pub fn window<'a>(iface: &str, records: impl IntoIterator<Item = &'a Record>, range: TimeRange) -> InterfaceWindow {
    let mut w = InterfaceWindow { interface: iface.to_string(), ..Default::default() };
    // Records the window looks at: interface records up to `to` (the one in force may
    // predate `from`), samples and events inside the range.
    let mut used: Vec<&Record> = Vec::new();
    let mut in_force: Option<&InterfaceRecord> = None;
    let mut ir_of: HashMap<*const SampleRecord, Option<&InterfaceRecord>> = HashMap::new();
    // What the sampler said when a module read failed: a better reason than "no data".
    let mut module_read_error: Option<String> = None;
    for rec in records {
        match rec {
            Record::Interface(ir) if range.before_end(ir.t) => {
                in_force = Some(ir);
                used.push(rec);
            }
            Record::Sample(s) if range.contains(s.t) => {
                ir_of.insert(s as *const _, in_force);
                used.push(rec);
            }
            Record::Event(e) if range.contains(e.t) && matches!(e.kind, EventKind::Error | EventKind::InterfaceGone) => {
                if e.message.contains("module") {
                    module_read_error = Some(e.message.clone());
                }
                w.events.push(format!("t={} s: {}: {}", e.t, e.kind.as_str().replace('_', " "), e.message));
            }
            _ => {}
        }
    }
    if let Some(ir) = in_force {
        w.identity = ir.identity();
        w.link = ir.link.clone();
    } else {
        w.events.push("no interface record in the capture: identity and link unknown".into());
    }
    let segs = segments(used);
    let Some(last) = segs.last() else {
        w.events.push("no samples in the window".into());
        w.module_error = Some("no samples in the window".into());
        return w;
    };
    for seg in segs.iter().skip(1) {
        if let Some(b) = &seg.started_by {
            w.events.push(format!("t={} s: {}", b.t, b.reason));
        }
    }
    if segs.len() > 1 {
        let t0 = last.samples.first().map(|s| s.t).unwrap_or(0.0);
        w.events.push(format!("deltas use the last {} samples (from t={t0} s), after the last segment break", last.samples.len()));
    }
    let ir_for = |s: &SampleRecord| ir_of.get(&(s as *const _)).copied().flatten();

    let (first, end) = match (last.samples.first(), last.samples.last()) {
        (Some(f), Some(e)) => (*f, *e),
        _ => return w, // segments() never yields an empty segment
    };
    w.samples = last.samples.len();
    w.duration_s = end.t - first.t;
    w.link_up = end.link.up;
    w.link_ext_state = end.link.ext_state;
    w.counters_at_end = normalize(end.fec.as_ref(), Some(&end.link), &end.driver_stats);
    w.events.extend(end.time_base.iter().map(|tb| format!("time base: {tb}")));
    report_gaps(&last.samples, &mut w.events);

    let d = sum_deltas(&last.points);
    w.deltas = d.counters;
    w.histogram_delta = d.histogram;
    w.events.extend(d.wraps);

    match decode_sample(ir_for(end), end) {
        Ok(m) => w.module = Some(m),
        Err(e) => w.module_error = Some(module_read_error.unwrap_or(e)),
    }
    let readings: Vec<Vec<Option<f64>>> =
        last.samples.iter().filter_map(|s| decode_sample(ir_for(s), s).ok()).map(|m| lane_rx_mw(&m)).collect();
    w.rx_power_dbm_mean = mean_rx_power_dbm(&readings);
    w
}

/// Names intervals much longer than the median one (missed samples, a stalled reader).
fn report_gaps(samples: &[&SampleRecord], events: &mut Vec<String>) {
    let mut dts: Vec<f64> = samples.windows(2).map(|p| p[1].t - p[0].t).collect();
    if dts.len() < 2 {
        return;
    }
    let gaps: Vec<(f64, f64)> = samples.windows(2).map(|p| (p[0].t, p[1].t)).collect();
    dts.sort_by(|a, b| a.total_cmp(b));
    let median = dts[dts.len() / 2]; // len >= 2
    if median <= 0.0 {
        return;
    }
    for (a, b) in gaps {
        if b - a > GAP_FACTOR * median {
            events.push(format!(
                "gap of {:.3} s between samples at t={a} s and t={b} s (about {} samples missed)",
                b - a,
                ((b - a) / median).round() as u64 - 1
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rx_power_is_averaged_in_milliwatts() {
        // Lane 1: 1.0 mW and 0.1 mW -> mean 0.55 mW -> 10*log10(0.55) = -2.596 dBm
        // (the mean of 0 dBm and -10 dBm would wrongly be -5 dBm).
        // Lane 2: only one reading, 0.5 mW -> -3.0103 dBm. Lane 3: never read.
        let r = mean_rx_power_dbm(&[vec![Some(1.0), Some(0.5), None], vec![Some(0.1), None]]);
        assert_eq!(r.len(), 3);
        assert!((r[0].unwrap() - (-2.5964)).abs() < 1e-3);
        assert!((r[1].unwrap() - (-3.0103)).abs() < 1e-3);
        assert_eq!(r[2], None);
    }

    #[test]
    fn range_bounds_are_inclusive() {
        let r = TimeRange { from: Some(1.0), to: Some(2.0) };
        assert!(r.contains(1.0) && r.contains(2.0) && !r.contains(2.0001));
        assert!(TimeRange::whole().contains(1e9));
    }
}
