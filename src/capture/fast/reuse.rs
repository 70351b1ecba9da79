//! Reading a line into the record read before ([`super::parse_record_into`]): a sample's
//! strings, counter arrays and page runs are refilled in place, so a stream of samples
//! allocates nothing per line (at 16 interfaces x 8 lanes, allocating and freeing them
//! was about a fifth of reading). Every field is written or reset, so the record is
//! exactly what a fresh parse gives; only allocations carry over.
//!
//! What carries over is bounded by the line being read: a buffer far larger than what
//! it now holds is given back instead of kept (else a run of lines could leave a large
//! allocation in every page of the list: a hostile capture's memory would grow with its
//! length).

use crate::module::PageEntry;

/// Items a reused buffer may keep beyond twice what it holds.
const SLACK: usize = 64;

/// A refilled buffer's allocation given back when far larger than what it now holds.
pub(super) fn trim<T>(buf: &mut Vec<T>) {
    if buf.capacity() > 2 * buf.len() + SLACK {
        buf.shrink_to_fit();
    }
}

/// [`trim`] for text.
pub(super) fn trim_text(buf: &mut String) {
    if buf.capacity() > 2 * buf.len() + SLACK {
        buf.shrink_to_fit();
    }
}

/// Entry `k` of a page list being refilled in order (`k <= pages.len()`): the one read
/// before (its data buffer reused), or a new empty one at the end.
pub(super) fn page_slot(pages: &mut Vec<PageEntry>, k: usize) -> Option<&mut PageEntry> {
    if k == pages.len() {
        pages.push(PageEntry { i2c_address: 0, page: 0, bank: 0, offset: 0, data: Vec::new() });
    }
    pages.get_mut(k)
}

/// The page list refilled with `n` entries: later ones (from a longer record) dropped.
pub(super) fn pages_done(pages: &mut Vec<PageEntry>, n: usize) {
    pages.truncate(n);
    trim(pages);
}
