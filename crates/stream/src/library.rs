//! The parsers an element can be handed to, and how their errors are read back.

use std::fmt;
use std::str::FromStr;

use serde::de::DeserializeOwned;

/// The JSON library that parses each element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Library {
    /// serde_json's `from_slice`.
    SerdeJson,
    /// sonic-rs's `from_slice`.
    SonicRs,
    /// simd-json's serde `from_slice`, over a copy it may modify.
    SimdJson,
}

impl Library {
    /// Every library, in the order tables list them.
    pub const ALL: [Library; 3] = [Library::SerdeJson, Library::SonicRs, Library::SimdJson];

    /// The name strategies use: `serde_json`, `sonic-rs`, `simd-json`.
    pub fn as_str(self) -> &'static str {
        match self {
            Library::SerdeJson => "serde_json",
            Library::SonicRs => "sonic-rs",
            Library::SimdJson => "simd-json",
        }
    }
}

impl fmt::Display for Library {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A library name that is not one of [`Library::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown JSON library {0:?}; valid libraries: serde_json, sonic-rs, simd-json")]
pub struct UnknownLibrary(pub String);

impl FromStr for Library {
    type Err = UnknownLibrary;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "serde_json" => Ok(Library::SerdeJson),
            "sonic-rs" => Ok(Library::SonicRs),
            "simd-json" => Ok(Library::SimdJson),
            other => Err(UnknownLibrary(other.to_string())),
        }
    }
}

/// Whether a library error is about the JSON text or about the type it was read into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Category {
    Syntax,
    Data,
}

/// A library's error, with its position made a byte offset into the slice it was given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub offset: usize,
    pub category: Category,
    pub message: String,
    /// The library says the input is not UTF-8 (its position for that may be vague).
    pub utf8: bool,
}

/// Parses elements with one library, keeping what can be reused between elements.
pub(crate) struct ElementParser {
    library: Library,
    simd: Option<SimdScratch>,
}

/// What simd-json reuses from one element to the next: its buffers (structural indexes, string
/// buffer), its tape, and a padded, mutable copy of the input. simd-json rewrites its input
/// (it unescapes strings in place) and the stream's buffer must stay intact (the structural
/// scan may classify a block again when it is completed), so each element is copied once,
/// with the padding simd-json needs, instead of simd-json copying it into a padded buffer
/// itself. Without the reuse every element would allocate a tape.
struct SimdScratch {
    buffers: simd_json::Buffers,
    tape: simd_json::Tape<'static>,
    input: Vec<u8>,
}

impl SimdScratch {
    fn new() -> Self {
        SimdScratch {
            buffers: simd_json::Buffers::default(),
            tape: simd_json::Tape(Vec::new()),
            input: Vec::new(),
        }
    }

    fn parse<T: DeserializeOwned>(&mut self, slice: &[u8]) -> simd_json::Result<T> {
        let len = slice.len();
        self.input.clear();
        self.input.extend_from_slice(slice);
        self.input.resize(len + simd_json::INPUT_PADDING, b' ');
        let mut tape = std::mem::replace(&mut self.tape, simd_json::Tape(Vec::new())).reset();
        let parsed = match simd_json::fill_tape_padded(&mut self.input, len, &mut self.buffers, &mut tape) {
            Ok(()) => {
                let mut de = simd_json::Deserializer::from_tape(tape);
                let value = T::deserialize(&mut de);
                tape = de.into_tape();
                value
            }
            Err(e) => Err(e),
        };
        self.tape = tape.reset();
        parsed
    }
}

impl ElementParser {
    pub fn new(library: Library) -> Self {
        let simd = (library == Library::SimdJson).then(SimdScratch::new);
        ElementParser { library, simd }
    }

    pub fn library(&self) -> Library {
        self.library
    }

    /// Parses one complete JSON value; `ascii` says the structural scan saw no byte >= 0x80 in it.
    #[inline(always)]
    pub fn parse<T: DeserializeOwned>(&mut self, slice: &[u8], ascii: bool) -> Result<T, ParseError> {
        match self.library {
            Library::SerdeJson => serde_json::from_slice(slice).map_err(|e| serde_json_error(&e, slice)),
            // sonic-rs's `from_slice` runs a UTF-8 validation pass over its input first, which per
            // element costs more than the parse of a small one; the scan has already proven an
            // all-ASCII element valid UTF-8, so that pass is skipped for it.
            Library::SonicRs if ascii => {
                debug_assert!(slice.is_ascii());
                // SAFETY: the slice is all ASCII, hence valid UTF-8, which is all this requires.
                unsafe { sonic_rs::from_slice_unchecked(slice) }.map_err(|e| sonic_rs_error(&e))
            }
            Library::SonicRs => sonic_rs::from_slice(slice).map_err(|e| sonic_rs_error(&e)),
            Library::SimdJson => self
                .simd
                .get_or_insert_with(SimdScratch::new)
                .parse(slice)
                .map_err(|e| simd_json_error(&e)),
        }
    }
}

impl ElementParser {
    /// sonic-rs on an all-ASCII object or array element, read from `window`: the element
    /// followed by the ASCII bytes after it that have arrived (the next elements). sonic-rs
    /// loads 32 and 64 bytes at a time and, within that many of its input's end, reads byte by
    /// byte, which on a 72-byte telemetry reading cut at its end is most of it (counted: 33%
    /// more instructions per reading than the same readings parsed from the whole document;
    /// with the bytes after it, 6% more, the structural scan's). A value that parses ends where
    /// JSON says, which is where the structural scan found the element's end, so no byte after
    /// it is read as part of it (what follows is the framer's to check). `None` when it fails:
    /// the caller parses the element alone, so errors are the library's on the element.
    #[inline(always)]
    pub fn parse_sonic_window<T: DeserializeOwned>(&mut self, window: &[u8]) -> Option<T> {
        debug_assert!(self.library == Library::SonicRs && window.is_ascii());
        // SAFETY: all ASCII, hence valid UTF-8 (from_str then skips sonic-rs's UTF-8 pass).
        let text = unsafe { std::str::from_utf8_unchecked(window) };
        sonic_rs::Deserializer::from_str(text).deserialize::<T>().ok()
    }

    /// Checks that a value is valid JSON as this library's `from_slice` sees it.
    pub fn validate(&mut self, slice: &[u8], ascii: bool) -> Result<(), ParseError> {
        match self.library {
            // Skipping an ignored value is laxer than building it (serde_json accepts a number
            // out of f64's range, sonic-rs a bad string escape), so the value is built, as the
            // library's `from_slice` into a DOM would build it.
            Library::SerdeJson => self.parse::<serde_json::Value>(slice, ascii).map(drop),
            Library::SonicRs => self.parse::<sonic_rs::Value>(slice, ascii).map(drop),
            Library::SimdJson => self.parse::<serde::de::IgnoredAny>(slice, ascii).map(drop),
        }
    }
}

/// serde_json reports a 1-based line and a column counted in bytes from the line start, where
/// column `c` names byte `c - 1` (the one it stopped on).
#[cold]
fn serde_json_error(e: &serde_json::Error, slice: &[u8]) -> ParseError {
    let line_start = if e.line() <= 1 {
        0
    } else {
        slice
            .iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .nth(e.line() - 2)
            .map_or(slice.len(), |(i, _)| i + 1)
    };
    let offset = (line_start + e.column().saturating_sub(1)).min(slice.len());
    let category = match e.classify() {
        serde_json::error::Category::Data => Category::Data,
        _ => Category::Syntax,
    };
    // The line/column suffix is relative to the element, so it would mislead next to the
    // absolute offset the stream reports; serde_json has no accessor for the bare message.
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text).to_string();
    let utf8 = message == "invalid unicode code point";
    ParseError {
        offset,
        category,
        message,
        utf8,
    }
}

#[cold]
fn sonic_rs_error(e: &sonic_rs::Error) -> ParseError {
    let category = match e.classify() {
        sonic_rs::error::Category::TypeUnmatched => Category::Data,
        _ => Category::Syntax,
    };
    // Display appends " at line L column C" and a drawn excerpt; keep the message only.
    let text = e.to_string();
    let message = text.split(" at line ").next().unwrap_or(&text).to_string();
    let utf8 = message == "Invalid UTF-8 characters in json";
    ParseError {
        offset: e.offset(),
        category,
        message,
        utf8,
    }
}

#[cold]
fn simd_json_error(e: &simd_json::Error) -> ParseError {
    let category = if e.is_data() { Category::Data } else { Category::Syntax };
    let message = match e.error() {
        simd_json::ErrorType::Serde(m) => m.clone(),
        other => format!("{other:?}"),
    };
    let utf8 = matches!(e.error(), simd_json::ErrorType::InvalidUtf8);
    ParseError {
        offset: e.index(),
        category,
        message,
        utf8,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for lib in Library::ALL {
            assert_eq!(lib.as_str().parse::<Library>().unwrap(), lib);
        }
        assert_eq!(
            "serde".parse::<Library>().unwrap_err().to_string(),
            "unknown JSON library \"serde\"; valid libraries: serde_json, sonic-rs, simd-json"
        );
    }

    #[test]
    fn serde_json_positions_become_byte_offsets() {
        let mut p = ElementParser::new(Library::SerdeJson);
        let e = p.parse::<serde_json::Value>(br#"{"a":x}"#, true).unwrap_err();
        assert_eq!((e.offset, e.category, e.message.as_str()), (5, Category::Syntax, "expected value"));
        let e = p.parse::<serde_json::Value>(b"{\n \"a\":\n  tru}", true).unwrap_err();
        assert_eq!((e.offset, e.message.as_str()), (13, "expected ident"));
    }

    #[test]
    fn each_library_reports_where_it_stopped() {
        for lib in Library::ALL {
            let mut p = ElementParser::new(lib);
            let e = p.parse::<serde_json::Value>(br#"{"a":1,"b":?}"#, true).unwrap_err();
            assert_eq!((e.offset, e.category), (11, Category::Syntax), "{lib}: {e:?}");
        }
    }

    #[test]
    fn type_mismatches_are_data_errors() {
        for lib in Library::ALL {
            let mut p = ElementParser::new(lib);
            let e = p.parse::<Vec<u32>>(br#"[1,"x"]"#, true).unwrap_err();
            assert_eq!(e.category, Category::Data, "{lib}: {e:?}");
        }
    }
}
