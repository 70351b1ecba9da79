//! Copied sysfs trees (a support bundle's `/sys`: `class/net`, `class/infiniband`,
//! `bus/pci/devices`, `devices/system/node`) and the InfiniBand tools' outputs (`ibstat`,
//! `ibstatus`, `perfquery`) are read without panicking, in bounded time, whatever they hold:
//! arbitrary bytes and huge or negative numbers in attributes, names that are not UTF-8 or
//! hold control characters, trees nested deep, and links that loop, dangle or point out of
//! the copy. The import may refuse them with an error; it never crashes.

use optics::source::import::walk::parse_bytes;
use optics::source::import::{import, Format, ImportOptions};
use optics::source::infiniband::IbTree;
use optics::source::sysfs::Sysfs;
use proptest::prelude::*;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// Names a kernel tree uses (so generated trees reach the readers' paths), and hostile ones.
const NAMES: &[&str] = &[
    "sys",
    "class",
    "net",
    "infiniband",
    "bus",
    "pci",
    "devices",
    "system",
    "node",
    "node0",
    "device",
    "driver",
    "subsystem",
    "ports",
    "1",
    "2",
    "counters",
    "hw_counters",
    "eth0",
    "ens1np0",
    "mlx5_0",
    "0000:3b:00.0",
    "0000:00:01.0",
    "pci0000:00",
    "numa_node",
    "current_link_speed",
    "current_link_width",
    "max_link_speed",
    "max_link_width",
    "vendor",
    "class",
    "uevent",
    "local_cpulist",
    "cpulist",
    "msi_irqs",
    "33",
    "irq",
    "smp_affinity_list",
    "effective_affinity_list",
    "operstate",
    "carrier",
    "flags",
    "speed",
    "mtu",
    "state",
    "phys_state",
    "rate",
    "link_layer",
    "fw_ver",
    "board_id",
    "node_guid",
    "lid",
    "symbol_error",
    "port_rcv_errors",
    "link_downed",
    "port_xmit_data",
    "rx_vport_rdma_unicast_bytes",
    "..",
    ".",
    "a\u{1b}[31mred",
    "tab\tname",
];

/// Contents an attribute may hold: the kernel's forms, their edges, and garbage.
const CONTENTS: &[&str] = &[
    "0",
    "1",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999999",
    "-9223372036854775808",
    "1e308",
    "NaN",
    "inf",
    "0x10de",
    "0x15b3",
    "0x030200",
    "0x020000",
    "0-8191",
    "0-4294967295",
    "4294967295-0",
    "0,2-17,99999999",
    "16.0 GT/s PCIe",
    "32.0 GT/s",
    "Unknown",
    "4: ACTIVE",
    "5: LinkUp",
    "400 Gb/sec (4X NDR)",
    "0 Gb/sec",
    "InfiniBand",
    "Ethernet",
    "28.39.1002",
    "0xa088:c203:0074:cfda",
    "up",
    "down",
    "9000",
    "DRIVER=mlx5_core\nPCI_SLOT_NAME=0000:3b:00.0",
    "\u{1b}]0;title\u{7}",
];

/// One entry of a generated tree: where, and what.
#[derive(Clone, Debug)]
enum Entry {
    Dir(Vec<Vec<u8>>),
    File(Vec<Vec<u8>>, Vec<u8>),
    Link(Vec<Vec<u8>>, Vec<u8>),
}

fn name() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        8 => prop::sample::select(NAMES).prop_map(|n| n.as_bytes().to_vec()),
        // Any bytes but '/' and NUL: not UTF-8, control characters, a terminal's escapes.
        1 => prop::collection::vec(any::<u8>().prop_filter("a name byte", |b| *b != b'/' && *b != 0), 1..12),
    ]
}

fn path() -> impl Strategy<Value = Vec<Vec<u8>>> {
    // Most under the places the readers look; some deep (the walk stops at 8 levels).
    prop_oneof![
        3 => prop::collection::vec(name(), 1..7),
        1 => prop::collection::vec(name(), 7..14),
    ]
}

fn contents() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => prop::sample::select(CONTENTS).prop_map(|c| c.as_bytes().to_vec()),
        2 => prop::collection::vec(any::<u8>(), 0..48),
        // Longer than any attribute (sysfs hands a show method one page).
        1 => Just(vec![b'7'; 70_000]),
    ]
}

fn link_target() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(name(), 1..5).prop_map(|p| p.join(&b'/')),
        prop::sample::select(
            &[
                ".",
                "..",
                "../..",
                "../../..",
                "/",
                "/proc/self/cwd",
                "/dev/zero",
                "/sys/class/net",
                "../../../devices/pci0000:00/0000:3b:00.0"
            ][..]
        )
        .prop_map(|t| t.as_bytes().to_vec()),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        2 => path().prop_map(Entry::Dir),
        5 => (path(), contents()).prop_map(|(p, c)| Entry::File(p, c)),
        2 => (path(), link_target()).prop_map(|(p, t)| Entry::Link(p, t)),
    ]
}

fn at(root: &Path, parts: &[Vec<u8>]) -> PathBuf {
    parts.iter().fold(root.to_path_buf(), |p, n| p.join(OsStr::from_bytes(n)))
}

/// Lays the entries out under `root` (`root/sys/...` and a copy named by its own folders);
/// an entry that cannot be made (its place is a file, `..` climbs out) is left out.
fn lay_out(root: &Path, entries: &[Entry]) {
    for e in entries {
        let (parts, leaf) = match e {
            Entry::Dir(p) | Entry::File(p, _) | Entry::Link(p, _) => (p, p.last()),
        };
        let path = at(root, parts);
        // Nothing outside the tree: a path through `..` is only a name in a link's target.
        if !path.starts_with(root) || parts.iter().any(|n| n == b".." || n == b".") {
            continue;
        }
        let Some(parent) = path.parent() else { continue };
        // Never through a link already laid out (one to `/` or `/proc/self/cwd` would
        // write outside the tree), nor onto one.
        let mut at_part = root.to_path_buf();
        let through_link = parts.iter().any(|n| {
            at_part.push(OsStr::from_bytes(n));
            std::fs::symlink_metadata(&at_part).is_ok_and(|m| m.file_type().is_symlink())
        });
        if through_link || leaf.is_none() || std::fs::create_dir_all(parent).is_err() {
            continue;
        }
        let _ = match e {
            Entry::Dir(_) => std::fs::create_dir_all(&path),
            Entry::File(_, c) => std::fs::write(&path, c),
            Entry::Link(_, t) => std::os::unix::fs::symlink(OsStr::from_bytes(t), &path),
        };
    }
}

/// Every reader of a tree, over the tree at `root`: the import of it (as a folder, as its
/// `sys` and as its `class/infiniband`), and the live readers pointed at it.
fn read_everything(root: &Path) {
    let opts = ImportOptions::default();
    for input in [root.to_path_buf(), root.join("sys"), root.join("sys/class/infiniband")] {
        if input.exists() {
            let _ = import(&[input], &opts);
        }
    }
    let sysfs = Sysfs::new(root);
    for iface in sysfs.interfaces() {
        let _ = sysfs.host_facts(&iface);
        let _ = sysfs.pci_link(&iface);
        let _ = sysfs.driver(&iface);
        let _ = sysfs.port_identity(&iface);
    }
    let ib = IbTree::new(root);
    for port in ib.infiniband_ports() {
        let _ = ib.identity(&port);
        let _ = ib.sample(&port);
        let _ = ib.link_info(&port);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn copied_sysfs_trees(entries in prop::collection::vec(entry(), 1..40)) {
        let dir = tempfile::tempdir().unwrap();
        lay_out(dir.path(), &entries);
        read_everything(dir.path());
    }

    /// The same under the kernel's own layout, so most entries land where a reader looks.
    #[test]
    fn trees_laid_out_as_the_kernels(
        netdevs in prop::collection::vec((name(), prop::collection::vec((prop::sample::select(NAMES), contents()), 0..8), link_target()), 1..6),
        hcas in prop::collection::vec((name(), prop::collection::vec((prop::sample::select(NAMES), contents()), 0..10)), 0..4),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let sys = dir.path().join("sys");
        let pci = sys.join("devices/pci0000:00/0000:3b:00.0");
        std::fs::create_dir_all(&pci).unwrap();
        for (n, attrs, target) in &netdevs {
            let Some(nd) = Some(sys.join("class/net").join(OsStr::from_bytes(n))).filter(|p| p.starts_with(&sys) && n != b".." && n != b".") else { continue };
            if std::fs::create_dir_all(&nd).is_err() {
                continue;
            }
            let _ = std::os::unix::fs::symlink(OsStr::from_bytes(target), nd.join("device"));
            for (a, c) in attrs.iter().filter(|(a, _)| !matches!(*a, "device" | ".." | ".")) {
                let _ = std::fs::write(nd.join(a), c);
                let _ = std::fs::write(pci.join(a), c);
            }
        }
        for (h, attrs) in &hcas {
            let Some(port) = Some(sys.join("class/infiniband").join(OsStr::from_bytes(h)).join("ports/1")).filter(|_| h != b".." && h != b".") else { continue };
            if std::fs::create_dir_all(port.join("counters")).is_err() {
                continue;
            }
            for (a, c) in attrs.iter().filter(|(a, _)| !matches!(*a, ".." | ".")) {
                let _ = std::fs::write(port.join(a), c);
                let _ = std::fs::write(port.join("counters").join(a), c);
            }
        }
        read_everything(dir.path());
    }

    /// `ibstat`, `ibstatus` and `perfquery` laid out as the tools print them, with any value
    /// in each field and any number of ports: parsed or refused (past 128 ports), never a panic.
    #[test]
    fn ib_tool_outputs_with_any_values(
        ports in prop::collection::vec((prop::sample::select(CONTENTS), prop::sample::select(CONTENTS), prop::sample::select(CONTENTS), any::<u32>()), 0..140),
        raw in prop::collection::vec(any::<u8>(), 0..32),
    ) {
        let raw = String::from_utf8_lossy(&raw);
        let mut ibstat = String::new();
        let mut ibstatus = String::new();
        let mut perfquery = String::new();
        for (i, (a, b, c, n)) in ports.iter().enumerate() {
            ibstat += &format!("CA 'mlx5_{i}'\n\tFirmware version: {a}\n\tNode GUID: {b}\n\tPort {n}:\n\t\tState: {a}\n\t\tPhysical state: {b}\n\t\tRate: {c}\n\t\tBase lid: {c}\n\t\tLink layer: {raw}\n");
            ibstatus += &format!("Infiniband device 'mlx5_{i}' port {n} status:\n\tdefault gid:\t {raw}\n\tbase lid:\t {a}\n\tstate:\t\t {b}\n\tphys state:\t {c}\n\trate:\t\t {a}\n\tlink_layer:\t {raw}\n");
            perfquery += &format!("# Port counters: Lid {c} port {n} (CapMask: 0x5A00)\nPortSelect:......................{a}\nSymbolErrorCounter:..............{b}\nLinkDownedCounter:...............{c}\nPortRcvErrors:...................{raw}\nPortXmitData:....................{a}\n");
        }
        for (format, text) in [(Format::Ibstat, &ibstat), (Format::Ibstatus, &ibstatus), (Format::Perfquery, &perfquery)] {
            let _ = parse_bytes(format, text.as_bytes());
        }
    }
}

/// Links that loop (a link to itself, two links to each other, a directory linking to its
/// parent) and a `device` link out of the copy: read in bounded time, nothing followed out.
#[test]
fn link_loops_and_links_out_of_the_copy() {
    let dir = tempfile::tempdir().unwrap();
    let sys = dir.path().join("sys");
    let nd = sys.join("class/net/eth0");
    std::fs::create_dir_all(&nd).unwrap();
    std::os::unix::fs::symlink("device", nd.join("device")).unwrap();
    std::os::unix::fs::symlink("b", nd.join("a")).unwrap();
    std::os::unix::fs::symlink("a", nd.join("b")).unwrap();
    std::os::unix::fs::symlink("..", nd.join("up")).unwrap();
    let nd1 = sys.join("class/net/eth1");
    std::fs::create_dir_all(&nd1).unwrap();
    std::os::unix::fs::symlink("/sys/devices/pci0000:00", nd1.join("device")).unwrap();
    std::fs::create_dir_all(sys.join("bus/pci/devices")).unwrap();
    std::os::unix::fs::symlink("../../../bus/pci/devices", sys.join("bus/pci/devices/0000:3b:00.0")).unwrap();
    let ib = sys.join("class/infiniband/mlx5_0");
    std::fs::create_dir_all(ib.join("ports/1")).unwrap();
    std::os::unix::fs::symlink("counters", ib.join("ports/1/counters")).unwrap();
    std::os::unix::fs::symlink("/", ib.join("device")).unwrap();
    let started = std::time::Instant::now();
    read_everything(dir.path());
    let s = Sysfs::new(dir.path());
    assert_eq!(s.pci_link("eth1"), None, "a link out of the copy is not followed");
    assert!(started.elapsed() < std::time::Duration::from_secs(60));
}
