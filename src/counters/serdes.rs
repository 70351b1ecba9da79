//! The host NIC's own receiver, per lane, as its SerDes grades it: `mlxlink --show_eye`
//! (mstflint `MlxlinkCommander::showEye`, access register SLRG). Host-side evidence beside
//! the lanes: an eye that is closed at the NIC with the module's light normal points at the
//! electrical path (host channel, connector, retimer), not the optics. Imported records only
//! (`serdes_eye`, docs/capture-format.md); no live source reads SLRG.

use serde::{Deserialize, Serialize};

/// One `EYE Opening Info` section of a network port (a PCIe link's is not a port's lanes).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SerdesEye {
    /// The tool that printed it (`mlxlink`).
    pub(crate) tool: String,
    /// 7 nm devices: the figure-of-merit mode as printed (`FOM Mode`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fom_mode: Option<String>,
    /// Index 0 = lane 1 (mlxlink numbers lanes from 0).
    #[serde(deserialize_with = "eye_lanes")]
    pub(crate) lanes: Vec<SerdesEyeLane>,
}

/// A lane's figures as printed; `null` where mlxlink printed `N/A` or the device has none.
/// 16/28/40 nm devices print a grade with the eye's height and width; 7 nm devices print
/// figures of merit, per PAM4 eye (upper / middle / lower) where the lane is PAM4.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct SerdesEyeLane {
    /// `Physical Grade` (SLRG `grade`): higher is a cleaner eye.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) grade: Option<f64>,
    /// `Height Eye Opening [mV]` (SLRG height_eo_pos + height_eo_neg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) eye_height_mv: Option<f64>,
    /// `Phase Eye Opening [psec]`: the eye's width in time (SLRG phase_eo_pos + phase_eo_neg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) eye_width_ps: Option<f64>,
    /// 7 nm: `Initial FOM`, `Last FOM` (composite eye), `Upper` / `Mid` / `Lower Grades`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) initial_fom: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) last_fom: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) upper_grade: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) mid_grade: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) lower_grade: Option<f64>,
}

impl SerdesEyeLane {
    /// True when nothing was printed for the lane.
    pub(crate) fn is_empty(&self) -> bool {
        *self == SerdesEyeLane::default()
    }
}

fn eye_lanes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<SerdesEyeLane>, D::Error> {
    super::bounded_seq(d, super::MAX_LANES, "one per lane")
}
