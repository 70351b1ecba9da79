//! A simulated pluggable module on an I2C bus: a test double for `optics::source::i2c`.
//! Tests-only (included with `#[path]`), so none of it ends up in the binary.
//!
//! Model:
//! - per address, 128 bytes of lower memory and 128-byte upper pages keyed by (page, bank);
//! - an address is flat (no select register: SFF-8472 A0h, where byte 127 is plain data),
//!   paged (page select at 127: SFF-8636 A0h, SFF-8472 A2h), or banked (CMIS: bank select
//!   at 126, page select at 127);
//! - a write of the bank register only latches it; the (bank, page) pair takes effect when
//!   the page register is written (CMIS 5.2 §8.2.14), so a two-byte write 126-127 switches
//!   both at once;
//! - selecting a (bank, page) the module lacks is not honoured. What the select registers
//!   then read back differs between modules (some revert to page 00h, some keep the old
//!   selection), so both are modelled: [`Unsupported::RevertToZero`] and
//!   [`Unsupported::KeepPrevious`]; the reader must verify by read-back, trusting neither;
//! - sequential reads auto-increment (wrapping 255 -> 0; the reader never relies on it);
//! - every transaction is logged; the Nth read transaction can be told to fail;
//! - an address with no memory NACKs (ENXIO), as i2c-dev reports it.

use optics::source::i2c::I2cBus;
use std::collections::HashMap;
use std::io;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PagingModel {
    Flat,
    Paged,
    Banked,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {
    RevertToZero,
    KeepPrevious,
}

/// One transaction as the bus saw it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transaction {
    /// Combined write-offset/read of `len` bytes.
    Read { addr: u8, offset: u8, len: usize },
    /// Plain write: `data[0]` is the offset.
    Write { addr: u8, data: Vec<u8> },
}

#[derive(Debug)]
struct Memory {
    paging: PagingModel,
    lower: [u8; 128],
    upper: HashMap<(u8, u8), [u8; 128]>,
    /// Effective (bank, page) mapped into the upper half.
    mapped: (u8, u8),
}

const BANK_REG: usize = 126;
const PAGE_REG: usize = 127;

impl Memory {
    fn byte(&self, offset: u8) -> u8 {
        let i = usize::from(offset);
        if i < 128 {
            return self.lower[i];
        }
        let key = if self.paging == PagingModel::Flat { (0, 0) } else { self.mapped };
        self.upper.get(&key).map_or(0xff, |p| p[i - 128])
    }

    fn write_byte(&mut self, offset: u8, value: u8, unsupported: Unsupported) {
        let i = usize::from(offset);
        if i >= 128 {
            let key = if self.paging == PagingModel::Flat { (0, 0) } else { self.mapped };
            if let Some(p) = self.upper.get_mut(&key) {
                p[i - 128] = value;
            }
            return;
        }
        match (self.paging, i) {
            (PagingModel::Banked, BANK_REG) => self.lower[BANK_REG] = value,
            (PagingModel::Paged | PagingModel::Banked, PAGE_REG) => {
                let banked = self.paging == PagingModel::Banked;
                let bank = if banked { self.lower[BANK_REG] } else { 0 };
                if self.upper.contains_key(&(bank, value)) {
                    self.mapped = (bank, value);
                } else if unsupported == Unsupported::RevertToZero {
                    self.mapped = (0, 0);
                }
                // The registers read back what is mapped now.
                if banked {
                    self.lower[BANK_REG] = self.mapped.0;
                }
                self.lower[PAGE_REG] = self.mapped.1;
            }
            _ => self.lower[i] = value,
        }
    }
}

#[derive(Debug)]
pub struct SimulatedModule {
    memories: HashMap<u8, Memory>,
    unsupported: Unsupported,
    pub log: Vec<Transaction>,
    reads: usize,
    fail_read: Option<(usize, i32)>,
}

impl SimulatedModule {
    pub fn new(unsupported: Unsupported) -> Self {
        SimulatedModule { memories: HashMap::new(), unsupported, log: Vec::new(), reads: 0, fail_read: None }
    }

    /// Adds memory at `addr` with lower half `lower` (select registers start on bank 0 page 0).
    pub fn with_memory(mut self, addr: u8, paging: PagingModel, lower: [u8; 128]) -> Self {
        let mut mem = Memory { paging, lower, upper: HashMap::new(), mapped: (0, 0) };
        if paging != PagingModel::Flat {
            mem.lower[PAGE_REG] = 0;
            if paging == PagingModel::Banked {
                mem.lower[BANK_REG] = 0;
            }
        }
        self.memories.insert(addr, mem);
        self
    }

    /// Adds upper page `page` of `bank` at `addr`.
    pub fn with_page(mut self, addr: u8, page: u8, bank: u8, data: [u8; 128]) -> Self {
        self.memories.get_mut(&addr).expect("with_memory first").upper.insert((bank, page), data);
        self
    }

    /// Sets the select registers as another host left them (not logged).
    pub fn left_on(&mut self, addr: u8, bank: u8, page: u8) {
        let mem = self.memories.get_mut(&addr).expect("memory at addr");
        assert!(mem.upper.contains_key(&(bank, page)), "left_on an unsupported page");
        mem.mapped = (bank, page);
        mem.lower[PAGE_REG] = page;
        if mem.paging == PagingModel::Banked {
            mem.lower[BANK_REG] = bank;
        }
    }

    /// (bank, page) the select registers of `addr` hold now.
    pub fn selection(&self, addr: u8) -> (u8, u8) {
        let mem = &self.memories[&addr];
        let bank = if mem.paging == PagingModel::Banked { mem.lower[BANK_REG] } else { 0 };
        (bank, mem.lower[PAGE_REG])
    }

    /// Lower-memory byte, as stored (for checking nothing else was written).
    pub fn lower_byte(&self, addr: u8, offset: u8) -> u8 {
        self.memories[&addr].lower[usize::from(offset)]
    }

    /// The `n`th read transaction from now (1-based) fails with `errno`.
    pub fn fail_read(&mut self, n: usize, errno: i32) {
        self.fail_read = Some((self.reads + n, errno));
    }

    pub fn clear_log(&mut self) {
        self.log.clear();
    }

    pub fn writes(&self) -> Vec<(u8, Vec<u8>)> {
        self.log
            .iter()
            .filter_map(|t| match t {
                Transaction::Write { addr, data } => Some((*addr, data.clone())),
                Transaction::Read { .. } => None,
            })
            .collect()
    }

    pub fn reads(&self) -> Vec<(u8, u8, usize)> {
        self.log
            .iter()
            .filter_map(|t| match t {
                Transaction::Read { addr, offset, len } => Some((*addr, *offset, *len)),
                Transaction::Write { .. } => None,
            })
            .collect()
    }
}

fn nack() -> io::Error {
    io::Error::from_raw_os_error(libc::ENXIO)
}

impl I2cBus for SimulatedModule {
    fn write_read(&mut self, addr: u8, write: &[u8], read: &mut [u8]) -> io::Result<()> {
        self.log.push(Transaction::Read { addr, offset: write.first().copied().unwrap_or(0), len: read.len() });
        self.reads += 1;
        if let Some((n, errno)) = self.fail_read {
            if n == self.reads {
                return Err(io::Error::from_raw_os_error(errno));
            }
        }
        let mem = self.memories.get(&addr).ok_or_else(nack)?;
        let [offset] = write else {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        };
        for (i, b) in read.iter_mut().enumerate() {
            // The address counter wraps at 256 (u8 arithmetic).
            *b = mem.byte(offset.wrapping_add(i as u8));
        }
        Ok(())
    }

    fn write(&mut self, addr: u8, data: &[u8]) -> io::Result<()> {
        self.log.push(Transaction::Write { addr, data: data.to_vec() });
        let unsupported = self.unsupported;
        let mem = self.memories.get_mut(&addr).ok_or_else(nack)?;
        let Some((&offset, values)) = data.split_first() else {
            return Ok(());
        };
        for (i, &v) in values.iter().enumerate() {
            mem.write_byte(offset.wrapping_add(i as u8), v, unsupported);
        }
        Ok(())
    }
}

/// 128 bytes `seed, seed+1, ...` (wrapping), so every page's contents are distinct and known.
pub fn pattern(seed: u8) -> [u8; 128] {
    std::array::from_fn(|i| seed.wrapping_add(i as u8))
}
