//! `serve --web.config.file`: TLS (with verified client certificates) and basic authentication
//! in the Prometheus exporter-toolkit's format, scraped by a real Prometheus over https; plain
//! HTTP, a missing or wrong password, a missing or foreign client certificate and a silent
//! handshake are refused; a bad file stops the start. Loopback only; every server is killed
//! however the test ends. The certificates are made here by the `openssl` CLI (Debian's
//! `openssl`, in the image); missing tools print `skipping: <reason>`.

use crate::support::optics;
use crate::support::prometheus::{have, Prometheus};
use crate::support::serve::{get, replay_command, Serve};
use std::io::{Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The scraper's password, and its bcrypt hash made by libxcrypt's crypt(3) (Python's
/// `crypt.crypt(PASSWORD, crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=256))`), not by the
/// crate optics verifies with.
const PASSWORD: &str = "scrape-over-tls";
const HASH: &str = "$2b$08$uOH2HB8B4Ubr3lGV.f3f4OibrjK4RZA5nOEBdGF2dIjqI77.Uvc4q";

const CAPTURE: &str = "sr4-200g-lane4-marginal.jsonl";

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl").args(args).current_dir(dir).output().unwrap();
    assert!(out.status.success(), "openssl {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// In `dir`: a CA (`ca.crt`), a server certificate for 127.0.0.1 and localhost and a client
/// certificate signed by it (`server.*`, `client.*`), and a client certificate nobody
/// signed (`rogue.*`). EC P-256 keys: quick to make.
fn pki(dir: &Path) {
    std::fs::write(
        dir.join("req.cnf"),
        "[req]\ndistinguished_name = dn\nx509_extensions = ca\nprompt = no\n[dn]\nCN = optics test CA\n\
         [ca]\nbasicConstraints = critical,CA:TRUE\nkeyUsage = critical,keyCertSign,cRLSign\nsubjectKeyIdentifier = hash\n",
    )
    .unwrap();
    let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-config", "req.cnf"];
    openssl(dir, &[&["req", "-x509"][..], &key, &["-keyout", "ca.key", "-out", "ca.crt", "-days", "2"]].concat());
    let leaves = [
        ("server", "subjectAltName = IP:127.0.0.1, DNS:localhost\nextendedKeyUsage = serverAuth\nbasicConstraints = CA:FALSE\n"),
        ("client", "extendedKeyUsage = clientAuth\nbasicConstraints = CA:FALSE\n"),
    ];
    for (name, ext) in leaves {
        std::fs::write(dir.join(format!("{name}.ext")), ext).unwrap();
        let (k, csr, crt, e) = (format!("{name}.key"), format!("{name}.csr"), format!("{name}.crt"), format!("{name}.ext"));
        openssl(dir, &[&["req", "-new"][..], &key, &["-keyout", &k, "-out", &csr, "-subj", &format!("/CN=optics {name}")]].concat());
        openssl(
            dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.crt",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                &crt,
                "-days",
                "2",
                "-extfile",
                &e,
            ],
        );
    }
    openssl(
        dir,
        &[&["req", "-x509"][..], &key, &["-keyout", "rogue.key", "-out", "rogue.crt", "-days", "2", "-subj", "/CN=rogue"]].concat(),
    );
}

/// What curl got: its exit code, the HTTP status ("000": none), the response head and body.
struct Curl {
    code: i32,
    status: String,
    head: String,
    body: String,
}

fn curl(dir: &Path, url: &str, args: &[&str]) -> Curl {
    let out = Command::new("curl")
        .args(["-sS", "--max-time", "20", "-D", "head.txt", "-o", "body.txt", "-w", "%{http_code}", "--cacert", "ca.crt"])
        .args(args)
        .arg(url)
        .current_dir(dir)
        .output()
        .unwrap();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    let c = Curl {
        code: out.status.code().unwrap_or(-1),
        status: String::from_utf8_lossy(&out.stdout).into_owned(),
        head: read("head.txt"),
        body: read("body.txt"),
    };
    let _ = std::fs::remove_file(dir.join("head.txt"));
    let _ = std::fs::remove_file(dir.join("body.txt"));
    c
}

fn serve_with(web_config: &Path) -> Serve {
    let mut cmd = replay_command(CAPTURE, 10.0);
    cmd.arg("--web.config.file").arg(web_config);
    Serve::start(cmd)
}

/// Client certificates verified against the CA, and basic authentication: a real Prometheus
/// scrapes over https with both, the target is up and the capture's metrics arrive. Without
/// either, or over plain HTTP, nothing is served.
#[test]
fn prometheus_scrapes_over_tls_with_a_client_certificate_and_basic_auth() {
    if !have("openssl") || !have("curl") || !have("prometheus") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pki(d);
    // Relative names: from the web configuration file's folder, as the toolkit reads them.
    std::fs::write(
        d.join("web.yml"),
        format!(
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_auth_type: RequireAndVerifyClientCert\n  \
             client_ca_file: ca.crt\n  min_version: TLS12\nbasic_auth_users:\n  prometheus: '{HASH}'\n"
        ),
    )
    .unwrap();
    let serve = serve_with(&d.join("web.yml"));
    let url = format!("https://127.0.0.1:{}/metrics", serve.addr.port());
    let creds = format!("prometheus:{PASSWORD}");
    let client = ["--cert", "client.crt", "--key", "client.key"];

    let ok = curl(d, &url, &[&client[..], &["-u", &creds]].concat());
    assert_eq!((ok.code, ok.status.as_str()), (0, "200"), "{}", ok.body);
    assert!(ok.body.contains("optics_build_info"), "{}", ok.body);
    // Every path is behind the password: no credentials, a wrong password, an unknown user.
    for (what, auth) in [("none", None), ("wrong password", Some("prometheus:scrape")), ("unknown user", Some("nobody:scrape-over-tls"))] {
        let args: Vec<&str> = client.iter().copied().chain(auth.into_iter().flat_map(|a| ["-u", a])).collect();
        for path in ["/metrics", "/", "/healthz"] {
            let r = curl(d, &format!("https://127.0.0.1:{}{path}", serve.addr.port()), &args);
            assert_eq!(r.status, "401", "{what} {path}: {}", r.body);
            let challenge =
                r.head.lines().find_map(|l| l.strip_prefix("www-authenticate: ").or_else(|| l.strip_prefix("WWW-Authenticate: ")));
            assert!(challenge.is_some_and(|c| c.starts_with("Basic")), "{what} {path}: {}", r.head);
            assert!(!r.body.contains("optics_"), "{what} {path}: {}", r.body);
        }
    }
    // No client certificate, or one the CA did not sign: no HTTP at all.
    for (what, args) in [
        ("no client certificate", vec!["-u", &creds]),
        ("a foreign client certificate", vec!["--cert", "rogue.crt", "--key", "rogue.key", "-u", &creds]),
    ] {
        let r = curl(d, &url, &args);
        assert!(r.code != 0 && r.status == "000", "{what}: curl exit {} status {} {}", r.code, r.status, r.body);
    }
    // Plain HTTP to the TLS port: never an HTTP answer.
    match get(serve.addr, "/metrics", &[]) {
        Ok(r) => panic!("plain HTTP answered {}: {}", r.status, r.body),
        Err(e) => assert!(!e.to_string().contains("optics_"), "{e}"),
    }

    // The real scraper, with the CA, its client certificate and the password.
    let job = format!(
        "    scheme: https\n    basic_auth:\n      username: prometheus\n      password: {PASSWORD}\n    tls_config:\n      \
         ca_file: ca.crt\n      cert_file: client.crt\n      key_file: client.key\n"
    );
    let prom = Prometheus::start_in(dir, &[serve.addr.to_string()], &job);
    assert!(prom.wait_ready(), "prometheus never ready: {}", prom.log());
    let deadline = Instant::now() + Duration::from_secs(45);
    loop {
        let up = prom.scalar("up{job=\"optics\"}");
        let link = prom.scalar("optics_link_up{interface=\"ens3np0\"}");
        if up == Some(1.0) && link == Some(1.0) {
            break;
        }
        if Instant::now() > deadline {
            let targets = prom.api("/api/v1/targets");
            panic!("no scrape over TLS within 45 s: up {up:?}, link {link:?}\ntargets: {targets:?}\nprometheus log:\n{}", prom.log());
        }
        std::thread::sleep(Duration::from_millis(250));
    }
    // A verdict from the capture's analysis came through too.
    let verdicts = prom.api("/api/v1/query?query=optics_interface_verdict").unwrap();
    assert!(!verdicts["data"]["result"].as_array().unwrap().is_empty(), "{verdicts}");
}

/// Basic authentication without TLS (the toolkit allows it; optics warns that passwords
/// cross in clear text), checked on the raw bytes of the answers.
#[test]
fn basic_auth_over_plain_http_answers_401_with_a_challenge() {
    use base64::Engine as _;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("web.yml"), format!("basic_auth_users:\n  prometheus: '{HASH}'\n")).unwrap();
    let serve = serve_with(&dir.path().join("web.yml"));
    assert!(serve.stderr.lock().unwrap().contains("clear text"), "{}", serve.stderr.lock().unwrap());
    let basic =
        |user: &str, password: &str| format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}")));
    let none = get(serve.addr, "/metrics", &[]).unwrap();
    assert_eq!(none.status, 401);
    assert!(none.headers.lines().any(|l| l.to_ascii_lowercase().starts_with("www-authenticate: basic")), "{}", none.headers);
    for wrong in [basic("prometheus", "nope"), basic("root", PASSWORD), "Bearer x".into(), "Basic ***".into()] {
        let r = get(serve.addr, "/metrics", &[("Authorization", &wrong)]).unwrap();
        assert_eq!(r.status, 401, "{wrong}");
        assert!(!r.body.contains("optics_"));
    }
    // Twice: the second is answered from the verified pair.
    for _ in 0..2 {
        let r = get(serve.addr, "/metrics", &[("Authorization", &basic("prometheus", PASSWORD))]).unwrap();
        assert_eq!(r.status, 200);
        assert!(r.body.contains("optics_build_info"), "{}", r.body);
    }
}

/// A client that opens a TLS connection and never finishes its handshake is closed within
/// the first-byte timeout (1 s), not the 30 s a connection may last.
#[test]
fn a_stalled_tls_handshake_is_closed_by_the_first_byte_timeout() {
    if !have("openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    pki(dir.path());
    std::fs::write(dir.path().join("web.yml"), "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n").unwrap();
    let serve = serve_with(&dir.path().join("web.yml"));
    let mut s = std::net::TcpStream::connect(serve.addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    // The first bytes of a TLS record carrying a ClientHello, and then nothing.
    s.write_all(&[0x16, 0x03, 0x01, 0x02, 0x00, 0x01]).unwrap();
    let started = Instant::now();
    let mut buf = [0u8; 64];
    let closed = loop {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break started.elapsed(),
            Ok(_) => continue,
        }
    };
    assert!(closed < Duration::from_secs(10), "closed after {closed:?}");
}

/// A bad web configuration is an error at start-up, naming what is wrong; nothing listens.
#[test]
fn a_bad_web_config_stops_the_start_with_the_reason() {
    if !have("openssl") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    pki(d);
    let tls = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";
    let cases: Vec<(&str, String, &str)> = vec![
        ("an unknown key", "tls_server_config:\n  cert_fil: server.crt\n".into(), "cert_fil"),
        ("a misspelt section", format!("basic_auth_user:\n  prometheus: '{HASH}'\n"), "basic_auth_user"),
        ("a plain password", "basic_auth_users:\n  prometheus: scrape-over-tls\n".into(), "not a bcrypt hash"),
        ("a missing certificate", "tls_server_config:\n  cert_file: nowhere.crt\n  key_file: server.key\n".into(), "nowhere.crt"),
        ("a key of another certificate", "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n".into(), "key_file"),
        ("a key that is not PEM", "tls_server_config:\n  cert_file: server.crt\n  key_file: req.cnf\n".into(), "not a PEM private key"),
        (
            "an unverified client cert",
            format!("{tls}  client_auth_type: RequireAnyClientCert\n  client_ca_file: ca.crt\n"),
            "RequireAnyClientCert",
        ),
        ("verification without a CA", format!("{tls}  client_auth_type: RequireAndVerifyClientCert\n"), "client_ca_file is missing"),
        ("an unknown TLS version", format!("{tls}  min_version: TLS14\n"), "TLS14"),
        ("not YAML", "tls_server_config: [\n".into(), "web.yml"),
        ("a rate limit", "rate_limit:\n  interval: 1s\n  burst: 20\n".into(), "rate_limit"),
    ];
    for (what, yaml, says) in cases {
        std::fs::write(d.join("web.yml"), &yaml).unwrap();
        let out = optics()
            .args(["serve", "--listen", "127.0.0.1:0", "--replay", &crate::support::serve::capture(CAPTURE), "--web.config.file"])
            .arg(d.join("web.yml"))
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(err.contains("--web.config.file") && err.contains(says), "{what}: {err}");
        assert!(!err.contains("listening"), "{what}: {err}");
    }
    let out = optics().args(["serve", "--listen", "127.0.0.1:0", "--web.config.file"]).arg(d.join("absent.yml")).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
}
