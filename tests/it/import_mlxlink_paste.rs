//! mlxlink text as people paste it (tests/fixtures/mlxlink/README.md): a forum page puts a
//! blank line after every line and collapses the padding; the `--show_eye` section lands in
//! the capture as the NIC's receiver eye per lane. Every value checked is read off the
//! printed text by hand, and the BER from the counts is worked out from the lane rate.

use crate::support::optics;
use serde_json::Value;
use std::path::{Path, PathBuf};

const F: &str = "tests/fixtures/mlxlink";

fn import(inputs: &[&Path], cap: &Path) {
    let o = optics().arg("import").args(inputs).arg("-o").arg(cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The capture's sample records (the last is the snapshot; a zero reading may precede it).
fn samples(cap: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(cap).unwrap();
    text.lines().skip(1).map(|l| serde_json::from_str::<Value>(l).unwrap()).filter(|r| r["record"] == "sample").collect()
}

/// mlxlink's own layout (`Field<padded to 40>: value`, no blank lines) of a pasted text.
fn as_printed(pasted: &str) -> String {
    let mut out = String::new();
    for line in pasted.lines().filter(|l| !l.trim().is_empty()) {
        match line.split_once(" : ") {
            Some((k, v)) => out.push_str(&format!("{k:<40}: {v}\n")),
            None => out.push_str(&format!("{line}\n")),
        }
    }
    out
}

#[test]
fn a_forum_paste_of_counters_reads_with_its_time_base() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&[&Path::new(F).join("cx4_forum_show_counters.txt")], &cap);
    let s = samples(&cap);
    let last = s.last().unwrap();
    // Raw Physical Errors Per Lane 26711,0,0,9108: 35819 in all.
    assert_eq!(last["fec"]["corrected_bits"], serde_json::json!([35819, 26711, 0, 0, 9108]));
    // Time Since Last Clear 1715.4 min = 102924 s after the zero reading.
    assert!((last["t"].as_f64().unwrap() - s[0]["t"].as_f64().unwrap() - 102_924.0).abs() < 1e-6);
    assert_eq!(last["link"]["down_events"], Value::Null);
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let link = &v["interfaces"][0]["link"];
    // 100GbE over 4x, RS(528,514): 25.78125 Gb/s lanes, 103.125 Gb/s in all. 35819 bits over
    // 102924 s x 103.125e9 = 1.06140e16 bits: 3.375e-12, which mlxlink printed as "3E-12".
    assert_eq!(link["lane_rate_gbps"], 25.78125);
    let ber = link["pre_fec_ber"].as_f64().unwrap();
    assert!((ber - 35819.0 / (102_924.0 * 103.125e9)).abs() < 1e-15, "{ber}");
    assert!((3e-12..4e-12).contains(&ber));
}

#[test]
fn the_eye_section_lands_per_lane_pasted_or_as_printed() {
    let dir = tempfile::tempdir().unwrap();
    let pasted = std::fs::read_to_string(Path::new(F).join("cx4_forum_show_eye.txt")).unwrap();
    let printed = dir.path().join("eye_as_printed.txt");
    // mlxlink pads the width label with two spaces: "Phase  Eye Opening [psec]".
    std::fs::write(&printed, as_printed(&pasted).replace("Phase Eye", "Phase  Eye")).unwrap();
    let mut eyes = Vec::new();
    for (i, f) in [Path::new(F).join("cx4_forum_show_eye.txt"), printed].iter().enumerate() {
        let cap = dir.path().join(format!("e{i}.jsonl"));
        import(&[f], &cap);
        let s = samples(&cap);
        assert_eq!(s.len(), 1, "an eye alone is one reading, no zero reading: {s:?}");
        eyes.push(s[0]["serdes_eye"].clone());
    }
    assert_eq!(eyes[0], eyes[1]);
    let lanes = eyes[0]["lanes"].as_array().unwrap();
    let col = |k: &str| lanes.iter().map(|l| l[k].as_f64().unwrap()).collect::<Vec<_>>();
    assert_eq!(col("grade"), [3065.0, 3367.0, 4371.0, 2932.0]);
    assert_eq!(col("eye_height_mv"), [48.0, 53.0, 57.0, 37.0]);
    assert_eq!(col("eye_width_ps"), [12.0, 14.0, 15.0, 10.0]);
    assert_eq!(eyes[0]["tool"], "mlxlink");
    // The port's link came with it: 100GbE over 4 lanes.
    let text = std::fs::read_to_string(dir.path().join("e0.jsonl")).unwrap();
    let iface = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|r| r["record"] == "interface").unwrap();
    assert_eq!((iface["link"]["speed_mbps"].as_u64(), iface["link"]["lanes"].as_u64()), (Some(100_000), Some(4)));
}

/// The forum's `mlxlink -c` and `--show_eye` of one port, copied into one folder under `dir`:
/// the folder and the two files.
fn counters_and_eye_folder(dir: &Path) -> (PathBuf, [PathBuf; 2]) {
    let input = dir.join("host");
    std::fs::create_dir(&input).unwrap();
    let files = ["cx4_forum_show_counters.txt", "cx4_forum_show_eye.txt"].map(|f| {
        std::fs::copy(Path::new(F).join(f), input.join(f)).unwrap();
        input.join(f)
    });
    (input, files)
}

/// The forum's `mlxlink -c` and `--show_eye` of one port, as one folder imported into `dir`:
/// the capture's path.
fn counters_and_eye(dir: &Path) -> PathBuf {
    let (input, _) = counters_and_eye_folder(dir);
    let cap = dir.join("c.jsonl");
    import(&[&input], &cap);
    cap
}

/// What a person is shown of a capture: `scan --json`, the `scan` text and the Markdown
/// report, with the capture's own path as `CAPTURE` and the time the import wrote it
/// (the report's `(created ...)`) left out.
fn reports(cap: &Path) -> [String; 3] {
    [&["scan", "--json", "--replay"][..], &["scan", "--replay"], &["report"]].map(|args| {
        let o = optics().args(args).arg(cap).env("COLUMNS", "120").output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8(o.stdout).unwrap().replace(&cap.display().to_string(), "CAPTURE");
        match text.split_once(" (created ").and_then(|(a, b)| Some((a, b.split_once(')')?.1))) {
            Some((before, after)) => format!("{before}{after}"),
            None => text,
        }
    })
}

/// The same two real files, as one folder and as two arguments (in either order): the eye
/// stays with the counters of its port, and every report is the same.
#[test]
fn an_eye_and_counters_as_two_arguments_read_as_one_folder_does() {
    let dir = tempfile::tempdir().unwrap();
    let (folder, [counters, eye]) = counters_and_eye_folder(dir.path());
    let cap = dir.path().join("folder.jsonl");
    import(&[&folder], &cap);
    let expected = reports(&cap);
    assert!(expected[1].contains("mlxlink --show_eye"), "{}", expected[1]);
    for (i, args) in [[&counters, &eye], [&eye, &counters]].iter().enumerate() {
        let cap = dir.path().join(format!("args{i}.jsonl"));
        import(&args.map(PathBuf::as_path), &cap);
        assert_eq!(samples(&cap).pop().unwrap()["serdes_eye"]["lanes"][3]["eye_height_mv"], 37.0);
        for (got, want) in reports(&cap).iter().zip(&expected) {
            assert_eq!(got, want, "arguments {args:?}");
        }
    }
}

#[test]
fn counters_and_eye_of_one_port_are_one_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let cap = counters_and_eye(dir.path());
    let last = samples(&cap).pop().unwrap();
    assert_eq!(last["fec"]["corrected_bits"][0], 35819);
    assert_eq!(last["serdes_eye"]["lanes"][3]["eye_height_mv"], 37.0);
}

#[test]
fn a_pcie_eye_alone_is_refused_with_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    // mstflint showEye with --port_type PCIE: the title gains " (PCIe)"; 16 lanes of a x16 link.
    let f = dir.path().join("pcie_eye.txt");
    std::fs::write(
        &f,
        "PCIe Operational (Enabled) Info\n-------------------------------\nLink Width Active (Enabled)        : 16X (16X)\n\n\
         EYE Opening Info (PCIe)\n-----------------------\nPhysical Grade                     :   1848,  2220\n",
    )
    .unwrap();
    let o = optics().arg("import").arg(&f).arg("-o").arg(dir.path().join("c.jsonl")).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("PCIe lanes") && err.contains("mlxlink -d DEV -e"), "{err}");
}

#[test]
fn the_eye_is_shown_beside_the_lanes_in_scan_report_and_json() {
    let dir = tempfile::tempdir().unwrap();
    let cap = counters_and_eye(dir.path());
    // Per lane 1-4 as the forum paste prints them: grade, height mV, width ps.
    let expected = [(1, 3065, 48, 12), (2, 3367, 53, 14), (3, 4371, 57, 15), (4, 2932, 37, 10)];

    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let eye = &v["interfaces"][0]["serdes_eye"];
    assert_eq!(eye["tool"], "mlxlink");
    for (lane, grade, mv, ps) in expected {
        let l = &eye["lanes"][lane - 1];
        assert_eq!(
            (l["grade"].as_f64(), l["eye_height_mv"].as_f64(), l["eye_width_ps"].as_f64()),
            (Some(grade as f64), Some(mv as f64), Some(ps as f64))
        );
    }

    // The text lane table, weakest first: each lane's row ends with its own eye.
    let o = optics().args(["scan", "--replay"]).arg(&cap).env("COLUMNS", "120").output().unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    let header = text.lines().find(|l| l.trim_start().starts_with("lane ")).unwrap();
    assert!(header.contains("opt dB grade eye mV eye ps"), "{text}");
    for (lane, grade, mv, ps) in expected {
        let row = text.lines().find(|l| l.split_whitespace().next() == Some(&lane.to_string())).unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells[cells.len() - 3..], [grade.to_string(), mv.to_string(), ps.to_string()], "{row}");
    }
    assert!(text.contains("mlxlink --show_eye") && text.contains("not judged"), "{text}");

    // The Markdown report: a table of the eye under the lanes, lane by lane.
    let o = optics().arg("report").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.contains("| lane | physical grade | eye height mV | eye width ps |"), "{md}");
    for (lane, grade, mv, ps) in expected {
        assert!(md.contains(&format!("| {lane} | {grade} | {mv} | {ps} |")), "{md}");
    }
    assert!(md.contains("`mlxlink --show_eye`") && md.contains("not judged"), "{md}");
}

#[test]
fn a_port_without_an_eye_shows_no_eye() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&[&Path::new(F).join("cx4_forum_show_counters.txt")], &cap);
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["interfaces"][0].get("serdes_eye").is_none());
    let o = optics().args(["scan", "--replay"]).arg(&cap).output().unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("eye mV"));
}

#[test]
fn a_passive_copper_cable_printed_as_zeros_has_no_monitors_and_no_alarm_ranges() {
    // tests/fixtures/mlxlink/README.md: a ConnectX-7 NDR link over a 1 m passive copper
    // OSFP cable, every Module Info monitor printed `0 [0..0]`.
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&[&Path::new(F).join("cx7_ndr_osfp_passive_dac_show_module.txt")], &cap);
    let o = optics().args(["scan", "--json", "--replay"]).arg(&cap).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let i = &v["interfaces"][0];
    // IB-NDR over 4x: 4 lanes of 106.25 Gb/s (NDR's lane rate, IBTA Vol 2 Rel 1.5).
    assert_eq!(i["link"]["lane_rate_gbps"], 106.25);
    assert_eq!(i["module"]["vendor_pn"], "OSFPFL-400G-PC01");
    // No reading: not 0 C, 0 V, 0 mA, and not 0 dBm (1 mW) on every lane.
    assert_eq!(i["module"]["module_temperature_c"], Value::Null);
    assert_eq!(i["module"]["supply_voltage_v"], Value::Null);
    let lanes = i["module"]["lanes"].as_array().unwrap();
    assert_eq!(lanes.len(), 4);
    for l in lanes {
        for key in ["rx_power_mw", "tx_power_mw", "tx_bias_ma"] {
            assert_eq!(l[key], Value::Null, "lane {}: {key}", l["lane"]);
        }
    }
    // No limits: a [0..0] range is no thresholds, so nothing is "implausible" either.
    for key in ["temperature_c", "supply_voltage_v", "rx_power_mw", "tx_power_mw", "tx_bias_ma"] {
        assert_eq!(i["module"]["thresholds"][key], Value::Null, "{key}");
    }
    let codes: Vec<&str> = i["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect();
    for code in ["dom_implausible", "dom_alarm", "dom_warning", "weak_transmitter", "module_fault"] {
        assert!(!codes.contains(&code), "{codes:?}");
    }
}
