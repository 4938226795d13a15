//! `jsoncost levers --lever L [--lever L ...] -- EXPERIMENT ARGS`: build choices as levers. This
//! source tree's jsoncost is built once as it is (the default build) and once per lever (a
//! feature of a JSON crate, a CPU level, LTO, `panic = "abort"`, another version of a
//! dependency), each in `target/levers/<lever>` and reused next time (`jsoncost::levers`);
//! then the default build and each lever's run the experiment in lockstep (`jsoncost_conductor::ab`),
//! every row paired, and each lever gets one verdict (`jsoncost_report::levers`). A lever that
//! fails to build is reported with cargo's message, one whose program fails with its error,
//! and the others go on. Exit codes: 0 the
//! levers were measured (a lever is not a regression), 2 a bad lever or arguments, 3 the
//! default build failed, a program failed, or the machine was too busy for any lever's time.

use anyhow::anyhow;
use jsoncost::levers::{self, Lever, Project, Target};
use jsoncost_conductor::ab::Settings;
use jsoncost_report::Format;

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
    jsoncost_conductor::ab::check_args(&args.args, "levers").map_err(library)?;
    let project = project()?;
    let settings = Settings {
        rounds: args.rounds,
        args: args.args.clone(),
        ..args.pairing.settings()?
    };
    let measured = levers::measure(
        &project,
        &args.levers,
        &settings,
        args.threshold,
        &interrupt::interrupted,
        &mut std::io::stderr(),
        &mut |lever, comparison| {
            print_stdout(&format!("Lever {lever}\n\n{}", args.format.exporter().ab(comparison)))
                .map_err(|e| jsoncost::Error::environment(format!("{e:#}")))
        },
    )
    .map_err(library)?;
    print_stdout(&format!(
        "Levers against the default build:\n{}\n",
        measured.verdicts.iter().map(|v| format!("- {v}")).collect::<Vec<_>>().join("\n")
    ))?;
    if interrupt::interrupted() {
        return Err(environment(anyhow!("interrupted")));
    }
    if let Some(e) = measured.first_error {
        return Err(library(e));
    }
    if measured.built > 0 && measured.judged == 0 {
        return Err(environment(anyhow!(
            "no lever's time was judged: the machine was too busy (see each lever's table)"
        )));
    }
    Ok(())
}
