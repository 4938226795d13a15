//! `jsoncost http`: its flags, turned into the library's options (the experiment itself is
//! `jsoncost::http`).

use jsoncost::http::HttpOptions;
use jsoncost_engine::{Config, ExperimentKind};
use jsoncost_http::loadgen::LossRule;

use super::table::{CliSink, Filter, runner};
use crate::args::{Seconds, positive_rate, share};
use crate::failure::library;
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
    /// Also one request at a time, -n 1000 -c 1, as separate tables (the latency of one request).
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub one_at_a_time: bool,
    /// Open model instead: this many requests per second (latency from the intended send time).
    #[arg(long, value_name = "REQ_PER_S", requires = "duration", value_parser = positive_rate)]
    pub rate: Option<f64>,
    /// Open model: how long to send, in seconds.
    #[arg(long, value_name = "SECONDS", requires = "rate")]
    pub duration: Option<Seconds>,
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
    /// Where the API reads items and lists (default: the embedded redb store).
    #[arg(long = "http-store", value_name = "URL")]
    pub http_store: Option<String>,
    /// The item cache: memory (an in-process moka cache) or redis://HOST:PORT.
    #[arg(long, default_value = "memory", value_name = "memory|URL")]
    pub cache: jsoncost_http::CacheConfig,
    /// Per-request timeout in seconds.
    #[arg(long, value_name = "SECONDS", default_value = "30")]
    pub timeout: Seconds,
    /// A load run is lost once more than this share of its finished requests failed (judged
    /// from 20 on; 100% never): it stops, and no further run is started against that server.
    #[arg(long, value_name = "SHARE", default_value = "50%", value_parser = share)]
    pub max_error_share: f64,
    /// A load run is lost once no request has succeeded for this many seconds (default: twice
    /// --timeout).
    #[arg(long, value_name = "SECONDS")]
    pub max_stall: Option<Seconds>,
    /// Rounds of each table: its modes (or POST parses) are loaded together, each mode's -n
    /// requests (or --duration) split into this many slices, one per round, in an order
    /// shuffled per round; rows pair round by round (at least 2; fewer when -n per connection is).
    #[arg(long, default_value_t = jsoncost::http::DEFAULT_ROUNDS as u64, value_parser = clap::value_parser!(u64).range(2..=1000))]
    pub http_rounds: u64,
    /// Only run modes whose name matches this glob (typed/serde_json, typed/sonic-rs, passthrough).
    #[arg(long = "http-filter", value_name = "GLOB")]
    pub http_filter: Option<String>,
}

impl HttpArgs {
    pub fn options(&self, quick: bool) -> HttpOptions {
        HttpOptions {
            requests: self.requests,
            connections: self.connections,
            study_load: self.study_load,
            one_at_a_time: self.one_at_a_time,
            rate: self.rate,
            duration: self.duration.map(Seconds::duration),
            post_readings: self.post_readings,
            post_requests: self.post_requests,
            target: self.target.clone(),
            store: self.http_store.clone(),
            cache: self.cache.clone(),
            timeout: self.timeout.duration(),
            loss: LossRule {
                max_error_share: self.max_error_share,
                max_stall: self.max_stall.map(Seconds::duration),
                first_server_error: false,
            },
            rounds: self.http_rounds as usize,
            seed: jsoncost_engine::DEFAULT_SCHEDULE_SEED,
            quick,
        }
    }
}

/// Runs the http experiment into `session`.
pub fn run(args: &HttpArgs, quick: bool, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--http-filter", args.http_filter.as_deref())?;
    let mut sink = CliSink::new(ExperimentKind::Http, session, progress);
    // Load runs measure themselves: the engine's settings are not used.
    let config = Config::quick();
    jsoncost::http::run(&args.options(quick), &mut runner(&config, &filter, &mut sink)).map_err(library)
}
