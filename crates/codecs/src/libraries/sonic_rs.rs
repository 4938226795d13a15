//! sonic-rs: SIMD parsing and writing behind serde's traits, a DOM of its own, and a lazy
//! projection of a few JSON pointers in one pass (`lazy/sonic-rs`, `lazy_strategy`).

use std::hint::black_box;

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::strategies::{BorrowedDecoder, Decoder, DomDecoder, Encoder, Held, LibraryStrategies, Parse, Serialized, checked_or_dropped};
use crate::canonical::Canonical;
use crate::shape_model::BorrowedForm;
use crate::strategy::BoxedStrategy;
use crate::toolkit::{OpStrategy, Slot, dom_writer_strategy, emit, error_text, writer_strategies};
use jsoncost_engine::{Contract, Effort, StrategyId};

/// sonic-rs's strategies.
pub struct SonicRs;

fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    sonic_rs::from_slice(bytes).map_err(error_text)
}

fn write<T: Serialize>(value: &T) -> Result<Vec<u8>, String> {
    sonic_rs::to_vec(value).map_err(error_text)
}

fn dom_held(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    Ok(Box::new(Serialized(parse::<sonic_rs::Value>(bytes)?)))
}

impl LibraryStrategies for SonicRs {
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("typed", "sonic-rs"),
            Contract::TypedValue,
            Effort::Swap,
            Some(input.len() as u64),
            move |s| emit(s, &sonic_rs::from_slice::<T>(input).map_err(error_text)?),
        )]
    }

    fn typed_through_dom<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("dom-then-typed", "sonic-rs"),
            Contract::TypedValue,
            Effort::Code,
            Some(input.len() as u64),
            move |s| {
                let v = sonic_rs::from_slice::<sonic_rs::Value>(input).map_err(error_text)?;
                emit(s, &sonic_rs::from_value::<T>(&v).map_err(error_text)?)
            },
        )]
    }

    fn serialize<'a, T: Serialize>(value: &'a T) -> Vec<BoxedStrategy<'a>> {
        writer_strategies("sonic-rs", value, write::<T>, |buf, v| {
            sonic_rs::to_writer(buf, v).map_err(error_text)
        })
    }

    fn borrowed<'a, T, F: BorrowedForm<T>>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        vec![OpStrategy::boxed(
            StrategyId::new("borrowed", "sonic-rs"),
            Contract::BorrowedValue,
            Effort::Model,
            Some(input.len() as u64),
            move |s| emit(s, &sonic_rs::from_slice::<F::Of<'_>>(input).map_err(error_text)?),
        )]
    }

    fn dom(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        vec![OpStrategy::boxed(
            StrategyId::new("dom", "sonic-rs"),
            Contract::Dom,
            Effort::Model,
            Some(input.len() as u64),
            move |s| emit(s, &sonic_rs::from_slice::<sonic_rs::Value>(input).map_err(error_text)?),
        )]
    }

    fn serialize_dom<'a>(input: &[u8]) -> Vec<BoxedStrategy<'a>> {
        let dom = parse::<sonic_rs::Value>(input);
        vec![dom_writer_strategy(StrategyId::new("dom", "sonic-rs"), dom, write)]
    }

    /// sonic-rs recurses without a depth limit of its own: a reader refuses, untimed, a
    /// document nested deeper than serde_json's 128 levels for it.
    fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
        vec![Decoder {
            library: "sonic-rs",
            depth_unbounded: true,
            parse: Parse::Slice(parse::<T>),
        }]
    }

    fn borrowed_decoders<T, F: BorrowedForm<T>>() -> Vec<BorrowedDecoder> {
        fn read<T, F: BorrowedForm<T>>(bytes: &[u8], check: bool) -> Result<Option<Canonical>, String> {
            checked_or_dropped(sonic_rs::from_slice::<F::Of<'_>>(bytes).map_err(error_text)?, check)
        }
        vec![BorrowedDecoder {
            library: "sonic-rs",
            depth_unbounded: true,
            read: read::<T, F>,
        }]
    }

    fn encoders<T: Serialize>() -> Vec<Encoder<T>> {
        vec![Encoder {
            library: "sonic-rs",
            write: write::<T>,
        }]
    }

    fn dom_decoders() -> Vec<DomDecoder> {
        vec![DomDecoder {
            library: "sonic-rs",
            borrowed: false,
            depth_unbounded: true,
            parse: dom_held,
            discard: |bytes| parse::<sonic_rs::Value>(bytes).map(|v| drop(black_box(v))),
        }]
    }
}

/// The lazy projection of `fields` with sonic-rs: one pass that skips what it does not need.
pub fn project(input: &[u8], tree: &sonic_rs::PointerTree, fields: &[String], slot: Slot<'_>) -> Result<(), String> {
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

/// Each field of `tree` as sonic-rs finds it in `input`, in the tree's order: its raw text, or
/// none where the document has no such field. No value is parsed beyond what the fields need.
pub fn raw_fields(input: &[u8], tree: &sonic_rs::PointerTree) -> Result<Vec<Option<String>>, String> {
    let found = sonic_rs::get_many(input, tree).map_err(error_text)?;
    Ok(found.into_iter().map(|v| v.map(|v| v.as_raw_str().to_string())).collect())
}

/// Builds the sonic-rs pointer tree for `fields` (JSON pointers like `/lines/0/sku`) as they
/// resolve in `sample`, a document like those to be read. sonic-rs takes each step as a key or
/// an index before it parses, where RFC 6901 lets the container decide (`/200` is a key of an
/// object, an index of an array), so the sample's containers decide. A step past what the
/// sample holds is an index when it is one by RFC 6901's grammar (`0` or digits without a
/// leading zero), else a key. Two fields that would give one node both keys and indexes (which
/// sonic-rs cannot hold) are an error naming them.
pub fn pointer_tree(sample: &serde_json::Value, fields: &[String]) -> Result<sonic_rs::PointerTree, String> {
    use serde_json::Value;
    let mut tree = sonic_rs::PointerTree::new();
    // Each node's children so far (by the node's pointer text): indexes or keys, and the field
    // that made them so.
    let mut children: std::collections::HashMap<&str, (bool, &str)> = std::collections::HashMap::new();
    for field in fields {
        let mut at = Some(sample);
        let mut nodes = Vec::new();
        let mut parent_end = 0;
        for raw in field.split('/').skip(1) {
            let token = crate::pointer::unescape(raw);
            let index = match at {
                Some(Value::Object(_)) => None,
                _ => crate::exact::array_index(&token).and_then(|i| usize::try_from(i).ok()),
            };
            let parent = &field[..parent_end];
            let (is_index, by) = *children.entry(parent).or_insert((index.is_some(), field));
            if is_index != index.is_some() {
                let node = if parent.is_empty() { "the document's root" } else { parent };
                return Err(format!(
                    "fields {by} and {field} read {node} as an array and as an object; sonic-rs needs one of them"
                ));
            }
            at = match (at, index) {
                (Some(Value::Array(items)), Some(i)) => items.get(i),
                (Some(Value::Object(members)), _) => members.get(&token),
                _ => None,
            };
            nodes.push(match index {
                Some(i) => sonic_rs::PointerNode::Index(i),
                None => sonic_rs::PointerNode::Key(token.into()),
            });
            parent_end += 1 + raw.len();
        }
        tree.add_path(nodes.iter());
    }
    Ok(tree)
}

/// `lazy/sonic-rs`: the projection of `fields` (JSON pointers) in one pass.
pub(crate) fn lazy_strategy<'a>(input: &'a [u8], fields: &[String]) -> BoxedStrategy<'a> {
    let fields = fields.to_vec();
    // The input itself is the sample; one that serde_json cannot read fails every DOM row, and
    // the tree then takes each step by its token.
    let sample = serde_json::from_slice(input).unwrap_or(serde_json::Value::Null);
    let tree = pointer_tree(&sample, &fields);
    OpStrategy::boxed(
        StrategyId::new("lazy", "sonic-rs"),
        Contract::Projection,
        Effort::Code,
        Some(input.len() as u64),
        move |s| project(input, tree.as_ref()?, &fields, s),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn projected(input: &str, fields: &[&str]) -> Result<Vec<Option<String>>, String> {
        let fields: Vec<String> = fields.iter().map(|f| f.to_string()).collect();
        let sample: serde_json::Value = serde_json::from_str(input).unwrap();
        let tree = pointer_tree(&sample, &fields)?;
        let found = sonic_rs::get_many(input.as_bytes(), &tree).map_err(error_text)?;
        Ok(found.iter().map(|v| v.as_ref().map(|v| v.as_raw_str().to_string())).collect())
    }

    #[test]
    fn a_numeric_token_is_a_key_of_an_object_and_an_index_of_an_array() {
        let openapi = r#"{"responses":{"200":{"description":"ok"},"default":{"description":"other"}}}"#;
        assert_eq!(
            projected(openapi, &["/responses/200/description", "/responses/default/description"]),
            Ok(vec![Some(r#""ok""#.into()), Some(r#""other""#.into())])
        );
        assert_eq!(
            projected(r#"{"200":1,"01":2}"#, &["/200", "/01"]),
            Ok(vec![Some("1".into()), Some("2".into())])
        );
        assert_eq!(
            projected("[[1],[2,3]]", &["/1/0", "/0"]),
            Ok(vec![Some("2".into()), Some("[1]".into())])
        );
        // Past the sample, the token decides; a node read both ways is refused, not built.
        assert_eq!(
            projected(r#"{"a":{}}"#, &["/a/b/0", "/a/b/c"]),
            Err("fields /a/b/0 and /a/b/c read /a/b as an array and as an object; sonic-rs needs one of them".into())
        );
        assert_eq!(
            projected("[]", &["/0", "/x"]),
            Err("fields /0 and /x read the document's root as an array and as an object; sonic-rs needs one of them".into())
        );
    }
}
