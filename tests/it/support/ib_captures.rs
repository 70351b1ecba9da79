//! InfiniBand captures as the sampler records them: a `/sys/class/infiniband` tree laid out
//! by [`super::ib_sysfs`] is rewritten at each step and read back through `IbTree`, one
//! interface record and one sample per step (what `serve` and `scan` on the live port
//! record). The bundled ones (`captures/ib-*.jsonl`, captures/README.md) start from real
//! values (tests/fixtures/infiniband/README.md): the identity of `ibstat_ndr_cx7_deepep_303.txt`'s
//! mlx5_0 (ConnectX-7, firmware 28.43.2026, 400 Gb/s NDR) and the counters of
//! `sos_hdr_2x/.../perfquery_-C_mlx5_0_-P_1` (PortXmitData 50334712, PortRcvData 50322429,
//! PortXmitPkts 699290, PortRcvPkts 698925, PortRcvSwitchRelayErrors 6).

use super::captures::{header, to_jsonl};
use super::ib_sysfs::{add_hca, set_pci_attr, set_port, PortSpec};
use optics::capture::{InterfaceRecord, Record, SampleRecord};
use optics::counters::LinkState;
use optics::source::infiniband::IbTree;
use serde_json::Value;
use std::path::Path;

/// One interface record and one sample of `name` read from `tree` now, as the sampler writes them.
pub fn records(tree: &IbTree, name: &str, t: f64) -> [Record; 2] {
    let id = tree.identity(name).unwrap();
    let link = tree.link_info(name).unwrap();
    let ib = tree.sample(name).unwrap();
    let ir = InterfaceRecord {
        t,
        interface: name.into(),
        driver: id.driver,
        bus_info: id.bus_info,
        pci: id.pci,
        port: id.port,
        link,
        module: None,
        origin_file: None,
        host: id.host,
        ib: id.ib,
        neighbor: None,
    };
    let s = SampleRecord {
        t,
        interface: name.into(),
        link: LinkState { up: ib.link_up(), ..Default::default() },
        ib: Some(ib),
        ..Default::default()
    };
    [Record::Interface(ir), Record::Sample(s)]
}

/// The HCA of the bundled captures: mlx5_0 on 0000:3b:00.0 with IPoIB netdev ibp59s0, as
/// the real `ibstat` of a ConnectX-7 names it (firmware 28.43.2026).
pub const HCA_BDF: &str = "0000:3b:00.0";

/// Data units (4 octets) per second each way: 4 GB/s, 32 Gb/s of the 400.
const DATA_UNITS_PER_S: u64 = 1_000_000_000;
/// Packets per second at that rate with 4096-byte packets: 4e9 / 4096 = 976,562.5.
const PACKETS_PER_S: u64 = 976_562;

/// Step `i` (t = i s) of port 1: the real perfquery's counters plus `i` seconds of traffic,
/// and the error counters `errors` gives.
fn step(i: u64, errors: &[(&'static str, u64)]) -> PortSpec {
    let mut counters = vec![
        ("port_xmit_data", 50_334_712 + DATA_UNITS_PER_S * i),
        ("port_rcv_data", 50_322_429 + DATA_UNITS_PER_S * i),
        ("port_xmit_packets", 699_290 + PACKETS_PER_S * i),
        ("port_rcv_packets", 698_925 + PACKETS_PER_S * i),
        ("port_rcv_switch_relay_errors", 6),
    ];
    counters.extend_from_slice(errors);
    PortSpec { counters, ..PortSpec::ndr(1) }
}

/// A capture of mlx5_0/1 over 61 one-second steps, `errors(i)` the error counters at step i.
fn capture(root: &Path, errors: impl Fn(u64) -> Vec<(&'static str, u64)>) -> String {
    add_hca(root, "mlx5_0", HCA_BDF, Some("ibp59s0"), &[step(0, &errors(0))]);
    set_pci_attr(root, HCA_BDF, "infiniband/mlx5_0/fw_ver", "28.43.2026");
    // ibstat's `Node GUID: 0xa088c2030074cfda` as sysfs prints a node GUID.
    set_pci_attr(root, HCA_BDF, "infiniband/mlx5_0/node_guid", "a088:c203:0074:cfda");
    let tree = IbTree::new(root);
    let mut out: Vec<Value> = vec![header()];
    for i in 0..=60u64 {
        set_port(root, "mlx5_0", &step(i, &errors(i)));
        let [ir, s] = records(&tree, "mlx5_0/1", i as f64);
        if i == 0 {
            out.push(serde_json::to_value(ir).unwrap());
        }
        out.push(serde_json::to_value(s).unwrap());
    }
    to_jsonl(&out)
}

/// `ib-ndr-healthy.jsonl`: traffic, no error. `ib-ndr-errors-after-fec.jsonl`: 2 symbol
/// errors a second (errors FEC left on NDR: 120 in 60 s), a link error recovery at t = 15 s
/// and t = 35 s, the link downed once at t = 45 s (back up by the next read), and
/// local_link_integrity_errors stuck at 15, the most its 4 bits hold.
pub fn bundled() -> Vec<(&'static str, String)> {
    let healthy = tempfile::tempdir().unwrap();
    let failing = tempfile::tempdir().unwrap();
    vec![
        ("ib-ndr-healthy.jsonl", capture(healthy.path(), |_| Vec::new())),
        (
            "ib-ndr-errors-after-fec.jsonl",
            capture(failing.path(), |i| {
                vec![
                    ("symbol_error", 2 * i),
                    ("link_error_recovery", u64::from(i >= 15) + u64::from(i >= 35)),
                    ("link_downed", u64::from(i >= 45)),
                    ("local_link_integrity_errors", 15),
                ]
            }),
        ),
    ]
}
