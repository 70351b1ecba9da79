//! Decoded `ethtool -m IFACE` text and `ethtool --json -m IFACE` (ethtool 5.x-7.x) of
//! SFF-8079/8472, SFF-8636 and CMIS modules -> a [`PrintedModule`]: the monitors,
//! thresholds, flags and identity as printed, nothing filled in for what was not printed.
//!
//! Both forms go through one label table: a text label (`Laser tx bias current (Channel 2)`,
//! `Rcvr signal avg optical power(Channel 1)` as ethtool 5.x printed it) and a JSON key
//! (`laser_tx_bias_current`, an array per channel) normalise to the same snake-case key, the
//! way ethtool's own `convert_json_field_name` derives its JSON keys from the text labels.
//! Layouts read in ethtool's `sfpdiag.c` / `qsfp.c` / `cmis.c` / `sff-common.c` (v5.4-v6.5)
//! and checked on the real ethtool 6.1 text and 7.2 JSON in tests/fixtures/import/ethtool_m/.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::module::flag::{ModuleFlag, Severity, Side};
use crate::module::printed::{LimitsSeen, Monitor, PrintedModule, PrintedThresholds};
use crate::module::state::ModuleState;
use serde_json::Value;
use std::borrow::Cow;

/// More lanes than any module has (CMIS: 4 banks of 8): a larger channel is not a lane.
const MAX_LANES: usize = 32;

/// The tool name kept in the capture's `printed_module.tool`.
pub(crate) const TOOL: &str = "ethtool -m";

/// Label stems of each monitor in threshold and flag labels (sff-common.c
/// `sff_show_thresholds`, sfpdiag.c / qsfp.c / cmis.c alarm-warning tables).
const STEMS: &[(&str, Monitor)] = &[
    ("laser_bias_current", Monitor::TxBias),
    ("laser_tx_bias_current", Monitor::TxBias),
    ("laser_output_power", Monitor::TxPower),
    ("laser_tx_power", Monitor::TxPower),
    ("laser_rx_power", Monitor::RxPower),
    ("rcvr_signal_power", Monitor::RxPower),
    // Junos `show interfaces diagnostics optics` names a lane's receive power this way.
    ("laser_receiver_power", Monitor::RxPower),
    ("module_temperature", Monitor::Temperature),
    ("module_voltage", Monitor::Voltage),
];

/// Per-lane status lines (`module_show_lane_status`): label -> `ModuleReport` flag.
const LANE_STATUS: &[(&str, ModuleFlag)] = &[
    ("rx_loss_of_signal", ModuleFlag::Los(Side::Rx)),
    ("tx_loss_of_signal", ModuleFlag::Los(Side::Tx)),
    ("rx_loss_of_lock", ModuleFlag::Lol(Side::Rx)),
    ("tx_loss_of_lock", ModuleFlag::Lol(Side::Tx)),
    ("tx_fault", ModuleFlag::TxFault),
    ("tx_adaptive_eq_fault", ModuleFlag::TxAdaptiveEqFault),
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Field {
    Identifier,
    Connector,
    VendorName,
    VendorPn,
    VendorSn,
    VendorRev,
    VendorOui,
    DateCode,
    Revision,
    Media,
    Wavelength,
    NominalRate,
    ModuleState,
    /// CMIS LowPwrRequestSW (`true`) or LowPwrAllowRequestHW (`false`).
    LowPower(bool),
    Value(Monitor),
    /// Receive power; `true` when OMA.
    Rx(bool),
    Threshold(Monitor, Severity),
    Flag(Monitor, Severity),
    LaneStatus(ModuleFlag),
}

fn classify(key: &str) -> Option<Field> {
    Some(match key {
        "identifier" => Field::Identifier,
        "connector" => Field::Connector,
        "vendor_name" => Field::VendorName,
        "vendor_pn" => Field::VendorPn,
        "vendor_sn" => Field::VendorSn,
        "vendor_rev" => Field::VendorRev,
        "vendor_oui" => Field::VendorOui,
        "date_code" => Field::DateCode,
        "revision_compliance" => Field::Revision,
        "transceiver_type" => Field::Media,
        "laser_wavelength" => Field::Wavelength,
        // `BR, Nominal : 25750MBd` (sfpid.c), `: 25500Mbps` (qsfp.c), JSON `br_nominal`.
        "br_nominal" => Field::NominalRate,
        "module_state" => Field::ModuleState,
        // Text labels and ethtool --json keys (cmis.c `cmis_show_mod_lvl_controls`).
        "lowpwrrequestsw" | "low_pwr_request_sw" => Field::LowPower(true),
        "lowpwrallowrequesthw" | "low_pwr_allow_request_hw" => Field::LowPower(false),
        "module_temperature" | "module_temperature_measurement" => Field::Value(Monitor::Temperature),
        "module_voltage" | "module_voltage_measurement" => Field::Value(Monitor::Voltage),
        "laser_bias_current" | "laser_tx_bias_current" => Field::Value(Monitor::TxBias),
        "laser_output_power" | "transmit_avg_optical_power" => Field::Value(Monitor::TxPower),
        "rcvr_signal_avg_optical_power" | "receiver_signal_average_optical_power" | "laser_receiver_power" => Field::Rx(false),
        "receiver_signal_oma" | "rcvr_signal_oma" => Field::Rx(true),
        _ => {
            if let Some(&(_, flag)) = LANE_STATUS.iter().find(|(k, _)| *k == key) {
                return Some(Field::LaneStatus(flag));
            }
            let (rest, threshold) = match key.strip_suffix("_threshold") {
                Some(r) => (r, true),
                None => (key, false),
            };
            let (stem, sev) = Severity::ALL.into_iter().find_map(|s| Some((rest.strip_suffix(s.suffix())?.strip_suffix('_')?, s)))?;
            let &(_, m) = STEMS.iter().find(|(s, _)| *s == stem)?;
            if threshold {
                Field::Threshold(m, sev)
            } else {
                Field::Flag(m, sev)
            }
        }
    })
}

/// ethtool's label -> JSON key rule: lower case, runs of other characters one `_`.
fn normalise(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for c in label.trim().chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    while out.ends_with('_') {
        out.pop();
    }
    out
}

/// `Laser tx bias current (Channel 2)` / `... (Chan 2)` -> (`Laser tx bias current`, Some(1)).
fn split_channel(label: &str) -> (&str, Option<usize>) {
    let t = label.trim_end();
    if let Some(open) = t.rfind('(') {
        let inner = t[open + 1..].strip_suffix(')').unwrap_or("");
        let num = inner.strip_prefix("Channel").or_else(|| inner.strip_prefix("Chan")).map(str::trim);
        if let Some(n) = num.and_then(|n| n.parse::<usize>().ok()).filter(|&n| (1..=MAX_LANES).contains(&n)) {
            return (&t[..open], Some(n - 1));
        }
    }
    (t, None)
}

/// The leading number of a printed value (`0.5010 mW / -3.00 dBm`, `850nm`, `51.27 degrees C`).
fn leading_number(v: &str) -> Option<f64> {
    let end = v.find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+')).unwrap_or(v.len());
    v[..end].parse::<f64>().ok().filter(|x| x.is_finite())
}

/// A printed nominal rate in MBd: 0 is "not specified" (SFF-8472 byte 12, SFF-8636 byte
/// 140), and no lane signals faster than the largest byte 222 can say (255 x 250 MBd).
fn nominal_rate(mbd: Option<f64>) -> Option<u32> {
    mbd.filter(|r| *r > 0.0 && *r <= 255.0 * 250.0).map(|r| r.round() as u32)
}

/// `0x19 (OSFP 8X Pluggable Transceiver)` -> (0x19, the name).
fn code_and_name(v: &str) -> Option<(u8, Option<String>)> {
    let hex = v.trim().strip_prefix("0x")?;
    let code = u8::from_str_radix(hex.get(..2)?, 16).ok()?;
    let name = v.find('(').and_then(|o| v.rfind(')').map(|c| v[o + 1..c].trim().to_string())).filter(|n| !n.is_empty());
    Some((code, name))
}

/// ethtool's `ONOFF` text.
fn on_off(v: &str) -> Option<bool> {
    match v.trim() {
        "On" => Some(true),
        "Off" => Some(false),
        _ => None,
    }
}

fn text_opt(v: &str) -> Option<String> {
    let t = v.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// What is being built, and what the parse noticed.
#[derive(Default)]
struct Builder {
    m: PrintedModule,
    identifiers: usize,
    limits: LimitsSeen,
    media: Vec<String>,
    notes: Vec<String>,
    /// Printed by another tool with ethtool's labels and no `Identifier` line (Junos).
    anonymous: bool,
}

fn set_lane(v: &mut Vec<Option<f64>>, lane: usize, x: f64) {
    if v.len() <= lane {
        v.resize(lane + 1, None);
    }
    v[lane] = Some(x);
}

impl Builder {
    fn lane_flag(&mut self, lane: usize, flag: ModuleFlag) {
        if self.m.lane_flags.len() <= lane {
            self.m.lane_flags.resize(lane + 1, Vec::new());
        }
        if !self.m.lane_flags[lane].contains(&flag) {
            self.m.lane_flags[lane].push(flag);
        }
    }

    fn value(&mut self, mon: Monitor, lane: usize, x: f64) {
        match mon {
            Monitor::Temperature => self.m.temperature_c = Some(x),
            Monitor::Voltage => self.m.supply_voltage_v = Some(x),
            Monitor::TxBias => set_lane(&mut self.m.tx_bias_ma, lane, x),
            Monitor::TxPower => set_lane(&mut self.m.tx_power_mw, lane, x),
            Monitor::RxPower => set_lane(&mut self.m.rx_power_mw, lane, x),
        }
    }

    fn low_power(&mut self, request_sw: bool, on: Option<bool>) {
        let to = if request_sw { &mut self.m.low_power_request_sw } else { &mut self.m.low_power_allow_request_hw };
        *to = on.or(*to);
    }

    fn flag(&mut self, mon: Monitor, sev: Severity, lane: Option<usize>, on: bool) {
        if !on {
            return;
        }
        let flag = ModuleFlag::Limit(mon.flag_monitor(), sev);
        if mon.is_lane() {
            // SFF-8472 prints its one channel's flags without a channel.
            self.lane_flag(lane.unwrap_or(0), flag);
        } else if !self.m.module_flags.contains(&flag) {
            self.m.module_flags.push(flag);
        }
    }

    fn lane_status(&mut self, flag: ModuleFlag, lanes: &[bool]) {
        for (i, _) in lanes.iter().enumerate().filter(|(_, on)| **on).take(MAX_LANES) {
            self.lane_flag(i, flag);
        }
    }

    /// Thresholds: a set is kept when all four limits were printed; a set printed as all
    /// zero is a monitor the module does not implement (CMIS 5.2 8.2.8 advertises none, and
    /// the limits read 0), kept as absent like the decoder keeps it.
    fn finish(mut self) -> ParseResult<(PrintedModule, Vec<String>)> {
        if self.identifiers == 0 && !self.anonymous {
            return Err(ParseError::missing("`Identifier` line: not decoded ethtool -m output"));
        }
        if self.identifiers > 1 {
            return Err(ParseError::refused("more than one module in one file", "give each module's ethtool -m output as its own file"));
        }
        let mut t = PrintedThresholds::default();
        let mut any = false;
        for mon in Monitor::ALL {
            let Some(l) = self.limits.limits(mon) else { continue };
            any = true;
            if [l.high_alarm, l.low_alarm, l.high_warning, l.low_warning].iter().all(|v| *v == 0.0) {
                self.notes.push(format!("{} thresholds printed as all 0: not implemented by the module", mon.flag_monitor().as_str()));
            } else {
                *mon.limits_mut(&mut t) = Some(l);
            }
        }
        if any {
            self.m.thresholds = Some(t);
        }
        if !self.media.is_empty() {
            self.m.media = Some(self.media.join("; "));
        }
        // ethtool prints SFF-8636 Tx power whether or not the module advertises a Tx power
        // monitor (SFF-8636 Rev 2.10a byte 220 bit 2, which qsfp.c does not consult): every
        // lane at exactly 0 is that unadvertised monitor, not four dark lasers whose bias
        // reads normal.
        let sff8636 = matches!(self.m.identifier_code, Some(0x0c | 0x0d | 0x11));
        let dark = |v: &[Option<f64>]| !v.is_empty() && v.iter().all(|x| *x == Some(0.0));
        if sff8636 && dark(&self.m.tx_power_mw) && !dark(&self.m.tx_bias_ma) {
            self.m.tx_power_mw.clear();
            self.notes.push("Tx power printed as 0 on every lane with the lasers biased: the module has no Tx power monitor".into());
        }
        // A temperature of exactly 0 with no lane monitors is a module without DOM (ethtool's
        // own rule in qsfp.c `sff8636_show_dom`: a zero temperature word means no monitors),
        // printed as 0.00 degC / 0.0000 V: not a reading.
        let no_lanes = self.m.rx_power_mw.is_empty() && self.m.tx_bias_ma.is_empty() && self.m.tx_power_mw.is_empty();
        if no_lanes && self.m.temperature_c == Some(0.0) {
            self.m.temperature_c = None;
            self.m.supply_voltage_v = self.m.supply_voltage_v.filter(|v| *v != 0.0);
        }
        let printed_monitors = self.m.temperature_c.is_some() || !no_lanes;
        if !printed_monitors {
            self.notes.push("no monitors printed (the module has no DOM, or ethtool could not read its pages): identity only".into());
        }
        Ok((self.m, self.notes))
    }

    /// One `label : value` line; `at` (0-based) is the lane a block heading gave, else the
    /// label's own `(Channel N)`.
    fn text_line(&mut self, label: &str, value: &str, at: Option<usize>) {
        let (stem, lane) = split_channel(label);
        let lane = at.or(lane);
        let Some(field) = classify(&normalise(stem)) else { return };
        let lane_i = lane.unwrap_or(0);
        match field {
            Field::Identifier => {
                self.identifiers += 1;
                if let Some((code, name)) = code_and_name(value) {
                    self.m.identifier_code = Some(code);
                    self.m.identifier = name;
                }
            }
            Field::Connector => {
                if let Some((code, name)) = code_and_name(value) {
                    self.m.connector = Some(code);
                    self.m.connector_name = name;
                }
            }
            // `0x03 (ModuleReady)`: the code is the state; a reserved one is printed as
            // `reserved or unknown` (ethtool cmis.c `cmis_show_mod_state`).
            Field::ModuleState => self.m.module_state = code_and_name(value).map(|(code, _)| ModuleState::from_code(code)),
            Field::LowPower(sw) => self.low_power(sw, on_off(value)),
            Field::VendorName => self.m.vendor_name = text_opt(value),
            Field::VendorPn => self.m.vendor_pn = text_opt(value),
            Field::VendorSn => self.m.vendor_sn = text_opt(value),
            Field::VendorRev => self.m.vendor_rev = text_opt(value),
            Field::VendorOui => self.m.vendor_oui = text_opt(value).filter(|o| o != "00:00:00"),
            Field::DateCode => self.m.date_code = text_opt(value),
            Field::Revision => self.m.spec_revision = text_opt(value),
            Field::Media => self.media.extend(text_opt(value)),
            Field::Wavelength => self.m.wavelength_nm = leading_number(value).filter(|w| *w > 0.0),
            Field::NominalRate => self.m.nominal_signaling_rate_mbd = nominal_rate(leading_number(value)),
            Field::Value(mon) => {
                if let Some(x) = leading_number(value) {
                    self.value(mon, lane_i, x);
                }
            }
            Field::Rx(oma) => {
                self.m.rx_power_oma = Some(oma);
                if let Some(x) = leading_number(value) {
                    self.value(Monitor::RxPower, lane_i, x);
                }
            }
            Field::Threshold(mon, sev) => self.limits.set(mon, sev, leading_number(value)),
            Field::Flag(mon, sev) => self.flag(mon, sev, lane, value.trim() == "On"),
            Field::LaneStatus(flag) => {
                // `[ Yes, No, No, No ]`, or `None` when no lane is set (sff-common.c).
                let lanes: Vec<bool> =
                    value.trim().trim_start_matches('[').trim_end_matches(']').split(',').map(|s| s.trim() == "Yes").collect();
                self.lane_status(flag, &lanes);
            }
        }
    }

    fn json_value(&mut self, key: &str, v: &Value, obj: &serde_json::Map<String, Value>) {
        // Threshold groups: `"laser_bias_current": {"high_alarm_threshold": ..}`.
        if let Value::Object(inner) = v {
            if key == "rx_power" {
                let oma = inner.get("type").and_then(Value::as_str).map(normalise).and_then(|t| match classify(&t) {
                    Some(Field::Rx(oma)) => Some(oma),
                    _ => None,
                });
                self.m.rx_power_oma = oma.or(self.m.rx_power_oma);
                if let Some(x) = inner.get("value").and_then(Value::as_f64) {
                    self.value(Monitor::RxPower, 0, x);
                }
                for (i, x) in inner.get("values").and_then(Value::as_array).into_iter().flatten().enumerate().take(MAX_LANES) {
                    if let Some(x) = x.as_f64() {
                        self.value(Monitor::RxPower, i, x);
                    }
                }
                return;
            }
            if key == "revision_compliance" {
                if let (Some(a), Some(b)) = (inner.get("major").and_then(Value::as_u64), inner.get("minor").and_then(Value::as_u64)) {
                    self.m.spec_revision = Some(format!("Rev. {a}.{b}"));
                }
                return;
            }
            for (k, x) in inner {
                self.json_value(&format!("{key}_{k}"), x, obj);
            }
            return;
        }
        let Some(field) = classify(key) else { return };
        let desc = || obj.get(&format!("{key}_description")).and_then(Value::as_str).map(str::to_string);
        let s = || v.as_str().and_then(text_opt);
        match field {
            Field::Identifier => {
                self.identifiers += 1;
                self.m.identifier_code = v.as_u64().and_then(|c| u8::try_from(c).ok());
                self.m.identifier = desc();
            }
            Field::Connector => {
                self.m.connector = v.as_u64().and_then(|c| u8::try_from(c).ok());
                self.m.connector_name = desc();
            }
            Field::ModuleState => {
                self.m.module_state = v.as_u64().and_then(|c| u8::try_from(c).ok()).map(ModuleState::from_code);
            }
            Field::LowPower(sw) => self.low_power(sw, v.as_bool()),
            Field::VendorName => self.m.vendor_name = s(),
            Field::VendorPn => self.m.vendor_pn = s(),
            Field::VendorSn => self.m.vendor_sn = s(),
            Field::VendorRev => self.m.vendor_rev = s(),
            Field::DateCode => self.m.date_code = s(),
            Field::Revision => self.m.spec_revision = s(),
            Field::VendorOui => {
                let b: Vec<u64> = v.as_array().into_iter().flatten().filter_map(Value::as_u64).collect();
                if b.len() == 3 && b.iter().any(|x| *x != 0) {
                    self.m.vendor_oui = Some(b.iter().map(|x| format!("{:02x}", x & 0xff)).collect::<Vec<_>>().join(":"));
                }
            }
            Field::Media => match v {
                Value::Array(a) => self.media.extend(a.iter().filter_map(|x| x.as_str().and_then(text_opt))),
                _ => self.media.extend(s()),
            },
            Field::Wavelength => self.m.wavelength_nm = v.as_f64().filter(|w| *w > 0.0),
            Field::NominalRate => self.m.nominal_signaling_rate_mbd = nominal_rate(v.as_f64()),
            Field::Value(_) | Field::Rx(_) => {
                let mon = match field {
                    Field::Value(m) => m,
                    _ => Monitor::RxPower,
                };
                if let Field::Rx(oma) = field {
                    self.m.rx_power_oma = Some(oma);
                }
                match v {
                    Value::Array(a) => {
                        for (i, x) in a.iter().enumerate().take(MAX_LANES) {
                            if let Some(x) = x.as_f64() {
                                self.value(mon, i, x);
                            }
                        }
                    }
                    _ => {
                        if let Some(x) = v.as_f64() {
                            self.value(mon, 0, x);
                        }
                    }
                }
            }
            Field::Threshold(mon, sev) => self.limits.set(mon, sev, v.as_f64()),
            Field::Flag(mon, sev) => match v {
                Value::Array(a) => {
                    for (i, x) in a.iter().enumerate().take(MAX_LANES) {
                        self.flag(mon, sev, Some(i), x.as_bool() == Some(true));
                    }
                }
                _ => self.flag(mon, sev, None, v.as_bool() == Some(true)),
            },
            Field::LaneStatus(flag) => {
                let lanes: Vec<bool> = v.as_array().into_iter().flatten().map(|x| x.as_bool() == Some(true)).collect();
                self.lane_status(flag, &lanes);
            }
        }
    }
}

fn fragment(m: PrintedModule, notes: Vec<String>) -> Fragment {
    Fragment { printed_module: Some(m), notes, ..Default::default() }
}

/// True when `text` looks like decoded `ethtool -m`: an `Identifier : 0xNN (...)` line.
pub(crate) fn is_decoded_text(text: &str) -> bool {
    content_lines(text).filter_map(key_value).any(|(k, v)| k == "Identifier" && code_and_name(v).is_some())
}

/// True when `v` is `ethtool --json -m` output: an array of one object with `identifier`
/// and `identifier_description`.
pub(crate) fn is_decoded_json(v: &Value) -> bool {
    v.as_array().and_then(|a| a.first()).is_some_and(|o| o.get("identifier").is_some() && o.get("identifier_description").is_some())
}

/// The module of decoded `ethtool -m` text.
pub fn parse_text_module(text: &str) -> ParseResult<(PrintedModule, Vec<String>)> {
    let mut b = Builder { m: PrintedModule { tool: TOOL.into(), ..Default::default() }, ..Default::default() };
    let mut lines = content_lines(text).peekable();
    while let Some(first) = lines.next() {
        // A mail sent format=flowed breaks a long line after a space (RFC 3676 4.2): the rest
        // comes on the next line, with no `:` of its own (`... 85.82 ` + `degrees F`).
        let mut line = Cow::Borrowed(first);
        while line.ends_with(' ') {
            let Some(rest) = lines.next_if(|n| !n.contains(':') && !n.trim().is_empty()) else { break };
            line = Cow::Owned(format!("{line}{}", rest.trim()));
        }
        if let Some((k, v)) = key_value(&line) {
            b.text_line(k, v, None);
        }
    }
    b.finish()
}

/// The module of `ethtool --json -m` output.
pub fn parse_json_module(text: &str) -> ParseResult<(PrintedModule, Vec<String>)> {
    let v: Value = serde_json::from_str(text).map_err(|e| ParseError::syntax(format_args!("not JSON: {e}")))?;
    let arr = v.as_array().ok_or_else(|| ParseError::malformed("not an ethtool --json array"))?;
    if arr.len() > 1 {
        return Err(ParseError::refused("more than one module in one file", "give each module's ethtool --json -m output as its own file"));
    }
    let obj = arr.first().and_then(Value::as_object).ok_or_else(|| ParseError::missing("module in the ethtool --json array"))?;
    let mut b = Builder { m: PrintedModule { tool: TOOL.into(), ..Default::default() }, ..Default::default() };
    for (k, v) in obj {
        b.json_value(k, v, obj);
    }
    b.finish()
}

/// A module another tool printed with ethtool's labels and no `Identifier` line (Junos
/// `show interfaces diagnostics optics`): `(label, value, lane)` lines, `lane` (0-based)
/// from the block heading the line is under.
pub(super) fn parse_labelled<'a>(
    tool: &str,
    lines: impl Iterator<Item = (&'a str, &'a str, Option<usize>)>,
) -> ParseResult<(PrintedModule, Vec<String>)> {
    let mut b = Builder { m: PrintedModule { tool: tool.into(), ..Default::default() }, anonymous: true, ..Default::default() };
    for (k, v, lane) in lines {
        b.text_line(k, v, lane);
    }
    b.finish()
}

pub(crate) fn parse_text(text: &str) -> ParseResult<Fragment> {
    parse_text_module(text).map(|(m, n)| fragment(m, n))
}

pub(crate) fn parse_json(text: &str) -> ParseResult<Fragment> {
    parse_json_module(text).map(|(m, n)| fragment(m, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mail_s_flowed_line_breaks_are_joined() {
        // As the intel-wired-lan paste (tests/fixtures/import/ethtool_m) wraps them: a line
        // broken after a space goes on with a line of no `:`.
        let text = "\tIdentifier : 0x03 (SFP)\n\tTransceiver type : Extended: 100G Base-SR4 or \n25GBase-SR\n\tModule temperature : 29.90 degrees C / 85.82 \ndegrees F\n\tVendor name : DELL EMC\n";
        let (m, _) = parse_text_module(text).unwrap();
        assert_eq!(m.media.as_deref(), Some("Extended: 100G Base-SR4 or 25GBase-SR"));
        assert_eq!(m.temperature_c, Some(29.90));
        assert_eq!(m.vendor_name.as_deref(), Some("DELL EMC"));
    }

    #[test]
    fn labels_of_every_version_normalise_to_one_key() {
        assert_eq!(split_channel("Rcvr signal avg optical power(Channel 3)"), ("Rcvr signal avg optical power", Some(2)));
        assert_eq!(split_channel("Laser bias current high alarm   (Chan 4)"), ("Laser bias current high alarm   ", Some(3)));
        assert_eq!(normalise("Laser bias current high alarm   "), "laser_bias_current_high_alarm");
        assert_eq!(classify("laser_bias_current_high_alarm"), Some(Field::Flag(Monitor::TxBias, Severity::HighAlarm)));
        assert_eq!(classify("laser_rx_power_low_warning_threshold"), Some(Field::Threshold(Monitor::RxPower, Severity::LowWarning)));
        assert_eq!(classify("rcvr_signal_avg_optical_power"), Some(Field::Rx(false)));
        assert_eq!(classify("module_temperature_measurement"), Some(Field::Value(Monitor::Temperature)));
        assert_eq!(classify("attenuation_at_5ghz"), None);
    }

    #[test]
    fn lane_status_and_flags_land_on_their_lanes() {
        let text = "\tIdentifier : 0x11 (QSFP28)\n\tRx loss of signal : [ No, Yes, No, No ]\n\
                    \tLaser tx power low alarm    (Channel 3) : On\n\tModule voltage high warning : On\n\
                    \tLaser tx bias current (Channel 2) : 7.154 mA\n";
        let (m, _) = parse_text_module(text).unwrap();
        let names = |f: &[ModuleFlag]| f.iter().map(|f| f.as_str()).collect::<Vec<_>>();
        assert_eq!(m.lane_flags.iter().map(|l| names(l)).collect::<Vec<_>>(), [vec![], vec!["rx_los"], vec!["tx_power_low_alarm"]]);
        assert_eq!(names(&m.module_flags), ["supply_voltage_high_warning"]);
        assert_eq!(m.tx_bias_ma, [None, Some(7.154)]);
        assert_eq!(m.identifier_code, Some(0x11));
    }

    #[test]
    fn the_module_state_is_its_code() {
        // ethtool cmis.c `cmis_show_mod_state` prints the 3-bit field and its name, or
        // `reserved or unknown`; the JSON gives the field as a number.
        let state = |line: &str| parse_text_module(&format!("\tIdentifier : 0x18 (QSFP-DD)\n{line}\n")).unwrap().0.module_state;
        assert_eq!(state("\tModule State : 0x03 (ModuleReady)"), Some(ModuleState::Ready));
        assert_eq!(state("\tModule state : 0x01 (ModuleLowPwr)"), Some(ModuleState::LowPwr));
        assert_eq!(state("\tModule State : 0x07 (reserved or unknown)"), Some(ModuleState::Reserved(7)));
        let json = r#"[{"identifier": 24, "identifier_description": "QSFP-DD Double Density 8X Pluggable Transceiver",
            "module_state": 5, "module_state_description": "ModuleFault"}]"#;
        assert_eq!(parse_json_module(json).unwrap().0.module_state, Some(ModuleState::Fault));
    }

    #[test]
    fn not_a_module_and_two_modules_are_refused() {
        assert!(matches!(parse_text_module("Vendor name : X\n").unwrap_err(), ParseError::Missing(m) if m.contains("Identifier")));
        let two = "Identifier : 0x03 (SFP)\nIdentifier : 0x03 (SFP)\n";
        assert!(matches!(parse_text_module(two).unwrap_err(), ParseError::Refused { .. }));
    }
}
