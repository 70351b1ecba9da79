//! SFF-8472 Rev 12.4 monitors and their calibration: which A2h words hold each monitor,
//! its thresholds and its external-calibration constants (Table 9-6), and how a raw A/D
//! word becomes the internal-calibration encoding (9.2, 9.3).

use super::*;
pub(super) use crate::module::printed::Monitor;

/// Temperature is the only two's-complement quantity (SFF-8472 9.2).
fn signed(monitor: Monitor) -> bool {
    monitor == Monitor::Temperature
}

/// Calibrated word -> SI unit (SFF-8472 9.2 LSB weights).
pub(super) fn to_si(monitor: Monitor, word: [u8; 2]) -> f64 {
    match monitor {
        Monitor::Temperature => units::temperature_c(word),
        Monitor::Voltage => units::voltage_v(word),
        Monitor::TxBias => units::bias_ma(word),
        Monitor::TxPower | Monitor::RxPower => units::power_mw(word),
    }
}

/// Where a monitor's external calibration constants live (Table 9-6).
pub(super) enum ExternalFields {
    Linear {
        slope: Field,
        offset: Field,
    },
    /// Coefficients of ADC^0 .. ADC^4.
    Polynomial([Field; 5]),
}

pub(super) struct MonitorMap {
    pub(super) monitor: Monitor,
    pub(super) value: Field,
    pub(super) thresholds: Field,
    pub(super) external: ExternalFields,
}

pub(super) const MONITORS: [MonitorMap; 5] = [
    MonitorMap {
        monitor: Monitor::Temperature,
        value: TEMPERATURE,
        thresholds: TEMPERATURE_THRESHOLDS,
        external: ExternalFields::Linear { slope: T_SLOPE, offset: T_OFFSET },
    },
    MonitorMap {
        monitor: Monitor::Voltage,
        value: VCC,
        thresholds: VOLTAGE_THRESHOLDS,
        external: ExternalFields::Linear { slope: V_SLOPE, offset: V_OFFSET },
    },
    MonitorMap {
        monitor: Monitor::TxBias,
        value: TX_BIAS,
        thresholds: TX_BIAS_THRESHOLDS,
        external: ExternalFields::Linear { slope: TX_I_SLOPE, offset: TX_I_OFFSET },
    },
    MonitorMap {
        monitor: Monitor::TxPower,
        value: TX_POWER,
        thresholds: TX_POWER_THRESHOLDS,
        external: ExternalFields::Linear { slope: TX_PWR_SLOPE, offset: TX_PWR_OFFSET },
    },
    MonitorMap {
        monitor: Monitor::RxPower,
        value: RX_POWER,
        thresholds: RX_POWER_THRESHOLDS,
        external: ExternalFields::Polynomial([RX_PWR_0, RX_PWR_1, RX_PWR_2, RX_PWR_3, RX_PWR_4]),
    },
];

/// How raw A/D words become calibrated words.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Calibration {
    /// Byte 92 bit 5: words are already in the 9.2 encoding.
    Internal,
    /// SFF-8472 9.3: slope * ADC + offset, in the monitor's LSB.
    Linear { slope: f64, offset: f64 },
    /// SFF-8472 9.3 Rx power: sum of c[i] * ADC^i for i = 0..=4, in 0.1 uW. All five terms
    /// count (ethtool's sfpdiag.c drops the ADC^4 term and does not raise ADC to powers).
    Polynomial([f64; 5]),
}

impl Calibration {
    pub(super) fn external(reader: &mut Reader, fields: &ExternalFields) -> Option<Calibration> {
        match fields {
            ExternalFields::Linear { slope, offset } => {
                let s = reader.word(*slope)?;
                let o = reader.word(*offset)?;
                // Unsigned 8.8 fixed point: integer part in the first byte (9.3).
                let slope = s[0] as f64 + s[1] as f64 / 256.0;
                Some(Calibration::Linear { slope, offset: i16::from_be_bytes(o) as f64 })
            }
            ExternalFields::Polynomial(coefficient_fields) => {
                let mut c = [0.0; 5];
                for (slot, field) in c.iter_mut().zip(coefficient_fields) {
                    let b = reader.read(*field)?;
                    *slot = f32::from_be_bytes([*b.first()?, *b.get(1)?, *b.get(2)?, *b.get(3)?]) as f64;
                }
                Some(Calibration::Polynomial(c))
            }
        }
    }

    /// Raw A/D word -> calibrated word in the internal-calibration encoding, rounded and
    /// clamped to 16 bits as a module calibrating internally would report it. `None` when
    /// the constants give a non-finite result (garbage floats).
    pub(super) fn apply(&self, monitor: Monitor, raw: [u8; 2]) -> Option<[u8; 2]> {
        let adc = if signed(monitor) { i16::from_be_bytes(raw) as f64 } else { u16::from_be_bytes(raw) as f64 };
        let value = match self {
            Calibration::Internal => return Some(raw),
            Calibration::Linear { slope, offset } => slope * adc + offset,
            Calibration::Polynomial(c) => c.iter().enumerate().map(|(i, ci)| ci * adc.powi(i as i32)).sum(),
        };
        if !value.is_finite() {
            return None;
        }
        let rounded = value.round();
        Some(if signed(monitor) {
            (rounded.clamp(i16::MIN as f64, i16::MAX as f64) as i16).to_be_bytes()
        } else {
            (rounded.clamp(0.0, u16::MAX as f64) as u16).to_be_bytes()
        })
    }
}
