//! What to swap or clean for a weak lane, from which side of the link the evidence points at.
//!
//! Order of the rules (first that applies): copper cable (no optics to blame) -> our
//! own transmitter faulty (tx fault, bias or tx power out of range) -> far-end
//! transmitter weak on this lane (needs the peer's window) -> low light on this lane
//! with a normal or unknown far-end transmitter (fiber / connector loss) -> light
//! normal but errors high (this module's receiver).

use super::config::Config;
use super::verdict::{ReasonCode, Severity};
use crate::counters::LinkExtState;
use crate::module::flag::{self, ModuleFlag, Monitor};

/// Facts about one weak lane, gathered by the caller.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct LaneFacts<'a> {
    pub(crate) lane: u8,
    /// rx dBm minus the siblings' median (negative = less light).
    pub(crate) rx_delta_db: Option<f64>,
    /// rx below the module's own low warning, or the module flagged low rx.
    pub(crate) rx_low_flagged: bool,
    /// This module's flags on the lane.
    pub(crate) flags: &'a [ModuleFlag],
    pub(crate) copper: bool,
    /// Far-end tx dBm on this lane minus the far end's sibling median; `None`: no peer.
    pub(crate) peer_tx_delta_db: Option<f64>,
    /// The far end flagged its transmitter on this lane (tx fault, low tx power).
    pub(crate) peer_tx_flagged: bool,
    /// A peer window was given at all.
    pub(crate) have_peer: bool,
    /// Far-end Tx dBm minus this end's Rx dBm on this lane, and the PMD's channel
    /// insertion loss budget (`link_loss`); `None` without both ends' powers.
    pub(crate) link_loss_db: Option<f64>,
    pub(crate) link_loss_budget_db: Option<f64>,
    pub(crate) pmd: Option<&'static str>,
    /// The two powers the loss is made of, for the evidence.
    pub(crate) peer_tx_dbm: Option<f64>,
    pub(crate) rx_dbm: Option<f64>,
    /// The other direction: this end's Tx dBm minus the far end's Rx dBm on this lane.
    pub(crate) far_link_loss_db: Option<f64>,
    /// The module's media eSNR on this lane (CMIS VDM) and its offset from the siblings'
    /// median (negative = worse).
    pub(crate) esnr_db: Option<f64>,
    pub(crate) esnr_delta_db: Option<f64>,
    /// The lane counted corrected errors (or its module gives a BER): false when only the
    /// module's flags put it here.
    pub(crate) errors_counted: bool,
}

/// This module's own transmitter is out of range: a tx fault, bias past any limit but its
/// low warning, or tx power below a low limit.
fn own_tx_bad(flags: &[ModuleFlag]) -> bool {
    flags.iter().any(|f| {
        matches!(
            f,
            ModuleFlag::TxFault
                | ModuleFlag::Limit(Monitor::TxBias, flag::Severity::HighAlarm | flag::Severity::HighWarning | flag::Severity::LowAlarm)
        ) || f.is_low(Monitor::TxPower)
    })
}

pub(crate) fn lane_advice(f: &LaneFacts, cfg: &Config) -> String {
    let n = f.lane;
    if f.copper {
        return format!("lane {n}: copper cable (no optical monitors to blame): reseat both ends, then replace the cable");
    }
    if own_tx_bad(f.flags) {
        return format!("lane {n}: this module's laser on lane {n} is out of range (tx fault, bias or power): swap the module");
    }
    let peer_weak = f.peer_tx_flagged || f.peer_tx_delta_db.is_some_and(|d| d <= -cfg.tx_low_delta_db);
    let loss = loss_evidence(f);
    if peer_weak {
        let by = f.peer_tx_delta_db.map(|d| format!(" ({:.1} dB below its other lanes)", -d)).unwrap_or_default();
        return format!("lane {n}: the far end's transmitter on lane {n} is weak{by}{loss}: swap the far-end module");
    }
    // Both ends' powers: light lost beyond what the PMD allows is lost in the fiber and
    // connectors, whatever either module reports about itself.
    if let (Some(l), Some(b)) = (f.link_loss_db, f.link_loss_budget_db.filter(|b| f.link_loss_db.is_some_and(|l| l > *b))) {
        // The other direction tells the fiber toward this end from what both directions share.
        let (other, what) = match f.far_link_loss_db {
            Some(back) if back > b => (
                format!("; the other direction loses {back:.1} dB, over it too"),
                format!("what both directions of lane {n} share: clean the connectors (MPO, patch panel) on lane {n} at both ends, replace the patch cord if it persists"),
            ),
            Some(back) => (
                format!("; the other direction (this end's Tx to the far end's Rx) loses {back:.1} dB, within it"),
                format!("the fiber carrying lane {n} toward this end: inspect and clean the fiber of lane {n} from the far end's Tx to this end's Rx, replace that fiber or patch cord if it persists"),
            ),
            None => (String::new(), format!("inspect and clean the fiber and connectors on lane {n} at both ends, replace the patch cord if it persists")),
        };
        return format!(
            "lane {n}: fiber/connector fault on lane {n}: link loss {l:.1} dB{} is over the {} channel insertion loss budget of {b:.1} dB by {:.1} dB{}{other}: {what}",
            powers(f),
            f.pmd.unwrap_or("PMD"),
            l - b,
            if f.peer_tx_delta_db.is_some() { ", far-end transmitter normal" } else { "" }
        );
    }
    let rx_low = f.rx_low_flagged || f.rx_delta_db.is_some_and(|d| d <= -cfg.rx_low_delta_db);
    if rx_low {
        let by = f.rx_delta_db.map(|d| format!(" ({:.1} dB less light than its siblings)", -d)).unwrap_or_default();
        // "Normal" needs the peer's tx power on this lane; a peer without it (a DAC, a
        // module without tx monitors) tells nothing about the far-end transmitter.
        let far_known = f.have_peer && f.peer_tx_delta_db.is_some();
        let far = match (f.have_peer, far_known) {
            (_, true) => "far-end transmitter normal, so the loss is in between",
            (true, false) => "far-end tx unknown (the peer reports no tx power on this lane)",
            (false, _) => "far-end transmit power unknown",
        };
        return format!(
            "lane {n}: low received light{by}{loss}, {far}: inspect and clean the fiber and connectors on lane {n} at both ends, replace the patch cord if it persists{}",
            if far_known { "" } else { ", then check the far-end module" }
        );
    }
    // Low eSNR with normal light: the signal arrives distorted, not weak (docs/vdm.md).
    if let (Some(e), Some(d)) = (f.esnr_db, f.esnr_delta_db.filter(|d| *d <= -super::vdm_lanes::ESNR_LOW_DELTA_DB)) {
        return format!(
            "lane {n}: received light is normal but the module's eSNR is {e:.1} dB, {:.1} dB below its other lanes: this module's receiver on lane {n} or the far end's transmitter, not the fiber: swap this module, then the far-end module",
            -d
        );
    }
    // Only the module's own status flags (loss of signal or lock) with normal light: no
    // error was counted to blame a receiver for. The flags latch until the host reads
    // them (SFF-8636 Rev 2.11 6.2.3, CMIS 5.2 8.9), so they may be an earlier event.
    if !f.errors_counted && !f.flags.is_empty() {
        let names: Vec<&str> = f.flags.iter().map(|x| x.as_str()).collect();
        return format!(
            "lane {n}: the module reports {} with received light normal{loss} and no errors counted: these flags latch until read, so read the module again (and count the lane's errors); if they stay, check the signal into lane {n} (the far end's transmitter; for tx_lol the host's own signal into the module), then swap this module",
            names.join(", ")
        );
    }
    format!("lane {n}: received light is normal{loss} but errors are high: this module's receiver on lane {n} is suspect (near-end receiver): swap the module")
}

/// ` (far-end Tx a dBm, near-end Rx b dBm)` when both are known.
fn powers(f: &LaneFacts) -> String {
    match (f.peer_tx_dbm, f.rx_dbm) {
        (Some(t), Some(r)) => format!(" (far-end Tx {t:.2} dBm, near-end Rx {r:.2} dBm)"),
        _ => String::new(),
    }
}

/// `, link loss L dB within the PMD budget of B dB (...)` when both ends' powers are known.
fn loss_evidence(f: &LaneFacts) -> String {
    match (f.link_loss_db, f.link_loss_budget_db) {
        (Some(l), Some(b)) => {
            let rel = if l > b { "over" } else { "within" };
            format!(", link loss {l:.1} dB{} {rel} the {} budget of {b:.1} dB", powers(f), f.pmd.unwrap_or("PMD"))
        }
        (Some(l), None) => format!(", link loss {l:.1} dB{} (PMD unknown: no budget)", powers(f)),
        _ => String::new(),
    }
}

/// Advice for what a reason names when no judge gave any: a lane's own, or the port's.
/// Called last, over every reason that changes the verdict, so a verdict other than
/// accept always comes with something to do. Port sentences are kept once each.
pub(crate) fn fill(reasons: &[super::Reason], lanes: &mut [super::LaneAnalysis], port: &mut Vec<String>) {
    // A down link whose port and module, or whose two ends' modules, share no rate or
    // wavelength is down for that: reseating (the down link's own advice) would not bring it up.
    let down_for_rates = reasons.iter().any(|r| matches!(r.code, ReasonCode::ModuleSpeedMismatch | ReasonCode::PeerModuleMismatch));
    for r in reasons.iter().filter(|r| r.severity > Severity::Info && !(down_for_rates && r.code == ReasonCode::LinkFlaps)) {
        match r.lane {
            Some(n) => {
                let Some(la) = lanes.iter_mut().find(|l| l.lane == n) else { continue };
                if la.advice.is_none() {
                    la.advice = Some(lane_fallback(r.code, n));
                }
            }
            None => {
                let spread = matches!(r.code, ReasonCode::UncorrectableErrors | ReasonCode::BerOverFecLimit) && evenly_spread(lanes);
                if let Some(a) = if spread { Some(EVENLY_SPREAD) } else { port_sentence(r.code) } {
                    if !port.iter().any(|p| p == a) {
                        port.push(a.to_string());
                    }
                }
            }
        }
    }
}

/// What to do about a link the kernel says is down and why (uapi `enum
/// ethtool_link_ext_state` and its substates, as `ethtool IFACE` prints them).
pub(crate) fn link_down_advice(state: LinkExtState, substate: Option<u8>) -> &'static str {
    use LinkExtState as S;
    match (state, substate) {
        (S::Autoneg, _) => "no link partner completed autonegotiation: check the far end is up and that both ends agree on autonegotiation, speed and FEC",
        (S::LinkTrainingFailure, _) => "link training failed: check that both ends run the same speed and FEC, then the signal between them (reseat, clean, swap the module or cable)",
        (S::LinkLogicalMismatch, _) => "the PCS or FEC could not lock: both ends must run the same speed and FEC mode (`ethtool --show-fec` on each end)",
        (S::BadSignalIntegrity, _) => "the signal is too poor to hold the link: clean and reseat the fiber, compare the light at both ends, then swap the module or cable",
        (S::NoCable, _) => "the NIC sees no module or cable in the port: seat one",
        // ETHTOOL_LINK_EXT_SUBSTATE_CI_UNSUPPORTED_CABLE.
        (S::CableIssue, Some(1)) => "the NIC refuses this module or cable (unsupported cable) and keeps the port down with the module's transmitters off: use one it supports at this speed (the NIC vendor's qualified list; some NICs run a module below its rated speed only with their own vendor coding), and read the kernel log for the NIC's words; the module's lasers are not shown faulty",
        (S::CableIssue, _) => "the NIC reports a cable issue: reseat the module or cable, then replace it",
        (S::EepromIssue, _) => "the NIC cannot read the module's EEPROM: reseat the module; if it stays, swap it",
        (S::CalibrationFailure, _) => "the NIC's calibration failed: reset the port, then update the NIC firmware",
        (S::PowerBudgetExceeded, _) => "the module needs more power than the port allows: use a module of a lower power class, or a port or NIC that powers it",
        (S::Overheat, _) => "the module or NIC is overheating: check the airflow and the module's temperature",
        // ETHTOOL_LINK_EXT_SUBSTATE_MODULE_CMIS_NOT_READY.
        (S::Module, Some(1)) => "the CMIS module did not reach ModuleReady: reseat it, check its firmware and the NIC's, and swap it if it stays",
        (S::Module, _) => "the NIC reports a module problem: reseat the module and read the kernel log; swap it if it stays",
    }
}

/// The port's advice when its errors are on every lane alike: no lane to chase.
const EVENLY_SPREAD: &str = "the errors are spread evenly over every lane, so no one fiber or lane is the cause but the module or its port as a whole: reseat both ends, check the module's supply and temperature and that the NIC supports and powers it (its kernel log names a refused or under-powered module), then swap the module, then the far end's";

/// Lane counts within this ratio of each other are "even": a fault on one fiber or lane puts
/// its lane decades over its siblings (on PAM4, a few tenths of a dB move the BER by a
/// decade), and the outlier judge's default `outlier_ratio` is 10.
const EVEN_RATIO: f64 = 2.0;

/// Whether every lane (at least two) counts corrected bits, over the window or since the
/// counters started, and none more than [`EVEN_RATIO`] times another.
fn evenly_spread(lanes: &[super::LaneAnalysis]) -> bool {
    let counts: Vec<u64> = lanes.iter().filter_map(|l| l.corrected_bits.or(l.corrected_bits_since_start)).collect();
    if counts.len() < 2 || counts.len() != lanes.len() {
        return false;
    }
    let (lo, hi) = (counts.iter().min().copied().unwrap_or(0), counts.iter().max().copied().unwrap_or(0));
    lo > 0 && hi as f64 <= lo as f64 * EVEN_RATIO
}

/// A lane's advice for a code whose judge gave none (a link drop traced to the lane, a
/// BER past the limit, a falling margin).
fn lane_fallback(code: ReasonCode, n: u8) -> String {
    if code == ReasonCode::LinkFlaps {
        format!("lane {n}: the link dropped after lane {n}'s errors rose: inspect and clean lane {n}'s fiber and connectors at both ends, then swap this module if the drops go on")
    } else if code == ReasonCode::DomFlagUnconfirmed {
        // Nothing measured is wrong on the lane: only the flag is in question.
        format!("lane {n}: {}", port_sentence(code).unwrap_or_default())
    } else if code == ReasonCode::DegradedAfterFlap {
        // The receiver may have adapted to a poor transient as the far end's transmitter came
        // back (some LPO and AOC optics): a clean retrain tells that from a lane that broke.
        format!("lane {n}: the link came back from the drop with lane {n} worse: bounce the link once more and compare lane {n}'s BER; if it stays worse, reseat, then swap, the module at either end")
    } else {
        format!("lane {n}: inspect and clean lane {n}'s fiber and connectors at both ends; if it persists, swap this module, then the far-end module")
    }
}

/// The port's advice per code, for reasons that name no lane; `None` where the reason's
/// own source already gives advice (PCIe) or the code is the profile's (its own sentence).
fn port_sentence(code: ReasonCode) -> Option<&'static str> {
    Some(match code {
        ReasonCode::LinkFlaps => "the link went down: reseat the modules and the cable at both ends, read both ends' logs for why, and watch the per-lane errors before each drop (optics watch --record)",
        ReasonCode::UncorrectableErrors => "frames were lost: find the lane that carries the errors (per-lane counters, or --peer for the far end) and clean or swap what it points at; reseat both ends first",
        ReasonCode::BerOverFecLimit => "the port's BER is past the FEC limit: find the weak lane (per-lane counters, the module's VDM, or swap lanes), clean its fiber, then swap the module it points at",
        ReasonCode::LowMargin | ReasonCode::FecHidingMarginalOptics => "the errors are counted for the port only: find the weak lane with per-lane counters (mlxlink -c, a newer driver) or by swapping lanes, then clean its fiber",
        ReasonCode::DomAlarm | ReasonCode::DomWarning | ReasonCode::ModuleFault => "the module reports a limit crossing or fault of its own: check its temperature and supply, reseat it, and swap it if the flag stays",
        ReasonCode::ModuleSpeedMismatch => "give the port and the module a rate in common: set the port's speed to one the module runs (`ethtool -s IFACE speed N autoneg off`, or the switch port's speed), or fit a module of a rate the port runs; reseating or cleaning will not bring this link up",
        ReasonCode::PeerModuleMismatch => "fit a matching pair at the two ends: modules of one PMD (or of PMDs their standard says interoperate), for the same fiber, sharing the link's rate; reseating or cleaning will not bring this link up",
        ReasonCode::ModuleNotReady => "the module is not powered up to ModuleReady, so it sends nothing: check that the host has not left it in low power (the driver's module power policy, `ethtool --show-module`; the LPMode pin), read the kernel log for why bring-up stopped, reseat it, and swap it if it stays",
        ReasonCode::ModuleUnreadable => "read the module's diagnostics (run with CAP_NET_ADMIN, or import `ethtool -m` / `mlxlink -m` output) so its light and thresholds can be judged",
        ReasonCode::NoFecData => "measure the pre-FEC BER another way: a kernel and driver with FEC statistics (`ethtool -I --show-fec`), or the NIC vendor's tool (mlxlink -c)",
        ReasonCode::InsufficientData => "sample longer: scan --window 60s, watch for minutes, or import two snapshots (or one with --window-s)",
        ReasonCode::FecTailNearLimit => "the FEC's correction headroom is nearly used: clean and inspect the fiber, then compare both modules' per-lane light to find the weak side",
        ReasonCode::MarginFalling => "the margin is falling: clean and inspect the fiber before it reaches the floor, and watch the lanes' bias and light for a failing laser",
        // An InfiniBand port's link codes get the port's own sentence (`infiniband::LINK_ADVICE`).
        ReasonCode::WeakTransmitter => "this module's transmitter looks weak: compare the far end's received light (--peer) before any swap",
        ReasonCode::DomImplausible => "the module's diagnostics cannot be believed: read it again (another port or host, a current driver); if the same values follow the module, it is faulty or mis-programmed: replace it where its light must be watched, and judge the link on its error counters meanwhile",
        ReasonCode::DomFlagUnconfirmed => "read the module's flags again (`ethtool -m` twice, or watch for a minute): a latched flag that clears was an earlier event (look for a link drop or a reseat then); one that stays set while its reading is good is the module's fault: do not alert on its flags",
        ReasonCode::PcieErrors => "the NIC's PCIe link takes errors: reseat the card, check its riser and slot (move it to another slot: do the errors follow the card?), and bring its firmware and the platform's BIOS up to date",
        ReasonCode::CounterSaturated => "a saturated counter hides any new errors: clear the port's counters (perfquery -x -R) and sample again",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_on_every_lane_alike_point_at_the_module_not_a_lane() {
        use crate::analysis::verdict::*;
        use crate::analysis::LaneAnalysis;
        // A ConnectX-6 Dx with a third-party 100G-LR4 its slot would not power (its kernel log:
        // "Cable error, Power budget exceeded") was seen counting 13115284 on each of its four
        // lanes, with 13147323 CRC errors: no lane to chase.
        let even = |k: [u64; 4]| -> Vec<LaneAnalysis> {
            (0..4).map(|i| LaneAnalysis { lane: i as u8 + 1, corrected_bits_since_start: Some(k[i]), ..Default::default() }).collect()
        };
        let reasons = vec![Reason::new(ReasonCode::UncorrectableErrors, Severity::Reject, None, "frames lost".into())];
        let mut port = Vec::new();
        fill(&reasons, &mut even([13_115_284; 4]), &mut port);
        assert_eq!(port, vec![EVENLY_SPREAD.to_string()]);
        // Within 2x of each other still even; one lane 10x its siblings is a lane to find.
        let mut port = Vec::new();
        fill(&reasons, &mut even([100, 150, 199, 120]), &mut port);
        assert_eq!(port, vec![EVENLY_SPREAD.to_string()]);
        let mut port = Vec::new();
        fill(&reasons, &mut even([100, 120, 1_000, 110]), &mut port);
        assert!(port[0].starts_with("frames were lost: find the lane"), "{port:?}");
        // A lane with no errors, or a lane not counted, is not "every lane".
        let mut port = Vec::new();
        fill(&reasons, &mut even([0, 100, 100, 100]), &mut port);
        assert!(port[0].starts_with("frames were lost: find the lane"), "{port:?}");
    }

    #[test]
    fn every_non_accept_reason_gets_advice_once() {
        use crate::analysis::verdict::*;
        use crate::analysis::LaneAnalysis;
        let mut lanes = vec![
            LaneAnalysis { lane: 3, ..Default::default() },
            LaneAnalysis { lane: 4, advice: Some("own".into()), ..Default::default() },
        ];
        let reasons = vec![
            Reason::new(ReasonCode::LinkFlaps, Severity::Reject, Some(3), "2 link-down events in 60 s; lane 3 rose first".into()),
            Reason::new(ReasonCode::LowMargin, Severity::Investigate, Some(4), String::new()),
            Reason::new(ReasonCode::LinkFlaps, Severity::Reject, None, "link is down".into()),
            Reason::new(ReasonCode::LinkFlaps, Severity::Reject, None, "3 link-down events".into()),
            Reason::new(ReasonCode::NoFecData, Severity::Info, None, String::new()),
        ];
        let mut port = Vec::new();
        fill(&reasons, &mut lanes, &mut port);
        assert!(lanes[0].advice.as_deref().unwrap().starts_with("lane 3: the link dropped after lane 3's errors rose"));
        assert_eq!(lanes[1].advice.as_deref(), Some("own"));
        // One sentence for the two port-level drops; none for the info reason.
        assert_eq!(port.len(), 1, "{port:?}");
        assert!(port[0].starts_with("the link went down"));
    }

    fn facts(lane: u8) -> LaneFacts<'static> {
        LaneFacts { lane, ..Default::default() }
    }

    #[test]
    fn rules_in_order() {
        let cfg = Config::default();
        let mut f = facts(4);
        f.rx_delta_db = Some(-0.5);
        let a = lane_advice(&f, &cfg);
        assert!(a.starts_with("lane 4:") && a.contains("clean the fiber") && a.contains("unknown"), "{a}");
        f.have_peer = true;
        assert!(lane_advice(&f, &cfg).contains("far-end tx unknown"), "a peer without tx power");
        f.peer_tx_delta_db = Some(-0.1);
        assert!(lane_advice(&f, &cfg).contains("far-end transmitter normal"));
        f.peer_tx_delta_db = Some(-1.5);
        let a = lane_advice(&f, &cfg);
        assert!(a.contains("far end's transmitter on lane 4") && a.contains("1.5 dB"), "{a}");
        let flags = vec![ModuleFlag::TxFault];
        f.flags = &flags;
        assert!(lane_advice(&f, &cfg).contains("swap the module"));
        f.copper = true;
        assert!(lane_advice(&f, &cfg).contains("replace the cable"));
        let mut g = facts(2);
        g.rx_delta_db = Some(0.1);
        assert!(lane_advice(&g, &cfg).contains("receiver on lane 2"));
        // Flags alone, no errors counted: nothing blames the receiver yet.
        let lol = vec![ModuleFlag::Lol(flag::Side::Rx), ModuleFlag::Lol(flag::Side::Tx)];
        g.flags = &lol;
        let a = lane_advice(&g, &cfg);
        assert!(
            a.starts_with("lane 2: the module reports rx_lol, tx_lol with received light normal") && !a.contains("errors are high"),
            "{a}"
        );
        g.errors_counted = true;
        assert!(lane_advice(&g, &cfg).contains("errors are high"));
    }
}
