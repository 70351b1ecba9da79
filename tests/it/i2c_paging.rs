//! `I2cModule` against a simulated module (tests/it/support/i2c_sim.rs): page and bank select,
//! restore of the original selection, block sizes, and the guarantee that the only writes
//! are select writes.

use crate::support::i2c_sim;

use i2c_sim::{pattern, PagingModel, SimulatedModule, Unsupported};
use optics::module::{PageRequest, I2C_A0, I2C_A2};
use optics::source::i2c::{I2cModule, MAX_BLOCK_LEN};
use optics::source::{EepromReader, SourceError};
use proptest::prelude::*;

/// Distinct known contents per (page, bank): seeds p0b0=0, p1=7, p2=14, p3=21,
/// p0x10=112, p0x11=119, p0x10b1=213, p0x11b1=220.
fn page_bytes(page: u8, bank: u8) -> [u8; 128] {
    pattern(page.wrapping_mul(7).wrapping_add(bank.wrapping_mul(101)))
}

fn lower(identifier: u8) -> [u8; 128] {
    let mut l = pattern(0x40);
    l[0] = identifier;
    l
}

/// QSFP28 (SFF-8024 identifier 0x11), SFF-8636 upper pages 00h-03h.
fn sff8636(unsupported: Unsupported) -> SimulatedModule {
    let mut m = SimulatedModule::new(unsupported).with_memory(I2C_A0, PagingModel::Paged, lower(0x11));
    for p in 0..=3 {
        m = m.with_page(I2C_A0, p, 0, page_bytes(p, 0));
    }
    m
}

/// QSFP-DD (identifier 0x18), CMIS: pages 00h-02h, and banked pages 10h-11h in banks 0-1.
fn cmis() -> SimulatedModule {
    let mut m = SimulatedModule::new(Unsupported::RevertToZero).with_memory(I2C_A0, PagingModel::Banked, lower(0x18));
    for p in 0..=2 {
        m = m.with_page(I2C_A0, p, 0, page_bytes(p, 0));
    }
    for bank in 0..=1 {
        for p in [0x10, 0x11] {
            m = m.with_page(I2C_A0, p, bank, page_bytes(p, bank));
        }
    }
    m
}

/// SFP+ (identifier 0x03): flat A0h whose byte 127 is vendor data, A2h with page select
/// and one optional upper page 01h.
fn sff8472() -> SimulatedModule {
    let mut a0 = lower(0x03);
    a0[127] = 0x5a;
    SimulatedModule::new(Unsupported::RevertToZero)
        .with_memory(I2C_A0, PagingModel::Flat, a0)
        .with_page(I2C_A0, 0, 0, page_bytes(0, 0))
        .with_memory(I2C_A2, PagingModel::Paged, pattern(0x90))
        .with_page(I2C_A2, 0, 0, page_bytes(2, 0))
        .with_page(I2C_A2, 1, 0, page_bytes(3, 0))
}

/// The 16-byte block reads of one whole upper half at `addr`.
fn upper_blocks(addr: u8) -> Vec<(u8, u8, usize)> {
    (0..8).map(|i| (addr, 128 + 16 * i, 16)).collect()
}

#[test]
fn sff8636_page3_read_restores_page_left_by_someone_else() {
    let mut sim = sff8636(Unsupported::RevertToZero);
    sim.left_on(I2C_A0, 0, 2);
    let mut m = I2cModule::new(sim, "/dev/i2c-sim");

    let data = m.read(PageRequest::upper(I2C_A0, 3, 0)).unwrap();
    assert_eq!(data, page_bytes(3, 0));

    let sim = m.bus();
    assert_eq!(sim.selection(I2C_A0), (0, 2), "page 2 restored");
    // Select page 3, then restore page 2: nothing else written.
    assert_eq!(sim.writes(), [(I2C_A0, vec![127, 3]), (I2C_A0, vec![127, 2])]);
    // identifier, current page, read-back check, then eight 16-byte blocks.
    let mut expected = vec![(I2C_A0, 0, 1), (I2C_A0, 127, 1), (I2C_A0, 127, 1)];
    expected.extend(upper_blocks(I2C_A0));
    assert_eq!(sim.reads(), expected);
}

#[test]
fn page0_upper_of_paged_module_left_elsewhere_is_really_page0() {
    let mut sim = sff8636(Unsupported::RevertToZero);
    sim.left_on(I2C_A0, 0, 1);
    let mut m = I2cModule::new(sim, "sim");
    assert_eq!(m.read(PageRequest::upper(I2C_A0, 0, 0)).unwrap(), page_bytes(0, 0));
    assert_eq!(m.bus().writes(), [(I2C_A0, vec![127, 0]), (I2C_A0, vec![127, 1])]);
    assert_eq!(m.bus().selection(I2C_A0), (0, 1));
}

#[test]
fn lower_reads_need_no_select_and_use_16_byte_blocks() {
    let mut sim = sff8636(Unsupported::RevertToZero);
    sim.left_on(I2C_A0, 0, 2);
    let mut m = I2cModule::new(sim, "sim");
    let data = m.read(PageRequest::lower(I2C_A0)).unwrap();
    // Lower memory as stored: identifier 0x11, pattern 0x40.., page register 2 at byte 127.
    let mut expected = lower(0x11);
    expected[127] = 2;
    assert_eq!(data, expected);
    let blocks: Vec<_> = (0..8).map(|i| (I2C_A0, 16 * i, 16)).collect();
    assert_eq!(m.bus().reads(), blocks);
    assert!(m.bus().writes().is_empty());

    // Byte 0 was just read: the next upper read needs no identifier read.
    m.bus_mut().clear_log();
    m.read(PageRequest::upper(I2C_A0, 2, 0)).unwrap();
    let mut expected = vec![(I2C_A0, 127, 1)];
    expected.extend(upper_blocks(I2C_A0));
    assert_eq!(m.bus().reads(), expected, "already on page 2: no select, no check");
    assert!(m.bus().writes().is_empty());
}

#[test]
fn odd_lengths_split_into_blocks_of_at_most_16() {
    let mut m = I2cModule::new(sff8636(Unsupported::RevertToZero), "sim");
    // 40 bytes from offset 130 of page 1: blocks 130+16, 146+16, 162+8.
    let data = m.read(PageRequest::new(I2C_A0, 1, 0, 130, 40)).unwrap();
    assert_eq!(data, page_bytes(1, 0)[2..42]);
    let blocks: Vec<_> = m.bus().reads().into_iter().filter(|r| r.1 >= 128).collect();
    assert_eq!(blocks, [(I2C_A0, 130, 16), (I2C_A0, 146, 16), (I2C_A0, 162, 8)]);
    assert!(m.bus().reads().iter().all(|r| r.2 <= MAX_BLOCK_LEN));
}

#[test]
fn cmis_bank_and_page_restored() {
    let mut sim = cmis();
    sim.left_on(I2C_A0, 0, 2);
    let mut m = I2cModule::new(sim, "sim");
    assert_eq!(m.read(PageRequest::upper(I2C_A0, 0x10, 1)).unwrap(), page_bytes(0x10, 1));
    // Bank change: one write of 126-127 (bank then page), and the same to restore.
    assert_eq!(m.bus().writes(), [(I2C_A0, vec![126, 1, 0x10]), (I2C_A0, vec![126, 0, 2])]);
    assert_eq!(m.bus().selection(I2C_A0), (0, 2));
    // identifier, bank+page (2 bytes), check (2 bytes), blocks.
    let mut expected = vec![(I2C_A0, 0, 1), (I2C_A0, 126, 2), (I2C_A0, 126, 2)];
    expected.extend(upper_blocks(I2C_A0));
    assert_eq!(m.bus().reads(), expected);
}

#[test]
fn cmis_same_bank_writes_page_only() {
    let mut sim = cmis();
    sim.left_on(I2C_A0, 1, 0x11);
    let mut m = I2cModule::new(sim, "sim");
    assert_eq!(m.read(PageRequest::upper(I2C_A0, 0x10, 1)).unwrap(), page_bytes(0x10, 1));
    assert_eq!(m.bus().writes(), [(I2C_A0, vec![127, 0x10]), (I2C_A0, vec![127, 0x11])]);
    assert_eq!(m.bus().selection(I2C_A0), (1, 0x11));

    m.bus_mut().clear_log();
    assert_eq!(m.read(PageRequest::upper(I2C_A0, 1, 0)).unwrap(), page_bytes(1, 0));
    assert_eq!(m.bus().writes(), [(I2C_A0, vec![126, 0, 1]), (I2C_A0, vec![126, 1, 0x11])]);
    assert_eq!(m.bus().selection(I2C_A0), (1, 0x11));
}

#[test]
fn failure_mid_read_still_restores() {
    let mut sim = cmis();
    sim.left_on(I2C_A0, 0, 2);
    // Reads: 1 identifier, 2 selection, 3 check, 4-11 blocks: fail the 3rd block.
    sim.fail_read(6, libc::EIO);
    let mut m = I2cModule::new(sim, "sim");
    let err = m.read(PageRequest::upper(I2C_A0, 0x11, 1)).unwrap_err();
    assert!(matches!(err, SourceError::Io { .. }), "{err}");
    assert_eq!(m.bus().selection(I2C_A0), (0, 2));
    assert_eq!(m.bus().writes(), [(I2C_A0, vec![126, 1, 0x11]), (I2C_A0, vec![126, 0, 2])]);
    // The read stopped at the failing block.
    assert_eq!(m.bus().reads().len(), 6);
}

#[test]
fn failure_reading_the_selection_writes_nothing() {
    let mut sim = sff8636(Unsupported::RevertToZero);
    sim.fail_read(2, libc::EIO);
    let mut m = I2cModule::new(sim, "sim");
    assert!(m.read(PageRequest::upper(I2C_A0, 3, 0)).is_err());
    assert!(m.bus().writes().is_empty());
}

#[test]
fn unsupported_page_is_refused_and_selection_restored() {
    for unsupported in [Unsupported::RevertToZero, Unsupported::KeepPrevious] {
        let mut sim = SimulatedModule::new(unsupported).with_memory(I2C_A0, PagingModel::Paged, lower(0x11));
        for p in 0..=1 {
            sim = sim.with_page(I2C_A0, p, 0, page_bytes(p, 0));
        }
        sim.left_on(I2C_A0, 0, 1);
        let mut m = I2cModule::new(sim, "sim");
        let err = m.read(PageRequest::upper(I2C_A0, 3, 0)).unwrap_err();
        assert!(matches!(err, SourceError::Unavailable { .. }), "{unsupported:?}: {err}");
        assert!(err.to_string().contains("did not accept"), "{err}");
        assert_eq!(m.bus().selection(I2C_A0), (0, 1), "{unsupported:?}");
        assert_eq!(m.bus().writes(), [(I2C_A0, vec![127, 3]), (I2C_A0, vec![127, 1])], "{unsupported:?}");
    }
}

#[test]
fn sff8472_a0_is_never_paged_and_a2_reads_at_0x51() {
    let mut m = I2cModule::new(sff8472(), "sim");
    // A0h upper: flat, byte 127 is vendor data and must not be written.
    assert_eq!(m.read(PageRequest::upper(I2C_A0, 0, 0)).unwrap(), page_bytes(0, 0));
    let err = m.read(PageRequest::upper(I2C_A0, 1, 0)).unwrap_err();
    assert!(matches!(err, SourceError::Unavailable { .. }), "{err}");
    // A2h lower (diagnostics) and upper page 0: plain reads at 0x51.
    // A2h lower as stored: pattern 0x90.., with the page select at byte 127 on page 0.
    let mut a2_lower = pattern(0x90);
    a2_lower[127] = 0;
    assert_eq!(m.read(PageRequest::lower(I2C_A2)).unwrap(), a2_lower);
    assert_eq!(m.read(PageRequest::upper(I2C_A2, 0, 0)).unwrap(), page_bytes(2, 0));
    assert!(m.bus().writes().is_empty());
    assert_eq!(m.bus().lower_byte(I2C_A0, 127), 0x5a);
    let a2: Vec<_> = m.bus().reads().into_iter().filter(|r| r.0 == I2C_A2).collect();
    let mut expected: Vec<_> = (0..8).map(|i| (I2C_A2, 16 * i, 16)).collect();
    expected.extend(upper_blocks(I2C_A2));
    assert_eq!(a2, expected);

    // The optional A2h page 01h: selected through A2h byte 127, then restored.
    m.bus_mut().clear_log();
    assert_eq!(m.read(PageRequest::upper(I2C_A2, 1, 0)).unwrap(), page_bytes(3, 0));
    assert_eq!(m.bus().writes(), [(I2C_A2, vec![127, 1]), (I2C_A2, vec![127, 0])]);
    assert_eq!(m.bus().selection(I2C_A2), (0, 0));
}

#[test]
fn busy_and_absent_devices_map_to_clear_errors() {
    let mut sim = sff8636(Unsupported::RevertToZero);
    sim.fail_read(1, libc::EBUSY);
    let mut m = I2cModule::new(sim, "/dev/i2c-4");
    let err = m.read(PageRequest::lower(I2C_A0)).unwrap_err();
    assert!(matches!(err, SourceError::Busy { .. }), "{err}");
    assert!(err.to_string().contains("without --i2c"), "{err}");
    // A QSFP has nothing at 0x51: the NACK becomes "nothing answered".
    let err = m.read(PageRequest::lower(I2C_A2)).unwrap_err();
    assert!(matches!(err, SourceError::Unavailable { .. }), "{err}");
    assert!(err.to_string().contains("/dev/i2c-4"), "{err}");
}

#[test]
fn invalid_request_touches_nothing() {
    let mut m = I2cModule::new(sff8636(Unsupported::RevertToZero), "sim");
    // Crosses the half-page boundary at 128.
    let err = m.read(PageRequest::new(I2C_A0, 0, 0, 120, 16)).unwrap_err();
    assert!(matches!(err, SourceError::Kernel { errno, .. } if errno == libc::EINVAL), "{err}");
    assert!(m.bus().log.is_empty());
    assert_eq!(m.describe(), "i2c sim");
}

fn request() -> impl Strategy<Value = PageRequest> {
    (0u8..=3, any::<bool>(), 0u8..128, 1u8..=128).prop_map(|(page, upper, off, len)| {
        let len = len.min(128 - off);
        if upper {
            PageRequest::new(I2C_A0, page, 0, 128 + off, len)
        } else {
            PageRequest::new(I2C_A0, 0, 0, off, len)
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Any sequence of reads returns the right bytes, writes only the page register, and
    /// leaves the module on the page it was found on.
    #[test]
    fn any_reads_only_write_select_and_restore(left in 0u8..=3, reqs in prop::collection::vec(request(), 1..8)) {
        let mut sim = sff8636(Unsupported::RevertToZero);
        sim.left_on(I2C_A0, 0, left);
        let mut m = I2cModule::new(sim, "sim");
        for req in reqs {
            let data = m.read(req).unwrap();
            let (o, n) = (usize::from(req.offset), usize::from(req.length));
            if o >= 128 {
                prop_assert_eq!(&data[..], &page_bytes(req.page, 0)[o - 128..o - 128 + n]);
            } else {
                prop_assert_eq!(data.len(), n);
            }
            prop_assert_eq!(m.bus().selection(I2C_A0), (0, left));
        }
        for (addr, w) in m.bus().writes() {
            prop_assert_eq!(addr, I2C_A0);
            prop_assert_eq!(w.len(), 2);
            prop_assert_eq!(w[0], 127);
        }
        prop_assert!(m.bus().reads().iter().all(|r| r.2 <= MAX_BLOCK_LEN));
    }
}
