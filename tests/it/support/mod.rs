//! Helpers shared by the integration tests.

pub mod captures;
pub mod fecx_captures;
pub mod flap_captures;
pub mod fleet_captures;
#[cfg(live)]
pub mod i2c_sim;
pub mod ib_captures;
pub mod ib_sysfs;
pub mod lane200g_captures;
#[cfg(live)]
pub mod netns;
pub mod prometheus;
pub mod serve;
pub mod trend_captures;
pub mod trust_captures;
pub mod vdm_captures;
pub mod window_captures;

use assert_cmd::Command;

/// The `optics` binary under test, with the caller's colour and width preferences removed
/// so that output depends only on what the test asks for.
/// Module flags by their stable names, as the JSON writes them.
pub fn flag_names(flags: &[optics::module::flag::ModuleFlag]) -> Vec<&'static str> {
    flags.iter().map(|f| f.as_str()).collect()
}

pub fn optics() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin!("optics"));
    c.env_remove("NO_COLOR").env_remove("COLUMNS");
    c
}
