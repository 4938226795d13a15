//! `jsoncost levers --lever L [--lever L ...] -- EXPERIMENT ARGS`: build choices as levers. This
//! source tree's jsoncost is built once as it is (the default build) and once per lever (a
//! feature of a JSON crate, a CPU level, LTO, `panic = "abort"`, another version of a
//! dependency), each in `target/levers/<lever>` and reused next time (`jsoncost::levers`);
//! then the default build and each lever's run the experiment in lockstep (`jsoncost::ab`),
//! every row paired, and each lever gets one verdict (`jsoncost_report::levers`). A lever that
//! fails to build is reported with cargo's message, one whose program fails with its error,
//! and the others go on. Exit codes: 0 the
//! levers were measured (a lever is not a regression), 2 a bad lever or arguments, 3 the
//! default build failed, a program failed, or the machine was too busy for any lever's time.

use anyhow::anyhow;
use jsoncost::ab::Settings;
use jsoncost::levers::{self, Built, Lever, Project, Target};
use jsoncost_report::{Format, ab};

use super::compare::parse_threshold;
use super::pairing::Pairing;
use crate::failure::{environment, library};
use crate::interrupt;
use crate::session::{format_parser, print_stdout};

#[derive(Debug, Clone, clap::Args)]
pub struct LeversArgs {
    /// A build change to measure against the default build (repeat for several): crate/feature
    /// (serde_json/float_roundtrip), cpu=LEVEL (native, x86-64, x86-64-v2, x86-64-v3,
    /// x86-64-v4), lto (fat, one codegen unit), panic=abort, crate@x.y.z (sonic-rs@0.5.12).
    #[arg(long = "lever", value_name = "LEVER", required = true, value_parser = clap::value_parser!(Lever))]
    pub levers: Vec<Lever>,
    /// Rounds of every interleaved table, in both programs (as `ab`).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub rounds: u64,
    /// Smallest time change a lever is credited or charged with, e.g. 5% (as `ab`).
    #[arg(long, default_value = "5%", value_parser = parse_threshold)]
    pub threshold: f64,
    #[command(flatten)]
    pub pairing: Pairing,
    /// What stdout carries for each lever's paired table.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// The experiment and its flags, given to every build, e.g. `micro --quick --shape data`.
    #[arg(last = true, value_name = "EXPERIMENT ARGS", required = true)]
    pub args: Vec<String>,
}

/// This source tree, as `--measure counts` finds it.
fn project() -> anyhow::Result<Project> {
    let workspace = crate::source_tree::workspace();
    if !workspace.join("Cargo.toml").is_file() || !workspace.join("crates/cli").is_dir() {
        return Err(environment(anyhow!(
            "levers builds jsoncost from its source tree, which is not at {}",
            workspace.display()
        )));
    }
    Ok(Project {
        workspace: workspace.canonicalize()?,
        package: "jsoncost-cli".into(),
        target: Target::Bin("jsoncost".into()),
        cargo: std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()),
    })
}

pub fn run(args: &LeversArgs) -> anyhow::Result<()> {
    jsoncost::ab::check_args(&args.args, "levers").map_err(library)?;
    let project = project()?;
    let mut stderr = std::io::stderr();
    let build = |lever: Option<&Lever>, stderr: &mut std::io::Stderr| {
        let plan = levers::plan(&project, lever).map_err(library)?;
        eprintln!("levers: building {} in {} (reused when up to date)", plan.name, plan.root.display());
        levers::build(&project, &plan, stderr).map_err(library)
    };
    let default = match build(None, &mut stderr)? {
        Built::Program(path) => path,
        Built::Failed(message) => return Err(environment(anyhow!("the default build failed:\n{message}"))),
    };
    let mut built = Vec::new();
    let mut verdicts = Vec::new();
    for lever in &args.levers {
        match build(Some(lever), &mut stderr)? {
            Built::Program(path) => built.push((lever, path)),
            Built::Failed(message) => verdicts.push(format!("{lever}: failed to build, not measured:\n{message}")),
        }
    }
    // A feature lever is built in the workspace's own target: put the default binary back at
    // target/release/jsoncost, where the last lever's build left its own.
    if args.levers.iter().any(|l| matches!(l, Lever::Feature { .. })) {
        levers::restore_default(&project, &mut stderr).map_err(library)?;
    }
    let cpu_name = jsoncost_engine::machine::current().cpu;
    let built_count = built.len();
    let outcome = each_lever(built, |(lever, path)| {
        let settings = Settings {
            rounds: args.rounds,
            args: args.args.clone(),
            label: format!("levers {lever}"),
            ..args.pairing.settings()?
        };
        let [base, new] = levers::programs(&default, lever, path);
        let runs = jsoncost::ab::run(&settings, [&base, &new], &interrupt::interrupted).map_err(library)?;
        let comparison = ab::ab_with(&runs, args.threshold, ab::RowSpread::Keep)
            .allowing_missing(true)
            .on_cpu(settings.cpu);
        print_stdout(&format!("Lever {lever}\n\n{}", args.format.exporter().ab(&comparison)))?;
        let verdict = jsoncost_report::levers::verdict(
            &lever.to_string(),
            lever.kind(),
            &lever.ships(&cpu_name),
            lever.touches(),
            &runs,
            &comparison,
        );
        Ok((verdict, comparison.busy().is_none()))
    });
    verdicts.extend(outcome.verdicts);
    print_stdout(&format!(
        "Levers against the default build:\n{}\n",
        verdicts.iter().map(|v| format!("- {v}")).collect::<Vec<_>>().join("\n")
    ))?;
    if interrupt::interrupted() {
        return Err(environment(anyhow!("interrupted")));
    }
    if let Some(e) = outcome.first_error {
        return Err(e);
    }
    if built_count > 0 && outcome.judged == 0 {
        return Err(environment(anyhow!(
            "no lever's time was judged: the machine was too busy (see each lever's table)"
        )));
    }
    Ok(())
}

/// What [`each_lever`] did.
struct Outcome {
    /// One per lever measured or failed, in order.
    verdicts: Vec<String>,
    /// Levers whose time was judged (the machine quiet enough).
    judged: usize,
    /// The first lever's failure, the run's error once every verdict is printed.
    first_error: Option<anyhow::Error>,
}

/// Each built lever `(lever, program)` measured in turn by `measure` (its verdict, and whether
/// its time was judged) until an interruption: a lever whose program fails (it refuses the
/// arguments, it cannot read the payload in that build) is said among the verdicts and the
/// others are still measured.
fn each_lever<L: std::fmt::Display, P>(built: Vec<(L, P)>, mut measure: impl FnMut(&(L, P)) -> anyhow::Result<(String, bool)>) -> Outcome {
    let mut outcome = Outcome {
        verdicts: Vec::new(),
        judged: 0,
        first_error: None,
    };
    for lever in built {
        if interrupt::interrupted() {
            break;
        }
        match measure(&lever) {
            Ok((verdict, judged)) => {
                outcome.verdicts.push(verdict);
                outcome.judged += usize::from(judged);
            }
            Err(e) => {
                outcome.verdicts.push(format!("{}: not measured: {e:#}", lever.0));
                outcome.first_error.get_or_insert(e);
            }
        }
    }
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lever_whose_program_fails_is_said_and_the_others_are_still_measured() {
        let built = vec![("a", 1), ("b", 2), ("c", 3)];
        let outcome = each_lever(built, |(name, _)| match *name {
            "b" => Err(anyhow!("program b refused the arguments (exit 2)")),
            name => Ok((format!("{name}: measured"), name == "a")),
        });
        assert_eq!(
            outcome.verdicts,
            [
                "a: measured",
                "b: not measured: program b refused the arguments (exit 2)",
                "c: measured"
            ]
        );
        assert_eq!(outcome.judged, 1);
        assert_eq!(outcome.first_error.unwrap().to_string(), "program b refused the arguments (exit 2)");
    }
}
