//! simd-json: SIMD parsing in place. It rewrites its input, so each strategy copies the input
//! into a buffer of its own and the copy is part of the operation; `typed-reuse/simd-json` is its
//! documented fast path, the copy and the parser's buffers kept between calls.

use std::hint::black_box;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::strategies::{BorrowedDecoder, Decoder, DomDecoder, Encoder, Held, LibraryStrategies, Parse, Serialized, checked_or_dropped};
use crate::canonical::Canonical;
use crate::shape_model::BorrowedForm;
use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, dom_writer_strategy, emit, error_text, writer_strategies};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// simd-json's strategies.
pub struct SimdJson;

fn parse<T: DeserializeOwned>(bytes: &mut [u8]) -> Result<T, String> {
    simd_json::serde::from_slice(bytes).map_err(error_text)
}

fn write<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    simd_json::serde::to_vec(value).map_err(error_text)
}

/// The owned DOM over a copy (it parses in place).
fn dom_held(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    let value = simd_json::owned::to_value(&mut bytes.to_vec()).map_err(error_text)?;
    Ok(Box::new(Serialized(value)))
}

impl LibraryStrategies for SimdJson {
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        let n = Some(input.len() as u64);
        let mut reused: Vec<u8> = Vec::with_capacity(input.len());
        let mut buffers = simd_json::Buffers::new(input.len());
        vec![
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
            OpStrategy::boxed(
                StrategyId::new("typed-reuse", "simd-json"),
                Contract::TypedValue,
                Effort::Swap,
                n,
                move |s| {
                    reused.clear();
                    reused.extend_from_slice(input);
                    emit(
                        s,
                        &simd_json::serde::from_slice_with_buffers::<T>(&mut reused, &mut buffers).map_err(error_text)?,
                    )
                },
            ),
        ]
    }

    fn serialize<'a, T: Serialize>(value: &'a T) -> Vec<BoxedStrategy<'a>> {
        writer_strategies("simd-json", value, write::<T>, |buf, v| {
            simd_json::serde::to_writer(buf, v).map_err(error_text)
        })
    }

    fn borrowed<'a, T, F: BorrowedForm<T>>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("borrowed", "simd-json"),
            Contract::BorrowedValue,
            Effort::Model,
            Some(input.len() as u64),
            move |s| {
                let mut buf = input.to_vec();
                emit(s, &simd_json::serde::from_slice::<F::Of<'_>>(&mut buf).map_err(error_text)?)
            },
        )]
    }

    /// The owned tree and the tree borrowing from the input copy.
    fn dom(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        let n = Some(input.len() as u64);
        vec![
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
        ]
    }

    /// A failing row when simd-json cannot hold the document (a 30-digit integer): its limit,
    /// not the payload's.
    fn serialize_dom<'a>(input: &[u8]) -> Vec<BoxedStrategy<'a>> {
        use simd_json::prelude::Writable;
        let dom = simd_json::owned::to_value(&mut input.to_vec()).map_err(error_text);
        vec![dom_writer_strategy(StrategyId::new("dom", "simd-json"), dom, |dom| {
            Ok(dom.encode().into_bytes())
        })]
    }

    fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
        vec![Decoder {
            library: "simd-json",
            depth_unbounded: false,
            parse: Parse::InPlace(parse::<T>),
        }]
    }

    /// Over a copy of the bytes, which the value borrows from.
    fn borrowed_decoders<T, F: BorrowedForm<T>>() -> Vec<BorrowedDecoder> {
        fn read<T, F: BorrowedForm<T>>(bytes: &[u8], check: bool) -> Result<Option<Canonical>, String> {
            let mut buf = bytes.to_vec();
            checked_or_dropped(simd_json::serde::from_slice::<F::Of<'_>>(&mut buf).map_err(error_text)?, check)
        }
        vec![BorrowedDecoder {
            library: "simd-json",
            depth_unbounded: false,
            read: read::<T, F>,
        }]
    }

    fn encoders<T: Serialize>() -> Vec<Encoder<T>> {
        vec![Encoder {
            library: "simd-json",
            write: write::<T>,
        }]
    }

    fn dom_decoders() -> Vec<DomDecoder> {
        vec![DomDecoder {
            library: "simd-json",
            borrowed: false,
            depth_unbounded: false,
            parse: dom_held,
            discard: |bytes| {
                let value = simd_json::owned::to_value(&mut bytes.to_vec()).map_err(error_text)?;
                drop(black_box(value));
                Ok(())
            },
        }]
    }
}
