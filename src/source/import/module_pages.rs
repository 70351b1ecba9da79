//! Module EEPROM pages from `ethtool -m IFACE hex on` / `raw on`, i2cdump or module image
//! JSON, through the decoder's own input parsers (`module::input`): the bytes go into the
//! interface record as they would from a live read. A switch's `sfputil show
//! eeprom-hexdump` is one module per port, each an interface named after its port.

use super::{Fragment, ParseError, ParseResult};
use crate::capture::ModulePages;
use crate::module::input;

pub(crate) fn parse(bytes: &[u8]) -> ParseResult<Fragment> {
    let parsed = input::parse(bytes).map_err(ParseError::syntax)?;
    Ok(Fragment { module_pages: Some(ModulePages { pages: parsed.image.entries() }), notes: parsed.notes, ..Default::default() })
}

/// `sfputil show eeprom-hexdump` of one port or many: each `EEPROM hexdump for port X`
/// becomes port X's module; a port whose dump cannot be read is skipped with a note.
pub(crate) fn parse_sfputil(text: &str) -> ParseResult<Fragment> {
    let mut ports = Vec::new();
    let mut notes = Vec::new();
    for (port, dump) in input::sfputil_ports(text) {
        match input::parse_hex_text(&dump) {
            Ok(parsed) => ports.push(Fragment {
                interface: Some(port),
                module_pages: Some(ModulePages { pages: parsed.image.entries() }),
                notes: parsed.notes,
                ..Default::default()
            }),
            Err(e) => notes.push(format!("{port}: its dump is not a module image ({e}): skipped")),
        }
    }
    if ports.is_empty() {
        return Err(ParseError::missing(format!(
            "port's dump is a module image{}",
            notes.first().map(|n| format!(" ({n})")).unwrap_or_default()
        )));
    }
    Ok(Fragment { ports, notes, ..Default::default() })
}
