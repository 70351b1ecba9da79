//! Which tool printed a file, from its content alone (file names only supply the interface).

use super::{content_lines, key_value};

/// Which tool printed a file, and in which of its output forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `mlxlink --json`.
    MlxlinkJson,
    /// `mlxlink` text (`-m`, `-c`, `--show_eye`, ...).
    MlxlinkText,
    /// `mlxlink --amber_collect` CSV (`mlxlink_amber`).
    MlxlinkAmber,
    /// `ethtool -S IFACE` text.
    EthtoolStats,
    /// `ethtool --json -S IFACE`.
    EthtoolStatsJson,
    /// `ethtool --show-fec IFACE [--include-statistics]` text.
    EthtoolFec,
    /// `ethtool --json --show-fec IFACE`.
    EthtoolFecJson,
    /// `ethtool IFACE` (link settings) text.
    EthtoolLink,
    /// `ethtool -i IFACE` (driver, firmware, bus-info).
    EthtoolDrvinfo,
    /// The lspci listing (`lspci`, `-nn`, `-v`, `-vvv`).
    Lspci,
    /// `lspci -t[v]`.
    LspciTree,
    /// `ethtool -m IFACE hex on` / `raw on`, i2cdump, module image JSON (`module::input`).
    ModulePages,
    /// SONiC `sfputil show eeprom-hexdump` (one module per `EEPROM hexdump for port X`).
    SfputilHexdump,
    /// Decoded `ethtool -m IFACE` text and `ethtool --json -m IFACE` (`ethtool_module`).
    EthtoolModuleText,
    /// `ethtool --json -m IFACE` (decoded).
    EthtoolModuleJson,
    /// `/proc/uptime`.
    Uptime,
    /// A switch's view of its ports' modules (the far end of a host link).
    SonicSfpshow,
    /// Arista EOS `show interfaces transceiver [detail]`.
    EosTransceiver,
    /// Arista EOS `show interfaces phy detail | json`.
    EosPhyJson,
    /// Arista EOS `show interfaces [IF] phy detail` as text.
    EosPhyText,
    /// Junos `show interfaces diagnostics optics`.
    JunosOptics,
    /// SONiC `show interfaces transceiver status` / `pm`.
    SonicTransceiverStatus,
    /// SONiC `show interfaces transceiver pm`.
    SonicTransceiverPm,
    /// NVIDIA Cumulus Linux NVUE `nv show interface IF transceiver` (text, `-o json`).
    NvueTransceiver,
    /// NVUE `nv show interface IF link phy-detail` / `link phy health` (text, `-o json`).
    NvuePhyDetail,
    /// SONiC `show interfaces counters fec-stats` / `portstat -f`.
    SonicFecStats,
    /// SONiC `show interfaces counters fec-histogram` / `portstat -fh`.
    SonicFecHistogram,
    /// lldpd's `lldpcli show neighbors` (text, `-f keyvalue`, `-f json` / `json0`).
    LldpText,
    /// `lldpcli -f keyvalue show neighbors`.
    LldpKeyvalue,
    /// `lldpcli -f json show neighbors` (and `json0`).
    LldpJson,
    /// `ibstat`.
    Ibstat,
    /// `ibstatus`.
    Ibstatus,
    /// `perfquery` and `perfquery -x`.
    Perfquery,
    /// A copied `/sys/class/infiniband` tree (a directory, not a file's content).
    IbSysfs,
    /// A copied `/sys/class/net` and `/sys/bus/pci/devices` tree (a directory, not a file's content).
    NetSysfs,
    /// `ethtool -g IFACE` (ring sizes).
    EthtoolRings,
    /// `ethtool -l IFACE` (channels).
    EthtoolChannels,
    /// `ip [-d] link` / `ip [-d] address` text and `-j` JSON.
    IpLink,
    /// `ip -j [-d] link` / `address` JSON.
    IpLinkJson,
    /// `nvidia-smi topo -m`.
    NvidiaTopo,
    /// `ibdev2netdev` (RDMA device and port to netdev).
    Ibdev2netdev,
    /// `ethtool [-I] -a` / `--show-pause` text and `--json`.
    EthtoolPause,
    /// `ethtool --json [-I] -a IFACE`.
    EthtoolPauseJson,
    /// The kernel log: `dmesg`, `dmesg -T`, `journalctl -k`, syslog.
    KernelLog,
}

impl Format {
    /// The outputs of an `ethtool` command run on one interface (its text forms: a paste
    /// may keep the command line that names the interface).
    pub(crate) fn is_ethtool_text(self) -> bool {
        matches!(
            self,
            Format::EthtoolStats
                | Format::EthtoolFec
                | Format::EthtoolLink
                | Format::EthtoolDrvinfo
                | Format::EthtoolRings
                | Format::EthtoolChannels
                | Format::EthtoolPause
                | Format::ModulePages
                | Format::EthtoolModuleText
        )
    }

    pub(crate) fn name(&self) -> &'static str {
        match self {
            Format::MlxlinkJson => "mlxlink --json",
            Format::MlxlinkText => "mlxlink",
            Format::MlxlinkAmber => "mlxlink --amber_collect (CSV)",
            Format::EthtoolStats => "ethtool -S",
            Format::EthtoolStatsJson => "ethtool --json -S",
            Format::EthtoolFec => "ethtool --show-fec",
            Format::EthtoolFecJson => "ethtool --json --show-fec",
            Format::EthtoolLink => "ethtool IFACE",
            Format::EthtoolDrvinfo => "ethtool -i",
            Format::Lspci => "lspci -vvv",
            Format::LspciTree => "lspci -tv",
            Format::ModulePages => "ethtool -m (module pages)",
            Format::SfputilHexdump => "sfputil show eeprom-hexdump (SONiC)",
            Format::EthtoolModuleText => "ethtool -m (decoded)",
            Format::EthtoolModuleJson => "ethtool --json -m",
            Format::Uptime => "uptime",
            Format::SonicSfpshow => "show interfaces transceiver eeprom --dom (SONiC)",
            Format::EosTransceiver => "show interfaces transceiver (Arista EOS)",
            Format::EosPhyJson => "show interfaces phy detail | json (Arista EOS)",
            Format::EosPhyText => "show interfaces phy detail (Arista EOS)",
            Format::JunosOptics => "show interfaces diagnostics optics (Junos)",
            Format::SonicTransceiverStatus => "show interfaces transceiver status (SONiC)",
            Format::SonicTransceiverPm => "show interfaces transceiver pm (SONiC)",
            Format::NvueTransceiver => "nv show interface IF transceiver (NVUE)",
            Format::NvuePhyDetail => "nv show interface IF link phy-detail (NVUE)",
            Format::SonicFecStats => "show interfaces counters fec-stats (SONiC)",
            Format::SonicFecHistogram => "show interfaces counters fec-histogram (SONiC)",
            Format::LldpText => "lldpcli show neighbors",
            Format::LldpKeyvalue => "lldpcli -f keyvalue show neighbors",
            Format::LldpJson => "lldpcli -f json show neighbors",
            Format::Ibstat => "ibstat",
            Format::Ibstatus => "ibstatus",
            Format::Perfquery => "perfquery",
            Format::IbSysfs => "sysfs class/infiniband",
            Format::NetSysfs => "sysfs class/net",
            Format::EthtoolRings => "ethtool -g",
            Format::EthtoolChannels => "ethtool -l",
            Format::IpLink => "ip link",
            Format::IpLinkJson => "ip -j link",
            Format::NvidiaTopo => "nvidia-smi topo -m",
            Format::Ibdev2netdev => "ibdev2netdev",
            Format::EthtoolPause => "ethtool -a",
            Format::EthtoolPauseJson => "ethtool --json -a",
            Format::KernelLog => "kernel log (dmesg, journalctl -k)",
        }
    }
}

fn recognize_json(v: &serde_json::Value) -> Option<Format> {
    if v.pointer("/result/output").is_some() || v.get("Operational Info").is_some() || v.get("Physical Counters and BER Info").is_some() {
        return Some(Format::MlxlinkJson);
    }
    if super::lldp::is_json(v) {
        return Some(Format::LldpJson);
    }
    if let Some(f) = super::nvue::recognize_json(v) {
        return Some(f);
    }
    if super::eos_phy::is_eos_phy_json(v) {
        return Some(Format::EosPhyJson);
    }
    if v.get("pages").is_some() {
        return Some(Format::ModulePages);
    }
    if super::ethtool_module::is_decoded_json(v) {
        return Some(Format::EthtoolModuleJson);
    }
    if super::host_tools::is_ip_link_json(v) {
        return Some(Format::IpLinkJson);
    }
    if super::ethtool_pause::is_json(v) {
        return Some(Format::EthtoolPauseJson);
    }
    let first = v.as_array()?.first()?;
    if first.get("active").is_some() || first.get("config").is_some() {
        Some(Format::EthtoolFecJson)
    } else if first.get("ifname").is_some() {
        Some(Format::EthtoolStatsJson)
    } else {
        None
    }
}

/// `ethtool -S` lines: `name: <unsigned integer>` (with or without the `NIC statistics:` heading).
fn is_stat_line(line: &str) -> bool {
    key_value(line).is_some_and(|(k, v)| !k.is_empty() && !v.is_empty() && v.parse::<u64>().is_ok())
}

/// The format of `bytes`, or `None` when no parser knows it.
pub fn recognize(bytes: &[u8]) -> Option<Format> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let Ok(text) = std::str::from_utf8(bytes) else {
        // A flat binary EEPROM dump.
        return crate::module::input::parse(bytes).is_ok().then_some(Format::ModulePages);
    };
    // Before JSON: `[   18.577870] ...` opens with a bracket too.
    if super::kernel_log::is_kernel_log(text) {
        return Some(Format::KernelLog);
    }
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        return serde_json::from_str::<serde_json::Value>(trimmed).ok().as_ref().and_then(recognize_json);
    }
    if !crate::module::input::sfputil_ports(text).is_empty() {
        return Some(Format::SfputilHexdump);
    }
    let lines: Vec<&str> = content_lines(text).map(str::trim).filter(|l| !l.is_empty()).collect();
    let starts = |p: &str| lines.iter().any(|l| l.starts_with(p));
    if starts("CA '") && lines.iter().any(|l| l.starts_with("Port ") && l.ends_with(':')) {
        return Some(Format::Ibstat);
    }
    if starts("Infiniband device '") {
        return Some(Format::Ibstatus);
    }
    if lines.iter().any(|l| super::ib_tools::is_perfquery_line(l)) {
        return Some(Format::Perfquery);
    }
    if starts("FEC parameters for ") {
        return Some(Format::EthtoolFec);
    }
    if starts("Settings for ") {
        return Some(Format::EthtoolLink);
    }
    if super::ethtool_pause::is_text(text) {
        return Some(Format::EthtoolPause);
    }
    if starts("Ring parameters for ") || (starts("RX Mini:") && starts("RX Jumbo:")) {
        return Some(Format::EthtoolRings);
    }
    if starts("Channel parameters for ") || (starts("Combined:") && starts("Other:")) {
        return Some(Format::EthtoolChannels);
    }
    if super::host_tools::is_nvidia_topo(text) {
        return Some(Format::NvidiaTopo);
    }
    if super::host_tools::is_ibdev2netdev(text) {
        return Some(Format::Ibdev2netdev);
    }
    if super::host_tools::parse_ip_link(text).is_ok() {
        return Some(Format::IpLink);
    }
    if starts("driver:") && starts("bus-info:") {
        return Some(Format::EthtoolDrvinfo);
    }
    if super::lspci::is_listing(text) {
        return Some(Format::Lspci);
    }
    if super::lspci::is_tree(text) {
        return Some(Format::LspciTree);
    }
    let titled = |t: &str| lines.windows(2).any(|w| super::mlxlink_text::strip_ansi(w[0]) == t && w[1].starts_with("---"));
    if [
        "Operational Info",
        "Physical Counters and BER Info",
        "Module Info",
        "Histogram of FEC Errors",
        "EYE Opening Info",
        "EYE Opening Info (PCIe)",
    ]
    .iter()
    .any(|t| titled(t))
    {
        return Some(Format::MlxlinkText);
    }
    if super::mlxlink_amber::is_amber_csv(text) {
        return Some(Format::MlxlinkAmber);
    }
    if super::lldp::is_text(text) {
        return Some(Format::LldpText);
    }
    if super::lldp::is_keyvalue(text) {
        return Some(Format::LldpKeyvalue);
    }
    if let Some(f) = super::sonic_counters::recognize(text) {
        return Some(f);
    }
    if super::sonic_xcvr::is_status(text) {
        return Some(Format::SonicTransceiverStatus);
    }
    if super::sonic_xcvr::is_pm(text) {
        return Some(Format::SonicTransceiverPm);
    }
    if super::sonic_sfpshow::is_sfpshow(text) {
        return Some(Format::SonicSfpshow);
    }
    if super::eos_transceiver::is_eos_transceiver(text) {
        return Some(Format::EosTransceiver);
    }
    if super::eos_phy::is_eos_phy_text(text) {
        return Some(Format::EosPhyText);
    }
    if super::junos_optics::is_junos_optics(text) {
        return Some(Format::JunosOptics);
    }
    if let Some(f) = super::nvue::recognize(text) {
        return Some(f);
    }
    if super::ethtool_module::is_decoded_text(text) {
        return Some(Format::EthtoolModuleText);
    }
    if starts("NIC statistics:")
        || lines.first().is_some_and(|l| l.starts_with("Stats for ") && l.ends_with(':'))
        || (!lines.is_empty() && lines.iter().all(|l| is_stat_line(l)))
    {
        return Some(Format::EthtoolStats);
    }
    if super::uptime::parse(text).is_ok() {
        return Some(Format::Uptime);
    }
    crate::module::input::parse(bytes).is_ok().then_some(Format::ModulePages)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_by_content() {
        assert_eq!(recognize(b"NIC statistics:\n     rx_packets: 1\n"), Some(Format::EthtoolStats));
        assert_eq!(recognize(b"rx_err_lane_0_phy: 6\nrx_err_lane_1_phy: 2\n"), Some(Format::EthtoolStats));
        assert_eq!(recognize(b"Stats for eth0:\neth-phy-SymbolErrorDuringCarrier: 1\n"), Some(Format::EthtoolStats));
        assert_eq!(recognize(b"FEC parameters for eth0:\nActive FEC encoding: RS\n"), Some(Format::EthtoolFec));
        assert_eq!(recognize(b"Settings for eth0:\n\tSpeed: 400000Mb/s\n"), Some(Format::EthtoolLink));
        assert_eq!(recognize(b"driver: mlx5_core\nversion: 6.8\nbus-info: 0000:3b:00.0\n"), Some(Format::EthtoolDrvinfo));
        assert_eq!(recognize(b"12345.67 20000.00\n"), Some(Format::Uptime));
        assert_eq!(recognize(b"CA 'mlx5_0'\n\tPort 1:\n\t\tState: Active\n"), Some(Format::Ibstat));
        assert_eq!(recognize(b"Infiniband device 'mlx5_0' port 1 status:\n"), Some(Format::Ibstatus));
        assert_eq!(recognize(b"# Port counters: Lid 1 port 1\nSymbolErrorCounter:..............0\n"), Some(Format::Perfquery));
        assert_eq!(recognize(b"Operational Info\n----------------\nState : Active\n"), Some(Format::MlxlinkText));
        assert_eq!(recognize(br#"{"result":{"output":{}}}"#), Some(Format::MlxlinkJson));
        assert_eq!(recognize(br#"[{"ifname":"eth0","active":["RS"]}]"#), Some(Format::EthtoolFecJson));
        assert_eq!(recognize(br#"[{"ifname":"eth0","rx_packets":1}]"#), Some(Format::EthtoolStatsJson));
        assert_eq!(recognize(b"0x0000: 11 07 00 00\n"), Some(Format::ModulePages));
        assert_eq!(recognize(b"\tIdentifier : 0x03 (SFP)\n\tVendor name : FS\n"), Some(Format::EthtoolModuleText));
        assert_eq!(recognize(br#"[{"identifier":3,"identifier_description":"SFP"}]"#), Some(Format::EthtoolModuleJson));
        assert_eq!(recognize(b"Ethernet0: SFP EEPROM detected\n        Vendor SN: X\n"), Some(Format::SonicSfpshow));
        assert_eq!(
            recognize(b"Port      (Celsius)  (Volts)   (mA)      (dBm)     (dBm)     Last Update\n Tx Power  Rx Power\nEt1 1 1 1 1 1\n"),
            Some(Format::EosTransceiver)
        );
        assert_eq!(recognize(br#"{"interfacePhyStatuses": {"Ethernet1/1": {}}}"#), Some(Format::EosPhyJson));
        let phy = b"Ethernet1/1\n        Current State  Changes  Last Change\n  PHY state        linkUp     2    0:01:02 ago\n";
        assert_eq!(recognize(phy), Some(Format::EosPhyText));
        assert_eq!(recognize(b"Physical interface: xe-0/1/7\n    Laser output power : 0.6560 mW / -1.83 dBm\n"), Some(Format::JunosOptics));
        // Junos `show interfaces` (no optics lines) is not the optics view.
        assert_eq!(recognize(b"Physical interface: xe-0/1/7, Enabled, Physical link is Up\n  Link-level type: Ethernet\n"), None);
        // Not a counter dump: a value is not an integer.
        assert_eq!(recognize(b"hello: world\n"), None);
        assert_eq!(recognize(b"just some notes\n"), None);
    }
}
