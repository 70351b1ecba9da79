//! The live [`Source`]: ethtool netlink where the running kernel has the family and the
//! op, else the legacy `SIOCETHTOOL` ioctls (kernels before 5.6 such as RHEL 8's 4.18
//! have no ethtool netlink; 5.6-5.12, e.g. Ubuntu 20.04's 5.4 backports, lack FEC_GET
//! and MODULE_EEPROM_GET). The op list is read once (GETFAMILY). Driver and bus come
//! from GDRVINFO, PCIe link and port identity from sysfs.
//!
//! The kernel sits behind [`EthtoolKernel`] so the path selection is tested with a fake.

use super::ioctl::{DrvInfo, Ethtool};
use super::netlink::consts::*;
use super::netlink::eeprom::retry_transient;
use super::netlink::family::OpSet;
use super::netlink::fec::FecReply;
use super::netlink::link_watch::LinkWatch;
use super::netlink::linkmodes::LinkModes;
use super::netlink::{Dev, Family, Netlink};
use super::sysfs::Sysfs;
use super::{EepromReader, IoCounts, PathsUsed, Result, Source, SourceError};
use crate::counters::host::PauseStats;
use crate::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use crate::device::host::{Channels, Fact, HostFacts, Rings};
use crate::device::DeviceIdentity;
use crate::module::PageRequest;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

mod label;
mod link;
mod notes;
use label::{relabel, relabelled};
use link::NamedModes;
pub(crate) use link::LINK_REFRESH;
use notes::{LastNoted, Layer};

/// What the live source needs from the kernel: netlink calls take the family id.
pub trait EthtoolKernel {
    /// The `ethtool` genl family and its ops; `None` when the kernel has none.
    fn netlink_family(&mut self) -> Result<Option<Family>>;
    /// LINKMODES_GET: speed, lanes, advertised and supported modes.
    fn nl_link_modes(&mut self, family: u16, dev: &Dev) -> Result<LinkModes>;
    /// LINKSTATE_GET: link up and its extended down state.
    fn nl_link_state(&mut self, family: u16, dev: &Dev) -> Result<LinkState>;
    /// FEC_GET with statistics: the active mode and its counters.
    fn nl_fec(&mut self, family: u16, dev: &Dev) -> Result<FecReply>;
    /// MODULE_EEPROM_GET: one read of at most 128 bytes in one half page.
    fn nl_module_eeprom(&mut self, family: u16, dev: &Dev, req: PageRequest) -> Result<Vec<u8>>;
    /// RINGS_GET; a kernel without it is told by the op list, so the default never runs live.
    fn nl_rings(&mut self, _family: u16, dev: &Dev) -> Result<Rings> {
        Err(SourceError::NotSupported { what: "RINGS_GET".into(), driver: dev.driver.clone(), message: None })
    }
    /// PAUSE_GET with statistics (as [`Self::nl_rings`]); `None` when the reply has none.
    fn nl_pause(&mut self, _family: u16, dev: &Dev) -> Result<Option<PauseStats>> {
        Err(SourceError::NotSupported { what: "PAUSE_GET".into(), driver: dev.driver.clone(), message: None })
    }
    /// CHANNELS_GET (as [`Self::nl_rings`]).
    fn nl_channels(&mut self, _family: u16, dev: &Dev) -> Result<Channels> {
        Err(SourceError::NotSupported { what: "CHANNELS_GET".into(), driver: dev.driver.clone(), message: None })
    }
    /// `ETHTOOL_GDRVINFO`.
    fn drvinfo(&mut self, dev: &Dev) -> Result<DrvInfo>;
    /// `ETHTOOL_GLINK`.
    fn link_up(&mut self, dev: &Dev) -> Result<bool>;
    /// `ETHTOOL_GLINKSETTINGS`.
    fn link_settings(&mut self, dev: &Dev) -> Result<LinkModes>;
    /// `ETHTOOL_GFECPARAM`: the active FEC mode's name, `None` when off.
    fn fec_active(&mut self, dev: &Dev) -> Result<Option<String>>;
    /// `ETHTOOL_GSSET_INFO` + `ETHTOOL_GSTRINGS` + `ETHTOOL_GSTATS`.
    fn driver_stats(&mut self, dev: &Dev) -> Result<DriverStats>;
    /// `ETHTOOL_GMODULEEEPROM` (the legacy read, for kernels without netlink).
    fn module_eeprom(&mut self, dev: &Dev, req: PageRequest) -> Result<Vec<u8>>;
    /// The ifindex of the netdev named `name`, in the sockets' netns.
    fn ifindex(&mut self, name: &str) -> Option<u32>;
    /// The name of the netdev with `ifindex`, in the sockets' netns.
    fn ifname(&mut self, ifindex: u32) -> Option<String>;
    /// The MTU of the netdev named `name`, in the sockets' netns.
    fn mtu(&mut self, name: &str) -> Option<u32>;
    /// Requests and bytes so far, netlink and ioctl together.
    fn io_counts(&self) -> IoCounts;
}

/// The running kernel; sockets open on first use, in the calling thread's netns.
#[derive(Default)]
pub struct RealKernel {
    nl: Option<Netlink>,
    ioctl: Option<Ethtool>,
}

impl RealKernel {
    fn nl(&mut self) -> Result<&mut Netlink> {
        match self.nl {
            Some(ref mut nl) => Ok(nl),
            None => Ok(self.nl.insert(Netlink::connect()?)),
        }
    }
    fn ioctl(&mut self) -> Result<&mut Ethtool> {
        match self.ioctl {
            Some(ref mut io) => Ok(io),
            None => Ok(self.ioctl.insert(Ethtool::open()?)),
        }
    }
}

impl EthtoolKernel for RealKernel {
    fn netlink_family(&mut self) -> Result<Option<Family>> {
        self.nl()?.ethtool_family()
    }
    fn nl_link_modes(&mut self, family: u16, dev: &Dev) -> Result<LinkModes> {
        self.nl()?.link_modes(family, dev)
    }
    fn nl_link_state(&mut self, family: u16, dev: &Dev) -> Result<LinkState> {
        self.nl()?.link_state(family, dev)
    }
    fn nl_fec(&mut self, family: u16, dev: &Dev) -> Result<FecReply> {
        self.nl()?.fec(family, dev)
    }
    fn nl_module_eeprom(&mut self, family: u16, dev: &Dev, req: PageRequest) -> Result<Vec<u8>> {
        self.nl()?.module_eeprom(family, dev, req)
    }
    fn nl_rings(&mut self, family: u16, dev: &Dev) -> Result<Rings> {
        self.nl()?.rings(family, dev)
    }
    fn nl_channels(&mut self, family: u16, dev: &Dev) -> Result<Channels> {
        self.nl()?.channels(family, dev)
    }
    fn nl_pause(&mut self, family: u16, dev: &Dev) -> Result<Option<PauseStats>> {
        self.nl()?.pause(family, dev)
    }
    fn drvinfo(&mut self, dev: &Dev) -> Result<DrvInfo> {
        self.ioctl()?.drvinfo(dev)
    }
    fn link_up(&mut self, dev: &Dev) -> Result<bool> {
        self.ioctl()?.link_up(dev)
    }
    fn link_settings(&mut self, dev: &Dev) -> Result<LinkModes> {
        self.ioctl()?.link_settings(dev)
    }
    fn fec_active(&mut self, dev: &Dev) -> Result<Option<String>> {
        self.ioctl()?.fec_active(dev)
    }
    fn driver_stats(&mut self, dev: &Dev) -> Result<DriverStats> {
        self.ioctl()?.driver_stats(dev)
    }
    fn module_eeprom(&mut self, dev: &Dev, req: PageRequest) -> Result<Vec<u8>> {
        self.ioctl()?.module_eeprom(dev, req)
    }
    fn ifindex(&mut self, name: &str) -> Option<u32> {
        self.ioctl().ok()?.ifindex(name)
    }
    fn ifname(&mut self, ifindex: u32) -> Option<String> {
        self.ioctl().ok()?.ifname(ifindex)
    }
    fn mtu(&mut self, name: &str) -> Option<u32> {
        self.ioctl().ok()?.mtu(name)
    }
    fn io_counts(&self) -> IoCounts {
        let nl = self.nl.as_ref().map(Netlink::io_counts).unwrap_or_default();
        let io = self.ioctl.as_ref().map(Ethtool::io_counts).unwrap_or_default();
        IoCounts { requests: nl.requests + io.requests, bytes: nl.bytes + io.bytes }
    }
}

/// Live kernel source for any netdev of the calling thread's network namespace.
/// Interfaces are named by name or by ifindex (a decimal string).
///
/// A sample costs one request per layer: the ifindex is resolved once per interface
/// (and again after a request finds the device gone), netlink requests carry both the
/// ifindex and the name so the kernel itself reports a rename swap (ENODEV "ifindex
/// and name do not match", kernel-uapi.md §1.3), and the FEC_GET reply serves both
/// the active mode (`link_info`) and the counters (`fec`) of the same sample. Link state
/// and modes are kept between samples and asked again when a link notification, a
/// change of `ETHTOOL_GLINK` or a periodic refresh says so (`link`).
pub struct LiveSource<K: EthtoolKernel = RealKernel> {
    kernel: K,
    sysfs: Sysfs,
    /// `None` until detected; then the family id and ops (or their absence) for the
    /// source's life.
    family: Option<Option<(u16, OpSet)>>,
    // Maps by interface name are ordered maps: a source has one interface or a few, where a
    // lookup is a string comparison or two and SipHash of the name cost more.
    drivers: BTreeMap<String, Option<DrvInfo>>,
    /// Interface as given -> its entry in `ifaces`: one lookup per call of the source.
    slots: BTreeMap<String, usize>,
    ifaces: Vec<Entry>,
    /// The FEC_GET answer `link_info` fetched (for the interface in that slot), for `fec`
    /// in the same sample.
    fec_pending: Option<(usize, Result<FecReply>)>,
    eeprom_override: Option<Box<dyn EepromReader>>,
    link_watch: LinkWatch,
    /// Bytes the link notifications brought in for this source's reads.
    notify_io: IoCounts,
    link_refresh: Duration,
}

/// What the source knows of one interface as given (a name, or an ifindex as a string).
#[derive(Default)]
struct Entry {
    /// Its netdev name, ifindex and driver, until a request finds it gone: shared, so the
    /// four requests of a sample copy no strings to name the device.
    dev: Option<Arc<Dev>>,
    paths: PathsUsed,
    noted: LastNoted,
    /// Its link between samples.
    link: Option<link::CachedLink>,
    /// The driver answered that it has no pause statistics: not asked again.
    no_pause_stats: bool,
    /// Its link state came from sysfs's carrier (the driver gives netlink no link flag).
    carrier_from_sysfs: bool,
}

impl LiveSource<RealKernel> {
    /// A source over the running kernel and `/sys`.
    pub fn new() -> Self {
        LiveSource::with_kernel(RealKernel::default(), Sysfs::system())
    }
}

impl Default for LiveSource<RealKernel> {
    fn default() -> Self {
        LiveSource::new()
    }
}

const PATH_NETLINK: &str = "netlink";
const PATH_IOCTL: &str = "ioctl";

impl<K: EthtoolKernel> LiveSource<K> {
    pub(crate) fn with_kernel(kernel: K, sysfs: Sysfs) -> Self {
        LiveSource {
            kernel,
            sysfs,
            family: None,
            drivers: BTreeMap::new(),
            slots: BTreeMap::new(),
            ifaces: Vec::new(),
            fec_pending: None,
            eeprom_override: None,
            link_watch: LinkWatch::new(),
            notify_io: IoCounts::default(),
            link_refresh: LINK_REFRESH,
        }
    }

    /// Link notifications shared with other sources of the same network namespace (one
    /// socket, drained once per pass over the interfaces), instead of a socket of its own.
    pub fn with_link_watch(mut self, watch: LinkWatch) -> Self {
        self.link_watch = watch;
        self
    }

    /// The longest time link state and modes are kept without a full read ([`LINK_REFRESH`]).
    #[cfg(test)]
    pub(crate) fn with_link_refresh(mut self, refresh: Duration) -> Self {
        self.link_refresh = refresh;
        self
    }

    /// Module reads go to `reader` (e.g. direct I2C) instead of the netdev's path.
    pub fn with_eeprom_reader(mut self, reader: Box<dyn EepromReader>) -> Self {
        self.eeprom_override = Some(reader);
        self
    }

    /// The family if it implements `cmd` (detected once per source; asked several times
    /// a sample).
    #[inline]
    fn family_with(&mut self, cmd: u8) -> Option<u16> {
        let (id, ops) = match self.family {
            Some(f) => f,
            None => self.detect_family(),
        }?;
        ops.contains(cmd).then_some(id)
    }

    #[cold]
    fn detect_family(&mut self) -> Option<(u16, OpSet)> {
        // A failed detection (no NETLINK_GENERIC socket, ...) means: use the ioctls.
        let family = self.kernel.netlink_family().ok().flatten();
        *self.family.insert(family.as_ref().map(|f: &Family| (f.id, f.op_set())))
    }

    /// The entry of `iface`, made on first use.
    fn slot(&mut self, iface: &str) -> usize {
        if let Some(&i) = self.slots.get(iface) {
            return i;
        }
        self.ifaces.push(Entry::default());
        self.slots.insert(iface.to_string(), self.ifaces.len() - 1);
        self.ifaces.len() - 1
    }

    /// Name, ifindex and driver for `iface` (a name, or an ifindex as a decimal string).
    /// A name that is a netdev wins over the same digits read as an ifindex.
    fn dev(&mut self, iface: &str) -> Result<Arc<Dev>> {
        let i = self.slot(iface);
        self.dev_at(i, iface)
    }

    /// [`Self::dev`] for the interface in slot `i`.
    fn dev_at(&mut self, i: usize, iface: &str) -> Result<Arc<Dev>> {
        if let Some(dev) = &self.ifaces[i].dev {
            return Ok(dev.clone());
        }
        let found = match self.kernel.ifindex(iface) {
            Some(ifindex) => Some((iface.to_string(), ifindex)),
            None => match iface.parse::<u32>() {
                Ok(ifindex) => Some((
                    self.kernel.ifname(ifindex).ok_or_else(|| SourceError::NoDevice {
                        what: "interface lookup".into(),
                        iface: iface.into(),
                        message: Some("no interface has this ifindex".into()),
                    })?,
                    ifindex,
                )),
                Err(_) => None,
            },
        };
        let Some((name, ifindex)) = found else {
            // Unknown name: the kernel's own answer (ENODEV "no device matches name") follows.
            let mut dev = Dev::named(iface);
            dev.driver = self.drvinfo(&dev).map(|d| d.driver);
            return Ok(Arc::new(dev));
        };
        let mut dev = Dev { name, ifindex: Some(ifindex), driver: None };
        dev.driver = self.drvinfo(&dev).map(|d| d.driver);
        let dev = Arc::new(dev);
        self.ifaces[i].dev = Some(dev.clone());
        Ok(dev)
    }

    /// The netdev name `iface` stands for (an ifindex given as a decimal string becomes
    /// its name); a name no device has is returned as is (requests then fail ENODEV).
    pub fn netdev_name(&mut self, iface: &str) -> Result<String> {
        Ok(self.dev(iface)?.name.clone())
    }

    /// A request that found the device gone (or another device under its name) drops
    /// what is known of it, so the next request resolves the name afresh.
    fn seen<T>(&mut self, i: usize, iface: &str, r: Result<T>) -> Result<T> {
        if r.as_ref().is_err_and(SourceError::is_no_device) {
            let entry = &mut self.ifaces[i];
            entry.link = None;
            if let Some(dev) = entry.dev.take() {
                self.drivers.remove(&dev.name);
            }
            self.drivers.remove(iface);
        }
        r
    }

    fn drvinfo(&mut self, dev: &Dev) -> Option<DrvInfo> {
        if let Some(d) = self.drivers.get(&dev.name) {
            return d.clone();
        }
        let d = self.kernel.drvinfo(dev).ok().filter(|d| !d.driver.is_empty());
        self.drivers.insert(dev.name.clone(), d.clone());
        d
    }

    /// sysfs's host facts with what the sockets know better: driver, driver and firmware
    /// version from GDRVINFO, the MTU in the sockets' netns (sysfs shows the netns it was
    /// mounted in), rings and channels from ethtool netlink where the kernel has the ops
    /// (a driver without them, veth's rings, leaves them out).
    fn host_facts(&mut self, dev: &Dev, info: &DrvInfo) -> HostFacts {
        let name = dev.name.as_str();
        let mut h = self.sysfs.host_facts(name).unwrap_or_default();
        let ioctl = |s: &str| Some(Fact::ioctl(s.to_string())).filter(|f| !f.value.is_empty());
        h.driver = ioctl(&info.driver).or(h.driver);
        h.driver_version = ioctl(&info.version);
        h.firmware_version = ioctl(&info.fw_version);
        h.mtu = self.kernel.mtu(name).map(Fact::ioctl).or(h.mtu);
        if let Some(f) = self.family_with(ETHTOOL_MSG_RINGS_GET) {
            h.rings = self.kernel.nl_rings(f, dev).ok().map(Fact::netlink);
        }
        if let Some(f) = self.family_with(ETHTOOL_MSG_CHANNELS_GET) {
            h.channels = self.kernel.nl_channels(f, dev).ok().map(Fact::netlink);
        }
        h
    }

    /// Records the path a layer took (`pick` chooses the layer), copying the name only
    /// when it is not the one recorded already (every sample takes the same path).
    fn took(&mut self, i: usize, pick: fn(&mut PathsUsed) -> &mut Option<String>, path: &str) {
        let slot = pick(&mut self.ifaces[i].paths);
        if slot.as_deref() != Some(path) {
            *slot = Some(path.to_string());
        }
    }

    /// Records what the kernel could not give, once per distinct sentence. A sentence
    /// already recorded is told by comparing as it is formatted, without building it.
    fn note(&mut self, i: usize, err: &SourceError) {
        let p = &mut self.ifaces[i].paths;
        if !p.unavailable.iter().any(|s| displays_as(err, s)) {
            p.unavailable.push(err.to_string());
        }
    }

    /// [`Self::note`] for `err` labelled `what` (the layer the user asked for), unless it
    /// is the error `layer` noted last ([`notes`]): the sentence is built only when new.
    fn note_as(&mut self, i: usize, layer: Layer, err: &SourceError, what: &str) {
        if self.ifaces[i].noted.repeats(layer, err, what) {
            return;
        }
        let err = relabel(err, what);
        self.note(i, &err);
        self.ifaces[i].noted.set(layer, err);
    }

    fn link_modes(&mut self, i: usize, dev: &Dev) -> Result<NamedModes> {
        match self.family_with(ETHTOOL_MSG_LINKMODES_GET) {
            Some(f) => {
                self.took(i, |p| &mut p.link, PATH_NETLINK);
                if self.caches_link() {
                    self.cached_link_modes(i, dev, f)
                } else {
                    self.kernel.nl_link_modes(f, dev).map(|m| NamedModes::of(&m))
                }
            }
            None => {
                self.took(i, |p| &mut p.link, PATH_IOCTL);
                self.kernel.link_settings(dev).map(|m| NamedModes::of(&m))
            }
        }
    }

    fn fec_reply(&mut self, i: usize, dev: &Dev) -> Result<FecReply> {
        match self.family_with(ETHTOOL_MSG_FEC_GET) {
            Some(f) => {
                self.took(i, |p| &mut p.fec, PATH_NETLINK);
                self.kernel.nl_fec(f, dev)
            }
            None => {
                self.took(i, |p| &mut p.fec, PATH_IOCTL);
                Ok(FecReply { active: self.kernel.fec_active(dev)?, stats: None, warnings: Vec::new() })
            }
        }
    }
}

/// Whether `value` displays as `text`, without building the string.
fn displays_as(value: &impl std::fmt::Display, text: &str) -> bool {
    /// What is left of `text` to match; `None` after a mismatch.
    struct Rest<'a>(Option<&'a str>);
    impl std::fmt::Write for Rest<'_> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0 = self.0.and_then(|r| r.strip_prefix(s));
            // A mismatch stops the formatting early.
            self.0.map(|_| ()).ok_or(std::fmt::Error)
        }
    }
    let mut rest = Rest(Some(text));
    std::fmt::write(&mut rest, format_args!("{value}")).is_ok() && rest.0 == Some("")
}

impl<K: EthtoolKernel> Source for LiveSource<K> {
    fn interfaces(&mut self) -> Result<Vec<String>> {
        Ok(self.sysfs.interfaces().into_iter().filter(|i| !self.sysfs.is_virtual(i)).collect())
    }

    fn identity(&mut self, iface: &str) -> Result<DeviceIdentity> {
        let dev = self.dev(iface)?;
        let info = self.drvinfo(&dev).unwrap_or_default();
        let non_empty = |s: &str| Some(s.to_string()).filter(|s| !s.is_empty());
        Ok(DeviceIdentity {
            driver: non_empty(&info.driver).or_else(|| self.sysfs.driver(&dev.name)),
            bus_info: non_empty(&info.bus_info).or_else(|| self.sysfs.bus_info(&dev.name)),
            pci: self.sysfs.pci_link(&dev.name),
            port: self.sysfs.port_identity(&dev.name),
            host: Some(self.host_facts(&dev, &info)),
            ib: None,
            neighbor: None,
        })
    }

    fn link_info(&mut self, iface: &str) -> Result<LinkInfo> {
        let i = self.slot(iface);
        let dev = self.dev_at(i, iface)?;
        let lm = self.link_modes(i, &dev).map_err(|e| relabelled(e, "link modes"));
        let lm = self.seen(i, iface, lm)?;
        let mut reply = self.fec_reply(i, &dev);
        let fec_active = match &mut reply {
            // `fec` takes the statistics and warnings; the mode is for here only.
            Ok(r) => r.active.take(),
            Err(e) => {
                self.note_as(i, Layer::ActiveFec, e, "active FEC mode");
                None
            }
        };
        self.fec_pending = Some((i, reply));
        Ok(LinkInfo {
            speed_mbps: lm.speed_mbps,
            lanes: lm.lanes,
            link_mode: lm.link_mode,
            fec_active,
            supported_modes: lm.supported,
            advertised_modes: lm.advertised,
        })
    }

    fn link_state(&mut self, iface: &str) -> Result<LinkState> {
        let i = self.slot(iface);
        let dev = self.dev_at(i, iface)?;
        let r = match self.family_with(ETHTOOL_MSG_LINKSTATE_GET) {
            Some(f) => {
                self.took(i, |p| &mut p.link, PATH_NETLINK);
                if self.caches_link() {
                    self.cached_link_state(i, &dev, f)
                } else {
                    self.kernel.nl_link_state(f, &dev)
                }
            }
            None => {
                self.took(i, |p| &mut p.link, PATH_IOCTL);
                self.kernel.link_up(&dev).map(|up| LinkState { up: Some(up), ..LinkState::default() })
            }
        };
        let mut carrier = false;
        let r = r.map_err(|e| relabelled(e, "link state")).map(|mut st| {
            // A driver without `get_link` (ifb, dummy) answers LINKSTATE_GET without
            // ETHTOOL_A_LINKSTATE_LINK (net/ethtool/linkstate.c), yet the kernel knows the
            // carrier: sysfs has it, read only when sysfs shows this very device (the
            // netns sysfs was mounted in may not be the sockets').
            if st.up.is_none() && dev.ifindex.is_some() && self.sysfs.ifindex(&dev.name) == dev.ifindex {
                st.up = self.sysfs.carrier(&dev.name);
                carrier = st.up.is_some();
            }
            st
        });
        self.ifaces[i].carrier_from_sysfs |= carrier;
        self.seen(i, iface, r)
    }

    fn fec(&mut self, iface: &str) -> Result<FecStats> {
        let i = self.slot(iface);
        let dev = self.dev_at(i, iface)?;
        let what = "FEC statistics";
        let result = if self.family_with(ETHTOOL_MSG_FEC_GET).is_none() {
            self.took(i, |p| &mut p.fec, PATH_IOCTL);
            Err(SourceError::Unavailable {
                what: what.into(),
                detail: "the kernel has no ethtool netlink FEC_GET (Linux 5.13+); the ioctl has no FEC counters".into(),
            })
        } else {
            let reply = match self.fec_pending.take() {
                Some((pending, r)) if pending == i => r,
                _ => self.fec_reply(i, &dev),
            };
            match reply {
                Ok(r) => {
                    for w in &r.warnings {
                        let e = SourceError::Malformed { what: what.into(), detail: w.clone() };
                        self.note(i, &e);
                    }
                    r.stats.ok_or_else(|| SourceError::NotSupported {
                        what: what.into(),
                        driver: dev.driver.clone(),
                        message: Some("FEC_GET reply has no statistics".into()),
                    })
                }
                Err(e) => Err(relabelled(e, what)),
            }
        };
        if let Err(e) = &result {
            self.note_as(i, Layer::FecStats, e, what);
        }
        self.seen(i, iface, result)
    }

    fn driver_stats(&mut self, iface: &str) -> Result<DriverStats> {
        let i = self.slot(iface);
        let dev = self.dev_at(i, iface)?;
        self.took(i, |p| &mut p.driver_stats, PATH_IOCTL);
        let what = "driver statistics";
        let r = self.kernel.driver_stats(&dev).map_err(|e| relabelled(e, what));
        if let Err(e) = &r {
            self.note_as(i, Layer::DriverStats, e, what);
        }
        self.seen(i, iface, r)
    }

    /// PAUSE_GET with statistics. A driver without them (EOPNOTSUPP, or a reply with no
    /// STATS nest) is asked once: a port's driver does not gain them while it runs.
    fn pause_stats(&mut self, iface: &str) -> Result<PauseStats> {
        let i = self.slot(iface);
        let what = "pause statistics";
        let unsupported =
            |driver: Option<String>, message: &str| SourceError::NotSupported { what: what.into(), driver, message: Some(message.into()) };
        if self.ifaces[i].no_pause_stats {
            return Err(unsupported(None, "not reported by the driver"));
        }
        let dev = self.dev_at(i, iface)?;
        let r = match self.family_with(ETHTOOL_MSG_PAUSE_GET) {
            None => Err(unsupported(dev.driver.clone(), "the kernel has no ethtool netlink PAUSE_GET (Linux 5.6+)")),
            Some(f) => self.kernel.nl_pause(f, &dev).map_err(|e| relabelled(e, what)).and_then(|s| {
                s.ok_or_else(|| unsupported(dev.driver.clone(), "PAUSE_GET reply has no statistics (Linux 5.11+, driver get_pause_stats)"))
            }),
        };
        if r.as_ref().is_err_and(SourceError::is_not_supported) {
            self.ifaces[i].no_pause_stats = true;
        }
        self.seen(i, iface, r)
    }

    fn read_eeprom(&mut self, iface: &str, req: PageRequest) -> Result<Vec<u8>> {
        let i = self.slot(iface);
        if let Some(reader) = self.eeprom_override.as_mut() {
            let describe = reader.describe();
            let r = reader.read(req);
            self.took(i, |p| &mut p.module, &describe);
            return r;
        }
        let dev = self.dev_at(i, iface)?;
        let r = match self.family_with(ETHTOOL_MSG_MODULE_EEPROM_GET) {
            Some(f) => {
                self.took(i, |p| &mut p.module, PATH_NETLINK);
                self.kernel.nl_module_eeprom(f, &dev, req)
            }
            None => {
                self.took(i, |p| &mut p.module, PATH_IOCTL);
                retry_transient(|| self.kernel.module_eeprom(&dev, req))
            }
        };
        let what = "module EEPROM";
        let r = r.map_err(|e| relabelled(e, what));
        if let Err(e) = &r {
            self.note_as(i, Layer::ModuleEeprom, e, what);
        }
        self.seen(i, iface, r)
    }

    fn paths(&self, iface: &str) -> PathsUsed {
        let Some(e) = self.slots.get(iface).map(|&i| &self.ifaces[i]) else { return PathsUsed::default() };
        let mut paths = e.paths.clone();
        if e.carrier_from_sysfs {
            paths.link = Some(format!("{} (link state from the sysfs carrier)", paths.link.as_deref().unwrap_or(PATH_NETLINK)));
        }
        paths
    }

    fn io_counts(&self) -> IoCounts {
        let k = self.kernel.io_counts();
        IoCounts { requests: k.requests + self.notify_io.requests, bytes: k.bytes + self.notify_io.bytes }
    }

    fn ifindex(&mut self, iface: &str) -> Option<u32> {
        self.dev(iface).ok()?.ifindex
    }

    /// A FEC_GET answer is good for the sample it was fetched in only, and so is the
    /// check of the cached link.
    fn end_sample(&mut self) {
        self.fec_pending = None;
        self.end_link_sample();
    }
}

#[cfg(test)]
mod tests;
