//! `mlxlink -d DEV [-m] [-c] [-e] [--show_histogram]` text: sections titled by a line and a
//! line of dashes, then `Field<padding>: value` lines (mstflint `MlxlinkCmdPrint`); values
//! may carry ANSI colour codes, which are dropped. As people paste it: a web page or ticket
//! puts a blank line between lines and collapses the padding (`State : Active`), so blank
//! lines are skipped and nothing relies on columns.

use super::mlxlink_fields::{to_fragment, Field};
use super::{key_value, Fragment, ParseResult};

/// The text without ANSI escape sequences (`ESC [ ... letter`).
pub(crate) fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out.trim().to_string()
}

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let lines: Vec<String> = text.lines().map(strip_ansi).filter(|l| !l.is_empty()).collect();
    let mut section = String::new();
    let mut fields: Vec<Field> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if lines.get(i + 1).is_some_and(|n| n.starts_with("---")) && !line.contains(':') {
            section = line.clone();
            continue;
        }
        if section.is_empty() || line.starts_with("---") {
            continue;
        }
        if let Some((k, v)) = key_value(line) {
            super::field_name_fits("section title", &section)?;
            super::field_name_fits("field name", k)?;
            fields.push((section.clone(), k.to_string(), v.to_string()));
            super::printed_fields_fit(fields.len())?;
        }
    }
    to_fragment(&fields)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::import::{ParseError, MAX_FIELD_NAME_BYTES, MAX_PRINTED_FIELDS};

    /// Every field is kept as printed: past a real output's count, or under a section title
    /// longer than a real one (copied into each field's name), the output is refused.
    #[test]
    fn fields_past_a_real_outputs_count_or_name_length_are_refused_not_held() {
        let fields =
            |n: usize, title: &str| format!("{title}\n---\nWidth : 4x\n{}", (1..n).map(|i| format!("k{i} : v\n")).collect::<String>());
        assert_eq!(parse(&fields(MAX_PRINTED_FIELDS, "Operational Info")).unwrap().printed_fields.len(), MAX_PRINTED_FIELDS);
        let e = parse(&fields(MAX_PRINTED_FIELDS + 1, "Operational Info")).unwrap_err();
        assert!(matches!(e, ParseError::TooMany { max: MAX_PRINTED_FIELDS, .. }), "{e}");
        let e = parse(&fields(1, &"T".repeat(MAX_FIELD_NAME_BYTES + 1))).unwrap_err().to_string();
        assert_eq!(e, "a section title of 129 bytes (`TTTTTTTTTTTTTTTTTTTTTTTT`...): no tool's is longer than 128");
    }

    #[test]
    fn text_and_json_forms_of_one_snapshot_agree() {
        // tests/fixtures/import/README.md: the .txt is the .json laid out as mlxlink prints text.
        let t = parse(include_str!("../../../tests/fixtures/import/mlxlink_400g_a.txt")).unwrap();
        let j = super::super::mlxlink_json::parse(include_str!("../../../tests/fixtures/import/mlxlink_400g_a.json")).unwrap();
        assert_eq!(t.fec, j.fec);
        assert_eq!(t.printed_module, j.printed_module);
        assert_eq!(t.since_clear_s, Some(600.0));
        let fec = t.fec.unwrap();
        // Lanes 1e6, 2e6, 1.5e6, 50e6: total 54.5e6.
        assert_eq!(fec.corrected_bits, vec![54_500_000, 1_000_000, 2_000_000, 1_500_000, 50_000_000]);
        assert_eq!((fec.histogram[2].low, fec.histogram[2].high, fec.histogram[2].count), (2, 15, 20_000));
        let m = t.printed_module.unwrap();
        assert_eq!(m.supply_voltage_v, Some(3.2905));
        assert_eq!(m.rx_power_dbm[3], Some(-2.0));
        assert_eq!(t.link.unwrap().fec_active.as_deref(), Some("RS"));
        assert_eq!(t.printed_fields["Physical Counters and BER Info/Effective Physical BER"], "15E-255");
        assert!(strip_ansi("\u{1b}[32mActive\u{1b}[0m") == "Active");
    }
}
