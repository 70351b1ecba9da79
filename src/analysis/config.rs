//! Analysis thresholds: one [`Config`] with every field defaulted, loadable from JSON
//! (`{"margin_floor_db": 1.5}` overrides one value and keeps the rest). Speed-tier
//! profiles override fields for links whose per-lane rate is at least `min_lane_gbps`.

use serde::Deserialize;
use std::path::Path;
use thiserror::Error;

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("reading {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("parsing {path}: {source}")]
    Parse { path: String, source: serde_json::Error },
}

#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// Confidence of each one-sided Poisson bound (lower and upper alike), so
    /// `[lower, upper]` is a `2·confidence − 1` two-sided interval (90% at 0.95).
    /// At 0.95 zero errors bound the BER by −ln(0.05) = 3.0 / bits: the "rule of three".
    pub confidence: f64,
    /// A lane is an outlier when its BER lower bound is at least this many times the
    /// median of its siblings' BER upper bounds.
    pub outlier_ratio: f64,
    /// ...and its BER is at least this fraction of the FEC limit (so a lane at 1e-11
    /// beside siblings at 1e-13 is not called marginal: it has decades to spare).
    pub outlier_min_limit_fraction: f64,
    /// BER margin (dB, optical-equivalent) below which a lane is `low_margin`.
    /// 1.0 dB on RS(544,514) PAM4 is a BER of about 2e-5, a tenth of the limit.
    pub margin_floor_db: f64,
    /// Optical margin (rx dBm over the module's low-warning threshold) below which a lane
    /// is `low_margin` when the module itself raised no rx-power flag.
    pub optical_margin_floor_db: f64,
    /// Rx power this far (dB) below the siblings' median counts as "low light" in advice.
    pub rx_low_delta_db: f64,
    /// Far-end tx power this far (dB) below its siblings' median counts as a weak transmitter.
    pub tx_low_delta_db: f64,
    /// |slope| range (decades of BER per dB of rx power) called the PAM4 signature.
    pub signature_slope_min: f64,
    pub signature_slope_max: f64,
    /// Usable fraction of PCIe payload bandwidth after TLP/DLLP overhead (see `pcie`).
    pub pcie_efficiency: f64,
    /// Uncorrectable FEC blocks tolerated in a window before `uncorrectable_errors`.
    pub max_uncorrectable_blocks: u64,
    /// Link-down events tolerated in a window before `link_flaps`.
    pub max_link_down_events: u64,
    /// `fec_tail_near_limit` when the codeword histogram's highest non-empty bin reaches
    /// within this many symbols of the correction limit t (RS(544,514): 15).
    pub fec_tail_near_limit_symbols: u32,
    /// ...or when the tail fit predicts a frame loss ratio above this. Default: the FLR
    /// IEEE 802.3 equates with a BER of 1e-13 at the MAC (6.2e-11, 64-octet frames).
    pub fec_max_predicted_flr: f64,
    /// Frame size (bytes, without preamble and gap) the predicted FLR assumes.
    pub fec_flr_frame_bytes: u32,
    /// |slope| range (decades/dB) called the NRZ signature: the Q model gives 1.60 at the
    /// RS(528,514) limit 5e-5 and 5.04 at 1e-12 (`q::model_slope_decades_per_db`); the
    /// range runs from 0.8x the first to where light alone no longer explains the errors.
    pub nrz_signature_slope_min: f64,
    pub nrz_signature_slope_max: f64,
    /// Per-speed-tier overrides, applied in order when the lane rate is at least `min_lane_gbps`.
    pub profiles: Vec<Profile>,
    /// Named node-validation profiles for `--profile NAME` (see `profile`), beside the built-ins.
    pub node_profiles: std::collections::BTreeMap<String, super::profile::NodeProfile>,
}

/// A speed tier: any field given replaces the base value.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Profile {
    pub min_lane_gbps: f64,
    pub margin_floor_db: Option<f64>,
    pub outlier_ratio: Option<f64>,
    pub optical_margin_floor_db: Option<f64>,
    pub rx_low_delta_db: Option<f64>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            confidence: 0.95,
            outlier_ratio: 10.0,
            outlier_min_limit_fraction: 1e-3,
            margin_floor_db: 1.0,
            optical_margin_floor_db: 0.0,
            rx_low_delta_db: 0.3,
            tx_low_delta_db: 1.0,
            // Gaussian thermal model near the RS(544,514) limit gives 1.5-2.5 decades/dB;
            // the 200GBASE-SR4 field case gives ~4.4 (150x for 0.5 dB). Above 6 the light
            // alone does not explain the errors.
            signature_slope_min: 1.0,
            signature_slope_max: 6.0,
            pcie_efficiency: 0.92,
            max_uncorrectable_blocks: 0,
            max_link_down_events: 0,
            fec_tail_near_limit_symbols: 3,
            fec_max_predicted_flr: 6.2e-11,
            fec_flr_frame_bytes: 1518,
            nrz_signature_slope_min: 1.3,
            nrz_signature_slope_max: 8.0,
            profiles: Vec::new(),
            node_profiles: Default::default(),
        }
    }
}

impl Config {
    pub fn from_json(text: &str, path: &str) -> Result<Config, ConfigError> {
        serde_json::from_str(text).map_err(|source| ConfigError::Parse { path: path.to_string(), source })
    }

    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io { path: shown.clone(), source })?;
        Config::from_json(&text, &shown)
    }

    /// The configuration with every profile whose tier the lane rate reaches applied.
    pub fn for_lane_rate(&self, lane_gbps: Option<f64>) -> Config {
        let mut c = self.clone();
        let Some(rate) = lane_gbps else { return c };
        for p in self.profiles.iter().filter(|p| rate >= p.min_lane_gbps) {
            c.margin_floor_db = p.margin_floor_db.unwrap_or(c.margin_floor_db);
            c.outlier_ratio = p.outlier_ratio.unwrap_or(c.outlier_ratio);
            c.optical_margin_floor_db = p.optical_margin_floor_db.unwrap_or(c.optical_margin_floor_db);
            c.rx_low_delta_db = p.rx_low_delta_db.unwrap_or(c.rx_low_delta_db);
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_json_keeps_defaults() {
        let c = Config::from_json(r#"{"margin_floor_db": 1.5}"#, "t").unwrap();
        assert_eq!(c.margin_floor_db, 1.5);
        assert_eq!(c.outlier_ratio, 10.0);
        assert_eq!(c.confidence, 0.95);
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert!(matches!(Config::from_json(r#"{"margin_floor": 1}"#, "t"), Err(ConfigError::Parse { .. })));
    }

    #[test]
    fn profiles_apply_by_lane_rate() {
        let c = Config::from_json(
            r#"{"profiles":[{"min_lane_gbps":50,"margin_floor_db":0.8},{"min_lane_gbps":100,"margin_floor_db":0.5}]}"#,
            "t",
        )
        .unwrap();
        assert_eq!(c.for_lane_rate(Some(25.78125)).margin_floor_db, 1.0);
        assert_eq!(c.for_lane_rate(Some(53.125)).margin_floor_db, 0.8);
        assert_eq!(c.for_lane_rate(Some(106.25)).margin_floor_db, 0.5);
        assert_eq!(c.for_lane_rate(None).margin_floor_db, 1.0);
    }

    #[test]
    fn load_reads_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.json");
        std::fs::write(&p, r#"{"pcie_efficiency":0.85}"#).unwrap();
        assert_eq!(Config::load(&p).unwrap().pcie_efficiency, 0.85);
        assert!(matches!(Config::load(&dir.path().join("missing.json")), Err(ConfigError::Io { .. })));
    }
}
