//! `jsoncost micro`: serialize and deserialize each shape (or any document) through every
//! library and API style; one table per (shape, direction).

use anyhow::Context;
use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::{BoxedStrategy, Direction, ShapeModel, document, typed};
use jsoncost_engine::Config;
use jsoncost_shapes::{DEFAULT_SEED, Generator, ORDER_LARGE_LINES, ORDER_LINES, ShapeName};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

use super::table::{Filter, measure_table};
use crate::args::Mebibytes;
use crate::failure::{ExitCode, environment, usage};
use crate::input;
use crate::interrupt;
use crate::progress::Progress;
use crate::session::Session;
use jsoncost_report::files::{self, ReadError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShapeArg {
    Data,
    Order,
    OrderLarge,
    Item,
    Items48,
    All,
}

#[derive(Debug, Clone, clap::Args)]
pub struct MicroArgs {
    /// Shapes to measure (comma-separated or repeated).
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["data", "order"], conflicts_with = "payload")]
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
    #[arg(long, value_name = "MIB", default_value_t = Mebibytes::new(256))]
    pub max_payload_mib: Mebibytes,
    /// Seed of the payload generator.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
}

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
}

/// One table to measure: its name, params and strategies over data it owns.
struct Plan {
    table: String,
    params: Map<String, Value>,
    input: Vec<u8>,
    kind: PlanKind,
}

enum PlanKind {
    Shape(ShapeName, Direction),
    Document(Direction, Vec<String>),
}

fn shape_strategies<'a, T: ShapeModel>(input: &'a [u8], value: &'a Option<T>, direction: Direction) -> Vec<BoxedStrategy<'a>> {
    match (direction, value) {
        (Direction::Deserialize, _) => typed::deserialize_strategies::<T>(input),
        (Direction::Serialize, Some(v)) => typed::serialize_strategies::<T>(v),
        (Direction::Serialize, None) => Vec::new(),
    }
}

/// Typed values the serialize strategies borrow, decoded once from the plan's input.
#[derive(Default)]
struct Values {
    data: Option<jsoncost_shapes::Data>,
    order: Option<jsoncost_shapes::Order>,
    item: Option<jsoncost_shapes::Item>,
    items48: Option<jsoncost_shapes::Items48>,
}

fn strategies_for<'a>(plan: &'a Plan, values: &'a Values) -> anyhow::Result<Vec<BoxedStrategy<'a>>> {
    Ok(match &plan.kind {
        PlanKind::Shape(ShapeName::Data, d) => shape_strategies(&plan.input, &values.data, *d),
        PlanKind::Shape(ShapeName::Order | ShapeName::OrderLarge, d) => shape_strategies(&plan.input, &values.order, *d),
        PlanKind::Shape(ShapeName::Item, d) => shape_strategies(&plan.input, &values.item, *d),
        PlanKind::Shape(ShapeName::Items48, d) => shape_strategies(&plan.input, &values.items48, *d),
        PlanKind::Shape(ShapeName::Telemetry, _) => Vec::new(),
        PlanKind::Document(Direction::Deserialize, fields) => document::deserialize_strategies(&plan.input, fields),
        PlanKind::Document(Direction::Serialize, _) => {
            document::serialize_strategies(&plan.input).map_err(|e| usage(anyhow::anyhow!("{}: {e}", plan.table)))?
        }
    })
}

/// The exact value a plan's strategies are checked against: the exact parse of the input, or for
/// a shape's serialize table the value being written.
fn reference_for(plan: &Plan, values: &Values) -> anyhow::Result<Reference> {
    let of = |r: Result<Reference, String>| r.map_err(|e| usage(anyhow::anyhow!("{}: {e}", plan.table)));
    match (&plan.kind, values) {
        (PlanKind::Shape(_, Direction::Serialize), Values { data: Some(v), .. }) => of(Reference::of(v)),
        (PlanKind::Shape(_, Direction::Serialize), Values { order: Some(v), .. }) => of(Reference::of(v)),
        (PlanKind::Shape(_, Direction::Serialize), Values { item: Some(v), .. }) => of(Reference::of(v)),
        (PlanKind::Shape(_, Direction::Serialize), Values { items48: Some(v), .. }) => of(Reference::of(v)),
        _ => Reference::from_json(&plan.input)
            .map_err(|e| usage(anyhow::anyhow!("{}: the exact reference cannot read the input: {e}", plan.table))),
    }
}

fn decode_values(plan: &Plan) -> anyhow::Result<Values> {
    let mut v = Values::default();
    if let PlanKind::Shape(shape, Direction::Serialize) = plan.kind {
        let i = &plan.input;
        match shape {
            ShapeName::Data => v.data = Some(serde_json::from_slice(i)?),
            ShapeName::Order | ShapeName::OrderLarge => v.order = Some(serde_json::from_slice(i)?),
            ShapeName::Item => v.item = Some(serde_json::from_slice(i)?),
            ShapeName::Items48 => v.items48 = Some(serde_json::from_slice(i)?),
            ShapeName::Telemetry => {}
        }
    }
    Ok(v)
}

fn shape_bytes(shape: ShapeName, seed: u64) -> Vec<u8> {
    let mut g = Generator::new(seed);
    let v = match shape {
        ShapeName::Data => serde_json::to_vec(&g.data(12345)),
        ShapeName::Order => serde_json::to_vec(&g.order(1, ORDER_LINES)),
        ShapeName::OrderLarge => serde_json::to_vec(&g.order(1, ORDER_LARGE_LINES)),
        ShapeName::Item => serde_json::to_vec(&g.item(1)),
        ShapeName::Items48 => serde_json::to_vec(&g.items48(1)),
        ShapeName::Telemetry => serde_json::to_vec(&g.telemetry(1000)),
    };
    v.expect("generated shapes serialize")
}

/// Reads and validates a `--payload` document: every failure names the file and, for bad
/// JSON, the line, column and parser message (exit 2).
pub fn read_payload(path: &Path, max: Mebibytes) -> anyhow::Result<Vec<u8>> {
    let shown = path.display();
    let meta = std::fs::metadata(path).map_err(|e| usage(anyhow::anyhow!("cannot read payload {shown}: {e}")))?;
    if meta.is_dir() {
        return Err(usage(anyhow::anyhow!("payload {shown} is a directory, not a JSON file")));
    }
    // A regular file's size refuses it before reading; the bounded read below is what holds
    // for everything else (a device, a FIFO), whose size says nothing.
    if meta.is_file() && meta.len() > max.bytes() {
        return Err(usage(anyhow::anyhow!(
            "payload {shown} is {:.1} MiB, over the {max} MiB limit (raise it with --max-payload-mib)",
            meta.len() as f64 / (1u64 << 20) as f64
        )));
    }
    let bytes = files::read_limited(path, max.bytes()).map_err(|e| match e {
        ReadError::Io(e) => usage(anyhow::anyhow!("cannot read payload {shown}: {e}")),
        ReadError::TooLarge { .. } => usage(anyhow::anyhow!(
            "payload {shown} holds more than the {max} MiB limit; reading stopped there (raise it with --max-payload-mib)"
        )),
    })?;
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Err(usage(anyhow::anyhow!("payload {shown} is empty: it holds no JSON document")));
    }
    // serde_json checks syntax, UTF-8 and nesting depth (128) with line and column, before any
    // library sees the document: a 100,000-deep document is refused here instead of reaching a
    // recursive parser.
    input::check_document(&bytes).map_err(|why| usage(anyhow::anyhow!("payload {shown} {why}")))?;
    Ok(bytes)
}

fn plans(args: &MicroArgs) -> anyhow::Result<Vec<Plan>> {
    let mut plans = Vec::new();
    if let Some(path) = &args.payload {
        for f in &args.fields {
            document::check_pointer(f).map_err(|e| usage(anyhow::anyhow!(e)))?;
        }
        let input = read_payload(path, args.max_payload_mib)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "payload".into());
        for d in [Direction::Deserialize, Direction::Serialize] {
            let mut params = Map::new();
            params.insert("payload".into(), json!(path.display().to_string()));
            params.insert("payload_bytes".into(), json!(input.len()));
            plans.push(Plan {
                table: format!("{name}/{}", d.as_str()),
                params,
                input: input.clone(),
                kind: PlanKind::Document(d, args.fields.clone()),
            });
        }
        return Ok(plans);
    }
    for shape in args.shapes() {
        let input = shape_bytes(shape, args.seed);
        for d in [Direction::Deserialize, Direction::Serialize] {
            let mut params = Map::new();
            params.insert("shape".into(), json!(shape.as_str()));
            params.insert("payload_bytes".into(), json!(input.len()));
            plans.push(Plan {
                table: format!("{shape}/{}", d.as_str()),
                params,
                input: input.clone(),
                kind: PlanKind::Shape(shape, d),
            });
        }
    }
    Ok(plans)
}

/// Runs the micro experiment into `session`.
pub fn run(args: &MicroArgs, config: &Config, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--filter", args.filter.as_deref())?;
    let plans = plans(args)?;
    let mut decoded = Vec::with_capacity(plans.len());
    let mut names = Vec::new();
    let mut total = 0u64;
    for plan in &plans {
        let values = decode_values(plan)
            .with_context(|| format!("decoding {}", plan.table))
            .map_err(environment)?;
        {
            let strategies = strategies_for(plan, &values)?;
            total += strategies.iter().filter(|s| filter.matches(s.name())).count() as u64;
            names.extend(strategies.iter().map(|s| s.name().to_string()));
        }
        decoded.push(values);
    }
    filter.check_matches_any(names.iter().map(String::as_str))?;
    progress.add_total(total);
    for (plan, values) in plans.iter().zip(&decoded) {
        interrupt::check()?;
        let reference = reference_for(plan, values)?;
        let strategies = strategies_for(plan, values)?;
        let (exp, _) = measure_table(
            "micro",
            &plan.table,
            plan.params.clone(),
            &reference,
            strategies,
            &filter,
            config,
            progress,
        )?;
        if !exp.rows.is_empty() {
            // The strategies read a document that passed serde_json: if none can, the data is
            // what they refuse.
            session.push(exp, ExitCode::Usage);
        }
    }
    interrupt::check()
}
