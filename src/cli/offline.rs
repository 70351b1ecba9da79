//! Stands in for `live.rs` in a build without the live sources (the `live` feature off, or
//! a target that is not Linux): every command that would sample the running system says
//! so and what to do instead; everything that reads files works as in a full build.

use super::common::LivePlan;
use anyhow::bail;
use optics::analysis::config::Config;
use optics::module::ModuleReport;
use optics::sample::engine::Engine;
use optics::sample::summary::{StopSignal, WatchSummary};
use optics::serve::{Exporter, LiveOptions, Reload, Signals};
use std::path::Path;

const NO_LIVE: &str = "this optics was built without the live sources (the `live` feature, Linux only): \
                       it reads captures and tool outputs; give --replay FILE, or build with default features on Linux";

pub fn resolve_interfaces(_named: &[String], _i2c: Option<&Path>) -> anyhow::Result<Vec<String>> {
    bail!(NO_LIVE)
}

pub fn sample(_plan: &LivePlan, _cfg: &Config) -> anyhow::Result<(Engine, WatchSummary)> {
    bail!(NO_LIVE)
}

pub async fn serve_live(
    _exporter: &mut Exporter,
    _named: Vec<String>,
    _opts: LiveOptions,
    _signals: &mut Signals,
    _on_reload: Reload<'_>,
) -> anyhow::Result<StopSignal> {
    bail!(NO_LIVE)
}

pub fn decode_live(_iface: &str, _i2c: Option<&Path>) -> anyhow::Result<ModuleReport> {
    bail!(NO_LIVE)
}
