//! Named baselines: `--save-baseline NAME` keeps a results file under
//! `jsoncost-results/baselines/NAME.json`; `compare` takes a file path or such a name.

use anyhow::anyhow;
use std::path::{Path, PathBuf};

use crate::failure::usage;

/// Where results and baselines go unless `--out` says otherwise.
pub const RESULTS_DIR: &str = "jsoncost-results";

pub fn baseline_dir() -> PathBuf {
    Path::new(RESULTS_DIR).join("baselines")
}

/// Checks a baseline name: it becomes a file name.
pub fn check_name(name: &str) -> anyhow::Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 100
        && name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && !name.starts_with('.');
    if ok {
        Ok(())
    } else {
        Err(usage(anyhow!(
            "invalid baseline name {name:?}: use letters, digits, '-', '_' and '.'"
        )))
    }
}

pub fn path_of(name: &str) -> PathBuf {
    baseline_dir().join(format!("{name}.json"))
}

/// A results file path, or the name of a saved baseline.
pub fn resolve(arg: &str) -> anyhow::Result<PathBuf> {
    let as_path = PathBuf::from(arg);
    if as_path.exists() {
        return Ok(as_path);
    }
    if check_name(arg).is_ok() && path_of(arg).exists() {
        return Ok(path_of(arg));
    }
    let saved = saved_names();
    let known = if saved.is_empty() {
        "no baselines are saved".to_string()
    } else {
        format!("saved baselines: {}", saved.join(", "))
    };
    Err(usage(anyhow!(
        "{arg:?} is neither a results file nor a saved baseline ({known} in {})",
        baseline_dir().display()
    )))
}

/// The names of the saved baselines (`NAME.json` files, not temporary ones), sorted.
fn saved_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(baseline_dir())
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
                .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
                .filter(|name| check_name(name).is_ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}
