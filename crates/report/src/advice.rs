//! Advice as data: what the advisor ([`crate::advisor`]) and the allocator levers
//! ([`crate::allocators::advise`]) say of each table, which every format renders.

use jsoncost_engine::Contract;
use jsoncost_engine::ExperimentKind as Kind;
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
    /// The advice as one paragraph.
    pub text: String,
    /// Cheaper strategies beyond both intervals that deliver something else, cheapest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub alternatives: Vec<Alternative>,
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
