//! `optics plot` through the real binary: what each picture draws, read from the SVG's
//! structure (a marker per lane, a mark per event), and each rendered to PNG by
//! `rsvg-convert` (librsvg, installed by .ci/run) so a picture a renderer rejects fails.
//!
//! Colours are the plot's fixed vocabulary: lane n is Okabe-Ito colour n (lane 1 #0072B2,
//! lane 5 #56B4E9, lane 6 #D55E00, lane 7 #787878, lane 8 #000000), link drops #8C003C,
//! the limit #C80000, the judged window #FFECB3, the histogram's tail fit #D55E00.

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

#[test]
fn histogram_draws_the_limit_the_tail_fit_and_its_prediction() {
    // Bin s holds 2^(26-s) codewords over the 60 s window (captures/README.md): the tail
    // falls by log10(2) per symbol; extrapolated, bin 16 holds 2^10 = 1024 and the
    // geometric sum past t = 15 is 1024 / (1 - 1/2) = 2048 codewords, 2048 / 60 s = 34/s.
    let svg = plot("dr4-400g-fec-tail-failing.jsonl", "histogram");
    let doc = Document::parse(&svg).unwrap();
    let t = texts(&doc);
    assert!(t.iter().any(|x| x == "t = 15: RS(544,514) corrects up to 15 symbols"), "{t:?}");
    let fit = t.iter().find(|x| x.starts_with("tail fit over 15 bins")).unwrap_or_else(|| panic!("{t:?}"));
    assert!(fit.contains("predicts 34 uncorrectable codewords/s"), "{fit}");
    // One bar per bin 0-15, all non-empty.
    assert_eq!(count(&doc, "rect", "fill", "#0072B2"), 16, "{svg}");
    // The limit: one full-height line and its legend sample.
    assert_eq!(count(&doc, "polyline", "stroke", "#C80000"), 2);
    // The fit: a solid run up to t, then dashes past it.
    assert!(count(&doc, "polyline", "stroke", "#D55E00") > 3);
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
