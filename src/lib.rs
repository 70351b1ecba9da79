//! `optics`: per-lane transceiver diagnostics and FEC margin analysis.
//!
//! Data flows one way:
//! [`source`] (netlink, ioctl, sysfs, I2C, capture replay) ->
//! [`module`] (EEPROM decoding) and [`counters`] (FEC/link/driver counters) ->
//! [`sample`] (sampling over time, deltas, captures) ->
//! [`analysis`] (BER, Q, margin, verdicts) ->
//! [`output`] (text, JSON, CSV, Prometheus); [`serve`] is the exporter daemon over them.
//!
//! Decoders never do I/O; output never reaches back into sources.

pub mod analysis;
pub mod capture;
pub mod counters;
pub mod device;
pub mod module;
pub mod output;
pub mod sample;
pub mod serve;
pub mod source;
