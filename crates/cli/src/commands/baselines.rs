//! Named baselines: `--save-baseline NAME` keeps a results file under
//! `jsoncost-results/baselines/NAME.json`; `compare` takes a file path or such a name. The
//! library's (the bench harness saves baselines the same way), with the CLI's errors.

use std::path::PathBuf;

use jsoncost::output::baselines;

use crate::failure::library;

pub use baselines::{baseline_dir, path_of};

/// Checks a baseline name: it becomes a file name.
pub fn check_name(name: &str) -> anyhow::Result<()> {
    baselines::check_name(name).map_err(library)
}

/// A results file path, or the name of a saved baseline.
pub fn resolve(arg: &str) -> anyhow::Result<PathBuf> {
    baselines::resolve(arg).map_err(library)
}
