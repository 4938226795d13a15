//! `jsoncost ab --base CMD --new CMD -- EXPERIMENT ARGS`: a paired A/B of two builds. The two
//! programs (two jsoncost binaries, or two `cargo bench` harness binaries of the user's own
//! types) run at once in lockstep (`jsoncost_conductor::ab`, `engine::lockstep`): only one works at a
//! time, they take turns before every timed iteration, and every interleaved table runs
//! `--rounds` rounds in both, so its rows pair round by round. Both get the same arguments, so
//! the same seed and payloads; each writes its results with `--format json --out FILE`, and
//! every row is decided from its paired ratios (`jsoncost_report::ab`). Exit codes as
//! `compare`: 0 no regression, 1 regression, 2 bad input (also a program that exits 2), 3
//! environment (a program that cannot start, fails otherwise, or writes no results; or the
//! machine was too busy for the pairs to hold: time not judged), 130 interrupted.

use std::path::PathBuf;

use anyhow::anyhow;
use jsoncost_conductor::ab::{Program, Settings};
use jsoncost_report::{Format, ab};

use super::ab_http::{AbCommon, AbHttpArgs};
use super::compare::parse_threshold;
use super::pairing::Pairing;
use crate::failure::{environment, library, regression, usage};
use crate::interrupt;
use crate::session::{format_parser, print_stdout};

#[derive(Debug, Clone, clap::Args)]
pub struct AbArgs {
    /// The base program and its leading arguments, e.g. `./old/jsoncost` or
    /// `target/bench-base/json-1a2b` (split as a shell would; no shell runs it).
    #[arg(long, value_name = "CMD", required_unless_present = "http")]
    pub base: Option<String>,
    /// The new program, as --base.
    #[arg(long, value_name = "CMD", required_unless_present = "http")]
    pub new: Option<String>,
    /// A/B two builds of your own HTTP server instead of two programs: both started (or
    /// reached), their answers verified equal, then loaded in slices alternating between them
    /// (the --base-cmd ... flags below).
    #[arg(long)]
    pub http: bool,
    #[command(flatten)]
    pub web: AbHttpArgs,
    /// Rounds of every interleaved table, in both programs (each round: one timed iteration
    /// of every strategy, base's and new's in turn; a stream round is a whole run of each, an
    /// http round a slice of load per mode); each round is one pair. Default 30; with --http,
    /// from 150 (of 0.1 s slices) until --precision.
    #[arg(long, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub rounds: Option<u64>,
    /// Smallest time change to detect, e.g. 5% or 0.05: a row fails when it is slower for sure
    /// and by at least half of this.
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    pub threshold: f64,
    #[command(flatten)]
    pub pairing: Pairing,
    /// Accept rows that were ok in base and failed or are missing in new (as `compare`).
    #[arg(long)]
    pub allow_missing: bool,
    /// Call a row slower or faster on the first pair of processes alone. By default, with
    /// fewer than 3 --runs, a second pair of processes measures again (as many runs) and a row
    /// counts only when the second sees the change too (beyond half the threshold, the same
    /// way): two processes of one build can differ steadily on a row, which one run's rounds
    /// cannot tell from the build.
    #[arg(long)]
    pub no_confirm: bool,
    /// What stdout carries (markdown suits PR comments).
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// Keep every run's files in this directory: `run-001/b.json` and `n.json` (base's and
    /// new's results), their `.stderr` and `.stdout`, and `lockstep.log` (every turn given).
    /// Default: a temporary directory, removed.
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// The experiment and its flags, given to both programs, e.g. `micro --quick --shape data`
    /// (jsoncost) or `--bench --quick` (a harness). `--format json --out FILE` is added.
    #[arg(last = true, value_name = "EXPERIMENT ARGS")]
    pub args: Vec<String>,
}

/// `--base` or `--new`: a program and its leading arguments, split as a shell would.
fn program(flag: &str, name: &str, spec: &str) -> anyhow::Result<Program> {
    let words = shlex::split(spec).ok_or_else(|| usage(anyhow!("{flag} {spec:?}: unbalanced quotes")))?;
    if words.is_empty() {
        return Err(usage(anyhow!(
            "{flag} is empty: give a program, e.g. {flag} ./target/release/jsoncost"
        )));
    }
    Ok(Program::new(name, words))
}

/// Rounds of every interleaved table when `--rounds` is not given.
const ROUNDS: u64 = 30;

pub fn run(args: &AbArgs) -> anyhow::Result<()> {
    if args.http {
        if args.base.is_some() || args.new.is_some() || !args.args.is_empty() {
            return Err(usage(anyhow!(
                "--http A/Bs two servers: give --base-cmd/--new-cmd (or --base-url/--new-url), not --base/--new or experiment arguments"
            )));
        }
        let common = AbCommon {
            rounds: args.rounds,
            threshold: args.threshold,
            allow_missing: args.allow_missing,
            format: args.format,
        };
        let comparison = super::ab_http::run(&args.web, &common)?;
        return verdict(&comparison, "no figure was measured on both servers: nothing to compare");
    }
    let (Some(base), Some(new)) = (&args.base, &args.new) else {
        return Err(usage(anyhow!("ab needs --base CMD and --new CMD (or --http)")));
    };
    let base = program("--base", "base", base)?;
    let new = program("--new", "new", new)?;
    let settings = Settings {
        rounds: args.rounds.unwrap_or(ROUNDS),
        keep: args.keep.clone(),
        args: args.args.clone(),
        label: "ab".to_string(),
        ..args.pairing.settings()?
    };
    let runs = jsoncost_conductor::ab::run(&settings, [&base, &new], &interrupt::interrupted).map_err(library)?;
    let mut comparison = ab::ab(&runs, args.threshold)
        .allowing_missing(args.allow_missing)
        .on_cpu(settings.cpu);
    if !args.no_confirm {
        comparison = jsoncost_conductor::ab::confirmed(comparison, &settings, [&base, &new], ab::RowSpread::Widen, &interrupt::interrupted)
            .map_err(library)?;
    }
    print_stdout(&args.format.exporter().ab(&comparison))?;
    verdict(
        &comparison,
        "no row was timed in both programs: nothing to compare (see \"Not compared\")",
    )
}

/// The exit of an A/B once its comparison is printed: bad input when nothing was compared
/// (`nothing` says why), 1 on a regression, 3 when the machine was too busy to judge time,
/// else success.
fn verdict(comparison: &ab::AbComparison, nothing: &str) -> anyhow::Result<()> {
    if comparison.rows.is_empty() {
        return Err(usage(anyhow!("{nothing}")));
    }
    if comparison.has_regression() {
        return Err(regression());
    }
    if let Some(busy) = comparison.busy() {
        return Err(environment(anyhow!("time not judged: {}", ab::busy_note(busy))));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_split_as_a_shell_would_and_empty_ones_are_usage_errors() {
        assert_eq!(
            program("--base", "base", "'./old build/jsoncost' --quiet").unwrap().words,
            ["./old build/jsoncost", "--quiet"]
        );
        let e = program("--new", "new", "  ").unwrap_err();
        assert_eq!(crate::failure::exit_code_of(&e), 2);
        assert_eq!(crate::failure::exit_code_of(&program("--new", "new", "'x").unwrap_err()), 2);
    }
}
