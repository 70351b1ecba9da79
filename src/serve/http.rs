//! The HTTP side of `optics serve` (hyper 1, HTTP/1.1): `/metrics`, `/`, `/healthz`, 404
//! otherwise. Handlers only read the latest [`Snapshot`]; nothing here touches hardware.
//!
//! A slow or malformed client cannot stall it:
//! - every connection is accepted at once; the caps on connections held (all peers; idle
//!   ones per peer) shed the oldest idle connection of whoever holds the most, and a
//!   silent new connection closes after its first-byte timeout (`super::connections`);
//! - request headers must fit in `Limits::max_header_bytes` (hyper answers 431 and
//!   closes) and arrive within `Limits::header_read_timeout`;
//! - a connection lives at most `Limits::connection_timeout`, whatever it does;
//! - with TLS ([`Security`]), the handshake must be over within the first-byte timeout,
//!   which runs from `accept()`;
//! - with basic authentication, every path answers 401 without the right credentials.

use super::connections::{Answer, Caps, Connections, Ticket};
use super::web_config::{BasicAuth, WebConfig};
use super::{Shared, Snapshot};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, WWW_AUTHENTICATE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_rustls::TlsAcceptor;

/// What one server holds at most: connections, header bytes, and how long a peer may wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections held at once (all peers, per peer) and the first-byte timeout.
    pub(crate) connections: Caps,
    /// hyper's read buffer, which must hold the request head (hyper's minimum is 8 KiB).
    pub(crate) max_header_bytes: usize,
    pub(crate) header_read_timeout: Duration,
    pub(crate) connection_timeout: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            connections: Caps::default(),
            max_header_bytes: 16 * 1024,
            header_read_timeout: Duration::from_secs(5),
            connection_timeout: Duration::from_secs(30),
        }
    }
}

pub(crate) const OPENMETRICS_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
pub(crate) const TEXT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// OpenMetrics when the scraper lists it in `Accept` (Prometheus does), else 0.0.4 text.
fn wants_openmetrics(req: &Request<Incoming>) -> bool {
    req.headers().get_all(ACCEPT).iter().filter_map(|v| v.to_str().ok()).any(|v| v.contains("application/openmetrics-text"))
}

fn reply(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut r = Response::new(Full::new(body));
    *r.status_mut() = status;
    r.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// The response to one request, from the snapshot alone.
pub(crate) fn respond(req: &Request<Incoming>, snap: &Snapshot) -> Response<Full<Bytes>> {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return reply(StatusCode::METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", Bytes::from_static(b"GET only\n"));
    }
    match req.uri().path() {
        "/metrics" if wants_openmetrics(req) => reply(StatusCode::OK, OPENMETRICS_TYPE, snap.openmetrics.clone()),
        "/metrics" => reply(StatusCode::OK, TEXT_TYPE, snap.text.clone()),
        "/" => reply(StatusCode::OK, "text/html; charset=utf-8", snap.html.clone()),
        "/healthz" if snap.ticks > 0 => reply(StatusCode::OK, "text/plain; charset=utf-8", Bytes::from_static(b"ok\n")),
        "/healthz" => reply(StatusCode::SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", Bytes::from_static(b"no sample yet\n")),
        _ => reply(StatusCode::NOT_FOUND, "text/plain; charset=utf-8", Bytes::from_static(b"not found\n")),
    }
}

/// What `--web.config.file` adds to plain HTTP: TLS, basic authentication, or both.
#[derive(Clone, Default)]
pub struct Security {
    /// TLS, when configured.
    pub tls: Option<TlsAcceptor>,
    /// Basic authentication, when configured.
    pub basic_auth: Option<Arc<BasicAuth>>,
}

impl Security {
    /// The security a checked web configuration asks for.
    pub fn of(web: WebConfig) -> Self {
        Security { tls: web.tls.map(TlsAcceptor::from), basic_auth: web.basic_auth }
    }
}

/// bcrypt verifications run at once, each on a blocking thread: a client sending wrong
/// passwords as fast as it can holds at most this many cores (a scraper whose credentials
/// were verified before never waits for them).
const BCRYPT_AT_ONCE: usize = 2;

/// 401 with the challenge (RFC 7617 2).
fn unauthorized() -> Response<Full<Bytes>> {
    let mut r = reply(StatusCode::UNAUTHORIZED, "text/plain; charset=utf-8", Bytes::from_static(b"unauthorized\n"));
    r.headers_mut().insert(WWW_AUTHENTICATE, HeaderValue::from_static("Basic realm=\"optics\", charset=\"UTF-8\""));
    r
}

/// Whether the request's credentials pass `auth` (see [`BCRYPT_AT_ONCE`]).
async fn authorized(auth: &Arc<BasicAuth>, bcrypts: &Semaphore, req: &Request<Incoming>) -> bool {
    let header = req.headers().get(AUTHORIZATION).map(|v| v.as_bytes().to_vec());
    if auth.remembers(header.as_deref()) {
        return true;
    }
    let Ok(_slot) = bcrypts.acquire().await else { return false };
    let auth = auth.clone();
    tokio::task::spawn_blocking(move || auth.allows(header.as_deref())).await.unwrap_or(false)
}

/// Serves until `shutdown` completes; connections in flight are dropped then.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>, limits: Limits, security: Security, shutdown: impl Future<Output = ()>) {
    let held = Connections::new(limits.connections);
    let bcrypts = Arc::new(Semaphore::new(BCRYPT_AT_ONCE));
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut shutdown => return,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // EMFILE and friends: back off instead of spinning.
                Err(_) => { tokio::time::sleep(Duration::from_millis(50)).await; continue; }
            },
        };
        let ticket = Arc::new(held.admit(peer.ip(), &stream));
        let (shared, security, bcrypts) = (shared.clone(), security.clone(), bcrypts.clone());
        tokio::spawn(async move {
            // One clock for the whole connection: the first-byte timeout starts at accept,
            // so a TLS handshake counts against it.
            let closing = ticket.closing();
            tokio::pin!(closing);
            match &security.tls {
                None => answer(stream, &ticket, closing, limits, shared, security.basic_auth, bcrypts).await,
                Some(tls) => {
                    let handshake = tokio::time::timeout(limits.connections.first_byte_timeout, tls.accept(stream));
                    let stream = tokio::select! {
                        done = handshake => match done {
                            Ok(Ok(stream)) => stream,
                            // Not TLS, a failed handshake, or too slow: closed.
                            _ => return ticket.leave(),
                        },
                        _ = &mut closing => return ticket.leave(),
                    };
                    answer(stream, &ticket, closing, limits, shared, security.basic_auth, bcrypts).await
                }
            }
        });
    }
}

/// Answers the requests of one connection (plain or after its TLS handshake) until it
/// closes, times out or is shed.
async fn answer<IO: AsyncRead + AsyncWrite + Unpin + Send + 'static>(
    io: IO,
    ticket: &Arc<Ticket>,
    closing: Pin<&mut impl Future<Output = ()>>,
    limits: Limits,
    shared: Arc<Shared>,
    auth: Option<Arc<BasicAuth>>,
    bcrypts: Arc<Semaphore>,
) {
    let answering = ticket.clone();
    let service = service_fn(move |req: Request<Incoming>| {
        let snap = shared.latest();
        let idle = answering.answering();
        let (auth, bcrypts) = (auth.clone(), bcrypts.clone());
        async move {
            let body = match &auth {
                Some(auth) if !authorized(auth, &bcrypts, &req).await => unauthorized(),
                _ => respond(&req, &snap),
            };
            Ok::<_, Infallible>(body.map(|body| Answer { body, _idle: idle }))
        }
    });
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .serve_connection(TokioIo::new(ticket.watch(io)), service);
    tokio::pin!(conn);
    // Errors are the client's (malformed request, reset): nothing to do but close.
    tokio::select! {
        _ = tokio::time::timeout(limits.connection_timeout, &mut conn) => {}
        _ = closing => {}
    }
    // Out of the table before the socket closes with `conn` at the end of this block
    // (the table peeks at the sockets it holds).
    ticket.leave();
}
