use anyhow::{bail, Context};
use clap::Args;
use optics::module::{self, input};
use optics::output;
use std::io::{Read, Write};
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// Module image file (`-` reads standard input).
    pub file: PathBuf,
    /// Print the decoded module as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DecodeArgs) -> anyhow::Result<()> {
    let bytes = if args.file.as_os_str() == "-" {
        let mut buf = Vec::new();
        std::io::stdin().read_to_end(&mut buf).context("reading standard input")?;
        buf
    } else {
        std::fs::read(&args.file).with_context(|| format!("reading {}", args.file.display()))?
    };
    let parsed = input::parse(&bytes).with_context(|| format!("parsing {}", args.file.display()))?;
    let mut report = module::decode(&parsed.image).with_context(|| format!("decoding {}", args.file.display()))?;
    report.warnings.extend(parsed.notes);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        output::write_json(&mut out, &report)?;
    } else {
        output::module_text::write_module_report(&mut out, &report)?;
    }
    out.flush()?;
    if report.lanes.is_empty() && report.vendor_name.is_none() && report.module_temperature_c.is_none() {
        bail!("nothing could be decoded beyond the identifier");
    }
    Ok(())
}
