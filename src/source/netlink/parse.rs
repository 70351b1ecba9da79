//! Netlink attribute codec over raw bytes (`struct nlattr` = u16 len, u16 type, payload,
//! padded to 4 bytes). Reply decoders are small loops over `attrs`, so golden byte
//! fixtures test them without a socket. Rules (kernel-uapi.md §1.4): integers are
//! host-endian, a `uint` is 4 or 8 bytes, `NLA_F_NESTED` is masked off the type, PAD
//! and unknown types are kept in the list and skipped by the decoders.

use super::consts::{NLA_F_NESTED, NLA_F_NET_BYTEORDER};

const NLA_HDRLEN: usize = 4;

/// One attribute as found on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Attr<'a> {
    /// Type with `NLA_F_NESTED` / `NLA_F_NET_BYTEORDER` masked off.
    pub(crate) ty: u16,
    pub(crate) nested: bool,
    pub(crate) payload: &'a [u8],
}

/// What is wrong with the bytes of a netlink reply: it becomes a
/// [`SourceError::Malformed`](crate::source::SourceError::Malformed)'s detail.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Bytes left over that are too few for an attribute header.
    #[error("{left} trailing bytes are not an attribute header")]
    AttrHeader {
        /// Bytes left.
        left: usize,
    },
    /// An attribute whose length runs past the bytes left.
    #[error("attribute type {ty:#x} has length {len} with {left} bytes left")]
    AttrLength {
        /// Attribute type.
        ty: u16,
        /// Its length, bytes.
        len: usize,
        /// Bytes left.
        left: usize,
    },
    /// Bytes left over that are too few for a message header.
    #[error("{left} trailing bytes are not a message header")]
    MessageHeader {
        /// Bytes left.
        left: usize,
    },
    /// A message whose length runs past the bytes left.
    #[error("message type {ty:#x} has length {len} with {left} bytes left")]
    MessageLength {
        /// Message type.
        ty: u16,
        /// Its length, bytes.
        len: usize,
        /// Bytes left.
        left: usize,
    },
    /// An `NLMSG_ERROR` shorter than `struct nlmsgerr`.
    #[error("error message of {len} bytes, shorter than struct nlmsgerr")]
    ShortError {
        /// Its length, bytes.
        len: usize,
    },
    /// An `NLMSG_ERROR` shorter than the request it echoes.
    #[error("error message of {len} bytes, shorter than the {request_len}-byte request it echoes")]
    ShortEcho {
        /// Its length, bytes.
        len: usize,
        /// The echoed request's length, bytes.
        request_len: u32,
    },
    /// A u32 attribute (`what` names its nest) of another size.
    #[error("{what} attribute {ty} has {len} bytes, not 4")]
    NotU32 {
        /// The nest it is in.
        what: &'static str,
        /// Attribute type.
        ty: u16,
        /// Its length, bytes.
        len: usize,
    },
    /// A `NLA_UINT` statistic of neither 4 nor 8 bytes.
    #[error("{what} stat {ty} has {len} bytes")]
    NotUint {
        /// The nest it is in.
        what: &'static str,
        /// Attribute type.
        ty: u16,
        /// Its length, bytes.
        len: usize,
    },
    /// The histogram's per-lane array is not made of u64s.
    #[error("FEC histogram per-lane array is not a multiple of 8 bytes")]
    HistogramPerLane,
    /// A FEC histogram bin without its bounds or count.
    #[error("FEC histogram bin lacks LOW/HIGH/VAL (low {low:?}, high {high:?}, value {count:?})")]
    HistogramBin {
        /// Lowest symbol-error count of the bin.
        low: Option<u32>,
        /// Highest symbol-error count of the bin.
        high: Option<u32>,
        /// Codewords in the bin.
        count: Option<u64>,
    },
    /// A reply without the attribute that is its point.
    #[error("no {0}")]
    Missing(&'static str),
}

/// Every attribute in `buf`, unknown types included. Fails on a truncated or
/// impossible length instead of guessing.
pub(crate) fn attrs(buf: &[u8]) -> Result<Vec<Attr<'_>>, WireError> {
    let mut out = Vec::new();
    let mut rest = buf;
    while !rest.is_empty() {
        let (Some(len), Some(raw_ty)) = (read_u16(rest, 0), read_u16(rest, 2)) else {
            return Err(WireError::AttrHeader { left: rest.len() });
        };
        let len = len as usize;
        if len < NLA_HDRLEN || len > rest.len() {
            return Err(WireError::AttrLength { ty: raw_ty, len, left: rest.len() });
        }
        out.push(Attr {
            ty: raw_ty & !(NLA_F_NESTED | NLA_F_NET_BYTEORDER),
            nested: raw_ty & NLA_F_NESTED != 0,
            payload: rest.get(NLA_HDRLEN..len).unwrap_or_default(),
        });
        // The last attribute may omit its padding.
        rest = rest.get(align4(len)..).unwrap_or_default();
    }
    Ok(out)
}

fn read_u16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_ne_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

/// `struct nlmsghdr`: u32 len, u16 type, u16 flags, u32 seq, u32 pid.
pub(super) const NLMSG_HDRLEN: usize = 16;

/// NLMSG_ALIGN / NLA_ALIGN: netlink pads messages and attributes to 4 bytes (netlink(7)).
pub(super) const fn align4(n: usize) -> usize {
    (n + 3) & !3
}

pub(crate) fn u8_of(p: &[u8]) -> Option<u8> {
    match p {
        [b] => Some(*b),
        _ => None,
    }
}

pub(crate) fn u16_of(p: &[u8]) -> Option<u16> {
    Some(u16::from_ne_bytes(p.try_into().ok()?))
}

pub(crate) fn u32_of(p: &[u8]) -> Option<u32> {
    Some(u32::from_ne_bytes(p.try_into().ok()?))
}

/// `NLA_UINT`: the kernel sends 4 bytes when the value fits, else 8.
pub(crate) fn uint_of(p: &[u8]) -> Option<u64> {
    match p.len() {
        4 => u32_of(p).map(u64::from),
        8 => Some(u64::from_ne_bytes(p.try_into().ok()?)),
        _ => None,
    }
}

/// Binary array of host-endian u64; `None` when the length is not a multiple of 8.
pub(crate) fn u64_array(p: &[u8]) -> Option<Vec<u64>> {
    if !p.len().is_multiple_of(8) {
        return None;
    }
    // chunks_exact(8) yields 8-byte slices, so the conversion cannot fail.
    Some(p.chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().unwrap_or([0; 8]))).collect())
}

/// Binary array of host-endian u32 (bitset VALUE/MASK words).
pub(crate) fn u32_array(p: &[u8]) -> Vec<u32> {
    p.chunks_exact(4).map(|c| u32::from_ne_bytes(c.try_into().unwrap_or([0; 4]))).collect()
}

/// NUL-terminated string, cut at the first NUL.
pub(crate) fn string_of(p: &[u8]) -> String {
    let end = p.iter().position(|&b| b == 0).unwrap_or(p.len());
    String::from_utf8_lossy(p.get(..end).unwrap_or_default()).into_owned()
}

/// Builds an attribute stream; nests get `NLA_F_NESTED` like the kernel's `nla_nest_start`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AttrWriter {
    buf: Vec<u8>,
}

impl Default for AttrWriter {
    fn default() -> Self {
        AttrWriter::new()
    }
}

impl AttrWriter {
    pub(crate) fn new() -> Self {
        // A request's attributes (a device header, a nest of it) fit: no regrowth.
        AttrWriter { buf: Vec::with_capacity(64) }
    }
    pub(crate) fn bytes(&mut self, ty: u16, payload: &[u8]) -> &mut Self {
        self.put(ty, &[payload])
    }
    /// One attribute whose payload is `parts` one after the other.
    fn put(&mut self, ty: u16, parts: &[&[u8]]) -> &mut Self {
        let payload_len: usize = parts.iter().map(|p| p.len()).sum();
        // A payload over 65531 bytes cannot be framed; requests here are a few bytes.
        let len = u16::try_from(NLA_HDRLEN + payload_len).unwrap_or(u16::MAX);
        self.buf.reserve(align4(NLA_HDRLEN + payload_len));
        self.buf.extend_from_slice(&len.to_ne_bytes());
        self.buf.extend_from_slice(&ty.to_ne_bytes());
        for p in parts {
            self.buf.extend_from_slice(p);
        }
        self.buf.resize(align4(self.buf.len()), 0);
        self
    }
    pub(crate) fn u8(&mut self, ty: u16, v: u8) -> &mut Self {
        self.bytes(ty, &[v])
    }
    pub(crate) fn u32(&mut self, ty: u16, v: u32) -> &mut Self {
        self.bytes(ty, &v.to_ne_bytes())
    }
    /// NUL-terminated string.
    pub(crate) fn string(&mut self, ty: u16, s: &str) -> &mut Self {
        self.put(ty, &[s.as_bytes(), &[0]])
    }
    pub(crate) fn nest(&mut self, ty: u16, inner: &AttrWriter) -> &mut Self {
        self.bytes(ty | NLA_F_NESTED, &inner.buf)
    }
    /// A nest whose attributes `inner` writes in place: no writer of its own to copy
    /// from. Its length is set once they are written (each is padded already).
    pub(crate) fn nest_with(&mut self, ty: u16, inner: impl FnOnce(&mut Self)) -> &mut Self {
        let start = self.buf.len();
        self.buf.extend_from_slice(&[0; NLA_HDRLEN]);
        inner(self);
        // As in `put`: requests here are a few bytes, far below u16::MAX.
        let len = u16::try_from(self.buf.len() - start).unwrap_or(u16::MAX);
        self.buf[start..start + 2].copy_from_slice(&len.to_ne_bytes());
        self.buf[start + 2..start + 4].copy_from_slice(&(ty | NLA_F_NESTED).to_ne_bytes());
        self
    }
    pub(crate) fn finish(&self) -> Vec<u8> {
        self.buf.clone()
    }
    /// The bytes, without the copy [`Self::finish`] makes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nested_flag_padding_and_unknown() {
        let mut inner = AttrWriter::new();
        inner.u8(1, 7);
        let mut w = AttrWriter::new();
        w.nest(2, &inner).u32(99, 5).string(3, "ab");
        let b = w.finish();
        // nest: len 4+8=12; u8 attr inside: len 5 padded to 8.
        assert_eq!(b.len(), 12 + 8 + 8);
        let a = attrs(&b).unwrap();
        assert_eq!(a.len(), 3);
        assert!(a[0].nested && a[0].ty == 2);
        assert_eq!(attrs(a[0].payload).unwrap()[0].payload, &[7]);
        assert_eq!((a[1].ty, u32_of(a[1].payload)), (99, Some(5)));
        assert_eq!(string_of(a[2].payload), "ab");
    }

    #[test]
    fn nest_with_writes_what_nest_copies() {
        let mut inner = AttrWriter::new();
        inner.u32(1, 7).string(2, "v0");
        let mut copied = AttrWriter::new();
        copied.nest(1, &inner).u8(3, 1);
        let mut in_place = AttrWriter::new();
        in_place
            .nest_with(1, |w| {
                w.u32(1, 7).string(2, "v0");
            })
            .u8(3, 1);
        assert_eq!(in_place.into_bytes(), copied.finish());
        // Header 4 + u32 attribute 8 + "v0\0" attribute 7 padded to 8 = 20, NLA_F_NESTED set.
        let b = copied.finish();
        assert_eq!((u16::from_ne_bytes([b[0], b[1]]), u16::from_ne_bytes([b[2], b[3]])), (20, 1 | NLA_F_NESTED));
    }

    #[test]
    fn truncated_input_is_an_error_not_a_panic() {
        assert!(attrs(&[8, 0, 1]).is_err());
        assert!(attrs(&[200, 0, 1, 0, 0, 0, 0, 0]).is_err());
        assert!(attrs(&[2, 0, 1, 0]).is_err());
        // An unpadded last attribute is accepted.
        assert_eq!(attrs(&[5, 0, 1, 0, 9]).unwrap()[0].payload, &[9]);
    }

    #[test]
    fn uint_is_4_or_8_bytes() {
        assert_eq!(uint_of(&7u32.to_ne_bytes()), Some(7));
        assert_eq!(uint_of(&(1u64 << 40).to_ne_bytes()), Some(1 << 40));
        assert_eq!(uint_of(&[1, 2]), None);
        assert_eq!(u64_array(&[0; 7]), None);
        assert_eq!(u64_array(&[]), Some(vec![]));
    }
}
