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

impl Netns {
    /// A command that runs its arguments (a program and its own arguments, appended by the
    /// caller) in this namespace, seeing the tree at `root` (its `sys/`, laid out as
    /// support::ib_sysfs lays it out) over the kernel's `/sys`: `ip netns exec` (which
    /// remounts /sys for the namespace), then a private mount namespace (`unshare --mount`)
    /// with a read-only overlayfs of `ROOT/sys` above that /sys, so the program reads
    /// `/sys/class/infiniband` from the tree and everything else (`/sys/class/net`,
    /// `/sys/devices`) from the kernel. Every step execs in place: the child's PID is the
    /// program's. The program sees exit status 97 when the overlay cannot be mounted
    /// (`over_sys_works` says so before a test relies on it). No knob in the binary: it
    /// reads the live path, `/sys`.
    pub fn over_sys(&self, root: &std::path::Path) -> Command {
        let mut c = Command::new("ip");
        c.args(["netns", "exec", &self.name, "unshare", "--mount", "--propagation", "private", "sh", "-c"])
            .arg(r#"mount -t overlay optics-sys -o "lowerdir=$1/sys:/sys" /sys || exit 97; shift; exec "$@""#)
            .arg("optics-over-sys")
            .arg(root);
        c
    }

    /// True when [`Netns::over_sys`] can lay `root` over /sys here; prints
    /// `skipping: <reason>` when it cannot (no overlayfs, no unshare).
    pub fn over_sys_works(&self, root: &std::path::Path) -> bool {
        match self.over_sys(root).args(["test", "-d", "/sys/class/infiniband"]).output() {
            Ok(o) if o.status.success() => true,
            Ok(o) => {
                eprintln!("skipping: cannot overlay a sysfs tree on /sys ({:?}): {}", o.status, String::from_utf8_lossy(&o.stderr).trim());
                false
            }
            Err(e) => {
                eprintln!("skipping: ip netns exec ... unshare: {e}");
                false
            }
        }
    }
}
