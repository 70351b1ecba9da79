//! Reading the inputs: a file is parsed by the format its content has; a directory is
//! walked (sorted, symlinks not followed), every file recognised by content, files of no
//! known format skipped and counted. The interface comes from the content, else from the
//! file name as sosreport writes it (`sos_commands/networking/ethtool_-S_ens3np0`).

use super::recognize::{recognize, Format};
use super::{
    ethtool_drvinfo, ethtool_fec, ethtool_link, ethtool_module, ethtool_stats, ib_tools, lspci, mlxlink_json, mlxlink_text, module_pages,
    uptime,
};
use super::{Fragment, ImportError, ParseError, ParseResult};
use crate::device::PciAddress;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Files larger than this are not tool outputs (bounded memory on a support bundle).
pub const MAX_FILE_BYTES: u64 = 16 << 20;
/// How deep a directory is walked.
const MAX_DEPTH: usize = 8;

/// One input file, recognised and parsed.
#[derive(Clone, Debug)]
pub struct ParsedFile {
    /// Where the file was read from.
    pub path: PathBuf,
    pub(crate) mtime: Option<SystemTime>,
    pub(crate) format: Format,
    pub(crate) fragment: Fragment,
    /// The interface the file's name gives (sosreport `ethtool_-S_IFACE`, `ethtool_IFACE`).
    pub(crate) name_interface: Option<String>,
}

impl ParsedFile {
    /// The file as one parsed file per port it names (a switch's table of ports), else itself.
    pub(crate) fn ports(&self) -> Vec<ParsedFile> {
        if self.fragment.ports.is_empty() {
            return vec![self.clone()];
        }
        let notes = &self.fragment.notes;
        self.fragment
            .ports
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let mut fragment = f.clone();
                // The file's own notes once, with its first port.
                if i == 0 {
                    fragment.notes.splice(0..0, notes.iter().cloned());
                }
                ParsedFile { path: self.path.clone(), mtime: self.mtime, format: self.format, fragment, name_interface: None }
            })
            .collect()
    }
}

/// Each input with a file of several runs (an amBER CSV's rows) as one input per run, in
/// order, as if each run had been given as its own argument: the input's other files stay
/// with its first run. Returns the inputs and their parsed files, index for index.
pub(crate) fn split_runs(inputs: &[PathBuf], files: Vec<Vec<ParsedFile>>) -> (Vec<PathBuf>, Vec<Vec<ParsedFile>>) {
    let (mut ins, mut out) = (Vec::new(), Vec::new());
    for (input, group) in inputs.iter().zip(files) {
        let mut first = Vec::new();
        let mut later: Vec<Vec<ParsedFile>> = Vec::new();
        for mut pf in group {
            let runs = std::mem::take(&mut pf.fragment.runs);
            if runs.is_empty() {
                first.push(pf);
                continue;
            }
            for (i, mut run) in runs.into_iter().enumerate() {
                if i == 0 {
                    // The file's own notes once, with its first run.
                    run.notes.splice(0..0, pf.fragment.notes.iter().cloned());
                }
                let one = ParsedFile { fragment: run, path: pf.path.clone(), name_interface: pf.name_interface.clone(), ..pf };
                match i {
                    0 => first.push(one),
                    _ => {
                        if later.len() < i {
                            later.resize_with(i, Vec::new);
                        }
                        later[i - 1].push(one);
                    }
                }
            }
        }
        ins.push(input.clone());
        out.push(first);
        for g in later {
            ins.push(input.clone());
            out.push(g);
        }
    }
    (ins, out)
}

/// `ethtool_-S_ens3np0` -> `ens3np0`; `ethtool_--show-fec_ens3np0` -> `ens3np0`;
/// `ethtool_-I_-a_ens3np0` -> `ens3np0` (every option); `ethtool_ens3np0` -> `ens3np0`.
/// sosreport writes its command outputs without an extension; a file saved by hand as
/// `ethtool_m.txt` or `ethtool_-S.log` names no interface (a VLAN's `bond0.100` still does).
pub(crate) fn interface_from_name(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    if path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["txt", "log", "out", "json", "text"].contains(&e.to_ascii_lowercase().as_str()))
    {
        return None;
    }
    let mut iface = name.strip_prefix("ethtool_")?;
    while iface.starts_with('-') {
        iface = iface.split_once('_')?.1;
    }
    (!iface.is_empty()).then(|| iface.to_string())
}

/// Parses `bytes` as `format` into what the file says in capture terms; an ethtool output
/// whose content names no interface takes the one its pasted command line names.
pub fn parse_bytes(format: Format, bytes: &[u8]) -> ParseResult<Fragment> {
    let mut f = parse_format(format, bytes)?;
    if f.interface.is_none() && format.is_ethtool_text() {
        f.interface = std::str::from_utf8(bytes).ok().and_then(super::paste::interface_from_command);
    }
    Ok(f)
}

fn parse_format(format: Format, bytes: &[u8]) -> ParseResult<Fragment> {
    let text = || std::str::from_utf8(bytes).map_err(|_| ParseError::syntax("not UTF-8 text"));
    match format {
        Format::MlxlinkJson => mlxlink_json::parse(text()?),
        Format::MlxlinkText => mlxlink_text::parse(text()?),
        Format::MlxlinkAmber => super::mlxlink_amber::parse(text()?),
        Format::EthtoolStats => ethtool_stats::parse_text(text()?),
        Format::EthtoolStatsJson => ethtool_stats::parse_json(text()?),
        Format::EthtoolFec => ethtool_fec::parse_text(text()?),
        Format::EthtoolFecJson => ethtool_fec::parse_json(text()?),
        Format::EthtoolLink => ethtool_link::parse(text()?),
        Format::EthtoolDrvinfo => ethtool_drvinfo::parse(text()?),
        Format::EthtoolRings => super::host_tools::parse_rings(text()?),
        Format::EthtoolChannels => super::host_tools::parse_channels(text()?),
        Format::IpLink => super::host_tools::parse_ip_link(text()?),
        Format::IpLinkJson => {
            let v: serde_json::Value = serde_json::from_str(text()?).map_err(ParseError::syntax)?;
            super::host_tools::parse_ip_link_json(&v)
        }
        Format::EthtoolPause => super::ethtool_pause::parse_text(text()?),
        Format::EthtoolPauseJson => {
            let v: serde_json::Value = serde_json::from_str(text()?).map_err(ParseError::syntax)?;
            super::ethtool_pause::parse_json(&v)
        }
        Format::NvidiaTopo => super::host_tools::parse_nvidia_topo(text()?),
        Format::Ibdev2netdev => super::host_tools::parse_ibdev2netdev(text()?),
        Format::Lspci => lspci::parse(text()?),
        Format::LspciTree => lspci::parse_tree(text()?),
        Format::ModulePages => module_pages::parse(bytes),
        Format::SfputilHexdump => module_pages::parse_sfputil(text()?),
        Format::EthtoolModuleText => ethtool_module::parse_text(text()?),
        Format::EthtoolModuleJson => ethtool_module::parse_json(text()?),
        Format::Uptime => uptime::parse_fragment(text()?),
        Format::KernelLog => super::kernel_log::parse(text()?),
        Format::SonicSfpshow => super::sonic_sfpshow::parse(text()?),
        Format::EosTransceiver => super::eos_transceiver::parse(text()?),
        Format::EosPhyJson => super::eos_phy::parse(text()?),
        Format::EosPhyText => super::eos_phy::parse_text(text()?),
        Format::JunosOptics => super::junos_optics::parse(text()?),
        Format::SonicTransceiverStatus => super::sonic_xcvr::parse_status(text()?),
        Format::SonicTransceiverPm => super::sonic_xcvr::parse_pm(text()?),
        Format::NvueTransceiver => super::nvue::parse_transceiver(text()?),
        Format::NvuePhyDetail => super::nvue::parse_phy_detail(text()?),
        Format::SonicFecStats => super::sonic_counters::parse_fec_stats(text()?),
        Format::SonicFecHistogram => super::sonic_counters::parse_fec_histogram(text()?),
        Format::LldpText => super::lldp::parse_text(text()?),
        Format::LldpKeyvalue => super::lldp::parse_keyvalue(text()?),
        Format::LldpJson => super::lldp::parse_json(text()?),
        Format::Ibstat => ib_tools::parse_ibstat(text()?).map(ib_fragment),
        Format::Ibstatus => ib_tools::parse_ibstatus(text()?).map(ib_fragment),
        Format::Perfquery => ib_tools::parse_perfquery(text()?).map(ib_fragment),
        Format::IbSysfs | Format::NetSysfs => Err(ParseError::refused("a copied sysfs tree is a directory", "give the folder")),
    }
}

fn ib_fragment(ports: Vec<super::IbFragment>) -> Fragment {
    Fragment { ib_ports: ports, ..Default::default() }
}

/// One parsed file per InfiniBand port: a file listing several ports (`ibstat`, a sysfs
/// tree) becomes one per port, named `hca/port`; a `perfquery` port (a LID and a port
/// number) takes the name of the port with that LID in an `ibstat`/`ibstatus` of the same
/// input, else the one its sosreport file name gives (`perfquery_-C_mlx5_0_-P_1`). An
/// `mlxlink` output joins the IB port of the same input its file name gives
/// (`mlxlink_port`), so its lanes, FEC histogram and module land on that port.
pub(crate) fn split_ib_ports(group: &[ParsedFile]) -> Vec<ParsedFile> {
    let by_lid: Vec<(u32, String)> = group.iter().flat_map(|pf| &pf.fragment.ib_ports).filter_map(|p| Some((p.lid?, p.name()?))).collect();
    let mut out = Vec::new();
    for pf in group {
        if pf.fragment.ib_ports.is_empty() {
            let mut pf = pf.clone();
            if let Some(name) = mlxlink_port(&pf, group) {
                pf.name_interface = Some(name);
            }
            out.push(pf);
            continue;
        }
        let file_port = pf.path.file_name().and_then(|n| n.to_str()).and_then(super::ib_tools::port_from_file_name);
        for port in &pf.fragment.ib_ports {
            let by_lid =
                port.lid.and_then(|lid| by_lid.iter().find(|(l, n)| *l == lid && port.port.is_none_or(|p| n.ends_with(&format!("/{p}")))));
            let name = port.name().or_else(|| by_lid.map(|(_, n)| n.clone())).or_else(|| file_port.clone());
            let mut port = port.clone();
            if let Some((hca, n)) = name.as_deref().and_then(crate::source::infiniband::parse_port_name) {
                port.hca = Some(hca.to_string());
                port.port = Some(n);
                port.identity.hca = hca.to_string();
                port.identity.port = n;
            }
            let address = port.bus_info.as_deref().and_then(|b| PciAddress::parse_domain_optional(b.trim()));
            let pci_devices = match (address, &port.pci) {
                (Some(address), Some(p)) => vec![lspci::PciFunction { link: Some(p.clone()), ..lspci::PciFunction::at(address) }],
                _ => Vec::new(),
            };
            let fragment = Fragment {
                interface: name,
                driver: port.driver.clone(),
                bus_info: port.bus_info.clone(),
                pci_devices,
                link: port.link.clone(),
                link_state: port.sample.link_up().map(|up| crate::counters::LinkState { up: Some(up), ..Default::default() }),
                ib_ports: vec![port],
                ..pf.fragment.clone()
            };
            out.push(ParsedFile { fragment, name_interface: None, ..pf.clone() });
        }
    }
    out
}

/// The IB port of `group` an `mlxlink` output (`pf`) that names no interface is of: the one
/// its sosreport file name gives, by RDMA device and port (`mlxlink_-d_mlx5_0_-p_1`) or by
/// the HCA's PCI function (`mlxlink_-d_0000_12_00.0`, where the input says the port's
/// address: a copied sysfs tree). `None` when the input has no such IB port (a RoCE port's
/// mlxlink stays with its netdev, as before).
fn mlxlink_port(pf: &ParsedFile, group: &[ParsedFile]) -> Option<String> {
    if !matches!(pf.format, Format::MlxlinkText | Format::MlxlinkJson) || pf.fragment.interface.is_some() || pf.name_interface.is_some() {
        return None;
    }
    let file = pf.path.file_name()?.to_str()?;
    let (device, port) = ib_tools::mlxlink_device_from_file_name(file)?;
    let ports = group.iter().flat_map(|g| &g.fragment.ib_ports);
    let found = ports.filter(|p| p.port == Some(port)).find(|p| match &device {
        ib_tools::MlxlinkDevice::Rdma(hca) => p.hca.as_deref() == Some(hca.as_str()),
        ib_tools::MlxlinkDevice::Pci(addr) => {
            p.bus_info.as_deref().and_then(|b| PciAddress::parse_domain_optional(b.trim())) == Some(*addr)
        }
    });
    found?.name()
}

/// The ports of a copied `class/infiniband` tree at `dir` (or under `dir` as a support
/// bundle keeps `/sys`: `sys/class/infiniband`, `class/infiniband`, `infiniband`), one
/// parsed file each, and the folder the tree's attribute files live in (`sys/` for a copy
/// of `/sys`, whose `devices/` hold them); `None` when there is no such tree there.
fn read_ib_tree(dir: &Path) -> Option<(PathBuf, Vec<ParsedFile>)> {
    let candidates = [
        (dir.to_path_buf(), dir.to_path_buf()),
        (dir.join("sys/class/infiniband"), dir.join("sys")),
        (dir.join("class/infiniband"), dir.join("class")),
        (dir.join("infiniband"), dir.join("infiniband")),
    ];
    for (class, holds) in candidates {
        let tree = crate::source::infiniband::IbTree::at_class(&class);
        let ports = tree.all_ports();
        if ports.is_empty() {
            continue;
        }
        let mut fragments = Vec::new();
        for (hca, port) in ports {
            let name = format!("{hca}/{port}");
            let (Ok(id), Ok(sample)) = (tree.identity(&name), tree.sample(&name)) else { continue };
            let Some(identity) = id.ib else { continue };
            fragments.push(super::IbFragment {
                hca: Some(hca),
                port: Some(port),
                lid: None,
                link: tree.link_info(&name).ok(),
                identity,
                driver: id.driver,
                bus_info: id.bus_info,
                pci: id.pci,
                sample,
            });
        }
        let mtime = std::fs::metadata(&class).ok().and_then(|m| m.modified().ok());
        let pf = ParsedFile { path: class, mtime, format: Format::IbSysfs, fragment: ib_fragment(fragments), name_interface: None };
        return Some((holds, vec![pf]));
    }
    None
}

/// At most [`MAX_FILE_BYTES`] of `path`: the size the file claims is not trusted
/// (`/dev/zero` and `/proc/self/pagemap` claim 0 and never end).
fn read_bounded(path: &Path) -> Result<Vec<u8>, ImportError> {
    let io = |source| ImportError::Io { path: path.to_path_buf(), source };
    let file = std::fs::File::open(path).map_err(io)?;
    read_at_most(file, MAX_FILE_BYTES).map_err(io)?.ok_or_else(|| too_large(path))
}

/// All of `r` when it holds at most `max` bytes; `None` as soon as it holds more (never
/// more than 64 kB past `max` is held). Whole 64 kB reads: /proc/self/pagemap refuses a
/// read that is not a multiple of its 8-byte records (EINVAL), which a read cut to the
/// bound would be.
pub fn read_at_most(mut r: impl std::io::Read, max: u64) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    let mut chunk = vec![0u8; 64 << 10];
    loop {
        let n = match r.read(&mut chunk) {
            Ok(0) => return Ok(Some(bytes)),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        bytes.extend_from_slice(&chunk[..n]);
        if bytes.len() as u64 > max {
            return Ok(None);
        }
    }
}

fn too_large(path: &Path) -> ImportError {
    ImportError::Input(format!("{}: longer than {MAX_FILE_BYTES} bytes (16 MiB), too large for a tool output", path.display()))
}

/// Parses one file; `None` when its format is not known.
pub(crate) fn parse_file(path: &Path) -> Result<Vec<ParsedFile>, ImportError> {
    let bytes = read_bounded(path)?;
    parse_read(path, &bytes)
}

/// Parses a file already read (once: a pipe cannot be read again): one parsed file, or one
/// per command of a paste of several (`source/import/paste.rs`); none when no format is known.
pub fn parse_read(path: &Path, bytes: &[u8]) -> Result<Vec<ParsedFile>, ImportError> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(path));
    }
    // Regular files only: a pipe's time is now, not when its content was taken.
    let mtime = std::fs::metadata(path).ok().filter(|m| m.is_file()).and_then(|m| m.modified().ok());
    let one = |bytes: &[u8]| -> Result<Option<ParsedFile>, ImportError> {
        let Some(format) = recognize(bytes) else { return Ok(None) };
        let fragment =
            parse_bytes(format, bytes).map_err(|detail| ImportError::Parse { path: path.to_path_buf(), format: format.name(), detail })?;
        Ok(Some(ParsedFile { path: path.to_path_buf(), mtime, format, fragment, name_interface: interface_from_name(path) }))
    };
    let Some(sections) = std::str::from_utf8(bytes).ok().and_then(super::paste::sections) else {
        return Ok(one(bytes)?.into_iter().collect());
    };
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for section in sections {
        match one(section.as_bytes())? {
            Some(p) => out.push(p),
            None => skipped.push(section.lines().next().unwrap_or_default().trim()),
        }
    }
    if let (Some(first), false) = (out.first_mut(), skipped.is_empty()) {
        first.fragment.notes.push(format!("the output of {} is of no known format: skipped", skipped.join(", ")));
    }
    Ok(out)
}

/// The regular files under `dir` (sorted, symlinks not followed); those over
/// [`MAX_FILE_BYTES`] go to `large`.
fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>, large: &mut Vec<PathBuf>) -> Result<(), ImportError> {
    let io = |source| ImportError::Io { path: dir.to_path_buf(), source };
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).map_err(io)?.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        let Ok(meta) = std::fs::symlink_metadata(&p) else { continue };
        if meta.is_dir() && depth < MAX_DEPTH {
            walk(&p, depth + 1, out, large)?;
        } else if meta.is_file() && meta.len() <= MAX_FILE_BYTES {
            out.push(p);
        } else if meta.is_file() {
            large.push(p);
        }
    }
    Ok(())
}

/// The format of a file too large to import, told from its first 64 kB (a recognised
/// output over the bound is said to be skipped, not dropped in silence).
fn format_of_start(path: &Path) -> Option<Format> {
    use std::io::Read;
    let mut head = Vec::new();
    std::fs::File::open(path).ok()?.take(1 << 16).read_to_end(&mut head).ok()?;
    recognize(&head)
}

/// The parsed files of one input argument. A file of no known format is an error; in a
/// directory such files are skipped and counted in `notes`.
pub fn read_input(path: &Path, notes: &mut Vec<String>) -> Result<Vec<ParsedFile>, ImportError> {
    let meta = std::fs::metadata(path).map_err(|source| ImportError::Io { path: path.to_path_buf(), source })?;
    if !meta.is_dir() {
        let parsed = parse_file(path)?;
        if parsed.is_empty() {
            return Err(ImportError::Unrecognised { path: path.to_path_buf() });
        }
        return Ok(parsed);
    }
    let (mut files, mut large) = (Vec::new(), Vec::new());
    walk(path, 0, &mut files, &mut large)?;
    let mut out = Vec::new();
    // A copied sysfs tree is read as a tree, its attribute files not one by one.
    if let Some((holds, ports)) = read_ib_tree(path) {
        files.retain(|f| !f.starts_with(&holds));
        large.retain(|f| !f.starts_with(&holds));
        out.extend(ports);
    }
    if let Some(sys) = super::sysfs_tree::find_sys(path) {
        // Its attribute files are the tree's; tool outputs beside them are read as ever.
        let tree = |f: &PathBuf| super::sysfs_tree::TREE_DIRS.iter().any(|d| f.starts_with(sys.join(d)));
        files.retain(|f| !tree(f));
        large.retain(|f| !tree(f));
        out.extend(super::sysfs_tree::read(&sys));
    }
    let mut skipped = 0usize;
    for f in &large {
        match format_of_start(f) {
            Some(format) => notes.push(format!(
                "{}: {} output of more than {MAX_FILE_BYTES} bytes (16 MiB), the most one is read: skipped",
                f.display(),
                format.name()
            )),
            None => skipped += 1,
        }
    }
    for f in &files {
        // An unreadable file in a bundle (a root-only file in a sosreport) says nothing
        // about the links: a note, not the end of the import.
        let bytes = match read_bounded(f) {
            Ok(b) => b,
            Err(ImportError::Io { source, .. }) => {
                notes.push(format!("{}: unreadable ({source}): skipped", f.display()));
                continue;
            }
            Err(e) => return Err(e),
        };
        let parsed = parse_read(f, &bytes)?;
        if parsed.is_empty() {
            skipped += 1;
        }
        out.extend(parsed);
    }
    files.extend(large);
    if out.is_empty() {
        return Err(ImportError::Input(format!(
            "{}: no file in it is a format optics import reads ({} files looked at)",
            path.display(),
            files.len()
        )));
    }
    if skipped > 0 {
        notes.push(format!("{}: {skipped} file(s) of no known format skipped", path.display()));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sosreport_names() {
        assert_eq!(interface_from_name(Path::new("sos_commands/networking/ethtool_-S_ens3np0")).as_deref(), Some("ens3np0"));
        assert_eq!(interface_from_name(Path::new("ethtool_--show-fec_ens3np0")).as_deref(), Some("ens3np0"));
        assert_eq!(interface_from_name(Path::new("ethtool_ens3np0")).as_deref(), Some("ens3np0"));
        assert_eq!(interface_from_name(Path::new("ethtool_-I_-a_ens3np0")).as_deref(), Some("ens3np0"));
        assert_eq!(interface_from_name(Path::new("counters.baseline")), None);
        assert_eq!(interface_from_name(Path::new("ethtool_m.txt")), None);
        assert_eq!(interface_from_name(Path::new("ethtool_-S_eth0.LOG")), None);
        assert_eq!(interface_from_name(Path::new("ethtool_-S_bond0.100")).as_deref(), Some("bond0.100"));
    }
}
