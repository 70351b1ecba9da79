//! Sampling over time, counter deltas (resets, wraps), capture recording and replay.
//!
//! - `delta`: counter deltas between samples, segments at resets / module swaps, wraps.
//! - [`engine`]: the streaming fold from records to [`crate::analysis::InterfaceWindow`]s, run and rolling.
//! - `module_cache` (feature `live`): read static module pages once, then only monitor bytes.
//! - [`summary`]: what a sampling run did (ticks, samples, why it stopped).
//! - `watch` (feature `live`): the async sampling loop that produces records for [`crate::capture::RecordSink`]s.
//!
//! Live sampling and replay produce the same [`crate::capture::Record`]s, so one path
//! (records -> engine -> windows -> analysis) serves both.

pub(crate) mod delta;
pub mod engine;
pub mod intervals;
#[cfg(live)]
pub mod module_cache;
pub mod summary;
#[cfg(live)]
mod ticker;
#[cfg(live)]
pub mod watch;
