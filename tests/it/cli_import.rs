//! `optics import` end to end: tool outputs laid out as the tools print them
//! (tests/fixtures/import/README.md) -> capture -> `scan --replay`, with figures derived by hand.

use crate::support::{import_at, optics};
use serde_json::Value;
use std::path::Path;

const F: &str = "tests/fixtures/import";

fn import(args: &[&str], out: &Path) -> String {
    let o = optics().arg("import").args(args).arg("-o").arg(out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{err}");
    err
}

fn scan_json(capture: &Path) -> Value {
    let o = optics().args(["scan", "--json", "--replay"]).arg(capture).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn lane(iface: &Value, n: u64) -> &Value {
    iface["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == n).unwrap()
}

#[test]
fn two_mlxlink_json_snapshots_of_a_400g_port() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    let err = import(&[&format!("{F}/mlxlink_400g_a.json"), &format!("{F}/mlxlink_400g_b.json")], &cap);
    assert!(err.contains("Time Since Last Clear"), "{err}");
    let text = std::fs::read_to_string(&cap).unwrap();
    assert!(text.lines().next().unwrap().contains("\"source\":\"import\""));
    assert!(text.contains("\"origin_file\""));
    let v = scan_json(&cap);
    let a = &v["interfaces"][0];
    // Interval 20.0 - 10.0 min = 600 s; 400G over 4 lanes = 100G PAM4 lanes at 106.25 Gb/s:
    // 6.375e13 bits per lane. Lane deltas 6375000, 12750000, 9562500, 637500000 ->
    // BER 1e-7, 2e-7, 1.5e-7, 1e-5. PAM4 0.75 Q(x): x(1e-5) = 4.2002, x(2.4e-4) = 3.41407,
    // margin 10 log10(4.2002 / 3.41407) = 0.900 dB; lane 1 x(1e-7) = 5.1456 -> 1.782 dB.
    assert_eq!(a["link"]["duration_s"], 600.0);
    assert_eq!(a["link"]["lane_rate_gbps"], 106.25);
    assert_eq!(a["verdict"], "investigate");
    assert_eq!(a["lanes"][0]["lane"], 4);
    let l4 = lane(a, 4);
    assert!((l4["pre_fec_ber"].as_f64().unwrap() - 1e-5).abs() < 1e-12);
    assert!((l4["margin_db"].as_f64().unwrap() - 0.900).abs() < 2e-3);
    let l1 = lane(a, 1);
    assert!((l1["pre_fec_ber"].as_f64().unwrap() - 1e-7).abs() < 1e-14);
    assert!((l1["margin_db"].as_f64().unwrap() - 1.782).abs() < 2e-3);
    // Module as mlxlink printed it: rx -2.0 dBm over the printed low alarm -10.4 = 8.4 dB.
    assert!((l4["rx_power_dbm"].as_f64().unwrap() + 2.0).abs() < 1e-9);
    assert!((l4["optical_margin_db"].as_f64().unwrap() - 8.4).abs() < 1e-9);
    assert_eq!(a["module"]["vendor_sn"], "AO24110001");
    assert!(a["events"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains("time base: content")));
}

#[test]
fn one_mlxlink_text_snapshot_spans_the_time_since_clear() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("a.jsonl");
    import(&[&format!("{F}/mlxlink_400g_a.txt"), "--interface", "ens1np0"], &cap);
    let a = &scan_json(&cap)["interfaces"][0];
    assert_eq!(a["interface"], "ens1np0");
    // 10.0 min = 600 s since the clear; lane 4: 50e6 / 6.375e13 = 7.843e-7.
    assert_eq!(a["link"]["duration_s"], 600.0);
    assert!((lane(a, 4)["pre_fec_ber"].as_f64().unwrap() - 7.843e-7).abs() < 1e-10);
}

#[test]
fn sosreport_directory_and_a_lone_ethtool_s() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("s.jsonl");
    import(&[&format!("{F}/sosreport")], &cap);
    let v = scan_json(&cap);
    // Two interfaces; lspci and /proc/uptime are host-wide, matched by ethtool -i bus-info.
    assert_eq!(v["interfaces"].as_array().unwrap().len(), 2);
    assert!(v["interfaces"][1]["pcie"]["ceiling_gbps"].is_null(), "{}", v["interfaces"][1]["pcie"]);
    let a = &v["interfaces"][0];
    assert_eq!(a["interface"], "ens3np0");
    assert_eq!(a["module"]["vendor_pn"], "FTLC9551REPM");
    assert_eq!(a["pcie"]["ceiling_gbps"].as_f64().map(|c| (c * 10.0).round()), Some(2319.0));
    assert!(a["lanes"].as_array().unwrap().iter().all(|l| l["pre_fec_ber"].is_null()));
    // Lane counts 16, 2, 2, 9980 of 10000: lane 4 99.8 %, lane 1 0.16 %; median of (16, 2, 2) = 2.
    let notes: Vec<&str> = a["notes"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    let shares = notes.iter().find(|n| n.contains("carries")).unwrap();
    assert!(shares.contains("lane 4 carries 99.8 % of the 10000 corrected bits") && shares.contains("lane 1 0.16 %"), "{shares}");
    assert!(shares.contains("4990x"), "{shares}");
    assert!(notes.iter().any(|n| n.contains("a BER needs the time")), "{notes:?}");
    // With the uptime in the bundle, --since-boot gives a BER: 350735.47 s x 25.78125e9 bit/s per lane.
    let cap2 = dir.path().join("s2.jsonl");
    import(&[&format!("{F}/sosreport"), "--since-boot"], &cap2);
    let a = &scan_json(&cap2)["interfaces"][0];
    let expect = 9980.0 / (25.78125e9 * 350735.47);
    assert!((lane(a, 4)["pre_fec_ber"].as_f64().unwrap() - expect).abs() < expect * 1e-6);
}

#[test]
fn runbook_baseline_folders_give_the_ber_over_the_interval() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("r.jsonl");
    let (base, now) = (Path::new(F).join("runbook/baseline"), Path::new(F).join("runbook/now"));
    import_at(&[(&base, "2026-12-01T08:00:00Z"), (&now, "2026-12-01T09:00:00Z")], &[], &cap);
    let a = &scan_json(&cap)["interfaces"][0];
    // 3600 s x 53.125e9 = 1.9125e14 bits per lane; lane 4 delta 3825000000 -> 2e-5,
    // x(2e-5) = 4.0405 -> margin 10 log10(4.0405 / 3.41407) = 0.732 dB.
    assert_eq!(a["link"]["duration_s"], 3600.0);
    let l4 = lane(a, 4);
    assert!((l4["pre_fec_ber"].as_f64().unwrap() - 2e-5).abs() < 1e-12);
    assert!((l4["margin_db"].as_f64().unwrap() - 0.732).abs() < 2e-3);
    assert_eq!(a["pcie"]["degraded"], false);
}

#[test]
fn mixed_up_and_unknown_inputs_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.jsonl");
    // Counters of one interface with the module of another.
    let mixed = dir.path().join("mixed");
    std::fs::create_dir(&mixed).unwrap();
    std::fs::copy(format!("{F}/sosreport/sos_commands/networking/ethtool_-S_ens3np0"), mixed.join("ethtool_-S_ens3np0")).unwrap();
    std::fs::copy(format!("{F}/sosreport/sos_commands/networking/ethtool_-m_ens3np0"), mixed.join("ethtool_-m_ens4np0")).unwrap();
    let o = optics().arg("import").arg(&mixed).arg("-o").arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("different interfaces"), "{err}");
    // A file of no known format.
    let o = optics().args(["import", &format!("{F}/sosreport/sos_commands/networking/ip_-d_address"), "-o"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a format optics import reads"));
    // Two snapshots whose counters go down: a counter_reset segment, no negative delta.
    let cap = dir.path().join("r.jsonl");
    let (b, a) = (Path::new(F).join("mlxlink_400g_b.json"), Path::new(F).join("mlxlink_400g_a.json"));
    import_at(&[(&b, "2026-12-01T08:00:00Z"), (&a, "2026-12-01T08:10:00Z")], &[], &cap);
    let a = &scan_json(&cap)["interfaces"][0];
    assert!(
        a["events"].as_array().unwrap().iter().any(|e| e.as_str().unwrap().contains("driver reload or counter clear")),
        "{:?}",
        a["events"]
    );
    assert!(a["lanes"].as_array().unwrap().iter().all(|l| l["pre_fec_ber"].is_null()));
}

#[test]
fn compare_of_two_runbook_folders_is_the_interval_between_them() {
    // Copies whose counter files were written an hour apart (their modification times).
    let dir = tempfile::tempdir().unwrap();
    let set = |sub: &str, secs: u64| {
        let d = dir.path().join(sub);
        std::fs::create_dir(&d).unwrap();
        for e in std::fs::read_dir(format!("{F}/runbook/{sub}")).unwrap() {
            let p = e.unwrap().path();
            let to = d.join(p.file_name().unwrap());
            std::fs::copy(&p, &to).unwrap();
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
            std::fs::File::options().write(true).open(&to).unwrap().set_modified(when).unwrap();
        }
        d
    };
    let (base, now) = (set("baseline", 1_796_112_000), set("now", 1_796_115_600));
    let o = optics().arg("compare").arg(&base).arg(&now).arg("--json").output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("file modification times"), "{err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let lanes = v["comparisons"][0]["lanes"].as_array().unwrap();
    let l4 = lanes.iter().find(|l| l["lane"] == 4).unwrap();
    // The baseline alone has no time base; the interval (3600 s) gives lane 4 2e-5 (as above).
    assert!(l4["pre_fec_ber_before"].is_null());
    assert!((l4["pre_fec_ber_after"].as_f64().unwrap() - 2e-5).abs() < 1e-12);
}

#[test]
fn compare_reads_tool_outputs_directly() {
    let o =
        optics().args(["compare", &format!("{F}/mlxlink_400g_a.json"), &format!("{F}/mlxlink_400g_b.json"), "--json"]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["comparisons"].as_array().unwrap().len(), 1);
}

#[test]
fn window_s_gives_a_lone_snapshot_its_span_and_partial_at_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("w.jsonl");
    let s = format!("{F}/sosreport/sos_commands/networking/ethtool_-S_ens3np0");
    let l = format!("{F}/sosreport/sos_commands/networking/ethtool_ens3np0");
    // Two arguments for one interface: -S and the link settings (one snapshot with counters).
    import(&[&s, &l, "--window-s", "100"], &cap);
    let a = &scan_json(&cap)["interfaces"][0];
    assert_eq!(a["link"]["duration_s"], 100.0);
    // 9980 / (25.78125e9 x 100 s) = 3.871e-9.
    let expect = 9980.0 / (25.78125e9 * 100.0);
    assert!((lane(a, 4)["pre_fec_ber"].as_f64().unwrap() - expect).abs() < expect * 1e-9);
    let o = optics()
        .args(["import", &format!("{F}/mlxlink_400g_b.json"), &format!("{F}/mlxlink_400g_a.json")])
        .args(["--at", &format!("{F}/mlxlink_400g_b.json=2026-12-01T08:00:00Z"), "-o"])
        .arg(dir.path().join("x.jsonl"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--at is given for some"), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A bundle of many ports with one `lspci -vvv` listing them all: each interface gets the
/// PCIe link at its own `ethtool -i` bus-info (looked up by address, domain or none, any
/// case), never a neighbour's. (How fast many ports import is a figure: benches/figures.rs,
/// section 8.)
#[test]
fn many_ports_each_get_their_own_pcie_link_from_one_lspci() {
    const PORTS: usize = 300;
    let dir = tempfile::tempdir().unwrap();
    let bundle = dir.path().join("bundle");
    std::fs::create_dir(&bundle).unwrap();
    let width = |i: usize| [16u32, 8, 4, 2, 1][i % 5];
    let mut lspci = String::new();
    for i in 0..PORTS {
        let addr = format!("{:02x}:{:02x}.{}", i >> 8, (i >> 3) & 0x1f, i & 7);
        std::fs::write(bundle.join(format!("ethtool_-S_eth{i}")), format!("NIC statistics:\n     rx_err_lane_0_phy: {i}\n")).unwrap();
        // Upper case in bus-info, lower case in lspci: one address.
        let bus_info = format!("0000:{}", addr.to_ascii_uppercase());
        std::fs::write(bundle.join(format!("ethtool_-i_eth{i}")), format!("driver: mlx5_core\nbus-info: {bus_info}\n")).unwrap();
        lspci.push_str(&format!(
            "{addr} Ethernet controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n\
             \tCapabilities: [60] Express (v2) Endpoint, MSI 00\n\
             \t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n\
             \t\tLnkSta:\tSpeed 16GT/s (ok), Width x{} (ok)\n\n",
            width(i)
        ));
    }
    std::fs::write(bundle.join("lspci_-nnvv"), lspci).unwrap();
    let out = dir.path().join("c.jsonl");
    import(&[bundle.to_str().unwrap(), "--window-s", "60"], &out);
    let cap = optics::capture::read_capture(&out).unwrap();
    let mut seen = 0;
    for rec in &cap.records {
        if let optics::capture::Record::Interface(r) = rec {
            let i: usize = r.interface.strip_prefix("eth").unwrap().parse().unwrap();
            let pci = r.pci.as_ref().unwrap_or_else(|| panic!("{}: no PCIe link", r.interface));
            assert_eq!(pci.current_link_width, Some(width(i)), "{}", r.interface);
            seen += 1;
        }
    }
    assert_eq!(seen, PORTS);
}

/// Inputs that are recognised but say too little are told what to give instead, on real
/// outputs: an `lspci -vvv` alone (stelline's coyote2 page, tests/fixtures/host), a decoded
/// `ethtool -m` of a DAC with no DOM (ethtool 6.1 of qsfp06, an Amphenol 100G CR4 cable,
/// tests/fixtures/import/ethtool_m), an `mlxlink -c` paste that names no port (NVIDIA
/// forum, tests/fixtures/mlxlink).
#[test]
fn inputs_that_say_too_little_say_what_to_give_instead() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    // lspci alone describes the host, no port: refused, and told to bring a port's output.
    let o = optics().arg("import").arg("tests/fixtures/host/import/coyote2/lspci_-vvv").arg("-o").arg(&cap).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("lspci and uptime outputs describe the host, not a link; import them with an interface's ethtool or mlxlink output"),
        "{err}"
    );
    assert!(!cap.exists(), "nothing written");
    // A module with no DOM: identity only, and said so.
    let err = import(&["tests/fixtures/import/ethtool_m/qsfp06.ethtool61.txt"], &cap);
    assert!(err.contains("no monitors printed (the module has no DOM, or ethtool could not read its pages): identity only"), "{err}");
    // mlxlink text without the port: recorded as "unnamed", and told how to name it.
    let err = import(&["tests/fixtures/mlxlink/cx4_forum_show_counters.txt"], &cap);
    assert!(err.contains("no input names its interface: recorded as \"unnamed\" (give --interface NAME)"), "{err}");
    let named = dir.path().join("named.jsonl");
    import(&["tests/fixtures/mlxlink/cx4_forum_show_counters.txt", "--interface", "ens1f0"], &named);
    assert_eq!(scan_json(&named)["interfaces"][0]["interface"], "ens1f0");
}

/// `ethtool -I --show-fec` as the histogram-era ethtool prints it (the netdev v2 patch's
/// sample, tests/fixtures/ethtool-fec/README.md): bins named `fec_symbol_err_*`, the first
/// bin's lanes on its line as `[ per_lane: ... ]`, reach the capture as the kernel's
/// histogram would.
#[test]
fn the_released_ethtool_fec_histogram_text_reaches_the_capture() {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("c.jsonl");
    import(&["tests/fixtures/ethtool-fec/ethtool_show_fec_histogram_v2.txt"], &cap);
    let text = std::fs::read_to_string(&cap).unwrap();
    let sample = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).find(|r| r["record"] == "sample").unwrap();
    assert_eq!(sample["interface"], "eni8np1");
    let fec = &sample["fec"];
    assert_eq!((fec["corrected_blocks"].clone(), fec["uncorrectable_blocks"].clone()), (serde_json::json!([123]), serde_json::json!([4])));
    // fec_symbol_err_0: 445 [ per_lane: 125, 120, 100, 100 ]; _1_to_3: 12; _4_to_7: 2.
    assert_eq!(
        fec["histogram"],
        serde_json::json!([
            {"low": 0, "high": 0, "count": 445, "per_lane": [125, 120, 100, 100]},
            {"low": 1, "high": 3, "count": 12, "per_lane": []},
            {"low": 4, "high": 7, "count": 2, "per_lane": []}
        ])
    );
}

#[test]
fn a_paste_of_two_modules_under_one_interface_is_refused_not_merged() {
    // tests/fixtures/import/ethtool_m/README.md: two `ethtool -m eth1` of two copper SFPs
    // (Finisar FCLF8520P2BTL SN PX90NHX, Bel-Fuse 1GBT-SFP06 SN 0000000610) in one mail.
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.jsonl");
    let paste = format!("{F}/ethtool_m/copper_sfps_two_modules_eth1_netdev.txt");
    let o = optics().args(["import", &paste, "-o"]).arg(&out).output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("a second module (vendor SN 0000000610)") && err.contains("vendor SN PX90NHX"), "{err}");
    assert!(!out.exists());
    // Cut at its second command line, each half is one module of its own.
    let text = std::fs::read_to_string(&paste).unwrap();
    let second = text.rfind("# ethtool -m eth1").unwrap();
    for (half, pn, sn) in [(&text[..second], "FCLF8520P2BTL", "PX90NHX"), (&text[second..], "1GBT-SFP06", "0000000610")] {
        let file = dir.path().join(format!("{sn}.txt"));
        std::fs::write(&file, half).unwrap();
        let cap = dir.path().join(format!("{sn}.jsonl"));
        import(&[file.to_str().unwrap()], &cap);
        let m = &scan_json(&cap)["interfaces"][0]["module"];
        assert_eq!((m["vendor_pn"].as_str(), m["vendor_sn"].as_str()), (Some(pn), Some(sn)));
    }
}
