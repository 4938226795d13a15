//! JSON pointers (RFC 6901) naming the array to stream, e.g. `/Readings`; `""` is the document.

use std::fmt;
use std::str::FromStr;

/// A parsed JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    text: String,
    tokens: Vec<String>,
}

/// A string that is not a JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PointerError {
    /// A pointer that is neither empty nor starts with `/`.
    #[error("JSON pointer {0:?} must be empty or start with '/'")]
    NoLeadingSlash(String),
    /// A `~` not followed by `0` or `1`.
    #[error("JSON pointer {pointer:?} has a '~' at byte {at} not followed by '0' or '1'")]
    BadEscape {
        /// The pointer.
        pointer: String,
        /// The byte offset of the `~`.
        at: usize,
    },
}

impl Pointer {
    /// Parses `text`; `~1` stands for `/` and `~0` for `~` inside a token.
    pub fn parse(text: &str) -> Result<Self, PointerError> {
        if text.is_empty() {
            return Ok(Pointer {
                text: String::new(),
                tokens: Vec::new(),
            });
        }
        let Some(rest) = text.strip_prefix('/') else {
            return Err(PointerError::NoLeadingSlash(text.to_string()));
        };
        let mut tokens = Vec::new();
        let mut at = 1;
        for raw in rest.split('/') {
            let mut token = String::with_capacity(raw.len());
            let mut chars = raw.char_indices();
            while let Some((i, c)) = chars.next() {
                if c == '~' {
                    match chars.next() {
                        Some((_, '0')) => token.push('~'),
                        Some((_, '1')) => token.push('/'),
                        _ => {
                            return Err(PointerError::BadEscape {
                                pointer: text.to_string(),
                                at: at + i,
                            });
                        }
                    }
                } else {
                    token.push(c);
                }
            }
            at += raw.len() + 1;
            tokens.push(token);
        }
        Ok(Pointer {
            text: text.to_string(),
            tokens,
        })
    }

    /// The pointer as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The unescaped reference tokens.
    pub fn tokens(&self) -> &[String] {
        &self.tokens
    }

    /// The pointer made of the first `n` tokens, as text.
    pub(crate) fn prefix(&self, n: usize) -> String {
        let mut s = String::new();
        for t in &self.tokens[..n] {
            push_token(&mut s, t);
        }
        s
    }
}

/// Appends `/token` to a pointer text, escaping `~` and `/`.
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The array index a token names: `0` or a decimal without leading zeros (RFC 6901 section 4);
/// `None` for any other token (`01`, `+1`, `-1`), which names no element.
pub fn array_index(token: &str) -> Option<u64> {
    let ok = token == "0" || (!token.is_empty() && !token.starts_with('0') && token.bytes().all(|b| b.is_ascii_digit()));
    if ok { token.parse().ok() } else { None }
}

impl FromStr for Pointer {
    type Err = PointerError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Pointer::parse(s)
    }
}

impl fmt::Display for Pointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_unescapes_tokens() {
        let p = Pointer::parse("/a~1b/~0c/0").unwrap();
        assert_eq!(p.tokens(), ["a/b", "~c", "0"]);
        assert_eq!(p.prefix(2), "/a~1b/~0c");
        assert_eq!(Pointer::parse("").unwrap().tokens().len(), 0);
        assert_eq!(Pointer::parse("/").unwrap().tokens(), [""]);
    }

    #[test]
    fn rejects_bad_pointers_naming_the_problem() {
        assert_eq!(
            Pointer::parse("Readings").unwrap_err().to_string(),
            "JSON pointer \"Readings\" must be empty or start with '/'"
        );
        assert_eq!(
            Pointer::parse("/ab/c~2").unwrap_err(),
            PointerError::BadEscape {
                pointer: "/ab/c~2".into(),
                at: 5
            }
        );
        assert_eq!(
            Pointer::parse("/a~").unwrap_err(),
            PointerError::BadEscape {
                pointer: "/a~".into(),
                at: 2
            }
        );
    }

    #[test]
    fn array_indexes_follow_rfc_6901() {
        assert_eq!(array_index("0"), Some(0));
        assert_eq!(array_index("17"), Some(17));
        assert_eq!(array_index("017"), None);
        assert_eq!(array_index("-1"), None);
        assert_eq!(array_index(""), None);
        assert_eq!(array_index("1a"), None);
    }
}
