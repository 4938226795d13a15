//! Advice as data: what the advisor ([`crate::advisor`]) and the allocator levers
//! ([`crate::allocators::advise`]) say of each table, which every format renders.

use jsoncost_engine::ExperimentKind as Kind;
use jsoncost_engine::{Contract, Effort, Interval};
use serde::Serialize;

/// The CSV `kind` of an "if you only need ..." option (a strategy with another contract).
pub const ALTERNATIVE_KEY: &str = "other_contract";

/// Title of the advisor section in every format.
pub const TITLE: &str = "What moves the number";

/// What the advisor says of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AdviceKind {
    /// A strategy beats the baseline beyond both confidence intervals.
    Recommend,
    /// The best alternative's interval overlaps the baseline's.
    NoMeasurableDifference,
    /// The baseline is already the cheapest correct strategy.
    KeepBaseline,
    /// Nothing to weigh: the baseline failed, there is no alternative, or no interval is known.
    NotComparable,
    /// Another global allocator (`candidate`) against the base one (`baseline`): no code path
    /// or contract changes ([`crate::allocators::advise`]).
    AllocatorChange,
    /// A size sweep: where each row that matters becomes measurably faster or slower than the
    /// baseline as the payload grows ([`crate::sweep`]); each size's verdict stays its table's.
    SizeSweep,
}

impl AdviceKind {
    /// The machine-readable name used in JSON and CSV.
    pub fn key(self) -> &'static str {
        match self {
            AdviceKind::Recommend => "recommend",
            AdviceKind::NoMeasurableDifference => "no_measurable_difference",
            AdviceKind::KeepBaseline => "keep_baseline",
            AdviceKind::NotComparable => "not_comparable",
            AdviceKind::AllocatorChange => "allocator_change",
            AdviceKind::SizeSweep => "size_sweep",
        }
    }
}

/// The advice for one table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Advice {
    /// The table's experiment.
    pub experiment: Kind,
    /// The table.
    pub table: String,
    /// What kind of advice it is.
    pub kind: AdviceKind,
    /// The table's baseline strategy.
    pub baseline: String,
    /// The strategy weighed against the baseline.
    pub candidate: Option<String>,
    /// The table as a sentence ("order (4,148 bytes), deserialize").
    pub title: String,
    /// What the run's headline shows one table of (a shape, a route; the table by default).
    #[serde(skip)]
    pub group: String,
    /// The advice as one paragraph: the first step of the ladder, or why there is none.
    pub text: String,
    /// The verdict by effort: one step per rung the table has rows on, cheapest rung first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ladder: Vec<Step>,
    /// The baseline's own figures: "9.733 µs and 7.48 KB per operation".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline_figures: Option<String>,
    /// What the ladder's steps save per second at the table's rate, when a step saves.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_second: Option<String>,
    /// How much of the operation is JSON work, where the table has a floor (the store's read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub json_share: Option<String>,
    /// Cheaper strategies beyond both intervals that deliver something else, cheapest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<Alternative>,
    /// A size sweep's crossovers: one sentence per row it follows, "typed/sonic-rs is faster
    /// than typed/serde_json from about 4 KB up (99% intervals at each size); ...".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crossovers: Vec<String>,
}

/// One rung of a table's verdict: the best row of that rung and what it saves on top of the step
/// below (the baseline for the first), or why the rung adds nothing.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    /// The rung: what adopting the step takes.
    pub effort: Effort,
    /// The row to adopt at this rung; `None`: nothing on the rung saves measurably on top of
    /// the step below.
    pub method: Option<String>,
    /// The row this step is weighed against: the step below, or the baseline.
    pub over: String,
    /// The step's time over `over`'s, with its 99% interval (paired per round where both rows
    /// were measured in the same rounds); absent where only the means' intervals decided.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ratio: Option<Interval>,
    /// The rung in one line: "typed/sonic-rs: 37% less time (99% interval 35–39%), the same
    /// allocation", or "no further saving (best: ...)".
    pub text: String,
}

/// An "if you only need ..." option: a strategy with another contract than the baseline's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Alternative {
    /// What the alternative delivers instead.
    pub contract: Contract,
    /// The alternative strategy.
    pub method: String,
    /// "If you only need a DOM: dom/sonic-rs takes ..."
    pub text: String,
}
