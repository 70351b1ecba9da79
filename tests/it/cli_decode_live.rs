//! `optics decode --interface IFACE` end to end through the binary: on a veth (which has no
//! module EEPROM) it says why and exits 1; with `--i2c` it reads a module from an I2C
//! adapter. This machine has no I2C bus, so the adapter is simulated under the binary:
//! `support/i2c_sim_preload.c`, built here with `cc` and LD_PRELOAD'ed, answers i2c-dev's
//! open and ioctls (I2C_SLAVE, I2C_PEC, I2C_RDWR) for one path in front of a real module's
//! bytes (qsfp03, a Finisar FTLC9551REPM: tests/fixtures/real-dumps/README.md). The binary's
//! own code runs unchanged from `--interface` to the printed decode. Needs root, `ip netns`
//! and a C compiler; skips with the reason otherwise.

use crate::support;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

#[allow(dead_code)]
use support::netns::Netns;

const QSFP03: &str = "qsfp03_finisar_FTLC9551REPM_qsfp28_100g_sr4_sffdb_lower_p00.txt";

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn optics_in(ns: &Netns) -> Command {
    let mut c = Command::new("ip");
    c.args(["netns", "exec", &ns.name]).arg(assert_cmd::cargo::cargo_bin!("optics")).env_remove("NO_COLOR");
    c
}

/// The dump's `0xNNNN: hh ...` rows as bytes (read here, not by the tool's parser).
fn dump_bytes() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(QSFP03);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("0x"))
        .flat_map(|l| l.split_once(':').unwrap().1.split_whitespace().map(|t| u8::from_str_radix(t, 16).unwrap()).collect::<Vec<_>>())
        .collect()
}

/// The preload library, built into `dir`; `None` (after saying why) without a C compiler.
fn build_sim(dir: &Path) -> Option<PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/i2c_sim_preload.c");
    let lib = dir.join("i2c_sim.so");
    match Command::new("cc").args(["-shared", "-fPIC", "-O1", "-o"]).arg(&lib).arg(&src).arg("-ldl").output() {
        Ok(o) if o.status.success() => Some(lib),
        Ok(o) => panic!("cc failed: {}", text(&o.stderr)),
        Err(e) => {
            println!("skipping: no C compiler to build the simulated I2C adapter ({e})");
            None
        }
    }
}

/// The simulated module's memory: the lower page, then upper page 00h from the dump, then
/// `page_03h` if given (the layout `i2c_sim_preload.c` reads: a page number byte, 128 bytes).
fn sim_memory(dir: &Path, bytes: &[u8], page_03h: Option<&[u8]>) -> PathBuf {
    let mut memory = bytes[..128].to_vec();
    memory.push(0x00);
    memory.extend_from_slice(&bytes[128..]);
    if let Some(page) = page_03h {
        memory.push(0x03);
        memory.extend_from_slice(page);
    }
    let mem = dir.join("module.bin");
    std::fs::write(&mem, memory).unwrap();
    mem
}

/// `optics decode --interface v0 --i2c DEV [--json]` in `ns`, DEV answered by the
/// simulated adapter `lib` over the memory `mem`.
fn decode_simulated(ns: &Netns, lib: &Path, mem: &Path, json: bool) -> std::process::Output {
    let dev = "/dev/i2c-optics-sim";
    let mut c = optics_in(ns);
    c.env("LD_PRELOAD", lib).env("OPTICS_SIM_I2C_DEV", dev).env("OPTICS_SIM_I2C_MEMORY", mem);
    c.args(["decode", "--interface", "v0", "--i2c", dev]);
    if json {
        c.arg("--json");
    }
    c.output().unwrap()
}

#[test]
fn decode_interface_on_a_veth_says_why_it_has_no_module() {
    let Some(ns) = Netns::create("optics-dec") else { return };
    let out = optics_in(&ns).args(["decode", "--interface", "v0"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("reading the module of v0") && err.contains("not supported by driver veth"), "{err}");
    assert!(out.stdout.is_empty());
    // A name the namespace does not have is an error too, naming it.
    let out = optics_in(&ns).args(["decode", "--interface", "v9"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no such interface v9"), "{}", text(&out.stderr));
}

#[test]
fn decode_interface_reads_a_module_over_i2c() {
    let Some(ns) = Netns::create("optics-dec") else { return };
    let dir = tempfile::tempdir().unwrap();
    let Some(lib) = build_sim(dir.path()) else { return };
    let bytes = dump_bytes();
    assert_eq!(bytes.len(), 256);
    // Lower page, then upper page 00h; page 03h (thresholds), which the module advertises
    // (byte 2 bit 2 clear: paged) but the dump does not hold, as zeros.
    let mem = sim_memory(dir.path(), &bytes, Some(&[0; 128]));
    let run = |json: bool| decode_simulated(&ns, &lib, &mem, json);
    let out = run(true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    // SFF-8636 Rev 2.10a: identifier byte 0 = 11h; vendor name bytes 148-163 and serial
    // 196-211 ASCII; temperature bytes 22-23 signed in 1/256 C; Vcc 26-27 in 100 uV; lane 1
    // rx power 34-35 in 0.1 uW.
    let ascii = |r: std::ops::Range<usize>| String::from_utf8(bytes[r].to_vec()).unwrap().trim_end().to_string();
    let word = |at: usize| u16::from_be_bytes([bytes[at], bytes[at + 1]]);
    assert_eq!(v["identifier"], 0x11);
    assert_eq!(v["vendor_name"], ascii(148..164));
    assert_eq!(v["vendor_sn"], ascii(196..212));
    let close = |key: &Value, want: f64| (key.as_f64().unwrap() - want).abs() < 1e-9;
    assert!(close(&v["module_temperature_c"], word(22) as i16 as f64 / 256.0), "{}", v["module_temperature_c"]);
    assert!(close(&v["supply_voltage_v"], word(26) as f64 * 1e-4), "{}", v["supply_voltage_v"]);
    let lane1 = v["lanes"].as_array().unwrap().iter().find(|l| l["lane"] == 1).unwrap();
    assert!(close(&lane1["rx_power_mw"], word(34) as f64 * 1e-4), "{lane1}");
    // The same bytes decoded from the dump file: the live read carried them unchanged.
    let from_file = support::optics()
        .arg("decode")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/real-dumps").join(QSFP03))
        .arg("--json")
        .output()
        .unwrap();
    let f: Value = serde_json::from_slice(&from_file.stdout).unwrap();
    for key in ["vendor_name", "vendor_pn", "vendor_sn", "module_temperature_c", "supply_voltage_v", "lanes"] {
        assert_eq!(v[key], f[key], "{key}");
    }
    // The readable decode names the module and prints the thresholds in mW and dBm.
    let out = run(false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains(&format!("Vendor:            {}", ascii(148..164))), "{shown}");
    assert!(shown.contains("Module:            QSFP28 100GBASE-SR4"), "{shown}");
    assert!(shown.contains("dBm") && shown.contains("mW"), "{shown}");
}

/// The module advertises page 03h (byte 2 bit 2 clear: paged) but will not select it (its
/// page select reads back page 00h): the decode still gives what the other pages hold and
/// says which page was refused, where it used to fail as a whole.
#[test]
fn decode_interface_decodes_what_it_has_when_a_page_is_refused() {
    let Some(ns) = Netns::create("optics-dec") else { return };
    let dir = tempfile::tempdir().unwrap();
    let Some(lib) = build_sim(dir.path()) else { return };
    let bytes = dump_bytes();
    // Lower page and upper page 00h only: the simulated module ignores a select of page 03h.
    let mem = sim_memory(dir.path(), &bytes, None);
    let run = |json: bool| decode_simulated(&ns, &lib, &mem, json);
    let out = run(true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)));
    // SFF-8636 Rev 2.10a: serial number bytes 196-211 of upper page 00h, ASCII.
    assert_eq!(v["vendor_sn"], String::from_utf8(bytes[196..212].to_vec()).unwrap().trim_end());
    let warnings: Vec<&str> = v["warnings"].as_array().unwrap().iter().map(|w| w.as_str().unwrap()).collect();
    let refused = warnings.iter().find(|w| w.contains("page 0x03")).unwrap_or_else(|| panic!("no word of page 03h: {warnings:?}"));
    assert!(refused.contains("did not accept bank 0 page 0x03"), "{refused}");
    let shown = text(&run(false).stdout);
    assert!(shown.contains("did not accept bank 0 page 0x03"), "{shown}");
}
