//! Golden FEC_GET reply bytes carrying the Linux 6.18 codeword histogram, laid out per the
//! uAPI (kernel-uapi.md §1.4, §3): `struct nlattr {u16 len; u16 type}` + payload padded to
//! 4, host-endian (little-endian here); STATS(5) nest holding one STAT_HIST(5) nest per
//! bin, each {BIN_LOW(2) u32, BIN_HIGH(3) u32, BIN_VAL(4) uint 4 or 8 bytes,
//! BIN_VAL_PER_LANE(5) u64[]}. Decoded by `fec::parse_reply`, then analysed by
//! `analysis::histogram`; expected figures by hand.
#![cfg(target_endian = "little")]

use optics::analysis::fec::FecKind;
use optics::analysis::histogram::{analyze, HistogramInput};
use optics::source::netlink::fec;

/// One attribute: header (len = 4 + payload, type) and the payload padded to 4 bytes.
fn nla(ty: u16, payload: &[u8]) -> Vec<u8> {
    let len = u16::try_from(4 + payload.len()).unwrap();
    let mut b = [len.to_le_bytes(), ty.to_le_bytes()].concat();
    b.extend_from_slice(payload);
    b.resize(b.len().div_ceil(4) * 4, 0);
    b
}

const NESTED: u16 = 0x8000;

/// A histogram bin nest; `wide` sends BIN_VAL as 8 bytes (a `uint` may be 4 or 8).
fn bin(low: u32, high: u32, count: u64, wide: bool, per_lane: &[u64]) -> Vec<u8> {
    let mut inner = [nla(2, &low.to_le_bytes()), nla(3, &high.to_le_bytes())].concat();
    inner.extend(if wide { nla(4, &count.to_le_bytes()) } else { nla(4, &u32::try_from(count).unwrap().to_le_bytes()) });
    if !per_lane.is_empty() {
        inner.extend(nla(5, &per_lane.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>()));
    }
    nla(5 | NESTED, &inner)
}

#[test]
fn mlx5_single_symbol_bins_decode_and_give_headroom() {
    // mlx5 (PPHCR) style: bins 0..15, one symbol each, `sum` only. Over a 10 s window
    // bin 0 holds 7e8 (sent as an 8-byte uint), bins s = 1..=8 hold 10^(8 - s) (4-byte
    // uints), bins 9..15 are empty.
    let mut stats = Vec::new();
    stats.extend(bin(0, 0, 700_000_000, true, &[]));
    for s in 1..=15u32 {
        let count = if s <= 8 { 10u64.pow(8 - s) } else { 0 };
        stats.extend(bin(s, s, count, false, &[]));
    }
    // Byte check of one nest: bin 3 = LOW, HIGH, VAL of 8 bytes each + 4 header = 28 = 0x1c.
    let b3 = bin(3, 3, 100_000, false, &[]);
    assert_eq!(b3[..4], [0x1c, 0x00, 0x05, 0x80]); // STAT_HIST(5) | NLA_F_NESTED
    assert_eq!(b3[4..12], [0x08, 0x00, 0x02, 0x00, 0x03, 0x00, 0x00, 0x00]); // BIN_LOW u32 3
    assert_eq!(b3[12..20], [0x08, 0x00, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00]); // BIN_HIGH u32 3
    assert_eq!(b3[20..], [0x08, 0x00, 0x04, 0x00, 0xa0, 0x86, 0x01, 0x00]); // BIN_VAL 100000 = 0x186a0
    let reply = [nla(4, &50u32.to_le_bytes()), nla(5 | NESTED, &stats)].concat();
    let r = fec::parse_reply(&reply).unwrap();
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    assert_eq!(r.active.as_deref(), Some("RS"));
    let bins = r.stats.unwrap().histogram;
    assert_eq!(bins.len(), 16);
    assert_eq!((bins[0].count, bins[8].count, bins[9].count), (700_000_000, 1, 0));
    let h = analyze(&HistogramInput {
        bins: &bins,
        duration_s: 10.0,
        fec: FecKind::Rs544,
        line_codewords_per_s: None,
        flr_per_codeword_error_ratio: Some(2.0 + 672.0 / 5120.0),
    })
    .unwrap();
    // Highest non-empty bin 8: headroom 15 - 8 = 7; tail fit over bins 1..8: slope -1, R² 1.
    assert_eq!((h.max_symbol_errors, h.headroom_symbols, h.bins_used), (Some(8), Some(7), 8));
    assert!((h.tail_slope_log10_per_symbol.unwrap() + 1.0).abs() < 1e-12);
    // N(16) = 10^-8 per window, / 0.9 summed past t, / 10 s = 1.111e-9 per s.
    assert!((h.line_predicted_uncorrectable_per_s.unwrap() / (1e-8 / 0.9 / 10.0) - 1.0).abs() < 1e-9);
    // Codewords: (7e8 + 11,111,111) / 10 s; FLR = the chosen model's uncorrectable rate /
    // 7.1111e7 per s x (2 + 672 / 5120) (400GBASE-R, X = 2, 64-byte frames).
    let u = h.predicted_uncorrectable_per_s.unwrap();
    let flr = u / 71_111_111.1 * (2.0 + 672.0 / 5120.0);
    assert!((h.predicted_flr.unwrap() / flr - 1.0).abs() < 1e-9);
}

#[test]
fn netdevsim_ranges_with_per_lane_values() {
    // netdevsim's bins {0,0}, {1,3}, {4,7}, per-lane values on bin 0 only (kernel-uapi.md §3).
    let stats = [
        bin(0, 0, 4_000_000, false, &[1_000_000, 1_000_000, 1_000_000, 1_000_000]),
        bin(1, 3, 30_000, false, &[]),
        bin(4, 7, 40, true, &[]),
    ]
    .concat();
    let r = fec::parse_reply(&nla(5 | NESTED, &stats)).unwrap();
    let bins = r.stats.unwrap().histogram;
    assert_eq!(bins[0].per_lane, vec![1_000_000; 4]);
    assert_eq!((bins[2].low, bins[2].high, bins[2].count), (4, 7, 40));
    let h = analyze(&HistogramInput {
        bins: &bins,
        duration_s: 1.0,
        fec: FecKind::Rs544,
        line_codewords_per_s: None,
        flr_per_codeword_error_ratio: Some(2.0 + 672.0 / 5120.0),
    })
    .unwrap();
    // The 4-7 bin's upper edge counts: headroom 15 - 7 = 8.
    assert_eq!((h.max_symbol_errors, h.headroom_symbols), (Some(7), Some(8)));
    // Densities: 30000 / 3 = 1e4 at 2, 40 / 4 = 10 at 5.5: slope -3 / 3.5 per symbol.
    assert!((h.tail_slope_log10_per_symbol.unwrap() + 3.0 / 3.5).abs() < 1e-12);
    // Per-lane: 4 lanes, only bin 0 known per lane.
    assert_eq!(h.lanes.len(), 4);
    assert_eq!((h.lanes[0].max_symbol_errors, h.lanes[0].headroom_symbols), (Some(0), Some(15)));
}
