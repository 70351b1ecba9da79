//! `optics import`: outputs of the tools people already run (`mlxlink`, `ethtool`, `lspci`,
//! support bundles, runbook baselines) turned into capture records, so every analysis runs
//! on them unchanged (docs/import.md).
//!
//! Each file is recognised by its content ([`recognize`](mod@recognize)), parsed into a [`Fragment`] by
//! the parser of its format (one file each), and the fragments are grouped per interface
//! and snapshot into records with a stated time base ([`build`]). Parsers never do I/O;
//! [`walk`] reads the files.

pub mod build;
pub mod eos_phy;
pub(crate) mod eos_transceiver;
pub(crate) mod ethtool_drvinfo;
pub(crate) mod ethtool_fec;
pub(crate) mod ethtool_link;
pub mod ethtool_module;
pub(crate) mod ethtool_pause;
pub(crate) mod ethtool_stats;
pub(crate) mod host_tools;
pub(crate) mod ib_tools;
pub(crate) mod junos_optics;
pub(crate) mod kernel_log;
pub(crate) mod lldp;
pub(crate) mod lspci;
pub(crate) mod mlxlink_amber;
pub(crate) mod mlxlink_fields;
pub(crate) mod mlxlink_json;
pub(crate) mod mlxlink_text;
pub(crate) mod module_pages;
pub(crate) mod nvue;
pub(crate) mod parse_error;
pub(crate) mod paste;
pub mod recognize;
pub(crate) mod sonic_counters;
pub(crate) mod sonic_sfpshow;
pub(crate) mod sonic_xcvr;
pub(crate) mod sysfs_tree;
pub(crate) mod uptime;
pub mod walk;

pub use build::{import, import_pair, import_parsed, is_capture, ImportOptions, Imported};
pub use parse_error::{ParseError, ParseResult};
pub use recognize::{recognize, Format};

use crate::capture::ModulePages;
use crate::counters::ib::IbSample;
use crate::counters::serdes::SerdesEye;
use crate::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use crate::device::{IbPort, PciLink};
use crate::module::printed::PrintedModule;
use std::collections::BTreeMap;
use std::path::PathBuf;
use thiserror::Error;

/// Why an import failed.
#[derive(Debug, Error)]
pub enum ImportError {
    /// An input could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The input.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// No format optics reads.
    #[error("{path}: not a format optics import reads (mlxlink --json or text or --amber_collect CSV, ethtool -S / --show-fec / -m hex or decoded / -i / -g / -l / -a (text or --json) / IFACE, lspci -vvv, /proc/uptime, ip link / address (text or -j), nvidia-smi topo -m, ibdev2netdev; a switch's SONiC show interfaces transceiver eeprom --dom / status / pm / counters fec-stats / fec-histogram, sfputil show eeprom-hexdump, EOS show interfaces transceiver [detail] / phy detail | json, Junos show interfaces diagnostics optics, NVUE nv show interface IF transceiver / link phy-detail; lldpcli show neighbors; the kernel log: dmesg, journalctl -k)")]
    Unrecognised {
        /// The input.
        path: PathBuf,
    },
    /// A recognised format that does not parse.
    #[error("{path}: {format}: {detail}")]
    Parse {
        /// The input.
        path: PathBuf,
        /// The format's name.
        format: &'static str,
        /// What is wrong, and where.
        detail: ParseError,
    },
    /// A bad combination of inputs or options, said as a sentence.
    #[error("{0}")]
    Input(String),
}

/// What one file says, in capture terms. Every field is optional: each format fills its part.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fragment {
    /// The interface as the content names it (`Settings for X:`, `"ifname"`).
    pub interface: Option<String>,
    /// mlxlink `"Time Since Last Clear [Min]"`, in seconds.
    pub(crate) since_clear_s: Option<f64>,
    pub(crate) driver_stats: DriverStats,
    pub(crate) fec: Option<FecStats>,
    pub(crate) link_state: Option<LinkState>,
    pub(crate) link: Option<LinkInfo>,
    pub(crate) driver: Option<String>,
    pub(crate) bus_info: Option<String>,
    /// lspci's PCI functions (the listing's facts, the tree's places).
    pub(crate) pci_devices: Vec<lspci::PciFunction>,
    pub(crate) module_pages: Option<ModulePages>,
    /// Module monitors as the tool printed them (decoded `ethtool -m`, `mlxlink -m`, switch CLIs).
    pub printed_module: Option<PrintedModule>,
    /// The host NIC's receiver eye per lane (`mlxlink --show_eye`).
    pub(crate) serdes_eye: Option<SerdesEye>,
    /// Every field as printed (`Section/Field` -> text), kept in the record.
    pub(crate) printed_fields: BTreeMap<String, String>,
    /// Host uptime (`/proc/uptime`, `uptime`), seconds.
    pub(crate) uptime_s: Option<f64>,
    /// What the parser had to assume or skipped, one sentence each.
    pub(crate) notes: Vec<String>,
    /// A switch's output names several ports: one fragment each, named by its `interface`
    /// (`walk::ParsedFile::ports` splits them before the fragments are grouped).
    pub ports: Vec<Fragment>,
    /// Several runs of one port in one file (an amBER CSV's rows), oldest first: each is a
    /// snapshot of its own ([`walk::split_runs`]).
    pub(crate) runs: Vec<Fragment>,
    /// The far end of the interface's cable, from an LLDP neighbor table (`lldp`).
    pub(crate) neighbor: Option<crate::device::LinkNeighbor>,
    /// InfiniBand ports the file describes (`ib_tools`, a copied sysfs tree); a file with
    /// several is split into one parsed file per port ([`walk::split_ib_ports`]).
    pub(crate) ib_ports: Vec<IbFragment>,
    /// The host beneath the interface as the file states it (`ethtool -i`, `-g`, `-l`),
    /// every fact marked imported.
    pub(crate) host: crate::device::host::HostFacts,
    /// Host-wide: each netdev's MTU and PCI function (`ip [-d] link`, `ip [-d] address`).
    pub(crate) netdev_links: Vec<host_tools::NetdevLink>,
    /// Host-wide: each NIC's GPUs with their distance (`nvidia-smi topo -m`).
    pub(crate) gpu_topology: Vec<host_tools::NicGpus>,
    /// Host-wide: (RDMA device, netdev) pairs (`ibdev2netdev`).
    pub(crate) rdma_netdevs: Vec<(String, String)>,
    /// Pause frames sent and received (`ethtool -I -a`): the sample's `pause`.
    pub(crate) pause: Option<crate::counters::host::PauseStats>,
    /// Host-wide: what the kernel log said of each PCI function (`dmesg`, `journalctl -k`).
    pub(crate) kernel_log: Option<kernel_log::KernelLogs>,
}

/// One InfiniBand port as a tool output or a copied sysfs tree gives it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct IbFragment {
    /// The RDMA device and port, when the output names them (`perfquery` names a LID only).
    pub(crate) hca: Option<String>,
    pub(crate) port: Option<u32>,
    /// The port's LID (`ibstat` `Base lid`, `perfquery` `Lid`): joins a `perfquery` to its port.
    pub(crate) lid: Option<u32>,
    pub(crate) identity: IbPort,
    /// The HCA's PCI function (a copied sysfs tree whose `device` link resolves): driver,
    /// address, PCIe link.
    pub(crate) driver: Option<String>,
    pub(crate) bus_info: Option<String>,
    pub(crate) pci: Option<PciLink>,
    pub(crate) link: Option<LinkInfo>,
    /// State and counters as read.
    pub(crate) sample: IbSample,
}

impl IbFragment {
    /// `mlx5_0/1`, when the device and port are known.
    pub(crate) fn name(&self) -> Option<String> {
        Some(format!("{}/{}", self.hca.as_ref()?, self.port?))
    }

    /// A reading: a state or counters (identity alone, `Link layer` and `Rate`, is not).
    pub(crate) fn is_reading(&self) -> bool {
        self.sample.state.is_some() || !self.sample.counters.is_empty()
    }
}

impl Fragment {
    /// True when the file describes the host rather than one interface (lspci, uptime, ip
    /// link, nvidia-smi topo -m, ibdev2netdev).
    pub(crate) fn is_host_wide(&self) -> bool {
        self.uptime_s.is_some()
            || !self.pci_devices.is_empty()
            || !self.netdev_links.is_empty()
            || !self.gpu_topology.is_empty()
            || !self.rdma_netdevs.is_empty()
            || self.kernel_log.is_some()
    }

    /// True when the only figures over time are a tool's latest FEC readings (Arista EOS:
    /// `crate::counters::FecReadings`), no running count besides their change counts.
    pub(crate) fn readings_only(&self) -> bool {
        let fec_readings_only = self.fec.as_ref().is_some_and(|f| {
            f.latest_readings.is_some()
                && f.corrected_blocks.is_empty()
                && f.uncorrectable_blocks.is_empty()
                && f.corrected_bits.is_empty()
                && f.histogram.is_empty()
        });
        fec_readings_only
            && self.driver_stats.is_empty()
            && self.pause.is_none()
            && self.link_state.as_ref().is_none_or(|l| l.down_events.is_none())
            && !self.ib_ports.iter().any(IbFragment::is_reading)
    }

    /// True when the file holds counters (a snapshot), not only identity or module data.
    pub(crate) fn has_counters(&self) -> bool {
        !self.driver_stats.is_empty()
            || self.fec.is_some()
            || self.pause.is_some()
            || self.link_state.as_ref().is_some_and(|l| l.down_events.is_some())
            || self.ib_ports.iter().any(IbFragment::is_reading)
    }
}

/// The most fields one port of an output keeps as printed ([`Fragment::printed_fields`]): real
/// mlxlink, amBER, NVUE and EOS outputs print at most a few hundred. A kept field costs about
/// 100 bytes however short its line, and a record past a capture line's 16 MiB is refused in
/// the end: 15 MB of `k:v` lines under one mlxlink section held 1.2 GB for 35 s first.
pub(crate) const MAX_PRINTED_FIELDS: usize = 4096;

/// Refuses an output once a port of it has more than [`MAX_PRINTED_FIELDS`] fields (`kept`).
pub(crate) fn printed_fields_fit(kept: usize) -> ParseResult<()> {
    if kept > MAX_PRINTED_FIELDS {
        return Err(ParseError::TooMany { what: "fields for one port: not a tool's output", max: MAX_PRINTED_FIELDS });
    }
    Ok(())
}

/// The longest section, column or key name a printed field's name is made of (mlxlink's
/// longest, `Time Since Last Clear [Min]`, is 27 bytes): a section's name is copied into each
/// of its fields' names, so a 1 MB title over 4,096 fields would hold 4 GB.
pub(crate) const MAX_FIELD_NAME_BYTES: usize = 128;

/// Refuses a section, column or key name (`name`, `what` it is) longer than [`MAX_FIELD_NAME_BYTES`].
pub(crate) fn field_name_fits(what: &str, name: &str) -> ParseResult<()> {
    if name.len() > MAX_FIELD_NAME_BYTES {
        let start: String = name.chars().take(24).collect();
        return Err(ParseError::malformed(format!(
            "a {what} of {} bytes (`{}`...): no tool's is longer than {MAX_FIELD_NAME_BYTES}",
            name.len(),
            start.escape_debug()
        )));
    }
    Ok(())
}

/// `key: value` split at the first `:` (values may contain more colons).
pub(crate) fn key_value(line: &str) -> Option<(&str, &str)> {
    let (k, v) = line.split_once(':')?;
    Some((k.trim(), v.trim()))
}

/// Lines that are not `#` comments (fixtures and runbooks annotate their files that way).
pub(crate) fn content_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|l| !l.trim_start().starts_with('#'))
}
