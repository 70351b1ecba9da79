//! `--peer CAPTURE[:IFACE]`: the far end of the analysed link, paired explicitly. The peer
//! is the named interface of its capture, or the only one it has; it must not be the
//! analysed capture or module itself, and its link must match (lane count and link mode),
//! or its tx powers would be compared against the wrong lanes. Anything `optics import`
//! reads is a capture here too (a far end's `ethtool -m`, mlxlink output, a switch's port):
//! it is imported in memory. `--lane-map NEAR:FAR,...` pairs lanes of a crossed cable or a
//! breakout; straight (lane n faces lane n) by default.

use super::outputs::same_file;
use super::replay::{engine_of, replay_capture};
use anyhow::{bail, Context};
use optics::analysis::link_loss::{not_one_link, FarEnd};
use optics::analysis::InterfaceWindow;
use optics::capture::Record;
use optics::sample::engine::{Engine, TimeRange};
use optics::source::import::{import, is_capture, ImportOptions};
use std::path::{Path, PathBuf};

/// What `--peer` named.
#[derive(Clone, Debug)]
pub struct PeerArg {
    pub path: PathBuf,
    pub interface: Option<String>,
}

/// clap parser: `CAPTURE` or `CAPTURE:IFACE` (a path that exists as given is taken whole,
/// so a file name with a colon still works).
pub fn parse_peer(s: &str) -> Result<PeerArg, std::convert::Infallible> {
    if Path::new(s).exists() {
        return Ok(PeerArg { path: s.into(), interface: None });
    }
    match s.rsplit_once(':') {
        Some((path, iface)) if !iface.is_empty() && !path.is_empty() => Ok(PeerArg { path: path.into(), interface: Some(iface.into()) }),
        _ => Ok(PeerArg { path: s.into(), interface: None }),
    }
}

/// clap parser of `--lane-map`: `NEAR:FAR` lane pairs, comma-separated, 1-based
/// (`1:2,2:1,3:4,4:3` for a cable crossing lane pairs; `1:5,2:6,3:7,4:8` for the second
/// half of a breakout). Each lane at most once on each side.
pub fn parse_lane_map(s: &str) -> Result<LaneMap, LaneMapError> {
    let mut out: Vec<(u8, u8)> = Vec::new();
    for pair in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (a, b) = pair.split_once(':').ok_or_else(|| LaneMapError::NotAPair(pair.to_string()))?;
        let lane =
            |x: &str| x.trim().parse::<u8>().ok().filter(|n| (1..=32).contains(n)).ok_or_else(|| LaneMapError::NotALane(x.to_string()));
        let (near, far) = (lane(a)?, lane(b)?);
        if out.iter().any(|(n, f)| *n == near || *f == far) {
            return Err(LaneMapError::LaneTwice(pair.to_string()));
        }
        out.push((near, far));
    }
    if out.is_empty() {
        return Err(LaneMapError::Empty);
    }
    Ok(LaneMap(out))
}

/// Why a `--lane-map` is refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum LaneMapError {
    #[error("{0:?}: give NEAR:FAR, e.g. 1:2")]
    NotAPair(String),
    #[error("{0:?}: a lane is 1 to 32")]
    NotALane(String),
    #[error("{0}: each lane may appear once on each side")]
    LaneTwice(String),
    #[error("an empty lane map: give NEAR:FAR pairs, e.g. 1:2,2:1")]
    Empty,
}

/// `--lane-map`: (near lane, far lane) pairs.
#[derive(Clone, Debug, PartialEq)]
pub struct LaneMap(pub Vec<(u8, u8)>);

/// The loaded far end: its capture streamed into an engine (bounded memory, like the
/// analysed capture) and the interface chosen in it.
pub struct Peer {
    path: PathBuf,
    engine: Engine,
    interface: String,
    /// `--lane-map`: (near lane, far lane); empty = straight.
    lane_map: Vec<(u8, u8)>,
}

impl Peer {
    /// Loads the peer capture and picks its interface; refuses the analysed capture itself.
    pub fn load(arg: &PeerArg, local: Option<&Path>) -> anyhow::Result<Peer> {
        if local.is_some_and(|l| same_file(l, &arg.path)) {
            bail!("--peer {} is the analysed capture itself: give the far end's capture", arg.path.display());
        }
        let mut engine = if is_capture(&arg.path) {
            replay_capture(&arg.path, TimeRange::whole(), &[], &mut []).context("--peer")?.0
        } else {
            Self::imported(arg)?
        };
        let have = engine.interfaces();
        let interface = match (&arg.interface, have.as_slice()) {
            (Some(i), _) if have.contains(i) => i.clone(),
            (Some(i), _) => bail!("--peer: interface {i} is not in {} (it has: {})", arg.path.display(), have.join(", ")),
            (None, [one]) => one.clone(),
            (None, []) => bail!("--peer {}: the capture holds no interface", arg.path.display()),
            (None, many) if Self::by_neighbor(many, local).is_some() => {
                // The near end's LLDP neighbor table names the switch port: that one.
                let (port, shown) = Self::by_neighbor(many, local).unwrap_or_default();
                super::diag(format_args!(
                    "optics: --peer {}: port {port} chosen, the near end's LLDP neighbor ({shown})",
                    arg.path.display()
                ));
                port
            }
            (None, many) => bail!(
                "--peer {}: the capture has {} interfaces ({}); name the far end: --peer {}:{}",
                arg.path.display(),
                many.len(),
                many.join(", "),
                arg.path.display(),
                many[0]
            ),
        };
        // Only the far end's own state is needed from here on.
        have.iter().filter(|n| **n != interface).for_each(|n| engine.remove(n));
        Ok(Peer { path: arg.path.clone(), engine, interface, lane_map: Vec::new() })
    }

    /// The one of `candidates` (the far end's ports) that the near end's LLDP neighbor table
    /// names, and how the neighbor was shown: the near end's capture is read up to its first
    /// sample (its interface records come first), and one neighbor port must match one
    /// candidate alone.
    fn by_neighbor(candidates: &[String], local: Option<&Path>) -> Option<(String, String)> {
        let local = local.filter(|l| is_capture(l))?;
        let mut reader = super::inputs::open_capture(local).ok()?;
        let mut found: Vec<(String, String)> = Vec::new();
        while let Ok(Some(rec)) = reader.next_record() {
            match rec {
                Record::Interface(ir) => {
                    let Some(n) = ir.neighbor else { continue };
                    for c in candidates.iter().filter(|c| n.port_names().any(|p| p.eq_ignore_ascii_case(c))) {
                        if !found.iter().any(|(f, _)| f == c) {
                            found.push((c.clone(), format!("{}: {}", ir.interface, n.shown())));
                        }
                    }
                }
                Record::Sample(_) => break,
                _ => {}
            }
        }
        match found.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// A tool output as the far end: imported in memory. A file naming no interface takes
    /// the one `:IFACE` gives.
    fn imported(arg: &PeerArg) -> anyhow::Result<Engine> {
        let what = || format!("--peer {}: not a capture, read as tool output", arg.path.display());
        let mut cap = import(std::slice::from_ref(&arg.path), &ImportOptions::default()).with_context(what)?.capture;
        let names: Vec<String> = engine_of(&cap, TimeRange::whole()).interfaces();
        if let (Some(i), [only]) = (&arg.interface, names.as_slice()) {
            if only == optics::source::import::build::UNNAMED && only != i {
                let opts = ImportOptions { interface: Some(i.clone()), ..Default::default() };
                cap = import(std::slice::from_ref(&arg.path), &opts).with_context(what)?.capture;
            }
        }
        Ok(engine_of(&cap, TimeRange::whole()))
    }

    /// Pairs lanes by `map` (near, far) instead of straight.
    pub fn with_lane_map(mut self, map: Option<&LaneMap>) -> Self {
        self.lane_map = map.map(|m| m.0.clone()).unwrap_or_default();
        self
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn interface(&self) -> &str {
        &self.interface
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `peers[i]` for `ws[i]` as [`optics::analysis::analyze`] takes them: the far end of the
    /// one analysed interface, after checking the two ends are one link.
    pub fn windows_for(&self, ws: &[InterfaceWindow]) -> anyhow::Result<Vec<InterfaceWindow>> {
        let [local] = ws else {
            let names: Vec<&str> = ws.iter().map(|w| w.interface.as_str()).collect();
            bail!("--peer is the far end of one link, but {} interfaces are analysed ({}): name one", ws.len(), names.join(", "));
        };
        let far = self.far_end(None)?;
        if far.check {
            if let Some(why) = not_one_link(local, &far.far, &far.shown) {
                return Err(why.into());
            }
        }
        Ok(vec![far.far])
    }

    /// The far end's window facing `near` (the first interface the rows name when `None`),
    /// its lanes renumbered by `--lane-map`; a lane map pairs the ends by hand, so only a
    /// straight pairing is checked to be one link.
    pub fn far_end(&self, near: Option<String>) -> anyhow::Result<FarEnd> {
        // `load` chose the interface among the engine's.
        let Some(mut far) = self.engine.window(&self.interface) else {
            bail!("--peer: interface {} is gone from the replay", self.interface)
        };
        let shown = format!("--peer {}:{}", self.path.display(), self.interface);
        if !self.lane_map.is_empty() {
            // The far end's lanes renumbered as the near lanes they face; lanes the map
            // does not name face none of ours (the other half of a breakout).
            if let Some(m) = far.module.as_mut() {
                m.lanes.retain(|l| self.lane_map.iter().any(|(_, f)| *f == l.lane));
                for l in &mut m.lanes {
                    l.lane = self.lane_map.iter().find(|(_, f)| *f == l.lane).map_or(l.lane, |(n, _)| *n);
                }
                m.lanes.sort_by_key(|l| l.lane);
            }
        }
        Ok(FarEnd { near, far, shown, check: self.lane_map.is_empty() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_maps_parse_and_refuse_what_cannot_be_one() {
        assert_eq!(parse_lane_map("1:2, 2:1").unwrap(), LaneMap(vec![(1, 2), (2, 1)]));
        assert_eq!(parse_lane_map("1:2,1:3"), Err(LaneMapError::LaneTwice("1:3".into())));
        assert_eq!(parse_lane_map("1-2"), Err(LaneMapError::NotAPair("1-2".into())));
        assert_eq!(parse_lane_map("0:1"), Err(LaneMapError::NotALane("0".into())));
        assert_eq!(parse_lane_map(""), Err(LaneMapError::Empty));
    }
}
