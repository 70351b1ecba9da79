//! Analysis thresholds: one [`Config`] with every field defaulted, loadable from JSON
//! (`{"margin_floor_db": 1.5}` overrides one value and keeps the rest). Speed-tier
//! profiles override fields for links whose per-lane rate is at least `min_lane_gbps`.

use super::codeword;
use serde::Deserialize;
use std::borrow::Cow;
use std::path::Path;
use thiserror::Error;

/// Why a thresholds file (`--config`) was refused.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file as the user named it.
        path: String,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("parsing {path}: {source}")]
    Parse {
        /// The file as the user named it.
        path: String,
        /// The JSON parser's error.
        source: serde_json::Error,
    },
    /// The JSON is not an object of keys.
    #[error("{path}: the thresholds file must be a JSON object of keys (see docs/config.md), not {found}")]
    NotAnObject {
        /// The file as the user named it.
        path: String,
        /// The JSON type found instead ("an array", ...).
        found: &'static str,
    },
    /// A key is unknown or its value has the wrong type.
    #[error("{path}: key `{key}`: {source}")]
    Key {
        /// The file as the user named it.
        path: String,
        /// The top-level key whose value did not parse.
        key: String,
        /// The JSON parser's error.
        source: serde_json::Error,
    },
    /// A value outside the range its key allows.
    #[error("{path}: key `{key}` is {value}, allowed {allowed}")]
    OutOfRange {
        /// The file as the user named it.
        path: String,
        /// The key, as a path inside a profile (`profiles[0].margin_floor_db`).
        key: String,
        /// The value given.
        value: f64,
        /// The range allowed, as the message gives it.
        allowed: String,
    },
}

/// The thresholds the analysis judges by (`--config FILE`, docs/config.md); every key has a default.
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
    /// Tx power this far (dB) below its siblings' median counts as a weak transmitter: the
    /// far end's (with `--peer`) in advice, this module's own for `weak_transmitter`.
    pub tx_low_delta_db: f64,
    /// A lane whose tx bias is at least this many times its siblings' median while its tx
    /// power is below theirs is an ageing laser (`weak_transmitter`).
    pub tx_bias_high_ratio: f64,
    /// A window shorter than this (seconds between its first and last sample) is
    /// `insufficient_data`: drivers refresh FEC counters about once a second.
    pub min_window_s: f64,
    /// |slope| range (decades of BER per dB of rx power) called the PAM4 signature.
    pub signature_slope_min: f64,
    /// Upper end of the PAM4 signature range, decades of BER per dB of rx power.
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
    /// ...or when the tail fit predicts a frame loss ratio above this. Default: the whole
    /// PHY's budget, 6.2e-11 for 64-octet frames (IEEE 802.3 138.1.1 as amended by
    /// 802.3cm): host FEC counters see the module and the electrical interfaces together.
    pub fec_max_predicted_flr: f64,
    /// Frame size (bytes, without preamble and gap) the FLR assumes: 64, the size the
    /// 802.3 budgets are stated for (a longer frame touches more codewords, so its FLR per
    /// codeword error is higher: X + 1 / MFC).
    pub fec_flr_frame_bytes: u32,
    /// |slope| range (decades/dB) called the NRZ signature: the Q model gives 1.60 at the
    /// RS(528,514) limit 5e-5 and 5.04 at 1e-12 (`q::model_slope_decades_per_db`); the
    /// range runs from 0.8x the first to where light alone no longer explains the errors.
    pub nrz_signature_slope_min: f64,
    /// Upper end of the NRZ signature range, decades of BER per dB of rx power.
    pub nrz_signature_slope_max: f64,
    /// Shortest span (seconds) of bucket margins a lane's margin trend needs (`margin_falling`;
    /// the fit runs over every bucket of the run's last segment: see `trend_lanes`).
    pub trend_window_s: f64,
    /// `serve` / `watch`: the window (seconds) verdicts, flags, margins and BERs are judged
    /// over: the last this-many seconds of the current segment (`--judge-window`).
    pub judge_window_s: f64,
    /// `serve`: the margin trend is fitted over the series buckets of the last this-many
    /// seconds (`--trend-window`); `trend_window_s` stays the shortest span it needs.
    pub trend_fit_window_s: f64,
    /// Seconds before a link drop in which a lane's BER rise is compared with the time before.
    pub drop_lookback_s: f64,
    /// A lane whose BER after a link drop is at least this many times its BER before it
    /// (significantly, and holding) is `degraded_after_flap`: 10, the order of magnitude
    /// SONiC's post-flap pre-FEC BER guard looks for (see `after_flap`).
    pub flap_ber_rise_ratio: f64,
    /// Per-speed-tier overrides, applied in order when the lane rate is at least `min_lane_gbps`.
    pub profiles: Vec<Profile>,
    /// The MTU every fabric port should run (`mtu_mismatch`); `None`: the MTU most of the
    /// node's ports run.
    pub expected_mtu: Option<u32>,
    /// A ring (rx or tx) under this fraction of its driver's maximum is `rings_below_max`.
    pub min_ring_fraction: f64,
    /// A pause counter (the link's or a priority's, sent or received) climbing faster than
    /// this many frames per second over the window is `pause_storm`.
    pub max_pause_frames_per_s: f64,
    /// Received frames dropped for want of host buffers faster than this per second over
    /// the window are `rx_discards` (0: any).
    pub max_rx_discards_per_s: f64,
    /// More of the NIC's interrupts than this delivered to CPUs off its NUMA node is
    /// `irqs_off_numa_node`.
    pub max_irqs_off_node: u32,
    /// Fewer receive queues (combined plus rx-only channels) than this fraction of the
    /// CPUs of the NIC's NUMA node, where the driver allows more, is `channels_below_node_cpus`.
    pub min_channel_fraction: f64,
    /// NICs of one model (PCI ID) on the node must run one firmware version
    /// (`firmware_mismatch`); false: not judged.
    pub firmware_consistent: bool,
    /// Named node-validation profiles for `--profile NAME` (see `profile`), beside the built-ins.
    pub node_profiles: std::collections::BTreeMap<String, super::profile::NodeProfile>,
}

/// A speed tier: any field given replaces the base value.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Profile {
    pub(crate) min_lane_gbps: f64,
    pub(crate) margin_floor_db: Option<f64>,
    pub(crate) outlier_ratio: Option<f64>,
    pub(crate) optical_margin_floor_db: Option<f64>,
    pub(crate) rx_low_delta_db: Option<f64>,
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
            tx_bias_high_ratio: 1.2,
            min_window_s: 1.0,
            // Gaussian thermal model near the RS(544,514) limit gives 1.5-2.5 decades/dB;
            // the 200GBASE-SR4 field case gives ~4.4 (150x for 0.5 dB). Above 6 the light
            // alone does not explain the errors.
            signature_slope_min: 1.0,
            signature_slope_max: 6.0,
            pcie_efficiency: 0.92,
            max_uncorrectable_blocks: 0,
            max_link_down_events: 0,
            fec_tail_near_limit_symbols: 3,
            fec_max_predicted_flr: codeword::PHY_FLR_BUDGET,
            fec_flr_frame_bytes: 64,
            nrz_signature_slope_min: 1.3,
            nrz_signature_slope_max: 8.0,
            trend_window_s: 1800.0,
            judge_window_s: 900.0,
            trend_fit_window_s: 6.0 * 3600.0,
            drop_lookback_s: 300.0,
            flap_ber_rise_ratio: 10.0,
            profiles: Vec::new(),
            expected_mtu: None,
            // Half the maximum: drivers default far lower (mlx5 1024 of 8192, ice 2048 of
            // 8192) and tuning guides for 100G+ raise them to the maximum; at 400 Gb/s
            // 1024 descriptors of 9000-byte frames hold 184 us of line rate, 8192 hold
            // 1.5 ms (docs/host.md "Rings").
            min_ring_fraction: 0.5,
            // A pause frame at the largest quanta (65535 x 512 bit times, IEEE 802.3 31B.2)
            // stops the partner for 335 us at 100 Gb/s, 84 us at 400 Gb/s: 1000 a second can
            // hold a 100G link a third of the time, a 400G link 8% (docs/host.md "Pause").
            max_pause_frames_per_s: 1000.0,
            // A dropped frame is lost traffic (RoCE retransmits its whole window).
            max_rx_discards_per_s: 0.0,
            // One: a driver's control vector (mlx5's async EQ, ice's misc/OICR vector)
            // carries no queue's packets and may be delivered anywhere (docs/host.md "IRQs").
            max_irqs_off_node: 1,
            // One receive queue per core: the node's CPUs count each hyperthread, and
            // Documentation/networking/scaling.rst (RSS configuration) limits queues to the
            // cores, hyperthreads having shown no benefit for interrupt handling.
            min_channel_fraction: 0.5,
            // One firmware per model is the runbook's pre-flight ("firmware version on
            // every NIC"): a qualified fabric runs the version it was qualified on.
            firmware_consistent: true,
            node_profiles: Default::default(),
        }
    }
}

impl Config {
    /// Parses and checks a thresholds file: an object whose every value has its key's type
    /// and range (an error names the key and what is allowed).
    pub fn from_json(text: &str, path: &str) -> Result<Config, ConfigError> {
        // A key given twice is refused (serde_json's map keeps the last one silently, and
        // the first one the user wrote would never apply).
        serde_json::from_str::<NoDuplicateKeys>(text).map_err(|source| ConfigError::Parse { path: path.to_string(), source })?;
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|source| ConfigError::Parse { path: path.to_string(), source })?;
        let serde_json::Value::Object(map) = &value else {
            // serde would read an array as positional fields.
            return Err(ConfigError::NotAnObject { path: path.to_string(), found: json_kind(&value) });
        };
        // One key at a time first, so a type error names its key.
        for (key, v) in map {
            let one = serde_json::Value::Object([(key.clone(), v.clone())].into_iter().collect());
            if let Err(source) = serde_json::from_value::<Config>(one) {
                return Err(ConfigError::Key { path: path.to_string(), key: key.clone(), source });
            }
        }
        let cfg: Config = serde_json::from_value(value).map_err(|source| ConfigError::Parse { path: path.to_string(), source })?;
        cfg.check_ranges().map_err(|(key, value, allowed)| ConfigError::OutOfRange { path: path.to_string(), key, value, allowed })?;
        Ok(cfg)
    }

    /// The first value outside its key's range: (key, value, allowed range).
    fn check_ranges(&self) -> Result<(), (String, f64, String)> {
        let base = [
            ("confidence", self.confidence, Range::Open(0.5, 1.0)),
            ("outlier_ratio", self.outlier_ratio, Range::Closed(1.0, 1e6)),
            ("outlier_min_limit_fraction", self.outlier_min_limit_fraction, Range::Closed(0.0, 1.0)),
            ("margin_floor_db", self.margin_floor_db, MARGIN_DB),
            ("optical_margin_floor_db", self.optical_margin_floor_db, MARGIN_DB),
            ("rx_low_delta_db", self.rx_low_delta_db, DELTA_DB),
            ("tx_low_delta_db", self.tx_low_delta_db, DELTA_DB),
            ("tx_bias_high_ratio", self.tx_bias_high_ratio, Range::Closed(1.0, 10.0)),
            ("min_window_s", self.min_window_s, Range::Closed(0.0, 86_400.0)),
            ("signature_slope_min", self.signature_slope_min, SLOPE),
            ("signature_slope_max", self.signature_slope_max, SLOPE),
            ("pcie_efficiency", self.pcie_efficiency, Range::LeftOpen(0.0, 1.0)),
            // RS(544,514) corrects t = 15 symbols: a distance past it means nothing.
            ("fec_tail_near_limit_symbols", f64::from(self.fec_tail_near_limit_symbols), Range::Closed(0.0, 15.0)),
            ("fec_max_predicted_flr", self.fec_max_predicted_flr, Range::LeftOpen(0.0, 1.0)),
            // Ethernet frames: 64 octets to 9216 (jumbo) plus room for larger MTUs.
            ("fec_flr_frame_bytes", f64::from(self.fec_flr_frame_bytes), Range::Closed(64.0, 65_535.0)),
            ("nrz_signature_slope_min", self.nrz_signature_slope_min, SLOPE),
            ("nrz_signature_slope_max", self.nrz_signature_slope_max, SLOPE),
            // A trend needs a few buckets; past 30 days the bounded series is too coarse.
            ("trend_window_s", self.trend_window_s, Range::Closed(60.0, 30.0 * 86_400.0)),
            ("drop_lookback_s", self.drop_lookback_s, Range::Closed(1.0, 86_400.0)),
            ("flap_ber_rise_ratio", self.flap_ber_rise_ratio, Range::Closed(1.0, 1e6)),
            // At least a few one-second samples; at most a day (the rolling ring of counter
            // snapshots then keeps one per ~5 min).
            ("judge_window_s", self.judge_window_s, Range::Closed(3.0, 86_400.0)),
            ("trend_fit_window_s", self.trend_fit_window_s, Range::Closed(60.0, 30.0 * 86_400.0)),
            ("min_ring_fraction", self.min_ring_fraction, FRACTION),
            ("max_pause_frames_per_s", self.max_pause_frames_per_s, FRAME_RATE),
            ("max_rx_discards_per_s", self.max_rx_discards_per_s, FRAME_RATE),
            ("max_irqs_off_node", f64::from(self.max_irqs_off_node), IRQS),
            ("min_channel_fraction", self.min_channel_fraction, FRACTION),
        ];
        for (key, value, range) in base {
            range.check(key, value)?;
        }
        for (min_key, min, max_key, max) in [
            ("signature_slope_min", self.signature_slope_min, "signature_slope_max", self.signature_slope_max),
            ("nrz_signature_slope_min", self.nrz_signature_slope_min, "nrz_signature_slope_max", self.nrz_signature_slope_max),
        ] {
            if min > max {
                return Err((min_key.into(), min, format!("at most {max_key} ({max})")));
            }
        }
        if let Some(mtu) = self.expected_mtu {
            MTU.check("expected_mtu", f64::from(mtu))?;
        }
        for (name, p) in &self.node_profiles {
            if let Some(v) = p.margin_floor_db {
                MARGIN_DB.check(&format!("node_profiles.{name}.margin_floor_db"), v)?;
            }
            if let Some(mtu) = p.mtu {
                MTU.check(&format!("node_profiles.{name}.mtu"), f64::from(mtu))?;
            }
            let host = [
                ("min_ring_fraction", p.min_ring_fraction, FRACTION),
                ("max_pause_frames_per_s", p.max_pause_frames_per_s, FRAME_RATE),
                ("max_rx_discards_per_s", p.max_rx_discards_per_s, FRAME_RATE),
                ("max_irqs_off_node", p.max_irqs_off_node.map(f64::from), IRQS),
                ("min_channel_fraction", p.min_channel_fraction, FRACTION),
            ];
            for (key, v, range) in host {
                if let Some(v) = v {
                    range.check(&format!("node_profiles.{name}.{key}"), v)?;
                }
            }
        }
        for (i, p) in self.profiles.iter().enumerate() {
            let key = |k: &str| format!("profiles[{i}].{k}");
            Range::Closed(0.0, 10_000.0).check(&key("min_lane_gbps"), p.min_lane_gbps)?;
            let fields = [
                ("margin_floor_db", p.margin_floor_db, MARGIN_DB),
                ("outlier_ratio", p.outlier_ratio, Range::Closed(1.0, 1e6)),
                ("optical_margin_floor_db", p.optical_margin_floor_db, MARGIN_DB),
                ("rx_low_delta_db", p.rx_low_delta_db, DELTA_DB),
            ];
            for (k, v, range) in fields {
                if let Some(v) = v {
                    range.check(&key(k), v)?;
                }
            }
        }
        Ok(())
    }

    /// Reads a thresholds file: the defaults with the file's keys in their place, each checked against its range.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io { path: shown.clone(), source })?;
        Config::from_json(&text, &shown)
    }

    /// The configuration with node profile `p`'s host thresholds in place of its own
    /// (the host judgements of a `--profile` run use the tier's).
    pub fn under_node_profile(&self, p: &super::profile::NodeProfile) -> Config {
        let mut c = self.clone();
        c.min_ring_fraction = p.min_ring_fraction.unwrap_or(c.min_ring_fraction);
        c.max_pause_frames_per_s = p.max_pause_frames_per_s.unwrap_or(c.max_pause_frames_per_s);
        c.max_rx_discards_per_s = p.max_rx_discards_per_s.unwrap_or(c.max_rx_discards_per_s);
        c.max_irqs_off_node = p.max_irqs_off_node.unwrap_or(c.max_irqs_off_node);
        c.min_channel_fraction = p.min_channel_fraction.unwrap_or(c.min_channel_fraction);
        c.firmware_consistent = p.firmware_consistent.unwrap_or(c.firmware_consistent);
        c
    }

    /// The configuration with every profile whose tier the lane rate reaches applied
    /// (this one, not a copy, when none does: a lane row is judged per sample).
    pub(crate) fn for_lane_rate(&self, lane_gbps: Option<f64>) -> Cow<'_, Config> {
        let Some(rate) = lane_gbps.filter(|r| self.profiles.iter().any(|p| *r >= p.min_lane_gbps)) else { return Cow::Borrowed(self) };
        let mut c = self.clone();
        for p in self.profiles.iter().filter(|p| rate >= p.min_lane_gbps) {
            c.margin_floor_db = p.margin_floor_db.unwrap_or(c.margin_floor_db);
            c.outlier_ratio = p.outlier_ratio.unwrap_or(c.outlier_ratio);
            c.optical_margin_floor_db = p.optical_margin_floor_db.unwrap_or(c.optical_margin_floor_db);
            c.rx_low_delta_db = p.rx_low_delta_db.unwrap_or(c.rx_low_delta_db);
        }
        Cow::Owned(c)
    }
}

/// Any JSON (or YAML) value, refusing an object (at any depth) that names a key twice.
pub(crate) struct NoDuplicateKeys;

impl<'de> Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NoDuplicateKeys)
    }
}

impl<'de> serde::de::Visitor<'de> for NoDuplicateKeys {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_str<E>(self, _: &str) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_unit<E>(self) -> Result<Self, E> {
        Ok(self)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(self)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self, A::Error> {
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(serde::de::Error::custom(format_args!("the key `{key}` is given twice")));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(self)
    }
}

const MARGIN_DB: Range = Range::Closed(-20.0, 20.0);
const DELTA_DB: Range = Range::LeftOpen(0.0, 20.0);
const SLOPE: Range = Range::Closed(0.0, 100.0);
const FRACTION: Range = Range::Closed(0.0, 1.0);
/// A 800 Gb/s link carries at most ~1.19e9 minimum-size frames a second.
const FRAME_RATE: Range = Range::Closed(0.0, 1.2e9);
/// MSI-X allows 2048 vectors per function (PCIe Base 6.0 §6.1.4).
const IRQS: Range = Range::Closed(0.0, 2048.0);
/// IPv4's minimum datagram every link must carry (RFC 791) to the largest IP packet.
const MTU: Range = Range::Closed(68.0, 65_535.0);

/// Allowed values of one key.
#[derive(Clone, Copy)]
enum Range {
    Closed(f64, f64),
    Open(f64, f64),
    LeftOpen(f64, f64),
}

impl Range {
    fn check(self, key: &str, v: f64) -> Result<(), (String, f64, String)> {
        let (ok, text) = match self {
            Range::Closed(lo, hi) => ((lo..=hi).contains(&v), format!("{lo} to {hi}")),
            Range::Open(lo, hi) => (v > lo && v < hi, format!("over {lo} and under {hi}")),
            Range::LeftOpen(lo, hi) => (v > lo && v <= hi, format!("over {lo}, at most {hi}")),
        };
        if ok {
            Ok(())
        } else {
            Err((key.to_string(), v, text))
        }
    }
}

fn json_kind(v: &serde_json::Value) -> &'static str {
    match v {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
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
    fn values_out_of_range_or_of_the_wrong_type_name_their_key() {
        let err = |t: &str| Config::from_json(t, "c.json").unwrap_err().to_string();
        let e = err(r#"{"confidence": 1.5}"#);
        assert!(e.contains("`confidence` is 1.5") && e.contains("under 1"), "{e}");
        let e = err(r#"{"pcie_efficiency": 5}"#);
        assert!(e.contains("`pcie_efficiency` is 5") && e.contains("at most 1"), "{e}");
        assert!(err(r#"{"outlier_ratio": -2}"#).contains("`outlier_ratio` is -2"));
        assert!(err(r#"{"profiles":[{"min_lane_gbps":50,"rx_low_delta_db":-1}]}"#).contains("`profiles[0].rx_low_delta_db` is -1"));
        let e = err(r#"{"max_link_down_events": -1}"#);
        assert!(e.contains("key `max_link_down_events`"), "{e}");
        assert!(err(r#"{"margin_floor_db": "high"}"#).contains("key `margin_floor_db`"));
        assert!(err(r#"{"signature_slope_min": 7}"#).contains("signature_slope_max"));
        // An array is not read as positional fields.
        assert!(err("[0.9, 10]").contains("must be a JSON object"), "{}", err("[0.9, 10]"));
        assert!(Config::from_json(r#"{"confidence": 0.99, "min_window_s": 0}"#, "t").is_ok());
    }

    #[test]
    fn unknown_keys_are_errors() {
        assert!(matches!(Config::from_json(r#"{"margin_floor": 1}"#, "t"), Err(ConfigError::Key { .. })));
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
