//! A throw-away network namespace with a veth pair for real-kernel tests (never the host's
//! own interfaces). Needs root and `ip netns`: `Netns::create` prints `skipping: <reason>`
//! and returns `None` where that is unavailable.

use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};

static COUNTER: AtomicU32 = AtomicU32::new(0);

pub fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// A namespace with `v0 <-> v1`, both up; deleted on drop, also when a test panics.
pub struct Netns {
    pub name: String,
}

impl Netns {
    /// A namespace named `<prefix>-<pid>-<n>`; `None` (after printing why) when this
    /// machine cannot run the test.
    pub fn create(prefix: &str) -> Option<Netns> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("skipping: needs root for ip netns / veth");
            return None;
        }
        let name = format!("{prefix}-{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::SeqCst));
        if let Err(e) = ip(&["netns", "add", &name]) {
            eprintln!("skipping: {e}");
            return None;
        }
        let ns = Netns { name };
        let setup = ip(&["-n", &ns.name, "link", "add", "v0", "type", "veth", "peer", "name", "v1"])
            .and_then(|_| ip(&["-n", &ns.name, "link", "set", "v0", "up"]))
            .and_then(|_| ip(&["-n", &ns.name, "link", "set", "v1", "up"]));
        if let Err(e) = setup {
            eprintln!("skipping: {e}");
            return None; // Drop deletes the namespace
        }
        Some(ns)
    }

    /// Moves the calling thread into the namespace; sockets opened afterwards live there.
    pub fn enter(&self) {
        use std::os::fd::AsRawFd;
        let f = std::fs::File::open(format!("/run/netns/{}", self.name)).expect("netns file exists after ip netns add");
        // SAFETY: a valid netns fd; CLONE_NEWNET only changes this thread's namespace
        // (each libtest test runs on its own thread).
        let rc = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
        assert_eq!(rc, 0, "setns: {}", std::io::Error::last_os_error());
    }
}

impl Drop for Netns {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
    }
}
