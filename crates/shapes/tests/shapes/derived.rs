//! The plain copies of `data` and `order` (feature `other-derives`) are the shapes field for
//! field: serde and facet-json write the shape's exact bytes from them, and each other library
//! reads them back.
#![cfg(feature = "other-derives")]

use jsoncost_shapes::{DEFAULT_SEED, Generator, ORDER_LARGE_LINES, ORDER_LINES, derived};
use serde::Serialize;
use serde::de::DeserializeOwned;

fn same<Shape: Serialize, Plain>(shape: &Shape)
where
    Plain: Serialize
        + DeserializeOwned
        + PartialEq
        + std::fmt::Debug
        + for<'i> simd_json_derive::Deserialize<'i>
        + simd_json_derive::Serialize
        + nanoserde::DeJson
        + nanoserde::SerJson
        + miniserde::Deserialize
        + miniserde::Serialize
        + facet::Facet<'static>,
{
    let bytes = serde_json::to_vec(shape).unwrap();
    let plain: Plain = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(serde_json::to_vec(&plain).unwrap(), bytes, "serde writes the shape's bytes");
    let text = std::str::from_utf8(&bytes).unwrap();
    let simd = Plain::from_slice(&mut bytes.clone()).unwrap();
    assert_eq!(simd, plain, "simd-json-derive reads the same value");
    assert_eq!(<Plain as nanoserde::DeJson>::deserialize_json(text).unwrap(), plain, "nanoserde");
    assert_eq!(miniserde::json::from_str::<Plain>(text).unwrap(), plain, "miniserde");
    assert_eq!(facet_json::from_slice::<Plain>(&bytes).unwrap(), plain, "facet-json");
    // Byte for byte: field names and order, escapes, floats and the date-times' text.
    assert_eq!(
        String::from_utf8(facet_json::to_vec(&plain).unwrap()).unwrap(),
        text,
        "facet-json writes the shape's bytes"
    );
    let as_value = |b: &[u8]| serde_json::from_slice::<serde_json::Value>(b).unwrap();
    let want = as_value(&bytes);
    assert_eq!(as_value(&simd_json_derive::Serialize::json_vec(&plain).unwrap()), want);
    assert_eq!(as_value(nanoserde::SerJson::serialize_json(&plain).as_bytes()), want);
    assert_eq!(as_value(miniserde::json::to_string(&plain).as_bytes()), want);
}

#[test]
fn the_plain_copies_are_the_shapes() {
    let mut g = Generator::new(DEFAULT_SEED);
    same::<_, derived::Data>(&g.data(12345));
    same::<_, derived::Order>(&g.order(1, ORDER_LINES));
    same::<_, derived::Order>(&g.order(2, ORDER_LARGE_LINES));
}
