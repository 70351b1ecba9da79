//! Capture format: the shared example read as specified, write/read round trip, the
//! reader's tolerance rules and replay.

use optics::capture::RecordSink;
use optics::capture::{read_capture, read_capture_from, CaptureError, CaptureWriter, Record};
use optics::counters::Origin;
use optics::module::fingerprint::fingerprint;
use optics::module::{PageRequest, I2C_A0};
use optics::sample::engine::{Engine, EngineConfig, TimeRange};
use optics::source::replay::ReplaySource;
use optics::source::{IoCounts, Source};

pub(crate) const EXAMPLE: &str = "tests/fixtures/example_100g_sr4.jsonl";

fn example_text() -> String {
    std::fs::read_to_string(EXAMPLE).unwrap()
}

#[test]
fn example_capture_reads_as_specified() {
    let cap = read_capture(EXAMPLE).unwrap();
    assert_eq!(cap.header.version, 1);
    assert_eq!(cap.header.kernel.as_deref(), Some("6.18.0"));
    assert!(cap.notes.is_empty());
    // 32 lines: header + 1 interface record + 30 samples.
    assert_eq!(cap.records.len(), 31);
    assert_eq!(cap.interfaces(), vec!["ens3np0".to_string()]);
    assert_eq!(cap.samples_for("ens3np0").count(), 30);
    let ir: Vec<_> = cap.interface_records_for("ens3np0").collect();
    assert_eq!(ir.len(), 1);
    let ir = ir[0];
    assert_eq!(ir.driver.as_deref(), Some("mlx5_core"));
    assert_eq!(ir.bus_info.as_deref(), Some("0000:3b:00.0"));
    assert_eq!(ir.pci.as_ref().unwrap().current_link_width, Some(16));
    assert_eq!(ir.port.as_ref().unwrap().phys_port_name.as_deref(), Some("p0"));
    assert_eq!(ir.link.speed_mbps, Some(100_000));
    assert_eq!(ir.link.lanes, Some(4));
    assert_eq!(ir.link.fec_active.as_deref(), Some("RS"));
    let img = ir.module.as_ref().unwrap().image().unwrap();
    // Byte 0 = 0x11: QSFP28 (SFF-8024 Table 4-1). Page 00h bytes 196-211 (SFF-8636
    // Table 6-15) hex 45 58 32 36 31 31 53 52 34 43 30 30 34 32 20 20 = "EX2611SR4C0042  ".
    let fp = fingerprint(&img).unwrap();
    assert_eq!(fp[0], 0x11);
    assert_eq!(&fp[1..], b"EX2611SR4C0042  ");
    assert!(img.has_upper_page(I2C_A0, 3, 0));
}

#[test]
fn window_over_the_example_is_healthy() {
    let cap = read_capture(EXAMPLE).unwrap();
    let w = windows(&cap, TimeRange::whole());
    assert_eq!(w.len(), 1);
    let w = &w[0];
    assert_eq!(w.samples, 30);
    // First sample t=0.0, last t=28.9998.
    assert!((w.duration_s - 28.9998).abs() < 1e-9, "{}", w.duration_s);
    assert_eq!(w.link_up, Some(true));
    assert_eq!(w.identity.driver.as_deref(), Some("mlx5_core"));
    assert_eq!(w.link.speed_mbps, Some(100_000));
    let bits = w.deltas.corrected_bits.as_ref().unwrap();
    assert_eq!((bits.value, &bits.origin), (0, &Origin::Netlink));
    // Netlink has totals only; lanes come from mlx5 rx_err_lane_N_phy, all flat.
    assert_eq!(w.deltas.corrected_bits_per_lane.as_ref().unwrap().values, vec![0, 0, 0, 0]);
    assert_eq!(w.deltas.uncorrectable_blocks.as_ref().unwrap().value, 0);
    assert_eq!(w.deltas.link_down_events.as_ref().unwrap().value, 0);
    assert!(w.module.is_some(), "{:?}", w.module_error);
    assert!(w.events.is_empty(), "{:?}", w.events);

    // A sub-window: samples at 1.001 .. 10.x only.
    let sub = windows(&cap, TimeRange { from: Some(1.0), to: Some(10.5) });
    assert!(sub[0].samples < 30 && sub[0].samples > 5);
    assert!(sub[0].duration_s < 10.0);
}

#[test]
fn write_then_read_is_identical() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut w = CaptureWriter::new(Vec::new(), &cap.header).unwrap();
    for r in &cap.records {
        w.write(r).unwrap();
    }
    let bytes = w.into_inner().unwrap();
    let back = read_capture_from(&bytes[..]).unwrap();
    assert_eq!(back, cap);
    // And writing again gives the same bytes.
    let mut w2 = CaptureWriter::new(Vec::new(), &back.header).unwrap();
    for r in &back.records {
        w2.record(r).unwrap();
    }
    assert_eq!(w2.into_inner().unwrap(), bytes);
}

#[test]
fn a_record_time_json_cannot_carry_is_refused() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut rec = cap.records.iter().find(|r| matches!(r, Record::Sample(_))).unwrap().clone();
    if let Record::Sample(s) = &mut rec {
        s.t = f64::NAN;
    }
    let header_only = CaptureWriter::new(Vec::new(), &cap.header).unwrap().into_inner().unwrap().len();
    let mut w = CaptureWriter::new(Vec::new(), &cap.header).unwrap();
    assert_eq!(w.write(&rec).unwrap_err().kind(), std::io::ErrorKind::InvalidInput);
    assert_eq!(w.into_inner().unwrap().len(), header_only, "nothing written for the refused record");
}

#[test]
fn truncated_last_line_is_tolerated_with_a_note() {
    let text = example_text();
    let cut = &text[..text.trim_end().len() - 200];
    let cap = read_capture_from(cut.as_bytes()).unwrap();
    assert_eq!(cap.samples_for("ens3np0").count(), 29);
    assert_eq!(cap.notes.len(), 1);
    assert!(cap.notes[0].contains("line 32"), "{}", cap.notes[0]);
}

#[test]
fn bad_middle_line_is_an_error_naming_it() {
    let mut lines: Vec<String> = example_text().lines().map(String::from).collect();
    lines[4] = lines[4][..100].to_string(); // line 5, cut short but not the last line
    let err = read_capture_from(lines.join("\n").as_bytes()).unwrap_err();
    assert!(matches!(err, CaptureError::BadLine { line: 5, .. }), "{err}");
    assert!(err.to_string().starts_with("line 5:"), "{err}");
    // An unknown record type in the middle is also an error.
    let mut lines: Vec<String> = example_text().lines().map(String::from).collect();
    lines[2] = r#"{"record":"bogus","t":1.0}"#.into();
    assert!(matches!(read_capture_from(lines.join("\n").as_bytes()), Err(CaptureError::BadLine { line: 3, .. })));
}

#[test]
fn other_versions_are_refused_clearly() {
    let text = example_text().replacen("\"version\":1", "\"version\":2", 1);
    let err = read_capture_from(text.as_bytes()).unwrap_err();
    assert!(matches!(err, CaptureError::UnsupportedVersion { found: 2 }));
    assert!(err.to_string().contains("version 2"), "{err}");
    let text = example_text().replacen("optics-capture", "other", 1);
    assert!(matches!(read_capture_from(text.as_bytes()), Err(CaptureError::WrongFormat { .. })));
    assert!(matches!(read_capture_from(&b""[..]), Err(CaptureError::Empty)));
}

#[test]
fn replay_serves_captured_bytes_and_advances() {
    let cap = read_capture(EXAMPLE).unwrap();
    let mut src = ReplaySource::new(&cap);
    let first = src.read_eeprom("ens3np0", PageRequest::lower(I2C_A0)).unwrap();
    let s0: Vec<_> = cap.samples_for("ens3np0").collect();
    assert_eq!(first, s0[0].module.as_ref().unwrap().pages[0].data);
    // Page 3 (thresholds) comes from the interface record; first byte 0x4b = 75 degC.
    let p3 = src.read_eeprom("ens3np0", PageRequest::new(I2C_A0, 3, 0, 128, 2)).unwrap();
    assert_eq!(p3, vec![0x4b, 0x00]);
    assert!(src.read_eeprom("ens3np0", PageRequest::upper(I2C_A0, 2, 0)).unwrap_err().is_not_supported());
    assert!(src.link_state("eth9").unwrap_err().is_no_device());
    // Three module reads (the refused one counts as a request): 128 + 2 bytes.
    assert_eq!(src.io_counts(), IoCounts { requests: 3, bytes: 130 });
    assert!(src.advance());
    assert_eq!(src.current_sample("ens3np0").unwrap().t, 1.001);
    while src.advance() {}
    assert!(src.link_state("ens3np0").unwrap_err().is_no_device());
}

/// Every interface's window over `range`, through the streaming engine.
pub(crate) fn windows(cap: &optics::capture::Capture, range: TimeRange) -> Vec<optics::analysis::InterfaceWindow> {
    let mut e = Engine::new(EngineConfig { range, ..Default::default() });
    cap.records.iter().for_each(|r| e.push(r));
    e.windows()
}
