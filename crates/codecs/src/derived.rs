//! Libraries with a derive of their own instead of serde's: simd-json-derive (simd-json's
//! fastest typed path), nanoserde, miniserde and facet-json (reflection: one derived `Facet`
//! shape read at run time by each facet format). Their strategies apply to a type that derives
//! their traits as well as serde's (the gate reads every output through serde): a user's type,
//! or for the built-in shapes a plain copy (`jsoncost_shapes::derived`, see there why the
//! shapes themselves cannot derive them).
//!
//! Every input is strict JSON text; nanoserde and miniserde read `&str`, so their operation
//! includes the UTF-8 check (`std::str::from_utf8`), as a caller holding bytes would write it
//! (facet-json reads bytes and checks them itself).

use serde::Serialize;

// The versions measured (pinned in the workspace); a type's derive must come from the same.
pub use {facet, facet_json, miniserde, nanoserde, simd_json_derive};

use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, emit, emit_bytes, error_text};
use jsoncost_engine::{Contract, Effort, StrategyId};

pub use crate::shape_model::DerivedDeserialize;

/// `typed/simd-json-derive` (a fresh input copy and buffers each time) and
/// `typed-reuse/simd-json-derive` (the copy and simd-json's buffers reused, its documented fast
/// path).
pub fn simd_json_derive_deserialize<T>(input: &[u8]) -> Vec<BoxedStrategy<'_>>
where
    T: for<'i> simd_json_derive::Deserialize<'i> + Serialize,
{
    let n = Some(input.len() as u64);
    let mut buf: Vec<u8> = Vec::with_capacity(input.len());
    let mut buffers = simd_json::Buffers::new(input.len());
    vec![
        OpStrategy::boxed(
            StrategyId::new("typed", "simd-json-derive"),
            Contract::TypedValue,
            Effort::Model,
            n,
            move |s| {
                let mut copy = input.to_vec();
                emit(s, &T::from_slice(&mut copy).map_err(error_text)?)
            },
        ),
        OpStrategy::boxed(
            StrategyId::new("typed-reuse", "simd-json-derive"),
            Contract::TypedValue,
            Effort::Model,
            n,
            move |s| {
                buf.clear();
                buf.extend_from_slice(input);
                emit(s, &T::from_slice_with_buffers(&mut buf, &mut buffers).map_err(error_text)?)
            },
        ),
    ]
}

/// `typed/simd-json-derive` (`json_vec`) and `typed-writer/simd-json-derive` (`json_write`
/// into a reused buffer).
pub fn simd_json_derive_serialize<T: simd_json_derive::Serialize>(value: &T) -> Vec<BoxedStrategy<'_>> {
    let n = value.json_vec().ok().map(|v| v.len() as u64);
    let mut buf = Vec::new();
    vec![
        OpStrategy::boxed(
            StrategyId::new("typed", "simd-json-derive"),
            Contract::BytesFromTyped,
            Effort::Model,
            n,
            move |s| emit_bytes(s, &value.json_vec().map_err(error_text)?),
        ),
        OpStrategy::boxed(
            StrategyId::new("typed-writer", "simd-json-derive"),
            Contract::BytesFromTyped,
            Effort::Model,
            n,
            move |s| {
                buf.clear();
                value.json_write(&mut buf).map_err(error_text)?;
                emit_bytes(s, &buf)
            },
        ),
    ]
}

/// `typed/nanoserde`: `DeJson::deserialize_json`.
pub fn nanoserde_deserialize<T: nanoserde::DeJson + Serialize>(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
    vec![OpStrategy::boxed(
        StrategyId::new("typed", "nanoserde"),
        Contract::TypedValue,
        Effort::Model,
        Some(input.len() as u64),
        move |s| {
            let text = std::str::from_utf8(input).map_err(error_text)?;
            emit(s, &T::deserialize_json(text).map_err(error_text)?)
        },
    )]
}

/// `typed/nanoserde`: `SerJson::serialize_json`.
pub fn nanoserde_serialize<T: nanoserde::SerJson>(value: &T) -> Vec<BoxedStrategy<'_>> {
    let n = Some(value.serialize_json().len() as u64);
    vec![OpStrategy::boxed(
        StrategyId::new("typed", "nanoserde"),
        Contract::BytesFromTyped,
        Effort::Model,
        n,
        move |s| emit_bytes(s, value.serialize_json().as_bytes()),
    )]
}

/// `typed/miniserde`: `miniserde::json::from_str`.
pub fn miniserde_deserialize<T: miniserde::Deserialize + Serialize>(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
    vec![OpStrategy::boxed(
        StrategyId::new("typed", "miniserde"),
        Contract::TypedValue,
        Effort::Model,
        Some(input.len() as u64),
        move |s| {
            let text = std::str::from_utf8(input).map_err(error_text)?;
            // miniserde's error says only that the input did not fit.
            emit(s, &miniserde::json::from_str::<T>(text).map_err(|e| format!("miniserde: {e}"))?)
        },
    )]
}

/// `typed/miniserde`: `miniserde::json::to_string`.
pub fn miniserde_serialize<T: miniserde::Serialize>(value: &T) -> Vec<BoxedStrategy<'_>> {
    let n = Some(miniserde::json::to_string(value).len() as u64);
    vec![OpStrategy::boxed(
        StrategyId::new("typed", "miniserde"),
        Contract::BytesFromTyped,
        Effort::Model,
        n,
        move |s| emit_bytes(s, miniserde::json::to_string(value).as_bytes()),
    )]
}

/// `typed/facet-json`: `facet_json::from_slice`.
pub fn facet_json_deserialize<T: facet::Facet<'static> + Serialize>(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
    vec![OpStrategy::boxed(
        StrategyId::new("typed", "facet-json"),
        Contract::TypedValue,
        Effort::Model,
        Some(input.len() as u64),
        move |s| emit(s, &facet_json::from_slice::<T>(input).map_err(error_text)?),
    )]
}

/// `typed/facet-json`: `facet_json::to_vec`.
pub fn facet_json_serialize<'f, T: facet::Facet<'f>>(value: &T) -> Vec<BoxedStrategy<'_>> {
    let n = facet_json::to_vec(value).ok().map(|v| v.len() as u64);
    vec![OpStrategy::boxed(
        StrategyId::new("typed", "facet-json"),
        Contract::BytesFromTyped,
        Effort::Model,
        n,
        move |s| emit_bytes(s, &facet_json::to_vec(value).map_err(error_text)?),
    )]
}

/// A plain copy of a type that derives all four libraries' traits (the built-in shapes'
/// `jsoncost_shapes::derived`): their deserialize strategies, erased.
pub fn all_deserialize<P>() -> [DerivedDeserialize; 4]
where
    P: for<'i> simd_json_derive::Deserialize<'i> + nanoserde::DeJson + miniserde::Deserialize + facet::Facet<'static> + Serialize,
{
    [
        simd_json_derive_deserialize::<P>,
        nanoserde_deserialize::<P>,
        miniserde_deserialize::<P>,
        facet_json_deserialize::<P>,
    ]
}

/// The serialize strategies of a value of such a plain copy, held with it.
pub trait PlainValue {
    /// Serializing this value with each library whose derive its type has.
    fn serialize_strategies(&self) -> Vec<BoxedStrategy<'_>>;
}

/// A value of a plain copy (made from the type's value once, through serde).
pub struct Plain<P>(pub P);

impl<P> PlainValue for Plain<P>
where
    P: simd_json_derive::Serialize + nanoserde::SerJson + miniserde::Serialize + facet::Facet<'static>,
{
    fn serialize_strategies(&self) -> Vec<BoxedStrategy<'_>> {
        let mut v = simd_json_derive_serialize(&self.0);
        v.extend(nanoserde_serialize(&self.0));
        v.extend(miniserde_serialize(&self.0));
        v.extend(facet_json_serialize(&self.0));
        v
    }
}
