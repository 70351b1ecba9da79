//! Section 8: `import` of a support bundle with many ports (`source::import::import`): one
//! folder with, per interface, `ethtool -S` and `ethtool -i` (its PCI address), and one
//! `lspci -vvv` listing every port's PCIe link. Each interface finds its device by address;
//! a scan of the lspci list per interface made this quadratic (8,000 ports: 129 s, debug).

use super::{Table, Target};
use anyhow::Result;
use optics::source::import::{import, ImportOptions};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

/// A bundle of `n` ports under `dir`: files named as sosreport names them.
fn bundle(dir: &Path, n: usize) -> Result<()> {
    let mut lspci = String::new();
    for i in 0..n {
        // Distinct bus:device.function for up to 65,536 ports (bus 8 bits, device 5, function 3).
        let addr = format!("{:02x}:{:02x}.{}", (i >> 8) & 0xff, (i >> 3) & 0x1f, i & 7);
        std::fs::write(
            dir.join(format!("ethtool_-S_eth{i}")),
            format!("NIC statistics:\n     rx_packets: 5\n     rx_err_lane_0_phy: {i}\n     rx_err_lane_1_phy: 0\n"),
        )?;
        std::fs::write(
            dir.join(format!("ethtool_-i_eth{i}")),
            format!("driver: mlx5_core\nbus-info: 0000:{addr}\nsupports-statistics: yes\n"),
        )?;
        let _ = write!(
            lspci,
            "{addr} Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n\
             \tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\
             \t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n\
             \t\tLnkSta:\tSpeed 16GT/s (ok), Width x16 (ok)\n\n"
        );
    }
    std::fs::write(dir.join("lspci_-nnvv"), lspci)?;
    Ok(())
}

pub fn run(t: &mut Table) -> Result<()> {
    t.section("8. Import of a bundle with many ports (`source::import::import`), target: linear in ports");
    let opts = ImportOptions { window_s: Some(60.0), ..Default::default() };
    let mut per_port_first = None;
    for n in [1_000usize, 10_000] {
        let dir = tempfile::tempdir()?;
        bundle(dir.path(), n)?;
        let started = Instant::now();
        let imported = import(&[dir.path().to_path_buf()], &opts)?;
        let us_per_port = started.elapsed().as_secs_f64() * 1e6 / n as f64;
        std::hint::black_box(imported.capture.records.len());
        t.row(&format!("{n} ports (ethtool -S and -i each, one lspci): import"), us_per_port, "us/port", Target::Info);
        match per_port_first {
            None => per_port_first = Some(us_per_port),
            Some(first) => t.row(&format!("{n} ports / 1,000 ports, per port"), us_per_port / first, "x", Target::AtMost(1.5)),
        }
    }
    Ok(())
}
