//! The `cargo bench` harness for a user's own types (`harness = false`, as divan and
//! criterion): [`Study`] parses the same flags as the CLI, registers types, measures them
//! through the one Runner and writes what the CLI writes. Run by `cargo bench` (which passes
//! `--bench`) it measures; run without `--bench` (`cargo test --benches`) it is a test: each
//! strategy once through the correctness gate, untimed.

use std::ffi::OsString;
use std::path::PathBuf;

use jsoncost_codecs::BorrowedForm;
use jsoncost_codecs::build::new_results;
use jsoncost_engine::alloc::Allocator;
use jsoncost_engine::{ExperimentKind, MeasureConfig, Results, Row, Schedule, alloc};
use jsoncost_report::Format;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::cancel::Cancel;
use crate::error::{Error, NoMatch};
use crate::filter::Filter;
use crate::output::{Output, baselines, check_writable, print_stdout, timestamp_dir, write_html_of, write_reports_of, write_results_of};
use crate::runner::{RunMode, Runner};
use crate::sink::Sink;
use crate::sizes::{PayloadSize, SizedSubject};
#[cfg(feature = "store")]
use crate::store::{StoreOptions, TypedReads};
#[cfg(feature = "stream")]
use crate::stream::Runs;
#[cfg(feature = "stream")]
use crate::stream::array::{self, ArrayOptions, TypedElements};
use crate::types::{Sample, Subject, TypedSubject};
use crate::variants::{Variant, VariantsSubject};
use jsoncost_conductor::ab::{AllocatorPlan, CpuChoice, Settings};
#[cfg(feature = "store")]
use jsoncost_stores::Existing;

/// The harness's flags, as the CLI's: `--quick`, `--filter GLOB` (or the glob alone),
/// `--format FORMAT` (a [`Format`] name), `--out FILE`, `--save-baseline NAME`, `--schedule
/// interleaved|sequential`, `--advice-rate [EXPERIMENT=]PER_S`, `--allocators A,B,...`,
/// `--lever LEVER`, `--rounds N`, `--list`, `--help`; `--bench` (which `cargo bench` passes) measures, its
/// absence is test mode.
///
/// ```
/// let args = jsoncost::Args::parse(["--bench", "--quick", "typed/*"].map(Into::into)).unwrap();
/// assert!(args.quick);
/// assert_eq!(args.filters, ["typed/*"]);
/// // A study with these flags: `jsoncost::Study::with_args(..)`.
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    /// Fewer, shorter iterations.
    pub quick: bool,
    /// Only the strategies any of these globs matches (`--filter GLOB` or the glob alone,
    /// repeatable): by `style/library`, table name, registration name or test name
    /// `table::style/library`.
    pub filters: Vec<String>,
    /// `--skip GLOB` (repeatable): not the strategies these match, as the filters match.
    pub skip: Vec<String>,
    /// `--exact`: filters and skips match whole names only, not as globs.
    pub exact: bool,
    /// `--ignored`: only ignored tests, as libtest: jsoncost ignores none, so nothing runs
    /// (and `--list` lists nothing).
    pub ignored: bool,
    /// `--format terse` (libtest's, with `--list`): `table::style/library: test` a line, the
    /// listing nextest reads.
    pub terse: bool,
    /// What stdout carries (default: tables as they finish, then the advice).
    pub format: Option<Format>,
    /// Where results.json goes (the HTML report beside it).
    pub out: Option<PathBuf>,
    /// Also keep the results as `jsoncost-results/baselines/NAME.json`.
    pub save_baseline: Option<String>,
    /// How a table's strategies share the time (default: interleaved rounds).
    pub schedule: Option<Schedule>,
    /// The rates the advice states per-second figures at: `(experiment, per second)`; a bare
    /// `--advice-rate PER_S` sets every experiment's.
    pub rates: Vec<(Option<ExperimentKind>, f64)>,
    /// `--bench`: measure. Without it, each strategy once through the gate (test mode).
    pub bench: bool,
    /// `--list`: print each table's strategies (`table strategy` a line) and exit.
    pub list: bool,
    /// `--help`: print the usage and exit 0.
    pub help: bool,
    /// `--allocators system,mimalloc`: measure under each allocator, the first the base, each
    /// in its own process of this bench, in lockstep (empty: this process, as it is).
    pub allocators: Vec<Allocator>,
    /// `--lever L` (repeatable): build this bench once more per build change (a feature of a
    /// JSON crate, a CPU level, LTO, another version of a dependency) and run each build in
    /// lockstep with the default build (`jsoncost levers`).
    pub levers: Vec<crate::levers::Lever>,
    /// `--rounds N`: rounds of every interleaved table of each paired run (with `--allocators`
    /// or `--lever`).
    pub rounds: Option<u64>,
    /// `--measure counts`: also count instructions and simulated cache misses per operation,
    /// this bench run again under Callgrind.
    pub counts: bool,
    /// `--count-ops N`: operations counted per strategy (default 1000; 100 with `--quick`).
    pub count_ops: Option<u64>,
}

/// How `--allocators` and `--lever` run this bench's processes in lockstep: `--rounds`, one
/// run, a CPU chosen for the pair, the measuring flags.
fn paired_settings(args: &Args) -> Result<Settings, Error> {
    Ok(Settings {
        rounds: args.rounds.unwrap_or(30),
        runs: 1,
        first_run: 1,
        cpu: CpuChoice::Auto.resolve()?,
        timeout: std::time::Duration::from_secs(600),
        keep: None,
        args: args.measuring_args(),
        max_other_cpu: jsoncost_engine::OtherCpu::DEFAULT_LIMIT,
        label: "jsoncost".to_string(),
    })
}

/// What `--help` prints.
pub fn usage() -> String {
    USAGE.replace("{formats}", &Format::names()).replace("{rated}", &rated_kinds())
}

/// The experiments that take an advice rate, as the usage names them: `micro, store, stream or http`.
fn rated_kinds() -> String {
    let names: Vec<&str> = ExperimentKind::ALL
        .into_iter()
        .filter(|k| k.traits().rate.is_some())
        .map(ExperimentKind::as_str)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.join(""),
    }
}

/// [`usage`] before the format names and the experiments with a rate are filled in.
const USAGE: &str = "\
Measures what JSON costs for this crate's own types (jsoncost's cargo bench harness).

usage: cargo bench --bench NAME -- [OPTIONS] [FILTER...]
       cargo test --bench NAME -- [FILTER...]   (test mode: each strategy once through the gate)

options:
  --quick                   fewer, shorter iterations (rough figures, seconds not minutes)
  --filter GLOB, FILTER     only the strategies a glob matches (repeatable: any of them), by
                            style/library ('typed/*'), table ('push/serialize'), registration
                            ('push') or test name ('push/serialize::typed/sonic-rs'); a table
                            with no match is skipped and named, no match anywhere is exit 2
  --skip GLOB               not the strategies it matches, as --filter does (repeatable)
  --exact                   filters and skips match whole names only
  --format FORMAT           stdout: {formats} (default: table); with --list,
                            terse: libtest's 'TABLE::STRATEGY: test' lines
  --out FILE                write the results (JSON) to FILE and the HTML report beside it, FILE
                            with .html (r.json, r.html); default: both in
                            jsoncost-results/<timestamp>/; test mode writes nothing
  --save-baseline NAME      also keep the results as jsoncost-results/baselines/NAME.json
                            (then: jsoncost compare NAME1 NAME2)
  --schedule SCHEDULE       interleaved (default: rounds, paired ratios) or sequential
  --advice-rate [EXPERIMENT=]PER_S
                            the rate advice states per-second figures at (repeatable);
                            EXPERIMENT is {rated}, none: all of them
  --allocators A,B,...      the allocator dimension: the bench again under each allocator
                            (system, mimalloc, jemalloc; the first the base), each other in
                            lockstep with the first, each row's time paired with it; needs
                            jsoncost's feature `allocators` and the selected counting allocator
  --lever LEVER             a build change (repeatable): this bench built again with it by
                            cargo (its own target directory, reused) and run in lockstep with
                            the default build, each row paired: crate/feature
                            (serde_json/float_roundtrip), cpu=LEVEL (native, x86-64-v2 ...),
                            lto, crate@x.y.z; each lever gets a verdict
  --rounds N                rounds of every interleaved table of each paired run, under
                            --allocators or --lever (default 30)
  --measure counts          also count instructions, L1/LL misses and estimated cycles per
                            operation: this bench again under valgrind --tool=callgrind (build
                            it without AVX-512 and with one codegen unit, e.g.
                            RUSTFLAGS=-Ctarget-cpu=x86-64-v3 CARGO_PROFILE_BENCH_CODEGEN_UNITS=1;
                            docs/guide/counts.md: counts that hold across clones)
  --count-ops N             operations counted per strategy (default 1000; 100 with --quick)
  --list                    print 'table strategy' for every strategy and exit
  --ignored                 only ignored strategies, as libtest: jsoncost ignores none, so none
  --color WHEN, --nocapture, --test-threads N, --show-output, -q
                            libtest's, accepted (WHEN: auto, always or never)
  --bench                   measure (cargo bench passes it); without it: test mode
  -h, --help                print this and exit";

impl Args {
    /// Parses flags (without the program name). Hand-parsed with lexopt: a user's bench should
    /// not compile clap for a dozen flags.
    pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<Args, Error> {
        use lexopt::prelude::*;
        let usage = |e: lexopt::Error| {
            Error::usage(format!(
                "{e}\nusage: cargo bench --bench NAME -- [OPTIONS] [FILTER...]; --help lists the options"
            ))
        };
        let mut parser = lexopt::Parser::from_args(args);
        let mut a = Args::default();
        while let Some(arg) = parser.next().map_err(usage)? {
            match arg {
                Long("quick") => a.quick = true,
                Long("bench") => a.bench = true,
                Long("list") => a.list = true,
                Long("filter") => a.filters.push(parser.value().map_err(usage)?.string().map_err(usage)?),
                Value(glob) => a.filters.push(glob.string().map_err(usage)?),
                Long("skip") => a.skip.push(parser.value().map_err(usage)?.string().map_err(usage)?),
                Long("exact") => a.exact = true,
                Long("ignored") => a.ignored = true,
                Long("format") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    match v.as_str() {
                        // libtest's own formats: `terse` is what nextest lists with; `pretty`
                        // is what test mode prints anyway.
                        "terse" => a.terse = true,
                        "pretty" => a.terse = false,
                        _ => a.format = Some(v.parse().map_err(|e| Error::usage(format!("--format: {e}")))?),
                    }
                }
                Long("color") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    // Accepted for libtest's sake: the harness prints no colour.
                    if !matches!(v.as_str(), "auto" | "always" | "never") {
                        return Err(Error::usage(format!("--color: {v:?} is not auto, always or never")));
                    }
                }
                Long("out") => a.out = Some(parser.value().map_err(usage)?.into()),
                Long("save-baseline") => {
                    let name = parser.value().map_err(usage)?.string().map_err(usage)?;
                    baselines::check_name(&name)?;
                    a.save_baseline = Some(name);
                }
                Long("schedule") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    a.schedule = Some(v.parse().map_err(|e| Error::usage(format!("--schedule: {e}")))?);
                }
                Long("advice-rate") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    let rate = match v.split_once('=') {
                        Some(_) => jsoncost_engine::parse_experiment_rate(&v).map(|(k, r)| (Some(k), r)),
                        None => jsoncost_engine::parse_rate(&v).map(|r| (None, r)),
                    };
                    a.rates.push(rate.map_err(|e| Error::usage(format!("--advice-rate: {e}")))?);
                }
                // What `cargo test -- ...` hands every test binary, benches included.
                Long("nocapture" | "show-output" | "include-ignored" | "quiet") | Short('q') => {}
                Long("test-threads") => {
                    parser.value().map_err(usage)?;
                }
                Long("allocators") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    a.allocators = v
                        .split(',')
                        .map(|name| name.parse::<Allocator>())
                        .collect::<Result<_, _>>()
                        .map_err(|e| Error::usage(format!("--allocators: {e}")))?;
                }
                Long("lever") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    a.levers.push(v.parse().map_err(|e| Error::usage(format!("--lever: {e}")))?);
                }
                Long("rounds") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    match v.parse::<u64>() {
                        Ok(n) if (2..=10_000).contains(&n) => a.rounds = Some(n),
                        _ => return Err(Error::usage(format!("--rounds: {v:?} is not a whole number from 2 to 10000"))),
                    }
                }
                Long("measure") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    a.counts = match v.as_str() {
                        "counts" => true,
                        "time" => false,
                        _ => return Err(Error::usage(format!("--measure: {v:?} is not time or counts"))),
                    };
                }
                Long("count-ops") => {
                    let v = parser.value().map_err(usage)?.string().map_err(usage)?;
                    match v.parse::<u64>() {
                        Ok(n) if (1..=10_000_000).contains(&n) => a.count_ops = Some(n),
                        _ => return Err(Error::usage(format!("--count-ops: {v:?} is not a whole number from 1 to 10000000"))),
                    }
                }
                Long("help") | Short('h') => a.help = true,
                other => return Err(usage(other.unexpected())),
            }
        }
        if a.count_ops.is_some() && !a.counts {
            return Err(Error::usage(
                "--count-ops is how many operations --measure counts counts: give --measure counts too",
            ));
        }
        if a.counts && !a.allocators.is_empty() {
            return Err(Error::usage("--measure counts and --allocators: give one of them"));
        }
        if a.rounds.is_some() && a.allocators.is_empty() && a.levers.is_empty() {
            return Err(Error::usage(
                "--rounds is the paired runs' round count: give --allocators or --lever too",
            ));
        }
        if !a.levers.is_empty() {
            let other = [(a.counts, "--measure counts"), (!a.allocators.is_empty(), "--allocators")];
            if let Some((_, flag)) = other.iter().find(|(given, _)| *given) {
                return Err(Error::usage(format!("--lever and {flag}: give one of them")));
            }
            if !a.bench && !a.help {
                return Err(Error::usage(
                    "--lever measures: run it with cargo bench (cargo bench --bench NAME -- --lever LEVER)",
                ));
            }
        }
        Ok(a)
    }

    /// The flags each allocator's run of this bench gets: those that decide what is measured
    /// (the output is `ab`'s to set).
    fn measuring_args(&self) -> Vec<String> {
        let mut words = vec!["--bench".to_string()];
        if self.quick {
            words.push("--quick".into());
        }
        for glob in &self.filters {
            words.extend(["--filter".into(), glob.clone()]);
        }
        for glob in &self.skip {
            words.extend(["--skip".into(), glob.clone()]);
        }
        if self.exact {
            words.push("--exact".into());
        }
        if let Some(schedule) = self.schedule {
            words.extend(["--schedule".into(), schedule.as_str().into()]);
        }
        words
    }

    /// What the Runner does with each table.
    fn mode(&self) -> RunMode {
        if self.list {
            RunMode::List
        } else if self.bench {
            RunMode::Measure
        } else {
            RunMode::Gate
        }
    }
}

/// A study of the user's own types, e.g. in `benches/json.rs`:
///
/// ```no_run
/// # #[derive(serde::Serialize, serde::Deserialize)] struct MyOrder { id: u64 }
/// fn main() {
///     jsoncost::Study::from_args()
///         .typed::<MyOrder>("my-order", jsoncost::Sample::json(r#"{"id": 1}"#))
///         .lazy(&["/id"])
///         .run();
/// }
/// ```
pub struct Study {
    args: Result<Args, Error>,
    subjects: Vec<Box<dyn Subject>>,
    /// Bodies streamed with a user's element type (`stream`).
    #[cfg(feature = "stream")]
    streams: Vec<(String, ArrayOptions, TypedElements)>,
    /// The user's own documents read from their store as their type (`store`).
    #[cfg(feature = "store")]
    stores: Vec<(String, StoreOptions, TypedReads)>,
    /// Rows of any of its tables expected to fail ([`Study::expect_failure`]).
    expected: Vec<crate::types::ExpectedFailure>,
    /// The first registration error, reported by `run` (exit 2).
    error: Option<Error>,
    cancel: Cancel,
}

/// One registered table kind's part of a study, as [`Study::measure`] runs them: each on its
/// own, so a table that cannot be measured stops only itself.
enum Unit<'s> {
    Types(&'s dyn Subject),
    #[cfg(feature = "stream")]
    Stream(&'s (String, ArrayOptions, TypedElements)),
    #[cfg(feature = "store")]
    Store(&'s (String, StoreOptions, TypedReads)),
}

impl Unit<'_> {
    /// The tables it measures, for messages.
    fn label(&self) -> String {
        match self {
            Unit::Types(s) => s.directions().iter().map(|d| s.table(*d)).collect::<Vec<_>>().join(" and "),
            #[cfg(feature = "stream")]
            Unit::Stream((name, ..)) => format!("stream {name}"),
            #[cfg(feature = "store")]
            Unit::Store((name, ..)) => format!("store {name}"),
        }
    }

    /// The tables it writes, by experiment: two registrations may not share one (the results
    /// would hold two tables of a name, which `compare` refuses and `--allocators` would pair
    /// with each other's rows).
    fn tables(&self) -> Vec<(ExperimentKind, String)> {
        match self {
            Unit::Types(s) => s.directions().iter().map(|d| (ExperimentKind::Micro, s.table(*d))).collect(),
            #[cfg(feature = "stream")]
            Unit::Stream((name, ..)) => vec![(ExperimentKind::Stream, name.clone())],
            #[cfg(feature = "store")]
            Unit::Store((name, ..)) => vec![(ExperimentKind::Store, name.clone())],
        }
    }

    /// The names that select the whole unit (its registration's), and its tables' names as
    /// known before it runs (a store's gets its kind's prefix then): what a harness filter is
    /// matched against besides strategy names.
    fn scope(&self) -> (Vec<String>, Vec<String>) {
        #[cfg_attr(not(feature = "store"), allow(unused_mut))]
        let mut tables: Vec<String> = self.tables().into_iter().map(|(_, t)| t).collect();
        // A store's table is `<kind>/<name>` (`sqlite/shipments`), its kind read from the URL
        // without opening it: the test names nextest runs by hold it.
        #[cfg(feature = "store")]
        if let Unit::Store((name, options, _)) = self
            && let Some(url) = &options.url
            && let Ok(location) = jsoncost_stores::Location::parse(url)
        {
            tables.push(format!("{}/{name}", location.kind(options.pg_column).as_str()));
        }
        let name = match self {
            Unit::Types(s) => s.name().to_string(),
            #[cfg(feature = "stream")]
            Unit::Stream((name, ..)) => name.clone(),
            #[cfg(feature = "store")]
            Unit::Store((name, ..)) => name.clone(),
        };
        (vec![name], tables)
    }

    fn kind(&self) -> ExperimentKind {
        match self {
            Unit::Types(_) => ExperimentKind::Micro,
            #[cfg(feature = "stream")]
            Unit::Stream(_) => ExperimentKind::Stream,
            #[cfg(feature = "store")]
            Unit::Store(_) => ExperimentKind::Store,
        }
    }

    fn run(&self, quick: bool, runner: &mut Runner<'_>) -> Result<(), Error> {
        let _ = quick;
        match self {
            Unit::Types(s) => crate::types::measure_each(&[*s], runner),
            // Listed without reading the file: nextest lists before anything runs.
            #[cfg(feature = "stream")]
            Unit::Stream((name, options, typed)) if runner.mode() == RunMode::List => {
                let names = array::row_names(&options.pointer, Some(typed))?;
                runner.filter().check_matches_any(names.iter().map(String::as_str))?;
                let filter = runner.filter().in_tables(std::slice::from_ref(name));
                for row in names.iter().filter(|n| filter.matches(n)) {
                    runner.sink().listed(name, row);
                }
                Ok(())
            }
            #[cfg(feature = "stream")]
            Unit::Stream((name, options, typed)) => {
                let mut options = ArrayOptions { quick, ..options.clone() };
                // Test mode gates a bounded prefix of a large body (the directory lives as
                // long as the run).
                let prefix = match runner.mode() {
                    RunMode::Gate => gate_prefix(name, &options),
                    _ => None,
                };
                if let Some((_, path, note)) = &prefix {
                    runner.sink().note(note);
                    options.file = path.clone();
                }
                array::run_with(&options, name, Some(typed), runner).map(|_| ())
            }
            #[cfg(feature = "store")]
            Unit::Store((name, options, typed)) => match &options.existing {
                Some(at) => crate::store::run_existing(options, at, Some(name), Some(typed), runner).map(|_| ()),
                None => Ok(()),
            },
        }
    }
}

/// Test mode's copy of a stream's body larger than [`TEST_PREFIX_BYTES`]: its array's first
/// elements, in a directory of its own, and the note that says so. `None`: gate the whole file
/// (it is small, or the copy failed, and then the run says why the file is wrong).
#[cfg(feature = "stream")]
fn gate_prefix(name: &str, options: &ArrayOptions) -> Option<(tempfile::TempDir, PathBuf, String)> {
    use crate::test_prefix::{TEST_PREFIX_BYTES, write_prefix};
    let size = std::fs::metadata(&options.file).ok()?.len();
    if size <= TEST_PREFIX_BYTES {
        return None;
    }
    let dir = tempfile::tempdir().ok()?;
    let path = dir.path().join("prefix.json");
    let prefix = write_prefix(&options.file, &options.pointer, TEST_PREFIX_BYTES, &path).ok()?;
    let note = format!(
        "stream {name}: test mode gates the first {} elements (about {} KiB of {:.1} MiB) of {}; cargo bench streams it whole",
        prefix.elements,
        TEST_PREFIX_BYTES >> 10,
        size as f64 / (1 << 20) as f64,
        options.file.display()
    );
    Some((dir, path, note))
}

/// Implemented by no type: the bound of `.stream(..)` when jsoncost is built without its
/// feature `stream`, so calling it is a compile error that says which feature to enable.
///
#[cfg_attr(not(feature = "stream"), doc = "```compile_fail,E0277")]
#[cfg_attr(feature = "stream", doc = "```no_run")]
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Push { id: u64 }
/// // Without the feature `stream`: "`.stream(..)` needs jsoncost's cargo feature `stream`".
/// jsoncost::Study::from_args().stream::<Push>("pushes", "benches/data/pushes.json", "/pushes").run();
/// ```
#[diagnostic::on_unimplemented(
    message = "`.stream(..)` needs jsoncost's cargo feature `stream`",
    label = "jsoncost is built without its feature `stream`",
    note = "enable it where jsoncost is a dependency: jsoncost = {{ version = \"..\", features = [\"stream\"] }}"
)]
pub trait NeedsFeatureStream {}

/// Implemented by no type: the bound of `.store(..)` when jsoncost is built without a store
/// client, so calling it is a compile error that names the features.
///
#[cfg_attr(not(feature = "store"), doc = "```compile_fail,E0277")]
#[cfg_attr(feature = "store", doc = "```ignore")]
/// # #[derive(serde::Serialize, serde::Deserialize)] struct Order { id: u64 }
/// // Without a store client: "`.store(..)` needs one of jsoncost's cargo features `redb`, ...".
/// jsoncost::Study::from_args().store::<Order>("orders", "sqlite://orders.db", ()).run();
/// ```
#[diagnostic::on_unimplemented(
    message = "`.store(..)` needs one of jsoncost's cargo features `redb`, `sqlite`, `redis` or `postgres`",
    label = "jsoncost is built without a store client",
    note = "enable the one of your store where jsoncost is a dependency, e.g. jsoncost = {{ version = \"..\", features = [\"sqlite\"] }}"
)]
pub trait NeedsStoreFeature {}

/// What the units of a study came to.
#[derive(Default)]
struct Outcome {
    /// Some table was measured (or gated, or listed), or failed trying.
    any_ran: bool,
    /// Some unit was measured (or gated, or listed) to the end.
    measured: bool,
    /// Units none of whose strategies the filter matched: label and the filter's verdict.
    skipped: Vec<(String, NoMatch)>,
    /// Units that could not be measured: label, kind and why.
    failed: Vec<(String, ExperimentKind, Error)>,
    interrupted: bool,
}

impl Study {
    /// A study with the process's flags (what `cargo bench -- ...` passes).
    pub fn from_args() -> Study {
        Study::with_args(std::env::args_os().skip(1))
    }

    /// A study with these flags (without the program name).
    pub fn with_args<I, S>(args: I) -> Study
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Study {
            args: Args::parse(args.into_iter().map(Into::into)),
            subjects: Vec::new(),
            #[cfg(feature = "stream")]
            streams: Vec::new(),
            #[cfg(feature = "store")]
            stores: Vec::new(),
            expected: Vec::new(),
            error: None,
            cancel: Cancel::never(),
        }
    }

    /// Declares the rows `pattern` matches in any table of the study expected to fail on its
    /// data, for `reason`: what a `.stream(..)` or `.store(..)` registration's rows need (a
    /// type's own tables have [`TypeStudy::expect_failure`]). The glob is over
    /// `table::style/library` (`"pushes::incremental-typed/simd-json"`) or `style/library`.
    /// Test mode counts their failures as expected and says loudly, exit 2, when one passes;
    /// a pattern that matches no row of the study is bad input.
    ///
    #[cfg_attr(feature = "stream", doc = "```no_run")]
    #[cfg_attr(not(feature = "stream"), doc = "```ignore")]
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Push { id: u64 }
    /// jsoncost::Study::from_args()
    ///     .stream::<Push>("pushes", "benches/data/pushes.json", "")
    ///     .expect_failure("pushes::*/simd-json", "ids of 30 digits: simd-json reads no integer beyond u64")
    ///     .run();
    /// ```
    pub fn expect_failure(mut self, pattern: &str, reason: &str) -> Study {
        let what = format!("Study::expect_failure({pattern:?}, ..)");
        match crate::types::ExpectedFailure::new(&what, pattern, reason) {
            Ok(expected) => self.expected.push(expected),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Each of the study's own expected failures matches some row of its tables (listed, not
    /// run: nothing is read); a listing that fails is said when the tables run.
    fn check_expected(&self) -> Result<(), Error> {
        if self.expected.is_empty() {
            return Ok(());
        }
        let (rows, ended) = self.listed_rows(Filter::select(&[], &[], false)?);
        if ended.is_err() {
            return Ok(());
        }
        for e in &self.expected {
            if !rows.iter().any(|(table, row)| e.matches(table, row)) {
                let all: Vec<String> = rows.iter().map(|(t, r)| format!("{t}::{r}")).collect();
                return Err(Error::usage(format!(
                    "Study::expect_failure({:?}, ..) matches no strategy; the strategies are: {}",
                    e.pattern,
                    all.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Stops between strategies once `cancel` says so (the library owns no signal handler).
    pub fn cancel(mut self, cancel: Cancel) -> Study {
        self.cancel = cancel;
        self
    }

    /// Registers `T` with a sample document ([`Sample::json`], [`Sample::file`], or bytes):
    /// its deserialize and serialize tables, named `name/deserialize` and `name/serialize`,
    /// with every strategy that applies to any serde type. The returned [`TypeStudy`] adds the
    /// optional ones (`.borrowed_as::<F>()`, `.lazy(..)`) and goes back to the study with
    /// `.into_study()` or on to the next registration.
    pub fn typed<T: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> TypeStudy<T> {
        let subject = TypedSubject::<T>::new(name, sample).map(|s| vec![s]);
        TypeStudy {
            study: self,
            subject,
            sweep: None,
        }
    }

    /// Registers `T` at several sizes, one sample each (smallest to largest, or in any order):
    /// the tables of each, named `name-<size>/deserialize` (`push-1536B`, `push-64KB`), and
    /// where each row that matters becomes measurably faster or slower than the baseline as
    /// the document grows (the crossover sentences and the size chart of the report). The
    /// returned [`TypeStudy`] adds optional strategies to every size, as for [`Study::typed`].
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Push { id: u64, commits: Vec<String> }
    /// use jsoncost::Sample;
    /// jsoncost::Study::from_args()
    ///     .typed_sizes::<Push>("push", [Sample::file("benches/data/push-small.json"), Sample::file("benches/data/push-large.json")])
    ///     .run();
    /// ```
    pub fn typed_sizes<T: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        samples: impl IntoIterator<Item = impl Into<Sample>>,
    ) -> TypeStudy<T> {
        let subject = samples
            .into_iter()
            .map(|sample| TypedSubject::<T>::new(name, sample))
            .collect::<Result<Vec<_>, _>>()
            .and_then(|v| at_least_two(name, v));
        TypeStudy {
            study: self,
            subject,
            sweep: Some(Sweep::Samples(name.to_string())),
        }
    }

    /// Registers `T` at each of `sizes` (bytes), `generate` making a `T` of about that size as
    /// JSON (e.g. with that many list entries): as [`Study::typed_sizes`], each table named by
    /// the size asked for (`feed-4KB/deserialize`) and carrying it as `size_target`.
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Feed { items: Vec<u64> }
    /// jsoncost::Study::from_args()
    ///     .typed_by_size::<Feed>("feed", &[1024, 4096, 65_536], |bytes| Feed {
    ///         items: (0..bytes / 8).collect(),
    ///     })
    ///     .run();
    /// ```
    pub fn typed_by_size<T: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        sizes: &[u64],
        generate: impl Fn(u64) -> T,
    ) -> TypeStudy<T> {
        let subject = sizes
            .iter()
            .map(|bytes| {
                let sample = serde_json::to_vec(&generate(*bytes))
                    .map_err(|e| Error::usage(format!("{name}: the {bytes}-byte value does not serialize: {e}")))?;
                TypedSubject::<T>::new(name, sample)
            })
            .collect::<Result<Vec<_>, _>>()
            .and_then(|v| at_least_two(name, v));
        TypeStudy {
            study: self,
            subject,
            sweep: Some(Sweep::Targets(
                name.to_string(),
                sizes.iter().map(|b| PayloadSize::bytes(*b)).collect(),
            )),
        }
    }

    /// Registers a body to stream: the array at `pointer` (RFC 6901, `""` for a top-level array)
    /// of the JSON document in `file`, read again by every whole run. Its table, named `name`, has
    /// the stream experiment's DOM and skipping rows and `incremental-typed/<lib>` for `E`,
    /// every row gated element by element against the exact reference. (Cargo feature `stream`.)
    #[cfg(feature = "stream")]
    pub fn stream<E: Serialize + DeserializeOwned + 'static>(mut self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        let options = ArrayOptions {
            file: file.into(),
            pointer: pointer.to_string(),
            chunk_kib: 64,
            max_element_bytes: jsoncost_stream::DEFAULT_MAX_ELEMENT_BYTES,
            max_buffered_mib: crate::stream::DEFAULT_MAX_BUFFERED_MIB,
            runs: Runs::at_least(5),
            quick: false,
        };
        self.streams.push((name.to_string(), options, TypedElements::of::<E>()));
        self
    }

    /// Without jsoncost's cargo feature `stream`: a compile error that names it.
    ///
    /// ```compile_fail
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Push { id: u64 }
    /// jsoncost::Study::from_args().stream::<Push>("pushes", "benches/data/pushes.json", "").run();
    /// ```
    #[cfg(not(feature = "stream"))]
    pub fn stream<E: NeedsFeatureStream>(self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        let _ = (name, file.into(), pointer);
        unreachable!("no type implements NeedsFeatureStream")
    }

    /// Registers the user's own documents in their store (`url`, as the CLI's `--store`; `at`
    /// where they are): read by id, up to 10,000 of them, as `T` through each library
    /// (`typed/<lib>`, `typed/serde_json` the baseline) and the strategies that need no type,
    /// every row gated against the exact parse of the first document (the typed rows against it
    /// as `T` sees it, as micro's). The store is opened read-only. The table is
    /// `<store kind>/<name>`; when it cannot be measured, the other tables still are and the
    /// run ends with its error. (Cargo feature of the store's client: `redb`, `sqlite`, `redis`
    /// or `postgres`.)
    #[cfg(feature = "store")]
    pub fn store<T: Serialize + DeserializeOwned + 'static>(mut self, name: &str, url: &str, at: Existing) -> Study {
        let options = StoreOptions {
            url: Some(url.to_string()),
            pg_column: jsoncost_stores::PgColumn::Json,
            docs: 10_000,
            shape: crate::store::StoreShape::Order,
            reload: false,
            seed: jsoncost_shapes::DEFAULT_SEED,
            existing: Some(at),
            fields: Vec::new(),
            max_doc_bytes: crate::store::DEFAULT_MAX_DOC_MIB << 20,
            sizes: Vec::new(),
        };
        self.stores.push((name.to_string(), options, TypedReads::of::<T>()));
        self
    }

    /// Without a store client's cargo feature of jsoncost: a compile error that names them.
    #[cfg(not(feature = "store"))]
    pub fn store<U: NeedsStoreFeature>(self, name: &str, url: &str, at: impl Sized) -> Study {
        let _ = (name, url, at);
        unreachable!("no type implements NeedsStoreFeature")
    }

    /// Registers a group of model variants of `P` over one sample (bytes, or
    /// [`Sample::file`]): the table `name/variants`, rows `<variant>/<library>`, baseline
    /// `plain/serde_json` (the sample decoded as `P`). Each variant is gated, untimed, by its
    /// conversion to `P` against the exact reference as `P` sees it:
    ///
    /// ```no_run
    /// # use serde::Deserialize;
    /// #[derive(serde::Serialize, Deserialize)]
    /// struct Plain { id: u64, kind: String }
    /// #[derive(Deserialize)]
    /// struct Boxed { id: u64, kind: Box<str> }
    /// impl From<Boxed> for Plain {
    ///     fn from(b: Boxed) -> Plain { Plain { id: b.id, kind: b.kind.into() } }
    /// }
    /// jsoncost::Study::from_args()
    ///     .variants::<Plain>("my-model", jsoncost::Sample::json(r#"{"id": 1, "kind": "a"}"#))
    ///     .variant::<Boxed>("box-str")
    ///     .run();
    /// ```
    pub fn variants<P: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> VariantStudy<P> {
        VariantStudy::new(self, VariantsSubject::new(name, sample))
    }

    pub(crate) fn add(mut self, subject: Result<Box<dyn Subject>, Error>) -> Study {
        match subject {
            Ok(s) => self.subjects.push(s),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// Measures, prints and writes; exits the process with the CLI's exit codes (0 ok, 2 bad
    /// input, 3 environment, 130 interrupted). `--help` and `--list` print and exit 0.
    pub fn run(self) -> ! {
        let code = match self.measure() {
            Ok(_) => 0,
            Err(e) => {
                eprintln!("error: {e}");
                e.exit_code()
            }
        };
        std::process::exit(code)
    }

    fn units(&self) -> Vec<Unit<'_>> {
        #[cfg_attr(not(any(feature = "stream", feature = "store")), allow(unused_mut))]
        let mut units: Vec<Unit<'_>> = self.subjects.iter().map(|s| Unit::Types(s.as_ref())).collect();
        #[cfg(feature = "stream")]
        units.extend(self.streams.iter().map(Unit::Stream));
        #[cfg(feature = "store")]
        units.extend(self.stores.iter().map(Unit::Store));
        units
    }

    /// Each unit through `runner`, on its own: a unit that fails is kept with why and the
    /// others still run; cancellation stops them all.
    fn run_units(&self, quick: bool, runner: &mut Runner<'_>) -> Outcome {
        let mut outcome = Outcome::default();
        for unit in self.units() {
            if runner.is_cancelled() {
                outcome.interrupted = true;
                break;
            }
            let (names, tables) = unit.scope();
            let filter = runner.filter().in_unit(&names, &tables);
            match runner.with_filter(filter, |runner| unit.run(quick, runner)) {
                Ok(()) => {
                    outcome.any_ran = true;
                    outcome.measured = true;
                }
                Err(Error::NoMatch(n)) => outcome.skipped.push((unit.label(), n)),
                Err(Error::Interrupted) => {
                    outcome.interrupted = true;
                    break;
                }
                Err(e) => {
                    outcome.any_ran = true;
                    // The first is the run's error, said once at its end; the others are only
                    // named there, so they are said here.
                    if !outcome.failed.is_empty() {
                        runner.sink().note(&format!("error: {}: {e}", unit.label()));
                    }
                    outcome.failed.push((unit.label(), unit.kind(), e));
                }
            }
        }
        outcome
    }

    /// Measures, prints and writes, and returns the results instead of exiting.
    pub fn measure(mut self) -> Result<Results, Error> {
        let args = self.args.clone()?;
        if args.help {
            print_lines(&[usage()])?;
            return Ok(new_results(args.quick));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        if self.units().is_empty() {
            return Err(Error::usage(
                "no type registered: call .typed::<T>(name, sample), .variants::<P>(name, sample), .stream::<E>(..) or .store::<T>(..) before .run()",
            ));
        }
        let mut tables = std::collections::HashSet::new();
        for (kind, table) in self.units().iter().flat_map(Unit::tables) {
            if !tables.insert((kind, table.clone())) {
                return Err(Error::usage(format!(
                    "two registrations write the {kind} table {table:?}: give each its own name"
                )));
            }
        }
        self.check_expected()?;
        let filter = Filter::select(&args.filters, &args.skip, args.exact)?;
        if args.ignored {
            // libtest's `--ignored` runs (and lists) only ignored tests; jsoncost ignores no
            // strategy. nextest asks `--list --format terse --ignored` and wants nothing back.
            if !args.list {
                print_lines(&["jsoncost: 0 passed, 0 failed (--ignored: jsoncost ignores no strategy)".to_string()])?;
            }
            return Ok(new_results(args.quick));
        }
        // Said in every mode: test mode and --list are where a new bench is first run.
        crate::output::warn_about_the_build(&jsoncost_engine::machine::current());
        match args.mode() {
            RunMode::List => self.list(&args, filter),
            RunMode::Gate => self.test(&args, filter),
            RunMode::Measure if !args.allocators.is_empty() => self.bench_allocators(&args),
            RunMode::Measure if !args.levers.is_empty() => self.bench_levers(&args),
            // The Runner itself counts when Callgrind runs it for a conductor.
            RunMode::Measure | RunMode::Count(_) => self.bench(&args, filter),
        }
    }

    /// `--list`: every table's strategies the filter lets through, `table strategy` a line
    /// (with `--format terse`, libtest's `table::strategy: test`, which nextest reads).
    fn list(&self, args: &Args, filter: Filter) -> Result<Results, Error> {
        let (lines, ended) = self.listing(args, filter);
        print_lines(&lines)?;
        ended?;
        Ok(new_results(args.quick))
    }

    /// `--list`'s lines, and its error: whatever could be listed is, and then the first table
    /// that could not be set up (its file) says why.
    fn listing(&self, args: &Args, filter: Filter) -> (Vec<String>, Result<(), Error>) {
        let (rows, ended) = self.listed_rows(filter);
        let lines = rows
            .iter()
            .map(|(table, method)| match args.terse {
                true => format!("{table}::{method}: test"),
                false => format!("{table} {method}"),
            })
            .collect();
        (lines, ended)
    }

    /// `(table, strategy)` of every row `filter` lets through, as `--list` names them.
    fn listed_rows(&self, filter: Filter) -> (Vec<(String, String)>, Result<(), Error>) {
        let mut sink = Lines::default();
        let outcome = {
            let mut runner = Runner::new(MeasureConfig::quick(), filter, self.cancel.clone(), &mut sink).with_mode(RunMode::List);
            // Listing measures nothing: `quick` changes no name.
            self.run_units(true, &mut runner)
        };
        let ended = outcome.end().and_then(|()| sink.unmeasured.map_or(Ok(()), Err));
        (sink.listed, ended)
    }

    /// `--list`'s lines for this study as its arguments ask.
    #[cfg(test)]
    pub(crate) fn listed(&self) -> (Vec<String>, Result<(), Error>) {
        let args = self.args.clone().unwrap();
        let filter = Filter::select(&args.filters, &args.skip, args.exact).unwrap();
        self.listing(&args, filter)
    }

    /// Test mode: each strategy once through the gate, untimed; exit 2 when one fails that
    /// its registration does not expect to, or when none of those it expects to fail does.
    fn test(&self, args: &Args, filter: Filter) -> Result<Results, Error> {
        let mut sink = GateReport {
            expectations: self.expectations(),
            ..GateReport::default()
        };
        let outcome = {
            let mut runner = Runner::new(MeasureConfig::quick(), filter, self.cancel.clone(), &mut sink).with_mode(RunMode::Gate);
            self.run_units(args.quick, &mut runner)
        };
        let mut results = new_results(args.quick);
        results.experiments = std::mem::take(&mut sink.tables);
        let verdict = sink.finish();
        if let Some(e) = sink.stdout_error.take() {
            return Err(Error::environment(format!("writing to stdout: {e}")));
        }
        // A filter that matches nothing anywhere is exit 2, as in bench mode: a typo in CI must
        // not pass by testing nothing.
        outcome.end()?;
        verdict?;
        if let Some(e) = sink.unmeasured.into_iter().next() {
            return Err(e);
        }
        Ok(results)
    }

    /// Every registration's expected failures, with the tables they apply to.
    fn expectations(&self) -> Vec<Expectation> {
        let study = self.expected.iter().map(|f| Expectation {
            registration: "the study".to_string(),
            tables: None,
            failure: f.clone(),
            passed: Vec::new(),
        });
        self.subjects
            .iter()
            .flat_map(|s| {
                let tables: Vec<String> = s.directions().iter().map(|d| s.table(*d)).collect();
                s.expected_failures().iter().map(move |f| Expectation {
                    registration: s.name().to_string(),
                    tables: Some(tables.clone()),
                    failure: f.clone(),
                    passed: Vec::new(),
                })
            })
            .chain(study)
            .collect()
    }

    /// `--bench --lever L ...`: this bench built again per lever by cargo and each build run
    /// in lockstep with the default build (`levers::measure`, as `jsoncost levers` runs the
    /// jsoncost binary); prints each lever's paired table and the levers' verdicts. Nothing
    /// is written: each lever's runs are its own results.
    fn bench_levers(&self, args: &Args) -> Result<Results, Error> {
        let project = crate::levers::this_bench()?;
        let format = args.format.unwrap_or(Format::Table);
        let cancel = self.cancel.clone();
        let measured = crate::levers::measure(
            &project,
            &args.levers,
            &paired_settings(args)?,
            jsoncost_report::ab::DEFAULT_THRESHOLD,
            &move || cancel.is_cancelled(),
            &mut std::io::stderr(),
            &mut |lever, comparison| print_stdout(&format!("Lever {lever}\n\n{}", format.exporter().ab(comparison))).map(|_| ()),
        )?;
        print_stdout(&format!(
            "Levers against the default build:\n{}\n",
            measured.verdicts.iter().map(|v| format!("- {v}")).collect::<Vec<_>>().join("\n")
        ))?;
        if self.cancel.is_cancelled() {
            return Err(Error::Interrupted);
        }
        if let Some(e) = measured.first_error {
            return Err(e);
        }
        if measured.built > 0 && measured.judged == 0 {
            return Err(Error::environment(
                "no lever's time was judged: the machine was too busy (see each lever's table)",
            ));
        }
        Ok(new_results(args.quick))
    }

    /// `--bench --allocators A,B,...`: this bench again under each allocator, each other in
    /// lockstep with the first (`ab::allocators`, as `jsoncost alloc` runs the jsoncost binary);
    /// prints the allocator tables and levers, writes results.json (the first allocator's tables
    /// and the comparisons) and the HTML report.
    fn bench_allocators(&self, args: &Args) -> Result<Results, Error> {
        let (base, others) = args.allocators.split_first().expect("--allocators given");
        let (results_path, report_dir) = destination(args)?;
        let baseline = args.save_baseline.as_deref().map(baselines::prepare).transpose()?;
        check_writable(&results_path)?;
        let plan = AllocatorPlan {
            base: *base,
            others: others.to_vec(),
            threshold: jsoncost_report::ab::DEFAULT_THRESHOLD,
            settings: Settings {
                args: Vec::new(),
                ..paired_settings(args)?
            },
        };
        let cancel = self.cancel.clone();
        let ran = jsoncost_conductor::ab::allocators(&plan, &args.measuring_args(), 1, &move || cancel.is_cancelled());
        let error = ran.error;
        let Some(mut results) = ran.results else {
            return Err(error.unwrap_or(Error::Interrupted));
        };
        results.interrupted = error == Some(Error::Interrupted);
        for &(kind, per_s) in &args.rates {
            match kind {
                Some(kind) => results.rates.set(kind, per_s),
                None => ExperimentKind::ALL.into_iter().for_each(|k| results.rates.set(k, per_s)),
            }
        }
        print_stdout(&args.format.unwrap_or(Format::Table).exporter().allocator_run(&results))?;
        write_results_of(&results, &results_path)?;
        let html = match &report_dir {
            Some(dir) => {
                write_reports_of(&results, dir)?;
                dir.join("report.html")
            }
            None => {
                let html = results_path.with_extension("html");
                write_html_of(&results, &html)?;
                html
            }
        };
        if let Some(path) = &baseline {
            write_results_of(&results, path)?;
            eprintln!(
                "baseline {:?} saved to {}",
                args.save_baseline.clone().unwrap_or_default(),
                path.display()
            );
        }
        eprintln!("report: {}", html.display());
        error.map_or(Ok(results), Err)
    }

    /// `--bench`: measure, print and write.
    /// `--measure counts`: this bench binary again under Callgrind, with the same flags. It is
    /// not rebuilt: a bench built for a CPU with AVX-512 is refused by Valgrind, and the error
    /// says so.
    fn count(&self, args: &Args) -> Result<crate::counts::Counted, Error> {
        let binary = std::env::current_exe().map_err(|e| Error::environment(format!("cannot find this bench's binary: {e}")))?;
        let ops = args.count_ops.unwrap_or(if args.quick { 100 } else { 1000 });
        eprintln!("counting {ops} operations per strategy under Callgrind (with the cache simulation)");
        let counted = crate::counts::CountRun {
            binary,
            args: std::env::args_os().skip(1).collect(),
            ops,
            cache_sim: true,
            valgrind: std::env::var_os("JSONCOST_VALGRIND").unwrap_or_else(|| "valgrind".into()),
        }
        .run()?;
        if counted.0.is_empty() {
            return Err(Error::environment("the counted run under Callgrind dumped no counts"));
        }
        Ok(counted)
    }

    fn bench(&self, args: &Args, filter: Filter) -> Result<Results, Error> {
        // This bench again under Callgrind for its parent: the Runner counts; nothing is
        // printed or written (the parent does).
        if jsoncost_engine::counts::requested_ops().is_some() {
            let mut sink = crate::sink::Recorder::default();
            let config = if args.quick {
                MeasureConfig::quick()
            } else {
                MeasureConfig::full()
            };
            let mut runner = Runner::new(config, filter, self.cancel.clone(), &mut sink);
            self.run_units(args.quick, &mut runner).end()?;
            return Ok(new_results(args.quick));
        }
        // The counts first: no Valgrind, or a build it cannot decode, is said before the timing.
        let counted = match args.counts {
            true => Some(self.count(args)?),
            false => None,
        };
        let (results_path, report_dir) = destination(args)?;
        let baseline = args.save_baseline.as_deref().map(baselines::prepare).transpose()?;
        // Under `jsoncost ab` or `--allocators` the conductor names its socket: read here, once.
        let lockstep = jsoncost_engine::lockstep::Lockstep::from_env();
        let mut output = Output::new(
            args.format.unwrap_or(Format::Table),
            args.quick,
            Some(results_path.clone()),
            &lockstep,
        )?;
        output.verdict_first();
        if let Some(counted) = counted {
            output.count_with(counted);
        }
        for &(kind, per_s) in &args.rates {
            match kind {
                Some(kind) => output.results.rates.set(kind, per_s),
                None => ExperimentKind::ALL.into_iter().for_each(|k| output.results.rates.set(k, per_s)),
            }
        }
        if args.quick {
            eprintln!("quick run: fewer, shorter iterations; figures are rough");
        }
        if !alloc::is_installed() {
            eprintln!(
                "note: allocation not measured: install the counting allocator in this bench \
                 (#[global_allocator] static ALLOC: jsoncost::CountingAllocator = jsoncost::CountingAllocator::system();)"
            );
        }
        let mut config = if args.quick {
            MeasureConfig::quick()
        } else {
            MeasureConfig::full()
        };
        if let Some(schedule) = args.schedule {
            config.schedule = schedule;
        }
        config.lockstep = lockstep;
        let outcome = {
            let mut runner = Runner::new(config, filter, self.cancel.clone(), &mut output);
            self.run_units(args.quick, &mut runner)
        };
        // Nothing measured, because the filter matched nothing anywhere or every table failed:
        // the error, and no files (an earlier report at --out is not replaced by an empty one).
        if !outcome.measured && !outcome.interrupted {
            return outcome.end().map(|()| output.results);
        }
        for (label, kind, e) in &outcome.failed {
            output.record_error(*kind, label, format!("{label}: {e}"));
        }
        let interrupted = outcome.interrupted || self.cancel.is_cancelled();
        output.finish(interrupted)?;
        let html = match &report_dir {
            Some(dir) => {
                output.write_reports(dir)?;
                dir.join("report.html")
            }
            None => {
                let html = results_path.with_extension("html");
                output.write_html(&html)?;
                html
            }
        };
        if let Some(path) = &baseline {
            output.write_results(path)?;
            eprintln!(
                "baseline {:?} saved to {}",
                args.save_baseline.clone().unwrap_or_default(),
                path.display()
            );
        }
        eprintln!("report: {}", html.display());
        outcome.end()?;
        output.outcome()?;
        Ok(output.results)
    }
}

/// Where a measuring run writes: `--out` (the HTML beside it), else results.json and the
/// reports in a new timestamped directory.
fn destination(args: &Args) -> Result<(PathBuf, Option<PathBuf>), Error> {
    match &args.out {
        // The HTML report goes beside the results as FILE.html: a FILE.html given here would be
        // the results first and then overwritten by the report.
        Some(p) if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("html")) => Err(Error::usage(format!(
            "--out {}: that is where the HTML report goes (beside the results, as FILE.html); give the results file, e.g. {}",
            p.display(),
            p.with_extension("json").display()
        ))),
        Some(p) => {
            check_writable(&p.with_extension("html"))?;
            Ok((p.clone(), None))
        }
        None => {
            let dir = timestamp_dir();
            std::fs::create_dir_all(&dir).map_err(|e| Error::environment(format!("cannot create {}: {e}", dir.display())))?;
            Ok((dir.join(crate::output::RESULTS_FILE), Some(dir)))
        }
    }
}

impl Outcome {
    /// The study's error, once everything measured is written: interrupted (130); the first
    /// unit that could not be measured, naming every one (its exit code); a filter that matched
    /// nothing in any table (exit 2, listing every table's strategies). Tables
    /// the filter skipped while others ran are named on stderr.
    fn end(&self) -> Result<(), Error> {
        if self.interrupted {
            return Err(Error::Interrupted);
        }
        if !self.any_ran && !self.skipped.is_empty() {
            let (_, first) = &self.skipped[0];
            let tables: Vec<String> = self
                .skipped
                .iter()
                .map(|(label, n)| format!("{label}: {}", n.strategies.join(", ")))
                .collect();
            return Err(Error::usage(format!(
                "{} {:?} matches no strategy in any table; the strategies are:\n  {}",
                first.flag,
                first.pattern,
                tables.join("\n  ")
            )));
        }
        for (label, n) in &self.skipped {
            eprintln!("skipped {label}: {} {:?} matches none of its strategies", n.flag, n.pattern);
        }
        match self.failed.as_slice() {
            [] => Ok(()),
            [(label, _, e)] => Err(e.clone().context(label)),
            [(label, _, e), rest @ ..] => {
                let others: Vec<&str> = rest.iter().map(|(l, _, _)| l.as_str()).collect();
                Err(e
                    .clone()
                    .context(&format!("{label} (and {} not measured either)", others.join(", "))))
            }
        }
    }
}

/// `--list`'s lines as the Runner names them.
#[derive(Default)]
struct Lines {
    /// `(table, strategy)` as listed.
    listed: Vec<(String, String)>,
    /// The first table that could not be set up to list.
    unmeasured: Option<Error>,
}

impl Sink for Lines {
    fn table_done(&mut self, _table: jsoncost_engine::MeasuredTable) {}
    fn all_failed(&mut self, why: Error) {
        self.unmeasured.get_or_insert(why);
    }
    fn listed(&mut self, table: &str, method: &str) {
        self.listed.push((table.to_string(), method.to_string()));
    }
    fn note(&mut self, line: &str) {
        eprintln!("{line}");
    }
}

fn print_lines(lines: &[String]) -> Result<(), Error> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    for line in lines {
        if let Err(e) = writeln!(out, "{line}") {
            return match e.kind() {
                std::io::ErrorKind::BrokenPipe => Ok(()),
                _ => Err(Error::environment(format!("writing to stdout: {e}"))),
            };
        }
    }
    Ok(())
}

/// How the gate's verdict on a value delivered that differs begins (`jsoncost_codecs::gate`);
/// any other failure is the library's parse refusing the data.
const MISMATCH: &str = "output differs from the exact reference";

/// Test mode's report: a line per strategy as libtest prints one per test.
#[derive(Default)]
struct GateReport {
    passed: usize,
    /// Each failure no registration expected.
    failed: Vec<GateFailure>,
    /// The registrations' expected failures, and what became of them.
    expectations: Vec<Expectation>,
    /// Rows that failed as their registration expects.
    expected_failed: usize,
    /// Tables not gated at all (a store that cannot be read, a baseline the type fails on).
    unmeasured: Vec<Error>,
    tables: Vec<jsoncost_engine::MeasuredTable>,
    /// The first failed write to stdout (the run's error, exit 3); a closed pipe is not one.
    stdout_error: Option<std::io::Error>,
    /// Kept instead of printed (the tests read them).
    #[cfg(test)]
    said: Vec<String>,
}

impl GateReport {
    #[cfg(test)]
    fn say(&mut self, line: String) {
        self.said.push(line);
    }

    #[cfg(not(test))]
    fn say(&mut self, line: String) {
        use std::io::Write;
        if self.stdout_error.is_some() {
            return;
        }
        if let Err(e) = writeln!(std::io::stdout().lock(), "{line}")
            && e.kind() != std::io::ErrorKind::BrokenPipe
        {
            self.stdout_error = Some(e);
        }
    }
}

/// A row that failed the gate and was not expected to.
struct GateFailure {
    /// `table strategy`.
    name: String,
    /// The gate's verdict was a mismatch of the value delivered (not a parse that refused).
    mismatch: bool,
}

/// A registration's expected failure during a test run.
#[derive(Clone)]
struct Expectation {
    registration: String,
    /// The tables of its registration; `None`: the study's, every table.
    tables: Option<Vec<String>>,
    failure: crate::types::ExpectedFailure,
    /// `table strategy` of rows it matched that passed.
    passed: Vec<String>,
}

impl GateReport {
    /// The summary line and what the failures mean; the run's verdict.
    fn finish(&mut self) -> Result<(), Error> {
        let mut summary = format!("jsoncost: {} passed, {} failed", self.passed, self.failed.len());
        if self.expected_failed > 0 {
            summary.push_str(&format!(", {} failed as expected", self.expected_failed));
        }
        // An expectation a row of which passed: the library reads this data now (or the
        // pattern is wider than the failures). Per row, so a row run alone (nextest) is judged
        // as in the whole run.
        let now_pass: Vec<Expectation> = self.expectations.iter().filter(|e| !e.passed.is_empty()).cloned().collect();
        if !now_pass.is_empty() {
            summary.push_str(&format!(", {} expected to fail now pass", now_pass.len()));
        }
        match self.unmeasured.len() {
            0 => {}
            1 => summary.push_str(", 1 table not gated"),
            n => summary.push_str(&format!(", {n} tables not gated")),
        }
        let mut lines = vec![summary];
        let (mismatch, unread): (Vec<&GateFailure>, Vec<&GateFailure>) = self.failed.iter().partition(|f| f.mismatch);
        if !unread.is_empty() {
            lines.push(
                "the library cannot read your data (its parse refused it): declare it with .expect_failure(pattern, reason), or leave the library out with .libraries(..)".into(),
            );
            lines.extend(unread.iter().map(|f| format!("    {}", f.name)));
        }
        if !mismatch.is_empty() {
            lines.push("jsoncost or your type is wrong (a value delivered differs from the exact parse of your data):".into());
            lines.extend(mismatch.iter().map(|f| format!("    {}", f.name)));
        }
        let mut loud = Vec::new();
        for e in &now_pass {
            loud.push(format!(
                "UNEXPECTED PASS: {} expects {:?} to fail ({}), but {} passed: narrow or remove the .expect_failure",
                e.registration,
                e.failure.pattern,
                e.failure.reason,
                e.passed.join(", ")
            ));
        }
        lines.extend(loud.iter().cloned());
        for line in lines {
            self.say(line);
        }
        let mut problems = Vec::new();
        if let Some(first) = self.failed.first() {
            problems.push(format!(
                "{} of {} strategies failed the correctness gate (first: {}); see above",
                self.failed.len(),
                self.failed.len() + self.passed + self.expected_failed,
                first.name
            ));
        }
        if !now_pass.is_empty() {
            let which: Vec<String> = now_pass
                .iter()
                .map(|e| format!("{} {:?}", e.registration, e.failure.pattern))
                .collect();
            problems.push(format!(
                "{} expected failure{} now pass{} ({}): narrow or remove {}",
                which.len(),
                if which.len() == 1 { "" } else { "s" },
                if which.len() == 1 { "es" } else { "" },
                which.join(", "),
                if which.len() == 1 {
                    "its .expect_failure"
                } else {
                    "their .expect_failure"
                }
            ));
        }
        match problems.is_empty() {
            true => Ok(()),
            false => Err(Error::usage(problems.join("; "))),
        }
    }
}

impl Sink for GateReport {
    fn strategy_done(&mut self, table: &str, row: &Row) {
        let name = format!("{table} {}", row.method);
        let expected = self
            .expectations
            .iter_mut()
            .filter(|e| e.tables.as_ref().is_none_or(|t| t.iter().any(|t| t == table)) && e.failure.matches(table, &row.method));
        let mut reason = None;
        for e in expected {
            if row.is_ok() {
                e.passed.push(name.clone());
            } else {
                reason.get_or_insert_with(|| e.failure.reason.clone());
            }
        }
        if row.is_ok() {
            self.passed += 1;
            self.say(format!("gate {name} ... ok"));
            return;
        }
        let why = row.error_message.as_deref().unwrap_or("failed");
        if let Some(reason) = reason {
            self.expected_failed += 1;
            self.say(format!(
                "gate {name} ... failed as expected ({reason})\n    {}",
                why.replace('\n', "\n    ")
            ));
            return;
        }
        self.failed.push(GateFailure {
            name: name.clone(),
            mismatch: why.starts_with(MISMATCH),
        });
        self.say(format!("gate {name} ... FAILED\n    {}", why.replace('\n', "\n    ")));
    }
    fn table_done(&mut self, table: jsoncost_engine::MeasuredTable) {
        self.tables.push(table);
    }
    fn all_failed(&mut self, why: Error) {
        self.say(format!("gate: a table not gated: {}", why.to_string().replace('\n', "\n    ")));
        self.unmeasured.push(why);
    }
    fn note(&mut self, line: &str) {
        eprintln!("{line}");
    }
}

/// A type being registered: `.borrowed_as::<F>()` and `.lazy(..)` add its optional
/// strategies; then register another type, run, or go back to the [`Study`] with
/// `.into_study()` (to register under a condition).
pub struct TypeStudy<T> {
    study: Study,
    /// One subject, or one per size of a sweep.
    subject: Result<Vec<TypedSubject<T>>, Error>,
    sweep: Option<Sweep>,
}

/// A sweep of fewer than two sizes has no crossover to find: bad input (exit 2).
fn at_least_two<T>(name: &str, subjects: Vec<T>) -> Result<Vec<T>, Error> {
    if subjects.len() < 2 {
        return Err(Error::usage(format!(
            "{name}: a size sweep takes two sizes or more ({} given); register one size with .typed",
            subjects.len()
        )));
    }
    Ok(subjects)
}

/// How a type registered at several sizes names them.
enum Sweep {
    /// `typed_sizes`: by each sample's size.
    Samples(String),
    /// `typed_by_size`: by the size asked for, one per subject.
    Targets(String, Vec<PayloadSize>),
}

impl<T: Serialize + DeserializeOwned + 'static> TypeStudy<T> {
    /// `f` applied to the subject of every size.
    fn each(mut self, f: impl Fn(TypedSubject<T>) -> TypedSubject<T>) -> Self {
        self.subject = self.subject.map(|v| v.into_iter().map(&f).collect());
        self
    }

    /// `f` applied to the subject of every size; the first error stops.
    fn try_each(mut self, f: impl Fn(TypedSubject<T>) -> Result<TypedSubject<T>, Error>) -> Self {
        self.subject = self.subject.and_then(|v| v.into_iter().map(&f).collect());
        self
    }

    /// Adds `borrowed/*`: `T`'s zero-copy form `F`, a [`BorrowedForm<T>`] (usually a marker
    /// type local to the bench, so `T` may live in another crate):
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Event<S = String> { id: u64, name: S }
    /// struct EventRef;
    /// impl jsoncost::BorrowedForm<Event> for EventRef {
    ///     type Of<'a> = Event<&'a str>;
    /// }
    /// jsoncost::Study::from_args()
    ///     .typed::<Event>("event", jsoncost::Sample::json(r#"{"id": 1, "name": "a"}"#))
    ///     .borrowed_as::<EventRef>()
    ///     .run();
    /// ```
    pub fn borrowed_as<F: BorrowedForm<T>>(self) -> Self {
        self.each(TypedSubject::borrowed_as::<F>)
    }

    /// Adds `lazy/sonic-rs`: the projection of these JSON pointers, as a handler that reads only
    /// them.
    pub fn lazy<S: AsRef<str>>(self, fields: &[S]) -> Self {
        self.try_each(|s| s.lazy(fields))
    }

    /// Runs only these libraries' rows: [`jsoncost_stream::Library`] values or row names
    /// (`"jiter"`); the baseline `typed/serde_json` always runs. A name no row has is bad input.
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Event { id: u64 }
    /// use jsoncost::Library;
    /// jsoncost::Study::from_args()
    ///     .typed::<Event>("event", jsoncost::Sample::json(r#"{"id": 1}"#))
    ///     .libraries(&[Library::SerdeJson, Library::SonicRs])
    ///     .run();
    /// ```
    pub fn libraries<L: crate::types::LibraryName>(self, libraries: &[L]) -> Self {
        self.try_each(|s| s.libraries(libraries))
    }

    /// Adds the row `name` (`style/library`, e.g. `"path-to-error/serde_json"`) to the
    /// deserialize table: the team's own decode path from the sample's bytes to a `T` (a
    /// configured `Deserializer`, `serde_path_to_error`, its extractor's body decode). It is
    /// gated as the `typed/*` rows are, against the exact parse of the sample as `T` sees it,
    /// then measured and judged with them at effort `code`.
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Event { id: u64 }
    /// use serde::Deserialize;
    /// jsoncost::Study::from_args()
    ///     .typed::<Event>("event", jsoncost::Sample::json(r#"{"id": 1}"#))
    ///     .custom_deserialize("checked-end/serde_json", |bytes: &[u8]| {
    ///         let mut de = serde_json::Deserializer::from_slice(bytes);
    ///         let event = Event::deserialize(&mut de)?;
    ///         de.end().map(|()| event)
    ///     })
    ///     .run();
    /// ```
    pub fn custom_deserialize<E: std::fmt::Display>(self, name: &str, decode: impl Fn(&[u8]) -> Result<T, E> + 'static) -> Self {
        let decode: crate::types::CustomDecode<T> = std::rc::Rc::new(move |b: &[u8]| decode(b).map_err(|e| e.to_string()));
        self.try_each(|s| s.with_custom_decode(name, decode.clone()))
    }

    /// Adds the row `name` to the serialize table: the team's own encode path from a `T` to
    /// JSON bytes (a custom `Formatter`, its response writer), gated on what the bytes parse
    /// to against the value, then measured and judged with the `typed/*` rows at effort `code`.
    pub fn custom_serialize<E: std::fmt::Display>(self, name: &str, encode: impl Fn(&T) -> Result<Vec<u8>, E> + 'static) -> Self {
        let encode: crate::types::CustomEncode<T> = std::rc::Rc::new(move |v: &T| encode(v).map_err(|e| e.to_string()));
        self.try_each(|s| s.with_custom_encode(name, encode.clone()))
    }

    /// Runs only these styles' rows (`typed`, `dom`, `borrowed`, `lazy` ...); the baseline
    /// always runs. A style no row has is bad input.
    pub fn styles<S: AsRef<str>>(self, styles: &[S]) -> Self {
        self.try_each(|s| s.styles(styles))
    }

    /// Declares the rows `pattern` matches expected to fail on this data, for `reason`: a glob
    /// over `style/library` (`"*/simd-json"`), or over `table::style/library` for one table
    /// (`"push/deserialize::typed/simd-json"`). Test mode counts their failures as expected
    /// (exit 0) and says loudly, exit 2, when one of them passes. The bench still
    /// measures and reports them as failed. A pattern that matches no row is bad input.
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct Event { id: u64 }
    /// jsoncost::Study::from_args()
    ///     .typed::<Event>("event", jsoncost::Sample::file("benches/data/event.json"))
    ///     .expect_failure("*/simd-json", "rejects our 30-digit amounts")
    ///     .run();
    /// ```
    pub fn expect_failure(self, pattern: &str, reason: &str) -> Self {
        self.try_each(|s| s.expect_failure(pattern, reason))
    }

    /// Adds `typed/simd-json-derive` and its reuse and writer forms: `T` also derives
    /// `simd_json_derive::{Serialize, Deserialize}` (the pinned version:
    /// `jsoncost::derived::simd_json_derive`). Cargo feature `more-libraries`.
    #[cfg(feature = "more-libraries")]
    pub fn simd_json_derive(self) -> Self
    where
        T: for<'i> jsoncost_codecs::derived::simd_json_derive::Deserialize<'i> + jsoncost_codecs::derived::simd_json_derive::Serialize,
    {
        self.each(TypedSubject::simd_json_derive)
    }

    /// Adds `iterator/jiter`: `T` decoded by `D`, a hand decoder over jiter's pull parser
    /// ([`jsoncost_codecs::jiter_decode::JiterDecoder`], usually a marker type local to the
    /// bench). Cargo feature `more-libraries`.
    #[cfg(feature = "more-libraries")]
    pub fn jiter_iterator_with<D: jsoncost_codecs::jiter_decode::JiterDecoder<T>>(self) -> Self {
        self.each(TypedSubject::jiter_iterator_with::<D>)
    }

    /// Adds `typed/nanoserde`: `T` also derives `nanoserde::{DeJson, SerJson}`. Cargo feature
    /// `more-libraries`.
    #[cfg(feature = "more-libraries")]
    pub fn nanoserde(self) -> Self
    where
        T: jsoncost_codecs::derived::nanoserde::DeJson + jsoncost_codecs::derived::nanoserde::SerJson,
    {
        self.each(TypedSubject::nanoserde)
    }

    /// Adds `typed/miniserde`: `T` also derives `miniserde::{Deserialize, Serialize}`. Cargo
    /// feature `more-libraries`.
    #[cfg(feature = "more-libraries")]
    pub fn miniserde(self) -> Self
    where
        T: jsoncost_codecs::derived::miniserde::Deserialize + jsoncost_codecs::derived::miniserde::Serialize,
    {
        self.each(TypedSubject::miniserde)
    }

    /// Adds `typed/facet-json`: `T` also derives `facet::Facet` (of facet 0.46, the version
    /// measured). Cargo feature `more-libraries`.
    #[cfg(feature = "more-libraries")]
    pub fn facet_json(self) -> Self
    where
        T: jsoncost_codecs::derived::facet::Facet<'static>,
    {
        self.each(TypedSubject::facet_json)
    }

    /// Back to the study, this type registered: for registrations under a condition.
    ///
    /// ```no_run
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct A { id: u64 }
    /// # #[derive(serde::Serialize, serde::Deserialize)] struct B { id: u64 }
    /// let mut study = jsoncost::Study::from_args().typed::<A>("a", jsoncost::Sample::json(r#"{"id": 1}"#)).into_study();
    /// if std::env::var_os("WITH_B").is_some() {
    ///     study = study.typed::<B>("b", jsoncost::Sample::json(r#"{"id": 2}"#)).into_study();
    /// }
    /// study.run();
    /// ```
    pub fn into_study(self) -> Study {
        let subjects = match self.subject {
            Ok(v) => v,
            Err(e) => return self.study.add(Err(e)),
        };
        let boxed = |s: TypedSubject<T>| Box::new(s) as Box<dyn Subject>;
        let sized: Vec<Box<dyn Subject>> = match &self.sweep {
            None => subjects.into_iter().map(boxed).collect(),
            Some(Sweep::Samples(name)) => subjects
                .into_iter()
                .map(|s| Box::new(SizedSubject::sample(name, boxed(s))) as Box<dyn Subject>)
                .collect(),
            Some(Sweep::Targets(name, sizes)) => subjects
                .into_iter()
                .zip(sizes)
                .map(|(s, size)| Box::new(SizedSubject::generated(name, *size, boxed(s))) as Box<dyn Subject>)
                .collect(),
        };
        sized.into_iter().fold(self.study, |study, s| study.add(Ok(s)))
    }

    /// Registers another type.
    pub fn typed<U: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> TypeStudy<U> {
        self.into_study().typed::<U>(name, sample)
    }

    /// See [`Study::typed_sizes`].
    pub fn typed_sizes<U: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        samples: impl IntoIterator<Item = impl Into<Sample>>,
    ) -> TypeStudy<U> {
        self.into_study().typed_sizes::<U>(name, samples)
    }

    /// See [`Study::typed_by_size`].
    pub fn typed_by_size<U: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        sizes: &[u64],
        generate: impl Fn(u64) -> U,
    ) -> TypeStudy<U> {
        self.into_study().typed_by_size::<U>(name, sizes, generate)
    }

    /// See [`Study::stream`].
    #[cfg(feature = "stream")]
    pub fn stream<E: Serialize + DeserializeOwned + 'static>(self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        self.into_study().stream::<E>(name, file, pointer)
    }

    /// Without jsoncost's cargo feature `stream`: a compile error that names it.
    #[cfg(not(feature = "stream"))]
    pub fn stream<E: NeedsFeatureStream>(self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        let _ = (name, file.into(), pointer);
        unreachable!("no type implements NeedsFeatureStream")
    }

    /// See [`Study::variants`].
    pub fn variants<P: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> VariantStudy<P> {
        self.into_study().variants::<P>(name, sample)
    }

    /// See [`Study::store`].
    #[cfg(feature = "store")]
    pub fn store<U: Serialize + DeserializeOwned + 'static>(self, name: &str, url: &str, at: Existing) -> Study {
        self.into_study().store::<U>(name, url, at)
    }

    /// Without a store client's cargo feature of jsoncost: a compile error that names them.
    #[cfg(not(feature = "store"))]
    pub fn store<U: NeedsStoreFeature>(self, name: &str, url: &str, at: impl Sized) -> Study {
        let _ = (name, url, at);
        unreachable!("no type implements NeedsStoreFeature")
    }

    /// See [`Study::cancel`].
    pub fn cancel(self, cancel: Cancel) -> Study {
        self.into_study().cancel(cancel)
    }

    /// See [`Study::run`].
    pub fn run(self) -> ! {
        self.into_study().run()
    }

    /// See [`Study::measure`].
    pub fn measure(self) -> Result<Results, Error> {
        self.into_study().measure()
    }
}

/// A group of variants being registered in a [`Study`]: `.variant::<V>(name)` adds one (then
/// `.on`, `.reading`, `.leaving_out`, `.borrowing` qualify it); then register something else
/// or run. The first registration error is reported by `run` (exit 2).
///
/// ```no_run
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Serialize, Deserialize)]
/// struct Order {
///     id: u64,
///     customer: String,
/// }
///
/// // Another model of the same document: the customer borrowed from the input.
/// #[derive(Deserialize)]
/// struct OrderRef<'a> {
///     id: u64,
///     customer: &'a str,
/// }
///
/// struct Borrowed;
/// impl jsoncost::Variant<Order> for Borrowed {
///     type Decoded<'de> = OrderRef<'de>;
///     fn to_plain(o: OrderRef<'_>) -> Result<Order, String> {
///         Ok(Order { id: o.id, customer: o.customer.to_string() })
///     }
/// }
///
/// jsoncost::Study::from_args()
///     .variants::<Order>("order", jsoncost::Sample::json(r#"{"id": 7, "customer": "Ada"}"#))
///     .variant_of::<Borrowed>("borrowed")
///     .borrowing()
///     .run();
/// ```
pub struct VariantStudy<P> {
    study: Study,
    group: Result<VariantsSubject<P>, Error>,
}

impl<P: Serialize + DeserializeOwned + 'static> VariantStudy<P> {
    pub(crate) fn new(study: Study, group: Result<VariantsSubject<P>, Error>) -> Self {
        VariantStudy { study, group }
    }

    fn then(mut self, f: impl FnOnce(VariantsSubject<P>) -> Result<VariantsSubject<P>, Error>) -> Self {
        self.group = self.group.and_then(f);
        self
    }

    /// The libraries of every variant without its own ([`on`](Self::on)).
    pub fn libraries(self, libraries: &[jsoncost_stream::Library]) -> Self {
        self.then(|g| g.libraries(libraries))
    }

    /// Adds `V`, a type decoding the sample that converts `Into<P>`.
    pub fn variant<V: DeserializeOwned + Into<P> + 'static>(self, name: &str) -> Self {
        self.then(|g| g.variant::<V>(name))
    }

    /// Adds the variant `M` (for one that borrows from the input, or whose conversion can fail).
    pub fn variant_of<M: Variant<P>>(self, name: &str) -> Self {
        self.then(|g| g.variant_of::<M>(name))
    }

    /// The last variant only with these libraries (a type only one library reads, such as
    /// serde_json's `RawValue`: absent elsewhere, not failed).
    pub fn on(self, libraries: &[jsoncost_stream::Library]) -> Self {
        self.then(|g| g.on(libraries))
    }

    /// The last variant reads `sample`, its own rendering of the same values (a layout the
    /// others do not read, such as adjacently tagged enums); it is still checked against the
    /// group's sample as `P` sees it.
    pub fn reading(self, sample: impl Into<Sample>) -> Self {
        self.then(|g| g.reading(sample))
    }

    /// The last variant does not keep the values at these JSON pointers (an `IgnoredAny`
    /// field): the gate compares the rest. Bad input (exit 2) when the sample has no such object
    /// member.
    pub fn leaving_out<S: AsRef<str>>(self, pointers: &[S]) -> Self {
        self.then(|g| g.leaving_out(pointers))
    }

    /// The last variant's value borrows from the input (`&str`, `Cow<str>` fields): its rows
    /// deliver a borrowed value, as `borrowed/*` rows do.
    pub fn borrowing(self) -> Self {
        self.then(|g| Ok(g.borrowing()))
    }

    /// Back to the study, this group registered: for registrations under a condition.
    pub fn into_study(self) -> Study {
        self.study.add(self.group.map(|g| Box::new(g) as Box<dyn Subject>))
    }

    /// See [`Study::store`].
    #[cfg(feature = "store")]
    pub fn store<U: Serialize + DeserializeOwned + 'static>(self, name: &str, url: &str, at: jsoncost_stores::Existing) -> Study {
        self.into_study().store::<U>(name, url, at)
    }

    /// Without a store client's cargo feature of jsoncost: a compile error that names them.
    #[cfg(not(feature = "store"))]
    pub fn store<U: NeedsStoreFeature>(self, name: &str, url: &str, at: impl Sized) -> Study {
        let _ = (name, url, at);
        unreachable!("no type implements NeedsStoreFeature")
    }

    /// See [`Study::typed`].
    pub fn typed<T: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> TypeStudy<T> {
        self.into_study().typed::<T>(name, sample)
    }

    /// See [`Study::typed_sizes`].
    pub fn typed_sizes<T: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        samples: impl IntoIterator<Item = impl Into<Sample>>,
    ) -> TypeStudy<T> {
        self.into_study().typed_sizes::<T>(name, samples)
    }

    /// See [`Study::typed_by_size`].
    pub fn typed_by_size<T: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        sizes: &[u64],
        generate: impl Fn(u64) -> T,
    ) -> TypeStudy<T> {
        self.into_study().typed_by_size::<T>(name, sizes, generate)
    }

    /// Registers another group.
    pub fn variants<Q: Serialize + DeserializeOwned + 'static>(self, name: &str, sample: impl Into<Sample>) -> VariantStudy<Q> {
        self.into_study().variants::<Q>(name, sample)
    }

    /// See [`Study::stream`].
    #[cfg(feature = "stream")]
    pub fn stream<E: Serialize + DeserializeOwned + 'static>(
        self,
        name: &str,
        file: impl Into<std::path::PathBuf>,
        pointer: &str,
    ) -> Study {
        self.into_study().stream::<E>(name, file, pointer)
    }

    /// Without jsoncost's cargo feature `stream`: a compile error that names it.
    #[cfg(not(feature = "stream"))]
    pub fn stream<E: NeedsFeatureStream>(self, name: &str, file: impl Into<PathBuf>, pointer: &str) -> Study {
        let _ = (name, file.into(), pointer);
        unreachable!("no type implements NeedsFeatureStream")
    }

    /// See [`Study::cancel`].
    pub fn cancel(self, cancel: crate::cancel::Cancel) -> Study {
        self.into_study().cancel(cancel)
    }

    /// See [`Study::run`].
    pub fn run(self) -> ! {
        self.into_study().run()
    }

    /// See [`Study::measure`].
    pub fn measure(self) -> Result<jsoncost_engine::Results, Error> {
        self.into_study().measure()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Args, Error> {
        Args::parse(args.iter().map(OsString::from))
    }

    #[derive(Serialize, serde::Deserialize)]
    struct Point {
        x: u32,
    }

    #[derive(Serialize, serde::Deserialize)]
    struct Points {
        xs: Vec<u32>,
    }

    fn tables(study: &Study) -> Vec<(String, serde_json::Value)> {
        study
            .subjects
            .iter()
            .map(|s| {
                let d = jsoncost_codecs::Direction::Deserialize;
                (s.table(d), serde_json::Value::Object(s.table_params(d)))
            })
            .collect()
    }

    #[test]
    fn a_type_at_several_sizes_is_a_table_pair_per_size_carrying_its_sweep() {
        let study = Study::with_args(["--list"])
            .typed_sizes::<Points>(
                "points",
                [Sample::json(r#"{"xs":[1]}"#), Sample::json(r#"{"xs":[1,2,3,4,5,6,7,8,9]}"#)],
            )
            .into_study();
        assert!(study.error.is_none());
        assert_eq!(
            tables(&study),
            [
                (
                    "points-10B/deserialize".to_string(),
                    serde_json::json!({"shape": "points", "payload_bytes": 10, "sweep": "points", "operation": "deserialize"})
                ),
                (
                    "points-26B/deserialize".to_string(),
                    serde_json::json!({"shape": "points", "payload_bytes": 26, "sweep": "points", "operation": "deserialize"})
                ),
            ]
        );
        let generated = Study::with_args(["--list"])
            .typed_by_size::<Points>("gen", &[1024, 4096], |bytes| Points {
                xs: (0..bytes as u32 / 6).collect(),
            })
            .into_study();
        let t = tables(&generated);
        assert_eq!(t[1].0, "gen-4KB/deserialize");
        assert_eq!(t[1].1["size_target"], 4096);
        let one = Study::with_args(["--list"])
            .typed_sizes::<Points>("one", [Sample::json(r#"{"xs":[]}"#)])
            .into_study();
        assert_eq!(
            one.error.unwrap().to_string(),
            "one: a size sweep takes two sizes or more (1 given); register one size with .typed"
        );
    }

    #[test]
    fn two_registrations_of_one_table_name_are_refused_before_anything_runs() {
        let err = Study::with_args(["--list"])
            .typed::<Point>("point", Sample::json(r#"{"x":1}"#))
            .typed::<Point>("point", Sample::json(r#"{"x":2}"#))
            .measure()
            .unwrap_err();
        assert_eq!(
            (err.exit_code(), err.to_string()),
            (
                2,
                r#"two registrations write the micro table "point/deserialize": give each its own name"#.to_string()
            )
        );
    }

    /// The results would be written to FILE.html and then overwritten by the HTML report.
    #[test]
    fn an_out_file_named_like_the_html_report_is_refused_before_anything_runs() {
        let args = parse(&["--bench", "--out", "report.HTML"]).unwrap();
        let err = destination(&args).unwrap_err();
        assert_eq!(
            (err.exit_code(), err.to_string()),
            (
                2,
                "--out report.HTML: that is where the HTML report goes (beside the results, as FILE.html); give the results file, e.g. report.json".to_string()
            )
        );
        let args = parse(&["--bench", "--out", "/nonexistent-dir/r.json"]).unwrap();
        assert_eq!(destination(&args).unwrap_err().exit_code(), 3);
    }

    #[test]
    fn the_cli_flags_parse_and_cargo_s_bench_flag_is_accepted() {
        let a = parse(&[
            "--bench",
            "--quick",
            "--filter",
            "typed/*",
            "--format",
            "json",
            "--out",
            "r.json",
            "--save-baseline",
            "main",
            "--schedule",
            "sequential",
        ])
        .unwrap();
        assert_eq!(
            a,
            Args {
                quick: true,
                filters: vec!["typed/*".into()],
                format: Some(Format::Json),
                out: Some("r.json".into()),
                save_baseline: Some("main".into()),
                schedule: Some(Schedule::Sequential),
                bench: true,
                ..Args::default()
            }
        );
        assert_eq!(parse(&[]).unwrap().mode(), RunMode::Gate);
        assert_eq!(parse(&["--bench"]).unwrap().mode(), RunMode::Measure);
        assert_eq!(parse(&["--bench", "--list"]).unwrap().mode(), RunMode::List);
    }

    #[test]
    fn measure_counts_and_its_operations_parse_and_refuse_what_does_not_go_with_them() {
        let a = parse(&["--bench", "--measure", "counts", "--count-ops", "50"]).unwrap();
        assert_eq!((a.counts, a.count_ops), (true, Some(50)));
        assert!(!parse(&["--measure", "time"]).unwrap().counts);
        let err = |args: &[&str]| parse(args).unwrap_err().to_string();
        assert_eq!(err(&["--measure", "cycles"]), "--measure: \"cycles\" is not time or counts");
        assert_eq!(
            err(&["--count-ops", "5"]),
            "--count-ops is how many operations --measure counts counts: give --measure counts too"
        );
        assert_eq!(
            err(&["--measure", "counts", "--count-ops", "0"]),
            "--count-ops: \"0\" is not a whole number from 1 to 10000000"
        );
        assert_eq!(
            err(&["--measure", "counts", "--allocators", "system,mimalloc"]),
            "--measure counts and --allocators: give one of them"
        );
    }

    #[test]
    fn help_list_rates_and_a_bare_glob_parse_as_the_cli_s() {
        assert!(parse(&["--help"]).unwrap().help);
        assert!(parse(&["-h"]).unwrap().help);
        assert_eq!(parse(&["--bench", "typed/*"]).unwrap().filters, ["typed/*"]);
        // Several filters, as libtest's: any of them selects.
        assert_eq!(parse(&["a/*", "--filter", "b/*"]).unwrap().filters, ["a/*", "b/*"]);
        let a = parse(&["--advice-rate", "50", "--advice-rate", "store=1_000"]).unwrap();
        assert_eq!(a.rates, vec![(None, 50.0), (Some(ExperimentKind::Store), 1000.0)]);
        assert_eq!(
            parse(&["--advice-rate", "disk=5"]).unwrap_err().to_string(),
            "--advice-rate: \"disk=5\": unknown experiment \"disk\"; valid: micro, store, stream, http"
        );
        assert_eq!(
            parse(&["--advice-rate", "0"]).unwrap_err().to_string(),
            "--advice-rate: \"0\" is not a rate: give a number of operations per second above 0"
        );
        // What `cargo test -- --nocapture` hands every test binary.
        assert_eq!(parse(&["--nocapture", "--test-threads", "1"]).unwrap(), Args::default());
    }

    #[test]
    fn libtest_s_flags_parse_and_each_allocator_s_run_gets_the_selection() {
        let a = parse(&[
            "--skip",
            "x",
            "--skip",
            "y/*",
            "--exact",
            "--color",
            "always",
            "--format",
            "terse",
            "--list",
            "--ignored",
            "a",
            "-q",
        ])
        .unwrap();
        assert_eq!(
            a,
            Args {
                filters: vec!["a".into()],
                skip: vec!["x".into(), "y/*".into()],
                exact: true,
                terse: true,
                list: true,
                ignored: true,
                ..Args::default()
            }
        );
        assert_eq!(
            a.measuring_args(),
            ["--bench", "--filter", "a", "--skip", "x", "--skip", "y/*", "--exact"]
        );
        assert_eq!(parse(&["--format", "pretty"]).unwrap(), Args::default());
        assert_eq!(
            parse(&["--color", "red"]).unwrap_err().to_string(),
            "--color: \"red\" is not auto, always or never"
        );
    }

    fn listed(args: &[&str]) -> (Vec<String>, Result<(), Error>) {
        Study::with_args(args.iter().copied())
            .typed::<Point>("point", Sample::json(r#"{"x":1}"#))
            .into_study()
            .listed()
    }

    /// `point`'s strategies, as this build has them: `more-libraries` (on in a workspace
    /// build, through the CLI) adds jiter's and serde_json_borrow's rows.
    fn point_strategies() -> &'static str {
        if cfg!(feature = "more-libraries") {
            "dom-borrowed-reuse/jiter, dom-borrowed/jiter, dom-borrowed/serde_json_borrow, dom-borrowed/simd-json, dom-reuse/jiter, dom-then-typed/serde_json, dom-then-typed/sonic-rs, dom/jiter, dom/serde_json, dom/simd-json, dom/sonic-rs, raw/serde_json, reader/serde_json, typed-reuse/simd-json, typed-writer/serde_json, typed-writer/simd-json, typed-writer/sonic-rs, typed/jiter, typed/serde_json, typed/simd-json, typed/sonic-rs"
        } else {
            "dom-borrowed/simd-json, dom-then-typed/serde_json, dom-then-typed/sonic-rs, dom/serde_json, dom/simd-json, dom/sonic-rs, raw/serde_json, reader/serde_json, typed-reuse/simd-json, typed-writer/serde_json, typed-writer/simd-json, typed-writer/sonic-rs, typed/serde_json, typed/simd-json, typed/sonic-rs"
        }
    }

    #[test]
    fn list_terse_is_libtest_s_listing_and_a_test_name_runs_that_test_alone() {
        let (lines, ended) = listed(&["--list", "--format", "terse", "--exact", "point/serialize::typed/serde_json"]);
        assert_eq!(lines, ["point/serialize::typed/serde_json: test"]);
        assert!(ended.is_ok());
        let (lines, _) = listed(&["--list", "typed/sonic-rs"]);
        assert_eq!(lines, ["point/deserialize typed/sonic-rs", "point/serialize typed/sonic-rs"]);
        let (lines, ended) = listed(&["--list", "nothing"]);
        assert!(lines.is_empty());
        let strategies = point_strategies();
        assert_eq!(
            ended.unwrap_err().to_string(),
            format!(
                "--filter \"nothing\" matches no strategy in any table; the strategies are:\n  point/deserialize and point/serialize: {strategies}"
            )
        );
    }

    fn gate_report(expected: &[(&str, &str)]) -> GateReport {
        let subject = expected
            .iter()
            .fold(TypedSubject::<Point>::new("point", r#"{"x":1}"#).unwrap(), |s, (p, r)| {
                s.expect_failure(p, r).unwrap()
            });
        let study = Study::with_args(["--list"]).add(Ok(Box::new(subject)));
        GateReport {
            expectations: study.expectations(),
            ..GateReport::default()
        }
    }

    #[test]
    fn test_mode_counts_expected_failures_and_tells_a_library_s_refusal_from_a_wrong_value() {
        let mut r = gate_report(&[("point/deserialize::*/simd-json", "rejects 30-digit integers")]);
        r.strategy_done("point/deserialize", &Row::new("typed/serde_json"));
        r.strategy_done("point/deserialize", &Row::failed("typed/simd-json", "InvalidNumber at character 5"));
        r.strategy_done("point/serialize", &Row::new("typed/simd-json"));
        assert!(r.finish().is_ok());
        assert_eq!(
            r.said,
            [
                "gate point/deserialize typed/serde_json ... ok",
                "gate point/deserialize typed/simd-json ... failed as expected (rejects 30-digit integers)\n    InvalidNumber at character 5",
                "gate point/serialize typed/simd-json ... ok",
                "jsoncost: 2 passed, 0 failed, 1 failed as expected",
            ]
        );
        let mut r = gate_report(&[]);
        r.strategy_done("point/deserialize", &Row::failed("typed/simd-json", "InvalidNumber at character 5"));
        r.strategy_done(
            "point/deserialize",
            &Row::failed("typed/sonic-rs", "output differs from the exact reference at /x: expected 1, got 2"),
        );
        let e = r.finish().unwrap_err();
        assert_eq!(
            (e.exit_code(), e.to_string()),
            (
                2,
                "2 of 2 strategies failed the correctness gate (first: point/deserialize typed/simd-json); see above".to_string()
            )
        );
        assert_eq!(
            r.said[2..],
            [
                "jsoncost: 0 passed, 2 failed",
                "the library cannot read your data (its parse refused it): declare it with .expect_failure(pattern, reason), or leave the library out with .libraries(..)",
                "    point/deserialize typed/simd-json",
                "jsoncost or your type is wrong (a value delivered differs from the exact parse of your data):",
                "    point/deserialize typed/sonic-rs",
            ]
        );
    }

    /// Per row, as libtest's `should_panic` is per test: a declaration matching a row that
    /// passes is wrong however its other rows do (and nextest, which runs each row alone, sees
    /// the same verdict as `cargo test`).
    #[test]
    fn an_expected_failure_that_passes_now_is_exit_2_and_said_loudly() {
        let mut r = gate_report(&[("*/simd-json", "rejects 30-digit integers"), ("typed/sonic-rs", "x")]);
        r.strategy_done("point/deserialize", &Row::new("typed/simd-json"));
        r.strategy_done("point/serialize", &Row::failed("typed/simd-json", "InvalidNumber"));
        r.strategy_done("point/deserialize", &Row::new("typed/sonic-rs"));
        let e = r.finish().unwrap_err();
        assert_eq!(
            (e.exit_code(), e.to_string()),
            (
                2,
                "2 expected failures now pass (point \"*/simd-json\", point \"typed/sonic-rs\"): narrow or remove their .expect_failure"
                    .to_string()
            )
        );
        assert_eq!(
            r.said[3..],
            [
                "jsoncost: 2 passed, 0 failed, 1 failed as expected, 2 expected to fail now pass",
                "UNEXPECTED PASS: point expects \"*/simd-json\" to fail (rejects 30-digit integers), but point/deserialize typed/simd-json passed: narrow or remove the .expect_failure",
                "UNEXPECTED PASS: point expects \"typed/sonic-rs\" to fail (x), but point/deserialize typed/sonic-rs passed: narrow or remove the .expect_failure",
            ]
        );
    }

    /// A stream's rows have no registration of a type to declare their failures on: the
    /// study's own `.expect_failure` covers them, checked against the rows before anything runs.
    #[cfg(feature = "stream")]
    #[test]
    fn a_study_s_expected_failure_covers_a_stream_table() {
        #[derive(Serialize, serde::Deserialize)]
        struct Big {
            id: u64,
            big: f64,
        }
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("nums.json");
        let body: Vec<String> = (0..50)
            .map(|i| format!(r#"{{"id":{i},"big":123456789012345678901234567890}}"#))
            .collect();
        std::fs::write(&file, format!("[{}]", body.join(","))).unwrap();
        let study = || Study::with_args(Vec::<String>::new()).stream::<Big>("nums", &file, "");
        let err = study().measure().unwrap_err();
        assert_eq!(err.exit_code(), 2, "{err}");
        assert!(
            err.to_string()
                .contains("failed the correctness gate (first: nums buffered/simd-json)"),
            "{err}"
        );
        study()
            .expect_failure("nums::*/simd-json", "integers of 30 digits")
            .measure()
            .unwrap();
        let err = study().expect_failure("nums::*/rapidjson", "slow").measure().unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.to_string()
                .starts_with("Study::expect_failure(\"nums::*/rapidjson\", ..) matches no strategy; the strategies are: nums::"),
            "{err}"
        );
        let err = study().expect_failure("*/simd-json", "").measure().unwrap_err();
        assert_eq!(
            err.to_string(),
            "Study::expect_failure(\"*/simd-json\", ..): give the reason it fails, as test mode will say it"
        );
    }

    #[test]
    fn a_registration_s_libraries_styles_and_expected_failures_are_checked_when_declared() {
        let point = || TypedSubject::<Point>::new("point", r#"{"x":1}"#).unwrap();
        let names = |s: &TypedSubject<Point>, d| s.strategies(d).iter().map(|s| s.name().to_string()).collect::<Vec<_>>();
        let two = point()
            .libraries(&[jsoncost_stream::Library::SonicRs, jsoncost_stream::Library::SerdeJson])
            .unwrap()
            .styles(&["typed"])
            .unwrap();
        use jsoncost_codecs::Direction::{Deserialize, Serialize};
        assert_eq!(names(&two, Deserialize), ["typed/serde_json", "typed/sonic-rs"]);
        assert_eq!(names(&two, Serialize), ["typed/serde_json", "typed/sonic-rs"]);
        let err = |r: Result<TypedSubject<Point>, Error>| r.err().unwrap().to_string();
        let libraries = if cfg!(feature = "more-libraries") {
            "jiter, serde_json, serde_json_borrow, simd-json, sonic-rs"
        } else {
            "serde_json, simd-json, sonic-rs"
        };
        assert_eq!(
            err(point().libraries(&["jitter"])),
            format!("point: .libraries(..): no strategy of library \"jitter\"; the libraries are: {libraries}")
        );
        assert_eq!(
            err(point().expect_failure("*/rapidjson", "slow")),
            format!(
                "point: .expect_failure(\"*/rapidjson\", ..) matches no strategy; the strategies are: {}",
                point_strategies()
            )
        );
        assert_eq!(
            err(point().expect_failure("*/simd-json", " ")),
            "point: .expect_failure(\"*/simd-json\", ..): give the reason it fails, as test mode will say it"
        );
    }

    #[test]
    fn allocators_and_rounds_parse_and_each_allocator_s_run_gets_the_measuring_flags() {
        let a = parse(&[
            "--bench",
            "--quick",
            "--allocators",
            "system,mimalloc",
            "--rounds",
            "12",
            "typed/*",
            "--out",
            "r.json",
        ])
        .unwrap();
        assert_eq!(a.allocators, [Allocator::System, Allocator::Mimalloc]);
        assert_eq!(a.rounds, Some(12));
        assert_eq!(a.measuring_args(), ["--bench", "--quick", "--filter", "typed/*"]);
        assert_eq!(
            parse(&["--allocators", "system,tcmalloc"]).unwrap_err().to_string(),
            "--allocators: unknown allocator \"tcmalloc\"; valid: system, mimalloc, jemalloc"
        );
        assert_eq!(
            parse(&["--rounds", "5"]).unwrap_err().to_string(),
            "--rounds is the paired runs' round count: give --allocators or --lever too"
        );
        assert_eq!(
            parse(&["--allocators", "system,system", "--rounds", "1"]).unwrap_err().to_string(),
            "--rounds: \"1\" is not a whole number from 2 to 10000"
        );
    }

    #[test]
    fn levers_parse_each_build_gets_the_measuring_flags_and_test_mode_refuses_them() {
        let a = parse(&[
            "--bench",
            "--quick",
            "--lever",
            "serde_json/float_roundtrip",
            "--lever",
            "cpu=native",
            "--rounds",
            "10",
        ])
        .unwrap();
        assert_eq!(
            a.levers,
            [
                crate::levers::Lever::Feature {
                    krate: "serde_json".into(),
                    feature: "float_roundtrip".into()
                },
                crate::levers::Lever::Cpu("native".into())
            ]
        );
        assert_eq!(a.rounds, Some(10));
        assert_eq!(a.measuring_args(), ["--bench", "--quick"]);
        assert_eq!(
            parse(&["--bench", "--lever", "fast"]).unwrap_err().to_string(),
            format!("--lever: \"fast\" is not a lever: give {}", crate::levers::FORMS)
        );
        assert_eq!(
            parse(&["--bench", "--lever", "lto", "--allocators", "system,mimalloc"])
                .unwrap_err()
                .to_string(),
            "--lever and --allocators: give one of them"
        );
        assert_eq!(
            parse(&["--bench", "--lever", "lto", "--measure", "counts"])
                .unwrap_err()
                .to_string(),
            "--lever and --measure counts: give one of them"
        );
        let test_mode = parse(&["--lever", "lto"]).unwrap_err();
        assert_eq!(
            (test_mode.exit_code(), test_mode.to_string()),
            (
                2,
                "--lever measures: run it with cargo bench (cargo bench --bench NAME -- --lever LEVER)".to_string()
            )
        );
    }

    #[test]
    fn bad_flags_are_usage_errors_that_say_what_is_wrong() {
        let e = parse(&["--quik"]).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("invalid option '--quik'\nusage: "), "{e}");
        assert!(e.to_string().ends_with("--help lists the options"), "{e}");
        assert_eq!(
            parse(&["--format", "yaml"]).unwrap_err().to_string(),
            "--format: unknown format `yaml`; valid formats: table, markdown, json, csv, html, junit, bmf, github-action-benchmark"
        );
        assert!(
            parse(&["--filter"])
                .unwrap_err()
                .to_string()
                .starts_with("missing argument for option '--filter'")
        );
        assert_eq!(parse(&["--save-baseline", "../x"]).unwrap_err().exit_code(), 2);
        assert_eq!(
            parse(&["--schedule", "paired"]).unwrap_err().to_string(),
            "--schedule: unknown schedule \"paired\": expected sequential or interleaved"
        );
    }

    #[test]
    fn the_usage_names_the_experiments_with_a_rate_and_every_format() {
        let usage = usage();
        assert!(
            usage.contains("EXPERIMENT is micro, store, stream or http, none: all of them"),
            "{usage}"
        );
        assert!(!usage.contains('{'), "{usage}");
        assert!(
            usage.contains("  --out FILE                write the results (JSON) to FILE and the HTML report beside it, FILE\n"),
            "{usage}"
        );
        assert!(usage.contains("  --skip GLOB  ") && usage.contains("  --exact  "), "{usage}");
    }
}
