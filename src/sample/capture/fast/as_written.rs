//! Sample lines in the writer's own layout, byte for byte: `CaptureWriter` is serde_json's
//! compact output of the record structs, so the text between values (keys, quotes,
//! commas, braces) is the same on every line, in struct declaration order. Those runs are
//! compared as fixed byte strings instead of being read as keys and matched; the values
//! go through the general reader's own parsers. The first byte that differs from that
//! layout (sorted keys, spacing, a field the writer leaves out for live captures but an
//! import writes, a histogram) gives `None`, and the caller rereads the record with the
//! general, any-order reader.

use super::Cursor;
use crate::counters::{FecStats, LinkState};
use crate::module::PageEntry;
use crate::sample::capture::{ModulePages, SampleRecord};

impl Cursor<'_> {
    /// Consumes `run` when the bytes at the cursor are exactly it.
    fn run<const N: usize>(&mut self, run: &[u8; N]) -> Option<()> {
        let hit = self.b.get(self.i..).and_then(<[u8]>::first_chunk::<N>) == Some(run);
        hit.then(|| self.i += N)
    }

    /// A sample record as `CaptureWriter` writes a live one (`SampleRecord` field order;
    /// the import-only fields, skipped when empty, absent).
    pub(super) fn sample_as_written(&mut self) -> Option<SampleRecord> {
        self.run(b"{\"record\":\"sample\",\"t\":")?;
        let t = self.f64()?;
        self.run(b",\"interface\":")?;
        let interface = self.string()?;
        self.run(b",\"link\":")?;
        let link = self.link_state_as_written()?;
        self.run(b",\"fec\":")?;
        let fec = self.opt(Cursor::fec_as_written)?;
        self.run(b",\"driver_stats\":")?;
        let driver_stats = self.driver_stats()?;
        self.run(b",\"module\":")?;
        let module = self.opt(Cursor::module_pages_as_written)?;
        self.run(b"}")?;
        Some(SampleRecord { t, interface, link, fec, driver_stats, module, ..SampleRecord::default() })
    }

    fn link_state_as_written(&mut self) -> Option<LinkState> {
        self.run(b"{\"up\":")?;
        let up = self.opt(Cursor::bool)?;
        self.run(b",\"ext_state\":")?;
        let ext_state = self.opt(Cursor::small)?;
        self.run(b",\"ext_substate\":")?;
        let ext_substate = self.opt(Cursor::small)?;
        self.run(b",\"down_events\":")?;
        let down_events = self.opt(Cursor::u64)?;
        self.run(b"}")?;
        Some(LinkState { up, ext_state, ext_substate, down_events })
    }

    /// FEC counters without a histogram (one goes to the general reader, then serde).
    fn fec_as_written(&mut self) -> Option<FecStats> {
        self.run(b"{\"corrected_blocks\":")?;
        let corrected_blocks = self.lanes()?;
        self.run(b",\"uncorrectable_blocks\":")?;
        let uncorrectable_blocks = self.lanes()?;
        self.run(b",\"corrected_bits\":")?;
        let corrected_bits = self.lanes()?;
        self.run(b",\"histogram\":[]}")?;
        Some(FecStats { corrected_blocks, uncorrectable_blocks, corrected_bits, histogram: Vec::new() })
    }

    fn module_pages_as_written(&mut self) -> Option<ModulePages> {
        self.run(b"{\"pages\":[")?;
        // A live sample holds a few page runs (SFF-8636: the lower page; CMIS: pages 0 and 11h).
        let mut pages = Vec::with_capacity(4);
        if self.run(b"]}").is_some() {
            return Some(ModulePages { pages });
        }
        loop {
            pages.push(self.page_entry_as_written()?);
            if self.run(b"]}").is_some() {
                return Some(ModulePages { pages });
            }
            self.run(b",")?;
        }
    }

    fn page_entry_as_written(&mut self) -> Option<PageEntry> {
        self.run(b"{\"i2c_address\":")?;
        let i2c_address = self.small()?;
        self.run(b",\"page\":")?;
        let page = self.small()?;
        self.run(b",\"bank\":")?;
        let bank = self.small()?;
        self.run(b",\"offset\":")?;
        let offset = self.small()?;
        self.run(b",\"data\":")?;
        let data = self.hex()?;
        self.run(b"}")?;
        Some(PageEntry { i2c_address, page, bank, offset, data })
    }
}
