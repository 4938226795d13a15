//! The stream experiment: deserialize a telemetry body of N readings (1,000,000 ≈ 72 MB)
//! buffered, from a reader, and incrementally with bounded memory; each strategy is timed as a
//! whole run, through the one Runner, in rounds that run every strategy once (so rows pair
//! round by round and the incremental/buffered ratios carry no drift of the machine).

use futures::StreamExt;
use jsoncost_codecs::gate::{self, Reference, Verdict};
use jsoncost_codecs::{Canonical, Contract, RunFailure, Strategy};
use jsoncost_engine::{Config, ExperimentKind, Fidelity};
use jsoncost_shapes::{DEFAULT_SEED, Reading, Telemetry, write_telemetry};
use jsoncost_stream::{Library, TelemetryAggregate};
use serde_json::{Map, json};
use std::cell::RefCell;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use jsoncost_report::files::{self, ReadError};

use crate::{Error, Runner, Stop, Table};

pub mod array;
mod peers;
pub use array::ArrayOptions;

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

/// How many whole runs each strategy gets, in rounds that run every strategy once: at least
/// `min` rounds, then more (up to `max`, within the budget) until every strategy's paired ratio
/// to the first (or every mean) is known within 2%.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    /// At least this many whole runs.
    pub min: u32,
    /// At most this many.
    pub max: u32,
}

/// The most rounds a stream table runs unless told: the budget (8 s per strategy) usually ends
/// them first. A whole run of ~0.2 s is hit now and then by a slowdown of the machine of a
/// tenth of a second or more (+50% on one run, measured on a quiet 2-vCPU VM), so one round's
/// incremental/buffered ratio varies by ~12% there: ten rounds left the ratio ±4–5% from run to
/// run, the budget's ~20 rounds of the default table narrow that by about a third.
pub const DEFAULT_MAX_RUNS: u32 = 40;

impl Runs {
    /// At least `min` runs, at most [`DEFAULT_MAX_RUNS`] (or `min`, if more).
    pub fn at_least(min: u32) -> Runs {
        Runs {
            min,
            max: min.max(DEFAULT_MAX_RUNS),
        }
    }

    /// Exactly `n` runs (`jsoncost run`'s overview, where the table's time is the whole budget).
    pub fn exactly(n: u32) -> Runs {
        Runs { min: n, max: n }
    }
}

/// The default [`StreamOptions::max_buffered_mib`], micro's `--max-payload-mib` default.
pub const DEFAULT_MAX_BUFFERED_MIB: u64 = 256;

/// Why the buffered rows are not run on a file of `bytes`, when it is over `max_mib`.
pub(crate) fn over_buffered_cap(bytes: u64, max_mib: u64) -> Option<String> {
    (bytes > max_mib.saturating_mul(1 << 20)).then(|| {
        format!(
            "the file is {:.1} MiB, over the {max_mib} MiB the buffered strategies read whole (raise it with --max-buffered-mib); not run",
            bytes as f64 / (1 << 20) as f64
        )
    })
}

/// Skips the buffered rows with `why` and moves them after the others, so the table's baseline
/// is a row that runs.
pub(crate) fn skip_buffered<O>(list: &mut Vec<WholeRun<O>>, why: &str) {
    // buffered/* and buffered-typed/*: both read the whole file.
    let reads_whole = |name: &str| name.starts_with("buffered/") || name.starts_with("buffered-typed/");
    for s in list.iter_mut().filter(|s| reads_whole(&s.name)) {
        s.refused = Some(why.to_string());
    }
    let (buffered, rest): (Vec<_>, Vec<_>) = list.drain(..).partition(|s| reads_whole(&s.name));
    list.extend(rest);
    list.extend(buffered);
}

/// What a run produced, for the gate.
enum Outcome {
    Document(Telemetry),
    /// The aggregate, and the library whose readings it aggregates.
    Aggregate(TelemetryAggregate, Library),
}

type RunFn = Box<dyn FnMut() -> Result<Outcome, String>>;

/// A stream row: one whole run over the body per operation, which checks itself against the
/// file (`check`; the body is never held as one value). `O` is what a run yields.
pub(crate) struct WholeRun<O> {
    pub(crate) name: String,
    pub(crate) contract: Contract,
    pub(crate) run: Box<dyn FnMut() -> Result<O, String>>,
    pub(crate) check: Box<dyn FnMut() -> Verdict>,
    pub(crate) bytes: u64,
    /// Why the depth guard refused the file for this strategy's library: the row fails with it
    /// and is never run.
    pub(crate) refused: Option<String>,
}

impl<O> Strategy for WholeRun<O> {
    fn name(&self) -> &str {
        &self.name
    }
    fn contract(&self) -> Contract {
        self.contract
    }
    fn check(&mut self) -> Result<Canonical, RunFailure> {
        Err(RunFailure::row("a stream strategy checks itself against the file (verify)"))
    }
    fn verify(&mut self, _reference: Option<&Reference>) -> Result<Fidelity, RunFailure> {
        if let Some(refused) = &self.refused {
            return Err(RunFailure::row(refused.clone()));
        }
        match (self.check)() {
            Verdict::Pass(fidelity) => Ok(fidelity),
            Verdict::Fail(message) => Err(RunFailure::row(message)),
        }
    }
    fn run(&mut self) -> Result<(), RunFailure> {
        (self.run)().map(drop).map_err(RunFailure::row)
    }
    fn payload_bytes(&self) -> Option<u64> {
        Some(self.bytes)
    }
}

/// Where the generated body lives: a cache file per (readings, seed), written once.
fn generated_file(readings: u64) -> Result<PathBuf, Error> {
    let dir = std::env::temp_dir().join("jsoncost");
    std::fs::create_dir_all(&dir).map_err(|e| Error::environment(format!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join(format!("telemetry-{readings}-{DEFAULT_SEED:x}.json"));
    if path.exists() {
        return Ok(path);
    }
    // Written to a temp name and renamed, so an interrupted write never leaves a half file.
    let tmp = dir.join(format!(".telemetry-{readings}-{}.tmp", std::process::id()));
    let file = File::create(&tmp).map_err(|e| Error::environment(format!("cannot create {}: {e}", tmp.display())))?;
    write_telemetry(BufWriter::new(file), readings, DEFAULT_SEED)
        .map_err(|e| Error::environment(format!("writing {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(|e| Error::environment(format!("renaming {}: {e}", tmp.display())))?;
    Ok(path)
}

fn open(path: &Path) -> Result<File, String> {
    File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))
}

/// The whole file, which was `len` bytes when validated: a read that finds more stops there.
fn read_all(path: &Path, len: u64) -> Result<Vec<u8>, String> {
    files::read_limited(path, len).map_err(|e| match e {
        ReadError::Io(e) => format!("cannot read {}: {e}", path.display()),
        ReadError::TooLarge { .. } => format!("{} grew past the {len} bytes validated", path.display()),
    })
}

fn device_id(field: Option<&jsoncost_stream::Field>) -> Result<String, String> {
    field
        .ok_or("the document has no DeviceId")?
        .parse::<String>()
        .map_err(|e| format!("DeviceId: {e}"))
}

/// Checks the whole file with the depth guard for `library`, reading it a chunk at a time (so
/// the check holds no copy of a large file): the row's message when it is refused.
fn guard_file(path: &Path, library: Library) -> Result<Option<String>, Error> {
    let mut file = open(path).map_err(Error::Environment)?;
    let mut guard = jsoncost_stream::DepthGuard::new(library);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| Error::environment(format!("cannot read {}: {e}", path.display())))?;
        let verdict = if n == 0 { guard.clone().finish() } else { guard.feed(&buf[..n]) };
        match verdict {
            Err(deep) => return Ok(Some(format!("{deep}; not run"))),
            Ok(()) if n == 0 => return Ok(None),
            Ok(()) => {}
        }
    }
}

/// The strategies; `too_deep` is [`guard_file`]'s verdict for sonic-rs, which fails
/// `buffered/sonic-rs` (the incremental ones are guarded by the stream's framer, element by
/// element, and fail with its error).
fn strategies(path: &Path, config: &jsoncost_stream::Config, bytes: u64, too_deep: Option<String>) -> Vec<WholeRun<()>> {
    let mut v: Vec<WholeRun<()>> = Vec::new();
    let p = path.to_path_buf();
    let mut add = |name: String, contract: Contract, run: RunFn| {
        let refused = if name == "buffered/sonic-rs" { too_deep.clone() } else { None };
        // The gate checks what a run produced; the timed run drops it.
        let run = Rc::new(RefCell::new(run));
        let timed = Rc::clone(&run);
        let (path, config, checked) = (path.to_path_buf(), config.clone(), name.clone());
        v.push(WholeRun {
            name,
            contract,
            run: Box::new(move || (timed.borrow_mut())().map(drop)),
            check: Box::new(move || check((run.borrow_mut())(), &checked, &path, &config)),
            bytes,
            refused,
        })
    };
    {
        let p = p.clone();
        add(
            "buffered/serde_json".into(),
            Contract::TypedValue,
            Box::new(move || {
                Ok(Outcome::Document(
                    serde_json::from_slice(&read_all(&p, bytes)?).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    {
        let p = p.clone();
        add(
            "buffered/sonic-rs".into(),
            Contract::TypedValue,
            Box::new(move || {
                Ok(Outcome::Document(
                    sonic_rs::from_slice(&read_all(&p, bytes)?).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    {
        let p = p.clone();
        add(
            "buffered/simd-json".into(),
            Contract::TypedValue,
            Box::new(move || {
                let mut body = read_all(&p, bytes)?;
                Ok(Outcome::Document(
                    simd_json::serde::from_slice(&mut body).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    {
        let p = p.clone();
        add(
            "reader/serde_json".into(),
            Contract::TypedValue,
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
            "visitor/serde_json".into(),
            Contract::TypedValue,
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
            "visitor-aggregate/serde_json".into(),
            Contract::Aggregate,
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
            "struson/serde".into(),
            Contract::TypedValue,
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
            format!("incremental/{}", lib.as_str()),
            Contract::TypedValue,
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
            format!("incremental-aggregate/{}", lib.as_str()),
            Contract::Aggregate,
            Box::new(move || {
                let mut agg = TelemetryAggregate::default();
                for r in c2.reader::<Reading, _>(open(&p2)?) {
                    agg.push(&r.map_err(|e| e.to_string())?);
                }
                Ok(Outcome::Aggregate(agg, lib))
            }),
        );
        let (p3, c3) = (p.clone(), cfg);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        add(
            format!("incremental-async/{}", lib.as_str()),
            Contract::TypedValue,
            Box::new(move || {
                rt.block_on(async {
                    let file = tokio::fs::File::open(&p3)
                        .await
                        .map_err(|e| format!("cannot open {}: {e}", p3.display()))?;
                    let mut elements = c3.stream::<Reading, _>(jsoncost_stream::bytes_stream(file, c3.chunk_size));
                    let mut readings = Vec::new();
                    while let Some(r) = elements.next().await {
                        readings.push(r.map_err(|e| e.to_string())?);
                    }
                    Ok(Outcome::Document(Telemetry {
                        device_id: device_id(elements.field("/DeviceId"))?,
                        readings,
                    }))
                })
            }),
        );
    }
    v
}

/// The file's size, once it is known to be a readable file (exit 2 otherwise).
fn readable(path: &Path) -> Result<u64, Error> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| Error::usage(format!("cannot read telemetry file {shown}: {e}")))?;
    if meta.is_dir() {
        return Err(Error::usage(format!("telemetry file {shown} is a directory")));
    }
    // Every strategy reads the file again, whole or in chunks: a FIFO or a device gives
    // different bytes (or none, or no end) each time.
    if !meta.is_file() {
        return Err(Error::usage(format!(
            "telemetry file {shown} is not a regular file (a FIFO, a device ...): each strategy reads it again, so it must be a file"
        )));
    }
    let mut probe = Vec::new();
    open(path)
        .and_then(|f| f.take(3).read_to_end(&mut probe).map_err(|e| format!("cannot read {shown}: {e}")))
        .map_err(Error::Usage)?;
    if let Some(bom) = crate::input::bom_problem(&probe) {
        return Err(Error::usage(format!("telemetry file {shown} {bom}")));
    }
    Ok(meta.len())
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
fn check(outcome: Result<Outcome, String>, name: &str, path: &Path, config: &jsoncost_stream::Config) -> Verdict {
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
                name,
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
                    gate::verify_streamed::<Telemetry, Reading, _>(name, reference, "/Readings", None, &mut readings)
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

/// Whole runs, at least `runs.min` of each strategy, within a budget per strategy; in the
/// rounds `runner`'s settings schedule (interleaved with its seed, unless sequential).
fn run_config(runs: Runs, quick: bool, runner: &Runner<'_>) -> Config {
    let budget = if quick { Duration::from_secs(2) } else { Duration::from_secs(8) };
    Config {
        schedule: runner.config().schedule,
        seed: runner.config().seed,
        ..Config::whole_runs(runs.min, runs.max, budget, quick)
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
    // sonic-rs has no recursion limit: its buffered parse of the file is guarded once, here,
    // untimed, so what is timed is the parse a user would write.
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
    runner.filter().check_matches_any(list.iter().map(|s| s.name.as_str()))?;
    // The baseline is checked first, even when the filter skips its timing: a baseline that
    // fails on the body leaves nothing to be relative to, so the body is bad input (exit 2 with
    // the baseline's error, and where the incremental parser places the problem).
    runner.sink().status(&format!("stream: {} (check run)", list[0].name));
    let baseline = match list[0].verify(None) {
        Ok(fidelity) => fidelity,
        Err(e) => {
            let mut message = format!(
                "telemetry file {}: the baseline {} fails on it, so nothing is measured: {}",
                path.display(),
                list[0].name,
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
    let total = list.iter().filter(|s| runner.filter().matches(&s.name)).count() as u64;
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
    let mut table = Table::self_checked(ExperimentKind::Stream, "telemetry", params, strategies);
    table.baseline_verified = Some(baseline);
    match runner.with_config(config, |r| r.run(table)) {
        Ok(_) => {}
        Err(Stop::Fatal(m)) => return Err(Error::environment(m)),
        Err(stop) => return Err(stop.into()),
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(readings: u64) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        write_telemetry(&mut f, readings, 7).unwrap();
        f
    }

    /// What a peer gives, with reading `corrupt` (when given) changed on its way out, as a peer
    /// with a bug would change it.
    fn peer(name: &str, path: &Path, corrupt: Option<usize>) -> Result<Outcome, String> {
        let mut i = 0;
        let mut readings = Vec::new();
        let mut agg = TelemetryAggregate::default();
        let aggregate = name.contains("aggregate");
        let mut each = |mut r: Reading| {
            if Some(i) == corrupt {
                r.temperature += 0.5;
            }
            i += 1;
            if aggregate { agg.push(&r) } else { readings.push(r) }
        };
        let device = match name {
            "visitor/serde_json" | "visitor-aggregate/serde_json" => peers::serde_visitor(BufReader::new(open(path)?), &mut each)?,
            "struson/serde" => peers::struson(open(path)?, &mut each)?,
            other => panic!("no peer {other}"),
        };
        if aggregate {
            return Ok(Outcome::Aggregate(agg, Library::SerdeJson));
        }
        Ok(Outcome::Document(Telemetry {
            device_id: device.ok_or("no DeviceId")?,
            readings,
        }))
    }

    #[test]
    fn each_stream_peer_passes_the_gate_and_a_corrupted_reading_fails_it() {
        let f = body(300);
        let config = jsoncost_stream::Config::new("/Readings").unwrap();
        for name in ["visitor/serde_json", "visitor-aggregate/serde_json", "struson/serde"] {
            match check(peer(name, f.path(), None), name, f.path(), &config) {
                Verdict::Pass(fidelity) => assert_eq!(fidelity.numbers, 600, "{name}"),
                Verdict::Fail(m) => panic!("{name} failed the gate: {m}"),
            }
            let Verdict::Fail(message) = check(peer(name, f.path(), Some(123)), name, f.path(), &config) else {
                panic!("{name}: a corrupted reading passed the gate");
            };
            if name.contains("aggregate") {
                assert!(message.starts_with("its aggregate"), "{name}: {message}");
            } else {
                assert!(
                    message.starts_with("output differs from the exact reference at /Readings/123/Temperature"),
                    "{name}: {message}"
                );
            }
        }
    }

    #[test]
    fn the_peers_are_in_the_stream_table() {
        let f = body(3);
        let names: Vec<String> = strategies(f.path(), &jsoncost_stream::Config::new("/Readings").unwrap(), 0, None)
            .into_iter()
            .map(|s| s.name)
            .collect();
        for peer in ["visitor/serde_json", "visitor-aggregate/serde_json", "struson/serde"] {
            assert!(names.iter().any(|n| n == peer), "{peer} missing from {names:?}");
        }
    }
}
