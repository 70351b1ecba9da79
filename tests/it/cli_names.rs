//! Interface names are bounded wherever they come from: a live name as the kernel bounds
//! it (IFNAMSIZ - 1 = 15 bytes for a netdev, 63 for an InfiniBand device, ports to 255) is
//! refused as a usage error (exit 2) before the system is touched; a name read from a
//! capture or given by an imported file is at most 128 bytes (docs/capture-format.md, "Interface names").

use crate::support::optics;
use std::path::Path;

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[cfg(live)]
#[test]
fn live_names_longer_than_the_kernel_allows_are_usage_errors() {
    let sixteen = "a".repeat(16);
    let ib = format!("{}/1", "d".repeat(64));
    let commands: [&[&str]; 6] = [
        &["scan", &sixteen],
        &["watch", &sixteen, "--duration", "1s"],
        &["serve", &sixteen, "--listen", "127.0.0.1:0"],
        &["decode", "--interface", &sixteen],
        &["scan", &ib],
        &["scan", "mlx5_0/256"],
    ];
    for args in commands {
        let out = optics().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(err.contains("at most 15 bytes") || err.contains("at most 63 bytes") || err.contains("go to 255"), "{args:?}: {err}");
        // The name is quoted cut to 32 characters, not whole.
        assert!(!err.contains(&"d".repeat(40)), "{err}");
    }
    // 15 bytes is a name: this one does not exist (an error, 1, not a usage mistake).
    let out = optics().args(["scan", &"a".repeat(15)]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("no such interface"), "{}", text(&out.stderr));
}

/// A capture naming an interface of 129 bytes is refused at that line; 128 is read.
#[test]
fn capture_names_are_at_most_128_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("captures/sr4-200g-healthy.jsonl")).unwrap();
    for (len, ok) in [(128, true), (129, false)] {
        let name = "n".repeat(len);
        let path = dir.path().join(format!("c{len}.jsonl"));
        std::fs::write(&path, src.replace("\"ens3np0\"", &format!("\"{name}\""))).unwrap();
        let out = optics().args(["scan", "--json", "--replay"]).arg(&path).output().unwrap();
        if ok {
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            assert!(text(&out.stdout).contains(&name));
        } else {
            assert_eq!(out.status.code(), Some(1));
            let err = text(&out.stderr);
            assert!(err.contains("line 2") && err.contains("an interface name of 129 bytes: at most 128"), "{err}");
        }
    }
}

/// An imported file's interface is held to the same bound as a capture's.
#[test]
fn imported_names_are_held_to_the_capture_bound() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import/mlxlink_400g_a.json");
    for (len, code) in [(128, 0), (129, 1)] {
        let out_path = dir.path().join(format!("i{len}.jsonl"));
        let out = optics().arg("import").arg(&input).args(["--interface", &"p".repeat(len), "-o"]).arg(&out_path).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{len}: {}", text(&out.stderr));
        if code != 0 {
            assert!(text(&out.stderr).contains("an interface name of 129 bytes: at most 128"), "{}", text(&out.stderr));
            assert!(!out_path.exists());
        }
    }
}
