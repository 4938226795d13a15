//! The store experiment: read one document by id from a real store in several ways, down to the
//! floor (raw bytes read, discarded), and show how much of the read is JSON work.

use jsoncost_codecs::decoders::{borrowed_decoders, decoders, dom_decoders};
use jsoncost_codecs::gate::Reference;
use jsoncost_codecs::libraries::Decoder;
use jsoncost_codecs::libraries::sonic_rs::{pointer_tree, project};
use jsoncost_codecs::toolkit::Through;
use jsoncost_codecs::{BoxedStrategy, Canonical, Contract, Effort, RunFailure, Strategy, StrategyId};
use jsoncost_engine::{ExperimentKind, FLOOR};
use jsoncost_shapes::{ORDER_LARGE_LINES, ORDER_LINES, Order};
use jsoncost_stores::{
    Access, Existing, LoadOutcome, Location, OpenOptions, OrderDocs, PgColumn, Store, StoreError, StoreKind, ensure_loaded,
    open_or_default, redact,
};
use jsoncost_stream::Library;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, json};
use std::cell::RefCell;
use std::hint::black_box;
use std::rc::Rc;

use crate::error::Error;
use crate::runner::{Runner, Table, TableStop};
use crate::sizes::{self, PayloadSize};
use crate::summary;

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
    /// The shape of the generated documents.
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
    /// With `existing`: the largest document parsed, in bytes; a larger one fails the rows
    /// that read it (the gate's document: the table), naming its key and size. Parsing holds a
    /// document several times over (a DOM of small numbers is ~50 times its text).
    pub max_doc_bytes: u64,
    /// Sweep the order document at these sizes (empty: `shape` alone): one collection and one
    /// table per size, `docs` documents each at most [`SWEEP_BYTES_PER_SIZE`] in all.
    pub sizes: Vec<PayloadSize>,
}

/// The default of [`StoreOptions::max_doc_bytes`], in MiB (`--max-doc-mib`).
pub const DEFAULT_MAX_DOC_MIB: u64 = 16;

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
    /// The user's documents at `at`; one over `max_bytes` is not handed on to be parsed, and
    /// one the store sized over it beforehand (`oversized`: id → bytes) is not even fetched.
    Existing {
        at: Existing,
        max_bytes: u64,
        oversized: std::collections::HashMap<String, u64>,
    },
}

impl Source {
    /// What the documents are in, for messages: `collection`, `table` or `keys`.
    fn place(&self) -> &'static str {
        match self {
            Source::Loaded(_) => "collection",
            Source::Existing { at, .. } => at.place(),
        }
    }

    /// The collection's name, or where the user's documents are, for messages.
    fn name(&self) -> &str {
        match self {
            Source::Loaded(c) => c,
            Source::Existing { at, .. } => at.name(),
        }
    }

    /// One document's raw bytes, handed to `f`.
    fn read(&self, store: &mut dyn Store, id: &str, f: &mut dyn FnMut(&[u8])) -> Result<(), StoreError> {
        match self {
            Source::Loaded(c) => store.read_raw(c, id, f),
            Source::Existing { at, max_bytes, oversized } => {
                let mut over = oversized.get(id).copied();
                if over.is_none() {
                    store.read_existing(at, id, &mut |bytes| {
                        if bytes.len() as u64 > *max_bytes {
                            over = Some(bytes.len() as u64);
                        } else {
                            f(bytes);
                        }
                    })?;
                }
                match over {
                    None => Ok(()),
                    Some(bytes) => Err(StoreError::TooLarge {
                        collection: at.describe(),
                        id: id.to_string(),
                        bytes,
                        limit: *max_bytes,
                    }),
                }
            }
        }
    }
}

/// What one read does with the store: (store, source, id, checking) → the canonical output
/// when checking (the gate), nothing when timed.
type ReadOp = Box<dyn FnMut(&mut dyn Store, &Source, &str, bool) -> Result<Option<Canonical>, StoreError>>;

/// A store read strategy: one read of the next id per operation.
struct ReadStrategy {
    id: StrategyId,
    contract: Contract,
    effort: Effort,
    store: Shared,
    source: Source,
    ids: Rc<Vec<String>>,
    cursor: usize,
    op: ReadOp,
    bytes: Option<u64>,
    /// Why the depth guard refused one of the documents the timed reads visit (sonic-rs's rows
    /// only, held to serde_json's limit): the row fails with it, untimed.
    refused: Option<String>,
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
    fn id(&self) -> &StrategyId {
        &self.id
    }

    fn contract(&self) -> Contract {
        self.contract
    }

    fn effort(&self) -> Effort {
        self.effort
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

fn decode_err(source: &Source, id: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Decode {
        place: source.place(),
        collection: source.name().to_string(),
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
        Some(Err(e)) => Err(decode_err(source, id, e)),
        None => Err(StoreError::NotFound {
            store: store.describe(),
            place: source.place(),
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
fn typed_op(decode: impl Fn(&[u8], bool) -> Result<Option<Canonical>, String> + 'static) -> ReadOp {
    Box::new(move |s, col, id, check| with_raw(s, col, id, |b| decode(b, check)))
}

/// A library's read of a `T` from the client's buffer, checked as `T`'s canonical form.
fn decoded<T: Serialize>(decoder: Decoder<T>) -> impl Fn(&[u8], bool) -> Result<Option<Canonical>, String> {
    move |b, check| out(check, &decoder.from_slice(b)?)
}

fn out<T: serde::Serialize>(check: bool, v: &T) -> Result<Option<Canonical>, String> {
    canonical(check, v).map_err(|e| e.to_string())
}

/// The first document among those the timed reads visit that the depth guard refuses for a
/// guarded library (sonic-rs, held to serde_json's 128 levels), as the row's message; None when all pass. Run once,
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
/// the store is opened and loaded. `new-client` and `projection/server` only where the store
/// has them, `typed/facet-json` only with the feature `more-libraries`.
fn method_names() -> Vec<StrategyId> {
    let mut names = vec![StrategyId::named("default"), StrategyId::named("default-dom")];
    names.extend(decoders::<Order>().iter().map(|d| d.id("typed")));
    names.push(StrategyId::new("typed", "facet-json"));
    names.extend(borrowed_decoders::<Order, Order>().iter().map(|d| d.id()));
    names.extend([
        StrategyId::new("lazy", "sonic-rs"),
        StrategyId::new("projection", "server"),
        StrategyId::named("new-client"),
        StrategyId::named(FLOOR),
    ]);
    names
}

/// A store read's identity, what it delivers and what adopting it takes.
type Read = (StrategyId, Contract, Effort);

/// A read of `ids` from `source` doing `op`, or failing untimed with `refused`.
fn read_strategy(
    store: &Shared,
    source: &Source,
    ids: &IdSequence,
    bytes: u64,
    (id, contract, effort): Read,
    refused: Option<String>,
    op: ReadOp,
) -> BoxedStrategy<'static> {
    Box::new(ReadStrategy {
        id,
        contract,
        effort,
        store: store.clone(),
        source: source.clone(),
        ids: ids.ids.clone(),
        cursor: 0,
        op,
        bytes: Some(bytes),
        refused,
    })
}

/// The strategies, baseline (`default`) first. `too_deep`: [`guard_visited`]'s verdict for
/// sonic-rs, which fails its typed, borrowed and lazy rows (held to serde_json's 128
/// levels, though neither would overflow on its own).
/// `sample`: a document of the collection, which decides `lazy/sonic-rs`'s pointer steps.
fn strategies(
    store: &Shared,
    collection: &str,
    ids: &IdSequence,
    (bytes, sample): (u64, &serde_json::Value),
    too_deep: Option<String>,
) -> Vec<BoxedStrategy<'static>> {
    let source = Source::Loaded(collection.to_string());
    let make_refused = |id: Read, refused: Option<String>, op: ReadOp| read_strategy(store, &source, ids, bytes, id, refused, op);
    let make = |id: Read, op: ReadOp| make_refused(id, None, op);
    let lazy_fields: Vec<String> = ["/id", "/status", "/total"].iter().map(|s| s.to_string()).collect();
    let tree = pointer_tree(sample, &lazy_fields);
    // What the store can do, as its trait answers it: a read it has nothing for is `None`
    // (asked once, untimed, of the first id; what that read returns is the gate's to judge).
    let (projects, makes_clients) = {
        let mut s = store.borrow_mut();
        let id = &ids.ids[0];
        (
            s.read_projection(collection, id, &lazy_fields, &mut |_, _| {}).is_some(),
            s.read_with_new_client(collection, id).is_some(),
        )
    };
    let projected = lazy_fields.clone();
    let mut v = vec![
        make(
            (StrategyId::named("default"), Contract::TypedValue, Effort::Swap),
            Box::new(|s, src, id, check| canonical(check, &s.read_default(src.name(), id)?)),
        ),
        make(
            (StrategyId::named("default-dom"), Contract::Dom, Effort::Code),
            Box::new(|s, src, id, check| canonical(check, &s.read_default_dom(src.name(), id)?)),
        ),
        make_refused(
            (StrategyId::new("lazy", "sonic-rs"), Contract::Projection, Effort::Code),
            too_deep.clone(),
            Box::new(move |s, col, id, check| {
                with_raw(s, col, id, |b| {
                    let mut out = None;
                    project(b, tree.as_ref()?, &lazy_fields, check.then_some(&mut out))?;
                    Ok(out)
                })
            }),
        ),
    ];
    // Each library's read of the order (`codecs::decoders`), after the store's own two.
    let reads = decoders::<Order>().into_iter().map(|d| {
        let refused = if d.depth_unbounded { too_deep.clone() } else { None };
        make_refused((d.id("typed"), Contract::TypedValue, Effort::Swap), refused, typed_op(decoded(d)))
    });
    // Into the order's plain copy, which derives facet's trait (a model of its own: Effort::Model,
    // as micro's facet-json row). facet-json skips a deep unknown field without overflowing
    // its stack, so it is not depth-guarded.
    #[cfg(feature = "more-libraries")]
    let reads = reads.chain(std::iter::once(make(
        (StrategyId::new("typed", "facet-json"), Contract::TypedValue, Effort::Model),
        typed_op(|b, check| {
            let order =
                jsoncost_codecs::derived::facet_json::from_slice::<jsoncost_shapes::derived::Order>(b).map_err(|e| e.to_string())?;
            out(check, &order)
        }),
    )));
    // Each library's read of the order's zero-copy form (`Order<&str>`), after the typed ones.
    let borrowed = borrowed_decoders::<Order, Order>().into_iter().map(|d| {
        let refused = if d.depth_unbounded { too_deep.clone() } else { None };
        make_refused((d.id(), Contract::BorrowedValue, Effort::Model), refused, typed_op(d.read))
    });
    let reads: Vec<_> = reads.chain(borrowed).collect();
    v.splice(2..2, reads);
    if projects {
        // The server extracts the handler's fields (SQL JSON operators); only they come back.
        v.push(make(
            (StrategyId::new("projection", "server"), Contract::Projection, Effort::Architecture),
            Box::new(move |s, src, id, check| server_projection(s, src.name(), id, &projected, check)),
        ));
    }
    if makes_clients {
        // Connect, authenticate, read and drop per operation (engine-bounded: 3 s per row).
        v.push(make(
            (StrategyId::named("new-client"), Contract::TypedValue, Effort::Architecture),
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
        (StrategyId::named(FLOOR), Contract::Discarded, Effort::Architecture),
        typed_op(|b, check| {
            if check {
                Canonical::of_json_bytes(b).map(Some)
            } else {
                black_box(b.len());
                Ok(None)
            }
        }),
    ));
    gated(v, Through::<Order>::boxed)
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
        // Server projections read jsoncost's own collections only.
        return Err(decode_err(&Source::Loaded(collection.to_string()), id, e));
    }
    Ok(check.then_some(Canonical::Projection(values)))
}

/// One decode of a document's bytes into a type, as a store read strategy: (name, decode).
/// Wraps a strategy whose output is a type in the gate that sees the reference through it.
type ThroughType = fn(BoxedStrategy<'static>) -> BoxedStrategy<'static>;

/// A read of bytes into a type the caller does not name: with `check`, its canonical form.
type ErasedRead = dyn Fn(&[u8], bool) -> Result<Option<Canonical>, String>;

/// A user's type read from their store through each library (the bench harness's `store`):
/// per library (`codecs::decoders`), its row's identity, whether it is depth-guarded, and the
/// read with `T` erased.
pub(crate) struct TypedReads {
    reads: Vec<(StrategyId, bool, Rc<ErasedRead>)>,
    /// `Through::<T>`: the typed rows are checked against the document as `T` sees it.
    through: ThroughType,
}

impl TypedReads {
    pub(crate) fn of<T: Serialize + DeserializeOwned + 'static>() -> TypedReads {
        TypedReads {
            reads: decoders::<T>()
                .into_iter()
                .map(|d| (d.id("typed"), d.depth_unbounded, Rc::new(decoded(d)) as Rc<ErasedRead>))
                .collect(),
            through: Through::<T>::boxed,
        }
    }
}

/// The gate as micro's: what decodes into a type (`TypedValue`, `BorrowedValue`) is checked
/// against the document as that type sees it (a field it does not declare, or a `null` it
/// skips, is not expected of it; an integer in an `f64` field is a float on both sides),
/// while a DOM, the raw bytes and projections are checked against the whole document.
fn gated(strategies: Vec<BoxedStrategy<'static>>, through: ThroughType) -> Vec<BoxedStrategy<'static>> {
    strategies
        .into_iter()
        .map(|s| match s.contract() {
            Contract::TypedValue | Contract::BorrowedValue => through(s),
            _ => s,
        })
        .collect()
}

/// The strategies over a user's own documents, baseline first: with a type (the bench
/// harness), `typed/<lib>` for it, `typed/serde_json` the baseline; then each library's DOM from the registry
/// (`dom/serde_json` the baseline without a type), serde_json's validating `RawValue`,
/// `lazy/sonic-rs` when fields are given, and the floor.
fn existing_strategies(
    store: &Shared,
    source: &Source,
    ids: &IdSequence,
    (bytes, sample): (u64, &serde_json::Value),
    fields: &[String],
    typed: Option<&TypedReads>,
    too_deep: Option<String>,
) -> Vec<BoxedStrategy<'static>> {
    let v = existing_reads(sample, fields, typed, too_deep)
        .into_iter()
        .map(|(id, refused, op)| read_strategy(store, source, ids, bytes, id, refused, op))
        .collect();
    match typed {
        Some(typed) => gated(v, typed.through),
        None => v,
    }
}

/// The rows of [`existing_strategies`] as `--list` names them, without opening the store:
/// nextest lists every bench before anything runs.
pub(crate) fn existing_names(fields: &[String], typed: Option<&TypedReads>) -> Vec<StrategyId> {
    existing_reads(&serde_json::Value::Null, fields, typed, None)
        .into_iter()
        .map(|((id, ..), ..)| id)
        .collect()
}

/// The reads of [`existing_strategies`], not yet bound to a store, baseline first.
fn existing_reads(
    sample: &serde_json::Value,
    fields: &[String],
    typed: Option<&TypedReads>,
    too_deep: Option<String>,
) -> Vec<(Read, Option<String>, ReadOp)> {
    let make = |id: Read, refused: Option<String>, op: ReadOp| (id, refused, op);
    let mut v: Vec<(Read, Option<String>, ReadOp)> = typed
        .map(|TypedReads { reads, .. }| {
            reads
                .iter()
                .map(|(id, depth_unbounded, read)| {
                    let refused = if *depth_unbounded { too_deep.clone() } else { None };
                    let read = Rc::clone(read);
                    make(
                        (id.clone(), Contract::TypedValue, Effort::Swap),
                        refused,
                        typed_op(move |b, check| read(b, check)),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    // Each library's DOM (`codecs::decoders::dom_decoders`): held for the gate, dropped when timed.
    v.extend(dom_decoders().into_iter().map(|d| {
        let refused = if d.depth_unbounded { too_deep.clone() } else { None };
        make(
            (d.id(), d.contract(), Effort::Model),
            refused,
            typed_op(move |b, check| {
                if check {
                    (d.parse)(b)?.canonical().map(Some)
                } else {
                    (d.discard)(b).map(|()| None)
                }
            }),
        )
    }));
    v.extend([
        // Validated and kept as bytes (a passthrough that checks what it passes on).
        make(
            (StrategyId::new("raw", "serde_json"), Contract::RawValidated, Effort::Code),
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
        let (tree, fields) = (pointer_tree(sample, fields), fields.to_vec());
        v.push(make(
            (StrategyId::new("lazy", "sonic-rs"), Contract::Projection, Effort::Code),
            too_deep,
            Box::new(move |s, src, id, check| {
                with_raw(s, src, id, |b| {
                    let mut out = None;
                    project(b, tree.as_ref()?, &fields, check.then_some(&mut out))?;
                    Ok(out)
                })
            }),
        ));
    }
    v.push(make(
        (StrategyId::named(FLOOR), Contract::Discarded, Effort::Architecture),
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
/// given; the table is `<store kind>/<table>` (`table`: the harness's name for it, else where
/// the documents are). The store is opened read-only: nothing in it is changed.
///
/// A table that cannot be measured (the store unreachable, the documents not where the flags
/// say, a gate document that is not JSON or not the type, a store lost mid-table) stops this
/// table only: its error, naming the table, is handed to the sink as the run's outcome
/// ([`crate::Sink::all_failed`], the Runner's own way), so the harness's other tables still
/// run and are written, and the run exits with it at the end. A filter matching none of the
/// table's strategies, and Ctrl-C, are returned as they are.
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
    let url = match &options.url {
        Some(url) => url.clone(),
        None => jsoncost_stores::default_store_url().map_err(store_error)?,
    };
    let location = Location::parse(&url).map_err(store_error)?;
    let kind = location.kind(options.pg_column);
    let name = format!("{}/{}", kind.as_str(), table.unwrap_or(at.name()));
    if runner.mode() == crate::runner::RunMode::List {
        let names: Vec<String> = existing_names(&options.fields, typed)
            .iter()
            .map(|id| id.name().to_string())
            .collect();
        runner.filter().check_matches_any(names.iter().map(String::as_str))?;
        let filter = runner.filter().in_tables(std::slice::from_ref(&name));
        for row in names.iter().filter(|n| filter.matches(n)) {
            runner.sink().listed(&name, row);
        }
        return Ok(());
    }
    match measure_existing(options, &url, at, (kind, &name), typed, runner) {
        Ok(()) => Ok(()),
        Err(Unmeasured::Returned(e)) => Err(e),
        Err(Unmeasured::Named(e)) => {
            runner.sink().all_failed(e);
            Ok(())
        }
        Err(Unmeasured::Table(e)) => {
            let message = format!("store {name}: {e}");
            runner.sink().all_failed(match e {
                Error::Environment(_) => Error::Environment(message),
                _ => Error::Usage(message),
            });
            Ok(())
        }
    }
}

/// Why [`measure_existing`] did not finish its table.
enum Unmeasured {
    /// The table could not be measured: the run's outcome, once the other tables ran.
    Table(Error),
    /// As `Table`, the message naming the table already (the Runner's).
    Named(Error),
    /// Ends the run now (Ctrl-C; a filter matching nothing), as every table kind does.
    Returned(Error),
}

impl From<Error> for Unmeasured {
    fn from(e: Error) -> Self {
        match e {
            Error::Interrupted => Unmeasured::Returned(e),
            e => Unmeasured::Table(e),
        }
    }
}

fn measure_existing(
    options: &StoreOptions,
    url: &str,
    at: &Existing,
    (named_kind, table): (StoreKind, &str),
    typed: Option<&TypedReads>,
    runner: &mut Runner<'_>,
) -> Result<(), Unmeasured> {
    let opts = OpenOptions {
        pg_column: options.pg_column,
        access: Access::ReadOnly,
        ..OpenOptions::default()
    };
    runner.sink().status(&format!("store: connecting to {}", redact(url)));
    let mut store = jsoncost_stores::open(url, &opts).map_err(store_error)?;
    let described = store.describe();
    runner.sink().status(&format!("store: listing {} in {described}", at.describe()));
    let listed = store.existing_ids(at, options.docs).map_err(store_error)?;
    if listed.is_empty() {
        return Err(Error::usage(format!("{described}: {} holds no documents", at.describe())).into());
    }
    runner.sink().note(&format!(
        "store: reading {} documents of {} in {described}",
        listed.len(),
        at.describe()
    ));
    // Sized before any read where the store can (untimed): a value too large to parse is then
    // refused without being fetched into memory.
    let mut oversized = std::collections::HashMap::new();
    for id in &listed {
        if let Some(len) = store.existing_len(at, id).map_err(store_error)?
            && len > options.max_doc_bytes
        {
            oversized.insert(id.clone(), len);
        }
    }
    let source = Source::Existing {
        at: at.clone(),
        max_bytes: options.max_doc_bytes,
        oversized,
    };
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
                ))
                .into());
            }
            None => return Err(Error::usage(format!("document {id:?} is not in {described}")).into()),
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
    let list = existing_strategies(
        &shared,
        &source,
        &ids,
        (sample_len, reference.value()),
        &options.fields,
        typed,
        too_deep,
    );
    runner
        .filter()
        .check_matches_any(list.iter().map(|s| s.name()))
        .map_err(Unmeasured::Returned)?;
    let total = runner.timed_count(&list);
    runner.sink().planned(total);
    let mut params = Map::new();
    params.insert("store".into(), json!(described));
    params.insert("documents".into(), json!(at.describe()));
    params.insert("docs".into(), json!(listed.len()));
    params.insert("payload_bytes".into(), json!(sample_len));
    // The table is named by the kind its URL says; the store opened is of that kind.
    debug_assert_eq!(named_kind, kind);
    match runner.run(Table::new(ExperimentKind::Store, table, params, reference, list).summarized_by(summary::of_store)) {
        // The Runner's messages name the table already.
        Err(TableStop::Fatal(message)) => return Err(Unmeasured::Table(Error::environment(format!("stopped: {message}")))),
        Err(TableStop::BadBaseline(message)) => return Err(Unmeasured::Named(Error::Usage(message))),
        Err(stop) => return Err(Error::from(stop).into()),
        Ok(_) => {}
    }
    if runner.is_cancelled() {
        Err(Error::Interrupted.into())
    } else {
        Ok(())
    }
}

/// Runs the store experiment through `runner`.
pub fn run(options: &StoreOptions, runner: &mut Runner<'_>) -> Result<(), Error> {
    if let Some(at) = &options.existing {
        return run_existing(options, at, None, None, runner);
    }
    runner.filter().check_matches_any(method_names().iter().map(StrategyId::name))?;
    let url = match &options.url {
        Some(url) => url.clone(),
        None => jsoncost_stores::default_store_url().map_err(store_error)?,
    };
    let opts = OpenOptions {
        pg_column: options.pg_column,
        ..OpenOptions::default()
    };
    runner.sink().status(&format!("store: connecting to {}", redact(&url)));
    let store = open_or_default(options.url.as_deref(), &opts).map_err(store_error)?;
    // Only the default store falls back to another file; a URL given is used as given (its
    // description differs from it when written another way, or without its password).
    if options.url.is_none() && store.describe() != url {
        runner
            .sink()
            .note(&format!("store: {url} is in use by another process; using {}", store.describe()));
    }
    let shared: Shared = Rc::new(RefCell::new(store));
    for plan in plans(options)? {
        if runner.is_cancelled() {
            return Err(Error::Interrupted);
        }
        measure_collection(&shared, options, &plan, runner)?;
    }
    if runner.is_cancelled() { Err(Error::Interrupted) } else { Ok(()) }
}

/// The most bytes of documents one size of a store sweep loads: `--docs` of them, fewer where
/// that would exceed this (at least [`SWEEP_MIN_DOCS`]), so a 1 MB sweep loads 64, not 10,000.
pub const SWEEP_BYTES_PER_SIZE: u64 = 64 << 20;
/// The fewest documents a size of a store sweep loads.
pub const SWEEP_MIN_DOCS: u64 = 16;

/// One collection to load and read: its documents and, in a sweep, its size.
struct Plan {
    collection: String,
    lines: usize,
    docs: u64,
    target: Option<PayloadSize>,
}

/// The collections `options` reads: the shape's own, or one per size of `sizes` (`order-4KB`
/// ...), each order sized by its lines as micro's sweep ([`jsoncost_shapes::order_of_size`]).
fn plans(options: &StoreOptions) -> Result<Vec<Plan>, Error> {
    if options.sizes.is_empty() {
        let (collection, lines) = match options.shape {
            StoreShape::Order => ("order", ORDER_LINES),
            StoreShape::OrderLarge => ("order-large", ORDER_LARGE_LINES),
        };
        return Ok(vec![Plan {
            collection: collection.to_string(),
            lines,
            docs: options.docs,
            target: None,
        }]);
    }
    options
        .sizes
        .iter()
        .map(|size| {
            let (order, _) =
                jsoncost_shapes::order_of_size(options.seed, size.get()).map_err(|e| Error::usage(format!("--store-sizes {size}: {e}")))?;
            Ok(Plan {
                collection: format!("order-{}", size.label()),
                lines: order.lines.len(),
                docs: options.docs.min((SWEEP_BYTES_PER_SIZE / size.get()).max(SWEEP_MIN_DOCS)),
                target: Some(*size),
            })
        })
        .collect()
}

/// Loads `plan`'s documents (unless the store holds them) and measures its table.
fn measure_collection(shared: &Shared, options: &StoreOptions, plan: &Plan, runner: &mut Runner<'_>) -> Result<(), Error> {
    let collection = plan.collection.as_str();
    let docs = OrderDocs {
        count: plan.docs,
        lines: plan.lines,
        seed: options.seed,
    };
    let described = shared.borrow().describe();
    runner
        .sink()
        .status(&format!("store: loading {} documents into {described}", plan.docs));
    let loaded = ensure_loaded(shared.borrow_mut().as_mut(), collection, &docs.marker(), options.reload, || {
        docs.documents()
    });
    let note = match loaded.map_err(store_error)? {
        LoadOutcome::Reused(_) => format!(
            "store: reusing {} {collection} documents in {described} (--reload to load again)",
            plan.docs
        ),
        LoadOutcome::Loaded { docs, elapsed } => format!(
            "store: loaded {docs} {collection} documents into {described} in {:.1} s",
            elapsed.as_secs_f64()
        ),
    };
    runner.sink().note(&note);
    let sample_len = {
        let mut n = 0;
        shared
            .borrow_mut()
            .read_raw(collection, &OrderDocs::id(0), &mut |b| n = b.len())
            .map_err(store_error)?;
        n as u64
    };
    let kind = shared.borrow().kind();
    let ids = IdSequence::new(plan.docs, options.seed);
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
            .status("store: checking the nesting depth of the documents read (sonic-rs is held to serde_json's 128 levels)");
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
    let list = strategies(shared, collection, &ids, (sample_len, reference.value()), too_deep);
    let total = runner.timed_count(&list);
    runner.sink().planned(total);

    let table = format!("{}/{collection}", kind.as_str());
    let mut params = Map::new();
    params.insert("store".into(), json!(described));
    params.insert("shape".into(), json!(collection));
    params.insert("docs".into(), json!(plan.docs));
    params.insert("payload_bytes".into(), json!(sample_len));
    if let Some(size) = plan.target {
        params.insert(sizes::SWEEP_PARAM.into(), json!(format!("{}/order", kind.as_str())));
        params.insert(sizes::OPERATION_PARAM.into(), json!("read"));
        params.insert(sizes::SIZE_TARGET_PARAM.into(), json!(size.get()));
    }
    let ran = match runner.run(Table::new(ExperimentKind::Store, table, params, reference, list).summarized_by(summary::of_store)) {
        Err(TableStop::Fatal(message)) => return Err(Error::environment(format!("store run stopped: {message}"))),
        Err(stop) => return Err(stop.into()),
        Ok(ran) => ran,
    };
    if ran.all_failed() {
        runner
            .sink()
            .note(&format!("store: every strategy failed on {collection}; see the table"));
    }
    Ok(())
}

#[cfg(feature = "cli")]
/// `--store-shape`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StoreShapeArg {
    /// The ~4 KB order document.
    Order,
    /// The ~40 KB order document.
    OrderLarge,
}

#[cfg(feature = "cli")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
/// `--pg-column`: which PostgreSQL column type holds the documents.
pub enum PgColumnArg {
    /// `json`: the text as written.
    Json,
    /// `jsonb`: PostgreSQL's binary form.
    Jsonb,
}

#[cfg(feature = "cli")]
/// `jsoncost store`'s flags.
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
    #[arg(long = "store-shape", visible_alias = "doc-shape", value_enum, default_value_t = StoreShapeArg::Order)]
    pub store_shape: StoreShapeArg,
    /// Load the documents again even if the store already holds them.
    #[arg(long)]
    pub reload: bool,
    /// Only time strategies whose name matches this glob.
    #[arg(long = "store-filter", value_name = "GLOB")]
    pub store_filter: Option<String>,
    /// Seed of the document generator and of the id sequence.
    #[arg(long = "store-seed", default_value_t = jsoncost_shapes::DEFAULT_SEED)]
    pub store_seed: u64,
    /// Read your own documents instead, in Redis: the keys matching this pattern (SCAN MATCH),
    /// up to --docs of them.
    #[arg(long, value_name = "PATTERN", conflicts_with_all = ["table", "reload"])]
    pub keys: Option<String>,
    /// Read your own documents instead: this table (SQLite and PostgreSQL with --column; redb alone).
    #[arg(long, value_name = "NAME", conflicts_with = "reload")]
    pub table: Option<String>,
    /// With --table, in SQLite or PostgreSQL: the column holding the JSON document.
    #[arg(long, value_name = "NAME", requires = "table")]
    pub column: Option<String>,
    /// With --table and --column: the key column (text or integer).
    #[arg(long, value_name = "NAME", default_value = "id", requires = "column")]
    pub key_column: String,
    /// With --keys or --table: a JSON pointer lazy/sonic-rs projects (repeat it for more fields).
    #[arg(long = "store-field", value_name = "POINTER")]
    pub store_fields: Vec<String>,
    /// With --keys or --table: the largest document read, in MiB; a larger one fails the rows
    /// that read it (parsing holds a document several times over). Redis values are sized
    /// first (STRLEN), so a larger one is never fetched.
    #[arg(long, value_name = "MIB", default_value_t = crate::flags::Mebibytes::new(crate::store::DEFAULT_MAX_DOC_MIB))]
    pub max_doc_mib: crate::flags::Mebibytes,
    /// Sweep the order document at these sizes (comma-separated; B, KB or MB, 1KB = 1024
    /// bytes), e.g. 1KB,4KB,64KB: one collection and table per size, then where the winner
    /// changes; each size loads --docs documents, fewer where they would pass 64 MB.
    #[arg(long, value_name = "SIZES", conflicts_with_all = ["keys", "table", "store_shape"])]
    pub store_sizes: Option<crate::sizes::Sizes>,
}

#[cfg(feature = "cli")]
impl StoreArgs {
    /// Where the user's own documents are, when a flag names them.
    fn existing(&self) -> Option<Existing> {
        match (&self.keys, &self.table, &self.column) {
            (Some(pattern), _, _) => Some(Existing::Keys { pattern: pattern.clone() }),
            (None, Some(table), Some(column)) => Some(Existing::Rows {
                table: table.clone(),
                key: self.key_column.clone(),
                column: column.clone(),
            }),
            (None, Some(table), None) => Some(Existing::Table { table: table.clone() }),
            (None, None, _) => None,
        }
    }

    /// The library's options these flags give.
    pub fn options(&self) -> StoreOptions {
        StoreOptions {
            url: self.store.clone(),
            pg_column: match self.pg_column {
                PgColumnArg::Json => PgColumn::Json,
                PgColumnArg::Jsonb => PgColumn::Jsonb,
            },
            docs: self.docs,
            shape: match self.store_shape {
                StoreShapeArg::Order => StoreShape::Order,
                StoreShapeArg::OrderLarge => StoreShape::OrderLarge,
            },
            reload: self.reload,
            seed: self.store_seed,
            existing: self.existing(),
            fields: self.store_fields.clone(),
            max_doc_bytes: self.max_doc_mib.bytes(),
            sizes: self.store_sizes.clone().map(|s| s.0).unwrap_or_default(),
        }
    }
}

#[cfg(feature = "cli")]
impl crate::flags::ExperimentArgs for StoreArgs {
    fn kind(&self) -> jsoncost_engine::ExperimentKind {
        jsoncost_engine::ExperimentKind::Store
    }

    fn run(
        &self,
        config: &jsoncost_engine::MeasureConfig,
        cancel: crate::cancel::Cancel,
        sink: &mut dyn crate::sink::Sink,
    ) -> Result<(), Error> {
        run(
            &self.options(),
            &mut crate::flags::runner(config, "--store-filter", self.store_filter.as_deref(), cancel, sink)?,
        )
    }

    /// At most 1,000 documents with `--quick`.
    fn fit_whole_study(&mut self, quick: bool) {
        if quick {
            self.docs = self.docs.min(1_000);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filter_is_checked_against_the_strategies_names() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("redb:{}", dir.path().join("s.redb").display());
        let store = jsoncost_stores::open(&url, &OpenOptions::default()).unwrap();
        let shared: Shared = Rc::new(RefCell::new(store));
        let list = strategies(&shared, "order", &IdSequence::new(10, 1), (0, &serde_json::Value::Null), None);
        let names: Vec<&str> = list.iter().map(|s| s.name()).collect();
        let methods = method_names();
        let embedded: Vec<&str> = methods
            .iter()
            .map(StrategyId::name)
            .filter(|m| !["new-client", "projection/server"].contains(m))
            .filter(|m| cfg!(feature = "more-libraries") || *m != "typed/facet-json")
            .collect();
        assert_eq!(names, embedded);
    }

    #[test]
    fn every_read_strategy_declares_what_it_delivers() {
        use jsoncost_codecs::Contract::*;
        let dir = tempfile::tempdir().unwrap();
        let url = format!("redb:{}", dir.path().join("s.redb").display());
        let store = jsoncost_stores::open(&url, &OpenOptions::default()).unwrap();
        let shared: Shared = Rc::new(RefCell::new(store));
        let list = strategies(&shared, "order", &IdSequence::new(10, 1), (0, &serde_json::Value::Null), None);
        let declared: Vec<(&str, Contract)> = list.iter().map(|s| (s.name(), s.contract())).collect();
        let mut expected = vec![
            ("default", TypedValue),
            ("default-dom", Dom),
            ("typed/serde_json", TypedValue),
            ("typed/sonic-rs", TypedValue),
            ("typed/simd-json", TypedValue),
            ("borrowed/serde_json", BorrowedValue),
            ("borrowed/sonic-rs", BorrowedValue),
            ("borrowed/simd-json", BorrowedValue),
            ("lazy/sonic-rs", Projection),
            (FLOOR, Discarded),
        ];
        if cfg!(feature = "more-libraries") {
            expected.insert(5, ("typed/facet-json", TypedValue));
        }
        assert_eq!(declared, expected);
    }
}

/// `Study::store::<T>` over a user's SQLite table: the typed rows gated through `T`, as
/// micro's are, and a table that cannot be measured stopping only itself.
#[cfg(test)]
mod typed_tests {
    use jsoncost_engine::{Results, Status};
    use jsoncost_stores::{LoadMarker, open};
    use serde::Deserialize;

    use super::*;

    /// An ordinary type: a skipped `None`, an `f64` whose documents hold integers, and (in the
    /// documents) a field it does not declare.
    #[derive(Serialize, Deserialize)]
    struct Event {
        id: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        price: f64,
    }

    /// A SQLite file holding `docs` in jsoncost's own `docs` table (collection `events`), read
    /// back as a user's table `docs (id, body)`.
    fn sqlite_with(dir: &std::path::Path, docs: Vec<(String, Vec<u8>)>) -> String {
        let url = format!("sqlite:{}", dir.join("own.db").display());
        let mut store = open(&url, &OpenOptions::default()).unwrap();
        let marker = LoadMarker {
            docs: docs.len() as u64,
            description: "test".into(),
        };
        store.load("events", &mut docs.into_iter(), &marker).unwrap();
        url
    }

    fn rows(table: &str) -> Existing {
        Existing::Rows {
            table: table.into(),
            key: "id".into(),
            column: "body".into(),
        }
    }

    fn events(n: u64) -> Vec<(String, Vec<u8>)> {
        (0..n)
            .map(|i| {
                let doc = format!(r#"{{"id":{i},"note":null,"price":{},"source":"undeclared {i}"}}"#, 5 + i);
                (i.to_string(), doc.into_bytes())
            })
            .collect()
    }

    fn study(out: &std::path::Path) -> crate::Study {
        let out = out.display().to_string();
        crate::Study::with_args(["--bench", "--quick", "--format", "json", "--out", out.as_str()])
    }

    #[test]
    fn typed_rows_are_gated_through_the_type_like_micro() {
        let dir = tempfile::tempdir().unwrap();
        let url = sqlite_with(dir.path(), events(20));
        let results = study(&dir.path().join("r.json"))
            .store::<Event>("events", &url, rows("docs"))
            .measure()
            .unwrap();
        let exp = &results.experiments[0];
        assert_eq!(exp.table, "sqlite/events");
        for method in ["typed/serde_json", "typed/sonic-rs", "typed/simd-json"] {
            let row = exp.rows.iter().find(|r| r.method == method).unwrap();
            assert_eq!(row.status, Status::Ok, "{method}: {:?}", row.error_message);
            // As micro: the f64 is a float on both sides, not an integer changed.
            let fidelity = row.fidelity.as_ref().unwrap();
            assert_eq!((fidelity.numbers, fidelity.integers_changed), (2, 0), "{method}: {fidelity:?}");
        }
        // The DOM rows keep the whole document: null, the undeclared field, the integer.
        for method in ["dom/serde_json", "dom/sonic-rs", "dom/simd-json", "raw/serde_json", "floor"] {
            let row = exp.rows.iter().find(|r| r.method == method).unwrap();
            assert_eq!(row.status, Status::Ok, "{method}: {:?}", row.error_message);
        }
    }

    #[test]
    fn a_store_table_that_cannot_be_measured_stops_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let url = sqlite_with(dir.path(), events(20));
        let out = dir.path().join("r.json");
        let err = study(&out)
            .store::<Event>("absent", &url, rows("absent"))
            .store::<Event>("events", &url, rows("docs"))
            .measure()
            .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert_eq!(
            err.to_string(),
            format!("store sqlite/absent: {url}: table absent (id, body): no such table: absent")
        );
        // The table after it was measured and written.
        let written: Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let tables: Vec<&str> = written.experiments.iter().map(|e| e.table.as_str()).collect();
        assert_eq!(tables, ["sqlite/events"]);
        assert!(written.experiments[0].rows.iter().all(|r| r.status == Status::Ok));
    }

    /// `--list` names a store table's rows without opening the store (nextest lists every
    /// bench before anything runs): a database that is not there is not created or asked.
    #[test]
    fn list_names_a_store_table_s_rows_without_opening_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite:{}", dir.path().join("absent.db").display());
        let (lines, ended) = crate::Study::with_args(["--list", "--skip", "dom*"])
            .store::<Event>("events", &url, rows("events"))
            .listed();
        assert!(ended.is_ok(), "{ended:?}");
        assert_eq!(
            lines,
            [
                "sqlite/events typed/serde_json",
                "sqlite/events typed/sonic-rs",
                "sqlite/events typed/simd-json",
                "sqlite/events raw/serde_json",
                "sqlite/events floor",
            ]
        );
        assert!(!dir.path().join("absent.db").exists());
        // The DOM rows are the registry's, each library's own name and style.
        let (lines, _) = crate::Study::with_args(["--list", "dom*"])
            .store::<Event>("events", &url, rows("events"))
            .listed();
        let registry: Vec<String> = dom_decoders().iter().map(|d| format!("sqlite/events {}", d.id())).collect();
        assert_eq!(lines, registry);
        assert_eq!(
            &lines[..3],
            [
                "sqlite/events dom/serde_json",
                "sqlite/events dom/sonic-rs",
                "sqlite/events dom/simd-json"
            ]
        );
    }

    #[test]
    fn a_baseline_that_fails_on_the_type_stops_only_its_table() {
        #[derive(Serialize, Deserialize)]
        struct Other {
            name: String,
        }
        let dir = tempfile::tempdir().unwrap();
        let url = sqlite_with(dir.path(), events(20));
        let out = dir.path().join("r.json");
        let err = study(&out)
            .store::<Other>("other", &url, rows("docs"))
            .store::<Event>("events", &url, rows("docs"))
            .measure()
            .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        assert!(
            message.starts_with("store sqlite/other: the baseline typed/serde_json fails on this input, so the table is not measured: "),
            "{message}"
        );
        let written: Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let tables: Vec<&str> = written.experiments.iter().map(|e| e.table.as_str()).collect();
        assert_eq!(tables, ["sqlite/events"]);
        // Test mode (no --bench) says so too, and fails.
        let err = crate::Study::with_args(["--quick"])
            .store::<Other>("other", &url, rows("docs"))
            .measure()
            .unwrap_err();
        assert_eq!(err.exit_code(), 2);
        let message = err.to_string();
        assert!(
            message.starts_with("store sqlite/other: the baseline typed/serde_json fails on this input"),
            "{message}"
        );
    }

    #[test]
    fn a_table_whose_every_json_row_fails_is_bad_input_naming_the_document() {
        let dir = tempfile::tempdir().unwrap();
        let mut docs = events(6);
        // One document that is not JSON, other than the one the gate reads first.
        let first = IdSequence::among(
            &(0..6).map(|i: u64| i.to_string()).collect::<Vec<_>>(),
            jsoncost_shapes::DEFAULT_SEED,
        )
        .ids[0]
            .clone();
        let bad = if first == "3" { "4" } else { "3" };
        docs[bad.parse::<usize>().unwrap()].1 = b"not json".to_vec();
        let url = sqlite_with(dir.path(), docs);
        let out = dir.path().join("r.json");
        let err = study(&out).store::<Event>("events", &url, rows("docs")).measure().unwrap_err();
        assert_eq!(err.exit_code(), 2, "{err}");
        let message = err.to_string();
        assert!(
            message.starts_with("every row of store: sqlite/events but floor failed (typed/serde_json: "),
            "{message}"
        );
        assert!(
            message.contains(&format!("document {bad:?} in table \"docs\" does not decode")),
            "{message}"
        );
        // The table is written with its failed rows.
        let written: Results = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
        let exp = &written.experiments[0];
        assert!(
            exp.rows.iter().all(|r| (r.status == Status::Ok) == (r.method == "floor")),
            "{:?}",
            exp.rows
        );
    }

    #[test]
    fn a_document_over_the_size_limit_is_not_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let mut docs = events(3);
        let big = format!(r#"{{"id":0,"price":1,"pad":"{}"}}"#, "x".repeat(2 << 20));
        for d in docs.iter_mut() {
            d.1 = big.clone().into_bytes();
        }
        let url = sqlite_with(dir.path(), docs);
        let options = StoreOptions {
            url: Some(url.clone()),
            pg_column: PgColumn::Json,
            docs: 10,
            shape: StoreShape::Order,
            reload: false,
            seed: 1,
            existing: Some(rows("docs")),
            fields: Vec::new(),
            max_doc_bytes: 1 << 20,
            sizes: Vec::new(),
        };
        let mut sink = crate::sink::Recorder::default();
        let mut runner = Runner::new(
            jsoncost_engine::MeasureConfig::quick(),
            crate::filter::Filter::new("--filter", None).unwrap(),
            crate::cancel::Cancel::never(),
            &mut sink,
        );
        run(&options, &mut runner).unwrap();
        let failed: Vec<String> = sink
            .events
            .iter()
            .filter_map(|e| match e {
                crate::sink::Event::AllFailed(e) => Some(e.to_string()),
                _ => None,
            })
            .collect();
        let id = IdSequence::among(&["0".into(), "1".into(), "2".into()], 1).ids[0].clone();
        assert_eq!(
            failed,
            [format!(
                "store sqlite/docs: document {id:?} of table docs (id, body) is 2.0 MiB, over the 1 MiB limit per document (raise it with --max-doc-mib)"
            )]
        );
    }
}
