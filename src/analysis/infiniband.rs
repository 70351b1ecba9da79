//! InfiniBand ports: what their `PortCounters` say about the physical layer, on the port's
//! generation (`counters::ib`; docs/infiniband.md).
//!
//! - `uncorrectable_errors` (reject over a window; investigate for a lone snapshot):
//!   `symbol_error` rose. On HDR and later (PAM4, RS-FEC always on) the counter counts
//!   errors FEC and PLR left, frames the application saw (NVIDIA UFM Enterprise User Manual
//!   6.17, telemetry field Symbol_Errors: "error bits that were not corrected by phy
//!   correction mechanisms"); before HDR a symbol error is a line code error on a link
//!   with no FEC (or an optional one), which corrupts the packet it falls in.
//! - `link_flaps`: `link_downed` rose (the training state machine failed link error
//!   recovery and downed the link), through the common link-down path.
//! - `link_error_recovery` (investigate): the port retrained without going down.
//! - `ib_port_errors` (investigate): received packets dropped with errors
//!   (`port_rcv_errors`), the local link integrity threshold crossed
//!   (`local_link_integrity_errors`), input buffer overruns (`excessive_buffer_overrun_errors`).
//! - `counter_saturated` (investigate): a counter reads all ones, where `PortCounters`
//!   stops (IBTA Vol 1 16.1.3.5): "at least N", its increase a lower bound, no rate.

use super::*;
use crate::counters::ib::{self as ibc, IbRate, DATA_OCTETS_PER_UNIT};
use crate::counters::Counted;

/// Codes that speak about an IB port's link (not its PCIe slot or a counter's ceiling).
pub(super) const LINK_CODES: [ReasonCode; 4] =
    [ReasonCode::UncorrectableErrors, ReasonCode::LinkFlaps, ReasonCode::LinkErrorRecovery, ReasonCode::IbPortErrors];

/// What to do when an IB port's link errs: sysfs has no lanes or module, mlxlink has both.
pub(super) const LINK_ADVICE: &str = "InfiniBand port: check the cable and the modules at both ends; read both ends' `mlxlink -d <PCI address> -c -e -m` (per-lane raw BER, errors after FEC, the FEC histogram, module DOM) and import them with this port's counters to find the weak lane and side";

/// What an InfiniBand port is and counted over the window: the JSON `infiniband` object.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct IbAnalysis {
    pub(crate) hca: String,
    pub(crate) port: u32,
    /// `mlx5_0/1`.
    pub(crate) name: String,
    pub(crate) link_layer: Option<String>,
    /// The kernel's `rate`, e.g. `400 Gb/sec (4X NDR)`.
    pub(crate) rate: Option<String>,
    pub(crate) speed: Option<ibc::IbSpeed>,
    pub(crate) width: Option<u32>,
    pub(crate) fw_ver: Option<String>,
    /// The HCA's `board_id` (PSID) and `node_guid`: which adapter, whatever its slot.
    pub(crate) board_id: Option<String>,
    pub(crate) node_guid: Option<String>,
    pub(crate) netdev: Option<String>,
    /// True on HDR and later: `symbol_error` counts errors left after FEC.
    pub(crate) symbol_errors_after_fec: Option<bool>,
    /// Increases over the window (counts since the counters started for a lone snapshot),
    /// by sysfs counter name; `null` = not read.
    pub(crate) counters: BTreeMap<&'static str, Option<u64>>,
    /// Bytes received and sent over the window: `port_rcv_data` / `port_xmit_data` x 4.
    pub(crate) rx_bytes: Option<u64>,
    pub(crate) tx_bytes: Option<u64>,
    /// `symbol_error` per second over the window (a lower bound when it saturated).
    pub symbol_errors_per_s: Option<f64>,
    /// Counters that read their maximum at the end (saturated: lower bounds).
    pub(crate) saturated: Vec<&'static str>,
}

/// True when `w`'s `PortCounters` span an interval: their counts are increases with a
/// time base. A lone snapshot's run from an unknown clear, and so do counters read at one
/// moment of the window only: they have no increase (an import reads perfquery or a sysfs
/// copy beside an mlxlink output whose "Time Since Last Clear" is mlxlink's own, so the
/// zero reading at the start of that span has none of theirs).
fn windowed(w: &InterfaceWindow) -> bool {
    let read_once = w.counter_spans.iter().any(|s| ibc::origin_name(&s.origin).is_some() && !s.has_delta());
    w.samples >= 2 && w.seconds_of(CounterFigure::SymbolErrors) > 0.0 && !read_once
}

impl IbAnalysis {
    /// What `w`'s InfiniBand port is and counted (`None` for other ports): increases over
    /// the window, or counts since the last clear for a lone snapshot.
    pub(crate) fn of_window(w: &InterfaceWindow) -> Option<IbAnalysis> {
        let port = w.identity.ib.as_ref().filter(|p| p.is_infiniband())?;
        let rate = port.rate.as_deref().and_then(IbRate::parse);
        let windowed = windowed(w);
        let counts = if windowed { &w.deltas } else { &w.counters_at_end };
        let mut counters = BTreeMap::new();
        counters.insert("symbol_error", value(&counts.symbol_errors));
        counters.insert("link_downed", value(&counts.link_down_events));
        for (name, c) in counts.ib.named() {
            counters.insert(name, value(c));
        }
        Some(IbAnalysis {
            hca: port.hca.clone(),
            port: port.port,
            name: port.name(),
            link_layer: port.link_layer.clone(),
            rate: port.rate.clone(),
            speed: rate.map(|r| r.speed),
            width: rate.map(|r| r.width),
            fw_ver: port.fw_ver.clone(),
            board_id: port.board_id.clone(),
            node_guid: port.node_guid.clone(),
            netdev: port.netdev.clone(),
            symbol_errors_after_fec: rate.map(|r| r.speed.symbol_errors_after_fec()),
            rx_bytes: value(&counts.ib.port_rcv_data).map(|u| u.saturating_mul(DATA_OCTETS_PER_UNIT)),
            tx_bytes: value(&counts.ib.port_xmit_data).map(|u| u.saturating_mul(DATA_OCTETS_PER_UNIT)),
            // Over a window the count has a time base, zero included: 0/s is a measurement.
            // Over the counter's own span: the window's unless it was read from partway.
            symbol_errors_per_s: windowed
                .then(|| value(&counts.symbol_errors).map(|n| n as f64 / w.seconds_of(CounterFigure::SymbolErrors)))
                .flatten(),
            saturated: saturated_at_end(w).iter().map(|(c, _)| c.name).collect(),
            counters,
        })
    }

    /// The port over one interval, as a CSV row shows it: `None` for a lone snapshot,
    /// whose counts have no time base.
    pub(crate) fn of_interval(w: &InterfaceWindow) -> Option<IbAnalysis> {
        Self::of_window(w).filter(|_| windowed(w))
    }

    /// The count of sysfs counter `name` (`null` = not read).
    pub(crate) fn count(&self, name: &str) -> Option<u64> {
        self.counters.get(name).copied().flatten()
    }
}

fn value(c: &Option<Counted>) -> Option<u64> {
    c.as_ref().map(|c| c.value)
}

/// The port's facts and reasons, for an InfiniBand port (`None` otherwise).
pub(super) fn judge(cx: &mut Context, reasons: &mut Vec<Reason>) -> Option<IbAnalysis> {
    let w = cx.w;
    let a = IbAnalysis::of_window(w)?;
    let rate = a.rate.as_deref().and_then(IbRate::parse);
    let when = if windowed(w) {
        format!("in {:.0} s", w.seconds_of(CounterFigure::SymbolErrors))
    } else {
        "since the counters were last cleared (one snapshot, an unknown time ago)".to_string()
    };
    let at_least = |name: &str| if a.saturated.contains(&name) { "at least " } else { "" };
    let gen = rate.map(|r| r.mode()).unwrap_or_else(|| "this link".into());

    if let Some(n) = a.count("symbol_error").filter(|n| *n > 0) {
        let rate_text = a.symbol_errors_per_s.map(|r| format!(" ({r:.3}/s)")).unwrap_or_default();
        let meaning = match a.symbol_errors_after_fec {
            Some(true) => format!("on {gen} the symbol error counter counts errors FEC did not correct: frames the application saw"),
            Some(false) => {
                format!("on {gen} (no FEC, or an optional one) each symbol error is a line code error that corrupts the packet it falls in")
            }
            None => "the port's speed is unknown, so whether FEC ran before the counter is too".to_string(),
        };
        let (severity, loss) = if windowed(w) {
            (Severity::Reject, "frames were lost")
        } else {
            (Severity::Investigate, "frames were lost then; a second snapshot tells whether they still are")
        };
        let msg = format!("{}{n} symbol errors (ib:symbol_error) {when}{rate_text}: {meaning}; {loss}", at_least("symbol_error"));
        reasons.push(Reason::new(ReasonCode::UncorrectableErrors, severity, None, msg));
    }
    if let Some(n) = a.count("link_error_recovery").filter(|n| *n > 0) {
        let msg = format!(
            "{}{n} link error recoveries (ib:link_error_recovery) {when}: the port retrained without going down, a link on the edge of dropping",
            at_least("link_error_recovery")
        );
        reasons.push(Reason::new(ReasonCode::LinkErrorRecovery, Severity::Investigate, None, msg));
    }
    let port_errors: Vec<String> = [
        ("port_rcv_errors", "received packets dropped with an error (CRC, physical, malformed)"),
        ("local_link_integrity_errors", "times local physical errors crossed the LocalPhyErrors threshold"),
        ("excessive_buffer_overrun_errors", "input buffer overruns (credit misconfiguration or very poor signal integrity)"),
    ]
    .into_iter()
    .filter_map(|(name, what)| a.count(name).filter(|n| *n > 0).map(|n| format!("{}{n} {what} (ib:{name})", at_least(name))))
    .collect();
    if !port_errors.is_empty() {
        reasons.push(Reason::new(ReasonCode::IbPortErrors, Severity::Investigate, None, format!("{} {when}", port_errors.join(", "))));
    }
    if let Some(n) = a.count("port_rcv_remote_physical_errors").filter(|n| *n > 0) {
        cx.notes.push(format!(
            "{n} packets arrived marked bad by the sender (ib:port_rcv_remote_physical_errors) {when}: an error on a link upstream, not this one"
        ));
    }
    cx.notes.extend(w.counters_at_end.ib.disagreements.iter().map(ibc::disagreement_text));
    for c in a.saturated.iter().filter_map(|name| ibc::port_counter(name)) {
        let v = c.max();
        let msg = format!(
            "{} reads {v}, the most its {} bits hold (PortCounters saturates): at least {v} since the counters were last cleared, its increase over the window is a lower bound and no rate can be given; clear the port's counters (perfquery -x -R) and sample again",
            c.name, c.bits
        );
        reasons.push(Reason::new(ReasonCode::CounterSaturated, Severity::Investigate, None, msg));
    }
    // An mlxlink output of this port, imported with its counters, gives the lanes and module.
    if w.counters_at_end.corrected_bits_per_lane.is_none() && w.module.is_none() {
        cx.notes.push(format!(
            "InfiniBand port {}: sysfs gives no module EEPROM, FEC statistics or per-lane counters; import `mlxlink -d <PCI address> -m -c` of this port for its lanes' raw BER and its module",
            a.name
        ));
    }
    Some(a)
}

/// The counters (with an `ib:` origin) that read their maximum at the last sample.
fn saturated_at_end(w: &InterfaceWindow) -> Vec<(ibc::PortCounter, u64)> {
    let c = &w.counters_at_end;
    let read = [&c.symbol_errors, &c.link_down_events].into_iter().chain(c.ib.named().into_iter().map(|(_, c)| c));
    ibc::saturated(read.flatten().filter_map(|c| Some((ibc::origin_name(&c.origin)?, c.value))))
}

/// True for an InfiniBand port: module, FEC and lane rate are not sysfs's to give, so
/// their absence is a note, not a reason.
pub(super) fn is_ib_port(w: &InterfaceWindow) -> bool {
    w.identity.ib.as_ref().is_some_and(|p| p.is_infiniband())
}
