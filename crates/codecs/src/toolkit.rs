//! What every strategy is built from: [`OpStrategy`] (one closure, gated or timed), [`Through`]
//! (a typed output gated on what its type sees), the outcome slot and its [`emit`]ters, and the
//! sonic-rs projection behind `lazy/sonic-rs`. The strategy lists ([`crate::typed`],
//! [`crate::document`] and the other libraries' modules) build on these.

use std::hint::black_box;
use std::marker::PhantomData;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::gate;
use crate::{BoxedStrategy, Canonical, Contract, Effort, RunFailure, Strategy, StrategyId};

/// The outcome slot: `None` when timing, `Some` when the gate wants the canonical output.
pub type Slot<'s> = Option<&'s mut Option<Canonical>>;

/// A strategy whose single closure either records its output (gate) or drops it (timing).
pub struct OpStrategy<F> {
    id: StrategyId,
    contract: Contract,
    effort: Effort,
    bytes: Option<u64>,
    f: F,
}

impl<F: FnMut(Slot<'_>) -> Result<(), String>> OpStrategy<F> {
    /// A strategy `id` delivering `contract`, adopted at `effort`, over `bytes` of payload,
    /// doing `f`.
    pub fn boxed<'a>(id: StrategyId, contract: Contract, effort: Effort, bytes: Option<u64>, f: F) -> BoxedStrategy<'a>
    where
        F: 'a,
    {
        Box::new(OpStrategy {
            id,
            contract,
            effort,
            bytes,
            f,
        })
    }
}

impl<F: FnMut(Slot<'_>) -> Result<(), String>> Strategy for OpStrategy<F> {
    fn id(&self) -> &StrategyId {
        &self.id
    }
    fn contract(&self) -> Contract {
        self.contract
    }
    fn effort(&self) -> Effort {
        self.effort
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
    fn id(&self) -> &StrategyId {
        self.inner.id()
    }
    fn contract(&self) -> Contract {
        self.inner.contract()
    }
    fn effort(&self) -> Effort {
        self.inner.effort()
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
                match gate::judge(self.inner.id(), &out, &seen) {
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

/// A library's error as the failure message of a strategy.
pub(crate) fn error_text(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// The serialize row `(id, contract, effort)` of a library that cannot read the document into
/// its DOM (its `error`): the row fails the gate with that message and is never timed.
pub(crate) fn refused<'a>((id, contract, effort): (StrategyId, Contract, Effort), error: impl std::fmt::Display) -> BoxedStrategy<'a> {
    let message = format!(
        "{} cannot read the document into its DOM: {error}",
        id.library().unwrap_or(id.name())
    );
    OpStrategy::boxed(id, contract, effort, None, move |_| Err(message.clone()))
}

/// The lazy projection of `fields` with sonic-rs: one pass that skips what it does not need.
pub fn sonic_projection(input: &[u8], tree: &sonic_rs::PointerTree, fields: &[String], slot: Slot<'_>) -> Result<(), String> {
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
pub fn lazy_strategy<'a>(input: &'a [u8], fields: &[String]) -> BoxedStrategy<'a> {
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
        move |s| sonic_projection(input, tree.as_ref()?, &fields, s),
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
