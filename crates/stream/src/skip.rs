//! A byte-at-a-time value framer for the few values outside the fast path: object keys, the
//! document's other fields, and scalar array elements. It resumes where it stopped, so a value
//! split over many chunks is scanned once.

/// JSON whitespace (RFC 8259 section 2).
#[inline(always)]
pub(crate) fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t')
}

/// What a value's first byte says it is, for messages; `None` if no value starts so.
pub(crate) fn describe(first: u8) -> Option<&'static str> {
    Some(match first {
        b'{' => "an object",
        b'[' => "an array",
        b'"' => "a string",
        b't' | b'f' => "a boolean",
        b'n' => "null",
        b'-' | b'0'..=b'9' => "a number",
        _ => return None,
    })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Ends after its closing quote.
    String,
    /// Ends after the bracket that closes it.
    Container,
    /// A number or literal: ends before whitespace, `,`, `]` or `}`, or at the end of input.
    Scalar,
}

/// Finds where one JSON value ends. It frames; the parser validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Skipper {
    kind: Kind,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Absolute offset of the next byte to look at.
    pub scanned: u64,
}

impl Skipper {
    /// A value whose first byte `first` is at absolute offset `start`.
    pub fn new(start: u64, first: u8) -> Self {
        let kind = match first {
            b'"' => Kind::String,
            b'{' | b'[' => Kind::Container,
            _ => Kind::Scalar,
        };
        Skipper {
            kind,
            depth: 0,
            in_string: false,
            escaped: false,
            scanned: start,
        }
    }

    /// Scans `bytes`, which begin at `self.scanned`; returns the absolute end (exclusive) once
    /// the value is complete.
    pub fn scan(&mut self, bytes: &[u8]) -> Option<u64> {
        for (i, &b) in bytes.iter().enumerate() {
            if self.in_string {
                if self.escaped {
                    self.escaped = false;
                } else if b == b'\\' {
                    self.escaped = true;
                } else if b == b'"' {
                    self.in_string = false;
                    if self.kind == Kind::String {
                        return Some(self.scanned + i as u64 + 1);
                    }
                }
                continue;
            }
            if self.kind == Kind::Scalar {
                if is_ws(b) || matches!(b, b',' | b']' | b'}') {
                    return Some(self.scanned + i as u64);
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        return Some(self.scanned + i as u64 + 1);
                    }
                }
                _ => {}
            }
        }
        self.scanned += bytes.len() as u64;
        None
    }

    /// A number or literal is complete at the end of the input; nothing else is.
    pub fn ends_at_eof(&self) -> bool {
        self.kind == Kind::Scalar
    }
}

/// Whether byte `at` of a complete value lies inside a string (used to tell invalid UTF-8 in a
/// string from a stray byte between tokens).
pub(crate) fn in_string_at(value: &[u8], at: usize) -> bool {
    let (mut in_string, mut escaped) = (false, false);
    for &b in &value[..at] {
        if escaped {
            escaped = false;
        } else if in_string && b == b'\\' {
            escaped = true;
        } else if b == b'"' {
            in_string = !in_string;
        }
    }
    in_string
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &[u8], split: usize) -> Option<u64> {
        let mut s = Skipper::new(0, text[0]);
        s.scan(&text[..split]).or_else(|| s.scan(&text[split..]))
    }

    #[test]
    fn frames_each_kind_across_any_split() {
        let cases: [(&[u8], u64); 5] = [
            (br#""a\"b\\" tail"#, 8),
            (br#"{"k":["]}",{"x":1}]},"#, 20),
            (b"-12.5e3 ,", 7),
            (b"true]", 4),
            (br#"[[],{}] "#, 7),
        ];
        for (text, end) in cases {
            for split in 0..=text.len() {
                assert_eq!(
                    frame(text, split),
                    Some(end),
                    "{:?} split at {split}",
                    String::from_utf8_lossy(text)
                );
            }
        }
    }

    #[test]
    fn incomplete_values_need_more() {
        let mut s = Skipper::new(10, b'{');
        assert_eq!(s.scan(br#"{"a":"}"#), None);
        assert_eq!(s.scanned, 17);
        assert!(!s.ends_at_eof());
        assert!(Skipper::new(0, b'1').ends_at_eof());
    }

    #[test]
    fn tells_string_bytes_from_others() {
        let v = br#"{"a\"":"xy", "b":1}"#;
        assert!(in_string_at(v, 3));
        assert!(in_string_at(v, 8));
        assert!(!in_string_at(v, 11));
        assert!(!in_string_at(v, 17));
    }
}
