//! Module EEPROM pages from `ethtool -m IFACE hex on` / `raw on`, i2cdump or module image
//! JSON, through the decoder's own input parsers (`module::input`): the bytes go into the
//! interface record as they would from a live read.

use super::{Fragment, ParseResult};
use crate::capture::ModulePages;
use crate::module::input;

pub fn parse(bytes: &[u8]) -> ParseResult<Fragment> {
    let parsed = input::parse(bytes).map_err(|e| e.to_string())?;
    Ok(Fragment { module_pages: Some(ModulePages { pages: parsed.image.entries() }), notes: parsed.notes, ..Default::default() })
}
