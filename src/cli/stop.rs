//! A replay (`watch --replay`) stopped by a signal the way a live `watch` is: the stop
//! signals ([`StopSignal`]) are caught while the capture is read, the records read so far
//! are analysed and printed, and every sample written to `--record` / `--csv` stays. A live
//! run catches the same signals through its runtime (`optics::sample::watch::stop_signals`);
//! a replay has no runtime, so a handler notes the signal and the reader looks at the note.

use optics::sample::summary::StopSignal;
use std::sync::atomic::{AtomicI32, Ordering};

/// The signal caught, 0 before any.
static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn note(sig: libc::c_int) {
    // An atomic store is async-signal-safe.
    CAUGHT.store(sig, Ordering::Relaxed);
}

/// Catches the stop signals from here on. Without `SA_RESTART`, a read blocked on a pipe
/// (`--replay <(slow producer)`) returns EINTR, which ends the input ([`caught`]).
pub fn catch() -> std::io::Result<()> {
    for sig in StopSignal::ALL.map(StopSignal::number) {
        // SAFETY: a zeroed sigaction is valid (empty mask, no flags); its handler only
        // stores to an atomic, which is async-signal-safe.
        let rc = unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = note as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigaction(sig, &act, std::ptr::null_mut())
        };
        if rc != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// The stop signal caught, if one was (only after [`catch`]).
pub fn caught() -> Option<StopSignal> {
    StopSignal::from_number(CAUGHT.load(Ordering::Relaxed))
}
