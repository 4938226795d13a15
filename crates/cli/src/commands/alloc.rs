//! `jsoncost alloc [--allocators system,mimalloc,jemalloc] -- EXPERIMENT ARGS`: the allocator
//! as a lever. This binary runs the experiment again under each allocator (JSONCOST_ALLOCATOR:
//! one process each, a process having one global allocator), every other allocator in lockstep
//! with the first as `ab` runs two builds (`jsoncost_conductor::ab`), and each row's time is paired with
//! its time under the first (`jsoncost_report::allocators`). Prints a table per allocator and
//! the levers; `--out` keeps them in results.json (`allocators`). Exit codes: 0, 2 bad input,
//! 3 environment, 130 interrupted (what was compared before is still printed and written).

use std::path::PathBuf;

use anyhow::anyhow;
use jsoncost_conductor::ab::{AllocatorPlan, Settings};
use jsoncost_engine::alloc::Allocator;
use jsoncost_report::Format;

use crate::failure::{library, usage};
use crate::interrupt;
use crate::session::{check_writable, format_parser, print_stdout};

/// What `jsoncost alloc` runs when given no experiment: the small record, the ~4 KB document
/// and its ~40 KB form through every strategy.
pub const DEFAULT_EXPERIMENT: [&str; 3] = ["micro", "--shape", "data,order,order-large"];

#[derive(Debug, Clone, clap::Args)]
pub struct AllocArgs {
    /// The allocators, comma-separated; the first is the base every other is paired with.
    /// Naming the base twice (system,system) pairs it with itself: how much two processes of
    /// one allocator differ here.
    #[arg(
        long,
        value_delimiter = ',',
        default_values = ["system", "mimalloc", "jemalloc"],
        value_parser = clap::value_parser!(Allocator)
    )]
    pub allocators: Vec<Allocator>,
    /// Rounds of every interleaved table, under both allocators of a pair; each round is one
    /// pair (a stream round is a whole run of every strategy: give it fewer).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(2..=10_000))]
    pub rounds: u64,
    /// Smallest change of time a row is called on, e.g. 5% or 0.05: a row takes less or more
    /// time only when its whole 99% interval lies beyond half of it (as `jsoncost ab` decides);
    /// a real change within that is shown as small.
    #[arg(long, default_value = "5%", value_parser = crate::commands::compare::parse_threshold)]
    pub threshold: f64,
    #[command(flatten)]
    pub pairing: super::pairing::Pairing,
    /// What stdout carries.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// Also write results.json here: the base allocator's tables and the comparisons.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Keep every run's files: `DIR/<allocator>/run-001/b.json` and `n.json` ... (see `ab --keep`).
    #[arg(long, value_name = "DIR")]
    pub keep: Option<PathBuf>,
    /// The experiment and its flags, run under each allocator, e.g. `micro --shape order` or
    /// `stream --readings 100000` (default: micro --shape data,order,order-large).
    #[arg(last = true, value_name = "EXPERIMENT ARGS")]
    pub args: Vec<String>,
}

impl AllocArgs {
    /// The plan: the first allocator against each other one.
    pub fn plan(&self) -> anyhow::Result<AllocatorPlan> {
        let Some((&base, others)) = self.allocators.split_first() else {
            return Err(usage(anyhow!(
                "--allocators is empty: name the base and the allocators to pair with it"
            )));
        };
        Ok(AllocatorPlan {
            base,
            others: others.to_vec(),
            threshold: self.threshold,
            settings: Settings {
                rounds: self.rounds,
                keep: self.keep.clone(),
                label: "alloc".to_string(),
                ..self.pairing.settings()?
            },
        })
    }
}

pub fn run(args: &AllocArgs) -> anyhow::Result<()> {
    let plan = args.plan()?;
    if let Some(out) = &args.out {
        check_writable(out)?;
    }
    let experiment: Vec<String> = if args.args.is_empty() {
        DEFAULT_EXPERIMENT.map(String::from).to_vec()
    } else {
        args.args.clone()
    };
    let mut ran = jsoncost_conductor::ab::allocators(&plan, &experiment, args.pairing.runs, &interrupt::interrupted);
    if let Some(results) = &mut ran.results {
        let _writing = interrupt::finishing();
        results.interrupted = ran.error == Some(jsoncost_conductor::Error::Interrupted);
        print_stdout(&args.format.exporter().allocator_run(results))?;
        if let Some(out) = &args.out {
            jsoncost::output::write_results_of(results, out).map_err(library)?;
            eprintln!("results written to {}", out.display());
        }
        // Measured but not judged: the machine's other work took the CPU from the processes.
        if ran.error.is_none()
            && let Some(busy) = results.allocators.iter().find_map(|c| c.busy().copied())
        {
            return Err(crate::failure::environment(anyhow::anyhow!(
                "time not judged: {}",
                jsoncost_report::ab::busy_note(&busy)
            )));
        }
    }
    ran.error.map_or(Ok(()), |e| Err(library(e)))
}
