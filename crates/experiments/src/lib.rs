//! jsoncost as a library: the experiments, the one [`Runner`] every table goes through (gate,
//! time, count, stop, cancel), the [`Sink`] progress and results flow through, one [`output`]
//! for tables, results.json, report.html and baselines, and the [`Study`] a user's
//! `cargo bench` harness runs with their own serde types.
//!
//! # Measure your own types
//!
//! In `Cargo.toml`:
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
//! In `benches/json.rs`:
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
//! // Optional: the zero-copy form, for the borrowed/* strategies.
//! impl jsoncost::ZeroCopy for Order {
//!     type Borrowed<'a> = Order<&'a str>;
//! }
//!
//! fn main() {
//!     jsoncost::Study::from_args()
//!         .typed::<Order>("order", br#"{"id": 7, "customer": "Ada", "total": 12.5}"#)
//!         .borrowed()
//!         .lazy(&["/id", "/total"])
//!         .run();
//! }
//! ```
//!
//! Then `cargo bench --bench json` (flags after `--`: `--quick`, `--filter GLOB`,
//! `--format table|markdown|json|csv`, `--out FILE`, `--save-baseline NAME`, `--schedule interleaved|sequential`).

mod cancel;
mod error;
mod filter;
pub mod harness;
pub mod http;
pub mod input;
pub mod micro;
pub mod output;
pub mod runner;
pub mod safety;
mod sink;
pub mod store;
pub mod stream;
pub mod summary;
pub mod types;
pub mod variants;

pub use cancel::Cancel;
pub use error::{Error, Result};
pub use filter::Filter;
pub use harness::{Args, Study, TypeStudy};
pub use runner::{AllFailed, Ran, Runner, Stop, Table};
pub use sink::{Event, Recorder, Sink};
pub use types::{Sample, Subject, TypedSubject};
pub use variants::{Variant, VariantStudy, VariantsSubject};

pub use jsoncost_codecs::{BoxedStrategy, Canonical, Direction, RunFailure, Strategy, TypeOptions, ZeroCopy};
pub use jsoncost_engine::alloc::CountingAllocator;
pub use jsoncost_engine::{Config, Experiment, ExperimentKind, Results, Row};
pub use jsoncost_report::Format;
pub use jsoncost_stores::Existing;
pub use jsoncost_stream::Library;
