//! Strategies for any JSON document (`--payload FILE`): those that need no Rust type.

use crate::libraries::{LibraryStrategies, Registered};
use crate::toolkit::{OpStrategy, emit, emit_bytes, error_text, refused};
use crate::{BoxedStrategy, Contract, Effort, StrategyId};

/// Deserialize strategies for an arbitrary document, baseline (`dom/serde_json`) first;
/// `lazy/sonic-rs` only when `fields` (JSON pointers) are given.
pub fn deserialize_strategies<'a>(input: &'a [u8], fields: &[String]) -> Vec<BoxedStrategy<'a>> {
    let mut v = dom_strategies(input);
    v.push(raw_strategy(input));
    if !fields.is_empty() {
        v.push(crate::toolkit::lazy_strategy(input, fields));
    }
    v
}

/// Each library's DOM parse (simd-json's owned and borrowed trees), the input copy included.
pub(crate) fn dom_strategies(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
    let n = Some(input.len() as u64);
    let mut v = vec![
        OpStrategy::boxed(StrategyId::new("dom", "serde_json"), Contract::Dom, Effort::Model, n, move |s| {
            emit(s, &serde_json::from_slice::<serde_json::Value>(input).map_err(error_text)?)
        }),
        OpStrategy::boxed(StrategyId::new("dom", "sonic-rs"), Contract::Dom, Effort::Model, n, move |s| {
            emit(s, &sonic_rs::from_slice::<sonic_rs::Value>(input).map_err(error_text)?)
        }),
        OpStrategy::boxed(StrategyId::new("dom", "simd-json"), Contract::Dom, Effort::Model, n, move |s| {
            let mut buf = input.to_vec();
            emit(s, &simd_json::owned::to_value(&mut buf).map_err(error_text)?)
        }),
        OpStrategy::boxed(
            StrategyId::new("dom-borrowed", "simd-json"),
            Contract::BorrowedDom,
            Effort::Model,
            n,
            move |s| {
                let mut buf = input.to_vec();
                emit(s, &simd_json::borrowed::to_value(&mut buf).map_err(error_text)?)
            },
        ),
    ];
    v.extend(Registered::dom(input));
    v
}

/// `raw/serde_json`: validate and keep the bytes (`Box<RawValue>`).
pub(crate) fn raw_strategy(input: &[u8]) -> BoxedStrategy<'_> {
    OpStrategy::boxed(
        StrategyId::new("raw", "serde_json"),
        Contract::RawValidated,
        Effort::Code,
        Some(input.len() as u64),
        move |s| {
            let raw = serde_json::from_slice::<Box<serde_json::value::RawValue>>(input).map_err(error_text)?;
            match s {
                Some(_) => emit_bytes(s, raw.get().as_bytes()),
                None => emit(None, &raw),
            }
        },
    )
}

/// Serialize strategies for an arbitrary document: each library's DOM written back out.
pub fn serialize_strategies<'a>(input: &[u8]) -> Result<Vec<BoxedStrategy<'a>>, String> {
    // The baseline's DOM is the payload's: a document serde_json cannot read is refused.
    let serde_dom: serde_json::Value = serde_json::from_slice(input).map_err(error_text)?;
    let n = Some(serde_json::to_vec(&serde_dom).map_err(error_text)?.len() as u64);
    let dom_row = |library: &'static str| (StrategyId::new("dom", library), Contract::BytesFromDom, Effort::Model);
    let mut v = vec![OpStrategy::boxed(
        StrategyId::new("dom", "serde_json"),
        Contract::BytesFromDom,
        Effort::Model,
        n,
        move |s| emit_bytes(s, &serde_json::to_vec(&serde_dom).map_err(error_text)?),
    )];
    // Another library that cannot hold the document (simd-json and a 30-digit integer) fails
    // its own row: its limit, not the payload's.
    v.push(match sonic_rs::from_slice::<sonic_rs::Value>(input) {
        Ok(dom) => OpStrategy::boxed(
            StrategyId::new("dom", "sonic-rs"),
            Contract::BytesFromDom,
            Effort::Model,
            n,
            move |s| emit_bytes(s, &sonic_rs::to_vec(&dom).map_err(error_text)?),
        ),
        Err(e) => refused(dom_row("sonic-rs"), e),
    });
    v.push(match simd_json::owned::to_value(&mut input.to_vec()) {
        Ok(dom) => OpStrategy::boxed(
            StrategyId::new("dom", "simd-json"),
            Contract::BytesFromDom,
            Effort::Model,
            n,
            move |s| {
                use simd_json::prelude::Writable;
                emit_bytes(s, dom.encode().as_bytes())
            },
        ),
        Err(e) => refused(dom_row("simd-json"), e),
    });
    v.extend(Registered::serialize_dom(input));
    Ok(v)
}

/// Validates a JSON pointer's syntax (`""` or `/a/b/0`).
pub fn check_pointer(p: &str) -> Result<(), String> {
    if !(p.is_empty() || p.starts_with('/')) {
        return Err(format!("invalid JSON pointer {p:?}: it must be empty or start with '/'"));
    }
    // RFC 6901: '~' only escapes, as "~0" ('~') and "~1" ('/').
    match p
        .match_indices('~')
        .find(|(i, _)| !matches!(p.as_bytes().get(i + 1), Some(b'0' | b'1')))
    {
        Some((i, _)) => Err(format!(
            "invalid JSON pointer {p:?}: '~' at byte {i} must be followed by 0 or 1 (\"~0\" is '~', \"~1\" is '/', RFC 6901)"
        )),
        None => Ok(()),
    }
}
