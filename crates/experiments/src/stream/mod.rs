//! The stream experiment: deserialize a telemetry body of N readings (1,000,000 ≈ 72 MB)
//! buffered, from a reader, and incrementally with bounded memory; each strategy is timed as a
//! whole run, through the one Runner, in rounds that run every strategy once (so rows pair
//! round by round and the incremental/buffered ratios carry no drift of the machine).

use futures::StreamExt;
use jsoncost_codecs::decoders::decoders;
use jsoncost_codecs::gate::{self, Verdict};
use jsoncost_codecs::{Contract, Effort, Strategy, StrategyId};
use jsoncost_engine::ExperimentKind;
use jsoncost_shapes::{DEFAULT_SEED, Reading, Telemetry, write_telemetry};
use jsoncost_stream::{Library, TelemetryAggregate};
use serde_json::{Map, json};
use std::cell::RefCell;
use std::io::{BufReader, BufWriter};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use crate::error::Error;
use crate::runner::{Runner, Table, TableStop};
use crate::summary;

pub mod array;
mod peers;
mod whole_run;
pub use array::ArrayOptions;
pub use whole_run::{DEFAULT_MAX_BUFFERED_MIB, DEFAULT_MAX_RUNS, Runs};
use whole_run::{WholeRun, guard_file, open, over_buffered_cap, read_all, readable, run_config, skip_buffered};

/// What to read and how.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamOptions {
    /// Readings in the generated body (when no `file`).
    pub readings: u64,
    /// A telemetry file instead of the generated body.
    pub file: Option<PathBuf>,
    /// With `file`: stream the array at this RFC 6901 pointer of any document instead of a
    /// telemetry body (see [`mod@array`]).
    pub pointer: Option<String>,
    /// Chunk size of the incremental strategies, in KiB.
    pub chunk_kib: u64,
    /// Largest element the incremental strategies accept, in bytes.
    pub max_element_bytes: usize,
    /// Largest file the buffered strategies read whole, in MiB (they hold it, and their DOM or
    /// tape, several times over); over it they are skipped with the reason.
    pub max_buffered_mib: u64,
    /// Whole runs per strategy.
    pub runs: Runs,
    /// Fewer, shorter runs.
    pub quick: bool,
}

/// What a run produced, for the gate.
enum Outcome {
    Document(Telemetry),
    /// The aggregate, and the library whose readings it aggregates.
    Aggregate(TelemetryAggregate, Library),
}

type RunFn = Box<dyn FnMut() -> Result<Outcome, String>>;

/// Where the generated body lives: a cache file per (readings, seed) in this user's private
/// directory ([`jsoncost_engine::private_dir`]), written to a fresh unpredictable name
/// (`O_EXCL`, 0600) and renamed, so an interrupted write never leaves a half file and two runs
/// at once each write their own.
fn generated_file(readings: u64) -> Result<PathBuf, Error> {
    let dir = jsoncost_engine::private_dir::dir().map_err(|e| Error::environment(e.to_string()))?;
    generated_file_in(&dir, readings)
}

fn generated_file_in(dir: &Path, readings: u64) -> Result<PathBuf, Error> {
    let path = dir.join(format!("telemetry-{readings}-{DEFAULT_SEED:x}.json"));
    if is_generated(&path, readings) {
        return Ok(path);
    }
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".telemetry-{readings}-"))
        .suffix(".tmp")
        .tempfile_in(dir)
        .map_err(|e| Error::environment(format!("cannot create a file in {}: {e}", dir.display())))?;
    write_telemetry(BufWriter::new(tmp.as_file_mut()), readings, DEFAULT_SEED)
        .map_err(|e| Error::environment(format!("writing {}: {e}", tmp.path().display())))?;
    tmp.persist(&path)
        .map_err(|e| Error::environment(format!("renaming {}: {}", e.file.path().display(), e.error)))?;
    Ok(path)
}

/// Whether `path` holds exactly the generated body. A cached file is trusted only once checked:
/// the body is generated again into a sink that compares it with the file as it goes (no hash
/// recorded beside it to trust in turn; generating costs a fraction of one round of the
/// strategies, and nothing is written), so a truncated, stale or planted file is replaced, never
/// measured. Anything but a regular file (a link, a FIFO) is not a cache.
fn is_generated(path: &Path, readings: u64) -> bool {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    struct Compare<R> {
        file: R,
        buf: Vec<u8>,
    }
    impl<R: Read> std::io::Write for Compare<R> {
        fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
            self.buf.resize(data.len(), 0);
            self.file.read_exact(&mut self.buf)?;
            if self.buf != data {
                return Err(std::io::Error::other("differs from the generated body"));
            }
            Ok(data.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if !meta.file_type().is_file() {
        return false;
    }
    let Ok(file) = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW).open(path) else {
        return false;
    };
    let len = file.metadata().map(|m| m.len()).ok();
    let sink = Compare {
        file: BufReader::with_capacity(1 << 16, file),
        buf: Vec::new(),
    };
    matches!(write_telemetry(sink, readings, DEFAULT_SEED), Ok(n) if Some(n) == len)
}

fn device_id(field: Option<&jsoncost_stream::Field>) -> Result<String, String> {
    field
        .ok_or("the document has no DeviceId")?
        .parse::<String>()
        .map_err(|e| format!("DeviceId: {e}"))
}

/// The strategies; `too_deep` is [`guard_file`]'s verdict for sonic-rs, which fails the
/// buffered read of a library without a depth limit, `buffered/sonic-rs` (the incremental ones are guarded by the stream's framer, element by
/// element, and fail with its error).
fn strategies(path: &Path, config: &jsoncost_stream::Config, bytes: u64, too_deep: Option<String>) -> Vec<WholeRun<()>> {
    let mut v: Vec<WholeRun<()>> = Vec::new();
    let p = path.to_path_buf();
    let buffered = decoders::<Telemetry>();
    let unbounded: Vec<StrategyId> = buffered.iter().filter(|d| d.depth_unbounded).map(|d| d.id("buffered")).collect();
    let mut add = |id: StrategyId, (contract, effort): (Contract, Effort), run: RunFn| {
        let refused = if unbounded.contains(&id) { too_deep.clone() } else { None };
        // The gate checks what a run produced; the timed run drops it.
        let run = Rc::new(RefCell::new(run));
        let timed = Rc::clone(&run);
        let (path, config, checked) = (path.to_path_buf(), config.clone(), id.clone());
        v.push(WholeRun {
            id,
            contract,
            effort,
            run: Box::new(move || (timed.borrow_mut())().map(drop)),
            check: Box::new(move || check((run.borrow_mut())(), &checked, &path, &config)),
            bytes,
            refused,
        })
    };
    // Each library's read of the whole body it was given (`codecs::decoders`), no copy.
    for decoder in buffered {
        let p = p.clone();
        add(
            decoder.id("buffered"),
            (Contract::TypedValue, Effort::Swap),
            Box::new(move || Ok(Outcome::Document(decoder.from_owned(&mut read_all(&p, bytes)?)?))),
        );
    }
    {
        let p = p.clone();
        add(
            StrategyId::new("reader", "serde_json"),
            (Contract::TypedValue, Effort::Swap),
            Box::new(move || {
                Ok(Outcome::Document(
                    serde_json::from_reader(BufReader::new(open(&p)?)).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    // The peers a user would pick instead of jsoncost's parser (see `peers`).
    {
        let p = p.clone();
        add(
            StrategyId::new("visitor", "serde_json"),
            (Contract::TypedValue, Effort::Code),
            Box::new(move || {
                let mut readings = Vec::new();
                let device = peers::serde_visitor(BufReader::new(open(&p)?), &mut |r| readings.push(r))?;
                Ok(Outcome::Document(Telemetry {
                    device_id: device.ok_or("the document has no DeviceId")?,
                    readings,
                }))
            }),
        );
    }
    {
        let p = p.clone();
        add(
            StrategyId::new("visitor-aggregate", "serde_json"),
            (Contract::Aggregate, Effort::Code),
            Box::new(move || {
                let mut agg = TelemetryAggregate::default();
                peers::serde_visitor(BufReader::new(open(&p)?), &mut |r| agg.push(&r))?;
                Ok(Outcome::Aggregate(agg, Library::SerdeJson))
            }),
        );
    }
    {
        let p = p.clone();
        add(
            StrategyId::new("struson", "serde"),
            (Contract::TypedValue, Effort::Code),
            Box::new(move || {
                let mut readings = Vec::new();
                let device = peers::struson(open(&p)?, &mut |r| readings.push(r))?;
                Ok(Outcome::Document(Telemetry {
                    device_id: device.ok_or("the document has no DeviceId")?,
                    readings,
                }))
            }),
        );
    }
    for lib in [Library::SerdeJson, Library::SonicRs, Library::SimdJson] {
        let cfg = config.clone().library(lib);
        let (p1, c1) = (p.clone(), cfg.clone());
        add(
            StrategyId::new("incremental", lib.as_str()),
            (Contract::TypedValue, Effort::Code),
            Box::new(move || {
                let mut elements = c1.reader::<Reading, _>(open(&p1)?);
                let readings = (&mut elements).collect::<Result<Vec<Reading>, _>>().map_err(|e| e.to_string())?;
                Ok(Outcome::Document(Telemetry {
                    device_id: device_id(elements.field("/DeviceId"))?,
                    readings,
                }))
            }),
        );
        let (p2, c2) = (p.clone(), cfg.clone());
        add(
            StrategyId::new("incremental-aggregate", lib.as_str()),
            (Contract::Aggregate, Effort::Code),
            Box::new(move || {
                let mut agg = TelemetryAggregate::default();
                for r in c2.reader::<Reading, _>(open(&p2)?) {
                    agg.push(&r.map_err(|e| e.to_string())?);
                }
                Ok(Outcome::Aggregate(agg, lib))
            }),
        );
        let (p3, c3) = (p.clone(), cfg);
        // One blocking thread (tokio::fs reads on it) that never expires: one idle for tokio's
        // default 10 s exits, and its replacement's allocations would count in some runs only.
        // Enrolled, so a count of enrolled threads (a test beside others) sees its reads.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .max_blocking_threads(1)
            .thread_keep_alive(std::time::Duration::from_secs(24 * 3600))
            .on_thread_start(jsoncost_engine::alloc::enroll_current_thread)
            .build()
            .expect("a tokio runtime");
        add(
            StrategyId::new("incremental-async", lib.as_str()),
            (Contract::TypedValue, Effort::Code),
            Box::new(move || {
                block_on_alone(&rt, async {
                    let file = tokio::fs::File::open(&p3)
                        .await
                        .map_err(|e| format!("cannot open {}: {e}", p3.display()))?;
                    telemetry_from(&c3, jsoncost_stream::bytes_stream(file, c3.chunk_size)).await
                })
            }),
        );
    }
    v
}

/// Runs an incremental-async strategy's future on its own runtime outside tokio's coop budget.
/// Under the budget, 128 reads in a row that are done before they are asked for (the blocking
/// pool won the race, as it does when the machine is busy) make the task yield, and the first
/// yield in a `block_on` allocates the runtime's list of deferred wakers (64 bytes): a run's
/// exact allocation count would hang on timing. Alone on its runtime, the task has no one to
/// yield to.
fn block_on_alone<F: std::future::Future>(rt: &tokio::runtime::Runtime, run: F) -> F::Output {
    rt.block_on(tokio::task::unconstrained(run))
}

/// The incremental-async strategies' document, element by element from a stream of chunks.
async fn telemetry_from<S, E>(config: &jsoncost_stream::Config, source: S) -> Result<Outcome, String>
where
    S: futures::Stream<Item = Result<bytes::Bytes, E>> + Unpin,
    E: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut elements = config.stream::<Reading, _>(source);
    let mut readings = Vec::new();
    while let Some(r) = elements.next().await {
        readings.push(r.map_err(|e| e.to_string())?);
    }
    Ok(Outcome::Document(Telemetry {
        device_id: device_id(elements.field("/DeviceId"))?,
        readings,
    }))
}

/// Checks the file is a telemetry document before anything is timed: a bad one is a usage error
/// with the byte offset and element index (exit 2).
fn validate(path: &Path, config: &jsoncost_stream::Config) -> Result<(u64, TelemetryAggregate), Error> {
    let shown = path.display();
    let len = readable(path)?;
    let mut elements = config.reader::<Reading, _>(open(path).map_err(Error::Usage)?);
    let mut agg = TelemetryAggregate::default();
    for r in &mut elements {
        agg.push(&r.map_err(|e| Error::usage(format!("telemetry file {shown}: {e}")))?);
    }
    device_id(elements.field("/DeviceId")).map_err(|e| Error::usage(format!("telemetry file {shown}: {e}")))?;
    Ok((len, agg))
}

/// The gate for one stream strategy's check run: its output against the exact reference, read
/// again from the file element by element (the body never becomes one DOM).
fn check(outcome: Result<Outcome, String>, strategy: &StrategyId, path: &Path, config: &jsoncost_stream::Config) -> Verdict {
    let reference = match open(path) {
        Ok(f) => f,
        Err(e) => return Verdict::Fail(e),
    };
    match outcome {
        Err(e) => Verdict::Fail(e),
        Ok(Outcome::Document(doc)) => {
            let outside = Telemetry {
                device_id: doc.device_id.clone(),
                readings: Vec::new(),
            };
            gate::verify_streamed(
                strategy,
                reference,
                "/Readings",
                Some(&outside),
                &mut doc.readings.iter().cloned().map(Ok),
            )
        }
        // An aggregate keeps no readings: those its library reads are checked instead, and the
        // aggregate must be theirs, bit for bit.
        Ok(Outcome::Aggregate(agg, lib)) => {
            let mut own = TelemetryAggregate::default();
            let verdict = match open(path) {
                Err(e) => Verdict::Fail(e),
                Ok(f) => {
                    let mut readings = config.clone().library(lib).reader::<Reading, _>(f).map(|r| {
                        let r = r.map_err(|e| e.to_string())?;
                        own.push(&r);
                        Ok(r)
                    });
                    gate::verify_streamed::<Telemetry, Reading, _>(strategy, reference, "/Readings", None, &mut readings)
                }
            };
            match verdict {
                Verdict::Pass(_) if own != agg => Verdict::Fail(format!(
                    "its aggregate {agg:?} differs from that of the readings {lib} reads, {own:?}"
                )),
                v => v,
            }
        }
    }
}

/// Runs the stream experiment through `runner` (whole runs: its engine settings are replaced
/// for this table).
pub fn run(options: &StreamOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    if let Some(pointer) = &options.pointer {
        let file = options
            .file
            .clone()
            .ok_or_else(|| Error::usage("a pointer needs the file whose array it names"))?;
        let array = ArrayOptions {
            file,
            pointer: pointer.clone(),
            chunk_kib: options.chunk_kib,
            max_element_bytes: options.max_element_bytes,
            max_buffered_mib: options.max_buffered_mib,
            runs: options.runs,
            quick: options.quick,
        };
        return array::run(&array, runner);
    }
    // Only DeviceId is kept from around the array (what `Telemetry` needs; the buffered parses
    // ignore the rest too), so the incremental rows stay bounded whatever else the file holds.
    let inc_config = jsoncost_stream::Config::new("/Readings")
        .expect("a valid pointer")
        .chunk_size((options.chunk_kib * 1024) as usize)
        .max_element_bytes(options.max_element_bytes)
        .keep(["/DeviceId"]);
    let path = match &options.file {
        Some(p) => p.clone(),
        None => {
            runner.sink().status(&format!("stream: generating {} readings", options.readings));
            generated_file(options.readings)?
        }
    };
    let file_bytes = readable(&path)?;
    // sonic-rs is held to serde_json's 128 levels (its own DOM limit is 255): its buffered parse
    // of the file is guarded once, here, untimed, so what is timed is the parse a user would write.
    let too_deep = if runner.filter().matches("buffered/sonic-rs") {
        guard_file(&path, Library::SonicRs)?
    } else {
        None
    };
    let mut list = strategies(&path, &inc_config, file_bytes, too_deep);
    if let Some(why) = over_buffered_cap(file_bytes, options.max_buffered_mib) {
        runner.sink().note(&format!("stream: buffered rows skipped: {why}"));
        skip_buffered(&mut list, &why);
    }
    runner.filter().check_matches_any(list.iter().map(|s| s.name()))?;
    // The baseline is checked first, even when the filter skips its timing: a baseline that
    // fails on the body leaves nothing to be relative to, so the body is bad input (exit 2 with
    // the baseline's error, and where the incremental parser places the problem).
    runner.sink().status(&format!("stream: {} (check run)", list[0].name()));
    let baseline = match list[0].verify(None) {
        Ok(fidelity) => fidelity,
        Err(e) => {
            let mut message = format!(
                "telemetry file {}: the baseline {} fails on it, so nothing is measured: {}",
                path.display(),
                list[0].name(),
                // The library's message can quote a whole offending string.
                jsoncost_stream::shorten_message(&e.message)
            );
            if let Err(located) = validate(&path, &inc_config) {
                message.push_str(&format!(" (the incremental parser: {located})"));
            }
            return Err(Error::Usage(message));
        }
    };
    runner.sink().status(&format!("stream: validating {}", path.display()));
    let (file_bytes, readings) = validate(&path, &inc_config)?;
    let total = list.iter().filter(|s| runner.filter().matches(s.name())).count() as u64;
    runner.sink().planned(total);

    let config = run_config(options.runs, options.quick, runner);
    let mut params = Map::new();
    params.insert("file".into(), json!(path.display().to_string()));
    params.insert("payload_bytes".into(), json!(file_bytes));
    params.insert("readings".into(), json!(readings.count()));
    params.insert("chunk_kib".into(), json!(options.chunk_kib));
    let strategies = list
        .drain(..)
        .map(|s| Box::new(s) as jsoncost_codecs::BoxedStrategy<'static>)
        .collect();
    let mut table = Table::self_checked(ExperimentKind::Stream, "telemetry", params, strategies).summarized_by(summary::of_stream);
    table.baseline_verified = Some(baseline);
    match runner.with_config(config, |r| r.run(table)) {
        Ok(_) => {}
        Err(TableStop::Fatal(m)) => return Err(Error::environment(m)),
        Err(stop) => return Err(stop.into()),
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

#[cfg(feature = "cli")]
/// `jsoncost stream`'s flags.
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
    #[arg(long, value_name = "MIB", default_value_t = crate::stream::DEFAULT_MAX_BUFFERED_MIB, value_parser = clap::value_parser!(u64).range(1..=17_592_186_044_415))]
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

#[cfg(feature = "cli")]
impl StreamArgs {
    /// The library's options these flags give (`quick`: fewer, shorter runs).
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

#[cfg(feature = "cli")]
impl crate::flags::ExperimentArgs for StreamArgs {
    fn kind(&self) -> jsoncost_engine::ExperimentKind {
        jsoncost_engine::ExperimentKind::Stream
    }

    fn run(
        &self,
        config: &jsoncost_engine::MeasureConfig,
        cancel: crate::cancel::Cancel,
        sink: &mut dyn crate::sink::Sink,
    ) -> Result<(), Error> {
        // Its iteration settings are replaced by whole runs, scheduled as `config` says.
        run(
            &self.options(config.quick),
            &mut crate::flags::runner(config, "--stream-filter", self.stream_filter.as_deref(), cancel, sink)?,
        )
    }

    fn inputs(&self) -> Vec<(&'static str, &std::path::Path)> {
        self.file.iter().map(|p| ("--file", p.as_path())).collect()
    }

    /// Exactly `--runs` rounds of whole runs unless `--max-runs` is given (sixteen strategies of
    /// ~0.3 s runs fit in under a minute); with `--quick` a generated body of at most 100,000
    /// readings.
    fn fit_whole_study(&mut self, quick: bool) {
        if quick && self.file.is_none() {
            self.readings = self.readings.min(100_000);
        }
        self.max_runs.get_or_insert(self.runs);
    }

    /// Two rounds of whole runs; a generated body of at most 2,000 readings.
    fn debug_mode(&mut self) {
        if self.file.is_none() {
            self.readings = self.readings.min(2_000);
        }
        self.runs = 2;
        self.max_runs = Some(2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_or_damaged_generated_body_is_replaced_not_measured() {
        let generated = |n| {
            let mut v = Vec::new();
            write_telemetry(&mut v, n, DEFAULT_SEED).unwrap();
            v
        };
        // An unusual count, so no other test shares the cache file.
        let path = generated_file(17).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), generated(17));
        for forged in [
            &b"{\"DeviceId\":\"x\",\"Readings\":[]}"[..],
            &generated(17)[..100],
            &[generated(17), b" ".to_vec()].concat(),
        ] {
            std::fs::write(&path, forged).unwrap();
            assert_eq!(generated_file(17).unwrap(), path);
            assert_eq!(std::fs::read(&path).unwrap(), generated(17));
        }
        // A link planted at its name is replaced by the body, its target untouched.
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"precious").unwrap();
        let planted = dir.path().join(format!("telemetry-17-{DEFAULT_SEED:x}.json"));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        assert_eq!(generated_file_in(dir.path(), 17).unwrap(), planted);
        assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
        assert_eq!(std::fs::read(&planted).unwrap(), generated(17));
        assert!(!std::fs::symlink_metadata(&planted).unwrap().file_type().is_symlink());
        // Nothing else is left in the directory (the temp file was renamed).
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    fn body(readings: u64) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        write_telemetry(&mut f, readings, 7).unwrap();
        f
    }

    /// What a peer gives, with reading `corrupt` (when given) changed on its way out, as a peer
    /// with a bug would change it.
    fn peer(id: &StrategyId, path: &Path, corrupt: Option<usize>) -> Result<Outcome, String> {
        let mut i = 0;
        let mut readings = Vec::new();
        let mut agg = TelemetryAggregate::default();
        let aggregate = id.style() == "visitor-aggregate";
        let mut each = |mut r: Reading| {
            if Some(i) == corrupt {
                r.temperature += 0.5;
            }
            i += 1;
            if aggregate { agg.push(&r) } else { readings.push(r) }
        };
        let device = match id.library() {
            Some("serde_json") => peers::serde_visitor(BufReader::new(open(path)?), &mut each)?,
            Some("serde") => peers::struson(open(path)?, &mut each)?,
            other => panic!("no peer of {other:?}"),
        };
        if aggregate {
            return Ok(Outcome::Aggregate(agg, Library::SerdeJson));
        }
        Ok(Outcome::Document(Telemetry {
            device_id: device.ok_or("no DeviceId")?,
            readings,
        }))
    }

    /// The peers of the stream table: (style, library).
    const PEERS: [(&str, &str); 3] = [("visitor", "serde_json"), ("visitor-aggregate", "serde_json"), ("struson", "serde")];

    #[test]
    fn each_stream_peer_passes_the_gate_and_a_corrupted_reading_fails_it() {
        let f = body(300);
        let config = jsoncost_stream::Config::new("/Readings").unwrap();
        for id in PEERS.map(|(style, library)| StrategyId::new(style, library)) {
            let name = id.name();
            match check(peer(&id, f.path(), None), &id, f.path(), &config) {
                Verdict::Pass(fidelity) => assert_eq!(fidelity.numbers, 600, "{name}"),
                Verdict::Fail(m) => panic!("{name} failed the gate: {m}"),
            }
            let Verdict::Fail(message) = check(peer(&id, f.path(), Some(123)), &id, f.path(), &config) else {
                panic!("{name}: a corrupted reading passed the gate");
            };
            if id.style() == "visitor-aggregate" {
                assert!(message.starts_with("its aggregate"), "{name}: {message}");
            } else {
                assert!(
                    message.starts_with("output differs from the exact reference at /Readings/123/Temperature"),
                    "{name}: {message}"
                );
            }
        }
    }

    /// A whole run's allocations are compared exactly between runs (`compare`, `ab`), so the
    /// async strategies must allocate the same on every run, however long since the last one
    /// (a tokio blocking thread idle for 10 s exits, and a new one allocates).
    #[test]
    fn incremental_async_allocates_the_same_after_a_pause() {
        let f = body(2_000);
        let config = jsoncost_stream::Config::new("/Readings").unwrap();
        let mut runs: Vec<_> = strategies(f.path(), &config, 0, None)
            .into_iter()
            .filter(|s| s.id.style() == "incremental-async")
            .collect();
        // This thread and the runtime's: the other tests of this binary allocate meanwhile.
        jsoncost_engine::alloc::enroll_current_thread();
        let mut counted = || -> Vec<(u64, u64)> {
            runs.iter_mut()
                .map(|s| {
                    let m = jsoncost_engine::alloc::ProcessMeasure::start_enrolled();
                    (s.run)().unwrap();
                    let stats = m.finish();
                    (stats.bytes, stats.count)
                })
                .collect()
        };
        counted(); // as the gate runs each once before any is measured
        let first = counted();
        assert_eq!(counted(), first, "back to back");
        std::thread::sleep(std::time::Duration::from_secs(11));
        assert_eq!(counted(), first, "after 11 s");
    }

    /// Whether tokio's budget ran out is timing (how many chunks were ready in a row), so it
    /// must not change what a run allocates.
    #[test]
    fn incremental_async_allocates_the_same_however_many_chunks_were_ready_in_a_row() {
        use std::task::Poll;
        let f = body(2_000);
        let config = jsoncost_stream::Config::new("/Readings").unwrap();
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        // ~560 chunks, far over the budget's 128.
        let chunks = || -> Vec<bytes::Bytes> {
            std::fs::read(f.path())
                .unwrap()
                .chunks(256)
                .map(bytes::Bytes::copy_from_slice)
                .collect()
        };
        // All on this thread (no file, so no blocking pool).
        let counted = |run: &mut dyn FnMut() -> Result<Outcome, String>| {
            let (r, stats) = jsoncost_engine::alloc::thread_measure(run);
            assert!(r.is_ok());
            (stats.bytes, stats.count)
        };
        // Every chunk ready when asked for, from a channel (whose receiving spends the budget).
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        for c in chunks() {
            tx.send(Ok::<_, std::io::Error>(c)).unwrap();
        }
        drop(tx);
        let all_ready = counted(&mut || block_on_alone(&rt, telemetry_from(&config, futures::stream::poll_fn(|cx| rx.poll_recv(cx)))));
        // The same chunks, each after a Pending.
        let mut left = chunks().into_iter();
        let mut waited = false;
        let mut one_at_a_time = Some(futures::stream::poll_fn(move |cx| {
            waited = !waited;
            if waited {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            Poll::Ready(left.next().map(Ok::<_, std::io::Error>))
        }));
        let waiting = counted(&mut || block_on_alone(&rt, telemetry_from(&config, one_at_a_time.take().unwrap())));
        assert_eq!(all_ready, waiting);
    }

    #[test]
    fn the_peers_are_in_the_stream_table() {
        let f = body(3);
        let ids: Vec<StrategyId> = strategies(f.path(), &jsoncost_stream::Config::new("/Readings").unwrap(), 0, None)
            .into_iter()
            .map(|s| s.id)
            .collect();
        for peer in PEERS.map(|(style, library)| StrategyId::new(style, library)) {
            assert!(ids.contains(&peer), "{peer} missing from {ids:?}");
        }
    }
}
