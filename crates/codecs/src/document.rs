//! Strategies for any JSON document (`--payload FILE`): those that need no Rust type.

use crate::libraries::{All, LibraryStrategies, serde_json, sonic_rs};
use crate::strategy::BoxedStrategy;

/// Deserialize strategies for an arbitrary document, baseline (`dom/serde_json`) first;
/// `lazy/sonic-rs` only when `fields` (JSON pointers) are given.
pub fn deserialize_strategies<'a>(input: &'a [u8], fields: &[String]) -> Vec<BoxedStrategy<'a>> {
    let mut v = All::dom(input);
    v.push(serde_json::raw_strategy(input));
    if !fields.is_empty() {
        v.push(sonic_rs::lazy_strategy(input, fields));
    }
    v
}

/// Serialize strategies for an arbitrary document: each library's DOM written back out. The
/// baseline's DOM is the payload's: a document serde_json cannot read is refused (`Err`);
/// another library that cannot hold it (simd-json and a 30-digit integer) fails its own row.
pub fn serialize_strategies<'a>(input: &[u8]) -> Result<Vec<BoxedStrategy<'a>>, String> {
    serde_json::check_dom(input)?;
    Ok(All::serialize_dom(input))
}

/// Validates a JSON pointer's syntax (`""` or `/a/b/0`).
pub fn check_pointer(p: &str) -> Result<(), String> {
    if !(p.is_empty() || p.starts_with('/')) {
        return Err(format!("invalid JSON pointer {p:?}: it must be empty or start with '/'"));
    }
    // RFC 6901: '~' only escapes, as "~0" ('~') and "~1" ('/').
    match p
        .match_indices('~')
        .find(|(i, _)| !matches!(p.as_bytes().get(i + 1), Some(b'0' | b'1')))
    {
        Some((i, _)) => Err(format!(
            "invalid JSON pointer {p:?}: '~' at byte {i} must be followed by 0 or 1 (\"~0\" is '~', \"~1\" is '/', RFC 6901)"
        )),
        None => Ok(()),
    }
}
