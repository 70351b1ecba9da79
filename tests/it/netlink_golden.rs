//! Golden bytes for the ethtool netlink codec: hand-written reply attributes (annotated
//! one attribute per line, layout `struct nlattr {u16 len; u16 type}` + payload padded
//! to 4, integers host-endian = little-endian here) fed to the reply decoders without a
//! socket, and the exact attribute bytes the request builders emit.
//! Encodings: kernel-uapi.md §1.4 (uint 4/8 bytes, PAD, NLA_F_NESTED), §2-§5.
#![cfg(target_endian = "little")]

use optics::counters::{FecHistogramBin, LinkState};
use optics::module::PageRequest;
use optics::source::netlink::consts::NLM_F_ACK;
use optics::source::netlink::linkmodes::{active_mode_name, LinkModes};
use optics::source::netlink::{eeprom, family, fec, linkmodes, linkstate, request_flags, Dev};
use proptest::prelude::*;

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// Reply header nest as the kernel sends it: {DEV_INDEX 3, DEV_NAME "eth0"}.
const HEADER: &[u8] = &[
    0x18, 0x00, 0x01, 0x80, // HEADER(1) | NLA_F_NESTED, len 24
    0x08, 0x00, 0x01, 0x00, 0x03, 0x00, 0x00, 0x00, //   DEV_INDEX(1) u32 3
    0x09, 0x00, 0x02, 0x00, b'e', b't', b'h', b'0', 0x00, 0, 0, 0, //   DEV_NAME(2) "eth0\0" + 3 pad
];

fn fec_reply() -> Vec<u8> {
    cat(&[
        HEADER,
        &[0x08, 0x00, 0x04, 0x00, 0x32, 0x00, 0x00, 0x00], // ACTIVE(4) u32 50 = link-mode bit FEC_RS
        &[0xcc, 0x00, 0x05, 0x80],                         // STATS(5) nest, len 4 + 200 = 204
        &[0x04, 0x00, 0x01, 0x00],                         //   STAT_PAD(1), empty
        // CORRECTED(2) u64[5], len 4 + 40 = 44: total 1000 = 0x3e8, lanes 100, 200, 300 = 0x12c, 400 = 0x190
        &[0x2c, 0x00, 0x02, 0x00],
        &[0xe8, 0x03, 0, 0, 0, 0, 0, 0],
        &[0x64, 0, 0, 0, 0, 0, 0, 0],
        &[0xc8, 0, 0, 0, 0, 0, 0, 0],
        &[0x2c, 0x01, 0, 0, 0, 0, 0, 0],
        &[0x90, 0x01, 0, 0, 0, 0, 0, 0],
        &[0x04, 0x00, 0x03, 0x00],                               //   UNCORR(3), 0 bytes = driver does not report it
        &[0x0c, 0x00, 0x04, 0x00, 0x88, 0x13, 0, 0, 0, 0, 0, 0], //   CORR_BITS(4) u64[1]: total 5000 = 0x1388
        &[0x08, 0x00, 0x09, 0x00, 0xde, 0xad, 0xbe, 0xef],       //   type 9: unknown (a newer kernel), skipped
        // HIST(5) bin 1, len 4 + 60 = 64: codewords with 0 symbol errors, per lane.
        &[0x40, 0x00, 0x05, 0x80],
        &[0x08, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00], //     BIN_LOW(2) u32 0
        &[0x08, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00], //     BIN_HIGH(3) u32 0
        &[0x08, 0x00, 0x04, 0x00, 0x40, 0xe2, 0x01, 0x00], //     BIN_VAL(4) uint, 4 bytes: 0x0001e240 = 123456
        // BIN_VAL_PER_LANE(5) u64[4], len 36: 30000 = 0x7530 x3, 33456 = 0x82b0 (sum 123456)
        &[0x24, 0x00, 0x05, 0x00],
        &[0x30, 0x75, 0, 0, 0, 0, 0, 0],
        &[0x30, 0x75, 0, 0, 0, 0, 0, 0],
        &[0x30, 0x75, 0, 0, 0, 0, 0, 0],
        &[0xb0, 0x82, 0, 0, 0, 0, 0, 0],
        // HIST(5) bin 2, len 4 + 32 = 36: 1-3 symbol errors, 8-byte value.
        &[0x24, 0x00, 0x05, 0x80],
        &[0x04, 0x00, 0x01, 0x00],                               //     HIST_PAD(1)
        &[0x08, 0x00, 0x02, 0x00, 0x01, 0x00, 0x00, 0x00],       //     BIN_LOW 1
        &[0x08, 0x00, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00],       //     BIN_HIGH 3
        &[0x0c, 0x00, 0x04, 0x00, 0x00, 0, 0, 0, 0x01, 0, 0, 0], //     BIN_VAL uint, 8 bytes: 1 << 32
        // HIST(5) bin 3, len 4 + 24 = 28: 4-7 symbol errors.
        &[0x1c, 0x00, 0x05, 0x80],
        &[0x08, 0x00, 0x02, 0x00, 0x04, 0x00, 0x00, 0x00], //     BIN_LOW 4
        &[0x08, 0x00, 0x03, 0x00, 0x07, 0x00, 0x00, 0x00], //     BIN_HIGH 7
        &[0x08, 0x00, 0x04, 0x00, 0x05, 0x00, 0x00, 0x00], //     BIN_VAL uint, 4 bytes: 5
    ])
}

#[test]
fn fec_stats_with_lanes_empty_arrays_and_histogram() {
    let r = fec::parse_reply(&fec_reply()).unwrap();
    assert_eq!(r.active.as_deref(), Some("RS"));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let s = r.stats.unwrap();
    assert_eq!(s.corrected_blocks, vec![1000, 100, 200, 300, 400]);
    assert_eq!(s.uncorrectable_blocks, Vec::<u64>::new());
    assert_eq!(s.corrected_bits, vec![5000]);
    assert_eq!(
        s.histogram,
        vec![
            FecHistogramBin { low: 0, high: 0, count: 123_456, per_lane: vec![30_000, 30_000, 30_000, 33_456] },
            FecHistogramBin { low: 1, high: 3, count: 1 << 32, per_lane: vec![] },
            FecHistogramBin { low: 4, high: 7, count: 5, per_lane: vec![] },
        ]
    );
}

#[test]
fn fec_without_stats_nest_or_active() {
    // A driver without get_fec_stats and no active mode: header only.
    let r = fec::parse_reply(HEADER).unwrap();
    assert_eq!((r.active, r.stats), (None, None));
    // LLRS is bit 74 = 0x4a.
    let r = fec::parse_reply(&cat(&[HEADER, &[0x08, 0x00, 0x04, 0x00, 0x4a, 0, 0, 0]])).unwrap();
    assert_eq!(r.active.as_deref(), Some("LLRS"));
}

#[test]
fn fec_odd_array_is_a_warning_not_a_panic() {
    let reply = cat(&[
        &[0x14, 0x00, 0x05, 0x80],                         // STATS nest, len 20
        &[0x0b, 0x00, 0x02, 0x00, 1, 2, 3, 4, 5, 6, 7, 0], //   CORRECTED with 7 bytes (+1 pad): not u64s
        &[0x04, 0x00, 0x05, 0x80],                         //   HIST with no LOW/HIGH/VAL
    ]);
    let r = fec::parse_reply(&reply).unwrap();
    assert_eq!(r.stats.unwrap().corrected_blocks, Vec::<u64>::new());
    assert_eq!(r.warnings.len(), 2, "{:?}", r.warnings);
}

#[test]
fn linkstate_with_4_and_8_byte_down_count() {
    let four = cat(&[
        HEADER,
        &[0x05, 0x00, 0x02, 0x00, 0x01, 0, 0, 0], // LINK(2) u8 1 + 3 pad
        &[0x08, 0x00, 0x03, 0x00, 0x0a, 0, 0, 0], // SQI(3) u32 10: not decoded, skipped
        &[0x05, 0x00, 0x05, 0x00, 0x03, 0, 0, 0], // EXT_STATE(5) u8 3 = BAD_SIGNAL_INTEGRITY
        &[0x05, 0x00, 0x06, 0x00, 0x01, 0, 0, 0], // EXT_SUBSTATE(6) u8 1 = LARGE_NUMBER_OF_PHYSICAL_ERRORS
        &[0x08, 0x00, 0x07, 0x00, 0x07, 0, 0, 0], // EXT_DOWN_CNT(7) u32 7
    ]);
    assert_eq!(
        linkstate::parse_reply(&four).unwrap(),
        LinkState { up: Some(true), ext_state: Some(3), ext_substate: Some(1), down_events: Some(7) }
    );
    let eight = cat(&[
        &[0x05, 0x00, 0x02, 0x00, 0x00, 0, 0, 0],                // LINK 0
        &[0x0c, 0x00, 0x07, 0x00, 0x02, 0, 0, 0, 0x01, 0, 0, 0], // EXT_DOWN_CNT 8 bytes: (1 << 32) + 2
    ]);
    assert_eq!(
        linkstate::parse_reply(&eight).unwrap(),
        LinkState { up: Some(false), ext_state: None, ext_substate: None, down_events: Some((1 << 32) + 2) }
    );
}

#[test]
fn eeprom_short_data_is_returned_as_is() {
    let reply = cat(&[
        HEADER,
        &[0x07, 0x00, 0x07, 0x00, 0x11, 0x22, 0x33, 0x00], // DATA(7), 3 bytes (128 were asked) + 1 pad
    ]);
    assert_eq!(eeprom::parse_reply(&reply).unwrap(), vec![0x11, 0x22, 0x33]);
    assert!(eeprom::parse_reply(HEADER).is_err());
}

#[test]
fn linkmodes_compact_ours_names_the_mode() {
    let reply = cat(&[
        HEADER,
        &[0x05, 0x00, 0x02, 0x00, 0x00, 0, 0, 0], // AUTONEG(2) u8 0
        &[0x34, 0x00, 0x03, 0x80],                // OURS(3) nest, len 4 + 8 + 20 + 20 = 52
        &[0x08, 0x00, 0x02, 0x00, 0x79, 0, 0, 0], //   BITSET_SIZE(2) 121 bits
        // BITSET_VALUE(4) u32[4], advertised: bit 63 (200000baseSR4) = word 1 bit 31
        &[0x14, 0x00, 0x04, 0x00, 0, 0, 0, 0, 0, 0, 0, 0x80, 0, 0, 0, 0, 0, 0, 0, 0],
        // BITSET_MASK(5) u32[4], supported: bits 62, 63 (word 1 0xc0000000) and 66 (word 2 bit 2)
        &[0x14, 0x00, 0x05, 0x00, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0x04, 0, 0, 0, 0, 0, 0, 0],
        &[0x08, 0x00, 0x05, 0x00, 0x40, 0x0d, 0x03, 0x00], // SPEED(5) u32 0x30d40 = 200000
        &[0x05, 0x00, 0x06, 0x00, 0x01, 0, 0, 0],          // DUPLEX(6) u8 1 = full
        &[0x08, 0x00, 0x09, 0x00, 0x04, 0, 0, 0],          // LANES(9) u32 4
    ]);
    let lm = linkmodes::parse_reply(&reply).unwrap();
    assert_eq!((lm.speed_mbps, lm.lanes, lm.duplex), (Some(200_000), Some(4), Some(1)));
    assert_eq!(lm.advertised, vec![0, 0x8000_0000, 0, 0]);
    assert_eq!(active_mode_name(&lm).as_deref(), Some("200000baseSR4/Full"));

    // Bridge-like: SPEED_UNKNOWN and DUPLEX_UNKNOWN.
    let unknown = cat(&[
        &[0x08, 0x00, 0x05, 0x00, 0xff, 0xff, 0xff, 0xff], // SPEED 0xFFFFFFFF
        &[0x05, 0x00, 0x06, 0x00, 0xff, 0, 0, 0],          // DUPLEX 0xFF
    ]);
    let lm = linkmodes::parse_reply(&unknown).unwrap();
    assert_eq!((lm.speed_mbps, lm.duplex), (None, None));
    assert_eq!(active_mode_name(&lm), None);
}

#[test]
fn link_mode_naming_needs_one_candidate() {
    // 100G over 4 lanes advertising SR4 (37) and CR4 (38): ambiguous.
    let both = LinkModes {
        speed_mbps: Some(100_000),
        lanes: Some(4),
        duplex: Some(1),
        advertised: vec![0, (1 << (37 - 32)) | (1 << (38 - 32))],
        supported: vec![],
    };
    assert_eq!(active_mode_name(&both), None);
    // Lanes unknown (kernels before 5.12, or the ioctl): SR4 alone is the only 100G bit set.
    let sr4 = LinkModes { lanes: None, advertised: vec![0, 1 << (37 - 32)], ..both.clone() };
    assert_eq!(active_mode_name(&sr4).as_deref(), Some("100000baseSR4/Full"));
    // Nothing advertised (forced mode): fall back to the supported set.
    let forced = LinkModes { advertised: vec![], supported: vec![0, 0, 1 << (89 - 64)], speed_mbps: Some(400_000), ..both };
    assert_eq!(active_mode_name(&forced).as_deref(), Some("400000baseCR4/Full"));
}

#[test]
fn family_reply_gives_id_and_ops() {
    let reply = cat(&[
        &[0x06, 0x00, 0x01, 0x00, 0x15, 0x00, 0x00, 0x00], // FAMILY_ID(1) u16 0x15 + 2 pad
        &[0x0c, 0x00, 0x02, 0x00, b'e', b't', b'h', b't', b'o', b'o', b'l', 0x00], // FAMILY_NAME(2)
        &[0x08, 0x00, 0x03, 0x00, 0x01, 0, 0, 0],          // VERSION(3) u32 1
        &[0x2c, 0x00, 0x06, 0x80],                         // OPS(6) nest, len 4 + 40
        &[0x14, 0x00, 0x01, 0x80],                         //   op #1, len 20
        &[0x08, 0x00, 0x01, 0x00, 0x1d, 0, 0, 0],          //     OP_ID(1) 29 = FEC_GET
        &[0x08, 0x00, 0x02, 0x00, 0x0e, 0, 0, 0],          //     OP_FLAGS(2) 0xe
        &[0x14, 0x00, 0x02, 0x80],                         //   op #2, len 20
        &[0x08, 0x00, 0x01, 0x00, 0x1f, 0, 0, 0],          //     OP_ID 31 = MODULE_EEPROM_GET
        &[0x08, 0x00, 0x02, 0x00, 0x1e, 0, 0, 0],          //     OP_FLAGS 0x1e (UNS_ADMIN_PERM)
    ]);
    let f = family::parse_reply(&reply).unwrap();
    assert_eq!(f.id, 0x15);
    assert!(f.has_op(29) && f.has_op(31) && !f.has_op(6));
}

#[test]
fn request_bytes_getfamily() {
    assert_eq!(
        family::request_attrs("ethtool"),
        vec![0x0c, 0x00, 0x02, 0x00, b'e', b't', b'h', b't', b'o', b'o', b'l', 0x00] // FAMILY_NAME(2) "ethtool\0"
    );
}

#[test]
fn request_bytes_module_eeprom_get() {
    // Page 03h upper half of an SFF-8636 module (thresholds), by name.
    let req = PageRequest::upper(0x50, 3, 0);
    let expected = cat(&[
        &[0x10, 0x00, 0x01, 0x80],                                        // HEADER(1) | NLA_F_NESTED, len 16
        &[0x09, 0x00, 0x02, 0x00, b'e', b't', b'h', b'0', 0x00, 0, 0, 0], //   DEV_NAME(2) "eth0\0" + 3 pad
        &[0x08, 0x00, 0x02, 0x00, 0x80, 0, 0, 0],                         // OFFSET(2) u32 128
        &[0x08, 0x00, 0x03, 0x00, 0x80, 0, 0, 0],                         // LENGTH(3) u32 128
        &[0x05, 0x00, 0x04, 0x00, 0x03, 0, 0, 0],                         // PAGE(4) u8 3
        &[0x05, 0x00, 0x05, 0x00, 0x00, 0, 0, 0],                         // BANK(5) u8 0
        &[0x05, 0x00, 0x06, 0x00, 0x50, 0, 0, 0],                         // I2C_ADDRESS(6) u8 0x50
    ]);
    assert_eq!(eeprom::request_attrs(&Dev::named("eth0"), &req), expected);
}

#[test]
fn request_bytes_fec_get_with_stats() {
    let dev = Dev { name: "eth0".into(), ifindex: Some(3), driver: None };
    let expected = cat(&[
        &[0x20, 0x00, 0x01, 0x80],                                        // HEADER(1) | NLA_F_NESTED, len 32
        &[0x08, 0x00, 0x01, 0x00, 0x03, 0, 0, 0],                         //   DEV_INDEX(1) u32 3
        &[0x09, 0x00, 0x02, 0x00, b'e', b't', b'h', b'0', 0x00, 0, 0, 0], //   DEV_NAME(2) "eth0\0": the kernel checks both match
        &[0x08, 0x00, 0x03, 0x00, 0x04, 0, 0, 0],                         //   FLAGS(3) u32 4 = ETHTOOL_FLAG_STATS
    ]);
    assert_eq!(fec::request_attrs(&dev, 4), expected);
    // LINKMODES asks for compact bitsets (flag 1): nest header 4 + DEV_INDEX 8 + DEV_NAME 12, then FLAGS.
    let lm = linkmodes::request_attrs(&dev);
    assert_eq!(&lm[24..], &[0x08, 0x00, 0x03, 0x00, 0x01, 0, 0, 0]);
    // Without an ifindex, the name alone.
    let by_name = fec::request_attrs(&Dev::named("eth0"), 0);
    assert_eq!(by_name, cat(&[&[0x10, 0x00, 0x01, 0x80], &[0x09, 0x00, 0x02, 0x00, b'e', b't', b'h', b'0', 0x00, 0, 0, 0]]));
}

#[test]
fn request_flags_do_without_ack_dump_with_done() {
    // netlink.h: NLM_F_REQUEST 0x1, NLM_F_ACK 0x4, NLM_F_ROOT 0x100 | NLM_F_MATCH 0x200 = NLM_F_DUMP.
    // A do gets its reply or NLMSG_ERROR either way; an ACK would be one more read per request.
    assert_eq!(request_flags(false), 0x0001);
    assert_eq!(request_flags(false) & NLM_F_ACK, 0);
    assert_eq!(request_flags(true), 0x0301);
}

proptest! {
    /// Reply decoders survive arbitrary bytes.
    #[test]
    fn decoders_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let _ = fec::parse_reply(&bytes);
        let _ = linkstate::parse_reply(&bytes);
        let _ = linkmodes::parse_reply(&bytes);
        let _ = eeprom::parse_reply(&bytes);
        let _ = family::parse_reply(&bytes);
    }
}
