//! ethtool over generic netlink (Linux 5.6+; FEC and module EEPROM 5.13+).
//!
//! neli is used only here, and only for the socket ([`NlSocketHandle`] with extended ACKs
//! on, because neli's router drops the kernel's extack text). Genl headers and attributes
//! stay raw bytes: requests are framed by `Netlink::send_request` (attributes built with
//! `parse::AttrWriter`), datagrams split into messages by `message` and replies
//! decoded by the small loops in [`parse`], so every request goes through the one helper
//! [`Netlink::request`] and every reply decoder can be tested on golden bytes. Link
//! notifications (rtnetlink, not genl) are read on a socket of their own in [`notify`].

pub mod consts;
pub mod eeprom;
pub mod family;
pub mod fec;
mod header_request;
pub mod link_watch;
pub mod linkmodes;
pub mod linkstate;
mod message;
pub mod notify;
pub mod parse;
pub(crate) mod pause;
mod recv;
pub(crate) mod rings;

use super::{IoCounts, Result, SourceError};
use consts::*;
use message::{Body, Messages};
use neli::consts::socket::NlFamily;
use neli::socket::synchronous::NlSocketHandle;
use neli::utils::Groups;
use parse::{AttrWriter, WireError, NLMSG_HDRLEN};
use std::os::fd::AsRawFd;

pub(crate) use family::Family;

/// The netdev a request is about, and what is known of it for error messages.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dev {
    /// Interface name (used in the header when `ifindex` is `None`, and in messages).
    pub name: String,
    /// Sent as `ETHTOOL_A_HEADER_DEV_INDEX` instead of the name when set.
    pub ifindex: Option<u32>,
    /// Driver name (from GDRVINFO) for `NotSupported` errors.
    pub driver: Option<String>,
}

impl Dev {
    /// The device called `name`, by name.
    pub fn named(name: &str) -> Self {
        Dev { name: name.to_string(), ..Dev::default() }
    }

    /// The `ETHTOOL_A_*_HEADER` nest `ty` (kernel-uapi.md §1.3), written into `w`: the
    /// ifindex when known, and the name. With both the kernel answers ENODEV "ifindex and
    /// name do not match" when the name now belongs to another device: a rename swap is
    /// seen without a lookup of its own.
    pub(crate) fn header_in<'w>(&self, w: &'w mut AttrWriter, ty: u16, flags: u32) -> &'w mut AttrWriter {
        w.nest_with(ty, |h| {
            if let Some(i) = self.ifindex {
                h.u32(ETHTOOL_A_HEADER_DEV_INDEX, i);
            }
            if self.ifindex.is_none() || !self.name.is_empty() {
                h.string(ETHTOOL_A_HEADER_DEV_NAME, &self.name);
            }
            if flags != 0 {
                h.u32(ETHTOOL_A_HEADER_FLAGS, flags);
            }
        })
    }
}

/// Extended-ACK attribute `NLMSGERR_ATTR_MSG` (include/uapi/linux/netlink.h).
const NLMSGERR_ATTR_MSG: u16 = 1;
/// `struct genlmsghdr` is cmd, version, u16 reserved.
const GENL_HDRLEN: usize = 4;

/// One generic-netlink socket, blocking, extended ACKs on.
pub struct Netlink {
    sock: NlSocketHandle,
    seq: u32,
    io: IoCounts,
    /// Kept between reads (see [`recv`]).
    recv_buf: Vec<u8>,
    /// Kept between requests ([`Netlink::send_request`]).
    send_buf: Vec<u8>,
    /// The last header-only request's attributes ([`header_request`]).
    header_attrs: Option<header_request::HeaderAttrs>,
}

impl Netlink {
    /// Opens a NETLINK_GENERIC socket in the calling thread's network namespace.
    pub fn connect() -> Result<Self> {
        let sock = NlSocketHandle::connect(NlFamily::Generic, None, Groups::empty()).map_err(|e| io_err("netlink socket", e))?;
        // Without this the kernel's reason ("no device matches name", ...) is not sent.
        sock.enable_ext_ack(true).map_err(|e| io_err("netlink extended ACK", e))?;
        Ok(Netlink { sock, seq: 0, io: IoCounts::default(), recv_buf: recv::recv_buffer(), send_buf: Vec::new(), header_attrs: None })
    }

    /// Requests and bytes so far.
    pub fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }

    /// Sends one genl request ([`request_flags`]) and returns the attribute bytes of each
    /// reply message. A kernel error becomes a [`SourceError`] carrying the extack
    /// message; `what` and `dev` name it.
    pub fn request(&mut self, family: u16, cmd: u8, attrs: &[u8], dump: bool, what: &str, dev: Option<&Dev>) -> Result<Vec<Vec<u8>>> {
        self.seq = self.seq.wrapping_add(1);
        let seq = self.seq;
        self.send_request(family, cmd, attrs, dump, seq, what)?;
        self.io.requests += 1;

        // A do gets its one reply (or NLMSG_ERROR); a dump replies then DONE, over any
        // number of reads.
        let mut replies = Vec::new();
        loop {
            let datagram = recv::recv_datagram(&self.sock, &mut self.recv_buf, what)?;
            if datagram.is_empty() {
                return Err(malformed(what, "socket closed before the kernel finished"));
            }
            for m in Messages::new(datagram) {
                let m = m.map_err(|d| malformed(what, format!("parsing reply: {d}")))?;
                if m.seq != seq {
                    continue; // stale answer to an earlier request
                }
                match m.body {
                    Body::Reply(p) => {
                        let bytes = p.get(GENL_HDRLEN..).unwrap_or_default().to_vec();
                        self.io.bytes += bytes.len() as u64;
                        replies.push(bytes);
                        if !dump {
                            return Ok(replies);
                        }
                    }
                    Body::End { error: 0, .. } => return Ok(replies),
                    Body::End { error, ext_ack } => {
                        let message = extack_msg(ext_ack).map_err(|d| malformed(what, format!("parsing reply: {d}")))?;
                        return Err(errno_error(what, dev, error.saturating_neg(), message));
                    }
                }
            }
        }
    }
}

impl Netlink {
    /// One request datagram, framed here into a buffer the socket keeps (neli's builder
    /// and `send` allocated the message twice per request): `struct nlmsghdr` (len, type,
    /// flags, seq, pid 0: the kernel fills in the port) and `struct genlmsghdr` (cmd,
    /// version, reserved), then the attributes, padded to 4 bytes (netlink(7), NLMSG_ALIGN).
    fn send_request(&mut self, family: u16, cmd: u8, attrs: &[u8], dump: bool, seq: u32, what: &str) -> Result<()> {
        let len = parse::align4(NLMSG_HDRLEN + GENL_HDRLEN + attrs.len());
        let len32 = u32::try_from(len).map_err(|_| malformed(what, format!("request of {len} bytes")))?;
        let b = &mut self.send_buf;
        b.clear();
        b.extend_from_slice(&len32.to_ne_bytes());
        b.extend_from_slice(&family.to_ne_bytes());
        b.extend_from_slice(&request_flags(dump).to_ne_bytes());
        b.extend_from_slice(&seq.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        b.extend_from_slice(&[cmd, ETHTOOL_GENL_VERSION, 0, 0]);
        b.extend_from_slice(attrs);
        b.resize(len, 0);
        // SAFETY: b is a live slice of b.len() bytes for the whole call; send(2) only reads it.
        let n = unsafe { libc::send(self.sock.as_raw_fd(), b.as_ptr().cast(), b.len(), 0) };
        if n < 0 {
            return Err(io_err(what, std::io::Error::last_os_error()));
        }
        if n as usize != b.len() {
            return Err(malformed(what, format!("sent {n} of {} request bytes", b.len())));
        }
        Ok(())
    }
}

/// `nlmsghdr` flags of a request: a do asks for no ACK (its reply, or `NLMSG_ERROR` with
/// the extack, is answer enough: netlink(7) "NLM_F_ACK ... on success"), which saves a
/// read per request; a dump is `NLM_F_DUMP` and ends with `NLMSG_DONE`.
pub fn request_flags(dump: bool) -> u16 {
    if dump {
        NLM_F_REQUEST | NLM_F_DUMP
    } else {
        NLM_F_REQUEST
    }
}

impl Netlink {
    /// A do request expecting exactly one reply message; returns its attributes.
    pub(crate) fn do_one(&mut self, family: u16, cmd: u8, attrs: &[u8], what: &str, dev: Option<&Dev>) -> Result<Vec<u8>> {
        self.request(family, cmd, attrs, false, what, dev)?.into_iter().next().ok_or_else(|| malformed(what, "no reply message"))
    }
}

/// The kernel's text (`NLMSGERR_ATTR_MSG`) among extended-ACK attributes.
fn extack_msg(ext_ack: &[u8]) -> std::result::Result<Option<String>, WireError> {
    Ok(parse::attrs(ext_ack)?.iter().find(|a| a.ty == NLMSGERR_ATTR_MSG).map(|a| parse::string_of(a.payload)))
}

fn errno_error(what: &str, dev: Option<&Dev>, errno: i32, message: Option<String>) -> SourceError {
    SourceError::from_errno(what, dev.map(|d| d.name.as_str()).unwrap_or(""), dev.and_then(|d| d.driver.as_deref()), errno, message)
}

fn io_err(what: &str, e: impl std::fmt::Display) -> SourceError {
    SourceError::Io { what: what.to_string(), source: std::io::Error::other(e.to_string()) }
}

pub(crate) fn malformed(what: &str, detail: impl ToString) -> SourceError {
    SourceError::Malformed { what: what.to_string(), detail: detail.to_string() }
}
