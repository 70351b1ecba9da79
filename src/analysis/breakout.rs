//! Breakout: one module split over several netdevs (an 8-lane module as 2 x 400G or
//! 4 x 200G). Each netdev's lanes are the module lanes of one CMIS data path:
//!
//! - The data paths come from the Active Control Set (CMIS 5.2 page 11h Table 8-86,
//!   DPConfigLane): lanes with the same non-zero AppSel and DataPathID (the index of the
//!   data path's first lane) form one data path. They are ordered by first lane.
//! - Which data path a netdev is: the split index of its `phys_port_name` (devlink split
//!   ports are named `p<port>s<subport>`, e.g. mlx5 `p0s1`), else its position among the
//!   netdevs that see the same module (same vendor and serial) ordered by `dev_port`,
//!   bus address and name, when there are as many of them as data paths.
//! - A data path's host lanes map to the same-numbered media lanes when its application
//!   has as many media lanes as host lanes (a gearbox application does not: no per-lane
//!   mapping then).
//!
//! The mapped netdev is analysed as if its module had only its lanes, renumbered 1..n
//! ([`netdev_view`]): DOM, lane flags and faults of lanes it does not use never touch its
//! verdict; module-wide flags (temperature, supply) still do. Without the information the
//! analysis says so in a note and pairs lanes by number, as before.

use super::*;
use crate::device::PortIdentity;
use std::borrow::Cow;
use std::collections::HashMap;

/// Netdev lane i+1 uses module lane `module_lanes[i]` (1-based).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LaneMap {
    pub(crate) module_lanes: Vec<u8>,
    /// One sentence for the notes: which data path and how it was chosen.
    pub(crate) description: String,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Mapping {
    /// The netdev uses the module's lanes by number (one data path, or no module).
    Identity,
    Breakout(LaneMap),
    /// The module is split but this netdev's share cannot be told: why.
    Unknown(String),
}

/// A data path of the active control set: its AppSel and lanes, by first lane.
struct DataPath {
    app_sel: u8,
    lanes: Vec<u8>,
}

fn data_paths(m: &ModuleReport) -> Vec<DataPath> {
    let mut by_first: BTreeMap<u8, DataPath> = BTreeMap::new();
    for l in &m.lanes {
        if let (Some(app_sel), Some(first)) = (l.app_sel, l.data_path_first_lane) {
            by_first.entry(first).or_insert(DataPath { app_sel, lanes: Vec::new() }).lanes.push(l.lane);
        }
    }
    by_first.into_values().collect()
}

/// The split index of a devlink split port name: `p0s1` -> 1.
fn subport(p: Option<&PortIdentity>) -> Option<usize> {
    let name = p?.phys_port_name.as_deref()?;
    let (_, s) = name.rsplit_once('s')?;
    s.parse().ok().filter(|_| name.starts_with('p'))
}

/// Netdevs that see one module (same vendor and serial) and this one's place among them,
/// ordered by `dev_port`, bus address and name.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Siblings {
    count: usize,
    position: usize,
}

/// [`Siblings`] of every window: grouped by module once and each group sorted once, so
/// many netdevs on one serial cost n log n, not n². A window whose module has
/// no serial shares it with no one (count 0).
fn siblings(windows: &[InterfaceWindow]) -> Vec<Siblings> {
    let mut groups: HashMap<(&str, Option<&str>), Vec<usize>> = HashMap::new();
    for (i, w) in windows.iter().enumerate() {
        if let Some(m) = &w.module {
            if let Some(sn) = m.vendor_sn.as_deref() {
                groups.entry((sn, m.vendor_name.as_deref())).or_default().push(i);
            }
        }
    }
    let key = |o: &InterfaceWindow| (o.identity.port.as_ref().and_then(|p| p.dev_port), o.identity.bus_info.clone(), o.interface.clone());
    let mut out = vec![Siblings::default(); windows.len()];
    for group in groups.values_mut() {
        group.sort_by_cached_key(|i| key(&windows[*i]));
        for (position, i) in group.iter().enumerate() {
            out[*i] = Siblings { count: group.len(), position };
        }
    }
    out
}

/// How each window's lanes map to its module's.
pub(crate) fn lane_maps(windows: &[InterfaceWindow]) -> Vec<Mapping> {
    windows.iter().zip(siblings(windows)).map(|(w, sib)| lane_map(w, sib)).collect()
}

/// How a window analysed alone maps its lanes: [`lane_maps`] of that one window (no other
/// netdev shares its module), without grouping by serial (a CSV export maps every row).
pub(crate) fn lane_map_alone(w: &InterfaceWindow) -> Mapping {
    let count = usize::from(w.module.as_ref().is_some_and(|m| m.vendor_sn.is_some()));
    lane_map(w, Siblings { count, position: 0 })
}

/// More than one of [`data_paths`], told without building them: most modules run one.
fn split(m: &ModuleReport) -> bool {
    let mut firsts = m.lanes.iter().filter(|l| l.app_sel.is_some()).filter_map(|l| l.data_path_first_lane);
    firsts.next().is_some_and(|first| firsts.any(|f| f != first))
}

fn lane_map(w: &InterfaceWindow, sib: Siblings) -> Mapping {
    let Some(m) = w.module.as_ref().filter(|m| split(m)) else { return Mapping::Identity };
    let dps = data_paths(m);
    let me = w.interface.as_str();
    let (index, how) = match subport(w.identity.port.as_ref()) {
        Some(s) => (s, format!("split port name {}", w.identity.port.as_ref().and_then(|p| p.phys_port_name.as_deref()).unwrap_or(""))),
        None => {
            if sib.count != dps.len() {
                return Mapping::Unknown(format!(
                    "the module carries {} data paths (a breakout) but which one {me} uses is unknown: no split port name (p<port>s<n>) and {} netdev(s) here share the module; lanes are paired by number",
                    dps.len(),
                    sib.count
                ));
            }
            (sib.position, "dev_port / bus order of the netdevs sharing the module".into())
        }
    };
    let Some(dp) = dps.get(index) else {
        return Mapping::Unknown(format!(
            "{me} is split port {index} but the module has {} data paths; lanes are paired by number",
            dps.len()
        ));
    };
    let lanes = w.link.lanes.or_else(|| w.link.link_mode.as_deref().and_then(lanes::parse_link_mode).map(|p| p.1));
    if lanes.is_some_and(|n| n as usize != dp.lanes.len()) {
        return Mapping::Unknown(format!(
            "{me} has {} lanes but module data path {} has {}; lanes are paired by number",
            lanes.unwrap_or(0),
            index + 1,
            dp.lanes.len()
        ));
    }
    if let Some(app) = m.applications.iter().find(|a| a.app_sel == dp.app_sel).filter(|a| a.host_lane_count != a.media_lane_count) {
        return Mapping::Unknown(format!(
            "module data path {} runs a gearbox application ({} host lanes onto {} media lanes): no per-lane mapping; lanes are paired by number",
            index + 1,
            app.host_lane_count,
            app.media_lane_count
        ));
    }
    let span = match (dp.lanes.first(), dp.lanes.last()) {
        (Some(a), Some(b)) => format!("{a}-{b}"),
        _ => String::new(),
    };
    Mapping::Breakout(LaneMap {
        module_lanes: dp.lanes.clone(),
        description: format!(
            "breakout: {me} is data path {} of {} on the module (module lanes {span}, AppSel {}), by {how}; its lanes 1-{} are module lanes {span}",
            index + 1,
            dps.len(),
            dp.app_sel,
            dp.lanes.len()
        ),
    })
}

/// The window the netdev is analysed on (on a breakout, [`netdev_view`]), with a note
/// saying how its lanes map, or why they could not be mapped.
pub(crate) fn window_for<'a>(w: &'a InterfaceWindow, mapping: &Mapping, notes: &mut Vec<String>) -> Cow<'a, InterfaceWindow> {
    match mapping {
        Mapping::Breakout(map) => {
            notes.push(map.description.clone());
            Cow::Owned(netdev_view(w, map))
        }
        Mapping::Unknown(why) => {
            notes.push(why.clone());
            Cow::Borrowed(w)
        }
        Mapping::Identity => Cow::Borrowed(w),
    }
}

/// The module as reported for the netdev ([`netdev_module`] on a breakout).
pub(crate) fn reported_module(w: &InterfaceWindow, mapping: &Mapping) -> Option<ModuleReport> {
    match mapping {
        Mapping::Breakout(map) => w.module.as_ref().map(|m| netdev_module(m, map)),
        _ => w.module.clone(),
    }
}

/// The window as the netdev sees it: its module lanes only, renumbered 1..n.
pub(crate) fn netdev_view(w: &InterfaceWindow, map: &LaneMap) -> InterfaceWindow {
    let mut v = w.clone();
    if let (Some(m), Some(orig)) = (v.module.as_mut(), w.module.as_ref()) {
        m.lanes = map
            .module_lanes
            .iter()
            .zip(1u8..)
            .filter_map(|(ml, n)| {
                let mut l = orig.lanes.iter().find(|l| l.lane == *ml)?.clone();
                l.lane = n;
                Some(l)
            })
            .collect();
    }
    v.rx_power_dbm_mean =
        map.module_lanes.iter().map(|ml| w.rx_power_dbm_mean.get(usize::from(*ml).wrapping_sub(1)).copied().flatten()).collect();
    v
}

/// The module as reported for the netdev: its lanes only, numbered as the module numbers them.
pub(crate) fn netdev_module(m: &ModuleReport, map: &LaneMap) -> ModuleReport {
    let mut out = m.clone();
    out.lanes.retain(|l| map.module_lanes.contains(&l.lane));
    out
}

/// The module lane of netdev lane `lane`.
pub(crate) fn module_lane(mapping: &Mapping, lane: u8, has_module: bool) -> Option<u8> {
    match mapping {
        Mapping::Breakout(map) => map.module_lanes.get(usize::from(lane).checked_sub(1)?).copied(),
        _ => has_module.then_some(lane),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::module::report::{LaneReport, Standard};

    fn split_module(paths: &[(u8, u8)]) -> ModuleReport {
        // (first lane, lanes) per data path, AppSel 2.
        let mut m = ModuleReport::new(Standard::Cmis, Some(0x19));
        m.vendor_name = Some("ACME".into());
        m.vendor_sn = Some("SN1".into());
        for &(first, n) in paths {
            for lane in first..first + n {
                let mut l = LaneReport::new(lane);
                l.app_sel = Some(2);
                l.data_path_first_lane = Some(first);
                l.rx_power_dbm = Some(-f64::from(lane));
                m.lanes.push(l);
            }
        }
        m
    }

    fn netdev(name: &str, port_name: Option<&str>, dev_port: u32, m: &ModuleReport) -> InterfaceWindow {
        InterfaceWindow {
            interface: name.into(),
            identity: DeviceIdentity {
                port: Some(PortIdentity { phys_port_name: port_name.map(str::to_string), dev_port: Some(dev_port), phys_switch_id: None }),
                ..Default::default()
            },
            link: LinkInfo { lanes: Some(4), ..Default::default() },
            module: Some(m.clone()),
            rx_power_dbm_mean: (1..=8).map(|l| Some(-f64::from(l))).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn split_names_and_dev_port_order() {
        let m = split_module(&[(1, 4), (5, 4)]);
        let ws = [netdev("eth1", Some("p0s1"), 0, &m), netdev("eth0", Some("p0s0"), 0, &m)];
        let maps = lane_maps(&ws);
        let Mapping::Breakout(b) = &maps[0] else { panic!("{:?}", maps[0]) };
        assert_eq!(b.module_lanes, vec![5, 6, 7, 8]);
        assert!(b.description.contains("data path 2 of 2") && b.description.contains("p0s1"), "{}", b.description);
        // Without split names: dev_port 0 and 1 order them.
        let ws = [netdev("x", None, 1, &m), netdev("y", None, 0, &m)];
        let maps = lane_maps(&ws);
        assert!(matches!(&maps[1], Mapping::Breakout(b) if b.module_lanes == vec![1, 2, 3, 4]));
        // One netdev of two, no split name: unknown, with a reason.
        assert!(matches!(&lane_maps(&ws[..1])[0], Mapping::Unknown(s) if s.contains("2 data paths")));
        // Four 2-lane netdevs.
        let m4 = split_module(&[(1, 2), (3, 2), (5, 2), (7, 2)]);
        let mut w = netdev("e2", Some("p1s2"), 0, &m4);
        w.link.lanes = Some(2);
        assert!(matches!(&lane_maps(&[w])[0], Mapping::Breakout(b) if b.module_lanes == vec![5, 6]));
        // One data path: identity.
        let one = split_module(&[(1, 8)]);
        assert_eq!(lane_maps(&[netdev("e", None, 0, &one)])[0], Mapping::Identity);
        // A window alone maps as lane_maps of it alone: by split name, or unknown without
        // one (its serial is its own), or identity without a serial or a split.
        let mut anon = m.clone();
        anon.vendor_sn = None;
        for w in [netdev("eth1", Some("p0s1"), 0, &m), netdev("x", None, 1, &m), netdev("z", None, 0, &anon), netdev("e", None, 0, &one)] {
            assert_eq!(lane_map_alone(&w), lane_maps(std::slice::from_ref(&w)).remove(0), "{}", w.interface);
        }
    }

    #[test]
    fn many_netdevs_group_by_serial_once() {
        // 5,000 two-path modules (serials M0..M4999), each seen by two netdevs without split
        // names, listed dev_port 1 before 0: 10^4 windows. Each pair splits by dev_port.
        let mut ws = Vec::new();
        for k in 0..5_000 {
            let mut m = split_module(&[(1, 4), (5, 4)]);
            m.vendor_sn = Some(format!("M{k}"));
            ws.push(netdev(&format!("a{k}"), None, 1, &m));
            ws.push(netdev(&format!("b{k}"), None, 0, &m));
        }
        let maps = lane_maps(&ws);
        assert_eq!(maps.len(), 10_000);
        for (w, map) in ws.iter().zip(&maps) {
            let want: Vec<u8> = if w.interface.starts_with('a') { vec![5, 6, 7, 8] } else { vec![1, 2, 3, 4] };
            assert!(matches!(map, Mapping::Breakout(b) if b.module_lanes == want), "{}: {map:?}", w.interface);
        }
        // 10^4 netdevs on one serial: each is told how many share it (one sort, not 10^4).
        let m = split_module(&[(1, 4), (5, 4)]);
        let same: Vec<_> = (0..10_000).map(|i| netdev(&format!("n{i}"), None, i, &m)).collect();
        let maps = lane_maps(&same);
        assert!(maps.iter().all(|m| matches!(m, Mapping::Unknown(s) if s.contains("10000 netdev(s)"))));
        assert_eq!(siblings(&same)[9_999], Siblings { count: 10_000, position: 9_999 });
        // No serial: shared with no one.
        let mut anon = split_module(&[(1, 4), (5, 4)]);
        anon.vendor_sn = None;
        assert_eq!(siblings(&[netdev("z", None, 0, &anon)])[0], Siblings::default());
    }

    #[test]
    fn view_renumbers_and_module_keeps_numbers() {
        let m = split_module(&[(1, 4), (5, 4)]);
        let w = netdev("eth1", Some("p0s1"), 0, &m);
        let Mapping::Breakout(b) = lane_maps(std::slice::from_ref(&w)).remove(0) else { panic!() };
        let v = netdev_view(&w, &b);
        let lanes = &v.module.as_ref().unwrap().lanes;
        assert_eq!(lanes.iter().map(|l| l.lane).collect::<Vec<_>>(), vec![1, 2, 3, 4]);
        // Netdev lane 2 is module lane 6 (rx -6 in the fixture).
        assert_eq!(lanes[1].rx_power_dbm, Some(-6.0));
        assert_eq!(v.rx_power_dbm_mean, vec![Some(-5.0), Some(-6.0), Some(-7.0), Some(-8.0)]);
        assert_eq!(netdev_module(&m, &b).lanes.iter().map(|l| l.lane).collect::<Vec<_>>(), vec![5, 6, 7, 8]);
        assert_eq!(module_lane(&Mapping::Breakout(b), 2, true), Some(6));
        assert_eq!(module_lane(&Mapping::Identity, 2, true), Some(2));
        assert_eq!(module_lane(&Mapping::Identity, 2, false), None);
    }
}
