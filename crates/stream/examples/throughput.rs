//! Incremental vs whole-buffer throughput on the telemetry shape, per library.
//!
//! `cargo run --release -p jsoncost-stream --example throughput -- [READINGS] [RUNS]`
//! (defaults: 1,000,000 readings, ~72 MB, and 5 runs; prints the median and the best run).
//!
//! Two comparisons, each against the same library's `from_slice` of the whole buffer into
//! `Telemetry` (simd-json includes the copy it needs to parse a mutable buffer):
//! - `file`: what the `stream` experiment measures. buffered = `fs::read` of a generated file
//!   (in the page cache) + `from_slice`; incremental = the same `File` read in 64 KiB chunks.
//! - `memory`: the parse work alone. buffered = `from_slice` of bytes already in memory;
//!   incremental reads those bytes through `&[u8]` as a `Read` (so it also pays one copy).
//!
//! `incremental` collects `Vec<Reading>`; `aggregate` keeps running stats only. Runs are
//! interleaved (every strategy once per round) so a noisy neighbour slows all alike.

use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

use jsoncost_shapes::{DEFAULT_SEED, Reading, Telemetry, write_telemetry};
use jsoncost_stream::{Config, Library, TelemetryAggregate};

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    runs[runs.len() / 2]
}

fn best(runs: Vec<Duration>) -> Duration {
    runs.into_iter().min().expect("at least one run")
}

fn timed<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

fn from_slice(lib: Library, doc: &[u8]) -> Telemetry {
    match lib {
        Library::SerdeJson => serde_json::from_slice(doc).expect("valid"),
        Library::SonicRs => sonic_rs::from_slice(doc).expect("valid"),
        Library::SimdJson => simd_json::serde::from_slice(&mut doc.to_vec()).expect("valid"),
    }
}

/// Where the bytes come from.
#[derive(Clone, Copy)]
enum Source<'a> {
    File(&'a Path),
    Memory(&'a [u8]),
}

impl Source<'_> {
    fn buffered(self, lib: Library) -> Telemetry {
        match self {
            Source::File(path) => from_slice(lib, &std::fs::read(path).expect("readable file")),
            Source::Memory(doc) => from_slice(lib, doc),
        }
    }
}

fn incremental(source: Source<'_>, config: &Config) -> Vec<Reading> {
    match source {
        Source::File(path) => config
            .reader::<Reading, _>(File::open(path).expect("readable file"))
            .collect::<Result<_, _>>()
            .expect("valid document"),
        Source::Memory(doc) => config.reader::<Reading, _>(doc).collect::<Result<_, _>>().expect("valid document"),
    }
}

fn aggregate(source: Source<'_>, config: &Config) -> TelemetryAggregate {
    let mut a = TelemetryAggregate::default();
    let mut push = |r: Result<Reading, jsoncost_stream::Error>| a.push(&r.expect("valid document"));
    match source {
        Source::File(path) => config
            .reader::<Reading, _>(File::open(path).expect("readable file"))
            .for_each(&mut push),
        Source::Memory(doc) => config.reader::<Reading, _>(doc).for_each(&mut push),
    }
    a
}

fn compare(label: &str, source: Source<'_>, runs: usize, mb: f64) {
    if let Source::File(path) = source {
        std::fs::read(path).expect("readable file"); // the page cache holds it for every run
    }
    let mut times = vec![[Vec::new(), Vec::new(), Vec::new()]; Library::ALL.len()];
    for _ in 0..runs {
        for (k, lib) in Library::ALL.into_iter().enumerate() {
            let config = Config::new("/Readings").expect("pointer").library(lib);
            let (t_buf, whole) = timed(|| source.buffered(lib));
            let (t_inc, streamed) = timed(|| incremental(source, &config));
            let (t_agg, agg) = timed(|| aggregate(source, &config));
            assert_eq!(whole.readings, streamed, "{lib}: incremental differs from from_slice");
            assert_eq!(TelemetryAggregate::of(&whole.readings), agg, "{lib}: aggregate differs");
            times[k][0].push(t_buf);
            times[k][1].push(t_inc);
            times[k][2].push(t_agg);
        }
    }
    for (pick_label, pick) in [("median", median as fn(Vec<Duration>) -> Duration), ("best", best)] {
        println!("-- {label}, {pick_label} of {runs} runs");
        for (lib, [buf, inc, agg]) in Library::ALL.into_iter().zip(times.iter().cloned()) {
            let (t_buf, t_inc, t_agg) = (pick(buf), pick(inc), pick(agg));
            let rate = |d: Duration| mb / d.as_secs_f64();
            println!(
                "{:<11} {:>7.0} MB/s {:>7.0} MB/s {:>7.0} MB/s {:>9.2} {:>9.2}",
                lib.as_str(),
                rate(t_buf),
                rate(t_inc),
                rate(t_agg),
                t_buf.as_secs_f64() / t_inc.as_secs_f64(),
                t_buf.as_secs_f64() / t_agg.as_secs_f64()
            );
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let readings: u64 = args.next().map_or(1_000_000, |a| a.parse().expect("READINGS is a number"));
    let runs: usize = args.next().map_or(5, |a| a.parse().expect("RUNS is a number"));
    let mut doc = Vec::new();
    write_telemetry(&mut doc, readings, DEFAULT_SEED).expect("writing to memory");
    let path = std::env::temp_dir().join(format!("jsoncost-stream-throughput-{}.json", std::process::id()));
    std::fs::write(&path, &doc).expect("writable temp dir");
    let mb = doc.len() as f64 / 1e6;
    println!("telemetry: {readings} readings, {} bytes", doc.len());
    println!(
        "{:<11} {:>12} {:>12} {:>12} {:>9} {:>9}",
        "library", "buffered", "incremental", "aggregate", "incr/buf", "aggr/buf"
    );
    compare("file", Source::File(&path), runs, mb);
    compare("memory", Source::Memory(&doc), runs, mb);
    std::fs::remove_file(&path).expect("temp file removable");
}
