//! Upper page 11h (CMIS 5.2, Tables 8-79 to 8-89), one per bank: data path state, lane
//! flags, lane monitors and the Active Control Set. Bank `b` covers lanes 8b+1..8b+8; bit / nibble /
//! word `i` of each field is lane i+1 of the bank.

use super::super::flag::{ModuleFlag, Monitor, Severity, Side};
use super::super::map::Field;
use super::super::report::LaneReport;
use super::super::state::DataPathState;
use super::super::{units, HalfView, ModuleImage, I2C_A0};
use super::page01::{self, Advertisement};

const fn p11(name: &'static str, offset: u8, len: u8) -> Field {
    Field::new(name, I2C_A0, 0x11, offset, len)
}

pub(super) const LANES_PER_BANK: u8 = 8;

/// DPStateHostLane, a nibble per lane, lane 1 in bits 3-0 of byte 128 (CMIS 5.2 page 11h
/// bytes 128-131).
pub(super) const DP_STATE: Field = p11("data_path_state", 128, 4);
/// Lane-specific Tx flags (CMIS 5.2 Table 8-80).
pub(super) const TX_FAULT: Field = p11("tx_fault", 135, 1);
pub(super) const TX_LOS: Field = p11("tx_los", 136, 1);
pub(super) const TX_LOL: Field = p11("tx_cdr_lol", 137, 1);
pub(super) const TX_EQ_FAULT: Field = p11("tx_adaptive_eq_fault", 138, 1);
pub(super) const TX_POWER_HA: Field = p11("tx_power_high_alarm", 139, 1);
pub(super) const TX_POWER_LA: Field = p11("tx_power_low_alarm", 140, 1);
pub(super) const TX_POWER_HW: Field = p11("tx_power_high_warning", 141, 1);
pub(super) const TX_POWER_LW: Field = p11("tx_power_low_warning", 142, 1);
pub(super) const TX_BIAS_HA: Field = p11("tx_bias_high_alarm", 143, 1);
pub(super) const TX_BIAS_LA: Field = p11("tx_bias_low_alarm", 144, 1);
pub(super) const TX_BIAS_HW: Field = p11("tx_bias_high_warning", 145, 1);
pub(super) const TX_BIAS_LW: Field = p11("tx_bias_low_warning", 146, 1);
/// Lane-specific Rx flags (CMIS 5.2 Table 8-81).
pub(super) const RX_LOS: Field = p11("rx_los", 147, 1);
pub(super) const RX_LOL: Field = p11("rx_cdr_lol", 148, 1);
pub(super) const RX_POWER_HA: Field = p11("rx_power_high_alarm", 149, 1);
pub(super) const RX_POWER_LA: Field = p11("rx_power_low_alarm", 150, 1);
pub(super) const RX_POWER_HW: Field = p11("rx_power_high_warning", 151, 1);
pub(super) const RX_POWER_LW: Field = p11("rx_power_low_warning", 152, 1);
/// Media lane monitors, 8 big-endian words each (CMIS 5.2 Table 8-82).
pub(super) const TX_POWER: Field = p11("tx_power", 154, 16);
pub(super) const TX_BIAS: Field = p11("tx_bias", 170, 16);
pub(super) const RX_POWER: Field = p11("rx_power", 186, 16);
/// Active Control Set DPConfigLane: AppSel in bits 7-4, DataPathID in bits 3-1
/// (CMIS 5.2 Table 8-86).
pub(super) const DP_CONFIG: Field = p11("active_dp_config", 206, 8);

/// The fields [`lanes`] decodes that a sample re-reads (everything but the Active Control
/// Set, which selects the application and so is decoded with the static pages).
pub(super) const MONITOR_FIELDS: &[Field] = &[
    DP_STATE,
    TX_FAULT,
    TX_LOS,
    TX_LOL,
    TX_EQ_FAULT,
    TX_POWER_HA,
    TX_POWER_LA,
    TX_POWER_HW,
    TX_POWER_LW,
    TX_BIAS_HA,
    TX_BIAS_LA,
    TX_BIAS_HW,
    TX_BIAS_LW,
    RX_LOS,
    RX_LOL,
    RX_POWER_HA,
    RX_POWER_LA,
    RX_POWER_HW,
    RX_POWER_LW,
    TX_POWER,
    TX_BIAS,
    RX_POWER,
];

/// Last byte monitor reads need: flags, monitors and the Active Control Set (128-213).
pub(super) const MONITOR_SPAN_END: u8 = 213;

/// A lane flag: the page 11h byte, the flag it reports, and the page 01h byte and bit that
/// advertise it (CMIS 5.2 Tables 8-80/8-81 "Advertisement" column).
struct LaneFlag {
    field: Field,
    flag: ModuleFlag,
    advertised_by: (Field, u8),
}

const fn flag(field: Field, flag: ModuleFlag, adv: Field, bit: u8) -> LaneFlag {
    LaneFlag { field, flag, advertised_by: (adv, bit) }
}

const LANE_FLAGS: &[LaneFlag] = &[
    flag(TX_FAULT, ModuleFlag::TxFault, page01::TX_FLAGS_ADV, 0),
    flag(TX_LOS, ModuleFlag::Los(Side::Tx), page01::TX_FLAGS_ADV, 1),
    flag(TX_LOL, ModuleFlag::Lol(Side::Tx), page01::TX_FLAGS_ADV, 2),
    flag(TX_EQ_FAULT, ModuleFlag::TxAdaptiveEqFault, page01::TX_FLAGS_ADV, 3),
    flag(TX_POWER_HA, ModuleFlag::Limit(Monitor::TxPower, Severity::HighAlarm), page01::LANE_MON_ADV, 1),
    flag(TX_POWER_LA, ModuleFlag::Limit(Monitor::TxPower, Severity::LowAlarm), page01::LANE_MON_ADV, 1),
    flag(TX_POWER_HW, ModuleFlag::Limit(Monitor::TxPower, Severity::HighWarning), page01::LANE_MON_ADV, 1),
    flag(TX_POWER_LW, ModuleFlag::Limit(Monitor::TxPower, Severity::LowWarning), page01::LANE_MON_ADV, 1),
    flag(TX_BIAS_HA, ModuleFlag::Limit(Monitor::TxBias, Severity::HighAlarm), page01::LANE_MON_ADV, 0),
    flag(TX_BIAS_LA, ModuleFlag::Limit(Monitor::TxBias, Severity::LowAlarm), page01::LANE_MON_ADV, 0),
    flag(TX_BIAS_HW, ModuleFlag::Limit(Monitor::TxBias, Severity::HighWarning), page01::LANE_MON_ADV, 0),
    flag(TX_BIAS_LW, ModuleFlag::Limit(Monitor::TxBias, Severity::LowWarning), page01::LANE_MON_ADV, 0),
    flag(RX_LOS, ModuleFlag::Los(Side::Rx), page01::RX_FLAGS_ADV, 1),
    flag(RX_LOL, ModuleFlag::Lol(Side::Rx), page01::RX_FLAGS_ADV, 2),
    flag(RX_POWER_HA, ModuleFlag::Limit(Monitor::RxPower, Severity::HighAlarm), page01::LANE_MON_ADV, 2),
    flag(RX_POWER_LA, ModuleFlag::Limit(Monitor::RxPower, Severity::LowAlarm), page01::LANE_MON_ADV, 2),
    flag(RX_POWER_HW, ModuleFlag::Limit(Monitor::RxPower, Severity::HighWarning), page01::LANE_MON_ADV, 2),
    flag(RX_POWER_LW, ModuleFlag::Limit(Monitor::RxPower, Severity::LowWarning), page01::LANE_MON_ADV, 2),
];

/// Word `lane` (0-7) of a 16-byte monitor field already read.
fn word_of(field: Option<&[u8]>, lane: usize) -> Option<[u8; 2]> {
    field?.get(2 * lane..2 * lane + 2).map(units::word)
}

/// Rx power of lane `i` (0-7) in mW where page 01h advertises it (`monitored`), from bytes
/// 186-201 as read.
fn rx_mw(rx_power: Option<&[u8]>, monitored: bool, i: usize) -> Option<f64> {
    monitored.then(|| word_of(rx_power, i)).flatten().map(units::power_mw)
}

/// Rx power of the 8 lanes of `bank` in mW, `None` when page 11h of that bank was not read
/// (or reads as page 00h, as `decode` takes it).
pub(super) fn lane_rx_power_mw<'a>(
    img: &'a ModuleImage,
    bank: u8,
    adv: Option<&'a Advertisement>,
) -> Option<impl Iterator<Item = Option<f64>> + 'a> {
    let half = img.half_view(I2C_A0, 0x11, bank, 128).filter(HalfView::any).filter(|_| !img.echoes_page00(I2C_A0, 0x11, bank))?;
    let rx_power = RX_POWER.read_in(half);
    let monitored = adv.is_some_and(|a| a.rx_power_mon);
    Some((0..usize::from(LANES_PER_BANK)).map(move |i| rx_mw(rx_power, monitored, i)))
}

/// What [`lanes`] decodes besides the monitor bytes, resolved from page 01h (the same for
/// every bank): the lane flags advertised (Tables 8-80/8-81, a page 01h not read
/// advertises everything) and the monitors advertised, with the Tx bias multiplier.
#[derive(Clone, Debug)]
pub(super) struct LanePlan {
    /// Bit k: `LANE_FLAGS[k]` is advertised.
    flags: u32,
    tx_power: bool,
    rx_power: bool,
    /// Where Tx bias monitoring is advertised with a multiplier.
    tx_bias_multiplier: Option<u8>,
}

impl LanePlan {
    pub(super) fn new(img: &ModuleImage, adv: Option<&Advertisement>) -> Self {
        let advertised = |f: &LaneFlag| f.advertised_by.0.byte(img, 0).is_none_or(|b| b & (1 << f.advertised_by.1) != 0);
        LanePlan {
            flags: LANE_FLAGS.iter().enumerate().filter(|(_, f)| advertised(f)).fold(0, |m, (k, _)| m | 1 << k),
            tx_power: adv.is_some_and(|a| a.tx_power_mon),
            rx_power: adv.is_some_and(|a| a.rx_power_mon),
            tx_bias_multiplier: adv.filter(|a| a.tx_bias_mon).and_then(|a| a.tx_bias_multiplier),
        }
    }

    /// The monitor bytes of one bank, whose page 11h is `half`, read once for its lanes.
    pub(super) fn bank<'a>(&self, half: Option<HalfView<'a>>) -> BankMonitors<'a> {
        let read = |f: Field| half.and_then(|h| f.read_in(h));
        let mut flags = [0; LANE_FLAGS.len()];
        for (k, f) in LANE_FLAGS.iter().enumerate().filter(|(k, _)| self.flags & (1 << k) != 0) {
            flags[k] = half.and_then(|h| h.byte(f.field.offset)).unwrap_or(0);
        }
        BankMonitors {
            dp_state: read(DP_STATE),
            any_flag: flags.iter().fold(0, |m, b| m | b),
            flags,
            tx_power: read(TX_POWER).filter(|_| self.tx_power),
            rx_power: read(RX_POWER),
            rx_power_mon: self.rx_power,
            tx_bias: read(TX_BIAS),
            tx_bias_multiplier: self.tx_bias_multiplier,
        }
    }
}

/// One bank's page 11h monitor bytes as [`LanePlan::bank`] read them: `None` where not
/// read, flag bytes 0 where not read or not advertised.
pub(super) struct BankMonitors<'a> {
    dp_state: Option<&'a [u8]>,
    flags: [u8; LANE_FLAGS.len()],
    /// Bit i: some flag of lane i is set.
    any_flag: u8,
    /// Only where page 01h advertises Tx power monitoring.
    tx_power: Option<&'a [u8]>,
    rx_power: Option<&'a [u8]>,
    rx_power_mon: bool,
    tx_bias: Option<&'a [u8]>,
    tx_bias_multiplier: Option<u8>,
}

impl BankMonitors<'_> {
    /// Writes into `lane`, lane `i` (0-7) of the bank, every field the page's monitor
    /// bytes feed (data path state, flags, Tx/Rx power, Tx bias): a byte not read, or a
    /// monitor not advertised, leaves its field `None`.
    pub(super) fn refresh(&self, i: usize, lane: &mut LaneReport) {
        lane.data_path_state = self.dp_state.map(|b| DataPathState::from_code((b[i / 2] >> (4 * (i % 2))) & 0x0f));
        lane.flags.clear();
        if self.any_flag & (1 << i) != 0 {
            let set = LANE_FLAGS.iter().zip(self.flags).filter(|(_, b)| b & (1 << i) != 0);
            lane.flags.extend(set.map(|(f, _)| f.flag));
        }
        match word_of(self.tx_power, i) {
            Some(w) => lane.set_tx_power_mw(units::power_mw(w)),
            None => (lane.tx_power_mw, lane.tx_power_dbm) = (None, None),
        }
        match rx_mw(self.rx_power, self.rx_power_mon, i) {
            Some(mw) => lane.set_rx_power_mw(mw),
            None => (lane.rx_power_mw, lane.rx_power_dbm) = (None, None),
        }
        lane.tx_bias_ma = self.tx_bias_multiplier.and_then(|m| word_of(self.tx_bias, i).map(|w| units::bias_ma(w) * f64::from(m)));
    }
}

/// The 8 lanes of `bank`, or `None` when page 11h of that bank was not read.
/// Monitors are decoded only when page 01h advertises them (`adv`); flags are reported
/// unless page 01h says they are not implemented.
pub(super) fn lanes(img: &ModuleImage, bank: u8, adv: Option<&Advertisement>) -> Option<Vec<LaneReport>> {
    if !img.has_upper_page(I2C_A0, 0x11, bank) {
        return None;
    }
    let half = img.half_view(I2C_A0, 0x11, bank, 128);
    let monitors = LanePlan::new(img, adv).bank(half);
    let first = u16::from(bank) * u16::from(LANES_PER_BANK);
    let dp_config = half.and_then(|h| DP_CONFIG.read_in(h));
    let mut out = Vec::with_capacity(LANES_PER_BANK.into());
    for i in 0..usize::from(LANES_PER_BANK) {
        // Banks are at most 4 (page 01h byte 142), so lane numbers stay below 33.
        let mut lane = LaneReport::new(u8::try_from(first + i as u16 + 1).unwrap_or(u8::MAX));
        // DPConfigLane: AppSel 0 = the lane is in no data path; DataPathID = index of the
        // data path's first lane within the bank (bits 3-1).
        if let Some(c) = dp_config.and_then(|b| b.get(i).copied()).filter(|c| c >> 4 != 0) {
            lane.app_sel = Some(c >> 4);
            lane.data_path_first_lane = u8::try_from(first + u16::from((c >> 1) & 0x07) + 1).ok();
        }
        monitors.refresh(i, &mut lane);
        out.push(lane);
    }
    Some(out)
}

/// AppSel code (1-15) of host lane 1 in bank 0's Active Control Set; `None` when the
/// page was not read or the lane belongs to no data path (AppSel 0).
pub(super) fn active_app_sel(img: &ModuleImage) -> Option<u8> {
    DP_CONFIG.byte(img, 0).map(|b| b >> 4).filter(|&s| s != 0)
}
