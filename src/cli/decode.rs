use super::common::check_interfaces;
use super::inputs;
use anyhow::{bail, Context};
use clap::Args;
use optics::module::{self, input, ModuleReport};
use optics::output;
use optics::sample::engine::{replay_from, EngineConfig};
use optics::source::import::{ethtool_module, recognize, Format};
use std::io::{BufRead, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// Module image file (`-` reads standard input), or a capture: its latest module reading.
    pub file: PathBuf,
    /// With a capture: the interface whose module to decode (default: the first with one).
    #[arg(long = "interface", value_name = "IFACE")]
    pub interface: Option<String>,
    /// Print the decoded module as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The module of `wanted` (or the first interface with one) as of the capture's last sample.
fn decode_capture(reader: impl BufRead, wanted: Option<&str>) -> anyhow::Result<ModuleReport> {
    let (engine, _) = replay_from(reader, EngineConfig::default()).context("reading the capture")?;
    let names = match wanted {
        Some(w) => vec![w.to_string()],
        None => engine.interfaces(),
    };
    check_interfaces(&engine, &names)?;
    let mut why = None;
    for name in &names {
        let Some(w) = engine.window(name) else { continue };
        match w.module {
            Some(m) => return Ok(m),
            None => why = w.module_error.map(|e| format!("{name}: {e}")),
        }
    }
    bail!("no decodable module in the capture{}", why.map(|w| format!(" ({w})")).unwrap_or_default())
}

/// Decoded `ethtool -m` text or `ethtool --json -m` (no bytes): the module as printed.
fn decoded_module(bytes: &[u8]) -> Option<anyhow::Result<ModuleReport>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let parsed = match recognize(bytes)? {
        Format::EthtoolModuleText => ethtool_module::parse_text_module(text),
        Format::EthtoolModuleJson => ethtool_module::parse_json_module(text),
        _ => return None,
    };
    Some(parsed.map_err(anyhow::Error::msg).map(|(printed, notes)| {
        let mut report = printed.to_report();
        report.warnings.extend(notes);
        report
    }))
}

pub fn run(args: DecodeArgs) -> anyhow::Result<()> {
    // The first line tells a capture (streamed, never held whole) from a module image
    // (read whole, bounded by the largest image).
    let input = inputs::open(&args.file, "reading")?;
    let report = if input.is_capture {
        decode_capture(input.reader, args.interface.as_deref()).with_context(|| format!("decoding {}", args.file.display()))?
    } else {
        if args.interface.is_some() {
            bail!("--interface selects a module in a capture; {} is a module image", args.file.display());
        }
        let bytes = input.read_all(&args.file, inputs::MAX_IMAGE_BYTES, "a module image")?;
        match decoded_module(&bytes) {
            Some(printed) => printed.with_context(|| format!("reading {} as decoded ethtool -m", args.file.display()))?,
            None => {
                let parsed = input::parse(&bytes).with_context(|| format!("parsing {}", args.file.display()))?;
                let mut report = module::decode(&parsed.image).with_context(|| format!("decoding {}", args.file.display()))?;
                report.warnings.extend(parsed.notes);
                report
            }
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        output::write_json(&mut out, &report)?;
    } else {
        output::text::module::write_module_report(&mut out, &report)?;
    }
    out.flush()?;
    if report.image_corrupt() {
        bail!("module image corrupt: every checksum fails ({} checked): re-read the module", report.checksums.len());
    }
    if report.lanes.is_empty() && report.vendor_name.is_none() && report.module_temperature_c.is_none() {
        bail!("nothing could be decoded beyond the identifier");
    }
    Ok(())
}
