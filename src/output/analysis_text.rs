//! The readable forms of `scan`/`watch` results and of `compare`.

use super::module_text::fmt_dbm;
use crate::analysis::compare::Comparison;
use crate::analysis::verdict::Verdict;
use crate::analysis::InterfaceAnalysis;
use std::io::{self, Write};

fn verdict_word(v: Verdict) -> &'static str {
    match v {
        Verdict::Accept => "ACCEPT",
        Verdict::Investigate => "INVESTIGATE",
        Verdict::Reject => "REJECT",
    }
}

fn num(v: Option<f64>, decimals: usize) -> String {
    match v {
        Some(x) if x.is_finite() => format!("{x:.decimals$}"),
        Some(x) if x == f64::NEG_INFINITY => "-inf".into(),
        _ => "n/a".into(),
    }
}

fn sci(v: Option<f64>) -> String {
    v.filter(|x| x.is_finite()).map(|x| format!("{x:.2e}")).unwrap_or_else(|| "n/a".into())
}

/// One block per interface: verdict line, link/PCIe/module summary, lanes weakest first,
/// reasons and advice.
pub fn write_scan(w: &mut dyn Write, analyses: &[InterfaceAnalysis]) -> io::Result<()> {
    for (i, a) in analyses.iter().enumerate() {
        if i > 0 {
            writeln!(w)?;
        }
        write_interface(w, a)?;
    }
    Ok(())
}

fn write_interface(w: &mut dyn Write, a: &InterfaceAnalysis) -> io::Result<()> {
    let l = &a.link;
    writeln!(w, "{}  {}", a.interface, verdict_word(a.verdict))?;
    let up = match l.up {
        Some(true) => "up",
        Some(false) => "DOWN",
        None => "state unknown",
    };
    let mode = match (&l.link_mode, l.speed_mbps) {
        (Some(m), _) => m.clone(),
        (None, Some(s)) => format!("{s} Mb/s"),
        (None, None) => "(speed unknown)".into(),
    };
    writeln!(
        w,
        "  link     {} {}, {} lane(s) x {} Gb/s{}, FEC {}{}",
        mode,
        up,
        l.lanes.map(|n| n.to_string()).unwrap_or_else(|| "?".into()),
        num(l.lane_rate_gbps, 3),
        l.modulation.map(|m| format!(" {m:?}").to_uppercase()).unwrap_or_default(),
        l.fec.map(|f| f.name()).unwrap_or("unknown"),
        l.fec_limit_ber.map(|b| format!(" (limit {b:.1e})")).unwrap_or_default(),
    )?;
    writeln!(
        w,
        "  window   {:.1} s, {} samples; link-down events {}, uncorrectable blocks {}, port pre-FEC BER {}",
        l.duration_s,
        l.samples,
        l.link_down_events.map(|v| v.to_string()).unwrap_or_else(|| "n/a".into()),
        l.uncorrectable_blocks.map(|v| v.to_string()).unwrap_or_else(|| "n/a".into()),
        sci(l.pre_fec_ber),
    )?;
    if !l.counter_sources.is_empty() {
        let src: Vec<String> = l.counter_sources.iter().map(|(k, v)| format!("{k} from {v}")).collect();
        writeln!(w, "  counters {}", src.join(", "))?;
    }
    let p = &a.pcie;
    if p.current_width.is_some() || p.ceiling_gbps.is_some() {
        writeln!(
            w,
            "  pcie     {} GT/s x{} (max {} GT/s x{}), ceiling {} Gb/s{}",
            num(p.current_speed_gts, 1),
            p.current_width.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
            num(p.max_speed_gts, 1),
            p.max_width.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
            num(p.ceiling_gbps, 1),
            if p.degraded { "  DEGRADED" } else { "" },
        )?;
    }
    if let (Some(_), Some(msg)) = (&p.group, &p.message) {
        writeln!(w, "  shared   {msg}")?;
    }
    match (&a.module, &a.module_error) {
        (Some(m), _) => writeln!(
            w,
            "  module   {} {} SN {} ({}, {}), {} C",
            m.vendor_name.as_deref().unwrap_or("?"),
            m.vendor_pn.as_deref().unwrap_or("?"),
            m.vendor_sn.as_deref().unwrap_or("?"),
            m.standard.as_str(),
            m.media_type.as_deref().unwrap_or("media unknown"),
            num(m.module_temperature_c, 1),
        )?,
        (None, Some(e)) => writeln!(w, "  module   unreadable: {e}")?,
        (None, None) => writeln!(w, "  module   none")?,
    }
    if !a.lanes.is_empty() {
        writeln!(
            w,
            "  {:<4} {:<4} {:>8} {:>8} {:>7} {:>10} {:>10} {:>9} {:>10}  flags",
            "rank", "lane", "rx dBm", "tx dBm", "bias mA", "corr bits", "pre-FEC BER", "margin dB", "optical dB"
        )?;
        for lane in &a.lanes {
            let ber = match (lane.corrected_bits, lane.pre_fec_ber_upper) {
                (Some(0), Some(u)) => format!("<{u:.2e}"),
                _ => sci(lane.pre_fec_ber),
            };
            let margin = match lane.margin_db {
                Some(m) if lane.margin_is_lower_bound => format!(">{m:.2}"),
                other => num(other, 2),
            };
            writeln!(
                w,
                "  {:<4} {:<4} {:>8} {:>8} {:>7} {:>10} {:>11} {:>9} {:>10}  {}",
                lane.rank,
                lane.lane,
                fmt_dbm(lane.rx_power_dbm).trim_end_matches(" dBm"),
                fmt_dbm(lane.tx_power_dbm).trim_end_matches(" dBm"),
                num(lane.tx_bias_ma, 2),
                lane.corrected_bits.map(|v| v.to_string()).unwrap_or_else(|| "n/a".into()),
                ber,
                margin,
                num(lane.optical_margin_db, 2),
                lane.flags.join(","),
            )?;
        }
    }
    for r in &a.reasons {
        writeln!(w, "  reason   {}: {}", r.code, r.message)?;
    }
    // Advice sentences name their lane; weakest lane first.
    for lane in a.lanes.iter().filter(|l| l.advice.is_some()) {
        writeln!(w, "  advice   {}", lane.advice.as_deref().unwrap_or_default())?;
    }
    if let Some(adv) = &p.advice {
        writeln!(w, "  advice   {adv}")?;
    }
    write_earlier_segments(w, a)?;
    for e in &a.events {
        writeln!(w, "  event    {e}")?;
    }
    for n in &a.notes {
        writeln!(w, "  note     {n}")?;
    }
    Ok(())
}

/// One line per segment before the latest (a module swap or counter reset split the run).
fn write_earlier_segments(w: &mut dyn Write, a: &InterfaceAnalysis) -> io::Result<()> {
    for line in crate::analysis::segments::earlier_summaries(&a.segments) {
        writeln!(w, "  segment  {line}")?;
    }
    Ok(())
}

pub fn write_comparisons(w: &mut dyn Write, comparisons: &[Comparison]) -> io::Result<()> {
    for c in comparisons {
        writeln!(w, "{}", c.interface)?;
        for l in &c.lanes {
            writeln!(w, "  {}", l.summary)?;
        }
    }
    Ok(())
}
