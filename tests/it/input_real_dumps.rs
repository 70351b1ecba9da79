//! Every real dump in tests/fixtures/real-dumps parses through the hex-text reader into
//! the pages its header says it holds.

use optics::module::input::{parse, InputFormat};
use optics::module::{I2C_A0, I2C_A2};
use std::path::PathBuf;

fn fixture(name: &str) -> Vec<u8> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn sfp_i2cdump_pair_gives_a0h_and_a2h() {
    let p = parse(&fixture("sfp02_oem_sfp10g_t8_10gbaset_i2cdump_A0A2.txt")).unwrap();
    assert_eq!(p.format, InputFormat::HexText);
    // A0h row 00: "03 04 07 10"; A2h row 00: "50 00 f6 00"; A2h 0xff = 0xe3 (last byte).
    assert_eq!(p.image.bytes(I2C_A0, 0, 0, 0, 4), Some(&[0x03, 0x04, 0x07, 0x10][..]));
    assert_eq!(p.image.bytes(I2C_A2, 0, 0, 0, 4), Some(&[0x50, 0x00, 0xf6, 0x00][..]));
    assert_eq!(p.image.byte(I2C_A2, 0, 0, 0xff), Some(0xe3));
    assert_eq!(p.image.len(), 512);
}

#[test]
fn qsfp_rows_give_lower_and_page_00h() {
    for name in
        ["qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt", "qsfp08_avago_AFBR-79EQDZ_qsfp+_40g_sr4_sffdb_lower_p00.txt"]
    {
        let p = parse(&fixture(name)).unwrap();
        assert_eq!(p.image.len(), 256, "{name}");
        assert!(p.image.has_lower(I2C_A0) && p.image.has_upper_page(I2C_A0, 0, 0), "{name}");
    }
}

#[test]
fn hexdump_c_style_cmis_dump() {
    let p = parse(&fixture("cmis02_cisco_68-103205-02_qsfpdd_lower_p00_sonic_hexdump.txt")).unwrap();
    assert_eq!(p.image.len(), 256);
    // row 00000080: "18 43 49 53" -> page 00h byte 128 = 0x18, byte 222 = 0xf9 (checksum).
    assert_eq!(p.image.byte(I2C_A0, 0, 0, 128), Some(0x18));
    assert_eq!(p.image.byte(I2C_A0, 0, 0, 222), Some(0xf9));
}

#[test]
fn junos_page_headings_place_each_page() {
    let p = parse(&fixture("cmis04_credo_CAC845301A2NC2XA_osfp_aec_cmis50_junos_picd_lower_p00_p01_p02_p10_p11.txt")).unwrap();
    // lower + pages 00h, 01h, 02h, 10h, 11h: 6 half pages.
    assert_eq!(p.image.len(), 6 * 128);
    assert_eq!(p.image.byte(I2C_A0, 0x01, 0, 0xff), Some(0xfd)); // page 01h checksum
    assert_eq!(p.image.byte(I2C_A0, 0x02, 0, 0xff), Some(0x2e)); // page 02h checksum
    assert_eq!(p.image.byte(I2C_A0, 0x11, 0, 0x80), Some(0x44)); // page 11h DP state
    assert_eq!(p.image.byte(I2C_A0, 0x10, 0, 0x91), Some(0x50));
}
