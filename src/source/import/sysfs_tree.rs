//! A copied sysfs tree (docs/import.md "A copied sysfs tree"): the `/sys/class/net/*` and
//! `/sys/bus/pci/devices/*` files a support bundle keeps, read by the live reader
//! ([`Sysfs::copy_at`]) so an import gets the host facts a live run would, marked imported.
//!
//! What a bundle keeps: sos (`sos/report/plugins/networking.py`) copies
//! `/sys/class/net/*/device/numa_node`, `flags` and `statistics/`, and (`numa.py`)
//! `/sys/devices/system/node/node*/cpulist`; NVIDIA's doca-sosreport adds the function's
//! `vendor`, `device`, `class`, `local_cpulist`, `current_link_speed/width`,
//! `max_link_speed/width` and `uevent`. sos keeps each path's symlinks on its way
//! (`sos/archive.py` `_make_leading_paths`), so `class/net/IF` still links into
//! `devices/`, where the function's place below its bridges is. A hand-made copy (`cp -r`)
//! may hold `mtu`, `operstate`, `speed`, a dangling `device` link (or a file holding
//! `readlink -f` of it) and `bus/pci/devices/*` as directories of their own; the reader
//! finds a function by its address there.

use super::recognize::Format;
use super::walk::ParsedFile;
use super::Fragment;
use crate::counters::{LinkInfo, LinkState};
use crate::device::PciAddress;
use crate::source::sysfs::Sysfs;
use std::path::{Path, PathBuf};

/// The folders of a `/sys` copy the reader takes as the tree (their files are not tool
/// outputs): `class/net` and `class/infiniband`, `bus/pci/devices` and `devices`, where
/// both link into.
pub(crate) const TREE_DIRS: &[&str] = &["class", "bus", "devices"];

/// Where a copy of `/sys` is under `dir`: `dir/sys` (a sosreport, which keeps every path
/// under its root), or `dir` itself when it holds `class/net` or `bus/pci/devices` (a copy
/// of `/sys` under any name).
pub(crate) fn find_sys(dir: &Path) -> Option<PathBuf> {
    let is_sys = |d: &Path| d.join("class/net").is_dir() || d.join("bus/pci/devices").is_dir();
    [dir.join("sys"), dir.to_path_buf()].into_iter().find(|d| is_sys(d))
}

/// One parsed file per netdev of the copy at `sys` that sits on a device (a `device`
/// entry: virtual netdevs, `lo`, bridges and bonds, carry no host facts of a NIC), named by
/// the netdev, with the host facts the live reader finds there marked imported, its
/// driver, PCI address and PCIe link, and its `operstate` and `speed` when kept.
pub(crate) fn read(sys: &Path) -> Vec<ParsedFile> {
    let s = Sysfs::copy_at(sys);
    let mut out = Vec::new();
    let netdevs: Vec<String> = s.interfaces().into_iter().filter(|n| !s.is_virtual(n)).collect();
    // Each netdev holds its own copy of the node's GPUs (read once: `Sysfs::copy_at`).
    let gpus = s.gpus();
    let mut too_many = super::build::too_many_gpu_copies(netdevs.len(), gpus.as_ref().map_or(0, Vec::len));
    if gpus.is_none() && sys.join("bus/pci/devices").is_dir() {
        too_many = Some(format!(
            "bus/pci/devices lists more than {} GPUs or {} functions, no host's: GPU locality not checked",
            crate::device::host::MAX_GPUS,
            crate::source::sysfs::MAX_PCI_FUNCTIONS
        ));
    }
    let drop_gpus = too_many.is_some();
    for name in netdevs {
        let Some(mut host) = s.host_facts(&name) else { continue };
        if drop_gpus {
            host.gpus = None;
        }
        let dir = sys.join("class/net").join(&name);
        let bus_info = s.bus_info(&name);
        let pci = s.pci_link(&name);
        let up = s.netdev_attr(&name, "operstate").and_then(|o| operstate_up(&o)).or_else(|| s.carrier(&name));
        let speed_mbps =
            s.netdev_attr(&name, "speed").and_then(|v| v.parse::<i64>().ok()).and_then(|v| u32::try_from(v).ok()).filter(|v| *v > 0);
        let mut fragment = Fragment {
            interface: Some(name.clone()),
            driver: s.driver(&name),
            pci_devices: bus_info
                .as_deref()
                .and_then(PciAddress::parse)
                .zip(pci)
                .map(|(address, p)| super::lspci::PciFunction { link: Some(p), ..super::lspci::PciFunction::at(address) })
                .into_iter()
                .collect(),
            bus_info,
            link: speed_mbps.map(|v| LinkInfo { speed_mbps: Some(v), ..LinkInfo::default() }),
            link_state: up.map(|up| LinkState { up: Some(up), ..LinkState::default() }),
            host: host.imported(),
            ..Fragment::default()
        };
        // Said once, with the first netdev.
        fragment.notes.extend(too_many.take());
        let mtime = std::fs::metadata(&dir).ok().and_then(|m| m.modified().ok());
        out.push(ParsedFile { path: dir, mtime, format: Format::NetSysfs, fragment, name_interface: None });
    }
    out
}

/// RFC 2863 `ifOperStatus` as `operstate` prints it (Documentation/ABI/testing/sysfs-class-net):
/// `up` is up; `down`, `lowerlayerdown` and `notpresent` are down; `unknown`, `testing` and
/// `dormant` say nothing of the carrier.
fn operstate_up(state: &str) -> Option<bool> {
    match state {
        "up" => Some(true),
        "down" | "lowerlayerdown" | "notpresent" => Some(false),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operstates_read_as_the_abi_lists_them() {
        let got: Vec<Option<bool>> =
            ["up", "down", "lowerlayerdown", "notpresent", "unknown", "testing", "dormant", "UP"].iter().map(|s| operstate_up(s)).collect();
        assert_eq!(got, [Some(true), Some(false), Some(false), Some(false), None, None, None, None]);
    }
}
