//! The sans-I/O core: a buffer that bytes are pushed into and a state machine that walks the
//! document to the pointer's array, frames its elements and hands each one, as one contiguous
//! slice, to the parser. The sync and async front ends only move bytes into it.

mod cursor;
mod document;
mod problems;
mod scan;

use serde::de::DeserializeOwned;

use crate::blocks::BLOCK;
use crate::config::{Config, Keep};
use crate::error::{Error, ErrorKind};
use crate::field::Field;
use crate::library::{ElementParser, Library};
use crate::pointer::Pointer;
use crate::skip::{Skipper, is_ws};
use cursor::{Cursor, Unfinished};
use problems::{Failure, utf8_problem};

/// Bytes kept besides the chunk and the largest element: the structural scan may still need the
/// start of the 64-byte block it is in.
const BLOCK_SLACK: usize = 2 * BLOCK;

/// Element spans framed per batch.
const SPANS: usize = 256;

/// Extra bytes the buffer starts with beyond one chunk.
const INITIAL_SLACK: usize = 4096;

/// What the framer wants next.
pub(crate) enum Step<T> {
    Element(T),
    NeedMore,
    Done,
}

enum Event {
    Element { start: u64, end: u64 },
    NeedMore,
    Done,
}

/// Where in the document the framer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Before the document's value.
    Root,
    /// Between tokens of the container on top of `frames` (a container on the pointer's path).
    Outer,
    /// Inside an object key.
    Key {
        start: u64,
        skip: Skipper,
    },
    /// Inside a value off the pointer's path (kept as a [`Field`]).
    Field {
        start: u64,
        skip: Skipper,
    },
    /// In the target array: after `[` (an element or `]`) or after `,` (an element).
    ArrayFirst,
    ArrayNext,
    /// Inside an object or array element that starts at `start`.
    Container {
        start: u64,
        depth: i64,
    },
    /// Inside a string, number or literal element.
    Scalar {
        start: u64,
        skip: Skipper,
    },
    /// After an element: `,` or `]`.
    AfterElement,
    /// After the document's value: only whitespace may follow.
    Trailing,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    KeyOrEnd,
    Key,
    Colon,
    Value,
    ValueOrEnd,
    CommaOrEnd,
}

/// A container on the pointer's path, looking for `tokens[level]`.
#[derive(Debug)]
struct Frame {
    object: bool,
    level: usize,
    expect: Expect,
    found: bool,
    /// The current member's key (objects) or index (arrays).
    key: String,
    index: u64,
}

pub(crate) struct Framer {
    buf: Vec<u8>,
    filled: usize,
    /// Absolute offset of `buf[0]`.
    base: u64,
    eof: bool,
    chunk_size: usize,
    max: usize,
    limit: usize,
    pos: u64,
    mode: Mode,
    frames: Vec<Frame>,
    pointer: Pointer,
    cursor: Cursor,
    /// Index of the next element.
    index: u64,
    /// Absolute offset of the last byte >= 0x80 seen (blocks are classified ahead of the element
    /// being parsed, so this only ever grows).
    last_non_ascii: Option<u64>,
    fields: Vec<Field>,
    keep: Keep,
    max_kept: usize,
    /// What the kept fields are charged so far (pointer and text capacity plus
    /// [`crate::FIELD_OVERHEAD`] each).
    kept_bytes: usize,
    parser: ElementParser,
    /// Elements framed by [`Framer::frame_batch`] and not yet parsed, from `span_at` on.
    spans: Vec<(u64, u64)>,
    span_at: usize,
    /// The element depth the structural scan refuses: [`crate::depth::MAX_DEPTH`] for a
    /// [guarded](crate::Library::depth_guarded) library, else never.
    depth_limit: i64,
}

impl Framer {
    pub fn new(s: &Config) -> Self {
        let chunk_size = s.chunk_size.max(1);
        let max = s.max_element_bytes.max(1);
        Framer {
            buf: Vec::new(),
            filled: 0,
            base: 0,
            eof: false,
            chunk_size,
            max,
            // Saturating: `usize::MAX` is "no maximum", and the bound must not wrap to a chunk.
            limit: chunk_size.saturating_add(max).saturating_add(BLOCK_SLACK),
            pos: 0,
            mode: Mode::Root,
            frames: Vec::new(),
            pointer: s.pointer.clone(),
            cursor: Cursor::default(),
            index: 0,
            last_non_ascii: None,
            fields: Vec::new(),
            keep: s.keep.clone(),
            max_kept: s.max_kept_bytes,
            kept_bytes: 0,
            parser: ElementParser::new(s.library),
            spans: Vec::new(),
            span_at: 0,
            depth_limit: if s.library.depth_guarded() {
                crate::depth::MAX_DEPTH as i64
            } else {
                i64::MAX
            },
        }
    }

    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// Elements handed out or failed so far.
    pub fn elements(&self) -> u64 {
        self.index
    }

    /// Bytes received from the source so far.
    pub fn bytes_received(&self) -> u64 {
        self.avail_end()
    }

    /// Bytes the buffer holds now (its high-water mark: it never shrinks).
    pub fn buffer_len(&self) -> usize {
        self.buf.len()
    }

    // ---- feeding bytes ----

    /// Compacts the buffer to what is still needed and returns space for up to one chunk.
    pub fn prepare_fill(&mut self) -> Result<&mut [u8], Error> {
        let (keep_from, holding) = self.held_value();
        if let Some((start, what)) = holding
            && self.avail_end() - start > self.max as u64
        {
            return Err(self.fail(start, self.value_element(), ErrorKind::TooLarge { what, max: self.max }));
        }
        let mut keep_from = keep_from;
        if self.cursor_relevant() {
            keep_from = keep_from.min(self.cursor.start);
        } else {
            self.cursor.valid = false;
        }
        let shift = (keep_from - self.base) as usize;
        if shift > 0 {
            self.buf.copy_within(shift..self.filled, 0);
            self.filled -= shift;
            self.base = keep_from;
        }
        // Room for a chunk after what is kept; at first also for a few KiB kept (small elements
        // cut by a chunk boundary), so that streams of small elements never reallocate.
        let first = if self.buf.is_empty() { INITIAL_SLACK } else { 0 };
        let want = (self.filled + self.chunk_size + first).min(self.limit).max(self.filled + 1);
        if self.buf.len() < want {
            // Exact growth: the bound is the point, so no amortised doubling.
            self.buf.reserve_exact(want - self.buf.len());
            self.buf.resize(want, 0);
        }
        let end = (self.filled + self.chunk_size).min(self.buf.len());
        Ok(&mut self.buf[self.filled..end])
    }

    /// Records `n` bytes written into the space from [`Framer::prepare_fill`]; 0 means the
    /// source has ended.
    pub fn commit(&mut self, n: usize) {
        if n == 0 {
            self.eof = true;
        }
        self.filled += n;
    }

    /// Turns a failure of the byte source into the stream's error.
    pub fn io_error(&mut self, e: std::io::Error) -> Error {
        let element = self.value_element();
        self.fail(self.avail_end(), element, ErrorKind::Io(e))
    }

    /// The oldest byte still needed, and the value being held whole (its start and name).
    fn held_value(&self) -> (u64, Option<(u64, String)>) {
        match self.mode {
            Mode::Container { start, .. } | Mode::Scalar { start, .. } => (start, Some((start, format!("element {}", self.index)))),
            Mode::Key { start, .. } => (start, Some((start, "an object key".to_string()))),
            Mode::Field { start, .. } => (start, Some((start, format!("the value at {}", self.field_pointer())))),
            _ => (self.pos, None),
        }
    }

    /// The error for input ending inside the value held whole.
    fn truncated_value(&mut self) -> Error {
        let (_, held) = self.held_value();
        let inside = held.map_or_else(|| "a value".to_string(), |(_, what)| what);
        let element = self.value_element();
        self.truncated(element, inside)
    }

    fn value_element(&self) -> Option<u64> {
        match self.mode {
            Mode::Container { .. } | Mode::Scalar { .. } | Mode::ArrayNext => Some(self.index),
            _ => None,
        }
    }

    /// The cursor's block still covers the position, so its bytes must stay for a re-scan.
    fn cursor_relevant(&self) -> bool {
        let c = &self.cursor;
        c.valid
            && c.start <= self.pos
            && self.pos <= c.start + BLOCK as u64
            && matches!(
                self.mode,
                Mode::ArrayFirst | Mode::ArrayNext | Mode::Container { .. } | Mode::Scalar { .. } | Mode::AfterElement
            )
    }

    // ---- reading elements ----

    /// Runs until an element is parsed, more bytes are needed, or the document is complete.
    #[inline]
    pub fn next_element<T: DeserializeOwned>(&mut self) -> Result<Step<T>, Error> {
        if self.span_at < self.spans.len() || self.frame_batch() {
            let (start, end) = self.spans[self.span_at];
            self.span_at += 1;
            return self.parse_element(start, end).map(Step::Element);
        }
        match self.advance()? {
            Event::Element { start, end } => self.parse_element(start, end).map(Step::Element),
            Event::NeedMore => Ok(Step::NeedMore),
            Event::Done => Ok(Step::Done),
        }
    }

    /// Parses the element `start..end`. The common case (an ASCII element that parses) is kept
    /// small enough to inline, so the value moves from the parser to the caller without being
    /// re-packed through the error-handling layers.
    #[inline(always)]
    fn parse_element<T: DeserializeOwned>(&mut self, start: u64, end: u64) -> Result<T, Error> {
        let index = self.index;
        self.index += 1;
        // Every byte of the element has been through the structural scan (or, for a scalar, been
        // checked), so no byte >= 0x80 at or after its start means it is all ASCII.
        let ascii = self.last_non_ascii.is_none_or(|x| x < start);
        if !ascii || end - start > self.max as u64 {
            return self.parse_element_slow(start, end, index);
        }
        let (lo, hi) = ((start - self.base) as usize, (end - self.base) as usize);
        if self.parser.library() == Library::SonicRs
            && matches!(self.buf[lo], b'{' | b'[')
            && let Some(v) = self.parser.parse_sonic_window::<T>(&self.buf[lo..self.ascii_end(end)])
        {
            return Ok(v);
        }
        match self.parser.parse::<T>(&self.buf[lo..hi], true) {
            Ok(v) => Ok(v),
            Err(e) => Err(self.element_error(start, index, Failure::Parser(e, None))),
        }
    }

    /// Where the bytes known to be ASCII after an all-ASCII element ending at `end` stop (an
    /// index into the buffer): the structural scan has classified them, and no byte >= 0x80 at
    /// or after the element's start was among them.
    #[inline(always)]
    fn ascii_end(&self, end: u64) -> usize {
        let c = &self.cursor;
        let classified = if c.valid {
            (c.start + c.classified() as u64).min(self.avail_end())
        } else {
            end
        };
        (classified.max(end) - self.base) as usize
    }

    /// An element over the maximum, or holding bytes >= 0x80 (checked for UTF-8 first).
    #[inline(never)]
    fn parse_element_slow<T: DeserializeOwned>(&mut self, start: u64, end: u64, index: u64) -> Result<T, Error> {
        if end - start > self.max as u64 {
            return Err(self.fail(
                start,
                Some(index),
                ErrorKind::TooLarge {
                    what: format!("element {index}"),
                    max: self.max,
                },
            ));
        }
        let (lo, hi) = ((start - self.base) as usize, (end - self.base) as usize);
        let utf8 = utf8_problem(&self.buf[lo..hi]);
        match self.parser.parse::<T>(&self.buf[lo..hi], false) {
            Ok(v) => match utf8 {
                None => Ok(v),
                Some((at, _)) => Err(self.element_error(start, index, Failure::Utf8Only(at))),
            },
            Err(e) => Err(self.element_error(start, index, Failure::Parser(e, utf8))),
        }
    }

    #[cold]
    fn element_error(&mut self, start: u64, index: u64, failure: Failure) -> Error {
        let library = self.parser.library();
        let (at, problem) = failure.first_problem();
        self.fail(start + at as u64, Some(index), problem.into_error_kind(library))
    }

    fn fail(&mut self, offset: u64, element: Option<u64>, kind: ErrorKind) -> Error {
        self.mode = Mode::Done;
        self.spans.clear();
        self.span_at = 0;
        Error::new(offset, element, kind)
    }

    fn bad_token(&mut self, offset: u64, element: Option<u64>, message: String) -> Error {
        self.fail(offset, element, ErrorKind::BadToken { library: None, message })
    }

    /// The depth guard's error for the bracket at `at`.
    #[cold]
    fn too_deep(&mut self, at: u64, element: Option<u64>) -> Error {
        let library = self.parser.library();
        let limit = crate::depth::MAX_DEPTH;
        self.fail(at, element, ErrorKind::TooDeep { library, limit })
    }

    fn truncated(&mut self, element: Option<u64>, inside: String) -> Error {
        self.fail(self.avail_end(), element, ErrorKind::Truncated { inside })
    }

    #[inline(always)]
    fn avail_end(&self) -> u64 {
        self.base + self.filled as u64
    }

    #[inline(always)]
    fn byte(&self, at: u64) -> u8 {
        self.buf[(at - self.base) as usize]
    }

    /// Skips whitespace; the byte at the new position, if it has arrived.
    #[inline(always)]
    fn peek_token(&mut self) -> Option<u8> {
        let end = self.avail_end();
        while self.pos < end {
            let b = self.byte(self.pos);
            if !is_ws(b) {
                return Some(b);
            }
            self.pos += 1;
        }
        None
    }

    fn advance(&mut self) -> Result<Event, Error> {
        loop {
            match self.mode {
                Mode::AfterElement => match self.peek_token() {
                    Some(b',') => {
                        self.pos += 1;
                        self.mode = Mode::ArrayNext;
                    }
                    Some(b']') => {
                        self.pos += 1;
                        self.end_array();
                    }
                    Some(b) => {
                        let msg = format!("expected ',' or ']' after element {}, found {}", self.index - 1, show(b));
                        return Err(self.bad_token(self.pos, None, msg));
                    }
                    None if self.eof => return Err(self.truncated(None, format!("the array at {}", self.target()))),
                    None => return Ok(Event::NeedMore),
                },
                Mode::ArrayFirst | Mode::ArrayNext => match self.peek_token() {
                    Some(b'{' | b'[') => {
                        self.anchor_cursor();
                        self.mode = Mode::Container { start: self.pos, depth: 0 };
                    }
                    Some(b']') if self.mode == Mode::ArrayFirst => {
                        self.pos += 1;
                        self.end_array();
                    }
                    Some(b @ (b',' | b']')) => {
                        let msg = format!("expected an array element, found {}", show(b));
                        return Err(self.bad_token(self.pos, Some(self.index), msg));
                    }
                    Some(b) => {
                        self.mode = Mode::Scalar {
                            start: self.pos,
                            skip: Skipper::new(self.pos, b),
                        }
                    }
                    None if self.eof => {
                        let element = self.value_element();
                        return Err(self.truncated(element, format!("the array at {}", self.target())));
                    }
                    None => return Ok(Event::NeedMore),
                },
                Mode::Container { start, depth } => {
                    return match self.scan_container(depth) {
                        Ok(end) => {
                            self.mode = Mode::AfterElement;
                            Ok(Event::Element { start, end })
                        }
                        Err(Unfinished::TooDeep(at)) => Err(self.too_deep(at, Some(self.index))),
                        Err(Unfinished::NeedMore(depth)) if self.eof => {
                            self.mode = Mode::Container { start, depth };
                            Err(self.truncated_value())
                        }
                        Err(Unfinished::NeedMore(depth)) => {
                            self.mode = Mode::Container { start, depth };
                            Ok(Event::NeedMore)
                        }
                    };
                }
                Mode::Scalar { start, mut skip } => {
                    let Some(end) = self.run_skipper(&mut skip) else {
                        self.mode = Mode::Scalar { start, skip };
                        if self.eof {
                            return Err(self.truncated_value());
                        }
                        return Ok(Event::NeedMore);
                    };
                    if !self.bytes(start, end).is_ascii() {
                        self.last_non_ascii = self.last_non_ascii.max(Some(end - 1));
                    }
                    self.pos = end;
                    self.mode = Mode::AfterElement;
                    return Ok(Event::Element { start, end });
                }
                Mode::Root => match self.peek_token() {
                    Some(b) => self.path_value(b, 0)?,
                    None if self.eof => return Err(self.truncated(None, "the document (no value)".to_string())),
                    None => return Ok(Event::NeedMore),
                },
                Mode::Outer => {
                    if let Some(event) = self.outer_step()? {
                        return Ok(event);
                    }
                }
                Mode::Key { start, mut skip } => {
                    let Some(end) = self.run_skipper(&mut skip) else {
                        self.mode = Mode::Key { start, skip };
                        if self.eof {
                            return Err(self.truncated_value());
                        }
                        return Ok(Event::NeedMore);
                    };
                    self.key_done(start, end)?;
                }
                Mode::Field { start, mut skip } => {
                    let Some(end) = self.run_skipper(&mut skip) else {
                        self.mode = Mode::Field { start, skip };
                        if self.eof {
                            return Err(self.truncated_value());
                        }
                        return Ok(Event::NeedMore);
                    };
                    self.field_done(start, end)?;
                }
                Mode::Trailing => match self.peek_token() {
                    Some(b) => {
                        let msg = format!("trailing characters after the document: {}", show(b));
                        return Err(self.bad_token(self.pos, None, msg));
                    }
                    None if self.eof => {
                        self.mode = Mode::Done;
                        return Ok(Event::Done);
                    }
                    None => return Ok(Event::NeedMore),
                },
                Mode::Done => return Ok(Event::Done),
            }
        }
    }

    fn bytes(&self, start: u64, end: u64) -> &[u8] {
        &self.buf[(start - self.base) as usize..(end - self.base) as usize]
    }

    /// Feeds the bytes that arrived to a skipper; at the end of input a scalar is complete and
    /// anything else is truncated (reported by the caller's next step as `NeedMore` + eof).
    fn run_skipper(&mut self, skip: &mut Skipper) -> Option<u64> {
        let end = self.avail_end();
        let from = skip.scanned;
        if let Some(done) = skip.scan(&self.buf[(from - self.base) as usize..(end - self.base) as usize]) {
            return Some(done);
        }
        (self.eof && skip.ends_at_eof()).then_some(end)
    }
}

fn show(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

fn show_pointer(p: &str) -> String {
    if p.is_empty() {
        "the document root".to_string()
    } else {
        format!("{p:?}")
    }
}
