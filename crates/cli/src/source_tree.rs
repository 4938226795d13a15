//! Where this binary's source tree is: `--measure counts` and `levers` build jsoncost again
//! from it.
//!
//! The path is held in a fixed-size static rather than as a string literal. A literal's
//! length moves every read-only constant after it, and with them the alignment of what
//! serializers copy from there (field names), so a counting build made from a clone in another
//! directory would count other instructions on rows the path never touches. With the path
//! padded to one size (and the counting build's panic locations remapped,
//! [`crate::commands::counts`]), two clones lay out their binaries alike.

use std::path::{Path, PathBuf};

/// Longest path the static holds: Linux's `PATH_MAX`.
const CAPACITY: usize = 4096;

/// The crate's manifest directory, NUL-padded to [`CAPACITY`] bytes.
static MANIFEST_DIR: [u8; CAPACITY] = padded(env!("CARGO_MANIFEST_DIR"));

const fn padded(path: &str) -> [u8; CAPACITY] {
    let bytes = path.as_bytes();
    assert!(bytes.len() < CAPACITY, "the source tree's path is longer than PATH_MAX");
    let mut out = [0u8; CAPACITY];
    let mut i = 0;
    while i < bytes.len() {
        out[i] = bytes[i];
        i += 1;
    }
    out
}

/// The workspace this binary was built from (two levels above the cli crate), whether or not
/// it is still there.
pub fn workspace() -> PathBuf {
    let len = MANIFEST_DIR.iter().position(|b| *b == 0).unwrap_or(CAPACITY);
    let manifest_dir = std::str::from_utf8(&MANIFEST_DIR[..len]).expect("env! gives UTF-8");
    Path::new(manifest_dir).join("../..")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_workspace_is_two_levels_above_the_cli_crate() {
        assert_eq!(
            super::workspace().canonicalize().unwrap(),
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .canonicalize()
                .unwrap()
        );
        assert!(super::workspace().join("crates/cli/Cargo.toml").is_file());
    }
}
