//! One owned value of a type read from a document's bytes with each library, as a handler reads
//! a document it has fetched: the one list the store's `typed/<library>` rows come from, the
//! built-in order's and a user's type's alike. serde_json, sonic-rs and simd-json are here;
//! a registered library adds its own through [`crate::libraries::LibraryStrategies::typed_reads`].

use std::hint::black_box;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::libraries::{LibraryStrategies, Registered};
use crate::{Canonical, StrategyId};

/// Decodes the bytes with one library and, when checked, gives the value's canonical form
/// (timed, the value is only black-boxed): a plain function, so a table's rows can hold it.
pub type ReadFn = fn(&[u8], bool) -> Result<Option<Canonical>, String>;

/// One library's read of a type.
#[derive(Debug, Clone)]
pub struct TypedRead {
    /// `typed/<library>`.
    pub id: StrategyId,
    /// The library's parser recurses without a depth limit of its own (sonic-rs): a reader
    /// refuses, untimed, a document nested deeper than serde_json's 128 levels for it.
    pub depth_unbounded: bool,
    /// The read.
    pub read: ReadFn,
}

impl TypedRead {
    /// `typed/<library>`'s read of `T` through `D`.
    pub fn of<T: Serialize + DeserializeOwned, D: Decode>(library: &'static str, depth_unbounded: bool) -> Self {
        TypedRead {
            id: StrategyId::new("typed", library),
            depth_unbounded,
            read: read::<T, D>,
        }
    }
}

/// A library's `from_slice` into any owned serde type.
pub trait Decode {
    /// The value the bytes hold, or the library's message.
    fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String>;
}

fn read<T: Serialize + DeserializeOwned, D: Decode>(bytes: &[u8], check: bool) -> Result<Option<Canonical>, String> {
    let value = D::decode::<T>(bytes)?;
    if check {
        Canonical::of(&value).map(Some)
    } else {
        black_box(&value);
        Ok(None)
    }
}

/// serde_json's `from_slice`.
pub struct SerdeJson;
impl Decode for SerdeJson {
    fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
        serde_json::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// sonic-rs's `from_slice`.
pub struct SonicRs;
impl Decode for SonicRs {
    fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
        sonic_rs::from_slice(bytes).map_err(|e| e.to_string())
    }
}

/// simd-json's serde `from_slice`, over a copy: it parses in place, so the copy out of the
/// reader's buffer is part of its read.
pub struct SimdJson;
impl Decode for SimdJson {
    fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
        let mut copy = bytes.to_vec();
        simd_json::serde::from_slice(&mut copy).map_err(|e| e.to_string())
    }
}

/// Every library's read of `T`, `typed/serde_json` (the baseline) first, then sonic-rs,
/// simd-json and the registered libraries that read serde types.
pub fn typed_reads<T: Serialize + DeserializeOwned>() -> Vec<TypedRead> {
    let mut reads = vec![
        TypedRead::of::<T, SerdeJson>("serde_json", false),
        TypedRead::of::<T, SonicRs>("sonic-rs", true),
        TypedRead::of::<T, SimdJson>("simd-json", false),
    ];
    reads.extend(Registered::typed_reads::<T>());
    reads
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_library_reads_the_same_value_and_says_why_it_cannot() {
        let reads = typed_reads::<Vec<u32>>();
        let names: Vec<&str> = reads.iter().map(|r| r.id.name()).collect();
        assert_eq!(&names[..3], ["typed/serde_json", "typed/sonic-rs", "typed/simd-json"]);
        assert_eq!(reads.iter().filter(|r| r.depth_unbounded).count(), 1);
        let expected = Canonical::of(&vec![1u32, 2]).unwrap();
        for r in &reads {
            assert_eq!((r.read)(b"[1,2]", true).unwrap(), Some(expected.clone()), "{}", r.id);
            assert_eq!((r.read)(b"[1,2]", false).unwrap(), None, "{}", r.id);
            assert!((r.read)(b"[1,\"x\"]", true).is_err(), "{}", r.id);
        }
    }
}
