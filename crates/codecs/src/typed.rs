//! Strategies over any serde type: what a service does with a known payload. Every strategy here
//! needs only `Serialize + DeserializeOwned`; `borrowed/*` needs a zero-copy form ([`BorrowedForm`])
//! and `lazy/sonic-rs` a few JSON pointers, both given through [`TypeOptions`].
//!
//! Every strategy is written the way a user would write it with that library's public API;
//! where a library has no such API the strategy is absent, not faked. simd-json parses in
//! place, so its copy of the input into a mutable buffer is part of its operation.

use std::io::BufReader;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::libraries::{LibraryStrategies, Registered};
use crate::shape_model::{BorrowedStrategies, DerivedDeserialize};
use crate::toolkit::{OpStrategy, Through, emit, emit_bytes, error_text, lazy_strategy};
use crate::{BorrowedForm, BoxedStrategy, Contract, Effort, StrategyId, document};

/// The optional parts of a type's deserialize table.
#[derive(Clone, Default)]
pub struct TypeOptions {
    /// The `borrowed/*` strategies, when the type has a zero-copy form.
    pub borrowed: Option<BorrowedStrategies>,
    /// JSON pointers `lazy/sonic-rs` projects (a handler that needs only these fields); none: no
    /// lazy row.
    pub lazy_fields: Vec<String>,
    /// The deserialize strategies of libraries whose own derive the type has
    /// ([`crate::derived`]: simd-json-derive, nanoserde, miniserde, facet-json).
    pub derived: Vec<DerivedDeserialize>,
}

impl TypeOptions {
    /// Adds the `borrowed/*` strategies of `T`'s zero-copy form `F`.
    pub fn borrowed<T, F: BorrowedForm<T>>(mut self) -> Self {
        self.borrowed = Some(borrowed_strategies::<T, F>);
        self
    }

    /// Adds `lazy/sonic-rs` over these JSON pointers.
    pub fn lazy<S: AsRef<str>>(mut self, fields: &[S]) -> Self {
        self.lazy_fields = fields.iter().map(|f| f.as_ref().to_string()).collect();
        self
    }
}

impl std::fmt::Debug for TypeOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypeOptions")
            .field("borrowed", &self.borrowed.is_some())
            .field("lazy_fields", &self.lazy_fields)
            .field("derived", &self.derived.len())
            .finish()
    }
}

/// Deserialize strategies for `T`, baseline (`typed/serde_json`) first; `borrowed/*` and
/// `lazy/sonic-rs` as `options` say.
pub fn deserialize_strategies<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8], options: &TypeOptions) -> Vec<BoxedStrategy<'a>> {
    let n = Some(input.len() as u64);
    let mut simd_buf: Vec<u8> = Vec::with_capacity(input.len());
    let mut simd_buffers = simd_json::Buffers::new(input.len());
    let mut v: Vec<BoxedStrategy<'a>> = vec![
        OpStrategy::boxed(
            StrategyId::new("typed", "serde_json"),
            Contract::TypedValue,
            Effort::Swap,
            n,
            move |s| emit(s, &serde_json::from_slice::<T>(input).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed", "sonic-rs"),
            Contract::TypedValue,
            Effort::Swap,
            n,
            move |s| emit(s, &sonic_rs::from_slice::<T>(input).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed", "simd-json"),
            Contract::TypedValue,
            Effort::Swap,
            n,
            move |s| {
                let mut buf = input.to_vec();
                emit(s, &simd_json::serde::from_slice::<T>(&mut buf).map_err(error_text)?)
            },
        ),
        // simd-json's documented fast path: reuse the input copy and its internal buffers.
        OpStrategy::boxed(
            StrategyId::new("typed-reuse", "simd-json"),
            Contract::TypedValue,
            Effort::Swap,
            n,
            move |s| {
                simd_buf.clear();
                simd_buf.extend_from_slice(input);
                emit(
                    s,
                    &simd_json::serde::from_slice_with_buffers::<T>(&mut simd_buf, &mut simd_buffers).map_err(error_text)?,
                )
            },
        ),
    ];
    for derived in &options.derived {
        v.extend(derived(input));
    }
    v.extend(Registered::typed::<T>(input));
    if let Some(borrowed) = options.borrowed {
        v.extend(borrowed(input));
    }
    v.extend(document::dom_strategies(input));
    v.extend([
        OpStrategy::boxed(
            StrategyId::new("dom-then-typed", "serde_json"),
            Contract::TypedValue,
            Effort::Code,
            n,
            move |s| {
                let v = serde_json::from_slice::<serde_json::Value>(input).map_err(error_text)?;
                emit(s, &serde_json::from_value::<T>(v).map_err(error_text)?)
            },
        ),
        OpStrategy::boxed(
            StrategyId::new("dom-then-typed", "sonic-rs"),
            Contract::TypedValue,
            Effort::Code,
            n,
            move |s| {
                let v = sonic_rs::from_slice::<sonic_rs::Value>(input).map_err(error_text)?;
                emit(s, &sonic_rs::from_value::<T>(&v).map_err(error_text)?)
            },
        ),
        OpStrategy::boxed(
            StrategyId::new("reader", "serde_json"),
            Contract::TypedValue,
            Effort::Swap,
            n,
            move |s| emit(s, &serde_json::from_reader::<_, T>(BufReader::new(input)).map_err(error_text)?),
        ),
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
    let mut v = vec![
        OpStrategy::boxed(
            StrategyId::new("borrowed", "serde_json"),
            Contract::BorrowedValue,
            Effort::Model,
            n,
            move |s| emit(s, &serde_json::from_slice::<F::Of<'_>>(input).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("borrowed", "sonic-rs"),
            Contract::BorrowedValue,
            Effort::Model,
            n,
            move |s| emit(s, &sonic_rs::from_slice::<F::Of<'_>>(input).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("borrowed", "simd-json"),
            Contract::BorrowedValue,
            Effort::Model,
            n,
            move |s| {
                let mut buf = input.to_vec();
                emit(s, &simd_json::serde::from_slice::<F::Of<'_>>(&mut buf).map_err(error_text)?)
            },
        ),
    ];
    v.extend(Registered::borrowed::<T, F>(input));
    v
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
        OpStrategy::boxed(
            StrategyId::new("typed", "serde_json"),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| emit_bytes(s, &serde_json::to_vec(value).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed-writer", "serde_json"),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| {
                buf1.clear();
                serde_json::to_writer(&mut buf1, value).map_err(error_text)?;
                emit_bytes(s, &buf1)
            },
        ),
        OpStrategy::boxed(
            StrategyId::new("typed", "sonic-rs"),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| emit_bytes(s, &sonic_rs::to_vec(value).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed-writer", "sonic-rs"),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| {
                buf2.clear();
                sonic_rs::to_writer(&mut buf2, value).map_err(error_text)?;
                emit_bytes(s, &buf2)
            },
        ),
        OpStrategy::boxed(
            StrategyId::new("typed", "simd-json"),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| emit_bytes(s, &simd_json::serde::to_vec(value).map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed-writer", "simd-json"),
            Contract::BytesFromTyped,
            Effort::Swap,
            n,
            move |s| {
                buf3.clear();
                simd_json::serde::to_writer(&mut buf3, value).map_err(error_text)?;
                emit_bytes(s, &buf3)
            },
        ),
    ];
    v.extend(document::serialize_strategies(&text)?);
    Ok(v)
}
