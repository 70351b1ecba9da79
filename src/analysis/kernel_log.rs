//! What the kernel log said of the NIC function (docs/import.md "The kernel log"): the
//! kernel's own words for why a link is down, the link's history of drops, the PCIe
//! bandwidth line where no other source gives the link, and AER's error reports on the
//! function (`pcie_errors`).

use super::verdict::{Reason, ReasonCode, Severity};
use super::InterfaceWindow;
use crate::device::kernel_log::{AerErrors, KernelEvent, KernelLog, KernelMessage, ModuleStatus, PcieBandwidth};
use crate::device::PciLink;
use serde::Serialize;

/// Corrected errors on the function from which they are a stream, not noise. The PCI
/// maintainers hold a few corrected errors to be harmless ("normally corrected by hardware
/// without software intervention", linux-pci, `<20240229202652.GA361290@bhelgaas>`, of four
/// in 100 minutes), and the kernel prints at most a burst of them at a time (aer.c rate
/// limits its reports), so a hundred printed is a link retrying for a long while: a riser,
/// a slot or a card edge, not a passing event.
pub(crate) const AER_CORRECTED_STREAM: u64 = 100;

/// The kernel log of the window's function, when an import carried one.
pub(crate) fn of(w: &InterfaceWindow) -> Option<&KernelLog> {
    Some(&w.identity.host.as_ref()?.kernel_log.as_ref()?.value)
}

/// What the log says, for the report and the JSON (`kernel_log`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct KernelLogAnalysis {
    /// The driver the lines name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) driver: Option<String>,
    /// The link's `link_down` messages in the log.
    pub(crate) link_downs: usize,
    /// Its `link_up` messages.
    pub(crate) link_ups: usize,
    /// The kernel's words for why the link is down: its latest refusal or module error
    /// since the link last came up; `None` when the link came up after every such message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) down_reason: Option<KernelMessage>,
    /// Every message read, oldest first.
    pub(crate) messages: Vec<KernelMessage>,
    /// Older messages left out by the import's bound.
    #[serde(skip_serializing_if = "is_zero")]
    pub(crate) messages_dropped: u64,
    /// The PCI core's bandwidth line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) pcie_bandwidth: Option<PcieBandwidth>,
    /// AER's reports on the function.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) aer: Option<AerErrors>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

pub(crate) fn analyze(log: &KernelLog) -> KernelLogAnalysis {
    let count = |f: fn(&KernelEvent) -> bool| log.messages.iter().filter(|m| f(&m.event)).count();
    KernelLogAnalysis {
        driver: log.driver.clone(),
        link_downs: count(|e| matches!(e, KernelEvent::LinkDown)),
        link_ups: count(|e| matches!(e, KernelEvent::LinkUp { .. })),
        down_reason: log.down_reason().cloned(),
        messages: log.messages.clone(),
        messages_dropped: log.messages_dropped,
        pcie_bandwidth: log.pcie_bandwidth.clone(),
        aer: log.aer.clone(),
    }
}

/// `"Rx/Tx is disabled ..." (i40e, 160831.934190 s after boot)`: a message as a reason quotes it.
pub(crate) fn quoted(m: &KernelMessage, driver: Option<&str>) -> String {
    let who = driver.map(|d| format!("{d}, ")).unwrap_or_default();
    format!("\"{}\" ({who}{})", m.text, m.at)
}

/// What to do about the kernel's reason for a down link.
pub(crate) fn down_advice(m: &KernelMessage) -> &'static str {
    match &m.event {
        KernelEvent::ModuleRefused => "the NIC refuses this module: fit one its vendor qualifies for the card (the adapter's supported-module list), or one its driver can be told to allow (ixgbe allow_unsupported_sfp=1); the module itself may be sound",
        KernelEvent::ModuleAbsent => "the NIC finds no module in the cage: seat one fully, and check the cage on another module",
        KernelEvent::PortFault => "the port's configuration or its partner's is at fault: make both ends agree on speed, FEC and autonegotiation (and the card's port split)",
        KernelEvent::ModuleEvent { status: ModuleStatus::Error, error, .. } => module_error_advice(error.as_deref().unwrap_or("")),
        KernelEvent::ModuleEvent { status: ModuleStatus::Unplugged, .. } => "the NIC saw the module unplugged: seat it fully",
        KernelEvent::ModuleEvent { .. } | KernelEvent::LinkUp { .. } | KernelEvent::LinkDown => {
            "read the kernel log around this line for what the driver did next"
        }
    }
}

/// mlx5's module error reasons (events.c `mlx5_pme_error_to_string`), by what fixes each.
fn module_error_advice(reason: &str) -> &'static str {
    let r = reason.to_ascii_lowercase();
    if r.starts_with("high temperature") {
        "the module shut down hot: improve the airflow over the cages (an empty neighbour cage, the fans, the inlet), and check the module's temperature after reseating"
    } else if r.starts_with("power budget exceeded") || r.contains("power on the pcie slot") {
        "the card cannot power this module: fit a module of a lower power class, or a slot that advertises the power the card needs"
    } else if r.starts_with("long range for non mlnx") || r.starts_with("enforce part number list") {
        "the firmware refuses this module by its part number: fit a qualified one"
    } else if r.starts_with("bus stuck")
        || r.starts_with("no eeprom")
        || r.starts_with("unknown identifier")
        || r.starts_with("bad or shorted")
    {
        "the module does not answer on its management bus or is damaged: reseat it, then swap it"
    } else {
        "read the module's state (ethtool -m, mlxlink -m) and reseat it; swap it if the error stays"
    }
}

/// Notes: the link's history in the log, the kernel's latest word on a link whose state
/// was not read, a module error the link came up after.
pub(crate) fn notes(w: &InterfaceWindow, k: &KernelLogAnalysis) -> Vec<String> {
    let mut out = Vec::new();
    let who = k.driver.as_deref().map(|d| format!(" ({d})")).unwrap_or_default();
    if k.link_downs > 0 || k.link_ups > 1 {
        let downs: Vec<String> =
            k.messages.iter().filter(|m| matches!(m.event, KernelEvent::LinkDown)).rev().take(5).map(|m| m.at.to_string()).collect();
        let at = match downs.is_empty() {
            true => String::new(),
            false => format!(": down at {}{}", downs.join(", "), if k.link_downs > downs.len() { " (the latest)" } else { "" }),
        };
        out.push(format!("the kernel log{who} holds {} link-down and {} link-up message(s){at}", k.link_downs, k.link_ups));
    }
    if w.link_up.is_none() {
        if let Some(last) = k
            .messages
            .iter()
            .rev()
            .find(|m| matches!(m.event, KernelEvent::LinkUp { .. } | KernelEvent::LinkDown) || m.event.explains_link_down())
        {
            out.push(format!(
                "no link state was read; the kernel log's latest word on the link{who}: {} — whether it still holds, `ethtool IFACE` says",
                quoted(last, None)
            ));
        }
    }
    if w.link_up == Some(true) {
        for m in k.messages.iter().filter(|m| m.event.explains_link_down()).rev().take(3) {
            out.push(format!("the kernel log{who} said {} before the link came up", quoted(m, None)));
        }
    }
    out
}

/// The PCIe link the kernel's bandwidth line gives, for a function no other source gave one:
/// the slowest link's speed and width as the current link, the function's own top as its
/// maximum.
pub(crate) fn pci_link(b: &PcieBandwidth) -> PciLink {
    PciLink {
        current_link_speed: Some(b.speed.clone()),
        current_link_width: Some(b.width),
        max_link_speed: Some(b.capable_speed.clone()),
        max_link_width: Some(b.capable_width),
        numa_node: None,
    }
}

/// `pcie_errors`: AER's reports on the NIC function. Uncorrected errors are investigated
/// (fatal ones reset the link: reject); corrected ones are a note while few, investigated as
/// a stream ([`AER_CORRECTED_STREAM`]).
pub(crate) fn judge_aer(k: &KernelLogAnalysis, reasons: &mut Vec<Reason>, notes: &mut Vec<String>) {
    let Some(a) = &k.aer else { return };
    let span = match (a.first.to_string(), a.last.to_string()) {
        (f, l) if f == l => format!("at {f}"),
        (f, l) => format!("from {f} to {l}"),
    };
    let kinds = format!(
        "{} receiver error(s) (physical layer), {} bad TLP/DLLP or replay(s) (data link layer)",
        a.physical_layer(),
        a.data_link_layer()
    );
    if a.fatal > 0 || a.nonfatal > 0 {
        let severity = if a.fatal > 0 { Severity::Reject } else { Severity::Investigate };
        reasons.push(Reason::new(
            ReasonCode::PcieErrors,
            severity,
            None,
            format!(
                "AER reported {} fatal and {} non-fatal uncorrected PCIe error(s) on the NIC function {span} (and {} corrected): transactions were lost",
                a.fatal, a.nonfatal, a.corrected
            ),
        ));
    } else if a.corrected >= AER_CORRECTED_STREAM {
        reasons.push(Reason::new(
            ReasonCode::PcieErrors,
            Severity::Investigate,
            None,
            format!(
                "AER reported {} corrected PCIe errors on the NIC function {span}: {kinds}; a stream, not noise: the PCIe link retries",
                a.corrected
            ),
        ));
    } else if a.corrected > 0 {
        notes.push(format!(
            "AER reported {} corrected PCIe error(s) on the NIC function {span} ({kinds}): fewer than {AER_CORRECTED_STREAM}, corrected by the link itself, noise unless they grow",
            a.corrected
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::kernel_log::{CorrectableError, KernelTime};

    fn aer(corrected: u64, nonfatal: u64, fatal: u64) -> KernelLogAnalysis {
        let mut a = AerErrors { corrected, nonfatal, fatal, ..Default::default() };
        a.corrected_by_kind.insert(CorrectableError::ReceiverError, corrected);
        a.first = KernelTime { boot_us: Some(5_000_000), wall: None };
        a.last = KernelTime { boot_us: Some(65_000_000), wall: None };
        analyze(&KernelLog { aer: Some(a), ..Default::default() })
    }

    fn judged(k: &KernelLogAnalysis) -> (Vec<(ReasonCode, Severity)>, Vec<String>) {
        let (mut reasons, mut notes) = (Vec::new(), Vec::new());
        judge_aer(k, &mut reasons, &mut notes);
        (reasons.iter().map(|r| (r.code, r.severity)).collect(), notes)
    }

    #[test]
    fn a_few_corrected_errors_are_a_note_a_stream_is_investigated() {
        // Four receiver errors (the linux-pci report, README): said, not judged.
        let (r, n) = judged(&aer(4, 0, 0));
        assert!(r.is_empty());
        assert!(n[0].starts_with("AER reported 4 corrected PCIe error(s) on the NIC function from 5.000000 s after boot to 65.000000 s after boot (4 receiver error(s)"), "{n:?}");
        assert_eq!(judged(&aer(AER_CORRECTED_STREAM - 1, 0, 0)).0, vec![]);
        assert_eq!(judged(&aer(AER_CORRECTED_STREAM, 0, 0)).0, vec![(ReasonCode::PcieErrors, Severity::Investigate)]);
        // Uncorrected: investigated; fatal (the link is reset): rejected.
        assert_eq!(judged(&aer(0, 1, 0)).0, vec![(ReasonCode::PcieErrors, Severity::Investigate)]);
        assert_eq!(judged(&aer(3, 0, 1)).0, vec![(ReasonCode::PcieErrors, Severity::Reject)]);
    }

    #[test]
    fn the_reason_for_a_down_link_is_the_latest_since_it_came_up() {
        let msg = |event: KernelEvent, us: u64| KernelMessage {
            at: KernelTime { boot_us: Some(us), wall: None },
            netdev: None,
            event,
            text: String::new(),
        };
        let error = |e: &str| KernelEvent::ModuleEvent { module: 0, status: ModuleStatus::Error, error: Some(e.into()) };
        let up = KernelEvent::LinkUp { speed_mbps: Some(100_000), fec: None };
        // A module error the link came up after is history; the one after the last up is the reason.
        let log = KernelLog {
            messages: vec![
                msg(error("Bus stuck (I2C or data shorted)"), 1),
                msg(up.clone(), 2),
                msg(error("High Temperature"), 3),
                msg(KernelEvent::LinkDown, 4),
            ],
            ..Default::default()
        };
        assert_eq!(log.down_reason().map(|m| m.at.boot_us), Some(Some(3)));
        assert!(down_advice(log.down_reason().unwrap()).starts_with("the module shut down hot"));
        let log = KernelLog { messages: vec![msg(error("High Temperature"), 1), msg(up, 2)], ..Default::default() };
        assert_eq!(log.down_reason(), None);
    }
}
