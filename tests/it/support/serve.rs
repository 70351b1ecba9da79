//! A running `optics serve` for tests (killed on drop, also when a test panics) and a
//! minimal HTTP/1.1 client over std TCP, so the tests see exactly the bytes on the wire.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub fn bin() -> PathBuf {
    PathBuf::from(assert_cmd::cargo::cargo_bin!("optics"))
}

pub fn capture(name: &str) -> String {
    format!("{}/captures/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `optics serve --replay CAPTURE --speed SPEED --listen 127.0.0.1:0`, not yet spawned.
pub fn replay_command(capture_name: &str, speed: f64) -> Command {
    let mut c = Command::new(bin());
    c.args(["serve", "--replay", &capture(capture_name), "--speed", &speed.to_string(), "--listen", "127.0.0.1:0"]);
    c
}

/// How long a test waits for `serve` to listen or to turn healthy: a bound on a hang, not
/// on a slow start. Before it listens, `serve --replay` reads its capture through once (a
/// 31 MB one in `serve_replay_stream`), which a debug build on a loaded 2-core runner
/// takes tens of seconds to do.
const HANG_BOUND: Duration = Duration::from_secs(180);

/// The child and everything it wrote to stderr so far.
pub struct Serve {
    pub child: Child,
    pub addr: SocketAddr,
    pub stderr: Arc<Mutex<String>>,
}

impl Serve {
    /// Starts `cmd` (an `optics serve ... --listen 127.0.0.1:0` command) and waits for the
    /// `listening on http://ADDR/metrics` (or `https://`) line, or for its stderr to end
    /// (it exited without listening: said at once, with what it wrote).
    pub fn start(mut cmd: Command) -> Serve {
        let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().expect("spawning optics serve");
        let err = child.stderr.take().expect("stderr is piped");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = mpsc::channel();
        let log = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                let listening = line.split_once("listening on http://").or_else(|| line.split_once("listening on https://"));
                let mut l = log.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
                drop(l);
                if let Some(rest) = listening.map(|(_, r)| r.trim_end_matches("/metrics").to_string()) {
                    let _ = tx.send(Some(rest));
                }
            }
            let _ = tx.send(None);
        });
        let addr = match rx.recv_timeout(HANG_BOUND) {
            Ok(Some(a)) => a.parse().expect("a socket address in the listening line"),
            Ok(None) | Err(_) => {
                let _ = child.kill();
                panic!("optics serve did not start listening: {}", stderr.lock().unwrap());
            }
        };
        Serve { child, addr, stderr }
    }

    /// `optics serve --replay CAPTURE --speed SPEED --listen 127.0.0.1:0`.
    pub fn replay(capture_name: &str, speed: f64) -> Serve {
        Serve::start(replay_command(capture_name, speed))
    }

    /// Polls `/healthz` until the first tick is in ([`HANG_BOUND`] catches a hang, not a
    /// slow start).
    pub fn wait_ready(&self) {
        let deadline = Instant::now() + HANG_BOUND;
        while Instant::now() < deadline {
            if get(self.addr, "/healthz", &[]).is_ok_and(|r| r.status == 200) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("optics serve never became healthy: {}", self.stderr.lock().unwrap());
    }

    pub fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap_or_default();
        status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
    }

    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub struct Response {
    pub status: u16,
    pub headers: String,
    pub body: String,
}

/// One GET with `Connection: close`; reads to EOF (10 s timeouts).
pub fn get(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> std::io::Result<Response> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(10))?;
    s.set_read_timeout(Some(Duration::from_secs(10)))?;
    s.set_write_timeout(Some(Duration::from_secs(10)))?;
    let mut req = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    s.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").ok_or_else(|| std::io::Error::other(format!("no header end in {text:?}")))?;
    let status = head.split_whitespace().nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| std::io::Error::other("no status"))?;
    let body = if head.to_ascii_lowercase().contains("transfer-encoding: chunked") { dechunk(body) } else { body.to_string() };
    Ok(Response { status, headers: head.to_string(), body })
}

/// A chunked body (RFC 9112 7.1) as one string; stops at the last chunk or at malformed input.
fn dechunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, tail)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16) else { break };
        if n == 0 || tail.len() < n {
            break;
        }
        out.push_str(&tail[..n]);
        rest = tail[n..].trim_start_matches("\r\n");
    }
    out
}

/// The sample lines of a text exposition: (series with labels, value).
pub fn samples(body: &str) -> Vec<(String, f64)> {
    body.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            Some((series.to_string(), value.parse().ok()?))
        })
        .collect()
}

/// The interfaces `serve`'s metrics have a series for (its `optics_link_up`), sorted.
#[cfg(live)]
pub fn interfaces_in(body: &str) -> Vec<String> {
    let mut v: Vec<String> = body
        .lines()
        .filter(|l| l.starts_with("optics_link_up{"))
        .filter_map(|l| l.split("interface=\"").nth(1)?.split('"').next().map(str::to_string))
        .collect();
    v.sort();
    v
}

/// Polls `serve`'s metrics until exactly `want` have series (15 s at most).
#[cfg(live)]
pub fn wait_for_interfaces(serve: &Serve, want: &[&str]) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let got = get(serve.addr, "/metrics", &[]).map(|r| interfaces_in(&r.body)).unwrap_or_default();
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "wanted series for {want:?}, got {got:?}; log: {}", serve.stderr.lock().unwrap());
        std::thread::sleep(Duration::from_millis(50));
    }
}
