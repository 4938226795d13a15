//! What the typed strategies need of a payload type: an owned form, a borrowed (zero-copy) form,
//! and the few fields a lazy projection reads.

use jsoncost_shapes::{Data, Item, Items48, Order};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

/// A payload type the typed strategies can work with.
pub trait ShapeModel: Serialize + DeserializeOwned + Clone + 'static {
    /// The same document with every string borrowed from the input.
    type Borrowed<'a>: Deserialize<'a> + Serialize;
    /// JSON pointers a lazy projection reads (a few fields, as a handler that needs only them).
    const LAZY_FIELDS: &'static [&'static str];
}

impl ShapeModel for Data {
    type Borrowed<'a> = Data<&'a str>;
    const LAZY_FIELDS: &'static [&'static str] = &["/Id", "/Name"];
}

impl ShapeModel for Order {
    type Borrowed<'a> = Order<&'a str>;
    const LAZY_FIELDS: &'static [&'static str] = &["/id", "/status", "/total"];
}

impl ShapeModel for Item {
    type Borrowed<'a> = Item<&'a str>;
    const LAZY_FIELDS: &'static [&'static str] = &["/id", "/name", "/price"];
}

impl ShapeModel for Items48 {
    type Borrowed<'a> = Items48<&'a str>;
    const LAZY_FIELDS: &'static [&'static str] = &["/0/id", "/0/price", "/47/id"];
}
