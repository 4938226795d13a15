//! What every strategy is built from: [`OpStrategy`] (one closure, gated or timed), [`Through`]
//! (a typed output gated on what its type sees), the outcome slot and its [`emit`]ters, and the
//! sonic-rs projection behind `lazy/sonic-rs`. The strategy lists ([`crate::typed`],
//! [`crate::document`] and the other libraries' modules) build on these.

use std::hint::black_box;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::gate;
use crate::{BoxedStrategy, Canonical, Contract, RunFailure, Strategy};

/// The outcome slot: `None` when timing, `Some` when the gate wants the canonical output.
pub type Slot<'s> = Option<&'s mut Option<Canonical>>;

/// A strategy whose single closure either records its output (gate) or drops it (timing).
pub struct OpStrategy<F> {
    name: String,
    contract: Contract,
    bytes: Option<u64>,
    f: F,
}

impl<F: FnMut(Slot<'_>) -> Result<(), String>> OpStrategy<F> {
    /// A strategy `name` delivering `contract` over `bytes` of payload, doing `f`.
    pub fn boxed<'a>(name: impl Into<String>, contract: Contract, bytes: Option<u64>, f: F) -> BoxedStrategy<'a>
    where
        F: 'a,
    {
        Box::new(OpStrategy {
            name: name.into(),
            contract,
            bytes,
            f,
        })
    }
}

impl<F: FnMut(Slot<'_>) -> Result<(), String>> Strategy for OpStrategy<F> {
    fn name(&self) -> &str {
        &self.name
    }
    fn contract(&self) -> Contract {
        self.contract
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
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn contract(&self) -> Contract {
        self.inner.contract()
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
                match gate::judge(self.inner.name(), &out, &seen) {
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

/// The lazy projection of `fields` with sonic-rs: one pass that skips what it does not need.
pub fn sonic_projection(input: &[u8], tree: &sonic_rs::PointerTree, fields: &[String], slot: Slot<'_>) -> Result<(), String> {
    let found = sonic_rs::get_many(input, tree).map_err(error_text)?;
    match slot {
        Some(s) => {
            let mut out = Vec::with_capacity(fields.len());
            for (pointer, v) in fields.iter().zip(&found) {
                let v = v.as_ref().ok_or_else(|| format!("field {pointer} not found"))?;
                out.push((pointer.clone(), crate::exact::parse(v.as_raw_str().as_bytes()).map_err(error_text)?));
            }
            *s = Some(Canonical::Projection(out));
        }
        None => {
            black_box(&found);
        }
    }
    Ok(())
}

/// Builds the sonic-rs pointer tree for JSON pointers like `/lines/0/sku`.
pub fn pointer_tree(fields: &[String]) -> sonic_rs::PointerTree {
    let mut tree = sonic_rs::PointerTree::new();
    for f in fields {
        let nodes: Vec<sonic_rs::PointerNode> = f
            .split('/')
            .skip(1)
            .map(|seg| {
                let seg = seg.replace("~1", "/").replace("~0", "~");
                match seg.parse::<usize>() {
                    Ok(i) => sonic_rs::PointerNode::Index(i),
                    Err(_) => sonic_rs::PointerNode::Key(seg.into()),
                }
            })
            .collect();
        tree.add_path(nodes.iter());
    }
    tree
}

/// `lazy/sonic-rs`: the projection of `fields` (JSON pointers) in one pass.
pub fn lazy_strategy<'a>(input: &'a [u8], fields: &[String]) -> BoxedStrategy<'a> {
    let fields = fields.to_vec();
    let tree = pointer_tree(&fields);
    OpStrategy::boxed("lazy/sonic-rs", Contract::Projection, Some(input.len() as u64), move |s| {
        sonic_projection(input, &tree, &fields, s)
    })
}
