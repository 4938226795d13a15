//! One value of a type read from, or written as, a whole document with each library, as a
//! handler reads a document it has fetched or a body it has buffered, and writes a response:
//! the one list the store's `typed/<library>` rows (the built-in order's and a user's type's),
//! the stream's `buffered/<library>` rows, the reference API's `typed/<library>` routes and
//! the safety experiment's typed path come from; and each library's DOM of any document
//! ([`dom_decoders`]), the safety experiment's `dom` path and its list of libraries. Each
//! library gives its own through [`LibraryStrategies`]'s `decoders`, `encoders` and
//! `dom_decoders`.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::libraries::{All, BorrowedDecoder, Decoder, DomDecoder, Encoder, LibraryStrategies};
use crate::shape_model::BorrowedForm;

/// Every library's read of `T`: serde_json (the baseline) first, then sonic-rs, simd-json
/// and the registered libraries that read serde types.
pub fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
    All::decoders::<T>()
}

/// Every library's read of `T`'s zero-copy form `F`, serde_json first.
pub fn borrowed_decoders<T, F: BorrowedForm<T>>() -> Vec<BorrowedDecoder> {
    All::borrowed_decoders::<T, F>()
}

/// Every library's write of `T`, serde_json (the baseline) first.
pub fn encoders<T: Serialize>() -> Vec<Encoder<T>> {
    All::encoders::<T>()
}

/// Every library's DOM parse: serde_json, sonic-rs, simd-json, then the registered libraries'.
pub fn dom_decoders() -> Vec<DomDecoder> {
    All::dom_decoders()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_library_reads_the_same_value_from_a_lent_or_an_owned_buffer_and_says_why_it_cannot() {
        let all = decoders::<Vec<u32>>();
        let names: Vec<String> = all.iter().map(|d| d.id("typed").to_string()).collect();
        assert_eq!(&names[..3], ["typed/serde_json", "typed/sonic-rs", "typed/simd-json"]);
        assert_eq!(
            all.iter().filter(|d| d.depth_unbounded).map(|d| d.library).collect::<Vec<_>>(),
            ["sonic-rs"]
        );
        for d in &all {
            let lent = b"[1, 2]".to_vec();
            assert_eq!(d.from_slice(&lent).unwrap(), [1, 2], "{}", d.library);
            assert_eq!(lent, b"[1, 2]", "{} changed a lent buffer", d.library);
            assert_eq!(d.from_owned(&mut b"[1, 2]".to_vec()).unwrap(), [1, 2], "{}", d.library);
            assert!(d.from_slice(b"[1,\"x\"]").is_err(), "{}", d.library);
        }
    }

    #[test]
    fn each_library_s_dom_holds_the_document_and_says_why_it_cannot() {
        let all = dom_decoders();
        let names: Vec<&str> = all.iter().map(|d| d.library).collect();
        assert_eq!(&names[..3], ["serde_json", "sonic-rs", "simd-json"]);
        let expected = crate::Canonical::of(&serde_json::json!({"a": [1, "x"]})).unwrap();
        for d in &all {
            assert_eq!(
                (d.parse)(br#"{"a":[1,"x"]}"#).unwrap().canonical().unwrap(),
                expected,
                "{}",
                d.library
            );
            assert!((d.parse)(b"{\"a\":").is_err(), "{}", d.library);
        }
    }

    #[test]
    fn each_library_writes_the_same_bytes_and_refuses_what_json_cannot_hold() {
        let all = encoders::<Vec<u32>>();
        let names: Vec<&str> = all.iter().map(|e| e.library).collect();
        assert_eq!(names, ["serde_json", "sonic-rs", "simd-json"]);
        for e in &all {
            assert_eq!((e.write)(&vec![1, 2]).unwrap(), b"[1,2]", "{}", e.library);
        }
        let keyed: std::collections::BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into();
        for e in encoders::<std::collections::BTreeMap<Vec<u8>, u8>>() {
            assert!((e.write)(&keyed).is_err(), "{} wrote a map with array keys", e.library);
        }
    }

    #[test]
    fn each_library_reads_a_borrowed_form_checked_or_dropped_and_says_why_it_cannot() {
        use jsoncost_shapes::Data;
        let all = borrowed_decoders::<Data, Data>();
        let names: Vec<String> = all.iter().map(|d| d.id().to_string()).collect();
        assert_eq!(names, ["borrowed/serde_json", "borrowed/sonic-rs", "borrowed/simd-json"]);
        let doc = serde_json::to_vec(&jsoncost_shapes::Generator::new(1).data(7)).unwrap();
        let expected = crate::Canonical::of(&serde_json::from_slice::<Data>(&doc).unwrap()).unwrap();
        for d in &all {
            assert_eq!((d.read)(&doc, true).unwrap(), Some(expected.clone()), "{}", d.library);
            assert_eq!((d.read)(&doc, false).unwrap(), None, "{}", d.library);
            assert!((d.read)(b"{\"id\":", true).is_err(), "{}", d.library);
        }
    }
}
