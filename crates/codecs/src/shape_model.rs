//! What the typed strategies may know of a payload type beyond `Serialize + DeserializeOwned`:
//! a zero-copy (borrowed) form, and the few fields a lazy projection reads. Both are optional;
//! the built-in shapes say them the same way a user's type does.

use jsoncost_shapes::{Data, Item, Items48, Order};
use serde::{Deserialize, Serialize};

use crate::BoxedStrategy;

/// A type with a zero-copy form: the same document with strings borrowed from the input, e.g.
/// `impl ZeroCopy for Order { type Borrowed<'a> = OrderRef<'a>; }`.
pub trait ZeroCopy {
    type Borrowed<'a>: Deserialize<'a> + Serialize;
}

impl ZeroCopy for Data {
    type Borrowed<'a> = Data<&'a str>;
}

impl ZeroCopy for Order {
    type Borrowed<'a> = Order<&'a str>;
}

impl ZeroCopy for Item {
    type Borrowed<'a> = Item<&'a str>;
}

impl ZeroCopy for Items48 {
    type Borrowed<'a> = Items48<&'a str>;
}

/// Builds the `borrowed/*` strategies over an input (a [`ZeroCopy`] type's, erased).
pub type BorrowedStrategies = for<'a> fn(&'a [u8]) -> Vec<BoxedStrategy<'a>>;

/// The optional parts of a type's deserialize table.
#[derive(Clone, Default)]
pub struct TypeOptions {
    /// The `borrowed/*` strategies, when the type has a zero-copy form.
    pub borrowed: Option<BorrowedStrategies>,
    /// JSON pointers `lazy/sonic-rs` projects (a handler that needs only these fields); none: no
    /// lazy row.
    pub lazy_fields: Vec<String>,
    /// The deserialize strategies of libraries whose own derive the type has
    /// ([`crate::derived`]: simd-json-derive, nanoserde, miniserde).
    pub derived: Vec<crate::derived::DerivedDeserialize>,
}

impl TypeOptions {
    /// Adds the `borrowed/*` strategies of `T`'s zero-copy form.
    pub fn borrowed<T: ZeroCopy>(mut self) -> Self {
        self.borrowed = Some(crate::typed::borrowed_strategies::<T>);
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
