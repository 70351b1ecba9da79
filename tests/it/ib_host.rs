//! The host beneath an InfiniBand port: its HCA's firmware (`fw_ver`), board, node GUID,
//! NUMA node and PCI place read from sysfs trees laid out as the kernel's ABI gives them
//! (tests/it/support/ib_sysfs.rs), through the same host facts as a netdev's, so the
//! NUMA and firmware checks judge HCAs as they judge NICs (docs/host.md).
//!
//! The node: HCAs mlx5_0 (0000:3b:00.0, NUMA node 0, firmware 28.39.1002) and mlx5_1
//! (0000:5e:00.0, NUMA node 1, firmware 28.43.2026), both ConnectX-7 (15b3:1021) below host
//! bridge pci0000:00, and one GPU (0000:81:00.0) below host bridge pci0000:80 on NUMA node 1.
//! Expected, from that layout and nvidia-smi topo's legend: mlx5_0 to the GPU crosses the
//! socket interconnect (different host bridges, NUMA nodes 0 and 1: SYS); mlx5_1 to it does
//! not (different host bridges, one NUMA node: NODE); one model on two firmwares.

use crate::infiniband::{codes, reason, records, scan_json};
use crate::support::ib_sysfs::{add_gpu, add_hca, node_guid, set_pci_attr, PortSpec};
use optics::capture::{CaptureWriter, Header, RecordSink};
use optics::device::host::{Fact, PciDistance};
use optics::source::infiniband::IbTree;
use std::path::Path;

fn node(root: &Path) {
    add_hca(root, "mlx5_0", "0000:3b:00.0", None, &[PortSpec::ndr(1)]);
    add_hca(root, "mlx5_1", "0000:5e:00.0", None, &[PortSpec::ndr(1)]);
    set_pci_attr(root, "0000:5e:00.0", "numa_node", "1");
    set_pci_attr(root, "0000:5e:00.0", "infiniband/mlx5_1/fw_ver", "28.43.2026");
    add_gpu(root, "pci0000:80", "0000:80:01.0", "0000:81:00.0", 1);
}

#[test]
fn an_hcas_host_facts_come_from_its_pci_function_and_fw_ver() {
    let tmp = tempfile::tempdir().unwrap();
    node(tmp.path());
    let id = IbTree::new(tmp.path()).identity("mlx5_0/1").unwrap();
    let h = id.host.unwrap();
    assert_eq!(h.firmware_version, Some(Fact::sysfs("28.39.1002".to_string())));
    assert_eq!(h.driver, Some(Fact::sysfs("mlx5_core".to_string())));
    assert_eq!(h.pci_id, Some(Fact::sysfs("15b3:1021".to_string())));
    assert_eq!(h.numa_node, Some(Fact::sysfs(0)));
    assert_eq!(h.pci_path.unwrap().value, ["pci0000:00", "0000:3b:00.0"]);
    // The HCA itself is an InfiniBand controller (class 0x0207), not a GPU; the H100 is one.
    let gpus = h.gpus.unwrap().value;
    assert_eq!(gpus.iter().map(|g| (g.bus_info.as_str(), g.numa_node)).collect::<Vec<_>>(), [("0000:81:00.0", Some(1))]);
    assert_eq!(
        PciDistance::between(&["pci0000:00".into(), "0000:3b:00.0".into()], Some(0), &gpus[0].pci_path, gpus[0].numa_node),
        PciDistance::Sys
    );
    // No netdev: no MTU to read.
    assert_eq!(h.mtu, None);
    let ib = id.ib.unwrap();
    assert_eq!(ib.node_guid.as_deref(), Some(node_guid("mlx5_0").as_str()));
    assert_eq!(ib.board_id.as_deref(), Some("MT_0000000838"));
}

#[test]
fn numa_and_firmware_checks_judge_hcas() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path();
    node(root);
    let tree = IbTree::new(root);
    let cap = root.join("node.jsonl");
    let mut w = CaptureWriter::new(std::fs::File::create(&cap).unwrap(), &Header::new(Some("ib-host".into()), None, None)).unwrap();
    for t in [0.0, 60.0] {
        for name in ["mlx5_0/1", "mlx5_1/1"] {
            let [ir, s] = records(&tree, name, t);
            if t == 0.0 {
                w.record(&ir).unwrap();
            }
            w.record(&s).unwrap();
        }
    }
    drop(w);
    let j = scan_json(&cap, &[]);
    let port = |name: &str| j["interfaces"].as_array().unwrap().iter().find(|p| p["interface"] == name).unwrap().clone();
    let (a, b) = (port("mlx5_0/1"), port("mlx5_1/1"));

    let numa = reason(&a, "host_numa_remote")["message"].as_str().unwrap().to_string();
    assert!(numa.contains("NUMA node 0") && numa.contains("0000:81:00.0") && numa.contains("NUMA node 1"), "{numa}");
    assert!(!codes(&b).contains(&"host_numa_remote".to_string()), "{:?}", codes(&b));

    // 15b3:1021 on 28.39.1002 here and 28.43.2026 there: each names the other.
    let fw_a = reason(&a, "firmware_mismatch")["message"].as_str().unwrap().to_string();
    assert!(fw_a.contains("28.39.1002") && fw_a.contains("28.43.2026 (mlx5_1/1)") && fw_a.contains("15b3:1021"), "{fw_a}");
    let fw_b = reason(&b, "firmware_mismatch")["message"].as_str().unwrap().to_string();
    assert!(fw_b.contains("28.39.1002 (mlx5_0/1)"), "{fw_b}");
    // Host reasons are investigate: the links themselves are clean.
    assert_eq!(a["verdict"], "investigate");
    assert_eq!(a["host"]["firmware_version"]["value"], "28.39.1002");
    assert_eq!(a["host"]["firmware_version"]["from"], "sysfs");
    assert_eq!(a["infiniband"]["node_guid"], node_guid("mlx5_0"));
    assert_eq!(a["infiniband"]["board_id"], "MT_0000000838");
}
