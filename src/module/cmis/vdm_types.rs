//! VDM observable types (CMIS 5.2 VDM section, table "VDM Observable Types", basic
//! observables 1-24): what each descriptor's type ID measures, on which side, and how its
//! 16-bit sample is encoded. Cross-checked against SONiC sonic_xcvr's `VDM_TYPE` table
//! (codes/public/cmis.py), which lists the same IDs, formats and scales.

/// How a VDM sample word is encoded (CMIS 5.2 VDM section, "VDM sample formats").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// Unsigned word times `scale`.
    U16(Scale),
    /// Signed (two's complement) word times `scale`.
    S16(Scale),
    /// CMIS F16: bits 15-11 exponent e, bits 10-0 mantissa m, value m x 10^(e - 24).
    F16,
}

/// A scale as a rational `num / den`, so the table stays `Eq` and exact (1/256 dB).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Scale {
    pub(crate) num: i64,
    pub(crate) den: i64,
}

/// What an observable measures, for the per-lane summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Quantity {
    EsnrDb,
    LtpDb,
    PreFecBerMin,
    PreFecBerMax,
    PreFecBerAverage,
    PreFecBerCurrent,
    ErroredFramesMin,
    ErroredFramesMax,
    ErroredFramesAverage,
    ErroredFramesCurrent,
    /// Module or laser figures the lane model does not use (laser age, TEC current, ...).
    Other,
}

pub(super) struct ObservableType {
    pub(crate) id: u8,
    /// Stable snake_case key, units in the name where there are any.
    pub(crate) key: &'static str,
    pub(crate) format: Format,
    pub(crate) quantity: Quantity,
    pub(crate) side: Option<Side>,
}

const fn u16s(num: i64, den: i64) -> Format {
    Format::U16(Scale { num, den })
}
const fn s16s(num: i64, den: i64) -> Format {
    Format::S16(Scale { num, den })
}
const fn t(id: u8, key: &'static str, format: Format, quantity: Quantity, side: Option<Side>) -> ObservableType {
    ObservableType { id, key, format, quantity, side }
}

use super::super::vdm::Side::{self, *};
use Quantity::*;

/// CMIS 5.2 VDM Observable Types 1-24. Unit column: laser age 1 %, TEC current
/// 100/32767 %, frequency error 10 MHz, laser temperature 1/256 C, eSNR and PAM4 LTP
/// 1/256 dB, BER and errored frames F16.
pub(super) const TYPES: &[ObservableType] = &[
    t(1, "laser_age_percent", u16s(1, 1), Other, None),
    t(2, "tec_current_percent", s16s(100, 32767), Other, None),
    t(3, "laser_frequency_error_mhz", s16s(10, 1), Other, None),
    t(4, "laser_temperature_c", s16s(1, 256), Other, None),
    t(5, "esnr_media_db", u16s(1, 256), EsnrDb, Some(Media)),
    t(6, "esnr_host_db", u16s(1, 256), EsnrDb, Some(Host)),
    t(7, "ltp_media_db", u16s(1, 256), LtpDb, Some(Media)),
    t(8, "ltp_host_db", u16s(1, 256), LtpDb, Some(Host)),
    t(9, "pre_fec_ber_min_media", Format::F16, PreFecBerMin, Some(Media)),
    t(10, "pre_fec_ber_min_host", Format::F16, PreFecBerMin, Some(Host)),
    t(11, "pre_fec_ber_max_media", Format::F16, PreFecBerMax, Some(Media)),
    t(12, "pre_fec_ber_max_host", Format::F16, PreFecBerMax, Some(Host)),
    t(13, "pre_fec_ber_average_media", Format::F16, PreFecBerAverage, Some(Media)),
    t(14, "pre_fec_ber_average_host", Format::F16, PreFecBerAverage, Some(Host)),
    t(15, "pre_fec_ber_current_media", Format::F16, PreFecBerCurrent, Some(Media)),
    t(16, "pre_fec_ber_current_host", Format::F16, PreFecBerCurrent, Some(Host)),
    t(17, "errored_frames_min_media", Format::F16, ErroredFramesMin, Some(Media)),
    t(18, "errored_frames_min_host", Format::F16, ErroredFramesMin, Some(Host)),
    t(19, "errored_frames_max_media", Format::F16, ErroredFramesMax, Some(Media)),
    t(20, "errored_frames_max_host", Format::F16, ErroredFramesMax, Some(Host)),
    t(21, "errored_frames_average_media", Format::F16, ErroredFramesAverage, Some(Media)),
    t(22, "errored_frames_average_host", Format::F16, ErroredFramesAverage, Some(Host)),
    t(23, "errored_frames_current_media", Format::F16, ErroredFramesCurrent, Some(Media)),
    t(24, "errored_frames_current_host", Format::F16, ErroredFramesCurrent, Some(Host)),
];

pub(super) fn lookup(id: u8) -> Option<&'static ObservableType> {
    TYPES.iter().find(|t| t.id == id)
}

/// CMIS F16 (VDM sample formats): m x 10^(e - 24), e = bits 15-11, m = bits 10-0.
pub(super) fn f16(raw: u16) -> f64 {
    let exponent = i32::from(raw >> 11) - 24;
    f64::from(raw & 0x07ff) * 10f64.powi(exponent)
}

impl Format {
    pub(super) fn decode(&self, raw: [u8; 2]) -> f64 {
        match *self {
            Format::U16(s) => f64::from(u16::from_be_bytes(raw)) * s.num as f64 / s.den as f64,
            Format::S16(s) => f64::from(i16::from_be_bytes(raw)) * s.num as f64 / s.den as f64,
            Format::F16 => f16(u16::from_be_bytes(raw)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_follows_the_cmis_definition() {
        // 2.4e-4 = 240 x 10^-6: e - 24 = -6, e = 18 -> 18 << 11 | 240 = 0x90f0.
        assert!((f16(0x90f0) - 2.4e-4).abs() < 1e-18);
        // e = 0, m = 1: 10^-24, the smallest step; e = 31, m = 2047: 2047 x 10^7.
        assert!((f16(0x0001) - 1e-24).abs() < 1e-36);
        assert_eq!(f16(0xffff), 2047.0 * 1e7);
        assert_eq!(f16(0x0000), 0.0);
    }

    #[test]
    fn scaled_words() {
        // eSNR 0x1780 = 6016 / 256 = 23.5 dB.
        assert_eq!(u16s(1, 256).decode([0x17, 0x80]), 23.5);
        // Laser temperature -1 C = 0xff00 signed 1/256.
        assert_eq!(s16s(1, 256).decode([0xff, 0x00]), -1.0);
    }

    #[test]
    fn type_ids_are_unique_and_keys_name_their_side() {
        for (i, a) in TYPES.iter().enumerate() {
            assert!(TYPES[i + 1..].iter().all(|b| b.id != a.id && b.key != a.key), "{}", a.key);
            match a.side {
                Some(Media) => assert!(a.key.contains("media"), "{}", a.key),
                Some(Host) => assert!(a.key.contains("host"), "{}", a.key),
                None => {}
            }
        }
    }
}
