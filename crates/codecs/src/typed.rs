//! Strategies over any serde type: what a service does with a known payload. Every strategy here
//! needs only `Serialize + DeserializeOwned`; `borrowed/*` needs a zero-copy form ([`BorrowedForm`])
//! and `lazy/sonic-rs` a few JSON pointers, both given through [`TypeOptions`].
//!
//! The strategies are the libraries' ([`crate::libraries`]), each written the way a user would
//! write it with that library's public API; where a library has no such API the strategy is
//! absent, not faked. This module puts them in the table's order.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::document;
use crate::libraries::{All, Builtin, LibraryStrategies, Registered, serde_json, sonic_rs};
use crate::shape_model::BorrowedForm;
use crate::shape_model::{BorrowedStrategies, DerivedDeserialize};
use crate::strategy::BoxedStrategy;
use crate::toolkit::Through;
use jsoncost_engine::Contract;

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
    let mut v = Builtin::typed::<T>(input);
    for derived in &options.derived {
        v.extend(derived(input));
    }
    v.extend(Registered::typed::<T>(input));
    if let Some(borrowed) = options.borrowed {
        v.extend(borrowed(input));
    }
    v.extend(All::dom(input));
    v.extend(All::typed_through_dom::<T>(input));
    v.push(serde_json::reader_strategy::<T>(input));
    v.push(serde_json::raw_strategy(input));
    if !options.lazy_fields.is_empty() {
        v.push(sonic_rs::lazy_strategy(input, &options.lazy_fields));
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
    All::borrowed::<T, F>(input)
}

/// Serialize strategies for `value`, baseline (`typed/serde_json`, `to_vec`) first. The DOM
/// strategies serialize a tree built once beforehand, as a handler that holds a DOM would.
/// `Err` when the value does not serialize with serde_json (a map with non-string keys ...).
pub fn serialize_strategies<'a, T: Serialize>(value: &'a T) -> Result<Vec<BoxedStrategy<'a>>, String> {
    let text = serde_json::written(value)?;
    let mut v = All::serialize(value);
    v.extend(document::serialize_strategies(&text)?);
    Ok(v)
}
