//! The host beneath the link from the tools that print it (docs/host.md "From a support
//! bundle"): `ethtool -g` (ring sizes), `ethtool -l` (channels), `ip [-d] link` /
//! `ip [-d] address` and their `-j` JSON (MTU, the parent PCI function), `nvidia-smi topo -m`
//! (each NIC's distance to each GPU) and `ibdev2netdev` (which netdev an RDMA device
//! carries, to put a topology's NIC row on its interface). Every fact is marked as
//! imported ([`FactSource::Import`](crate::device::host::FactSource::Import)).

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::device::host::{Channels, Fact, Gpu, PciDistance, Rings, MAX_GPUS};
use std::collections::HashMap;
use std::sync::Arc;

/// The first line's interface: `Ring parameters for ens3np0:` -> `ens3np0`.
fn titled_interface(text: &str, title: &str) -> Option<String> {
    content_lines(text).find_map(|l| l.trim().strip_prefix(title)?.strip_suffix(':').map(|i| i.trim().to_string()))
}

/// `ethtool -g`/`-l` values: a number, or `n/a` for what the driver has not.
fn count(v: &str) -> ParseResult<Option<u32>> {
    match v {
        "n/a" => Ok(None),
        _ => v.parse().map(Some).map_err(|_| ParseError::malformed(format!("`{v}` is not a count"))),
    }
}

/// Which block of `ethtool -g` / `-l` a line is in: the driver's maximums come first, then the
/// current settings (netlink/rings.c and channels.c print them in that order, each under its
/// heading; a heading lost in a paste is told by the second `RX:`).
#[derive(Clone, Copy, PartialEq)]
enum Block {
    Max,
    Current,
}

/// `key: value` lines of an `ethtool -g` / `-l` output with the block each is in.
fn blocks(text: &str) -> Vec<(Block, &str, &str)> {
    let mut block = Block::Max;
    let mut seen_rx = false;
    let mut out = Vec::new();
    for line in content_lines(text).map(str::trim) {
        match line {
            "Pre-set maximums:" => block = Block::Max,
            "Current hardware settings:" => block = Block::Current,
            _ => {
                let Some((k, v)) = key_value(line).filter(|(_, v)| !v.is_empty()) else { continue };
                if k == "RX" {
                    if seen_rx {
                        block = Block::Current;
                    }
                    seen_rx = true;
                }
                out.push((block, k, v));
            }
        }
    }
    out
}

/// `ethtool -g IFACE` (ethtool netlink/rings.c): `RX:` and `TX:` under `Pre-set maximums:`
/// and `Current hardware settings:`; `RX Mini`, `RX Jumbo` and the newer lines are not
/// rings the host judges.
pub(crate) fn parse_rings(text: &str) -> ParseResult<Fragment> {
    let mut r = Rings::default();
    for (block, k, v) in blocks(text) {
        let slot = match (block, k) {
            (Block::Max, "RX") => &mut r.rx_max,
            (Block::Max, "TX") => &mut r.tx_max,
            (Block::Current, "RX") => &mut r.rx,
            (Block::Current, "TX") => &mut r.tx,
            _ => continue,
        };
        *slot = count(v)?;
    }
    if r == Rings::default() {
        return Err(ParseError::missing("`RX:` or `TX:` ring size"));
    }
    let mut f = Fragment { interface: titled_interface(text, "Ring parameters for "), ..Fragment::default() };
    f.host.rings = Some(Fact::import(r));
    Ok(f)
}

/// `ethtool -l IFACE` (ethtool netlink/channels.c): `RX:`, `TX:`, `Other:`, `Combined:` under
/// the same two headings; `n/a` (a maximum of 0) is a kind the driver has not.
pub(crate) fn parse_channels(text: &str) -> ParseResult<Fragment> {
    let mut c = Channels::default();
    for (block, k, v) in blocks(text) {
        let slot = match (block, k) {
            (Block::Max, "RX") => &mut c.rx_max,
            (Block::Max, "TX") => &mut c.tx_max,
            (Block::Max, "Other") => &mut c.other_max,
            (Block::Max, "Combined") => &mut c.combined_max,
            (Block::Current, "RX") => &mut c.rx,
            (Block::Current, "TX") => &mut c.tx,
            (Block::Current, "Other") => &mut c.other,
            (Block::Current, "Combined") => &mut c.combined,
            _ => continue,
        };
        *slot = count(v)?;
    }
    if c == Channels::default() {
        return Err(ParseError::missing("channel counts"));
    }
    let mut f = Fragment { interface: titled_interface(text, "Channel parameters for "), ..Fragment::default() };
    f.host.channels = Some(Fact::import(c));
    Ok(f)
}

/// One netdev as `ip link` shows it: its name, MTU and, with `-d`, the PCI function it
/// belongs to (`parentbus pci parentdev 0000:3b:00.0`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NetdevLink {
    pub(crate) interface: String,
    pub(crate) mtu: u32,
    pub(crate) bus_info: Option<String>,
}

/// `ip [-d] link` / `ip [-d] address` text (iproute2 ipaddress.c `print_linkinfo`): a line
/// `N: NAME[@LINK]: <FLAGS> mtu M ...` per netdev, and with `-d` `parentbus BUS parentdev DEV`
/// further on. Host-wide: each interface the other files name takes its own.
pub(crate) fn parse_ip_link(text: &str) -> ParseResult<Fragment> {
    let mut links: Vec<NetdevLink> = Vec::new();
    for line in content_lines(text) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let header = words.first().and_then(|w| w.strip_suffix(':')).is_some_and(|n| n.parse::<u32>().is_ok())
            && words.get(2).is_some_and(|w| w.starts_with('<'));
        if header {
            let name = words[1].trim_end_matches(':');
            let name = name.split_once('@').map_or(name, |(n, _)| n);
            let mtu = words
                .windows(2)
                .find(|w| w[0] == "mtu")
                .map(|w| w[1].parse::<u32>().map_err(|_| ParseError::malformed(format!("mtu `{}`", w[1])).at(name)));
            let Some(mtu) = mtu.transpose()? else { return Err(ParseError::missing("`mtu`").at(name)) };
            links.push(NetdevLink { interface: name.to_string(), mtu, bus_info: None });
        } else if let (Some(last), Some(dev)) = (links.last_mut(), words.windows(2).find(|w| w[0] == "parentdev").map(|w| w[1])) {
            if words.windows(2).any(|w| w == ["parentbus", "pci"]) {
                last.bus_info = Some(dev.to_string());
            }
        }
    }
    if links.is_empty() {
        return Err(ParseError::missing("`N: NAME: <FLAGS> mtu M` line"));
    }
    Ok(Fragment { netdev_links: links, ..Fragment::default() })
}

/// `ip -j [-d] link` / `address`: an array of objects with `ifname`, `mtu` and, with `-d`,
/// `parentbus` and `parentdev`.
pub(crate) fn parse_ip_link_json(v: &serde_json::Value) -> ParseResult<Fragment> {
    let list = v.as_array().ok_or_else(|| ParseError::malformed("not an array of links"))?;
    let mut links = Vec::new();
    for l in list {
        let (Some(name), Some(mtu)) = (l.get("ifname").and_then(|n| n.as_str()), l.get("mtu").and_then(|m| m.as_u64())) else {
            continue;
        };
        let mtu = u32::try_from(mtu).map_err(|_| ParseError::malformed(format!("mtu {mtu}")).at(name))?;
        let pci = l.get("parentbus").and_then(|b| b.as_str()) == Some("pci");
        let bus_info = l.get("parentdev").and_then(|d| d.as_str()).filter(|_| pci).map(str::to_string);
        links.push(NetdevLink { interface: name.to_string(), mtu, bus_info });
    }
    if links.is_empty() {
        return Err(ParseError::missing("link with `ifname` and `mtu`"));
    }
    Ok(Fragment { netdev_links: links, ..Fragment::default() })
}

/// Is `v` what `ip -j link` / `address` prints (not `ethtool --json -S`, whose objects also
/// have `ifname`)?
pub(crate) fn is_ip_link_json(v: &serde_json::Value) -> bool {
    v.as_array().and_then(|a| a.first()).is_some_and(|l| l.get("ifname").is_some() && l.get("mtu").is_some() && l.get("flags").is_some())
}

/// One NIC of `nvidia-smi topo -m` and its distance to each GPU of the matrix.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct NicGpus {
    /// The NIC as the legend names it: the RDMA device (`mlx5_0`).
    pub(crate) nic: String,
    /// The matrix's GPUs (their distance unset), shared by its NICs.
    gpus: Arc<[Gpu]>,
    /// This NIC's distance to each of `gpus`, in their order.
    distances: Vec<PciDistance>,
}

impl NicGpus {
    /// The GPUs with the distance this NIC's row states: an interface's own copy.
    pub(crate) fn gpus(&self) -> Vec<Gpu> {
        self.gpus.iter().zip(&self.distances).map(|(g, d)| Gpu { distance: Some(*d), ..g.clone() }).collect()
    }

    /// How many GPUs the matrix names.
    pub(crate) fn gpu_count(&self) -> usize {
        self.gpus.len()
    }
}

/// A cell of the matrix between a NIC and a GPU, in the legend's words.
fn distance(cell: &str) -> Option<PciDistance> {
    Some(match cell {
        "PIX" => PciDistance::Pix,
        "PXB" => PciDistance::Pxb,
        "PHB" => PciDistance::Phb,
        "NODE" => PciDistance::Node,
        "SYS" => PciDistance::Sys,
        _ => return None,
    })
}

/// A matrix label: `GPU3`, `NIC0`, or (before the NIC legend, driver 470 and older) the
/// RDMA device itself (`mlx5_0`). The header's labels end where `CPU Affinity` begins.
fn is_label(w: &str) -> bool {
    w != "CPU" && w != "NUMA" && w != "GPU" && !w.contains(['(', ')'])
}

/// The most labels (GPUs and NICs) a matrix's header may name: every RDMA device of a host
/// with SR-IOV virtual functions is a NIC of the matrix, so room for thousands.
const MAX_TOPO_LABELS: usize = 4096;

/// `nvidia-smi topo -m` (its legend: X, SYS, NODE, PHB, PXB, PIX, NV#): the header row of
/// labels, a row per GPU (its cells, then CPU affinity, NUMA affinity and GPU NUMA ID where
/// the driver prints them) and a row per NIC; `NIC Legend:` names each `NICk`. Every NIC
/// gets every GPU with the distance in its row and the GPU's NUMA node (`NUMA Affinity`,
/// when a single node). Host-wide: [`NicGpus`] finds its interface by RDMA device.
///
/// Read a row at a time, keeping of a NIC's row only its distances to the GPUs: memory
/// follows the NICs and GPUs, at most [`MAX_TOPO_LABELS`] and
/// [`MAX_GPUS`], never the text.
pub(crate) fn parse_nvidia_topo(text: &str) -> ParseResult<Fragment> {
    let mut lines = content_lines(text).map(super::mlxlink_text::strip_ansi);
    let header = lines
        .by_ref()
        .find(|l| l.split_whitespace().next() == Some("GPU0"))
        .ok_or_else(|| ParseError::missing("header row of labels starting with GPU0"))?;
    let labels: Vec<&str> = header.split_whitespace().take_while(|w| is_label(w)).take(MAX_TOPO_LABELS + 1).collect();
    if labels.len() > MAX_TOPO_LABELS {
        return Err(ParseError::TooMany { what: "GPUs and NICs in the matrix: not one host's", max: MAX_TOPO_LABELS });
    }
    let mut column: HashMap<&str, usize> = HashMap::with_capacity(labels.len());
    for (i, l) in labels.iter().enumerate() {
        column.entry(l).or_insert(i);
    }
    let numa_col = header.contains("NUMA Affinity");
    // The header's GPU columns: a NIC's row keeps its cells under these only.
    let gpu_columns: Vec<usize> = labels.iter().enumerate().filter(|(_, l)| l.starts_with("GPU")).map(|(i, _)| i).collect();
    if gpu_columns.len() > MAX_GPUS {
        return Err(ParseError::TooMany { what: "GPUs: not one host's nvidia-smi topo -m", max: MAX_GPUS });
    }
    // The GPU rows (header column, NUMA node) and the NIC rows (label, cell under each GPU column).
    let mut gpu_rows: Vec<(usize, Option<i32>)> = Vec::new();
    let mut nic_rows: Vec<(String, Vec<Option<PciDistance>>)> = Vec::new();
    for line in lines {
        let mut words = line.split_whitespace();
        let Some(label) = words.next() else { break };
        let Some(&col) = column.get(label) else { break };
        if gpu_rows.len() + nic_rows.len() == labels.len() {
            return Err(
                ParseError::malformed(format!("more rows than the header's {} labels", labels.len())).at(format_args!("row {label}"))
            );
        }
        let rest: Vec<&str> = words.take(labels.len() + 2).collect();
        if rest.len() < labels.len() {
            return Err(ParseError::malformed(format!("{} cells for {} labels", rest.len(), labels.len())).at(format_args!("row {label}")));
        }
        if label.starts_with("GPU") {
            // CPU affinity, then the NUMA node(s): one node is the GPU's; a list or N/A is not one.
            let numa = if numa_col { rest.get(labels.len() + 1).and_then(|n| n.parse::<i32>().ok()) } else { None };
            gpu_rows.push((col, numa));
        } else {
            nic_rows.push((label.to_string(), gpu_columns.iter().map(|&c| distance(rest[c])).collect()));
        }
    }
    if gpu_rows.is_empty() {
        return Err(ParseError::missing("GPU rows"));
    }
    // The NIC legend (`NIC0: mlx5_0`), after the matrix: only the matrix's NICs are looked up.
    let mut named: HashMap<&str, String> = nic_rows.iter().map(|(l, _)| (l.as_str(), String::new())).collect();
    for line in content_lines(text) {
        let Some((k, v)) = line.trim().split_once(':') else { continue };
        if let Some(name) = named.get_mut(k.trim_end()).filter(|_| k.starts_with("NIC") && !v.trim().is_empty()) {
            *name = v.trim().to_string();
        }
    }
    let gpus: Arc<[Gpu]> = gpu_rows
        .iter()
        .map(|&(col, numa)| Gpu { bus_info: labels[col].to_string(), pci_id: None, numa_node: numa, pci_path: Vec::new(), distance: None })
        .collect();
    // Each GPU row's place among the header's GPU columns (a row's label is one of the
    // header's, and a GPU's starts with `GPU`, so it is there).
    let places: Vec<(usize, usize)> = gpu_rows
        .iter()
        .map(|&(col, _)| {
            gpu_columns
                .iter()
                .position(|&c| c == col)
                .map(|at| (col, at))
                .ok_or_else(|| ParseError::missing(format!("column {}", labels[col])))
        })
        .collect::<ParseResult<_>>()?;
    let mut out = Vec::new();
    for (label, cells) in &nic_rows {
        let mut distances = Vec::with_capacity(places.len());
        for &(col, at) in &places {
            let d = cells[at].ok_or_else(|| {
                ParseError::malformed("no PCIe distance (PIX, PXB, PHB, NODE or SYS)")
                    .at(format_args!("row {label}, column {}", labels[col]))
            })?;
            distances.push(d);
        }
        let nic = Some(named[label.as_str()].clone()).filter(|n| !n.is_empty()).unwrap_or_else(|| label.clone());
        out.push(NicGpus { nic, gpus: Arc::clone(&gpus), distances });
    }
    if out.is_empty() {
        return Err(ParseError::missing("NIC rows (the node's NICs are not in the matrix)"));
    }
    Ok(Fragment { gpu_topology: out, ..Fragment::default() })
}

/// Is `text` an `nvidia-smi topo -m` matrix: a header row and a row that both begin with
/// `GPU0`, the row's own cell `X`?
pub(crate) fn is_nvidia_topo(text: &str) -> bool {
    let rows: Vec<Vec<String>> = content_lines(text)
        .map(|l| super::mlxlink_text::strip_ansi(l).split_whitespace().map(str::to_string).collect::<Vec<_>>())
        .filter(|w| w.first().is_some_and(|f| f == "GPU0"))
        .collect();
    rows.len() >= 2 && rows.iter().any(|w| w.get(1).is_some_and(|c| c == "X"))
}

/// `ibdev2netdev` (MLNX_OFED): `mlx5_0 port 1 ==> ens1np0 (Up)` per port.
pub(crate) fn parse_ibdev2netdev(text: &str) -> ParseResult<Fragment> {
    let mut map = Vec::new();
    for line in content_lines(text) {
        let w: Vec<&str> = line.split_whitespace().collect();
        if let [dev, "port", _, "==>", netdev, ..] = w.as_slice() {
            map.push((dev.to_string(), netdev.to_string()));
        }
    }
    if map.is_empty() {
        return Err(ParseError::missing("`DEV port N ==> NETDEV` line"));
    }
    Ok(Fragment { rdma_netdevs: map, ..Fragment::default() })
}

/// Is `text` an `ibdev2netdev` output?
pub(crate) fn is_ibdev2netdev(text: &str) -> bool {
    let lines: Vec<&str> = content_lines(text).map(str::trim).filter(|l| !l.is_empty()).collect();
    !lines.is_empty() && lines.iter().all(|l| l.contains(" port ") && l.contains(" ==> "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::host::FactSource;

    const FIX: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/host/import/");

    fn read(name: &str) -> String {
        std::fs::read_to_string(format!("{FIX}{name}")).unwrap()
    }

    /// viona's rings as its `ethtool -g` prints them (propolis PR 1056): rx 2048 and tx 256,
    /// at the maximum; an AQC113's pasted without headings (systemd PR 41289).
    #[test]
    fn rings_from_both_blocks() {
        let f = parse_rings(&read("tools/propolis_ethtool-g")).unwrap();
        assert_eq!(f.interface.as_deref(), Some("eth0"));
        let r = f.host.rings.unwrap();
        assert_eq!((r.value, r.from), (Rings { rx: Some(2048), rx_max: Some(2048), tx: Some(256), tx_max: Some(256) }, FactSource::Import));
        let r = parse_rings(&read("tools/aqc113_ethtool-g")).unwrap().host.rings.unwrap().value;
        assert_eq!(r, Rings { rx: Some(2048), rx_max: Some(8184), tx: Some(4096), tx_max: Some(8184) });
        assert!(parse_rings("Ring parameters for eth0:\nRX: lots\n").is_err());
    }

    /// Real outputs (sources in tests/fixtures/host/README.md): separate rx/tx channels (4/4,
    /// current rx 4 tx 1), and combined ones (64, current 1, with one other).
    #[test]
    fn channels_of_each_kind() {
        let c = parse_channels(&read("tools/ethtool_-l_eno1")).unwrap().host.channels.unwrap().value;
        assert_eq!(c, Channels { rx: Some(4), rx_max: Some(4), tx: Some(1), tx_max: Some(4), ..Channels::default() });
        let f = parse_channels(&read("tools/ethtool_-l_ens3f0")).unwrap();
        assert_eq!(f.interface.as_deref(), Some("ens3f0"));
        let c = f.host.channels.unwrap().value;
        assert_eq!(c, Channels { other: Some(1), other_max: Some(1), combined: Some(1), combined_max: Some(64), ..Channels::default() });
        assert_eq!(c.rx_queues(), Some(1));
    }

    #[test]
    fn ip_link_text_and_json() {
        let f = parse_ip_link(&read("tools/ip_a")).unwrap();
        let got: Vec<(&str, u32)> = f.netdev_links.iter().map(|l| (l.interface.as_str(), l.mtu)).collect();
        assert_eq!(got, [("lo", 65536), ("ens5", 9001)]);
        // `ip -d link` of a veth in another namespace and a PCI netdev (iproute2's layout).
        let d = "5: veth0@if4: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc noqueue state UP mode DEFAULT group default qlen 1000\n    link/ether 0a:00:00:00:00:01 brd ff:ff:ff:ff:ff:ff link-netns t promiscuity 0 allmulti 0 minmtu 68 maxmtu 65535\n    veth addrgenmode eui64 numtxqueues 1 numrxqueues 1 gso_max_size 65536 gso_max_segs 65535\n6: ens1np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP mode DEFAULT group default qlen 1000\n    link/ether b8:3f:d2:00:00:01 brd ff:ff:ff:ff:ff:ff promiscuity 0 minmtu 68 maxmtu 9978 addrgenmode eui64 numtxqueues 504 numrxqueues 63 gso_max_size 65536 gso_max_segs 65535 parentbus pci parentdev 0000:3b:00.0\n";
        let f = parse_ip_link(d).unwrap();
        assert_eq!(f.netdev_links[0], NetdevLink { interface: "veth0".into(), mtu: 1500, bus_info: None });
        assert_eq!(f.netdev_links[1].bus_info.as_deref(), Some("0000:3b:00.0"));
        let j: serde_json::Value = serde_json::from_str(
            r#"[{"ifindex":6,"ifname":"ens1np0","flags":["UP"],"mtu":9000,"parentbus":"pci","parentdev":"0000:3b:00.0"}]"#,
        )
        .unwrap();
        assert!(is_ip_link_json(&j));
        assert_eq!(parse_ip_link_json(&j).unwrap().netdev_links, f.netdev_links[1..]);
        assert!(parse_ip_link("1: lo: <LOOPBACK> qdisc noqueue\n").is_err());
    }

    /// The ESC8000A-E12 (stelline): NIC0 (mlx5_0) is NODE from GPU0 and GPU1 on NUMA node 0
    /// and SYS from GPU2 and GPU3 on node 1; NIC2 (mlx5_2) the other way round.
    #[test]
    fn topo_rows_by_legend_name() {
        let text = read("coyote2/nvidia-smi_topo_-m");
        assert!(is_nvidia_topo(&text));
        let f = parse_nvidia_topo(&text).unwrap();
        let nics: Vec<&str> = f.gpu_topology.iter().map(|n| n.nic.as_str()).collect();
        assert_eq!(nics, ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"]);
        let nic_gpus: Vec<Vec<Gpu>> = f.gpu_topology.iter().map(NicGpus::gpus).collect();
        let row = |i: usize| nic_gpus[i].iter().map(|g| (g.bus_info.as_str(), g.distance.unwrap(), g.numa_node)).collect::<Vec<_>>();
        use PciDistance::*;
        assert_eq!(row(0), [("GPU0", Node, Some(0)), ("GPU1", Node, Some(0)), ("GPU2", Sys, Some(1)), ("GPU3", Sys, Some(1))]);
        assert_eq!(row(2), [("GPU0", Sys, Some(0)), ("GPU1", Sys, Some(0)), ("GPU2", Node, Some(1)), ("GPU3", Node, Some(1))]);
        // The GB200 matrix: NUMA affinity "0,2-17" is no single node.
        let f = parse_nvidia_topo(&read("gb200/nvidia-smi_topo_-m")).unwrap();
        assert_eq!(f.gpu_topology.len(), 8);
        assert!(f.gpu_topology.iter().flat_map(|n| n.gpus()).all(|g| g.distance == Some(Sys) && g.numa_node.is_none()));
        // Before the NIC legend (driver 470 and older) the label is the device, tab-separated.
        let old =
            "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\nGPU0\t X \tNV1\tPHB\t0-7\nGPU1\tNV1\t X \tPHB\t0-7\nmlx5_0\tPHB\tPHB\t X \t\n\nLegend:\n";
        let f = parse_nvidia_topo(old).unwrap();
        assert_eq!((f.gpu_topology[0].nic.as_str(), f.gpu_topology[0].gpus()[1].distance), ("mlx5_0", Some(Phb)));
        assert!(parse_nvidia_topo("\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\n").is_err(), "no NIC row");
    }

    /// A matrix of `gpus` GPUs and `nics` NICs as `nvidia-smi topo -m` lays it out.
    fn matrix(gpus: usize, nics: usize) -> String {
        let labels: Vec<String> = (0..gpus).map(|i| format!("GPU{i}")).chain((0..nics).map(|i| format!("NIC{i}"))).collect();
        let mut text = format!("\t{}\tCPU Affinity\tNUMA Affinity\n", labels.join("\t"));
        for (r, label) in labels.iter().enumerate() {
            let cells: Vec<&str> = (0..labels.len()).map(|c| if c == r { "X" } else { "SYS" }).collect();
            text += &format!("{label}\t{}\t0-7\t0\n", cells.join("\t"));
        }
        text + "\nNIC Legend:\n\n" + &(0..nics).map(|i| format!("  NIC{i}: mlx5_{i}\n")).collect::<String>()
    }

    /// Each NIC keeps one distance per GPU, not the row's text: memory follows what is kept.
    #[test]
    fn a_matrix_past_one_hosts_gpus_labels_or_rows_is_refused() {
        let f = parse_nvidia_topo(&matrix(MAX_GPUS, 2)).unwrap();
        assert_eq!(f.gpu_topology.iter().map(|n| (n.nic.as_str(), n.gpu_count())).collect::<Vec<_>>(), [("mlx5_0", 256), ("mlx5_1", 256)]);
        assert!(Arc::ptr_eq(&f.gpu_topology[0].gpus, &f.gpu_topology[1].gpus), "the GPUs are one list for all NICs");
        let e = parse_nvidia_topo(&matrix(MAX_GPUS + 1, 1)).unwrap_err();
        assert_eq!(e.to_string(), "more than 256 GPUs: not one host's nvidia-smi topo -m");
        let e = parse_nvidia_topo(&matrix(8, MAX_TOPO_LABELS)).unwrap_err();
        assert_eq!(e.to_string(), "more than 4096 GPUs and NICs in the matrix: not one host's");
        // A row repeated past the header's labels is no matrix.
        let text = matrix(1, 1).replace("NIC0\tSYS\tX\t0-7\t0\n", &"NIC0\tSYS\tX\t0-7\t0\n".repeat(3));
        assert!(parse_nvidia_topo(&text).unwrap_err().to_string().contains("more rows than the header's 2 labels"));
        // A cell that is no distance names its row and column.
        let text = matrix(2, 1).replace("NIC0\tSYS\tSYS", "NIC0\tSYS\tNV4");
        let e = parse_nvidia_topo(&text).unwrap_err().to_string();
        assert!(e.contains("row NIC0, column GPU1"), "{e}");
    }

    #[test]
    fn ibdev2netdev_pairs() {
        let text = read("tools/ibdev2netdev");
        assert!(is_ibdev2netdev(&text));
        let f = parse_ibdev2netdev(&text).unwrap();
        assert_eq!(f.rdma_netdevs.len(), 12);
        assert_eq!(f.rdma_netdevs[1], ("mlx5_1".to_string(), "enp27s0f0np0".to_string()));
    }
}
