//! Where bytes and counters come from. Live reading (netlink, ioctl, sysfs, I2C) and
//! capture replay implement the same [`Source`] trait, so decoding and analysis never
//! know which one they got.

use crate::counters::host::PauseStats;
use crate::counters::ib::IbSample;
use crate::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use crate::device::DeviceIdentity;
use crate::module::PageRequest;
use serde::Serialize;
use thiserror::Error;

// The live sources (feature `live`, Linux): the kernel's netlink and ioctl interfaces and
// direct I2C. Everything that reads files (imports, replay, sysfs trees) builds anywhere.
#[cfg(live)]
pub mod i2c;
pub mod import;
pub mod infiniband;
#[cfg(live)]
pub mod ioctl;
#[cfg(live)]
pub mod live;
#[cfg(live)]
pub mod netlink;
pub mod replay;
pub mod sysfs;

/// Errors from a source, typed so callers can tell "not supported" (a normal partial
/// result) from real failures. Kernel extack text is kept where the kernel sent it.
#[derive(Debug, Error)]
pub enum SourceError {
    /// The driver or kernel does not implement it (`EOPNOTSUPP`): a normal partial result.
    #[error("{what}: not supported by driver {}{}", driver.as_deref().unwrap_or("(unknown)"), fmt_msg(message))]
    NotSupported {
        /// What was asked for.
        what: String,
        /// The driver, when known.
        driver: Option<String>,
        /// The kernel's extack text.
        message: Option<String>,
    },
    /// No such device (`ENODEV`).
    #[error("{what}: no such device {iface}{}", fmt_msg(message))]
    NoDevice {
        /// What was asked for.
        what: String,
        /// The interface named.
        iface: String,
        /// The kernel's extack text.
        message: Option<String>,
    },
    /// Not permitted (`EPERM`, `EACCES`).
    #[error("{what}: permission denied (needs CAP_NET_ADMIN; run as root){}", fmt_msg(message))]
    Permission {
        /// What was asked for.
        what: String,
        /// The kernel's extack text.
        message: Option<String>,
    },
    /// Device busy (`EBUSY`).
    #[error("{what}: device busy{}", fmt_msg(message))]
    Busy {
        /// What was asked for.
        what: String,
        /// The kernel's extack text.
        message: Option<String>,
    },
    /// Any other kernel errno.
    #[error("{what}: kernel error {errno} ({}){}", std::io::Error::from_raw_os_error(*errno), fmt_msg(message))]
    Kernel {
        /// What was asked for.
        what: String,
        /// The errno.
        errno: i32,
        /// The kernel's extack text.
        message: Option<String>,
    },
    /// A reply that does not decode.
    #[error("{what}: malformed reply: {detail}")]
    Malformed {
        /// What was asked for.
        what: String,
        /// What is wrong with it.
        detail: String,
    },
    /// Not there for another reason (no such file, no such port).
    #[error("{what}: {detail}")]
    Unavailable {
        /// What was asked for.
        what: String,
        /// Why.
        detail: String,
    },
    /// An I/O error.
    #[error("{what}: {source}")]
    Io {
        /// What was being read.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

fn fmt_msg(m: &Option<String>) -> String {
    match m {
        Some(m) if !m.is_empty() => format!(" (kernel: {m})"),
        _ => String::new(),
    }
}

impl SourceError {
    /// True for answers that mean "this device cannot give that": a normal partial result.
    pub fn is_not_supported(&self) -> bool {
        matches!(self, SourceError::NotSupported { .. })
    }
    /// True when the device is gone (`ENODEV`): it vanished or was renamed.
    pub fn is_no_device(&self) -> bool {
        matches!(self, SourceError::NoDevice { .. })
    }

    /// The typed error for a kernel errno (netlink `NLMSG_ERROR` or a failed ioctl),
    /// keeping the kernel's extack text. `driver` names the driver in `NotSupported`.
    #[cfg(live)]
    pub(crate) fn from_errno(what: &str, iface: &str, driver: Option<&str>, errno: i32, message: Option<String>) -> Self {
        let what = what.to_string();
        match errno {
            libc::EOPNOTSUPP => SourceError::NotSupported { what, driver: driver.map(str::to_string), message },
            libc::ENODEV => SourceError::NoDevice { what, iface: iface.to_string(), message },
            libc::EPERM | libc::EACCES => SourceError::Permission { what, message },
            libc::EBUSY => SourceError::Busy { what, message },
            _ => SourceError::Kernel { what, errno, message },
        }
    }

    /// The kernel errno behind this error, when there is one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            SourceError::NotSupported { .. } => Some(libc::EOPNOTSUPP),
            SourceError::NoDevice { .. } => Some(libc::ENODEV),
            SourceError::Permission { .. } => Some(libc::EPERM),
            SourceError::Busy { .. } => Some(libc::EBUSY),
            SourceError::Kernel { errno, .. } => Some(*errno),
            SourceError::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    /// The kernel's extack (or other kernel-given) message, when there is one.
    pub fn kernel_message(&self) -> Option<&str> {
        match self {
            SourceError::NotSupported { message, .. }
            | SourceError::NoDevice { message, .. }
            | SourceError::Permission { message, .. }
            | SourceError::Busy { message, .. }
            | SourceError::Kernel { message, .. } => message.as_deref(),
            _ => None,
        }
    }
}

/// A source's result.
pub type Result<T> = std::result::Result<T, SourceError>;

/// Which path a layer was read through, for the report ("netlink", "ioctl", "sysfs", "i2c", "replay").
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PathsUsed {
    /// Path the module EEPROM was read through.
    pub module: Option<String>,
    /// Path the link state and modes were read through.
    pub link: Option<String>,
    /// Path the FEC counters were read through.
    pub fec: Option<String>,
    /// Path the driver statistics were read through.
    pub driver_stats: Option<String>,
    /// What the kernel or driver could not give, one sentence each.
    pub unavailable: Vec<String>,
}

/// Requests and bytes a source has made, for `--verbose` and benchmarks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct IoCounts {
    /// Requests made (netlink messages, ioctls, file reads).
    pub requests: u64,
    /// Bytes received.
    pub bytes: u64,
}

/// One data source for one or more interfaces.
pub trait Source {
    /// Netdevs worth looking at (with a module or FEC), physical ones only.
    fn interfaces(&mut self) -> Result<Vec<String>>;
    /// Driver, firmware, bus address and port identity of `iface`.
    fn identity(&mut self, iface: &str) -> Result<DeviceIdentity>;
    /// Speed, lanes, duplex and modes of `iface`.
    fn link_info(&mut self, iface: &str) -> Result<LinkInfo>;
    /// Link up/down and the kernel's extended link state.
    fn link_state(&mut self, iface: &str) -> Result<LinkState>;
    /// FEC statistics; `NotSupported` when the driver has none.
    fn fec(&mut self, iface: &str) -> Result<FecStats>;
    /// Driver statistics (`ethtool -S`); `NotSupported` when the driver has none.
    fn driver_stats(&mut self, iface: &str) -> Result<DriverStats>;
    /// One module read (`req.is_valid()`); may return fewer bytes than asked.
    fn read_eeprom(&mut self, iface: &str, req: PageRequest) -> Result<Vec<u8>>;
    /// Which path each layer used and what was unavailable.
    fn paths(&self, iface: &str) -> PathsUsed;
    /// Requests and bytes so far.
    fn io_counts(&self) -> IoCounts;
    /// The ifindex `iface` names now (resolved afresh after a request found the device
    /// gone), so a sampler can tell a rename swap from the same device; `None` for
    /// sources that have none (capture replay).
    fn ifindex(&mut self, _iface: &str) -> Option<u32> {
        None
    }
    /// An InfiniBand port's state and `PortCounters` (`counters::ib`); `NotSupported` for
    /// anything that is not an IB port.
    fn infiniband(&mut self, iface: &str) -> Result<IbSample> {
        Err(SourceError::NotSupported { what: format!("InfiniBand counters of {iface}"), driver: None, message: None })
    }
    /// Pause frames sent and received (`ETHTOOL_A_PAUSE_STATS`); `NotSupported` when the
    /// driver has none.
    fn pause_stats(&mut self, iface: &str) -> Result<PauseStats> {
        Err(SourceError::NotSupported { what: format!("pause statistics of {iface}"), driver: None, message: None })
    }
    /// Called by the sampling loop after each sample of an interface. Live sources need
    /// nothing; capture replay moves to the next recorded sample.
    fn end_sample(&mut self) {}
}

/// A path to module memory alone (direct I2C, or a file), usable in place of the
/// netdev's own EEPROM path.
pub trait EepromReader: Send {
    /// One read; `req.is_valid()`. May return fewer bytes than asked.
    fn read(&mut self, req: PageRequest) -> Result<Vec<u8>>;
    /// Short name for reports: "i2c /dev/i2c-3", "netlink", ...
    fn describe(&self) -> String;
}

/// The netdevs worth scanning: physical ones (`Source::interfaces`) whose driver answers
/// for a module (identifier byte) or FEC statistics. Virtual devices and NICs with
/// neither are skipped.
pub fn discover(source: &mut dyn Source) -> Result<Vec<String>> {
    let mut found = Vec::new();
    for iface in source.interfaces()? {
        let has_module = source.read_eeprom(&iface, PageRequest::new(crate::module::I2C_A0, 0, 0, 0, 1)).is_ok_and(|b| !b.is_empty());
        if has_module || source.fec(&iface).is_ok() {
            found.push(iface);
        }
    }
    Ok(found)
}
