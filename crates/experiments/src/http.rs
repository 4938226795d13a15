//! The http experiment: the reference API started in-process, loaded by jsoncost's own
//! generator; per route and load, one row per serialization mode with req/s, latency
//! percentiles and the server's own allocations and CPU per request. A table's modes are loaded
//! together in slices ([`loadgen::run_slices`]): each round gives every mode one slice of the
//! load, in an order shuffled per round, on each mode's own warm connections, so the rows pair
//! round by round (Ratio: the paired ratio of wall time per request, the inverse of req/s; p99
//! and CPU per request paired too). A `target` URL is load-tested instead when given (one run).
//! Every table goes through the one Runner: a load row is a strategy that measures itself (the
//! table's first measured row runs the slices of all of them).
//!
//! Nothing runs for hours: every table states its wall-clock bound before it starts (on the
//! sink, and as the `wall_clock_bound_s` param) — the agreement check it makes, if any, plus
//! each load run's [`LoadSpec::bound`] — and a load run that is lost ([`LossRule`]: the
//! in-process API at its first 5xx, any target past the error share or the stall bound) ends
//! at once. Once a run is lost, no further run is started against that server: the rows left
//! fail saying where it was lost, and the experiment ends with the loss's error (exit 3, or 2
//! when every failure was a 4xx) after everything is written.

use bytes::Bytes;
use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::{Canonical, Contract, Effort, RunFailure, Strategy, StrategyId};
use jsoncost_engine::lockstep::Lockstep;
use jsoncost_engine::{ExperimentKind, Fidelity, Row};
use jsoncost_http::cost::CostProbe;
use jsoncost_http::loadgen::{self, LoadError, LoadReport, LoadSpec, LossRule, Model, Rounds, SliceLength, SliceSpec, SliceTarget};
use jsoncost_http::server::{self, RunningServer, ServerConfig, TelemetryParse};
use jsoncost_http::verify::{Route, VerifyError, agreement_bound, modes_agree_blocking};
use jsoncost_http::{ServeMode, StoreData, StoreSource, row::failed_row, row::http_row, row::sliced_rows, row::total_report};
use jsoncost_shapes::{DEFAULT_SEED, write_telemetry};
use jsoncost_stores::OpenOptions;
use serde_json::{Map, json};
use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

use crate::cancel::Cancel;
use crate::error::Error;
use crate::runner::{Runner, Table, TableStop};

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
    /// Start the target's server from this command line (`{port}` in any word, and in the
    /// target's URL, is a free port on 127.0.0.1), and stop it at the end.
    pub server_cmd: Option<Vec<String>>,
    /// Profile the target's server under each load: its process (or the one started from
    /// `server_cmd`), and how to sample.
    pub profile: Option<ProfileOptions>,
    /// Where the API reads items and lists (default: the embedded store).
    pub store: Option<String>,
    /// The cache in front of the store (in-process or Redis).
    pub cache: jsoncost_http::CacheConfig,
    /// Per-request timeout.
    pub timeout: Duration,
    /// When a load run is given up as lost. Against the in-process API its first 5xx (or
    /// refused connection) loses it too, whatever this says.
    pub loss: LossRule,
    /// Rounds of each table's sliced load: every mode's `requests` (or the open model's
    /// duration) is split into this many slices, one per round (at least 2).
    pub rounds: usize,
    /// A GET table of `requests` whose slices are whole (`requests` per connection at least
    /// `rounds`) goes on with more rounds of the same slices, up to this many, until every
    /// mode's req/s ratio to the baseline is known within `precision` or `budget` has passed.
    pub max_rounds: usize,
    /// Relative half-width (99%) the extra rounds aim for; 0: exactly `rounds` rounds.
    pub precision: f64,
    /// Per table: no extra round starts once this much time has passed.
    pub budget: Duration,
    /// Seeds each round's order of the modes.
    pub seed: u64,
    /// Items per response on the list route, one list table per count and load as a size
    /// sweep (`--list-sizes`); empty: the one list of the server's default count.
    pub list_sizes: Vec<usize>,
    /// Fewer requests and shorter runs.
    pub quick: bool,
}

/// Which process `--profile` samples, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileOptions {
    /// The server's process; `None`: the one started from `--server-cmd`.
    pub pid: Option<u32>,
    /// How perf samples.
    pub settings: jsoncost_conductor::profile::ProfileSettings,
}

/// Default rounds of a table's sliced load: from 10 on, paired means are trimmed
/// ([`jsoncost_engine::paired::MIN_TO_TRIM`]), and a slice's hiccup no longer moves the ratio.
pub const DEFAULT_ROUNDS: usize = 10;

/// Default most rounds of a table that may go on (as micro's most iterations).
pub const DEFAULT_MAX_ROUNDS: usize = 100;

/// Default precision the extra rounds aim for (as micro's iterations).
pub const DEFAULT_PRECISION: f64 = 0.02;

/// Default time per table after which no extra round starts.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(10);
/// [`DEFAULT_BUDGET`] under `--quick`.
pub const QUICK_BUDGET: Duration = Duration::from_secs(4);

/// A load run's error that ends the experiment at once (a target that refuses the first
/// connection is a lost target instead; see [`LoadRun::measure_once`]).
fn load_error(e: LoadError) -> RunFailure {
    RunFailure::fatal(e.to_string())
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
    /// More rounds may follow while the ratios are imprecise (GET tables of `-n`; not the
    /// study's load, an open model's or the POSTs', whose load is the point).
    may_go_on: bool,
}

impl HttpOptions {
    fn loads(&self) -> Vec<Load> {
        if let (Some(rate), Some(d)) = (self.rate, self.duration) {
            return vec![Load {
                label: format!("open-r{rate}-d{}s-c{}", d.as_secs_f64(), self.connections),
                requests: 0,
                connections: self.connections as usize,
                open: Some((rate, d)),
                may_go_on: false,
            }];
        }
        let mut v = vec![Load {
            label: format!("n{}-c{}", self.requests, self.connections),
            requests: self.requests,
            connections: self.connections as usize,
            open: None,
            may_go_on: true,
        }];
        if self.study_load && (self.requests, self.connections) != (500, 100) {
            v.push(Load {
                label: "n500-c100".into(),
                requests: 500,
                connections: 100,
                open: None,
                may_go_on: false,
            });
        }
        if self.one_at_a_time && (self.requests, self.connections) != (ONE_AT_A_TIME, 1) {
            v.push(Load {
                label: format!("n{ONE_AT_A_TIME}-c1"),
                requests: ONE_AT_A_TIME,
                connections: 1,
                open: None,
                may_go_on: true,
            });
        }
        v
    }

    /// The load run of `load` against an external `url` (`--target`).
    fn spec(&self, url: String, load: &Load) -> LoadSpec {
        let mut spec = match load.open {
            Some((rate, d)) => LoadSpec::open(url, rate, d, load.connections),
            None => LoadSpec::closed(url, load.requests, load.connections),
        };
        spec.timeout = self.timeout.max(Duration::from_millis(1));
        spec.loss = self.loss;
        spec
    }

    /// The sliced load of `load` over `targets` of the in-process API: each target's requests
    /// (or the open model's duration) split over the rounds, one slice per round, each slice
    /// at least one request per connection (so `-c` uploads or requests are at once in
    /// flight); the rounds are `rounds` unless the requests per connection are fewer (at least
    /// 2). A GET table of `-n` with whole slices goes on with more rounds of them while its
    /// ratios are less precise than `precision` ([`HttpOptions::max_rounds`]). The API answers
    /// a 5xx only when its cache or store is gone, so its first one loses the load.
    fn slice_spec(&self, targets: Vec<SliceTarget>, load: &Load, warmup: bool, lockstep: &Lockstep) -> SliceSpec {
        let most = self.rounds.max(2);
        let (min, length) = match load.open {
            Some((_, d)) => (most, SliceLength::Time(d / most as u32)),
            None => {
                let per_connection = load.requests / load.connections.max(1) as u64;
                let rounds = per_connection.clamp(2, most as u64);
                let per_slice = load.requests.div_ceil(rounds).max(load.connections as u64);
                (rounds as usize, SliceLength::Requests(per_slice))
            }
        };
        let goes_on = load.may_go_on && min == most && self.precision > 0.0 && self.max_rounds > min;
        let rounds = if goes_on {
            Rounds {
                min,
                max: self.max_rounds,
                precision: self.precision,
                budget: self.budget,
            }
        } else {
            Rounds {
                min,
                max: min,
                precision: 0.0,
                budget: Duration::MAX,
            }
        };
        SliceSpec {
            rate: load.open.map(|(rate, _)| rate),
            length,
            rounds,
            seed: self.seed,
            timeout: self.timeout.max(Duration::from_millis(1)),
            loss: LossRule {
                first_server_error: true,
                ..self.loss
            },
            warmup,
            lockstep: lockstep.clone(),
            ..SliceSpec::closed(targets, load.connections)
        }
    }
}

/// `d` for a reader: `36 s`, `5 min 5 s`, `1 h 52 min`.
fn human(d: Duration) -> String {
    let s = d.as_secs_f64().ceil() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 if s.is_multiple_of(60) => format!("{} min", s / 60),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// States `bound` for `table` before it starts, and records it in its params.
fn state_bound(runner: &mut Runner<'_>, table: &str, params: &mut Map<String, serde_json::Value>, bound: Duration) {
    // The experiment states its bound once, before its first table; each table's own is kept
    // in the results.
    params.insert("wall_clock_bound_s".into(), json!(bound.as_secs_f64()));
    runner.sink().note(&format!("http: {table}: loading"));
}

/// Where a server was lost, which no further run is started against.
struct Lost {
    table: String,
    method: String,
    why: String,
    /// Every failure was a 4xx: the URL or the request is wrong, not the server.
    bad_input: bool,
}

/// What the load runs of one experiment share beyond their rows: whether the server is lost,
/// and notes for the reader.
#[derive(Default)]
struct Watch {
    lost: RefCell<Option<Lost>>,
    notes: RefCell<Vec<String>>,
}

impl Watch {
    /// The server was lost in `table`'s run `method`; the first loss is the one kept.
    fn lose(&self, table: &str, method: &str, why: &str, bad_input: bool) {
        self.lost.borrow_mut().get_or_insert_with(|| Lost {
            table: table.to_string(),
            method: method.to_string(),
            why: why.to_string(),
            bad_input,
        });
    }

    fn is_lost(&self) -> bool {
        self.lost.borrow().is_some()
    }

    /// Why a run is not started, once the server is lost.
    fn not_started(&self) -> Option<RunFailure> {
        let lost = self.lost.borrow();
        let lost = lost.as_ref()?;
        let failure = RunFailure::row(format!("not started: the target was lost in {} ({})", lost.table, lost.method));
        Some(if lost.bad_input { failure.bad_input() } else { failure })
    }

    /// Hands the notes gathered so far to the sink.
    fn flush(&self, runner: &mut Runner<'_>) {
        for note in self.notes.borrow_mut().drain(..) {
            runner.sink().note(&note);
        }
    }

    /// The experiment's end: the loss, if the server was lost.
    fn outcome(&self) -> Result<(), Error> {
        match &*self.lost.borrow() {
            None => Ok(()),
            Some(lost) => {
                let message = format!("http run stopped: {}: {}: {}", lost.table, lost.method, lost.why);
                Err(if lost.bad_input {
                    Error::usage(message)
                } else {
                    Error::environment(message)
                })
            }
        }
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

/// True when the in-process API itself failed the agreement check (no answer, or a 5xx): its
/// cache or store is gone, which ends the run as it would mid-timing.
fn server_failed(e: &VerifyError) -> bool {
    matches!(e, VerifyError::Fetch(_)) || matches!(e, VerifyError::Status { status, .. } if *status >= 500)
}

/// Every failure was a 4xx answer (the URL names nothing, the request is refused): bad input,
/// where 5xx answers, timeouts and lost connections are the environment's.
fn refused_only(report: &LoadReport) -> bool {
    report.errors.total() > 0 && report.errors.total() == report.errors.status && report.status_codes.keys().all(|c| (400..500).contains(c))
}

/// How a load row is measured.
enum Measured<'s> {
    /// One load run of its own against an external target (`--target`).
    Alone(Box<LoadSpec>),
    /// Target `index` of its table's sliced load.
    Sliced { load: &'s SlicedLoad<'s>, index: usize },
}

/// One load row as a strategy: its gate is the agreement checked before the table (every mode
/// serves the same document, the POST parses answer the same summary), and it measures itself.
struct LoadRun<'s> {
    id: StrategyId,
    /// The table it is a row of.
    table: String,
    contract: Contract,
    effort: Effort,
    measured: Measured<'s>,
    agreement: Result<(), RunFailure>,
    cancel: Cancel,
    watch: &'s Watch,
    /// The server to profile during its own load run (`--target … --profile`).
    profile: Option<&'s crate::profiled::Profiled>,
}

/// A load row's outcome.
type Measurement = Result<Row, RunFailure>;

/// The rows of a table loaded together in slices: run once, by the first row measured, for
/// every row the filter and the gate let through.
struct SlicedLoad<'s> {
    /// Every row's target, in table order (the spec's own list is replaced by the members').
    spec: SliceSpec,
    /// The server each target is served by (its CPU and allocations are sampled per slice).
    servers: Vec<&'s RunningServer>,
    /// Which targets are loaded.
    members: Vec<bool>,
    /// Each target's row once the slices ran (taken by its strategy).
    rows: RefCell<Option<Vec<Option<Measurement>>>>,
}

impl<'s> SlicedLoad<'s> {
    fn new(spec: SliceSpec, servers: Vec<&'s RunningServer>, members: Vec<bool>) -> Self {
        SlicedLoad {
            spec,
            servers,
            members,
            rows: RefCell::new(None),
        }
    }

    /// The spec of the members alone.
    fn members_spec(&self) -> SliceSpec {
        SliceSpec {
            targets: self
                .spec
                .targets
                .iter()
                .zip(&self.members)
                .filter(|(_, m)| **m)
                .map(|(t, _)| t.clone())
                .collect(),
            ..self.spec.clone()
        }
    }

    /// The most wall time its load takes (nothing when no row is loaded).
    fn bound(&self) -> Duration {
        if self.members.iter().any(|m| *m) {
            self.members_spec().bound()
        } else {
            Duration::ZERO
        }
    }

    /// Target `index`'s row, running the slices of every member first if they have not run.
    fn row(&self, index: usize, table: &str, cancel: &Cancel, watch: &Watch) -> Result<Row, RunFailure> {
        let mut rows = self.rows.borrow_mut();
        if rows.is_none() {
            if let Some(failure) = watch.not_started() {
                return Err(failure);
            }
            *rows = Some(self.run(table, cancel, watch));
        }
        rows.as_mut()
            .and_then(|rows| rows.get_mut(index)?.take())
            .unwrap_or_else(|| Err(RunFailure::row("not measured: not among the rows loaded")))
    }

    /// Runs the members' slices; a row per target (`None` for those not loaded). A server lost
    /// (the reference API failing, a connection refused) fails its row with its errors by
    /// kind and is marked on `watch`; the other rows keep what their complete rounds measured.
    fn run(&self, table: &str, cancel: &Cancel, watch: &Watch) -> Vec<Option<Measurement>> {
        let indices: Vec<usize> = (0..self.members.len()).filter(|&i| self.members[i]).collect();
        let spec = self.members_spec();
        let mut probe = CostProbe::new(indices.iter().map(|&i| self.servers[i]).collect());
        let (token, watcher, done) = cancel_token(cancel);
        let result = loadgen::run_slices(&spec, &mut probe, &token);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = watcher.join();
        let mut out: Vec<Option<Measurement>> = vec![None; self.members.len()];
        let run = match result {
            Ok(run) => run,
            Err(e @ LoadError::Unreachable { .. }) => {
                let why = format!("{e}; is the server running and listening there?");
                watch.lose(table, &spec.targets[0].name, &why, false);
                for &i in &indices {
                    out[i] = Some(Err(RunFailure::row(why.clone())));
                }
                return out;
            }
            Err(e) => {
                let failure = RunFailure::fatal(e.to_string());
                for &i in &indices {
                    out[i] = Some(Err(failure.clone()));
                }
                return out;
            }
        };
        for ((k, row), &i) in sliced_rows(&run).into_iter().enumerate().zip(&indices) {
            let target = &run.targets[k];
            let lost_here = run.lost.is_some_and(|l| l.target == k);
            let slices = if lost_here { &target.slices[..] } else { target.paired(run.rounds) };
            out[i] = Some(match total_report(slices) {
                Some(report) => judge_row(table, &target.name, row, &report, true, watch),
                None => Err(RunFailure::row(row.error_message.clone().unwrap_or_default())),
            });
        }
        out
    }
}

/// A load row measured against `report`: ok, or failed with why. The reference API failing (a
/// 5xx answer or a refused connection: its cache or store is gone), or a run given up by its
/// [`LossRule`], marks the server lost. Its latencies mix failures with answers, so they are no
/// measurement.
fn judge_row(table: &str, method: &str, row: Row, report: &LoadReport, in_process: bool, watch: &Watch) -> Result<Row, RunFailure> {
    if report.unsent > 0 {
        watch.notes.borrow_mut().push(unsent_note(table, method, report));
    }
    if in_process && report.server_errors() > 0 {
        let why = format!(
            "the reference API failed {} of {} requests ({}); its cache or store is gone",
            report.server_errors(),
            report.requests,
            report.errors_by_kind()
        );
        watch.lose(table, method, &why, false);
        return Err(RunFailure::row(why.clone()).with_row(failed_row(method, report, why)));
    }
    if row.is_ok() {
        return Ok(row);
    }
    // Lost, or not one success: a target whose every failure was a 4xx is bad input (the URL
    // or the request is wrong); timeouts, lost connections and 5xx answers are the
    // environment's.
    let refused = !in_process && refused_only(report);
    let why = row.error_message.clone().unwrap_or_default();
    if report.lost.is_some() {
        watch.lose(table, method, &why, refused);
    }
    let failure = RunFailure::row(why).with_row(row);
    Err(if refused { failure.bad_input() } else { failure })
}

impl LoadRun<'_> {
    /// The row: its own load run, or its share of the table's sliced load.
    fn measure_once(&self) -> Result<Row, RunFailure> {
        let spec = match &self.measured {
            Measured::Sliced { load, index } => return load.row(*index, &self.table, &self.cancel, self.watch),
            Measured::Alone(spec) => spec,
        };
        if let Some(failure) = self.watch.not_started() {
            return Err(failure);
        }
        let method = self.id.name();
        let recording = self.profile.and_then(|p| p.start(&self.table));
        let (token, watcher, done) = cancel_token(&self.cancel);
        let result = loadgen::run_cancellable(spec, &token);
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = watcher.join();
        match result {
            Ok(report) => {
                let mut row = http_row(method, &report, None);
                if let (Some(profiled), Some(recording)) = (self.profile, recording) {
                    row.profile = profiled.finish(recording, &self.table, method, &report).map(Box::new);
                }
                judge_row(&self.table, method, row, &report, false, self.watch)
            }
            Err(e @ LoadError::Unreachable { .. }) => {
                let why = format!("{e}; is the server running and listening there?");
                self.watch.lose(&self.table, method, &why, false);
                Err(RunFailure::row(why))
            }
            Err(e) => Err(load_error(e)),
        }
    }
}

/// The open model's requests that were not sent, for the reader.
fn unsent_note(table: &str, method: &str, report: &LoadReport) -> String {
    let (scheduled, duration) = match report.model {
        Model::Open { rate, duration } => ((rate * duration.as_secs_f64()).ceil(), duration),
        Model::Closed { requests } => (requests as f64, report.elapsed),
    };
    format!(
        "http: {table}: {method}: {} of {scheduled} scheduled requests not sent: every connection was still busy when the {} s ended (its latencies are those of the {} sent)",
        report.unsent,
        duration.as_secs_f64(),
        report.requests
    )
}

impl Strategy for LoadRun<'_> {
    fn id(&self) -> &StrategyId {
        &self.id
    }
    fn contract(&self) -> Contract {
        self.contract
    }
    fn effort(&self) -> Effort {
        self.effort
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
        Some(self.measure_once())
    }
}

/// What a GET mode hands the client: bytes written from the parsed item, or the stored bytes.
fn mode_contract(mode: ServeMode) -> Contract {
    match mode {
        ServeMode::Typed(_) => Contract::BytesFromTyped,
        ServeMode::Passthrough => Contract::Passthrough,
    }
}

/// What adopting a GET mode takes: another serializer is a swap; serving the stored bytes
/// unparsed changes what the server keeps and where JSON is handled.
fn mode_effort(mode: ServeMode) -> Effort {
    match mode {
        ServeMode::Typed(_) => Effort::Swap,
        ServeMode::Passthrough => Effort::Architecture,
    }
}

/// Runs one table of load rows, its bound (`check`, then `load`) stated first; a stop ends the
/// experiment.
fn run_table(
    runner: &mut Runner<'_>,
    name: String,
    mut params: Map<String, serde_json::Value>,
    check: Duration,
    load: Duration,
    runs: Vec<LoadRun<'_>>,
) -> Result<(), Error> {
    state_bound(runner, &name, &mut params, check.saturating_add(load));
    let watch = runs.first().map(|r| r.watch);
    let strategies = runs
        .into_iter()
        .map(|r| Box::new(r) as jsoncost_codecs::BoxedStrategy<'_>)
        .collect();
    let ran = runner.run(Table::self_checked(ExperimentKind::Http, name.clone(), params, strategies));
    if let Some(watch) = watch {
        watch.flush(runner);
    }
    match ran {
        Ok(_) => Ok(()),
        Err(TableStop::Fatal(m)) => Err(Error::environment(format!("http run stopped: {name}: {m}"))),
        Err(stop) => Err(stop.into()),
    }
}

/// Each count of `--list-sizes` is one the store can answer: a count above its list's length
/// is a 400 from the server, which the rows would read as the modes disagreeing.
fn check_list_sizes(sizes: &[usize], entries: usize, store: &str) -> Result<(), Error> {
    match sizes.iter().find(|&&n| n > entries) {
        Some(n) => Err(Error::usage(format!(
            "--list-sizes {n}: the list in {store} holds {entries} entries; ask for at most {entries}"
        ))),
        None => Ok(()),
    }
}

/// The GET routes the in-process API is loaded on: (name, route).
/// The GET routes, each named as its tables' prefix: the item, and the list (one per count of
/// `--list-sizes`, `list-N`).
fn routes(options: &HttpOptions) -> Vec<(String, Route)> {
    let mut v = vec![("item".to_string(), Route::Item(1))];
    if options.list_sizes.is_empty() {
        v.push(("list".to_string(), Route::List(jsoncost_http::server::DEFAULT_LIST_COUNT)));
    }
    v.extend(options.list_sizes.iter().map(|&n| (format!("list-{n}"), Route::List(n))));
    v
}

/// A GET table's sliced load: every mode of `route` on `srv`, those in `members` loaded.
fn get_load<'s>(
    options: &HttpOptions,
    srv: &'s RunningServer,
    (route, load): (Route, &Load),
    members: Vec<bool>,
    lockstep: &Lockstep,
) -> SlicedLoad<'s> {
    let targets: Vec<SliceTarget> = ServeMode::all()
        .into_iter()
        .map(|m| SliceTarget::get(m.name(), srv.url(&route.path(m))))
        .collect();
    let servers = vec![srv; targets.len()];
    SlicedLoad::new(options.slice_spec(targets, load, true, lockstep), servers, members)
}

/// Runs the http experiment through `runner`.
pub fn run(options: &HttpOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    if let Some(target) = &options.target {
        return run_target(options, target, runner);
    }
    let all_modes = ServeMode::all();
    let names: Vec<String> = all_modes.iter().map(|m| m.name()).collect();
    runner.filter().check_matches_any(names.iter().map(String::as_str))?;
    let modes: Vec<ServeMode> = all_modes
        .iter()
        .zip(&names)
        .filter(|(_, name)| runner.filter().matches(name))
        .map(|(mode, _)| *mode)
        .collect();
    // Every mode's connections are open at once (slices alternate on warm connections), both
    // ends in this process: said now, naming the limit, rather than as a server lost mid-run.
    let most = options.loads().iter().map(|l| l.connections as u64).max().unwrap_or(1);
    jsoncost_http::fds::ensure(2 * modes.len() as u64 * most).map_err(|shortage| {
        Error::environment(format!(
            "http: {} mode{} × {most} connections, both ends in this process: {shortage}; raise the limit or lower -c",
            modes.len(),
            if modes.len() == 1 { "" } else { "s" }
        ))
    })?;
    let store_error = |e: jsoncost_stores::StoreError| {
        if e.exit_code() == 3 {
            Error::environment(e.to_string())
        } else {
            Error::usage(e.to_string())
        }
    };
    let store_url = match &options.store {
        Some(url) => url.clone(),
        None => jsoncost_stores::default_store_url().map_err(store_error)?,
    };
    runner
        .sink()
        .status(&format!("http: loading items into {}", jsoncost_stores::redact(&store_url)));
    let source = StoreSource::open(options.store.as_deref(), &OpenOptions::default(), 4, &StoreData::default()).map_err(store_error)?;
    let store_url = jsoncost_http::ItemSource::name(&source); // the default store may be another file
    check_list_sizes(&options.list_sizes, jsoncost_http::ItemSource::list_len(&source), &store_url)?;
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
        .planned((loads.len() * 2 * modes.len()) as u64 + if options.post_requests > 0 { 4 } else { 0 });
    // The whole experiment's bound: every table's, as each will state it.
    let filtered: Vec<bool> = all_modes.iter().map(|m| modes.contains(m)).collect();
    let routes = routes(options);
    let gets = loads.iter().fold(routes.len() as u32 * agreement_bound(), |sum, load| {
        let sliced = get_load(options, &srv, (routes[0].1, load), filtered.clone(), &runner.config().lockstep);
        sum.saturating_add(sliced.bound().saturating_mul(routes.len() as u32))
    });
    let posts = if options.post_requests > 0 {
        post_bound(options, &srv, runner)
    } else {
        Duration::ZERO
    };
    runner.sink().note(&format!(
        "http: ends within {} at most, a bound for when every request waits out its timeout (a table's modes loaded together in {} rounds of slices{}; a lost server ends it sooner)",
        human(gets.saturating_add(posts)),
        options.rounds.max(2),
        if options.precision > 0.0 && options.max_rounds > options.rounds.max(2) {
            format!(
                ", a GET table of -n up to {} while its ratios are less precise than ±{}% and {} have not passed",
                options.max_rounds,
                options.precision * 100.0,
                human(options.budget)
            )
        } else {
            String::new()
        }
    ));

    let watch = Watch::default();
    let result = (|| -> Result<(), Error> {
        for (route_name, route) in routes.iter().cloned() {
            let mut agreement = Ok(());
            // The response's size, from the agreement check's bodies: a sweep's x axis.
            let mut body_bytes = None;
            for (i, load) in loads.iter().enumerate() {
                if runner.is_cancelled() {
                    return Err(Error::Interrupted);
                }
                let table = format!("{route_name}/{}", load.label);
                // Every mode must serve the same document before any is timed: checked with the
                // route's first table (within its bound), unless the server is lost already.
                let check = if i == 0 { agreement_bound() } else { Duration::ZERO };
                if i == 0 && !watch.is_lost() {
                    agreement = match modes_agree_blocking(&srv.url(""), route) {
                        Ok(bodies) => {
                            body_bytes = bodies.first().map(|(_, b)| b.len() as u64);
                            Ok(())
                        }
                        // The in-process API itself failed (no answer, or a 5xx): lost.
                        Err(e) if server_failed(&e) => {
                            watch.lose(&table, "agreement check", &e.to_string(), false);
                            Ok(())
                        }
                        // Modes that disagree serve different data: bad input, not the server's failure.
                        Err(e) => Err(RunFailure::row(format!("the modes disagree, nothing is timed: {e}")).bad_input()),
                    };
                }
                // The modes the filter and the gate let through are loaded together.
                let members = all_modes.iter().map(|m| modes.contains(m) && agreement.is_ok()).collect();
                let sliced = get_load(options, &srv, (route, load), members, &runner.config().lockstep);
                let runs = all_modes
                    .iter()
                    .enumerate()
                    .map(|(index, mode)| LoadRun {
                        id: mode.id(),
                        table: table.clone(),
                        contract: mode_contract(*mode),
                        effort: mode_effort(*mode),
                        measured: Measured::Sliced { load: &sliced, index },
                        agreement: agreement.clone(),
                        cancel: runner.cancel().clone(),
                        watch: &watch,
                        profile: None,
                    })
                    .collect();
                let bound = sliced.bound();
                let mut params = params(&route.path(ServeMode::baseline()), load);
                if let (Route::List(items), false) = (route, options.list_sizes.is_empty()) {
                    params.insert(crate::sizes::SWEEP_PARAM.into(), json!(format!("list {}", load.label)));
                    params.insert(crate::sizes::OPERATION_PARAM.into(), json!("GET"));
                    params.insert("items".into(), json!(items));
                    if let Some(bytes) = body_bytes {
                        params.insert("payload_bytes".into(), json!(bytes));
                    }
                }
                run_table(runner, table, params, check, bound, runs)?;
            }
        }
        if options.post_requests > 0 {
            if runner.is_cancelled() {
                return Err(Error::Interrupted);
            }
            post_table(options, &srv, &watch, runner)?;
        }
        Ok(())
    })();
    let _ = srv.shutdown();
    result?;
    watch.outcome()?;
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

/// `--quick`'s POST body and uploads per mode: 100,000 readings (7.2 MB).
const QUICK_POST_READINGS: u64 = 100_000;
const QUICK_POST_REQUESTS: u64 = 4;

/// Uploads at once in the POST tables: one (the server's peak heap is one request's), and four.
const POST_UPLOADS: [usize; 2] = [1, 4];

/// The POST table's rows: the in-process API's incremental parse, a second server's buffered one.
/// The POST parses, baseline first, with what adopting each takes: streaming the body's
/// elements is a code path of its own; reading it whole and parsing the slice is the call a
/// handler makes first.
fn post_parses() -> [(StrategyId, Effort); 2] {
    [
        (StrategyId::new("incremental", "serde_json"), Effort::Code),
        (StrategyId::new("buffered", "serde_json"), Effort::Swap),
    ]
}

/// The POST tables' readings per body and uploads per mode.
fn post_load(options: &HttpOptions) -> (u64, u64) {
    if options.quick {
        (
            options.post_readings.min(QUICK_POST_READINGS),
            options.post_requests.min(QUICK_POST_REQUESTS),
        )
    } else {
        (options.post_readings, options.post_requests)
    }
}

/// A POST table's sliced load at `uploads` at once: the two parses' servers (`servers`, the
/// incremental first), those in `members` loaded. No warm-up slice: a body is the work, and
/// its connection's opening is a small part of it in every round alike.
fn post_load_of<'s>(
    options: &HttpOptions,
    servers: [&'s RunningServer; 2],
    body: &Bytes,
    requests: u64,
    uploads: usize,
    members: Vec<bool>,
    lockstep: &Lockstep,
) -> SlicedLoad<'s> {
    let load = Load {
        label: String::new(),
        requests,
        connections: uploads,
        open: None,
        may_go_on: false,
    };
    let targets = post_parses()
        .iter()
        .zip(servers)
        .map(|((id, _), server)| {
            SliceTarget::get(id.name(), server.url(jsoncost_http::mode::TELEMETRY_PATH))
                .post(body.clone(), jsoncost_http::mode::JSON_CONTENT_TYPE)
        })
        .collect();
    SlicedLoad::new(options.slice_spec(targets, &load, false, lockstep), servers.to_vec(), members)
}

/// The check before the POST tables: one POST to each parse, each within the timeout.
fn post_check_bound(options: &HttpOptions) -> Duration {
    options.timeout.saturating_mul(post_parses().len() as u32)
}

/// The POST tables' bound: the check, then each table's sliced load (bodies' sizes do not change
/// it: every slice is bounded by the timeout).
fn post_bound(options: &HttpOptions, srv: &RunningServer, runner: &Runner<'_>) -> Duration {
    let (_, requests) = post_load(options);
    let members: Vec<bool> = post_parses().iter().map(|(id, _)| runner.filter().matches(id.name())).collect();
    POST_UPLOADS.iter().fold(post_check_bound(options), |sum, &uploads| {
        let sliced = post_load_of(
            options,
            [srv, srv],
            &Bytes::new(),
            requests,
            uploads,
            members.clone(),
            &runner.config().lockstep,
        );
        sum.saturating_add(sliced.bound())
    })
}

/// POST /telemetry: the incremental parse of the body stream against the buffered one (a
/// second server, since the parse is a server setting).
fn post_table(options: &HttpOptions, srv: &RunningServer, watch: &Watch, runner: &mut Runner<'_>) -> Result<(), Error> {
    let (readings, requests) = post_load(options);
    let mut body = Vec::new();
    write_telemetry(&mut body, readings, DEFAULT_SEED).expect("writing to memory");
    let body = Bytes::from(body);
    let buffered = server::start(ServerConfig {
        telemetry: TelemetryParse::Buffered,
        ..ServerConfig::default()
    })
    .map_err(server_error)?;
    // Both parses must answer the same summary before either is timed (unless the API is lost).
    let answers: Vec<Result<serde_json::Value, String>> = [srv, &buffered]
        .iter()
        .map(|server| {
            if watch.is_lost() {
                Ok(serde_json::Value::Null)
            } else {
                post_once(server, &body, options.timeout)
            }
        })
        .collect();
    let result = (|| {
        for (i, uploads) in POST_UPLOADS.into_iter().enumerate() {
            if runner.is_cancelled() {
                return Err(Error::Interrupted);
            }
            let table = format!("telemetry/post-{readings}-readings-c{uploads}");
            let load = Load {
                label: String::new(),
                requests,
                connections: uploads,
                open: None,
                may_go_on: false,
            };
            let mut params = params(jsoncost_http::mode::TELEMETRY_PATH, &load);
            params.insert("body_bytes".into(), json!(body.len()));
            params.insert("readings".into(), json!(readings));
            let agreements: Vec<Result<(), RunFailure>> = answers
                .iter()
                .map(|answer| match (answer, &answers[0]) {
                    (Err(e), _) => Err(RunFailure::row(e.clone())),
                    (Ok(_), Err(_)) => Err(RunFailure::row("the baseline failed, nothing to compare with")),
                    (Ok(a), Ok(base)) if a != base => Err(RunFailure::row(format!("answered {a}, the baseline {base}"))),
                    (Ok(_), Ok(_)) => Ok(()),
                })
                .collect();
            let members = post_parses()
                .iter()
                .zip(&agreements)
                .map(|((id, _), agreement)| runner.filter().matches(id.name()) && agreement.is_ok())
                .collect();
            let sliced = post_load_of(
                options,
                [srv, &buffered],
                &body,
                requests,
                uploads,
                members,
                &runner.config().lockstep,
            );
            let runs = post_parses()
                .into_iter()
                .zip(agreements)
                .enumerate()
                .map(|(index, ((id, effort), agreement))| LoadRun {
                    id,
                    table: table.clone(),
                    // Both answer the same summary of the readings.
                    contract: Contract::Aggregate,
                    effort,
                    measured: Measured::Sliced { load: &sliced, index },
                    agreement,
                    cancel: runner.cancel().clone(),
                    watch,
                    profile: None,
                })
                .collect();
            let check = if i == 0 { post_check_bound(options) } else { Duration::ZERO };
            let bound = sliced.bound();
            run_table(runner, table, params, check, bound, runs)?;
        }
        Ok(())
    })();
    let _ = buffered.shutdown();
    result
}

/// One POST of `body` to /telemetry: the JSON summary it answers, or why it did not.
fn post_once(server: &RunningServer, body: &Bytes, timeout: Duration) -> Result<serde_json::Value, String> {
    let url = server.url(jsoncost_http::mode::TELEMETRY_PATH);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let (status, answer) = runtime
        .block_on(loadgen::fetch(
            &url,
            ::http::Method::POST,
            body.clone(),
            Some(jsoncost_http::mode::JSON_CONTENT_TYPE),
            timeout,
        ))
        .map_err(|e| e.to_string())?;
    if status != 200 {
        return Err(format!("{url} answered status {status}: {}", String::from_utf8_lossy(&answer)));
    }
    serde_json::from_slice(&answer).map_err(|e| format!("{url} did not answer JSON: {e}"))
}

/// `--target URL`: the same load against any endpoint; no server-side columns. With
/// `--server-cmd`, its server is started first (and stopped at the end); with `--profile`, the
/// server is sampled during each load.
fn run_target(options: &HttpOptions, target: &str, runner: &mut Runner<'_>) -> Result<(), Error> {
    let loads = options.loads();
    let most = loads.iter().map(|l| l.connections as u64).max().unwrap_or(1);
    jsoncost_http::fds::ensure(most).map_err(|shortage| {
        Error::environment(format!(
            "http: {most} connections to the target: {shortage}; raise the limit or lower -c"
        ))
    })?;
    let (server, target) = start_target_server(options, target)?;
    let pid = options.profile.as_ref().and_then(|p| p.pid).or(server.as_ref().and_then(|s| s.pid));
    let profiled = match (&options.profile, pid) {
        (Some(p), Some(pid)) => Some(crate::profiled::Profiled::new(pid, p.settings.clone())),
        (Some(_), None) => return Err(Error::usage("--profile needs the server's PID, or --server-cmd to start it")),
        (None, _) => None,
    };
    if let Some(server) = &server {
        runner.sink().note(&format!(
            "http: the target's server runs at {} (pid {})",
            server.url,
            server.pid.unwrap_or(0)
        ));
    }
    if profiled.is_none() {
        runner
            .sink()
            .note("http: for this server's JSON share and where it goes, add --profile PID (or --server-cmd 'CMD {port}' --profile)");
    }
    let target = target.as_str();
    runner.sink().planned(loads.len() as u64);
    let total = loads
        .iter()
        .map(|load| options.spec(target.to_string(), load).bound())
        .sum::<Duration>();
    runner
        .sink()
        .note(&format!("http: ends within {} (a lost target ends it sooner)", human(total)));
    let watch = Watch::default();
    for load in loads {
        if runner.is_cancelled() {
            return Err(Error::Interrupted);
        }
        let table = format!("target/{}", load.label);
        let mut params = params(&jsoncost_stores::redact(target), &load);
        params.insert("url".into(), json!(jsoncost_stores::redact(target)));
        let run = LoadRun {
            // Someone else's endpoint: a label, no style or library of ours.
            id: StrategyId::named("target"),
            table: table.clone(),
            contract: Contract::Opaque,
            effort: Effort::Swap,
            measured: Measured::Alone(Box::new(options.spec(target.to_string(), &load))),
            agreement: Ok(()),
            cancel: runner.cancel().clone(),
            watch: &watch,
            profile: profiled.as_ref(),
        };
        let bound = options.spec(target.to_string(), &load).bound();
        let ran = run_table(runner, table, params, Duration::ZERO, bound, vec![run]);
        for note in profiled.iter().flat_map(|p| p.take_notes()) {
            runner.sink().note(&note);
        }
        ran?;
    }
    drop(server);
    watch.outcome().and(profiled.map_or(Ok(()), |p| p.outcome()))
}

/// The server `--server-cmd` starts, ready when GET of the target's path answers a 2xx, and
/// the target's URL with its port; without `--server-cmd`, the target as given.
fn start_target_server(
    options: &HttpOptions,
    target: &str,
) -> Result<(Option<jsoncost_conductor::ab_http::server::Server>, String), Error> {
    let Some(words) = &options.server_cmd else {
        if target.contains("{port}") {
            return Err(Error::usage(
                "--target names {port}, which only --server-cmd fills: give the server's command line",
            ));
        }
        return Ok((None, target.to_string()));
    };
    if !target.contains("{port}") {
        return Err(Error::usage(format!(
            "--server-cmd needs {{port}} in --target (e.g. http://127.0.0.1:{{port}}/items/1), where the server it starts listens: {target}"
        )));
    }
    if !words.iter().any(|w| w.contains("{port}")) {
        return Err(Error::usage(
            "--server-cmd needs {port} in one of its words: where the server should listen",
        ));
    }
    let path = target
        .replace("{port}", "0")
        .parse::<::http::Uri>()
        .map_err(|e| Error::usage(format!("--target {target}: {e}")))?
        .path_and_query()
        .map_or("/".to_string(), |p| p.to_string());
    let server = jsoncost_conductor::ab_http::server::launch("target", words, &path, SERVER_READY)?;
    let port = server.port.map(|p| p.to_string()).unwrap_or_default();
    let target = target.replace("{port}", &port);
    Ok((Some(server), target))
}

/// How long a server started by `--server-cmd` has to answer its first request.
const SERVER_READY: Duration = Duration::from_secs(60);

#[cfg(feature = "cli")]
/// `jsoncost http`'s flags.
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
    /// Also one request at a time, -n 1000 -c 1, as separate tables (the latency of one request).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub one_at_a_time: bool,
    /// Open model instead: this many requests per second (latency from the intended send time).
    #[arg(long, value_name = "REQ_PER_S", requires = "duration", value_parser = crate::flags::positive_rate)]
    pub rate: Option<f64>,
    /// Open model: how long to send, in seconds.
    #[arg(long, value_name = "SECONDS", requires = "rate")]
    pub duration: Option<crate::flags::Seconds>,
    /// Readings in each POST /telemetry body (1,000,000 is ~72 MB, the study's; --quick: at
    /// most 100,000; held in memory: 10,000,000 is ~720 MB).
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=10_000_000))]
    pub post_readings: u64,
    /// POST /telemetry requests per mode and concurrency (0 skips the POST tables; --quick: at most 4).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub post_requests: u64,
    /// Load-test this external http:// URL instead of the in-process API (no server columns).
    #[arg(long, value_name = "URL")]
    pub target: Option<String>,
    /// Start the target's server from this command line (split as a shell would, not run by
    /// one): `{port}` in it and in --target is a free port on 127.0.0.1. It is stopped at the end.
    #[arg(long, value_name = "CMD", requires = "target")]
    pub server_cmd: Option<crate::flags::CommandLine>,
    /// Sample the target's server with Linux perf during each load: its JSON share of CPU,
    /// split by direction, its top JSON call sites, a flamegraph. PID: the server's process;
    /// without it, the one --server-cmd started.
    #[arg(long, value_name = "PID", num_args = 0..=1, requires = "target")]
    pub profile: Option<Option<u32>>,
    /// Samples per second per server thread while profiling.
    #[arg(long, value_name = "HZ", default_value_t = jsoncost_conductor::profile::DEFAULT_FREQUENCY_HZ,
          value_parser = clap::value_parser!(u32).range(1..=20_000))]
    pub profile_hz: u32,
    /// How perf walks the stacks: dwarf (works on any release build) or fp (cheaper; whole only
    /// for code built with -C force-frame-pointers=yes).
    #[arg(long, value_name = "dwarf|fp", default_value = "dwarf", value_parser = ["dwarf", "fp"])]
    pub profile_stacks: String,
    /// Where the API reads items and lists (default: the embedded redb store).
    #[arg(long = "http-store", value_name = "URL")]
    pub http_store: Option<String>,
    /// The item cache: memory (an in-process moka cache) or redis://HOST:PORT.
    #[arg(long, default_value = "memory", value_name = "memory|URL")]
    pub cache: jsoncost_http::CacheConfig,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "30")]
    pub timeout: crate::flags::Seconds,
    /// A load run is lost once more than this share of its finished requests failed (judged
    /// from 20 on; 100% never): it stops, and no further run is started against that server.
    #[arg(long, value_name = "SHARE", default_value = "50%", value_parser = crate::flags::share)]
    pub max_error_share: f64,
    /// A load run is lost once no request has succeeded for this many seconds (default: twice
    /// --timeout).
    #[arg(long, value_name = "SECONDS")]
    pub max_stall: Option<crate::flags::Seconds>,
    /// Rounds of each table: its modes (or POST parses) are loaded together, each mode's -n
    /// requests (or --duration) split into this many slices, one per round, in an order
    /// shuffled per round; rows pair round by round (at least 2; fewer when -n per connection is).
    #[arg(long, default_value_t = crate::http::DEFAULT_ROUNDS as u64, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub http_rounds: u64,
    /// A GET table of at least --http-rounds requests per connection goes on with more rounds
    /// of the same slices, up to this many, until --http-precision or --http-budget.
    #[arg(long, default_value_t = crate::http::DEFAULT_MAX_ROUNDS as u64, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub http_max_rounds: u64,
    /// Those extra rounds stop once every mode's req/s ratio to typed/serde_json is known
    /// within this (99% interval's relative half-width); 0%: exactly -n requests per mode
    /// [default: 2%; in `run`: 0%].
    #[arg(long, value_name = "SHARE", value_parser = crate::flags::share)]
    pub http_precision: Option<f64>,
    /// No extra round of a table starts after this many seconds of it (default 10; --quick: 4).
    #[arg(long, value_name = "SECONDS")]
    pub http_budget: Option<crate::flags::Seconds>,
    /// Only run modes whose name matches this glob (typed/serde_json, typed/sonic-rs, typed/simd-json, passthrough).
    #[arg(long = "http-filter", value_name = "GLOB")]
    pub http_filter: Option<String>,
    /// Items per response on the list route as a size sweep, e.g. 1,10,48,200,1000: a list
    /// table per count and load (list-N/...), and in the report where the modes' verdicts
    /// change with the response's size (default: one list of 48 items).
    #[arg(long, value_name = "N,N,...", value_delimiter = ',', conflicts_with = "target",
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=jsoncost_http::server::MAX_LIST_COUNT as u64))]
    pub list_sizes: Vec<usize>,
}

#[cfg(feature = "cli")]
impl HttpArgs {
    /// The library's options these flags give (`quick`: fewer requests, shorter runs).
    pub fn options(&self, quick: bool) -> HttpOptions {
        HttpOptions {
            requests: self.requests,
            connections: self.connections,
            study_load: self.study_load,
            one_at_a_time: self.one_at_a_time,
            rate: self.rate,
            duration: self.duration.map(crate::flags::Seconds::duration),
            post_readings: self.post_readings,
            post_requests: self.post_requests,
            target: self.target.clone(),
            server_cmd: self.server_cmd.clone().map(|c| c.0),
            profile: self.profile.map(|pid| ProfileOptions {
                pid,
                settings: jsoncost_conductor::profile::ProfileSettings {
                    frequency_hz: self.profile_hz,
                    unwinding: if self.profile_stacks == "fp" {
                        jsoncost_engine::profile::Unwinding::Fp
                    } else {
                        jsoncost_engine::profile::Unwinding::Dwarf
                    },
                    ..Default::default()
                },
            }),
            store: self.http_store.clone(),
            cache: self.cache.clone(),
            timeout: self.timeout.duration(),
            loss: LossRule {
                max_error_share: self.max_error_share,
                max_stall: self.max_stall.map(crate::flags::Seconds::duration),
                first_server_error: false,
            },
            rounds: self.http_rounds as usize,
            max_rounds: self.http_max_rounds as usize,
            precision: self.http_precision.unwrap_or(DEFAULT_PRECISION),
            budget: self.http_budget.map_or(
                if quick {
                    crate::http::QUICK_BUDGET
                } else {
                    crate::http::DEFAULT_BUDGET
                },
                crate::flags::Seconds::duration,
            ),
            seed: jsoncost_engine::DEFAULT_SCHEDULE_SEED,
            list_sizes: {
                let mut sizes = self.list_sizes.clone();
                sizes.sort_unstable();
                sizes.dedup();
                sizes
            },
            quick,
        }
    }
}

#[cfg(feature = "cli")]
impl crate::flags::ExperimentArgs for HttpArgs {
    fn kind(&self) -> jsoncost_engine::ExperimentKind {
        jsoncost_engine::ExperimentKind::Http
    }

    fn run(
        &self,
        config: &jsoncost_engine::MeasureConfig,
        cancel: crate::cancel::Cancel,
        sink: &mut dyn crate::sink::Sink,
    ) -> Result<(), Error> {
        // Load runs measure themselves: the engine's settings are not used, but its lockstep
        // is (the slices take their turns in it).
        let runner = crate::flags::runner(
            &jsoncost_engine::MeasureConfig {
                lockstep: config.lockstep.clone(),
                ..jsoncost_engine::MeasureConfig::quick()
            },
            "--http-filter",
            self.http_filter.as_deref(),
            cancel,
            sink,
        );
        run(&self.options(config.quick), &mut runner?)
    }

    fn writes_files(&self) -> bool {
        self.profile.is_some()
    }

    /// Exactly `-n` requests per mode unless `--http-precision` is given, so the whole run keeps
    /// within its minutes; with `--quick` at most 1,000 and no load study.
    fn fit_whole_study(&mut self, quick: bool) {
        if quick {
            self.requests = self.requests.min(1_000);
            self.study_load = false;
        }
        self.http_precision.get_or_insert(0.0);
    }

    /// 100 requests a table on at most 4 connections, in 2 rounds; small POSTs; no
    /// one-at-a-time tables.
    fn debug_mode(&mut self) {
        self.requests = self.requests.min(100);
        self.connections = self.connections.min(4);
        self.one_at_a_time = false;
        self.post_readings = self.post_readings.min(1_000);
        self.post_requests = self.post_requests.min(2);
        self.http_rounds = 2;
        self.http_precision = Some(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_size_above_the_store_s_list_is_bad_input_naming_both() {
        assert!(check_list_sizes(&[1, 48, 200], 200, "redb:/tmp/s.redb").is_ok());
        let e = check_list_sizes(&[1, 201, 300], 200, "redb:/tmp/s.redb").unwrap_err();
        assert_eq!(
            (e.exit_code(), e.to_string()),
            (
                2,
                "--list-sizes 201: the list in redb:/tmp/s.redb holds 200 entries; ask for at most 200".to_string()
            )
        );
    }

    fn options(precision: f64) -> HttpOptions {
        HttpOptions {
            requests: 5000,
            connections: 100,
            study_load: true,
            one_at_a_time: true,
            rate: None,
            duration: None,
            post_readings: 1000,
            post_requests: 8,
            target: None,
            server_cmd: None,
            profile: None,
            store: None,
            cache: jsoncost_http::CacheConfig::Memory,
            timeout: Duration::from_secs(30),
            loss: LossRule::default(),
            rounds: DEFAULT_ROUNDS,
            max_rounds: DEFAULT_MAX_ROUNDS,
            precision,
            budget: QUICK_BUDGET,
            seed: 1,
            list_sizes: Vec::new(),
            quick: true,
        }
    }

    fn rounds_of(options: &HttpOptions, load: &Load) -> (Rounds, SliceLength) {
        let spec = options.slice_spec(vec![SliceTarget::get("a", "http://127.0.0.1:1/")], load, true, &Lockstep::alone());
        (spec.rounds, spec.length)
    }

    #[test]
    fn only_the_get_tables_of_n_go_on_for_precision_and_zero_precision_keeps_n_exactly() {
        let o = options(DEFAULT_PRECISION);
        let loads = o.loads();
        let labels: Vec<&str> = loads.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["n5000-c100", "n500-c100", "n1000-c1"]);
        let going_on = Rounds {
            min: 10,
            max: 100,
            precision: 0.02,
            budget: QUICK_BUDGET,
        };
        let exactly = |n| Rounds {
            min: n,
            max: n,
            precision: 0.0,
            budget: Duration::MAX,
        };
        assert_eq!(rounds_of(&o, &loads[0]), (going_on, SliceLength::Requests(500)));
        // The study's load is the point: 5 rounds of one request per connection, no more.
        assert_eq!(rounds_of(&o, &loads[1]), (exactly(5), SliceLength::Requests(100)));
        assert_eq!(rounds_of(&o, &loads[2]), (going_on, SliceLength::Requests(100)));
        let post = Load {
            label: String::new(),
            requests: 8,
            connections: 1,
            open: None,
            may_go_on: false,
        };
        assert_eq!(rounds_of(&o, &post), (exactly(8), SliceLength::Requests(1)));
        // A table of fewer requests per connection than rounds keeps its load too.
        let few = Load {
            label: String::new(),
            requests: 900,
            connections: 100,
            open: None,
            may_go_on: true,
        };
        assert_eq!(rounds_of(&o, &few), (exactly(9), SliceLength::Requests(100)));

        let exact = options(0.0);
        assert_eq!(rounds_of(&exact, &exact.loads()[0]), (exactly(10), SliceLength::Requests(500)));
        let open = HttpOptions {
            rate: Some(1000.0),
            duration: Some(Duration::from_secs(2)),
            ..options(DEFAULT_PRECISION)
        };
        let loads = open.loads();
        assert_eq!(loads.len(), 1);
        assert_eq!(
            rounds_of(&open, &loads[0]),
            (exactly(10), SliceLength::Time(Duration::from_millis(200)))
        );
    }
}
