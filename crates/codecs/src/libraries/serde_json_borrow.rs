//! serde_json_borrow: a DOM borrowing from the input, built through serde_json's parser, and
//! written back through serde_json's writer.

use super::strategies::{DomDecoder, Held, LibraryStrategies, Serialized};
use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, dom_writer_strategy, emit, error_text};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// serde_json_borrow's strategies.
pub struct SerdeJsonBorrow;

/// The borrowed `Value`, through serde_json's parser.
fn dom_held(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    Ok(Box::new(Serialized(
        serde_json::from_slice::<serde_json_borrow::Value<'_>>(bytes).map_err(error_text)?,
    )))
}

impl LibraryStrategies for SerdeJsonBorrow {
    fn dom_decoders() -> Vec<DomDecoder> {
        vec![DomDecoder {
            library: "serde_json_borrow",
            borrowed: true,
            depth_unbounded: false,
            parse: dom_held,
            discard: |bytes| {
                let value = serde_json::from_slice::<serde_json_borrow::Value<'_>>(bytes).map_err(error_text)?;
                drop(std::hint::black_box(value));
                Ok(())
            },
        }]
    }

    fn dom(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        let n = Some(input.len() as u64);
        vec![OpStrategy::boxed(
            StrategyId::new("dom-borrowed", "serde_json_borrow"),
            Contract::BorrowedDom,
            Effort::Model,
            n,
            move |s| {
                emit(
                    s,
                    &serde_json::from_slice::<serde_json_borrow::Value<'_>>(input).map_err(error_text)?,
                )
            },
        )]
    }

    /// Writing the tree already held, with the bytes it borrows from (the handler holds both);
    /// a failing row when serde_json_borrow cannot read the document (its numbers under
    /// serde_json's `arbitrary_precision`).
    fn serialize_dom<'a>(input: &[u8]) -> Vec<BoxedStrategy<'a>> {
        let dom = serde_json_borrow::OwnedValue::from_slice(input).map_err(error_text);
        vec![dom_writer_strategy(
            StrategyId::new("dom-borrowed", "serde_json_borrow"),
            dom,
            |dom| serde_json::to_vec(dom.get_value()).map_err(error_text),
        )]
    }
}
