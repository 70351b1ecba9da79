//! `--peer CAPTURE[:IFACE]`: the far end of the analysed link, paired explicitly. The peer
//! is the named interface of its capture, or the only one it has; it must not be the
//! analysed capture or module itself, and its link must match (lane count and link mode),
//! or its tx powers would be compared against the wrong lanes.

use super::common::replay_capture;
use super::outputs::same_file;
use anyhow::{bail, Context};
use optics::analysis::InterfaceWindow;
use optics::sample::engine::{Engine, TimeRange};
use std::path::{Path, PathBuf};

/// What `--peer` named.
#[derive(Clone, Debug)]
pub struct PeerArg {
    pub path: PathBuf,
    pub interface: Option<String>,
}

/// clap parser: `CAPTURE` or `CAPTURE:IFACE` (a path that exists as given is taken whole,
/// so a file name with a colon still works).
pub fn parse_peer(s: &str) -> Result<PeerArg, String> {
    if Path::new(s).exists() {
        return Ok(PeerArg { path: s.into(), interface: None });
    }
    match s.rsplit_once(':') {
        Some((path, iface)) if !iface.is_empty() && !path.is_empty() => Ok(PeerArg { path: path.into(), interface: Some(iface.into()) }),
        _ => Ok(PeerArg { path: s.into(), interface: None }),
    }
}

/// The loaded far end: its capture streamed into an engine (bounded memory, like the
/// analysed capture) and the interface chosen in it.
pub struct Peer {
    path: PathBuf,
    engine: Engine,
    interface: String,
}

impl Peer {
    /// Loads the peer capture and picks its interface; refuses the analysed capture itself.
    pub fn load(arg: &PeerArg, local: Option<&Path>) -> anyhow::Result<Peer> {
        if local.is_some_and(|l| same_file(l, &arg.path)) {
            bail!("--peer {} is the analysed capture itself: give the far end's capture", arg.path.display());
        }
        let (mut engine, _) = replay_capture(&arg.path, TimeRange::whole(), &[], &mut []).context("--peer")?;
        let have = engine.interfaces();
        let interface = match (&arg.interface, have.as_slice()) {
            (Some(i), _) if have.contains(i) => i.clone(),
            (Some(i), _) => bail!("--peer: interface {i} is not in {} (it has: {})", arg.path.display(), have.join(", ")),
            (None, [one]) => one.clone(),
            (None, []) => bail!("--peer {}: the capture holds no interface", arg.path.display()),
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
        Ok(Peer { path: arg.path.clone(), engine, interface })
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
        // `load` chose the interface among the engine's.
        let Some(far) = self.engine.window(&self.interface) else { bail!("--peer: interface {} is gone from the replay", self.interface) };
        let shown = format!("--peer {}:{}", self.path.display(), self.interface);
        let lanes = |w: &InterfaceWindow| w.link.lanes.or(w.module.as_ref().map(|m| m.lanes.len() as u32).filter(|n| *n > 0));
        if let (Some(a), Some(b)) = (lanes(local), lanes(&far)) {
            if a != b {
                bail!("{shown} has {b} lanes and {} has {a}: not the two ends of one link", local.interface);
            }
        }
        if let (Some(a), Some(b)) = (&local.link.link_mode, &far.link.link_mode) {
            if a != b {
                bail!("{shown} runs {b} and {} runs {a}: not the two ends of one link", local.interface);
            }
        }
        let sn = |w: &InterfaceWindow| w.module.as_ref().and_then(|m| m.vendor_sn.clone());
        if let (Some(a), Some(b)) = (sn(local), sn(&far)) {
            if a == b {
                bail!("{shown} is the same module (SN {a}) as {}: give the far end's capture", local.interface);
            }
        }
        Ok(vec![far])
    }
}
