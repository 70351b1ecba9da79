//! Host facts from a copied sysfs tree in a support bundle (docs/import.md "A copied sysfs
//! tree"): the live reader on the copy, each fact marked `import`, so the NUMA, MTU,
//! firmware and PCIe checks run on a folder import as on a live node.
//!
//! The node is `host_sysfs`'s two-socket node (laid out to the kernel's ABI), with PCIe
//! link attributes and `uevent` added as Documentation/ABI/testing/sysfs-bus-pci and
//! drivers/base/core.c `dev_uevent` give them. The bundles are what each collector keeps
//! of it, copied the way it copies:
//! - sos (sosreport/sos at 5c7e63ee, `sos/report/plugins/networking.py`):
//!   `/sys/class/net/*/device/numa_node` and `flags`; (`numa.py`)
//!   `/sys/devices/system/node/node*/cpulist`; every symlink on a kept path is kept as a
//!   symlink and its target's leading paths made (`sos/archive.py` `_make_leading_paths`);
//! - NVIDIA's doca-sosreport (NVIDIA/doca-sosreport at d6903374, `networking.py`) adds the
//!   function's `vendor`, `device`, `class`, `local_cpulist`, `current_link_speed`,
//!   `current_link_width`, `max_link_speed`, `max_link_width` and `uevent`;
//! - by hand, `cp --parents` of `/sys/bus/pci/devices/*/...` (each function a directory of
//!   its own, its place below the bridges lost) and `cp -r /sys/class/net/IF/` (its
//!   `device` link copied as a link, pointing at nothing in the copy).

use super::support::host_node::two_socket_node;
use super::support::optics;
use serde_json::{json, Value};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Component, Path, PathBuf};
use std::process::Command;

const NIC0: &str = "pci0000:16/0000:16:02.0/0000:17:00.0/0000:18:00.0/0000:19:00.0";
const NIC1: &str = "pci0000:9a/0000:9a:02.0/0000:9b:00.0";

/// PCIe link attributes and `uevent` of both NICs: socket 0's trained at its maximum
/// (32.0 GT/s x16), socket 1's at 16.0 GT/s x8 of 32.0 GT/s x16 (a degraded link).
fn link_attributes(root: &Path) {
    for (path, cur, width) in [(NIC0, "32.0 GT/s PCIe", "16"), (NIC1, "16.0 GT/s PCIe", "8")] {
        let dir = root.join("sys/devices").join(path);
        let bdf = path.rsplit('/').next().unwrap();
        for (name, value) in [
            ("current_link_speed", cur),
            ("current_link_width", width),
            ("max_link_speed", "32.0 GT/s PCIe"),
            ("max_link_width", "16"),
            ("local_cpulist", if path == NIC0 { "0-15,32-47" } else { "16-31,48-63" }),
        ] {
            fs::write(dir.join(name), format!("{value}\n")).unwrap();
        }
        let uevent = format!("DRIVER=mlx5_core\nPCI_CLASS=20000\nPCI_ID=15B3:1021\nPCI_SUBSYS_ID=15B3:0040\nPCI_SLOT_NAME={bdf}\n");
        fs::write(dir.join("uevent"), uevent).unwrap();
        let net = fs::read_dir(dir.join("net")).unwrap().next().unwrap().unwrap().path();
        fs::write(net.join("flags"), "0x1003\n").unwrap();
    }
}

/// `a/b/../c` -> `a/c` (a relative path inside the tree).
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Keeps `rel` (a path below `from`) in `to` as sos does: each symlink on the way is made
/// as the same symlink and followed; a file at the end is copied, a symlink at the end is
/// made (its target is not copied). A path that is not there matches no glob: nothing.
fn sos_keep(from: &Path, to: &Path, rel: &str) {
    if !from.join(rel).exists() {
        return;
    }
    let parts: Vec<Component> = Path::new(rel).components().collect();
    let mut at = PathBuf::new();
    for (i, c) in parts.iter().enumerate() {
        let next = at.join(c);
        let meta = fs::symlink_metadata(from.join(&next)).unwrap_or_else(|e| panic!("{}: {e}", next.display()));
        if meta.file_type().is_symlink() {
            let target = fs::read_link(from.join(&next)).unwrap();
            fs::create_dir_all(to.join(&at)).unwrap();
            if fs::symlink_metadata(to.join(&next)).is_err() {
                symlink(&target, to.join(&next)).unwrap();
            }
            if i + 1 == parts.len() {
                return;
            }
            at = normal(&at.join(target));
        } else {
            at = next;
        }
    }
    fs::create_dir_all(to.join(&at).parent().unwrap()).unwrap();
    fs::copy(from.join(&at), to.join(&at)).unwrap();
}

fn netdevs(root: &Path) -> Vec<String> {
    let mut n: Vec<String> =
        fs::read_dir(root.join("sys/class/net")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    n.sort();
    n
}

/// What sos keeps of the node at `full` in `bundle`; `doca`: with doca-sosreport's files too.
fn sosreport(full: &Path, bundle: &Path, doca: bool) {
    let mut kept: Vec<String> = vec!["numa_node".into()];
    if doca {
        let more = [
            "vendor",
            "device",
            "class",
            "local_cpulist",
            "current_link_speed",
            "current_link_width",
            "max_link_speed",
            "max_link_width",
            "uevent",
        ];
        kept.extend(more.iter().map(|s| s.to_string()));
    }
    for n in netdevs(full) {
        for attr in &kept {
            sos_keep(full, bundle, &format!("sys/class/net/{n}/device/{attr}"));
        }
        sos_keep(full, bundle, &format!("sys/class/net/{n}/flags"));
    }
    for node in [0, 1] {
        sos_keep(full, bundle, &format!("sys/devices/system/node/node{node}/cpulist"));
    }
}

/// `cd ROOT && cp --parents sys/bus/pci/devices/*/{vendor,device,class,numa_node} BUNDLE`
/// with the system's own `cp` (GNU coreutils makes each leading component a directory,
/// so every function becomes a directory of its own).
fn cp_parents_pci(full: &Path, bundle: &Path) {
    fs::create_dir_all(bundle).unwrap();
    let mut args: Vec<String> = vec!["--parents".into()];
    for e in fs::read_dir(full.join("sys/bus/pci/devices")).unwrap() {
        let bdf = e.unwrap().file_name().into_string().unwrap();
        args.extend(["vendor", "device", "class", "numa_node"].iter().map(|a| format!("sys/bus/pci/devices/{bdf}/{a}")));
    }
    let status = Command::new("cp").args(&args).arg(bundle).current_dir(full).status().unwrap();
    assert!(status.success());
}

/// `cp -r FROM/ TO` with the system's own `cp`: the directory's contents, links copied as
/// links (their relative targets then point at nothing in the copy).
fn cp_r(from: &Path, to: &Path) {
    fs::create_dir_all(to.parent().unwrap()).unwrap();
    let status = Command::new("cp").arg("-r").arg(format!("{}/", from.display())).arg(to).status().unwrap();
    assert!(status.success());
}

/// `ethtool -i IF` as sos names it (`sos_commands/networking/ethtool_-i_IF`), in the layout
/// of a real ConnectX-4 Lx's (tests/fixtures/host/import/tools/ethtool_-i_p3p1).
fn ethtool_i(bundle: &Path, iface: &str, bus: &str, firmware: &str) {
    let dir = bundle.join("sos_commands/networking");
    fs::create_dir_all(&dir).unwrap();
    let text = format!(
        "driver: mlx5_core\nversion: 24.10-1.1.4\nfirmware-version: {firmware}\nexpansion-rom-version:\nbus-info: {bus}\n\
         supports-statistics: yes\nsupports-test: yes\nsupports-eeprom-access: no\nsupports-register-dump: no\nsupports-priv-flags: yes\n"
    );
    fs::write(dir.join(format!("ethtool_-i_{iface}")), text).unwrap();
}

/// `optics import DIR` then `scan --json --replay` of the capture (`--config` when given).
fn import_and_scan(bundle: &Path, config: Option<&str>) -> Value {
    let cap = bundle.parent().unwrap().join("c.jsonl");
    optics().arg("import").arg(bundle).arg("-o").arg(&cap).assert().success();
    let mut scan = optics();
    scan.args(["scan", "--json", "--all", "--replay"]).arg(&cap);
    if let Some(c) = config {
        let file = bundle.parent().unwrap().join("cfg.json");
        fs::write(&file, c).unwrap();
        scan.arg("--config").arg(file);
    }
    serde_json::from_slice(&scan.assert().success().get_output().stdout).unwrap()
}

fn of<'v>(v: &'v Value, iface: &str) -> &'v Value {
    v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap_or_else(|| panic!("no {iface}: {v}"))
}

fn codes(i: &Value) -> Vec<&str> {
    i["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap()).collect()
}

fn path(s: &str) -> Value {
    json!(s.split('/').collect::<Vec<_>>())
}

/// What upstream sos keeps: each NIC's NUMA node, its place below the bridges (the kept
/// links), its node's CPUs, all marked imported; no PCI ID (vendor/device not kept) and
/// no `bus/pci/devices` (GPUs not looked for), which the host line says. Virtual netdevs
/// (`lo`, a veth) are no interfaces of the import.
#[test]
fn what_sos_keeps_gives_numa_node_place_and_node_cpus() {
    let tmp = tempfile::tempdir().unwrap();
    let (full, bundle) = (tmp.path().join("node"), tmp.path().join("sosreport-node1-2026-12-06"));
    two_socket_node(&full, true);
    link_attributes(&full);
    for virt in ["lo", "veth0"] {
        let dir = full.join("sys/devices/virtual/net").join(virt);
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join("flags"), "0x9\n").unwrap();
        symlink(format!("../../devices/virtual/net/{virt}"), full.join("sys/class/net").join(virt)).unwrap();
    }
    sosreport(&full, &bundle, false);
    assert!(fs::symlink_metadata(bundle.join("sys/class/net/ens1np0")).unwrap().file_type().is_symlink(), "sos keeps the link");
    let v = import_and_scan(&bundle, None);
    let names: Vec<&str> = v["interfaces"].as_array().unwrap().iter().map(|i| i["interface"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let host = &of(&v, "ens1np0")["host"];
    assert_eq!(host["numa_node"], json!({"value": 0, "from": "import"}));
    // The place is in the capture (scan places GPUs with it; this bundle has none).
    let cap = fs::read_to_string(tmp.path().join("c.jsonl")).unwrap();
    let rec: Value = cap.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|r| r["interface"] == "ens1np0").unwrap();
    assert_eq!(rec["host"]["pci_path"], json!({"value": path(NIC0), "from": "import"}));
    assert_eq!(host["node_cpus"], 32);
    assert_eq!(of(&v, "ens2np0")["host"]["numa_node"], json!({"value": 1, "from": "import"}));
    for absent in ["pci_id", "gpus", "driver"] {
        assert_eq!(host[absent], Value::Null, "{absent}");
    }
    let not_checked = host["not_checked"].as_array().unwrap();
    assert!(
        not_checked.contains(&json!("GPU locality: the source lists none of the node's PCI devices to find GPUs in")),
        "{not_checked:?}"
    );
}

/// doca-sosreport's files with `ethtool -i` of each NIC and the node's PCI functions
/// copied with `cp --parents`: socket 1's NIC is named remote from the GPUs (NUMA node 0
/// against its 1: the functions' places were not kept, their NUMA nodes were), the two
/// NICs of one model (15b3:1021, from `vendor`/`device`) on different firmware are
/// `firmware_mismatch`, and socket 1's link trained at x8 of x16 is judged on the PCIe
/// attributes kept. Driver from `uevent`, the PCIe link from the kept attributes.
#[test]
fn a_doca_sosreport_with_pci_functions_is_judged_like_a_live_node() {
    let tmp = tempfile::tempdir().unwrap();
    let (full, bundle) = (tmp.path().join("node"), tmp.path().join("bundle"));
    two_socket_node(&full, false);
    link_attributes(&full);
    sosreport(&full, &bundle, true);
    cp_parents_pci(&full, &bundle);
    ethtool_i(&bundle, "ens1np0", "0000:19:00.0", "28.39.1002 (MT_0000000838)");
    ethtool_i(&bundle, "ens2np0", "0000:9b:00.0", "28.36.1010 (MT_0000000838)");
    let v = import_and_scan(&bundle, None);
    let (local, remote) = (of(&v, "ens1np0"), of(&v, "ens2np0"));
    assert_eq!(remote["host"]["pci_id"], json!({"value": "15b3:1021", "from": "import"}));
    assert_eq!(remote["host"]["driver"], json!({"value": "mlx5_core", "from": "import"}));
    let gpus: Vec<(&str, &str)> = remote["host"]["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["bus_info"].as_str().unwrap(), g["distance"].as_str().unwrap()))
        .collect();
    assert_eq!(gpus, [("0000:1b:00.0", "SYS"), ("0000:2b:00.0", "SYS")]);
    for code in ["pcie_degraded", "host_numa_remote", "firmware_mismatch"] {
        assert!(codes(remote).contains(&code), "{code}: {:?}", codes(remote));
    }
    let msg = |i: &Value, code: &str| {
        i["reasons"].as_array().unwrap().iter().find(|r| r["code"] == code).map(|r| r["message"].as_str().unwrap().to_string())
    };
    assert_eq!(
        msg(remote, "host_numa_remote").as_deref(),
        Some("NIC on NUMA node 1, its nearest GPUs 0000:1b:00.0, 0000:2b:00.0 on NUMA node 0: every transfer between them crosses the socket interconnect (SYS)")
    );
    assert_eq!(
        msg(local, "firmware_mismatch").as_deref(),
        Some("firmware 28.39.1002 where other NICs of this model (15b3:1021) run 28.36.1010 (ens2np0)")
    );
    // Socket 0's NIC and its GPUs share NUMA node 0: not remote (NODE: their places were not kept).
    assert!(!codes(local).contains(&"host_numa_remote"), "{:?}", codes(local));
    assert_eq!((&remote["pcie"]["current_width"], &remote["pcie"]["trained_down"]), (&json!(8), &json!(true)), "{}", remote["pcie"]);
    assert_eq!(local["pcie"]["trained_down"], json!(false));
}

/// A copy of `/sys` made by hand under another name: `cp -r` of each netdev's directory
/// (`mtu`, `operstate`, `speed`, its `device` link now pointing at nothing) and of each
/// PCI function's (its `driver` link dangling, no place below the bridges). Each NIC is
/// found by the address its link names; its driver is its link's name; socket 1's port,
/// down (`operstate` down, `speed` -1 as the kernel prints SPEED_UNKNOWN) at MTU 1500, is
/// `mtu_mismatch` against `expected_mtu` 9000; the GPUs' distance is told by NUMA node alone.
#[test]
fn a_hand_made_copy_is_read_by_address() {
    let tmp = tempfile::tempdir().unwrap();
    let (full, copy) = (tmp.path().join("node"), tmp.path().join("bundle/node1-sys"));
    two_socket_node(&full, true);
    for (n, mtu, state, speed) in [("ens1np0", "9000", "up", "200000"), ("ens2np0", "1500", "down", "-1")] {
        let dir = full.join("sys/class/net").join(n);
        for (attr, v) in [("mtu", mtu), ("operstate", state), ("speed", speed)] {
            fs::write(dir.join(attr), format!("{v}\n")).unwrap();
        }
        cp_r(&dir, &copy.join("class/net").join(n));
    }
    for e in fs::read_dir(full.join("sys/bus/pci/devices")).unwrap() {
        let bdf = e.unwrap().file_name();
        cp_r(&full.join("sys/bus/pci/devices").join(&bdf), &copy.join("bus/pci/devices").join(&bdf));
    }
    assert!(fs::metadata(copy.join("class/net/ens1np0/device")).is_err(), "the device link points at nothing in the copy");
    // An `ethtool -S` beside the tree (tests/fixtures/import/README.md): a reading, which
    // carries the link state the copy's `operstate` gives.
    let stats = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/sosreport/sos_commands/networking/ethtool_-S_ens3np0");
    fs::copy(stats, copy.join("ethtool_-S_ens1np0")).unwrap();
    let v = import_and_scan(&copy, Some(r#"{"expected_mtu": 9000}"#));
    let (up, down) = (of(&v, "ens1np0"), of(&v, "ens2np0"));
    assert_eq!(up["host"]["driver"], json!({"value": "mlx5_core", "from": "import"}));
    assert_eq!(up["host"]["mtu"], json!({"value": 9000, "from": "import"}));
    assert_eq!((&up["link"]["up"], &up["link"]["speed_mbps"]), (&json!(true), &json!(200000)));
    assert_eq!(down["link"]["speed_mbps"], Value::Null);
    let placed = |i: &Value| -> Vec<(String, String)> {
        i["host"]["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["bus_info"].as_str().unwrap().into(), g["distance"].as_str().unwrap().into()))
            .collect()
    };
    let own = |b: &str, d: &str| (b.to_string(), d.to_string());
    assert_eq!(placed(up), [own("0000:1b:00.0", "NODE"), own("0000:2b:00.0", "NODE"), own("0000:9c:00.0", "SYS")]);
    assert_eq!(placed(down), [own("0000:9c:00.0", "NODE"), own("0000:1b:00.0", "SYS"), own("0000:2b:00.0", "SYS")]);
    let mtu: Vec<&str> = down["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == "mtu_mismatch")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert_eq!(mtu, ["MTU 1500 where the configuration (expected_mtu) expects 9000"]);
    assert!(!codes(up).contains(&"mtu_mismatch") && !codes(up).contains(&"host_numa_remote"), "{:?}", codes(up));
}
