//! The kernel log as `dmesg` (`[   18.577870] ...`), `dmesg -T` (`[Thu Feb 29 13:47:22
//! 2024] ...`), `journalctl -k` and syslog (`Feb 05 15:41:33 host kernel: ...`,
//! `2024-02-29T13:47:22+0100 host kernel: ...`) print it, a mail's wrapped lines joined
//! again: what the drivers, the PCI core and AER said of each PCI function
//! ([`crate::device::kernel_log`]). Lines that name no PCI function, and messages of no
//! kind read here, are passed over.

use super::ParseResult;
use crate::device::host::{Fact, HostFacts};
use crate::device::kernel_log::{
    AerErrors, CorrectableError, KernelEvent, KernelLog, KernelMessage, KernelTime, ModuleStatus, PcieBandwidth, MAX_KERNEL_MESSAGES,
    MAX_MESSAGE_TEXT_BYTES,
};
use crate::device::PciAddress;
use std::collections::{BTreeMap, BTreeSet};

/// What one log says, keyed by PCI function.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct KernelLogs {
    /// Each function's statements.
    pub(crate) functions: BTreeMap<PciAddress, KernelLog>,
    /// Each netdev name and the functions lines gave it to (`ice 0000:10:00.1 ens1f1: ...`):
    /// a name given to one function only names it.
    pub(crate) netdevs: BTreeMap<String, BTreeSet<PciAddress>>,
    /// The netdev the latest line naming one gave each function (after a rename).
    pub(crate) latest_netdev: BTreeMap<PciAddress, String>,
    /// Functions past [`MAX_FUNCTIONS`], left out.
    pub(crate) functions_dropped: usize,
}

impl KernelLogs {
    /// The function the log's lines give `netdev` to, when they give it to one only.
    pub(crate) fn function_of(&self, netdev: &str) -> Option<PciAddress> {
        match self.netdevs.get(netdev).map(|s| s.iter().collect::<Vec<_>>()).as_deref() {
            Some([one]) => Some(**one),
            _ => None,
        }
    }
}

/// Most functions one log is read for: a host has a few hundred at most (a 16 MiB log naming
/// more is not one host's).
const MAX_FUNCTIONS: usize = 4096;
/// Lines looked at to tell a kernel log from another output.
const RECOGNIZE_LINES: usize = 1000;
/// The longest logical line kept while joining a mail's wrapped lines.
const MAX_LINE_BYTES: usize = 2048;

/// One line of the input.
enum Line<'a> {
    /// A kernel line: its stamp and its message.
    Kernel(KernelTime, &'a str),
    /// A stamped line of another program (a journal of every unit, syslog).
    Other,
    /// No stamp: a wrapped line's rest, a prompt, a heading.
    Unstamped,
}

const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

fn is_clock(w: &str) -> bool {
    // hh:mm:ss, with journalctl -o short-precise's fraction.
    let w = w.split('.').next().unwrap_or(w);
    w.len() == 8 && w.split(':').count() == 3 && w.split(':').all(|p| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit()))
}

/// `18.577870` -> 18577870 µs.
fn boot_us(s: &str) -> Option<u64> {
    let (sec, frac) = s.split_once('.')?;
    let sec: u64 = sec.parse().ok()?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut us = frac.to_string();
    us.truncate(6);
    while us.len() < 6 {
        us.push('0');
    }
    sec.checked_mul(1_000_000)?.checked_add(us.parse().ok()?)
}

/// `Thu Feb 29 13:47:22 2024` (dmesg -T, `%a %b %e %H:%M:%S %Y`).
fn is_ctime(s: &str) -> bool {
    let w: Vec<&str> = s.split_whitespace().collect();
    w.len() == 5 && MONTHS.contains(&w[1]) && w[2].parse::<u8>().is_ok() && is_clock(w[3]) && w[4].parse::<u16>().is_ok()
}

/// After a journal's or syslog's stamp: `host kernel: message`, else another program's line.
fn kernel_ident(rest: &str) -> Option<&str> {
    let rest = rest.trim_start();
    let (_host, rest) = rest.split_once(' ')?;
    rest.strip_prefix("kernel: ")
}

fn classify(line: &str) -> Line<'_> {
    let mut s = line.trim_end();
    // `dmesg -r` / `dmesg -x`'s priority: `<6>[ 8364.650898] ...`.
    if let Some(rest) = s.strip_prefix('<') {
        if let Some((p, rest)) = rest.split_once('>') {
            if !p.is_empty() && p.len() <= 3 && p.bytes().all(|b| b.is_ascii_digit()) {
                s = rest;
            }
        }
    }
    if let Some(rest) = s.strip_prefix('[') {
        let Some((stamp, body)) = rest.split_once(']') else { return Line::Unstamped };
        let at = if let Some(us) = boot_us(stamp.trim()) {
            KernelTime { boot_us: Some(us), wall: None }
        } else if is_ctime(stamp.trim()) {
            KernelTime { boot_us: None, wall: Some(stamp.trim().to_string()) }
        } else {
            return Line::Unstamped;
        };
        // journalctl -o short-monotonic: `[   18.577870] host kernel: ...`.
        let body = kernel_ident(body).unwrap_or(body.trim_start());
        return match body.is_empty() {
            true => Line::Unstamped,
            false => Line::Kernel(at, body),
        };
    }
    let words: Vec<&str> = s.split_whitespace().take(3).collect();
    // journalctl -k / syslog: `Feb 05 15:41:33 host kernel: ...` (a single-digit day padded).
    if words.len() == 3 && MONTHS.contains(&words[0]) && words[1].parse::<u8>().is_ok() && is_clock(words[2]) {
        let after = s.find(words[2]).map_or("", |i| &s[i + words[2].len()..]);
        let wall = s[..s.len() - after.len()].split_whitespace().collect::<Vec<_>>().join(" ");
        return match kernel_ident(after) {
            Some(body) if !body.trim().is_empty() => Line::Kernel(KernelTime { boot_us: None, wall: Some(wall) }, body),
            _ => Line::Other,
        };
    }
    // journalctl -o short-iso: `2024-02-29T13:47:22+0100 host kernel: ...`.
    if let Some(first) = words.first().filter(|w| w.len() >= 19 && w.as_bytes()[10] == b'T' && w.as_bytes()[4] == b'-') {
        let after = &s[first.len()..];
        return match kernel_ident(after) {
            Some(body) if !body.trim().is_empty() => Line::Kernel(KernelTime { boot_us: None, wall: Some(first.to_string()) }, body),
            _ => Line::Other,
        };
    }
    Line::Unstamped
}

/// True when `text` is a kernel log: of its first lines, at least two are stamped kernel
/// lines and stamped lines (kernel or not) are most of them (a mail's wrapped lines and a
/// pasted prompt are not).
pub(crate) fn is_kernel_log(text: &str) -> bool {
    let (mut kernel, mut stamped, mut all) = (0usize, 0usize, 0usize);
    for line in text.lines().filter(|l| !l.trim().is_empty()).take(RECOGNIZE_LINES) {
        all += 1;
        match classify(line) {
            Line::Kernel(..) => {
                kernel += 1;
                stamped += 1;
            }
            Line::Other => stamped += 1,
            Line::Unstamped => {}
        }
    }
    kernel >= 2 && stamped * 2 >= all
}

/// The function a message names, its driver's prefix taken off:
/// `i40e 0000:5e:00.1: Rx/Tx is disabled ...`, `ice 0000:10:00.1 ens1f1: NIC Link is up ...`
/// (dev_printk's `driver address: `, netdev_printk's `driver address netdev: `).
fn device_prefix(body: &str) -> Option<(&str, PciAddress, Option<&str>, &str)> {
    let (driver, rest) = body.split_once(' ')?;
    if driver.ends_with(':') {
        return None;
    }
    let (addr, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let (addr, netdev, text) = match addr.strip_suffix(':') {
        Some(a) => (a, None, rest),
        None => {
            let (netdev, text) = rest.split_once(' ').unwrap_or((rest, ""));
            (addr, Some(netdev.strip_suffix(':')?), text)
        }
    };
    let address = PciAddress::parse(addr)?;
    Some((driver, address, netdev.filter(|n| !n.is_empty() && n.len() <= 15), strip_source(text.trim())))
}

/// mlx5_core's `port_module:247:(pid 0): ` (`mlx5_core_err`'s `%s:%d:(pid %d): `) and AER's
/// `AER: ` before the message.
fn strip_source(text: &str) -> &str {
    let text = text.strip_prefix("AER: ").unwrap_or(text);
    if let Some(i) = text.find(":(pid ").filter(|i| *i < 64) {
        let (func, line) = text[..i].rsplit_once(':').unwrap_or(("", ""));
        if !func.is_empty() && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()) {
            if let Some(j) = text[i..].find("): ") {
                return text[i + j + 3..].trim_start();
            }
        }
    }
    text
}

fn contains_ci(text: &str, phrase: &str) -> bool {
    text.to_ascii_lowercase().contains(phrase)
}

/// The drivers' statements that they refuse the module or keep the port down for it,
/// lower case: i40e and ice (`Rx/Tx is disabled on this device because an unsupported SFP
/// module type was detected.`, i40e_main.c `i40e_handle_link_event`), ixgbe at probe and at
/// a hot plug (ixgbe_main.c), ice's module checks (ice_main.c `ice_check_module_power`),
/// bnxt_en's module status (bnxt.c `bnxt_hwrm_port_module_status`).
const REFUSALS: &[&str] = &[
    "rx/tx is disabled on this device because",
    "unsupported sfp+ or qsfp module type was detected",
    "unsupported sfp+ module type was detected",
    "unqualified sfp+ module detected",
    "the installed module is incompatible with the device's nvm image",
    "the module's power requirements exceed the device's power supply",
];

/// `Port module event[error]: module 1, Cable error, Bus stuck (I2C or data shorted)`,
/// `Port module event: module 1, Cable unplugged` (mlx5 events.c `port_module`).
fn module_event(text: &str) -> Option<KernelEvent> {
    let rest = text.strip_prefix("Port module event[error]: module ").or_else(|| text.strip_prefix("Port module event: module "))?;
    let mut parts = rest.splitn(3, ", ");
    let module = parts.next()?.trim().parse().ok()?;
    let status = match parts.next()?.trim() {
        "Cable plugged" => ModuleStatus::Plugged,
        "Cable unplugged" => ModuleStatus::Unplugged,
        "Cable error" => ModuleStatus::Error,
        "Cable disabled" => ModuleStatus::Disabled,
        _ => return None,
    };
    let error = parts.next().map(|e| e.trim().to_string()).filter(|e| !e.is_empty());
    Some(KernelEvent::ModuleEvent { module, status, error })
}

/// The speed a link-up line states: `25 Gbps`, `10 Gbps`, `1000 Mbps`, `25000 Mbps`, `2.5 Gbps`.
fn speed_mbps(text: &str) -> Option<u32> {
    let words: Vec<&str> = text.split([' ', ',']).filter(|w| !w.is_empty()).collect();
    words.windows(2).find_map(|w| {
        let v: f64 = w[0].parse().ok()?;
        let mbps = match w[1] {
            "Gbps" => v * 1000.0,
            "Mbps" => v,
            _ => return None,
        };
        (mbps.is_finite() && mbps > 0.0 && mbps < f64::from(u32::MAX)).then(|| mbps.round() as u32)
    })
}

fn link_event(text: &str) -> Option<KernelEvent> {
    let lower = text.to_ascii_lowercase();
    // mlx5e_update_carrier prints exactly `Link up` / `Link down`.
    if lower.contains("nic link is up") || text == "Link up" {
        let fec =
            text.split_once("Negotiated FEC: ").map(|(_, f)| f.split(',').next().unwrap_or(f).trim().to_string()).filter(|f| !f.is_empty());
        return Some(KernelEvent::LinkUp { speed_mbps: speed_mbps(text), fec });
    }
    (lower.contains("nic link is down") || text == "Link down").then_some(KernelEvent::LinkDown)
}

fn event_of(text: &str) -> Option<KernelEvent> {
    if let Some(e) = link_event(text).or_else(|| module_event(text)) {
        return Some(e);
    }
    if REFUSALS.iter().any(|p| contains_ci(text, p)) {
        return Some(KernelEvent::ModuleRefused);
    }
    // ice_main.c `ice_print_topo_conflict`, `ice_check_module_power` and the link event.
    if text.starts_with("Module is not present.") {
        return Some(KernelEvent::ModuleAbsent);
    }
    if text.starts_with("A parallel fault was detected.") || text.starts_with("Potential misconfiguration of the Ethernet port detected.") {
        return Some(KernelEvent::PortFault);
    }
    None
}

/// `63.008 Gb/s` -> 63008 Mb/s.
fn gbps_to_mbps(s: &str) -> Option<u64> {
    let v = s.strip_suffix(" Gb/s").unwrap_or(s).trim();
    let (whole, frac) = v.split_once('.').unwrap_or((v, "0"));
    let mut frac = frac.to_string();
    frac.truncate(3);
    while frac.len() < 3 {
        frac.push('0');
    }
    whole.parse::<u64>().ok()?.checked_mul(1000)?.checked_add(frac.parse().ok()?)
}

/// `8.0 GT/s PCIe x8 link` -> (`8.0 GT/s PCIe`, 8).
fn speed_width(s: &str) -> Option<(String, u32)> {
    let s = s.trim().strip_suffix(" link").unwrap_or(s.trim());
    let (speed, width) = s.rsplit_once(" x")?;
    Some((speed.trim().to_string(), width.parse().ok()?))
}

fn pcie_bandwidth(text: &str, at: &KernelTime) -> Option<PcieBandwidth> {
    let (avail, rest) = text.split_once(" available PCIe bandwidth")?;
    let available_mbps = gbps_to_mbps(avail)?;
    if let Some(rest) = rest.strip_prefix(", limited by ") {
        let (link, rest) = rest.split_once(" at ")?;
        let (speed, width) = speed_width(link)?;
        let (limited_at, rest) = rest.split_once(" (capable of ")?;
        let (cap, cap_link) = rest.split_once(" with ")?;
        let (capable_speed, capable_width) = speed_width(cap_link.split(')').next()?)?;
        return Some(PcieBandwidth {
            at: at.clone(),
            available_mbps,
            speed,
            width,
            limited_at: Some(limited_at.trim().to_string()),
            capable_mbps: gbps_to_mbps(cap)?,
            capable_speed,
            capable_width,
        });
    }
    let (speed, width) = speed_width(rest.trim().strip_prefix('(')?.split(')').next()?)?;
    Some(PcieBandwidth {
        at: at.clone(),
        available_mbps,
        capable_mbps: available_mbps,
        capable_speed: speed.clone(),
        capable_width: width,
        speed,
        width,
        limited_at: None,
    })
}

/// The severity of a `PCIe Bus Error: severity=..., type=...` line.
enum Severity {
    Corrected,
    NonFatal,
    Fatal,
}

fn aer_severity(text: &str) -> Option<Severity> {
    let s = text.strip_prefix("PCIe Bus Error: severity=")?;
    let s = s.split(", type=").next()?.trim();
    Some(match s {
        "Corrected" | "Correctable" => Severity::Corrected,
        _ if s.contains("Non-Fatal") => Severity::NonFatal,
        _ if s.contains("Fatal") => Severity::Fatal,
        _ => return None,
    })
}

/// `[ 0] RxErr                  (First)` -> 0.
fn aer_bit(text: &str) -> Option<u32> {
    let (bit, _) = text.strip_prefix('[')?.split_once(']')?;
    bit.trim().parse().ok()
}

/// Reads a kernel log.
pub(crate) fn parse(text: &str) -> ParseResult<super::Fragment> {
    let mut logs = KernelLogs::default();
    // A message and its mail-wrapped rest, joined before it is read.
    let mut pending: Option<(KernelTime, String)> = None;
    // A format=flowed mail ends a line it wrapped with a space: only such a line goes on.
    let mut wrapped = false;
    // The function whose AER report the `[ N] Name` lines that follow belong to, and
    // whether that report is of corrected errors.
    let mut aer_of: Option<(PciAddress, bool)> = None;
    for line in text.lines() {
        let goes_on = std::mem::replace(&mut wrapped, line.ends_with(' '));
        match classify(line) {
            Line::Kernel(at, body) => {
                if let Some((at, body)) = pending.take() {
                    read_message(&mut logs, &at, &body, &mut aer_of);
                }
                pending = Some((at, body.to_string()));
            }
            Line::Other => {
                if let Some((at, body)) = pending.take() {
                    read_message(&mut logs, &at, &body, &mut aer_of);
                }
            }
            Line::Unstamped => {
                let rest = line.trim();
                match pending.as_mut() {
                    // A wrapped line's rest (format=flowed mail), not a prompt or heading.
                    Some((_, body)) if goes_on && !rest.is_empty() && body.len() + rest.len() < MAX_LINE_BYTES => {
                        if !body.ends_with(' ') {
                            body.push(' ');
                        }
                        body.push_str(rest);
                    }
                    _ => {
                        if let Some((at, body)) = pending.take() {
                            read_message(&mut logs, &at, &body, &mut aer_of);
                        }
                    }
                }
            }
        }
    }
    if let Some((at, body)) = pending.take() {
        read_message(&mut logs, &at, &body, &mut aer_of);
    }
    let mut notes = Vec::new();
    if logs.functions_dropped > 0 {
        notes.push(format!("the kernel log names more than {MAX_FUNCTIONS} PCI functions: {} more left out", logs.functions_dropped));
    }
    Ok(super::Fragment { kernel_log: Some(logs), notes, ..Default::default() })
}

fn read_message(logs: &mut KernelLogs, at: &KernelTime, body: &str, aer_of: &mut Option<(PciAddress, bool)>) {
    let Some((driver, address, netdev, text)) = device_prefix(body) else { return };
    let known = logs.functions.len();
    let log = match logs.functions.get_mut(&address) {
        Some(l) => l,
        None if known >= MAX_FUNCTIONS => {
            logs.functions_dropped += 1;
            return;
        }
        None => logs.functions.entry(address).or_default(),
    };
    if let Some(n) = netdev {
        logs.netdevs.entry(n.to_string()).or_default().insert(address);
        logs.latest_netdev.insert(address, n.to_string());
    }
    if let Some(sev) = aer_severity(text) {
        let aer = log.aer.get_or_insert_with(|| AerErrors { first: at.clone(), ..Default::default() });
        match sev {
            Severity::Corrected => aer.corrected += 1,
            Severity::NonFatal => aer.nonfatal += 1,
            Severity::Fatal => aer.fatal += 1,
        }
        aer.last = at.clone();
        *aer_of = Some((address, matches!(sev, Severity::Corrected)));
        return;
    }
    if let Some(bit) = aer_bit(text) {
        if let (Some((a, true)), Some(aer)) = (aer_of.as_ref(), log.aer.as_mut()) {
            if *a == address {
                if let Some(kind) = CorrectableError::of_bit(bit) {
                    *aer.corrected_by_kind.entry(kind).or_default() += 1;
                }
            }
        }
        return;
    }
    if let Some(bw) = pcie_bandwidth(text, at) {
        log.pcie_bandwidth = Some(bw);
        return;
    }
    if log.driver.is_none() && !["pci", "pcieport"].contains(&driver) {
        log.driver = Some(driver.to_string());
    }
    let Some(event) = event_of(text) else { return };
    if log.messages.len() >= MAX_KERNEL_MESSAGES {
        log.messages.remove(0);
        log.messages_dropped += 1;
    }
    let mut text = text.to_string();
    if text.len() > MAX_MESSAGE_TEXT_BYTES {
        let mut end = MAX_MESSAGE_TEXT_BYTES;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    log.messages.push(KernelMessage { at: at.clone(), netdev: netdev.map(str::to_string), event, text });
}

/// Gives each interface (its name, its `ethtool -i` bus-info, its host facts) what the
/// kernel logs say of its function: the one at its bus-info, else the one the log's own
/// lines give its name to. Functions the logs speak of that no interface is at are said in
/// a note, not guessed at.
pub(crate) fn join<'a>(
    logs: &[&KernelLogs],
    ports: impl Iterator<Item = (&'a str, Option<&'a str>, &'a mut HostFacts)>,
    notes: &mut Vec<String>,
) {
    if logs.is_empty() {
        return;
    }
    let mut joined = BTreeSet::new();
    for (name, bus_info, host) in ports {
        let by_bus = bus_info.and_then(|b| PciAddress::parse_domain_optional(b.trim()));
        let found = logs.iter().find_map(|l| {
            let address = by_bus.or_else(|| l.function_of(name))?;
            Some((address, l.functions.get(&address)?))
        });
        match found {
            Some((address, log)) => {
                joined.insert(address);
                if host.kernel_log.is_none() {
                    host.kernel_log = Some(Fact::import(log.clone()));
                }
            }
            None => notes.push(match by_bus {
                Some(a) => format!("{name}: the kernel log says nothing of its function {a}"),
                None => format!("{name}: no bus-info (ethtool -i) and no kernel log line names it: the kernel log is not used for it"),
            }),
        }
    }
    let others: BTreeMap<PciAddress, (&KernelLog, Option<&String>)> = logs
        .iter()
        .flat_map(|l| l.functions.iter().map(move |(a, f)| (*a, (f, l.latest_netdev.get(a)))))
        .filter(|(a, _)| !joined.contains(a))
        .collect();
    if others.is_empty() {
        return;
    }
    let named = |(a, (l, netdev)): (&PciAddress, &(&KernelLog, Option<&String>))| {
        let what: Vec<&str> = netdev.map(String::as_str).into_iter().chain(l.driver.as_deref()).collect();
        match what.is_empty() {
            true => a.to_string(),
            false => format!("{a} ({})", what.join(", ")),
        }
    };
    let listed: Vec<String> = others.iter().take(MAX_LISTED).map(named).collect();
    for r in refusals(logs.iter().copied(), &joined) {
        notes.push(format!("the kernel log says of a function no interface of the input is at: {r}"));
    }
    let more = match others.len().saturating_sub(MAX_LISTED) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    notes.push(format!(
        "the kernel log speaks of {} PCI function(s) no interface of the input is at: {}{more}; their lines are not used",
        others.len(),
        listed.join(", ")
    ));
}

/// What the logs say of functions whose driver refused their module or found their port in
/// fault, one sentence each (`0000:5f:00.1 (ixgbe): "failed to load because ..." (3.021043 s
/// after boot)`): a port whose driver failed to load it has no netdev to import, and its
/// only trace is this line.
pub(crate) fn refusals<'a>(logs: impl Iterator<Item = &'a KernelLogs>, except: &BTreeSet<PciAddress>) -> Vec<String> {
    logs.flat_map(|l| &l.functions)
        .filter(|(a, _)| !except.contains(*a))
        .filter_map(|(a, f)| {
            let m = f.down_reason()?;
            let driver = f.driver.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
            Some(format!("{a}{driver}: \"{}\" ({})", m.text, m.at))
        })
        .take(MAX_LISTED)
        .collect()
}

/// Functions a note names before it counts the rest.
const MAX_LISTED: usize = 8;

#[cfg(test)]
mod tests {
    use super::*;

    fn logs(text: &str) -> KernelLogs {
        parse(text).unwrap().kernel_log.unwrap()
    }

    fn at(s: &str) -> PciAddress {
        PciAddress::parse(s).unwrap()
    }

    #[test]
    fn stamps_of_each_form() {
        let l = logs("[   18.577870] ice 0000:10:00.1 ens1f1: NIC Link is Down\n");
        assert_eq!(l.functions[&at("0000:10:00.1")].messages[0].at.boot_us, Some(18_577_870));
        let l = logs("[Thu Feb 29 13:47:22 2024] ice 0000:10:00.1 ens1f1: NIC Link is Down\n");
        assert_eq!(l.functions[&at("0000:10:00.1")].messages[0].at.wall.as_deref(), Some("Thu Feb 29 13:47:22 2024"));
        let l =
            logs("Feb  5 15:41:33 hostname kernel: ice 0000:10:00.1 ens1f1: NIC Link is Down\nFeb  5 15:41:34 hostname systemd[1]: x\n");
        assert_eq!(l.functions[&at("0000:10:00.1")].messages[0].at.wall.as_deref(), Some("Feb 5 15:41:33"));
        let l = logs("2024-02-29T13:47:22+0100 host kernel: mlx5_core 0000:08:00.0 eth2: Link down\n");
        assert_eq!(l.functions[&at("0000:08:00.0")].messages[0].event, KernelEvent::LinkDown);
        let l = logs("<6>[ 8364.650898] ice 0000:01:00.0 ice0: NIC Link is up 25 Gbps Full Duplex, Requested FEC: RS-FEC, Negotiated FEC: RS-FEC, Autoneg Advertised: Off\n");
        assert_eq!(
            l.functions[&at("0000:01:00.0")].messages[0].event,
            KernelEvent::LinkUp { speed_mbps: Some(25_000), fec: Some("RS-FEC".into()) }
        );
        assert_eq!(l.function_of("ice0"), Some(at("0000:01:00.0")));
    }

    #[test]
    fn recognised_by_its_stamped_lines() {
        assert!(is_kernel_log("$ dmesg | grep i40e\n[ 18.5] i40e 0000:5e:00.0: x\n[ 18.6] i40e 0000:5e:00.0: y\n"));
        assert!(!is_kernel_log("[1.5]\n"));
        assert!(!is_kernel_log("[ 18.5] one line only\nand prose\nand more prose\n"));
        assert!(!is_kernel_log("NIC statistics:\n rx: 1\n"));
    }

    #[test]
    fn mlx5_source_prefix_and_module_events() {
        // A BlueField user's report (the code index's file 2419053720, a README of BlueField
        // setup notes) and gpud's kmsg test lines: mlx5_core_err's `%s:%d:(pid %d): ` prefix.
        let l = logs("[   12.0] mlx5_core 0000:04:00.1: port_module:247:(pid 0): Port module event[error]: module 1, Cable error, Bus stuck (I2C or data shorted)\n[    8.951695] mlx5_core 0000:04:00.1: Port module event: module 1, Cable unplugged\n");
        let m = &l.functions[&at("0000:04:00.1")].messages;
        assert_eq!(
            m[0].event,
            KernelEvent::ModuleEvent { module: 1, status: ModuleStatus::Error, error: Some("Bus stuck (I2C or data shorted)".into()) }
        );
        assert_eq!(m[1].event, KernelEvent::ModuleEvent { module: 1, status: ModuleStatus::Unplugged, error: None });
    }

    #[test]
    fn bandwidth_lines() {
        let t = KernelTime::default();
        let b = pcie_bandwidth("63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0000:00:01.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)", &t).unwrap();
        assert_eq!(
            (b.available_mbps, b.speed.as_str(), b.width, b.limited_at.as_deref()),
            (63_008, "8.0 GT/s PCIe", 8, Some("0000:00:01.0"))
        );
        assert_eq!((b.capable_mbps, b.capable_speed.as_str(), b.capable_width), (126_016, "8.0 GT/s PCIe", 16));
        let b = pcie_bandwidth("32.000 Gb/s available PCIe bandwidth (5.0 GT/s PCIe x8 link)", &t).unwrap();
        assert_eq!((b.available_mbps, b.capable_mbps, b.width, b.limited_at), (32_000, 32_000, 8, None));
    }

    #[test]
    fn a_log_bounds_what_it_keeps() {
        let line = "[ 1.000000] ice 0000:10:00.1 ens1f1: NIC Link is Down\n";
        let l = logs(&line.repeat(MAX_KERNEL_MESSAGES + 5));
        let f = &l.functions[&at("0000:10:00.1")];
        assert_eq!((f.messages.len(), f.messages_dropped), (MAX_KERNEL_MESSAGES, 5));
    }

    #[test]
    fn the_e810_log_gives_each_function_its_lines() {
        // tests/fixtures/kernel-log/README.md: ice on an E810 with four ports per x16 card.
        let l = logs(include_str!("../../../tests/fixtures/kernel-log/ice-e810-sos/sos_commands/kernel/dmesg"));
        assert_eq!(l.functions.len(), 8);
        let f = &l.functions[&at("0000:10:00.1")];
        assert_eq!(f.driver.as_deref(), Some("ice"));
        // "126.024 Gb/s available PCIe bandwidth, limited by 16.0 GT/s PCIe x8 link at
        // 0000:0f:02.0 (capable of 252.048 Gb/s with 16.0 GT/s PCIe x16 link)".
        let b = f.pcie_bandwidth.as_ref().unwrap();
        assert_eq!((b.available_mbps, b.speed.as_str(), b.width), (126_024, "16.0 GT/s PCIe", 8));
        assert_eq!((b.limited_at.as_deref(), b.capable_mbps, b.capable_width), (Some("0000:0f:02.0"), 252_048, 16));
        assert_eq!(b.at.boot_us, Some(1_257_097_668));
        assert_eq!(f.messages.len(), 1);
        assert_eq!(f.messages[0].event, KernelEvent::LinkUp { speed_mbps: Some(25_000), fec: Some("RS-FEC".into()) });
        assert_eq!(f.messages[0].at.boot_us, Some(1_258_079_089));
        assert_eq!(l.function_of("ens1f1"), Some(at("0000:10:00.1")));
        assert_eq!(l.latest_netdev[&at("0000:12:00.3")], "ens2f3");
        // "A parallel fault was detected." and "Module is not present.".
        assert_eq!(l.functions[&at("0000:10:00.0")].messages[0].event, KernelEvent::PortFault);
        assert_eq!(l.functions[&at("0000:10:00.2")].messages[0].event, KernelEvent::ModuleAbsent);
        assert_eq!(l.functions[&at("0000:12:00.2")].pcie_bandwidth.as_ref().unwrap().limited_at.as_deref(), Some("0000:0f:04.0"));
    }

    #[test]
    fn a_link_down_and_a_line_the_journal_cut() {
        let l = logs(include_str!("../../../tests/fixtures/kernel-log/ice_e810_link_down_journal_truncated_netdev.txt"));
        let down = &l.functions[&at("0000:10:00.1")].messages[0];
        assert_eq!(
            (&down.event, down.at.boot_us, down.netdev.as_deref()),
            (&KernelEvent::LinkDown, Some(1_193_024_082_447), Some("ens1f1"))
        );
        // `... Flow Contr>`: cut by the pager, its speed and FEC read all the same.
        let up = &l.functions[&at("0000:10:00.2")].messages[0];
        assert_eq!(up.event, KernelEvent::LinkUp { speed_mbps: Some(25_000), fec: Some("RS-FEC".into()) });
        // iavf's VF lines: `NIC Link is Up Speed is 25 Gbps Full Duplex`.
        assert_eq!(l.functions[&at("0000:10:11.2")].messages[0].event, KernelEvent::LinkUp { speed_mbps: Some(25_000), fec: None });
        // The RCU lines name no function.
        assert_eq!(l.functions.len(), 8);
    }

    #[test]
    fn aer_reports_counted_by_bit() {
        // Four reports of a receiver error on a root port, an hour apart (dmesg -T).
        let l = logs(include_str!("../../../tests/fixtures/kernel-log/aer_root_port_dmesg_T_linux-pci.txt"));
        let a = l.functions[&at("0000:00:06.0")].aer.as_ref().unwrap();
        assert_eq!((a.corrected, a.nonfatal, a.fatal, a.physical_layer(), a.data_link_layer()), (4, 0, 0, 4, 0));
        assert_eq!(a.first.wall.as_deref(), Some("Thu Feb 29 13:47:22 2024"));
        assert_eq!(a.last.wall.as_deref(), Some("Thu Feb 29 15:27:56 2024"));
        // An endpoint's `severity=Correctable` report with bits 0, 6 and 7 set (status
        // 0x000000c1); the bits printed before any report of it in the excerpt belong to none.
        let l = logs(include_str!("../../../tests/fixtures/kernel-log/ath10k-aer/dmesg_-T"));
        let a = l.functions[&at("0000:06:00.0")].aer.as_ref().unwrap();
        assert_eq!((a.corrected, a.physical_layer(), a.data_link_layer()), (1, 1, 2));
        let port = l.functions[&at("0000:00:1d.3")].aer.as_ref().unwrap();
        assert_eq!(port.corrected_by_kind.get(&CorrectableError::ReplayTimerTimeout), Some(&1));
        // RHEL 7's journal, old names (`Bad TLP`, `Bad DLLP`), a VMD domain of five digits.
        let l = logs(include_str!("../../../tests/fixtures/kernel-log/journal_rhel7_aer_data_link_redhat.txt"));
        let a = l.functions[&at("10003:00:00.0")].aer.as_ref().unwrap();
        assert_eq!((a.corrected, a.physical_layer(), a.data_link_layer()), (1, 0, 2));
        assert_eq!(a.first.wall.as_deref(), Some("Feb 5 15:41:33"));
    }

    #[test]
    fn a_mail_wrapped_refusal_is_read_whole() {
        // The intel-wired-lan paste (tests/fixtures/import/ethtool_m/README.md): format=flowed
        // wrapped the refusal after "device ".
        let paste = include_str!("../../../tests/fixtures/import/ethtool_m/i40e_dell_sfp28_refused_paste_intel-wired-lan.txt");
        let dmesg = paste.split("$ sudo ethtool").next().unwrap();
        assert!(is_kernel_log(dmesg));
        let l = logs(dmesg);
        let m = &l.functions[&at("0000:5e:00.1")].messages;
        assert_eq!(m.len(), 1);
        assert_eq!((&m[0].event, m[0].at.boot_us), (&KernelEvent::ModuleRefused, Some(160_831_934_190)));
        assert_eq!(m[0].text, "Rx/Tx is disabled on this device because an unsupported SFP module type was detected.");
        // Port 0's link-up line, wrapped after "Full ": 10 Gbps, no FEC printed (older i40e).
        let up = &l.functions[&at("0000:5e:00.0")].messages[0];
        assert_eq!(up.event, KernelEvent::LinkUp { speed_mbps: Some(10_000), fec: None });
        assert_eq!(l.function_of("net03"), Some(at("0000:5e:00.1")));
    }
}
