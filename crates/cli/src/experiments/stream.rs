//! `jsoncost stream`: deserialize a telemetry body of N readings (1,000,000 ≈ 72 MB) buffered,
//! from a reader, and incrementally with bounded memory; each strategy is timed as a whole run.

use anyhow::anyhow;
use futures::StreamExt;
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

/// What a run produced, for the equality check.
enum Outcome {
    Document(Telemetry),
    Aggregate(TelemetryAggregate),
}

type RunFn = Box<dyn FnMut() -> Result<Outcome, String>>;

struct StreamStrategy {
    name: String,
    run: RunFn,
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

fn strategies(path: &Path, len: u64, config: &jsoncost_stream::Config) -> Vec<StreamStrategy> {
    let mut v: Vec<StreamStrategy> = Vec::new();
    let p = path.to_path_buf();
    let mut add = |name: String, run: RunFn| v.push(StreamStrategy { name, run });
    {
        let p = p.clone();
        add(
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
        add(
            "buffered/sonic-rs".into(),
            Box::new(move || {
                Ok(Outcome::Document(
                    sonic_rs::from_slice(&read_all(&p, len)?).map_err(|e| e.to_string())?,
                ))
            }),
        );
    }
    {
        let p = p.clone();
        add(
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
            format!("incremental-aggregate/{}", lib.as_str()),
            Box::new(move || {
                let mut agg = TelemetryAggregate::default();
                for r in c2.reader::<Reading, _>(open(&p2)?) {
                    agg.push(&r.map_err(|e| e.to_string())?);
                }
                Ok(Outcome::Aggregate(agg))
            }),
        );
        let (p3, c3) = (p.clone(), cfg);
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        add(
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

/// Checks the file is a telemetry document before anything is timed: a bad one is a usage error
/// with the byte offset and element index (exit 2).
fn validate(path: &Path, config: &jsoncost_stream::Config) -> anyhow::Result<(u64, TelemetryAggregate)> {
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
    let mut elements = config.reader::<Reading, _>(open(path).map_err(|e| usage(anyhow!(e)))?);
    let mut agg = TelemetryAggregate::default();
    for r in &mut elements {
        agg.push(&r.map_err(|e| usage(anyhow!("telemetry file {shown}: {e}")))?);
    }
    device_id(elements.field("/DeviceId")).map_err(|e| usage(anyhow!("telemetry file {shown}: {e}")))?;
    Ok((meta.len(), agg))
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
    progress.start(&format!("stream: validating {}", path.display()));
    let (file_bytes, expected_agg) = validate(&path, &inc_config)?;
    let mut list = strategies(&path, file_bytes, &inc_config);
    filter.check_matches_any(list.iter().map(|s| s.name.as_str()))?;
    progress.add_total(list.iter().filter(|s| filter.matches(&s.name)).count() as u64);

    let budget = if quick { Duration::from_secs(2) } else { Duration::from_secs(8) };
    let config = Config::whole_runs(args.runs, args.runs * 2, budget, quick);
    let mut exp = Experiment::new("stream", "telemetry");
    exp.params = Map::new();
    exp.params.insert("file".into(), json!(path.display().to_string()));
    exp.params.insert("payload_bytes".into(), json!(file_bytes));
    exp.params.insert("readings".into(), json!(expected_agg.count()));
    exp.params.insert("chunk_kib".into(), json!(args.chunk_kib));
    let mut reference: Option<Telemetry> = None;
    for (i, s) in list.iter_mut().enumerate() {
        if interrupt::interrupted() {
            break;
        }
        // The baseline's document is the reference even when the filter skips its timing.
        let timed = filter.matches(&s.name);
        if !timed && i > 0 {
            continue;
        }
        progress.start(&format!("stream: {} (check run)", s.name));
        let check = match (s.run)() {
            Err(e) => Err(e),
            Ok(Outcome::Document(doc)) => match &reference {
                None => {
                    let agg = TelemetryAggregate::of(&doc.readings);
                    if agg != expected_agg {
                        Err(format!(
                            "its readings aggregate to {agg:?}, the incremental validation pass to {expected_agg:?}"
                        ))
                    } else {
                        reference = Some(doc);
                        Ok(())
                    }
                }
                Some(r) if *r == doc => Ok(()),
                Some(r) => Err(first_difference(r, &doc)),
            },
            Ok(Outcome::Aggregate(agg)) if agg == expected_agg => Ok(()),
            Ok(Outcome::Aggregate(agg)) => Err(format!("aggregate {agg:?} differs from {expected_agg:?}")),
        };
        if !timed {
            continue;
        }
        let mut row = match check {
            Err(e) => Row::failed(&s.name, format!("output differs from the baseline or failed: {e}")),
            Ok(()) => {
                progress.start(&format!("stream: {}", s.name));
                let m = measure(&config, || (s.run)());
                let mut row = Row::new(&s.name);
                m.fill(&mut row, Some(file_bytes));
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

fn first_difference(expected: &Telemetry, got: &Telemetry) -> String {
    if expected.device_id != got.device_id {
        return format!("DeviceId {:?} instead of {:?}", got.device_id, expected.device_id);
    }
    if expected.readings.len() != got.readings.len() {
        return format!("{} readings instead of {}", got.readings.len(), expected.readings.len());
    }
    match expected.readings.iter().zip(&got.readings).position(|(a, b)| a != b) {
        Some(i) => format!("reading {i} is {:?} instead of {:?}", got.readings[i], expected.readings[i]),
        None => "documents differ".into(),
    }
}
