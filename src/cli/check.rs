//! `--profile NAME` (node validation by speed tier) and `--check` (monitoring-plugin mode:
//! the Nagios/Icinga/Sensu plugin contract of a status line, perfdata and exit code).

use clap::Args;
use optics::analysis::profile::{apply, evaluate, resolve};
use optics::analysis::verdict::{join_codes, verdict_codes};
use optics::analysis::{Config, InterfaceAnalysis, ReasonCode, Verdict};
use optics::output::text::escape;
use std::process::ExitCode;

#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// Validate against a speed-tier profile: 100g, 200g, 400g, 800g or one from the config file's node_profiles.
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
    /// Monitoring-plugin mode: one status line with perfdata; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
    #[arg(long)]
    pub check: bool,
}

/// Plugin states, in the order the plugin API numbers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Ok = 0,
    Warning = 1,
    Critical = 2,
    Unknown = 3,
}

impl Status {
    fn word(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Warning => "WARNING",
            Status::Critical => "CRITICAL",
            Status::Unknown => "UNKNOWN",
        }
    }

    /// The worse of two, CRITICAL > WARNING > UNKNOWN > OK (a known problem outranks a gap).
    fn rank(self) -> u8 {
        match self {
            Status::Ok => 0,
            Status::Unknown => 1,
            Status::Warning => 2,
            Status::Critical => 3,
        }
    }

    pub fn exit(self) -> ExitCode {
        ExitCode::from(self as u8)
    }
}

impl CheckArgs {
    /// Applies `--profile` to every analysis (below-profile checks become reasons).
    pub fn apply_profile(&self, analyses: &mut [InterfaceAnalysis], cfg: &Config) -> anyhow::Result<()> {
        let Some(name) = &self.profile else { return Ok(()) };
        let p = resolve(name, &cfg.node_profiles)?;
        for a in analyses.iter_mut() {
            let c = evaluate(name, &p, a);
            apply(&c, a);
            a.profile = Some(c);
        }
        Ok(())
    }

    /// The margin floor perfdata warns at: the profile's, else the config's.
    pub fn floor_db(&self, cfg: &Config) -> f64 {
        let p = self.profile.as_deref().and_then(|n| resolve(n, &cfg.node_profiles).ok());
        p.and_then(|p| p.margin_floor_db).unwrap_or(cfg.margin_floor_db)
    }

    /// What `scan`/`watch` print last and exit with: the plugin line, or the report.
    pub fn finish(
        &self,
        analyses: &[InterfaceAnalysis],
        cfg: &Config,
        report: impl FnOnce() -> anyhow::Result<ExitCode>,
    ) -> anyhow::Result<ExitCode> {
        if !self.check {
            return report();
        }
        let (line, status) = plugin_output(analyses, self.floor_db(cfg));
        println!("{line}");
        Ok(status.exit())
    }
}

/// An interface with no figure that measures the line (no BER margin, no port BER) says nothing.
fn no_data(a: &InterfaceAnalysis) -> bool {
    a.reasons.iter().any(|r| r.code == ReasonCode::InsufficientData)
        || (a.link.pre_fec_ber.is_none() && a.lanes.iter().all(|l| l.margin_db.is_none() && l.rx_power_dbm.is_none()))
}

fn status_of(a: &InterfaceAnalysis) -> Status {
    match a.verdict {
        Verdict::Reject => Status::Critical,
        Verdict::Investigate if no_data(a) => Status::Unknown,
        Verdict::Investigate => Status::Warning,
        Verdict::Accept if no_data(a) => Status::Unknown,
        Verdict::Accept => Status::Ok,
    }
}

/// Perfdata labels: letters, digits, `_`, `.`, `-` (no quoting needed by any consumer).
fn label(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' }).collect()
}

/// The status line with perfdata, and the state to exit with.
pub fn plugin_output(analyses: &[InterfaceAnalysis], floor_db: f64) -> (String, Status) {
    let status = analyses.iter().map(status_of).max_by_key(|s| s.rank()).unwrap_or(Status::Unknown);
    let mut problems = Vec::new();
    for a in analyses.iter().filter(|a| status_of(a) != Status::Ok) {
        let codes = verdict_codes(&a.reasons);
        let what = if codes.is_empty() { "no data".to_string() } else { join_codes(&codes, ", ") };
        problems.push(format!("{}: {what}", escape(&a.interface)));
    }
    let summary = if problems.is_empty() {
        let n = analyses.len();
        format!("{n} interface{} accepted", if n == 1 { "" } else { "s" })
    } else {
        problems.join("; ")
    };
    let mut perf = Vec::new();
    for a in analyses {
        let mut lanes: Vec<_> = a.lanes.iter().filter(|l| l.margin_db.is_some_and(f64::is_finite)).collect();
        lanes.sort_by_key(|l| l.lane);
        for l in lanes {
            let m = l.margin_db.unwrap_or_default();
            // Warning at the margin floor, critical at the FEC limit itself (0 dB).
            perf.push(format!("margin_db_{}_{}={m:.2};{floor_db};0", label(&a.interface), l.lane));
        }
        if let Some(b) = a.link.pre_fec_ber.filter(|b| b.is_finite()) {
            let crit = a.link.fec_limit_ber.map(|l| format!("{l:e}")).unwrap_or_default();
            perf.push(format!("pre_fec_ber_{}={b:.3e};;{crit}", label(&a.interface)));
        }
    }
    let line =
        format!("OPTICS {} - {summary}{}", status.word(), if perf.is_empty() { String::new() } else { format!(" | {}", perf.join(" ")) });
    (line, status)
}

/// `--check` never exits 1: an error (unreadable capture, no interface) is UNKNOWN.
pub fn unknown(e: &anyhow::Error) -> (String, Status) {
    (format!("OPTICS UNKNOWN - {}", escape(&crate::chain_text(e))), Status::Unknown)
}

/// Runs a subcommand; with `--check`, an error becomes the UNKNOWN plugin line and exit 3.
pub fn guard(check: bool, run: impl FnOnce() -> anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match run() {
        Err(e) if check => {
            let (line, status) = unknown(&e);
            println!("{line}");
            Ok(status.exit())
        }
        other => other,
    }
}
