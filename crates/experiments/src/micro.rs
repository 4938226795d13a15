//! The micro experiment: serialize and deserialize each registered type (the built-in shapes are
//! registered like a user's own types) or any document through every library and API style;
//! one table per (subject, direction).

use jsoncost_codecs::{BoxedStrategy, Direction, document};
use jsoncost_shapes::ShapeName;
#[cfg(feature = "shapes")]
use jsoncost_shapes::{Data, Generator, Item, Items48, ORDER_LARGE_LINES, ORDER_LINES, Order};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use jsoncost_report::files::{self, ReadError};

use crate::error::Error;
use crate::input;
use crate::runner::Runner;
use crate::sizes::PayloadSize;
#[cfg(feature = "shapes")]
use crate::sizes::SizedSubject;
#[cfg(feature = "shapes")]
use crate::types::TypedSubject;
use crate::types::{Subject, measure};

/// What to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct MicroOptions {
    /// Built-in shapes (ignored when `payload` is given).
    pub shapes: Vec<ShapeName>,
    /// Any JSON document instead of the shapes (the strategies that need no Rust type).
    pub payload: Option<PathBuf>,
    /// JSON pointers for `lazy/sonic-rs` with `payload`.
    pub fields: Vec<String>,
    /// Largest `payload` accepted, in MiB.
    pub max_payload_mib: u64,
    /// Seed of the shapes' generator.
    pub seed: u64,
    /// The sizes to sweep the shapes at (empty: each shape at its own size); only `order`
    /// grows and shrinks ([`jsoncost_shapes::order_of_size`]).
    pub sizes: Vec<PayloadSize>,
}

/// A built-in shape, registered as any user's type is: its generated sample, its zero-copy form
/// and the fields a handler that needs only a few would read. Their strategies are compiled
/// with the feature `shapes` (the CLI builds it); a bench crate without it does not pay for them.
#[cfg(feature = "shapes")]
pub fn builtin(shape: ShapeName, seed: u64) -> Result<Box<dyn Subject>, Error> {
    let mut g = Generator::new(seed);
    let bytes = |v: Result<Vec<u8>, serde_json::Error>| v.expect("generated shapes serialize");
    let name = shape.as_str();
    Ok(match shape {
        ShapeName::Data => {
            let subject = TypedSubject::<Data>::new(name, bytes(serde_json::to_vec(&g.data(12345))))?.borrowed_as::<Data>();
            #[cfg(feature = "more-libraries")]
            let subject = subject.jiter_iterator().plain_copy::<jsoncost_shapes::derived::Data>()?;
            Box::new(subject.lazy(&["/Id", "/Name"])?)
        }
        ShapeName::Order | ShapeName::OrderLarge => {
            let lines = if shape == ShapeName::Order {
                ORDER_LINES
            } else {
                ORDER_LARGE_LINES
            };
            order_subject(name, bytes(serde_json::to_vec(&g.order(1, lines))))?
        }
        ShapeName::Item => {
            let subject = TypedSubject::<Item>::new(name, bytes(serde_json::to_vec(&g.item(1))))?.borrowed_as::<Item>();
            #[cfg(feature = "more-libraries")]
            let subject = subject.jiter_iterator();
            Box::new(subject.lazy(&["/id", "/name", "/price"])?)
        }
        ShapeName::Items48 => {
            let subject = TypedSubject::<Items48>::new(name, bytes(serde_json::to_vec(&g.items48(1))))?.borrowed_as::<Items48>();
            #[cfg(feature = "more-libraries")]
            let subject = subject.jiter_iterator();
            Box::new(subject.lazy(&["/0/id", "/0/price", "/47/id"])?)
        }
        ShapeName::OrderModel => Box::new(crate::variants::order_model(seed)?),
        ShapeName::Telemetry => return Err(Error::usage("telemetry is the stream experiment's shape, not a micro one")),
    })
}

/// An order document's subject, with every optional strategy the built-in `order` has.
#[cfg(feature = "shapes")]
fn order_subject(name: &str, document: Vec<u8>) -> Result<Box<dyn Subject>, Error> {
    let subject = TypedSubject::<Order>::new(name, document)?.borrowed_as::<Order>();
    #[cfg(feature = "more-libraries")]
    let subject = subject.jiter_iterator().plain_copy::<jsoncost_shapes::derived::Order>()?;
    Ok(Box::new(subject.lazy(&["/id", "/status", "/total"])?))
}

/// The shapes that a sweep can size: those whose document grows by its line items.
pub const SIZED_SHAPES: [ShapeName; 1] = [ShapeName::Order];

/// `shape` at each of `sizes`: one subject per size, in order, each named `<shape>-<size>`
/// (`order-4KB`), its document within ±10% of the size (bad input, exit 2, where the shape
/// cannot reach it).
#[cfg(feature = "shapes")]
pub fn sized(shape: ShapeName, sizes: &[PayloadSize], seed: u64) -> Result<Vec<Box<dyn Subject>>, Error> {
    if shape == ShapeName::OrderLarge {
        return Err(Error::usage(
            "--sizes sweeps the order shape, of which order-large is the ~40 KB size: give --shape order and, e.g., --sizes 4KB,40KB",
        ));
    }
    if !SIZED_SHAPES.contains(&shape) {
        return Err(Error::usage(format!(
            "--sizes sweeps the order shape only ({} is not sized); give --shape order",
            shape.as_str()
        )));
    }
    sizes
        .iter()
        .map(|size| {
            let (_, document) =
                jsoncost_shapes::order_of_size(seed, size.get()).map_err(|e| Error::usage(format!("--sizes {size}: {e}")))?;
            let name = format!("{}-{}", shape.as_str(), size.label());
            let inner = order_subject(&name, document)?;
            Ok(Box::new(SizedSubject::generated(shape.as_str(), *size, inner)) as Box<dyn Subject>)
        })
        .collect()
}

/// Without the feature `shapes`, the built-in shapes are not compiled in.
#[cfg(not(feature = "shapes"))]
pub fn sized(shape: ShapeName, _sizes: &[PayloadSize], seed: u64) -> Result<Vec<Box<dyn Subject>>, Error> {
    builtin(shape, seed).map(|_| Vec::new())
}

/// Without the feature `shapes`, the built-in shapes are not compiled in.
#[cfg(not(feature = "shapes"))]
pub fn builtin(shape: ShapeName, _seed: u64) -> Result<Box<dyn Subject>, Error> {
    Err(Error::usage(format!(
        "the built-in shape {} needs jsoncost's cargo feature `shapes`",
        shape.as_str()
    )))
}

/// Any JSON document: the strategies that need no Rust type.
pub struct DocumentSubject {
    name: String,
    path: PathBuf,
    input: Vec<u8>,
    fields: Vec<String>,
}

impl Subject for DocumentSubject {
    fn name(&self) -> &str {
        &self.name
    }
    fn params(&self) -> Map<String, Value> {
        let mut params = Map::new();
        params.insert("payload".into(), json!(self.path.display().to_string()));
        params.insert("payload_bytes".into(), json!(self.input.len()));
        params
    }
    fn sample(&self) -> &[u8] {
        &self.input
    }
    fn strategies(&self, direction: Direction) -> Vec<BoxedStrategy<'_>> {
        match direction {
            Direction::Deserialize => document::deserialize_strategies(&self.input, &self.fields),
            // Checked when read: every library parses the document.
            Direction::Serialize => document::serialize_strategies(&self.input).unwrap_or_default(),
        }
    }
}

/// Reads and validates a `--payload` document: every failure names the file and, for bad
/// JSON, the line, column and parser message (exit 2).
pub fn read_payload(path: &Path, max_mib: u64) -> Result<Vec<u8>, Error> {
    let shown = path.display();
    let max_bytes = max_mib.saturating_mul(1 << 20);
    let meta = std::fs::metadata(path).map_err(|e| Error::usage(format!("cannot read payload {shown}: {e}")))?;
    if meta.is_dir() {
        return Err(Error::usage(format!("payload {shown} is a directory, not a JSON file")));
    }
    // A regular file's size refuses it before reading; the bounded read below is what holds
    // for everything else (a device, a FIFO), whose size says nothing.
    if meta.is_file() && meta.len() > max_bytes {
        return Err(Error::usage(format!(
            "payload {shown} is {:.1} MiB, over the {max_mib} MiB limit (raise it with --max-payload-mib)",
            meta.len() as f64 / (1u64 << 20) as f64
        )));
    }
    let bytes = files::read_limited(path, max_bytes).map_err(|e| match e {
        ReadError::Io(e) => Error::usage(format!("cannot read payload {shown}: {e}")),
        ReadError::TooLarge { .. } => Error::usage(format!(
            "payload {shown} holds more than the {max_mib} MiB limit; reading stopped there (raise it with --max-payload-mib)"
        )),
    })?;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(Error::usage(format!("payload {shown} is empty: it holds no JSON document")));
    }
    // serde_json checks syntax, UTF-8 and nesting depth (128) with line and column, before any
    // library sees the document: a 100,000-deep document is refused here instead of reaching a
    // recursive parser.
    input::check_document(&bytes).map_err(|why| Error::usage(format!("payload {shown} {why}")))?;
    Ok(bytes)
}

/// The document of `--payload`, with its lazy fields.
pub fn document(path: &Path, fields: &[String], max_mib: u64) -> Result<DocumentSubject, Error> {
    for f in fields {
        document::check_pointer(f).map_err(Error::Usage)?;
    }
    let input = read_payload(path, max_mib)?;
    check_memory(path, input.len() as u64)?;
    document::serialize_strategies(&input).map_err(|e| Error::usage(format!("payload {}: {e}", path.display())))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "payload".into());
    Ok(DocumentSubject {
        name,
        path: path.to_path_buf(),
        input,
        fields: fields.to_vec(),
    })
}

/// How many times over a payload's size its tables hold it at their peak (its DOMs, tapes and
/// serialized copies at once). Measured as peak RSS over file size, `micro --quick --payload`:
/// 53x for 31 MB of small numbers (8M values), 58x for 20 MB of objects of short strings
/// (1.2M values); this rounds them up.
pub const PAYLOAD_HELD_OVER: u64 = 60;

/// Refuses (exit 3), before any table, a payload whose tables would need more memory than
/// this process can have ([`usable_memory`]), naming both figures: measured, it would end in
/// an allocation failure minutes later.
fn check_memory(path: &Path, bytes: u64) -> Result<(), Error> {
    let needed = bytes.saturating_mul(PAYLOAD_HELD_OVER);
    match usable_memory() {
        Some((usable, what)) if needed > usable => Err(Error::environment(format!(
            "payload {} is {}; its tables hold it about {PAYLOAD_HELD_OVER} times over (about {}), more than the {} this process can use ({what}); measure a smaller sample of it, or where there is more memory",
            path.display(),
            human_bytes(bytes),
            human_bytes(needed),
            human_bytes(usable)
        ))),
        _ => Ok(()),
    }
}

/// The least memory this process may still take, and what limits it: the address-space limit
/// (`ulimit -v`) less the address space in use, the kernel's MemAvailable, the cgroup's
/// memory.max less its usage. `None` when none can be read.
fn usable_memory() -> Option<(u64, String)> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let kib = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        Some(line[key.len()..].trim().trim_end_matches("kB").trim().parse::<u64>().ok()? * 1024)
    };
    let mut limits: Vec<(u64, String)> = Vec::new();
    let mut rlimit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    // SAFETY: getrlimit fills `rlimit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rlimit) } == 0 && rlimit.rlim_cur != libc::RLIM_INFINITY {
        let in_use = kib(&status, "VmSize:").unwrap_or(0);
        limits.push((
            rlimit.rlim_cur.saturating_sub(in_use),
            format!("its address-space limit, ulimit -v, is {}", human_bytes(rlimit.rlim_cur)),
        ));
    }
    if let Some(available) = kib(&meminfo, "MemAvailable:") {
        limits.push((available, "the machine's MemAvailable".to_string()));
    }
    let cgroup = |file: &str| {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{file}"))
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    };
    if let (Some(max), Some(current)) = (cgroup("memory.max"), cgroup("memory.current")) {
        limits.push((
            max.saturating_sub(current),
            format!("its cgroup's memory.max is {}", human_bytes(max)),
        ));
    }
    limits.into_iter().min_by_key(|(bytes, _)| *bytes)
}

fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
    }
}

/// The subjects `options` name.
pub fn subjects(options: &MicroOptions) -> Result<Vec<Box<dyn Subject>>, Error> {
    if let Some(path) = &options.payload {
        return Ok(vec![Box::new(document(path, &options.fields, options.max_payload_mib)?)]);
    }
    if !options.sizes.is_empty() {
        let mut out = Vec::new();
        for s in &options.shapes {
            out.extend(sized(*s, &options.sizes, options.seed)?);
        }
        return Ok(out);
    }
    options.shapes.iter().map(|s| builtin(*s, options.seed)).collect()
}

/// Runs the micro experiment through `runner`.
pub fn run(options: &MicroOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    measure(&subjects(options)?, runner)
}

#[cfg(feature = "cli")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
/// `--shape`: a built-in shape, or all of them.
pub enum ShapeArg {
    /// The small record.
    Data,
    /// The ~4 KB order document.
    Order,
    /// The ~40 KB order document.
    OrderLarge,
    /// One catalogue item.
    Item,
    /// A list of 48 items.
    Items48,
    /// The `order` document plus polymorphic events, through model variants (`order-model/variants`).
    OrderModel,
    /// Every shape above.
    All,
}

#[cfg(feature = "cli")]
/// `jsoncost micro`'s flags.
#[derive(Debug, Clone, clap::Args)]
pub struct MicroArgs {
    /// Shapes to measure (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["data", "order", "order-model"], conflicts_with = "payload")]
    pub shape: Vec<ShapeArg>,
    /// Measure any JSON document instead of a shape (the strategies that need no Rust type).
    #[arg(long, value_name = "FILE")]
    pub payload: Option<PathBuf>,
    /// A JSON pointer for `lazy/sonic-rs` with --payload (repeatable), e.g. /user/id.
    #[arg(long = "field", value_name = "POINTER", requires = "payload")]
    pub fields: Vec<String>,
    /// Only time strategies whose name matches this glob, e.g. 'typed/*' or '*sonic*'.
    #[arg(long, value_name = "GLOB")]
    pub filter: Option<String>,
    /// Largest --payload accepted, in MiB (the document is held in memory several times).
    #[arg(long, value_name = "MIB", default_value_t = crate::flags::Mebibytes::new(input::MAX_PAYLOAD_MIB))]
    pub max_payload_mib: crate::flags::Mebibytes,
    /// Seed of the payload generator.
    #[arg(long, default_value_t = jsoncost_shapes::DEFAULT_SEED)]
    pub seed: u64,
    /// Sweep the order shape at these sizes (comma-separated; B, KB or MB, 1KB = 1024 bytes),
    /// e.g. 1KB,4KB,64KB,1MB: its tables once per size, then where the winner changes.
    #[arg(long, value_name = "SIZES", conflicts_with = "payload")]
    pub sizes: Option<crate::sizes::Sizes>,
}

#[cfg(feature = "cli")]
impl MicroArgs {
    fn shapes(&self) -> Vec<ShapeName> {
        let mut out = Vec::new();
        for s in &self.shape {
            let names: &[ShapeName] = match s {
                ShapeArg::Data => &[ShapeName::Data],
                ShapeArg::Order => &[ShapeName::Order],
                ShapeArg::OrderLarge => &[ShapeName::OrderLarge],
                ShapeArg::Item => &[ShapeName::Item],
                ShapeArg::Items48 => &[ShapeName::Items48],
                ShapeArg::OrderModel => &[ShapeName::OrderModel],
                ShapeArg::All => &ShapeName::MICRO,
            };
            for n in names {
                if !out.contains(n) {
                    out.push(*n);
                }
            }
        }
        out
    }

    /// The library's options these flags give.
    pub fn options(&self) -> MicroOptions {
        MicroOptions {
            shapes: self.shapes(),
            payload: self.payload.clone(),
            fields: self.fields.clone(),
            max_payload_mib: self.max_payload_mib.mib(),
            seed: self.seed,
            sizes: self.sizes.clone().map(|s| s.0).unwrap_or_default(),
        }
    }
}

#[cfg(feature = "cli")]
impl crate::flags::ExperimentArgs for MicroArgs {
    fn kind(&self) -> jsoncost_engine::ExperimentKind {
        jsoncost_engine::ExperimentKind::Micro
    }

    fn run(
        &self,
        config: &jsoncost_engine::MeasureConfig,
        cancel: crate::cancel::Cancel,
        sink: &mut dyn crate::sink::Sink,
    ) -> Result<(), Error> {
        run(
            &self.options(),
            &mut crate::flags::runner(config, "--filter", self.filter.as_deref(), cancel, sink)?,
        )
    }

    fn inputs(&self) -> Vec<(&'static str, &std::path::Path)> {
        self.payload.iter().map(|p| ("--payload", p.as_path())).collect()
    }

    /// Five tables of 14-28 strategies: a short budget per strategy in 10 ms iterations (more
    /// rounds, so the pairing sees the machine's slow phases from both sides).
    fn whole_study_config(&self) -> jsoncost_engine::MeasureConfig {
        jsoncost_engine::MeasureConfig {
            iteration_time: std::time::Duration::from_millis(10),
            budget: std::time::Duration::from_millis(400),
            ..jsoncost_engine::MeasureConfig::full()
        }
    }
}
