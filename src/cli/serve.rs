//! `optics serve`: the Prometheus exporter daemon (wiring only; see optics::serve).

use super::common::{check_names, load_config, parse_duration, SeenInterfaces};
use super::inputs::{open_capture, read_file, rereadable, MAX_CONFIG_BYTES};
use super::live::{resolve_interfaces, serve_live};
use super::replay::stream_capture;
use super::usage;
use anyhow::Context;
use clap::Args;
use optics::serve::http::{self, Limits, Security};
use optics::serve::web_config::WebConfig;
use optics::serve::{log, run_replay, CallerError, Exporter, LiveOptions, ServeWindows, Shared, Signals, LOG_INFO, LOG_WARNING};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Interfaces to sample (names or ifindex) [default: every netdev with a module or FEC
    /// statistics, looked for again every --rediscover].
    #[arg(value_hint = super::generate::LIVE_INTERFACE)]
    pub interfaces: Vec<String>,
    /// Address to serve /metrics on: loopback unless another address is given to expose it.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:9464")]
    pub listen: SocketAddr,
    /// Time between samples; a scrape never samples (a duration: 500ms, 10s, 1m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "10s")]
    pub interval: Duration,
    /// How often the interface set is looked at again (a duration: 10s, 1m, 5m).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, default_value = "60s")]
    pub rediscover: Duration,
    /// Thresholds file (JSON; see docs/config.md), read again on SIGHUP [default: the built-in
    /// thresholds].
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Serve a capture's records as if they were arriving live.
    #[arg(long, value_name = "CAPTURE")]
    pub replay: Option<PathBuf>,
    /// With --replay: play the capture this many times faster than recorded.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.0)]
    pub speed: f64,
    /// Rolling windows for optics_lane_pre_fec_ber{window="<N>s"}, in seconds.
    #[arg(long = "rolling", value_name = "SECONDS", value_delimiter = ',', default_value = "300")]
    pub rolling_s: Vec<f64>,
    /// The window verdicts, reasons, flags, margins, BERs and ranks are judged over: the
    /// last DURATION of each interface's samples (since a counter reset or module swap, if
    /// one is in it), a duration of at least 3 sample intervals (5m, 15m, 1h) [default: the
    /// config's judge_window_s, 15m]. The _total counters count for all time.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub judge_window: Option<Duration>,
    /// TLS and basic authentication, in the Prometheus exporter-toolkit's web configuration
    /// format (YAML: tls_server_config, basic_auth_users; docs/fleet.md). Read at start-up.
    #[arg(long = "web.config.file", value_name = "FILE")]
    pub web_config_file: Option<PathBuf>,
    /// The window the margin trend (slope, time to floor / FEC limit) is fitted over (a
    /// duration: 1h, 6h, 24h) [default: the config's trend_fit_window_s, 6h].
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub trend_window: Option<Duration>,
}

/// Samples a judgement window needs at least: fewer give a verdict on one or two deltas.
pub const MIN_JUDGE_INTERVALS: f64 = 3.0;

/// `--judge-window` / `--trend-window` over the configuration's keys, checked against the
/// sample interval (`interval_s`) and the shortest span a trend needs.
pub fn serve_windows(
    cfg: &optics::analysis::Config,
    judge: Option<Duration>,
    trend: Option<Duration>,
    interval_s: f64,
    rolling_s: Vec<f64>,
) -> anyhow::Result<ServeWindows> {
    let mut w = ServeWindows::of(cfg, rolling_s);
    if let Some(j) = judge {
        w.judge_s = j.as_secs_f64();
    }
    if let Some(t) = trend {
        w.trend_s = t.as_secs_f64();
    }
    let min = MIN_JUDGE_INTERVALS * interval_s;
    // NaN windows cannot come from parse_duration; a config value is range-checked.
    if w.judge_s < min {
        return Err(usage(format!(
            "--judge-window {} s is shorter than {MIN_JUDGE_INTERVALS} sample intervals ({min} s at {interval_s} s per sample): \
             a verdict needs a few counter deltas",
            w.judge_s
        )));
    }
    if w.trend_s < cfg.trend_window_s || w.trend_s < w.judge_s {
        return Err(usage(format!(
            "--trend-window {} s is shorter than the span a trend needs (trend_window_s {} s) or than --judge-window ({} s)",
            w.trend_s, cfg.trend_window_s, w.judge_s
        )));
    }
    Ok(w)
}

/// A PEM certificate or key: a chain of a few certificates is a few kB; 1 MiB is hundreds
/// of times that (a CA bundle of every public root is about 200 kB).
const MAX_PEM_BYTES: u64 = 1 << 20;

/// `--web.config.file`: the file and what it names, read bounded, checked before the
/// server starts.
fn load_web_config(path: &Path) -> anyhow::Result<WebConfig> {
    let yaml = read_file(path, MAX_CONFIG_BYTES, "a web configuration file")?;
    // `{:#}`: the whole chain of what failed, as the binary words it.
    let read = |p: &Path| read_file(p, MAX_PEM_BYTES, "a PEM file").map_err(|e| CallerError::from(format!("{e:#}")));
    WebConfig::load(&yaml, path, &read).map_err(|e| anyhow::anyhow!("--web.config.file {}: {e}", path.display()))
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    if !(args.speed.is_finite() && args.speed > 0.0) {
        return Err(usage(format!("--speed must be a positive number (got {})", args.speed)));
    }
    if let Some(bad) = args.rolling_s.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        return Err(usage(format!("--rolling takes positive seconds (got {bad})")));
    }
    let cfg = load_config(args.config.as_deref())?;
    let security = match args.web_config_file.as_deref() {
        Some(path) => Security::of(load_web_config(path)?),
        None => Security::default(),
    };
    // Named interfaces must exist at start (a typo is an error, not an empty exporter), and
    // a capture to replay is read through once first, so a bad one is an error now rather
    // than a log line later (streamed: memory does not grow with its length). A pipe can
    // be read only once: it is replayed as it comes, a bad line then logged when reached.
    let mut interval_s = args.interval.as_secs_f64();
    let replay = match args.replay.as_deref() {
        Some(path) => {
            if rereadable(path) {
                // Names and spacing only: no engine state held for the whole capture.
                let mut seen = SeenInterfaces::default();
                stream_capture(open_capture(path)?, path, &mut seen, &[], &mut [])?;
                check_names(&seen.names, &args.interfaces)?;
                // A replay's interval is the capture's: the widest mean spacing of its interfaces.
                interval_s = seen.widest_mean_spacing_s();
            }
            Some(open_capture(path)?)
        }
        None => None,
    };
    let windows = serve_windows(&cfg, args.judge_window, args.trend_window, interval_s, args.rolling_s.clone())?;
    match &replay {
        Some(_) => {}
        None if !args.interfaces.is_empty() => drop(resolve_interfaces(&args.interfaces, None)?),
        None => {}
    }
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.listen).await.with_context(|| format!("listening on {}", args.listen))?;
        let addr = listener.local_addr().context("reading the listening address")?;
        let shared = Arc::new(Shared::default());
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        let scheme = if security.tls.is_some() { "https" } else { "http" };
        if security.basic_auth.is_some() && security.tls.is_none() {
            log(LOG_WARNING, "basic_auth_users without tls_server_config: passwords cross the network in clear text");
        }
        let server = tokio::spawn(http::serve(listener, shared.clone(), Limits::default(), security, async {
            let _ = stop_rx.await;
        }));
        log(LOG_INFO, &format!("listening on {scheme}://{addr}/metrics"));
        let mut exporter = Exporter::new(cfg, windows, shared);
        exporter.publish();
        let mut signals = Signals::install()?;
        let config_path = args.config.clone();
        let on_reload = move || load_config(config_path.as_deref()).map_err(|e| CallerError::from(format!("{e:#}")));
        let stopped_by = match replay {
            Some(mut reader) => run_replay(&mut exporter, &mut reader, &args.interfaces, args.speed, &mut signals, &on_reload).await,
            None => {
                let opts = LiveOptions { interval: args.interval, rediscover: args.rediscover };
                serve_live(&mut exporter, args.interfaces.clone(), opts, &mut signals, &on_reload).await?
            }
        };
        log(LOG_INFO, &format!("stopping ({stopped_by})"));
        let _ = stop_tx.send(());
        let _ = server.await;
        Ok(())
    })
}
