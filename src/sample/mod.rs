//! Sampling over time, counter deltas (resets, wraps), capture recording and replay.
//!
//! - [`delta`]: counter deltas between samples, segments at resets / module swaps, wraps.
//! - [`engine`]: the streaming fold from records to [`crate::analysis::InterfaceWindow`]s, run and rolling.
//! - [`module_cache`]: read static module pages once, then only monitor bytes.
//! - [`summary`]: what a sampling run did (ticks, samples, why it stopped).
//! - [`watch`]: the async sampling loop that produces records for [`crate::capture::RecordSink`]s.
//!
//! Live sampling and replay produce the same [`crate::capture::Record`]s, so one path
//! (records -> engine -> windows -> analysis) serves both.

mod by_name;
pub mod delta;
pub mod engine;
pub mod intervals;
pub mod module_cache;
pub mod summary;
mod ticker;
pub mod watch;
