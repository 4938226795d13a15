//! The store experiment: read one document by id from a real store in several ways, down to the
//! floor (raw bytes read, discarded), and show how much of the read is JSON work.

use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::typed::{pointer_tree, sonic_projection};
use jsoncost_codecs::{BoxedStrategy, Canonical, Contract, RunFailure, Strategy};
use jsoncost_engine::ExperimentKind;
use jsoncost_shapes::{ORDER_LARGE_LINES, ORDER_LINES, Order};
use jsoncost_stores::{
    Existing, LoadOutcome, OpenOptions, OrderDocs, PgColumn, Store, StoreError, StoreKind, ensure_loaded, open_or_default,
};
use jsoncost_stream::Library;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, json};
use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;

use crate::{Error, Runner, Stop, Table};

/// The document shape the store holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreShape {
    /// ~4 KB.
    Order,
    /// ~40 KB, same schema.
    OrderLarge,
}

/// What to read from where.
#[derive(Debug, Clone, PartialEq)]
pub struct StoreOptions {
    /// The store URL (default: the embedded redb file under the temp dir).
    pub url: Option<String>,
    /// PostgreSQL: the `json` or the `jsonb` table.
    pub pg_column: PgColumn,
    /// Distinct documents in the store.
    pub docs: u64,
    pub shape: StoreShape,
    /// Load the documents again even if the store already holds them.
    pub reload: bool,
    /// Seed of the document generator and of the id sequence.
    pub seed: u64,
    /// Read the user's own documents there instead of loading generated ones (`docs` of them
    /// at most): the strategies that need no Rust type.
    pub existing: Option<Existing>,
    /// With `existing`: JSON pointers `lazy/sonic-rs` projects (none: no lazy row).
    pub fields: Vec<String>,
}

/// A store error with its exit code (3 environment, else bad input) and its whole chain.
fn store_error(e: StoreError) -> Error {
    let message = crate::error::chain(&e);
    if e.exit_code() == 3 {
        Error::Environment(message)
    } else {
        Error::Usage(message)
    }
}

/// The ids every strategy reads, in the same seeded order.
struct IdSequence {
    ids: Rc<Vec<String>>,
}

impl IdSequence {
    /// 4096 reads among `ids`, in a seeded order.
    fn among(ids: &[String], seed: u64) -> Self {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x1D5);
        let picked = (0..4096).map(|_| ids[rng.random_range(0..ids.len())].clone()).collect();
        IdSequence { ids: Rc::new(picked) }
    }

    fn new(docs: u64, seed: u64) -> Self {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed ^ 0x1D5);
        let ids = (0..4096).map(|_| OrderDocs::id(rng.random_range(0..docs))).collect();
        IdSequence { ids: Rc::new(ids) }
    }
}

type Shared = Rc<RefCell<Box<dyn Store>>>;

/// Which documents a read strategy reads: a collection jsoncost loaded, or the user's own.
#[derive(Clone)]
enum Source {
    Loaded(String),
    Existing(Existing),
}

impl Source {
    /// The collection's name, or where the user's documents are, for messages.
    fn name(&self) -> &str {
        match self {
            Source::Loaded(c) => c,
            Source::Existing(e) => e.name(),
        }
    }

    /// One document's raw bytes, handed to `f`.
    fn read(&self, store: &mut dyn Store, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        match self {
            Source::Loaded(c) => store.read_raw(c, id, f),
            Source::Existing(e) => store.read_existing(e, id, f),
        }
    }
}

/// What one read does with the store: (store, source, id, checking) → the canonical output
/// when checking (the gate), nothing when timed.
type ReadOp = Box<dyn FnMut(&mut dyn Store, &Source, &str, bool) -> Result<Option<Canonical>, StoreError>>;

/// A store read strategy: one read of the next id per operation.
struct ReadStrategy {
    name: &'static str,
    contract: Contract,
    store: Shared,
    source: Source,
    ids: Rc<Vec<String>>,
    cursor: usize,
    op: ReadOp,
    bytes: Option<u64>,
    /// Why the depth guard refused one of the documents the timed reads visit (libraries
    /// without a recursion limit only): the row fails with it, untimed.
    refused: Option<String>,
}

/// What a read strategy of this module delivers, by the names it gives them (`default` and
/// `new-client` read the user's type through the client's own JSON support).
fn contract_of(name: &str) -> Contract {
    match name.split('/').next().unwrap_or(name) {
        "default" | "typed" | "new-client" => Contract::TypedValue,
        "borrowed" => Contract::BorrowedValue,
        "default-dom" | "dom" => Contract::Dom,
        "raw" => Contract::RawValidated,
        "lazy" | "projection" => Contract::Projection,
        "floor" => Contract::Discarded,
        // Every name this module makes is above (a test checks it).
        _ => Contract::Opaque,
    }
}

/// A store error as a strategy's failure: fatal unless it concerns one document (the server
/// went away: the run cannot go on).
fn failure(e: StoreError) -> RunFailure {
    if e.is_document_error() {
        RunFailure::row(e.to_string())
    } else {
        RunFailure::fatal(e.to_string())
    }
}

impl Strategy for ReadStrategy {
    fn name(&self) -> &str {
        self.name
    }

    fn contract(&self) -> Contract {
        self.contract
    }

    fn check(&mut self) -> Result<Canonical, RunFailure> {
        if let Some(refused) = &self.refused {
            return Err(RunFailure::row(refused.clone()));
        }
        let id = self.ids[0].clone();
        let result = {
            let mut store = self.store.borrow_mut();
            (self.op)(store.as_mut(), &self.source, &id, true)
        };
        match result {
            Ok(Some(c)) => Ok(c),
            Ok(None) => Err(RunFailure::row("the read produced nothing to check")),
            // A server lost during the gate's read ends the run as it would mid-timing.
            Err(e) => Err(failure(e)),
        }
    }

    fn run(&mut self) -> Result<(), RunFailure> {
        let id = &self.ids[self.cursor % self.ids.len()];
        self.cursor += 1;
        let result = {
            let mut store = self.store.borrow_mut();
            (self.op)(store.as_mut(), &self.source, id, false)
        };
        result.map(|_| ()).map_err(failure)
    }

    fn payload_bytes(&self) -> Option<u64> {
        self.bytes
    }

    fn begin_allocation_pass(&mut self) {
        self.cursor = 0;
    }

    /// Every strategy of a round starts at the round's place in the one id sequence, so the
    /// strategies of a round read the same documents (as many as their batch holds).
    fn begin_round(&mut self, round: u64) {
        self.cursor = (round as usize).wrapping_mul(ROUND_STRIDE) % self.ids.len();
    }
}

/// How far each round moves along the id sequence (prime, so rounds start at many places).
const ROUND_STRIDE: usize = 1_009;

fn decode_err(collection: &str, id: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Decode {
        collection: collection.to_string(),
        id: id.to_string(),
        message: e.to_string(),
    }
}

/// Reads raw bytes and applies `f` to them; a decoding error names the id.
fn with_raw<T>(store: &mut dyn Store, source: &Source, id: &str, mut f: impl FnMut(&[u8]) -> Result<T, String>) -> Result<T, StoreError> {
    let mut out = None;
    source.read(store, id, &mut |bytes| out = Some(f(bytes)))?;
    match out {
        Some(Ok(v)) => Ok(v),
        Some(Err(e)) => Err(decode_err(source.name(), id, e)),
        None => Err(StoreError::NotFound {
            store: store.describe(),
            collection: source.name().into(),
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

/// The first document among those the timed reads visit that the depth guard refuses for a
/// library without a recursion limit, as the row's message; None when all pass. Run once,
/// untimed, so the timed sonic-rs parse is measured as a user's would be. Per-document read
/// errors are left to the strategies, which report them.
fn guard_visited(store: &mut dyn Store, source: &Source, ids: &IdSequence, library: Library) -> Result<Option<String>, StoreError> {
    let mut seen = std::collections::HashSet::new();
    for id in ids.ids.iter().filter(|id| seen.insert(id.as_str())) {
        let mut verdict = Ok(());
        match source.read(store, id, &mut |bytes| verdict = library.guard_depth(bytes)) {
            Err(e) if !e.is_document_error() => return Err(e),
            _ => {}
        }
        if let Err(deep) = verdict {
            return Ok(Some(format!("document {id:?}: {deep}; not timed")));
        }
    }
    Ok(None)
}

/// The strategies' names, in [`strategies`]' order: a filter is checked against them before
/// the store is opened and loaded.
/// `new-client` and `projection/server` only where the store has them.
const METHODS: [&str; 10] = [
    "default",
    "default-dom",
    "typed/serde_json",
    "typed/sonic-rs",
    "typed/simd-json",
    "borrowed/serde_json",
    "lazy/sonic-rs",
    "projection/server",
    "new-client",
    "floor",
];

/// The strategies, baseline (`default`) first. `too_deep`: [`guard_visited`]'s verdict for
/// sonic-rs, which fails `typed/sonic-rs` and `lazy/sonic-rs` (skipping a value recurses too).
fn strategies(store: &Shared, collection: &str, ids: &IdSequence, bytes: u64, too_deep: Option<String>) -> Vec<BoxedStrategy<'static>> {
    let make_refused = |name: &'static str, refused: Option<String>, op: ReadOp| -> BoxedStrategy<'static> {
        Box::new(ReadStrategy {
            name,
            contract: contract_of(name),
            store: store.clone(),
            source: Source::Loaded(collection.to_string()),
            ids: ids.ids.clone(),
            cursor: 0,
            op,
            bytes: Some(bytes),
            refused,
        })
    };
    let make = |name: &'static str, op: ReadOp| make_refused(name, None, op);
    let lazy_fields: Vec<String> = ["/id", "/status", "/total"].iter().map(|s| s.to_string()).collect();
    let tree = pointer_tree(&lazy_fields);
    let kind = store.borrow().kind();
    let projected = lazy_fields.clone();
    let mut v = vec![
        make(
            "default",
            Box::new(|s, src, id, check| canonical(check, &s.read_default(src.name(), id)?)),
        ),
        make(
            "default-dom",
            Box::new(|s, src, id, check| canonical(check, &s.read_default_dom(src.name(), id)?)),
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
    ];
    if matches!(kind, StoreKind::Postgres { .. } | StoreKind::Sqlite) {
        // The server extracts the handler's fields (SQL JSON operators); only they come back.
        v.push(make(
            "projection/server",
            Box::new(move |s, src, id, check| server_projection(s, src.name(), id, &projected, check)),
        ));
    }
    if matches!(kind, StoreKind::Postgres { .. } | StoreKind::Redis) {
        // Connect, authenticate, read and drop per operation (engine-bounded: 3 s per row).
        v.push(make(
            "new-client",
            Box::new(|s, src, id, check| match s.read_with_new_client(src.name(), id) {
                Some(order) => canonical(check, &order?),
                None => Err(StoreError::Backend {
                    store: s.describe(),
                    operation: "a new client".into(),
                    cause: "this store has no clients to make".into(),
                }),
            }),
        ));
    }
    // Timed: the bytes are read and discarded. Checked: they must be the document.
    v.push(make(
        "floor",
        typed_op(|b, check| {
            if check {
                Canonical::of_json_bytes(b).map(Some)
            } else {
                black_box(b.len());
                Ok(None)
            }
        }),
    ));
    v
}

/// The fields the server projected, as the checked projection (each field's JSON text parsed
/// exactly) or, timed, the bytes received.
fn server_projection(
    store: &mut dyn Store,
    collection: &str,
    id: &str,
    fields: &[String],
    check: bool,
) -> Result<Option<Canonical>, StoreError> {
    let mut values = Vec::with_capacity(fields.len());
    let mut bad = None;
    let read = store.read_projection(collection, id, fields, &mut |i, text| {
        if check {
            match jsoncost_codecs::exact::parse(text) {
                Ok(v) => values.push((fields[i].clone(), v)),
                Err(e) => bad = Some(format!("field {}: {e}", fields[i])),
            }
        } else {
            black_box(text);
        }
    });
    match read {
        None => Err(StoreError::Backend {
            store: store.describe(),
            operation: "a server projection".into(),
            cause: "this store has no JSON operators".into(),
        }),
        Some(r) => r,
    }?;
    if let Some(e) = bad {
        return Err(decode_err(collection, id, e));
    }
    Ok(check.then_some(Canonical::Projection(values)))
}

/// One decode of a document's bytes into a type, as a store read strategy: (name, decode).
type TypedRead = (&'static str, fn(&[u8], bool) -> Result<Option<Canonical>, String>);

/// A user's type read from their store through each library (the bench harness's `store`).
pub(crate) struct TypedReads(pub(crate) [TypedRead; 3]);

impl TypedReads {
    pub(crate) fn of<T: Serialize + DeserializeOwned>() -> TypedReads {
        TypedReads([
            ("typed/serde_json", serde_typed::<T>),
            ("typed/sonic-rs", sonic_typed::<T>),
            ("typed/simd-json", simd_typed::<T>),
        ])
    }
}

fn serde_typed<T: Serialize + DeserializeOwned>(b: &[u8], check: bool) -> Result<Option<Canonical>, String> {
    out(check, &serde_json::from_slice::<T>(b).map_err(|e| e.to_string())?)
}

fn sonic_typed<T: Serialize + DeserializeOwned>(b: &[u8], check: bool) -> Result<Option<Canonical>, String> {
    out(check, &sonic_rs::from_slice::<T>(b).map_err(|e| e.to_string())?)
}

fn simd_typed<T: Serialize + DeserializeOwned>(b: &[u8], check: bool) -> Result<Option<Canonical>, String> {
    // simd-json parses in place: the copy out of the client's buffer is part of its read.
    let mut buf = b.to_vec();
    out(check, &simd_json::serde::from_slice::<T>(&mut buf).map_err(|e| e.to_string())?)
}

/// The strategies over a user's own documents, baseline first: with a type (the bench
/// harness), `typed/<lib>` for it, `typed/serde_json` the baseline; then each library's DOM
/// (`dom/serde_json` the baseline without a type), serde_json's validating `RawValue`,
/// `lazy/sonic-rs` when fields are given, and the floor.
fn existing_strategies(
    store: &Shared,
    at: &Existing,
    ids: &IdSequence,
    bytes: u64,
    fields: &[String],
    typed: Option<&TypedReads>,
    too_deep: Option<String>,
) -> Vec<BoxedStrategy<'static>> {
    let make = |name: &'static str, refused: Option<String>, op: ReadOp| -> BoxedStrategy<'static> {
        Box::new(ReadStrategy {
            name,
            contract: contract_of(name),
            store: store.clone(),
            source: Source::Existing(at.clone()),
            ids: ids.ids.clone(),
            cursor: 0,
            op,
            bytes: Some(bytes),
            refused,
        })
    };
    let mut v: Vec<BoxedStrategy<'static>> = typed
        .map(|TypedReads(reads)| {
            reads
                .iter()
                .map(|&(name, decode)| {
                    let refused = if name == "typed/sonic-rs" { too_deep.clone() } else { None };
                    make(name, refused, typed_op(decode))
                })
                .collect()
        })
        .unwrap_or_default();
    v.extend([
        make(
            "dom/serde_json",
            None,
            typed_op(|b, check| out(check, &serde_json::from_slice::<serde_json::Value>(b).map_err(|e| e.to_string())?)),
        ),
        make(
            "dom/sonic-rs",
            too_deep.clone(),
            typed_op(|b, check| out(check, &sonic_rs::from_slice::<sonic_rs::Value>(b).map_err(|e| e.to_string())?)),
        ),
        make(
            "dom/simd-json",
            None,
            typed_op(|b, check| {
                let mut buf = b.to_vec();
                out(check, &simd_json::to_owned_value(&mut buf).map_err(|e| e.to_string())?)
            }),
        ),
        // Validated and kept as bytes (a passthrough that checks what it passes on).
        make(
            "raw/serde_json",
            None,
            typed_op(|b, check| {
                let raw: &serde_json::value::RawValue = serde_json::from_slice(b).map_err(|e| e.to_string())?;
                if check {
                    Canonical::of_json_bytes(raw.get().as_bytes()).map(Some)
                } else {
                    black_box(raw);
                    Ok(None)
                }
            }),
        ),
    ]);
    if !fields.is_empty() {
        let (tree, fields) = (pointer_tree(fields), fields.to_vec());
        v.push(make(
            "lazy/sonic-rs",
            too_deep,
            Box::new(move |s, src, id, check| {
                with_raw(s, src, id, |b| {
                    let mut out = None;
                    sonic_projection(b, &tree, &fields, check.then_some(&mut out))?;
                    Ok(out)
                })
            }),
        ));
    }
    v.push(make(
        "floor",
        None,
        typed_op(|b, check| {
            if check {
                Canonical::of_json_bytes(b).map(Some)
            } else {
                black_box(b.len());
                Ok(None)
            }
        }),
    ));
    v
}

/// The store experiment over the user's own documents `at`, with the reads of their type when
/// given; the table is `<store kind>/<table>`.
pub(crate) fn run_existing(
    options: &StoreOptions,
    at: &Existing,
    table: Option<&str>,
    typed: Option<&TypedReads>,
    runner: &mut Runner<'_>,
) -> Result<(), Error> {
    for f in &options.fields {
        jsoncost_codecs::document::check_pointer(f).map_err(Error::Usage)?;
    }
    let url = options.url.clone().unwrap_or_else(jsoncost_stores::default_store_url);
    let opts = OpenOptions {
        pg_column: options.pg_column,
        ..OpenOptions::default()
    };
    runner.sink().status(&format!("store: connecting to {url}"));
    let mut store = jsoncost_stores::open(&url, &opts).map_err(store_error)?;
    let described = store.describe();
    runner.sink().status(&format!("store: listing {} in {described}", at.describe()));
    let listed = store.existing_ids(at, options.docs).map_err(store_error)?;
    if listed.is_empty() {
        return Err(Error::usage(format!("{described}: {} holds no documents", at.describe())));
    }
    runner.sink().note(&format!(
        "store: reading {} documents of {} in {described}",
        listed.len(),
        at.describe()
    ));
    let source = Source::Existing(at.clone());
    let ids = IdSequence::among(&listed, options.seed);
    // The gate's reference: the exact parse of the document every check reads (the first id).
    let (reference, sample_len) = {
        let id = &ids.ids[0];
        let mut parsed = None;
        source
            .read(store.as_mut(), id, &mut |b| {
                parsed = Some((Reference::from_json(b), b.len() as u64))
            })
            .map_err(store_error)?;
        match parsed {
            Some((Ok(r), n)) => (r, n),
            Some((Err(e), _)) => {
                return Err(Error::usage(format!(
                    "document {id:?} of {} in {described}: the exact reference cannot read it: {e}",
                    at.describe()
                )));
            }
            None => return Err(Error::usage(format!("document {id:?} is not in {described}"))),
        }
    };
    let too_deep = if ["typed/sonic-rs", "dom/sonic-rs", "lazy/sonic-rs"]
        .iter()
        .any(|m| runner.filter().matches(m))
    {
        guard_visited(store.as_mut(), &source, &ids, Library::SonicRs).map_err(store_error)?
    } else {
        None
    };
    let kind = store.kind();
    let shared: Shared = Rc::new(RefCell::new(store));
    let list = existing_strategies(&shared, at, &ids, sample_len, &options.fields, typed, too_deep);
    runner.filter().check_matches_any(list.iter().map(|s| s.name()))?;
    let total = runner.timed_count(&list);
    runner.sink().planned(total);
    let mut params = Map::new();
    params.insert("store".into(), json!(described));
    params.insert("documents".into(), json!(at.describe()));
    params.insert("docs".into(), json!(listed.len()));
    params.insert("payload_bytes".into(), json!(sample_len));
    let table = format!("{}/{}", kind.as_str(), table.unwrap_or(at.name()));
    match runner.run(Table::new(ExperimentKind::Store, table, params, reference, list)) {
        Err(Stop::Fatal(message)) => return Err(Error::environment(format!("store run stopped: {message}"))),
        Err(stop) => return Err(stop.into()),
        Ok(_) => {}
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

/// Runs the store experiment through `runner`.
pub fn run(options: &StoreOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    if let Some(at) = &options.existing {
        return run_existing(options, at, None, None, runner);
    }
    runner.filter().check_matches_any(METHODS)?;
    let url = options.url.clone().unwrap_or_else(jsoncost_stores::default_store_url);
    let opts = OpenOptions {
        pg_column: options.pg_column,
        ..OpenOptions::default()
    };
    runner.sink().status(&format!("store: connecting to {url}"));
    let mut store = open_or_default(options.url.as_deref(), &opts).map_err(store_error)?;
    if store.describe() != url {
        runner
            .sink()
            .note(&format!("store: {url} is in use by another process; using {}", store.describe()));
    }
    let (collection, lines) = match options.shape {
        StoreShape::Order => ("order", ORDER_LINES),
        StoreShape::OrderLarge => ("order-large", ORDER_LARGE_LINES),
    };
    let docs = OrderDocs {
        count: options.docs,
        lines,
        seed: options.seed,
    };
    runner
        .sink()
        .status(&format!("store: loading {} documents into {}", options.docs, store.describe()));
    let note = match ensure_loaded(store.as_mut(), collection, &docs.marker(), options.reload, || docs.documents()).map_err(store_error)? {
        LoadOutcome::Reused(_) => format!(
            "store: reusing {} {collection} documents in {} (--reload to load again)",
            options.docs,
            store.describe()
        ),
        LoadOutcome::Loaded { docs, elapsed } => format!(
            "store: loaded {docs} {collection} documents into {} in {:.1} s",
            store.describe(),
            elapsed.as_secs_f64()
        ),
    };
    runner.sink().note(&note);
    let sample_len = {
        let mut n = 0;
        store
            .read_raw(collection, &OrderDocs::id(0), &mut |b| n = b.len())
            .map_err(store_error)?;
        n as u64
    };
    let kind = store.kind();
    let described = store.describe();
    let shared: Shared = Rc::new(RefCell::new(store));
    let ids = IdSequence::new(options.docs, options.seed);
    // The gate's reference: the exact parse of the raw document every check reads (the first id).
    let reference = {
        let id = &ids.ids[0];
        let mut parsed = None;
        shared
            .borrow_mut()
            .read_raw(collection, id, &mut |b| parsed = Some(Reference::from_json(b)))
            .map_err(store_error)?;
        match parsed {
            Some(Ok(r)) => r,
            Some(Err(e)) => {
                return Err(Error::usage(format!(
                    "{collection} document {id} in {described}: the exact reference cannot read it: {e}"
                )));
            }
            None => return Err(Error::usage(format!("{collection} document {id} is not in {described}"))),
        }
    };
    let too_deep = if runner.filter().matches("typed/sonic-rs") || runner.filter().matches("lazy/sonic-rs") {
        runner
            .sink()
            .status("store: checking the nesting depth of the documents read (sonic-rs has no recursion limit)");
        guard_visited(
            shared.borrow_mut().as_mut(),
            &Source::Loaded(collection.into()),
            &ids,
            Library::SonicRs,
        )
        .map_err(store_error)?
    } else {
        None
    };
    let list = strategies(&shared, collection, &ids, sample_len, too_deep);
    let total = runner.timed_count(&list);
    runner.sink().planned(total);

    let table = format!("{}/{collection}", kind.as_str());
    let mut params = Map::new();
    params.insert("store".into(), json!(described));
    params.insert("shape".into(), json!(collection));
    params.insert("docs".into(), json!(options.docs));
    params.insert("payload_bytes".into(), json!(sample_len));
    let ran = match runner.run(Table::new(ExperimentKind::Store, table, params, reference, list)) {
        Err(Stop::Fatal(message)) => return Err(Error::environment(format!("store run stopped: {message}"))),
        Err(stop) => return Err(stop.into()),
        Ok(ran) => ran,
    };
    if ran.all_failed() {
        runner.sink().note("store: every strategy failed; see the table");
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_read_strategy_declares_what_it_delivers() {
        use jsoncost_codecs::Contract::*;
        for (name, want) in [
            ("default", TypedValue),
            ("default-dom", Dom),
            ("typed/sonic-rs", TypedValue),
            ("borrowed/serde_json", BorrowedValue),
            ("lazy/sonic-rs", Projection),
            ("projection/server", Projection),
            ("new-client", TypedValue),
            ("dom/simd-json", Dom),
            ("raw/serde_json", RawValidated),
            ("floor", Discarded),
        ] {
            assert_eq!(super::contract_of(name), want, "{name}");
        }
    }

    use super::*;

    #[test]
    fn the_filter_is_checked_against_the_strategies_names() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("redb:{}", dir.path().join("s.redb").display());
        let store = jsoncost_stores::open(&url, &OpenOptions::default()).unwrap();
        let shared: Shared = Rc::new(RefCell::new(store));
        let list = strategies(&shared, "order", &IdSequence::new(10, 1), 0, None);
        let names: Vec<&str> = list.iter().map(|s| s.name()).collect();
        let embedded: Vec<&str> = METHODS
            .into_iter()
            .filter(|m| !["new-client", "projection/server"].contains(m))
            .collect();
        assert_eq!(names, embedded);
    }
}
