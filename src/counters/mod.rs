//! FEC, link and driver counters: the raw shapes the kernel gives ([`FecStats`],
//! [`LinkState`], [`DriverStats`]) and one normalised per-lane model ([`PortCounters`])
//! that says where each figure came from.
//!
//! The raw types serialize exactly as the capture format's `fec`, `link` and
//! `driver_stats` objects (docs/capture-format.md).

pub(crate) mod driver_stats;
pub mod figure;
pub(crate) mod host;
pub mod ib;
pub(crate) mod link_ext_state;
pub(crate) mod model;
pub(crate) mod normalize;
pub(crate) mod serdes;
mod slots;

pub use driver_stats::DriverStats;
pub use figure::CounterFigure;
pub(crate) use link_ext_state::{parse_ext_state, ExtStateValue, LinkExtState};
pub use model::{Counted, HostCounted, IbCounted, LaneCounts, Origin, PortCounters};
#[cfg(test)]
pub(crate) use normalize::normalize;
pub(crate) use normalize::{fec_origin, normalize_into};
use serde::{Deserialize, Serialize};

/// `ETHTOOL_A_FEC_STAT_*` arrays: element 0 is the total, elements 1.. are lanes.
/// An empty array means the driver does not report that counter (0-byte payload).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FecStats {
    /// `ETHTOOL_A_FEC_STAT_CORRECTED`: codewords FEC corrected.
    #[serde(default, deserialize_with = "total_and_lanes")]
    pub corrected_blocks: Vec<u64>,
    /// `ETHTOOL_A_FEC_STAT_UNCORR`: codewords FEC could not correct.
    #[serde(default, deserialize_with = "total_and_lanes")]
    pub uncorrectable_blocks: Vec<u64>,
    /// `ETHTOOL_A_FEC_STAT_CORR_BITS`: bits FEC corrected.
    #[serde(default, deserialize_with = "total_and_lanes")]
    pub corrected_bits: Vec<u64>,
    /// `ETHTOOL_A_FEC_STAT_HIST` bins (Linux 6.18+): codewords by symbol-error count.
    #[serde(default, deserialize_with = "histogram_bins")]
    pub histogram: Vec<FecHistogramBin>,
    /// Imported records: the tool whose printed counters these are; absent = the kernel's
    /// ethtool netlink statistics (every live read, and captures written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<FecSource>,
    /// Codeword figures a tool printed as its latest reading rather than as running totals
    /// (Arista EOS): never subtracted; only their change counts are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latest_readings: Option<FecReadings>,
}

/// Codeword figures a tool printed as its latest reading, with how often each reading
/// changed and when it last did: Arista EOS `show interfaces phy detail` prints each FEC
/// figure as `value / changes / last change`, and its value is the count of the latest
/// sampling interval in which the figure changed, not a total since a clear (EOS reads the
/// PHY's counters on a schedule it does not document and keeps the last reading; a value
/// less than its change count, 1 corrected codeword after 577 changes, cannot be a
/// running total). docs/import.md cites the evidence.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FecReadings {
    /// Codewords FEC corrected, in the latest reading that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub corrected_blocks: Option<LatestReading>,
    /// Codewords FEC could not correct, in the latest reading that changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncorrectable_blocks: Option<LatestReading>,
}

/// One figure as its latest reading ([`FecReadings`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatestReading {
    /// The count of the latest reading.
    pub value: u64,
    /// How often the reading changed (a running count: the only figure two snapshots may
    /// subtract).
    pub changes: u64,
    /// How long before the output was printed the reading last changed, in seconds (the
    /// text form's `2:39:43 ago`); `None` when it never changed or the form gives a time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_change_age_s: Option<u64>,
    /// When the reading last changed, whole seconds since the Unix epoch (the JSON form's
    /// `lastChange`; EOS writes 0 for never, read as `None`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_change_unix_s: Option<u64>,
}

/// The tool an imported record's FEC counters were printed by (the capture's `fec.source`).
/// The name is the same in the capture and in each counter's origin (`import:<name>`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FecSource {
    /// NVIDIA `mlxlink` text, JSON or amBER CSV: the NIC's (or switch ASIC's) PPCNT counters.
    Mlxlink,
    /// NVIDIA Cumulus Linux NVUE `nv show interface IF link phy-detail` / `link phy health`.
    Nvue,
    /// Arista EOS `show interfaces phy detail`: latest readings, not running totals
    /// ([`FecReadings`]).
    Eos,
    /// SONiC `show interfaces counters fec-stats` / `fec-histogram`.
    Sonic,
}

impl FecSource {
    /// Whether the tool's codeword figures are running totals two snapshots may subtract:
    /// EOS prints its latest reading instead ([`FecReadings`]), so an EOS capture's
    /// codeword arrays (written before [`FecStats::latest_readings`] existed) are not counts.
    pub fn prints_running_totals(self) -> bool {
        !matches!(self, FecSource::Eos)
    }

    /// The name the capture and the counter origins write.
    pub fn as_str(self) -> &'static str {
        match self {
            FecSource::Mlxlink => "mlxlink",
            FecSource::Nvue => "nvue",
            FecSource::Eos => "eos",
            FecSource::Sonic => "sonic",
        }
    }
}

/// One bin of the FEC histogram: codewords with `low..=high` symbol errors.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FecHistogramBin {
    /// The fewest symbol errors a codeword of the bin has.
    pub low: u32,
    /// The most symbol errors a codeword of the bin has.
    pub high: u32,
    /// Codewords in the bin, all lanes.
    pub count: u64,
    /// The same per lane, lane 1 first (empty when the driver gives the total only).
    #[serde(default, deserialize_with = "lanes_only")]
    pub per_lane: Vec<u64>,
}

/// Most lanes a port can have: the kernel's ETHTOOL_MAX_LANES is 8, CMIS modules have at
/// most 8 host lanes, OSFP-XD 16. An array past it is a corrupt capture, not a link.
pub const MAX_LANES: usize = 16;

/// Most histogram bins: RS(544,514) corrects up to 15 symbols, so 0..=15 plus an
/// uncorrectable bin; the kernel caps at ETHTOOL_FEC_HIST_MAX (17). Room to spare.
const MAX_HISTOGRAM_BINS: usize = 64;

/// Items a bounded sequence makes room for at its first: a total and [`MAX_LANES`] lanes.
const FIRST_ROOM: usize = 1 + MAX_LANES;

/// A sequence of at most `max` items, refused as soon as it runs past (no unbounded Vec).
pub(crate) fn bounded_seq<'de, D, T>(d: D, max: usize, what: &'static str) -> Result<Vec<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    struct Bounded<T> {
        max: usize,
        what: &'static str,
        item: std::marker::PhantomData<T>,
    }
    impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for Bounded<T> {
        type Value = Vec<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            write!(f, "an array of at most {} entries ({})", self.max, self.what)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
            let mut out = Vec::new();
            while let Some(v) = seq.next_element()? {
                // Room for a lane's worth at the first item, not grown 4, 8, 16 as items
                // come (a record's FEC counters are read per sample).
                if out.is_empty() {
                    out.reserve_exact(self.max.min(FIRST_ROOM));
                }
                if out.len() == self.max {
                    return Err(serde::de::Error::custom(format_args!(
                        "more than {} entries ({}): no module or link has that many",
                        self.max, self.what
                    )));
                }
                out.push(v);
            }
            Ok(out)
        }
    }
    d.deserialize_seq(Bounded { max, what, item: std::marker::PhantomData })
}

fn total_and_lanes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    bounded_seq(d, 1 + MAX_LANES, "the total, then one per lane")
}

fn lanes_only<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    bounded_seq(d, MAX_LANES, "one per lane")
}

fn histogram_bins<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<FecHistogramBin>, D::Error> {
    bounded_seq(d, MAX_HISTOGRAM_BINS, "histogram bins")
}

/// `ETHTOOL_MSG_LINKSTATE_GET` with stats.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkState {
    /// Whether the link is up (`ETHTOOL_A_LINKSTATE_LINK`).
    pub up: Option<bool>,
    /// `enum ethtool_link_ext_state` value, raw.
    #[serde(default)]
    pub ext_state: Option<u8>,
    /// `ETHTOOL_A_LINKSTATE_EXT_SUBSTATE` value, raw.
    #[serde(default)]
    pub ext_substate: Option<u8>,
    /// `ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT` (Linux 6.2+).
    #[serde(default)]
    pub down_events: Option<u64>,
}

/// Negotiated link: `ETHTOOL_MSG_LINKMODES_GET` (or `ETHTOOL_GLINKSETTINGS`) and the active FEC.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkInfo {
    /// Link speed in Mb/s.
    pub speed_mbps: Option<u32>,
    /// Lanes the link uses.
    #[serde(default)]
    pub lanes: Option<u32>,
    /// Kernel link-mode name, e.g. `200000baseSR4/Full`.
    #[serde(default)]
    pub link_mode: Option<String>,
    /// Active FEC: `None`, `RS`, `BASER`, `LLRS` (names of the kernel's FEC link-mode bits).
    #[serde(default)]
    pub fec_active: Option<String>,
    /// The link modes the port can run, kernel names (`10000baseSR/Full`): the OURS
    /// bitset's mask (`ETHTOOL_A_LINKMODES_OURS`), `ethtool IFACE`'s "Supported link
    /// modes". Empty where not reported.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "link_modes")]
    pub supported_modes: Vec<String>,
    /// The link modes the port advertises, or the one it is forced to with
    /// autonegotiation off: the OURS bitset's value, "Advertised link modes".
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "link_modes")]
    pub advertised_modes: Vec<String>,
}

/// Most link modes a port lists: the kernel's link-mode bitmap has 125 (Linux 6.18 plus
/// the 1.6T modes).
pub(crate) const MAX_LINK_MODES: usize = 128;

fn link_modes<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    bounded_seq(d, MAX_LINK_MODES, "link modes")
}
