//! The http experiment: the reference API started in-process, loaded by jsoncost's own
//! generator; per route and load, one row per serialization mode with req/s, latency
//! percentiles and the server's own allocations and CPU per request. A `target` URL is
//! load-tested instead when given. Every table goes through the one Runner: a load run is a
//! strategy that measures itself (its row comes from the load generator).

use bytes::Bytes;
use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::{Canonical, Contract, RunFailure, Strategy};
use jsoncost_engine::{ExperimentKind, Fidelity, Row};
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

use crate::{Cancel, Error, Runner, Stop, Table};

/// What to load and how.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// Requests per run (closed model, like ab -n).
    pub requests: u64,
    /// Concurrent keep-alive connections (like ab -c).
    pub connections: u64,
    /// Also run the study's own load, -n 500 -c 100, as separate tables.
    pub study_load: bool,
    /// Also one request at a time (`ab -n 1000 -c 1`): the latency of one request, without
    /// queueing, next to throughput under load.
    pub one_at_a_time: bool,
    /// Open model instead: requests per second and for how long.
    pub rate: Option<f64>,
    /// With `rate`: how long the open model sends.
    pub duration: Option<Duration>,
    /// Readings in each POST /telemetry body, and POSTs per mode (0 skips the table).
    pub post_readings: u64,
    /// POSTs per mode (0 skips the table).
    pub post_requests: u64,
    /// Load-test this URL instead of the in-process API (no server columns).
    pub target: Option<String>,
    /// Where the API reads items and lists (default: the embedded store).
    pub store: Option<String>,
    /// The cache in front of the store (in-process or Redis).
    pub cache: jsoncost_http::CacheConfig,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Fewer requests and shorter runs.
    pub quick: bool,
}

/// A load run's error: fatal (the run stops) unless the URL or the load itself is wrong.
fn load_error(e: LoadError) -> RunFailure {
    match e {
        LoadError::Unreachable { .. } | LoadError::Runtime(_) => {
            RunFailure::fatal(format!("{e}; is the server running and listening there?"))
        }
        LoadError::InvalidUrl { .. } | LoadError::InvalidSpec { .. } => RunFailure::fatal(e.to_string()),
    }
}

/// A bad cache URL is a usage error; everything else about starting a server is the environment's.
pub fn server_error(e: jsoncost_http::ServerError) -> Error {
    match e {
        jsoncost_http::ServerError::CacheUrl { .. } => Error::usage(e.to_string()),
        e => Error::environment(e.to_string()),
    }
}

/// A token cancelled once `cancel` says so, so a load run stops early with partial results.
fn cancel_token(cancel: &Cancel) -> (CancellationToken, std::thread::JoinHandle<()>, Arc<std::sync::atomic::AtomicBool>) {
    let token = CancellationToken::new();
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (t, d, cancel) = (token.clone(), done.clone(), cancel.clone());
    let watcher = std::thread::spawn(move || {
        while !d.load(std::sync::atomic::Ordering::Relaxed) {
            if cancel.is_cancelled() {
                t.cancel();
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    });
    (token, watcher, done)
}

/// Requests of the one-at-a-time table: enough for a p99 from 10 samples above it.
const ONE_AT_A_TIME: u64 = 1000;

struct Load {
    label: String,
    requests: u64,
    connections: usize,
    open: Option<(f64, Duration)>,
}

impl HttpOptions {
    fn loads(&self) -> Vec<Load> {
        if let (Some(rate), Some(d)) = (self.rate, self.duration) {
            return vec![Load {
                label: format!("open-r{rate}-d{}s-c{}", d.as_secs_f64(), self.connections),
                requests: 0,
                connections: self.connections as usize,
                open: Some((rate, d)),
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
        if self.one_at_a_time && (self.requests, self.connections) != (ONE_AT_A_TIME, 1) {
            v.push(Load {
                label: format!("n{ONE_AT_A_TIME}-c1"),
                requests: ONE_AT_A_TIME,
                connections: 1,
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
        spec.timeout = self.timeout.max(Duration::from_millis(1));
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

/// One load run against `url`, with the server's cost when the server is ours. The reference
/// API failing (5xx answers, lost connections: its cache or store is gone) fails the row with
/// its error counts and stops the run, as a lost store does; its latencies mix failures with
/// answers, so they are no measurement.
fn measure_one(server: Option<&RunningServer>, method: &str, spec: &LoadSpec, cancel: &Cancel) -> Result<Row, RunFailure> {
    let (token, watcher, done) = cancel_token(cancel);
    let result = match server {
        Some(srv) => {
            let (r, cost) = srv.measure(|| loadgen::run_cancellable(spec, &token));
            r.map(|report| (http_row(method, &report, Some(&cost)), report))
        }
        None => loadgen::run_cancellable(spec, &token).map(|report| (http_row(method, &report, None), report)),
    };
    done.store(true, std::sync::atomic::Ordering::Relaxed);
    let _ = watcher.join();
    let (row, report) = result.map_err(load_error)?;
    if server.is_some() && report.server_errors() > 0 {
        let why = format!(
            "the reference API failed {} of {} requests ({}); its cache or store is gone",
            report.server_errors(),
            report.requests,
            report.errors_by_kind()
        );
        return Err(RunFailure::fatal(why.clone()).with_row(failed_row(method, &report, why)));
    }
    if server.is_none() && !row.is_ok() && refused_only(&report) {
        // An external target that refused every request: the URL or the request is wrong.
        let why = row.error_message.clone().unwrap_or_default();
        return Err(RunFailure::row(why).bad_input().with_row(row));
    }
    Ok(row)
}

/// True when the in-process API itself failed the agreement check (no answer, or a 5xx): its
/// cache or store is gone, which ends the run as it would mid-timing.
fn server_failed(e: &VerifyError) -> bool {
    matches!(e, VerifyError::Fetch(_)) || matches!(e, VerifyError::Status { status, .. } if *status >= 500)
}

/// Every failure was a 4xx answer (the URL names nothing, the request is refused): bad input,
/// where 5xx answers, timeouts and lost connections are the environment's.
fn refused_only(report: &LoadReport) -> bool {
    report.errors.total() == report.errors.status && report.status_codes.keys().all(|c| (400..500).contains(c))
}

/// One load run as a strategy: its gate is the agreement checked before the table (every mode
/// serves the same document, the POST parses answer the same summary), and it measures itself.
struct LoadRun<'s> {
    name: String,
    contract: Contract,
    server: Option<&'s RunningServer>,
    spec: LoadSpec,
    agreement: Result<(), RunFailure>,
    cancel: Cancel,
}

impl Strategy for LoadRun<'_> {
    fn name(&self) -> &str {
        &self.name
    }
    fn contract(&self) -> Contract {
        self.contract
    }
    fn check(&mut self) -> Result<Canonical, RunFailure> {
        Err(RunFailure::row("a load run is checked before its table (verify)"))
    }
    fn verify(&mut self, _reference: Option<&Reference>) -> Result<Fidelity, RunFailure> {
        self.agreement.clone().map(|()| Fidelity::default())
    }
    fn run(&mut self) -> Result<(), RunFailure> {
        Err(RunFailure::row("a load run measures itself"))
    }
    fn measure(&mut self) -> Option<Result<Row, RunFailure>> {
        Some(measure_one(self.server, &self.name, &self.spec, &self.cancel))
    }
}

/// What a GET mode hands the client: bytes written from the parsed item, or the stored bytes.
fn mode_contract(mode: Mode) -> Contract {
    match mode {
        Mode::TypedSerdeJson | Mode::TypedSonicRs => Contract::BytesFromTyped,
        Mode::Passthrough => Contract::Passthrough,
    }
}

/// Runs one table of load runs; a stop ends the experiment.
fn run_table(runner: &mut Runner<'_>, name: String, params: Map<String, serde_json::Value>, runs: Vec<LoadRun<'_>>) -> Result<(), Error> {
    let strategies = runs
        .into_iter()
        .map(|r| Box::new(r) as jsoncost_codecs::BoxedStrategy<'_>)
        .collect();
    match runner.run(Table::self_checked(ExperimentKind::Http, name.clone(), params, strategies)) {
        Ok(_) => Ok(()),
        Err(Stop::Fatal(m)) => Err(Error::environment(format!("http run stopped: {name}: {m}"))),
        Err(stop) => Err(stop.into()),
    }
}

/// Runs the http experiment through `runner`.
pub fn run(options: &HttpOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    if let Some(target) = &options.target {
        return run_target(options, target, runner);
    }
    runner.filter().check_matches_any(Mode::ALL.iter().map(|m| m.as_str()))?;
    let modes = Mode::ALL.iter().filter(|m| runner.filter().matches(m.as_str())).count();
    let store_url = options.store.clone().unwrap_or_else(jsoncost_stores::default_store_url);
    runner.sink().status(&format!("http: loading items into {store_url}"));
    let source = StoreSource::open(options.store.as_deref(), &OpenOptions::default(), 4, &StoreData::default()).map_err(|e| {
        if e.exit_code() == 3 {
            Error::environment(e.to_string())
        } else {
            Error::usage(e.to_string())
        }
    })?;
    let store_url = jsoncost_http::ItemSource::name(&source); // the default store may be another file
    let config = ServerConfig {
        cache: options.cache.clone(),
        ..ServerConfig::with_source(Arc::new(source))
    };
    let srv = server::start(config).map_err(server_error)?;
    runner.sink().note(&format!(
        "http: reference API on {} (items from {store_url}, cache {})",
        srv.url(""),
        options.cache.describe()
    ));
    let loads = options.loads();
    runner
        .sink()
        .planned((loads.len() * 2 * modes) as u64 + if options.post_requests > 0 { 4 } else { 0 });

    let result = (|| -> Result<(), Error> {
        for (route_name, route) in [("item", Route::Item(1)), ("list", Route::List(48))] {
            // Every mode must serve the same document before any is timed.
            let agreement = modes_agree_blocking(&srv.url(""), route);
            if let Err(e) = &agreement
                && server_failed(e)
            {
                return Err(Error::environment(format!("http run stopped: {route_name}: {e}")));
            }
            // Modes that disagree serve different data: bad input, not the server's failure.
            let agreement = agreement
                .map(|_| ())
                .map_err(|e| RunFailure::row(format!("the modes disagree, nothing is timed: {e}")).bad_input());
            for load in &loads {
                if runner.is_cancelled() {
                    return Err(Error::Interrupted);
                }
                let runs = Mode::ALL
                    .iter()
                    .map(|mode| LoadRun {
                        name: mode.as_str().to_string(),
                        contract: mode_contract(*mode),
                        server: Some(&srv),
                        spec: options.spec(srv.url(&route.path(*mode)), load),
                        agreement: agreement.clone(),
                        cancel: runner.cancel().clone(),
                    })
                    .collect();
                run_table(
                    runner,
                    format!("{route_name}/{}", load.label),
                    params(&route.path(Mode::TypedSerdeJson), load),
                    runs,
                )?;
            }
        }
        if options.post_requests > 0 {
            if runner.is_cancelled() {
                return Err(Error::Interrupted);
            }
            post_table(options, &srv, runner)?;
        }
        Ok(())
    })();
    let _ = srv.shutdown();
    result?;
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

/// POST /telemetry: the incremental parse of the body stream against the buffered one (a
/// second server, since the parse is a server setting).
fn post_table(options: &HttpOptions, srv: &RunningServer, runner: &mut Runner<'_>) -> Result<(), Error> {
    let readings = if options.quick {
        options.post_readings.min(QUICK_POST_READINGS)
    } else {
        options.post_readings
    };
    let requests = if options.quick {
        options.post_requests.min(QUICK_POST_REQUESTS)
    } else {
        options.post_requests
    };
    let mut body = Vec::new();
    write_telemetry(&mut body, readings, DEFAULT_SEED).expect("writing to memory");
    let body = Bytes::from(body);
    let buffered = server::start(ServerConfig {
        telemetry: TelemetryParse::Buffered,
        ..ServerConfig::default()
    })
    .map_err(server_error)?;
    let servers = [("incremental/serde_json", srv), ("buffered/serde_json", &buffered)];
    // Both parses must answer the same summary before either is timed.
    let answers: Vec<Result<serde_json::Value, String>> = servers
        .iter()
        .map(|(_, server)| post_once(server, &body, options.timeout))
        .collect();
    // One upload at a time (the server's peak heap is one request's) and four at once.
    let result = (|| {
        for uploads in [1usize, 4] {
            if runner.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let load = Load {
                label: String::new(),
                requests,
                connections: uploads,
                open: None,
            };
            let mut params = params(jsoncost_http::mode::TELEMETRY_PATH, &load);
            params.insert("body_bytes".into(), json!(body.len()));
            params.insert("readings".into(), json!(readings));
            let runs = servers
                .iter()
                .zip(&answers)
                .map(|((name, server), answer)| LoadRun {
                    name: name.to_string(),
                    // Both answer the same summary of the readings.
                    contract: Contract::Aggregate,
                    server: Some(*server),
                    spec: LoadSpec::closed(server.url(jsoncost_http::mode::TELEMETRY_PATH), requests, uploads)
                        .post(body.clone(), "application/json"),
                    agreement: match (answer, &answers[0]) {
                        (Err(e), _) => Err(RunFailure::row(e.clone())),
                        (Ok(_), Err(_)) => Err(RunFailure::row("the baseline failed, nothing to compare with")),
                        (Ok(a), Ok(base)) if a != base => Err(RunFailure::row(format!("answered {a}, the baseline {base}"))),
                        (Ok(_), Ok(_)) => Ok(()),
                    },
                    cancel: runner.cancel().clone(),
                })
                .collect();
            run_table(runner, format!("telemetry/post-{readings}-readings-c{uploads}"), params, runs)?;
        }
        Ok(())
    })();
    let _ = buffered.shutdown();
    result
}

/// `--quick`'s POST body and uploads per mode: 100,000 readings (7.2 MB).
const QUICK_POST_READINGS: u64 = 100_000;
const QUICK_POST_REQUESTS: u64 = 4;

/// One POST of `body` to /telemetry: the JSON summary it answers, or why it did not.
fn post_once(server: &RunningServer, body: &Bytes, timeout: Duration) -> Result<serde_json::Value, String> {
    let url = server.url(jsoncost_http::mode::TELEMETRY_PATH);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (status, answer) = runtime
        .block_on(loadgen::fetch(&url, ::http::Method::POST, body.clone(), timeout))
        .map_err(|e| e.to_string())?;
    if status != 200 {
        return Err(format!("{url} answered status {status}: {}", String::from_utf8_lossy(&answer)));
    }
    serde_json::from_slice(&answer).map_err(|e| format!("{url} did not answer JSON: {e}"))
}

/// `--target URL`: the same load against any endpoint; no server-side columns.
fn run_target(options: &HttpOptions, target: &str, runner: &mut Runner<'_>) -> Result<(), Error> {
    let loads = options.loads();
    runner.sink().planned(loads.len() as u64);
    for load in loads {
        if runner.is_cancelled() {
            return Err(Error::Interrupted);
        }
        let mut params = params(target, &load);
        params.insert("url".into(), json!(target));
        let run = LoadRun {
            name: "target".into(),
            contract: Contract::Opaque,
            server: None,
            spec: options.spec(target.to_string(), &load),
            agreement: Ok(()),
            cancel: runner.cancel().clone(),
        };
        match runner.run(Table::self_checked(
            ExperimentKind::Http,
            format!("target/{}", load.label),
            params,
            vec![Box::new(run)],
        )) {
            Ok(_) => {}
            // The URL is the user's: a refused or invalid one is named as it is.
            Err(Stop::Fatal(m)) => return Err(Error::environment(m.trim_start_matches("target: ").to_string())),
            Err(stop) => return Err(stop.into()),
        }
    }
    Ok(())
}
