//! `jsoncost stream`: deserialize a telemetry body of N readings (1,000,000 ≈ 72 MB) buffered,
//! from a reader, and incrementally with bounded memory; each strategy is timed as a whole run.

use anyhow::anyhow;
use futures::StreamExt;
use jsoncost_codecs::gate::{self, Verdict};
use jsoncost_engine::{Config, Experiment, Row, Status, measure};
use jsoncost_shapes::{DEFAULT_SEED, Reading, Telemetry, write_telemetry};
use jsoncost_stream::{Library, TelemetryAggregate};
use serde_json::{Map, json};
use std::fs::File;
use std::io::{BufReader, BufWriter, Read};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::table::Filter;
use crate::failure::{ExitCode, environment, usage};
use crate::interrupt;
use crate::progress::Progress;
use crate::session::Session;
use jsoncost_report::files::ReadError;

#[derive(Debug, Clone, clap::Args)]
pub struct StreamArgs {
    /// Readings in the generated body (1,000,000 is ~72 MB); not with --file, which has its own.
    #[arg(long, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(0..=50_000_000), conflicts_with = "file")]
    pub readings: u64,
    /// Use this telemetry file instead of generating one.
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// Chunk size of the incremental strategies, in KiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=65_536))]
    pub chunk_kib: u64,
    /// Largest element the incremental strategies accept, in bytes (at least 1).
    #[arg(long, default_value_t = jsoncost_stream::DEFAULT_MAX_ELEMENT_BYTES, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub max_element_bytes: usize,
    /// Whole runs per strategy (at least; the median and mean are over them).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(2..=100))]
    pub runs: u32,
    /// Only time strategies whose name matches this glob.
    #[arg(long = "stream-filter", value_name = "GLOB")]
    pub stream_filter: Option<String>,
}

/// What a run produced, for the gate.
enum Outcome {
    Document(Telemetry),
    /// The aggregate, and the library whose readings it aggregates.
    Aggregate(TelemetryAggregate, Library),
}

type RunFn = Box<dyn FnMut() -> Result<Outcome, String>>;

struct StreamStrategy {
    name: String,
    run: RunFn,
    /// Why the depth guard refused the file for this strategy's library: the row fails with it
    /// and is never run.
    refused: Option<String>,
}

/// Where the generated body lives: a cache file per (readings, seed), written once.
fn generated_file(readings: u64) -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join("jsoncost");
    std::fs::create_dir_all(&dir).map_err(|e| environment(anyhow!("cannot create {}: {e}", dir.display())))?;
    let path = dir.join(format!("telemetry-{readings}-{DEFAULT_SEED:x}.json"));
    if path.exists() {
        return Ok(path);
    }
    // Written to a temp name and renamed, so an interrupted write never leaves a half file.
    let tmp = dir.join(format!(".telemetry-{readings}-{}.tmp", std::process::id()));
    let file = File::create(&tmp).map_err(|e| environment(anyhow!("cannot create {}: {e}", tmp.display())))?;
    write_telemetry(BufWriter::new(file), readings, DEFAULT_SEED).map_err(|e| environment(anyhow!("writing {}: {e}", tmp.display())))?;
    std::fs::rename(&tmp, &path).map_err(|e| environment(anyhow!("renaming {}: {e}", tmp.display())))?;
    Ok(path)
}

fn open(path: &Path) -> Result<File, String> {
    File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))
}

/// The whole file, which was `len` bytes when validated: a read that finds more stops there.
fn read_all(path: &Path, len: u64) -> Result<Vec<u8>, String> {
    jsoncost_report::files::read_limited(path, len).map_err(|e| match e {
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
fn guard_file(path: &Path, library: Library) -> anyhow::Result<Option<String>> {
    let mut file = open(path).map_err(|e| environment(anyhow!(e)))?;
    let mut guard = jsoncost_stream::DepthGuard::new(library);
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file
            .read(&mut buf)
            .map_err(|e| environment(anyhow!("cannot read {}: {e}", path.display())))?;
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
fn strategies(path: &Path, len: u64, config: &jsoncost_stream::Config, too_deep: Option<String>) -> Vec<StreamStrategy> {
    let mut v: Vec<StreamStrategy> = Vec::new();
    let p = path.to_path_buf();
    let add = |v: &mut Vec<StreamStrategy>, name: String, run: RunFn| v.push(StreamStrategy { name, run, refused: None });
    {
        let p = p.clone();
        add(
            &mut v,
            "buffered/serde_json".into(),
            Box::new(move || {
                Ok(Outcome::Document(
                    serde_json::from_slice(&read_all(&p, len)?).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    {
        let p = p.clone();
        v.push(StreamStrategy {
            name: "buffered/sonic-rs".into(),
            run: Box::new(move || {
                Ok(Outcome::Document(
                    sonic_rs::from_slice(&read_all(&p, len)?).map_err(|e| e.to_string())?,
                ))
            }),
            refused: too_deep,
        });
    }
    {
        let p = p.clone();
        add(
            &mut v,
            "buffered/simd-json".into(),
            Box::new(move || {
                let mut bytes = read_all(&p, len)?;
                Ok(Outcome::Document(
                    simd_json::serde::from_slice(&mut bytes).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    {
        let p = p.clone();
        add(
            &mut v,
            "reader/serde_json".into(),
            Box::new(move || {
                Ok(Outcome::Document(
                    serde_json::from_reader(BufReader::new(open(&p)?)).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    for lib in [Library::SerdeJson, Library::SonicRs, Library::SimdJson] {
        let cfg = config.clone().library(lib);
        let (p1, c1) = (p.clone(), cfg.clone());
        add(
            &mut v,
            format!("incremental/{}", lib.as_str()),
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
            &mut v,
            format!("incremental-aggregate/{}", lib.as_str()),
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
            &mut v,
            format!("incremental-async/{}", lib.as_str()),
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
fn readable(path: &Path) -> anyhow::Result<u64> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| usage(anyhow!("cannot read telemetry file {shown}: {e}")))?;
    if meta.is_dir() {
        return Err(usage(anyhow!("telemetry file {shown} is a directory")));
    }
    // Every strategy reads the file again, whole or in chunks: a FIFO or a device gives
    // different bytes (or none, or no end) each time.
    if !meta.is_file() {
        return Err(usage(anyhow!(
            "telemetry file {shown} is not a regular file (a FIFO, a device ...): each strategy reads it again, so it must be a file"
        )));
    }
    let mut probe = Vec::new();
    open(path)
        .and_then(|f| f.take(3).read_to_end(&mut probe).map_err(|e| format!("cannot read {shown}: {e}")))
        .map_err(|e| usage(anyhow!(e)))?;
    if let Some(bom) = crate::input::bom_problem(&probe) {
        return Err(usage(anyhow!("telemetry file {shown} {bom}")));
    }
    Ok(meta.len())
}

/// Checks the file is a telemetry document before anything is timed: a bad one is a usage error
/// with the byte offset and element index (exit 2).
fn validate(path: &Path, config: &jsoncost_stream::Config) -> anyhow::Result<(u64, TelemetryAggregate)> {
    let shown = path.display();
    let len = readable(path)?;
    let mut elements = config.reader::<Reading, _>(open(path).map_err(|e| usage(anyhow!(e)))?);
    let mut agg = TelemetryAggregate::default();
    for r in &mut elements {
        agg.push(&r.map_err(|e| usage(anyhow!("telemetry file {shown}: {e}")))?);
    }
    device_id(elements.field("/DeviceId")).map_err(|e| usage(anyhow!("telemetry file {shown}: {e}")))?;
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

fn mib(bytes: Option<u64>) -> String {
    bytes
        .map(|b| format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64))
        .unwrap_or_else(|| "-".into())
}

/// "incremental/X: Y MB/s (Z× of buffered), peak heap P vs Q buffered."
pub fn summary(exp: &Experiment) -> Vec<String> {
    let ok = |name: String| exp.rows.iter().find(|r| r.method == name && r.status == Status::Ok).cloned();
    let mut lines = Vec::new();
    for lib in ["serde_json", "sonic-rs", "simd-json"] {
        if let (Some(inc), Some(buf)) = (ok(format!("incremental/{lib}")), ok(format!("buffered/{lib}"))) {
            let (Some(a), Some(b)) = (inc.mb_per_s, buf.mb_per_s) else {
                continue;
            };
            let agg = ok(format!("incremental-aggregate/{lib}")).and_then(|r| r.peak_bytes);
            lines.push(format!(
                "incremental/{lib}: {a:.0} MB/s ({:.2}× of buffered), peak heap {} vs {} buffered; incremental-aggregate peak heap {}.",
                a / b,
                mib(inc.peak_bytes),
                mib(buf.peak_bytes),
                mib(agg)
            ));
        }
    }
    lines
}

/// Runs the stream experiment into `session`.
pub fn run(args: &StreamArgs, quick: bool, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--stream-filter", args.stream_filter.as_deref())?;
    let inc_config = jsoncost_stream::Config::new("/Readings")
        .expect("a valid pointer")
        .chunk_size((args.chunk_kib * 1024) as usize)
        .max_element_bytes(args.max_element_bytes);
    let path = match &args.file {
        Some(p) => p.clone(),
        None => {
            progress.start(&format!("stream: generating {} readings", args.readings));
            generated_file(args.readings)?
        }
    };
    let len = readable(&path)?;
    // sonic-rs has no recursion limit: its buffered parse of the file is guarded once, here,
    // untimed, so what is timed is the parse a user would write.
    let too_deep = if filter.matches("buffered/sonic-rs") {
        guard_file(&path, Library::SonicRs)?
    } else {
        None
    };
    let mut list = strategies(&path, len, &inc_config, too_deep);
    filter.check_matches_any(list.iter().map(|s| s.name.as_str()))?;
    // The baseline is checked first, even when the filter skips its timing: a baseline that
    // fails on the body leaves nothing to be relative to, so the body is bad input (exit 2 with
    // the baseline's error, and where the incremental parser places the problem).
    progress.start(&format!("stream: {} (check run)", list[0].name));
    let mut baseline = Some(check((list[0].run)(), &list[0].name, &path, &inc_config));
    if let Some(Verdict::Fail(e)) = &baseline {
        let mut message = format!(
            "telemetry file {}: the baseline {} fails on it, so nothing is measured: {}",
            path.display(),
            list[0].name,
            // The library's message can quote a whole offending string.
            jsoncost_stream::shorten_message(e)
        );
        if let Err(located) = validate(&path, &inc_config) {
            message.push_str(&format!(" (the incremental parser: {located:#})"));
        }
        return Err(usage(anyhow!(message)));
    }
    progress.start(&format!("stream: validating {}", path.display()));
    let (file_bytes, readings) = validate(&path, &inc_config)?;
    progress.add_total(list.iter().filter(|s| filter.matches(&s.name)).count() as u64);

    let budget = if quick { Duration::from_secs(2) } else { Duration::from_secs(8) };
    let config = Config::whole_runs(args.runs, args.runs * 2, budget, quick);
    let mut exp = Experiment::new("stream", "telemetry");
    exp.params = Map::new();
    exp.params.insert("file".into(), json!(path.display().to_string()));
    exp.params.insert("payload_bytes".into(), json!(file_bytes));
    exp.params.insert("readings".into(), json!(readings.count()));
    exp.params.insert("chunk_kib".into(), json!(args.chunk_kib));
    for (i, s) in list.iter_mut().enumerate() {
        if interrupt::interrupted() {
            break;
        }
        if !filter.matches(&s.name) {
            continue;
        }
        let verdict = match baseline.take() {
            Some(v) if i == 0 => v,
            _ => {
                progress.start(&format!("stream: {} (check run)", s.name));
                let outcome = match &s.refused {
                    Some(refused) => Err(refused.clone()),
                    None => (s.run)(),
                };
                check(outcome, &s.name, &path, &inc_config)
            }
        };
        let mut row = match verdict {
            Verdict::Fail(e) => Row::failed(&s.name, e),
            Verdict::Pass(fidelity) => {
                progress.start(&format!("stream: {}", s.name));
                let m = measure(&config, || (s.run)());
                let mut row = Row::new(&s.name);
                m.fill(&mut row, Some(file_bytes));
                row.fidelity = Some(fidelity);
                row
            }
        };
        row.baseline = i == 0;
        exp.rows.push(row);
        progress.done_one();
    }
    exp.finish();
    exp.summary = summary(&exp);
    // The file passed the incremental validation: strategies that all fail refuse its data.
    session.push(exp, ExitCode::Usage);
    interrupt::check()
}
