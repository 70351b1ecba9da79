//! ethtool generic-netlink uAPI numbers.
//!
//! From include/uapi/linux/ethtool_netlink_generated.h, Linux 6.18 (checked against the
//! running 6.18.44 kernel's BTF, see shared/reference/kernel-uapi.md §1-§5), and
//! include/uapi/linux/genetlink.h / netlink.h for the controller.
//! Request and reply command numbers differ (a FEC_GET request gets FEC_GET_REPLY).

/// `NETLINK_GENERIC` controller family id (fixed).
pub const GENL_ID_CTRL: u16 = 0x10;
pub const CTRL_CMD_GETFAMILY: u8 = 3;
pub const CTRL_ATTR_FAMILY_ID: u16 = 1;
pub const CTRL_ATTR_FAMILY_NAME: u16 = 2;
pub const CTRL_ATTR_OPS: u16 = 6;
pub const CTRL_ATTR_OP_ID: u16 = 1;

// `nlmsghdr` flags, include/uapi/linux/netlink.h.
pub const NLM_F_REQUEST: u16 = 0x1;
pub const NLM_F_ACK: u16 = 0x4;
/// `NLM_F_ROOT | NLM_F_MATCH`.
pub const NLM_F_DUMP: u16 = 0x300;
/// Part of a multipart reply (set on a dump's messages and its `NLMSG_DONE`).
pub const NLM_F_MULTI: u16 = 0x2;
/// On `NLMSG_ERROR`: the request's payload is not echoed, only its header.
pub const NLM_F_CAPPED: u16 = 0x100;
/// On `NLMSG_ERROR` / `NLMSG_DONE`: extended-ACK attributes follow.
pub const NLM_F_ACK_TLVS: u16 = 0x200;
// Message types, include/uapi/linux/netlink.h.
pub const NLMSG_ERROR: u16 = 0x2;
pub const NLMSG_DONE: u16 = 0x3;

pub const ETHTOOL_GENL_NAME: &str = "ethtool";
pub const ETHTOOL_GENL_VERSION: u8 = 1;

// enum ethtool_msg_user_types (requests).
pub const ETHTOOL_MSG_STRSET_GET: u8 = 1;
pub const ETHTOOL_MSG_LINKMODES_GET: u8 = 4;
pub const ETHTOOL_MSG_LINKSTATE_GET: u8 = 6;
pub const ETHTOOL_MSG_RINGS_GET: u8 = 15;
pub const ETHTOOL_MSG_CHANNELS_GET: u8 = 17;
pub const ETHTOOL_MSG_PAUSE_GET: u8 = 21;
pub const ETHTOOL_MSG_FEC_GET: u8 = 29;
pub const ETHTOOL_MSG_MODULE_EEPROM_GET: u8 = 31;

// enum ethtool_msg_kernel_types (replies).
pub const ETHTOOL_MSG_STRSET_GET_REPLY: u8 = 1;
pub const ETHTOOL_MSG_LINKMODES_GET_REPLY: u8 = 4;
pub const ETHTOOL_MSG_LINKSTATE_GET_REPLY: u8 = 6;
pub const ETHTOOL_MSG_RINGS_GET_REPLY: u8 = 16;
pub const ETHTOOL_MSG_CHANNELS_GET_REPLY: u8 = 18;
pub const ETHTOOL_MSG_PAUSE_GET_REPLY: u8 = 22;
pub const ETHTOOL_MSG_FEC_GET_REPLY: u8 = 30;
pub const ETHTOOL_MSG_MODULE_EEPROM_GET_REPLY: u8 = 32;

// ETHTOOL_A_HEADER_* (attribute 1 of every request used here).
pub const ETHTOOL_A_HEADER_DEV_INDEX: u16 = 1;
pub const ETHTOOL_A_HEADER_DEV_NAME: u16 = 2;
pub const ETHTOOL_A_HEADER_FLAGS: u16 = 3;

// enum ethtool_header_flags.
pub const ETHTOOL_FLAG_COMPACT_BITSETS: u32 = 1 << 0;
pub const ETHTOOL_FLAG_STATS: u32 = 1 << 2;

// ETHTOOL_A_BITSET_*.
pub const ETHTOOL_A_BITSET_SIZE: u16 = 2;
pub const ETHTOOL_A_BITSET_VALUE: u16 = 4;
pub const ETHTOOL_A_BITSET_MASK: u16 = 5;

// ETHTOOL_A_STRSET_* / STRINGSETS / STRINGSET / STRINGS / STRING.
pub const ETHTOOL_A_STRSET_HEADER: u16 = 1;
pub const ETHTOOL_A_STRSET_STRINGSETS: u16 = 2;
pub const ETHTOOL_A_STRINGSETS_STRINGSET: u16 = 1;
pub const ETHTOOL_A_STRINGSET_ID: u16 = 1;
pub const ETHTOOL_A_STRINGSET_STRINGS: u16 = 3;
pub const ETHTOOL_A_STRINGS_STRING: u16 = 1;
pub const ETHTOOL_A_STRING_INDEX: u16 = 1;
pub const ETHTOOL_A_STRING_VALUE: u16 = 2;
/// `enum ethtool_stringset` ETH_SS_LINK_MODES.
pub const ETH_SS_LINK_MODES: u32 = 9;

// ETHTOOL_A_LINKMODES_*.
pub const ETHTOOL_A_LINKMODES_HEADER: u16 = 1;
pub const ETHTOOL_A_LINKMODES_OURS: u16 = 3;
pub const ETHTOOL_A_LINKMODES_SPEED: u16 = 5;
pub const ETHTOOL_A_LINKMODES_DUPLEX: u16 = 6;
/// Linux 5.12+; emitted only when non-zero.
pub const ETHTOOL_A_LINKMODES_LANES: u16 = 9;
/// `SPEED_UNKNOWN` (-1 as u32).
pub const SPEED_UNKNOWN: u32 = 0xFFFF_FFFF;

// ETHTOOL_A_LINKSTATE_*.
pub const ETHTOOL_A_LINKSTATE_HEADER: u16 = 1;
pub const ETHTOOL_A_LINKSTATE_LINK: u16 = 2;
pub const ETHTOOL_A_LINKSTATE_EXT_STATE: u16 = 5;
pub const ETHTOOL_A_LINKSTATE_EXT_SUBSTATE: u16 = 6;
/// Linux 6.2+; u32 on the wire (an older doc said u64): accept 4 or 8 bytes.
pub const ETHTOOL_A_LINKSTATE_EXT_DOWN_CNT: u16 = 7;

// ETHTOOL_A_FEC_*.
pub const ETHTOOL_A_FEC_HEADER: u16 = 1;
pub const ETHTOOL_A_FEC_ACTIVE: u16 = 4;
pub const ETHTOOL_A_FEC_STATS: u16 = 5;
// ETHTOOL_A_FEC_STAT_*: binary arrays of u64, element 0 = total, 1.. = lanes.
pub const ETHTOOL_A_FEC_STAT_PAD: u16 = 1;
pub const ETHTOOL_A_FEC_STAT_CORRECTED: u16 = 2;
pub const ETHTOOL_A_FEC_STAT_UNCORR: u16 = 3;
pub const ETHTOOL_A_FEC_STAT_CORR_BITS: u16 = 4;
/// Linux 6.18: repeated once per histogram bin.
pub const ETHTOOL_A_FEC_STAT_HIST: u16 = 5;
// ETHTOOL_A_FEC_HIST_*.
pub const ETHTOOL_A_FEC_HIST_PAD: u16 = 1;
pub const ETHTOOL_A_FEC_HIST_BIN_LOW: u16 = 2;
pub const ETHTOOL_A_FEC_HIST_BIN_HIGH: u16 = 3;
pub const ETHTOOL_A_FEC_HIST_BIN_VAL: u16 = 4;
pub const ETHTOOL_A_FEC_HIST_BIN_VAL_PER_LANE: u16 = 5;

// ETHTOOL_A_RINGS_* (u32 each; later attributes, e.g. RX_BUF_LEN 10, are not read).
pub const ETHTOOL_A_RINGS_HEADER: u16 = 1;
pub const ETHTOOL_A_RINGS_RX_MAX: u16 = 2;
pub const ETHTOOL_A_RINGS_TX_MAX: u16 = 5;
pub const ETHTOOL_A_RINGS_RX: u16 = 6;
pub const ETHTOOL_A_RINGS_TX: u16 = 9;

// ETHTOOL_A_CHANNELS_* (u32 each).
pub const ETHTOOL_A_CHANNELS_HEADER: u16 = 1;
pub const ETHTOOL_A_CHANNELS_RX_MAX: u16 = 2;
pub const ETHTOOL_A_CHANNELS_TX_MAX: u16 = 3;
pub const ETHTOOL_A_CHANNELS_OTHER_MAX: u16 = 4;
pub const ETHTOOL_A_CHANNELS_COMBINED_MAX: u16 = 5;
pub const ETHTOOL_A_CHANNELS_RX_COUNT: u16 = 6;
pub const ETHTOOL_A_CHANNELS_TX_COUNT: u16 = 7;
pub const ETHTOOL_A_CHANNELS_OTHER_COUNT: u16 = 8;
pub const ETHTOOL_A_CHANNELS_COMBINED_COUNT: u16 = 9;

// ETHTOOL_A_PAUSE_* (AUTONEG, RX, TX are u8 flags) and ETHTOOL_A_PAUSE_STAT_* (u64; PAD 1).
pub const ETHTOOL_A_PAUSE_HEADER: u16 = 1;
pub const ETHTOOL_A_PAUSE_AUTONEG: u16 = 2;
pub const ETHTOOL_A_PAUSE_RX: u16 = 3;
pub const ETHTOOL_A_PAUSE_TX: u16 = 4;
pub const ETHTOOL_A_PAUSE_STATS: u16 = 5;
pub const ETHTOOL_A_PAUSE_STAT_TX_FRAMES: u16 = 2;
pub const ETHTOOL_A_PAUSE_STAT_RX_FRAMES: u16 = 3;

// ETHTOOL_A_MODULE_EEPROM_*.
pub const ETHTOOL_A_MODULE_EEPROM_HEADER: u16 = 1;
pub const ETHTOOL_A_MODULE_EEPROM_OFFSET: u16 = 2;
pub const ETHTOOL_A_MODULE_EEPROM_LENGTH: u16 = 3;
pub const ETHTOOL_A_MODULE_EEPROM_PAGE: u16 = 4;
pub const ETHTOOL_A_MODULE_EEPROM_BANK: u16 = 5;
pub const ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS: u16 = 6;
pub const ETHTOOL_A_MODULE_EEPROM_DATA: u16 = 7;

/// `NLA_F_NESTED`: masked off the type when parsing, set on nests we emit.
pub const NLA_F_NESTED: u16 = 0x8000;
/// `NLA_F_NET_BYTEORDER`: also masked off the type.
pub const NLA_F_NET_BYTEORDER: u16 = 0x4000;
