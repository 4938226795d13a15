//! What to stream and how ([`Config`]): the array's pointer, the library, the chunk and
//! element sizes, and which values around the array are kept ([`Keep`]).

use crate::field::Field;
use crate::library::Library;
use crate::pointer::{Pointer, PointerError};

/// The default chunk size: 64 KiB.
pub const DEFAULT_CHUNK_SIZE: usize = 64 * 1024;
/// The default maximum element size: 1 MiB.
pub const DEFAULT_MAX_ELEMENT_BYTES: usize = 1024 * 1024;
/// The default most the kept [`Field`]s may take: 1 MiB (see [`Config::max_kept_bytes`]).
pub const DEFAULT_MAX_KEPT_BYTES: usize = 1024 * 1024;

/// Which values outside the array a stream keeps as [`Field`]s.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Keep {
    /// Every value met on the way to the array and after it (a repeated key's values too, in
    /// order), up to [`Config::max_kept_bytes`].
    #[default]
    All,
    /// Only the values at these pointers (e.g. `/DeviceId`), as a type needs them; every other
    /// value is validated and dropped. A second member at one of them is
    /// [`ErrorKind::DuplicateKey`](crate::ErrorKind::DuplicateKey), as a typed `from_slice` rejects a duplicate field.
    Only(Vec<String>),
}

impl Keep {
    pub(crate) fn keeps(&self, pointer: &str) -> bool {
        match self {
            Keep::All => true,
            Keep::Only(pointers) => pointers.iter().any(|p| p == pointer),
        }
    }
}

/// What to stream and how: the array's pointer, the library, the chunk size and the largest
/// element accepted. Cheap to clone; one config makes any number of streams.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The array to stream (RFC 6901, e.g. `/Readings`; empty for a top-level array).
    pub pointer: Pointer,
    /// The library that parses each element.
    pub library: Library,
    /// Bytes read from the source at a time (values below 1 count as 1).
    pub chunk_size: usize,
    /// The largest element (and key, and field) accepted, in bytes (values below 1 count as 1).
    pub max_element_bytes: usize,
    /// The values outside the array kept as [`Field`]s.
    pub keep: Keep,
    /// The most the kept fields may take, in bytes: each is charged the length of its pointer and text plus
    /// [`FIELD_OVERHEAD`] bytes; the field that would pass it is [`ErrorKind::KeptTooLarge`](crate::ErrorKind::KeptTooLarge).
    pub max_kept_bytes: usize,
}

/// What each kept [`Field`] is charged besides its pointer and text: its own size.
pub const FIELD_OVERHEAD: usize = std::mem::size_of::<Field>();

impl Config {
    /// Streams the array at `pointer` with serde_json, 64 KiB chunks and a 1 MiB element maximum.
    pub fn new(pointer: &str) -> Result<Self, PointerError> {
        Ok(Config {
            pointer: Pointer::parse(pointer)?,
            library: Library::SerdeJson,
            chunk_size: DEFAULT_CHUNK_SIZE,
            max_element_bytes: DEFAULT_MAX_ELEMENT_BYTES,
            keep: Keep::All,
            max_kept_bytes: DEFAULT_MAX_KEPT_BYTES,
        })
    }

    /// The library that parses each element (default serde_json).
    pub fn library(mut self, library: Library) -> Self {
        self.library = library;
        self
    }

    /// Bytes read at a time.
    pub fn chunk_size(mut self, bytes: usize) -> Self {
        self.chunk_size = bytes;
        self
    }

    /// The largest element accepted, in bytes.
    pub fn max_element_bytes(mut self, bytes: usize) -> Self {
        self.max_element_bytes = bytes;
        self
    }

    /// Keeps only the values at `pointers` (members of the objects on the array's path, e.g.
    /// `["/DeviceId"]`); an empty list keeps none.
    pub fn keep<P: Into<String>>(mut self, pointers: impl IntoIterator<Item = P>) -> Self {
        self.keep = Keep::Only(pointers.into_iter().map(Into::into).collect());
        self
    }

    /// Keeps every value outside the array (the default).
    pub fn keep_all(mut self) -> Self {
        self.keep = Keep::All;
        self
    }

    /// The most bytes the values kept outside the array may take.
    pub fn max_kept_bytes(mut self, bytes: usize) -> Self {
        self.max_kept_bytes = bytes;
        self
    }
}
