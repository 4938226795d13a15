//! [`LibraryStrategies`]: one library's strategies per style, and a list of libraries as one;
//! [`Decoder`]: one library's read of a whole document into a type; [`Encoder`]: its write of
//! a type; [`DomDecoder`]: one library's parse of any document into its DOM, held.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::canonical::Canonical;
use crate::shape_model::BorrowedForm;
use crate::strategy::BoxedStrategy;
use jsoncost_engine::{Contract, StrategyId};

/// One library's strategies per style, for any serde type or any document. Each defaults to
/// none: a library implements the styles its API has.
pub trait LibraryStrategies {
    /// Deserializing into any owned type (`typed/<library>`).
    fn typed<'a, T: Serialize + DeserializeOwned + 'a>(_input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        Vec::new()
    }

    /// Deserializing into any owned type through the library's DOM (`dom-then-typed/<library>`):
    /// what a handler that inspects the tree before it commits to a type pays.
    fn typed_through_dom<'a, T: Serialize + DeserializeOwned + 'a>(_input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        Vec::new()
    }

    /// Serializing any serde value (`typed/<library>`, `typed-writer/<library>` into a buffer
    /// kept between calls).
    fn serialize<'a, T: Serialize>(_value: &'a T) -> Vec<BoxedStrategy<'a>> {
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

    /// Reading `T`'s zero-copy form `F` from a whole document's bytes (the store's
    /// `borrowed/<library>` rows: [`crate::decoders::borrowed_decoders`]).
    fn borrowed_decoders<T, F: BorrowedForm<T>>() -> Vec<BorrowedDecoder> {
        Vec::new()
    }

    /// Writing one `T` as a whole document (the reference API's `typed/<library>` routes:
    /// [`crate::decoders::encoders`]).
    fn encoders<T: Serialize>() -> Vec<Encoder<T>> {
        Vec::new()
    }

    /// Parsing any document into the library's DOM, the value held (the safety experiment's
    /// `dom` path, [`crate::decoders::dom_decoders`]).
    fn dom_decoders() -> Vec<DomDecoder> {
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

    fn typed_through_dom<'a, T: Serialize + DeserializeOwned + 'a>(input: &'a [u8]) -> Vec<BoxedStrategy<'a>> {
        let mut v = A::typed_through_dom::<T>(input);
        v.extend(B::typed_through_dom::<T>(input));
        v
    }

    fn serialize<'a, T: Serialize>(value: &'a T) -> Vec<BoxedStrategy<'a>> {
        let mut v = A::serialize(value);
        v.extend(B::serialize(value));
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

    fn borrowed_decoders<T, F: BorrowedForm<T>>() -> Vec<BorrowedDecoder> {
        let mut v = A::borrowed_decoders::<T, F>();
        v.extend(B::borrowed_decoders::<T, F>());
        v
    }

    fn encoders<T: Serialize>() -> Vec<Encoder<T>> {
        let mut v = A::encoders::<T>();
        v.extend(B::encoders::<T>());
        v
    }

    fn dom_decoders() -> Vec<DomDecoder> {
        let mut v = A::dom_decoders();
        v.extend(B::dom_decoders());
        v
    }
}

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

/// One library's read of a type's zero-copy form from a whole document, the value borrowing
/// from the bytes it was read from.
#[derive(Clone, Copy)]
pub struct BorrowedDecoder {
    /// The library's name (`serde_json`, `sonic-rs` ...).
    pub library: &'static str,
    /// As [`Decoder::depth_unbounded`].
    pub depth_unbounded: bool,
    /// The read: the value's canonical form when asked to check, else the value dropped at once
    /// (through `black_box`). A library that parses in place reads a copy.
    pub read: fn(&[u8], bool) -> Result<Option<Canonical>, String>,
}

impl BorrowedDecoder {
    /// `borrowed/<library>`.
    pub fn id(&self) -> StrategyId {
        StrategyId::new("borrowed", self.library)
    }
}

/// The value a [`BorrowedDecoder`] read: its canonical form when `check`, else dropped through
/// `black_box`.
pub(crate) fn checked_or_dropped<V: Serialize>(value: V, check: bool) -> Result<Option<Canonical>, String> {
    if check {
        Canonical::of(&value).map(Some)
    } else {
        drop(std::hint::black_box(value));
        Ok(None)
    }
}

/// One library's write of a `T` as a whole document.
pub struct Encoder<T> {
    /// The library's name (`serde_json`, `sonic-rs` ...).
    pub library: &'static str,
    /// Its write into a new buffer.
    pub write: fn(&T) -> Result<Vec<u8>, String>,
}

impl<T> Clone for Encoder<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Encoder<T> {}

/// A value a library parsed, held until its canonical form is taken; the caller then drops it
/// (a crash in the library's destructor is the caller's to see).
pub trait Held: Sync {
    /// The value in the form the gate compares.
    fn canonical(&self) -> Result<Canonical, String>;
}

/// A held value whose `Serialize` is its canonical form.
pub struct Serialized<T>(pub T);

impl<T: Serialize + Sync> Held for Serialized<T> {
    fn canonical(&self) -> Result<Canonical, String> {
        Canonical::of(&self.0)
    }
}

/// A parse of any document into a library's DOM, which may borrow from the input.
pub type DomParse = for<'a> fn(&'a [u8]) -> Result<Box<dyn Held + 'a>, String>;

/// One library's parse of any document into its DOM.
#[derive(Clone, Copy)]
pub struct DomDecoder {
    /// The library's name (`serde_json`, `jiter` ...).
    pub library: &'static str,
    /// The DOM borrows from the input (`dom-borrowed/<library>`) rather than owning its
    /// strings (`dom/<library>`).
    pub borrowed: bool,
    /// The library's parser recurses without a depth limit of its own (sonic-rs), as
    /// [`Decoder::depth_unbounded`].
    pub depth_unbounded: bool,
    /// Its parse, the DOM held for the gate.
    pub parse: DomParse,
    /// Its parse, the DOM dropped at once (through `black_box`): what a timed read does, with no
    /// box around the value.
    pub discard: fn(&[u8]) -> Result<(), String>,
}

impl DomDecoder {
    /// `dom/<library>` or `dom-borrowed/<library>`.
    pub fn id(&self) -> StrategyId {
        StrategyId::new(if self.borrowed { "dom-borrowed" } else { "dom" }, self.library)
    }

    /// What a read into this DOM delivers.
    pub fn contract(&self) -> Contract {
        if self.borrowed { Contract::BorrowedDom } else { Contract::Dom }
    }
}
