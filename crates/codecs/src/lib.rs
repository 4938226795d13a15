//! jsoncost's strategies: one way to serialize or deserialize, named `style/library`
//! (design.md section 2), each with a correctness check. A strategy is run untimed once for the
//! correctness gate ([`gate`]), which compares its output with an exact reference parsed from
//! the source text ([`exact`]); only strategies whose output holds the reference's values are
//! handed to the engine for timing, with how exactly they hold them recorded on the row.
//!
//! Modules: [`typed`] (strategies over a Rust type: typed, borrowed, dom, dom-then-typed, reader,
//! raw, lazy; serialize typed, typed-writer, dom), [`document`] (any JSON document, no Rust type),
//! [`canonical`] (the common form outputs are compared in), [`exact`] (the reference parser),
//! [`gate`].

pub mod canonical;
pub mod document;
pub mod exact;
pub mod gate;
pub mod shape_model;
pub mod typed;

pub use canonical::Canonical;
pub use shape_model::ShapeModel;

/// Serialize or deserialize: one table each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Deserialize,
    Serialize,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Deserialize => "deserialize",
            Direction::Serialize => "serialize",
        }
    }
}

/// One way to do an operation.
pub trait Strategy {
    /// `style/library`, e.g. `typed/serde_json`.
    fn name(&self) -> &str;
    /// Does the operation once, untimed, and returns its outcome in canonical form for the
    /// correctness gate; an error message when the operation itself fails.
    fn check(&mut self) -> Result<Canonical, String>;
    /// Does the operation once; the result is dropped through `black_box` inside.
    fn run(&mut self);
    /// Bytes the operation consumes or produces, for MB/s (the payload size by default).
    fn payload_bytes(&self) -> Option<u64> {
        None
    }
    /// Called once before the untimed Allocation pass, so a strategy that walks a sequence (of
    /// ids, say) can restart it and two runs count the same operations.
    fn begin_allocation_pass(&mut self) {}
    /// The first error `run` met while being timed (e.g. a corrupt document among the ones a
    /// store read visits, or a server that went away); such a row is shown as failed.
    fn failure(&mut self) -> Option<RunFailure> {
        None
    }
}

/// An error met while timing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure {
    pub message: String,
    /// True when the rest of the run cannot go on either (the server is gone).
    pub fatal: bool,
}

/// A strategy made of a name and two closures; most strategies are one of these.
pub struct FnStrategy<C, R> {
    name: String,
    check: C,
    run: R,
    bytes: Option<u64>,
}

impl<C, R> FnStrategy<C, R>
where
    C: FnMut() -> Result<Canonical, String>,
    R: FnMut(),
{
    pub fn new(name: impl Into<String>, bytes: Option<u64>, check: C, run: R) -> Self {
        FnStrategy {
            name: name.into(),
            check,
            run,
            bytes,
        }
    }
}

impl<C, R> Strategy for FnStrategy<C, R>
where
    C: FnMut() -> Result<Canonical, String>,
    R: FnMut(),
{
    fn name(&self) -> &str {
        &self.name
    }
    fn check(&mut self) -> Result<Canonical, String> {
        (self.check)()
    }
    fn run(&mut self) {
        (self.run)()
    }
    fn payload_bytes(&self) -> Option<u64> {
        self.bytes
    }
}

/// A boxed strategy, as experiments hold them.
pub type BoxedStrategy<'a> = Box<dyn Strategy + 'a>;
