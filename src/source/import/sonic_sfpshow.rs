//! SONiC's transceiver EEPROM view with DOM (`show interfaces transceiver eeprom --dom`,
//! `sfputil show eeprom --dom`, both printed by sonic-utilities' `sfpshow`): per port a
//! `PORT: SFP EEPROM detected` heading, identity lines, then `ChannelMonitorValues`
//! (`RX1Power: -1.23dBm`, `TX1Bias: 6.07mA`, `TX1Power: ...dBm`), `ChannelThresholdValues`,
//! `ModuleMonitorValues` (`Temperature: 32.96C`, `Vcc: 3.30Volts`) and
//! `ModuleThresholdValues`. Indentation is not relied on (a web page or ticket collapses it).
//! Layout checked on the real output in tests/fixtures/switch/.

use super::{key_value, Fragment, ParseError, ParseResult};
use crate::module::flag::Severity;
use crate::module::printed::{LimitsSeen, Monitor, PrintedModule};
use crate::module::units::dbm_to_mw;

pub(crate) const TOOL: &str = "sonic sfpshow";

const DETECTED: &str = "SFP EEPROM detected";
const NOT_DETECTED: &str = "SFP EEPROM Not detected";

/// `Ethernet0: SFP EEPROM detected` -> (`Ethernet0`, true).
fn heading(line: &str) -> Option<(&str, bool)> {
    let (port, rest) = line.trim().split_once(':')?;
    let present = match rest.trim() {
        DETECTED => true,
        NOT_DETECTED => false,
        _ => return None,
    };
    let port = port.trim();
    (!port.is_empty()).then_some((port, present))
}

pub(crate) fn is_sfpshow(text: &str) -> bool {
    text.lines().any(|l| heading(l).is_some())
}

/// The leading number of `0.8422dBm`, `6.0740mA`, `32.9570C`, `3.2961Volts`; `N/A` is none.
fn number(v: &str) -> Option<f64> {
    let v = v.trim();
    let end = v.find(|c: char| !(c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'))).unwrap_or(v.len());
    // A unit may start with `e` (none of sfpshow's do); strip trailing exponent letters.
    let num = v[..end].trim_end_matches(['e', 'E']);
    num.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// `RX3Power` -> (`RX`, 3, `Power`).
fn lane_key(k: &str) -> Option<(&str, usize, &str)> {
    let dir = k.get(..2)?;
    let rest = &k[2..];
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let lane: usize = rest[..digits].parse().ok()?;
    (1..=32).contains(&lane).then_some((dir, lane, &rest[digits..]))
}

fn set(v: &mut Vec<Option<f64>>, lane: usize, x: Option<f64>) {
    if v.len() < lane {
        v.resize(lane, None);
    }
    v[lane - 1] = x;
}

/// The threshold stem of each monitor as sfpshow prints it (`RxPowerHighAlarm`) and whether
/// it prints the limit in dBm (kept in mW).
const LIMITS: [(&str, Monitor, bool); 5] = [
    ("RxPower", Monitor::RxPower, true),
    ("TxPower", Monitor::TxPower, true),
    ("TxBias", Monitor::TxBias, false),
    ("Temp", Monitor::Temperature, false),
    ("Vcc", Monitor::Voltage, false),
];
/// sfpshow's severity suffixes.
const SEVERITIES: [(&str, Severity); 4] = [
    ("HighAlarm", Severity::HighAlarm),
    ("LowAlarm", Severity::LowAlarm),
    ("HighWarning", Severity::HighWarning),
    ("LowWarning", Severity::LowWarning),
];

#[derive(Default)]
struct Port {
    m: PrintedModule,
    limits: LimitsSeen,
    media: Vec<String>,
}

impl Port {
    fn line(&mut self, k: &str, v: &str) {
        let text = || Some(v.trim().to_string()).filter(|t| !t.is_empty() && t != "N/A");
        match k {
            "Identifier" => {
                self.m.identifier = text();
                // SFF-8024 Table 4-1 0x1E: the CMIS form factor sfpshow names this way.
                if v.contains("with CMIS") {
                    self.m.identifier_code = Some(0x1e);
                }
            }
            "Vendor Name" => self.m.vendor_name = text(),
            "Vendor PN" => self.m.vendor_pn = text(),
            "Vendor SN" => self.m.vendor_sn = text(),
            "Vendor Rev" => self.m.vendor_rev = text(),
            "Vendor OUI" => self.m.vendor_oui = text().filter(|o| o != "00-00-00"),
            "Temperature" => self.m.temperature_c = number(v),
            "Vcc" => self.m.supply_voltage_v = number(v),
            _ if k.starts_with("Vendor Date Code") => self.m.date_code = text(),
            // What the module is: the compliance codes, the CMIS media interface.
            _ if k.contains("Compliance")
                || k.contains("compliance")
                || k == "Media Interface Code"
                || k == "Application Advertisement" =>
            {
                self.media.extend(text().filter(|t| !t.starts_with("Unknown") && t != "Extended"));
            }
            _ => {
                if let Some((dir, lane, what)) = lane_key(k) {
                    let x = number(v);
                    match (dir, what) {
                        ("RX", "Power") => set(&mut self.m.rx_power_dbm, lane, x),
                        ("TX", "Power") => set(&mut self.m.tx_power_dbm, lane, x),
                        ("TX", "Bias") => set(&mut self.m.tx_bias_ma, lane, x),
                        _ => {}
                    }
                    return;
                }
                for (stem, mon, dbm) in LIMITS {
                    if let Some(&(_, sev)) = k.strip_prefix(stem).and_then(|s| SEVERITIES.iter().find(|(x, _)| *x == s)) {
                        self.limits.set(mon, sev, number(v).map(|x| if dbm { dbm_to_mw(x) } else { x }));
                    }
                }
            }
        }
    }

    fn finish(mut self) -> PrintedModule {
        self.m.thresholds = self.limits.thresholds();
        if !self.media.is_empty() {
            self.m.media = Some(self.media.join("; "));
        }
        self.m
    }
}

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut ports: Vec<Fragment> = Vec::new();
    let mut notes = Vec::new();
    let mut cur: Option<(String, Port)> = None;
    let close = |cur: Option<(String, Port)>, ports: &mut Vec<Fragment>| {
        if let Some((name, p)) = cur {
            let m = p.finish();
            let mut notes = Vec::new();
            let lanes = [&m.rx_power_dbm, &m.tx_power_dbm, &m.tx_bias_ma];
            if m.temperature_c.is_none() && lanes.iter().all(|v| v.iter().all(Option::is_none)) {
                notes.push(format!(
                    "{name}: identity only, no DOM printed: run `show interfaces transceiver eeprom --dom {name}` for its powers"
                ));
            }
            ports.push(Fragment { interface: Some(name), printed_module: Some(m), notes, ..Default::default() });
        }
    };
    for line in text.lines() {
        if let Some((port, present)) = heading(line) {
            close(cur.take(), &mut ports);
            if present {
                cur = Some((port.to_string(), Port { m: PrintedModule { tool: TOOL.into(), ..Default::default() }, ..Default::default() }));
            } else {
                notes.push(format!("{port}: no module (SFP EEPROM not detected): skipped"));
            }
            continue;
        }
        if let (Some((_, p)), Some((k, v))) = (cur.as_mut(), key_value(line)) {
            p.line(k, v);
        }
    }
    close(cur, &mut ports);
    if ports.is_empty() {
        return Err(ParseError::missing("port with a module (`PORT: SFP EEPROM detected`)"));
    }
    Ok(Fragment { ports, notes, ..Default::default() })
}
