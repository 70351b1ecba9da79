//! Codeword figures a tool printed as its latest reading, not as running totals (Arista
//! EOS `show interfaces phy detail`: [`crate::counters::FecReadings`]). No count over a
//! window and no rate comes from them; what they do tell:
//!
//! - one snapshot: a reading of lost codewords above 0 says codewords were lost at the
//!   time it last changed (investigate); 0 that never changed says none was ever read lost;
//! - two snapshots: the reading's change count is a running count, so a rise says new
//!   readings of lost codewords came in the window: codewords were lost in it (reject);
//!   no rise says none came (a note; a reading equal to the one before would not show).

use super::{InterfaceWindow, Reason, ReasonCode, Severity};
use crate::counters::{CounterFigure, LatestReading, Origin};

/// The reading of lost codewords, and how often it changed over the window (`None` without
/// one: a lone snapshot, or a window where the reading was seen at one moment only).
struct Lost<'a> {
    reading: &'a LatestReading,
    origin: Origin,
    new_readings: Option<u64>,
}

fn lost(w: &InterfaceWindow) -> Option<Lost<'_>> {
    let c = &w.counters_at_end;
    let reading = c.latest_readings.as_ref()?.uncorrectable_blocks.as_ref()?;
    let origin = c.uncorrectable_reading_changes.as_ref()?.origin;
    let windowed = w.samples >= 2 && w.duration_s > 0.0;
    let new_readings = w.deltas.uncorrectable_reading_changes.as_ref().filter(|_| windowed).map(|d| d.value);
    Some(Lost { reading, origin, new_readings })
}

/// Whether the window's codeword figures are latest readings: their notes and reasons are
/// this module's, not the counters'.
pub(super) fn present(w: &InterfaceWindow) -> bool {
    w.counters_at_end.latest_readings.is_some()
}

/// "last changed 1 day, 22:45:23 before the output, 1 change" / "... at 2026-08-18T12:03:59Z".
fn when(r: &LatestReading) -> String {
    let at = match (r.last_change_age_s, r.last_change_unix_s) {
        (Some(age), _) => format!("last changed {} before the output", clock(age)),
        (None, Some(t)) => time::OffsetDateTime::from_unix_timestamp(i64::try_from(t).unwrap_or(i64::MAX))
            .ok()
            .and_then(|t| t.format(&time::format_description::well_known::Rfc3339).ok())
            .map_or_else(|| "last change at an unreadable time".to_string(), |t| format!("last changed at {t}")),
        (None, None) => "no time of its last change printed".to_string(),
    };
    format!("{at}, {} change{}", r.changes, if r.changes == 1 { "" } else { "s" })
}

/// Seconds as EOS prints an age: `1 day, 22:45:23`, `2:39:43`.
fn clock(s: u64) -> String {
    let (d, h, m, sec) = (s / 86_400, s % 86_400 / 3600, s % 3600 / 60, s % 60);
    match d {
        0 => format!("{h}:{m:02}:{sec:02}"),
        1 => format!("1 day, {h}:{m:02}:{sec:02}"),
        _ => format!("{d} days, {h}:{m:02}:{sec:02}"),
    }
}

/// What the reading of lost codewords earns: reject when new readings came in the window,
/// investigate when a lone snapshot's reading is above 0.
pub(super) fn reasons(w: &InterfaceWindow, reasons: &mut Vec<Reason>) {
    let Some(l) = lost(w) else { return };
    let v = l.reading.value;
    let (severity, msg) = match l.new_readings {
        Some(k) if k > 0 => (
            Severity::Reject,
            format!(
                "the reading of uncorrectable FEC codewords ({}) changed {k} time{} in {}, the latest {v}: codewords were lost in the window (the tool prints the count of its latest sampling interval, not a total, so no count or rate)",
                l.origin,
                if k == 1 { "" } else { "s" },
                super::judge::span_text(w.seconds_of(CounterFigure::UncorrectableReadingChanges))
            ),
        ),
        None if v > 0 => (
            Severity::Investigate,
            format!(
                "the latest reading of uncorrectable FEC codewords ({}) is {v}, {}: codewords were lost then; the tool prints the count of its latest sampling interval that changed, not a total since a clear, so no rate: a second snapshot tells whether more are lost (the reading's change count rises)",
                l.origin,
                when(l.reading)
            ),
        ),
        _ => return,
    };
    reasons.push(Reason::new(ReasonCode::UncorrectableErrors, severity, None, msg));
}

/// The sentence for a reading of lost codewords that earns no reason: none came in the
/// window, or a lone snapshot's never read one.
pub(super) fn note(w: &InterfaceWindow) -> Option<String> {
    let l = lost(w)?;
    match l.new_readings {
        Some(0) => Some(format!(
            "the reading of uncorrectable FEC codewords ({}) did not change in {}: no new reading of lost codewords (the tool prints readings, not totals, so no count or rate)",
            l.origin,
            super::judge::span_text(w.seconds_of(CounterFigure::UncorrectableReadingChanges))
        )),
        None if l.reading.value == 0 && l.reading.changes == 0 => {
            Some(format!("the reading of uncorrectable FEC codewords ({}) is 0 and never changed: no codeword was read lost", l.origin))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_as_eos_prints_them() {
        assert_eq!(clock(9583), "2:39:43");
        assert_eq!(clock(86_400 + 22 * 3600 + 45 * 60 + 23), "1 day, 22:45:23");
        assert_eq!(clock(67 * 86_400 + 4 * 3600 + 51 * 60 + 43), "67 days, 4:51:43");
    }
}
