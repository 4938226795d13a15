//! `jsoncost stream`: its flags, turned into the library's options (the experiment itself is
//! `jsoncost::stream`).

use jsoncost::stream::{Runs, StreamOptions};
use jsoncost_engine::{Config, ExperimentKind};
use std::path::PathBuf;

use super::table::{CliSink, Filter, runner};
use crate::failure::library;
use crate::progress::Progress;
use crate::session::Session;

#[derive(Debug, Clone, clap::Args)]
pub struct StreamArgs {
    /// Readings in the generated body (1,000,000 is ~72 MB); not with --file, which has its own.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=50_000_000), conflicts_with = "file")]
    pub readings: u64,
    /// Use this telemetry file instead of generating one (with --pointer: any JSON document).
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Stream the array at this JSON pointer of --file (RFC 6901, "" for a top-level array)
    /// instead of a telemetry body: DOM elements per library, and IgnoredAny for the framing alone.
    #[arg(long, value_name = "POINTER", requires = "file")]
    pub pointer: Option<String>,
    /// Chunk size of the incremental strategies, in KiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    pub chunk_kib: u64,
    /// Largest element the incremental strategies accept, in bytes (at least 1).
    #[arg(long, default_value_t = jsoncost_stream::DEFAULT_MAX_ELEMENT_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_element_bytes: usize,
    /// Largest --file the buffered strategies read whole, in MiB (they hold it several times
    /// over); over it they are skipped with the reason and the incremental ones still run.
    #[arg(long, value_name = "MIB", default_value_t = jsoncost::stream::DEFAULT_MAX_BUFFERED_MIB, value_parser = clap::value_parser!(u64).range(1..=17_592_186_044_415))]
    pub max_buffered_mib: u64,
    /// Rounds, each running every strategy once as a whole run, in an order shuffled per round
    /// (at least this many; the rows' ratios are paired round by round).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub runs: u32,
    /// At most this many rounds (default: 40; never fewer than --runs); more run while a row's
    /// paired ratio to the first is known less precisely than ±2% and the budget (8 s per
    /// strategy) lasts.
    #[arg(long, value_parser = clap::value_parser!(u32).range(2..=200))]
    pub max_runs: Option<u32>,
    /// Only time strategies whose name matches this glob.
    #[arg(long = "stream-filter", value_name = "GLOB")]
    pub stream_filter: Option<String>,
}

impl StreamArgs {
    pub fn options(&self, quick: bool) -> StreamOptions {
        StreamOptions {
            readings: self.readings,
            file: self.file.clone(),
            pointer: self.pointer.clone(),
            chunk_kib: self.chunk_kib,
            max_element_bytes: self.max_element_bytes,
            max_buffered_mib: self.max_buffered_mib,
            runs: match self.max_runs {
                Some(max) => Runs {
                    min: self.runs,
                    max: max.max(self.runs),
                },
                None => Runs::at_least(self.runs),
            },
            quick,
        }
    }
}

/// Runs the stream experiment into `session`: whole runs, scheduled as `config` says
/// (`--schedule`; its iteration settings are replaced by whole runs).
pub fn run(args: &StreamArgs, config: &Config, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--stream-filter", args.stream_filter.as_deref())?;
    let mut sink = CliSink::new(ExperimentKind::Stream, session, progress);
    jsoncost::stream::run(&args.options(config.quick), &mut runner(config, &filter, &mut sink)).map_err(library)
}
