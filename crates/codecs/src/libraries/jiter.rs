//! jiter (pydantic's parser): its `JsonValue` DOM, borrowed or owned, with or without reused
//! buffers, and its serde deserializer for any type and for a zero-copy form. Its pull parser's
//! hand decoders are [`crate::jiter_decode`]. It writes no JSON.

use jiter::{JsonValue, JsonValueScratch, PartialMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};

use super::strategies::{DomDecoder, Held, LibraryStrategies};
use crate::canonical::Canonical;
use crate::shape_model::BorrowedForm;
use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, Slot, emit, error_text};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// jiter's strategies.
pub struct Jiter;

/// jiter's DOM as a `serde_json::Value`, for the gate only (untimed): `JsonValue` has no
/// `Serialize`, and nothing else turns it into the canonical form. A repeated key keeps its
/// last value, as the reference does; an integer beyond `u64` becomes the nearest `f64`, as
/// the reference reads it.
pub fn jiter_to_value(v: &JsonValue<'_>) -> Result<Value, String> {
    Ok(match v {
        JsonValue::Null => Value::Null,
        JsonValue::Bool(b) => Value::Bool(*b),
        JsonValue::Int(i) => Value::Number((*i).into()),
        JsonValue::BigInt(b) => match u64::try_from(b) {
            Ok(u) => Value::Number(u.into()),
            Err(_) => {
                let f: f64 = b.to_string().parse().map_err(error_text)?;
                Value::Number(Number::from_f64(f).ok_or("an integer beyond f64's range")?)
            }
        },
        JsonValue::Float(f) => Value::Number(Number::from_f64(*f).ok_or_else(|| format!("a non-finite float {f}"))?),
        JsonValue::Str(s) => Value::String(s.to_string()),
        JsonValue::Array(a) => Value::Array(a.iter().map(jiter_to_value).collect::<Result<_, _>>()?),
        JsonValue::Object(o) => {
            let mut m = Map::new();
            for (k, v) in o.iter() {
                m.insert(k.to_string(), jiter_to_value(v)?);
            }
            Value::Object(m)
        }
    })
}

/// Hands jiter's DOM to the gate or to `black_box`.
fn emit_jiter(slot: Slot<'_>, v: &JsonValue<'_>) -> Result<(), String> {
    match slot {
        Some(s) => *s = Some(Canonical::Full(jiter_to_value(v)?)),
        None => {
            std::hint::black_box(v);
        }
    }
    Ok(())
}

/// jiter's DOM held, compared through [`jiter_to_value`] (it has no `Serialize`).
struct HeldJsonValue<'a>(JsonValue<'a>);

impl Held for HeldJsonValue<'_> {
    fn canonical(&self) -> Result<Canonical, String> {
        jiter_to_value(&self.0).map(Canonical::Full)
    }
}

/// Strict JSON (jiter's NaN/Infinity extension off), as the micro tables measure it.
fn dom_held(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    Ok(Box::new(HeldJsonValue(JsonValue::parse(bytes, false).map_err(error_text)?)))
}

impl LibraryStrategies for Jiter {
    fn dom_decoders() -> Vec<DomDecoder> {
        vec![DomDecoder {
            library: "jiter",
            borrowed: true,
            depth_unbounded: false,
            parse: dom_held,
            discard: |bytes| {
                let value = JsonValue::parse(bytes, false).map_err(error_text)?;
                drop(std::hint::black_box(value));
                Ok(())
            },
        }]
    }

    /// `typed/jiter`: jiter's serde deserializer into any owned type.
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        let n = Some(input.len() as u64);
        vec![OpStrategy::boxed(
            StrategyId::new("typed", "jiter"),
            Contract::TypedValue,
            Effort::Swap,
            n,
            move |s| emit(s, &jiter::serde::from_slice::<T>(input).map_err(error_text)?),
        )]
    }

    /// `borrowed/jiter`: the zero-copy form through jiter's serde deserializer.
    fn borrowed<'a, T, F: BorrowedForm<T>>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("borrowed", "jiter"),
            Contract::BorrowedValue,
            Effort::Model,
            Some(input.len() as u64),
            move |s| emit(s, &jiter::serde::from_slice::<F::Of<'_>>(input).map_err(error_text)?),
        )]
    }

    /// `JsonValue` borrowed and owned, each also on a scratch reused between parses (jiter's
    /// documented way to parse many documents of one shape). jiter's NaN/Infinity extension
    /// stays off (strict JSON).
    fn dom(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        let n = Some(input.len() as u64);
        let mut scratch = JsonValueScratch::new();
        let mut owned_scratch = JsonValueScratch::<'static>::new();
        vec![
            OpStrategy::boxed(
                StrategyId::new("dom-borrowed", "jiter"),
                Contract::BorrowedDom,
                Effort::Model,
                n,
                move |s| emit_jiter(s, &JsonValue::parse(input, false).map_err(error_text)?),
            ),
            OpStrategy::boxed(
                StrategyId::new("dom-borrowed-reuse", "jiter"),
                Contract::BorrowedDom,
                Effort::Model,
                n,
                move |s| emit_jiter(s, &scratch.parse(input, false, PartialMode::Off).map_err(error_text)?),
            ),
            OpStrategy::boxed(StrategyId::new("dom", "jiter"), Contract::Dom, Effort::Model, n, move |s| {
                emit_jiter(s, &JsonValue::parse_owned(input, false, PartialMode::Off).map_err(error_text)?)
            }),
            OpStrategy::boxed(StrategyId::new("dom-reuse", "jiter"), Contract::Dom, Effort::Model, n, move |s| {
                emit_jiter(s, &owned_scratch.parse_owned(input, false, PartialMode::Off).map_err(error_text)?)
            }),
        ]
    }
}
