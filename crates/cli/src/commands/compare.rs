//! `jsoncost compare BASE NEW`: per row, the change in time and allocation with a verdict;
//! exit 1 on a row slower beyond the threshold and what the files resolve (`report::compare`),
//! any allocation growth, or a row ok in BASE that failed or is missing in NEW (unless
//! `--allow-missing`).

use std::path::PathBuf;

use anyhow::anyhow;
use jsoncost_report::{Format, compare, files};

use super::baselines;
use crate::failure::{regression, usage};
use crate::session::{format_parser, print_stdout};

#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// The baseline: a results.json file, a run's output directory or a saved baseline name.
    pub base: String,
    /// The new results: a results.json file, a run's output directory or a saved baseline name.
    pub new: String,
    /// Smallest time change that counts, e.g. 5% or 0.05.
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    pub threshold: f64,
    /// Where both files counted a row (`--measure counts`), the smallest change of its
    /// instructions per operation that counts; its time is then advice only.
    #[arg(long, default_value = "1%", value_parser = parse_threshold)]
    pub count_threshold: f64,
    /// Accept rows that were ok in BASE and failed or are missing in NEW (a filtered run);
    /// without it they fail the gate.
    #[arg(long)]
    pub allow_missing: bool,
    /// More runs of the base build (results files or baseline names): how far they move
    /// against BASE is what a change must exceed to be a finding, and is reported.
    #[arg(long = "base-run", value_name = "FILE")]
    pub base_runs: Vec<String>,
    /// What stdout carries (markdown suits PR comments).
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
}

/// "5%" → 0.05, "0.05" → 0.05.
pub fn parse_threshold(s: &str) -> Result<f64, String> {
    let v = jsoncost::flags::percent_or_fraction(s).ok_or_else(|| format!("{s:?} is not a threshold like 5% or 0.05"))?;
    if (0.0..1.0).contains(&v) {
        Ok(v)
    } else {
        Err(format!("threshold {s:?} must be between 0% and 100%"))
    }
}

/// Loads a results file or saved baseline and checks its rows can be compared (exit 2).
fn load(arg: &str) -> anyhow::Result<(PathBuf, jsoncost_engine::Results)> {
    let path = baselines::resolve(arg)?;
    let results = files::load(&path).map_err(usage)?;
    compare::check_rows(&path, &results).map_err(usage)?;
    Ok((path, results))
}

pub fn run(args: &CompareArgs) -> anyhow::Result<()> {
    let (base_path, base) = load(&args.base)?;
    let (new_path, new) = load(&args.new)?;
    let more = args
        .base_runs
        .iter()
        .map(|r| load(r).map(|(_, results)| results))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let more: Vec<&jsoncost_engine::Results> = more.iter().collect();
    let comparison = compare::compare_with_runs(&base, &new, &more, args.threshold)
        .with_count_threshold(args.count_threshold)
        .allowing_missing(args.allow_missing);
    print_stdout(&args.format.exporter().comparison(&comparison))?;
    // A regression (rows lost) says more than this; otherwise two runs of which no row was
    // timed in both (empty, every row failed) are not a pass.
    if comparison.rows.is_empty() && !comparison.has_regression() {
        return Err(usage(anyhow!(
            "nothing to compare: no row was timed in both {} and {}",
            base_path.display(),
            new_path.display()
        )));
    }
    if comparison.has_regression() {
        return Err(regression());
    }
    Ok(())
}
