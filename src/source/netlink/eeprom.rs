//! `ETHTOOL_MSG_MODULE_EEPROM_GET` (31, Linux 5.13; kernel-uapi.md §2). One request is
//! at most 128 bytes inside one half page; the kernel rejects anything else with EINVAL,
//! so requests are checked with [`PageRequest::is_valid`] before sending.

use super::consts::*;
use super::parse::{attrs, AttrWriter, WireError};
use super::{malformed, Dev, Netlink};
use crate::module::PageRequest;
use crate::source::{Result, SourceError};

/// Request attributes. BANK is always sent (0 is the kernel's default too) so the bytes
/// are the same for every module type.
pub fn request_attrs(dev: &Dev, req: &PageRequest) -> Vec<u8> {
    let mut w = AttrWriter::new();
    dev.header_in(&mut w, ETHTOOL_A_MODULE_EEPROM_HEADER, 0)
        .u32(ETHTOOL_A_MODULE_EEPROM_OFFSET, u32::from(req.offset))
        .u32(ETHTOOL_A_MODULE_EEPROM_LENGTH, u32::from(req.length))
        .u8(ETHTOOL_A_MODULE_EEPROM_PAGE, req.page)
        .u8(ETHTOOL_A_MODULE_EEPROM_BANK, req.bank)
        .u8(ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, req.i2c_address);
    w.into_bytes()
}

/// The DATA attribute, as is: it may be shorter than asked (the driver returned less).
pub fn parse_reply(buf: &[u8]) -> std::result::Result<Vec<u8>, WireError> {
    attrs(buf)?
        .iter()
        .find(|a| a.ty == ETHTOOL_A_MODULE_EEPROM_DATA)
        .map(|a| a.payload.to_vec())
        .ok_or(WireError::Missing("ETHTOOL_A_MODULE_EEPROM_DATA"))
}

/// Calls `read` a second time when the first failed with EIO or EAGAIN: a busy I2C bus
/// or a module still initialising answers those transiently.
pub(crate) fn retry_transient<T>(mut read: impl FnMut() -> Result<T>) -> Result<T> {
    match read() {
        Err(e) if matches!(e.errno(), Some(libc::EIO | libc::EAGAIN)) => read(),
        r => r,
    }
}

impl Netlink {
    /// One module read, retried once on EIO/EAGAIN.
    pub fn module_eeprom(&mut self, family: u16, dev: &Dev, req: PageRequest) -> Result<Vec<u8>> {
        let what = format!("module EEPROM read {req:?}");
        if !req.is_valid() {
            return Err(SourceError::Unavailable { what, detail: "request must be 1-128 bytes inside one half page".into() });
        }
        let attrs = request_attrs(dev, &req);
        retry_transient(|| self.module_eeprom_raw(family, dev, &attrs, &what))
    }

    /// Sends prepared attributes without the validity check (tests use it to see the
    /// kernel's own validation errors).
    pub fn module_eeprom_raw(&mut self, family: u16, dev: &Dev, attrs: &[u8], what: &str) -> Result<Vec<u8>> {
        let reply = self.do_one(family, ETHTOOL_MSG_MODULE_EEPROM_GET, attrs, what, Some(dev))?;
        parse_reply(&reply).map_err(|d| malformed(what, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failing(errnos: &[i32]) -> impl FnMut() -> Result<Vec<u8>> + '_ {
        let mut calls = 0;
        move || {
            let r = match errnos.get(calls) {
                Some(&e) => Err(SourceError::from_errno("read", "eth0", None, e, None)),
                None => Ok(vec![1]),
            };
            calls += 1;
            r
        }
    }

    #[test]
    fn retries_once_on_eio_and_eagain_only() {
        assert_eq!(retry_transient(failing(&[libc::EIO])).unwrap(), vec![1]);
        assert_eq!(retry_transient(failing(&[libc::EAGAIN])).unwrap(), vec![1]);
        assert_eq!(retry_transient(failing(&[libc::EIO, libc::EIO])).unwrap_err().errno(), Some(libc::EIO));
        assert!(retry_transient(failing(&[libc::EOPNOTSUPP])).unwrap_err().is_not_supported());
    }
}
