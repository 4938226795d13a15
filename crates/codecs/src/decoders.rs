//! One owned value of a type read from a whole document's bytes with each library, as a handler
//! reads a document it has fetched or a body it has buffered: the one list the store's
//! `typed/<library>` rows (the built-in order's and a user's type's) and the stream's
//! `buffered/<library>` rows come from. serde_json, sonic-rs and simd-json are here; a
//! registered library adds its own through [`crate::libraries::LibraryStrategies::decoders`].

use serde::de::DeserializeOwned;

use crate::StrategyId;
use crate::libraries::{LibraryStrategies, Registered};

/// How a library parses: from a shared slice, or in place, rewriting its input (simd-json).
pub enum Parse<T> {
    /// `from_slice(&[u8])`.
    Slice(fn(&[u8]) -> Result<T, String>),
    /// `from_slice(&mut [u8])`: a reader holding the bytes in a buffer it lends out gives it a
    /// copy, and the copy is part of the read.
    InPlace(fn(&mut [u8]) -> Result<T, String>),
}

/// One library's read of a `T`.
pub struct Decoder<T> {
    /// The library's name (`serde_json`, `sonic-rs` ...).
    pub library: &'static str,
    /// The library's parser recurses without a depth limit of its own (sonic-rs): a reader
    /// refuses, untimed, a document nested deeper than serde_json's 128 levels for it.
    pub depth_unbounded: bool,
    /// Its parse.
    pub parse: Parse<T>,
}

impl<T> Clone for Parse<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Parse<T> {}
impl<T> Clone for Decoder<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Decoder<T> {}

impl<T> Decoder<T> {
    /// `style/<library>`, e.g. `typed/sonic-rs`.
    pub fn id(&self, style: &'static str) -> StrategyId {
        StrategyId::new(style, self.library)
    }

    /// The value in bytes the caller keeps (a store client's buffer): a library that parses in
    /// place reads a copy.
    pub fn from_slice(&self, bytes: &[u8]) -> Result<T, String> {
        match self.parse {
            Parse::Slice(parse) => parse(bytes),
            Parse::InPlace(parse) => parse(&mut bytes.to_vec()),
        }
    }

    /// The value in bytes the caller owns and gives up (a buffered body): no copy.
    pub fn from_owned(&self, bytes: &mut [u8]) -> Result<T, String> {
        match self.parse {
            Parse::Slice(parse) => parse(bytes),
            Parse::InPlace(parse) => parse(bytes),
        }
    }
}

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
