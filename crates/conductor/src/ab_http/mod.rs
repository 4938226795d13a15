//! A/B of two builds of a user's own HTTP server, end to end (`jsoncost ab --http`): both
//! servers started (or reached), every request of the set sent once to each and the answers
//! compared (same status, JSON-equal bodies through the exact reference), then both loaded in
//! slices alternating between them on warm keep-alive connections (`loadgen::run_slices`, the one
//! slice scheduler), with each server's CPU (its process CPU clock) and RSS (`/proc`) read
//! around its slices. Each
//! request gives a table of two rows (`base`, `new`: req/s, latency percentiles, errors, CPU per
//! request, RSS growth; Ratio new/base paired round by round), and three paired quantities per
//! request for `report::ab`'s verdicts: time per request (the inverse of req/s), p99 latency
//! and server CPU per request.
//!
//! The tables are their own kind (`ExperimentKind::AbHttp`): the rows `base` and `new` with the
//! http figures, and the record [`jsoncost_engine::AbHttpTable`] (where each server ran, its
//! latency distribution, every slice), from which `jsoncost_report::ab_http` takes the paired
//! figures. Where the machine allows, the load generator and the servers started here run on
//! CPUs apart ([`pin`]).
//!
//! Every wait is bounded: the readiness probe by `ready_timeout`, the check by one timeout per
//! request and server, the load by `SliceSpec::bound`. A server that dies, stalls or answers a
//! 5xx mid-load loses the load at once ([`LossRule::first_server_error`], the stall rule, and a
//! server process found exited after a slice, whatever then answers on its port); what was
//! measured is kept and the outcome names the server. Servers started here are stopped and
//! reaped by their process group whatever happens.

use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use jsoncost_codecs::{Canonical, exact};
use jsoncost_engine::paired::{self, PAIRED_CONFIDENCE};
use jsoncost_engine::{
    AbHttpSide, AbHttpSlice, AbHttpTable, ExperimentKind, LATENCY_QUANTILES, LatencyPoint, MeasuredTable, Results, Schedule,
};
use jsoncost_http::ServerCost;
use jsoncost_http::loadgen::{self, LossRule, Rounds, Slice, SliceLength, SliceProbe, SliceRun, SliceSpec, SliceTarget, StopReason};
use jsoncost_http::proc_probe::ProcProbe;
use jsoncost_http::row::{sliced_rows, total_report};
use jsoncost_report::files::read_limited;
use serde_json::{Map, json};
use tokio_util::sync::CancellationToken;

use crate::Error;

pub mod pin;
pub mod server;

use pin::Plan;
use server::{Server, ready, start};

pub use server::{ServerSpec, kill_started_servers};

/// One request of the set.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// GET, POST ...
    pub method: http::Method,
    /// Path and query, from `/`.
    pub path: String,
    /// Sent with every request (empty for a GET).
    pub body: Bytes,
    /// The Content-Type header sent with the body.
    pub content_type: Option<String>,
}

impl Request {
    /// A GET of `path`.
    pub fn get(path: impl Into<String>) -> Request {
        Request {
            method: http::Method::GET,
            path: path.into(),
            body: Bytes::new(),
            content_type: None,
        }
    }

    /// `GET /items/1`.
    pub fn label(&self) -> String {
        format!("{} {}", self.method, self.path)
    }
}

/// The largest request set file read (`--requests`).
pub const REQUESTS_MAX_BYTES: u64 = 1 << 20;
/// The largest body file a request set names.
pub const BODY_MAX_BYTES: u64 = 256 << 20;

/// Reads the request set in `file` ([`parse_requests`]), at most [`REQUESTS_MAX_BYTES`], so a
/// device or a pipe that never ends is refused rather than read into memory.
pub fn read_requests(file: &Path) -> Result<Vec<Request>, Error> {
    let bytes = read_limited(file, REQUESTS_MAX_BYTES).map_err(|e| Error::usage(format!("reading --requests {}: {e}", file.display())))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        Error::usage(format!(
            "--requests {}: not UTF-8 text (byte {})",
            file.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    parse_requests(&text, file)
}

/// Parses a request set read from `file`: one request per line, `METHOD PATH [BODY_FILE
/// [CONTENT_TYPE]]` (whitespace apart; a body file is read relative to `file`'s directory, at
/// most [`BODY_MAX_BYTES`]; the content type defaults to `application/json` with a body);
/// blank lines and lines starting with `#` are skipped. An error names `file` and the line.
pub fn parse_requests(text: &str, file: &Path) -> Result<Vec<Request>, Error> {
    let dir = file.parent().unwrap_or(Path::new(""));
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |why: String| Error::usage(format!("{}, line {}: {why}: {line:?}", file.display(), n + 1));
        let words: Vec<&str> = line.split_whitespace().collect();
        let (method, path) = match words.as_slice() {
            [m, p, ..] => (*m, *p),
            _ => return Err(bad("expected METHOD PATH [BODY_FILE [CONTENT_TYPE]]".into())),
        };
        let method = http::Method::from_bytes(method.as_bytes()).map_err(|_| bad(format!("{method:?} is not an HTTP method")))?;
        if !path.starts_with('/') {
            return Err(bad(format!("the path {path:?} does not start with /")));
        }
        let body = match words.get(2) {
            Some(file) => {
                let file = dir.join(file);
                Bytes::from(read_limited(&file, BODY_MAX_BYTES).map_err(|e| bad(format!("reading the body {}: {e}", file.display())))?)
            }
            None => Bytes::new(),
        };
        let content_type = match (words.get(3), words.len() > 2) {
            (Some(ct), _) => Some(ct.to_string()),
            (None, true) => Some(jsoncost_http::mode::JSON_CONTENT_TYPE.to_string()),
            (None, false) => None,
        };
        if words.len() > 4 {
            return Err(bad("more than METHOD PATH BODY_FILE CONTENT_TYPE".into()));
        }
        out.push(Request {
            method,
            path: path.to_string(),
            body,
            content_type,
        });
    }
    if out.is_empty() {
        return Err(Error::usage(format!("{}: the request set is empty", file.display())));
    }
    Ok(out)
}

/// What to compare and how.
#[derive(Debug, Clone)]
pub struct AbHttpSettings {
    /// The base build's server.
    pub base: ServerSpec,
    /// The new build's server.
    pub new: ServerSpec,
    /// The request set: each verified, then loaded on both servers.
    pub requests: Vec<Request>,
    /// Readiness: GET of this path answered 2xx by each server, within `ready_timeout`.
    pub ready_path: String,
    /// How long each server has to become ready.
    pub ready_timeout: Duration,
    /// Compare both servers' answers before any load.
    pub verify: bool,
    /// Keep-alive connections per server and request.
    pub connections: usize,
    /// Open model: requests per second during each slice.
    pub rate: Option<f64>,
    /// Each slice's load.
    pub slice: SliceLength,
    /// Rounds, each giving every (request, server) one slice: how many, and when they stop
    /// (with a precision, once every request's time and server CPU per request, new/base, are
    /// known within it: `AbProbe`).
    pub rounds: Rounds,
    /// Per request, and the stall bound's unit (lost after twice it without a success).
    pub timeout: Duration,
    /// A server is lost once more than this share of its finished requests failed.
    pub max_error_share: f64,
    /// Seeds each round's order.
    pub seed: u64,
    /// Pin the load generator and the servers started here to CPUs apart, where the machine
    /// allows ([`pin::plan`]); false is `--no-pin`.
    pub pin: bool,
    /// The verdicts' threshold (a fraction), recorded with the tables.
    pub threshold: f64,
}

/// A measured A/B: the tables and the pairs `report::ab` decides from.
#[derive(Debug)]
pub struct AbHttp {
    /// One http A/B table per request (`ExperimentKind::AbHttp`), rows `base` and `new`
    /// (Ratio: new/base time per request, paired round by round) and its record
    /// ([`AbHttpTable`]); `jsoncost_report::ab_http::comparison` decides them.
    pub results: Results,
    /// The load stopped early (a server lost, Ctrl-C): exit 3 (or 130) once everything is
    /// written.
    pub failure: Option<Error>,
}

/// Sends `request` to `server` once: (status, body).
fn fetch(server: &Server, request: &Request, timeout: Duration, rt: &tokio::runtime::Runtime) -> Result<(u16, Bytes), Error> {
    let url = format!("{}{}", server.url, request.path);
    let content_type = request.content_type.as_deref();
    rt.block_on(loadgen::fetch(
        &url,
        request.method.clone(),
        request.body.clone(),
        content_type,
        timeout,
    ))
    .map_err(|e| Error::environment(format!("the {} server: {e}{}", server.name, server.stderr_tail())))
}

/// Where two answers' bodies first differ, or `None` when they are equal: through the exact
/// reference parser when both are JSON (numbers compared exactly), as bytes otherwise.
pub fn first_difference(base: &[u8], new: &[u8]) -> Option<String> {
    match (exact::parse(base), exact::parse(new)) {
        (Ok(b), Ok(n)) => match Canonical::Full(n).compare_with(&b) {
            Err(at) => Some(at),
            Ok(fidelity) => fidelity
                .first
                .first()
                .map(|d| format!("at {}: {} in base, {} in new", pointer(&d.pointer), d.exact, d.got)),
        },
        (Ok(_), Err(e)) => Some(format!("new's body is not JSON ({e})")),
        (Err(e), Ok(_)) => Some(format!("base's body is not JSON ({e})")),
        (Err(_), Err(_)) => (base != new).then(|| {
            let at = base.iter().zip(new).position(|(a, b)| a != b).unwrap_or(base.len().min(new.len()));
            format!("neither body is JSON; as bytes they differ at byte {at}")
        }),
    }
}

fn pointer(p: &str) -> &str {
    if p.is_empty() { "the root" } else { p }
}

/// Every request to both servers, answers compared: bad input (exit 2) naming the request and
/// where the answers differ.
fn verify(servers: &[Server; 2], requests: &[Request], timeout: Duration, rt: &tokio::runtime::Runtime) -> Result<(), Error> {
    for (i, request) in requests.iter().enumerate() {
        let (bs, bb) = fetch(&servers[0], request, timeout, rt)?;
        let (ns, nb) = fetch(&servers[1], request, timeout, rt)?;
        let which = format!("request {} ({})", i + 1, request.label());
        if bs != ns {
            return Err(Error::usage(format!(
                "{which}: base answered status {bs}, new {ns}; nothing was timed"
            )));
        }
        if let Some(at) = first_difference(&bb, &nb) {
            return Err(Error::usage(format!("{which}: the answers differ {at}; nothing was timed")));
        }
    }
    Ok(())
}

/// Runs the A/B. `Err`: nothing was measured (a server that does not start or answer, answers
/// that differ). A load stopped early still returns what was measured, with its `failure`.
/// `note` hears, as it happens, what the reader is told: where the servers run and are pinned,
/// what was verified, when the load will have ended.
pub fn run(settings: &AbHttpSettings, interrupted: &(dyn Fn() -> bool + Sync), note: &mut dyn FnMut(String)) -> Result<AbHttp, Error> {
    if settings.requests.is_empty() {
        return Err(Error::usage("no request to send"));
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::environment(format!("starting a runtime: {e}")))?;
    let started = [&settings.base, &settings.new].iter().any(|s| matches!(s, ServerSpec::Command(_)));
    let plan = Plan::here(settings.pin, started);
    let mut servers = [start("base", &settings.base, &plan)?, start("new", &settings.new, &plan)?];
    for server in servers.iter_mut() {
        ready(server, &settings.ready_path, settings.ready_timeout, &rt)?;
    }
    note(format!("ab --http: base on {}, new on {}", servers[0].url, servers[1].url));
    note(plan.note());
    if settings.verify {
        verify(&servers, &settings.requests, settings.timeout, &rt)?;
        note(format!(
            "verified: each of the {} requests answered by both servers with the same status and equal bodies (JSON compared exactly)",
            settings.requests.len()
        ));
    } else {
        note("not verified (--no-verify): the answers were not compared".to_string());
    }
    // The load runs on a runtime of its own.
    drop(rt);
    let targets: Vec<SliceTarget> = settings
        .requests
        .iter()
        .flat_map(|r| {
            servers.iter().map(move |s| {
                let t = SliceTarget {
                    method: r.method.clone(),
                    body: r.body.clone(),
                    ..SliceTarget::get(s.name, format!("{}{}", s.url, r.path))
                };
                match &r.content_type {
                    Some(ct) => SliceTarget {
                        content_type: Some(ct.clone()),
                        ..t
                    },
                    None => t,
                }
            })
        })
        .collect();
    let spec = SliceSpec {
        rate: settings.rate,
        length: settings.slice,
        rounds: settings.rounds,
        seed: settings.seed,
        timeout: settings.timeout,
        loss: LossRule {
            max_error_share: settings.max_error_share,
            max_stall: None,
            // A 5xx or a refused connection mid-load: the server is failing, not measured.
            first_server_error: true,
        },
        warmup: true,
        ..SliceSpec::closed(targets, settings.connections)
    };
    note(format!("load ends within {} s", spec.bound().as_secs()));
    let pids = settings.requests.iter().flat_map(|_| servers.iter().map(|s| s.pid)).collect();
    let mut probe = AbProbe(ProcProbe::new(pids));
    let cancel = CancellationToken::new();
    let done = std::sync::atomic::AtomicBool::new(false);
    let run = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                if interrupted() {
                    cancel.cancel();
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        // The load generator's one thread (a current-thread runtime on this one) on its CPU.
        let pinned = match &plan {
            Plan::Pin { load_generator, .. } => Some(crate::ab::affinity::ThreadPin::new(load_generator).map_err(|e| {
                Error::environment(format!(
                    "pinning the load generator to {}: {e} (--no-pin runs without pinning)",
                    pin::cpus(load_generator)
                ))
            })),
            Plan::None(_) => None,
        }
        .transpose();
        let run = match pinned {
            Ok(_pin) => loadgen::run_slices(&spec, &mut probe, &cancel).map_err(|e| Error::environment(e.to_string())),
            Err(e) => Err(e),
        };
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = watcher.join();
        run
    })?;
    let precision = settings.rounds.precision;
    if precision > 0.0 && run.stop == StopReason::Completed {
        note(if probe.known_within(&run, precision) {
            format!(
                "{} rounds: every request's time and server CPU per request known within ±{}",
                run.rounds,
                jsoncost_report::units::percent(precision)
            )
        } else {
            format!(
                "{} rounds, the most: not every request's time and server CPU per request is known within ±{} (the tables give each interval)",
                run.rounds,
                jsoncost_report::units::percent(precision)
            )
        });
    }
    let failure = match (run.stop, run.lost) {
        (_, Some(lost)) => {
            let server = &mut servers[lost.target % 2];
            let gone = server.exited().map(|s| format!(" (it exited: {s})")).unwrap_or_default();
            Some(Error::environment(format!(
                "the {} server was lost during the load ({}): {}{gone}{}",
                server.name,
                settings.requests[lost.target / 2].label(),
                lost.loss,
                server.stderr_tail()
            )))
        }
        (StopReason::Cancelled, _) => Some(Error::Interrupted),
        (StopReason::TimeCap, _) => Some(Error::environment("a slice of the load did not end within its bound")),
        _ => None,
    };
    for s in servers.iter_mut() {
        s.stop();
    }
    let mut results = tables(settings, &servers, &run);
    // What was measured before a Ctrl-C is written, marked as such.
    results.interrupted = matches!(failure, Some(Error::Interrupted));
    Ok(AbHttp { results, failure })
}

/// The servers' `/proc` figures around each slice, and the rounds' precision rule of an A/B:
/// targets pair per request (base `2i`, new `2i + 1`), and both time per request and server
/// CPU per request (where the servers' processes are known) must be known within the
/// precision, as `report::ab` computes their intervals.
struct AbProbe(ProcProbe);

impl SliceProbe for AbProbe {
    type Sample = Option<ServerCost>;

    fn begin(&mut self, target: usize) {
        self.0.begin(target)
    }

    fn end(&mut self, target: usize, report: &loadgen::LoadReport) -> Option<ServerCost> {
        self.0.end(target, report)
    }

    fn exited(&self, target: usize) -> Option<u32> {
        self.0.exited(target)
    }

    fn known_within(&self, run: &SliceRun<Option<ServerCost>>, precision: f64) -> bool {
        let within = |base: Vec<f64>, new: Vec<f64>| {
            paired::log_ratio(&base, &new, PAIRED_CONFIDENCE).is_some_and(|i| i.relative_half_width() < precision)
        };
        let cpu = |t: usize| -> Option<Vec<f64>> {
            run.targets[t]
                .paired(run.rounds)
                .iter()
                .map(|s| s.server.as_ref().and_then(ServerCost::cpu_ns_per_request))
                .collect()
        };
        (0..run.targets.len() / 2).all(|i| {
            let (base, new) = (2 * i, 2 * i + 1);
            let cpu_known = match (cpu(base), cpu(new)) {
                (Some(b), Some(n)) => within(b, n),
                // Not read for this pair (a server reached by URL without its PID).
                _ => true,
            };
            within(run.rounds_ns(base), run.rounds_ns(new)) && cpu_known
        })
    }
}

/// The tables of a measured run: per request, the two servers' rows and its record.
fn tables(settings: &AbHttpSettings, servers: &[Server; 2], run: &SliceRun<Option<ServerCost>>) -> Results {
    let mut results = jsoncost_codecs::build::new_results(false);
    for (i, request) in settings.requests.iter().enumerate() {
        // The request's two targets alone, so the rows' paired ratios are new to base.
        let pair = SliceRun {
            targets: run.targets[2 * i..2 * i + 2].to_vec(),
            orders: Vec::new(),
            lost: run.lost.filter(|l| l.target / 2 == i).map(|mut l| {
                l.target %= 2;
                l
            }),
            ..run.clone()
        };
        let mut exp = MeasuredTable::new(ExperimentKind::AbHttp, request.label());
        exp.params = params(settings);
        exp.rows = sliced_rows(&pair);
        if exp.rows.iter().any(|r| !r.rounds_ns.is_empty()) {
            exp.schedule = Schedule::Interleaved;
        }
        let side = |s: usize| {
            let target = &pair.targets[s];
            // The row's slices: the paired ones, or all of a lost server's (its row says why).
            let lost_here = pair.lost.is_some_and(|l| l.target == s);
            let measured = if lost_here {
                &target.slices[..]
            } else {
                target.paired(pair.rounds)
            };
            AbHttpSide {
                server: servers[s].described.clone(),
                pid: servers[s].pid,
                placement: servers[s].placement.clone(),
                latency: latency(measured),
                slices: target.slices.iter().map(slice).collect(),
            }
        };
        exp.ab_http = Some(AbHttpTable {
            request: request.label(),
            threshold: settings.threshold,
            rounds: pair.rounds,
            base: side(0),
            new: side(1),
        });
        exp.finish();
        results.experiments.push(exp);
    }
    results
}

/// The latency distribution over `slices` (every response of them) at [`LATENCY_QUANTILES`]:
/// the ends are the exact minimum and maximum.
fn latency(slices: &[Slice<Option<ServerCost>>]) -> Vec<LatencyPoint> {
    let Some(total) = total_report(slices) else { return Vec::new() };
    LATENCY_QUANTILES
        .iter()
        .filter_map(|&q| {
            let ns = match q {
                0.0 => total.min_ns(),
                1.0 => total.max_ns(),
                q => total.quantile_ns(q),
            }?;
            Some(LatencyPoint {
                quantile: q,
                ns: ns as f64,
            })
        })
        .collect()
}

/// One slice's own figures.
fn slice(s: &Slice<Option<ServerCost>>) -> AbHttpSlice {
    let cost = s.server.as_ref();
    AbHttpSlice {
        round: s.round as u64,
        requests: s.report.requests,
        ok: s.report.ok,
        ns_per_request: Some(s.ns_per_request()).filter(|v| v.is_finite()),
        p50_ns: s.report.quantile_ns(0.5).map(|v| v as f64),
        p99_ns: s.report.quantile_ns(0.99).map(|v| v as f64),
        cpu_ns_per_request: cost.and_then(ServerCost::cpu_ns_per_request),
        rss_growth_bytes: cost.and_then(|c| c.rss).map(|r| r.growth_bytes),
    }
}

/// What every table of the A/B was measured with.
fn params(settings: &AbHttpSettings) -> Map<String, serde_json::Value> {
    let describe = |s: &ServerSpec| match s {
        ServerSpec::Command(words) => words.join(" "),
        ServerSpec::Running { url, .. } => url.clone(),
    };
    let mut p = Map::new();
    p.insert("base".into(), json!(describe(&settings.base)));
    p.insert("new".into(), json!(describe(&settings.new)));
    p.insert("connections".into(), json!(settings.connections));
    match settings.slice {
        SliceLength::Time(d) => p.insert("slice_s".into(), json!(d.as_secs_f64())),
        SliceLength::Requests(n) => p.insert("slice_requests".into(), json!(n)),
    };
    if let Some(rate) = settings.rate {
        p.insert("rate".into(), json!(rate));
    }
    let r = settings.rounds;
    if r.min == r.max {
        p.insert("rounds".into(), json!(r.min));
    } else {
        p.insert("min_rounds".into(), json!(r.min));
        p.insert("max_rounds".into(), json!(r.max));
        p.insert("precision".into(), json!(r.precision));
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_differ_by_pointer_and_numbers_exactly() {
        assert_eq!(first_difference(br#"{"a":[1,2]}"#, br#"{"a": [1, 2]}"#), None);
        assert_eq!(
            first_difference(br#"{"a":[1,2],"b":"x"}"#, br#"{"a":[1,3],"b":"x"}"#).as_deref(),
            Some("at /a/1: expected 2, got 3")
        );
        assert!(
            first_difference(br#"{"a":1}"#, b"oops")
                .unwrap()
                .starts_with("new's body is not JSON")
        );
        assert_eq!(first_difference(b"abc", b"abc"), None);
        assert_eq!(
            first_difference(b"abc", b"abd").as_deref(),
            Some("neither body is JSON; as bytes they differ at byte 2")
        );
    }

    /// A slice of `requests` requests at `ns` each, the server spending `cpu` ns of CPU on each.
    fn slice(round: usize, ns: f64, cpu: Option<f64>) -> Slice<Option<ServerCost>> {
        let requests = 1000;
        let report = loadgen::LoadReport {
            url: String::new(),
            model: loadgen::Model::Closed { requests: u64::MAX },
            connections: 1,
            requests,
            ok: requests,
            errors: Default::default(),
            status_codes: Default::default(),
            latency: loadgen::new_histogram(),
            uncorrected_latency: loadgen::new_histogram(),
            response_bytes: 0,
            elapsed: Duration::from_nanos((ns * requests as f64) as u64),
            stop: StopReason::Completed,
            lost: None,
            unsent: 0,
        };
        let server = cpu.map(|c| ServerCost {
            requests,
            allocated_bytes: None,
            allocs: None,
            peak_bytes: None,
            cpu_ns: Some((c * requests as f64) as u64),
            rss: None,
            wall: report.elapsed,
        });
        Slice { round, report, server }
    }

    /// Two requests' targets (base, new, base, new) over 10 rounds, from each target's time and
    /// CPU per request in round `r`.
    fn run_of(figure: impl Fn(usize, usize) -> (f64, Option<f64>)) -> SliceRun<Option<ServerCost>> {
        let rounds = 10;
        SliceRun {
            targets: (0..4)
                .map(|t| loadgen::TargetSlices {
                    name: t.to_string(),
                    url: String::new(),
                    slices: (0..rounds)
                        .map(|r| {
                            let (ns, cpu) = figure(t, r);
                            slice(r, ns, cpu)
                        })
                        .collect(),
                })
                .collect(),
            rounds,
            orders: Vec::new(),
            stop: StopReason::Completed,
            lost: None,
            elapsed: Duration::ZERO,
        }
    }

    #[test]
    fn rounds_stop_once_each_requests_time_and_cpu_new_to_base_are_known_within_the_precision() {
        // The machine's speed of the round moves every target alike; new is 10% faster than
        // base on both requests; the second request is 50× the first and moves on its own.
        let drift = |r: usize| 1.0 + 0.2 * ((r * 7 % 5) as f64 - 2.0) / 2.0;
        let own = |r: usize| 1.0 + 0.3 * ((r * 3 % 4) as f64 - 1.5) / 1.5;
        let time = |t: usize, r: usize| {
            let request = if t < 2 { 10_000.0 } else { 500_000.0 * own(r) };
            request * drift(r) * if t % 2 == 1 { 0.9 } else { 1.0 }
        };
        let probe = AbProbe(ProcProbe::new(Vec::new()));
        let tight = run_of(|t, r| (time(t, r), Some(time(t, r) / 2.0)));
        assert!(probe.known_within(&tight, 0.025));
        // The default rule pairs every target with the first: across requests, never known.
        assert!(!tight.ratios_to_first_within(0.025));
        // The second request's CPU new/base varies ±20% round to round: not known yet.
        let cpu_apart = run_of(|t, r| {
            let cpu = time(t, r) / 2.0;
            (time(t, r), Some(if t == 3 { cpu * (1.0 + 0.2 * (r % 2) as f64) } else { cpu }))
        });
        assert!(!probe.known_within(&cpu_apart, 0.025));
        // Without the servers' CPU (reached by URL, no PID), time alone decides.
        let no_cpu = run_of(|t, r| (time(t, r), None));
        assert!(probe.known_within(&no_cpu, 0.025));
        // Time per request new/base varying ±20% on the first request: not known.
        let time_apart = run_of(|t, r| {
            let ns = time(t, r) * if t == 1 { 1.0 + 0.2 * (r % 2) as f64 } else { 1.0 };
            (ns, Some(time(t, r) / 2.0))
        });
        assert!(!probe.known_within(&time_apart, 0.025));
    }

    #[test]
    fn a_request_set_reads_one_request_per_line() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let body = dir.join("body.json");
        std::fs::write(&body, b"{}").unwrap();
        let text = format!(
            "# comment\n\nGET /items/1\nPOST /telemetry {}\n",
            body.file_name().unwrap().to_str().unwrap()
        );
        let set = dir.join("requests.txt");
        let r = parse_requests(&text, &set).unwrap();
        std::fs::remove_file(&body).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!((r[0].label(), r[0].content_type.as_deref()), ("GET /items/1".to_string(), None));
        assert_eq!(
            (r[1].label(), r[1].body.as_ref(), r[1].content_type.as_deref()),
            ("POST /telemetry".to_string(), &b"{}"[..], Some("application/json"))
        );
        let e = parse_requests("GET items\n", Path::new("/x/set.txt")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/x/set.txt, line 1: the path \"items\" does not start with /: \"GET items\""
        );
        assert_eq!(
            parse_requests("# none\n", Path::new("set.txt")).unwrap_err().to_string(),
            "set.txt: the request set is empty"
        );
    }

    #[test]
    fn a_request_set_that_never_ends_is_refused_after_its_limit() {
        assert_eq!(
            read_requests(Path::new("/dev/zero")).unwrap_err().to_string(),
            format!("reading --requests /dev/zero: it holds more than {REQUESTS_MAX_BYTES} bytes")
        );
    }
}
