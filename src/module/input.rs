//! File formats a user may hand `optics decode`, detected from the content:
//! - module image JSON (docs/module-image-format.md): `{"pages":[{"i2c_address":80,...}]}`;
//! - flat binary dumps laid out as the legacy ethtool ioctl returns them
//!   (SFF-8472 256/512, SFF-8636 256/640, CMIS 256 bytes; kernel `eeprom.c` linear offsets);
//! - hex text as `ethtool -m IFACE hex on`, `i2cdump`, `hexdump -C` and switch CLIs print it,
//!   with optional headings naming the I2C address (`0x51`, `A2h`), page (`Page 03h`) and bank.

use super::image::{ImageError, ModuleImage, PageEntry, I2C_A0, I2C_A2};
use super::report::Standard;
use super::sff8024;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Which format [`parse`] found an input to be (`format` in `decode --json`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InputFormat {
    /// Module image JSON (docs/module-image-format.md).
    ImageJson,
    /// A flat binary dump in the legacy ethtool ioctl layout.
    Binary,
    /// Hex text (`ethtool -m hex on`, i2cdump, `hexdump -C`, switch CLIs).
    HexText,
}

/// Why an input is not a module image.
#[derive(Debug, Error)]
pub enum InputError {
    /// No bytes at all.
    #[error("input is empty")]
    Empty,
    /// JSON that does not parse as a module image (serde's message).
    #[error("not a valid module image JSON document: {0} (expected {{\"pages\": [{{\"i2c_address\", \"page\", \"bank\", \"offset\", \"data\"}}, ...]}})")]
    Json(String),
    /// An entry of the `pages` array that does not fit the image.
    #[error("module image JSON entry {index}: {source}")]
    Entry {
        /// 0-based index in `pages`.
        index: usize,
        /// Why the entry does not fit.
        source: ImageError,
    },
    /// A flat binary dump whose length does not fit its identifier's layout.
    #[error("flat binary dump of {len} bytes with identifier {identifier}: {expected}")]
    BinaryLayout {
        /// Length of the dump, bytes.
        len: usize,
        /// Byte 0 in hex and its name (SFF-8024 Table 4-1).
        identifier: String,
        /// The lengths that identifier's layout allows, as text.
        expected: String,
    },
    /// Hex text that does not parse (what was wrong, and where).
    #[error("hex text: {0}")]
    HexText(String),
    /// None of the three formats.
    #[error("unrecognised input: expected module image JSON, a flat binary dump (SFF-8472 256/512, SFF-8636 256/640 or CMIS 256 bytes), or hex text as printed by `ethtool -m IFACE hex on` or i2cdump")]
    Unrecognised,
}

/// A parsed input: the image, which format it was, and what the parser had to assume.
#[derive(Clone, Debug)]
pub struct ParsedImage {
    /// The bytes read.
    pub image: ModuleImage,
    /// The format the input was found to be.
    pub format: InputFormat,
    /// What the parser had to assume (e.g. the I2C address of a headingless hex dump).
    pub notes: Vec<String>,
}

#[derive(Deserialize)]
struct ImageJson {
    pages: Vec<PageEntry>,
}

/// Parses any supported input format, detected from the content.
pub fn parse(input: &[u8]) -> Result<ParsedImage, InputError> {
    let input = input.strip_prefix(b"\xef\xbb\xbf").unwrap_or(input);
    if input.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(InputError::Empty);
    }
    match std::str::from_utf8(input) {
        Ok(text) if looks_textual(text) => {
            if text.trim_start().starts_with('{') {
                parse_json(text)
            } else {
                match parse_hex_text(text) {
                    // A binary image can be all printable bytes; at a dump size, try it as one.
                    Err(InputError::Unrecognised) if matches!(input.len(), 256 | 512 | 640) => parse_binary(input),
                    other => other,
                }
            }
        }
        _ => parse_binary(input),
    }
}

/// Text dumps are printable ASCII with line breaks; binary images have control bytes early
/// (identifier, status) almost always.
fn looks_textual(text: &str) -> bool {
    text.chars().all(|c| !c.is_control() || c.is_ascii_whitespace())
}

pub(crate) fn parse_json(text: &str) -> Result<ParsedImage, InputError> {
    let doc: ImageJson = serde_json::from_str(text).map_err(|e| InputError::Json(e.to_string()))?;
    let mut image = ModuleImage::new();
    for (index, entry) in doc.pages.iter().enumerate() {
        if entry.offset > 255 || entry.offset as usize + entry.data.len() > 256 {
            return Err(InputError::Entry { index, source: ImageError::OffsetOutOfRange(entry.offset) });
        }
        image.insert_entry(entry).map_err(|source| InputError::Entry { index, source })?;
    }
    if image.is_empty() {
        return Err(InputError::Json("no bytes in \"pages\"".into()));
    }
    Ok(ParsedImage { image, format: InputFormat::ImageJson, notes: Vec::new() })
}

/// Legacy ioctl linear layouts (kernel net/ethtool/eeprom.c fallback): SFF-8472 A2h at 256;
/// SFF-8636 upper page N (N >= 1) at N*128 + 128.
pub(crate) fn parse_binary(data: &[u8]) -> Result<ParsedImage, InputError> {
    let id = data.first().copied().ok_or(InputError::Empty)?;
    let layout_err = |expected: &str| InputError::BinaryLayout {
        len: data.len(),
        identifier: format!("{id:#04x} ({})", sff8024::identifier_name(id)),
        expected: expected.to_string(),
    };
    let standard = Standard::for_identifier(id)
        .ok_or_else(|| layout_err("unknown identifier, so the layout cannot be told; expected an SFP (0x03), QSFP (0x0c/0x0d/0x11) or CMIS (0x18, 0x19, 0x1e, ...) module"))?;
    let mut image = ModuleImage::new();
    let mut notes = Vec::new();
    match (standard, data.len()) {
        (Standard::Sff8472, 256) | (Standard::Sff8472, 512) => {
            insert_linear(&mut image, standard, data);
            if data.len() == 256 {
                notes.push("256-byte SFF-8472 dump: A0h only, no diagnostics (A2h)".into());
            }
        }
        (Standard::Sff8472, _) => return Err(layout_err("SFF-8472 dumps are 256 (A0h) or 512 (A0h then A2h) bytes")),
        (Standard::Sff8636, 256) | (Standard::Sff8636, 640) => insert_linear(&mut image, standard, data),
        (Standard::Sff8636, _) => return Err(layout_err("SFF-8636 dumps are 256 (lower + page 00h) or 640 (plus pages 01h-03h) bytes")),
        (Standard::Cmis, 256) => insert_linear(&mut image, standard, data),
        (Standard::Cmis, _) => {
            return Err(layout_err("CMIS flat dumps are 256 bytes (lower + page 00h); use the module image JSON format for more pages"))
        }
    }
    Ok(ParsedImage { image, format: InputFormat::Binary, notes })
}

/// Places `data` (linear offsets from 0) into the image per the legacy layout of `standard`.
fn insert_linear(image: &mut ModuleImage, standard: Standard, data: &[u8]) {
    for (i, chunk) in data.chunks(128).enumerate() {
        let base = i * 128;
        let placed = linear_to_paged(standard, I2C_A0, base as u32);
        if let Some((addr, page, offset)) = placed {
            // Chunks are 128-byte aligned, so each lies in one half page.
            let _ = image.insert(addr, page, 0, offset, chunk);
        }
    }
}

/// Maps a linear offset of the legacy layout to (I2C address, page, offset 0-255).
fn linear_to_paged(standard: Standard, i2c_address: u8, lin: u32) -> Option<(u8, u8, u16)> {
    match lin {
        0..=255 => Some((i2c_address, 0, lin as u16)),
        _ => match standard {
            Standard::Sff8472 if i2c_address == I2C_A0 && lin < 512 => Some((I2C_A2, 0, (lin - 256) as u16)),
            Standard::Sff8472 => None,
            Standard::Sff8636 | Standard::Cmis => {
                let page = (lin - 128) / 128;
                (page <= 255).then_some((i2c_address, page as u8, 128 + (lin % 128) as u16))
            }
        },
    }
}

/// One block of consecutive hex rows, with the heading lines that came before it.
#[derive(Debug, Default)]
struct HexBlock {
    label: String,
    bytes: Vec<(u32, Option<u8>)>,
}

/// Where a block's bytes go, from its heading.
#[derive(Debug, Default, PartialEq)]
struct BlockTarget {
    i2c_address: Option<u8>,
    page: Option<u8>,
    bank: u8,
    lower: bool,
}

/// One past the largest linear address a module image can have: SFF-8636 / CMIS upper page
/// 255 ends at 128 + 256 x 128 (the legacy layout of [`linear_to_paged`]); SFF-8472 (512) and
/// paged blocks (256) end earlier.
const LINEAR_END: u32 = 128 + 256 * 128;

/// Bytes that `*` repeat lines may stand for across one text: four full-size images' worth,
/// so a text cannot make the parser hold more than it could ever place.
const ELIDED_BUDGET: usize = 4 * LINEAR_END as usize;

/// How sonic-utilities' `sfputil show eeprom-hexdump` heads each port's dump:
/// `EEPROM hexdump for port Ethernet0` (every port), `... for port Ethernet0 page 10h` (`-p`).
const SFPUTIL_PORT: &str = "EEPROM hexdump for port ";

/// The ports of an `sfputil show eeprom-hexdump` text in the order printed, each with its
/// dump's lines (a port dumped twice, `-n 10` then `-n 11`, is one port with both); empty
/// when the text has no such heading.
pub fn sfputil_ports(text: &str) -> Vec<(String, String)> {
    let mut ports: Vec<(String, String)> = Vec::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        if let Some(rest) = line.trim().strip_prefix(SFPUTIL_PORT) {
            let port = rest.split_whitespace().next().unwrap_or_default().to_string();
            current = Some(match ports.iter().position(|(p, _)| *p == port) {
                Some(i) => i,
                None => {
                    ports.push((port, String::new()));
                    ports.len() - 1
                }
            });
            continue;
        }
        if let Some(i) = current {
            ports[i].1.push_str(line);
            ports[i].1.push('\n');
        }
    }
    ports
}

pub(crate) fn parse_hex_text(text: &str) -> Result<ParsedImage, InputError> {
    let ports = sfputil_ports(text);
    if ports.len() > 1 {
        let names: Vec<&str> = ports.iter().map(|(p, _)| p.as_str()).collect();
        return Err(InputError::HexText(format!(
            "an sfputil show eeprom-hexdump of {} ports ({}): one module each; decode one with --port PORT",
            names.len(),
            names.join(", ")
        )));
    }
    let blocks = hex_blocks(text)?;
    if blocks.is_empty() {
        return Err(InputError::Unrecognised);
    }
    let mut image = ModuleImage::new();
    let mut notes = Vec::new();
    // The identifier is A0h byte 0; a block headed A2h starts at its own offset 0.
    let identifier = blocks
        .iter()
        .filter(|b| block_target(&b.label).i2c_address != Some(I2C_A2))
        .flat_map(|b| b.bytes.iter())
        .find(|(addr, _)| *addr == 0)
        .and_then(|(_, b)| *b);
    let standard = match identifier {
        Some(id) => Standard::for_identifier(id),
        // Only SFF-8472 has memory without an identifier: A2h (I2C 0x51) diagnostics, as
        // `ethtool -m IFACE hex on offset 256` prints them (linear 0x100-0x1ff) or headed A2h.
        None if a2h_alone(&blocks) => {
            notes.push("A2h (diagnostics) alone: the identity page A0h is absent".into());
            Some(Standard::Sff8472)
        }
        None => return Err(InputError::HexText("no byte at offset 0 (the identifier)".into())),
    };
    let mut unlabelled_seen = 0usize;
    for block in &blocks {
        let target = block_target(&block.label);
        let i2c = match target.i2c_address {
            Some(a) => a,
            None if target.page.is_none() && !target.lower => {
                unlabelled_seen += 1;
                match (unlabelled_seen, standard) {
                    (1, _) => I2C_A0,
                    // i2cdump of an SFP prints A0h then A2h, each from offset 0.
                    (2, Some(Standard::Sff8472)) => {
                        notes.push("second unlabelled block taken as SFF-8472 A2h (I2C 0x51)".into());
                        I2C_A2
                    }
                    _ => {
                        return Err(InputError::HexText(
                            "several unlabelled blocks that restart at offset 0: cannot tell which page each is; label them (e.g. \"Page 03h:\")".into(),
                        ))
                    }
                }
            }
            None => I2C_A0,
        };
        for (addr, byte) in &block.bytes {
            let Some(byte) = byte else { continue };
            let placed = if let Some(page) = target.page {
                // Paged blocks print either 0x80-0xff or 0x00-0x7f for the upper half.
                let off = if *addr < 128 { addr + 128 } else { *addr };
                (off < 256).then_some((i2c, page, off as u16))
            } else if target.lower {
                (*addr < 128).then_some((i2c, 0, *addr as u16))
            } else {
                standard.and_then(|s| linear_to_paged(s, i2c, *addr))
            };
            match placed {
                Some((a, page, off)) => {
                    let bank = if off < 128 { 0 } else { target.bank };
                    let page = if off < 128 { 0 } else { page };
                    image.insert(a, page, bank, off, &[*byte]).map_err(|e| InputError::HexText(format!("offset {addr:#x}: {e}")))?;
                }
                None => {
                    return Err(InputError::HexText(format!(
                        "offset {addr:#06x} does not fit the {} layout",
                        standard.map(|s| s.as_str()).unwrap_or("unknown")
                    )))
                }
            }
        }
    }
    Ok(ParsedImage { image, format: InputFormat::HexText, notes })
}

/// Every block is SFF-8472 A2h: headed so, or at linear offsets 0x100-0x1ff.
fn a2h_alone(blocks: &[HexBlock]) -> bool {
    blocks.iter().all(|b| block_target(&b.label).i2c_address == Some(I2C_A2) || b.bytes.iter().all(|(addr, _)| (256..512).contains(addr)))
}

/// Splits text into blocks of hex rows. A new block starts when the address does not
/// follow on from the previous row, or heading lines came between rows.
fn hex_blocks(text: &str) -> Result<Vec<HexBlock>, InputError> {
    let mut blocks: Vec<HexBlock> = Vec::new();
    let mut elided = 0usize;
    let mut pending_label: Vec<String> = Vec::new();
    let mut next_addr: Option<u32> = None;
    // `hexdump -C`, `od` and `xxd -a` print "*" for rows identical to the one before.
    let mut last_row: Vec<Option<u8>> = Vec::new();
    let mut repeat = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || is_column_header(trimmed) {
            continue;
        }
        if trimmed == "*" && !last_row.is_empty() {
            repeat = true;
            continue;
        }
        match parse_row(trimmed) {
            Row::Malformed { addr, token } => {
                return Err(InputError::HexText(format!(
                    "row at offset {addr:#x}: \"{token}\" is not a byte (two hex digits, or XX/-- for unreadable); an ASCII column is set apart by two spaces, `|` or `>`"
                )));
            }
            Row::Bytes(addr, bytes) => {
                if addr.saturating_add(bytes.len() as u32) > LINEAR_END {
                    return Err(InputError::HexText(format!(
                        "row at offset {addr:#x} is past the largest address a module image can have ({:#x})",
                        LINEAR_END - 1
                    )));
                }
                if let (true, Some(block), Some(from)) = (repeat, blocks.last_mut(), next_addr) {
                    // Fill the elided rows; a gap going back fills nothing and the row below
                    // starts a new block. Addresses are under LINEAR_END (checked above).
                    elided += addr.saturating_sub(from) as usize;
                    if elided > ELIDED_BUDGET {
                        return Err(InputError::HexText(format!(
                            "\"*\" repeat lines stand for more than {ELIDED_BUDGET} bytes, more than a module image holds"
                        )));
                    }
                    let mut at = from;
                    while at < addr && !last_row.is_empty() {
                        for (i, b) in last_row.iter().enumerate().take((addr - at) as usize) {
                            block.bytes.push((at + i as u32, *b));
                        }
                        at += last_row.len() as u32;
                    }
                    next_addr = Some(at.min(addr));
                }
                repeat = false;
                let continues = pending_label.is_empty() && next_addr == Some(addr);
                if !continues || blocks.is_empty() {
                    blocks.push(HexBlock { label: pending_label.join(" "), bytes: Vec::new() });
                    pending_label.clear();
                }
                let block = blocks.last_mut().expect("a block was pushed above");
                for (i, b) in bytes.iter().enumerate() {
                    block.bytes.push((addr + i as u32, *b));
                }
                next_addr = Some(addr + bytes.len() as u32);
                last_row = bytes;
            }
            Row::Text => {
                // The heading nearest the rows names them. A file's leading `# ...` comment
                // block describes the dump as a whole, so it names no block.
                let leading_comment = blocks.is_empty() && trimmed.starts_with('#') && !trimmed.starts_with("##");
                if !leading_comment {
                    pending_label = vec![trimmed.to_string()];
                }
                repeat = false;
            }
        }
    }
    Ok(blocks)
}

/// i2cdump / hexdump column headers ("0  1  2 ... f", "0123456789abcdef").
fn is_column_header(line: &str) -> bool {
    line.split_whitespace().all(|t| t.len() <= 2 && t.chars().all(|c| c.is_ascii_hexdigit()))
        || line
            .split_whitespace()
            .all(|t| t.eq_ignore_ascii_case("0123456789abcdef") || (t.len() == 1 && t.chars().all(|c| c.is_ascii_hexdigit())))
}

/// What a line of hex text is.
#[derive(Debug, PartialEq)]
enum Row {
    /// A heading, comment or anything else that is not a row of bytes.
    Text,
    /// An address and its bytes (`None` = printed unreadable).
    Bytes(u32, Vec<Option<u8>>),
    /// A row whose bytes run into a token that is neither a byte nor a set-apart ASCII column.
    Malformed { addr: u32, token: String },
}

/// One row: an address (hex, optional `0x`, then `:` or whitespace) and 1-16 two-digit hex
/// bytes (`XX`/`--` = unreadable). Every dump tool sets its ASCII column apart from the bytes
/// (`hexdump -C` and `sfputil` with `|`, `od -t x1z` with `>`, `xxd` and `i2cdump` with two
/// or more spaces), so a non-byte token one space after a byte is a damaged row, not text.
fn parse_row(line: &str) -> Row {
    let Some(split) = line.find(|c: char| c == ':' || c.is_whitespace()) else {
        return Row::Text;
    };
    let (addr_str, rest) = line.split_at(split);
    let addr_digits = addr_str.strip_prefix("0x").or_else(|| addr_str.strip_prefix("0X")).unwrap_or(addr_str);
    if addr_digits.is_empty() || addr_digits.len() > 8 || !addr_digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return Row::Text;
    }
    let Ok(addr) = u32::from_str_radix(addr_digits, 16) else {
        return Row::Text;
    };
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let mut bytes = Vec::new();
    let mut cursor = rest;
    while bytes.len() < 16 {
        let trimmed = cursor.trim_start();
        let gap = &cursor[..cursor.len() - trimmed.len()];
        let Some(tok) = trimmed.split_whitespace().next() else { break };
        cursor = &trimmed[tok.len()..];
        if tok.eq_ignore_ascii_case("xx") || tok == "--" {
            bytes.push(None);
            continue;
        }
        // Two hex digits per byte; `xxd` groups two bytes per token.
        if (tok.len() == 2 || tok.len() == 4) && tok.chars().all(|c| c.is_ascii_hexdigit()) {
            bytes.extend((0..tok.len()).step_by(2).map(|i| u8::from_str_radix(&tok[i..i + 2], 16).ok()));
            continue;
        }
        let set_apart = gap.len() >= 2 || gap.contains('\t') || tok.starts_with('|') || tok.starts_with('>');
        if !bytes.is_empty() && !set_apart {
            return Row::Malformed { addr, token: tok.to_string() };
        }
        break;
    }
    if bytes.is_empty() {
        Row::Text
    } else {
        Row::Bytes(addr, bytes)
    }
}

/// Reads a heading such as "### i2cdump -y 8 0x51 (A2h)", "QSFP-DD Upper Page 01h:",
/// "Lower Page", "Page 0x11 bank 1".
fn block_target(label: &str) -> BlockTarget {
    let lower_label = label.to_ascii_lowercase();
    let words: Vec<&str> = lower_label.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    let mut t = BlockTarget::default();
    for (i, w) in words.iter().enumerate() {
        match *w {
            "0x51" | "a2h" | "a2" => t.i2c_address = Some(I2C_A2),
            "0x50" | "a0h" | "a0" => t.i2c_address = Some(I2C_A0),
            "lower" => t.lower = true,
            "page" => {
                if let Some(p) = words.get(i + 1).and_then(|n| parse_page_number(n)) {
                    t.page = Some(p);
                }
            }
            "bank" => {
                if let Some(b) = words.get(i + 1).and_then(|n| n.parse::<u8>().ok()) {
                    t.bank = b;
                }
            }
            _ => {}
        }
    }
    if t.lower {
        t.page = None;
    }
    t
}

/// "03h", "0x11", "11h", "3" -> page number (hex, as every spec writes pages).
fn parse_page_number(w: &str) -> Option<u8> {
    let digits = w.strip_prefix("0x").or_else(|| w.strip_suffix('h')).unwrap_or(w);
    if digits.is_empty() || digits.len() > 2 {
        return None;
    }
    u8::from_str_radix(digits, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_in_every_dump_style() {
        assert_eq!(parse_row("0x0010: 00 01"), Row::Bytes(0x10, vec![Some(0), Some(1)]));
        assert_eq!(parse_row("00000010 82 00  17 80 |....|"), Row::Bytes(0x10, vec![Some(0x82), Some(0), Some(0x17), Some(0x80)]));
        assert_eq!(parse_row("0x80:19 43"), Row::Bytes(0x80, vec![Some(0x19), Some(0x43)]));
        assert_eq!(parse_row("10: 08 XX 00    ??."), Row::Bytes(0x10, vec![Some(8), None, Some(0)]));
        assert_eq!(parse_row("fpc_num:         0"), Row::Text);
        assert_eq!(parse_row("1       100GAUI-1-S C2M"), Row::Text);
        // A byte damaged in transit is refused, not read as the start of an ASCII column.
        assert_eq!(parse_row("00000000 11 22 zz 44"), Row::Malformed { addr: 0, token: "zz".into() });
        assert_eq!(parse_row("0x0010:\t11 2"), Row::Malformed { addr: 0x10, token: "2".into() });
        // od -A x -t x1z and sfputil set the text apart with `>` and `|` after one space.
        assert_eq!(parse_row("000000 11 22 >.\"<"), Row::Bytes(0, vec![Some(0x11), Some(0x22)]));
        assert!(is_column_header("0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f    0123456789abcdef"));
    }

    #[test]
    fn xxd_groups_and_elided_rows() {
        assert_eq!(parse_row("00000010: 0802 001e  .."), Row::Bytes(0x10, vec![Some(8), Some(2), Some(0), Some(0x1e)]));
        // hexdump -C: "*" stands for rows 0x10-0x2f identical to row 0x00.
        let text = "00000000  11 07 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\n\
                    00000030  01 02 03 04 05 06 07 08  09 0a 0b 0c 0d 0e 0f 10  |................|\n";
        let blocks = hex_blocks(text).unwrap();
        assert_eq!(blocks.len(), 1);
        let bytes = &blocks[0].bytes;
        assert_eq!(bytes.len(), 64);
        assert_eq!(bytes[0x20], (0x20, Some(0x11))); // row 0x20 repeats row 0x00
        assert_eq!(bytes[0x30], (0x30, Some(0x01)));
    }

    #[test]
    fn repeat_lines_are_bounded_by_the_largest_module_address() {
        // The issue's text: rows 0x10000 apart, each followed by "*": the second row is
        // past 0x807f (page 255's last byte in the linear layout) and is refused.
        let row = "11 07 00 00 00 00 00 00 00 00 00 00 00 00 00 00";
        let text: String = (0..10_000u32).map(|i| format!("{:08x}  {row}\n*\n", i * 0x1_0000)).collect();
        let e = parse_hex_text(&text).unwrap_err().to_string();
        assert!(e.contains("past the largest address") && e.contains("0x807f"), "{e}");
        // Rows inside the layout whose "*" gaps add up to more than four full images:
        // 0x0 then 0x8000, again and again, elides 0x7ff0 bytes each time.
        let text: String = (0..10_000).map(|_| format!("00000000  {row}\n*\n00008000  {row}\n")).collect();
        let e = parse_hex_text(&text).unwrap_err().to_string();
        assert!(e.contains("repeat lines stand for more than"), "{e}");
    }

    #[test]
    fn headings_name_address_page_and_bank() {
        assert_eq!(block_target("### i2cdump -y 8 0x51  (A2h)").i2c_address, Some(I2C_A2));
        assert_eq!(block_target("QSFP-DD Upper Page 01h:").page, Some(1));
        assert_eq!(block_target("Upper Page 11h: bank 1"), BlockTarget { i2c_address: None, page: Some(0x11), bank: 1, lower: false });
        assert!(block_target("QSFP-DD Lower Page:").lower);
    }

    #[test]
    fn sff8636_640_byte_binary_places_page_3() {
        let mut data = vec![0u8; 640];
        data[0] = 0x11;
        data[512] = 0x4b; // page 03h offset 128 (temperature high alarm MSB)
        let p = parse(&data).unwrap();
        assert_eq!(p.format, InputFormat::Binary);
        assert_eq!(p.image.byte(I2C_A0, 3, 0, 128), Some(0x4b));
        assert!(p.image.has_upper_page(I2C_A0, 1, 0));
    }

    #[test]
    fn sff8472_512_byte_binary_places_a2h() {
        let mut data = vec![0u8; 512];
        data[0] = 0x03;
        data[256 + 96] = 0x1a;
        let p = parse(&data).unwrap();
        assert_eq!(p.image.byte(I2C_A2, 0, 0, 96), Some(0x1a));
    }

    #[test]
    fn bad_binary_sizes_and_identifiers_are_named() {
        let err = parse(&[0x11; 300]).unwrap_err().to_string();
        assert!(err.contains("256") && err.contains("640"), "{err}");
        let err = parse(&[0x7e, 0x01, 0x02]).unwrap_err().to_string();
        assert!(err.contains("Unknown (0x7e)"), "{err}");
    }

    #[test]
    fn json_entries_are_validated() {
        let ok = r#"{"pages":[{"i2c_address":80,"page":0,"bank":0,"offset":0,"data":"1107"},{"i2c_address":80,"page":3,"offset":128,"data":"4b00"}]}"#;
        let p = parse(ok.as_bytes()).unwrap();
        assert_eq!(p.image.byte(I2C_A0, 3, 0, 129), Some(0));
        let cross = r#"{"pages":[{"i2c_address":80,"page":0,"offset":120,"data":"00000000000000000000"}]}"#;
        assert!(matches!(parse(cross.as_bytes()), Err(InputError::Entry { index: 0, .. })));
        assert!(matches!(parse(b"{\"pages\": 3}"), Err(InputError::Json(_))));
    }

    #[test]
    fn text_without_rows_is_unrecognised() {
        assert!(matches!(parse(b"hello world\n"), Err(InputError::Unrecognised)));
        assert!(matches!(parse(b"  \n"), Err(InputError::Empty)));
    }
}
