//! `mlxlink -d DEV --amber_collect FILE.csv` (NVIDIA's amBER dump, mstflint
//! `MlxlinkAmBerCollector`): a header row of field names, then one row per run, appended to
//! the same file (`exportToCSV`); mlxlink replaces commas inside values by `_`, so a row is
//! split on commas exactly. Several rows are several snapshots of the port, oldest first.
//!
//! Read, through mlxlink's own field map ([`super::mlxlink_fields`]), per row:
//! `Time_since_last_clear_[Min]` (the time base), `Raw_Errors_laneN` (PPCNT
//! phy_raw_errors_laneN: the bits FEC corrected per lane), `Effective_Errors`, `Link_Down`,
//! the FEC histogram (`histN` counts with the `binN_low_value` / `binN_high_value` ranges of
//! PPHCR), `Active_FEC`, `Phy_Manager_State` (`Active` = up), `Ethernet_Protocol_Active` (the
//! speed), `Link_Width_Active` (else the lanes printed), and the
//! module's identity, `Module_Temperature` and `Module_Voltage` (mV). The link-down reason
//! columns (`down_blame`, `local_reason_opcode`, `remote_reason_opcode`) are said in a note.
//! Every column is kept as printed (`printed_fields`, `amBER/<name>`), the per-lane
//! `Raw_BER_laneN` and the module's per-lane powers included: the unit of
//! `rx_power_lane_N` / `tx_power_lane_N` depends on the firmware's `module_info_ext`
//! (`getPower` in mstflint), which the CSV does not say, so they are not read as dBm.

use super::mlxlink_fields::{to_fragment, Field};
use super::{Fragment, ParseError, ParseResult};
use crate::counters::MAX_LANES;

/// More runs than a file of at most 16 MiB holds at amBER's hundreds of columns.
const MAX_RUNS: usize = 10_000;
/// PPCNT's histogram group has 16 bins (`NUM_OF_BINS`).
const MAX_BINS: usize = 16;

const COUNTERS: &str = "Physical Counters and BER Info";
const OPERATIONAL: &str = "Operational Info";
const MODULE: &str = "Module Info";

/// The header row of an amBER CSV: mstflint's own field names.
fn is_header(line: &str) -> bool {
    let names: Vec<&str> = line.split(',').map(str::trim).collect();
    names.contains(&"amBer_Version") || (names.contains(&"Time_since_last_clear_[Min]") && names.contains(&"Raw_Errors_lane0"))
}

pub(crate) fn is_amber_csv(text: &str) -> bool {
    text.lines().find(|l| !l.trim().is_empty()).is_some_and(is_header)
}

/// One column's value in a row; `None` where mlxlink printed `N/A` or left it empty.
fn cell<'a>(header: &[&str], row: &[&'a str], name: &str) -> Option<&'a str> {
    let i = header.iter().position(|h| *h == name)?;
    row.get(i).copied().map(str::trim).filter(|v| !v.is_empty() && *v != "N/A")
}

fn run(header: &[&str], row: &[&str], n: usize) -> ParseResult<Fragment> {
    let mut fields: Vec<Field> = Vec::new();
    let mut push = |section: &str, name: &str, v: &str| fields.push((section.into(), name.into(), v.into()));
    for (column, section, name) in [
        ("Time_since_last_clear_[Min]", COUNTERS, "Time Since Last Clear [Min]"),
        ("Effective_Errors", COUNTERS, "Effective Physical Errors"),
        ("Link_Down", COUNTERS, "Link Down Counter"),
        ("Active_FEC", OPERATIONAL, "FEC"),
        ("Phy_Manager_State", OPERATIONAL, "State"),
        // `100GBASE-SR4`, `400GAUI-8`: the speed as mlxlink's `Speed` reads (`400G`).
        ("Ethernet_Protocol_Active", OPERATIONAL, "Speed"),
        ("Link_Width_Active", OPERATIONAL, "Width"),
        ("vendor_name", MODULE, "Vendor Name"),
        ("Cable_PN", MODULE, "Vendor Part Number"),
        ("Cable_SN", MODULE, "Vendor Serial Number"),
        ("Module_Temperature", MODULE, "Temperature [C]"),
        ("Module_Voltage", MODULE, "Voltage [mV]"),
    ] {
        if let Some(v) = cell(header, row, column) {
            push(section, name, v);
        }
    }
    // The lanes the port uses: mlxlink prints N/A past them.
    let lanes: Vec<&str> = (0..MAX_LANES).map_while(|l| cell(header, row, &format!("Raw_Errors_lane{l}"))).collect();
    if !lanes.is_empty() {
        push(COUNTERS, "Raw Physical Errors Per Lane", &lanes.join(","));
        // An Ethernet port's width is not a column: mlxlink prints N/A for the lanes past
        // the port's own (`lane < _numOfLanes`), so the lanes printed are its lanes.
        if cell(header, row, "Link_Width_Active").is_none() {
            push(OPERATIONAL, "Width", &format!("{}x", lanes.len()));
        }
    }
    for b in 0..MAX_BINS {
        let Some(count) = cell(header, row, &format!("hist{b}")) else { continue };
        let lo = cell(header, row, &format!("bin{b}_low_value"));
        let hi = cell(header, row, &format!("bin{b}_high_value"));
        let range = match (lo, hi) {
            (Some(lo), Some(hi)) => format!("[{lo}:{hi}]"),
            // No PPHCR ranges (an older firmware): bin N counts codewords with N symbol errors.
            _ => format!("[{b}]"),
        };
        push("Histogram of FEC Errors", &format!("Bin {b}"), &format!("{range},{count}"));
    }
    let mut f = to_fragment(&fields).map_err(|e| e.at(format_args!("row {n}")))?;
    for (h, v) in header.iter().zip(row) {
        f.printed_fields.insert(format!("amBER/{h}"), v.trim().to_string());
    }
    if let Some(blame) = cell(header, row, "down_blame") {
        let reason = |c| cell(header, row, c).unwrap_or("N/A");
        f.notes.push(format!(
            "row {n}: last link down: blame {blame}, local reason {}, remote reason {}",
            reason("local_reason_opcode"),
            reason("remote_reason_opcode")
        ));
    }
    Ok(f)
}

/// The runs of the file: one fragment when it holds one row, else one per row in `runs`.
pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header_line = lines.next().ok_or_else(|| ParseError::missing("field names (an empty file)"))?;
    if !is_header(header_line) {
        return Err(ParseError::malformed("the first row is not amBER's field names"));
    }
    let header: Vec<&str> = header_line.split(',').map(str::trim).take(super::MAX_PRINTED_FIELDS + 1).collect();
    // Each column is kept as printed, in every run.
    super::printed_fields_fit(header.len())?;
    for h in &header {
        super::field_name_fits("field name", h)?;
    }
    let mut runs = Vec::new();
    for (i, line) in lines.enumerate() {
        let n = i + 1;
        if n > MAX_RUNS {
            return Err(ParseError::TooMany { what: "runs in one file", max: MAX_RUNS });
        }
        let row: Vec<&str> = line.split(',').collect();
        if row.len() != header.len() {
            return Err(ParseError::refused(
                format!("{} values under {} field names: the row was cut, or the file mixes amBER versions", row.len(), header.len()),
                "start a new file per version",
            )
            .at(format_args!("row {n}")));
        }
        runs.push(run(&header, &row, n)?);
    }
    match runs.len() {
        0 => Err(ParseError::missing("row: mlxlink --amber_collect wrote the field names and no run")),
        1 => Ok(runs.remove(0)),
        _ => Ok(Fragment { runs, ..Default::default() }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_runs_and_a_cut_row_is_refused() {
        let h = "amBer_Version,Time_since_last_clear_[Min],Raw_Errors_lane0,Raw_Errors_lane1,Effective_Errors,hist0,hist1";
        let one = parse(&format!("{h}\n7.1,10.0,5,N/A,0,100,2\n")).unwrap();
        assert_eq!(one.fec.as_ref().unwrap().corrected_bits, vec![5, 5]);
        assert_eq!((one.since_clear_s, one.runs.len()), (Some(600.0), 0));
        assert_eq!(one.fec.unwrap().histogram[1].count, 2);
        let two = parse(&format!("{h}\n7.1,10.0,5,1,0,100,2\n7.1,20.0,9,1,0,200,3\n")).unwrap();
        assert_eq!(two.runs.len(), 2);
        assert_eq!(two.runs[1].since_clear_s, Some(1200.0));
        assert!(parse(&format!("{h}\n7.1,10.0,5\n")).unwrap_err().to_string().contains("row 1: 3 values under 7"));
        assert!(parse(&format!("{h}\n")).unwrap_err().to_string().contains("no row"));
        assert!(parse(&format!("{h}\n7.1,x,5,1,0,100,2\n")).is_err());
        assert!(!is_amber_csv("a,b,c\n1,2,3\n"));
    }
}
