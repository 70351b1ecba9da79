//! LiveSource against a fake kernel: which path each layer takes, and when the link is asked again.

use super::*;
use std::collections::BTreeSet;

/// A kernel with a configurable netlink family; records which calls were made. With
/// `link` set, LINKSTATE_GET and ETHTOOL_GLINK answer from it (and LINKMODES_GET
/// gives `speed_mbps`): a device whose link a test changes.
struct FakeKernel {
    family: Option<Family>,
    calls: Vec<&'static str>,
    link: Option<LinkState>,
    speed_mbps: u32,
}

fn fake(ops: Option<&[u8]>) -> LiveSource<FakeKernel> {
    let family = ops.map(|o| Family { id: 0x15, ops: o.iter().copied().collect::<BTreeSet<u8>>() });
    LiveSource::with_kernel(FakeKernel { family, calls: Vec::new(), link: None, speed_mbps: 200_000 }, Sysfs::new("/nonexistent"))
}

fn veth_not_supported(dev: &Dev) -> SourceError {
    SourceError::from_errno("x", &dev.name, dev.driver.as_deref(), libc::EOPNOTSUPP, None)
}

impl EthtoolKernel for FakeKernel {
    fn netlink_family(&mut self) -> Result<Option<Family>> {
        self.calls.push("getfamily");
        Ok(self.family.clone())
    }
    fn nl_link_modes(&mut self, _: u16, _: &Dev) -> Result<LinkModes> {
        self.calls.push("nl_link_modes");
        // 200G over 4 lanes advertising SR4 only (bit 63 = word 1 bit 31).
        Ok(LinkModes {
            speed_mbps: Some(self.speed_mbps),
            lanes: Some(4),
            duplex: Some(1),
            advertised: vec![0, 1 << 31],
            supported: vec![],
        })
    }
    fn nl_link_state(&mut self, _: u16, _: &Dev) -> Result<LinkState> {
        self.calls.push("nl_link_state");
        Ok(self.link.clone().unwrap_or(LinkState { up: Some(true), down_events: Some(3), ..LinkState::default() }))
    }
    fn nl_fec(&mut self, _: u16, dev: &Dev) -> Result<FecReply> {
        self.calls.push("nl_fec");
        Err(veth_not_supported(dev))
    }
    fn nl_module_eeprom(&mut self, _: u16, _: &Dev, req: PageRequest) -> Result<Vec<u8>> {
        self.calls.push("nl_module_eeprom");
        Ok(vec![0x11; req.length as usize])
    }
    fn drvinfo(&mut self, _: &Dev) -> Result<DrvInfo> {
        self.calls.push("drvinfo");
        Ok(DrvInfo { driver: "veth".into(), bus_info: String::new(), ..DrvInfo::default() })
    }
    fn link_up(&mut self, _: &Dev) -> Result<bool> {
        self.calls.push("link_up");
        Ok(self.link.as_ref().is_some_and(|l| l.up == Some(true)))
    }
    fn link_settings(&mut self, _: &Dev) -> Result<LinkModes> {
        self.calls.push("link_settings");
        Ok(LinkModes { speed_mbps: Some(10_000), duplex: Some(1), ..LinkModes::default() })
    }
    fn fec_active(&mut self, dev: &Dev) -> Result<Option<String>> {
        self.calls.push("fec_active");
        Err(veth_not_supported(dev))
    }
    fn driver_stats(&mut self, _: &Dev) -> Result<DriverStats> {
        self.calls.push("driver_stats");
        Ok(DriverStats::from([("peer_ifindex".into(), 2)]))
    }
    fn module_eeprom(&mut self, _: &Dev, req: PageRequest) -> Result<Vec<u8>> {
        self.calls.push("module_eeprom");
        Ok(vec![0x22; req.length as usize])
    }
    fn ifindex(&mut self, name: &str) -> Option<u32> {
        (name == "v0").then_some(7)
    }
    fn ifname(&mut self, ifindex: u32) -> Option<String> {
        (ifindex == 7).then(|| "v0".to_string())
    }
    fn mtu(&mut self, name: &str) -> Option<u32> {
        (name == "v0").then_some(1500)
    }
    fn io_counts(&self) -> IoCounts {
        IoCounts { requests: self.calls.len() as u64, bytes: 0 }
    }
}

const REQ: PageRequest = PageRequest::lower(0x50);

#[test]
fn no_family_uses_ioctls() {
    let mut s = fake(None);
    assert_eq!(s.link_state("v0").unwrap().up, Some(false));
    assert_eq!(s.read_eeprom("v0", REQ).unwrap()[0], 0x22);
    assert_eq!(s.link_info("v0").unwrap().speed_mbps, Some(10_000));
    let e = s.fec("v0").unwrap_err();
    assert!(matches!(e, SourceError::Unavailable { .. }), "{e}");
    let p = s.paths("v0");
    assert_eq!((p.link.as_deref(), p.module.as_deref(), p.fec.as_deref()), (Some("ioctl"), Some("ioctl"), Some("ioctl")));
    assert!(p.unavailable.iter().any(|u| u.contains("FEC_GET (Linux 5.13+)")), "{:?}", p.unavailable);
    assert!(!s.kernel.calls.iter().any(|c| c.starts_with("nl_")));
    // The family is looked up once for the source's life.
    assert_eq!(s.kernel.calls.iter().filter(|c| **c == "getfamily").count(), 1);
}

#[test]
fn family_without_5_13_ops_mixes_paths() {
    // 5.6-5.12: LINKMODES/LINKSTATE exist, FEC_GET and MODULE_EEPROM_GET do not.
    let mut s = fake(Some(&[ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_LINKSTATE_GET]));
    assert_eq!(s.link_state("v0").unwrap().down_events, Some(3));
    assert_eq!(s.read_eeprom("v0", REQ).unwrap()[0], 0x22);
    let info = s.link_info("v0").unwrap();
    assert_eq!(info.link_mode.as_deref(), Some("200000baseSR4/Full"));
    assert!(s.kernel.calls.contains(&"module_eeprom") && s.kernel.calls.contains(&"fec_active"));
    assert!(!s.kernel.calls.contains(&"nl_module_eeprom") && !s.kernel.calls.contains(&"nl_fec"));
    let p = s.paths("v0");
    assert_eq!((p.link.as_deref(), p.module.as_deref()), (Some("netlink"), Some("ioctl")));
}

#[test]
fn full_family_uses_netlink_and_names_the_driver() {
    let all = [ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_MSG_FEC_GET, ETHTOOL_MSG_MODULE_EEPROM_GET];
    let mut s = fake(Some(&all));
    assert_eq!(s.read_eeprom("v0", REQ).unwrap()[0], 0x11);
    let e = s.fec("v0").unwrap_err();
    assert!(e.is_not_supported());
    assert_eq!(e.to_string(), "FEC statistics: not supported by driver veth");
    assert!(s.paths("v0").unavailable.contains(&"FEC statistics: not supported by driver veth".to_string()));
    assert!(!s.kernel.calls.contains(&"module_eeprom"));
    assert_eq!(s.driver_stats("v0").unwrap()["peer_ifindex"], 2);
    assert_eq!(s.paths("v0").driver_stats.as_deref(), Some("ioctl"));
    assert!(s.io_counts().requests > 0);
}

#[test]
fn ifindex_strings_resolve_to_names() {
    let mut s = fake(None);
    assert_eq!(*s.dev("7").unwrap(), Dev { name: "v0".into(), ifindex: Some(7), driver: Some("veth".into()) });
    assert!(s.dev("8").unwrap_err().is_no_device());
    // Unknown names go to the kernel, which gives its own ENODEV text.
    assert_eq!(s.dev("nosuch0").unwrap().name, "nosuch0");
}

struct FixedReader;
impl EepromReader for FixedReader {
    fn read(&mut self, req: PageRequest) -> Result<Vec<u8>> {
        Ok(vec![0x33; req.length as usize])
    }
    fn describe(&self) -> String {
        "i2c /dev/i2c-9".into()
    }
}

#[test]
fn eeprom_override_wins() {
    let mut s = fake(Some(&[ETHTOOL_MSG_MODULE_EEPROM_GET])).with_eeprom_reader(Box::new(FixedReader));
    assert_eq!(s.read_eeprom("v0", REQ).unwrap()[0], 0x33);
    assert_eq!(s.paths("v0").module.as_deref(), Some("i2c /dev/i2c-9"));
    assert!(!s.kernel.calls.iter().any(|c| c.contains("eeprom")));
}

const ALL_OPS: [u8; 4] = [ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_MSG_FEC_GET, ETHTOOL_MSG_MODULE_EEPROM_GET];

/// A full-family source on a device with no link-down counter (veth-like), link up, with
/// notifications scripted by `drains` (one per pass).
fn cached(drains: Vec<Result<crate::source::netlink::notify::Drained>>) -> LiveSource<FakeKernel> {
    let mut s = fake(Some(&ALL_OPS)).with_link_watch(scripted(drains).0);
    s.kernel.link = Some(LinkState { up: Some(true), ..LinkState::default() });
    s
}

/// One sample as the sampling loop takes it: link state, then link info, then the end.
fn sample(s: &mut LiveSource<FakeKernel>) -> (LinkState, LinkInfo) {
    let st = s.link_state("v0").unwrap();
    let info = s.link_info("v0").unwrap();
    s.end_sample();
    (st, info)
}

/// How often each call was made since the last look (and forget them).
fn take_calls(s: &mut LiveSource<FakeKernel>, name: &str) -> usize {
    let n = s.kernel.calls.iter().filter(|c| **c == name).count();
    s.kernel.calls.clear();
    n
}

use crate::source::netlink::link_watch::testing::{named, scripted};

#[test]
fn quiet_link_is_asked_once_then_checked_by_glink() {
    let mut s = cached(vec![]);
    let (st, info) = sample(&mut s);
    assert_eq!((st.up, info.speed_mbps), (Some(true), Some(200_000)));
    assert_eq!((take_calls(&mut s, "nl_link_state"), s.kernel.calls.len()), (1, 0));
    for _ in 0..5 {
        let (st, info) = sample(&mut s);
        assert_eq!((st.up, info.link_mode.as_deref()), (Some(true), Some("200000baseSR4/Full")));
    }
    let calls = s.kernel.calls.clone();
    // Per sample: GLINK and FEC_GET; no LINKSTATE_GET or LINKMODES_GET.
    assert_eq!(calls.iter().filter(|c| **c == "link_up").count(), 5, "{calls:?}");
    assert!(!calls.contains(&"nl_link_state") && !calls.contains(&"nl_link_modes"), "{calls:?}");
}

#[test]
fn glink_change_notification_and_loss_make_it_ask_again() {
    // Drains at passes 2..5 (pass 1 is the first look): device 7 (v0) named at pass 4,
    // messages lost at pass 5.
    let lost = Ok(crate::source::netlink::notify::Drained { ifindexes: vec![], lost: true });
    let mut s = cached(vec![named(&[]), named(&[]), named(&[7]), lost]);
    sample(&mut s);
    take_calls(&mut s, "");
    // Pass 2: the carrier drops before any notification: GLINK differs, LINKSTATE is asked.
    s.kernel.link = Some(LinkState { up: Some(false), ..LinkState::default() });
    assert_eq!(sample(&mut s).0.up, Some(false));
    // Pass 3: up again (a down link is asked every sample anyway).
    s.kernel.link = Some(LinkState { up: Some(true), ..LinkState::default() });
    assert_eq!(sample(&mut s).0.up, Some(true));
    assert_eq!(take_calls(&mut s, "nl_link_state"), 2);
    // Pass 4: a flap between samples renegotiated 100G; up before and after, so only
    // the notification for ifindex 7 tells.
    s.kernel.speed_mbps = 100_000;
    let (st, info) = sample(&mut s);
    assert_eq!((st.up, info.speed_mbps), (Some(true), Some(100_000)));
    assert_eq!(take_calls(&mut s, "nl_link_state"), 1);
    // Pass 5: lost messages: asked again although nothing differs.
    sample(&mut s);
    assert_eq!(take_calls(&mut s, "nl_link_state"), 1);
    sample(&mut s);
    assert_eq!(take_calls(&mut s, "nl_link_state"), 0);
}

#[test]
fn down_links_counters_and_refresh_are_asked_every_sample() {
    // Down: EXT_STATE may change with no notification.
    let mut s = cached(vec![]);
    s.kernel.link = Some(LinkState { up: Some(false), ext_state: Some(4), ..LinkState::default() });
    (0..3).for_each(|_| drop(sample(&mut s)));
    assert_eq!(take_calls(&mut s, "nl_link_state"), 3);
    // A driver link-down counter (EXT_DOWN_CNT) is read like every counter.
    let mut s = cached(vec![]);
    s.kernel.link = Some(LinkState { up: Some(true), down_events: Some(2), ..LinkState::default() });
    (0..3).for_each(|_| drop(sample(&mut s)));
    assert_eq!(take_calls(&mut s, "nl_link_state"), 3);
    // A zero refresh period makes every sample a full read, modes included.
    let mut s = cached(vec![]).with_link_refresh(Duration::ZERO);
    (0..3).for_each(|_| drop(sample(&mut s)));
    let calls = s.kernel.calls.clone();
    assert_eq!(calls.iter().filter(|c| **c == "nl_link_modes").count(), 3, "{calls:?}");
}

#[test]
fn link_info_alone_and_old_kernels_ask_every_time() {
    // Without link_state first in the sample, the cached modes are not used.
    let mut s = cached(vec![]);
    sample(&mut s);
    take_calls(&mut s, "");
    (0..2).for_each(|_| drop(s.link_info("v0").unwrap()));
    assert_eq!(take_calls(&mut s, "nl_link_modes"), 2);
    // 5.6-5.12 (no FEC_GET: no request checks the name each sample): as before.
    let mut s = fake(Some(&[ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_LINKSTATE_GET]));
    s.kernel.link = Some(LinkState { up: Some(true), ..LinkState::default() });
    (0..3).for_each(|_| drop(sample(&mut s)));
    let calls = s.kernel.calls.clone();
    assert_eq!(calls.iter().filter(|c| **c == "nl_link_state").count(), 3, "{calls:?}");
    assert!(!calls.contains(&"link_up"), "{calls:?}");
}

#[test]
fn displays_as_matches_whole_text_only() {
    let e = SourceError::Unavailable { what: "FEC statistics".into(), detail: "none here".into() };
    let text = e.to_string();
    assert!(super::displays_as(&e, &text));
    assert!(!super::displays_as(&e, &text[..text.len() - 1]), "a prefix is not the sentence");
    assert!(!super::displays_as(&e, &format!("{text}.")), "nor a longer one");
    assert!(!super::displays_as(&e, ""));
}
