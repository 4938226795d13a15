//! Records how the JSON libraries are built, for results files (`machine.build`):
//! their versions, the profile's opt-level, the LTO set through the environment and the
//! target CPU from the rustflags.
//!
//! Versions: none of the libraries exports its own (no `VERSION` constant), and cargo gives a
//! build script no dependency's version (`DEP_*` exists only for `links` crates). So the
//! versions come from the Cargo.lock the build resolved with, found above the target directory
//! (OUT_DIR is `<target>/<profile>/build/<pkg>-<hash>/out`, the target directory usually the
//! workspace's `target/`) or above this crate's manifest (jsoncost's own workspace). A lock
//! is taken only if it names this very package and version, so a target directory shared by
//! another workspace does not lend its lock; where none is found the versions are `unknown`,
//! never guessed. `cargo metadata` would be exact but runs cargo inside a build (locks,
//! network, a second resolution), which a dependency's build script should not do.

use std::path::{Path, PathBuf};

/// The libraries whose versions are recorded, in the results' order.
const LIBRARIES: &[&str] = &[
    "serde_json",
    "sonic-rs",
    "simd-json",
    "jiter",
    "serde_json_borrow",
    "simd-json-derive",
    "nanoserde",
    "miniserde",
    "struson",
    "facet-json",
];

fn main() {
    let mut versions = Vec::new();
    let lock = find_lock();
    if let Some(path) = &lock {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let text = lock.as_deref().and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
    let packages = packages(&text);
    for name in LIBRARIES {
        let found: Vec<&str> = packages.iter().filter(|(n, _)| n == name).map(|(_, v)| v.as_str()).collect();
        // Absent from the lock: not compiled in (an optional library left out).
        if found.is_empty() && !text.is_empty() {
            continue;
        }
        let version = match found.as_slice() {
            [] => "unknown".to_string(),
            [one] => one.to_string(),
            // Several versions in the lock: the one this crate depends on, as its entry names it.
            several => own_dependency(&text, name).unwrap_or_else(|| several.join(" or ")),
        };
        versions.push(format!("{name}={version}"));
    }
    println!("cargo:rustc-env=JSONCOST_LIBRARY_VERSIONS={}", versions.join(","));
    let profile = std::env::var("PROFILE").unwrap_or_default().to_uppercase();
    let lto_var = format!("CARGO_PROFILE_{profile}_LTO");
    println!("cargo:rerun-if-env-changed={lto_var}");
    println!("cargo:rustc-env=JSONCOST_BUILD_LTO={}", std::env::var(&lto_var).unwrap_or_default());
    println!(
        "cargo:rustc-env=JSONCOST_BUILD_OPT_LEVEL={}",
        std::env::var("OPT_LEVEL").unwrap_or_default()
    );
    let rustflags = std::env::var("CARGO_ENCODED_RUSTFLAGS").unwrap_or_default();
    println!(
        "cargo:rustc-env=JSONCOST_BUILD_TARGET_CPU={}",
        target_cpu(&rustflags).unwrap_or_default()
    );
}

/// The value of the last `-C target-cpu=…` in the `\x1f`-separated rustflags.
fn target_cpu(encoded: &str) -> Option<String> {
    let words: Vec<&str> = encoded.split('\x1f').collect();
    let mut cpu = None;
    for (i, w) in words.iter().enumerate() {
        let setting = match *w {
            "-C" | "--codegen" => words.get(i + 1).copied(),
            w => w.strip_prefix("-C").or_else(|| w.strip_prefix("--codegen=")),
        };
        if let Some(v) = setting.and_then(|s| s.strip_prefix("target-cpu=")) {
            cpu = Some(v.to_string());
        }
    }
    cpu
}

fn find_lock() -> Option<PathBuf> {
    let own = format!(
        "name = \"{}\"\nversion = \"{}\"",
        std::env::var("CARGO_PKG_NAME").ok()?,
        std::env::var("CARGO_PKG_VERSION").ok()?
    );
    let starts = [std::env::var_os("OUT_DIR"), std::env::var_os("CARGO_MANIFEST_DIR")];
    for start in starts.iter().flatten() {
        let mut dir: Option<&Path> = Some(Path::new(start));
        while let Some(d) = dir {
            let lock = d.join("Cargo.lock");
            if std::fs::read_to_string(&lock).is_ok_and(|t| t.contains(&own)) {
                return Some(lock);
            }
            dir = d.parent();
        }
    }
    None
}

/// Every `[[package]]`'s (name, version): the lock's `name = "…"` line is followed by its
/// `version = "…"` line (lock formats 1–4).
fn packages(text: &str) -> Vec<(String, String)> {
    let quoted = |line: &str, key: &str| {
        line.strip_prefix(key)
            .and_then(|r| r.trim().strip_prefix('='))
            .map(|r| r.trim().trim_matches('"').to_string())
    };
    let mut out = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(name) = quoted(line, "name ")
            && let Some(version) = lines.next().and_then(|l| quoted(l, "version "))
        {
            out.push((name, version));
        }
    }
    out
}

/// The version of `name` this crate's entry in the lock names (`"sonic-rs 0.5.10"`).
fn own_dependency(text: &str, name: &str) -> Option<String> {
    let own = format!("name = \"{}\"", std::env::var("CARGO_PKG_NAME").ok()?);
    let entry = text.split("[[package]]").find(|e| e.trim_start().starts_with(&own))?;
    let prefix = format!("\"{name} ");
    entry.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix(&prefix)?.split([' ', '"']).next().map(str::to_string)
    })
}
