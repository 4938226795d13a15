//! `jsoncost ab --base CMD --new CMD -- EXPERIMENT ARGS`: a paired A/B of two builds. The two
//! programs (two jsoncost binaries, or two `cargo bench` harness binaries of the user's own
//! types) run alternately in short rounds, ABBA (round 1 base then new, round 2 new then base,
//! ...), with the same arguments, so the same seed and payloads; each run writes its results
//! with `--format json --out FILE`, and every row is decided from its per-round ratios
//! (`jsoncost_report::ab`). Exit codes as `compare`: 0 no regression, 1 regression, 2 bad
//! input (also a program that exits 2), 3 environment (a program that cannot start, fails
//! otherwise, or writes no results), 130 interrupted.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, anyhow};
use jsoncost_report::ab::{self, Round};
use jsoncost_report::files;

use super::compare::parse_threshold;
use crate::failure::{ExitCode, Failure, environment, usage};
use crate::interrupt;
use crate::session::FormatArg;

#[derive(Debug, Clone, clap::Args)]
pub struct AbArgs {
    /// The base program and its leading arguments, e.g. `./old/jsoncost` or
    /// `target/bench-base/json-1a2b` (split as a shell would; no shell runs it).
    #[arg(long, value_name = "CMD")]
    pub base: String,
    /// The new program, as --base.
    #[arg(long, value_name = "CMD")]
    pub new: String,
    /// Rounds; each runs both programs once. Even counts balance the order (ABBA).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub rounds: u32,
    /// Smallest time change to detect, e.g. 5% or 0.05: a row fails when it is slower for sure
    /// and by at least half of this.
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    pub threshold: f64,
    /// Accept rows that were ok in base and failed or are missing in new (as `compare`).
    #[arg(long)]
    pub allow_missing: bool,
    /// What stdout carries (markdown suits PR comments).
    #[arg(long, value_enum, default_value_t = FormatArg::Table)]
    pub format: FormatArg,
    /// Keep every round's results files in this directory (default: a temporary one, removed).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// The experiment and its flags, given to both programs, e.g. `micro --quick --shape data`
    /// (jsoncost) or `--bench --quick` (a harness). `--format json --out FILE` is added.
    #[arg(last = true, value_name = "EXPERIMENT ARGS")]
    pub args: Vec<String>,
}

/// A program to run: its path and leading arguments.
#[derive(Debug, Clone, PartialEq)]
struct Program {
    words: Vec<String>,
}

impl Program {
    fn parse(flag: &str, spec: &str) -> anyhow::Result<Program> {
        let words = shlex::split(spec).ok_or_else(|| usage(anyhow!("{flag} {spec:?}: unbalanced quotes")))?;
        if words.is_empty() {
            return Err(usage(anyhow!(
                "{flag} is empty: give a program, e.g. {flag} ./target/release/jsoncost"
            )));
        }
        Ok(Program { words })
    }

    /// Runs the program once with `args`, its results written to `out`.
    fn run(&self, side: &str, round: u32, args: &[String], out: &Path) -> anyhow::Result<jsoncost_engine::Results> {
        let shown = self.words.join(" ");
        let output = Command::new(&self.words[0])
            .args(&self.words[1..])
            .args(args)
            .args(["--format", "json", "--out"])
            .arg(out)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("{side} program {shown:?} cannot be started"))
            .map_err(environment)?;
        let tail = || {
            let text = String::from_utf8_lossy(&output.stderr);
            let lines: Vec<&str> = text.lines().rev().take(5).collect();
            lines.into_iter().rev().collect::<Vec<_>>().join("\n")
        };
        match output.status.code() {
            Some(0) => {}
            Some(130) => {
                return Err(Failure {
                    code: ExitCode::Interrupted,
                    error: anyhow!("{side} program was interrupted in round {round}"),
                }
                .into());
            }
            Some(2) => {
                return Err(usage(anyhow!(
                    "{side} program {shown:?} refused the arguments (exit 2):\n{}",
                    tail()
                )));
            }
            code => {
                let how = code.map_or("was killed by a signal".to_string(), |c| format!("exited {c}"));
                return Err(environment(anyhow!("{side} program {shown:?} {how} in round {round}:\n{}", tail())));
            }
        }
        files::load(out)
            .with_context(|| format!("{side} program {shown:?} wrote no readable results to {}", out.display()))
            .map_err(environment)
    }
}

/// Removes the temporary round directory when `ab` ends, however it ends.
struct Scratch(Option<PathBuf>);

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

pub fn run(args: &AbArgs) -> anyhow::Result<()> {
    let base = Program::parse("--base", &args.base)?;
    let new = Program::parse("--new", &args.new)?;
    if let Some(bad) = args.args.iter().find(|a| matches!(a.as_str(), "--format" | "--out")) {
        return Err(usage(anyhow!(
            "{bad} is set by ab itself (each run writes JSON results to its own file)"
        )));
    }
    let (dir, _scratch) = match &args.keep {
        Some(dir) => (dir.clone(), Scratch(None)),
        None => {
            let dir = std::env::temp_dir().join(format!("jsoncost-ab-{}", std::process::id()));
            (dir.clone(), Scratch(Some(dir)))
        }
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create {}", dir.display()))
        .map_err(environment)?;
    let mut rounds = Vec::new();
    for k in 1..=args.rounds {
        if interrupt::interrupted() {
            return Err(Failure {
                code: ExitCode::Interrupted,
                error: anyhow!("interrupted after {} rounds", k - 1),
            }
            .into());
        }
        eprintln!("ab: round {k}/{}", args.rounds);
        let run = |p: &Program, side: &str| p.run(side, k, &args.args, &dir.join(format!("round-{k:03}-{side}.json")));
        // ABBA: odd rounds base first, even rounds new first.
        let (b, n) = if k % 2 == 1 {
            let b = run(&base, "base")?;
            (b, run(&new, "new")?)
        } else {
            let n = run(&new, "new")?;
            (run(&base, "base")?, n)
        };
        rounds.push(Round { base: b, new: n });
    }
    let comparison = ab::ab(&rounds, args.threshold).allowing_missing(args.allow_missing);
    println!("{}", comparison.render(args.format.into()));
    if comparison.rows.is_empty() {
        return Err(usage(anyhow!(
            "no row was timed in both programs: nothing to compare (see \"Not compared\")"
        )));
    }
    if comparison.has_regression() {
        return Err(Failure {
            code: ExitCode::Regression,
            error: anyhow!("{}", comparison.summary()),
        }
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_split_as_a_shell_would_and_empty_ones_are_usage_errors() {
        assert_eq!(
            Program::parse("--base", "'./old build/jsoncost' --quiet").unwrap().words,
            ["./old build/jsoncost", "--quiet"]
        );
        let e = Program::parse("--new", "  ").unwrap_err();
        assert_eq!(crate::failure::exit_code_of(&e), 2);
        assert_eq!(crate::failure::exit_code_of(&Program::parse("--new", "'x").unwrap_err()), 2);
    }
}
