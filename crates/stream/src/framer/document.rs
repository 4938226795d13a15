//! The document around the array: the walk to the pointer's array through the containers on
//! its path, the values kept as fields on the way, and what follows the array.

use super::problems::{resolve, utf8_problem};
use super::{Event, Expect, Frame, Framer, Mode, show, show_pointer};
use crate::config::{FIELD_OVERHEAD, Keep};
use crate::error::{Error, ErrorKind};
use crate::field::Field;
use crate::pointer::{array_index, push_token};
use crate::skip::{Skipper, describe};

impl Framer {
    pub(super) fn target(&self) -> String {
        show_pointer(self.pointer.as_str())
    }

    pub(super) fn end_array(&mut self) {
        self.mode = if self.frames.is_empty() { Mode::Trailing } else { Mode::Outer };
    }

    /// A value on the pointer's path, reached through `level` tokens, whose first byte is `b`.
    pub(super) fn path_value(&mut self, b: u8, level: usize) -> Result<(), Error> {
        let tokens = self.pointer.tokens();
        if level == tokens.len() {
            if b == b'[' {
                self.pos += 1;
                self.mode = Mode::ArrayFirst;
                self.cursor.valid = false;
                return Ok(());
            }
            let Some(found) = describe(b) else {
                return Err(self.bad_token(self.pos, None, format!("expected a value, found {}", show(b))));
            };
            let pointer = self.pointer.as_str().to_string();
            return Err(self.fail(self.pos, None, ErrorKind::NotAnArray { pointer, found }));
        }
        let object = match b {
            b'{' => true,
            b'[' if array_index(&tokens[level]).is_some() => false,
            b'[' => {
                let reason = format!(
                    "{} is an array and {:?} is not an array index",
                    show_pointer(&self.pointer.prefix(level)),
                    tokens[level]
                );
                return Err(self.not_found(self.pos, reason));
            }
            _ => {
                let Some(what) = describe(b) else {
                    return Err(self.bad_token(self.pos, None, format!("expected a value, found {}", show(b))));
                };
                let reason = format!("{} is {what}, which has no members", show_pointer(&self.pointer.prefix(level)));
                return Err(self.not_found(self.pos, reason));
            }
        };
        let expect = if object { Expect::KeyOrEnd } else { Expect::ValueOrEnd };
        self.frames.push(Frame {
            object,
            level,
            expect,
            found: false,
            key: String::new(),
            index: 0,
        });
        self.pos += 1;
        self.mode = Mode::Outer;
        Ok(())
    }

    fn not_found(&mut self, offset: u64, reason: String) -> Error {
        let pointer = self.pointer.as_str().to_string();
        self.fail(offset, None, ErrorKind::PointerNotFound { pointer, reason })
    }

    /// One token of a container on the path; `Some` when the caller must return.
    pub(super) fn outer_step(&mut self) -> Result<Option<Event>, Error> {
        let Some(b) = self.peek_token() else {
            if !self.eof {
                return Ok(Some(Event::NeedMore));
            }
            let frame = self.frames.last().expect("outer mode has a frame");
            let what = if frame.object { "the object at" } else { "the array at" };
            let inside = format!("{what} {}", show_pointer(&self.pointer.prefix(frame.level)));
            return Err(self.truncated(None, inside));
        };
        let frame = self.frames.last_mut().expect("outer mode has a frame");
        match (frame.object, frame.expect, b) {
            (true, Expect::KeyOrEnd | Expect::CommaOrEnd, b'}') | (false, Expect::ValueOrEnd | Expect::CommaOrEnd, b']') => {
                self.pos += 1;
                self.close_frame()?;
            }
            (true, Expect::KeyOrEnd | Expect::Key, b'"') => {
                self.mode = Mode::Key {
                    start: self.pos,
                    skip: Skipper::new(self.pos, b),
                }
            }
            (true, Expect::Colon, b':') => {
                frame.expect = Expect::Value;
                self.pos += 1;
            }
            (_, Expect::CommaOrEnd, b',') => {
                if frame.object {
                    frame.expect = Expect::Key;
                } else {
                    frame.expect = Expect::Value;
                    frame.index += 1;
                }
                self.pos += 1;
            }
            (_, Expect::Value | Expect::ValueOrEnd, _) => self.member_value(b)?,
            (object, expect, _) => {
                let wanted = match (object, expect) {
                    (true, Expect::KeyOrEnd) => "'\"' or '}'",
                    (true, Expect::Key) => "'\"' (a key)",
                    (true, Expect::Colon) => "':'",
                    (true, _) => "',' or '}'",
                    (false, _) => "',' or ']'",
                };
                return Err(self.bad_token(self.pos, None, format!("expected {wanted}, found {}", show(b))));
            }
        }
        Ok(None)
    }

    fn close_frame(&mut self) -> Result<(), Error> {
        let frame = self.frames.pop().expect("outer mode has a frame");
        if !frame.found {
            let at = show_pointer(&self.pointer.prefix(frame.level));
            let token = &self.pointer.tokens()[frame.level];
            let reason = if frame.object {
                format!("{at} has no member {token:?}")
            } else {
                let len = if frame.expect == Expect::ValueOrEnd { 0 } else { frame.index + 1 };
                format!("{at} has {len} elements")
            };
            return Err(self.not_found(self.pos - 1, reason));
        }
        self.mode = if self.frames.is_empty() { Mode::Trailing } else { Mode::Outer };
        Ok(())
    }

    fn member_value(&mut self, b: u8) -> Result<(), Error> {
        let frame = self.frames.last_mut().expect("outer mode has a frame");
        frame.expect = Expect::CommaOrEnd;
        let token = &self.pointer.tokens()[frame.level];
        let on_path = !frame.found
            && if frame.object {
                frame.key == *token
            } else {
                array_index(token) == Some(frame.index)
            };
        if on_path {
            frame.found = true;
            let level = frame.level + 1;
            return self.path_value(b, level);
        }
        if describe(b).is_none() {
            return Err(self.bad_token(self.pos, None, format!("expected a value, found {}", show(b))));
        }
        self.mode = Mode::Field {
            start: self.pos,
            skip: Skipper::new(self.pos, b),
        };
        Ok(())
    }

    pub(super) fn key_done(&mut self, start: u64, end: u64) -> Result<(), Error> {
        if end - start > self.max as u64 {
            return Err(self.fail(
                start,
                None,
                ErrorKind::TooLarge {
                    what: "an object key".to_string(),
                    max: self.max,
                },
            ));
        }
        let bytes = &self.buf[(start - self.base) as usize..(end - self.base) as usize];
        let key = self.parser.parse::<String>(bytes, bytes.is_ascii());
        let library = self.parser.library();
        match resolve(key, utf8_problem(bytes)) {
            Ok(key) => {
                let frame = self.frames.last().expect("outer mode has a frame");
                // A second member with the key on the pointer's path: the typed `from_slice`
                // rejects it (a duplicate field), and the array streamed would not be the value
                // a map-reading parser keeps (the last).
                if frame.found && frame.object && key == self.pointer.tokens()[frame.level] {
                    let pointer = self.pointer.prefix(frame.level + 1);
                    return Err(self.fail(start, None, ErrorKind::DuplicateKey { pointer, key }));
                }
                // A second value for a field a type asked for: its typed `from_slice` rejects
                // the duplicate field too (with `Keep::All` repeats are kept, in order).
                if let Keep::Only(wanted) = &self.keep {
                    let mut pointer = self.pointer.prefix(frame.level);
                    push_token(&mut pointer, &key);
                    let repeated = wanted.contains(&pointer) && self.fields.iter().any(|f| f.pointer == pointer);
                    if repeated {
                        return Err(self.fail(start, None, ErrorKind::DuplicateKey { pointer, key }));
                    }
                }
                let frame = self.frames.last_mut().expect("outer mode has a frame");
                frame.key = key;
                frame.expect = Expect::Colon;
                self.pos = end;
                self.mode = Mode::Outer;
                Ok(())
            }
            Err((at, kind)) => Err(self.fail(start + at as u64, None, kind.into_error_kind(library))),
        }
    }

    /// The pointer of the value being kept as a field.
    pub(super) fn field_pointer(&self) -> String {
        let frame = self.frames.last().expect("a field is inside a frame");
        let mut p = self.pointer.prefix(frame.level);
        if frame.object {
            push_token(&mut p, &frame.key);
        } else {
            push_token(&mut p, &frame.index.to_string());
        }
        p
    }

    pub(super) fn field_done(&mut self, start: u64, end: u64) -> Result<(), Error> {
        let pointer = self.field_pointer();
        if end - start > self.max as u64 {
            return Err(self.fail(
                start,
                None,
                ErrorKind::TooLarge {
                    what: format!("the value at {pointer}"),
                    max: self.max,
                },
            ));
        }
        // Validated by the stream's library, so the stream accepts exactly the documents that
        // library's `from_slice` accepts (they differ at the edges, e.g. integers below i64::MIN).
        let bytes = &self.buf[(start - self.base) as usize..(end - self.base) as usize];
        if let Err(deep) = self.parser.library().guard_depth(bytes) {
            return Err(self.too_deep(start + deep.offset, None));
        }
        let checked = self.parser.validate(bytes, bytes.is_ascii());
        let library = self.parser.library();
        match resolve(checked, utf8_problem(bytes)) {
            Ok(_) => {
                if self.keep.keeps(&pointer) {
                    self.keep_field(pointer, start, end)?;
                }
                self.pos = end;
                self.mode = Mode::Outer;
                Ok(())
            }
            Err((at, kind)) => Err(self.fail(start + at as u64, None, kind.into_error_kind(library))),
        }
    }

    /// Keeps the validated value `start..end` as a field, within [`Framer::max_kept`].
    fn keep_field(&mut self, mut pointer: String, start: u64, end: u64) -> Result<(), Error> {
        let bytes = &self.buf[(start - self.base) as usize..(end - self.base) as usize];
        // Charged before the text is copied, so the cap holds at every moment.
        pointer.shrink_to_fit();
        let charge = FIELD_OVERHEAD + pointer.len() + bytes.len();
        if self.kept_bytes + charge > self.max_kept {
            let (kept, max) = (self.fields.len(), self.max_kept);
            return Err(self.fail(start, None, ErrorKind::KeptTooLarge { pointer, kept, max }));
        }
        self.kept_bytes += charge;
        let raw = String::from_utf8_lossy(bytes).into_owned();
        self.fields.push(Field {
            pointer,
            offset: start,
            raw,
        });
        Ok(())
    }
}
