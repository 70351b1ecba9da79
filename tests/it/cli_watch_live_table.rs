//! `watch` as it runs, on a real veth pair in a throw-away namespace: on a terminal (a
//! pseudo-terminal from util-linux `script`) the live table is redrawn in place; piped,
//! stderr gets one plain line per sample. Needs root and `ip netns`; skips otherwise.

use crate::support;
#[allow(dead_code)]
use support::netns::Netns;

fn bin() -> String {
    assert_cmd::cargo::cargo_bin!("optics").display().to_string()
}

#[test]
fn live_table_on_a_terminal_plain_lines_when_piped() {
    let Some(ns) = Netns::create("optics-ux") else { return };
    // 2.5 s at 1 s: samples at t = 0, 1, 2, so two intervals.
    let watch = format!("ip netns exec {} {} watch v0 --duration 2500ms --interval 1s", ns.name, bin());
    let tty = match std::process::Command::new("script").args(["-qec", &watch, "/dev/null"]).env("COLUMNS", "100").output() {
        Ok(o) => o,
        Err(e) => {
            println!("skipping: no util-linux script ({e})");
            return;
        }
    };
    assert!(tty.status.success(), "{}", String::from_utf8_lossy(&tty.stdout));
    let text = String::from_utf8_lossy(&tty.stdout);
    // The table (interface line + one line saying veth has no lanes) is drawn, then moved
    // back over (CSI 2 A) and erased (CSI J) for the second interval.
    assert!(text.contains("v0  t=1.0 s  link up"), "{text:?}");
    assert!(text.contains("\x1b[2A\x1b[J"), "{text:?}");
    assert!(text.contains("no per-lane data"), "{text:?}");

    // TERM=dumb: a terminal that cannot move the cursor gets the plain lines.
    let dumb = std::process::Command::new("script").args(["-qec", &watch, "/dev/null"]).env("TERM", "dumb").output().unwrap();
    let dumb = String::from_utf8_lossy(&dumb.stdout);
    assert!(!dumb.contains('\x1b'), "{dumb:?}");
    assert_eq!(dumb.lines().filter(|l| l.contains("v0: link up")).count(), 2, "{dumb}");

    let piped = std::process::Command::new("sh").args(["-c", &watch]).output().unwrap();
    assert!(piped.status.success());
    let err = String::from_utf8_lossy(&piped.stderr);
    assert!(!err.contains('\x1b'), "{err:?}");
    let lines: Vec<&str> = err.lines().filter(|l| l.contains("v0: link up")).collect();
    assert_eq!(lines.len(), 2, "{err}");
}

/// A driver without `get_link` (ifb) answers LINKSTATE_GET without a link flag, yet the
/// kernel knows the carrier: the table shows it (up, then DOWN once the device is set
/// down), never "state unknown", and the recorded samples carry it.
#[test]
fn a_device_without_get_link_shows_its_carrier() {
    let Some(ns) = Netns::create("optics-ifb") else { return };
    if let Err(e) = support::netns::ip(&["-n", &ns.name, "link", "add", "i0", "type", "ifb"]) {
        println!("skipping: no ifb device ({e})");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let rec = dir.path().join("ifb.jsonl");
    for (admin, want) in [("up", "link up"), ("down", "link DOWN")] {
        support::netns::ip(&["-n", &ns.name, "link", "set", "i0", admin]).unwrap();
        let watch = format!("ip netns exec {} {} watch i0 --duration 2500ms --interval 1s --record {}", ns.name, bin(), rec.display());
        let tty = std::process::Command::new("script").args(["-qec", &watch, "/dev/null"]).env("TERM", "xterm").output().unwrap();
        let text = String::from_utf8_lossy(&tty.stdout);
        assert!(text.contains(&format!("i0  t=1.0 s  {want}")), "{admin}: {text:?}");
        assert!(!text.contains("state unknown"), "{admin}: {text:?}");
        let samples: Vec<serde_json::Value> = std::fs::read_to_string(&rec)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|v: &serde_json::Value| v["record"] == "sample")
            .collect();
        assert_eq!(samples.len(), 3);
        assert!(samples.iter().all(|s| s["link"]["up"] == (admin == "up")), "{samples:?}");
        std::fs::remove_file(&rec).unwrap();
    }
}
