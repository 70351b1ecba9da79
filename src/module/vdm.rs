//! The decoded CMIS Versatile Diagnostics Monitoring (VDM, pages 20h-2Fh): `vdm` in the
//! module JSON (a contract: keys may be added, never renamed). Decoded by
//! [`cmis`](super::cmis) (src/module/cmis/vdm.rs); read only, the module is never written.

use super::clone::clone_field_wise;
use super::threshold::ThresholdSet;
use serde::Serialize;

/// Which input an observable measures: the module's media (optical) input or its host
/// (electrical) input.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Side {
    Media,
    Host,
}

/// One VDM observable instance: a descriptor (pages 20h-23h) with its sample (24h-27h),
/// threshold set (28h-2Bh) and flags (2Ch).
#[derive(Debug, PartialEq, Serialize)]
pub(crate) struct VdmObservable {
    /// 1-based VDM group (descriptor page 20h + group - 1).
    pub(crate) group: u8,
    /// Instance 0-63 within the group (descriptor bytes 128 + 2 x instance).
    pub(crate) instance: u8,
    pub(crate) type_id: u8,
    /// Stable name of the type (`esnr_media_db`, `pre_fec_ber_current_media`, ...); `None`
    /// for a type this decoder does not know (its raw word is still reported).
    pub(crate) key: Option<&'static str>,
    pub(crate) side: Option<Side>,
    /// 1-based lane (descriptor bits 3-0 hold lane - 1).
    pub(crate) lane: u8,
    /// Threshold set 0-15 (descriptor bits 7-4).
    pub(crate) threshold_set: u8,
    /// Sample word as read; `None` when the sample page was not read.
    pub(crate) raw: Option<u16>,
    /// Sample in its unit (dB, BER, ...), from the type's U16/S16 scale or F16.
    pub(crate) value: Option<f64>,
    pub(crate) thresholds: Option<ThresholdSet>,
    /// Latched flags set: `high_alarm`, `low_alarm`, `high_warning`, `low_warning`.
    pub(crate) flags: Vec<&'static str>,
}

clone_field_wise!(VdmObservable { group, instance, type_id, key, side, lane, threshold_set, raw, value, thresholds, flags });

/// What VDM says about one input of a lane (all `None` when not advertised).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct VdmSideValues {
    pub(crate) esnr_db: Option<f64>,
    /// PAM4 level transition parameter.
    pub(crate) ltp_db: Option<f64>,
    pub(crate) pre_fec_ber_current: Option<f64>,
    pub(crate) pre_fec_ber_min: Option<f64>,
    pub(crate) pre_fec_ber_max: Option<f64>,
    pub(crate) pre_fec_ber_average: Option<f64>,
    pub(crate) errored_frames_current: Option<f64>,
    pub(crate) errored_frames_min: Option<f64>,
    pub(crate) errored_frames_max: Option<f64>,
    pub(crate) errored_frames_average: Option<f64>,
}

impl VdmSideValues {
    pub(crate) fn is_empty(&self) -> bool {
        *self == VdmSideValues::default()
    }
}

/// The per-lane view of the observables.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct VdmLane {
    pub(crate) lane: u8,
    pub(crate) media: VdmSideValues,
    pub(crate) host: VdmSideValues,
}

/// A module's decoded CMIS VDM observables (pages 20h-2Fh).
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct VdmReport {
    /// Groups the module advertises (page 2Fh byte 128 bits 1-0, plus one); `None` when
    /// page 2Fh was not read.
    pub groups_supported: Option<u8>,
    pub(crate) observables: Vec<VdmObservable>,
    /// Lanes with at least one lane observable, in lane order.
    pub(crate) lanes: Vec<VdmLane>,
}

clone_field_wise!(VdmReport { groups_supported, observables, lanes });

impl VdmReport {
    pub(crate) fn lane(&self, lane: u8) -> Option<&VdmLane> {
        self.lanes.iter().find(|l| l.lane == lane)
    }
}
