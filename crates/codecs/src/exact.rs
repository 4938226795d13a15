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
    pub offset: u64,
    pub message: String,
}

/// Parses one whole JSON document (whitespace around it allowed, nothing else).
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    let mut p = Parser {
        src: Slice { bytes, pos: 0 },
        text: String::new(),
        path: Vec::new(),
        streamed: false,
    };
    let mut none = |_: u64, _: Value| -> Result<(), ()> { Ok(()) };
    let v = p.document(&mut none).map_err(|e| match e {
        Stop::Reference(e) => e,
        Stop::Element(()) => unreachable!("no elements are streamed"),
    })?;
    Ok(v)
}

/// What ended a streamed parse: the reference's own error, or the element callback's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop<E> {
    Reference(ParseError),
    Element(E),
}

/// Parses a document from `reader` without holding the array at `pointer` (RFC 6901, e.g.
/// `/Readings`; `""` for a top-level array): each of its elements is parsed on its own and
/// handed to `on_element` with its index, so memory is bounded by the largest element. Returns
/// the rest of the document with that array left empty. A repeat of a key on the pointer's
/// path is an error (the document would name two arrays).
pub fn parse_streamed<R: Read, E>(
    reader: R,
    pointer: &str,
    mut on_element: impl FnMut(u64, Value) -> Result<(), E>,
) -> Result<Value, Stop<E>> {
    let path = tokens(pointer).map_err(|message| Stop::Reference(ParseError { offset: 0, message }))?;
    let mut p = Parser {
        src: Buffered {
            reader,
            buf: vec![0; 64 * 1024],
            at: 0,
            len: 0,
            base: 0,
        },
        text: String::new(),
        path,
        streamed: true,
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
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
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
    /// Scratch for a number's text.
    text: String,
    /// The streamed array's pointer tokens.
    path: Vec<String>,
    /// False for [`parse`]: nothing is streamed.
    streamed: bool,
}

/// Where a value stands relative to the streamed array: off the path, on it after `n` tokens.
#[derive(Clone, Copy)]
enum OnPath {
    No,
    After(usize),
}

impl<S: Source> Parser<S> {
    fn error<E>(&self, offset: u64, message: impl Into<String>) -> Stop<E> {
        Stop::Reference(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn peek<E>(&mut self) -> Result<Option<u8>, Stop<E>> {
        self.src.peek().map_err(Stop::Reference)
    }

    fn skip_ws<E>(&mut self) -> Result<Option<u8>, Stop<E>> {
        loop {
            match self.peek()? {
                Some(b' ' | b'\t' | b'\n' | b'\r') => self.src.bump(),
                other => return Ok(other),
            }
        }
    }

    fn document<E>(&mut self, on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>) -> Result<Value, Stop<E>> {
        let on_path = if self.streamed { OnPath::After(0) } else { OnPath::No };
        let v = self.value(0, on_path, on_element)?;
        match self.skip_ws()? {
            None => Ok(v),
            Some(b) => Err(self.error(self.src.offset(), format!("trailing characters after the document ({})", show(b)))),
        }
    }

    fn value<E>(
        &mut self,
        depth: usize,
        on_path: OnPath,
        on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>,
    ) -> Result<Value, Stop<E>> {
        let Some(b) = self.skip_ws()? else {
            return Err(self.error(self.src.offset(), "the input ended where a value was expected"));
        };
        let start = self.src.offset();
        if let OnPath::After(n) = on_path
            && b != b'{'
            && b != b'['
        {
            return Err(if n < self.path.len() {
                self.error(start, format!("pointer {} not found: a scalar has no members", self.pointer(n + 1)))
            } else {
                self.error(start, format!("pointer {} names a scalar, not an array", self.pointer(n)))
            });
        }
        match b {
            b'{' | b'[' if depth >= MAX_DEPTH => Err(self.error(start, format!("nesting deeper than {MAX_DEPTH} levels"))),
            b'{' => self.object(depth + 1, on_path, on_element),
            b'[' => self.array(depth + 1, on_path, on_element),
            b'"' => Ok(Value::String(self.string()?)),
            b't' => self.literal(b"true", Value::Bool(true)),
            b'f' => self.literal(b"false", Value::Bool(false)),
            b'n' => self.literal(b"null", Value::Null),
            b'-' | b'0'..=b'9' => self.number().map(Value::Number),
            other => Err(self.error(start, format!("expected a value, found {}", show(other)))),
        }
    }

    /// The first `n` tokens of the streamed pointer, quoted.
    fn pointer(&self, n: usize) -> String {
        let p: String = self.path[..n.min(self.path.len())]
            .iter()
            .map(|t| format!("/{}", t.replace('~', "~0").replace('/', "~1")))
            .collect();
        format!("{p:?}")
    }

    fn literal<E>(&mut self, word: &[u8], v: Value) -> Result<Value, Stop<E>> {
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
        on_path: OnPath,
        on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>,
    ) -> Result<Value, Stop<E>> {
        let open = self.src.offset();
        self.src.bump();
        let token = match on_path {
            OnPath::After(n) if n < self.path.len() => Some(n),
            OnPath::After(_) => {
                return Err(self.error(
                    open,
                    format!("pointer {} names an object, not an array", self.pointer(self.path.len())),
                ));
            }
            OnPath::No => None,
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
            let key = self.string()?;
            match self.skip_ws()? {
                Some(b':') => self.src.bump(),
                Some(b) => return Err(self.error(self.src.offset(), format!("expected ':', found {}", show(b)))),
                None => return Err(self.error(self.src.offset(), "the input ended inside an object")),
            }
            let child = match token {
                Some(n) if key == self.path[n] => {
                    if found {
                        return Err(self.error(
                            key_at,
                            format!("duplicate key {key:?} on the path of pointer {}", self.pointer(n + 1)),
                        ));
                    }
                    found = true;
                    OnPath::After(n + 1)
                }
                _ => OnPath::No,
            };
            let v = self.value(depth, child, on_element)?;
            map.insert(key, v);
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
        on_path: OnPath,
        on_element: &mut dyn FnMut(u64, Value) -> Result<(), E>,
    ) -> Result<Value, Stop<E>> {
        let open = self.src.offset();
        self.src.bump();
        // The streamed array itself, an array on its path (with the index to follow), or neither.
        let (streamed, token) = match on_path {
            OnPath::After(n) if n == self.path.len() => (true, None),
            OnPath::After(n) => match index(&self.path[n]) {
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
            OnPath::No => (false, None),
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
            let child = match token {
                Some((n, want)) if want == i => OnPath::After(n + 1),
                _ => OnPath::No,
            };
            let v = self.value(depth, child, on_element)?;
            if streamed {
                on_element(i, v).map_err(Stop::Element)?;
            } else {
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
    fn string<E>(&mut self) -> Result<String, Stop<E>> {
        let open = self.src.offset();
        self.src.bump();
        let mut out: Vec<u8> = Vec::new();
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
        }
        // Named by the string's start: escapes make offsets in the decoded text differ from the input's.
        String::from_utf8(out).map_err(|e| self.error(open, format!("invalid UTF-8 ({e}) in the string that starts")))
    }

    /// After `\u`: four hex digits, and for a high surrogate the `\uXXXX` low one after it.
    fn unicode_escape<E>(&mut self, at: u64) -> Result<char, Stop<E>> {
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

    fn hex4<E>(&mut self, at: u64) -> Result<u32, Stop<E>> {
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

    /// A number, its first byte next: the grammar checked, then std's exact conversion.
    fn number<E>(&mut self) -> Result<Number, Stop<E>> {
        let start = self.src.offset();
        self.text.clear();
        let negative = self.take_if(|b| b == b'-')?;
        match self.peek()? {
            Some(b'0') => {
                self.take()?;
                if matches!(self.peek()?, Some(b'0'..=b'9')) {
                    return Err(self.error(start, "invalid number: leading zero"));
                }
            }
            Some(b'1'..=b'9') => while self.take_if(|b| b.is_ascii_digit())? {},
            _ => return Err(self.error(start, "invalid number: a digit must follow '-'")),
        }
        let mut integer = true;
        if self.take_if(|b| b == b'.')? {
            integer = false;
            if !self.take_if(|b| b.is_ascii_digit())? {
                return Err(self.error(start, "invalid number: a digit must follow '.'"));
            }
            while self.take_if(|b| b.is_ascii_digit())? {}
        }
        if self.take_if(|b| b == b'e' || b == b'E')? {
            integer = false;
            self.take_if(|b| b == b'+' || b == b'-')?;
            if !self.take_if(|b| b.is_ascii_digit())? {
                return Err(self.error(start, "invalid number: a digit must follow the exponent"));
            }
            while self.take_if(|b| b.is_ascii_digit())? {}
        }
        let text = self.text.as_str();
        if integer {
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
        Number::from_f64(f).ok_or_else(|| self.error(start, format!("number {text} is out of the range of f64")))
    }

    fn take<E>(&mut self) -> Result<(), Stop<E>> {
        if let Some(b) = self.peek()? {
            self.text.push(b as char);
            self.src.bump();
        }
        Ok(())
    }

    fn take_if<E>(&mut self, f: impl Fn(u8) -> bool) -> Result<bool, Stop<E>> {
        match self.peek()? {
            Some(b) if f(b) => {
                self.text.push(b as char);
                self.src.bump();
                Ok(true)
            }
            _ => Ok(false),
        }
    }
}

/// An RFC 6901 array index: `0` or digits without a leading zero.
fn index(token: &str) -> Option<u64> {
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
        let rest = parse_streamed::<_, ()>(&doc[..], "/Readings", |i, v| {
            seen.push((i, v));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(0, json!({"t": 1.5})), (1, json!(2)), (2, json!([3]))]);
        assert_eq!(rest, json!({"DeviceId": "d", "Readings": [], "After": -0.0}));
        let mut n = 0;
        parse_streamed::<_, ()>(&b"[1, 2]"[..], "", |_, _| {
            n += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(n, 2);
        let stopped = parse_streamed(&doc[..], "/Readings", |i, _| if i == 1 { Err("stop") } else { Ok(()) });
        assert_eq!(stopped, Err(Stop::Element("stop")));
        let bad = |doc: &[u8], pointer: &str| match parse_streamed::<_, ()>(doc, pointer, |_, _| Ok(())) {
            Err(Stop::Reference(e)) => e.to_string(),
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
}
