//! The flags every experiment command shares: how precisely to measure, and where results go.

use jsoncost::flags::ScheduleArg;
use jsoncost_engine::MeasureConfig;
use std::time::Duration;

use crate::session::OutputArgs;

/// What `jsoncost micro`, `store`, `stream`, `http` and `safety` take besides their own flags.
#[derive(Debug, Clone, clap::Args)]
pub struct SharedArgs {
    #[command(flatten)]
    pub precision: PrecisionArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub measure: crate::commands::counts::MeasureArgs,
}

/// How precisely to measure.
#[derive(Debug, Clone, clap::Args)]
pub struct PrecisionArgs {
    /// Trade precision for time: fewer, shorter iterations (the output says so). safety: leave
    /// out the large cases (the 64 MiB string, the million numbers) unless --safety-case names
    /// them.
    #[arg(long)]
    pub quick: bool,
    /// jsoncost's own tests (hyperfine's `--debug-mode`): `--quick` through the real pipeline
    /// (gate, warm-up, timed rounds, allocation pass) with the fewest, shortest iterations, and
    /// the fewest whole runs, requests and rounds (each experiment's `debug_mode`), for tests
    /// of wiring, exit codes and rows, not of figures.
    #[arg(long, hide = true, requires = "quick")]
    pub debug_mode: bool,
    /// How a table's strategies share the time: interleaved rounds (drift lands on every row
    /// alike; rows pair up) or one strategy after another. stream's rounds run each strategy
    /// once as a whole run; http always alternates its modes in slices of load, in rounds;
    /// safety's rows are findings, not timings.
    #[arg(long, value_enum, default_value_t = ScheduleArg::Interleaved)]
    pub schedule: ScheduleArg,
}

impl PrecisionArgs {
    pub fn config(&self) -> MeasureConfig {
        let config = match (self.debug_mode, self.quick) {
            (true, _) => debug_mode(),
            (false, true) => MeasureConfig::quick(),
            (false, false) => MeasureConfig::full(),
        };
        MeasureConfig {
            schedule: self.schedule.schedule(),
            ..config
        }
    }
}

/// `--debug-mode`: a quick run's stages, each as short as the engine allows (one warm-up, three
/// timed iterations of ~1 ms, 10 counted operations).
pub fn debug_mode() -> MeasureConfig {
    MeasureConfig {
        iteration_time: Duration::from_millis(1),
        warmup_iterations: 1,
        min_iterations: 3,
        max_iterations: 3,
        budget: Duration::from_millis(30),
        alloc_ops: 10,
        ..MeasureConfig::quick()
    }
}
