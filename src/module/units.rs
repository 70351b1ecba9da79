//! Raw monitor words to SI units. The encodings are shared by SFF-8472 (9.2),
//! SFF-8636 (6.2.4) and CMIS (5.2 8.2.5 / Table 8-10): big-endian 16-bit words.

/// Signed, 1/256 °C per LSB.
pub(crate) fn temperature_c(raw: [u8; 2]) -> f64 {
    i16::from_be_bytes(raw) as f64 / 256.0
}

/// Unsigned, 100 µV per LSB.
pub(crate) fn voltage_v(raw: [u8; 2]) -> f64 {
    u16::from_be_bytes(raw) as f64 * 100e-6
}

/// Unsigned, 0.1 µW per LSB (so 10000 LSB = 1 mW).
pub(crate) fn power_mw(raw: [u8; 2]) -> f64 {
    u16::from_be_bytes(raw) as f64 / 10_000.0
}

/// Unsigned, 2 µA per LSB (before any CMIS multiplier).
pub(crate) fn bias_ma(raw: [u8; 2]) -> f64 {
    u16::from_be_bytes(raw) as f64 * 0.002
}

/// mW to dBm; 0 mW (no light) is negative infinity, not an error.
/// (JSON output carries non-finite values as `null`.)
pub(crate) fn mw_to_dbm(mw: f64) -> f64 {
    if mw <= 0.0 {
        f64::NEG_INFINITY
    } else {
        10.0 * mw.log10()
    }
}

/// dBm (as tools print power) to mW.
pub(crate) fn dbm_to_mw(dbm: f64) -> f64 {
    10f64.powf(dbm / 10.0)
}

pub(crate) fn word(b: &[u8]) -> [u8; 2] {
    [b[0], b[1]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_follow_the_lsb_weights() {
        assert_eq!(temperature_c([0x19, 0x80]), 25.5);
        assert_eq!(temperature_c([0xff, 0x00]), -1.0);
        assert!((voltage_v([0x80, 0xe8]) - 3.3000).abs() < 1e-9); // 0x80e8 = 33000
        assert_eq!(power_mw([0x27, 0x10]), 1.0); // 10000
        assert!((bias_ma([0x0f, 0xa0]) - 8.0).abs() < 1e-12); // 4000 * 2 uA
        assert_eq!(mw_to_dbm(1.0), 0.0);
        assert_eq!(mw_to_dbm(0.0), f64::NEG_INFINITY);
    }
}
