//! Which problem of a value to report when the parser and the UTF-8 check both find one.

use crate::error::ErrorKind;
use crate::library::{Category, Library, ParseError};
use crate::skip::in_string_at;

/// Where a complete value is not UTF-8: the offset and whether it is inside a string.
pub(super) fn utf8_problem(value: &[u8]) -> Option<(usize, bool)> {
    std::str::from_utf8(value)
        .err()
        .map(|e| (e.valid_up_to(), in_string_at(value, e.valid_up_to())))
}

pub(super) enum Problem {
    Utf8,
    Parse(ParseError),
}

impl Problem {
    pub(super) fn into_error_kind(self, library: Library) -> ErrorKind {
        match self {
            Problem::Utf8 => ErrorKind::InvalidUtf8,
            Problem::Parse(ParseError {
                category: Category::Data,
                message,
                ..
            }) => ErrorKind::WrongShape { library, message },
            Problem::Parse(ParseError { message, .. }) => ErrorKind::BadToken {
                library: Some(library),
                message,
            },
        }
    }
}

/// What went wrong with a value: the parser's error (with where the value stops being UTF-8,
/// if it does), or only that it is not UTF-8 although the parser accepted it (skipping an
/// ignored field).
pub(super) enum Failure {
    Parser(ParseError, Option<(usize, bool)>),
    Utf8Only(usize),
}

impl Failure {
    /// The first problem and its offset in the value: invalid UTF-8 wins over a parser error
    /// about UTF-8 (whose position may be vague: simd-json gives 0) or reported at or after the
    /// bad byte; in a string it is invalid UTF-8, between tokens a bad token at the byte.
    pub(super) fn first_problem(self) -> (usize, Problem) {
        match self {
            Failure::Utf8Only(at) => (at, Problem::Utf8),
            Failure::Parser(e, Some((at, in_string))) if e.utf8 || at <= e.offset => {
                if in_string {
                    (at, Problem::Utf8)
                } else {
                    (at, Problem::Parse(e))
                }
            }
            Failure::Parser(e, _) => (e.offset, Problem::Parse(e)),
        }
    }
}

pub(super) fn resolve<T>(parsed: Result<T, ParseError>, utf8: Option<(usize, bool)>) -> Result<T, (usize, Problem)> {
    match (parsed, utf8) {
        (Ok(v), None) => Ok(v),
        (Ok(_), Some((at, _))) => Err(Failure::Utf8Only(at).first_problem()),
        (Err(e), utf8) => Err(Failure::Parser(e, utf8).first_problem()),
    }
}
