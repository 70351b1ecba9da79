//! Resolving the `ethtool` genl family; its op list is the feature detection
//! (kernel-uapi.md §1.1, §1.4): an op missing from `CTRL_ATTR_OPS` is a kernel too old
//! for it (FEC_GET / MODULE_EEPROM_GET arrived in 5.13, the family itself in 5.6).

use super::consts::*;
use super::parse::{attrs, u16_of, u32_of, AttrWriter, WireError};
use super::{malformed, Netlink};
use crate::source::Result;
use std::collections::BTreeSet;

/// The dynamic family id and the commands the kernel implements.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Family {
    /// The generic netlink family id the kernel gave `ethtool`.
    pub id: u16,
    /// The command numbers it implements (`CTRL_ATTR_OPS`).
    pub ops: BTreeSet<u8>,
}

impl Family {
    /// True when the kernel implements command `cmd`.
    pub fn has_op(&self, cmd: u8) -> bool {
        self.ops.contains(&cmd)
    }

    /// The ops as a bitset, for checks made several times a sample (a `BTreeSet` lookup
    /// costs a tree walk each time).
    pub(crate) fn op_set(&self) -> OpSet {
        let mut bits = [0u64; 4];
        for &cmd in &self.ops {
            bits[usize::from(cmd / 64)] |= 1 << (cmd % 64);
        }
        OpSet(bits)
    }
}

/// A set of genl command numbers (u8 on the wire of `genlmsghdr`), one bit each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct OpSet([u64; 4]);

impl OpSet {
    pub(crate) fn contains(&self, cmd: u8) -> bool {
        self.0[usize::from(cmd / 64)] & (1 << (cmd % 64)) != 0
    }
}

/// `CTRL_CMD_GETFAMILY` attributes: the NUL-terminated family name.
pub fn request_attrs(name: &str) -> Vec<u8> {
    AttrWriter::new().string(CTRL_ATTR_FAMILY_NAME, name).finish()
}

/// Decodes a GETFAMILY reply: FAMILY_ID (u16) and OPS {n: {OP_ID u32, OP_FLAGS u32}}.
pub fn parse_reply(buf: &[u8]) -> std::result::Result<Family, WireError> {
    let mut id = None;
    let mut ops = BTreeSet::new();
    for a in attrs(buf)? {
        match a.ty {
            CTRL_ATTR_FAMILY_ID => id = u16_of(a.payload),
            CTRL_ATTR_OPS => {
                for op in attrs(a.payload)? {
                    for f in attrs(op.payload)? {
                        // Command numbers are u8 on the wire of genlmsghdr.
                        if let Some(cmd) = (f.ty == CTRL_ATTR_OP_ID).then(|| u32_of(f.payload)).flatten() {
                            ops.insert(u8::try_from(cmd).unwrap_or(u8::MAX));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // A reply naming the family always carries its id; its absence is a broken reply.
    Ok(Family { id: id.ok_or(WireError::Missing("CTRL_ATTR_FAMILY_ID"))?, ops })
}

impl Netlink {
    /// The `ethtool` family, or `None` when the kernel has none (before 5.6, or
    /// CONFIG_ETHTOOL_NETLINK off): the controller answers ENOENT.
    pub fn ethtool_family(&mut self) -> Result<Option<Family>> {
        let what = "resolving genl family ethtool";
        match self.do_one(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, &request_attrs(ETHTOOL_GENL_NAME), what, None) {
            Ok(reply) => parse_reply(&reply).map(Some).map_err(|d| malformed(what, d)),
            Err(e) if e.errno() == Some(libc::ENOENT) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_set_holds_exactly_the_ops() {
        // Both ends of each 64-bit word, and the last command number.
        let ops: BTreeSet<u8> = [0, 29, 31, 63, 64, 127, 128, 255].into();
        let set = Family { id: 0x15, ops: ops.clone() }.op_set();
        for cmd in 0..=u8::MAX {
            assert_eq!(set.contains(cmd), ops.contains(&cmd), "command {cmd}");
        }
    }
}
