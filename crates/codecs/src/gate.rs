//! The correctness gate: before a strategy is timed, its output is checked against the
//! baseline's. A strategy that disagrees (or fails) is reported with the difference and is
//! never timed.

use crate::{Canonical, Strategy};

/// What the gate decided for one strategy.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Agrees with the baseline: may be timed.
    Pass,
    /// Failed or disagreed: shown as failed with this message.
    Fail(String),
}

/// Runs the baseline once and returns its canonical output (the reference for the others).
pub fn reference(baseline: &mut dyn Strategy) -> Result<Canonical, String> {
    baseline.check().map_err(|e| format!("{} failed: {e}", baseline.name()))
}

/// Checks one strategy against the reference.
pub fn verify(strategy: &mut dyn Strategy, reference: &Canonical) -> Verdict {
    match strategy.check() {
        Err(e) => Verdict::Fail(e.message),
        Ok(out) => match out.agrees_with(reference) {
            Ok(()) => Verdict::Pass,
            Err(diff) => Verdict::Fail(format!("output differs from the baseline {diff}")),
        },
    }
}
