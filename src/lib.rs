//! `optics`: per-lane transceiver diagnostics and FEC margin analysis.
//!
//! Data flows one way:
//! [`source`] (netlink, ioctl, sysfs, I2C, capture replay, tool-output imports) ->
//! [`module`] (EEPROM decoding) and [`counters`] (FEC/link/driver counters) ->
//! [`capture::Record`]s (the model every floor shares, with [`device`]'s identities) ->
//! [`sample`] (the sampling loop, deltas, the streaming engine's windows, and the
//! interval stage: each interface's interval since its previous sample) ->
//! [`analysis`] (BER, Q, margin, verdicts; an interval's lane figures, worked out once by
//! the interval stage for every printer that shows intervals) ->
//! [`output`] (text, JSON, CSV, live table, Prometheus, plots, reports), many sinks over
//! one stream that only format what they are handed; [`serve`] is the exporter daemon
//! over them.
//!
//! Decoders never do I/O; output never reaches back into sources; analysis never imports a
//! source. The live sources (netlink, ioctl, I2C, the sampling loop) are built with the
//! `live` feature on Linux (`cfg(live)`, set by build.rs); everything that reads files
//! builds anywhere. ARCHITECTURE.md has the floors and the import rules.
//!
//! The public API is what the binary, the tests and the benches use, every item of it
//! documented; everything else is `pub(crate)` or private, so the compiler sees dead code.

#![warn(missing_docs, unreachable_pub)]

pub mod analysis;
pub mod capture;
pub mod counters;
pub mod device;
pub mod module;
pub mod output;
pub mod sample;
pub mod serve;
pub mod source;
