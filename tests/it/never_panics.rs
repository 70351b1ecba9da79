//! Arbitrary bytes and arbitrary page sets never make a parser or decoder panic.

use optics::module::{self, input, ModuleImage, I2C_A0, I2C_A2};
use proptest::prelude::*;

fn image_from(pages: &[(bool, u8, u8, bool, Vec<u8>)]) -> ModuleImage {
    let mut img = ModuleImage::new();
    for (a2, page, bank, upper, data) in pages {
        let addr = if *a2 { I2C_A2 } else { I2C_A0 };
        let (page, bank, offset) = if *upper { (*page, *bank, 128) } else { (0, 0, 0) };
        let _ = img.insert(addr, page, bank, offset, &data[..data.len().min(128)]);
    }
    img
}

/// Identifiers of every family, so the decoders themselves get exercised.
fn identifier() -> impl Strategy<Value = u8> {
    prop_oneof![Just(0x03u8), Just(0x0d), Just(0x11), Just(0x18), Just(0x19), Just(0x1e), any::<u8>()]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn input_parsers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..1200)) {
        let _ = input::parse(&bytes);
    }

    #[test]
    fn text_parser_never_panics(text in "[0-9a-fA-FxX: #|pagePAGEbnkA2h\n]{0,600}") {
        let _ = input::parse(text.as_bytes());
    }

    #[test]
    fn decoders_never_panic(
        id in identifier(),
        pages in proptest::collection::vec(
            (any::<bool>(), prop_oneof![Just(0u8), Just(1), Just(2), Just(3), Just(0x10), Just(0x11), Just(0x20), Just(0x24), Just(0x2c), Just(0x2f), any::<u8>()],
             0u8..4, any::<bool>(), proptest::collection::vec(any::<u8>(), 1..129)),
            0..10),
    ) {
        let mut img = image_from(&pages);
        let _ = img.insert(I2C_A0, 0, 0, 0, &[id]);
        if let Ok(report) = module::decode(&img) {
            // Serialising the report must not fail either (NaN/inf become null).
            prop_assert!(serde_json::to_string(&report).is_ok());
        }
        if let Ok(reqs) = module::static_pages(&img) {
            prop_assert!(reqs.iter().all(|r| r.is_valid()), "{:?}", reqs);
        }
        if let Ok(reqs) = module::monitor_requests(&img) {
            prop_assert!(reqs.iter().all(|r| r.is_valid()), "{:?}", reqs);
        }
    }
}

#[test]
fn cmis_identifier_with_ten_bytes_decodes_partially() {
    let mut img = ModuleImage::new();
    img.insert(I2C_A0, 0, 0, 0, &[0x18, 0x50, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let report = module::decode(&img).unwrap();
    assert_eq!(report.identifier, Some(0x18));
    assert!(report.vendor_name.is_none());
}
