//! lspci (pciutils) outputs. The listing — `lspci`, `-nn`, `-v`, `-vvv`, `-D` — starts each
//! device at column 0 with its address, class and name (`3b:00.0 Ethernet controller
//! [0200]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]`); under it `-v`
//! prints `NUMA node: N` (`-v`: `Flags: ..., NUMA node N`) and `-vv` the PCI Express
//! capability's `LnkCap: Port #0, Speed 16GT/s, Width x16, ...` (what it can do) and
//! `LnkSta: Speed 16GT/s (ok), Width x8 (downgraded)` (what it trained to), which become
//! the sysfs-shaped [`PciLink`] (`current_link_speed` "16.0 GT/s PCIe") the live source
//! records. The tree, `lspci -t[v]` (ls-tree.c), gives each function's place: its host
//! bridge (`[0000:20]`), the bridges above it and the function, as the sysfs source
//! records it below `/sys/devices`. The two join by address.

use super::{content_lines, Fragment, ParseError, ParseResult};
use crate::device::host::{is_gpu, Fact, Gpu, HostFacts, MAX_GPUS};
use crate::device::{PciAddress, PciBus, PciLink};
use std::collections::BTreeMap;

/// One PCI function as lspci prints it; what the output does not print is `None` / empty.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct PciFunction {
    /// The function's address (domain 0 where lspci prints none).
    pub(crate) address: PciAddress,
    pub(crate) link: Option<PciLink>,
    /// `NUMA node: N`; the kernel's -1 (no affinity known) is none.
    pub(crate) numa_node: Option<i32>,
    /// `vendor:device`, lower-case hex, where `-n` / `-nn` prints it.
    pub(crate) pci_id: Option<String>,
    /// A display, 3D or processing-accelerator function of NVIDIA, AMD or Intel.
    pub(crate) gpu: bool,
    /// From the tree: host bridge (`pci0000:20`), each bridge, the function.
    pub(crate) path: Vec<String>,
}

impl PciFunction {
    /// The function at `address`, nothing known of it yet.
    pub(crate) fn at(address: PciAddress) -> PciFunction {
        PciFunction { address, link: None, numa_node: None, pci_id: None, gpu: false, path: Vec::new() }
    }

    /// `other`'s facts where this one has none (the listing and the tree of one node).
    fn fill_from(&mut self, other: &PciFunction) {
        if self.link.is_none() {
            self.link.clone_from(&other.link);
        }
        self.numa_node = self.numa_node.or(other.numa_node);
        if self.pci_id.is_none() {
            self.pci_id.clone_from(&other.pci_id);
        }
        self.gpu |= other.gpu;
        if self.path.is_empty() {
            self.path.clone_from(&other.path);
        }
    }
}

/// `Speed 16GT/s` -> "16.0 GT/s PCIe" (sysfs text); `Width x16` -> 16.
fn speed_width(rest: &str) -> (Option<String>, Option<u32>) {
    let mut speed = None;
    let mut width = None;
    for part in rest.split(',').map(str::trim) {
        if let Some(s) = part.strip_prefix("Speed ") {
            let gts = s.split_whitespace().next().unwrap_or("").trim_end_matches("GT/s");
            speed = gts.parse::<f64>().ok().map(|v| format!("{v:.1} GT/s PCIe"));
        } else if let Some(w) = part.strip_prefix("Width x") {
            width = w.split_whitespace().next().and_then(|w| w.parse().ok());
        }
    }
    (speed, width)
}

fn is_hex(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|c| c.is_ascii_hexdigit())
}

/// The class and subclass of a class name as pci.ids names it (what lspci prints without
/// `-n`; PCI Code and ID Assignment Spec 1.16 §1.4, §1.19), for the GPU classes only.
fn gpu_class_code(name: &str) -> Option<u32> {
    Some(match name {
        "VGA compatible controller" => 0x0300,
        "3D controller" => 0x0302,
        "Display controller" => 0x0380,
        "Processing accelerators" => 0x1200,
        _ => return None,
    })
}

/// The vendor ID of a GPU maker's name as pci.ids spells it (the AMD GPU vendor is ATI's
/// 1002, `[AMD/ATI]`; 1022 `[AMD]` makes CPUs and chipsets).
fn gpu_vendor_id(name: &str) -> Option<u32> {
    [("NVIDIA Corporation", 0x10de), ("Advanced Micro Devices, Inc. [AMD/ATI]", 0x1002), ("Intel Corporation", 0x8086)]
        .into_iter()
        .find(|(n, _)| name.starts_with(n))
        .map(|(_, id)| id)
}

/// A device's first line: address, class (`VGA compatible controller`, with `-nn`
/// `... [0300]`) and the rest (vendor and device names, `[10de:2684]` with `-nn`, `(rev a1)`).
fn header(line: &str) -> Option<(PciAddress, &str, &str)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let (addr, rest) = line.split_once(' ')?;
    let (class, rest) = rest.split_once(": ")?;
    Some((PciAddress::parse_domain_optional(addr)?, class.trim(), rest.trim()))
}

/// The last `[hhhh:hhhh]` of a header: the vendor and device ID `-nn` prints.
fn printed_id(rest: &str) -> Option<String> {
    rest.rmatch_indices('[').find_map(|(i, _)| {
        let inner = rest[i + 1..].split_once(']')?.0;
        let (v, d) = inner.split_once(':')?;
        (is_hex(v, 4) && is_hex(d, 4)).then(|| inner.to_ascii_lowercase())
    })
}

/// A function from its header line.
fn function_of(address: PciAddress, class: &str, rest: &str) -> PciFunction {
    let pci_id = printed_id(rest);
    // `-nn` prints the class code after its name: `Ethernet controller [0200]`.
    let class_code = match class.rsplit_once(" [") {
        Some((_, code)) if code.len() == 5 && code.ends_with(']') && is_hex(&code[..4], 4) => u32::from_str_radix(&code[..4], 16).ok(),
        _ => gpu_class_code(class),
    };
    let vendor = match &pci_id {
        Some(id) => u32::from_str_radix(&id[..4], 16).ok(),
        None => gpu_vendor_id(rest),
    };
    let gpu = matches!((vendor, class_code), (Some(v), Some(c)) if is_gpu(v, c));
    PciFunction { pci_id, gpu, ..PciFunction::at(address) }
}

/// The listing (`lspci`, `-nn`, `-v`, `-vvv`): every function with something to tell (a
/// PCIe link, a NUMA node, an ID, or being a GPU).
pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut found: Vec<PciFunction> = Vec::new();
    let mut cur: Option<PciFunction> = None;
    let tells = |f: &PciFunction| f.link.is_some() || f.numa_node.is_some() || f.pci_id.is_some() || f.gpu;
    for line in content_lines(text) {
        if let Some((addr, class, rest)) = header(line) {
            found.extend(cur.take().filter(tells));
            cur = Some(function_of(addr, class, rest));
            continue;
        }
        let Some(f) = cur.as_mut() else { continue };
        let t = line.trim();
        let numa =
            t.strip_prefix("NUMA node:").or_else(|| t.strip_prefix("Flags:").and_then(|f| f.split_once("NUMA node").map(|(_, n)| n)));
        if let Some(n) = numa {
            let n = n
                .trim()
                .parse::<i32>()
                .map_err(|_| ParseError::malformed(format!("`NUMA node {}` is not a node", n.trim())).at(f.address))?;
            f.numa_node = (n >= 0).then_some(n);
        } else if let Some(rest) = t.strip_prefix("LnkCap:") {
            let link = f.link.get_or_insert_with(PciLink::default);
            (link.max_link_speed, link.max_link_width) = speed_width(rest);
        } else if let Some(rest) = t.strip_prefix("LnkSta:") {
            let link = f.link.get_or_insert_with(PciLink::default);
            (link.current_link_speed, link.current_link_width) = speed_width(rest);
        }
    }
    found.extend(cur.filter(tells));
    if found.is_empty() {
        return Err(ParseError::missing("device with a PCIe link (LnkCap/LnkSta), NUMA node, [vendor:device] ID or GPU class"));
    }
    Ok(Fragment { pci_devices: found, ..Fragment::default() })
}

/// Is `text` an lspci listing: device lines at column 0 (`ADDR CLASS: NAME`), and every
/// line at column 0 one of them; or, as pasted without them, `LnkCap:` / `LnkSta:` lines?
pub(crate) fn is_listing(text: &str) -> bool {
    let heads: Vec<&str> = content_lines(text).filter(|l| !l.trim().is_empty() && !l.starts_with(char::is_whitespace)).collect();
    let listing = !heads.is_empty() && heads.iter().all(|l| header(l).is_some());
    listing || content_lines(text).map(str::trim).any(|l| l.starts_with("LnkCap:") || l.starts_with("LnkSta:"))
}

/// `[dddd:bb]` at byte `i` (ls-tree.c `show_tree_bus`: `"[%04x:%02x]"`, so a VMD domain
/// prints five digits, `[10000:e0]`): the bus, and the byte after `]`.
fn root_at(line: &str, i: usize) -> Option<(PciBus, usize)> {
    let inner = line.get(i..)?.strip_prefix('[')?;
    let close = inner.get(..inner.len().min(14))?.find(']')?;
    Some((PciBus::parse(&inner[..close])?, i + 1 + close + 1))
}

/// The most path entries (host bridge, bridges, function) a tree's functions may hold
/// between them: 65,536 functions 16 deep (about 50 MB).
const MAX_TREE_PLACES: usize = 1 << 20;

/// `dd.f` at byte `i`, ending the line or followed by a space or a connector.
fn device_at(line: &str, i: usize) -> bool {
    let b = line.as_bytes();
    // By bytes: a multi-byte character in the four must fail the test, not split a slice.
    line.get(i..i + 4)
        .is_some_and(|s| s.get(..2).is_some_and(|d| is_hex(d, 2)) && s.as_bytes()[2] == b'.' && (b'0'..=b'7').contains(&s.as_bytes()[3]))
        && b.get(i + 4).is_none_or(|c| *c == b' ' || *c == b'-')
}

/// The byte where a branch's first child starts, past the connectors `-`, `+`, `\`.
fn past_connectors(line: &str, mut i: usize) -> usize {
    let b = line.as_bytes();
    while b.get(i).is_some_and(|c| matches!(c, b'-' | b'+' | b'\\')) {
        i += 1;
    }
    i
}

/// `lspci -t` / `-tv` (ls-tree.c `show_tree_dev`): a host bridge `[dddd:bb]`, under it each
/// device `dd.f`, a bridge followed by its bus range `-[ss-ee]` and its children. Children
/// of one bus start in one column, on the bridge's line and the lines below it (the tree is
/// printed depth first), so the bus and the path of each column are kept as the lines pass.
pub(crate) fn parse_tree(text: &str) -> ParseResult<Fragment> {
    // Column -> (the bus of the devices that start there, the path above them).
    let mut columns: BTreeMap<usize, (PciBus, Vec<String>)> = BTreeMap::new();
    let mut found = Vec::new();
    // Each function holds its whole path: bridges nested on one line (`-01.0-[01]-+-01.0-[01]..`,
    // 10 bytes a level) would hold paths quadratic in the line. A host's tree holds some
    // thousand functions a few bridges deep.
    let mut places = 0usize;
    for line in content_lines(text) {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if let Some((bus, end)) = root_at(line, i) {
                let child = past_connectors(line, end);
                columns.insert(child, (bus, vec![format!("pci{bus}")]));
                i = child;
                continue;
            }
            if i == 0 || b[i - 1] != b'-' || !device_at(line, i) {
                i += 1;
                continue;
            }
            let (bus, above) = columns.get(&i).cloned().ok_or_else(|| {
                ParseError::malformed(format!("device {} under no bus", &line[i..i + 4])).at(format_args!("`{}`", line.trim()))
            })?;
            let address = bus.function(&line[i..i + 4]).ok_or_else(|| {
                ParseError::malformed(format!("`{}` is no device.function", &line[i..i + 4])).at(format_args!("`{}`", line.trim()))
            })?;
            let mut path = above;
            path.push(address.to_string());
            places += path.len();
            if places > MAX_TREE_PLACES {
                return Err(ParseError::TooMany {
                    what: "places of functions below their bridges (a host's tree holds far fewer)",
                    max: MAX_TREE_PLACES,
                });
            }
            i += 4;
            let Some(range) = line[i..].strip_prefix("-[") else {
                found.push(PciFunction { path, ..PciFunction::at(address) });
                break; // the rest of the line is the device's name
            };
            // A bridge: its children are on its secondary bus, the first of the range.
            let close =
                range.find(']').ok_or_else(|| ParseError::malformed("bus range not closed").at(format_args!("`{}`", line.trim())))?;
            let secondary = range[..close].split('-').next().unwrap_or_default();
            let secondary = Some(secondary)
                .filter(|s| is_hex(s, 2))
                .and_then(|s| u8::from_str_radix(s, 16).ok())
                .map(|n| PciBus { bus: n, ..bus })
                .ok_or_else(|| ParseError::malformed(format!("`{secondary}` is no bus number")).at(format_args!("`{}`", line.trim())))?;
            let child = past_connectors(line, i + 2 + close + 1);
            if child < b.len() {
                columns.insert(child, (secondary, path.clone()));
            }
            found.push(PciFunction { path, ..PciFunction::at(address) });
            i = child;
        }
    }
    if found.is_empty() {
        return Err(ParseError::missing("`[dddd:bb]` host bridge with devices under it"));
    }
    Ok(Fragment { pci_devices: found, ..Fragment::default() })
}

/// Is `text` an `lspci -t[v]` tree (it starts at a host bridge, `-[0000:00]-` or
/// `-+-[0000:00]-+-`)?
pub(crate) fn is_tree(text: &str) -> bool {
    let first = content_lines(text).map(str::trim).find(|l| !l.is_empty()).unwrap_or_default();
    let start = first.trim_start_matches(['-', '+']);
    first.starts_with('-') && root_at(start, 0).is_some()
}

/// The functions of one node's lspci outputs by address, the listing's facts and the
/// tree's places merged.
pub(crate) fn by_address<'a>(all: impl IntoIterator<Item = &'a PciFunction>) -> BTreeMap<PciAddress, PciFunction> {
    let mut out: BTreeMap<PciAddress, PciFunction> = BTreeMap::new();
    for f in all {
        out.entry(f.address).and_modify(|have| have.fill_from(f)).or_insert_with(|| f.clone());
    }
    out
}

/// The node's GPUs as the listing names them, worked out once for every NIC of the input.
pub(crate) fn gpus(all: &BTreeMap<PciAddress, PciFunction>, notes: &mut Vec<String>) -> Vec<Gpu> {
    // Every interface on a listed NIC gets its own copy: 5,000 GPUs for 1,000 switch ports
    // held 1.7 GB. More than a host holds is no host's listing: GPU locality left unchecked.
    let listed = all.values().filter(|f| f.gpu).count();
    if listed > MAX_GPUS {
        notes.push(format!("lspci lists {listed} GPUs, more than one host's {MAX_GPUS}: GPU locality not checked"));
        return Vec::new();
    }
    all.values()
        .filter(|f| f.gpu)
        .map(|f| Gpu {
            bus_info: f.address.to_string(),
            pci_id: f.pci_id.clone(),
            numa_node: f.numa_node,
            pci_path: f.path.clone(),
            distance: None,
        })
        .collect()
}

/// The host facts lspci gives the NIC at `nic` (where none are known yet): its NUMA node,
/// PCI ID and place, and the node's `gpus` ([`gpus`]).
pub(crate) fn fill_host(h: &mut HostFacts, nic: &PciFunction, gpus: &[Gpu]) {
    if h.numa_node.is_none() {
        h.numa_node = nic.numa_node.map(Fact::import);
    }
    if h.pci_id.is_none() {
        h.pci_id = nic.pci_id.clone().map(Fact::import);
    }
    if h.pci_path.is_none() && !nic.path.is_empty() {
        h.pci_path = Some(Fact::import(nic.path.clone()));
    }
    // GPUs only where the listing names some: a listing of a few devices (`lspci -vvv -s`)
    // says nothing of the GPUs it leaves out, so none found is not "no GPUs".
    if h.gpus.is_none() && !gpus.is_empty() {
        h.gpus = Some(Fact::import(gpus.to_vec()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_of_more_gpus_than_a_host_holds_gives_none() {
        let listing = |n: usize| -> BTreeMap<PciAddress, PciFunction> {
            (0..n)
                .map(|i| {
                    let a = PciAddress::parse(&format!("0000:{:02x}:{:02x}.0", 1 + i / 32, i % 32)).unwrap();
                    (a, PciFunction { gpu: true, ..PciFunction::at(a) })
                })
                .collect()
        };
        let mut notes = Vec::new();
        assert_eq!(gpus(&listing(MAX_GPUS), &mut notes).len(), MAX_GPUS);
        assert!(notes.is_empty());
        assert!(gpus(&listing(MAX_GPUS + 1), &mut notes).is_empty());
        assert_eq!(notes, ["lspci lists 257 GPUs, more than one host's 256: GPU locality not checked"]);
    }

    #[test]
    fn bridges_nested_without_end_on_one_line_are_refused_not_held() {
        // 5,000 levels in 60 kB: 12.5M path entries, 2 GB, before the bound.
        let line = format!("-[0000:00]-{}+-02.0\n", "+-01.0-[01]-".repeat(5000));
        let e = parse_tree(&line).unwrap_err().to_string();
        assert!(e.contains("places of functions"), "{e}");
        assert_eq!(parse_tree("-[0000:00]-+-01.0-[01]--+-00.0\n").unwrap().pci_devices.len(), 2);
    }

    #[test]
    fn capable_vs_trained() {
        // Layout of lspci -vvv (pciutils ls-caps.c cap_express_link): a bridge, then the NIC
        // trained at half width.
        let text = "00:01.0 PCI bridge: Intel Corporation Device 1234\n\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n\
                    \t\tLnkCap:\tPort #1, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us\n\
                    \t\tLnkSta:\tSpeed 16GT/s, Width x16\n\
                    3b:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\
                    \tSubsystem: Mellanox Technologies Device 0026\n\
                    \tNUMA node: 1\n\
                    \tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\
                    \t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n\
                    \t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x8 (downgraded)\n";
        let f = parse(text).unwrap();
        assert_eq!(f.pci_devices.len(), 2);
        let nic = &f.pci_devices[1];
        assert_eq!((nic.address.to_string().as_str(), nic.numa_node, nic.gpu), ("0000:3b:00.0", Some(1), false));
        let link = nic.link.as_ref().unwrap();
        assert_eq!(link.max_link_speed.as_deref(), Some("32.0 GT/s PCIe"));
        assert_eq!((link.max_link_width, link.current_link_width), (Some(16), Some(8)));
        assert_eq!(link.current_link_speed.as_deref(), Some("16.0 GT/s PCIe"));
    }

    /// `-nn` headers (pciutils lspci.c: the class code after the class name, the IDs after
    /// the device name, `(rev ..)` last) and `-v`'s `Flags:` NUMA node; a GPU by class and
    /// vendor (NVIDIA VGA, AMD/ATI accelerator), not an ASPEED VGA or a GPU's audio function.
    #[test]
    fn ids_numa_and_gpus() {
        let text = "0000:01:00.0 VGA compatible controller [0300]: NVIDIA Corporation AD102 [GeForce RTX 4090] [10de:2684] (rev a1)\n\
                    0002:01:00.1 Ethernet controller [0200]: Mellanox Technologies MT2910 Family [ConnectX-7] [15b3:1021]\n\
                    \tFlags: bus master, fast devsel, latency 0, IRQ 255, NUMA node 1\n\
                    75:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family (rev 52)\n\
                    c1:00.0 Processing accelerators: Advanced Micro Devices, Inc. [AMD/ATI] Aqua Vanjaram [Instinct MI300X]\n\
                    01:00.1 Audio device: NVIDIA Corporation AD102 High Definition Audio Controller (rev a1)\n";
        let f = parse(text).unwrap();
        let got: Vec<(String, Option<&str>, Option<i32>, bool)> =
            f.pci_devices.iter().map(|d| (d.address.to_string(), d.pci_id.as_deref(), d.numa_node, d.gpu)).collect();
        assert_eq!(
            got,
            [
                ("0000:01:00.0".into(), Some("10de:2684"), None, true),
                ("0002:01:00.1".into(), Some("15b3:1021"), Some(1), false),
                ("0000:c1:00.0".into(), None, None, true),
            ]
        );
        assert!(is_listing(text) && !is_listing("2: eth0: <BROADCAST> mtu 1500\n"));
        // `lspci | grep` of NVMe drives behind VMD, real lines from an SPDK bug report
        // (https://github.com/spdk/spdk/issues/1055): five-digit domains.
        let vmd = "10001:02:00.0 Non-Volatile memory controller: Intel Corporation PCIe Data Center SSD (rev 01)\n";
        assert_eq!(header(vmd.trim_end()).map(|h| h.0.to_string()).as_deref(), Some("10001:02:00.0"));
        assert!(is_listing(vmd));
        // A multi-byte character where a device number would be is no device, not a panic.
        assert!(!device_at("7н .0", 0));
        assert!(parse("00:00.0 Host bridge: Intel Corporation Sky Lake-E DMI3 Registers (rev 07)\n").is_err());
    }

    /// A tree as ls-tree.c draws it: two host bridges; under the second a bridge with two
    /// functions, and a switch (upstream port 00.0 on bus 61 over downstream ports on 62).
    #[test]
    fn tree_places() {
        let text = [
            "-+-[0000:20]-+-00.0  Advanced Micro Devices, Inc. [AMD] Device 14a4",
            " |           +-03.1-[21]--+-00.0  Mellanox Technologies MT2910 Family [ConnectX-7]",
            " |           |            \\-00.1  Mellanox Technologies MT2910 Family [ConnectX-7]",
            " |           \\-07.1-[22]--",
            " \\-[0000:60]-+-01.1-[61-65]----00.0-[62-65]--+-00.0-[63]----00.0  NVIDIA Corporation GH100",
            "             |                               \\-04.0-[64-65]----00.0  Mellanox Technologies MT2910",
            "             \\-05.0  Advanced Micro Devices, Inc. [AMD] Device 149f",
        ]
        .join("\n");
        let text = text.as_str();
        assert!(is_tree(text));
        let f = parse_tree(text).unwrap();
        let path =
            |a: &str| f.pci_devices.iter().find(|d| d.address.to_string() == a).map(|d| d.path.join("/")).unwrap_or_else(|| panic!("{a}"));
        assert_eq!(path("0000:21:00.1"), "pci0000:20/0000:20:03.1/0000:21:00.1");
        assert_eq!(path("0000:20:07.1"), "pci0000:20/0000:20:07.1");
        assert_eq!(path("0000:63:00.0"), "pci0000:60/0000:60:01.1/0000:61:00.0/0000:62:00.0/0000:63:00.0");
        assert_eq!(path("0000:64:00.0"), "pci0000:60/0000:60:01.1/0000:61:00.0/0000:62:04.0/0000:64:00.0");
        assert_eq!(path("0000:60:05.0"), "pci0000:60/0000:60:05.0");
        assert_eq!(f.pci_devices.len(), 12);
        assert!(parse_tree(" |  +-03.1  orphan\n").is_err());
    }
}
