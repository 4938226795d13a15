//! The exact reference parser: JSON text → `serde_json::Value`, with every number converted
//! correctly rounded and every string decoded exactly. The correctness gate checks each
//! strategy (the baseline's too) against its output.
//!
//! Written by hand on purpose: the reference must not depend on any library under test nor on
//! cargo feature unification. serde_json parses correctly rounded only with its
//! `float_roundtrip` feature, and turning that on here would change the serde_json being
//! measured (features are unified across the build); sonic-rs and simd-json are themselves
//! under test. Numbers therefore go through std's `str::parse` (`f64` is correctly rounded,
//! `u64`/`i64` exact), and the value model is `serde_json::Value` only as a container.
//!
//! What it decides where JSON leaves room:
//! - An integer that fits `u64` (or, negative, `i64`) is kept exactly; a larger one becomes the
//!   correctly rounded `f64` (as every library here reads it when it reads it at all).
//! - `-0` (and `-0.0`, `-0e3`, `-1e-400`) is the float `-0.0`: the sign of zero is kept, and
//!   `Value` has no integer `-0`.
//! - A number beyond `f64`'s range (`1e400`) is rejected: `Value` cannot hold an infinity, and
//!   serde_json's own parser rejects it too ("number out of range").
//! - A repeated object key: the last one wins, as in `serde_json::Value` (in the streamed mode
//!   a repeat of a key on the streamed array's path is an error instead, see [`parse_streamed`]).
//! - Invalid UTF-8, unescaped control characters, lone surrogates (`"\ud800"`), and nesting
//!   deeper than [`MAX_DEPTH`] are rejected with their byte offset.

use std::io::Read;

use serde_json::{Map, Number, Value};

/// Containers nested deeper than this are rejected (serde_json's own parser stops at 128).
pub const MAX_DEPTH: usize = 512;

/// Why the reference could not read a document: what, and the byte offset where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} at byte {offset}")]
pub struct ParseError {
    /// The byte offset in the document where the error was met.
    pub offset: u64,
    /// What is wrong there.
    pub message: String,
}

/// Parses one whole JSON document (whitespace around it allowed, nothing else).
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    let mut p = Parser {
        src: Slice { bytes, pos: 0 },
        path: Vec::new(),
        streamed: false,
        kept: None,
    };
    let mut none = |_: u64, _: Value| -> Result<(), ()> { Ok(()) };
    let v = p.document(&mut none).map_err(|e| match e {
        ParseStop::Reference(e) => e,
        ParseStop::Element(()) => unreachable!("no elements are streamed"),
    })?;
    Ok(v)
}

/// What ended a streamed parse: the reference's own error, or the element callback's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParseStop<E> {
    /// The document is not JSON the reference reads.
    Reference(ParseError),
    /// The element callback stopped the parse with its own error.
    Element(E),
}

/// Which values outside the streamed array [`parse_streamed`] builds into the rest it returns.
/// The others are read exactly as built ones are (the same grammar, numbers, strings, depth and
/// errors) and dropped as they are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside<'a> {
    /// Every value: the rest is the whole document with the array left empty.
    All,
    /// Only the members at these pointers (members of the objects, or elements of the arrays,
    /// on the array's path, e.g. `/DeviceId`) besides the path itself; `&[]` keeps the path
    /// alone. An array on the path keeps only its element on the path and the kept ones.
    Members(&'a [String]),
}

/// Parses a document from `reader` without holding the array at `pointer` (RFC 6901, e.g.
/// `/Readings`; `""` for a top-level array): each of its elements is parsed on its own and
/// handed to `on_element` with its index. Returns the rest of the document with that array left
/// empty, holding what `outside` keeps. A repeat of a key on the pointer's path is an error (the
/// document would name two arrays).
///
/// Memory: a 64 KiB read buffer, one element, the values `outside` keeps, and for a value not
/// kept at most 4 KiB of a string or about a kilobyte of a number however many or large they
/// are (a number of any length converts exactly from its first 800 significant digits); keys
/// on the path longer than its token and the kept keys are read the same way.
pub fn parse_streamed<R: Read, E>(
    reader: R,
    pointer: &str,
    outside: Outside<'_>,
    mut on_element: impl FnMut(u64, Value) -> Result<(), E>,
) -> Result<Value, ParseStop<E>> {
    let invalid = |message| ParseStop::Reference(ParseError { offset: 0, message });
    let path = tokens(pointer).map_err(invalid)?;
    let kept = match outside {
        Outside::All => None,
        Outside::Members(pointers) => {
            // For the container on the path after `n` tokens, the keys of its kept members.
            let mut kept = vec![Vec::new(); path.len() + 1];
            for p in pointers {
                let t = tokens(p).map_err(invalid)?;
                if let Some((last, parent)) = t.split_last()
                    && path.starts_with(parent)
                {
                    kept[parent.len()].push(last.clone());
                }
            }
            Some(kept)
        }
    };
    let mut p = Parser {
        src: Buffered {
            reader,
            buf: vec![0; 64 * 1024],
            at: 0,
            len: 0,
            base: 0,
        },
        path,
        streamed: true,
        kept,
    };
    p.document(&mut on_element)
}

/// The unescaped tokens of a JSON pointer.
fn tokens(pointer: &str) -> Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("invalid JSON pointer {pointer:?}: it must be empty or start with '/'"));
    };
    Ok(rest.split('/').map(crate::pointer::unescape).collect())
}

/// A byte source: one byte of lookahead and the offset of that byte.
trait Source {
    fn peek(&mut self) -> Result<Option<u8>, ParseError>;
    fn bump(&mut self);
    fn offset(&self) -> u64;
}

struct Slice<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Source for Slice<'_> {
    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, ParseError> {
        Ok(self.bytes.get(self.pos).copied())
    }
    #[inline]
    fn bump(&mut self) {
        self.pos += 1;
    }
    fn offset(&self) -> u64 {
        self.pos as u64
    }
}

struct Buffered<R> {
    reader: R,
    buf: Vec<u8>,
    at: usize,
    len: usize,
    /// Offset of `buf[0]` in the input.
    base: u64,
}

impl<R: Read> Source for Buffered<R> {
    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, ParseError> {
        if self.at == self.len {
            self.base += self.len as u64;
            self.at = 0;
            self.len = loop {
                match self.reader.read(&mut self.buf) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return Err(ParseError {
                            offset: self.base,
                            message: format!("I/O error reading the input: {e}"),
                        });
                    }
                }
            };
            if self.len == 0 {
                return Ok(None);
            }
        }
        Ok(Some(self.buf[self.at]))
    }
    #[inline]
    fn bump(&mut self) {
        self.at += 1;
    }
    fn offset(&self) -> u64 {
        self.base + self.at as u64
    }
}

struct Parser<S> {
    src: S,
    /// The streamed array's pointer tokens.
    path: Vec<String>,
    /// False for [`parse`]: nothing is streamed.
    streamed: bool,
    /// Which values off the path are built: `None` all of them; else, for the container on the
    /// path after `n` tokens, the keys (or indices) of its members that are.
    kept: Option<Vec<Vec<String>>>,
}

/// Where a value stands: on the streamed array's path after `n` tokens, or off it, built into
/// the result or only read (validated exactly as a built one, then dropped).
#[derive(Clone, Copy)]
enum Place {
    Path(usize),
    Built,
    Skipped,
}

/// Decoded bytes of a string that is not kept, validated and dropped a window at a time.
const STRING_WINDOW: usize = 4096;

/// A number's text longer than this is read in compact form (see [`NumberText`]).
const MAX_NUMBER_TEXT: usize = 1024;

/// Significant digits a long number keeps: every midpoint between two adjacent `f64`s has at
/// most 767, so digits past 800 can only break a tie that cannot occur, and whether any of them
/// is not zero (`sticky`) is all that is left of them.
const SIGNIFICANT: usize = 800;

/// A number as it is read: its text in full up to [`MAX_NUMBER_TEXT`] bytes, and beside it the
/// compact form a correctly rounded `f64` depends on whatever the length: the first
/// [`SIGNIFICANT`] significant digits, whether a later one is not zero, and the decimal
/// exponent. So a number of a million digits costs a few hundred bytes and converts to the
/// same `f64` as its full text would.
#[derive(Default)]
struct NumberText {
    text: String,
    long: bool,
    digits: String,
    sticky: bool,
    /// The value is `digits × 10^(scale + exponent)`.
    scale: i64,
    exponent: i64,
    negative_exponent: bool,
}

impl NumberText {
    fn push(&mut self, b: u8) {
        if self.text.len() < MAX_NUMBER_TEXT {
            self.text.push(b as char);
        } else {
            self.long = true;
        }
    }

    fn integer_digit(&mut self, d: u8) {
        self.push(d);
        if self.digits.is_empty() && d == b'0' {
            return;
        }
        if self.digits.len() < SIGNIFICANT {
            self.digits.push(d as char);
        } else {
            self.scale += 1;
            self.sticky |= d != b'0';
        }
    }

    fn fraction_digit(&mut self, d: u8) {
        self.push(d);
        if self.digits.is_empty() && d == b'0' {
            self.scale -= 1;
        } else if self.digits.len() < SIGNIFICANT {
            self.digits.push(d as char);
            self.scale -= 1;
        } else {
            self.sticky |= d != b'0';
        }
    }

    fn exponent_digit(&mut self, d: u8) {
        self.push(d);
        self.exponent = self.exponent.saturating_mul(10).saturating_add(i64::from(d - b'0'));
    }

    /// The text to convert: the full one, or the compact form's (`digits`, a `1` standing for
    /// the dropped digits when one of them is not zero, and the exponent, clamped where the
    /// value is far past `f64`'s range either way).
    fn to_convert(&self, negative: bool) -> String {
        if !self.long {
            return self.text.clone();
        }
        let sign = if negative { "-" } else { "" };
        if self.digits.is_empty() {
            return format!("{sign}0");
        }
        let sticky = if self.sticky { "1" } else { "" };
        let exponent = if self.negative_exponent { -self.exponent } else { self.exponent };
        let e = self
            .scale
            .saturating_add(exponent)
            .saturating_sub(i64::from(self.sticky))
            .clamp(-1_000_000, 1_000_000);
        format!("{sign}{}{sticky}e{e}", self.digits)
    }

    /// The text for a message: whole when short, else its start and length.
    fn shown(&self) -> String {
        if self.long {
            format!("{}… (over {MAX_NUMBER_TEXT} bytes)", &self.text[..40])
        } else {
            self.text.clone()
        }
    }
}

impl<S: Source> Parser<S> {
    fn error<E>(&self, offset: u64, message: impl Into<String>) -> ParseStop<E> {
        ParseStop::Reference(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn peek<E>(&mut self) -> Result<Option<u8>, ParseStop<E>> {
        self.src.peek().map_err(ParseStop::Reference)
    }

    fn skip_ws<E>(&mut self) -> Result<Option<u8>, ParseStop<E>> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.src.bump(),
                other => return Ok(other),
            }
        }
    }

    fn document<E>(&mut self, on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>) -> Result<Value, ParseStop<E>> {
        let place = if self.streamed { Place::Path(0) } else { Place::Built };
        let v = self.value(0, place, on_element)?;
        match self.skip_ws()? {
            None => Ok(v),
            Some(b) => Err(self.error(self.src.offset(), format!("trailing characters after the document ({})", show(b)))),
        }
    }

    /// The value next; `Value::Null` for a skipped one (read, not built).
    fn value<E>(
        &mut self,
        depth: usize,
        place: Place,
        on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>,
    ) -> Result<Value, ParseStop<E>> {
        let Some(b) = self.skip_ws()? else {
            return Err(self.error(self.src.offset(), "the input ended where a value was expected"));
        };
        let start = self.src.offset();
        if let Place::Path(n) = place
            && b != b'{'
            && b != b'['
        {
            return Err(if n < self.path.len() {
                self.error(start, format!("pointer {} not found: a scalar has no members", self.pointer(n + 1)))
            } else {
                self.error(start, format!("pointer {} names a scalar, not an array", self.pointer(n)))
            });
        }
        let built = !matches!(place, Place::Skipped);
        let v = match b {
            b'{' | b'[' if depth >= MAX_DEPTH => return Err(self.error(start, format!("nesting deeper than {MAX_DEPTH} levels"))),
            b'{' => return self.object(depth + 1, place, on_element),
            b'[' => return self.array(depth + 1, place, on_element),
            b'"' => self.string(if built { usize::MAX } else { 0 })?.map_or(Value::Null, Value::String),
            b't' => self.literal(b"true", Value::Bool(true))?,
            b'f' => self.literal(b"false", Value::Bool(false))?,
            b'n' => self.literal(b"null", Value::Null)?,
            b'-' | b'0'..=b'9' => Value::Number(self.number()?),
            other => return Err(self.error(start, format!("expected a value, found {}", show(other)))),
        };
        Ok(if built { v } else { Value::Null })
    }

    /// The first `n` tokens of the streamed pointer, quoted.
    fn pointer(&self, n: usize) -> String {
        let p: String = self.path[..n.min(self.path.len())]
            .iter()
            .map(|t| format!("/{}", crate::pointer::escape(t)))
            .collect();
        format!("{p:?}")
    }

    /// Where a member (`key`, or an array's index) of the container at `place` stands, `on` it
    /// being the one on the path.
    fn child(&self, place: Place, key: Option<&str>, on: bool) -> Place {
        match place {
            Place::Path(n) if on => Place::Path(n + 1),
            Place::Path(n) => match (&self.kept, key) {
                (None, _) => Place::Built,
                (Some(kept), Some(key)) if kept.get(n).is_some_and(|k| k.iter().any(|k| k == key)) => Place::Built,
                _ => Place::Skipped,
            },
            other => other,
        }
    }

    /// The longest key of the container on the path after `n` tokens that can matter: its
    /// path token or a kept key (longer keys are read and dropped).
    fn key_limit(&self, n: usize) -> usize {
        let token = self.path.get(n).map_or(0, String::len);
        match &self.kept {
            None => usize::MAX,
            Some(kept) => kept.get(n).into_iter().flatten().map(String::len).fold(token, usize::max),
        }
    }

    fn literal<E>(&mut self, word: &[u8], v: Value) -> Result<Value, ParseStop<E>> {
        let start = self.src.offset();
        for &w in word {
            if self.peek()? != Some(w) {
                return Err(self.error(start, "invalid literal (expected true, false or null)"));
            }
            self.src.bump();
        }
        Ok(v)
    }

    fn object<E>(
        &mut self,
        depth: usize,
        place: Place,
        on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>,
    ) -> Result<Value, ParseStop<E>> {
        let open = self.src.offset();
        self.src.bump();
        let token = match place {
            Place::Path(n) if n < self.path.len() => Some(n),
            Place::Path(_) => {
                return Err(self.error(
                    open,
                    format!("pointer {} names an object, not an array", self.pointer(self.path.len())),
                ));
            }
            Place::Built | Place::Skipped => None,
        };
        let key_limit = match place {
            Place::Path(n) => self.key_limit(n),
            Place::Built => usize::MAX,
            Place::Skipped => 0,
        };
        let mut map = Map::new();
        let mut found = false;
        let mut first = true;
        loop {
            let at = self.src.offset();
            match self.skip_ws()? {
                Some(b'}') if first => {
                    self.src.bump();
                    break;
                }
                Some(b'"') => {}
                Some(b) => {
                    let wanted = if first { "'\"' or '}'" } else { "'\"' (a key)" };
                    return Err(self.error(self.src.offset(), format!("expected {wanted}, found {}", show(b))));
                }
                None => return Err(self.error(at, "the input ended inside an object")),
            }
            let key_at = self.src.offset();
            let key = self.string(key_limit)?;
            match self.skip_ws()? {
                Some(b':') => self.src.bump(),
                Some(b) => return Err(self.error(self.src.offset(), format!("expected ':', found {}", show(b)))),
                None => return Err(self.error(self.src.offset(), "the input ended inside an object")),
            }
            let on = match (token, &key) {
                (Some(n), Some(key)) if *key == self.path[n] => {
                    if found {
                        return Err(self.error(
                            key_at,
                            format!("duplicate key {key:?} on the path of pointer {}", self.pointer(n + 1)),
                        ));
                    }
                    found = true;
                    true
                }
                _ => false,
            };
            let child = self.child(place, key.as_deref(), on);
            let v = self.value(depth, child, on_element)?;
            if let (Some(key), false) = (key, matches!(child, Place::Skipped)) {
                map.insert(key, v);
            }
            first = false;
            match self.skip_ws()? {
                Some(b',') => self.src.bump(),
                Some(b'}') => {
                    self.src.bump();
                    break;
                }
                Some(b) => return Err(self.error(self.src.offset(), format!("expected ',' or '}}', found {}", show(b)))),
                None => return Err(self.error(self.src.offset(), "the input ended inside an object")),
            }
        }
        if let Some(n) = token
            && !found
        {
            return Err(self.error(
                open,
                format!("pointer {} not found: no member {:?}", self.pointer(n + 1), self.path[n]),
            ));
        }
        Ok(Value::Object(map))
    }

    fn array<E>(
        &mut self,
        depth: usize,
        place: Place,
        on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>,
    ) -> Result<Value, ParseStop<E>> {
        let open = self.src.offset();
        self.src.bump();
        // The streamed array itself, an array on its path (with the index to follow), or neither.
        let (streamed, token) = match place {
            Place::Path(n) if n == self.path.len() => (true, None),
            Place::Path(n) => match array_index(&self.path[n]) {
                Some(i) => (false, Some((n, i))),
                None => {
                    return Err(self.error(
                        open,
                        format!(
                            "pointer {} not found: {:?} is not an array index",
                            self.pointer(n + 1),
                            self.path[n]
                        ),
                    ));
                }
            },
            Place::Built | Place::Skipped => (false, None),
        };
        let mut items = Vec::new();
        let mut i: u64 = 0;
        loop {
            let at = self.src.offset();
            match self.skip_ws()? {
                Some(b']') if i == 0 => {
                    self.src.bump();
                    break;
                }
                Some(_) => {}
                None => return Err(self.error(at, "the input ended inside an array")),
            }
            let child = if streamed {
                Place::Built
            } else {
                let on = token.is_some_and(|(_, want)| want == i);
                let key = matches!(place, Place::Path(_)).then(|| i.to_string());
                self.child(place, key.as_deref(), on)
            };
            let v = self.value(depth, child, on_element)?;
            if streamed {
                on_element(i, v).map_err(ParseStop::Element)?;
            } else if !matches!(child, Place::Skipped) {
                items.push(v);
            }
            i += 1;
            match self.skip_ws()? {
                Some(b',') => self.src.bump(),
                Some(b']') => {
                    self.src.bump();
                    break;
                }
                Some(b) => return Err(self.error(self.src.offset(), format!("expected ',' or ']', found {}", show(b)))),
                None => return Err(self.error(self.src.offset(), "the input ended inside an array")),
            }
        }
        if let Some((n, want)) = token
            && want >= i
        {
            return Err(self.error(
                open,
                format!("pointer {} not found: the array has {i} elements", self.pointer(n + 1)),
            ));
        }
        Ok(Value::Array(items))
    }

    /// A string, the opening quote next; decoded exactly (escapes, surrogate pairs, UTF-8).
    /// Kept when it decodes to at most `keep` bytes; a longer one is validated all the same,
    /// [`STRING_WINDOW`] bytes at a time, and `None`.
    fn string<E>(&mut self, keep: usize) -> Result<Option<String>, ParseStop<E>> {
        let open = self.src.offset();
        self.src.bump();
        let mut out: Vec<u8> = Vec::new();
        // Decoded bytes validated and dropped before `out`.
        let mut dropped = 0;
        loop {
            let at = self.src.offset();
            let Some(b) = self.peek()? else {
                return Err(self.error(at, "the input ended inside a string"));
            };
            self.src.bump();
            match b {
                b'"' => break,
                b'\\' => {
                    let Some(e) = self.peek()? else {
                        return Err(self.error(at, "the input ended inside a string"));
                    };
                    self.src.bump();
                    match e {
                        b'"' => out.push(b'"'),
                        b'\\' => out.push(b'\\'),
                        b'/' => out.push(b'/'),
                        b'b' => out.push(0x08),
                        b'f' => out.push(0x0c),
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'u' => {
                            let c = self.unicode_escape(at)?;
                            out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                        }
                        other => return Err(self.error(at, format!("invalid escape \\{}", show(other)))),
                    }
                }
                0x00..=0x1f => return Err(self.error(at, format!("unescaped control character {} in a string", show(b)))),
                _ => out.push(b),
            }
            if dropped + out.len() > keep && out.len() >= STRING_WINDOW {
                // Not kept: what is complete is checked and dropped (a character cut at the
                // window's end waits for its next bytes).
                let valid = match std::str::from_utf8(&out) {
                    Ok(_) => out.len(),
                    Err(e) if e.error_len().is_none() => e.valid_up_to(),
                    Err(e) => return Err(self.utf8_error(open, &e, dropped)),
                };
                out.drain(..valid);
                dropped += valid;
            }
        }
        // Named by the string's start: escapes make offsets in the decoded text differ from the input's.
        if let Err(e) = std::str::from_utf8(&out) {
            return Err(self.utf8_error(open, &e, dropped));
        }
        Ok((dropped + out.len() <= keep).then(|| String::from_utf8(out).expect("checked above")))
    }

    /// Invalid UTF-8 in the string that starts at `open`, `dropped` decoded bytes before `e`'s.
    fn utf8_error<E>(&self, open: u64, e: &std::str::Utf8Error, dropped: usize) -> ParseStop<E> {
        let at = dropped + e.valid_up_to();
        // Worded as std's `Utf8Error`.
        let what = match e.error_len() {
            Some(n) => format!("invalid utf-8 sequence of {n} bytes from index {at}"),
            None => format!("incomplete utf-8 byte sequence from index {at}"),
        };
        self.error(open, format!("invalid UTF-8 ({what}) in the string that starts"))
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\uXXXX` low one after it.
    fn unicode_escape<E>(&mut self, at: u64) -> Result<char, ParseStop<E>> {
        let hi = self.hex4(at)?;
        match hi {
            0xD800..=0xDBFF => {
                if self.peek()? != Some(b'\\') {
                    return Err(self.error(at, format!("lone leading surrogate \\u{hi:04X} in a string")));
                }
                self.src.bump();
                if self.peek()? != Some(b'u') {
                    return Err(self.error(at, format!("lone leading surrogate \\u{hi:04X} in a string")));
                }
                self.src.bump();
                let lo = self.hex4(at)?;
                if !(0xDC00..=0xDFFF).contains(&lo) {
                    return Err(self.error(at, format!("\\u{hi:04X} is not followed by a trailing surrogate")));
                }
                let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                Ok(char::from_u32(c).expect("a surrogate pair is a scalar value"))
            }
            0xDC00..=0xDFFF => Err(self.error(at, format!("lone trailing surrogate \\u{hi:04X} in a string"))),
            c => Ok(char::from_u32(c).expect("not a surrogate")),
        }
    }

    fn hex4<E>(&mut self, at: u64) -> Result<u32, ParseStop<E>> {
        let mut v = 0;
        for _ in 0..4 {
            let d = match self.peek()? {
                Some(b) => (b as char).to_digit(16),
                None => None,
            };
            let Some(d) = d else {
                return Err(self.error(at, "invalid \\u escape (four hex digits expected)"));
            };
            self.src.bump();
            v = v * 16 + d;
        }
        Ok(v)
    }

    /// The next byte if it is a digit, taken.
    fn digit<E>(&mut self) -> Result<Option<u8>, ParseStop<E>> {
        match self.peek()? {
            Some(b) if b.is_ascii_digit() => {
                self.src.bump();
                Ok(Some(b))
            }
            _ => Ok(None),
        }
    }

    /// The next byte if `f` accepts it, taken.
    fn next_if<E>(&mut self, f: impl Fn(u8) -> bool) -> Result<Option<u8>, ParseStop<E>> {
        match self.peek()? {
            Some(b) if f(b) => {
                self.src.bump();
                Ok(Some(b))
            }
            _ => Ok(None),
        }
    }

    /// A number, its first byte next: the grammar checked, then std's exact conversion.
    fn number<E>(&mut self) -> Result<Number, ParseStop<E>> {
        let start = self.src.offset();
        let mut n = NumberText::default();
        let negative = self.next_if(|b| b == b'-')?.is_some();
        if negative {
            n.push(b'-');
        }
        match self.digit()? {
            Some(b'0') => {
                n.integer_digit(b'0');
                if matches!(self.peek()?, Some(b'0'..=b'9')) {
                    return Err(self.error(start, "invalid number: leading zero"));
                }
            }
            Some(d) => {
                n.integer_digit(d);
                while let Some(d) = self.digit()? {
                    n.integer_digit(d);
                }
            }
            None => return Err(self.error(start, "invalid number: a digit must follow '-'")),
        }
        let mut integer = true;
        if let Some(dot) = self.next_if(|b| b == b'.')? {
            integer = false;
            n.push(dot);
            let Some(d) = self.digit()? else {
                return Err(self.error(start, "invalid number: a digit must follow '.'"));
            };
            n.fraction_digit(d);
            while let Some(d) = self.digit()? {
                n.fraction_digit(d);
            }
        }
        if let Some(e) = self.next_if(|b| b == b'e' || b == b'E')? {
            integer = false;
            n.push(e);
            if let Some(sign) = self.next_if(|b| b == b'+' || b == b'-')? {
                n.push(sign);
                n.negative_exponent = sign == b'-';
            }
            let Some(d) = self.digit()? else {
                return Err(self.error(start, "invalid number: a digit must follow the exponent"));
            };
            n.exponent_digit(d);
            while let Some(d) = self.digit()? {
                n.exponent_digit(d);
            }
        }
        let text = n.to_convert(negative);
        if integer && !n.long {
            if text == "-0" {
                return Ok(Number::from_f64(-0.0).expect("finite"));
            }
            let exact = if negative {
                text.parse::<i64>().ok().map(Number::from)
            } else {
                text.parse::<u64>().ok().map(Number::from)
            };
            if let Some(n) = exact {
                return Ok(n);
            }
        }
        // The grammar above is a subset of what `f64::from_str` accepts, and its result is
        // correctly rounded (round half to even), which is the point of this module.
        let f: f64 = text.parse().expect("a JSON number is a valid f64 literal");
        Number::from_f64(f).ok_or_else(|| self.error(start, format!("number {} is out of the range of f64", n.shown())))
    }
}

/// An RFC 6901 array index: `0` or digits without a leading zero.
pub(crate) fn array_index(token: &str) -> Option<u64> {
    if token == "0" || (!token.starts_with('0') && !token.is_empty() && token.bytes().all(|b| b.is_ascii_digit())) {
        token.parse().ok()
    } else {
        None
    }
}

fn show(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(text: &str) -> String {
        parse(text.as_bytes()).unwrap_err().to_string()
    }

    #[test]
    fn strings_are_decoded_exactly() {
        let v = parse(r#"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u20AC", "\ud83d\ude00", "é😀", ""]"#.as_bytes()).unwrap();
        assert_eq!(v, json!(["a\"b\\c/d\u{8}\u{c}\n\r\t", "é€", "😀", "é😀", ""]));
        assert_eq!(err(r#""\ud800""#), "lone leading surrogate \\uD800 in a string at byte 1");
        assert_eq!(
            err(r#""\ud800\u0041""#),
            "\\uD800 is not followed by a trailing surrogate at byte 1"
        );
        assert_eq!(err(r#""\udc00""#), "lone trailing surrogate \\uDC00 in a string at byte 1");
        assert_eq!(err(r#""\x""#), "invalid escape \\'x' at byte 1");
        assert_eq!(err(r#""\u12G4""#), "invalid \\u escape (four hex digits expected) at byte 1");
        assert_eq!(err("\"a\tb\""), "unescaped control character byte 0x09 in a string at byte 2");
        assert_eq!(err("\"abc"), "the input ended inside a string at byte 4");
        assert!(parse(b"[\"\xff\"]").unwrap_err().to_string().starts_with("invalid UTF-8"));
        assert_eq!(parse(b"[\"\xff\"]").unwrap_err().offset, 1);
    }

    #[test]
    fn integers_are_exact_and_big_ones_become_correctly_rounded_floats() {
        let v = parse(b"[0, 18446744073709551615, -9223372036854775808, 18446744073709551616, -9223372036854775809]").unwrap();
        assert_eq!(v[0].as_u64(), Some(0));
        assert_eq!(v[1].as_u64(), Some(u64::MAX));
        assert_eq!(v[2].as_i64(), Some(i64::MIN));
        // 2^64 and -2^63 - 1 fit neither u64 nor i64: the nearest f64.
        assert!(v[3].is_f64());
        assert_eq!(v[3].as_f64(), Some(18446744073709551616.0));
        assert_eq!(v[4].as_f64(), Some(-9223372036854775808.0));
    }

    #[test]
    fn floats_are_correctly_rounded_and_keep_the_sign_of_zero() {
        let v = parse(b"[43.474709000000132, 50.090049175062276, 1e-400, 2.2250738585072011e-308, 5e-324]").unwrap();
        assert_eq!(v[0].as_f64().unwrap().to_bits(), 43.47470900000013_f64.to_bits());
        assert_eq!(v[1].as_f64(), Some(50.090049175062276));
        assert_eq!(v[2].as_f64(), Some(0.0));
        assert_eq!(v[3].as_f64(), Some("2.2250738585072011e-308".parse().unwrap()));
        assert_eq!(v[4].as_f64(), Some(5e-324));
        for minus_zero in ["-0", "-0.0", "-0e3", "-1e-400"] {
            let v = parse(minus_zero.as_bytes()).unwrap();
            let f = v.as_f64().unwrap();
            assert!(v.is_f64() && f == 0.0 && f.is_sign_negative(), "{minus_zero}: {v}");
        }
        assert!(parse(b"0").unwrap().is_u64());
        // Beyond f64's range: rejected (Value holds no infinity; serde_json rejects it too).
        assert_eq!(err("[1e400]"), "number 1e400 is out of the range of f64 at byte 1");
        assert_eq!(err("-1e400"), "number -1e400 is out of the range of f64 at byte 0");
    }

    #[test]
    fn the_grammar_is_json_s() {
        assert_eq!(err("01"), "invalid number: leading zero at byte 0");
        assert_eq!(err("1."), "invalid number: a digit must follow '.' at byte 0");
        assert_eq!(err("-"), "invalid number: a digit must follow '-' at byte 0");
        assert_eq!(err("1e"), "invalid number: a digit must follow the exponent at byte 0");
        assert_eq!(err("+1"), "expected a value, found '+' at byte 0");
        assert_eq!(err("[1,]"), "expected a value, found ']' at byte 3");
        assert_eq!(err("{\"a\":1,}"), "expected '\"' (a key), found '}' at byte 7");
        assert_eq!(err("{\"a\" 1}"), "expected ':', found '1' at byte 5");
        assert_eq!(err("[1 2]"), "expected ',' or ']', found '2' at byte 3");
        assert_eq!(err("tru"), "invalid literal (expected true, false or null) at byte 0");
        assert_eq!(err("[1] x"), "trailing characters after the document ('x') at byte 4");
        assert_eq!(err("  "), "the input ended where a value was expected at byte 2");
        assert_eq!(err("[1"), "the input ended inside an array at byte 2");
        let deep = "[".repeat(MAX_DEPTH + 1);
        assert_eq!(err(&deep), format!("nesting deeper than {MAX_DEPTH} levels at byte {MAX_DEPTH}"));
        assert_eq!(parse(b" {\"a\": [true, false, null], \"a\": 2} ").unwrap(), json!({"a": 2}));
    }

    #[test]
    fn a_streamed_array_is_handed_out_element_by_element() {
        let doc = br#"{"DeviceId": "d", "Readings": [{"t": 1.5}, 2, [3]], "After": -0}"#;
        let mut seen = Vec::new();
        let rest = parse_streamed::<_, ()>(&doc[..], "/Readings", Outside::All, |i, v| {
            seen.push((i, v));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(0, json!({"t": 1.5})), (1, json!(2)), (2, json!([3]))]);
        assert_eq!(rest, json!({"DeviceId": "d", "Readings": [], "After": -0.0}));
        let mut n = 0;
        parse_streamed::<_, ()>(&b"[1, 2]"[..], "", Outside::All, |_, _| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 2);
        let stopped = parse_streamed(
            &doc[..],
            "/Readings",
            Outside::All,
            |i, _| if i == 1 { Err("stop") } else { Ok(()) },
        );
        assert_eq!(stopped, Err(ParseStop::Element("stop")));
        let bad = |doc: &[u8], pointer: &str| match parse_streamed::<_, ()>(doc, pointer, Outside::All, |_, _| Ok(())) {
            Err(ParseStop::Reference(e)) => e.to_string(),
            other => panic!("{other:?}"),
        };
        assert_eq!(
            bad(br#"{"Readings": [1], "Readings": []}"#, "/Readings"),
            "duplicate key \"Readings\" on the path of pointer \"/Readings\" at byte 18"
        );
        assert_eq!(
            bad(br#"{"R": []}"#, "/Readings"),
            "pointer \"/Readings\" not found: no member \"Readings\" at byte 0"
        );
        assert_eq!(
            bad(br#"{"Readings": 1}"#, "/Readings"),
            "pointer \"/Readings\" names a scalar, not an array at byte 13"
        );
        assert_eq!(
            bad(br#"{"a": [[1], [2]]}"#, "/a/2"),
            "pointer \"/a/2\" not found: the array has 2 elements at byte 6"
        );
        assert_eq!(
            bad(br#"{"a": {"b": []}}"#, "/a"),
            "pointer \"/a\" names an object, not an array at byte 6"
        );
    }

    /// The rest `parse_streamed` returns keeping `outside`, or its error's text.
    fn rest(doc: &str, pointer: &str, outside: Outside<'_>) -> Result<Value, String> {
        parse_streamed::<_, ()>(doc.as_bytes(), pointer, outside, |_, _| Ok(())).map_err(|e| match e {
            ParseStop::Reference(e) => e.to_string(),
            ParseStop::Element(()) => unreachable!(),
        })
    }

    #[test]
    fn only_the_kept_members_are_built_and_the_others_are_read_as_exactly() {
        let doc = r#"{"DeviceId": "d", "x": {"y": [1, "z"]}, "Readings": [1], "After": -0}"#;
        let device = ["/DeviceId".to_string()];
        assert_eq!(
            rest(doc, "/Readings", Outside::Members(&device)),
            Ok(json!({"DeviceId": "d", "Readings": []}))
        );
        assert_eq!(rest(doc, "/Readings", Outside::Members(&[])), Ok(json!({"Readings": []})));
        // On a deeper path: an array on it keeps its element on the path and the kept ones.
        let doc = r#"{"a": [{"x": [1]}, {"x": [2], "y": 3}, 5], "b": 1}"#;
        let kept = ["/a/0".to_string(), "/b".to_string(), "/a/1/y".to_string()];
        assert_eq!(
            rest(doc, "/a/1/x", Outside::Members(&kept)),
            Ok(json!({"a": [{"x": [1]}, {"x": [], "y": 3}], "b": 1}))
        );
        // What is not kept fails as it would built, with the same message and offset.
        let long = "x".repeat(3 * STRING_WINDOW);
        for junk in [
            "[1e400]".to_string(),
            "\"\\ud800\"".to_string(),
            "\"a\u{1}\"".to_string(),
            "01".to_string(),
            "tru".to_string(),
            "{\"a\" 1}".to_string(),
            "[".repeat(MAX_DEPTH + 1),
            format!("\"{long}\\q\""),
            format!("{{\"{long}\": 1, 2}}"),
        ] {
            let doc = format!(r#"{{"junk": {junk}, "Readings": []}}"#);
            let built = rest(&doc, "/Readings", Outside::All).unwrap_err();
            assert_eq!(rest(&doc, "/Readings", Outside::Members(&[])), Err(built.clone()), "{junk:.40}");
            // A key is read the same way on the path, where only its token matters.
            let doc = format!(r#"{{"Readings": [], {junk}: 1}}"#);
            if junk.starts_with('"') {
                assert_eq!(
                    rest(&doc, "/Readings", Outside::Members(&[])),
                    rest(&doc, "/Readings", Outside::All),
                    "{junk:.40}"
                );
            }
        }
    }

    #[test]
    fn invalid_utf8_in_a_long_string_not_kept_is_named_where_it_is() {
        let head = br#"{"Readings": [], "s": ""#;
        let mut text = vec![b'a'; 3 * STRING_WINDOW + 5];
        text.extend_from_slice(b"\xe2\x82 ");
        let doc = [&head[..], &text, b"\"}"].concat();
        let streamed = |outside| parse_streamed::<_, ()>(&doc[..], "/Readings", outside, |_, _| Ok(())).unwrap_err();
        let std = String::from_utf8(text.clone()).unwrap_err();
        let expected = ParseError {
            offset: head.len() as u64 - 1,
            message: format!("invalid UTF-8 ({std}) in the string that starts"),
        };
        assert_eq!(streamed(Outside::All), ParseStop::Reference(expected));
        assert_eq!(streamed(Outside::Members(&[])), streamed(Outside::All));
        // A character cut by the window's edge is whole once its bytes arrive.
        let mut doc = br#"{"Readings": [], "s": ""#.to_vec();
        doc.extend(std::iter::repeat_n(b'a', STRING_WINDOW - 1));
        doc.extend_from_slice("€€\"}".as_bytes());
        let rest = parse_streamed::<_, ()>(&doc[..], "/Readings", Outside::Members(&[]), |_, _| Ok(())).unwrap();
        assert_eq!(rest, json!({"Readings": []}));
    }

    #[test]
    fn numbers_of_any_length_convert_as_their_whole_text_does() {
        let digits = |n: usize, d: char| d.to_string().repeat(n);
        let cases = [
            // Past the range, below it, and a tie broken only by a digit far to the right.
            format!("1{}", digits(1100, '0')),
            format!("-1{}", digits(1100, '0')),
            format!("0.{}1", digits(2000, '0')),
            format!("-0.{}", digits(2000, '0')),
            format!("9007199254740993{}e-{}", digits(1200, '0'), 1200),
            format!("9007199254740993{}1e-{}", digits(1200, '0'), 1201),
            format!(
                "1797693134862315708145274237317043567980705675258449965989174768031572607800285387605895586327668781715404589535143824642343213268894641827684675467035375169860499105765512820762454900903893289440758685541792777729{}",
                digits(900, '9')
            ),
            format!("{}.{}e-1000000000000000000000", digits(1500, '7'), digits(10, '3')),
            format!("{}e+99999999999999999999999", digits(1100, '1')),
        ];
        for text in &cases {
            assert!(text.len() > MAX_NUMBER_TEXT, "{text:.30}");
            let whole: f64 = text.parse().unwrap();
            match parse(text.as_bytes()) {
                Ok(v) => {
                    let f = v.as_f64().unwrap();
                    assert_eq!((f.to_bits(), v.is_f64()), (whole.to_bits(), true), "{text:.60}");
                }
                Err(e) => {
                    assert!(whole.is_infinite(), "{text:.60}: {e}");
                    assert!(
                        e.message
                            .starts_with(&format!("number {}… (over 1024 bytes) is out of the range of f64", &text[..40])),
                        "{e}"
                    );
                }
            }
        }
    }
}
