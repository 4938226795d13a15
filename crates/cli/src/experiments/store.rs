//! `jsoncost store`: read one document by id from a real store in several ways, down to the
//! floor (raw bytes read, discarded), and show how much of the read is JSON work.

use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::typed::{pointer_tree, sonic_projection};
use jsoncost_codecs::{BoxedStrategy, Canonical, RunFailure, Strategy};
use jsoncost_engine::{Config, Experiment, Row, Status};
use jsoncost_shapes::{DEFAULT_SEED, ORDER_LARGE_LINES, ORDER_LINES, Order};
use jsoncost_stores::{LoadOutcome, OpenOptions, OrderDocs, PgColumn, Store, StoreError, ensure_loaded, open_or_default};
use jsoncost_stream::Library;
use rand::{Rng, SeedableRng};
use serde_json::{Map, json};
use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;

use super::table::{Filter, measure_table};
use crate::failure::Failure;
use crate::progress::Progress;
use crate::session::Session;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StoreShape {
    Order,
    OrderLarge,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PgColumnArg {
    Json,
    Jsonb,
}

#[derive(Debug, Clone, clap::Args)]
pub struct StoreArgs {
    /// The store: redb:PATH (default: a file under the temp dir), sqlite:PATH, redis://HOST:PORT,
    /// redis+cluster://HOST:PORT,HOST:PORT,..., postgres://USER@HOST:PORT/DB.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// PostgreSQL: read the `json` or the `jsonb` table.
    #[arg(long, value_enum, default_value_t = PgColumnArg::Json)]
    pub pg_column: PgColumnArg,
    /// Distinct documents in the store.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub docs: u64,
    /// The document shape: order (~4 KB) or order-large (~40 KB).
    #[arg(long = "store-shape", visible_alias = "doc-shape", value_enum, default_value_t = StoreShape::Order)]
    pub store_shape: StoreShape,
    /// Load the documents again even if the store already holds them.
    #[arg(long)]
    pub reload: bool,
    /// Only time strategies whose name matches this glob.
    #[arg(long = "store-filter", value_name = "GLOB")]
    pub store_filter: Option<String>,
    /// Seed of the document generator and of the id sequence.
    #[arg(long = "store-seed", default_value_t = DEFAULT_SEED)]
    pub store_seed: u64,
}

fn store_error(e: StoreError) -> anyhow::Error {
    let code = if e.exit_code() == 3 {
        crate::failure::ExitCode::Environment
    } else {
        crate::failure::ExitCode::Usage
    };
    Failure { code, error: e.into() }.into()
}

/// The ids every strategy reads, in the same seeded order.
struct IdSequence {
    ids: Rc<Vec<String>>,
}

impl IdSequence {
    fn new(docs: u64, seed: u64) -> Self {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x1D5);
        let ids = (0..4096).map(|_| OrderDocs::id(rng.random_range(0..docs))).collect();
        IdSequence { ids: Rc::new(ids) }
    }
}

type Shared = Rc<RefCell<Box<dyn Store>>>;

/// The first error that ends the run (the server went away ...), whichever strategy met it,
/// in the gate's read or a timed one.
type Lost = Rc<RefCell<Option<String>>>;

/// What one read does with the store: (store, collection, id, checking) → the canonical output
/// when checking (the gate), nothing when timed.
type ReadOp = Box<dyn FnMut(&mut dyn Store, &str, &str, bool) -> Result<Option<Canonical>, StoreError>>;

/// A store read strategy: one read of the next id per operation.
struct ReadStrategy {
    name: &'static str,
    store: Shared,
    collection: String,
    ids: Rc<Vec<String>>,
    cursor: usize,
    op: ReadOp,
    failure: Option<RunFailure>,
    lost: Lost,
    bytes: Option<u64>,
    /// Why the depth guard refused one of the documents the timed reads visit (libraries
    /// without a recursion limit only): the row fails with it, untimed.
    refused: Option<String>,
}

impl ReadStrategy {
    /// Records an error that ends the run (not a per-document one).
    fn note_fatal(&mut self, e: &StoreError) {
        if e.is_document_error() {
            return;
        }
        let message = e.to_string();
        self.lost.borrow_mut().get_or_insert_with(|| format!("{}: {message}", self.name));
        // Replaces a per-document failure met earlier: the run must stop now.
        if !self.failure.as_ref().is_some_and(|f| f.fatal) {
            self.failure = Some(RunFailure { message, fatal: true });
        }
    }
}

impl Strategy for ReadStrategy {
    fn name(&self) -> &str {
        self.name
    }

    fn check(&mut self) -> Result<Canonical, String> {
        if let Some(lost) = self.lost.borrow().as_ref() {
            return Err(format!("not run: the store failed earlier ({lost})"));
        }
        if let Some(refused) = &self.refused {
            return Err(refused.clone());
        }
        let id = self.ids[0].clone();
        let result = {
            let mut store = self.store.borrow_mut();
            (self.op)(store.as_mut(), &self.collection, &id, true)
        };
        match result {
            Ok(Some(c)) => Ok(c),
            Ok(None) => Err("the read produced nothing to check".into()),
            Err(e) => {
                // A server lost during the gate's read ends the run as it would mid-timing.
                self.note_fatal(&e);
                Err(e.to_string())
            }
        }
    }

    fn run(&mut self) {
        if self.failure.as_ref().is_some_and(|f| f.fatal) {
            return;
        }
        let id = &self.ids[self.cursor % self.ids.len()];
        self.cursor += 1;
        let result = {
            let mut store = self.store.borrow_mut();
            (self.op)(store.as_mut(), &self.collection, id, false)
        };
        if let Err(e) = result {
            self.note_fatal(&e);
            if self.failure.is_none() {
                self.failure = Some(RunFailure {
                    message: e.to_string(),
                    fatal: false,
                });
            }
        }
    }

    fn payload_bytes(&self) -> Option<u64> {
        self.bytes
    }

    fn begin_allocation_pass(&mut self) {
        self.cursor = 0;
    }

    fn failure(&mut self) -> Option<RunFailure> {
        self.failure.clone()
    }
}

fn decode_err(collection: &str, id: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Decode {
        collection: collection.to_string(),
        id: id.to_string(),
        message: e.to_string(),
    }
}

/// Reads raw bytes and applies `f` to them; a decoding error names the id.
fn with_raw<T>(store: &mut dyn Store, collection: &str, id: &str, mut f: impl FnMut(&[u8]) -> Result<T, String>) -> Result<T, StoreError> {
    let mut out = None;
    store.read_raw(collection, id, &mut |bytes| out = Some(f(bytes)))?;
    match out {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(decode_err(collection, id, e)),
        None => Err(StoreError::NotFound {
            store: store.describe(),
            collection: collection.into(),
            id: id.into(),
        }),
    }
}

fn canonical<T: serde::Serialize>(check: bool, v: &T) -> Result<Option<Canonical>, StoreError> {
    if check {
        Canonical::of(v).map(Some).map_err(|e| StoreError::Backend {
            store: "gate".into(),
            operation: "canonical form".into(),
            cause: e,
        })
    } else {
        black_box(v);
        Ok(None)
    }
}

/// Decodes raw bytes with `decode`, for the typed strategies over `read_raw`.
fn typed_op(decode: fn(&[u8], bool) -> Result<Option<Canonical>, String>) -> ReadOp {
    Box::new(move |s, col, id, check| with_raw(s, col, id, |b| decode(b, check)))
}

fn out<T: serde::Serialize>(check: bool, v: &T) -> Result<Option<Canonical>, String> {
    canonical(check, v).map_err(|e| e.to_string())
}

/// The strategies' names, in [`strategies`]' order: a `--store-filter` is checked against them
/// before the store is opened and loaded.
const METHODS: [&str; 8] = [
    "default",
    "default-dom",
    "typed/serde_json",
    "typed/sonic-rs",
    "typed/simd-json",
    "borrowed/serde_json",
    "lazy/sonic-rs",
    "floor",
];

/// The first document among those the timed reads visit that the depth guard refuses for a
/// library without a recursion limit, as the row's message; None when all pass. Run once,
/// untimed, so the timed sonic-rs parse is measured as a user's would be. Per-document read
/// errors are left to the strategies, which report them.
fn guard_visited(store: &mut dyn Store, collection: &str, ids: &IdSequence, library: Library) -> Result<Option<String>, StoreError> {
    let mut seen = std::collections::HashSet::new();
    for id in ids.ids.iter().filter(|id| seen.insert(id.as_str())) {
        let mut verdict = Ok(());
        match store.read_raw(collection, id, &mut |bytes| verdict = library.guard_depth(bytes)) {
            Err(e) if !e.is_document_error() => return Err(e),
            _ => {}
        }
        if let Err(deep) = verdict {
            return Ok(Some(format!("document {id:?}: {deep}; not timed")));
        }
    }
    Ok(None)
}

/// The strategies, baseline (`default`) first. `too_deep`: [`guard_visited`]'s verdict for
/// sonic-rs, which fails `typed/sonic-rs` and `lazy/sonic-rs` (skipping a value recurses too).
fn strategies(
    store: &Shared,
    lost: &Lost,
    collection: &str,
    ids: &IdSequence,
    bytes: u64,
    too_deep: Option<String>,
) -> Vec<BoxedStrategy<'static>> {
    let make_refused = |name: &'static str, refused: Option<String>, op: ReadOp| -> BoxedStrategy<'static> {
        Box::new(ReadStrategy {
            name,
            store: store.clone(),
            collection: collection.to_string(),
            ids: ids.ids.clone(),
            cursor: 0,
            op,
            failure: None,
            lost: lost.clone(),
            bytes: Some(bytes),
            refused,
        })
    };
    let make = |name: &'static str, op: ReadOp| make_refused(name, None, op);
    let lazy_fields: Vec<String> = ["/id", "/status", "/total"].iter().map(|s| s.to_string()).collect();
    let tree = pointer_tree(&lazy_fields);
    vec![
        make("default", Box::new(|s, col, id, check| canonical(check, &s.read_default(col, id)?))),
        make(
            "default-dom",
            Box::new(|s, col, id, check| canonical(check, &s.read_default_dom(col, id)?)),
        ),
        make(
            "typed/serde_json",
            typed_op(|b, check| out(check, &serde_json::from_slice::<Order>(b).map_err(|e| e.to_string())?)),
        ),
        make_refused(
            "typed/sonic-rs",
            too_deep.clone(),
            typed_op(|b, check| out(check, &sonic_rs::from_slice::<Order>(b).map_err(|e| e.to_string())?)),
        ),
        make(
            "typed/simd-json",
            typed_op(|b, check| {
                let mut buf = b.to_vec();
                out(check, &simd_json::serde::from_slice::<Order>(&mut buf).map_err(|e| e.to_string())?)
            }),
        ),
        make(
            "borrowed/serde_json",
            typed_op(|b, check| out(check, &serde_json::from_slice::<Order<&str>>(b).map_err(|e| e.to_string())?)),
        ),
        make_refused(
            "lazy/sonic-rs",
            too_deep.clone(),
            Box::new(move |s, col, id, check| {
                with_raw(s, col, id, |b| {
                    let mut out = None;
                    sonic_projection(b, &tree, &lazy_fields, check.then_some(&mut out))?;
                    Ok(out)
                })
            }),
        ),
        // Timed: the bytes are read and discarded. Checked: they must be the document.
        make(
            "floor",
            typed_op(|b, check| {
                if check {
                    Canonical::of_json_bytes(b).map(Some)
                } else {
                    black_box(b.len());
                    Ok(None)
                }
            }),
        ),
    ]
}

/// "JSON is X µs of a Y µs read (Z%); the cheapest typed path removes W% of it and allocates V× less."
pub fn summary(exp: &Experiment) -> Vec<String> {
    let ok = |name: &str| exp.rows.iter().find(|r| r.method == name && r.status == Status::Ok);
    let (Some(base), Some(floor)) = (ok("default"), ok("floor")) else {
        return Vec::new();
    };
    let (Some(y), Some(f)) = (base.mean_ns, floor.mean_ns) else {
        return Vec::new();
    };
    let json = (y - f).max(0.0);
    let mut lines = vec![format!(
        "JSON is {:.1} µs of a {:.1} µs read ({:.0}%).",
        json / 1e3,
        y / 1e3,
        json / y * 100.0
    )];
    let typed = exp
        .rows
        .iter()
        .filter(|r| r.status == Status::Ok && (r.method.starts_with("typed/") || r.method.starts_with("borrowed/")))
        .min_by(|a, b| a.mean_ns.unwrap_or(f64::MAX).total_cmp(&b.mean_ns.unwrap_or(f64::MAX)));
    if let Some(t) = typed {
        let removed = if json > 0.0 {
            (y - t.mean_ns.unwrap_or(y)) / json * 100.0
        } else {
            0.0
        };
        let alloc = match (base.allocated_bytes, t.allocated_bytes) {
            (Some(_), Some(0.0)) => "allocates nothing".to_string(),
            (Some(b), Some(a)) if b >= a => format!("allocates {:.1}× less", b / a),
            (Some(b), Some(a)) if b > 0.0 => format!("allocates {:.1}× more", a / b),
            (Some(_), Some(a)) => format!("allocates {a:.0} B per read where the baseline allocates nothing"),
            _ => "allocation not measured".to_string(),
        };
        // Claim a saving only when the confidence intervals do not overlap: on a network store
        // the round trip's noise can be larger than the JSON work itself.
        let upper = |r: &Row| r.mean_ns.unwrap_or(f64::MAX) + r.error_ns.unwrap_or(0.0);
        let lower = |r: &Row| r.mean_ns.unwrap_or(0.0) - r.error_ns.unwrap_or(0.0);
        if json > 0.0 && upper(t) < lower(base) {
            lines.push(format!(
                "The cheapest typed path ({}) removes {removed:.0}% of it and {alloc}.",
                t.method
            ));
        } else {
            lines.push(format!(
                "No typed path is measurably faster than default here (the cheapest, {}, is within the noise of the read); it {alloc}.",
                t.method
            ));
        }
    }
    lines
}

/// Runs the store experiment into `session`.
pub fn run(args: &StoreArgs, config: &Config, session: &mut Session, progress: &Progress) -> anyhow::Result<()> {
    let filter = Filter::new("--store-filter", args.store_filter.as_deref())?;
    filter.check_matches_any(METHODS)?;
    let url = args.store.clone().unwrap_or_else(jsoncost_stores::default_store_url);
    let opts = OpenOptions {
        pg_column: match args.pg_column {
            PgColumnArg::Json => PgColumn::Json,
            PgColumnArg::Jsonb => PgColumn::Jsonb,
        },
        ..OpenOptions::default()
    };
    progress.start(&format!("store: connecting to {url}"));
    let mut store = open_or_default(args.store.as_deref(), &opts).map_err(store_error)?;
    if store.describe() != url {
        progress.note(&format!("store: {url} is in use by another process; using {}", store.describe()));
    }
    let (collection, lines) = match args.store_shape {
        StoreShape::Order => ("order", ORDER_LINES),
        StoreShape::OrderLarge => ("order-large", ORDER_LARGE_LINES),
    };
    let docs = OrderDocs {
        count: args.docs,
        lines,
        seed: args.store_seed,
    };
    progress.start(&format!("store: loading {} documents into {}", args.docs, store.describe()));
    match ensure_loaded(store.as_mut(), collection, &docs.marker(), args.reload, || docs.documents()).map_err(store_error)? {
        LoadOutcome::Reused(_) => progress.note(&format!(
            "store: reusing {} {collection} documents in {} (--reload to load again)",
            args.docs,
            store.describe()
        )),
        LoadOutcome::Loaded { docs, elapsed } => progress.note(&format!(
            "store: loaded {docs} {collection} documents into {} in {:.1} s",
            store.describe(),
            elapsed.as_secs_f64()
        )),
    }
    let sample_len = {
        let mut n = 0;
        store
            .read_raw(collection, &OrderDocs::id(0), &mut |b| n = b.len())
            .map_err(store_error)?;
        n as u64
    };
    let ids = IdSequence::new(args.docs, args.store_seed);
    // The gate's reference: the exact parse of the raw document every check reads (the first id).
    let reference = {
        let id = &ids.ids[0];
        let mut parsed = None;
        store
            .read_raw(collection, id, &mut |b| parsed = Some(Reference::from_json(b)))
            .map_err(store_error)?;
        match parsed {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                return Err(crate::failure::usage(anyhow::anyhow!(
                    "{collection} document {id} in {}: the exact reference cannot read it: {e}",
                    store.describe()
                )));
            }
            None => {
                return Err(crate::failure::usage(anyhow::anyhow!(
                    "{collection} document {id} is not in {}",
                    store.describe()
                )));
            }
        }
    };
    let kind = store.kind();
    let described = store.describe();
    let shared: Shared = Rc::new(RefCell::new(store));
    let lost: Lost = Rc::default();
    let too_deep = if filter.matches("typed/sonic-rs") || filter.matches("lazy/sonic-rs") {
        progress.start("store: checking the nesting depth of the documents read (sonic-rs has no recursion limit)");
        guard_visited(shared.borrow_mut().as_mut(), collection, &ids, Library::SonicRs).map_err(store_error)?
    } else {
        None
    };
    let list = strategies(&shared, &lost, collection, &ids, sample_len, too_deep);
    progress.add_total(list.iter().filter(|s| filter.matches(s.name())).count() as u64);

    let table = format!("{}/{collection}", kind.as_str());
    let mut params = Map::new();
    params.insert("store".into(), json!(described));
    params.insert("shape".into(), json!(collection));
    params.insert("docs".into(), json!(args.docs));
    params.insert("payload_bytes".into(), json!(sample_len));
    let (mut exp, fatal) = measure_table("store", &table, params, &reference, list, &filter, config, progress)?;
    exp.summary = summary(&exp);
    // A lost store ends the run below (exit 3); rows that failed otherwise refused documents.
    session.push(exp, crate::failure::ExitCode::Usage);
    // measure_table reports a fatal failure met while timing; one met in a gate read is only
    // in `lost`.
    if let Some(message) = fatal.or_else(|| lost.borrow_mut().take()) {
        return Err(crate::failure::environment(anyhow::anyhow!("store run stopped: {message}")));
    }
    crate::interrupt::check()
}

#[cfg(test)]
mod tests {
    use super::summary;
    use jsoncost_engine::{Experiment, Row};

    #[test]
    fn the_filter_is_checked_against_the_strategies_names() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("redb:{}", dir.path().join("s.redb").display());
        let store = jsoncost_stores::open(&url, &jsoncost_stores::OpenOptions::default()).unwrap();
        let shared: super::Shared = std::rc::Rc::new(std::cell::RefCell::new(store));
        let ids = super::IdSequence::new(10, 1);
        let list = super::strategies(&shared, &Default::default(), "order", &ids, 0, None);
        let names: Vec<&str> = list.iter().map(|s| s.name()).collect();
        assert_eq!(names, super::METHODS);
    }

    fn row(method: &str, mean: f64, error: f64, alloc: f64) -> Row {
        let mut r = Row::new(method);
        r.mean_ns = Some(mean);
        r.error_ns = Some(error);
        r.allocated_bytes = Some(alloc);
        r
    }

    fn table(typed_mean: f64, typed_error: f64) -> Experiment {
        let mut e = Experiment::new("store", "redb/order");
        e.rows = vec![
            row("default", 15_000.0, 300.0, 12_000.0),
            row("typed/sonic-rs", typed_mean, typed_error, 8_000.0),
            row("floor", 1_000.0, 50.0, 80.0),
        ];
        e
    }

    #[test]
    fn a_saving_beyond_the_noise_is_stated() {
        assert_eq!(
            summary(&table(11_000.0, 200.0)),
            [
                "JSON is 14.0 µs of a 15.0 µs read (93%).",
                "The cheapest typed path (typed/sonic-rs) removes 29% of it and allocates 1.5× less."
            ]
        );
    }

    #[test]
    fn overlapping_intervals_claim_nothing() {
        assert_eq!(
            summary(&table(14_600.0, 200.0))[1],
            "No typed path is measurably faster than default here (the cheapest, typed/sonic-rs, is within the noise of the read); it allocates 1.5× less."
        );
    }
}
