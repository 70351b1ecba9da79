//! Link state and link modes kept between samples, asked again only when something may
//! have changed (LINKSTATE_GET and LINKMODES_GET replies were most of a
//! small device's bytes per sample).
//!
//! LINKSTATE_GET is asked again when:
//! - a link notification names the device, or notifications were lost ([`LinkWatch`]);
//! - [`LINK_REFRESH`] has passed since the last full read (a safety net);
//! - the link is not known to be up: while down, EXT_STATE / EXT_SUBSTATE say why and
//!   change without a notification;
//! - the driver reports EXT_DOWN_CNT: it is a counter, read every sample like the others;
//! - `ETHTOOL_GLINK` (asked every sample instead: one ioctl, 8 bytes) differs from the
//!   cached LINK. Both answer `__ethtool_get_link()` (net/ethtool/ioctl.c, linkstate.c),
//!   so up/down is the kernel's own answer in every sample; the notification of a carrier
//!   change can come up to a second later (net/core/link_watch.c delays non-urgent events).
//!
//! LINKMODES_GET is asked again after a notification, a refresh or a change of up/down,
//! and whenever `link_info` comes without `link_state` first in the same sample.
//!
//! Only where FEC_GET exists (5.13+): its header carries ifindex and name, so every
//! sample still has a request in which the kernel checks that the name is the device
//! (a rename swap). Older kernels ask every sample as before.

use super::{EthtoolKernel, LiveSource};
use crate::counters::LinkState;
use crate::source::netlink::consts::{ETHTOOL_MSG_FEC_GET, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_LINKSTATE_GET};
use crate::source::netlink::link_watch::Cursor;
use crate::source::netlink::linkmodes::{active_mode_name, mode_names, LinkModes};
use crate::source::netlink::Dev;
use crate::source::Result;
use std::time::{Duration, Instant};

/// Longest time link state and modes come from the cache without a full read.
pub(crate) const LINK_REFRESH: Duration = Duration::from_secs(60);

/// What `link_info` takes from the link modes, the active mode named once per read of
/// them rather than every sample.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct NamedModes {
    pub(crate) speed_mbps: Option<u32>,
    pub(crate) lanes: Option<u32>,
    pub(crate) link_mode: Option<String>,
    pub(crate) supported: Vec<String>,
    pub(crate) advertised: Vec<String>,
}

impl NamedModes {
    pub(crate) fn of(lm: &LinkModes) -> Self {
        NamedModes {
            speed_mbps: lm.speed_mbps,
            lanes: lm.lanes,
            link_mode: active_mode_name(lm),
            supported: mode_names(&lm.supported),
            advertised: mode_names(&lm.advertised),
        }
    }
}

/// What is known of one interface's link between samples.
pub(super) struct CachedLink {
    ifindex: u32,
    cursor: Cursor,
    state: Option<LinkState>,
    modes: Option<NamedModes>,
    /// Last full read (state, then modes); `None` before the first.
    read_at: Option<Instant>,
    /// `link_state` checked the cache in this sample, so `link_info` may use its modes.
    confirmed: bool,
}

impl CachedLink {
    fn new(ifindex: u32) -> Self {
        CachedLink { ifindex, cursor: Cursor::default(), state: None, modes: None, read_at: None, confirmed: false }
    }
}

impl<K: EthtoolKernel> LiveSource<K> {
    /// Whether link state and modes may be cached (see the module comment).
    pub(super) fn caches_link(&mut self) -> bool {
        [ETHTOOL_MSG_LINKSTATE_GET, ETHTOOL_MSG_LINKMODES_GET, ETHTOOL_MSG_FEC_GET].into_iter().all(|c| self.family_with(c).is_some())
    }

    /// LINKSTATE_GET, or the cached answer when nothing says it changed.
    pub(super) fn cached_link_state(&mut self, i: usize, dev: &Dev, family: u16) -> Result<LinkState> {
        let Some(ifindex) = dev.ifindex else { return self.kernel.nl_link_state(family, dev) };
        let entry = self.ifaces[i].link.get_or_insert_with(|| CachedLink::new(ifindex));
        if entry.ifindex != ifindex {
            *entry = CachedLink::new(ifindex);
        }
        let named = self.link_watch.changed_since(&mut entry.cursor, ifindex, &mut self.notify_io);
        let due = named || entry.read_at.is_none_or(|t| t.elapsed() >= self.link_refresh);
        let cached_up = entry.state.as_ref().map(|s| s.up);
        let mut ask = due || entry.state.as_ref().is_none_or(|s| s.up != Some(true) || s.down_events.is_some());
        if !ask {
            ask = match self.kernel.link_up(dev) {
                Ok(up) => cached_up != Some(Some(up)),
                Err(e) if e.is_no_device() => return Err(e),
                // Whatever else went wrong, LINKSTATE_GET gives the answer (or the error).
                Err(_) => true,
            };
        }
        if !ask {
            entry.confirmed = true;
            return Ok(entry.state.clone().unwrap_or_default());
        }
        match self.kernel.nl_link_state(family, dev) {
            Ok(st) => {
                if due || cached_up != Some(st.up) {
                    entry.modes = None;
                    entry.read_at = Some(Instant::now());
                }
                entry.state = Some(st.clone());
                entry.confirmed = true;
                Ok(st)
            }
            Err(e) => {
                // Start afresh: the next sample asks the kernel again.
                *entry = CachedLink::new(ifindex);
                Err(e)
            }
        }
    }

    /// LINKMODES_GET, or the modes cached with a link state `link_state` confirmed in this sample.
    pub(super) fn cached_link_modes(&mut self, i: usize, dev: &Dev, family: u16) -> Result<NamedModes> {
        let usable = |c: &&mut CachedLink| c.confirmed && dev.ifindex == Some(c.ifindex);
        if let Some(m) = self.ifaces[i].link.as_mut().filter(usable).and_then(|c| c.modes.clone()) {
            return Ok(m);
        }
        let m = NamedModes::of(&self.kernel.nl_link_modes(family, dev)?);
        if let Some(c) = self.ifaces[i].link.as_mut().filter(usable) {
            c.modes = Some(m.clone());
        }
        Ok(m)
    }

    /// A new sample must confirm the cache again before its modes are used.
    pub(super) fn end_link_sample(&mut self) {
        self.ifaces.iter_mut().filter_map(|e| e.link.as_mut()).for_each(|c| c.confirmed = false);
    }
}
