//! A [`Source`] over a capture, to re-run the sampling path offline and in tests.
//!
//! The cursor is a sample index: at cursor `k` every interface answers from its `k`-th
//! sample record (file order) and from the latest interface record written before it.
//! [`ReplaySource::advance`] moves to `k + 1`. An interface whose samples ran out answers
//! `NoDevice`, as a vanished netdev would.

use super::{IoCounts, PathsUsed, Result, Source, SourceError};

use crate::capture::{Capture, InterfaceRecord, Record, SampleRecord};
use crate::counters::host::PauseStats;
use crate::counters::ib::IbSample;
use crate::counters::{DriverStats, FecStats, LinkInfo, LinkState};
use crate::device::DeviceIdentity;
use crate::module::{ModuleImage, PageRequest};

#[derive(Clone)]
struct Replayed {
    name: String,
    interface_records: Vec<InterfaceRecord>,
    /// Each sample with the index in `interface_records` of the record before it.
    samples: Vec<(SampleRecord, Option<usize>)>,
}

/// A [`Source`] that answers from a capture's recorded samples, one sample per step.
#[derive(Clone)]
pub struct ReplaySource {
    ifaces: Vec<Replayed>,
    cursor: usize,
    io: IoCounts,
}

impl ReplaySource {
    /// A replay of `capture`'s interfaces from their first sample.
    pub fn new(capture: &Capture) -> Self {
        let mut ifaces: Vec<Replayed> = Vec::new();
        for rec in &capture.records {
            let Some(name) = rec.interface() else { continue };
            let idx = match ifaces.iter().position(|r| r.name == name) {
                Some(i) => i,
                None => {
                    ifaces.push(Replayed { name: name.to_string(), interface_records: Vec::new(), samples: Vec::new() });
                    ifaces.len() - 1
                }
            };
            let Some(r) = ifaces.get_mut(idx) else { continue };
            match rec {
                Record::Interface(i) => r.interface_records.push(i.clone()),
                Record::Sample(s) => {
                    let ir = r.interface_records.len().checked_sub(1);
                    r.samples.push((s.clone(), ir));
                }
                _ => {}
            }
        }
        ReplaySource { ifaces, cursor: 0, io: IoCounts::default() }
    }

    /// Moves to the next sample; false when no interface has one.
    pub fn advance(&mut self) -> bool {
        self.cursor += 1;
        self.ifaces.iter().any(|r| r.samples.len() > self.cursor)
    }

    /// The sample the cursor is on for `iface`.
    pub fn current_sample(&self, iface: &str) -> Option<&SampleRecord> {
        self.current(iface, "sample").ok().map(|(s, _)| s)
    }

    fn current(&self, iface: &str, what: &str) -> Result<(&SampleRecord, Option<&InterfaceRecord>)> {
        let no_device = || SourceError::NoDevice {
            what: what.to_string(),
            iface: iface.to_string(),
            message: Some("not in the capture at this sample".into()),
        };
        let r = self.ifaces.iter().find(|r| r.name == iface).ok_or_else(no_device)?;
        let (s, ir) = r.samples.get(self.cursor).ok_or_else(no_device)?;
        Ok((s, ir.and_then(|i| r.interface_records.get(i))))
    }

    fn interface_record(&self, iface: &str, what: &str) -> Result<&InterfaceRecord> {
        self.current(iface, what)?.1.ok_or_else(|| SourceError::Unavailable {
            what: what.to_string(),
            detail: format!("no interface record for {iface} before this sample"),
        })
    }

    fn not_captured(what: &str, detail: &str) -> SourceError {
        SourceError::NotSupported { what: what.to_string(), driver: Some("replay".into()), message: Some(detail.to_string()) }
    }
}

impl Source for ReplaySource {
    fn interfaces(&mut self) -> Result<Vec<String>> {
        Ok(self.ifaces.iter().map(|r| r.name.clone()).collect())
    }

    fn identity(&mut self, iface: &str) -> Result<DeviceIdentity> {
        Ok(self.interface_record(iface, "identity")?.identity())
    }

    fn link_info(&mut self, iface: &str) -> Result<LinkInfo> {
        Ok(self.interface_record(iface, "link info")?.link.clone())
    }

    fn link_state(&mut self, iface: &str) -> Result<LinkState> {
        Ok(self.current(iface, "link state")?.0.link.clone())
    }

    fn fec(&mut self, iface: &str) -> Result<FecStats> {
        self.current(iface, "FEC statistics")?.0.fec.clone().ok_or_else(|| Self::not_captured("FEC statistics", "null in the capture"))
    }

    fn driver_stats(&mut self, iface: &str) -> Result<DriverStats> {
        Ok(self.current(iface, "driver statistics")?.0.driver_stats.clone())
    }

    fn pause_stats(&mut self, iface: &str) -> Result<PauseStats> {
        let what = "pause statistics";
        self.current(iface, what)?.0.pause.clone().ok_or_else(|| Self::not_captured(what, "not in the capture"))
    }

    fn infiniband(&mut self, iface: &str) -> Result<IbSample> {
        let what = "InfiniBand counters";
        self.current(iface, what)?.0.ib.clone().ok_or_else(|| Self::not_captured(what, "not an InfiniBand port in the capture"))
    }

    /// Serves bytes from the interface record's static pages overlaid with the current
    /// sample's pages; `NotSupported` unless every requested byte was captured.
    fn read_eeprom(&mut self, iface: &str, req: PageRequest) -> Result<Vec<u8>> {
        const WHAT: &str = "module EEPROM";
        self.io.requests += 1;
        let (s, ir) = self.current(iface, WHAT)?;
        let mut img = ModuleImage::new();
        for pages in ir.and_then(|i| i.module.as_ref()).into_iter().chain(s.module.as_ref()) {
            let part = pages.image().map_err(|e| SourceError::Malformed { what: WHAT.into(), detail: e.to_string() })?;
            img.merge(&part);
        }
        let bytes = req
            .is_valid()
            .then(|| img.bytes(req.i2c_address, req.page, req.bank, req.offset, req.length as usize))
            .flatten()
            .map(|b| b.to_vec())
            .ok_or_else(|| Self::not_captured(WHAT, "bytes not in the capture"))?;
        self.io.bytes += bytes.len() as u64;
        Ok(bytes)
    }

    fn paths(&self, _iface: &str) -> PathsUsed {
        let replay = Some("replay".to_string());
        PathsUsed { module: replay.clone(), link: replay.clone(), fec: replay.clone(), driver_stats: replay, unavailable: Vec::new() }
    }

    fn io_counts(&self) -> IoCounts {
        self.io.clone()
    }

    fn end_sample(&mut self) {
        self.advance();
    }
}
