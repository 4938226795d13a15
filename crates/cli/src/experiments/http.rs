//! `jsoncost http`: the reference API started in-process, loaded by jsoncost's own generator;
//! per route and load, one row per serialization mode with req/s, latency percentiles and the
//! server's own allocations and CPU per request. `--target URL` load-tests any endpoint instead.

use anyhow::anyhow;
use bytes::Bytes;
use jsoncost_engine::{Experiment, Row};
use jsoncost_http::loadgen::{self, LoadError, LoadReport, LoadSpec};
use jsoncost_http::server::{self, RunningServer, ServerConfig, TelemetryParse};
use jsoncost_http::verify::{Route, VerifyError, modes_agree_blocking};
use jsoncost_http::{Mode, StoreData, StoreSource, row::failed_row, row::http_row};
use jsoncost_shapes::{DEFAULT_SEED, write_telemetry};
use jsoncost_stores::OpenOptions;
use serde_json::{Map, json};
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use super::table::Filter;
use crate::args::{Seconds, positive_rate};
use crate::failure::{ExitCode, environment, usage};
use crate::interrupt;
use crate::progress::Progress;
use crate::session::Session;

#[derive(Debug, Clone, clap::Args)]
pub struct HttpArgs {
    /// Requests per run (closed model, like ab -n).
    #[arg(short = 'n', long = "requests", default_value_t = 5000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub requests: u64,
    /// Concurrent keep-alive connections (like ab -c).
    #[arg(short = 'c', long = "connections", default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub connections: u64,
    /// Also run the study's own load, -n 500 -c 100, as separate tables.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub study_load: bool,
    /// Open model instead: this many requests per second (latency from the intended send time).
    #[arg(long, value_name = "REQ_PER_S", requires = "duration", value_parser = positive_rate)]
    pub rate: Option<f64>,
    /// Open model: how long to send, in seconds.
    #[arg(long, value_name = "SECONDS", requires = "rate")]
    pub duration: Option<Seconds>,
    /// Readings in each POST /telemetry body (held in memory: 10,000,000 is ~720 MB).
    #[arg(long, default_value_t = 100_000, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub post_readings: u64,
    /// POST /telemetry requests per mode (0 skips the POST table).
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub post_requests: u64,
    /// Load-test this external http:// URL instead of the in-process API (no server columns).
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// Where the API reads items and lists (default: the embedded redb store).
    #[arg(long = "http-store", value_name = "URL")]
    pub http_store: Option<String>,
    /// The item cache: memory (an in-process moka cache) or redis://HOST:PORT.
    #[arg(long, default_value = "memory", value_name = "memory|URL")]
    pub cache: jsoncost_http::CacheConfig,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "30")]
    pub timeout: Seconds,
    /// Only run modes whose name matches this glob (typed/serde_json, typed/sonic-rs, passthrough).
    #[arg(long = "http-filter", value_name = "GLOB")]
    pub http_filter: Option<String>,
}

fn load_error(e: LoadError) -> anyhow::Error {
    match e {
        LoadError::Unreachable { .. } | LoadError::Runtime(_) => environment(anyhow!("{e}; is the server running and listening there?")),
        LoadError::InvalidUrl { .. } | LoadError::InvalidSpec { .. } => usage(anyhow!(e)),
    }
}

/// A bad cache URL is a usage error; everything else about starting a server is the environment's.
pub fn server_error(e: jsoncost_http::ServerError) -> anyhow::Error {
    match e {
        jsoncost_http::ServerError::CacheUrl { .. } => usage(anyhow!(e)),
        e => environment(anyhow!(e)),
    }
}

/// A token cancelled on Ctrl-C, so a load run stops early with partial results.
fn ctrl_c_token() -> (CancellationToken, std::thread::JoinHandle<()>, Arc<std::sync::atomic::AtomicBool>) {
    let token = CancellationToken::new();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (t, d) = (token.clone(), done.clone());
    let watcher = std::thread::spawn(move || {
        while !d.load(std::sync::atomic::Ordering::Relaxed) {
            if interrupt::interrupted() {
                t.cancel();
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    (token, watcher, done)
}

struct Load {
    label: String,
    requests: u64,
    connections: usize,
    open: Option<(f64, Duration)>,
}

impl HttpArgs {
    fn loads(&self) -> Vec<Load> {
        if let (Some(rate), Some(d)) = (self.rate, self.duration) {
            return vec![Load {
                label: format!("open-r{rate}-d{d}s-c{}", self.connections),
                requests: 0,
                connections: self.connections as usize,
                open: Some((rate, d.duration())),
            }];
        }
        let mut v = vec![Load {
            label: format!("n{}-c{}", self.requests, self.connections),
            requests: self.requests,
            connections: self.connections as usize,
            open: None,
        }];
        if self.study_load && (self.requests, self.connections) != (500, 100) {
            v.push(Load {
                label: "n500-c100".into(),
                requests: 500,
                connections: 100,
                open: None,
            });
        }
        v
    }

    fn spec(&self, url: String, load: &Load) -> LoadSpec {
        let mut spec = match load.open {
            Some((rate, d)) => LoadSpec::open(url, rate, d, load.connections),
            None => LoadSpec::closed(url, load.requests, load.connections),
        };
        spec.timeout = self.timeout.duration();
        spec
    }
}

/// The table's params. Not the in-process server's URL: its port changes every run, and
/// `compare` matches tables by their params.
fn params(route: &str, load: &Load) -> Map<String, serde_json::Value> {
    let mut p = Map::new();
    p.insert("route".into(), json!(route));
    p.insert("connections".into(), json!(load.connections));
    match load.open {
        Some((rate, d)) => {
            p.insert("model".into(), json!("open"));
            p.insert("rate".into(), json!(rate));
            p.insert("duration_s".into(), json!(d.as_secs_f64()));
        }
        None => {
            p.insert("model".into(), json!("closed"));
            p.insert("requests".into(), json!(load.requests));
        }
    }
    p
}

/// One load run against `url`, with the server's cost when the server is ours: its row and
/// the report it was made from.
fn measure_one(server: Option<&RunningServer>, method: &str, spec: &LoadSpec) -> anyhow::Result<(Row, LoadReport)> {
    let (token, watcher, done) = ctrl_c_token();
    let result = match server {
        Some(srv) => {
            let (r, cost) = srv.measure(|| loadgen::run_cancellable(spec, &token));
            r.map(|report| (http_row(method, &report, Some(&cost)), report))
        }
        None => loadgen::run_cancellable(spec, &token).map(|report| (http_row(method, &report, None), report)),
    };
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watcher.join();
    result.map_err(load_error)
}

/// What a table whose every row failed means, from a load against an external target: bad
/// input when every failure was a 4xx answer (the URL names nothing, the request is refused),
/// the environment otherwise (5xx, timeouts, lost connections).
fn if_all_failed(report: &LoadReport) -> ExitCode {
    let only_4xx = report.errors.total() == report.errors.status && report.status_codes.keys().all(|c| (400..500).contains(c));
    if only_4xx { ExitCode::Usage } else { ExitCode::Environment }
}

/// True when the in-process API itself failed the check (no answer, or a 5xx): its cache or
/// store is gone, which ends the run as it would mid-timing.
fn server_failed(e: &VerifyError) -> bool {
    matches!(e, VerifyError::Fetch(_)) || matches!(e, VerifyError::Status { status, .. } if *status >= 500)
}

/// Runs the http experiment into `session`.
pub fn run(args: &HttpArgs, quick: bool, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    if let Some(target) = &args.target {
        return run_target(args, target, session, progress);
    }
    let filter = Filter::new("--http-filter", args.http_filter.as_deref())?;
    let modes: Vec<Mode> = Mode::ALL.into_iter().filter(|m| filter.matches(m.as_str())).collect();
    filter.check_matches_any(Mode::ALL.iter().map(|m| m.as_str()))?;
    let store_url = args.http_store.clone().unwrap_or_else(jsoncost_stores::default_store_url);
    progress.start(&format!("http: loading items into {store_url}"));
    let source = StoreSource::open(args.http_store.as_deref(), &OpenOptions::default(), 4, &StoreData::default()).map_err(|e| {
        let code = e.exit_code();
        let err = anyhow!(e);
        if code == 3 { environment(err) } else { usage(err) }
    })?;
    let store_url = jsoncost_http::ItemSource::name(&source); // the default store may be another file
    let config = ServerConfig {
        cache: args.cache.clone(),
        ..ServerConfig::with_source(Arc::new(source))
    };
    let srv = server::start(config).map_err(server_error)?;
    progress.note(&format!(
        "http: reference API on {} (items from {store_url}, cache {})",
        srv.url(""),
        args.cache.describe()
    ));
    let loads = args.loads();
    progress.add_total((loads.len() * 2 * modes.len()) as u64 + if args.post_requests > 0 { 2 } else { 0 });

    let result = (|| -> anyhow::Result<()> {
        for (route_name, route) in [("item", Route::Item(1)), ("list", Route::List(48))] {
            // Every mode must serve the same document before any is timed.
            let agreement = modes_agree_blocking(&srv.url(""), route);
            if let Err(e) = &agreement
                && server_failed(e)
            {
                return Err(environment(anyhow!("http run stopped: {route_name}: {e}")));
            }
            let agreement = agreement.map_err(|e| e.to_string());
            for load in &loads {
                interrupt::check()?;
                let table = format!("{route_name}/{}", load.label);
                let mut exp = Experiment::new("http", &table);
                exp.params = params(&route.path(Mode::TypedSerdeJson), load);
                // The reference API failing mid-run (its cache or store gone: 5xx answers, no
                // connection) stops the run after this row, as a lost store does.
                let mut stopped = None;
                for mode in &modes {
                    progress.start(&format!("http {table}: {}", mode.as_str()));
                    let (mut row, stop) = match &agreement {
                        Err(e) => (
                            Row::failed(mode.as_str(), format!("the modes disagree, nothing is timed: {e}")),
                            false,
                        ),
                        Ok(_) => {
                            let spec = args.spec(srv.url(&route.path(*mode)), load);
                            let (mut row, report) = measure_one(Some(&srv), mode.as_str(), &spec)?;
                            if report.server_errors() > 0 {
                                // Its latencies mix failures with answers: no measurement.
                                let why = format!(
                                    "the reference API failed {} of {} requests ({}); its cache or store is gone",
                                    report.server_errors(),
                                    report.requests,
                                    report.errors_by_kind()
                                );
                                row = failed_row(mode.as_str(), &report, why.clone());
                                stopped = Some(format!("{table}: {}: {why}", mode.as_str()));
                            }
                            let cancelled = matches!(report.stop, loadgen::StopReason::Cancelled);
                            (row, cancelled || stopped.is_some())
                        }
                    };
                    row.baseline = *mode == Mode::TypedSerdeJson;
                    exp.rows.push(row);
                    progress.done_one();
                    if stop {
                        break;
                    }
                }
                exp.finish();
                // Modes that disagree serve different data; anything else that fails them all
                // is the server's.
                let if_all_failed = if agreement.is_err() {
                    ExitCode::Usage
                } else {
                    ExitCode::Environment
                };
                session.push(exp, if_all_failed);
                if let Some(why) = stopped {
                    return Err(environment(anyhow!("http run stopped: {why}")));
                }
            }
        }
        if args.post_requests > 0 {
            interrupt::check()?;
            post_table(args, quick, &srv, session, progress)?;
        }
        Ok(())
    })();
    let _ = srv.shutdown();
    result?;
    interrupt::check()
}

/// POST /telemetry: the incremental parse of the body stream against the buffered one (a
/// second server, since the parse is a server setting).
fn post_table(args: &HttpArgs, quick: bool, srv: &RunningServer, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let readings = if quick {
        args.post_readings.min(10_000)
    } else {
        args.post_readings
    };
    let requests = if quick { args.post_requests.min(20) } else { args.post_requests };
    let mut body = Vec::new();
    write_telemetry(&mut body, readings, DEFAULT_SEED).expect("writing to memory");
    let body = Bytes::from(body);
    let table = format!("telemetry/post-{readings}-readings");
    let mut exp = Experiment::new("http", &table);
    let load = Load {
        label: String::new(),
        requests,
        connections: 4,
        open: None,
    };
    exp.params = params(jsoncost_http::mode::TELEMETRY_PATH, &load);
    exp.params.insert("body_bytes".into(), json!(body.len()));
    let buffered = server::start(ServerConfig {
        telemetry: TelemetryParse::Buffered,
        ..ServerConfig::default()
    })
    .map_err(server_error)?;
    let servers = [("incremental/serde_json", srv), ("buffered/serde_json", &buffered)];
    // Both parses must answer the same summary before either is timed.
    let answers: Vec<Result<serde_json::Value, String>> =
        servers.iter().map(|(_, server)| post_once(server, &body, args.timeout)).collect();
    for ((name, server), answer) in servers.iter().zip(&answers) {
        progress.start(&format!("http {table}: {name}"));
        let mut row = match (answer, &answers[0]) {
            (Err(e), _) => Row::failed(*name, e.clone()),
            (Ok(_), Err(_)) => Row::failed(*name, "the baseline failed, nothing to compare with"),
            (Ok(a), Ok(base)) if a != base => Row::failed(*name, format!("answered {a}, the baseline {base}")),
            (Ok(_), Ok(_)) => {
                let spec =
                    LoadSpec::closed(server.url(jsoncost_http::mode::TELEMETRY_PATH), requests, 4).post(body.clone(), "application/json");
                measure_one(Some(server), name, &spec)?.0
            }
        };
        row.baseline = name.starts_with("incremental");
        exp.rows.push(row);
        progress.done_one();
    }
    let _ = buffered.shutdown();
    exp.finish();
    session.push(exp, ExitCode::Environment);
    Ok(())
}

/// One POST of `body` to /telemetry: the JSON summary it answers, or why it did not.
fn post_once(server: &RunningServer, body: &Bytes, timeout: Seconds) -> Result<serde_json::Value, String> {
    let url = server.url(jsoncost_http::mode::TELEMETRY_PATH);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let timeout = timeout.duration();
    let (status, answer) = runtime
        .block_on(loadgen::fetch(&url, ::http::Method::POST, body.clone(), timeout))
        .map_err(|e| e.to_string())?;
    if status != 200 {
        return Err(format!("{url} answered status {status}: {}", String::from_utf8_lossy(&answer)));
    }
    serde_json::from_slice(&answer).map_err(|e| format!("{url} did not answer JSON: {e}"))
}

/// `--target URL`: the same load against any endpoint; no server-side columns.
fn run_target(args: &HttpArgs, target: &str, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    progress.add_total(args.loads().len() as u64);
    for load in args.loads() {
        interrupt::check()?;
        let table = format!("target/{}", load.label);
        progress.start(&format!("http {table}: {target}"));
        let mut exp = Experiment::new("http", &table);
        exp.params = params(target, &load);
        exp.params.insert("url".into(), json!(target));
        let (mut row, report) = measure_one(None, "target", &args.spec(target.to_string(), &load))?;
        row.baseline = true;
        exp.rows.push(row);
        exp.finish();
        session.push(exp, if_all_failed(&report));
        progress.done_one();
    }
    Ok(())
}
