//! One owned value of a type read from a whole document's bytes with each library, as a handler
//! reads a document it has fetched or a body it has buffered: the one list the store's
//! `typed/<library>` rows (the built-in order's and a user's type's), the stream's
//! `buffered/<library>` rows and the safety experiment's typed path come from; and each
//! library's DOM of any document ([`dom_decoders`]), the safety experiment's `dom` path and its
//! list of libraries. serde_json, sonic-rs and simd-json are here; a registered library adds
//! its own through [`crate::libraries::LibraryStrategies`]'s `decoders` and `dom_decoders`.

use serde::de::DeserializeOwned;

use crate::libraries::{Decoder, DomDecoder, Held, LibraryStrategies, Parse, Registered, Serialized};

fn serde_json_parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    serde_json::from_slice(bytes).map_err(|e| e.to_string())
}

fn sonic_rs_parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    sonic_rs::from_slice(bytes).map_err(|e| e.to_string())
}

fn simd_json_parse<T: DeserializeOwned>(bytes: &mut [u8]) -> Result<T, String> {
    simd_json::serde::from_slice(bytes).map_err(|e| e.to_string())
}

/// Every library's read of `T`: serde_json (the baseline) first, then sonic-rs, simd-json
/// and the registered libraries that read serde types.
pub fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
    let mut all = vec![
        Decoder {
            library: "serde_json",
            depth_unbounded: false,
            parse: Parse::Slice(serde_json_parse::<T>),
        },
        Decoder {
            library: "sonic-rs",
            depth_unbounded: true,
            parse: Parse::Slice(sonic_rs_parse::<T>),
        },
        Decoder {
            library: "simd-json",
            depth_unbounded: false,
            parse: Parse::InPlace(simd_json_parse::<T>),
        },
    ];
    all.extend(Registered::decoders::<T>());
    all
}

fn serde_json_dom(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    Ok(Box::new(Serialized(serde_json_parse::<serde_json::Value>(bytes)?)))
}

fn sonic_rs_dom(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    Ok(Box::new(Serialized(sonic_rs_parse::<sonic_rs::Value>(bytes)?)))
}

/// simd-json's owned DOM over a copy (it parses in place).
fn simd_json_dom(bytes: &[u8]) -> Result<Box<dyn Held + '_>, String> {
    let value = simd_json::owned::to_value(&mut bytes.to_vec()).map_err(|e| e.to_string())?;
    Ok(Box::new(Serialized(value)))
}

/// Every library's DOM parse: serde_json, sonic-rs, simd-json, then the registered libraries'.
pub fn dom_decoders() -> Vec<DomDecoder> {
    let mut all = vec![
        DomDecoder {
            library: "serde_json",
            parse: serde_json_dom,
        },
        DomDecoder {
            library: "sonic-rs",
            parse: sonic_rs_dom,
        },
        DomDecoder {
            library: "simd-json",
            parse: simd_json_dom,
        },
    ];
    all.extend(Registered::dom_decoders());
    all
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
}
