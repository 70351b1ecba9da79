//! The small status page `optics serve` shows at `/`: one row per interface with its
//! verdict, weakest lane and margin, and the reason codes. Every text is HTML-escaped
//! (interface names and module strings come from the system).

use crate::analysis::InterfaceAnalysis;
use std::fmt::Write;

/// `&`, `<`, `>`, `"` and `'` as entities.
pub(crate) fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The page for the latest analyses; `status` is one line about the sampler.
pub(crate) fn status_page(analyses: &[InterfaceAnalysis], status: &str) -> String {
    let mut h = String::new();
    // Writing into a String cannot fail; results are ignored below for that reason.
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>optics</title></head><body>\n<h1>optics {}</h1>\n<p>{}</p>\n",
        escape(env!("CARGO_PKG_VERSION")),
        escape(status)
    );
    h.push_str("<table border=\"1\">\n<tr><th>interface</th><th>verdict</th><th>worst lane</th><th>margin dB</th><th>reasons</th></tr>\n");
    for a in analyses {
        let worst = a.lanes.iter().find(|l| l.rank == 1);
        let lane = worst.map_or("-".to_string(), |l| l.lane.to_string());
        let margin = worst.and_then(|l| l.margin_db).map_or("-".to_string(), |m| format!("{m:.2}"));
        let mut codes: Vec<&str> = a.reasons.iter().map(|r| r.code.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        let _ = writeln!(
            h,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&a.interface),
            a.verdict.as_str(),
            escape(&lane),
            escape(&margin),
            escape(&codes.join(", "))
        );
    }
    h.push_str("</table>\n<p><a href=\"/metrics\">/metrics</a> &middot; <a href=\"/healthz\">/healthz</a></p>\n</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_names_is_escaped() {
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
        let page = status_page(&[], "<script>");
        assert!(page.contains("&lt;script&gt;") && !page.contains("<script>"));
    }
}
