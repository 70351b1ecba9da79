//! A node with eight NICs, built from the bundled single-port captures: each copy gets its
//! own interface name, PCI address and module serial (the last serial character, with the
//! SFF-8636 CC_EXT checksum over bytes 192-222 fixed up, Rev 2.11 6.3.32), so no two ports
//! look like one multi-host module.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// (source capture, interface name) of the eight ports, in capture order.
pub const EIGHT_NICS: [(&str, &str); 8] = [
    ("sr4-200g-healthy.jsonl", "ens1np0"),
    ("sr4-200g-healthy.jsonl", "ens2np0"),
    ("sr4-200g-lane4-marginal.jsonl", "ens3np0"),
    ("sr4-200g-healthy.jsonl", "ens4np0"),
    ("pcie-gen4-x4-of-x16.jsonl", "ens5np0"),
    ("sr4-200g-healthy.jsonl", "ens6np0"),
    ("sr4-200g-link-flaps.jsonl", "ens7np0"),
    ("sr4-200g-healthy.jsonl", "ens8np0"),
];

/// Upper page 00h starts at byte 128: the serial (bytes 196-211) and CC_EXT (byte 223).
const SERIAL_LAST: usize = 196 + 12 - 128;
const CC_EXT: usize = 223 - 128;

fn retag(rec: &mut Value, name: &str, n: u8) {
    if rec.get("interface").is_some() {
        rec["interface"] = Value::from(name);
    }
    if rec.get("bus_info").is_some() {
        rec["bus_info"] = Value::from(format!("0000:{:02x}:00.0", 0x10 * n));
    }
    let Some(pages) = rec.pointer_mut("/module/pages").and_then(Value::as_array_mut) else { return };
    for p in pages.iter_mut().filter(|p| p["page"] == 0 && p["offset"] == 128) {
        let mut d = hex::decode(p["data"].as_str().unwrap()).unwrap();
        let old = d[SERIAL_LAST];
        d[SERIAL_LAST] = b'0' + n;
        d[CC_EXT] = d[CC_EXT].wrapping_sub(old).wrapping_add(b'0' + n);
        p["data"] = Value::from(hex::encode(d));
    }
}

/// Writes the eight-port capture into `dir` and returns its path.
pub fn eight_nic_capture(dir: &Path) -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("captures");
    let mut lines = Vec::new();
    for (i, (file, name)) in EIGHT_NICS.iter().enumerate() {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut rec: Value = serde_json::from_str(line).unwrap();
            if rec["record"] == "header" {
                if i == 0 {
                    lines.push(line.to_string());
                }
                continue;
            }
            retag(&mut rec, name, i as u8 + 1);
            lines.push(rec.to_string());
        }
    }
    let path = dir.join("eight-nics.jsonl");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    path
}
