//! Helpers shared by the integration tests.

pub mod captures;
pub mod fecx_captures;
pub mod flap_captures;
pub mod fleet_captures;
pub mod host_node;
#[cfg(live)]
pub mod i2c_sim;
pub mod ib_captures;
pub mod ib_sysfs;
pub mod lane200g_captures;
#[cfg(live)]
pub mod netns;
pub mod prometheus;
pub mod serve;
pub mod trend_captures;
pub mod trust_captures;
pub mod vdm_captures;
pub mod window_captures;

use assert_cmd::Command;

/// The `optics` binary under test, with the caller's colour and width preferences removed
/// so that output depends only on what the test asks for.
/// Module flags by their stable names, as the JSON writes them.
pub fn flag_names(flags: &[optics::module::flag::ModuleFlag]) -> Vec<&'static str> {
    flags.iter().map(|f| f.as_str()).collect()
}

pub fn optics() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin!("optics"));
    c.env_remove("NO_COLOR").env_remove("COLUMNS");
    c
}

/// The bundled capture `name` (captures/) with `edit` applied to each of its sample
/// records (the index counts samples only, in file order), written to `dir`: a real
/// capture with a counter taken out or added, as the test using it says.
pub fn edited_capture(dir: &std::path::Path, name: &str, edit: impl Fn(usize, &mut serde_json::Value)) -> std::path::PathBuf {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("captures").join(name);
    let mut k = 0;
    let lines: Vec<String> = std::fs::read_to_string(src)
        .unwrap()
        .lines()
        .map(|l| {
            let mut r: serde_json::Value = serde_json::from_str(l).unwrap();
            if r["record"] == "sample" {
                edit(k, &mut r);
                k += 1;
            }
            r.to_string()
        })
        .collect();
    let out = dir.join(name);
    std::fs::write(&out, lines.join("\n") + "\n").unwrap();
    out
}

/// `optics import` of each input as a snapshot at its time (`--at INPUT=TIME`, RFC 3339),
/// with `extra` arguments, into `out`; the import's notes (its stderr). The import must
/// succeed.
pub fn import_at(inputs: &[(&std::path::Path, &str)], extra: &[&str], out: &std::path::Path) -> String {
    let mut c = optics();
    c.arg("import");
    for (input, _) in inputs {
        c.arg(input);
    }
    for (input, at) in inputs {
        c.arg("--at").arg(format!("{}={at}", input.display()));
    }
    let o = c.args(extra).arg("-o").arg(out).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    err
}
