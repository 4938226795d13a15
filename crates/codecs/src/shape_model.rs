//! What the typed strategies may know of a payload type beyond `Serialize + DeserializeOwned`:
//! its zero-copy (borrowed) form, and the erased builders of a type's optional strategies
//! ([`crate::TypeOptions`] holds them). The built-in shapes say them the same way a user's
//! type does.

use jsoncost_shapes::{Data, Item, Items48, Order};
use serde::{Deserialize, Serialize};

use crate::strategy::BoxedStrategy;

/// The zero-copy (borrowed) form of `T`: the same document with strings borrowed from the
/// input. Implemented by any type, usually a marker local to a bench, so a type defined in
/// another crate (a user's `src/`, where jsoncost is only a dev-dependency) can be given one
/// without the orphan rule in the way:
///
/// ```
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Event<S = String> { id: u64, name: S }
/// struct EventRef; // local to the bench
/// impl jsoncost_codecs::BorrowedForm<Event> for EventRef {
///     type Of<'a> = Event<&'a str>;
/// }
/// ```
///
/// `Of<'a>` must decode the documents `T` decodes and serialize to what `T` serializes to (the
/// gate checks it). A `&str` field fails on a string with escapes (`\n`, `\u00e9`): serde can
/// only borrow what needs no unescaping; `Cow<'a, str>` takes both but borrows only with
/// `#[serde(borrow)]`.
pub trait BorrowedForm<T> {
    /// The borrowed type, e.g. `Event<&'a str>` or `EventRef<'a>`.
    type Of<'a>: Deserialize<'a> + Serialize;
}

impl BorrowedForm<Data> for Data {
    type Of<'a> = Data<&'a str>;
}

impl BorrowedForm<Order> for Order {
    type Of<'a> = Order<&'a str>;
}

impl BorrowedForm<Item> for Item {
    type Of<'a> = Item<&'a str>;
}

impl BorrowedForm<Items48> for Items48 {
    type Of<'a> = Items48<&'a str>;
}

/// Builds the `borrowed/*` strategies over an input (a [`BorrowedForm`]'s, erased).
pub type BorrowedStrategies = for<'a> fn(&'a [u8]) -> Vec<BoxedStrategy<'a>>;

/// Deserialize strategies of a type's own derive (simd-json-derive, nanoserde, miniserde,
/// facet-json) or hand decoder (jiter's iterator), erased like [`BorrowedStrategies`].
pub type DerivedDeserialize = for<'a> fn(&'a [u8]) -> Vec<BoxedStrategy<'a>>;
