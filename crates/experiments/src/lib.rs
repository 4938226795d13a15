//! jsoncost as a library: the experiments, the one [`Runner`] every table goes through (gate,
//! time, count, stop, cancel), the [`Sink`] progress and results flow through, and the public
//! API a user's `cargo bench` harness calls with their own serde types.

mod cancel;
mod error;
mod filter;
pub mod runner;
mod sink;
pub mod summary;

pub use cancel::Cancel;
pub use error::{Error, Result};
pub use filter::Filter;
pub use runner::{Runner, Stop, Table};
pub use sink::{Event, Recorder, Sink};

pub use jsoncost_codecs::{BoxedStrategy, Canonical, RunFailure, Strategy};
pub use jsoncost_engine::{Config, Experiment, ExperimentKind, Results, Row};
