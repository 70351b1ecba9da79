//! The netlink messages of one received datagram, decoded in place (netlink(7),
//! include/uapi/linux/netlink.h). neli's generic decoder built a vector of messages with
//! an owned payload each, and a vector of owned attributes for an error's extended ACK:
//! ~1.5k instructions and several allocations for a one-message reply, every sample.
//!
//! Layout: each message is `struct nlmsghdr` (u32 len, u16 type, u16 flags, u32 seq,
//! u32 pid) and its payload, padded to 4 bytes (NLMSG_ALIGN). `NLMSG_ERROR` carries
//! `struct nlmsgerr` (int error, the request's `nlmsghdr`), then the request's payload
//! unless `NLM_F_CAPPED`, then extended-ACK attributes (`NLM_F_ACK_TLVS`); net/netlink/
//! af_netlink.c `netlink_ack`. A dump's `NLMSG_DONE` (`NLM_F_MULTI`) carries an int
//! error, then extended-ACK attributes (`netlink_dump_done`).

use super::consts::{NLMSG_DONE, NLMSG_ERROR, NLM_F_CAPPED, NLM_F_MULTI};
use super::parse::{align4, WireError, NLMSG_HDRLEN};

/// One message of a datagram.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Message<'a> {
    pub(crate) seq: u32,
    pub(crate) body: Body<'a>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Body<'a> {
    /// A reply: the payload after `nlmsghdr` (genl header, then attributes).
    Reply(&'a [u8]),
    /// The end of an answer: `NLMSG_ERROR` (an ACK when `error` is 0) or `NLMSG_DONE`.
    /// `error` is 0 or a negative errno; `ext_ack` the extended-ACK attribute bytes.
    End { error: i32, ext_ack: &'a [u8] },
}

/// The messages of `buf`, in order. A message whose length does not fit the datagram, or
/// an error message too short for its `nlmsgerr`, is an error and ends the iteration.
pub(super) struct Messages<'a> {
    rest: &'a [u8],
}

impl<'a> Messages<'a> {
    pub(crate) fn new(datagram: &'a [u8]) -> Self {
        Messages { rest: datagram }
    }

    fn next_message(&mut self) -> Result<Message<'a>, WireError> {
        let rest = self.rest;
        let (Some(len), Some(ty), Some(flags), Some(seq)) = (u32_at(rest, 0), u16_at(rest, 4), u16_at(rest, 6), u32_at(rest, 8)) else {
            return Err(WireError::MessageHeader { left: rest.len() });
        };
        let len = len as usize;
        let (Some(payload), true) = (rest.get(NLMSG_HDRLEN..len), len >= NLMSG_HDRLEN) else {
            return Err(WireError::MessageLength { ty, len, left: rest.len() });
        };
        // The last message may omit its padding.
        self.rest = rest.get(align4(len)..).unwrap_or_default();
        let body = match ty {
            NLMSG_ERROR => error_body(payload, flags)?,
            // A dump's end; without MULTI or an error code, a plain end (as neli read it).
            NLMSG_DONE => match (flags & NLM_F_MULTI != 0, i32_at(payload, 0)) {
                (true, Some(error)) => Body::End { error, ext_ack: payload.get(4..).unwrap_or_default() },
                _ => Body::End { error: 0, ext_ack: &[] },
            },
            _ => Body::Reply(payload),
        };
        Ok(Message { seq, body })
    }
}

impl<'a> Iterator for Messages<'a> {
    type Item = Result<Message<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let m = self.next_message();
        if m.is_err() {
            self.rest = &[];
        }
        Some(m)
    }
}

/// `struct nlmsgerr` and what follows it (see the module comment).
fn error_body(payload: &[u8], flags: u16) -> Result<Body<'_>, WireError> {
    const NLMSGERR_LEN: usize = 4 + NLMSG_HDRLEN;
    let (Some(error), Some(request_len)) = (i32_at(payload, 0), u32_at(payload, 4)) else {
        return Err(WireError::ShortError { len: payload.len() });
    };
    // An ACK (error 0) and a capped error echo the request's header only.
    let echoed = if error == 0 || flags & NLM_F_CAPPED != 0 { 0 } else { (request_len as usize).saturating_sub(NLMSG_HDRLEN) };
    if payload.len() < NLMSGERR_LEN + echoed {
        return Err(WireError::ShortEcho { len: payload.len(), request_len });
    }
    Ok(Body::End { error, ext_ack: payload.get(NLMSGERR_LEN + align4(echoed)..).unwrap_or_default() })
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn i32_at(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::super::consts::{NLM_F_ACK_TLVS, NLM_F_REQUEST};
    use super::super::parse::AttrWriter;
    use super::*;

    /// A message built field by field: `nlmsghdr` (len = 16 + payload), then the payload
    /// padded to 4 bytes.
    fn msg(ty: u16, flags: u16, seq: u32, payload: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&((16 + payload.len()) as u32).to_ne_bytes());
        b.extend_from_slice(&ty.to_ne_bytes());
        b.extend_from_slice(&flags.to_ne_bytes());
        b.extend_from_slice(&seq.to_ne_bytes());
        b.extend_from_slice(&0u32.to_ne_bytes());
        b.extend_from_slice(payload);
        b.resize(align4(b.len()), 0);
        b
    }

    /// The FEC_GET request of a device named by ifindex 7 and "v0": `nlmsghdr` (16), genl
    /// header (4), the header nest (4) around DEV_INDEX (8) and DEV_NAME "v0\0" (4 + 3,
    /// padded to 8): 40 bytes.
    fn request() -> Vec<u8> {
        let mut h = AttrWriter::new();
        h.u32(1, 7).string(2, "v0");
        let mut a = AttrWriter::new();
        a.nest(1, &h);
        let mut genl = vec![29, 1, 0, 0];
        genl.extend_from_slice(&a.finish());
        msg(0x15, NLM_F_REQUEST, 9, &genl)
    }

    /// `struct nlmsgerr` for `error`, echoing the whole request unless `capped`.
    fn nlmsgerr(error: i32, capped: bool, ext_ack: &[u8]) -> Vec<u8> {
        let req = request();
        let mut p = error.to_ne_bytes().to_vec();
        p.extend_from_slice(if capped { &req[..16] } else { &req });
        p.extend_from_slice(ext_ack);
        p
    }

    fn extack(text: &str) -> Vec<u8> {
        AttrWriter::new().string(1, text).finish()
    }

    #[test]
    fn error_with_echoed_request_and_extack() {
        // -ENODEV, the 40-byte request echoed, then the kernel's message.
        let ack = extack("no device matches name");
        let flags = NLM_F_ACK_TLVS;
        let d = msg(NLMSG_ERROR, flags, 9, &nlmsgerr(-libc::ENODEV, false, &ack));
        assert_eq!(request().len(), 40);
        let m: Vec<_> = Messages::new(&d).collect();
        assert_eq!(m, vec![Ok(Message { seq: 9, body: Body::End { error: -libc::ENODEV, ext_ack: &ack } })]);
    }

    #[test]
    fn capped_error_and_ack_echo_the_header_only() {
        let ack = extack("x");
        let d = msg(NLMSG_ERROR, NLM_F_CAPPED | NLM_F_ACK_TLVS, 9, &nlmsgerr(-libc::EOPNOTSUPP, true, &ack));
        assert_eq!(Messages::new(&d).next(), Some(Ok(Message { seq: 9, body: Body::End { error: -libc::EOPNOTSUPP, ext_ack: &ack } })));
        let d = msg(NLMSG_ERROR, 0, 9, &nlmsgerr(0, true, &[]));
        assert_eq!(Messages::new(&d).next(), Some(Ok(Message { seq: 9, body: Body::End { error: 0, ext_ack: &[] } })));
    }

    #[test]
    fn dump_replies_then_done() {
        let mut d = msg(0x15, NLM_F_MULTI, 4, &[30, 1, 0, 0, 8, 0, 1, 0, 1, 2, 3, 4]);
        // A reply with a 1-byte payload: padded to 4 in the datagram.
        d.extend(msg(0x15, NLM_F_MULTI, 4, &[30]));
        d.extend(msg(NLMSG_DONE, NLM_F_MULTI, 4, &0i32.to_ne_bytes()));
        let m: Vec<_> = Messages::new(&d).map(|m| m.unwrap().body).collect();
        assert_eq!(m, vec![Body::Reply(&[30, 1, 0, 0, 8, 0, 1, 0, 1, 2, 3, 4]), Body::Reply(&[30]), Body::End { error: 0, ext_ack: &[] }]);
        // A dump that failed part way: DONE carries the errno and the extack.
        let ack = extack("y");
        let mut p = (-libc::EIO).to_ne_bytes().to_vec();
        p.extend_from_slice(&ack);
        let d = msg(NLMSG_DONE, NLM_F_MULTI | NLM_F_ACK_TLVS, 4, &p);
        assert_eq!(Messages::new(&d).next().unwrap().unwrap().body, Body::End { error: -libc::EIO, ext_ack: &ack });
    }

    #[test]
    fn the_last_message_may_omit_its_padding() {
        let mut d = msg(0x15, 0, 1, &[30]);
        d.truncate(17);
        assert_eq!(Messages::new(&d).map(|m| m.unwrap().body).collect::<Vec<_>>(), vec![Body::Reply(&[30])]);
    }

    #[test]
    fn truncated_datagrams_are_errors_not_panics() {
        let whole = msg(NLMSG_ERROR, NLM_F_ACK_TLVS, 9, &nlmsgerr(-libc::ENODEV, false, &extack("z")));
        // Every cut inside the header, the nlmsgerr or the echoed request is refused.
        for cut in 1..16 + 4 + 40 {
            let mut d = whole[..cut].to_vec();
            if cut >= 16 {
                d[..4].copy_from_slice(&(cut as u32).to_ne_bytes());
            }
            let m: Vec<_> = Messages::new(&d).collect();
            assert!(matches!(m.as_slice(), [Err(_)]), "cut at {cut}: {m:?}");
        }
        // A length beyond the datagram, and one shorter than the header.
        let mut d = msg(0x15, 0, 1, &[1, 2, 3, 4]);
        d[..4].copy_from_slice(&100u32.to_ne_bytes());
        assert!(Messages::new(&d).next().unwrap().is_err());
        d[..4].copy_from_slice(&8u32.to_ne_bytes());
        assert!(Messages::new(&d).next().unwrap().is_err());
    }
}
