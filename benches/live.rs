//! Live sampling figures: `cargo bench --bench live [-- --quick]` prints, per
//! interface-sample, what `optics watch` costs on 16 and 64 veth interfaces (1 and 64
//! queues each) in a private network namespace, beside a loop that forks Debian's
//! `ethtool -S IFACE` and `ethtool --show-fec IFACE` per interface; and `watch`'s RSS
//! after 100 and after 10,000 samples. Figures to read with their targets beside them
//! (docs/benchmarks.md, "Live sampling"), never a timed test: the bench exits 0 whatever
//! the figures, and prints `skipping: <reason>` without root, `ip`, `strace` or `ethtool`.
//!
//! How each figure is taken:
//! - syscalls: `strace -f -c` of a child `optics watch`, two runs of different length;
//!   (calls of the longer - calls of the shorter) / (samples of the longer - samples of
//!   the shorter), so start-up (sockets, GETFAMILY, the string table) cancels out. The
//!   target is for the requests a sample makes of the kernel (ioctl, netlink send and
//!   receive, sockets); "all" adds the runtime's futex/epoll and the allocator's brk/mmap.
//! - bytes: the `--verbose` request/byte count of the same runs, differenced the same way,
//!   over 8 bytes x the driver's counter count (`ethtool -S` lines).
//! - CPU: user + system time of each child (`ru_utime + ru_stime` of `wait4`), runs
//!   without strace. One optics figure is a short and a long run differenced as above;
//!   a single such difference swings ±30% with what else the machine runs, so it is
//!   taken [`CPU_PAIRS`] times, with a round of the fork loop after each run (short,
//!   fork, long, fork): both sides see the same machine state, and each pair's ratio is
//!   fork CPU (its two rounds) over optics CPU. Printed: the median of each, and the
//!   spread (min-max) of the pairs beside it; the target is checked on the median ratio.
//! - RSS: the child's peak RSS (`ru_maxrss` of `wait4`) after about 100 and 10,000 samples.
//!
//! The bench enters the namespace itself (`setns`) and starts its children there, so
//! neither side pays for `ip netns exec`.

use std::os::fd::AsRawFd;
use std::process::{Command, Output, Stdio};

/// The binary measured: this build's, or `OPTICS_BENCH_BIN` (to compare with another build).
fn optics_bin() -> String {
    std::env::var("OPTICS_BENCH_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_optics").to_string())
}

/// A namespace with `s0..s63` (1 queue) and `m0..m63` (64 queues), veth peers `t*`/`n*`;
/// deleted on drop.
struct Ns {
    name: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

impl Ns {
    fn create(pairs: usize) -> Result<Ns, String> {
        let ns = Ns { name: format!("optics-bench-{}", std::process::id()) };
        ip(&["netns", "add", &ns.name])?;
        let mut batch = String::new();
        for i in 0..pairs {
            batch += &format!("link add s{i} type veth peer name t{i}\nlink set s{i} up\nlink set t{i} up\n");
            batch += &format!(
                "link add m{i} numtxqueues 64 numrxqueues 64 type veth peer name n{i} numtxqueues 64 numrxqueues 64\nlink set m{i} up\nlink set n{i} up\n"
            );
        }
        let file = std::env::temp_dir().join(format!("{}.ip", ns.name));
        std::fs::write(&file, batch).map_err(|e| e.to_string())?;
        let r = ip(&["-n", &ns.name, "-batch", &file.display().to_string()]);
        let _ = std::fs::remove_file(&file);
        r?;
        Ok(ns)
    }

    /// Moves this (single-threaded) process into the namespace; children start there.
    fn enter(&self) -> Result<(), String> {
        let f = std::fs::File::open(format!("/run/netns/{}", self.name)).map_err(|e| e.to_string())?;
        // SAFETY: a valid netns fd; the bench has one thread, so the whole process moves.
        if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
            return Err(format!("setns: {}", std::io::Error::last_os_error()));
        }
        Ok(())
    }
}

impl Drop for Ns {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.name]);
    }
}

/// CPU seconds (user + system) of the children waited for so far.
fn children_cpu_s() -> f64 {
    // SAFETY: getrusage writes one rusage struct; all zeroes is a valid initial value.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `ru` is a valid, writable rusage.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// Runs `cmd` to the end; its output, CPU seconds and peak RSS in kB (from wait4).
fn run_measured(cmd: &mut Command) -> (Output, f64, i64) {
    // Reaped by the wait4 below, which also gives its rusage (Child::wait would not).
    #[allow(clippy::zombie_processes)]
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("spawning");
    let pid = child.id() as libc::pid_t;
    // Both pipes are drained at once: a child that fills one while the other is being
    // read to its end would block forever.
    fn drain(pipe: Option<impl std::io::Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut buf);
            }
            buf
        })
    }
    let (out_reader, err_reader) = (drain(child.stdout), drain(child.stderr));
    let mut status = 0;
    // SAFETY: rusage as above; pid is our child, not yet waited for.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointers to locals; reaps exactly our child.
    unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let (stdout, stderr) = (out_reader.join().expect("reader thread"), err_reader.join().expect("reader thread"));
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let exit = std::os::unix::process::ExitStatusExt::from_raw(status);
    (Output { status: exit, stdout, stderr }, tv(ru.ru_utime) + tv(ru.ru_stime), ru.ru_maxrss)
}

/// "T ticks, S samples, R requests, B bytes ..." from `watch --verbose`.
fn verbose_counts(out: &Output) -> Option<(u64, u64, u64, u64)> {
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains(" ticks, "))?;
    let n: Vec<u64> = line.split(", ").filter_map(|w| w.split(' ').next()?.parse().ok()).collect();
    Some((*n.first()?, *n.get(1)?, *n.get(2)?, *n.get(3)?))
}

fn watch_cmd(ifaces: &[String], interval: &str, duration: &str) -> Command {
    let mut c = Command::new(optics_bin());
    c.arg("watch").args(ifaces).args(["--interval", interval, "--duration", duration, "--verbose"]);
    c
}

/// The syscalls a sample asks the kernel for (the rest is the runtime and memory).
const KERNEL_REQUESTS: &[&str] = &["ioctl", "sendto", "recvfrom", "sendmsg", "recvmsg", "socket", "close"];

/// Calls in a `strace -c` summary ("% time seconds usecs/call calls [errors] syscall"):
/// all of them, and those in [`KERNEL_REQUESTS`].
fn strace_calls(path: &std::path::Path) -> (u64, u64) {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let (mut total, mut kernel) = (0, 0);
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        let (Some(calls), Some(name)) = (f.get(3).and_then(|n| n.parse::<u64>().ok()), f.last()) else { continue };
        if f.len() < 5 || f[0].parse::<f64>().is_err() || *name == "total" {
            continue;
        }
        total += calls;
        if KERNEL_REQUESTS.contains(name) {
            kernel += calls;
        }
    }
    (total, kernel)
}

struct OpticsFigures {
    syscalls: f64,
    kernel_syscalls: f64,
    bytes: f64,
}

/// Short/long pairs of plain runs behind each CPU figure (see the header).
const CPU_PAIRS: usize = 3;

/// One strace'd pair of runs of `optics watch` over `ifaces`.
fn optics_figures(ifaces: &[String], short: &str, long: &str) -> Option<OpticsFigures> {
    let dir = std::env::temp_dir();
    let st = |tag: &str| dir.join(format!("optics-bench-{}-{tag}.strace", std::process::id()));
    let traced = |duration: &str, tag: &str| {
        let w = watch_cmd(ifaces, "100ms", duration);
        let mut c = Command::new("strace");
        c.args(["-f", "-c", "-o"]).arg(st(tag)).arg(w.get_program()).args(w.get_args());
        let (out, _, _) = run_measured(&mut c);
        let counts = verbose_counts(&out)?;
        let calls = strace_calls(&st(tag));
        let _ = std::fs::remove_file(st(tag));
        Some((counts, calls))
    };
    let ((_, s1, _, b1), c1) = traced(short, "a")?;
    let ((_, s2, _, b2), c2) = traced(long, "b")?;
    if s2 <= s1 {
        return None;
    }
    Some(OpticsFigures {
        syscalls: c2.0.saturating_sub(c1.0) as f64 / (s2 - s1) as f64,
        kernel_syscalls: c2.1.saturating_sub(c1.1) as f64 / (s2 - s1) as f64,
        bytes: b2.saturating_sub(b1) as f64 / (s2 - s1) as f64,
    })
}

/// CPU seconds per interface-sample, per pair: optics (a long run minus a short one)
/// and the fork loop (`rounds` rounds after each of the two runs), in that pair's order.
fn cpu_pairs(ifaces: &[String], short: &str, long: &str, rounds: usize) -> Option<Vec<(f64, f64)>> {
    let plain = |duration: &str| {
        let (out, cpu, _) = run_measured(&mut watch_cmd(ifaces, "100ms", duration));
        verbose_counts(&out).map(|(_, s, _, _)| (s, cpu))
    };
    let mut pairs = Vec::new();
    for _ in 0..CPU_PAIRS {
        let (p1, cpu1) = plain(short)?;
        let fork1 = fork_cpu(ifaces, rounds);
        let (p2, cpu2) = plain(long)?;
        let fork2 = fork_cpu(ifaces, rounds);
        if p2 <= p1 {
            return None;
        }
        pairs.push(((cpu2 - cpu1).max(0.0) / (p2 - p1) as f64, (fork1 + fork2) / 2.0));
    }
    Some(pairs)
}

/// The median and the range of `v` (not empty).
fn median_range(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
    (median, v[0], v[n - 1])
}

/// CPU seconds per interface-sample of `ethtool -S IFACE; ethtool --show-fec IFACE`.
fn fork_cpu(ifaces: &[String], rounds: usize) -> f64 {
    let before = children_cpu_s();
    for _ in 0..rounds {
        for i in ifaces {
            for args in [["-S", i.as_str()], ["--show-fec", i.as_str()]] {
                // veth has no FEC: `--show-fec` exits 1 after asking; the cost is the same.
                let _ = Command::new("ethtool").args(args).stdout(Stdio::null()).stderr(Stdio::null()).status();
            }
        }
    }
    (children_cpu_s() - before) / (rounds * ifaces.len()) as f64
}

/// Syscalls of one `ethtool -S IFACE; ethtool --show-fec IFACE`.
fn fork_syscalls(ifaces: &[String]) -> f64 {
    let st = std::env::temp_dir().join(format!("optics-bench-{}-ethtool.strace", std::process::id()));
    let mut calls = 0;
    for args in [["-S", ifaces[0].as_str()], ["--show-fec", ifaces[0].as_str()]] {
        let _ = Command::new("strace").args(["-f", "-c", "-o"]).arg(&st).arg("ethtool").args(args).output();
        calls += strace_calls(&st).0;
    }
    let _ = std::fs::remove_file(&st);
    calls as f64
}

/// Driver counters of `iface` (`ethtool -S` lines with a value).
fn counter_count(iface: &str) -> usize {
    let out = Command::new("ethtool").args(["-S", iface]).output().map(|o| o.stdout).unwrap_or_default();
    String::from_utf8_lossy(&out).lines().filter(|l| l.starts_with(' ') && l.contains(':')).count()
}

fn meets(ok: bool) -> &'static str {
    if ok {
        "yes"
    } else {
        "NO"
    }
}

fn missing_tools() -> Option<String> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Some("needs root for ip netns / veth".into());
    }
    for tool in ["ip", "strace", "ethtool"] {
        let probe = if tool == "ip" { "-V" } else { "--version" };
        if Command::new(tool).arg(probe).output().is_err() {
            return Some(format!("{tool} is not installed (.ci/run installs iproute2, strace, ethtool)"));
        }
    }
    None
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    if let Some(why) = missing_tools() {
        println!("skipping: {why}");
        return;
    }
    let ns = match Ns::create(64) {
        Ok(ns) => ns,
        Err(e) => {
            println!("skipping: {e}");
            return;
        }
    };
    if let Err(e) = ns.enter() {
        println!("skipping: {e}");
        return;
    }
    // The optics figure is the difference of two runs: the longer must add enough samples
    // that the start-up's variation (a few ms under load) is small beside them; 10 ticks
    // (600 ms / 1600 ms) made it ±30% of the 16 × 1-queue figure. `rounds`: fork-loop
    // rounds after each run.
    let (short, long, rounds) = if quick { ("500ms", "3s", 1) } else { ("2s", "10s", 3) };
    println!("\n### Live sampling (veth in a private netns, per interface-sample{})\n", if quick { ", --quick" } else { "" });
    println!("CPU: median of {CPU_PAIRS} pairs (min-max), each a short and a long optics run with fork-loop rounds between them\n");
    println!("| interfaces | queues | counters | optics syscalls: requests to the kernel (target <= 10) | all | ethtool fork syscalls | bytes | bytes / counter values (target <= 1.5x) | optics CPU µs | fork loop CPU µs | fork / optics CPU (target >= 50x) |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (n, prefix, queues) in [(16, "s", 1), (16, "m", 64), (64, "s", 1), (64, "m", 64)] {
        let ifaces: Vec<String> = (0..n).map(|i| format!("{prefix}{i}")).collect();
        let counters = counter_count(&ifaces[0]);
        let (Some(o), Some(pairs)) = (optics_figures(&ifaces, short, long), cpu_pairs(&ifaces, short, long, rounds)) else {
            println!("| {n} | {queues} | {counters} | (optics watch gave no figures) | | | | | | | |");
            continue;
        };
        let fork_calls = fork_syscalls(&ifaces);
        let value_bytes = 8.0 * counters as f64;
        let us = |v: (f64, f64, f64)| (v.0 * 1e6, v.1 * 1e6, v.2 * 1e6);
        let optics = us(median_range(pairs.iter().map(|p| p.0).collect()));
        let fork = us(median_range(pairs.iter().map(|p| p.1).collect()));
        let ratio = median_range(pairs.iter().map(|p| p.1 / p.0.max(1e-9)).collect());
        println!(
            "| {n} | {queues} | {counters} | {:.1} {} | {:.1} | {fork_calls:.0} | {:.0} | {:.2}x {} | {:.1} ({:.1}-{:.1}) | {:.0} ({:.0}-{:.0}) | {:.0}x ({:.0}-{:.0}x) {} |",
            o.kernel_syscalls,
            meets(o.kernel_syscalls <= 10.0),
            o.syscalls,
            o.bytes,
            o.bytes / value_bytes,
            meets(o.bytes <= 1.5 * value_bytes),
            optics.0,
            optics.1,
            optics.2,
            fork.0,
            fork.1,
            fork.2,
            ratio.0,
            ratio.1,
            ratio.2,
            meets(ratio.0 >= 50.0),
        );
    }

    // RSS: 16 interfaces at a 1 ms interval for about 100 and about 10,000 ticks.
    let ifaces: Vec<String> = (0..16).map(|i| format!("s{i}")).collect();
    let rss = |duration: &str| {
        let (out, _, maxrss_kb) = run_measured(&mut watch_cmd(&ifaces, "1ms", duration));
        verbose_counts(&out).map(|(ticks, samples, _, _)| (ticks, samples, maxrss_kb))
    };
    let long_rss = if quick { "3s" } else { "15s" };
    match (rss("120ms"), rss(long_rss)) {
        (Some((t1, s1, r1)), Some((t2, s2, r2))) => {
            let grew_mb = (r2 - r1) as f64 / 1024.0;
            println!("\n| watch of 16 interfaces | ticks | samples | peak RSS MB |\n|---|---:|---:|---:|");
            println!("| short run | {t1} | {s1} | {:.1} |", r1 as f64 / 1024.0);
            println!("| long run | {t2} | {s2} | {:.1} |", r2 as f64 / 1024.0);
            println!(
                "\nRSS growth from {t1} to {t2} ticks: {grew_mb:.1} MB (target: within 2 MB from 100 to 10,000 ticks) {}",
                meets(grew_mb.abs() <= 2.0)
            );
        }
        _ => println!("\nwatch RSS: optics watch gave no figures"),
    }
}
