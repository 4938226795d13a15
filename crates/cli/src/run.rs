//! `jsoncost run`: the whole study in one command — every experiment on the embedded defaults,
//! progress on stderr, tables on stdout, and results.json, report.md and report.html in one
//! directory per run.

use anyhow::{Context, anyhow};
use jsoncost::StudyArgs;
use jsoncost::flags::ExperimentArgs;
use jsoncost_conductor::ab::{AllocatorPlan, CpuChoice, Settings};
use jsoncost_engine::alloc::Allocator;
use jsoncost_engine::lockstep::Lockstep;
use jsoncost_engine::{AllocatorComparison, ExperimentKind, MeasureConfig};
use jsoncost_report::Format;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::commands::baselines;
use crate::failure::{self, environment, library, usage};
use crate::interrupt;
use crate::precision::debug_mode;
use crate::progress::Progress;
use crate::session::{OutputArgs, Session, check_writable, format_parser};
use crate::sink::run_experiment;

/// `run --allocator-table`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AllocatorTable {
    /// order's typed and DOM serde_json rows under the system allocator and mimalloc, 20 rounds
    /// (8 with --quick): seconds.
    Small,
    /// micro's data, order and order-large tables under system, mimalloc and jemalloc (30
    /// rounds), and the stream's buffered and incremental serde_json rows (10 rounds of whole
    /// runs): minutes.
    Full,
    Off,
}

#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// Shrink payload counts and iterations to finish in well under a minute (says so in the output).
    #[arg(long)]
    pub quick: bool,
    /// jsoncost's own tests: `--quick` through the real pipeline with the fewest, shortest
    /// iterations, whole runs and loads (see `jsoncost micro --help`'s `--quick`).
    #[arg(long, hide = true, requires = "quick")]
    pub debug_mode: bool,
    /// How a table's strategies share the time (see `jsoncost micro --help`).
    #[arg(long, value_enum, default_value_t = jsoncost::flags::ScheduleArg::Interleaved)]
    pub schedule: jsoncost::flags::ScheduleArg,
    /// Run only these experiments (comma-separated).
    #[arg(long, value_delimiter = ',', value_parser = study_kind_parser())]
    pub only: Vec<ExperimentKind>,
    /// Skip these experiments (comma-separated).
    #[arg(long, value_delimiter = ',', value_parser = study_kind_parser())]
    pub skip: Vec<ExperimentKind>,
    /// Directory for results.json, report.md and report.html (default: `jsoncost-results/<timestamp>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Also keep the results as a named baseline for `jsoncost compare`.
    #[arg(long, value_name = "NAME")]
    pub save_baseline: Option<String>,
    /// What stdout carries.
    #[arg(long, default_value = "table", value_parser = format_parser())]
    pub format: Format,
    /// The rate one experiment's advice states per-second figures at, as EXPERIMENT=PER_S
    /// (repeatable): micro operations/s (default 10,000), store reads/s (2,000), stream
    /// bodies/s (1), http requests/s (1,000).
    #[arg(long = "advice-rate", value_name = "EXPERIMENT=PER_S", value_parser = crate::session::parse_experiment_rate)]
    pub rates: Vec<(jsoncost_engine::ExperimentKind, f64)>,
    /// The allocator table (`jsoncost alloc` within the run): each allocator in its own process
    /// of this binary, in lockstep with the system allocator's, each row's time paired. Needs
    /// micro (and, for full's stream rows, stream) among the experiments run.
    #[arg(long, value_enum, default_value_t = AllocatorTable::Small)]
    pub allocator_table: AllocatorTable,
    #[command(flatten)]
    pub experiments: StudyArgs,
}

/// `--only`/`--skip`: the kinds the whole study measures, by name.
fn study_kind_parser() -> impl clap::builder::TypedValueParser<Value = ExperimentKind> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(StudyArgs::KINDS.map(ExperimentKind::as_str))
        .map(|name| StudyArgs::KINDS.into_iter().find(|k| k.as_str() == name).expect("a possible value"))
}

impl RunArgs {
    fn selected(&self) -> Vec<ExperimentKind> {
        StudyArgs::KINDS
            .into_iter()
            .filter(|e| self.only.is_empty() || self.only.contains(e))
            .filter(|e| !self.skip.contains(e))
            .collect()
    }
}

/// The engine settings of one experiment in the run: each experiment's own for the whole study
/// (about three minutes on two cores), `--quick`'s with a 200 ms budget, or `--debug-mode`'s.
fn run_config(quick: bool, debug: bool, experiment: &dyn ExperimentArgs) -> MeasureConfig {
    if debug {
        return debug_mode();
    }
    if quick {
        return MeasureConfig {
            budget: Duration::from_millis(200),
            ..MeasureConfig::quick()
        };
    }
    experiment.whole_study_config()
}

pub fn run(args: &RunArgs) -> anyhow::Result<()> {
    let selected = args.selected();
    if selected.is_empty() {
        return Err(usage(anyhow!("--only and --skip leave no experiment to run")));
    }
    if let Some(name) = &args.save_baseline {
        baselines::check_name(name)?;
    }
    let dir = args.out.clone().unwrap_or_else(jsoncost::output::timestamp_dir);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the output directory {}", dir.display()))
        .map_err(environment)?;
    let results_path = dir.join(jsoncost::output::RESULTS_FILE);
    check_writable(&results_path)?;
    if let Some(name) = &args.save_baseline {
        std::fs::create_dir_all(baselines::baseline_dir())
            .map_err(|e| environment(anyhow!("cannot create {}: {e}", baselines::baseline_dir().display())))?;
        check_writable(&baselines::path_of(name))?;
    }

    let started = Instant::now();
    let output = OutputArgs {
        format: args.format,
        out: Some(results_path.clone()),
        advice_rate: None,
    };
    // Under `ab` or `alloc` the conductor names its socket: read here, once.
    let lockstep = Lockstep::from_env();
    let mut session = Session::new(&output, args.quick, &lockstep)?;
    session.output.verdict_first();
    session.also_writing(dir.clone(), args.save_baseline.as_deref().map(baselines::path_of));
    for (kind, rate) in &args.rates {
        session.set_rate(*kind, *rate);
    }
    if args.quick {
        eprintln!("quick run: smaller payload counts, fewer and shorter iterations; figures are rough");
    }
    let mut study = args.experiments.clone();
    for experiment in study.experiments_mut() {
        experiment.fit_whole_study(args.quick);
        if args.debug_mode {
            experiment.debug_mode();
        }
    }
    let progress = Progress::new(0);
    let mut first_error = None;
    for experiment in study.experiments() {
        let kind = experiment.kind();
        if !selected.contains(&kind) {
            continue;
        }
        if interrupt::interrupted() {
            break;
        }
        let experiment_started = Instant::now();
        let config = MeasureConfig {
            schedule: args.schedule.schedule(),
            lockstep: lockstep.clone(),
            ..run_config(args.quick, args.debug_mode, experiment)
        };
        if let Err(e) = run_experiment(experiment, &config, &mut session, &progress) {
            progress.note(&format!("error: {e:#}"));
            // Kept in results.json: a store that failed is a table saying why, not a gap.
            if !is_interruption(&e) {
                session.record_error(kind, kind.as_str(), &e);
            }
            first_error.get_or_insert(e);
        }
        progress.note(&format!("{kind}: {:.0} s", experiment_started.elapsed().as_secs_f64()));
    }
    if !interrupt::interrupted() && !allocator_plans(args, &selected).is_empty() {
        let started = Instant::now();
        let (comparisons, error) = allocator_table(args, &selected);
        if !comparisons.is_empty() {
            session.push_allocators(comparisons);
        }
        if let Some(e) = error {
            progress.note(&format!("error: allocator table: {e:#}"));
            if !is_interruption(&e) {
                session.record_error(ExperimentKind::Micro, "allocator table", &anyhow!("allocator table: {e:#}"));
            }
            first_error.get_or_insert(e);
        }
        progress.note(&format!("allocators: {:.0} s", started.elapsed().as_secs_f64()));
    }
    progress.finish();
    {
        // A second signal now waits for these writes instead of cutting them off.
        let _writing = interrupt::finishing();
        session.finish_writing()?;
        write_reports(&session, &dir)?;
        // The baseline directory was created and checked before any experiment ran.
        if let Some(name) = &args.save_baseline {
            session.write_results(&baselines::path_of(name))?;
            eprintln!("baseline {name:?} saved to {}", baselines::path_of(name).display());
        }
    }
    eprintln!(
        "report: {} (in {:.0} s)",
        dir.join("report.html").display(),
        started.elapsed().as_secs_f64()
    );
    // Stopped early, the run exits 130 whatever failed before the interruption.
    if interrupt::interrupted() {
        return Err(failure::interrupted());
    }
    match first_error {
        Some(e) => Err(e),
        None => session.outcome(),
    }
}

/// The runs of `run`'s allocator table: (allocators, experiment args, runs of both processes,
/// rounds), for the experiments selected.
fn allocator_plans(args: &RunArgs, selected: &[ExperimentKind]) -> Vec<(Vec<Allocator>, Vec<String>, u32, u64)> {
    let seed = args.experiments.micro.seed.to_string();
    let quick: &[&str] = if args.quick { &["--quick"] } else { &[] };
    let words = |w: &[&str]| w.iter().chain(quick).map(|s| s.to_string()).collect::<Vec<_>>();
    let rounds = |full: u64| if args.quick { 8 } else { full };
    let mut plans = Vec::new();
    if args.allocator_table == AllocatorTable::Off {
        return plans;
    }
    if selected.contains(&ExperimentKind::Micro) {
        plans.push(match args.allocator_table {
            AllocatorTable::Small => (
                vec![Allocator::System, Allocator::Mimalloc],
                words(&["micro", "--shape", "order", "--filter", "{typed,dom}/serde_json", "--seed", &seed]),
                1,
                rounds(20),
            ),
            _ => (
                Allocator::ALL.to_vec(),
                words(&["micro", "--shape", "data,order,order-large", "--seed", &seed]),
                1,
                rounds(30),
            ),
        });
    }
    if args.allocator_table == AllocatorTable::Full && selected.contains(&ExperimentKind::Stream) && args.experiments.stream.file.is_none()
    {
        let readings = if args.quick {
            args.experiments.stream.readings.min(100_000)
        } else {
            args.experiments.stream.readings
        };
        plans.push((
            Allocator::ALL.to_vec(),
            words(&[
                "stream",
                "--readings",
                &readings.to_string(),
                "--stream-filter",
                "{buffered,incremental}/serde_json",
            ]),
            1,
            rounds(10),
        ));
    }
    plans
}

/// Runs the allocator table: the comparisons made, and the error that stopped it. A build
/// without the allocators skips it with a note.
fn allocator_table(args: &RunArgs, selected: &[ExperimentKind]) -> (Vec<AllocatorComparison>, Option<anyhow::Error>) {
    let plans = allocator_plans(args, selected);
    if plans.is_empty() {
        return (Vec::new(), None);
    }
    let wanted: Vec<Allocator> = plans.iter().flat_map(|p| p.0.clone()).collect();
    if let Err(e) = jsoncost_conductor::ab::check_allocators(&wanted) {
        eprintln!("note: allocator table skipped: {e}");
        return (Vec::new(), None);
    }
    let mut comparisons = Vec::new();
    for (allocators, experiment, runs, rounds) in plans {
        let cpu = match CpuChoice::Auto.resolve() {
            Ok(cpu) => cpu,
            Err(e) => return (comparisons, Some(library(e))),
        };
        let plan = AllocatorPlan {
            base: allocators[0],
            others: allocators[1..].to_vec(),
            threshold: jsoncost_report::ab::DEFAULT_THRESHOLD,
            settings: Settings {
                rounds,
                runs,
                first_run: 1,
                cpu,
                timeout: Duration::from_secs(600),
                keep: None,
                args: Vec::new(),
                max_other_cpu: jsoncost_engine::OtherCpu::DEFAULT_LIMIT,
                label: "run: allocators".to_string(),
            },
        };
        let ran = jsoncost_conductor::ab::allocators(&plan, &experiment, runs, &interrupt::interrupted);
        comparisons.extend(ran.results.map(|r| r.allocators).unwrap_or_default());
        if let Some(e) = ran.error {
            return (comparisons, Some(library(e)));
        }
    }
    (comparisons, None)
}

fn is_interruption(e: &anyhow::Error) -> bool {
    crate::failure::exit_code_of(e) == crate::failure::ExitCode::Interrupted as i32
}

fn write_reports(session: &Session, dir: &std::path::Path) -> anyhow::Result<()> {
    session.output.write_reports(dir).map_err(crate::failure::library)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        run: RunArgs,
    }

    fn plans(flags: &[&str]) -> Vec<(Vec<Allocator>, Vec<String>, u32, u64)> {
        let args = Cli::try_parse_from(std::iter::once("run").chain(flags.iter().copied()))
            .unwrap()
            .run;
        allocator_plans(&args, &args.selected())
    }

    #[test]
    fn the_study_measures_each_kind_once_in_the_order_its_kinds_list() {
        let args = Cli::try_parse_from(["run"]).unwrap().run;
        let kinds: Vec<ExperimentKind> = args.experiments.experiments().iter().map(|e| e.kind()).collect();
        assert_eq!(kinds, StudyArgs::KINDS);
        assert_eq!(args.selected(), StudyArgs::KINDS);
        let args = Cli::try_parse_from(["run", "--only", "stream,micro", "--skip", "micro"])
            .unwrap()
            .run;
        assert_eq!(args.selected(), [ExperimentKind::Stream]);
        let error = Cli::try_parse_from(["run", "--only", "ab-http"]).err().unwrap().to_string();
        assert!(error.contains("[possible values: micro, store, stream, http, safety]"), "{error}");
    }

    #[test]
    fn each_experiment_fits_itself_to_a_quick_run() {
        let mut study = Cli::try_parse_from(["run", "--quick", "--docs", "5000", "--runs", "3"])
            .unwrap()
            .run
            .experiments;
        study.experiments_mut().into_iter().for_each(|e| e.fit_whole_study(true));
        assert_eq!(study.store.docs, 1_000);
        assert_eq!((study.stream.readings, study.stream.max_runs), (100_000, Some(3)));
        assert_eq!(
            (study.http.requests.min(1_000), study.http.study_load),
            (study.http.requests, false)
        );
        assert_eq!(study.http.http_precision, Some(0.0));
    }

    #[test]
    fn the_allocator_table_runs_what_its_size_says_for_the_experiments_selected() {
        let seed = jsoncost_shapes::DEFAULT_SEED.to_string();
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let small = (
            vec![Allocator::System, Allocator::Mimalloc],
            words(&["micro", "--shape", "order", "--filter", "{typed,dom}/serde_json", "--seed", &seed]),
            1,
            20,
        );
        assert_eq!(plans(&[]), std::slice::from_ref(&small));
        let mut quick = small;
        quick.1.push("--quick".into());
        quick.3 = 8;
        assert_eq!(plans(&["--quick"]), [quick]);
        assert_eq!(
            plans(&["--allocator-table", "full", "--readings", "1000"]),
            [
                (
                    Allocator::ALL.to_vec(),
                    words(&["micro", "--shape", "data,order,order-large", "--seed", &seed]),
                    1,
                    30
                ),
                (
                    Allocator::ALL.to_vec(),
                    words(&[
                        "stream",
                        "--readings",
                        "1000",
                        "--stream-filter",
                        "{buffered,incremental}/serde_json"
                    ]),
                    1,
                    10
                ),
            ]
        );
        assert!(plans(&["--allocator-table", "off"]).is_empty());
        assert!(plans(&["--only", "store"]).is_empty());
    }
}
