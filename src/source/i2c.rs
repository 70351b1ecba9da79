//! Direct I2C access to a module (`--i2c /dev/i2c-N`), for boards whose NIC driver has no
//! module EEPROM path but whose cage sits on a plain I2C bus.
//!
//! What this reader does to the module, and nothing else:
//! - reads in blocks of at most [`MAX_BLOCK_LEN`] bytes, each one combined
//!   write-offset/read transaction (small blocks because real controllers need them, as
//!   Linux `drivers/net/phy/sfp.c` does);
//! - for an upper-half read of a paged memory it reads the page select register (and the
//!   CMIS bank select), selects the page if it differs, checks the module accepted it,
//!   reads, and then restores the original page and bank, also when the read failed.
//!   Those select writes are the only writes it ever makes.

use super::{EepromReader, Result, SourceError};
use crate::module::map::Field;
use crate::module::{PageRequest, Standard, I2C_A0, I2C_A2};
use i2cdev::core::{I2CMessage, I2CTransfer};
use i2cdev::linux::{LinuxI2CDevice, LinuxI2CMessage};
use std::io;
use std::path::{Path, PathBuf};

/// Largest block read in one transaction (sfp.c uses 16 for the same reason: some
/// SMBus-style controllers and module MCUs mishandle longer reads).
pub const MAX_BLOCK_LEN: usize = 16;

/// SFF-8024 Table 4-1 identifier: tells which paging scheme lower memory uses.
const IDENTIFIER: Field = Field::new("identifier", I2C_A0, 0, 0, 1);
/// CMIS 5.2 §8.2 (lower memory): BankSelect at 126, PageSelect at 127 (adjacent, so one
/// read of two bytes gets both).
const BANK_SELECT: Field = Field::new("bank_select", I2C_A0, 0, 126, 1);
/// SFF-8636 Rev 2.11 §6.2 / CMIS 5.2 §8.2: PageSelect at lower byte 127.
const PAGE_SELECT: Field = Field::new("page_select", I2C_A0, 0, 127, 1);
/// SFF-8472 Rev 12.4 A2h byte 127: optional page select for A2h upper pages (sfp.h SFP_PAGE).
const A2_PAGE_SELECT: Field = Field::new("a2_page_select", I2C_A2, 0, 127, 1);

/// The registers [`I2cModule`] touches, as a table (so the no-overlap check covers them).
#[cfg(test)]
const REGISTERS: &[Field] = &[IDENTIFIER, BANK_SELECT, PAGE_SELECT, A2_PAGE_SELECT];

/// One I2C adapter, as the module reader needs it.
pub trait I2cBus {
    /// One combined transaction: write `write` (the register offset) to `addr`, repeated
    /// start, read `read.len()` bytes.
    fn write_read(&mut self, addr: u8, write: &[u8], read: &mut [u8]) -> io::Result<()>;
    /// One write transaction: `data[0]` is the register offset, the rest its new values.
    fn write(&mut self, addr: u8, data: &[u8]) -> io::Result<()>;
}

/// `/dev/i2c-N` through i2c-dev: I2C_SLAVE per address (which the kernel refuses with
/// EBUSY when a driver such as sfp/optoe/at24 is bound there), I2C_RDWR transfers.
#[derive(Debug)]
pub struct LinuxI2cBus {
    path: PathBuf,
    devices: Vec<(u8, LinuxI2CDevice)>,
}

impl LinuxI2cBus {
    /// Opens the adapter and claims 0x50, so that a missing device, a permission problem or
    /// a bound kernel driver shows up here rather than at the first read.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let mut bus = LinuxI2cBus { path: path.as_ref().to_path_buf(), devices: Vec::new() };
        let name = bus.path.display().to_string();
        bus.device(I2C_A0).map_err(|e| io_error(&name, "open", e))?;
        Ok(bus)
    }

    fn device(&mut self, addr: u8) -> io::Result<&mut LinuxI2CDevice> {
        let i = match self.devices.iter().position(|(a, _)| *a == addr) {
            Some(i) => i,
            None => {
                let dev = LinuxI2CDevice::new(&self.path, u16::from(addr)).map_err(io::Error::from)?;
                self.devices.push((addr, dev));
                self.devices.len() - 1
            }
        };
        // `i` is either a found position or the index just pushed.
        Ok(&mut self.devices[i].1)
    }
}

impl I2cBus for LinuxI2cBus {
    fn write_read(&mut self, addr: u8, write: &[u8], read: &mut [u8]) -> io::Result<()> {
        let dev = self.device(addr)?;
        let mut msgs = [LinuxI2CMessage::write(write), LinuxI2CMessage::read(read)];
        let done = dev.transfer(&mut msgs).map_err(io::Error::from)?;
        expect_all(done, msgs.len())
    }

    fn write(&mut self, addr: u8, data: &[u8]) -> io::Result<()> {
        let dev = self.device(addr)?;
        let mut msgs = [LinuxI2CMessage::write(data)];
        let done = dev.transfer(&mut msgs).map_err(io::Error::from)?;
        expect_all(done, msgs.len())
    }
}

fn expect_all(done: u32, sent: usize) -> io::Result<()> {
    if done as usize == sent {
        Ok(())
    } else {
        Err(io::Error::other(format!("I2C transfer completed {done} of {sent} messages")))
    }
}

/// Bank and page as the module's select registers hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Selection {
    bank: u8,
    page: u8,
}

/// How the upper half at one address is paged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Paging {
    /// No page register: only upper page 0 exists (SFF-8472 A0h; unknown modules, where
    /// writing byte 127 could overwrite data).
    Flat,
    /// Page select at `register` (SFF-8636 A0h, SFF-8472 A2h).
    Paged { register: Field },
    /// CMIS: bank select at 126, page select at 127.
    Banked,
}

/// A module on an I2C bus, read the way `ETHTOOL_MSG_MODULE_EEPROM_GET` reads it.
#[derive(Debug)]
pub struct I2cModule<B: I2cBus> {
    bus: B,
    device: String,
    /// Identifier byte, read on the first upper-half read at 0x50 and refreshed whenever a
    /// read covers byte 0 (a module swapped during a long run is noticed there).
    identifier: Option<u8>,
}

impl I2cModule<LinuxI2cBus> {
    /// The module on `/dev/i2c-N`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let bus = LinuxI2cBus::open(&path)?;
        Ok(I2cModule::new(bus, path.as_ref().display().to_string()))
    }
}

impl<B: I2cBus> I2cModule<B> {
    /// `device` names the bus in reports and errors (e.g. "/dev/i2c-3").
    pub fn new(bus: B, device: impl Into<String>) -> Self {
        I2cModule { bus, device: device.into(), identifier: None }
    }
    /// The bus the module is read through.
    pub fn bus(&self) -> &B {
        &self.bus
    }
    /// The bus, mutably (tests script its answers).
    pub fn bus_mut(&mut self) -> &mut B {
        &mut self.bus
    }

    fn read_request(&mut self, req: PageRequest) -> Result<Vec<u8>> {
        if !req.is_valid() {
            // The same answer the kernel gives for a request outside one half page.
            return Err(SourceError::Kernel {
                what: self.what(req),
                errno: libc::EINVAL,
                message: Some("a module read must be 1-128 bytes inside one half page".into()),
            });
        }
        if req.offset < 128 {
            // Lower memory is the same whatever page is selected: no select needed.
            let data = self.read_blocks(req)?;
            if req.i2c_address == I2C_A0 && req.offset == 0 {
                self.identifier = data.first().copied();
            }
            return Ok(data);
        }
        match self.paging(req)? {
            Paging::Flat if req.page == 0 && req.bank == 0 => self.read_blocks(req),
            Paging::Flat => {
                Err(SourceError::Unavailable { what: self.what(req), detail: format!("memory at {:#04x} has no pages", req.i2c_address) })
            }
            Paging::Paged { .. } if req.bank != 0 => {
                Err(SourceError::Unavailable { what: self.what(req), detail: format!("memory at {:#04x} has no banks", req.i2c_address) })
            }
            paging => self.read_paged(paging, req),
        }
    }

    fn paging(&mut self, req: PageRequest) -> Result<Paging> {
        Ok(match req.i2c_address {
            I2C_A0 => {
                let id = match self.identifier {
                    Some(id) => id,
                    None => {
                        let mut b = [0u8; 1];
                        self.bus
                            .write_read(IDENTIFIER.i2c_address, &[IDENTIFIER.offset], &mut b)
                            .map_err(|e| io_error(&self.device, &self.what(req), e))?;
                        self.identifier = Some(b[0]);
                        b[0]
                    }
                };
                match Standard::for_identifier(id) {
                    Some(Standard::Sff8636) => Paging::Paged { register: PAGE_SELECT },
                    Some(Standard::Cmis) => Paging::Banked,
                    Some(Standard::Sff8472) | None => Paging::Flat,
                }
            }
            // A2h page 0 upper is the user/vendor area every SFP has; only ask the optional
            // page select for other pages, so plain A2h reads never write anything.
            I2C_A2 if req.page != 0 => Paging::Paged { register: A2_PAGE_SELECT },
            _ => Paging::Flat,
        })
    }

    /// Select, verify, read, restore. The restore runs whatever happened after the original
    /// selection was known, so a failed read never leaves the module on our page.
    fn read_paged(&mut self, paging: Paging, req: PageRequest) -> Result<Vec<u8>> {
        let original = self.selection(paging, req)?;
        let wanted = Selection { bank: req.bank, page: req.page };
        if original == wanted {
            return self.read_blocks(req);
        }
        let result =
            self.select(paging, original, wanted, req).and_then(|()| self.verify(paging, wanted, req)).and_then(|()| self.read_blocks(req));
        let restored = self.select(paging, wanted, original, req);
        // A read error is the more useful one to report; a failed restore after a good read
        // still is an error, since the module is left on a page others do not expect.
        let data = result?;
        restored?;
        Ok(data)
    }

    /// Current bank and page (bank 0 where there is no bank register).
    fn selection(&mut self, paging: Paging, req: PageRequest) -> Result<Selection> {
        match paging {
            Paging::Banked => {
                let mut b = [0u8; 2];
                self.bus
                    .write_read(BANK_SELECT.i2c_address, &[BANK_SELECT.offset], &mut b)
                    .map_err(|e| io_error(&self.device, &self.what(req), e))?;
                Ok(Selection { bank: b[0], page: b[1] })
            }
            Paging::Paged { register } => {
                let mut b = [0u8; 1];
                self.bus
                    .write_read(register.i2c_address, &[register.offset], &mut b)
                    .map_err(|e| io_error(&self.device, &self.what(req), e))?;
                Ok(Selection { bank: 0, page: b[0] })
            }
            Paging::Flat => Ok(Selection { bank: 0, page: 0 }),
        }
    }

    /// Moves the select registers from `from` to `to`, writing only what differs. CMIS 5.2
    /// §8.2.14: bank before page, and a bank change takes effect with the page write, so a
    /// bank change is one two-byte write of 126-127.
    fn select(&mut self, paging: Paging, from: Selection, to: Selection, req: PageRequest) -> Result<()> {
        let (addr, data): (u8, Vec<u8>) = match paging {
            Paging::Banked if from.bank != to.bank => (BANK_SELECT.i2c_address, vec![BANK_SELECT.offset, to.bank, to.page]),
            Paging::Banked if from.page != to.page => (PAGE_SELECT.i2c_address, vec![PAGE_SELECT.offset, to.page]),
            Paging::Paged { register } if from.page != to.page => (register.i2c_address, vec![register.offset, to.page]),
            _ => return Ok(()),
        };
        self.bus.write(addr, &data).map_err(|e| io_error(&self.device, &self.what(req), e))
    }

    /// A module does not honour a select of a page it lacks (some keep the old selection,
    /// some revert to page 00h), so read the registers back rather than label another
    /// page's bytes with the page asked for.
    fn verify(&mut self, paging: Paging, wanted: Selection, req: PageRequest) -> Result<()> {
        let now = self.selection(paging, req)?;
        if now == wanted {
            return Ok(());
        }
        Err(SourceError::Unavailable {
            what: self.what(req),
            detail: format!(
                "the module did not accept bank {} page {:#04x} (select registers read back bank {} page {:#04x})",
                wanted.bank, wanted.page, now.bank, now.page
            ),
        })
    }

    /// `req.length` bytes from `req.offset`, in blocks of at most [`MAX_BLOCK_LEN`].
    fn read_blocks(&mut self, req: PageRequest) -> Result<Vec<u8>> {
        let mut data = vec![0u8; usize::from(req.length)];
        for (i, block) in data.chunks_mut(MAX_BLOCK_LEN).enumerate() {
            // `is_valid` keeps offset + length <= 256, so every block offset fits in a u8.
            let offset = usize::from(req.offset) + i * MAX_BLOCK_LEN;
            let offset = u8::try_from(offset)
                .map_err(|_| SourceError::Malformed { what: self.what(req), detail: format!("block offset {offset} past the page") })?;
            self.bus.write_read(req.i2c_address, &[offset], block).map_err(|e| io_error(&self.device, &self.what(req), e))?;
        }
        Ok(data)
    }

    fn what(&self, req: PageRequest) -> String {
        format!(
            "i2c {} read {:#04x} page {:#04x} bank {} offset {} length {}",
            self.device, req.i2c_address, req.page, req.bank, req.offset, req.length
        )
    }
}

impl<B: I2cBus + Send> EepromReader for I2cModule<B> {
    fn read(&mut self, req: PageRequest) -> Result<Vec<u8>> {
        self.read_request(req)
    }
    fn describe(&self) -> String {
        format!("i2c {}", self.device)
    }
}

/// Maps an i2c-dev errno to what the user should do about it.
fn io_error(device: &str, what: &str, e: io::Error) -> SourceError {
    let what = what.to_string();
    match e.raw_os_error() {
        Some(libc::EBUSY) => SourceError::Busy {
            what,
            message: Some(format!(
                "a kernel driver (sfp, optoe or at24) owns the module on {device}; \
                 read it through its network interface instead (without --i2c)"
            )),
        },
        Some(libc::EACCES) | Some(libc::EPERM) => SourceError::Permission {
            what,
            message: Some(format!("{device} needs read-write access: run as root or as a member of its group")),
        },
        Some(libc::ENOENT) => SourceError::Unavailable {
            what,
            detail: format!("{device} does not exist (wrong bus number, or the i2c-dev module is not loaded)"),
        },
        // The address was not acknowledged: no module in the cage, or no A2h on this one.
        Some(libc::ENXIO) | Some(libc::EREMOTEIO) => {
            SourceError::Unavailable { what, detail: format!("nothing answered on {device} (empty cage, or no memory at that address)") }
        }
        _ => SourceError::Io { what, source: e },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::map::{first_overlap, first_straddling};

    #[test]
    fn register_table_is_consistent() {
        assert_eq!(first_overlap(REGISTERS), None);
        assert_eq!(first_straddling(REGISTERS), None);
    }

    #[test]
    fn errno_mapping() {
        let e = |errno| io_error("/dev/i2c-7", "x", io::Error::from_raw_os_error(errno));
        let busy = e(libc::EBUSY);
        assert!(matches!(busy, SourceError::Busy { .. }));
        assert!(busy.to_string().contains("without --i2c"), "{busy}");
        assert!(matches!(e(libc::EACCES), SourceError::Permission { .. }));
        let missing = e(libc::ENOENT).to_string();
        assert!(missing.contains("/dev/i2c-7") && missing.contains("does not exist"), "{missing}");
        assert!(matches!(e(libc::ENXIO), SourceError::Unavailable { .. }));
        assert!(matches!(e(libc::EIO), SourceError::Io { .. }));
    }

    #[test]
    fn opening_a_missing_bus_names_it() {
        let err = I2cModule::open("/dev/i2c-optics-does-not-exist").unwrap_err();
        let text = err.to_string();
        assert!(matches!(err, SourceError::Unavailable { .. }), "{text}");
        assert!(text.contains("/dev/i2c-optics-does-not-exist"), "{text}");
    }

    #[test]
    fn a_device_that_is_not_an_i2c_adapter_is_an_io_error() {
        // /dev/null refuses the I2C_SLAVE ioctl (ENOTTY).
        let err = I2cModule::open("/dev/null").unwrap_err();
        assert!(matches!(err, SourceError::Io { .. }), "{err}");
    }
}
