//! One owned value of a type read from a whole document's bytes with each library, as a handler
//! reads a document it has fetched or a body it has buffered: the one list the store's
//! `typed/<library>` rows (the built-in order's and a user's type's) and the stream's
//! `buffered/<library>` rows come from. serde_json, sonic-rs and simd-json are here; a
//! registered library adds its own through [`crate::libraries::LibraryStrategies::decoders`].

use serde::de::DeserializeOwned;

use crate::libraries::{Decoder, LibraryStrategies, Parse, Registered};

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
}
