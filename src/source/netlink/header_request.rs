//! Requests whose attributes are a device header alone (FEC_GET, LINKSTATE_GET), with
//! `ETHTOOL_FLAG_STATS`. Every sample asks the same device, so the attributes built for
//! the last such request are kept with what they were built for and sent again as they
//! are: building them cost an allocation and ~700 instructions per sample.

use super::consts::ETHTOOL_FLAG_STATS;
use super::parse::AttrWriter;
use super::{Dev, Netlink};
use crate::source::Result;

/// The attributes of the last header-only request and the header they hold.
pub(super) struct HeaderAttrs {
    ty: u16,
    flags: u32,
    ifindex: Option<u32>,
    name: String,
    bytes: Vec<u8>,
}

/// A request's attributes: `dev`'s header nest `ty` (kernel-uapi.md §1.3) alone.
pub(crate) fn header_only(dev: &Dev, ty: u16, flags: u32) -> Vec<u8> {
    let mut w = AttrWriter::new();
    dev.header_in(&mut w, ty, flags);
    w.into_bytes()
}

impl Netlink {
    /// A do request of `dev`'s header nest `ty` with `ETHTOOL_FLAG_STATS`, asked again
    /// without it when the header policy rejects the flag (EINVAL "reserved bit set":
    /// kernels before 5.10, or an op that gained stats later, e.g. LINKSTATE_GET in 6.2).
    pub(crate) fn do_with_stats(&mut self, family: u16, cmd: u8, ty: u16, what: &str, dev: &Dev) -> Result<Vec<u8>> {
        match self.do_header_only(family, cmd, ty, ETHTOOL_FLAG_STATS, what, dev) {
            Err(e) if e.errno() == Some(libc::EINVAL) => self.do_header_only(family, cmd, ty, 0, what, dev),
            r => r,
        }
    }

    fn do_header_only(&mut self, family: u16, cmd: u8, ty: u16, flags: u32, what: &str, dev: &Dev) -> Result<Vec<u8>> {
        let attrs = HeaderAttrs::reuse(self.header_attrs.take(), dev, ty, flags);
        let r = self.do_one(family, cmd, &attrs.bytes, what, Some(dev));
        self.header_attrs = Some(attrs);
        r
    }
}

impl HeaderAttrs {
    /// `last` if it was built for this header, else the attributes built afresh.
    fn reuse(last: Option<HeaderAttrs>, dev: &Dev, ty: u16, flags: u32) -> HeaderAttrs {
        match last {
            Some(h) if h.ty == ty && h.flags == flags && h.ifindex == dev.ifindex && h.name == dev.name => h,
            _ => HeaderAttrs { ty, flags, ifindex: dev.ifindex, name: dev.name.clone(), bytes: header_only(dev, ty, flags) },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kept_attributes_are_those_of_the_header_asked_for() {
        let dev = |name: &str, ifindex| Dev { name: name.into(), ifindex: Some(ifindex), driver: None };
        let first = HeaderAttrs::reuse(None, &dev("eth0", 4), 1, ETHTOOL_FLAG_STATS);
        let kept = first.bytes.as_ptr();
        let again = HeaderAttrs::reuse(Some(first), &dev("eth0", 4), 1, ETHTOOL_FLAG_STATS);
        assert_eq!(again.bytes.as_ptr(), kept, "the same header is not built again");
        // Another device under the name (a rename swap), another name, flags or nest type:
        // built for it, as a fresh build would be.
        let mut last = Some(again);
        for (d, ty, flags) in [
            (dev("eth0", 9), 1, ETHTOOL_FLAG_STATS),
            (dev("eth1", 9), 1, ETHTOOL_FLAG_STATS),
            (dev("eth1", 9), 1, 0),
            (dev("eth1", 9), 2, 0),
        ] {
            let h = HeaderAttrs::reuse(last.take(), &d, ty, flags);
            assert_eq!(h.bytes, header_only(&d, ty, flags), "{d:?} {ty} {flags}");
            last = Some(h);
        }
    }
}
