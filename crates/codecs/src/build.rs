//! How the JSON libraries under measurement were built (`machine.build` in results files).
//!
//! serde_json's features are detected by how the compiled serde_json behaves, not by a
//! `cfg!`: a crate cannot see a dependency's features, and in a user's crate features unify
//! across the whole dependency graph (another dependency turning on `arbitrary_precision`
//! changes jsoncost's serde_json too), so behaviour is the one fact that holds for the binary
//! that measures.

use jsoncost_engine::{Build, LibraryVersion, Results};

/// serde_json's features that change results, in this order.
pub const SERDE_JSON_FEATURES: [&str; 3] = ["float_roundtrip", "preserve_order", "arbitrary_precision"];

/// A float whose correctly rounded value serde_json's default (fast, not correctly rounded)
/// parser misses by one ulp.
const HARD_FLOAT: &str = "293779.556074880382";

/// The features of [`SERDE_JSON_FEATURES`] the compiled serde_json has.
pub fn serde_json_features() -> Vec<String> {
    // float_roundtrip: the hard float is read correctly rounded (as the standard library reads it).
    let exact: f64 = HARD_FLOAT.parse().unwrap_or_default();
    let float_roundtrip = serde_json::from_str::<f64>(HARD_FLOAT).is_ok_and(|v| v.to_bits() == exact.to_bits());
    // preserve_order: a map keeps insertion order instead of sorting its keys.
    let preserve_order = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(r#"{"b":1,"a":2}"#)
        .is_ok_and(|m| m.keys().next().is_some_and(|k| k == "b"));
    // arbitrary_precision: a number beyond f64 is kept as its text, not refused.
    let arbitrary_precision = serde_json::from_str::<serde_json::Value>("1.0e400")
        .and_then(|v| serde_json::to_string(&v))
        .is_ok_and(|text| text == "1.0e400");
    [float_roundtrip, preserve_order, arbitrary_precision]
        .into_iter()
        .zip(SERDE_JSON_FEATURES)
        .filter(|(on, _)| *on)
        .map(|(_, name)| name.to_string())
        .collect()
}

/// Whether the compiled serde_json has `feature` (one of [`SERDE_JSON_FEATURES`]), detected once.
pub fn has_serde_json_feature(feature: &str) -> bool {
    static FEATURES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    FEATURES.get_or_init(serde_json_features).iter().any(|f| f == feature)
}

/// The library versions the build script found (see `build.rs`: from the Cargo.lock the build
/// resolved with; `unknown` where none was found).
pub fn library_versions() -> Vec<LibraryVersion> {
    parse_versions(env!("JSONCOST_LIBRARY_VERSIONS"))
}

fn parse_versions(text: &str) -> Vec<LibraryVersion> {
    text.split(',')
        .filter_map(|p| p.split_once('='))
        .map(|(name, version)| LibraryVersion {
            name: name.to_string(),
            version: version.to_string(),
        })
        .collect()
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// This build of the libraries.
pub fn current() -> Build {
    Build {
        libraries: library_versions(),
        serde_json_features: serde_json_features(),
        opt_level: non_empty(env!("JSONCOST_BUILD_OPT_LEVEL")),
        debug_assertions: cfg!(debug_assertions),
        lto: non_empty(env!("JSONCOST_BUILD_LTO")),
        panic: Some(if cfg!(panic = "abort") { "abort" } else { "unwind" }.to_string()),
        target_cpu: non_empty(env!("JSONCOST_BUILD_TARGET_CPU")),
    }
}

/// An empty results file stamped with this build and machine: what every run's and every
/// A/B's results start from.
pub fn new_results(quick: bool) -> Results {
    Results {
        schema_version: jsoncost_engine::SCHEMA_VERSION,
        // Every jsoncost crate has the workspace's one version.
        jsoncost_version: env!("CARGO_PKG_VERSION").to_string(),
        machine: jsoncost_engine::Machine {
            build: Some(current()),
            ..jsoncost_engine::machine::current()
        },
        started_at: jsoncost_engine::machine::now_rfc3339(),
        quick,
        rates: Default::default(),
        interrupted: false,
        experiments: Vec::new(),
        allocators: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_records_the_libraries_and_serde_json_as_configured_here() {
        let b = current();
        // The workspace builds serde_json with `raw_value` only.
        assert_eq!(b.serde_json_features, Vec::<String>::new());
        let version = |name: &str| b.libraries.iter().find(|l| l.name == name).map(|l| l.version.clone());
        assert_eq!(version("serde_json").as_deref(), Some("1.0.154"));
        assert_eq!(version("simd-json").as_deref(), Some("0.19.0"));
        assert!(version("sonic-rs").is_some_and(|v| v.starts_with("0.5.")), "{b:?}");
        assert_eq!(b.debug_assertions, cfg!(debug_assertions));
        assert_eq!(b.target_cpu.as_deref(), Some("native"));
        assert_eq!(b.panic.as_deref(), Some("unwind"));
    }

    #[test]
    fn versions_parse_from_the_build_scripts_list() {
        assert_eq!(
            parse_versions("serde_json=1.0.154,sonic-rs=unknown"),
            vec![
                LibraryVersion {
                    name: "serde_json".into(),
                    version: "1.0.154".into()
                },
                LibraryVersion {
                    name: "sonic-rs".into(),
                    version: "unknown".into()
                },
            ]
        );
        assert_eq!(parse_versions(""), vec![]);
    }
}
