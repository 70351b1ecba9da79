//! `serve --web.config.file FILE`: TLS and basic authentication in the format of the
//! Prometheus exporter-toolkit (`docs/web-configuration.md` of prometheus/exporter-toolkit),
//! so one file serves every exporter on a host. Read once at start-up; a key optics does not
//! know, a key of the format it does not implement, a file that does not parse, a
//! certificate that does not match its key or a hash that is not bcrypt is an error then,
//! never a silently weaker server.
//!
//! - `tls_server_config`: `cert_file`/`key_file` (or inline `cert`/`key`), `client_ca_file`
//!   (or `client_ca`) with `client_auth_type` `RequireAndVerifyClientCert` or
//!   `VerifyClientCertIfGiven`, `min_version`/`max_version`. rustls speaks TLS 1.2 and 1.3
//!   only: `TLS10`/`TLS11` as a minimum mean TLS 1.2. `RequestClientCert` and
//!   `RequireAnyClientCert` accept a certificate nobody verified (the toolkit itself calls
//!   them insecure) and are refused.
//! - `basic_auth_users`: user name to bcrypt hash ([`BasicAuth`]).
//!
//! Relative file names are taken from the web configuration file's folder, as the toolkit
//! does.

use crate::analysis::config::NoDuplicateKeys;
use bcrypt::HashParts;
use ring::hmac;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use serde::de::IgnoredAny;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use tokio_rustls::rustls;
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};

/// The file as the toolkit documents it. Keys of the format optics does not implement are
/// read (so they are not "unknown") and then refused by name.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct WebFile {
    tls_server_config: Option<TlsFile>,
    #[serde(default)]
    basic_auth_users: BTreeMap<String, String>,
    http_server_config: Option<IgnoredAny>,
    rate_limit: Option<IgnoredAny>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsFile {
    cert: Option<String>,
    key: Option<String>,
    client_ca: Option<String>,
    cert_file: Option<PathBuf>,
    key_file: Option<PathBuf>,
    client_ca_file: Option<PathBuf>,
    client_auth_type: Option<String>,
    min_version: Option<String>,
    max_version: Option<String>,
    /// rustls chooses the suite by the server's order already; `true` (the default) is
    /// what it does, `false` is refused.
    prefer_server_cipher_suites: Option<bool>,
    cipher_suites: Option<Vec<String>>,
    curve_preferences: Option<Vec<String>>,
    client_allowed_sans: Option<Vec<String>>,
}

/// What a web configuration file asks for, checked and ready to serve with.
#[derive(Debug, Default)]
pub struct WebConfig {
    /// None: plain HTTP.
    pub(crate) tls: Option<Arc<ServerConfig>>,
    /// None: no authentication.
    pub(crate) basic_auth: Option<Arc<BasicAuth>>,
}

/// Reads a file the configuration names (bounded by the caller), or says why not.
pub(crate) type ReadFile<'a> = &'a dyn Fn(&Path) -> Result<Vec<u8>, super::CallerError>;

/// Why a web configuration is refused: each text names the key to mend.
#[derive(Debug, thiserror::Error)]
pub enum WebConfigError {
    /// Not YAML of the format, an unknown key, or a key given twice.
    #[error("{0}")]
    Yaml(serde_norway::Error),
    /// A top-level key of the format optics does not implement.
    #[error("{0} is not implemented by optics (it serves HTTP/1.1 with its own connection limits): remove it")]
    ServerKey(&'static str),
    /// A `tls_server_config` key optics does not implement.
    #[error("tls_server_config: {0} is not implemented by optics (rustls's own suites and curves, server order): remove it")]
    TlsKey(&'static str),
    /// A PEM given both inline and as a file.
    #[error("tls_server_config: {0} and {0}_file are both given; give one")]
    PemTwice(&'static str),
    /// `{what}_file` could not be read (the reader's text).
    #[error("tls_server_config: {what}_file: {detail}")]
    PemFile {
        /// `cert`, `key` or `client_ca`.
        what: &'static str,
        /// Why it could not be read.
        detail: super::CallerError,
    },
    /// A TLS version that is not one of the format's names.
    #[error("tls_server_config: {key}: unknown TLS version {version:?} (TLS10, TLS11, TLS12 or TLS13)")]
    UnknownVersion {
        /// `min_version` or `max_version`.
        key: &'static str,
        /// The version as given.
        version: String,
    },
    /// A `max_version` under TLS 1.2.
    #[error("tls_server_config: max_version {0}: optics speaks TLS 1.2 and 1.3 only")]
    MaxVersionTooOld(String),
    /// A `min_version` above the `max_version`.
    #[error("tls_server_config: min_version {min} is above max_version {max}")]
    VersionsReversed {
        /// `min_version` as given.
        min: String,
        /// `max_version` as given.
        max: String,
    },
    /// `RequestClientCert` or `RequireAnyClientCert`.
    #[error(
        "tls_server_config: client_auth_type {0} accepts a client certificate nobody verified: \
         use RequireAndVerifyClientCert (or VerifyClientCertIfGiven) with client_ca_file"
    )]
    UnverifiedClientAuth(String),
    /// A `client_auth_type` that is not one of the format's names.
    #[error("tls_server_config: client_auth_type {0:?} is not one of NoClientCert, VerifyClientCertIfGiven, RequireAndVerifyClientCert")]
    UnknownClientAuth(String),
    /// `cert_file (or cert)` or `key_file (or key)`.
    #[error("tls_server_config: {0} is missing")]
    Missing(&'static str),
    /// `file` (`cert_file`, `client_ca_file`) is not a PEM certificate.
    #[error("tls_server_config: {file}: not a PEM certificate: {error}")]
    NotCertificate {
        /// The key naming the file.
        file: &'static str,
        /// The PEM parser's error.
        error: rustls_pki_types::pem::Error,
    },
    /// A `cert_file` with no certificate.
    #[error("tls_server_config: cert_file: no PEM certificate in it")]
    NoCertificate,
    /// A `key_file` that is not a PEM private key.
    #[error("tls_server_config: key_file: not a PEM private key: {0}")]
    NotPrivateKey(rustls_pki_types::pem::Error),
    /// rustls refuses the TLS versions.
    #[error("tls_server_config: {0}")]
    Versions(rustls::Error),
    /// A `client_ca_file` with no client authentication.
    #[error(
        "tls_server_config: client_ca_file is given but client_auth_type is NoClientCert: \
         set client_auth_type: RequireAndVerifyClientCert"
    )]
    CaWithoutClientAuth,
    /// Client certificates verified against no CA.
    #[error("tls_server_config: client_auth_type verifies client certificates: client_ca_file is missing")]
    ClientAuthWithoutCa,
    /// rustls refuses a certificate of the `client_ca_file`.
    #[error("tls_server_config: client_ca_file: {0}")]
    ClientCa(rustls::Error),
    /// rustls cannot build the client verifier.
    #[error("tls_server_config: client_ca_file: {0}")]
    ClientVerifier(rustls::server::VerifierBuilderError),
    /// The certificate does not match the key, or rustls refuses one of them.
    #[error("tls_server_config: cert_file and key_file: {0}")]
    CertAndKey(rustls::Error),
    /// A user name that is empty or has a `:`.
    #[error("basic_auth_users: {0:?}: a user name is not empty and has no ':' (RFC 7617)")]
    UserName(String),
    /// A password hash that is not bcrypt.
    #[error("basic_auth_users: {user}: not a bcrypt hash ({error})")]
    NotBcrypt {
        /// The user whose hash it is.
        user: String,
        /// The bcrypt parser's error.
        error: bcrypt::BcryptError,
    },
    /// The system gave no random key for the authentication cache.
    #[error("basic_auth_users: no random key for the cache")]
    NoRandomKey,
}

impl WebConfig {
    /// Parses `yaml` (the file at `path`) and loads what it names through `read`.
    pub fn load(yaml: &[u8], path: &Path, read: ReadFile) -> Result<WebConfig, WebConfigError> {
        let file: WebFile = if yaml.iter().all(u8::is_ascii_whitespace) {
            WebFile::default()
        } else {
            // A user (or any key) given twice would silently keep the last.
            serde_norway::from_slice::<NoDuplicateKeys>(yaml).map_err(WebConfigError::Yaml)?;
            serde_norway::from_slice(yaml).map_err(WebConfigError::Yaml)?
        };
        for (key, present) in [("http_server_config", file.http_server_config.is_some()), ("rate_limit", file.rate_limit.is_some())] {
            if present {
                return Err(WebConfigError::ServerKey(key));
            }
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        let tls = file.tls_server_config.map(|t| tls_config(t, dir, read)).transpose()?.flatten();
        let basic_auth = if file.basic_auth_users.is_empty() { None } else { Some(Arc::new(BasicAuth::new(file.basic_auth_users)?)) };
        Ok(WebConfig { tls, basic_auth })
    }
}

/// The PEM text of `inline` or of `file` (relative to `dir`), one of them, named `what`.
fn pem(
    inline: Option<String>,
    file: Option<PathBuf>,
    dir: &Path,
    what: &'static str,
    read: ReadFile,
) -> Result<Option<Vec<u8>>, WebConfigError> {
    match (inline, file) {
        (Some(_), Some(_)) => Err(WebConfigError::PemTwice(what)),
        (Some(text), None) => Ok(Some(text.into_bytes())),
        (None, Some(f)) => read(&dir.join(&f)).map(Some).map_err(|detail| WebConfigError::PemFile { what, detail }),
        (None, None) => Ok(None),
    }
}

/// The TLS versions from `min`..=`max` (toolkit names `TLS10`..`TLS13`).
fn versions(min: Option<&str>, max: Option<&str>) -> Result<Vec<&'static rustls::SupportedProtocolVersion>, WebConfigError> {
    let rank = |v: &str, key: &'static str| match v {
        "TLS10" | "TLS11" | "TLS12" => Ok(12),
        "TLS13" => Ok(13),
        other => Err(WebConfigError::UnknownVersion { key, version: other.to_string() }),
    };
    let lo = min.map(|v| rank(v, "min_version")).transpose()?.unwrap_or(12);
    let hi = match max {
        // TLS10 and TLS11 as a maximum would allow only versions rustls does not speak.
        Some(v @ ("TLS10" | "TLS11")) => return Err(WebConfigError::MaxVersionTooOld(v.to_string())),
        Some(v) => rank(v, "max_version")?,
        None => 13,
    };
    if lo > hi {
        let text = |v: Option<&str>| v.unwrap_or_default().to_string();
        return Err(WebConfigError::VersionsReversed { min: text(min), max: text(max) });
    }
    Ok([(12, &rustls::version::TLS12), (13, &rustls::version::TLS13)]
        .into_iter()
        .filter(|(v, _)| (lo..=hi).contains(v))
        .map(|(_, p)| p)
        .collect())
}

/// How a client certificate is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ClientAuth {
    NoClientCert,
    VerifyClientCertIfGiven,
    RequireAndVerifyClientCert,
}

impl ClientAuth {
    fn parse(v: Option<&str>) -> Result<ClientAuth, WebConfigError> {
        match v.unwrap_or("NoClientCert") {
            "" | "NoClientCert" => Ok(ClientAuth::NoClientCert),
            "VerifyClientCertIfGiven" => Ok(ClientAuth::VerifyClientCertIfGiven),
            "RequireAndVerifyClientCert" => Ok(ClientAuth::RequireAndVerifyClientCert),
            v @ ("RequestClientCert" | "RequireAnyClientCert") => Err(WebConfigError::UnverifiedClientAuth(v.to_string())),
            other => Err(WebConfigError::UnknownClientAuth(other.to_string())),
        }
    }
}

/// The rustls server configuration `t` asks for; None when it asks for nothing (the
/// toolkit serves plain HTTP for an empty `tls_server_config`).
fn tls_config(t: TlsFile, dir: &Path, read: ReadFile) -> Result<Option<Arc<ServerConfig>>, WebConfigError> {
    for (key, given) in [
        ("cipher_suites", t.cipher_suites.as_ref().is_some_and(|v| !v.is_empty())),
        ("curve_preferences", t.curve_preferences.as_ref().is_some_and(|v| !v.is_empty())),
        ("client_allowed_sans", t.client_allowed_sans.as_ref().is_some_and(|v| !v.is_empty())),
        ("prefer_server_cipher_suites: false", t.prefer_server_cipher_suites == Some(false)),
    ] {
        if given {
            return Err(WebConfigError::TlsKey(key));
        }
    }
    let client_auth = ClientAuth::parse(t.client_auth_type.as_deref())?;
    let versions = versions(t.min_version.as_deref(), t.max_version.as_deref())?;
    let cert = pem(t.cert, t.cert_file, dir, "cert", read)?;
    let key = pem(t.key, t.key_file, dir, "key", read)?;
    let client_ca = pem(t.client_ca, t.client_ca_file, dir, "client_ca", read)?;
    if cert.is_none() && key.is_none() && client_ca.is_none() && client_auth == ClientAuth::NoClientCert {
        return Ok(None);
    }
    let cert = cert.ok_or(WebConfigError::Missing("cert_file (or cert)"))?;
    let key = key.ok_or(WebConfigError::Missing("key_file (or key)"))?;
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert)
        .collect::<Result<_, _>>()
        .map_err(|error| WebConfigError::NotCertificate { file: "cert_file", error })?;
    if chain.is_empty() {
        return Err(WebConfigError::NoCertificate);
    }
    let key = PrivateKeyDer::from_pem_slice(&key).map_err(WebConfigError::NotPrivateKey)?;
    // ring's provider: rustls 0.23.48 deprecates it for offering no post-quantum key
    // exchange (X25519MLKEM768, only in aws-lc-rs, whose AWS-LC build takes minutes on the
    // machines this builds on). Scrapes are answered with the classical X25519/P-256 groups.
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder =
        ServerConfig::builder_with_provider(provider.clone()).with_protocol_versions(&versions).map_err(WebConfigError::Versions)?;
    let builder = match (client_auth, client_ca) {
        (ClientAuth::NoClientCert, None) => builder.with_no_client_auth(),
        (ClientAuth::NoClientCert, Some(_)) => return Err(WebConfigError::CaWithoutClientAuth),
        (_, None) => return Err(WebConfigError::ClientAuthWithoutCa),
        (auth, Some(ca)) => {
            let mut roots = RootCertStore::empty();
            for c in CertificateDer::pem_slice_iter(&ca) {
                let c = c.map_err(|error| WebConfigError::NotCertificate { file: "client_ca_file", error })?;
                roots.add(c).map_err(WebConfigError::ClientCa)?;
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider);
            let verifier = if auth == ClientAuth::VerifyClientCertIfGiven { verifier.allow_unauthenticated() } else { verifier };
            builder.with_client_cert_verifier(verifier.build().map_err(WebConfigError::ClientVerifier)?)
        }
    };
    let mut config = builder.with_single_cert(chain, key).map_err(WebConfigError::CertAndKey)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Some(Arc::new(config)))
}

/// A bcrypt hash for a user name nobody has: an unknown user costs one bcrypt like a known
/// one, so the answer's timing does not tell which names exist (cost 10, as the toolkit's
/// examples; made with libxcrypt's crypt(3) from 16 random bytes nobody kept).
const UNKNOWN_USER_HASH: &str = "$2b$10$tBcOg3ZKa7LxUW4p3MtyhOOfWtXEmS5OI.tvcW3/i7iUclopcGA2C";

/// `basic_auth_users`: who may scrape. A bcrypt verification costs tens of milliseconds by
/// design; a scraper sends the same credentials every few seconds, so a verified pair is
/// remembered (one per user: the set is the configuration's, so the memory is bounded) as
/// an HMAC under a key made at start-up, never as the password, and checked in constant
/// time. Wrong credentials are never remembered: each costs a bcrypt.
pub struct BasicAuth {
    users: BTreeMap<String, String>,
    key: hmac::Key,
    verified: Mutex<HashMap<String, hmac::Tag>>,
}

impl std::fmt::Debug for BasicAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicAuth").field("users", &self.users.keys().collect::<Vec<_>>()).finish_non_exhaustive()
    }
}

impl BasicAuth {
    pub(crate) fn new(users: BTreeMap<String, String>) -> Result<BasicAuth, WebConfigError> {
        for (user, hash) in &users {
            // RFC 7617 2: the user-id cannot contain a colon.
            if user.contains(':') || user.is_empty() {
                return Err(WebConfigError::UserName(user.clone()));
            }
            HashParts::from_str(hash).map_err(|error| WebConfigError::NotBcrypt { user: user.clone(), error })?;
        }
        let rng = ring::rand::SystemRandom::new();
        let key = hmac::Key::generate(hmac::HMAC_SHA256, &rng).map_err(|_| WebConfigError::NoRandomKey)?;
        Ok(BasicAuth { users, key, verified: Mutex::new(HashMap::new()) })
    }

    /// The bytes a verified pair is remembered by: user, a separator no user name has, password.
    fn message(user: &str, password: &[u8]) -> Vec<u8> {
        [user.as_bytes(), b":", password].concat()
    }

    fn remembered(&self, user: &str, password: &[u8]) -> bool {
        let verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
        verified.get(user).is_some_and(|tag| hmac::verify(&self.key, &Self::message(user, password), tag.as_ref()).is_ok())
    }

    /// Whether `authorization` (the request's header value) names a user and its password.
    /// Blocking (a bcrypt) unless the pair was verified before: call it off the runtime's
    /// worker threads.
    pub(crate) fn allows(&self, authorization: Option<&[u8]>) -> bool {
        let Some((user, password)) = authorization.and_then(parse_basic) else { return false };
        if self.remembered(&user, &password) {
            return true;
        }
        let (known, hash) = match self.users.get(&user) {
            Some(h) => (true, h.as_str()),
            None => (false, UNKNOWN_USER_HASH),
        };
        // bcrypt compares its output in constant time.
        let ok = bcrypt::verify(&password, hash).unwrap_or(false) && known;
        if ok {
            let tag = hmac::sign(&self.key, &Self::message(&user, &password));
            self.verified.lock().unwrap_or_else(|e| e.into_inner()).insert(user, tag);
        }
        ok
    }

    /// Whether `authorization` is answered without a bcrypt (verified before).
    pub(crate) fn remembers(&self, authorization: Option<&[u8]>) -> bool {
        authorization.and_then(parse_basic).is_some_and(|(user, password)| self.remembered(&user, &password))
    }
}

/// `Basic base64(user:password)` (RFC 7617 2): the user (UTF-8, no colon) and the password bytes.
fn parse_basic(value: &[u8]) -> Option<(String, Vec<u8>)> {
    use base64::Engine as _;
    let value = std::str::from_utf8(value).ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD.decode(token.trim()).ok()?;
    let colon = decoded.iter().position(|b| *b == b':')?;
    let user = String::from_utf8(decoded[..colon].to_vec()).ok()?;
    Some((user, decoded[colon + 1..].to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_files(p: &Path) -> Result<Vec<u8>, super::super::CallerError> {
        Err(format!("{}: not readable in this test", p.display()).into())
    }

    fn load(yaml: &str) -> Result<WebConfig, WebConfigError> {
        WebConfig::load(yaml.as_bytes(), Path::new("/etc/optics/web.yml"), &no_files)
    }

    #[test]
    fn an_empty_file_is_plain_http_without_auth() {
        let c = load("").unwrap();
        assert!(c.tls.is_none() && c.basic_auth.is_none());
        let c = load("tls_server_config: {}\nbasic_auth_users: {}\n").unwrap();
        assert!(c.tls.is_none() && c.basic_auth.is_none());
    }

    #[test]
    fn unknown_and_unimplemented_keys_are_refused_by_name() {
        let e = load("tls_server_config:\n  cert_fil: x\n").unwrap_err().to_string();
        assert!(e.contains("cert_fil"), "{e}");
        let e = load("basic_auth_user:\n  a: b\n").unwrap_err().to_string();
        assert!(e.contains("basic_auth_user"), "{e}");
        let e = load("rate_limit:\n  interval: 1s\n  burst: 20\n").unwrap_err().to_string();
        assert!(e.contains("rate_limit is not implemented"), "{e}");
        let e =
            load("tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [TLS_AES_128_GCM_SHA256]\n").unwrap_err().to_string();
        assert!(e.contains("cipher_suites is not implemented"), "{e}");
        assert!(load("- a\n- b\n").is_err());
    }

    #[test]
    fn client_auth_types_that_verify_nothing_are_refused() {
        for v in ["RequestClientCert", "RequireAnyClientCert", "Sometimes"] {
            let e = load(&format!("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: {v}\n")).unwrap_err().to_string();
            assert!(e.contains(v), "{e}");
        }
    }

    #[test]
    fn tls_versions_are_the_range_asked_within_what_rustls_speaks() {
        let v = |min: Option<&str>, max: Option<&str>| versions(min, max).map(|v| v.iter().map(|p| p.version).collect::<Vec<_>>());
        use rustls::ProtocolVersion::{TLSv1_2, TLSv1_3};
        assert_eq!(v(None, None).unwrap(), vec![TLSv1_2, TLSv1_3]);
        assert_eq!(v(Some("TLS13"), None).unwrap(), vec![TLSv1_3]);
        assert_eq!(v(Some("TLS10"), Some("TLS12")).unwrap(), vec![TLSv1_2]);
        assert!(v(Some("TLS13"), Some("TLS12")).is_err());
        assert!(v(None, Some("TLS11")).is_err());
        assert!(v(Some("SSL3"), None).is_err());
    }

    #[test]
    fn a_user_hash_must_be_bcrypt_and_a_name_has_no_colon() {
        let e = load("basic_auth_users:\n  alice: secret\n").unwrap_err().to_string();
        assert!(e.contains("alice: not a bcrypt hash"), "{e}");
        let e = load(&format!("basic_auth_users:\n  'a:b': '{UNKNOWN_USER_HASH}'\n")).unwrap_err().to_string();
        assert!(e.contains("no ':'"), "{e}");
        let e =
            load(&format!("basic_auth_users:\n  alice: '{UNKNOWN_USER_HASH}'\n  alice: '{UNKNOWN_USER_HASH}'\n")).unwrap_err().to_string();
        assert!(e.contains("`alice` is given twice"), "{e}");
    }

    fn basic(user: &str, password: &str) -> Vec<u8> {
        use base64::Engine as _;
        format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"))).into_bytes()
    }

    #[test]
    fn basic_auth_verifies_by_bcrypt_and_remembers_only_what_passed() {
        // Cost 4 keeps the test quick; the hash is bcrypt's own, its password known.
        let hash = bcrypt::hash("pa:ss word", 4).unwrap();
        let auth = BasicAuth::new(BTreeMap::from([("prometheus".to_string(), hash)])).unwrap();
        let right = basic("prometheus", "pa:ss word");
        assert!(!auth.remembers(Some(&right)));
        assert!(auth.allows(Some(&right)));
        assert!(auth.remembers(Some(&right)), "a verified pair is remembered");
        assert!(auth.allows(Some(&right)));
        for wrong in [basic("prometheus", "pa:ss"), basic("nobody", "pa:ss word"), b"Bearer abc".to_vec(), b"Basic !!!".to_vec()] {
            assert!(!auth.allows(Some(&wrong)), "{}", String::from_utf8_lossy(&wrong));
            assert!(!auth.remembers(Some(&wrong)));
        }
        assert!(!auth.allows(None));
        assert_eq!(parse_basic(b"basic  dTpw "), Some(("u".to_string(), b"p".to_vec())));
    }
}
