//! Which code is JSON code in a profile of someone's server: the crates of every JSON library
//! jsoncost knows (measured here or one a team weighs), by the first segment of their symbols'
//! paths, and serde's own crates, whose `Serialize`/`Deserialize` impls (a team's derived ones
//! too) do the work a JSON library drives. The one list `jsoncost_conductor::profile` reads.

/// A JSON library's crate as its symbols name it (`serde_json::de::from_slice`), and the
/// library's name as jsoncost writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JsonCrate {
    /// The first segment of the crate's symbol paths (the crate name, `-` as `_`).
    pub root: &'static str,
    /// The library it belongs to, as rows name it.
    pub library: &'static str,
}

const fn lib(root: &'static str, library: &'static str) -> JsonCrate {
    JsonCrate { root, library }
}

/// Every JSON library's crates: those jsoncost measures, their helper crates, and the other
/// libraries a team weighs.
pub const JSON_CRATES: &[JsonCrate] = &[
    lib("serde_json", "serde_json"),
    lib("sonic_rs", "sonic-rs"),
    lib("sonic_number", "sonic-rs"),
    lib("sonic_simd", "sonic-rs"),
    lib("simd_json", "simd-json"),
    lib("value_trait", "simd-json"),
    lib("simd_json_derive", "simd-json-derive"),
    lib("jiter", "jiter"),
    lib("serde_json_borrow", "serde_json_borrow"),
    lib("nanoserde", "nanoserde"),
    lib("miniserde", "miniserde"),
    lib("facet_json", "facet-json"),
    lib("ijson", "ijson"),
    lib("json", "json"),
    lib("struson", "struson"),
    lib("tinyjson", "tinyjson"),
    lib("serde_path_to_error", "serde_path_to_error"),
];

/// serde's crates: a frame of theirs, or of an impl of one of their traits, is JSON work in a
/// JSON server.
pub const SERDE_CRATES: &[&str] = &["serde", "serde_core"];

/// The JSON library whose crate is `root`, if any.
pub fn json_library(root: &str) -> Option<&'static str> {
    JSON_CRATES.iter().find(|c| c.root == root).map(|c| c.library)
}
