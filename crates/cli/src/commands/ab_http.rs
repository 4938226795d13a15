//! `jsoncost ab --http`: two builds of the user's own server A/B'd end to end (`jsoncost_conductor::ab_http`):
//! started from `--base-cmd`/`--new-cmd` (or reached at `--base-url`/`--new-url`), answers
//! verified equal, loaded in slices alternating between them, and every row decided as `ab`
//! decides (`jsoncost_report::ab`). Exit codes as `ab`: 0, 1 a worse row, 2 bad input (answers
//! that differ, a bad request file), 3 a server that does not start, dies, stalls or answers 5xx
//! (results written first), 130 interrupted.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::anyhow;
use jsoncost_conductor::ab_http::{AbHttpSettings, Request, ServerSpec, read_requests};
use jsoncost_http::loadgen::{Rounds, SliceLength};
use jsoncost_report::{Format, ab};

use crate::failure::{library, usage};
use crate::interrupt;
use crate::session::print_stdout;
use jsoncost::flags::{Seconds, positive_rate, share};

/// The flags of `ab` that `--http` reads too (`AbArgs` embeds [`AbHttpArgs`], so this module
/// takes them as values rather than reading `AbArgs`).
#[derive(Debug, Clone)]
pub struct AbCommon {
    /// Slices per request and server (`--rounds`): exactly this many, or, not given, from
    /// [`HTTP_MIN_ROUNDS`] on until `--precision`.
    pub rounds: Option<u64>,
    /// Smallest change to detect (`--threshold`).
    pub threshold: f64,
    /// Accept rows lost in new (`--allow-missing`).
    pub allow_missing: bool,
    /// What stdout carries (`--format`).
    pub format: Format,
}

#[derive(Debug, Clone, clap::Args)]
pub struct AbHttpArgs {
    /// With --http: the base server's command line, `{port}` where its port goes (no shell
    /// runs it), e.g. `'./old-server --listen 127.0.0.1:{port}'`.
    #[arg(long, value_name = "CMD", conflicts_with = "base_url")]
    pub base_cmd: Option<String>,
    /// With --http: the new server's command line, as --base-cmd.
    #[arg(long, value_name = "CMD", conflicts_with = "new_url")]
    pub new_cmd: Option<String>,
    /// With --http: a base server already running, e.g. http://127.0.0.1:8080.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// With --http: a new server already running.
    #[arg(long, value_name = "URL")]
    pub new_url: Option<String>,
    /// With --base-url: the base server's PID, for its CPU and RSS (from /proc).
    #[arg(long, value_name = "PID", requires = "base_url")]
    pub base_pid: Option<u32>,
    /// With --new-url: the new server's PID.
    #[arg(long, value_name = "PID", requires = "new_url")]
    pub new_pid: Option<u32>,
    /// With --http: the one request sent (GET of this path), unless --requests is given.
    #[arg(long, value_name = "PATH", default_value = "/")]
    pub path: String,
    /// With --http: the request set, one request per line: `METHOD PATH [BODY_FILE
    /// [CONTENT_TYPE]]` (a body file relative to this file; content type application/json by
    /// default); blank lines and `#` comments skipped.
    #[arg(long, value_name = "FILE")]
    pub requests: Option<PathBuf>,
    /// With --http: a server is ready once GET of this path answers 2xx (default: the first
    /// request's path when it is a GET, else /).
    #[arg(long, value_name = "PATH")]
    pub ready_path: Option<String>,
    /// With --http: how long each server has to become ready, in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "10")]
    pub ready_timeout: Seconds,
    /// With --http: do not compare the two servers' answers before the load (said in the output).
    #[arg(long)]
    pub no_verify: bool,
    /// With --http: keep-alive connections per server and request.
    #[arg(short = 'c', long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub connections: u64,
    /// With --http: open model, this many requests per second during each slice (latency from
    /// the intended send time).
    #[arg(long, value_name = "REQ_PER_S", value_parser = positive_rate)]
    pub rate: Option<f64>,
    /// With --http: each slice's length in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "0.1", conflicts_with = "slice_requests")]
    pub slice: Seconds,
    /// With --http: each slice as a number of requests instead.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub slice_requests: Option<u64>,
    /// With --http: per-request timeout in seconds; a server without a success for twice this
    /// is lost.
    #[arg(long, value_name = "SECONDS", default_value = "2")]
    pub request_timeout: Seconds,
    /// With --http: a server is lost once more than this share of its finished requests failed.
    #[arg(long, value_name = "SHARE", default_value = "50%", value_parser = share)]
    pub max_error_share: f64,
    /// With --http: do not pin. By default, where this process may run on two CPUs or more,
    /// the load generator (one thread) runs on the first and the servers started from
    /// --base-cmd/--new-cmd on the rest (said on stderr and recorded per server in results.json);
    /// servers reached by --base-url/--new-url are never re-pinned. (--cpu is for two builds'
    /// experiments, not --http.)
    #[arg(long)]
    pub no_pin: bool,
    /// With --http and no --rounds: the rounds go on past 150 until every request's time per
    /// request and server CPU per request, new/base, are known within this (half-width of the
    /// 99% paired interval), at most 600 rounds (the load's bound is printed first).
    #[arg(long, value_name = "SHARE", default_value = "2.5%", value_parser = share, conflicts_with = "rounds")]
    pub precision: f64,
    /// With --http: write the tables (results.json) here, also when the load stopped early.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

/// The fewest rounds without `--rounds`: 150 slices of 0.1 s per server and request (30 s of
/// load each). Short slices keep the two sides of a pair close in time, so a slowdown of the
/// machine lasting a second or so lands on both (docs/measurements.md, `ab --http`).
pub const HTTP_MIN_ROUNDS: usize = 150;

/// The most rounds without `--rounds`: where `--precision` is not reached, the load ends after
/// 600 (4 minutes for two requests of 0.1 s slices) and the intervals say how wide they are.
pub const HTTP_MAX_ROUNDS: usize = 600;

fn side(name: &str, cmd: &Option<String>, url: &Option<String>, pid: Option<u32>) -> anyhow::Result<ServerSpec> {
    match (cmd, url) {
        (Some(cmd), None) => {
            let words: jsoncost::flags::CommandLine = cmd.parse().map_err(|e| usage(anyhow!("--{name}-cmd {e}")))?;
            Ok(ServerSpec::Command(words.0))
        }
        (None, Some(url)) => Ok(ServerSpec::Running { url: url.clone(), pid }),
        _ => Err(usage(anyhow!("--http needs --{name}-cmd CMD or --{name}-url URL"))),
    }
}

/// Runs the http A/B and prints it; the comparison decides the exit (`ab`'s `verdict`). A
/// server lost mid-load is an error here, after the results are written and printed.
pub fn run(args: &AbHttpArgs, common: &AbCommon) -> anyhow::Result<ab::AbComparison> {
    let base = side("base", &args.base_cmd, &args.base_url, args.base_pid)?;
    let new = side("new", &args.new_cmd, &args.new_url, args.new_pid)?;
    let requests = match &args.requests {
        Some(file) => read_requests(file).map_err(library)?,
        None => vec![Request::get(args.path.clone())],
    };
    let ready_path = args.ready_path.clone().unwrap_or_else(|| match requests.first() {
        Some(r) if r.method.as_str() == "GET" => r.path.clone(),
        _ => "/".to_string(),
    });
    let settings = AbHttpSettings {
        base,
        new,
        requests,
        ready_path,
        ready_timeout: args.ready_timeout.duration(),
        verify: !args.no_verify,
        connections: args.connections as usize,
        rate: args.rate,
        slice: match args.slice_requests {
            Some(n) => SliceLength::Requests(n),
            None => SliceLength::Time(args.slice.duration()),
        },
        rounds: match common.rounds {
            Some(n) => Rounds {
                min: n as usize,
                max: n as usize,
                precision: 0.0,
                budget: Duration::MAX,
            },
            None => Rounds {
                min: HTTP_MIN_ROUNDS,
                max: HTTP_MAX_ROUNDS,
                precision: args.precision,
                budget: Duration::MAX,
            },
        },
        timeout: args.request_timeout.duration(),
        max_error_share: args.max_error_share,
        seed: jsoncost_engine::DEFAULT_SCHEDULE_SEED,
        pin: !args.no_pin,
        threshold: common.threshold,
    };
    let measured =
        jsoncost_conductor::ab_http::run(&settings, &interrupt::interrupted, &mut |note| eprintln!("{note}")).map_err(library)?;
    if let Some(path) = &args.out {
        jsoncost::output::write_results_of(&measured.results, path).map_err(library)?;
    }
    let comparison = jsoncost_report::ab_http::comparison(&measured.results.experiments)
        .unwrap_or_else(|| ab::ab(&[], common.threshold))
        .allowing_missing(common.allow_missing);
    // One document in a document's format (JSON, CSV, HTML, JUnit), so stdout parses.
    print_stdout(&common.format.exporter().ab_http(&measured.results, &comparison, false))?;
    if let Some(failure) = measured.failure {
        return Err(library(failure));
    }
    Ok(comparison)
}
