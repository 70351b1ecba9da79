//! Who may hold a connection to `serve`, and for how long: one client must not starve the
//! others (a scraper holding its slot while another peer opens sockets as fast as it can).
//!
//! - Every connection is accepted at once (no limit is taken before `accept()`, so a full
//!   table never leaves a well-behaved scraper waiting in the kernel's backlog); what
//!   exceeds a cap is settled after `accept()` by shedding an older connection, never the
//!   newcomer.
//! - A peer (source IP address) holding more than [`Caps::idle_per_peer`] idle connections
//!   loses its own oldest idle ones. Beyond [`Caps::total`], the peer holding the most
//!   connections loses its weakest one (`Standing`: idle, then a request trickling in,
//!   then one that connected or was answered a moment ago): the client that floods pays
//!   for the flood, not the others.
//! - "Idle" is a connection that has not sent a byte of a request yet, or whose last
//!   response has been handed over and which has not started another, for at least a
//!   grace time (a quarter of the first-byte timeout): a client writes its request right
//!   after connecting, but its thread may run a moment later. One whose request bytes are
//!   already waiting on its socket, unread by its task, is busy. A new connection must send
//!   its first byte within [`Caps::first_byte_timeout`] (much shorter than the whole head's
//!   timeout): a socket opened and left silent is gone within a second.

use hyper::body::{Body, Frame, SizeHint};
use std::cmp::Reverse;
use std::collections::HashMap;
use std::net::IpAddr;
use std::os::fd::{AsRawFd, RawFd};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Notify;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caps {
    /// Connections held at once, all peers together.
    pub(crate) total: usize,
    /// Idle connections one source address may hold at once (its busy ones count only
    /// against the total: 200 scrapes at once from one address are all answered).
    pub(crate) idle_per_peer: usize,
    /// Time from `accept()` to the first byte of the request.
    pub(crate) first_byte_timeout: Duration,
}

impl Default for Caps {
    fn default() -> Self {
        Caps { total: 256, idle_per_peer: 64, first_byte_timeout: Duration::from_secs(1) }
    }
}

/// Where a connection is in its life; see the module comment for "idle".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Phase {
    /// Accepted, no byte received yet.
    Fresh = 0,
    /// A request is being read or answered.
    Busy = 1,
    /// The last response was handed over; waiting for the next request.
    Idle = 2,
}

/// One connection's state, shared by its task, its I/O and the table.
#[derive(Debug)]
struct Activity {
    phase: AtomicU8,
    /// When it entered its phase, nanoseconds after `epoch`.
    since_ns: AtomicU64,
    epoch: Instant,
    shed: Notify,
}

impl Activity {
    fn new(phase: Phase, epoch: Instant) -> Self {
        Activity { phase: AtomicU8::new(phase as u8), since_ns: AtomicU64::new(ns_since(epoch)), epoch, shed: Notify::new() }
    }
    fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Acquire) {
            0 => Phase::Fresh,
            1 => Phase::Busy,
            _ => Phase::Idle,
        }
    }
    /// Moves to `phase`; the time it entered it changes only if it was in another.
    fn enter(&self, phase: Phase) {
        if self.phase.swap(phase as u8, Ordering::AcqRel) != phase as u8 {
            self.since_ns.store(ns_since(self.epoch), Ordering::Release);
        }
    }
    /// Shedding order: lower first, then the longest in its phase.
    fn rank(&self, now_ns: u64, grace_ns: u64) -> (Standing, u64) {
        let since = self.since_ns.load(Ordering::Acquire);
        let settled = now_ns.saturating_sub(since) >= grace_ns;
        let standing = match (self.phase(), settled) {
            (Phase::Fresh | Phase::Idle, true) => Standing::Idle,
            (Phase::Busy, true) => Standing::SlowBusy,
            (Phase::Fresh | Phase::Idle, false) => Standing::JustIdle,
            (Phase::Busy, false) => Standing::JustBusy,
        };
        (standing, since)
    }
}

fn ns_since(epoch: Instant) -> u64 {
    u64::try_from(epoch.elapsed().as_nanos()).unwrap_or(u64::MAX)
}

/// A connection's claim to stay, weakest first: idle for at least the grace time, busy
/// for at least the grace time (a head trickling in), idle or busy for less (a client
/// that connected a moment ago and is about to write, or a scrape being answered).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Standing {
    Idle,
    SlowBusy,
    JustIdle,
    JustBusy,
}

/// A held connection, keyed in the table by its accept order.
#[derive(Debug)]
struct Held {
    peer: IpAddr,
    /// Its socket, open while it is in the table ([`Ticket::leave`] comes before the close).
    fd: RawFd,
    activity: Arc<Activity>,
}

#[derive(Debug, Default)]
struct Table {
    next: u64,
    held: HashMap<u64, Held>,
}

impl Table {
    /// Connections of `peer` other than `except`, in shedding order, with their standing.
    fn ranked(&self, peer: IpAddr, except: u64, now_ns: u64, grace_ns: u64) -> Vec<(Standing, u64, u64)> {
        let mut ranked: Vec<(Standing, u64, u64)> = self
            .held
            .iter()
            .filter(|(id, h)| h.peer == peer && **id != except)
            .map(|(id, h)| {
                let (standing, since) = h.activity.rank(now_ns, grace_ns);
                (standing, since, *id)
            })
            .collect();
        ranked.sort_unstable();
        ranked
    }

    /// Whether connection `id` (idle by its phase) has request bytes waiting on its socket,
    /// which its task has not read yet (a scraper's request in a burst of accepts): if so
    /// it is marked busy.
    fn sent(&self, id: u64) -> bool {
        let h = &self.held[&id];
        let sent = h.activity.phase() != Phase::Busy && waiting(h.fd);
        if sent {
            h.activity.enter(Phase::Busy);
        }
        sent
    }

    /// Whom to shed when the table is over its total: the peer holding the most
    /// connections besides `newcomer` (ties: the one with the oldest connection) loses its
    /// weakest connection by [`Standing`] (one whose request turns out to be waiting is
    /// passed over while another remains).
    fn total_victim(&self, newcomer: u64, now_ns: u64, grace_ns: u64) -> Option<u64> {
        let mut per: HashMap<IpAddr, (usize, Reverse<u64>)> = HashMap::new();
        for (id, h) in self.held.iter().filter(|(id, _)| **id != newcomer) {
            let e = per.entry(h.peer).or_insert((0, Reverse(*id)));
            e.0 += 1;
            e.1 = e.1.max(Reverse(*id));
        }
        let heaviest = per.into_iter().max_by_key(|(_, k)| *k)?.0;
        let ranked = self.ranked(heaviest, newcomer, now_ns, grace_ns);
        ranked
            .iter()
            .find(|(standing, _, id)| matches!(standing, Standing::SlowBusy | Standing::JustBusy) || !self.sent(*id))
            .or(ranked.first())
            .map(|(_, _, id)| *id)
    }

    fn shed(&mut self, id: u64) {
        if let Some(h) = self.held.remove(&id) {
            h.activity.shed.notify_one();
        }
    }
}

/// The connections `serve` holds now.
#[derive(Debug)]
pub(crate) struct Connections {
    caps: Caps,
    epoch: Instant,
    table: Mutex<Table>,
}

impl Connections {
    pub(crate) fn new(caps: Caps) -> Arc<Self> {
        let caps = Caps { total: caps.total.max(1), idle_per_peer: caps.idle_per_peer.max(1), ..caps };
        Arc::new(Connections { caps, epoch: Instant::now(), table: Mutex::new(Table::default()) })
    }

    /// How long a connection is left alone after it connected, sent a byte or was
    /// answered: a quarter of the first-byte timeout (250 ms by default). A client writes
    /// its request right after connecting, but on a loaded machine its thread may run only
    /// milliseconds later.
    fn grace_ns(&self) -> u64 {
        u64::try_from((self.caps.first_byte_timeout / 4).as_nanos()).unwrap_or(u64::MAX)
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        // The table is consistent after every statement that changes it.
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Connections held now.
    #[cfg(test)]
    fn held(&self) -> usize {
        self.table().held.len()
    }

    /// Takes a just-accepted connection from `peer` into the table, shedding what the caps
    /// require. The newcomer itself is never the one shed: it has not had its chance yet.
    /// `socket` stays open until the ticket [leaves](Ticket::leave) the table.
    pub(crate) fn admit(self: &Arc<Self>, peer: IpAddr, socket: &impl AsRawFd) -> Ticket {
        self.admit_fd(peer, socket.as_raw_fd())
    }

    fn admit_fd(self: &Arc<Self>, peer: IpAddr, fd: RawFd) -> Ticket {
        // Request bytes already waiting: busy from the start, not idle until its task reads.
        let phase = if waiting(fd) { Phase::Busy } else { Phase::Fresh };
        let activity = Arc::new(Activity::new(phase, self.epoch));
        let (now, grace) = (ns_since(self.epoch), self.grace_ns());
        let mut t = self.table();
        let id = t.next;
        t.next += 1;
        t.held.insert(id, Held { peer, fd, activity: activity.clone() });
        // The peer's connections idle for at least the grace time, down to its cap (those
        // found with a request waiting are busy, and bring it down as well).
        let idle: Vec<u64> =
            t.ranked(peer, id, now, grace).into_iter().take_while(|(s, _, _)| *s == Standing::Idle).map(|(_, _, id)| id).collect();
        let mut excess = idle.len().saturating_sub(self.caps.idle_per_peer);
        for candidate in idle {
            if excess == 0 {
                break;
            }
            if !t.sent(candidate) {
                t.shed(candidate);
            }
            excess -= 1;
        }
        if t.held.len() > self.caps.total {
            if let Some(victim) = t.total_victim(id, now, grace) {
                t.shed(victim);
            }
        }
        drop(t);
        Ticket { id, activity, connections: self.clone() }
    }
}

/// Whether bytes from the peer are waiting on a socket its task has not read yet (a
/// well-behaved client writes its request right after connecting; under a flood, the
/// accept loop may get to it only after the request is in). One non-blocking
/// `recv(MSG_PEEK)`: nothing is consumed, and a bad descriptor is simply "no".
fn waiting(fd: RawFd) -> bool {
    let mut byte = 0u8;
    // SAFETY: `recv` writes at most 1 byte into `byte`, which outlives the call; `fd` is
    // the socket of a connection still in the table (or, in tests, -1: EBADF).
    let n = unsafe { libc::recv(fd, (&mut byte as *mut u8).cast(), 1, libc::MSG_PEEK | libc::MSG_DONTWAIT) };
    n > 0
}

/// One admitted connection; leaves the table when dropped.
#[derive(Debug)]
pub(crate) struct Ticket {
    id: u64,
    activity: Arc<Activity>,
    connections: Arc<Connections>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.leave();
    }
}

impl Ticket {
    /// Leaves the table (before its socket is closed, so the table never looks at a
    /// descriptor number reused by another connection).
    pub(crate) fn leave(&self) {
        self.connections.table().held.remove(&self.id);
    }

    /// Completes when the connection must close: shed for another, or silent past the
    /// first-byte timeout.
    pub(crate) async fn closing(&self) {
        let silent = async {
            tokio::time::sleep(self.connections.caps.first_byte_timeout).await;
            if self.activity.phase() != Phase::Fresh {
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            _ = self.activity.shed.notified() => {}
            _ = silent => {}
        }
    }

    /// The connection's socket, marking it busy from the first byte of each request.
    pub(crate) fn watch<IO>(&self, io: IO) -> Watched<IO> {
        Watched { io, activity: self.activity.clone() }
    }

    /// Held by a response body: when the body is dropped (handed over in full, or the
    /// connection is gone) the connection is idle again.
    pub(crate) fn answering(&self) -> IdleOnDrop {
        self.activity.enter(Phase::Busy);
        IdleOnDrop { activity: self.activity.clone() }
    }
}

pub(crate) struct IdleOnDrop {
    activity: Arc<Activity>,
}

impl Drop for IdleOnDrop {
    fn drop(&mut self) {
        self.activity.enter(Phase::Idle);
    }
}

/// A response body that marks its connection idle once hyper drops it.
pub(crate) struct Answer<B> {
    pub(crate) body: B,
    pub(crate) _idle: IdleOnDrop,
}

impl<B: Body + Unpin> Body for Answer<B> {
    type Data = B::Data;
    type Error = B::Error;
    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }
    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A socket that marks its connection busy when request bytes arrive.
pub(crate) struct Watched<IO> {
    io: IO,
    activity: Arc<Activity>,
}

impl<IO: AsyncRead + Unpin> AsyncRead for Watched<IO> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.io).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.enter(Phase::Busy);
        }
        polled
    }
}

impl<IO: AsyncWrite + Unpin> AsyncWrite for Watched<IO> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[std::io::IoSlice<'_>]) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    const NO_SOCKET: RawFd = -1;

    /// No grace time: a connection is idle (or slow) as soon as it is in its phase.
    fn caps(total: usize, idle_per_peer: usize) -> Caps {
        Caps { total, idle_per_peer, first_byte_timeout: Duration::ZERO }
    }

    fn holds(c: &Connections, t: &Ticket) -> bool {
        c.table().held.contains_key(&t.id)
    }

    #[test]
    fn a_peer_over_its_idle_cap_loses_its_own_oldest_idle_connection() {
        let c = Connections::new(caps(100, 3));
        let other = c.admit_fd(ip(2), NO_SOCKET);
        let first = c.admit_fd(ip(1), NO_SOCKET);
        let rest: Vec<_> = (0..3).map(|_| c.admit_fd(ip(1), NO_SOCKET)).collect();
        assert!(holds(&c, &first), "3 idle besides the newcomer: at the cap");
        let last = c.admit_fd(ip(1), NO_SOCKET);
        assert!(!holds(&c, &first), "the peer's oldest idle connection is shed");
        assert!(rest.iter().chain([&last]).all(|t| holds(&c, t)), "the newcomers are kept");
        assert!(holds(&c, &other), "another peer's connection is untouched");
        assert_eq!(c.held(), 5);
    }

    #[test]
    fn busy_connections_do_not_count_against_the_idle_cap() {
        let c = Connections::new(caps(100, 2));
        let busy: Vec<_> = (0..10)
            .map(|_| {
                let t = c.admit_fd(ip(1), NO_SOCKET);
                let answering = t.answering();
                (t, answering)
            })
            .collect();
        assert_eq!(c.held(), busy.len());
    }

    #[test]
    fn over_the_total_the_heaviest_peer_pays_even_when_busy() {
        let c = Connections::new(caps(4, 4));
        let scraper = c.admit_fd(ip(9), NO_SOCKET);
        let flood: Vec<_> = (0..3).map(|_| c.admit_fd(ip(1), NO_SOCKET)).collect();
        let _busy: Vec<_> = flood.iter().map(|t| t.answering()).collect();
        let newcomer = c.admit_fd(ip(7), NO_SOCKET);
        assert!(holds(&c, &scraper) && holds(&c, &newcomer));
        assert!(!holds(&c, &flood[0]), "the flooder's oldest connection is shed");
        assert_eq!(c.held(), 4);
        // The flooder's newcomer is not shed for its own sake: its oldest busy one is.
        let idle = c.admit_fd(ip(1), NO_SOCKET);
        assert!(holds(&c, &idle) && !holds(&c, &flood[1]));
        // Its idle connection goes before its older busy one.
        let _more = c.admit_fd(ip(8), NO_SOCKET);
        assert!(!holds(&c, &idle) && holds(&c, &flood[2]));
    }

    /// A connected pair: (client, server side as accepted).
    fn pair() -> (std::net::TcpStream, std::net::TcpStream) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let client = std::net::TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        (client, listener.accept().unwrap().0)
    }

    fn wait_until_waiting(server: &std::net::TcpStream) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !waiting(server.as_raw_fd()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    #[test]
    fn a_request_waiting_on_a_socket_is_seen_without_being_consumed() {
        use std::io::{Read, Write};
        let (mut client, mut server) = pair();
        assert!(!waiting(server.as_raw_fd()));
        client.write_all(b"GET").unwrap();
        wait_until_waiting(&server);
        assert!(waiting(server.as_raw_fd()));
        let mut got = [0u8; 3];
        server.read_exact(&mut got).unwrap();
        assert_eq!(&got, b"GET");
    }

    #[test]
    fn a_connection_whose_request_is_waiting_is_not_shed_as_idle() {
        use std::io::Write;
        let c = Connections::new(caps(100, 1));
        // Admitted silent; its request arrives before its task reads it.
        let (mut client, server) = pair();
        let scraper = c.admit(ip(1), &server);
        client.write_all(b"GET / HTTP/1.1\r\n").unwrap();
        wait_until_waiting(&server);
        let silent = c.admit_fd(ip(1), NO_SOCKET);
        let _newcomer = c.admit_fd(ip(1), NO_SOCKET);
        let _newcomer = c.admit_fd(ip(1), NO_SOCKET);
        assert!(holds(&c, &scraper), "the scraper is busy, not idle");
        assert!(!holds(&c, &silent), "the silent one is shed in its place");
    }

    #[test]
    fn a_connection_is_left_alone_for_its_grace_time() {
        // A 1 s first-byte timeout: 250 ms of grace, longer than this test takes.
        let c = Connections::new(Caps { total: 2, idle_per_peer: 1, first_byte_timeout: Duration::from_secs(1) });
        let slow = c.admit_fd(ip(1), NO_SOCKET);
        let _trickling = slow.answering();
        let young: Vec<_> = (0..3).map(|_| c.admit_fd(ip(1), NO_SOCKET)).collect();
        // Over the total, the young idle go before the young busy one; none counts as idle.
        assert!(holds(&c, &slow));
        assert!(holds(&c, &young[2]));
        assert_eq!(c.held(), 2);
    }

    #[test]
    fn a_dropped_ticket_frees_its_slot() {
        let c = Connections::new(Caps::default());
        let t = c.admit_fd(ip(1), NO_SOCKET);
        assert_eq!(c.held(), 1);
        drop(t);
        assert_eq!(c.held(), 0);
    }

    #[tokio::test]
    async fn a_silent_connection_closes_after_the_first_byte_timeout_a_busy_one_does_not() {
        let timeout = Duration::from_millis(20);
        let c = Connections::new(Caps { first_byte_timeout: timeout, ..Caps::default() });
        let silent = c.admit_fd(ip(1), NO_SOCKET);
        let started = Instant::now();
        tokio::time::timeout(Duration::from_secs(10), silent.closing()).await.expect("closed");
        assert!(started.elapsed() >= timeout);
        let busy = c.admit_fd(ip(1), NO_SOCKET);
        let _answering = busy.answering();
        assert!(tokio::time::timeout(timeout * 3, busy.closing()).await.is_err(), "a busy connection stays");
    }
}
