use super::*;
use crate::module::map::{first_overlap, first_straddling};
use proptest::prelude::*;

#[test]
fn field_tables_have_no_overlap_or_straddle() {
    for table in [A0_FIELDS, A2_FIELDS] {
        assert_eq!(first_overlap(table), None);
        assert_eq!(first_straddling(table), None);
    }
    for c in CHECKSUMS {
        // Each checksum covers every byte before it, starting at the table's first byte.
        assert_eq!(c.covered.offset as u16 + c.covered.len as u16, c.stored.offset as u16, "{}", c.name);
        assert_eq!(c.covered.i2c_address, c.stored.i2c_address);
        assert_eq!(first_straddling(&[c.covered, c.stored]), None);
    }
    let flag_fields: Vec<Field> = FLAG_BITS.iter().map(|f| f.field).collect();
    assert!(flag_fields.iter().all(|f| A2_FIELDS.contains(f)));
    for m in &MONITORS {
        assert!(A2_FIELDS.contains(&m.value) && A2_FIELDS.contains(&m.thresholds));
    }
    let c = COMPLIANCE_BITS.iter().all(|b| (TRANSCEIVER.offset..TRANSCEIVER.offset + TRANSCEIVER.len).contains(&b.offset));
    assert!(c);
    assert!(MONITOR_REQUEST.is_valid());
}

#[test]
fn flag_and_compliance_tables_have_no_duplicates() {
    for (i, a) in FLAG_BITS.iter().enumerate() {
        for b in &FLAG_BITS[i + 1..] {
            assert!(a.flag != b.flag && (a.field != b.field || a.mask != b.mask), "{} / {}", a.flag, b.flag);
        }
    }
    for (i, a) in COMPLIANCE_BITS.iter().enumerate() {
        for b in &COMPLIANCE_BITS[i + 1..] {
            assert!(a.offset != b.offset || a.mask != b.mask, "{} / {}", a.name, b.name);
        }
    }
}

#[test]
fn calibration_rounds_and_clamps_to_16_bits() {
    let lin = Calibration::Linear { slope: 2.0, offset: -10.0 };
    // 2 * 100 - 10 = 190
    assert_eq!(lin.apply(Monitor::TxBias, [0, 100]), Some(190u16.to_be_bytes()));
    // 2 * 3 - 10 = -4: below the unsigned range -> 0
    assert_eq!(lin.apply(Monitor::TxBias, [0, 3]), Some([0, 0]));
    // temperature is signed: 2 * -3 - 10 = -16
    assert_eq!(lin.apply(Monitor::Temperature, (-3i16).to_be_bytes()), Some((-16i16).to_be_bytes()));
    let nan = Calibration::Polynomial([f64::NAN, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(nan.apply(Monitor::RxPower, [0, 1]), None);
    assert_eq!(Calibration::Internal.apply(Monitor::RxPower, [1, 2]), Some([1, 2]));
}

#[test]
fn no_byte_0_is_no_identifier() {
    // A0h bytes 1-127 and A2h's monitors, byte by byte, but not A0h byte 0: SFF-8024's
    // identifier 0x00 ("Unknown or unspecified") is a value, and none was read.
    let mut img = ModuleImage::new();
    for offset in 1..128u16 {
        // Byte 1 = 0x04 (extended identifier, SFF-8472 Table 5-2), byte 2 = 0x07 (LC,
        // SFF-8024 Table 4-3), byte 92 = 0x68 (DDM, internally calibrated, average power).
        let b = match offset {
            1 => 0x04,
            2 => 0x07,
            92 => 0x68,
            _ => 0x00,
        };
        img.insert(I2C_A0, 0, 0, offset, &[b]).unwrap();
    }
    // A2h 96-97 = 0x2880: 40 + 0x80/256 = 40.5 C (SFF-8472 Table 9-11, internal calibration).
    for (offset, b) in (96..106u16).zip([0x28, 0x80, 0x80, 0x36, 0x17, 0x70, 0x1f, 0x40, 0x13, 0x88]) {
        img.insert(I2C_A2, 0, 0, offset, &[b]).unwrap();
    }
    let r = decode(&img);
    assert_eq!((r.identifier, r.identifier_name.as_deref(), r.form_factor), (None, None, None));
    assert_eq!((r.connector, r.module_temperature_c), (Some(0x07), Some(40.5)));
    // The same image with byte 0 = 0x03 (SFP, SFF-8024 Table 4-1).
    img.insert(I2C_A0, 0, 0, 0, &[0x03]).unwrap();
    let r = decode(&img);
    assert_eq!((r.identifier, r.form_factor), (Some(0x03), Some("SFP")));
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(
        a0 in proptest::collection::vec(any::<u8>(), 0..=256),
        a2 in proptest::collection::vec(any::<u8>(), 0..=256),
        a2_offset in 0u16..256,
    ) {
        let mut img = ModuleImage::new();
        img.insert_span(I2C_A0, 0, 0, 0, &a0).unwrap(); // at most 256 bytes from offset 0: fits
        let n = a2.len().min(256 - a2_offset as usize);
        img.insert_span(I2C_A2, 0, 0, a2_offset, &a2[..n]).unwrap(); // n keeps the span inside 0-255
        let report = decode(&img);
        prop_assert_eq!(report.lanes.len(), 1);
        prop_assert!(static_pages(&img).iter().chain(monitor_requests(&img).iter()).all(|r| r.is_valid()));
    }
}
