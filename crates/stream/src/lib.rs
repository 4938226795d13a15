//! An incremental, bounded-memory deserializer for the elements of one array inside a JSON
//! document, e.g. the `Readings` of `{"DeviceId": "...", "Readings": [{...}, {...}, ...]}`,
//! fed by a sync [`std::io::Read`] or an async stream of [`bytes::Bytes`] chunks (an axum
//! body), parsing each element with serde_json, sonic-rs or simd-json.
//!
//! It closes the gap serde_json leaves (serde-rs/json#404: `StreamDeserializer` cannot stream
//! the elements of an array, and `from_reader` is many times slower than `from_slice`): the
//! document never has to be in memory, and elements are still parsed by the slice parsers.
//!
//! ```
//! use jsoncost_stream::{Config, Library, TelemetryAggregate};
//! use jsoncost_shapes::Reading;
//!
//! let body: &[u8] = br#"{"DeviceId":"d-1","Readings":[
//!     {"Timestamp":"2025-01-01T00:00:00Z","Temperature":21.5,"Humidity":40.0},
//!     {"Timestamp":"2025-01-01T00:00:01Z","Temperature":22.5,"Humidity":41.0}]}"#;
//! let config = Config::new("/Readings")?.library(Library::SonicRs).max_element_bytes(1024);
//!
//! let mut readings = config.reader::<Reading, _>(body);
//! let mut aggregate = TelemetryAggregate::default();
//! for reading in &mut readings {
//!     aggregate.push(&reading?);
//! }
//! assert_eq!(aggregate.count(), 2);
//! assert_eq!(aggregate.temperature.mean(), Some(22.0));
//! assert_eq!(readings.field("/DeviceId").unwrap().parse::<String>()?, "d-1");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Design
//!
//! Bytes are read into one buffer, a chunk at a time. A state machine walks the document to the
//! array named by a JSON pointer (`""` is a top-level array), validating every value it passes
//! on the way and after it, and keeping those [`Config::keep`] names (by default all of them, up
//! to [`Config::max_kept_bytes`]) as [`Field`]s (raw JSON text). Inside the array, object and array
//! elements are framed by a structural scan in the manner of simdjson's stage 1: 64 bytes at a
//! time, SIMD compares give bitmasks of quotes, backslashes and brackets; escapes and "inside a
//! string" are resolved with carries that run from block to block, so a string, an escape or an
//! element may be cut by a chunk boundary anywhere. The scan only counts brackets: in one tight
//! pass it queues the spans of up to 256 elements that follow one another with a `,` between
//! them, and each span then goes, as one contiguous slice of the buffer, to the chosen library,
//! which validates the element fully (a bad token inside an element is the parser's to
//! report). The commas, brackets and the rest of the document around the elements are checked by
//! the state machine (which also takes over at chunk boundaries and for string, number and
//! literal elements, byte by byte), so a stream that ends without error has read a complete,
//! valid document: the documents the library's own `from_slice` accepts into its DOM. A typed
//! `from_slice` also rejects repeated keys (a duplicate field), which a DOM keeps; the stream,
//! knowing no type for the document around the array, rejects a repeat of a key on the
//! pointer's path ([`ErrorKind::DuplicateKey`], e.g. a second `"Readings"` after the array
//! streamed) and of a key whose value [`Keep::Only`] keeps (a type's field, e.g. `DeviceId`);
//! with [`Keep::All`] it keeps other repeated keys as [`Field`]s, in order.
//!
//! The scan also marks bytes >= 0x80: an element without any is valid UTF-8 by construction, so
//! sonic-rs is spared its own UTF-8 pass on it; an element with some is checked with
//! `std::str::from_utf8`. sonic-rs reads an all-ASCII object or array element with the ASCII
//! bytes that follow it in the buffer: it loads 32 and 64 bytes at a time and reads byte by byte
//! within that many of its input's end, which on a small element cut at its end is most of it.
//! The value ends where the scan found the element's end (JSON says where, alike for both); an
//! element it refuses is parsed again alone, so an error is the library's on the element. simd-json rewrites its input while parsing, so each element is copied
//! (with the padding simd-json wants) into a scratch buffer reused, with simd-json's tape and
//! buffers, from one element to the next.
//!
//! # Memory bound
//!
//! The buffer holds the unparsed rest of the current element plus one chunk, and grows only
//! when an element is longer than the space left. Its size never exceeds
//! `chunk_size + max_element_bytes + 128` bytes (the 128 keep the start of the 64-byte block
//! the scan is in); an element (or key, or field) longer than `max_element_bytes` is an
//! [`ErrorKind::TooLarge`] error as soon as that many of its bytes have arrived, never a larger
//! buffer. Besides it a stream keeps a 4 KiB queue of element spans, for simd-json scratch the
//! size of the largest element, and the kept [`Field`]s: at most [`Config::max_kept_bytes`]
//! (default 1 MiB), each charged its pointer, its text and [`FIELD_OVERHEAD`] bytes, plus as
//! much again at most for the spare slots of the list holding them; the field that would pass
//! the cap is [`ErrorKind::KeptTooLarge`]. Values outside the array that are not kept are
//! validated (the library builds each, at most `max_element_bytes` of text, as its DOM would)
//! and dropped, so with [`Config::keep`] naming what a type needs (the server and the stream
//! experiment keep `/DeviceId` only) the rest of the document costs nothing however many members
//! it has: a 98 MB body of 9,000,000 sibling members streams in under 256 KiB of heap. So
//! the whole bound is: chunk + largest value + 128 bytes of buffer, 4 KiB of spans, twice
//! `max_kept_bytes` for fields, and what the library allocates for the one value (element or
//! field) it is parsing. With 64 KiB chunks and a 1 KiB maximum, consuming 100,000 telemetry
//! readings into a [`TelemetryAggregate`] peaks at about 70 KiB of heap (asserted under
//! 256 KiB by this crate's tests, counted by the allocator; `tests/stream/outside_bound.rs` asserts
//! the bound for random documents of many siblings and nested decoys); materializing a `Vec`
//! costs the `Vec` and that much more.
//!
//! # Errors
//!
//! Every [`Error`] carries the absolute byte [`offset`](Error::offset) in the input where the
//! problem is, and the [`element`](Error::element) index when it is inside an element. The
//! kinds: [`Truncated`](ErrorKind::Truncated) (offset = where the input ended),
//! [`BadToken`](ErrorKind::BadToken) (with the library's message when a parser found it),
//! [`PointerNotFound`](ErrorKind::PointerNotFound), [`NotAnArray`](ErrorKind::NotAnArray),
//! [`WrongShape`](ErrorKind::WrongShape) (valid JSON the element type rejects),
//! [`DuplicateKey`](ErrorKind::DuplicateKey) (a key on the pointer's path, or a kept one,
//! repeated), [`InvalidUtf8`](ErrorKind::InvalidUtf8) (inside a string),
//! [`TooLarge`](ErrorKind::TooLarge), [`KeptTooLarge`](ErrorKind::KeptTooLarge),
//! [`TooDeep`](ErrorKind::TooDeep) (nested [`MAX_DEPTH`] deep, for sonic-rs, held to
//! serde_json's limit: see [`depth`]) and [`Io`](ErrorKind::Io). An error ends the stream. Positions inside an element are the
//! parser's own, so the same bad byte can be reported a few bytes apart by different libraries
//! (e.g. serde_json at a bad character, simd-json at the start of the value holding it).
//!
//! Layering: cli → experiments (`jsoncost`) → http → report/codecs/stream/stores → engine/shapes.
//! Depends on `jsoncost-shapes` only (the telemetry aggregate); the stream experiment (`jsoncost`)
//! and the http server's telemetry route use it.

#![deny(missing_docs)]

mod aggregate;
mod blocks;
#[cfg(feature = "async")]
mod byte_stream;
mod config;
pub mod depth;
mod error;
mod field;
mod framer;
mod library;
mod pointer;
mod reader;
mod skip;

pub use aggregate::{RunningStats, TelemetryAggregate};
#[cfg(feature = "async")]
pub use byte_stream::{ElementStream, bytes_stream};
pub use config::{Config, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_ELEMENT_BYTES, DEFAULT_MAX_KEPT_BYTES, FIELD_OVERHEAD, Keep};
pub use depth::{DepthGuard, MAX_DEPTH, TooDeep, guard_unbounded};
pub use error::{Error, ErrorKind, shorten_message};
pub use field::Field;
pub use library::{Library, UnknownLibrary};
pub use pointer::{Pointer, PointerError, array_index};
pub use reader::Elements;

use framer::Framer;

// The front ends' constructors, here where the framer and the front ends meet (the settings
// themselves are `config`'s, which the framer reads).
impl Config {
    /// The elements of type `T`, read from a sync reader (no need to wrap it in a `BufReader`:
    /// the stream reads whole chunks).
    pub fn reader<T, R: std::io::Read>(&self, reader: R) -> Elements<T, R> {
        Elements::new(Framer::new(self), reader)
    }

    /// The elements of type `T`, from an async stream of byte chunks.
    #[cfg(feature = "async")]
    pub fn stream<T, S>(&self, source: S) -> ElementStream<T, S> {
        ElementStream::new(Framer::new(self), source)
    }
}
