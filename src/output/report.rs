//! `optics report`: Markdown evidence for a ticket or a vendor letter. Plain prose and
//! tables; every number comes from the capture (its header, interface records and the
//! window analysis), and each section says where.

use crate::analysis::config::Config;
use crate::analysis::fec::LimitSource;
use crate::analysis::verdict::join_codes;
use crate::analysis::{link_loss, BerDenominator, InterfaceAnalysis, Severity, Verdict};
use crate::capture::Header;
use crate::counters::serdes::SerdesEyeLane;
use crate::device::DeviceIdentity;
use crate::module::threshold::ThresholdSet;
use crate::output::text::{escape, num, sci, verdict_word};
use std::io::{self, Write};

/// What one interface's evidence is built from.
pub struct Evidence<'a> {
    /// The capture's name as the report cites it (and in the command that replays it).
    pub capture: &'a str,
    /// The capture's header: host, tool version, when it was recorded.
    pub header: &'a Header,
    /// The interface's analysis of the capture.
    pub analysis: &'a InterfaceAnalysis,
    /// The NIC, PCI and port identity behind the interface.
    pub identity: &'a DeviceIdentity,
    /// The configuration the analysis judged with (FEC limits, margin floor).
    pub cfg: &'a Config,
    /// The far end, analysed from its own capture.
    pub peer: Option<(&'a str, &'a InterfaceAnalysis)>,
    /// (caption, path as embedded) of plots written beside the report.
    pub plots: Vec<(String, String)>,
}

/// Markdown text from a capture or the system (names, module strings, messages): control
/// characters escaped ([`escape`]); `<`, `>` and `&` as entities, so a name is never raw
/// HTML or an autolink (CommonMark 0.31 6.6, 6.5); `|` so it never splits a table cell
/// (GFM 4.10); `[`, `]`, `` ` `` and `\\` backslash-escaped (CommonMark 2.4), so a name is
/// never a link, a code span, or an escape of the character after it.
fn md(s: &str) -> String {
    let s = escape(s);
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '[' | ']' | '`' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// A code span of text from a capture or the system (a path, a tool, a profile name): its
/// content is shown as is (no entity or escape is decoded inside one, CommonMark 6.1), so
/// only control characters are escaped, and the fence is one backtick longer than the
/// longest run in the text, with a space either side when it starts or ends with one.
fn code(s: &str) -> String {
    let s = escape(s);
    let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') { " " } else { "" };
    format!("{fence}{pad}{s}{pad}{fence}")
}

/// The analysis's own sentences (reasons, advice, notes): they quote commands and keys in
/// backticks, which stay code spans; the text between them (names from the capture among it)
/// goes through [`md`]. Unpaired backticks leave the whole sentence to [`md`].
fn prose(s: &str) -> String {
    if !s.matches('`').count().is_multiple_of(2) {
        return md(s);
    }
    s.split('`').enumerate().map(|(i, part)| if i % 2 == 0 { md(part) } else { code(part) }).collect()
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_else(|| "not reported".into())
}

fn mw_dbm(mw: f64) -> String {
    if mw > 0.0 {
        format!("{:.2} dBm", 10.0 * mw.log10())
    } else {
        "-inf dBm".into()
    }
}

/// Writes the Markdown evidence report of `items` (one section per interface, the first one's capture in the heading).
pub fn write_report(w: &mut dyn Write, items: &[Evidence]) -> io::Result<()> {
    let Some(first) = items.first() else { return Ok(()) };
    let h = first.header;
    writeln!(w, "# Link evidence: {}", md(h.host.as_deref().unwrap_or("unknown host")))?;
    writeln!(w)?;
    let verdicts: Vec<String> =
        items.iter().map(|i| format!("{} {}", md(&i.analysis.interface), verdict_word(i.analysis.verdict))).collect();
    writeln!(w, "Verdicts: {}.", verdicts.join(", "))?;
    writeln!(w)?;
    writeln!(
        w,
        "Measured by {} from the capture {} (created {}). Every figure below is read or computed from that file; \
         {} reproduces it.",
        code(h.tool.as_deref().unwrap_or("optics")),
        code(first.capture),
        md(&h.created),
        code(&format!("optics scan --replay {}", first.capture)),
    )?;
    for it in items {
        writeln!(w)?;
        write_interface(w, it)?;
    }
    Ok(())
}

fn write_interface(w: &mut dyn Write, it: &Evidence) -> io::Result<()> {
    let a = it.analysis;
    let l = &a.link;
    let h = it.header;
    writeln!(w, "## {}: {}", md(&a.interface), verdict_word(a.verdict))?;
    writeln!(w)?;
    writeln!(w, "### Node")?;
    writeln!(w)?;
    writeln!(w, "- Host: {} (capture header)", md(&opt(h.host.as_deref())))?;
    writeln!(w, "- Kernel: {} (capture header)", md(&opt(h.kernel.as_deref())))?;
    let host = it.identity.host.as_ref();
    let firmware = match host.and_then(|h| h.firmware_version.as_ref()) {
        Some(fw) => format!("firmware version: {}", md(&fw.value)),
        // A capture from before host facts were recorded, or a driver that reports none.
        None if host.is_some() => "firmware version: the driver reports none".to_string(),
        None => "firmware version: not recorded in the capture".to_string(),
    };
    writeln!(w, "- NIC driver: {}; {firmware}", md(&opt(it.identity.driver.as_deref())))?;
    writeln!(w, "- PCI address: {}", md(&opt(it.identity.bus_info.as_deref())))?;
    let p = &a.pcie;
    match (p.current_speed_gts, p.current_width) {
        (Some(s), Some(wd)) => writeln!(
            w,
            "- PCIe link: trained at {s:.1} GT/s x{wd} (the card supports {} GT/s x{}); usable ceiling {} Gb/s \
             (GT/s x width x line code x {} protocol efficiency){}",
            num(p.max_speed_gts, 1),
            opt(p.max_width),
            num(p.ceiling_gbps, 1),
            it.cfg.pcie_efficiency,
            p.port_speed_gbps.map(|g| format!(" for a {g:.0} Gb/s port")).unwrap_or_default(),
        )?,
        _ => writeln!(w, "- PCIe link: not reported (no sysfs PCIe attributes in the capture)")?,
    }
    if let Some(msg) = &p.message {
        writeln!(w, "- PCIe note: {}", md(msg))?;
    }
    if let Some(h) = &a.host {
        writeln!(w, "- Host beneath the link: {}", md(&crate::output::host::host_line(h)))?;
    }
    if let Some(n) = &a.neighbor {
        writeln!(w, "- Cabled to: {} (LLDP neighbor table)", md(&n.shown()))?;
    }
    writeln!(w)?;
    writeln!(w, "### Module")?;
    writeln!(w)?;
    match (&a.module, &a.module_error) {
        (Some(m), _) => {
            writeln!(
                w,
                "- Vendor: {}; part number: {}; revision: {}",
                md(&opt(m.vendor_name.as_deref())),
                md(&opt(m.vendor_pn.as_deref())),
                md(&opt(m.vendor_rev.as_deref()))
            )?;
            writeln!(w, "- Serial number: {}; date code: {}", md(&opt(m.vendor_sn.as_deref())), md(&opt(m.date_code.as_deref())))?;
            let kind = match m.kind(l.speed_mbps) {
                k if k.is_empty() => m.standard_name().to_string(),
                k => format!("{} ({})", md(&k), m.standard_name()),
            };
            writeln!(w, "- Module: {kind}; media: {}", md(&opt(m.media_type.as_deref())))?;
            if let Some(t) = m.module_temperature_c {
                writeln!(w, "- Temperature at the last sample: {t:.1} C")?;
            }
        }
        (None, Some(err)) => writeln!(w, "- The module could not be read: {}", md(err))?,
        (None, None) => writeln!(w, "- No module data in the capture.")?,
    }
    writeln!(w)?;
    writeln!(w, "### What was measured")?;
    writeln!(w)?;
    // Only what is known: an unknown fact leaves its phrase out.
    let mut link: Vec<String> = Vec::new();
    let state = match l.up {
        Some(true) => Some("up"),
        Some(false) => Some("down"),
        None => None,
    };
    match (l.link_mode.as_deref(), state) {
        (Some(m), Some(s)) => link.push(format!("{} {s}", md(m))),
        (Some(m), None) => link.push(md(m)),
        (None, Some(s)) => link.push(s.to_string()),
        (None, None) => link.push("speed and state not reported".into()),
    }
    match (l.lanes, l.lane_rate_gbps) {
        (Some(n), Some(r)) => link.push(format!("{n} lanes x {r:.3} Gb/s")),
        (Some(n), None) => link.push(format!("{n} lanes")),
        _ => {}
    }
    link.push(match (l.fec, l.fec_limit_ber) {
        (Some(f), Some(b)) => {
            format!(
                "FEC {} (pre-FEC BER limit {}, {})",
                f.name(),
                sci(Some(b)),
                l.fec_limit_source.map_or("no clause", LimitSource::citation)
            )
        }
        (Some(f), None) => format!("FEC {}", f.name()),
        (None, _) => "FEC not reported".into(),
    });
    writeln!(
        w,
        "Link {}. Window: {:.1} s between the first and last of {} samples; BER denominator: {}.",
        link.join(", "),
        l.duration_s,
        l.samples,
        match l.ber_denominator {
            Some(BerDenominator::RxBits) => "the driver's received-bit counter",
            _ => "lane rate x window",
        },
    )?;
    if !l.counter_spans.is_empty() {
        let spans: Vec<String> = l.counter_spans.iter().map(|s| md(&s.to_string())).collect();
        writeln!(w, "Counters read over part of the window only: {}.", spans.join("; "))?;
    }
    writeln!(w)?;
    if !l.counter_sources.is_empty() {
        let src: Vec<String> = l.counter_sources.iter().map(|(k, v)| format!("`{k}` from {}", md(v))).collect();
        writeln!(w, "Counters used: {}.", src.join(", "))?;
        writeln!(w)?;
    }
    let pct = (2.0 * it.cfg.confidence - 1.0) * 100.0;
    if !a.lanes.is_empty() {
        writeln!(w, "| lane | rx dBm (window mean) | tx dBm | bias mA | corrected bits | pre-FEC BER | {pct:.0}% interval | margin dB | optical margin dB | flags |")?;
        writeln!(w, "|---:|---:|---:|---:|---:|---:|---|---:|---:|---|")?;
        let mut lanes: Vec<_> = a.lanes.iter().collect();
        lanes.sort_by_key(|x| x.lane);
        for x in lanes {
            let ber = if x.corrected_bits == Some(0) { format!("0 (< {})", sci(x.pre_fec_ber_upper)) } else { sci(x.pre_fec_ber) };
            let interval = match (x.pre_fec_ber_lower, x.pre_fec_ber_upper) {
                (Some(lo), Some(hi)) => format!("{} .. {}", sci(Some(lo)), sci(Some(hi))),
                _ => "n/a".into(),
            };
            let margin = match x.margin_db {
                Some(m) if x.margin_is_lower_bound => format!("> {m:.2}"),
                m => num(m, 2),
            };
            writeln!(
                w,
                "| {} | {} | {} | {} | {} | {ber} | {interval} | {margin} | {} | {} |",
                x.lane,
                num(x.rx_power_dbm, 2),
                num(x.tx_power_dbm, 2),
                num(x.tx_bias_ma, 2),
                opt(x.corrected_bits),
                num(x.optical_margin_db, 2),
                join_codes(&x.flags, ", "),
            )?;
        }
        writeln!(w)?;
    }
    write_serdes_eye(w, a)?;
    writeln!(
        w,
        "Port: {} corrected bits, pre-FEC BER {}, {} uncorrectable blocks, {} link-down events in the window.",
        opt(l.corrected_bits),
        sci(l.pre_fec_ber),
        opt(l.uncorrectable_blocks),
        opt(l.link_down_events)
    )?;
    if let Some(fit) = &a.rx_ber_fit {
        writeln!(w)?;
        writeln!(
            w,
            "BER against rx power across {} lanes: {:.2} decades per dB (r = {:.2}){}.",
            fit.lanes,
            fit.slope_decades_per_db,
            fit.r,
            if fit.pam4_signature { ", the PAM4 signature: the errors follow the light" } else { "" }
        )?;
    }
    write_expected(w, it)?;
    write_ruled_out(w, a)?;
    if let Some((cap, peer)) = it.peer {
        writeln!(w)?;
        writeln!(w, "### Far end")?;
        writeln!(w)?;
        writeln!(w, "From {}, interface {} ({}):", code(cap), md(&peer.interface), verdict_word(peer.verdict))?;
        writeln!(w)?;
        let mut lanes: Vec<_> = peer.lanes.iter().collect();
        lanes.sort_by_key(|x| x.lane);
        for x in lanes {
            writeln!(w, "- lane {}: tx {} dBm, bias {} mA", x.lane, num(x.tx_power_dbm, 2), num(x.tx_bias_ma, 2))?;
        }
        write_link_loss(w, a)?;
    }
    if !it.plots.is_empty() {
        writeln!(w)?;
        writeln!(w, "### Plots")?;
        for (caption, path) in &it.plots {
            writeln!(w)?;
            writeln!(w, "![{}]({})", md(caption), path.replace(' ', "%20"))?;
        }
    }
    writeln!(w)?;
    writeln!(w, "### Conclusion")?;
    writeln!(w)?;
    match a.verdict {
        Verdict::Accept => writeln!(w, "ACCEPT: nothing above measures outside what the link, the FEC and the module specify.")?,
        v => writeln!(w, "{}:", verdict_word(v))?,
    }
    let reasons: Vec<_> = a.reasons.iter().filter(|r| r.severity > Severity::Info).collect();
    if !reasons.is_empty() {
        writeln!(w)?;
    }
    for r in reasons {
        writeln!(w, "- `{}`: {}", r.code, prose(&r.message))?;
    }
    let advice: Vec<&str> =
        a.lanes.iter().filter_map(|x| x.advice.as_deref()).chain(p.advice.as_deref()).chain(a.advice.iter().map(String::as_str)).collect();
    if !advice.is_empty() {
        writeln!(w)?;
        writeln!(w, "Advice:")?;
        writeln!(w)?;
        for adv in advice {
            writeln!(w, "- {}", prose(adv))?;
        }
    }
    let notes: Vec<&String> = a.notes.iter().chain(&a.events).collect();
    if !notes.is_empty() {
        writeln!(w)?;
        writeln!(w, "Notes from the analysis:")?;
        writeln!(w)?;
        for n in notes {
            writeln!(w, "- {}", prose(n))?;
        }
    }
    Ok(())
}

/// The host NIC's receiver eye per lane, as the tool printed it: host-side evidence beside
/// the lanes' light and errors. Only the figures printed for some lane get a column.
fn write_serdes_eye(w: &mut dyn Write, a: &InterfaceAnalysis) -> io::Result<()> {
    type Figure = fn(&SerdesEyeLane) -> Option<f64>;
    const FIGURES: [(&str, Figure); 8] = [
        ("physical grade", |e| e.grade),
        ("eye height mV", |e| e.eye_height_mv),
        ("eye width ps", |e| e.eye_width_ps),
        ("initial FOM", |e| e.initial_fom),
        ("last FOM", |e| e.last_fom),
        ("upper grade", |e| e.upper_grade),
        ("mid grade", |e| e.mid_grade),
        ("lower grade", |e| e.lower_grade),
    ];
    let Some(eye) = &a.serdes_eye else { return Ok(()) };
    let shown: Vec<_> = FIGURES.iter().filter(|(_, f)| eye.lanes.iter().any(|l| f(l).is_some())).collect();
    if shown.is_empty() {
        return Ok(());
    }
    let mode = eye.fom_mode.as_deref().map(|m| format!(", FOM mode {}", md(m))).unwrap_or_default();
    writeln!(
        w,
        "Host NIC receiver eye per lane, as {} printed it{mode} (the NIC's own SerDes: host-side evidence; an eye \
         closed at the NIC while the module's light is normal points at the electrical path). Shown as printed, not \
         judged: no pass level is documented for these figures.",
        code(&format!("{} --show_eye", eye.tool))
    )?;
    writeln!(w)?;
    let heads: Vec<&str> = shown.iter().map(|(h, _)| *h).collect();
    writeln!(w, "| lane | {} |", heads.join(" | "))?;
    writeln!(w, "|---:|{}", "---:|".repeat(heads.len()))?;
    for (i, lane) in eye.lanes.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
        let cells: Vec<String> = shown.iter().map(|(_, f)| f(lane).map_or_else(|| "n/a".into(), |v| v.to_string())).collect();
        writeln!(w, "| {} | {} |", i + 1, cells.join(" | "))?;
    }
    writeln!(w)
}

/// Per lane, the light lost from the far end's transmitter to this end's receiver, against
/// the PMD's channel insertion loss budget and the clause that gives it.
fn write_link_loss(w: &mut dyn Write, a: &InterfaceAnalysis) -> io::Result<()> {
    let mut lanes: Vec<_> = a.lanes.iter().filter(|x| x.link_loss_db.is_some() || x.far_link_loss_db.is_some()).collect();
    if lanes.is_empty() {
        return Ok(());
    }
    lanes.sort_by_key(|x| x.lane);
    writeln!(w)?;
    match lanes.iter().find_map(|x| x.link_loss_pmd) {
        Some(p) => writeln!(
            w,
            "Link loss per lane (far-end Tx - near-end Rx), against the {} channel insertion loss budget of {:.1} dB ({}):",
            p.name, p.channel_insertion_loss_db, p.source
        )?,
        None => writeln!(w, "Link loss per lane (far-end Tx - near-end Rx; no PMD named, so no budget):")?,
    }
    writeln!(w)?;
    for x in lanes {
        let over = if link_loss::over_budget(x) { " (over budget: fiber/connector)" } else { "" };
        let back = match x.far_link_loss_db {
            Some(_) => {
                let far_over = if link_loss::far_over_budget(x) { " (over budget: fiber/connector)" } else { "" };
                format!("; toward the far end (near-end Tx - far-end Rx): {} dB{far_over}", num(x.far_link_loss_db, 2))
            }
            None => String::new(),
        };
        writeln!(w, "- lane {}: {} dB{over}{back}", x.lane, num(x.link_loss_db, 2))?;
    }
    Ok(())
}

fn write_expected(w: &mut dyn Write, it: &Evidence) -> io::Result<()> {
    let a = it.analysis;
    let c = it.cfg;
    writeln!(w)?;
    writeln!(w, "### What was expected")?;
    writeln!(w)?;
    writeln!(
        w,
        "- Analysis thresholds: BER margin floor {} dB to the FEC limit; a lane is an outlier at {}x its siblings' median BER; \
         at most {} uncorrectable blocks and {} link-down events per window; one-sided Poisson confidence {}.",
        c.margin_floor_db, c.outlier_ratio, c.max_uncorrectable_blocks, c.max_link_down_events, c.confidence
    )?;
    if let Some(pc) = &a.profile {
        writeln!(w, "- Profile {}:", code(&pc.profile))?;
        writeln!(w)?;
        writeln!(w, "  | check | expected | measured | result |")?;
        writeln!(w, "  |---|---|---|---|")?;
        for i in &pc.items {
            let res = match i.ok {
                Some(true) => "meets",
                Some(false) => "BELOW",
                None => "not measured",
            };
            writeln!(w, "  | {} | {} | {} | {res} |", i.check, md(&i.expected), md(&i.measured))?;
        }
        writeln!(w)?;
    }
    if let Some(m) = &a.module {
        let t = &m.thresholds;
        let power = |name: &str, s: &Option<ThresholdSet>| {
            s.as_ref().map(|s| {
                format!(
                    "{name} low alarm {} / low warning {} / high warning {} / high alarm {}",
                    mw_dbm(s.low_alarm),
                    mw_dbm(s.low_warning),
                    mw_dbm(s.high_warning),
                    mw_dbm(s.high_alarm)
                )
            })
        };
        let plain = |name: &str, unit: &str, s: &Option<ThresholdSet>| {
            s.as_ref().map(|s| {
                format!(
                    "{name} {} .. {} {unit} (warning), {} .. {} {unit} (alarm)",
                    s.low_warning, s.high_warning, s.low_alarm, s.high_alarm
                )
            })
        };
        let lines: Vec<String> = [
            power("rx power", &t.rx_power_mw),
            power("tx power", &t.tx_power_mw),
            plain("tx bias", "mA", &t.tx_bias_ma),
            plain("temperature", "C", &t.temperature_c),
        ]
        .into_iter()
        .flatten()
        .collect();
        if lines.is_empty() {
            writeln!(w, "- The module's own thresholds: not in the capture.")?;
        } else {
            writeln!(w, "- The module's own thresholds (from its EEPROM): {}.", lines.join("; "))?;
        }
    }
    Ok(())
}

/// What the window shows is not the cause, each with the figure that says so.
fn write_ruled_out(w: &mut dyn Write, a: &InterfaceAnalysis) -> io::Result<()> {
    let l = &a.link;
    let p = &a.pcie;
    writeln!(w)?;
    writeln!(w, "### What was ruled out")?;
    writeln!(w)?;
    let line = |ok: Option<bool>, what: String| match ok {
        Some(true) => format!("- Ruled out: {what}"),
        Some(false) => format!("- NOT ruled out: {what}"),
        None => format!("- Not measured: {what}"),
    };
    let pcie_ok = p.ceiling_gbps.map(|_| !p.degraded);
    writeln!(
        w,
        "{}",
        line(pcie_ok, format!("PCIe bottleneck (ceiling {} Gb/s, port {} Gb/s).", num(p.ceiling_gbps, 1), num(p.port_speed_gbps, 0)))
    )?;
    let flaps_ok = l.link_down_events.map(|n| n == 0 && l.up != Some(false));
    writeln!(
        w,
        "{}",
        line(
            flaps_ok,
            format!(
                "link flaps ({} link-down events; link {} at the end).",
                opt(l.link_down_events),
                match l.up {
                    Some(true) => "up",
                    Some(false) => "down",
                    None => "state unknown",
                }
            )
        )
    )?;
    // An InfiniBand port counts no FEC blocks; its symbol errors are what FEC left (HDR on)
    // or line code errors (before), each in a frame the application saw.
    let ib = a.infiniband.as_ref();
    let symbol_errors = ib.and_then(|ib| ib.counters.get("symbol_error").copied().flatten());
    let (lost_ok, lost) = match (l.uncorrectable_blocks, symbol_errors) {
        (None, Some(n)) => {
            let at_least = if ib.is_some_and(|ib| ib.saturated.contains(&"symbol_error")) { "at least " } else { "" };
            (Some(n == 0), format!("frame loss past the FEC ({at_least}{n} symbol errors, ib:symbol_error)."))
        }
        (u, _) => (u.map(|n| n == 0), format!("frame loss past the FEC ({} uncorrectable blocks).", opt(u))),
    };
    writeln!(w, "{}", line(lost_ok, lost))?;
    let temp = a.module.as_ref().and_then(|m| Some((m.module_temperature_c?, m.thresholds.temperature_c.as_ref()?.high_warning)));
    let temp_ok = temp.map(|(t, hw)| t < hw);
    let temp_text = match temp {
        Some((t, hw)) => format!("module temperature ({t:.1} C against its {hw:.1} C high warning)."),
        None => "module temperature (no reading or threshold).".into(),
    };
    writeln!(w, "{}", line(temp_ok, temp_text))?;
    Ok(())
}
