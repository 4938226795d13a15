//! The error model: every error names what was wrong, the absolute byte offset in the input
//! where it was found, and the index of the array element it was found in, if any.

use std::fmt;
use std::io;

use crate::library::Library;

/// An error while streaming a document. One pointer wide (the details are boxed), so that the
/// `Result<T, Error>` handed out per element costs no more to move than `T`.
pub struct Error(Box<Inner>);

struct Inner {
    offset: u64,
    element: Option<u64>,
    kind: ErrorKind,
}

/// The kinds of [`Error`].
#[derive(Debug, thiserror::Error)]
pub enum ErrorKind {
    /// The input ended before the document did.
    #[error("truncated document: the input ended inside {inside}")]
    Truncated {
        /// What the input ended inside (`a string`, `the array` ...).
        inside: String,
    },
    /// A byte sequence that is not JSON. Inside a value, `library` names the parser that
    /// found it and `message` is its own; between values the structural scan reports it.
    #[error("bad token{}: {message}", by(.library))]
    BadToken {
        /// The parser that found it, inside a value.
        library: Option<Library>,
        /// What is wrong.
        message: String,
    },
    /// The pointer names nothing in this document.
    #[error("pointer {pointer:?} not found: {reason}")]
    PointerNotFound {
        /// The pointer.
        pointer: String,
        /// Where it stops matching.
        reason: String,
    },
    /// The pointer names a value that is not an array.
    #[error("pointer {pointer:?} names {found}, not an array")]
    NotAnArray {
        /// The pointer.
        pointer: String,
        /// What it names instead (`an object` ...).
        found: &'static str,
    },
    /// Valid JSON that does not fit the element type (missing field, wrong type, bad date ...).
    /// The library's message quotes the offending value, so it is shortened when long.
    #[error("element of the wrong shape ({library}): {}", shorten_message(message))]
    WrongShape {
        /// The library that parsed the element.
        library: Library,
        /// Its message.
        message: String,
    },
    /// An object on the pointer's path repeats the key that leads to the array, or a key whose
    /// value is kept by [`Keep::Only`](crate::Keep::Only).
    #[error("duplicate key {key:?}: the object holding {pointer:?} has it twice")]
    DuplicateKey {
        /// The pointer to the value the key leads to.
        pointer: String,
        /// The repeated key.
        key: String,
    },
    /// A string holding bytes that are not UTF-8.
    #[error("invalid UTF-8 inside a string")]
    InvalidUtf8,
    /// An element (or another value the stream must hold whole) over the configured maximum.
    #[error("{what} is larger than the maximum of {max} bytes")]
    TooLarge {
        /// What was too large (`element 3` ...).
        what: String,
        /// The maximum, in bytes.
        max: usize,
    },
    /// The values kept outside the array ([`crate::Field`]s) would take more than
    /// [`Config::max_kept_bytes`](crate::Config::max_kept_bytes) with the one at `pointer`.
    #[error(
        "the values kept outside the array would exceed the maximum of {max} bytes with the value at {pointer:?} ({kept} kept before it)"
    )]
    KeptTooLarge {
        /// The value that did not fit.
        pointer: String,
        /// Bytes kept before it.
        kept: usize,
        /// The maximum.
        max: usize,
    },
    /// A value nested as deep as jsoncost's depth guard refuses ([`crate::depth::MAX_DEPTH`]),
    /// for a [guarded](Library::depth_guarded) library (sonic-rs); the library never saw it.
    #[error(
        "{library} would accept nesting past serde_json's limit: rejected by jsoncost's depth guard at {limit} (nesting reaches {limit} levels)"
    )]
    TooDeep {
        /// The library the value was meant for.
        library: Library,
        /// The nesting refused.
        limit: usize,
    },
    /// The byte source failed (its message is part of this one, so it is not also a `source`).
    #[error("I/O error reading the input: {0}")]
    Io(io::Error),
}

/// Longest message shown whole; a longer one (a library quoting a megabyte string it refused)
/// keeps its start and its end, which say what was wrong and what was expected.
const MESSAGE_MAX_CHARS: usize = 300;

/// `message`, or its first 200 and last 80 characters around an ellipsis, with its length.
pub fn shorten_message(message: &str) -> std::borrow::Cow<'_, str> {
    let chars = message.chars().count();
    if chars <= MESSAGE_MAX_CHARS {
        return message.into();
    }
    let head: String = message.chars().take(200).collect();
    let tail: String = message.chars().skip(chars - 80).collect();
    format!("{head}…{tail} (a message of {} bytes, shortened)", message.len()).into()
}

fn by(library: &Option<Library>) -> String {
    library.map_or_else(String::new, |l| format!(" ({l})"))
}

impl Error {
    #[cold]
    pub(crate) fn new(offset: u64, element: Option<u64>, kind: ErrorKind) -> Self {
        Error(Box::new(Inner { offset, element, kind }))
    }

    /// Absolute byte offset in the input (0 = the document's first byte).
    pub fn offset(&self) -> u64 {
        self.0.offset
    }

    /// Index of the array element the error is in, when it is in one.
    pub fn element(&self) -> Option<u64> {
        self.0.element
    }

    /// What was wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.0.kind
    }

    /// The kind, owned.
    pub fn into_kind(self) -> ErrorKind {
        self.0.kind
    }

    /// True for errors caused by the input's content (everything but I/O).
    pub fn is_bad_input(&self) -> bool {
        !matches!(self.0.kind, ErrorKind::Io(_))
    }
}

// The kind's message is part of this error's, so it is not also a `source`.
impl std::error::Error for Error {}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.0.kind, self.0.offset)?;
        match self.0.element {
            Some(i) => write!(f, " (element {i})"),
            None => Ok(()),
        }
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("offset", &self.0.offset)
            .field("element", &self.0.element)
            .field("kind", &self.0.kind)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::shorten_message;

    #[test]
    fn long_messages_keep_their_start_and_end_and_say_their_length() {
        assert_eq!(shorten_message("expected f64"), "expected f64");
        let long = format!("invalid type: string \"{}\", expected f64", "é".repeat(100_000));
        let short = shorten_message(&long);
        assert!(short.starts_with("invalid type: string \"éé"), "{short}");
        assert!(
            short.ends_with(&format!("éé\", expected f64 (a message of {} bytes, shortened)", long.len())),
            "{short}"
        );
        assert_eq!(short.chars().filter(|c| *c == '…').count(), 1);
        assert!(short.chars().count() < 340, "{}", short.chars().count());
    }
}
