//! Tail models of the RS-FEC codeword histogram (src/analysis/tail_models.rs) on real switch
//! histograms (tests/fixtures/fec-histogram/README.md) and on histograms generated from
//! channels of known parameters, whose true uncorrectable share is computed here from each
//! distribution's closed form, independently of the models' recursions.

use optics::analysis::fec::FecKind;
use optics::analysis::histogram::{analyze, HistogramInput, PredictedBy};
use optics::analysis::tail_models::{fit, TailModelKind};
use optics::counters::FecHistogramBin;
use statrs::function::gamma::ln_gamma;
use std::path::Path;

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/fec-histogram").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn count(s: &str) -> u64 {
    s.replace(',', "").parse().unwrap_or_else(|_| panic!("not a count: {s}"))
}

/// `portstat -fh` rows: name, BIN0..BIN15.
fn portstat_rows(text: &str) -> Vec<(String, Vec<u64>)> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>())
        .filter(|w| w.len() == 17 && w[0].starts_with("Ethernet"))
        .map(|w| (w[0].to_string(), w[1..].iter().map(|c| count(c)).collect()))
        .collect()
}

/// `show interfaces counters fec-histogram` rows: BINs, codewords.
fn show_rows(text: &str) -> Vec<u64> {
    text.lines()
        .filter_map(|l| l.split_whitespace().collect::<Vec<_>>().get(..2).filter(|w| w[0].starts_with("BIN")).map(|w| count(w[1])))
        .collect()
}

fn single_bins(counts: &[u64]) -> Vec<(u32, u32, u64)> {
    counts.iter().enumerate().map(|(s, c)| (s as u32, s as u32, *c)).collect()
}

#[test]
fn real_switch_histograms_are_not_binomial() {
    let mut ports = portstat_rows(&fixture("sonic_portstat_fh_pr4075.txt"));
    ports.push(("Ethernet48".into(), show_rows(&fixture("sonic_show_fec_histogram_pr3919_ethernet48.txt"))));
    assert_eq!(ports.len(), 5);
    for (name, counts) in &ports {
        assert_eq!(counts.len(), 16, "{name}");
        // A binomial channel would give BIN2 / BIN1 = (n − 1)/(2n) · BIN1/BIN0; Ethernet24:
        // 57,484 x 543/1088 x 57,484 / 4,374,594,305 = 0.377 where 502 were counted.
        let binomial_bin2 = counts[1] as f64 * 543.0 / 1088.0 * counts[1] as f64 / counts[0] as f64;
        assert!(counts[2] as f64 > 100.0 * binomial_bin2, "{name}: {counts:?}");
        let m = fit(&single_bins(counts), 544, 15).unwrap();
        // The likelihood says so too: the binomial's AIC is past the best's by more than 10.
        let best = m.fits.iter().map(|f| f.aic).fold(f64::INFINITY, f64::min);
        let b = m.fits.iter().find(|f| f.model == TailModelKind::Binomial).unwrap();
        assert!(b.aic > best + 10.0, "{name}: {m:#?}");
        assert_ne!(m.selected, Some(TailModelKind::Binomial), "{name}");
        // Three non-empty bins leave the two-parameter models no degree of freedom: chosen by AIC, said so.
        assert!(m.note.as_deref().is_some_and(|n| n.contains("AIC alone")), "{name}: {:?}", m.note);
        // Healthy links: the predicted FLR (X = 2, 64-octet frames) is far under the module's 1.7e-12.
        let bins: Vec<FecHistogramBin> = counts
            .iter()
            .enumerate()
            .map(|(s, c)| FecHistogramBin { low: s as u32, high: s as u32, count: *c, per_lane: Vec::new() })
            .collect();
        let h = analyze(&HistogramInput {
            bins: &bins,
            duration_s: 120.0,
            fec: FecKind::Rs544,
            line_codewords_per_s: None,
            flr_per_codeword_error_ratio: Some(2.0 + 672.0 / 5120.0),
        })
        .unwrap();
        assert!(matches!(h.prediction_model, Some(PredictedBy::Model(_))), "{name}");
        assert!(h.predicted_flr.unwrap() < 1.7e-12, "{name}: {:?}", h.predicted_flr);
    }
}

fn ln_choose(n: f64, k: f64) -> f64 {
    ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0)
}

fn binomial(k: u64, p: f64) -> f64 {
    let k = k as f64;
    (ln_choose(544.0, k) + k * p.ln() + (544.0 - k) * (1.0 - p).ln()).exp()
}

/// Negative binomial of mean μ and shape r: Γ(k + r)/(k! Γ(r)) (r/(r + μ))^r (μ/(r + μ))^k.
fn negative_binomial(k: u64, mu: f64, r: f64) -> f64 {
    let k = k as f64;
    (ln_gamma(k + r) - ln_gamma(k + 1.0) - ln_gamma(r) + r * (r / (r + mu)).ln() + k * (mu / (r + mu)).ln()).exp()
}

/// Pólya–Aeppli: j bursts (Poisson λ) of geometric lengths (continuing with θ) summing to k.
fn polya_aeppli(k: u64, lambda: f64, theta: f64) -> f64 {
    if k == 0 {
        return (-lambda).exp();
    }
    (1..=k)
        .map(|j| {
            let (kf, jf) = (k as f64, j as f64);
            (-lambda + jf * lambda.ln() - ln_gamma(jf + 1.0)
                + ln_choose(kf - 1.0, jf - 1.0)
                + (kf - jf) * theta.ln()
                + jf * (1.0 - theta).ln())
            .exp()
        })
        .sum()
}

/// 60 s of 400GBASE-R: 78.125e6 x 60 codewords, each bin's expected count rounded.
const CODEWORDS: f64 = 4.6875e9;

fn binned(ranges: &[(u32, u32)], p: &dyn Fn(u64) -> f64) -> Vec<(u32, u32, u64)> {
    ranges.iter().map(|&(lo, hi)| (lo, hi, (CODEWORDS * (lo..=hi).map(|k| p(u64::from(k))).sum::<f64>()).round() as u64)).collect()
}

const SINGLE: [(u32, u32); 16] = [
    (0, 0),
    (1, 1),
    (2, 2),
    (3, 3),
    (4, 4),
    (5, 5),
    (6, 6),
    (7, 7),
    (8, 8),
    (9, 9),
    (10, 10),
    (11, 11),
    (12, 12),
    (13, 13),
    (14, 14),
    (15, 15),
];
const RANGES: [(u32, u32); 5] = [(0, 0), (1, 3), (4, 7), (8, 11), (12, 15)];

/// The channel's true P(k > 15) against the prediction, within 3x, where the bins reach 8+.
fn within_3x(name: &str, ranges: &[(u32, u32)], p: &dyn Fn(u64) -> f64, kmax: u64) {
    let bins = binned(ranges, p);
    let reach = bins.iter().filter(|b| b.2 > 0).map(|b| b.1).max().unwrap();
    assert!(reach >= 8, "{name}: the histogram reaches {reach}");
    let truth: f64 = (16..=kmax).map(p).sum();
    let m = fit(&bins, 544, 15).unwrap();
    let got = m.uncorrectable_share.unwrap_or_else(|| panic!("{name}: no model chosen: {m:#?}"));
    assert!(got / truth < 3.0 && truth / got < 3.0, "{name}: predicted {got:e}, true {truth:e}: {m:#?}");
}

#[test]
fn random_channels_are_predicted_within_3x() {
    for p in [1.2e-3, 2e-3, 3e-3] {
        let f = move |k| binomial(k, p);
        within_3x(&format!("binomial p {p} single"), &SINGLE, &f, 544);
        within_3x(&format!("binomial p {p} ranges"), &RANGES, &f, 544);
    }
}

#[test]
fn bursty_channels_are_predicted_within_3x() {
    for (lambda, theta) in [(2e-3, 0.5), (1e-2, 0.35), (5e-4, 0.6)] {
        let f = move |k| polya_aeppli(k, lambda, theta);
        within_3x(&format!("Pólya–Aeppli {lambda} {theta} single"), &SINGLE, &f, 300);
        within_3x(&format!("Pólya–Aeppli {lambda} {theta} ranges"), &RANGES, &f, 300);
    }
    for (mu, r) in [(0.05, 0.3), (0.2, 0.5)] {
        let f = move |k| negative_binomial(k, mu, r);
        within_3x(&format!("negative binomial {mu} {r} single"), &SINGLE, &f, 400);
        within_3x(&format!("negative binomial {mu} {r} ranges"), &RANGES, &f, 400);
    }
}

#[test]
fn a_healthy_random_channel_raises_nothing_where_the_line_cried_wolf() {
    // Binomial p = 1.2e-3: the straight line through its bins predicts decades more than
    // the channel's true share; the chosen model does not.
    let p = 1.2e-3;
    let bins: Vec<FecHistogramBin> = binned(&SINGLE, &|k| binomial(k, p))
        .into_iter()
        .map(|(low, high, count)| FecHistogramBin { low, high, count, per_lane: Vec::new() })
        .collect();
    let h = analyze(&HistogramInput {
        bins: &bins,
        duration_s: 60.0,
        fec: FecKind::Rs544,
        line_codewords_per_s: None,
        flr_per_codeword_error_ratio: Some(2.0 + 672.0 / 5120.0),
    })
    .unwrap();
    assert_eq!(h.prediction_model, Some(PredictedBy::Model(TailModelKind::Binomial)));
    let truth: f64 = (16..=544).map(|k| binomial(k, p)).sum::<f64>() * CODEWORDS / 60.0;
    let (model, line) = (h.predicted_uncorrectable_per_s.unwrap(), h.line_predicted_uncorrectable_per_s.unwrap());
    assert!(model / truth < 3.0 && truth / model < 3.0, "{model:e} vs {truth:e}");
    assert!(line > 30.0 * truth, "the line: {line:e} vs {truth:e}");
    let (lo, hi) = (h.predicted_uncorrectable_per_s_low.unwrap(), h.predicted_uncorrectable_per_s_high.unwrap());
    assert!(lo <= model && model <= hi);
}
