//! A real Prometheus server for the exporter tests (Debian's `prometheus` package, which
//! `.ci/run` installs), and the repository paths they read.

use super::serve::get;
use serde_json::Value;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

pub fn have(tool: &str) -> bool {
    let found = Command::new("sh").args(["-c", &format!("command -v {tool}")]).stdout(Stdio::null()).status().is_ok_and(|s| s.success());
    if !found {
        eprintln!("skipping: {tool} is not installed (.ci/run installs Debian's prometheus package)");
    }
    found
}

/// Metric names docs/metrics.md documents: the one list dashboards and rules may use.
/// A Prometheus server in a temporary directory, killed (and the directory removed)
/// however the test ends.
pub struct Prometheus {
    child: Child,
    pub addr: String,
    _dir: tempfile::TempDir,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

impl Prometheus {
    pub fn start(targets: &[String]) -> Prometheus {
        Prometheus::start_in(tempfile::tempdir().unwrap(), targets, "")
    }

    /// A server in `dir` whose scrape job also has `job` (YAML lines indented for the job's
    /// keys: `scheme`, `basic_auth`, `tls_config`, with file names relative to `dir`).
    pub fn start_in(dir: tempfile::TempDir, targets: &[String], job: &str) -> Prometheus {
        // The shipped rules with every `for:` shortened so the test runs in seconds.
        let rules = std::fs::read_to_string(repo("deploy/prometheus/optics-rules.yml")).unwrap();
        let rules: String = rules
            .lines()
            .map(|l| match l.split_once("for: ") {
                Some((indent, _)) if indent.trim().is_empty() => format!("{indent}for: 2s\n"),
                _ => format!("{l}\n"),
            })
            .collect();
        std::fs::write(dir.path().join("rules.yml"), rules).unwrap();
        let targets = targets.iter().map(|t| format!("'{t}'")).collect::<Vec<_>>().join(", ");
        let config = format!(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files: ['rules.yml']\nscrape_configs:\n  - job_name: optics\n{job}    static_configs:\n      - targets: [{targets}]\n"
        );
        std::fs::write(dir.path().join("prometheus.yml"), config).unwrap();
        let addr = format!("127.0.0.1:{}", free_port());
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", dir.path().join("prometheus.yml").display()))
            .arg(format!("--storage.tsdb.path={}", dir.path().join("data").display()))
            .arg(format!("--web.listen-address={addr}"))
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(dir.path().join("prometheus.log")).unwrap())
            .spawn()
            .expect("spawning prometheus");
        Prometheus { child, addr, _dir: dir }
    }

    pub fn dir(&self) -> &Path {
        self._dir.path()
    }

    /// The server's log so far (for a failure message).
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir().join("prometheus.log")).unwrap_or_default()
    }

    /// True once the server answers /-/ready (bounded wait).
    pub fn wait_ready(&self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if self.addr.parse().ok().and_then(|a| get(a, "/-/ready", &[]).ok()).is_some_and(|r| r.status == 200) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        false
    }

    /// The value of an instant query's single result, if it has exactly one.
    pub fn scalar(&self, query: &str) -> Option<f64> {
        let q: String =
            query.bytes().map(|b| if b.is_ascii_alphanumeric() { (b as char).to_string() } else { format!("%{b:02X}") }).collect();
        let v = self.api(&format!("/api/v1/query?query={q}"))?;
        let r = v["data"]["result"].as_array()?;
        if r.len() != 1 {
            return None;
        }
        r[0]["value"][1].as_str()?.parse().ok()
    }

    pub fn api(&self, path: &str) -> Option<Value> {
        let r = get(self.addr.parse().ok()?, path, &[]).ok()?;
        serde_json::from_str(&r.body).ok()
    }
}
