//! Both systemd units keep their hardening (docs/fleet.md, "Hardening"): the directives
//! `systemd-analyze security` asked for, and, where systemd-analyze is installed, an
//! exposure no worse than the 1.6 stated there.

use crate::support;
use std::process::Command;
use support::prometheus::{have, repo};

const BOTH: &[&str] = &[
    "DynamicUser=yes",
    "CapabilityBoundingSet=CAP_NET_ADMIN",
    "NoNewPrivileges=yes",
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "PrivateTmp=yes",
    "PrivateDevices=yes",
    "ProtectKernelModules=yes",
    "ProtectKernelTunables=yes",
    "ProtectControlGroups=yes",
    "RestrictNamespaces=yes",
    "LockPersonality=yes",
    "MemoryDenyWriteExecute=yes",
    "SystemCallArchitectures=native",
    "SystemCallFilter=@system-service",
    "ProtectClock=yes",
    "ProtectKernelLogs=yes",
    "ProtectHostname=yes",
    "PrivateMounts=yes",
    "RestrictRealtime=yes",
    "ProtectProc=invisible",
    "UMask=0077",
    "IPAddressDeny=any",
];

fn unit(name: &str) -> String {
    std::fs::read_to_string(repo(&format!("deploy/systemd/{name}"))).unwrap()
}

#[test]
fn both_units_keep_their_hardening() {
    for name in ["optics.service", "optics-scan.service"] {
        let text = unit(name);
        for want in BOTH {
            assert!(text.lines().any(|l| l.trim() == *want), "{name} lacks {want}");
        }
    }
    // The exporter answers its scrapers, loopback as shipped; the scan talks to no address.
    assert!(unit("optics.service").lines().any(|l| l == "IPAddressAllow=localhost"));
    assert!(!unit("optics-scan.service").contains("IPAddressAllow="));
}

#[test]
fn both_units_expose_no_more_than_docs_say() {
    if !have("systemd-analyze") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = support::serve::bin();
    for name in ["optics.service", "optics-scan.service"] {
        let path = dir.path().join(name);
        std::fs::write(&path, unit(name).replace("/usr/local/bin/optics", bin.to_str().unwrap())).unwrap();
        let out = Command::new("systemd-analyze").args(["security", "--offline=yes"]).arg(&path).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
        let score: f64 = text
            .lines()
            .find_map(|l| l.split("Overall exposure level for ").nth(1)?.split(": ").nth(1)?.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no exposure level in: {text}"));
        assert!(score <= 1.6, "{name}: exposure {score} (docs/fleet.md says 1.6)");
    }
}
