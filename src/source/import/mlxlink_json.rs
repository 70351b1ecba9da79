//! `mlxlink -d DEV [-m] [-c] [--show_histogram] --json` (MFT 4.x): `{"result": {"output":
//! {"Section": {"Field": "text" | {"values": [..]}}}}, "status": {"code", "message"}}`.
//! Multi-value fields (`{"values": [..]}`) are joined with commas, as the text form prints
//! them, so both forms share one field map ([`super::mlxlink_fields`]).

use super::mlxlink_fields::{to_fragment, Field};
use super::{Fragment, ParseError, ParseResult};
use serde_json::Value;

fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Object(o) => {
            let vals = o.get("values")?.as_array()?;
            Some(vals.iter().filter_map(text_of).collect::<Vec<_>>().join(","))
        }
        _ => None,
    }
}

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let root: Value = serde_json::from_str(text).map_err(ParseError::syntax)?;
    let output =
        root.pointer("/result/output").unwrap_or(&root).as_object().ok_or_else(|| ParseError::missing("\"result\".\"output\" object"))?;
    let mut fields: Vec<Field> = Vec::new();
    for (section, body) in output {
        let Some(body) = body.as_object() else { continue };
        for (name, v) in body {
            if let Some(t) = text_of(v) {
                super::field_name_fits("section name", section)?;
                super::field_name_fits("field name", name)?;
                fields.push((section.clone(), name.clone(), t));
                super::printed_fields_fit(fields.len())?;
            }
        }
    }
    let mut f = to_fragment(&fields)?;
    let status = root.pointer("/result/status").or_else(|| root.get("status"));
    if let Some(code) = status.and_then(|s| s.get("code")).and_then(Value::as_i64).filter(|c| *c != 0) {
        let msg = status.and_then(|s| s.get("message")).and_then(Value::as_str).unwrap_or("");
        f.notes.push(format!("mlxlink status {code}: {msg}"));
    }
    Ok(f)
}
