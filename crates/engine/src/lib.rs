//! jsoncost's measurement engine. It times closures, counts their allocations, summarises
//! samples, and holds the result model every experiment fills (serialized with serde_json);
//! no JSON library under measurement is known to it.
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! The engine is a bottom layer: it depends on no other jsoncost crate, and every crate above reads
//! its result model ([`Results`], [`Row`]).
//!
//! # Modules
//!
//! [`stages`] (Pilot, Warmup, Actual, Allocation pass; sequential and interleaved measurement),
//! [`stats`] and [`paired`] (sample and paired statistics), [`alloc`] (the counting allocator and
//! the allocator choice), [`rss`] (peak RSS windows), [`clock`] (where time is read: the wall clock, or for whole runs the wall clock less the measuring thread's run-queue wait), [`cpu_time`] (a live process's CPU time from its CPU clock; a zombie's, waited-for children's and the CPUs' busy time from `/proc`), [`counts`] (instructions and simulated cache misses under Callgrind), [`lockstep`] (turns with another program
//! under `jsoncost ab`), [`machine`] (the machine and build facts), [`private_dir`] (the per-user private directory under the temporary directory, where jsoncost's own files and scratch live), [`kind`] (the experiment kinds
//! and what each one's tables are), and the result model: [`model`], [`http_figures`], [`ab_http`] (an `ab --http` table's own record), [`profile`] (a server's profile under a load), [`summary`], [`safety`].

#![deny(missing_docs)]

pub mod ab_http;
pub mod alloc;
pub mod clock;
pub mod counts;
pub mod cpu_time;
pub mod error;
pub mod http_figures;
pub mod kind;
pub mod lockstep;
pub mod machine;
pub mod model;
pub mod paired;
pub mod private_dir;
pub mod profile;
pub mod rss;
pub mod safety;
pub mod stages;
pub mod stats;
pub mod summary;

pub use ab_http::{AbHttpFigure, AbHttpSide, AbHttpSlice, AbHttpTable, LATENCY_QUANTILES, LatencyPoint, Placement};
pub use clock::{Clock, LessRunQueueWait, SystemClock};
pub use counts::Counts;
pub use http_figures::{HttpErrors, HttpFigures, HttpLoss, HttpStop, LossKind};
pub use kind::{Blame, KindTraits, Rate, RowMeasure};
pub use model::{
    AllocatorComparison, AllocatorRow, Build, Contract, DifferenceKind, Effort, ExperimentKind, FLOOR, Fidelity, LibraryVersion, Machine,
    MeasuredTable, NumberDifference, OtherCpu, Rates, Results, Row, RunQueueWait, SCHEMA_VERSION, Schedule, Status, StrategyId,
    parse_experiment_rate, parse_rate,
};
pub use paired::Interval;
pub use stages::{
    AllocScope, DEFAULT_SCHEDULE_SEED, Interleaved, Lineup, MeasureConfig, Measurement, Stage, measure, measure_interleaved,
    measure_interleaved_with, measure_staged, try_measure_staged, try_measure_staged_with,
};
pub use summary::{StoreSummary, StreamLibrary, StreamSummary, Summary, TypedPath};
