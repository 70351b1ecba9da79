//! Judging against the FEC limit itself and against the window's own worth.
//!
//! - `ber_over_fec_limit` (reject): a lane's or the port's pre-FEC BER is past the FEC
//!   limit with confidence (its lower Poisson bound is over it). RS(544,514) corrects up to
//!   15 symbols per codeword; past the limit it is failing codewords at random, so the link
//!   lives on luck even when no uncorrectable block was counted yet.
//! - Port-level `low_margin`: where the driver counts corrected bits for the port only, the
//!   port BER is judged like a lane's (optimistic margin from its lower bound).
//! - `insufficient_data` (investigate): a window with fewer than two samples, no counter
//!   deltas at all, or shorter than `min_window_s`, says nothing about the link; its counts
//!   are `null` (no interval), not 0.

use super::*;

/// "the RS(544,514) limit 2.4e-4" (or "the FEC limit" when unknown), as every reason says it.
/// Worded only when a reason is formatted: a window that earns no reason never pays for it.
pub(super) fn limit_text(cx: &Context, link: &LinkAnalysis) -> LimitText {
    LimitText(cx.limit.zip(link.fec.map(|f| f.name())))
}

/// The FEC limit as reasons word it ([`limit_text`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct LimitText(Option<(f64, &'static str)>);

impl std::fmt::Display for LimitText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some((l, name)) => write!(f, "the {name} limit {l:.1e}"),
            None => f.write_str("the FEC limit"),
        }
    }
}

/// A margin as reasons print it: "0.41 dB", or "unknown".
pub(super) fn fmt_opt_db(v: Option<f64>) -> String {
    v.map_or("unknown".into(), |v| format!("{v:.2} dB"))
}

/// The `low_margin` sentence of `what` (a lane, a group, the port).
pub(super) fn below_floor(what: &str, margin_db: Option<f64>, limit_text: &LimitText, floor_db: f64) -> String {
    format!("{what}: margin {} to {limit_text} is below the {floor_db:.1} dB floor", fmt_opt_db(margin_db))
}

/// No uncorrectable blocks or link drops past the configured allowance and the link not
/// down: corrected errors are then FEC hiding marginal optics, not a failing link.
pub(super) fn link_clean(cx: &Context, link: &LinkAnalysis) -> bool {
    let d = &cx.w.deltas;
    let lost = |c: &Option<crate::counters::Counted>| c.as_ref().is_some_and(|c| c.value > 0);
    cx.w.link_up != Some(false)
        && link.uncorrectable_blocks.unwrap_or(0) <= cx.cfg.max_uncorrectable_blocks
        && link.link_down_events.unwrap_or(0) <= cx.cfg.max_link_down_events
        && !lost(&d.fcs_errors)
        && !lost(&d.symbol_errors)
}

/// True when the BER's lower bound is past the limit: over it beyond counting noise.
fn past_limit(lower: Option<f64>, limit: Option<f64>) -> bool {
    matches!((lower, limit), (Some(lo), Some(lim)) if lo > lim)
}

/// `ber_over_fec_limit` for lanes and the port, and the port's `low_margin` when no lane
/// has its own BER.
pub(super) fn fec_limit_reasons(cx: &Context, link: &LinkAnalysis, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) {
    let lim_text = limit_text(cx, link);
    let mut lane_over = false;
    for la in lanes.iter_mut().filter(|la| past_limit(la.pre_fec_ber_lower, cx.limit)) {
        lane_over = true;
        la.flags.push(ReasonCode::BerOverFecLimit);
        let n = la.lane;
        let msg = format!(
            "lane {n}: pre-FEC BER {:.2e} (at least {:.2e}) is past {lim_text}: FEC cannot keep up, the link is living on luck",
            la.pre_fec_ber.unwrap_or(f64::NAN),
            la.pre_fec_ber_lower.unwrap_or(f64::NAN),
        );
        reasons.push(Reason::new(ReasonCode::BerOverFecLimit, Severity::Reject, Some(n), msg));
    }
    if !lane_over && past_limit(link.pre_fec_ber_lower, cx.limit) {
        let msg = format!(
            "port pre-FEC BER {:.2e} (at least {:.2e}) is past {lim_text}: FEC cannot keep up, the link is living on luck",
            link.pre_fec_ber.unwrap_or(f64::NAN),
            link.pre_fec_ber_lower.unwrap_or(f64::NAN),
        );
        reasons.push(Reason::new(ReasonCode::BerOverFecLimit, Severity::Reject, None, msg));
    }
    // A corrected codeword holds at least one bit error: block counts alone bound the BER
    // from below, and that bound past the limit is as conclusive.
    if !lane_over && link.corrected_bits.is_none() && cx.ber_possible() {
        let bound =
            link.corrected_blocks.filter(|b| *b > 0).and_then(|b| cx.ber_of(CounterFigure::CorrectedBlocks, b, link.lanes.unwrap_or(1)));
        if let Some(b) = bound.filter(|b| past_limit(Some(b.lower), cx.limit)) {
            let msg = format!("{} corrected codewords put the pre-FEC BER at {:.2e} or more, past {lim_text}", b.errors, b.ber);
            reasons.push(Reason::new(ReasonCode::BerOverFecLimit, Severity::Reject, None, msg));
        }
    }
    // The port's margin (an erfc⁻¹ and a log) only where no lane has a BER of its own.
    let lanes_have_ber = lanes.iter().any(|l| l.pre_fec_ber.is_some());
    let optimistic = || link.pre_fec_ber_lower.filter(|b| *b > 0.0).and_then(|b| cx.margin(b));
    if !lanes_have_ber && optimistic().is_some_and(|m| m < cx.cfg.margin_floor_db) {
        let msg = format!(
            "{} (corrected bits are counted for the port only, so the weak lane is unknown)",
            below_floor("port", link.margin_db, &lim_text, cx.cfg.margin_floor_db)
        );
        reasons.push(Reason::new(ReasonCode::LowMargin, Severity::Investigate, None, msg));
    }
}

/// `insufficient_data`, and no counts where the window has no interval to count over.
pub(super) fn window_worth(cx: &Context, link: &mut LinkAnalysis, lanes: &mut [LaneAnalysis], reasons: &mut Vec<Reason>) {
    // A lone snapshot whose BER came from the driver's rx_bits is worth judging.
    let snapshot_ber = no_interval(cx) && link.pre_fec_ber.is_some();
    if let Some(why) = why_insufficient(cx).filter(|_| !snapshot_ber) {
        reasons.push(Reason::new(ReasonCode::InsufficientData, Severity::Investigate, None, format!("{why}: sample a longer window")));
    }
    if let Some(why) = unknown_lane_rate(cx) {
        reasons.push(Reason::new(ReasonCode::InsufficientData, Severity::Investigate, None, why));
    }
    clear_uncounted(cx, link, lanes);
}

/// A link whose speed is known but whose per-lane rate is no lane class (the kernel's
/// `56000baseSR4/Full`: 14 Gb/s lanes, FDR InfiniBand's rate) cannot be judged: with no bit
/// rate there is no BER, margin or FEC limit, and an accept would only mean "nothing was
/// measured". Said, so that no gate (`--fail-on`, `--check`) passes it silently.
fn unknown_lane_rate(cx: &Context) -> Option<String> {
    // An InfiniBand port's sysfs counts no corrected bits: no lane rate is needed (FDR's 14G lanes).
    if cx.rate.is_some() || super::infiniband::is_ib_port(cx.w) {
        return None;
    }
    let link = &cx.w.link;
    let parsed = link.link_mode.as_deref().and_then(lanes::parse_link_mode);
    let speed_mbps = link.speed_mbps.or(parsed.map(|p| p.0))?;
    let shown = link.link_mode.clone().unwrap_or_else(|| format!("{speed_mbps} Mb/s"));
    let stated = link.lanes.filter(|n| *n > 0).or(parsed.map(|p| p.1));
    let Some(lanes) = stated.or_else(|| lanes::unstated_lanes(speed_mbps, cx.w.module.as_ref()).map(|(n, _)| n)) else {
        return Some(format!(
            "{shown}: the lane count is unknown (neither the kernel nor the module states it, and {speed_mbps} Mb/s has several lane layouts): no per-lane bit rate, so no BER, margin or FEC limit can be judged"
        ));
    };
    Some(format!(
        "{shown}: {} Mb/s per lane is not a lane rate optics knows (1G, 10G or 25G NRZ; 50G, 100G or 200G PAM4): no bit rate, so no BER, margin or FEC limit can be judged",
        speed_mbps / lanes
    ))
}

/// Why the window is too thin to judge, if it is.
fn why_insufficient(cx: &Context) -> Option<String> {
    let w = cx.w;
    if no_interval(cx) {
        Some(format!(
            "{} in the window: nothing was counted, so nothing about the link is known",
            if w.samples == 1 { "one sample".to_string() } else { format!("{} samples", w.samples) }
        ))
    } else if w.deltas == PortCounters::default() {
        Some("no counter changed or was counted over the window (no FEC, link or driver counter deltas)".into())
    } else if w.duration_s < cx.cfg.min_window_s {
        // Milliseconds: a window a few ms short of a whole-second minimum (the sampler's
        // timestamps jitter under load) must not print as equal to it.
        Some(format!("the window is {:.3} s, shorter than the {} s minimum (min_window_s)", w.duration_s, cx.cfg.min_window_s))
    } else {
        None
    }
}

fn no_interval(cx: &Context) -> bool {
    cx.w.samples < 2 || cx.w.duration_s <= 0.0
}

/// No counts where the window has no interval to count over: the part of
/// [`window_worth`] a lane row shows (rows never word the reason, so a live table of
/// 100 ms windows formats nothing here).
pub(super) fn clear_uncounted(cx: &Context, link: &mut LinkAnalysis, lanes: &mut [LaneAnalysis]) {
    if no_interval(cx) {
        link.link_down_events = None;
        link.uncorrectable_blocks = None;
        link.corrected_blocks = None;
        link.corrected_bits = None;
        for la in lanes.iter_mut() {
            la.corrected_bits = None;
        }
    }
}
