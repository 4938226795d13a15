//! Strategies over any serde type: what a service does with a known payload. Every strategy here
//! needs only `Serialize + DeserializeOwned`; `borrowed/*` needs a zero-copy form ([`BorrowedForm`])
//! and `lazy/sonic-rs` a few JSON pointers, both given through [`TypeOptions`].
//!
//! Every strategy is written the way a user would write it with that library's public API;
//! where a library has no such API the strategy is absent, not faked. simd-json parses in
//! place, so its copy of the input into a mutable buffer is part of its operation.

use std::hint::black_box;
use std::io::BufReader;

use serde::Serialize;
use serde::de::DeserializeOwned;

use std::marker::PhantomData;

use crate::gate;
use crate::{BorrowedForm, BoxedStrategy, Canonical, Contract, RunFailure, Strategy, TypeOptions, document};

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

pub(crate) fn msg(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The lazy projection of `fields` with sonic-rs: one pass that skips what it does not need.
pub fn sonic_projection(input: &[u8], tree: &sonic_rs::PointerTree, fields: &[String], slot: Slot<'_>) -> Result<(), String> {
    let found = sonic_rs::get_many(input, tree).map_err(msg)?;
    match slot {
        Some(s) => {
            let mut out = Vec::with_capacity(fields.len());
            for (pointer, v) in fields.iter().zip(&found) {
                let v = v.as_ref().ok_or_else(|| format!("field {pointer} not found"))?;
                out.push((pointer.clone(), crate::exact::parse(v.as_raw_str().as_bytes()).map_err(msg)?));
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

/// Deserialize strategies for `T`, baseline (`typed/serde_json`) first; `borrowed/*` and
/// `lazy/sonic-rs` as `options` say.
pub fn deserialize_strategies<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8], options: &TypeOptions) -> Vec<BoxedStrategy<'a>> {
    let n = Some(input.len() as u64);
    let mut simd_buf: Vec<u8> = Vec::with_capacity(input.len());
    let mut simd_buffers = simd_json::Buffers::new(input.len());
    let mut v: Vec<BoxedStrategy<'a>> = vec![
        OpStrategy::boxed("typed/serde_json", Contract::TypedValue, n, move |s| {
            emit(s, &serde_json::from_slice::<T>(input).map_err(msg)?)
        }),
        OpStrategy::boxed("typed/sonic-rs", Contract::TypedValue, n, move |s| {
            emit(s, &sonic_rs::from_slice::<T>(input).map_err(msg)?)
        }),
        OpStrategy::boxed("typed/simd-json", Contract::TypedValue, n, move |s| {
            let mut buf = input.to_vec();
            emit(s, &simd_json::serde::from_slice::<T>(&mut buf).map_err(msg)?)
        }),
        // simd-json's documented fast path: reuse the input copy and its internal buffers.
        OpStrategy::boxed("typed-reuse/simd-json", Contract::TypedValue, n, move |s| {
            simd_buf.clear();
            simd_buf.extend_from_slice(input);
            emit(
                s,
                &simd_json::serde::from_slice_with_buffers::<T>(&mut simd_buf, &mut simd_buffers).map_err(msg)?,
            )
        }),
    ];
    for derived in &options.derived {
        v.extend(derived(input));
    }
    #[cfg(feature = "more-libraries")]
    v.extend(crate::others::typed_strategies::<T>(input));
    if let Some(borrowed) = options.borrowed {
        v.extend(borrowed(input));
    }
    v.extend(document::dom_strategies(input));
    v.extend([
        OpStrategy::boxed("dom-then-typed/serde_json", Contract::TypedValue, n, move |s| {
            let v = serde_json::from_slice::<serde_json::Value>(input).map_err(msg)?;
            emit(s, &serde_json::from_value::<T>(v).map_err(msg)?)
        }),
        OpStrategy::boxed("dom-then-typed/sonic-rs", Contract::TypedValue, n, move |s| {
            let v = sonic_rs::from_slice::<sonic_rs::Value>(input).map_err(msg)?;
            emit(s, &sonic_rs::from_value::<T>(&v).map_err(msg)?)
        }),
        OpStrategy::boxed("reader/serde_json", Contract::TypedValue, n, move |s| {
            emit(s, &serde_json::from_reader::<_, T>(BufReader::new(input)).map_err(msg)?)
        }),
        document::raw_strategy(input),
    ]);
    if !options.lazy_fields.is_empty() {
        v.push(lazy_strategy(input, &options.lazy_fields));
    }
    // What decodes into `T` (or its borrowed form) is checked against the document as `T`
    // sees it: a model that declares only some of the fields a document has is checked on them,
    // while a DOM or the raw bytes are checked against all of it.
    v.into_iter()
        .map(|s| match s.contract() {
            Contract::TypedValue | Contract::BorrowedValue => Through::<T>::boxed(s),
            _ => s,
        })
        .collect()
}

/// `borrowed/*` for `T`'s zero-copy form, with every library that deserializes borrowed data.
pub fn borrowed_strategies<T, F: BorrowedForm<T>>(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
    let n = Some(input.len() as u64);
    #[cfg_attr(not(feature = "more-libraries"), allow(unused_mut))]
    let mut v = vec![
        OpStrategy::boxed("borrowed/serde_json", Contract::BorrowedValue, n, move |s| {
            emit(s, &serde_json::from_slice::<F::Of<'_>>(input).map_err(msg)?)
        }),
        OpStrategy::boxed("borrowed/sonic-rs", Contract::BorrowedValue, n, move |s| {
            emit(s, &sonic_rs::from_slice::<F::Of<'_>>(input).map_err(msg)?)
        }),
        OpStrategy::boxed("borrowed/simd-json", Contract::BorrowedValue, n, move |s| {
            let mut buf = input.to_vec();
            emit(s, &simd_json::serde::from_slice::<F::Of<'_>>(&mut buf).map_err(msg)?)
        }),
    ];
    #[cfg(feature = "more-libraries")]
    v.push(crate::others::borrowed_strategy::<T, F>(input));
    v
}

/// `lazy/sonic-rs`: the projection of `fields` (JSON pointers) in one pass.
pub fn lazy_strategy<'a>(input: &'a [u8], fields: &[String]) -> BoxedStrategy<'a> {
    let fields = fields.to_vec();
    let tree = pointer_tree(&fields);
    OpStrategy::boxed("lazy/sonic-rs", Contract::Projection, Some(input.len() as u64), move |s| {
        sonic_projection(input, &tree, &fields, s)
    })
}

/// Serialize strategies for `value`, baseline (`typed/serde_json`, `to_vec`) first. The DOM
/// strategies serialize a tree built once beforehand, as a handler that holds a DOM would.
/// `Err` when the value does not serialize with serde_json (a map with non-string keys ...).
pub fn serialize_strategies<'a, T: Serialize>(value: &'a T) -> Result<Vec<BoxedStrategy<'a>>, String> {
    let text = serde_json::to_vec(value).map_err(|e| format!("the value does not serialize with serde_json: {e}"))?;
    let n = Some(text.len() as u64);
    let mut buf1 = Vec::new();
    let mut buf2 = Vec::new();
    let mut buf3 = Vec::new();
    let mut v: Vec<BoxedStrategy<'a>> = vec![
        OpStrategy::boxed("typed/serde_json", Contract::BytesFromTyped, n, move |s| {
            emit_bytes(s, &serde_json::to_vec(value).map_err(msg)?)
        }),
        OpStrategy::boxed("typed-writer/serde_json", Contract::BytesFromTyped, n, move |s| {
            buf1.clear();
            serde_json::to_writer(&mut buf1, value).map_err(msg)?;
            emit_bytes(s, &buf1)
        }),
        OpStrategy::boxed("typed/sonic-rs", Contract::BytesFromTyped, n, move |s| {
            emit_bytes(s, &sonic_rs::to_vec(value).map_err(msg)?)
        }),
        OpStrategy::boxed("typed-writer/sonic-rs", Contract::BytesFromTyped, n, move |s| {
            buf2.clear();
            sonic_rs::to_writer(&mut buf2, value).map_err(msg)?;
            emit_bytes(s, &buf2)
        }),
        OpStrategy::boxed("typed/simd-json", Contract::BytesFromTyped, n, move |s| {
            emit_bytes(s, &simd_json::serde::to_vec(value).map_err(msg)?)
        }),
        OpStrategy::boxed("typed-writer/simd-json", Contract::BytesFromTyped, n, move |s| {
            buf3.clear();
            simd_json::serde::to_writer(&mut buf3, value).map_err(msg)?;
            emit_bytes(s, &buf3)
        }),
    ];
    v.extend(document::serialize_strategies(&text)?);
    Ok(v)
}
