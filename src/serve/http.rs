//! The HTTP side of `optics serve` (hyper 1, HTTP/1.1): `/metrics`, `/`, `/healthz`, 404
//! otherwise. Handlers only read the latest [`Snapshot`]; nothing here touches hardware.
//!
//! A slow or malformed client cannot stall it:
//! - every connection is accepted at once; the caps on connections held (all peers; idle
//!   ones per peer) shed the oldest idle connection of whoever holds the most, and a
//!   silent new connection closes after its first-byte timeout ([`super::connections`]);
//! - request headers must fit in [`Limits::max_header_bytes`] (hyper answers 431 and
//!   closes) and arrive within [`Limits::header_read_timeout`];
//! - a connection lives at most [`Limits::connection_timeout`], whatever it does.

use super::connections::{Answer, Caps, Connections};
use super::{Shared, Snapshot};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ACCEPT, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Connections held at once (all peers, per peer) and the first-byte timeout.
    pub connections: Caps,
    /// hyper's read buffer, which must hold the request head (hyper's minimum is 8 KiB).
    pub max_header_bytes: usize,
    pub header_read_timeout: Duration,
    pub connection_timeout: Duration,
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

pub const OPENMETRICS_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";
pub const TEXT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

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
pub fn respond(req: &Request<Incoming>, snap: &Snapshot) -> Response<Full<Bytes>> {
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

/// Serves until `shutdown` completes; connections in flight are dropped then.
pub async fn serve(listener: TcpListener, shared: Arc<Shared>, limits: Limits, shutdown: impl Future<Output = ()>) {
    let held = Connections::new(limits.connections);
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
        let ticket = held.admit(peer.ip(), &stream);
        let shared = shared.clone();
        tokio::spawn(async move {
            let ticket = Arc::new(ticket);
            let answering = ticket.clone();
            let service = service_fn(move |req: Request<Incoming>| {
                let snap = shared.latest();
                let idle = answering.answering();
                async move { Ok::<_, Infallible>(respond(&req, &snap).map(|body| Answer { body, _idle: idle })) }
            });
            let conn = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(limits.header_read_timeout)
                .max_buf_size(limits.max_header_bytes.max(8192))
                .serve_connection(TokioIo::new(ticket.watch(stream)), service);
            tokio::pin!(conn);
            // Errors are the client's (malformed request, reset): nothing to do but close.
            tokio::select! {
                _ = tokio::time::timeout(limits.connection_timeout, &mut conn) => {}
                _ = ticket.closing() => {}
            }
            // Out of the table before the socket closes with `conn` at the end of this block
            // (the table peeks at the sockets it holds).
            ticket.leave();
        });
    }
}
