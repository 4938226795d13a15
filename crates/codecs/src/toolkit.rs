//! What every strategy is built from: [`OpStrategy`] (one closure, gated or timed), [`Through`]
//! (a typed output gated on what its type sees), the outcome slot and its [`emit`]ters. The
//! libraries' modules ([`crate::libraries`]) build their strategies from these.

use std::hint::black_box;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::canonical::Canonical;
use crate::gate;
use crate::strategy::{BoxedStrategy, RunFailure, Strategy};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// The outcome slot: `None` when timing, `Some` when the gate wants the canonical output.
pub type Slot<'s> = Option<&'s mut Option<Canonical>>;

/// A strategy whose single closure either records its output (gate) or drops it (timing).
pub struct OpStrategy<F> {
    id: StrategyId,
    contract: Contract,
    effort: Effort,
    bytes: Option<u64>,
    f: F,
}

impl<F: FnMut(Slot<'_>) -> Result<(), String>> OpStrategy<F> {
    /// A strategy `id` delivering `contract`, adopted at `effort`, over `bytes` of payload,
    /// doing `f`.
    pub fn boxed<'a>(id: StrategyId, contract: Contract, effort: Effort, bytes: Option<u64>, f: F) -> BoxedStrategy<'a>
    where
        F: 'a,
    {
        Box::new(OpStrategy {
            id,
            contract,
            effort,
            bytes,
            f,
        })
    }
}

impl<F: FnMut(Slot<'_>) -> Result<(), String>> Strategy for OpStrategy<F> {
    fn id(&self) -> &StrategyId {
        &self.id
    }
    fn contract(&self) -> Contract {
        self.contract
    }
    fn effort(&self) -> Effort {
        self.effort
    }
    fn check(&mut self) -> Result<Canonical, RunFailure> {
        let mut out = None;
        (self.f)(Some(&mut out)).map_err(RunFailure::row)?;
        out.ok_or_else(|| RunFailure::row("the strategy produced no output"))
    }
    fn run(&mut self) -> Result<(), RunFailure> {
        black_box((self.f)(None)).map_err(RunFailure::row)
    }
    fn payload_bytes(&self) -> Option<u64> {
        self.bytes
    }
}

/// A strategy decoding into `T`, gated against the reference viewed through `T`
/// ([`gate::Reference::through`]).
pub struct Through<'a, T> {
    inner: BoxedStrategy<'a>,
    /// JSON pointers the decoded model does not keep (an `IgnoredAny` field): left out of both
    /// the output and the reference before they are compared.
    left_out: Vec<String>,
    of: PhantomData<fn() -> T>,
}

impl<'a, T: Serialize + DeserializeOwned + 'a> Through<'a, T> {
    /// `inner`, whose output is a `T`, gated on what `T` sees of the reference.
    pub fn boxed(inner: BoxedStrategy<'a>) -> BoxedStrategy<'a> {
        Self::leaving_out(inner, Vec::new())
    }

    /// As [`Through::boxed`], the values at `left_out` compared on neither side.
    pub fn leaving_out(inner: BoxedStrategy<'a>, left_out: Vec<String>) -> BoxedStrategy<'a> {
        Box::new(Through::<T> {
            inner,
            left_out,
            of: PhantomData,
        })
    }
}

impl<T: serde::Serialize + DeserializeOwned> Strategy for Through<'_, T> {
    fn id(&self) -> &StrategyId {
        self.inner.id()
    }
    fn contract(&self) -> Contract {
        self.inner.contract()
    }
    fn effort(&self) -> Effort {
        self.inner.effort()
    }
    fn check(&mut self) -> Result<Canonical, RunFailure> {
        self.inner.check()
    }
    fn run(&mut self) -> Result<(), RunFailure> {
        self.inner.run()
    }
    fn verify(&mut self, reference: Option<&gate::Reference>) -> Result<jsoncost_engine::Fidelity, RunFailure> {
        match reference {
            Some(r) => {
                let seen = r
                    .through::<T>()
                    .and_then(|r| r.leaving_out(&self.left_out))
                    .map_err(RunFailure::row)?;
                let out = self.inner.check()?.leaving_out(&self.left_out);
                match gate::judge(self.inner.id(), &out, &seen) {
                    gate::Verdict::Pass(fidelity) => Ok(fidelity),
                    gate::Verdict::Fail(message) => Err(RunFailure::row(message)),
                }
            }
            None => self.inner.verify(None),
        }
    }
    fn payload_bytes(&self) -> Option<u64> {
        self.inner.payload_bytes()
    }
    fn begin_allocation_pass(&mut self) {
        self.inner.begin_allocation_pass()
    }
    fn begin_round(&mut self, round: u64) {
        self.inner.begin_round(round)
    }
}

/// Hands `value` to the gate (as its canonical form) or to `black_box`.
pub fn emit<T: serde::Serialize + ?Sized>(slot: Slot<'_>, value: &T) -> Result<(), String> {
    match slot {
        Some(s) => *s = Some(Canonical::of(value)?),
        None => {
            black_box(value);
        }
    }
    Ok(())
}

/// Hands serialized bytes to the gate (re-parsed) or to `black_box`.
pub fn emit_bytes(slot: Slot<'_>, bytes: &[u8]) -> Result<(), String> {
    match slot {
        Some(s) => *s = Some(Canonical::of_json_bytes(bytes)?),
        None => {
            black_box(bytes);
        }
    }
    Ok(())
}

/// A library's error as the failure message of a strategy.
pub(crate) fn error_text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// `typed/<library>` (a new buffer per value) and `typed-writer/<library>` (into a buffer kept
/// between calls): a library's two ways to write a serde value, each given as the library's
/// call; the payload bytes are its own output's length.
pub(crate) fn writer_strategies<'a, T: ?Sized>(
    library: &'static str,
    value: &'a T,
    to_vec: impl Fn(&T) -> Result<Vec<u8>, String> + 'a,
    to_writer: impl Fn(&mut Vec<u8>, &T) -> Result<(), String> + 'a,
) -> Vec<BoxedStrategy<'a>> {
    let n = to_vec(value).ok().map(|b| b.len() as u64);
    let mut buf = Vec::new();
    vec![
        OpStrategy::boxed(
            StrategyId::new("typed", library),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| emit_bytes(s, &to_vec(value)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed-writer", library),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| {
                buf.clear();
                to_writer(&mut buf, value)?;
                emit_bytes(s, &buf)
            },
        ),
    ]
}

/// A library's DOM written back out (`id`): the tree built once beforehand, as a handler that
/// holds a DOM would, then written per call; a failing row with the library's message when it
/// could not read the document (`dom` is `Err`).
pub(crate) fn dom_writer_strategy<'a, D: 'a>(
    id: StrategyId,
    dom: Result<D, String>,
    write: impl Fn(&D) -> Result<Vec<u8>, String> + 'a,
) -> BoxedStrategy<'a> {
    let row = (id, Contract::BytesFromDom, Effort::Model);
    let dom = match dom {
        Ok(dom) => dom,
        Err(e) => return refused(row, e),
    };
    let n = write(&dom).ok().map(|b| b.len() as u64);
    let (id, contract, effort) = row;
    OpStrategy::boxed(id, contract, effort, n, move |s| emit_bytes(s, &write(&dom)?))
}

/// The serialize row `(id, contract, effort)` of a library that cannot read the document into
/// its DOM (its `error`): the row fails the gate with that message and is never timed.
fn refused<'a>((id, contract, effort): (StrategyId, Contract, Effort), error: impl std::fmt::Display) -> BoxedStrategy<'a> {
    let message = format!(
        "{} cannot read the document into its DOM: {error}",
        id.library().unwrap_or(id.name())
    );
    OpStrategy::boxed(id, contract, effort, None, move |_| Err(message.clone()))
}
