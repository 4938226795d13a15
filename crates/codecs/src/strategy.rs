//! [`Strategy`]: one way to do an operation, gated untimed and then timed; [`RunFailure`], its
//! failure; [`Direction`], the table it belongs to.

use jsoncost_engine::{Contract, Effort, StrategyId};

use crate::canonical::Canonical;
use crate::gate;

/// Serialize or deserialize: one table each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// JSON text into a value.
    Deserialize,
    /// A value into JSON text.
    Serialize,
}

impl Direction {
    /// The name tables use: `deserialize`, `serialize`.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Deserialize => "deserialize",
            Direction::Serialize => "serialize",
        }
    }
}

/// One way to do an operation: untimed `check` for the correctness gate, timed `run`.
pub trait Strategy {
    /// Its style and library, made where it is made and carried to its row.
    fn id(&self) -> &StrategyId;
    /// `style/library`, e.g. `typed/serde_json`: its identity's name, as filters and messages
    /// read it.
    fn name(&self) -> &str {
        self.id().name()
    }
    /// What it delivers (a typed value, a DOM, bytes ...): the advisor weighs a strategy
    /// against the baseline only when they deliver the same.
    fn contract(&self) -> Contract;
    /// What adopting it takes (a swap, a model change, a code path, an architecture change):
    /// the rung of the verdict's ladder it stands on.
    fn effort(&self) -> Effort;
    /// Does the operation once, untimed, and returns its outcome in canonical form for the
    /// correctness gate; the failure when the operation itself fails (fatal when the run
    /// cannot go on, e.g. the server is gone).
    fn check(&mut self) -> Result<Canonical, RunFailure>;
    /// Does the operation once (the result is dropped through `black_box` inside). An error
    /// met while timed (a corrupt document among those a store read visits, a server that went
    /// away) is returned: the row is failed, and a fatal one stops the table.
    fn run(&mut self) -> Result<(), RunFailure>;
    /// The correctness gate for this strategy, untimed: by default its check's output against
    /// the table's exact reference. A strategy whose output is too big to hold as one value (a
    /// streamed body) checks itself against its source instead, and is given no reference.
    fn verify(&mut self, reference: Option<&gate::Reference>) -> Result<jsoncost_engine::Fidelity, RunFailure> {
        let reference = reference.ok_or_else(|| RunFailure::row(format!("{}: no reference to check against", self.name())))?;
        let out = self.check()?;
        match gate::judge(self.id(), &out, reference) {
            gate::Verdict::Pass(fidelity) => Ok(fidelity),
            gate::Verdict::Fail(message) => Err(RunFailure::row(message)),
        }
    }
    /// A strategy that measures itself (a load run: its row comes from the load generator, not
    /// from the engine's stages). `None`: the engine times `run`.
    fn measure(&mut self) -> Option<Result<jsoncost_engine::Row, RunFailure>> {
        None
    }
    /// Bytes the operation consumes or produces, for MB/s (the payload size by default).
    fn payload_bytes(&self) -> Option<u64> {
        None
    }
    /// Called once before the untimed Allocation pass, so a strategy that walks a sequence (of
    /// ids, say) can restart it and two runs count the same operations.
    fn begin_allocation_pass(&mut self) {}
    /// Called before this strategy's iteration of round `round` of an interleaved schedule, so
    /// a strategy that walks a sequence (of ids) reads the round's part of it: every strategy of
    /// a round starts at the same place and reads the same ids.
    fn begin_round(&mut self, _round: u64) {}
}

/// Runs `strategy` once, untimed, and compares its output with `reference` (the gate's
/// [`gate::judge`] on the strategy's check).
pub fn verify(strategy: &mut dyn Strategy, reference: &gate::Reference) -> gate::Verdict {
    match strategy.check() {
        Err(e) => gate::Verdict::Fail(e.message),
        Ok(out) => gate::judge(strategy.id(), &out, reference),
    }
}

/// An operation's failure, met in the gate's check or while timed.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFailure {
    /// What failed, as the row shows it.
    pub message: String,
    /// True when the rest of the run cannot go on either (the server is gone).
    pub fatal: bool,
    /// The failed row to show, when the failure was measured (a load run's error counts by
    /// kind and status); otherwise the row is the message alone.
    pub row: Option<Box<jsoncost_engine::Row>>,
    /// True when the failure says the input is wrong rather than the environment (a target URL
    /// every request of which was refused with a 4xx): a table failed only so is bad input.
    pub bad_input: bool,
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl RunFailure {
    /// A failure of this operation only: the table goes on.
    pub fn row(message: impl Into<String>) -> Self {
        RunFailure {
            message: message.into(),
            fatal: false,
            row: None,
            bad_input: false,
        }
    }

    /// A failure that ends the table (and the run).
    pub fn fatal(message: impl Into<String>) -> Self {
        RunFailure {
            message: message.into(),
            fatal: true,
            row: None,
            bad_input: false,
        }
    }

    /// The same failure, marked as saying the input is wrong.
    pub fn bad_input(mut self) -> Self {
        self.bad_input = true;
        self
    }

    /// The same failure shown as `row` (a failed row with what was measured before it failed).
    pub fn with_row(mut self, row: jsoncost_engine::Row) -> Self {
        self.row = Some(Box::new(row));
        self
    }
}

/// A boxed strategy, as experiments hold them.
pub type BoxedStrategy<'a> = Box<dyn Strategy + 'a>;
