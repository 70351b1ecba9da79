//! `optics plot` through the real binary: what each picture draws, read from the SVG's
//! structure (a marker per lane, a mark per event), and each rendered to PNG by
//! `rsvg-convert` (librsvg, installed by .ci/run) so a picture a renderer rejects fails.
//!
//! Colours are the plot's fixed vocabulary: lane n is Okabe-Ito colour n (lane 1 #0072B2,
//! lane 5 #56B4E9, lane 6 #D55E00, lane 7 #787878, lane 8 #000000), link drops #8C003C,
//! the limit #C80000, the judged window #FFECB3; in the histogram the bars #0072B2, the
//! chosen tail model #009E73, the straight-line tail #D55E00 and the prediction #CC79A7.

use crate::support::fecx_captures::{
    binomial_544, drifting_counts, failing_counts, negative_binomial, random_counts, two_mechanism_counts, DR4_CODEWORDS_PER_S,
    DRIFTING_MEAN_SYMBOLS, DRIFTING_SHAPE, INTERVALS, RANDOM_SYMBOL_ERROR_RATIO,
};
use crate::support::optics;
use roxmltree::{Document, Node};
use std::path::{Path, PathBuf};

fn capture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name)
}

/// Draws `kind` of `cap` and returns the SVG text, after rendering it to PNG.
fn plot(cap: &str, kind: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("p.svg");
    let out = optics().arg("plot").arg(capture(cap)).args(["--kind", kind, "-o"]).arg(&svg).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    render_png(&svg);
    std::fs::read_to_string(&svg).unwrap()
}

/// `rsvg-convert` must turn the SVG into a PNG of the plot's size (900 x 560).
fn render_png(svg: &Path) {
    let png = svg.with_extension("png");
    match std::process::Command::new("rsvg-convert").arg(svg).arg("-o").arg(&png).output() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            println!("skipping the PNG render: rsvg-convert is not installed (apt-get install librsvg2-bin)");
        }
        Err(e) => panic!("rsvg-convert: {e}"),
        Ok(o) => {
            assert!(o.status.success(), "rsvg-convert: {}", String::from_utf8_lossy(&o.stderr));
            let bytes = std::fs::read(&png).unwrap();
            // PNG signature, then the IHDR chunk: width and height as big-endian u32.
            assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
            let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
            assert_eq!((be(16), be(20)), (900, 560));
        }
    }
}

fn texts(doc: &Document) -> Vec<String> {
    doc.descendants().filter(|n| n.has_tag_name("text")).map(|n| n.text().unwrap_or("").trim().to_string()).collect()
}

fn count(doc: &Document, tag: &str, attr: &str, value: &str) -> usize {
    doc.descendants().filter(|n| n.has_tag_name(tag) && n.attribute(attr) == Some(value)).count()
}

/// The x pixel of a polyline's first point.
fn first_x(n: &Node) -> f64 {
    n.attribute("points").unwrap().split([',', ' ']).next().unwrap().parse().unwrap()
}

/// The x pixel of the x-axis tick label `label` (the bottom-most text with that content).
fn tick_x(doc: &Document, label: &str) -> f64 {
    let ticks = doc.descendants().filter(|n| n.has_tag_name("text") && n.text().map(str::trim) == Some(label));
    let bottom = ticks.max_by(|a, b| {
        let y = |n: &Node| n.attribute("y").unwrap().parse::<f64>().unwrap();
        y(a).total_cmp(&y(b))
    });
    bottom.unwrap().attribute("x").unwrap().parse().unwrap()
}

#[test]
fn ber_vs_rx_draws_the_vdm_lanes_as_triangles() {
    // mlx5 counts lanes 1-4 of the 800G-DR8 port; lanes 5-8 have only the module's VDM
    // pre-FEC BER (lane 7: 2.0e-5, the flagged lane). All eight are drawn.
    let svg = plot("dr8-800g-vdm-lane7-weak.jsonl", "ber-vs-rx");
    let doc = Document::parse(&svg).unwrap();
    let t = texts(&doc);
    for lane in 1..=4 {
        // Its legend entry and its point's label.
        assert_eq!(t.iter().filter(|x| **x == format!("lane {lane}")).count(), 2, "lane {lane}: {t:?}");
    }
    for lane in 5..=8 {
        assert_eq!(t.iter().filter(|x| **x == format!("lane {lane} (VDM)")).count(), 2, "lane {lane}: {t:?}");
    }
    // Counted lanes are circles with an interval, VDM lanes triangles (point + legend).
    for (lane, colour) in [(1, "#0072B2"), (2, "#E69F00"), (3, "#009E73"), (4, "#CC79A7")] {
        assert_eq!(count(&doc, "circle", "fill", colour), 2, "lane {lane}");
        assert_eq!(count(&doc, "polygon", "fill", colour), 0, "lane {lane}");
    }
    for (lane, colour) in [(5, "#56B4E9"), (6, "#D55E00"), (7, "#787878"), (8, "#000000")] {
        assert_eq!(count(&doc, "polygon", "fill", colour), 2, "lane {lane}");
    }
    // The fit the verdict quotes is over the four counted lanes.
    assert!(t.iter().any(|x| x.starts_with("fit ") && x.ends_with("decades/dB over 4 counted lanes")), "{t:?}");
}

#[test]
fn margin_over_time_marks_each_link_drop_where_it_happened() {
    // The driver's link-down counter steps 0 -> 1 at t = 20 s and 1 -> 2 at t = 40 s.
    let svg = plot("sr4-200g-link-flaps.jsonl", "margin-over-time");
    let doc = Document::parse(&svg).unwrap();
    let t = texts(&doc);
    assert!(t.iter().any(|x| x == "link down (2 drops)"), "{t:?}");
    assert!(t.iter().any(|x| x == "time since capture start (s)"), "{t:?}");
    let drops: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some("#8C003C")).collect();
    // Two full-height marks and the legend's sample.
    assert_eq!(drops.len(), 3, "{svg}");
    // Each mark sits at its time on the axis: the sample that saw the step is at most one
    // 1 s interval past it (a few pixels at ~13 px/s).
    for (mark, at) in drops.iter().take(2).zip(["20", "40"]) {
        let dx = first_x(mark) - tick_x(&doc, at);
        assert!((0.0..=16.0).contains(&dx), "drop mark {dx} px from the {at} s tick");
    }
    for lane in 1..=4 {
        assert_eq!(t.iter().filter(|x| **x == format!("lane {lane}")).count(), 1, "{t:?}");
    }
}

#[test]
fn margin_over_time_shades_the_window_the_verdict_judges() {
    // The module is swapped at t ≈ 30 s: the verdict judges the second segment, 30-60 s.
    let svg = plot("sr4-200g-module-swap.jsonl", "margin-over-time");
    let doc = Document::parse(&svg).unwrap();
    let t = texts(&doc);
    assert!(t.iter().any(|x| x == "module changed") && t.iter().any(|x| x == "window the verdict judges"), "{t:?}");
    let shade: Vec<Node> = doc.descendants().filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some("#FFECB3")).collect();
    // The shaded window and its legend swatch.
    assert_eq!(shade.len(), 2, "{svg}");
    let x: f64 = shade[0].attribute("x").unwrap().parse().unwrap();
    let w: f64 = shade[0].attribute("width").unwrap().parse().unwrap();
    let (t30, t60) = (tick_x(&doc, "30"), tick_x(&doc, "60"));
    assert!((x - t30).abs() <= 14.0, "window starts at {x}, the 30 s tick at {t30}");
    assert!((x + w - t60).abs() <= 14.0, "window ends at {}, the 60 s tick at {t60}", x + w);
    // No link drop in this run: no drop mark.
    assert_eq!(count(&doc, "polyline", "stroke", "#8C003C"), 0);
}

#[test]
fn margin_over_time_of_a_4_h_run_counts_hours() {
    // Sampled every 10 s for 4 h: the axis is in hours (0-4), not "14000.0 s".
    let svg = plot("dr4-400g-lane2-degrading-4h.jsonl", "margin-over-time");
    let t = texts(&Document::parse(&svg).unwrap());
    assert!(t.iter().any(|x| x == "time since capture start (h)"), "{t:?}");
    assert!(t.iter().any(|x| x == "4.0") && !t.iter().any(|x| x.contains("14000")), "{t:?}");
}

/// A histogram plot read back: bars, the limit, the tail's circles, the prediction's cross.
struct HistogramPlot {
    texts: Vec<String>,
    /// Bars (left x, top y), in drawing order (by symbol errors).
    bars: Vec<(f64, f64)>,
    /// The chosen model's circles (cx, cy).
    circles: Vec<(f64, f64)>,
    /// The limit's line x (the full-height one, not the legend's sample).
    limit_x: f64,
    /// The prediction cross's centre (the one right of the limit) and its whisker (y top, y bottom).
    cross: Option<(f64, f64)>,
    whisker: Option<(f64, f64)>,
    /// The straight-line tail's points, solid then dashed (not the legend's sample).
    line_points: Vec<(f64, f64)>,
}

fn attr(n: &Node, a: &str) -> f64 {
    n.attribute(a).unwrap().parse().unwrap()
}

fn points(n: &Node) -> Vec<(f64, f64)> {
    n.attribute("points")
        .unwrap()
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            (x.parse().unwrap(), y.parse().unwrap())
        })
        .collect()
}

fn read_histogram_plot(svg: &str) -> HistogramPlot {
    let doc = Document::parse(svg).unwrap();
    let with = |tag: &str, a: &str, v: &str| -> Vec<Node> {
        doc.descendants().filter(|n| n.has_tag_name(tag) && n.attribute(a) == Some(v)).collect()
    };
    let bars = with("rect", "fill", "#0072B2").iter().map(|n| (attr(n, "x"), attr(n, "y"))).collect();
    let circles = with("circle", "fill", "#009E73").iter().map(|n| (attr(n, "cx"), attr(n, "cy"))).collect();
    let limit = with("polyline", "stroke", "#C80000");
    // The full-height line is the tallest; the legend's sample is flat.
    let limit_x = limit.iter().map(points).max_by(|a, b| (a[0].1 - a[1].1).abs().total_cmp(&(b[0].1 - b[1].1).abs())).unwrap()[0].0;
    // A cross is two crossing lines; the plot's sits right of the legend's.
    let cross_lines = with("line", "stroke", "#CC79A7");
    let cross = cross_lines
        .iter()
        .map(|n| ((attr(n, "x1") + attr(n, "x2")) / 2.0, (attr(n, "y1") + attr(n, "y2")) / 2.0))
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let whisker = with("polyline", "stroke", "#CC79A7").iter().map(points).next().map(|p| (p[0].1.min(p[1].1), p[0].1.max(p[1].1)));
    // The legend is drawn last: its sample is the last polyline of the colour.
    let line = with("polyline", "stroke", "#D55E00");
    let line_points = line.iter().take(line.len().saturating_sub(1)).flat_map(points).collect();
    HistogramPlot { texts: texts(&doc), bars, circles, limit_x, cross, whisker, line_points }
}

/// The log axis from the bars: log10(codewords) = a + b·y over each bar's top at its known
/// density (least squares), as a function from a y pixel to codewords.
fn log_axis(bars: &[(f64, f64)], densities: &[f64]) -> impl Fn(f64) -> f64 {
    assert_eq!(bars.len(), densities.len(), "one bar per non-empty bin");
    let pts: Vec<(f64, f64)> = bars.iter().zip(densities).map(|(b, d)| (b.1, d.log10())).collect();
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|p| p.0).sum::<f64>() / n, pts.iter().map(|p| p.1).sum::<f64>() / n);
    let b = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / pts.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
    let a = my - b * mx;
    // Each bar's top sits on the axis to within a pixel's rounding (~0.03 decades here).
    for (y, l) in &pts {
        assert!((a + b * y - l).abs() < 0.05, "bar at y {y}: {} vs log10 {l}", a + b * y);
    }
    move |y: f64| 10f64.powf(a + b * y)
}

/// Within 12% (0.05 decades: a pixel's rounding is ~0.03 decades on these axes).
fn close(got: f64, want: f64, what: &str) {
    assert!((got / want).log10().abs() < 0.05, "{what}: drawn at {got:e}, expected {want:e}");
}

/// Window codewords of a generated DR4 histogram capture: bin 0 holds the rest of the line's.
fn window_bins(counts: &[u64; 16]) -> Vec<f64> {
    let window = (DR4_CODEWORDS_PER_S * INTERVALS) as f64;
    let errored: u64 = counts.iter().sum();
    std::iter::once(window - errored as f64).chain(counts[1..].iter().map(|c| *c as f64)).collect()
}

#[test]
fn histogram_draws_t_the_polya_aeppli_tail_and_its_prediction() {
    // Bin s holds 2^(26-s) codewords over the 60 s window (captures/README.md): a geometric
    // tail halving per symbol, which a burst model (Pólya–Aeppli) fits; continued past
    // t = 15, bin 16 holds 2^10 = 1024 and the sum past t is 1024 / (1 - 1/2) = 2048
    // codewords, 2048 / 60 s = 34/s.
    let svg = plot("dr4-400g-fec-tail-failing.jsonl", "histogram");
    let p = read_histogram_plot(&svg);
    assert!(p.texts.iter().any(|x| x == "t = 15: RS(544,514) corrects up to 15 symbols"), "{:?}", p.texts);
    assert!(p.texts.iter().any(|x| x == "Pólya–Aeppli model (χ² p 1.00): expected codewords"), "{:?}", p.texts);
    let past = p.texts.iter().find(|x| x.starts_with("past t: ")).unwrap_or_else(|| panic!("{:?}", p.texts));
    assert!(past.starts_with("past t: 34 uncorrectable codewords/s (95%: "), "{past}");
    // One bar per bin 0-15, all non-empty, each at its codewords.
    let bins = window_bins(&failing_counts());
    let value = log_axis(&p.bars, &bins);
    // The limit between bar 15 (x 15 to 15.9) and the value 16.
    let (x15, x14) = (p.bars[15].0, p.bars[14].0);
    let px_per_symbol = x15 - x14;
    assert!(p.limit_x > x15 + 0.9 * px_per_symbol - 1.0 && p.limit_x < x15 + px_per_symbol, "limit at {}", p.limit_x);
    // A circle per value 0..=18, on the bars up to t and on the halving tail past it.
    assert_eq!(p.circles.len(), 19);
    for (k, c) in p.circles.iter().enumerate() {
        let want = if k <= 15 { bins[k] } else { 2f64.powi(26 - k as i32) };
        close(value(c.1), want, &format!("model at {k}"));
    }
    // The prediction: the 2048 codewords past t in the window, right of the limit.
    let (cx, cy) = p.cross.unwrap();
    assert!(cx > p.limit_x);
    close(value(cy), 2048.0, "predicted uncorrectable codewords");
    let (top, bottom) = p.whisker.unwrap();
    assert!(top <= cy && cy <= bottom);
    // No straight line: the model stands.
    assert!(p.line_points.is_empty());
}

#[test]
fn histogram_draws_the_binomial_tail_of_a_random_channel() {
    // Each symbol in error with p = 1e-3 independently: bins are the window's codewords
    // times Binomial(544, p). The true share past t = 15 is Σ_{k > 15} Binomial(544, p)(k),
    // ~1.4e-18: ~6.4e-9 codewords in the 60 s window (the straight line would say ~5e-6).
    let svg = plot("dr4-400g-fec-tail-random.jsonl", "histogram");
    let p = read_histogram_plot(&svg);
    assert!(p.texts.iter().any(|x| x == "binomial model (χ² p 1.00): expected codewords"), "{:?}", p.texts);
    let counts = random_counts();
    let bins: Vec<f64> = window_bins(&counts).into_iter().filter(|c| *c > 0.0).collect();
    assert_eq!(bins.len(), 11, "bins 0-10 counted");
    let value = log_axis(&p.bars, &bins);
    let window = (DR4_CODEWORDS_PER_S * INTERVALS) as f64;
    let expected = |k: u64| window * binomial_544(k, RANDOM_SYMBOL_ERROR_RATIO);
    assert_eq!(p.circles.len(), 19);
    for (k, c) in p.circles.iter().enumerate() {
        close(value(c.1), expected(k as u64), &format!("model at {k}"));
    }
    let truth: f64 = (16..=544).map(expected).sum();
    assert!((6e-9..7e-9).contains(&truth), "{truth:e}");
    let (cx, cy) = p.cross.unwrap();
    assert!(cx > p.limit_x);
    close(value(cy), truth, "predicted uncorrectable codewords");
    let past = p.texts.iter().find(|x| x.starts_with("past t: ")).unwrap();
    assert!(past.starts_with("past t: 1.1e-10 uncorrectable codewords/s (95%: "), "{past}");
}

#[test]
fn histogram_draws_the_negative_binomial_tail_of_a_drifting_channel() {
    // Poisson errors whose rate drifts (negative binomial μ = 0.05, r = 0.3): bins are the
    // window's codewords times its P(k); the true share past t = 15 is Σ_{k > 15} P(k),
    // 1.587e-15: 7.4e-6 codewords in the 60 s window.
    let svg = plot("dr4-400g-fec-tail-drifting.jsonl", "histogram");
    let p = read_histogram_plot(&svg);
    assert!(p.texts.iter().any(|x| x == "negative binomial model (χ² p 1.00): expected codewords"), "{:?}", p.texts);
    let counts = drifting_counts();
    let bins: Vec<f64> = window_bins(&counts).into_iter().filter(|c| *c > 0.0).collect();
    assert_eq!(bins.len(), 11, "bins 0-10 counted");
    let value = log_axis(&p.bars, &bins);
    let window = (DR4_CODEWORDS_PER_S * INTERVALS) as f64;
    let expected = |k: u64| window * negative_binomial(k, DRIFTING_MEAN_SYMBOLS, DRIFTING_SHAPE);
    assert_eq!(p.circles.len(), 19);
    for (k, c) in p.circles.iter().enumerate() {
        close(value(c.1), expected(k as u64), &format!("model at {k}"));
    }
    let truth: f64 = (16..=400).map(expected).sum();
    assert!((7.3e-6..7.5e-6).contains(&truth), "{truth:e}");
    close(value(p.cross.unwrap().1), truth, "predicted uncorrectable codewords");
}

#[test]
fn histogram_falls_back_to_the_straight_line_when_no_model_fits() {
    // A steep random core (bins 1-3) and a few long bursts (bins 8-11): every model is
    // rejected by χ², so the line over the 7 non-empty bins above bin 0 stands, and says why.
    let svg = plot("dr4-400g-fec-tail-two-mechanisms.jsonl", "histogram");
    let p = read_histogram_plot(&svg);
    let line = p.texts.iter().find(|x| x.starts_with("straight-line tail over 7 bins (R² ")).unwrap_or_else(|| panic!("{:?}", p.texts));
    assert!(line.contains("no model fits"), "{line}");
    assert!(p.circles.is_empty());
    let counts = two_mechanism_counts();
    let bins: Vec<f64> = window_bins(&counts).into_iter().filter(|c| *c > 0.0).collect();
    let value = log_axis(&p.bars, &bins);
    // Least squares of log10(codewords) on symbol errors over (1, 400000), (2, 2000),
    // (3, 10), (8, 3), (9, 5), (10, 4), (11, 2), by hand here.
    let pts: Vec<(f64, f64)> = [1usize, 2, 3, 8, 9, 10, 11].iter().map(|&k| (k as f64, (counts[k] as f64).log10())).collect();
    let n = pts.len() as f64;
    let (mx, my) = (pts.iter().map(|q| q.0).sum::<f64>() / n, pts.iter().map(|q| q.1).sum::<f64>() / n);
    let slope = pts.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum::<f64>() / pts.iter().map(|q| (q.0 - mx).powi(2)).sum::<f64>();
    let intercept = my - slope * mx;
    // The line is drawn from value 1 (the first bin above the peak) to t + 3 = 18.
    let (first, last) = (p.line_points.first().unwrap(), p.line_points.last().unwrap());
    close(value(first.1), 10f64.powf(intercept + slope), "line at 1");
    close(value(last.1), 10f64.powf(intercept + slope * 18.0), "line at 18");
    // Its prediction: the line at 16, summed as a geometric series past t.
    let past_t = 10f64.powf(intercept + slope * 16.0) / (1.0 - 10f64.powf(slope));
    close(value(p.cross.unwrap().1), past_t, "predicted uncorrectable codewords");
    // The line has no interval.
    assert!(p.whisker.is_none());
}

#[test]
fn the_verdict_quotes_the_prediction_as_the_plot_does() {
    // The same 2048 / 60 s as the histogram's legend, as a number rather than "3.4e1".
    let out = optics().arg("scan").arg("--replay").arg(capture("dr4-400g-fec-tail-failing.jsonl")).env("COLUMNS", "400").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("predicts 34 uncorrectable codewords/s"), "{text}");
}

#[test]
fn report_links_its_plots_from_its_own_folder() {
    // `-o rep/t.md --plots rep/figs`, typed from the working directory: inside rep/ the
    // images are figs/..., and no absolute path of this machine appears.
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("rep")).unwrap();
    optics()
        .current_dir(dir.path())
        .arg("report")
        .arg(capture("sr4-200g-link-flaps.jsonl"))
        .args(["-o", "rep/t.md", "--plots", "rep/figs"])
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.path().join("rep/t.md")).unwrap();
    let links: Vec<&str> = md.lines().filter(|l| l.starts_with("![")).map(|l| &l[l.find("](").unwrap() + 2..l.len() - 1]).collect();
    assert_eq!(links, ["figs/ens3np0-ber-vs-rx.svg", "figs/ens3np0-margin-over-time.svg"]);
    for l in &links {
        assert!(dir.path().join("rep").join(l).is_file(), "{l} does not resolve from rep/");
    }
    // An absolute --plots and a report in another folder: still relative.
    let figs = dir.path().join("abs-figs");
    optics()
        .current_dir(dir.path())
        .arg("report")
        .arg(capture("sr4-200g-link-flaps.jsonl"))
        .args(["-o", "rep/u.md", "--plots"])
        .arg(&figs)
        .assert()
        .success();
    let md = std::fs::read_to_string(dir.path().join("rep/u.md")).unwrap();
    assert!(md.contains("](../abs-figs/ens3np0-ber-vs-rx.svg)"), "{md}");
    assert!(!md.contains(&dir.path().display().to_string()), "{md}");
}
