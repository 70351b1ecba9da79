//! ethtool generic-netlink uAPI numbers.
//!
//! From include/uapi/linux/ethtool_netlink_generated.h, Linux 6.18 (checked against the
//! running 6.18.44 kernel's BTF, see shared/reference/kernel-uapi.md §1-§5), and
//! include/uapi/linux/genetlink.h / netlink.h for the controller.
//! Request and reply command numbers differ (a FEC_GET request gets FEC_GET_REPLY).

/// `NETLINK_GENERIC` controller family id (fixed).
pub(crate) const GENL_ID_CTRL: u16 = 0x10;
pub(crate) const CTRL_CMD_GETFAMILY: u8 = 3;
pub(crate) const CTRL_ATTR_FAMILY_ID: u16 = 1;
pub(crate) const CTRL_ATTR_FAMILY_NAME: u16 = 2;
pub(crate) const CTRL_ATTR_OPS: u16 = 6;
pub(crate) const CTRL_ATTR_OP_ID: u16 = 1;

// `nlmsghdr` flags, include/uapi/linux/netlink.h.
pub(crate) const NLM_F_REQUEST: u16 = 0x1;
/// Request an acknowledgement (`NLMSG_ERROR` with error 0).
pub const NLM_F_ACK: u16 = 0x4;
/// `NLM_F_ROOT | NLM_F_MATCH`.
pub(crate) const NLM_F_DUMP: u16 = 0x300;
/// Part of a multipart reply (set on a dump's messages and its `NLMSG_DONE`).
pub(crate) const NLM_F_MULTI: u16 = 0x2;
/// On `NLMSG_ERROR`: the request's payload is not echoed, only its header.
pub(crate) const NLM_F_CAPPED: u16 = 0x100;
/// On `NLMSG_ERROR` / `NLMSG_DONE`: extended-ACK attributes follow.
#[cfg(test)]
pub(crate) const NLM_F_ACK_TLVS: u16 = 0x200;
// Message types, include/uapi/linux/netlink.h.
pub(crate) const NLMSG_ERROR: u16 = 0x2;
pub(crate) const NLMSG_DONE: u16 = 0x3;

pub(crate) const ETHTOOL_GENL_NAME: &str = "ethtool";
pub(crate) const ETHTOOL_GENL_VERSION: u8 = 1;

// enum ethtool_msg_user_types (requests).
pub(crate) const ETHTOOL_MSG_STRSET_GET: u8 = 1;
pub(crate) const ETHTOOL_MSG_LINKMODES_GET: u8 = 4;
/// `ETHTOOL_MSG_LINKSTATE_GET`.
pub const ETHTOOL_MSG_LINKSTATE_GET: u8 = 6;
pub(crate) const ETHTOOL_MSG_RINGS_GET: u8 = 15;
pub(crate) const ETHTOOL_MSG_CHANNELS_GET: u8 = 17;
pub(crate) const ETHTOOL_MSG_PAUSE_GET: u8 = 21;
/// `ETHTOOL_MSG_FEC_GET`.
pub const ETHTOOL_MSG_FEC_GET: u8 = 29;
pub(crate) const ETHTOOL_MSG_MODULE_EEPROM_GET: u8 = 31;

// ETHTOOL_A_HEADER_* (attribute 1 of every request used here).
pub(crate) const ETHTOOL_A_HEADER_DEV_INDEX: u16 = 1;
pub(crate) const ETHTOOL_A_HEADER_DEV_NAME: u16 = 2;
pub(crate) const ETHTOOL_A_HEADER_FLAGS: u16 = 3;

// enum ethtool_header_flags.
pub(crate) const ETHTOOL_FLAG_COMPACT_BITSETS: u32 = 1 << 0;
pub(crate) const ETHTOOL_FLAG_STATS: u32 = 1 << 2;

// ETHTOOL_A_BITSET_*.
pub(crate) const ETHTOOL_A_BITSET_VALUE: u16 = 4;
pub(crate) const ETHTOOL_A_BITSET_MASK: u16 = 5;

// ETHTOOL_A_STRSET_* / STRINGSETS / STRINGSET / STRINGS / STRING.
pub(crate) const ETHTOOL_A_STRSET_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_STRSET_STRINGSETS: u16 = 2;
pub(crate) const ETHTOOL_A_STRINGSETS_STRINGSET: u16 = 1;
pub(crate) const ETHTOOL_A_STRINGSET_ID: u16 = 1;
pub(crate) const ETHTOOL_A_STRINGSET_STRINGS: u16 = 3;
pub(crate) const ETHTOOL_A_STRINGS_STRING: u16 = 1;
pub(crate) const ETHTOOL_A_STRING_INDEX: u16 = 1;
pub(crate) const ETHTOOL_A_STRING_VALUE: u16 = 2;
/// `enum ethtool_stringset` ETH_SS_LINK_MODES.
pub(crate) const ETH_SS_LINK_MODES: u32 = 9;

// ETHTOOL_A_LINKMODES_*.
pub(crate) const ETHTOOL_A_LINKMODES_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_LINKMODES_OURS: u16 = 3;
pub(crate) const ETHTOOL_A_LINKMODES_SPEED: u16 = 5;
pub(crate) const ETHTOOL_A_LINKMODES_DUPLEX: u16 = 6;
/// Linux 5.12+; emitted only when non-zero.
pub(crate) const ETHTOOL_A_LINKMODES_LANES: u16 = 9;
/// `SPEED_UNKNOWN` (-1 as u32).
pub(crate) const SPEED_UNKNOWN: u32 = 0xFFFF_FFFF;

// ETHTOOL_A_LINKSTATE_*.
pub(crate) const ETHTOOL_A_LINKSTATE_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_LINKSTATE_LINK: u16 = 2;
pub(crate) const ETHTOOL_A_LINKSTATE_EXT_STATE: u16 = 5;
pub(crate) const ETHTOOL_A_LINKSTATE_EXT_SUBSTATE: u16 = 6;
/// Linux 6.2+; u32 on the wire (an older doc said u64): accept 4 or 8 bytes.
pub(crate) const ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT: u16 = 7;

// ETHTOOL_A_FEC_*.
pub(crate) const ETHTOOL_A_FEC_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_FEC_ACTIVE: u16 = 4;
pub(crate) const ETHTOOL_A_FEC_STATS: u16 = 5;
// ETHTOOL_A_FEC_STAT_*: binary arrays of u64, element 0 = total, 1.. = lanes.
pub(crate) const ETHTOOL_A_FEC_STAT_CORRECTED: u16 = 2;
pub(crate) const ETHTOOL_A_FEC_STAT_UNCORR: u16 = 3;
pub(crate) const ETHTOOL_A_FEC_STAT_CORR_BITS: u16 = 4;
/// Linux 6.18: repeated once per histogram bin.
pub(crate) const ETHTOOL_A_FEC_STAT_HIST: u16 = 5;
// ETHTOOL_A_FEC_HIST_*.
pub(crate) const ETHTOOL_A_FEC_HIST_BIN_LOW: u16 = 2;
pub(crate) const ETHTOOL_A_FEC_HIST_BIN_HIGH: u16 = 3;
pub(crate) const ETHTOOL_A_FEC_HIST_BIN_VAL: u16 = 4;
pub(crate) const ETHTOOL_A_FEC_HIST_BIN_VAL_PER_LANE: u16 = 5;

// ETHTOOL_A_RINGS_* (u32 each; later attributes, e.g. RX_BUF_LEN 10, are not read).
pub(crate) const ETHTOOL_A_RINGS_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_RINGS_RX_MAX: u16 = 2;
pub(crate) const ETHTOOL_A_RINGS_TX_MAX: u16 = 5;
pub(crate) const ETHTOOL_A_RINGS_RX: u16 = 6;
pub(crate) const ETHTOOL_A_RINGS_TX: u16 = 9;

// ETHTOOL_A_CHANNELS_* (u32 each).
pub(crate) const ETHTOOL_A_CHANNELS_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_CHANNELS_RX_MAX: u16 = 2;
pub(crate) const ETHTOOL_A_CHANNELS_TX_MAX: u16 = 3;
pub(crate) const ETHTOOL_A_CHANNELS_OTHER_MAX: u16 = 4;
pub(crate) const ETHTOOL_A_CHANNELS_COMBINED_MAX: u16 = 5;
pub(crate) const ETHTOOL_A_CHANNELS_RX_COUNT: u16 = 6;
pub(crate) const ETHTOOL_A_CHANNELS_TX_COUNT: u16 = 7;
pub(crate) const ETHTOOL_A_CHANNELS_OTHER_COUNT: u16 = 8;
pub(crate) const ETHTOOL_A_CHANNELS_COMBINED_COUNT: u16 = 9;

// ETHTOOL_A_PAUSE_* (AUTONEG, RX, TX are u8 flags) and ETHTOOL_A_PAUSE_STAT_* (u64; PAD 1).
pub(crate) const ETHTOOL_A_PAUSE_HEADER: u16 = 1;
#[cfg(test)]
pub(crate) const ETHTOOL_A_PAUSE_AUTONEG: u16 = 2;
#[cfg(test)]
pub(crate) const ETHTOOL_A_PAUSE_RX: u16 = 3;
#[cfg(test)]
pub(crate) const ETHTOOL_A_PAUSE_TX: u16 = 4;
pub(crate) const ETHTOOL_A_PAUSE_STATS: u16 = 5;
pub(crate) const ETHTOOL_A_PAUSE_STAT_TX_FRAMES: u16 = 2;
pub(crate) const ETHTOOL_A_PAUSE_STAT_RX_FRAMES: u16 = 3;

// ETHTOOL_A_MODULE_EEPROM_*.
pub(crate) const ETHTOOL_A_MODULE_EEPROM_HEADER: u16 = 1;
pub(crate) const ETHTOOL_A_MODULE_EEPROM_OFFSET: u16 = 2;
pub(crate) const ETHTOOL_A_MODULE_EEPROM_LENGTH: u16 = 3;
pub(crate) const ETHTOOL_A_MODULE_EEPROM_PAGE: u16 = 4;
pub(crate) const ETHTOOL_A_MODULE_EEPROM_BANK: u16 = 5;
pub(crate) const ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS: u16 = 6;
pub(crate) const ETHTOOL_A_MODULE_EEPROM_DATA: u16 = 7;

/// `NLA_F_NESTED`: masked off the type when parsing, set on nests we emit.
pub(crate) const NLA_F_NESTED: u16 = 0x8000;
/// `NLA_F_NET_BYTEORDER`: also masked off the type.
pub(crate) const NLA_F_NET_BYTEORDER: u16 = 0x4000;
