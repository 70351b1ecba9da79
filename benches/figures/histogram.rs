//! Section 9: the FEC codeword histogram's analysis per window (`analysis::histogram`).
//! The tail models (`analysis::tail_models`: binomial, negative binomial, Pólya–Aeppli,
//! each fitted by Newton's method on exact derivatives, with χ² and an interval for the
//! chosen one) came
//! after the straight-line tail, and the target is that the histogram's analysis costs at
//! most 2x what it cost with the line alone. Both are timed here in the same run, on the
//! port histograms of the bundled captures (16 single-symbol bins of 60 s of 400GBASE-R):
//! `histogram::line_only` (the line, as before the models) against `histogram::analyze`.

use super::{per_call, repo_file, windows, Table, Target, MICRO_BUDGET};
use anyhow::{anyhow, Context, Result};
use optics::analysis::codeword::line_codewords_per_s;
use optics::analysis::fec::FecKind;
use optics::analysis::histogram::{analyze, line_only, HistogramInput};
use optics::analysis::{self, Config};
use optics::capture::{read_capture_from, Record};
use optics::sample::engine::TimeRange;
use std::hint::black_box;

/// One capture per kind of tail: each model, and the line where no model fits.
const CAPTURES: [(&str, &str); 4] = [
    ("captures/dr4-400g-fec-tail-healthy.jsonl", "Pólya–Aeppli, tail to 7"),
    ("captures/dr4-400g-fec-tail-failing.jsonl", "Pólya–Aeppli, tail past 15"),
    ("captures/dr4-400g-fec-tail-random.jsonl", "binomial"),
    ("captures/dr4-400g-fec-tail-two-mechanisms.jsonl", "no model fits: the line"),
];
/// The target: the histogram's analysis with the tail models at most this many times the
/// line's alone.
const MAX_MODEL_COST_RATIO: f64 = 2.0;

pub fn run(t: &mut Table) -> Result<()> {
    t.section("9. FEC histogram analysis per window (`analysis::histogram`), target: tail models <= 2x the line alone");
    let cfg = Config::default();
    let mut worst: f64 = 0.0;
    for (path, kind) in CAPTURES {
        let cap = read_capture_from(&repo_file(path)?[..]).context(path)?;
        // The counters start at zero: the last sample's bins are the window's.
        let (first_t, last) = cap
            .records
            .iter()
            .filter_map(|r| match r {
                Record::Sample(s) => Some(s),
                _ => None,
            })
            .fold((None, None), |(first, _), s| (first.or(Some(s.t)), Some(s)));
        let last = last.ok_or_else(|| anyhow!("{path}: no sample"))?;
        let bins = last.fec.as_ref().map(|f| f.histogram.clone()).unwrap_or_default();
        let input = HistogramInput {
            bins: &bins,
            duration_s: last.t - first_t.unwrap_or(last.t),
            fec: FecKind::Rs544,
            line_codewords_per_s: line_codewords_per_s(FecKind::Rs544, 106.25, 4),
            flr_per_codeword_error_ratio: Some(2.0 + 672.0 / 5120.0),
        };
        let chosen = analyze(&input).and_then(|h| h.prediction_model).map(|m| format!("{m:?}")).unwrap_or_default();
        let line_s = per_call(MICRO_BUDGET, || {
            black_box(line_only(black_box(&input)));
        });
        let models_s = per_call(MICRO_BUDGET, || {
            black_box(analyze(black_box(&input)));
        });
        // The whole window's analysis of the same capture, for scale.
        let ws = windows(&cap, TimeRange::whole());
        let whole_s = per_call(MICRO_BUDGET, || {
            black_box(analysis::analyze(black_box(&ws), &cfg, &[]));
        });
        let name = path.trim_start_matches("captures/");
        t.row(&format!("{name} ({kind}; chosen {chosen}): line only"), line_s * 1e6, "us/window", Target::Info);
        t.row(&format!("{name}: with the tail models"), models_s * 1e6, "us/window", Target::Info);
        t.row(&format!("{name}: whole window's analysis (`analysis::analyze`)"), whole_s * 1e6, "us/window", Target::Info);
        t.row(&format!("{name}: tail models / line only"), models_s / line_s, "x", Target::AtMost(MAX_MODEL_COST_RATIO));
        t.row(&format!("{name}: histogram with models / whole analysis"), models_s / whole_s, "x", Target::Info);
        worst = worst.max(models_s / line_s);
    }
    t.row("worst tail models / line only", worst, "x", Target::Info);
    Ok(())
}
