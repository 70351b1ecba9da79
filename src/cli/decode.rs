use super::common::check_interfaces;
use super::inputs;
use super::live;
use super::usage;
use anyhow::{bail, Context};
use clap::Args;
use optics::module::{self, input, ModuleReport};
use optics::output;
use optics::sample::engine::{replay_from, EngineConfig};
use optics::source::import::{ethtool_module, recognize, Format};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// Module image file (`-` reads standard input), or a capture: its latest module
    /// reading. Without it, the module of the live port --interface names is read.
    #[arg(required_unless_present = "interface")]
    pub file: Option<PathBuf>,
    /// The live port whose module to read and decode (netlink, else the ioctl; --i2c
    /// reads it over I2C instead); with a capture, the interface whose module to decode
    /// [default: the first with a module].
    #[arg(long = "interface", value_name = "IFACE", value_hint = super::generate::LIVE_INTERFACE)]
    pub interface: Option<String>,
    /// Read the live module over direct I2C (e.g. /dev/i2c-3) instead of the driver.
    #[arg(long, value_name = "DEVICE", conflicts_with = "file", requires = "interface")]
    pub i2c: Option<PathBuf>,
    /// The switch port whose module to decode, when FILE is an `sfputil show
    /// eeprom-hexdump` of several ports.
    #[arg(long, value_name = "SWITCH_PORT", requires = "file", conflicts_with = "interface")]
    pub port: Option<String>,
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
    let report = match &args.file {
        Some(file) => decode_file(file, args.interface.as_deref(), args.port.as_deref())?,
        // clap requires FILE or --interface.
        None => live::decode_live(args.interface.as_deref().unwrap_or_default(), args.i2c.as_deref())?,
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
    // A switch's `status` or `pm` of a port says the module's state or its own BER alone.
    let said =
        report.vendor_name.is_some() || report.module_temperature_c.is_some() || report.module_state.is_some() || report.vdm.is_some();
    if report.lanes.is_empty() && !said {
        bail!("nothing could be decoded beyond the identifier");
    }
    Ok(())
}

/// A module image, decoded `ethtool -m` output, or a capture's latest module reading.
/// The dump of one port of an `sfputil show eeprom-hexdump` (`--port`; needed when it holds
/// several, whose modules are not one module), else the bytes as given.
fn one_port(bytes: Vec<u8>, port: Option<&str>, file: &Path) -> anyhow::Result<Vec<u8>> {
    let ports = std::str::from_utf8(&bytes).map(input::sfputil_ports).unwrap_or_default();
    let names = || ports.iter().map(|(p, _)| p.as_str()).collect::<Vec<_>>().join(", ");
    match port {
        None if ports.len() > 1 => Err(usage(format!(
            "{} is an sfputil show eeprom-hexdump of {} ports ({}), one module each: give --port PORT to decode one",
            file.display(),
            ports.len(),
            names()
        ))),
        None => Ok(bytes),
        Some(p) => match ports.iter().find(|(name, _)| name == p) {
            Some((_, dump)) => Ok(dump.clone().into_bytes()),
            None if ports.is_empty() => {
                Err(usage(format!("--port selects a port of an sfputil show eeprom-hexdump; {} is not one", file.display())))
            }
            None => Err(usage(format!("{}: no port {p} in this sfputil show eeprom-hexdump (its ports: {})", file.display(), names()))),
        },
    }
}

fn decode_file(file: &Path, interface: Option<&str>, port: Option<&str>) -> anyhow::Result<ModuleReport> {
    // The first line tells a capture (streamed, never held whole) from a module image
    // (read whole, bounded by the largest image).
    let input = inputs::open(file, "reading")?;
    if input.is_capture && port.is_some() {
        return Err(usage(format!(
            "--port selects a port of an sfputil show eeprom-hexdump; {} is a capture: use --interface",
            file.display()
        )));
    }
    if input.is_capture {
        return decode_capture(input.reader, interface).with_context(|| format!("decoding {}", file.display()));
    }
    if interface.is_some() {
        return Err(usage(format!(
            "--interface selects a module in a capture or a live port; {} is a module image: decode it without --interface",
            file.display()
        )));
    }
    let bytes = one_port(input.read_all(file, inputs::MAX_IMAGE_BYTES, "a module image")?, port, file)?;
    Ok(match decoded_module(&bytes) {
        Some(printed) => printed.with_context(|| format!("reading {} as decoded ethtool -m", file.display()))?,
        None => {
            let parsed = input::parse(&bytes).with_context(|| format!("parsing {}", file.display()))?;
            let mut report = module::decode(&parsed.image).with_context(|| format!("decoding {}", file.display()))?;
            report.warnings.extend(parsed.notes);
            report
        }
    })
}
