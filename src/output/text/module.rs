//! The readable form of a decoded module (`optics decode` without `--json`).

use crate::module::flag::join_flags;
use crate::module::report::ModuleReport;
use crate::module::threshold::ThresholdSet;
use crate::module::units::mw_to_dbm;
use crate::module::vdm::{VdmReport, VdmSideValues};
use std::io::{self, Write};

/// "-3.21 dBm", "-inf dBm" (no light), or "n/a".
pub(crate) fn fmt_dbm(dbm: Option<f64>) -> String {
    match dbm {
        Some(v) if v == f64::NEG_INFINITY => "-inf dBm".into(),
        Some(v) => format!("{v:.2} dBm"),
        None => "n/a".into(),
    }
}

fn fmt_opt(v: Option<f64>, unit: &str, decimals: usize) -> String {
    v.map(|x| format!("{x:.decimals$} {unit}")).unwrap_or_else(|| "n/a".into())
}

/// A string from the EEPROM, with control characters escaped (they come from the module).
fn text(v: &Option<String>) -> std::borrow::Cow<'_, str> {
    super::escape(v.as_deref().unwrap_or("n/a"))
}

/// Writes `decode`'s text for one module: standard, identity strings, state, then its monitors, thresholds and flags.
pub fn write_module_report(w: &mut dyn Write, r: &ModuleReport) -> io::Result<()> {
    if r.image_corrupt() {
        let names: Vec<&str> = r.checksums.iter().map(|c| c.name.as_str()).collect();
        writeln!(w, "IMAGE CORRUPT:     every checksum fails ({}): the values below are not trusted", names.join(", "))?;
    }
    writeln!(w, "Standard:          {}{}", r.standard_name(), r.spec_revision.as_ref().map(|s| format!(" ({s})")).unwrap_or_default())?;
    let kind = r.kind(None);
    if !kind.is_empty() {
        writeln!(w, "Module:            {}", super::escape(&kind))?;
    }
    match (r.identifier, &r.identifier_name) {
        (Some(id), name) => writeln!(w, "Identifier:        {id:#04x} ({})", super::escape(name.as_deref().unwrap_or_default()))?,
        (None, Some(name)) => writeln!(w, "Identifier:        {} (printed; no SFF-8024 code)", super::escape(name))?,
        // A decoded image without byte 0 (an SFF-8472 A2h alone) has a standard; a tool's
        // printout that named no form factor has none.
        (None, None) if r.standard.is_some() => writeln!(w, "Identifier:        not read (byte 0 absent)")?,
        (None, None) => writeln!(w, "Identifier:        not printed")?,
    }
    writeln!(w, "Vendor:            {}", text(&r.vendor_name))?;
    writeln!(w, "Part number:       {}", text(&r.vendor_pn))?;
    writeln!(w, "Serial number:     {}", text(&r.vendor_sn))?;
    writeln!(w, "Revision:          {}", text(&r.vendor_rev))?;
    writeln!(w, "Date code:         {}", text(&r.date_code))?;
    if let Some(oui) = &r.vendor_oui {
        writeln!(w, "Vendor OUI:        {oui}")?;
    }
    writeln!(w, "Connector:         {}", text(&r.connector_name))?;
    writeln!(w, "Media:             {}", text(&r.media_type))?;
    if let Some(nm) = r.wavelength_nm {
        writeln!(w, "Wavelength:        {nm:.2} nm")?;
    }
    if let Some(state) = &r.module_state {
        writeln!(w, "Module state:      {state}")?;
    }
    let modulation = r.modulation.map(|m| match m {
        crate::module::report::Modulation::Nrz => "NRZ",
        crate::module::report::Modulation::Pam4 => "PAM4",
    });
    writeln!(w, "Modulation:        {}", modulation.unwrap_or("n/a"))?;
    if let Some(app) = &r.active_application {
        writeln!(
            w,
            "Application:       {} / {} ({} host, {} media lanes)",
            app.host_interface, app.media_interface, app.host_lane_count, app.media_lane_count
        )?;
    }
    writeln!(w, "Temperature:       {}", fmt_opt(r.module_temperature_c, "C", 2))?;
    writeln!(w, "Supply voltage:    {}", fmt_opt(r.supply_voltage_v, "V", 4))?;
    if let Some(t) = r.rx_power_type {
        writeln!(w, "Rx power type:     {}", if t == crate::module::report::RxPowerType::Oma { "OMA" } else { "average" })?;
    }
    if !r.module_flags.is_empty() {
        writeln!(w, "Module flags:      {}", join_flags(&r.module_flags, ", "))?;
    }
    if !r.lanes.is_empty() {
        writeln!(w)?;
        writeln!(w, "{:<5} {:>12} {:>12} {:>11} {:>12} {:>12}  flags", "lane", "rx mW", "rx dBm", "bias mA", "tx mW", "tx dBm")?;
        for l in &r.lanes {
            writeln!(
                w,
                "{:<5} {:>12} {:>12} {:>11} {:>12} {:>12}  {}",
                l.lane,
                l.rx_power_mw.map(|v| format!("{v:.4}")).unwrap_or_else(|| "n/a".into()),
                fmt_dbm(l.rx_power_dbm).trim_end_matches(" dBm"),
                l.tx_bias_ma.map(|v| format!("{v:.3}")).unwrap_or_else(|| "n/a".into()),
                l.tx_power_mw.map(|v| format!("{v:.4}")).unwrap_or_else(|| "n/a".into()),
                fmt_dbm(l.tx_power_dbm).trim_end_matches(" dBm"),
                join_flags(&l.flags, ",")
            )?;
        }
    }
    let t = &r.thresholds;
    // Name, limits, unit, and whether they are optical power (also shown in dBm).
    let rows: [(&str, &Option<ThresholdSet>, &str, bool); 5] = [
        ("temperature", &t.temperature_c, "C", false),
        ("supply voltage", &t.supply_voltage_v, "V", false),
        ("rx power", &t.rx_power_mw, "mW", true),
        ("tx power", &t.tx_power_mw, "mW", true),
        ("tx bias", &t.tx_bias_ma, "mA", false),
    ];
    if rows.iter().any(|(_, s, _, _)| s.is_some()) {
        writeln!(w)?;
        writeln!(w, "{:<16} {:>11} {:>11} {:>11} {:>11}", "thresholds", "low alarm", "low warn", "high warn", "high alarm")?;
        for (name, set, unit, power) in rows {
            let Some(s) = set else { continue };
            let cells = [s.low_alarm, s.low_warning, s.high_warning, s.high_alarm];
            let row = |cell: &dyn Fn(f64) -> String| cells.map(|v| format!(" {:>11}", cell(v))).concat();
            writeln!(w, "{name:<16}{}  {unit}", row(&|v| format!("{v:.4}")))?;
            // Power limits also in dBm, as `ethtool -m` prints them (a 0 mW limit is -inf).
            if power {
                writeln!(w, "{:<16}{}  dBm", "", row(&|v| fmt_dbm(Some(mw_to_dbm(v))).trim_end_matches(" dBm").to_string()))?;
            }
        }
    }
    if let Some(v) = &r.vdm {
        write_vdm(w, v)?;
    }
    for c in &r.checksums {
        writeln!(w, "Checksum {}: {}", c.name, if c.ok { "ok" } else { "MISMATCH" })?;
    }
    for warning in &r.warnings {
        writeln!(w, "warning: {}", super::escape(warning))?;
    }
    Ok(())
}

fn fmt_ber(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.2e}")).unwrap_or_else(|| "n/a".into())
}

/// Per-lane VDM figures, media side then host side (CMIS VDM, pages 20h-2Fh).
fn write_vdm(w: &mut dyn Write, v: &VdmReport) -> io::Result<()> {
    writeln!(w)?;
    let n = v.observables.len();
    let observables = format!("{n} observable{}", if n == 1 { "" } else { "s" });
    match v.groups_supported {
        Some(g) => writeln!(w, "VDM: {observables} in {g} group{}", if g == 1 { "" } else { "s" })?,
        None => writeln!(w, "VDM: {observables}")?,
    }
    type Side = fn(&crate::module::vdm::VdmLane) -> &VdmSideValues;
    let sides: [(&str, Side); 2] = [("media", |l| &l.media), ("host", |l| &l.host)];
    for (name, side) in sides {
        if v.lanes.iter().all(|l| side(l).is_empty()) {
            continue;
        }
        writeln!(
            w,
            "{:<5} {:<6} {:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10}",
            "lane", "input", "eSNR dB", "LTP dB", "BER now", "BER avg", "BER min", "BER max", "err frames"
        )?;
        for l in &v.lanes {
            let s = side(l);
            if s.is_empty() {
                continue;
            }
            writeln!(
                w,
                "{:<5} {:<6} {:>9} {:>9} {:>10} {:>10} {:>10} {:>10} {:>10}",
                l.lane,
                name,
                s.esnr_db.map(|x| format!("{x:.2}")).unwrap_or_else(|| "n/a".into()),
                s.ltp_db.map(|x| format!("{x:.2}")).unwrap_or_else(|| "n/a".into()),
                fmt_ber(s.pre_fec_ber_current),
                fmt_ber(s.pre_fec_ber_average),
                fmt_ber(s.pre_fec_ber_min),
                fmt_ber(s.pre_fec_ber_max),
                fmt_ber(s.errored_frames_current),
            )?;
        }
    }
    for o in v.observables.iter().filter(|o| !o.flags.is_empty()) {
        let name = o.key.map_or_else(|| format!("type {}", o.type_id), str::to_string);
        writeln!(w, "VDM flag: lane {} {name}: {}", o.lane, o.flags.join(", "))?;
    }
    Ok(())
}
