//! Which frames of a stack are JSON work, which way it went, and who called it.
//!
//! A frame is JSON when its path starts in a JSON library's crate (`serde_json::ser::to_writer`),
//! when it is a method of a type of one (`<serde_json::de::Deserializer<R> as …>::…`), when it
//! implements one of serde's traits (`<my::Order as serde::de::Deserialize>::deserialize`,
//! `my::_::<impl serde::ser::Serialize for my::Order>::serialize`, a derived visitor), or when
//! it drops a JSON library's value (`core::ptr::drop_in_place<serde_json::value::Value>`).
//! The crates come from `jsoncost_codecs::libraries::symbols`.

use jsoncost_codecs::libraries::symbols::{SERDE_CRATES, json_library};
use jsoncost_engine::profile::Direction;

/// Crates whose frames are plumbing between a handler and the JSON call: the standard
/// library, the async runtime and the HTTP stack. A call site's caller is the nearest frame
/// outside them and outside JSON code.
const PLUMBING: &[&str] = &[
    "core",
    "alloc",
    "std",
    "tokio",
    "futures",
    "futures_util",
    "futures_core",
    "hyper",
    "hyper_util",
    "tower",
    "h2",
    "http_body_util",
    "tracing",
    "tracing_futures",
    "pin_project_lite",
];

/// What one frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FrameKind {
    /// JSON code.
    Json,
    /// The standard library, the runtime, the HTTP stack.
    Plumbing,
    /// Anything else: the server's own code, its framework, other libraries.
    Other,
}

/// The roots of the paths a symbol names, in order: the first segment of each path in it
/// (`<alloc::vec::Vec<u8> as std::io::Write>::write` → `alloc`, `std`; `u8` is no path).
fn path_roots(symbol: &str) -> impl Iterator<Item = &str> {
    let bytes = symbol.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let starts = i == 0 || matches!(bytes[i - 1], b'<' | b' ' | b'&' | b'(' | b',' | b'*' | b'[' | b';');
        if starts && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
            let end = bytes[i..]
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .map_or(bytes.len(), |p| i + p);
            if symbol[end..].starts_with("::") {
                out.push(&symbol[i..end]);
            }
            i = end;
        } else {
            i += 1;
        }
    }
    out.into_iter()
}

/// The crate whose code a frame is: the first path's root, or for `<T as Trait>::m` the type's.
fn owner(symbol: &str) -> Option<&str> {
    path_roots(symbol).next()
}

/// Whether `symbol` implements one of serde's traits (a derived impl, its visitor).
fn serde_impl(symbol: &str) -> bool {
    SERDE_CRATES
        .iter()
        .any(|c| symbol.contains(&format!(" as {c}::")) || symbol.contains(&format!("<impl {c}::")))
}

/// Whether `symbol` drops a JSON library's value.
fn drops_json(symbol: &str) -> bool {
    symbol
        .strip_prefix("core::ptr::drop_in_place<")
        .and_then(|t| path_roots(t.trim_start_matches(['&', '*', ' '])).next())
        .is_some_and(|root| json_library(root).is_some())
}

/// What `symbol` (demangled, without its hash) is.
pub fn frame_kind(symbol: &str) -> FrameKind {
    let Some(root) = owner(symbol) else { return FrameKind::Other };
    if json_library(root).is_some() || SERDE_CRATES.contains(&root) || serde_impl(symbol) || drops_json(symbol) {
        return FrameKind::Json;
    }
    // `<serde_json::ser::Serializer<W> as serde::ser::Serializer>::…` starts with `<`: its
    // first root is the type's crate, caught above; a trait impl of a JSON crate's trait on a
    // std type (`<alloc::vec::Vec<T> as serde::ser::Serialize>`) is caught by `serde_impl`.
    if PLUMBING.contains(&root) {
        FrameKind::Plumbing
    } else {
        FrameKind::Other
    }
}

const PARSE_WORDS: &[&str] = &[
    "::de::",
    "Deserialize",
    "Visitor",
    "MapAccess",
    "SeqAccess",
    "EnumAccess",
    "::from_slice",
    "::from_str",
    "::from_reader",
    "::from_value",
    "::from_trait",
    "::parse",
    "::parser::",
    "::lazyvalue::",
    "::reader::",
    "to_owned_value",
    "to_borrowed_value",
    "::get_from",
];

const WRITE_WORDS: &[&str] = &[
    "::ser::",
    "Serialize",
    "::to_writer",
    "::to_vec",
    "::to_string",
    "::to_value",
    "Formatter",
    "::writer::",
    "format_escaped_str",
    "::encode",
];

/// The direction a JSON frame's name says, if it says one.
fn frame_direction(symbol: &str) -> Option<Direction> {
    // A drop first: `drop_in_place<serde_json::de::…>` frees, whatever its type's path says.
    if symbol.starts_with("core::ptr::drop_in_place<") {
        return Some(Direction::Free);
    }
    let parse = PARSE_WORDS.iter().any(|w| symbol.contains(w));
    let write = WRITE_WORDS.iter().any(|w| symbol.contains(w));
    match (parse, write) {
        (true, false) => Some(Direction::Parse),
        (false, true) => Some(Direction::Write),
        // `<Value as Serialize>::serialize` into a `Deserializer`? Both words: the trait
        // after ` as ` decides.
        (true, true) => symbol.rsplit_once(" as ").map(|(_, t)| {
            if PARSE_WORDS.iter().any(|w| t.contains(w)) {
                Direction::Parse
            } else {
                Direction::Write
            }
        }),
        (false, false) => None,
    }
}

/// One stack's attribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attribution {
    /// The outermost JSON frame's index (frames root first).
    pub entry: usize,
    /// Every JSON frame's index, root first.
    pub json: Vec<usize>,
    /// The nearest frame above it outside JSON code and plumbing.
    pub caller: Option<usize>,
    /// The work's direction.
    pub direction: Direction,
}

/// The attribution of a stack (frames root first), or `None` when no frame is JSON. The
/// direction is the outermost JSON frame's that names one, searching from the root: the entry
/// point decides (a `Vec` grown while writing is writing; a drop inside a parse is parsing).
pub fn attribute(frames: &[&str]) -> Option<Attribution> {
    let kinds: Vec<FrameKind> = frames.iter().map(|f| frame_kind(f)).collect();
    let json: Vec<usize> = (0..frames.len()).filter(|&i| kinds[i] == FrameKind::Json).collect();
    let entry = *json.first()?;
    let direction = json.iter().find_map(|&i| frame_direction(frames[i])).unwrap_or(Direction::Other);
    let caller = (0..entry).rev().find(|&i| kinds[i] == FrameKind::Other);
    Some(Attribution {
        entry,
        json,
        caller,
        direction,
    })
}

/// A frame's name for a reader: generic arguments and closure markers kept, but at most
/// `MAX_NAME` characters (the tail kept, where the method is).
pub fn display_name(symbol: &str) -> String {
    const MAX_NAME: usize = 120;
    if symbol.chars().count() <= MAX_NAME {
        return symbol.to_string();
    }
    let tail: String = symbol
        .chars()
        .rev()
        .take(MAX_NAME - 1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_frames_are_a_json_librarys_serdes_and_the_impls_of_serdes_traits() {
        for json in [
            "serde_json::ser::to_writer",
            "serde_json::de::from_trait",
            "<serde_json::de::Deserializer<R> as serde::de::Deserializer>::deserialize_struct",
            "<my_server::Order as serde::de::Deserialize>::deserialize",
            "my_server::_::<impl serde::ser::Serialize for my_server::Order>::serialize",
            "<my_server::_::<impl serde::de::Deserialize for my_server::Order>::deserialize::__Visitor as serde::de::Visitor>::visit_map",
            "<alloc::vec::Vec<T> as serde_core::ser::Serialize>::serialize",
            "core::ptr::drop_in_place<serde_json::value::Value>",
            "sonic_rs::serde::de::from_slice",
            "simd_json::Deserializer::from_slice",
            "serde::ser::impls::<impl serde::ser::Serialize for str>::serialize",
        ] {
            assert_eq!(frame_kind(json), FrameKind::Json, "{json}");
        }
        for other in [
            "my_server::handlers::list::{{closure}}",
            "tracing_serde::AsSerde::new",
            "my_serde_helpers::go",
            "[unknown]",
            "_start",
        ] {
            assert_eq!(frame_kind(other), FrameKind::Other, "{other}");
        }
        assert_eq!(frame_kind("tokio::runtime::task::harness::poll"), FrameKind::Plumbing);
        // Dropping the server's own value is std's work, not JSON's.
        assert_eq!(frame_kind("core::ptr::drop_in_place<my_server::Order>"), FrameKind::Plumbing);
        assert_eq!(
            frame_kind("<alloc::vec::Vec<u8> as std::io::Write>::write_all"),
            FrameKind::Plumbing
        );
        assert_eq!(frame_kind("__memmove_avx_unaligned_erms"), FrameKind::Other);
    }

    #[test]
    fn the_entry_decides_the_direction_and_the_caller_is_the_nearest_frame_outside_json_and_plumbing() {
        let write = [
            "main",
            "tokio::runtime::task::harness::poll",
            "my_server::handlers::list::{{closure}}",
            "<axum::json::Json<T> as axum_core::response::into_response::IntoResponse>::into_response",
            "core::ops::function::FnOnce::call_once",
            "serde_json::ser::to_writer",
            "<my_server::Order as serde::ser::Serialize>::serialize",
            "alloc::raw_vec::RawVec<T,A>::grow_one",
            "malloc",
        ];
        let a = attribute(&write).unwrap();
        assert_eq!((a.entry, a.caller, a.direction), (5, Some(3), Direction::Write));

        let parse = [
            "main",
            "my_server::handlers::create::{{closure}}",
            "serde_json::de::from_slice",
            "<my_server::Order as serde::de::Deserialize>::deserialize",
            "core::ptr::drop_in_place<serde_json::value::Value>",
        ];
        let a = attribute(&parse).unwrap();
        assert_eq!((a.entry, a.caller, a.direction), (2, Some(1), Direction::Parse));

        let free = [
            "main",
            "my_server::handlers::item",
            "core::ptr::drop_in_place<serde_json::value::Value>",
            "free",
        ];
        assert_eq!(attribute(&free).unwrap().direction, Direction::Free);

        assert_eq!(attribute(&["main", "my_server::handlers::item", "memcpy"]), None);
        // Cut short by the unwinding: no caller.
        let a = attribute(&["serde_json::value::Value::pointer", "memcmp"]).unwrap();
        assert_eq!((a.caller, a.direction), (None, Direction::Other));
    }

    #[test]
    fn long_names_keep_their_tail() {
        let long = format!("{}::method", "a".repeat(200));
        let shown = display_name(&long);
        assert_eq!(shown.chars().count(), 120);
        assert!(shown.starts_with('…') && shown.ends_with("::method"));
        assert_eq!(display_name("serde_json::to_vec"), "serde_json::to_vec");
    }
}
