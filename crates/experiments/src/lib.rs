//! jsoncost as a library: the [`Study`] a user's `cargo bench` harness runs with their own serde
//! types, and what it reads back ([`Results`], [`Row`]). The experiments behind it, the runner
//! every table goes through and the outputs are the `jsoncost` binary's workshop, public with
//! the feature `cli` only.
//!
//! # Measure your own types
//!
//! Your types stay in your crate's `src/`; jsoncost is a dev-dependency. In `Cargo.toml`:
//!
//! ```toml
//! [dev-dependencies]
//! jsoncost = { path = "../jsoncost/crates/experiments" }
//!
//! [[bench]]
//! name = "json"
//! harness = false
//! ```
//!
//! In `benches/json.rs` (here with the type inline; in your crate it is `use my_crate::Order`):
//!
//! ```
//! # // The doctest runs this example for real, quickly: `from_args` here gives the flags
//! # // `cargo bench -- --quick ...` would (a local module shadows the crate's `Study` only).
//! # extern crate jsoncost as the_crate;
//! # mod jsoncost {
//! #     pub use the_crate::*;
//! #     pub struct Study;
//! #     impl Study {
//! #         pub fn from_args() -> the_crate::Study {
//! #             let out = std::env::temp_dir().join(format!("jsoncost-doctest-{}.json", std::process::id()));
//! #             the_crate::Study::with_args(["--bench", "--quick", "--filter", "typed/*", "--format", "json", "--out"].map(Into::into).into_iter().chain([out.into_os_string()]))
//! #         }
//! #     }
//! # }
//! use serde::{Deserialize, Serialize};
//!
//! // Counts allocations, so Allocated and Allocs/op are measured (without it they read "-").
//! #[global_allocator]
//! static ALLOC: jsoncost::CountingAllocator = jsoncost::CountingAllocator::system();
//!
//! #[derive(Serialize, Deserialize)]
//! struct Order<S = String> {
//!     id: u64,
//!     customer: S,
//!     total: f64,
//! }
//!
//! // Optional: the zero-copy form, for the borrowed/* strategies (a marker of the bench's own,
//! // so `Order` may live in another crate).
//! struct OrderRef;
//! impl jsoncost::BorrowedForm<Order> for OrderRef {
//!     type Of<'a> = Order<&'a str>;
//! }
//!
//! fn main() {
//!     jsoncost::Study::from_args()
//!         .typed::<Order>("order", jsoncost::Sample::json(r#"{"id": 7, "customer": "Ada", "total": 12.5}"#))
//!         .borrowed_as::<OrderRef>()
//!         .lazy(&["/id", "/total"])
//!         .run();
//! }
//! ```
//!
//! Then `cargo bench --bench json` (flags after `--`: `--quick`, `--filter GLOB`,
//! `--format FORMAT`, `--out FILE`, `--save-baseline NAME`, `--schedule
//! interleaved|sequential`, `--advice-rate [EXPERIMENT=]PER_S`, `--allocators A,B,...` with
//! `--rounds N`, `--list`, `--help`), or `cargo test --bench json`: each strategy once through
//! the correctness gate, untimed.
//!
//! # The allocator as a lever
//!
//! With the feature `allocators` and the counting allocator over the selected one,
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOC: jsoncost::CountingAllocator<jsoncost::SelectedAllocator> = jsoncost::CountingAllocator::selected();
//! ```
//!
//! `cargo bench --bench json -- --allocators system,mimalloc,jemalloc` runs the bench again
//! under each allocator (one process each, named by `JSONCOST_ALLOCATOR`), each other one in
//! lockstep with the first, and prints each row's time under it paired with its time under the
//! first, with a lever per table.
//!
//! # Cargo features
//!
//! Always built: micro and model variants with serde_json, sonic-rs and simd-json. Opt in:
//! `shapes` (the built-in shapes' tables: data, order, order-large, item, items48,
//! order-model), `more-libraries` (jiter, serde_json_borrow, simd-json-derive, nanoserde,
//! miniserde, facet-json), `stream` (`Study::stream`), `redb`, `sqlite`, `redis`, `postgres` (`Study::store`
//! with that store's client), `http`, `safety` (the dependencies of experiments only the binary
//! runs), `full` (everything the `jsoncost` binary builds but the allocators), `cli` (the
//! workshop below and every experiment's command-line flags with clap, `ExperimentCommand`;
//! implies `full`) and `allocators` (mimalloc and jemalloc, C libraries compiled with the
//! bench).
//!
//! Layering: cli → experiments (`jsoncost`) → conductor → http → report/codecs/stream/stores →
//! engine/shapes. Process orchestration (`ab`, `alloc`, `ab --http`) is `jsoncost-conductor`'s.
//! The library every front end goes through: the CLI and a user's bench harness alike; it depends
//! on every crate below it.
//!
//! # Feature `cli`: the workshop
//!
//! The modules the `jsoncost` binary builds on are public with the feature `cli` only (it
//! implies `full`): the experiments (`micro`, `variants`, `store`, `stream`, `http`, `safety`),
//! `levers` (build changes measured in lockstep), `runner`
//! (the one loop every table goes through, with `Runner`, `Table`, `TableStop`), the `Sink` progress
//! and results flow through, `output` (tables, results.json, report.html, baselines), `sizes`,
//! `input`, `summary`, `counts`, `types`, and `flags` with `ExperimentCommand` (each
//! experiment's command-line flags, with clap), and `StudyArgs` (the experiments `jsoncost run`
//! measures). Without it the harness's part of them is
//! compiled but not exported (`http` and `safety` not at all): their names and
//! signatures are not part of the library's API.

#![deny(missing_docs)]

// The workshop: the experiments' machinery, the runner, the outputs and the process
// orchestration. Public with the feature `cli` (the jsoncost binary's); private otherwise, and
// then only the part a bench's `Study` reaches is used: the rest is the CLI's (public items
// there, never dead-code checked before either), so dead_code is allowed on the private
// declarations only.
mod cancel;
#[cfg(feature = "cli")]
pub mod counts;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod counts;
mod error;
// `Filter`'s constructors from flags are the CLI's.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
mod filter;
#[cfg(feature = "cli")]
pub mod flags;
mod harness;
// Only the CLI runs the http experiment (the feature `http` builds its dependencies).
#[cfg(feature = "cli")]
pub mod http;
// A user's server profiled under http's load (`http --target … --profile`).
#[cfg(feature = "cli")]
pub mod input;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod input;
#[cfg(feature = "cli")]
mod profiled;
// Build levers: the CLI's `levers` and a bench's `--lever`.
#[cfg(feature = "cli")]
pub mod levers;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod levers;
#[cfg(feature = "cli")]
pub mod micro;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod micro;
#[cfg(feature = "cli")]
pub mod output;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod output;
#[cfg(feature = "cli")]
pub mod runner;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod runner;
// Only the CLI runs the safety experiment (the feature `safety` builds its dependencies).
#[cfg(feature = "cli")]
pub mod safety;
mod sink;
#[cfg(feature = "cli")]
pub mod sizes;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod sizes;
#[cfg(feature = "cli")]
pub mod store;
#[cfg(all(feature = "store", not(feature = "cli")))]
#[allow(dead_code)]
mod store;
#[cfg(feature = "cli")]
pub mod stream;
#[cfg(all(feature = "stream", not(feature = "cli")))]
#[allow(dead_code, unused_imports)] // and its re-exports for the CLI
mod stream;
#[cfg(feature = "cli")]
pub mod summary;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod summary;
#[cfg(feature = "stream")]
mod test_prefix;
#[cfg(feature = "cli")]
pub mod types;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod types;
#[cfg(feature = "cli")]
pub mod variants;
#[cfg(not(feature = "cli"))]
#[allow(dead_code)]
mod variants;

// `store` is the part the store clients share: alone it builds no client, so every store URL
// would fail at run time.
#[cfg(all(
    feature = "store",
    not(any(feature = "redb", feature = "sqlite", feature = "redis", feature = "postgres"))
))]
compile_error!(
    "jsoncost's feature `store` is internal: enable the feature of your store's client instead: `redb`, `sqlite`, `redis` or `postgres`"
);

// What a bench calls: the root page.
pub use cancel::Cancel;
pub use error::{Error, NoMatch, Result};
pub use harness::{Args, NeedsFeatureStream, NeedsStoreFeature, Study, TypeStudy, VariantStudy};
pub use jsoncost_codecs::BorrowedForm;
/// A row's `effort`: what adopting its strategy takes, least first.
///
/// ```
/// use jsoncost::Effort;
///
/// assert!(Effort::Swap < Effort::Model && Effort::Model < Effort::Code);
/// ```
pub use jsoncost_codecs::Effort;
/// The kind of a table in [`Results`]: which experiment measured it.
///
/// ```
/// assert_eq!(jsoncost::ExperimentKind::Micro.as_str(), "micro");
/// ```
pub use jsoncost_engine::ExperimentKind;
/// What [`Study::measure`] returns: every table measured, with its rows.
///
/// ```no_run
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { id: u64 }
/// let results: jsoncost::Results = jsoncost::Study::from_args()
///     .typed::<Order>("order", jsoncost::Sample::json(r#"{"id": 7}"#))
///     .measure()
///     .expect("measured");
/// for table in &results.experiments {
///     println!("{} ({}): {} rows", table.table, table.kind.as_str(), table.rows.len());
/// }
/// ```
pub use jsoncost_engine::Results;
/// One strategy's figures in a table of [`Results`].
///
/// ```no_run
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { id: u64 }
/// # let results = jsoncost::Study::from_args().typed::<Order>("order", jsoncost::Sample::json("{}")).measure().unwrap();
/// let row: &jsoncost::Row = results.experiments[0].rows.iter().find(|r| r.method == "typed/serde_json").unwrap();
/// assert!(row.is_ok(), "{:?}", row.error_message);
/// println!("{:?} ns, {:?} bytes allocated", row.mean_ns, row.allocated_bytes);
/// ```
pub use jsoncost_engine::Row;
/// The allocator a row was measured under (`--allocators system,mimalloc`).
///
/// ```
/// use jsoncost::Allocator;
///
/// assert_eq!(Allocator::System.as_str(), "system");
/// assert!(Allocator::built().contains(&Allocator::System));
/// ```
pub use jsoncost_engine::alloc::Allocator;
/// Installed as the bench's global allocator, it counts allocations, so Allocated and
/// Allocs/op are measured.
///
/// ```
/// // In the bench, with `#[global_allocator]` on it:
/// static ALLOC: jsoncost::CountingAllocator = jsoncost::CountingAllocator::system();
/// ```
pub use jsoncost_engine::alloc::CountingAllocator;
/// With the feature `allocators`: the allocator a process runs on, chosen by
/// `JSONCOST_ALLOCATOR`, so `--allocators system,mimalloc,jemalloc` compares them.
///
/// ```
/// // In the bench, with `#[global_allocator]` on it:
/// static ALLOC: jsoncost::CountingAllocator<jsoncost::SelectedAllocator> = jsoncost::CountingAllocator::selected();
/// ```
pub use jsoncost_engine::alloc::SelectedAllocator;
/// `--format NAME`: how the results are printed or written.
///
/// ```
/// let format: jsoncost::Format = "json".parse().unwrap();
/// assert_eq!(format.name(), "json");
/// ```
pub use jsoncost_report::Format;
/// Where the user's own documents are in their store, for [`Study::store`].
///
/// ```no_run
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { id: u64 }
/// let orders = jsoncost::Existing::Rows { table: "orders".into(), key: "id".into(), column: "body".into() };
/// jsoncost::Study::from_args().store::<Order>("orders", "sqlite:orders.db", orders).run();
/// ```
#[cfg(feature = "store")]
pub use jsoncost_stores::Existing;
/// A JSON library, as `.libraries(..)` and `.on(..)` take it.
///
/// ```
/// use jsoncost::Library;
///
/// assert_eq!(Library::ALL.map(Library::as_str), ["serde_json", "sonic-rs", "simd-json"]);
/// ```
pub use jsoncost_stream::Library;
/// A build change `--lever` measures ([`Args::levers`]): a feature of a JSON crate, a CPU
/// level, LTO, another version of a dependency.
///
/// ```
/// let lever: jsoncost::Lever = "serde_json/float_roundtrip".parse().unwrap();
/// assert_eq!(lever.touches(), Some("serde_json"));
/// ```
pub use levers::Lever;
pub use types::{LibraryName, Sample};
pub use variants::Variant;

// The workshop's names at the root, public for the CLI (the crate's own modules import them from
// the modules that define them).
#[cfg(feature = "cli")]
pub use filter::Filter;
#[cfg(feature = "cli")]
pub use jsoncost_codecs::{BoxedStrategy, Canonical, Contract, Direction, RunFailure, Strategy, TypeOptions};
#[cfg(feature = "cli")]
pub use jsoncost_engine::{MeasureConfig, MeasuredTable};
#[cfg(feature = "cli")]
pub use runner::{AllFailed, Ran, RunMode, Runner, Table, TableStop};
#[cfg(feature = "cli")]
pub use sink::{Event, Recorder, Sink};
#[cfg(feature = "cli")]
pub use types::{ExpectedFailure, Subject, TypedSubject};
#[cfg(feature = "cli")]
pub use variants::VariantsSubject;

// The unit tests count allocations exactly (as a bench does, with its own allocator installed).
#[cfg(test)]
#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator::system();

/// Every experiment's command (feature `cli`): its name, its flags (each experiment's own
/// [`flags::ExperimentArgs`], defined beside it) and the flags every experiment shares, which
/// the program defines (`Shared`). The `jsoncost` binary flattens it into its subcommands; a
/// new experiment is one variant here and one arm in each match below.
#[cfg(feature = "cli")]
#[derive(Debug, Clone, clap::Subcommand)]
pub enum ExperimentCommand<Shared: clap::Args> {
    /// Serialize and deserialize small records and documents through every library and API style.
    Micro {
        #[allow(missing_docs)]
        #[command(flatten)]
        args: micro::MicroArgs,
        #[allow(missing_docs)]
        #[command(flatten)]
        shared: Shared,
    },
    /// Read one document by id from a store in several ways, down to the floor (bytes discarded).
    Store {
        #[allow(missing_docs)]
        #[command(flatten)]
        args: store::StoreArgs,
        #[allow(missing_docs)]
        #[command(flatten)]
        shared: Shared,
    },
    /// Deserialize a large body (1,000,000 readings, ~72 MB) buffered, from a reader and incrementally.
    Stream {
        #[allow(missing_docs)]
        #[command(flatten)]
        args: stream::StreamArgs,
        #[allow(missing_docs)]
        #[command(flatten)]
        shared: Shared,
    },
    /// Load-test the reference JSON API in-process (or any URL with --target): req/s, latency, server cost.
    Http {
        #[allow(missing_docs)]
        #[command(flatten)]
        args: http::HttpArgs,
        #[allow(missing_docs)]
        #[command(flatten)]
        shared: Shared,
    },
    /// Hostile inputs (deep nesting, huge strings, odd numbers, bad UTF-8 ...) through each
    /// library and parse path, each in a child process with time and memory limits.
    Safety {
        #[allow(missing_docs)]
        #[command(flatten)]
        args: safety::SafetyArgs,
        #[allow(missing_docs)]
        #[command(flatten)]
        shared: Shared,
    },
}

/// Every experiment `jsoncost run` measures, with its flags, in the order the run measures
/// them: the whole study's one list (a kind in it is also a variant of [`ExperimentCommand`]).
#[cfg(feature = "cli")]
#[derive(Debug, Clone, clap::Args)]
pub struct StudyArgs {
    #[allow(missing_docs)]
    #[command(flatten)]
    pub micro: micro::MicroArgs,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub store: store::StoreArgs,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub stream: stream::StreamArgs,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub http: http::HttpArgs,
    #[allow(missing_docs)]
    #[command(flatten)]
    pub safety: safety::SafetyArgs,
}

#[cfg(feature = "cli")]
impl StudyArgs {
    /// The kinds of [`StudyArgs::experiments`], in its order (`run --only`'s values).
    pub const KINDS: [ExperimentKind; 5] = [
        ExperimentKind::Micro,
        ExperimentKind::Store,
        ExperimentKind::Stream,
        ExperimentKind::Http,
        ExperimentKind::Safety,
    ];

    /// Each experiment's flags, in the order the run measures them.
    pub fn experiments(&self) -> [&dyn flags::ExperimentArgs; 5] {
        [&self.micro, &self.store, &self.stream, &self.http, &self.safety]
    }

    /// Each experiment's flags, to fit them to the run.
    pub fn experiments_mut(&mut self) -> [&mut dyn flags::ExperimentArgs; 5] {
        [&mut self.micro, &mut self.store, &mut self.stream, &mut self.http, &mut self.safety]
    }
}

#[cfg(feature = "cli")]
impl<Shared: clap::Args> ExperimentCommand<Shared> {
    /// The experiment's own flags.
    pub fn args(&self) -> &dyn flags::ExperimentArgs {
        match self {
            ExperimentCommand::Micro { args, .. } => args,
            ExperimentCommand::Store { args, .. } => args,
            ExperimentCommand::Stream { args, .. } => args,
            ExperimentCommand::Http { args, .. } => args,
            ExperimentCommand::Safety { args, .. } => args,
        }
    }

    /// The experiment's own flags, to change.
    pub fn args_mut(&mut self) -> &mut dyn flags::ExperimentArgs {
        match self {
            ExperimentCommand::Micro { args, .. } => args,
            ExperimentCommand::Store { args, .. } => args,
            ExperimentCommand::Stream { args, .. } => args,
            ExperimentCommand::Http { args, .. } => args,
            ExperimentCommand::Safety { args, .. } => args,
        }
    }

    /// The flags every experiment shares.
    pub fn shared(&self) -> &Shared {
        match self {
            ExperimentCommand::Micro { shared, .. }
            | ExperimentCommand::Store { shared, .. }
            | ExperimentCommand::Stream { shared, .. }
            | ExperimentCommand::Http { shared, .. }
            | ExperimentCommand::Safety { shared, .. } => shared,
        }
    }
}
