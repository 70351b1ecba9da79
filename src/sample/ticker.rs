//! The sampling loop's clock: a `CLOCK_MONOTONIC` timerfd (timerfd_create(2)) in tokio's
//! I/O driver, so a tick is one wake-up of the thread.
//!
//! tokio's own timers wake a thread more than once for the same deadline: a deadline
//! more than 64 ms away sits in a coarser level of the timer wheel, whose slot start
//! wakes the driver to move it down a level, and re-arming the interval after each tick
//! wakes it through its eventfd. Each wake-up after a sleep runs with cold caches: on a
//! 2-core VM at a 100 ms interval they cost ~80 µs of CPU per tick, more than three
//! interface-samples.
//!
//! Like `MissedTickBehavior::Skip`: a periodic timerfd keeps its phase, and ticks missed
//! while a tick was sampled are one read of the expiration count, not a burst.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;
use tokio::io::unix::AsyncFd;

pub(crate) struct Ticker {
    fd: AsyncFd<OwnedFd>,
}

fn timespec(d: Duration) -> libc::timespec {
    // A century (the loop's clamp) is ~3.2e9 s, within a 64-bit time_t.
    libc::timespec { tv_sec: d.as_secs() as libc::time_t, tv_nsec: d.subsec_nanos() as libc::c_long }
}

impl Ticker {
    /// Ticks now, then every `period` (non-zero). Must run inside a tokio runtime with I/O.
    pub(super) fn new(period: Duration) -> io::Result<Ticker> {
        // SAFETY: timerfd_create takes no pointers; the result is checked below.
        let raw = unsafe { libc::timerfd_create(libc::CLOCK_MONOTONIC, libc::TFD_NONBLOCK | libc::TFD_CLOEXEC) };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `raw` is a new descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        // A zero it_value disarms the timer: the first expiration is 1 ns from now instead.
        let spec = libc::itimerspec { it_interval: timespec(period), it_value: timespec(Duration::from_nanos(1)) };
        // SAFETY: a valid timerfd and a valid itimerspec; the old value is not asked for.
        if unsafe { libc::timerfd_settime(fd.as_raw_fd(), 0, &spec, std::ptr::null_mut()) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the AsyncFd owns the OwnedFd, so the descriptor stays open (and the same)
        // for the AsyncFd's whole life.
        let fd = unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }?;
        Ok(Ticker { fd })
    }

    /// Waits for the next expiration (and any missed since the last tick).
    pub(crate) async fn tick(&mut self) -> io::Result<()> {
        loop {
            let mut ready = self.fd.readable().await?;
            let mut expirations = [0u8; 8];
            let read = ready.try_io(|fd| {
                // SAFETY: an 8-byte buffer for the 8-byte expiration count timerfd(2) gives.
                let n = unsafe { libc::read(fd.as_raw_fd(), expirations.as_mut_ptr().cast(), expirations.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(())
                }
            });
            match read {
                Ok(r) => {
                    // The count was read, so the fd is not readable until the next
                    // expiration (an edge the driver sees): no read to find that out.
                    ready.clear_ready();
                    return r;
                }
                Err(_would_block) => continue,
            }
        }
    }
}
