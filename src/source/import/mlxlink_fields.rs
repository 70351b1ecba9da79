//! mlxlink's fields (the same in its text and `--json` output, mstflint
//! `mlxlink_commander.cpp`) mapped to capture terms. Values are strings with units and
//! ranges ("-1.2,-1.3,-1.1,-4.5 [-10..4]", "45 [-5..75]", "15E-255"); multi-value
//! fields are comma-joined before they reach here.
//!
//! - Operational Info: `State` (Active = up), `Speed` ("400G", or an InfiniBand port's
//!   "IB-NDR": width x the speed's lane rate, mode `4X NDR` as the kernel's `rate` names it),
//!   `Width` ("4x"), `FEC`;
//! - Physical Counters and BER Info: `Time Since Last Clear [Min]`; `Raw Physical Errors Per
//!   Lane` = PPCNT phy_raw_errors_laneN, the bits FEC corrected per lane: the FEC stats'
//!   per-lane corrected bits `[sum, lane 1, ..]`; `Effective Physical Errors` (errors left
//!   after FEC) as driver counter `mlxlink_effective_physical_errors` (normalised with the
//!   PCS symbol errors); `Link Down Counter` = link-down events; BERs kept as printed;
//! - Histogram of FEC Errors: `Bin N` = `"[lo:hi],count"` or `"[n],count"` -> histogram bins;
//! - Module Info: identity, per-lane rx/tx power (dBm) and bias (mA), temperature (C),
//!   voltage (mV), each with its printed `[low..high]` alarm range -> [`PrintedModule`];
//! - EYE Opening Info (`--show_eye`, mstflint `showEye`): per lane `Physical Grade`,
//!   `Height Eye Opening [mV]`, `Phase Eye Opening [psec]` (16/28/40 nm devices) or
//!   `Initial FOM`, `Last FOM`, `Upper` / `Mid` / `Lower Grades` (7 nm) -> `SerdesEye`.
//!   `EYE Opening Info (PCIe)` is the PCIe link's, not the port's: kept as printed only.
//!
//! Field names are matched with their inner spaces collapsed: mlxlink prints
//! `Phase  Eye Opening [psec]` with two, a web page or ticket shows one.

use super::{Fragment, ParseError, ParseResult};
use crate::counters::ib::{IbRate, IbSpeed};
use crate::counters::serdes::{SerdesEye, SerdesEyeLane};
use crate::counters::{FecHistogramBin, FecSource, FecStats, LinkInfo, LinkState, MAX_LANES};
use crate::module::printed::{PrintedModule, PrintedRange};

/// The driver-counter name effective (post-FEC) errors are recorded under.
pub(crate) const EFFECTIVE_ERRORS: &str = "mlxlink_effective_physical_errors";

/// One printed field: section title, field name, value text.
pub(crate) type Field = (String, String, String);

/// mlxlink's BER notation `<coef>E-<magnitude>`: "15E-255" = 15 x 10^-255 (mlxlink's way of printing "no errors").
pub(crate) fn parse_ber(s: &str) -> Option<f64> {
    let (coef, mag) = s.trim().split_once(['E', 'e'])?;
    Some(coef.trim().parse::<f64>().ok()? * 10f64.powi(mag.trim().parse::<i32>().ok()?))
}

/// "v1,v2,... [lo..hi]" -> values (`N/A` -> None) and the range.
pub(crate) fn parse_values(s: &str) -> ParseResult<(Vec<Option<f64>>, Option<PrintedRange>)> {
    let (vals, range) = match s.trim().split_once('[') {
        Some((v, r)) => (v, Some(r.trim_end().trim_end_matches(']'))),
        None => (s, None),
    };
    let num = |t: &str| -> ParseResult<Option<f64>> {
        let t = t.trim();
        if t.is_empty() || t.eq_ignore_ascii_case("N/A") {
            return Ok(None);
        }
        // A unit letter after the number ("45C").
        let t = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        t.parse::<f64>().map(Some).map_err(|_| ParseError::malformed(format!("{t:?} is not a number")))
    };
    let values = vals.split(',').map(num).collect::<ParseResult<Vec<_>>>()?;
    let range = match range {
        Some(r) => {
            let (lo, hi) = r.split_once("..").ok_or_else(|| ParseError::malformed(format!("range [{r}] is not [low..high]")))?;
            match (num(lo)?, num(hi)?) {
                (Some(low), Some(high)) => Some(PrintedRange { low, high }),
                _ => None,
            }
        }
        None => None,
    };
    Ok((values, range))
}

/// A monitor's values and range with what mlxlink prints for a monitor the module does not
/// implement taken out: a range of `[0..0]` is no thresholds (the module's threshold
/// words read 0, the "not implemented" of SFF-8636 Rev 2.11 6.2.4 and CMIS 5.2 8.5), and
/// values of exactly 0 beside it are no readings (a passive copper cable has no monitors;
/// mlxlink prints `0,0,0,0 [0..0]`, and 0 dBm would be a milliwatt of light). `true` when
/// anything was taken out.
fn without_unimplemented(values: Vec<Option<f64>>, range: Option<PrintedRange>) -> (Vec<Option<f64>>, Option<PrintedRange>, bool) {
    if range != Some(PrintedRange { low: 0.0, high: 0.0 }) {
        return (values, range, false);
    }
    let values = if values.iter().all(|v| v.is_none_or(|v| v == 0.0)) { vec![None; values.len()] } else { values };
    (values, None, true)
}

fn parse_u64(s: &str) -> ParseResult<u64> {
    s.trim().parse().map_err(|_| ParseError::malformed(format!("{s:?} is not an unsigned integer")))
}

/// "400G" / "400G_4X" / "100GbE" -> Mb/s.
fn speed_mbps(s: &str) -> Option<u32> {
    let digits: String = s.trim().chars().take_while(|c| c.is_ascii_digit()).collect();
    let rest = &s.trim()[digits.len()..];
    rest.starts_with('G').then(|| digits.parse::<u32>().ok().and_then(|g| g.checked_mul(1000))).flatten()
}

/// mlxlink FEC names ("Standard RS-FEC (544,514)", "RS-FEC - (544,514) + PLR", "No FEC",
/// "Firecode FEC", "Standard_LL_RS-FEC - (272,257+1)") as kernel FEC names.
fn fec_active(s: &str) -> Option<String> {
    let u = s.to_ascii_uppercase();
    if u.contains("NO FEC") || u.contains("NO-FEC") || u == "NONE" {
        Some("None".into())
    } else if u.contains("LL") || u.contains("272") {
        Some("LLRS".into())
    } else if u.contains("RS") {
        Some("RS".into())
    } else if u.contains("FIRECODE") || u.contains("FC_FEC") {
        Some("BASER".into())
    } else {
        None
    }
}

/// "[0]" -> (0, 0); "[16:31]" -> (16, 31).
fn bin_range(s: &str) -> ParseResult<(u32, u32)> {
    let inner = s.trim().trim_start_matches('[').trim_end_matches(']');
    let p = |t: &str| t.trim().parse::<u32>().map_err(|_| ParseError::malformed(format!("bin range {s:?}")));
    match inner.split_once(':') {
        Some((lo, hi)) => Ok((p(lo)?, p(hi)?)),
        None => p(inner).map(|v| (v, v)),
    }
}

/// The eye section's section title (`--show_eye` of a network port).
pub(crate) const EYE_SECTION: &str = "EYE Opening Info";

/// A field name as matched: inner runs of spaces collapsed to one.
fn collapsed(name: &str) -> String {
    name.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One per-lane eye field into `eye`'s lanes (lane 1 first); `false` for a name that is not one.
fn eye_field(eye: &mut SerdesEye, name: &str, v: &str) -> ParseResult<bool> {
    let slot: fn(&mut SerdesEyeLane) -> &mut Option<f64> = match name {
        "Physical Grade" => |l| &mut l.grade,
        "Height Eye Opening [mV]" => |l| &mut l.eye_height_mv,
        "Phase Eye Opening [psec]" => |l| &mut l.eye_width_ps,
        "Initial FOM" => |l| &mut l.initial_fom,
        "Last FOM" => |l| &mut l.last_fom,
        "Upper Grades" => |l| &mut l.upper_grade,
        "Mid Grades" => |l| &mut l.mid_grade,
        "Lower Grades" => |l| &mut l.lower_grade,
        _ => return Ok(false),
    };
    let (values, _) = parse_values(v).map_err(|e| e.at(format_args!("{EYE_SECTION} {name}")))?;
    if values.len() > MAX_LANES {
        return Err(ParseError::malformed(format!("{} lanes, more than a port has ({MAX_LANES})", values.len()))
            .at(format_args!("{EYE_SECTION} {name}")));
    }
    if eye.lanes.len() < values.len() {
        eye.lanes.resize_with(values.len(), SerdesEyeLane::default);
    }
    for (lane, value) in eye.lanes.iter_mut().zip(values) {
        *slot(lane) = value;
    }
    Ok(true)
}

pub(crate) fn to_fragment(fields: &[Field]) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    let mut link = LinkInfo::default();
    let mut state = LinkState::default();
    let mut fec = FecStats::default();
    let mut module = PrintedModule { tool: "mlxlink".into(), ..Default::default() };
    let mut has_module = false;
    let mut bins: Vec<(u32, FecHistogramBin)> = Vec::new();
    let mut ib_speed = None;
    let mut eye = SerdesEye { tool: "mlxlink".into(), ..Default::default() };
    let mut pcie_eye = false;
    for (section, name, value) in fields {
        let name = &collapsed(name);
        f.printed_fields.insert(format!("{section}/{name}"), value.clone());
        let v = value.trim();
        let na = v.is_empty() || v == "N/A";
        match (section.as_str(), name.as_str()) {
            ("Operational Info", "State") => state.up = Some(v == "Active"),
            ("Operational Info", "Speed") => {
                link.speed_mbps = speed_mbps(v);
                ib_speed = v.strip_prefix("IB-").and_then(IbSpeed::parse);
            }
            ("Operational Info", "Width") => link.lanes = v.trim_end_matches(['x', 'X']).parse().ok(),
            ("Operational Info", "FEC") => {
                link.fec_active = fec_active(v);
                if link.fec_active.is_none() && !na {
                    f.notes.push(format!("mlxlink FEC {v:?} not recognised"));
                }
            }
            ("Physical Counters and BER Info", "Time Since Last Clear [Min]") if !na => {
                // Minutes since the counters were cleared: a time that has passed, so finite and not negative.
                let min = v.parse::<f64>().ok().filter(|m| m.is_finite() && *m >= 0.0 && (m * 60.0).is_finite());
                let min = min.ok_or_else(|| {
                    ParseError::malformed(format!("Time Since Last Clear {v:?} is not a number of minutes at or above 0"))
                })?;
                f.since_clear_s = Some(min * 60.0)
            }
            ("Physical Counters and BER Info", "Raw Physical Errors Per Lane") if !na => {
                let lanes = v.split(',').map(parse_u64).collect::<ParseResult<Vec<_>>>()?;
                let total = lanes
                    .iter()
                    .try_fold(0u64, |a, v| a.checked_add(*v))
                    .ok_or_else(|| ParseError::malformed("sum exceeds 64 bits").at("Raw Physical Errors Per Lane"))?;
                fec.corrected_bits = std::iter::once(total).chain(lanes).collect();
            }
            ("Physical Counters and BER Info", "Effective Physical Errors") if !na => {
                f.driver_stats.insert(EFFECTIVE_ERRORS.into(), parse_u64(v)?);
            }
            ("Physical Counters and BER Info", "Link Down Counter") if !na => state.down_events = Some(parse_u64(v)?),
            ("Physical Counters and BER Info", n) if n.ends_with("BER") && !na && parse_ber(v).is_none() => {
                f.notes.push(format!("{n} {v:?} is not in mlxlink's <coef>E-<magnitude> form"))
            }
            (EYE_SECTION, "FOM Mode") if !na => eye.fom_mode = Some(v.to_string()),
            (EYE_SECTION, n) => {
                let read = eye_field(&mut eye, n, v)?;
                // `Lane` (7 nm) numbers the columns 0..; the position is the lane.
                if !read && n != "Lane" {
                    f.notes.push(format!("mlxlink {EYE_SECTION} field {n:?} not read (kept as printed)"));
                }
            }
            (s, _) if s.starts_with(EYE_SECTION) => pcie_eye = true,
            ("Histogram of FEC Errors", n) if n.starts_with("Bin ") => {
                let idx: u32 = n[4..].trim().parse().map_err(|_| ParseError::malformed(format!("histogram {n}")))?;
                // "[lo:hi],count" (JSON values joined) or "[lo:hi]  ,count" / "[lo:hi]   count" (text).
                let end = v.find(']').ok_or_else(|| ParseError::malformed(format!("histogram {n} {v:?} is not [range],count")))?;
                let (range, count) = (&v[..=end], v[end + 1..].trim_start_matches([',', ' ', '\t']));
                let (low, high) = bin_range(range)?;
                bins.push((idx, FecHistogramBin { low, high, count: parse_u64(count)?, per_lane: Vec::new() }));
            }
            ("Module Info", n) if !na => {
                has_module = true;
                let s = Some(v.to_string());
                match n {
                    "Identifier" => module.identifier = s,
                    "Vendor Name" => module.vendor_name = s,
                    "Vendor Part Number" => module.vendor_pn = s,
                    "Vendor Serial Number" => module.vendor_sn = s,
                    // The compliance code names the media best; the cable type is the fallback.
                    "Compliance" | "Active Set Media Compliance Code" => module.media = s,
                    "Cable Type" if module.media.is_none() => module.media = s,
                    "Temperature [C]" | "Voltage [mV]" | "Bias Current [mA]" | "Rx Power Current [dBm]" | "Tx Power Current [dBm]" => {
                        let (vals, r) = parse_values(v)?;
                        let (vals, r, unimplemented) = without_unimplemented(vals, r);
                        if unimplemented {
                            f.notes.push(format!("mlxlink Module Info {n} printed as {v:?}: not implemented by the module"));
                        }
                        match n {
                            "Temperature [C]" => (module.temperature_c, module.temperature_alarm_c) = (vals.first().copied().flatten(), r),
                            "Voltage [mV]" => {
                                module.supply_voltage_v = vals.first().copied().flatten().map(|mv| mv / 1000.0);
                                module.supply_voltage_alarm_v = r.map(|r| PrintedRange { low: r.low / 1000.0, high: r.high / 1000.0 });
                            }
                            "Bias Current [mA]" => (module.tx_bias_ma, module.tx_bias_alarm_ma) = (vals, r),
                            "Rx Power Current [dBm]" => (module.rx_power_dbm, module.rx_power_alarm_dbm) = (vals, r),
                            _ => (module.tx_power_dbm, module.tx_power_alarm_dbm) = (vals, r),
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    if let (Some(speed), Some(width)) = (ib_speed, link.lanes.filter(|w| (1..=12).contains(w))) {
        let rate = IbRate { gbps: f64::from(speed.lane_mbps() * width) / 1000.0, width, speed }.link_info();
        (link.speed_mbps, link.link_mode) = (rate.speed_mbps, rate.link_mode);
    }
    bins.sort_by_key(|(i, _)| *i);
    fec.histogram = bins.into_iter().map(|(_, b)| b).collect();
    if state.up.is_some() || state.down_events.is_some() {
        f.link_state = Some(state);
    }
    if link != LinkInfo::default() {
        f.link = Some(link);
    }
    if fec != FecStats::default() {
        f.fec = Some(FecStats { source: Some(FecSource::Mlxlink), ..fec });
    }
    if has_module {
        f.printed_module = Some(module);
    }
    if pcie_eye {
        f.notes.push(format!("{EYE_SECTION} (PCIe): the PCIe link's lanes, not the port's: kept as printed only"));
    }
    if eye.lanes.iter().any(|l| !l.is_empty()) {
        f.serdes_eye = Some(eye);
    }
    if f.link.is_none() && f.fec.is_none() && f.printed_module.is_none() && f.serdes_eye.is_none() {
        if pcie_eye {
            return Err(ParseError::refused(
                format!("only {EYE_SECTION} (PCIe): the NIC's PCIe lanes (--port_type PCIE), not a network port"),
                "run `mlxlink -d DEV -e` for the port's eye",
            ));
        }
        return Err(ParseError::missing("Operational Info, counters, Module Info or EYE Opening Info fields"));
    }
    if f.fec.is_some() && f.since_clear_s.is_none() {
        f.notes.push("counters without \"Time Since Last Clear [Min]\": no time base from the content".into());
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_mlxlink_prints_them() {
        assert_eq!(parse_ber("15E-255"), Some(15.0 * 10f64.powi(-255)));
        assert_eq!(parse_ber("1E-8"), Some(1e-8));
        let (v, r) = parse_values("266.360,266.360,249.272,249.272 [40..480]").unwrap();
        assert_eq!(v, vec![Some(266.36), Some(266.36), Some(249.272), Some(249.272)]);
        assert_eq!(r, Some(PrintedRange { low: 40.0, high: 480.0 }));
        let (v, r) = parse_values("45C [-5C..75C]").unwrap();
        assert_eq!((v, r), (vec![Some(45.0)], Some(PrintedRange { low: -5.0, high: 75.0 })));
        assert_eq!(parse_values("N/A").unwrap().0, vec![None]);
        // `0,0 [0..0]`: not implemented; real readings beside a [0..0] range keep their values.
        let zero = Some(PrintedRange { low: 0.0, high: 0.0 });
        assert_eq!(without_unimplemented(vec![Some(0.0), Some(0.0)], zero), (vec![None, None], None, true));
        assert_eq!(without_unimplemented(vec![Some(35.0)], zero), (vec![Some(35.0)], None, true));
        let real = Some(PrintedRange { low: -10.41, high: 6.0 });
        assert_eq!(without_unimplemented(vec![Some(0.0)], real), (vec![Some(0.0)], real, false));
        assert!(parse_values("abc").is_err());
        assert_eq!(bin_range("[16:31]").unwrap(), (16, 31));
        assert_eq!(bin_range("[0]  ").unwrap(), (0, 0));
        assert_eq!(speed_mbps("400G"), Some(400_000));
        assert_eq!(speed_mbps("N/A"), None);
        // An IB port: "IB-HDR" over "2x" is 2 x 50 Gb/s (sysfs.c rate_show's lane rates).
        let f = |k: &str, v: &str| ("Operational Info".to_string(), k.to_string(), v.to_string());
        let ib = to_fragment(&[f("Speed", "IB-HDR"), f("Width", "2x")]).unwrap().link.unwrap();
        assert_eq!((ib.speed_mbps, ib.lanes, ib.link_mode.as_deref()), (Some(100_000), Some(2), Some("2X HDR")));
        assert_eq!(fec_active("Standard RS-FEC (544,514)").as_deref(), Some("RS"));
        assert_eq!(fec_active("Standard_LL_RS-FEC - (272,257+1)").as_deref(), Some("LLRS"));
        assert_eq!(fec_active("No FEC").as_deref(), Some("None"));
    }
}
