//! serde_json: the baseline every other library's row is measured against, with the two reads
//! only it offers (from an `io::Read`, and validated raw bytes kept as they are).

use std::hint::black_box;
use std::io::BufReader;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::strategies::{BorrowedDecoder, Decoder, DomDecoder, Encoder, Held, LibraryStrategies, Parse, Serialized, checked_or_dropped};
use crate::canonical::Canonical;
use crate::shape_model::BorrowedForm;
use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, dom_writer_strategy, emit, emit_bytes, error_text, writer_strategies};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// serde_json's strategies.
pub struct SerdeJson;

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(error_text)
}

fn write<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(error_text)
}

fn dom_held(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    Ok(Box::new(Serialized(parse::<serde_json::Value>(bytes)?)))
}

/// `value` as serde_json writes it; `Err` when it cannot (a map with non-string keys ...), which
/// refuses a serialize table: the baseline's output is the table's.
pub(crate) fn written<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    serde_json::to_vec(value).map_err(|e| format!("the value does not serialize with serde_json: {e}"))
}

/// `Err` when serde_json cannot read `input` into its DOM: the baseline's DOM is the payload's.
pub(crate) fn check_dom(input: &[u8]) -> Result<(), String> {
    parse::<serde_json::Value>(input).map(drop)
}

impl LibraryStrategies for SerdeJson {
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("typed", "serde_json"),
            Contract::TypedValue,
            Effort::Swap,
            Some(input.len() as u64),
            move |s| emit(s, &serde_json::from_slice::<T>(input).map_err(error_text)?),
        )]
    }

    fn typed_through_dom<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("dom-then-typed", "serde_json"),
            Contract::TypedValue,
            Effort::Code,
            Some(input.len() as u64),
            move |s| {
                let v = serde_json::from_slice::<serde_json::Value>(input).map_err(error_text)?;
                emit(s, &serde_json::from_value::<T>(v).map_err(error_text)?)
            },
        )]
    }

    fn serialize<'a, T: Serialize>(value: &'a T) -> Vec<BoxedStrategy<'a>> {
        writer_strategies("serde_json", value, write::<T>, |buf, v| {
            serde_json::to_writer(buf, v).map_err(error_text)
        })
    }

    fn borrowed<'a, T, F: BorrowedForm<T>>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("borrowed", "serde_json"),
            Contract::BorrowedValue,
            Effort::Model,
            Some(input.len() as u64),
            move |s| emit(s, &serde_json::from_slice::<F::Of<'_>>(input).map_err(error_text)?),
        )]
    }

    fn dom(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        vec![OpStrategy::boxed(
            StrategyId::new("dom", "serde_json"),
            Contract::Dom,
            Effort::Model,
            Some(input.len() as u64),
            move |s| emit(s, &serde_json::from_slice::<serde_json::Value>(input).map_err(error_text)?),
        )]
    }

    /// The baseline's DOM write: the caller has refused a document serde_json cannot read
    /// (`check_dom`), so the row is always timed.
    fn serialize_dom<'a>(input: &[u8]) -> Vec<BoxedStrategy<'a>> {
        let dom = parse::<serde_json::Value>(input);
        vec![dom_writer_strategy(StrategyId::new("dom", "serde_json"), dom, write)]
    }

    fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
        vec![Decoder {
            library: "serde_json",
            depth_unbounded: false,
            parse: Parse::Slice(parse::<T>),
        }]
    }

    fn borrowed_decoders<T, F: BorrowedForm<T>>() -> Vec<BorrowedDecoder> {
        fn read<T, F: BorrowedForm<T>>(bytes: &[u8], check: bool) -> Result<Option<Canonical>, String> {
            checked_or_dropped(serde_json::from_slice::<F::Of<'_>>(bytes).map_err(error_text)?, check)
        }
        vec![BorrowedDecoder {
            library: "serde_json",
            depth_unbounded: false,
            read: read::<T, F>,
        }]
    }

    fn encoders<T: Serialize>() -> Vec<Encoder<T>> {
        vec![Encoder {
            library: "serde_json",
            write: write::<T>,
        }]
    }

    fn dom_decoders() -> Vec<DomDecoder> {
        vec![DomDecoder {
            library: "serde_json",
            borrowed: false,
            depth_unbounded: false,
            parse: dom_held,
            discard: |bytes| parse::<serde_json::Value>(bytes).map(|v| drop(black_box(v))),
        }]
    }
}

/// `reader/serde_json`: `T` read through `from_reader` over a `BufReader`, as a handler reading
/// a body it has not buffered would.
pub(crate) fn reader_strategy<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> BoxedStrategy<'a> {
    OpStrategy::boxed(
        StrategyId::new("reader", "serde_json"),
        Contract::TypedValue,
        Effort::Swap,
        Some(input.len() as u64),
        move |s| emit(s, &serde_json::from_reader::<_, T>(BufReader::new(input)).map_err(error_text)?),
    )
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
