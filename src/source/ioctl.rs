//! Legacy `SIOCETHTOOL` ioctls (kernel-uapi.md §2, §3, §5, §7): the only path on
//! kernels without ethtool netlink (before 5.6, e.g. RHEL 8's 4.18) or without
//! MODULE_EEPROM_GET / FEC_GET (before 5.13), and the only path at all for the
//! driver-private `ethtool -S` counters.
//!
//! Every command is a byte buffer laid out like the uapi struct (host-endian fields at
//! fixed offsets), passed through the one unsafe call in `Ethtool::call`.

use super::netlink::linkmodes::LinkModes;
use super::netlink::Dev;
use super::{IoCounts, Result, SourceError};
use crate::counters::DriverStats;
use crate::module::map::Field;
use crate::module::{PageRequest, I2C_A0, I2C_A2};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

mod stats;
use stats::{StatIoctls, StatReader};

// Command numbers, include/uapi/linux/ethtool.h (Linux 6.18).
const ETHTOOL_GDRVINFO: u32 = 0x03;
const ETHTOOL_GLINK: u32 = 0x0a;
const ETHTOOL_GSTRINGS: u32 = 0x1b;
const ETHTOOL_GSTATS: u32 = 0x1d;
const ETHTOOL_GSSET_INFO: u32 = 0x37;
const ETHTOOL_GMODULEINFO: u32 = 0x42;
const ETHTOOL_GMODULEEEPROM: u32 = 0x43;
const ETHTOOL_GLINKSETTINGS: u32 = 0x4c;
const ETHTOOL_GFECPARAM: u32 = 0x50;
/// `enum ethtool_stringset` ETH_SS_STATS.
const ETH_SS_STATS: u32 = 1;
const ETH_GSTRING_LEN: usize = 32;
/// `struct ethtool_drvinfo` is 196 bytes; n_stats at 180.
const DRVINFO_LEN: usize = 196;
/// `struct ethtool_link_settings` without the trailing masks.
const LINK_SETTINGS_LEN: usize = 48;

/// Entries to allocate for an expected count `n`: kernels before upstream 7b07be1ff1cb
/// (Dec 2025; stable backports) ignore the caller's count and write the driver's
/// current one, which may have grown since GSSET_INFO. Headroom keeps such a write
/// inside the buffer; the count mismatch is then seen and the query repeated.
fn with_headroom(n: u32) -> usize {
    2 * n as usize + 64
}

/// `struct ethtool_drvinfo`, C strings cut at the first NUL (the kernel leaves stale
/// bytes after it, e.g. `"1.0\0<garbage>"`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DrvInfo {
    /// Driver name.
    pub driver: String,
    /// Driver version.
    pub version: String,
    /// Firmware version.
    pub fw_version: String,
    pub(crate) bus_info: String,
    /// Number of driver statistics `ETHTOOL_GSTATS` returns.
    pub n_stats: u32,
}

/// `struct ethtool_modinfo`: module type (`ETH_MODULE_SFF_*`) and legacy EEPROM length.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ModuleInfo {
    pub(crate) module_type: u32,
    pub(crate) eeprom_len: u32,
}

pub(crate) const ETH_MODULE_SFF_8079: u32 = 0x1;
pub(crate) const ETH_MODULE_SFF_8472: u32 = 0x2;
pub(crate) const ETH_MODULE_SFF_8636: u32 = 0x3;
pub(crate) const ETH_MODULE_SFF_8436: u32 = 0x4;

/// One half page of a legacy linear EEPROM dump: where `half` lives in the module and
/// where its first byte is in the dump (kernel-uapi.md §2 module-type table;
/// net/ethtool/eeprom.c fallback `offset + page*128`, A2h at +256).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LegacySpan {
    pub(crate) module_types: &'static [u32],
    pub(crate) half: Field,
    pub(crate) linear_start: u16,
}

const SFP: &[u32] = &[ETH_MODULE_SFF_8079, ETH_MODULE_SFF_8472];
const SFF8472: &[u32] = &[ETH_MODULE_SFF_8472];
const QSFP: &[u32] = &[ETH_MODULE_SFF_8636, ETH_MODULE_SFF_8436];

pub(crate) const LEGACY_SPANS: &[LegacySpan] = &[
    // SFF-8079: A0h only (256). SFF-8472: A0h then A2h (512).
    LegacySpan { module_types: SFP, half: Field::new("A0h lower", I2C_A0, 0, 0, 128), linear_start: 0 },
    LegacySpan { module_types: SFP, half: Field::new("A0h upper", I2C_A0, 0, 128, 128), linear_start: 128 },
    LegacySpan { module_types: SFF8472, half: Field::new("A2h lower", I2C_A2, 0, 0, 128), linear_start: 256 },
    LegacySpan { module_types: SFF8472, half: Field::new("A2h upper", I2C_A2, 0, 128, 128), linear_start: 384 },
    // SFF-8636/8436: lower + page 00h (256), upper pages 01h-03h at page*128+offset (640).
    LegacySpan { module_types: QSFP, half: Field::new("lower", I2C_A0, 0, 0, 128), linear_start: 0 },
    LegacySpan { module_types: QSFP, half: Field::new("page 00h", I2C_A0, 0, 128, 128), linear_start: 128 },
    LegacySpan { module_types: QSFP, half: Field::new("page 01h", I2C_A0, 1, 128, 128), linear_start: 256 },
    LegacySpan { module_types: QSFP, half: Field::new("page 02h", I2C_A0, 2, 128, 128), linear_start: 384 },
    LegacySpan { module_types: QSFP, half: Field::new("page 03h", I2C_A0, 3, 128, 128), linear_start: 512 },
];

/// Why a request has no place in a driver's legacy (`ETHTOOL_GMODULEEEPROM`) linear dump.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LegacyLayoutError {
    /// CMIS has no `ETH_MODULE_*` type: the legacy dump stops at page 00h.
    #[error("module type {module_type:#x} has no legacy linear layout; CMIS pages beyond 00h need ethtool netlink (Linux 5.13+)")]
    NoLinearLayout { module_type: u32 },
    /// The page (or bank) is not one the module type's layout holds.
    #[error("i2c {i2c_address:#x} page {page:#x} bank {bank} is not in the legacy EEPROM layout of module type {module_type:#x}")]
    NotInLayout { i2c_address: u8, page: u8, bank: u8, module_type: u32 },
    /// The driver's dump is shorter than the layout.
    #[error("bytes {start}..{end} are beyond the driver's legacy EEPROM length {eeprom_len}")]
    BeyondLength { start: u32, end: u32, eeprom_len: u32 },
}

/// Linear offset of a valid request in a legacy dump of `info`, or why there is none.
pub(crate) fn legacy_offset(info: ModuleInfo, req: &PageRequest) -> std::result::Result<u32, LegacyLayoutError> {
    if !matches!(info.module_type, ETH_MODULE_SFF_8079 | ETH_MODULE_SFF_8472 | ETH_MODULE_SFF_8636 | ETH_MODULE_SFF_8436) {
        return Err(LegacyLayoutError::NoLinearLayout { module_type: info.module_type });
    }
    let span = LEGACY_SPANS
        .iter()
        .filter(|s| s.module_types.contains(&info.module_type) && req.bank == 0)
        .find(|s| {
            let h = s.half;
            h.i2c_address == req.i2c_address && h.page == req.page && (h.offset..=h.offset.saturating_add(h.len - 1)).contains(&req.offset)
        })
        .ok_or(LegacyLayoutError::NotInLayout {
            i2c_address: req.i2c_address,
            page: req.page,
            bank: req.bank,
            module_type: info.module_type,
        })?;
    let linear = u32::from(span.linear_start) + u32::from(req.offset - span.half.offset);
    let end = linear + u32::from(req.length);
    if end > info.eeprom_len {
        return Err(LegacyLayoutError::BeyondLength { start: linear, end, eeprom_len: info.eeprom_len });
    }
    Ok(linear)
}

/// `ETHTOOL_GFECPARAM` active_fec bits (`ETHTOOL_FEC_*_BIT`) and the names the netlink
/// path uses for the same modes. AUTO never appears as the active mode.
const FEC_PARAM_BITS: &[(u32, &str)] = &[(0x1, "None"), (0x4, "None"), (0x8, "RS"), (0x10, "BASER"), (0x20, "LLRS")];

/// A host-endian u32 at `at`, or 0 past the end (buffers are sized by the caller).
fn get_u32(b: &[u8], at: usize) -> u32 {
    b.get(at..at + 4).and_then(|s| s.try_into().ok()).map(u32::from_ne_bytes).unwrap_or(0)
}

fn put_u32(b: &mut [u8], at: usize, v: u32) {
    if let Some(s) = b.get_mut(at..at + 4) {
        s.copy_from_slice(&v.to_ne_bytes());
    }
}

fn c_string(b: &[u8]) -> String {
    super::netlink::parse::string_of(b)
}

/// An `AF_INET`/`SOCK_DGRAM` socket for `SIOCETHTOOL` in the calling thread's netns.
pub struct Ethtool {
    fd: OwnedFd,
    io: IoCounts,
    /// Driver-statistics names and buffer, kept between samples ([`stats`]).
    stat_reader: StatReader,
}

impl Ethtool {
    /// Opens the datagram socket the ethtool ioctls go through.
    pub fn open() -> Result<Self> {
        // SAFETY: socket(2) takes no pointers; a negative return is checked below.
        let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(SourceError::Io { what: "ethtool ioctl socket".into(), source: std::io::Error::last_os_error() });
        }
        // SAFETY: fd is a freshly created descriptor owned by nothing else.
        Ok(Ethtool { fd: unsafe { OwnedFd::from_raw_fd(fd) }, io: IoCounts::default(), stat_reader: StatReader::default() })
    }

    /// Requests and bytes so far.
    pub fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }

    /// An `ifreq` naming `name`, or `NoDevice` for a name no netdev can have.
    fn ifreq(name: &str, what: &str) -> Result<libc::ifreq> {
        let bytes = name.as_bytes();
        // SAFETY: ifreq is a plain C struct (chars and a union of ints/pointers); all
        // zeroes is a valid value.
        let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
        if bytes.is_empty() || bytes.len() >= ifr.ifr_name.len() || bytes.contains(&0) {
            return Err(SourceError::NoDevice {
                what: what.into(),
                iface: name.into(),
                message: Some("not a valid interface name".into()),
            });
        }
        for (d, s) in ifr.ifr_name.iter_mut().zip(bytes) {
            *d = *s as libc::c_char;
        }
        Ok(ifr)
    }

    /// One ioctl on the socket, counted as a request.
    fn ioctl(&mut self, request: libc::c_ulong, ifr: &mut libc::ifreq) -> std::result::Result<(), i32> {
        // SAFETY: ifr is a valid ifreq; for SIOCETHTOOL its ifr_data points to a buffer
        // laid out as the command's struct and sized for what the kernel writes back
        // (see `call`); SIOCGIFINDEX/SIOCGIFNAME read and write the ifreq itself.
        let rc = unsafe { libc::ioctl(self.fd.as_raw_fd(), request as _, ifr as *mut libc::ifreq) };
        self.io.requests += 1;
        if rc < 0 {
            return Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(libc::EIO));
        }
        Ok(())
    }

    /// One `SIOCETHTOOL` call on `dev.name` with `buf` as `ifr_data`; `buf` starts with
    /// the u32 command and is laid out like the command's uapi struct. Buffers are sized
    /// for what the kernel may write: fixed structs at their uapi size, arrays from the
    /// count passed in (honoured by 6.18+/stable kernels) plus headroom for older
    /// kernels (`with_headroom`). Callers count the bytes the kernel filled (`got`).
    fn call(&mut self, dev: &Dev, buf: &mut [u8], what: &str) -> Result<()> {
        let mut ifr = Self::ifreq(&dev.name, what)?;
        ifr.ifr_ifru.ifru_data = buf.as_mut_ptr().cast();
        self.ioctl(libc::SIOCETHTOOL, &mut ifr)
            .map_err(|errno| SourceError::from_errno(what, &dev.name, dev.driver.as_deref(), errno, None))
    }

    /// Bytes the kernel filled in for the caller.
    fn got(&mut self, bytes: usize) {
        self.io.bytes += bytes as u64;
    }

    /// A command whose struct is `N` bytes (on the stack: GLINK is asked every sample).
    fn command<const N: usize>(&mut self, dev: &Dev, cmd: u32, what: &str) -> Result<[u8; N]> {
        let mut buf = [0u8; N];
        put_u32(&mut buf, 0, cmd);
        self.call(dev, &mut buf, what)?;
        self.got(N);
        Ok(buf)
    }

    /// `SIOCGIFINDEX` on this socket (one syscall, where `if_nametoindex` opens and
    /// closes a socket of its own): `None` when no netdev has the name.
    pub fn ifindex(&mut self, name: &str) -> Option<u32> {
        let mut ifr = Self::ifreq(name, "SIOCGIFINDEX").ok()?;
        self.ioctl(libc::SIOCGIFINDEX, &mut ifr).ok()?;
        // SAFETY: SIOCGIFINDEX succeeded, so the kernel wrote the ifindex member.
        let i = unsafe { ifr.ifr_ifru.ifru_ifindex };
        self.got(std::mem::size_of::<libc::ifreq>());
        u32::try_from(i).ok().filter(|&i| i != 0)
    }

    /// `SIOCGIFNAME`: the name of the netdev with `ifindex`, `None` when there is none.
    pub(crate) fn ifname(&mut self, ifindex: u32) -> Option<String> {
        // SAFETY: as in `ifreq`, all zeroes is a valid ifreq.
        let mut ifr: libc::ifreq = unsafe { std::mem::zeroed() };
        ifr.ifr_ifru.ifru_ifindex = i32::try_from(ifindex).ok()?;
        self.ioctl(libc::SIOCGIFNAME, &mut ifr).ok()?;
        self.got(std::mem::size_of::<libc::ifreq>());
        let bytes: Vec<u8> = ifr.ifr_name.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        String::from_utf8(bytes).ok()
    }

    /// `SIOCGIFMTU`: the netdev's MTU in this socket's netns (where `/sys/class/net`
    /// may show another one's); `None` when no netdev has the name.
    pub(crate) fn mtu(&mut self, name: &str) -> Option<u32> {
        let mut ifr = Self::ifreq(name, "SIOCGIFMTU").ok()?;
        self.ioctl(libc::SIOCGIFMTU, &mut ifr).ok()?;
        // SAFETY: SIOCGIFMTU succeeded, so the kernel wrote the mtu member.
        let mtu = unsafe { ifr.ifr_ifru.ifru_mtu };
        self.got(std::mem::size_of::<libc::ifreq>());
        u32::try_from(mtu).ok()
    }

    /// `ETHTOOL_GDRVINFO`.
    pub fn drvinfo(&mut self, dev: &Dev) -> Result<DrvInfo> {
        let b = self.command::<DRVINFO_LEN>(dev, ETHTOOL_GDRVINFO, "ETHTOOL_GDRVINFO")?;
        let s = |at: usize| c_string(b.get(at..at + 32).unwrap_or_default());
        Ok(DrvInfo { driver: s(4), version: s(36), fw_version: s(68), bus_info: s(100), n_stats: get_u32(&b, 180) })
    }

    /// `ETHTOOL_GLINK`: carrier as the driver sees it.
    pub fn link_up(&mut self, dev: &Dev) -> Result<bool> {
        let b = self.command::<8>(dev, ETHTOOL_GLINK, "ETHTOOL_GLINK")?;
        Ok(get_u32(&b, 4) != 0)
    }

    /// `ETHTOOL_GSSET_INFO` for one string set: `None` when the kernel cleared the
    /// set's bit (the driver has no such set).
    pub(crate) fn sset_count(&mut self, dev: &Dev, set: u32) -> Result<Option<u32>> {
        // {u32 cmd; u32 reserved; u64 sset_mask; u32 data[1]}
        let mut buf = [0u8; 20];
        put_u32(&mut buf, 0, ETHTOOL_GSSET_INFO);
        buf[8..16].copy_from_slice(&(1u64 << set).to_ne_bytes());
        self.call(dev, &mut buf, "ETHTOOL_GSSET_INFO")?;
        self.got(buf.len());
        let mask = buf.get(8..16).and_then(|s| s.try_into().ok()).map(u64::from_ne_bytes).unwrap_or(0);
        Ok((mask & (1 << set) != 0).then(|| get_u32(&buf, 16)))
    }

    /// `ETHTOOL_GSTRINGS` for `n` strings. `None` when the kernel answered with another
    /// count (6.18+/stable: 0 on mismatch; the set changed size).
    fn strings(&mut self, dev: &Dev, set: u32, n: u32) -> Result<Option<Vec<String>>> {
        let mut buf = vec![0u8; 12 + with_headroom(n) * ETH_GSTRING_LEN];
        put_u32(&mut buf, 0, ETHTOOL_GSTRINGS);
        put_u32(&mut buf, 4, set);
        put_u32(&mut buf, 8, n);
        self.call(dev, &mut buf, "ETHTOOL_GSTRINGS")?;
        let written = get_u32(&buf, 8);
        self.got(12 + (written as usize).min(with_headroom(n)) * ETH_GSTRING_LEN);
        if written != n {
            return Ok(None);
        }
        let names = buf.get(12..12 + n as usize * ETH_GSTRING_LEN).unwrap_or_default();
        Ok(Some(names.chunks_exact(ETH_GSTRING_LEN).map(c_string).collect()))
    }

    /// Driver-private counters (`ethtool -S`), see `stats`.
    pub fn driver_stats(&mut self, dev: &Dev) -> Result<DriverStats> {
        // Taken out for the call: the reader drives this socket's ioctls.
        let mut reader = std::mem::take(&mut self.stat_reader);
        let r = reader.read(self, dev);
        self.stat_reader = reader;
        r
    }

    /// `ETHTOOL_GMODULEINFO`.
    pub(crate) fn module_info(&mut self, dev: &Dev) -> Result<ModuleInfo> {
        let b = self.command::<44>(dev, ETHTOOL_GMODULEINFO, "ETHTOOL_GMODULEINFO")?;
        Ok(ModuleInfo { module_type: get_u32(&b, 4), eeprom_len: get_u32(&b, 8) })
    }

    /// One module read through the legacy linear dump (`ETHTOOL_GMODULEEEPROM`).
    pub fn module_eeprom(&mut self, dev: &Dev, req: PageRequest) -> Result<Vec<u8>> {
        let what = format!("module EEPROM read {req:?} (ioctl)");
        let info = self.module_info(dev)?;
        let offset = legacy_offset(info, &req).map_err(|e| SourceError::Unavailable { what: what.clone(), detail: e.to_string() })?;
        // {u32 cmd, magic, offset, len; u8 data[len]}
        let mut buf = vec![0u8; 16 + usize::from(req.length)];
        put_u32(&mut buf, 0, ETHTOOL_GMODULEEEPROM);
        put_u32(&mut buf, 8, offset);
        put_u32(&mut buf, 12, u32::from(req.length));
        self.call(dev, &mut buf, &what)?;
        let got = (get_u32(&buf, 12) as usize).min(usize::from(req.length));
        self.got(16 + got);
        Ok(buf.get(16..16 + got).unwrap_or_default().to_vec())
    }

    /// `ETHTOOL_GLINKSETTINGS` with the nwords handshake: the first call (nwords 0)
    /// returns -nwords, the second fills supported/advertising/lp_advertising.
    pub fn link_settings(&mut self, dev: &Dev) -> Result<LinkModes> {
        let what = "ETHTOOL_GLINKSETTINGS";
        let probe = self.command::<LINK_SETTINGS_LEN>(dev, ETHTOOL_GLINKSETTINGS, what)?;
        let nwords = match probe.get(15).map(|&b| b as i8) {
            Some(n) if n < 0 => n.unsigned_abs() as usize,
            other => return Err(SourceError::Malformed { what: what.into(), detail: format!("handshake gave nwords {other:?}") }),
        };
        let mut buf = vec![0u8; LINK_SETTINGS_LEN + 3 * 4 * nwords];
        put_u32(&mut buf, 0, ETHTOOL_GLINKSETTINGS);
        buf[15] = nwords as u8; // at most 127: it came from an i8
        self.call(dev, &mut buf, what)?;
        self.got(buf.len());
        let words = |i: usize| (0..nwords).map(|w| get_u32(&buf, LINK_SETTINGS_LEN + 4 * (i * nwords + w))).collect();
        Ok(LinkModes {
            speed_mbps: Some(get_u32(&buf, 4)).filter(|&s| s != u32::MAX),
            lanes: None, // not in the ioctl struct
            duplex: buf.get(8).copied().filter(|&d| d != 0xFF),
            supported: words(0),
            advertised: words(1),
        })
    }

    /// `ETHTOOL_GFECPARAM`: the active FEC mode's name (no statistics over the ioctl).
    pub fn fec_active(&mut self, dev: &Dev) -> Result<Option<String>> {
        let b = self.command::<16>(dev, ETHTOOL_GFECPARAM, "ETHTOOL_GFECPARAM")?;
        let active = get_u32(&b, 4);
        Ok(FEC_PARAM_BITS.iter().find(|(bit, _)| active & bit != 0).map(|(_, n)| n.to_string()))
    }
}

impl StatIoctls for Ethtool {
    fn stat_count(&mut self, dev: &Dev) -> Result<Option<u32>> {
        self.sset_count(dev, ETH_SS_STATS)
    }

    fn stat_names(&mut self, dev: &Dev, n: u32) -> Result<Option<Vec<String>>> {
        self.strings(dev, ETH_SS_STATS, n)
    }

    fn stat_values(&mut self, dev: &Dev, n: u32, buf: &mut Vec<u8>) -> Result<u32> {
        // Not cleared: the kernel writes all n values (a short write is a mismatch,
        // refused), so only a grown tail needs zeroing.
        buf.resize(8 + with_headroom(n) * 8, 0);
        put_u32(buf, 0, ETHTOOL_GSTATS);
        put_u32(buf, 4, n);
        self.call(dev, buf, "ETHTOOL_GSTATS")?;
        let written = get_u32(buf, 4);
        self.got(8 + (written as usize).min(with_headroom(n)) * 8);
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::map::{first_overlap, first_straddling};

    #[test]
    fn legacy_spans_are_half_pages_without_overlap() {
        for t in [ETH_MODULE_SFF_8079, ETH_MODULE_SFF_8472, ETH_MODULE_SFF_8636] {
            let halves: Vec<Field> = LEGACY_SPANS.iter().filter(|s| s.module_types.contains(&t)).map(|s| s.half).collect();
            assert_eq!(first_overlap(&halves), None, "type {t}");
            assert_eq!(first_straddling(&halves), None, "type {t}");
        }
    }

    #[test]
    fn legacy_offsets() {
        let sfp = ModuleInfo { module_type: ETH_MODULE_SFF_8472, eeprom_len: 512 };
        // A2h byte 96 (SFF-8472 Table 9-11 temperature) sits at 256 + 96 = 352.
        assert_eq!(legacy_offset(sfp, &PageRequest::new(I2C_A2, 0, 0, 96, 10)), Ok(352));
        assert_eq!(legacy_offset(sfp, &PageRequest::upper(I2C_A0, 0, 0)), Ok(128));
        assert!(legacy_offset(sfp, &PageRequest::upper(I2C_A2, 1, 0)).is_err());
        // SFF-8079 has no A2h.
        let sff8079 = ModuleInfo { module_type: ETH_MODULE_SFF_8079, eeprom_len: 256 };
        assert!(legacy_offset(sff8079, &PageRequest::lower(I2C_A2)).is_err());
        let qsfp = ModuleInfo { module_type: ETH_MODULE_SFF_8636, eeprom_len: 640 };
        // Page 03h byte 128 (thresholds, SFF-8636 Table 6-21) at 3*128 + 128 = 512.
        assert_eq!(legacy_offset(qsfp, &PageRequest::upper(I2C_A0, 3, 0)), Ok(512));
        // Page 03h upper ends at 512 + 128 = 640 = eeprom_len: fits exactly.
        assert_eq!(legacy_offset(qsfp, &PageRequest::new(I2C_A0, 3, 0, 250, 6)), Ok(634));
        // A 256-byte QSFP dump has no page 03h.
        let short = ModuleInfo { module_type: ETH_MODULE_SFF_8636, eeprom_len: 256 };
        assert_eq!(
            legacy_offset(short, &PageRequest::upper(I2C_A0, 3, 0)),
            Err(LegacyLayoutError::BeyondLength { start: 512, end: 640, eeprom_len: 256 })
        );
        // CMIS (type 0 / unknown) cannot be reached beyond page 00h.
        let cmis = ModuleInfo { module_type: 0x9, eeprom_len: 256 };
        let e = legacy_offset(cmis, &PageRequest::upper(I2C_A0, 0x11, 0)).unwrap_err();
        assert_eq!(e, LegacyLayoutError::NoLinearLayout { module_type: 0x9 });
        assert!(e.to_string().contains("CMIS"));
        // Banks do not exist in the legacy layout.
        assert!(legacy_offset(qsfp, &PageRequest::upper(I2C_A0, 3, 1)).is_err());
    }
}
