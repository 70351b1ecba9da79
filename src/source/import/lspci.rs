//! `lspci -vvv`: each device starts at column 0 with its address (`3b:00.0 Ethernet
//! controller: ...`, or `0000:3b:00.0` with `-D`); its PCI Express capability prints
//! `LnkCap: Port #0, Speed 16GT/s, Width x16, ...` (what it can do) and `LnkSta: Speed
//! 16GT/s (ok), Width x8 (downgraded)` (what it trained to). They become the sysfs-shaped
//! [`PciLink`] (`current_link_speed` "16.0 GT/s PCIe") the live source records.

use super::{content_lines, Fragment, ParseError, ParseResult};
use crate::device::PciLink;
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

pub fn parse(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    let mut cur: Option<(String, bool, PciLink)> = None;
    // A device counts once it printed a link line.
    let flush = |cur: &mut Option<(String, bool, PciLink)>, f: &mut Fragment| {
        if let Some((addr, _, link)) = cur.take().filter(|c| c.1) {
            f.pci_devices.push((addr, link));
        }
    };
    for line in content_lines(text) {
        if !line.starts_with(char::is_whitespace) && !line.trim().is_empty() {
            flush(&mut cur, &mut f);
            let addr = line.split_whitespace().next().unwrap_or("").to_string();
            cur = Some((addr, false, PciLink::default()));
            continue;
        }
        let t = line.trim();
        let Some((_, seen, link)) = cur.as_mut() else { continue };
        if let Some(rest) = t.strip_prefix("LnkCap:") {
            (link.max_link_speed, link.max_link_width) = speed_width(rest);
            *seen = true;
        } else if let Some(rest) = t.strip_prefix("LnkSta:") {
            (link.current_link_speed, link.current_link_width) = speed_width(rest);
            *seen = true;
        }
    }
    flush(&mut cur, &mut f);
    if f.pci_devices.is_empty() {
        return Err(ParseError::missing("device with LnkCap/LnkSta"));
    }
    Ok(f)
}

/// A PCI address as lspci and `ethtool -i` bus-info are compared: without its domain
/// (`0000:3b:00.0` -> `3b:00.0`; lspci prints none for domain 0), lower case.
pub fn address_key(addr: &str) -> String {
    let bdf = if addr.matches(':').count() == 2 { addr.split_once(':').map_or("", |(_, r)| r) } else { addr };
    bdf.to_ascii_lowercase()
}

/// True when `lspci_addr` (`3b:00.0` or `0000:3b:00.0`) is PCI address `bus_info`.
pub fn same_address(lspci_addr: &str, bus_info: &str) -> bool {
    address_key(lspci_addr) == address_key(bus_info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capable_vs_trained() {
        // Layout of lspci -vvv (pciutils ls-caps.c cap_express_link): a bridge, then the NIC
        // trained at half width.
        let text = "00:01.0 PCI bridge: Intel Corporation Device 1234\n\tCapabilities: [40] Express (v2) Root Port (Slot+), MSI 00\n\
                    \t\tLnkCap:\tPort #1, Speed 16GT/s, Width x16, ASPM L1, Exit Latency L1 <16us\n\
                    \t\tLnkSta:\tSpeed 16GT/s, Width x16\n\
                    3b:00.0 Ethernet controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n\
                    \tSubsystem: Mellanox Technologies Device 0026\n\
                    \tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\
                    \t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n\
                    \t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x8 (downgraded)\n";
        let f = parse(text).unwrap();
        assert_eq!(f.pci_devices.len(), 2);
        let (addr, link) = &f.pci_devices[1];
        assert_eq!(addr, "3b:00.0");
        assert_eq!(link.max_link_speed.as_deref(), Some("32.0 GT/s PCIe"));
        assert_eq!((link.max_link_width, link.current_link_width), (Some(16), Some(8)));
        assert_eq!(link.current_link_speed.as_deref(), Some("16.0 GT/s PCIe"));
        assert!(same_address("3b:00.0", "0000:3b:00.0") && same_address("0000:3b:00.0", "0000:3B:00.0"));
        assert!(!same_address("3b:00.1", "0000:3b:00.0"));
    }
}
