//! A direct reader for capture lines as optics writes them (serde_json's compact output:
//! no whitespace, no escapes in names, hex `data`, empty `driver_stats`), parsing a line
//! straight into its record without serde's per-field visitor machinery.
//!
//! It is only a shortcut: any line it does not fully understand (an unknown or repeated
//! key, a missing field, an escape in a string, a number out of its field's range, a
//! value in another shape, trailing text) gives `None`, and serde parses the line as
//! before, so what is accepted, every record and every error message stay serde's. Keys
//! may come in any order (bundled captures have sorted keys, the writer declaration
//! order); a sample line in the writer's own layout is read first as such
//! ([`as_written`]). Values it does not read itself (non-empty `driver_stats`, `printed_module`,
//! `printed_fields`, `pci`, `port`, interface `link`, FEC histograms) are handed to
//! serde on their own bytes. A sample is read into the record read before, reusing its
//! buffers ([`reuse`]).

mod as_written;
mod digits;
#[cfg(target_arch = "x86_64")]
mod hex_sse2;
mod page_hex;
mod reuse;

use super::{EventKind, EventRecord, InterfaceRecord, ModulePages, Record, SampleRecord};
use crate::counters::{DriverStats, FecStats, LinkState, MAX_LANES};
use crate::module::PageEntry;
use serde::de::DeserializeOwned;

/// Reads the record a line holds into `rec` (a sample into the one `rec` holds, if it
/// does, reusing its buffers); `false` when serde must decide (`rec` then holds anything).
pub(super) fn parse_record_into(line: &[u8], rec: &mut Record) -> bool {
    let mut c = Cursor { b: line, i: 0 };
    c.ws();
    let start = c.i;
    let read = match tag_hint(line) {
        Some("sample") => {
            let s = sample_of(rec);
            c.sample_as_written(s).is_some() || {
                c.i = start;
                c.sample(s).is_some()
            }
        }
        Some("interface") => c.interface().map(|r| *rec = Record::Interface(r)).is_some(),
        Some(_) => c.event().map(|r| *rec = Record::Event(r)).is_some(),
        None => false,
    };
    c.ws();
    read && c.i == line.len()
}

/// The sample `rec` holds, after making it a fresh one if it holds another kind.
fn sample_of(rec: &mut Record) -> &mut SampleRecord {
    if !matches!(rec, Record::Sample(_)) {
        *rec = Record::Sample(SampleRecord::default());
    }
    match rec {
        Record::Sample(s) => s,
        // Made a sample just above.
        _ => unreachable!("rec holds a sample"),
    }
}

/// The record a line holds, or `None` when serde must decide (tests).
#[cfg(test)]
pub(super) fn parse_record(line: &[u8]) -> Option<Record> {
    let mut rec = Record::Sample(SampleRecord::default());
    parse_record_into(line, &mut rec).then_some(rec)
}

/// A sample line read in the writer's own layout only ([`as_written`]; tests).
#[cfg(test)]
pub(super) fn sample_as_written(line: &[u8]) -> Option<SampleRecord> {
    let mut c = Cursor { b: line, i: 0 };
    let mut sample = SampleRecord::default();
    c.sample_as_written(&mut sample)?;
    (c.i == line.len()).then_some(sample)
}

/// The variant the line names: its leading tag (the writer's order), else the value of
/// the first `"record":"` (sorted keys put it last). Only a guess (it might sit in a
/// nested object), which the variant's parser confirms at the top level.
fn tag_hint(line: &[u8]) -> Option<&'static str> {
    static KEY: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"record\":\""));
    if let Some(tag) = super::leading_tag(line) {
        return Some(tag);
    }
    let rest = &line[KEY.find(line)? + KEY.needle().len()..];
    ["sample", "interface", "event"].into_iter().find(|tag| rest.strip_prefix(tag.as_bytes()).is_some_and(|r| r.first() == Some(&b'"')))
}

/// Deepest nesting handed to serde: serde_json refuses past 128 levels counted from the
/// line's top, so a sub-value parsed on its own must stay well below to fail alike.
const MAX_SKIP_DEPTH: usize = 64;

/// 10^0..10^22: every one exact in an f64.
const POW10: [f64; 23] =
    [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22];

/// Stores a field's value; a key seen twice (serde's "duplicate field") gives up.
fn once<T>(slot: &mut Option<T>, value: T) -> Option<()> {
    slot.is_none().then(|| *slot = Some(value))
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Cursor<'a> {
    /// JSON whitespace (RFC 8259 section 2), the set serde_json skips.
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.b.get(self.i) {
            self.i += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        self.ws();
        (self.peek()? == byte).then(|| self.i += 1)
    }

    fn eat_literal(&mut self, lit: &[u8]) -> bool {
        let hit = self.b[self.i..].starts_with(lit);
        if hit {
            self.i += lit.len();
        }
        hit
    }

    /// `null` (consumed) or something else (left in place).
    fn null(&mut self) -> bool {
        self.ws();
        self.eat_literal(b"null")
    }

    /// Calls `item(self)` for each member between `open` and `close` (an array's
    /// elements, an object's key-value pairs).
    fn members(&mut self, open: u8, close: u8, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.eat(open)?;
        self.ws();
        if self.peek()? == close {
            self.i += 1;
            return Some(());
        }
        loop {
            item(self)?;
            self.ws();
            match self.peek()? {
                b',' => self.i += 1,
                b if b == close => {
                    self.i += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    /// Calls `item(self)` for each element of an array.
    fn array(&mut self, item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        self.members(b'[', b']', item)
    }

    /// Calls `field(self, key)` for each member of an object, the cursor at the value.
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a [u8]) -> Option<()>) -> Option<()> {
        self.members(b'{', b'}', |c| {
            let key = c.key()?;
            c.eat(b':')?;
            field(c, key)
        })
    }

    /// A key's bytes up to the next quote, unchecked: every key the caller knows is plain
    /// ASCII, so one holding an escape or a control character matches none of them (and
    /// gives up) just as well.
    fn key(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let rest = &self.b[self.i..];
        let end = rest.iter().position(|&b| b == b'"')?;
        self.i += end + 1;
        Some(&rest[..end])
    }

    /// A string's bytes between its quotes, when it has no escape and no control
    /// character (which JSON forbids unescaped); UTF-8 is checked by the caller. (A plain
    /// loop: names and keys are short, long hex goes through [`Cursor::hex`].)
    fn raw_str(&mut self) -> Option<&'a [u8]> {
        self.eat(b'"')?;
        let rest = &self.b[self.i..];
        let end = rest.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        if rest[end] != b'"' {
            return None;
        }
        self.i += end + 1;
        Some(&rest[..end])
    }

    fn string(&mut self) -> Option<String> {
        let mut text = String::new();
        self.string_into(&mut text)?;
        Some(text)
    }

    /// A string into `text` (its allocation reused).
    fn string_into(&mut self, text: &mut String) -> Option<()> {
        text_into(text, self.raw_str()?)
    }

    /// An integer field narrower than u64 (page numbers, offsets: inlined where they are
    /// read, four per page run).
    #[inline(always)]
    fn small<T: TryFrom<u64>>(&mut self) -> Option<T> {
        T::try_from(self.u64()?).ok()
    }

    fn bool(&mut self) -> Option<bool> {
        if self.eat_literal(b"true") {
            return Some(true);
        }
        self.eat_literal(b"false").then_some(false)
    }

    fn opt<T>(&mut self, value: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.null() {
            return Some(None);
        }
        value(self).map(Some)
    }

    /// [`Cursor::opt`] into `slot`: `null` empties it, a value is read by `fill` into the
    /// one it holds (its buffers reused), or into a new one.
    fn opt_into<T: Default>(&mut self, slot: &mut Option<T>, fill: impl FnOnce(&mut Self, &mut T) -> Option<()>) -> Option<()> {
        if self.null() {
            *slot = None;
            return Some(());
        }
        fill(self, slot.get_or_insert_with(T::default))
    }

    /// A JSON number as serde_json reads it into an f64 (without its `float_roundtrip`
    /// feature: `f64_from_parts`, the decimal significand times or divided by a power of
    /// ten). When the significand has at most 53 bits and the power is at most 10^22,
    /// both are exact and that one operation is IEEE-rounded, so the result is serde's
    /// bit for bit (and the correctly rounded value). Other numbers go to serde_json.
    fn f64(&mut self) -> Option<f64> {
        self.ws();
        let start = self.i;
        let negative = self.eat_literal(b"-");
        let mut significand: u64 = 0;
        let mut exact = true;
        let mut digit = |c: &mut Self, exponent: &mut i32, fraction: bool| -> usize {
            let mut n = 0;
            while let Some(d @ b'0'..=b'9') = c.peek() {
                match significand.checked_mul(10).and_then(|s| s.checked_add(u64::from(d - b'0'))) {
                    Some(s) => significand = s,
                    None => exact = false,
                }
                *exponent -= i32::from(fraction);
                c.i += 1;
                n += 1;
            }
            n
        };
        let mut exponent = 0i32;
        let int_start = self.i;
        let int_digits = digit(self, &mut exponent, false);
        if int_digits == 0 || (int_digits > 1 && self.b[int_start] == b'0') {
            return None;
        }
        if self.eat_literal(b".") && digit(self, &mut exponent, true) == 0 {
            return None;
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.i += 1;
            let minus = self.eat_literal(b"-") || {
                self.eat_literal(b"+");
                false
            };
            let mut e: i32 = 0;
            let e_start = self.i;
            while let Some(d @ b'0'..=b'9') = self.peek() {
                e = e.saturating_mul(10).saturating_add(i32::from(d - b'0'));
                self.i += 1;
            }
            if self.i == e_start {
                return None;
            }
            exponent = exponent.saturating_add(if minus { -e } else { e });
        }
        let end = self.i;
        if exact && significand <= 1 << 53 && exponent.unsigned_abs() < POW10.len() as u32 {
            let s = significand as f64;
            let pow = POW10[exponent.unsigned_abs() as usize];
            let v = if exponent >= 0 { s * pow } else { s / pow };
            return Some(if negative { -v } else { v });
        }
        serde_json::from_slice(&self.b[start..end]).ok()
    }

    /// Finds the end of the value at the cursor without checking its grammar (serde does,
    /// on the bytes it is given) and moves past it.
    fn skip_value(&mut self) -> Option<&'a [u8]> {
        self.ws();
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    loop {
                        let at = self.i + memchr::memchr2(b'"', b'\\', self.b.get(self.i..)?)?;
                        self.i = at + 1;
                        if self.b[at] == b'"' {
                            break;
                        }
                        // The escaped byte, whatever it is, is not a closing quote.
                        self.i += 1;
                    }
                }
                b'{' | b'[' => {
                    depth += 1;
                    if depth > MAX_SKIP_DEPTH {
                        return None;
                    }
                    self.i += 1;
                    continue;
                }
                b'}' | b']' | b',' if depth == 0 => break,
                b'}' | b']' => {
                    depth -= 1;
                    self.i += 1;
                }
                _ => self.i += 1,
            }
            if depth == 0 && matches!(self.b[self.i - 1], b'"' | b'}' | b']') {
                break;
            }
        }
        Some(&self.b[start..self.i])
    }

    /// The value at the cursor through its `Deserialize` (serde_json, on its own bytes).
    fn serde<T: DeserializeOwned>(&mut self) -> Option<T> {
        serde_json::from_slice(self.skip_value()?).ok()
    }

    /// `"record":"<tag>"`, the tag the variant's parser expects.
    fn tag(&mut self, tag: &str) -> Option<()> {
        (self.raw_str()? == tag.as_bytes()).then_some(())
    }

    /// A sample, keys in any order, into `s` (every field written or reset).
    fn sample(&mut self, s: &mut SampleRecord) -> Option<()> {
        let (mut record, mut t, mut interface, mut link, mut fec, mut driver_stats, mut module) = Default::default();
        let (mut origin_file, mut time_base, mut printed_module, mut printed_fields) = Default::default();
        self.object(|c, key| match key {
            b"record" => once(&mut record, c.tag("sample")?),
            b"t" => once(&mut t, c.f64()?),
            b"interface" => once(&mut interface, c.string_into(&mut s.interface)?),
            b"link" => once(&mut link, c.link_state()?),
            b"fec" => once(&mut fec, c.opt_into(&mut s.fec, Cursor::fec)?),
            b"driver_stats" => once(&mut driver_stats, c.driver_stats(&mut s.driver_stats)?),
            b"module" => once(&mut module, c.opt_into(&mut s.module, Cursor::module_pages)?),
            b"origin_file" => once(&mut origin_file, c.opt(Cursor::string)?),
            b"time_base" => once(&mut time_base, c.opt(Cursor::string)?),
            b"printed_module" => once(&mut printed_module, c.serde()?),
            b"printed_fields" => once(&mut printed_fields, c.serde()?),
            _ => None,
        })?;
        // Fields without a serde default are required (the writer always writes them).
        (record?, interface?, fec?, module?);
        s.t = t?;
        s.link = link?;
        if driver_stats.is_none() {
            no_driver_stats(&mut s.driver_stats);
        }
        s.origin_file = origin_file.flatten();
        s.time_base = time_base.flatten();
        s.printed_module = printed_module.flatten();
        s.printed_fields = printed_fields.unwrap_or_default();
        Some(())
    }

    fn interface(&mut self) -> Option<InterfaceRecord> {
        let (mut record, mut t, mut interface, mut driver, mut bus_info) = Default::default();
        let (mut pci, mut port, mut link, mut module, mut origin_file) = Default::default();
        self.object(|c, key| match key {
            b"record" => once(&mut record, c.tag("interface")?),
            b"t" => once(&mut t, c.f64()?),
            b"interface" => once(&mut interface, c.string()?),
            b"driver" => once(&mut driver, c.opt(Cursor::string)?),
            b"bus_info" => once(&mut bus_info, c.opt(Cursor::string)?),
            b"pci" => once(&mut pci, c.serde()?),
            b"port" => once(&mut port, c.serde()?),
            b"link" => once(&mut link, c.serde()?),
            b"module" => {
                let mut pages = None;
                c.opt_into(&mut pages, Cursor::module_pages)?;
                once(&mut module, pages)
            }
            b"origin_file" => once(&mut origin_file, c.opt(Cursor::string)?),
            _ => None,
        })?;
        record?;
        Some(InterfaceRecord {
            t: t?,
            interface: interface?,
            driver: driver?,
            bus_info: bus_info?,
            pci: pci?,
            port: port?,
            link: link?,
            module: module?,
            origin_file: origin_file.flatten(),
        })
    }

    fn event(&mut self) -> Option<EventRecord> {
        const KINDS: [EventKind; 4] = [EventKind::CounterReset, EventKind::ModuleChanged, EventKind::InterfaceGone, EventKind::Error];
        let (mut record, mut t, mut interface, mut kind, mut message) = Default::default();
        self.object(|c, key| match key {
            b"record" => once(&mut record, c.tag("event")?),
            b"t" => once(&mut t, c.f64()?),
            b"interface" => once(&mut interface, c.string()?),
            b"kind" => {
                let name = c.raw_str()?;
                once(&mut kind, KINDS.into_iter().find(|k| k.as_str().as_bytes() == name)?)
            }
            b"message" => once(&mut message, c.string()?),
            _ => None,
        })?;
        record?;
        Some(EventRecord { t: t?, interface: interface?, kind: kind?, message: message? })
    }

    fn link_state(&mut self) -> Option<LinkState> {
        let (mut up, mut ext_state, mut ext_substate, mut down_events) = Default::default();
        self.object(|c, key| match key {
            b"up" => once(&mut up, c.opt(Cursor::bool)?),
            b"ext_state" => once(&mut ext_state, c.opt(Cursor::small)?),
            b"ext_substate" => once(&mut ext_substate, c.opt(Cursor::small)?),
            b"down_events" => once(&mut down_events, c.opt(Cursor::u64)?),
            _ => None,
        })?;
        Some(LinkState {
            up: up?,
            ext_state: ext_state.flatten(),
            ext_substate: ext_substate.flatten(),
            down_events: down_events.flatten(),
        })
    }

    /// FEC counters into `f`; a histogram (or anything unusual) goes to serde with the
    /// whole object.
    fn fec(&mut self, f: &mut FecStats) -> Option<()> {
        let start = self.i;
        if self.fec_without_histogram(f).is_none() {
            self.i = start;
            *f = self.serde()?;
        }
        Some(())
    }

    fn fec_without_histogram(&mut self, f: &mut FecStats) -> Option<()> {
        let (mut corrected_blocks, mut uncorrectable_blocks, mut corrected_bits, mut histogram) = Default::default();
        self.object(|c, key| match key {
            b"corrected_blocks" => once(&mut corrected_blocks, c.lanes(&mut f.corrected_blocks)?),
            b"uncorrectable_blocks" => once(&mut uncorrectable_blocks, c.lanes(&mut f.uncorrectable_blocks)?),
            b"corrected_bits" => once(&mut corrected_bits, c.lanes(&mut f.corrected_bits)?),
            b"histogram" => once(&mut histogram, c.array(|_| None)?),
            _ => None,
        })?;
        // Each has a serde default (empty).
        for (seen, lanes) in [
            (corrected_blocks, &mut f.corrected_blocks),
            (uncorrectable_blocks, &mut f.uncorrectable_blocks),
            (corrected_bits, &mut f.corrected_bits),
        ] {
            if seen.is_none() {
                lanes.clear();
            }
        }
        f.histogram.clear();
        Some(())
    }

    /// `[total, lane 1, ...]` into `v`: at most 1 + MAX_LANES entries, as `counters` bounds it.
    fn lanes(&mut self, v: &mut Vec<u64>) -> Option<()> {
        v.clear();
        v.reserve(1 + MAX_LANES);
        let start = self.i;
        if self.compact_counters(v, 1 + MAX_LANES).is_none() {
            self.i = start;
            v.clear();
            self.array(|c| {
                (v.len() < 1 + MAX_LANES).then_some(())?;
                v.push(c.u64()?);
                Some(())
            })?;
        }
        reuse::trim(v);
        Some(())
    }

    fn driver_stats(&mut self, stats: &mut DriverStats) -> Option<()> {
        let start = self.i;
        if self.eat(b'{').is_some() && self.eat(b'}').is_some() {
            no_driver_stats(stats);
            return Some(());
        }
        self.i = start;
        *stats = self.serde()?;
        Some(())
    }

    /// Page runs into `m` (entries and their data buffers reused in order).
    fn module_pages(&mut self, m: &mut ModulePages) -> Option<()> {
        let mut pages = None;
        self.object(|c, key| match key {
            b"pages" => {
                let mut n = 0;
                c.array(|c| {
                    c.page_entry(reuse::page_slot(&mut m.pages, n)?)?;
                    n += 1;
                    Some(())
                })?;
                reuse::pages_done(&mut m.pages, n);
                once(&mut pages, ())
            }
            _ => None,
        })?;
        pages
    }

    fn page_entry(&mut self, e: &mut PageEntry) -> Option<()> {
        let (mut i2c_address, mut page, mut bank, mut offset, mut data) = Default::default();
        self.object(|c, key| match key {
            b"i2c_address" => once(&mut i2c_address, c.small()?),
            b"page" => once(&mut page, c.small()?),
            b"bank" => once(&mut bank, c.small()?),
            b"offset" => once(&mut offset, c.small()?),
            b"data" => once(&mut data, c.hex(&mut e.data)?),
            _ => None,
        })?;
        data?;
        (e.i2c_address, e.page, e.offset) = (i2c_address?, page?, offset?);
        // `bank` has a serde default.
        e.bank = bank.unwrap_or_default();
        Some(())
    }
}

/// A string's bytes ([`Cursor::raw_str`]) into `text`, when they are UTF-8.
fn text_into(text: &mut String, raw: &[u8]) -> Option<()> {
    let s = std::str::from_utf8(raw).ok()?;
    text.clear();
    text.push_str(s);
    reuse::trim_text(text);
    Some(())
}

/// Empty driver counters, as a fresh parse of `{}` (or of none) gives; already empty ones
/// are kept (their name table is as empty).
fn no_driver_stats(stats: &mut DriverStats) {
    if !stats.is_empty() {
        *stats = DriverStats::default();
    }
}
