//! The textfile unit (deploy/systemd/optics-scan.service) as the identity it runs under:
//! its sandboxed `optics scan` writes only where the unit lets it, and its privileged
//! steps put a whole, world-readable file into the collector's root-owned directory.
//!
//! The unit is read, not copied: its ExecStart / ExecStartPost lines, `Environment=`,
//! `RuntimeDirectory=` and write grants drive the test. Its paths are mirrored into a
//! temporary directory (the runtime directory owned by the scan's user as systemd makes
//! it, the collector's directory root-owned 0755 as node_exporter's packages make it), and
//! the scan runs as an unprivileged UID from systemd's dynamic range (setpriv), with the
//! unit's umask, over a replayed capture in place of the live-only `--window`/`--interval`.
//! The full live command line is also run, in an empty network namespace, to show the
//! real CLI accepts it (it stops at "no interface found", not at a usage error).

use crate::support;
use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::prometheus::{have, repo};
use support::serve::{bin, capture};

/// A UID in systemd's DynamicUser range (61184-65519), unused on a test machine.
const DYNAMIC_UID: u32 = 61_999;

/// `[Service]` keys in file order (a key may repeat: ExecStartPost, Environment).
fn service_keys(unit: &str) -> Vec<(String, String)> {
    let mut section = "";
    let mut keys = Vec::new();
    for line in unit.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if line.starts_with('[') {
            section = line;
            continue;
        }
        if section == "[Service]" {
            if let Some((k, v)) = line.split_once('=') {
                keys.push((k.trim().to_string(), v.trim().to_string()));
            }
        }
    }
    keys
}

fn values<'a>(keys: &'a [(String, String)], key: &str) -> Vec<&'a str> {
    keys.iter().filter(|(k, _)| k == key).map(|(_, v)| v.as_str()).collect()
}

/// systemd's `${NAME}` expansion from `Environment=` lines, then a split on whitespace
/// (the unit quotes nothing).
fn argv(line: &str, env: &BTreeMap<String, String>) -> Vec<String> {
    let mut s = line.to_string();
    for (k, v) in env {
        s = s.replace(&format!("${{{k}}}"), v);
    }
    s.split_whitespace().map(str::to_string).collect()
}

/// Replaces each unit path by its mirror (longest prefix first).
fn mirror(arg: &str, map: &[(String, PathBuf)]) -> String {
    map.iter()
        .find(|(from, _)| arg == from || arg.starts_with(&format!("{from}/")))
        .map(|(from, to)| format!("{}{}", to.display(), &arg[from.len()..]))
        .unwrap_or_else(|| arg.to_string())
}

/// The command as the scan's identity: unprivileged UID/GID, no groups, no capabilities,
/// the unit's umask.
fn as_unit_user(umask: &str, argv: &[String]) -> Command {
    let mut c = Command::new("setpriv");
    c.args([
        &format!("--reuid={DYNAMIC_UID}"),
        &format!("--regid={DYNAMIC_UID}"),
        "--clear-groups",
        "--inh-caps=-all",
        "--bounding-set=-all",
        "--",
        "sh",
        "-c",
        &format!("umask {umask} && exec \"$@\""),
        "sh",
    ]);
    c.args(argv);
    c
}

fn report(o: &Output) -> String {
    format!("status {:?}\n{}{}", o.status, String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

#[test]
fn the_textfile_unit_can_write_its_output_as_shipped() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipping: needs root to run the scan as another UID and the privileged steps");
        return;
    }
    if !have("setpriv") || !have("unshare") {
        return;
    }
    let unit = std::fs::read_to_string(repo("deploy/systemd/optics-scan.service")).unwrap();
    let keys = service_keys(&unit);
    assert_eq!(values(&keys, "DynamicUser"), ["yes"], "the scan runs as a dynamic user");
    assert_eq!(values(&keys, "ProtectSystem"), ["strict"], "the file system is read-only but for what the unit grants");
    let env: BTreeMap<String, String> =
        values(&keys, "Environment").iter().filter_map(|e| e.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let umask = values(&keys, "UMask").first().copied().unwrap_or("0022").to_string();

    // Where the sandboxed scan may write: ReadWritePaths, and the directories systemd
    // makes for it (RuntimeDirectory under /run, StateDirectory under /var/lib).
    let mut granted: Vec<String> = values(&keys, "ReadWritePaths").iter().flat_map(|v| v.split_whitespace()).map(str::to_string).collect();
    granted.extend(values(&keys, "RuntimeDirectory").iter().flat_map(|v| v.split_whitespace()).map(|d| format!("/run/{d}")));
    granted.extend(values(&keys, "StateDirectory").iter().flat_map(|v| v.split_whitespace()).map(|d| format!("/var/lib/{d}")));

    let start = values(&keys, "ExecStart");
    assert_eq!(start.len(), 1, "one ExecStart");
    assert!(!start[0].starts_with('+'), "the scan itself runs sandboxed");
    let scan = argv(start[0], &env);
    assert_eq!(scan[0], "/usr/local/bin/optics");
    assert_eq!(scan[1], "scan");
    let out_at = scan.iter().position(|a| a == "--prometheus").expect("the scan writes --prometheus") + 1;
    let written = &scan[out_at];
    let grant = granted
        .iter()
        .find(|g| Path::new(written).starts_with(g))
        .unwrap_or_else(|| panic!("the scan writes {written}, outside what the unit grants: {granted:?}"))
        .clone();

    // The mirror: the granted directory as systemd makes it (owned by the scan's user,
    // 0755), the collector's directory root-owned 0755.
    let root = tempfile::tempdir().unwrap();
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let run_dir = root.path().join("granted");
    let textfile_dir = root.path().join("textfile");
    std::fs::create_dir(&run_dir).unwrap();
    std::fs::create_dir(&textfile_dir).unwrap();
    std::fs::set_permissions(&run_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(&run_dir, Some(DYNAMIC_UID), Some(DYNAMIC_UID)).unwrap();
    std::fs::set_permissions(&textfile_dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let collector = env.get("TEXTFILE_DIR").expect("Environment=TEXTFILE_DIR names the collector's directory").clone();
    let map = vec![(grant.clone(), run_dir.clone()), (collector.clone(), textfile_dir.clone())];
    // The scan's user must reach the binary and the capture: copies under the mirror.
    let optics = root.path().join("optics");
    // A hard link, never held open for writing: a copy's write descriptor leaks into any
    // child another test thread forks meanwhile, and exec of the copy then fails with
    // ETXTBSY ("Text file busy"). A copy only where the temporary folder is another
    // file system.
    if std::fs::hard_link(bin(), &optics).is_err() {
        std::fs::copy(bin(), &optics).unwrap();
    }
    let replay = root.path().join("capture.jsonl");
    std::fs::copy(capture("sr4-200g-lane4-marginal.jsonl"), &replay).unwrap();
    std::fs::set_permissions(&replay, std::fs::Permissions::from_mode(0o644)).unwrap();

    // The command line as shipped parses with the real CLI: in a namespace with no NIC it
    // gets as far as discovery.
    let mut live: Vec<String> = scan.iter().map(|a| mirror(a, &map)).collect();
    live[0] = optics.display().to_string();
    let mut cmd = Command::new("unshare");
    cmd.arg("-n").args(&live);
    let o = cmd.output().unwrap();
    assert_ne!(o.status.code(), Some(2), "usage error: {}", report(&o));
    // A build without the live sources says so instead of looking.
    let expected = if cfg!(live) { "no network interface" } else { "built without the live sources" };
    assert!(String::from_utf8_lossy(&o.stderr).contains(expected), "{}", report(&o));

    // The same command as the unit's identity over a replay (the live-only flags dropped).
    let mut replayed = vec![optics.display().to_string(), "scan".to_string(), "--replay".to_string(), replay.display().to_string()];
    let mut rest = live[2..].iter();
    while let Some(a) = rest.next() {
        if a == "--window" || a == "--interval" {
            rest.next();
        } else {
            replayed.push(a.clone());
        }
    }
    let o = as_unit_user(&umask, &replayed).output().unwrap();
    assert!(o.status.success(), "the scan as the unit's user: {}", report(&o));
    let produced = PathBuf::from(mirror(written, &map));
    assert_eq!(std::fs::metadata(&produced).unwrap().uid(), DYNAMIC_UID);

    // Without the unit's route the same user cannot write the collector's directory
    // (what the unit shipped before): the mirror is as strict as a real host.
    let mut direct = replayed.clone();
    let direct_at = direct.iter().position(|a| a == "--prometheus").unwrap() + 1;
    direct[direct_at] = textfile_dir.join("direct.prom").display().to_string();
    let o = as_unit_user(&umask, &direct).output().unwrap();
    assert!(!o.status.success() && !textfile_dir.join("direct.prom").exists(), "{}", report(&o));

    // The privileged steps, in order ('+': full privileges, no sandbox).
    let posts = values(&keys, "ExecStartPost");
    assert!(!posts.is_empty(), "ExecStartPost puts the file in place");
    for post in posts {
        let line = post.strip_prefix('+').unwrap_or_else(|| panic!("{post}: a step into the collector's directory needs '+'"));
        let args: Vec<String> = argv(line, &env).iter().map(|a| mirror(a, &map)).collect();
        let o = Command::new(&args[0]).args(&args[1..]).output().unwrap();
        assert!(o.status.success(), "{line}: {}", report(&o));
    }
    let published = textfile_dir.join("optics.prom");
    let meta = std::fs::metadata(&published).expect("the collector's file is in place");
    assert_eq!(meta.permissions().mode() & 0o777, 0o644, "node_exporter (another user) reads it");
    let text = std::fs::read_to_string(&published).unwrap();
    assert_eq!(text, std::fs::read_to_string(&produced).unwrap(), "the whole file, as the scan wrote it");
    assert!(text.contains("optics_interface_verdict{"), "{text}");
    // Only the file the collector reads is left (node_exporter reads `*.prom` only).
    let names: Vec<String> =
        std::fs::read_dir(&textfile_dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["optics.prom"]);
}
