//! Which devices may have changed since a reader last looked, from link notifications
//! ([`LinkNotifier`]), so a live source asks the kernel for link state and modes only
//! then instead of every sample.
//!
//! One [`LinkWatch`] can serve every interface's source (clones share one socket). The
//! socket is drained when a reader asks that has already seen the latest drain: sampling
//! N interfaces in turn drains once per pass (one recv(2), EAGAIN when nothing happened),
//! and every reader still sees each notification that arrived before its previous
//! look. Where no socket can be had, every device counts as changed (ask every time).

use super::notify::{Drained, LinkNotifier};
use crate::source::{IoCounts, Result};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Where notifications come from: the kernel, or a test's script.
pub trait Notifications: Send {
    /// What arrived since the last call, without blocking.
    fn drain(&mut self) -> Result<Drained>;
    /// Bytes received so far.
    fn bytes(&self) -> u64;
}

impl Notifications for LinkNotifier {
    fn drain(&mut self) -> Result<Drained> {
        LinkNotifier::drain(self)
    }
    fn bytes(&self) -> u64 {
        self.io_counts().bytes
    }
}

type Opener = Box<dyn FnMut() -> Result<Box<dyn Notifications>> + Send>;

enum Socket {
    /// Opened on first use, in that thread's network namespace.
    Unopened(Opener),
    Open(Box<dyn Notifications>),
    /// Could not be opened or read: readers fall back to asking every time.
    Failed,
}

struct Inner {
    socket: Socket,
    /// Drains so far.
    round: u64,
    /// ifindex -> last round whose drain named it; only ifindexes some reader asked about.
    /// Ordered: every sample looks its device up twice, and a tree walk over a few dozen
    /// u32 keys costs less than SipHash.
    named: BTreeMap<u32, u64>,
    /// Last round whose drain reported lost messages.
    lost_round: u64,
}

/// Link notifications shared by the sources of one network namespace.
#[derive(Clone)]
pub struct LinkWatch(Arc<Mutex<Inner>>);

/// One reader's place in the stream: the round it last looked at (`None`: never).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cursor(Option<u64>);

impl Default for LinkWatch {
    fn default() -> Self {
        LinkWatch::new()
    }
}

impl LinkWatch {
    /// The kernel's `RTNLGRP_LINK` group, subscribed on first use.
    pub fn new() -> Self {
        LinkWatch::with_opener(Box::new(|| Ok(Box::new(LinkNotifier::open()?) as Box<dyn Notifications>)))
    }

    /// Notifications from `open` (called once, on first use).
    pub fn with_opener(open: Opener) -> Self {
        LinkWatch(Arc::new(Mutex::new(Inner { socket: Socket::Unopened(open), round: 0, named: BTreeMap::new(), lost_round: 0 })))
    }

    /// Whether `ifindex` may have changed since `cursor` last asked: always true the
    /// first time, after lost notifications, and without a socket. Drains the socket
    /// when this reader has seen the latest drain; the bytes received are added to `io`.
    pub(crate) fn changed_since(&self, cursor: &mut Cursor, ifindex: u32, io: &mut IoCounts) -> bool {
        // A panic elsewhere while holding the lock leaves plain counters behind: still usable.
        let mut inner = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let inner = &mut *inner;
        if let Socket::Unopened(open) = &mut inner.socket {
            inner.socket = open().map_or(Socket::Failed, Socket::Open);
        }
        let Socket::Open(sock) = &mut inner.socket else { return true };
        inner.named.entry(ifindex).or_insert(0);
        if cursor.0 == Some(inner.round) {
            let before = sock.bytes();
            let drained = sock.drain();
            io.bytes += sock.bytes() - before;
            inner.round += 1;
            match drained {
                Ok(d) => {
                    if d.lost {
                        inner.lost_round = inner.round;
                    }
                    for i in d.ifindexes {
                        if let Some(r) = inner.named.get_mut(&i) {
                            *r = inner.round;
                        }
                    }
                }
                Err(_) => {
                    inner.socket = Socket::Failed;
                    return true;
                }
            }
        }
        let since = cursor.0.replace(inner.round);
        since.is_none_or(|s| inner.lost_round > s || inner.named.get(&ifindex).is_some_and(|&r| r > s))
    }
}

/// A scripted notification stream for tests of the readers.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use std::collections::VecDeque;

    /// Hands out one scripted drain per call (then nothing), and counts the calls.
    struct Script {
        drains: VecDeque<Result<Drained>>,
        calls: Arc<Mutex<u32>>,
    }

    impl Notifications for Script {
        fn drain(&mut self) -> Result<Drained> {
            *self.calls.lock().unwrap() += 1;
            self.drains.pop_front().unwrap_or_else(|| Ok(Drained::default()))
        }
        fn bytes(&self) -> u64 {
            0
        }
    }

    /// A watch whose drains are `drains` in order, and the count of drains made.
    pub(crate) fn scripted(drains: Vec<Result<Drained>>) -> (LinkWatch, Arc<Mutex<u32>>) {
        let calls = Arc::new(Mutex::new(0));
        let c = calls.clone();
        let mut drains = Some(drains);
        let w = LinkWatch::with_opener(Box::new(move || {
            Ok(Box::new(Script { drains: drains.take().unwrap_or_default().into(), calls: c.clone() }) as Box<dyn Notifications>)
        }));
        (w, calls)
    }

    pub(crate) fn named(ifindexes: &[u32]) -> Result<Drained> {
        Ok(Drained { ifindexes: ifindexes.to_vec(), lost: false })
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{named, scripted};
    use super::*;

    #[test]
    fn one_drain_per_pass_over_the_readers() {
        // Round 1 names device 2; round 2 nothing; round 3 reports lost messages.
        let (w, calls) = scripted(vec![named(&[2, 99]), named(&[]), Ok(Drained { ifindexes: vec![], lost: true })]);
        let (mut a, mut b) = (Cursor::default(), Cursor::default());
        let io = &mut IoCounts::default();
        // First look: both readers must ask the kernel; nothing is drained yet.
        assert!(w.changed_since(&mut a, 1, io) && w.changed_since(&mut b, 2, io));
        assert_eq!(*calls.lock().unwrap(), 0);
        // Pass 1: a drains (device 2 named), b sees that drain without draining again.
        assert!(!w.changed_since(&mut a, 1, io));
        assert!(w.changed_since(&mut b, 2, io));
        assert_eq!(*calls.lock().unwrap(), 1);
        // Pass 2: quiet.
        assert!(!w.changed_since(&mut a, 1, io) && !w.changed_since(&mut b, 2, io));
        // Pass 3: lost messages make every device changed, once.
        assert!(w.changed_since(&mut a, 1, io) && w.changed_since(&mut b, 2, io));
        assert!(!w.changed_since(&mut a, 1, io) && !w.changed_since(&mut b, 2, io));
        assert_eq!(*calls.lock().unwrap(), 4);
        // The unknown device 99 left nothing behind.
        assert!(!w.0.lock().unwrap().named.contains_key(&99));
    }

    #[test]
    fn a_notification_after_a_look_is_seen_by_the_next_look() {
        // b looks after the drain that a triggers at round 1; device 2's notification
        // arrives after b's look and is in a's next drain: b must see it then.
        let (w, _) = scripted(vec![named(&[]), named(&[2])]);
        let (mut a, mut b) = (Cursor::default(), Cursor::default());
        let io = &mut IoCounts::default();
        w.changed_since(&mut a, 1, io);
        w.changed_since(&mut b, 2, io);
        assert!(!w.changed_since(&mut a, 1, io) && !w.changed_since(&mut b, 2, io));
        assert!(!w.changed_since(&mut a, 1, io));
        assert!(w.changed_since(&mut b, 2, io));
    }

    #[test]
    fn without_a_socket_everything_changed() {
        let w = LinkWatch::with_opener(Box::new(|| {
            Err(crate::source::SourceError::Unavailable { what: "test".into(), detail: "no socket".into() })
        }));
        let mut c = Cursor::default();
        let io = &mut IoCounts::default();
        assert!((0..3).all(|_| w.changed_since(&mut c, 1, io)));
        // A socket that fails to read falls back the same way.
        let (w, _) = scripted(vec![named(&[]), Err(crate::source::SourceError::Unavailable { what: "t".into(), detail: "x".into() })]);
        let mut c = Cursor::default();
        assert!(w.changed_since(&mut c, 1, io));
        assert!(!w.changed_since(&mut c, 1, io));
        assert!((0..3).all(|_| w.changed_since(&mut c, 1, io)));
    }
}
