//! jsoncost's measurement engine. It knows no JSON library: it times closures, counts their
//! allocations, summarises samples, and holds the result model every experiment fills.

pub mod alloc;
pub mod machine;
pub mod model;
pub mod rss;
pub mod runner;
pub mod safety;
pub mod stats;
pub mod summary;

pub use model::{Experiment, ExperimentKind, Fidelity, Machine, Results, Row, SCHEMA_VERSION, Status};
pub use runner::{AllocScope, Config, Measurement, Stage, measure, measure_staged, try_measure_staged};
pub use summary::{StoreSummary, StreamLibrary, StreamSummary, Summary, TypedPath};
