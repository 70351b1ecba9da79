//! `ethtool -i IFACE` (ethtool.c `dump_drvinfo`): `driver:`, `version:`, `firmware-version:`,
//! `bus-info:` lines. Driver and bus address go into the interface record; driver, driver
//! version and firmware version are host facts (imported), and every line a printed field.

use super::{content_lines, key_value, Fragment, ParseError, ParseResult};
use crate::device::host::Fact;

pub(crate) fn parse(text: &str) -> ParseResult<Fragment> {
    let mut f = Fragment::default();
    for (k, v) in content_lines(text).filter_map(key_value) {
        let val = (!v.is_empty()).then(|| v.to_string());
        match k {
            "driver" => {
                f.host.driver = val.clone().map(Fact::import);
                f.driver = val;
            }
            "version" => f.host.driver_version = val.map(Fact::import),
            "firmware-version" => f.host.firmware_version = val.map(Fact::import),
            "bus-info" => f.bus_info = val,
            _ => {}
        }
        if let Some(v) = (!v.is_empty()).then_some(v) {
            f.printed_fields.insert(format!("ethtool -i/{k}"), v.to_string());
        }
    }
    if f.driver.is_none() {
        return Err(ParseError::missing("`driver:` line"));
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drvinfo_lines() {
        let text = "driver: mlx5_core\nversion: 6.8.0-45-generic\nfirmware-version: 28.39.1002 (MT_0000000838)\n\
                    expansion-rom-version: \nbus-info: 0000:3b:00.0\nsupports-statistics: yes\n";
        let f = parse(text).unwrap();
        assert_eq!((f.driver.as_deref(), f.bus_info.as_deref()), (Some("mlx5_core"), Some("0000:3b:00.0")));
        assert_eq!(f.printed_fields["ethtool -i/firmware-version"], "28.39.1002 (MT_0000000838)");
        assert!(!f.printed_fields.contains_key("ethtool -i/expansion-rom-version"));
        let fw = f.host.firmware_version.unwrap();
        assert_eq!((fw.value.as_str(), fw.from), ("28.39.1002 (MT_0000000838)", crate::device::host::FactSource::Import));
        assert_eq!(f.host.driver_version.map(|v| v.value).as_deref(), Some("6.8.0-45-generic"));
    }
}
