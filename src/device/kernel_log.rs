//! What the kernel log (`dmesg`, `dmesg -T`, `journalctl -k`) said of one PCI function: the
//! driver's link and module messages, the PCI core's bandwidth line and AER's error reports
//! (docs/import.md "The kernel log"). An import reads the log and keys these by the
//! function's address; the capture carries them in the interface's host facts; analysis
//! quotes them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The kernel log's statements about one PCI function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelLog {
    /// The driver the lines name the function's messages by (`i40e`, `mlx5_core`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<String>,
    /// The driver's link and module messages, oldest first: the latest
    /// [`MAX_KERNEL_MESSAGES`] of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<KernelMessage>,
    /// Older messages left out to keep the latest [`MAX_KERNEL_MESSAGES`].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub messages_dropped: u64,
    /// The PCI core's bandwidth line, the latest (drivers/pci/pci.c `__pcie_print_link_status`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pcie_bandwidth: Option<PcieBandwidth>,
    /// AER's reports of errors this function detected (drivers/pci/pcie/aer.c).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aer: Option<AerErrors>,
}

/// Most messages kept per function: a flap history of a few dozen transitions says what a
/// longer one says, and a log of 16 MiB holds no more than this per port.
pub const MAX_KERNEL_MESSAGES: usize = 64;

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl KernelLog {
    /// The kernel's words for why the link is down: the latest message that explains a down
    /// link since the link last came up; `None` when it came up after every such message.
    pub fn down_reason(&self) -> Option<&KernelMessage> {
        self.messages.iter().rev().take_while(|m| !matches!(m.event, KernelEvent::LinkUp { .. })).find(|m| m.event.explains_link_down())
    }
}

/// When a line was logged, as its stamp gives it: microseconds since boot (`dmesg`,
/// `journalctl -o short-monotonic`: `[%5lu.%06lu]`, kernel/printk/printk.c
/// `print_time`), or the wall clock as printed (`dmesg -T`, `journalctl -k`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelTime {
    /// Microseconds since boot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_us: Option<u64>,
    /// The wall-clock stamp as printed (`Thu Feb 29 13:47:22 2024`, `Feb 05 15:41:33`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<String>,
}

impl std::fmt::Display for KernelTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.boot_us, &self.wall) {
            (Some(us), _) => write!(f, "{}.{:06} s after boot", us / 1_000_000, us % 1_000_000),
            (None, Some(w)) => f.write_str(w),
            (None, None) => f.write_str("an unstamped line"),
        }
    }
}

/// One message of the driver about the function's link or module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelMessage {
    /// When it was logged.
    pub at: KernelTime,
    /// The netdev the line names (`i40e 0000:5e:00.0 eth2: NIC Link is Up ...`), when it names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub netdev: Option<String>,
    /// What it says.
    pub event: KernelEvent,
    /// The message as the driver printed it, after its device prefix (at most
    /// [`MAX_MESSAGE_TEXT_BYTES`]).
    pub text: String,
}

/// The most of a message's text kept: the longest line quoted here (ice's link-up line
/// with its FEC and autonegotiation) is under 200 bytes.
pub const MAX_MESSAGE_TEXT_BYTES: usize = 256;

/// What a driver's message says of the link or its module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum KernelEvent {
    /// The link came up (`NIC Link is Up, 25 Gbps Full Duplex, ...`, mlx5's `Link up`).
    LinkUp {
        /// The speed the line states, in Mb/s.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        speed_mbps: Option<u32>,
        /// The FEC it negotiated, as printed (`RS-FEC`, i40e and ice `Negotiated FEC:`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fec: Option<String>,
    },
    /// The link went down (`NIC Link is Down`, mlx5's `Link down`).
    LinkDown,
    /// The NIC refuses the module it holds: it keeps the port down (i40e `Rx/Tx is disabled
    /// on this device because an unsupported SFP module type was detected.`, ixgbe `failed to
    /// load because an unsupported SFP+ or QSFP module type was detected.`, ice's module
    /// power and NVM refusals, bnxt_en `Unqualified SFP+ module detected`).
    ModuleRefused,
    /// The NIC found no module in the cage (ice `Module is not present.`).
    ModuleAbsent,
    /// The port's configuration or its partner's is at fault (ice `A parallel fault was
    /// detected.`, `Potential misconfiguration of the Ethernet port detected.`).
    PortFault,
    /// mlx5's port module event: the cage's module plugged, unplugged, disabled, or in error
    /// with the firmware's reason (drivers/net/ethernet/mellanox/mlx5/core/events.c
    /// `port_module`: `Port module event[error]: module %u, %s, %s`).
    ModuleEvent {
        /// The module (cage) number.
        module: u32,
        /// What happened.
        status: ModuleStatus,
        /// The firmware's reason for an error, as printed (`High Temperature`, `Bus stuck
        /// (I2C or data shorted)`, `Power budget exceeded`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

/// mlx5's module status (events.c `mlx5_pme_status_to_string`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModuleStatus {
    /// `Cable plugged`.
    Plugged,
    /// `Cable unplugged`.
    Unplugged,
    /// `Cable error`.
    Error,
    /// `Cable disabled`.
    Disabled,
}

impl KernelEvent {
    /// True for a statement of why the link is down: the NIC refuses its module, finds none, or
    /// the port or its module is in error: what a down link's reason quotes.
    pub fn explains_link_down(&self) -> bool {
        match self {
            KernelEvent::ModuleRefused | KernelEvent::ModuleAbsent | KernelEvent::PortFault => true,
            KernelEvent::ModuleEvent { status, .. } => {
                matches!(status, ModuleStatus::Error | ModuleStatus::Disabled | ModuleStatus::Unplugged)
            }
            KernelEvent::LinkUp { .. } | KernelEvent::LinkDown => false,
        }
    }
}

/// The PCI core's line on the bandwidth the function's path gives it (drivers/pci/pci.c
/// `__pcie_print_link_status`): `63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s
/// PCIe x8 link at 0000:5d:00.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)`, or
/// at full bandwidth `126.016 Gb/s available PCIe bandwidth (8.0 GT/s PCIe x16 link)`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PcieBandwidth {
    /// When it was logged.
    pub at: KernelTime,
    /// What the slowest link on the path carries, Mb/s (the kernel prints `%u.%03u Gb/s`).
    pub available_mbps: u64,
    /// The slowest link's speed as printed (`8.0 GT/s PCIe`, sysfs's spelling).
    pub speed: String,
    /// The slowest link's width, in lanes.
    pub width: u32,
    /// The device whose link is the slowest: the function's own, or a bridge's above it;
    /// `None` when the line says the path gives the function all it can use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limited_at: Option<String>,
    /// What the function could use, Mb/s.
    pub capable_mbps: u64,
    /// The function's own top speed as printed.
    pub capable_speed: String,
    /// The function's own width.
    pub capable_width: u32,
}

/// The AER reports of errors one function detected (drivers/pci/pcie/aer.c
/// `aer_print_error`): each `PCIe Bus Error: severity=...` line is one report, the
/// `[ N] Name` lines under it the error status bits set.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AerErrors {
    /// Reports of corrected errors (`severity=Corrected`, newer kernels `Correctable`).
    pub corrected: u64,
    /// Reports of uncorrected non-fatal errors.
    pub nonfatal: u64,
    /// Reports of uncorrected fatal errors.
    pub fatal: u64,
    /// Corrected errors by the bit of the Correctable Error Status register (PCIe Base 6.0
    /// §7.8.4.5) the kernel printed set.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub corrected_by_kind: BTreeMap<CorrectableError, u64>,
    /// The first and the last report.
    pub first: KernelTime,
    /// The last report.
    pub last: KernelTime,
}

impl AerErrors {
    /// Corrected errors of the physical layer: receiver errors (the Receiver Error bit is
    /// what aer.c names `type=Physical Layer`).
    pub fn physical_layer(&self) -> u64 {
        self.corrected_by_kind.get(&CorrectableError::ReceiverError).copied().unwrap_or(0)
    }

    /// Corrected errors of the data link layer: bad TLPs and DLLPs, replays.
    pub fn data_link_layer(&self) -> u64 {
        use CorrectableError::*;
        [BadTlp, BadDllp, ReplayNumRollover, ReplayTimerTimeout].iter().filter_map(|k| self.corrected_by_kind.get(k)).sum()
    }
}

/// A bit of the Correctable Error Status register (PCIe Base 6.0 §7.8.4.5), named as the
/// spec names it; aer.c prints them `RxErr`, `BadTLP`, `BadDLLP`, `Rollover`, `Timeout`,
/// `NonFatalErr`, `CorrIntErr`, `HeaderOF` (before 4.x: `Receiver Error`, `Bad TLP`, ...).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CorrectableError {
    /// Bit 0: Receiver Error (the physical layer).
    ReceiverError,
    /// Bit 6: Bad TLP.
    BadTlp,
    /// Bit 7: Bad DLLP.
    BadDllp,
    /// Bit 8: REPLAY_NUM Rollover.
    ReplayNumRollover,
    /// Bit 12: Replay Timer Timeout.
    ReplayTimerTimeout,
    /// Bit 13: Advisory Non-Fatal Error.
    AdvisoryNonFatal,
    /// Bit 14: Corrected Internal Error.
    CorrectedInternal,
    /// Bit 15: Header Log Overflow.
    HeaderLogOverflow,
}

impl CorrectableError {
    /// The error of bit `bit` of the register.
    pub fn of_bit(bit: u32) -> Option<CorrectableError> {
        use CorrectableError::*;
        Some(match bit {
            0 => ReceiverError,
            6 => BadTlp,
            7 => BadDllp,
            8 => ReplayNumRollover,
            12 => ReplayTimerTimeout,
            13 => AdvisoryNonFatal,
            14 => CorrectedInternal,
            15 => HeaderLogOverflow,
            _ => return None,
        })
    }
}
