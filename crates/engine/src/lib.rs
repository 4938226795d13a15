//! jsoncost's measurement engine. It times closures, counts their allocations, summarises
//! samples, and holds the result model every experiment fills (serialized with serde_json);
//! no JSON library under measurement is known to it.

pub mod alloc;
pub mod http_ab;
pub mod http_figures;
pub mod lockstep;
pub mod machine;
pub mod model;
pub mod paired;
pub mod rss;
pub mod safety;
pub mod stages;
pub mod stats;
pub mod summary;

pub use http_ab::{HttpAbFigure, HttpAbSide, HttpAbSlice, HttpAbTable, LATENCY_QUANTILES, LatencyPoint, Placement};
pub use http_figures::{HttpErrors, HttpFigures, HttpLoss, HttpStop, LossKind};
pub use model::{
    AllocatorComparison, AllocatorRow, Contract, CpuWait, DifferenceKind, Experiment, ExperimentKind, FLOOR, Fidelity, Machine,
    NumberDifference, Rates, Results, Row, SCHEMA_VERSION, Schedule, Status, parse_experiment_rate, parse_rate,
};
pub use paired::Interval;
pub use stages::{
    AllocScope, Clock, Config, DEFAULT_SCHEDULE_SEED, Interleaved, Lineup, Measurement, Stage, SystemClock, measure, measure_interleaved,
    measure_interleaved_with, measure_staged, try_measure_staged, try_measure_staged_with,
};
pub use summary::{StoreSummary, StreamLibrary, StreamSummary, Summary, TypedPath};
