//! `--profile NAME` (node validation by speed tier) and `--check` (monitoring-plugin mode:
//! the Nagios/Icinga/Sensu plugin contract of a status line, perfdata and exit code).

use super::generate::ProfileName;
use super::usage;
use clap::Args;
use optics::analysis::profile::{apply, evaluate, resolve, NodeProfile};
use optics::analysis::verdict::{join_codes, verdict_codes};
use optics::analysis::{Config, InterfaceAnalysis, ReasonCode, Verdict};
use optics::output::text::escape;
use std::process::ExitCode;

#[derive(Args, Debug, Clone, Default)]
pub struct CheckArgs {
    /// Validate against a speed-tier profile: 100g, 200g, 400g, 800g or one from the config file's node_profiles.
    #[arg(long, value_name = "NAME", value_parser = ProfileName, hide_possible_values = true)]
    pub profile: Option<String>,
    /// Monitoring-plugin mode: one status line with perfdata; exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
    /// Its status is the output and the exit status, so --json and --fail-on do not go with it.
    #[arg(long, conflicts_with_all = ["json", "fail_on"])]
    pub check: bool,
}

/// The profile `name`: the config file's, else a built-in tier; an unknown name is a usage error.
fn profile_of(name: &str, cfg: &Config) -> anyhow::Result<NodeProfile> {
    resolve(name, &cfg.node_profiles).map_err(|e| usage(e.to_string()))
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
    /// `--profile` names a built-in tier or one of the config file's: checked before the
    /// system is touched (a usage error, exit 2). The configuration the run judges with:
    /// `cfg` with the profile's host thresholds in place of its own.
    pub fn config(&self, cfg: Config) -> anyhow::Result<Config> {
        match self.profile.as_deref() {
            Some(name) => Ok(cfg.under_node_profile(&profile_of(name, &cfg)?)),
            None => Ok(cfg),
        }
    }

    /// Applies `--profile` to every analysis (below-profile checks become reasons).
    pub fn apply_profile(&self, analyses: &mut [InterfaceAnalysis], cfg: &Config) -> anyhow::Result<()> {
        let Some(name) = &self.profile else { return Ok(()) };
        let p = profile_of(name, cfg)?;
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

/// An interface with no figure that measures the line (no BER margin, no port BER, no
/// InfiniBand symbol error rate over a window) says nothing.
fn no_data(a: &InterfaceAnalysis) -> bool {
    let ib_rate = a.infiniband.as_ref().is_some_and(|ib| ib.symbol_errors_per_s.is_some());
    a.reasons.iter().any(|r| r.code == ReasonCode::InsufficientData)
        || (a.link.pre_fec_ber.is_none() && !ib_rate && a.lanes.iter().all(|l| l.margin_db.is_none() && l.rx_power_dbm.is_none()))
}

/// A `--profile` check that could not be measured: the profile is not known to pass.
fn profile_unmeasured(a: &InterfaceAnalysis) -> bool {
    a.profile.as_ref().is_some_and(|p| p.not_measured > 0)
}

fn status_of(a: &InterfaceAnalysis) -> Status {
    match a.verdict {
        Verdict::Reject => Status::Critical,
        Verdict::Investigate if no_data(a) => Status::Unknown,
        Verdict::Investigate => Status::Warning,
        Verdict::Accept if no_data(a) || profile_unmeasured(a) => Status::Unknown,
        Verdict::Accept => Status::Ok,
    }
}

/// Perfdata labels: letters, digits, `_`, `.`, `-` (no quoting needed by any consumer).
fn label(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' }).collect()
}

/// `v` in plain decimal with `sig` significant digits ("0.0000192", "1"): the plugin
/// guidelines allow perfdata values and thresholds only in the class `[-0-9.]`, so no
/// exponent. Trailing zeros are dropped.
fn plain(v: f64, sig: i32) -> String {
    if v == 0.0 || !v.is_finite() {
        return "0".into();
    }
    let decimals = (sig - 1 - v.abs().log10().floor() as i32).clamp(0, 30) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// The status line with perfdata, and the state to exit with.
pub fn plugin_output(analyses: &[InterfaceAnalysis], floor_db: f64) -> (String, Status) {
    let status = analyses.iter().map(status_of).max_by_key(|s| s.rank()).unwrap_or(Status::Unknown);
    let mut problems = Vec::new();
    for a in analyses.iter().filter(|a| status_of(a) != Status::Ok) {
        let codes = verdict_codes(&a.reasons);
        let mut what = if codes.is_empty() && !profile_unmeasured(a) { "no data".to_string() } else { join_codes(&codes, ", ") };
        if let Some(p) = a.profile.as_ref().filter(|_| profile_unmeasured(a)) {
            let names: Vec<&str> = p.items.iter().filter(|i| i.ok.is_none()).map(|i| i.check.as_str()).collect();
            let sep = if what.is_empty() { "" } else { ", " };
            what.push_str(&format!("{sep}profile {} not measured: {}", p.profile, names.join(" ")));
        }
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
            // Margin is good high: warning below the floor, critical below the FEC limit
            // itself (0 dB). In the plugin range syntax "N:" alerts below N; a bare "N"
            // would alert outside 0..N, i.e. on every healthy lane above the floor.
            perf.push(format!("margin_db_{}_{}={m:.2};{}:;0:", label(&a.interface), l.lane, plain(floor_db, 3)));
        }
        if let Some(b) = a.link.pre_fec_ber.filter(|b| b.is_finite()) {
            // BER is good low: a bare "N" (alert outside 0..N) is critical past the limit.
            let crit = a.link.fec_limit_ber.filter(|l| l.is_finite()).map(|l| plain(l, 3)).unwrap_or_default();
            perf.push(format!("pre_fec_ber_{}={};;{crit}", label(&a.interface), plain(b, 3)));
        }
        // Symbol errors on an InfiniBand port are errors FEC left from HDR on (line code
        // errors before it): any is critical, as `uncorrectable_errors` is a reject.
        if let Some(r) = a.infiniband.as_ref().and_then(|ib| ib.symbol_errors_per_s).filter(|r| r.is_finite()) {
            perf.push(format!("symbol_errors_per_s_{}={};;0", label(&a.interface), plain(r, 3)));
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
/// A usage mistake is not a plugin state: it exits 2 as clap's own do (`--check --json`),
/// whether clap or the command found it (`--check --profile 300g`).
pub fn guard(check: bool, run: impl FnOnce() -> anyhow::Result<ExitCode>) -> anyhow::Result<ExitCode> {
    match run() {
        Err(e) if check && !super::is_usage(&e) => {
            let (line, status) = unknown(&e);
            println!("{line}");
            Ok(status.exit())
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A threshold range as the Monitoring Plugins Development Guidelines define it
    /// ("Threshold and ranges"): `[@]start:end`, start 0 when left out, `~` for -inf,
    /// end +inf when left out; alert when the value is outside start..end (inclusive),
    /// or inside with `@`. An empty range never alerts.
    fn alerts(range: &str, v: f64) -> bool {
        if range.is_empty() {
            return false;
        }
        let (inside, r) = match range.strip_prefix('@') {
            Some(r) => (true, r),
            None => (false, range),
        };
        let (start, end) = match r.split_once(':') {
            Some((s, e)) => (s, e),
            None => ("0", r),
        };
        let start = if start == "~" { f64::NEG_INFINITY } else { start.parse::<f64>().unwrap() };
        let end = if end.is_empty() { f64::INFINITY } else { end.parse::<f64>().unwrap() };
        let within = start <= v && v <= end;
        if inside {
            within
        } else {
            !within
        }
    }

    /// `label=value;warn;crit`: the value and the two ranges.
    fn perf(item: &str) -> (f64, String, String) {
        let (_, rest) = item.split_once('=').unwrap();
        let mut it = rest.split(';');
        let v = it.next().unwrap();
        assert!(v.chars().all(|c| c.is_ascii_digit() || c == '-' || c == '.'), "value {v:?} is not in [-0-9.]");
        (v.parse().unwrap(), it.next().unwrap_or("").to_string(), it.next().unwrap_or("").to_string())
    }

    fn lane(n: u8, margin_db: f64) -> optics::analysis::LaneAnalysis {
        optics::analysis::LaneAnalysis { lane: n, margin_db: Some(margin_db), ..Default::default() }
    }

    fn iface(lanes: Vec<optics::analysis::LaneAnalysis>, ber: Option<f64>) -> InterfaceAnalysis {
        let w = optics::analysis::InterfaceWindow { interface: "eth0".into(), ..Default::default() };
        let mut a = optics::analysis::analyze(&[w], &Config::default(), &[]).remove(0);
        a.lanes = lanes;
        a.link.pre_fec_ber = ber;
        a.link.fec_limit_ber = Some(2.4e-4);
        a
    }

    #[test]
    fn the_guidelines_ranges_themselves() {
        // The guidelines' own table: "10" alerts < 0 or > 10; "10:" < 10; "~:10" > 10;
        // "10:20" outside; "@10:20" inside.
        assert!(alerts("10", 11.0) && alerts("10", -1.0) && !alerts("10", 5.0));
        assert!(alerts("10:", 9.0) && !alerts("10:", 1e9));
        assert!(alerts("~:10", 11.0) && !alerts("~:10", -1e9));
        assert!(alerts("10:20", 21.0) && !alerts("10:20", 15.0));
        assert!(alerts("@10:20", 15.0) && !alerts("@10:20", 21.0));
    }

    #[test]
    fn margin_perfdata_alerts_below_the_floor_and_the_limit_only() {
        // Floor 1 dB: 1.65 dB is healthy (no alert), 0.41 dB warns, -0.2 dB is critical.
        let a = iface(vec![lane(1, 1.65), lane(2, 0.41), lane(3, -0.2), lane(4, 7.5)], None);
        let (line, _) = plugin_output(&[a], 1.0);
        let perfs: Vec<&str> = line.split(" | ").nth(1).unwrap().split(' ').collect();
        let want = [(false, false), (true, false), (true, true), (false, false)];
        for (p, (warn, crit)) in perfs.iter().zip(want) {
            let (v, w, c) = perf(p);
            assert_eq!((alerts(&w, v), alerts(&c, v)), (warn, crit), "{p}");
        }
        assert_eq!(perfs[0], "margin_db_eth0_1=1.65;1:;0:");
    }

    #[test]
    fn ber_perfdata_is_plain_decimal_and_alerts_past_the_limit() {
        // 1.92e-5 under the RS(544,514) limit 2.4e-4: no alert; 3e-4 past it: critical.
        for (ber, crit) in [(1.92e-5, false), (3e-4, true)] {
            let (line, _) = plugin_output(&[iface(vec![], Some(ber))], 1.0);
            let p = line.split(" | ").nth(1).unwrap();
            let (v, w, c) = perf(p);
            assert!((v - ber).abs() < ber * 1e-2, "{p}");
            assert_eq!(c, "0.00024");
            assert_eq!((alerts(&w, v), alerts(&c, v)), (false, crit), "{p}");
        }
        assert_eq!(plain(1.92e-5, 3), "0.0000192");
        assert_eq!(plain(1.0, 3), "1");
        assert_eq!(plain(0.5, 3), "0.5");
    }
}
