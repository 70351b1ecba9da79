//! Judging: the flags, reasons and advice an analysed interface earns, from its link
//! counters (uncorrectable blocks, link drops, FEC coverage) and its lanes (outliers,
//! margin floors, module flags). Severities per code: [`super::verdict`].

use super::limits::{below_floor, fmt_opt_db, LimitText};
use super::*;
use crate::module::flag::{ModuleFlag, Monitor};

/// The `fec_hiding_marginal_optics` sentence with its evidence.
fn hiding_message(
    la: &LaneAnalysis,
    ev: &Evidence,
    limit_text: &LimitText,
    fit: Option<&RxBerFit>,
    modulation: Option<Modulation>,
) -> String {
    let pam4 = modulation == Some(Modulation::Pam4);
    let n = la.lane;
    let mut msg = format!(
        "lane {n}: pre-FEC BER {:.1e}{} with no uncorrectable blocks or link drops: FEC is hiding marginal optics; margin {} to {limit_text}",
        la.pre_fec_ber.unwrap_or(f64::NAN),
        ev.ber_ratio.map(|r| format!(" ({r:.0}x its siblings' median)")).unwrap_or_default(),
        fmt_opt_db(la.margin_db),
    );
    if let Some(d) = ev.rx_delta_db {
        msg.push_str(&format!("; rx {:.2} dBm, {:+.2} dB vs its siblings", la.rx_power_dbm.unwrap_or(f64::NAN), d));
    }
    if let Some(f) = fit {
        msg.push_str(&format!("; BER vs light across lanes {:.1} decades/dB", f.slope_decades_per_db));
        if f.pam4_signature {
            msg.push_str(" (the PAM4 signature: a few tenths of a dB move the BER by a decade)");
        } else if f.signature && modulation == Some(Modulation::Nrz) {
            let model = f.model_slope_decades_per_db.map(|m| format!("; the Q model gives {:.1} at this BER", m)).unwrap_or_default();
            msg.push_str(&format!(" (the NRZ signature: errors follow the light{model})"));
        }
    } else if pam4 {
        msg.push_str(" (PAM4: a few tenths of a dB move the BER by a decade)");
    }
    msg
}

/// Flags, reasons and advice for the lanes; the lanes left alone because they are dark or
/// their CMIS module or data path is not active ([`dom_limits::Unjudged`]), for the notes.
pub(super) fn judge_lanes(
    cx: &Context,
    link: &LinkAnalysis,
    lanes: &mut [LaneAnalysis],
    fit: Option<&RxBerFit>,
    peer: Option<&InterfaceWindow>,
    reasons: &mut Vec<Reason>,
) -> dom_limits::Unjudged {
    let w = cx.w;
    let unjudged = w.module.as_ref().map_or_else(dom_limits::Unjudged::default, |m| dom_limits::Unjudged {
        dark: dom_limits::dark_lanes(m, cx.rate.as_ref().map(|r| r.lanes), w.link_up == Some(false)),
        inactive: dom_limits::inactive_lanes(m),
    });
    let cfg = &cx.cfg;
    let link_clean = limits::link_clean(cx, link);
    let limit_text = limits::limit_text(cx, link);
    let siblings = outlier::Siblings::of(lanes);
    // `cx.margin(b) < margin_floor_db` for every lane, the floor's BER worked out once.
    let floor = cx.modulation.zip(cx.x_limit).map(|(m, x_limit)| q::MarginFloor::new(x_limit, cfg.margin_floor_db, m));
    let esnr_siblings = vdm_lanes::EsnrSiblings::of(lanes);
    let module_index = super::lane_index::LaneIndex::new(w.module.as_ref().map_or(&[][..], |m| &m.lanes[..]));
    // The levels and flags that can be believed (`dom_trust`); the thresholds in the
    // lanes' units once for all the lanes.
    let levels = w.module.as_ref().map(|_| dom_limits::Levels::of(&cx.dom.thresholds));
    let peer_lanes = peer.and_then(|p| p.module.as_ref()).map_or(&[][..], |m| &m.lanes[..]);
    for la in lanes.iter_mut() {
        // A lane switched off is in no link (`dom_limits::Unjudged`, said in the notes).
        if unjudged.contains(la.lane) {
            continue;
        }
        // From the lane's figures as measured: the judges below change only flags and advice.
        let ev = siblings.evidence(la, cfg, cx.limit);
        let esnr_delta_db = esnr_siblings.delta_db(la);
        let n = la.lane;
        let all_flags: &[ModuleFlag] = module_index.get(n).map_or(&[], |l| &l.flags[..]);
        let believed: Vec<ModuleFlag>;
        let module_flags: &[ModuleFlag] = if all_flags.iter().all(|f| cx.dom.believes_on(Some(n), *f)) {
            all_flags
        } else {
            believed = all_flags.iter().copied().filter(|f| cx.dom.believes_on(Some(n), *f)).collect();
            &believed
        };
        for u in cx.dom.unconfirmed.iter().filter(|u| u.lane == Some(n)) {
            if !la.flags.contains(&ReasonCode::DomFlagUnconfirmed) {
                la.flags.push(ReasonCode::DomFlagUnconfirmed);
            }
            reasons.push(Reason::new(ReasonCode::DomFlagUnconfirmed, Severity::Investigate, Some(n), unconfirmed_message(u)));
        }
        // The lane's values against the module's own thresholds: the same fact as the
        // module's flag bits, judged the same whether or not the source carries the bits.
        let crossed = levels.as_ref().map(|l| dom_limits::crossings(la, l)).unwrap_or_default();
        let said = |f: ModuleFlag| crossed.iter().find(|c| c.flag == f).map(|c| format!(": {}", c.text)).unwrap_or_default();
        // Module flags on this lane.
        for &f in module_flags {
            if let Some(code) = flag_code(f) {
                if !la.flags.contains(&code) {
                    la.flags.push(code);
                }
                let msg = format!("lane {n}: module reports {f}{}", said(f));
                reasons.push(Reason::new(code, severity_of_flag_code(code), Some(n), msg));
            }
        }
        let derived: Vec<&dom_limits::Crossing> = crossed.iter().filter(|c| !module_flags.contains(&c.flag)).collect();
        for c in &derived {
            if let Some(code) = flag_code(c.flag) {
                if !la.flags.contains(&code) {
                    la.flags.push(code);
                }
                reasons.push(Reason::new(code, severity_of_flag_code(code), Some(n), format!("lane {n}: {}", c.text)));
            }
        }
        // The module's flags and the crossings found from the values, for the advice.
        let flags: std::borrow::Cow<[ModuleFlag]> = if derived.is_empty() {
            std::borrow::Cow::Borrowed(module_flags)
        } else {
            std::borrow::Cow::Owned(module_flags.iter().copied().chain(derived.iter().map(|c| c.flag)).collect())
        };
        let flags: &[ModuleFlag] = &flags;
        // Optimistic margin: from the BER lower bound (infinite for zero errors).
        // A module's VDM BER is a point figure with no bounds: it stands for the lower bound.
        let ber_hi = la.pre_fec_ber_lower.filter(|b| *b > 0.0).or(vdm_lanes::module_point_ber(la));
        let ber_low_margin = ber_hi.zip(floor).is_some_and(|(b, f)| f.under(b));
        let rx_flagged = flags.iter().any(|f| f.is_low(Monitor::RxPower));
        let optical_low = !rx_flagged && la.optical_margin_db.is_some_and(|m| m < cfg.optical_margin_floor_db);
        let corrected = la.corrected_bits.is_some_and(|k| k > 0) || vdm_lanes::module_point_ber(la).is_some();
        let hiding = link_clean && corrected && (ev.outlier || ber_low_margin);
        if hiding {
            la.flags.push(ReasonCode::FecHidingMarginalOptics);
            let msg = hiding_message(la, &ev, &limit_text, fit, cx.modulation);
            reasons.push(Reason::new(ReasonCode::FecHidingMarginalOptics, Severity::Investigate, Some(n), msg));
        }
        if ber_low_margin || optical_low {
            la.flags.push(ReasonCode::LowMargin);
            let msg = if ber_low_margin {
                below_floor(&format!("lane {n}"), la.margin_db, &limit_text, cfg.margin_floor_db)
            } else {
                format!(
                    "lane {n}: rx {:.2} dBm is {} the module's {} threshold (floor {:.1} dB)",
                    la.rx_power_dbm.unwrap_or(f64::NAN),
                    la.optical_margin_db.map_or("at an unknown distance from".into(), |d| dom_limits::above_or_below(d, "dB")),
                    la.optical_margin_reference.map_or("low", |s| s.suffix()),
                    cfg.optical_margin_floor_db
                )
            };
            reasons.push(Reason::new(ReasonCode::LowMargin, Severity::Investigate, Some(n), msg));
        }
        // A flag the reading does not bear out says nothing about the lane's physics: its
        // advice is to read the flag again (`advice::fill`), not a part to clean or swap.
        if la.flags.iter().any(|c| *c != ReasonCode::DomFlagUnconfirmed) {
            let peer_lane = |lane: u8| peer_lanes.iter().find(|l| l.lane == lane);
            let peer_sib: Vec<f64> = peer_lanes.iter().filter(|l| l.lane != n).filter_map(|l| l.tx_power_dbm).collect();
            let peer_tx_delta_db =
                peer_lane(n).and_then(|l| l.tx_power_dbm).zip(stats::median(&peer_sib)).map(|(t, m)| t - m).filter(|d| d.is_finite());
            let facts = LaneFacts {
                lane: n,
                rx_delta_db: ev.rx_delta_db,
                rx_low_flagged: rx_flagged || optical_low,
                flags,
                // Asked only of flagged lanes: most windows have none.
                copper: is_copper(w),
                peer_tx_delta_db,
                peer_tx_flagged: peer_lane(n)
                    .is_some_and(|l| l.flags.iter().any(|f| *f == ModuleFlag::TxFault || f.is_low(Monitor::TxPower))),
                have_peer: peer.is_some(),
                link_loss_db: la.link_loss_db,
                link_loss_budget_db: la.link_loss_budget_db,
                pmd: la.link_loss_pmd.map(|p| p.name),
                peer_tx_dbm: peer_lane(n).and_then(|l| l.tx_power_dbm),
                rx_dbm: la.rx_power_dbm,
                far_link_loss_db: la.far_link_loss_db,
                esnr_db: la.esnr_db,
                esnr_delta_db,
                errors_counted: corrected,
            };
            la.advice = Some(lane_advice(&facts, cfg));
        }
        la.evidence = ev;
        if !la.flags.is_empty() {
            la.evidence.slope_decades_per_db = fit.map(|f| f.slope_decades_per_db);
            la.evidence.pam4_signature = fit.map(|f| f.pam4_signature);
            la.evidence.signature = fit.map(|f| f.signature);
        }
    }
    unjudged
}

/// Frames the MAC counted as lost (bad FCS, symbol errors during carrier): the loss
/// counters FEC statistics do not cover (docs/import.md). Over a window they are frames
/// lost in it (reject); in a lone snapshot (counts since the counters started, at an
/// unknown time) they show loss happened once, not that it goes on (investigate).
fn frame_loss_reasons(cx: &Context, reasons: &mut Vec<Reason>) {
    let w = cx.w;
    let windowed = cx.w.samples >= 2 && w.duration_s > 0.0;
    let counts = if windowed { &w.deltas } else { &w.counters_at_end };
    // A counter read from partway says over what: its increase is over its own span.
    let own = |figure: CounterFigure| {
        w.counter_span(figure).filter(|_| windowed).map(|s| format!(" over its own {}", span_text(s.duration_s()))).unwrap_or_default()
    };
    let said = |c: &Option<crate::counters::Counted>, figure: CounterFigure, what: &str| {
        c.as_ref().filter(|c| c.value > 0).map(|c| format!("{} frames with {what} ({}){}", c.value, c.origin, own(figure)))
    };
    // An InfiniBand port's symbol errors are judged on its generation (`infiniband`).
    let symbol_errors = counts.symbol_errors.clone().filter(|c| crate::counters::ib::origin_name(&c.origin).is_none());
    let mut parts: Vec<String> = [
        said(&counts.fcs_errors, CounterFigure::FcsErrors, "a bad FCS (CRC)"),
        said(&symbol_errors, CounterFigure::SymbolErrors, "symbol errors"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !windowed {
        // Over a window, uncorrectable blocks are `link_reasons`' (a rate over the window);
        // a lone snapshot's are a count since an unknown clear, judged like the frame counters.
        let lost_codewords = counts.uncorrectable_blocks.as_ref().filter(|c| c.value > 0);
        parts.splice(0..0, lost_codewords.map(|c| format!("{} uncorrectable FEC codewords ({})", c.value, c.origin)));
        parts.extend(said(&counts.pcs_symbol_errors, CounterFigure::PcsSymbolErrors, "PCS symbol errors"));
    }
    if parts.is_empty() {
        return;
    }
    let (severity, when) = if windowed {
        (Severity::Reject, format!("in {}: frames were lost", span_text(w.duration_s)))
    } else {
        (
            Severity::Investigate,
            "since the counters last started (one snapshot, an unknown time ago): frames were lost then; a second snapshot tells whether they still are".to_string(),
        )
    };
    reasons.push(Reason::new(ReasonCode::UncorrectableErrors, severity, None, format!("{} {when}", parts.join(" and "))));
}

/// A sentence when a counter that sees frame loss counted none over the window: the
/// loss that uncounted FEC blocks leave open is then ruled out. `None` when no such
/// counter was read (or one counted losses: a reason says so).
pub(super) fn loss_ruled_out(w: &InterfaceWindow) -> Option<String> {
    let d = &w.deltas;
    let counters = [
        (CounterFigure::FcsErrors, &d.fcs_errors),
        (CounterFigure::SymbolErrors, &d.symbol_errors),
        (CounterFigure::PcsSymbolErrors, &d.pcs_symbol_errors),
    ];
    let read: Vec<(CounterFigure, &crate::counters::Counted)> = counters.iter().filter_map(|(f, c)| Some((*f, c.as_ref()?))).collect();
    // Ruled out over the shortest of their own spans (the window's unless one was read from partway).
    let seconds = read.iter().map(|(f, _)| w.seconds_of(*f)).fold(w.duration_s, f64::min);
    if read.is_empty() || read.iter().any(|(_, c)| c.value > 0) || w.samples < 2 || seconds <= 0.0 {
        return None;
    }
    let names: Vec<String> = read.iter().map(|(_, c)| c.origin.to_string()).collect();
    Some(format!(
        "uncorrectable FEC blocks are not counted, but {} counted 0 over {}: no frame was lost",
        names.join(" and "),
        span_text(seconds)
    ))
}

/// A window's length as every sentence gives it: "7.5 s" (one decimal below 100 s, so a
/// 7.5 s window is never "8 s" in one place and "7 s" in another), "3600 s" above.
pub(super) fn span_text(s: f64) -> String {
    if s < 100.0 {
        format!("{s:.1} s").replace(".0 s", " s")
    } else {
        format!("{s:.0} s")
    }
}

pub(super) fn link_reasons(cx: &Context, link: &LinkAnalysis, lanes: &[LaneAnalysis], reasons: &mut Vec<Reason>) {
    let w = cx.w;
    let cfg = &cx.cfg;
    if w.link_up == Some(false) {
        let why = link
            .ext_state
            .map(|s| format!(" ({s}{})", link.ext_substate.map(|b| format!(": {b}")).unwrap_or_default()))
            .unwrap_or_default();
        let log = super::kernel_log::of(w);
        let kernel = log
            .and_then(crate::device::kernel_log::KernelLog::down_reason)
            .map(|m| format!("; the kernel said {}", super::kernel_log::quoted(m, log.and_then(|l| l.driver.as_deref()))))
            .unwrap_or_default();
        reasons.push(Reason::new(
            ReasonCode::LinkFlaps,
            Severity::Reject,
            None,
            format!("link is down at the end of the window{why}{kernel}"),
        ));
    }
    if let Some(k) = link.link_down_events.filter(|k| *k > cfg.max_link_down_events) {
        let (lane, traced) = trend_lanes::drop_lane(cx);
        reasons.push(Reason::new(
            ReasonCode::LinkFlaps,
            Severity::Reject,
            lane,
            format!(
                "{k} link-down event{} in {}{traced}",
                if k == 1 { "" } else { "s" },
                span_text(w.seconds_of(CounterFigure::LinkDownEvents))
            ),
        ));
    }
    if let Some(k) = link.uncorrectable_blocks.filter(|k| *k > cfg.max_uncorrectable_blocks) {
        reasons.push(Reason::new(
            ReasonCode::UncorrectableErrors,
            Severity::Reject,
            None,
            format!(
                "{k} uncorrectable FEC block{} in {}: frames were lost",
                if k == 1 { "" } else { "s" },
                span_text(w.seconds_of(CounterFigure::UncorrectableBlocks))
            ),
        ));
    }
    if let Some(c) = w.deltas.pcs_symbol_errors.as_ref().filter(|c| c.value > 0) {
        reasons.push(Reason::new(
            ReasonCode::UncorrectableErrors,
            Severity::Reject,
            None,
            format!(
                "{} PCS symbol errors ({}) in {}: errors reached the PCS",
                c.value,
                c.origin,
                span_text(w.seconds_of(CounterFigure::PcsSymbolErrors))
            ),
        ));
    }
    frame_loss_reasons(cx, reasons);
    super::latest_readings::reasons(w, reasons);
    if let Some(m) = &w.module {
        if m.image_corrupt() {
            let msg = format!(
                "module image corrupt: all {} checksums fail, so its identity, monitors and thresholds are not trusted",
                m.checksums.len()
            );
            reasons.push(Reason::new(ReasonCode::ModuleUnreadable, Severity::Investigate, None, msg));
        }
        if let Some(msg) = implausible_message(&cx.dom) {
            let severity = if cx.dom.findings.iter().any(dom_trust::Finding::is_serious) { Severity::Investigate } else { Severity::Info };
            reasons.push(Reason::new(ReasonCode::DomImplausible, severity, None, msg));
        }
        for u in cx.dom.unconfirmed.iter().filter(|u| u.lane.is_none()) {
            reasons.push(Reason::new(ReasonCode::DomFlagUnconfirmed, Severity::Investigate, None, unconfirmed_message(u)));
        }
        for &f in m.module_flags.iter().filter(|f| cx.dom.believes_on(None, **f)) {
            if let Some(code) = flag_code(f) {
                reasons.push(Reason::new(code, severity_of_flag_code(code), None, format!("module reports {f}")));
            }
        }
    } else if !super::infiniband::is_ib_port(w) {
        let why = w.module_error.as_deref().unwrap_or("no module data");
        reasons.push(Reason::new(ReasonCode::ModuleUnreadable, Severity::Investigate, None, why.to_string()));
    }
    let has_bits = link.corrected_bits.is_some() || lanes.iter().any(|l| l.corrected_bits.is_some());
    // An InfiniBand port's sysfs has no corrected-bit counters by design (`infiniband` notes it).
    let ib_without_bits = !has_bits && super::infiniband::is_ib_port(w);
    if (!has_bits || cx.fec == FecKind::Off) && !ib_without_bits {
        let (severity, msg) = match (cx.fec, link.corrected_blocks, link.uncorrectable_blocks) {
            (FecKind::Off, _, _) => (
                Severity::Info,
                "FEC is off: no corrected-bit counters, so no pre-FEC BER; DOM and PCS errors are the only margin signals".into(),
            ),
            // Block counts (e.g. ice, bnxt_en) still show whether FEC is losing frames; a
            // corrected codeword holds at least one bit error, so they bound the BER below.
            (_, Some(blocks), Some(_)) if cx.ber_possible() => {
                let bound = cx.ber_of(CounterFigure::CorrectedBlocks, blocks, link.lanes.unwrap_or(1)).filter(|_| blocks > 0);
                let at_least = bound.map(|b| format!(", so the pre-FEC BER is at least {:.1e}", b.ber)).unwrap_or_default();
                (
                    Severity::Info,
                    format!(
                        "only FEC block counts: {blocks} corrected codewords in {}{at_least}; no corrected-bit counters, so no per-lane BER or margin",
                        span_text(w.seconds_of(CounterFigure::CorrectedBlocks))
                    ),
                )
            }
            _ if super::latest_readings::present(w) => (
                Severity::Investigate,
                "the codeword figures are the tool's latest readings, not running totals, and no corrected bits are printed: pre-FEC BER and margin cannot be measured".into(),
            ),
            _ => (
                Severity::Investigate,
                "no corrected-bit counters from the kernel or driver: pre-FEC BER and margin cannot be measured".into(),
            ),
        };
        reasons.push(Reason::new(ReasonCode::NoFecData, severity, None, msg));
    }
}

/// "module diagnostics cannot be so: supply 0.23 V (...); ...: ..." for a module whose
/// readings or levels cannot be believed; `None` for one that holds together.
/// "lane 1: module reports tx_bias_low_alarm, but its tx bias reads 6.09 mA, inside its low
/// warning 3.00 mA: ...".
fn unconfirmed_message(u: &dom_trust::Unconfirmed) -> String {
    let lane = u.lane.map(|n| format!("lane {n}: ")).unwrap_or_default();
    format!(
        "{lane}module reports {}, but its {}: a flag its own reading does not bear out is an earlier event it kept (SFF-8636 and CMIS flags latch until read) or a wrong flag, so it is not judged as a crossing",
        u.flag, u.text
    )
}

fn implausible_message(dom: &dom_trust::Trust) -> Option<String> {
    if dom.findings.is_empty() {
        return None;
    }
    let said: Vec<String> = dom.findings.iter().map(dom_trust::Finding::describe).collect();
    let consequence = if !dom.readings() {
        "its readings, thresholds and limit flags are not evidence and are not judged"
    } else if dom.findings.iter().any(dom_trust::Finding::is_serious) {
        "those monitors' thresholds and limit flags are not evidence and are not judged"
    } else {
        "those warnings are not judged, the alarms are"
    };
    Some(format!("module diagnostics cannot be so: {}: {consequence}", said.join("; ")))
}
