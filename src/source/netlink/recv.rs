//! Reading one netlink datagram into a buffer the socket owner keeps.
//!
//! neli's `recv_all` takes a 32 kB buffer from its pool and zeroes it again after every
//! read; a live sample makes a small read or three (LINKSTATE, LINKMODES, FEC replies are
//! under 1 kB), so that zeroing was most of the sampler's memset. The buffer here is as
//! large as neli's (`MAX_NL_LENGTH`), allocated once and never cleared: only the bytes
//! the kernel wrote are decoded ([`super::message`]).

use super::{io_err, malformed};
use crate::source::Result;
use neli::consts::MAX_NL_LENGTH;
use std::os::fd::AsRawFd;

/// A receive buffer of neli's size, for [`recv_datagram`].
pub(super) fn recv_buffer() -> Vec<u8> {
    vec![0; MAX_NL_LENGTH]
}

/// One datagram into `buf`: its bytes, empty when the socket reports end of stream. A
/// datagram larger than `buf` is an error, not a silently cut reply: `MSG_TRUNC` makes
/// recv(2) return the datagram's real length (socket(7), netlink(7)).
pub(super) fn recv_datagram<'b>(sock: &impl AsRawFd, buf: &'b mut [u8], what: &str) -> Result<&'b [u8]> {
    // SAFETY: buf is a live, writable slice of buf.len() bytes for the whole call.
    let n = unsafe { libc::recv(sock.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), libc::MSG_TRUNC) };
    if n < 0 {
        return Err(io_err(what, std::io::Error::last_os_error()));
    }
    let n = n as usize;
    if n > buf.len() {
        return Err(malformed(what, format!("reply of {n} bytes, larger than the {}-byte receive buffer", buf.len())));
    }
    Ok(&buf[..n])
}
