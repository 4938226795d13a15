//! [`LibraryStrategies`]: one library's strategies per style, and a list of libraries as one.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::decoders::Decoder;
use crate::{BorrowedForm, BoxedStrategy};

/// One library's strategies per style, for any serde type or any document. Each defaults to
/// none: a library implements the styles its API has.
pub trait LibraryStrategies {
    /// Deserializing into any owned type (`typed/<library>`).
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(_input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        Vec::new()
    }

    /// Deserializing into `T`'s zero-copy form `F` (`borrowed/<library>`).
    fn borrowed<'a, T, F: BorrowedForm<T>>(_input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        Vec::new()
    }

    /// Parsing any document into the library's DOM (`dom/<library>`, `dom-borrowed/...`).
    fn dom(_input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        Vec::new()
    }

    /// Writing a DOM of the document already held; a row that fails the gate with the
    /// library's message when it cannot read the document.
    fn serialize_dom<'a>(_input: &[u8]) -> Vec<BoxedStrategy<'a>> {
        Vec::new()
    }

    /// Reading one owned `T` from a whole document's bytes (the store's `typed/<library>` rows,
    /// the stream's `buffered/<library>` rows: [`crate::decoders`]).
    fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
        Vec::new()
    }
}

impl LibraryStrategies for () {}

/// Two libraries (or lists of them), the first's strategies first.
impl<A: LibraryStrategies, B: LibraryStrategies> LibraryStrategies for (A, B) {
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        let mut v = A::typed::<T>(input);
        v.extend(B::typed::<T>(input));
        v
    }

    fn borrowed<'a, T, F: BorrowedForm<T>>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        let mut v = A::borrowed::<T, F>(input);
        v.extend(B::borrowed::<T, F>(input));
        v
    }

    fn dom(input: &[u8]) -> Vec<BoxedStrategy<'_>> {
        let mut v = A::dom(input);
        v.extend(B::dom(input));
        v
    }

    fn serialize_dom<'a>(input: &[u8]) -> Vec<BoxedStrategy<'a>> {
        let mut v = A::serialize_dom(input);
        v.extend(B::serialize_dom(input));
        v
    }

    fn decoders<T: DeserializeOwned>() -> Vec<Decoder<T>> {
        let mut v = A::decoders::<T>();
        v.extend(B::decoders::<T>());
        v
    }
}
