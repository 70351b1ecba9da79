//! lldpd's neighbor table names the far end of a host port (real outputs,
//! tests/fixtures/lldp/README.md): each format's neighbor lands in the interface's identity,
//! the report names it, and `--peer SWITCH-OUTPUT` without a port takes the port it names.

use crate::support::captures::*;
use crate::support::optics;
use serde_json::{json, Value};
use std::path::Path;

const F: &str = "tests/fixtures/lldp";

/// `optics import FILE -o cap`: the neighbor of each interface record, by interface.
fn neighbors(file: &str) -> Vec<(String, Value)> {
    let dir = tempfile::tempdir().unwrap();
    let cap = dir.path().join("cap.jsonl");
    let o = optics().arg("import").arg(Path::new(F).join(file)).arg("-o").arg(&cap).output().unwrap();
    assert!(o.status.success(), "{file}: {}", String::from_utf8_lossy(&o.stderr));
    std::fs::read_to_string(&cap)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|r| r["record"] == "interface")
        .map(|r| (r["interface"].as_str().unwrap().to_string(), r["neighbor"].clone()))
        .collect()
}

#[test]
fn every_format_names_the_switch_and_port() {
    // Text, no system name sent: the chassis MAC and the port number `local 34`.
    let n = neighbors("lldpcli_show_neighbors_lldpd_issue372.txt");
    assert_eq!(
        n,
        [(
            "ens3f0".to_string(),
            json!({"system": null, "chassis_id": "a4:8c:db:6a:09:00", "port": "34", "port_description": null, "via": "LLDP"})
        )]
    );
    // Text with details: `SysName: r16`, `PortID: ifname eth0`, `PortDescr: WAN`.
    let n = neighbors("lldpcli_show_neighbors_detail_vyos_pr3590.txt");
    assert_eq!(
        (n[0].1["system"].as_str(), n[0].1["port"].as_str(), n[0].1["port_description"].as_str()),
        (Some("r16"), Some("eth0"), Some("WAN"))
    );
    // keyvalue: a Cisco SG200's `port.ifname=g1`.
    let n = neighbors("lldpcli_keyvalue_sg200_lldpd_test_pcap.txt");
    assert_eq!((n[0].0.as_str(), n[0].1["chassis_id"].as_str(), n[0].1["port"].as_str()), ("eth0", Some("00:35:35:35:35:35"), Some("g1")));
    // json: the chassis object keyed by its system name.
    let n = neighbors("lldpcli_json_lldpd_test_lldpcli.json");
    assert_eq!(n[0].1["system"], "ns-2.example.com");
    assert_eq!((n[0].1["port"].as_str(), n[0].1["port_description"].as_str()), (Some("00:00:00:00:00:02"), Some("eth1")));
}

/// A host capture whose interface record carries an LLDP neighbor (as `import` of the host's
/// outputs with its `lldpcli` output writes it).
fn near_with_neighbor(dir: &Path, port: &str) -> std::path::PathBuf {
    let text = simple_capture(&[cx7_port("ens3np0", sr4_200g("MT2233FT01234", [-3.0, -3.0, -1.5, -1.5]), [15_000.0; 4])], 61, 21);
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            if v["record"] == "interface" {
                v["neighbor"] = json!({"system": "leaf7", "chassis_id": null, "port": port, "port_description": null, "via": "LLDP"});
            }
            v.to_string()
        })
        .collect();
    let p = dir.join("near.jsonl");
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    p
}

#[test]
fn peer_without_a_port_takes_the_one_the_neighbor_names() {
    let dir = tempfile::tempdir().unwrap();
    let near = near_with_neighbor(dir.path(), "Ethernet6/1");
    // The EOS detail output has several ports; the neighbor names Ethernet6/1, whose Tx is
    // -2.39 / -2.33 / -0.78 / -0.93 dBm: loss = Tx - our Rx (-3.0, -3.0, -1.5, -1.5) =
    // 0.61 / 0.67 / 0.72 / 0.57 dB.
    let eos = "tests/fixtures/switch/eos_show_interfaces_transceiver_detail.txt";
    let out = optics().args(["scan", "--json", "--replay"]).arg(&near).args(["--peer", eos]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("port Ethernet6/1 chosen, the near end's LLDP neighbor (ens3np0: leaf7 port Ethernet6/1 (LLDP))"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{err}"));
    let i = &v["interfaces"][0];
    assert_eq!(i["neighbor"]["system"], "leaf7");
    let mut lanes = i["lanes"].as_array().unwrap().clone();
    lanes.sort_by_key(|l| l["lane"].as_u64());
    for (l, want) in lanes.iter().zip([0.61, 0.67, 0.72, 0.57]) {
        assert!((l["link_loss_db"].as_f64().unwrap() - want).abs() < 0.1, "{l}");
    }
    // The text report names the neighbor.
    let out = optics().args(["scan", "--replay"]).arg(&near).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l.trim_start().starts_with("neighbor") && l.contains("leaf7 port Ethernet6/1 (LLDP)")), "{text}");
    // A neighbor port the switch output does not have: the old question, which port.
    let near = near_with_neighbor(dir.path(), "Ethernet99/1");
    let out = optics().args(["scan", "--replay"]).arg(&near).args(["--peer", eos]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("name the far end"), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `optics_interface_peer_info`: the far end the neighbor table names, one series per
/// interface, in the textfile route and on serve's /metrics (which promtool lints).
#[test]
fn peer_info_metric_names_the_neighbor() {
    use crate::support::prometheus::have;
    use crate::support::serve::{bin, get, samples, Serve};
    let dir = tempfile::tempdir().unwrap();
    let near = near_with_neighbor(dir.path(), "Ethernet6/1");
    let series = r#"optics_interface_peer_info{interface="ens3np0",system="leaf7",port="Ethernet6/1"}"#;
    let out = optics().args(["scan", "--replay"]).arg(&near).args(["--prometheus", "-"]).output().unwrap();
    let m = samples(&String::from_utf8_lossy(&out.stdout));
    let peer: Vec<&(String, f64)> = m.iter().filter(|(s, _)| s.starts_with("optics_interface_peer_info")).collect();
    assert_eq!(peer, [&(series.to_string(), 1.0)], "one series, the neighbor's");
    // No neighbor, no series.
    let plain = dir.path().join("plain.jsonl");
    std::fs::write(&plain, simple_capture(&[cx7_port("ens3np0", sr4_200g("MT2233FT01234", [-3.0; 4]), [15_000.0; 4])], 61, 21)).unwrap();
    let out = optics().args(["scan", "--replay"]).arg(&plain).args(["--prometheus", "-"]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("optics_interface_peer_info{"));

    let mut cmd = std::process::Command::new(bin());
    cmd.args(["serve", "--replay"]).arg(&near).args(["--speed", "1000", "--listen", "127.0.0.1:0"]);
    let serve = Serve::start(cmd);
    serve.wait_ready();
    let body = get(serve.addr, "/metrics", &[]).unwrap().body;
    assert!(samples(&body).iter().any(|(s, v)| s == series && *v == 1.0), "{body}");
    if !have("promtool") {
        eprintln!("promtool not installed: the exposition's lint is skipped");
        return;
    }
    let mut child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(body.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let report = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    // promtool's one lint of this exposition is the `_bits` names (the contract).
    assert!(!report.contains("optics_interface_peer_info"), "promtool check metrics: {report}");
}

/// `report --peer SWITCH` and `export --peer SWITCH` without `:PORT` take the port the near
/// end's LLDP neighbor names, as `scan --peer` does (same losses as above: the EOS port
/// Ethernet6/1's Tx -2.39 / -2.33 / -0.78 / -0.93 dBm less our Rx -3.0 / -3.0 / -1.5 / -1.5).
#[test]
fn report_and_export_peer_without_a_port_take_the_neighbors() {
    let dir = tempfile::tempdir().unwrap();
    let near = near_with_neighbor(dir.path(), "Ethernet6/1");
    let eos = "tests/fixtures/switch/eos_show_interfaces_transceiver_detail.txt";
    let chosen = "port Ethernet6/1 chosen, the near end's LLDP neighbor";

    let out = optics().arg("report").arg(&near).args(["--peer", eos]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains(chosen), "{err}");
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(md.contains("Ethernet6/1"), "the report names the far end's port: {md}");

    let rows = dir.path().join("rows.jsonl");
    let out = optics().arg("export").arg(&near).args(["--peer", eos, "--json"]).arg(&rows).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains(chosen), "{err}");
    let text = std::fs::read_to_string(&rows).unwrap();
    let last: Vec<Value> = text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect();
    for (lane, want) in [(1, 0.61), (2, 0.67), (3, 0.72), (4, 0.57)] {
        let row =
            last.iter().rev().find(|r| r["lane"] == lane && r["link_loss_db"].is_number()).unwrap_or_else(|| panic!("lane {lane}: {text}"));
        assert!((row["link_loss_db"].as_f64().unwrap() - want).abs() < 0.1, "{row}");
    }
    // A neighbor port the switch output lacks: both still ask which port.
    let near = near_with_neighbor(dir.path(), "Ethernet99/1");
    for cmd in ["report", "export"] {
        let mut c = optics();
        c.arg(cmd).arg(&near).args(["--peer", eos]);
        if cmd == "export" {
            c.arg("--json").arg(&rows);
        }
        let out = c.output().unwrap();
        assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("name the far end"), "{cmd}");
    }
}
