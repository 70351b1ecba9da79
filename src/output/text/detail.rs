//! One interface in full: verdict, the descent (PCIe, host, link/FEC, module), lanes, then
//! reasons, advice, events and notes as wrapped paragraphs. Every reason, note and event
//! the analysis produced is printed, so new codes appear without changes here.

use super::style::Tone;
use super::{ber_text, escape, field, lanes, num, verdict_word, wrap, TextOptions};
use crate::analysis::verdict::{join_codes, verdict_codes};
use crate::analysis::InterfaceAnalysis;
use std::io::{self, Write};

pub(crate) fn write_interface(w: &mut dyn Write, a: &InterfaceAnalysis, opts: &TextOptions) -> io::Result<()> {
    let width = opts.width();
    let paint = opts.painter();
    verdict_line(w, a, opts)?;
    let p = &a.pcie;
    if p.current_width.is_some() || p.ceiling_gbps.is_some() {
        let text = format!(
            "{} GT/s x{} (max {} GT/s x{}), ceiling {} Gb/s{}",
            num(p.current_speed_gts, 1),
            p.current_width.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
            num(p.max_speed_gts, 1),
            p.max_width.map(|v| v.to_string()).unwrap_or_else(|| "?".into()),
            num(p.ceiling_gbps, 1),
            if p.degraded { ", DEGRADED" } else { "" },
        );
        field(w, "pcie", &text, width)?;
    }
    if let (Some(_), Some(msg)) = (&p.group, &p.message) {
        field(w, "shared", msg, width)?;
    }
    if let Some(h) = &a.host {
        field(w, "host", &crate::output::host::host_line(h), width)?;
    }
    field(w, "link", &link_text(a), width)?;
    if let Some(k) = &a.kernel_log {
        field(w, "kernel", &kernel_text(k), width)?;
    }
    if let Some(n) = &a.neighbor {
        field(w, "neighbor", &n.shown(), width)?;
    }
    field(w, "window", &window_text(a), width)?;
    if opts.verbose && !a.link.counter_sources.is_empty() {
        let src: Vec<String> = a.link.counter_sources.iter().map(|(k, v)| format!("{k} from {v};")).collect();
        field(w, "counters", src.join(" ").trim_end_matches(';'), width)?;
    }
    match (&a.module, &a.module_error) {
        (Some(m), _) => {
            let name = [m.vendor_name.as_deref(), m.vendor_pn.as_deref()].into_iter().flatten().collect::<Vec<_>>().join(" ");
            let sn = m.vendor_sn.as_deref().map(|sn| format!(" SN {sn}")).unwrap_or_default();
            let temperature = m.module_temperature_c.map(|t| format!(", {t:.1} C")).unwrap_or_default();
            let name = if name.is_empty() { "unnamed".to_string() } else { name };
            let kind = [m.kind(a.link.speed_mbps), m.standard_name().to_string()];
            let kind = kind.into_iter().filter(|k| !k.is_empty()).collect::<Vec<_>>().join(", ");
            let text = format!("{name}{sn} ({kind}){temperature}");
            field(w, "module", &text, width)?;
        }
        (None, Some(e)) => field(w, "module", &format!("unreadable: {e}"), width)?,
        (None, None) => field(w, "module", "none", width)?,
    }
    lanes::write_table(w, a, opts)?;
    for r in &a.reasons {
        // Reject reasons red, investigate yellow, info plain.
        for l in wrapped("reason", &format!("{}: {}", r.code, r.message), width) {
            writeln!(w, "{}", paint.paint(&l, Tone::from(r.severity)))?;
        }
    }
    // Advice sentences name their lane; weakest lane first.
    for adv in a.lanes.iter().filter_map(|l| l.advice.as_deref()).chain(p.advice.as_deref()).chain(a.advice.iter().map(String::as_str)) {
        field(w, "advice", adv, width)?;
    }
    // One line per segment before the latest (a module swap or counter reset split the run).
    for line in crate::analysis::segments::earlier_summaries(&a.segments) {
        field(w, "segment", &line, width)?;
    }
    for e in &a.events {
        field(w, "event", e, width)?;
    }
    for n in &a.notes {
        field(w, "note", n, width)?;
    }
    Ok(())
}

/// The lines `field` would write, for colouring them whole.
fn wrapped(label: &str, text: &str, width: usize) -> Vec<String> {
    let mut buf = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = field(&mut buf, label, text, width);
    String::from_utf8_lossy(&buf).lines().map(str::to_string).collect()
}

fn verdict_line(w: &mut dyn Write, a: &InterfaceAnalysis, opts: &TextOptions) -> io::Result<()> {
    let paint = opts.painter();
    let name = escape(&a.interface);
    let word = verdict_word(a.verdict);
    let codes = join_codes(&verdict_codes(&a.reasons), ", ");
    let head = format!("{name}  {word}");
    let indent = wrap::cols(&head) + 2;
    let rest = if indent + 20 <= opts.width() { wrap::wrap(&codes, opts.width() - indent) } else { Vec::new() };
    let coloured = head.replacen(word, &paint.bold(word, Tone::from(a.verdict)), 1);
    match rest.first().filter(|s| !s.is_empty()) {
        Some(first) => writeln!(w, "{coloured}  {first}")?,
        None => writeln!(w, "{coloured}")?,
    }
    for l in rest.iter().skip(1) {
        writeln!(w, "{:indent$}{l}", "")?;
    }
    Ok(())
}

/// The link as far as it is known: an unknown fact leaves its phrase out.
fn link_text(a: &InterfaceAnalysis) -> String {
    let l = &a.link;
    let up = match l.up {
        Some(true) => Some("up"),
        Some(false) => Some("DOWN"),
        None => None,
    };
    let mode = match (&l.link_mode, l.speed_mbps) {
        (Some(m), _) => Some(m.clone()),
        (None, Some(s)) => Some(format!("{s} Mb/s")),
        (None, None) => None,
    };
    let ext = l.ext_state.map(|s| format!(" ({s})")).unwrap_or_default();
    let head = match (mode, up) {
        (Some(m), Some(u)) => format!("{m} {u}{ext}"),
        (Some(m), None) => format!("{m}{ext}"),
        (None, Some(u)) => format!("{u}{ext}"),
        (None, None) => format!("speed and state not reported{ext}"),
    };
    let lanes = match (l.lanes, l.lane_rate_gbps) {
        (Some(n), Some(r)) => format!(", {n} lane{} x {r:.3} Gb/s", if n == 1 { "" } else { "s" }),
        (Some(n), None) => format!(", {n} lane{}", if n == 1 { "" } else { "s" }),
        _ => String::new(),
    };
    let modulation = l.modulation.map(|m| format!(" {m:?}").to_uppercase()).unwrap_or_default();
    let limit = l.fec_limit_ber.map(|b| format!(" (limit {b:.1e})")).unwrap_or_default();
    let fec = l.fec.map(|f| format!(", FEC {}{limit}", f.name())).unwrap_or_else(|| ", FEC not reported".into());
    format!("{head}{lanes}{modulation}{fec}")
}

/// What the kernel log said, in one line: the driver, the link's ups and downs and the
/// latest, the reason for a down link, the PCIe bandwidth line, AER's counts.
fn kernel_text(k: &crate::analysis::kernel_log::KernelLogAnalysis) -> String {
    use crate::device::kernel_log::KernelEvent;
    let mut parts = Vec::new();
    let latest = k.messages.iter().rev().find_map(|m| match &m.event {
        KernelEvent::LinkUp { speed_mbps, fec } => {
            let speed = speed_mbps.map(|s| format!(" {s} Mb/s")).unwrap_or_default();
            let fec = fec.as_deref().map(|f| format!(" {f}")).unwrap_or_default();
            Some(format!("last up{speed}{fec} at {}", m.at))
        }
        KernelEvent::LinkDown => Some(format!("last down at {}", m.at)),
        _ => None,
    });
    if k.link_ups + k.link_downs > 0 {
        parts.push(format!("link up {}x, down {}x{}", k.link_ups, k.link_downs, latest.map(|l| format!(" ({l})")).unwrap_or_default()));
    }
    if let Some(m) = &k.down_reason {
        parts.push(format!("\"{}\" at {}", m.text, m.at));
    }
    if let Some(b) = &k.pcie_bandwidth {
        let gbps = |mbps: u64| format!("{}.{:03}", mbps / 1000, mbps % 1000);
        let at = b.limited_at.as_deref().map(|a| format!(" limited at {a}")).unwrap_or_default();
        parts.push(format!(
            "PCIe {} of {} Gb/s ({} x{}{at}; capable {} x{})",
            gbps(b.available_mbps),
            gbps(b.capable_mbps),
            b.speed,
            b.width,
            b.capable_speed,
            b.capable_width
        ));
    }
    if let Some(a) = &k.aer {
        parts.push(format!(
            "AER {} corrected ({} receiver, {} data link), {} non-fatal, {} fatal",
            a.corrected,
            a.physical_layer(),
            a.data_link_layer(),
            a.nonfatal,
            a.fatal
        ));
    }
    let driver = k.driver.as_deref().map(|d| format!("{d}: ")).unwrap_or_default();
    match parts.is_empty() {
        true => format!("{driver}nothing about the link"),
        false => format!("{driver}{}", parts.join("; ")),
    }
}

fn window_text(a: &InterfaceAnalysis) -> String {
    let l = &a.link;
    let counts: Vec<String> = [("link-down events", l.link_down_events), ("uncorrectable blocks", l.uncorrectable_blocks)]
        .into_iter()
        .filter_map(|(name, v)| v.map(|v| format!("{name} {v}")))
        .chain(
            (l.pre_fec_ber.is_some() || (l.corrected_bits == Some(0) && l.pre_fec_ber_upper.is_some()))
                .then(|| format!("port pre-FEC BER {}", ber_text(l.corrected_bits, l.pre_fec_ber, l.pre_fec_ber_upper))),
        )
        .chain(l.counter_spans.iter().map(|s| s.to_string()))
        .collect();
    let head = format!("{:.1} s, {} sample{}", l.duration_s, l.samples, if l.samples == 1 { "" } else { "s" });
    if counts.is_empty() {
        head
    } else {
        format!("{head}; {}", counts.join(", "))
    }
}
