//! serde_json_borrow: a DOM borrowing from the input, built through serde_json's parser, and
//! written back through serde_json's writer.

use super::library::Library;
use crate::toolkit::{OpStrategy, emit, emit_bytes, error_text};
use crate::{BoxedStrategy, Contract, Effort, StrategyId};

/// serde_json_borrow's strategies.
pub struct SerdeJsonBorrow;

impl Library for SerdeJsonBorrow {
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

    /// Writing the tree already held, with the bytes it borrows from (the handler holds both).
    /// `Err` when serde_json_borrow cannot read the document.
    fn serialize_dom<'a>(input: &[u8]) -> Result<Vec<BoxedStrategy<'a>>, String> {
        let dom = serde_json_borrow::OwnedValue::from_slice(input).map_err(error_text)?;
        let n = Some(serde_json::to_vec(&dom).map_err(error_text)?.len() as u64);
        Ok(vec![OpStrategy::boxed(
            StrategyId::new("dom-borrowed", "serde_json_borrow"),
            Contract::BytesFromDom,
            Effort::Model,
            n,
            move |s| emit_bytes(s, &serde_json::to_vec(dom.get_value()).map_err(error_text)?),
        )])
    }
}
