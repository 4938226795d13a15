//! jsoncost as a library: the experiments, the one [`Runner`] every table goes through (gate,
//! time, count, stop, cancel), the [`Sink`] progress and results flow through, one [`output`]
//! for tables, results.json, report.html and baselines, and the [`Study`] a user's
//! `cargo bench` harness runs with their own serde types.
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
//! first, with a lever per table ([`ab::allocators`]).
//!
//! # Cargo features
//!
//! Always built: micro and model variants with serde_json, sonic-rs and simd-json. Opt in:
//! `shapes` (the built-in shapes' tables: data, order, order-large, item, items48,
//! order-model), `more-libraries` (jiter, serde_json_borrow, simd-json-derive, nanoserde,
//! miniserde), `stream` (`Study::stream`), `redb`, `sqlite`, `redis`, `postgres` (`Study::store`
//! with that store's client), `http`, `safety`, `full` (everything the `jsoncost` binary builds
//! but the allocators), `cli` (every experiment's command-line flags with clap,
//! `ExperimentCommand`; implies `full`) and `allocators` (mimalloc and jemalloc, C libraries
//! compiled with the bench).
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! The library every front end goes through: the CLI and a user's bench harness alike; it depends
//! on every crate below it.
//!
//! # Modules
//!
//! The experiments: [`micro`], [`variants`], `store`, `stream`, `http`, `safety` (features of
//! the same names), [`ab`] (programs in lockstep: builds and allocators) and `ab_http` (a user's
//! server, feature `http`). Around them: [`runner`] (the one loop every table goes through),
//! [`harness`] and [`types`] (the `cargo bench` harness and the types it registers), [`sizes`]
//! (payload size as a dimension: the sizes of a sweep and the subject of one size), [`input`]
//! (what is wrong with a document a user hands in), [`summary`] (table summaries as data) and
//! [`output`] (where results go). With the feature `cli`, each experiment's module also holds
//! its command-line flags (a `clap::Args` implementing `flags::ExperimentArgs`), and
//! `ExperimentCommand` lists them for the `jsoncost` binary to flatten into its subcommands.

#![deny(missing_docs)]

pub mod ab;
#[cfg(feature = "http")]
pub mod ab_http;
mod cancel;
mod children;
pub mod counts;
mod error;
mod filter;
#[cfg(feature = "cli")]
pub mod flags;
pub mod harness;
#[cfg(feature = "http")]
pub mod http;
pub mod input;
pub mod levers;
pub mod micro;
pub mod output;
pub mod runner;
#[cfg(feature = "safety")]
pub mod safety;
mod sink;
pub mod sizes;
#[cfg(feature = "store")]
pub mod store;
#[cfg(feature = "stream")]
pub mod stream;
pub mod summary;
pub mod types;
pub mod variants;

pub use cancel::Cancel;
pub use error::{Error, NoMatch, Result};
pub use filter::Filter;
pub use harness::{Args, Study, TypeStudy, VariantStudy};
pub use runner::{AllFailed, Mode, Ran, Runner, Stop, Table};
pub use sink::{Event, Recorder, Sink};
pub use types::{Sample, Subject, TypedSubject};
pub use variants::{Variant, VariantsSubject};

pub use jsoncost_codecs::{BorrowedForm, BoxedStrategy, Canonical, Direction, RunFailure, Strategy, TypeOptions};
pub use jsoncost_engine::alloc::{Allocator, CountingAllocator, SelectedAllocator};

// The unit tests count allocations exactly (as a bench does, with its own allocator installed).
#[cfg(test)]
#[global_allocator]
static COUNTING: CountingAllocator = CountingAllocator::system();
pub use jsoncost_engine::{Config, Experiment, ExperimentKind, Results, Row};
pub use jsoncost_report::Format;
#[cfg(feature = "store")]
pub use jsoncost_stores::Existing;
pub use jsoncost_stream::Library;

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
