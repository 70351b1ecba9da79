//! Host facts from support-bundle tool outputs (docs/host.md "From a support bundle"), on
//! real outputs found in public sources (tests/fixtures/host/README.md): each becomes a
//! fact marked `import`, and the judgements run on them as on the live facts.

use super::support::{import_at, optics};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// `optics import INPUTS...` then `scan --json --replay` of the capture.
fn import_and_scan(inputs: &[PathBuf], extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    optics().arg("import").args(inputs).args(extra).arg("-o").arg(&cap).assert().success();
    scan(&cap)
}

/// `scan --json --all --replay CAPTURE`.
fn scan(cap: &Path) -> Value {
    let out = optics().args(["scan", "--json", "--all", "--replay"]).arg(cap).assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).unwrap()
}

fn of<'v>(v: &'v Value, iface: &str) -> &'v Value {
    v["interfaces"].as_array().unwrap().iter().find(|i| i["interface"] == iface).unwrap_or_else(|| panic!("no {iface}: {v}"))
}

fn codes(i: &Value) -> Vec<String> {
    i["reasons"].as_array().unwrap().iter().map(|r| r["code"].as_str().unwrap().to_string()).collect()
}

/// A newer ethtool's `-g` of an AQC113 (systemd PR 41289), pasted without its headings:
/// maximums first (8184 each), then the current rx 2048 and tx 4096. rx is 2048/8184 = 25 %
/// of what the card holds, under the default half: `rings_below_max`; tx at 50.05 % is not.
#[test]
fn an_ethtool_g_paste_is_judged_on_its_rings() {
    let v = import_and_scan(&[fixture("host/import/tools/aqc113_ethtool-g")], &[]);
    let eth0 = of(&v, "eth0");
    assert_eq!(eth0["host"]["rings"], json!({"value": {"rx": 2048, "rx_max": 8184, "tx": 4096, "tx_max": 8184}, "from": "import"}));
    let msg: Vec<&str> = eth0["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == "rings_below_max")
        .map(|r| r["message"].as_str().unwrap())
        .collect();
    assert_eq!(msg, ["ring sizes rx 2048 of 8184, tx 4096 of 8184: below 50% of the maximum (min_ring_fraction); rx and tx differ"]);
}

/// `ethtool -l` with combined channels (firedancer issue 1427: 1 of 64, one other) and
/// `ethtool -i` of a ConnectX-4 Lx (ethq issue 8): channels, driver and firmware, imported.
#[test]
fn ethtool_l_and_i_become_host_facts() {
    let v = import_and_scan(&[fixture("host/import/tools/ethtool_-l_ens3f0")], &[]);
    assert_eq!(
        of(&v, "ens3f0")["host"]["channels"],
        json!({
            "value": {"rx": null, "rx_max": null, "tx": null, "tx_max": null, "other": 1, "other_max": 1, "combined": 1, "combined_max": 64},
            "from": "import"
        })
    );
    let v = import_and_scan(&[fixture("host/import/tools/ethtool_-i_p3p1")], &[]);
    let h = &of(&v, "p3p1")["host"];
    assert_eq!(h["firmware_version"], json!({"value": "14.23.1020", "from": "import"}));
    assert_eq!(h["driver_version"], json!({"value": "3.0-1 (January 2015)", "from": "import"}));
    assert_eq!(h["driver"], json!({"value": "mlx5_core", "from": "import"}));
}

/// `ip a` (openshift-docs issue 16886) is host-wide: ens5 takes its MTU 9001 when another
/// file names ens5; lo, which no file names, is no interface of the import.
#[test]
fn ip_link_gives_the_named_interfaces_their_mtu() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("host/import/tools/ip_a"), dir.path().join("ip_-d_address")).unwrap();
    std::fs::write(dir.path().join("ethtool_-i_ens5"), "driver: ena\nversion: 2.0.2K\nfirmware-version: \nbus-info: 0000:00:05.0\n")
        .unwrap();
    let v = import_and_scan(&[dir.path().to_path_buf()], &[]);
    assert_eq!(v["interfaces"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(of(&v, "ens5")["host"]["mtu"], json!({"value": 9001, "from": "import"}));
}

/// `nvidia-smi topo -m` of a GB200 node: every NIC is `SYS` from every GPU. Imported with
/// an `ibstat` naming mlx5_0 and mlx5_1 (DeepEP issue 303, another node: the two join by
/// RDMA device name only), each port gets the four GPUs at SYS and `host_numa_remote`, the
/// GPUs named as the matrix names them, on the NUMA node it gives (none: "0,2-17" is no
/// single node). The ASUS ESC8000A-E12's matrix puts mlx5_0's nearest GPUs (GPU0, GPU1) at
/// NODE: same NUMA node, other host bridge, not remote.
#[test]
fn nvidia_smi_topo_drives_host_numa_remote_by_rdma_device() {
    // Host-wide outputs serve the interfaces of their own input: one folder, as a sosreport.
    let node = |topo: &str| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::copy(fixture("infiniband/ibstat_ndr_cx7_deepep_303.txt"), dir.path().join("ibstat")).unwrap();
        std::fs::copy(fixture(topo), dir.path().join("nvidia-smi_topo_-m")).unwrap();
        import_and_scan(&[dir.path().to_path_buf()], &[])
    };
    let v = node("host/import/gb200/nvidia-smi_topo_-m");
    for port in ["mlx5_0/1", "mlx5_1/1"] {
        let i = of(&v, port);
        let gpus: Vec<(&str, &str)> = i["host"]["gpus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| (g["bus_info"].as_str().unwrap(), g["distance"].as_str().unwrap()))
            .collect();
        assert_eq!(gpus, [("GPU0", "SYS"), ("GPU1", "SYS"), ("GPU2", "SYS"), ("GPU3", "SYS")]);
        let remote: Vec<&str> = i["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["code"] == "host_numa_remote")
            .map(|r| r["message"].as_str().unwrap())
            .collect();
        assert_eq!(
            remote,
            ["the NIC's nearest GPUs GPU0, GPU1, GPU2, GPU3 on another NUMA node: every transfer between them crosses the socket interconnect (SYS)"]
        );
    }
    let v = node("host/import/coyote2/nvidia-smi_topo_-m");
    let i = of(&v, "mlx5_0/1");
    let nearest: Vec<(&str, &str, i64)> = i["host"]["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .take(2)
        .map(|g| (g["bus_info"].as_str().unwrap(), g["distance"].as_str().unwrap(), g["numa_node"].as_i64().unwrap()))
        .collect();
    assert_eq!(nearest, [("GPU0", "NODE", 0), ("GPU1", "NODE", 0)]);
    assert!(!codes(i).contains(&"host_numa_remote".to_string()), "{}", i["reasons"]);
}

/// `ibdev2netdev` puts a matrix's NIC on its netdev: in cluster-health issue 4's map,
/// mlx5_1 carries enp27s0f0np0; with the GB200 matrix (mlx5_1 SYS from every GPU) an
/// `ethtool -i` of enp27s0f0np0 gets its GPUs and `host_numa_remote`.
#[test]
fn ibdev2netdev_maps_a_matrix_nic_to_its_netdev() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("host/import/tools/ibdev2netdev"), dir.path().join("ibdev2netdev")).unwrap();
    std::fs::copy(fixture("host/import/gb200/nvidia-smi_topo_-m"), dir.path().join("nvidia-smi_topo_-m")).unwrap();
    std::fs::copy(fixture("import/sosreport/sos_commands/networking/ethtool_-i_ens3np0"), dir.path().join("ethtool_-i_enp27s0f0np0"))
        .unwrap();
    let v = import_and_scan(&[dir.path().to_path_buf()], &[]);
    let i = of(&v, "enp27s0f0np0");
    assert_eq!(i["host"]["gpus"].as_array().unwrap().len(), 4);
    assert!(codes(i).contains(&"host_numa_remote".to_string()), "{}", i["reasons"]);
}

/// Each interface holds its own copy of its NIC's GPUs: 300 switch ports that
/// `ibdev2netdev` maps to the one NIC of a 256-GPU matrix (a 4,096-port version held 340 MB
/// from 700 kB of input) is more than one host's, so no port gets GPUs, and the import says
/// why; 4 ports of the same matrix get all 256.
#[test]
fn more_gpu_copies_than_one_hosts_are_left_out_with_a_note() {
    let gpus = 256;
    let labels: Vec<String> = (0..gpus).map(|i| format!("GPU{i}")).chain(["NIC0".to_string()]).collect();
    let mut topo = format!("\t{}\tCPU Affinity\tNUMA Affinity\n", labels.join("\t"));
    for (r, label) in labels.iter().enumerate() {
        let cells: Vec<&str> = (0..labels.len()).map(|c| if c == r { "X" } else { "PIX" }).collect();
        topo += &format!("{label}\t{}\t0-7\t0\n", cells.join("\t"));
    }
    topo += "\nNIC Legend:\n\n  NIC0: mlx5_0\n";
    let node = |ports: usize| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("nvidia-smi_topo_-m"), &topo).unwrap();
        let rows: String = (0..ports).map(|p| format!("  Ethernet{p}        U     136,403            34                40\n")).collect();
        let header = "      IFACE    STATE    FEC_CORR    FEC_UNCORR    FEC_SYMBOL_ERR\n-----------  -------  ----------  ------------  ----------------\n";
        std::fs::write(dir.path().join("fec-stats"), format!("{header}{rows}")).unwrap();
        let map: String = (0..ports).map(|p| format!("mlx5_0 port 1 ==> Ethernet{p} (Up)\n")).collect();
        std::fs::write(dir.path().join("ibdev2netdev"), map).unwrap();
        let cap = dir.path().join("c.jsonl");
        let o = optics().arg("import").arg(dir.path()).arg("-o").arg(&cap).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let gpus: Vec<usize> = std::fs::read_to_string(&cap)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok()?["host"]["gpus"]["value"].as_array().map(Vec::len))
            .collect();
        (gpus, String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (copies, notes) = node(4);
    assert_eq!(copies, [256; 4], "{notes}");
    let (copies, notes) = node(300);
    assert!(copies.is_empty(), "{copies:?}");
    assert!(
        notes.contains("300 interfaces with up to 256 GPUs each: more GPU places than one host's 65536, GPU locality not checked"),
        "{notes}"
    );
}

fn reasons<'v>(i: &'v Value, code: &str) -> Vec<&'v str> {
    i["reasons"].as_array().unwrap().iter().filter(|r| r["code"] == code).map(|r| r["message"].as_str().unwrap()).collect()
}

/// `ethtool -I -a` of an fbnic port under a pause storm (lore, fbnic "Fetch TX pause storm
/// stats"), alone: TX pause on, RX off, no autonegotiation, 759,657 pause frames sent — one
/// reading, so no rate and no `pause_storm`, and the scan says why.
#[test]
fn one_ethtool_a_snapshot_gives_settings_and_counts_but_no_rate() {
    let v = import_and_scan(&[fixture("host/import/pause/fbnic_ethtool_-I_-a")], &[]);
    let eth0 = of(&v, "eth0");
    assert_eq!(eth0["host"]["pause"], json!({"value": {"autoneg": false, "rx": false, "tx": true}, "from": "import"}));
    assert!(reasons(eth0, "pause_storm").is_empty(), "{}", eth0["reasons"]);
    let not_checked: Vec<&str> = eth0["host"]["not_checked"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(not_checked.contains(&"pause and discards: one reading, no window to make rates of"), "{not_checked:?}");
}

/// Two `ethtool -I -a` snapshots of that port 60 s apart (`--at`): 849,657 - 759,657 =
/// 90,000 pause frames sent in 60 s = 1,500 /s, above the default 1,000 /s: `pause_storm`,
/// sent (this host's receive side pauses the switch). The second snapshot is built from the
/// first (tests/fixtures/host/README.md says how).
#[test]
fn two_ethtool_a_snapshots_judge_pause_as_a_rate() {
    let dir = fixture("host/import/pause/two");
    let (before, after) = (dir.join("before_ethtool_-I_-a_eth0"), dir.join("after_ethtool_-I_-a_eth0"));
    let tmp = tempfile::tempdir().unwrap();
    let cap = tmp.path().join("c.jsonl");
    import_at(&[(&before, "2026-02-06T17:00:00Z"), (&after, "2026-02-06T17:01:00Z")], &[], &cap);
    let v = scan(&cap);
    let eth0 = of(&v, "eth0");
    let pd = &eth0["host"]["pause_discards"];
    assert_eq!(pd["window_s"], json!(60.0));
    assert_eq!(pd["tx_pause_frames"]["count"], json!(90_000));
    assert_eq!(pd["tx_pause_frames"]["per_s"], json!(1500.0));
    assert_eq!(pd["rx_pause_frames"]["count"], json!(0));
    let storm = reasons(eth0, "pause_storm");
    assert_eq!(storm.len(), 1, "{}", eth0["reasons"]);
    assert!(storm[0].starts_with("pause frames sent (netlink) at 1500 /s over 60 s"), "{}", storm[0]);
}

/// `ethtool -I --json -a` and `ethtool --json -a` (ethtool's own commit messages, lore):
/// the settings, the negotiated result and the counters, as the text gives them.
#[test]
fn ethtool_json_a_is_read_as_the_text() {
    let v = import_and_scan(&[fixture("host/import/pause/kuba_ethtool_--json_-a")], &[]);
    assert_eq!(
        of(&v, "eth0")["host"]["pause"]["value"],
        json!({"autoneg": true, "rx": true, "tx": true, "rx_negotiated": true, "tx_negotiated": true})
    );
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    for (file, extra) in [("kuba_ethtool_-I_--json_-a", "--window-s"), ("kuba_ethtool_-I_-a", "--window-s")] {
        optics().arg("import").arg(fixture(&format!("host/import/pause/{file}"))).args([extra, "10", "-o"]).arg(&cap).assert().success();
        let text = std::fs::read_to_string(&cap).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(last["pause"], json!({"tx_frames": 1, "rx_frames": 1}), "{file}");
    }
    // A paste with spaces for tabs (ice, lore): off, off, negotiated off, counters 0.
    let v = import_and_scan(&[fixture("host/import/pause/ice_ethtool_--include-statistics_--show-pause")], &[]);
    assert_eq!(
        of(&v, "ens785f0np0")["host"]["pause"]["value"],
        json!({"autoneg": true, "rx": false, "tx": false, "rx_negotiated": false, "tx_negotiated": false})
    );
}

/// The ASUS ESC8000A-E12 "coyote2" page's `lspci -vvv` blocks whose address is in `keep`,
/// as one listing (tests/fixtures/host/README.md).
fn coyote2_listing(keep: &[&str]) -> String {
    let text = std::fs::read_to_string(fixture("host/import/coyote2/lspci_-vvv")).unwrap();
    let mut out = String::new();
    let mut on = false;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.is_empty() {
            on = keep.iter().any(|k| line.starts_with(&format!("{k} ")));
        }
        if on {
            out += line;
            out.push('\n');
        }
    }
    out
}

/// An `ethtool -i` of one ConnectX-7 function of coyote2: the page prints none, so the test
/// writes it from what the page does print (the address from lspci, the firmware from
/// `ibv_devinfo`); the netdev is named by the test.
fn coyote2_drvinfo(dir: &Path, iface: &str, bus: &str) {
    let text = format!("driver: mlx5_core\nversion: 6.8.0\nfirmware-version: 28.41.1000 (MT_0000000834)\nbus-info: {bus}\n");
    std::fs::write(dir.join(format!("ethtool_-i_{iface}")), text).unwrap();
}

/// The interface records of `optics import INPUT`'s capture, by interface.
fn interface_records(input: &Path) -> std::collections::BTreeMap<String, Value> {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    optics().arg("import").arg(input).arg("-o").arg(&cap).assert().success();
    std::fs::read_to_string(&cap)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["record"] == "interface")
        .map(|v| (v["interface"].as_str().unwrap().to_string(), v))
        .collect()
}

/// GPUs as scan names them for `i`: (address, NUMA node, distance).
fn gpus_of(i: &Value) -> Vec<(String, i64, String)> {
    i["host"]["gpus"]
        .as_array()
        .unwrap_or_else(|| panic!("no gpus: {}", i["host"]))
        .iter()
        .map(|g| {
            (g["bus_info"].as_str().unwrap().to_string(), g["numa_node"].as_i64().unwrap(), g["distance"].as_str().unwrap().to_string())
        })
        .collect()
}

/// coyote2's `lspci -tv` and `lspci -vvv` (stelline's validated-hardware page): the
/// ConnectX-7 at 21:00.0 hangs off root port 20:03.1 of host bridge 20 on NUMA node 0, the
/// one at 81:00.0 off 80:01.1 on node 1; the four RTX 6000 Ada each sit alone under their
/// own host bridge, 01 and 41 on node 0, c1 and e1 on node 1. So from 21:00.0 the GPUs
/// are NODE, NODE, SYS, SYS, and from 81:00.0 SYS, SYS, NODE, NODE: the rows NIC0 and NIC2
/// of the same node's `nvidia-smi topo -m` on that page. Neither NIC is remote.
#[test]
fn lspci_tree_and_listing_place_nics_and_gpus_as_nvidia_smi_does() {
    let dir = tempfile::tempdir().unwrap();
    for f in ["lspci_-tv", "lspci_-vvv"] {
        std::fs::copy(fixture(&format!("host/import/coyote2/{f}")), dir.path().join(f)).unwrap();
    }
    coyote2_drvinfo(dir.path(), "enp33s0f0np0", "0000:21:00.0");
    coyote2_drvinfo(dir.path(), "enp129s0f0np0", "0000:81:00.0");
    let nic = &interface_records(dir.path())["enp33s0f0np0"];
    assert_eq!(nic["host"]["pci_path"], json!({"value": ["pci0000:20", "0000:20:03.1", "0000:21:00.0"], "from": "import"}));
    assert_eq!(nic["host"]["numa_node"], json!({"value": 0, "from": "import"}));
    assert_eq!(nic["pci"]["current_link_speed"], json!("32.0 GT/s PCIe"));
    let gpu = &nic["host"]["gpus"]["value"][2];
    assert_eq!(gpu["bus_info"], json!("0000:c1:00.0"));
    assert_eq!(gpu["pci_path"], json!(["pci0000:c0", "0000:c0:01.1", "0000:c1:00.0"]));
    let v = import_and_scan(&[dir.path().to_path_buf()], &[]);
    let s = |a: &str, n: i64, d: &str| (a.to_string(), n, d.to_string());
    assert_eq!(
        gpus_of(of(&v, "enp33s0f0np0")),
        [s("0000:01:00.0", 0, "NODE"), s("0000:41:00.0", 0, "NODE"), s("0000:c1:00.0", 1, "SYS"), s("0000:e1:00.0", 1, "SYS")]
    );
    assert_eq!(
        gpus_of(of(&v, "enp129s0f0np0")),
        [s("0000:c1:00.0", 1, "NODE"), s("0000:e1:00.0", 1, "NODE"), s("0000:01:00.0", 0, "SYS"), s("0000:41:00.0", 0, "SYS")]
    );
    for iface in ["enp33s0f0np0", "enp129s0f0np0"] {
        assert!(reasons(of(&v, iface), "host_numa_remote").is_empty(), "{iface}: {}", of(&v, iface)["reasons"]);
    }
}

/// A laptop's real `lspci -tv` with Intel VMD on (kernel bugzilla 218394, in
/// tests/fixtures/host/README.md): VMD's devices sit in domain 10000, which the kernel and
/// lspci print in five digits, `[10000:e0]`. Beside it, an `ethtool -i` of the I219-V the
/// tree shows at 00:1f.6 (e1000e, as the same report's log names it) and one at the SN550's
/// place behind VMD, 10000:e1:00.0 (written by the test). Each finds its place by its
/// bus-info: host bridge, the bridges above it, the function, as ls-tree.c draws them.
#[test]
fn a_vmd_domain_tree_is_read_and_joined_to_ethtool_i_by_address() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy(fixture("host/import/vmd/lspci_-tv"), dir.path().join("lspci_-tv")).unwrap();
    for (iface, driver, bus) in [("eno1", "e1000e", "0000:00:1f.6"), ("vmd0", "mlx5_core", "10000:e1:00.0")] {
        std::fs::write(dir.path().join(format!("ethtool_-i_{iface}")), format!("driver: {driver}\nversion: 6.7.0+\nbus-info: {bus}\n"))
            .unwrap();
    }
    let recs = interface_records(dir.path());
    assert_eq!(recs["eno1"]["host"]["pci_path"], json!({"value": ["pci0000:00", "0000:00:1f.6"], "from": "import"}));
    assert_eq!(recs["vmd0"]["host"]["pci_path"], json!({"value": ["pci10000:e0", "10000:e0:06.0", "10000:e1:00.0"], "from": "import"}));
}

/// A bundle holding coyote2's `lspci -vvv` of the ConnectX-7 at 81:00.0 (NUMA node 1) and
/// of the two GPUs on node 0 only (01:00.0, 41:00.0; the page's other two are left out):
/// every GPU the bundle shows is across the socket interconnect from the NIC, which is
/// named `host_numa_remote` with them.
#[test]
fn a_nic_whose_gpus_are_on_the_other_socket_is_named_with_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lspci_-vvv"), coyote2_listing(&["81:00.0", "01:00.0", "41:00.0"])).unwrap();
    coyote2_drvinfo(dir.path(), "enp129s0f0np0", "0000:81:00.0");
    let v = import_and_scan(&[dir.path().to_path_buf()], &[]);
    let i = of(&v, "enp129s0f0np0");
    let s = |a: &str| (a.to_string(), 0, "SYS".to_string());
    assert_eq!(gpus_of(i), [s("0000:01:00.0"), s("0000:41:00.0")]);
    assert_eq!(
        reasons(i, "host_numa_remote"),
        ["NIC on NUMA node 1, its nearest GPUs 0000:01:00.0, 0000:41:00.0 on NUMA node 0: every transfer between them crosses the socket interconnect (SYS)"]
    );
}

/// Two ConnectX-4 Lx (`15b3:1015` in `lspci -nn`) on firmware 14.23.1020 (p3p1, ethq
/// issue 8) and 14.32.1900 (mlx-p0, netdev list): one model, two firmwares, each NIC
/// `firmware_mismatch` naming the other's. The node is assembled from two machines' real
/// `ethtool -i` (tests/fixtures/host/README.md).
#[test]
fn two_imported_nics_of_one_model_on_different_firmware_are_firmware_mismatch() {
    let v = import_and_scan(&[fixture("host/import/cx4lx")], &[]);
    assert_eq!(of(&v, "p3p1")["host"]["pci_id"], json!({"value": "15b3:1015", "from": "import"}));
    assert_eq!(
        reasons(of(&v, "p3p1"), "firmware_mismatch"),
        ["firmware 14.23.1020 where other NICs of this model (15b3:1015) run 14.32.1900 (mlx-p0)"]
    );
    assert_eq!(
        reasons(of(&v, "mlx-p0"), "firmware_mismatch"),
        ["firmware 14.32.1900 where other NICs of this model (15b3:1015) run 14.23.1020 (p3p1)"]
    );
}
