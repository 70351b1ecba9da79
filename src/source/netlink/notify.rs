//! Link notifications: a NETLINK_ROUTE socket subscribed to the `RTNLGRP_LINK` multicast
//! group (include/uapi/linux/rtnetlink.h). The kernel multicasts `RTM_NEWLINK` whenever a
//! netdev's flags (IFF_UP, IFF_RUNNING / IFF_LOWER_UP, i.e. carrier), operstate, name or
//! settings change (net/core/rtnetlink.c `rtnetlink_event`; carrier changes through
//! net/core/link_watch.c), and `RTM_DELLINK` when it goes away. Only the ifindex of each
//! message is used: the reader then asks the device itself.
//!
//! The socket is non-blocking: a drain with nothing pending is one recv(2) that fails
//! EAGAIN. A reader that fell behind lost messages, and the kernel says so once with
//! ENOBUFS (netlink(7) "the socket buffer overflowed"); [`Drained::lost`] carries that.

use super::parse::{align4, NLMSG_HDRLEN};
use crate::source::{IoCounts, Result, SourceError};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// `RTMGRP_LINK`: the bind(2) group bitmask of `RTNLGRP_LINK` = 1 (rtnetlink.h).
const RTMGRP_LINK: u32 = 1;
/// `RTM_NEWLINK` / `RTM_DELLINK` (rtnetlink.h, `RTM_BASE` 16).
pub(crate) const RTM_NEWLINK: u16 = 16;
pub(crate) const RTM_DELLINK: u16 = 17;
/// `struct ifinfomsg`: u8 family, u8 pad, u16 type, **i32 index** (offset 4), u32 flags, u32 change.
const IFI_INDEX_OFFSET: usize = 4;
/// A datagram holds one notification; RTM_NEWLINK of a NIC with VFs can pass 4 kB. The
/// ifindex is in the first 24 bytes, so a longer message cut by MSG_TRUNC still names it.
const RECV_BUF_LEN: usize = 16 * 1024;

/// What one drain found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Drained {
    /// Every ifindex a link message named, in arrival order (repeats kept).
    pub ifindexes: Vec<u32>,
    /// The kernel dropped messages (ENOBUFS): any device may have changed.
    pub lost: bool,
}

/// The ifindexes of the `RTM_NEWLINK` / `RTM_DELLINK` messages in one datagram. Other
/// types and a truncated tail are skipped: the next read of the device is the check.
pub(crate) fn parse_datagram(buf: &[u8], out: &mut Vec<u32>) {
    let mut rest = buf;
    while rest.len() >= NLMSG_HDRLEN {
        let len = u32::from_ne_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let ty = u16::from_ne_bytes([rest[4], rest[5]]);
        let at = NLMSG_HDRLEN + IFI_INDEX_OFFSET;
        if matches!(ty, RTM_NEWLINK | RTM_DELLINK) {
            if let Some(b) = rest.get(at..at + 4) {
                let index = i32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
                if let Ok(i) = u32::try_from(index) {
                    out.push(i);
                }
            }
        }
        // NLMSG_ALIGN(len); a length under the header ends the walk instead of looping.
        let next = align4(len);
        if len < NLMSG_HDRLEN || next > rest.len() {
            break;
        }
        rest = &rest[next..];
    }
}

/// The subscribed socket, in the netns of the thread that opened it.
pub struct LinkNotifier {
    fd: OwnedFd,
    buf: Vec<u8>,
    io: IoCounts,
}

fn os_err(what: &str) -> SourceError {
    SourceError::Io { what: what.to_string(), source: std::io::Error::last_os_error() }
}

impl LinkNotifier {
    /// Subscribes with the kernel's default receive buffer (`net.core.rmem_default`).
    pub fn open() -> Result<Self> {
        Self::open_with_receive_buffer(None)
    }

    /// Subscribes with `SO_RCVBUF` = `bytes` when given: a small buffer overflows after a
    /// few messages, which is how tests reach the ENOBUFS path.
    pub fn open_with_receive_buffer(bytes: Option<usize>) -> Result<Self> {
        let what = "rtnetlink link notifications";
        // SAFETY: plain socket(2); the result is checked before use.
        let raw = unsafe { libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK, libc::NETLINK_ROUTE) };
        if raw < 0 {
            return Err(os_err(what));
        }
        // SAFETY: `raw` is a fresh descriptor that nothing else owns.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        if let Some(bytes) = bytes {
            let v = libc::c_int::try_from(bytes).unwrap_or(libc::c_int::MAX);
            // SAFETY: `v` is a live c_int of the size passed.
            let rc = unsafe {
                libc::setsockopt(
                    fd.as_raw_fd(),
                    libc::SOL_SOCKET,
                    libc::SO_RCVBUF,
                    (&v as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as libc::socklen_t,
                )
            };
            if rc < 0 {
                return Err(os_err(what));
            }
        }
        // SAFETY: all-zero is a valid sockaddr_nl; the fields that matter are set below.
        let mut sa: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        sa.nl_family = libc::AF_NETLINK as libc::sa_family_t;
        sa.nl_groups = RTMGRP_LINK;
        // SAFETY: `sa` is a valid sockaddr_nl of the size passed.
        let rc = unsafe {
            libc::bind(
                fd.as_raw_fd(),
                (&sa as *const libc::sockaddr_nl).cast(),
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        };
        if rc < 0 {
            return Err(os_err(what));
        }
        Ok(LinkNotifier { fd, buf: vec![0; RECV_BUF_LEN], io: IoCounts::default() })
    }

    /// Reads every pending datagram without blocking.
    pub(crate) fn drain(&mut self) -> Result<Drained> {
        let mut d = Drained::default();
        loop {
            // SAFETY: buf is a live, writable slice of buf.len() bytes for the whole call.
            let n = unsafe {
                libc::recv(self.fd.as_raw_fd(), self.buf.as_mut_ptr().cast(), self.buf.len(), libc::MSG_TRUNC | libc::MSG_DONTWAIT)
            };
            if n < 0 {
                match std::io::Error::last_os_error().raw_os_error() {
                    Some(libc::EAGAIN) => return Ok(d),
                    Some(libc::EINTR) => continue,
                    // Reported once per overflow; the messages after it are read normally.
                    Some(libc::ENOBUFS) => {
                        d.lost = true;
                        continue;
                    }
                    _ => return Err(os_err("rtnetlink link notifications")),
                }
            }
            let n = n as usize;
            self.io.bytes += n as u64;
            parse_datagram(&self.buf[..n.min(self.buf.len())], &mut d.ifindexes);
        }
    }

    /// Bytes received (notifications are not requests: `requests` stays 0).
    pub fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nlmsghdr + ifinfomsg (+ `extra` attribute bytes), as the kernel lays them out.
    fn link_msg(ty: u16, index: i32, extra: &[u8]) -> Vec<u8> {
        let len = (NLMSG_HDRLEN + 16 + extra.len()) as u32;
        let mut m = Vec::new();
        m.extend_from_slice(&len.to_ne_bytes());
        m.extend_from_slice(&ty.to_ne_bytes());
        m.extend_from_slice(&[0; 10]); // flags, seq, pid
        m.extend_from_slice(&[0, 0, 1, 0]); // AF_UNSPEC, pad, ARPHRD_ETHER (1)
        m.extend_from_slice(&index.to_ne_bytes());
        m.extend_from_slice(&[0; 8]); // ifi_flags, ifi_change
        m.extend_from_slice(extra);
        while m.len() % 4 != 0 {
            m.push(0);
        }
        m
    }

    #[test]
    fn link_messages_name_their_ifindex() {
        // IFLA_IFNAME (3) "v0\0": a 7-byte attribute padded to 8.
        let mut dgram = link_msg(RTM_NEWLINK, 7, &[7, 0, 3, 0, b'v', b'0', 0]);
        dgram.extend(link_msg(RTM_DELLINK, 9, &[]));
        // RTM_NEWADDR (20) is another group's message: ignored.
        dgram.extend(link_msg(20, 11, &[]));
        let mut out = Vec::new();
        parse_datagram(&dgram, &mut out);
        assert_eq!(out, [7, 9]);
    }

    #[test]
    fn truncated_and_broken_messages_end_the_walk() {
        let mut out = Vec::new();
        // Cut inside the ifinfomsg, before the index: nothing.
        parse_datagram(&link_msg(RTM_NEWLINK, 5, &[])[..NLMSG_HDRLEN + 2], &mut out);
        // A length below the header size would loop forever if trusted.
        let mut bad = link_msg(RTM_NEWLINK, 6, &[]);
        bad[..4].copy_from_slice(&3u32.to_ne_bytes());
        bad.extend(link_msg(RTM_NEWLINK, 8, &[]));
        parse_datagram(&bad, &mut out);
        // A message cut by MSG_TRUNC after its index still names the device.
        let long = link_msg(RTM_NEWLINK, 12, &[0; 64]);
        parse_datagram(&long[..40], &mut out);
        assert_eq!(out, [6, 12]);
    }
}
