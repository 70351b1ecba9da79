//! InfiniBand tool outputs: `ibstat`, `ibstatus` (rdma-core / infiniband-diags), and
//! `perfquery` / `perfquery -x` (the PMA `PortCounters` / `PortCountersExtended`), each into
//! one [`IbFragment`] per port they print (docs/infiniband.md "Imports").
//!
//! `ibstat` prints `Rate: 400` (Gb/s, no width); `ibstatus` prints the kernel's `rate` text
//! (`200 Gb/sec (4X HDR)`) and `state` as sysfs does (`4: ACTIVE`). `perfquery` names no CA,
//! only `Lid N port P`: its port is found by LID from an `ibstat`/`ibstatus` of the same
//! input, or from the file name sosreport gives it (`perfquery_-C_mlx5_0_-P_1`).

use super::{IbFragment, ParseError, ParseResult};
use crate::counters::ib::IbRate;
use crate::counters::LinkInfo;
use crate::device::{IbPort, PciAddress};

/// Most ports one output may list (a 64-port switch's worth twice over).
const MAX_PORTS: usize = 128;

fn port_fragment(hca: &str, port: u32) -> IbFragment {
    IbFragment {
        hca: Some(hca.to_string()),
        port: Some(port),
        identity: IbPort { hca: hca.to_string(), port, ..Default::default() },
        ..Default::default()
    }
}

/// `ibstat`: `CA 'mlx5_0'` blocks with `Firmware version:` and `Node GUID:`, then `Port N:` blocks with
/// `State: Active`, `Physical state: LinkUp`, `Rate: 400`, `Base lid: 50`, `Link layer: InfiniBand`.
pub(crate) fn parse_ibstat(text: &str) -> ParseResult<Vec<IbFragment>> {
    let mut out: Vec<IbFragment> = Vec::new();
    let (mut ca, mut fw, mut guid): (Option<String>, Option<String>, Option<String>) = (None, None, None);
    for line in text.lines().map(str::trim) {
        if let Some(name) = line.strip_prefix("CA '").and_then(|r| r.strip_suffix('\'')) {
            (ca, fw, guid) = (Some(name.to_string()), None, None);
            continue;
        }
        let Some((k, v)) = super::key_value(line) else { continue };
        if k == "Firmware version" {
            fw = Some(v.to_string()).filter(|v| !v.is_empty());
        } else if k == "Node GUID" {
            guid = Some(v.to_string()).filter(|v| !v.is_empty());
        } else if let Some(n) = k.strip_prefix("Port ").filter(|_| v.is_empty()) {
            let (Some(hca), Ok(n)) = (&ca, n.parse::<u32>()) else { continue };
            if out.len() == MAX_PORTS {
                return Err(ParseError::TooMany { what: "ports: not one host's ibstat", max: MAX_PORTS });
            }
            let mut f = port_fragment(hca, n);
            f.identity.fw_ver.clone_from(&fw);
            f.identity.node_guid.clone_from(&guid);
            out.push(f);
        } else if let Some(f) = out.last_mut().filter(|f| f.hca == ca) {
            match k {
                "State" => f.sample.state = Some(v.to_string()),
                "Physical state" => f.sample.phys_state = Some(v.to_string()),
                "Rate" => {
                    f.identity.rate = Some(v.to_string());
                    // Gb/s: 400 -> 400000 Mb/s; 2.5 (SDR 1X) -> 2500.
                    let mbps = v.parse::<f64>().ok().filter(|g| g.is_finite() && *g > 0.0 && *g < 1e5).map(|g| (g * 1000.0).round() as u32);
                    f.link = Some(LinkInfo { speed_mbps: mbps, ..Default::default() });
                }
                "Base lid" => f.lid = parse_lid(v),
                "Link layer" => f.identity.link_layer = Some(v.to_string()),
                _ => {}
            }
        }
    }
    if out.is_empty() {
        return Err(ParseError::missing("`CA '<name>'` with a `Port N:` block"));
    }
    Ok(out)
}

/// A LID as printed: decimal (`ibstat`) or `0x22` (`ibstatus`).
fn parse_lid(v: &str) -> Option<u32> {
    match v.strip_prefix("0x") {
        Some(hex) => u32::from_str_radix(hex, 16).ok(),
        None => v.parse().ok(),
    }
}

/// `ibstatus`: `Infiniband device 'mlx5_0' port 1 status:` blocks with `base lid: 0x22`,
/// `state: 4: ACTIVE`, `phys state: 5: LinkUp`, `rate: 200 Gb/sec (4X HDR)`, `link_layer: InfiniBand`.
pub(crate) fn parse_ibstatus(text: &str) -> ParseResult<Vec<IbFragment>> {
    let mut out: Vec<IbFragment> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("Infiniband device '") {
            let Some((hca, rest)) = rest.split_once('\'') else { continue };
            let port = rest.trim().strip_prefix("port ").and_then(|r| r.split_whitespace().next()).and_then(|p| p.parse().ok());
            let Some(port) = port else { continue };
            if out.len() == MAX_PORTS {
                return Err(ParseError::TooMany { what: "ports: not one host's ibstatus", max: MAX_PORTS });
            }
            out.push(port_fragment(hca, port));
            continue;
        }
        let (Some(f), Some((k, v))) = (out.last_mut(), super::key_value(line)) else { continue };
        match k {
            "state" => f.sample.state = Some(v.to_string()),
            "phys state" => f.sample.phys_state = Some(v.to_string()),
            "rate" => {
                f.identity.rate = Some(v.to_string());
                f.link = IbRate::parse(v).map(|r| r.link_info());
            }
            "base lid" => f.lid = parse_lid(v),
            "link_layer" => f.identity.link_layer = Some(v.to_string()),
            _ => {}
        }
    }
    if out.is_empty() {
        return Err(ParseError::missing("`Infiniband device '<name>' port N status:` block"));
    }
    Ok(out)
}

/// `perfquery` field names (current infiniband-diags, and the older short ones) -> the
/// sysfs `counters/` file of the same `PortCounters` field.
const PERFQUERY_NAMES: &[(&str, &str)] = &[
    ("SymbolErrorCounter", "symbol_error"),
    ("SymbolErrors", "symbol_error"),
    ("LinkErrorRecoveryCounter", "link_error_recovery"),
    ("LinkRecovers", "link_error_recovery"),
    ("LinkDownedCounter", "link_downed"),
    ("LinkDowned", "link_downed"),
    ("PortRcvErrors", "port_rcv_errors"),
    ("RcvErrors", "port_rcv_errors"),
    ("PortRcvRemotePhysicalErrors", "port_rcv_remote_physical_errors"),
    ("RcvRemotePhysErrors", "port_rcv_remote_physical_errors"),
    ("PortRcvSwitchRelayErrors", "port_rcv_switch_relay_errors"),
    ("RcvSwRelayErrors", "port_rcv_switch_relay_errors"),
    ("PortXmitDiscards", "port_xmit_discards"),
    ("XmtDiscards", "port_xmit_discards"),
    ("PortXmitConstraintErrors", "port_xmit_constraint_errors"),
    ("XmtConstraintErrors", "port_xmit_constraint_errors"),
    ("PortRcvConstraintErrors", "port_rcv_constraint_errors"),
    ("RcvConstraintErrors", "port_rcv_constraint_errors"),
    ("LocalLinkIntegrityErrors", "local_link_integrity_errors"),
    ("LinkIntegrityErrors", "local_link_integrity_errors"),
    ("ExcessiveBufferOverrunErrors", "excessive_buffer_overrun_errors"),
    ("ExcBufOverrunErrors", "excessive_buffer_overrun_errors"),
    ("VL15Dropped", "VL15_dropped"),
    ("PortXmitData", "port_xmit_data"),
    ("XmtData", "port_xmit_data"),
    ("PortRcvData", "port_rcv_data"),
    ("RcvData", "port_rcv_data"),
    ("PortXmitPkts", "port_xmit_packets"),
    ("XmtPkts", "port_xmit_packets"),
    ("PortRcvPkts", "port_rcv_packets"),
    ("RcvPkts", "port_rcv_packets"),
    ("PortXmitWait", "port_xmit_wait"),
    ("XmtWait", "port_xmit_wait"),
    ("PortUnicastXmitPkts", "unicast_xmit_packets"),
    ("PortUnicastRcvPkts", "unicast_rcv_packets"),
    ("PortMulticastXmitPkts", "multicast_xmit_packets"),
    ("PortMulticastRcvPkts", "multicast_rcv_packets"),
];

/// True when a line is a `perfquery` counter (`SymbolErrorCounter:..............0`).
pub(crate) fn is_perfquery_line(line: &str) -> bool {
    line.split_once(':').is_some_and(|(k, v)| PERFQUERY_NAMES.iter().any(|(n, _)| *n == k.trim()) && v.starts_with('.'))
}

/// `perfquery [-x]`: `# Port [extended] counters: Lid 10 port 1 ...` then `Name:....value` lines.
pub(crate) fn parse_perfquery(text: &str) -> ParseResult<Vec<IbFragment>> {
    let mut out: Vec<IbFragment> = Vec::new();
    for line in text.lines().map(str::trim) {
        if let Some(rest) = line.strip_prefix("# Port ").and_then(|r| r.split_once("counters:")).map(|(_, r)| r) {
            let mut words = rest.split_whitespace();
            // PMA MADs travel the InfiniBand fabric: only an IB link layer answers perfquery.
            let mut f = IbFragment::default();
            f.identity.link_layer = Some("InfiniBand".into());
            while let Some(w) = words.next() {
                match w {
                    "Lid" => f.lid = words.next().and_then(parse_lid),
                    "port" => f.port = words.next().and_then(|p| p.parse().ok()),
                    _ => {}
                }
            }
            if out.len() == MAX_PORTS {
                return Err(ParseError::TooMany { what: "ports: not one host's perfquery", max: MAX_PORTS });
            }
            out.push(f);
            continue;
        }
        let Some((k, v)) = line.split_once(':') else { continue };
        let Some((_, name)) = PERFQUERY_NAMES.iter().find(|(n, _)| *n == k.trim()) else { continue };
        let Ok(value) = v.trim_start_matches('.').trim().parse::<u64>() else {
            return Err(ParseError::malformed(format!("{:?} is not a counter value", v.trim_start_matches('.'))).at(k.trim()));
        };
        // A counter before any heading: perfquery's own output always has one; keep it anyway.
        if out.is_empty() {
            let mut f = IbFragment::default();
            f.identity.link_layer = Some("InfiniBand".into());
            out.push(f);
        }
        if let Some(f) = out.last_mut() {
            f.sample.counters.insert(name.to_string(), value);
        }
    }
    out.retain(|f| !f.sample.counters.is_empty());
    if out.is_empty() {
        return Err(ParseError::missing("PortCounters field (SymbolErrorCounter:....N)"));
    }
    Ok(out)
}

/// The port sosreport's file name gives a `perfquery -C mlx5_0 -P 1`: `perfquery_-C_mlx5_0_-P_1`.
pub(crate) fn port_from_file_name(name: &str) -> Option<String> {
    let rest = name.strip_prefix("perfquery_")?;
    let (hca, port) = rest.strip_prefix("-C_")?.split_once("_-P_")?;
    let port: u32 = port.parse().ok()?;
    crate::source::infiniband::parse_port_name(&format!("{hca}/{port}")).map(|(h, p)| format!("{h}/{p}"))
}

/// The device a saved `mlxlink` output names: an RDMA device (`mlx5_0`) or a PCI function
/// (`0000:12:00.0`), and the port (`-p`, 1 when not given: mlxlink's default).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum MlxlinkDevice {
    Rdma(String),
    Pci(PciAddress),
}

/// The device and port a saved `mlxlink` output's file name gives, as sosreport names a
/// command's output (its `_mangle_command`: every run of characters other than letters,
/// digits, `-`, `.` and `/` becomes `_`, `/` becomes `.`): `mlxlink_-d_mlx5_0_-p_1_-m_-c`
/// (RDMA device mlx5_0, port 1), `mlxlink_-d_0000_12_00.0` (the `mellanox_firmware`
/// plugin's `mlxlink -d <PCI address>`, port 1). An mst device (`.dev.mst.mt4123_pciconf0`)
/// names no port optics can find.
pub(crate) fn mlxlink_device_from_file_name(name: &str) -> Option<(MlxlinkDevice, u32)> {
    let rest = name.strip_prefix("mlxlink_")?;
    let args: Vec<&str> = rest.split('_').collect();
    // Each option starts a word with `-`; its value is the words up to the next option.
    let value = |flags: &[&str]| -> Option<String> {
        let at = args.iter().position(|a| flags.contains(a))?;
        let words: Vec<&str> = args[at + 1..].iter().take_while(|w| !w.starts_with('-')).copied().collect();
        (!words.is_empty()).then(|| words.join("_"))
    };
    let device = value(&["-d", "--device"])?;
    let port = match value(&["-p", "--port"]) {
        Some(p) => p.parse().ok().filter(|p| *p > 0)?,
        None => 1,
    };
    // sosreport's PCI address: `0000_12_00.0` (domain, bus, device.function) or `12_00.0`.
    if let Some(address) = PciAddress::parse_domain_optional(&device.replace('_', ":")) {
        return Some((MlxlinkDevice::Pci(address), port));
    }
    crate::source::infiniband::parse_port_name(&format!("{device}/{port}"))
        .filter(|(hca, _)| !hca.starts_with('.'))
        .map(|(hca, p)| (MlxlinkDevice::Rdma(hca.to_string()), p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ibstat_blocks() {
        let t = "CA 'mlx5_0'\n\tCA type: MT4129\n\tFirmware version: 28.43.2026\n\tNode GUID: 0xa088c2030074cfda\n\tPort 1:\n\t\tState: Active\n\t\tPhysical state: LinkUp\n\t\tRate: 400\n\t\tBase lid: 50\n\t\tLink layer: InfiniBand\n";
        let p = parse_ibstat(t).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name().as_deref(), Some("mlx5_0/1"));
        assert_eq!(p[0].link.as_ref().unwrap().speed_mbps, Some(400_000));
        assert_eq!(p[0].lid, Some(50));
        assert_eq!(p[0].sample.link_up(), Some(true));
        assert_eq!(p[0].identity.fw_ver.as_deref(), Some("28.43.2026"));
        assert_eq!(p[0].identity.node_guid.as_deref(), Some("0xa088c2030074cfda"));
    }

    #[test]
    fn perfquery_blocks_and_names() {
        let t = "# Port counters: Lid 936 port 1\nPortSelect:......................1\nSymbolErrors:....................3\nXmtData:.........................905972985\n";
        let p = parse_perfquery(t).unwrap();
        assert_eq!((p[0].lid, p[0].port), (Some(936), Some(1)));
        assert_eq!(p[0].sample.counters["symbol_error"], 3);
        assert_eq!(p[0].sample.counters["port_xmit_data"], 905_972_985);
        assert!(parse_perfquery("SymbolErrorCounter:.....x\n").is_err());
        assert_eq!(port_from_file_name("perfquery_-C_mlx5_0_-P_1").as_deref(), Some("mlx5_0/1"));
        assert_eq!(port_from_file_name("perfquery"), None);
    }

    #[test]
    fn mlxlink_file_names_as_sosreport_mangles_them() {
        // `mlxlink -d mlx5_0 -p 2 -m -c` and the mellanox_firmware plugin's `mlxlink -d  0000:12:00.0 `.
        let rdma = |h: &str, p| Some((MlxlinkDevice::Rdma(h.into()), p));
        assert_eq!(mlxlink_device_from_file_name("mlxlink_-d_mlx5_0_-p_2_-m_-c"), rdma("mlx5_0", 2));
        assert_eq!(mlxlink_device_from_file_name("mlxlink_-d_mlx5_11"), rdma("mlx5_11", 1));
        let pci = |a: &str, p| Some((MlxlinkDevice::Pci(PciAddress::parse(a).unwrap()), p));
        assert_eq!(mlxlink_device_from_file_name("mlxlink_-d_0000_12_00.0"), pci("0000:12:00.0", 1));
        assert_eq!(mlxlink_device_from_file_name("mlxlink_-d_12_00.0_-p_1"), pci("0000:12:00.0", 1));
        assert_eq!(mlxlink_device_from_file_name("mlxlink_-d_10000_e1_00.0"), pci("10000:e1:00.0", 1));
        for none in [
            "mlxlink",
            "mlxlink_-m_-c",
            "mlxlink_-d_.dev.mst.mt4123_pciconf0",
            "mlxlink_-d_mlx5_0_-p_x",
            "mlxlink_-d_mlx5_0_-p_0",
            "ethtool_-S_x",
        ] {
            assert_eq!(mlxlink_device_from_file_name(none), None, "{none}");
        }
    }
}
