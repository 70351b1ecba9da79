//! Sample lines in the writer's own layout, byte for byte: `CaptureWriter` is serde_json's
//! compact output of the record structs, so the text between values (keys, quotes,
//! commas, braces) is the same on every line, in struct declaration order. Those runs are
//! compared as fixed byte strings instead of being read as keys and matched; the values
//! go through the general reader's own parsers. The first byte that differs from that
//! layout (sorted keys, spacing, a field the writer leaves out for live captures but an
//! import writes, a histogram) gives `None`, and the caller rereads the record with the
//! general, any-order reader.

use super::{reuse, Cursor};
use crate::capture::{ModulePages, SampleRecord};
use crate::counters::{FecStats, LinkState};
use crate::module::PageEntry;

impl Cursor<'_> {
    /// Consumes `run` when the bytes at the cursor are exactly it.
    fn run<const N: usize>(&mut self, run: &[u8; N]) -> Option<()> {
        let hit = self.b.get(self.i..).and_then(<[u8]>::first_chunk::<N>) == Some(run);
        hit.then(|| self.i += N)
    }

    /// A sample record as `CaptureWriter` writes a live one (`SampleRecord` field order;
    /// the import-only fields, skipped when empty, absent), into `s`.
    pub(super) fn sample_as_written(&mut self, s: &mut SampleRecord) -> Option<()> {
        self.run(b"{\"record\":\"sample\",\"t\":")?;
        s.t = self.f64()?;
        self.run(b",\"interface\":")?;
        let interface = self.raw_str()?;
        self.run(b",\"link\":")?;
        // Where a line with the writer's top level but sorted inner keys first differs:
        // the name is copied only past it.
        s.link = self.link_state_as_written()?;
        super::text_into(&mut s.interface, interface)?;
        self.run(b",\"fec\":")?;
        self.opt_into(&mut s.fec, Cursor::fec_as_written)?;
        self.run(b",\"driver_stats\":")?;
        self.driver_stats(&mut s.driver_stats)?;
        self.run(b",\"module\":")?;
        self.opt_into(&mut s.module, Cursor::module_pages_as_written)?;
        self.run(b"}")?;
        (s.origin_file, s.time_base, s.printed_module) = (None, None, None);
        if !s.printed_fields.is_empty() {
            s.printed_fields.clear();
        }
        Some(())
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
    fn fec_as_written(&mut self, f: &mut FecStats) -> Option<()> {
        self.run(b"{\"corrected_blocks\":")?;
        self.lanes(&mut f.corrected_blocks)?;
        self.run(b",\"uncorrectable_blocks\":")?;
        self.lanes(&mut f.uncorrectable_blocks)?;
        self.run(b",\"corrected_bits\":")?;
        self.lanes(&mut f.corrected_bits)?;
        self.run(b",\"histogram\":[]}")?;
        f.histogram.clear();
        Some(())
    }

    /// Page runs (a live sample holds a few: SFF-8636 the lower page, CMIS pages 0 and
    /// 11h), entries and data buffers reused in order.
    fn module_pages_as_written(&mut self, m: &mut ModulePages) -> Option<()> {
        self.run(b"{\"pages\":[")?;
        let mut n = 0;
        if self.run(b"]}").is_none() {
            loop {
                self.page_entry_as_written(reuse::page_slot(&mut m.pages, n)?)?;
                n += 1;
                if self.run(b"]}").is_some() {
                    break;
                }
                self.run(b",")?;
            }
        }
        reuse::pages_done(&mut m.pages, n);
        Some(())
    }

    fn page_entry_as_written(&mut self, e: &mut PageEntry) -> Option<()> {
        self.run(b"{\"i2c_address\":")?;
        e.i2c_address = self.small()?;
        self.run(b",\"page\":")?;
        e.page = self.small()?;
        self.run(b",\"bank\":")?;
        e.bank = self.small()?;
        self.run(b",\"offset\":")?;
        e.offset = self.small()?;
        self.run(b",\"data\":")?;
        self.hex(&mut e.data)?;
        self.run(b"}")
    }
}
