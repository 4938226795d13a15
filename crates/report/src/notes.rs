//! The sentences every format prints about the run itself: the build's SIMD note, a quick run,
//! an interrupted one, how a table's times were read.

use jsoncost_engine::{Machine, RunQueueWait};

use crate::units;

/// The note every table header, the report's header and stderr carry when the build lacks
/// SIMD features this CPU has (`machine.missing_target_features`), with the fix; `None` when it
/// lacks none, or the file does not say.
pub fn simd_note(machine: &Machine) -> Option<String> {
    if machine.missing_target_features.is_empty() {
        return None;
    }
    Some(format!(
        "Built without {}, which this CPU has: sonic-rs and simd-json choose their SIMD code at compile time, \
         so their figures here are their portable code's. To measure this CPU, build with -C target-cpu=native: \
         a .cargo/config.toml in your crate with [build] rustflags = [\"-C\", \"target-cpu=native\"].",
        machine.missing_target_features.join(", ")
    ))
}

/// The note every format prints for a `--quick` run.
pub(crate) const QUICK_NOTE: &str = "Quick run (--quick): fewer, shorter iterations; the figures are rough.";

/// The note every format prints for a run stopped early.
pub(crate) const INTERRUPTED_NOTE: &str = "Interrupted run: stopped early; only the tables below were measured.";

/// The CPU features line of a header.
pub(crate) fn features(list: &[String]) -> String {
    if list.is_empty() {
        "none recorded".to_string()
    } else {
        list.join(", ")
    }
}

/// The note under a table whose times leave out the measuring thread's run-queue wait (whole
/// runs), with how much of the rounds' wall time that was: on a busy machine, the share another
/// program took.
pub(crate) fn run_queue_wait(wait: &RunQueueWait) -> String {
    format!(
        "Times leave out the measuring thread's run-queue wait (ready to run while another task held its CPU): {} of the rounds' {} wall time.",
        units::percent(wait.share()),
        units::time(wait.wall_ns)
    )
}
