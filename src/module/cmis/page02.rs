//! Upper page 02h (CMIS 5.2 8.5): module and lane monitor thresholds, each a block of
//! four words: high alarm, low alarm, high warning, low warning.

use super::super::map::Field;
use super::super::report::{checksum8, ModuleReport};
use super::super::threshold::ThresholdSet;
use super::super::{units, ModuleImage, I2C_A0};
use super::page01::Advertisement;

const fn p02(name: &'static str, offset: u8) -> Field {
    Field::new(name, I2C_A0, 0x02, offset, 8)
}

pub(super) const TEMPERATURE: Field = p02("temperature_thresholds", 128);
pub(super) const VCC: Field = p02("vcc_thresholds", 136);
pub(super) const TX_POWER: Field = p02("tx_power_thresholds", 176);
pub(super) const TX_BIAS: Field = p02("tx_bias_thresholds", 184);
pub(super) const RX_POWER: Field = p02("rx_power_thresholds", 192);
/// Low 8 bits of the sum of bytes 128-254 (CMIS 5.2 8.5, PageChecksum).
pub(super) const CHECKSUM: Field = Field::new("checksum", I2C_A0, 0x02, 255, 1);
const CHECKSUM_FROM: u8 = 128;
const CHECKSUM_LEN: usize = 127;

/// Every field this page decodes, for the overlap test.
#[cfg(test)]
pub(super) const FIELDS: &[Field] = &[TEMPERATURE, VCC, TX_POWER, TX_BIAS, RX_POWER, CHECKSUM];

/// The four words of `field` converted by `convert`.
fn set(img: &ModuleImage, field: Field, convert: impl Fn([u8; 2]) -> f64) -> Option<ThresholdSet> {
    let b = field.read(img, 0)?;
    let w = |i: usize| convert(units::word(&b[i..]));
    Some(ThresholdSet { high_alarm: w(0), low_alarm: w(2), high_warning: w(4), low_warning: w(6) })
}

/// Decodes thresholds of the monitors `adv` says exist (none without page 01h).
pub(super) fn decode(img: &ModuleImage, adv: Option<&Advertisement>, r: &mut ModuleReport) {
    if !img.has_upper_page(I2C_A0, 0x02, 0) {
        r.warnings.push("page 02h absent: thresholds not decoded".into());
        return;
    }
    if let (Some(bytes), Some(stored)) = (img.bytes(I2C_A0, 0x02, 0, CHECKSUM_FROM, CHECKSUM_LEN), CHECKSUM.byte(img, 0)) {
        r.check_sum("page 02h", stored, checksum8(bytes));
    }
    let Some(adv) = adv else { return };
    let t = &mut r.thresholds;
    t.temperature_c = adv.temperature_mon.then(|| set(img, TEMPERATURE, units::temperature_c)).flatten();
    t.supply_voltage_v = adv.vcc_mon.then(|| set(img, VCC, units::voltage_v)).flatten();
    t.tx_power_mw = adv.tx_power_mon.then(|| set(img, TX_POWER, units::power_mw)).flatten();
    t.rx_power_mw = adv.rx_power_mon.then(|| set(img, RX_POWER, units::power_mw)).flatten();
    if let (true, Some(mult)) = (adv.tx_bias_mon, adv.tx_bias_multiplier) {
        t.tx_bias_ma = set(img, TX_BIAS, |w| units::bias_ma(w) * f64::from(mult));
    }
}
